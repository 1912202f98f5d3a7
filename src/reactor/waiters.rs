//! Callers blocked in `wait` or `run_command`, answered when their condition holds; and the
//! session status both report.

use std::hash::{Hash, Hasher};

use super::input_wait::{
    Confirmation, Looked, Sighting, asks_for_line, input_wait_of, master_unread, output_unread,
};
use super::*;
use crate::term::echo_layout::EchoTrail;
use crate::term::terminal::UnreadBefore;
use crate::types::{Activity, Process, SessionState, Status};
use crate::wait::StateView;

/// How long a `run_command` whose line has not started a command is looked at (see
/// `Reactor::command_check`).
const START_LOOKS: Duration = Duration::from_secs(5);

/// Why a `run_command` caller is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    /// The command ended (its prompt is back, or the shell or session ended).
    Ended,
    /// Its timeout passed first.
    TimedOut,
    /// It waits for input at the terminal.
    WaitingForInput,
    /// It ended, and its next prompt, begun and not drawn, asks a question (see
    /// `command_check`).
    EndedAtQuestion,
}

/// A caller blocked in `run_command`.
pub(super) struct CommandWaiter {
    pub id: u64,
    /// Prompts drawn, prompts begun and commands ended when the command line was sent.
    pub prompts: u64,
    pub prompt_starts: u64,
    pub commands: u64,
    /// The reader whose cursor moves past the command's output.
    pub reader: u64,
    pub started: Instant,
    pub deadline: Instant,
    /// When the command was first seen ended at a prompt begun without its drawn mark (see
    /// `command_check`).
    pub unmarked_prompt: Option<Instant>,
    /// The shell took the line as the start of a longer command and it was abandoned with
    /// Ctrl-C (see `command_check`): the caller is told once the shell's prompt is back.
    pub abandoned: bool,
    /// What the line moves the reader past unread, taken as it is typed (see
    /// [`CommandResult::unread_before`]).
    pub unread_before: UnreadBefore,
    pub reply: Reply<Result<CommandResult>>,
}

/// Matches a transcript line, whole, for a match that holds text the caller had not read when
/// the wait started (any match, when the line was rewritten since). A line that ends in blanks
/// (the cursor's, padded to the cursor) is also matched without them, as it will read once
/// settled: a progress line that pads itself with blanks to erase a longer frame (wget's,
/// rsync's, tqdm's) ends at its text for a regex's `$`, while a prompt's blank still counts.
/// An `ended` line that is blank (a blank line printed, empty once settled: the transcript
/// keeps no trailing blanks) and was never read is new too, for a regex that matches the
/// empty line (`^$`); the line at the cursor, still being written, is not.
fn match_unread(
    until: &Until,
    number: u64,
    line: &str,
    read: &mut ReadMark,
    trail: &mut Option<EchoTrail>,
    ended: bool,
) -> Result<Option<crate::wait::Match>, crate::wait::search::Undecided> {
    if ended
        && let Some(blank) = until.match_blank_line(number, line)
        && read.never_read(number)
    {
        return Ok(Some(blank));
    }
    let part = read.read_part(number, line, trail);
    if let Some(found) = until.match_line(number, line, part)? {
        return Ok(Some(found));
    }
    let trimmed = line.trim_end_matches(' ');
    // Read to its text's end, the trimmed line holds nothing new either.
    match trimmed.len() < line.len() && part < trimmed.len() {
        true => until.match_line(number, trimmed, part),
        false => Ok(None),
    }
}

/// The screen the waiters of `slot` test: only the rows they read when each reads only rows
/// it names (a row condition, the cursor), with no typed line whose echo is masked (which
/// reads the rows of its line), else every row. A row condition after each keystroke built
/// the text of every row: 66 % of the reactor's instructions per keystroke.
fn plain_screen(slot: &Slot) -> crate::term::screen::Screen {
    let mut rows = Vec::new();
    let some_rows = slot
        .waiters
        .iter()
        .filter(|w| w.until.needs_screen())
        .all(|w| w.read.typed().is_none() && w.until.screen_rows(&mut rows));
    match some_rows {
        true => slot.terminal.screen_of_rows(|row| rows.iter().any(|&r| usize::from(r) == row)),
        false => slot.terminal.screen(),
    }
}

/// What a still screen keeps: its text (every row), size, cursor and which screen is shown,
/// and the transcript's length (lines scrolling by are no still screen, even when the
/// screen looks the same after each: `yes` fills it with the same row).
pub(super) fn screen_hash(terminal: &Terminal) -> u64 {
    let screen = terminal.screen();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (&screen.lines, screen.cols, screen.rows).hash(&mut hasher);
    (screen.cursor.row, screen.cursor.col, screen.cursor.visible, screen.alternate)
        .hash(&mut hasher);
    terminal.transcript().end().hash(&mut hasher);
    hasher.finish()
}

/// A look after output (the screen's hash for stable waits, then the waiters' conditions) that
/// took at least this long spaces out the next ones.
const COSTLY_LOOK: Duration = Duration::from_millis(1);

/// After a costly look, the next look after output comes this many times its cost later: the
/// looks of a session take at most a tenth of the reactor, however its output trickles in.
const LOOK_SPACING: u32 = 9;

impl Reactor {
    /// Looks at a session after its output: notes a screen change for stable waits, then
    /// answers the waiters whose condition holds. When the previous look was costly (waiters
    /// rebuilding the text of a 1000x500 screen of combining marks: 15 ms) and recent, this
    /// one is put off, on one timer, so that a program writing a byte at a time cannot cost
    /// work out of proportion to its bytes.
    pub(super) fn look_after_output(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.look_deferred.is_some() {
            return;
        }
        if let Some(at) = slot.next_look
            && at > Instant::now()
        {
            slot.look_deferred = Some(at);
            self.schedule(at, Timer::Look(id));
            return;
        }
        self.look_now(id);
    }

    /// Looks at a session now (a look put off is due, or a wait is about to time out), and
    /// spaces out the next look after output by this one's cost.
    pub(super) fn look_now(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let deferred = slot.look_deferred.take();
        if let Some(at) = deferred {
            self.unschedule(at, Timer::Look(id));
        }
        let started = Instant::now();
        self.track_screen(id);
        if let Some(slot) = self.sessions.get_mut(&id)
            && deferred.is_some()
            && slot.screen_tracked
        {
            // The output since the last look may have changed the screen and changed it back
            // (a spinner's frames): a look put off cannot tell, so it counts as a change.
            slot.screen_changed = slot.screen_changed.max(slot.last_output);
        }
        self.check_waiters(id);
        let cost = started.elapsed();
        if let Some(slot) = self.sessions.get_mut(&id) {
            slot.next_look = (cost >= COSTLY_LOOK).then(|| Instant::now() + cost * LOOK_SPACING);
        }
    }

    /// Notes a screen change for stable waits; called after output was processed.
    pub(super) fn track_screen(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.terminal.sync_deadline().is_some() {
            // A synchronized update is drawing a frame: it is compared once complete (a frame
            // redrawn the same, too long for one read, is no change), and a still screen is
            // not taken meanwhile (`check_waiters`).
            return;
        }
        slot.screen_tracked = slot.waiters.iter().any(|w| w.until.tracks_screen());
        if slot.screen_tracked {
            let hash = screen_hash(&slot.terminal);
            if hash != slot.screen_hash {
                slot.screen_hash = hash;
                slot.screen_changed = Instant::now();
            }
        }
    }

    /// Answers every waiter whose condition holds (or whose session ended), and schedules a
    /// re-check for the time-based ones.
    pub(super) fn check_waiters(&mut self, id: u64) {
        self.check_commands(id);
        let settle = self.config.input_settle;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.waiters.is_empty() {
            return;
        }
        let now = Instant::now();
        // The lines a read takes (the tail, or the primary screen's lines a full-screen
        // program hides): a wait finds what a read gives.
        let tail = if slot.waiters.iter().any(|w| w.until.needs_transcript() || w.read.seeks_echo())
        {
            slot.terminal.readable_tail()
        } else {
            None
        };
        // While a synchronized update draws a frame, screen conditions wait for the frame.
        // The styled screen (which holds the screen) is built only for a waiter that looks at
        // styles.
        let frame_done = slot.terminal.sync_deadline().is_none();
        let styled = (frame_done && slot.waiters.iter().any(|w| w.until.needs_styles()))
            .then(|| slot.terminal.styled_screen());
        let plain =
            (styled.is_none() && frame_done && slot.waiters.iter().any(|w| w.until.needs_screen()))
                .then(|| plain_screen(slot));
        let screen = styled.as_ref().map(|styled| &styled.screen).or(plain.as_ref());
        // Silence and stability count from the last input too: a key just sent may not have
        // been read (or answered) yet.
        // (A resize, like input, is for the program to answer: it may redraw.)
        let asked = slot.last_input.max(slot.last_resize);
        // Output the program wrote that is not read (or not fed) yet is output now: the
        // reactor was busy (a costly look: 0.2 s of a 1000x500 screen in a debug build) while
        // the program printed, and silence or stability counted from the last read would be
        // taken while the screen is about to change. (Asked only for a waiter that counts
        // them: a look for text, a row or the cursor reads neither, and after a keystroke's
        // write and at its echo the master was asked twice for nothing.)
        let unread_asked = slot.waiters.iter().any(|w| w.until.needs_quiet());
        let unread = unread_asked && output_unread(slot);
        let last_output = if unread { now } else { slot.last_output };
        let quiet_for = now.saturating_duration_since(last_output.max(asked));
        // Input-wait counts from the last change of the screen, not the last output: output
        // that changes nothing (a frame redrawn the same on a timer's tick) is no answer.
        // A look after output put off (`look_after_output`) has not yet compared the screen
        // with the last one: it may have changed with any output since.
        let changed = match slot.look_deferred {
            _ if unread => now,
            Some(_) => slot.screen_changed.max(slot.last_output),
            None => slot.screen_changed,
        };
        // (While a synchronized update draws a frame, the screen is not still: the frame may
        // differ.)
        let stable_for = match frame_done {
            true => now.saturating_duration_since(changed.max(asked)),
            false => Duration::ZERO,
        };
        // (Conditions that tell a busy program from an idle one look once it is quiet; an input
        // wait once the screen is still.)
        let probe = slot.waiters.iter().any(|w| w.until.needs_input_wait()) && stable_for >= settle
            || slot.waiters.iter().any(|w| w.until.needs_busy_check()) && quiet_for >= settle;
        // Whether the program waits for input, and which process reads.
        let mut redrawing = false;
        let mut idle_ticking = false;
        let mut sleeping = None;
        let mut following = false;
        // (Whether a row redrawn in place may yet be redrawn: see `Cadence::holds`.)
        let mut meter_runs = true;
        let (input_wait, reader) = if probe && slot.exit.is_none() {
            // (The master was asked for unread output as this look began when a waiter
            // reads quiet, as every one that probes does today: found none, it is not asked
            // again. Not asked, the probe asks.)
            let looked = Looked { group: None, unread: (unread_asked && !unread).then_some(false) };
            let (answer, group) = input_wait_of(slot, Sighting::Confirmed, stable_for, looked);
            let undecided = matches!(
                answer,
                procfs::InputWait::Outside { .. }
                    | procfs::InputWait::Sleeping { .. }
                    | procfs::InputWait::Unknown { .. }
            );
            if !undecided {
                slot.first_seen_undecided.forget();
            }
            match answer {
                procfs::InputWait::Waiting { reader } => {
                    // (The shell back reading ends frames: see `frames_group`.)
                    if let Some(group) = group {
                        super::frames_group::group_reads(slot, group, reader);
                    }
                    (Some(true), reader)
                }
                procfs::InputWait::NotWaiting { reason } => {
                    // (Only a wait for a far end's verdict counts: a program caught running a
                    // moment, `less +F` between two looks at its file, is no busy one, and
                    // each such sighting put the silence's end off by a second.)
                    if procfs::awaits_far_end(&reason) {
                        slot.busy_seen = Some(now);
                    }
                    (Some(false), None)
                }
                // A full-screen program that only redraws on a timer (`watch`, on either
                // screen) has shown what it shows: it settles though it prints on every tick.
                // Elsewhere a program that prints on a timer (a line a second) is busy.
                procfs::InputWait::Ticking { .. } if slot.draws_full_screens() => {
                    redrawing = true;
                    (None, None)
                }
                procfs::InputWait::Ticking { .. } => (Some(false), None),
                // Nothing happens until it is continued: it has settled, and waits for no key.
                procfs::InputWait::Stopped { .. } => {
                    meter_runs = false;
                    (None, None)
                }
                // Silence is the answer of a program waiting on the world outside (a server,
                // `tail -f`): like one /proc cannot tell, it settles once quiet. Only once
                // seen twice, 50-200 ms apart, with nothing else in between: a program
                // between two of its own waits (a thread handing over Python's lock beside
                // one blocked in `accept`, while the main thread sleeps on a clock) can be
                // caught in a moment that reads so, and a wait would settle before the
                // clock's end.
                // So does one in a sleep longer than any default wait (`sleep 300`).
                procfs::InputWait::Outside { .. }
                | procfs::InputWait::Sleeping { .. }
                | procfs::InputWait::Unknown { .. } => {
                    let activity = slot.activity();
                    let key = (activity, group.unwrap_or(0));
                    let expire = CONFIRM_UNDECIDED * 4;
                    match slot.first_seen_undecided.confirm_within(key, CONFIRM_UNDECIDED, expire) {
                        Confirmation::Confirmed => {
                            match &answer {
                                procfs::InputWait::Sleeping { timer, .. } => {
                                    sleeping = Some(*timer);
                                }
                                // A full-screen program that ticks with nothing to print
                                // (`less +F`) has shown what it shows, as one redrawing on a
                                // timer has: it settles now, not after the silence's fallback.
                                procfs::InputWait::Outside { idle_tick: true, .. }
                                    if slot.draws_full_screens() =>
                                {
                                    idle_ticking = true;
                                }
                                // A program following files (`tail -f`) has printed what
                                // they hold: it settles now, as a long sleep does.
                                procfs::InputWait::Outside { reason, idle_tick: false }
                                    if procfs::follows_files(reason) =>
                                {
                                    following = true;
                                }
                                _ => {}
                            }
                            (None, None)
                        }
                        Confirmation::New | Confirmation::Confirming => (Some(false), None),
                    }
                }
            }
        } else {
            (None, None)
        };
        let input_read_for = match slot.waiters.iter().any(|w| w.until.needs_input_read()) {
            true => input_wait::input_read_for(slot, now),
            false => None,
        };
        let at_prompt = slot.terminal.shell().at_prompt
            && slot.terminal.shell().prompt_at.is_some_and(|at| at >= slot.last_input);
        let line_input = input_wait == Some(true)
            && slot.waiters.iter().any(|w| w.until.needs_line_check())
            && asks_for_line(slot, at_prompt, reader);
        let view = StateView {
            line_input,
            quiet_for,
            idle_for: slot.busy_seen.map_or(Duration::MAX, |at| now.saturating_duration_since(at)),
            stable_for,
            at_prompt,
            input_wait,
            settle,
            redrawing,
            idle_ticking,
            sleeping,
            following,
            // Only a row redrawn in place (a meter) holds a wait: lines printed at a pace (a
            // build's steps, a server's retries backing off) settle once quiet, as before.
            paced: slot
                .cadence
                .pace_left(now.saturating_duration_since(slot.last_output), meter_runs)
                .filter(|_| slot.cadence.row_redrawn()),
            answered_since: true,
            input_read_for,
        };
        let ended = match (slot.exit, slot.closed) {
            (Some(status), _) => Some(Fired::Exited { status }),
            (None, true) => Some(Fired::Closed),
            (None, false) => None,
        };
        let activity = slot.last_output.max(slot.last_input);
        let transcript = slot.terminal.transcript();
        let end = transcript.end();
        let mut answered = Vec::new();
        let mut failed = Vec::new();
        let mut rechecks = Vec::new();
        let mut finished = Vec::new();
        let mut released = Vec::new();
        slot.waiters.retain_mut(|waiter| {
            let mut fired = None;
            // A regex that could not decide on a line or row: the wait fails, unless another
            // line or row holds a match.
            let mut undecided = None;
            let searches = waiter.until.needs_transcript();
            if searches || waiter.read.seeks_echo() {
                let first = transcript.first();
                let read = &mut waiter.read;
                read.dropped(waiter.searched, first);
                let until = &waiter.until;
                // (A wait on the screen or the state alone searches no line, but follows a
                // submitted line's echo through them all the same until it is found: the
                // screen hides it where it landed.)
                let mut look = |n: u64, line: &str, trail: &mut Option<EchoTrail>, ended| match searches {
                    true => match_unread(until, n, line, read, trail, ended).unwrap_or_else(|u| {
                        undecided.get_or_insert(u);
                        None
                    }),
                    false => {
                        if read.seeks_echo() {
                            read.read_part(n, line, trail);
                        }
                        None
                    }
                };
                // (Settled lines are searched once: the echo's trail through them is kept.)
                let mut trail = waiter.echo_trail;
                fired = (waiter.searched.max(first)..end)
                    .find_map(|n| look(n, transcript.line(n).unwrap_or(""), &mut trail, true));
                waiter.searched = end;
                waiter.echo_trail = trail;
                if fired.is_none()
                    && let Some(tail) = &tail
                {
                    // Every line of the tail but the cursor's has ended.
                    let last = tail.len().saturating_sub(1);
                    fired = tail.iter().zip(end..).enumerate().find_map(|(i, (line, n))| {
                        look(n, line, &mut trail, i < last)
                    });
                }
            }
            if fired.is_none()
                && let Some(screen) = screen.filter(|_| waiter.until.needs_screen())
            {
                // A caller's own test may panic, or call into the engine (refused here, and
                // the test only says false): that wait fails, nothing else does.
                super::take_refused_call();
                // After a submitted line, its echo is no answer.
                let unechoed = waiter.read.typed().and_then(|typed| {
                    let plain = styled.is_none().then_some(screen)?;
                    slot.terminal.screen_without_echo(plain, typed)
                });
                let screen = unechoed.as_ref().unwrap_or(screen);
                let tested = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    waiter.until.match_screen(screen, styled.as_ref())
                }));
                // The description is the caller's: repeated by its start, as any argument.
                let condition = || crate::error::quoted(&waiter.until.to_string());
                let error = match tested {
                    Ok(_) if super::take_refused_call() => Some(Error::InvalidInput(format!(
                        "the wait's test ({}) called into the engine from the engine's own thread, where it would wait for itself: work out what the test needs before the wait, and act after it returns",
                        condition()
                    ))),
                    Ok(Ok(found)) => {
                        fired = found;
                        None
                    }
                    Ok(Err(u)) => {
                        undecided.get_or_insert(u);
                        None
                    }
                    Err(payload) => Some(Error::WaitConditionPanicked {
                        condition: condition(),
                        message: {
                            let mut message = super::panic_message(&*payload);
                            crate::error::bound_message(&mut message);
                            message
                        },
                    }),
                };
                if let Some(error) = error {
                    failed.push((waiter.reply.take(), error));
                    finished.push((waiter.id, waiter.deadline, waiter.recheck));
                    return false;
                }
            }
            let answered_since = waiter.asked_from.is_none_or(|from| activity >= from);
            let view = StateView { answered_since, ..view };
            if fired.is_none() && ended.is_none() {
                fired = waiter.until.match_state(&view);
            }
            if fired.is_none()
                && let Some(undecided) = undecided
            {
                let condition = crate::error::quoted(&waiter.until.to_string());
                let error = Error::WaitRegexUndecided { condition, bytes: undecided.bytes };
                failed.push((waiter.reply.take(), error));
                finished.push((waiter.id, waiter.deadline, waiter.recheck));
                return false;
            }
            let fired = match (fired, &ended) {
                (Some(m), _) => Fired::Matched(m),
                (None, Some(end)) => end.clone(),
                (None, None) => {
                    if let Some(after) = waiter.until.recheck_in(&view) {
                        let at = super::after(now, after.max(Duration::from_millis(1)));
                        if waiter.recheck.is_none_or(|r| r > at || r <= now) {
                            rechecks.push((at, waiter.recheck, waiter.id));
                            waiter.recheck = Some(at);
                        }
                    }
                    return true;
                }
            };
            match waiter.then.take() {
                Some(held) => released.push((waiter.id, held, fired)),
                None => {
                    let exit_holds = waiter.until.includes_exit();
                    let typed = waiter.read.typed().cloned();
                    let ended = (fired, waiter.started.elapsed(), exit_holds, typed);
                    answered.push((waiter.reply.take(), ended))
                }
            }
            finished.push((waiter.id, waiter.deadline, waiter.recheck));
            false
        });
        for (at, previous, waiter) in rechecks {
            if let Some(previous) = previous {
                self.unschedule(previous, Timer::Recheck { session: id, waiter });
            }
            self.schedule(at, Timer::Recheck { session: id, waiter });
        }
        for (waiter, deadline, recheck) in finished {
            self.unschedule(deadline, Timer::Wait { session: id, waiter });
            if let Some(at) = recheck {
                self.unschedule(at, Timer::Recheck { session: id, waiter });
            }
        }
        for (reply, error) in failed {
            reply.send(Err(error));
        }
        // Typing held back until the shell read is typed now (its wait checks the waiters
        // again).
        for (waiter, held, fired) in released {
            self.release_typing(id, waiter, *held, &fired);
        }
        if answered.is_empty() {
            return;
        }
        let status = self.status_of(id);
        for (reply, (fired, elapsed, exit_holds, typed_line)) in answered {
            self.mark(id, &fired);
            let status = status.clone();
            let screen = None;
            reply.send(Ok(WaitOutcome { fired, elapsed, screen, status, exit_holds, typed_line }));
        }
    }

    /// Marks where a wait ended in the session's recording, if it is recorded.
    fn mark(&mut self, id: u64, fired: &Fired) {
        let Some(recorder) = self.sessions.get_mut(&id).and_then(|s| s.recorder.as_mut()) else {
            return;
        };
        let label = match fired {
            Fired::Matched(found) => format!("wait: {}", found.condition),
            Fired::Exited { status } => format!("wait: exited ({status})"),
            Fired::Closed => "wait: closed".to_owned(),
            Fired::Timeout => "wait: timed out".to_owned(),
            Fired::Cancelled => return,
        };
        recorder.marker(&label);
    }

    pub(super) fn wait_timed_out(&mut self, id: u64, waiter: u64) {
        self.look_before_timeout(id);
        self.end_wait(id, waiter, Fired::Timeout);
    }

    /// Before a wait or a `run_command` is answered as timed out: output the program wrote
    /// before the deadline may not be read yet (the reactor was busy: a costly look at a
    /// 1000x500 screen outlasted the timeout, and timers fire before the next poll's reads),
    /// so a turn of it is read; and output whose look was put off (`look_after_output`) may
    /// have met the condition, or brought the command's prompt back, so that look is made
    /// now.
    fn look_before_timeout(&mut self, id: u64) {
        self.read_unread(id);
        if self.sessions.get(&id).is_some_and(|slot| slot.look_deferred.is_some()) {
            self.look_now(id);
        }
    }

    /// Answers one waiter with `fired`, the screen and the status.
    pub(super) fn end_wait(&mut self, id: u64, waiter: u64, fired: Fired) {
        let Some(slot) = self.sessions.get_mut(&id) else { return };
        let Some(index) = slot.waiters.iter().position(|w| w.id == waiter) else { return };
        let mut waiter = slot.waiters.swap_remove(index);
        self.unschedule(waiter.deadline, Timer::Wait { session: id, waiter: waiter.id });
        if let Some(at) = waiter.recheck {
            self.unschedule(at, Timer::Recheck { session: id, waiter: waiter.id });
        }
        if let Some(held) = waiter.then.take() {
            self.release_typing(id, waiter.id, *held, &fired);
            return;
        }
        let screen = self.sessions.get(&id).map(|slot| slot.terminal.screen());
        let status = self.status_of(id);
        self.mark(id, &fired);
        waiter.reply.send(Ok(WaitOutcome {
            fired,
            elapsed: waiter.started.elapsed(),
            screen,
            status,
            exit_holds: waiter.until.includes_exit(),
            typed_line: waiter.read.typed().cloned(),
        }));
    }

    // ----- run_command ----------------------------------------------------------------

    /// Answers the `run_command` callers whose command ended with a new prompt.
    pub(super) fn check_commands(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.commands.is_empty() {
            return;
        }
        let shell = slot.terminal.shell();
        let ended = slot.exit.is_some() || slot.closed;
        let done: Vec<CommandWaiter> = {
            let (done, waiting) = std::mem::take(&mut slot.commands).into_iter().partition(|c| {
                ended || (shell.prompts > c.prompts && (c.abandoned || shell.commands > c.commands))
            });
            slot.commands = waiting;
            done
        };
        // Ended, and a prompt begun without its drawn mark: if the mark does not follow
        // within a look's interval, `command_check` takes this prompt (PS1 lost the mark).
        let mut looks = Vec::new();
        let now = Instant::now();
        for command in slot.commands.iter_mut().filter(|c| !c.abandoned) {
            let unmarked =
                shell.commands > command.commands && shell.prompt_starts > command.prompt_starts;
            if unmarked && command.unmarked_prompt.is_none() {
                command.unmarked_prompt = Some(now);
                looks.push(command.id);
            }
        }
        // On `unmarked_look`'s grid, as every later look: one timer, however many ask.
        for waiter in looks {
            self.schedule(now + COMMAND_START_CHECK, Timer::CommandCheck { session: id, waiter });
        }
        for command in done {
            self.unschedule(command.deadline, Timer::Command { session: id, waiter: command.id });
            self.send_command_result(id, command, Answer::Ended);
        }
    }

    /// Answers a `run_command` caller with its command's output (so far, unless it ended)
    /// and exit code. The caller's read cursor moves past the output it took: one that gave up
    /// (a cancelled call, a dropped future) finds the output in its next read.
    fn send_command_result(&mut self, id: u64, command: CommandWaiter, answer: Answer) {
        if command.abandoned {
            command.reply.send(Err(Error::CommandLineIncomplete(SessionId(id))));
            return;
        }
        let status = self.status_of(id);
        let slot = self.sessions.get_mut(&id).expect("slot exists");
        let (output, output_truncated, exit_code) =
            slot.terminal.command_output(command.commands, so_far(answer));
        let result = CommandResult {
            output,
            exit_code,
            duration: command.started.elapsed(),
            output_truncated,
            timed_out: answer == Answer::TimedOut,
            waiting_for_input: answer == Answer::WaitingForInput,
            prompt_waiting_for_input: answer == Answer::EndedAtQuestion,
            unread_before: command.unread_before.lines,
            unread_before_dropped: command.unread_before.dropped,
            previous_exit_code: command.unread_before.exit_code,
            status,
        };
        if command.reply.send(Ok(result)) {
            slot.terminal.skip_to_end(command.reader);
        }
    }

    /// Checks a `run_command` while it runs. Its line has had time to start its command: the
    /// shell marks a start (`C`, from `PS0` or `preexec`) before it runs anything. Without
    /// that mark, a shell that is back to reading the terminal took the line as the start of
    /// a longer command (an open quote, a here-document, a trailing backslash) and waits for
    /// the rest: the line is abandoned with Ctrl-C and the caller told why, rather than left
    /// to time out with the next command typed into the same unfinished line. The caller is
    /// answered once the shell is back at its prompt (at most a few seconds later, and within
    /// the command's timeout), so that it can run its next command at once.
    ///
    /// Once the command has ended, a prompt begun (`A`) that has not drawn its mark (`B`)
    /// within a look's interval, with the shell's line editor then reading the terminal
    /// (canonical input, echo and literal-next off), is taken as the prompt: `PS1` was
    /// replaced and lost the mark, and the caller gets the command's result rather than a
    /// timeout. A reader of whole lines (canonical input on: `read -t 2` in
    /// `PROMPT_COMMAND`) or of single keys (`read -n1`: echo or literal-next left on), or
    /// another process of the shell's
    /// group is a question the prompt asks (a `PS1` running `git fetch`, at `Username for
    /// …:`): the caller gets the command's result (it ended), told that its prompt waits for
    /// input (`prompt_waiting_for_input`). A shell nobody reads for is
    /// still drawing its prompt (slowly: a `PS1` that runs commands, a loaded machine) and is
    /// looked at again until the command's deadline (see [`UnmarkedReader`]).
    pub(super) fn command_check(&mut self, id: u64, waiter: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else { return };
        let Some(command) = slot.commands.iter_mut().find(|c| c.id == waiter) else { return };
        let shell = slot.terminal.shell();
        if shell.prompts > command.prompts || slot.exit.is_some() || command.abandoned {
            return;
        }
        let again = |reactor: &mut Self, deadline: Instant| {
            let at = Instant::now() + COMMAND_START_CHECK;
            if at < deadline {
                reactor.schedule(at, Timer::CommandCheck { session: id, waiter });
            }
        };
        let started = shell.output_start.is_some_and(|(_, count)| count == command.commands);
        if started {
            // `check_commands` noted when the command ended at an unmarked prompt, and asked
            // for a look an interval later: still no drawn prompt. It is the prompt if the
            // shell's line editor reads the terminal; a question if a line is read; a shell at
            // work on it (a `PS1` or `PROMPT_COMMAND` that runs commands, a loaded machine) is
            // looked at again.
            let unmarked_since = command.unmarked_prompt.filter(|_| {
                shell.commands > command.commands && shell.prompt_starts > command.prompt_starts
            });
            let running = shell.commands == command.commands;
            let deadline = command.deadline;
            match unmarked_since {
                Some(at) if at.elapsed() >= COMMAND_START_CHECK => match unmarked_reader(slot) {
                    UnmarkedReader::Shell => self.answer_command(id, waiter, Answer::Ended),
                    UnmarkedReader::Other { .. } => {
                        self.answer_command(id, waiter, Answer::EndedAtQuestion)
                    }
                    UnmarkedReader::Drawing => {
                        let next = unmarked_look(at, Instant::now());
                        if next < deadline {
                            self.schedule(next, Timer::CommandCheck { session: id, waiter });
                        }
                    }
                },
                // Looked at before a step has passed (a timer set while the command ran fires
                // off the grid; timers never fire early): look again, on the grid.
                Some(at) => self.schedule(
                    unmarked_look(at, Instant::now()),
                    Timer::CommandCheck { session: id, waiter },
                ),
                None if running => self.check_command_input(id, waiter),
                None => {}
            }
            return;
        }
        let slot = &self.sessions[&id];
        // Not started yet: the shell has COMMAND_START_CHECK to mark the start before it is
        // taken to wait for the rest of the line.
        if let Some(command) = slot.commands.iter().find(|c| c.id == waiter)
            && command.started.elapsed() < COMMAND_START_CHECK
        {
            let at = command.started + COMMAND_START_CHECK;
            self.schedule(at, Timer::CommandCheck { session: id, waiter });
            return;
        }
        if !matches!(probe(slot, Sighting::Confirmed), procfs::InputWait::Waiting { .. }) {
            // Still reading the line, or busy: look again, for a few seconds at most (then
            // the command's timeout answers).
            let command = slot.commands.iter().find(|c| c.id == waiter);
            if let Some(command) = command.filter(|c| c.started.elapsed() < START_LOOKS) {
                let deadline = command.deadline;
                again(self, deadline);
            }
            return;
        }
        let Some(slot) = self.sessions.get_mut(&id) else { return };
        let Some(command) = slot.commands.iter_mut().find(|c| c.id == waiter) else { return };
        // Answered by `check_commands` when the prompt Ctrl-C brings is drawn: answered now,
        // the caller's next command would find the shell not yet back at its prompt. A prompt
        // that does not come back within a few seconds is not waited for longer.
        command.abandoned = true;
        let give_up = super::after(Instant::now(), START_LOOKS).min(command.deadline);
        let deadline = std::mem::replace(&mut command.deadline, give_up);
        self.unschedule(deadline, Timer::Command { session: id, waiter });
        self.schedule(give_up, Timer::Command { session: id, waiter });
        let _ = self.send(SessionId(id), b"\x03");
    }

    /// Answers a `run_command` caller at its deadline: a command that ended (its exit code
    /// marked) at a prompt still being drawn (a `PS1` that runs a slow command, a background
    /// job printing while the prompt is looked at) has ended, not timed out; any other is
    /// still running.
    pub(super) fn command_timed_out(&mut self, id: u64, waiter: u64) {
        // Its prompt may be back already, unread or not looked at yet (`check_commands`,
        // which the look runs, then answers it as ended).
        self.look_before_timeout(id);
        let ended = self.sessions.get(&id).is_some_and(|slot| {
            let commands = slot.terminal.shell().commands;
            slot.commands.iter().any(|c| c.id == waiter && !c.abandoned && commands > c.commands)
        });
        let answer = if ended { Answer::Ended } else { Answer::TimedOut };
        self.answer_command(id, waiter, answer);
    }

    /// A running command quiet for `input_settle` that waits for input at the terminal (a
    /// question, a password prompt, an editor; a shell builtin's `read` too) ends its caller's
    /// wait now rather than at the timeout, the command going on; otherwise it is looked at
    /// again, every [`COMMAND_INPUT_CHECK`] at first and less often the longer the terminal
    /// stays quiet (at most a second apart), until its deadline. A probe is made only when
    /// the terminal is quiet, so a command busy printing costs none.
    fn check_command_input(&mut self, id: u64, waiter: u64) {
        let settle = self.config.input_settle;
        let Some(slot) = self.sessions.get(&id) else { return };
        let Some(command) = slot.commands.iter().find(|c| c.id == waiter) else { return };
        let deadline = command.deadline;
        let quiet = quiet_of(slot);
        let waiting = quiet >= settle
            && matches!(probe(slot, Sighting::Confirmed), procfs::InputWait::Waiting { .. });
        if waiting {
            self.answer_command(id, waiter, Answer::WaitingForInput);
            return;
        }
        let every = COMMAND_INPUT_CHECK.max((quiet / 4).min(Duration::from_secs(1)));
        let at = Instant::now() + every.max(settle.saturating_sub(quiet));
        if at < deadline {
            self.schedule(at, Timer::CommandCheck { session: id, waiter });
        }
    }

    /// Answers one `run_command` caller with what its command printed so far (and its exit
    /// code, when it ended).
    fn answer_command(&mut self, id: u64, waiter: u64, answer: Answer) {
        let Some(slot) = self.sessions.get_mut(&id) else { return };
        let Some(index) = slot.commands.iter().position(|c| c.id == waiter) else { return };
        let command = slot.commands.swap_remove(index);
        self.unschedule(command.deadline, Timer::Command { session: id, waiter });
        self.send_command_result(id, command, answer);
    }

    // ----- status -----------------------------------------------------------------------

    pub(super) fn status_of(&self, id: u64) -> Status {
        // (One examination: each `/proc` file read once, the probe's included.)
        procfs::examine(|| self.examined_status_of(id))
    }

    /// [`Reactor::status_of`], within its examination of `/proc`.
    fn examined_status_of(&self, id: u64) -> Status {
        let Some(slot) = self.sessions.get(&id) else {
            return Status::default();
        };
        let mut status = Status {
            activity: Activity::Running,
            foreground: None,
            since_output: Duration::ZERO,
            last_exit_code: slot.terminal.shell().last_exit,
            shell_integration: slot.terminal.shell().integrated,
            input_wait_unknown: None,
            input_kind: None,
            ended_by_close: false,
            reader: None,
        };
        // What the status is without the input-wait probe, where it is known so; the
        // foreground group, read where the session runs.
        let (known, group) = match slot.state() {
            SessionState::Closed(how) => {
                status.ended_by_close = slot.ended_by_close;
                (Some(Activity::Closed(how)), None)
            }
            SessionState::Exited(how) => (Some(Activity::Exited(how)), None),
            SessionState::Running => {
                let group =
                    slot.master.as_ref().and_then(|m| crate::os::pty::foreground_group(m.as_fd()));
                status.foreground = group.map(|pid| Process {
                    pid,
                    name: procfs::group_name(pid).unwrap_or_else(|| "?".to_owned()),
                    within: None,
                });
                let at_prompt = slot.terminal.shell().at_prompt
                    && slot.terminal.shell().prompt_at.is_some_and(|at| at >= slot.last_input);
                let known = if at_prompt {
                    Some(Activity::AtPrompt)
                } else if changed_or_output(slot)
                    .max(slot.last_input)
                    .max(slot.last_resize)
                    .elapsed()
                    < self.config.input_settle
                {
                    Some(Activity::Running)
                } else {
                    None
                };
                (known, Some(group))
            }
        };
        // Only where the status is not known otherwise is the input-wait probe needed (it
        // reads /proc for every member of the foreground group): a wait answered on fresh
        // output, or at the prompt, skips it. A status only reports: a first sighting will do
        // (it is not cached, so a wait still confirms it).
        let pending = slot.terminal.has_pending();
        let quiet = slot.last_output.max(slot.last_input).elapsed();
        let wait = match (known, group) {
            (None, Some(group)) => {
                // (Output pending in the terminal answers before the probe; the master is
                // asked after it, below.)
                let looked = Looked { group: Some(group), unread: Some(pending) };
                Some(input_wait_of(slot, Sighting::First, quiet, looked).0)
            }
            _ => None,
        };
        // Output written but not read yet is output now, as for waits: output pending in the
        // terminal settles it, else the master is asked, last, after the probe where there
        // is one. Output a program writes just before it blocks reading is then more likely
        // seen than when the master was asked first, not always: the kernel hands a write
        // over to the master asynchronously, so the window narrows, it does not close. A
        // program found waiting with output unread is not waiting (a status, taking a first
        // sighting, does not confirm it).
        let unread = pending || master_unread(slot);
        status.since_output = match unread {
            true => Duration::ZERO,
            false => slot.last_output.elapsed(),
        };
        let Some(wait) = wait else {
            status.activity = known.unwrap_or(Activity::Running);
            name_shell_command(slot, &mut status);
            return status;
        };
        status.activity = {
            let wait = match wait {
                procfs::InputWait::Waiting { .. } if unread => procfs::InputWait::NotWaiting {
                    reason: "output not yet read from the terminal".into(),
                },
                wait => wait,
            };
            let since_output = status.since_output;
            match wait {
                procfs::InputWait::Waiting { reader } => {
                    status.reader = reader;
                    // Name the program that reads the terminal (`less` behind `git`, or
                    // behind the shell running `seq | less`, and behind `man`, which runs it
                    // by its role's name, `pager`), not the group's leader; and the
                    // multiplexer it is in (`vim` in tmux's one pane, which its server reads
                    // for), whose client the session runs.
                    if let Some(reader) = reader.filter(|&r| Some(Some(r)) != group) {
                        let within = procfs::relay_name(reader, slot.pid);
                        // (The relay itself, `tmux` for its server, when it is the reader.)
                        let relay = || procfs::relay_own_name(reader, slot.pid);
                        let name = within.is_none().then(relay).flatten();
                        status.foreground = name
                            .or_else(|| procfs::program_name(reader))
                            .map(|name| Process { pid: reader, name, within })
                            .or(status.foreground);
                    }
                    status.input_kind =
                        slot.reader_line_modes(reader).map(crate::LineModes::input_kind);
                    Activity::WaitingForInput
                }
                procfs::InputWait::Unknown { reason } => {
                    status.input_wait_unknown = Some(reason);
                    quiet_or_running(slot, since_output, self.config.quiet, true)
                }
                procfs::InputWait::Stopped { .. } => Activity::Stopped,
                procfs::InputWait::Sleeping { .. } => {
                    quiet_or_running(slot, since_output, self.config.quiet, false)
                }
                procfs::InputWait::NotWaiting { .. }
                | procfs::InputWait::Outside { .. }
                | procfs::InputWait::Ticking { .. } => {
                    quiet_or_running(slot, since_output, self.config.quiet, true)
                }
            }
        };
        name_shell_command(slot, &mut status);
        status
    }
}

/// A group the session's shell leads, running, while the shell reads the output of what it
/// runs in it, is busy with that (a command substitution's program: `x=$(fzf)` read `bash
/// running` while fzf loaded its list): `status` names that program (see
/// [`procfs::shell_command`]; a shell waiting for its command to end is named itself). Only a shell's: the session's
/// program that is none is named as it is while a child of its group works for it (fzf
/// loading its list through `sh -c find`, vim's `:!cmd`).
fn name_shell_command(slot: &Slot, status: &mut Status) {
    if matches!(status.activity, Activity::Running | Activity::Quiet)
        && let Some(shell) = status.foreground.as_ref().filter(|f| f.pid == slot.pid)
        && procfs::SHELLS.contains(&shell.name.as_str())
        && let Some((pid, name)) = procfs::shell_command(shell.pid)
    {
        status.foreground = Some(Process { pid, name, within: None });
    }
}

/// How long after a first sighting of a program waiting on the world outside (or on what
/// /proc cannot tell) a second one, with nothing else seen in between, lets a wait for silence
/// settle: two of the waits' polls ([`crate::wait`] looks every 25 ms).
const CONFIRM_UNDECIDED: Duration = Duration::from_millis(50);

/// Whether a `run_command` answered so has only the output so far (no end, no exit code).
fn so_far(answer: Answer) -> bool {
    matches!(answer, Answer::TimedOut | Answer::WaitingForInput)
}

/// How long the terminal of `slot` has been quiet: no output, no input.
fn quiet_of(slot: &Slot) -> Duration {
    slot.last_output.max(slot.last_input).elapsed()
}

/// The input-wait probe's answer for a `run_command` look (see `command_check`).
fn probe(slot: &Slot, sighting: Sighting) -> procfs::InputWait {
    input_wait_of(slot, sighting, quiet_of(slot), Looked::default()).0
}

/// When to look next, at `now`, at a prompt begun without its mark, first seen at `since`: on
/// a grid of [`COMMAND_START_CHECK`] from then, so that every timer that asks (the look
/// `check_commands` sets, one set while the command ran that fires meanwhile) is the same one,
/// and one chain of looks runs, not several side by side.
fn unmarked_look(since: Instant, now: Instant) -> Instant {
    let step = COMMAND_START_CHECK.as_nanos().max(1);
    let elapsed = now.saturating_duration_since(since).as_nanos();
    let looks = u32::try_from(elapsed / step + 1).unwrap_or(u32::MAX);
    since + COMMAND_START_CHECK.saturating_mul(looks)
}

/// Who reads the terminal at a prompt begun (OSC 133 `A`) without its drawn mark (`B`).
///
/// Told by the line discipline, not by what else the reader waits on: a line editor (bash's
/// readline, zsh's zle) reads with canonical input, echo and the literal-next character off
/// (`os::pty::line_editor_reads`), beside whatever it watches (zle's `zle -F` descriptors, a
/// `sched` timer); a question reads whole lines, with canonical input on (`read`, `read -t`,
/// `head`, git at `Username for …:`), or single keys with it off but echo or the literal-next
/// character left on (`read -n1`, `read -s -n1`, zsh's `read -k`/`read -q`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UnmarkedReader {
    /// The shell itself, reading as its line editor does (canonical input, echo and
    /// literal-next off): its line editor is at the
    /// prompt, which lost its mark (`PS1` was replaced). So is a prompt the probe cannot tell
    /// about (no `/proc`, a shell run as another user): it is taken as drawn, as before the
    /// probe was asked.
    Shell,
    /// A reader of whole lines (canonical input on) or of single keys (the shell's `read
    /// -n1`), or another process of the shell's group: a question the prompt asks before it
    /// is drawn (a `PS1` or `PROMPT_COMMAND` running `git fetch`, at `Username for …:`; a
    /// `read -t 3` or `read -n1 -p 'Continue? '` there, the shell's own).
    Other {
        /// The reader's process id.
        pid: i32,
        /// Its name, as `/proc` gives it.
        name: String,
    },
    /// Nobody reads: the prompt is still being drawn.
    Drawing,
}

/// Who reads the terminal of `slot`, at a prompt begun without its mark. A first sighting is
/// taken: the command's output is delimited by its end (`D`) already, and the only question
/// is whether the shell reached its read; a mark written just before it (not yet on the
/// master) comes right after, and the caller's answer (ended) is the same.
pub(super) fn unmarked_reader(slot: &Slot) -> UnmarkedReader {
    let editor = slot
        .master
        .as_ref()
        .is_some_and(|master| crate::os::pty::line_editor_reads(master.as_fd()));
    match probe(slot, Sighting::First) {
        procfs::InputWait::Waiting { reader: Some(pid) } if pid == slot.pid && editor => {
            UnmarkedReader::Shell
        }
        procfs::InputWait::Waiting { reader: Some(pid) } => {
            let name = procfs::program_name(pid).unwrap_or_else(|| "?".to_owned());
            UnmarkedReader::Other { pid, name }
        }
        procfs::InputWait::Unknown { .. } => UnmarkedReader::Shell,
        _ => UnmarkedReader::Drawing,
    }
}

/// When the screen last changed, as a wait counts it (output that changes nothing, such as a
/// line editor's mode switches, does not count), where that is known; else the last output.
/// While a look after output is put off, the screen may have changed with any output since
/// the last look.
fn changed_or_output(slot: &Slot) -> Instant {
    if slot.terminal.sync_deadline().is_some() {
        // A synchronized update is drawing a frame, compared only once complete.
        return slot.last_output;
    }
    match (slot.screen_tracked, slot.look_deferred) {
        (true, None) => slot.screen_changed,
        (true, Some(_)) => slot.screen_changed.max(slot.last_output),
        (false, _) => slot.last_output,
    }
}

/// Whether a program not waiting for input is quiet, silent for `quiet` (`since_output`), or
/// running: also while it prints at a pace and is between two prints (`slot.cadence`, a
/// progress bar redrawn once a second), or has left a row redrawn in place that it may yet
/// redraw (`meter_runs`: see `Cadence::holds`).
fn quiet_or_running(
    slot: &Slot,
    since_output: Duration,
    quiet: Duration,
    meter_runs: bool,
) -> Activity {
    match since_output >= quiet && !slot.cadence.holds(since_output, meter_runs) {
        true => Activity::Quiet,
        false => Activity::Running,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every timer that asks for the next look at an unmarked prompt gets the same instant,
    /// whenever it fires: the next step of the grid from the first sighting. (Told the time,
    /// not reading the clock: a stall of the test between two readings moved it a step.)
    #[test]
    fn looks_at_an_unmarked_prompt_keep_to_one_grid() {
        let since = Instant::now();
        let step = COMMAND_START_CHECK;
        assert_eq!(unmarked_look(since, since), since + step);
        assert_eq!(unmarked_look(since, since + step / 2), since + step);
        assert_eq!(unmarked_look(since, since + step), since + step * 2);
        assert_eq!(unmarked_look(since, since + step + step / 10), since + step * 2);
        assert_eq!(unmarked_look(since, since + step * 3 + step / 2), since + step * 4);
        // A timer that fires early (none does) looks at the first step.
        assert_eq!(unmarked_look(since + step, since), since + step * 2);
    }
}
