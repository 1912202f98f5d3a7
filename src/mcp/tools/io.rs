//! The tools that start a session, type into it and read it: `terminal_start`, `terminal_send`
//! and `terminal_read`.

use crate::{ScriptItem, SpawnSpec, parse_key_script};

use super::args::Args;
use super::view::{show, view_args};
use super::waits::{self, DefaultWait};
use super::{Call, ToolError, ToolOutput};

/// `terminal_start`.
pub(crate) fn start(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let spec = spawn_spec(args, call.engine.config())?;
    let view = view_args(args)?;
    let plan = waits::plan(args, DefaultWait::Settle, call.engine.config())?;
    let session = call.engine.spawn(spec)?;
    let report = match &plan {
        Some(plan) => Some(waits::run(&session, plan, call.cancel)?),
        None => None,
    };
    if call.cancel.is_cancelled() {
        // Nobody will learn this session's id: do not leave it behind.
        let _ = session.close();
        return Err(ToolError::cancelled());
    }
    show(call, &session, view, report.as_ref(), true)
}

/// What to run, from `command`, `argv`, `cwd`, `env`, `cols`, `rows`, `shell_integration`.
fn spawn_spec(args: &Args, config: &crate::Config) -> Result<SpawnSpec, ToolError> {
    let command = args.str("command");
    let argv = args.strings("argv");
    let integration = args.bool("shell_integration");
    let mut spec = match (command, argv) {
        (Some(_), Some(_)) => {
            return Err(ToolError::new(
                "terminal_start takes `command` (a shell command line) or `argv` (a program and its arguments), not both",
            ));
        }
        (Some(line), None) => {
            if line.trim().is_empty() {
                return Err(ToolError::new("terminal_start: `command` is empty"));
            }
            if integration == Some(true) {
                return Err(ToolError::new(
                    "terminal_start: shell_integration needs an interactive shell; omit `command` (and `argv`) to start one, then run commands in it with terminal_run or terminal_send",
                ));
            }
            SpawnSpec::shell(line)
        }
        (None, Some(argv)) => {
            let Some((program, rest)) = argv.split_first() else {
                return Err(ToolError::new(
                    "terminal_start: `argv` must name a program, e.g. [\"python3\", \"-q\"]",
                ));
            };
            SpawnSpec::new(program).args(rest).shell_integration(integration.unwrap_or(false))
        }
        (None, None) => {
            SpawnSpec::interactive_shell().shell_integration(integration.unwrap_or(true))
        }
    };
    spec = place(spec, args.str("cwd"), args.env());
    let cols = args.uint("cols");
    let rows = args.uint("rows");
    if cols.is_some() || rows.is_some() {
        let cols = cols.map_or(config.cols, |c| c as u16);
        let rows = rows.map_or(config.rows, |r| r as u16);
        spec = spec.size(cols, rows);
    }
    Ok(spec)
}

/// `spec` with the working directory and environment overlay of a call (`cwd`, `env`).
pub(crate) fn place(
    mut spec: SpawnSpec,
    cwd: Option<&str>,
    env: &[(String, Option<String>)],
) -> SpawnSpec {
    if let Some(cwd) = cwd {
        spec = spec.cwd(cwd);
    }
    for (name, value) in env {
        spec = match value {
            Some(value) => spec.env(name, value),
            None => spec.env_remove(name),
        };
    }
    spec
}

/// `terminal_send`.
pub(crate) fn send(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = args.session_id()?;
    let text = args.str("text");
    let paste = args.str("paste");
    let keys = args.str("keys");
    let submit = args.bool("submit").unwrap_or(false);
    if text.is_none() && paste.is_none() && keys.is_none() && !submit {
        return Err(ToolError::new(
            "terminal_send needs something to send: `text`, `keys`, `paste` or `submit`: true (to read without typing, use terminal_read)",
        ));
    }
    // Checked before anything is sent, so a bad script sends nothing.
    let script = keys.map(parse_key_script).transpose().map_err(crate::Error::from)?;
    // One key alone (a Ctrl-C, an Escape) cannot interleave with another call's input, so it
    // does not wait for the input lock: it never waits behind another call's paste.
    let one_key = text.is_none()
        && paste.is_none()
        && !submit
        && matches!(script.as_deref(), Some([ScriptItem::Key(_)]));
    let view = view_args(args)?;
    let plan = waits::plan(args, DefaultWait::Settle, call.engine.config())?;
    let session = call.engine.session(id)?;
    if let Some(plan) = &plan {
        waits::check(plan, &session)?;
    }
    {
        let lock = call.input.of(id);
        let _typing = (!one_key).then(|| lock.lock().unwrap_or_else(|e| e.into_inner()));
        if let Some(text) = text {
            session.send_text(text)?;
        }
        if let Some(paste) = paste {
            // Bounded by the call's timeout and ended by its cancellation, so a program that
            // stopped reading cannot hold the session's input (and this call) forever.
            let timeout = args.uint("timeout_ms").map(std::time::Duration::from_millis);
            let pending = session.start_paste(paste, timeout)?;
            let canceller = pending.canceller();
            call.cancel.on_stop(move || canceller.cancel());
            pending.finish()?;
        }
        if let Some(keys) = keys {
            session.send_keys(keys)?;
        }
        if submit {
            session.send_bytes(b"\r")?;
        }
    }
    let report = match &plan {
        Some(plan) => Some(waits::run(&session, plan, call.cancel)?),
        None => None,
    };
    show(call, &session, view, report.as_ref(), false)
}

/// `terminal_read`.
pub(crate) fn read(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = args.session_id()?;
    let view = view_args(args)?;
    let plan = waits::plan(args, DefaultWait::None, call.engine.config())?;
    let session = call.engine.session(id)?;
    let report = match &plan {
        Some(plan) => Some(waits::run(&session, plan, call.cancel)?),
        None => None,
    };
    show(call, &session, view, report.as_ref(), false)
}
