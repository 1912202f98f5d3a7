//! The tools that run a command, signal, resize, close and list sessions: `terminal_run`,
//! `terminal_signal`, `terminal_resize`, `terminal_close`, `terminal_list`.

use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::{
    Activity, CommandResult, Session, SessionId, SessionState, SignalTarget, SpawnSpec, Until,
};

use super::args::Args;
use super::budget::{Budget, LABEL};
use super::io::{interrupt_on_cancel, place};
use super::offered::has as offers;
use super::progress::await_reply_unless_stopped;
use super::render::{
    doing, exit_parts, push_block, put_recording_error, recording_line, recording_word,
    status_json, under_header,
};
use super::view::{
    Typed, View, ViewArgs, dropped_note, max_bytes, pager_prompt_ending, read_new, show,
};
use super::waits::{self, DefaultWait, Plan};
use super::{Call, ToolError, ToolOutput};
use crate::reactor::UnmarkedReader;

/// Time a new shell may take to show its first prompt.
const SHELL_START: Duration = Duration::from_secs(20);

/// `terminal_run`.
pub(crate) fn run(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let command = args.required_str("command")?;
    // Checked before a shell is started for it, as `run_command` checks it: the line is
    // typed, and its line editor would take a control character as a key (Escape, Tab's
    // completion, Ctrl-C).
    crate::Session::check_command_line(command).map_err(|err| match err {
        crate::Error::InvalidInput(message) => {
            ToolError::invalid_input(format!("terminal_run: {message}"))
        }
        other => other.into(),
    })?;
    let timeout = Duration::from_millis(args.required_uint("timeout_ms")?);
    let max = max_bytes(args)?;
    let id = call.optional_session_id(args)?;
    let env = args.env();
    let cwd = args.str("cwd");
    let keep = args.bool("keep_session").unwrap_or(false);
    let (session, new_session) = match id {
        Some(id) => {
            if cwd.is_some() || !env.is_empty() {
                return Err(ToolError::invalid_input(
                    "terminal_run: `cwd` and `env` apply only when terminal_run starts a new shell (without session_id); in an existing shell, put cd or export in the command",
                ));
            }
            if args.bool("keep_session").is_some() {
                return Err(ToolError::invalid_input(
                    "terminal_run: `keep_session` is for the shell terminal_run starts (without session_id); a session you give is kept anyway",
                ));
            }
            (call.session(id)?, false)
        }
        None => (new_shell(call, cwd, env, command)?, true),
    };
    // The session's turn (see `Caller::turns`); a new shell is this call's alone.
    let turn = call.caller.turns.of(session.id());
    let _turn = (!new_session).then(|| turn.lock.lock().unwrap_or_else(|e| e.into_inner()));
    let input = call.caller.input.of(session.id());
    let typed = input.typing();
    let interrupting = std::sync::Once::new();
    // No input lock here: run_command types and waits in one call, and terminal_send must be
    // able to interrupt the command meanwhile. A call stopped (cancelled, or its client's
    // input ended) before its command is typed types nothing (and interrupts nothing); one
    // stopped while its command runs ends at once (`Ok(None)`), taking none of its output.
    let start = || {
        if call.cancel.is_stopped() {
            return Ok(None);
        }
        session.start_command(command, timeout).and_then(|reply| {
            // A cancellation interrupts the command. (Asked for once the command is on its
            // way to the session, so that the signal follows it.)
            interrupting.call_once(|| interrupt_on_cancel(call, &session, &input, typed));
            let aborted = || crate::Error::WaitAborted(timeout);
            await_reply_unless_stopped(call, &session, reply, aborted).transpose()
        })
    };
    let result = match start() {
        // A shell still answering its last input or signal (a SIGINT's new prompt) gets to
        // that prompt first, within the call's timeout; a command still running is refused
        // at once. A shell that reads at a prompt drawn before keys typed since has them on
        // its command line: the command would be typed after them.
        Err(crate::Error::NotAtPrompt { command_running: false, .. }) if !new_session => {
            let ready = [Until::prompt(), Until::exit(), Until::input_wait()];
            let report = waits::run(call, &session, &Plan::new(Until::any(ready.into()), timeout))?;
            match start() {
                Err(crate::Error::NotAtPrompt { command_running: false, .. })
                    if report.outcome == "matched" =>
                {
                    // A shell started with integration that never marked a prompt (its startup
                    // file ran another shell) has none to run the command at.
                    if !session.status().is_ok_and(|status| status.shell_integration) {
                        return Err(run_error(crate::Error::NoShellIntegration(session.id())));
                    }
                    // One whose `PS1` was replaced draws its prompts without the mark that
                    // running a command needs: no keys are to blame, and no new prompt helps.
                    // A prompt begun whose terminal another process reads asks a question
                    // (git at `Username for …:`): the next command is no answer to it.
                    let unmarked = match session.unmarked_reader() {
                        Ok(Some(reader)) => Some(unmarked_advice(session.id(), &reader)),
                        _ => None,
                    };
                    if let Some(message) = unmarked {
                        return Err(ToolError::invalid_input(message).code("not_at_prompt"));
                    }
                    let clear = match offers("terminal_send") {
                        true => {
                            "clear the line and draw a new prompt with terminal_send keys=\"<C-u><Enter>\" (or submit what is there), then run the command"
                        }
                        false => "the line must be cleared (or submitted) first",
                    };
                    return Err(ToolError::invalid_input(format!(
                        "session {}'s shell reads at its prompt, but keys were typed since it drew it, and what they left on its command line would run with the command: {clear}",
                        session.id()
                    ))
                    .code("not_at_prompt"));
                }
                result => result,
            }
        }
        result => result,
    };
    let result = match result {
        Ok(result) => result,
        Err(err) => {
            if new_session {
                let _ = session.close();
            }
            return Err(run_error(err));
        }
    };
    let Some(result) = result.filter(|_| !call.cancel.is_cancelled()) else {
        // Nobody learns the id of a shell started for a call that is not answered, or that
        // was stopped (its client gone, or the server stopping): it is not left behind.
        if new_session {
            let _ = session.close();
        }
        if call.cancel.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        let id = session.id();
        return Err(ToolError::stopped(match new_session {
            true => "terminal_run was stopped (the client's input ended) before its command ended; the shell it started for it was closed".to_owned(),
            false => format!(
                "terminal_run was stopped (the client's input ended) before its command ended; it goes on in session {id}{}",
                if offers("terminal_read") { ": terminal_read shows its output" } else { "" }
            ),
        }));
    };
    // A command that left the terminal on the alternate screen wrote no transcript there.
    let alternate = session.screen().is_ok_and(|screen| screen.alternate);
    // A shell started for one command is closed after it, unless asked to keep it or the
    // command still runs.
    let closed = new_session && !keep && !result.timed_out && !result.waiting_for_input;
    if closed {
        let _ = session.close();
    }
    // Where the output's start was dropped by the transcript's bound: the lines it still holds.
    let retained = match result.output_truncated {
        true => session.transcript_lines(0..0, 0).ok().map(|lines| (lines.first, lines.end)),
        false => None,
    };
    let cannot_ask = call.secrets.cannot_ask();
    // (A shell closed after its command has its recording all written, or its error known.)
    let recording = session.info().ok().and_then(|info| recording_word(&info));
    let ran =
        Ran { id: session.id(), new_session, closed, alternate, retained, cannot_ask, recording };
    // A command waiting in a pager on the primary screen (`git log`, through `less -FRX`)
    // left the caller's position on its prompt line, which the pager erases as it goes on:
    // noted as a read's is, so the next result does not say that line was redrawn.
    if result.waiting_for_input && !alternate && !closed {
        let end = session.transcript_lines(0..0, 0).ok().map(|lines| lines.end);
        let prompt = (session.screen().ok().zip(end.and_then(|end| end.checked_sub(1)))).and_then(
            |(screen, line)| pager_prompt_ending(&result.output, line, &result.status, &screen),
        );
        call.caller.pager_prompts.read_to(session.id(), prompt);
    }
    let mut budget = Budget::new(call, max);
    let mut output = run_result(ran, command, &result, &mut budget);
    // The shell it started and left open is named by this result alone.
    output.started = (new_session && !closed).then(|| session.id());
    if alternate && !closed {
        // The full-screen program the command left (a pager, an editor) is what the next step
        // answers: its screen comes with the result, as terminal_read would show it, within
        // what the output left of the call's `max_bytes` (a failure to show it, a session
        // ended meanwhile, leaves the command's result as it is).
        let view =
            ViewArgs { view: View::Screen, max_bytes: budget.left(), ..ViewArgs::defaults() };
        let Ok(screen) = show(call, &session, view, None, false) else {
            return Ok(output);
        };
        // (Its header repeats the status the result's last line gives.)
        let rows = match screen.text.split_once('\n') {
            Some((first, rows)) if first.starts_with('[') => rows,
            _ => screen.text.as_str(),
        };
        push_block(&mut output.text, rows);
        output.structured["screen"] = screen.structured["screen"].clone();
    }
    Ok(output)
}

/// Where `terminal_run` ran a command.
struct Ran {
    id: SessionId,
    /// In a shell it started.
    new_session: bool,
    /// That shell was closed after the command.
    closed: bool,
    /// The terminal was left on the alternate screen, whose text is no transcript.
    alternate: bool,
    /// The output's start was dropped by the transcript's bound, which holds these lines
    /// (first, one past the last).
    retained: Option<(u64, u64)>,
    /// Why the client (or a toolbox's host) cannot ask its person for a password
    /// (`secret=true`), or `None` when it can.
    cannot_ask: Option<&'static str>,
    /// What went wrong with the session's recording, if anything
    /// ([`recording_word`](super::render::recording_word)).
    recording: Option<&'static str>,
}

/// Lays out `terminal_run`'s result within `budget`: the command takes its part, the end of
/// the output the rest.
fn run_result(ran: Ran, command: &str, result: &CommandResult, budget: &mut Budget) -> ToolOutput {
    let Ran { id, new_session, closed, alternate, retained, cannot_ask, recording } = ran;
    let command = budget.label(command, LABEL, "command");
    let (output, omitted) = budget.end(&result.output, usize::MAX);
    // The command is not repeated: the model just wrote it (structuredContent carries it).
    let mut text = String::new();
    // What was printed before it that the caller never read (the end of a command whose
    // wait timed out), and how that command ended: the result moves past it, so it is named.
    // (Not a new shell's: what its startup files printed is no command's the caller ran.)
    if let Some(note) = unread_note(id, result).filter(|_| !new_session) {
        push_block(&mut text, &note);
    }
    match retained {
        // One way to read what is not shown: the lines the transcript holds, from its first
        // (what this result leaves out of the output is among them).
        Some((first, end)) if first < end => push_block(
            &mut text,
            &format!(
                "[the start of the output was already dropped from the bounded transcript, which holds lines {first}-{}{}{}]",
                end - 1,
                match omitted {
                    0 => String::new(),
                    _ => format!(", and this result leaves out its first {omitted} bytes"),
                },
                match offers("terminal_read") {
                    true =>
                        format!(": terminal_read session_id={id} lines=\"{first}-\" reads them"),
                    false => String::new(),
                }
            ),
        ),
        _ => {
            if result.output_truncated {
                push_block(
                    &mut text,
                    "[the start of the output was already dropped from the bounded transcript]",
                );
            }
            if omitted > 0 {
                push_block(
                    &mut text,
                    &format!(
                        "[... {omitted} earlier bytes of output left out; {}]",
                        budget.see_more(id, &[&result.output[..omitted]], output, 0, None)
                    ),
                );
            }
        }
    }
    push_block(&mut text, output);
    if alternate && closed {
        push_block(
            &mut text,
            "[the terminal was left on the alternate screen, whose text is not in the output]",
        );
    }
    if let Some(word) = recording {
        let why =
            if offers("terminal_list") { ": terminal_list says why and where it is" } else { "" };
        push_block(&mut text, &format!("[{word}{why}]"));
    }
    let secs = result.duration.as_secs_f64();
    // A call that named its session is not told it again.
    let shell_ended = match result.status.activity {
        Activity::Exited(how) => Some(how),
        _ => None,
    };
    let shell = match (new_session, closed) {
        (true, true) => " · new shell, closed (keep_session keeps it)".to_owned(),
        // A shell that ended needs no closing.
        (true, false) if shell_ended.is_some() => format!(" · new shell: session {id}"),
        (true, false) => format!(" · new shell: session {id}, close it when done"),
        _ => String::new(),
    };
    // The program that waits (the pager behind `git log`, as the status names it).
    let program = result.status.foreground.as_ref().map_or("the command", |p| p.name.as_str());
    // The advice, in the tools offered: answering, interrupting, following, closing.
    let secret = match result.status.input_kind == Some(crate::InputKind::Password) {
        true => " secret=true",
        false => "",
    };
    let send = offers("terminal_send");
    let interrupt = send.then_some("interrupt it with terminal_send keys=\"<C-c>\"");
    let close = match new_session && offers("terminal_close") {
        true => "; terminal_close the shell when done",
        false => "",
    };
    push_block(
        &mut text,
        &match (result.exit_code, shell_ended) {
            // It ended, and its next prompt asks a question before it is drawn: the next
            // command typed would be the answer.
            (Some(code), _) if result.prompt_waiting_for_input && !closed => format!(
                "[exit code {code} · {secs:.2} s{shell}; then its prompt, not drawn yet, waits for {}: {} (run by its PS1, PROMPT_COMMAND or a zsh precmd hook) asks: {}]",
                result.status.input_kind.map_or("input", |kind| kind.describe()),
                program,
                match (send, offers("terminal_read")) {
                    (true, true) => format!(
                        "answer it with terminal_send{secret}, then wait for the prompt with terminal_read prompt=true timeout_ms=... before the next command"
                    ),
                    (true, false) =>
                        format!("answer it with terminal_send{secret} before the next command"),
                    (false, _) => "the next command would be its answer".to_owned(),
                },
            ),
            (Some(code), _) => format!("[exit code {code} · {secs:.2} s{shell}]"),
            (None, _) if result.waiting_for_input && alternate => format!(
                "[{} waiting for {} after {secs:.2} s in session {id}, on the full-screen program's screen below: {}the command goes on until {} the program with its own keys{close}]",
                program,
                result.status.input_kind.map_or("input", |kind| kind.describe()),
                if send { "answer with terminal_send; " } else { "" },
                if send { "you quit" } else { "something quits" },
            ),
            // A password comes from the person, never through the model: asked for with
            // secret=true, where the client can ask its person.
            (None, _)
                if result.waiting_for_input
                    && result.status.input_kind == Some(crate::InputKind::Password)
                    && cannot_ask.is_some() =>
            {
                format!(
                    "[{} waiting for {} after {secs:.2} s in session {id}: a password comes from the person, never through you, and {}: {}say what needs it{close}]",
                    program,
                    crate::InputKind::Password.describe(),
                    cannot_ask.unwrap_or_default(),
                    interrupt.map(|it| format!("{it} and ")).unwrap_or_default(),
                )
            }
            (None, _) if result.waiting_for_input => format!(
                "[{} waiting for {} after {secs:.2} s in session {id}: {}{close}]",
                program,
                result.status.input_kind.map_or("input", |kind| kind.describe()),
                match interrupt {
                    Some(it) =>
                        format!("answer with terminal_send{secret} (the command goes on), or {it}"),
                    None => "the command goes on".to_owned(),
                },
            ),
            (None, _) if result.timed_out => {
                let follow = offers("terminal_read")
                    .then_some("follow it with terminal_read (prompt=true, timeout_ms=...)");
                let advice: Vec<&str> = [follow, interrupt].into_iter().flatten().collect();
                let advice = match advice.is_empty() {
                    true => "it goes on".to_owned(),
                    false => advice.join(", or "),
                };
                format!("[still running after {secs:.1} s in session {id}: {advice}{close}]")
            }
            (None, Some(how)) => {
                format!("[the shell itself ended during the command ({how}) · {secs:.2} s{shell}]")
            }
            (None, None) => {
                format!("[finished after {secs:.2} s; the shell did not report an exit code]")
            }
        },
    );
    let mut structured = json!({
        "session_id": id.0,
        "new_session": new_session,
        "session_closed": closed,
        "command": command,
        "output": output,
        "output_omitted_bytes": omitted,
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "waiting_for_input": result.waiting_for_input,
        "prompt_waiting_for_input": result.prompt_waiting_for_input,
        "duration_ms": result.duration.as_millis() as u64,
        "status": status_json(&result.status),
    });
    if !new_session {
        if let Some((first, last)) = result.unread_before {
            structured["unread_before"] = json!([first, last]);
        }
        if result.unread_before_dropped > 0 {
            structured["unread_before_dropped"] = json!(result.unread_before_dropped);
        }
        if let Some(code) = result.previous_exit_code {
            structured["previous_exit_code"] = json!(code);
        }
    }
    ToolOutput::new(text, structured)
}

/// The note on what `result`'s command moved the caller past unread (see
/// [`CommandResult::unread_before`]): the lines that hold it and the read that shows them,
/// how many such lines were dropped from the transcript, and the exit code of the command
/// before when no earlier result told it. `None` when there is nothing to say. At most
/// about 250 bytes: numbers and fixed words.
fn unread_note(id: SessionId, result: &CommandResult) -> Option<String> {
    let ended = result
        .previous_exit_code
        .map(|code| format!("the command before ended with exit code {code}"));
    let dropped = match result.unread_before_dropped {
        0 => None,
        1 => Some("1 line dropped from the transcript unread".to_owned()),
        n => Some(format!("{n} lines dropped from the transcript unread")),
    };
    let lines = result.unread_before.map(|(first, last)| {
        let lines = match first == last {
            true => format!("line {first}"),
            false => format!("lines {first}-{last}"),
        };
        match offers("terminal_read") {
            true => format!(
                "{lines}; terminal_read session_id={id} lines=\"{first}-{last}\" shows them"
            ),
            false => lines,
        }
    });
    let said = match (dropped, lines) {
        (Some(dropped), Some(lines)) => format!("{dropped}, then {lines}"),
        (Some(said), None) | (None, Some(said)) => said,
        (None, None) => return ended.map(|ended| format!("[{ended}, after the last result]")),
    };
    let ended = ended.map(|ended| format!(" ({ended})")).unwrap_or_default();
    Some(format!("[unread output from before this command{ended}: {said}]"))
}

/// Starts an interactive shell with shell integration, for `command`, and waits for its
/// prompt. The spawn policy decides the shell and the command together.
fn new_shell(
    call: &Call,
    cwd: Option<&str>,
    env: &[(String, Option<String>)],
    command: &str,
) -> Result<Session, ToolError> {
    let spec = place(SpawnSpec::interactive_shell(), cwd, env).typed_line(command);
    let session = call.spawn(spec)?;
    let plan = Plan::new(Until::prompt(), SHELL_START);
    let report = waits::run(call, &session, &plan);
    match report {
        Ok(report) if report.outcome == "matched" => Ok(session),
        Ok(report) => {
            let _ = session.close();
            // Cancelled, the call is not answered; stopped by the end of the input, it is
            // (as every call in progress then is), with its wait cut short.
            if report.outcome == "cancelled" && call.cancel.is_cancelled() {
                return Err(ToolError::cancelled());
            }
            let see = match offers("terminal_start") {
                true => "; start one with terminal_start to see what it prints",
                false => "",
            };
            Err(ToolError::no_prompt(format!(
                "terminal_run: the new shell did not show its prompt ({}){see}",
                report.line(None).unwrap_or_else(|| report.outcome.to_owned())
            )))
        }
        Err(err) => {
            let _ = session.close();
            Err(err.into())
        }
    }
}

/// Why a command cannot run at session `id`'s prompt, begun without its mark, with `reader`
/// reading the terminal, and what to do.
fn unmarked_advice(id: SessionId, reader: &UnmarkedReader) -> String {
    match reader {
        UnmarkedReader::Shell => format!(
            "session {id}'s shell reads at a prompt that lost termloom's mark (PS1 was replaced without it), so the end of a command run there cannot be seen: {}start a new session",
            if offers("terminal_send") {
                "type commands with terminal_send and wait for input, or "
            } else {
                ""
            }
        ),
        UnmarkedReader::Other { pid, name } => format!(
            "session {id}'s shell has begun its prompt but not drawn it: {name} (pid {pid}), run by its PS1, PROMPT_COMMAND or a zsh precmd hook, waits for input at the terminal, and a command typed now would be its answer: {}run the command once the prompt is drawn",
            if offers("terminal_send") {
                "answer it (or interrupt it) with terminal_send, then "
            } else {
                ""
            }
        ),
        UnmarkedReader::Drawing => format!(
            "session {id}'s shell has begun its prompt but not drawn it yet (its PS1 or PROMPT_COMMAND is still at work): {}run the command",
            match offers("terminal_read") {
                true => format!(
                    "wait for the prompt with terminal_read session_id={id} prompt=true timeout_ms=..., then "
                ),
                false => "once the prompt is drawn, ".to_owned(),
            }
        ),
    }
}

/// The library's advice (after its `; `) names library calls: it is replaced by the tools'.
fn run_error(err: crate::Error) -> ToolError {
    let advice = match err {
        crate::Error::NotAtPrompt { .. } => {
            match (offers("terminal_read"), offers("terminal_send")) {
                (true, true) => {
                    "wait for it with terminal_read (prompt=true), or interrupt it with terminal_send keys=\"<C-c>\""
                }
                (true, false) => "wait for it with terminal_read (prompt=true)",
                (false, true) => "interrupt it with terminal_send keys=\"<C-c>\"",
                (false, false) => "run the command once it ends",
            }
        }
        crate::Error::NoShellIntegration(_) if offers("terminal_start") => {
            "terminal_run needs a shell started with shell integration: omit session_id to start one, or use terminal_start without command/argv (or with argv=[\"bash\"] or [\"zsh\"] and shell_integration=true)"
        }
        crate::Error::NoShellIntegration(_) => {
            "terminal_run needs a shell started with shell integration: omit session_id to start one"
        }
        _ => return err.into(),
    };
    let message = err.to_string();
    let what = message.split("; ").next().unwrap_or_default();
    ToolError::invalid_input(format!("{what}: {advice}")).code(err.code())
}

/// `terminal_signal`.
pub(crate) fn signal(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = call.session_id(args)?;
    let signal = args.signal()?;
    let target = match args.str("target") {
        Some("session") => SignalTarget::Session,
        _ => SignalTarget::Foreground,
    };
    let session = call.session(id)?;
    let status_before = session.status()?;
    let sent =
        session.signal_to(signal, target).map_err(|err| ended_before(err, "no signal was sent"))?;
    // The program's answer to the signal (a shell redrawing its prompt after SIGINT, say) is
    // waited for as terminal_send waits (a shell with integration at its prompt: until its
    // new prompt), so the next call finds it settled. A program the shell runs (a REPL) is
    // waited for as terminal_send's Ctrl-C waits for it, until it reads again: a shell's
    // prompt drawn once the signal ended it comes before the shell reads. (Waiting for the
    // shell's prompt alone ended only on 1.25 s of quiet there.)
    let shell_at_prompt =
        status_before.shell_integration && status_before.activity == Activity::AtPrompt;
    let default = if shell_at_prompt { DefaultWait::Prompt } else { DefaultWait::Settle };
    let plan = waits::plan(args, default, call.engine.config())?;
    let report = plan
        .map(|plan| waits::run_after(call, &session, &plan, "the signal was sent"))
        .transpose()?;
    let mut output = show(call, &session, ViewArgs::defaults(), report.as_ref(), false)?;
    under_header(&mut output.text, &sent.to_string());
    output.structured["signal"] = json!(signal.name());
    output.structured["process_groups"] = json!(sent.groups);
    output.structured["names"] = json!(sent.names);
    Ok(output)
}

/// The error of a signal or a resize (`undone`: what did not happen) to a session that
/// ended: it takes no input, but what matters here is that nothing was done.
fn ended_before(err: crate::Error, undone: &str) -> ToolError {
    let code = err.code();
    let error = match err {
        crate::Error::SessionExited(id) if offers("terminal_read") => {
            ToolError::invalid_input(format!(
                "session {id}: its program has exited, so {undone}; read its last output with terminal_read"
            ))
        }
        crate::Error::SessionExited(id) => {
            ToolError::invalid_input(format!("session {id}: its program has exited, so {undone}"))
        }
        crate::Error::SessionClosed(id) if offers("terminal_read") => {
            ToolError::invalid_input(format!(
                "session {id} is closed, so {undone}; terminal_read can still show its last output"
            ))
        }
        crate::Error::SessionClosed(id) => {
            ToolError::invalid_input(format!("session {id} is closed, so {undone}"))
        }
        err => err.into(),
    };
    error.code(code)
}

/// `terminal_resize`.
pub(crate) fn resize(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = call.session_id(args)?;
    let cols = args.required_uint("cols")? as u16;
    let rows = args.required_uint("rows")? as u16;
    let session = call.session(id)?;
    session.resize(cols, rows).map_err(|err| ended_before(err, "it was not resized"))?;
    // The program's redraw is waited for as terminal_send waits for an answer, and shown.
    let plan = waits::plan(args, DefaultWait::Settle, call.engine.config())?;
    let report = plan
        .map(|plan| waits::run_after(call, &session, &plan, "the session was resized"))
        .transpose()?;
    let view = ViewArgs { view: View::Screen, ..ViewArgs::defaults() };
    let mut output = show(call, &session, view, report.as_ref(), false)?;
    under_header(&mut output.text, &format!("resized to {cols}x{rows}"));
    output.structured["cols"] = json!(cols);
    output.structured["rows"] = json!(rows);
    Ok(output)
}

/// `terminal_close`.
pub(crate) fn close(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = call.session_id(args)?;
    let max = max_bytes(args)?;
    let session = call.session(id)?;
    let already = matches!(session.info().map(|i| i.state), Ok(SessionState::Closed(_)));
    let ended = session.close()?;
    let by_close = session.status().is_ok_and(|status| status.ended_by_close);
    let how = match ended.ending(by_close) {
        how if already => format!("already closed ({how})"),
        how => how,
    };
    let echo = call.caller.echoes.of(id);
    let (mut unread, earlier, missed) =
        match read_new(&session, max, None, &Typed::Nothing, echo.as_ref()) {
            Ok(new) => (new.text, new.omitted, new.missed_lines),
            Err(_) => (String::new(), 0, 0),
        };
    // Rows of the screen the caller was last shown are no news (the bottom of the box a
    // curses program painted on the primary screen, moved into the transcript on its way
    // out), nor are the rows below the cursor it was last shown (node's preview of a value).
    let shown = |unread: &str| {
        call.caller.seen.last_shows(id, unread)
            || call.caller.furthest.showed_below(id, unread.trim_matches('\n'))
    };
    if earlier == 0 && shown(&unread) {
        unread.clear();
    }
    call.caller.forget(id);
    // Blank lines at the end are the screen a full-screen program left, not output.
    let (output, cut) = Budget::new(call, max).end(unread.trim_end(), usize::MAX);
    let omitted = earlier + cut;
    let (exit_code, exit_signal) = exit_parts(Some(ended));
    // Once closed, the recording is all written, or its error known.
    let info = session.info().ok();
    let mut text = match info.as_ref().and_then(recording_line) {
        Some(recording) => format!("[closed · {how} · {recording}]"),
        None => format!("[closed · {how}]"),
    };
    if let Some(note) = dropped_note(missed) {
        push_block(&mut text, &note);
    }
    if omitted > 0 {
        push_block(&mut text, &format!("[... {omitted} earlier bytes of unread output left out]"));
    }
    if !output.trim().is_empty() {
        push_block(&mut text, "unread output:");
        push_block(&mut text, output);
    }
    let mut structured = json!({
        "session_id": id.0,
        "exit_code": exit_code,
        "exit_signal": exit_signal,
        "ended": how,
        "output": output,
        "output_omitted_bytes": omitted,
    });
    if let Some(info) = &info {
        put_recording_error(&mut structured, info);
    }
    Ok(ToolOutput::new(text, structured))
}

/// `terminal_list`.
pub(crate) fn list(call: &Call, _args: &Args) -> Result<ToolOutput, ToolError> {
    let sessions = call.engine.list()?;
    let mut text = String::new();
    let mut entries = Vec::new();
    // Every live session (at most `max_sessions`), then the newest few of the ended (every
    // terminal_run leaves one): the others are named by their ids, so that each can be read.
    let ordered = super::in_listing_order(&sessions);
    let live = ordered.iter().filter(|i| matches!(i.state, SessionState::Running)).count();
    let mut ended_left_out = Vec::new();
    for (n, info) in ordered.into_iter().enumerate() {
        if n >= live + LISTED_ENDED {
            ended_left_out.push(info.id.0);
            continue;
        }
        let (state, ended) = match info.state {
            SessionState::Running => ("running", None),
            SessionState::Exited(how) => ("exited", Some(how)),
            SessionState::Closed(how) => ("closed", Some(how)),
        };
        let (exit_code, exit_signal) = exit_parts(ended);
        let now = SystemTime::now();
        let age = now.duration_since(info.started_at).unwrap_or_default();
        // How long ago it ended, once it has: its pid is gone and its idle time says nothing.
        let ended_ago = info.ended_at.map(|at| now.duration_since(at).unwrap_or_default());
        let name = call.caller.names.name_of(info.id);
        let program = listed_program(&info.program);
        let name_shown = name.as_ref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
        let (cols, rows) = (info.cols, info.rows);
        let line = match ended_ago {
            None => format!(
                "session {}{name_shown} · {} · {program} · pid {} · {cols}x{rows} · started {:.0} s ago · idle {:.1} s",
                info.id,
                doing(&info.status, None),
                info.pid,
                age.as_secs_f64(),
                info.idle.as_secs_f64(),
            ),
            Some(ago) => format!(
                "session {}{name_shown} · {} · {program} · {cols}x{rows} · started {:.0} s ago · ended {:.0} s ago",
                info.id,
                doing(&info.status, None),
                age.as_secs_f64(),
                ago.as_secs_f64(),
            ),
        };
        let line = match recording_line(info) {
            Some(recording) => format!("{line} · {recording}"),
            None => line,
        };
        push_block(&mut text, &line);
        let mut entry = json!({
            "session_id": info.id.0,
            "name": name,
            "pid": info.pid,
            "program": program,
            "state": state,
            "exit_code": exit_code,
            "exit_signal": exit_signal,
            "cols": info.cols,
            "rows": info.rows,
            "idle_seconds": (info.idle.as_secs_f64() * 1000.0).round() / 1000.0,
            "ended_seconds_ago": ended_ago.map(|ago| (ago.as_secs_f64() * 1000.0).round() / 1000.0),
            "bytes_in": info.bytes_in,
            "bytes_out": info.bytes_out,
            "closed_reason": info.closed_reason.as_deref().map(listed_program),
            "pending_waits": info.pending_waits,
            // (What the text's line says it does: waiting for keys, at the prompt.)
            "status": status_json(&info.status),
        });
        put_recording_error(&mut entry, info);
        entries.push(entry);
    }
    if sessions.is_empty() {
        text = match offers("terminal_start") {
            true => "no sessions; start one with terminal_start",
            false => "no sessions",
        }
        .to_owned();
    }
    if !ended_left_out.is_empty() {
        ended_left_out.sort_unstable();
        push_block(
            &mut text,
            &format!(
                "[... {} ended sessions more left out: {}{}]",
                ended_left_out.len(),
                id_ranges(&ended_left_out),
                match offers("terminal_read") {
                    true => "; each is readable by its id with terminal_read until it is forgotten",
                    false => "",
                },
            ),
        );
    }
    let mut structured = json!({ "sessions": entries });
    if !ended_left_out.is_empty() {
        structured["sessions_left_out"] = json!(ended_left_out.len());
        structured["left_out_ids"] = json!(ended_left_out);
    }
    Ok(ToolOutput::new(text, structured))
}

/// The most ended sessions `terminal_list` shows in full; the others (at most
/// `Config::max_closed_sessions`) are named by their ids.
const LISTED_ENDED: usize = 5;

/// The most bytes of a session's program (a shell line can be long) or closed reason
/// `terminal_list` shows, so that an entry stays within about 1 KiB whatever it ran.
const LISTED_PROGRAM_BYTES: usize = 200;

/// `text` within [`LISTED_PROGRAM_BYTES`], cut at a character's boundary and marked `…`.
fn listed_program(text: &str) -> String {
    if text.len() <= LISTED_PROGRAM_BYTES {
        return text.to_owned();
    }
    let mut end = LISTED_PROGRAM_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Sorted ids as ranges: `2-6, 9, 11-12`.
fn id_ranges(ids: &[u64]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        match j > i {
            true => out.push_str(&format!("{}-{}", ids[i], ids[j])),
            false => out.push_str(&ids[i].to_string()),
        }
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::budget::worst;
    use super::*;
    use crate::mcp::MAX_BYTES_OVERHEAD;

    #[test]
    fn left_out_ids_are_named_as_ranges_and_programs_are_cut() {
        assert_eq!(id_ranges(&[2, 3, 4, 5, 6, 9, 11, 12]), "2-6, 9, 11-12");
        assert_eq!(id_ranges(&[7]), "7");
        assert_eq!(listed_program("vim"), "vim");
        let long = "é".repeat(LISTED_PROGRAM_BYTES);
        let cut = listed_program(&long);
        assert!(cut.len() <= LISTED_PROGRAM_BYTES + '…'.len_utf8() && cut.ends_with('…'));
    }

    /// Under a toolbox's subset of the tools, a command's result advises only tools offered
    /// (review ig: it said "interrupt it with terminal_send", "follow it with terminal_read",
    /// "terminal_close the shell" to a model offered `terminal_run` alone), in every note of
    /// every outcome, and so do its errors; under all the tools, each says what it said.
    #[test]
    fn a_runs_advice_names_only_the_tools_offered() {
        use super::super::offered::{self, Offered, assert_names_only, subsets_with};
        let result = |exit_code, waiting, prompt, timed_out, kind| CommandResult {
            output: "line\n".repeat(2_000),
            exit_code,
            duration: Duration::from_millis(10),
            output_truncated: true,
            timed_out,
            waiting_for_input: waiting,
            prompt_waiting_for_input: prompt,
            unread_before: Some((4, 9)),
            unread_before_dropped: 0,
            previous_exit_code: None,
            status: crate::Status { input_kind: kind, ..worst::status() },
        };
        let password = Some(crate::InputKind::Password);
        let results = [
            result(Some(0), false, true, false, password),
            result(Some(0), false, true, false, None),
            result(None, true, false, false, None),
            result(None, true, false, false, password),
            result(None, false, false, true, None),
        ];
        let ran = |retained, alternate, new_session| Ran {
            id: SessionId(3),
            new_session,
            closed: false,
            alternate,
            retained,
            cannot_ask: Some(crate::mcp::url_secret::CLIENT_CANNOT_ASK),
            recording: Some("recording not at its path"),
        };
        let texts = || {
            let mut texts = Vec::new();
            for result in &results {
                for (retained, alternate, new) in
                    [(Some((100, 2_100)), false, true), (None, true, false), (None, false, true)]
                {
                    let mut budget = Budget::with_copies(1_000, 2);
                    let ran = ran(retained, alternate, new);
                    texts.push(run_result(ran, "seq", result, &mut budget).text);
                }
            }
            let readers = [
                UnmarkedReader::Shell,
                UnmarkedReader::Other { pid: 7, name: "head".to_owned() },
                UnmarkedReader::Drawing,
            ];
            texts.extend(readers.iter().map(|reader| unmarked_advice(SessionId(3), reader)));
            let errors = [
                crate::Error::NoShellIntegration(SessionId(3)),
                crate::Error::NotAtPrompt { session: SessionId(3), command_running: true },
            ];
            texts.extend(errors.into_iter().map(|err| run_error(err).message));
            for err in [
                crate::Error::SessionExited(SessionId(3)),
                crate::Error::SessionClosed(SessionId(3)),
            ] {
                texts.push(ended_before(err, "nothing was sent").message);
            }
            texts
        };
        let all = texts();
        // Under every tool: advice as it was.
        let joined = all.join("\n");
        for advice in [
            "interrupt it with terminal_send keys=\"<C-c>\"; terminal_close the shell when done]",
            "follow it with terminal_read (prompt=true, timeout_ms=...)",
            "then wait for the prompt with terminal_read prompt=true timeout_ms=... before the next command]",
            ": terminal_list says why and where it is]",
            "terminal_read session_id=3 lines=\"100-\" reads them]",
            "terminal_read session_id=3 lines=\"4-9\" shows them]",
            "to see them, call terminal_read with session_id=3 view=\"scrollback\"",
            "or use terminal_start without command/argv",
        ] {
            assert!(joined.contains(advice), "{advice}: {joined}");
        }
        for subset in subsets_with("terminal_run") {
            let _only = offered::offering(Offered::of(&subset));
            let texts = texts();
            assert_names_only(&subset, &texts);
            if subset.len() == super::super::catalog::TOOLS.len() {
                assert_eq!(texts, all);
            }
        }
    }

    /// Output whose start the transcript dropped and whose rest the result cuts gets one way
    /// to read what is not shown, not two (a line range and a scrollback read).
    #[test]
    fn a_cut_run_whose_start_was_dropped_names_one_way_to_read_the_rest() {
        let result = CommandResult {
            output: "line\n".repeat(2_000),
            exit_code: Some(0),
            duration: Duration::from_millis(10),
            output_truncated: true,
            timed_out: false,
            waiting_for_input: false,
            prompt_waiting_for_input: false,
            unread_before: None,
            unread_before_dropped: 0,
            previous_exit_code: None,
            status: worst::status(),
        };
        let ran = |retained| Ran {
            id: SessionId(3),
            new_session: false,
            closed: false,
            alternate: false,
            retained,
            cannot_ask: Some(crate::mcp::url_secret::CLIENT_CANNOT_ASK),
            recording: None,
        };
        let text =
            run_result(ran(Some((100, 2_100))), "seq", &result, &mut Budget::with_copies(4_000, 1))
                .text;
        let hints = text
            .lines()
            .filter(|line| line.starts_with('[') && line.contains("terminal_read"))
            .count();
        assert_eq!(hints, 1, "{text}");
        assert!(
            text.contains("holds lines 100-2099, and this result leaves out its first"),
            "{text}"
        );
        assert!(
            text.contains("lines=\"100-\" reads them") && !text.contains("scrollback"),
            "{text}"
        );
        // Where the lines it holds are unknown, the cut is told with a read that shows it.
        let text = run_result(ran(None), "seq", &result, &mut Budget::with_copies(4_000, 1)).text;
        assert!(
            text.contains("already dropped") && text.contains("earlier bytes of output left out"),
            "{text}"
        );
    }

    #[test]
    fn a_command_result_stays_within_max_bytes_and_the_overhead() {
        for exit_code in [Some(i32::MIN), None] {
            let result = CommandResult {
                output: worst::string(10_000),
                exit_code,
                duration: Duration::from_secs(u64::MAX / 4),
                output_truncated: true,
                timed_out: exit_code.is_none(),
                waiting_for_input: false,
                // The longer note of a command that ended: its prompt asks a question.
                prompt_waiting_for_input: exit_code.is_some(),
                // The longest note of lines read past before the command.
                unread_before: Some((u64::MAX - 1, u64::MAX)),
                unread_before_dropped: u64::MAX,
                previous_exit_code: Some(i32::MIN),
                status: worst::status(),
            };
            // (A shell the call started has no note of unread output: with one it does.)
            for (copies, new_session) in [(1, true), (2, true), (1, false), (2, false)] {
                // The samples, and every third budget from 256 to 2,047.
                let sweep = (256..2048).step_by(3);
                for max in worst::MAX_BYTES.into_iter().chain(sweep) {
                    let mut budget = Budget::with_copies(max, copies);
                    let output = run_result(
                        Ran {
                            id: SessionId(u64::MAX),
                            new_session,
                            closed: false,
                            alternate: true,
                            retained: Some((u64::MAX - 1, u64::MAX)),
                            cannot_ask: Some(crate::mcp::url_secret::CLIENT_CANNOT_ASK),
                            recording: Some("recording not at its path"),
                        },
                        &worst::string(450),
                        &result,
                        &mut budget,
                    );
                    let note = "[unread output from before this command (the command before ended with exit code -2147483648): 18446744073709551615 lines dropped from the transcript unread, then lines 18446744073709551614-18446744073709551615;";
                    assert_eq!(output.text.contains(note), !new_session, "{}", output.text);
                    let size = worst::size(&output, copies);
                    assert!(size <= max + MAX_BYTES_OVERHEAD, "{max} {copies}: {size}");
                    assert!(size >= max / 2, "{max} {copies}: {size}");
                    let command = output.structured["command"].as_str().unwrap();
                    // (Whole in an eighth of 65,536 bytes sent once, 17 a unit.)
                    let whole = command == worst::string(450);
                    assert!(whole || command.ends_with(" more bytes of the command cut]"));
                    assert!(whole == (max == 65_536 && copies == 1), "{max} {copies}");
                }
            }
        }
    }

    /// The advice at a prompt begun without its mark names only tools there are, with
    /// arguments they take (the command line puts them in its own terms). A prompt still
    /// being drawn advised `terminal_wait`, no tool.
    #[test]
    fn unmarked_advice_names_tools_and_arguments_there_are() {
        let readers = [
            UnmarkedReader::Shell,
            UnmarkedReader::Other { pid: 7, name: "head".to_owned() },
            UnmarkedReader::Drawing,
        ];
        for reader in readers {
            let advice = unmarked_advice(SessionId(3), &reader);
            let words: Vec<_> = advice.split([' ', ',', ':', '(', ')']).collect();
            for (at, word) in words.iter().enumerate().filter(|(_, w)| w.starts_with("terminal_")) {
                let tool = super::super::catalog::find(word);
                let tool = tool.unwrap_or_else(|| panic!("no tool {word}: {advice}"));
                let given = words[at + 1..].iter().map_while(|w| w.split_once('='));
                for (arg, _) in given {
                    assert!(tool.accepts(arg), "{word} takes no {arg}: {advice}");
                }
            }
        }
        let other = UnmarkedReader::Other { pid: 7, name: "head".to_owned() };
        let other = unmarked_advice(SessionId(3), &other);
        assert!(other.contains("PROMPT_COMMAND or a zsh precmd hook"), "{other}");
        let drawing = unmarked_advice(SessionId(3), &UnmarkedReader::Drawing);
        assert!(drawing.contains("terminal_read session_id=3 prompt=true"), "{drawing}");
    }
}
