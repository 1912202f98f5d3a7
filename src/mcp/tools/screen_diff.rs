//! What part of a screen a caller is shown and how: the whole screen, or the rows that changed
//! since the screen it last saw; the cursor marked where typing would go; styled text marked
//! where its style carries meaning.
//!
//! Each caller (an MCP connection, a [`Toolbox`](super::toolbox::Toolbox)) keeps the screens it
//! was shown in its own [`SeenScreens`], so one caller's reads never change what another is
//! shown.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Mutex;

use crate::term::screen::model::CURSOR_MARK;
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
    /// without a label, neighbours merged, blanks past the row's text left out.
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
    /// The cursor's row with its runs and the cursor marked, when the cursor is visible.
    cursor_line: Option<String>,
    /// Rows up to the last non-empty one or the cursor's.
    used: usize,
}

impl Frame {
    /// `screen` with the `runs` that `styles` selects marked.
    pub(crate) fn new(screen: &Screen, runs: &[StyleRun], styles: Styles) -> Frame {
        let text = |row: usize| screen.lines.get(row).map_or("", String::as_str);
        let mut runs = select(runs, styles);
        if styles == Styles::Meaningful {
            for run in &mut runs {
                let row = text(usize::from(run.row));
                run.end = run.end.min(cell_col(row, row.len()));
            }
            runs.retain(|run| run.col < run.end);
        }
        let row_runs = |row: usize| runs.iter().filter(move |run| usize::from(run.row) == row);
        let lines =
            (0..screen.lines.len()).map(|row| decorate(text(row), row_runs(row), None)).collect();
        // The mark goes where typing would go: on a blank cell or past the row's end. On a
        // character it would split a word, so there the header says where the cursor is.
        let cursor = screen.cursor;
        let row = usize::from(cursor.row);
        let line = text(row);
        let on_blank =
            line[byte_at_cell(line, cursor.col)..].chars().next().is_none_or(|c| c == ' ');
        let cursor_line = (cursor.visible && on_blank)
            .then(|| decorate(text(row), row_runs(row), Some(cursor.col)));
        Frame {
            cols: screen.cols,
            rows: screen.rows,
            alternate: screen.alternate,
            cursor,
            lines,
            cursor_line,
            used: screen.used_rows(),
        }
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

    /// The text of the rows `shape` says: every used row, or the listed rows numbered.
    pub(crate) fn text(&self, shape: &Shape) -> String {
        match shape {
            Shape::Whole => (0..self.used).map(|row| self.line(row)).collect::<Vec<_>>().join("\n"),
            Shape::Rows(rows) => {
                let mut text = String::new();
                for &row in rows {
                    let _ = writeln!(text, "{row}│{}", self.line(usize::from(row)));
                }
                text.pop();
                text
            }
        }
    }
}

/// The runs `styles` marks, neighbours with the same label merged.
fn select(runs: &[StyleRun], styles: Styles) -> Vec<Marked> {
    let meaningful = |run: &&StyleRun| run.attrs.contains(&"inverse") || run.bg != "default";
    let marked: Vec<Marked> = match styles {
        Styles::Off => Vec::new(),
        Styles::All => runs.iter().map(|run| Marked::new(run, label(run))).collect(),
        Styles::Meaningful => {
            let chosen: Vec<&StyleRun> = runs.iter().filter(meaningful).collect();
            if chosen.len() > MAX_MEANINGFUL_RUNS {
                return Vec::new();
            }
            chosen.into_iter().map(|run| Marked::new(run, String::new())).collect()
        }
    };
    let mut merged: Vec<Marked> = Vec::with_capacity(marked.len());
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

/// A run to mark, with its label.
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

/// The last screen each session showed one caller, whole and uncut.
#[derive(Debug, Default)]
pub(crate) struct SeenScreens {
    frames: Mutex<HashMap<SessionId, Frame>>,
}

impl SeenScreens {
    /// Remembers that the caller has seen `frame` of session `id` in full, or, when `frame` is
    /// `None` (it was cut), that it has not seen a whole screen.
    pub(crate) fn remember(&self, id: SessionId, frame: Option<Frame>) {
        let mut frames = self.frames.lock().unwrap_or_else(|e| e.into_inner());
        match frame {
            Some(frame) => frames.insert(id, frame),
            None => frames.remove(&id),
        };
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.remember(id, None);
    }

    /// How to show `frame` of session `id`: whole when `whole` is asked for, when nothing
    /// was seen before or the size or the screen (primary, alternate) changed, or when more
    /// than half of the rows changed; otherwise only the changed rows (a row whose text or
    /// marked styles changed, and the cursor's row when the cursor moved onto it; a row the
    /// cursor left is not sent: the header says where the cursor is).
    pub(crate) fn shape(&self, id: SessionId, frame: &Frame, whole: bool) -> Shape {
        let frames = self.frames.lock().unwrap_or_else(|e| e.into_inner());
        let Some(last) = frames.get(&id).filter(|_| !whole) else {
            return Shape::Whole;
        };
        if (last.cols, last.rows, last.alternate) != (frame.cols, frame.rows, frame.alternate) {
            return Shape::Whole;
        }
        let moved = frame.cursor != last.cursor && frame.cursor_marked();
        let changed: Vec<u16> = (0..frame.rows)
            .filter(|&row| {
                let at = usize::from(row);
                frame.lines.get(at) != last.lines.get(at) || moved && row == frame.cursor.row
            })
            .collect();
        if changed.len() * 2 > usize::from(frame.rows) {
            return Shape::Whole;
        }
        Shape::Rows(changed)
    }
}

/// Which of a screen's rows to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every row (trailing empty rows below the cursor left out).
    Whole,
    /// These rows, numbered (none: the screen is unchanged).
    Rows(Vec<u16>),
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

    fn frame(rows: &[&str], cursor: (u16, u16)) -> Frame {
        Frame::new(&screen(rows, cursor), &[], Styles::Meaningful)
    }

    #[test]
    fn the_cursor_is_marked_on_its_cell() {
        let none = std::iter::empty();
        assert_eq!(decorate("abc", none.clone(), Some(1)), "a▌bc");
        assert_eq!(decorate("abc", none.clone(), Some(5)), "abc  ▌");
        assert_eq!(decorate("デx", none.clone(), Some(2)), "デ▌x");
        assert_eq!(decorate("", none, Some(0)), "▌");
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
        // Too many highlights are a colour scheme: none is marked.
        let many: Vec<StyleRun> = (0..=MAX_MEANINGFUL_RUNS as u16)
            .map(|c| run(0, c, 1, "default", "blue", &[]))
            .collect();
        let frame = Frame::new(&screen, &many, Styles::Meaningful);
        assert_eq!(frame.text(&Shape::Whole), "a PID USER\n ▌ x");
    }

    #[test]
    fn only_changed_rows_are_shown_until_most_change() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let first = frame(&["a", "b", "c", "d", "e", "f"], (5, 1));
        assert_eq!(seen.shape(id, &first, false), Shape::Whole);
        assert_eq!(first.text(&Shape::Whole), "a\nb\nc\nd\ne\nf▌");
        seen.remember(id, Some(first.clone()));
        assert_eq!(seen.shape(id, &first, false), Shape::Rows(vec![]));
        assert_eq!(seen.shape(id, &first, true), Shape::Whole);
        // One row changes and the cursor moves onto a blank: the changed row and the one the
        // cursor is marked on.
        let next = frame(&["a", "B", "c", "d", "e", "f"], (2, 1));
        let shape = seen.shape(id, &next, false);
        assert_eq!(shape, Shape::Rows(vec![1, 2]));
        assert_eq!(next.text(&shape), "1│B\n2│c▌");
        // On a character the cursor is not marked (the header says where it is).
        let on_char = frame(&["a", "B", "c", "d", "e", "f"], (2, 0));
        assert!(!on_char.cursor_marked());
        assert_eq!(on_char.text(&Shape::Rows(vec![2])), "2│c");
        // A highlight that moves changes the rows it left and reached.
        let runs = [run(3, 0, 1, "default", "default", &["inverse"])];
        let highlighted =
            Frame::new(&screen(&["a", "b", "c", "d", "e", "f"], (5, 1)), &runs, Styles::Meaningful);
        assert_eq!(seen.shape(id, &highlighted, false), Shape::Rows(vec![3]));
        // Most rows change: the whole screen.
        let most = frame(&["1", "2", "3", "4", "e", "f"], (5, 1));
        assert_eq!(seen.shape(id, &most, false), Shape::Whole);
        // A cut screen is not remembered.
        seen.remember(id, None);
        assert_eq!(seen.shape(id, &next, false), Shape::Whole);
    }
}
