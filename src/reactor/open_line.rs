//! The line a terminal reading whole lines (canonical mode) holds until its end is typed, at
//! least: input that would take a line past what the terminal keeps is refused, the part of
//! the line typed before it counted, on a best-effort basis. The count never exceeds what the
//! kernel keeps (a false refusal would be worse than a line cut short): it follows the
//! line discipline where its effect is a plain count (text, erase of an ASCII byte, line
//! ends, end-of-file, line kill, signal characters, flow control, `\r` as the input modes
//! translate it), all read from the terminal's modes; it starts again from nothing where the
//! effect is not (word erase, literal-next, an erase after non-ASCII text with `IUTF8`, a NUL
//! byte); and it is forgotten once anything else may have emptied the line: the modes or the
//! foreground group changed, the group completed a read (a raw read, a flush, canonical mode
//! toggled all come after one), or a look at the modes found them non-canonical.

use std::cell::Cell;

use rustix::termios::{InputModes, LocalModes, SpecialCodeIndex, Termios};

use crate::error::{Error, Result};
use crate::types::SessionId;

/// The most bytes of one line a terminal reading whole lines (canonical mode) keeps: the
/// kernel silently drops the rest of a longer line, keeping its end (Linux's
/// `N_TTY_BUF_SIZE` less the line's end; macOS's `MAX_CANON` likewise).
const CANONICAL_LINE_BYTES: usize = if cfg!(target_os = "linux") { 4095 } else { 1023 };

/// The special characters the count reads from the terminal's modes, in one order.
const CODES: [SpecialCodeIndex; 13] = [
    SpecialCodeIndex::VINTR,
    SpecialCodeIndex::VQUIT,
    SpecialCodeIndex::VSUSP,
    SpecialCodeIndex::VERASE,
    SpecialCodeIndex::VKILL,
    SpecialCodeIndex::VEOF,
    SpecialCodeIndex::VEOL,
    SpecialCodeIndex::VEOL2,
    SpecialCodeIndex::VWERASE,
    SpecialCodeIndex::VLNEXT,
    SpecialCodeIndex::VREPRINT,
    SpecialCodeIndex::VSTART,
    SpecialCodeIndex::VSTOP,
];

/// What the line held was counted under: the terminal's input and local modes and special
/// characters, its foreground group, and the read calls that group had completed (`None`
/// when they cannot be counted). A count is carried to the next input only while all are
/// the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Witness {
    input: InputModes,
    local: LocalModes,
    codes: [u8; CODES.len()],
    group: Option<i32>,
    reads: Option<u64>,
}

impl Witness {
    /// The witness of a terminal with `modes`, whose foreground group is `group` and has
    /// completed `reads` read calls.
    pub(super) fn new(modes: &Termios, group: Option<i32>, reads: Option<u64>) -> Witness {
        Witness {
            input: modes.input_modes,
            local: modes.local_modes,
            codes: CODES.map(|index| modes.special_codes[index]),
            group,
            reads,
        }
    }

    /// Whether a count made under `self` still holds under `now`: everything is the same,
    /// and the group and its reads are known.
    fn holds(&self, now: &Witness) -> bool {
        self.group.is_some() && self.reads.is_some() && self == now
    }
}

/// What the terminal holds of the line being typed, at least: the bytes typed since the last
/// line end while it read whole lines, with what they were counted under. Input typed while
/// it read keys (a program reading them raw takes each as it comes) starts none.
#[derive(Debug, Default)]
pub(super) struct OpenLine {
    /// (A cell: a look at the modes that finds them non-canonical forgets it.)
    bytes: Cell<usize>,
    under: Option<Witness>,
}

/// What a line holds once checked input is typed, for [`OpenLine::typed`].
#[derive(Debug)]
pub(super) struct Counted {
    bytes: usize,
    under: Option<Witness>,
}

/// The line discipline of a terminal reading whole lines, as far as it is a count.
struct Discipline<'a> {
    modes: &'a Termios,
    /// The kill character, from `os::pty`.
    kill: Option<u8>,
}

/// The line as the walk of input counts it.
struct Walk {
    /// Bytes the line holds at least.
    line: usize,
    /// The last bytes of the line, as far as this input typed them (an erase looks at the
    /// last: a non-ASCII one with `IUTF8` takes a whole character back).
    known: Vec<u8>,
    /// Whether `line` includes the part typed before this input.
    carried: bool,
    longest: usize,
    longest_carried: bool,
}

impl Walk {
    fn text(&mut self, byte: u8) {
        self.line += 1;
        self.known.push(byte);
        if self.line > self.longest {
            (self.longest, self.longest_carried) = (self.line, self.carried);
        }
    }

    /// The line ends, is emptied, or is no longer known (counted from nothing on).
    fn restart(&mut self) {
        self.line = 0;
        self.known.clear();
        self.carried = false;
    }

    fn erase(&mut self, utf8: bool) {
        if self.line == 0 {
            return;
        }
        match self.known.last() {
            Some(&byte) if byte < 0x80 || !utf8 => {
                self.known.pop();
                self.line -= 1;
            }
            None if !utf8 => self.line -= 1,
            // A whole character goes, of bytes not (all) known here.
            _ => self.restart(),
        }
    }
}

impl<'a> Discipline<'a> {
    /// The terminal's, when it reads whole lines (and not with `EXTPROC`, where another end
    /// edits the line); `None` otherwise, or when its modes cannot be read.
    fn of(modes: Option<&'a Termios>) -> Option<Discipline<'a>> {
        let modes = modes?;
        let local = modes.local_modes;
        if !local.contains(LocalModes::ICANON) || local.contains(LocalModes::EXTPROC) {
            return None;
        }
        Some(Discipline { modes, kill: crate::os::pty::kill_character_in(modes) })
    }

    /// Special character `index` where set and enabled by the modes (`extended`: only with
    /// `IEXTEN`); 0 is `_POSIX_VDISABLE` on Linux.
    fn code(&self, index: SpecialCodeIndex, extended: bool) -> Option<u8> {
        let on = !extended || self.modes.local_modes.contains(LocalModes::IEXTEN);
        Some(self.modes.special_codes[index]).filter(|&c| c != 0 && on)
    }

    /// The line's length after `bytes` are typed on one of `start` bytes, at least, and the
    /// longest line they make, with whether it includes the part typed before (`start`).
    /// Follows the kernel's `n_tty_receive_char_special` in its order.
    fn walk(&self, start: usize, bytes: &[u8]) -> (usize, usize, bool) {
        let input = self.modes.input_modes;
        let local = self.modes.local_modes;
        let utf8 = input.contains(InputModes::IUTF8);
        let flow = [SpecialCodeIndex::VSTART, SpecialCodeIndex::VSTOP]
            .map(|index| self.code(index, false).filter(|_| input.contains(InputModes::IXON)));
        let erase = self.code(SpecialCodeIndex::VERASE, false);
        let werase = self.code(SpecialCodeIndex::VWERASE, true);
        let lnext = self.code(SpecialCodeIndex::VLNEXT, true);
        let reprint = self
            .code(SpecialCodeIndex::VREPRINT, true)
            .filter(|_| local.contains(LocalModes::ECHO));
        let ends = [
            Some(b'\n'),
            self.code(SpecialCodeIndex::VEOF, false),
            self.code(SpecialCodeIndex::VEOL, false),
            self.code(SpecialCodeIndex::VEOL2, true),
        ];
        let mut walk = Walk {
            line: start,
            known: Vec::new(),
            carried: start > 0,
            longest: start,
            longest_carried: start > 0,
        };
        let mut literal = false;
        for &byte in bytes {
            let mut c = byte;
            if input.contains(InputModes::ISTRIP) {
                c &= 0x7f;
            }
            if input.contains(InputModes::IUCLC) && local.contains(LocalModes::IEXTEN) {
                c = c.to_ascii_lowercase();
            }
            if std::mem::take(&mut literal) {
                walk.text(c);
                continue;
            }
            if c == 0 {
                // (The kernel compares it with the disabled characters, which are 0.)
                walk.restart();
                continue;
            }
            if flow.contains(&Some(c)) {
                continue;
            }
            if super::terminal_io::signal_for(self.modes, c).is_some() {
                if !local.contains(LocalModes::NOFLSH) {
                    walk.restart();
                }
                continue;
            }
            if c == b'\r' {
                if input.contains(InputModes::IGNCR) {
                    continue;
                }
                if input.contains(InputModes::ICRNL) {
                    c = b'\n';
                }
            } else if c == b'\n' && input.contains(InputModes::INLCR) {
                c = b'\r';
            }
            match Some(c) {
                code if code == erase => walk.erase(utf8),
                code if code == self.kill || code == werase => walk.restart(),
                code if code == lnext => {
                    walk.restart();
                    literal = true;
                }
                code if code == reprint => {}
                code if ends.contains(&code) => walk.restart(),
                _ => walk.text(c),
            }
        }
        (walk.line, walk.longest, walk.longest_carried)
    }
}

impl OpenLine {
    /// Checks `bytes`, input for session `id` about to be queued for its terminal, whose
    /// modes are `modes` (`None` once it hung up, or unreadable): refused when the terminal
    /// reads whole lines and one of them, with what the line held before them, is longer than
    /// it keeps. `witness` says what the terminal is under now (asked only when a count is
    /// carried or made). A `secret`'s refusal gives no length. Returns what the line holds
    /// once they are typed, for [`OpenLine::typed`].
    pub(super) fn check(
        &self,
        modes: Option<&Termios>,
        witness: impl FnOnce(&Termios) -> Witness,
        id: SessionId,
        bytes: &[u8],
        secret: bool,
    ) -> Result<Counted> {
        let typed = self.bytes.get();
        let nothing = Counted { bytes: 0, under: None };
        // (Most input is shorter than a line can be and ends the one it starts, on a line
        // nothing was typed on: nothing more is looked at.)
        if typed == 0
            && bytes.len() <= CANONICAL_LINE_BYTES
            && matches!(bytes.last(), Some(b'\r' | b'\n'))
        {
            return Ok(nothing);
        }
        let Some(discipline) = Discipline::of(modes) else { return Ok(nothing) };
        let mut witness = Some(witness);
        let mut now = || witness.take().map(|witness| witness(discipline.modes));
        let (typed, seen) = match &self.under {
            Some(under) if typed > 0 => {
                let now = now();
                (if now.as_ref().is_some_and(|now| under.holds(now)) { typed } else { 0 }, now)
            }
            _ => (0, None),
        };
        let (after, longest, carried) = discipline.walk(typed, bytes);
        if longest <= CANONICAL_LINE_BYTES {
            let under = if after == 0 { None } else { seen.or_else(now) };
            return Ok(Counted { bytes: after, under });
        }
        if secret {
            return Err(Error::InvalidInput(format!(
                "session {id}'s program reads whole lines (canonical mode), and the secret, with what was typed on its line before, is longer than its terminal keeps ({CANONICAL_LINE_BYTES} bytes): the terminal would lose the rest; nothing was typed"
            )));
        }
        let before = match (carried, typed) {
            (true, typed) if typed > 0 => format!(
                " ({typed} of them already typed, waiting in the terminal for the line's end)"
            ),
            _ => String::new(),
        };
        Err(Error::InvalidInput(format!(
            "session {id}'s program reads whole lines (canonical mode), and its terminal keeps at most {CANONICAL_LINE_BYTES} bytes of a line: a line of {longest} bytes{before} would lose the rest; nothing was typed. Write long text to a file instead, or split it into lines"
        )))
    }

    /// Notes what the line holds now that checked input is queued ([`OpenLine::check`]'s
    /// answer).
    pub(super) fn typed(&mut self, counted: Counted) {
        self.bytes.set(counted.bytes);
        self.under = counted.under;
    }

    /// Forgets the line: queued input was dropped (an interrupt, a paste cut short), and what
    /// of it reached the terminal is not known; or the terminal was seen reading keys, which
    /// ends the line. Counting less never refuses a line the terminal would keep.
    pub(super) fn forget(&self) {
        self.bytes.set(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(setup: impl FnOnce(&mut Termios)) -> Termios {
        // A pseudo-terminal's modes as the kernel sets them up (and termloom: `IUTF8`).
        let pty = crate::os::pty::open(80, 24).unwrap();
        let mut modes = rustix::termios::tcgetattr(&pty.slave).unwrap();
        setup(&mut modes);
        modes
    }

    fn walk(modes: &Termios, start: usize, bytes: &[u8]) -> (usize, usize, bool) {
        Discipline::of(Some(modes)).unwrap().walk(start, bytes)
    }

    /// Text counts a byte, an ASCII erase takes one back; a line end, end-of-file, the kill
    /// character and a signal character start a new line; the longest line is said with
    /// whether it includes the part typed before.
    #[test]
    fn a_line_is_counted_as_the_line_discipline_counts_it() {
        let modes = modes(|_| {});
        assert_eq!(walk(&modes, 10, b"abc"), (13, 13, true));
        assert_eq!(walk(&modes, 10, b"ab\x7f\x7f\x7f"), (0, 12, true), "IUTF8: bytes typed before");
        assert_eq!(walk(&modes, 10, b"ab\x08"), (13, 13, true), "0x08 is text: DEL erases");
        assert_eq!(walk(&modes, 10, b"a\rbcdefghijklmn"), (13, 13, false));
        assert_eq!(walk(&modes, 10, b"a\x15bc"), (2, 11, true));
        assert_eq!(walk(&modes, 10, b"a\x03bc\x04d"), (1, 11, true));
        assert_eq!(walk(&modes, 0, b"a\x13\x11\x12b"), (2, 2, false), "^S ^Q ^R are not kept");
    }

    /// Where the kernel's effect is not a plain count, the line is counted from nothing on:
    /// never more than the kernel keeps.
    #[test]
    fn what_is_not_a_plain_count_is_counted_from_nothing() {
        let modes = modes(|_| {});
        assert_eq!(walk(&modes, 3000, b"\x17yy"), (2, 3000, true), "word erase");
        assert_eq!(walk(&modes, 0, &b"\x16a".repeat(3)), (1, 1, false), "literal-next");
        assert_eq!(walk(&modes, 0, "é\x7fz".as_bytes()), (1, 2, false), "a UTF-8 erase");
        assert_eq!(walk(&modes, 5, b"\x7fz"), (1, 5, true), "an erase of bytes typed before");
        assert_eq!(walk(&modes, 5, b"a\0b"), (1, 6, true));
    }

    /// The line ends and special characters are the modes' own.
    #[test]
    fn the_characters_are_the_modes() {
        let modes = modes(|m| {
            m.special_codes[SpecialCodeIndex::VEOL] = b'\t';
            m.special_codes[SpecialCodeIndex::VERASE] = 0x08;
            m.special_codes[SpecialCodeIndex::VEOF] = 0;
            m.input_modes -= InputModes::ICRNL;
            m.local_modes |= LocalModes::NOFLSH;
        });
        assert_eq!(walk(&modes, 0, b"ab\tc"), (1, 2, false));
        assert_eq!(walk(&modes, 0, b"ab\x08\x7f"), (2, 2, false));
        assert_eq!(walk(&modes, 0, b"a\x04\r\x03b"), (4, 4, false));
        let modes = self::modes(|m| m.input_modes |= InputModes::IGNCR);
        assert_eq!(walk(&modes, 0, b"a\rb"), (2, 2, false));
    }
}
