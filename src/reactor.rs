//! The reactor: one thread, one `mio::Poll`, every session.
//!
//! Callers never touch session state. They send closures ([`Request`]) over a bounded
//! crossbeam channel and wake the poll with a `mio::Waker`; the reactor runs each closure on
//! its own thread with `&mut Reactor`, and the closure replies on a channel of its own. The
//! poll sleeps without a timeout unless a timer is due (a wait's deadline, a close's grace, the
//! drain after an exit, a synchronized update's expiry, the quiet window): with every session
//! idle the thread makes no wake-ups at all.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender};
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

use crate::config::Config;
use crate::emulator::{Emulator, MarkAt};
use crate::error::{Error, Result};
use crate::procfs;
use crate::screen::Screen;
use crate::session::{ExitStatus, SessionId, SessionInfo, SessionState};
use crate::transcript::{Output, Transcript};
use crate::wait::{Fired, Until, WaitOutcome};

/// Work for the reactor thread.
pub(crate) type Request = Box<dyn FnOnce(&mut Reactor) + Send>;

/// Token of the waker.
pub(crate) const WAKER: Token = Token(usize::MAX);
/// Bytes read from one session before the reactor turns to the others.
const READ_TURN: usize = 1 << 20;
/// Size of the shared read buffer.
const READ_BUFFER: usize = 64 << 10;
/// How long `close` keeps checking after SIGKILL before it reports survivors.
const KILL_WAIT: Duration = Duration::from_secs(5);

fn master_token(id: u64) -> Token {
    Token((id as usize) << 1)
}

fn child_token(id: u64) -> Token {
    Token(((id as usize) << 1) | 1)
}

/// Something the reactor must do at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    /// A wait's timeout.
    Wait { session: u64, waiter: u64 },
    /// Report the exit even though other processes still hold the terminal.
    ExitDrain(u64),
    /// Check whether a closing session's processes are gone.
    CloseCheck(u64),
    /// A synchronized update may have expired.
    Sync(u64),
    /// The session may have gone quiet.
    Quiet(u64),
}

/// A caller blocked in `wait`.
struct Waiter {
    id: u64,
    until: Until,
    /// Settled transcript lines before this number were searched already.
    searched: u64,
    started: Instant,
    reply: Sender<Result<WaitOutcome>>,
}

/// How far a close has come.
struct Closing {
    started: Instant,
    killed: Option<Instant>,
    backoff: Duration,
    replies: Vec<Sender<Result<ExitStatus>>>,
}

/// The parts of a running program the reactor holds.
pub(crate) struct Spawned {
    pub pid: i32,
    pub master: OwnedFd,
    pub pidfd: Option<OwnedFd>,
    pub program: String,
    pub cols: u16,
    pub rows: u16,
}

/// One session as the reactor sees it.
struct Slot {
    id: SessionId,
    pid: i32,
    program: String,
    master: Option<OwnedFd>,
    pidfd: Option<OwnedFd>,
    emulator: Emulator,
    transcript: Transcript,
    queue: VecDeque<u8>,
    want_write: bool,
    waiters: Vec<Waiter>,
    /// The program's status once it was reaped.
    child: Option<ExitStatus>,
    /// Set when the exit was reported (all output read).
    exit: Option<ExitStatus>,
    closing: Option<Closing>,
    closed: bool,
    marks: Vec<MarkAt>,
    replies_dropped: u64,
    started_at: SystemTime,
    started: Instant,
    last_output: Instant,
    last_input: Instant,
    bytes_in: u64,
    bytes_out: u64,
    sync_timer: Option<Instant>,
    quiet_armed: bool,
}

impl Slot {
    fn state(&self) -> SessionState {
        if self.closed {
            SessionState::Closed
        } else if let Some(status) = self.exit {
            SessionState::Exited(status)
        } else {
            SessionState::Running
        }
    }

    fn info(&self) -> SessionInfo {
        let (cols, rows) = self.emulator.size();
        SessionInfo {
            id: self.id,
            pid: self.pid,
            program: self.program.clone(),
            cols,
            rows,
            state: self.state(),
            started_at: self.started_at,
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            idle: self.last_input.max(self.last_output).elapsed(),
        }
    }
}

/// The reactor's state; lives on its thread only.
pub(crate) struct Reactor {
    poll: Poll,
    requests: Receiver<Request>,
    config: Arc<Config>,
    sessions: HashMap<u64, Slot>,
    /// Closed sessions, oldest first (tombstones).
    closed: VecDeque<u64>,
    reserved: usize,
    next_id: u64,
    timers: BinaryHeap<Reverse<(Instant, Timer)>>,
    next_waiter: u64,
    buffer: Box<[u8]>,
    /// Sessions that may have more to read after their turn.
    backlog: VecDeque<u64>,
    shutdown: Option<Sender<()>>,
}

impl Reactor {
    pub(crate) fn new(poll: Poll, requests: Receiver<Request>, config: Arc<Config>) -> Self {
        Reactor {
            poll,
            requests,
            config,
            sessions: HashMap::new(),
            closed: VecDeque::new(),
            reserved: 0,
            next_id: 1,
            timers: BinaryHeap::new(),
            next_waiter: 0,
            buffer: vec![0; READ_BUFFER].into_boxed_slice(),
            backlog: VecDeque::new(),
            shutdown: None,
        }
    }

    /// Runs until shut down (or until every request sender is gone).
    pub(crate) fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = if self.backlog.is_empty() {
                self.timers
                    .peek()
                    .map(|Reverse((at, _))| at.saturating_duration_since(Instant::now()))
            } else {
                Some(Duration::ZERO)
            };
            if let Err(err) = self.poll.poll(&mut events, timeout)
                && err.kind() != io::ErrorKind::Interrupted
            {
                eprintln!("termloom: poll failed: {err}");
                self.begin_shutdown(None);
            }
            for event in events.iter() {
                let token = event.token();
                if token == WAKER {
                    continue;
                }
                let id = (token.0 >> 1) as u64;
                if token.0 & 1 == 1 {
                    self.child_exited(id);
                } else {
                    if event.is_readable() || event.is_read_closed() || event.is_error() {
                        self.read_output(id);
                    }
                    if event.is_writable() {
                        self.flush(id);
                    }
                }
            }
            if !self.take_requests() {
                // Every handle is gone: nobody can ask for a shutdown any more.
                self.begin_shutdown(None);
            }
            for id in std::mem::take(&mut self.backlog) {
                self.read_output(id);
            }
            self.fire_timers();
            if self.shutdown.is_some() && self.live() == 0 {
                if let Some(reply) = self.shutdown.take() {
                    let _ = reply.send(());
                }
                return;
            }
        }
    }

    /// Runs queued requests; false when the channel is disconnected.
    fn take_requests(&mut self) -> bool {
        loop {
            match self.requests.try_recv() {
                Ok(request) => request(self),
                Err(crossbeam_channel::TryRecvError::Empty) => return true,
                Err(crossbeam_channel::TryRecvError::Disconnected) => return false,
            }
        }
    }

    fn live(&self) -> usize {
        self.sessions.len() - self.closed.len()
    }

    fn schedule(&mut self, at: Instant, timer: Timer) {
        self.timers.push(Reverse((at, timer)));
    }

    fn fire_timers(&mut self) {
        let now = Instant::now();
        while let Some(Reverse((at, timer))) = self.timers.peek().copied() {
            if at > now {
                break;
            }
            self.timers.pop();
            match timer {
                Timer::Wait { session, waiter } => self.wait_timed_out(session, waiter),
                Timer::ExitDrain(id) => self.report_exit(id),
                Timer::CloseCheck(id) => self.close_check(id),
                Timer::Sync(id) => self.sync_expired(id),
                Timer::Quiet(id) => self.quiet_check(id),
            }
        }
    }

    // ----- sessions ------------------------------------------------------------------------

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// Reserves a session id, refusing beyond `max_sessions`.
    pub(crate) fn reserve(&mut self) -> Result<SessionId> {
        if self.shutdown.is_some() {
            return Err(Error::EngineStopped);
        }
        if self.live() + self.reserved >= self.config.max_sessions {
            return Err(Error::TooManySessions {
                limit: self.config.max_sessions,
            });
        }
        self.reserved += 1;
        let id = self.next_id;
        self.next_id += 1;
        Ok(SessionId(id))
    }

    /// Gives back a reservation whose spawn failed.
    pub(crate) fn release(&mut self) {
        self.reserved -= 1;
    }

    /// Takes a started program into the reactor.
    pub(crate) fn attach(&mut self, id: SessionId, spawned: Spawned) -> Result<()> {
        self.reserved -= 1;
        let Spawned {
            pid,
            master,
            pidfd,
            program,
            cols,
            rows,
        } = spawned;
        let registry = self.poll.registry();
        registry
            .register(
                &mut SourceFd(&master.as_raw_fd()),
                master_token(id.0),
                Interest::READABLE,
            )
            .map_err(|e| Error::io("registering the terminal with the poll", e))?;
        if let Some(pidfd) = &pidfd {
            registry
                .register(
                    &mut SourceFd(&pidfd.as_raw_fd()),
                    child_token(id.0),
                    Interest::READABLE,
                )
                .map_err(|e| Error::io("registering the child with the poll", e))?;
        }
        let now = Instant::now();
        let config = &self.config;
        self.sessions.insert(
            id.0,
            Slot {
                id,
                pid,
                program,
                master: Some(master),
                pidfd,
                emulator: Emulator::new(cols, rows),
                transcript: Transcript::new(
                    config.scrollback_lines,
                    config.scrollback_bytes,
                    config.max_read_bytes,
                ),
                queue: VecDeque::new(),
                want_write: false,
                waiters: Vec::new(),
                child: None,
                exit: None,
                closing: None,
                closed: false,
                marks: Vec::new(),
                replies_dropped: 0,
                started_at: SystemTime::now(),
                started: now,
                last_output: now,
                last_input: now,
                bytes_in: 0,
                bytes_out: 0,
                sync_timer: None,
                quiet_armed: false,
            },
        );
        // Output may already be waiting.
        self.read_output(id.0);
        Ok(())
    }

    fn slot(&mut self, id: SessionId) -> Result<&mut Slot> {
        self.sessions
            .get_mut(&id.0)
            .ok_or(Error::UnknownSession(id))
    }

    /// Every session, live ones and tombstones.
    pub(crate) fn list(&self) -> Vec<SessionInfo> {
        let mut all: Vec<SessionInfo> = self.sessions.values().map(Slot::info).collect();
        all.sort_by_key(|info| info.id);
        all
    }

    /// One session's information.
    pub(crate) fn info(&mut self, id: SessionId) -> Result<SessionInfo> {
        Ok(self.slot(id)?.info())
    }

    // ----- input -------------------------------------------------------------------------

    /// Queues bytes for the program and writes what the terminal takes now.
    pub(crate) fn send(&mut self, id: SessionId, bytes: &[u8]) -> Result<()> {
        let capacity = self.config.write_queue_bytes;
        let slot = self.slot(id)?;
        if slot.closed || slot.closing.is_some() {
            return Err(Error::SessionClosed(id));
        }
        if slot.exit.is_some() || slot.master.is_none() {
            return Err(Error::SessionExited(id));
        }
        if slot.queue.len() + bytes.len() > capacity {
            return Err(Error::QueueFull {
                session: id,
                queued: slot.queue.len(),
                attempted: bytes.len(),
                capacity,
            });
        }
        slot.queue.extend(bytes);
        slot.last_input = Instant::now();
        self.flush(id.0);
        Ok(())
    }

    /// The terminal's own replies to queries; dropped (and counted) if the queue is full.
    fn queue_replies(&mut self, id: u64, replies: &[u8]) {
        if replies.is_empty() {
            return;
        }
        let capacity = self.config.write_queue_bytes;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.queue.len() + replies.len() > capacity {
            slot.replies_dropped += 1;
            return;
        }
        slot.queue.extend(replies);
        self.flush(id);
    }

    /// Writes queued input until the terminal would block; WRITABLE interest only while
    /// something is left.
    fn flush(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let Some(master) = &slot.master else {
            slot.queue.clear();
            return;
        };
        while !slot.queue.is_empty() {
            let (front, _) = slot.queue.as_slices();
            match rustix::io::write(master, front) {
                Ok(n) => {
                    slot.queue.drain(..n);
                    slot.bytes_in += n as u64;
                }
                Err(Errno::INTR) => continue,
                Err(Errno::AGAIN) => break,
                Err(_) => {
                    // The terminal is gone; the exit will be reported through the child.
                    slot.queue.clear();
                    break;
                }
            }
        }
        let want = !slot.queue.is_empty();
        if want != slot.want_write {
            let interest = if want {
                Interest::READABLE | Interest::WRITABLE
            } else {
                Interest::READABLE
            };
            let fd = master.as_raw_fd();
            if self
                .poll
                .registry()
                .reregister(&mut SourceFd(&fd), master_token(id), interest)
                .is_ok()
            {
                slot.want_write = want;
            }
        }
    }

    // ----- output ------------------------------------------------------------------------

    /// Reads what the program wrote (up to one turn's worth), feeds it to the emulator and
    /// checks the waiters.
    fn read_output(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let Some(master) = &slot.master else { return };
        let mut total = 0;
        let mut hung_up = false;
        let mut replies = Vec::new();
        loop {
            match rustix::io::read(master, &mut self.buffer[..]) {
                Ok(0) => {
                    hung_up = true;
                    break;
                }
                Ok(n) => {
                    slot.emulator.feed(
                        &self.buffer[..n],
                        &mut slot.transcript,
                        &mut replies,
                        &mut slot.marks,
                    );
                    slot.bytes_out += n as u64;
                    total += n;
                    if total >= READ_TURN {
                        self.backlog.push_back(id);
                        break;
                    }
                }
                Err(Errno::INTR) => continue,
                Err(Errno::AGAIN) => break,
                // EIO: every process closed the terminal.
                Err(_) => {
                    hung_up = true;
                    break;
                }
            }
        }
        if total > 0 {
            let now = Instant::now();
            slot.last_output = now;
            if let Some(at) = slot.emulator.sync_deadline()
                && slot.sync_timer != Some(at)
            {
                slot.sync_timer = Some(at);
                self.schedule(at, Timer::Sync(id));
            }
            let slot = self.sessions.get_mut(&id).expect("slot exists");
            if !slot.quiet_armed {
                slot.quiet_armed = true;
                let at = now + self.config.quiet;
                self.schedule(at, Timer::Quiet(id));
            }
            self.queue_replies(id, &replies);
            self.check_waiters(id);
        }
        if hung_up {
            self.hang_up(id);
        }
    }

    /// Every process closed the terminal: stop watching it.
    fn hang_up(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if let Some(master) = slot.master.take() {
            let _ = self
                .poll
                .registry()
                .deregister(&mut SourceFd(&master.as_raw_fd()));
        }
        slot.queue.clear();
        if slot.child.is_some() {
            self.report_exit(id);
        }
    }

    fn sync_expired(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.sync_timer = None;
        match slot.emulator.sync_deadline() {
            Some(at) if at <= Instant::now() => {}
            Some(at) => {
                slot.sync_timer = Some(at);
                self.schedule(at, Timer::Sync(id));
                return;
            }
            None => return,
        }
        let mut replies = Vec::new();
        slot.emulator.stop_sync(&mut slot.transcript, &mut replies);
        self.queue_replies(id, &replies);
        self.check_waiters(id);
    }

    fn quiet_check(&mut self, id: u64) {
        let quiet = self.config.quiet;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let due = slot.last_output + quiet;
        if due > Instant::now() {
            self.schedule(due, Timer::Quiet(id));
            return;
        }
        slot.quiet_armed = false;
        slot.emulator.trim_memory();
    }

    /// The unread transcript.
    pub(crate) fn read(&mut self, id: SessionId, max_bytes: Option<usize>) -> Result<Output> {
        let limit = self.config.max_read_bytes;
        let slot = self.slot(id)?;
        let tail = slot.emulator.tail(&slot.transcript);
        let max = max_bytes.unwrap_or(limit).clamp(4, limit);
        Ok(slot.transcript.read(tail.as_deref(), max))
    }

    /// The retained transcript, up to `max_bytes` of its end.
    pub(crate) fn scrollback(&mut self, id: SessionId, max_bytes: usize) -> Result<(String, bool)> {
        let slot = self.slot(id)?;
        let tail = slot.emulator.tail(&slot.transcript);
        Ok(slot.transcript.retained(tail.as_deref(), max_bytes))
    }

    /// The screen.
    pub(crate) fn screen(&mut self, id: SessionId) -> Result<Screen> {
        Ok(self.slot(id)?.emulator.screen())
    }

    /// Resizes the grid and the kernel's terminal.
    pub(crate) fn resize(&mut self, id: SessionId, cols: u16, rows: u16) -> Result<()> {
        crate::config::check_size(cols, rows)?;
        let slot = self.slot(id)?;
        if slot.closed {
            return Err(Error::SessionClosed(id));
        }
        slot.emulator.resize(cols, rows, &mut slot.transcript);
        if let Some(master) = &slot.master {
            crate::pty::set_size(master.as_fd(), cols, rows)
                .map_err(|e| Error::io("setting the terminal size", e))?;
        }
        self.check_waiters(id.0);
        Ok(())
    }

    // ----- waiting ----------------------------------------------------------------------

    /// Registers a waiter; it is answered when its condition holds, the session ends or the
    /// timeout passes.
    pub(crate) fn wait(
        &mut self,
        id: SessionId,
        until: Until,
        timeout: Duration,
        reply: Sender<Result<WaitOutcome>>,
    ) {
        if let Err(err) = until.validate().and_then(|_| self.slot(id).map(|_| ())) {
            let _ = reply.send(Err(err));
            return;
        }
        let waiter = self.next_waiter;
        self.next_waiter += 1;
        let now = Instant::now();
        let slot = self.sessions.get_mut(&id.0).expect("checked above");
        slot.waiters.push(Waiter {
            id: waiter,
            until,
            searched: slot.transcript.read_line(),
            started: now,
            reply,
        });
        self.schedule(
            now + timeout,
            Timer::Wait {
                session: id.0,
                waiter,
            },
        );
        self.check_waiters(id.0);
    }

    /// Answers every waiter whose condition holds (or whose session ended).
    fn check_waiters(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.waiters.is_empty() {
            return;
        }
        let tail = if slot.waiters.iter().any(|w| w.until.needs_transcript()) {
            slot.emulator.tail(&slot.transcript)
        } else {
            None
        };
        let screen = if slot.waiters.iter().any(|w| w.until.needs_screen()) {
            Some(slot.emulator.screen())
        } else {
            None
        };
        let transcript = &slot.transcript;
        let end = transcript.end();
        let ended = if slot.closed {
            Some(Fired::Closed)
        } else {
            slot.exit.map(|status| Fired::Exited { status })
        };
        slot.waiters.retain_mut(|waiter| {
            let mut fired = None;
            if waiter.until.needs_transcript() {
                let from = waiter.searched.max(transcript.first());
                fired = (from..end)
                    .find_map(|n| waiter.until.match_line(n, transcript.line(n).unwrap_or("")));
                waiter.searched = end;
                if fired.is_none()
                    && let Some(tail) = &tail
                {
                    fired = tail
                        .iter()
                        .enumerate()
                        .find_map(|(i, line)| waiter.until.match_line(end + i as u64, line));
                }
            }
            if fired.is_none()
                && let Some(screen) = &screen
            {
                fired = waiter.until.match_screen(screen);
            }
            let fired = match (fired, &ended) {
                (Some(m), _) => Fired::Matched(m),
                (None, Some(end)) => end.clone(),
                (None, None) => return true,
            };
            let _ = waiter.reply.send(Ok(WaitOutcome {
                fired,
                elapsed: waiter.started.elapsed(),
                screen: None,
            }));
            false
        });
    }

    fn wait_timed_out(&mut self, id: u64, waiter: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let Some(index) = slot.waiters.iter().position(|w| w.id == waiter) else {
            return;
        };
        let waiter = slot.waiters.swap_remove(index);
        let _ = waiter.reply.send(Ok(WaitOutcome {
            fired: Fired::Timeout,
            elapsed: waiter.started.elapsed(),
            screen: Some(slot.emulator.screen()),
        }));
    }

    // ----- exit and close -----------------------------------------------------------------

    /// The pidfd is readable: reap the child, read the rest of its output, then report.
    fn child_exited(&mut self, id: u64) {
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

    fn report_exit(&mut self, id: u64) {
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
        slot.queue.clear();
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
        slot.queue.clear();
        signal_session(slot.pid, &[Signal::HUP, Signal::CONT, Signal::TERM]);
        self.close_check(id.0);
    }

    /// Checks a closing session: finished when the program is reaped and no process of the
    /// session is left; escalates to SIGKILL after the grace period.
    fn close_check(&mut self, id: u64) {
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

    fn finish_close(&mut self, id: u64) {
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
