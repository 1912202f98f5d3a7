//! A light scanner that runs over PTY bytes ahead of the emulator and tells the feed loop
//! where to stop.
//!
//! alacritty's grid keeps a small history that the engine drains into the transcript after
//! every slice it feeds. The scanner chooses those slices so that:
//! - no slice can scroll more lines into the history than it holds (a conservative count:
//!   every byte outside an escape sequence counts one line, `CSI S`, `CSI J` and `CSI M` count
//!   a full screen, `CSI n b` (REP) counts the lines its cells fill);
//! - no slice costs more work than the turn has left: work is counted in cells, one per byte
//!   plus what a sequence touches beyond its bytes (a screen for an erase, a scroll or a
//!   switch to or from the alternate screen, two for a reset, a row for a line erase, `n`
//!   cells for a repetition, a row per count for a backward tab, a row per text byte in
//!   insert mode), so a session's turn is bounded in time, not only in bytes;
//! - OSC strings are held back by the feed loop (which bounds their length) from their
//!   introducer to their terminator, and OSC 133 shell-integration marks, which the emulator
//!   ignores, are reported where they end, even when split across reads;
//! - DCS strings are kept, up to `queries::DCS_QUERY` bytes, and those that are queries
//!   (`DCS $ q`, `DCS + q`) reported where they end (`ESC \`, or C1's ST as vte takes it),
//!   so that the feed loop answers them (alacritty drops every DCS string);
//! - the control sequences termloom handles itself (see the `rewrite` module) stop the scan at
//!   their final byte, before the parser has seen it.
//!
//! Bytes outside escape sequences are skipped to the next ESC (two eight-byte words, then
//! `memchr`; looked for only as far as the budgets let the text go), and a CSI sequence that
//! arrived whole is taken in one step, its parameters decoded only for the sequences counted or
//! handled here; a sequence split across reads goes a byte at a time. Outside insert mode and
//! scrolling regions, text and the whole sequences that need nothing here go through one tight
//! loop, the counts in registers ([`Scanner::plain_ground`]), which takes exactly what the
//! general path would: SGR, the cursor moves `CSI C`, `D`, `E`, `F`, `G`, `H`, `f`, `d`,
//! `` ` ``, `a`, `I` and the other final bytes neither counted nor handled; the moves the feed loop
//! handles (`CSI A`, `B`, `e`) and the counted `CSI Z` stop it, as every counted or handled
//! sequence does. So the scanner costs little next to the emulator itself (BENCHMARKS.md §19,
//! §23, §27).

use crate::term::queries::DCS_QUERY;

/// The most OSC payload bytes kept while looking for an OSC 133 mark.
const OSC_PREFIX: usize = 64;

/// The most CSI parameter bytes kept; a longer parameter list is not decoded.
const CSI_PARAMS: usize = 64;
/// The most parameters decoded from one control sequence.
const MAX_PARAMS: usize = 16;

/// An OSC 133 shell-integration mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptMark {
    /// `A`: the prompt starts.
    PromptStart,
    /// `B`: the prompt ends; the user's input starts.
    InputStart,
    /// `C`: the command's output starts.
    OutputStart,
    /// `D;code`: the command ended, with its exit code when the shell gave one.
    CommandEnd(Option<i32>),
}

/// The key a session's shell-integration marks carry (`133;D;0;k=KEY`), when termloom added
/// the marks: sixteen hexadecimal digits made for the session. Marks without it are ignored,
/// so a program's output (a log with raw escape sequences shown by `cat`, a program that
/// prints marks of its own) cannot end a command or draw a prompt. It is no secret from a
/// program that reads the shell's memory or its first environment (see SECURITY.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MarkKey([u8; 16]);

impl MarkKey {
    /// A new key, from the standard library's randomly seeded hasher, the time and the
    /// process: different for every session.
    pub(crate) fn generate() -> MarkKey {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        hasher.write_u128(now.map_or(0, |d| d.as_nanos()));
        hasher.write_u32(std::process::id());
        let value = hasher.finish();
        let mut digits = [0u8; 16];
        for (i, digit) in digits.iter_mut().enumerate() {
            *digit = b"0123456789abcdef"[(value >> (60 - 4 * i)) as usize & 0xf];
        }
        MarkKey(digits)
    }

    /// A key of the given digits (the fuzz target's, which must be the same on every run).
    pub(crate) fn from_digits(digits: [u8; 16]) -> MarkKey {
        MarkKey(digits)
    }

    /// The key's text.
    pub(crate) fn as_str(&self) -> &str {
        // Cannot fail: hexadecimal digits.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// The decoded parameters of a control sequence: the first value of each parameter (as the
/// parser takes them: sub-parameters after `:` are skipped), saturated at `u16::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    values: [u16; MAX_PARAMS],
    len: u8,
    /// More parameters or parameter bytes than are decoded: the list is incomplete.
    pub overflow: bool,
}

impl Params {
    fn parse(bytes: &[u8], overflow: bool) -> Params {
        let mut params = Params { values: [0; MAX_PARAMS], len: 0, overflow };
        if bytes.is_empty() {
            return params;
        }
        for param in bytes.split(|&b| b == b';') {
            if usize::from(params.len) == MAX_PARAMS {
                params.overflow = true;
                break;
            }
            let first = param.split(|&b| b == b':').next().unwrap_or(&[]);
            let value = first.iter().fold(0u16, |v, &b| {
                v.saturating_mul(10).saturating_add(u16::from(b.wrapping_sub(b'0')).min(9))
            });
            params.values[usize::from(params.len)] = value;
            params.len += 1;
        }
        params
    }

    /// The decoded values.
    pub(crate) fn values(&self) -> &[u16] {
        &self.values[..usize::from(self.len)]
    }

    /// Parameter `i`, with 0 or absent meaning `default` (as the parser reads counts).
    pub(crate) fn or(&self, i: usize, default: u16) -> u16 {
        match self.values().get(i) {
            Some(&v) if v != 0 => v,
            _ => default,
        }
    }
}

/// A control sequence whose final byte the feed loop handles itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sequence {
    /// `CSI [private] params final`, without intermediate bytes.
    Csi {
        /// The private marker (`?`, `>`, `<`, `=`), if any.
        private: Option<u8>,
        /// The parameters.
        params: Params,
        /// The final byte.
        action: u8,
    },
    /// `ESC final`, without intermediate bytes: `7`, `8` or `c`.
    Esc(u8),
}

/// Why a scan stopped before the end of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Every byte given was scanned.
    End,
    /// The line or work budget is spent: drain the history (or end the turn), then go on.
    Budget,
    /// The last scanned byte is an OSC introducer (`]` after ESC): feed what is before it
    /// and hold it and the OSC string back.
    OscStart,
    /// The OSC string being held ends with the scanned part (which includes a BEL, CAN or SUB
    /// terminator, but not an ESC: the ESC, left unscanned, is the next sequence's start), with
    /// the OSC 133 mark it carried.
    OscEnd(Option<PromptMark>),
    /// The last scanned byte is the final byte of this sequence: feed what is before it, then
    /// let the `rewrite` module decide what the parser gets instead of it.
    Sequence(Sequence),
    /// The last scanned byte ends a DCS string that is a query, `DCS $ q` or `DCS + q` (the
    /// `\` of its `ESC \`, or C1's ST): feed it, then answer it ([`Scanner::dcs`], the
    /// `queries` module).
    DcsEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    EscapeIntermediate,
    Csi,
    Osc,
    String,
    StringEscape,
}

/// The scanner's state, carried across reads.
#[derive(Debug)]
pub(crate) struct Scanner {
    state: State,
    params: [u8; CSI_PARAMS],
    params_len: usize,
    csi_intermediate: bool,
    esc_hash: bool,
    osc: [u8; OSC_PREFIX],
    osc_len: usize,
    /// The DCS string being scanned (the string state started with `ESC P`).
    in_dcs: bool,
    /// Its first bytes, after `ESC P`.
    dcs: [u8; DCS_QUERY],
    /// Its length so far (saturating; past [`DCS_QUERY`], only counted).
    dcs_len: usize,
    cols: usize,
    rows: usize,
    /// Lines counted since the last [`Scanner::reset_lines`].
    lines: usize,
    /// Work counted since the last [`Scanner::take_work`].
    work: usize,
    /// Insert mode (IRM, `CSI 4 h`) is on: each character printed shifts the rest of its
    /// row, so a text byte counts a row.
    insert: bool,
    /// A scrolling region other than the whole screen is set (DECSTBM): alacritty scrolls it
    /// a row at a time, so a line feed at its bottom moves every row of the screen (a row
    /// of work, the screen's height, for each line feed).
    region: bool,
    /// The key OSC 133 marks must carry to count, when termloom added them.
    mark_key: Option<MarkKey>,
    /// Cursor moves to the screen's top-left (`CSI H`, `CSI 1;1H`) scanned so far.
    homes: u64,
    /// What was scanned last is a move to the top-left (see [`Scanner::follows_home`]).
    last_home: bool,
    /// The last CSI sequence scanned directly followed a move to the top-left.
    follows_home: bool,
    /// A move to the top-left was scanned since the last cursor save or restore (told by
    /// [`Scanner::cursor_saved`] and [`Scanner::cursor_restored`]), erase of the screen
    /// (`CSI J`) or reset (RIS): a restore now may undo it.
    home_since_save: bool,
    /// Moves to the top-left a restore undid (see [`Scanner::undone_homes`]).
    undone_homes: u64,
    /// Origin mode (DECOM) is on with a scrolling region below the screen's top: a cursor
    /// position is counted from the region's top, so `CSI H` moves there, not to the
    /// screen's top-left (told by [`Scanner::set_origin_below_top`]).
    origin_below_top: bool,
    /// The escape sequence being scanned designates a character set (`ESC ( B`): it moves
    /// nothing, so it keeps a move to the top-left the last thing scanned.
    esc_charset: bool,
    /// Text and plain sequences go the general way only (the reference `plain_ground` is
    /// tested against).
    #[cfg(test)]
    general_only: bool,
    /// Calls of `plain_ground` (a test counts them).
    #[cfg(test)]
    plain_runs: usize,
    /// Bytes searched for an ESC (a test counts them).
    #[cfg(test)]
    searched: usize,
}

impl Scanner {
    pub(crate) fn new(cols: u16, rows: u16) -> Self {
        Scanner {
            state: State::Ground,
            params: [0; CSI_PARAMS],
            params_len: 0,
            csi_intermediate: false,
            esc_hash: false,
            osc: [0; OSC_PREFIX],
            osc_len: 0,
            in_dcs: false,
            dcs: [0; DCS_QUERY],
            dcs_len: 0,
            cols: usize::from(cols),
            rows: usize::from(rows),
            lines: 0,
            work: 0,
            insert: false,
            region: false,
            mark_key: None,
            homes: 0,
            last_home: false,
            follows_home: false,
            home_since_save: false,
            undone_homes: 0,
            origin_below_top: false,
            esc_charset: false,
            #[cfg(test)]
            general_only: false,
            #[cfg(test)]
            plain_runs: 0,
            #[cfg(test)]
            searched: 0,
        }
    }

    /// The DCS string that ended where the scan stopped with [`Stop::DcsEnd`]: its bytes
    /// after `ESC P` (at most [`DCS_QUERY`]), and whether it was longer (and is cut).
    pub(crate) fn dcs(&self) -> (&[u8], bool) {
        (&self.dcs[..self.dcs_len.min(DCS_QUERY)], self.dcs_len > DCS_QUERY)
    }

    /// Counts only OSC 133 marks that carry `key` (`;k=KEY` among their parameters).
    pub(crate) fn require_mark_key(&mut self, key: MarkKey) {
        self.mark_key = Some(key);
    }

    /// Follows the terminal's insert mode (the scanner also follows `CSI 4 h` and `CSI 4 l`
    /// itself within what it scans).
    pub(crate) fn set_insert(&mut self, on: bool) {
        self.insert = on;
    }

    /// Follows where a move to the top-left (`CSI H`) really goes, as the terminal says
    /// between scans: `on` while origin mode is on with a scrolling region below the screen's
    /// top, where it goes to the region's top and is no move to the screen's top-left. What
    /// changes it (DECSTBM, DECOM, DECRC, mode 1049, RIS) stops the scan, so it holds
    /// through each.
    pub(crate) fn set_origin_below_top(&mut self, on: bool) {
        self.origin_below_top = on;
    }

    /// Follows the terminal's size (the cost of screen-wide sequences depends on it).
    pub(crate) fn resize(&mut self, cols: u16, rows: u16) {
        self.cols = usize::from(cols);
        self.rows = usize::from(rows);
        // A resize sets the scrolling region to the whole screen.
        self.region = false;
    }

    /// Starts a new line budget (after the history was drained).
    pub(crate) fn reset_lines(&mut self) {
        self.lines = 0;
    }

    /// Counts lines and work the feed loop caused itself (a repetition it split).
    pub(crate) fn add(&mut self, lines: usize, work: usize) {
        self.lines += lines;
        self.work += work;
    }

    /// How many cursor moves to the screen's top-left (`CSI H`, `CSI 1;1H`, `CSI f`) were
    /// scanned: a program that starts each frame there redraws the whole screen, as `top`
    /// does on the primary screen, where a spinner redraws a row.
    pub(crate) fn homes(&self) -> u64 {
        self.homes
    }

    /// How many of the moves to the top-left ([`Scanner::homes`]) a cursor restore undid
    /// before the next move there or an erase of the screen (see
    /// [`Scanner::cursor_restored`]): a status line redrawn from the top-left (`ESC 7`,
    /// `CSI H`, its text, `ESC 8`; or `CSI s` … `CSI u`) is no frame drawn there.
    pub(crate) fn undone_homes(&self) -> u64 {
        self.undone_homes
    }

    /// A cursor save (`ESC 7`, `CSI s`), the last sequence scanned (the scan stops at each),
    /// was applied: a restore goes back here, not to before a move to the top-left scanned
    /// earlier.
    pub(crate) fn cursor_saved(&mut self) {
        self.home_since_save = false;
    }

    /// A cursor restore (`ESC 8`, `CSI u`), the last sequence scanned (the scan stops at
    /// each), was applied, `away` whether it takes the cursor away from the top-left (the
    /// cursor it restores is elsewhere: the terminal's own, which the caller reads): it undid
    /// the last move to the top-left if one was scanned since the last save or restore, erase
    /// of the screen or reset. Decided at the restore, so the count does not depend on how
    /// the output was split into reads.
    pub(crate) fn cursor_restored(&mut self, away: bool) {
        if std::mem::take(&mut self.home_since_save) && away {
            self.undone_homes += 1;
        }
    }

    /// Whether the last CSI sequence scanned directly followed a move to the top-left
    /// (`CSI H`, `CSI 1;1H`), no text, control character or other sequence between but ones
    /// that move nothing (SGR, mode sets and resets, charset designations: `ESC ( B`): `clear`'s
    /// `CSI H CSI J` where the terminal's description has no `ED 2`, where a line editor that
    /// reached the corner by relative moves (prompt_toolkit) erases down after those.
    pub(crate) fn follows_home(&self) -> bool {
        self.follows_home
    }

    /// Notes a CSI sequence scanned, its final byte `action`, `home` whether it moves to the
    /// top-left.
    fn csi_scanned(&mut self, action: u8, home: bool) {
        let home = home && !self.origin_below_top;
        if home {
            self.homes += 1;
            self.home_since_save = true;
        } else if action == b'J' {
            // A clear (`CSI H CSI J`) or an erase below a move home: a frame drawn there.
            self.home_since_save = false;
        }
        if matches!(action, b'm' | b'h' | b'l') {
            // SGR and modes move nothing (resetting origin mode homes the cursor).
            return;
        }
        self.follows_home = self.last_home;
        self.last_home = home;
    }

    /// The work counted since the last call.
    pub(crate) fn take_work(&mut self) -> usize {
        std::mem::take(&mut self.work)
    }

    /// Scans `bytes` until `line_budget` lines or `work_budget` work are spent, or something
    /// needs the feed loop's attention; returns how many bytes were scanned, and why it
    /// stopped.
    pub(crate) fn scan(
        &mut self,
        bytes: &[u8],
        line_budget: usize,
        work_budget: usize,
    ) -> (usize, Stop) {
        let mut i = 0;
        while i < bytes.len() {
            if self.lines >= line_budget || self.work >= work_budget {
                return (i, Stop::Budget);
            }
            match self.state {
                State::Ground => {
                    #[cfg(test)]
                    let general_only = self.general_only;
                    #[cfg(not(test))]
                    let general_only = false;
                    if !self.insert && !self.region && !general_only {
                        let (n, at_escape) =
                            self.plain_ground(&bytes[i..], line_budget, work_budget);
                        i += n;
                        if at_escape {
                            // Before an ESC it leaves, the budgets not spent: straight to it
                            // (not round again to the loop and the run before it).
                            let (n, stop) =
                                self.ground_escape(&bytes[i..], line_budget, work_budget);
                            i += n;
                            match stop {
                                Some(stop) => return (i, stop),
                                None => continue,
                            }
                        }
                        if n > 0 {
                            continue;
                        }
                    }
                    let rest = &bytes[i..];
                    // In insert mode a character shifts the rest of its row (no division for
                    // the plain case: this runs for every run of text between sequences).
                    let (cost, work_room) = match self.insert {
                        false => (1, work_budget - self.work),
                        true => {
                            let cols = self.cols.max(1);
                            (cols, (work_budget - self.work).div_ceil(cols))
                        }
                    };
                    let room = (line_budget - self.lines).min(work_room);
                    let mut run = self.escape_within(rest, room);
                    // In a scrolling region, a line feed counts the screen's height: the
                    // text before it is taken first, then the line feed alone.
                    let feed = match self.region {
                        true => memchr::memchr3(b'\n', 0x0b, 0x0c, &rest[..run]),
                        false => None,
                    };
                    if let Some(at) = feed {
                        run = at;
                    }
                    let take = run.min(room);
                    if take > 0 {
                        self.last_home = false;
                    }
                    self.lines += take;
                    self.work += take * cost;
                    i += take;
                    if take < run || i == bytes.len() {
                        continue;
                    }
                    if feed.is_some() {
                        self.lines += 1;
                        self.work += self.rows;
                        i += 1;
                        continue;
                    }
                    // At an ESC.
                    let (n, stop) = self.ground_escape(&bytes[i..], line_budget, work_budget);
                    i += n;
                    match stop {
                        Some(stop) => return (i, stop),
                        None => continue,
                    }
                }
                State::Csi => {
                    // Parameter bytes in a tight loop.
                    let params = param_len(&bytes[i..]);
                    for &b in &bytes[i..i + params] {
                        if self.params_len < CSI_PARAMS {
                            self.params[self.params_len] = b;
                        }
                        self.params_len += 1;
                    }
                    self.work += params;
                    i += params;
                    if i == bytes.len() {
                        break;
                    }
                }
                State::Osc => {
                    let rest = &bytes[i..];
                    let run = rest
                        .iter()
                        .position(|&b| matches!(b, 0x07 | 0x18 | 0x1a | 0x1b))
                        .unwrap_or(rest.len());
                    let keep = run.min(OSC_PREFIX - self.osc_len);
                    self.osc[self.osc_len..self.osc_len + keep].copy_from_slice(&rest[..keep]);
                    self.osc_len += keep;
                    self.work += run;
                    i += run;
                    if i == bytes.len() {
                        break;
                    }
                    self.state = State::Ground;
                    let mark = self.osc_mark();
                    if mark.is_some() {
                        // The feed loop places a mark in the transcript from the screen's
                        // text down to the cursor (`Emulator::cursor_position`): a screen.
                        self.work += self.cols * self.rows;
                    }
                    if bytes[i] == 0x1b {
                        // The ESC ends the string and starts the next sequence.
                        return (i, Stop::OscEnd(mark));
                    }
                    self.work += 1;
                    return (i + 1, Stop::OscEnd(mark));
                }
                _ => {}
            }
            let byte = bytes[i];
            self.work += 1;
            i += 1;
            if let Some(stop) = self.step(byte) {
                return (i, stop);
            }
        }
        (i, Stop::End)
    }

    /// Where the next ESC is in `bytes`, looked for only as far as `room` bytes of text may
    /// go and one more (an ESC right after them is taken alone where the budget runs out): a
    /// run the budget cuts short is not searched to its end. Returns `room + 1` when there is
    /// no ESC before (or the length of `bytes`, when shorter).
    fn escape_within(&mut self, bytes: &[u8], room: usize) -> usize {
        let window = &bytes[..bytes.len().min(room.saturating_add(1))];
        #[cfg(test)]
        {
            self.searched += window.len();
        }
        find_escape(window)
    }

    /// Takes the ESC `bytes` begins with, in the ground state with the budgets not spent, and
    /// the CSI sequence it starts when that arrived whole ([`Scanner::whole_csi`]): returns
    /// the bytes taken, and the stop when the feed loop must handle the sequence.
    fn ground_escape(
        &mut self,
        bytes: &[u8],
        line_budget: usize,
        work_budget: usize,
    ) -> (usize, Option<Stop>) {
        self.state = State::Escape;
        self.work += 1;
        match self.whole_csi(&bytes[1..], line_budget, work_budget) {
            Some((n, Some(sequence))) => (1 + n, Some(Stop::Sequence(sequence))),
            Some((n, None)) => (1 + n, None),
            None => (1, None),
        }
    }

    /// Takes text and whole CSI sequences that need nothing of the feed loop (SGR, cursor
    /// moves and the other sequences neither counted nor handled here) in one tight loop,
    /// the counts kept in registers, while neither insert mode nor a scrolling region is on
    /// (the caller checks: only a counted sequence, which this leaves to the general path,
    /// changes either). Called in the ground state; takes exactly what the general path would
    /// take, with the same counts, and returns how many bytes: it stops at the end, where a
    /// budget runs out (the general path then stops there), and before an ESC whose sequence
    /// is anything else or not whole (the general path then takes it from the ESC). Where the
    /// budget runs out at an ESC, it takes the ESC alone, as the general path does. Also
    /// returns whether it stopped before an ESC it leaves, the budgets not spent (the caller
    /// takes that ESC next, [`Scanner::ground_escape`], without looking for it again).
    fn plain_ground(
        &mut self,
        bytes: &[u8],
        line_budget: usize,
        work_budget: usize,
    ) -> (usize, bool) {
        #[cfg(test)]
        {
            self.plain_runs += 1;
        }
        let (mut lines, mut work, mut i) = (self.lines, self.work, 0);
        let mut at_escape = false;
        while i < bytes.len() && lines < line_budget && work < work_budget {
            // (A character between two sequences, as in a spiral of cursor moves, is common
            // enough to be told before setting the search up.)
            let room = (line_budget - lines).min(work_budget - work);
            // Nor does an ESC in the next eight bytes need the search's window worked out (a
            // coloured word: BENCHMARKS.md §28); past the room it stops the loop as the
            // window's `room + 1` does.
            let run = match bytes.get(i..i + 2) {
                Some(&[first, 0x1b]) if first != 0x1b => 1,
                _ => match bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
                    Some(&chunk) if let Some(at) = escape_in(chunk) => at,
                    _ => self.escape_within(&bytes[i..], room),
                },
            };
            let take = run.min(room);
            if take > 0 {
                self.last_home = false;
            }
            lines += take;
            work += take;
            i += take;
            if take < run || i == bytes.len() {
                break;
            }
            // At an ESC: a whole CSI sequence (see `whole_csi`, whose checks these are).
            let sequence = &bytes[i + 1..];
            let whole = match sequence.first() {
                Some(&b'[') => {
                    let params = param_len(&sequence[1..]);
                    sequence.get(1 + params).map(|&action| (action, &sequence[1..1 + params]))
                }
                _ => None,
            };
            if let Some((action, params)) = whole
                && (0x40..=0x7e).contains(&action)
                && lines < line_budget
                && work + 2 + params.len() < work_budget
                && match action {
                    b'm' => params.first() != Some(&b'>'),
                    _ => !counted_or_handled(action) && !sets_key_modifiers(action, params),
                }
            {
                if action != b'm' {
                    self.csi_scanned(action, moves_home(action, params));
                }
                work += 3 + params.len();
                i += 3 + params.len();
                continue;
            }
            if lines >= line_budget || work >= work_budget {
                // As the general path: the ESC taken, the budget spent.
                self.state = State::Escape;
                work += 1;
                i += 1;
            } else {
                at_escape = true;
            }
            break;
        }
        self.lines = lines;
        self.work = work;
        (i, at_escape)
    }

    /// The stop at the end of a DCS string (none for another string): only a query the
    /// feed loop may answer (`$q`, `+q`) stops the scan, counted a row of work (the stop feeds
    /// what is before it and builds the reply: a flood of 7-byte queries cost 5 times a flood
    /// of text before), so that a flood of other DCS strings (sixels, vim's `DCS zz`) costs no
    /// more than their bytes.
    fn dcs_end(&mut self) -> Option<Stop> {
        if !std::mem::take(&mut self.in_dcs) {
            return None;
        }
        let (payload, _) = self.dcs();
        if !(payload.starts_with(b"$q") || payload.starts_with(b"+q")) {
            return None;
        }
        self.work += self.cols;
        Some(Stop::DcsEnd)
    }

    /// Advances the state over one byte of an escape sequence. Returns a stop when the byte
    /// completes something the feed loop must act on.
    fn step(&mut self, byte: u8) -> Option<Stop> {
        // CAN and SUB abort any sequence; ESC starts a new one (but ends a string with `\`).
        match (self.state, byte) {
            (_, 0x18 | 0x1a) => {
                self.state = State::Ground;
                self.in_dcs = false;
                return None;
            }
            (State::String, 0x1b) => {
                self.state = State::StringEscape;
                return None;
            }
            // vte ends a DCS string at C1's ST too (not the other strings).
            (State::String, 0x9c) if self.in_dcs => {
                self.state = State::Ground;
                return self.dcs_end();
            }
            (State::StringEscape, _) => {
                self.state = State::Ground;
                if byte == b'\\' {
                    return self.dcs_end();
                }
                self.in_dcs = false;
                // Not a string terminator: the ESC started a new sequence.
                self.state = State::Escape;
                return self.step(byte);
            }
            (_, 0x1b) => {
                self.state = State::Escape;
                return None;
            }
            // A control character inside an escape or control sequence is carried out at once,
            // and the sequence goes on (as vte does): a line feed there scrolls as one outside
            // does, and counts so (5,000 of them inside one `CSI` scrolled past alacritty's
            // history between two drains, and the lines before them were lost).
            (State::Escape | State::EscapeIntermediate | State::Csi, 0x00..=0x1f) => {
                self.last_home = false;
                if matches!(byte, b'\n' | 0x0b | 0x0c) {
                    self.lines += 1;
                    if self.region {
                        self.work += self.rows;
                    }
                }
                return None;
            }
            _ => {}
        }
        match self.state {
            State::Escape => {
                self.state = State::Ground;
                // Another sequence than a CSI one (whose final byte tells), or a charset
                // designation (`ESC ( B`, which moves nothing: its final byte tells).
                self.esc_charset = is_charset_designation(byte);
                if byte != b'[' && !self.esc_charset {
                    self.last_home = false;
                }
                match byte {
                    b'[' => {
                        self.state = State::Csi;
                        self.params_len = 0;
                        self.csi_intermediate = false;
                    }
                    b']' => {
                        self.state = State::Osc;
                        self.osc_len = 0;
                        return Some(Stop::OscStart);
                    }
                    b'P' => {
                        self.state = State::String;
                        self.in_dcs = true;
                        self.dcs_len = 0;
                    }
                    b'X' | b'^' | b'_' => self.state = State::String,
                    b'c' => {
                        // RIS resets both screens, cell by cell.
                        self.work += 2 * self.cols * self.rows;
                        self.region = false;
                        self.home_since_save = false;
                        return Some(Stop::Sequence(Sequence::Esc(byte)));
                    }
                    b'7' | b'8' => return Some(Stop::Sequence(Sequence::Esc(byte))),
                    b'D' | b'E' => {
                        self.lines += 1;
                        if self.region {
                            self.work += self.rows;
                        }
                    }
                    // Reverse index: at the top it scrolls the region down.
                    b'M' => self.work += self.cols + self.rows,
                    0x20..=0x2f => {
                        self.esc_hash = byte == b'#';
                        self.state = State::EscapeIntermediate;
                    }
                    _ => {}
                }
                None
            }
            State::EscapeIntermediate => {
                if (0x20..=0x2f).contains(&byte) {
                    self.esc_hash = false;
                } else {
                    if self.esc_hash && byte == b'8' {
                        // DECALN fills the screen.
                        self.work += self.cols * self.rows;
                    }
                    if !self.esc_charset {
                        self.last_home = false;
                    }
                    self.state = State::Ground;
                }
                None
            }
            State::Csi => {
                match byte {
                    0x30..=0x3f => {
                        if self.params_len < CSI_PARAMS {
                            self.params[self.params_len] = byte;
                        }
                        self.params_len += 1;
                    }
                    0x20..=0x2f => self.csi_intermediate = true,
                    0x40..=0x7e => {
                        self.state = State::Ground;
                        return self.csi_final(byte).map(Stop::Sequence);
                    }
                    _ => {}
                }
                None
            }
            State::String => {
                if self.in_dcs {
                    if let Some(slot) = self.dcs.get_mut(self.dcs_len) {
                        *slot = byte;
                    }
                    self.dcs_len = self.dcs_len.saturating_add(1);
                }
                None
            }
            State::Ground | State::Osc | State::StringEscape => None,
        }
    }

    /// Takes a whole CSI sequence at once when `bytes` (what follows an ESC) holds all of it
    /// without intermediate or control bytes, and no budget runs out inside it: the common
    /// case, done without a step per byte and without copying its parameters. Returns the
    /// bytes taken and the sequence when the feed loop must handle it; `None` leaves the bytes
    /// to [`Scanner::step`].
    fn whole_csi(
        &mut self,
        bytes: &[u8],
        line_budget: usize,
        work_budget: usize,
    ) -> Option<(usize, Option<Sequence>)> {
        if bytes.first() != Some(&b'[') {
            return None;
        }
        let params = param_len(&bytes[1..]);
        let action = *bytes.get(1 + params)?;
        // The per-byte path checks the budgets before `[`, each parameter and the final byte.
        if !(0x40..=0x7e).contains(&action)
            || self.lines >= line_budget
            || self.work + 1 + params >= work_budget
        {
            return None;
        }
        self.state = State::Ground;
        self.work += 2 + params;
        if action == b'm' && bytes[1..1 + params].first() != Some(&b'>') {
            // SGR, by far the most common sequence: it moves nothing and is neither counted
            // nor handled, so nothing below applies to it.
            return Some((2 + params, None));
        }
        self.csi_scanned(action, moves_home(action, &bytes[1..1 + params]));
        if !counted_or_handled(action) && !sets_key_modifiers(action, &bytes[1..1 + params]) {
            // SGR and cursor moves, by far the most common: nothing to count or decide.
            return Some((2 + params, None));
        }
        let kept = &bytes[1..1 + params.min(CSI_PARAMS)];
        Some((2 + params, self.counts().csi(kept, params > CSI_PARAMS, action)))
    }

    /// Counts a complete CSI sequence's lines and work; returns it when the feed loop must
    /// handle it.
    fn csi_final(&mut self, action: u8) -> Option<Sequence> {
        if self.csi_intermediate {
            self.csi_scanned(action, false);
            return None;
        }
        let (kept, overflow) = (self.params, self.params_len > CSI_PARAMS);
        let len = self.params_len.min(CSI_PARAMS);
        self.csi_scanned(action, !overflow && moves_home(action, &kept[..len]));
        self.counts().csi(&kept[..len], overflow, action)
    }

    fn counts(&mut self) -> Counts<'_> {
        Counts {
            cols: self.cols,
            rows: self.rows,
            lines: &mut self.lines,
            work: &mut self.work,
            insert: &mut self.insert,
            region: &mut self.region,
        }
    }

    fn osc_mark(&self) -> Option<PromptMark> {
        let payload = &self.osc[..self.osc_len];
        let rest = payload.strip_prefix(b"133;")?;
        let kind = *rest.first()?;
        let after = rest.get(1..).unwrap_or(&[]);
        // Anything after the kind must start a parameter list.
        if !after.is_empty() && after[0] != b';' {
            return None;
        }
        let mut params = after.get(1..).unwrap_or(&[]).split(|&b| b == b';');
        if let Some(key) = &self.mark_key
            && !params.clone().any(|param| param.strip_prefix(b"k=") == Some(&key.0[..]))
        {
            return None;
        }
        Some(match kind {
            b'A' => PromptMark::PromptStart,
            b'B' => PromptMark::InputStart,
            b'C' => PromptMark::OutputStart,
            b'D' => {
                let code = params
                    .next()
                    .and_then(|p| std::str::from_utf8(p).ok())
                    .and_then(|p| p.parse().ok());
                PromptMark::CommandEnd(code)
            }
            _ => return None,
        })
    }
}

/// The scanner's line and work counts, and the screen size they depend on.
struct Counts<'a> {
    cols: usize,
    rows: usize,
    lines: &'a mut usize,
    work: &'a mut usize,
    insert: &'a mut bool,
    region: &'a mut bool,
}

impl Counts<'_> {
    /// Counts a complete CSI sequence (`kept`: its parameter bytes, up to [`CSI_PARAMS`]; more
    /// were dropped when `overflow`); returns it when the feed loop must handle it.
    fn csi(self, kept: &[u8], overflow: bool, action: u8) -> Option<Sequence> {
        let (private, digits) = match kept.first() {
            Some(&p @ b'<'..=b'?') => (Some(p), &kept[1..]),
            _ => (None, kept),
        };
        let (cols, rows) = (self.cols, self.rows);
        match (private, action) {
            (None, b'S' | b'J' | b'M') | (Some(b'?'), b'J') => {
                *self.lines += rows;
                *self.work += cols * rows;
            }
            (None, b'T' | b'L') => *self.work += cols * rows,
            (None, b'K' | b'X' | b'@' | b'P') | (Some(b'?'), b'K') => *self.work += cols,
            _ => {}
        }
        if private.is_none() && matches!(action, b'h' | b'l') {
            // SM and RM: only insert mode (4) matters here, for the cost of text. Past what is
            // decoded (16 values, 64 bytes: the parser keeps 32 values and applies each, or
            // drops a longer list whole) a 4 may set it, or a cut value read as one: insert
            // mode counts as set when it may be, reset only when it certainly is.
            let params = Params::parse(digits, overflow);
            if action == b'h' && params.overflow {
                *self.insert = true;
            } else if !params.overflow && params.values().contains(&4) {
                *self.insert = action == b'h';
            }
            return None;
        }
        // Parameters are decoded only for the sequences handled here (SGR, the most common by
        // far, is not one of them).
        let handled = matches!(
            (private, action),
            (None, b'A' | b'B' | b'e' | b'P' | b'@' | b'X' | b'K' | b'J' | b'b' | b't' | b'r')
                | (None, b's' | b'u' | b'Z')
                | (Some(b'?'), b'J' | b'K' | b'h' | b'l')
                | (Some(b'>' | b'<' | b'='), b'u')
                | (Some(b'>'), b'm' | b'n' | b'q')
        );
        if !handled {
            return None;
        }
        let params = Params::parse(digits, overflow);
        if (private, action) == (None, b'r') {
            // DECSTBM, as alacritty takes it: a bottom at or above the top is refused.
            let top = usize::from(params.or(0, 1));
            let bottom = usize::from(params.or(1, u16::try_from(rows).unwrap_or(u16::MAX)));
            if top < bottom {
                *self.region = top > 1 || bottom < rows;
            }
            if params.overflow {
                // Its values may be cut (leading zeros past the bytes kept): it may set one.
                *self.region = true;
            }
        }
        if (private, action) == (None, b'Z') {
            // CBT: alacritty looks left for a tab stop once per count, scanning up to the
            // cursor's column each time (the count is clamped to that column by the rules).
            // (A count cut past the bytes kept may be any: the most.)
            let count = if params.overflow { cols } else { usize::from(params.or(0, 1)) };
            *self.work += cols * count.min(cols);
        }
        if private == Some(b'?') && matches!(action, b'h' | b'l') {
            let values = params.values();
            if values.iter().any(|v| matches!(v, 3 | 47 | 1047 | 1049)) {
                // DECCOLM clears the screen; entering or leaving the alternate screen swaps the
                // grids and clears the alternate one, cell by cell (every cell rewritten when
                // the colours changed since).
                *self.work += cols * rows;
            }
            // Mode 1049 is handled as the parser has it, but it stops the scan all the same:
            // lines the slice scrolled off the primary screen are settled before it hides.
            let ours = values.iter().any(|v| {
                matches!(v, 3 | 6 | 9 | 47 | 1000 | 1002 | 1003 | 1015 | 1047 | 1049 | 2026)
            });
            if !params.overflow && !ours {
                return None;
            }
        }
        Some(Sequence::Csi { private, params, action })
    }
}

/// Whether a CSI sequence with this final byte may count more than its bytes or be handled
/// by the feed loop (a superset of what [`Counts::csi`] looks at, checked in one step).
/// Whether a CSI sequence (its final byte, `action`, and its parameter bytes) moves the cursor
/// to the screen's top-left: a cursor position (`CSI row;col H` or `f`) whose parameters, at
/// most two, are each absent, 0 or 1 (a pattern, not a parse: most positions are elsewhere,
/// and this runs for each).
fn moves_home(action: u8, params: &[u8]) -> bool {
    matches!(action, b'H' | b'f')
        && matches!(
            params,
            [] | [b'0' | b'1']
                | [b';']
                | [b'0' | b'1', b';']
                | [b';', b'0' | b'1']
                | [b'0' | b'1', b';', b'0' | b'1']
        )
}

/// Whether a CSI sequence sets or resets xterm's key modifier options (`CSI > 4 ; 2 m`,
/// `CSI > 4 n`: modifyOtherKeys), which `counted_or_handled` leaves out with SGR's `m`.
fn sets_key_modifiers(action: u8, params: &[u8]) -> bool {
    matches!(action, b'm' | b'n') && params.first() == Some(&b'>')
}

/// Whether `byte`, after an ESC, starts a character set designation (`ESC ( B`, `ESC ) 0`:
/// G0 to G3, 94 or 96 characters), which moves nothing.
fn is_charset_designation(byte: u8) -> bool {
    matches!(byte, b'(' | b')' | b'*' | b'+' | b'-' | b'.' | b'/')
}

fn counted_or_handled(action: u8) -> bool {
    matches!(
        action,
        b'S' | b'J'
            | b'M'
            | b'T'
            | b'L'
            | b'K'
            | b'X'
            | b'@'
            | b'P'
            | b'A'
            | b'B'
            | b'e'
            | b'b'
            | b't'
            | b'r'
            | b's'
            | b'u'
            | b'h'
            | b'l'
            | b'Z'
            | b'q'
    )
}

/// Where the next ESC is in `bytes` (or its length). Runs between sequences are often a
/// character or two, where setting `memchr` up costs more than the run: the first 16 bytes
/// are looked at eight at a time ([`escape_in`]), and `memchr` looks further only when they
/// hold no ESC.
fn find_escape(bytes: &[u8]) -> usize {
    if let (Some(first), Some(second)) =
        (bytes.first_chunk::<8>(), bytes.get(8..).and_then(<[u8]>::first_chunk::<8>))
    {
        if let Some(at) = escape_in(*first) {
            return at;
        }
        if let Some(at) = escape_in(*second) {
            return 8 + at;
        }
        return 16 + memchr::memchr(0x1b, &bytes[16..]).unwrap_or(bytes.len() - 16);
    }
    bytes.iter().position(|&b| b == 0x1b).unwrap_or(bytes.len())
}

/// How many parameter bytes (0x30 to 0x3f, those whose high nibble is 3) `bytes` begins
/// with, eight at a time: each eight bytes as one word, masked to their high nibbles and
/// XORed with 3's, whose lowest non-zero byte is the first other byte.
fn param_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..).and_then(<[u8]>::first_chunk::<8>) {
        let other = (u64::from_le_bytes(*chunk) & (ONES * 0xf0)) ^ (ONES * 0x30);
        if other != 0 {
            return n + other.trailing_zeros() as usize / 8;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|b| (0x30..=0x3f).contains(*b)).count()
}

/// The position of the first ESC in eight bytes, in one word: a byte equal to ESC becomes
/// zero, and the lowest byte whose subtraction borrows while its own top bit was clear is
/// the first zero byte (a borrow can only carry a false hit above a true one).
fn escape_in(bytes: [u8; 8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let word = u64::from_le_bytes(bytes) ^ (ONES * 0x1b);
    let zeros = word.wrapping_sub(ONES) & !word & (ONES << 7);
    (zeros != 0).then(|| zeros.trailing_zeros() as usize / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `input` in pieces of `chunk` bytes with the given budgets (starting each again
    /// when it is spent), collecting (absolute offset, stop) pairs and the work counted.
    fn scan_in_pieces(
        input: &[u8],
        chunk: usize,
        line_budget: usize,
        work_budget: usize,
    ) -> (Vec<(usize, Stop)>, usize) {
        let mut scanner = Scanner::new(10, 10);
        let (mut out, mut work, mut base) = (Vec::new(), 0, 0);
        for piece in input.chunks(chunk) {
            let mut at = 0;
            while at < piece.len() {
                let (n, stop) = scanner.scan(&piece[at..], line_budget, work_budget);
                at += n;
                if stop != Stop::End {
                    out.push((base + at, stop));
                }
                if stop == Stop::Budget {
                    work += scanner.take_work();
                    scanner.reset_lines();
                }
            }
            base += piece.len();
        }
        (out, work + scanner.take_work())
    }

    /// The stops scanning `input` in pieces of `chunk` bytes with a line budget of `budget`.
    fn stops(input: &[u8], chunk: usize, budget: usize) -> Vec<(usize, Stop)> {
        scan_in_pieces(input, chunk, budget, usize::MAX).0
    }

    fn csi(action: u8, private: Option<u8>, params: &[u8]) -> Stop {
        Stop::Sequence(Sequence::Csi { private, params: Params::parse(params, false), action })
    }

    #[test]
    fn the_next_escape_is_found_at_every_length_and_position() {
        // Bytes around ESC (0x1b) that a word-at-a-time search could take for it: a borrow
        // from a true hit below (0x1a), a top bit set (0x9b), zero and all ones.
        for filler in [b'a', 0x1a, 0x1c, 0x9b, 0x00, 0xff, 0x3b] {
            for len in 0..=40usize {
                for first in 0..=len {
                    for second in [None, Some(first + 1), Some(first + 8), len.checked_sub(1)] {
                        let mut bytes = vec![filler; len];
                        for at in [Some(first), second].into_iter().flatten() {
                            if at < len {
                                bytes[at] = 0x1b;
                            }
                        }
                        let expected = bytes.iter().position(|&b| b == 0x1b).unwrap_or(len);
                        assert_eq!(find_escape(&bytes), expected, "{bytes:02x?}");
                    }
                }
            }
        }
    }

    #[test]
    fn parameter_bytes_are_counted_at_every_length_and_position() {
        // Each side of the range (0x2f, 0x40), its ends, and bytes whose high nibble is 3
        // only outside ASCII or only without their top bit (0xb0, 0x70).
        for other in [0x2f, 0x40, 0x1b, b'm', 0xb0, 0x70, 0x03, 0x00, 0xff] {
            for len in 0..40 {
                let params: Vec<u8> = b"0;9?<:>=".iter().cycle().take(len).copied().collect();
                for tail in 0..12 {
                    let mut bytes = params.clone();
                    bytes.extend(std::iter::repeat_n(other, tail.min(1)));
                    bytes.extend(std::iter::repeat_n(b'1', tail.saturating_sub(1)));
                    assert_eq!(param_len(&bytes), len, "{len} then {tail} of {other:#x}");
                }
            }
        }
    }

    #[test]
    fn clear_history_stops_at_its_final_byte_in_any_split() {
        let input = b"abc\x1b[H\x1b[2J\x1b[3Jdef";
        for chunk in 1..input.len() {
            assert_eq!(
                stops(input, chunk, 1000),
                vec![(10, csi(b'J', None, b"2")), (14, csi(b'J', None, b"3"))],
                "chunk {chunk}"
            );
        }
    }

    /// Moves to the top-left are counted whole and split anywhere; other positions, other
    /// sequences ending in `H` or `f` and sequences with intermediates are not.
    #[test]
    fn moves_to_the_top_left_are_counted_in_any_split() {
        let homes = b"\x1b[H\x1b[1;1H\x1b[;f\x1b[0;0H\x1b[1H\x1b[;1H";
        let others = b"\x1b[2;1H\x1b[1;10H\x1b[11H\x1b[1;1;1H\x1b[?1H\x1b[1 H\x1bH\x1b[1;1:2H";
        let input = [&homes[..], &others[..], b"text"].concat();
        for chunk in 1..=input.len() {
            let mut scanner = Scanner::new(10, 10);
            for piece in input.chunks(chunk) {
                let mut at = 0;
                while at < piece.len() {
                    at += scanner.scan(&piece[at..], usize::MAX, usize::MAX).0;
                }
            }
            assert_eq!(scanner.homes(), 6, "chunk {chunk}");
        }
    }

    #[test]
    fn reset_stops_at_c() {
        assert_eq!(stops(b"x\x1bcy", 100, 1000), vec![(3, Stop::Sequence(Sequence::Esc(b'c')))]);
    }

    #[test]
    fn marks_without_the_sessions_key_are_ignored_when_it_has_one() {
        let key = MarkKey::generate();
        assert_ne!(key, MarkKey::generate(), "every session has its own");
        assert!(key.as_str().bytes().all(|b| b.is_ascii_hexdigit()) && key.as_str().len() == 16);
        let marks = |scanner: &mut Scanner, input: &[u8]| {
            let (mut at, mut found) = (0, Vec::new());
            while at < input.len() {
                let (n, stop) = scanner.scan(&input[at..], usize::MAX, usize::MAX);
                at += n;
                if let Stop::OscEnd(Some(mark)) = stop {
                    found.push(mark);
                }
            }
            found
        };
        let k = key.as_str();
        let input = format!(
            "\x1b]133;D;7\x07\x1b]133;D;0;k=0000000000000000\x07\x1b]133;A;k={k}\x07\x1b]133;D;3;k={k}\x07"
        );
        // Without a key, every mark counts.
        let all = marks(&mut Scanner::new(10, 10), input.as_bytes());
        assert_eq!(all.len(), 4);
        let mut keyed = Scanner::new(10, 10);
        keyed.require_mark_key(key);
        let found = marks(&mut keyed, input.as_bytes());
        assert_eq!(found, [PromptMark::PromptStart, PromptMark::CommandEnd(Some(3))]);
    }

    #[test]
    fn osc_strings_and_133_marks_in_any_split() {
        let input = b"\x1b]133;A\x07$ \x1b]133;B\x1b\\ls\x1b]133;D;127\x07\x1b]0;t\x18";
        for chunk in 1..input.len() {
            assert_eq!(
                stops(input, chunk, 1000),
                vec![
                    (2, Stop::OscStart),
                    (8, Stop::OscEnd(Some(PromptMark::PromptStart))),
                    (12, Stop::OscStart),
                    (17, Stop::OscEnd(Some(PromptMark::InputStart))),
                    (23, Stop::OscStart),
                    (33, Stop::OscEnd(Some(PromptMark::CommandEnd(Some(127))))),
                    (35, Stop::OscStart),
                    (39, Stop::OscEnd(None)),
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn other_sequences_pass() {
        // (A DCS string stops where it ends: `a_dcs_string_ends_where_its_terminator_does`.)
        assert!(stops(b"\x1b[31mred\x1b[0m\x1b[?25l\x1b[2;5H\x1b_1$r\x1b\\", 3, 1000).is_empty());
        assert!(stops(b"\x1b[13 J\x1b[?1h\x1b[=1c", 100, 1000).is_empty());
    }

    /// Switching to the alternate screen (mode 1049 too, which the parser handles as it is)
    /// stops the scan, so lines scrolled off before it are settled while they can be.
    #[test]
    fn alternate_screen_switches_stop_the_scan() {
        for mode in ["47", "1047", "1049"] {
            let input = format!("a\r\nb\x1b[?{mode}hc");
            assert_eq!(
                stops(input.as_bytes(), 100, 1000),
                vec![(input.len() - 1, csi(b'h', Some(b'?'), mode.as_bytes()))],
                "{mode}"
            );
        }
    }

    #[test]
    fn handled_sequences_are_decoded() {
        assert_eq!(stops(b"\x1b[?1;47h", 100, 1000), vec![(8, csi(b'h', Some(b'?'), b"1;47"))]);
        assert_eq!(stops(b"\x1b[>1u\x1b[<u", 3, 1000)[1], (9, csi(b'u', Some(b'<'), b"")));
        assert_eq!(stops(b"\x1b[=5;1u", 3, 1000), vec![(7, csi(b'u', Some(b'='), b"5;1"))]);
        // xterm's modifyOtherKeys, set and reset; SGR goes on.
        assert_eq!(stops(b"\x1b[>4;2m", 3, 1000), vec![(7, csi(b'm', Some(b'>'), b"4;2"))]);
        assert_eq!(stops(b"\x1b[>4n\x1b[1m", 3, 1000), vec![(5, csi(b'n', Some(b'>'), b"4"))]);
        let Stop::Sequence(Sequence::Csi { params, .. }) =
            stops(b"\x1b[99999:2;0b", 100, 1000)[0].1
        else {
            panic!("not a sequence")
        };
        assert_eq!(
            (params.values(), params.or(0, 1), params.or(1, 1)),
            (&[65535, 0][..], 65535, 1)
        );
    }

    #[test]
    fn whole_sequences_and_single_bytes_give_the_same_stops_and_work() {
        // Sequences taken whole when they arrive in one read, and byte by byte when split:
        // handled and passed ones, a private marker, an intermediate, a control byte inside,
        // too many parameter bytes, and an unfinished one at the end.
        let long = format!("\x1b[{}K", "1;".repeat(40));
        let input = [
            "ab\x1b[12;40Hx\x1b[3A\x1b[31;1mword\x1b[0m\x1b[?1049h\x1b[?25l\x1b[2J",
            "\x1b[5 q\x1b[1\n2K\x1b[>1u\x1b[s\x1b[5;20r\x1b[3Sz\x1b[?47l",
            &long,
            "tail\x1b[12",
        ]
        .concat();
        let input = input.as_bytes();
        // Where a small work budget stops may move by a sequence's parameters (they are
        // counted in one step), but not what is found or the work counted.
        let without_budget = |(found, work): (Vec<(usize, Stop)>, usize)| {
            (found.into_iter().filter(|(_, stop)| *stop != Stop::Budget).collect::<Vec<_>>(), work)
        };
        for budget in [1000, 37, 9, 3] {
            let whole = without_budget(scan_in_pieces(input, input.len(), 1000, budget));
            for chunk in 1..input.len() {
                let split = without_budget(scan_in_pieces(input, chunk, 1000, budget));
                assert_eq!(split, whole, "chunk {chunk}, budget {budget}");
            }
        }
        let found = stops(input, input.len(), 1000);
        assert_eq!(found.len(), 9, "{found:?}");
    }

    /// SGR sequences taken whole (which skip the checks every other CSI sequence goes through)
    /// leave the scanner as a byte at a time does: the same stops, work, moves to the top-left
    /// and the move before the last one; the key modifier options (`CSI > 4 ; 2 m`), which
    /// share SGR's final byte, still stop the scan.
    #[test]
    fn sgr_taken_whole_leaves_the_scanner_as_a_byte_at_a_time() {
        let sgrs: [&[u8]; 9] =
            [b"", b"0", b"1;31", b"38;5;200", b"38;2;9;200;77", b">4;2", b">4", b"?1", b"<1"];
        for sgr in sgrs {
            let sgr = [b"[", sgr, b"m"].concat();
            let input = [b"ab", &sgr[..], b"[H", &sgr[..], b"[H", &sgr[..], b"x"].concat();
            let scanned = |chunk: usize| {
                let mut scanner = Scanner::new(10, 10);
                let mut found = Vec::new();
                let mut follows = Vec::new();
                for piece in input.chunks(chunk) {
                    let mut at = 0;
                    while at < piece.len() {
                        let (n, stop) = scanner.scan(&piece[at..], usize::MAX, usize::MAX);
                        at += n;
                        found.push(stop);
                        follows.push(scanner.follows_home());
                    }
                }
                let stops: Vec<_> = found.into_iter().filter(|stop| *stop != Stop::End).collect();
                (stops, scanner.take_work(), scanner.homes(), follows.last().copied())
            };
            let whole = scanned(input.len());
            let text = String::from_utf8_lossy(&sgr);
            assert_eq!(whole.2, 2, "{text}");
            assert_eq!(whole.0.len(), if sgr[2] == b'>' { 3 } else { 0 }, "{text}");
            for chunk in 1..input.len() {
                assert_eq!(scanned(chunk), whole, "{text}, chunk {chunk}");
            }
        }
    }

    /// The sequences `plain_ground` takes in its tight loop (SGR, cursor moves, moves to the
    /// top-left, other sequences neither counted nor handled), beside those it leaves to the
    /// general path (the key modifier options, counted and handled sequences, insert mode and
    /// a scrolling region set and reset between them, a sequence with an intermediate, a
    /// control byte inside one, a sequence not yet ended), cut at every offset into two reads
    /// and read a byte at a time, with budgets that run out anywhere: the same stops where the
    /// same bytes end, the same work and lines, moves to the top-left and the move before each
    /// stop as the general path alone.
    #[test]
    fn plain_sequences_taken_in_the_tight_loop_leave_the_scanner_as_the_general_path() {
        let input: &[u8] = b"ab\x1b[31mword\x1b[0m \x1b[1;32mx\x1b[38;5;200;48;2;1;2;3m\x1b[m\
            \x1b[12;40Hx\x1b[Hy\x1b[1;1f\x1b[;H\x1b[2;1H\x1b[H\x1b[31m\x1b[2J\x1b[H\x1b[K\
            z\x1b[>4;2m\x1b[1m\x1b[>4nq\x1b[4hins\x1b[5;5Hert\x1b[31mx\x1b[4lx\x1b[2;5r\
            a\nb\x1b[3;3H\x1b[0m\nc\x1b[r\x1b[6n\x1b[?25l\x1b[1 q\x1b[3\n;4H\x1b(B\x1b[H\
            long run of text past sixteen bytes\x1b[1;31m\x1b\x1b[7;7H\x1b7\x1b[H\x1b8\x1b[1";
        let run = |general_only: bool, cuts: &[usize], lines: usize, work: usize| {
            let mut scanner = Scanner::new(10, 10);
            scanner.general_only = general_only;
            let mut seen = Vec::new();
            let mut start = 0;
            for &end in cuts.iter().chain([&input.len()]) {
                let piece = &input[start..end];
                let mut at = 0;
                while at < piece.len() {
                    let (n, stop) = scanner.scan(&piece[at..], lines, work);
                    at += n;
                    let counts = (scanner.lines, scanner.work, scanner.insert, scanner.region);
                    seen.push((start + at, stop, counts, scanner.homes(), scanner.follows_home()));
                    if stop == Stop::Budget {
                        scanner.take_work();
                        scanner.reset_lines();
                    }
                }
                start = end;
            }
            seen
        };
        for (lines, work) in [(usize::MAX, usize::MAX), (1000, 40), (7, 1000), (3, 9), (2, 4)] {
            let mut splits: Vec<Vec<usize>> = (1..input.len()).map(|cut| vec![cut]).collect();
            splits.push((1..input.len()).collect());
            splits.push(Vec::new());
            for cuts in splits {
                let general = run(true, &cuts, lines, work);
                assert_eq!(run(false, &cuts, lines, work), general, "{cuts:?}, {lines}, {work}");
            }
        }
        // Every line budget and every work budget (up to past the whole input's), in one read
        // and a byte a read.
        let all_work = run(true, &[], usize::MAX, usize::MAX).last().map_or(0, |s| s.2.1);
        let bytewise: Vec<usize> = (1..input.len()).collect();
        for cuts in [&[][..], &bytewise] {
            for budget in 1..=all_work + 1 {
                for (lines, work) in [(budget, usize::MAX), (usize::MAX, budget)] {
                    let general = run(true, cuts, lines, work);
                    assert_eq!(run(false, cuts, lines, work), general, "{lines}, {work}");
                }
            }
        }
        let seen = run(false, &[], usize::MAX, usize::MAX);
        assert_eq!(seen.last().map(|s| s.3), Some(7), "moves to the top-left");
    }

    /// (But for the key modifier options, `sets_key_modifiers`.)
    #[test]
    fn finals_passed_over_are_neither_counted_nor_handled() {
        for action in 0x40..=0x7e {
            if counted_or_handled(action) {
                continue;
            }
            for kept in [&b""[..], b"?1049", b">1", b"<", b"2;3"] {
                let (mut lines, mut work, mut insert, mut region) = (0, 0, false, false);
                let counts = Counts {
                    cols: 10,
                    rows: 10,
                    lines: &mut lines,
                    work: &mut work,
                    insert: &mut insert,
                    region: &mut region,
                };
                let handled = counts.csi(kept, false, action);
                if sets_key_modifiers(action, kept) {
                    // (Passed over by `counted_or_handled`, caught beside it.)
                    assert!(handled.is_some(), "{}", action as char);
                } else {
                    assert_eq!(handled, None, "{}", action as char);
                }
                assert_eq!((lines, work), (0, 0), "{}", action as char);
            }
        }
    }

    /// A scrolling region other than the whole screen makes each line feed (LF, VT, FF, IND,
    /// NEL) count the screen's height; DECSTBM is taken as alacritty takes it (a bottom at or
    /// above the top is refused, one past the screen is its last row), and a resize or RIS
    /// sets the whole screen again.
    #[test]
    fn line_feeds_count_the_screens_height_in_a_scrolling_region() {
        let work = |scanner: &mut Scanner, bytes: &[u8]| {
            let mut at = 0;
            while at < bytes.len() {
                at += scanner.scan(&bytes[at..], 1000, 100_000).0;
            }
            scanner.take_work()
        };
        // `a`, LF, `b`, VT, FF, ESC D, ESC E: 9 bytes; in a region, 5 line feeds of 20 rows
        // and 6 other bytes.
        let text = b"a\nb\x0b\x0c\x1bD\x1bE";
        for (setup, region) in [
            ("\x1b[2;20r", true),
            ("\x1b[1;19r", true),
            ("\x1b[3r", true),
            ("\x1b[r", false),
            ("\x1b[1;20r", false),
            ("\x1b[1;99r", false),
            ("\x1b[5;5r", false),
            ("\x1b[2;20r\x1b[6;5r", true),
            ("\x1b[2;20r\x1bc", false),
        ] {
            let mut scanner = Scanner::new(10, 20);
            work(&mut scanner, setup.as_bytes());
            let expected = if region { 6 + 5 * 20 } else { 9 };
            assert_eq!(work(&mut scanner, text), expected, "{setup:?}");
        }
        let mut scanner = Scanner::new(10, 20);
        work(&mut scanner, b"\x1b[2;20r");
        scanner.resize(10, 20);
        assert_eq!(work(&mut scanner, text), 9, "a resize sets the whole screen");
    }

    #[test]
    fn text_in_insert_mode_counts_a_row_a_byte() {
        let mut scanner = Scanner::new(100, 10);
        assert_eq!(scanner.scan(b"abc", 1000, 100_000), (3, Stop::End));
        assert_eq!(scanner.take_work(), 3);
        // `CSI 4 h` (4 bytes of work), then each character shifts a row of 100 cells.
        assert_eq!(scanner.scan(b"\x1b[4habc", 1000, 100_000), (7, Stop::End));
        assert_eq!(scanner.take_work(), 4 + 300);
        // The budget stops the text where its work runs out.
        assert_eq!(scanner.scan(b"abcdef", 1000, 250), (3, Stop::Budget));
        assert_eq!(scanner.take_work(), 300);
        assert_eq!(scanner.scan(b"\x1b[1;4labc", 1000, 100_000), (9, Stop::End));
        assert_eq!(scanner.take_work(), 9);
        scanner.set_insert(true);
        assert_eq!(scanner.scan(b"a", 1000, 100_000), (1, Stop::End));
        assert_eq!(scanner.take_work(), 100);
    }

    /// Where the tight loop stops before an ESC it leaves (a counted or handled sequence, one
    /// not whole), the scan goes straight to that ESC: the loop runs once, not again at the
    /// same ESC to find nothing to take.
    #[test]
    fn the_tight_loop_runs_once_before_an_escape_it_leaves() {
        // The input, the bytes scanned, the stop, the tight loop's runs (`CSI S` is counted
        // and needs no stop: the loop runs again after it, for `xy`).
        for (input, taken, stop, runs) in [
            (&b"ab\x1b[2Jcd"[..], 6, csi(b'J', None, b"2"), 1),
            (b"\x1b[31mab\x1b[5Sxy", 13, Stop::End, 2),
            (b"ab\x1b[1;2r", 8, csi(b'r', None, b"1;2"), 1),
            (b"ab\x1b[3", 5, Stop::End, 1),
            (b"\x1b[3", 3, Stop::End, 1),
            (b"ab\x1b]0;t\x07", 4, Stop::OscStart, 1),
            (b"ab\x1b7", 4, Stop::Sequence(Sequence::Esc(b'7')), 1),
        ] {
            let mut scanner = Scanner::new(10, 10);
            assert_eq!(scanner.scan(input, 1000, 100_000), (taken, stop), "{input:?}");
            assert_eq!(scanner.plain_runs, runs, "{input:?}");
        }
    }

    /// A run of text the budget cuts short is searched for an ESC only as far as the budget
    /// lets it go (and one byte more), by the tight loop, in insert mode and in a scrolling
    /// region: 64 KiB of text taken 100 bytes a scan is not searched to its end each time.
    #[test]
    fn text_cut_by_the_budget_is_searched_only_as_far_as_the_budget() {
        let text = vec![b'x'; 65_536];
        for (setup, work_budget) in [(&b""[..], 100), (b"\x1b[4h", 1000), (b"\x1b[2;5r", 100)] {
            let mut scanner = Scanner::new(10, 10);
            assert_eq!(scanner.scan(setup, usize::MAX, usize::MAX).0, setup.len());
            scanner.take_work();
            scanner.searched = 0;
            let mut at = 0;
            while at < text.len() {
                let (n, stop) = scanner.scan(&text[at..], 100, work_budget);
                at += n;
                assert!(n > 0 && matches!(stop, Stop::Budget | Stop::End), "{setup:?}");
                scanner.take_work();
                scanner.reset_lines();
            }
            // Each scan of 100 bytes (in insert mode, 100 rows of work) searches 101.
            let scans = text.len().div_ceil(100);
            assert!(scanner.searched <= scans * 101, "{setup:?}: {}", scanner.searched);
        }
    }

    /// A parameter list longer than is decoded (16 values, 64 bytes) may set insert mode or a
    /// scrolling region past what is read, or hold a count whose digits are cut: text then
    /// counts a row a byte, line feeds a screen's height, a backward tab its most.
    #[test]
    fn overflowed_parameter_lists_count_the_most_they_may_cost() {
        let zeros = "0;".repeat(16);
        let mut scanner = Scanner::new(80, 24);
        let input = format!("\x1b[{zeros}4habcdefghij");
        assert_eq!(scanner.scan(input.as_bytes(), usize::MAX, usize::MAX).0, input.len());
        assert!(scanner.insert, "insert mode set as the 17th parameter");
        assert_eq!(scanner.take_work(), 4 + zeros.len() + 10 * 80);
        // A reset past what is decoded may not be one: insert mode stays on (mode 45, its
        // digits cut after the 4 at 64 bytes, read as 4).
        let cut = format!("\x1b[{}45l", "0".repeat(63));
        let mut at = 0;
        while at < cut.len() {
            at += scanner.scan(&cut.as_bytes()[at..], usize::MAX, usize::MAX).0;
        }
        assert!(scanner.insert, "reset only when certainly reset");
        scanner.scan(b"\x1b[4l", usize::MAX, usize::MAX);
        assert!(!scanner.insert);
        // A region's top of 70 digits, cut at 64 bytes (the parser reads 5).
        let top = format!("\x1b[{}5;10r", "0".repeat(70));
        let mut scanner = Scanner::new(80, 24);
        let mut at = 0;
        while at < top.len() {
            at += scanner.scan(&top.as_bytes()[at..], usize::MAX, usize::MAX).0;
        }
        assert!(scanner.region, "a region whose values are cut may be set");
        // A backward tab's count cut the same way counts the most, a row a column.
        let tab = format!("\x1b[{}9Z", "0".repeat(70));
        let mut scanner = Scanner::new(80, 24);
        let mut at = 0;
        while at < tab.len() {
            at += scanner.scan(&tab.as_bytes()[at..], usize::MAX, usize::MAX).0;
        }
        assert_eq!(scanner.take_work(), tab.len() + 80 * 80);
    }

    #[test]
    fn budget_bounds_lines_and_work() {
        let input = vec![b'\n'; 250];
        let found = stops(&input, 1000, 100);
        assert_eq!(found, vec![(100, Stop::Budget), (200, Stop::Budget)]);
        // A scroll sequence counts a whole screen (10 lines here).
        let found = stops(b"\x1b[5S\x1b[5S\x1b[5S", 100, 15);
        assert_eq!(found, vec![(8, Stop::Budget)]);
        // Work: an erase of the screen costs its 100 cells.
        let mut scanner = Scanner::new(10, 10);
        assert_eq!(scanner.scan(b"\x1b[2Kab", 1000, 1000), (4, csi(b'K', None, b"2")));
        assert_eq!(scanner.take_work(), 14);
        // The scroll's screen of work spends the budget: the scan stops right after it.
        assert_eq!(scanner.scan(b"ab\x1b[Sxyz", 1000, 105), (5, Stop::Budget));
    }

    /// Switching to or from the alternate screen rewrites a screen's cells (alacritty clears
    /// the alternate grid with the cursor's colours), and a reset both screens': each counts
    /// that work, not its few bytes, whichever mode number enters it.
    #[test]
    fn screen_switches_and_resets_count_their_screens() {
        for mode in ["47", "1047", "1049"] {
            for action in ["h", "l"] {
                let mut scanner = Scanner::new(10, 10);
                let sequence = format!("\x1b[?{mode}{action}");
                let _ = scanner.scan(sequence.as_bytes(), 1000, 100_000);
                let work = scanner.take_work();
                assert!(work >= 100, "{sequence:?} counted {work}");
            }
        }
        let mut scanner = Scanner::new(10, 10);
        let _ = scanner.scan(b"\x1bc", 1000, 100_000);
        assert!(scanner.take_work() >= 200);
    }

    #[test]
    fn a_dcs_string_ends_where_its_terminator_does_kept_within_its_bound() {
        // Split across reads anywhere, one stop at the `\`, with the string's bytes.
        let input = b"a\x1bP+q544e\x1b\\b\x1bXno\x1b\\";
        for chunk in 1..input.len() {
            let (stops, _) = scan_in_pieces(input, chunk, 1000, 100_000);
            assert_eq!(stops, [(11, Stop::DcsEnd)], "pieces of {chunk}");
        }
        let mut scanner = Scanner::new(10, 10);
        assert_eq!(scanner.scan(input, 1000, 100_000), (11, Stop::DcsEnd));
        assert_eq!(scanner.dcs(), (&b"+q544e"[..], false));
        // Aborted by CAN, or by an ESC starting another sequence: no stop.
        assert_eq!(scanner.scan(b"\x1bP$qm\x18\x1bP$qm\x1b[m", 1000, 100_000).1, Stop::End);
        // A DCS string that is no query ends without a stop; C1's ST ends one (as vte).
        assert_eq!(scanner.scan(b"\x1bPzz\x1b\\\x1bP0;0;0q#0\x9c", 1000, 100_000).1, Stop::End);
        assert_eq!(scanner.scan(b"\x1bP$qm\x9cA", 1000, 100_000), (6, Stop::DcsEnd));
        assert_eq!(scanner.dcs(), (&b"$qm"[..], false));
        assert_eq!(scanner.scan(b"A\x1b[c", 1000, 100_000).1, Stop::End);
        // A megabyte: counted a byte each, kept to the bound.
        let mut huge = b"\x1bP+q".to_vec();
        huge.resize(1 << 20, b'4');
        huge.extend_from_slice(b"\x1b\\");
        assert_eq!(scanner.scan(&huge, 1000, usize::MAX).1, Stop::DcsEnd);
        assert!(scanner.take_work() >= 1 << 20);
        let (kept, overflow) = scanner.dcs();
        assert_eq!((kept.len(), overflow), (DCS_QUERY, true));
    }
}
