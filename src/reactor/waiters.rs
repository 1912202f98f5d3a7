//! Callers blocked in `wait` or `run_command`, answered when their condition holds; and the
//! session status both report.

use std::hash::{Hash, Hasher};

use super::*;
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
    pub reply: Reply<Result<CommandResult>>,
}

/// Matches a transcript line, whole, for a match that holds text the caller had not read when
/// the wait started (any match, when the line was rewritten since). A line that ends in blanks
/// (the cursor's, padded to the cursor) is also matched without them, as it will read once
/// settled: a progress line that pads itself with blanks to erase a longer frame (wget's,
/// rsync's, tqdm's) ends at its text for a regex's `$`, while a prompt's blank still counts.
fn match_unread(
    until: &Until,
    number: u64,
    line: &str,
    read: &ReadMark,
) -> Option<crate::wait::Match> {
    let part = read.read_part(number, line);
    until.match_line(number, line, part).or_else(|| {
        let trimmed = line.trim_end_matches(' ');
        (trimmed.len() < line.len()).then(|| until.match_line(number, trimmed, part)).flatten()
    })
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
        // The lines a read takes (the tail, or what a full-screen program's command printed
        // between two of its screens): a wait finds what a read gives.
        let tail = if slot.waiters.iter().any(|w| w.until.needs_transcript()) {
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
                .then(|| slot.terminal.screen());
        let screen = styled.as_ref().map(|styled| &styled.screen).or(plain.as_ref());
        // Silence and stability count from the last input too: a key just sent may not have
        // been read (or answered) yet.
        // (A resize, like input, is for the program to answer: it may redraw.)
        let asked = slot.last_input.max(slot.last_resize);
        // Output the program wrote that is not read (or not fed) yet is output now: the
        // reactor was busy (a costly look: 0.2 s of a 1000x500 screen in a debug build) while
        // the program printed, and silence or stability counted from the last read would be
        // taken while the screen is about to change.
        let unread = output_unread(slot);
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
        let (input_wait, reader) = if probe && slot.exit.is_none() {
            let (answer, group) = input_wait_of(slot, Sighting::Confirmed, stable_for);
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
                procfs::InputWait::Waiting { reader } => (Some(true), reader),
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
                procfs::InputWait::Stopped { .. } => (None, None),
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
            answered_since: true,
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
            if waiter.until.needs_transcript() {
                let from = waiter.searched.max(transcript.first());
                let read = &waiter.read;
                fired = (from..end).find_map(|n| {
                    match_unread(&waiter.until, n, transcript.line(n).unwrap_or(""), read)
                });
                waiter.searched = end;
                if fired.is_none()
                    && let Some(tail) = &tail
                {
                    fired = tail.iter().enumerate().find_map(|(i, line)| {
                        match_unread(&waiter.until, end + i as u64, line, read)
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
                    Ok(found) => {
                        fired = found;
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
                    answered.push((waiter.reply.take(), fired, waiter.started.elapsed(), exit_holds))
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
        for (reply, fired, elapsed, exit_holds) in answered {
            self.mark(id, &fired);
            let status = status.clone();
            reply.send(Ok(WaitOutcome { fired, elapsed, screen: None, status, exit_holds }));
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
        for command in slot.commands.iter_mut().filter(|c| !c.abandoned) {
            let unmarked =
                shell.commands > command.commands && shell.prompt_starts > command.prompt_starts;
            if unmarked && command.unmarked_prompt.is_none() {
                command.unmarked_prompt = Some(Instant::now());
                looks.push(command.id);
            }
        }
        for waiter in looks {
            self.schedule(
                Instant::now() + COMMAND_START_CHECK,
                Timer::CommandCheck { session: id, waiter },
            );
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
            slot.terminal.command_output(command.commands, answer != Answer::Ended);
        let result = CommandResult {
            output,
            exit_code,
            duration: command.started.elapsed(),
            output_truncated,
            timed_out: answer == Answer::TimedOut,
            waiting_for_input: answer == Answer::WaitingForInput,
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
    /// within a look's interval is taken as the prompt: `PS1` was replaced and lost the mark,
    /// and the caller gets the command's result rather than a timeout.
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
            // for a look an interval later: still no drawn prompt, so this is the prompt.
            let unmarked_since = command.unmarked_prompt.filter(|_| {
                shell.commands > command.commands && shell.prompt_starts > command.prompt_starts
            });
            let running = shell.commands == command.commands;
            match unmarked_since {
                Some(at) if at.elapsed() >= COMMAND_START_CHECK => {
                    self.answer_command(id, waiter, Answer::Ended);
                }
                // Looked at early (a timer may fire a little before its time): look again.
                Some(at) => self.schedule(
                    at + COMMAND_START_CHECK,
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
        let quiet = slot.last_output.max(slot.last_input).elapsed();
        if !matches!(
            input_wait_of(slot, Sighting::Confirmed, quiet).0,
            procfs::InputWait::Waiting { .. }
        ) {
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

    pub(super) fn command_timed_out(&mut self, id: u64, waiter: u64) {
        // Its prompt may be back already, unread or not looked at yet (`check_commands`,
        // which the look runs, then answers it as ended).
        self.look_before_timeout(id);
        self.answer_command(id, waiter, Answer::TimedOut);
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
        let quiet = slot.last_output.max(slot.last_input).elapsed();
        let waiting = quiet >= settle
            && matches!(
                input_wait_of(slot, Sighting::Confirmed, quiet).0,
                procfs::InputWait::Waiting { .. }
            );
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
        let Some(slot) = self.sessions.get(&id) else {
            return Status::default();
        };
        // (Output written but not read yet is output now, as for waits.)
        let since_output = match output_unread(slot) {
            true => Duration::ZERO,
            false => slot.last_output.elapsed(),
        };
        let mut status = Status {
            activity: Activity::Running,
            foreground: None,
            since_output,
            last_exit_code: slot.terminal.shell().last_exit,
            shell_integration: slot.terminal.shell().integrated,
            input_wait_unknown: None,
            input_kind: None,
            ended_by_close: false,
        };
        match slot.state() {
            SessionState::Closed(how) => {
                status.activity = Activity::Closed(how);
                status.ended_by_close = slot.ended_by_close;
                return status;
            }
            SessionState::Exited(how) => {
                status.activity = Activity::Exited(how);
                return status;
            }
            SessionState::Running => {}
        }
        let group = slot.master.as_ref().and_then(|m| crate::os::pty::foreground_group(m.as_fd()));
        status.foreground = group.map(|pid| Process {
            pid,
            name: procfs::group_name(pid).unwrap_or_else(|| "?".to_owned()),
            within: None,
        });
        let at_prompt = slot.terminal.shell().at_prompt
            && slot.terminal.shell().prompt_at.is_some_and(|at| at >= slot.last_input);
        status.activity = if at_prompt {
            Activity::AtPrompt
        } else if changed_or_output(slot).max(slot.last_input).max(slot.last_resize).elapsed()
            < self.config.input_settle
        {
            Activity::Running
        } else {
            // Only here is the input-wait probe needed (it reads /proc for every member of the
            // foreground group): a wait answered on fresh output, or at the prompt, skips it.
            // A status only reports: a first sighting will do (it is not cached, so a wait
            // still confirms it).
            let quiet = slot.last_output.max(slot.last_input).elapsed();
            let (wait, _) = input_wait_of(slot, Sighting::First, quiet);
            match wait {
                procfs::InputWait::Waiting { reader } => {
                    // Name the program that reads the terminal (`less` behind `git`, or
                    // behind the shell running `seq | less`), not the group's leader; and the
                    // multiplexer it is in (`vim` in tmux's one pane, which its server reads
                    // for), whose client the session runs.
                    if let Some(reader) = reader.filter(|&r| Some(r) != group) {
                        let within = procfs::relay_name(reader, slot.pid);
                        status.foreground = procfs::process_name(reader)
                            .map(|name| Process { pid: reader, name, within })
                            .or(status.foreground);
                    }
                    status.input_kind =
                        slot.reader_line_modes(reader).map(crate::LineModes::input_kind);
                    Activity::WaitingForInput
                }
                procfs::InputWait::Unknown { reason } => {
                    status.input_wait_unknown = Some(reason);
                    quiet_or_running(slot, since_output, self.config.quiet)
                }
                procfs::InputWait::Stopped { .. } => Activity::Stopped,
                procfs::InputWait::NotWaiting { .. }
                | procfs::InputWait::Outside { .. }
                | procfs::InputWait::Sleeping { .. }
                | procfs::InputWait::Ticking { .. } => {
                    quiet_or_running(slot, since_output, self.config.quiet)
                }
            }
        };
        status
    }
}

/// A probe that found a session's foreground group waiting for input (kept in
/// `Slot::seen_waiting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SeenWaiting {
    /// The session's activity time it was made at (`Slot::activity`): it holds until input,
    /// output or a resize comes.
    pub at: Instant,
    /// The group.
    pub group: i32,
    /// Its member reading the terminal, when told (else the group's leader).
    pub reader: Option<i32>,
    /// The reader's threads then.
    pub threads: Option<u32>,
}

/// The process seen reading a session's terminal, and its threads, by a sighting made since
/// the input before (the count is of the program waiting for the input written next): one
/// that ends a thread in answer to a key and draws nothing before it does
/// (btop's `q` stops its runner thread, then it restores the terminal and exits 100 ms later,
/// its input thread back in `read` meanwhile, its main thread in short sleeps, as when idle)
/// is still answering it (see [`ThreadsAtInput::ended_one`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ThreadsAtInput {
    /// The process seen reading (`Slot::seen_waiting`'s reader, or its group's leader).
    pid: i32,
    /// Its threads then.
    threads: u32,
}

impl ThreadsAtInput {
    /// What `slot`'s sighting says as input is queued, if it was made since the input before
    /// (output since, a monitor's redraw, starts or ends no thread of a program waiting for
    /// keys): no `/proc` read on the way to the terminal (the threads were counted when the
    /// sighting was confirmed). One made before the input before says nothing of the program
    /// this input reaches. Called before `Slot::last_input` is set for this input.
    pub(super) fn before_input(slot: &Slot) -> Option<ThreadsAtInput> {
        let seen = slot.seen_waiting.get().filter(|seen| seen.at >= slot.last_input)?;
        Some(ThreadsAtInput { pid: seen.reader.unwrap_or(seen.group), threads: seen.threads? })
    }

    /// Why `reader` (a group's member `pid`, when `None`), found waiting, is still answering
    /// the last input: it is the process seen reading before it, and has fewer threads now
    /// (it ended one since: quitting, as btop does on `q`). Only asked when nothing was drawn
    /// since the input, and for [`STILL_ANSWERING`] after it: an answer drawn is the
    /// program's, whatever its threads do; and what a wait then sees is the program drawing
    /// its answer, or exiting (or, past that time, a program that ended a thread for a key
    /// without a word, waiting again).
    fn ended_one(&self, reader: i32) -> Option<String> {
        let threads = procfs::thread_count(reader)?;
        (reader == self.pid && threads < self.threads).then(|| {
            let name = procfs::process_name(reader).unwrap_or_else(|| "?".to_owned());
            format!(
                "pid {reader} ({name}) ended {} of its threads since the last input and has \
                 drawn nothing since: still answering it",
                self.threads - threads
            )
        })
    }
}

/// How long after a key a program that ended a thread for it, with nothing drawn, is taken
/// for still answering it ([`ThreadsAtInput::ended_one`]): btop exits about 100 ms after its
/// `q` ends its runner thread; a program whose key ended a worker and that answers nothing
/// else costs a wait this long at most, not the default wait's cap.
const STILL_ANSWERING: Duration = Duration::from_secs(1);

/// Input written to a session's terminal that its foreground group may not have read yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct UnreadInput {
    /// The foreground group it was written to.
    group: i32,
    /// The read system calls the group had completed before it (see
    /// [`procfs::group_reads`]).
    reads: u64,
    /// It ends a line (Enter, a line feed, Ctrl-D), which a read in canonical mode waits for.
    ends_line: bool,
    /// The processes whose reads were counted, for the count before the next write.
    readers: Readers,
}

/// The processes whose reads a foreground group's count sums ([`procfs::group_readers`]), as
/// a look at the session's processes found them, and the session's cgroup's members then: as
/// long as the same processes are in the cgroup, each in the process group it was in, and the
/// same group and relay in the foreground, the count before the next write sums the same
/// processes' reads without looking for them again (a look at every process of the session,
/// and at the terminal's relays, before each key typed: about 18 µs of a keystroke's 100).
/// Without a cgroup, or with more readers than it holds, the processes are looked for before
/// every write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Readers {
    pids: [i32; READERS_KEPT],
    /// The process group of each then: a process that left its group since (a job bash put
    /// in a group of its own just after it forked) is no longer read for.
    groups: [i32; READERS_KEPT],
    len: u8,
    /// A hash of the cgroup's members when the readers were found; `None` without a cgroup.
    members: Option<u64>,
    /// The relay outside the session known then ([`known_relay`]).
    relay: Option<i32>,
}

/// The readers [`Readers`] keeps (a group of more is looked for before every write).
const READERS_KEPT: usize = 8;

impl Readers {
    /// The readers of `group` in `slot`'s session, and the cgroup's members `members`.
    fn find(slot: &Slot, group: i32, members: Option<&[i32]>) -> Option<(Vec<i32>, Readers)> {
        let relay = known_relay(slot, group);
        let pids = procfs::group_readers(group, Some(slot.pid), members, relay)?;
        let mut kept = Readers {
            pids: [0; READERS_KEPT],
            groups: [0; READERS_KEPT],
            len: 0,
            members: None,
            relay,
        };
        let groups: Option<Vec<i32>> = pids.iter().map(|&pid| group_of(pid)).collect();
        if let Some(groups) = groups.filter(|_| pids.len() <= READERS_KEPT) {
            kept.pids[..pids.len()].copy_from_slice(&pids);
            kept.groups[..pids.len()].copy_from_slice(&groups);
            kept.len = pids.len() as u8;
            kept.members = members.map(members_hash);
        }
        Some((pids, kept))
    }

    /// The readers kept, while the cgroup's members are still `members`, each reader is in
    /// the process group it was in, and the relay known for `group` is the same.
    fn still(&self, slot: &Slot, group: i32, members: Option<&[i32]>) -> Option<&[i32]> {
        let len = usize::from(self.len);
        let same = self.members.is_some()
            && self.members == members.map(members_hash)
            && self.relay == known_relay(slot, group)
            && (0..len).all(|i| group_of(self.pids[i]) == Some(self.groups[i]));
        same.then(|| &self.pids[..len])
    }
}

/// The process group of process `pid`, where it still lives.
fn group_of(pid: i32) -> Option<i32> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::getpgid(Some(pid))
        .ok()
        .map(rustix::process::Pid::as_raw_nonzero)
        .map(|g| g.get())
}

/// A hash of a cgroup's members, in the order `cgroup.procs` lists them.
fn members_hash(members: &[i32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    members.hash(&mut hasher);
    hasher.finish()
}

impl UnreadInput {
    /// What to remember before `bytes` are written: the earlier unread input, when the same
    /// group is in the foreground and has read nothing since (its count has not moved), else
    /// the group's reads now. An earlier count the group has read past (the earlier input
    /// read, with no look at the program since to forget it) would take these bytes for read
    /// at the next look, while the program, not woken yet or waiting for more (VMIN), is
    /// still blocked in its read. The count sums the readers the earlier count found while
    /// they can stand ([`Readers`]). `None` when the group's reads cannot be counted (another
    /// user's process, no `/proc`), or when nothing is left a read could return. The line
    /// discipline takes the signal
    /// characters (Ctrl-C, Ctrl-\, Ctrl-Z with ISIG: a program that catches the signal never
    /// reads them) and, unless NOFLSH, discards the input queued before them; with IXON it
    /// takes the flow-control characters (Ctrl-S, Ctrl-Q). Those are control characters (as
    /// terminals are set up), so the modes are read only for bytes that hold one: text typed
    /// or pasted costs no system call here.
    pub(super) fn before_writing(
        slot: &Slot,
        master: std::os::fd::BorrowedFd<'_>,
        bytes: &[u8],
    ) -> Option<UnreadInput> {
        use rustix::termios::{InputModes, LocalModes, SpecialCodeIndex};
        let mut earlier = slot.unread_input.get();
        let mut bytes = bytes;
        let controls = bytes.iter().any(|b| *b < 0x20 || *b == 0x7f);
        let termios = controls.then(|| rustix::termios::tcgetattr(master).ok()).flatten();
        if let Some(termios) = &termios {
            let signal = |b: &u8| super::terminal_io::signal_for(termios, *b).is_some();
            if let Some(last) = bytes.iter().rposition(signal) {
                bytes = &bytes[last + 1..];
                if !termios.local_modes.contains(LocalModes::NOFLSH) {
                    earlier = None;
                }
            }
        }
        let flow = termios.filter(|t| t.input_modes.contains(InputModes::IXON)).map(|t| {
            [SpecialCodeIndex::VSTART, SpecialCodeIndex::VSTOP].map(|i| t.special_codes[i])
        });
        let taken = |b: &u8| *b != 0 && flow.is_some_and(|codes| codes.contains(b));
        if bytes.iter().all(taken) {
            return earlier;
        }
        let ends_line = bytes.iter().any(|b| matches!(b, b'\r' | b'\n' | 4));
        let group = crate::os::pty::foreground_group(master)?;
        let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
        let members = members.as_deref();
        let kept = earlier.filter(|e| e.group == group).and_then(|e| {
            let reads = procfs::reads_of(e.readers.still(slot, group, members)?)?;
            Some((reads, e.readers))
        });
        let (reads, readers) = match kept {
            Some(kept) => kept,
            None => {
                let (pids, readers) = Readers::find(slot, group, members)?;
                (procfs::reads_of(&pids)?, readers)
            }
        };
        let ends_line = ends_line
            || earlier.is_some_and(|e| (e.group, e.reads) == (group, reads) && e.ends_line);
        Some(UnreadInput { group, reads, ends_line, readers })
    }

    /// Whether the input is still unread: the same group is in the foreground and has
    /// completed no read since, and a read could return it (in canonical mode, only a whole
    /// line is returned: a part of a line leaves the program waiting for the rest).
    fn still_unread(&self, slot: &Slot, master: std::os::fd::BorrowedFd<'_>, group: i32) -> bool {
        use rustix::termios::LocalModes;
        let canonical = rustix::termios::tcgetattr(master)
            .is_ok_and(|t| t.local_modes.contains(LocalModes::ICANON));
        group == self.group
            && (self.ends_line || !canonical)
            && !read_since(slot, group, self.reads)
    }
}

/// Whether the terminal's foreground group, found waiting for input, asks for a whole line (or
/// a password: canonical input; or a command line: the shell is `at_prompt`, its line editor
/// reading keys; or a REPL's next line, see below) and nothing else can print: it is one
/// process, and every other process of the session waits for a child (a shell for its job). A
/// group of several (a shell without job control and its background job, `(sleep 9; echo
/// late) & read x`) or a background job of a shell with job control may print while it reads;
/// and nothing they printed before they ended is still unread. The modes are those of the
/// terminal `reader` reads (see `Slot::reader_line_modes`).
///
/// A program reading keys (a REPL's line editor: Python's `>>>`, pdb's `(Pdb)`, `sqlite3`'s,
/// `bc`'s, gdb's `(gdb)`) asks for input too when `reader` is the group's process and every
/// thread of it is blocked reading its terminal, or polling it with no timeout, alone or
/// beside pipes and eventfds no other process of the session holds (its cgroup's members, or
/// without one its POSIX session's), or idle on a lock of its own
/// (`procfs::awaits_input_alone`), with no POSIX timer nor child that may signal it, and a
/// read of it does not time out (`VTIME`): only a key, or a timer `/proc` does not show
/// (`alarm`, `setitimer`), can wake it. Reading keys is no proof by itself: an event loop at its prompt (node's REPL)
/// prints when a timer of its own goes off, and a thread beside the one that reads when it
/// wakes. Such a program may have stopped other processes of the session tracing them (gdb
/// its program at a breakpoint): they run again only when it sets them running.
fn asks_for_line(slot: &Slot, at_prompt: bool, reader: Option<i32>) -> bool {
    let Some(master) = &slot.master else {
        return false;
    };
    let kind = slot.reader_line_modes(reader).map(crate::LineModes::input_kind);
    let line =
        at_prompt || matches!(kind, Some(crate::InputKind::Line | crate::InputKind::Password));
    let keys = !line && kind == Some(crate::InputKind::Keys);
    let group = crate::os::pty::foreground_group(master.as_fd()).filter(|_| line || keys);
    // (The session's processes, when its cgroup has them: where holders of a reader's pipes
    // are looked for too.)
    let members = group.and(slot.cgroup.as_ref()).map(|cgroup| cgroup.pids());
    let alone = group.is_some_and(|group| {
        // (A program it stopped tracing, at a breakpoint, counts only for a program reading
        // keys, which is found below blocked until a key: nothing else sets it running.)
        procfs::alone_in_session(group, slot.pid, members.as_deref(), keys)
    });
    // Looked at after the other processes were found gone: what one of them printed before it
    // ended (a background job's last line) may not have been read yet, or not fed yet.
    if !alone || output_unread(slot) {
        return false;
    }
    // (The reader named may be a program a relay hosts, in a session of its own, under modes
    // of its own: only the group's own process, on the session's terminal, was found alone.)
    let awaits_keys_alone = || {
        reader.zip(group).is_some_and(|(reader, group)| {
            procfs::read_stat(reader).is_ok_and(|stat| stat.pgrp == group)
                && !crate::os::pty::reads_time_out(master.as_fd())
                && procfs::awaits_input_alone(reader, members.as_deref())
        })
    };
    if keys && !awaits_keys_alone() {
        return false;
    }
    // Nor may it have reached the master yet: the kernel hands a write over to it
    // asynchronously, after the writer may have ended (a loaded machine's `(sleep 1.5; echo
    // late) & read x` was found asking with `late` on its way). A first sighting is taken only
    // when a later look, with no output or input in between, sees the same.
    let activity = slot.last_output.max(slot.last_input);
    slot.first_seen_asking.confirm(activity, CONFIRM_ASKING) == Confirmation::Confirmed
}

/// A first sighting of a state of the program, taken only when a later look sees it again,
/// with nothing in between (`K`: what keys it, the time of the last output or input among
/// it), at least a given time later: output the program wrote just before may still be on its
/// way to the terminal's master (the kernel hands it over asynchronously).
pub(super) struct FirstSighting<K>(std::cell::Cell<Option<(K, Instant)>>);

/// What [`FirstSighting::confirm`] says of a sighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Confirmation {
    /// Seen for the first time (with this key): recorded.
    New,
    /// Seen before, too recently to be confirmed.
    Confirming,
    /// Seen before, long enough ago: taken.
    Confirmed,
}

impl<K: Copy + PartialEq> FirstSighting<K> {
    pub(super) fn new() -> Self {
        FirstSighting(std::cell::Cell::new(None))
    }

    /// As [`FirstSighting::confirm`], but a sighting recorded `expire` or longer ago is
    /// recorded again as new: one left from a look long before (an earlier wait's, with
    /// looks of other kinds since) confirms nothing.
    fn confirm_within(&self, key: K, after: Duration, expire: Duration) -> Confirmation {
        if self.0.get().is_some_and(|(_, seen)| seen.elapsed() >= expire) {
            self.forget();
        }
        self.confirm(key, after)
    }

    /// Forgets the sighting recorded: the state was seen to end.
    pub(super) fn forget(&self) {
        self.0.set(None);
    }

    /// Records a sighting keyed `key`, and says whether one with the same key was recorded at
    /// least `after` ago.
    fn confirm(&self, key: K, after: Duration) -> Confirmation {
        let now = Instant::now();
        match self.0.get() {
            Some((seen_key, seen)) if seen_key == key => {
                match now.saturating_duration_since(seen) >= after {
                    true => Confirmation::Confirmed,
                    false => Confirmation::Confirming,
                }
            }
            _ => {
                self.0.set(Some((key, now)));
                Confirmation::New
            }
        }
    }
}

/// How long after a first sighting of a program asking for a line, with nothing else left to
/// print, a second one confirms it (see [`asks_for_line`]): longer than the kernel takes to
/// hand a write over to the terminal's master on a loaded machine.
const CONFIRM_ASKING: Duration = Duration::from_millis(50);

/// How long after a first sighting of a program waiting on the world outside (or on what
/// /proc cannot tell) a second one, with nothing else seen in between, lets a wait for silence
/// settle: two of the waits' polls ([`crate::wait`] looks every 25 ms).
const CONFIRM_UNDECIDED: Duration = Duration::from_millis(50);

/// Whether the program wrote output that the reactor has not read, or not fed, yet.
pub(super) fn output_unread(slot: &Slot) -> bool {
    slot.terminal.has_pending()
        || slot
            .master
            .as_ref()
            .is_some_and(|master| rustix::io::ioctl_fionread(master).is_ok_and(|unread| unread > 0))
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

/// The read system calls the members of `group` in `slot`'s session have completed, with
/// those of its relays (tmux's server for its client): in the session, and outside it once
/// found ([`read_since`]).
fn group_reads(slot: &Slot, group: i32) -> Option<u64> {
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    procfs::group_reads(group, Some(slot.pid), members.as_deref(), known_relay(slot, group))
}

/// The relay outside `slot`'s session found for `group`, where one was looked for and found.
fn known_relay(slot: &Slot, group: i32) -> Option<i32> {
    match slot.outside_relay.get() {
        Some((looked_for, relay)) if looked_for == group => relay,
        _ => None,
    }
}

/// Whether `group` has read since it had completed `reads` read calls ([`group_reads`]). When
/// its count has not moved, its terminal may be read by a relay outside the session (the
/// tmux server its client attached to, started before the session), which is looked for once
/// per group: found, its reads count from then on, and the input is taken as read by it.
fn read_since(slot: &Slot, group: i32, reads: u64) -> bool {
    if group_reads(slot, group) != Some(reads) {
        return true;
    }
    if slot.outside_relay.get().is_some_and(|(looked_for, _)| looked_for == group) {
        return false;
    }
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    procfs::outside_relay(group, slot.pid, members.as_deref(), &slot.outside_relay).is_some()
}

/// Whether a program not waiting for input is quiet, silent for `quiet` (`since_output`), or
/// running: also while it prints at a pace and is between two prints (`slot.cadence`, a
/// progress bar redrawn once a second).
fn quiet_or_running(slot: &Slot, since_output: Duration, quiet: Duration) -> Activity {
    match since_output >= quiet && !slot.cadence.holds(since_output) {
        true => Activity::Quiet,
        false => Activity::Running,
    }
}

/// Whether the terminal's foreground process group waits for input, and which group it is.
/// `quiet` is how long the terminal has been quiet, which tells an idle tick of a short timer
/// from an answer (see [`procfs::group_input_wait`]): since the last output for a status,
/// since the last change of the screen for a wait.
pub(super) fn input_wait_of(
    slot: &Slot,
    sighting: Sighting,
    quiet: Duration,
) -> (procfs::InputWait, Option<i32>) {
    let Some(master) = &slot.master else {
        return (procfs::InputWait::Unknown { reason: "the terminal is closed".into() }, None);
    };
    let Some(group) = crate::os::pty::foreground_group(master.as_fd()) else {
        return (
            procfs::InputWait::Unknown {
                reason: "the terminal has no foreground process group".into(),
            },
            None,
        );
    };
    // Output the program already wrote but the reactor has not read yet means it is not
    // waiting (yet): the screen is about to change.
    if rustix::io::ioctl_fionread(master).is_ok_and(|unread| unread > 0) {
        return (
            procfs::InputWait::NotWaiting {
                reason: "output not yet read from the terminal".into(),
            },
            Some(group),
        );
    }
    // Input written to the terminal that the group has not read yet (its reader may not even
    // have been woken): it is not waiting, whatever /proc says now.
    if let Some(unread) = slot.unread_input.get() {
        if unread.still_unread(slot, master.as_fd(), group) {
            return (
                procfs::InputWait::NotWaiting { reason: "input not read yet".into() },
                Some(group),
            );
        }
        slot.unread_input.set(None);
    }
    // A group seen blocked reading the terminal stays so until it gets input or writes output
    // (or another group takes the terminal): the probe's answer is reused until then. A
    // resize, like input, is for the program to answer (SIGWINCH wakes it; it may work a
    // while before it redraws): a sighting made before one is not reused after it.
    let activity = slot.activity();
    if let Some(seen) = slot.seen_waiting.get()
        && (seen.at, seen.group) == (activity, group)
    {
        return (procfs::InputWait::Waiting { reader: seen.reader }, Some(group));
    }
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    slot.timers.since_input(slot.last_input);
    let shown = shown(slot, master.as_fd());
    let unanswered = unanswered(slot);
    let terminal = procfs::TerminalSeen {
        quiet,
        timers: Some(&slot.timers),
        outside: Some(&slot.outside_relay),
        shown,
        unanswered_input: slot.bytes_in > 0 && unanswered,
        unanswered_start: slot.bytes_in == 0 && unanswered,
        unanswered_secret: slot.bytes_in > 0 && slot.input_unechoed && unanswered,
        hidden_below_line: hidden_below_submitted(slot),
        // (What it drew for the keys before an Escape is no answer to the Escape; what it
        // drew after a pause, waiting for the rest of a key code, is.)
        drawn_since_input: slot.last_output > slot.last_input
            && (!slot.input_ends_unfinished || slot.cadence.drew_after_a_pause()),
        full_screen: slot.draws_full_screens(),
        since_input: (slot.bytes_in > 0).then(|| slot.last_input.elapsed()),
    };
    let answer = match procfs::group_input_wait(group, Some(slot.pid), members.as_deref(), terminal)
    {
        // Where /proc cannot tell (a program running as another user, such as sudo), the
        // line discipline still tells a password prompt: whole lines, echo off.
        procfs::InputWait::Unknown { reason }
            if procfs::denied(&reason)
                && crate::os::pty::line_modes(master.as_fd()).map(crate::LineModes::input_kind)
                    == Some(crate::InputKind::Password) =>
        {
            procfs::InputWait::Waiting { reader: None }
        }
        answer => answer,
    };
    // A program that ended a thread since the key it read, and drew nothing since, is still
    // answering the key (btop quitting on `q`), though it waits for keys as when idle.
    let answer = match (answer, slot.threads_at_input.get()) {
        (procfs::InputWait::Waiting { reader }, Some(before))
            if !terminal.drawn_since_input && slot.last_input.elapsed() < STILL_ANSWERING =>
        {
            match before.ended_one(reader.unwrap_or(group)) {
                Some(reason) => procfs::InputWait::NotWaiting { reason },
                None => procfs::InputWait::Waiting { reader },
            }
        }
        (answer, _) => answer,
    };
    if let procfs::InputWait::Waiting { reader } = answer {
        if sighting == Sighting::First {
            return (answer, Some(group));
        }
        // Output a program wrote just before it blocked may not have reached the terminal's
        // master yet (the kernel hands it over asynchronously, so the unread-output check above
        // does not see it): a first sighting is taken only when a later probe, with no output
        // in between, sees the same.
        let reason = match slot.first_seen_waiting.confirm((activity, group), CONFIRM_WAITING) {
            Confirmation::Confirmed => None,
            Confirmation::Confirming => Some("confirming the wait"),
            Confirmation::New => Some("just began to wait for input (confirming)"),
        };
        if let Some(reason) = reason {
            return (procfs::InputWait::NotWaiting { reason: reason.into() }, Some(group));
        }
        let threads = procfs::thread_count(reader.unwrap_or(group));
        slot.seen_waiting.set(Some(SeenWaiting { at: activity, group, reader, threads }));
    }
    (answer, Some(group))
}

/// What the terminal shows at its cursor, for a probe (see [`procfs::Shown`]): no prompt, the
/// cursor at the start of a blank row below text, on the line right after the one the last
/// submitted line was typed on (what follows a prompt the program printed, such as `echo
/// 'Press a key'; read -n1 -t 8`, is no answer to a line), with no input since or none that
/// drew anything (node's REPL reads no key while it awaits); or still on that line, nothing
/// drawn since it was submitted, when it was typed right below a line submitted before it
/// (typed while node's REPL awaits that one); or a prompt drawn since the last input, the
/// cursor right after its row's text; only while the program takes keys (the modes are read
/// only when the screen shows one of the two).
fn shown(slot: &Slot, master: std::os::fd::BorrowedFd<'_>) -> procfs::Shown {
    let terminal = &slot.terminal;
    let below_submitted = || {
        slot.submitted.is_some_and(|(at, line, before)| {
            let drew_nothing_since = |since| slot.last_output <= since;
            let cursor = terminal.cursor_position().0;
            let typed_below_another = before.is_some_and(|before| before.saturating_add(1) == line);
            (at == slot.last_input || drew_nothing_since(slot.last_input))
                && (cursor == line.saturating_add(1)
                    || cursor == line && typed_below_another && drew_nothing_since(at))
        })
    };
    let shown = if terminal.cursor_below_text() && below_submitted() {
        procfs::Shown::Unanswered
    } else if slot.last_output > slot.last_input && terminal.cursor_after_text() {
        procfs::Shown::Prompt
    } else {
        return procfs::Shown::Other;
    };
    let keys = crate::os::pty::line_modes(master).map(crate::LineModes::input_kind)
        == Some(crate::InputKind::Keys);
    if keys { shown } else { procfs::Shown::Other }
}

/// Whether the last input, or the start when none was sent, has nothing drawn since that
/// answers it, for a probe (see [`procfs::TerminalSeen::unanswered_input`] and
/// [`procfs::TerminalSeen::unanswered_start`]): no output since it; a line submitted last
/// whose line break has not come back (the cursor still on the line it was typed on, on the
/// primary screen: its echo arrives in pieces from a far end); or the visible cursor at the
/// start of a blank row below a row of text (not a hidden one, as a TUI drawing on the primary
/// screen leaves it, nor one in a line being edited): a far end's greeting before its prompt
/// (`Last login: ...`).
fn unanswered(slot: &Slot) -> bool {
    let terminal = &slot.terminal;
    let line_not_ended = || {
        !terminal.alternate()
            && slot.submitted.is_some_and(|(at, line, _)| {
                at == slot.last_input && terminal.cursor_position().0 <= line
            })
    };
    // (The line the cursor is on, which renders the rows down to it, is asked last.)
    slot.last_output <= slot.last_input
        || terminal.cursor_visible() && terminal.cursor_below_text()
        || line_not_ended()
}

/// Whether the cursor is hidden at the start of a blank row of the primary screen right below
/// the line submitted last, the last input (see
/// [`procfs::TerminalSeen::hidden_below_line`]).
fn hidden_below_submitted(slot: &Slot) -> bool {
    let terminal = &slot.terminal;
    !terminal.cursor_visible()
        && terminal.cursor_below_text()
        && slot.submitted.is_some_and(|(at, line, _)| {
            at == slot.last_input && terminal.cursor_position().0 == line.saturating_add(1)
        })
}

/// Whether a probe's sighting of a program waiting for input is taken as it is (a status) or
/// only once confirmed (what ends a wait, or abandons a command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sighting {
    First,
    Confirmed,
}

/// How long after a first sighting of a program waiting for input a second one confirms it.
const CONFIRM_WAITING: Duration = Duration::from_millis(5);

#[cfg(test)]
mod tests {
    use super::*;

    /// A sighting is taken once seen again with the same key, long enough after the first;
    /// another key, or the state seen to end in between (`forget`), starts over.
    #[test]
    fn a_first_sighting_is_confirmed_by_a_second_with_nothing_in_between() {
        let sighting = FirstSighting::new();
        let long = Duration::from_secs(3600);
        assert_eq!(sighting.confirm(1, long), Confirmation::New);
        assert_eq!(sighting.confirm(1, long), Confirmation::Confirming);
        assert_eq!(sighting.confirm(1, Duration::ZERO), Confirmation::Confirmed);
        assert_eq!(sighting.confirm(2, Duration::ZERO), Confirmation::New);
        assert_eq!(sighting.confirm(2, Duration::ZERO), Confirmation::Confirmed);
        sighting.forget();
        assert_eq!(sighting.confirm(2, Duration::ZERO), Confirmation::New);
        // One recorded longer ago than `expire` is taken as new.
        assert_eq!(sighting.confirm_within(2, Duration::ZERO, long), Confirmation::Confirmed);
        assert_eq!(sighting.confirm_within(2, Duration::ZERO, Duration::ZERO), Confirmation::New);
    }
}
