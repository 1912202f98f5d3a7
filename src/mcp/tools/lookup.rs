//! `terminal_read`'s look-ups, which leave the read cursor where it is: transcript lines by
//! number (`lines`), the transcript lines a regex matches (`search`), and where a text is on
//! the screen (`find`).

use serde_json::{Value, json};

use crate::Session;

use super::args::Args;
use super::budget::Budget;
use super::render::{Header, push_block, recording_word, status_json};
use super::screen_diff::{Frame, Styles};
use super::view::max_bytes;
use super::waits::Report;
use super::{Call, ToolError, ToolOutput};

/// The most of a `search` regex its result's header repeats (JSON bytes): a longer one is
/// shown by its start, `…` and its length (a `(?x)` comment can make a regex of any length
/// that costs no more to search).
pub(crate) const SHOWN_PATTERN_BYTES: usize = 100;

/// The look-up arguments; a call takes one at most.
const LOOKUPS: [&str; 6] = ["lines", "search", "find", "screen_rows", "svg", "png"];
/// Most places `find` lists.
const MAX_FOUND: usize = 20;

/// The look-up the call asks for, if any: which one, checked before anything is waited for
/// (one at most, and no `view`, which a look-up would leave unused).
pub(crate) fn asked(args: &Args) -> Result<Option<&'static str>, ToolError> {
    let given: Vec<&str> = LOOKUPS
        .into_iter()
        .filter(|name| args.str(name).is_some() || args.bool(name) == Some(true))
        .collect();
    match given.as_slice() {
        [] => Ok(None),
        [name] if args.given("view") => Err(ToolError::invalid_input(format!(
            "terminal_read: `{name}` is a look-up of its own and shows no view; leave out `view`"
        ))),
        [name] => Ok(Some(name)),
        _ => Err(ToolError::invalid_input(format!(
            "terminal_read takes one of `lines`, `search`, `find`, `screen_rows`, `svg` and `png` at a time, not {}",
            given.join(" and ")
        ))),
    }
}

/// Performs look-up `name` (from [`asked`]) for `call`; `waited` says what ended the call's
/// wait. A PNG has the largest `max_bytes` the call may have ([`Call::largest`]) unless the
/// call gives one: a picture is no text a model reads a byte at a time (a client pays for its
/// pixels), and one too large for the default would only cost a second call. (What ended the
/// wait is text: cut within the default still.)
pub(crate) fn lookup(
    session: &Session,
    args: &Args,
    name: &str,
    waited: Option<&Report>,
    call: &Call,
) -> Result<ToolOutput, ToolError> {
    let largest = call.largest;
    // The lines as `[number, text]` in the structured result too, for a client that reads
    // that one copy (the command line's `--json`): where the text is sent as well, a second
    // copy of every line would halve the lines `max_bytes` holds for a model.
    let rows_structured = call.one_copy;
    let max = max_bytes(args)?;
    if let Some(picture) = picture(session, name)? {
        let whole = match name {
            "png" if !args.given("max_bytes") => largest,
            _ => max,
        };
        let status = session.status()?;
        let recording = session.info().ok().and_then(|info| recording_word(&info));
        let said = Said { status: &status, recording, id: session.id() };
        return pictured(picture, (whole, max), waited, largest, said);
    }
    let (waited, max) = wait_within(waited, max);
    let waited = waited.as_ref();
    let value = args.str(name).unwrap_or_default();
    let (block, structured) = match name {
        "lines" => {
            let (from, to) = lines_asked(value)?;
            let found = session.transcript_lines(from..to.saturating_add(1), max)?;
            lines(session.id(), value, (from, to), found, max, rows_structured)?
        }
        "search" => {
            let regex = crate::wait::caller_regex(value)
                .map_err(|why| ToolError::invalid_input(format!("search: {why}")))?;
            let all = session.transcript_lines(0..u64::MAX, usize::MAX)?;
            // What a full-screen program shows is no transcript: the search cannot see it.
            let alternate = || session.screen().is_ok_and(|screen| screen.alternate);
            search(session.id(), value, &regex, all, max, rows_structured, alternate)
        }
        "screen_rows" => {
            let styles = super::view::styles(args);
            let (screen, runs) = match styles {
                Styles::Off => (session.screen()?, Vec::new()),
                _ => session.styled_screen().map(|styled| (styled.screen, styled.runs))?,
            };
            let frame = Frame::new(&screen, &runs, styles);
            let rows = Rows { screen: &screen, frame: &frame, styles };
            screen_rows(session.id(), value, rows, max, rows_structured)?
        }
        _ => {
            let screen = session.screen()?;
            let places = screen.find_all(value).map(|at| (at.row, at.col)).collect();
            find(session.id(), value, places)
        }
    };
    let status = session.status()?;
    let recording = session.info().ok().and_then(|info| recording_word(&info));
    let said = Said { status: &status, recording, id: session.id() };
    Ok(assembled(said, waited, |mut text| {
        push_block(&mut text, &block);
        ToolOutput::new(text, structured)
    }))
}

/// What ended the call's wait, `waited`, its strings cut within `max` bytes first (they are
/// in the header's line and the structured result: two copies), and what they leave of `max`
/// for the look-up's rows (review ig: the rows took all of `max`, and the header's line was
/// not cut at all, a wait's matched text making a result of any size).
fn wait_within(waited: Option<&Report>, max: usize) -> (Option<Report>, usize) {
    let mut budget = Budget::with_copies(max, 2);
    let waited = waited.map(|report| report.within(&mut budget));
    (waited, budget.left())
}

/// A look-up's result (a picture's too): the header (the session's status and its
/// recording's word, `said`, and what ended the wait, `waited`, as cut), which `look` turns
/// into the result, its block after the header; with, after a wait, the status and what ended
/// the wait in the structured result as a read without a look-up gives them, so that a caller
/// tells a wait that held from one that timed out, was cut short by a question or by the
/// program's exit.
fn assembled(
    said: Said,
    waited: Option<&Report>,
    look: impl FnOnce(String) -> ToolOutput,
) -> ToolOutput {
    let status = said.status;
    let mut output = look(header(said, waited));
    if let Some(report) = waited {
        output.structured["status"] = status_json(status);
        output.structured["wait"] = report.json();
    }
    output
}

/// A screen's picture a look-up gives: an SVG drawing, sent as text, or a PNG image, sent
/// beside a one-line text.
enum Picture {
    /// `svg=true`'s drawing.
    Svg(String),
    /// `png=true`'s image.
    Png(Vec<u8>),
}

impl Picture {
    /// The look-up's result: `header` (the session's status), then the picture (or, for a
    /// PNG, a line that tells it), for session `id`.
    fn output(self, mut text: String, id: crate::SessionId) -> ToolOutput {
        match self {
            Picture::Svg(image) => {
                push_block(&mut text, &image);
                ToolOutput::new(text, json!({ "session_id": id.0, "svg_bytes": image.len() }))
            }
            Picture::Png(image) => {
                let line = format!("[a PNG picture of the screen, {} bytes]", image.len());
                push_block(&mut text, &line);
                let structured = json!({ "session_id": id.0, "png_bytes": image.len() });
                let mut output = ToolOutput::new(text, structured);
                output.image = Some(image);
                output
            }
        }
    }
}

/// The picture look-up `name` asks for of `session`'s screen, if it is one.
fn picture(session: &Session, name: &str) -> Result<Option<Picture>, ToolError> {
    Ok(match name {
        "svg" => Some(Picture::Svg(session.styled_screen()?.to_svg(&crate::SvgOptions::default()))),
        "png" => {
            let image = session.styled_screen()?.to_png(&crate::PngOptions::default())?;
            Some(Picture::Png(image))
        }
        _ => None,
    })
}

/// A look-up's header: the session's status and its recording's word, `said`, and what ended
/// the wait, `waited`, as cut.
fn header(Said { status, recording, .. }: Said, waited: Option<&Report>) -> String {
    let wait = waited.and_then(|w| w.line(Some(&status.activity)));
    Header { started: None, status, at: None, wait: wait.as_deref(), recording }.render()
}

/// What a look-up's header says of session `id`: its `status` and its `recording`'s word.
struct Said<'a> {
    status: &'a crate::Status,
    recording: Option<&'a str>,
    id: crate::SessionId,
}

/// A picture look-up's result within `whole` bytes (the call's `max_bytes`, or for a PNG the
/// call gave none, `largest`, the most a call may ask): what ended the call's wait, `waited`,
/// cut first as [`wait_within`] cuts it within `max` (the call's `max_bytes`, or the default:
/// review xp, the wait's line took up to half of `largest` when the call gave none), and the
/// `picture` whole within what that leaves of `whole`, or refused; after the header (the
/// session's status, `said`, and the wait's line, as the other look-ups' headers say it: it
/// was in the structured result alone). (Review xi: the picture had all of `max_bytes`, the
/// wait's strings on top.) A picture refused after a wait says that header before why (review
/// xp: the caller could not tell whether the wait had matched).
fn pictured(
    picture: Picture,
    (whole, max): (usize, usize),
    waited: Option<&Report>,
    largest: usize,
    said: Said,
) -> Result<ToolOutput, ToolError> {
    let max = max.min(whole);
    let (waited, wait_left) = wait_within(waited, max);
    let left = whole - (max - wait_left);
    let checked = match picture {
        Picture::Svg(image) => svg(image, (whole, left)),
        Picture::Png(image) => png(image, (whole, left), largest),
    };
    let picture = match checked {
        Ok(picture) => picture,
        Err(refused) if waited.is_some() => {
            let message = format!("{}\n{}", header(said, waited.as_ref()), refused.message);
            return Err(ToolError { message, ..refused });
        }
        Err(refused) => return Err(refused),
    };
    let id = said.id;
    Ok(assembled(said, waited.as_ref(), |header| picture.output(header, id)))
}

/// What a refused picture's message says of its bound: `max_bytes`, or what it left beside
/// what ended the call's wait. `(whole, max)`: the call's `max_bytes`, what the picture may
/// take of it.
fn picture_bound((whole, max): (usize, usize)) -> String {
    match whole == max {
        true => format!("max_bytes {max}"),
        false => format!("the {max} bytes max_bytes {whole} leaves beside what ended the wait"),
    }
}

/// `svg=true`: the screen drawn as SVG, `image`, whole or not at all (a cut image is no
/// image), within `max` JSON bytes (its quotes escaped) of the call's `max_bytes`, `whole`.
fn svg(image: String, (whole, max): (usize, usize)) -> Result<Picture, ToolError> {
    let size = super::budget::json_len(&image);
    if size > max {
        return Err(ToolError::invalid_input(format!(
            "the screen's SVG is {size} bytes in JSON, over {}; raise max_bytes (up to {}) or read the screen as text",
            picture_bound((whole, max)),
            super::view::MAX_BYTES_RANGE.1
        ))
        .code("too_large"));
    }
    Ok(Picture::Svg(image))
}

/// `png=true`: the screen as a PNG image, `image`, beside a one-line text, whole or not at
/// all; its base64 form is what counts against `max` of the call's `max_bytes`, `whole`
/// (`largest`: the most a call may ask).
fn png(image: Vec<u8>, (whole, max): (usize, usize), largest: usize) -> Result<Picture, ToolError> {
    let encoded = image.len().div_ceil(3) * 4;
    if encoded > max {
        let raise = match whole < largest && encoded + (whole - max) <= largest {
            true => format!("raise max_bytes (up to {largest}) or "),
            false => String::new(),
        };
        return Err(ToolError::invalid_input(format!(
            "the screen's PNG is {encoded} bytes in base64, over {}; {raise}read the screen as text",
            picture_bound((whole, max))
        ))
        .code("too_large"));
    }
    Ok(Picture::Png(image))
}

/// Numbered lines, one per row (`120│text`), as many whole rows as `max` bytes of JSON hold,
/// from the first (or, `from_end`, from the last) on; with the rows kept, each as
/// `[number, text]` for the structured result (whose `lines` give a program what the text
/// gives a reader). When not even one row fits, the first (or last) is kept cut, its number
/// and start shown.
fn numbered(lines: &[(u64, String)], max: usize, from_end: bool) -> (String, Vec<Value>) {
    let order: Vec<&(u64, String)> = match from_end {
        true => lines.iter().rev().collect(),
        false => lines.iter().collect(),
    };
    let mut kept: Vec<(String, Value)> = Vec::new();
    let mut size = 0;
    for (n, line) in order {
        let row = format!("{n}│{line}");
        let cost = row_json_len(&row);
        if size + cost > max {
            if kept.is_empty() {
                let cut = super::budget::start_within(&row, max.saturating_sub(CUT_NOTE));
                let left = row.len() - cut;
                let note = format!(" [... {left} more bytes of this line cut]");
                let start = row[..cut].split_once('│').map_or("", |(_, text)| text);
                kept.push((format!("{}{note}", &row[..cut]), json!([n, format!("{start}{note}")])));
            }
            break;
        }
        size += cost;
        kept.push((row, json!([n, line])));
    }
    if from_end {
        kept.reverse();
    }
    let (rows, structured): (Vec<String>, Vec<Value>) = kept.into_iter().unzip();
    (rows.join("\n"), structured)
}

/// `structured` with the rows a look-up kept as its `lines`, when `wanted`.
fn with_rows(mut structured: Value, rows: Vec<Value>, wanted: bool) -> Value {
    if wanted {
        structured["lines"] = Value::Array(rows);
    }
    structured
}

/// The bytes a cut line's note takes, at most.
const CUT_NOTE: usize = 48;

/// What a numbered row takes in a result's JSON, its line break included.
fn row_json_len(row: &str) -> usize {
    super::budget::json_len(row) + 2
}

/// The first and last line `lines="A-B"` (or `"A-"`, to the end, or `"A"`, that line alone)
/// asks for.
fn lines_asked(range: &str) -> Result<(u64, u64), ToolError> {
    let form = "\"FIRST-LAST\" (line numbers, as shown by search or scrollback), \"FIRST-\" to the end or one line's \"N\", e.g. \"120-160\"";
    // To the end: a line past the last there can be.
    let (from, to) = numbers(("lines", "line"), range, form)?;
    Ok((from, to.unwrap_or(from.max(u64::MAX - 1))))
}

/// `lines="A-B"` of session `id` (`from`-`to`, as [`lines_asked`] read them), `found`: as many
/// as `max` bytes hold; the rows in the structured result too when `rows_structured`.
fn lines(
    id: crate::SessionId,
    range: &str,
    (from, to): (u64, u64),
    found: crate::TranscriptLines,
    max: usize,
    rows_structured: bool,
) -> Result<(String, serde_json::Value), ToolError> {
    // The lines asked for, as a message repeats them: `line 7` for "7-7".
    let asked = if from == to { format!("line {from}") } else { format!("lines {range}") };
    if found.lines.is_empty() {
        // (No line to ask within: the lines not settled yet are the screen's.)
        if found.end == 0 {
            return Err(ToolError::invalid_input(format!(
                "{asked}: the transcript has no settled line yet; the screen shows what there is (view=\"screen\")"
            )));
        }
        let why = transcript_holds(found.first, found.end);
        return Err(ToolError::invalid_input(format!("{asked}: {why}")));
    }
    let first = found.lines[0].0;
    let (rows, kept) = numbered(&found.lines, max, false);
    let count = kept.len();
    let last = &found.lines[count - 1].0;
    let more = (*last + 1 < to.saturating_add(1).min(found.end)).then(|| {
        format!("\n[... lines {}-{} left out by max_bytes]", last + 1, to.min(found.end - 1))
    });
    let block = format!(
        "--- transcript lines {first}-{last} (it holds {}-{}) ---\n{}{}",
        found.first,
        found.end.saturating_sub(1),
        rows,
        more.unwrap_or_default()
    );
    let structured = json!({"session_id": id.0, "first_line": first, "last_line": last});
    Ok((block, with_rows(structured, kept, rows_structured)))
}

/// The first and last number of `range`, `"A-B"`, `"A-"` (no last: to the end) or `"A"` (that
/// one alone), as look-up `name` takes its `what`s; a range that is none is refused, saying
/// the `form` one takes.
fn numbers(
    (name, what): (&str, &str),
    range: &str,
    form: &str,
) -> Result<(u64, Option<u64>), ToolError> {
    let bad = || {
        let got = super::args::quoted(range);
        ToolError::invalid_input(format!("{name} must be {form}; got {got}"))
    };
    let (from, to) = range.split_once('-').unwrap_or((range, range));
    let from: u64 = from.trim().parse().map_err(|_| bad())?;
    let to = match to.trim() {
        "" => None,
        to => Some(to.parse().map_err(|_| bad())?),
    };
    if to.is_some_and(|to| to < from) {
        return Err(ToolError::invalid_input(format!(
            "{name} {range:?} ends before it begins: give the first {what}, then the last"
        )));
    }
    Ok((from, to))
}

/// A screen as `screen_rows` reads it: the screen, its frame and the styles it marks.
struct Rows<'a> {
    screen: &'a crate::Screen,
    frame: &'a Frame,
    styles: Styles,
}

/// `screen_rows="A-B"` (or `"A-"`, to the last row with text, or `"A"`, that row alone) of
/// session `id`: the screen's rows as a look at the screen shows them (`styles` marked, the
/// cursor too), numbered (`12│text`), as many as `max` bytes hold, and how to read those left
/// out; the rows in the structured result too (as `lines`) when `rows_structured`. For a
/// screen larger than one result may be: a look at it says from which row to read on.
fn screen_rows(
    id: crate::SessionId,
    range: &str,
    Rows { screen, frame, styles }: Rows,
    max: usize,
    rows_structured: bool,
) -> Result<(String, serde_json::Value), ToolError> {
    let form = "\"FIRST-LAST\" (row numbers, from 0 at the top), \"FIRST-\" to the last row with text or one row's \"N\", e.g. \"20-39\"";
    let (from, to) = numbers(("screen_rows", "row"), range, form)?;
    let rows = screen.lines.len() as u64;
    if from >= rows {
        return Err(ToolError::invalid_input(format!(
            "screen_rows {range:?}: the screen has rows 0-{}",
            rows.saturating_sub(1)
        )));
    }
    let last = match to {
        Some(to) => to.min(rows - 1),
        // (As a whole look ends: at the last row with text, or the cursor's where its mark
        // is drawn; not many blank rows down at a cursor parked in a corner, `watch`'s.)
        None => (frame.shown_rows() as u64).saturating_sub(1).max(from),
    };
    let lines: Vec<(u64, String)> =
        (from..=last).map(|row| (row, frame.rows_text(row as usize..row as usize + 1))).collect();
    let (text, kept) = numbered(&lines, max, false);
    let shown = from + kept.len() as u64 - 1;
    let more = match shown < last {
        true => format!(
            "\n[... rows {}-{last} left out by max_bytes; read them with screen_rows=\"{}-{last}\"{}]",
            shown + 1,
            shown + 1,
            styles.argument()
        ),
        false => String::new(),
    };
    let block = format!(
        "--- screen rows {from}-{shown} of {}x{} ---\n{text}{more}",
        screen.cols, screen.rows
    );
    let structured = json!({"session_id": id.0, "first_row": from, "last_row": shown});
    Ok((block, with_rows(structured, kept, rows_structured)))
}

/// `search=REGEX` (`pattern`, as `regex`) in session `id`'s transcript, `all` its retained
/// lines: those it matches, the latest kept within `max`; the rows in the structured result
/// too when `rows_structured`. `alternate` says whether the program is on the alternate
/// screen (asked only when nothing matched).
fn search(
    id: crate::SessionId,
    pattern: &str,
    regex: &regex::Regex,
    all: crate::TranscriptLines,
    max: usize,
    rows_structured: bool,
    alternate: impl FnOnce() -> bool,
) -> (String, serde_json::Value) {
    let matching: Vec<(u64, String)> =
        all.lines.into_iter().filter(|(_, line)| regex.is_match(line)).collect();
    let total = matching.len();
    let (kept, kept_rows) = numbered(&matching, max, true);
    let kept_lines = kept_rows.len();
    let omitted: usize = matching[..total - kept_lines]
        .iter()
        .map(|(n, line)| row_json_len(&format!("{n}│{line}")))
        .sum();
    let mut block = format!(
        "--- {total} transcript line{} of {}-{} match /{}/ ---",
        if total == 1 { "" } else { "s" },
        all.first,
        all.end.saturating_sub(1),
        shown_pattern(pattern)
    );
    if omitted > 0 {
        let left = total - kept_lines;
        let numbers = match (matching.first(), matching.get(left.saturating_sub(1))) {
            (Some((first, _)), Some((last, _))) if first != last => format!("lines {first}-{last}"),
            (Some((first, _)), _) => format!("line {first}"),
            _ => String::new(),
        };
        // What shows them all: this bound and what they take, a sixteenth more for the
        // block's framing (a bound past the largest cannot be asked for).
        let enough = max.saturating_add(omitted);
        let enough = enough.saturating_add(enough / 16);
        let next = match enough <= super::view::MAX_BYTES_RANGE.1 as usize {
            true => format!("max_bytes={enough} shows them all, or narrow the regex"),
            false => "narrow the regex".to_owned(),
        };
        block.push_str(&format!(
            "\n[... the {left} earlier matches ({numbers}) left out by max_bytes; {next}]"
        ));
    }
    if !kept.is_empty() {
        block.push('\n');
        block.push_str(&kept);
    }
    if total == 0 && alternate() {
        block.push_str(
            "\n[the program is on the alternate screen, whose text is no transcript: look for text on the screen with find=\"...\" or read it with view=\"screen\"]",
        );
    }
    let structured = json!({"session_id": id.0, "matches": total});
    (block, with_rows(structured, kept_rows, rows_structured))
}

/// `pattern` as a search's header repeats it: whole, or its start within
/// [`SHOWN_PATTERN_BYTES`] of JSON, `…` and its length.
fn shown_pattern(pattern: &str) -> String {
    let end = super::budget::start_within(pattern, SHOWN_PATTERN_BYTES);
    match end == pattern.len() {
        true => pattern.to_owned(),
        false => format!("{}… ({} bytes)", &pattern[..end], pattern.len()),
    }
}

/// `find=TEXT` in session `id`: where it is on the screen, `places` (row and column each), the
/// first [`MAX_FOUND`] listed. (`needle` is not empty: the arguments' check refuses empty
/// strings.)
fn find(id: crate::SessionId, needle: &str, places: Vec<(u16, u16)>) -> (String, Value) {
    let listed: Vec<String> =
        places.iter().take(MAX_FOUND).map(|(row, col)| format!("row {row} col {col}")).collect();
    // (What was looked for is shown by its start when long: it was the caller's own.)
    let shown = super::args::quoted(needle);
    let block = match places.len() {
        0 => format!("{shown} is not on the screen"),
        n if n > MAX_FOUND => format!(
            "{shown} is on the screen {n} times; the first {MAX_FOUND}: {}",
            listed.join(", ")
        ),
        _ => format!("{shown} is on the screen at {}", listed.join(", ")),
    };
    // (The structured result lists the places the text lists, with their count: every place
    // of a one-letter text on a large screen was tens of thousands, past any `max_bytes`.)
    let listed: Vec<[u16; 2]> =
        places.iter().take(MAX_FOUND).map(|&(row, col)| [row, col]).collect();
    (block, json!({"session_id": id.0, "found": listed, "count": places.len()}))
}

/// What a transcript that holds lines `first..end` (`end` > 0) holds, and what to ask for:
/// one line is `line 5`, asked for, not within.
fn transcript_holds(first: u64, end: u64) -> String {
    let (held, ask) = match end.saturating_sub(first) {
        0 => return "the transcript holds no line (those before were dropped by its bound); ask within them".to_owned(),
        1 => (format!("line {first}"), "ask for it"),
        _ => (format!("lines {first}-{}", end - 1), "ask within them"),
    };
    let dropped = if first > 0 { " (older ones were dropped by its bound)" } else { "" };
    format!("the transcript holds {held}{dropped}; {ask}")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::budget::worst;
    use super::*;
    use crate::mcp::MAX_BYTES_OVERHEAD;
    use crate::{Cursor, Modes, Screen, SessionId, TranscriptLines};

    /// `find`'s structured places are those its text lists, the first `MAX_FOUND`, with how
    /// many there are in all (review xm: nothing held them to the text's).
    #[test]
    fn finds_places_are_those_its_text_lists_with_their_count() {
        let places: Vec<(u16, u16)> = (0..30).map(|n| (n, 2 * n)).collect();
        let (text, structured) = find(SessionId(1), "ab", places);
        assert_eq!(structured["count"], 30, "{structured}");
        let listed = structured["found"].as_array().unwrap();
        assert_eq!(listed.len(), MAX_FOUND, "{structured}");
        for place in listed {
            let shown = format!("row {} col {}", place[0], place[1]);
            assert!(text.contains(&shown), "{shown} not in {text}");
        }
        assert!(text.contains(&format!("30 times; the first {MAX_FOUND}:")), "{text}");
        let (text, structured) = find(SessionId(1), "ab", vec![(3, 4)]);
        assert_eq!(
            (structured["count"].clone(), text.as_str()),
            (json!(1), "\"ab\" is on the screen at row 3 col 4")
        );
    }

    /// A wait that ended: the longest condition and matched text, or a timeout.
    fn waits() -> [Option<Report>; 3] {
        let report = |outcome, matched_text| Report {
            condition: worst::string(500),
            outcome,
            matched_text,
            elapsed: Duration::from_secs(u64::MAX / 4),
            implicit: false,
            shell_prompt: false,
            runs_job: false,
            settled_by: None,
            printed_before: Some(u64::MAX),
            typed_line: true,
            screen: None,
            echo_at: None,
            refused: None,
            marks_copied: false,
        };
        [None, Some(report("matched", Some(worst::string(3000)))), Some(report("timeout", None))]
    }

    /// Lines as long as a test affords, escaped as JSON escapes most, wide characters, and
    /// short ones, numbered up to the largest numbers.
    fn worst_lines(count: u64) -> Vec<(u64, String)> {
        let long = format!("{}漢字", "\u{1}\"\\é漢".repeat(200));
        let short = "\u{1}漢".to_owned();
        (0..count)
            .map(|n| (u64::MAX - count + n, if n % 3 == 0 { short.clone() } else { long.clone() }))
            .collect()
    }

    /// The budgets a sweep tries under wait `at` of [`waits`]: under the matched wait, whose
    /// strings take the most, every third from 256 to 2,047 and the samples; under the others,
    /// the samples alone (the sweep was 13 s in a debug build, review xi).
    fn budgets(at: usize) -> Vec<usize> {
        let sweep = (256..2048).step_by(3).filter(move |_| at == 1);
        sweep.chain(worst::MAX_BYTES).collect()
    }

    /// Each look-up's whole result at every third `max_bytes` from 256 to 2,047, in one copy
    /// (rows in the structured result too) and two, stays within the bound, as a client gets
    /// it (control characters shown): the longest lines, many matches, wide characters, a
    /// pattern as long as allowed, the longest status, a wait's longest line and every note
    /// (rows left out, no match on the alternate screen); `find` with a place in every cell;
    /// the largest SVG (quotes escaped) and PNG each budget takes (review xi: a picture had
    /// all of `max_bytes` beside the wait's strings).
    #[test]
    fn every_lookup_at_every_budget_stays_within_max_bytes_and_the_overhead() {
        let status = worst::status();
        let id = SessionId(u64::MAX);
        let recording = Some("recording not at its path");
        let matching = worst_lines(60);
        let pattern = format!("(?x)漢 #{}", "\u{1}\"é漢\u{7f}".repeat(20_000));
        let regex = crate::wait::caller_regex(&pattern).unwrap();
        let all = TranscriptLines { first: 0, end: u64::MAX, lines: matching.clone() };
        let none = TranscriptLines { first: 0, end: u64::MAX, lines: vec![(7, "x".into())] };
        // (Twenty rows, not a hundred: the rows past any budget tried add nothing.)
        let mut screen = Screen {
            cols: u16::MAX,
            rows: 20,
            lines: (0..20).map(|_| worst_lines(1)[0].1.clone()).collect(),
            cursor: Cursor { row: 19, col: 999, visible: true },
            alternate: true,
            title: String::new(),
            modes: Modes::default(),
            wrapped: Vec::new(),
            wide_spacer_ends: Vec::new(),
            frames: false,
        };
        screen.lines[0] = "漢".repeat(30);
        let styled = [Styles::Off, Styles::All];
        let frames = styled.map(|styles| (Frame::new(&screen, &[], styles), styles));
        let places: Vec<(u16, u16)> =
            (0..1000).flat_map(|r| (0..100).map(move |c| (r, c))).collect();
        let needle = worst::string(100);
        for (at, wait) in waits().into_iter().enumerate() {
            for copies in [1, 2] {
                for max in budgets(at) {
                    let (waited, rows_max) = wait_within(wait.as_ref(), max);
                    let one = copies == 1;
                    let found =
                        TranscriptLines { first: 0, end: u64::MAX, lines: matching.clone() };
                    let range = (u64::MAX - 60, u64::MAX - 1);
                    let blocks = [
                        search(id, &pattern, &regex, all.clone(), rows_max, one, || true),
                        search(id, &pattern, &regex, none.clone(), rows_max, one, || true),
                        lines(id, "18446744073709551555-", range, found, rows_max, one).unwrap(),
                        find(id, &needle, places.clone()),
                    ];
                    let rows = frames.iter().map(|(frame, styles)| {
                        let rows = Rows { screen: &screen, frame, styles: *styles };
                        screen_rows(id, "0-", rows, rows_max, one).unwrap()
                    });
                    let looked = blocks.into_iter().chain(rows).map(|(block, structured)| {
                        let said = Said { status: &status, recording, id };
                        assembled(said, waited.as_ref(), |mut text| {
                            push_block(&mut text, &block);
                            ToolOutput::new(text, structured)
                        })
                    });
                    // The largest picture each check lets through: quotes escaped, or not,
                    // sized to what the wait leaves or to the whole budget.
                    let svgs = [rows_max / 2, max / 2, rows_max, max]
                        .map(|n| Picture::Svg("\"".repeat(n)));
                    let pngs = [rows_max, max].map(|n| Picture::Png(vec![0; n / 4 * 3]));
                    let pictures = svgs.into_iter().chain(pngs).filter_map(|picture| {
                        let said = Said { status: &status, recording, id };
                        pictured(picture, (max, max), wait.as_ref(), max, said).ok()
                    });
                    for (look, output) in looked.chain(pictures).enumerate() {
                        let size = worst::size(&output, copies);
                        let outcome = wait.as_ref().map(|w| w.outcome);
                        let case = format!("look-up {look} {outcome:?} {max} {copies}: {size}");
                        assert!(size <= max + MAX_BYTES_OVERHEAD, "{case}");
                    }
                }
            }
        }
    }

    /// One line held is said as one, and asked for: it was "holds line 0; ask within them",
    /// and "holds lines 5-5" when older ones were dropped.
    #[test]
    fn a_transcript_of_one_line_is_said_as_one() {
        assert_eq!(transcript_holds(0, 1), "the transcript holds line 0; ask for it");
        assert_eq!(
            transcript_holds(5, 6),
            "the transcript holds line 5 (older ones were dropped by its bound); ask for it"
        );
        assert_eq!(transcript_holds(0, 3), "the transcript holds lines 0-2; ask within them");
        assert!(transcript_holds(6, 6).starts_with("the transcript holds no line"));
    }

    /// A long regex is shown by its start within its bound of JSON, escapes counted.
    #[test]
    fn a_long_pattern_is_shown_by_its_start() {
        assert_eq!(shown_pattern("hel+o"), "hel+o");
        let long = format!("(?x)hello #{}", "\"".repeat(1000));
        let shown = shown_pattern(&long);
        assert!(shown.ends_with("… (1011 bytes)"), "{shown}");
        assert!(super::super::budget::json_len(&shown) <= SHOWN_PATTERN_BYTES + 20, "{shown}");
    }
}
