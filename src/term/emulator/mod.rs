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
use crate::term::queries;
use crate::term::region::RegionWatch;
use crate::term::rewrite::{CAN, Decision, Rules, StackBounds, View, repeat_piece};
use crate::term::row_text::{
    ascii_line_text, has_text, holds_wide_or_marked, is_wrapped, line_bytes, line_text, row_text,
    text_before, text_ends_before, text_from_cell, text_of_first_cells,
};
use crate::term::scan::{MarkKey, PromptMark, Scanner, Sequence, Stop};
use crate::term::screen::{Cursor, Modes, MouseReporting, Screen};
use crate::term::transcript::Transcript;

/// Lines alacritty's grid may hold in its own history between two drains.
/// fish's end-of-line marks: `⏎`, `¶` (on WSL) and `~` (where the locale cannot show them:
/// `LANG=C`).
const FISH_MARKS: [char; 3] = ['\u{23ce}', '\u{b6}', '~'];

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

/// The fewest bytes an OSC 52 copy's OSC string holds besides its base64 text, as the
/// bound counts it: `]52;;` (no selection named: the clipboard) and its BEL terminator.
const OSC52_FRAMING: usize = 6;

/// The most bytes an OSC 52 answer holds besides its base64 text: `ESC ] 52 ; c ;` (7) and
/// the query's terminator, ST (`ESC \`, 2) or BEL (1).
const OSC52_ANSWER_FRAMING: usize = 9;

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
    /// The session's input queue (`write_queue_bytes`), where replies wait to be written.
    replies: usize,
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
            replies: config.write_queue_bytes,
            title: config.max_title_bytes,
            hyperlink: config.max_hyperlink_bytes,
            title_stack: config.max_title_stack,
            marks: config.max_combining_marks,
            #[cfg(feature = "fault-injection")]
            panic_on: config.inject_panic_on_output.clone(),
        }
    }

    /// The most text the caller's
    /// [`Session::set_clipboard`](crate::Session::set_clipboard) may set, in bytes: as much as
    /// a program's OSC 52 copy can carry within `max_osc_bytes` (its text in base64, 4 bytes
    /// for every 3, after the shortest framing, `]52;;` and a BEL: 6 bytes), and no more than
    /// an answer to a query fits in the session's input queue (`write_queue_bytes`) when it is
    /// empty (the base64 within `ESC ] 52 ; c ;` and an ST: 9 bytes). 786,423 bytes by default
    /// (the queue's bound; `max_osc_bytes` alone takes 786,426).
    pub(crate) fn clipboard_bytes(&self) -> usize {
        let copied = self.osc.saturating_sub(OSC52_FRAMING) / 4 * 3;
        let answered = self.replies.saturating_sub(OSC52_ANSWER_FRAMING) / 4 * 3;
        copied.min(answered)
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
    /// The character the parser's bytes ended with, cut by a read (see [`CutCharacter`]).
    cut_character: CutCharacter,
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
    /// Whether the program draws whole frames on the primary screen (`Screen::frames`).
    frames: Frames,
    /// Erases of the whole screen (`CSI 2 J`) fed so far, on either screen: each starts a
    /// frame of a full screen, as a move to the top-left does.
    screen_clears: u64,
    /// OSC strings and sequences dropped because a bound was reached.
    dropped_osc: u64,
    /// While the alternate screen hides the primary one: the primary screen's lines from its
    /// top down to its last row with text (or its cursor, if lower) as they were when it was
    /// hidden (nothing but a resize, which keeps logical lines, touches the primary screen
    /// meanwhile), for the retained transcript once the session ended, and its tail then
    /// (down to the cursor's line, without the rows above a scrolling region's top: see
    /// [`Emulator::tail_top`]), all that is shown until the session ends.
    hidden_tail: Option<HiddenTail>,
    /// The hidden tail the primary screen had when it came back from the alternate one, kept
    /// while nothing is drawn on it: taken again by the next hiding instead of rendering the
    /// screen again (see [`hidden`]); not one captured before a resize (see
    /// [`HiddenTail::reusable`]).
    unchanged_hidden: Option<HiddenTail>,
    /// Where the cursor was on the primary screen right after it came back from the alternate
    /// one, until the alternate screen is left again or taken back (see
    /// [`Emulator::back_to_where_the_alternate_screen_left`]).
    left_alternate_at: Option<(usize, usize)>,
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
            cut_character: CutCharacter::default(),
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
            screen_clears: 0,
            wide_or_marked: false,
            drained_since_look: 0,
            frames: Frames::default(),
            dropped_osc: 0,
            hidden_tail: None,
            unchanged_hidden: None,
            left_alternate_at: None,
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

    /// Whether the program draws whole frames on the primary screen (`Screen::frames`).
    pub(crate) fn draws_frames(&self) -> bool {
        self.frames.drawing()
    }

    /// Whether frames are drawn on the primary screen by no group told yet (see
    /// `Frames::drawn_by`).
    pub(crate) fn frames_want_their_group(&self) -> bool {
        self.frames.wants_group()
    }

    /// The terminal's foreground process group is `group` after output was fed (see
    /// `Frames::drawn_by`).
    pub(crate) fn frames_drawn_by(&mut self, group: i32) {
        self.frames.drawn_by(group);
    }

    /// The probe found process group `group` waiting for input, `shell_back` a job control
    /// shell at its prompt (see `Frames::group_reads`).
    pub(crate) fn group_reads(&mut self, group: i32, shell_back: bool) {
        self.frames.group_reads(group, shell_back, self.scanner.homes());
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
            // So does where `CSI H` goes: the region's top in origin mode (its top as the
            // rules keep it, alacritty's being private).
            let origin = self.term.mode().contains(TermMode::ORIGIN);
            let below_top = self.rules.region().is_some_and(|(top, _)| top > 0);
            self.scanner.set_origin_below_top(origin && below_top);
            let (n, stop) = self.scanner.scan(&bytes[at..], line_budget, turn.budget);
            turn.budget = turn.budget.saturating_sub(self.scanner.take_work());
            let slice = &bytes[at..at + n];
            at += n;
            // Anything drawn on the primary screen but the alternate screen's sequence alone
            // changes what hiding it again would capture.
            let entry_alone = matches!(stop, Stop::Sequence(s) if enters_alternate(s))
                && hidden::csi_alone(&slice[..n - 1]);
            if !self.alternate() && !entry_alone {
                self.unchanged_hidden = None;
            }
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
                        if matches!(mark, PromptMark::PromptStart | PromptMark::CommandEnd(_)) {
                            self.frames.ended(self.scanner.homes());
                        }
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
                Stop::DcsEnd => {
                    self.advance(slice, transcript);
                    let (payload, overflow) = self.scanner.dcs();
                    let region = self.rules.region();
                    if let Some(reply) = queries::dcs_reply(payload, overflow, &self.term, region) {
                        self.reply(reply);
                    }
                }
                Stop::Sequence(sequence) => {
                    self.advance(&slice[..n - 1], transcript);
                    self.settle(transcript);
                    // (Taken before a reset's settling, which leaves the alternate screen.)
                    let was_alternate = self.alternate();
                    if sequence == Sequence::Esc(b'c') && self.osc == OscState::Idle {
                        self.settle_screen_before_reset(transcript);
                    }
                    let hiding = !was_alternate && enters_alternate(sequence);
                    let tail = hiding.then(|| self.capture_hidden_tail(transcript));
                    self.apply(sequence, slice[n - 1], transcript);
                    if let Sequence::Csi { private, params, action } = sequence
                        && let Some(reply) = queries::csi_reply(private, &params, action)
                    {
                        self.reply(reply);
                    }
                    if was_alternate && !self.alternate() {
                        let point = self.term.grid().cursor.point;
                        self.left_alternate_at = Some((self.cursor_row(), point.column.0));
                    } else if !was_alternate && resets_1049(sequence) {
                        self.back_to_where_the_alternate_screen_left();
                    } else if self.alternate() {
                        self.left_alternate_at = None;
                    }
                    if !self.alternate() {
                        let back = was_alternate
                            && matches!(sequence, Sequence::Csi { private: Some(b'?'), action: b'l', params }
                                if hidden::alternate_mode_alone(params.values()));
                        self.unchanged_hidden =
                            self.hidden_tail.take().filter(|tail| back && tail.reusable);
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

    /// The primary screen's lines as the alternate screen is about to hide it: those it had
    /// when it came back last, when nothing was drawn on it since, or rendered twice (down to
    /// the cursor from the tail's top, and down to its last row with text), counted as work
    /// as the drain counts the rows it renders.
    fn capture_hidden_tail(&mut self, transcript: &Transcript) -> HiddenTail {
        let top = self.tail_top();
        let cursor = (self.cursor_row(), self.term.grid().cursor.point.column.0);
        let unchanged = |kept: &HiddenTail| (kept.top, kept.cursor) == (top, cursor);
        if let Some(kept) = self.unchanged_hidden.take().filter(unchanged) {
            return kept;
        }
        let to_cursor = self.lines_down_to(transcript, top, self.cursor_row());
        let lines = self.lines_down_to(transcript, 0, self.last_row_read());
        let cells = usize::from(self.cols) * usize::from(self.rows);
        self.scanner.add(0, 2 * (cells + transcript.pending_len()));
        HiddenTail { lines, to_cursor, top, cursor, reusable: true }
    }

    /// Mode 1049 was reset on the primary screen after it came back from the alternate one,
    /// the cursor moved down since over nothing but blanks: it goes back to where it came
    /// back, as xterm and tmux, which restore the cursor saved on the way in at every reset
    /// of 1049, put it. ncurses' `endwin` run twice (`aspell check` leaving) moves the cursor
    /// to the last row and resets 1049 again once the primary screen is back; the shell's
    /// prompt came on the last row, and the blank rows above it were read as blank lines.
    /// (A program that drew on the primary screen since, as dialog does before its own last
    /// reset, keeps the cursor where it is: a restore would put the shell over its box.)
    fn back_to_where_the_alternate_screen_left(&mut self) {
        let Some((row, col)) = self.left_alternate_at.take() else {
            return;
        };
        let grid = self.term.grid();
        let cursor_row = self.cursor_row();
        if cursor_row <= row || row >= grid.screen_lines() {
            return;
        }
        let mut rest = String::new();
        text_from_cell(&grid[Line(row as i32)], col, &mut rest);
        if !rest.is_empty() || (row + 1..=cursor_row).any(|r| has_text(&grid[Line(r as i32)])) {
            return;
        }
        let to = format!("\x1b[{};{}H", row + 1, col + 1);
        self.parser.advance(&mut self.term, to.as_bytes());
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
        self.frames.ended(self.scanner.homes());
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

    /// Gives bytes to the parser, the rest of a character the bytes before left unfinished
    /// on its own first ([`CutCharacter`]).
    fn parse(&mut self, bytes: &[u8], transcript: &mut Transcript) {
        let (completion, rest) = self.cut_character.split(bytes);
        for part in [completion, rest] {
            if !part.is_empty() {
                self.parse_whole(part, transcript);
            }
        }
    }

    /// Gives bytes to the parser: through [`RegionWatch`] while a scrolling region below the
    /// primary screen's top is set, so that the rows scrolled off its top are settled, and
    /// straight to the `Term` otherwise.
    fn parse_whole(&mut self, bytes: &[u8], transcript: &mut Transcript) {
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
        self.saves_or_restores(sequence);
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
        let erases_line = matches!(
            sequence,
            Sequence::Csi { private: None | Some(b'?'), action: b'K', params }
                if params.values().first().is_none_or(|&mode| mode == 0 || mode == 2)
        );
        if erases_below
            && view.row == 0
            && view.col == 0
            && !view.alternate
            && self.scanner.follows_home()
            && (self.mode().contains(TermMode::SHOW_CURSOR)
                || !self
                    .frames
                    .clear_erases_only(self.scanner.homes(), self.scanner.undone_homes()))
        {
            // An erase down right after a move to the top left corner (`CSI H CSI J`, what
            // `clear` sends where the terminal's description has no `ED 2`, the cursor shown
            // or hidden) erases the whole screen, as `ED 2` does: the screen is settled into
            // the transcript the same way (alacritty's `ED 2` scrolls it into the history,
            // leaving the same blank screen and cursor), where the erase alone lost every line
            // it had that never scrolled off. The corner reached by relative moves (a line
            // editor redrawing its prompt from the first row: prompt_toolkit moves back to
            // where its prompt starts, `CSI n D` or `CR`, and erases down before each redraw)
            // erases only: what it erases is its prompt, drawn again next, and the rows below
            // it (a completion menu, a toolbar on the last row, the blank rows between), which
            // settling would put in the transcript. So does a monitor's clear, the cursor
            // hidden, once frames were drawn from the top-left between two of its clears
            // (`top`'s, see `frames.rs`; any other clear settles the frame it erases, which a
            // person read): each would be settled whole. With the cursor shown, the clear
            // settles whatever frames were drawn before (`tput civis; clear; tput cnorm`,
            // then lines and `clear`), and ends them (`Frames::settled`).
            self.parser.advance(&mut self.term, &[CAN]);
            self.parser.advance(&mut self.term, b"\x1b[2J");
            self.settle_screen_cleared(transcript);
            return;
        }
        // (Looked at before the erase.)
        let erases_fish_mark =
            erases_line && view.col == 0 && !view.alternate && self.holds_only_fish_mark(view.row);
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
        if (erases_below || erases_fish_mark) && view.col == 0 {
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
        if clears_screen {
            self.screen_clears += 1;
            if !view.alternate {
                self.settle_screen_cleared(transcript);
            }
        }
    }

    /// Tells the scanner of a cursor save (`ESC 7`, `CSI s`) or restore (`ESC 8`, `CSI u`;
    /// as alacritty takes them, without a private marker or intermediate byte), which counts
    /// the moves to the top-left a restore undoes (`Scanner::undone_homes`): a restore takes
    /// the cursor away from there when the cursor it restores, alacritty's own, is not at the
    /// top-left. Each screen has its own, and entering the alternate screen (mode 1049, which
    /// the rules make of 47 and 1047) saves the primary screen's where the cursor is then: a
    /// restore after it goes back there.
    fn saves_or_restores(&mut self, sequence: Sequence) {
        match sequence {
            Sequence::Esc(b'7') | Sequence::Csi { private: None, action: b's', .. } => {
                self.scanner.cursor_saved();
            }
            Sequence::Esc(b'8') | Sequence::Csi { private: None, action: b'u', .. } => {
                let saved = self.term.grid().saved_cursor.point;
                self.scanner.cursor_restored(saved.line != Line(0) || saved.column != Column(0));
            }
            _ => {}
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

    /// Whether `row` holds fish's end-of-line mark ([`FISH_MARKS`]) in its first cell and
    /// blanks after it: fish (3.x), after output that did not end its line, writes its mark
    /// and spaces up to one column short of a row, which wrap onto the next row (after
    /// output as wide as the terminal, which left the cursor waiting to wrap on its last
    /// column, the mark itself wraps), then `CR`, the mark and a space, `CR` and an erase of that row (`EL`)
    /// before its prompt: an erase of such a row from its start ends the wrap into it, as
    /// zsh's erase down does (see [`Self::end_soft_wrap`]). The wrap was fish's, not the
    /// output's (`printf foo` read `foo⏎`, 116 spaces and the prompt; `printf '%0120d' 0` at
    /// 120 columns, the zeros and the prompt as one line). No line editor leaves that row
    /// before erasing it; zsh forces a wrap at the last column with a space and `CR EL` on
    /// the next row, and the line goes on there (a test of the row above ending in a blank
    /// split a command whose typed blank fell in the last column).
    fn holds_only_fish_mark(&self, row: usize) -> bool {
        let grid = self.term.grid();
        let mut cells = (0..grid.columns()).map(|col| grid[Line(row as i32)][Column(col)].c);
        cells.next().is_some_and(|mark| FISH_MARKS.contains(&mark)) && cells.all(|c| c == ' ')
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
        self.settle_rows(transcript, Scrolled::Cleared);
        transcript.end_pending();
        self.pending_row = None;
    }

    /// Runs one piece of a split repetition.
    fn repeat_piece(&mut self, transcript: &mut Transcript, turn: &mut Turn) {
        let cols = usize::from(self.cols);
        let piece = self.repeat.min(repeat_piece(cols));
        if !self.alternate() {
            self.unchanged_hidden = None;
        }
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
        self.settle_rows(transcript, Scrolled::Output);
    }

    /// [`Emulator::settle`], the rows drained having `scrolled` off the screen.
    fn settle_rows(&mut self, transcript: &mut Transcript, scrolled: Scrolled) {
        let drained = self.drain_history(transcript);
        let hidden = !self.mode().contains(TermMode::SHOW_CURSOR);
        self.frames.settled(Settled {
            scrolled: drained > 0 && scrolled == Scrolled::Output,
            cleared: scrolled == Scrolled::Cleared,
            homes: self.scanner.homes(),
            undone: self.scanner.undone_homes(),
            alternate: self.alternate(),
            hidden,
            row: self.cursor_row(),
        });
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

    /// How many times a program set xterm's modifyOtherKeys level (wrapping): a change
    /// tells that a level was set since.
    pub(crate) fn modify_other_keys_sets(&self) -> u32 {
        self.rules.modify_other_keys_sets()
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
        // A row taken a byte a cell is written straight where the transcript keeps it, as
        // the bytes `ascii_line_text` checked; any other is encoded into `bytes` first.
        let mut text = String::new();
        let mut bytes = Vec::new();
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
            let wrapped = is_wrapped(row);
            if cfg!(debug_assertions) && !self.wide_or_marked {
                // Every test and fuzz run checks the fast path against the general one.
                let mut ascii = Vec::new();
                if ascii_line_text(row, &mut ascii) {
                    text.clear();
                    line_text(row, &mut text);
                    assert_eq!(ascii, text.as_bytes(), "a row taken a byte a cell differs");
                }
            }
            let taken = !self.wide_or_marked
                && transcript.push_row_with(row.len(), wrapped, |out| ascii_line_text(row, out));
            if !taken {
                bytes.clear();
                line_bytes(row, &mut bytes);
                transcript.push_row_bytes(&bytes, wrapped);
            }
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

    /// Answers a query alacritty leaves unanswered (see the `queries` module): queued with
    /// the terminal's own replies, in the order the queries came.
    fn reply(&mut self, reply: String) {
        self.events.0.borrow_mut().push(Event::PtyWrite(reply));
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
                        cell_width: queries::CELL.0,
                        cell_height: queries::CELL.1,
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
                    // The answer is the text in base64 (4 bytes for every 3, padded) within
                    // `ESC ] 52 ; c ;` and the query's terminator (what `format` frames the
                    // empty text in): sized exactly before it is made, since a 9-byte query
                    // may ask for a megabyte. One that does not fit the room is dropped and
                    // counted, never cut: a part of the base64 is another text.
                    let size = text.len().div_ceil(3) * 4 + format("").len();
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
        self.unchanged_hidden = None;
        // The primary screen hidden now is reflowed: its capture serves no later hiding.
        if let Some(tail) = &mut self.hidden_tail {
            tail.reusable = false;
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
}

/// Whether `sequence` resets mode 1049 (on the alternate screen, it leaves it).
fn resets_1049(sequence: Sequence) -> bool {
    matches!(
        sequence,
        Sequence::Csi { private: Some(b'?'), action: b'l', params }
            if params.values().contains(&1049)
    )
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

mod cut_character;
mod frames;
mod hidden;
mod look;

use cut_character::CutCharacter;
use frames::{Frames, Scrolled, Settled};
use hidden::HiddenTail;

#[cfg(test)]
mod tests;
