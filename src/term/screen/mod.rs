//! The rendered screen snapshot: [`Screen`].

use std::fmt;

use serde::Serialize;

pub use crate::types::{Modes, MouseReporting};

pub(crate) mod fallback;
pub(crate) mod model;
pub(crate) mod png;
#[cfg(feature = "testing")]
pub(crate) mod snapshot;
pub(crate) mod style;
pub(crate) mod svg;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Where the cursor is, in cells from the top-left corner (both from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cursor {
    /// Row from the top, from 0.
    pub row: u16,
    /// Column from the left, in cells, from 0.
    pub col: u16,
    /// Whether the program shows the cursor (DECTCEM).
    pub visible: bool,
}

/// A snapshot of the visible screen: the alternate screen while a full-screen program has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Screen {
    /// Width in columns.
    pub cols: u16,
    /// Height in rows (the length of `lines`). Serialized as `height` (the command line's
    /// `--json` report keeps its field names).
    #[serde(rename = "height")]
    pub rows: u16,
    /// The visible rows as text, one line per row: a wide character appears once though it
    /// takes two cells, combining marks follow their base character, trailing blanks are
    /// trimmed, tabs are blanks. Serialized as `rows`.
    #[serde(rename = "rows")]
    pub lines: Vec<String>,
    /// The cursor.
    pub cursor: Cursor,
    /// Whether the alternate screen is active (vim, less, htop...).
    pub alternate: bool,
    /// The window title the program set (empty if none).
    pub title: String,
    /// Input modes.
    pub modes: Modes,
    /// For each row, whether its text goes on in the next row (the terminal wrapped it at the
    /// last column, not the program with a line break); missing rows are not wrapped. Rows
    /// joined this way are one line for the testing kit's redactions, and for the MCP tools'
    /// comparison of a look at the screen with the new output it reads.
    #[serde(skip)]
    pub(crate) wrapped: Vec<bool>,
    /// For each row, whether its last cell is the one the terminal left empty where a wide
    /// character did not fit and went on to the next row (no text, unlike a blank printed
    /// there); missing rows end in none.
    #[serde(skip)]
    pub(crate) wide_spacer_ends: Vec<bool>,
    /// The program draws whole frames on the primary screen from its top-left, the cursor
    /// hidden (`top`): it moved the cursor there since its output last scrolled the screen
    /// (see `Scanner::homes`). The MCP tools show it as a full-screen program's, its
    /// changed rows after a key, not its frame read again as lines.
    #[serde(skip)]
    pub(crate) frames: bool,
}

/// Where a text was found on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScreenPos {
    /// Row from 0.
    pub row: u16,
    /// Column in cells from 0.
    pub col: u16,
}

impl Screen {
    /// The rows joined with `\n`, trailing empty rows left out.
    pub fn text(&self) -> String {
        let used = self.used_rows();
        self.lines[..used].join("\n")
    }

    /// Whether `needle` appears in one row.
    pub fn contains(&self, needle: &str) -> bool {
        self.find(needle).is_some()
    }

    /// The first row and cell column where `needle` appears.
    pub fn find(&self, needle: &str) -> Option<ScreenPos> {
        self.find_all(needle).next()
    }

    /// Every row and cell column where `needle` appears within a row, top to bottom, left to
    /// right.
    pub fn find_all<'s>(&'s self, needle: &'s str) -> impl Iterator<Item = ScreenPos> + 's {
        self.lines.iter().enumerate().flat_map(move |(row, text)| {
            text.match_indices(needle)
                .map(move |(at, _)| ScreenPos { row: row as u16, col: cell_col(text, at) })
        })
    }

    /// Number of rows up to the last non-empty row or the cursor row, whichever is lower.
    pub(crate) fn used_rows(&self) -> usize {
        let last_text = self.lines.iter().rposition(|r| !r.is_empty()).map_or(0, |i| i + 1);
        last_text.max(usize::from(self.cursor.row) + 1).min(self.lines.len())
    }
}

/// The cell column of byte offset `at` in a screen row.
pub(crate) fn cell_col(row: &str, at: usize) -> u16 {
    row[..at].width().min(usize::from(u16::MAX)) as u16
}

/// The cell width of one character of a screen row.
pub(crate) fn char_cells(c: char) -> u16 {
    UnicodeWidthChar::width(c).unwrap_or(0) as u16
}

/// The byte offset in `row` of the first character at or after cell column `col` (the row's
/// length when the row ends before it), in one pass.
pub(crate) fn byte_at_cell(row: &str, col: u16) -> usize {
    let mut cells = 0u16;
    for (at, c) in row.char_indices() {
        if cells >= col {
            return at;
        }
        cells = cells.saturating_add(char_cells(c));
    }
    row.len()
}

/// A stable plain-text layout for snapshots and for a model to read: a header line with the
/// size, cursor, screen and title, a line of modes, then the rows between two rules. Empty rows
/// below the last used row are counted, not printed.
impl fmt::Display for Screen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "screen {}x{}, cursor {},{} {}, {} screen, title {:?}",
            self.cols,
            self.rows,
            self.cursor.row,
            self.cursor.col,
            if self.cursor.visible { "visible" } else { "hidden" },
            if self.alternate { "alternate" } else { "primary" },
            self.title
        )?;
        writeln!(f, "modes: {}", self.modes)?;
        writeln!(f, "{}", "-".repeat(usize::from(self.cols.min(80))))?;
        let used = self.used_rows();
        for row in &self.lines[..used] {
            writeln!(f, "{row}")?;
        }
        write!(f, "{}", "-".repeat(usize::from(self.cols.min(80))))?;
        if used < self.lines.len() {
            write!(f, "\n({} empty rows below)", self.lines.len() - used)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_bytes_agree() {
        let row = "aデb";
        for (col, at) in [(0, 0), (1, 1), (2, 4), (3, 4), (4, 5), (9, 5)] {
            assert_eq!(byte_at_cell(row, col), at, "cell {col}");
        }
        for at in [0, 1, 4, 5] {
            assert_eq!(byte_at_cell(row, cell_col(row, at)), at);
        }
    }
}
