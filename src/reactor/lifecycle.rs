//! Exit, close and shutdown: reaping the program and ending every process of a session.

use super::*;
use crate::os::terminate::{kill, signal_groups, signal_session};

impl Reactor {
    // ----- exit and close -----------------------------------------------------------------

    /// The pidfd is readable: reap the child, read the rest of its output, then report.
    pub(super) fn child_exited(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.child.is_some() {
            return;
        }
        let Some(status) = reap(slot.pid, slot.pidfd.as_ref()) else {
            return;
        };
        slot.child = Some(status);
        if let Some(pidfd) = slot.pidfd.take() {
            let _ = self.poll.registry().deregister(&mut SourceFd(&pidfd.as_raw_fd()));
        }
        self.after_exit(id);
    }

    /// The supervisor reaped the program of a session it started.
    pub(crate) fn supervised_exit(&mut self, pid: i32, status: ExitStatus) {
        let Some(id) = self
            .sessions
            .iter()
            .find(|(_, slot)| slot.supervisor.is_some() && slot.pid == pid && slot.child.is_none())
            .map(|(id, _)| *id)
        else {
            // Not attached yet (it exited before its spawn call came back): kept until it is.
            if self.early_exits.len() >= self.config.max_sessions {
                self.early_exits.clear();
            }
            self.early_exits.insert(pid, status);
            return;
        };
        self.guarded(id, |r| {
            if let Some(slot) = r.sessions.get_mut(&id) {
                slot.child = Some(status);
            }
            r.after_exit(id);
        });
    }

    /// The supervisor is gone: the sessions it started are closed (their processes are no
    /// longer contained, and nobody reports their exits).
    pub(crate) fn supervisor_lost(&mut self) {
        let orphaned: Vec<u64> = self
            .sessions
            .iter()
            .filter(|(_, slot)| {
                !slot.closed && slot.supervisor.as_ref().is_some_and(|s| !s.alive())
            })
            .map(|(id, _)| *id)
            .collect();
        for id in orphaned {
            log::warn!("termloom: session {id}: {}", CloseReason::SupervisorLost);
            self.begin_close(id, CloseReason::SupervisorLost, None);
        }
    }

    /// The program was reaped: read the rest of its output, then report (or drain first).
    pub(super) fn after_exit(&mut self, id: u64) {
        // Everything still in the terminal is read before the exit is reported.
        self.read_output(id);
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.closing.is_some() {
            self.close_check(id);
        } else if slot.master.is_none() {
            self.report_exit(id);
        } else {
            // Other processes still hold the terminal; give their output a moment.
            let at = Instant::now() + self.config.exit_drain;
            self.schedule(at, Timer::ExitDrain(id));
        }
    }

    pub(super) fn report_exit(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        // A close in progress owns the ending: the session is then closed, not exited.
        if slot.exit.is_some() || slot.closed || slot.closing.is_some() {
            return;
        }
        if slot.child.is_none()
            && let Some(supervisor) = &slot.supervisor
        {
            // The supervisor reports the exit; that report goes on from here (resumed, in
            // case a session's program stopped it).
            supervisor.wake();
            return;
        }
        if slot.child.is_none() && slot.pidfd.is_none() {
            // No pidfd: reap by pid, and try again shortly while it has not exited (this
            // polling happens only after the terminal hung up, on systems without pidfds).
            slot.child = reap(slot.pid, None);
            if slot.child.is_none() {
                let at = Instant::now() + Duration::from_millis(10);
                self.schedule(at, Timer::ExitDrain(id));
                return;
            }
        }
        let Some(status) = slot.child else { return };
        if slot.master.is_some() {
            // Reading may hang up, which reports the exit (and may even drop the tombstone).
            self.read_output(id);
        }
        let Some(slot) = self.sessions.get_mut(&id) else { return };
        if slot.exit.is_some() || slot.closed || slot.closing.is_some() {
            return;
        }
        if slot.terminal.has_pending() {
            // Output read before the exit is still being fed, a turn at a time: the turn
            // that finishes it reports the exit.
            slot.exit_deferred = true;
            return;
        }
        slot.exit = Some(status);
        slot.ended_at.get_or_insert_with(SystemTime::now);
        slot.terminal.end();
        slot.drop_input();
        self.check_waiters(id);
        // The program is gone: end whatever it left behind and keep a tombstone.
        self.begin_close(id, CloseReason::Exited, None);
    }

    pub(super) fn begin_close(
        &mut self,
        id: u64,
        reason: CloseReason,
        reply: Option<Reply<Result<ExitStatus>>>,
    ) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.closed_by_caller |= reason == CloseReason::Caller;
        if slot.closed {
            if let Some(reply) = reply {
                reply.send(Ok(slot.final_status()));
            }
            return;
        }
        if let Some(closing) = &mut slot.closing {
            closing.replies.extend(reply);
            return;
        }
        slot.ended_by_close = slot.child.is_none() && slot.exit.is_none();
        let now = Instant::now();
        slot.closing = Some(Closing {
            started: now,
            hung_up: now,
            termed: false,
            looked_outside: None,
            scanning: false,
            outside: Vec::new(),
            killed: None,
            backoff: Duration::from_millis(1),
            replies: reply.into_iter().collect(),
            reason,
        });
        slot.drop_input();
        // The supervisor reports the program's exit: it must be running to.
        if let Some(supervisor) = &slot.supervisor {
            supervisor.wake();
        }
        // A hangup first, as a closing terminal sends; SIGTERM to what still runs after
        // `TERM_AFTER` (see `close_check`).
        let (pid, started, cgroup) = (slot.pid, slot.started_ticks, slot.cgroup.as_ref());
        signal_all(pid, started, cgroup, &[], &[Signal::HUP, Signal::CONT]);
        self.close_check(id);
    }

    /// Checks a closing session: finished when the program is reaped and no process of the
    /// session is left; escalates to SIGKILL after the grace period.
    pub(super) fn close_check(&mut self, id: u64) {
        let grace = self.config.close_grace;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.closing.is_none() {
            return;
        }
        // Its exit is reported by its supervisor: resumed on every look (a program may stop
        // it again and again).
        if let Some(supervisor) = &slot.supervisor
            && slot.child.is_none()
        {
            supervisor.wake();
        }
        if slot.child.is_none()
            && let Some(status) = reap(slot.pid, slot.pidfd.as_ref())
        {
            slot.child = Some(status);
        }
        // A program whose supervisor is gone is reaped by nobody the engine can ask: once it
        // is gone, its status is unknown (taken as killed).
        if slot.child.is_none()
            && slot.supervisor.as_ref().is_some_and(|s| !s.alive())
            && !procfs::read_stat(slot.pid).is_ok_and(|s| procfs::has_live_threads(&s))
        {
            slot.child = Some(ExitStatus::Signal(9));
        }
        // With a cgroup, it lists every process of the session (but those that left it, below).
        let mut survivors: Vec<i32> = match &slot.cgroup {
            Some(cgroup) => cgroup
                .pids()
                .into_iter()
                .filter(|pid| procfs::read_stat(*pid).is_ok_and(|s| procfs::has_live_threads(&s)))
                .collect(),
            // Without one, by its number: none once another process took it (see `sid_reused`).
            None if sid_reused(slot.pid, slot.started_ticks) => Vec::new(),
            None => procfs::live_session_processes(slot.pid).iter().map(|p| p.pid).collect(),
        };
        // A process may leave the cgroup (root may write any cgroup's `cgroup.procs`) and stay
        // in the POSIX session: once the cgroup is empty (the program reaped, or alive outside
        // it: it left too, and its jobs there are sent the close's signals as they go), the
        // session is looked for by one scan of `/proc`, made on another thread (see
        // `outside_scan`; the close does not finish before its answer), and what is found is
        // ended as the cgroup's processes are. Only if it found any is it looked for again, a
        // scan at a time and at most every `RESCAN_OUTSIDE`; the last answer serves the
        // SIGTERM and SIGKILL steps. Between scans, what it found is looked at again on every
        // check (a stat each): one gone (or a zombie, or its number another process's) is
        // dropped, and once all are, the session is scanned for again at once rather than at
        // the period's end (a process in `exit_group` is found alive a moment after leaving
        // the cgroup: the close ended 250 ms late). A process
        // found is sent every signal the close already sent (see `outside_found`). Not when
        // the session's id names another process now (see `sid_reused`), nor is the group of
        // that number signalled then.
        // (Whether the reactor saw the program reaped or not: a supervisor reaps it, freeing
        // its number, before its report comes; an unreaped program keeps its start time.)
        let sid_taken = sid_reused(slot.pid, slot.started_ticks);
        let mut outside = Vec::new();
        let mut scanning = false;
        let now = Instant::now();
        if let (Some(_), Some(closing)) = (&slot.cgroup, &mut slot.closing) {
            let found = closing.outside.len();
            closing.outside.retain(|p| {
                procfs::read_stat(p.pid)
                    .is_ok_and(|s| s.starttime == p.starttime && procfs::has_live_threads(&s))
            });
            let all_gone = found > 0 && closing.outside.is_empty();
            let due = match closing.looked_outside {
                None => survivors.is_empty(),
                Some(at) => {
                    all_gone
                        || !closing.outside.is_empty() && now.duration_since(at) >= RESCAN_OUTSIDE
                }
            };
            if sid_taken {
                closing.outside.clear();
            } else if !closing.scanning && due {
                closing.looked_outside = Some(now);
                closing.scanning = true;
                survivors.sort_unstable();
                self.scans.ask(id, slot.pid, survivors.clone());
            }
            scanning = closing.scanning;
            outside.clone_from(&closing.outside);
            survivors.extend(outside.iter().map(|p| p.pid));
        }
        survivors.sort_unstable();
        survivors.dedup();
        if survivors.is_empty() && slot.child.is_some() && !scanning {
            self.finish_close(id);
            return;
        }
        // The program is gone and a process it left is blocked reading the terminal, having
        // ignored the close's signals (passwd at its prompt, run by adduser): the terminal is
        // hung up, as a closing window hangs up its terminal, so that read ends (and passwd
        // with it) rather than waiting for the grace's SIGKILL (3 s). Only once all they wrote
        // is read (another that prints as it ends, a cleanup handler, keeps its output) and the
        // program reaped (closing the master sends that program SIGHUP, see
        // `Slot::hang_up_master`). Others keep their grace, writes and all.
        let reader_left = slot.child.is_some()
            && slot.master.is_some()
            && slot.slave_device.is_some_and(|device| {
                survivors.iter().any(|&pid| procfs::blocked_on_terminal(pid, device))
            });
        if reader_left {
            self.read_output(id);
            let registry = self.poll.registry();
            let Some(slot) = self.sessions.get_mut(&id) else {
                return;
            };
            let drained = !slot.terminal.has_pending()
                && slot
                    .master
                    .as_ref()
                    .is_some_and(|m| rustix::io::ioctl_fionread(m).is_ok_and(|unread| unread == 0));
            if drained {
                slot.close_master(registry);
            }
        }
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let Some(closing) = &mut slot.closing else {
            return;
        };
        let next = match closing.killed {
            None if now >= closing.started + grace => {
                let (pid, started, cgroup) = (slot.pid, slot.started_ticks, slot.cgroup.as_ref());
                signal_all(pid, started, cgroup, &outside, &[Signal::KILL]);
                if let Some(cgroup) = &slot.cgroup {
                    cgroup.kill();
                }
                for pid in &survivors {
                    kill(*pid, Signal::KILL);
                }
                closing.killed = Some(now);
                closing.backoff = Duration::from_millis(1);
                now + closing.backoff
            }
            None => {
                // What the hangup left running is asked to end.
                if !closing.termed && now >= closing.started + TERM_AFTER {
                    closing.termed = true;
                    let signals = [Signal::TERM, Signal::CONT];
                    let (pid, started) = (slot.pid, slot.started_ticks);
                    signal_all(pid, started, slot.cgroup.as_ref(), &outside, &signals);
                }
                // The program is sent SIGHUP again, as a real terminal's hangup goes on
                // waking it (every read ends), lest a hangup it took before it blocked on the
                // terminal be its only one.
                if slot.child.is_none() && slot.exit.is_none() && now >= closing.hung_up + HUP_AGAIN
                {
                    kill(slot.pid, Signal::HUP);
                    closing.hung_up = now;
                }
                let term = match closing.termed {
                    true => closing.started + grace,
                    false => closing.started + TERM_AFTER,
                };
                (now + closing.backoff).min(closing.started + grace).min(term)
            }
            Some(killed) if now >= killed + KILL_WAIT => {
                if survivors.is_empty() {
                    log::warn!("termloom: session {id}: no exit was reported for its program");
                } else {
                    log::error!(
                        "termloom: session {id}: {} process(es) survived SIGKILL: {:?}",
                        survivors.len(),
                        survivors
                    );
                }
                self.finish_close(id);
                return;
            }
            Some(_) => {
                for pid in &survivors {
                    kill(*pid, Signal::KILL);
                }
                now + closing.backoff
            }
        };
        closing.backoff = (closing.backoff * 2).min(Duration::from_millis(50));
        self.schedule(next, Timer::CloseCheck(id));
    }

    /// Takes the answers of the scans for processes outside closing sessions' cgroups.
    pub(super) fn take_outside_scans(&mut self) {
        while let Some(found) = self.scans.take() {
            self.guarded(found.id, |r| r.outside_found(found.id, found.outside));
        }
    }

    /// A scan found `found` (sorted by pid) of closing session `id`'s POSIX session outside
    /// its cgroup: those not found before are sent every signal the close has sent; with
    /// none left, the close is checked at once (it may be finished). A session number given
    /// to another process since the scan was asked for (the program reaped, its pid reused)
    /// names another session: what was found is not this session's, and nothing is sent.
    fn outside_found(&mut self, id: u64, mut found: Vec<procfs::ProcStat>) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if sid_reused(slot.pid, slot.started_ticks) {
            found.clear();
        }
        let Some(closing) = slot.closing.as_mut() else {
            return;
        };
        closing.scanning = false;
        let new: Vec<_> = found
            .iter()
            .filter(|p| closing.outside.binary_search_by_key(&p.pid, |o| o.pid).is_err())
            .cloned()
            .collect();
        signal_groups(&new, &closing.sent());
        closing.outside = found;
        if closing.outside.is_empty() {
            self.close_check(id);
        }
    }

    pub(super) fn finish_close(&mut self, id: u64) {
        self.read_output(id);
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.terminal.end();
        let registry = self.poll.registry();
        slot.close_master(registry);
        if let Some(pidfd) = slot.pidfd.take() {
            let _ = registry.deregister(&mut SourceFd(&pidfd.as_raw_fd()));
        }
        if slot.child.is_none() {
            // Not reaped (no pidfd, or it survived SIGKILL): one last try.
            slot.child = reap(slot.pid, None);
        }
        let status = slot.final_status();
        if let Some(supervisor) = &slot.supervisor {
            supervisor.forget(slot.pid);
        }
        slot.closed = true;
        slot.ended_at.get_or_insert_with(SystemTime::now);
        // (Killed processes that have not left yet are waited for off the reactor's thread.)
        if let Some(cgroup) = slot.cgroup.take() {
            cgroup.remove_without_waiting();
        }
        slot.drop_input();
        slot.queue = VecDeque::new();
        slot.terminal.trim_memory();
        if let Some(closing) = slot.closing.take() {
            slot.closed_reason = Some(closing.reason);
            for reply in closing.replies {
                reply.send(Ok(status));
            }
        }
        self.check_waiters(id);
        if let Some(slot) = self.sessions.get_mut(&id) {
            slot.end_file_recording();
        }
        self.unschedule_session(id);
        self.closed.push_back(id);
        while self.closed.len() > self.config.max_closed_sessions {
            if let Some(old) = self.closed.pop_front() {
                self.sessions.remove(&old);
            }
        }
    }

    /// Closes sessions past their idle timeout or lifetime; schedules the next check.
    pub(super) fn reap_check(&mut self, id: u64) {
        let (idle, lifetime, interval) =
            (self.config.idle_timeout, self.config.max_lifetime, self.config.reaper_interval);
        let Some(slot) = self.sessions.get(&id) else {
            return;
        };
        if slot.closed || slot.closing.is_some() {
            return;
        }
        let now = Instant::now();
        let last_activity = slot.last_input.max(slot.last_output);
        let idle_due = idle.map(|d| (last_activity + d, CloseReason::Idle(d)));
        let life_due = lifetime.map(|d| (slot.started + d, CloseReason::Lifetime(d)));
        let Some((due, reason)) =
            [idle_due, life_due].into_iter().flatten().min_by_key(|(at, _)| *at)
        else {
            return;
        };
        if due <= now {
            self.begin_close(id, reason, None);
        } else {
            // Round up to the reaper's granularity so that deadlines close together share one
            // wake-up.
            let step = interval.as_nanos().max(1);
            let wait = (due - now).as_nanos().div_ceil(step) * step;
            let at = now + Duration::from_nanos(u64::try_from(wait).unwrap_or(u64::MAX));
            self.schedule(at, Timer::Reap(id));
        }
    }
}

/// Reaps the child if it has exited.
fn reap(pid: i32, pidfd: Option<&OwnedFd>) -> Option<ExitStatus> {
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG;
    let id = match pidfd {
        Some(fd) => WaitId::PidFd(fd.as_fd()),
        None => WaitId::Pid(Pid::from_raw(pid)?),
    };
    let status = rustix::process::waitid(id, options).ok()??;
    if let Some(code) = status.exit_status() {
        Some(ExitStatus::Code(code))
    } else {
        status.terminating_signal().map(ExitStatus::Signal)
    }
}

/// Whether the number `sid`, the pid of a program that started at `started` (clock ticks of
/// `/proc/PID/stat`), now names a process that started at another time. The kernel gives the
/// number out again only once no process holds it as its pid, group or session: none of that
/// program's POSIX session is left. (Gone from `/proc` says nothing: the session outlives its
/// leader.)
fn sid_reused(sid: i32, started: Option<u64>) -> bool {
    started.is_some() && procfs::read_stat(sid).is_ok_and(|stat| stat.starttime != started)
}

/// Whether the number `sid` is held by the program that started at `started` (clock ticks of
/// `/proc/PID/stat`; any start when unknown): its entry (alive, or a zombie not reaped yet)
/// shows that start, or `/proc` cannot answer. Only then is the group of that number
/// signalled when none of its processes is listed: once the program is reaped, a live
/// member of its group is listed (by its cgroup or a scan), and a number gone from `/proc`
/// may be given out again between the look and the signal, to a process leading a group of
/// that number (see [`sid_reused`]).
fn holds_its_number(sid: i32, started: Option<u64>) -> bool {
    match procfs::read_stat(sid) {
        Ok(stat) => started.is_none() || stat.starttime == started,
        Err(err) => !procfs::is_gone(&err),
    }
}

/// Sends `signals` to every process group listed of the POSIX session `sid`, led by a program
/// that started at `started` (and to the group of that number while the program holds it: see
/// [`holds_its_number`]; without a cgroup, the session is listed by its number: not once
/// another process took it, see [`sid_reused`]), every process in its `cgroup`, and the
/// processes of the session found `outside` the cgroup and their groups.
fn signal_all(
    sid: i32,
    started: Option<u64>,
    cgroup: Option<&crate::os::cgroup::Cgroup>,
    outside: &[procfs::ProcStat],
    signals: &[Signal],
) {
    if cgroup.is_some() || !sid_reused(sid, started) {
        signal_session(sid, cgroup, holds_its_number(sid, started), signals);
    }
    signal_groups(outside, signals);
    if let Some(cgroup) = cgroup {
        for pid in cgroup.pids() {
            for &signal in signals {
                kill(pid, signal);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::os::procfs::scan_count;
    use crate::{Engine, SpawnSpec, Until};

    /// A cgroup session's close scans `/proc` (1 ms per 100 processes, which no session's
    /// output or wait would be served during) on a thread of its own, never on the reactor's:
    /// 10 sessions that exit, 10 closed and one whose program left its cgroup took 21 scans
    /// there.
    #[test]
    fn a_cgroup_sessions_close_scans_proc_off_the_reactors_thread() {
        let engine = Engine::new(crate::Config::default()).unwrap();
        let long = Duration::from_secs(30);
        let first = engine.spawn(SpawnSpec::shell("exit 0")).unwrap();
        if !first.info().unwrap().containment.starts_with("cgroup") {
            eprintln!("skipped: sessions get no cgroup here");
            return;
        }
        first.wait(Until::exit(), long).unwrap();
        first.close().unwrap();
        let reactor = engine.reactor_thread().unwrap();
        let before = scan_count::of(reactor);
        for _ in 0..10 {
            let session = engine.spawn(SpawnSpec::shell("exit 0")).unwrap();
            assert!(session.wait(Until::exit(), long).unwrap().is_held());
            session.close().unwrap();
        }
        for _ in 0..10 {
            let session = engine.spawn(SpawnSpec::shell("echo up; read x")).unwrap();
            assert!(session.wait(Until::text("up"), long).unwrap().is_held());
            session.close().unwrap();
        }
        // A program that leaves its cgroup (root may) and outlives the hangup: the cgroup is
        // empty from the start of the close to its program's end (SIGTERM, after 500 ms).
        let leaver = engine
            .spawn(SpawnSpec::shell(
                "m=$(awk '/ - cgroup2 / {print $5; exit}' /proc/self/mountinfo); \
                 c=$(sed -n 's/^0:://p' /proc/self/cgroup); \
                 echo $$ >\"$m${c%/*}/cgroup.procs\" && echo left; trap '' HUP; echo up; read x",
            ))
            .unwrap();
        assert!(leaver.wait(Until::text("up"), long).unwrap().is_held());
        let closes = match leaver.screen().unwrap().contains("left") {
            true => 21,
            false => 20,
        };
        leaver.close().unwrap();
        let scans = scan_count::of(reactor) - before;
        assert_eq!(scans, 0, "{scans} scans of /proc on the reactor's thread for {closes} closes");
    }

    /// A program that exits and is reaped by its supervisor before its session is attached
    /// (`setsid daemon & exit`) has its start time known all the same, as the close's guard
    /// against its number's reuse needs (see `sid_reused`): the supervisor reads it before
    /// the program can be reaped. Read at the attach, it was unknown, and the guard did
    /// nothing. The reactor is held, once the spawn has reserved its id, until the program
    /// is gone from `/proc`, so that the attach comes after.
    #[test]
    fn a_program_reaped_before_its_session_is_attached_has_its_start_time() {
        use std::time::Instant;

        let engine = std::sync::Arc::new(Engine::new(crate::Config::default()).unwrap());
        let file = std::env::temp_dir().join(format!("termloom-early-{}", std::process::id()));
        for _ in 0..5 {
            let _ = std::fs::remove_file(&file);
            let script = format!("echo $$ >{0}.new && mv {0}.new {0}", file.display());
            let spawning = {
                let engine = engine.clone();
                std::thread::spawn(move || engine.spawn(SpawnSpec::new("sh").args(["-c", &script])))
            };
            // Held once the id is reserved, the attach not yet made: until the program is
            // gone (reaped by its supervisor).
            let mut held = None;
            while held.is_none() && !spawning.is_finished() {
                let watched = file.clone();
                held = engine
                    .client()
                    .call(move |r| {
                        if r.reserved == 0 {
                            return Ok(None);
                        }
                        let deadline = Instant::now() + Duration::from_secs(30);
                        while Instant::now() < deadline {
                            let pid = std::fs::read_to_string(&watched).unwrap_or_default();
                            if let Ok(pid) = pid.trim().parse::<i32>()
                                && !std::path::Path::new(&format!("/proc/{pid}")).exists()
                            {
                                return Ok(Some(true));
                            }
                            std::thread::yield_now();
                        }
                        Ok(Some(false))
                    })
                    .unwrap();
            }
            let session = spawning.join().unwrap().unwrap();
            let _ = std::fs::remove_file(&file);
            match held {
                Some(true) => {}
                Some(false) => panic!("the program did not end within 30 s"),
                None => continue, // attached before the reactor could be held: again
            }
            let id = session.id().0;
            let slot = engine
                .client()
                .call(move |r| {
                    Ok(r.sessions.get(&id).map(|s| (s.started_ticks, s.supervisor.is_some())))
                })
                .unwrap();
            session.close().unwrap();
            let (ticks, supervised) = slot.expect("the session");
            if !supervised {
                eprintln!("skipped: no supervisor here");
                return;
            }
            assert!(ticks.is_some(), "a program reaped before its attach has no start time");
            return;
        }
        panic!("the reactor could not be held between the spawn's reservation and its attach");
    }
}
