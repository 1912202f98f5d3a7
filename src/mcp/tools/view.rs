//! What the reading tools return: a session's status, new transcript or scrollback, and screen,
//! bounded by `max_bytes`.

use serde_json::{Value, json};

use crate::Session;

use super::args::Args;
use super::render::{header, keep_end, push_block, screen, status_json};
use super::waits::Report;
use super::{ToolError, ToolOutput};

/// Default bound of returned text.
pub(crate) const DEFAULT_MAX_BYTES: u64 = 16_384;
/// Smallest and largest `max_bytes`.
pub(crate) const MAX_BYTES_RANGE: (u64, u64) = (256, 1 << 20);
/// Reads of at most `Config::max_read_bytes` each, at most this many per call.
const MAX_READS: usize = 64;
/// Everything the engine retains.
const ALL: usize = usize::MAX >> 1;

/// Which part of the session to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    /// The transcript since the previous read.
    New,
    /// The visible screen.
    Screen,
    /// The end of the retained transcript.
    Scrollback,
}

impl View {
    fn name(self) -> &'static str {
        match self {
            View::New => "new",
            View::Screen => "screen",
            View::Scrollback => "scrollback",
        }
    }
}

/// The `view` and `max_bytes` arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewArgs {
    /// Which part.
    pub view: View,
    /// Bound of transcript text, and separately of screen text.
    pub max_bytes: usize,
}

/// Reads `view` and `max_bytes`.
pub(crate) fn view_args(args: &Args) -> Result<ViewArgs, ToolError> {
    let view = match args.str("view")? {
        None | Some("new") => View::New,
        Some("screen") => View::Screen,
        Some("scrollback") => View::Scrollback,
        Some(other) => {
            return Err(ToolError::new(format!(
                "`view` must be \"new\", \"screen\" or \"scrollback\", not {other:?}"
            )));
        }
    };
    Ok(ViewArgs { view, max_bytes: max_bytes(args, DEFAULT_MAX_BYTES)? })
}

/// Reads `max_bytes` with a default.
pub(crate) fn max_bytes(args: &Args, default: u64) -> Result<usize, ToolError> {
    let (min, max) = MAX_BYTES_RANGE;
    Ok(args.uint("max_bytes", min, max)?.unwrap_or(default) as usize)
}

/// The new transcript, keeping its last `max` bytes.
pub(crate) struct NewOutput {
    /// The kept text.
    pub text: String,
    /// Bytes left out from its start.
    pub omitted: usize,
    /// Number of the line the new output starts in.
    pub first_line: Option<u64>,
    /// A line read before was redrawn and is repeated.
    pub rewritten: bool,
    /// Lines dropped from the bounded store before they were read.
    pub missed_lines: u64,
    /// The status at the last read.
    pub status: crate::Status,
}

/// Reads everything new, keeping the last `max` bytes.
pub(crate) fn read_new(session: &Session, max: usize) -> crate::Result<NewOutput> {
    let first = session.read()?;
    let mut more = first.truncated;
    let mut text = first.text;
    let mut result = NewOutput {
        text: String::new(),
        omitted: 0,
        first_line: Some(first.first_line),
        rewritten: first.rewritten,
        missed_lines: first.missed_lines,
        status: first.status,
    };
    let mut reads = 1;
    while more && reads < MAX_READS {
        let out = session.read()?;
        reads += 1;
        more = out.truncated;
        text.push_str(&out.text);
        result.missed_lines += out.missed_lines;
        result.status = out.status;
        if text.len() > max.saturating_mul(2) {
            let cut = text.floor_char_boundary(text.len() - max);
            result.omitted += cut;
            text.drain(..cut);
        }
    }
    let (kept, cut) = keep_end(&text, max);
    result.text = kept.to_owned();
    result.omitted += cut;
    Ok(result)
}

/// Builds the result of a reading tool: header, `lead` lines, the wait, the transcript part the
/// view asks for, and the screen when asked for, when a full-screen program has the alternate
/// screen, or when a wait timed out.
pub(crate) fn show(
    session: &Session,
    args: ViewArgs,
    wait: Option<&Report>,
    lead: &[String],
) -> Result<ToolOutput, ToolError> {
    let info = session.info()?;
    let (output, omitted, first_line, rewritten, missed_lines, status) = match args.view {
        View::New => {
            let new = read_new(session, args.max_bytes)?;
            (new.text, new.omitted, new.first_line, new.rewritten, new.missed_lines, new.status)
        }
        View::Scrollback => {
            let (all, _) = session.scrollback(ALL)?;
            let (kept, omitted) = keep_end(&all, args.max_bytes);
            (kept.to_owned(), omitted, None, false, 0, session.status()?)
        }
        View::Screen => (String::new(), 0, None, false, 0, session.status()?),
    };
    let timed_out = wait.is_some_and(|w| w.outcome == "timeout" && !w.implicit);
    let snapshot = match wait.and_then(|w| w.screen.clone()) {
        Some(screen) if timed_out => Some(screen),
        _ if args.view == View::Screen => Some(session.screen()?),
        _ => session.screen().ok(),
    };
    let shown = snapshot.filter(|s| args.view == View::Screen || s.alternate || timed_out);
    let mut text = header(session.id(), &status);
    for line in lead {
        push_block(&mut text, line);
    }
    if let Some(wait) = wait {
        push_block(&mut text, &wait.line());
    }
    if rewritten {
        push_block(&mut text, "[a line shown before was redrawn since; it is repeated in full]");
    }
    if omitted > 0 {
        let enough = (omitted + args.max_bytes).min(MAX_BYTES_RANGE.1 as usize);
        let note = match args.view {
            View::Scrollback => format!(
                "[... {omitted} earlier bytes of the retained transcript left out; call terminal_read with view=\"scrollback\" and max_bytes={enough} to see more]"
            ),
            _ => format!(
                "[... {omitted} earlier bytes of new output left out; to see them, call terminal_read with view=\"scrollback\" and max_bytes={enough}]"
            ),
        };
        push_block(&mut text, &note);
    }
    match args.view {
        View::Screen => {}
        _ if !output.is_empty() => push_block(&mut text, &output),
        View::New if shown.is_none() => push_block(&mut text, "(no new output)"),
        View::Scrollback => push_block(&mut text, "(the transcript is empty)"),
        View::New => {}
    }
    let screen_json = match &shown {
        Some(snapshot) => {
            let (json, block) = screen(snapshot, args.max_bytes);
            push_block(&mut text, &block);
            json
        }
        None => Value::Null,
    };
    let structured = json!({
        "session_id": session.id().0,
        "pid": info.pid,
        "program": info.program,
        "status": status_json(&status),
        "view": args.view.name(),
        "output": output,
        "output_omitted_bytes": omitted,
        "first_line": first_line,
        "rewritten": rewritten,
        "missed_lines": missed_lines,
        "screen": screen_json,
        "wait": wait.map(|w| json!({
            "condition": w.condition,
            "outcome": w.outcome,
            "matched_text": w.matched_text,
            "elapsed_ms": w.elapsed.as_millis() as u64,
            "default": w.implicit,
        })),
    });
    Ok(ToolOutput { text, structured })
}
