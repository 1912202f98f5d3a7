//! Exit, close and shutdown: reaping the program and ending every process of a session.

use super::*;

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
            let _ = self
                .poll
                .registry()
                .deregister(&mut SourceFd(&pidfd.as_raw_fd()));
        }
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
        if slot.exit.is_some() || slot.closed {
            return;
        }
        let Some(status) = slot.child else { return };
        if slot.master.is_some() {
            self.read_output(id);
        }
        let slot = self.sessions.get_mut(&id).expect("slot exists");
        slot.exit = Some(status);
        slot.drop_input();
        self.check_waiters(id);
    }

    /// Starts closing a session: SIGHUP, SIGCONT and SIGTERM to all its process groups, then
    /// SIGKILL after the grace period. `reply` gets the exit status when nothing is left.
    pub(crate) fn close(&mut self, id: SessionId, reply: Sender<Result<ExitStatus>>) {
        let slot = match self.slot(id) {
            Ok(slot) => slot,
            Err(err) => {
                let _ = reply.send(Err(err));
                return;
            }
        };
        if slot.closed {
            let status = slot.exit.or(slot.child).unwrap_or(ExitStatus::Signal(9));
            let _ = reply.send(Ok(status));
            return;
        }
        if let Some(closing) = &mut slot.closing {
            closing.replies.push(reply);
            return;
        }
        slot.closing = Some(Closing {
            started: Instant::now(),
            killed: None,
            backoff: Duration::from_millis(1),
            replies: vec![reply],
        });
        slot.drop_input();
        signal_session(slot.pid, &[Signal::HUP, Signal::CONT, Signal::TERM]);
        self.close_check(id.0);
    }

    /// Checks a closing session: finished when the program is reaped and no process of the
    /// session is left; escalates to SIGKILL after the grace period.
    pub(super) fn close_check(&mut self, id: u64) {
        let grace = self.config.close_grace;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let Some(closing) = &mut slot.closing else {
            return;
        };
        if slot.child.is_none()
            && let Some(status) = reap(slot.pid, slot.pidfd.as_ref())
        {
            slot.child = Some(status);
        }
        let survivors = procfs::live_session_processes(slot.pid);
        let now = Instant::now();
        if survivors.is_empty() && slot.child.is_some() {
            self.finish_close(id);
            return;
        }
        let next = match closing.killed {
            None if now >= closing.started + grace => {
                signal_session(slot.pid, &[Signal::KILL]);
                for process in &survivors {
                    kill(process.pid, Signal::KILL);
                }
                closing.killed = Some(now);
                closing.backoff = Duration::from_millis(1);
                now + closing.backoff
            }
            None => (now + closing.backoff).min(closing.started + grace),
            Some(killed) if now >= killed + KILL_WAIT => {
                eprintln!(
                    "termloom: session {id}: {} process(es) survived SIGKILL: {:?}",
                    survivors.len(),
                    survivors.iter().map(|p| p.pid).collect::<Vec<_>>()
                );
                self.finish_close(id);
                return;
            }
            Some(_) => {
                for process in &survivors {
                    kill(process.pid, Signal::KILL);
                }
                now + closing.backoff
            }
        };
        closing.backoff = (closing.backoff * 2).min(Duration::from_millis(50));
        self.schedule(next, Timer::CloseCheck(id));
    }

    pub(super) fn finish_close(&mut self, id: u64) {
        self.read_output(id);
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let registry = self.poll.registry();
        if let Some(master) = slot.master.take() {
            let _ = registry.deregister(&mut SourceFd(&master.as_raw_fd()));
        }
        if let Some(pidfd) = slot.pidfd.take() {
            let _ = registry.deregister(&mut SourceFd(&pidfd.as_raw_fd()));
        }
        let status = slot.exit.or(slot.child).unwrap_or(ExitStatus::Signal(9));
        slot.exit.get_or_insert(status);
        slot.closed = true;
        slot.drop_input();
        slot.queue = VecDeque::new();
        slot.emulator.trim_memory();
        for reply in slot.closing.take().map(|c| c.replies).unwrap_or_default() {
            let _ = reply.send(Ok(status));
        }
        self.check_waiters(id);
        self.closed.push_back(id);
        while self.closed.len() > self.config.max_closed_sessions {
            if let Some(old) = self.closed.pop_front() {
                self.sessions.remove(&old);
            }
        }
    }

    /// Closes every session, then stops the loop and answers `reply`.
    pub(crate) fn begin_shutdown(&mut self, reply: Option<Sender<()>>) {
        let ids: Vec<u64> = self
            .sessions
            .iter()
            .filter(|(_, s)| !s.closed)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let (tx, _rx) = crossbeam_channel::bounded(1);
            self.close(SessionId(id), tx);
        }
        let (tx, _) = crossbeam_channel::bounded(1);
        self.shutdown = Some(reply.unwrap_or(tx));
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

fn kill(pid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// Sends `signals` to every process group of the POSIX session led by `sid`.
fn signal_session(sid: i32, signals: &[Signal]) {
    let processes = procfs::session_processes(sid);
    let mut groups = procfs::process_groups(&processes);
    if !groups.contains(&sid) {
        groups.push(sid);
    }
    for signal in signals {
        for group in &groups {
            if let Some(group) = Pid::from_raw(*group) {
                let _ = rustix::process::kill_process_group(group, *signal);
            }
        }
    }
}
