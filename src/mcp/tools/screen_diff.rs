//! What part of a screen a caller is shown and how: the whole screen, or the rows that changed
//! since a screen it saw (its last, or the one before when that costs less: a menu or a
//! dialog closed brings it back), with a block of rows that moved said in one line (text
//! scrolled, a row inserted above a list) and a block of rows that slid sideways (a panel
//! opened at the left, text scrolled horizontally) sent as only their new columns; the cursor
//! marked where typing would go; styled text marked where its style carries meaning.
//!
//! Each caller (an MCP connection, a [`Toolbox`](super::toolbox::Toolbox)) keeps the screens it
//! was shown in its own [`SeenScreens`], so one caller's reads never change what another is
//! shown.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::term::screen::model::{CURSOR_MARK, Changed};
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
    /// `standing_out_of_column`), blanks past the row's text left out.
    Meaningful,
    /// Every run, with its colours and attributes.
    All,
}

/// The most inverse or background-coloured runs [`Styles::Meaningful`] marks: more are a
/// colour scheme, not a highlight.
pub(crate) const MAX_MEANINGFUL_RUNS: usize = 24;

/// Opens a marked run: `⟦label|` (`⟦` alone for a highlight); `⟧` closes it.
const OPEN: char = '⟦';
/// Closes a marked run.
const CLOSE: char = '⟧';

/// A screen as a caller is shown it: its rows with styled runs marked (the cursor not yet).
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
    /// Marks end with their row's text ([`Styles::Meaningful`]), not with their run.
    runs_end_with_text: bool,
    /// A hash of each row of `lines`, to find rows that moved without comparing every pair.
    hashes: Vec<u64>,
    /// The cursor's row with its runs and the cursor marked, when the cursor is visible.
    cursor_line: Option<String>,
    /// Rows up to the last non-empty one or the cursor's.
    used: usize,
    /// The window title.
    title: String,
}

impl Frame {
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
        Frame {
            cols: screen.cols,
            rows: screen.rows,
            alternate: screen.alternate,
            cursor,
            lines,
            texts: screen.lines.clone(),
            runs,
            runs_end_with_text: styles == Styles::Meaningful,
            cursor_line,
            used: screen.used_rows(),
            hashes,
            title: screen.title.clone(),
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
        let cols = usize::from(self.cols);
        let mut rows: Vec<Vec<u64>> = self
            .texts
            .iter()
            .map(|text| {
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

/// The runs of `screen` that `styles` marks, neighbours with the same label merged.
fn select(runs: &[StyleRun], styles: Styles, screen: &Screen, cells: usize) -> Vec<Marked> {
    // A background on most of the screen's `cells` is the screen's own colour (a program that
    // paints every cell, such as curses' white on black), not a highlight.
    let base = screen_background(runs, cells);
    let meaningful = |run: &StyleRun| {
        run.attrs.contains(&"inverse") || (run.bg != "default" && Some(run.bg.as_str()) != base)
    };
    match styles {
        Styles::Off => Vec::new(),
        Styles::All => merged(runs.iter().map(|run| Marked::new(run, label(run)))),
        Styles::Meaningful => {
            let islands = base.map_or_else(Vec::new, |base| islands(runs, base));
            let stripes = stripes(runs, &screen.lines);
            let mut chosen: Vec<&StyleRun> = runs
                .iter()
                .enumerate()
                .filter(|&(i, run)| meaningful(run) || islands.get(i).copied().unwrap_or(false))
                .filter(|&(i, _)| !stripes[i])
                .map(|(_, run)| run)
                .collect();
            if chosen.len() > MAX_MEANINGFUL_RUNS {
                chosen = standing_out(chosen, screen.cols);
            }
            if chosen.len() > MAX_MEANINGFUL_RUNS {
                return Vec::new();
            }
            let spans: Vec<&[&StyleRun]> = chosen.chunk_by(|a, b| touching(a, b)).collect();
            let mut marked = Vec::with_capacity(chosen.len());
            for span in &spans {
                marked.extend(merged(span.iter().map(|run| Marked::new(run, String::new()))));
                marked.extend(standing_out_within(span));
            }
            marked.extend(standing_out_of_column(&spans));
            marked
        }
    }
}

/// The most cells wide a run of a stripe is (see [`stripes`]).
const STRIPE_WIDTH: u16 = 2;

/// The fewest consecutive rows a stripe covers (see [`stripes`]).
const STRIPE_ROWS: usize = 3;

/// Which of `runs` (a screen's, row by row, left to right; its text `lines`) are stripes: at
/// most [`STRIPE_WIDTH`] cells of one look and one text, blanks or a line (`│`, `|`), at one
/// column on [`STRIPE_ROWS`] or more rows, each the next row or the one after it (the
/// selected entry, drawn otherwise, between two). A list's gutter (fzf's, beside each
/// entry), a separator between two views (tig's `│`) or a shadow is drawn alike on every row
/// whatever is selected: marked, it told nothing and, beside a long list, crowded out the
/// selection's own mark. (A selection holds text: vim's block of `x` down a column is one.)
fn stripes(runs: &[StyleRun], lines: &[String]) -> Vec<bool> {
    let text = |run: &StyleRun| {
        let line = lines.get(usize::from(run.row)).map_or("", String::as_str);
        let start = byte_at_cell(line, run.col);
        let end = start + byte_at_cell(&line[start..], run.width);
        &line[start..end]
    };
    /// A run's column, width, look and text: what the runs of a stripe share.
    type Alike<'t> = (u16, u16, (String, bool), &'t str);
    // The rows and indexes of the runs alike, in row order.
    let mut alike: HashMap<Alike, Vec<(u16, usize)>> = HashMap::new();
    let drawn = |text: &str| text.chars().all(|c| c == ' ' || c == '|' || is_box_drawing(c));
    for (i, run) in runs.iter().enumerate().filter(|(_, run)| run.width <= STRIPE_WIDTH) {
        let text = text(run);
        if drawn(text) {
            alike.entry((run.col, run.width, look(run), text)).or_default().push((run.row, i));
        }
    }
    let mut flags = vec![false; runs.len()];
    for column in alike.values() {
        for stripe in
            column.chunk_by(|a, b| b.0 <= a.0.saturating_add(2)).filter(|s| s.len() >= STRIPE_ROWS)
        {
            stripe.iter().for_each(|&(_, i)| flags[i] = true);
        }
    }
    flags
}

/// Whether `c` is one of Unicode's box-drawing characters (`│`, `┃`, `║`, `─`, `┼`...).
fn is_box_drawing(c: char) -> bool {
    ('\u{2500}'..='\u{257f}').contains(&c)
}

/// `marked`, neighbours of the same label on a row merged.
fn merged(marked: impl Iterator<Item = Marked>) -> Vec<Marked> {
    let mut merged: Vec<Marked> = Vec::new();
    for run in marked {
        match merged.last_mut() {
            Some(last) if (last.row, last.end, &last.label) == (run.row, run.col, &run.label) => {
                last.end = run.end;
            }
            _ => merged.push(run),
        }
    }
    merged
}

/// The runs of a marked `span` (touching runs on one row) whose background (or inverse)
/// is not the one most of its cells have: the focused button of a dialog whose rows are
/// marked whole, marked again inside them (`⟦  ⟦<Yes>⟧    <No>  ⟧`). Merged with the rest,
/// the button was not told from the other, nor was moving the focus a change.
fn standing_out_within<'a>(span: &'a [&StyleRun]) -> impl Iterator<Item = Marked> + 'a {
    let most = most_look(span).filter(|(_, alone)| !alone).map(|(look, _)| look);
    // Touching runs of one look are one mark; of two, two.
    span.chunk_by(move |a, b| look(a) == look(b))
        .filter(move |same| most.as_ref().is_some_and(|most| look(same[0]) != *most))
        .map(|same| {
            let last = same[same.len() - 1];
            Marked {
                row: same[0].row,
                col: same[0].col,
                end: last.col.saturating_add(last.width),
                label: String::new(),
            }
        })
}

/// Whether run `b` follows run `a` on its row with no cell between them.
fn touching(a: &StyleRun, b: &StyleRun) -> bool {
    a.row == b.row && a.col.saturating_add(a.width) == b.col
}

/// A run's look, what a mark tells apart: its background, and whether it is inverse.
fn look(run: &StyleRun) -> (String, bool) {
    (run.bg.clone(), run.attrs.contains(&"inverse"))
}

/// The look of most of the cells of `runs` (of two with as many cells, the first met), and
/// whether it is their only one.
fn most_look(runs: &[&StyleRun]) -> Option<((String, bool), bool)> {
    let mut cells: Vec<((String, bool), usize)> = Vec::new();
    for run in runs {
        let look = look(run);
        match cells.iter_mut().find(|(seen, _)| *seen == look) {
            Some((_, count)) => *count += usize::from(run.width),
            None => cells.push((look, usize::from(run.width))),
        }
    }
    let alone = cells.len() == 1;
    let most = cells.into_iter().min_by_key(|(_, count)| std::cmp::Reverse(*count));
    most.map(|(look, _)| (look, alone))
}

/// Which of `runs` (a screen's, row by row, left to right) are islands of the screen's own
/// background `base` inside a box of another: a block of touching runs of that background
/// (not inverse) whose neighbours on both sides touch it and have a background that is
/// neither the default nor `base`. dialog paints its screen blue and its box white, and
/// shows the selected entry and the focused button blue on white: the screen's colour, never
/// marked, so a menu read the same whichever entry was selected.
fn islands(runs: &[StyleRun], base: &str) -> Vec<bool> {
    let grounded = |run: &StyleRun| run.bg == base && !run.attrs.contains(&"inverse");
    let boxed = |run: &StyleRun| run.bg != "default" && run.bg != base;
    let mut flags = vec![false; runs.len()];
    let mut start = 0;
    while start < runs.len() {
        if !grounded(&runs[start]) {
            start += 1;
            continue;
        }
        let mut end = start + 1;
        while end < runs.len() && grounded(&runs[end]) && touching(&runs[end - 1], &runs[end]) {
            end += 1;
        }
        let before = start.checked_sub(1).map(|i| &runs[i]);
        let after = runs.get(end);
        if before.is_some_and(|b| boxed(b) && touching(b, &runs[start]))
            && after.is_some_and(|a| boxed(a) && touching(&runs[end - 1], a))
        {
            flags[start..end].fill(true);
        }
        start = end;
    }
    flags
}

/// Whether `screen` is a curses program's on the primary screen: keys in application mode
/// (as curses sets them while it runs, and resets on its way out) and a background painted
/// on more than half of its cells, per its styled `runs` (dialog, which leaves the alternate
/// screen out and paints its screen blue). It is shown as a full-screen program's is: its
/// rows as lines of the transcript told nothing of what is selected.
pub(crate) fn painted_by_curses(screen: &Screen, runs: &[StyleRun]) -> bool {
    let cells = usize::from(screen.cols) * usize::from(screen.rows);
    !screen.alternate && screen.modes.app_cursor && screen_background(runs, cells).is_some()
}

/// The marked spans (touching runs on one row, in row order) of a column of them that stand
/// out from the rest: in a stack of three or more spans starting at the same column on
/// consecutive rows (a completion menu), the one span whose look (background or inverse, of
/// most of its cells) differs when all the others share one, marked again
/// (`⟦⟦[1,2,3].map!⟧⟧`): irb's menu shows its entries cyan and the selected one magenta, all
/// marked alike, so a Tab that moved the selection read as no change.
fn standing_out_of_column(spans: &[&[&StyleRun]]) -> impl Iterator<Item = Marked> {
    /// A span: its row, first and end columns, and look.
    type Span = (u16, u16, u16, (String, bool));
    // Stacks of spans by their first column, each ended once a row goes by without one.
    let mut stacks: Vec<Vec<Span>> = Vec::new();
    for span in spans {
        let (Some(first), Some(last)) = (span.first(), span.last()) else { continue };
        let Some((look, _)) = most_look(span) else { continue };
        let this = (first.row, first.col, last.col.saturating_add(last.width), look);
        let stack = stacks.iter_mut().rev().find(|stack| {
            stack.last().is_some_and(|&(row, col, _, _)| col == this.1 && row + 1 == this.0)
        });
        match stack {
            Some(stack) => stack.push(this),
            None => stacks.push(vec![this]),
        }
    }
    stacks.into_iter().filter(|stack| stack.len() >= 3).filter_map(|stack| {
        let odd = |i: usize| stack.iter().filter(|other| other.3 != stack[i].3).count();
        // One span differs from all the others, which share one look.
        let alone = (0..stack.len()).filter(|&i| odd(i) == stack.len() - 1).collect::<Vec<_>>();
        match alone.as_slice() {
            [one] => {
                let (row, col, end, _) = stack[*one];
                Some(Marked { row, col, end, label: String::new() })
            }
            _ => None,
        }
    })
}

/// The background of more than half of a screen's `cells`, if one has them.
fn screen_background(runs: &[StyleRun], cells: usize) -> Option<&str> {
    let mut covered: HashMap<&str, usize> = HashMap::new();
    for run in runs.iter().filter(|run| run.bg != "default") {
        *covered.entry(run.bg.as_str()).or_default() += usize::from(run.width);
    }
    covered.into_iter().find(|&(_, count)| count * 2 > cells).map(|(bg, _)| bg)
}

/// Of more coloured runs than a highlight has, those that stand out from the colour scheme
/// (a dialog on a blue screen): inverse ones, and those whose background covers less than a
/// tenth of the coloured cells (the selected entry of a menu). Then, if they all fit in the
/// highlights' number, those on a row that is not all coloured, which stand out from the
/// screen's own ground around them: mc's selection bar between its panels' borders, whose
/// colour its menu bar and function-key bar (rows coloured whole) share.
fn standing_out(runs: Vec<&StyleRun>, cols: u16) -> Vec<&StyleRun> {
    let mut cells: HashMap<&str, usize> = HashMap::new();
    let mut row_cells: HashMap<u16, usize> = HashMap::new();
    for run in &runs {
        *cells.entry(run.bg.as_str()).or_default() += usize::from(run.width);
        *row_cells.entry(run.row).or_default() += usize::from(run.width);
    }
    let total: usize = cells.values().sum();
    let rare =
        |run: &&StyleRun| run.attrs.contains(&"inverse") || cells[run.bg.as_str()] * 10 < total;
    let on_ground = |run: &&StyleRun| row_cells[&run.row] < usize::from(cols);
    let marked = runs.iter().filter(|run| rare(run) || on_ground(run)).count();
    let with_ground = marked <= MAX_MEANINGFUL_RUNS;
    runs.into_iter().filter(|run| rare(run) || with_ground && on_ground(run)).collect()
}

/// A run to mark, with its label.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Marked {
    row: u16,
    col: u16,
    end: u16,
    label: String,
}

impl Marked {
    fn new(run: &StyleRun, label: String) -> Marked {
        Marked { row: run.row, col: run.col, end: run.col.saturating_add(run.width), label }
    }
}

/// A run's full label: its attributes, its foreground and `on` its background, e.g.
/// `bold red on blue`.
fn label(run: &StyleRun) -> String {
    let mut parts: Vec<String> = run.attrs.iter().map(|a| (*a).to_owned()).collect();
    if run.fg != "default" {
        parts.push(run.fg.clone());
    }
    if run.bg != "default" {
        parts.push(format!("on {}", run.bg));
    }
    parts.join(" ")
}

/// `row` with its runs marked and [`CURSOR_MARK`] before cell `cursor`; marks past the row's
/// end are reached with spaces (a styled run of blanks is shown as blanks).
fn decorate<'r>(row: &str, runs: impl Iterator<Item = &'r Marked>, cursor: Option<u16>) -> String {
    // (cell, order at that cell: closes, then opens, then the cursor; text)
    let mut marks: Vec<(u16, u8, String)> = Vec::new();
    for run in runs {
        let open = match run.label.as_str() {
            "" => OPEN.to_string(),
            label => format!("{OPEN}{label}|"),
        };
        marks.push((run.col, 1, open));
        marks.push((run.end, 0, CLOSE.to_string()));
    }
    marks.extend(cursor.map(|col| (col, 2, CURSOR_MARK.to_string())));
    if marks.is_empty() {
        return row.to_owned();
    }
    marks.sort_by_key(|(col, order, _)| (*col, *order));
    let mut out = String::with_capacity(row.len() + marks.len() * 8);
    let mut marks = marks.into_iter().peekable();
    // The cell column, counted along (a prefix's width per character would cost a row's
    // length squared).
    let mut col = 0u16;
    for c in row.chars() {
        while let Some((_, _, text)) = marks.next_if(|(mark, _, _)| *mark <= col) {
            out.push_str(&text);
        }
        out.push(c);
        col = col.saturating_add(char_cells(c));
    }
    for (mark, _, text) in marks {
        out.extend(std::iter::repeat_n(' ', usize::from(mark.saturating_sub(col))));
        col = col.max(mark);
        out.push_str(&text);
    }
    out
}

/// Numbers for what two frames' cells show beyond a character's code, the same in both:
/// characters with marks of no width, and marks' labels.
#[derive(Default)]
struct CellNumbers {
    clusters: HashMap<String, u32>,
    labels: HashMap<String, u32>,
}

impl CellNumbers {
    /// A character and its marks of no width: the character's code when it has none, else
    /// a number past every character's.
    fn cluster(&mut self, cluster: &str) -> u64 {
        let mut chars = cluster.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return u64::from(c);
        }
        let next = 0x11_0000 + self.clusters.len() as u32;
        u64::from(*self.clusters.entry(cluster.to_owned()).or_insert(next))
    }

    /// A mark's label: a number from 1 on.
    fn label(&mut self, label: &str) -> u64 {
        let next = 1 + self.labels.len() as u32;
        u64::from(*self.labels.entry(label.to_owned()).or_insert(next))
    }
}

/// How many of the screens of a session a caller was last shown are kept, as what the next one
/// is compared with: its last look and the one before.
const LOOKS_KEPT: usize = 2;

/// Screens with more rows than this are not searched for rows that moved (the search compares
/// every row with every other one's hash).
const MOVE_SEARCH_ROWS: usize = 512;

/// The most sessions whose screens one caller remembers: a caller that never closes the
/// sessions it is done with holds no more than this many sessions' screens; the one shown
/// least recently is forgotten first (its next screen is sent whole).
pub(crate) const SESSIONS_KEPT: usize = 256;

/// The most bytes of screens one caller remembers (about: [`Frame::bytes`]): past them the
/// sessions shown least recently are forgotten first, then the older look of the session
/// just shown. 256 sessions' two looks at 120x32 take about 6 MiB; large screens (a frame
/// of 1000x500 is up to a few MiB) no longer multiply by the sessions.
pub(crate) const SCREEN_BYTES_KEPT: usize = 16 << 20;

/// The most bytes of screens the callers of one `termloom server` remember together (its
/// clients by name and its connections: up to 1,024 and 256 callers, each within
/// [`SCREEN_BYTES_KEPT`], which would otherwise add up to 20 GiB): past them the screens
/// shown least recently, whoever they were shown to, are forgotten first, and their caller
/// is sent its next screen of that session whole. Sixteen callers' full share.
pub(crate) const SERVER_SCREEN_BYTES_KEPT: usize = 256 << 20;

/// The bytes of screens that callers sharing it remember together ([`SeenScreens`]), held
/// to a limit: a look is counted before it is kept, and one that would pass the limit first
/// makes room by forgetting the session shown least recently among all its callers' (its own
/// included); a look that still finds none is not kept, and the next is sent whole.
#[derive(Debug)]
pub(crate) struct ScreenBudget {
    limit: usize,
    /// The bytes its callers keep, and those counted for a look about to be kept.
    used: AtomicUsize,
    /// Counts the looks remembered, which orders them across callers.
    clock: AtomicU64,
    /// Its callers' screens (each [`SeenScreens`]'s), to forget from.
    members: Mutex<Vec<Weak<Mutex<Seen>>>>,
}

impl ScreenBudget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Arc<ScreenBudget> {
        Arc::new(ScreenBudget {
            limit,
            used: AtomicUsize::new(0),
            clock: AtomicU64::new(0),
            members: Mutex::default(),
        })
    }

    /// A caller's screens, counted in this budget.
    pub(crate) fn member(self: &Arc<Self>) -> SeenScreens {
        let seen =
            Arc::new(Mutex::new(Seen { budget: self.clone(), sessions: HashMap::new(), bytes: 0 }));
        let mut members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        members.retain(|member| member.strong_count() > 0);
        members.push(Arc::downgrade(&seen));
        SeenScreens { seen }
    }

    /// The bytes its callers keep.
    #[cfg(test)]
    fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }

    /// The next tick of the clock that orders looks.
    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Counts `bytes` more, if they fit.
    fn reserve(&self, bytes: usize) -> bool {
        let fits = |used: usize| used.checked_add(bytes).filter(|&total| total <= self.limit);
        self.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, fits).is_ok()
    }

    /// Counts `bytes` fewer.
    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }

    /// Forgets the session shown least recently among every caller's; whether there was one.
    /// (Called holding no caller's lock: it takes each in turn.)
    fn forget_oldest(&self) -> bool {
        let members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        let mut oldest: Option<(u64, Arc<Mutex<Seen>>, SessionId)> = None;
        for member in members.iter().filter_map(Weak::upgrade) {
            let seen = member.lock().unwrap_or_else(|e| e.into_inner());
            let Some((id, shown)) = seen.oldest_shown(None) else { continue };
            drop(seen);
            if oldest.as_ref().is_none_or(|(at, _, _)| shown < *at) {
                oldest = Some((shown, member, id));
            }
        }
        drop(members);
        let Some((_, member, id)) = oldest else { return false };
        member.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        true
    }
}

/// The screens of each session one caller was last shown whole and uncut (oldest first), for
/// at most [`SESSIONS_KEPT`] sessions and [`SCREEN_BYTES_KEPT`] bytes, counted in a
/// [`ScreenBudget`] shared with other callers (a caller of its own makes one of
/// [`SCREEN_BYTES_KEPT`]).
#[derive(Debug)]
pub(crate) struct SeenScreens {
    seen: Arc<Mutex<Seen>>,
}

impl Default for SeenScreens {
    fn default() -> Self {
        ScreenBudget::new(SCREEN_BYTES_KEPT).member()
    }
}

impl Drop for SeenScreens {
    fn drop(&mut self) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.sessions.clear();
        let bytes = std::mem::take(&mut seen.bytes);
        seen.budget.release(bytes);
    }
}

/// What [`SeenScreens`] guards.
#[derive(Debug)]
struct Seen {
    /// Where its bytes are counted with other callers'.
    budget: Arc<ScreenBudget>,
    /// Each session's looks, with when it was last shown (a tick of the budget's clock).
    sessions: HashMap<SessionId, (VecDeque<Frame>, u64)>,
    /// The bytes of the looks kept ([`Frame::bytes`]).
    bytes: usize,
}

impl Seen {
    /// Forgets session `id`'s looks.
    fn remove(&mut self, id: SessionId) {
        if let Some((looks, _)) = self.sessions.remove(&id) {
            self.free(looks.iter().map(Frame::bytes).sum::<usize>());
        }
    }

    /// Counts `bytes` fewer, here and in the budget.
    fn free(&mut self, bytes: usize) {
        self.bytes -= bytes;
        self.budget.release(bytes);
    }

    /// The session shown least recently, but `except`, and when it was shown.
    fn oldest_shown(&self, except: Option<SessionId>) -> Option<(SessionId, u64)> {
        let others = self.sessions.iter().filter(|(id, _)| Some(**id) != except);
        others.min_by_key(|(_, (_, shown))| *shown).map(|(id, (_, shown))| (*id, *shown))
    }

    /// The session shown least recently, but `except`.
    fn oldest(&self, except: SessionId) -> Option<SessionId> {
        self.oldest_shown(Some(except)).map(|(id, _)| id)
    }
}

impl SeenScreens {
    /// Remembers that the caller has seen `frame` of session `id` in full, or, when `frame` is
    /// `None` (it was cut), that it has not seen a whole screen since: what it saw before is
    /// forgotten, so changes are never told against a screen older than one it saw cut. A
    /// look the shared budget has no room for, even once every caller's older looks are
    /// forgotten, is not kept either: the next screen is sent whole.
    pub(crate) fn remember(&self, id: SessionId, frame: Option<Frame>) {
        let budget = self.lock().budget.clone();
        let size = frame.as_ref().map_or(0, Frame::bytes);
        // Room in the budget, made (holding no caller's lock) by forgetting the screens shown
        // least recently, whoever's; none for a look larger than the whole budget, which
        // forgetting every caller's screens would not make fit.
        let counted = frame.is_some()
            && size <= budget.limit
            && loop {
                if budget.reserve(size) {
                    break true;
                }
                if !budget.forget_oldest() {
                    break false;
                }
            };
        let mut guard = self.lock();
        let seen = &mut *guard;
        let Some(frame) = frame.filter(|_| counted) else {
            seen.remove(id);
            return;
        };
        let now = budget.tick();
        if !seen.sessions.contains_key(&id)
            && seen.sessions.len() >= SESSIONS_KEPT
            && let Some(oldest) = seen.oldest(id)
        {
            seen.remove(oldest);
        }
        let (looks, shown) = seen.sessions.entry(id).or_default();
        *shown = now;
        // Seeing the same screen again keeps the one before it as a base.
        if looks.back() == Some(&frame) {
            budget.release(size);
            return;
        }
        looks.push_back(frame);
        seen.bytes += size;
        let looks = &mut seen.sessions.get_mut(&id).expect("just kept").0;
        if looks.len() > LOOKS_KEPT {
            let old = looks.pop_front().map_or(0, |old| old.bytes());
            seen.free(old);
        }
        // Within the bytes kept: other sessions' looks go first, then this one's older look.
        while seen.bytes > SCREEN_BYTES_KEPT {
            match seen.oldest(id) {
                Some(oldest) => seen.remove(oldest),
                None => {
                    let looks = &mut seen.sessions.get_mut(&id).expect("just kept").0;
                    if looks.len() < 2 {
                        break;
                    }
                    let old = looks.pop_front().map_or(0, |old| old.bytes());
                    seen.free(old);
                }
            }
        }
    }

    /// This caller's screens, locked.
    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether every line of `text` with text on it is a row of the screen of session `id`
    /// the caller was last shown (blanks around both aside).
    pub(crate) fn last_shows(&self, id: SessionId, text: &str) -> bool {
        let seen = self.lock();
        let Some(last) = seen.sessions.get(&id).and_then(|(looks, _)| looks.back()) else {
            return false;
        };
        let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty()).peekable();
        lines.peek().is_some() && lines.all(|line| last.texts.iter().any(|row| row.trim() == line))
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.remember(id, None);
    }

    /// How to show `frame` of session `id`: whole when `whole` is asked for, when no screen
    /// of the same size and kind (primary, alternate) was seen, when more than half of the
    /// rows changed (a row that slid sideways is no change), or when the changes would take
    /// more bytes than the whole; otherwise the changes since the seen screen they take the
    /// fewest bytes against (the last one on a tie). A change is a row whose text or marked
    /// styles changed, the cursor's row when the cursor moved onto it, and the row the caller
    /// saw the cursor marked on when the cursor left it.
    pub(crate) fn shape(&self, id: SessionId, frame: &Frame, whole: bool) -> Shape {
        let seen = self.lock();
        let Some((looks, _)) = seen.sessions.get(&id).filter(|_| !whole) else {
            return Shape::Whole;
        };
        let best = looks
            .iter()
            .rev()
            .zip(1..)
            .filter(|(seen, _)| {
                (seen.cols, seen.rows, seen.alternate) == (frame.cols, frame.rows, frame.alternate)
            })
            .map(|(seen, look)| changes_since(frame, seen, look))
            .filter(|changes| changes.whole_rows() * 2 <= usize::from(frame.rows))
            .min_by_key(|changes| changes.cost(frame));
        match best {
            Some(changes) if changes.cost(frame) < frame.cost() => Shape::Changes(changes),
            _ => Shape::Whole,
        }
    }
}

/// The changes of `frame` since `seen`, the caller's `look`-th last look. The cursor's row is
/// listed when the cursor moved onto it, and when a moved block ends on it (the caller's
/// copy of the block has no mark there); the row the caller saw the cursor marked on is
/// listed when the cursor left it (the caller's copy holds a mark that is gone).
fn changes_since(frame: &Frame, seen: &Frame, look: u8) -> Changes {
    let moved = find_move(frame, seen);
    let in_block = |row: u16| moved.is_some_and(|m| (m.to..m.to + m.count).contains(&row));
    let cursor_row = frame.cursor.row;
    let cursor_news =
        frame.cursor_marked() && (frame.cursor != seen.cursor || in_block(cursor_row));
    let mark_left = (seen.cursor_marked() && seen.cursor != frame.cursor)
        .then_some(seen.cursor.row)
        .filter(|&row| !in_block(row));
    let listed = |row: u16| {
        let kept = in_block(row) || frame.same_row(usize::from(row), seen, usize::from(row));
        !kept || cursor_news && row == cursor_row || mark_left == Some(row)
    };
    // A row listed for the cursor or a mark that left it is listed whole.
    let cursor_mark = |row: u16, frame: &Frame| frame.cursor_marked() && row == frame.cursor.row;
    let whole = |row: u16| in_block(row) || cursor_mark(row, frame) || cursor_mark(row, seen);
    let slides = |row: u16| listed(row) && !whole(row);
    let slid = find_slide(frame, seen, slides);
    let rows = (0..frame.rows).filter(|&row| listed(row)).collect();
    Changes { look, moved, slid, rows, title_changed: frame.title != seen.title }
}

/// The most blanks put before the cursor's mark past the end of its row's text; a cursor
/// farther out is told in the header instead (`cursor row 23 col 79`, 20 bytes).
const MAX_CURSOR_PAD: usize = 16;

/// Screens with more cells times columns than this are not searched for rows that slid
/// sideways (the search compares each row with itself at every shift).
const SLIDE_SEARCH_CELLS: usize = 1 << 22;

/// The fewest characters (not blanks) a row that slid keeps: one or two, a box's border (the
/// left one kept as the right one, gdb's TUI window given new text), are no text that moved.
const SLIDE_MIN_KEPT: usize = 3;

/// About the bytes the header's note of a block of rows that slid takes.
const SLIDE_NOTE: usize = 100;

/// How many spans of columns between fixed margins are searched for rows that slid, besides
/// the whole row.
const MARGIN_SPANS: usize = 2;

/// The rows a block that slid sideways may have moved down (negative: up) as well, searched in
/// this order: a list that gained or lost a row or two at its top as a panel opened beside it.
const SLIDE_ROWS_DOWN: [i16; 5] = [0, 1, -1, 2, -2];

/// The block of consecutive rows, each of which `may_slide`, whose cells in a span of columns
/// hold what they held on `seen` (not blanks only), marks included, moved some columns
/// sideways, their other cells the same, and saves the most bytes (at least two rows, and
/// more bytes than the header's note of it; the shift the smallest on a tie).
fn find_slide(frame: &Frame, seen: &Frame, may_slide: impl Fn(u16) -> bool) -> Option<Slid> {
    let cols = usize::from(frame.cols);
    let rows = usize::from(frame.rows).min(frame.texts.len()).min(seen.texts.len());
    let cost = rows * cols * cols;
    if cost > SLIDE_SEARCH_CELLS || frame.cols != seen.cols {
        return None;
    }
    // Rows that moved down or up as well are searched only where the bound holds for all.
    let downs = match cost * SLIDE_ROWS_DOWN.len() <= SLIDE_SEARCH_CELLS {
        true => &SLIDE_ROWS_DOWN[..],
        false => &SLIDE_ROWS_DOWN[..1],
    };
    let mut numbers = CellNumbers::default();
    let (now, then) = (frame.cells(&mut numbers), seen.cells(&mut numbers));
    // (bytes saved, the block)
    let mut best: Option<(usize, Slid)> = None;
    for &down in downs {
        // The seen row row `row` came from, when there is one.
        let from = |row: usize| {
            let was = row as isize - isize::from(down);
            (0..rows as isize).contains(&was).then_some(was as usize)
        };
        let may = |row: usize| may_slide(row as u16) && from(row).is_some();
        let spans = slide_spans(&now, &then, cols, from, may);
        for (from_col, to_col) in spans {
            let span = (from_col as u16, to_col as u16);
            // The rows that slid by each shift, in the order shifts are preferred on a tie
            // (the smaller first, to the right before to the left), with the bytes each saves.
            let mut slides: BTreeMap<(u16, bool), Vec<(usize, usize)>> = BTreeMap::new();
            for row in (0..rows).filter(|&row| may(row)) {
                let Some(was) = from(row) else { continue };
                let (now, then) = (&now[row], &then[was]);
                for by in shifts(now, then, span) {
                    let slid =
                        Slid { first: 0, count: 0, by, from_col: span.0, to_col: span.1, down };
                    if let Some(saved) = slide_saves(frame, now, then, row, &slid) {
                        slides.entry((by.unsigned_abs(), by < 0)).or_default().push((row, saved));
                    }
                }
            }
            for ((shift, left), slid_rows) in slides {
                let by = if left { -(shift as i16) } else { shift as i16 };
                let slid = Slid { first: 0, count: 0, by, from_col: span.0, to_col: span.1, down };
                // Runs of consecutive rows.
                let mut runs: Vec<(usize, usize, usize)> = Vec::new();
                for (row, saved) in slid_rows {
                    match runs.last_mut() {
                        Some((first, count, total)) if *first + *count == row => {
                            *count += 1;
                            *total += saved;
                        }
                        _ => runs.push((row, 1, saved)),
                    }
                }
                for (first, count, saved) in runs {
                    if count >= 2 && saved > SLIDE_NOTE && best.is_none_or(|(most, _)| saved > most)
                    {
                        let block = Slid { first: first as u16, count: count as u16, ..slid };
                        best = Some((saved, block));
                    }
                }
            }
        }
    }
    best.map(|(_, block)| block)
}

/// The shifts by which row `now` may have slid from the seen row `then` within the columns
/// `span`: its first character in the span found again that many columns to the right
/// (positive), or the row's found again that many to the left on the seen row (negative). A
/// slide keeps a character, so every shift it can have is among these; most rows have few.
fn shifts(now: &[u64], then: &[u64], span: (u16, u16)) -> Vec<i16> {
    let (from, to) = (usize::from(span.0), usize::from(span.1).min(now.len()).min(then.len()));
    let shown = |cell: &u64| *cell as u32;
    let mut shifts = Vec::new();
    // (the row whose first character is looked for, the row it is looked for on, the sign)
    for (row, on, sign) in [(then, now, 1), (now, then, -1)] {
        let span = row.get(from..to).unwrap_or_default();
        let Some(at) = span.iter().position(|cell| shown(cell) != u32::from(' ')) else {
            continue;
        };
        let at = from + at;
        let again = ((at + 1)..to).filter(|&again| shown(&on[again]) == shown(&row[at]));
        shifts.extend(again.map(|again| sign * (again - at) as i16));
    }
    shifts
}

/// The bytes row `row` saves if it `slid` (its `first` and `count` aside): its cells outside
/// the span are those of the seen row it came from (`then`), its kept cells too, marks
/// included up to the row's last character, and they hold [`SLIDE_MIN_KEPT`] characters or
/// more that are not blanks; no wide character
/// is cut at the new columns' edges; the new columns take the bytes they are shown in.
fn slide_saves(frame: &Frame, now: &[u64], then: &[u64], row: usize, slid: &Slid) -> Option<usize> {
    let cols = usize::from(frame.cols);
    let (from_col, to_col) = (usize::from(slid.from_col), usize::from(slid.to_col));
    let blank = |cell: &u64| *cell as u32 == u32::from(' ');
    let cut = |at: u16| now.get(usize::from(at)).is_some_and(|c| *c as u32 == u32::MAX);
    let ((kept_from, kept_to), (then_from, then_to)) = slid.kept();
    let (new_from, new_to) = slid.new_columns();
    let kept = &now[usize::from(kept_from)..usize::from(kept_to)];
    let was = &then[usize::from(then_from)..usize::from(then_to)];
    if kept.iter().filter(|cell| !blank(cell)).count() < SLIDE_MIN_KEPT {
        return None;
    }
    // Marks count up to the row's last character (a caller drops them after it, where they
    // end with the text).
    let text_end = match frame.runs_end_with_text {
        true => now.iter().rposition(|cell| !blank(cell)).map_or(0, |at| at + 1),
        false => cols,
    };
    let marked = text_end.saturating_sub(usize::from(kept_from)).min(kept.len());
    let same = kept[..marked] == was[..marked]
        && kept[marked..].iter().zip(&was[marked..]).all(|(a, b)| *a as u32 == *b as u32)
        && !cut(new_from)
        && !cut(new_to)
        && now[..from_col] == then[..from_col]
        && now[to_col..] == then[to_col..];
    // (Bytes, as the row's: a box-drawing character or a mark takes more than its cell.)
    same.then(|| frame.line(row).len().saturating_sub(frame.window(row, new_from, new_to).len()))
}

/// The spans of columns to search for rows that slid, on rows `cols` wide: the whole row,
/// then those between the fixed margins (cells the same at the same place at a row's start
/// and at the seen row's it came `from`, such as a pager's `>` marks or a line-number column)
/// that the most rows that `may_slide` have, up to [`MARGIN_SPANS`] of them.
fn slide_spans(
    now: &[Vec<u64>],
    then: &[Vec<u64>],
    cols: usize,
    from: impl Fn(usize) -> Option<usize>,
    may_slide: impl Fn(usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut counts: HashMap<(usize, usize), usize> = HashMap::new();
    let rows = (0..now.len()).filter(|&row| may_slide(row));
    let pairs = rows.filter_map(|row| Some((&now[row], then.get(from(row)?)?)));
    for (now, then) in pairs {
        let start = now.iter().zip(then).take_while(|(a, b)| a == b).count();
        let end = now.iter().rev().zip(then.iter().rev()).take_while(|(a, b)| a == b).count();
        if (start, end) != (0, 0) && start + end + 2 <= cols {
            *counts.entry((start, cols - end)).or_default() += 1;
        }
    }
    let mut spans: Vec<((usize, usize), usize)> = counts.into_iter().collect();
    spans.sort_by_key(|&(span, rows)| (std::cmp::Reverse(rows), span));
    std::iter::once((0, cols))
        .chain(spans.into_iter().take(MARGIN_SPANS).map(|(span, _)| span))
        .collect()
}

/// The block of `seen`'s rows that is on `frame` again at another place and saves the most
/// rows with text that would otherwise be sent (at least two), if any. The row the caller saw
/// the cursor marked on is no part of a block (its copy holds the mark).
fn find_move(frame: &Frame, seen: &Frame) -> Option<Moved> {
    let rows = frame.lines.len().min(seen.lines.len());
    if rows > MOVE_SEARCH_ROWS {
        return None;
    }
    let marked = seen.cursor_marked().then_some(usize::from(seen.cursor.row));
    // (rows saved, the block)
    let mut best: Option<(usize, Moved)> = None;
    for shift in 1..rows {
        for (from_start, to_start) in [(shift, 0), (0, shift)] {
            // Row `to_start + i` now holds what row `from_start + i` held: walk the runs.
            let mut run_start = 0;
            let mut saved = 0;
            for i in 0..=rows - shift {
                let same = i < rows - shift
                    && marked != Some(from_start + i)
                    && frame.same_row(to_start + i, seen, from_start + i);
                if same {
                    let text = !frame.lines[to_start + i].is_empty();
                    saved += usize::from(text && !frame.same_row(to_start + i, seen, to_start + i));
                    continue;
                }
                if saved >= 2 && best.is_none_or(|(most, _)| saved > most) {
                    // Rows at the block's ends that are where they were, or blank, are no
                    // part of the move.
                    let still = |at: usize| {
                        frame.lines[to_start + at].is_empty()
                            || frame.same_row(to_start + at, seen, to_start + at)
                    };
                    let (mut first, mut end) = (run_start, i);
                    while still(first) {
                        first += 1;
                    }
                    while still(end - 1) {
                        end -= 1;
                    }
                    let block = Moved {
                        from: (from_start + first) as u16,
                        to: (to_start + first) as u16,
                        count: (end - first) as u16,
                    };
                    best = Some((saved, block));
                }
                run_start = i + 1;
                saved = 0;
            }
        }
    }
    best.map(|(_, block)| block)
}

/// A screen told as its changes since one the caller saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Since which screen: 1 the one the caller saw last, 2 the one it saw before that.
    pub(crate) look: u8,
    /// A block of rows that moved.
    pub(crate) moved: Option<Moved>,
    /// A block of the listed rows that slid sideways: only their new columns are shown.
    pub(crate) slid: Option<Slid>,
    /// The rows that differ from that look, besides the block that moved, numbered.
    pub(crate) rows: Vec<u16>,
    /// The window title differs from that look's.
    pub(crate) title_changed: bool,
}

impl Changes {
    /// About the bytes the changes take in a result: the header's note, and each row with its
    /// number (`12│`).
    fn cost(&self, frame: &Frame) -> usize {
        let note = match self.moved {
            Some(_) => 80,
            None => 35,
        };
        let note = note + self.slid.map_or(0, |_| SLIDE_NOTE);
        let number = |row: u16| row.checked_ilog10().unwrap_or(0) as usize + 1;
        let rows: usize =
            self.rows.iter().map(|&row| number(row) + 4 + self.row_text(frame, row).len()).sum();
        note + usize::from(self.look - 1) * 20 + rows
    }

    /// How many rows are listed whole (not as the new columns of a row that slid).
    fn whole_rows(&self) -> usize {
        self.rows.iter().filter(|&&row| !self.slid.is_some_and(|slid| slid.holds(row))).count()
    }

    /// What is shown of listed row `row`: the whole row, or the new columns of a row that
    /// slid.
    fn row_text<'f>(&self, frame: &'f Frame, row: u16) -> std::borrow::Cow<'f, str> {
        match self.slid {
            Some(slid) if slid.holds(row) => {
                let (from, to) = slid.new_columns();
                frame.window(usize::from(row), from, to).into()
            }
            _ => frame.line(usize::from(row)).into(),
        }
    }

    /// What the screen block's header says of them.
    pub(crate) fn changed(&self) -> Changed {
        Changed {
            rows: self.rows.len(),
            look: self.look,
            moved: self.moved,
            slid: self.slid,
            title_changed: self.title_changed,
        }
    }
}

/// Which of a screen's rows to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every row (trailing empty rows below the cursor left out).
    Whole,
    /// The changes since a screen the caller saw (no rows: none besides a moved block).
    Changes(Changes),
}

/// A row as a caller reads it off a screen's text, cell by cell: each cell's text (a wide
/// character's second cell empty, marks of no width with the cell before them), whether it is
/// marked, and the cursor mark's column when the row holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReadRow {
    cells: Vec<String>,
    marked: Vec<bool>,
    cursor: Option<usize>,
}

impl ReadRow {
    /// A whole row as shown, `cols` cells wide: marks end with its text.
    fn whole(line: &str, cols: usize) -> ReadRow {
        let mut row = ReadRow::parse(line, cols);
        row.end_marks();
        row
    }

    /// `line` as shown (`⟦` `⟧` marks without labels, [`CURSOR_MARK`]), `cols` cells wide.
    fn parse(line: &str, cols: usize) -> ReadRow {
        let mut row = ReadRow { cells: Vec::new(), marked: Vec::new(), cursor: None };
        let mut on = false;
        for c in line.chars() {
            match c {
                OPEN => on = true,
                CLOSE => on = false,
                CURSOR_MARK => row.cursor = Some(row.cells.len()),
                c => match char_cells(c) {
                    0 => match row.cells.last_mut() {
                        Some(cell) => cell.push(c),
                        None => row.cells.push(c.to_string()),
                    },
                    width => {
                        row.cells.push(c.to_string());
                        row.marked.push(on);
                        for _ in 1..width {
                            row.cells.push(String::new());
                            row.marked.push(on);
                        }
                    }
                },
            }
            row.marked.resize(row.cells.len(), on);
        }
        row.cells.resize(cols, " ".to_owned());
        row.marked.resize(cols, false);
        row
    }

    /// Marks end with the row's text (screens mark no blank past it).
    fn end_marks(&mut self) {
        let end = self.cells.iter().rposition(|c| c != " " && !c.is_empty()).map_or(0, |at| at + 1);
        self.marked[end..].fill(false);
    }

    /// The row as one line: marked cells in upper case (a marked blank `_`), the cursor a `|`.
    fn readable(&self) -> String {
        let mut text = String::new();
        for (at, (cell, &marked)) in self.cells.iter().zip(&self.marked).enumerate() {
            if self.cursor == Some(at) {
                text.push('|');
            }
            match (marked, cell.as_str()) {
                (true, " ") => text.push('_'),
                (true, _) => text.push_str(&cell.to_uppercase()),
                (false, _) => text.push_str(cell),
            }
        }
        text
    }
}

/// Checks that a caller that saw `base` (with unlabelled marks) rebuilds `frame` exactly from
/// the text of `changes`: the rows it keeps, the block that moved, the rows listed, the new
/// columns of the rows that slid. Returns the first row that differs, as rebuilt and as it is.
/// For the fuzz target `screen_diff` and the tests.
pub(crate) fn rebuilds(base: &Frame, changes: &Changes, frame: &Frame) -> Result<(), String> {
    let cols = usize::from(base.cols);
    let rows = usize::from(frame.rows);
    let seen: Vec<ReadRow> = (0..rows).map(|r| ReadRow::whole(base.line(r), cols)).collect();
    let mut now = seen.clone();
    if let Some(Moved { from, to, count }) = changes.moved {
        for i in 0..usize::from(count) {
            now[usize::from(to) + i] = seen[usize::from(from) + i].clone();
        }
    }
    let text = frame.text(&Shape::Changes(changes.clone()));
    for line in text.split('\n').filter(|line| !line.is_empty()) {
        let (number, content) = line.split_once('│').ok_or_else(|| format!("no number: {line}"))?;
        let row: usize = number.parse().map_err(|_| format!("bad number: {line}"))?;
        now[row] = match changes.slid {
            Some(slid) if slid.holds(row as u16) => {
                // The seen row, its kept cells moved, the new ones as listed.
                let (new_from, new_to) = slid.new_columns();
                let ((kept_from, kept_to), (then_from, then_to)) = slid.kept();
                let was = usize::from(slid.seen_row(row as u16));
                let (new, old) =
                    (ReadRow::parse(content, usize::from(new_to - new_from)), &seen[was]);
                let mut rebuilt = ReadRow { cursor: None, ..old.clone() };
                let kept = usize::from(kept_from)..usize::from(kept_to);
                let was = usize::from(then_from)..usize::from(then_to);
                rebuilt.cells[kept.clone()].clone_from_slice(&old.cells[was.clone()]);
                rebuilt.marked[kept].copy_from_slice(&old.marked[was]);
                let added = usize::from(new_from)..usize::from(new_to);
                rebuilt.cells[added.clone()].clone_from_slice(&new.cells);
                rebuilt.marked[added].copy_from_slice(&new.marked);
                rebuilt.end_marks();
                rebuilt
            }
            _ => ReadRow::whole(content, cols),
        };
    }
    for (row, rebuilt) in now.iter().enumerate() {
        let truth = ReadRow::whole(frame.line(row), cols);
        if *rebuilt != truth {
            return Err(format!(
                "row {row} rebuilt as\n{}\nbut is\n{}\n(seen {:?}, now {:?})",
                rebuilt.readable(),
                truth.readable(),
                base.line(row),
                frame.line(row),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Modes;

    fn screen(rows: &[&str], cursor: (u16, u16)) -> Screen {
        Screen {
            cols: 20,
            rows: rows.len() as u16,
            lines: rows.iter().map(|r| (*r).to_owned()).collect(),
            cursor: Cursor { row: cursor.0, col: cursor.1, visible: true },
            alternate: true,
            title: String::new(),
            modes: Modes::OFF,
            wrapped: Vec::new(),
        }
    }

    fn run(row: u16, col: u16, width: u16, fg: &str, bg: &str, attrs: &[&'static str]) -> StyleRun {
        StyleRun { row, col, width, fg: fg.into(), bg: bg.into(), attrs: attrs.to_vec() }
    }

    /// A last row that never changes, long enough that the changes of the rows above it
    /// take fewer bytes than the whole screen.
    const FOOTER: &str = "F1 Help  F2 Setup  F3 Search  F4 Filter  F5 Tree  F6 SortBy  F10 Quit";

    /// A frame of `rows` and [`FOOTER`].
    fn frame(rows: &[&str], cursor: (u16, u16)) -> Frame {
        Frame::new(&screen(&[rows, &[FOOTER]].concat(), cursor), &[], Styles::Meaningful)
    }

    #[test]
    fn the_cursor_is_marked_on_its_cell() {
        let none = std::iter::empty();
        assert_eq!(decorate("abc", none.clone(), Some(1)), "a▌bc");
        assert_eq!(decorate("abc", none.clone(), Some(5)), "abc  ▌");
        assert_eq!(decorate("デx", none.clone(), Some(2)), "デ▌x");
        assert_eq!(decorate("", none, Some(0)), "▌");
    }

    /// A cursor parked far past its row's text (`watch` leaves it in the bottom-right
    /// corner) is told in the header, not marked after a run of blanks.
    #[test]
    fn a_cursor_far_past_its_rows_text_is_not_marked() {
        let at = |col: u16| {
            let mut screen = screen(&["$ ls", ""], (1, col));
            screen.cols = 80;
            Frame::new(&screen, &[], Styles::Meaningful)
        };
        assert_eq!(at(16).text(&Shape::Whole), format!("$ ls\n{}▌", " ".repeat(16)));
        assert!(!at(17).cursor_marked());
        assert_eq!(at(79).text(&Shape::Whole), "$ ls\n");
    }

    #[test]
    fn styled_runs_are_marked_as_asked() {
        let runs = [
            run(0, 2, 3, "black", "green", &[]),
            run(0, 6, 4, "red", "default", &["bold"]),
            run(1, 0, 6, "default", "default", &["inverse"]),
        ];
        let screen = screen(&["a PID USER", "  x"], (1, 1));
        assert!(Frame::new(&screen, &[], Styles::Off).cursor_marked());
        let meaningful = Frame::new(&screen, &runs, Styles::Meaningful);
        assert_eq!(meaningful.text(&Shape::Whole), "a ⟦PID⟧ USER\n⟦ ▌ x⟧");
        let all = Frame::new(&screen, &runs, Styles::All);
        assert_eq!(
            all.text(&Shape::Whole),
            "a ⟦black on green|PID⟧ ⟦bold red|USER⟧\n⟦inverse| ▌ x   ⟧"
        );
        let off = Frame::new(&screen, &runs, Styles::Off);
        assert_eq!(off.text(&Shape::Whole), "a PID USER\n ▌ x");
        // Neighbours with the same label are one mark.
        let split = [run(0, 2, 1, "red", "green", &[]), run(0, 3, 2, "blue", "green", &[])];
        let frame = Frame::new(&screen, &split, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "a ⟦PID⟧ USER\n ▌ x");
        // Too many highlights are a colour scheme: none is marked, but for a background
        // few of the coloured cells have (a dialog's selected entry).
        let many: Vec<StyleRun> = (0..=MAX_MEANINGFUL_RUNS as u16)
            .map(|c| run(0, c, 1, "default", "blue", &[]))
            .collect();
        let frame = Frame::new(&screen, &many, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "a PID USER\n ▌ x");
        let selected = [many.as_slice(), &[run(1, 1, 2, "white", "red", &[])]].concat();
        let frame = Frame::new(&screen, &selected, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "a PID USER\n ⟦▌ x⟧");
        // A background painted on most of the screen (curses' white on black) is the screen's
        // own colour: only what differs from it is marked.
        let painted = [
            run(0, 0, 20, "white", "black", &[]),
            run(1, 0, 1, "white", "black", &[]),
            run(1, 1, 2, "black", "white", &[]),
            run(1, 3, 17, "white", "black", &[]),
        ];
        let frame = Frame::new(&screen, &painted, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "a PID USER\n ⟦▌ x⟧");
    }

    /// A gutter beside a list (fzf's blank, in the selection's background) and a line
    /// between two views (tig's `│`) are drawn alike down a column whatever is selected: not
    /// marked, though the selected entry, whose gutter holds `>`, is. A block of text selected
    /// down a column (vim's `x` of each row) is still marked.
    #[test]
    fn runs_drawn_alike_down_a_column_are_not_marked() {
        let lines = ["  fig  │a", "  date │b", "> apple│c", "  kiwi │d"];
        let screen = screen(&lines, (3, 8));
        let mut runs = Vec::new();
        for row in 0..4 {
            runs.push(run(row, 0, 1, "default", "color(236)", &[]));
            runs.push(run(row, 7, 1, "blue", "color(236)", &[]));
        }
        runs[4] = run(2, 0, 7, "default", "color(236)", &[]);
        let frame = Frame::new(&screen, &runs, Styles::Meaningful);
        let shown = "  fig  │a\n  date │b\n⟦> apple⟧│c\n  kiwi │d";
        assert_eq!(frame.text(&Shape::Whole), shown);
        let screen = self::screen(&["x=1", "x=2", "x=3", "x=4"], (3, 0));
        let block: Vec<StyleRun> =
            (0..3).map(|row| run(row, 0, 1, "default", "red", &[])).collect();
        let frame = Frame::new(&screen, &block, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "⟦x⟧=1\n⟦x⟧=2\n⟦x⟧=3\nx=4");
    }

    /// mc: panels painted blue, a selection bar in cyan between their borders, and a menu
    /// bar and a function-key bar coloured whole, cyan with black keys, many runs. The
    /// selection bar was not marked: cyan covers too many of the coloured cells to be rare.
    #[test]
    fn a_selection_bar_on_the_screens_ground_is_marked_beside_bars_of_its_colour() {
        let lines = ["  Left  File", "|/..   |a  |", "| alpha|b  |", "| beta |c  |", "1Help2Menu"];
        let mut screen = screen(&lines, (4, 0));
        screen.cols = 12;
        let selected = |at: u16| {
            let mut runs = vec![run(0, 0, 12, "black", "cyan", &[])];
            for row in 1..4 {
                match row == at {
                    true => runs.extend([
                        run(row, 0, 1, "white", "blue", &[]),
                        run(row, 1, 6, "black", "cyan", &[]),
                        run(row, 7, 5, "white", "blue", &[]),
                    ]),
                    false => runs.push(run(row, 0, 12, "white", "blue", &[])),
                }
            }
            for key in 0..12 {
                runs.push(run(4, key, 1, "white", ["black", "cyan"][usize::from(key % 2)], &[]));
            }
            runs.push(run(5, 0, 12, "white", "blue", &[]));
            runs
        };
        let lines_of = |frame: &Frame| {
            frame.text(&Shape::Whole).lines().skip(1).take(3).map(str::to_owned).collect::<Vec<_>>()
        };
        let first = Frame::new(&screen, &selected(2), Styles::Meaningful);
        assert_eq!(lines_of(&first), ["|/..   |a  |", "|⟦ alpha⟧|b  |", "| beta |c  |"]);
        let next = Frame::new(&screen, &selected(3), Styles::Meaningful);
        assert_eq!(lines_of(&next), ["|/..   |a  |", "| alpha|b  |", "|⟦ beta ⟧|c  |"]);
        // With more such runs than the highlights' number, only the rare ones are marked.
        let mut crowded = selected(2);
        crowded.extend((0..20).map(|row| run(row + 6, 0, 1, "white", "cyan", &[])));
        let mut tall = screen.clone();
        tall.rows = 26;
        // (Each crowding run on a letter of its own: runs alike row after row, a gutter, are
        // not counted.)
        tall.lines.extend((b'a'..=b'z').take(21).map(|c| char::from(c).to_string()));
        let frame = Frame::new(&tall, &crowded, Styles::Meaningful);
        assert_eq!(lines_of(&frame), ["|/..   |a  |", "| alpha|b  |", "| beta |c  |"]);
        assert!(frame.text(&Shape::Whole).contains("⟦1⟧H⟦e⟧"), "{}", frame.text(&Shape::Whole));
    }

    /// dialog: a screen painted blue, a white box with many runs, and the selected entry blue
    /// on white, the screen's own colour. It was never marked: a menu read the same whichever
    /// entry was selected. An island of the screen's colour inside the box is marked; the
    /// screen's colour at a row's ends is not.
    #[test]
    fn an_entry_in_the_screens_colour_inside_a_box_is_marked() {
        let texts = ["", "     | 1 Apple", "     | 2 Banana", "     |", "     |", "     |", ""];
        let mut screen = screen(&texts, (5, 6));
        screen.cols = 30;
        screen.alternate = false;
        let menu = |selected: u16| {
            let mut runs = vec![run(0, 0, 30, "default", "blue", &[])];
            for row in 1..6 {
                runs.push(run(row, 0, 5, "default", "blue", &[]));
                if row == selected {
                    runs.push(run(row, 5, 2, "black", "white", &[]));
                    runs.push(run(row, 7, 1, "red", "blue", &["bold"]));
                    runs.push(run(row, 8, 1, "black", "white", &[]));
                    runs.push(run(row, 9, 6, "white", "blue", &["bold"]));
                    runs.push(run(row, 15, 10, "default", "white", &[]));
                } else {
                    for col in (5..25).step_by(4) {
                        let fg = ["black", "red"][usize::from(col % 8 / 4)];
                        runs.push(run(row, col, 4, fg, "white", &[]));
                    }
                }
                runs.push(run(row, 25, 5, "default", "blue", &[]));
            }
            runs.push(run(6, 0, 30, "default", "blue", &[]));
            runs
        };
        let rows = |frame: &Frame| {
            frame.text(&Shape::Whole).lines().skip(1).take(2).map(str::to_owned).collect::<Vec<_>>()
        };
        let apple = Frame::new(&screen, &menu(1), Styles::Meaningful);
        assert_eq!(rows(&apple), ["     | ⟦1⟧ ⟦Apple⟧", "     | 2 Banana"]);
        let banana = Frame::new(&screen, &menu(2), Styles::Meaningful);
        assert_eq!(rows(&banana), ["     | 1 Apple", "     | ⟦2⟧ ⟦Banana⟧"]);
    }

    /// irb's completion menu: entries cyan, the selected one magenta, each a row of its own.
    /// All were marked alike, and a Tab that moved the selection read as no change; the one
    /// entry of a column whose look differs from all the others' is marked again. Entries of
    /// three looks, or none selected, are marked once.
    #[test]
    fn the_one_entry_of_a_column_in_another_colour_is_marked_again() {
        let texts = ["> x.ma", "  x.map!", "  x.map", "  x.max", FOOTER];
        let screen = screen(&texts, (0, 6));
        let menu = |looks: [&str; 3]| {
            let runs: Vec<StyleRun> =
                (0..3).map(|i| run(i + 1, 2, 6, "default", looks[usize::from(i)], &[])).collect();
            Frame::new(&screen, &runs, Styles::Meaningful)
        };
        let entries = |frame: &Frame| {
            frame.text(&Shape::Whole).lines().skip(1).take(3).map(str::to_owned).collect::<Vec<_>>()
        };
        let none = menu(["cyan", "cyan", "cyan"]);
        assert_eq!(entries(&none), ["  ⟦x.map!⟧", "  ⟦x.map⟧", "  ⟦x.max⟧"]);
        let second = menu(["cyan", "magenta", "cyan"]);
        assert_eq!(entries(&second), ["  ⟦x.map!⟧", "  ⟦⟦x.map⟧⟧", "  ⟦x.max⟧"]);
        let seen = SeenScreens::default();
        let id = SessionId(1);
        seen.remember(id, Some(menu(["magenta", "cyan", "cyan"])));
        assert_eq!(seen.shape(id, &second, false), rows(&[1, 2]));
        let three = menu(["cyan", "magenta", "blue"]);
        assert_eq!(entries(&three), ["  ⟦x.map!⟧", "  ⟦x.map⟧", "  ⟦x.max⟧"]);
    }

    /// A dialog whose rows are marked whole (its background is not the screen's) marks its
    /// focused button again inside them, and moving the focus changes the row: merged with
    /// the rest, the two buttons read the same, and a Tab read as no change.
    #[test]
    fn a_focused_button_inside_a_marked_dialog_is_marked_again() {
        let row = "| <Yes>  <No>  |";
        let dialog = |focus: u16| {
            let mut runs = vec![run(0, 0, 16, "black", "white", &[])];
            runs.extend([run(1, 0, focus, "black", "white", &[])]);
            runs.push(run(1, focus, 5, "white", "red", &[]));
            runs.push(run(1, focus + 5, 16 - focus - 5, "black", "white", &[]));
            let screen = screen(&["", row, "x", FOOTER, FOOTER, FOOTER], (2, 1));
            Frame::new(&screen, &runs, Styles::Meaningful)
        };
        let yes = dialog(2);
        let whole = |frame: &Frame| {
            frame.text(&Shape::Whole).lines().take(3).map(str::to_owned).collect::<Vec<_>>()
        };
        assert_eq!(whole(&yes), ["", "⟦| ⟦<Yes>⟧  <No>  |⟧", "x▌"]);
        let no = dialog(9);
        assert_eq!(whole(&no), ["", "⟦| <Yes>  ⟦<No> ⟧ |⟧", "x▌"]);
        let seen = SeenScreens::default();
        let id = SessionId(1);
        seen.remember(id, Some(yes));
        assert_eq!(seen.shape(id, &no, false), rows(&[1]));
        // Touching runs of two other backgrounds are two marks, not one.
        let runs = [
            run(0, 0, 2, "black", "white", &[]),
            run(0, 2, 2, "white", "red", &[]),
            run(0, 4, 2, "white", "green", &[]),
            run(0, 6, 10, "black", "white", &[]),
        ];
        let frame = Frame::new(&screen(&["abcdefghij", ""], (1, 0)), &runs, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "⟦ab⟦cd⟧⟦ef⟧ghij⟧\n▌");
    }

    /// Changes since the last look, with no block moved.
    fn rows(rows: &[u16]) -> Shape {
        Shape::Changes(Changes {
            look: 1,
            moved: None,
            slid: None,
            rows: rows.to_vec(),
            title_changed: false,
        })
    }

    #[test]
    fn only_changed_rows_are_shown_until_most_change() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let first = frame(&["a", "b", "c", "d", "e", "f"], (5, 1));
        assert_eq!(seen.shape(id, &first, false), Shape::Whole);
        assert_eq!(first.text(&Shape::Whole), format!("a\nb\nc\nd\ne\nf▌\n{FOOTER}"));
        seen.remember(id, Some(first.clone()));
        assert_eq!(seen.shape(id, &first, false), rows(&[]));
        assert_eq!(seen.shape(id, &first, true), Shape::Whole);
        // One row changes and the cursor moves onto a blank: the changed row, the one the
        // cursor is marked on, and the one whose mark is gone.
        let next = frame(&["a", "B", "c", "d", "e", "f"], (2, 1));
        let shape = seen.shape(id, &next, false);
        assert_eq!(shape, rows(&[1, 2, 5]));
        assert_eq!(next.text(&shape), "1│B\n2│c▌\n5│f");
        // On a character the cursor is not marked (the header says where it is).
        let on_char = frame(&["a", "B", "c", "d", "e", "f"], (2, 0));
        assert!(!on_char.cursor_marked());
        assert_eq!(on_char.text(&rows(&[2])), "2│c");
        // A highlight that moves changes the rows it left and reached.
        let runs = [run(3, 0, 1, "default", "default", &["inverse"])];
        let lines = ["a", "b", "c", "d", "e", "f", FOOTER];
        let highlighted = Frame::new(&screen(&lines, (5, 1)), &runs, Styles::Meaningful);
        assert_eq!(seen.shape(id, &highlighted, false), rows(&[3]));
        // Most rows change: the whole screen (as when the changes are longer than it).
        let most = frame(&["1", "2", "3", "4", "e", "f"], (5, 1));
        assert_eq!(seen.shape(id, &most, false), Shape::Whole);
        // A cut screen is not remembered, nor any seen before it.
        seen.remember(id, None);
        assert_eq!(seen.shape(id, &next, false), Shape::Whole);
    }

    #[test]
    fn a_block_of_rows_that_moved_is_said_once() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let lines: Vec<String> = (1..=20).map(|n| format!("note {n}")).collect();
        let page = |first: usize, status: &str| {
            let mut rows: Vec<&str> = lines[first..first + 8].iter().map(String::as_str).collect();
            rows.push(status);
            frame(&rows, (8, 0))
        };
        seen.remember(id, Some(page(0, "-- INSERT --")));
        // Scrolled up three rows, the status line cleared: the block, then the rows it left.
        // Without the move that would be every row: the whole screen.
        let scrolled = page(3, "");
        let shape = seen.shape(id, &scrolled, false);
        let moved = Some(Moved { from: 3, to: 0, count: 5 });
        assert_eq!(
            shape,
            Shape::Changes(Changes {
                look: 1,
                moved,
                slid: None,
                rows: vec![5, 6, 7, 8],
                title_changed: false
            })
        );
        assert_eq!(scrolled.text(&shape), "5│note 9\n6│note 10\n7│note 11\n8│▌");
        // A row inserted above a list moves the list down.
        let list = ["PID", "1 init", "2 bash", "3 vim", "4 less", "Quit"];
        seen.remember(id, Some(frame(&list, (5, 0))));
        let inserted = ["PID", "9 htop", "1 init", "2 bash", "3 vim", "Quit"];
        let moved = Some(Moved { from: 1, to: 2, count: 3 });
        assert_eq!(
            seen.shape(id, &frame(&inserted, (5, 0)), false),
            Shape::Changes(Changes {
                look: 1,
                moved,
                slid: None,
                rows: vec![1],
                title_changed: false
            })
        );
        // Changes longer than the whole screen: the whole screen.
        let short = |lines: &[&str]| Frame::new(&screen(lines, (5, 0)), &[], Styles::Meaningful);
        seen.remember(id, Some(short(&["1", "2", "3", "4", "5", "6"])));
        let shifted = short(&["3", "4", "5", "6", "7", "8"]);
        assert!(find_move(&shifted, &short(&["1", "2", "3", "4", "5", "6"])).is_some());
        assert_eq!(seen.shape(id, &shifted, false), Shape::Whole);
        // The row the cursor was marked on is no part of a block, and the cursor's row is
        // listed when a block ends on it, though the cursor stayed where it was.
        let item = |n: usize| format!("item {n} of the list");
        let list: Vec<String> = (0..12).map(item).collect();
        let rows = |first: usize| list[first..first + 8].iter().map(String::as_str).collect();
        let marked_at = |row: u16, lines: Vec<&str>| {
            let mut lines = lines;
            lines.push("");
            Frame::new(&screen(&lines, (row, 18)), &[], Styles::Meaningful)
        };
        // Seen rows 3 to 7 moved up three, but row 5 (the mark) splits them: 3 and 4 are the
        // block (the first of two as long).
        let (before, after) = (marked_at(5, rows(0)), marked_at(5, rows(3)));
        assert!(before.cursor_marked());
        assert_eq!(find_move(&after, &before), Some(Moved { from: 3, to: 0, count: 2 }));
        // The cursor stays on row 1, which the block reaches: row 1 is sent, with the mark.
        let (before, after) = (marked_at(1, rows(0)), marked_at(1, rows(3)));
        let changes = changes_since(&after, &before, 1);
        assert_eq!(changes.moved, Some(Moved { from: 3, to: 0, count: 5 }));
        assert_eq!(changes.rows, [1, 5, 6, 7]);
        assert!(after.text(&Shape::Changes(changes)).starts_with("1│item 4 of the list▌"));
        // Blank rows that stay blank are no move.
        let blanks = frame(&["", "", "x", "", "", ""], (5, 0));
        let other = frame(&["", "", "", "y", "", ""], (5, 0));
        assert!(find_move(&other, &blanks).is_none());
        // Nor are blank rows that moved onto text (rows cleared).
        let text = frame(&["a line", "b line", "c line", "", "", ""], (5, 0));
        let cleared = frame(&["", "", "", "", "", ""], (5, 0));
        assert!(find_move(&cleared, &text).is_none());
    }

    #[test]
    fn rows_that_slid_sideways_are_sent_as_their_new_columns() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let procs = [
            "  PID USER  CPU% Command",
            "    1 root   0.0 /sbin/init",
            "   59 root   0.0 /usr/bin/bash",
            "   60 root   0.0 /usr/bin/less",
            "  102 user   1.5 /usr/bin/htop --tree",
        ];
        let framed = |lines: &[&str], runs: &[StyleRun]| {
            let lines: Vec<&str> = [&["meters"], lines, &[FOOTER]].concat();
            Frame::new(&screen(&lines, (0, 0)), runs, Styles::Meaningful)
        };
        // The column header is highlighted across the row.
        let list = framed(&procs, &[run(1, 0, 20, "black", "green", &[])]);
        seen.remember(id, Some(list.clone()));
        // A panel opens at the left and the list moves right behind it, cut at the edge; its
        // highlight moves with it and the panel's own is new.
        let panel = ["Sort by", "PID", "USER", "CPU%", "Command"];
        let opened: Vec<String> =
            panel.iter().zip(procs).map(|(p, row)| format!("{p:<9}{row}")).collect();
        let opened: Vec<&str> = opened.iter().map(String::as_str).collect();
        let runs = [run(1, 0, 7, "black", "cyan", &[]), run(1, 9, 11, "black", "green", &[])];
        let menu = framed(&opened, &runs);
        let shape = seen.shape(id, &menu, false);
        let slid = Some(Slid { first: 1, count: 5, by: 9, from_col: 0, to_col: 20, down: 0 });
        assert_eq!(
            shape,
            Shape::Changes(Changes {
                look: 1,
                moved: None,
                slid,
                rows: vec![1, 2, 3, 4, 5],
                title_changed: false
            })
        );
        assert_eq!(menu.text(&shape), "1│⟦Sort by⟧\n2│PID\n3│USER\n4│CPU%\n5│Command");
        // Scrolled sideways to the left: the new columns are at the right.
        let wide: Vec<String> =
            (0..8).map(|n| format!("{n}: {}", "abcdefghij".repeat(2))).collect();
        let rows = |skip: usize| {
            let lines: Vec<String> = wide.iter().map(|l| l[skip..skip + 20].to_owned()).collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            framed(&lines, &[])
        };
        seen.remember(id, Some(rows(0)));
        let scrolled = rows(2);
        let shape = seen.shape(id, &scrolled, false);
        let Shape::Changes(changes) = &shape else { panic!("{shape:?}") };
        assert_eq!(
            changes.slid,
            Some(Slid { first: 1, count: 8, by: -2, from_col: 0, to_col: 20, down: 0 })
        );
        // The screen is 20 wide: its last two columns, which were past its edge.
        assert_eq!(scrolled.text(&shape), "1│hi\n2│hi\n3│hi\n4│hi\n5│hi\n6│hi\n7│hi\n8│hi");
        // A row whose highlight did not move with its text did not slide.
        let list = framed(&procs, &[run(1, 2, 3, "black", "green", &[])]);
        let still = [run(1, 2, 3, "black", "green", &[])];
        let slid = find_slide(&framed(&opened, &still), &list, |_| true);
        assert_eq!(
            slid,
            Some(Slid { first: 2, count: 4, by: 9, from_col: 0, to_col: 20, down: 0 })
        );
        // Nor do rows that only keep blanks (a short row's blank end), nor a block that
        // saves fewer bytes than the note that tells it.
        let short = framed(&["ab", "cd", "ef", "gh", "ij"], &[]);
        let moved = framed(&["  ab", "  cd", "  ef", "  gh", "  ij"], &[]);
        assert_eq!(find_slide(&moved, &short, |_| true), None);
    }

    /// A list that gained a row at its top as a panel opened beside it moved down and right:
    /// its rows are told as the seen rows they came from, moved, and only the panel is sent.
    #[test]
    fn rows_that_moved_down_and_slid_are_sent_as_their_new_columns() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let process = |pid: u32, name: &str| {
            format!("{pid:>6} root  20  0 39436  9172  6884 S  0.0  0.0 0:24.75 {name}")
        };
        let names = ["/sbin/init", "/usr/bin/bash", "/usr/bin/less", "/usr/bin/vim"];
        let list: Vec<String> =
            names.iter().enumerate().map(|(n, name)| process(n as u32 + 1, name)).collect();
        let lines = |rows: &[String]| -> Frame {
            let mut rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            rows.push(FOOTER);
            let mut screen = screen(&rows, (0, 0));
            screen.cols = 80;
            Frame::new(&screen, &[], Styles::Meaningful)
        };
        let before = lines(&list);
        seen.remember(id, Some(before.clone()));
        // A new process at the top, the last one pushed off, and a 12-column panel.
        let mut moved = vec![process(999, "/usr/bin/new")];
        moved.extend(list[..3].iter().cloned());
        let panel = ["Sort by", "PID", "USER", "TIME"];
        let opened: Vec<String> =
            panel.iter().zip(&moved).map(|(p, row)| format!("{p:<12}{row}")).collect();
        let after = lines(&opened);
        let shape = seen.shape(id, &after, false);
        let Shape::Changes(changes) = &shape else { panic!("{shape:?}") };
        assert_eq!(
            changes.slid,
            Some(Slid { first: 1, count: 3, by: 12, from_col: 0, to_col: after.cols, down: 1 })
        );
        assert_eq!(rebuilds(&before, changes, &after), Ok(()));
        let text = after.text(&shape);
        assert!(text.starts_with(&format!("0│{}\n1│PID\n2│USER\n3│TIME", opened[0])), "{text}");
    }

    /// A dialog drawn over rows of a bordered panel (mc's): its rows end with the border
    /// character the panel's rows begin with, which a slide of all but one column keeps. Its
    /// box-drawing characters take three bytes a cell, so sending them as "new columns" saves
    /// nothing: the rows are sent whole, with no slide told.
    #[test]
    fn a_slide_keeping_a_border_cell_of_rows_of_box_characters_is_no_saving() {
        let panel = "│ item          │ 1 │";
        let dialog = "│ ├────────────┤ │ │";
        let lines = |rows: &[&str]| -> Frame {
            let mut all = vec![panel; 2];
            all.extend_from_slice(rows);
            all.extend(vec!["└──────────────┴───┘"; 6]);
            frame(&all, (0, 0))
        };
        let before = lines(&[panel; 4]);
        let after = lines(&[dialog; 4]);
        assert_eq!(find_slide(&after, &before, |_| true), None);
        let seen = SeenScreens::default();
        let id = SessionId(1);
        seen.remember(id, Some(before));
        let shape = seen.shape(id, &after, false);
        let Shape::Changes(changes) = &shape else { panic!("{shape:?}") };
        assert_eq!((changes.slid, &changes.rows), (None, &vec![2, 3, 4, 5]));
    }

    /// gdb's TUI turning its source window into its assembly: rows of new text between the
    /// same borders, padded to the right one. A slide of all but one column keeps the left
    /// border as the right one and saves the padding, but no text moved: the rows are sent
    /// as changed, with no slide told (`rows 1-13 as then but moved 79 columns to the right`).
    #[test]
    fn a_slide_keeping_only_a_border_is_no_slide() {
        let boxed = |text: &str| format!("│{text:<58}│");
        let source: Vec<String> =
            (0..8).map(|n| boxed(&format!("   {n}  int x{n} = {n};"))).collect();
        let asm: Vec<String> =
            (0..8).map(|n| boxed(&format!(" 0x55{n} <main+{n}>  mov %rsp"))).collect();
        let frame = |rows: &[String]| {
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            let mut screen = screen(&rows, (0, 0));
            screen.cols = 60;
            Frame::new(&screen, &[], Styles::Meaningful)
        };
        assert_eq!(find_slide(&frame(&asm), &frame(&source), |_| true), None);
    }

    #[test]
    fn a_window_keeps_the_marks_of_no_width_of_its_characters() {
        let frame = Frame::new(&screen(&["abe\u{301}de\u{301}"], (0, 0)), &[], Styles::Off);
        assert_eq!(frame.window(0, 0, 3), "abe\u{301}");
        assert_eq!(frame.window(0, 3, 5), "de\u{301}");
        // A wide character cut by a window's end is blanks, and its mark goes with it.
        let frame = Frame::new(&screen(&["aデ\u{301}b"], (0, 0)), &[], Styles::Off);
        assert_eq!(frame.window(0, 0, 2), "a");
        assert_eq!(frame.window(0, 2, 4), " b");
    }

    /// Four rows of each of `then` and `now` (60 columns) above four rows that stay: the
    /// changes `now` is sent as after `then`, checked by [`rebuilds`].
    fn slid_rows(then: &str, now: &str, runs: &[StyleRun]) -> (Changes, Result<(), String>) {
        let lines = |row: &str| {
            let mut lines = vec![row.to_owned(); 4];
            lines.extend(vec!["a footer line that stays".to_owned(); 4]);
            lines
        };
        let screen = |row: &str| Screen {
            cols: 60,
            rows: 8,
            lines: lines(row),
            cursor: Cursor { row: 0, col: 0, visible: false },
            alternate: true,
            title: String::new(),
            modes: Modes::OFF,
            wrapped: Vec::new(),
        };
        let (seen, id) = (SeenScreens::default(), SessionId(1));
        let base = Frame::new(&screen(then), &[], Styles::Meaningful);
        seen.remember(id, Some(base.clone()));
        let frame = Frame::new(&screen(now), runs, Styles::Meaningful);
        let Shape::Changes(changes) = seen.shape(id, &frame, false) else { panic!("whole") };
        let rebuilt = rebuilds(&base, &changes, &frame);
        (changes, rebuilt)
    }

    /// 57 letters.
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcde";

    #[test]
    fn a_slide_never_cuts_a_wide_character_at_the_new_columns_edge() {
        // Both edges of the new columns (55-57) would cut one.
        let (then, now) = (format!("{LETTERS}デx"), format!("{}デyアx", &LETTERS[3..]));
        let (changes, rebuilt) = slid_rows(&then, &now, &[]);
        assert!(rebuilt.is_ok(), "{changes:?}: {rebuilt:?}");
        // Only their first (57) would: the kept columns end with the character's first half.
        let (then, now) = (format!("{LETTERS}xyデ"), format!("{}xyデab", &LETTERS[3..]));
        let (changes, rebuilt) = slid_rows(&then, &now, &[]);
        assert!(rebuilt.is_ok(), "{changes:?}: {rebuilt:?}");
    }

    #[test]
    fn characters_with_marks_of_no_width_are_told_apart() {
        // `e` and U+0301 folded by a sum would be U+0F3A.
        let tail = "klmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh";
        let (then, now) = (format!("e\u{301}{tail}"), format!("zz\u{f3a}{tail}"));
        let (changes, rebuilt) = slid_rows(&then, &now, &[]);
        assert!(rebuilt.is_ok(), "{changes:?}: {rebuilt:?}");
        assert_eq!(changes.slid, None);
    }

    #[test]
    fn highlighted_blanks_inside_a_row_are_sent() {
        let pad = " ".repeat(56);
        let runs: Vec<StyleRun> =
            (0..4).map(|row| run(row, 5, 6, "default", "blue", &[])).collect();
        let (changes, rebuilt) = slid_rows(&format!("|ab{pad}|"), &format!("|b {pad}|"), &runs);
        assert!(rebuilt.is_ok(), "{changes:?}: {rebuilt:?}");
    }

    /// A xorshift generator for the tests' random screens.
    struct Random(u64);

    impl Random {
        /// A number below `n`.
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        /// `len` cells of letters and blanks.
        fn word(&mut self, len: usize) -> Vec<char> {
            let mut cell = || match self.below(4) {
                0 => ' ',
                _ => char::from(b'a' + self.below(6) as u8),
            };
            (0..len).map(|_| cell()).collect()
        }

        /// A row `cols` wide: text up to a random length, and a highlight of up to two cells.
        fn row(&mut self, cols: usize) -> (Vec<char>, Vec<bool>) {
            let len = self.below(cols + 1);
            let mut cells = self.word(len);
            cells.resize(cols, ' ');
            let (at, width) = (self.below(cols), self.below(3));
            (cells, (0..cols).map(|c| c >= at && c < at + width).collect())
        }
    }

    /// Screens changed at random (rows edited, blocks moved up or down, blocks slid sideways
    /// with new columns, highlights and the cursor moved) are rebuilt exactly from the last
    /// two screens seen and the changes sent.
    #[test]
    fn changes_rebuild_the_screen_exactly() {
        let (cols, rows) = (40usize, 12usize);
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        // (cells, marked) per row, and the cursor.
        type Grid = (Vec<(Vec<char>, Vec<bool>)>, (u16, u16));
        let to_frame = |(grid, cursor): &Grid| {
            let lines: Vec<String> = grid
                .iter()
                .map(|(cells, _)| cells.iter().collect::<String>().trim_end().to_owned())
                .collect();
            let mut runs = Vec::new();
            for (row, (_, marked)) in grid.iter().enumerate() {
                let mut col = 0;
                while col < cols {
                    let end = (col..cols).find(|&c| !marked[c]).unwrap_or(cols);
                    if end > col {
                        runs.push(run(
                            row as u16,
                            col as u16,
                            (end - col) as u16,
                            "white",
                            "blue",
                            &[],
                        ));
                    }
                    col = end + 1;
                }
            }
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let mut screen = screen(&lines, *cursor);
            screen.cols = cols as u16;
            Frame::new(&screen, &runs, Styles::Meaningful)
        };
        let (mut slides, mut moves, mut looks_back, mut spans, mut diagonal) = (0, 0, 0, 0, 0);
        let mut two_down = 0;
        for _ in 0..3000 {
            let mut grid: Grid = ((0..rows).map(|_| random.row(cols)).collect(), (0, 0));
            let seen = SeenScreens::default();
            let id = SessionId(1);
            let mut frames = vec![to_frame(&grid)];
            seen.remember(id, Some(frames[0].clone()));
            for _ in 0..2 {
                for _ in 0..1 + random.below(3) {
                    let first = random.below(rows);
                    let count = 1 + random.below(rows - first);
                    match random.below(5) {
                        0 => grid.0[first] = random.row(cols),
                        1 => {
                            let to = random.below(rows - count + 1);
                            let block: Vec<_> = grid.0[first..first + count].to_vec();
                            grid.0.splice(to..to + count, block);
                        }
                        2 | 3 => {
                            // Within the row or between fixed margins.
                            let (start, end) = match random.below(3) {
                                0 => (random.below(4), cols - random.below(3)),
                                _ => (0, cols),
                            };
                            let width = end - start;
                            let widest = if random.below(4) == 0 { width - 1 } else { 8 };
                            let shift = 1 + random.below(widest);
                            for row in first..first + count {
                                let (cells, marked) = &mut grid.0[row];
                                // Now and then a margin changes too.
                                if random.below(4) == 0 {
                                    let at = [0, cols - 1][random.below(2)];
                                    cells[at] = random.word(1)[0];
                                }
                                let (cells, marked) =
                                    (&mut cells[start..end], &mut marked[start..end]);
                                let new = random.word(shift);
                                // Now and then a highlight stays where it was.
                                let marks_stay = random.below(4) == 0;
                                if random.below(2) == 0 {
                                    cells.rotate_right(shift);
                                    cells[..shift].copy_from_slice(&new);
                                    if !marks_stay {
                                        marked.rotate_right(shift);
                                        marked[..shift].fill(false);
                                    }
                                } else {
                                    cells.rotate_left(shift);
                                    cells[width - shift..].copy_from_slice(&new);
                                    if !marks_stay {
                                        marked.rotate_left(shift);
                                        marked[width - shift..].fill(false);
                                    }
                                }
                            }
                            // Now and then the block moves a row or two down or up as well.
                            let to = match random.below(7) {
                                0 if first + count < rows => Some(first + 1),
                                1 if first > 0 => Some(first - 1),
                                2 if first + count + 1 < rows => Some(first + 2),
                                3 if first > 1 => Some(first - 2),
                                _ => None,
                            };
                            if let Some(to) = to {
                                let block: Vec<_> = grid.0[first..first + count].to_vec();
                                grid.0.splice(to..to + count, block);
                            }
                        }
                        _ => {
                            grid.1 = (
                                random.below(rows) as u16,
                                random.below(cols + 1).min(cols - 1) as u16,
                            )
                        }
                    }
                }
                let frame = to_frame(&grid);
                if let Shape::Changes(changes) = seen.shape(id, &frame, false) {
                    let base = &frames[frames.len() - usize::from(changes.look)];
                    if let Err(wrong) = rebuilds(base, &changes, &frame) {
                        panic!(
                            "{changes:?}\n{}\n{wrong}",
                            frame.text(&Shape::Changes(changes.clone()))
                        );
                    }
                    slides += usize::from(changes.slid.is_some());
                    spans += usize::from(
                        changes.slid.is_some_and(|s| s.to_col - s.from_col < cols as u16),
                    );
                    moves += usize::from(changes.moved.is_some());
                    diagonal += usize::from(changes.slid.is_some_and(|s| s.down != 0));
                    two_down += usize::from(changes.slid.is_some_and(|s| s.down.abs() == 2));
                    // The search of the shifts a row's characters allow finds what trying
                    // every shift finds.
                    let seen_frame = &frames[frames.len() - 1];
                    assert_eq!(
                        find_slide(&frame, seen_frame, |_| true),
                        find_slide_trying_every_shift(&frame, seen_frame)
                    );
                    looks_back += usize::from(changes.look == 2);
                }
                seen.remember(id, Some(frame.clone()));
                if frames.last() != Some(&frame) {
                    frames.push(frame);
                }
            }
        }
        // The cases that matter were met.
        assert!(
            slides > 40 && spans > 6 && moves > 100 && looks_back > 12 && diagonal > 10,
            "{slides} {spans} {moves} {looks_back} {diagonal}"
        );
        assert!(two_down > 3, "{two_down}");
    }

    /// [`find_slide`] as it was first written: every shift of every span tried on every row
    /// (rows that may slide: all).
    fn find_slide_trying_every_shift(frame: &Frame, seen: &Frame) -> Option<Slid> {
        let cols = usize::from(frame.cols);
        let rows = usize::from(frame.rows).min(frame.texts.len()).min(seen.texts.len());
        let mut numbers = CellNumbers::default();
        let (now, then) = (frame.cells(&mut numbers), seen.cells(&mut numbers));
        let mut best: Option<(usize, Slid)> = None;
        for down in SLIDE_ROWS_DOWN {
            let from = |row: usize| {
                let was = row as isize - isize::from(down);
                (0..rows as isize).contains(&was).then_some(was as usize)
            };
            for (from_col, to_col) in slide_spans(&now, &then, cols, from, |r| from(r).is_some()) {
                for by in (1..to_col - from_col).flat_map(|s| [s as i16, -(s as i16)]) {
                    let (from_col, to_col) = (from_col as u16, to_col as u16);
                    let slid = Slid { first: 0, count: 0, by, from_col, to_col, down };
                    let mut run: Option<(usize, usize)> = None;
                    let saves = |row: usize| {
                        let was = from(row)?;
                        slide_saves(frame, &now[row], &then[was], row, &slid)
                    };
                    for (row, saved) in (0..rows).map(saves).chain([None]).enumerate() {
                        if let Some(saved) = saved {
                            run =
                                Some(run.map_or((row, saved), |(first, all)| (first, all + saved)));
                            continue;
                        }
                        if let Some((first, saved)) = run.take() {
                            let count = row - first;
                            if count >= 2
                                && saved > SLIDE_NOTE
                                && best.is_none_or(|(most, _)| saved > most)
                            {
                                let block =
                                    Slid { first: first as u16, count: count as u16, ..slid };
                                best = Some((saved, block));
                            }
                        }
                    }
                }
            }
        }
        best.map(|(_, block)| block)
    }

    #[test]
    fn a_screen_seen_before_the_last_one_can_be_the_base() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let list = frame(&["PID", "1 init", "2 bash", "3 vim", "4 less", "Quit"], (5, 0));
        let menu = frame(&["Sort", "PID", "USER", "TIME", "MEM", "Enter"], (5, 0));
        seen.remember(id, Some(list.clone()));
        seen.remember(id, Some(menu.clone()));
        // Seeing the menu again keeps the list as the previous different screen.
        seen.remember(id, Some(menu.clone()));
        // The menu closed, one process gone: one row since the previous different screen.
        let back = frame(&["PID", "1 init", "2 bash", "3 vim", "", "Quit"], (5, 0));
        let changes =
            Changes { look: 2, moved: None, slid: None, rows: vec![4], title_changed: false };
        assert_eq!(seen.shape(id, &back, false), Shape::Changes(changes));
        // Only two looks are kept.
        seen.remember(id, Some(back.clone()));
        seen.remember(id, Some(menu));
        {
            let looks = &seen.seen.lock().unwrap().sessions[&id].0;
            assert_eq!(looks.len(), LOOKS_KEPT);
            assert_eq!(looks[0], back);
        }
        // The screens of only so many sessions are kept: the one shown least recently goes.
        for other in 2..=SESSIONS_KEPT as u64 {
            seen.remember(SessionId(other), Some(list.clone()));
        }
        seen.remember(id, Some(list.clone()));
        seen.remember(SessionId(1000), Some(list.clone()));
        let kept = &seen.seen.lock().unwrap().sessions;
        assert_eq!(kept.len(), SESSIONS_KEPT);
        assert!(kept.contains_key(&id) && !kept.contains_key(&SessionId(2)));
    }

    /// The screens a caller remembers are bounded in bytes too ([`SCREEN_BYTES_KEPT`]): large
    /// screens of many sessions do not each keep two looks (before, 256 sessions' looks of a
    /// 1000x500 screen were kept whatever their size); the sessions shown least recently go
    /// first, and the session just shown keeps its last look.
    #[test]
    fn the_screens_remembered_are_bounded_in_bytes() {
        let seen = SeenScreens::default();
        let row = "x".repeat(1000);
        let big = |n: usize| {
            let rows: Vec<String> = (0..500).map(|r| format!("{n} {r} {row}")).collect();
            frame(&rows.iter().map(String::as_str).collect::<Vec<_>>(), (0, 0))
        };
        let size = big(0).bytes();
        assert!(size > 1_000_000, "{size}");
        for n in 1..=40u64 {
            seen.remember(SessionId(n), Some(big(n as usize)));
            seen.remember(SessionId(n), Some(big(n as usize + 1000)));
            let kept = seen.seen.lock().unwrap();
            assert!(kept.bytes <= SCREEN_BYTES_KEPT, "{} bytes kept", kept.bytes);
            let counted: usize =
                kept.sessions.values().flat_map(|(looks, _)| looks).map(Frame::bytes).sum();
            assert_eq!(kept.bytes, counted);
            // The session just shown keeps its looks, the least recently shown went.
            assert!(!kept.sessions[&SessionId(n)].0.is_empty());
            if n > 10 {
                assert!(!kept.sessions.contains_key(&SessionId(1)));
            }
        }
        // Forgetting frees the bytes.
        for n in 1..=40u64 {
            seen.forget(SessionId(n));
        }
        assert_eq!(seen.seen.lock().unwrap().bytes, 0);
    }

    /// The screens many callers remember are bounded together ([`ScreenBudget`], as a
    /// server's callers share [`SERVER_SCREEN_BYTES_KEPT`]): 32 callers, each well within its
    /// own [`SCREEN_BYTES_KEPT`], would keep eight times the budget; the screens shown least
    /// recently, whoever's, are forgotten first, so the total never passes it, the caller just
    /// shown keeps its look (its next screen is told as changes), and a caller whose look was
    /// forgotten gets its next screen whole. Before, each caller's bound held alone: a server's
    /// 1,024 clients could keep 16 GiB.
    #[test]
    fn the_screens_many_callers_remember_are_bounded_together() {
        let row = "x".repeat(200);
        let rows = |n: usize, changed: bool| -> Vec<String> {
            let mark = if changed { "changed" } else { "" };
            (0..60).map(|r| format!("{n} {r} {}{row}", if r == 3 { mark } else { "" })).collect()
        };
        let big = |n: usize, changed: bool| {
            let rows = rows(n, changed);
            frame(&rows.iter().map(String::as_str).collect::<Vec<_>>(), (0, 0))
        };
        let size = big(0, false).bytes();
        assert!(size > 20_000, "{size}");
        let limit = 24 * size;
        let budget = ScreenBudget::new(limit);
        let callers: Vec<SeenScreens> = (0..32).map(|_| budget.member()).collect();
        let total = |callers: &[SeenScreens]| -> usize {
            callers.iter().map(|caller| caller.lock().bytes).sum()
        };
        for (n, caller) in callers.iter().enumerate() {
            for session in 1..=3u64 {
                caller.remember(SessionId(session), Some(big(n, false)));
                caller.remember(SessionId(session), Some(big(n + 1000, false)));
                assert!(budget.used() <= limit, "{} of {limit}", budget.used());
                assert_eq!(budget.used(), total(&callers));
            }
            let next = big(n + 1000, true);
            assert!(matches!(caller.shape(SessionId(3), &next, false), Shape::Changes(_)), "{n}");
        }
        // Six looks of each of 32 callers did not all fit: the first callers' went first.
        assert!(budget.used() > limit - 2 * size, "{} of {limit}", budget.used());
        let first = &callers[0];
        assert!(first.lock().sessions.is_empty());
        assert_eq!(first.shape(SessionId(1), &big(1000, true), false), Shape::Whole);
        let last = &callers[31];
        assert!(matches!(last.shape(SessionId(3), &big(1031, true), false), Shape::Changes(_)));
        // A look larger than the whole budget is not kept: its next screen is sent whole.
        let small = ScreenBudget::new(size * 3 / 2);
        let alone = small.member();
        alone.remember(SessionId(1), Some(big(0, false)));
        assert_eq!(small.used(), size);
        let huge = frame(&[row.repeat(200).as_str()], (0, 0));
        assert!(huge.bytes() > small.limit);
        alone.remember(SessionId(2), Some(huge.clone()));
        assert_eq!(alone.shape(SessionId(2), &huge, false), Shape::Whole);
        // Nor does it forget the screens that were kept, which could not have made room.
        assert_eq!(small.used(), size);
        assert!(matches!(alone.shape(SessionId(1), &big(0, true), false), Shape::Changes(_)));
        // Callers that go (a forgotten client, an ended connection) give their bytes back.
        drop(callers);
        assert_eq!(budget.used(), 0);
        let caller = budget.member();
        caller.remember(SessionId(1), Some(big(0, false)));
        assert_eq!(budget.used(), size);
        assert_eq!(budget.members.lock().unwrap().len(), 1);
    }
}
