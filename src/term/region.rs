//! Lines scrolled off the top of a scrolling region that does not start at the screen's top.
//!
//! alacritty moves a line into its history only when the scroll region starts at the first
//! row: a region below a status line (`CSI 3 ; 24 r`, a status line above a scrolling log)
//! rotates its rows in place, and the row scrolled off its top is gone. While such a region
//! is set on the primary screen, the feed loop gives the parser [`RegionWatch`] instead of
//! the `Term`: it passes every call on, and before each one that scrolls the region up (a
//! line feed, IND, NEL or an automatic wrap on the region's last row, a tab there with a wrap
//! pending, `CSI S`, `CSI M` on the region's first row) it settles the rows about to go into
//! the transcript, as the drain settles history rows. Nothing of this runs on the common path:
//! without such a region the parser gets the `Term` itself.

use alacritty_terminal::Term;
use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::Line;
use alacritty_terminal::term::TermMode;
use alacritty_terminal::vte::ansi::{
    Attr, CharsetIndex, ClearMode, CursorShape, CursorStyle, Handler, Hyperlink, KeyboardModes,
    KeyboardModesApplyBehavior, LineClearMode, Mode, PrivateMode, Rgb, StandardCharset,
    TabulationClearMode, cursor_icon::CursorIcon,
};
use unicode_width::UnicodeWidthChar;

use crate::term::row_text::{is_wrapped, line_text};
use crate::term::transcript::Transcript;

/// The `Term` as the parser sees it while a scrolling region below the screen's top is set on
/// the primary screen (see the module's documentation).
pub(crate) struct RegionWatch<'a, T> {
    /// The terminal every call goes to.
    pub term: &'a mut Term<T>,
    /// Where scrolled-off rows are settled.
    pub transcript: &'a mut Transcript,
    /// The region's first row.
    pub top: usize,
    /// The row past the region's last.
    pub bottom: usize,
    /// The row the transcript's pending text continues on, when a row scrolled off the
    /// region left it (see `Emulator::tail`).
    pub pending_row: &'a mut Option<usize>,
    /// Cells turned into text here, for the scanner's count of work.
    pub work: usize,
    /// Whether rows scrolled off the region are settled (the region starts below the
    /// screen's top); otherwise the watch only notes rows moved under the pending text.
    pub settles: bool,
}

impl<T> RegionWatch<'_, T> {
    /// Whether the cursor is on the region's last row, where a line feed scrolls it.
    fn on_last_row(&self) -> bool {
        self.term.grid().cursor.point.line.0 + 1 == self.bottom as i32
    }

    /// Rows from `from` to the region's last are about to move (down, or up from below the
    /// region's first row): when the pending text continues on one of them, the row it is
    /// recorded to continue on would name another row, and the text would be joined to that
    /// one's. It ends here instead (cut, not lost).
    fn rows_move(&mut self, from: usize) {
        if self.pending_row.is_some_and(|row| (from..self.bottom).contains(&row)) {
            *self.pending_row = None;
            self.transcript.end_pending();
        }
    }

    /// The cursor's row, when it is in the region.
    fn cursor_in_region(&self) -> Option<usize> {
        let row = usize::try_from(self.term.grid().cursor.point.line.0).ok()?;
        (self.top..self.bottom).contains(&row).then_some(row)
    }

    /// Settles the region's first `count` rows, which the next call scrolls off, in order.
    fn scroll_off(&mut self, count: usize) {
        if !self.settles {
            return;
        }
        let count = count.min(self.bottom - self.top);
        if count == 0 {
            return;
        }
        // The row the pending text continues on, when it is the region's first or below it
        // in the region: the rows above it (another region left it there) are lines of their
        // own, the pending text held aside until its row comes.
        let mut held = None;
        if self.transcript.has_pending_rows() {
            match *self.pending_row {
                Some(row) if row == self.top => {}
                Some(row) if (self.top..self.bottom).contains(&row) => {
                    held = Some((row, self.transcript.take_pending()));
                }
                // It continues on the screen's first row, or on a row outside the region,
                // which does not scroll off now: it ends here, before the rows that do (it is
                // not lost, only cut).
                _ => self.transcript.end_pending(),
            }
        }
        let grid = self.term.grid();
        let mut text = String::new();
        for line in self.top..self.top + count {
            if let Some((_, pending)) = held.take_if(|(row, _)| *row == line) {
                self.transcript.end_pending();
                self.transcript.restore_pending(pending);
            }
            let row = &grid[Line(line as i32)];
            text.clear();
            line_text(row, &mut text);
            // The region's last row runs on below the region, which does not scroll.
            let wrapped = is_wrapped(row) && line + 1 < self.bottom;
            self.transcript.push_row(&text, wrapped);
        }
        self.work += count * grid.columns();
        if let Some((row, pending)) = held {
            // Its row stays in the region, `count` rows up: what the rows above it left
            // unfinished ends here (cut, not lost), and the held text waits for its row.
            self.transcript.end_pending();
            self.transcript.restore_pending(pending);
            *self.pending_row = Some(row - count);
            return;
        }
        *self.pending_row = self.transcript.has_pending_rows().then_some(self.top);
    }

    /// The rows an automatic wrap scrolls off before `c` is written (alacritty's `input`).
    fn wraps_before(&self, c: char) -> usize {
        let width = c.width().unwrap_or(0);
        if width == 0 || !self.term.mode().contains(TermMode::LINE_WRAP) || !self.on_last_row() {
            return 0;
        }
        let cursor = &self.term.grid().cursor;
        let mut column = cursor.point.column.0;
        let mut wraps = 0;
        if cursor.input_needs_wrap {
            wraps += 1;
            column = 0;
        }
        if width == 2 && column + 1 >= self.term.columns() {
            wraps += 1;
        }
        wraps
    }
}

/// Passes each listed method on to the `Term` unchanged.
macro_rules! pass_on {
    ($(fn $name:ident(&mut self $(, $arg:ident: $ty:ty)*);)*) => {
        $(
            #[inline]
            fn $name(&mut self $(, $arg: $ty)*) {
                <Term<T> as Handler>::$name(self.term $(, $arg)*)
            }
        )*
    };
}

impl<T: EventListener> Handler for RegionWatch<'_, T> {
    fn input(&mut self, c: char) {
        let wraps = self.wraps_before(c);
        self.scroll_off(wraps);
        <Term<T> as Handler>::input(self.term, c);
    }

    fn linefeed(&mut self) {
        if self.on_last_row() {
            self.scroll_off(1);
        }
        <Term<T> as Handler>::linefeed(self.term);
    }

    fn newline(&mut self) {
        if self.on_last_row() {
            self.scroll_off(1);
        }
        <Term<T> as Handler>::newline(self.term);
    }

    fn put_tab(&mut self, count: u16) {
        // A tab with a wrap pending wraps.
        let cursor = &self.term.grid().cursor;
        if cursor.input_needs_wrap
            && self.term.mode().contains(TermMode::LINE_WRAP)
            && self.on_last_row()
        {
            self.scroll_off(1);
        }
        <Term<T> as Handler>::put_tab(self.term, count);
    }

    fn scroll_up(&mut self, lines: usize) {
        self.scroll_off(lines);
        <Term<T> as Handler>::scroll_up(self.term, lines);
    }

    fn delete_lines(&mut self, lines: usize) {
        // On the region's first row, deleting lines scrolls the region up.
        match self.cursor_in_region() {
            Some(row) if row == self.top && self.settles => self.scroll_off(lines),
            Some(row) => self.rows_move(row),
            None => {}
        }
        <Term<T> as Handler>::delete_lines(self.term, lines);
    }

    fn scroll_down(&mut self, lines: usize) {
        self.rows_move(self.top);
        <Term<T> as Handler>::scroll_down(self.term, lines);
    }

    fn insert_blank_lines(&mut self, lines: usize) {
        if let Some(row) = self.cursor_in_region() {
            self.rows_move(row);
        }
        <Term<T> as Handler>::insert_blank_lines(self.term, lines);
    }

    fn reverse_index(&mut self) {
        // On the region's first row, a reverse index scrolls the region down.
        if self.cursor_in_region() == Some(self.top) {
            self.rows_move(self.top);
        }
        <Term<T> as Handler>::reverse_index(self.term);
    }

    pass_on! {
        fn set_title(&mut self, title: Option<String>);
        fn set_cursor_style(&mut self, style: Option<CursorStyle>);
        fn set_cursor_shape(&mut self, shape: CursorShape);
        fn goto(&mut self, line: i32, col: usize);
        fn goto_line(&mut self, line: i32);
        fn goto_col(&mut self, col: usize);
        fn insert_blank(&mut self, count: usize);
        fn move_up(&mut self, lines: usize);
        fn move_down(&mut self, lines: usize);
        fn identify_terminal(&mut self, intermediate: Option<char>);
        fn device_status(&mut self, arg: usize);
        fn move_forward(&mut self, cols: usize);
        fn move_backward(&mut self, cols: usize);
        fn move_down_and_cr(&mut self, lines: usize);
        fn move_up_and_cr(&mut self, lines: usize);
        fn backspace(&mut self);
        fn carriage_return(&mut self);
        fn bell(&mut self);
        fn substitute(&mut self);
        fn set_horizontal_tabstop(&mut self);
        fn erase_chars(&mut self, count: usize);
        fn delete_chars(&mut self, count: usize);
        fn move_backward_tabs(&mut self, count: u16);
        fn move_forward_tabs(&mut self, count: u16);
        fn save_cursor_position(&mut self);
        fn restore_cursor_position(&mut self);
        fn clear_line(&mut self, mode: LineClearMode);
        fn clear_screen(&mut self, mode: ClearMode);
        fn clear_tabs(&mut self, mode: TabulationClearMode);
        fn set_tabs(&mut self, interval: u16);
        fn reset_state(&mut self);
        fn terminal_attribute(&mut self, attr: Attr);
        fn set_mode(&mut self, mode: Mode);
        fn unset_mode(&mut self, mode: Mode);
        fn report_mode(&mut self, mode: Mode);
        fn set_private_mode(&mut self, mode: PrivateMode);
        fn unset_private_mode(&mut self, mode: PrivateMode);
        fn report_private_mode(&mut self, mode: PrivateMode);
        fn set_scrolling_region(&mut self, top: usize, bottom: Option<usize>);
        fn set_keypad_application_mode(&mut self);
        fn unset_keypad_application_mode(&mut self);
        fn set_active_charset(&mut self, index: CharsetIndex);
        fn configure_charset(&mut self, index: CharsetIndex, charset: StandardCharset);
        fn set_color(&mut self, index: usize, color: Rgb);
        fn reset_color(&mut self, index: usize);
        fn decaln(&mut self);
        fn push_title(&mut self);
        fn pop_title(&mut self);
        fn text_area_size_pixels(&mut self);
        fn text_area_size_chars(&mut self);
        fn set_hyperlink(&mut self, hyperlink: Option<Hyperlink>);
        fn set_mouse_cursor_icon(&mut self, icon: CursorIcon);
        fn report_keyboard_mode(&mut self);
        fn push_keyboard_mode(&mut self, mode: KeyboardModes);
        fn pop_keyboard_modes(&mut self, to_pop: u16);
        fn set_keyboard_mode(&mut self, mode: KeyboardModes, behavior: KeyboardModesApplyBehavior);
    }

    fn dynamic_color_sequence(&mut self, prefix: String, index: usize, terminator: &str) {
        <Term<T> as Handler>::dynamic_color_sequence(self.term, prefix, index, terminator);
    }

    fn clipboard_store(&mut self, clipboard: u8, base64: &[u8]) {
        <Term<T> as Handler>::clipboard_store(self.term, clipboard, base64);
    }

    fn clipboard_load(&mut self, clipboard: u8, terminator: &str) {
        <Term<T> as Handler>::clipboard_load(self.term, clipboard, terminator);
    }
}
