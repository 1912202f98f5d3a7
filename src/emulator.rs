//! One session's terminal emulation: alacritty's `Term` fed through the `vte` processor,
//! answering the program's queries, and draining scrolled-off lines into the transcript.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use alacritty_terminal::event::{Event, EventListener, WindowSize};
use alacritty_terminal::grid::{Dimensions, Row};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{ClipboardType, Config as TermConfig, Osc52, Term, TermMode};
use alacritty_terminal::vte::ansi::{Processor, Rgb};

use crate::scan::{PromptMark, Scanner, Stop};
use crate::screen::{Cursor, Modes, MouseReporting, Screen};
use crate::transcript::Transcript;

/// Lines alacritty's grid may hold in its own history between two drains.
const GRID_HISTORY: usize = 2000;

/// Collects the terminal's events while bytes are processed; the emulator handles them after.
#[derive(Clone, Default)]
struct Listener(Rc<RefCell<Vec<Event>>>);

impl EventListener for Listener {
    fn send_event(&self, event: Event) {
        match event {
            // Rendering hints mean nothing to a headless terminal.
            Event::Wakeup | Event::MouseCursorDirty | Event::CursorBlinkingChange => {}
            event => self.0.borrow_mut().push(event),
        }
    }
}

/// An OSC 133 mark and where the cursor was when it arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MarkAt {
    /// The mark.
    pub mark: PromptMark,
    /// Transcript line number of the cursor's line.
    pub line: u64,
    /// Byte offset of the cursor in that line's text.
    pub offset: usize,
}

/// The emulator of one session.
pub(crate) struct Emulator {
    term: Term<Listener>,
    parser: Processor,
    scanner: Scanner,
    events: Listener,
    cols: u16,
    rows: u16,
    title: String,
    bells: u64,
    clipboard: String,
    selection: String,
}

impl Emulator {
    pub(crate) fn new(cols: u16, rows: u16) -> Self {
        let events = Listener::default();
        let config = TermConfig {
            scrolling_history: GRID_HISTORY,
            kitty_keyboard: true,
            osc52: Osc52::CopyPaste,
            ..TermConfig::default()
        };
        let size = TermSize::new(usize::from(cols), usize::from(rows));
        Emulator {
            term: Term::new(config, &size, events.clone()),
            parser: Processor::new(),
            scanner: Scanner::new(),
            events,
            cols,
            rows,
            title: String::new(),
            bells: 0,
            clipboard: String::new(),
            selection: String::new(),
        }
    }

    /// Processes bytes from the program: updates the grid, settles scrolled-off lines into
    /// `transcript`, appends the terminal's replies to `replies` and OSC 133 marks to `marks`.
    pub(crate) fn feed(
        &mut self,
        mut bytes: &[u8],
        transcript: &mut Transcript,
        replies: &mut Vec<u8>,
        marks: &mut Vec<MarkAt>,
    ) {
        let rows = usize::from(self.rows);
        let budget = GRID_HISTORY - rows;
        while !bytes.is_empty() {
            let (n, stop) = self.scanner.scan(bytes, budget, rows);
            if n > 0 {
                self.parser.advance(&mut self.term, &bytes[..n]);
            }
            self.drain_history(transcript);
            self.scanner.reset_budget();
            if let Stop::Mark(mark) = stop {
                let (line, offset) = self.cursor_position(transcript);
                marks.push(MarkAt { mark, line, offset });
            }
            bytes = &bytes[n..];
        }
        self.handle_events(replies);
    }

    /// When a synchronized update (mode 2026) is holding bytes back, the time it expires.
    pub(crate) fn sync_deadline(&self) -> Option<Instant> {
        self.parser.sync_timeout().sync_timeout()
    }

    /// Ends an expired synchronized update, applying the bytes it held.
    pub(crate) fn stop_sync(&mut self, transcript: &mut Transcript, replies: &mut Vec<u8>) {
        self.parser.stop_sync(&mut self.term);
        self.drain_history(transcript);
        self.handle_events(replies);
    }

    /// Moves every line in alacritty's history into the transcript, oldest first.
    fn drain_history(&mut self, transcript: &mut Transcript) {
        let grid = self.term.grid();
        let history = grid.history_size();
        if history == 0 {
            return;
        }
        if history >= GRID_HISTORY {
            transcript.push_notice(
                "[termloom: output scrolled faster than it could be recorded; lines are missing here]",
            );
        }
        let mut text = String::new();
        for back in (1..=history).rev() {
            let row = &grid[Line(-(back as i32))];
            text.clear();
            row_text(row, &mut text);
            transcript.push_row(&text, is_wrapped(row));
        }
        self.term.grid_mut().clear_history();
    }

    /// Releases the grid's cache of history rows (done when a session goes quiet).
    pub(crate) fn trim_memory(&mut self) {
        self.term.grid_mut().truncate();
    }

    fn handle_events(&mut self, replies: &mut Vec<u8>) {
        let events = std::mem::take(&mut *self.events.0.borrow_mut());
        for event in events {
            match event {
                Event::PtyWrite(text) => replies.extend_from_slice(text.as_bytes()),
                Event::ColorRequest(index, format) => {
                    let color = self.term.colors()[index].unwrap_or_else(|| default_color(index));
                    replies.extend_from_slice(format(color).as_bytes());
                }
                Event::TextAreaSizeRequest(format) => {
                    let size = WindowSize {
                        num_lines: self.rows,
                        num_cols: self.cols,
                        cell_width: 8,
                        cell_height: 16,
                    };
                    replies.extend_from_slice(format(size).as_bytes());
                }
                Event::ClipboardStore(kind, text) => match kind {
                    ClipboardType::Clipboard => self.clipboard = text,
                    ClipboardType::Selection => self.selection = text,
                },
                Event::ClipboardLoad(kind, format) => {
                    let text = match kind {
                        ClipboardType::Clipboard => &self.clipboard,
                        ClipboardType::Selection => &self.selection,
                    };
                    replies.extend_from_slice(format(text).as_bytes());
                }
                Event::Title(title) => self.title = title,
                Event::ResetTitle => self.title.clear(),
                Event::Bell => self.bells += 1,
                _ => {}
            }
        }
    }

    /// Resizes the grid (the caller resizes the kernel's terminal).
    pub(crate) fn resize(&mut self, cols: u16, rows: u16, transcript: &mut Transcript) {
        self.cols = cols;
        self.rows = rows;
        self.term.resize(TermSize::new(usize::from(cols), usize::from(rows)));
        self.drain_history(transcript);
    }

    /// The size in columns and rows.
    pub(crate) fn size(&self) -> (u16, u16) {
        (self.cols, self.rows)
    }

    /// The number of bells rung.
    pub(crate) fn bells(&self) -> u64 {
        self.bells
    }

    /// Sets the text an OSC 52 clipboard load returns.
    pub(crate) fn set_clipboard(&mut self, text: String) {
        self.clipboard = text;
    }

    /// The text the program last stored with OSC 52.
    pub(crate) fn clipboard(&self) -> &str {
        &self.clipboard
    }

    /// The raw mode flags.
    pub(crate) fn mode(&self) -> TermMode {
        *self.term.mode()
    }

    /// Whether the alternate screen is active.
    pub(crate) fn alternate(&self) -> bool {
        self.mode().contains(TermMode::ALT_SCREEN)
    }

    /// The input modes.
    pub(crate) fn modes(&self) -> Modes {
        let mode = self.mode();
        let mouse = if mode.contains(TermMode::MOUSE_MOTION) {
            MouseReporting::Motion
        } else if mode.contains(TermMode::MOUSE_DRAG) {
            MouseReporting::Drag
        } else if mode.contains(TermMode::MOUSE_REPORT_CLICK) {
            MouseReporting::Click
        } else {
            MouseReporting::Off
        };
        let kitty = [
            TermMode::DISAMBIGUATE_ESC_CODES,
            TermMode::REPORT_EVENT_TYPES,
            TermMode::REPORT_ALTERNATE_KEYS,
            TermMode::REPORT_ALL_KEYS_AS_ESC,
            TermMode::REPORT_ASSOCIATED_TEXT,
        ]
        .iter()
        .enumerate()
        .filter(|(_, flag)| mode.contains(**flag))
        .fold(0u8, |bits, (i, _)| bits | (1 << i));
        Modes {
            app_cursor: mode.contains(TermMode::APP_CURSOR),
            app_keypad: mode.contains(TermMode::APP_KEYPAD),
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            mouse,
            mouse_sgr: mode.contains(TermMode::SGR_MOUSE),
            mouse_utf8: mode.contains(TermMode::UTF8_MOUSE),
            focus_events: mode.contains(TermMode::FOCUS_IN_OUT),
            kitty_keyboard: kitty,
        }
    }

    /// A snapshot of the visible screen.
    pub(crate) fn screen(&self) -> Screen {
        let grid = self.term.grid();
        let rows = (0..grid.screen_lines())
            .map(|line| {
                let mut text = String::new();
                row_text(&grid[Line(line as i32)], &mut text);
                text
            })
            .collect();
        let point = grid.cursor.point;
        Screen {
            cols: self.cols,
            height: self.rows,
            rows,
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
    pub(crate) fn styled_screen(&self) -> crate::style::StyledScreen {
        let grid = self.term.grid();
        let mut runs = Vec::new();
        for line in 0..grid.screen_lines() {
            crate::style::row_runs(line as u16, &grid[Line(line as i32)], &mut runs);
        }
        crate::style::StyledScreen { screen: self.screen(), runs }
    }

    /// The screen's logical lines from the top down to the cursor's line, the first prefixed
    /// with the transcript's pending text; `None` while the alternate screen is active.
    pub(crate) fn tail(&self, transcript: &Transcript) -> Option<Vec<String>> {
        if self.alternate() {
            return None;
        }
        let grid = self.term.grid();
        let cursor = grid.cursor.point;
        let cursor_row = cursor.line.0.max(0) as usize;
        let mut lines = Vec::new();
        let mut current = transcript.pending().to_owned();
        for line in 0..grid.screen_lines() {
            let row = &grid[Line(line as i32)];
            let cells = row_text(row, &mut current);
            let wrapped = is_wrapped(row) && line + 1 < grid.screen_lines();
            if line == cursor_row && !wrapped && cursor.column.0 > cells {
                current.extend(std::iter::repeat_n(' ', cursor.column.0 - cells));
            }
            if !wrapped {
                lines.push(std::mem::take(&mut current));
                if line >= cursor_row {
                    break;
                }
            }
        }
        Some(lines)
    }

    /// The transcript line number and byte offset of the cursor.
    fn cursor_position(&self, transcript: &Transcript) -> (u64, usize) {
        let grid = self.term.grid();
        let cursor_row = grid.cursor.point.line.0.max(0) as usize;
        let ended = (0..cursor_row).filter(|&line| !is_wrapped(&grid[Line(line as i32)])).count();
        let offset =
            self.tail(transcript).and_then(|lines| lines.get(ended).map(String::len)).unwrap_or(0);
        (transcript.end() + ended as u64, offset)
    }
}

fn is_wrapped(row: &Row<Cell>) -> bool {
    row.len() > 0 && row[Column(row.len() - 1)].flags.contains(Flags::WRAPLINE)
}

/// Whether a cell adds text: not the spacer of a wide character, and not a blank (a tab is
/// a blank) without combining marks.
fn is_text(cell: &Cell) -> bool {
    ((cell.c != ' ' && cell.c != '\t') || cell.zerowidth().is_some())
        && !cell.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
}

/// Appends the text of a grid row to `out`, trailing blanks trimmed; returns the number of
/// cells the kept text covers. The trailing blanks are found first, from the end, so only the
/// cells up to the last text cell are visited.
fn row_text(row: &Row<Cell>, out: &mut String) -> usize {
    let cells = &row[..];
    let Some(last) = cells.iter().rposition(is_text) else {
        return 0;
    };
    out.reserve(last + 1);
    for cell in &cells[..=last] {
        if cell.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER) {
            continue;
        }
        out.push(if cell.c == '\t' { ' ' } else { cell.c });
        if let Some(marks) = cell.zerowidth() {
            out.extend(marks.iter());
        }
    }
    last + if cells[last].flags.contains(Flags::WIDE_CHAR) { 2 } else { 1 }
}

/// xterm's default colours: the 16 ANSI colours, the 6×6×6 cube, the grey ramp, then
/// foreground (light grey) and background (black) for the named slots above 255.
fn default_color(index: usize) -> Rgb {
    const ANSI: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let (r, g, b) = match index {
        0..=15 => ANSI[index],
        16..=231 => {
            let i = index - 16;
            let level = |v: usize| if v == 0 { 0 } else { (55 + v * 40) as u8 };
            (level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        232..=255 => {
            let v = (8 + (index - 232) * 10) as u8;
            (v, v, v)
        }
        257 => (0, 0, 0),
        _ => (229, 229, 229),
    };
    Rgb { r, g, b }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(emu: &mut Emulator, t: &mut Transcript, bytes: &[u8]) -> Vec<u8> {
        let mut replies = Vec::new();
        emu.feed(bytes, t, &mut replies, &mut Vec::new());
        replies
    }

    #[test]
    fn scrolled_lines_settle_in_order() {
        let mut emu = Emulator::new(20, 5);
        let mut t = Transcript::new(100_000, 1 << 30, 1 << 20);
        let text: String = (0..5000).map(|i| format!("{i}\r\n")).collect();
        feed(&mut emu, &mut t, text.as_bytes());
        assert_eq!(t.end(), 4996);
        assert_eq!(t.line(0), Some("0"));
        assert_eq!(t.line(4995), Some("4995"));
        assert_eq!(emu.tail(&t).unwrap(), vec!["4996", "4997", "4998", "4999", ""]);
    }

    #[test]
    fn clear_settles_screen_before_history_is_wiped() {
        let mut emu = Emulator::new(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"a\r\nb\r\n\x1b[H\x1b[2J\x1b[3Jc");
        assert_eq!((t.line(0), t.line(1), t.line(2)), (Some("a"), Some("b"), None));
        assert_eq!(emu.screen().rows[0], "c");
    }

    #[test]
    fn soft_wraps_join_and_wide_chars_appear_once() {
        let mut emu = Emulator::new(4, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, "abcdefgh\r\n中文e\u{301}\r\n\r\n\r\n".as_bytes());
        assert_eq!(t.line(0), Some("abcdefgh"));
        assert_eq!(t.line(1), Some("中文e\u{301}"));
    }

    #[test]
    fn answers_queries() {
        let mut emu = Emulator::new(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        assert_eq!(feed(&mut emu, &mut t, b"ab\x1b[6n"), b"\x1b[1;3R");
        assert_eq!(feed(&mut emu, &mut t, b"\x1b[c"), b"\x1b[?6c");
        assert_eq!(feed(&mut emu, &mut t, b"\x1b]11;?\x07"), b"\x1b]11;rgb:0000/0000/0000\x07");
        assert_eq!(feed(&mut emu, &mut t, b"\x1b[18t"), b"\x1b[8;24;80t");
        emu.set_clipboard("hi".into());
        assert_eq!(feed(&mut emu, &mut t, b"\x1b]52;c;?\x07"), b"\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn style_runs() {
        let mut emu = Emulator::new(20, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, "a\x1b[1;31mbold\x1b[0m \x1b[44;38;5;200m中x\x1b[0m".as_bytes());
        let styled = emu.styled_screen();
        let lines: Vec<String> = styled.to_string().lines().map(str::to_owned).collect();
        let styles = &lines[lines.iter().position(|l| l == "styles:").unwrap() + 1..];
        assert_eq!(
            styles,
            ["  row 0 cols 1-4: fg=red bold", "  row 0 cols 6-8: fg=color(200) bg=blue"]
        );
    }

    #[test]
    fn tail_pads_prompt_to_cursor() {
        let mut emu = Emulator::new(20, 5);
        let t = Transcript::new(1000, 1 << 20, 1 << 20);
        let mut t2 = t;
        feed(&mut emu, &mut t2, b"out\r\n$ ");
        assert_eq!(emu.tail(&t2).unwrap(), vec!["out", "$ "]);
    }
}
