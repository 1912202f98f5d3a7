//! The note a toolbox offering some tools only ([`Toolbox::only`]) ends a result or a tool's
//! description with when its advice names a tool it left out: `[not offered here:
//! terminal_read]`, so that a model is not sent to a tool it cannot call.
//!
//! Advice is termloom's own words: a tool's name in the program's output or screen, or in a
//! quoted value (the model's own, as an error repeats it: `no session is named
//! "terminal_send"`; a screen's title or the row a program waits at), is no advice.
//!
//! [`Toolbox::only`]: crate::tools::Toolbox::only

use serde_json::Value;

use super::budget::json_len;
use super::catalog;

/// The most bytes the note adds to a result's text as a JSON string holds it (its line and
/// the line feed before it, `\n`, two bytes there): part of
/// [`MAX_BYTES_OVERHEAD`](crate::mcp::MAX_BYTES_OVERHEAD), so that a result stays within
/// `max_bytes` plus that with it (the layouts' worst cases are tried with it).
pub(crate) const UNOFFERED_NOTE_MAX: usize = 64;

/// The line said instead of the names when they would not fit [`UNOFFERED_NOTE_MAX`].
const SOME_TOOLS: &str = "[not offered here: some tools named above]";

/// The tools not in `enabled` that termloom's own words in `text` name (see [`advice`]), in
/// the catalog's order. `structured` is the result's, whose `output` and `screen.text` are
/// the program's parts of `text`.
fn unoffered(enabled: &[&'static str], text: &str, structured: &Value) -> Vec<&'static str> {
    let words = advice(text, structured);
    let named = |name: &&str| !enabled.contains(name) && names(&words, name);
    catalog::NAMES.iter().copied().filter(named).collect()
}

/// The note for a result whose text is `text` (and structured content `structured`, `Null`
/// for an error), with the line feed before it: within [`UNOFFERED_NOTE_MAX`] as a JSON
/// string holds it, the tools' names or, when those are longer, a line saying some are not
/// offered. `None` when its advice names no tool left out.
pub(crate) fn result_note(
    enabled: &[&'static str],
    text: &str,
    structured: &Value,
) -> Option<String> {
    let missing = unoffered(enabled, text, structured);
    if missing.is_empty() {
        return None;
    }
    let note = format!("\n[not offered here: {}]", missing.join(", "));
    Some(match json_len(&note) <= UNOFFERED_NOTE_MAX {
        true => note,
        false => format!("\n{SOME_TOOLS}"),
    })
}

/// The note for a tool's description (no budget bounds it: it names every tool left out that
/// the description advises), with the blank line before it.
pub(crate) fn description_note(enabled: &[&'static str], description: &str) -> Option<String> {
    let missing = unoffered(enabled, description, &Value::Null);
    (!missing.is_empty()).then(|| format!("\n\n[not offered here: {}]", missing.join(", ")))
}

/// termloom's own words in a result's `text`: the program's parts (see [`own_and_programs`])
/// and quoted values (`"..."`, a string as Rust's `{:?}` writes it) left out, each as a space.
fn advice(text: &str, structured: &Value) -> String {
    let mut words = String::with_capacity(text.len());
    for (piece, programs) in own_and_programs(text, structured) {
        match programs {
            true => words.push(' '),
            false => unquoted(piece, &mut words),
        }
    }
    words
}

/// `text` pushed onto `out` with each quoted value, from a `"` to the next `"` not escaped
/// with a backslash, as a space. A `"` that no other closes is kept, and what follows it.
fn unquoted(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 1..];
        let mut escaped = false;
        let close = inside.char_indices().find_map(|(at, c)| {
            let ends = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            ends.then_some(at)
        });
        match close {
            Some(close) => {
                out.push(' ');
                rest = &inside[close + 1..];
            }
            None => {
                out.push('"');
                rest = inside;
            }
        }
    }
    out.push_str(rest);
}

/// Whether `text` names the tool `name` as a word of its own (`terminal_read`, not a part of
/// a longer name).
fn names(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// A result's text cut into termloom's own parts (`false`) and the program's (`true`): its
/// output and its screen (`structured`'s `output` and `screen.text`), found where a line
/// starts (the output first, the screen last), so that a program's line that looks like
/// termloom's words (a note in brackets, a tool's name) is never taken for them. The pieces,
/// in order, make up `text`.
pub fn own_and_programs<'t>(text: &'t str, structured: &Value) -> Vec<(&'t str, bool)> {
    let at_line_start = |at: &usize| *at == 0 || text.as_bytes()[at - 1] == b'\n';
    let found = |part: &Value, last: bool| {
        let part = part.as_str().filter(|part| !part.is_empty())?;
        let mut starts = text.match_indices(part).map(|(at, _)| at).filter(at_line_start);
        let at = if last { starts.last() } else { starts.next() }?;
        Some(at..at + part.len())
    };
    let mut ranges: Vec<_> =
        [found(&structured["output"], false), found(&structured["screen"]["text"], true)]
            .into_iter()
            .flatten()
            .collect();
    ranges.sort_by_key(|range| range.start);
    let mut pieces = Vec::new();
    let mut at = 0;
    for range in ranges {
        if range.start < at {
            continue;
        }
        pieces.push((&text[at..range.start], false));
        pieces.push((&text[range.clone()], true));
        at = range.end;
    }
    pieces.push((&text[at..], false));
    pieces
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const RUN_AND_CLOSE: &[&str] = &["terminal_run", "terminal_close"];

    /// The line said when the names are too long fits the bound, as the names do when they
    /// fit it; a description names every tool left out, however many.
    #[test]
    fn the_note_stays_within_its_bound() {
        assert!(json_len(&format!("\n{SOME_TOOLS}")) <= UNOFFERED_NOTE_MAX);
        let every = catalog::NAMES.join(" and ");
        let note = result_note(&["terminal_list"], &every, &Value::Null).unwrap();
        assert_eq!(note, format!("\n{SOME_TOOLS}"));
        let two = "terminal_send or terminal_read";
        let note = result_note(RUN_AND_CLOSE, two, &Value::Null).unwrap();
        assert_eq!(note, "\n[not offered here: terminal_send, terminal_read]");
        let note = description_note(&["terminal_list"], &every).unwrap();
        assert!(note.len() > UNOFFERED_NOTE_MAX && !note.contains("some tools"), "{note}");
    }

    /// A name in a value the model gave, which an error quotes, or in the program's output
    /// is not advice; advice beside them is.
    #[test]
    fn quoted_values_and_the_programs_output_are_no_advice() {
        let error =
            "no session is named \"terminal_send\"; the sessions are 1 \"x\\\"terminal_read\"";
        assert_eq!(result_note(RUN_AND_CLOSE, error, &Value::Null), None);
        let error = "no session is named \"terminal_send\"; start one with terminal_start";
        let note = result_note(RUN_AND_CLOSE, error, &Value::Null);
        assert_eq!(note.as_deref(), Some("\n[not offered here: terminal_start]"));
        // A quote no other closes hides nothing.
        let stray = "5\" wide; interrupt it with terminal_send";
        assert!(result_note(RUN_AND_CLOSE, stray, &Value::Null).is_some());
        let text = "[sh running]\nterminal_send\n[still running: terminal_read it]";
        let structured = json!({"output": "terminal_send\n"});
        let note = result_note(RUN_AND_CLOSE, text, &structured);
        assert_eq!(note.as_deref(), Some("\n[not offered here: terminal_read]"));
    }

    /// A program's lines that look like termloom's notes are its own.
    #[test]
    fn a_programs_output_and_screen_are_told_from_termlooms_words() {
        let output = "[text=hello keys=abc]\nterminal_read with view=\n";
        let screen = "$ x\n[lines=10 submit=true]";
        let text = format!(
            "[cat running at \"[text=hello keys=abc]\"]\n[note: call terminal_read]\n{output}--- screen 80x24 ---\n{screen}\n[... call terminal_read]"
        );
        let structured = json!({"output": output, "screen": {"text": screen}});
        let pieces = own_and_programs(&text, &structured);
        let programs: Vec<&str> =
            pieces.iter().filter(|(_, programs)| *programs).map(|(piece, _)| *piece).collect();
        assert_eq!(programs, [output, screen]);
        assert_eq!(pieces.iter().map(|(piece, _)| *piece).collect::<String>(), text);
        let run = "[x]\n[exit code 0 · 0.00 s]";
        let pieces = own_and_programs(run, &json!({"output": "[x]\n"}));
        assert_eq!(pieces, [("", false), ("[x]\n", true), ("[exit code 0 · 0.00 s]", false)]);
    }
}
