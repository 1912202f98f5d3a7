//! Wait conditions ([`Until`]) and what a wait reports ([`WaitOutcome`]).

use std::fmt;
use std::time::Duration;

use regex::Regex;
use search::{CallerRegex, Undecided};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::term::screen::style::StyledScreen;
use crate::term::screen::{Screen, cell_col};
use crate::types::ExitStatus;
use crate::types::Status;

mod empty;
pub(crate) mod positions;
pub(crate) mod search;
mod unshown;

/// A condition a [`Session::wait`](crate::Session::wait) blocks for.
///
/// Transcript conditions look at output the caller has not read yet (from the session's read
/// cursor on), so output that arrived between a read and the wait is not missed; they match
/// within one logical line. Screen conditions look at the visible screen each time output is
/// processed.
///
/// ```no_run
/// use std::time::Duration;
/// use termloom::{Config, Engine, Fired, SpawnSpec, Until};
///
/// let engine = Engine::new(Config::default())?;
/// let sh = engine.spawn(SpawnSpec::new("sh").args(["-c", "sleep 1; echo ready; read x"]))?;
/// // Whichever comes first: the text, the program reading its terminal, or its exit.
/// let until = Until::any(vec![Until::regex(r"^ready$")?, Until::input_wait(), Until::exit()]);
/// let outcome = sh.wait(until, Duration::from_secs(10))?;
/// match outcome.fired {
///     Fired::Matched(found) => println!("{} after {:?}", found.text, outcome.elapsed),
///     other => println!("ended otherwise: {other:?}"),
/// }
/// # Ok::<(), termloom::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Until(pub(crate) Cond);

#[derive(Debug, Clone)]
pub(crate) enum Cond {
    Text(String),
    Regex(CallerRegex),
    Screen(String),
    ScreenRegex(CallerRegex),
    ScreenRow(u16, String),
    ScreenRowRegex(u16, CallerRegex),
    Cursor(u16, u16),
    ScreenFn(ScreenTest),
    StyledFn(StyledTest),
    Exit,
    Stable(Duration),
    Quiet(Duration),
    /// Quiet for the duration, unless the program is known to be busy (not waiting for input).
    Settled(Duration),
    /// The program waits for a line or a password (canonical input), or for keys with nothing
    /// but a key able to wake it, with a still screen.
    AsksForLine,
    Prompt,
    InputWait,
    /// The terminal's input queue was found empty at least this long ago, after the last
    /// input, and the program printed since; or `UNANSWERED_READ` longer ago, the program
    /// silent since and its foreground group not blocked on the terminal (see
    /// [`Until::input_read`]).
    InputRead(Duration),
    Any(Vec<Until>),
}

/// A caller's test of the screen, with a description for outcomes and messages.
#[derive(Clone)]
pub(crate) struct ScreenTest {
    description: String,
    test: std::sync::Arc<dyn Fn(&Screen) -> bool + Send + Sync>,
}

impl std::fmt::Debug for ScreenTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ScreenTest({:?})", self.description)
    }
}

/// A caller's test of the styled screen, with a description for outcomes and messages.
#[derive(Clone)]
pub(crate) struct StyledTest {
    description: String,
    test: std::sync::Arc<dyn Fn(&StyledScreen) -> bool + Send + Sync>,
}

impl std::fmt::Debug for StyledTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StyledTest({:?})", self.description)
    }
}

/// The session's state that time- and state-based conditions look at.
#[derive(Clone, Copy)]
pub(crate) struct StateView {
    /// Time since the last output.
    pub quiet_for: Duration,
    /// Time since a probe last saw the program busy awaiting a far end's verdict (`ssh` after
    /// a password; `Duration::MAX`: never): a wait for silence ([`Until::settled`]) counts
    /// from then too, since that silence is no answer (a program caught running a moment
    /// between two idle ticks, `less +F`, does not count).
    pub idle_for: Duration,
    /// Time since the screen last changed (or input was sent): for a stable screen, and for
    /// input-wait, which output that changes nothing on the screen does not delay (a program
    /// that redraws the same frame on every tick of a timer while it waits for keys).
    pub stable_for: Duration,
    /// The shell drew its prompt after the last input.
    pub at_prompt: bool,
    /// Whether the foreground process group waits for input (`None`: not checked, or
    /// `/proc` could not tell).
    pub input_wait: Option<bool>,
    /// Quiet time required before input-wait is believed.
    pub settle: Duration,
    /// The program asks for a line with nothing else able to print: the terminal takes whole
    /// lines (canonical mode: a line or a password), the shell is back at its prompt, or the
    /// program reads keys with nothing but a key able to wake it (a REPL's line editor).
    pub line_input: bool,
    /// The program printed, or was typed to, since the wait began, or the wait need not
    /// see it answered (see `Waiter::asked_from`): only then does its asking for a line end
    /// the wait.
    pub answered_since: bool,
    /// A full-screen program that does nothing but redraw on a timer (`watch`): what it
    /// prints on each tick is no activity, and it has settled.
    pub redrawing: bool,
    /// A full-screen program ticking on a short timer with nothing to print (`less +F` between
    /// its looks at the file it follows): it has shown what it shows, and settles as one
    /// redrawing on a timer does, not after the silence's fallback.
    pub idle_ticking: bool,
    /// The program is in a sleep this long, longer than any default wait (`sleep 300`): it
    /// settles at once (it was quiet for `settle` before it was seen so, twice), and says so.
    pub sleeping: Option<Duration>,
    /// The program waits on files it follows alone (`tail -f`, seen so twice): it has printed
    /// what they hold, and settles at once, saying so, as a long sleep does.
    pub following: bool,
    /// The program's output left a row redrawn in place (a download's meter, redrawn about
    /// once a second while it waits on its socket) that it may yet redraw, from its first
    /// redraw or as long as its pace holds, for this much longer (`None`: no such row, or
    /// lines printed and ended): its silence is no sign it settled.
    pub paced: Option<Duration>,
    /// When a look found the terminal's input queue empty after the last input, whether the
    /// program printed after that look, and what a look at its readers then found (`None`:
    /// not looked for, or input still unread): see [`Until::input_read`].
    pub input_read_for: Option<InputRead>,
}

/// A look that found the terminal's input queue empty after the last input (see
/// [`Until::input_read`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InputRead {
    /// How long ago.
    pub ago: Duration,
    /// Whether the program printed after it.
    pub printed: bool,
    /// Whether a thread of the foreground group was seen blocked on the terminal (reading it,
    /// or polling it, whatever the timer; or that could not be told) by the one look made
    /// once the program had printed nothing for [`UNANSWERED_READ`] since: a relay
    /// (`script`, `sudo` with `use_pty`, `ssh`, `docker exec`) read the input at once for a
    /// program on a terminal of its own, which may still be busy and not have read it.
    /// `None`: not looked yet.
    pub reader_seen: Option<bool>,
}

impl InputRead {
    /// How much longer until input found read so holds for `Until::input_read(duration)`:
    /// `duration` after the look when the program printed since; [`UNANSWERED_READ`] more
    /// when it did not and no reader of the terminal was seen then; at least until the
    /// readers are looked at ([`UNANSWERED_READ`] after the look, never zero) before that;
    /// `None` (only output can make it hold) when one was seen.
    fn left(&self, duration: Duration) -> Option<Duration> {
        let bound = match (self.printed, self.reader_seen) {
            (true, _) => duration,
            (false, Some(false)) => duration.saturating_add(UNANSWERED_READ),
            (false, Some(true)) => return None,
            (false, None) => {
                return Some(UNANSWERED_READ.saturating_sub(self.ago).max(INPUT_WAIT_POLL));
            }
        };
        Some(bound.saturating_sub(self.ago))
    }
}

/// How much longer than its time [`Until::input_read`] waits when the program printed nothing
/// after its input was found read: one waiting for a key code's rest after an Escape with a
/// timer of a second or less (a longer one is taken for a wait for input, and gets the keys
/// after the Escape within it) prints its answer once its timer ends; on a loaded machine it
/// may run only later, and the keys typed meanwhile would come in the same read as the
/// Escape. A program that never prints once it read the input (a game polling the terminal)
/// gets the next keys this much later, not at the end of the caller's wait. Also how long
/// after the input was found read, the program silent since, the foreground group's threads
/// are looked at once ([`InputRead::reader_seen`]): one blocked on the terminal then is a
/// relay (or a program waiting for input, which `Until::input_wait` meets), and silence
/// then says nothing of the program behind it.
pub(crate) const UNANSWERED_READ: Duration = crate::os::procfs::SHORT_TIMER;

/// How long a program asking for a line stays quiet before a wait for something else gives up
/// ([`Until::asks_for_line`]): a thread of its own that prints now and then (progress while
/// the main thread reads) prints sooner.
pub(crate) const ASKED_STILL: Duration = Duration::from_millis(500);
/// How often a quiet program's wait for a line is looked for while another condition is
/// waited for (less often than an asked-for input wait: it only spares the rest of a timeout),
/// once [`ASKED_CONFIRMING`] has passed.
const ASKED_POLL: Duration = Duration::from_millis(250);
/// For how long after [`ASKED_STILL`] a quiet program's wait for a line is looked for as
/// often as an input wait is ([`INPUT_WAIT_POLL`]): a first sighting waits for a second to
/// confirm it, twice (the input wait's, then the line's), and at [`ASKED_POLL`] apart a
/// password prompt ended a wait for text after a second, not after half of one.
const ASKED_CONFIRMING: Duration = Duration::from_millis(150);

/// How often input-wait is re-checked while a waiter needs it and nothing else happens.
const INPUT_WAIT_POLL: Duration = Duration::from_millis(25);
/// How often a quiet program is looked at while a wait for silence ([`Until::settled`])
/// waits: seen twice in a long sleep, it settles the wait (the reactor confirms what it sees
/// 50-200 ms apart).
const SLEEP_LOOK: Duration = Duration::from_millis(100);

/// Refuses a wait text no line of the transcript or the screen can hold: they hold text one
/// line at a time, as a terminal shows it, so a line break, a tab (shown as the spaces it
/// moved the cursor over) or another control character (acted on, never shown: the Escape
/// of a colour, a carriage return) is in none.
fn shown_text(text: &str) -> Result<()> {
    if text.is_empty() {
        return Err(Error::InvalidInput(
            "wait text is empty, and every line holds the empty text, so the wait would hold at once whatever the program prints: give the text to wait for".into(),
        ));
    }
    if text.contains('\n') {
        return Err(Error::InvalidInput(format!(
            "wait text {} contains a line break; transcript and screen conditions match within one line",
            crate::error::quoted(text)
        )));
    }
    let Some(control) = text.chars().find(|c| c.is_control()) else { return Ok(()) };
    let what = match control {
        '\t' => "a tab, which the terminal shows as spaces (as many as it moved the cursor over): write those, or wait for a regular expression with \\s+".to_owned(),
        '\x1b' => "an Escape, which starts a sequence the terminal acts on (a colour?) and never shows: wait for the text alone (Until::styled_screen_matches tests colours)".to_owned(),
        '\r' => "a carriage return, which the terminal acts on and never shows".to_owned(),
        c => format!("the control character U+{:04X}, which the terminal acts on and never shows", u32::from(c)),
    };
    Err(Error::InvalidInput(format!(
        "wait text {} contains {what}; transcript and screen conditions match text as it is shown, so the wait could never hold",
        crate::error::quoted(text)
    )))
}

/// Why `pattern` is not a regular expression, and what to write instead.
pub(crate) fn bad_regex(pattern: &str, err: &regex::Error) -> String {
    format!(
        "bad regular expression {}: {}; it is Rust regex syntax: escape ( ) [ ] {{ }} . * + ? | ^ $ \\ with a backslash to match them as text",
        crate::error::quoted(pattern),
        crate::error::regex_problem(err)
    )
}

/// The most automaton a caller's regular expression may compile to, in bytes (the `regex`
/// crate's `size_limit`; its own default is 10 MiB). A Unicode class is tens of kilobytes of
/// it (`\w` about 50 KB), and past about this much a search no longer fits the crate's lazy
/// DFA and falls back to tracking every state at each byte: `\w{40}` compiles to 2.0 MB
/// and searches a line of 256 KiB in a millisecond, `\w{60}`, 3.0 MB, in 0.3 to 0.6 s
/// (release build), on the reactor for a wait.
const MAX_COMPILED_BYTES: usize = 2 << 20;

/// A caller's `pattern` compiled, or why not: it is no regular expression, it compiles to more
/// than [`MAX_COMPILED_BYTES`] (a Unicode class repeated: `\w{60}`), or it has more than
/// [`positions::MAX_POSITIONS`] characters and classes to match (counted repetitions
/// expanded: a literal of 60,000 `a`s compiles to 1.9 MB, but searching a line of `a`s
/// tracks each of them at every byte, 21 s over 256 KiB in a release build).
pub(crate) fn caller_regex(pattern: &str) -> std::result::Result<Regex, String> {
    parse_caller(pattern).map(|parsed| parsed.regex)
}

/// A caller's pattern compiled ([`caller_regex`]), with what the checks of a wait read.
struct Parsed {
    regex: Regex,
    /// Its syntax tree, parsed once for every check that reads it.
    hir: regex_syntax::hir::Hir,
    /// Its positions ([`positions::positions`]).
    positions: usize,
}

/// A caller's `pattern` compiled and parsed, or why not (see [`caller_regex`]).
fn parse_caller(pattern: &str) -> std::result::Result<Parsed, String> {
    let too_large = |why: String| {
        format!(
            "regular expression {} is too large to search: {why}",
            crate::error::quoted(pattern)
        )
    };
    let regex = regex::RegexBuilder::new(pattern)
        .size_limit(MAX_COMPILED_BYTES)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => too_large(format!(
                "it compiles to more than {} MiB of automaton, which a search can go through at every byte; a Unicode class (\\w, \\d, \\pL, \\s, [^...], (?i)) is tens of kilobytes of it: repeat it fewer times (\\w+ rather than \\w{{60}}), or match ASCII only ([a-zA-Z0-9_] for \\w, or (?-u:\\w))",
                MAX_COMPILED_BYTES >> 20
            )),
            e => bad_regex(pattern, &e),
        })?;
    let parsed = regex_syntax::Parser::new().parse(pattern).map(|hir| {
        let positions = positions::positions(&hir);
        Parsed { regex, hir, positions }
    });
    match parsed {
        Ok(parsed) if parsed.positions <= positions::MAX_POSITIONS => Ok(parsed),
        Ok(Parsed { positions: n, .. }) => Err(too_large(format!(
            "it has {n} characters and classes to match (counted repetitions expanded: a{{100}}{{100}} is 10000), and at most {} are taken, since a search can cost that many steps for each byte it reads; match a shorter part of the text",
            positions::MAX_POSITIONS
        ))),
        // The crate compiled it, so its parser should take it too: when not, it is refused,
        // not searched unmeasured.
        Err(e) => Err(too_large(format!(
            "its characters and classes could not be counted ({}), so it is not searched",
            e.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ")
        ))),
    }
}

/// `pattern` compiled, or refused: when it is no regular expression, when it is too large
/// to search ([`caller_regex`]), when it matches every line whatever it holds (an empty
/// match needing nothing but a line's start or its end: `a*`, `x?`, `^`, `$`, the empty
/// pattern; a wait for it held at once), or when every match of
/// it holds a line break or another control character, which no line of the transcript or
/// the screen holds (a wait for it could never hold: it ran out its whole timeout).
fn compile(pattern: &str) -> Result<CallerRegex> {
    let Parsed { regex, hir, positions } = parse_caller(pattern).map_err(Error::InvalidInput)?;
    if empty::matches_every_line(&hir) {
        return Err(Error::InvalidInput(format!(
            "regular expression {} can match the empty string that every line holds (anywhere, at its start or at its end), so every line and every row matches it whatever the program prints, and the wait would tell nothing: match at least one character (a+ rather than a*), or a blank line whole (^$ or ^\\s*$: a blank line printed in the transcript, a given blank row with a screen row's regex; any screen has blank rows)",
            crate::error::quoted(pattern)
        )));
    }
    let why = match unshown::needs_unshown(&hir) {
        None => {
            return CallerRegex::new(regex, &hir, positions, MAX_COMPILED_BYTES)
                .map_err(Error::InvalidInput);
        }
        Some(unshown::Unshown::LineBreak) => {
            "text holding a line break; transcript and screen conditions match within one line (each line is searched alone), so the wait could never hold: match the line you wait for alone (the last line's text), or drop the line break (\\n?, or (\\n|$))"
        }
        Some(unshown::Unshown::Control) => {
            "text holding a control character (a tab, an Escape, a carriage return), which the terminal acts on or shows as spaces and no line holds, so the wait could never hold: match the text as it is shown (\\s+ for a tab's spaces)"
        }
    };
    Err(Error::InvalidInput(format!(
        "regular expression {} matches only {why}",
        crate::error::quoted(pattern)
    )))
}

/// How much searching [`first_new_match`] spends on matches that overlap read text, for each
/// byte of the line, in bytes its searches can go over (each search from a start is counted
/// as going to the line's end, as `a+b|a` over a line of `a`s does) by a pattern of at most
/// [`OVERLAP_WORK_POSITIONS`] positions: past it (and past [`OVERLAP_WORK_MIN`]), only
/// matches starting in the unread text are searched for.
const OVERLAP_WORK_PER_BYTE: usize = 8;

/// The least [`first_new_match`] spends on matches that overlap read text, in bytes its
/// searches can go over by a pattern of at most [`OVERLAP_WORK_POSITIONS`] positions, however
/// short the line: such a pattern has every start tried in a line of up to 1,446 bytes (the
/// sum of its lengths from each start is at most 1 MiB).
const OVERLAP_WORK_MIN: usize = 1 << 20;

/// The positions ([`positions::positions`]) up to which a pattern gets the whole bound of
/// [`OVERLAP_WORK_PER_BYTE`] and [`OVERLAP_WORK_MIN`]: a pattern with more gets it divided by
/// its positions over this. A search whose lazy DFA gives up (`[ab]*a[ab]{900}c|b` over
/// random `a`s and `b`s) tracks each position at every byte, so its work is bytes times
/// positions: a bound in bytes alone let that pattern spend 6.2 s on a line of 3,000 bytes
/// (release build), with the reactor and every session stalled.
const OVERLAP_WORK_POSITIONS: usize = 16;

/// The first match of `re` (of `positions` positions) in `line`, searched whole (`^` is the
/// line's start), that ends past its first `read` bytes: at the leftmost start, whether or
/// not it overlaps a match of text already read (`b1` in `xab1` for `ab|b1` when `xab` was
/// read: a search for matches that do not overlap took `ab` and went on after it). Its
/// offset and text. A line read to its end holds none, and is not searched (a waiter's
/// recheck would search the read tail each time).
///
/// Each start is tried at most once, but a search from a start can go over the rest of the
/// line whatever it finds (`a+`, `a+b|a`, `ok(.*FAIL)?` over a long line of `a`s or `ok`s
/// read: a leftmost-first search goes on past a short match while a longer one it prefers
/// may follow), so trying every start cost the line's length squared: minutes for a line of
/// 20,000 bytes, with the reactor and every session stalled. So each search is counted as
/// going to the line's end, and the searches from one start after another stop at
/// [`OVERLAP_WORK_PER_BYTE`] times the line's bytes (at least [`OVERLAP_WORK_MIN`]), times
/// [`OVERLAP_WORK_POSITIONS`] over the pattern's positions when it has more. Past that, at
/// most two more searches look for a match starting at the end of what was read or later (a
/// search for matches that do not overlap, from where the bound stopped, is quadratic too:
/// `a{16}(.*b)?`): a match starting in read text that the bound did not reach is missed. So
/// one call's searches from one start after another go over at most 16 Mi bytes times
/// positions for a line of up to 128 KiB (8 times the line's bytes times 16 past it), and the
/// two more over the unread text: in a release build, the worst patterns the refusal rules
/// take (`[ab]*a[ab]{900}c|b`, `.*a.{300}c|b`, `(.*a.{200}c)?b`, `[ab]*a[ab]{60}c|b` over
/// random `a`s and `b`s read but for the last byte) spent at most 0.13 s on a line of 1,446
/// to 131,072 bytes. A regex whose lazy DFA gives up ([`search`]) shares one bound of work
/// ([`search::Work`]) across the call's searches.
fn first_new_match(
    re: &CallerRegex,
    line: &str,
    read: usize,
) -> std::result::Result<Option<(usize, String)>, Undecided> {
    if read >= line.len() {
        return Ok(None);
    }
    let positions = re.positions();
    let mut work = search::Work::new();
    let found_new =
        |(start, end): (usize, usize)| (end > read).then(|| (start, line[start..end].to_owned()));
    let mut from = 0;
    let mut budget = line.len().saturating_mul(OVERLAP_WORK_PER_BYTE).max(OVERLAP_WORK_MIN);
    budget = budget.saturating_mul(OVERLAP_WORK_POSITIONS) / positions.max(OVERLAP_WORK_POSITIONS);
    while from <= line.len() {
        // A search from `from` can go to the line's end, whatever it finds.
        let cost = line.len() - from + 1;
        if cost > budget {
            break;
        }
        budget -= cost;
        // A search that cannot decide within its own bound leaves the rest to the search
        // from the end of what was read.
        let Ok(found) = re.find_at(line, from, &mut work) else {
            break;
        };
        let Some(found) = found else {
            return Ok(None);
        };
        if let Some(new) = found_new(found) {
            return Ok(Some(new));
        }
        // No match starts between `from` and this one (the leftmost from `from`), and this
        // one's start gives no other: the next may start one character after it.
        from = next_boundary(line, found.0);
    }
    // Past the bound: a match starting at the end of what was read, or later. Only an empty
    // one there holds nothing new; the next starts a character on.
    let at = floor_boundary(line, read.max(from));
    let Some(found) = re.find_at(line, at, &mut work)? else {
        return Ok(None);
    };
    if let Some(new) = found_new(found) {
        return Ok(Some(new));
    }
    match at < line.len() && found.0 == at {
        true => Ok(re.find_at(line, next_boundary(line, at), &mut work)?.and_then(found_new)),
        false => Ok(None),
    }
}

/// The last character boundary of `s` at or before `at` (its end when `at` is past it).
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The first character boundary of `s` after `at` (past its end when `at` is its end).
fn next_boundary(s: &str, at: usize) -> usize {
    s[at..].chars().next().map_or(at + 1, |c| at + c.len_utf8())
}

impl Until {
    /// `text` appears in new transcript output (including the unfinished line at the cursor).
    /// It is matched as the terminal shows it, within one line: a text with a line break, a
    /// tab (shown as spaces) or another control character is refused
    /// ([`Error::InvalidInput`]), as for every text condition of the screen too; so is an
    /// empty text, which every line holds (the wait held at once).
    pub fn text(text: impl Into<String>) -> Until {
        Until(Cond::Text(text.into()))
    }

    /// A regular expression matches a line of new transcript output. Each line is searched
    /// whole (`^` is its start) for the first match, at the leftmost start, that ends past
    /// what the caller had read of it: a match of read text alone is never reported, and one
    /// that holds new text is, even where it overlaps a match of read text (`b1` in `xab1`
    /// for `ab|b1` once `xab` was read; in a line longer than 1,446 bytes, or for a pattern of
    /// more than 16 characters and classes, only where the search from one start after
    /// another reaches it within its bound of work, then from the end of what was read on).
    /// The unfinished line at the cursor is searched as printed so far, and its `$` is where the printing stands, so that `Password: $` or
    /// `\[y/N\] $` matches a prompt; a pattern that must see a line end (`^count: 12$`
    /// against a `count: 1` still being printed) can race the program: wait for text after
    /// it, or for the screen, instead. Lines are searched one at a time, so a pattern whose
    /// every match holds a line break (`foo\nbar`) is refused ([`Error::InvalidInput`]), as
    /// it is by [`Until::screen_regex`] and [`Until::screen_row_regex`]: a wait for it could
    /// never hold. One that may match without it (`foo(\n|$)`) is taken. A pattern too
    /// large to search (more than 1,000 characters and classes, counted repetitions expanded,
    /// or more than 2 MiB compiled, as a Unicode class repeated: `\w{60}`) is refused too,
    /// and so is one that matches every line whatever it holds, for the screen's conditions
    /// too: one that can match the empty string with nothing but a line's start or its end
    /// to hold (`a*`, `x?`, `^`, `$`, the empty pattern), which a wait took at once. One
    /// whose empty match needs more of the line is taken: `^$` or `^\s*$`, `\b`. A blank
    /// line printed (empty once settled: the transcript keeps no trailing blanks) is new text
    /// for it once the line has ended and if the caller never read it: `^$` waits for the
    /// program to print a blank line; the empty line at the cursor, still being written, is
    /// none (the one a read ended on, after output ending in a line end, was given nothing:
    /// ended blank, it is new). Blank lines are what the transcript holds: the echo of an
    /// empty line in a multi-line input matches `^$` (as a text wait matches an echoed
    /// line), and a blank row the cursor skips over (moved down, `CSI B`) counts as a blank
    /// line printed. On the screen, `^$` holds at once on nearly any screen, whose rows below
    /// the last printed are blank: match a row ([`Until::screen_row_regex`]) instead.
    /// A search whose lazy DFA gives up on a line (too many states to keep:
    /// `[ab]*a[ab]{990}c` over random `a`s and `b`s) searches it again in windows when the
    /// pattern's matches have a longest length (`error.{0,100}refused`), within 12 Mi
    /// units of work for one check of the line (a count of work, not a time: it
    /// decides over 64 KiB of log words, not over 1 MiB), else tracks every position only
    /// while the positions times the bytes fit 4 Mi; past that the wait fails with
    /// [`Error::WaitRegexUndecided`] rather than report no match. A pattern with a Unicode
    /// word boundary (`\b`, `\B`) over a line holding a non-ASCII byte is searched by the
    /// `regex` crate only while its positions times the bytes fit the same 12 Mi.
    pub fn regex(pattern: &str) -> Result<Until> {
        Ok(Until(Cond::Regex(compile(pattern)?)))
    }

    /// `text` appears anywhere on the screen. Rows are matched as [`Screen::lines`] holds
    /// them, trailing blanks dropped, except the cursor's row, which runs up to the cursor:
    /// a prompt's trailing space (`">>> "`) matches while the cursor is after it.
    pub fn screen_contains(text: impl Into<String>) -> Until {
        Until(Cond::Screen(text.into()))
    }

    /// A regular expression matches a row of the screen: as [`Screen::lines`] holds it, or
    /// the cursor's row up to the cursor (`^\$$` and `^\$ $` both match a prompt `$ `). A
    /// pattern that can only match across a line break is refused, as by [`Until::regex`],
    /// and so is one every row matches (`a*`, `^`). `^$` is taken but holds at once on nearly
    /// any screen (its rows below the last printed are blank): a blank row is worth waiting
    /// for by its number ([`Until::screen_row_regex`]).
    pub fn screen_regex(pattern: &str) -> Result<Until> {
        Ok(Until(Cond::ScreenRegex(compile(pattern)?)))
    }

    /// `text` appears on screen row `row` (from 0; as [`Until::screen_contains`] matches
    /// rows). A wait on a row past the screen is refused ([`Error::InvalidInput`]), and
    /// ends with that error when a resize puts its row off the screen (unless it is one of
    /// an [`Until::any`] whose other conditions can still hold).
    pub fn screen_row_contains(row: u16, text: impl Into<String>) -> Until {
        Until(Cond::ScreenRow(row, text.into()))
    }

    /// A regular expression matches screen row `row` (from 0; as [`Until::screen_regex`]
    /// matches rows). A wait on a row past the screen is refused ([`Error::InvalidInput`]), and
    /// ends with that error when a resize puts its row off the screen (unless it is one of
    /// an [`Until::any`] whose other conditions can still hold).
    pub fn screen_row_regex(row: u16, pattern: &str) -> Result<Until> {
        Ok(Until(Cond::ScreenRowRegex(row, compile(pattern)?)))
    }

    /// The cursor is at `row` and `col` (both from 0), visible or not: for programs whose
    /// reaction to a key only moves the cursor. A wait on a position past the screen is
    /// refused ([`Error::InvalidInput`]), and ends with that error when a resize puts the
    /// position off the screen (unless it is one of an [`Until::any`] whose other conditions
    /// can still hold).
    pub fn cursor_at(row: u16, col: u16) -> Until {
        Until(Cond::Cursor(row, col))
    }

    /// `test` holds for the screen. It runs on the reactor thread each time output has been
    /// processed, so it must be quick and must not block; `description` names it in outcomes.
    /// It must not call into the engine (a [`Session`](crate::Session) method from inside it
    /// fails with [`Error::InvalidInput`], and so does the
    /// wait). If it panics, the
    /// wait fails with [`Error::WaitConditionPanicked`].
    pub fn screen_matches(
        description: impl Into<String>,
        test: impl Fn(&Screen) -> bool + Send + Sync + 'static,
    ) -> Until {
        Until(Cond::ScreenFn(ScreenTest {
            description: description.into(),
            test: std::sync::Arc::new(test),
        }))
    }

    /// `test` holds for the screen with its colours and attributes: for a change shown only
    /// by style, such as a selection moved in a list. Like [`Until::screen_matches`] it runs on
    /// the reactor thread each time output has been processed, and the styled screen is built
    /// for it each time (a few hundred microseconds for 120x32), so use it where the text
    /// alone cannot tell.
    ///
    /// ```no_run
    /// # fn demo(session: &termloom::Session) -> termloom::Result<()> {
    /// use std::time::Duration;
    /// use termloom::Until;
    /// // Row 3 drawn in inverse video: the list's selection moved there.
    /// let selected = Until::styled_screen_matches("row 3 selected", |styled| {
    ///     styled.runs.iter().any(|run| run.row == 3 && run.attrs.contains(&"inverse"))
    /// });
    /// session.wait(selected, Duration::from_secs(5))?;
    /// # Ok(()) }
    /// ```
    pub fn styled_screen_matches(
        description: impl Into<String>,
        test: impl Fn(&StyledScreen) -> bool + Send + Sync + 'static,
    ) -> Until {
        Until(Cond::StyledFn(StyledTest {
            description: description.into(),
            test: std::sync::Arc::new(test),
        }))
    }

    /// The session's program exits. The wait then ends with [`Fired::Exited`], which carries
    /// the exit status and no [`Match`]: [`WaitOutcome::matched`] is `None` for it, so check
    /// `fired` (or [`WaitOutcome::is_timeout`]) to tell that it held.
    pub fn exit() -> Until {
        Until(Cond::Exit)
    }

    /// The screen has not changed, and no input was sent, for `duration`. A frame drawn in a
    /// synchronized update (mode 2026) is compared once complete: redrawn the same, it is no
    /// change; while it is drawn, the screen is not stable.
    pub fn stable(duration: Duration) -> Until {
        Until(Cond::Stable(duration))
    }

    /// The program has written no output, and no input was sent, for `duration`.
    pub fn quiet(duration: Duration) -> Until {
        Until(Cond::Quiet(duration))
    }

    /// The program has written no output, and no input was sent, for `duration`, nor been seen
    /// busy, and it is not known to be busy: its foreground group is waiting for input, or
    /// `/proc` cannot tell (a program running as another user). A program computing, sleeping
    /// or waiting on a child for longer (`bc` on a long sum, a debugged program in `sleep`) is
    /// waited for: taken for settled, it would be sent input meant for the step after its
    /// answer. One in a sleep with more than
    /// [`CLOCK_HORIZON`](crate::os::procfs::CLOCK_HORIZON) left (`sleep 300`) has nothing to
    /// answer within a wait: it settles as soon as it is seen so twice, naming the sleep.
    pub(crate) fn settled(duration: Duration) -> Until {
        Until(Cond::Settled(duration))
    }

    /// The program waits for a whole line (a password, canonical input; or the shell's next
    /// command line, at its marked prompt; or keys, blocked until one comes: a REPL's line
    /// editor), nothing else in its session can print, and it has been quiet for
    /// [`ASKED_STILL`]: nothing more comes until it is typed. Ends an MCP wait for text early,
    /// which would otherwise run to its timeout.
    pub(crate) fn asks_for_line() -> Until {
        Until(Cond::AsksForLine)
    }

    /// The shell is back at its prompt: the prompt was drawn after the last input was sent.
    /// Needs shell integration ([`SpawnSpec::shell_integration`](crate::SpawnSpec::shell_integration)):
    /// on a session started without it whose program marks no prompts itself, a wait for
    /// this alone fails at once with [`Error::NoShellIntegration`].
    pub fn prompt() -> Until {
        Until(Cond::Prompt)
    }

    /// The terminal's foreground process group is blocked reading the terminal, and there has
    /// been no output and no input for `Config::input_settle` (Linux; see
    /// [`Status`]).
    pub fn input_wait() -> Until {
        Until(Cond::InputWait)
    }

    /// The program read every byte of input sent to the terminal (its input queue was found
    /// empty, in raw mode) at least `duration` ago, and printed after it was found so: it
    /// took the input and went on with it; or, when it printed nothing since, a second more
    /// (a program that waits for the rest of a key code after an Escape with a timer of a
    /// second or less, vim's `ttimeout`, ncurses's `ESCDELAY`, prints nothing until its timer
    /// ends, and on a loaded machine may run only a while after that: keys typed meanwhile
    /// would reach it with the Escape), provided no thread of the terminal's foreground group
    /// was blocked on the terminal (reading it, or polling it) a second after it was found
    /// read: a relay (`script`, `sudo` with `use_pty`, `ssh`, `docker exec`) reads the input
    /// at once and waits on the terminal again, while the program it relays to may still be
    /// busy and not have read it; behind one, only output counts (so a program behind a relay
    /// that never waits for input and prints nothing after an Escape gets the keys after it
    /// only at the end of the wait, as before the silent rule: review xj). A program that never waits
    /// for input (a game that polls the terminal between the frames of its clock, printing or
    /// not) reads a lone Escape so, and the keys after it may be typed without waiting for
    /// [`Until::input_wait`], which it never meets. One busy (vim in `system()`, its terminal
    /// in canonical mode; or busy in raw mode) has not read it: it is not taken for done.
    /// Linux; elsewhere it never holds.
    pub fn input_read(duration: Duration) -> Until {
        Until(Cond::InputRead(duration))
    }

    /// Any of several conditions; the outcome says which one fired.
    pub fn any(conditions: Vec<Until>) -> Until {
        Until(Cond::Any(conditions))
    }

    /// Checks what no screen can match, whatever its size: a text with a line break or
    /// another control character (a tab, an Escape, a carriage return: the transcript and
    /// the screen hold text as a terminal shows it), an empty text (every line holds it: the
    /// wait would hold at once), an `any` of no condition, at any depth. A wait refuses
    /// these at once with [`Error::InvalidInput`]; a program that builds a condition from
    /// its own input (a command line's flags) may check it before it starts anything.
    ///
    /// ```
    /// use termloom::Until;
    /// assert!(Until::text("ready>").check().is_ok());
    /// assert!(Until::text("a\tb").check().is_err());
    /// assert!(Until::any(vec![Until::exit(), Until::screen_contains("")]).check().is_err());
    /// ```
    pub fn check(&self) -> Result<()> {
        match &self.0 {
            Cond::Text(t) | Cond::Screen(t) | Cond::ScreenRow(_, t) => shown_text(t),
            Cond::Any(all) if all.is_empty() => Err(Error::InvalidInput(
                "Until::any was given no condition, so the wait could never hold: give it at least one".into(),
            )),
            Cond::Any(all) => all.iter().try_for_each(Until::check),
            _ => Ok(()),
        }
    }

    /// Checks what can never match: what [`Until::check`] refuses, and a screen row or a
    /// cursor position past a screen of `cols` × `rows` (the size when the wait starts, and
    /// again after each resize).
    pub(crate) fn validate(&self, cols: u16, rows: u16) -> Result<()> {
        let past = |what: String| {
            Err(Error::InvalidInput(format!(
                "{what} is off the {cols}x{rows} screen (rows 0-{}, columns 0-{}), so the wait could never hold",
                rows.saturating_sub(1),
                cols.saturating_sub(1)
            )))
        };
        match &self.0 {
            Cond::ScreenRow(row, _) | Cond::ScreenRowRegex(row, _) if *row >= rows => {
                past(format!("screen row {row}"))
            }
            Cond::Cursor(row, col) if *row >= rows || *col >= cols => {
                past(format!("cursor position row {row}, col {col}"))
            }
            Cond::Any(all) if !all.is_empty() => {
                all.iter().try_for_each(|until| until.validate(cols, rows))
            }
            _ => self.check(),
        }
    }

    /// Whether the condition can still hold once the screen is `cols` × `rows` (a resize):
    /// an `any` while one of its conditions can; the reason of the last that cannot if none.
    pub(crate) fn still_possible(&self, cols: u16, rows: u16) -> Result<()> {
        match &self.0 {
            Cond::Any(all) if !all.is_empty() => {
                let mut why = Ok(());
                for until in all {
                    match until.still_possible(cols, rows) {
                        Ok(()) => return Ok(()),
                        Err(err) => why = Err(err),
                    }
                }
                why
            }
            _ => self.validate(cols, rows),
        }
    }

    /// Whether the condition looks at the screen.
    pub(crate) fn needs_screen(&self) -> bool {
        match &self.0 {
            Cond::Screen(_)
            | Cond::ScreenRegex(_)
            | Cond::ScreenRow(..)
            | Cond::ScreenRowRegex(..)
            | Cond::Cursor(..)
            | Cond::ScreenFn(_)
            | Cond::StyledFn(_) => true,
            Cond::Any(all) => all.iter().any(Until::needs_screen),
            _ => false,
        }
    }

    /// The screen rows the condition reads, added to `rows`: false when it may read any row
    /// (a search of the whole screen, a caller's test), true when it reads only the rows it
    /// names (a row's text or regex) or none (the cursor's position). A look for such
    /// conditions builds only those rows' text.
    pub(crate) fn screen_rows(&self, rows: &mut Vec<u16>) -> bool {
        match &self.0 {
            Cond::ScreenRow(row, _) | Cond::ScreenRowRegex(row, _) => {
                rows.push(*row);
                true
            }
            Cond::Screen(_) | Cond::ScreenRegex(_) | Cond::ScreenFn(_) | Cond::StyledFn(_) => false,
            Cond::Any(all) => all.iter().all(|c| c.screen_rows(rows)),
            _ => true,
        }
    }

    /// Whether the condition looks at the screen's styles.
    pub(crate) fn needs_styles(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::StyledFn(_)))
    }

    /// Whether the condition needs to know when the screen last changed.
    pub(crate) fn needs_stable(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::Stable(_)))
    }

    /// Whether the condition needs to know when the screen last changed: a stable screen, and
    /// input-wait (see [`StateView::stable_for`]).
    pub(crate) fn tracks_screen(&self) -> bool {
        self.needs_stable() || self.needs_input_wait()
    }

    /// Whether the condition waits for the program's input wait (once the screen is still).
    pub(crate) fn needs_input_wait(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::InputWait))
    }

    /// Whether the condition reads how long the terminal has been quiet or its screen still
    /// (a still screen, quiet output, settling, an input wait, a line asked for): only then
    /// does output waiting unread on the terminal count as output now for it.
    pub(crate) fn needs_quiet(&self) -> bool {
        self.any_leaf(&|c| {
            matches!(
                c,
                Cond::Stable(_)
                    | Cond::Quiet(_)
                    | Cond::Settled(_)
                    | Cond::InputWait
                    | Cond::AsksForLine
            )
        })
    }

    /// Whether the condition needs the input-wait check once the program has been quiet (to
    /// tell it busy, or asking for a line), without following the screen.
    pub(crate) fn needs_busy_check(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::Settled(_) | Cond::AsksForLine))
    }

    /// Whether the condition needs the terminal's input queue looked at ([`Until::input_read`]).
    pub(crate) fn needs_input_read(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::InputRead(_)))
    }

    /// Whether the condition needs to know whether the terminal takes whole lines.
    pub(crate) fn needs_line_check(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::AsksForLine))
    }

    /// Whether the program's exit satisfies the condition (it is [`Until::exit`], or one of
    /// an [`Until::any`]'s, at any depth).
    pub(crate) fn includes_exit(&self) -> bool {
        self.any_leaf(&|c| matches!(c, Cond::Exit))
    }

    /// Whether a program that sits idle, waiting for input, satisfies the condition in time:
    /// it is (or one of an [`Until::any`]'s is, at any depth) a still screen, quiet output or
    /// an input wait, of any length.
    #[cfg(feature = "testing")]
    pub(crate) fn holds_when_idle(&self) -> bool {
        self.any_leaf(&|c| {
            matches!(c, Cond::Stable(_) | Cond::Quiet(_) | Cond::Settled(_) | Cond::InputWait)
        })
    }

    fn any_leaf(&self, test: &dyn Fn(&Cond) -> bool) -> bool {
        match &self.0 {
            Cond::Any(all) => all.iter().any(|c| c.any_leaf(test)),
            cond => test(cond),
        }
    }

    /// Checks the state-based conditions.
    pub(crate) fn match_state(&self, view: &StateView) -> Option<Match> {
        let holds = match &self.0 {
            Cond::Stable(d) => view.stable_for >= *d,
            Cond::Quiet(d) => view.quiet_for >= *d,
            Cond::Settled(_) if view.redrawing && view.input_wait.is_none() => {
                return Some(Match {
                    condition: "redrawing on a timer".to_owned(),
                    text: String::new(),
                    location: Location::Session,
                });
            }
            Cond::Settled(_) if view.idle_ticking && view.input_wait.is_none() => {
                return Some(Match {
                    condition: "ticking on a timer with nothing to print".to_owned(),
                    text: String::new(),
                    location: Location::Session,
                });
            }
            // A program in a long sleep, or following files (seen so twice), has printed what it
            // prints before it: it settles as one waiting for input does, without the silence
            // fallback's wait.
            Cond::Settled(d)
                if (view.quiet_for.min(view.idle_for) >= *d && view.paced.is_none()
                    || view.sleeping.is_some()
                    || view.following)
                    && view.input_wait.is_none() =>
            {
                let condition = match view.sleeping {
                    Some(sleep) => format!("sleeping {} s more", sleep.as_secs()),
                    None if view.following => "following files".to_owned(),
                    None => self.to_string(),
                };
                return Some(Match { condition, text: String::new(), location: Location::Session });
            }
            Cond::Settled(d) => {
                view.quiet_for.min(view.idle_for) >= *d
                    && match view.input_wait {
                        Some(waiting) => waiting,
                        None => view.paced.is_none(),
                    }
            }
            Cond::Prompt => view.at_prompt,
            Cond::InputWait => view.input_wait == Some(true) && view.stable_for >= view.settle,
            Cond::InputRead(d) => {
                view.input_read_for.is_some_and(|read| read.left(*d).is_some_and(|l| l.is_zero()))
            }
            Cond::AsksForLine => {
                view.input_wait == Some(true)
                    && view.line_input
                    && view.answered_since
                    && view.quiet_for >= ASKED_STILL.max(view.settle)
            }
            Cond::Any(all) => return all.iter().find_map(|c| c.match_state(view)),
            _ => false,
        };
        holds.then(|| Match {
            condition: self.to_string(),
            text: String::new(),
            location: Location::Session,
        })
    }

    /// When a state-based condition should be checked again if nothing happens before.
    pub(crate) fn recheck_in(&self, view: &StateView) -> Option<Duration> {
        match &self.0 {
            Cond::Stable(d) => Some(d.saturating_sub(view.stable_for)),
            Cond::Quiet(d) => Some(d.saturating_sub(view.quiet_for)),
            // Once quiet, the busy program is looked at again as an input wait is.
            // Looked at from `settle` on, every `SLEEP_LOOK`: a long sleep, seen twice, ends
            // it before the silence's end.
            Cond::Settled(d) => {
                let silence = d.saturating_sub(view.quiet_for.min(view.idle_for));
                let look = match view.quiet_for >= view.settle {
                    true => SLEEP_LOOK,
                    false => view.settle - view.quiet_for,
                };
                // (A pace's end settles it too, once quiet.)
                let look = view.paced.map_or(look, |left| look.min(left));
                Some(silence.min(look).max(INPUT_WAIT_POLL))
            }
            Cond::InputWait => Some(if view.stable_for < view.settle {
                view.settle - view.stable_for
            } else {
                INPUT_WAIT_POLL
            }),
            // Looked at again until the queue is found empty, then at the time's end (output
            // checks it again too; only output, once a reader of the terminal was seen).
            Cond::InputRead(d) => match view.input_read_for {
                None => Some(INPUT_WAIT_POLL),
                Some(read) => read.left(*d),
            },
            // Nothing to look at again before the program prints or is typed to.
            Cond::AsksForLine if !view.answered_since => None,
            Cond::AsksForLine => {
                let quiet = ASKED_STILL.max(view.settle);
                let every = match view.quiet_for < quiet + ASKED_CONFIRMING {
                    true => INPUT_WAIT_POLL,
                    false => ASKED_POLL,
                };
                Some(quiet.saturating_sub(view.quiet_for).max(every))
            }
            Cond::Any(all) => all.iter().filter_map(|c| c.recheck_in(view)).min(),
            _ => None,
        }
    }

    /// Whether the condition is the shell's prompt alone (nothing else could end the wait):
    /// [`Until::prompt`], or an [`Until::any`] of such conditions only.
    pub(crate) fn is_prompt_only(&self) -> bool {
        match &self.0 {
            Cond::Prompt => true,
            Cond::Any(all) => !all.is_empty() && all.iter().all(Until::is_prompt_only),
            _ => false,
        }
    }

    /// Whether the condition looks at the transcript.
    pub(crate) fn needs_transcript(&self) -> bool {
        match &self.0 {
            Cond::Text(_) | Cond::Regex(_) => true,
            Cond::Any(all) => all.iter().any(Until::needs_transcript),
            _ => false,
        }
    }

    /// Searches one transcript line, whole (a regex's `^` is the line's start), for a match
    /// that ends past its first `read` bytes: one that holds new text.
    /// A regex that could not decide within its bound of work says so ([`Undecided`]).
    pub(crate) fn match_line(
        &self,
        number: u64,
        line: &str,
        read: usize,
    ) -> std::result::Result<Option<Match>, Undecided> {
        let found = match &self.0 {
            Cond::Text(text) => {
                // A match that starts here or later ends past `read`.
                let mut from = (read + 1).saturating_sub(text.len()).min(line.len());
                while !line.is_char_boundary(from) {
                    from -= 1;
                }
                line[from..].find(text.as_str()).map(|at| (from + at, text.clone()))
            }
            Cond::Regex(re) => first_new_match(re, line, read)?,
            Cond::Any(all) => return first_of(all, |c| c.match_line(number, line, read)),
            _ => None,
        };
        Ok(found.map(|(offset, text)| Match {
            condition: self.to_string(),
            text,
            location: Location::Transcript { line: number, offset },
        }))
    }

    /// Matches transcript line `number`, `line`, when it is blank (empty once settled: the
    /// transcript keeps no trailing blanks), as a blank line printed: a regex that matches
    /// the empty line (`^$`, `^\s*$`) holds there. Text conditions never do (an empty text
    /// is refused). For an ended line only, and one new to the caller: the waits' rule
    /// (`reactor::waiters`), and the MCP timeout hint's on what was printed before a wait.
    pub(crate) fn match_blank_line(&self, number: u64, line: &str) -> Option<Match> {
        if !line.trim_end_matches(' ').is_empty() {
            return None;
        }
        match &self.0 {
            Cond::Regex(re) if matches!(re.find(""), Ok(Some(_))) => Some(Match {
                condition: self.to_string(),
                text: String::new(),
                location: Location::Transcript { line: number, offset: 0 },
            }),
            Cond::Any(all) => all.iter().find_map(|c| c.match_blank_line(number, line)),
            _ => None,
        }
    }

    /// Searches the screen (with its styles, when the condition [`Until::needs_styles`]).
    pub(crate) fn match_screen(
        &self,
        screen: &Screen,
        styled: Option<&StyledScreen>,
    ) -> std::result::Result<Option<Match>, Undecided> {
        let at = |row: usize, text: &str, offset: usize, matched: String| Match {
            condition: self.to_string(),
            text: matched,
            location: Location::Screen { row: row as u16, col: cell_col(text, offset) },
        };
        // Rows as the screen shows them, the cursor's up to the cursor: a prompt's space.
        let rows = || (0..screen.lines.len()).map(|row| (row, matched_row(screen, row)));
        Ok(match &self.0 {
            Cond::Screen(needle) => rows().find_map(|(row, text)| {
                text.find(needle.as_str()).map(|o| at(row, &text, o, needle.clone()))
            }),
            Cond::ScreenRegex(re) => {
                for row in 0..screen.lines.len() {
                    if let Some((text, o, found)) = row_regex(re, screen, row)? {
                        return Ok(Some(at(row, &text, o, found)));
                    }
                }
                None
            }
            Cond::Cursor(row, col) => ((screen.cursor.row, screen.cursor.col) == (*row, *col))
                .then(|| Match {
                    condition: self.to_string(),
                    text: String::new(),
                    location: Location::Screen { row: *row, col: *col },
                }),
            Cond::ScreenFn(check) => (check.test)(screen).then(|| Match {
                condition: self.to_string(),
                text: String::new(),
                location: Location::Session,
            }),
            Cond::StyledFn(check) => styled.filter(|styled| (check.test)(styled)).map(|_| Match {
                condition: self.to_string(),
                text: String::new(),
                location: Location::Session,
            }),
            Cond::ScreenRow(row, needle) => {
                let row = usize::from(*row);
                let Some(text) = (row < screen.lines.len()).then(|| matched_row(screen, row))
                else {
                    return Ok(None);
                };
                text.find(needle.as_str()).map(|o| at(row, &text, o, needle.clone()))
            }
            Cond::ScreenRowRegex(row, re) => {
                let row = usize::from(*row);
                if row >= screen.lines.len() {
                    return Ok(None);
                }
                row_regex(re, screen, row)?.map(|(text, o, found)| at(row, &text, o, found))
            }
            Cond::Any(all) => return first_of(all, |c| c.match_screen(screen, styled)),
            _ => None,
        })
    }
}

/// Screen row `row` as screen waits match it: as the screen shows it (trailing blanks
/// dropped), except that the cursor's row runs up to the cursor, so that a prompt's trailing
/// space (`>>> `) matches, as it does in the transcript.
fn matched_row(screen: &Screen, row: usize) -> std::borrow::Cow<'_, str> {
    let text = screen.lines[row].as_str();
    let cells = usize::from(cell_col(text, text.len()));
    let cursor = usize::from(screen.cursor.col);
    if usize::from(screen.cursor.row) == row && cursor > cells {
        std::borrow::Cow::Owned(format!("{text}{}", " ".repeat(cursor - cells)))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The first match of the alternatives `all` (of [`Until::any`]) that `search` finds, each
/// tried in turn: one that could not decide does not hide a match of one after it, and the
/// search says it could not decide only when none matched.
fn first_of(
    all: &[Until],
    mut search: impl FnMut(&Until) -> std::result::Result<Option<Match>, Undecided>,
) -> std::result::Result<Option<Match>, Undecided> {
    let mut undecided = None;
    for c in all {
        match search(c) {
            Ok(Some(found)) => return Ok(Some(found)),
            Ok(None) => (),
            Err(u) => {
                undecided.get_or_insert(u);
            }
        }
    }
    undecided.map_or(Ok(None), Err)
}

/// A regex's first match on screen row `row` (its text, the match's offset and text): on the
/// row as the screen shows it, else on the cursor's row up to the cursor, so that `^\$$` and
/// `^\$ $` both match a prompt `$ ` with the cursor after it.
/// A search that cannot decide within its bound of work (one [`search::Work`] for both) says
/// so.
fn row_regex<'s>(
    re: &CallerRegex,
    screen: &'s Screen,
    row: usize,
) -> std::result::Result<Option<(std::borrow::Cow<'s, str>, usize, String)>, Undecided> {
    let shown = screen.lines[row].as_str();
    let mut work = search::Work::new();
    if let Some((start, end)) = re.find_at(shown, 0, &mut work)? {
        let found = shown[start..end].to_owned();
        return Ok(Some((std::borrow::Cow::Borrowed(shown), start, found)));
    }
    let padded = matched_row(screen, row);
    if matches!(padded, std::borrow::Cow::Borrowed(_)) {
        return Ok(None);
    }
    let Some((start, end)) = re.find_at(&padded, 0, &mut work)? else {
        return Ok(None);
    };
    let found = padded[start..end].to_owned();
    Ok(Some((padded, start, found)))
}

/// A wait's duration in milliseconds, as the MCP tools (`quiet_ms`, `stable_ms`) and the
/// command line (`--wait-quiet`, `--wait-stable`) take it: `1500 ms`, `0.25 ms`.
fn in_ms(d: Duration) -> String {
    if d.subsec_nanos().is_multiple_of(1_000_000) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} ms", (d.as_secs_f64() * 1e6).round() / 1e3)
    }
}

impl fmt::Display for Until {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Cond::Text(t) => write!(f, "text {t:?}"),
            Cond::Regex(re) => write!(f, "regex /{}/", re.as_str()),
            Cond::Screen(t) => write!(f, "screen text {t:?}"),
            Cond::ScreenRegex(re) => write!(f, "screen regex /{}/", re.as_str()),
            Cond::ScreenRow(row, t) => write!(f, "screen row {row} text {t:?}"),
            Cond::ScreenRowRegex(row, re) => write!(f, "screen row {row} regex /{}/", re.as_str()),
            Cond::Cursor(row, col) => write!(f, "cursor at row {row} col {col}"),
            Cond::ScreenFn(check) => write!(f, "screen: {}", check.description),
            Cond::StyledFn(check) => write!(f, "styled screen: {}", check.description),
            Cond::Exit => f.write_str("exit"),
            Cond::Stable(d) => write!(f, "screen stable for {}", in_ms(*d)),
            Cond::Quiet(d) | Cond::Settled(d) => write!(f, "quiet for {}", in_ms(*d)),
            Cond::Prompt => f.write_str("shell prompt"),
            Cond::InputWait => f.write_str("waiting for input"),
            Cond::InputRead(d) => write!(f, "input read {} ago", in_ms(*d)),
            Cond::AsksForLine => f.write_str("the program asks for a line"),
            Cond::Any(all) => {
                let parts: Vec<String> = all.iter().map(Until::to_string).collect();
                write!(f, "any of [{}]", parts.join(", "))
            }
        }
    }
}

/// Where a match was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "in", rename_all = "snake_case")]
pub enum Location {
    /// In the transcript: line number and byte offset within the line.
    Transcript {
        /// Line number (from 0 at the session's start).
        line: u64,
        /// Byte offset in the line's text.
        offset: usize,
    },
    /// A state of the session (quiet, stable, at the prompt, waiting for input).
    Session,
    /// On the screen: row and cell column, both from 0.
    Screen {
        /// Row.
        row: u16,
        /// Cell column.
        col: u16,
    },
}

/// A condition that held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Match {
    /// The condition that fired, as text (for `any`, the one inside it).
    pub condition: String,
    /// The matched text.
    pub text: String,
    /// Where it was.
    pub location: Location,
}

/// Why a wait ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Fired {
    /// The condition held.
    Matched(Match),
    /// The program exited (this is a match for [`Until::exit`]).
    Exited {
        /// How it ended.
        status: ExitStatus,
    },
    /// The session was closed, while the wait waited or before it began (any wait on a
    /// closed session ends so at once, [`Until::exit`] too, though the close ended the
    /// program). A session whose program exited by itself before it was closed ends waits
    /// with [`Fired::Exited`] instead.
    Closed,
    /// The timeout passed first.
    Timeout,
    /// The wait was cancelled ([`PendingWait::cancel`](crate::PendingWait::cancel)).
    Cancelled,
}

/// The result of a wait: what fired, how long it took and, on timeout, the screen at that
/// moment so the caller can see why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct WaitOutcome {
    /// What ended the wait.
    pub fired: Fired,
    /// How long the wait took.
    pub elapsed: Duration,
    /// The screen when the wait timed out or was cancelled (`None` otherwise).
    pub screen: Option<Screen>,
    /// The session's status when the wait ended.
    pub status: Status,
    /// Whether the program's exit holds the wait's condition (it was [`Until::exit`], alone
    /// or in an [`Until::any`]), for [`WaitOutcome::held`].
    #[serde(skip)]
    pub(crate) exit_holds: bool,
    /// The line a submitted line was typed on, as the wait left it: where its echo landed,
    /// once the wait found it there ([`TypedLine::anchored`](crate::term::transcript::TypedLine)),
    /// for a caller that waits again after the same input (the testing kit) or shows what
    /// follows it (MCP `terminal_send`); `None` for a wait after no submitted line.
    #[serde(skip)]
    pub(crate) typed_line: Option<crate::term::transcript::TypedLine>,
}

impl WaitOutcome {
    /// Whether the wait timed out.
    pub fn is_timeout(&self) -> bool {
        matches!(self.fired, Fired::Timeout)
    }

    /// Whether the wait's condition held: it matched ([`Fired::Matched`]), or the program
    /// exited ([`Fired::Exited`]) and the condition was [`Until::exit`] (alone or in an
    /// [`Until::any`]). Not when the timeout passed first, the wait was cancelled, the session
    /// was closed, or the program exited before a condition of text, screen or state held.
    pub fn is_held(&self) -> bool {
        match self.fired {
            Fired::Matched(_) => true,
            Fired::Exited { .. } => self.exit_holds,
            Fired::Closed | Fired::Timeout | Fired::Cancelled => false,
        }
    }

    /// The outcome if the wait's condition held ([`WaitOutcome::is_held`]), otherwise
    /// [`Error::WaitNotHeld`] carrying it (its `fired` says what
    /// ended the wait): for a host to which a wait that did not hold is a failure, as `?` after
    /// [`Session::wait`](crate::Session::wait) alone is not (a timeout is an outcome there).
    ///
    /// ```no_run
    /// # fn demo(py: &termloom::Session) -> termloom::Result<()> {
    /// use std::time::Duration;
    /// use termloom::Until;
    /// py.wait(Until::input_wait(), Duration::from_secs(10))?.held()?;
    /// py.submit_and_wait("6 * 7", Until::regex("^42$")?, Duration::from_secs(10))?.held()?;
    /// # Ok(()) }
    /// ```
    pub fn held(self) -> crate::Result<WaitOutcome> {
        if self.is_held() { Ok(self) } else { Err(crate::Error::WaitNotHeld(Box::new(self))) }
    }

    /// The match, if a condition of text, screen or state held ([`Fired::Matched`]). `None`
    /// for every other end, including the program's exit ([`Fired::Exited`]), which is how
    /// [`Until::exit`] (alone or in an [`Until::any`]) holds.
    pub fn matched(&self) -> Option<&Match> {
        match &self.fired {
            Fired::Matched(m) => Some(m),
            _ => None,
        }
    }
}

impl fmt::Display for WaitOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fired {
            Fired::Matched(m) => {
                // The text matched, unless there is none (a state: `waiting for input`) or
                // the condition names it already (`text "42"`); not twice.
                match &m.text {
                    text if text.is_empty() || m.condition.contains(&format!("{text:?}")) => {
                        write!(f, "matched {}", m.condition)?
                    }
                    text => write!(f, "matched {} ({text:?})", m.condition)?,
                }
                match m.location {
                    Location::Transcript { line, offset } => {
                        write!(f, " at line {line} byte {offset}")?
                    }
                    Location::Screen { row, col } => write!(f, " at row {row} col {col}")?,
                    // (The condition is a state: `matched waiting for input`.)
                    Location::Session => {}
                }
            }
            Fired::Exited { status } => write!(f, "program exited ({status})")?,
            Fired::Closed => f.write_str("session closed")?,
            Fired::Timeout => f.write_str("timed out")?,
            Fired::Cancelled => f.write_str("cancelled")?,
        }
        write!(f, " after {:.2} s; {}", self.elapsed.as_secs_f64(), self.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Durations are said in milliseconds, as the tools and the command line take them (Rust's
    /// `1.25s` and `0ns` beside a header's `0.30 s` read as three units).
    #[test]
    fn durations_are_said_in_ms() {
        let ms = Duration::from_millis;
        let any = Until::any(vec![Until::stable(ms(0)), Until::quiet(ms(1250))]);
        assert_eq!(any.to_string(), "any of [screen stable for 0 ms, quiet for 1250 ms]");
        assert_eq!(Until::quiet(Duration::from_micros(250)).to_string(), "quiet for 0.25 ms");
    }

    /// An outcome reads as the crate's other messages: a state matched is named once, with no
    /// empty `("")` for the text it has not, and durations in seconds, as the tools' headers
    /// say them (it read `matched waiting for input ("") in the session's state after
    /// 201.242526ms; ... last output 0.2s ago`).
    #[test]
    fn an_outcome_reads_as_the_other_messages() {
        let status = Status {
            activity: crate::Activity::WaitingForInput,
            since_output: Duration::from_millis(201),
            ..Status::default()
        };
        let outcome = |condition: &str, text: &str, location| WaitOutcome {
            fired: Fired::Matched(Match {
                condition: condition.to_owned(),
                text: text.to_owned(),
                location,
            }),
            elapsed: Duration::from_nanos(201_242_526),
            screen: None,
            status: status.clone(),
            exit_holds: false,
            typed_line: None,
        };
        let state = outcome("waiting for input", "", Location::Session);
        assert_eq!(
            state.to_string(),
            "matched waiting for input after 0.20 s; waiting for input, last output 0.2 s ago"
        );
        let named = outcome("text \"42\"", "42", Location::Transcript { line: 3, offset: 0 });
        assert_eq!(
            named.to_string(),
            "matched text \"42\" at line 3 byte 0 after 0.20 s; waiting for input, last output 0.2 s ago"
        );
        let found = outcome("screen regex /4./", "42", Location::Screen { row: 1, col: 5 });
        assert!(
            found
                .to_string()
                .starts_with("matched screen regex /4./ (\"42\") at row 1 col 5 after 0.20 s;")
        );
        let timeout = WaitOutcome { fired: Fired::Timeout, ..state };
        assert!(timeout.to_string().starts_with("timed out after 0.20 s; "), "{timeout}");
    }

    /// A program quiet for `quiet` ms, its screen as still, never seen busy, not checked for
    /// input, `settle` 100 ms.
    fn quiet_view(quiet: u64) -> StateView {
        StateView {
            quiet_for: Duration::from_millis(quiet),
            idle_for: Duration::MAX,
            stable_for: Duration::from_millis(quiet),
            at_prompt: false,
            input_wait: None,
            settle: Duration::from_millis(100),
            line_input: false,
            answered_since: true,
            redrawing: false,
            idle_ticking: false,
            sleeping: None,
            following: false,
            paced: None,
            input_read_for: None,
        }
    }

    /// `input_read` holds once the input was found read for its time when the program printed
    /// since, [`UNANSWERED_READ`] later when it did not and no reader of the terminal was seen
    /// (never by time when one was: a relay), and is looked at again until then.
    #[test]
    fn input_read_holds_once_read_for_its_time() {
        let ms = Duration::from_millis;
        let until = Until::input_read(ms(1100));
        let view = |read: Option<(u64, bool, Option<bool>)>| StateView {
            input_read_for: read.map(|(ago, printed, reader_seen)| InputRead {
                ago: ms(ago),
                printed,
                reader_seen,
            }),
            ..quiet_view(0)
        };
        assert!(until.match_state(&view(None)).is_none());
        assert!(until.match_state(&view(Some((1000, true, None)))).is_none());
        assert!(until.match_state(&view(Some((1100, true, None)))).is_some());
        assert!(until.match_state(&view(Some((1100, false, Some(false))))).is_none());
        let quiet = 1100 + UNANSWERED_READ.as_millis() as u64;
        assert!(until.match_state(&view(Some((quiet - 1, false, Some(false))))).is_none());
        assert!(until.match_state(&view(Some((quiet, false, Some(false))))).is_some());
        // Not looked at yet, or a reader (a relay) seen: silence alone never holds.
        assert!(until.match_state(&view(Some((quiet, false, None)))).is_none());
        assert!(until.match_state(&view(Some((60_000, false, Some(true))))).is_none());
        assert!(until.match_state(&view(Some((1100, true, Some(true))))).is_some());
        assert_eq!(until.recheck_in(&view(None)), Some(INPUT_WAIT_POLL));
        assert_eq!(until.recheck_in(&view(Some((1000, true, None)))), Some(ms(100)));
        let silent = view(Some((1000, false, Some(false))));
        assert_eq!(until.recheck_in(&silent), Some(ms(100) + UNANSWERED_READ));
        let unlooked = view(Some((400, false, None)));
        assert_eq!(until.recheck_in(&unlooked), Some(UNANSWERED_READ - ms(400)));
        assert_eq!(until.recheck_in(&view(Some((quiet, false, None)))), Some(INPUT_WAIT_POLL));
        assert_eq!(until.recheck_in(&view(Some((1000, false, Some(true))))), None);
        assert!(until.needs_input_read() && !Until::input_wait().needs_input_read());
    }

    /// A look asks the terminal whether output waits unread only for a condition that reads
    /// how long it was quiet or still (`Until::needs_quiet`): every other condition answers
    /// the same, however long that was.
    #[test]
    fn only_the_conditions_said_to_read_quiet_read_it() {
        let ms = Duration::from_millis;
        let all = [
            Until::text("a"),
            Until::regex("a").unwrap(),
            Until::screen_contains("a"),
            Until::screen_row_regex(0, "a").unwrap(),
            Until::cursor_at(0, 0),
            Until::exit(),
            Until::prompt(),
            Until::stable(ms(50)),
            Until::quiet(ms(50)),
            Until::settled(ms(50)),
            Until::asks_for_line(),
            Until::input_wait(),
            Until::any(vec![Until::exit(), Until::quiet(ms(50))]),
        ];
        let view = |quiet| StateView {
            input_wait: Some(true),
            line_input: true,
            at_prompt: true,
            ..quiet_view(quiet)
        };
        for until in all {
            let (now, long) = (view(0), view(60_000));
            let reads = until.match_state(&now).is_some() != until.match_state(&long).is_some()
                || until.recheck_in(&now) != until.recheck_in(&long);
            assert_eq!(reads, until.needs_quiet(), "{until}");
        }
    }

    /// A wait for text looks for the program asking for a line often just after it fell
    /// quiet, so that the two sightings that confirm it come within ASKED_CONFIRMING (a
    /// password prompt ended such a wait after a second), and less often after.
    #[test]
    fn a_quiet_programs_wait_for_a_line_is_confirmed_soon() {
        let ms = Duration::from_millis;
        let view = |quiet| StateView { input_wait: Some(true), ..quiet_view(quiet) };
        let asks = Until::asks_for_line();
        assert_eq!(asks.recheck_in(&view(100)), Some(ASKED_STILL - ms(100)));
        for quiet in [500, 525, 575, 640] {
            assert_eq!(asks.recheck_in(&view(quiet)), Some(INPUT_WAIT_POLL), "{quiet} ms");
        }
        assert_eq!(asks.recheck_in(&view(700)), Some(ASKED_POLL));
        assert_eq!(asks.recheck_in(&view(5000)), Some(ASKED_POLL));
    }

    /// A program in a sleep longer than any default wait settles it as soon as it is seen,
    /// and the match says why; one whose wait for input /proc denied is not settled by
    /// silence.
    #[test]
    fn a_long_sleep_settles_the_default_wait_and_says_so() {
        let ms = Duration::from_millis;
        let view =
            |quiet, input_wait, sleeping| StateView { input_wait, sleeping, ..quiet_view(quiet) };
        let settled = Until::settled(ms(1250));
        let found = |view: &StateView| settled.match_state(view).map(|m| m.condition);
        assert_eq!(
            found(&view(1300, None, Some(ms(30_000)))).as_deref(),
            Some("sleeping 30 s more")
        );
        // A sleep is seen only once quiet for `settle`, and twice: it needs no more silence.
        assert_eq!(
            found(&view(150, None, Some(ms(30_000)))).as_deref(),
            Some("sleeping 30 s more")
        );
        assert_eq!(found(&view(1000, None, None)), None, "not quiet long enough");
        assert_eq!(found(&view(1300, None, None)).as_deref(), Some("quiet for 1250 ms"));
        assert_eq!(found(&view(1300, Some(false), None)), None, "busy");
    }

    /// A program seen busy settles a wait for silence only once it has been idle as long as
    /// quiet: its silence while busy is no answer (`ssh` that relays the terminal before the
    /// far end, busy until then, answered).
    #[test]
    fn silence_while_busy_does_not_settle() {
        let ms = Duration::from_millis;
        let view =
            |idle, input_wait| StateView { idle_for: ms(idle), input_wait, ..quiet_view(3000) };
        let settled = Until::settled(ms(1250));
        for input_wait in [None, Some(true)] {
            assert!(settled.match_state(&view(100, input_wait)).is_none(), "{input_wait:?}");
            assert!(settled.match_state(&view(1300, input_wait)).is_some(), "{input_wait:?}");
            // (Quiet for `settle`: looked at again soon, for a long sleep.)
            assert_eq!(settled.recheck_in(&view(250, input_wait)), Some(SLEEP_LOOK));
            let mut busy = view(250, input_wait);
            busy.quiet_for = ms(50);
            assert_eq!(settled.recheck_in(&busy), Some(ms(50)));
        }
    }

    /// A line is searched whole, for a match that ends past what was read.
    #[test]
    fn a_line_match_must_hold_new_text() {
        let found =
            |until: &Until, read| until.match_line(0, "abc déf abc", read).unwrap().map(|m| m.text);
        let abc = Until::text("abc");
        assert_eq!(found(&abc, 0).as_deref(), Some("abc"));
        // Read up to `d`: the first `abc` is old, the second new.
        let later = abc.match_line(0, "abc déf abc", 5).unwrap().unwrap();
        assert_eq!(later.location, Location::Transcript { line: 0, offset: 9 });
        assert_eq!(found(&Until::text("abc"), 12), None);
        // A match that straddles what was read holds new text.
        assert_eq!(found(&Until::text("c d"), 3).as_deref(), Some("c d"));
        assert!(Until::any(Vec::new()).validate(80, 24).is_err());
        // Empty text, and a regex every line matches, would hold at once: refused, nested
        // in an `any` too.
        for empty in
            [Until::text(""), Until::screen_contains(""), Until::screen_row_contains(1, "")]
        {
            assert!(empty.validate(80, 24).is_err(), "{empty:?}");
            let nested = Until::any(vec![Until::exit(), Until::any(vec![empty])]);
            assert!(nested.validate(80, 24).is_err(), "{nested:?}");
        }
        for every_line in ["", "a*", "^", "$", "x?|y"] {
            assert!(Until::regex(every_line).is_err(), "{every_line:?}");
            assert!(Until::screen_regex(every_line).is_err(), "{every_line:?}");
            assert!(Until::screen_row_regex(0, every_line).is_err(), "{every_line:?}");
        }
        assert!(Until::screen_row_regex(0, "^$").is_ok());
        let anchored = Until::regex("^abc d").unwrap();
        assert_eq!(found(&anchored, 4).as_deref(), Some("abc d"));
        assert_eq!(found(&anchored, 5), None);
    }

    /// A regex match that holds new text is found though it overlaps a match of text already
    /// read: the search for matches that do not overlap took the old one and went on after it.
    #[test]
    fn a_regex_match_overlapping_one_already_read_is_found() {
        let found = |pattern: &str, line: &str, read| {
            // Unchecked: the search of patterns a wait refuses (`x*`) is tested too.
            let Parsed { regex, hir, positions } = parse_caller(pattern).unwrap();
            let re = CallerRegex::new(regex, &hir, positions, MAX_COMPILED_BYTES).unwrap();
            Until(Cond::Regex(re)).match_line(0, line, read).unwrap().map(|m| (m.text, m.location))
        };
        let at = |offset| Location::Transcript { line: 0, offset };
        assert_eq!(found("ab|b1", "xab1", 3), Some(("b1".to_owned(), at(2))));
        assert_eq!(found("ab|b1", "xab1", 0), Some(("ab".to_owned(), at(1))));
        assert_eq!(found("ab|b1", "xab1", 4), None);
        // Many old matches before the new one, every start tried in a line this short.
        let line = format!("{}1", "ab".repeat(700));
        assert_eq!(found("ab|b1", &line, 1400), Some(("b1".to_owned(), at(1399))));
        // In a longer one, past the bound of work, a match from the end of what was read.
        let line = format!("{}ab1", "ab".repeat(2000));
        assert_eq!(found("ab|b1", &line, 4001), Some(("b1".to_owned(), at(4001))));
        assert_eq!(found("a+b|a", &"a".repeat(4000), 3999), Some(("a".to_owned(), at(3999))));
        assert_eq!(found("x*|a", &"a".repeat(4000), 3999), Some((String::new(), at(4000))));
        // Starts are characters, not bytes.
        assert_eq!(found("éa|ab", "éab", 3), Some(("ab".to_owned(), at(2))));
        // An empty match at the end of what was read holds nothing new; one after it does.
        assert_eq!(found("x*", "ab", 1), Some((String::new(), at(2))));
    }

    /// A line read to its end holds no new match and is not searched: a waiter's recheck
    /// searched the read tail each time, up to the bound of work (`[ab]*a[ab]{60}c|b` over
    /// 131,072 random `a`s and `b`s: 0.13 s a line in a release build, seconds in a debug one).
    #[test]
    fn a_line_read_to_its_end_is_not_searched() {
        let line = random_ab(131_072);
        let until = Until::regex("[ab]*a[ab]{60}c|b").unwrap();
        let started = std::time::Instant::now();
        assert_eq!(until.match_line(0, &line, line.len()), Ok(None));
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_millis(100), "searched a read line: {took:?}");
    }

    /// `bytes` random `a`s and `b`s.
    fn random_ab(bytes: usize) -> String {
        let mut x: u64 = 88_172_645_463_325_252;
        (0..bytes)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x & 1 == 0 { 'a' } else { 'b' }
            })
            .collect()
    }

    /// A regex whose lazy DFA gives up (`[ab]*a[ab]{990}c` over random `a`s and `b`s) is
    /// searched within its bound of work: over 256 KiB it says it cannot decide, at once (it
    /// tracked its ~1,000 positions at every byte: 1.9 s in a release build, tens of seconds
    /// in a debug one; now 20 to 30 ms and 2 s); over 2,992
    /// bytes it finds its match, which straddles what was read.
    #[test]
    fn a_regex_whose_lazy_dfa_gives_up_is_searched_within_its_bound() {
        let until = Until::regex("[ab]*a[ab]{990}c").unwrap();
        let line = random_ab(262_144);
        let started = std::time::Instant::now();
        assert_eq!(until.match_line(0, &line, 0), Err(Undecided { bytes: 262_144 }));
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "the search took {took:?}");
        let line = format!("{}a{}c", &line[..2000], "b".repeat(990));
        let found = until.match_line(0, &line, 2001).unwrap().expect("a match");
        assert_eq!(
            (found.text.as_str(), found.location),
            (line.as_str(), Location::Transcript { line: 0, offset: 0 })
        );
        assert_eq!(until.match_line(0, &line, line.len()), Ok(None));
    }

    /// A pattern whose matches have a longest length and whose lazy DFA gives up
    /// (`a[ab]{990}c` over 256 KiB of random `a`s and `b`s) is searched in windows within a
    /// bound of work, not of time: it stops at the same point with two threads spinning beside
    /// it as alone. Its windows went on for 400 ms of the wall clock (12 s in a debug build),
    /// and stopped further on a quiet machine than on a loaded one.
    #[test]
    fn a_search_in_windows_stops_alike_on_a_loaded_machine() {
        let line = random_ab(262_144);
        let search = || Until::regex("a[ab]{990}c").unwrap().match_line(0, &line, 0);
        let alone = search();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let loaded = std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                });
            }
            let loaded = search();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            loaded
        });
        let Err(Undecided { bytes }) = alone else { panic!("decided: {alone:?}") };
        assert!(bytes < line.len(), "no window searched");
        assert_eq!(loaded, alone);
    }

    /// The time of one check of a line by patterns whose lazy DFA gives up, hostile and
    /// ordinary (BENCHMARKS.md §21): `cargo test --release --lib -- --ignored --nocapture
    /// time_of_searches_past_the_lazy_dfa`.
    #[test]
    #[ignore = "a measurement, for a release build"]
    fn time_of_searches_past_the_lazy_dfa() {
        let ab = random_ab(262_144);
        let (log, long_log) = (log_line(65_520), log_line(1 << 20));
        for (pattern, line, what) in [
            ("a[ab]{990}c", &ab, "256 KiB of a/b"),
            ("a.{300}c", &ab, "256 KiB of a/b"),
            ("[ab]*a[ab]{990}c", &ab, "256 KiB of a/b"),
            ("error.{0,100}refused", &log, "64 KiB of log words"),
            ("id.{0,300}xyz", &log, "64 KiB of log words"),
            ("error.{0,100}refused", &long_log, "1 MiB of log words"),
            (r"error[^\n]{0,100}refused", &long_log, "1 MiB of log words"),
            ("(?i)timeout.{0,200}retry", &long_log, "1 MiB of log words"),
            ("id.{0,300}xyz", &long_log, "1 MiB of log words"),
        ] {
            let mut times = Vec::new();
            let mut found = None;
            for _ in 0..5 {
                let until = Until::regex(pattern).unwrap();
                search::SPENT.with(|spent| spent.set(0));
                let started = std::time::Instant::now();
                found = Some(until.match_line(0, line, 0).map(|m| m.map(|m| m.location)));
                times.push(started.elapsed());
            }
            times.sort();
            let (found, spent) = (found.unwrap(), search::SPENT.with(|spent| spent.get()));
            println!(
                "{pattern} over {what}: {:?} to {:?}, {found:?}, work {:.1} Mi",
                times[0],
                times[4],
                spent as f64 / f64::from(1 << 20)
            );
        }
    }

    /// A pattern with a word boundary (`\b`, `\B`) is taken and searched as the `regex` crate
    /// searches it, over ASCII text (the lazy DFA's) and next to non-ASCII text (the crate's,
    /// where that DFA stops): each was refused as a feature the DFA did not support.
    #[test]
    fn a_regex_with_a_word_boundary_is_searched_over_any_text() {
        let found = |pattern: &str, line: &str| {
            let until = Until::regex(pattern).unwrap();
            until.match_line(0, line, 0).unwrap().map(|m| (m.text, m.location))
        };
        let at = |offset| Location::Transcript { line: 0, offset };
        assert_eq!(found(r"\bfoo\b", "a foo b"), Some(("foo".to_owned(), at(2))));
        assert_eq!(found(r"\bfoo\b", "afoo foo"), Some(("foo".to_owned(), at(5))));
        assert_eq!(found(r"(?i)\bwarn", "ÉTÉ: WARNING"), Some(("WARN".to_owned(), at(7))));
        assert_eq!(found(r"\d+ passed\b", "12 passed ✓"), Some(("12 passed".to_owned(), at(0))));
        // `é` and `ü` are word characters: no boundary between them and `foo`.
        assert_eq!(found(r"\bfoo\b", "éfooü foo"), Some(("foo".to_owned(), at(8))));
        assert_eq!(found(r"\bfoo\b", "éfooü"), None);
        assert_eq!(found(r"\Bfoo", "éfoo"), Some(("foo".to_owned(), at(2))));
        assert!(Until::screen_regex(r"\berror\b").is_ok());
    }

    /// A pattern with a Unicode word boundary over a line holding a non-ASCII byte is left to
    /// the `regex` crate, which tracks every position at each byte there: only while its
    /// positions times the bytes fit [`search::WORK`]. `\b[ab]*a[ab]{990}c` over 32 KiB of
    /// random `a`s and `b`s with an `é` every 64 characters (32 Mi) was searched whole,
    /// unbounded (1.5 to 2.3 s a check over 256 KiB in a release build); `\bfoo\b` is still
    /// searched there.
    #[test]
    fn a_word_boundarys_search_over_non_ascii_text_is_bounded() {
        let ab = random_ab(32 << 10);
        let line: String =
            ab.chars().enumerate().map(|(i, c)| if i % 64 == 0 { 'é' } else { c }).collect();
        let until = Until::regex(r"\b[ab]*a[ab]{990}c").unwrap();
        assert_eq!(until.match_line(0, &line, 0), Err(Undecided { bytes: line.len() }));
        let line = format!("é {} foo", random_ab(32 << 10));
        let found = Until::regex(r"\bfoo\b").unwrap().match_line(0, &line, 0).unwrap();
        assert_eq!(found.map(|m| m.text).as_deref(), Some("foo"));
    }

    /// A line of `bytes` bytes of log words, then `error: connection refused`.
    fn log_line(bytes: usize) -> String {
        let words = ["info", "request", "id", "user", "served", "cache", "miss", "ms", "ok"];
        let more = ["GET", "/api/v1", "200", "worker", "error", "timeout", "retry", "closed"];
        let mut x: u64 = 88_172_645_463_325_252;
        let mut line = String::new();
        while line.len() < bytes {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 17) as usize;
            line.push_str(words.get(n).copied().unwrap_or_else(|| more[n - words.len()]));
            line.push(' ');
        }
        line.truncate(bytes);
        line + "error: connection refused"
    }

    /// A pattern with a gap of a counted length (`error.{0,100}refused`), whose lazy DFA gives
    /// up over a long line of log words, is searched again in windows and decides: it was
    /// undecided on a line of 65,545 bytes (its ~110 positions times the bytes past 4 Mi).
    /// Over 1 MiB, past [`search::WORK`], such a search says it could not decide, or finds
    /// what the `regex` crate finds: never another answer.
    #[test]
    fn a_regex_with_a_counted_gap_decides_over_a_long_line() {
        let line = log_line(65_520);
        let until = Until::regex("error.{0,100}refused").unwrap();
        let found = until.match_line(0, &line, 0).unwrap().expect("a match");
        assert_eq!(found.text, "error: connection refused");
        assert_eq!(found.location, Location::Transcript { line: 0, offset: 65_520 });
        let line = log_line(1 << 20);
        for pattern in ["(?i)timeout.{0,200}retry", r"error[^\n]{0,100}refused", "id.{0,300}xyz"] {
            let until = Until::regex(pattern).unwrap();
            let expected = Regex::new(pattern).unwrap().find(&line).map(|m| m.as_str().to_owned());
            match until.match_line(0, &line, 0) {
                Err(Undecided { bytes }) => assert!(bytes <= line.len(), "{pattern}"),
                found => assert_eq!(found.map(|m| m.map(|m| m.text)), Ok(expected), "{pattern}"),
            }
        }
    }

    /// Inside [`Until::any`], an alternative that cannot decide on a line does not hide
    /// another's match on it, before or after it; with none matching, the search says it
    /// could not decide.
    #[test]
    fn an_undecided_alternative_does_not_hide_another_match() {
        let hostile = || Until::regex("[ab]*a[ab]{990}c").unwrap();
        let line = format!("{} MARKER", random_ab(262_144));
        for until in [
            Until::any(vec![hostile(), Until::text("MARKER")]),
            Until::any(vec![Until::text("MARKER"), hostile()]),
        ] {
            let found = until.match_line(0, &line, 0).unwrap().expect("a match");
            assert_eq!(found.text, "MARKER");
        }
        let until = Until::any(vec![hostile(), Until::text("ABSENT")]);
        assert_eq!(until.match_line(0, &line, 0), Err(Undecided { bytes: line.len() }));
    }

    /// A pattern searched from its first literals (`DONE`), or only in a line holding one of
    /// its last ones (`\d+ passed`), finds the matches the `regex` crate finds, from any
    /// point of the line (a guard: they were found before the literals were used too).
    #[test]
    fn a_regex_skipping_to_its_literals_finds_every_match() {
        for (pattern, line) in [
            ("DONE", "not yet; DONE; DONE"),
            (r"\d+ passed", "3 passed, 14 passed; 0 failed"),
            ("(?i)build (succeeded|failed)", "Build FAILED, build succeeded"),
            (r"\d+ passed", "none passed here"),
        ] {
            let until = Until::regex(pattern).unwrap();
            let re = Regex::new(pattern).unwrap();
            for read in 0..=line.len() {
                let found = until.match_line(0, line, read).unwrap().map(|m| m.text);
                let expected = re.find_iter(line).find(|m| m.end() > read);
                assert_eq!(found.as_deref(), expected.map(|m| m.as_str()), "/{pattern}/ {read}");
            }
        }
    }
}
