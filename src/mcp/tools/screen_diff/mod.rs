//! What part of a screen a caller is shown and how: the whole screen, or the rows that changed
//! since a screen it saw (its last, or an earlier one when that costs less: a menu or a
//! dialog closed brings it back), with a block of rows that moved said in one line (text
//! scrolled, a row inserted above a list) and a block of rows that slid sideways (a panel
//! opened at the left, text scrolled horizontally) sent as only their new columns; the cursor
//! marked where typing would go; styled text marked where its style carries meaning.
//!
//! Each caller (an MCP connection, a [`Toolbox`](super::toolbox::Toolbox)) keeps the screens it
//! was shown in its own [`SeenScreens`], so one caller's reads never change what another is
//! shown.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};

use crate::term::screen::model::{CURSOR_MARK, CUT_CLAUSE, CUT_MARK, Changed};
pub(crate) use crate::term::screen::model::{Moved, Slid};
use crate::term::screen::style::StyleRun;
use crate::term::screen::{byte_at_cell, cell_col, char_cells};
use crate::{Cursor, Screen, SessionId};

/// Which styled runs to mark in a screen's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Styles {
    /// None.
    Off,
    /// Inverse and background-coloured runs (a selection, a menu entry, a progress bar's
    /// filled cells), when there are at most [`MAX_MEANINGFUL_RUNS`]: marked `⟦text⟧`
    /// without a label, neighbours merged (what stands out inside them, or the one entry of a
    /// column that stands out, marked again, see `standing_out_within` and
    /// `standing_out_of_column`), blanks past the row's text left out; not a full-screen
    /// program's bars nor its prompt (see `bars` and `prompt_row`).
    Meaningful,
    /// Every run, with its colours and attributes.
    All,
}

impl Styles {
    /// The `styles` argument that asks for these in a call's advice (` styles=true`), empty
    /// for the default: rows read on as advised are marked as the rows shown were.
    pub(crate) fn argument(self) -> &'static str {
        match self {
            Styles::Meaningful => "",
            Styles::All => " styles=true",
            Styles::Off => " styles=false",
        }
    }
}

/// The most inverse or background-coloured runs [`Styles::Meaningful`] marks: more are a
/// colour scheme, not a highlight.
pub(crate) const MAX_MEANINGFUL_RUNS: usize = 24;

/// Opens a marked run: `⟦label|` (`⟦` alone for a highlight); `⟧` closes it.
const OPEN: char = '⟦';
/// Closes a marked run.
const CLOSE: char = '⟧';

/// A screen as a caller is shown it: its rows with styled runs marked (the cursor not yet).
/// (Two that show the same differ only in notes on the look: see [`Frame::shows_same`].)
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    cols: u16,
    rows: u16,
    alternate: bool,
    cursor: Cursor,
    /// Every row, styled runs marked.
    lines: Vec<String>,
    /// Every row's text, unmarked.
    texts: Vec<String>,
    /// The marked runs of every row, clipped as `lines` shows them.
    runs: Vec<Marked>,
    /// Which styled runs are marked (with [`Styles::Meaningful`], marks end with their row's
    /// text, not with their run).
    styles: Styles,
    /// A hash of each row of `lines`, to find rows that moved without comparing every pair.
    hashes: Vec<u64>,
    /// The cursor's row with its runs and the cursor marked, when the cursor is visible.
    cursor_line: Option<String>,
    /// Rows shown of a whole screen: see [`shown_rows`].
    used: usize,
    /// The window title.
    title: String,
    /// A curses program's painted primary screen (see [`painted_by_curses`]).
    painted: bool,
    /// The caller has read the output that came after it (see
    /// [`SeenScreens::read_past`](seen::SeenScreens::read_past)).
    read_past: bool,
    /// The terminal's foreground process group when the caller was shown it (see
    /// [`SeenScreens::alternate_owner`]).
    pub(crate) owner: Option<i32>,
}

impl Frame {
    /// Whether `other` shows what this one shows, whatever is noted of the look (its
    /// `owner`, its `read_past`): seen again, such a screen is the same look (see
    /// `SeenScreens::remember`), not a new one that would push the one before it, the base
    /// a dialog closed is told against, out of the looks kept.
    pub(crate) fn shows_same(&self, other: &Frame) -> bool {
        self.cursor == other.cursor && self.same_but_cursor(other)
    }

    /// Whether the caller is shown the same in both: [`Self::shows_same`], but a hidden
    /// cursor's place, which no result marks (the header says `cursor hidden`). A whole read of such a screen is
    /// the look it matches, not a new one (see `Seen::seen_again`).
    pub(crate) fn looks_same(&self, other: &Frame) -> bool {
        let hidden = !self.cursor.visible && !other.cursor.visible;
        (self.cursor == other.cursor || hidden) && self.same_but_cursor(other)
    }

    /// [`Self::shows_same`] but for the cursor.
    fn same_but_cursor(&self, other: &Frame) -> bool {
        let Frame {
            cols,
            rows,
            alternate,
            cursor: _,
            lines,
            texts,
            runs,
            styles,
            hashes,
            cursor_line,
            used,
            title,
            painted,
            read_past: _,
            owner: _,
        } = self;
        (cols, rows, alternate, lines, texts, runs, styles)
            == (
                &other.cols,
                &other.rows,
                &other.alternate,
                &other.lines,
                &other.texts,
                &other.runs,
                &other.styles,
            )
            && used == &other.used
            && (hashes, cursor_line, title, painted)
                == (&other.hashes, &other.cursor_line, &other.title, &other.painted)
    }

    /// The bytes it holds, about: what [`SeenScreens`] counts against [`SCREEN_BYTES_KEPT`].
    fn bytes(&self) -> usize {
        let string = |s: &String| s.len() + std::mem::size_of::<String>();
        let rows = self.lines.iter().chain(&self.texts).chain(&self.cursor_line);
        rows.chain(std::iter::once(&self.title)).map(string).sum::<usize>()
            + self.runs.iter().map(|run| string(&run.label) + 8).sum::<usize>()
            + self.hashes.len() * 8
            + std::mem::size_of::<Frame>()
    }

    /// `screen` with the `runs` that `styles` selects marked.
    pub(crate) fn new(screen: &Screen, runs: &[StyleRun], styles: Styles) -> Frame {
        let runs_given = runs;
        let text = |row: usize| screen.lines.get(row).map_or("", String::as_str);
        let cells = usize::from(screen.cols) * usize::from(screen.rows);
        let mut runs = select(runs, styles, screen, cells);
        if styles == Styles::Meaningful {
            for run in &mut runs {
                let row = text(usize::from(run.row));
                run.end = run.end.min(cell_col(row, row.len()));
            }
            runs.retain(|run| run.col < run.end);
        }
        let row_runs = |row: usize| runs.iter().filter(move |run| usize::from(run.row) == row);
        let lines: Vec<String> =
            (0..screen.lines.len()).map(|row| decorate(text(row), row_runs(row), None)).collect();
        let hashes = lines
            .iter()
            .map(|line| {
                let mut hasher = DefaultHasher::new();
                line.hash(&mut hasher);
                hasher.finish()
            })
            .collect();
        // The mark goes where typing would go: on a blank cell or just past the row's end. On
        // a character it would split a word, and far past the end (a cursor parked in a
        // corner) it would cost a run of blanks, so there the header says where it is.
        let cursor = screen.cursor;
        let row = usize::from(cursor.row);
        let line = text(row);
        let on_blank =
            line[byte_at_cell(line, cursor.col)..].chars().next().is_none_or(|c| c == ' ');
        let near =
            usize::from(cursor.col) <= usize::from(cell_col(line, line.len())) + MAX_CURSOR_PAD;
        let cursor_line = (cursor.visible && on_blank && near)
            .then(|| decorate(text(row), row_runs(row), Some(cursor.col)));
        let used = shown_rows(&lines, cursor.row, cursor_line.is_some());
        Frame {
            cols: screen.cols,
            rows: screen.rows,
            alternate: screen.alternate,
            cursor,
            lines,
            texts: screen.lines.clone(),
            runs,
            styles,
            cursor_line,
            used,
            hashes,
            title: screen.title.clone(),
            painted: painted_by_curses(screen, runs_given),
            read_past: false,
            owner: None,
        }
    }

    /// The bytes of the whole screen's text.
    fn cost(&self) -> usize {
        (0..self.used).map(|row| self.line(row).len() + 1).sum()
    }

    /// Whether row `row` holds what row `at` of `other` holds.
    fn same_row(&self, row: usize, other: &Frame, at: usize) -> bool {
        self.hashes.get(row) == other.hashes.get(at) && self.lines.get(row) == other.lines.get(at)
    }

    /// Which styled runs it marks.
    pub(crate) fn styles(&self) -> Styles {
        self.styles
    }

    /// How many rows a whole look shows (see [`shown_rows`]): down to the last row with
    /// text, or to the cursor's when its mark is drawn there, not to a cursor parked far below.
    pub(crate) fn shown_rows(&self) -> usize {
        self.used
    }

    /// Whether the cursor is marked in the text (it is visible, on a blank cell).
    pub(crate) fn cursor_marked(&self) -> bool {
        self.cursor_line.is_some()
    }

    /// Row `row` as shown: the cursor marked on its row.
    fn line(&self, row: usize) -> &str {
        match &self.cursor_line {
            Some(line) if row == usize::from(self.cursor.row) => line,
            _ => self.lines.get(row).map_or("", String::as_str),
        }
    }

    /// The text of rows `rows` as shown (styled runs and the cursor marked), a line each.
    pub(crate) fn rows_text(&self, rows: std::ops::Range<usize>) -> String {
        rows.map(|row| self.line(row)).collect::<Vec<_>>().join("\n")
    }

    /// The text of the rows `shape` says: every used row, or the listed rows numbered.
    pub(crate) fn text(&self, shape: &Shape) -> String {
        match shape {
            Shape::Whole => (0..self.used).map(|row| self.line(row)).collect::<Vec<_>>().join("\n"),
            Shape::Changes(changes) => {
                let mut text = String::new();
                for &row in &changes.rows {
                    let _ = writeln!(text, "{row}│{}", changes.row_text(self, row));
                }
                text.pop();
                text
            }
        }
    }

    /// Row `row`'s cells from column `from` up to `to` with their runs marked (blanks at the
    /// end left out unless marked). A wide character cut by either end is shown as blanks.
    fn window(&self, row: usize, from: u16, to: u16) -> String {
        let text = self.texts.get(row).map_or("", String::as_str);
        let mut piece = String::new();
        let mut col = 0u16;
        // Whether the last character with a width was taken whole (a character of no width
        // goes with it).
        let mut taken = false;
        for c in text.chars() {
            let end = col.saturating_add(char_cells(c));
            if end == col {
                if taken {
                    piece.push(c);
                }
                continue;
            }
            if col >= to {
                break;
            }
            taken = col >= from && end <= to;
            if taken {
                piece.push(c);
            } else if end > from {
                let cut = usize::from(end.min(to) - col.max(from));
                piece.extend(std::iter::repeat_n(' ', cut));
            }
            col = end;
        }
        piece.truncate(piece.trim_end_matches(' ').len());
        let runs: Vec<Marked> = self
            .runs
            .iter()
            .filter(|run| usize::from(run.row) == row)
            .filter_map(|run| {
                let end = run.end.min(to).saturating_sub(from);
                let col = run.col.max(from) - from;
                (col < end).then(|| Marked { end, col, ..run.clone() })
            })
            .collect();
        decorate(&piece, runs.iter(), None)
    }

    /// Each row's cells as numbers that are equal where the cells look the same: what the
    /// cell shows in the low half (a character's own code, a wide character's second cell
    /// `u32::MAX`, a character with marks of no width a number from `numbers`), the cell's
    /// mark's label in the high half (0: not marked; else a number from `numbers`); every row
    /// `cols` long.
    fn cells(&self, numbers: &mut CellNumbers) -> Vec<Vec<u64>> {
        self.cells_of(|_| true, numbers)
    }

    /// [`Self::cells`] of the rows `wanted` (the others empty).
    fn cells_of(&self, wanted: impl Fn(usize) -> bool, numbers: &mut CellNumbers) -> Vec<Vec<u64>> {
        let cols = usize::from(self.cols);
        let mut rows: Vec<Vec<u64>> = self
            .texts
            .iter()
            .enumerate()
            .map(|(row, text)| {
                if !wanted(row) {
                    return Vec::new();
                }
                let mut cells: Vec<u64> = Vec::with_capacity(cols);
                // The last cell with a character, and that character with its marks.
                let mut open: Option<(usize, String)> = None;
                for c in text.chars() {
                    match (char_cells(c), &mut open) {
                        (0, Some((_, cluster))) => cluster.push(c),
                        (0, None) => {}
                        (width, _) => {
                            if let Some((at, cluster)) = open.take() {
                                cells[at] = numbers.cluster(&cluster);
                            }
                            open = Some((cells.len(), c.to_string()));
                            cells.push(u64::from(c));
                            cells.extend(std::iter::repeat_n(
                                u64::from(u32::MAX),
                                usize::from(width) - 1,
                            ));
                        }
                    }
                }
                if let Some((at, cluster)) = open {
                    cells[at] = numbers.cluster(&cluster);
                }
                cells.resize(cols, u64::from(' '));
                cells
            })
            .collect();
        for run in &self.runs {
            let label = numbers.label(&run.label) << 32;
            if let Some(row) = rows.get_mut(usize::from(run.row)) {
                let end = usize::from(run.end).min(cols);
                // (Added, so that a mark inside another, a nested one, counts as well.)
                for cell in row.iter_mut().take(end).skip(usize::from(run.col)) {
                    *cell += label;
                }
            }
        }
        rows
    }
}

/// How many of a screen's rows (`lines`, as shown: their text with its marks) a whole look
/// shows: down to its last row showing something (text, or with every style shown a blank
/// row's colour: an empty coloured bar, review xj), and down to the cursor's (`cursor_row`)
/// when its mark is drawn there (`marked`: visible, on a blank cell near its row's text),
/// where typing goes (a prompt's cursor on a blank row below the text). A cursor not marked,
/// hidden or parked far past its row's text (`watch`'s in the bottom-right corner, 29 blank
/// rows below its text at 120x32), is told by the header alone (`cursor row 31 col 119`):
/// blank rows down to it cost bytes and say nothing more.
fn shown_rows(lines: &[String], cursor_row: u16, marked: bool) -> usize {
    let shown = lines.iter().rposition(|row| !row.is_empty()).map_or(0, |row| row + 1);
    let cursor = match marked {
        true => usize::from(cursor_row) + 1,
        false => 0,
    };
    shown.max(cursor).min(lines.len())
}

mod changes;
mod marks;
mod seen;
#[cfg(test)]
pub(crate) use changes::Changes;
use changes::*;
pub(crate) use changes::{Shape, rebuilds};
pub(crate) use marks::painted_by_curses;
use marks::*;
use seen::*;
pub(crate) use seen::{SERVER_SCREEN_BYTES_KEPT, SESSIONS_KEPT, ScreenBudget, SeenScreens};

#[cfg(test)]
mod tests;
