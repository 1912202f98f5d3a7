//! The padding before text aligned to the terminal's right edge (zsh's right prompt), taken out
//! of the lines a model reads: it costs as many bytes as the line's other text and says only
//! that the text after it is on the right.

use std::borrow::Cow;
use std::ops::Range;

use unicode_width::UnicodeWidthStr;

/// The fewest blanks before a line's last text, when that text ends at the terminal's right
/// edge, that are read as the padding of something aligned there (zsh's `RPROMPT`, a clock or
/// status drawn at the edge). Tables rarely end at the edge, and their gaps are shorter.
pub(crate) const MIN_PADDING: usize = 16;

/// A run of [`MIN_PADDING`] blanks.
const PADDING_RUN: &str = "                ";

/// What such padding is shown as.
pub(crate) const SHOWN_AS: &str = "  ";

/// Whether `text` has a run of blanks long enough to be padding.
pub(crate) fn may_pad(text: &str) -> bool {
    text.contains(PADDING_RUN)
}

/// The bytes of `line`'s padding before its right-aligned text, if it has some: its last run
/// of at least [`MIN_PADDING`] blanks, on a line whose text ends at the right edge of a
/// terminal `cols` wide or a column before it (zsh leaves one: `ZLE_RPROMPT_INDENT`), on its
/// last row for a line the terminal wrapped; not the blanks inside a progress bar. `line` is
/// the rest of a line whose first `before` columns are not given (read before).
fn padding(line: &str, cols: usize, before: usize) -> Option<Range<usize>> {
    let width = before + line.width();
    let at_edge = width.checked_rem(cols).is_some_and(|rest| rest == 0 || rest + 1 == cols);
    if !at_edge || width < MIN_PADDING || line.ends_with(' ') {
        return None;
    }
    let found = line.rfind(PADDING_RUN)?;
    let end = found + MIN_PADDING;
    let start = line[..found].trim_end_matches(' ').len();
    (!in_a_bar(&line[..start], &line[end..])).then_some(start..end)
}

/// Whether blanks between `before` and `after` are the part of a progress bar still to fill,
/// drawn to the terminal's width as a right prompt is (`pv`'s `[====>   ] 40%`, tqdm's
/// ` 20%|██▍   | 10/50`): `after` starts with the bar's closing delimiter, and `before` has
/// its opening one, not closed since. Shown short, such a bar would look nearly full.
fn in_a_bar(before: &str, after: &str) -> bool {
    let (open, close) = match after.chars().next() {
        Some(']') => ('[', ']'),
        Some(')') => ('(', ')'),
        Some(edge @ ('|' | '│')) => return before.matches(edge).count() % 2 == 1,
        _ => return false,
    };
    before.rfind(open) > before.rfind(close)
}

/// `text` with each line's padding before right-aligned text shown as [`SHOWN_AS`]; its first
/// line is the rest of a line whose first `first_at` columns were read before (pytest's
/// `test_a.py` before the dots and the `[ 40%]` at the edge a later read gives).
pub(crate) fn unpad(text: &str, cols: u16, first_at: usize) -> Cow<'_, str> {
    let cols = usize::from(cols);
    if !may_pad(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match padding(line, cols, if i == 0 { first_at } else { 0 }) {
            Some(pad) => {
                out.push_str(&line[..pad.start]);
                out.push_str(SHOWN_AS);
                out.push_str(&line[pad.end..]);
            }
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// A row split at the cursor (the text before it and from it on), unpadded as [`unpad`] does
/// the row whole: a cursor inside the padding stays inside what shows it.
pub(crate) fn unpad_split(before: &str, after: &str, cols: u16) -> (String, String) {
    let row = format!("{before}{after}");
    let Some(pad) = padding(&row, usize::from(cols), 0) else {
        return (before.to_owned(), after.to_owned());
    };
    let cursor = before.len();
    let unpadded = format!("{}{SHOWN_AS}{}", &row[..pad.start], &row[pad.end..]);
    let at = match cursor {
        c if c <= pad.start => c,
        c if c < pad.end => pad.start + (c - pad.start).min(SHOWN_AS.len()),
        c => c - (pad.len() - SHOWN_AS.len()),
    };
    (unpadded[..at].to_owned(), unpadded[at..].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn right_prompt(left: &str, right: &str, cols: usize) -> String {
        format!("{left}{}{right}", " ".repeat(cols - left.len() - right.len()))
    }

    /// zsh's right prompt: the padding before it is two blanks; lines that do not reach the
    /// right edge (a table's), short gaps and a line's end are left as they are.
    #[test]
    fn padding_before_text_at_the_right_edge_is_shown_short() {
        assert_eq!(PADDING_RUN.len(), MIN_PADDING);
        let prompt = right_prompt("vm# echo hello", "[0]", 80);
        let text = format!("{prompt}\nhello\n{}\n", right_prompt("vm# ls", "[0] 12:01", 80));
        assert_eq!(unpad(&text, 80, 0), "vm# echo hello  [0]\nhello\nvm# ls  [0] 12:01\n");
        let table = format!("a{}b", " ".repeat(20));
        assert_eq!(unpad(&table, 80, 0), table, "the text does not end at the edge");
        let indented = right_prompt("vm# ls", "[0]", 79);
        assert_eq!(unpad(&indented, 80, 0), "vm# ls  [0]", "zsh's column left at the edge");
        let short = right_prompt("name", "size", 23);
        assert_eq!(unpad(&short, 23, 0), short, "a gap of 15 is no padding");
        assert_eq!(unpad(&right_prompt("name", "size", 24), 24, 0), "name  size", "16 is");
        let wrapped = format!("{}{}", "x".repeat(80), right_prompt("y", "[0]", 80));
        assert_eq!(unpad(&wrapped, 80, 0), format!("{}y  [0]", "x".repeat(80)));
        assert_eq!(unpad(&right_prompt("", "12:00", 40), 40, 0), "  12:00");
        assert_eq!(unpad(&prompt, 0, 0), prompt, "no width known");
        let rest = &right_prompt("test_a.py ....", "[ 40%]", 80)["test_a.py ".len()..];
        assert_eq!(unpad(rest, 80, 10), "....  [ 40%]", "the rest of a line read in part");
        assert_eq!(unpad(rest, 80, 0), rest, "alone, it does not reach the edge");
    }

    /// The blanks of a progress bar drawn to the right edge are the part still to fill, not
    /// padding: shown short, the bar would look nearly full.
    #[test]
    fn a_progress_bars_blanks_are_no_padding() {
        for bar in [
            right_prompt(" 120MiB 0:00:02 [=====>", "] 40% ETA 0:00:03", 80),
            right_prompt(" 20%|████▍", "| 10/50 [00:00<00:02, 16.60it/s]", 80),
            right_prompt("[>", "] 0%", 79),
            right_prompt("load (##", ") 2/9", 80),
            right_prompt("│██", "│ 1/5", 80),
        ] {
            assert_eq!(unpad(&bar, 80, 0), bar);
        }
        let closed = right_prompt("vm# echo [a] x|y|", "] |1", 80);
        assert_eq!(unpad(&closed, 80, 0), "vm# echo [a] x|y|  ] |1", "no bar left open");
        let right = right_prompt("vm# ls [", "[0]", 80);
        assert_eq!(unpad(&right, 80, 0), "vm# ls [  [0]", "an opening delimiter after");
    }

    /// The cursor's row is split where the unpadded row has the cursor: before the padding,
    /// inside it (a prompt's blank then the cursor) or after it.
    #[test]
    fn the_cursors_row_splits_where_the_unpadded_row_has_the_cursor() {
        let row = right_prompt("vm# ", "[0]", 40);
        let split = |at: usize| unpad_split(&row[..at], &row[at..], 40);
        assert_eq!(split(2), ("vm".to_owned(), "#  [0]".to_owned()));
        assert_eq!(split(4), ("vm# ".to_owned(), " [0]".to_owned()));
        assert_eq!(split(20), ("vm#  ".to_owned(), "[0]".to_owned()));
        assert_eq!(split(38), ("vm#  [".to_owned(), "0]".to_owned()));
        assert_eq!(unpad_split("a ", "b", 40), ("a ".to_owned(), "b".to_owned()));
    }
}
