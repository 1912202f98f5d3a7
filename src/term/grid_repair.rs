//! Repairs of alacritty's grid after a slice of output, through its public grid API.
//!
//! - An erase, delete or insert over one half of a wide character leaves the other half in
//!   alacritty (`ESC c デ BS CSI K` still shows デ): [`wide_halves`] blanks such orphans on the
//!   row the sequence touched, so screen text and cell columns agree, as in xterm.
//! - alacritty keeps every combining mark written on a cell: [`trim_marks`] keeps the first
//!   `max` of each visible cell.
//! - alacritty's erase above the cursor (`CSI 1 J`) clears the rows above the cursor's only
//!   when there are at least two of them (`printf 'a\nb\e[1J'` still shows `a`):
//!   [`first_row_above_cursor`] clears the first row when the cursor is on the second, as in
//!   xterm.

use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};

/// Blanks the halves of wide characters on `row` whose other half is gone.
pub(crate) fn wide_halves(grid: &mut Grid<Cell>, row: usize) {
    if row >= grid.screen_lines() {
        return;
    }
    let cols = grid.columns();
    let cells = &mut grid[Line(row as i32)][..];
    for col in 0..cols {
        let flags = cells[col].flags;
        let orphan = if flags.contains(Flags::WIDE_CHAR) {
            !cells.get(col + 1).is_some_and(|next| next.flags.contains(Flags::WIDE_CHAR_SPACER))
        } else if flags.contains(Flags::WIDE_CHAR_SPACER) {
            col == 0 || !cells[col - 1].flags.contains(Flags::WIDE_CHAR)
        } else {
            false
        };
        if orphan {
            let cell = &mut cells[col];
            cell.clear_wide();
            cell.flags.remove(Flags::WIDE_CHAR_SPACER);
        }
    }
}

/// Clears the top row after an erase above the cursor (`ED 1`) made with the cursor on `row`,
/// when that is the second row (alacritty erases the rows above the cursor only from the
/// third row on); cleared as alacritty clears the other rows, with the cursor's colours.
pub(crate) fn first_row_above_cursor(grid: &mut Grid<Cell>, row: usize) {
    if row == 1 && grid.screen_lines() > 1 {
        grid.reset_region(..Line(1));
    }
}

/// Keeps at most `max` combining marks on each visible cell; returns how many cells were
/// trimmed.
pub(crate) fn trim_marks(grid: &mut Grid<Cell>, max: usize) -> usize {
    let mut trimmed = 0;
    let excess = |cell: &Cell| cell.zerowidth().is_some_and(|marks| marks.len() > max);
    for line in 0..grid.screen_lines() {
        // Looked at first, changed only where needed: indexing a row mutably marks all of
        // it as occupied, and each cell indexed so costs a bounds check and an update.
        if !grid[Line(line as i32)][..].iter().any(excess) {
            continue;
        }
        let cols = grid.columns();
        let row = &mut grid[Line(line as i32)];
        for col in 0..cols {
            let cell = &mut row[Column(col)];
            let Some(marks) = cell.zerowidth() else { continue };
            if marks.len() <= max {
                continue;
            }
            let kept: Vec<char> = marks[..max].to_vec();
            let underline = cell.underline_color();
            let link = cell.hyperlink();
            cell.extra = None;
            for mark in kept {
                cell.push_zerowidth(mark);
            }
            cell.set_underline_color(underline);
            cell.set_hyperlink(link);
            trimmed += 1;
        }
    }
    trimmed
}
