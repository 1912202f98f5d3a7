//! The timing of a session's output since its last input: its pace (a program that prints on
//! a timer, a progress bar redrawn once a second, is running between its prints, not quiet,
//! as is one that left a row redrawn in place, a download's meter),
//! and whether it drew again after a pause (the answer to an Escape typed after other keys).

use std::time::{Duration, Instant};

/// Silence shorter than this between two reads of output is one burst of it (a frame written
/// in several reads), not a pause between two prints.
const BURST: Duration = Duration::from_millis(100);

/// Silence at least this long between two reads of output since the last input is a pause in
/// the program's answer: ncurses waits its `ESCDELAY` (25 ms in htop and nnn, 1 s by default)
/// for the rest of a key code after an Escape before it answers it.
const ANSWER_PAUSE: Duration = Duration::from_millis(20);

/// The longest pause between prints that makes a pace: a program silent for longer than the
/// default wait's 10 s prints on no timer a caller can see. (A pace holds for half as long
/// again as its longer pause, so a wait held by a meter's pace may run to its end.)
const LONGEST_BEAT: Duration = Duration::from_secs(10);

/// How long a row redrawn in place holds after its latest redraw (see [`Row::Redrawn`]):
/// twice curl's longest gap between two redraws of its meter measured under `--limit-rate`
/// (1.45 s), so a download is followed from its first redraw, before its pace shows.
const METER_BEAT: Duration = Duration::from_secs(3);

/// What the output since the last input left on the cursor's row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Row {
    /// A line ended (or nothing was printed): no row redrawn.
    #[default]
    Other,
    /// A carriage return with nothing after it yet.
    Returned,
    /// Text after a carriage return, not ended: a row redrawn in place, as a download's meter
    /// is (`\r 10 7812k ...`), not a line printed and ended.
    Redrawn,
}

/// The last two pauses between bursts of a session's output since its last input (see
/// [`Cadence::holds`]).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cadence {
    /// When the latest burst began and was last added to.
    last: Option<Instant>,
    /// The pause before the latest burst, and the one before that.
    beats: [Option<Duration>; 2],
    /// Whether output came after a pause of [`ANSWER_PAUSE`] or more in it.
    paused: bool,
    /// What the latest output left on the cursor's row.
    row: Row,
    /// The escape sequence the latest output ended inside, if any: the next read goes on
    /// with it (a `\r\x1b[K` split between two reads writes no text).
    escape: Escape,
}

/// Where output stands within an escape sequence, as far as telling text from it needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Escape {
    /// Outside any.
    #[default]
    None,
    /// After ESC.
    Esc,
    /// In a CSI sequence, up to its final byte.
    Csi,
    /// In a string (OSC, DCS, SOS, PM, APC), up to BEL or ST.
    Text,
    /// After an ESC in a string: ST's first byte.
    TextEsc,
    /// After `ESC (` and its kin, before the one byte that ends it (`ESC ( B`).
    Designate,
}

impl Cadence {
    /// Notes output read at `now`.
    pub(super) fn output(&mut self, now: Instant) {
        if let Some(last) = self.last {
            let pause = now.saturating_duration_since(last);
            self.paused |= pause >= ANSWER_PAUSE;
            if pause >= BURST {
                self.beats = [Some(pause), self.beats[0]];
            }
        }
        self.last = Some(now);
    }

    /// Notes the bytes of output read: whether they leave the cursor on a row redrawn in
    /// place, text written after a carriage return and no line ended.
    pub(super) fn printed(&mut self, bytes: &[u8]) {
        let (after, start) = match memchr::memrchr2(b'\r', b'\n', bytes) {
            Some(at) if bytes[at] == b'\n' => (Row::Other, at + 1),
            Some(at) => (Row::Returned, at + 1),
            None => (self.row, 0),
        };
        let escape = if start == 0 { self.escape } else { Escape::None };
        let (text, escape) = shows_text(&bytes[start..], escape);
        self.escape = escape;
        self.row = match after {
            Row::Returned | Row::Redrawn if text => Row::Redrawn,
            row => row,
        };
    }

    /// Whether the latest output left the cursor on a row redrawn in place ([`Row::Redrawn`]):
    /// a meter, whose pace holds a wait, unlike lines printed at one.
    pub(super) fn row_redrawn(&self) -> bool {
        self.row == Row::Redrawn
    }

    /// Notes input: what the program prints next answers it, and starts a pace of its own.
    pub(super) fn input(&mut self) {
        *self = Cadence::default();
    }

    /// Whether the program drew again after a pause since the last input (see
    /// [`ANSWER_PAUSE`]): after keys that end in an Escape, or the start of a key code, what
    /// it drew first answers the keys before it, and what it drew after waiting answers the
    /// Escape too. (An Escape typed after `F6` to `htop -d 10`, closing the menu F6 opened,
    /// was waited out for its one-second tick, 1.11 s.)
    pub(super) fn drew_after_a_pause(&self) -> bool {
        self.paused
    }

    /// Whether the program prints at a pace, its last two pauses between prints alike (the
    /// longer at most half as long again as the shorter, and no longer than [`LONGEST_BEAT`]),
    /// and has been silent for `silent` (since the latest print) no longer than half as long
    /// again as the longer one: it is between two prints, not quiet. (A progress bar redrawn
    /// once a second read `running, quiet` whenever it was read more than the quiet window's
    /// 500 ms after a redraw, about half of the reads.) So does a row redrawn in place
    /// ([`Row::Redrawn`], a download's meter) silent for no longer than [`METER_BEAT`], when
    /// `meter_runs`: the program may yet redraw it, waiting on the world outside or a short
    /// timer, or busy, not stopped nor in a long sleep (a bar that printed ` done` on its row
    /// before `exec sleep 60` is quiet once its pace broke).
    pub(super) fn holds(&self, silent: Duration, meter_runs: bool) -> bool {
        self.pace_left(silent, meter_runs).is_some()
    }

    /// How much longer the pace holds (see [`Cadence::holds`]) after `silent` since the
    /// latest print: `None` once it does not.
    pub(super) fn pace_left(&self, silent: Duration, meter_runs: bool) -> Option<Duration> {
        // A row redrawn in place is a meter from its first redraw, before two pauses show a
        // pace: curl's first gap, up to 1.45 s, was taken for the silence of a settled
        // screen.
        let meter = match self.row {
            Row::Redrawn if meter_runs => METER_BEAT.checked_sub(silent),
            Row::Redrawn | Row::Other | Row::Returned => None,
        };
        let [Some(latest), Some(before)] = self.beats else { return meter };
        let (short, long) = (latest.min(before), latest.max(before));
        let paced = long <= LONGEST_BEAT && long <= short.saturating_mul(3) / 2;
        let pace = (paced && silent <= long * 3 / 2).then(|| long * 3 / 2 - silent);
        pace.max(meter)
    }
}

/// Whether `bytes`, read from within `escape`, write text: a character other than a blank,
/// outside escape sequences (`\r\x1b[K` erases the row and writes none, nor do a title's
/// OSC, a character set's designation or a spinner's blanks); and the escape sequence they
/// end inside.
fn shows_text(bytes: &[u8], mut escape: Escape) -> (bool, Escape) {
    for &b in bytes {
        escape = match (escape, b) {
            (Escape::None, 0x1b) => Escape::Esc,
            (Escape::None, 0x21..=0x7e | 0x80..) => return (true, Escape::None),
            (Escape::None, _) => Escape::None,
            (Escape::Esc, b'[') => Escape::Csi,
            (Escape::Esc, b']' | b'P' | b'X' | b'^' | b'_') => Escape::Text,
            (Escape::Esc, b' ' | b'#' | b'%' | b'(' | b')' | b'*' | b'+' | b'-' | b'.' | b'/') => {
                Escape::Designate
            }
            (Escape::Esc | Escape::Designate, _) => Escape::None,
            (Escape::Csi, 0x40..=0x7e) => Escape::None,
            (Escape::Csi, _) => Escape::Csi,
            (Escape::Text, 0x07) | (Escape::TextEsc, b'\\') => Escape::None,
            (Escape::Text | Escape::TextEsc, 0x1b) => Escape::TextEsc,
            (Escape::Text | Escape::TextEsc, _) => Escape::Text,
        };
    }
    (false, escape)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(start: Instant, ms: u64) -> Instant {
        start + Duration::from_millis(ms)
    }

    #[test]
    fn a_steady_pace_holds_until_a_beat_and_a_half_of_silence() {
        let start = Instant::now();
        let mut cadence = Cadence::default();
        let second = Duration::from_secs(1);
        cadence.output(start);
        cadence.output(after(start, 1000));
        assert!(!cadence.holds(second / 2, true), "one pause is no pace");
        // (A frame in two reads is one burst.)
        cadence.output(after(start, 2000));
        cadence.output(after(start, 2010));
        assert!(cadence.holds(second / 2, true) && cadence.holds(second * 3 / 2, true));
        assert!(!cadence.holds(second * 2, true), "silent for two beats");
        cadence.input();
        assert!(!cadence.holds(second / 2, true), "input starts again");
    }

    #[test]
    fn a_row_redrawn_in_place_holds_from_its_first_redraw() {
        let second = Duration::from_secs(1);
        let mut cadence = Cadence::default();
        cadence.printed(b"  % Total    % Received\r\n\r  0     0    0");
        assert!(cadence.holds(second * 2, true), "the meter's first state");
        assert!(!cadence.holds(second * 4, true), "a meter silent for longer than its beat");
        assert!(!cadence.holds(second * 2, false), "a meter that cannot be redrawn soon");
        for ended in [&b"\r 10 7812k\n"[..], b"done\r\n", b"\r\x1b[K"] {
            cadence.printed(b"\r 10 7812k");
            cadence.printed(ended);
            assert!(!cadence.holds(second * 2, true), "{ended:?}");
        }
        // Nothing written after the carriage return: an erase split between two reads, a
        // title's OSC, a character set's designation, a spinner's blanks.
        for (first, then) in [
            (&b"\r\x1b["[..], &b"K"[..]),
            (b"\r\x1b", b"[K"),
            (b"\r\x1b(B\x1b[m", b""),
            (b"\r\x1b]0;a title\x1b", b"\\"),
            (b"\r\x1b]0;a", b" title\x07"),
            (b"\r    ", b""),
        ] {
            cadence.printed(b"\n");
            cadence.printed(first);
            cadence.printed(then);
            assert!(!cadence.holds(second * 2, true), "{first:?} {then:?}");
        }
        // A carriage return at a read's end, the text in the next.
        cadence.printed(b"\r");
        cadence.printed(b" 20 7812k");
        assert!(cadence.holds(second * 2, true));
        cadence.input();
        assert!(!cadence.holds(second * 2, true), "input starts again");
        cadence.printed(b"Password: ");
        assert!(!cadence.holds(second * 2, true), "text after no carriage return");
    }

    #[test]
    fn output_after_a_pause_since_the_input_is_told() {
        let start = Instant::now();
        let mut cadence = Cadence::default();
        cadence.output(start);
        cadence.output(after(start, 5));
        assert!(!cadence.drew_after_a_pause(), "one burst");
        cadence.output(after(start, 30));
        assert!(cadence.drew_after_a_pause(), "drawn again 25 ms later");
        cadence.input();
        cadence.output(after(start, 500));
        assert!(!cadence.drew_after_a_pause(), "the first output after input is no pause");
    }

    #[test]
    fn pauses_unlike_or_too_long_make_no_pace() {
        let start = Instant::now();
        let mut cadence = Cadence::default();
        for ms in [0, 200, 3200] {
            cadence.output(after(start, ms));
        }
        assert!(!cadence.holds(Duration::from_secs(1), true), "0.2 s then 3 s");
        let mut cadence = Cadence::default();
        for ms in [0, 12_000, 24_000] {
            cadence.output(after(start, ms));
        }
        assert!(!cadence.holds(Duration::from_secs(1), true), "beyond the longest beat");
    }
}
