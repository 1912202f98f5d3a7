//! Whether a grid row shows a line editor's suggestion from its history after the cursor, as
//! prompt_toolkit (ptpython, IPython, litecli) and fish draw one: the rest of a line typed
//! before, in a dim or grey style (prompt_toolkit's `38;5;241`, fish's bright black), unlike
//! the text typed before the cursor. A program's own text after its cursor (a spinner's glyph
//! drawn with a backspace after it, a line edited in its middle) is drawn as the text before
//! it, and is no suggestion. Nor is grey text after the cursor where the text before it does
//! not end with what was typed last (a spinner drawn grey or faint, a key pressed to start
//! it): a suggestion follows the keys typed, echoed.

use alacritty_terminal::grid::Row;
use alacritty_terminal::index::Column;
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};

/// The most characters of the typed text kept to compare with the text before the cursor.
const TYPED_CHARS: usize = 32;

/// The fewest characters other than blanks the typed text holds for a suggestion to follow
/// it: a single key a program echoes (`y` at `[y/n]`), or a blank that any label ending in
/// one matches, is no line being typed.
const TYPED_MIN: usize = 2;

/// The most bytes of an input's end looked at for its typed text (a paste may be megabytes):
/// [`TYPED_CHARS`] characters of four bytes at most.
const TYPED_WINDOW: usize = 4 * TYPED_CHARS;

/// The text the input `bytes` typed last, as a line editor echoes it: the printable
/// characters after its last control character, at most [`TYPED_CHARS`] of them, read from
/// the input's last [`TYPED_WINDOW`] bytes alone (an Escape further back is not seen); empty
/// when its last control character there is an
/// Escape (a key code, `ESC [ A`, or a paste's end: text typed after one is not kept, so a
/// suggestion after it is waited for as any timer is), or when the input ends with a control
/// character (Enter, Tab), whose echo is no such text.
pub(crate) fn typed_text(bytes: &[u8]) -> String {
    let mut start = bytes.len().saturating_sub(TYPED_WINDOW);
    // (From a character's first byte: a UTF-8 continuation byte is `10xxxxxx`.)
    while bytes.get(start).is_some_and(|byte| byte & 0xc0 == 0x80) {
        start += 1;
    }
    let text = String::from_utf8_lossy(&bytes[start..]);
    let rest = match text.char_indices().rev().find(|(_, c)| c.is_control()) {
        Some((_, '\x1b')) => return String::new(),
        Some((at, control)) => &text[at + control.len_utf8()..],
        None => &text[..],
    };
    let skip = rest.chars().count().saturating_sub(TYPED_CHARS);
    rest.chars().skip(skip).collect()
}

/// Whether the text of `row` before column `col` ends with `typed` (see [`typed_text`]), or,
/// where the row holds fewer characters there (the typed text wrapped onto it), is the end of
/// it: the keys typed last were echoed right before the cursor. Typed text of fewer than
/// [`TYPED_MIN`] characters other than blanks follows nothing.
pub(crate) fn follows_typed(row: &Row<Cell>, col: usize, typed: &str) -> bool {
    if typed.chars().filter(|c| !c.is_whitespace()).count() < TYPED_MIN {
        return false;
    }
    let before: Vec<char> = (0..col.min(row.len()))
        .map(|at| &row[Column(at)])
        .filter(|cell| !cell.flags.contains(Flags::WIDE_CHAR_SPACER))
        .map(|cell| cell.c)
        .collect();
    let typed: Vec<char> = typed.chars().collect();
    let n = typed.len().min(before.len());
    n > 0 && before[before.len() - n..] == typed[typed.len() - n..]
}

/// Whether `row` shows a suggestion from column `col` on: text there, every non-blank cell
/// from there on dim or grey, and the cell before `col` (the end of the typed text, or the
/// prompt's blank) not so.
pub(crate) fn drawn_from(row: &Row<Cell>, col: usize) -> bool {
    let len = row.len();
    if col == 0 || col >= len || is_dim(&row[Column(col - 1)]) {
        return false;
    }
    let mut text = false;
    for at in col..len {
        let cell = &row[Column(at)];
        if cell.c == ' ' || cell.c == '\t' {
            continue;
        }
        if !is_dim(cell) {
            return false;
        }
        text = true;
    }
    text
}

/// Whether a cell is drawn faint (SGR 2) or in a mid grey: bright black, one of the
/// 256-colour palette's greys (the ramp from 232 and the cube's greys) or a grey given as RGB,
/// of a level in [`MID_GREYS`] (prompt_toolkit's `38;5;241` is 0x62; the light greys, up to
/// near-white, are ordinary text's).
fn is_dim(cell: &Cell) -> bool {
    if cell.flags.contains(Flags::DIM) {
        return true;
    }
    match cell.fg {
        Color::Named(named) => matches!(named, NamedColor::BrightBlack | NamedColor::DimForeground),
        Color::Indexed(8) => true,
        Color::Indexed(index @ 16..=231) => {
            let cube = index - 16;
            let (r, g, b) = (cube / 36, cube / 6 % 6, cube % 6);
            r == g && g == b && MID_GREYS.contains(&CUBE_LEVELS[usize::from(r)])
        }
        Color::Indexed(index @ 232..=255) => MID_GREYS.contains(&(8 + 10 * (index - 232))),
        Color::Indexed(_) => false,
        Color::Spec(rgb) => rgb.r == rgb.g && rgb.g == rgb.b && MID_GREYS.contains(&rgb.r),
    }
}

/// The grey levels a suggestion is drawn in: 232's ramp from 238 to 248, the cube's 95 and
/// 135.
const MID_GREYS: std::ops::RangeInclusive<u8> = 0x40..=0xa8;

/// The 256-colour palette's cube's levels, from 0 to 5.
const CUBE_LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::term::cell::Cell;

    /// A row of `text`, the cells from `styled` on drawn with `style`.
    fn row(text: &str, styled: usize, style: impl Fn(&mut Cell)) -> Row<Cell> {
        let mut row = Row::new(20);
        for (at, c) in text.chars().enumerate() {
            let cell: &mut Cell = &mut row[Column(at)];
            cell.c = c;
            if at >= styled {
                style(cell);
            }
        }
        row
    }

    #[test]
    fn a_grey_or_faint_rest_after_typed_text_is_a_suggestion() {
        let grey = |cell: &mut Cell| cell.fg = Color::Indexed(241);
        assert!(drawn_from(&row(">>> import os", 10, grey), 10));
        let faint = |cell: &mut Cell| cell.flags.insert(Flags::DIM);
        assert!(drawn_from(&row("> abcdef", 4, faint), 4));
        let bright_black = |cell: &mut Cell| cell.fg = Color::Named(NamedColor::BrightBlack);
        // A suggestion that starts with a blank.
        assert!(drawn_from(&row("> ls -la", 4, bright_black), 4));
    }

    #[test]
    fn text_drawn_as_what_is_before_the_cursor_is_no_suggestion() {
        // A spinner's glyph, the cursor on it (drawn with a backspace after it).
        assert!(!drawn_from(&row("Working: |", 20, |_| ()), 9));
        // A coloured glyph is not grey.
        let green = |cell: &mut Cell| cell.fg = Color::Named(NamedColor::Green);
        assert!(!drawn_from(&row("Working: |", 9, green), 9));
        // Grey text before the cursor as after it (a grey line edited in its middle).
        let grey = |cell: &mut Cell| cell.fg = Color::Indexed(244);
        assert!(!drawn_from(&row("> abcdef", 2, grey), 4));
        // Nothing after the cursor, or only blanks.
        assert!(!drawn_from(&row("> ab", 4, grey), 4));
        assert!(!drawn_from(&row("> ab", 0, |_| ()), 0));
        // Light greys, up to near-white, are ordinary text.
        for light in [250, 255, 145, 188] {
            let light = |cell: &mut Cell| cell.fg = Color::Indexed(light);
            assert!(!drawn_from(&row("> abcdef", 4, light), 4));
        }
        let near_white = |cell: &mut Cell| {
            cell.fg = Color::Spec(alacritty_terminal::vte::ansi::Rgb { r: 0xe0, g: 0xe0, b: 0xe0 })
        };
        assert!(!drawn_from(&row("> abcdef", 4, near_white), 4));
    }

    #[test]
    fn the_text_typed_last_is_what_follows_its_control_characters() {
        assert_eq!(typed_text(b"import o"), "import o");
        assert_eq!(typed_text(b"\x15ab"), "ab");
        assert_eq!(typed_text(b"ab\r"), "");
        assert_eq!(typed_text(b"ab\x1b[A"), "");
        assert_eq!(typed_text("é\x01ü".as_bytes()), "ü");
        assert_eq!(typed_text(&[b'x'; 40]).len(), TYPED_CHARS);
        // Only the input's end is looked at, from a character's start.
        let mut paste = vec![b'a'; 1 << 20];
        paste.extend("é".repeat(100).as_bytes());
        assert_eq!(typed_text(&paste), "é".repeat(TYPED_CHARS));
        let mut odd = vec![b'a'; 1 << 20];
        odd.extend("é".repeat(100).as_bytes());
        odd.push(b'b');
        assert_eq!(typed_text(&odd), format!("{}b", "é".repeat(TYPED_CHARS - 1)));
    }

    /// Only the input's last 128 bytes are looked at: an Escape 129 bytes from the end is
    /// not seen, one 128 bytes from it is; what follows it there is read whole, up to
    /// [`TYPED_CHARS`] characters (a window of 8 bytes read 8 of them, an unbounded one saw the
    /// Escape).
    #[test]
    fn typed_text_looks_at_the_last_128_bytes_alone() {
        let after_escape = |distance: usize| {
            let mut input = b"\x1b".to_vec();
            input.extend(std::iter::repeat_n(b'a', distance - 1));
            typed_text(&input)
        };
        assert_eq!(after_escape(129), "a".repeat(TYPED_CHARS), "beyond the window");
        assert_eq!(after_escape(128), "", "within it");
        let mut key_code = b"\x1b[A".to_vec();
        key_code.extend([b'b'; 126]);
        assert_eq!(typed_text(&key_code), "b".repeat(TYPED_CHARS), "its start cut off");
        key_code.truncate(3 + 125);
        assert_eq!(typed_text(&key_code), "", "the key code's last byte in the window");
    }

    #[test]
    fn a_suggestion_follows_the_text_typed_last() {
        let plain = |_: &mut Cell| ();
        assert!(follows_typed(&row(">>> import os", 20, plain), 12, "import o"));
        assert!(follows_typed(&row(">>> import os", 20, plain), 12, "rt o"));
        // A single key, or blanks, a program echoes (`y` at `[y/n] `, a space after a label
        // ending in one) is no line being typed.
        assert!(!follows_typed(&row(">>> import os", 20, plain), 12, "o"));
        assert!(!follows_typed(&row("[y/n] y", 20, plain), 7, "y"));
        assert!(!follows_typed(&row("Working: |", 20, plain), 9, " "));
        assert!(!follows_typed(&row("Working: |", 20, plain), 9, "  "));
        // The typed text wrapped onto the cursor's row.
        assert!(follows_typed(&row("rt os", 20, plain), 4, "import o"));
        // A spinner's glyph after `Working: `, `s` pressed to start it.
        assert!(!follows_typed(&row("Working: |", 20, plain), 9, "s"));
        assert!(!follows_typed(&row("> ab", 20, plain), 4, ""));
    }
}
