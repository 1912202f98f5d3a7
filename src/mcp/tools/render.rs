//! How results read: a one-line status header, the transcript, the screen, notes on what was
//! left out; and the same data as JSON for `structuredContent`.

use serde_json::{Value, json};

use crate::{Activity, ExitStatus, SessionId, Status};

/// How a program ended, as (code, signal).
pub(crate) fn exit_parts(status: Option<ExitStatus>) -> (Option<i32>, Option<i32>) {
    match status {
        Some(ExitStatus::Code(code)) => (Some(code), None),
        Some(ExitStatus::Signal(signal)) => (None, Some(signal)),
        None => (None, None),
    }
}

/// The status as JSON (see the output schemas).
pub(crate) fn status_json(status: &Status) -> Value {
    let (activity, ended) = match status.activity {
        Activity::Running => ("running", None),
        Activity::Quiet => ("quiet", None),
        Activity::WaitingForInput => ("waiting_for_input", None),
        Activity::AtPrompt => ("at_prompt", None),
        Activity::Exited(how) => ("exited", Some(how)),
        Activity::Closed(how) => ("closed", Some(how)),
    };
    let (exit_code, exit_signal) = exit_parts(ended);
    json!({
        "activity": activity,
        "exit_code": exit_code,
        "exit_signal": exit_signal,
        "foreground": status.foreground.as_ref().map(|p| json!({"pid": p.pid, "name": p.name})),
        "input_kind": status.input_kind,
        "last_exit_code": status.last_exit_code,
        "shell_integration": status.shell_integration,
        "seconds_since_output": (status.since_output.as_secs_f64() * 1000.0).round() / 1000.0,
    })
}

/// The one-line status header: session, status, foreground program, last exit code.
pub(crate) fn header(id: SessionId, status: &Status) -> String {
    header_at(id, status, None)
}

/// [`header`], saying after the status where the program waits (`at`: the text of the
/// cursor's row).
pub(crate) fn header_at(id: SessionId, status: &Status, at: Option<&str>) -> String {
    let mut parts = vec![format!("session {id}")];
    parts.push(match status.activity {
        Activity::Running => "running".to_owned(),
        Activity::Quiet => "running, quiet".to_owned(),
        Activity::WaitingForInput => {
            let kind = status.input_kind.map(|k| format!(": {}", k.describe()));
            let at = at.map(|row| format!(" at \"{row}\""));
            format!("waiting for input{}{}", kind.unwrap_or_default(), at.unwrap_or_default())
        }
        Activity::AtPrompt => "at the shell prompt".to_owned(),
        Activity::Exited(how) => format!("exited ({how})"),
        Activity::Closed(how) => format!("closed ({how})"),
    });
    if let Some(process) = &status.foreground {
        parts.push(format!("foreground {} (pid {})", process.name, process.pid));
    }
    if let Some(code) = status.last_exit_code {
        parts.push(format!("last exit {code}"));
    }
    format!("[{}]", parts.join(" · "))
}

/// Appends `text` to `out` on its own line(s).
pub(crate) fn push_block(out: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_session_status_foreground_and_exit() {
        let status = Status {
            activity: Activity::WaitingForInput,
            foreground: Some(crate::Process { pid: 1234, name: "python3".into() }),
            last_exit_code: Some(0),
            ..Status::default()
        };
        assert_eq!(
            header(SessionId(3), &status),
            "[session 3 · waiting for input · foreground python3 (pid 1234) · last exit 0]"
        );
    }
}
