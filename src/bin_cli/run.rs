//! `termloom run`: starts one session, performs the steps in order, closes the session and
//! reports.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use termloom::{Config, Engine, ExitStatus, Fired, Session, SessionState, SpawnSpec};

use super::failure::{EXIT_FAILURE, Failure};
use super::help::run_help;
use super::parse::{Parsed, Plan, Planned, Program, parse};
use super::report::{Ending, Reporter};
use super::signals;
use super::steps::{Step, WaitFor};

/// Bound for the final transcript: everything the engine retains.
const TRANSCRIPT_BOUND: usize = usize::MAX >> 1;

/// Runs `termloom run` with its arguments and returns the exit code.
pub(super) fn main(args: Vec<OsString>) -> ExitCode {
    let json = super::parse::asks_for_json(&args);
    match parse(args) {
        Ok(Parsed::Help) => super::agent::print_out(&run_help()),
        Ok(Parsed::Run(plan)) => ExitCode::from(execute(&plan)),
        Err(message) => super::usage_failure(&message, "termloom run --help", json),
    }
}

/// Runs a plan: start, steps, close, report. Returns the exit code.
fn execute(plan: &Plan) -> u8 {
    let stop_signals = signals::install();
    let options = &plan.options;
    let json = options.json;
    let config =
        super::load_config(options.config.as_deref(), options.policy.as_deref(), Config::default());
    let engine = match config.and_then(Engine::new) {
        Ok(engine) => engine,
        Err(err) => return fatal(&err, json),
    };
    if let Some(stop_signals) = stop_signals {
        stop_signals.close_sessions_on_signal(engine.clone());
    }
    let session = match engine.spawn(spawn_spec(plan)) {
        Ok(session) => session,
        Err(err) => return fatal(&err, json),
    };
    let mut reporter = Reporter::new(plan.options.json);
    let failure = perform(&session, plan, &mut reporter).err();
    let ending = end_session(&session, options.max_bytes);
    let code = conclude(reporter, ending, failure, json);
    // A stop signal closed the session: the report is out; the exit says which signal.
    signals::interrupted().map_or(code, |number| 128u8.wrapping_add(number as u8))
}

/// Prints the report and the failure, if any, and picks the exit code.
fn conclude(
    reporter: Reporter,
    ending: termloom::Result<Ending>,
    failure: Option<Failure>,
    json: bool,
) -> u8 {
    let ending = match ending {
        Ok(ending) => ending,
        Err(err) => {
            if let Some(failure) = failure.as_ref().filter(|_| !json) {
                failure.print(None);
            }
            return fatal(&err, json);
        }
    };
    let output = reporter.finish(&ending, failure.as_ref()).err();
    // The report printed the final screen, unless writing it failed; with `--json` its
    // `error` holds the failure, which is not said again on stderr.
    let reported = output.is_none().then_some(&ending.screen);
    let told = json && output.is_none();
    let failure = failure.or(output.map(Failure::output));
    match &failure {
        Some(failure) => {
            if !told {
                failure.print(reported);
            }
            failure.exit_code()
        }
        None => exit_code(&ending),
    }
}

/// Reports a library error that ends the run before its report (with `--json` as the JSON
/// error every command prints, on stdout, and nothing on stderr; otherwise on stderr) and
/// returns the failure exit code.
fn fatal(err: &termloom::Error, json: bool) -> u8 {
    match json {
        true => {
            super::agent::print_json_error("error", err.code(), &err.to_string());
        }
        false => say!("termloom: {err}"),
    }
    EXIT_FAILURE
}

/// What to start, from the plan's program and options.
fn spawn_spec(plan: &Plan) -> SpawnSpec {
    let options = &plan.options;
    let mut spec = match &plan.program {
        Program::Argv(program, args) => SpawnSpec::new(program).args(args),
        Program::Shell(line) => SpawnSpec::shell(line.as_str()),
    };
    if let Some(size) = options.size {
        spec = spec.size(size.cols, size.rows);
    }
    if let Some(cwd) = &options.cwd {
        spec = spec.cwd(cwd);
    }
    for (key, value) in &options.env {
        spec = spec.env(key, value);
    }
    if let Some(path) = &options.record {
        spec = spec.record(path);
    }
    spec.shell_integration(options.shell_integration)
}

/// Performs the steps in order, stopping at the first failure. Input followed by a wait is
/// typed and waited for in one call, so that a wait for the answer to a submitted line skips
/// the line's echo (`--submit 'echo done' --wait-text done` waits for the output).
fn perform(session: &Session, plan: &Plan, reporter: &mut Reporter) -> Result<(), Failure> {
    let timeout = plan.options.timeout;
    let mut steps = plan.steps.iter().peekable();
    while let Some(planned) = steps.next() {
        // Typed as given (`make Enter` types its letters), and said on stderr.
        if let Step::Keys(script) = &planned.step
            && let Some(note) = termloom::tools::typed_key_name_note(script, false)
        {
            let note = super::values::key_name_note_in_cli_terms(&note);
            say!("termloom: step {}: {note}", planned.number);
        }
        let typed = match &planned.step {
            Step::Send(text) => Some(Typed::Bytes(typed_text(text))),
            Step::Submit(text) => {
                let mut bytes = typed_text(text);
                bytes.push(b'\r');
                Some(Typed::Bytes(bytes))
            }
            Step::Keys(script) => Some(Typed::Keys(script)),
            _ => None,
        };
        let wait = steps.peek().and_then(|next| match &next.step {
            Step::Wait(wait) => Some((*next, wait)),
            _ => None,
        });
        let (Some(typed), Some((waiting, wait))) = (typed, wait) else {
            perform_step(session, timeout, reporter, planned)?;
            continue;
        };
        steps.next();
        let until = wait.until.clone();
        let outcome = match typed {
            Typed::Keys(script) => {
                // (The step's wait and the waits between its parts take `timeout` in all.)
                let deadline = std::time::Instant::now() + timeout;
                let left = || deadline.saturating_duration_since(std::time::Instant::now());
                match super::press::all_but_last(session, script, timeout) {
                    Ok(Some(last)) => session.send_keys_and_wait(&last, until, left()),
                    // Ended before the last keys: the wait sees the exit.
                    Ok(None) => session.wait(until, left()),
                    Err(err) => Err(err),
                }
            }
            Typed::Bytes(bytes) => {
                let deadline = std::time::Instant::now() + timeout;
                let left = || deadline.saturating_duration_since(std::time::Instant::now());
                match super::press::text_all_but_last(session, &bytes, timeout) {
                    Ok(Some(rest)) => session.send_bytes_and_wait(&rest, until, left()),
                    Ok(None) => session.wait(until, left()),
                    Err(err) => Err(err),
                }
            }
        };
        let outcome = outcome.map_err(|err| {
            // A wait that cannot be made is refused before anything is typed: the wait step
            // is the one that failed.
            let refused = matches!(
                err,
                termloom::Error::InvalidInput(_) | termloom::Error::NoShellIntegration(_)
            );
            Failure::error(if refused { waiting } else { planned }, err)
        })?;
        judge(session, wait, timeout, waiting, outcome)?;
    }
    Ok(())
}

/// The bytes `--send` and `--submit` type for `text`: its escapes decoded, each line break
/// (`\n`, `\r\n`) Enter, as `termloom send --text` and MCP `terminal_send` type one.
fn typed_text(text: &str) -> Vec<u8> {
    termloom::enter_for_line_breaks(&termloom::decode_escapes(text))
}

/// Input of a step that a wait follows.
enum Typed<'a> {
    /// A key script.
    Keys(&'a str),
    /// Text, its escapes decoded.
    Bytes(Vec<u8>),
}

/// Performs one step.
fn perform_step(
    session: &Session,
    timeout: Duration,
    reporter: &mut Reporter,
    planned: &Planned,
) -> Result<(), Failure> {
    let failed = |err| Failure::error(planned, err);
    match &planned.step {
        Step::Send(text) => {
            super::press::text_all(session, &typed_text(text), timeout).map_err(failed)
        }
        Step::Submit(text) => {
            let mut bytes = typed_text(text);
            bytes.push(b'\r');
            session.send_bytes(&bytes).map_err(failed)
        }
        Step::Wait(wait) => wait_for(session, wait, timeout, planned),
        Step::Resize(size) => session.resize(size.cols, size.rows).map_err(failed),
        Step::Screen => {
            let screen = session.screen().map_err(failed)?;
            reporter.screen(planned, &screen).map_err(Failure::output)
        }
        Step::Screenshot(path) => {
            let styled = session.styled_screen().map_err(failed)?;
            let png = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
            let image = if png {
                styled.to_png(&termloom::PngOptions::default()).map_err(failed)?
            } else {
                styled.to_svg(&termloom::SvgOptions::default()).into_bytes()
            };
            std::fs::write(path, image).map_err(|err| Failure::file(planned, path, err))
        }
        Step::Read => {
            let text = read_new(session).map_err(failed)?;
            reporter.read(planned, &text).map_err(Failure::output)
        }
        Step::Keys(script) => super::press::all(session, script, timeout).map_err(failed),
        Step::Paste(text) => {
            let bytes = termloom::decode_escapes(text);
            session.paste(&String::from_utf8_lossy(&bytes)).map_err(failed)
        }
        Step::Signal(signal) => session.signal(*signal).map(|_| ()).map_err(failed),
        Step::RunCommand(line) => {
            // The shell's first prompt (or the next one) first: a command is typed at a prompt.
            let ready =
                termloom::Until::any(vec![termloom::Until::prompt(), termloom::Until::exit()]);
            let outcome = session.wait(ready, timeout).map_err(failed)?;
            if outcome.is_timeout() {
                return Err(Failure::timeout(planned, timeout, outcome.screen));
            }
            let result = session.run_command(line, timeout).map_err(failed)?;
            reporter.read(planned, &result.output).map_err(Failure::output)?;
            if result.timed_out {
                return Err(Failure::timeout(planned, timeout, session.screen().ok()));
            }
            match (result.exit_code, &result.status.activity) {
                (Some(0), _) => Ok(()),
                (None, termloom::Activity::Exited(how)) => {
                    Err(Failure::command_ended_shell(planned, *how))
                }
                (code, _) => Err(Failure::command(planned, code)),
            }
        }
    }
}

/// Performs a wait step: succeeds when the condition holds (or, for a wait on the exit, when
/// the program exits).
fn wait_for(
    session: &Session,
    wait: &WaitFor,
    timeout: Duration,
    planned: &Planned,
) -> Result<(), Failure> {
    let outcome =
        session.wait(wait.until.clone(), timeout).map_err(|err| Failure::error(planned, err))?;
    judge(session, wait, timeout, planned, outcome)
}

/// Whether a wait step's `outcome` passes (see [`wait_for`]).
fn judge(
    session: &Session,
    wait: &WaitFor,
    timeout: Duration,
    planned: &Planned,
    outcome: termloom::WaitOutcome,
) -> Result<(), Failure> {
    match outcome.fired {
        Fired::Matched(_) => Ok(()),
        Fired::Exited { .. } if wait.exit_satisfies => Ok(()),
        Fired::Exited { status } => Err(Failure::exited(planned, status, session.screen().ok())),
        Fired::Timeout => Err(Failure::timeout(planned, timeout, outcome.screen)),
        // Closed, cancelled, and whatever a later version adds: the session is gone.
        _ => Err(Failure::closed(planned)),
    }
}

/// All transcript output that is new since the previous read.
fn read_new(session: &Session) -> termloom::Result<String> {
    let mut text = String::new();
    loop {
        let output = session.read()?;
        text.push_str(&output.text);
        if !output.truncated {
            return Ok(text);
        }
    }
}

/// Closes the session (the program may have exited already) and collects the final report,
/// with at most `max_bytes` of the transcript's end (all of it when `None`). The screen is
/// taken before closing a running program, so it shows what the program showed, not what it
/// drew while being terminated.
fn end_session(session: &Session, max_bytes: Option<usize>) -> termloom::Result<Ending> {
    let state = session.info()?.state;
    let running = matches!(state, SessionState::Running);
    let screen_before = if running { Some(session.screen()?) } else { None };
    // Closed before its end: by the stop signal's thread.
    let running = running || matches!(state, SessionState::Closed(_));
    let status = session.close()?;
    let screen = match screen_before {
        Some(screen) => screen,
        None => session.screen()?,
    };
    let scrollback = session.scrollback(max_bytes.unwrap_or(TRANSCRIPT_BOUND))?;
    // Once closed, the recording is all written, or its error known.
    let info = session.info()?;
    Ok(Ending {
        recording_heading: info.recording_heading(),
        recording_error: info.recording_error,
        status,
        closed_by_termloom: running,
        screen,
        transcript: scrollback.text,
        transcript_truncated: scrollback.truncated,
        max_bytes_asked: max_bytes.is_some(),
    })
}

/// The exit code of a run whose steps all succeeded: the program's own, or 0 when termloom
/// closed it.
fn exit_code(ending: &Ending) -> u8 {
    if ending.closed_by_termloom {
        return 0;
    }
    match ending.status {
        ExitStatus::Code(code) => (code & 0xff) as u8,
        ExitStatus::Signal(signal) => 128u8.wrapping_add((signal & 0x7f) as u8),
    }
}
