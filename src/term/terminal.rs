//! [`Terminal`]: one session's terminal model behind one `feed`: the emulator, the settled
//! transcript and what shell-integration marks reveal, with the views the reactor serves.

use std::borrow::Cow;
use std::time::Instant;

use crate::config::Config;
use crate::term::emulator::{Emulator, OutputBounds, Turn};
use crate::term::scan::MarkKey;
use crate::term::screen::style::StyledScreen;
use crate::term::screen::{Modes, Screen};
use crate::term::shell::{Position, ShellTracker};
use crate::term::transcript::{ReadMark, Transcript, TypedLine};
use crate::types::Output;

/// What a command typed at the prompt would move a reader past unread (see
/// [`Terminal::unread_before_prompt`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct UnreadBefore {
    /// The first and last transcript lines holding text the reader was not given as it
    /// reads now.
    pub lines: Option<(u64, u64)>,
    /// Lines after the reader's position dropped from the transcript before it read them.
    pub dropped: u64,
    /// The exit code of the first command that ended after the reader's last read, when the
    /// last command did.
    pub exit_code: Option<i32>,
}

/// One session's terminal model. The reactor owns one per session and keeps descriptors,
/// queues, timers and waiters itself.
#[derive(Debug)]
pub(crate) struct Terminal {
    emulator: Emulator,
    transcript: Transcript,
    shell: ShellTracker,
    /// The key the shell-integration marks termloom added carry, if it added them.
    mark_key: Option<MarkKey>,
}

impl Terminal {
    /// A blank terminal; with `mark_key`, only OSC 133 marks that carry it count.
    pub(crate) fn new(cols: u16, rows: u16, config: &Config, mark_key: Option<MarkKey>) -> Self {
        Terminal {
            emulator: Self::emulator(cols, rows, config, mark_key),
            transcript: Transcript::new(
                config.scrollback_lines,
                config.scrollback_bytes,
                config.max_read_bytes,
            )
            .with_readers(config.max_readers, config.readers_tail_bytes),
            shell: ShellTracker::default(),
            mark_key,
        }
    }

    fn emulator(cols: u16, rows: u16, config: &Config, mark_key: Option<MarkKey>) -> Emulator {
        let mut emulator = Emulator::new(cols, rows, OutputBounds::of(config));
        if let Some(key) = mark_key {
            emulator.require_mark_key(key);
        }
        emulator
    }

    /// Whether termloom started the shell with its integration (its marks carry a key).
    pub(crate) fn started_with_integration(&self) -> bool {
        self.mark_key.is_some()
    }

    /// A blank terminal of the same size and bounds, keeping the transcript (after the
    /// emulation failed: the old emulator may be inconsistent).
    pub(crate) fn reset_emulator(&mut self, config: &Config) {
        let (cols, rows) = self.emulator.size();
        self.emulator = Self::emulator(cols, rows, config, self.mark_key);
        self.transcript.unpin();
    }

    /// Processes output from the program as far as the turn's work allows (the rest stays
    /// pending); the terminal's replies to queries are left in `turn`, shell-integration
    /// marks are applied.
    pub(crate) fn feed(&mut self, bytes: &[u8], turn: &mut Turn) {
        self.emulator.feed(bytes, &mut self.transcript, turn);
        self.apply_marks(turn);
    }

    /// Goes on with output a previous turn left pending.
    pub(crate) fn resume(&mut self, turn: &mut Turn) {
        self.emulator.resume(&mut self.transcript, turn);
        self.apply_marks(turn);
    }

    fn apply_marks(&mut self, turn: &mut Turn) {
        let now = Instant::now();
        for mark in turn.marks.drain(..) {
            if let Some((command, code)) = self.shell.apply(&mark, now) {
                self.transcript.command_ended(command, code);
            }
        }
    }

    /// The session ended (its program exited, or it was closed): the screen's rows below
    /// the cursor that hold text are read too from now on (see [`Emulator::end`]).
    pub(crate) fn end(&mut self) {
        self.emulator.end();
    }

    /// Whether output waits for another turn.
    pub(crate) fn has_pending(&self) -> bool {
        self.emulator.has_pending()
    }

    /// Whether the program draws whole frames on the primary screen (`Screen::frames`).
    pub(crate) fn draws_frames(&self) -> bool {
        self.emulator.draws_frames()
    }

    /// Whether frames are drawn on the primary screen (`Screen::frames`) by no group told
    /// yet: the foreground group after output is fed is theirs ([`Terminal::frames_drawn_by`]).
    pub(crate) fn frames_want_their_group(&self) -> bool {
        self.emulator.frames_want_their_group()
    }

    /// The terminal's foreground process group is `group` after output was fed while frames
    /// are drawn: theirs.
    pub(crate) fn frames_drawn_by(&mut self, group: i32) {
        self.emulator.frames_drawn_by(group);
    }

    /// The probe found process group `group` waiting for input, `shell_back` a job control
    /// shell at its prompt: frames another group drew end, and any frames when the shell is
    /// back (the program that drew them is gone; the shell has no OSC 133 marks to say so).
    pub(crate) fn group_reads(&mut self, group: i32, shell_back: bool) {
        self.emulator.group_reads(group, shell_back);
    }

    /// Resizes the grid (the caller resizes the kernel's terminal); `line_editor`: the
    /// terminal is not in canonical mode, so the program may redraw the line it edits (see
    /// [`Emulator::resize`]).
    pub(crate) fn resize(&mut self, cols: u16, rows: u16, line_editor: bool) {
        self.emulator.resize(cols, rows, line_editor, &mut self.transcript);
    }

    /// The part of the transcript new to `reader` (see [`Transcript::read`]), up to
    /// `max_bytes`.
    pub(crate) fn read(&mut self, reader: u64, max_bytes: usize) -> Output {
        let tail = self.readable_tail();
        self.as_reader_over(reader, tail, |t, tail| t.read(tail, max_bytes))
    }

    /// Runs `f` on the transcript as `reader` ([`Transcript::as_reader`]), with `tail`, the
    /// lines beyond the settled transcript that a read or a move to the end takes: the
    /// commands the shell ended counted as seen, and, while a full-screen program hides the
    /// primary screen, the cursor's line the reader was given kept in `tail`
    /// ([`Transcript::keep_given_hidden_line`]).
    fn as_reader_over<T>(
        &mut self,
        reader: u64,
        mut tail: Option<Vec<String>>,
        f: impl FnOnce(&mut Transcript, Option<&[String]>) -> T,
    ) -> T {
        let hides_line = self.emulator.hidden_cursor_line().is_some();
        let commands = self.shell.commands;
        self.transcript.as_reader(reader, |t| {
            t.set_commands_seen(commands);
            if let Some(tail) = tail.as_mut().filter(|_| hides_line) {
                t.keep_given_hidden_line(tail);
            }
            f(t, tail.as_deref())
        })
    }

    /// The lines a read takes beyond the settled transcript: the tail, or, while the
    /// alternate screen hides it, the primary screen's lines as it hid them when they hold
    /// text (see [`Emulator::readable_hidden_tail`], which leaves out a line half-written at
    /// the cursor until the program is back; a program that took the alternate screen at its
    /// start hid nothing to read). Reads and transcript waits search the same lines.
    pub(crate) fn readable_tail(&self) -> Option<Vec<String>> {
        self.tail().or_else(|| {
            let hidden = self.emulator.readable_hidden_tail()?;
            hidden.iter().any(|line| !line.trim().is_empty()).then(|| hidden.into_owned())
        })
    }

    /// The retained transcript, up to `max_bytes` of its end, and whether older lines were
    /// dropped. While the alternate screen is active, the primary screen's lines it hides are part
    /// of it: they were read before it opened, and are lost if the program ends on it.
    pub(crate) fn retained(&self, max_bytes: usize) -> (String, bool) {
        self.transcript.retained(self.primary_tail().as_deref(), max_bytes)
    }

    /// The primary screen's logical lines from the top down to the cursor: the tail, or,
    /// while the alternate screen hides them, as they were when it was hidden (what a command
    /// printed before it started a full-screen program).
    fn primary_tail(&self) -> Option<std::borrow::Cow<'_, [String]>> {
        match self.tail() {
            Some(tail) => Some(std::borrow::Cow::Owned(tail)),
            None => self.emulator.hidden_tail().map(std::borrow::Cow::Borrowed),
        }
    }

    /// The retained transcript's lines numbered `range`, at most `max_bytes` of them.
    pub(crate) fn lines(
        &self,
        range: std::ops::Range<u64>,
        max_bytes: usize,
    ) -> crate::TranscriptLines {
        let tail = self.readable_tail();
        self.transcript.lines(tail.as_deref(), range, max_bytes)
    }

    /// The screen's logical lines from the top down to the cursor (the unsettled tail);
    /// `None` while the alternate screen is active.
    pub(crate) fn tail(&self) -> Option<Vec<String>> {
        self.emulator.tail(&self.transcript)
    }

    /// The output of the shell command that ended as the `command`-th (shell integration),
    /// whether part of it was dropped from the store, and its exit code. A command still
    /// running (`so_far`: it timed out, or waits for input), or that did not end because the
    /// shell itself ended, gives what it printed so far and no exit code.
    pub(crate) fn command_output(&self, command: u64, so_far: bool) -> (String, bool, Option<i32>) {
        let span = if so_far { None } else { self.shell.output_of(command) };
        let (output, truncated) = match span {
            Some((from, to)) => {
                // Rows below the cursor too: a command may end above its output.
                let lines = self.emulator.lines_to_last_text(&self.transcript);
                let lines = lines.as_deref().unwrap_or(&[]);
                self.transcript.text_between(lines, self.output_from(from, lines), to)
            }
            None => match self.shell.output_start {
                Some((from, count)) if count == command => {
                    // (What it printed before it started a full-screen program too.)
                    let tail = self.primary_tail();
                    let tail_lines = tail.as_deref().unwrap_or(&[]);
                    let end = self.transcript.end() + tail_lines.len().saturating_sub(1) as u64;
                    let last = tail_lines.last().map_or(0, String::len);
                    let from = self.output_from(from, tail_lines);
                    self.transcript.text_between(tail_lines, from, (end, last))
                }
                _ => (String::new(), false),
            },
        };
        let exit_code = if span.is_some() { self.shell.last_exit } else { None };
        (output, truncated, exit_code)
    }

    /// Where the last command's output starts, its start line read with the screen's
    /// `lines`: at its mark, or on the next line when an earlier program left text after the
    /// cursor there and it is unchanged (the command printed nothing on that line).
    fn output_from(&self, from: Position, lines: &[String]) -> Position {
        let left = self.shell.output_start_after.as_str();
        match self.transcript.current(from.0, lines) {
            Some(line) if !left.is_empty() && line.get(from.1..) == Some(left) => (from.0 + 1, 0),
            _ => from,
        }
    }

    /// `screen` (the primary one, as it is now) with the echo of a line submitted on the
    /// `typed` line blanked while the line still begins as it did, where it goes on at the
    /// start of the lines after it past a line break the program wrote in it
    /// ([`EchoTrail`](crate::term::echo_layout::EchoTrail)), and where the program scrolled
    /// it sideways ([`TypedLine::scrolled_echo_len`]): a screen condition waited for after
    /// the line is submitted looks for its answer, not for the line typed. The echo is
    /// followed from the line's start, its rows scrolled off the screen read from the
    /// transcript, so that the rows of it still shown are blanked whichever scrolled off.
    pub(crate) fn screen_without_echo(&self, screen: &Screen, typed: &TypedLine) -> Option<Screen> {
        if screen.alternate {
            return None;
        }
        let (mut number, mut trail, mut masked) = (typed.number, None, None::<Screen>);
        while let Some((line, shown)) = self.line_and_its_rows(screen, number) {
            let (echo, next) = match trail {
                None => typed.echo_on_its_line(&line),
                Some(at) => {
                    let (echo, next) = typed.echo_continued(at, &line);
                    (0..echo, next)
                }
            };
            // Bytes of the line before its rows shown are off the screen.
            if let Some((rows, above)) = shown {
                let echo = echo.start.saturating_sub(above)..echo.end.saturating_sub(above);
                if !echo.is_empty() {
                    // (The screen is copied once some echo is found on it, not on each look.)
                    let masked = masked.get_or_insert_with(|| screen.clone());
                    mask(&mut masked.lines[rows], echo);
                }
            }
            let Some(at) = next else { break };
            (number, trail) = (at.line, Some(at));
        }
        masked
    }

    /// Transcript line `number`'s text, and the rows of `screen` that show it with how many
    /// bytes of it are above them (scrolled off): all of it, and no rows, for a settled line.
    fn line_and_its_rows(
        &self,
        screen: &Screen,
        number: u64,
    ) -> Option<(Cow<'_, str>, Option<RowsShown>)> {
        if number < self.transcript.end() {
            return Some((Cow::Borrowed(self.transcript.line(number)?), None));
        }
        let rows = self.emulator.rows_of_line(&self.transcript, number)?;
        let above = self.emulator.text_above(&self.transcript, &rows);
        let line =
            [above].into_iter().chain(screen.lines.get(rows.clone())?.iter().map(String::as_str));
        Some((Cow::Owned(line.collect()), Some((rows, above.len()))))
    }

    /// Moves `reader`'s cursor to the end of what the program printed (past a command whose
    /// output it was given).
    pub(crate) fn skip_to_end(&mut self, reader: u64) {
        // (Past the primary screen's lines while a full-screen program hides them too, as
        // reads take them: they are unchanged when it ends. All blank, they are moved past
        // too, where a read leaves them out ([`Terminal::readable_tail`]): a read gives
        // nothing of them either way, and a move past them is a move to the end.)
        let hidden = || self.emulator.readable_hidden_tail().map(std::borrow::Cow::into_owned);
        let tail = self.tail().or_else(hidden);
        self.as_reader_over(reader, tail, |t, tail| t.skip_to_end(tail));
    }

    /// What a command typed at the prompt would move `reader` past without its having read
    /// it (the end of a command whose wait timed out, printed after that result): the
    /// transcript lines before the prompt's start (its `A` mark, else the cursor's line) whose
    /// text the reader was not given in its present form (never given, given in part, or
    /// given and rewritten since: the test [`Transcript::read`] makes; not a line of blanks and
    /// box-drawing characters only, a dialog's border), the text before the prompt on the
    /// prompt's own row included; how many lines it had not read were dropped
    /// from the transcript; and, when the last command ended after the reader's last read
    /// (counted in commands, not positions: a command that cleared or rewrote the line a
    /// timed-out result ended on ends before that result's position), the exit code of the
    /// first command that did ([`Transcript::first_untold_exit`]: the reader's own, whose
    /// wait timed out, where another reader's commands ended after it).
    pub(crate) fn unread_before_prompt(&self, reader: u64) -> UnreadBefore {
        let mark = self.transcript.read_mark(reader);
        let (cursor, _) = self.cursor_position();
        let shell = &self.shell;
        // The prompt's own lines (a two-line `PS1`) are no output; without its mark, the
        // cursor's line is where it starts.
        let (stop, stop_offset) =
            shell.prompt_start.filter(|&(line, _)| line <= cursor).unwrap_or((cursor, 0));
        let first_kept = self.transcript.first();
        let (next, _) = mark.position();
        let dropped = first_kept.saturating_sub(next);
        let tail = self.tail();
        let tail = tail.as_deref().unwrap_or(&[]);
        let unread = |number: &u64| {
            let Some(text) = self.transcript.current(*number, tail) else { return false };
            let output = match *number == stop {
                true => &text[..text.floor_char_boundary(stop_offset)],
                false => text,
            };
            let output = output.trim_end();
            !drawing_only(output) && mark.read_before(*number, text) < output.len()
        };
        let from = mark.first_line().max(first_kept);
        let end = stop + u64::from(stop_offset > 0);
        let lines = (from..end)
            .find(unread)
            .and_then(|first| Some((first, (first..end).rev().find(unread)?)));
        // The last command with output (an empty command line also ends, with no code).
        let last_ended = shell.output_start.map(|(_, count)| count).filter(|&c| shell.commands > c);
        let seen = self.transcript.commands_seen(reader);
        let untold = last_ended.filter(|&c| seen.is_none_or(|seen| seen <= c));
        // The code of the first command that ended after the reader's last read (its own
        // command whose wait timed out), not the shell's last: another reader's commands may
        // have ended since. The shell's last for a reader the transcript does not know.
        let first_untold = self.transcript.first_untold_exit(reader);
        let exit_code = untold.and(first_untold.unwrap_or(shell.last_exit));
        UnreadBefore { lines, dropped, exit_code }
    }

    /// What `reader` has read so far.
    pub(crate) fn read_mark(&self, reader: u64) -> ReadMark {
        self.transcript.read_mark(reader)
    }

    /// The transcript line the cursor is on, where typed text is echoed, and its text before
    /// the cursor, typed text taken as echoed, by the program (the reactor, which sees the
    /// line modes, says otherwise); `None` on the alternate screen.
    pub(crate) fn typed_line(&self) -> Option<TypedLine> {
        let tail = self.emulator.tail(&self.transcript)?;
        let (number, offset) = self.emulator.cursor_position(&self.transcript);
        let end = self.transcript.end();
        let text = match number.checked_sub(end) {
            Some(index) => tail.get(usize::try_from(index).ok()?)?.as_str(),
            None => self.transcript.line(number)?,
        };
        // (The tail leaves out the blanks before the cursor on a line that has nothing else
        // before it: they are before the typed text all the same.)
        let before = match text.get(..offset) {
            Some(before) => before.to_owned(),
            None if offset > text.len() => format!("{text}{}", " ".repeat(offset - text.len())),
            None => text.to_owned(),
        };
        let after = text.get(offset..).unwrap_or("").trim_end().to_owned();
        Some(TypedLine {
            number,
            before,
            after,
            echoed: true,
            echo: None,
            terminal_echoes: false,
            anchored: false,
        })
    }

    /// The settled transcript (line numbers, lines, pins).
    pub(crate) fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The settled transcript, to pin lines a waiter has not searched yet.
    pub(crate) fn transcript_mut(&mut self) -> &mut Transcript {
        &mut self.transcript
    }

    /// What the shell-integration marks say.
    pub(crate) fn shell(&self) -> &ShellTracker {
        &self.shell
    }

    /// A snapshot of the visible screen.
    pub(crate) fn screen(&self) -> Screen {
        self.emulator.screen()
    }

    /// The screen with only the rows `wanted` takes as text, the others blank (see
    /// `Emulator::screen_of_rows`).
    pub(crate) fn screen_of_rows(&self, wanted: impl Fn(usize) -> bool) -> Screen {
        self.emulator.screen_of_rows(wanted)
    }

    /// The screen with the colours and attributes of its cells.
    pub(crate) fn styled_screen(&self) -> StyledScreen {
        self.emulator.styled_screen()
    }

    /// How many moves to the screen's top-left the program made since the emulator was made
    /// (see `Scanner::homes`).
    pub(crate) fn homes(&self) -> u64 {
        self.emulator.homes()
    }

    /// How many erases of the whole screen (`CSI 2 J`) the program made since the emulator
    /// was made.
    pub(crate) fn screen_clears(&self) -> u64 {
        self.emulator.screen_clears()
    }

    /// Whether the alternate screen is active.
    pub(crate) fn alternate(&self) -> bool {
        self.emulator.alternate()
    }

    /// Whether the cursor waits at the start of a blank row of the primary screen, right
    /// below a row of text (see `Emulator::cursor_below_text`).
    pub(crate) fn cursor_below_text(&self) -> bool {
        self.emulator.cursor_below_text()
    }

    /// Whether no row of the screen holds text (see `Emulator::shows_no_text`).
    pub(crate) fn shows_no_text(&self) -> bool {
        self.emulator.shows_no_text()
    }

    /// Where the cursor is in the transcript: its line and the bytes before it there.
    pub(crate) fn cursor_position(&self) -> (u64, usize) {
        self.emulator.cursor_position(&self.transcript)
    }

    /// Where the cursor is on the grid (see `MarkAt::cell`): cheap, unlike its position in the
    /// transcript, which renders the rows above it.
    pub(crate) fn cursor_cell(&self) -> (u64, usize, usize) {
        self.emulator.cursor_cell(&self.transcript)
    }

    /// Whether the visible cursor stands right after the text of its row of the primary
    /// screen (see `Emulator::cursor_after_text`).
    pub(crate) fn cursor_after_text(&self) -> bool {
        self.emulator.cursor_after_text()
    }

    /// Whether the visible cursor stands in a line being edited on the primary screen: right
    /// after its row's text, or before a suggestion drawn after it that follows `typed`, the
    /// text the last input typed (see `Emulator::cursor_in_line`).
    pub(crate) fn cursor_in_line(&self, typed: &str) -> bool {
        self.emulator.cursor_in_line(typed)
    }

    /// Whether the cursor is shown.
    pub(crate) fn cursor_visible(&self) -> bool {
        self.emulator.cursor_visible()
    }

    /// Whether the visible cursor of the primary screen stands right after a password
    /// prompt: the text before it ends in a colon (and the masks shown for the keys typed so
    /// far) and names a password, passphrase, passcode or PIN ([`asks_for_password`]). What a
    /// program on the far side of a relay that reads keys (`ssh`) asks for, when the terminal
    /// that reads it cannot be read.
    pub(crate) fn shows_password_prompt(&self) -> bool {
        self.emulator.text_before_cursor().is_some_and(|text| asks_for_password(&text))
    }

    /// The input modes the program has set.
    pub(crate) fn modes(&self) -> Modes {
        self.emulator.modes()
    }

    /// How many times a program set xterm's modifyOtherKeys level (wrapping): a change
    /// tells that a level was set since (see `Slot::modify_other_keys_group`).
    pub(crate) fn modify_other_keys_sets(&self) -> u32 {
        self.emulator.modify_other_keys_sets()
    }

    /// The size in columns and rows.
    pub(crate) fn size(&self) -> (u16, u16) {
        self.emulator.size()
    }

    /// The number of bells rung.
    pub(crate) fn bells(&self) -> u64 {
        self.emulator.bells()
    }

    /// OSC strings and sequences dropped because a bound was reached.
    pub(crate) fn dropped_sequences(&self) -> u64 {
        self.emulator.dropped_sequences()
    }

    /// The session's clipboard.
    pub(crate) fn clipboard(&self) -> String {
        self.emulator.clipboard().to_owned()
    }

    /// Replaces the session's clipboard with the caller's `text`, refused when it is longer
    /// than a program's copy can be (`Emulator::set_clipboard`).
    pub(crate) fn set_clipboard(&mut self, text: String) -> crate::Result<()> {
        self.emulator.set_clipboard(text)
    }

    /// When the open synchronized update stops holding the screen's checks back.
    pub(crate) fn sync_deadline(&self) -> Option<Instant> {
        self.emulator.sync_deadline()
    }

    /// Ends an expired synchronized update.
    pub(crate) fn stop_sync(&mut self) {
        self.emulator.stop_sync();
    }

    /// Releases memory the grid keeps for speed (done when a session goes quiet).
    pub(crate) fn trim_memory(&mut self) {
        self.emulator.trim_memory();
    }
}

/// The words that name a password in a prompt (compared in lower case), in the languages
/// `sudo`, `passwd` and `ssh` are most often translated to.
const PASSWORD_WORDS: [&str; 12] = [
    "password",
    "passphrase",
    "passcode",
    "passwort",
    "mot de passe",
    "contraseña",
    "senha",
    "пароль",
    "密码",
    "密碼",
    "パスワード",
    "비밀번호",
];

/// The characters a password prompt may show for each key typed (`sudo` with `pwfeedback`
/// shows `*`).
const MASKS: [char; 4] = ['*', '•', '●', '∙'];

/// Whether `text`, what a prompt shows before the cursor, asks for a password: it ends in a
/// colon (blanks, and the masks shown for the keys typed so far, [`MASKS`], after it aside)
/// and names a password ([`PASSWORD_WORDS`]) or a PIN (the word alone: `[sudo] password for
/// ann:`, `ann@host's password:`, `Enter passphrase for key '/home/ann/.ssh/id_ed25519':`,
/// `Enter PIN for 'key':`, `[sudo] password for ann: ***`).
pub(crate) fn asks_for_password(text: &str) -> bool {
    let text = text.trim_end_matches(|c: char| c.is_whitespace() || MASKS.contains(&c));
    let Some(asked) = text.strip_suffix(':').or_else(|| text.strip_suffix('：')) else {
        return false;
    };
    let lower = asked.to_lowercase();
    PASSWORD_WORDS.iter().any(|word| lower.contains(word))
        || lower.split(|c: char| !c.is_alphanumeric()).any(|word| word == "pin")
}

/// The rows of the screen that show a line, and how many bytes of the line are above them
/// (scrolled off the screen).
type RowsShown = (std::ops::Range<usize>, usize);

/// Blanks the characters of `rows`, the rows of one line, whose bytes in the line (the rows'
/// text joined) fall in `echo`, each as wide as it was: what follows keeps its columns.
fn mask(rows: &mut [String], echo: std::ops::Range<usize>) {
    let mut start = 0;
    for row in rows {
        let end = start + row.len();
        *row = row
            .char_indices()
            .map(|(at, c)| match echo.contains(&(start + at)) {
                true => " ".repeat(unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)),
                false => c.to_string(),
            })
            .collect();
        start = end;
    }
}

/// Whether `text` holds no text but blanks and box-drawing characters (U+2500 to U+257F): a
/// dialog's border (`└────┘`) that a program drew below the cursor, where a reader's read,
/// which stops at the cursor's row, did not reach, is no output for the unread note to name
/// ([`Terminal::unread_before_prompt`]).
fn drawing_only(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || ('\u{2500}'..='\u{257f}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::{Terminal, asks_for_password};
    use crate::config::Config;
    use crate::term::emulator::Turn;

    /// Feeds `text` to `terminal` whole.
    fn feed(terminal: &mut Terminal, text: &str) {
        let mut turn = Turn { budget: usize::MAX, ..Turn::default() };
        terminal.feed(text.as_bytes(), &mut turn);
    }

    /// A shell with OSC 133 marks that runs `line`, which prints `output`, as its
    /// `command`-th; returns what `command_output` gives for it.
    fn run(terminal: &mut Terminal, command: u64, line: &str, output: &str) -> String {
        let marked = format!(
            "\x1b]133;A\x07$ \x1b]133;B\x07{line}\r\n\x1b]133;C\x07{output}\x1b]133;D;0\x07"
        );
        let mut turn = Turn { budget: usize::MAX, ..Turn::default() };
        terminal.feed(marked.as_bytes(), &mut turn);
        let (text, truncated, code) = terminal.command_output(command, false);
        assert!(!truncated && code == Some(0), "{line}: {code:?}");
        text
    }

    /// A command's output is what it printed from its start, on a screen an earlier command
    /// left in disorder too: one that moved the cursor above its own start (its output is
    /// below the cursor), one printed over rows that still held text (the old text after the
    /// cursor is not part of it), and one that cleared the screen from such a row.
    #[test]
    fn a_commands_output_is_what_it_printed_after_a_cursor_moved_up() {
        let mut terminal = Terminal::new(40, 12, &Config::default(), None);
        assert_eq!(run(&mut terminal, 0, "echo a; echo b", "a\r\nb\r\n"), "a\nb\n");
        assert_eq!(run(&mut terminal, 1, "p1", "out\r\n\x1b[H"), "out");
        assert_eq!(run(&mut terminal, 2, "echo after", "after\r\n"), "after\n");
        // Printed over `$ p1`, which keeps its end; it ends where the cursor went back to.
        assert_eq!(run(&mut terminal, 3, "p2", "x\r\ny\r\nz\r\n\x1b[2A"), "x p1\n");
        assert_eq!(run(&mut terminal, 4, "clear; echo c", "\x1b[H\x1b[2Jc\r\n"), "c\n");
        assert_eq!(run(&mut terminal, 5, "echo end", "end\r\n"), "end\n");
    }

    /// The exit code a reader is told, with its unread lines, is the one of the first
    /// command that ended after its last read (its own, whose wait timed out), not the
    /// shell's last, another reader's command's; and a reader told it, then forgotten past
    /// `max_readers`, is not told it again when it comes back.
    #[test]
    fn a_reader_is_told_the_code_of_the_command_it_did_not_see_end_once() {
        let config = Config { max_readers: 2, ..Config::default() };
        let mut terminal = Terminal::new(40, 12, &config, None);
        let prompt = "\x1b]133;A\x07$ \x1b]133;B\x07";
        feed(&mut terminal, &format!("{prompt}build\r\n\x1b]133;C\x07compiling\r\n"));
        // Reader 1's wait for the build timed out: it read up to here.
        terminal.read(1, 1 << 20);
        feed(&mut terminal, &format!("error\r\n\x1b]133;D;7\x07{prompt}"));
        // Reader 2 runs a command of its own, and reads its end.
        terminal.read(2, 1 << 20);
        feed(&mut terminal, &format!("true\r\n\x1b]133;C\x07\x1b]133;D;0\x07{prompt}"));
        terminal.skip_to_end(2);
        assert_eq!(terminal.unread_before_prompt(1).exit_code, Some(7));
        assert_eq!(terminal.unread_before_prompt(2).exit_code, None);
        // Reader 1 is told (its command moves it past), then pushed out by readers 3 and 4.
        terminal.skip_to_end(1);
        assert_eq!(terminal.unread_before_prompt(1).exit_code, None);
        terminal.read(3, 1 << 20);
        terminal.read(4, 1 << 20);
        assert_eq!(terminal.unread_before_prompt(1).exit_code, None, "forgotten, told again");
        assert_eq!(terminal.transcript.commands_seen(1), Some(2), "forgotten, its count kept");
        // Back, it is told the next command it did not see end.
        feed(&mut terminal, &format!("false\r\n\x1b]133;C\x07\x1b]133;D;1\x07{prompt}"));
        assert_eq!(terminal.unread_before_prompt(1).exit_code, Some(1));
    }

    /// A dialog's border that a program drew below the cursor (`TERM=vt100 dialog --msgbox`,
    /// on the primary screen), which the reader's read, stopping at the cursor's row, did not
    /// reach, is no unread output once the dialog is answered and the prompt is back: it was
    /// named as such (`line 19`, the box's bottom). Text there still is.
    #[test]
    fn a_dialogs_border_below_the_cursor_is_no_unread_output() {
        for (bottom, named) in [("└──────┘", false), ("└─ OK ─┘", true)] {
            let mut terminal = Terminal::new(40, 12, &Config::default(), None);
            let prompt = "\x1b]133;A\x07$ \x1b]133;B\x07";
            let dialog = format!("┌──────┐\r\n│ hi   │\r\n│ OK   │\r\n{bottom}\x1b[A\r\x1b[2C");
            feed(&mut terminal, &format!("{prompt}dialog\r\n\x1b]133;C\x07{dialog}"));
            // The reader's wait timed out with the dialog waiting for a key.
            terminal.read(1, 1 << 20);
            feed(&mut terminal, &format!("\r\n\r\n\x1b]133;D;0\x07{prompt}"));
            let unread = terminal.unread_before_prompt(1);
            assert_eq!(unread.lines.is_some(), named, "{bottom}: {unread:?}");
            assert_eq!(unread.exit_code, Some(0));
        }
    }

    #[test]
    fn password_prompts_are_told_by_their_words() {
        for prompt in [
            "Password: ",
            "[sudo] password for ann: ",
            "ann@example.org's password: ",
            "(ann@host) Password:",
            "Enter passphrase for key '/home/ann/.ssh/id_ed25519': ",
            "Current password: ",
            "Retype new password:",
            "Enter PIN for 'ECDSA-SK key':",
            "[sudo] Passwort für ann: ",
            "密码：",
            "[sudo] password for ann: ***",
            "Password: ••",
        ] {
            assert!(asks_for_password(prompt), "{prompt:?}");
        }
        for other in [
            "$ ",
            "Name: ",
            "Password changed.",
            "password: ok",
            "spinning:",
            "Use a strong password? ",
            "password: ok*",
            "",
        ] {
            assert!(!asks_for_password(other), "{other:?}");
        }
    }
}
