//! The lines one input types into a terminal reading whole lines (canonical mode): input that
//! would make one of them longer than the terminal keeps is refused before anything is
//! queued. Each input is counted on its own, from nothing: a line typed over several inputs
//! (sends, keys, pastes) is not counted across them, so the kernel may still cut such a line
//! past its 4,095 bytes, silently (a known limit; type the line in one input to have it
//! checked). What an earlier input left on the line cannot be known for certain (the program
//! may have read it raw, flushed it, or switched canonical mode off and on since), and
//! termloom never refuses input the kernel would keep. A secret is checked further
//! ([`check_secret`]): it must reach its program whole, as one line.
//!
//! Within one input, the count is a lower bound of what the kernel keeps: it follows the line
//! discipline where its effect is a plain count (text, erase of an ASCII byte, line ends,
//! end-of-file, line kill, signal characters, flow control, `\r` as the input modes translate
//! it), all read from the terminal's modes, and starts again from nothing where the effect is
//! not (word erase, literal-next, an erase after non-ASCII text with `IUTF8`).

use rustix::termios::{InputModes, LocalModes, SpecialCodeIndex, Termios};

use crate::error::{Error, Result};
use crate::types::SessionId;

/// The most bytes of one line a terminal reading whole lines (canonical mode) keeps: the
/// kernel silently drops the rest of a longer line, keeping its end (Linux's
/// `N_TTY_BUF_SIZE` less the line's end; macOS's `MAX_CANON` likewise).
const CANONICAL_LINE_BYTES: usize = if cfg!(target_os = "linux") { 4095 } else { 1023 };

/// Checks `bytes`, one input for session `id` about to be queued for its terminal, whose modes
/// are `modes` (`None` once it hung up, or unreadable): refused when the terminal reads whole
/// lines and one of the lines they type, counted from nothing at their start, is longer than
/// it keeps. A `secret`'s refusal gives no length.
pub(super) fn check(
    modes: Option<&Termios>,
    id: SessionId,
    bytes: &[u8],
    secret: bool,
) -> Result<()> {
    // (Input no longer than a line can be makes no longer line: nothing more is looked at.)
    if bytes.len() <= CANONICAL_LINE_BYTES {
        return Ok(());
    }
    let Some(discipline) = Discipline::of(modes) else { return Ok(()) };
    let (_, longest) = discipline.walk(bytes);
    if longest <= CANONICAL_LINE_BYTES {
        return Ok(());
    }
    if secret {
        return Err(Error::InvalidInput(format!(
            "session {id}'s program reads whole lines (canonical mode), and the secret is longer than its terminal keeps of a line ({CANONICAL_LINE_BYTES} bytes): the terminal would lose the rest; nothing was typed"
        )));
    }
    Err(Error::InvalidInput(format!(
        "session {id}'s program reads whole lines (canonical mode), and its terminal keeps at most {CANONICAL_LINE_BYTES} bytes of a line: a line of {longest} bytes would lose the rest; nothing was typed. Write long text to a file instead, or split it into lines"
    )))
}

/// The line discipline of a terminal reading whole lines, as far as it is a count.
struct Discipline<'a> {
    modes: &'a Termios,
    /// The kill character, from `os::pty`.
    kill: Option<u8>,
}

/// The line as the walk of one input counts it: its last bytes, those this input typed since
/// the line was last counted from nothing (an erase looks at the last: a non-ASCII one with
/// `IUTF8` takes a whole character back), and the longest it was.
#[derive(Default)]
struct Walk {
    known: Vec<u8>,
    longest: usize,
}

impl Walk {
    fn text(&mut self, byte: u8) {
        self.known.push(byte);
        self.longest = self.longest.max(self.known.len());
    }

    /// The line ends, is emptied, or is no longer known (counted from nothing on).
    fn restart(&mut self) {
        self.known.clear();
    }

    fn erase(&mut self, utf8: bool) {
        match self.known.last() {
            Some(&byte) if byte < 0x80 || !utf8 => {
                self.known.pop();
            }
            // A whole character goes, of bytes not (all) known here.
            Some(_) => self.restart(),
            // A byte typed before this input goes: not counted here.
            None => {}
        }
    }
}

/// `c` as the kernel's `tolower` makes it (`IUCLC`): ASCII, and Latin-1's upper-case letters
/// 0xC0–0xDE but for 0xD7 (×), as its character table has them.
fn lower(c: u8) -> u8 {
    match c {
        b'A'..=b'Z' => c + 0x20,
        0xC0..=0xDE if c != 0xD7 => c + 0x20,
        _ => c,
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

    /// The line's length after `bytes` are typed, counted from nothing at their start, and
    /// the longest line they make: at most what the kernel keeps of them, whatever an earlier
    /// input left on the line (even a literal-next that makes their first byte literal).
    fn walk(&self, bytes: &[u8]) -> (usize, usize) {
        let utf8 = self.modes.input_modes.contains(InputModes::IUTF8);
        let mut walk = Walk::default();
        let mut literal = false;
        for &byte in bytes {
            if std::mem::take(&mut literal) {
                // The byte after a literal-next is text; counted as nothing, since the
                // literal-next may itself have been made literal by one ending the input
                // before, and this byte then acts as itself (an erase, a line end).
                continue;
            }
            match self.effect(byte) {
                Effect::Text(c) => walk.text(c),
                Effect::Kept => {}
                Effect::Signal if !self.modes.local_modes.contains(LocalModes::NOFLSH) => {
                    walk.restart();
                }
                Effect::Signal => {}
                Effect::Erase => walk.erase(utf8),
                Effect::Restart => walk.restart(),
                Effect::LiteralNext => {
                    walk.restart();
                    literal = true;
                }
            }
        }
        (walk.known.len(), walk.longest)
    }

    /// What `byte` does on the line when typed on its own (not after a literal-next).
    /// Follows the kernel's `n_tty_receive_buf_standard` and `n_tty_receive_char_special` in
    /// their order.
    fn effect(&self, byte: u8) -> Effect {
        let input = self.modes.input_modes;
        let local = self.modes.local_modes;
        let mut c = byte;
        if input.contains(InputModes::ISTRIP) {
            c &= 0x7f;
        }
        if input.contains(InputModes::IUCLC) && local.contains(LocalModes::IEXTEN) {
            c = lower(c);
        }
        // (NUL is text: the kernel never takes it as a special character, 0 being the
        // disabled characters' value; none of those below matches it.)
        if flow_character(self.modes, c) {
            return Effect::Kept;
        }
        if super::terminal_io::signal_for(self.modes, c).is_some() {
            return Effect::Signal;
        }
        if c == b'\r' {
            if input.contains(InputModes::IGNCR) {
                return Effect::Kept;
            }
            if input.contains(InputModes::ICRNL) {
                c = b'\n';
            }
        } else if c == b'\n' && input.contains(InputModes::INLCR) {
            c = b'\r';
        }
        let reprint = self
            .code(SpecialCodeIndex::VREPRINT, true)
            .filter(|_| local.contains(LocalModes::ECHO));
        let ends = [
            Some(b'\n'),
            self.code(SpecialCodeIndex::VEOF, false),
            self.code(SpecialCodeIndex::VEOL, false),
            self.code(SpecialCodeIndex::VEOL2, true),
        ];
        match Some(c) {
            code if code == self.code(SpecialCodeIndex::VERASE, false) => Effect::Erase,
            code if code == self.kill || code == self.code(SpecialCodeIndex::VWERASE, true) => {
                Effect::Restart
            }
            code if code == self.code(SpecialCodeIndex::VLNEXT, true) => Effect::LiteralNext,
            code if code == reprint => Effect::Kept,
            code if ends.contains(&code) => Effect::Restart,
            _ => Effect::Text(c),
        }
    }
}

/// What a byte typed into a terminal reading whole lines does to the line being typed.
enum Effect {
    /// It is text on the line: this byte, as the input modes made it.
    Text(u8),
    /// It leaves the line as it is, and is not kept (flow control, an ignored `\r`, a
    /// reprint).
    Kept,
    /// It is a signal character: the line is dropped, unless `NOFLSH`.
    Signal,
    /// It erases the line's last character.
    Erase,
    /// It ends or empties the line (a line end, end-of-file, line or word kill).
    Restart,
    /// It makes the next byte literal text.
    LiteralNext,
}

/// Whether `c` is a flow-control character the terminal acts on (`IXON`: `VSTART`, `VSTOP`),
/// whatever its line mode: it stops or starts output, and is not kept as input.
fn flow_character(modes: &Termios, c: u8) -> bool {
    modes.input_modes.contains(InputModes::IXON)
        && c != 0
        && [SpecialCodeIndex::VSTART, SpecialCodeIndex::VSTOP]
            .iter()
            .any(|&index| modes.special_codes[index] == c)
}

/// Checks a secret for session `id` before it is typed, with the line kill before it and
/// `\r` after it, into a terminal of modes `modes` (the session's own, or one a program of the
/// session hosts and relays to; `reads`: the program asking reads this one): it must reach
/// that program as one line, whole. Refused, naming neither the secret nor its characters,
/// when one of its bytes is a character the terminal acts on, which a program may have set
/// to a printable one (`stty intr z`: the start of the secret dropped and the program
/// interrupted; an end-of-file or line end: the secret cut in two), in any mode for signal
/// and flow-control characters, in canonical mode for the line's own; or, in the terminal
/// that reads it, when `\r` does not end the line (`stty -icrnl`, `igncr`): the secret would
/// stay on an unfinished line. Either way, what the program did not take is read by whatever
/// reads the terminal next, a shell that shows it or runs it and prints it in its error.
pub(super) fn check_secret(
    modes: &Termios,
    id: SessionId,
    secret: &[u8],
    reads: bool,
) -> Result<()> {
    let refused = |why: &str| {
        Err(Error::InvalidInput(format!(
            "session {id}'s terminal {why}: the program would not read the secret whole as one line, and the rest would go to whatever reads the terminal next; nothing was typed"
        )))
    };
    let Some(discipline) = Discipline::of(Some(modes)) else {
        let acted_on = |&c: &u8| {
            flow_character(modes, c) || super::terminal_io::signal_for(modes, c).is_some()
        };
        return match secret.iter().any(acted_on) {
            true => refused(ACTS_ON_ONE),
            false => Ok(()),
        };
    };
    if secret.iter().any(|&byte| !matches!(discipline.effect(byte), Effect::Text(_))) {
        return refused(ACTS_ON_ONE);
    }
    if reads && !matches!(discipline.effect(b'\r'), Effect::Restart) {
        return refused("does not end a line at Enter (`stty -icrnl` or `igncr`)");
    }
    Ok(())
}

/// Why a secret holding a character its terminal acts on is refused (see [`check_secret`]).
const ACTS_ON_ONE: &str = "acts on a character of the secret (a signal, erase, line-end or other special character that a program set to a printable one with `stty`)";

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

    fn walk(modes: &Termios, bytes: &[u8]) -> (usize, usize) {
        Discipline::of(Some(modes)).unwrap().walk(bytes)
    }

    /// A secret reaches the program as one line only when the terminal acts on none of its
    /// characters and its Enter ends the line; a refusal names neither.
    #[test]
    fn a_secret_must_reach_its_program_whole_as_one_line() {
        let id = SessionId(1);
        let check = |modes: &Termios, secret: &[u8], reads| check_secret(modes, id, secret, reads);
        let plain = modes(|m| m.local_modes -= LocalModes::ECHO);
        assert!(check(&plain, b"hunter2 z", true).is_ok());
        for (setting, index) in [
            ("intr", SpecialCodeIndex::VINTR),
            ("eof", SpecialCodeIndex::VEOF),
            ("eol", SpecialCodeIndex::VEOL),
            ("kill", SpecialCodeIndex::VKILL),
            ("erase", SpecialCodeIndex::VERASE),
            ("lnext", SpecialCodeIndex::VLNEXT),
            ("stop", SpecialCodeIndex::VSTOP),
        ] {
            let modes = modes(|m| m.special_codes[index] = b'z');
            let err = check(&modes, b"hunterz2", true).unwrap_err().to_string();
            assert!(err.contains("acts on a character"), "{setting}: {err}");
            assert!(!err.contains("hunter") && !err.contains("z2"), "{setting}: {err}");
        }
        for unended in [
            modes(|m| m.input_modes -= InputModes::ICRNL),
            modes(|m| m.input_modes |= InputModes::IGNCR),
        ] {
            let err = check(&unended, b"hunter2", true).unwrap_err().to_string();
            assert!(err.contains("does not end a line at Enter"), "{err}");
            // (A terminal it passes through to the one that reads it ends no line for it.)
            assert!(check(&unended, b"hunter2", false).is_ok());
        }
        // A raw terminal, which a relay keeps, acts on its signal and flow characters only.
        let raw = modes(|m| {
            m.local_modes -= LocalModes::ICANON | LocalModes::ECHO;
            m.special_codes[SpecialCodeIndex::VERASE] = b'z';
        });
        assert!(check(&raw, b"hunterz2", false).is_ok());
        let raw_signals = modes(|m| {
            m.local_modes -= LocalModes::ICANON | LocalModes::ECHO;
            m.special_codes[SpecialCodeIndex::VINTR] = b'z';
        });
        assert!(check(&raw_signals, b"hunterz2", false).is_err());
    }

    /// Text counts a byte (NUL too), an ASCII erase takes one back; a line end, end-of-file,
    /// the kill character and a signal character start a new line.
    #[test]
    fn a_line_is_counted_as_the_line_discipline_counts_it() {
        let modes = modes(|_| {});
        assert_eq!(walk(&modes, b"abc"), (3, 3));
        assert_eq!(walk(&modes, b"ab\x7f\x7f\x7f"), (0, 2), "an erase of bytes typed before");
        assert_eq!(walk(&modes, b"ab\x08"), (3, 3), "0x08 is text: DEL erases");
        assert_eq!(walk(&modes, b"abcd\rbc"), (2, 4));
        assert_eq!(walk(&modes, b"ab\x15c"), (1, 2));
        assert_eq!(walk(&modes, b"ab\x03bc\x04d"), (1, 2));
        assert_eq!(walk(&modes, b"a\x13\x11\x12b"), (2, 2), "^S ^Q ^R are not kept");
        assert_eq!(walk(&modes, b"a\0b"), (3, 3), "NUL is text");
    }

    /// Where the kernel's effect is not a plain count, the line is counted from nothing on:
    /// never more than the kernel keeps.
    #[test]
    fn what_is_not_a_plain_count_is_counted_from_nothing() {
        let modes = modes(|_| {});
        assert_eq!(walk(&modes, b"xxx\x17yy"), (2, 3), "word erase");
        assert_eq!(walk(&modes, &b"\x16a".repeat(3)), (0, 0), "literal-next");
        // After a literal-next left by the input before, the kernel takes this one as text
        // and the erase as an erase: a line of 2, not 3.
        assert_eq!(walk(&modes, b"\x16\x7fab"), (2, 2), "literal-next, perhaps literal");
        assert_eq!(walk(&modes, "\u{e9}\x7fz".as_bytes()), (1, 2), "a UTF-8 erase");
    }

    /// The line ends and special characters are the modes' own, and `IUCLC` lowers Latin-1
    /// as the kernel's `tolower` does.
    #[test]
    fn the_characters_are_the_modes() {
        let modes = modes(|m| {
            m.special_codes[SpecialCodeIndex::VEOL] = b'\t';
            m.special_codes[SpecialCodeIndex::VERASE] = 0x08;
            m.special_codes[SpecialCodeIndex::VEOF] = 0;
            m.input_modes -= InputModes::ICRNL;
            m.local_modes |= LocalModes::NOFLSH;
        });
        assert_eq!(walk(&modes, b"ab\tc"), (1, 2));
        assert_eq!(walk(&modes, b"ab\x08\x7f"), (2, 2));
        assert_eq!(walk(&modes, b"a\x04\r\x03b"), (4, 4));
        let modes = self::modes(|m| m.input_modes |= InputModes::IGNCR);
        assert_eq!(walk(&modes, b"a\rb"), (2, 2));
        let modes = self::modes(|m| {
            m.input_modes |= InputModes::IUCLC;
            m.input_modes -= InputModes::IUTF8;
            m.special_codes[SpecialCodeIndex::VEOL] = 0xe0;
        });
        assert_eq!(walk(&modes, b"ab\xc0c\xd7d"), (3, 3), "0xC0 lowered to 0xE0, VEOL");
    }
}
