//! What a frame of the session looks like on the person's terminal: its rows that changed,
//! in their colours, clipped to the terminal around the cursor, and the status line.

use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use super::terminal::terminal_size;

/// The person attached, as their status line describes them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Person {
    /// They hold the session (`--takeover`): what they type reaches its program.
    pub(super) holds: bool,
    /// They typed while they only watch: it was ignored.
    pub(super) typed: bool,
    /// They asked for no status line (`--no-status`): its row shows the session too.
    pub(super) no_status: bool,
    /// What they typed last was refused by the server (the session's input queue was full):
    /// it was not typed.
    pub(super) refused: bool,
}

/// What the person's terminal shows, kept from frame to frame: a frame rewrites only the
/// rows that changed (a clock ticking on a full screen is one row, not the screen).
#[derive(Default)]
pub(super) struct Shown {
    /// The first of the session's rows shown (see [`first_row_shown`]).
    top: usize,
    /// The terminal's size when `rows` were drawn: at another, each is drawn again.
    size: (usize, usize),
    /// Each of the terminal's rows as drawn (the status line last), `None` once unknown.
    rows: Vec<Option<String>>,
}

impl Shown {
    /// Forgets what the rows show (the terminal was cleared): the next frame draws each.
    pub(super) fn forget(&mut self) {
        self.rows.clear();
    }

    /// Adds to `out` what draws `drawing` on the terminal's row `row` (from 0), unless the
    /// row shows it already.
    fn draw_row(&mut self, out: &mut String, row: usize, drawing: String) {
        if self.rows.len() <= row {
            self.rows.resize(row + 1, None);
        }
        if self.rows[row].as_ref() != Some(&drawing) {
            out.push_str(&format!("\x1b[{};1H{drawing}", row + 1));
            self.rows[row] = Some(drawing);
        }
    }
}

/// The escape sequences that draw `frame`, clipped to the terminal, and the status line, on
/// a terminal that shows `shown`: the rows that changed.
pub(super) fn draw(frame: &Value, person: Person, shown: &mut Shown) -> String {
    let (cols, rows) = terminal_size();
    if shown.size != (cols, rows) {
        shown.size = (cols, rows);
        shown.forget();
    }
    let view_rows = if person.no_status { rows } else { rows - 1 };
    let lines: Vec<&str> = frame["lines"]
        .as_array()
        .map(|lines| lines.iter().map(|l| l.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    let (session_cols, session_rows) = (
        frame["cols"].as_u64().unwrap_or(0) as usize,
        frame["rows"].as_u64().unwrap_or(0) as usize,
    );
    let cursor = frame["cursor"]
        .as_array()
        .and_then(|c| Some([c.first()?.as_u64()? as usize, c.get(1)?.as_u64()? as usize]));
    shown.top = first_row_shown(cursor.map(|[row, _]| row), shown.top, session_rows, view_rows);
    let top = shown.top;
    let styles = frame_styles(frame);
    let mut out = String::from("\x1b[?25l");
    for row in 0..view_rows {
        let line = lines.get(top + row).copied().unwrap_or_default();
        let runs: Vec<&Run> = styles.iter().filter(|run| run.row == top + row).collect();
        let mut drawing = String::new();
        // Not after a row as wide as the terminal: the cursor waits to wrap on its last
        // column, which xterm's erase would blank.
        if draw_row(&mut drawing, line, &runs, cols) < cols {
            drawing.push_str("\x1b[K");
        }
        shown.draw_row(&mut out, row, drawing);
    }
    if !person.no_status {
        draw_status(&mut out, frame, person, shown, (session_cols, session_rows));
    }
    if let Some([row, col]) = cursor
        && let Some(row) = row.checked_sub(top).filter(|row| *row < view_rows)
        && col < cols
    {
        out.push_str(&format!("\x1b[{};{}H\x1b[?25h", row + 1, col + 1));
    }
    out
}

/// Adds to `out` what draws the status line on the terminal's last row, for `frame` (of
/// `session_size`, columns and rows) as `shown` shows it.
fn draw_status(
    out: &mut String,
    frame: &Value,
    person: Person,
    shown: &mut Shown,
    (session_cols, session_rows): (usize, usize),
) {
    let takeover = person.holds;
    let (cols, rows) = shown.size;
    let (top, view_rows) = (shown.top, rows - 1);
    // The way out first, then who may type and the clipping: what a narrow terminal cuts
    // (and a terminal narrower than the session is narrow) is the least needed.
    let mut status = format!(
        " {} · {}{}",
        if takeover { "Ctrl-] hands back" } else { "Ctrl-] detaches" },
        if takeover {
            "you hold it, agents are refused"
        } else if frame["held_by_other"].as_bool() == Some(true) {
            // What is typed now is a person's, not an agent's.
            "read-only, a person holds it"
        } else {
            "read-only"
        },
        if person.typed { ": what you type is ignored" } else { "" },
    );
    if person.refused {
        status.push_str(" · input refused, not typed");
    }
    if session_cols > cols || session_rows > view_rows {
        status.push_str(&format!(" · clipped from {session_cols}x{session_rows}"));
    }
    if top > 0 {
        status.push_str(&format!(", rows {top}-{}", top + view_rows - 1));
    }
    // The session by its name when it has one (as the person knows it), else its id.
    let name: Option<String> = frame["name"]
        .as_str()
        .map(|name| name.chars().filter(|c| !c.is_control()).collect())
        .filter(|name: &String| !name.is_empty());
    match name {
        Some(name) => status.push_str(&format!(" · termloom · session {name}")),
        None => status.push_str(&format!(" · termloom · session {}", frame["session"])),
    }
    // The program's title (a shell's directory, the file an editor has open), as tmux shows
    // a pane's: on the status line, not the person's own title, which stays theirs.
    let title = frame["title"].as_str().unwrap_or_default();
    // Text only: a frame cannot make the person's terminal do anything but colour.
    let title: String = title.chars().filter(|c| !c.is_control()).collect();
    if !title.trim().is_empty() {
        status.push_str(&format!(" · {title}"));
    }
    let status = clip(&status, cols);
    let pad = cols.saturating_sub(width(status));
    shown.draw_row(out, view_rows, format!("\x1b[7m{status}{}\x1b[0m", " ".repeat(pad)));
}

/// A run of cells of one style in a frame: its row, first column, width, and the parameters
/// of the SGR sequence that draws it.
struct Run {
    row: usize,
    col: usize,
    width: usize,
    sgr: String,
}

/// The styled runs of `frame` (`[row, col, width, sgr]` each), left to right on each row.
fn frame_styles(frame: &Value) -> Vec<Run> {
    let run = |value: &Value| {
        let number = |at: usize| value.get(at)?.as_u64().map(|n| n as usize);
        let sgr = value.get(3)?.as_str()?;
        // Parameters only: a frame cannot make the person's terminal do anything but colour.
        let sgr = sgr.bytes().all(|b| b.is_ascii_digit() || b == b';').then(|| sgr.to_owned())?;
        Some(Run { row: number(0)?, col: number(1)?, width: number(2)?, sgr })
    };
    frame["styles"].as_array().map(|runs| runs.iter().filter_map(run).collect()).unwrap_or_default()
}

/// Draws `line` into `out` in the colours of its `runs` (a run past the text's end colours
/// blanks: a bar, a selection), clipped to `cols` cells; returns the cells drawn.
fn draw_row(out: &mut String, line: &str, runs: &[&Run], cols: usize) -> usize {
    let styled_end = runs.iter().map(|run| run.col.saturating_add(run.width)).max().unwrap_or(0);
    let padding = styled_end.saturating_sub(width(line));
    let mut col = 0;
    // The run being drawn, by its first column.
    let mut active: Option<usize> = None;
    for c in line.chars().chain(std::iter::repeat_n(' ', padding)) {
        let cells = c.width().unwrap_or(0);
        if col + cells > cols {
            break;
        }
        // A combining mark takes the style of the character it is drawn on.
        if cells > 0 {
            let run =
                runs.iter().find(|run| (run.col..run.col.saturating_add(run.width)).contains(&col));
            if run.map(|run| run.col) != active {
                out.push_str("\x1b[0m");
                if let Some(run) = run {
                    out.push_str(&format!("\x1b[{}m", run.sgr));
                }
                active = run.map(|run| run.col);
            }
        }
        out.push(c);
        col += cells;
    }
    if active.is_some() {
        out.push_str("\x1b[0m");
    }
    col
}

/// The first of a session's `rows` shown in a view of `view_rows`: 0, unless the cursor (at
/// row `cursor`) would be below the view, which then ends at the cursor's row, as tmux shows
/// a window larger than its client. While the cursor is hidden, the view stays at `top`.
fn first_row_shown(cursor: Option<usize>, top: usize, rows: usize, view_rows: usize) -> usize {
    let last_top = rows.saturating_sub(view_rows);
    cursor.map_or(top, |row| (row + 1).saturating_sub(view_rows)).min(last_top)
}

/// The rows of `frame` without the blank ones at its end, clipped to the terminal, as lines
/// to print on the person's screen.
pub(super) fn final_text(frame: &Value) -> String {
    let (cols, _) = terminal_size();
    let mut lines: Vec<&str> = frame["lines"]
        .as_array()
        .map(|lines| lines.iter().map(|l| clip(l.as_str().unwrap_or_default(), cols)).collect())
        .unwrap_or_default();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.iter().map(|line| format!("{line}\r\n")).collect()
}

/// The display width of `text`.
fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// The longest start of `text` at most `cols` cells wide.
fn clip(text: &str, cols: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.width().unwrap_or(0);
        if used > cols {
            return &text[..at];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_follows_the_cursor_down() {
        assert_eq!(first_row_shown(Some(5), 9, 32, 23), 0);
        assert_eq!(first_row_shown(Some(22), 0, 32, 23), 0);
        assert_eq!(first_row_shown(Some(23), 0, 32, 23), 1);
        assert_eq!(first_row_shown(Some(31), 0, 32, 23), 9);
        assert_eq!(first_row_shown(Some(40), 0, 32, 23), 9, "never past the last row");
        assert_eq!(first_row_shown(None, 0, 32, 23), 0);
        assert_eq!(first_row_shown(None, 9, 32, 23), 9, "a hidden cursor keeps the view");
        assert_eq!(first_row_shown(None, 9, 32, 40), 0, "a taller terminal shows all");
        assert_eq!(first_row_shown(Some(3), 0, 4, 23), 0);
    }

    /// A row as wide as the terminal is not followed by an erase: with the cursor waiting to
    /// wrap on the last column, xterm erased that column's character.
    #[test]
    fn a_row_as_wide_as_the_terminal_is_not_erased_after() {
        let (cols, _) = terminal_size();
        let full = "x".repeat(cols);
        let frame =
            serde_json::json!({"lines": [full, "short"], "cols": cols, "rows": 2, "session": 1});
        let drawn = draw(&frame, Person::default(), &mut Shown::default());
        assert!(drawn.contains(&format!("{full}\x1b[2;1H")), "{drawn:?}");
        assert!(drawn.contains("short\x1b[K"), "{drawn:?}");
    }

    /// The session's colours are drawn, blanks a run covers past the text too, and clipped
    /// with the text; a row without a style has no escape sequence in it.
    #[test]
    fn rows_are_drawn_in_their_colours() {
        let run = |col, width, sgr: &str| Run { row: 0, col, width, sgr: sgr.to_owned() };
        let (red, bar) = (run(0, 2, "1;31"), run(3, 5, "7"));
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "ab cd", &[&red, &bar], 80), 8);
        assert_eq!(out, "\x1b[0m\x1b[1;31mab\x1b[0m \x1b[0m\x1b[7mcd   \x1b[0m");
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "ab cd", &[&red, &bar], 4), 4);
        assert_eq!(out, "\x1b[0m\x1b[1;31mab\x1b[0m \x1b[0m\x1b[7mc\x1b[0m");
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "日本", &[], 80), 4);
        assert_eq!(out, "日本");
        let frame = serde_json::json!({"styles": [[0, 1, 2, "31"], [1, 0, 1, "31m\x1b]0;x"]]});
        let styles = frame_styles(&frame);
        assert_eq!(styles.len(), 1, "a run that is not parameters only is not drawn");
        // A run whose numbers overflow (a frame no server sends) is drawn to the row's end.
        let endless = run(1, usize::MAX, "7");
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "ab", &[&endless], 4), 4);
        assert_eq!(out, "a\x1b[0m\x1b[7mb  \x1b[0m");
    }

    #[test]
    fn clipping_counts_cells() {
        assert_eq!(clip("hello", 3), "hel");
        assert_eq!(clip("日本語", 5), "日本");
        assert_eq!(clip("ab", 10), "ab");
    }
}
