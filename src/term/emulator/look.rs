//! What the emulator shows: its size and modes, the screen, and the rows around the cursor
//! that the transcript has not settled yet.

use super::*;
use alacritty_terminal::grid::Row;
use alacritty_terminal::term::cell::Cell;

use crate::term::row_text::ends_in_wide_spacer;
use crate::term::suggestion;

impl Emulator {
    /// The size in columns and rows.
    pub(crate) fn size(&self) -> (u16, u16) {
        (self.cols, self.rows)
    }

    /// The number of bells rung.
    pub(crate) fn bells(&self) -> u64 {
        self.bells
    }

    /// Sets the text an OSC 52 clipboard load returns, as the caller gives it: refused
    /// ([`Error::InvalidInput`](crate::Error::InvalidInput)), the clipboard unchanged, when it
    /// is longer than a program's copy can be, or than an answer to a query can carry
    /// ([`OutputBounds::clipboard_bytes`]).
    pub(crate) fn set_clipboard(&mut self, text: String) -> crate::Result<()> {
        let capacity = self.bounds.clipboard_bytes();
        if text.len() > capacity {
            return Err(crate::Error::InvalidInput(format!(
                "the clipboard text is {} bytes, and a session's clipboard holds at most {capacity}: as much as a program's OSC 52 copy can carry within Config::max_osc_bytes ({}), and an answer to the program's query can carry within Config::write_queue_bytes ({}); the clipboard was not changed (raise those bounds, or give less text)",
                text.len(),
                self.bounds.osc,
                self.bounds.replies
            )));
        }
        self.clipboard = text;
        Ok(())
    }

    /// The text the program last stored with OSC 52.
    pub(crate) fn clipboard(&self) -> &str {
        &self.clipboard
    }

    /// The raw mode flags.
    pub(crate) fn mode(&self) -> TermMode {
        *self.term.mode()
    }

    /// How many moves to the screen's top-left the program made (see `Scanner::homes`).
    pub(crate) fn homes(&self) -> u64 {
        self.scanner.homes()
    }

    /// How many erases of the whole screen (`CSI 2 J`) the program made.
    pub(crate) fn screen_clears(&self) -> u64 {
        self.screen_clears
    }

    /// Whether the alternate screen is active.
    pub(crate) fn alternate(&self) -> bool {
        self.mode().contains(TermMode::ALT_SCREEN)
    }

    /// Whether the cursor waits at the start of a blank row of the primary screen, right
    /// below a row of text: what the program printed last ended a line (the echo of a line
    /// submitted to it, or its output), and no prompt has been drawn since.
    pub(crate) fn cursor_below_text(&self) -> bool {
        let grid = self.term.grid();
        let point = grid.cursor.point;
        !self.alternate()
            && point.column.0 == 0
            && point.line.0 >= 1
            && !has_text(&grid[point.line])
            && has_text(&grid[point.line - 1])
    }

    /// Whether no row of the screen holds text: nothing drawn yet, or only modes set (bash
    /// turns bracketed paste on in a write of its own before its prompt).
    pub(crate) fn shows_no_text(&self) -> bool {
        let grid = self.term.grid();
        (0..grid.screen_lines()).all(|line| !has_text(&grid[Line(line as i32)]))
    }

    /// Whether the visible cursor stands right after the text of its row of the primary
    /// screen, nothing after it: a prompt (`> `, `(gdb) `), or a line being typed at one.
    pub(crate) fn cursor_after_text(&self) -> bool {
        self.cursor_row_is(text_ends_before)
    }

    /// Whether the visible cursor stands in a line being edited on the primary screen: right
    /// after its row's text ([`cursor_after_text`](Self::cursor_after_text)), or after text
    /// with a suggestion from the history drawn after it (prompt_toolkit's and fish's, grey or
    /// faint, unlike the text before it: `crate::term::suggestion`). Text after the cursor
    /// drawn as the text before it (a spinner's glyph with a backspace after it, a line edited
    /// in its middle) does not count, nor does a suggestion where the text before the cursor
    /// does not end with `typed`, the text the last input typed (`suggestion::typed_text`: a
    /// spinner drawn grey or faint after a key that started it), nor after a single key or
    /// blanks typed (`suggestion::follows_typed`).
    pub(crate) fn cursor_in_line(&self, typed: &str) -> bool {
        self.cursor_row_is(|row, col| {
            text_ends_before(row, col)
                || (text_before(row, col)
                    && suggestion::drawn_from(row, col)
                    && suggestion::follows_typed(row, col, typed))
        })
    }

    /// Whether the cursor is visible on the primary screen and `test` holds for its row and
    /// column.
    fn cursor_row_is(&self, test: impl Fn(&Row<Cell>, usize) -> bool) -> bool {
        let grid = self.term.grid();
        let point = grid.cursor.point;
        !self.alternate()
            && self.cursor_visible()
            && point.line.0 >= 0
            && test(&grid[point.line], point.column.0)
    }

    /// Whether the cursor is shown (`DECTCEM`).
    pub(crate) fn cursor_visible(&self) -> bool {
        self.mode().contains(TermMode::SHOW_CURSOR)
    }

    /// The text before the visible cursor of the primary screen, when it stands right after
    /// the text of its row ([`cursor_after_text`](Self::cursor_after_text)): that row's, after
    /// the rows soft-wrapped into it (a long prompt; at most [`PROMPT_ROWS`] rows in all),
    /// trailing blanks trimmed.
    pub(crate) fn text_before_cursor(&self) -> Option<String> {
        if !self.cursor_after_text() {
            return None;
        }
        let grid = self.term.grid();
        let line = grid.cursor.point.line;
        let mut first = line;
        while first.0 > 0
            && line.0 - first.0 + 1 < PROMPT_ROWS
            && is_wrapped(&grid[Line(first.0 - 1)])
        {
            first = Line(first.0 - 1);
        }
        let mut text = String::new();
        for row in first.0..line.0 {
            line_text(&grid[Line(row)], &mut text);
        }
        row_text(&grid[line], &mut text);
        Some(text)
    }

    /// The input modes.
    pub(crate) fn modes(&self) -> Modes {
        let mode = self.mode();
        // X10 reporting (mode 9) is on only when no other mouse mode was set after it.
        let mouse = if self.rules.x10_mouse() {
            MouseReporting::Press
        } else if mode.contains(TermMode::MOUSE_MOTION) {
            MouseReporting::Motion
        } else if mode.contains(TermMode::MOUSE_DRAG) {
            MouseReporting::Drag
        } else if mode.contains(TermMode::MOUSE_REPORT_CLICK) {
            MouseReporting::Click
        } else {
            MouseReporting::Off
        };
        let kitty = kitty_flags(mode);
        Modes {
            app_cursor: mode.contains(TermMode::APP_CURSOR),
            app_keypad: mode.contains(TermMode::APP_KEYPAD),
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            mouse,
            mouse_sgr: mode.contains(TermMode::SGR_MOUSE),
            mouse_utf8: mode.contains(TermMode::UTF8_MOUSE),
            mouse_urxvt: self.rules.urxvt_mouse(),
            focus_events: mode.contains(TermMode::FOCUS_IN_OUT),
            kitty_keyboard: kitty,
            modify_other_keys: self.rules.modify_other_keys(),
        }
    }

    /// A snapshot of the visible screen.
    pub(crate) fn screen(&self) -> Screen {
        self.screen_of_rows(|_| true)
    }

    /// A snapshot of the visible screen with the text of the rows `wanted` takes: the others
    /// are left blank (no `String` made for them), their wrap flags, the cursor, the title
    /// and the modes kept. For a wait that reads one row, whose look after each keystroke
    /// turned every row into text.
    pub(crate) fn screen_of_rows(&self, wanted: impl Fn(usize) -> bool) -> Screen {
        let grid = self.term.grid();
        let lines = (0..grid.screen_lines())
            .map(|line| {
                let mut text = String::new();
                if wanted(line) {
                    row_text(&grid[Line(line as i32)], &mut text);
                }
                text
            })
            .collect();
        let last = grid.screen_lines().saturating_sub(1);
        let wrapped = (0..grid.screen_lines())
            .map(|line| line < last && is_wrapped(&grid[Line(line as i32)]))
            .collect();
        let wide_spacer_ends = (0..grid.screen_lines())
            .map(|line| ends_in_wide_spacer(&grid[Line(line as i32)]))
            .collect();
        let point = grid.cursor.point;
        Screen {
            cols: self.cols,
            rows: self.rows,
            lines,
            wrapped,
            wide_spacer_ends,
            frames: !self.alternate() && self.frames.drawing(),
            cursor: Cursor {
                row: point.line.0.max(0) as u16,
                col: point.column.0 as u16,
                visible: self.mode().contains(TermMode::SHOW_CURSOR),
            },
            alternate: self.alternate(),
            title: self.title.clone(),
            modes: self.modes(),
        }
    }

    /// The screen with the colours and attributes of its cells.
    pub(crate) fn styled_screen(&self) -> crate::term::screen::style::StyledScreen {
        let grid = self.term.grid();
        let mut runs = Vec::new();
        for line in 0..grid.screen_lines() {
            crate::term::screen::style::row_runs(line as u16, &grid[Line(line as i32)], &mut runs);
        }
        crate::term::screen::style::StyledScreen { screen: self.screen(), runs }
    }

    /// The session ended: from now on the tail reaches down to the screen's last row with
    /// text, below the cursor too (a program that moved the cursor up, then exited, left
    /// rows there that a person read; trailing blank rows are no lines).
    pub(crate) fn end(&mut self) {
        self.ended = true;
    }

    /// The screen's logical lines from the top (see [`Emulator::tail_top`]) down to the
    /// cursor's line (once the session ended, down to the last row with text, if lower), the
    /// first prefixed with the transcript's pending text, and split where they will be split
    /// when they settle ([`Transcript::split_long`]); `None` while the alternate screen is
    /// active.
    pub(crate) fn tail(&self, transcript: &Transcript) -> Option<Vec<String>> {
        if self.alternate() {
            return None;
        }
        let last = if self.ended { self.last_row_read() } else { self.cursor_row() };
        Some(self.lines_down_to(transcript, self.tail_top(), last))
    }

    /// The row the tail starts on: the first row of a scrolling region below the primary
    /// screen's top while one is set and the cursor is at or below it (a log scrolling under
    /// a status line), until the session ends; the screen's first row otherwise.
    ///
    /// The rows scrolled off such a region settle from its first row ([`RegionWatch`]), so
    /// the tail must start there to keep its numbers: a tail that began with the status line
    /// above it was numbered anew each time a row settled beneath it, and every read after a
    /// scroll was a rewrite that returned the whole screen again. The rows above the region
    /// do not scroll while it is set; they join the tail (and the transcript) once the region
    /// is reset or the session ended (that read returns the screen again from its top, once),
    /// or when they really scroll off the screen.
    pub(super) fn tail_top(&self) -> usize {
        match self.rules.region() {
            Some((top, _)) if !self.ended && !self.alternate() && self.cursor_row() >= top => top,
            _ => 0,
        }
    }

    /// The screen's logical lines from the tail's top down to its last row with text (or the
    /// cursor's, if lower): the tail, with the rows below the cursor a program moved up.
    pub(crate) fn lines_to_last_text(&self, transcript: &Transcript) -> Option<Vec<String>> {
        (!self.alternate())
            .then(|| self.lines_down_to(transcript, self.tail_top(), self.last_row_read()))
    }

    /// Where the text on the primary screen ends: the transcript line number of its last row
    /// with text (or the cursor's, if lower) and that line's length.
    pub(super) fn text_end(&self, transcript: &Transcript) -> (u64, usize) {
        let lines = self.lines_to_last_text(transcript).unwrap_or_default();
        let last = lines.len().saturating_sub(1);
        (transcript.end() + last as u64, lines.last().map_or(0, String::len))
    }

    /// The primary screen's rows that show transcript line `number`, if it is on the screen.
    pub(crate) fn rows_of_line(
        &self,
        transcript: &Transcript,
        number: u64,
    ) -> Option<std::ops::Range<usize>> {
        if self.alternate() {
            return None;
        }
        let index = number.checked_sub(transcript.end())?;
        let grid = self.term.grid();
        let rows = grid.screen_lines();
        let top = self.tail_top();
        let (mut line, mut start) = (0, top);
        for row in top..rows {
            if is_wrapped(&grid[Line(row as i32)]) && row + 1 < rows {
                continue;
            }
            if line == index {
                return Some(start..row + 1);
            }
            (line, start) = (line + 1, row + 1);
        }
        None
    }

    /// The settled rows of transcript line `number` no longer on the screen, which begin it
    /// before `rows` (its [`rows_of_line`](Self::rows_of_line)): the transcript's pending
    /// text when the line goes on from it, nothing otherwise.
    pub(crate) fn text_above<'t>(
        &self,
        transcript: &'t Transcript,
        rows: &std::ops::Range<usize>,
    ) -> &'t str {
        let pending_here = match self.pending_row {
            Some(row) => row == rows.start,
            None => rows.start == 0 && self.tail_top() == 0,
        };
        if pending_here { transcript.pending() } else { "" }
    }

    /// The text after the cursor on its line: its row's from the cursor on, and the rows it
    /// goes on in (soft-wrapped).
    pub(super) fn text_after_cursor(&self) -> String {
        let grid = self.term.grid();
        let point = grid.cursor.point;
        let mut text = String::new();
        let mut row = point.line.0.max(0) as usize;
        text_from_cell(&grid[Line(row as i32)], point.column.0, &mut text);
        while is_wrapped(&grid[Line(row as i32)]) && row + 1 < grid.screen_lines() {
            row += 1;
            line_text(&grid[Line(row as i32)], &mut text);
        }
        text
    }

    /// Where the cursor is on the grid (see [`MarkAt::cell`]).
    pub(crate) fn cursor_cell(&self, transcript: &Transcript) -> (u64, usize, usize) {
        let point = self.term.grid().cursor.point;
        (transcript.end(), point.line.0.max(0) as usize, point.column.0)
    }

    /// The row the cursor is on.
    pub(super) fn cursor_row(&self) -> usize {
        self.term.grid().cursor.point.line.0.max(0) as usize
    }

    /// The lowest row a person has read: the last with text, or the cursor's if lower.
    pub(super) fn last_row_read(&self) -> usize {
        let grid = self.term.grid();
        let cursor_row = self.cursor_row();
        (cursor_row + 1..grid.screen_lines())
            .rev()
            .find(|&line| has_text(&grid[Line(line as i32)]))
            .unwrap_or(cursor_row)
    }

    /// The screen's logical lines from row `top` down to the one on row `last` (see
    /// [`Emulator::tail`]), the cursor's line padded to the cursor unless nothing but blanks
    /// is before it there (see [`Emulator::cursor_position`], which counts them).
    pub(super) fn lines_down_to(
        &self,
        transcript: &Transcript,
        top: usize,
        last: usize,
    ) -> Vec<String> {
        self.lines_from(transcript, top, Some(last))
    }

    /// The screen's logical lines from row `top` down to the cursor, the last cut at the
    /// cursor: what is after it on its line is left out.
    fn lines_to_cursor(&self, transcript: &Transcript, top: usize) -> Vec<String> {
        self.lines_from(transcript, top, None)
    }

    /// [`lines_down_to`](Self::lines_down_to) row `last`, or, without it, down to the cursor
    /// and cut there ([`lines_to_cursor`](Self::lines_to_cursor)).
    fn lines_from(&self, transcript: &Transcript, top: usize, last: Option<usize>) -> Vec<String> {
        let grid = self.term.grid();
        let cursor = grid.cursor.point;
        let cursor_row = cursor.line.0.max(0) as usize;
        let mut lines = Vec::new();
        // The transcript's pending text continues on the first row, or on the row a region's
        // scrolling left it before; it is left out with that row when the row is above `top`.
        let pending_row = self.pending_row.filter(|_| transcript.has_pending_rows());
        let mut current = if pending_row.is_none() && top == 0 {
            transcript.pending().to_owned()
        } else {
            String::new()
        };
        // Each row's text is taken alone, then appended: `line_text` checks all it is given
        // as text again, so a soft-wrapped line given whole was checked once a row (500 rows
        // of marks, 16 MB: 4 GB checked, two seconds a read).
        let mut piece = String::new();
        for line in top.min(grid.screen_lines())..grid.screen_lines() {
            let row = &grid[Line(line as i32)];
            if pending_row == Some(line) {
                if !current.is_empty() {
                    lines.push(std::mem::take(&mut current));
                }
                current.push_str(transcript.pending());
            }
            piece.clear();
            let Some(last) = last else {
                if line == cursor_row {
                    // The cell under the cursor is before it when the next character goes to
                    // the next row (the cursor stays in the last column until it does).
                    let before = cursor.column.0 + usize::from(grid.cursor.input_needs_wrap);
                    let cells = text_of_first_cells(row, before, &mut piece);
                    current.push_str(&piece);
                    current.extend(std::iter::repeat_n(' ', before.saturating_sub(cells)));
                    lines.push(std::mem::take(&mut current));
                    break;
                }
                line_text(row, &mut piece);
                current.push_str(&piece);
                if !is_wrapped(row) {
                    lines.push(std::mem::take(&mut current));
                }
                continue;
            };
            let cells = line_text(row, &mut piece);
            current.push_str(&piece);
            let wrapped = is_wrapped(row) && line + 1 < grid.screen_lines();
            // A line with nothing before the cursor but blanks is empty: its blanks are where
            // the next text goes, no text read (fish's continuation row after `begin`, the
            // cursor moved right to the indentation, read as 24 spaces at 120 columns).
            if line == cursor_row && !wrapped && cursor.column.0 > cells && !current.is_empty() {
                current.extend(std::iter::repeat_n(' ', cursor.column.0 - cells));
            }
            if !wrapped {
                lines.push(std::mem::take(&mut current));
                if line >= last.max(cursor_row) {
                    break;
                }
            }
        }
        transcript.split_long(&mut lines);
        lines
    }

    /// The primary screen's lines down to its cursor while the alternate screen hides it (as
    /// [`Emulator::tail`] gave them when it was hidden; once the session ended, from its top
    /// down to its last row with text); `None` on the primary screen. Reads take them as the
    /// tail: they are what a person saw before the program drew (`echo one; echo two; vim`
    /// read nothing new while vim was up, and `one` and `two` only once it ended), and when
    /// the program leaves, the primary screen shows them again, unchanged: no news then.
    pub(crate) fn hidden_tail(&self) -> Option<&[String]> {
        let hidden = self.hidden_tail.as_ref().filter(|_| self.alternate())?;
        Some(if self.ended { &hidden.lines } else { &hidden.to_cursor })
    }

    /// The hidden tail as reads take it (see [`Emulator::hidden_tail`]): while the session
    /// runs, the cursor's line, when it holds text, is read as empty. A line left half-written
    /// when the program took the screen (`git commit`'s `hint: Waiting for your editor to
    /// close the file... `, which git erases for its summary once the editor ends) is read
    /// once the program is back, as the screen then has it: read before, it made the first
    /// read after the program marked as rewritten. (`name? ` printed before is read then too.)
    pub(crate) fn readable_hidden_tail(&self) -> Option<std::borrow::Cow<'_, [String]>> {
        let tail = self.hidden_tail()?;
        match tail.split_last() {
            Some((last, done)) if !self.ended && !last.is_empty() => {
                let mut lines = done.to_vec();
                lines.push(String::new());
                Some(std::borrow::Cow::Owned(lines))
            }
            _ => Some(std::borrow::Cow::Borrowed(tail)),
        }
    }

    /// The cursor's line of the hidden tail that [`Emulator::readable_hidden_tail`] reads as
    /// empty, as the primary screen holds it (`None` when it leaves no line out).
    pub(crate) fn hidden_cursor_line(&self) -> Option<&str> {
        let last = self.hidden_tail()?.last()?;
        (!self.ended && !last.is_empty()).then_some(last.as_str())
    }

    /// The transcript line number and byte offset of the cursor: the line holding it (its
    /// part that holds it, when a line longer than a read is split) and the bytes before it
    /// there, text after the cursor (a line a program redraws from its start, a row the
    /// cursor was moved back onto) left out.
    pub(crate) fn cursor_position(&self, transcript: &Transcript) -> (u64, usize) {
        if !self.alternate() {
            let lines = self.lines_to_cursor(transcript, self.tail_top());
            let last = lines.len().saturating_sub(1);
            return (transcript.end() + last as u64, lines.last().map_or(0, String::len));
        }
        let grid = self.term.grid();
        let cursor_row = grid.cursor.point.line.0.max(0) as usize;
        let ended = (0..cursor_row).filter(|&line| !is_wrapped(&grid[Line(line as i32)])).count();
        (transcript.end() + ended as u64, 0)
    }
}
