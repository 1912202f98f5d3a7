//! The echo of a submitted line where the program laid it out on more than the line it was
//! typed on, or on less. A line editor that takes the terminal for one without an automatic
//! margin it can use (readline under `TERM=ansi`, which has `am` but not `xenl`) ends each
//! row of a long line with CR LF rather than letting it wrap, so the typed line reads as
//! several transcript lines, the echo going on at the start of each ([`EchoTrail`]); one
//! that cannot move the cursor up (readline under `TERM=dumb`) scrolls a long line sideways
//! within its row, which then shows `<` and the line's end
//! ([`TypedLine::scrolled_echo_len`]).

use std::ops::Range;

use super::transcript::TypedLine;

/// How far the echo of a typed line has been followed: the line that may go on with it, and
/// how many bytes of what it shows (the echo, then [`TypedLine::after`]) the lines before
/// showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EchoTrail {
    /// The line the echo may go on at the start of.
    pub(crate) line: u64,
    /// Bytes of the echo and then of [`TypedLine::after`] shown before it.
    shown: usize,
}

impl TypedLine {
    /// [`TypedLine::echo_len`] of `added`, what the typed line holds after
    /// [`TypedLine::before`], and the trail of the echo past it: `Some` when `added` shows
    /// nothing but echo (and blanks at its end), and part of the echo is still to come.
    pub(crate) fn echo_and_trail(&self, added: &str) -> (usize, Option<EchoTrail>) {
        let len = self.echo_len(added);
        (len, self.trail_past(self.number, 0, added, len))
    }

    /// Where the echo is in `text`, what the typed line holds now, and its trail past it:
    /// after [`TypedLine::before`] while the line still begins with it
    /// ([`TypedLine::echo_and_trail`]), or the whole line scrolled sideways
    /// ([`TypedLine::scrolled_echo_len`], no trail).
    pub(crate) fn echo_on_its_line(&self, text: &str) -> (Range<usize>, Option<EchoTrail>) {
        match text.strip_prefix(self.before.as_str()) {
            Some(added) => {
                let (echo, trail) = self.echo_and_trail(added);
                (self.before.len()..self.before.len() + echo, trail)
            }
            None => (0..self.scrolled_echo_len(text), None),
        }
    }

    /// How many bytes of `text`, what the typed line holds now when it no longer begins with
    /// [`TypedLine::before`], are the echo scrolled sideways: all of it when it reads `<`
    /// and then the end of the line as typed (the text before the cursor, the echo and
    /// [`TypedLine::after`]), readline's horizontal scrolling; none otherwise.
    pub(crate) fn scrolled_echo_len(&self, text: &str) -> usize {
        let (Some(echo), Some(shown)) = (&self.echo, text.strip_prefix('<')) else {
            return 0;
        };
        let shown = shown.trim_end_matches(' ');
        // The line as typed, read backwards from its text's end (no copy of it is made).
        let line = self.before.chars().chain(echo.chars()).chain(self.after.chars());
        let mut line = line.rev().skip_while(|&c| c == ' ');
        let ends_so = shown.chars().rev().all(|c| line.next() == Some(c));
        match self.echoed && !shown.is_empty() && ends_so {
            true => text.len(),
            false => 0,
        }
    }

    /// How many bytes at the start of `text`, line `trail.line`, go on with the echo, and the
    /// trail past them, as [`TypedLine::echo_and_trail`] gives it. A run of blanks at the
    /// break may show at the start of this line, have been lost at the end of the line
    /// before, or be split between the two: the blanks the rest of the echo begins with that
    /// `text` does not begin with were lost, and the echo goes on past them.
    pub(crate) fn echo_continued(
        &self,
        trail: EchoTrail,
        text: &str,
    ) -> (usize, Option<EchoTrail>) {
        let (echo, after) = self.shown_from(trail.shown);
        let blanks = |s: &str| s.len() - s.trim_start_matches(' ').len();
        let leading = match blanks(echo) < echo.len() {
            true => blanks(echo),
            false => echo.len() + blanks(after),
        };
        let shown = trail.shown + leading.saturating_sub(blanks(text));
        let (echo, after) = self.shown_from(shown);
        let len = agreeing(text, echo.chars().chain(after.chars()));
        (len, self.trail_past(trail.line, shown, text, len))
    }

    /// The trail past line `number`, whose `text` shows `len` bytes of the echo from `shown`
    /// on: the next line, when the echo ran to the line's end (blanks aside) and more is to
    /// come; `None` otherwise.
    fn trail_past(&self, number: u64, shown: usize, text: &str, len: usize) -> Option<EchoTrail> {
        if self.echo.is_none() || len == 0 || !text[len..].trim_end_matches(' ').is_empty() {
            return None;
        }
        let shown = shown + len;
        let (echo, after) = self.shown_from(shown);
        let more = !echo.trim_start_matches(' ').is_empty() || !after.trim().is_empty();
        more.then_some(EchoTrail { line: number + 1, shown })
    }

    /// What the echo shows from `shown` bytes into it: the rest of the echo, then the rest
    /// of [`TypedLine::after`].
    fn shown_from(&self, shown: usize) -> (&str, &str) {
        let echo = self.echo.as_deref().unwrap_or("");
        match echo.get(shown..) {
            Some(rest) => (rest, &self.after),
            None => ("", self.after.get(shown.saturating_sub(echo.len())..).unwrap_or("")),
        }
    }
}

/// How many bytes at the start of `text` agree with `expected`.
pub(super) fn agreeing(text: &str, expected: impl Iterator<Item = char>) -> usize {
    let mut end = 0;
    for ((at, a), e) in text.char_indices().zip(expected) {
        if a != e {
            return at;
        }
        end = at + a.len_utf8();
    }
    end
}

#[cfg(test)]
mod tests {
    use crate::term::transcript::TypedLine;

    fn typed(echo: Option<&str>) -> TypedLine {
        let (before, after) = ("$ ".to_owned(), String::new());
        let echo = echo.map(str::to_owned);
        let (terminal_echoes, anchored) = (false, false);
        TypedLine { number: 7, before, after, echoed: true, echo, terminal_echoes, anchored }
    }

    /// readline under `TERM=ansi` breaks `echo one two three` at the margin with CR LF: the
    /// echo goes on at the start of each line after, a blank at a break lost or not.
    #[test]
    fn the_echo_goes_on_past_line_breaks() {
        let line = typed(Some("echo one two three"));
        let (echo, trail) = line.echo_and_trail("echo on");
        assert_eq!(echo, 7);
        let trail = trail.expect("more to come");
        assert_eq!(trail.line, 8);
        let (echo, trail) = line.echo_continued(trail, "e two");
        assert_eq!(echo, 5);
        // The blank before `three` was at the end of the line before, trimmed.
        let (echo, trail) = line.echo_continued(trail.expect("more"), "three");
        assert_eq!((echo, trail), (5, None));
        // What follows the echo on a line of its own is the answer.
        let (echo, trail) =
            line.echo_continued(line.echo_and_trail("echo one ").1.unwrap(), "two x");
        assert_eq!((echo, trail), (4, None));
    }

    /// A blank at a break may start the next line rather than end the line before (readline
    /// under `TERM=ansi` breaks wherever the margin falls): the echo goes on from it, the blank
    /// kept, as it does with the blank lost.
    #[test]
    fn the_echo_goes_on_from_a_blank_at_the_start_of_a_line() {
        let line = typed(Some("echo one two three"));
        let trail = line.echo_and_trail("echo one").1.expect("more to come");
        let (echo, trail) = line.echo_continued(trail, " two thr");
        assert_eq!(echo, 8);
        let (echo, trail) = line.echo_continued(trail.expect("more"), "ee");
        assert_eq!((echo, trail), (2, None));
        // Blanks both ends: at the end of the line before, and at the start of this one.
        let line = typed(Some("echo one  two"));
        let trail = line.echo_and_trail("echo one ").1.expect("more to come");
        assert_eq!(line.echo_continued(trail, " two"), (4, None));
        // A line that starts with neither is no echo.
        let trail = line.echo_and_trail("echo one").1.expect("more to come");
        assert_eq!(line.echo_continued(trail, "x two").0, 0);
    }

    /// A run of blanks split by the break, some lost at the end of the line before and the
    /// rest shown at the start of the next: the echo goes on from the blanks shown, however
    /// many of the run they are.
    #[test]
    fn the_echo_goes_on_past_a_run_of_blanks_split_at_a_break() {
        let line = typed(Some("echo one    two"));
        for shown in 0..=4 {
            let trail = line.echo_and_trail("echo one").1.expect("more to come");
            let text = format!("{}two", " ".repeat(shown));
            assert_eq!(line.echo_continued(trail, &text), (text.len(), None), "{text:?}");
        }
        // More blanks than the echo has are not all echo.
        let trail = line.echo_and_trail("echo one").1.expect("more to come");
        assert_eq!(line.echo_continued(trail, "     two").0, 4);
    }

    /// The echo goes on only from a line that shows nothing but echo, and only while some is
    /// to come; not when the echo cannot be told.
    #[test]
    fn no_trail_past_a_line_with_more_than_echo() {
        let line = typed(Some("echo one two"));
        assert_eq!(line.echo_and_trail("echo one two").1, None);
        assert_eq!(line.echo_and_trail("echo one   ").1.map(|t| t.line), Some(8));
        assert_eq!(line.echo_and_trail("echo onX").1, None);
        assert_eq!(line.echo_and_trail("").1, None);
        assert_eq!(typed(None).echo_and_trail("echo one").1, None);
        let trail = line.echo_and_trail("echo one").1.unwrap();
        assert_eq!(line.echo_continued(trail, "something else").0, 0);
    }

    /// readline under `TERM=dumb` scrolls a long line sideways: `<` and the line's end.
    #[test]
    fn a_line_scrolled_sideways_is_echo() {
        let line = typed(Some("echo one two three"));
        assert_eq!(line.scrolled_echo_len("<two three"), 10);
        assert_eq!(line.scrolled_echo_len("<two three  "), 12);
        assert_eq!(line.scrolled_echo_len("<two"), 0);
        assert_eq!(line.scrolled_echo_len("two three"), 0);
        assert_eq!(line.scrolled_echo_len("<"), 0);
        assert_eq!(typed(None).scrolled_echo_len("<two three"), 0);
    }
}
