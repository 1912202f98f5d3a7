//! The reactor: one thread, one `mio::Poll`, every session.
//!
//! Callers never touch session state. They send closures ([`Request`]) over a bounded
//! crossbeam channel and wake the poll with a `mio::Waker`; the reactor runs each closure on
//! its own thread with `&mut Reactor`, and the closure replies on a channel of its own. The
//! poll sleeps without a timeout unless a timer is due (a wait's deadline, a close's grace, the
//! drain after an exit, a synchronized update's expiry, the quiet window): with every session
//! idle the thread makes no wake-ups at all.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender};
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::os::procfs;
use crate::os::supervisor::Supervisor;
use crate::term::Terminal;
use crate::term::emulator::Turn;
use crate::term::screen::Screen;
use crate::term::transcript::ReadMark;
use crate::types::{CommandResult, Output, Scrollback};
use crate::types::{ExitStatus, SessionId, SessionInfo, SessionState};
use crate::wait::{Fired, Until, WaitOutcome};

mod cadence;
mod client;
mod frames_group;
mod input_wait;
mod lifecycle;
mod open_line;
mod outside_scan;
mod reply;
mod requests;
mod secret;
mod terminal_io;
mod waiters;

pub(crate) use crate::os::spawn::Spawned;
pub(crate) use client::{Client, Stop};
pub use reply::EngineFuture;
pub(crate) use reply::Reply;
#[cfg(feature = "testing")]
pub(crate) use requests::Noted;
pub(crate) use requests::{PasteVerdict, Typing};
pub(crate) use waiters::UnmarkedReader;

/// Work for the reactor thread.
pub(crate) type Request = Box<dyn FnOnce(&mut Reactor) + Send>;

/// Token of the waker.
pub(crate) const WAKER: Token = Token(usize::MAX);
/// Work (in cells, see [`crate::term::scan`]) done for one session before the reactor turns to the
/// others: fairness is counted in work, not in bytes read.
pub(crate) const TURN_WORK: usize = 16 << 10;
/// Size of the shared read buffer.
const READ_BUFFER: usize = 64 << 10;

/// How many bytes a turn with `budget` work left reads from a terminal at once: about as much
/// as the budget allows (a byte of plain text is a cell of work), so little is left pending.
pub(crate) fn read_size(budget: usize) -> usize {
    READ_BUFFER.min(budget.max(4 << 10))
}
/// How long `close` keeps checking after SIGKILL before it reports survivors.
const KILL_WAIT: Duration = Duration::from_secs(5);
/// How often a close sends its program SIGHUP again while it runs, until `close_grace`: a
/// hangup lands once, and a program that took it just before it blocked waiting for a key
/// (bash, between drawing its prompt and readline's wait for a key) would sleep through it.
const HUP_AGAIN: Duration = Duration::from_millis(100);
/// How long a close waits after its SIGHUP before it sends SIGTERM to whatever still runs: a
/// hangup alone is what a closing terminal sends, and a program already on its way out for it
/// may take a SIGTERM worse (gdb's Python printed a `KeyboardInterrupt` traceback as it
/// exited, read as the closed session's last output).
const TERM_AFTER: Duration = Duration::from_millis(500);

/// How often a closing session's POSIX session is looked for outside its cgroup again while
/// processes were found there (a scan of all of `/proc`, whose cost is the host's, not the
/// session's): the close ends at most this long after the last of them.
const RESCAN_OUTSIDE: Duration = Duration::from_millis(250);
/// How long a `run_command`'s shell has to mark its command's start before a shell back to
/// reading is taken to wait for the rest of the line, and how often the command is looked at
/// meanwhile (see `Reactor::command_check`); the first look, after [`COMMAND_INPUT_CHECK`],
/// finds a command that asks for input at once.
const COMMAND_START_CHECK: Duration = Duration::from_millis(250);
/// How often a running command of `run_command`, quiet for `Config::input_settle`, is probed
/// for a wait for input at the terminal (see `Reactor::check_command_input`).
const COMMAND_INPUT_CHECK: Duration = Duration::from_millis(50);

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
    /// A look after output that was put off because the previous one was costly.
    Look(u64),
    /// A waiter's time-based condition may hold now.
    Recheck { session: u64, waiter: u64 },
    /// A `run_command` timeout.
    Command { session: u64, waiter: u64 },
    /// A look at a running `run_command`: did its line start a command, or leave the shell
    /// waiting for the rest of it; has it ended at a prompt that lost its mark.
    CommandCheck { session: u64, waiter: u64 },
    /// A paste's timeout.
    Paste { session: u64, paste: u64 },
    /// The session may be past its idle timeout or lifetime.
    Reap(u64),
    /// A secret held for the session looks again for a program reading it.
    Secret(u64),
}

impl Timer {
    /// The session the timer is about.
    fn session(&self) -> u64 {
        match *self {
            Timer::Wait { session, .. }
            | Timer::Paste { session, .. }
            | Timer::Recheck { session, .. }
            | Timer::Command { session, .. }
            | Timer::CommandCheck { session, .. } => session,
            Timer::ExitDrain(id)
            | Timer::CloseCheck(id)
            | Timer::Sync(id)
            | Timer::Quiet(id)
            | Timer::Look(id)
            | Timer::Reap(id)
            | Timer::Secret(id) => id,
        }
    }
}

/// A caller blocked in `wait`.
struct Waiter {
    id: u64,
    /// The reader it waits for, whose waits count toward `Config::max_waits_per_reader`.
    reader: u64,
    until: Until,
    /// Settled transcript lines before this number were searched already.
    searched: u64,
    /// How far the echo of the line typed before the wait runs through the settled lines
    /// searched (see [`ReadMark::read_part`]).
    echo_trail: Option<crate::term::echo_layout::EchoTrail>,
    /// What the reader had read when the wait started.
    read: ReadMark,
    started: Instant,
    /// With an instant, the program's asking for a line (`Until::asks_for_line`) counts only
    /// once it printed, or was typed to, since then: the start of a wait, typing nothing, on
    /// a session a person holds (`Slot::held_by_person`), who may answer the question (the
    /// wait ended at once, the program asking first).
    asked_from: Option<Instant>,
    /// When it times out.
    deadline: Instant,
    /// When a re-check of its time-based condition is scheduled.
    recheck: Option<Instant>,
    reply: Reply<Result<WaitOutcome>>,
    /// Typing this wait holds back, and the wait for its answer: the wait is for a shell at
    /// its prompt to read before a key that signals it (see [`Reactor::type_then_wait`]).
    then: Option<Box<Held>>,
}

/// Typing held back until a shell at its prompt reads, and the wait for its answer.
struct Held {
    typing: Typing,
    reader: u64,
    until: Until,
    timeout: Duration,
    reply: Reply<Result<WaitOutcome>>,
}

/// How far a close has come.
struct Closing {
    started: Instant,
    /// When its program was last sent SIGHUP.
    hung_up: Instant,
    /// Whether SIGTERM was sent (see [`TERM_AFTER`]).
    termed: bool,
    /// When the POSIX session was last looked for outside the session's cgroup: by a scan of
    /// `/proc` on another thread (see `outside_scan`), first once the cgroup is empty, then
    /// at most every [`RESCAN_OUTSIDE`] while any process was found there.
    looked_outside: Option<Instant>,
    /// Whether that scan's answer is awaited (the close does not finish before it).
    scanning: bool,
    /// The processes the last scan found outside the cgroup, sorted by pid (each sent every
    /// signal the close had sent): looked for again while any was found.
    outside: Vec<procfs::ProcStat>,
    killed: Option<Instant>,
    backoff: Duration,
    replies: Vec<Reply<Result<ExitStatus>>>,
    reason: CloseReason,
}

impl Closing {
    /// The signals the close has sent so far, in order: what a process found late is sent.
    fn sent(&self) -> Vec<Signal> {
        let mut sent = vec![Signal::HUP, Signal::CONT];
        if self.termed {
            sent.extend([Signal::TERM, Signal::CONT]);
        }
        if self.killed.is_some() {
            sent.push(Signal::KILL);
        }
        sent
    }
}

/// Why a session was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CloseReason {
    /// A caller closed it.
    Caller,
    /// Its program exited; what it left behind was ended.
    Exited,
    /// No input or output for `idle_timeout`.
    Idle(Duration),
    /// Older than `max_lifetime`.
    Lifetime(Duration),
    /// The engine shut down.
    Shutdown,
    /// The supervisor that started it is gone (one of the sessions' programs killed or
    /// stopped it): its processes could no longer be contained nor its exit reported.
    SupervisorLost,
    /// Its terminal emulation panicked (a bug in termloom or alacritty): the session was
    /// ended, every other one goes on.
    EmulationFailed,
    /// termloom's code panicked while carrying out a request for it (a bug): the session was
    /// ended, every other one goes on.
    RequestFailed,
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloseReason::Caller => f.write_str("closed by a caller"),
            CloseReason::Exited => f.write_str("the program exited"),
            CloseReason::Idle(d) => write!(f, "idle for {d:?} (idle_timeout)"),
            CloseReason::Lifetime(d) => write!(f, "older than {d:?} (max_lifetime)"),
            CloseReason::Shutdown => f.write_str("the engine shut down"),
            CloseReason::SupervisorLost => f.write_str(
                "its supervisor was killed or stopped (by a session's program?), so it could no longer be contained; its exit status is unknown",
            ),
            CloseReason::EmulationFailed => f.write_str(
                "its terminal emulation failed (a bug in termloom or alacritty_terminal; please report it)",
            ),
            CloseReason::RequestFailed => f.write_str(
                "termloom failed on a request for it (a bug in termloom; please report it)",
            ),
        }
    }
}

/// A piece of a paste waiting for room in a session's queue.
struct Parked {
    bytes: Vec<u8>,
    /// The paste's id (in the id space of waits, so one canceller serves both).
    paste: u64,
    /// The encoded paste's size.
    total: usize,
    /// When the paste gives up.
    deadline: Instant,
    /// The caller to answer, on the last piece only.
    reply: Option<Reply<Result<()>>>,
}

/// One session as the reactor sees it.
struct Slot {
    id: SessionId,
    /// A person holds the session's keyboard (`termloom attach --takeover`): a wait that
    /// types nothing waits for what they type (see `Waiter::asked_from`).
    held_by_person: bool,
    /// The terminal's foreground process group when output last set xterm's modifyOtherKeys
    /// level (read then, once per turn that set one): the level is the group's, and keys go
    /// under it only while that group is still in front (see `requests::key_modes_of`), so a
    /// level left by a program that died (killed by SIGKILL) does not reach the shell after
    /// it. `None` when the level is 0 or the group could not be read.
    modify_other_keys_group: Option<i32>,
    /// `Terminal::modify_other_keys_sets` when `modify_other_keys_group` was last read.
    modify_other_keys_sets: u32,
    pid: i32,
    /// The program's start time (`starttime` of `/proc/PID/stat`), read as it was taken in:
    /// tells its pid, its session's id, from the same number given to another process.
    started_ticks: Option<u64>,
    program: String,
    master: Option<OwnedFd>,
    /// The device number of the terminal's slave (`/dev/pts/N`), read once as the session
    /// starts: a look for a terminal the session's programs host and relay to compares with
    /// it (it asked the master and `stat`ed `/dev/pts/N` each time, once per keystroke
    /// waited on for input). `None` when it could not be told.
    slave_device: Option<u64>,
    /// The master after the terminal hung up while the program may still run, kept open
    /// until it is reaped (see `hang_up_master`).
    hung_up_master: Option<OwnedFd>,
    pidfd: Option<OwnedFd>,
    terminal: Terminal,
    queue: VecDeque<u8>,
    /// Input waiting for room in `queue`, with the callers to answer.
    parked: VecDeque<Parked>,
    want_write: bool,
    waiters: Vec<Waiter>,
    commands: Vec<waiters::CommandWaiter>,
    screen_hash: u64,
    screen_changed: Instant,
    /// Whether `screen_changed` followed every output since it was set (a waiter tracked the
    /// screen); if not, output since may have changed the screen unnoticed.
    screen_tracked: bool,
    /// The last input-wait probe that found the foreground group waiting (see
    /// `input_wait::input_wait_of`).
    seen_waiting: std::cell::Cell<Option<input_wait::SeenWaiting>>,
    /// The relay outside the session found for a foreground group (the tmux server its
    /// client attached to), or `None` when none was: looked for once per group.
    outside_relay: procfs::OutsideRelay,
    /// A first sighting of the group waiting, to be confirmed by a later probe with no output
    /// in between: keyed by the activity time and the group.
    first_seen_waiting: input_wait::FirstSighting<(Instant, i32)>,
    /// A first sighting of the foreground group asking for a line with nothing else left to
    /// print, to be confirmed by a later look with no output or input in between: keyed by the
    /// activity time (see `input_wait::asks_for_line`).
    first_seen_asking: input_wait::FirstSighting<Instant>,
    /// A first sighting of the foreground group waiting on something a probe does not count
    /// as busy or idle (the world outside, or what /proc cannot tell), which lets a wait for
    /// silence settle: taken only when a later probe, with nothing else seen in between,
    /// sees it again within 200 ms; keyed by the activity time (a resize too) and the group (see
    /// `waiters::check_waiters`).
    first_seen_undecided: input_wait::FirstSighting<(Instant, i32)>,
    /// When a wait's probe last saw `ssh` awaiting its far end's verdict on a password (see
    /// `procfs::awaits_far_end`): a wait for silence counts its quiet from then too (`ssh`
    /// then relaying the terminal before the answer came: the silence while it waited is no
    /// answer).
    busy_seen: Option<Instant>,
    /// The short-timer waits the input-wait probes saw, which tell a monitor's tick.
    timers: crate::os::procfs::TimerSightings,
    /// Input written that the foreground group may not have read yet: the reads it had
    /// completed before it (see `input_wait::input_wait_of`); cleared once it reads.
    unread_input: std::cell::Cell<Option<input_wait::UnreadInput>>,
    /// The process seen reading the terminal, and its threads, by a sighting made between the
    /// last input and the one before it, or before the first of inputs with no output between
    /// them (see `input_wait::ThreadsAtInput`).
    threads_at_input: std::cell::Cell<Option<input_wait::ThreadsAtInput>>,
    last_resize: Instant,
    /// The mouse button pressed and not yet released (wheel notches are never held): motion
    /// is then reported as a drag with it.
    mouse_held: Option<crate::input::mouse::MouseButton>,
    /// The program's status once it was reaped.
    child: Option<ExitStatus>,
    /// The supervisor that started (and reaps) it, which reports its exit.
    supervisor: Option<Arc<Supervisor>>,
    /// Set when the exit was reported (all output read).
    exit: Option<ExitStatus>,
    /// The exit is to be reported once the emulator has fed the output it holds.
    exit_deferred: bool,
    /// In the reactor's backlog: it gets its next turn there, not on a readable event, so a
    /// flooding session gets one turn per round and is never queued twice (its queued input
    /// too, when a turn's writes left some).
    backlogged: bool,
    closing: Option<Closing>,
    closed: bool,
    closed_reason: Option<CloseReason>,
    /// A caller closed it (perhaps after its program exited and the reactor closed it).
    closed_by_caller: bool,
    /// The close began while the program still ran (not reaped), so the close's own signals
    /// ended it: [`Status::ended_by_close`](crate::Status::ended_by_close).
    ended_by_close: bool,
    /// When the next clipboard answers may be made (see `Turn::clipboard_room`).
    clipboard_next: Option<Instant>,
    /// The panic message when the emulation failed.
    failure: Option<String>,
    cgroup: Option<crate::os::cgroup::Cgroup>,
    /// How the session is contained, for `SessionInfo`.
    containment: String,
    /// What the kernel enforces of its confinement, for `SessionInfo`.
    confinement: Option<String>,
    replies_dropped: u64,
    started_at: SystemTime,
    started: Instant,
    /// When the program was found ended or the session closed, whichever came first.
    ended_at: Option<SystemTime>,
    last_output: Instant,
    /// The pace of the output since the last input (a progress bar's redraw a second).
    cadence: cadence::Cadence,
    last_input: Instant,
    /// When the terminal last queued replies to queries in the output: read by a shell at its
    /// prompt as typed keys, they may sit on its line though nothing was typed there.
    last_reply: Option<Instant>,
    /// The last input queued ended in a key code not finished (a lone Escape, `ESC [`) after
    /// other keys: a program may wait for the rest before it answers (ncurses's `ESCDELAY`),
    /// whatever it drew for the keys before it. (Typed alone, what it draws answers it.)
    input_ends_unfinished: bool,
    /// The terminal's moves to the top-left (`Terminal::homes`) when the last input was
    /// queued: two since then, and the program redraws its whole screen frame after frame.
    homes_at_input: u64,
    /// The terminal's moves to the top-left (`Terminal::homes`), its erases of the whole
    /// screen (`Terminal::screen_clears`) and whether it was on its alternate screen after
    /// the output last fed: a change starts a frame (see `frames_group::note_groups`).
    frame_start: (u64, u64, bool),
    /// The terminal's foreground process group after the output that started the last frame
    /// of a full screen was fed (`None`: no full screen, or the group unknown): the program
    /// that draws what the screen shows (see `frames_group::note_groups`).
    frame_group: Option<i32>,
    /// The terminal drew a full screen (`draws_full_screens`) when the last input was queued:
    /// one drawn since was taken by the program the input reached or started (see
    /// `procfs::TerminalSeen::full_screen_since_input`).
    full_screen_at_input: bool,
    /// The last input queued was typed while the terminal echoed nothing (a password, a
    /// passphrase): `ssh` owes the far end's verdict on it (see
    /// `procfs::TerminalSeen::unanswered_secret`).
    input_unechoed: bool,
    /// The last input queued ended with a key that kills a line editor's line (Ctrl-U), not
    /// as the second key of another (Ctrl-X Ctrl-U is readline's undo, Ctrl-V Ctrl-U a
    /// quoted character): see [`Slot::typed_line_cleared`].
    input_ends_in_line_kill: bool,
    /// The last byte of the input queued last, if it was typed (keys, text or a paste).
    last_typed_byte: Option<u8>,
    /// The text the input queued last typed (`suggestion::typed_text`; empty for a signal):
    /// a line editor's suggestion follows it, echoed (see `input_wait::shown`).
    typed_text: String,
    /// When Escape was last pressed (not an Escape starting a key code, such as an arrow's):
    /// a line editor in vi mode may have left insert mode since.
    escape_typed: Option<Instant>,
    /// When a look for `Until::input_read` first found the terminal's input queue empty
    /// after the last input (see `input_wait::input_read_for`).
    input_drained: Option<Instant>,
    /// Whether a thread of the foreground group was seen blocked on the terminal (reading
    /// it, or polling it) by the one look made once the program had printed nothing for
    /// `wait::UNANSWERED_READ` after `input_drained` (`None`: not looked yet): a relay
    /// (`script`, `sudo` with `use_pty`, `ssh`) read the input for a program that may still
    /// be busy (see `input_wait::input_read_for`).
    drained_by_reader: Option<bool>,
    /// When the last input that submitted a line (see `requests::submits_line`) was written, the transcript
    /// line the cursor was on then, where it was typed, and that of the line submitted before
    /// it: a probe tells a REPL working on that line by the cursor on the line after it (see
    /// `input_wait::shown`).
    submitted: Option<(Instant, u64, Option<u64>)>,
    bytes_in: u64,
    bytes_out: u64,
    sync_timer: Option<Instant>,
    quiet_armed: bool,
    /// When the next look after output may be made, when the last one was costly
    /// (`Reactor::look_after_output`).
    next_look: Option<Instant>,
    /// When the look put off until then is scheduled (`Timer::Look`).
    look_deferred: Option<Instant>,
    /// The terminal's line modes when the master was closed.
    final_line_modes: Option<crate::types::LineModes>,
    /// The newest raw output, at most `Config::raw_output_bytes`.
    raw: VecDeque<u8>,
    /// The session's recording, until its terminal closes (kept after it when it is in
    /// memory).
    recorder: Option<crate::os::recording::Recorder>,
    /// Where it was recorded.
    recording: Option<std::path::PathBuf>,
    /// What went wrong with the recording's file: the error that stopped writing it, once
    /// one did, and a rename that left it under its temporary name.
    recording_failure: Option<std::sync::Arc<crate::os::recording::Trouble>>,
}

/// The most terminals hosted by a session's programs, nested or side by side, that one look
/// for a relayed password prompt ([`relayed_password`]) reads.
const RELAYED_TERMINALS: usize = 8;

/// What the terminals that a group relays what is typed to say of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relayed {
    /// One reads lines with echo off: a password prompt.
    Password,
    /// Every one shows what is typed, or reads it as lines and echoes them.
    Other,
    /// The group hosts no terminal (it reads the keys itself, or sends them farther, as
    /// `ssh` does), or one cannot be read.
    Unknown,
}

/// Whether a terminal that the members of `group` (of POSIX session `sid`) host and relay to
/// reads a password (lines, echo off): `script` and `sudo` with `use_pty` run their command
/// on a terminal of their own and copy what is typed there. A hosted terminal that takes keys
/// without echo is followed in turn (`sudo` run in `script`); at most `budget` terminals are
/// opened in all. `own` is the device of the session's terminal's slave (`Slot::slave_device`).
fn relayed_password(
    own: Option<u64>,
    group: i32,
    sid: i32,
    members: Option<&[i32]>,
    budget: &mut usize,
) -> Relayed {
    let hosted = crate::os::procfs::hosted_by_group(group, Some(sid), members);
    hosted_password(own, hosted, members, budget)
}

/// Whether one of the terminals `hosted` reads a password, as [`relayed_password`] follows
/// them.
fn hosted_password(
    own: Option<u64>,
    hosted: Vec<crate::os::procfs::Hosted>,
    members: Option<&[i32]>,
    budget: &mut usize,
) -> Relayed {
    if hosted.is_empty() {
        return Relayed::Unknown;
    }
    let mut verdict = Relayed::Other;
    for terminal in hosted {
        if *budget == 0 {
            return Relayed::Unknown;
        }
        *budget -= 1;
        let modes = own
            .and_then(|own| crate::os::pty::hosted_terminal(own, terminal.leader))
            .and_then(|hosted| crate::os::pty::line_modes(hosted.as_fd()));
        let this = match modes {
            None => Relayed::Unknown,
            Some(modes) if modes.echo => Relayed::Other,
            Some(modes) if modes.canonical => Relayed::Password,
            Some(_) => relayed_password(own, terminal.group, terminal.leader, members, budget),
        };
        match this {
            Relayed::Password => return Relayed::Password,
            Relayed::Unknown => verdict = Relayed::Unknown,
            Relayed::Other => {}
        }
    }
    verdict
}

impl Slot {
    /// Reads the terminal's foreground group into `modify_other_keys_group` when output fed
    /// since the last call set xterm's modifyOtherKeys level: the group of the program that
    /// set it, which was in front as its output was read. No system call otherwise.
    fn note_modify_other_keys_group(&mut self) {
        let sets = self.terminal.modify_other_keys_sets();
        if sets == self.modify_other_keys_sets {
            return;
        }
        self.modify_other_keys_sets = sets;
        self.modify_other_keys_group = match self.terminal.modes().modify_other_keys {
            0 => None,
            _ => self.master.as_ref().and_then(|m| crate::os::pty::foreground_group(m.as_fd())),
        };
    }

    /// The last thing that could change what the program does: output, input or a resize.
    fn activity(&self) -> Instant {
        self.last_output.max(self.last_input).max(self.last_resize)
    }

    /// Whether the program draws whole screens: it is on the alternate screen, or it started
    /// two frames at the screen's top-left since the last input (`top`, which keeps to the
    /// primary screen; a `clear` typed before a command is one such start, not two).
    fn draws_full_screens(&self) -> bool {
        self.terminal.alternate() || self.terminal.homes().saturating_sub(self.homes_at_input) >= 2
    }

    /// Notes input queued now: `typed`, the bytes typed (keys, text, a paste), or `None` for
    /// a signal, which ends no key code and kills no line; `modes`, the terminal's, as read
    /// for the input (not asked again).
    fn note_input(&mut self, typed: Option<&[u8]>, modes: Option<&rustix::termios::Termios>) {
        // (A second write of one typing, with nothing drawn since the first, `:q` then its
        // Enter, keeps the count the first found.)
        let same_typing = self.last_output <= self.last_input;
        let kept = self.threads_at_input.get().filter(|_| same_typing);
        self.threads_at_input.set(input_wait::ThreadsAtInput::before_input(self).or(kept));
        self.last_input = Instant::now();
        self.cadence.input();
        let bytes = typed.unwrap_or_default();
        self.input_ends_unfinished =
            crate::input::keys::bytes_end_in_unfinished_key_after_keys(bytes);
        self.full_screen_at_input = self.draws_full_screens();
        self.homes_at_input = self.terminal.homes();
        // (A signal echoes nothing and asks the terminal nothing.)
        self.input_unechoed = typed.is_some()
            && self.master.is_some()
            && modes.map(crate::os::pty::line_modes_in).is_some_and(|modes| !modes.echo);
        let before = match bytes {
            [.., before, _] => Some(*before),
            _ => self.last_typed_byte,
        };
        self.input_ends_in_line_kill =
            bytes.last() == Some(&0x15) && !matches!(before, Some(0x16 | 0x18));
        self.last_typed_byte = bytes.last().copied();
        self.typed_text = crate::term::suggestion::typed_text(bytes);
        if crate::input::keys::bytes_press_escape(bytes) {
            self.escape_typed = Some(self.last_input);
        }
    }

    /// Whether keys typed at the shell's prompt since it drew it left its command line empty:
    /// the last of them killed the line (`<C-u>`), no Escape among them (a vi-mode editor
    /// would be out of insert mode), the shell was seen waiting for input after them (it read
    /// them and answered), and the cursor stands where the prompt's input starts, nothing
    /// after it on its row.
    fn typed_line_cleared(&self) -> bool {
        let activity = self.activity();
        let shell = self.terminal.shell();
        self.input_ends_in_line_kill
            && self.escape_typed.is_none_or(|at| shell.prompt_at.is_some_and(|p| at < p))
            && self.seen_waiting.get().is_some_and(|seen| seen.at == activity)
            && shell.input_cell == Some(self.terminal.cursor_cell())
            && self.terminal.cursor_after_text()
    }

    /// Stops watching the terminal and closes the master, keeping its line modes as the
    /// program left them.
    fn close_master(&mut self, registry: &mio::Registry) {
        self.stop_reading(registry);
        self.hung_up_master = None;
    }

    /// Every process closed the terminal, but the program may still run: reading stops, and
    /// the master is kept open until the program is reaped ([`Slot::close_master`]), since closing
    /// it would hang the terminal up and send the program SIGHUP (GNU `touch` closes its
    /// last descriptor of the terminal in its exit handlers, and died of it).
    fn hang_up_master(&mut self, registry: &mio::Registry) {
        self.hung_up_master = self.stop_reading(registry);
    }

    /// Stops reading the terminal: deregisters the master and takes it out of `master`.
    fn stop_reading(&mut self, registry: &mio::Registry) -> Option<OwnedFd> {
        let master = self.master.take()?;
        self.final_line_modes = crate::os::pty::line_modes(master.as_fd());
        let _ = registry.deregister(&mut SourceFd(&master.as_raw_fd()));
        Some(master)
    }

    /// The session is over: a file's recording ends (its writer flushes and closes); one in
    /// memory stays readable. Not at the hang-up, so that the marker of a wait the exit or
    /// the close ends is recorded too.
    fn end_file_recording(&mut self) {
        if self.recorder.as_ref().is_some_and(|r| r.path().is_some()) {
            self.recorder = None;
        }
    }

    /// Takes output just read: records it, tells the cadence what it left on the cursor's row
    /// (a row redrawn in place), and keeps the newest `limit` bytes of it.
    fn took_output(&mut self, bytes: &[u8], limit: usize) {
        self.cadence.printed(bytes);
        if let Some(recorder) = &mut self.recorder {
            recorder.output(bytes);
        }
        let bytes = &bytes[bytes.len().saturating_sub(limit)..];
        let over = (self.raw.len() + bytes.len()).saturating_sub(limit);
        self.raw.drain(..over);
        self.raw.extend(bytes);
    }

    /// The terminal's line modes: now, or as they were when it was closed.
    fn line_modes(&self) -> Option<crate::types::LineModes> {
        match &self.master {
            Some(master) => crate::os::pty::line_modes(master.as_fd()),
            None => self.final_line_modes,
        }
    }

    /// The line modes `reader`, a program seen waiting for input, reads under: those of a
    /// terminal a program of the session made and relays to, when it reads one (`sudo` with
    /// `use_pty`, `script`: the relay keeps the session's terminal raw), else the session's
    /// own terminal's.
    fn reader_line_modes(&self, reader: Option<i32>) -> Option<crate::types::LineModes> {
        let hosted = self
            .slave_device
            .zip(reader)
            .and_then(|(own, reader)| crate::os::pty::hosted_line_modes(own, reader));
        hosted.or_else(|| self.line_modes())
    }

    /// Whether what is typed now goes to a password prompt, a program that reads it without
    /// showing it, as far as termloom can tell: the session's terminal reads lines with echo
    /// off; or, while it takes keys with echo off (the raw mode a relay sets), a terminal a
    /// program of the session hosts and relays to (`sudo` with `use_pty`, `script`) reads
    /// lines with echo off ([`relayed_password`]), or, where the terminal that reads the keys
    /// last cannot be read (the remote end of `ssh`, a hosted terminal of another user, a
    /// program that reads keys itself), the cursor stands right after a password prompt
    /// (`Terminal::shows_password_prompt`). Input typed then is left out of recordings.
    /// `master` is the session's terminal's, which a flush takes out of the slot meanwhile;
    /// `own`, its line modes, as the caller read them (a request's one reading, see
    /// `Reactor::queue_input`): `None` when they could not be read, no password prompt then.
    pub(super) fn at_password_prompt(
        &self,
        master: std::os::fd::BorrowedFd<'_>,
        own: Option<crate::types::LineModes>,
    ) -> bool {
        let Some(own) = own else {
            return false;
        };
        if own.echo || own.canonical {
            // A terminal that echoes shows what is typed anyway.
            return !own.echo;
        }
        let members = self.cgroup.as_ref().map(|cgroup| cgroup.pids());
        let relayed = crate::os::pty::foreground_group(master).map(|group| {
            let mut budget = RELAYED_TERMINALS;
            let (pid, own) = (self.pid, self.slave_device);
            relayed_password(own, group, pid, members.as_deref(), &mut budget)
        });
        match relayed {
            Some(Relayed::Password) => true,
            Some(Relayed::Other) => false,
            Some(Relayed::Unknown) | None => self.terminal.shows_password_prompt(),
        }
    }

    /// Whether a terminal that the foreground group `group` relays what is typed to reads a
    /// password (lines, echo off): one its members host ([`relayed_password`]), or one that a
    /// relay of theirs hosts, a process of another POSIX session the session started that
    /// reads the session's terminal for the programs on terminals of its own (GNU screen's
    /// server, for the program of a window). For a secret sent before that program reads
    /// (see `Reactor::send_secret_under`), whichever window of several it is.
    pub(super) fn relays_to_password(&self, group: i32) -> bool {
        let members = self.cgroup.as_ref().map(|cgroup| cgroup.pids());
        let members = members.as_deref();
        let mut hosted = crate::os::procfs::hosted_by_group(group, Some(self.pid), members);
        hosted.extend(crate::os::procfs::hosted_by_relays(group, self.pid, members));
        let mut budget = RELAYED_TERMINALS;
        hosted_password(self.slave_device, hosted, members, &mut budget) == Relayed::Password
    }

    /// The relay of the terminal of the foreground group `group` that hosts more than one
    /// terminal, if one does (see `procfs::multiplexer_of`): GNU screen's server with several
    /// windows, whichever of them asks for a password, sends the keys to the one it shows.
    pub(super) fn multiplexer(&self, group: i32) -> Option<crate::os::procfs::Multiplexer> {
        let members = self.cgroup.as_ref().map(|cgroup| cgroup.pids());
        crate::os::procfs::multiplexer_of(group, self.pid, members.as_deref())
    }

    /// Drops queued and parked input (the program will never read it); a paste waiting for
    /// room is told why, as a new input would be (see `Reactor::accepting`).
    fn drop_input(&mut self) {
        self.queue.clear();
        let id = self.id;
        let closed = self.exit.is_none() && (self.closed || self.closing.is_some());
        for reply in self.parked.drain(..).filter_map(|piece| piece.reply) {
            let _ = reply.send(Err(if closed {
                Error::SessionClosed(id)
            } else {
                Error::SessionExited(id)
            }));
        }
    }

    /// An exited session stays `Exited` (its tombstone is kept for its readers: the reactor
    /// itself closed it when the program ended) until a caller closes it.
    fn state(&self) -> SessionState {
        match self.exit {
            _ if self.closed && (self.closed_by_caller || self.exit.is_none()) => {
                SessionState::Closed(self.final_status())
            }
            Some(status) => SessionState::Exited(status),
            None => SessionState::Running,
        }
    }

    /// Why the session takes no more input, signals or resizes, if it ended: its program
    /// exited, or it was closed (by a caller, whether or not its program had exited first:
    /// advice to close it would be wrong then).
    fn ended(&self) -> Option<Error> {
        match self.state() {
            SessionState::Exited(_) => Some(Error::SessionExited(self.id)),
            SessionState::Closed(_) => Some(Error::SessionClosed(self.id)),
            _ => None,
        }
    }

    /// How the program ended, once it has (killed by a signal is also a status).
    fn final_status(&self) -> ExitStatus {
        self.exit.or(self.child).unwrap_or(ExitStatus::Signal(9))
    }

    fn info(&self) -> SessionInfo {
        let (cols, rows) = self.terminal.size();
        SessionInfo {
            id: self.id,
            pid: self.pid,
            program: self.program.clone(),
            cols,
            rows,
            state: self.state(),
            status: crate::types::Status::default(),
            started_at: self.started_at,
            ended_at: self.ended_at,
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            idle: self.last_input.max(self.last_output).elapsed(),
            containment: self.containment.clone(),
            confinement: self.confinement.clone(),
            shell_integration: self.terminal.started_with_integration(),
            bells: self.terminal.bells(),
            closed_reason: self.closed_reason.map(|reason| match &self.failure {
                Some(failure) => format!("{reason}: {failure}"),
                None => reason.to_string(),
            }),
            dropped_sequences: self.terminal.dropped_sequences(),
            replies_dropped: self.replies_dropped,
            pending_waits: self.waiters.len() + self.commands.len(),
            line_modes: self.line_modes(),
            recording: self.recording.clone(),
            recording_error: self.recording_failure.as_ref().and_then(|f| f.error()),
            recording_kept_at: self.recording_failure.as_ref().and_then(|f| f.kept_at()),
            recording_write_failed: self
                .recording_failure
                .as_ref()
                .is_some_and(|f| f.write_failed()),
        }
    }
}

/// The highest first id an engine can be numbered from: ids stay exact in JSON (below 2^53)
/// and their tokens (`id << 1 | 1`) fit in 64 bits, however many sessions follow.
pub(crate) const MAX_FIRST_ID: u64 = 1 << 52;

/// The most ids of failed starts a reactor remembers (see [`Reactor::release`]): only starts
/// at the same time leave them, while a later one is reserved.
const MAX_UNSTARTED: usize = 1024;

/// The reactor's state; lives on its thread only.
pub(crate) struct Reactor {
    poll: Poll,
    requests: Receiver<Request>,
    config: Arc<Config>,
    /// Boxed: a slot is about 4 KiB, and the map keeps up to twice as many buckets as
    /// sessions (a slot inline in each bucket cost up to 4 KiB per session, and its growth
    /// moved every slot).
    sessions: HashMap<u64, Box<Slot>>,
    /// Closed sessions, oldest first (tombstones).
    closed: VecDeque<u64>,
    reserved: usize,
    /// The first id this engine gives out (see [`Reactor::number_from`]).
    first_id: u64,
    next_id: u64,
    /// Ids below `next_id` whose start failed (see [`Reactor::release`]), at most
    /// [`MAX_UNSTARTED`].
    unstarted: BTreeSet<u64>,
    /// Pending timers, earliest first; answered waits remove theirs, so none fires for
    /// nothing.
    timers: BTreeSet<(Instant, Timer)>,
    /// Secrets waiting for their program to read the terminal, one at most a session (see
    /// `secret`).
    held_secrets: HashMap<u64, secret::HeldSecret>,
    /// The secrets being asked for (MCP's, while a person is asked), one at most a session,
    /// by session: the number of the claim, and whether its call has its turn (it asks, or
    /// looks to ask) or waits for it (see `secret`).
    secret_claims: HashMap<u64, (u64, bool)>,
    /// The number of the last claim of `secret_claims`.
    last_secret_claim: u64,
    /// Ids for `run_command` callers (waits bring their own).
    next_waiter: u64,
    buffer: Box<[u8]>,
    /// Sessions that may have more to read after their turn, each once (see
    /// `Slot::backlogged`).
    backlog: VecDeque<u64>,
    shutdown: Option<Sender<()>>,
    /// Told when a session is closed, so it stops answering for it.
    /// Exits the supervisor reported for programs not attached yet, by pid (at most
    /// `max_sessions`).
    early_exits: HashMap<i32, ExitStatus>,
    /// Closing sessions' scans of `/proc` for processes outside their cgroups, made on a
    /// thread of their own.
    scans: outside_scan::OutsideScans,
}

impl Reactor {
    /// A reactor polling `poll`, whose `waker` (when given) its helper threads wake.
    pub(crate) fn new(
        poll: Poll,
        requests: Receiver<Request>,
        config: Arc<Config>,
        waker: Option<Arc<mio::Waker>>,
    ) -> Self {
        Reactor {
            scans: outside_scan::OutsideScans::new(waker),
            poll,
            requests,
            config,
            early_exits: HashMap::new(),
            sessions: HashMap::new(),
            closed: VecDeque::new(),
            reserved: 0,
            first_id: 1,
            next_id: 1,
            unstarted: BTreeSet::new(),
            timers: BTreeSet::new(),
            held_secrets: HashMap::new(),
            secret_claims: HashMap::new(),
            last_secret_claim: 0,
            next_waiter: 0,
            buffer: vec![0; READ_BUFFER].into_boxed_slice(),
            backlog: VecDeque::new(),
            shutdown: None,
        }
    }

    /// Runs until shut down (or until every request sender is gone).
    pub(crate) fn run(mut self) {
        ON_REACTOR.with(|on| on.set(true));
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = if self.backlog.is_empty() {
                self.timers.first().map(|(at, _)| at.saturating_duration_since(Instant::now()))
            } else {
                Some(Duration::ZERO)
            };
            if let Err(err) = self.poll.poll(&mut events, timeout)
                && err.kind() != io::ErrorKind::Interrupted
            {
                log::error!("termloom: poll failed: {err}");
                self.begin_shutdown(None);
            }
            for event in events.iter() {
                let token = event.token();
                if token == WAKER {
                    continue;
                }
                let id = (token.0 >> 1) as u64;
                if token.0 & 1 == 1 {
                    self.guarded(id, |r| r.child_exited(id));
                } else {
                    // A session in the backlog gets its turn there: one turn per round.
                    let backlogged = self.sessions.get(&id).is_some_and(|s| s.backlogged);
                    if (event.is_readable() || event.is_read_closed() || event.is_error())
                        && !backlogged
                    {
                        self.read_output(id);
                    }
                    // (Its queued input too: one turn of writes a round.)
                    if event.is_writable() && !backlogged {
                        self.guarded(id, |r| r.flush(id));
                    }
                }
            }
            self.take_outside_scans();
            if !self.take_requests() {
                // Every handle is gone: nobody can ask for a shutdown any more.
                self.begin_shutdown(None);
            }
            if SHUTDOWN_ASKED.with(|asked| asked.replace(false)) && self.shutdown.is_none() {
                self.begin_shutdown(None);
            }
            for id in std::mem::take(&mut self.backlog) {
                if let Some(slot) = self.sessions.get_mut(&id) {
                    slot.backlogged = false;
                }
                self.read_output(id);
                // Input left over from a turn's writes (see `flush`).
                if self.sessions.get(&id).is_some_and(|slot| !slot.queue.is_empty()) {
                    self.guarded(id, |r| r.flush(id));
                }
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

    /// Runs `work` for session `id`; if it panics, that session is ended and the reactor
    /// goes on.
    fn guarded(&mut self, id: u64, work: impl FnOnce(&mut Self)) {
        let result = panic::catch_unwind(AssertUnwindSafe(|| work(self)));
        if let Err(payload) = result {
            self.session_failed(id, CloseReason::EmulationFailed, panic_message(&*payload));
        }
    }

    /// Runs `request`, a request for session `id` that answers at `reply` (queued by
    /// [`Client::submit_for`](client::Client::submit_for), or typing held back and released
    /// later by [`Reactor::release_typing`]): a panic in it closes that session (its state may
    /// be inconsistent, [`CloseReason::RequestFailed`]) and is answered at `reply` with
    /// [`Error::RequestPanicked`], unless the session's closing answered it first: `reply`
    /// dropped unanswered would tell a future that the engine stopped, and a blocked waiter
    /// that its wait was aborted.
    pub(super) fn guarded_request<T: Send + 'static>(
        &mut self,
        id: SessionId,
        reply: Reply<Result<T>>,
        request: impl FnOnce(&mut Self, Reply<Result<T>>),
    ) {
        let fallback = reply.fallback();
        let ran = panic::catch_unwind(AssertUnwindSafe(|| request(self, reply)));
        if let Err(payload) = ran {
            let message = panic_message(&*payload);
            self.session_failed(id.0, CloseReason::RequestFailed, message.clone());
            let session = Some(id);
            fallback.answer_unanswered(Err(Error::RequestPanicked { session, message }));
        }
    }

    /// A session's code path panicked (`reason` says which, `message` is the panic's): its
    /// emulator is replaced by a blank one (the old one may be inconsistent), its terminal is
    /// no longer read, and it is closed, with the panic in its `closed_reason`. The
    /// transcript so far stays readable.
    pub(super) fn session_failed(&mut self, id: u64, reason: CloseReason, message: String) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.terminal.reset_emulator(&self.config);
        slot.failure = Some(message);
        slot.close_master(self.poll.registry());
        if let Some(closing) = &mut slot.closing {
            closing.reason = reason;
        }
        self.begin_close(id, reason, None);
    }

    /// Runs queued requests; false when the channel is disconnected. A request that panics
    /// outside the guard of [`Client::call`](client::Client::call) is dropped (its caller sees
    /// the engine's reply channel close); the reactor goes on.
    fn take_requests(&mut self) -> bool {
        loop {
            match self.requests.try_recv() {
                Ok(request) => {
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| request(self)));
                }
                Err(crossbeam_channel::TryRecvError::Empty) => return true,
                Err(crossbeam_channel::TryRecvError::Disconnected) => return false,
            }
        }
    }

    fn live(&self) -> usize {
        self.sessions.len() - self.closed.len()
    }

    fn schedule(&mut self, at: Instant, timer: Timer) {
        self.timers.insert((at, timer));
    }

    fn unschedule(&mut self, at: Instant, timer: Timer) {
        self.timers.remove(&(at, timer));
    }

    /// Drops every timer of a session (it was closed), answering the secret it held.
    fn unschedule_session(&mut self, id: u64) {
        self.timers.retain(|(_, timer)| timer.session() != id);
        self.drop_held_secret(id);
    }

    fn fire_timers(&mut self) {
        let now = Instant::now();
        while let Some(&(at, timer)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            self.guarded(timer.session(), |r| r.fire(timer));
        }
    }

    fn fire(&mut self, timer: Timer) {
        match timer {
            Timer::Wait { session, waiter } => self.wait_timed_out(session, waiter),
            Timer::ExitDrain(id) => self.report_exit(id),
            Timer::CloseCheck(id) => self.close_check(id),
            Timer::Sync(id) => self.sync_expired(id),
            Timer::Quiet(id) => self.quiet_check(id),
            Timer::Look(id) => self.look_now(id),
            Timer::Recheck { session, waiter } => {
                if let Some(slot) = self.sessions.get_mut(&session)
                    && let Some(w) = slot.waiters.iter_mut().find(|w| w.id == waiter)
                {
                    w.recheck = None;
                    self.check_waiters(session);
                }
            }
            Timer::Command { session, waiter } => self.command_timed_out(session, waiter),
            Timer::CommandCheck { session, waiter } => self.command_check(session, waiter),
            Timer::Paste { session, paste } => self.abort_paste(session, paste, "timed out"),
            Timer::Reap(id) => self.reap_check(id),
            Timer::Secret(id) => self.secret_look(id),
        }
    }

    // ----- sessions ------------------------------------------------------------------------

    fn slot(&mut self, id: SessionId) -> Result<&mut Slot> {
        let missing = self.missing(id);
        self.sessions.get_mut(&id.0).map(|slot| &mut **slot).ok_or(missing)
    }

    /// The error for a session id not (or no longer) held: one this engine gave out was
    /// forgotten once ended, the others (one whose start failed too) never existed.
    fn missing(&self, id: SessionId) -> Error {
        if self.unstarted.contains(&id.0) {
            Error::UnknownSession(id)
        } else if (self.first_id..self.next_id).contains(&id.0) {
            Error::SessionForgotten { session: id, kept: self.config.max_closed_sessions }
        } else if (1..self.first_id).contains(&id.0) {
            Error::SessionBeforeFirst { session: id, first: SessionId(self.first_id) }
        } else {
            Error::UnknownSession(id)
        }
    }

    fn info_of(&self, id: u64) -> Option<SessionInfo> {
        let mut info = self.sessions.get(&id)?.info();
        info.status = self.status_of(id);
        Some(info)
    }
}

/// If the reactor thread ends without a clean shutdown (a panic), nothing may be left
/// running: every live session's process groups and cgroup get SIGKILL.
impl Drop for Reactor {
    fn drop(&mut self) {
        for slot in self.sessions.values().filter(|slot| !slot.closed) {
            crate::os::terminate::kill_everything(slot.pid, slot.cgroup.as_ref());
        }
    }
}

/// A panic's message, from its payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

thread_local! {
    /// Set on a reactor's thread.
    static ON_REACTOR: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set when a call into the engine was refused on this (a reactor's) thread: a wait's
    /// test made it, and that wait fails (see `check_waiters`).
    static REFUSED_CALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set when the engine's last handle was dropped on this (a reactor's) thread, inside a
    /// wait's test: the reactor shuts down once that round's work is done.
    static SHUTDOWN_ASKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Asks the reactor of this thread to shut down once its round's work is done: for the
/// engine's last handle dropped inside a wait's test, where the reactor cannot be sent a
/// request (the request queue may be full, and nothing on this thread may wait for room).
pub(crate) fn ask_shutdown_on_reactor() {
    SHUTDOWN_ASKED.with(|asked| asked.set(true));
}

/// Notes that a call was refused on a reactor's thread.
pub(crate) fn note_refused_call() {
    REFUSED_CALL.with(|refused| refused.set(true));
}

/// Whether a call was refused on this thread since the last time this was asked.
pub(crate) fn take_refused_call() -> bool {
    REFUSED_CALL.with(|refused| refused.replace(false))
}

/// Whether this thread is a reactor's (a caller's test runs there: see `Client::submit`).
pub(crate) fn on_reactor_thread() -> bool {
    ON_REACTOR.with(std::cell::Cell::get)
}

/// `now` + `timeout`, or a century ahead where that is past what an `Instant` holds: a wait
/// for `Duration::MAX` means "until it holds".
pub(crate) fn after(now: Instant, timeout: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    now.checked_add(timeout.min(CENTURY)).unwrap_or(now)
}
