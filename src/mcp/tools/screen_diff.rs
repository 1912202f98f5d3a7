//! What part of a screen a caller is shown: the whole screen, or the rows that changed since
//! the screen it last saw, with the cursor marked where it is.
//!
//! Each caller (an MCP connection, a [`Toolbox`](super::toolbox::Toolbox)) keeps the screens it
//! was shown in its own [`SeenScreens`], so one caller's reads never change what another is
//! shown.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Mutex;

use crate::term::screen::cell_col;
use crate::term::screen::model::CURSOR_MARK;
use crate::{Screen, SessionId};

/// The last screen each session showed one caller, whole and uncut.
#[derive(Debug, Default)]
pub(crate) struct SeenScreens {
    screens: Mutex<HashMap<SessionId, Screen>>,
}

impl SeenScreens {
    /// Remembers that the caller has seen `screen` of session `id` in full, or, when `screen`
    /// is `None` (it was cut), that it has not seen a whole screen.
    pub(crate) fn remember(&self, id: SessionId, screen: Option<Screen>) {
        let mut screens = self.screens.lock().unwrap_or_else(|e| e.into_inner());
        match screen {
            Some(screen) => screens.insert(id, screen),
            None => screens.remove(&id),
        };
    }

    /// The screen of session `id` the caller saw last.
    fn last(&self, id: SessionId) -> Option<Screen> {
        self.screens.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned()
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.remember(id, None);
    }

    /// How to show `screen` of session `id`: whole when `whole` is asked for, when nothing
    /// was seen before or the size or the screen (primary, alternate) changed, or when more
    /// than half of the rows changed; otherwise only the changed rows.
    pub(crate) fn shape(&self, id: SessionId, screen: &Screen, whole: bool) -> Shape {
        let Some(last) = self.last(id).filter(|_| !whole) else {
            return Shape::Whole;
        };
        if (last.cols, last.rows, last.alternate) != (screen.cols, screen.rows, screen.alternate) {
            return Shape::Whole;
        }
        let changed: Vec<u16> = (0..screen.rows)
            .filter(|&row| {
                let row = usize::from(row);
                // A row the cursor moved onto is sent for its mark; one it left is not
                // (the header says where the cursor is).
                screen.lines.get(row) != last.lines.get(row)
                    || cursor_row(screen) == Some(row) && screen.cursor != last.cursor
            })
            .collect();
        if changed.len() * 2 > usize::from(screen.rows) {
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

/// The row the cursor is marked on, when it is visible.
fn cursor_row(screen: &Screen) -> Option<usize> {
    screen.cursor.visible.then_some(usize::from(screen.cursor.row))
}

/// The text of `screen` shaped as `shape` says, with [`CURSOR_MARK`] before the cell the
/// visible cursor is on.
pub(crate) fn screen_text(screen: &Screen, shape: &Shape) -> String {
    let line = |row: usize| -> String {
        let text = screen.lines.get(row).map_or("", String::as_str);
        match cursor_row(screen) {
            Some(at) if at == row => mark(text, screen.cursor.col),
            _ => text.to_owned(),
        }
    };
    match shape {
        Shape::Whole => (0..screen.used_rows()).map(line).collect::<Vec<_>>().join("\n"),
        Shape::Rows(rows) => {
            let mut text = String::new();
            for &row in rows {
                let _ = writeln!(text, "{row}│{}", line(usize::from(row)));
            }
            text.pop();
            text
        }
    }
}

/// `row` with [`CURSOR_MARK`] inserted before cell `col` (spaces added up to it when the row
/// ends before).
fn mark(row: &str, col: u16) -> String {
    let at = row
        .char_indices()
        .map(|(at, _)| at)
        .find(|&at| cell_col(row, at) >= col)
        .unwrap_or(row.len());
    let pad = usize::from(col.saturating_sub(cell_col(row, at)));
    format!("{}{}{CURSOR_MARK}{}", &row[..at], " ".repeat(pad), &row[at..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cursor, Modes, MouseReporting};

    fn screen(rows: &[&str], cursor: (u16, u16)) -> Screen {
        Screen {
            cols: 20,
            rows: rows.len() as u16,
            lines: rows.iter().map(|r| (*r).to_owned()).collect(),
            cursor: Cursor { row: cursor.0, col: cursor.1, visible: true },
            alternate: true,
            title: String::new(),
            modes: Modes {
                app_cursor: false,
                app_keypad: false,
                bracketed_paste: false,
                mouse: MouseReporting::Off,
                mouse_sgr: false,
                mouse_utf8: false,
                focus_events: false,
                kitty_keyboard: 0,
            },
        }
    }

    #[test]
    fn the_cursor_is_marked_on_its_cell() {
        assert_eq!(mark("abc", 1), "a▌bc");
        assert_eq!(mark("abc", 5), "abc  ▌");
        assert_eq!(mark("デx", 2), "デ▌x");
        assert_eq!(mark("", 0), "▌");
    }

    #[test]
    fn only_changed_rows_are_shown_until_most_change() {
        let seen = SeenScreens::default();
        let id = SessionId(1);
        let first = screen(&["a", "b", "c", "d", "e", "f"], (5, 1));
        assert_eq!(seen.shape(id, &first, false), Shape::Whole);
        assert_eq!(screen_text(&first, &Shape::Whole), "a\nb\nc\nd\ne\nf▌");
        seen.remember(id, Some(first.clone()));
        assert_eq!(seen.shape(id, &first, false), Shape::Rows(vec![]));
        assert_eq!(seen.shape(id, &first, true), Shape::Whole);
        // One row changes and the cursor moves: the changed row and the one the cursor is on.
        let next = screen(&["a", "B", "c", "d", "e", "f"], (2, 0));
        let shape = seen.shape(id, &next, false);
        assert_eq!(shape, Shape::Rows(vec![1, 2]));
        assert_eq!(screen_text(&next, &shape), "1│B\n2│▌c");
        // Most rows change: the whole screen.
        let most = screen(&["1", "2", "3", "4", "e", "f"], (5, 1));
        assert_eq!(seen.shape(id, &most, false), Shape::Whole);
        // A cut screen is not remembered.
        seen.remember(id, None);
        assert_eq!(seen.shape(id, &next, false), Shape::Whole);
    }
}
