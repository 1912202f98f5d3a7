//! The settled line transcript of a session and its read cursor.
//!
//! Lines reach the store when they scroll off the top of the primary screen (the emulator
//! drains alacritty's history into [`Transcript::push_row`]); they never change after that.
//! The rows still on the screen, from the top down to the cursor, form the unsettled *tail*,
//! which the emulator hands to [`Transcript::read`]. Lines are numbered from the start of the
//! session; the tail's first line has number [`Transcript::end`].

use std::collections::VecDeque;

use super::echo_layout::{EchoTrail, agreeing};
use super::line_store::{LineStore, as_text};
use crate::TranscriptLines;
use crate::types::Output;

/// One line an earlier read returned while it was still on the screen.
#[derive(Debug, Clone)]
struct Seen {
    number: u64,
    text: String,
    /// Returned with its line end (`\n`); otherwise only `text`, a prefix, was returned.
    complete: bool,
}

/// What a reader had read when a wait started. A wait searches only text that is new to the
/// reader: text read before is skipped, unless its line has been rewritten since (a progress
/// bar redrawn with `\r`, a line redrawn after a cursor move), in which case the whole line is
/// searched again.
#[derive(Debug, Clone)]
pub(crate) struct ReadMark {
    next: u64,
    offset: usize,
    seen: Vec<Seen>,
    /// The line a submitted input was typed on (see [`ReadMark::past_typed`]).
    typed: Option<TypedLine>,
}

/// The transcript line the cursor is on, where what is typed is echoed, and its text before
/// the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypedLine {
    /// The line's number.
    pub number: u64,
    /// Its text before the cursor when the input was typed.
    pub before: String,
    /// Its text after the cursor then, but for blanks at its end: a line editor keeps it
    /// after what is typed at the cursor (`sudo ` typed at the start of `apt update`), so it
    /// is echo too.
    pub after: String,
    /// What is typed is echoed there (by the line discipline, or by a line editor in
    /// non-canonical mode); not at a password prompt (canonical, echo off), where what the
    /// program adds to the line is its answer.
    pub echoed: bool,
    /// The echo of what was typed, when it is plain text and Enter (its characters); `None`
    /// when keys that edit or move were typed too (a recalled or completed line), whose
    /// echo cannot be told in advance.
    pub echo: Option<String>,
    /// The terminal itself echoed what was typed (its line discipline's `ECHO`, as the
    /// input was written): the echo lands where the program's output stands then, further on
    /// than this line when output was still unread (see [`TypedLine::anchor`]).
    pub terminal_echoes: bool,
    /// Where the echo landed is settled: this line, once a wait found the echo there, or
    /// once it is looked for no more (see [`TypedLine::anchor`]). A wait given the line back
    /// (the testing kit's next one, after a wait's outcome answered it) looks nowhere else.
    pub anchored: bool,
}

impl TypedLine {
    /// How many bytes at the start of `added`, what the line holds after [`TypedLine::before`]
    /// now, are the echo of what was typed: as much of it as agrees with [`TypedLine::echo`]
    /// and then [`TypedLine::after`] (a program that echoes nothing and answers on the same line, `Press any key...`, adds
    /// its answer), or all of it when the echo cannot be told; none when it is not echoed.
    pub(crate) fn echo_len(&self, added: &str) -> usize {
        if !self.echoed {
            return 0;
        }
        let Some(echo) = &self.echo else {
            return added.len();
        };
        agreeing(added, echo.chars().chain(self.after.chars()))
    }

    /// Looks for the echo on line `number`, at or after this one and reading `text`, when
    /// where it landed is not settled yet ([`TypedLine::anchored`]), lines given in order. The
    /// line is taken as the input is written, after the output read by then: output still
    /// unread in the terminal (a flood) puts the echo further on, where the terminal's echo
    /// lands (`13179done`). So the echo is this line's while it holds the echo: after
    /// [`TypedLine::before`] while it begins as it did (right after it, or after output that
    /// continued the line); anywhere in it once rewritten (a program that redraws the
    /// answered line, `* Name: done` over `Name: done`), which settles the echo there and
    /// leaves the line searched whole, no echo. Only while this line holds no echo is the
    /// first later line that holds it taken for it, which becomes this line (its number, and
    /// its text before the echo's first occurrence for [`TypedLine::before`]). An echo that
    /// cannot be told ([`TypedLine::echo`] `None`), is blank, is not shown, or that the
    /// program makes itself (the terminal did not echo: a line editor's, or a program that
    /// echoes nothing and answers with what it read, `got x`) is looked for on this line
    /// alone: settled at once.
    pub(crate) fn anchor(&mut self, number: u64, text: &str) {
        if self.anchored || number < self.number {
            return;
        }
        let echo = self.echo.as_deref().filter(|_| self.echoed && self.terminal_echoes);
        let Some(echo) = echo.filter(|echo| !echo.trim_end_matches(' ').is_empty()) else {
            self.anchored = true;
            return;
        };
        if number == self.number {
            match text.strip_prefix(self.before.as_str()) {
                // (An echo whose blanks the program wrote over, `done got done`: it is
                // where the line typed on goes on, not the last place it could end.)
                Some(added) if added.starts_with(echo.trim_end_matches(' ')) => {}
                Some(added) => match holds_echo(added, echo) {
                    // (After output that continued the line: the echo starts further on.)
                    Some(at) if at > 0 => {
                        let before = text[..self.before.len() + at].to_owned();
                        (self.before, self.after) = (before, String::new());
                    }
                    Some(_) => {}
                    None => return,
                },
                // (Rewritten, still holding the echo: settled there, the line searched whole.)
                None if holds_echo(text, echo).is_some() => {}
                None => return,
            }
            self.anchored = true;
            return;
        }
        let Some(at) = holds_echo(text, echo) else { return };
        (self.number, self.before, self.after) = (number, text[..at].to_owned(), String::new());
        self.anchored = true;
    }

    /// Lines from `searched` (the first a wait had not searched) to `first` (the first the
    /// transcript still keeps) were dropped unsearched: an echo not found yet may have been
    /// among them, so where it landed is looked for no more, and no later line is taken for
    /// it (a line past this one that holds the echo, once the echo scrolled away, is the
    /// answer: `finished job`).
    pub(crate) fn dropped(&mut self, searched: u64, first: u64) {
        if first > searched && first > self.number {
            self.anchored = true;
        }
    }
}

impl ReadMark {
    /// Counts what is added to the line a submitted input was typed on as read while the line
    /// still begins as it did (`typed`), when the input is echoed: that is the echo, no answer
    /// to it. A line redrawn since (a progress bar's `\r`) is searched in full.
    pub(crate) fn past_typed(&mut self, typed: TypedLine) {
        self.typed = Some(typed);
    }

    /// The line a submitted input was typed on, if one was (see [`ReadMark::past_typed`]):
    /// where its echo landed, once a search of the lines found it ([`TypedLine::anchor`]).
    pub(crate) fn typed(&self) -> Option<&TypedLine> {
        self.typed.as_ref()
    }

    /// Whether line `number` was never returned to the reader, not even in part or while it
    /// was still being written, nor is the line a submitted input was typed on: an empty
    /// line ended since is new to the reader, though it holds no text. The empty line at the
    /// cursor that a read ended on (after output ending in a line end) was given nothing: a
    /// blank line the program ends there later is new.
    pub(crate) fn never_read(&self, number: u64) -> bool {
        let typed_on = self.typed.as_ref().is_some_and(|typed| typed.number == number);
        let given = |seen: &Seen| seen.number == number && (seen.complete || !seen.text.is_empty());
        let returned = number < self.next
            || (number == self.next && self.offset > 0)
            || self.seen.iter().any(given);
        !typed_on && !returned
    }

    /// Whether where the echo of a submitted line landed is still to be found, by giving the
    /// lines at or after the one it was typed on to [`ReadMark::read_part`], in order.
    pub(crate) fn seeks_echo(&self) -> bool {
        self.typed.as_ref().is_some_and(|typed| !typed.anchored)
    }

    /// Lines from `searched` to `first` were dropped before a wait searched them (see
    /// [`TypedLine::dropped`]).
    pub(crate) fn dropped(&mut self, searched: u64, first: u64) {
        if let Some(typed) = self.typed.as_mut() {
            typed.dropped(searched, first);
        }
    }

    /// The first line that may hold new text.
    pub(crate) fn first_line(&self) -> u64 {
        self.seen.iter().map(|seen| seen.number).fold(self.next, u64::min)
    }

    /// How many bytes at the start of line `number`, which now reads `text`, the reader had
    /// read, unchanged since, or are the echo of the line typed: on that line (scrolled
    /// sideways too, [`TypedLine::scrolled_echo_len`]), and at the start of the lines after
    /// it while the echo goes on there past a line break the program wrote (`trail`, which
    /// the caller keeps for the next line: lines are asked for in order, from the first that
    /// may hold new text). While where the echo of a submitted line landed is not settled,
    /// they are where it is looked for ([`TypedLine::anchor`]).
    pub(crate) fn read_part(
        &mut self,
        number: u64,
        text: &str,
        trail: &mut Option<EchoTrail>,
    ) -> usize {
        if let Some(typed) = self.typed.as_mut() {
            typed.anchor(number, text);
        }
        if let Some(typed) = self.typed.as_ref().filter(|typed| typed.number == number) {
            let (echo, next) = typed.echo_on_its_line(text);
            *trail = next;
            return echo.end;
        }
        let echo = match (self.typed.as_ref(), trail.take()) {
            (Some(typed), Some(at)) if at.line == number => {
                let (echo, next) = typed.echo_continued(at, text);
                *trail = next;
                echo
            }
            (_, at) => {
                *trail = at.filter(|at| at.line > number);
                0
            }
        };
        echo.max(self.read_before(number, text))
    }

    /// Where the reader stands: the first line it has not completely read, and the bytes of
    /// it read.
    pub(crate) fn position(&self) -> (u64, usize) {
        (self.next, self.offset)
    }

    /// How many bytes at the start of line `number`, which now reads `text`, the reader had
    /// read, unchanged since (the typed line's echo aside): none when the line was rewritten
    /// since the reader was given it (the test [`Transcript::read`] makes before it returns
    /// such a line again).
    pub(crate) fn read_before(&self, number: u64, text: &str) -> usize {
        if number > self.next {
            return 0;
        }
        match self.seen.iter().find(|seen| seen.number == number) {
            Some(seen) if !agrees(seen, text) => 0,
            _ if number < self.next => text.len(),
            _ => text.floor_char_boundary(self.offset),
        }
    }
}

/// Where a reader stands.
#[derive(Debug, Default)]
struct Reader {
    /// The first line not completely returned.
    next: u64,
    /// Bytes of line `next` already returned.
    offset: usize,
    /// Unsettled lines returned by earlier reads, to detect rewrites.
    seen: Vec<Seen>,
    /// `seen` was dropped to keep the readers' copies within their bound (see
    /// [`Transcript::keep_within_bound`]): the first line it held. The next read returns the
    /// text again from that line, marked `rewritten`, since it cannot tell what changed.
    dropped_from: Option<u64>,
    /// The bytes `seen` takes, as counted in [`Transcript::kept_bytes`] while this reader is
    /// one of the others.
    kept: usize,
    /// This reader's position was forgotten (see [`Transcript::forgotten`]): it starts over,
    /// and its next read says so.
    forgotten: bool,
    /// The shell's count of ended commands when this reader last read (kept here for the
    /// terminal, which counts them: [`Transcript::set_commands_seen`]): whether the last
    /// command's end, and its exit code, was after its last read.
    commands_seen: u64,
    /// The exit code of the first command with output that ended after its last read, once
    /// one has (`Some(None)`: it ended without a code), for the note on what it left unread
    /// (see [`Transcript::command_ended`]).
    first_untold_exit: Option<Option<i32>>,
}

impl Reader {
    /// The bytes `seen` takes: its entries and their text.
    fn seen_bytes(&self) -> usize {
        self.seen.capacity() * std::mem::size_of::<Seen>()
            + self.seen.iter().map(|seen| seen.text.capacity()).sum::<usize>()
    }

    /// Drops `seen`, remembering where it started.
    fn drop_seen(&mut self) {
        if let Some(first) = self.seen.iter().map(|seen| seen.number).min() {
            self.dropped_from = Some(self.dropped_from.map_or(first, |from| from.min(first)));
        }
        self.seen = Vec::new();
    }
}

/// The bounded store of settled lines plus the read cursors of its readers: reader 0 (the
/// default) and at most `max_readers` others, the least recently used forgotten first (a
/// forgotten reader starts over from the oldest retained line, and its next read says so,
/// while it is among the last `max_readers` forgotten). The others' copies of the
/// screen text they read take at most `max_kept_bytes` besides the most recent reader's: past
/// it, the least recently used readers' copies are dropped first (such a reader's next read
/// returns that text again, marked `rewritten`).
#[derive(Debug)]
pub(crate) struct Transcript {
    lines: LineStore,
    first: u64,
    bytes: usize,
    max_lines: usize,
    max_bytes: usize,
    max_line: usize,
    /// Settled rows of a logical line that continues on the screen: UTF-8 text, as the
    /// store's lines are (checked when read, see `line_store`).
    pending: Vec<u8>,
    /// Lines from this number on are kept past the bounds (a waiter has not searched them).
    pin: Option<u64>,
    /// The cursor of the reader being served: reader 0's, or another's while
    /// [`Transcript::as_reader`] runs.
    reader: Reader,
    /// The other readers' cursors, least recently used first.
    others: VecDeque<(u64, Reader)>,
    max_readers: usize,
    /// The readers whose cursors were forgotten past `max_readers`, the most recent last (at
    /// most `max_readers` of them): one that comes back is told that it starts over, rather
    /// than read old text again as if it were new.
    /// Each with the shell's count of ended commands it had seen and the first untold exit code
    /// (`Reader::commands_seen`, `Reader::first_untold_exit`), kept so that a reader told a
    /// code is not told it again when it comes back.
    forgotten: VecDeque<(u64, u64, Option<Option<i32>>)>,
    /// The bytes the others' `seen` take (the sum of their `kept`).
    kept_bytes: usize,
    /// The bound of `kept_bytes`, past the most recent reader's copy.
    max_kept_bytes: usize,
}

/// Where `text`, a line as the transcript keeps it (blanks at its end left out), first holds
/// `echo`: in full, or up to the blanks it ends with where it runs to the line's end (`done␠␠`
/// typed, `Name: done` kept).
fn holds_echo(text: &str, echo: &str) -> Option<usize> {
    let shown = echo.trim_end_matches(' ');
    text.match_indices(shown).map(|(at, _)| at).find(|&at| {
        text[at..].starts_with(echo) || at + shown.len() == text.trim_end_matches(' ').len()
    })
}

/// The last character boundary of the UTF-8 text `s` at or before `at`.
fn floor_char_boundary(s: &[u8], mut at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    // A boundary is where a byte is not a continuation byte (0b10xx_xxxx).
    while at > 0 && (s[at] as i8) < -0x40 {
        at -= 1;
    }
    at
}

/// Whether `now` still agrees with `seen`, which was returned earlier: the same text up to
/// trailing blanks, or (for a partly returned line) a continuation of it.
fn agrees(seen: &Seen, now: &str) -> bool {
    if seen.complete {
        return seen.text.trim_end() == now.trim_end();
    }
    now.starts_with(&seen.text)
        || (seen.text.starts_with(now) && seen.text[now.len()..].trim().is_empty())
}

impl Transcript {
    pub(crate) fn new(max_lines: usize, max_bytes: usize, max_line: usize) -> Self {
        Transcript {
            // Buffers of a quarter of the byte bound (at most 32 KiB), so what the store holds
            // besides its lines stays in proportion to the bound.
            lines: LineStore::with_chunk_bytes(max_bytes / 4),
            first: 0,
            bytes: 0,
            max_lines,
            max_bytes,
            max_line: max_line.max(4),
            pending: Vec::new(),
            reader: Reader::default(),
            pin: None,
            others: VecDeque::new(),
            max_readers: crate::Config::default().max_readers,
            forgotten: VecDeque::new(),
            kept_bytes: 0,
            max_kept_bytes: crate::Config::default().readers_tail_bytes,
        }
    }

    /// This store, keeping the cursors of at most `max_readers` readers besides reader 0, and
    /// at most `max_kept_bytes` of their copies of the screen besides the most recent one's.
    pub(crate) fn with_readers(mut self, max_readers: usize, max_kept_bytes: usize) -> Self {
        self.max_readers = max_readers;
        self.max_kept_bytes = max_kept_bytes;
        self
    }

    /// The bytes the readers other than reader 0 keep of the screen they read.
    #[cfg(test)]
    pub(crate) fn readers_kept_bytes(&self) -> usize {
        let measured = self.others.iter().map(|(_, cursor)| cursor.seen_bytes()).sum();
        assert_eq!(self.kept_bytes, measured, "the count of the readers' bytes is off");
        measured
    }

    /// Drops the least recently used readers' copies of the screen (all but the most recent
    /// reader's) until they take at most `max_kept_bytes`. Each reader is looked at once,
    /// only while over the bound.
    fn keep_within_bound(&mut self) {
        let recent = self.others.len().saturating_sub(1);
        for (_, cursor) in self.others.iter_mut().take(recent) {
            if self.kept_bytes <= self.max_kept_bytes {
                break;
            }
            if cursor.kept > 0 {
                cursor.drop_seen();
                self.kept_bytes -= cursor.kept;
                cursor.kept = 0;
            }
        }
    }

    /// Runs `f` with reader `reader`'s cursor as the one served (0: the default reader).
    pub(crate) fn as_reader<T>(&mut self, reader: u64, f: impl FnOnce(&mut Self) -> T) -> T {
        if reader == 0 {
            return f(self);
        }
        let at = self.others.iter().position(|(id, _)| *id == reader);
        let mut cursor = match at.and_then(|at| self.others.remove(at)) {
            Some((_, cursor)) => cursor,
            None => {
                let forgotten = self.forgotten.iter().position(|(id, ..)| *id == reader);
                let forgotten = forgotten.and_then(|at| self.forgotten.remove(at));
                // (A forgotten reader starts at the oldest retained line: the lines dropped
                // before it are no news to it, as the note on its start says.)
                let next = if forgotten.is_some() { self.first } else { 0 };
                let (_, commands_seen, first_untold_exit) = forgotten.unwrap_or_default();
                Reader {
                    forgotten: forgotten.is_some(),
                    next,
                    commands_seen,
                    first_untold_exit,
                    ..Reader::default()
                }
            }
        };
        self.kept_bytes -= cursor.kept;
        std::mem::swap(&mut self.reader, &mut cursor);
        let out = f(self);
        std::mem::swap(&mut self.reader, &mut cursor);
        cursor.kept = cursor.seen_bytes();
        self.kept_bytes += cursor.kept;
        self.others.push_back((reader, cursor));
        while self.others.len() > self.max_readers {
            if let Some((id, forgotten)) = self.others.pop_front() {
                self.kept_bytes -= forgotten.kept;
                let told = (forgotten.commands_seen, forgotten.first_untold_exit);
                self.forgotten.push_back((id, told.0, told.1));
                if self.forgotten.len() > self.max_readers {
                    self.forgotten.pop_front();
                }
            }
        }
        if self.kept_bytes > self.max_kept_bytes {
            self.keep_within_bound();
        }
        out
    }

    /// Puts back in a hidden tail read as [`Emulator::readable_hidden_tail`] gives it (its
    /// last line, the cursor's, left empty) what the served reader was given of that line
    /// before the full-screen program hid it: read at the cursor before the program took the
    /// screen (vim's `Press ENTER or type command to continue` after `:!cmd`), the line is no
    /// news while the program is up, neither erased nor to be read again once the program is
    /// back and the line goes on (an empty line there rewound the reader to the line's start,
    /// so the next read gave the whole line a second time). Rewritten since it was given
    /// (`abc`, then `\rxyz`, then the alternate screen), it is no news while the program is up
    /// either, and is read rewritten, with its text, once the program is back (a read while
    /// the program was up was marked rewritten with no text).
    ///
    /// [`Emulator::readable_hidden_tail`]: crate::term::emulator::Emulator::readable_hidden_tail
    pub(crate) fn keep_given_hidden_line(&self, tail: &mut [String]) {
        let number = self.end() + tail.len().saturating_sub(1) as u64;
        let given = self.reader.seen.iter().find(|seen| seen.number == number && !seen.complete);
        if let (Some(given), Some(last)) = (given, tail.last_mut())
            && last.is_empty()
            && !given.text.is_empty()
        {
            last.clone_from(&given.text);
        }
    }

    /// Number of the oldest retained line.
    pub(crate) fn first(&self) -> u64 {
        self.first
    }

    /// Number of the first line not yet settled (the first line of the tail).
    pub(crate) fn end(&self) -> u64 {
        self.first + self.lines.len() as u64
    }

    /// The settled line `number`, if it is retained.
    pub(crate) fn line(&self, number: u64) -> Option<&str> {
        let index = number.checked_sub(self.first)?;
        self.lines.get(usize::try_from(index).ok()?)
    }

    /// Settled rows of the logical line that continues at the top of the screen.
    pub(crate) fn pending(&self) -> &str {
        as_text(&self.pending)
    }

    /// Whether rows of a logical line that continues on the screen are settled.
    pub(crate) fn has_pending_rows(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The length in bytes of [`Transcript::pending`].
    pub(crate) fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The count of ended shell commands [`Transcript::set_commands_seen`] noted for
    /// `reader` at its last read; `None` for a reader this store does not know.
    /// (A forgotten reader's count is kept while it is among the last forgotten.)
    pub(crate) fn commands_seen(&self, reader: u64) -> Option<u64> {
        self.told(reader).map(|(seen, _)| seen)
    }

    /// The exit code of the first command with output that ended after `reader`'s last read
    /// (`Some(None)`: it ended without one), as [`Transcript::command_ended`] noted it; `None`
    /// when none did, or for a reader this store does not know.
    pub(crate) fn first_untold_exit(&self, reader: u64) -> Option<Option<i32>> {
        self.told(reader).and_then(|(_, code)| code)
    }

    /// `reader`'s count of ended commands seen and its first untold exit code.
    fn told(&self, reader: u64) -> Option<(u64, Option<Option<i32>>)> {
        let of = |cursor: &Reader| (cursor.commands_seen, cursor.first_untold_exit);
        match reader {
            0 => Some(of(&self.reader)),
            _ => {
                self.others.iter().find(|(id, _)| *id == reader).map(|(_, c)| of(c)).or_else(|| {
                    self.forgotten.iter().find(|(id, ..)| *id == reader).map(|&(_, s, c)| (s, c))
                })
            }
        }
    }

    /// Notes `count`, the shell's ended commands, for the reader a read (within
    /// [`Transcript::as_reader`]) just moved: it has seen every command's end, and code.
    pub(crate) fn set_commands_seen(&mut self, count: u64) {
        self.reader.commands_seen = count;
        self.reader.first_untold_exit = None;
    }

    /// The shell's command number `command` (the count of commands ended before it), one with
    /// output, ended with exit code `code`: each reader, forgotten ones among the last kept
    /// too, that read last before it ended and was told no code since keeps this one, the
    /// first it did not see, to be told (its own command whose wait timed out, where the
    /// shell's last code may be another reader's command's). Work in the number of readers,
    /// which is bounded.
    pub(crate) fn command_ended(&mut self, command: u64, code: Option<i32>) {
        let note = |seen: u64, untold: &mut Option<Option<i32>>| {
            if seen <= command && untold.is_none() {
                *untold = Some(code);
            }
        };
        note(self.reader.commands_seen, &mut self.reader.first_untold_exit);
        for (_, cursor) in &mut self.others {
            note(cursor.commands_seen, &mut cursor.first_untold_exit);
        }
        for (_, seen, untold) in &mut self.forgotten {
            note(*seen, untold);
        }
    }

    /// The first line the reader has not completely read.
    /// What reader `reader` has read so far, for a wait that must search only what is new.
    pub(crate) fn read_mark(&self, reader: u64) -> ReadMark {
        let cursor = match reader {
            0 => Some(&self.reader),
            _ => self.others.iter().find(|(id, _)| *id == reader).map(|(_, c)| c),
        };
        let fresh = Reader::default();
        let cursor = cursor.unwrap_or(&fresh);
        if let Some(from) = cursor.dropped_from {
            // Its copy of the screen was dropped: what its next read returns is new to it.
            return ReadMark { next: from, offset: 0, seen: Vec::new(), typed: None };
        }
        ReadMark {
            next: cursor.next,
            offset: cursor.offset,
            seen: cursor.seen.clone(),
            typed: None,
        }
    }

    /// Settles one grid row; `wrapped` rows continue into the next row.
    pub(crate) fn push_row(&mut self, text: &str, wrapped: bool) {
        self.push_row_bytes(text.as_bytes(), wrapped);
    }

    /// [`Transcript::push_row`] for a row's text as bytes, which must be UTF-8: a `str`'s,
    /// bytes checked to be ASCII as `row_text::ascii_line_text` makes them, or a row encoded
    /// by `row_text::line_bytes` (the store checks a line only when it is read: see
    /// `line_store`).
    pub(crate) fn push_row_bytes(&mut self, text: &[u8], wrapped: bool) {
        if cfg!(debug_assertions) {
            assert!(std::str::from_utf8(text).is_ok(), "a row's text is not UTF-8");
        }
        if self.pending.is_empty() && !wrapped && text.len() <= self.max_line {
            // The common case: a whole line in one row.
            self.settle(text);
            return;
        }
        self.pending.extend_from_slice(text);
        self.pending_grew(wrapped);
    }

    /// Settles one grid row whose text `write` appends to the buffer it is given: at most
    /// `most` bytes of UTF-8 text (bytes checked to be ASCII, as `row_text::ascii_line_text`
    /// writes them), written in place where the line is kept rather than copied there. When
    /// `write` returns `false` nothing is settled (what it appended is taken back) and the
    /// caller settles the row another way.
    pub(crate) fn push_row_with(
        &mut self,
        most: usize,
        wrapped: bool,
        write: impl FnOnce(&mut Vec<u8>) -> bool,
    ) -> bool {
        if self.pending.is_empty() && !wrapped && most <= self.max_line {
            // The common case: a whole line in one row, written into the store.
            let Some(len) = self.lines.push_with(most, write) else {
                return false;
            };
            self.bytes += len + 1;
            self.trim();
            return true;
        }
        let start = self.pending.len();
        if !write(&mut self.pending) {
            self.pending.truncate(start);
            return false;
        }
        self.pending_grew(wrapped);
        true
    }

    /// Settles what of the pending rows a row just added to them ends: pieces of `max_line`
    /// bytes, and the rest too unless the row is `wrapped`.
    fn pending_grew(&mut self, wrapped: bool) {
        if self.pending.len() > self.max_line {
            // Cut in place and move the rest once: cutting off one line at a time copied the
            // rest each time (a row of many marks, or a small `max_line`, made it quadratic).
            let pending = std::mem::take(&mut self.pending);
            let mut rest = pending.as_slice();
            while rest.len() > self.max_line {
                let (line, after) = rest.split_at(self.cut(rest));
                self.settle(line);
                rest = after;
            }
            self.pending = rest.to_owned();
        }
        if !wrapped {
            self.settle_pending();
        }
    }

    /// Where a logical line longer than `max_line` is cut: its first line ends there.
    fn cut(&self, line: &[u8]) -> usize {
        floor_char_boundary(line, self.max_line).max(1)
    }

    /// Splits the screen's logical lines (the unsettled tail) where they will be split when
    /// they settle (see [`Transcript::push_row`]), so that each keeps the number, and the
    /// text, it will have: a reader who read a long line on the screen does not find it
    /// changed (and read it again) once it scrolls off.
    pub(crate) fn split_long(&self, lines: &mut Vec<String>) {
        if lines.iter().all(|line| line.len() <= self.max_line) {
            return;
        }
        // Each piece is copied once: splitting the rest off again and again copied it at every
        // cut and left every piece holding the room of all that followed it (a screen-long
        // line of marks, 16 MB, took 0.5 GB and seconds a read; 13 GB in 4 KiB reads).
        let mut split = Vec::with_capacity(lines.len() + 1);
        for line in lines.drain(..) {
            if line.len() <= self.max_line {
                split.push(line);
                continue;
            }
            let mut rest = line.as_str();
            while rest.len() > self.max_line {
                let (piece, after) = rest.split_at(self.cut(rest.as_bytes()));
                split.push(piece.to_owned());
                rest = after;
            }
            split.push(rest.to_owned());
        }
        *lines = split;
    }

    /// Settles the pending rows as one line.
    fn settle_pending(&mut self) {
        let mut line = std::mem::take(&mut self.pending);
        self.settle(&line);
        // Its buffer serves the next line, unless a long line made it large.
        if line.capacity() <= 4 << 10 {
            line.clear();
            self.pending = line;
        }
    }

    /// Settles the pending rows as a line of their own, trailing blanks trimmed as a row that
    /// does not wrap has them: the row that continued them on the screen was erased (see
    /// `Emulator::end_soft_wrap`).
    pub(crate) fn end_pending(&mut self) {
        if !self.pending.is_empty() {
            let text = self.pending.iter().rposition(|&byte| byte != b' ').map_or(0, |at| at + 1);
            self.pending.truncate(text);
            self.settle_pending();
        }
    }

    /// Takes the pending rows out, while rows above the one they continue on settle as lines
    /// of their own (see `Emulator::drain_history`); [`Transcript::restore_pending`] puts
    /// them back.
    pub(crate) fn take_pending(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.pending)
    }

    /// Puts back the pending rows [`Transcript::take_pending`] took out, once the rows settled
    /// meanwhile ended their own line (nothing is pending).
    pub(crate) fn restore_pending(&mut self, pending: Vec<u8>) {
        debug_assert!(self.pending.is_empty(), "pending rows restored over others");
        self.pending = pending;
    }

    /// Settles a line of termloom's own (a notice), ending any pending line first.
    pub(crate) fn push_notice(&mut self, text: &str) {
        if !self.pending.is_empty() {
            self.settle_pending();
        }
        self.settle(text.as_bytes());
    }

    /// Keeps the lines from `line` on past the bounds until [`Transcript::unpin`].
    pub(crate) fn pin(&mut self, line: Option<u64>) {
        self.pin = line;
    }

    /// Ends a pin and drops what is over the bounds.
    pub(crate) fn unpin(&mut self) {
        if self.pin.take().is_some() {
            self.trim();
        }
    }

    /// Whether the store holds more than its bounds: trimming stopped at the pin, so ending
    /// it would drop lines a waiter has not searched yet.
    pub(crate) fn over_bounds(&self) -> bool {
        self.lines.len() > self.max_lines || (self.bytes > self.max_bytes && self.lines.len() > 1)
    }

    /// Whether a pin kept the store past twice its bounds: time to check the waiters.
    pub(crate) fn pinned_too_long(&self) -> bool {
        self.lines.len() > 2 * self.max_lines || self.bytes > 2 * self.max_bytes
    }

    fn settle(&mut self, line: &[u8]) {
        self.bytes += line.len() + 1;
        self.lines.push(line);
        self.trim();
    }

    fn trim(&mut self) {
        while self.over_bounds() {
            if self.pin.is_some_and(|pin| self.first >= pin) {
                break;
            }
            if let Some(old) = self.lines.pop_front() {
                self.bytes -= old + 1;
                self.first += 1;
            }
        }
    }

    /// The current text of line `number`: settled, or on the screen in `tail`.
    pub(crate) fn current<'a>(&'a self, number: u64, tail: &'a [String]) -> Option<&'a str> {
        if number < self.end() {
            return self.line(number);
        }
        tail.get(usize::try_from(number - self.end()).ok()?).map(String::as_str)
    }

    /// Returns what is new since the previous read: settled lines not yet returned, then the
    /// unsettled `tail` (the screen's logical lines from the top to the cursor, the first one
    /// already prefixed with [`Transcript::pending`]), or the primary screen's lines the
    /// alternate screen hides, as it hid them; `None` when there are none to take (see
    /// `Terminal::readable_tail`).
    pub(crate) fn read(&mut self, tail: Option<&[String]>, max_bytes: usize) -> Output {
        let mut out = Output::default();
        let reader = &mut self.reader;
        if reader.next < self.first {
            out.missed_lines = self.first - reader.next;
            reader.next = self.first;
            reader.offset = 0;
            reader.seen.clear();
            reader.dropped_from = None;
        }
        // Lines returned while unsettled must still read the same, or be returned again.
        let end = self.end();
        let tail_slice = tail.unwrap_or(&[]);
        let mut mismatch = None;
        // A reader whose copy of them was dropped cannot tell: they are returned again (once
        // they can be: not while the alternate screen hides only blank rows, no tail to read).
        if let Some(from) = self.reader.dropped_from.filter(|&from| tail.is_some() || from < end) {
            mismatch = Some(from.max(self.first));
            self.reader.dropped_from = None;
        }
        let checked = if mismatch.is_some() { &[][..] } else { &self.reader.seen[..] };
        for seen in checked {
            if seen.number >= end && tail.is_none() {
                continue;
            }
            match self.current(seen.number, tail_slice) {
                Some(now) if agrees(seen, now) => {}
                _ => {
                    mismatch = Some(seen.number);
                    break;
                }
            }
        }
        let reader = &mut self.reader;
        if let Some(number) = mismatch {
            let last_on_screen = end + tail_slice.len().saturating_sub(1) as u64;
            reader.next = number.min(last_on_screen);
            reader.offset = 0;
            out.rewritten = true;
        }
        reader.seen.retain(|seen| seen.number >= end && mismatch.is_none_or(|m| seen.number < m));
        out.first_line = self.reader.next;
        out.line_offset = self.reader.offset;
        out.position_forgotten = std::mem::take(&mut self.reader.forgotten);
        if out.missed_lines > 0 {
            let marker = dropped_marker(out.missed_lines);
            // Within the read's bound, like the text.
            out.text = marker[..marker.floor_char_boundary(max_bytes)].to_owned();
        }
        let mut budget = max_bytes - out.text.len();
        // Settled lines.
        while self.reader.next < end {
            let line = self.line(self.reader.next).unwrap_or("");
            let rest = line.get(self.reader.offset..).unwrap_or("");
            if rest.len() + 1 > budget {
                let take = rest.floor_char_boundary(budget);
                out.text.push_str(&rest[..take]);
                self.reader.offset += take;
                out.truncated = true;
                return out;
            }
            out.text.push_str(rest);
            out.text.push('\n');
            budget -= rest.len() + 1;
            self.reader.next += 1;
            self.reader.offset = 0;
        }
        // The unsettled tail.
        let Some(tail) = tail else { return out };
        for (index, line) in tail.iter().enumerate() {
            let number = end + index as u64;
            if number < self.reader.next {
                continue;
            }
            let last = index + 1 == tail.len();
            let offset = if number == self.reader.next { self.reader.offset } else { 0 };
            let rest = line.get(offset..).unwrap_or("");
            let newline = usize::from(!last);
            if rest.len() + newline > budget {
                let take = rest.floor_char_boundary(budget);
                out.text.push_str(&rest[..take]);
                self.reader.next = number;
                self.reader.offset = offset + take;
                self.reader.seen.push(Seen {
                    number,
                    text: line[..offset + take].to_owned(),
                    complete: false,
                });
                out.truncated = true;
                return out;
            }
            out.text.push_str(rest);
            budget -= rest.len() + newline;
            self.reader.seen.retain(|seen| seen.number != number);
            if last {
                self.reader.next = number;
                self.reader.offset = line.len();
                self.reader.seen.push(Seen { number, text: line.clone(), complete: false });
            } else {
                out.text.push('\n');
                self.reader.next = number + 1;
                self.reader.offset = 0;
                self.reader.seen.push(Seen { number, text: line.clone(), complete: true });
            }
        }
        out
    }

    /// The text from `from` to `to` (line numbers and byte offsets), reading settled lines and
    /// the `tail`; the flag is true when part of it was already dropped from the store.
    pub(crate) fn text_between(
        &self,
        tail: &[String],
        from: (u64, usize),
        to: (u64, usize),
    ) -> (String, bool) {
        let mut text = String::new();
        let mut dropped = false;
        let mut number = from.0;
        while number <= to.0 {
            let Some(line) = self.current(number, tail) else {
                dropped |= number < self.first;
                number += 1;
                continue;
            };
            let start = if number == from.0 { from.1.min(line.len()) } else { 0 };
            let end = if number == to.0 { to.1.min(line.len()) } else { line.len() };
            text.push_str(line.get(start..end.max(start)).unwrap_or(""));
            if number < to.0 {
                text.push('\n');
            }
            number += 1;
        }
        (text, dropped)
    }

    /// Marks everything up to the cursor as read.
    pub(crate) fn skip_to_end(&mut self, tail: Option<&[String]>) {
        self.read(tail, usize::MAX);
    }

    /// The retained lines numbered `range` (settled lines, then the `tail`), at most
    /// `max_bytes` of them from the range's start.
    pub(crate) fn lines(
        &self,
        tail: Option<&[String]>,
        range: std::ops::Range<u64>,
        max_bytes: usize,
    ) -> TranscriptLines {
        let tail = tail.unwrap_or(&[]);
        let end = self.end() + tail.len() as u64;
        let mut lines = Vec::new();
        let mut size = 0usize;
        for number in range.start.max(self.first)..range.end.min(end) {
            let Some(line) = self.current(number, tail) else { break };
            size += line.len() + 1;
            if size > max_bytes && !lines.is_empty() {
                break;
            }
            lines.push((number, line.to_owned()));
        }
        TranscriptLines { first: self.first, end, lines }
    }

    /// The retained transcript (settled lines and the tail), at most `max_bytes` of its end.
    pub(crate) fn retained(&self, tail: Option<&[String]>, max_bytes: usize) -> (String, bool) {
        let mut pieces: Vec<&str> = Vec::new();
        let mut size = 0;
        let tail = tail.unwrap_or(&[]);
        let all = self.lines.iter().chain(tail.iter().map(String::as_str));
        // Lines the bounds already dropped are left out too.
        let mut truncated = self.first > 0;
        for line in all.rev() {
            if size + line.len() + 1 > max_bytes {
                truncated = true;
                break;
            }
            size += line.len() + 1;
            pieces.push(line);
        }
        pieces.reverse();
        (pieces.join("\n"), truncated)
    }
}

/// The line a read's text starts with when `missed` lines were dropped from the store
/// before it (see [`Output::text`](crate::Output::text)).
pub(crate) fn dropped_marker(missed: u64) -> String {
    format!(
        "[termloom: {missed} earlier lines were dropped from the transcript before this read]\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is typed at a cursor with text after it (`sudo ` at the start of `apt update`)
    /// is echoed before that text, which is echo too: read as an answer, a wait for text in
    /// it matched the command line itself.
    #[test]
    fn the_text_after_the_cursor_is_echo_too() {
        let typed = |after: &str, echo: Option<&str>| TypedLine {
            number: 0,
            before: "$ ".into(),
            after: after.into(),
            echoed: true,
            echo: echo.map(str::to_owned),
            terminal_echoes: true,
            anchored: false,
        };
        let line = typed("apt update", Some("sudo "));
        assert_eq!(line.echo_len("sudo apt update"), "sudo apt update".len());
        assert_eq!(line.echo_len("sudo apt update?"), "sudo apt update".len());
        // A right prompt taken away on Enter: the typed text alone was added.
        let line = typed("       [0] 12:00", Some("false"));
        assert_eq!(line.echo_len("false"), 5);
        // An answer on the same line, after an echo of nothing.
        assert_eq!(typed("", Some("")).echo_len("yes"), 0);
        assert_eq!(typed("", None).echo_len("yes"), 3);
    }

    /// A line typed at `before` on line 5 (`echo` its echo, `terminal_echoes` whether the
    /// terminal echoed it), where its echo is not found yet.
    fn typed_at(before: &str, echo: Option<&str>, terminal_echoes: bool) -> TypedLine {
        TypedLine {
            number: 5,
            before: before.into(),
            after: String::new(),
            echoed: true,
            echo: echo.map(str::to_owned),
            terminal_echoes,
            anchored: false,
        }
    }

    /// A line typed while output is still unread: its echo lands further on, amid that
    /// output (`13179done`). The first line at or after the line taken that holds the echo is
    /// skipped as echo; the answer after it (`got done`) is not, nor the lines between.
    #[test]
    fn the_echo_is_looked_for_at_or_after_the_line_typed_on() {
        let t = Transcript::new(100, 10_000, 1000);
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("", Some("done"), true));
        assert_eq!(
            read.read_part(4, "done", &mut None),
            0,
            "a line before the one typed on is new"
        );
        assert_eq!(read.read_part(5, "13178", &mut None), 0, "output, not echo");
        assert_eq!(read.read_part(6, "13179done", &mut None), "13179done".len());
        assert_eq!(read.read_part(7, "got done", &mut None), 0, "the answer after the echo");
        assert_eq!(read.read_part(6, "13179done", &mut None), "13179done".len(), "still the echo");
        // An echo that cannot be told is looked for on the line typed on alone.
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("$ ", None, true));
        assert_eq!(read.read_part(6, "$ done", &mut None), 0);
        assert_eq!(read.read_part(5, "$ ls", &mut None), 4);
        // Nor is one the terminal did not echo: a program's answer with what it read.
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("", Some("x"), false));
        assert_eq!(read.read_part(5, "got x", &mut None), 0);
    }

    /// The line typed on, rewritten before its echo was seen there (`* Name: done` drawn over
    /// `Name: done` between two looks) is searched whole, never taken for the echo, and
    /// still holding the typed text it settles the echo there: the program's answer on a
    /// later line (`got done`) is no echo (it was, when no look came between the echo and the
    /// rewrite). Where the echo was found is kept by a wait given the line back, which looks
    /// nowhere else (not on the rewritten line, nor on a later line that holds the typed
    /// text).
    #[test]
    fn the_echo_is_found_once_and_never_on_the_line_rewritten() {
        let t = Transcript::new(100, 10_000, 1000);
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("Name: ", Some("done"), true));
        assert_eq!(read.read_part(5, "Name: ", &mut None), "Name: ".len(), "no echo yet");
        assert!(read.seeks_echo());
        assert_eq!(read.read_part(5, "* Name: done", &mut None), 0, "rewritten: searched whole");
        assert!(!read.seeks_echo(), "the rewritten line holds the echo");
        assert_eq!(read.read_part(6, "got done", &mut None), 0, "the answer, not the echo");
        // Rewritten, holding no echo: looked for further on.
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("Name: ", Some("done"), true));
        assert_eq!(read.read_part(5, "12", &mut None), 0);
        assert!(read.seeks_echo());
        assert_eq!(read.read_part(6, "13done", &mut None), "13done".len());
        // Found on the line typed on, then rewritten: a later wait keeps it there.
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("Name: ", Some("done"), true));
        assert_eq!(read.read_part(5, "Name: done", &mut None), "Name: done".len());
        let found = read.typed().cloned().unwrap();
        assert!(found.anchored);
        let mut read = t.read_mark(0);
        read.past_typed(found);
        assert_eq!(read.read_part(5, "* Name: done", &mut None), 0);
        assert_eq!(read.read_part(6, "done", &mut None), 0, "the answer, not the echo");
    }

    /// Typed text ending in blanks (`done␠␠`) is kept without them at the end of a line, as
    /// the transcript keeps every line: the line typed on holds the echo, and the answer
    /// holding the typed text blanks and all (`got done␠␠.`) is no echo. It was taken for
    /// the echo, the line typed on never holding `done␠␠`.
    #[test]
    fn an_echo_ending_in_blanks_is_found_where_the_line_ends() {
        let t = Transcript::new(100, 10_000, 1000);
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("Name: ", Some("done  "), true));
        assert_eq!(read.read_part(5, "Name: done", &mut None), "Name: done".len());
        assert!(!read.seeks_echo());
        assert_eq!(read.read_part(6, "got done  .", &mut None), 0, "the answer");
        // An answer written over the echo's blanks on the line typed on is no echo.
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("Name: ", Some("done  "), true));
        // (The echo is what agrees with the typed text: its first blank too.)
        assert_eq!(read.read_part(5, "Name: done got done", &mut None), "Name: done ".len());
        assert!(!read.seeks_echo());
        // Past a flood, at a line's end, or in full before more of the line.
        for (line, echo_end) in [("13179done", 9), ("1done  x", 7)] {
            let mut read = t.read_mark(0);
            read.past_typed(typed_at("", Some("done  "), true));
            assert_eq!(read.read_part(5, "13178", &mut None), 0);
            assert_eq!(read.read_part(6, "got done x", &mut None), 0, "blanks missing");
            assert_eq!(read.read_part(7, line, &mut None), echo_end);
            assert!(!read.seeks_echo());
        }
        // A blank echo is looked for on the line typed on alone.
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("Name: ", Some("  "), true));
        assert_eq!(read.read_part(5, "Name:", &mut None), 0);
        assert!(!read.seeks_echo());
    }

    /// Lines at or after the one typed on dropped before a wait searched them: the echo not
    /// found may have been among them, so a later line holding the typed text (`finished
    /// job`) is the answer, not the echo.
    #[test]
    fn an_echo_dropped_unsearched_is_looked_for_no_more() {
        let t = Transcript::new(100, 10_000, 1000);
        let mut read = t.read_mark(0);
        read.past_typed(typed_at("", Some("job"), true));
        read.dropped(3, 5);
        assert!(read.seeks_echo(), "lines before the one typed on");
        read.dropped(3, 20005);
        assert!(!read.seeks_echo());
        assert_eq!(read.read_part(20006, "finished job", &mut None), 0);
    }

    fn tail(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn prompt_is_continued_not_repeated() {
        let mut t = Transcript::new(100, 10_000, 1000);
        let out = t.read(Some(&tail(&["$ "])), 1000);
        assert_eq!(out.text, "$ ");
        let out = t.read(Some(&tail(&["$ ls", "a  b", "$ "])), 1000);
        assert_eq!(out.text, "ls\na  b\n$ ");
        assert!(!out.rewritten);
        // The lines scroll off and settle; the reader goes on where it was.
        t.push_row("$ ls", false);
        t.push_row("a  b", false);
        let out = t.read(Some(&tail(&["$ echo", ""])), 1000);
        assert_eq!(out.text, "echo\n");
        assert_eq!(out.first_line, 2);
        assert_eq!(out.line_offset, 2);
        // A read from a line's start continues none; one after a prompt continues it even
        // when nothing was added to it.
        let out = t.read(Some(&tail(&["$ echo", "", "$ "])), 1000);
        assert_eq!((out.text.as_str(), out.line_offset), ("\n$ ", 0));
        let out = t.read(Some(&tail(&["$ echo", "", "$ ", "x"])), 1000);
        assert_eq!((out.text.as_str(), out.line_offset), ("\nx", 2));
    }

    #[test]
    fn trailing_blank_of_prompt_does_not_count_as_rewrite() {
        let mut t = Transcript::new(100, 10_000, 1000);
        assert_eq!(t.read(Some(&tail(&["$ "])), 1000).text, "$ ");
        t.push_row("$", false);
        let out = t.read(Some(&tail(&["$ "])), 1000);
        assert_eq!(out.text, "\n$ ");
        assert!(!out.rewritten);
    }

    #[test]
    fn rewritten_row_is_returned_again_in_full() {
        let mut t = Transcript::new(100, 10_000, 1000);
        assert_eq!(t.read(Some(&tail(&["progress 10%"])), 1000).text, "progress 10%");
        let out = t.read(Some(&tail(&["progress 55%"])), 1000);
        assert_eq!(out.text, "progress 55%");
        assert!(out.rewritten);
        let out = t.read(Some(&tail(&["progress 55%", "done", ""])), 1000);
        assert_eq!(out.text, "\ndone\n");
        assert!(!out.rewritten);
    }

    #[test]
    fn truncated_reads_resume_exactly() {
        let mut t = Transcript::new(100, 10_000, 1000);
        for i in 0..10 {
            t.push_row(&format!("line {i}"), false);
        }
        let mut all = String::new();
        loop {
            let out = t.read(Some(&tail(&[""])), 13);
            all.push_str(&out.text);
            if !out.truncated {
                break;
            }
        }
        let expected: String = (0..10).map(|i| format!("line {i}\n")).collect();
        assert_eq!(all, expected);
    }

    #[test]
    fn dropped_lines_are_counted() {
        let mut t = Transcript::new(3, 10_000, 1000);
        for i in 0..10 {
            t.push_row(&format!("{i}"), false);
        }
        let out = t.read(None, 1000);
        assert_eq!(out.missed_lines, 7);
        assert_eq!(out.first_line, 7);
        assert!(out.text.ends_with("7\n8\n9\n"), "{:?}", out.text);
        assert!(out.text.starts_with("[termloom: 7 earlier lines"));
        // The retained transcript says it is not all there.
        assert!(t.retained(None, 1000).1);
    }

    /// The dropped-lines marker counts against a read's bound like the text.
    #[test]
    fn a_read_with_dropped_lines_stays_within_its_bound() {
        for max in [4, 40, 100, 256] {
            let mut t = Transcript::new(3, 10_000, 1000);
            for i in 0..10 {
                t.push_row(&format!("line {i}"), false);
            }
            let mut all = String::new();
            loop {
                let out = t.read(None, max);
                assert!(out.text.len() <= max, "{max}: {:?}", out.text);
                all.push_str(&out.text);
                if !out.truncated {
                    break;
                }
            }
            assert!(all.ends_with("line 7\nline 8\nline 9\n"), "{max}: {all:?}");
        }
        let mut t = Transcript::new(100, 10_000, 1000);
        t.push_row("kept", false);
        assert!(!t.retained(None, 1000).1, "nothing was dropped");
    }

    #[test]
    fn wrapped_rows_join_and_long_lines_split() {
        let mut t = Transcript::new(100, 10_000, 8);
        t.push_row("abcd", true);
        t.push_row("efgh", true);
        t.push_row("ij", false);
        assert_eq!(t.read(None, 1000).text, "abcdefgh\nij\n");
    }

    /// A screen-long line is split into pieces that hold only their own text: splitting the
    /// rest off again and again left every piece holding the room of all that followed it (a
    /// 16 MB line of marks in 256 KiB pieces took 0.5 GB a read, 13 GB in 4 KiB ones).
    #[test]
    fn long_lines_split_into_pieces_that_hold_only_their_own_text() {
        let line: String = "é".repeat(1 << 20);
        let t = Transcript::new(100, 10_000, 1001);
        let mut lines = vec!["short".to_owned(), line.clone(), "x".to_owned()];
        t.split_long(&mut lines);
        assert_eq!(lines.len(), 2 + (2usize << 20).div_ceil(1000));
        assert_eq!(lines[1].len(), 1000, "cut at a character's boundary");
        assert_eq!(lines[1..lines.len() - 1].concat(), line);
        let room: usize = lines.iter().map(String::capacity).sum();
        assert!(room < 4 << 20, "the pieces hold {room} bytes for 2 MiB of text");
    }

    /// The store's lines are bytes, cut where a character begins: a cut found on the bytes is
    /// the one `str` finds, at every position of text of one- to four-byte characters.
    #[test]
    fn a_cut_in_bytes_falls_where_a_character_begins() {
        let text = "aé€𝄞 b\u{301}cÿ€€é𝄞𝄞xÿ";
        for at in 0..=text.len() + 2 {
            let expected = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i));
            assert_eq!(Some(floor_char_boundary(text.as_bytes(), at)), expected, "at {at}");
        }
    }

    /// A row of many-byte characters settled as bytes, longer than a line may be, comes back
    /// as the same text in pieces cut between characters, wrapped or not, copied or written
    /// in place; a row whose writer gives up settles nothing.
    #[test]
    fn rows_settled_as_bytes_are_cut_between_characters() {
        for (wrapped, in_place) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut t = Transcript::new(1000, 1 << 20, 10);
            let row = "é€𝄞".repeat(7);
            let write = |out: &mut Vec<u8>| {
                out.extend_from_slice(row.as_bytes());
                true
            };
            if in_place {
                assert!(t.push_row_with(row.len(), wrapped, write));
            } else {
                t.push_row_bytes(row.as_bytes(), wrapped);
            }
            let given_up = |out: &mut Vec<u8>| {
                out.extend_from_slice(b"xyz");
                false
            };
            assert!(!t.push_row_with(3, false, given_up));
            assert!(t.push_row_with(2, false, |out| {
                out.extend_from_slice(b"ab");
                true
            }));
            let lines: Vec<&str> = (t.first()..t.end()).filter_map(|n| t.line(n)).collect();
            assert!(lines.iter().all(|line| line.len() <= 10), "{lines:?}");
            assert_eq!(lines.concat(), row.clone() + "ab", "wrapped {wrapped}");
            if !wrapped {
                assert_eq!(lines.last(), Some(&"ab"), "an unwrapped row ends its line");
            }
        }
    }

    /// A row longer than a line may be (a small `max_read_bytes`) is settled in pieces, each
    /// cut once: cutting one piece off at a time copied the rest at every cut (here 137 GB).
    #[test]
    fn a_long_row_settles_in_pieces_cut_once() {
        let mut t = Transcript::new(1 << 20, 64 << 20, 16);
        let started = std::time::Instant::now();
        t.push_row(&"x".repeat(2 << 20), false);
        let took = started.elapsed();
        assert_eq!(t.end(), (2 << 20) / 16);
        assert!(took < std::time::Duration::from_secs(3), "settling took {took:?}");
    }

    /// Each reader's copy of the screen it read is kept to tell what was rewritten since; a
    /// server reads every session as 1,024 readers, so a large screen made them take gigabytes
    /// per session. They stay within `readers_tail_bytes` (besides the most recent reader's),
    /// and a reader whose copy was dropped still reads every line: what it had read of the
    /// screen comes again, marked `rewritten`, then it goes on as before.
    #[test]
    fn readers_copies_of_the_screen_stay_within_their_bound() {
        let bound = 1 << 20;
        let mut t = Transcript::new(10_000, 4 << 20, 256 << 10).with_readers(1024, bound);
        // A large screen: 100 rows of 500 columns, the cursor on the last.
        let row = |n: usize| format!("{n:04} {}", "x".repeat(495));
        let screen: Vec<String> = (0..100).map(row).collect();
        let everything = screen.join("\n");
        for reader in 1..=1000 {
            let out = t.as_reader(reader, |t| t.read(Some(&screen), 256 << 10));
            assert_eq!(out.text, everything, "reader {reader}");
            assert!(!out.rewritten);
        }
        let copy = t.read_mark(1000).seen.len() * std::mem::size_of::<Seen>() + 100 * 500;
        let kept = t.readers_kept_bytes();
        assert!(kept <= bound + copy, "the readers keep {kept} bytes, over {bound} + {copy}");
        assert!(kept > bound / 2, "the bound is used, not emptied: {kept}");

        // The output goes on: two rows scroll off and settle, two new ones come.
        t.push_row(&screen[0], false);
        t.push_row(&screen[1], false);
        let mut next: Vec<String> = screen[2..].to_vec();
        next.extend([row(100), row(101)]);
        let tail: Vec<String> = next[..next.len() - 1].iter().cloned().chain(["".into()]).collect();
        // Reader 1000's copy was kept: it gets just what is new.
        let out = t.as_reader(1000, |t| t.read(Some(&tail), 256 << 10));
        assert!(!out.rewritten);
        assert_eq!(out.text, format!("\n{}\n", row(100)));
        // Reader 1's was dropped: it gets what it had read of the screen again, marked so,
        // and then what is new; no line is missing.
        assert!(t.others.iter().any(|(id, c)| *id == 1 && c.dropped_from == Some(0)));
        assert_eq!(t.read_mark(1).first_line(), 0, "new to a wait, as to the next read");
        let out = t.as_reader(1, |t| t.read(Some(&tail), 256 << 10));
        assert!(out.rewritten, "a dropped copy is reported as a rewrite");
        assert_eq!(out.first_line, 0);
        let expected: String = (0..101).map(|n| row(n) + "\n").collect();
        assert_eq!(out.text, expected);
        // Then it reads on as before.
        let out = t.as_reader(1, |t| t.read(Some(&tail), 256 << 10));
        assert_eq!((out.text.as_str(), out.rewritten), ("", false));
        t.push_row(&tail[0], false);
        let out = t.as_reader(1, |t| t.read(Some(&tail[1..]), 256 << 10));
        assert_eq!((out.text.as_str(), out.rewritten), ("", false));
        assert!(t.readers_kept_bytes() <= bound + copy);
    }

    /// A reader forgotten past `max_readers` starts over from the oldest retained line, and
    /// its read says so (it read the same text as new); a reader never seen starts there too,
    /// unflagged, and a reader forgotten before the last `max_readers` forgotten is taken for
    /// a new one.
    #[test]
    fn a_forgotten_reader_is_told_it_starts_over() {
        let mut t = Transcript::new(100, 10_000, 1000).with_readers(2, 1 << 20);
        t.push_row("one", false);
        let screen = tail(&["two", ""]);
        let read = |t: &mut Transcript, reader| t.as_reader(reader, |t| t.read(Some(&screen), 999));
        for reader in 1..=3 {
            let out = read(&mut t, reader);
            assert_eq!((out.text.as_str(), out.position_forgotten), ("one\ntwo\n", false));
        }
        // Reader 1 was forgotten when reader 3 read; lines dropped since are not reported as
        // missed (a new reader is told of them).
        t.push_row("two", false);
        for _ in 0..99 {
            t.push_row("more", false);
        }
        let screen = tail(&[""]);
        let read = |t: &mut Transcript, reader| t.as_reader(reader, |t| t.read(Some(&screen), 999));
        let out = read(&mut t, 1);
        assert_eq!((out.missed_lines, out.position_forgotten), (0, true));
        assert!(out.text.ends_with("more\nmore\n"), "{:?}", out.text);
        assert!(read(&mut t, 8).missed_lines > 0, "a new reader");
        let out = read(&mut t, 1);
        assert_eq!((out.text.as_str(), out.position_forgotten), ("", false));
        // Readers 8, 4, 5 and 6 push readers 3, 8, 1 and 4 out (after 2): the forgotten kept
        // are the last two.
        for reader in 4..=6 {
            assert!(!read(&mut t, reader).position_forgotten, "reader {reader}");
        }
        assert_eq!(t.forgotten.iter().map(|(id, ..)| *id).collect::<Vec<_>>(), [1, 4]);
        assert!(!read(&mut t, 2).position_forgotten, "forgotten too long ago to tell");
        assert!(read(&mut t, 4).position_forgotten);
    }

    #[test]
    fn erased_screen_is_read_again() {
        let mut t = Transcript::new(100, 10_000, 1000);
        assert_eq!(t.read(Some(&tail(&["one", "two", ""])), 1000).text, "one\ntwo\n");
        // The screen is erased without scrolling and new text is written at the top.
        let out = t.read(Some(&tail(&["new"])), 1000);
        assert!(out.rewritten);
        assert_eq!(out.text, "new");
        assert_eq!(out.first_line, 0);
    }
}
