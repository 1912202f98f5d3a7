//! How results read: a one-line status header, the transcript, the screen, notes on what was
//! left out; and the same data as JSON for `structuredContent`.

use serde_json::{Value, json};

use crate::{Activity, ExitStatus, Screen, SessionId, Status};

/// Keeps at most `max` bytes of the end of `text`, starting at a line start when one is
/// close; returns the kept text and how many bytes were left out.
pub(crate) fn keep_end(text: &str, max: usize) -> (&str, usize) {
    if text.len() <= max {
        return (text, 0);
    }
    let mut start = text.ceil_char_boundary(text.len() - max);
    // Prefer a whole first line if one starts within the first quarter of the budget.
    if let Some(newline) = text[start..].find('\n')
        && newline < max / 4
    {
        start += newline + 1;
    }
    (&text[start..], start)
}

/// Keeps at most `max` bytes of the start of `text`, ending at a line end when one is close.
pub(crate) fn keep_start(text: &str, max: usize) -> (&str, usize) {
    if text.len() <= max {
        return (text, 0);
    }
    let mut end = text.floor_char_boundary(max);
    if let Some(newline) = text[..end].rfind('\n')
        && end - newline < max / 4
    {
        end = newline + 1;
    }
    (&text[..end], text.len() - end)
}

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
        "last_exit_code": status.last_exit_code,
        "shell_integration": status.shell_integration,
        "seconds_since_output": (status.since_output.as_secs_f64() * 1000.0).round() / 1000.0,
    })
}

/// The one-line status header: session, status, foreground program, last exit code.
pub(crate) fn header(id: SessionId, status: &Status) -> String {
    let mut parts = vec![format!("session {id}")];
    parts.push(match status.activity {
        Activity::Running => "running".to_owned(),
        Activity::Quiet => "running, quiet".to_owned(),
        Activity::WaitingForInput => "waiting for input".to_owned(),
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

/// The screen, bounded to `max` bytes of text: JSON, and the text block for a model.
pub(crate) fn screen(screen: &Screen, max: usize) -> (Value, String) {
    let full = screen.text();
    let (text, omitted) = keep_start(&full, max);
    let json = json!({
        "cols": screen.cols,
        "rows": screen.height,
        "alternate": screen.alternate,
        "cursor_row": screen.cursor.row,
        "cursor_col": screen.cursor.col,
        "cursor_visible": screen.cursor.visible,
        "title": screen.title,
        "text": text,
        "omitted_bytes": omitted,
    });
    let mut block = format!(
        "--- screen ({}, {}x{}, cursor at row {} col {}{}) ---\n",
        if screen.alternate { "alternate" } else { "primary" },
        screen.cols,
        screen.height,
        screen.cursor.row,
        screen.cursor.col,
        if screen.title.is_empty() { String::new() } else { format!(", title {:?}", screen.title) },
    );
    block.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        block.push('\n');
    }
    if omitted > 0 {
        block.push_str(&format!(
            "[... {omitted} more bytes of the screen left out; call terminal_read with view=\"screen\" and a larger max_bytes]\n"
        ));
    }
    block.push_str("--- end of screen ---");
    (json, block)
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
    fn keeps_the_end_at_a_line_start() {
        let text = "first line\nsecond line\nthird line\n";
        let (kept, omitted) = keep_end(text, 24);
        assert_eq!((kept, omitted), ("second line\nthird line\n", 11));
        let (kept, _) = keep_end(text, 12);
        assert_eq!(kept, "third line\n");
        assert_eq!(keep_end("short", 10), ("short", 0));
        let (kept, omitted) = keep_end("ééééé", 5);
        assert_eq!((kept, omitted), ("éé", 6));
    }

    #[test]
    fn keeps_the_start_at_a_line_end() {
        let (kept, omitted) = keep_start("row one\nrow two\nrow three", 18);
        assert_eq!((kept, omitted), ("row one\nrow two\n", 9));
    }

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
