//! The optional wait of the reading tools: arguments to an [`Until`], and a wait that a
//! `notifications/cancelled` can end.

use std::time::Duration;

use crate::{Activity, Config, Fired, Screen, Session, Until};

use super::args::Args;
use super::budget::{Budget, LABEL, MATCHED};
use super::offered::has as offers;
use super::progress::await_reply;
use super::{Call, ToolError};

/// Quiet time that ends the default wait: longer than a short timer (vim's 1 s wait for the
/// rest of a key code after an Escape, see [`crate::os::procfs::SHORT_TIMER`]), so that a
/// program in such a wait redraws and then reads as waiting for input before silence alone
/// ends the wait on a screen about to change.
pub(crate) const SETTLE_QUIET: Duration =
    crate::os::procfs::SHORT_TIMER.saturating_add(Duration::from_millis(250));
/// Longest default wait.
pub(crate) const SETTLE_TIMEOUT: Duration = Duration::from_secs(10);

/// What to do when a call gives no wait condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefaultWait {
    /// Return at once.
    None,
    /// Wait until the program waits for input, exits, or has been quiet for [`SETTLE_QUIET`]
    /// without being known to be busy ([`Until::settled`]).
    Settle,
    /// For a shell with integration: wait until it shows its prompt, exits, or has been quiet
    /// for [`SETTLE_QUIET`] without being known to be busy (its startup files may read the
    /// terminal before the prompt is drawn).
    Prompt,
}

/// A wait to perform.
pub(crate) struct Plan {
    until: Until,
    timeout: Duration,
    /// Only transcript conditions (`for_text`, `for_regex`): none matches what the alternate
    /// screen shows, which is no transcript (only the shell's lines it hides, a line left
    /// half-written at the cursor not until it is left, and what is printed once it is left).
    transcript_only: bool,
    /// The wait was not asked for (the default settle).
    implicit: bool,
    /// The screen places the wait looks at (`screen_row`, `for_cursor`'s row and column),
    /// which must be on the screen.
    places: Places,
    /// The transcript line a submitted input was typed on, as the request of the call's first
    /// piece took it: its echo is no answer to it, so text conditions search after it, or
    /// after the later line where the wait finds a plain-text echo the terminal made
    /// (`TypedLine::anchor`).
    pub(crate) typed_line: Option<crate::term::transcript::TypedLine>,
}

/// The screen places a wait looks at.
#[derive(Debug, Clone, Copy, Default)]
struct Places {
    /// `screen_row`.
    row: Option<u16>,
    /// `for_cursor`.
    cursor: Option<(u16, u16)>,
}

fn any(mut conditions: Vec<Until>) -> Option<Until> {
    match conditions.len() {
        0 => None,
        1 => conditions.pop(),
        _ => Some(Until::any(conditions)),
    }
}

/// The default wait's conditions: `ready` (the program waits for input, or the shell shows its
/// prompt), the exit, or quiet for [`SETTLE_QUIET`] without being known to be busy.
fn settle(ready: Until) -> Vec<Until> {
    vec![ready, Until::exit(), Until::settled(SETTLE_QUIET)]
}

impl Plan {
    /// The default wait of the tools that act ([`DefaultWait::Settle`]), at most `limit`.
    pub(crate) fn settle(config: &Config, limit: Duration) -> Plan {
        Plan {
            until: any(settle(Until::input_wait())).expect("a plan has a condition"),
            timeout: SETTLE_TIMEOUT.min(config.default_wait_timeout).min(limit),
            implicit: true,
            transcript_only: false,
            places: Places::default(),
            typed_line: None,
        }
    }

    /// The plan, ended also by `also`.
    pub(crate) fn or(mut self, also: Until) -> Plan {
        self.until = Until::any(vec![self.until, also]);
        self
    }

    /// Takes `spent`, the time the call already waited before this wait (between keys it
    /// typed), off the wait's longest time: `timeout_ms` bounds the call's waits in all.
    pub(crate) fn spend(&mut self, spent: Duration) {
        self.timeout = self.timeout.saturating_sub(spent);
    }

    /// An explicit wait for `until`, at most `timeout`.
    pub(crate) fn new(until: Until, timeout: Duration) -> Plan {
        Plan {
            until,
            timeout,
            implicit: false,
            transcript_only: false,
            places: Places::default(),
            typed_line: None,
        }
    }
}

/// What a wait came to.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    /// The condition, as text.
    pub condition: String,
    /// `matched`, `exited`, `closed`, `timeout` or `cancelled`.
    pub outcome: &'static str,
    /// The text that matched, for text conditions.
    pub matched_text: Option<String>,
    /// How long the wait took.
    pub elapsed: Duration,
    /// Whether this was the default wait.
    pub implicit: bool,
    /// The session's shell marks its prompts (shell integration): a command still busy is
    /// waited for with `prompt`, not `exit` (which would wait for the shell itself).
    pub shell_prompt: bool,
    /// The terminal's foreground group was not the program's when the wait ended: the program
    /// (a shell with job control, with no prompt marks) runs a command as a job of its own, and
    /// a command still busy is waited for with `input_wait` (the shell back at its prompt, or
    /// the command asking for input), not `exit` (which would wait for the shell itself).
    pub runs_job: bool,
    /// For the default wait, which of its built-in conditions held (input wait, exit, quiet):
    /// a short fixed text.
    pub settled_by: Option<String>,
    /// For a transcript wait that timed out or that the program's wait for input ended, the
    /// last line printed before the wait began that its condition matches: the text was
    /// there, but already read.
    pub printed_before: Option<u64>,
    /// The call typed a line before its wait (`typed_line`): a line `printed_before` names
    /// came before that input, from an earlier command, and is said to be.
    pub typed_line: bool,
    /// The screen when the wait timed out.
    pub screen: Option<Screen>,
    /// The condition holds one of the marks termloom adds to what it shows ([`MARKS`]) that
    /// neither the screen nor the recent transcript held when the wait ended unmet: copied
    /// from what termloom showed, not text the program printed.
    pub marks_copied: bool,
    /// Where the echo of the line the call submitted starts (its line, and the bytes before
    /// it there), as the wait found it (`TypedLine::anchor`): further on than the line it was
    /// typed on when output was still unread (see `View::echo_at`).
    pub echo_at: Option<(u64, usize)>,
    /// Why the wait the call asked for was refused, this default one done instead
    /// ([`run_started`]): its result says so, with the session's state.
    pub refused: Option<String>,
}

/// Builds the wait from the call's arguments.
pub(crate) fn plan(
    args: &Args,
    default: DefaultWait,
    config: &Config,
) -> Result<Option<Plan>, ToolError> {
    let (mut events, transcript_conditions, places) = conditions(args)?;
    let timeout = args.takes("timeout_ms").then(|| args.uint("timeout_ms")).flatten();
    let timeout = timeout.map(Duration::from_millis);
    let implicit = events.is_empty();
    let transcript_only = !implicit && transcript_conditions == events.len();
    if implicit {
        if default == DefaultWait::None {
            // Nothing is waited for, so a timeout would bound nothing: said, rather than
            // silently ignored (`termloom read --timeout` alone is refused the same way).
            if timeout.is_some() {
                return Err(ToolError::invalid_input(format!(
                    "{}: `timeout_ms` bounds a wait, and no wait was asked for: give a condition too ({}), or leave out timeout_ms to read at once",
                    args.tool_name(),
                    WAIT_CONDITIONS.join(", ")
                )));
            }
            return Ok(None);
        }
        let ready = match default {
            DefaultWait::Prompt => Until::prompt(),
            _ => Until::input_wait(),
        };
        events = settle(ready);
    }
    let fallback = if implicit {
        SETTLE_TIMEOUT.min(config.default_wait_timeout)
    } else {
        config.default_wait_timeout
    };
    let timeout = timeout.unwrap_or(fallback);
    let until = any(events).expect("a plan has a condition");
    Ok(Some(Plan { until, timeout, implicit, transcript_only, places, typed_line: None }))
}

/// The wait fields that are conditions (every one but `screen_row`, which only narrows two of
/// them, and `timeout_ms`), as an error names them.
const WAIT_CONDITIONS: [&str; 10] = [
    "for_text",
    "for_regex",
    "for_screen_text",
    "for_screen_regex",
    "for_cursor",
    "quiet_ms",
    "stable_ms",
    "prompt=true",
    "input_wait=true",
    "exit=true",
];

/// The conditions a call's wait fields ask for, how many of them look at the transcript, and
/// the screen places they look at.
fn conditions(args: &Args) -> Result<(Vec<Until>, usize, Places), ToolError> {
    let mut events = Vec::new();
    if !args.takes("for_text") {
        // A tool without wait fields (terminal_mouse) has only its default wait.
        return Ok((events, 0, Places::default()));
    }
    let transcript_conditions =
        usize::from(args.str("for_text").is_some()) + usize::from(args.str("for_regex").is_some());
    if let Some(text) = args.str("for_text") {
        events.push(Until::text(text));
    }
    if let Some(pattern) = args.str("for_regex") {
        events.push(Until::regex(pattern)?);
    }
    let row = args.uint("screen_row").map(|row| row as u16);
    if let Some(text) = args.str("for_screen_text") {
        events.push(match row {
            Some(row) => Until::screen_row_contains(row, text),
            None => Until::screen_contains(text),
        });
    }
    if let Some(pattern) = args.str("for_screen_regex") {
        events.push(match row {
            Some(row) => Until::screen_row_regex(row, pattern)?,
            None => Until::screen_regex(pattern)?,
        });
    }
    if row.is_some() && events.len() == transcript_conditions {
        return Err(ToolError::invalid_input(
            "screen_row limits for_screen_text or for_screen_regex to one row: give one of them too",
        ));
    }
    let cursor = args.str("for_cursor").map(cursor_position).transpose()?;
    if let Some((row, col)) = cursor {
        events.push(Until::cursor_at(row, col));
    }
    if let Some(ms) = args.uint("quiet_ms") {
        events.push(Until::quiet(Duration::from_millis(ms)));
    }
    if let Some(ms) = args.uint("stable_ms") {
        events.push(Until::stable(Duration::from_millis(ms)));
    }
    if args.bool("prompt") == Some(true) {
        events.push(Until::prompt());
    }
    if args.bool("input_wait") == Some(true) {
        events.push(Until::input_wait());
    }
    if args.bool("exit") == Some(true) {
        events.push(Until::exit());
    }
    Ok((events, transcript_conditions, Places { row, cursor }))
}

/// Reads `for_cursor`: `"row,col"`, both from 0.
fn cursor_position(at: &str) -> Result<(u16, u16), ToolError> {
    let parsed = at.split_once(',').and_then(|(row, col)| {
        Some((row.trim().parse::<u16>().ok()?, col.trim().parse::<u16>().ok()?))
    });
    parsed.ok_or_else(|| {
        ToolError::invalid_input(format!(
            "for_cursor must be \"row,col\" with both from 0, e.g. \"0,5\"; got {}",
            super::args::quoted(at)
        ))
    })
}

/// Refuses a wait that cannot hold: the prompt alone on a session whose shell marks none,
/// transcript conditions only while the session shows a full-screen program (what the
/// alternate screen shows is no transcript: they would match only the primary screen's lines
/// it hides, ended before it (a line left half-written at the cursor, only once it is left:
/// `Emulator::readable_hidden_tail`), and what is printed once it is left, which a caller
/// waiting on such a program rarely means), or a row or cursor position off the screen.
pub(crate) fn check(plan: &Plan, session: &Session) -> crate::Result<()> {
    match refusal(plan, session)? {
        Some(why) => Err(crate::Error::InvalidInput(format!("{why}; nothing was sent"))),
        None => Ok(()),
    }
}

/// Why a wait for `plan` on `session` cannot hold, if it cannot (see [`check`]), without
/// saying what was done before it: [`check`] says nothing was sent, [`run_after`] what was.
fn refusal(plan: &Plan, session: &Session) -> crate::Result<Option<String>> {
    if plan.until.is_prompt_only()
        && !session.info()?.shell_integration
        && !session.status()?.shell_integration
    {
        return Ok(Some(format!(
            "session {} was not started with shell integration and marks no prompts, so prompt can never hold: wait with for_regex on its prompt's text, input_wait or stable_ms instead{}",
            session.id(),
            match offers("terminal_start") {
                true => " (terminal_start without command or argv starts a shell with integration)",
                false => "",
            }
        )));
    }
    let Places { row, cursor } = plan.places;
    if !plan.transcript_only && row.is_none() && cursor.is_none() {
        return Ok(None);
    }
    let screen = session.screen()?;
    let id = session.id();
    if plan.transcript_only && screen.alternate {
        return Ok(Some(format!(
            "session {id} shows a full-screen program on the alternate screen, whose screen is no transcript: for_text and for_regex match only the lines ended before it took that screen, which it hides (a line left half-written at the cursor then, only once it leaves), and what is printed after it leaves it (a command it runs, or once it ends), not what it shows; wait with for_screen_text (or stable_ms, input_wait) instead"
        )));
    }
    Ok(off_screen(plan, &format!("session {id}'s"), screen.cols, screen.rows))
}

/// Why a wait for `plan` on a session about to be started with a `cols` x `rows` screen
/// cannot hold, if that is known before it starts: a place off that screen (`terminal_start`
/// refuses it before anything is started; what needs the running program, [`refusal`] tells
/// once it runs).
pub(crate) fn refusal_before_start(plan: &Plan, cols: u16, rows: u16) -> Option<String> {
    off_screen(plan, "the requested", cols, rows)
}

/// Why a wait for `plan` cannot hold on the `cols` x `rows` screen `whose` (`session 3's`): a
/// `screen_row` or `for_cursor` off it.
fn off_screen(plan: &Plan, whose: &str, cols: u16, rows: u16) -> Option<String> {
    let Places { row, cursor } = plan.places;
    let off = |what: String| {
        Some(format!(
            "{what} is off {whose} {cols}x{rows} screen (rows 0-{}, columns 0-{}), so the wait could never hold",
            rows.saturating_sub(1),
            cols.saturating_sub(1)
        ))
    };
    if let Some(row) = row.filter(|&row| row >= rows) {
        return off(format!("screen_row {row}"));
    }
    if let Some((row, col)) = cursor.filter(|&(row, col)| row >= rows || col >= cols) {
        return off(format!("for_cursor \"{row},{col}\""));
    }
    None
}

/// [`run`] for the wait that follows what a call did to `session` (`done`: "the input was
/// typed", "the signal was sent"). A wait refused then, because it could not hold any more
/// (what was typed started a full-screen program, or another caller resized the screen,
/// since the call's [`check`]) or because too many are pending
/// ([`Error::TooManyWaits`](crate::Error::TooManyWaits),
/// [`Error::TooManyReaderWaits`](crate::Error::TooManyReaderWaits), whose messages say that
/// nothing was typed, as the library refuses such a wait before typing), says what was done
/// instead, so that a model does not do it again: every such refusal is worded here.
pub(crate) fn run_after(
    call: &Call,
    session: &Session,
    plan: &Plan,
    done: &str,
) -> Result<Report, ToolError> {
    // (`when`: when to read.)
    let refused = |code: &'static str, why: String, when: &str| {
        ToolError::with_code(
            code,
            format!(
                "{done}; its wait could not start: {why}; do not repeat it{}",
                match offers("terminal_read") {
                    true => format!(": read the output with terminal_read{when}"),
                    false => String::new(),
                }
            ),
        )
    };
    if let Some(why) = refusal(plan, session)? {
        return Err(refused("invalid_input", why, ""));
    }
    wait(call, session, plan).map_err(|err| {
        let pending = match &err {
            crate::Error::TooManyWaits { session, limit } => {
                format!("session {session} has {limit} waits pending, its bound (Config::max_waits)")
            }
            crate::Error::TooManyReaderWaits { session, limit } => format!(
                "this caller has {limit} waits pending on session {session}, its bound for one reader (Config::max_waits_per_reader)"
            ),
            _ => return ToolError::from(err),
        };
        refused(err.code(), pending, " once a wait has ended")
    })
}

/// [`run`] for the wait of a call that started `session` (`terminal_start`). A wait that
/// cannot hold ([`check`]: what only the running program tells, such as whether it marks
/// prompts; [`refusal_before_start`] refused the rest before the start) does not undo the
/// start: the default wait ([`Plan::settle`], within the wait's timeout) is done instead, and
/// why the asked-for one was refused comes back in its report ([`Report::refused`]), for the
/// result to say beside the session it started. (Refused as an error, "nothing was sent", it
/// read as if nothing had happened, though the program ran: a model would start it again.)
/// Whether a program started without integration marks its prompts (OSC 133) is judged once
/// it is ready, after that default wait: looked at right after the start, the answer
/// depended on whether the program had drawn its first prompt yet.
pub(crate) fn run_started(call: &Call, session: &Session, plan: &Plan) -> crate::Result<Report> {
    let settle = Plan::settle(call.engine.config(), plan.timeout);
    let ready = match plan.until.is_prompt_only() && !session.info()?.shell_integration {
        true => Some(wait(call, session, &settle)?),
        false => None,
    };
    match refusal(plan, session)? {
        None => {
            let spent = ready.as_ref().map_or(Duration::ZERO, |ready| ready.elapsed);
            let mut plan = Plan { until: plan.until.clone(), typed_line: None, ..*plan };
            plan.spend(spent);
            let report = wait(call, session, &plan)?;
            // The readiness wait is part of the call's wait: its time counts.
            Ok(Report { elapsed: report.elapsed + spent, ..report })
        }
        Some(why) => {
            let ready = match ready {
                // Not ready by the readiness wait's end: it may mark its prompts yet.
                Some(ready) if ready.outcome == "timeout" => {
                    let why = format!(
                        "session {} marked no prompt before its start's readiness wait ran out ({:.2} s), so prompt was not waited for: wait again with prompt once it has drawn one, or with for_regex on its prompt's text",
                        session.id(),
                        ready.elapsed.as_secs_f64()
                    );
                    return Ok(Report { refused: Some(why), ..ready });
                }
                Some(ready) => ready,
                None => wait(call, session, &settle)?,
            };
            Ok(Report { refused: Some(why), ..ready })
        }
    }
}

/// Waits for `plan` on `session` until it holds, the session ends, the timeout passes or the
/// call is cancelled (the cancellation ends the engine's wait at once; nothing polls).
pub(crate) fn run(call: &Call, session: &Session, plan: &Plan) -> crate::Result<Report> {
    check(plan, session)?;
    wait(call, session, plan)
}

/// [`run`] without its [`check`].
fn wait(call: &Call, session: &Session, plan: &Plan) -> crate::Result<Report> {
    let condition = plan.until.to_string();
    // A wait for anything but the program's wait for input also ends when the program asks
    // for a line (or a password) and stays quiet: nothing more comes until it is typed, and
    // the wait would only run to its timeout.
    let asked = Until::asks_for_line();
    let asked_for = asked.to_string();
    let until = match plan.implicit || plan.until.needs_input_wait() {
        true => plan.until.clone(),
        false => Until::any(vec![plan.until.clone(), asked]),
    };
    let pending = session.start_wait_past(until, plan.timeout, plan.typed_line.clone())?;
    let canceller = pending.canceller();
    call.cancel.on_stop(move || canceller.cancel());
    let (reply, timeout) = pending.reply();
    let outcome = await_reply(call, session, reply, || crate::Error::WaitAborted(timeout))?;
    let elapsed = outcome.elapsed;
    let typed_line = outcome.typed_line.as_ref();
    let echo_at =
        typed_line.filter(|line| line.echoed).map(|line| (line.number, line.before.len()));
    let shell_prompt = outcome.status.shell_integration;
    let runs_job =
        outcome.status.foreground.as_ref().is_some_and(|group| group.pid != session.pid());
    let report = |outcome, matched_text, screen| Report {
        condition: condition.clone(),
        outcome,
        matched_text,
        elapsed,
        implicit: plan.implicit,
        shell_prompt,
        runs_job,
        settled_by: None,
        printed_before: None,
        typed_line: typed_line.is_some(),
        screen,
        echo_at,
        refused: None,
        marks_copied: false,
    };
    // (Only where the wait ended unmet: a wait that held found its text.)
    let copied = || marks_copied(session, &condition, outcome.screen.as_ref());
    Ok(match outcome.fired {
        // (The default wait's conditions are states, which match no text.)
        Fired::Matched(found) if plan.implicit => {
            Report { settled_by: Some(found.condition), ..report("matched", None, None) }
        }
        Fired::Matched(found) if found.condition == asked_for => Report {
            printed_before: printed_before(session, plan, typed_line),
            marks_copied: copied(),
            ..report("waiting_for_input", None, None)
        },
        Fired::Matched(found) => report("matched", Some(found.text), None),
        Fired::Exited { .. } => Report {
            printed_before: printed_before(session, plan, typed_line),
            marks_copied: copied(),
            ..report("exited", None, None)
        },
        Fired::Closed => report("closed", None, None),
        Fired::Cancelled => report("cancelled", None, None),
        Fired::Timeout => Report {
            printed_before: printed_before(session, plan, typed_line),
            marks_copied: copied(),
            ..report("timeout", None, outcome.screen)
        },
    })
}

/// What a wait's line adds when its condition holds termloom's marks ([`Report::marks_copied`]).
pub(crate) const MARKS_NOTE: &str = "⟦ ⟧ and ▌ are termloom's marks (highlights, the cursor), not the program's text: wait without them";

/// The marks termloom adds to the screens and outputs it shows: `⟦` `⟧` around highlighted
/// text, `▌` at the cursor.
const MARKS: [char; 3] = ['⟦', '⟧', '▌'];

/// Whether `condition` holds a mark of termloom's ([`MARKS`]) that neither the screen
/// (`screen`, else the session's now) nor the last [`LINES_LOOKED_BACK`] transcript lines
/// hold: copied from what termloom showed, as the program printed none (a program that
/// prints `▌` itself, a progress bar, is waited for as any text is). Looks only when the
/// condition holds a mark.
fn marks_copied(session: &Session, condition: &str, screen: Option<&Screen>) -> bool {
    let marks: Vec<char> = MARKS.into_iter().filter(|mark| condition.contains(*mark)).collect();
    if marks.is_empty() {
        return false;
    }
    let screen = match screen {
        Some(screen) => Some(screen.text()),
        None => session.screen().ok().map(|screen| screen.text()),
    };
    let end = session.transcript_lines(0..0, 0).map_or(0, |lines| lines.end);
    let recent = session.transcript_lines(end.saturating_sub(LINES_LOOKED_BACK)..end, 1 << 20);
    let lines = recent.map(|recent| recent.lines).unwrap_or_default();
    let printed = |mark: char| {
        screen.as_deref().is_some_and(|text| text.contains(mark))
            || lines.iter().any(|(_, line)| line.contains(mark))
    };
    marks.into_iter().any(|mark| !printed(mark))
}

/// How many of the last transcript lines a timed-out transcript wait looks through for the
/// text it waited for, printed before it began.
const LINES_LOOKED_BACK: u64 = 500;

/// The last of the recent transcript lines that the plan's transcript conditions match, if
/// it has any: after a timeout, the answer may have come before the wait (and been read).
/// Only lines above the one a submitted line was typed on count (`typed_line`, as the wait
/// followed its echo there): that line's echo (`grep foo` typed, waiting for `foo`) was
/// printed by the call itself. A blank line matches a regex for the empty line (`^$`) as in
/// the wait, once ended: not the cursor's. A line a regex could not be searched in within its
/// bound of work ([`crate::Error::WaitRegexUndecided`]) is taken as not holding it: this only
/// adds a hint to a timeout, which a guess must not.
fn printed_before(
    session: &Session,
    plan: &Plan,
    typed_line: Option<&crate::term::transcript::TypedLine>,
) -> Option<u64> {
    let until = &plan.until;
    if !until.needs_transcript() {
        return None;
    }
    let end = session.transcript_lines(0..0, 0).ok()?.end;
    let cursor = end.saturating_sub(1);
    let end = typed_line.map_or(end, |typed| end.min(typed.number));
    let recent = session.transcript_lines(end.saturating_sub(LINES_LOOKED_BACK)..end, 1 << 20);
    let lines = recent.ok()?.lines;
    let matches = |n: u64, line: &str| {
        let blank = || (n < cursor).then(|| until.match_blank_line(n, line)).flatten();
        until.match_line(n, line, 0).is_ok_and(|m| m.is_some()) || blank().is_some()
    };
    lines.iter().rev().find(|(n, line)| matches(*n, line)).map(|(n, _)| *n)
}

impl Report {
    /// This report with its condition and matched text cut to their parts of `budget` (see
    /// [`Budget::label`]), without the screen.
    pub(crate) fn within(&self, budget: &mut Budget) -> Report {
        Report {
            condition: budget.label(&self.condition, LABEL, "condition"),
            outcome: self.outcome,
            matched_text: self
                .matched_text
                .as_deref()
                .map(|t| budget.label(t, MATCHED, "matched text")),
            elapsed: self.elapsed,
            implicit: self.implicit,
            shell_prompt: self.shell_prompt,
            runs_job: self.runs_job,
            settled_by: self.settled_by.clone(),
            printed_before: self.printed_before,
            typed_line: self.typed_line,
            screen: None,
            marks_copied: self.marks_copied,
            echo_at: self.echo_at,
            // (Before what it shows: without it, what was shown reads as the wait's answer.)
            refused: self.refused.as_deref().map(|why| budget.label(why, 1, "reason")),
        }
    }

    /// The structured result's `wait`: the condition, how the wait ended, the matched text,
    /// how long it took and whether it was the default wait; and, for a condition holding
    /// termloom's marks that ended unmet, `termloom_marks: true` ([`MARKS_NOTE`]).
    pub(crate) fn json(&self) -> serde_json::Value {
        let mut json = serde_json::json!({
            "condition": self.condition,
            "outcome": self.outcome,
            "matched_text": self.matched_text,
            "elapsed_ms": self.elapsed.as_millis() as u64,
            "default": self.implicit,
        });
        // The line's note on termloom's marks in the condition ([`MARKS_NOTE`]), in a word.
        if self.marks_told() {
            json["termloom_marks"] = true.into();
        }
        json
    }

    /// What was waited for and what happened, in a few words for the result's header; `None`
    /// when the default wait (or a wait for the exit alone) ended because the program waits
    /// for input or exited and the header's status (`shown`, taken after the wait) already
    /// says so.
    pub(crate) fn line(&self, shown: Option<&Activity>) -> Option<String> {
        let secs = self.elapsed.as_secs_f64();
        let condition = &self.condition;
        Some(match self.outcome {
            "matched" => match &self.matched_text {
                // The condition names the text (`text "42"`): not twice.
                Some(text) if !text.is_empty() && condition.contains(&format!("{text:?}")) => {
                    format!("{condition} matched after {secs:.2} s")
                }
                Some(text) if !text.is_empty() => {
                    format!("{condition} matched \"{text}\" after {secs:.2} s")
                }
                _ if self.implicit => match self.settled_by.as_deref() {
                    // The status says it, unless the program stirred again since the wait.
                    // A shell's prompt is its wait for input.
                    Some("waiting for input")
                        if matches!(
                            shown,
                            Some(Activity::WaitingForInput | Activity::AtPrompt)
                        ) =>
                    {
                        return None;
                    }
                    Some("shell prompt") if matches!(shown, Some(Activity::AtPrompt)) => {
                        return None;
                    }
                    // `running, quiet` says the rest.
                    Some(by) if by.starts_with("quiet") && shown == Some(&Activity::Quiet) => {
                        format!("settled after {secs:.2} s")
                    }
                    Some(by) => format!("settled after {secs:.2} s: {by}"),
                    None => format!("settled after {secs:.2} s"),
                },
                _ => format!("{condition} held after {secs:.2} s"),
            },
            // The header's status says it, and nothing else was waited for.
            "exited" if self.implicit || condition == "exit" => match shown {
                Some(Activity::Exited(_)) => return None,
                _ => format!("exited after {secs:.2} s"),
            },
            // The exit was asked for: not "exited while waiting for exit".
            "exited" if condition.contains(", exit") || condition.contains("[exit") => {
                format!("exited after {secs:.2} s")
            }
            "exited" => format!(
                "exited while waiting for {condition}, after {secs:.2} s{}{}",
                self.before_the_wait(),
                self.marks_waited_for()
            ),
            "closed" => format!("the session was closed during the wait, after {secs:.2} s"),
            "cancelled" => format!("wait cancelled after {secs:.2} s"),
            "waiting_for_input" => format!(
                "stopped waiting for {condition} after {secs:.2} s: the program asks for input first{}{}",
                self.before_the_wait(),
                self.marks_waited_for()
            ),
            _ if self.implicit => format!(
                "still busy after {secs:.1} s: read again later, or wait with for_text or {}",
                match (self.shell_prompt, self.runs_job) {
                    (true, _) => "prompt=true",
                    (false, true) => "input_wait=true",
                    (false, false) => "exit=true",
                }
            ),
            // "waiting for input", not "waiting for waiting for input".
            _ if condition.starts_with("waiting for ") => {
                format!("timed out after {secs:.1} s {condition}")
            }
            _ => format!(
                "timed out after {secs:.1} s waiting for {condition}{}{}",
                self.before_the_wait(),
                self.marks_waited_for()
            ),
        })
    }

    /// For a condition holding the marks termloom's screens and outputs add (`⟦` `⟧` around
    /// highlighted text, `▌` at the cursor), copied from one of them into a wait that then
    /// ended unmet (timed out, or cut short by the program's question or exit): that they
    /// are not the program's text ([`Report::marks_copied`]).
    fn marks_waited_for(&self) -> String {
        match self.marks_told() {
            true => format!("; {MARKS_NOTE}"),
            false => String::new(),
        }
    }

    /// Whether the line tells the condition's marks ([`Report::marks_copied`]): not when a
    /// line printed before the wait matched the condition (`printed_before`), marks and all.
    fn marks_told(&self) -> bool {
        self.marks_copied && self.printed_before.is_none()
    }

    /// Where the text waited for was printed before the wait began, if it was: before the
    /// line the call typed, when it typed one (an earlier command's output, not this one's).
    fn before_the_wait(&self) -> String {
        let before = match self.typed_line {
            true => "before this call's input",
            false => "before the wait",
        };
        self.printed_before.map(|line| format!("; line {line} had it {before}")).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_wait(outcome: &'static str, settled_by: Option<&str>) -> Report {
        Report {
            condition: "waiting for input or exit or quiet for 1250 ms".into(),
            outcome,
            matched_text: None,
            elapsed: Duration::from_millis(250),
            implicit: true,
            shell_prompt: false,
            runs_job: false,
            settled_by: settled_by.map(str::to_owned),
            printed_before: None,
            typed_line: false,
            screen: None,
            echo_at: None,
            refused: None,
            marks_copied: false,
        }
    }

    /// The default wait's reason is left out only where the header's status, taken after the
    /// wait, already says it; a program that stirred again since still gets its reason.
    #[test]
    fn the_default_wait_says_why_unless_the_status_does() {
        let waiting = default_wait("matched", Some("waiting for input"));
        assert_eq!(waiting.line(Some(&Activity::WaitingForInput)), None);
        assert_eq!(
            waiting.line(Some(&Activity::Running)).as_deref(),
            Some("settled after 0.25 s: waiting for input")
        );
        assert_eq!(waiting.line(Some(&Activity::AtPrompt)), None);
        let prompt = default_wait("matched", Some("shell prompt"));
        assert_eq!(prompt.line(Some(&Activity::AtPrompt)), None);
        assert_eq!(
            prompt.line(Some(&Activity::Quiet)).as_deref(),
            Some("settled after 0.25 s: shell prompt")
        );
        let quiet = default_wait("matched", Some("quiet for 1250 ms"));
        assert_eq!(
            quiet.line(Some(&Activity::Running)).as_deref(),
            Some("settled after 0.25 s: quiet for 1250 ms")
        );
        assert_eq!(quiet.line(Some(&Activity::Quiet)).as_deref(), Some("settled after 0.25 s"));
        let mut timed_out = default_wait("timeout", None);
        timed_out.implicit = false;
        timed_out.elapsed = Duration::from_secs(2);
        timed_out.condition = "waiting for input".into();
        assert_eq!(
            timed_out.line(None).as_deref(),
            Some("timed out after 2.0 s waiting for input")
        );
        timed_out.condition = "text \"ok\"".into();
        assert_eq!(
            timed_out.line(None).as_deref(),
            Some("timed out after 2.0 s waiting for text \"ok\"")
        );
        // A wait for termloom's own marks, copied from a screen it showed, is told so.
        timed_out.condition = "screen text \"⟦Main⟧ menu\"".into();
        timed_out.marks_copied = true;
        assert!(
            timed_out.line(None).unwrap().ends_with("not the program's text: wait without them")
        );
        // So is one the program's question or exit cut short (the agent was told to type).
        for outcome in ["waiting_for_input", "exited"] {
            let cut_short = Report { outcome, ..timed_out.clone() };
            let line = cut_short.line(None).unwrap();
            assert!(line.ends_with("not the program's text: wait without them"), "{line}");
            assert_eq!(cut_short.json()["termloom_marks"], true);
            // Not where a line printed before the wait had the text, marks and all.
            let printed = Report { printed_before: Some(3), ..cut_short };
            assert!(!printed.line(None).unwrap().contains("termloom's marks"));
        }
        timed_out.marks_copied = false;
        let mut asked = default_wait("exited", None);
        asked.implicit = false;
        asked.condition = "exit".into();
        assert_eq!(asked.line(None).as_deref(), Some("exited after 0.25 s"));
        // The header's `exited (exit code 0)` says it: not twice.
        let gone = Activity::Exited(crate::ExitStatus::Code(0));
        assert_eq!(asked.line(Some(&gone)), None);
        asked.condition = "any of [text \"ok\", exit]".into();
        assert_eq!(asked.line(None).as_deref(), Some("exited after 0.25 s"));
        // Waited for more than the exit: which one ended the wait is said.
        assert_eq!(asked.line(Some(&gone)).as_deref(), Some("exited after 0.25 s"));
        asked.condition = "text \"ok\"".into();
        assert_eq!(
            asked.line(None).as_deref(),
            Some("exited while waiting for text \"ok\", after 0.25 s")
        );
        // A command still busy in a shell with integration is waited for by its prompt.
        let mut busy = default_wait("timeout", None);
        assert_eq!(
            busy.line(None).as_deref(),
            Some("still busy after 0.2 s: read again later, or wait with for_text or exit=true")
        );
        // A command a shell with no prompt marks runs as a job is waited for by the shell's
        // wait for keys at its prompt, not by the shell's exit.
        busy.runs_job = true;
        assert!(busy.line(None).unwrap().ends_with("for_text or input_wait=true"));
        busy.shell_prompt = true;
        assert!(busy.line(None).unwrap().ends_with("for_text or prompt=true"));
        let exited = default_wait("exited", None);
        assert_eq!(exited.line(Some(&Activity::Exited(crate::ExitStatus::Code(0)))), None);
        assert_eq!(
            exited.line(Some(&Activity::Closed(crate::ExitStatus::Signal(1)))).as_deref(),
            Some("exited after 0.25 s")
        );
    }
}
