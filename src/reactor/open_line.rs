//! The line a terminal reading whole lines (canonical mode) holds until its end is typed, as
//! its line discipline counts it: input that would take a line past what the terminal keeps
//! is refused, the part of the line typed before it counted.

use std::os::fd::BorrowedFd;

use rustix::termios::{self, LocalModes, SpecialCodeIndex};

use crate::error::{Error, Result};
use crate::types::SessionId;

/// The most bytes of one line a terminal reading whole lines (canonical mode) keeps: the
/// kernel silently drops the rest of a longer line, keeping its end (Linux's
/// `N_TTY_BUF_SIZE` less the line's end; macOS's `MAX_CANON` likewise).
const CANONICAL_LINE_BYTES: usize = if cfg!(target_os = "linux") { 4095 } else { 1023 };

/// What a session's terminal holds of the line being typed: the bytes typed since the last
/// line end while it read whole lines. Input typed while it read keys (a program reading them
/// raw takes each as it comes) starts none, so that keys a program took are not counted
/// against the next line another reads whole.
#[derive(Debug, Default)]
pub(super) struct OpenLine {
    bytes: usize,
}

/// The characters that end or empty a line, or take a byte back, in the terminal's modes.
struct Discipline {
    kill: Option<u8>,
    /// The interrupt, quit and suspend characters when they signal (`ISIG`): the kernel
    /// flushes the line at them.
    signals: [Option<u8>; 3],
}

impl Discipline {
    /// The terminal's, when it reads whole lines; `None` when it reads keys, or its modes
    /// cannot be read.
    fn of(terminal: BorrowedFd<'_>) -> Option<Discipline> {
        let modes = termios::tcgetattr(terminal).ok()?;
        if !modes.local_modes.contains(LocalModes::ICANON) {
            return None;
        }
        // 0 is `_POSIX_VDISABLE` on Linux: no character does it.
        let code = |index| Some(modes.special_codes[index]).filter(|&c| c != 0);
        let signals = if modes.local_modes.contains(LocalModes::ISIG) {
            [SpecialCodeIndex::VINTR, SpecialCodeIndex::VQUIT, SpecialCodeIndex::VSUSP].map(code)
        } else {
            [None; 3]
        };
        Some(Discipline { kill: code(SpecialCodeIndex::VKILL), signals })
    }

    /// The line's length after `bytes` are typed on one of `start` bytes, and the longest
    /// line they make, with whether that is the first (the one `start` is part of).
    fn walk(&self, start: usize, bytes: &[u8]) -> (usize, usize, bool) {
        let (mut line, mut longest, mut first, mut longest_first) = (start, start, true, true);
        for &byte in bytes {
            // (As the line discipline counts: a line end or end-of-file ends a line, the
            // line-kill character and a signal empty it, an erase takes a byte back.)
            line = match byte {
                b'\r' | b'\n' | 0x04 => {
                    first = false;
                    0
                }
                _ if Some(byte) == self.kill || self.signals.contains(&Some(byte)) => {
                    first = false;
                    0
                }
                0x08 | 0x7f => line.saturating_sub(1),
                _ => line + 1,
            };
            if line > longest {
                (longest, longest_first) = (line, first);
            }
        }
        (line, longest, longest_first)
    }
}

impl OpenLine {
    /// Checks `bytes`, input for session `id` about to be queued for its terminal
    /// (`terminal`, `None` once it hung up): refused when the terminal reads whole lines and
    /// one of them, with what the line held before them, is longer than it keeps. Returns
    /// what the line holds once they are typed, for [`OpenLine::typed`].
    pub(super) fn check(
        &self,
        terminal: Option<BorrowedFd<'_>>,
        id: SessionId,
        bytes: &[u8],
    ) -> Result<usize> {
        // (Most input is shorter than a line can be and ends the one it starts, on a line
        // nothing was typed on: the terminal's modes are not asked for.)
        if self.bytes == 0
            && bytes.len() <= CANONICAL_LINE_BYTES
            && matches!(bytes.last(), Some(b'\r' | b'\n'))
        {
            return Ok(0);
        }
        if bytes.is_empty() {
            return Ok(self.bytes);
        }
        let Some(discipline) = terminal.and_then(Discipline::of) else { return Ok(0) };
        let (after, longest, first) = discipline.walk(self.bytes, bytes);
        if longest <= CANONICAL_LINE_BYTES {
            return Ok(after);
        }
        let before = match (first, self.bytes) {
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
    pub(super) fn typed(&mut self, after: usize) {
        self.bytes = after;
    }

    /// Forgets the line: queued input was dropped (an interrupt, a paste cut short), and what
    /// of it reached the terminal is not known. Counting less never refuses a line the
    /// terminal would keep.
    pub(super) fn forget(&mut self) {
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line end, end-of-file, the kill character and a signal character end the line; an
    /// erase takes a byte back; the longest line is said with whether it is the first.
    #[test]
    fn a_line_is_counted_as_the_line_discipline_counts_it() {
        let discipline = Discipline { kill: Some(0x15), signals: [Some(0x03), None, None] };
        assert_eq!(discipline.walk(10, b"abc"), (13, 13, true));
        assert_eq!(discipline.walk(10, b"ab\x7f\x08"), (10, 12, true));
        assert_eq!(discipline.walk(10, b"a\rbcdefghijklmn"), (13, 13, false));
        assert_eq!(discipline.walk(10, b"a\x15bc"), (2, 11, true));
        assert_eq!(discipline.walk(10, b"a\x03bc\x04d"), (1, 11, true));
    }
}
