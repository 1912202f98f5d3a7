//! How results read: a one-line status header, the transcript, the screen, notes on what was
//! left out; and the same data as JSON for `structuredContent`.

use serde_json::{Value, json};

use crate::{Activity, ExitStatus, Process, SessionId, SessionInfo, Status};

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
        Activity::Stopped => ("stopped", None),
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

/// What every status header says of a session's recording that went wrong, in a few fixed
/// bytes: [`RECORDING_FAILED`] when its file lacks the rest of it (wherever it is), or
/// [`SessionInfo::recording_heading`]'s `recording not at its path` when it is whole under
/// its temporary name ([`SessionInfo::recording_kept_at`], which `terminal_list` and
/// `terminal_close` give); nothing when nothing went wrong.
pub(crate) fn recording_word(info: &SessionInfo) -> Option<&'static str> {
    info.recording_error.as_ref()?;
    match (&info.recording_kept_at, info.recording_write_failed) {
        (Some(_), false) => info.recording_heading(),
        _ => Some(RECORDING_FAILED),
    }
}

/// The most bytes of a kept recording's path a result gives (escaped), its end kept: a path
/// may be 4 KiB before its control characters are escaped, and a result's overhead past
/// `max_bytes` is bounded.
const KEPT_PATH_BYTES: usize = 512;

/// Where a recording not at its path is, as a result gives it ([`recording_line`],
/// [`put_recording_error`]): escaped as Rust quotes a string (a control character, a byte
/// that is not UTF-8 or a bidirectional mark cannot reach the model raw), without the
/// quotes, and, past [`KEPT_PATH_BYTES`], its last bytes after `…`.
fn kept_path(kept: &std::path::Path) -> String {
    let quoted = format!("{kept:?}");
    let escaped = &quoted[1..quoted.len() - 1];
    match escaped.len() > KEPT_PATH_BYTES {
        true => {
            format!("…{}", &escaped[escaped.ceil_char_boundary(escaped.len() - KEPT_PATH_BYTES)..])
        }
        false => escaped.to_owned(),
    }
}

/// A result's first line: the session when this call started it (a call that named its
/// session is not told it again), what its foreground program is doing and where it waits,
/// at the shell's prompt its last command's exit code, that its recording failed, and what
/// ended the call's wait; e.g. `[session 2 started · python3 waiting for keys at ">>>"]`,
/// `[python3 waiting for keys · settled after 0.05 s]`.
pub(crate) struct Header<'a> {
    /// The session, when this call started it.
    pub started: Option<SessionId>,
    /// Its status.
    pub status: &'a Status,
    /// The text of the cursor's row, while the program waits for input.
    pub at: Option<&'a str>,
    /// What ended the call's wait.
    pub wait: Option<&'a str>,
    /// What went wrong with the session's recording, if anything ([`recording_word`]).
    pub recording: Option<&'a str>,
}

impl Header<'_> {
    /// The line, in brackets.
    pub(crate) fn render(&self) -> String {
        let status = self.status;
        let mut parts: Vec<String> =
            self.started.map(|id| format!("session {id} started")).into_iter().collect();
        parts.push(doing(status, self.at));
        // The shell's last command's code, only while the shell is back at its prompt: while
        // another command runs (or waits for input) it would read as that one's, and beside
        // the session's own exit code as a second answer.
        let at_prompt = status.activity == Activity::AtPrompt;
        if let Some(code) = status.last_exit_code.filter(|_| at_prompt) {
            parts.push(format!("last exit {code}"));
        }
        parts.extend(self.recording.map(str::to_owned));
        parts.extend(self.wait.map(str::to_owned));
        format!("[{}]", parts.join(" · "))
    }
}

/// What a session's foreground program is doing, in words (`python3 waiting for keys at
/// ">>>"` with the text of the cursor's row `at`, `bash at the shell prompt`,
/// `closed (ended by the close (SIGHUP))`).
pub(crate) fn doing(status: &Status, at: Option<&str>) -> String {
    let state = match status.activity {
        Activity::Running => "running".to_owned(),
        Activity::Quiet => "running, quiet".to_owned(),
        Activity::WaitingForInput => {
            let kind = status.input_kind.map_or("input", |kind| kind.describe());
            let at = at.map(|row| format!(" at \"{row}\""));
            format!("waiting for {kind}{}", at.unwrap_or_default())
        }
        Activity::AtPrompt => "at the shell prompt".to_owned(),
        Activity::Stopped => "stopped (continue it with signal CONT)".to_owned(),
        Activity::Exited(how) => format!("exited ({how})"),
        Activity::Closed(how) => format!("closed ({})", how.ending(status.ended_by_close)),
    };
    match &status.foreground {
        Some(Process { name, within: Some(within), .. }) => format!("{name} in {within} {state}"),
        Some(process) => format!("{} {state}", process.name),
        None => state,
    }
}

/// The most bytes of a recording's error [`recording_error`] keeps (an OS error's text is
/// shorter: `No space left on device`).
const RECORDING_ERROR_BYTES: usize = 60;

/// What a result's status header says of a session whose recording's file lacks the rest of
/// it ([`SessionInfo::recording_error`](crate::SessionInfo::recording_error)): a few fixed
/// bytes, in every result that shows the session; `terminal_close` and `terminal_list` say why.
pub(crate) const RECORDING_FAILED: &str = "recording failed";

/// Why a session's recording's file lacks the rest of it, in few bytes for a result: the OS
/// error's number left out (`No space left on device`), plain text (a control character,
/// quote or backslash, which no OS error holds, as `?`), at most [`RECORDING_ERROR_BYTES`].
pub(crate) fn recording_error(error: &str) -> String {
    // A recording kept elsewhere whose later write failed: where it is, the line gives apart
    // (`recording_kept_at`); why it lacks the rest is the write's error, at the end.
    let error = error
        .rsplit_once(crate::os::recording::THEN_A_WRITE_FAILED)
        .map_or(error, |(_, failed)| failed);
    let error = match error.rsplit_once(" (os error ") {
        Some((text, number))
            if number.trim_end_matches(')').bytes().all(|b| b.is_ascii_digit()) =>
        {
            text
        }
        _ => error,
    };
    let error = &error[..error.floor_char_boundary(RECORDING_ERROR_BYTES)];
    error.chars().map(|c| if c.is_control() || c == '"' || c == '\\' { '?' } else { c }).collect()
}

/// What a session's line (`terminal_list`, `terminal_close`) says of its recording that went
/// wrong: `recording failed: No space left on device`, or, for one whole under its temporary
/// name, `recording not at its path, it is at "/dir/.termloom-recording-….tmp": ` and why
/// (the error in few bytes, [`recording_error`]; the path as the next step needs it, whole
/// unless over [`KEPT_PATH_BYTES`], [`kept_path`]). Nothing when nothing went wrong.
pub(crate) fn recording_line(info: &SessionInfo) -> Option<String> {
    let error = recording_error(info.recording_error.as_deref()?);
    let word = recording_word(info)?;
    Some(match &info.recording_kept_at {
        Some(kept) => format!("{word}, it is at \"{}\": {error}", kept_path(kept)),
        None => format!("{word}: {error}"),
    })
}

/// Puts what went wrong with a session's recording, if anything, in a result's structured
/// content: `recording_error` (see [`recording_error`]) and, when the recording is not at its
/// path, `recording_kept_at`, where it is ([`kept_path`]); without an error both are left
/// out.
pub(crate) fn put_recording_error(structured: &mut Value, info: &SessionInfo) {
    if let Some(error) = &info.recording_error {
        structured["recording_error"] = json!(recording_error(error));
    }
    if let Some(kept) = info.recording_kept_at.as_ref().filter(|_| info.recording_error.is_some()) {
        structured["recording_kept_at"] = json!(kept_path(kept));
    }
}

/// Puts `line` on the line after a result's header (the first line of `text`; a header alone,
/// with no new output, has no line break yet): what a call did, before what it shows.
pub(crate) fn under_header(text: &mut String, line: &str) {
    match text.find('\n') {
        Some(at) => text.insert_str(at + 1, &format!("{line}\n")),
        None => text.push_str(&format!("\n{line}")),
    }
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

    /// A kept recording's path reaches a result escaped (no control character, byte that is
    /// not UTF-8 or bidirectional mark raw) and bounded, its end kept; before, it was given
    /// whole and raw in the structured content (review ur: 8,049 bytes for a
    /// `terminal_close max_bytes=256`).
    #[test]
    fn a_kept_recordings_path_is_escaped_and_bounded() {
        use std::os::unix::ffi::OsStrExt;
        let odd = std::path::Path::new(std::ffi::OsStr::from_bytes(
            b"/t/a\nb\x1b[31m\xff\xe2\x80\xae.tmp",
        ));
        let shown = kept_path(odd);
        assert!(!shown.chars().any(|c| c.is_control() || c == '\u{202e}'), "{shown:?}");
        assert!(shown.starts_with("/t/a") && shown.ends_with(".tmp"), "{shown}");
        let long = format!("/{}/.termloom-recording-0123.tmp", "d/".repeat(2_000));
        let shown = kept_path(std::path::Path::new(&long));
        assert!(shown.len() <= KEPT_PATH_BYTES + '…'.len_utf8(), "{}", shown.len());
        assert!(shown.starts_with('…') && shown.ends_with("/.termloom-recording-0123.tmp"));
        assert_eq!(kept_path(std::path::Path::new("/tmp/x.tmp")), "/tmp/x.tmp");
    }

    /// The header of a session in `status` whose recording did not fail.
    fn header(status: &Status) -> String {
        Header { started: None, status, at: None, wait: None, recording: None }.render()
    }

    #[test]
    fn header_names_a_started_session_status_foreground_and_exit() {
        let status = Status {
            activity: Activity::WaitingForInput,
            foreground: Some(Process { pid: 1234, name: "python3".into(), within: None }),
            last_exit_code: Some(0),
            ..Status::default()
        };
        // The shell's last exit code is no news while another program runs.
        assert_eq!(header(&status), "[python3 waiting for input]");
        let started = Header {
            started: Some(SessionId(3)),
            status: &status,
            at: None,
            wait: None,
            recording: None,
        };
        assert_eq!(started.render(), "[session 3 started · python3 waiting for input]");
        // A program in a multiplexer's pane that its server reads for says so.
        let vim = Process { pid: 1300, name: "vim".into(), within: Some("tmux".into()) };
        let in_tmux = Status {
            foreground: Some(vim),
            input_kind: Some(crate::InputKind::Keys),
            ..status.clone()
        };
        assert_eq!(header(&in_tmux), "[vim in tmux waiting for keys]");
        let shell = Process { pid: 1200, name: "bash".into(), within: None };
        let prompt = Status { activity: Activity::AtPrompt, foreground: Some(shell), ..status };
        assert_eq!(header(&prompt), "[bash at the shell prompt · last exit 0]");
        let exited = Status { activity: Activity::Exited(crate::ExitStatus::Code(7)), ..prompt };
        assert_eq!(header(&exited), "[bash exited (exit code 7)]");
        // A recording that failed is said in few bytes, the OS error's number left out.
        let recording = Some(RECORDING_FAILED);
        let failed = Header { started: None, status: &exited, at: None, wait: None, recording };
        assert_eq!(failed.render(), "[bash exited (exit code 7) · recording failed]");
        let full = recording_error("No space left on device (os error 28)");
        assert_eq!(full, "No space left on device");
        assert_eq!(recording_error("odd (os error x)"), "odd (os error x)");
        assert_eq!(recording_error("a\u{1b}[31m\"b\\"), "a?[31m?b?");
        assert_eq!(recording_error(&"é".repeat(100)).len(), 60);
        // A recording kept elsewhere whose later write failed says the write's error, which
        // the note of where it is (given apart) and its reason would push out of the bytes
        // kept (review ut).
        let then = crate::os::recording::THEN_A_WRITE_FAILED;
        let both = format!(
            "the recording could not be put at /dir/rec.cast: Permission denied (os error 13){then}No space left on device (os error 28)"
        );
        assert_eq!(recording_error(&both), "No space left on device");
    }
}
