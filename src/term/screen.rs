//! The rendered screen snapshot: [`Screen`].

use std::fmt;

use serde::Serialize;
use unicode_width::UnicodeWidthStr;

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

/// Which mouse events the program asked to receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MouseReporting {
    /// No mouse reporting: mouse events would reach the program as text.
    Off,
    /// Presses and releases (mode 1000).
    Click,
    /// Also motion while a button is held (mode 1002).
    Drag,
    /// All motion (mode 1003).
    Motion,
}

/// The input modes a driver needs to send the right bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Modes {
    /// Application cursor keys (DECCKM): arrows send `ESC O A` instead of `ESC [ A`.
    pub app_cursor: bool,
    /// Application keypad (DECKPAM).
    pub app_keypad: bool,
    /// Bracketed paste (mode 2004).
    pub bracketed_paste: bool,
    /// Mouse reporting requested by the program.
    pub mouse: MouseReporting,
    /// SGR mouse encoding (mode 1006).
    pub mouse_sgr: bool,
    /// UTF-8 mouse encoding (mode 1005).
    pub mouse_utf8: bool,
    /// Focus in/out reports (mode 1004).
    pub focus_events: bool,
    /// Kitty keyboard protocol flags the program enabled (0: legacy keys).
    pub kitty_keyboard: u8,
}

/// A snapshot of the visible screen: the alternate screen while a full-screen program has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Screen {
    /// Width in columns.
    pub cols: u16,
    /// Height in rows (the length of `rows`).
    pub height: u16,
    /// The visible rows as text: a wide character appears once though it takes two cells,
    /// combining marks follow their base character, trailing blanks are trimmed, tabs are
    /// blanks.
    pub rows: Vec<String>,
    /// The cursor.
    pub cursor: Cursor,
    /// Whether the alternate screen is active (vim, less, htop...).
    pub alternate: bool,
    /// The window title the program set (empty if none).
    pub title: String,
    /// Input modes.
    pub modes: Modes,
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
        self.rows[..used].join("\n")
    }

    /// Whether `needle` appears in one row.
    pub fn contains(&self, needle: &str) -> bool {
        self.find(needle).is_some()
    }

    /// The first row and cell column where `needle` appears.
    pub fn find(&self, needle: &str) -> Option<ScreenPos> {
        self.rows.iter().enumerate().find_map(|(row, text)| {
            text.find(needle).map(|at| ScreenPos { row: row as u16, col: cell_col(text, at) })
        })
    }

    /// Number of rows up to the last non-empty row or the cursor row, whichever is lower.
    fn used_rows(&self) -> usize {
        let last_text = self.rows.iter().rposition(|r| !r.is_empty()).map_or(0, |i| i + 1);
        last_text.max(usize::from(self.cursor.row) + 1).min(self.rows.len())
    }
}

/// The cell column of byte offset `at` in a screen row.
pub(crate) fn cell_col(row: &str, at: usize) -> u16 {
    row[..at].width().min(usize::from(u16::MAX)) as u16
}

impl fmt::Display for Modes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Vec::new();
        if self.app_cursor {
            names.push("app-cursor".to_owned());
        }
        if self.app_keypad {
            names.push("app-keypad".to_owned());
        }
        if self.bracketed_paste {
            names.push("bracketed-paste".to_owned());
        }
        if self.mouse != MouseReporting::Off {
            let encoding = if self.mouse_sgr {
                "sgr"
            } else if self.mouse_utf8 {
                "utf8"
            } else {
                "x10"
            };
            let kind = match self.mouse {
                MouseReporting::Click => "click",
                MouseReporting::Drag => "drag",
                _ => "motion",
            };
            names.push(format!("mouse={kind}/{encoding}"));
        }
        if self.focus_events {
            names.push("focus".to_owned());
        }
        if self.kitty_keyboard != 0 {
            names.push(format!("kitty-keys={}", self.kitty_keyboard));
        }
        if names.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&names.join(" "))
    }
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
            self.height,
            self.cursor.row,
            self.cursor.col,
            if self.cursor.visible { "visible" } else { "hidden" },
            if self.alternate { "alternate" } else { "primary" },
            self.title
        )?;
        writeln!(f, "modes: {}", self.modes)?;
        writeln!(f, "{}", "-".repeat(usize::from(self.cols.min(80))))?;
        let used = self.used_rows();
        for row in &self.rows[..used] {
            writeln!(f, "{row}")?;
        }
        write!(f, "{}", "-".repeat(usize::from(self.cols.min(80))))?;
        if used < self.rows.len() {
            write!(f, "\n({} empty rows below)", self.rows.len() - used)?;
        }
        Ok(())
    }
}
