//! One `max_bytes` shared by every string of a tool's result.
//!
//! A result sends its strings (transcript, screen text, title, matched text, wait condition,
//! program or command) once in the text for a model and, from revision 2025-06-18, once more
//! in `structuredContent`. A [`Budget`] hands `max_bytes` out to those strings, each charged
//! its JSON-escaped length once per copy sent, so that the serialized text and structured
//! content together stay within `max_bytes` plus [`MAX_BYTES_OVERHEAD`], the fixed framing
//! (field names, numbers, the status, notes and cut markers).
//!
//! [`MAX_BYTES_OVERHEAD`]: crate::mcp::MAX_BYTES_OVERHEAD

use super::screen_diff::Styles;
use super::view::MAX_BYTES_RANGE;
use super::{Call, offered};
use crate::SessionId;

/// Length of `c` in a result's JSON string as a client gets it: a result's control
/// characters but line feeds and tabs are shown by three-byte stand-ins ([`super::run`]), so
/// those cost three bytes, not what `serde_json` writes of them (review xi: DEL and the C1
/// controls were charged one and two, carriage return, backspace and form feed two, and
/// 20,000 DELs in a wait's condition went 22 KB past the bound; the other C0 controls were
/// charged six).
fn char_json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\t' => 2,
        c if c.is_control() => 3,
        c => c.len_utf8(),
    }
}

/// Length of `text` in a JSON string (its escapes counted, the quotes not), as a result
/// shows it (see [`char_json_len`]).
pub(crate) fn json_len(text: &str) -> usize {
    text.chars().map(char_json_len).sum()
}

/// The end of the longest start of `text` whose JSON length is at most `max` (a char boundary).
pub(crate) fn start_within(text: &str, max: usize) -> usize {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += char_json_len(c);
        if used > max {
            return at;
        }
    }
    text.len()
}

/// The start of the longest end of `text` whose JSON length is at most `max` (a char boundary).
fn end_within(text: &str, max: usize) -> usize {
    let mut used = 0;
    for (at, c) in text.char_indices().rev() {
        used += char_json_len(c);
        if used > max {
            return at + c.len_utf8();
        }
    }
    0
}

/// Keeps the end of `text` within `max` bytes of JSON, starting at a line start when one is
/// close; returns the kept text and how many bytes were left out.
pub(crate) fn keep_end(text: &str, max: usize) -> (&str, usize) {
    let mut start = end_within(text, max);
    if start == 0 {
        return (text, 0);
    }
    // Prefer a whole first line if one starts within the first quarter of the budget.
    if let Some(newline) = text[start..].find('\n')
        && newline < max / 4
    {
        start += newline + 1;
    }
    (&text[start..], start)
}

/// Keeps the start of `text` within `max` bytes of JSON, ending at a line end when one is
/// close; returns the kept text and how many bytes were left out.
pub(crate) fn keep_start(text: &str, max: usize) -> (&str, usize) {
    let mut end = start_within(text, max);
    if end == text.len() {
        return (text, 0);
    }
    if let Some(newline) = text[..end].rfind('\n')
        && end - newline < max / 4
    {
        end = newline + 1;
    }
    (&text[..end], text.len() - end)
}

/// Keeps, within `max` bytes of JSON, the line holding byte `at` of `text` (what a wait
/// matched): the end of `text` as [`keep_end`] cuts it when that reaches the line, else from
/// the line's start on as [`keep_start`] cuts it. Returns the kept text and the bytes left
/// out before and after it.
pub(crate) fn keep_around(text: &str, at: usize, max: usize) -> (&str, usize, usize) {
    let line = line_start(text, at);
    let (end, before) = keep_end(text, max);
    if before <= line {
        return (end, before, 0);
    }
    let (kept, after) = keep_start(&text[line..], max);
    (kept, line, after)
}

/// The start of the line that holds byte `at` of `text`.
pub(crate) fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |n| n + 1)
}

/// The part of the budget a program, command, wait condition or title may take: an eighth.
pub(crate) const LABEL: usize = 8;
/// The part of the budget a wait's matched text may take: a quarter.
pub(crate) const MATCHED: usize = 4;

/// What is left of a result's `max_bytes` as its strings take their parts.
///
/// Strings take their parts in the order the tool asks, each at most its `cap` (a part of
/// the budget, so with two copies a string gets half of it in JSON bytes); what one leaves
/// unused stays for the next.
#[derive(Debug)]
pub(crate) struct Budget {
    /// The call's `max_bytes`.
    max_bytes: usize,
    /// Bytes not handed out yet.
    left: usize,
    /// How many times each string is sent: 1 (text only) or 2 (text and structured content).
    copies: usize,
    /// The largest `max_bytes` advice to read more may ask for (see [`Call::largest`]).
    largest: usize,
}

impl Budget {
    /// The budget of a call's result: `max_bytes`, shared by the copies the call's revision
    /// sends that its client reads.
    pub(crate) fn new(call: &Call, max_bytes: usize) -> Budget {
        let copies = if call.structured() && !call.one_copy { 2 } else { 1 };
        Budget { largest: call.largest, ..Budget::with_copies(max_bytes, copies) }
    }

    /// A budget of `max_bytes` for strings sent `copies` times.
    pub(crate) fn with_copies(max_bytes: usize, copies: usize) -> Budget {
        let largest = MAX_BYTES_RANGE.1 as usize;
        Budget { max_bytes, left: max_bytes, copies: copies.max(1), largest }
    }

    /// Bytes not handed out yet.
    pub(crate) fn left(&self) -> usize {
        self.left
    }

    /// What `text` whole would take of the budget.
    pub(crate) fn cost(&self, text: &str) -> usize {
        self.copies.saturating_mul(json_len(text))
    }

    /// JSON bytes one copy of a string may take when it may have `cap` of the budget.
    fn allowance(&self, cap: usize) -> usize {
        self.left.min(cap) / self.copies
    }

    /// Charges the budget for `kept`.
    fn charge(&mut self, kept: &str) {
        self.left = self.left.saturating_sub(self.cost(kept));
    }

    /// A short string (a title, a matched text, a condition, a program or command) with at
    /// most a `part`-th of the budget ([`LABEL`] or [`MATCHED`]): whole, or its start cut on a
    /// char boundary and followed by `[... N more bytes of the WHAT cut]`.
    pub(crate) fn label(&mut self, text: &str, part: usize, what: &str) -> String {
        let end = start_within(text, self.allowance(self.max_bytes / part.max(1)));
        self.charge(&text[..end]);
        if end == text.len() {
            return text.to_owned();
        }
        format!("{}[... {} more bytes of the {what} cut]", &text[..end], text.len() - end)
    }

    /// The start of `text` with at most `cap` of the budget, as [`keep_start`] cuts it.
    pub(crate) fn start<'t>(&mut self, text: &'t str, cap: usize) -> (&'t str, usize) {
        let (kept, omitted) = keep_start(text, self.allowance(cap));
        self.charge(kept);
        (kept, omitted)
    }

    /// The end of `text` with at most `cap` of the budget, as [`keep_end`] cuts it.
    pub(crate) fn end<'t>(&mut self, text: &'t str, cap: usize) -> (&'t str, usize) {
        let (kept, omitted) = keep_end(text, self.allowance(cap));
        self.charge(kept);
        (kept, omitted)
    }

    /// The part of `text` with at most `cap` of the budget that keeps the line holding byte
    /// `at`, as [`keep_around`] cuts it.
    pub(crate) fn around<'t>(
        &mut self,
        text: &'t str,
        at: usize,
        cap: usize,
    ) -> (&'t str, usize, usize) {
        let (kept, before, after) = keep_around(text, at, self.allowance(cap));
        self.charge(kept);
        (kept, before, after)
    }

    /// The `max_bytes` that shows `more` JSON bytes besides what this call's does, once per
    /// copy, and a sixteenth more.
    fn enough(&self, more: usize) -> usize {
        let enough = self.max_bytes.saturating_add(more.saturating_mul(self.copies));
        enough.saturating_add(enough / 16)
    }

    /// How to see what a result left out of a session's screen, `left_out` (its text from
    /// row `row` on, the first row left out or cut), to follow "left out; ": a larger
    /// `max_bytes`, when one the call may ask for shows it; else its rows from `row` on with
    /// `screen_rows`, which shows them a result at a time within any `max_bytes` (under a
    /// host's budget, a larger `max_bytes` returned the same cut screen and the same advice).
    /// The look's `styles` go into the advice when they are not the default, so that the
    /// rows read on are marked as the rows shown were.
    pub(crate) fn see_screen(&self, left_out: &str, row: usize, styles: Styles) -> String {
        if !offered::has("terminal_read") {
            return UNREADABLE.to_owned();
        }
        let styles = styles.argument();
        if self.enough(json_len(left_out)) <= self.largest {
            return format!(
                "call terminal_read with view=\"screen\"{styles} and a larger max_bytes"
            );
        }
        // (No longer than the advice above, by more than a few digits: a result's overhead
        // past its `max_bytes` is bounded, `MAX_BYTES_OVERHEAD`.)
        format!(
            "past max_bytes={}: read on with terminal_read screen_rows=\"{row}-\"{styles}",
            self.largest
        )
    }

    /// This budget, as under a host's budget of `largest` bytes (the most any call may ask).
    #[cfg(test)]
    pub(crate) fn capped(self, largest: usize) -> Budget {
        Budget { largest, ..self }
    }

    /// How to see what a result left out of session `id`'s transcript, to follow "left out; ":
    /// `left_out`, the texts left out (before and after what was kept: a read of the
    /// scrollback keeps the end, so it must hold both), and `unseen` more bytes the result
    /// never had (the transcript's read bounded them), taken to need JSON escapes as
    /// `left_out` does, or when it is empty as `shown` (what the result kept of the same
    /// transcript) does, or else twice their length. A read of the scrollback whose
    /// `max_bytes` is this call's plus what those take once per copy, and a sixteenth more: a
    /// read of the scrollback keeps the transcript's end, so a larger `max_bytes` would also
    /// send older lines the caller has seen. When that is more than the largest `max_bytes`,
    /// reads by line number from `first` (the first line left out, when known) on, or a
    /// search: no one read can show them all.
    pub(crate) fn see_more(
        &self,
        id: SessionId,
        left_out: &[&str],
        shown: &str,
        unseen: usize,
        first: Option<u64>,
    ) -> String {
        let escaped: usize = left_out.iter().map(|text| json_len(text)).sum();
        let length: usize = left_out.iter().map(|text| text.len()).sum();
        // (A scrollback's read bounded in bytes has nothing left out at hand: what it
        // shows is a sample of the same transcript.)
        let (escaped_sample, sample) = match length {
            0 => (json_len(shown), shown.len()),
            _ => (escaped, length),
        };
        let unseen = match sample {
            0 => unseen.saturating_mul(2),
            len => unseen.saturating_mul(escaped_sample).div_ceil(len),
        };
        self.see_beyond(id, escaped.saturating_add(unseen), first)
    }

    /// [`Budget::see_more`]'s advice for `more` JSON bytes left out: the longest it gives for
    /// any texts whose escapes and unseen bytes take at most `more` (a layout reserves it
    /// before it keeps the text whose cut the advice would follow).
    pub(crate) fn see_beyond(&self, id: SessionId, more: usize, first: Option<u64>) -> String {
        if !offered::has("terminal_read") {
            return UNREADABLE.to_owned();
        }
        let enough = self.enough(more);
        let largest = self.largest;
        if enough <= largest {
            return format!(
                "to see them, call terminal_read with session_id={id} view=\"scrollback\" max_bytes={enough}"
            );
        }
        let lines = match first {
            Some(first) => format!("lines=\"{first}-\""),
            None => "lines=\"FIRST-LAST\" (numbered as a search shows them)".to_owned(),
        };
        format!(
            "they are more than one read shows (max_bytes={largest} at most): read them by line number with terminal_read session_id={id} {lines}, going on after the last line shown, or the lines that matter with search=REGEX"
        )
    }
}

/// The advice to see what a result left out, to follow "left out; ", where the tool that
/// reads it is not offered.
const UNREADABLE: &str = "no tool offered here reads them";

/// Worst cases for the tests of the layouts: the longest framing and strings that JSON escapes
/// as much as it can.
#[cfg(test)]
pub(crate) mod worst {
    use std::time::Duration;

    use crate::mcp::tools::ToolOutput;
    use crate::{Activity, ExitStatus, Process, Status};

    /// `n` times DEL, a quote, a backslash, a two-byte character, a line break, a carriage
    /// return and a C1 control: the most a result shows of a byte (DEL's stand-in `␡` is
    /// three), and the controls JSON writes shorter than their stand-ins (review xi).
    pub(crate) fn string(n: usize) -> String {
        "\u{7f}\"\\é\n\r\u{85}".repeat(n)
    }

    /// A status with the longest header and JSON.
    pub(crate) fn status() -> Status {
        Status {
            activity: Activity::Closed(ExitStatus::Signal(9)),
            foreground: Some(Process {
                pid: i32::MIN,
                name: "\u{1}".repeat(15),
                // (A relay's name is plain ASCII: see `procfs::relay_name`.)
                within: Some("x".repeat(15)),
            }),
            since_output: Duration::from_micros(u64::MAX / 3),
            last_exit_code: Some(i32::MIN),
            shell_integration: true,
            input_wait_unknown: Some(string(100)),
            input_kind: Some(crate::InputKind::Password),
            ended_by_close: true,
            reader: None,
        }
    }

    /// The serialized size of a result as a client gets it, its control characters shown as
    /// [`super::super::run`] shows them: its text, its image in base64, and its structured
    /// content when strings are sent in two copies.
    pub(crate) fn size(output: &ToolOutput, copies: usize) -> usize {
        let mut text = output.text.clone();
        crate::mcp::tools::shown_controls(&mut text);
        let text = serde_json::to_string(&text).unwrap().len();
        let image = output.image.as_ref().map_or(0, |png| png.len().div_ceil(3) * 4);
        match copies {
            1 => text + image,
            _ => {
                let mut structured = output.structured.clone();
                crate::mcp::tools::shown_controls_in(&mut structured);
                text + image + serde_json::to_string(&structured).unwrap().len()
            }
        }
    }

    /// The `max_bytes` values the layouts are tried with.
    pub(crate) const MAX_BYTES: [usize; 6] = [256, 1000, 1024, 4096, 16_384, 65_536];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output that one read can show is read with a larger `max_bytes`; output that none can
    /// is read by line number (from its first line, when known) or searched.
    #[test]
    fn advice_to_see_more_fits_within_the_largest_max_bytes() {
        let budget = Budget::with_copies(16_384, 2);
        // 16,384 + 2 × (1,000 bytes, 100 of them line breaks: 1,100 in JSON), and a sixteenth.
        let text = "123456789\n".repeat(100);
        assert_eq!(
            budget.see_more(SessionId(5), &[&text], "", 0, Some(7)),
            "to see them, call terminal_read with session_id=5 view=\"scrollback\" max_bytes=19745"
        );
        // Bytes the result never had count as the text left out does, or twice without it.
        assert_eq!(
            budget.see_more(SessionId(5), &[&text], "", 1000, Some(7)),
            "to see them, call terminal_read with session_id=5 view=\"scrollback\" max_bytes=22083"
        );
        assert_eq!(
            budget.see_more(SessionId(5), &[], "", 1000, Some(7)),
            "to see them, call terminal_read with session_id=5 view=\"scrollback\" max_bytes=21658"
        );
        // Without them, as the text the result shows of the same transcript does: 1,000 more
        // bytes are 1,100 in JSON, sent once by termloom's command line, twice by MCP.
        let shown = "123456789\n".repeat(10);
        let once = Budget::with_copies(16_384, 1).see_more(SessionId(5), &[], &shown, 1000, None);
        assert!(once.ends_with(" max_bytes=18576"), "{once}");
        let twice = budget.see_more(SessionId(5), &[], &shown, 1000, None);
        assert!(twice.ends_with(" max_bytes=19745"), "{twice}");
        let far = budget.see_more(SessionId(5), &[], "", 300_000, Some(7));
        assert!(far.contains("session_id=5 lines=\"7-\"") && far.contains("search="), "{far}");
        assert!(!far.contains("view="), "{far}");
        let unknown = budget.see_more(SessionId(5), &[], "", 300_000, None);
        assert!(unknown.contains("lines=\"FIRST-LAST\""), "{unknown}");
    }

    #[test]
    fn a_cut_around_a_match_keeps_its_line() {
        let text: String = (0..100).map(|n| format!("line {n}\n")).collect();
        // A match near the end: the end is kept, as without a match.
        let at = text.find("line 98").unwrap();
        assert_eq!(keep_around(&text, at, 40), (keep_end(&text, 40).0, keep_end(&text, 40).1, 0));
        // A match early on: from the start of its line, and the rest counted as after.
        let at = text.find("ne 10").unwrap();
        let (kept, before, after) = keep_around(&text, at, 40);
        assert!(kept.starts_with("line 10\n"), "{kept:?}");
        assert_eq!(before, text.find("line 10").unwrap());
        assert_eq!(before + kept.len() + after, text.len());
        assert!(json_len(kept) <= 40);
    }

    #[test]
    fn json_length_is_what_serde_json_writes() {
        for text in ["plain", "line\nbreak\ttab", "quote \" back \\ slash", "é デ 😀"] {
            let written = serde_json::to_string(text).unwrap();
            assert_eq!(json_len(text), written.len() - 2, "{text:?}");
        }
    }

    /// Control characters cost what their stand-ins do once a result shows them (review xi:
    /// DEL and the C1 controls were charged one and two bytes, carriage return, backspace and
    /// form feed two, against three shown).
    #[test]
    fn json_length_of_controls_is_their_stand_ins() {
        let controls = ["\u{7f}", "\u{80}", "\u{9f}", "a\u{7f}\u{9b}b", "\r\u{8}\u{c}\u{1}\u{1b}"];
        for text in controls {
            let mut shown = text.to_owned();
            crate::mcp::tools::shown_controls(&mut shown);
            let written = serde_json::to_string(&shown).unwrap();
            assert_eq!(json_len(text), written.len() - 2, "{text:?}");
        }
    }

    #[test]
    fn keeps_the_end_at_a_line_start() {
        let text = "first line\nsecond line\nthird line\n";
        // Each line break takes two bytes of JSON.
        let (kept, omitted) = keep_end(text, 26);
        assert_eq!((kept, omitted), ("second line\nthird line\n", 11));
        let (kept, _) = keep_end(text, 13);
        assert_eq!(kept, "third line\n");
        assert_eq!(keep_end("short", 10), ("short", 0));
        let (kept, omitted) = keep_end("ééééé", 5);
        assert_eq!((kept, omitted), ("éé", 6));
        assert_eq!(keep_end("\"\"\"", 4), ("\"\"", 1));
    }

    #[test]
    fn keeps_the_start_at_a_line_end() {
        let (kept, omitted) = keep_start("row one\nrow two\nrow three", 20);
        assert_eq!((kept, omitted), ("row one\nrow two\n", 9));
        assert_eq!(keep_start("ab\\cd", 3), ("ab", 3));
    }

    #[test]
    fn labels_are_cut_on_a_char_boundary_with_a_marker() {
        let mut budget = Budget::with_copies(1000, 2);
        assert_eq!(budget.label("short", 10, "title"), "short");
        assert_eq!(budget.left(), 990);
        // A tenth of the budget is 50 bytes per copy: 25 two-byte characters.
        let cut = budget.label(&"é".repeat(100), 10, "title");
        assert_eq!(cut, format!("{}[... 150 more bytes of the title cut]", "é".repeat(25)));
        assert_eq!(budget.left(), 890);
    }

    #[test]
    fn strings_share_what_is_left() {
        let mut budget = Budget::with_copies(300, 2);
        let (xs, ys) = ("x".repeat(400), "y".repeat(400));
        let (kept, omitted) = budget.end(&xs, 200);
        assert_eq!((kept.len(), omitted), (100, 300));
        let (kept, omitted) = budget.start(&ys, usize::MAX);
        assert_eq!((kept.len(), omitted), (50, 350));
        assert_eq!(budget.left(), 0);
        assert_eq!(budget.label("z", 1, "title"), "[... 1 more bytes of the title cut]");
    }
}
