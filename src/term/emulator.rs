//! One session's terminal emulation: alacritty's `Term` fed through the `vte` processor,
//! answering the program's queries, and draining scrolled-off lines into the transcript.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use alacritty_terminal::event::{Event, EventListener, WindowSize};
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::Flags;
use alacritty_terminal::term::{ClipboardType, Config as TermConfig, Osc52, Term, TermMode};
use alacritty_terminal::vte::ansi::{Processor, Rgb};

use crate::config::Config;
use crate::term::grid_repair;
use crate::term::region::RegionWatch;
use crate::term::rewrite::{CAN, Decision, Rules, StackBounds, View, repeat_piece};
use crate::term::row_text::{
    ascii_line_text, has_text, holds_wide_or_marked, is_wrapped, line_text, row_text,
    text_ends_before, text_from_cell, text_of_first_cells,
};
use crate::term::scan::{MarkKey, PromptMark, Scanner, Sequence, Stop};
use crate::term::screen::{Cursor, Modes, MouseReporting, Screen};
use crate::term::transcript::Transcript;

/// Lines alacritty's grid may hold in its own history between two drains.
const GRID_HISTORY: usize = 2000;
/// The most rows of a logical line [`Emulator::text_before_cursor`] takes: a prompt that
/// long (`Enter passphrase for key '…':` with a long path) still shows what it asks for.
const PROMPT_ROWS: i32 = 4;
/// Bytes fed between two trims of combining marks (at least; a screen with more cells waits
/// for as many bytes as it has cells).
const TRIM_EVERY: usize = 16 << 10;

/// The grid's size, as alacritty's `Term` takes it.
#[derive(Debug, Clone, Copy)]
struct GridSize {
    cols: usize,
    rows: usize,
}

impl Dimensions for GridSize {
    fn total_lines(&self) -> usize {
        self.rows
    }

    fn screen_lines(&self) -> usize {
        self.rows
    }

    fn columns(&self) -> usize {
        self.cols
    }
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MarkAt {
    /// The mark.
    pub mark: PromptMark,
    /// Transcript line number of the cursor's line.
    pub line: u64,
    /// Byte offset of the cursor in that line's text.
    pub offset: usize,
    /// For a command's end: where the text on the screen ends (the end of its last row with
    /// text, below the cursor when a command moved it up and left output beneath it).
    pub text_end: Option<(u64, usize)>,
    /// For a command's output start: the text after the cursor on its line (left there by an
    /// earlier program that moved the cursor up; as a rule none).
    pub after_cursor: Option<String>,
    /// Where the cursor was on the grid: the transcript's end then (rows scrolled off move
    /// it), and the cursor's row and column; equal for two marks when nothing scrolled and
    /// the cursor is where it was.
    pub cell: (u64, usize, usize),
}

/// The most bytes of clipboard answers a session gets a second (see
/// [`Turn::clipboard_room`]).
pub(crate) const CLIPBOARD_ANSWER_RATE: usize = 1 << 20;

/// One turn of feeding: the work it may still do, and what the reactor must act on.
#[derive(Debug)]
pub(crate) struct Turn {
    /// Work the turn may still do, in cells (see [`crate::term::scan`]).
    pub budget: usize,
    /// The terminal's replies to the program's queries.
    pub replies: Vec<u8>,
    /// The most bytes `replies` may hold (the room left in the session's input queue):
    /// a reply that would not fit is dropped before it is made, so a query whose answer is
    /// far larger than itself (an OSC 52 clipboard load) costs no more than the room.
    pub reply_room: usize,
    /// Replies dropped because they did not fit in `reply_room`, or clipboard answers past
    /// their rate.
    pub replies_dropped: u64,
    /// The bytes of clipboard answers (OSC 52) this turn may make: answers are held to
    /// [`CLIPBOARD_ANSWER_RATE`] bytes a second, since a 9-byte query may ask for a megabyte
    /// that a terminal which never reads it still echoes, a character at a time in the
    /// kernel (the reactor gives a turn the rate's bytes once the last answers' time passed,
    /// none before).
    pub clipboard_room: usize,
    /// The bytes of clipboard answers made this turn.
    pub clipboard_answered: usize,
    /// OSC 133 marks, in order.
    pub marks: Vec<MarkAt>,
}

impl Default for Turn {
    /// No work, and room for every reply (the reactor sets the room it has).
    fn default() -> Self {
        Turn {
            budget: 0,
            replies: Vec::new(),
            reply_room: usize::MAX,
            replies_dropped: 0,
            clipboard_room: CLIPBOARD_ANSWER_RATE,
            clipboard_answered: 0,
            marks: Vec::new(),
        }
    }
}

impl Turn {
    /// Adds a reply if it fits in the room left; counts it as dropped otherwise.
    fn reply(&mut self, reply: &[u8]) {
        if self.fits(reply.len()) {
            self.replies.extend_from_slice(reply);
        }
    }

    /// Whether `len` more bytes of replies fit; counts a reply dropped if not.
    fn fits(&mut self, len: usize) -> bool {
        let fits = self.replies.len().saturating_add(len) <= self.reply_room;
        if !fits {
            self.replies_dropped += 1;
        }
        fits
    }
}

/// The bounds output is held to (from [`Config`]).
#[derive(Debug, Clone)]
pub(crate) struct OutputBounds {
    osc: usize,
    title: usize,
    hyperlink: usize,
    title_stack: usize,
    marks: usize,
    #[cfg(feature = "fault-injection")]
    panic_on: Option<String>,
}

impl OutputBounds {
    pub(crate) fn of(config: &Config) -> Self {
        OutputBounds {
            osc: config.max_osc_bytes,
            title: config.max_title_bytes,
            hyperlink: config.max_hyperlink_bytes,
            title_stack: config.max_title_stack,
            marks: config.max_combining_marks,
            #[cfg(feature = "fault-injection")]
            panic_on: config.inject_panic_on_output.clone(),
        }
    }

    /// The bound of the OSC string `held` starts (with its `]`).
    fn osc_limit(&self, held: &[u8]) -> usize {
        let payload = &held[1.min(held.len())..];
        let number = payload.split(|&b| b == b';').next().unwrap_or(&[]);
        if number.len() == payload.len() {
            // The number is not complete yet.
            return self.osc;
        }
        match number {
            b"0" | b"1" | b"2" => self.title.min(self.osc),
            b"8" => self.hyperlink.min(self.osc),
            _ => self.osc,
        }
    }
}

/// Where an OSC string's bytes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OscState {
    /// Not in an OSC string: bytes go to the parser.
    Idle,
    /// Held back until the string ends, within its bound.
    Holding,
    /// Over its bound: dropped until the string ends.
    Skipping,
}

/// The emulator of one session.
pub(crate) struct Emulator {
    term: Term<Listener>,
    parser: Processor,
    scanner: Scanner,
    rules: Rules,
    bounds: OutputBounds,
    events: Listener,
    cols: u16,
    rows: u16,
    title: String,
    bells: u64,
    clipboard: String,
    selection: String,
    /// The OSC string being held back, from its `]`.
    held: Vec<u8>,
    osc: OscState,
    /// Repetitions of a split `CSI n b` still to run.
    repeat: usize,
    /// Output received but not fed yet: the turn's work ran out.
    pending: Vec<u8>,
    /// Bytes that could have added combining marks (non-ASCII slices, repetitions) fed since
    /// the marks were last trimmed.
    since_trim: usize,
    /// The grid may hold a wide character (and its spacers) or a combining mark: set by what
    /// can put one there (non-ASCII output, a repetition), cleared when a look at the screen
    /// finds none. While it is clear, scrolled-off rows are taken a byte a cell.
    wide_or_marked: bool,
    /// Rows drained since the screen was last looked at for wide characters and marks (while
    /// `wide_or_marked` is set): it is looked at again once a screenful has gone by, so the
    /// look costs at most as much as the drain did.
    drained_since_look: usize,
    /// OSC strings and sequences dropped because a bound was reached.
    dropped_osc: u64,
    /// While the alternate screen hides the primary one: the primary screen's lines from its
    /// top down to its last row with text (or its cursor, if lower) as they were when it was
    /// hidden (nothing but a resize, which keeps logical lines, touches the primary screen
    /// meanwhile), for the retained transcript once the session ended, and its tail then
    /// (down to the cursor's line, without the rows above a scrolling region's top: see
    /// [`Emulator::tail_top`]), all that is shown until the session ends.
    hidden_tail: Option<(Vec<String>, Vec<String>)>,
    /// The session ended (its program exited, or it was closed): the screen's rows below the
    /// cursor are part of the tail, down to the last one with text.
    ended: bool,
    /// The row the transcript's pending text continues on when a row scrolled off the top of
    /// a scrolling region left it there (see [`crate::term::region`]); otherwise it continues
    /// on the screen's first row.
    pending_row: Option<usize>,
    /// Whether rows scrolled off a region below the screen's top are settled (always, but
    /// for the test that checks the screen is the same without).
    watch_regions: bool,
    /// Where the last command's output started (its OSC 133 `C` mark): a command whose end
    /// (`D`) comes above it printed below the cursor, down to the screen's last text. (The
    /// shell tracker keeps it too, but learns of marks only after the feed turn that holds
    /// them, and a command's `C` and `D` can come in one turn.)
    output_start: Option<(u64, usize)>,
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator")
            .field("cols", &self.cols)
            .field("rows", &self.rows)
            .field("title", &self.title)
            .field("rules", &self.rules)
            .field("osc", &self.osc)
            .field("pending", &self.pending.len())
            .field("repeat", &self.repeat)
            .finish_non_exhaustive()
    }
}

/// The kitty keyboard protocol's flags in effect (bit 0 disambiguate … bit 4 associated text).
fn kitty_flags(mode: TermMode) -> u8 {
    [
        TermMode::DISAMBIGUATE_ESC_CODES,
        TermMode::REPORT_EVENT_TYPES,
        TermMode::REPORT_ALTERNATE_KEYS,
        TermMode::REPORT_ALL_KEYS_AS_ESC,
        TermMode::REPORT_ASSOCIATED_TEXT,
    ]
    .iter()
    .enumerate()
    .filter(|(_, flag)| mode.contains(**flag))
    .fold(0u8, |bits, (i, _)| bits | (1 << i))
}

impl Emulator {
    pub(crate) fn new(cols: u16, rows: u16, bounds: OutputBounds) -> Self {
        let events = Listener::default();
        let config = TermConfig {
            scrolling_history: GRID_HISTORY,
            kitty_keyboard: true,
            osc52: Osc52::CopyPaste,
            ..TermConfig::default()
        };
        let size = GridSize { cols: usize::from(cols), rows: usize::from(rows) };
        Emulator {
            term: Term::new(config, &size, events.clone()),
            parser: Processor::new(),
            scanner: Scanner::new(cols, rows),
            rules: Rules::new(StackBounds { titles: bounds.title_stack }),
            bounds,
            events,
            cols,
            rows,
            title: String::new(),
            bells: 0,
            clipboard: String::new(),
            selection: String::new(),
            held: Vec::new(),
            osc: OscState::Idle,
            repeat: 0,
            pending: Vec::new(),
            since_trim: 0,
            wide_or_marked: false,
            drained_since_look: 0,
            dropped_osc: 0,
            hidden_tail: None,
            ended: false,
            pending_row: None,
            watch_regions: true,
            output_start: None,
        }
    }

    /// Counts only OSC 133 marks that carry `key`.
    pub(crate) fn require_mark_key(&mut self, key: MarkKey) {
        self.scanner.require_mark_key(key);
    }

    /// Processes bytes from the program, as far as the turn's work allows: updates the grid,
    /// settles scrolled-off lines into `transcript`, and collects replies and OSC 133 marks
    /// in `turn`. What the turn could not do stays pending (see [`Emulator::resume`]).
    pub(crate) fn feed(&mut self, bytes: &[u8], transcript: &mut Transcript, turn: &mut Turn) {
        if self.has_pending() {
            self.pending.extend_from_slice(bytes);
            self.resume(transcript, turn);
            return;
        }
        let done = self.process(bytes, transcript, turn);
        self.pending.extend_from_slice(&bytes[done..]);
    }

    /// Goes on with output a previous turn left pending.
    pub(crate) fn resume(&mut self, transcript: &mut Transcript, turn: &mut Turn) {
        let pending = std::mem::take(&mut self.pending);
        let done = self.process(&pending, transcript, turn);
        self.pending = pending;
        self.pending.drain(..done);
        if self.pending.capacity() > 64 << 10 && self.pending.is_empty() {
            self.pending = Vec::new();
        }
    }

    /// Whether output waits for another turn.
    pub(crate) fn has_pending(&self) -> bool {
        self.repeat > 0 || !self.pending.is_empty()
    }

    /// Feeds `bytes` until they are done or the turn's work is spent; returns how many were
    /// taken.
    fn process(&mut self, bytes: &[u8], transcript: &mut Transcript, turn: &mut Turn) -> usize {
        #[cfg(feature = "fault-injection")]
        if let Some(marker) = &self.bounds.panic_on
            && memchr::memmem::find(bytes, marker.as_bytes()).is_some()
        {
            panic!("fault injection: the output contained {marker:?}");
        }
        let line_budget = GRID_HISTORY - usize::from(self.rows);
        let mut at = 0;
        loop {
            if turn.budget == 0 {
                break;
            }
            if self.repeat > 0 {
                self.repeat_piece(transcript, turn);
                continue;
            }
            if at == bytes.len() {
                break;
            }
            // Insert mode makes text cost a row a character; the scanner follows `CSI 4 h`
            // within a scan, the terminal's mode (RIS included) between them.
            self.scanner.set_insert(self.term.mode().contains(TermMode::INSERT));
            let (n, stop) = self.scanner.scan(&bytes[at..], line_budget, turn.budget);
            turn.budget = turn.budget.saturating_sub(self.scanner.take_work());
            let slice = &bytes[at..at + n];
            at += n;
            // Marks and wide characters come only from non-ASCII bytes (or from repeating
            // one, counted where the repetition runs): ASCII slices add none.
            if !slice.is_ascii() {
                self.since_trim += n;
                self.may_have_added_wide_or_marked();
            }
            match stop {
                Stop::End | Stop::Budget => self.advance(slice, transcript),
                Stop::OscStart => {
                    self.advance(&slice[..n - 1], transcript);
                    self.held.clear();
                    self.held.push(b']');
                    self.osc = OscState::Holding;
                }
                Stop::OscEnd(mark) => {
                    self.advance(slice, transcript);
                    self.end_osc();
                    if let Some(mark) = mark {
                        self.settle(transcript);
                        // A prompt starts a line of its own: at the start of a row, the row
                        // above no longer runs on into it (a pager's last row soft-wrapped
                        // into its `:` prompt, which it erased with `CR EL` on its way out:
                        // the shell's prompt was read as that line's end, `columnroot@vm:~$`).
                        if mark == PromptMark::PromptStart
                            && self.term.grid().cursor.point.column.0 == 0
                        {
                            self.end_soft_wrap(self.cursor_row(), transcript);
                        }
                        let (line, offset) = self.cursor_position(transcript);
                        // (The screen's last text only for a command that ended above its
                        // output's start: reading down to it costs a look at the screen.)
                        let ended_above = self.output_start.is_some_and(|at| (line, offset) < at);
                        let text_end = (matches!(mark, PromptMark::CommandEnd(_)) && ended_above)
                            .then(|| self.text_end(transcript));
                        let after_cursor =
                            (mark == PromptMark::OutputStart).then(|| self.text_after_cursor());
                        if mark == PromptMark::OutputStart {
                            self.output_start = Some((line, offset));
                        }
                        let cell = self.cursor_cell(transcript);
                        let at = MarkAt { mark, line, offset, text_end, after_cursor, cell };
                        turn.marks.push(at);
                    }
                }
                Stop::Sequence(sequence) => {
                    self.advance(&slice[..n - 1], transcript);
                    self.settle(transcript);
                    if sequence == Sequence::Esc(b'c') && self.osc == OscState::Idle {
                        self.settle_screen_before_reset(transcript);
                    }
                    let hiding = !self.alternate() && enters_alternate(sequence);
                    let tail = if hiding {
                        let to_cursor =
                            self.lines_down_to(transcript, self.tail_top(), self.cursor_row());
                        Some((self.lines_down_to(transcript, 0, self.last_row_read()), to_cursor))
                    } else {
                        None
                    };
                    self.apply(sequence, slice[n - 1], transcript);
                    if !self.alternate() {
                        self.hidden_tail = None;
                    } else if tail.is_some() {
                        self.hidden_tail = tail;
                    }
                }
            }
            self.settle(transcript);
        }
        self.handle_events(turn);
        at
    }

    /// RIS (`ESC c`, `tput reset`, `reset`) is about to wipe both screens and the history:
    /// the primary screen's text, which the reset would lose unread, is settled into the
    /// transcript first, as `ED 2` settles it (alacritty scrolls the screen into the history).
    /// From the alternate screen, the primary one is gone back to first, as the reset does.
    /// The parser has seen the ESC: CAN aborts it, and it is given again for the final byte.
    fn settle_screen_before_reset(&mut self, transcript: &mut Transcript) {
        self.parser.advance(&mut self.term, &[CAN]);
        if self.alternate() {
            self.parser.advance(&mut self.term, b"\x1b[?1049l");
        }
        self.parser.advance(&mut self.term, b"\x1b[2J");
        self.settle_screen_cleared(transcript);
        self.parser.advance(&mut self.term, b"\x1b");
    }

    /// Gives bytes to the parser, or to the held OSC string while one is open.
    fn advance(&mut self, bytes: &[u8], transcript: &mut Transcript) {
        match self.osc {
            OscState::Idle => {
                if !bytes.is_empty() {
                    self.parse(bytes, transcript);
                }
            }
            OscState::Holding => {
                self.held.extend_from_slice(bytes);
                if self.held.len() > self.bounds.osc_limit(&self.held) {
                    // Over its bound: dropped whole. The parser saw the ESC before `]`; CAN
                    // takes it back to the ground state.
                    self.held = Vec::new();
                    self.osc = OscState::Skipping;
                    self.dropped_osc += 1;
                    self.parser.advance(&mut self.term, &[CAN]);
                }
            }
            OscState::Skipping => {}
        }
    }

    /// Gives bytes to the parser: through [`RegionWatch`] while a scrolling region below the
    /// primary screen's top is set, so that the rows scrolled off its top are settled, and
    /// straight to the `Term` otherwise.
    fn parse(&mut self, bytes: &[u8], transcript: &mut Transcript) {
        let region = self
            .rules
            .region()
            .filter(|&(top, _)| top > 0 && self.watch_regions && !self.alternate());
        // Without such a region, the pending text may still continue on a row below the top
        // (a region left it there): rows moved under it are watched until it settles.
        let moved = (self.pending_row.is_some() && self.watch_regions && !self.alternate())
            .then(|| self.rules.region().unwrap_or((0, usize::from(self.rows))));
        let (settles, (top, bottom)) = match (region, moved) {
            (Some(region), _) => (true, region),
            (None, Some(region)) => (false, region),
            (None, None) => {
                self.parser.advance(&mut self.term, bytes);
                return;
            }
        };
        let mut watch = RegionWatch {
            term: &mut self.term,
            transcript,
            top,
            bottom,
            pending_row: &mut self.pending_row,
            work: 0,
            settles,
        };
        self.parser.advance(&mut watch, bytes);
        let work = watch.work;
        self.scanner.add(0, work);
    }

    /// The OSC string ended: the parser gets it whole (unless it was dropped).
    fn end_osc(&mut self) {
        if self.osc == OscState::Holding {
            let held = std::mem::take(&mut self.held);
            self.parser.advance(&mut self.term, &held);
            self.held = held;
            self.held.clear();
            if self.held.capacity() > 64 << 10 {
                self.held = Vec::new();
            }
        }
        self.osc = OscState::Idle;
    }

    /// Gives the parser what the rules decide for a sequence's final byte.
    fn apply(&mut self, sequence: Sequence, final_byte: u8, transcript: &mut Transcript) {
        let view = self.view();
        if let Sequence::Csi { private: None, action: b'b', .. } = sequence {
            // A repetition of the last character, whatever the rules make of it: that can be
            // a wide one, or a combining mark.
            self.may_have_added_wide_or_marked();
        }
        let erases = matches!(
            sequence,
            Sequence::Csi {
                private: None | Some(b'?'),
                action: b'P' | b'@' | b'X' | b'K' | b'J',
                ..
            }
        );
        let erases_above = matches!(
            sequence,
            Sequence::Csi { private: None | Some(b'?'), action: b'J', params }
                if params.values().first() == Some(&1)
        );
        let erases_below = matches!(
            sequence,
            Sequence::Csi { private: None | Some(b'?'), action: b'J', params }
                if params.values().first().is_none_or(|&mode| mode == 0)
        );
        if erases_below && view.row == 0 && view.col == 0 && !view.alternate {
            // An erase down from the top left corner (`CSI H CSI J`, what `clear` sends where
            // the terminal's description has no `ED 2`) erases the whole screen, as `ED 2`
            // does: the screen is settled into the transcript the same way (alacritty's `ED 2`
            // scrolls it into the history, leaving the same blank screen and cursor), where
            // the erase alone lost every line it had that never scrolled off.
            self.parser.advance(&mut self.term, &[CAN]);
            self.parser.advance(&mut self.term, b"\x1b[2J");
            self.settle_screen_cleared(transcript);
            return;
        }
        match self.rules.decide(sequence, view) {
            Decision::Keep => {
                if let Sequence::Csi { private: None, action: b'b', params } = sequence {
                    let count = usize::from(params.or(0, 1));
                    self.scanner.add(count / view.cols.max(1) + 1, count);
                }
                self.parse(&[final_byte], transcript);
            }
            Decision::Drop => self.parser.advance(&mut self.term, &[CAN]),
            Decision::Replace(bytes) => {
                self.parser.advance(&mut self.term, &[CAN]);
                self.parse(&bytes, transcript);
            }
            Decision::Repeat(count) => {
                self.parser.advance(&mut self.term, &[CAN]);
                self.repeat = count;
            }
        }
        if erases_above {
            grid_repair::first_row_above_cursor(self.term.grid_mut(), view.row);
        }
        if erases_below && view.col == 0 {
            self.end_soft_wrap(view.row, transcript);
        }
        if erases {
            grid_repair::wide_halves(self.term.grid_mut(), view.row);
        }
        let clears_screen = matches!(
            sequence,
            Sequence::Csi { private: None | Some(b'?'), action: b'J', params }
                if params.values().first() == Some(&2)
        );
        if clears_screen && !view.alternate {
            self.settle_screen_cleared(transcript);
        }
    }

    /// The row above `row` (the first row's: the transcript's pending rows) no longer runs on
    /// into it: an erase of everything from the start of `row` down (`ED 0` at column 0) left
    /// nothing of the line it continued, so what is written there next starts a line of its
    /// own. zsh's prompt, after output that did not end its line, writes its end-of-line
    /// mark and spaces that wrap onto the next row, then erases from there down and draws the
    /// prompt on that row: without this, the output's last line and the prompt were read as
    /// one line (`foo%` followed by the spaces and `$ echo bar`). Line editors that shorten a
    /// wrapped line erase its last row with `EL` (`CSI K`), which keeps the wrap, since
    /// they go on writing the same line there.
    fn end_soft_wrap(&mut self, row: usize, transcript: &mut Transcript) {
        if self.pending_row.is_some_and(|pending| row <= pending) && !self.alternate() {
            // The row the pending text continued on (below a region's top) is erased too.
            self.pending_row = None;
            transcript.end_pending();
        }
        if row == 0 {
            if !self.alternate() {
                transcript.end_pending();
            }
            return;
        }
        let grid = self.term.grid_mut();
        let last = Column(grid.columns() - 1);
        grid[Line(row as i32 - 1)][last].flags.remove(Flags::WRAPLINE);
    }

    /// `ED 2` on the primary screen scrolled the screen into the history (drained just
    /// before), down to its last non-blank cell; on a blank screen, alacritty still scrolls
    /// one blank row, which is no line anyone read (a `clear` at the start would begin the
    /// transcript with an empty line, and each `clear` of a blank screen add one): dropped.
    ///
    /// The screen's rows are then settled, and a logical line they left unfinished (its last
    /// row soft-wrapped into a row erased since, or into the blank row dropped) ends there:
    /// what is written on the cleared screen starts a line of its own.
    fn settle_screen_cleared(&mut self, transcript: &mut Transcript) {
        let grid = self.term.grid_mut();
        if grid.history_size() == 1 && grid[Line(-1)].is_clear() {
            grid.clear_history();
        }
        self.settle(transcript);
        transcript.end_pending();
        self.pending_row = None;
    }

    /// Runs one piece of a split repetition.
    fn repeat_piece(&mut self, transcript: &mut Transcript, turn: &mut Turn) {
        let cols = usize::from(self.cols);
        let piece = self.repeat.min(repeat_piece(cols));
        self.parse(format!("\x1b[{piece}b").as_bytes(), transcript);
        self.repeat -= piece;
        self.since_trim += piece;
        self.scanner.add(piece / cols + 1, piece);
        turn.budget = turn.budget.saturating_sub(self.scanner.take_work());
        self.settle(transcript);
    }

    /// After a slice: drains the grid's history into the transcript and trims combining
    /// marks when enough output went by.
    ///
    /// Each drained row counts a row of work (it was scrolled, then turned into text), so a
    /// flood of short lines gets turns as short as any other output.
    fn settle(&mut self, transcript: &mut Transcript) {
        let drained = self.drain_history(transcript);
        self.scanner.reset_lines();
        self.scanner.add(0, drained * usize::from(self.cols));
        let cells = usize::from(self.cols) * usize::from(self.rows);
        if self.since_trim >= cells.max(TRIM_EVERY) {
            self.since_trim = 0;
            grid_repair::trim_marks(self.term.grid_mut(), self.bounds.marks);
        }
        if self.wide_or_marked {
            self.drained_since_look += drained;
            // The history is drained: the screen is all the grid holds (the alternate screen
            // drains nothing, and the primary one it hides is not looked at).
            if self.drained_since_look >= usize::from(self.rows) && !self.alternate() {
                self.drained_since_look = 0;
                self.wide_or_marked = holds_wide_or_marked(self.term.grid());
            }
        }
    }

    /// Output that can put a wide character or a combining mark on the grid went in.
    fn may_have_added_wide_or_marked(&mut self) {
        self.wide_or_marked = true;
        self.drained_since_look = 0;
    }

    /// The terminal as the rules see it.
    fn view(&self) -> View {
        let point = self.term.grid().cursor.point;
        let mode = self.mode();
        View {
            cols: usize::from(self.cols),
            rows: usize::from(self.rows),
            row: point.line.0.max(0) as usize,
            col: point.column.0,
            alternate: mode.contains(TermMode::ALT_SCREEN),
            origin: mode.contains(TermMode::ORIGIN),
            keyboard: kitty_flags(mode),
        }
    }

    /// When the open synchronized update (mode 2026) stops holding the screen's checks back.
    pub(crate) fn sync_deadline(&self) -> Option<Instant> {
        self.rules.sync_deadline()
    }

    /// Ends an expired synchronized update.
    pub(crate) fn stop_sync(&mut self) {
        self.rules.end_sync();
    }

    /// Sequences and OSC strings dropped because a bound was reached.
    pub(crate) fn dropped_sequences(&self) -> u64 {
        self.dropped_osc + self.rules.dropped
    }

    /// Moves every line in alacritty's history into the transcript, oldest first.
    fn drain_history(&mut self, transcript: &mut Transcript) -> usize {
        let grid = self.term.grid();
        let history = grid.history_size();
        if history == 0 {
            return 0;
        }
        if history >= GRID_HISTORY {
            transcript.push_notice(
                "[termloom: output scrolled faster than it could be recorded; lines are missing here]",
            );
        }
        // The pending text continues on the row a region's scrolling left it on, below the
        // screen's top (a status line above it): the rows above that one come first, lines of
        // their own, as the tail shows them, with the pending text held aside; it goes on with
        // its row when that comes (`resume_at`, counted back from the newest history row).
        let mut held = None;
        let mut resume_at = 0;
        if let Some(row) = self.pending_row.take() {
            let fixed = self.rules.region().is_some_and(|(top, end)| top == 0 && row >= end);
            if fixed {
                // Below a region from the top, whose scrolling does not move it: the pending
                // text ends here (cut, not lost).
                transcript.end_pending();
            } else {
                held = Some(transcript.take_pending());
                resume_at = history.saturating_sub(row);
                self.pending_row = row.checked_sub(history).filter(|&row| row > 0);
            }
        }
        let mut text = String::new();
        let blank = alacritty_terminal::term::cell::Cell::default();
        let grid = self.term.grid_mut();
        for back in (1..=history).rev() {
            if back == resume_at
                && let Some(held) = held.take()
            {
                // The rows above ended before this one, which the held text continues.
                transcript.end_pending();
                transcript.restore_pending(held);
            }
            let row = &mut grid[Line(-(back as i32))];
            text.clear();
            if self.wide_or_marked || !ascii_line_text(row, &mut text) {
                line_text(row, &mut text);
            } else if cfg!(debug_assertions) {
                // Every test and fuzz run checks the fast path against the general one.
                let mut general = String::new();
                line_text(row, &mut general);
                assert_eq!(text, general, "a row taken a byte a cell differs");
            }
            transcript.push_row(&text, is_wrapped(row));
            // Cleared now rather than when alacritty reuses the row (which then finds nothing
            // to clear): the grid keeps up to a thousand cleared-off rows for reuse, whose
            // cells would otherwise keep their hyperlinks and combining marks (a 2 KB link on
            // every cell: 185 MB at 80x24).
            row.reset(&blank);
        }
        if let Some(held) = held {
            // Its row is still on the screen: what the rows above it left unfinished ends
            // here (cut, not lost; the tail shows it so), and the held text waits for its row.
            transcript.end_pending();
            transcript.restore_pending(held);
        }
        grid.clear_history();
        history
    }

    /// Releases the grid's cache of history rows (done when a session goes quiet).
    pub(crate) fn trim_memory(&mut self) {
        self.term.grid_mut().truncate();
    }

    fn handle_events(&mut self, turn: &mut Turn) {
        let events = std::mem::take(&mut *self.events.0.borrow_mut());
        for event in events {
            match event {
                Event::PtyWrite(text) => turn.reply(text.as_bytes()),
                Event::ColorRequest(index, format) => {
                    let color = self.term.colors()[index].unwrap_or_else(|| default_color(index));
                    turn.reply(format(color).as_bytes());
                }
                Event::TextAreaSizeRequest(format) => {
                    let size = WindowSize {
                        num_lines: self.rows,
                        num_cols: self.cols,
                        cell_width: 8,
                        cell_height: 16,
                    };
                    turn.reply(format(size).as_bytes());
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
                    // The answer is the text in base64 (4 bytes for every 3) within
                    // `ESC ] 52 ; c ;` and a terminator: sized before it is made, since a
                    // 9-byte query may ask for a megabyte.
                    let size = text.len().div_ceil(3) * 4 + 10;
                    // (The first of a turn with room goes whatever its size: the pause after
                    // it grows with it.)
                    let first = turn.clipboard_answered == 0 && turn.clipboard_room > 0;
                    if !first && turn.clipboard_answered + size > turn.clipboard_room {
                        turn.replies_dropped += 1;
                    } else if turn.fits(size) {
                        turn.reply(format(text).as_bytes());
                        turn.clipboard_answered += size;
                    }
                }
                // Control characters (a C1 CSI, say) have no place in a title a caller shows.
                Event::Title(title) => {
                    self.title = title
                        .chars()
                        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
                        .collect();
                }
                Event::ResetTitle => self.title.clear(),
                Event::Bell => self.bells += 1,
                _ => {}
            }
        }
    }

    /// Resizes the grid (the caller resizes the kernel's terminal). A large narrowing is
    /// made in steps ([`reflow_widths`]), each drained into the transcript.
    ///
    /// `line_editor`: the program reads its input a key at a time (the terminal is not in
    /// canonical mode), as a line editor does, which redraws the line it edits when the
    /// terminal's size changes, from where it laid it out: see [`Emulator::keep_line_start`].
    pub(crate) fn resize(
        &mut self,
        cols: u16,
        rows: u16,
        line_editor: bool,
        transcript: &mut Transcript,
    ) {
        if (cols, rows) == (self.cols, self.rows) {
            // alacritty leaves the terminal as it is (its scrolling region too): so does
            // everything that follows it here.
            return;
        }
        if self.pending_row.take().is_some() {
            // Reflow moves the row it continued on; it ends here (cut, not lost).
            transcript.end_pending();
        }
        let reflows = line_editor && cols != self.cols && !self.alternate();
        let rows_above_cursor = reflows.then(|| self.line_rows_above_cursor());
        for width in reflow_widths(self.cols, cols) {
            self.term.resize(GridSize { cols: usize::from(width), rows: usize::from(rows) });
            let _ = self.drain_history(transcript);
        }
        if let Some(before) = rows_above_cursor {
            self.keep_line_start(before);
        }
        self.cols = cols;
        self.rows = rows;
        self.scanner.resize(cols, rows);
        self.rules.resized();
    }

    /// The rows of the cursor's logical line above the cursor's row (on the screen).
    fn line_rows_above_cursor(&self) -> usize {
        let grid = self.term.grid();
        let cursor_row = self.cursor_row();
        (0..cursor_row).rev().take_while(|&row| is_wrapped(&grid[Line(row as i32)])).count()
    }

    /// After a reflow: a line editor (bash's readline, zsh's zle) redraws the line it edits
    /// from as many rows above the cursor as the line took above it before (it does not know
    /// that the terminal reflowed the line's rows, xterm does not), erasing each row on its
    /// way up. `before`: the rows the line took above the cursor then.
    ///
    /// - Widening rejoins the rows, so the editor went up into the rows above the line and
    ///   erased what they showed before it was read (the output line above a wrapped command
    ///   line). The line is moved down by the rows it lost above the cursor, into the blank
    ///   rows the rejoining freed at the bottom, so that the redraw starts on blank rows, where
    ///   the line began as the editor laid it out.
    /// - Narrowing splits them, so the editor's redraw starts inside the line and leaves its
    ///   first rows as they were, soft-wrapped into the redrawn line: the transcript read the
    ///   two as one line (`$ echo abc$ echo abcdef`). The wrap into the row where the redraw
    ///   starts is ended: the rows left are a line of their own, as the screen shows them.
    fn keep_line_start(&mut self, before: usize) {
        let after = self.line_rows_above_cursor();
        let cursor_row = self.cursor_row();
        let grid = self.term.grid_mut();
        if after > before {
            let last = Column(grid.columns() - 1);
            grid[Line((cursor_row - before) as i32 - 1)][last].flags.remove(Flags::WRAPLINE);
            return;
        }
        let rows = grid.screen_lines();
        // Only into blank rows below the cursor: no text is pushed off the screen.
        let room = (cursor_row + 1..rows)
            .rev()
            .take_while(|&row| {
                let row = &grid[Line(row as i32)];
                !has_text(row) && !is_wrapped(row)
            })
            .count();
        let down = (before - after).min(room);
        if down == 0 {
            return;
        }
        let start = cursor_row - after;
        // The rows opened are blank, whatever the cursor's colours.
        let template = std::mem::take(&mut grid.cursor.template);
        grid.scroll_down(&(Line(start as i32)..Line(rows as i32)), down);
        grid.cursor.template = template;
        grid.cursor.point.line += down as i32;
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

    /// How many moves to the screen's top-left the program made (see `Scanner::homes`).
    pub(crate) fn homes(&self) -> u64 {
        self.scanner.homes()
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

    /// Whether the visible cursor stands right after the text of its row of the primary
    /// screen, nothing after it: a prompt (`> `, `(gdb) `), or a line being typed at one.
    pub(crate) fn cursor_after_text(&self) -> bool {
        let grid = self.term.grid();
        let point = grid.cursor.point;
        !self.alternate()
            && self.cursor_visible()
            && point.line.0 >= 0
            && text_ends_before(&grid[point.line], point.column.0)
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
        }
    }

    /// A snapshot of the visible screen.
    pub(crate) fn screen(&self) -> Screen {
        let grid = self.term.grid();
        let lines = (0..grid.screen_lines())
            .map(|line| {
                let mut text = String::new();
                row_text(&grid[Line(line as i32)], &mut text);
                text
            })
            .collect();
        let last = grid.screen_lines().saturating_sub(1);
        let wrapped = (0..grid.screen_lines())
            .map(|line| line < last && is_wrapped(&grid[Line(line as i32)]))
            .collect();
        let point = grid.cursor.point;
        Screen {
            cols: self.cols,
            rows: self.rows,
            lines,
            wrapped,
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
    fn tail_top(&self) -> usize {
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
    fn text_end(&self, transcript: &Transcript) -> (u64, usize) {
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

    /// The text after the cursor on its line: its row's from the cursor on, and the rows it
    /// goes on in (soft-wrapped).
    fn text_after_cursor(&self) -> String {
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
    fn cursor_row(&self) -> usize {
        self.term.grid().cursor.point.line.0.max(0) as usize
    }

    /// The lowest row a person has read: the last with text, or the cursor's if lower.
    fn last_row_read(&self) -> usize {
        let grid = self.term.grid();
        let cursor_row = self.cursor_row();
        (cursor_row + 1..grid.screen_lines())
            .rev()
            .find(|&line| has_text(&grid[Line(line as i32)]))
            .unwrap_or(cursor_row)
    }

    /// The screen's logical lines from row `top` down to the one on row `last` (see
    /// [`Emulator::tail`]), the cursor's line padded to the cursor.
    fn lines_down_to(&self, transcript: &Transcript, top: usize, last: usize) -> Vec<String> {
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
        let pending_row = self.pending_row.filter(|_| !transcript.pending().is_empty());
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
            if line == cursor_row && !wrapped && cursor.column.0 > cells {
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
    /// down to its last row with text); `None` on the primary screen.
    pub(crate) fn hidden_tail(&self) -> Option<&[String]> {
        let (lines, to_cursor) = self.hidden_tail.as_ref().filter(|_| self.alternate())?;
        Some(if self.ended { lines } else { to_cursor })
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

/// Whether `sequence` sets a mode that switches to the alternate screen.
fn enters_alternate(sequence: Sequence) -> bool {
    matches!(
        sequence,
        Sequence::Csi { private: Some(b'?'), action: b'h', params }
            if params.values().iter().any(|v| matches!(v, 47 | 1047 | 1049))
    )
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

/// The widths a resize from `from` to `to` columns goes through: `to` alone, unless it
/// narrows the grid to less than a quarter, then `to` doubled as often as it stays under a
/// quarter of `from`, and halving steps down to `to`. alacritty's reflow splits a row one new
/// width at a time, moving the rest of the row each time and keeping each piece's room:
/// narrowing a full 1000x500 screen to 2 columns in one step moved 125 million cells (2.4 s
/// on the reactor) and left 2.8 GB allocated. Exact halvings cut rows where one step would,
/// so they end as it would (a test checks).
fn reflow_widths(from: u16, to: u16) -> Vec<u16> {
    let mut widths = vec![to];
    let mut width = u32::from(to);
    while width * 4 <= u32::from(from) {
        width *= 2;
        widths.push(width as u16);
    }
    widths.reverse();
    widths
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::index::Column;

    fn emulator(cols: u16, rows: u16) -> Emulator {
        Emulator::new(cols, rows, OutputBounds::of(&Config::default()))
    }

    fn feed(emu: &mut Emulator, t: &mut Transcript, bytes: &[u8]) -> Vec<u8> {
        let mut turn = Turn { budget: usize::MAX, ..Turn::default() };
        emu.feed(bytes, t, &mut turn);
        assert!(!emu.has_pending());
        turn.replies
    }

    /// Every line the transcript holds.
    fn settled(t: &Transcript) -> Vec<&str> {
        (0..t.end()).filter_map(|n| t.line(n)).collect()
    }

    /// The reflow in steps keeps the text as one step does: the same transcript (settled
    /// lines and the screen's down to the cursor), for long wrapped lines, words and blanks,
    /// wide characters and a prompt with the cursor after it, and random mixes of them, at
    /// every narrower width tried; for the plain cases, the same screen and cursor too. (Where
    /// blanks end the text at the cursor, alacritty's one-step reflow and the steps can place
    /// the cursor a row apart: the steps put it after the blanks, as they were typed.)
    #[test]
    fn a_large_narrowing_in_steps_keeps_the_text_of_one_step() {
        let plain: [&[u8]; 4] = [
            b"start\r\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nend\r\n$ ",
            b"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen\r\nab   cd    ef     \r\n> ",
            "日本語の文字を並べた行がここにあります日本語の文字を並べた行がここにあります日本語の文字を並べた行\r\nx ".as_bytes(),
            b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n9\r\n10\r\n11\r\n12\r\nlast line of several words at the bottom",
        ];
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let pieces = ["word ", "x", "     ", "日本", "\r\n", "longerword", "é", "  "];
        let random: Vec<Vec<u8>> = (0..30)
            .map(|_| {
                (0..120).map(|_| pieces[next() as usize % pieces.len()]).collect::<String>().into()
            })
            .collect();
        let cases = plain.iter().map(|c| (*c, true)).chain(random.iter().map(|c| (&c[..], false)));
        for (content, whole_screen) in cases {
            for width in [2, 3, 7, 20, 33] {
                let (mut stepped, mut one) = (emulator(100, 10), emulator(100, 10));
                let mut ts = Transcript::new(100_000, 1 << 30, 1 << 20);
                let mut to = Transcript::new(100_000, 1 << 30, 1 << 20);
                feed(&mut stepped, &mut ts, content);
                feed(&mut one, &mut to, content);
                stepped.resize(width, 10, false, &mut ts);
                one.term.resize(GridSize { cols: usize::from(width), rows: 10 });
                let _ = one.drain_history(&mut to);
                let what = format!("{:?} at {width}", String::from_utf8_lossy(content));
                let text = |e: &Emulator, t: &Transcript| {
                    let (text, _) = t.retained(e.tail(t).as_deref(), 1 << 20);
                    text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
                };
                assert_eq!(text(&stepped, &ts), text(&one, &to), "{what}");
                let (a, b) = (stepped.screen(), one.screen());
                assert!(a.cursor.row < 10 && a.cursor.col < width, "{what}: {:?}", a.cursor);
                if whole_screen {
                    assert_eq!((a.lines, a.cursor), (b.lines, b.cursor), "{what}");
                }
            }
        }
        assert_eq!(reflow_widths(1000, 2), [256, 128, 64, 32, 16, 8, 4, 2]);
        assert_eq!(reflow_widths(80, 30), [30]);
    }

    #[test]
    fn scrolled_lines_settle_in_order() {
        let mut emu = emulator(20, 5);
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
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"a\r\nb\r\n\x1b[H\x1b[2J\x1b[3Jc");
        assert_eq!((t.line(0), t.line(1), t.line(2)), (Some("a"), Some("b"), None));
        assert_eq!(emu.screen().lines[0], "c");
    }

    /// An erase down from the top left corner (`CSI H CSI J`: `clear` where the terminal's
    /// description has no `ED 2`) erases the whole screen: its lines are settled as `ED 2`
    /// settles them, each once and in order, whether a read took them from the screen before
    /// or not (they were lost, and a reader was told the screen had been rewritten). From
    /// anywhere else, and on the alternate screen, the erase settles nothing.
    #[test]
    fn an_erase_down_from_the_top_left_corner_settles_the_screen() {
        for erase in ["\x1b[J", "\x1b[0J", "\x1b[?J", "\x1b[?0J"] {
            for read_before in [false, true] {
                let mut emu = emulator(20, 5);
                let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
                let mut text = String::new();
                feed(&mut emu, &mut t, b"a\r\nb\r\n");
                if read_before {
                    text.push_str(&t.read(emu.tail(&t).as_deref(), 1000).text);
                }
                feed(&mut emu, &mut t, format!("\x1b[H{erase}c\r\nd").as_bytes());
                let out = t.read(emu.tail(&t).as_deref(), 1000);
                assert!(!out.rewritten, "{erase:?}");
                text.push_str(&out.text);
                assert_eq!(text, "a\nb\nc\nd", "{erase:?}, read before: {read_before}");
                assert_eq!(settled(&t), ["a", "b"], "{erase:?}");
                assert_eq!(rows(&emu)[..3], ["c", "d", ""], "{erase:?}");
            }
        }
        // A blank screen settles nothing; a line soft-wrapped into the screen's first row
        // is settled whole.
        let mut emu = emulator(4, 2);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[H\x1b[J\x1b[H\x1b[Jabcdefgh\x1b[H\x1b[Jx");
        assert_eq!(settled(&t), ["abcdefgh"]);
        // Elsewhere than the corner, and on the alternate screen, nothing is settled.
        for input in
            [&b"a\r\nb\x1b[1;2H\x1b[J"[..], b"a\r\nb\x1b[2;1H\x1b[J", b"\x1b[?1049ha\x1b[H\x1b[J"]
        {
            let mut emu = emulator(20, 5);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            feed(&mut emu, &mut t, input);
            assert!(settled(&t).is_empty(), "{:?}", String::from_utf8_lossy(input));
        }
    }

    /// Clearing a blank primary screen settles no empty line (alacritty scrolls one blank
    /// row into the history); a screen with text settles its rows down to the last one
    /// with text, blank rows between included.
    #[test]
    fn clearing_a_blank_screen_settles_nothing() {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[2J\x1b[H\x1b[2J\x1b[?2J\x1bc\x1b[2Jx\r\n\r\ny\x1b[2J");
        let lines = settled(&t);
        assert_eq!(lines, ["x", "", "y"]);
    }

    /// A line soft-wrapped into a row erased since (a progress bar wider than the terminal,
    /// removed with `CR EL`) ends where the screen is cleared (`clear`, `ED 2` alone, RIS):
    /// what is written on the cleared screen is a line of its own, whether the line's first
    /// rows are still on the screen or scrolled off before.
    #[test]
    fn a_clear_ends_a_line_wrapped_into_an_erased_row() {
        for clear in ["\x1b[H\x1b[2J\x1b[3J", "\x1b[2J\x1b[H", "\x1bc"] {
            for (rows, before) in [(2, ""), (4, "a\r\n"), (4, "")] {
                let mut emu = emulator(10, rows);
                let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
                let input = format!("{before}0123456789abc\r\x1b[K\n{clear}$ ls\r\nx\r\n$ ");
                feed(&mut emu, &mut t, input.as_bytes());
                let (text, _) = t.retained(emu.tail(&t).as_deref(), 1 << 20);
                assert_eq!(text, format!("{before}0123456789\n$ ls\nx\n$ ").replace('\r', ""));
            }
        }
    }

    /// RIS wipes both screens and the history: what the primary screen showed is settled
    /// first, from the primary screen and from the alternate one (the primary's text
    /// only), in any split of the stream.
    #[test]
    fn reset_settles_the_primary_screen_first() {
        for input in [&b"a\r\nb\r\n\x1bcc"[..], b"a\r\nb\r\n\x1b[?1049hfull\x1bcc"] {
            for chunk in 1..input.len() {
                let mut emu = emulator(20, 5);
                let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
                for piece in input.chunks(chunk) {
                    feed(&mut emu, &mut t, piece);
                }
                let lines = settled(&t);
                assert_eq!(lines, ["a", "b"], "{input:?} in chunks of {chunk}");
                assert_eq!(emu.screen().lines[0], "c");
                assert!(!emu.alternate());
            }
        }
    }

    /// Lines the same slice scrolled off the primary screen before switching to the
    /// alternate one are settled then, not when the alternate screen is left.
    #[test]
    fn lines_scrolled_off_before_the_alternate_screen_settle_before_it() {
        let mut emu = emulator(20, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"l1\r\nl2\r\nl3\r\nl4\r\nl5\x1b[?1049h\x1b[Hfull");
        let lines = settled(&t);
        assert_eq!(lines, ["l1", "l2"]);
        // Back on the primary screen, the next line scrolls `l3` off after them.
        feed(&mut emu, &mut t, b"\x1b[?1049l\r\n");
        let lines = settled(&t);
        assert_eq!(lines, ["l1", "l2", "l3"]);
        assert_eq!(emu.tail(&t).unwrap(), ["l4", "l5", ""]);
    }

    #[test]
    fn a_blank_in_the_last_column_of_a_wrapped_row_is_kept() {
        let mut emu = emulator(10, 6);
        let mut t = Transcript::new(100, 1 << 20, 1 << 20);
        // A space at the wrap separates two words; a wide character that did not fit in the
        // last column leaves a spacer that is no text.
        feed(&mut emu, &mut t, "012345678 abc\r\n12345678 中x\r\n123456789中\r\n".as_bytes());
        let tail = emu.tail(&t).unwrap();
        let lines: Vec<&str> =
            (0..t.end()).filter_map(|n| t.line(n)).chain(tail.iter().map(String::as_str)).collect();
        assert_eq!(lines, ["012345678 abc", "12345678 中x", "123456789中", ""]);
        // The screen's rows stay trimmed.
        assert_eq!(emu.screen().lines[0..2], ["abc", "12345678"]);
    }

    #[test]
    fn soft_wraps_join_and_wide_chars_appear_once() {
        let mut emu = emulator(4, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, "abcdefgh\r\n中文e\u{301}\r\n\r\n\r\n".as_bytes());
        assert_eq!(t.line(0), Some("abcdefgh"));
        assert_eq!(t.line(1), Some("中文e\u{301}"));
    }

    /// Rows that begin in plain ASCII (shorter and longer than a block of eight cells) and go
    /// on with what is not: tabs, wide characters,
    /// combining marks, a hyperlink (an extra part without marks), trailing blanks and a
    /// coloured blank that is not text.
    #[test]
    fn rows_mixing_plain_ascii_and_the_rest_keep_their_text() {
        let mut emu = emulator(30, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let rows = [
            "plain ascii only   \r\n",
            "ab\tc\r\n",
            "abc中文de\u{301}f\r\n",
            "0123456789abcdefg中x\r\n",
            "x\x1b]8;;http://e\x07link\x1b]8;;\x07 y\r\n",
            "end\x1b[44m   \x1b[0m\r\n",
            "\r\n\r\n\r\n",
        ];
        feed(&mut emu, &mut t, rows.concat().as_bytes());
        let lines: Vec<_> = (0..6).map(|n| t.line(n).unwrap_or("?").to_owned()).collect();
        let expected = [
            "plain ascii only",
            "ab      c",
            "abc中文de\u{301}f",
            "0123456789abcdefg中x",
            "xlink y",
            "end",
        ];
        assert_eq!(lines, expected);
    }

    /// Rows are taken a byte a cell only while no wide character or combining mark can be on
    /// the grid: after one, until a screenful of rows has scrolled by and a look at the screen
    /// finds none; a wide character outside the scrolling region keeps the general path.
    #[test]
    fn rows_are_taken_a_byte_a_cell_only_while_the_grid_holds_no_wide_or_marked_cell() {
        let mut emu = emulator(10, 4);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        assert!(!emu.wide_or_marked);
        feed(&mut emu, &mut t, "中e\u{301}\tx\r\n".as_bytes());
        assert!(emu.wide_or_marked);
        feed(&mut emu, &mut t, b"a\r\nb\r\nc\r\nd\r\ne\r\nf\r\n");
        assert!(!emu.wide_or_marked, "a screenful later the screen holds none");
        let lines = settled(&t);
        assert_eq!(lines, ["中e\u{301}     x", "a", "b", "c"]);
        // A wide character below a scrolling region stays while the region scrolls.
        feed(&mut emu, &mut t, "\x1b[4;1H中\x1b[1;3r\x1b[H".as_bytes());
        let lines: String = (0..12).map(|n| format!("r{n}\r\n")).collect();
        feed(&mut emu, &mut t, lines.as_bytes());
        assert!(emu.wide_or_marked, "the look found it");
        assert_eq!(emu.screen().lines[3], "中");
        // DEC line drawing and repetitions print ASCII bytes as other characters.
        feed(&mut emu, &mut t, b"\x1b[r\x1b[2J\x1b[Hf\r\ng\r\nh\r\ni\r\nj\r\n");
        assert!(!emu.wide_or_marked);
        feed(&mut emu, &mut t, b"\x1b(0lqk\x1b(B\r\nx\x1b[3b\r\n\r\n\r\n\r\n");
        let end = t.end();
        let lines: Vec<_> = (end - 3..end).filter_map(|n| t.line(n)).collect();
        assert_eq!(lines, ["j", "┌─┐", "xxxx"]);
        // Blanks with an underline colour or a hyperlink are blanks: trimmed at a row's end.
        feed(
            &mut emu,
            &mut t,
            b"ab\x1b[58;5;1m   \x1b[0m\r\ncd\x1b]8;;http://x\x1b\\  \x1b]8;;\x1b\\\r\n",
        );
        feed(&mut emu, &mut t, b"\r\n\r\n\r\n\r\n");
        let end = t.end();
        let lines: Vec<_> = (end - 8..end).filter_map(|n| t.line(n)).collect();
        assert!(lines.windows(2).any(|pair| pair == ["ab", "cd"]), "{lines:?}");
        // A repetition of a wide character printed before a look cleared the flag (line
        // feeds print nothing), short, or long enough to run in pieces.
        for count in [3, 20_000] {
            feed(&mut emu, &mut t, "中\r\n\r\n\r\n\r\n\r\n".as_bytes());
            assert!(!emu.wide_or_marked);
            feed(&mut emu, &mut t, format!("\x1b[{count}b\r\n\r\n\r\n\r\n").as_bytes());
            let end = t.end();
            assert!(t.line(end - 1).is_some_and(|line| line.starts_with("中中")), "{count}");
        }
    }

    /// Random mixes of plain text, wide characters, combining marks, tabs, line drawing,
    /// repetitions, scrolling regions, the alternate screen and resizes: every row the drain
    /// takes a byte a cell is checked against the general path (an assertion in
    /// `drain_history` in builds with debug assertions, as tests are).
    #[test]
    fn the_byte_a_cell_path_agrees_with_the_general_one() {
        // Bytes that are ASCII (line drawing prints them as other characters, tabs are
        // kept as tabs), and the rarer ones that can put wide or marked cells on the grid.
        const ASCII: [&str; 17] = [
            // Blanks with an extra part but no marks: an underline colour, a hyperlink.
            "\x1b[58;5;1m  \x1b[0m",
            "\x1b]8;;http://x\x1b\\  \x1b]8;;\x1b\\",
            "word ",
            "x",
            "\r\n",
            "\r\n",
            "\n",
            "\t",
            "\x1b(0lqk\x1b(B",
            "\x1b[2b",
            "\x1b[H",
            "\x1b[5;3H",
            "\x1b[2J",
            "\x1b[K",
            "\x1b[2@",
            "\x1b[3P",
            "0123456789abc",
        ];
        const OTHER: [&str; 3] = ["中", "e\u{301}", "ab中"];
        // Scrolling regions and the alternate screen, which stop or hold the drain.
        const MODES: [&str; 5] = ["\x1b[2;4r", "\x1b[1;3r", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l"];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        for _ in 0..150 {
            let mut emu = emulator(12, 5);
            let mut t = Transcript::new(100_000, 1 << 30, 1 << 20);
            for _ in 0..600 {
                match next(100) {
                    0 => emu.resize(8 + next(10) as u16, 3 + next(5) as u16, next(2) == 0, &mut t),
                    1..=3 => _ = feed(&mut emu, &mut t, OTHER[next(OTHER.len())].as_bytes()),
                    4..=6 => _ = feed(&mut emu, &mut t, MODES[next(MODES.len())].as_bytes()),
                    _ => _ = feed(&mut emu, &mut t, ASCII[next(ASCII.len())].as_bytes()),
                }
            }
        }
    }

    #[test]
    fn answers_queries() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        assert_eq!(feed(&mut emu, &mut t, b"ab\x1b[6n"), b"\x1b[1;3R");
        assert_eq!(feed(&mut emu, &mut t, b"\x1b[c"), b"\x1b[?6c");
        assert_eq!(feed(&mut emu, &mut t, b"\x1b]11;?\x07"), b"\x1b]11;rgb:0000/0000/0000\x07");
        assert_eq!(feed(&mut emu, &mut t, b"\x1b[18t"), b"\x1b[8;24;80t");
        emu.set_clipboard("hi".into());
        assert_eq!(feed(&mut emu, &mut t, b"\x1b]52;c;?\x07"), b"\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn replies_past_the_room_are_dropped_before_they_are_made() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        emu.set_clipboard("x".repeat(3000));
        let mut turn = Turn { budget: usize::MAX, reply_room: 1000, ..Turn::default() };
        emu.feed(b"\x1b]52;c;?\x07\x1b[6n\x1b]52;c;?\x07", &mut t, &mut turn);
        // The clipboard's answers (4,010 bytes each) do not fit; the cursor report does.
        assert_eq!(turn.replies, b"\x1b[1;1R");
        assert_eq!(turn.replies_dropped, 2);
        // An answer that fits is made whole.
        emu.set_clipboard("hi".into());
        emu.feed(b"\x1b]52;c;?\x07", &mut t, &mut turn);
        assert_eq!(turn.replies, b"\x1b[1;1R\x1b]52;c;aGk=\x07");
        assert_eq!(turn.clipboard_answered, 14);
    }

    /// A turn's clipboard answers are held to the room the reactor gives it (their rate): a
    /// flood of 9-byte queries for a megabyte is not answered in megabytes, while small
    /// answers all go.
    #[test]
    fn clipboard_answers_are_held_to_their_room() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        emu.set_clipboard("hi".into());
        let mut turn = Turn { budget: usize::MAX, clipboard_room: 20, ..Turn::default() };
        emu.feed(b"\x1b]52;c;?\x07\x1b]52;c;?\x07", &mut t, &mut turn);
        assert_eq!(turn.replies, b"\x1b]52;c;aGk=\x07", "14 bytes fit in 20, 28 do not");
        assert_eq!((turn.replies_dropped, turn.clipboard_answered), (1, 14));
        let mut held = Turn { budget: usize::MAX, clipboard_room: 0, ..Turn::default() };
        emu.feed(b"\x1b]52;c;?\x07\x1b[6n", &mut t, &mut held);
        assert_eq!(held.replies, b"\x1b[1;1R", "other answers still go");
        assert_eq!((held.replies_dropped, held.clipboard_answered), (1, 0));
        let mut open = Turn { budget: usize::MAX, ..Turn::default() };
        emu.feed(b"\x1b]52;c;?\x07\x1b]52;c;?\x07", &mut t, &mut open);
        assert_eq!(open.clipboard_answered, 28, "small answers all go");
        // The first answer of a turn with room goes whatever its size (the pause after it
        // grows with it): a large clipboard can always be read back.
        let mut small = Turn { budget: usize::MAX, clipboard_room: 5, ..Turn::default() };
        emu.feed(b"\x1b]52;c;?\x07\x1b]52;c;?\x07", &mut t, &mut small);
        assert_eq!((small.clipboard_answered, small.replies_dropped), (14, 1));
    }

    #[test]
    fn backward_tabs_are_clamped_to_the_cursor_column_and_counted() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[21G\x1b[2Z");
        assert_eq!(cursor(&emu), (0, 8));
        feed(&mut emu, &mut t, b"\x1b[41G\x1b[65535Z");
        assert_eq!(cursor(&emu), (0, 0));
        // No tab stop left: the cursor stays, whatever the count.
        feed(&mut emu, &mut t, b"\x1b[3g\x1b[41G\x1b[65535Z");
        assert_eq!(cursor(&emu), (0, 40));
        // Counted in work: a whole row per count up to the width, not 8 bytes.
        let mut turn = Turn { budget: 10_000, ..Turn::default() };
        emu.feed(&b"\x1b[80G\x1b[65535Z".repeat(10), &mut t, &mut turn);
        assert!(emu.has_pending(), "ten of them cost 10 × 80 × 80 cells");
    }

    /// A shell-integration mark (OSC 133, 9 bytes) finds its place in the transcript from the
    /// screen's text down to the cursor, so it counts a screen of work: a flood of them on a
    /// full 1000x500 screen built the screen's text for every 9 bytes, 1,800 times a turn
    /// (a neighbour's keystroke waited for minutes beside it).
    #[test]
    fn shell_integration_marks_count_a_screen_of_work() {
        let mut emu = emulator(1000, 500);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"$ ");
        let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
        emu.feed(&b"\x1b]133;A\x07".repeat(1000), &mut t, &mut turn);
        assert!(emu.has_pending(), "a thousand marks cost a thousand screens");
        assert_eq!(turn.marks.len(), 1);
        while emu.has_pending() {
            turn.budget = 16 << 10;
            emu.resume(&mut t, &mut turn);
        }
        assert_eq!(turn.marks.len(), 1000, "every mark is still taken");
        // A mark a session's key does not carry is not placed: it costs its bytes.
        let mut keyed = emulator(1000, 500);
        keyed.require_mark_key(MarkKey::from_digits(*b"0123456789abcdef"));
        let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
        keyed.feed(&b"\x1b]133;A\x07".repeat(1000), &mut t, &mut turn);
        assert!(!keyed.has_pending());
    }

    /// A line feed at the bottom of a scrolling region other than the whole screen (DECSTBM)
    /// moves every row (alacritty swaps the region's rows one by one, or the rows below it),
    /// so it counts the screen's height: at 1000x500, a flood of `y\n` in such a region made
    /// a neighbour's keystroke wait ten to fifteen times longer than beside a plain flood.
    #[test]
    fn line_feeds_in_a_scrolling_region_count_the_screens_height() {
        let mut emu = emulator(1000, 500);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let flood = b"y\r\n".repeat(400);
        for (setup, counted) in [
            ("\x1b[2;499r", true),
            ("\x1b[r", false),
            ("\x1b[1;499r", true),
            ("\x1b[2;499r\x1bc", false),
        ] {
            feed(&mut emu, &mut t, format!("{setup}\x1b[2J\x1b[2H").as_bytes());
            let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
            emu.feed(&flood, &mut t, &mut turn);
            assert_eq!(emu.has_pending(), counted, "{setup:?}");
            while emu.has_pending() {
                turn.budget = 16 << 10;
                emu.resume(&mut t, &mut turn);
            }
            assert_eq!(emu.screen().lines[400], "y", "{setup:?}");
        }
    }

    /// A line feed inside an escape or control sequence (vte carries it out, and the sequence
    /// goes on) counts a line, as one outside does: 5,000 of them between two drains scrolled
    /// past alacritty's history, and the lines before them were lost.
    #[test]
    fn line_feeds_inside_sequences_lose_no_line() {
        for inside in ["\x1b[", "\x1b", "\x1b[1;", "\x1b#", "\x1b[?"] {
            let mut emu = emulator(10, 5);
            let mut t = Transcript::new(100_000, 64 << 20, 1 << 20);
            let flood = format!("{inside}\n").repeat(5000);
            feed(&mut emu, &mut t, format!("A\r\n{flood}\x18B\r\n").as_bytes());
            let lines = settled(&t);
            assert_eq!(lines[0], "A", "{inside:?}");
            assert_eq!(lines.len(), 5002 - 4, "{inside:?}: every line kept but the screen's");
        }
    }

    #[test]
    fn text_in_insert_mode_is_counted_a_row_a_character() {
        let mut emu = emulator(1000, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
        // 100 characters shift 100 rows' worth of cells: more than one turn's work.
        emu.feed(&[&b"\x1b[4h"[..], &[b'x'; 100]].concat(), &mut t, &mut turn);
        assert!(emu.has_pending());
        while emu.has_pending() {
            turn.budget = 16 << 10;
            emu.resume(&mut t, &mut turn);
        }
        assert_eq!(emu.screen().lines[0], "x".repeat(100));
        // Inserted, not overwritten; and after RIS, text costs a byte again.
        feed(&mut emu, &mut t, b"\rab\x1bcxyz");
        let mut turn = Turn { budget: 100, ..Turn::default() };
        emu.feed(&[b'y'; 50], &mut t, &mut turn);
        assert!(!emu.has_pending());
    }

    #[test]
    fn style_runs() {
        let mut emu = emulator(20, 3);
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

    /// A logical line longer than a read (`max_read_bytes`) is split the same way on the screen
    /// as when it settles: read while on the screen, in any split of the reads, it is not
    /// returned again as rewritten once it scrolls off; the cursor's position is on the line
    /// where it settles.
    #[test]
    fn a_line_longer_than_a_read_keeps_its_split_from_the_screen_to_the_transcript() {
        let long: String = (0..100).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        for max in [16, 64, 99, 100] {
            for read_size in [7, 50, 1000] {
                let mut emu = emulator(10, 3);
                let mut t = Transcript::new(1000, 1 << 20, max);
                let mut text = String::new();
                let mut read = |emu: &Emulator, t: &mut Transcript| loop {
                    let out = t.read(emu.tail(t).as_deref(), read_size);
                    assert!(!out.rewritten, "{max}/{read_size}: {out:?}");
                    text.push_str(&out.text);
                    if !out.truncated {
                        break;
                    }
                };
                feed(&mut emu, &mut t, &long.as_bytes()[..95]);
                read(&emu, &mut t);
                feed(&mut emu, &mut t, &long.as_bytes()[95..]);
                let at = emu.cursor_position(&t);
                read(&emu, &mut t);
                feed(&mut emu, &mut t, b"\r\nx\r\ny\r\nz");
                read(&emu, &mut t);
                let pieces: Vec<&str> =
                    long.as_bytes().chunks(max).map(|c| std::str::from_utf8(c).unwrap()).collect();
                let expected = format!("{}\nx\ny\nz", pieces.join("\n"));
                assert_eq!(text, expected, "{max}/{read_size}");
                let last = pieces.len() - 1;
                assert_eq!(at, (last as u64, pieces[last].len()), "{max}/{read_size}");
                assert_eq!(t.line(last as u64), Some(pieces[last]));
            }
        }
    }

    /// An erase above the cursor (`CSI 1 J`, and the selective `CSI ? 1 J`) clears every row
    /// above the cursor's, the first one too when the cursor is on the second (alacritty kept
    /// it), so it never reaches the transcript.
    #[test]
    fn an_erase_above_the_cursor_clears_the_first_row_from_the_second() {
        for (erase, row) in [("\x1b[1J", 1), ("\x1b[?1J", 1), ("\x1b[1J", 2), ("\x1b[1J", 0)] {
            let mut emu = emulator(10, 4);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            let rows = ["aaaa", "bbbb", "cccc"];
            let before = rows[..=row].join("\r\n");
            // The cursor on the row's last character: all but it is erased.
            feed(&mut emu, &mut t, format!("{before}\x1b[2D{erase}").as_bytes());
            let left = format!("   {}", &rows[row][..1]);
            let mut expected = vec![""; row];
            expected.push(&left);
            let mut screen = expected.clone();
            screen.resize(4, "");
            assert_eq!(emu.screen().lines, screen, "{erase:?} on row {row}");
            feed(&mut emu, &mut t, b"\r\n\r\n\r\n\r\n\r\n");
            assert_eq!(settled(&t)[..=row], expected, "{erase:?} on row {row}");
        }
    }

    /// zsh's prompt after output that did not end its line (as zsh 5.9 writes it: the
    /// end-of-line mark, spaces up to one column short of a row, which wrap onto the next
    /// row, then `CR SP CR` and `ED 0` before the prompt): the output's line and the prompt
    /// are two lines, on the screen's rows and with the output's rows already settled alike.
    #[test]
    fn an_erase_down_from_a_rows_start_ends_the_soft_wrap_into_it() {
        let sp = |cols: usize| {
            format!(
                "\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m{}\r \r\r\x1b[0m\x1b[27m\x1b[24m\x1b[J$ \x1b[K",
                " ".repeat(cols - 1)
            )
        };
        for (rows, output) in
            [(5, "foo"), (5, "0123456789012345foo"), (2, "0123456789012345foo"), (1, "foo")]
        {
            let mut emu = emulator(10, rows);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            let first = t.read(emu.tail(&t).as_deref(), 1000);
            assert_eq!(first.text, "");
            feed(&mut emu, &mut t, format!("$ printf x\r\n{output}{}", sp(10)).as_bytes());
            feed(&mut emu, &mut t, b"echo bar\r\nbar\r\n$ ");
            let out = t.read(emu.tail(&t).as_deref(), 1000);
            let expected = format!("$ printf x\n{output}%\n$ echo bar\nbar\n$ ");
            assert_eq!(out.text, expected, "{output} on {rows} rows");
        }
        // An erase from a row's start keeps the wrap (a line editor's shortened line, typed
        // on); so does an erase down from elsewhere in the row.
        for (erase, line) in [
            ("\x1b[K", "$ echo 01289"),
            ("\x1b[2K", "$ echo 01289"),
            ("\x1b[C\x1b[J", "$ echo 012389"),
        ] {
            let mut emu = emulator(10, 5);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            feed(&mut emu, &mut t, format!("$ echo 01234567\r{erase}89").as_bytes());
            let out = t.read(emu.tail(&t).as_deref(), 1000);
            assert_eq!(out.text, line, "{erase:?}");
        }
    }

    /// The screen's logical lines cost what the screen holds: a line soft-wrapped over every
    /// row was checked as text again for each row added to it (500 rows of a character and
    /// four marks: 1.1 GB checked for a 4.5 MB screen; with sixteen, two seconds a read).
    #[test]
    fn the_tail_of_a_line_wrapped_over_the_whole_screen_costs_the_screen() {
        let mut emu = emulator(1000, 500);
        let mut t = Transcript::new(1000, 1 << 20, 64 << 20);
        let cell = "a\u{301}\u{301}\u{301}\u{301}";
        feed(&mut emu, &mut t, cell.repeat(1000 * 499 + 10).as_bytes());
        let time = |f: &dyn Fn() -> usize| {
            let started = std::time::Instant::now();
            let bytes = (0..3).map(|_| f()).sum::<usize>();
            (started.elapsed(), bytes)
        };
        let (screen, on_screen) = time(&|| emu.screen().lines.iter().map(String::len).sum());
        let (tail, in_tail) = time(&|| emu.tail(&t).unwrap().iter().map(String::len).sum());
        assert_eq!(in_tail, on_screen);
        // 15 times the screen's time before (debug build), about as much after.
        let bound = screen * 5 + std::time::Duration::from_millis(50);
        assert!(tail < bound, "the tail took {tail:?}, the screen {screen:?}");
    }

    #[test]
    fn tail_pads_prompt_to_cursor() {
        let mut emu = emulator(20, 5);
        let t = Transcript::new(1000, 1 << 20, 1 << 20);
        let mut t2 = t;
        feed(&mut emu, &mut t2, b"out\r\n$ ");
        assert_eq!(emu.tail(&t2).unwrap(), vec!["out", "$ "]);
    }

    /// The retained transcript: settled lines and the tail.
    fn retained(emu: &Emulator, t: &Transcript) -> String {
        t.retained(emu.tail(t).as_deref(), 1 << 20).0
    }

    /// Lines scrolled off the top of a scrolling region below the screen's top (a status line
    /// above a scrolling log) are settled in order, as lines scrolled off the screen are: by
    /// line feeds (LF, VT, FF, IND, NEL), automatic wraps on the region's last row, `CSI S`
    /// and `CSI M` on its first row; a line soft-wrapped over rows of the region is one line,
    /// on the screen too while part of it is scrolled off; in any split of the stream. They
    /// were lost (alacritty moves only rows scrolled off the screen's top into its history).
    #[test]
    fn lines_scrolled_off_a_region_below_the_top_are_settled() {
        let status = "\x1b[3;6r\x1b[1;1Hstatus\x1b[3;1H";
        let cases: [(String, &[&str], &str); 6] = [
            (
                format!("{status}l0\r\nl1\r\nl2\r\x0bl3\r\x0cl4\r\x1bDl5\x1bEl6\r\nl7"),
                &["l0", "l1", "l2", "l3"],
                "l4\nl5\nl6\nl7",
            ),
            (
                format!("{status}first\r\n0123456789abcdefghij0123\r\nshort\r\n\r\n\r\nend"),
                &["first", "0123456789abcdefghij0123"],
                "short\n\n\nend",
            ),
            (
                // The line's first row scrolled off; its second is the region's first row.
                format!("{status}a\r\nb\r\nc\r\nd\r\n0123456789abcdefghij0123\r\n\r\n\r\n"),
                &["a", "b", "c", "d"],
                "0123456789abcdefghij0123\n\n\n",
            ),
            (format!("{status}a\r\nb\r\nc\x1b[2S"), &["a", "b"], "c\n\n "),
            (
                format!("{status}a\r\nb\r\nc\x1b[3;1H\x1b[2M\x1b[5;1Hd\x1b[4;1H\x1b[M"),
                &["a", "b"],
                "c\nd",
            ),
            // A region from the top, and one on the alternate screen: as before.
            (
                "\x1b[1;4r\x1b[4;1Ha\r\nb\r\nc\r\nd\r\ne\x1b[?1049h\x1b[3;6r\x1b[6;1Hx\r\ny\r\nz\r\nw\r\n"
                    .to_owned(),
                &["", "", "", "a"],
                "",
            ),
        ];
        for (input, settled_lines, tail) in &cases {
            for chunk in [input.len(), 1, 3, 7] {
                let mut emu = emulator(20, 6);
                let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
                for piece in input.as_bytes().chunks(chunk) {
                    feed(&mut emu, &mut t, piece);
                }
                assert_eq!(settled(&t), *settled_lines, "{input:?} in pieces of {chunk}");
                let tail_text = emu.tail(&t).map(|lines| lines.join("\n")).unwrap_or_default();
                assert_eq!(tail_text, *tail, "{input:?} in pieces of {chunk}");
            }
        }
        // A logical line the region's scrolling cut reads whole from the screen, and settles
        // whole.
        let mut emu = emulator(10, 6);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[3;6r\x1b[1;1Htop\x1b[3;1Ha\r\nb\r\nc\r\nd\r\n0123456789");
        feed(&mut emu, &mut t, b"abcdefghij01\r\n");
        assert_eq!(settled(&t), ["a", "b", "c", "d"]);
        assert_eq!(emu.tail(&t).unwrap(), ["0123456789abcdefghij01", ""]);
        feed(&mut emu, &mut t, b"\r\n");
        assert_eq!(settled(&t), ["a", "b", "c", "d"]);
        assert_eq!(emu.tail(&t).unwrap(), ["0123456789abcdefghij01", "", ""]);
        feed(&mut emu, &mut t, b"\r\n\r\n");
        assert_eq!(settled(&t), ["a", "b", "c", "d", "0123456789abcdefghij01"]);
        // The status line above the region joins the transcript at the end.
        assert_eq!(retained(&emu, &t), "a\nb\nc\nd\n0123456789abcdefghij01\n\n\n\n");
        emu.end();
        assert_eq!(retained(&emu, &t), "a\nb\nc\nd\n0123456789abcdefghij01\ntop\n\n\n\n\n");
        // The region reset, the whole screen scrolls: a line whose first row scrolled off the
        // region settles whole after the status line above it, as the tail shows it (it was
        // cut in two around the status line). So it does when the screen scrolls a row at a
        // time, and when it is cleared (`ED 2` scrolls it into the history whole).
        for (end, chunk) in [("\r\n\r\n\r\n\r\n", 100), ("\r\n\r\n\r\n\r\n", 1), ("\x1b[2J", 100)] {
            let mut emu = emulator(10, 4);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            let start = b"\x1b[2;4r\x1b[1;1Htop\x1b[2;1Ha\r\nb\r\n0123456789abc\r\n\r\n";
            feed(&mut emu, &mut t, start);
            assert_eq!(settled(&t), ["a", "b"]);
            assert_eq!(emu.tail(&t).unwrap(), ["0123456789abc", "", ""]);
            feed(&mut emu, &mut t, b"\x1b[r\x1b[4;1H");
            let tail = emu.tail(&t).unwrap();
            assert_eq!(tail, ["top", "0123456789abc", "", ""]);
            let _ = t.read(Some(&tail), 1000);
            for piece in end.as_bytes().chunks(chunk) {
                feed(&mut emu, &mut t, piece);
            }
            let out = t.read(emu.tail(&t).as_deref(), 1000);
            assert!(!out.rewritten, "{end:?} by {chunk}: {:?}", out.text);
            assert_eq!(settled(&t)[..4], ["a", "b", "top", "0123456789abc"], "{end:?} by {chunk}");
        }
        // Another region set over the row a line goes on on (its top above that row): the
        // rows above that row settle as lines of their own first, as the tail shows them (they
        // were joined to the line, `0123456789two` then `abc`).
        let mut emu = emulator(10, 6);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let input = b"\x1b[3;6r\x1b[3;1Ha\r\nb\r\nc\r\n0123456789abc\r\n\r\n\r\n";
        feed(&mut emu, &mut t, input);
        feed(&mut emu, &mut t, b"\x1b[2;6r\x1b[2;1Htwo\x1b[6;1H\r\n\r\n");
        assert_eq!(settled(&t), ["a", "b", "c", "two", "0123456789abc"]);
        // The status line above it wrapped too, and only its first row scrolls off: that row
        // ends its line there (cut, not lost: its rest is on the screen, a line of its own in
        // the tail too), and the line held aside goes on with its row.
        let mut emu = emulator(10, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let input = b"\x1b[3;5r\x1b[1;1Hstatus line\x1b[3;1Ha\r\nb\r\n0123456789abc\r\n\r\n";
        feed(&mut emu, &mut t, input);
        feed(&mut emu, &mut t, b"\x1b[r\x1b[5;1H\r\n");
        assert_eq!(settled(&t), ["a", "b", "status lin"]);
        assert_eq!(emu.tail(&t).unwrap(), ["e", "0123456789abc", "", "", ""]);
        feed(&mut emu, &mut t, b"\r\n\r\n");
        assert_eq!(settled(&t), ["a", "b", "status lin", "e", "0123456789abc"]);
    }

    /// A resize to the size the terminal already has changes nothing in alacritty (it keeps
    /// its scrolling region): the lines scrolled off a region below the screen's top after
    /// it are settled as before it (the region was forgotten, and every such line was lost).
    #[test]
    fn a_resize_to_the_same_size_keeps_settling_a_region() {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[2;5r\x1b[1;1Hstatus\x1b[2;1Ha\r\nb\r\nc\r\nd\r\ne");
        emu.resize(20, 5, true, &mut t);
        emu.resize(20, 5, false, &mut t);
        feed(&mut emu, &mut t, b"\r\nf\r\ng\r\nh");
        assert_eq!(settled(&t), ["a", "b", "c", "d"]);
        assert_eq!(emu.tail(&t).unwrap(), ["e", "f", "g", "h"]);
        assert_eq!(rows(&emu), ["status", "e", "f", "g", "h"]);
    }

    /// Rows moved under the pending text of a line whose first row scrolled off a region (a
    /// reverse index or `CSI T` scrolling down, lines inserted above it, after the region was
    /// reset too): the text is no longer joined to whatever row comes to take its row's
    /// place (`0123456789` was settled joined to `mid`, and `abc` alone).
    #[test]
    fn rows_moved_under_a_line_cut_by_a_region_join_no_other_line() {
        let start =
            b"\x1b[3;6r\x1b[1;1Htop\x1b[2;1Hmid\x1b[3;1Ha\r\nb\r\nc\r\n0123456789abc\r\n\r\n\r\n";
        for moves in [
            "\x1b[r\x1b[1;1H\x1bM",
            "\x1b[3;1H\x1b[L",
            "\x1b[T",
            "\x1b[3;1H\x1bM",
            "\x1b[2;6r\x1b[2;1H\x1b[L",
        ] {
            let mut emu = emulator(10, 6);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            feed(&mut emu, &mut t, start);
            assert_eq!(emu.tail(&t).unwrap(), ["0123456789abc", "", "", ""]);
            feed(&mut emu, &mut t, moves.as_bytes());
            feed(&mut emu, &mut t, "\x1b[r\x1b[6;1H".as_bytes());
            feed(&mut emu, &mut t, "\r\n".repeat(6).as_bytes());
            let lines = settled(&t);
            for line in &lines {
                let joined = line.starts_with("0123456789") || line.ends_with("abc");
                assert!(
                    !joined || ["0123456789", "0123456789abc", "abc"].contains(line),
                    "{moves:?}: {lines:?}"
                );
            }
            assert!(lines.iter().any(|line| line.ends_with("abc")), "{moves:?}: {lines:?}");
        }
    }

    /// A reader who reads after each scroll of a region under a status line gets only what is
    /// new (the lines settled beneath the status line, the cursor's line), never a rewrite: the
    /// tail began with the status line and was numbered anew each time a row settled beneath
    /// it, so every read after a scroll returned the whole screen again with `rewritten`. The
    /// status line (redrawn meanwhile: nothing new to read) joins the tail once the session
    /// ended (that read returns the screen from its top, once); the cursor's place is on its
    /// line throughout, and the transcript as a whole has each line once, in order. The
    /// primary screen an alternate one hides is kept the same way.
    #[test]
    fn reads_under_a_status_line_return_only_what_is_new() {
        fn read(emu: &Emulator, t: &mut Transcript) -> (String, bool) {
            let out = t.read(emu.tail(t).as_deref(), 1000);
            (out.text, out.rewritten)
        }
        let mut emu = emulator(10, 6);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[3;6r\x1b[1;1Htop\x1b[3;1Ha\r\nb\r\nc\r\nd\r\n");
        assert_eq!(read(&emu, &mut t), ("a\nb\nc\nd\n".to_owned(), false));
        let steps: [(&str, &str); 7] = [
            ("x\r\n", "x\n"),
            ("y\r\nz", "y\nz"),
            ("\r\n", "\n"),
            // The status line redrawn, the cursor back in the region.
            ("\x1b7\x1b[1;1Htop 2\x1b8", ""),
            // A line wrapped over the region's rows, its first row scrolled off.
            ("0123456789abc\r\n", "0123456789abc\n"),
            ("\r\n", "\n"),
            ("\r\n", "\n"),
        ];
        for (input, new) in steps {
            feed(&mut emu, &mut t, input.as_bytes());
            assert_eq!(read(&emu, &mut t), (new.to_owned(), false), "after {input:?}");
            let tail = emu.tail(&t).unwrap();
            let cursor = (t.end() + tail.len() as u64 - 1, tail.last().unwrap().len());
            assert_eq!(emu.cursor_position(&t), cursor, "after {input:?}");
        }
        assert_eq!(settled(&t), ["a", "b", "c", "d", "x", "y", "z"]);
        assert_eq!(emu.tail(&t).unwrap(), ["0123456789abc", "", "", ""]);
        let mut hidden = emulator(10, 6);
        let mut t2 = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut hidden, &mut t2, b"\x1b[3;6r\x1b[1;1Htop\x1b[3;1Ha\r\nb\x1b[?1049hfull");
        assert_eq!(hidden.hidden_tail().unwrap(), ["a", "b"]);
        emu.end();
        hidden.end();
        assert_eq!(hidden.hidden_tail().unwrap(), ["top", "", "a", "b"]);
        // The session ended: the status line joins, once.
        let all = "top 2\n\n0123456789abc\n\n\n";
        assert_eq!(read(&emu, &mut t), (all.to_owned(), true));
        assert_eq!(read(&emu, &mut t), (String::new(), false));
        assert_eq!(retained(&emu, &t), format!("a\nb\nc\nd\nx\ny\nz\n{all}"));
    }

    /// Watching a region's scrolling changes nothing on the screen: random mixes of text,
    /// wraps, wide characters, marks and tabs with every sequence that moves rows or the
    /// cursor, inside regions below the top, leave the same screen and cursor as the parser
    /// given the `Term` itself.
    #[test]
    fn watching_a_region_leaves_the_screen_as_it_was() {
        let pieces = [
            "word ",
            "0123456789abcdefghijklmnopq",
            "\r\n",
            "\n",
            "\x0b",
            "\r",
            "\t",
            "中文",
            "e\u{301}",
            "\x1b[3;7r",
            "\x1b[2;5r",
            "\x1b[r",
            "\x1b[2S",
            "\x1b[S",
            "\x1b[2M",
            "\x1b[M",
            "\x1b[L",
            "\x1b[T",
            "\x1bD",
            "\x1bE",
            "\x1bM",
            "\x1b[7;1H",
            "\x1b[3;10H",
            "\x1b[5;30H",
            "\x1b[?7l",
            "\x1b[?7h",
            "\x1b[4h",
            "\x1b[4l",
            "\x1b[K",
            "\x1b[J",
            "\x1b[2J",
            "\x1b7",
            "\x1b8",
            "\x1b[?6h",
            "\x1b[?6l",
            "\x1b[9b",
            "\x1b[3g",
            "\x1b[31;1m",
            "\x1b[0m",
            "\x1b[3A",
            "\x1b[4B",
            "\x1b[20C",
            "\x1b[?1049h",
            "\x1b[?1049l",
            "\x1b[20;1H",
        ];
        let mut seed = 0x9e37_79b9_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for _ in 0..200 {
            let input: String = (0..80).map(|_| pieces[next() as usize % pieces.len()]).collect();
            let (mut watched, mut plain) = (emulator(30, 8), emulator(30, 8));
            plain.watch_regions = false;
            let mut t1 = Transcript::new(100_000, 1 << 30, 1 << 20);
            let mut t2 = Transcript::new(100_000, 1 << 30, 1 << 20);
            feed(&mut watched, &mut t1, input.as_bytes());
            feed(&mut plain, &mut t2, input.as_bytes());
            let (a, b) = (watched.screen(), plain.screen());
            assert_eq!(
                (a.lines, a.cursor, a.alternate),
                (b.lines, b.cursor, b.alternate),
                "{input:?}"
            );
            assert!(t1.end() >= t2.end(), "{input:?}");
        }
    }

    /// bash's readline redraws a soft-wrapped command line after a resize from as many rows
    /// above the cursor as the line took before, erasing each on its way up (as bash 5 writes
    /// it). Widening rejoined the line's rows, and the redraw erased the output line above it
    /// (`two`), unread; narrowing split them, and the redraw left the line's first row
    /// soft-wrapped into it, read as one line with it. Now the line, when a line editor has
    /// the terminal, is moved down into the rows the rejoining freed, so the redraw starts on
    /// blank rows, and a narrowing's leftover row is a line of its own, as the screen shows
    /// it; with a full screen too, and in canonical mode (where nothing redraws) the screen
    /// is reflowed as before.
    #[test]
    fn a_line_editor_redrawing_after_a_resize_erases_no_line_above() {
        let line = "$ echo abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
        let before = format!("$ echo one; echo two\r\none\r\ntwo\r\n{line}");
        let up = |rows: usize| "\r\x1b[K".to_owned() + &"\r\x1b[A\x1b[K".repeat(rows) + "\r" + line;
        for (height, from, to, redraw) in
            [(8, 20, 40, up(2)), (8, 20, 60, up(2)), (5, 20, 40, up(2)), (8, 40, 20, up(1))]
        {
            let mut emu = emulator(from, height);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            feed(&mut emu, &mut t, before.as_bytes());
            emu.resize(to, height, true, &mut t);
            feed(&mut emu, &mut t, redraw.as_bytes());
            let expected = if to > from {
                format!("$ echo one; echo two\none\ntwo\n{line}")
            } else {
                format!("$ echo one; echo two\none\ntwo\n{}\n{line}", &line[..20])
            };
            let what = format!("{from} to {to} columns, {height} rows");
            assert_eq!(retained(&emu, &t), expected, "{what}");
            let screen = rows(&emu);
            assert!(screen.iter().any(|row| row == "two"), "{what}: {screen:?}");
        }
        // In canonical mode, and on the alternate screen, the line's rows are reflowed alone.
        let mut emu = emulator(20, 8);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, before.as_bytes());
        emu.resize(40, 8, false, &mut t);
        assert_eq!(rows(&emu)[3..5], [&line[..40], &line[40..]]);
        assert_eq!(cursor(&emu), (4, 13));
        let mut emu = emulator(20, 8);
        feed(&mut emu, &mut t, format!("\x1b[?1049h{before}").as_bytes());
        emu.resize(40, 8, true, &mut t);
        assert_eq!(cursor(&emu), (5, 13));
    }

    /// Rows below the cursor (a program moved it up, then ended) are read once the session
    /// ended, down to the last row with text: the final transcript lost them. Before the
    /// end the tail stops at the cursor's line, and the cursor's place in the transcript
    /// stays on its line either way; the same holds for the primary screen an alternate one
    /// hides.
    #[test]
    fn rows_below_the_cursor_are_read_once_the_session_ended() {
        let mut emu = emulator(20, 6);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"a\r\nb\r\nwrapped past the twentieth column\r\nd\x1b[4A\rX\r\n");
        assert_eq!(emu.tail(&t).unwrap(), ["X", "b"]);
        let cursor = emu.cursor_position(&t);
        let first = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(first.text, "X\nb");
        emu.end();
        assert_eq!(emu.tail(&t).unwrap(), ["X", "b", "wrapped past the twentieth column", "d"]);
        assert_eq!(emu.cursor_position(&t), cursor);
        let rest = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(rest.text, "\nwrapped past the twentieth column\nd");
        assert!(!rest.rewritten);
        let (text, _) = t.retained(emu.tail(&t).as_deref(), 1000);
        assert_eq!(text, "X\nb\nwrapped past the twentieth column\nd");
        // The cursor below the last row with text: blank rows down to it, as before.
        let mut emu = emulator(20, 6);
        feed(&mut emu, &mut t, b"a\x1b[3B");
        emu.end();
        assert_eq!(emu.tail(&t).unwrap(), ["a", "", "", " "]);
        // Under the alternate screen.
        let mut emu = emulator(20, 6);
        feed(&mut emu, &mut t, b"a\r\nb\r\nc\x1b[2A\x1b[?1049hfull");
        assert_eq!(emu.hidden_tail().unwrap(), ["a"]);
        emu.end();
        assert_eq!(emu.hidden_tail().unwrap(), ["a", "b", "c"]);
    }

    /// While the alternate screen is up (modes 47, 1047 and 1049), the primary screen's
    /// lines down to its cursor are kept as they were, through a resize; gone once it is left.
    #[test]
    fn the_primary_screen_hidden_by_the_alternate_one_is_kept() {
        for mode in ["47", "1047", "1049"] {
            let mut emu = emulator(20, 5);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            assert_eq!(emu.hidden_tail(), None);
            let input = format!("out\r\nlonger than twenty columns\r\n$ vim\r\n\x1b[?{mode}hfull");
            feed(&mut emu, &mut t, input.as_bytes());
            let hidden = ["out", "longer than twenty columns", "$ vim", ""];
            assert_eq!(emu.tail(&t), None);
            assert_eq!(emu.hidden_tail().unwrap_or_default(), hidden, "{mode}");
            feed(&mut emu, &mut t, b"\x1b[?1049hmore\r\n");
            emu.resize(8, 5, false, &mut t);
            assert_eq!(emu.hidden_tail().unwrap_or_default(), hidden, "{mode}");
            feed(&mut emu, &mut t, format!("\x1b[?{mode}l").as_bytes());
            assert_eq!(emu.hidden_tail(), None, "{mode}");
        }
    }

    fn rows(emu: &Emulator) -> Vec<String> {
        emu.screen().lines
    }

    fn cursor(emu: &Emulator) -> (u16, u16) {
        let c = emu.screen().cursor;
        (c.row, c.col)
    }

    #[test]
    fn keyboard_mode_pushes_past_the_bound_are_dropped_not_a_panic() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, "\x1b[>1u".repeat(4097).as_bytes());
        assert_eq!(emu.dropped_sequences(), 4097 - crate::term::rewrite::KEYBOARD_STACK as u64);
        assert_eq!(emu.modes().kitty_keyboard, 1);
        // Pops still unwind the stack that was kept.
        feed(&mut emu, &mut t, "\x1b[<1000u".as_bytes());
        assert_eq!(emu.modes().kitty_keyboard, 0);
    }

    #[test]
    fn osc_strings_past_their_bound_are_dropped() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let title = "t".repeat(4000);
        feed(&mut emu, &mut t, format!("\x1b]2;{title}\x07").as_bytes());
        assert_eq!(emu.screen().title, title);
        feed(&mut emu, &mut t, format!("\x1b]2;{}\x1b\\after", "x".repeat(5000)).as_bytes());
        assert_eq!((emu.screen().title.len(), emu.dropped_sequences()), (4000, 1));
        assert_eq!(rows(&emu)[0], "after");
        // An unterminated OSC is never held past its bound, in any split.
        let mut emu = emulator(80, 24);
        feed(&mut emu, &mut t, b"\x1b]52;c;");
        for _ in 0..300 {
            feed(&mut emu, &mut t, &[b'A'; 10_000]);
            assert!(emu.held.capacity() <= 2 << 20, "{}", emu.held.capacity());
        }
        feed(&mut emu, &mut t, b"\x07ok");
        assert_eq!((rows(&emu)[0].as_str(), emu.dropped_sequences()), ("ok", 1));
        assert_eq!(emu.clipboard(), "");
    }

    #[test]
    fn hyperlinks_past_their_bound_are_dropped() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let link = |uri: &str| format!("\x1b]8;;{uri}\x1b\\x\x1b]8;;\x1b\\");
        feed(&mut emu, &mut t, link(&"u".repeat(2000)).as_bytes());
        assert!(emu.term.grid()[Line(0)][Column(0)].hyperlink().is_some());
        assert_eq!(emu.dropped_sequences(), 0);
        feed(&mut emu, &mut t, link(&"u".repeat(3000)).as_bytes());
        assert!(emu.term.grid()[Line(0)][Column(1)].hyperlink().is_none());
        assert_eq!((rows(&emu)[0].as_str(), emu.dropped_sequences()), ("xx", 1));
    }

    #[test]
    fn title_stack_is_bounded() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, "\x1b]2;a\x07\x1b[22t".repeat(100).as_bytes());
        assert_eq!(emu.dropped_sequences(), 100 - 16);
        feed(&mut emu, &mut t, b"\x1b]2;b\x07\x1b[23t");
        assert_eq!(emu.screen().title, "a");
    }

    #[test]
    fn titles_hold_no_control_characters() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        // A C1 CSI (as UTF-8) inside the title: shown as a replacement character.
        feed(&mut emu, &mut t, "\x1b]2;T\u{9b}31mX\x07".as_bytes());
        assert_eq!(emu.screen().title, "T\u{fffd}31mX");
    }

    #[test]
    fn combining_marks_per_cell_are_bounded() {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"a");
        for _ in 0..20 {
            feed(&mut emu, &mut t, "\u{301}".repeat(5000).as_bytes());
            // The marks since the last trim: at most TRIM_EVERY bytes and one slice (bounded
            // by the line budget).
            let marks = emu.term.grid()[Line(0)][Column(0)].zerowidth().map_or(0, <[char]>::len);
            assert!(marks <= 16 + TRIM_EVERY / 2 + GRID_HISTORY, "{marks} marks kept");
        }
        // A repetition of a mark is all ASCII, and adds one mark per repeat.
        for _ in 0..20 {
            feed(&mut emu, &mut t, b"\x1b[H\xcc\x81\x1b[60000b");
            let marks = emu.term.grid()[Line(0)][Column(0)].zerowidth().map_or(0, <[char]>::len);
            assert!(marks <= 16 + TRIM_EVERY + GRID_HISTORY, "{marks} marks kept after repeats");
        }
    }

    #[test]
    fn long_repetitions_lose_no_line_and_split_across_turns() {
        let mut emu = emulator(80, 24);
        let mut t = Transcript::new(1_000_000, 1 << 30, 1 << 20);
        let text: String = (0..20).map(|i| format!("ID{i:04}\x1b[65535b\r\n")).collect();
        let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
        emu.feed(text.as_bytes(), &mut t, &mut turn);
        assert!(emu.has_pending(), "one turn does not run 20 × 65535 cells");
        let mut turns = 1;
        while emu.has_pending() {
            turn.budget = 16 << 10;
            emu.resume(&mut t, &mut turn);
            turns += 1;
        }
        assert!(turns >= 20 * 65535 / (16 << 10), "{turns} turns");
        let mut lines: Vec<String> =
            (t.first()..t.end()).map(|n| t.line(n).unwrap().into()).collect();
        lines.extend(emu.tail(&t).unwrap());
        let starts: Vec<&String> = lines.iter().filter(|l| l.starts_with("ID")).collect();
        assert_eq!(starts.len(), 20);
        for (i, line) in starts.iter().enumerate() {
            let digit = char::from(b'0' + (i % 10) as u8);
            assert_eq!(line.len(), 6 + 65535, "line {i}");
            assert!(line[6..].chars().all(|c| c == digit), "line {i}");
        }
    }

    #[test]
    fn dch_larger_than_the_rest_of_the_row_keeps_the_left_part() {
        let mut emu = emulator(10, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"abcdefghij\x1b[1;4H\x1b[100P");
        assert_eq!(rows(&emu)[0], "abc");
    }

    #[test]
    fn erasing_half_a_wide_character_erases_it_all() {
        let mut emu = emulator(10, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, "\x1bcデ\x08\x1b[K".as_bytes());
        assert_eq!(rows(&emu)[0], "");
        feed(&mut emu, &mut t, "\x1bcaデb\x1b[1;3H\x1b[@".as_bytes());
        assert_eq!(rows(&emu)[0], "a   b");
        feed(&mut emu, &mut t, "\x1bcデx\x1b[1;1H\x1b[X".as_bytes());
        assert_eq!(rows(&emu)[0], "  x");
    }

    #[test]
    fn selective_erase_is_a_plain_erase() {
        let mut emu = emulator(10, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"abc\r\ndef\x1b[1;2H\x1b[?K");
        assert_eq!(rows(&emu)[..2], ["a", "def"]);
        feed(&mut emu, &mut t, b"\x1b[?J");
        assert_eq!(rows(&emu)[..2], ["a", ""]);
    }

    #[test]
    fn modes_47_and_1047_use_the_alternate_screen() {
        for mode in ["47", "1047"] {
            let mut emu = emulator(10, 3);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            feed(&mut emu, &mut t, format!("a\x1b[?{mode}hb").as_bytes());
            assert!(emu.alternate(), "mode {mode}");
            assert_eq!(rows(&emu)[0], " b");
            feed(&mut emu, &mut t, format!("\x1b[?{mode}l").as_bytes());
            assert!(!emu.alternate());
            assert_eq!(rows(&emu)[0], "a");
        }
    }

    #[test]
    fn cursor_up_and_down_stop_at_the_scroll_region() {
        let mut emu = emulator(10, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[10;20r\x1b[15;1H\x1b[20A");
        assert_eq!(cursor(&emu), (9, 0));
        feed(&mut emu, &mut t, b"\x1b[15;3H\x1b[20B");
        assert_eq!(cursor(&emu), (19, 2));
        // Outside the region, the screen's edges.
        feed(&mut emu, &mut t, b"\x1b[5;1H\x1b[20A");
        assert_eq!(cursor(&emu), (0, 0));
        feed(&mut emu, &mut t, b"\x1b[22;1H\x1b[20B");
        assert_eq!(cursor(&emu), (23, 0));
        // In origin mode too.
        feed(&mut emu, &mut t, b"\x1b[?6h\x1b[3;1H\x1b[2A");
        assert_eq!(cursor(&emu), (9, 0));
    }

    #[test]
    fn column_mode_resets_the_scroll_region_the_rules_track() {
        let mut emu = emulator(10, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[10;20r\x1b[?3h\x1b[15;1H\x1b[20A");
        assert_eq!(cursor(&emu), (0, 0));
    }

    #[test]
    fn origin_mode_reset_homes_and_decrc_restores_it() {
        let mut emu = emulator(10, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[5;10r\x1b[?6h\x1b[3;3H\x1b[?6l");
        assert_eq!(cursor(&emu), (0, 0));
        feed(&mut emu, &mut t, b"\x1b[?6h\x1b[2;2H\x1b7\x1b[?6l\x1b[20;5H\x1b8");
        assert!(emu.mode().contains(TermMode::ORIGIN));
        assert_eq!(cursor(&emu), (5, 1));
        feed(&mut emu, &mut t, b"\x1b[1;1H");
        assert_eq!(cursor(&emu), (4, 0));
    }

    #[test]
    fn synchronized_updates_are_applied_at_once_and_tracked() {
        let mut emu = emulator(10, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[?2026hframe");
        assert!(emu.sync_deadline().is_some());
        assert_eq!(rows(&emu)[0], "frame");
        feed(&mut emu, &mut t, b"\x1b[?2026l");
        assert!(emu.sync_deadline().is_none());
    }
}
