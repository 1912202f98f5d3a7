//! Whether a grid row shows a line editor's suggestion from its history after the cursor, as
//! prompt_toolkit (ptpython, IPython, litecli) and fish draw one: the rest of a line typed
//! before, in a dim or grey style (prompt_toolkit's `38;5;241`, fish's bright black), unlike
//! the text typed before the cursor. A program's own text after its cursor (a spinner's glyph
//! drawn with a backspace after it, a line edited in its middle) is drawn as the text before
//! it, and is no suggestion.

use alacritty_terminal::grid::Row;
use alacritty_terminal::index::Column;
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};

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

/// Whether a cell is drawn faint (SGR 2) or in a grey: bright black, one of the 256-colour
/// palette's greys (the ramp from 232 and the cube's greys) or a grey given as RGB.
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
            r == g && g == b && (1..=4).contains(&r)
        }
        Color::Indexed(index) => index >= 232,
        Color::Spec(rgb) => rgb.r == rgb.g && rgb.g == rgb.b && rgb.r > 0 && rgb.r < 255,
    }
}

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
    }
}
