//! The screen as a model reads it (the MCP tools' `screen` block and JSON): a one-line header
//! with the size, a hidden cursor and the title, the text the byte budget left (the whole screen or
//! the rows that changed, numbered), and a note of what was left out.

use serde_json::{Value, json};

use super::Screen;

/// The glyph that marks the visible cursor in a screen's text (and its header).
pub(crate) const CURSOR_MARK: char = '▌';

/// What a screen's text holds when it holds only the changes since a screen the caller saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Changed {
    /// The rows listed (0: none changed besides a moved block).
    pub(crate) rows: usize,
    /// Since which screen: 1 the one the caller saw last, 2 the one it saw before that, and
    /// so on (a screen seen again unchanged counts once).
    pub(crate) look: u8,
    /// A block of rows that moved.
    pub(crate) moved: Option<Moved>,
    /// A block of the listed rows that slid sideways, shown as only their new columns.
    pub(crate) slid: Option<Slid>,
    /// The window title differs from that screen's (the header names it only then).
    pub(crate) title_changed: bool,
    /// Some listed rows are shown only up to the blanks before their end, [`CUT_MARK`] after
    /// them: the rest is as on that screen (a box's border and the padding before it).
    pub(crate) cut: bool,
}

/// Ends a listed row shown only up to the blanks before its end (see [`Changed::cut`]).
pub(crate) const CUT_MARK: char = '…';

/// The header's clause when listed rows are cut (see [`Changed::cut`]).
pub(crate) const CUT_CLAUSE: &str = "; a row ending in … goes on as then";

/// A block of rows of a screen the caller saw that is on the screen again at another place
/// (text scrolled in a region, a row inserted or deleted above a list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Moved {
    /// The block's first row on the screen that was seen.
    pub(crate) from: u16,
    /// Its first row now.
    pub(crate) to: u16,
    /// Its rows.
    pub(crate) count: u16,
}

/// A block of rows whose cells in a span of columns hold what they held on a screen the
/// caller saw, moved some columns sideways within the span (a panel opened at their left, text
/// scrolled horizontally beside a fixed margin such as a pager's `>` or a line-number
/// column), their other cells as they were: only the span's columns that did not come from
/// that screen are shown of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slid {
    /// The block's first row.
    pub(crate) first: u16,
    /// Its rows.
    pub(crate) count: u16,
    /// Columns to the right (negative: to the left), less than the span is wide.
    pub(crate) by: i16,
    /// The span's first column.
    pub(crate) from_col: u16,
    /// The column after its last.
    pub(crate) to_col: u16,
    /// Rows the block moved down as well (negative: up): its row `r` holds what row
    /// `r - down` held (a process that came to the top of a list as a panel opened).
    pub(crate) down: i16,
}

impl Slid {
    /// Whether row `row` is one of the block's.
    pub(crate) fn holds(&self, row: u16) -> bool {
        (self.first..self.first.saturating_add(self.count)).contains(&row)
    }

    /// The row of the seen screen that row `row` of the block came from.
    pub(crate) fn seen_row(&self, row: u16) -> u16 {
        (i32::from(row) - i32::from(self.down)) as u16
    }

    /// The columns (from, to) of the block's rows that came from the seen screen, and where
    /// they were on it.
    pub(crate) fn kept(&self) -> ((u16, u16), (u16, u16)) {
        let (shift, from, to) = (self.by.unsigned_abs(), self.from_col, self.to_col);
        match self.by > 0 {
            true => ((from + shift, to), (from, to - shift)),
            false => ((from, to - shift), (from + shift, to)),
        }
    }

    /// The columns (from, to) of the block's rows that are new.
    pub(crate) fn new_columns(&self) -> (u16, u16) {
        let (shift, from, to) = (self.by.unsigned_abs(), self.from_col, self.to_col);
        match self.by > 0 {
            true => (from, from + shift),
            false => (to - shift, to),
        }
    }
}

/// How a screen shown to a model shows its cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CursorShown {
    /// The text marks it (with [`CURSOR_MARK`]), so the header need not say where it is.
    Marked,
    /// The header says where it is, or that it is hidden.
    Told,
    /// The program ended: no program owns the cursor it left, which is not told at all.
    Unowned,
}

/// The screen with its `title` and `text` as the budget left them (`omitted` bytes of the
/// text cut from its end, which `see_more` says how to see): JSON, and the text block for a
/// model. `cursor`: how the cursor is shown (marked in the text, told by the header, or not
/// at all). `changed` says what `text` holds when it holds only the changes since a screen
/// the caller saw.
pub(crate) fn model_view(
    screen: &Screen,
    cursor: CursorShown,
    changed: Option<Changed>,
    (title, text): (&str, &str),
    (omitted, see_more): (usize, &str),
) -> (Value, String) {
    let mut json = json!({
        "cols": screen.cols,
        "rows": screen.rows,
        "alternate": screen.alternate,
        "cursor_row": screen.cursor.row,
        "cursor_col": screen.cursor.col,
        "cursor_visible": screen.cursor.visible,
        "title": title,
        "text": text,
        "changed_rows": changed.map(|c| c.rows),
        "since_look": changed.map(|c| c.look),
        "moved": changed.and_then(|c| c.moved).map(|m| json!({
            "from": m.from, "to": m.to, "count": m.count,
        })),
        "slid": changed.and_then(|c| c.slid).map(|s| json!({
            "first": s.first, "count": s.count, "columns": s.by,
            "from_col": s.from_col, "to_col": s.to_col, "rows_down": s.down,
        })),
        "omitted_bytes": omitted,
    });
    // Listed rows cut (only then: every other screen's JSON stays as it was).
    if changed.is_some_and(|c| c.cut) {
        json["rows_cut"] = Value::Bool(true);
    }
    // A cursor marked in the text goes without saying.
    let cursor = match (screen.cursor.visible, cursor) {
        (_, CursorShown::Marked | CursorShown::Unowned) => String::new(),
        (true, CursorShown::Told) => {
            format!(", cursor row {} col {}", screen.cursor.row, screen.cursor.col)
        }
        (false, CursorShown::Told) => ", cursor hidden".to_owned(),
    };
    // The title when the screen is whole, or when it changed since the screen compared with
    // (a title left by a program that exited is not repeated in every look).
    let title = match changed {
        None if title.is_empty() => String::new(),
        Some(changed) if !changed.title_changed => String::new(),
        _ => format!(", title \"{title}\""),
    };
    let about = format!("{}x{}{cursor}{title}", screen.cols, screen.rows);
    let mut block = match changed {
        None => format!("--- screen {about} ---\n"),
        Some(changed) => {
            // A screen seen twice in a row is one screen: the one before is the last one that
            // differs from it, however many looks ago.
            // Older screens, kept as a viewer paged through holds the panels it was opened
            // from, are counted back from the last look.
            let since = match changed.look {
                1 => "your last look".to_owned(),
                2 => "the previous different screen you saw".to_owned(),
                back => format!("the screen you saw {back} different screens ago"),
            };
            let moved = changed.moved.map(|Moved { from, to, count }| {
                let (last_then, last_now) = (from + count - 1, to + count - 1);
                format!("as at {since}, with its rows {from}-{last_then} moved to {to}-{last_now}")
            });
            let mut slid = changed.slid.map_or(String::new(), |slid| slid_note(slid, screen.cols));
            if changed.cut {
                slid.push_str(CUT_CLAUSE);
            }
            match (moved, changed.rows) {
                (None, 0) if changed.look == 1 => {
                    return (json, format!("--- screen {about}: unchanged since {since} ---"));
                }
                // Back to an earlier screen (a menu closed, an edit undone), not "nothing new".
                (None, 0) => return (json, format!("--- screen {about}: the same as {since} ---")),
                (Some(moved), 0) => return (json, format!("--- screen {about}: {moved} ---")),
                (None, _) => format!("--- screen {about}: rows changed since {since}{slid} ---\n"),
                (Some(moved), _) => {
                    format!("--- screen {about}: {moved}; rows changed besides{slid} ---\n")
                }
            }
        }
    };
    block.push_str(text);
    if omitted > 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            block.push('\n');
        }
        block.push_str(&format!("[... {omitted} bytes of the screen left out; {see_more}]"));
    }
    (json, block)
}

/// The header's clause for a block of rows that slid sideways on a screen `cols` wide, e.g.
/// `; rows 7-22 as then but moved 15 columns to the right, only their columns 0-14 shown`.
fn slid_note(slid: Slid, cols: u16) -> String {
    let columns = |(from, to): (u16, u16)| match to - from {
        1 => format!("column {from}"),
        _ => format!("columns {from}-{}", to - 1),
    };
    let (first, last) = (slid.first, slid.first + slid.count - 1);
    let what = match (slid.from_col, slid.to_col) {
        (0, to) if to == cols => "moved".to_owned(),
        span => format!("their {} moved", columns(span)),
    };
    let shift = match slid.by.unsigned_abs() {
        1 => "1 column".to_owned(),
        shift => format!("{shift} columns"),
    };
    let side = if slid.by > 0 { "right" } else { "left" };
    let new = columns(slid.new_columns());
    let then = match slid.down {
        0 => "then".to_owned(),
        _ => format!("rows {}-{} then", slid.seen_row(first), slid.seen_row(last)),
    };
    format!(
        "; rows {first}-{last} as {then} but {what} {shift} to the {side}, only their {new} shown"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slide_is_told_by_the_columns_it_moved_and_shows() {
        let slid = Slid { first: 7, count: 16, by: 15, from_col: 0, to_col: 80, down: 0 };
        assert_eq!(
            slid_note(slid, 80),
            "; rows 7-22 as then but moved 15 columns to the right, only their columns 0-14 shown"
        );
        let slid = Slid { first: 0, count: 2, by: -1, from_col: 4, to_col: 79, down: 0 };
        assert_eq!(
            slid_note(slid, 80),
            "; rows 0-1 as then but their columns 4-78 moved 1 column to the left, only their column 78 shown"
        );
        let slid = Slid { first: 10, count: 13, by: 15, from_col: 0, to_col: 80, down: 1 };
        assert_eq!(
            slid_note(slid, 80),
            "; rows 10-22 as rows 9-21 then but moved 15 columns to the right, only their columns 0-14 shown"
        );
    }
}
