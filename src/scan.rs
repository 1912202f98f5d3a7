//! A light scanner that runs over PTY bytes ahead of the emulator and tells the feed loop
//! where to stop.
//!
//! alacritty's grid keeps a small history that the engine drains into the transcript after
//! every slice it feeds. The scanner chooses those slices so that:
//! - no slice can scroll more lines into the history than it holds (a conservative count:
//!   every byte outside an escape sequence counts one line, `CSI S`, `CSI J` and `CSI M` count
//!   a full screen);
//! - the history is drained right *before* the sequences that wipe it, `CSI 3 J` (sent by
//!   `clear`) and `ESC c` (full reset), so their lines reach the transcript first;
//! - OSC 133 shell-integration marks, which the emulator ignores, are reported at the exact
//!   point of the stream where they occur, even when split across reads.
//!
//! Bytes outside escape sequences are skipped with `memchr`, so the scanner costs little next
//! to the emulator itself.

/// The most OSC payload bytes kept while looking for an OSC 133 mark.
const OSC_PREFIX: usize = 64;
/// The most CSI parameter bytes kept.
const CSI_PARAMS: usize = 16;

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

/// Why a scan stopped before the end of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Every byte given was scanned.
    End,
    /// The line budget is spent: drain the history, then go on.
    Budget,
    /// The next byte wipes the history: drain it before feeding that byte.
    DrainBefore,
    /// An OSC 133 mark ends at the returned offset.
    Mark(PromptMark),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    EscapeIntermediate,
    Csi,
    Osc,
    OscEscape,
    String,
    StringEscape,
}

/// The scanner's state, carried across reads.
pub(crate) struct Scanner {
    state: State,
    params: [u8; CSI_PARAMS],
    params_len: usize,
    csi_intermediate: bool,
    osc: [u8; OSC_PREFIX],
    osc_len: usize,
    /// Lines counted since the last [`Scanner::reset_budget`].
    lines: usize,
    /// The byte at the front of the next scan was already reported as `DrainBefore`.
    armed: bool,
}

impl Scanner {
    pub(crate) fn new() -> Self {
        Scanner {
            state: State::Ground,
            params: [0; CSI_PARAMS],
            params_len: 0,
            csi_intermediate: false,
            osc: [0; OSC_PREFIX],
            osc_len: 0,
            lines: 0,
            armed: false,
        }
    }

    /// Starts a new line budget (after the history was drained).
    pub(crate) fn reset_budget(&mut self) {
        self.lines = 0;
    }

    /// Scans `bytes` until the budget of `budget` lines is spent or something needs the feed
    /// loop's attention; returns how many bytes may be fed, and why it stopped.
    ///
    /// `screen_lines` is what one scroll or erase sequence can push into the history.
    pub(crate) fn scan(
        &mut self,
        bytes: &[u8],
        budget: usize,
        screen_lines: usize,
    ) -> (usize, Stop) {
        let mut i = 0;
        while i < bytes.len() {
            if self.lines >= budget {
                return (i, Stop::Budget);
            }
            if self.state == State::Ground {
                let rest = &bytes[i..];
                let room = budget - self.lines;
                let run = memchr::memchr(0x1b, rest).unwrap_or(rest.len());
                let take = run.min(room);
                self.lines += take;
                i += take;
                if take < run || i == bytes.len() {
                    continue;
                }
                // At an ESC.
                self.state = State::Escape;
                i += 1;
                continue;
            }
            if self.state == State::Csi {
                // Parameter bytes in a tight loop (the first CSI_PARAMS are kept for `CSI 3 J`).
                let params = bytes[i..].iter().take_while(|b| (0x30..=0x3f).contains(*b)).count();
                for &b in &bytes[i..i + params] {
                    if self.params_len < CSI_PARAMS {
                        self.params[self.params_len] = b;
                    }
                    self.params_len += 1;
                }
                i += params;
                if i == bytes.len() {
                    break;
                }
            }
            let byte = bytes[i];
            match self.step(byte, screen_lines) {
                None => i += 1,
                Some(Stop::DrainBefore) => {
                    if self.armed {
                        self.armed = false;
                        self.finish_sequence(byte);
                        i += 1;
                    } else {
                        self.armed = true;
                        return (i, Stop::DrainBefore);
                    }
                }
                Some(stop) => return (i + 1, stop),
            }
        }
        (i, Stop::End)
    }

    /// Advances the state over one byte of an escape sequence. Returns a stop when the byte
    /// completes something the feed loop must act on; for `DrainBefore` the state is not
    /// advanced (see `finish_sequence`).
    fn step(&mut self, byte: u8, screen_lines: usize) -> Option<Stop> {
        // CAN and SUB abort any sequence; ESC starts a new one (but ends a string with `\`).
        match (self.state, byte) {
            (_, 0x18 | 0x1a) => {
                self.state = State::Ground;
                return None;
            }
            (State::Osc, 0x1b) => {
                self.state = State::OscEscape;
                return None;
            }
            (State::String, 0x1b) => {
                self.state = State::StringEscape;
                return None;
            }
            (State::OscEscape | State::StringEscape, _) => {
                let mark = if self.state == State::OscEscape { self.osc_mark() } else { None };
                self.state = State::Ground;
                if byte == b'\\' {
                    return mark.map(Stop::Mark);
                }
                // Not a string terminator: the ESC started a new sequence.
                self.state = State::Escape;
                return self.step(byte, screen_lines).or(mark.map(Stop::Mark));
            }
            (_, 0x1b) => {
                self.state = State::Escape;
                return None;
            }
            _ => {}
        }
        match self.state {
            State::Ground => None,
            State::Escape => {
                self.state = State::Ground;
                match byte {
                    b'[' => {
                        self.state = State::Csi;
                        self.params_len = 0;
                        self.csi_intermediate = false;
                    }
                    b']' => {
                        self.state = State::Osc;
                        self.osc_len = 0;
                    }
                    b'P' | b'X' | b'^' | b'_' => self.state = State::String,
                    b'c' => {
                        self.state = State::Escape;
                        return Some(Stop::DrainBefore);
                    }
                    b'D' | b'E' => self.lines += 1,
                    0x20..=0x2f => self.state = State::EscapeIntermediate,
                    _ => {}
                }
                None
            }
            State::EscapeIntermediate => {
                if !(0x20..=0x2f).contains(&byte) {
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
                        let params = &self.params[..self.params_len.min(CSI_PARAMS)];
                        if byte == b'J' && !self.csi_intermediate && is_three(params) {
                            return Some(Stop::DrainBefore);
                        }
                        if matches!(byte, b'S' | b'J' | b'M') {
                            self.lines += screen_lines;
                        }
                        self.state = State::Ground;
                    }
                    _ => {}
                }
                None
            }
            State::Osc => {
                if byte == 0x07 {
                    self.state = State::Ground;
                    return self.osc_mark().map(Stop::Mark);
                }
                if self.osc_len < OSC_PREFIX {
                    self.osc[self.osc_len] = byte;
                    self.osc_len += 1;
                }
                None
            }
            State::String | State::OscEscape | State::StringEscape => None,
        }
    }

    /// Completes the sequence whose final byte was reported as `DrainBefore`.
    fn finish_sequence(&mut self, _byte: u8) {
        self.state = State::Ground;
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
        Some(match kind {
            b'A' => PromptMark::PromptStart,
            b'B' => PromptMark::InputStart,
            b'C' => PromptMark::OutputStart,
            b'D' => {
                let code = after
                    .get(1..)
                    .and_then(|p| p.split(|&b| b == b';').next())
                    .and_then(|p| std::str::from_utf8(p).ok())
                    .and_then(|p| p.parse().ok());
                PromptMark::CommandEnd(code)
            }
            _ => return None,
        })
    }
}

fn is_three(params: &[u8]) -> bool {
    let digits = params.iter().skip_while(|&&b| b == b'0');
    digits.eq([b'3'].iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `input` in pieces of `chunk` bytes, collecting (absolute offset, stop) pairs.
    fn stops(input: &[u8], chunk: usize, budget: usize) -> Vec<(usize, Stop)> {
        let mut scanner = Scanner::new();
        let mut out = Vec::new();
        let mut base = 0;
        for piece in input.chunks(chunk) {
            let mut at = 0;
            while at < piece.len() {
                let (n, stop) = scanner.scan(&piece[at..], budget, 10);
                at += n;
                if stop != Stop::End {
                    out.push((base + at, stop));
                }
                if matches!(stop, Stop::Budget | Stop::DrainBefore) {
                    scanner.reset_budget();
                }
            }
            base += piece.len();
        }
        out
    }

    #[test]
    fn clear_history_stops_before_final_byte_in_any_split() {
        let input = b"abc\x1b[H\x1b[2J\x1b[3Jdef";
        for chunk in 1..input.len() {
            let found: Vec<_> = stops(input, chunk, 1000)
                .into_iter()
                .filter(|s| s.1 == Stop::DrainBefore)
                .collect();
            assert_eq!(found, vec![(13, Stop::DrainBefore)], "chunk {chunk}");
        }
    }

    #[test]
    fn reset_stops_before_c() {
        let found = stops(b"x\x1bcy", 100, 1000);
        assert_eq!(found, vec![(2, Stop::DrainBefore)]);
    }

    #[test]
    fn osc_133_marks_in_any_split() {
        let input = b"\x1b]133;A\x07$ \x1b]133;B\x1b\\ls\x1b]133;D;127\x07";
        for chunk in 1..input.len() {
            let marks: Vec<_> = stops(input, chunk, 1000);
            assert_eq!(
                marks,
                vec![
                    (8, Stop::Mark(PromptMark::PromptStart)),
                    (19, Stop::Mark(PromptMark::InputStart)),
                    (33, Stop::Mark(PromptMark::CommandEnd(Some(127)))),
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn other_osc_and_csi_are_ignored() {
        assert!(stops(b"\x1b]0;title\x07\x1b[31mred\x1b[0m\x1b]1337;x\x07", 3, 1000).is_empty());
        assert!(stops(b"\x1b[13J\x1b[?3J", 100, 1000).is_empty());
    }

    #[test]
    fn budget_bounds_lines() {
        let input = vec![b'\n'; 250];
        let found = stops(&input, 1000, 100);
        assert_eq!(found, vec![(100, Stop::Budget), (200, Stop::Budget)]);
        // A scroll sequence counts a whole screen (10 lines here).
        let found = stops(b"\x1b[5S\x1b[5S\x1b[5S", 100, 15);
        assert_eq!(found, vec![(8, Stop::Budget)]);
    }
}
