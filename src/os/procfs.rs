//! Small, non-blocking readers for Linux `/proc`.
//!
//! The engine uses these from its reactor thread to find the processes of a
//! session, their process groups, and whether the foreground process group
//! is sleeping in a read- or poll-family system call (i.e. waiting for
//! input).
//!
//! Every function is cheap (a handful of small `/proc` reads), never blocks
//! and never panics. Processes and threads may vanish between listing and
//! reading; `ENOENT`/`ESRCH` are treated as "gone" (see [`is_gone`]) and such
//! entries are skipped.
//!
//! The semantics are Linux-only. On other unix targets the module compiles,
//! but the readers answer "unknown": the scanners return nothing and
//! [`group_input_wait`] returns [`InputWait::Unknown`].

use std::io;

/// The interesting fields of `/proc/PID/stat` (see `proc_pid_stat(5)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// Process id (field 1).
    pub pid: i32,
    /// Executable name (`comm`, field 2), without the surrounding
    /// parentheses; may itself contain spaces and parentheses. Bytes that are
    /// not UTF-8 are replaced lossily.
    pub comm: String,
    /// Scheduler state (field 3): `R`, `S`, `D`, `T`, `t`, `Z`, `X`, `I`, ...
    pub state: char,
    /// Parent process id (field 4).
    pub ppid: i32,
    /// Process group id (field 5).
    pub pgrp: i32,
    /// Session id (field 6).
    pub session: i32,
    /// Controlling terminal device number (field 7), 0 if none.
    pub tty_nr: i32,
    /// Foreground process group of the controlling terminal (field 8), -1 if
    /// none.
    pub tpgid: i32,
}

/// Whether a process (or process group) is waiting for input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum InputWait {
    /// All threads are sleeping and at least one of them is blocked in a
    /// read- or poll-family system call.
    Waiting {
        /// The process blocked reading (for a group: its first member that is; `None` when
        /// the answer came from the terminal's modes alone).
        reader: Option<i32>,
    },
    /// Definitely not waiting for input (running, stopped, sleeping in some
    /// other call, exited, ...).
    NotWaiting {
        /// Human-readable explanation, naming the process responsible.
        reason: String,
    },
    /// Not waiting for input, but for the world outside the terminal and its own processes,
    /// with no clock of its own (see `waits_outside`): a server on its socket, `tail -f` on
    /// its file. It prints when something happens out there, which may be never: its silence
    /// is an answer, as a sleep's or a busy child's is not.
    Outside {
        /// Human-readable explanation, naming the process responsible.
        reason: String,
    },
    /// Not waiting for input: every member asleep, one in a sleep (of [`SHORTEST_TICK`] to
    /// [`CLOCK_HORIZON`]) it has gone back to since the terminal's last input, again and again
    /// (see [`TimerSightings`]): a program that redraws on a timer (`watch`). On the
    /// alternate screen it has drawn what it shows, and the default wait takes it as settled;
    /// elsewhere it is busy, as a loop printing a line a second is.
    Ticking {
        /// Human-readable explanation, naming the process responsible.
        reason: String,
    },
    /// Not waiting for input: every member asleep, one in a sleep with more than
    /// [`CLOCK_HORIZON`] left (`sleep 300`), the others in such sleeps too or waiting only for
    /// children that are members, every member read, none on a clock about to go off: nothing
    /// happens that a default wait could wait for, and it settles once quiet, saying so.
    Sleeping {
        /// Human-readable explanation, naming the process responsible.
        reason: String,
        /// What is left at least of the sleep that ends soonest.
        timer: std::time::Duration,
    },
    /// Not waiting for input: every member is stopped (Ctrl-Z, SIGSTOP, SIGTTIN), and nothing
    /// happens until it is continued (SIGCONT).
    Stopped {
        /// Human-readable explanation, naming the process group.
        reason: String,
    },
    /// The answer could not be determined (e.g. `/proc/PID/syscall` is not
    /// readable and `wchan` is hidden, or not on Linux).
    Unknown {
        /// Human-readable explanation of what could not be read.
        reason: String,
    },
}

/// `ESRCH` ("no such process"); 3 on Linux and on the BSDs/macOS.
const ESRCH: i32 = 3;
/// `EACCES`: permission denied.
const EACCES: i32 = 13;
/// `EPERM`: operation not permitted.
const EPERM: i32 = 1;

/// Returns true if `err` means the process or thread no longer exists
/// (`ENOENT` / `ESRCH`), as opposed to e.g. a permission problem.
pub(crate) fn is_gone(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::NotFound || err.raw_os_error() == Some(ESRCH)
}

/// Returns true if the process is a zombie (`Z`) or dead (`X`/`x`).
pub(crate) fn is_dead(stat: &ProcStat) -> bool {
    matches!(stat.state, 'Z' | 'X' | 'x')
}

/// Reads and parses `/proc/PID/stat`.
///
/// `comm` may contain spaces and parentheses; the parser uses the last `)`
/// in the file to find its end. A vanished process yields an error for
/// which [`is_gone`] is true. On non-Linux targets this always fails with
/// [`io::ErrorKind::Unsupported`].
pub(crate) fn read_stat(pid: i32) -> io::Result<ProcStat> {
    #[cfg(target_os = "linux")]
    {
        if pid <= 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("invalid pid {pid}")));
        }
        if !numbers_ours() {
            return Err(io::Error::new(io::ErrorKind::Unsupported, NOT_OURS));
        }
        let data = std::fs::read(format!("/proc/{pid}/stat"))?;
        parse_stat(&data)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        Err(unsupported())
    }
}

/// Returns the executable name (`comm`) of `pid`, or `None` if the process
/// is gone or unreadable (always `None` on non-Linux targets).
pub(crate) fn process_name(pid: i32) -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        if pid <= 0 || !numbers_ours() {
            return None;
        }
        let data = std::fs::read(format!("/proc/{pid}/comm")).ok()?;
        let data = data.strip_suffix(b"\n").unwrap_or(&data);
        Some(String::from_utf8_lossy(data).into_owned())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// The name a process group goes by: its leader's, or, once the leader has ended and been
/// reaped (a pipeline's first command done, a shell that exited leaving a job it started in
/// the background of its group), a live member's; `None` when no process is left in it.
pub(crate) fn group_name(pgrp: i32) -> Option<String> {
    process_name(pgrp).or_else(|| {
        let members = scan_processes(|stat| stat.pgrp == pgrp && !is_dead(stat));
        members.into_iter().next().map(|member| member.comm)
    })
}

/// Returns every process whose session id is `sid`, sorted by pid.
///
/// Scans the numeric directories of `/proc`; processes that vanish (or
/// become unreadable) during the scan are skipped. Includes zombies; see
/// [`live_session_processes`]. Empty on non-Linux targets.
pub(crate) fn session_processes(sid: i32) -> Vec<ProcStat> {
    scan_processes(|stat| stat.session == sid)
}

/// The live children of process `parent` (zombies excluded).
pub(crate) fn children_of(parent: i32) -> Vec<i32> {
    scan_processes(|stat| stat.ppid == parent && !is_dead(stat)).iter().map(|s| s.pid).collect()
}

/// The live descendants of `ancestor` (children, their children, and so on), from one scan
/// of `/proc`.
pub(crate) fn descendants_of(ancestor: i32) -> Vec<i32> {
    let live = scan_processes(|stat| !is_dead(stat));
    let mut found = vec![ancestor];
    let mut at = 0;
    while at < found.len() {
        let parent = found[at];
        found.extend(live.iter().filter(|s| s.ppid == parent).map(|s| s.pid));
        at += 1;
    }
    found.remove(0);
    found
}

/// Like [`session_processes`], but without zombie/dead processes
/// (see [`is_dead`]).
pub(crate) fn live_session_processes(sid: i32) -> Vec<ProcStat> {
    scan_processes(|stat| stat.session == sid && !is_dead(stat))
}

/// Returns the distinct process group ids of `procs`, sorted ascending.
pub(crate) fn process_groups(procs: &[ProcStat]) -> Vec<i32> {
    let mut groups: Vec<i32> = procs.iter().map(|p| p.pgrp).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

/// Decides whether process `pid` is waiting for input.
///
/// Looks at every thread in `/proc/PID/task/*`: the process is
/// [`InputWait::Waiting`] if all its live threads are sleeping (`S`) and at
/// least one is blocked in a read/poll-family system call (`read`, `readv`,
/// `pread64`, `preadv`, `preadv2`, `select`, `pselect6`, `poll`, `ppoll`,
/// `epoll_wait`, `epoll_pwait`, `epoll_pwait2`). Other threads may be
/// sleeping in anything (e.g. `futex`). The system call is taken from
/// `/proc/PID/task/TID/syscall`; when that is unreadable (or the
/// architecture's numbers are unknown), the kernel wait channel (`wchan`) is
/// used instead.
///
/// A running, stopped, zombie or otherwise non-sleeping thread, or a process
/// sleeping only in other calls (`nanosleep`, `wait4`, `futex`, ...), gives
/// [`InputWait::NotWaiting`]; so does a process that no longer exists.
/// [`InputWait::Unknown`] is returned when the relevant files are unreadable
/// (e.g. permissions with `wchan` hidden) or on non-Linux targets.
#[cfg(test)]
pub(crate) fn process_input_wait(pid: i32) -> InputWait {
    #[cfg(target_os = "linux")]
    {
        if pid <= 0 {
            return InputWait::Unknown { reason: format!("invalid pid {pid}") };
        }
        match linux::process_wait(pid, std::time::Duration::ZERO) {
            None => InputWait::NotWaiting { reason: format!("pid {pid} no longer exists") },
            Some(wait) => wait,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        InputWait::Unknown { reason: UNSUPPORTED.to_string() }
    }
}

/// Decides whether the process group `pgrp` (typically a terminal's
/// foreground group) is waiting for input.
///
/// Members are the live processes with process group `pgrp` (and, if `sid`
/// is given, session `sid`). All members waiting gives
/// [`InputWait::Waiting`]; the first member not waiting gives
/// [`InputWait::NotWaiting`] with a reason naming it. If no member exists,
/// or some member could not be read and none was found not waiting, the
/// answer is [`InputWait::Unknown`]. Members that are all zombies, or that
/// all vanish during the check, give [`InputWait::NotWaiting`].
///
/// `candidates`, when given (a session's cgroup members), are the only processes looked at,
/// which spares a scan of all of `/proc`. What the probe knows of the terminal beside `/proc`
/// is in `terminal` ([`TerminalSeen`]): `quiet` is how long the terminal has been quiet:
/// for a status, since the last output or input; for a wait, since the screen last changed
/// (or a line scrolled into the transcript) or input was sent, so that a frame redrawn the
/// same on every tick is no answer. A poll with a short timer (see [`SHORT_TIMER`]) counts
/// as waiting for input once the terminal has been quiet for longer than the timer and
/// [`TIMER_SLACK`] (the timer went off without changing anything, and the program polls
/// again: an idle tick, such as Python 3.13's REPL polling every 100 ms), and so does one
/// that `timers` saw before and that has gone off and been set again since (a monitor's tick
/// that redraws the screen, `top -d 1`), or found so before the last input and set again once
/// the program drew since (`top -d 1` after a key; see [`TimerSightings`]). `shown` is what
/// the terminal shows at its cursor, which tells more of a poll's timer (see [`Shown`]).
pub(crate) fn group_input_wait(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
    terminal: TerminalSeen<'_>,
) -> InputWait {
    #[cfg(target_os = "linux")]
    {
        if pgrp <= 0 {
            return InputWait::Unknown { reason: format!("invalid process group {pgrp}") };
        }
        if !numbers_ours() {
            return InputWait::Unknown { reason: NOT_OURS.to_string() };
        }
        let looks = Looks::new();
        let TerminalSeen {
            quiet,
            timers,
            outside,
            shown,
            unanswered_input,
            unanswered_start,
            unanswered_secret,
            hidden_below_line,
            drawn_since_input,
            full_screen,
            since_input,
        } = terminal;
        let probe = Probe {
            quiet,
            timers,
            looks: &looks,
            outside,
            shown,
            unanswered_input,
            unanswered_start,
            unanswered_secret,
            hidden_below_line,
            drawn_since_input,
            full_screen,
            since_input,
            relay_clock: false,
        };
        linux::group_wait(pgrp, sid, candidates, probe)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates, terminal);
        InputWait::Unknown { reason: UNSUPPORTED.to_string() }
    }
}

/// The number of read system calls the live processes of group `pgrp` have completed (the
/// sum of `syscr` in their `/proc/PID/io`), or `None` when the group has no member or one
/// cannot be read (another user's process, a non-Linux system). A group that was sent input
/// has read some of it once this number grows: a blocked read does not count until it returns.
/// What the terminal's relays read counts too (tmux's server for its client): those among
/// `candidates`, and `relay`, one found outside them ([`outside_relay`]).
pub(crate) fn group_reads(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
    relay: Option<i32>,
) -> Option<u64> {
    reads_of(&group_readers(pgrp, sid, candidates, relay)?)
}

/// The live processes whose completed reads [`group_reads`] sums for group `pgrp`: its
/// members and the terminal's relays; `None` when the group has no member or the system has
/// no `/proc` of ours.
pub(crate) fn group_readers(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
    relay: Option<i32>,
) -> Option<Vec<i32>> {
    #[cfg(target_os = "linux")]
    {
        numbers_ours().then(|| linux::group_readers(pgrp, sid, candidates, relay))?
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates, relay);
        None
    }
}

/// The read system calls processes `pids` have completed (the sum of `syscr` in their
/// `/proc/PID/io`), or `None` when one cannot be read (gone, another user's, no `/proc`).
pub(crate) fn reads_of(pids: &[i32]) -> Option<u64> {
    pids.iter().try_fold(0u64, |sum, pid| {
        let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
        let calls = io.lines().find_map(|line| line.strip_prefix("syscr:"))?;
        Some(sum.wrapping_add(calls.trim().parse::<u64>().ok()?))
    })
}

/// The relay outside session `sid` of group `pgrp`'s terminal: a process of another session
/// running the same program as a member, that has the terminal open (the tmux server that
/// the member, a tmux client, attached to, started before the session). `candidates`: the
/// session's processes, when known. Looked for once per group: `memo` keeps the answer for
/// the last group looked at. `None` where `/proc` cannot tell.
pub(crate) fn outside_relay(
    pgrp: i32,
    sid: i32,
    candidates: Option<&[i32]>,
    memo: &OutsideRelay,
) -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        if !numbers_ours() {
            return None;
        }
        let members = linux::members(pgrp, Some(sid), candidates);
        linux::remembered_outside_relay(pgrp, sid, &members, &Looks::new(), memo)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates, memo);
        None
    }
}

/// Whether group `pgrp` is one live process and every other live process of session `sid`
/// (among `candidates` when given) waits for a child (a shell for its job): then nothing but
/// that process can print. `false` where `/proc` cannot tell.
pub(crate) fn alone_in_session(pgrp: i32, sid: i32, candidates: Option<&[i32]>) -> bool {
    #[cfg(target_os = "linux")]
    {
        numbers_ours() && linux::alone_in_session(pgrp, sid, candidates)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates);
        false
    }
}

/// Whether a live process of session `sid` outside group `pgrp` may print on its own: one
/// neither stopped nor waiting for a child, such as a shell's background job (`cmd &`) while
/// the shell, group `pgrp`, waits at its prompt. `false` where `/proc` cannot tell. For the
/// testing kit's stuck waits.
#[cfg(feature = "testing")]
pub(crate) fn others_may_print(pgrp: i32, sid: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        numbers_ours() && linux::others_may_print(pgrp, sid)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid);
        false
    }
}

/// A terminal that a program of a session made and relays to (`script`, `sudo` with
/// `use_pty`): the controlling terminal of a child of the program that leads a POSIX session
/// of its own on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hosted {
    /// The child that leads the session on it (its controlling terminal is the hosted one).
    pub leader: i32,
    /// The terminal's foreground process group.
    pub group: i32,
}

/// The terminals the live members of group `pgrp` (in session `sid`, among `candidates` when
/// given) host ([`Hosted`]), at most [`HOSTED_GROUPS`]; none where `/proc` cannot tell.
pub(crate) fn hosted_by_group(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
) -> Vec<Hosted> {
    #[cfg(target_os = "linux")]
    {
        if pgrp <= 0 || !numbers_ours() {
            return Vec::new();
        }
        linux::hosted_by_group(pgrp, sid, candidates)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates);
        Vec::new()
    }
}

#[cfg(not(target_os = "linux"))]
const UNSUPPORTED: &str = "process inspection via /proc is only supported on Linux";

/// Why nothing is read from `/proc` when [`numbers_ours`] is false.
#[cfg(target_os = "linux")]
const NOT_OURS: &str = "/proc is mounted for another PID namespace than this process's";

/// Whether `/proc` numbers processes as this process does, that is, is mounted for its PID
/// namespace (`/proc/self/stat` gives this process's own pid). Under `unshare --pid` without
/// a new `/proc`, the pids there are another namespace's: a scan would take strangers for a
/// session's processes, and signal them. When it is false, nothing is read from `/proc`
/// (whether a program waits for input is then unknown, and sessions are ended through their
/// process groups and cgroups alone). Read once.
#[cfg(target_os = "linux")]
pub(crate) fn numbers_ours() -> bool {
    static OURS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OURS.get_or_init(|| {
        self_stat().is_some_and(|stat| u32::try_from(stat.pid) == Ok(std::process::id()))
    })
}

/// This process's own `/proc/self/stat` (its group and POSIX session as the kernel reports
/// them: 0 for one led from outside its PID namespace), when `/proc` is its namespace's.
#[cfg(target_os = "linux")]
pub(crate) fn own_stat() -> Option<ProcStat> {
    numbers_ours().then(self_stat)?
}

#[cfg(target_os = "linux")]
fn self_stat() -> Option<ProcStat> {
    parse_stat(&std::fs::read("/proc/self/stat").ok()?).ok()
}

#[cfg(not(target_os = "linux"))]
fn unsupported() -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, UNSUPPORTED)
}

/// Scans `/proc` and returns the processes accepted by `keep`, sorted by pid.
fn scan_processes(keep: impl FnMut(&ProcStat) -> bool) -> Vec<ProcStat> {
    #[cfg(target_os = "linux")]
    {
        linux::scan(keep)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = keep;
        Vec::new()
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

/// Parses the contents of a `/proc/PID/stat` (or `/proc/PID/task/TID/stat`)
/// file.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_stat(data: &[u8]) -> io::Result<ProcStat> {
    let open = data.iter().position(|&b| b == b'(').ok_or_else(|| invalid("stat: missing '('"))?;
    let close =
        data.iter().rposition(|&b| b == b')').ok_or_else(|| invalid("stat: missing ')'"))?;
    if close < open {
        return Err(invalid("stat: ')' before '('"));
    }
    let pid = std::str::from_utf8(&data[..open])
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
        .ok_or_else(|| invalid("stat: bad pid"))?;
    let comm = String::from_utf8_lossy(&data[open + 1..close]).into_owned();
    let rest =
        std::str::from_utf8(&data[close + 1..]).map_err(|_| invalid("stat: non-UTF-8 fields"))?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields
        .next()
        .and_then(|s| {
            let mut chars = s.chars();
            let c = chars.next()?;
            chars.next().is_none().then_some(c)
        })
        .ok_or_else(|| invalid("stat: bad state"))?;
    let mut next_i32 = |name: &str| -> io::Result<i32> {
        fields
            .next()
            .and_then(|s| s.parse::<i32>().ok())
            .ok_or_else(|| invalid(&format!("stat: bad {name}")))
    };
    let ppid = next_i32("ppid")?;
    let pgrp = next_i32("pgrp")?;
    let session = next_i32("session")?;
    let tty_nr = next_i32("tty_nr")?;
    let tpgid = next_i32("tpgid")?;
    Ok(ProcStat { pid, comm, state, ppid, pgrp, session, tty_nr, tpgid })
}

/// Human-readable description of a scheduler state.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn describe_state(state: char) -> String {
    let desc = match state {
        'R' => "running",
        'S' => "sleeping",
        'D' => "in uninterruptible sleep",
        'T' => "stopped",
        't' => "stopped by a tracer",
        'Z' => "a zombie",
        'X' | 'x' => "dead",
        'I' => "an idle kernel thread",
        'P' => "parked",
        'W' => "waking",
        'K' => "being killed",
        _ => return format!("in state '{state}'"),
    };
    format!("{desc} ({state})")
}

/// What one thread is doing, as far as input waiting is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Activity {
    /// Sleeping in a read/poll-family call (name of call or wait channel).
    Input(String),
    /// Sleeping in something else (description).
    Other(String),
    /// Not sleeping; the scheduler state.
    NotSleeping(char),
    /// Could not be determined (reason).
    Unknown(String),
}

/// One observed thread of a process.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct ThreadObs {
    tid: i32,
    activity: Activity,
    /// The timer of a clock the thread sleeps on that goes off soon (see [`CLOCK_HORIZON`]):
    /// a sleep's, or the timeout of a wait on the world outside (an event loop's next timer).
    clock: Option<std::time::Duration>,
    /// A short sleep the thread is in that is an idle tick or a repeated one (see
    /// [`SleepTick`]).
    tick: Option<SleepTick>,
    /// What is left at least of a sleep the thread is in, when more than [`CLOCK_HORIZON`]
    /// (see `linux::sleep_left`): one no default wait can wait for (`sleep 300`).
    long_sleep: Option<std::time::Duration>,
}

/// A sleep of a known length a thread is in, when it says the program only ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct SleepTick {
    timer: std::time::Duration,
    /// The terminal has been quiet for longer than [`IDLE_TICKS`] such sleeps, the thread seen
    /// going back to it, or [`FOLLOWED_SLEEPS`] otherwise: the program ticks with nothing to
    /// print.
    idle: bool,
    /// [`TimerSightings`] saw the thread in the same sleep (of [`SHORTEST_TICK`] to
    /// [`CLOCK_HORIZON`]) before, and it has woken and gone back to it since: it sleeps on it
    /// again and again (`watch`, whatever it prints).
    repeated: bool,
}

/// Combines the observations of a process's live threads (main thread
/// first) into an answer. `who` names the process, e.g. `pid 12 (cat)`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn decide(pid: i32, who: &str, threads: &[ThreadObs]) -> InputWait {
    let name = |t: &ThreadObs| {
        if t.tid == pid { who.to_string() } else { format!("thread {} of {who}", t.tid) }
    };
    if threads.is_empty() {
        return InputWait::NotWaiting { reason: format!("{who} has no live threads") };
    }
    if let Some((t, state)) = threads.iter().find_map(|t| match t.activity {
        Activity::NotSleeping(s) => Some((t, s)),
        _ => None,
    }) {
        return InputWait::NotWaiting {
            reason: format!("{} is {}", name(t), describe_state(state)),
        };
    }
    if threads.iter().any(|t| matches!(t.activity, Activity::Input(_))) {
        return InputWait::Waiting { reader: Some(pid) };
    }
    if let Some((t, why)) = threads.iter().find_map(|t| match &t.activity {
        Activity::Unknown(why) => Some((t, why)),
        _ => None,
    }) {
        return InputWait::Unknown { reason: format!("{}: {why}", name(t)) };
    }
    let (t, what) = threads
        .iter()
        .find_map(|t| match &t.activity {
            Activity::Other(what) => Some((t, what.as_str())),
            _ => None,
        })
        .unwrap_or((&threads[0], "something else"));
    InputWait::NotWaiting {
        reason: format!("{} is sleeping in {what}, not in a wait for the terminal", name(t)),
    }
}

/// Whether an [`InputWait::Unknown`] reason says `/proc` refused to show a process (another
/// user's, or one that is not dumpable), rather than a passing state (a process between
/// `fork` and `exec`, a group being formed).
pub(crate) fn denied(reason: &str) -> bool {
    reason.contains(&io::Error::from_raw_os_error(EACCES).to_string())
        || reason.contains(&io::Error::from_raw_os_error(EPERM).to_string())
}

/// Whether a [`InputWait::NotWaiting`] `reason` is `ssh`'s wait for its far end's verdict on
/// a password or passphrase (see [`TerminalSeen::unanswered_secret`]): a busy wait of the
/// world outside, which a wait for silence is not ended by while it lasts.
pub(crate) fn awaits_far_end(reason: &str) -> bool {
    reason.contains(AWAITING_FAR_END)
}

/// A poll-family wait with a timeout up to this is a timer, not a final wait for input: vim
/// waits up to 'timeoutlen' (1 s by default) after an Escape for the rest of a key code and
/// 100 ms for the terminal's answers on its way out, and then changes the screen or exits.
/// Longer timeouts are a program's idle ticks (htop: 1.5 s, vim: 4 s) and it waits for input
/// meanwhile, unless the screen shows it has not answered the line submitted to it and it
/// waits on more than the terminal (see [`Shown::Unanswered`]).
pub(crate) const SHORT_TIMER: std::time::Duration = std::time::Duration::from_secs(1);
/// How much longer than a short timer the terminal must have been quiet before a poll with
/// that timer counts as an idle tick (see [`group_input_wait`]).
pub(crate) const TIMER_SLACK: std::time::Duration = std::time::Duration::from_millis(100);
/// The shortest short timer that counts as a tick once it went off and was set again while
/// the screen changed (see [`TimerSightings`]): a monitor's refresh (`top -d 1`), not a
/// spinner's frame (a spinner that also reads the terminal is still busy).
pub(crate) const SHORTEST_TICK: std::time::Duration = std::time::Duration::from_millis(500);
/// [`SHORTEST_TICK`] for the timer of a program that reads the terminal on the alternate
/// screen: a monitor refreshed more often than twice a second (`htop -d 3`, 0.3 s) read as
/// busy, and every call waited the default wait's 10 s, though it waits for keys. Such a
/// program takes keys between its frames, whatever they show (a loading screen's spinner
/// drawn on a 250 ms tick too, as on htop's 1.5 s one); a spinner's own frames (50-150 ms)
/// stay below it. A sleep (not a read) is a tick only from [`SHORTEST_TICK`] on: a program
/// that takes no keys while it draws is working.
pub(crate) const SHORTEST_FULL_SCREEN_TICK: std::time::Duration =
    std::time::Duration::from_millis(200);
/// A clock that goes off within this keeps a program that otherwise waits on the world
/// outside busy (see [`InputWait::Outside`]): it wakes to do something (`asyncio.sleep(3)`
/// is the timeout of an event loop's wait on its socket, a thread sleeps beside one blocked
/// in `accept`). One further off is no answer the default wait (10 s) can wait for: node's
/// HTTP server polls with a 30 s timer. A timer that went off without a change and was set
/// again is an idle tick, and keeps nothing busy (a server's 0.5 s poll, a reloader's 1 s
/// sleep).
pub(crate) const CLOCK_HORIZON: std::time::Duration = std::time::Duration::from_secs(10);
/// A process group asleep (waiting on its members, on pipes, on clocks) with a member in a
/// short sleep (up to [`SHORT_TIMER`]) that [`TimerSightings`] saw it go back to (it woke
/// since it was seen in it), while the terminal has been quiet for longer than this many such
/// sleeps (and [`TIMER_SLACK`]), is ticking on a timer with nothing to print, an idle tick: it
/// waits on the world outside ([`InputWait::Outside`], which the default wait takes as settled
/// once quiet), not busy (`less +F`'s 2 ms sleeps between looks at the file it follows). A
/// sleep seen once, or after output, is a step of work (`sleep 1; echo done`), and so is a
/// longer one. A sleep in a process not seen in it before counts only after
/// [`FOLLOWED_SLEEPS`].
pub(crate) const IDLE_TICKS: u32 = 2;
/// A short sleep in a process not seen going back to it (see [`IDLE_TICKS`]) is an idle tick
/// only once the terminal has been quiet for longer than this many such sleeps (and
/// [`TIMER_SLACK`]). A shell runs every `sleep` as a process of its own, in a loop polling the
/// world outside (`while sleep 1; do :; done`, `until nc -z host 80; do sleep 0.5; done`) as
/// in a script's steps (`sleep 1; sleep 1; sleep 1; echo done`), and `/proc` cannot tell the
/// two apart (the same parent, the same command, a new pid each time): a run of up to this
/// many sleeps with nothing printed is followed as work, a longer one is taken for a loop,
/// which then settles well within the default wait's 10 s. (A run of two sleeps of a second
/// was taken for a loop, and the default wait ended before the script's `echo done`.)
pub(crate) const FOLLOWED_SLEEPS: u32 = 5;
/// The timer [`TimerSightings`] records for a sleep until a point in time (whose length is
/// not known, only what is left of it).
const SLEEP_UNTIL: std::time::Duration = std::time::Duration::MAX;

/// What a probe of a group ([`group_input_wait`]) is told of its terminal; the default: quiet
/// for no time, no timers seen before, no relay looked for, nothing shown that tells.
#[derive(Debug, Clone, Copy, Default)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct TerminalSeen<'a> {
    /// How long the terminal has been quiet (see [`group_input_wait`]).
    pub(crate) quiet: std::time::Duration,
    /// The short timers earlier probes saw.
    pub(crate) timers: Option<&'a TimerSightings>,
    /// The terminal's relay outside its session, looked for once per group; `None`: not
    /// looked for.
    pub(crate) outside: Option<&'a OutsideRelay>,
    /// What the terminal shows at its cursor.
    pub(crate) shown: Shown,
    /// Input was sent and nothing drawn since answers it (no output since it, a submitted
    /// line whose line break has not come back, or the visible cursor at the start of a blank
    /// row below a row of text). A program on this machine is judged by what it waits on; a
    /// relay to a terminal across the network (`ssh`), which waits on the terminal and its
    /// connection whatever the far end does, waits on the world outside until the far end
    /// answers (a prompt; a full-screen program's redraw).
    pub(crate) unanswered_input: bool,
    /// No input was sent yet, and nothing drawn answers the start (no output, or the visible
    /// cursor at the start of a blank row below a row of text): `ssh`, whose far end greets
    /// first (`Last login: ...`, then its prompt), waits on the world outside until then.
    pub(crate) unanswered_start: bool,
    /// [`TerminalSeen::unanswered_input`], and that input was typed while the terminal echoed
    /// nothing (a password, a passphrase): `ssh` on its connection alone owes the far end's
    /// verdict on it, for up to [`FAR_END_VERDICT`].
    pub(crate) unanswered_secret: bool,
    /// The cursor is hidden at the start of a blank row right below the line submitted last,
    /// the last input: for `ssh`, a far end's program that hid it before its first frame
    /// (`top`), which has not answered the line yet (a local program is judged by what it
    /// waits on: a TUI on the primary screen leaves the cursor hidden so).
    pub(crate) hidden_below_line: bool,
    /// The terminal was written to since its last input (or had none), and that input did
    /// not end in an unfinished key code, a lone Escape or `ESC [` (whose rest the program
    /// may still be waiting for, whatever it drew for the keys before it): a monitor's redraw
    /// after a key,
    /// which lets a tick found before the key count after it (see [`TimerSightings`]).
    pub(crate) drawn_since_input: bool,
    /// The terminal shows its alternate screen, or its program redraws the whole primary
    /// screen from its top-left frame after frame (`top`): a full-screen program, whose timer
    /// of [`SHORTEST_FULL_SCREEN_TICK`] or more on a read of the terminal is a refresh (`htop
    /// -d 3`, `top -d 0.3`), not a spinner's frame.
    pub(crate) full_screen: bool,
    /// How long ago the terminal's last input was sent (`None`: none was): a program a relay
    /// hosts that started since then and is busy is busy with it (see `linux::judge_relay`).
    pub(crate) since_input: Option<std::time::Duration>,
}

/// What a probe knows beside `/proc`.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Probe<'a> {
    /// How long the terminal has been quiet (see [`group_input_wait`]).
    quiet: std::time::Duration,
    /// The short timers earlier probes saw.
    timers: Option<&'a TimerSightings>,
    /// What this probe has looked at so far.
    looks: &'a Looks,
    /// The terminal's relay outside its session, looked for once per group; `None`: not
    /// looked for.
    outside: Option<&'a OutsideRelay>,
    /// What the terminal shows at its cursor.
    shown: Shown,
    /// Nothing drawn answers the last input (see [`TerminalSeen`]).
    unanswered_input: bool,
    /// Nothing drawn answers the start, with no input yet (see [`TerminalSeen`]).
    unanswered_start: bool,
    /// Nothing drawn answers a password typed last (see [`TerminalSeen`]).
    unanswered_secret: bool,
    /// The cursor hidden right below the line submitted last (see [`TerminalSeen`]).
    hidden_below_line: bool,
    /// The terminal was written to since its last input (see [`TerminalSeen`]).
    drawn_since_input: bool,
    /// The terminal shows a full-screen program (see [`TerminalSeen`]).
    full_screen: bool,
    /// How long ago the last input was sent (see [`TerminalSeen`]).
    since_input: Option<std::time::Duration>,
    /// The process looked at is a relay (a tmux server, see `linux::relays`) and the
    /// terminal was drawn on since its last input: a short timer of its own is its clock
    /// (tmux renames its windows 500 ms after their output), not a wait for the rest of a key
    /// code, which follows input with nothing drawn (tmux's `escape-time` after an Escape).
    relay_clock: bool,
}

impl Probe<'_> {
    /// The shortest timer of a wait that includes the terminal that counts as a tick once it
    /// went off and was set again: shorter on a full-screen program's terminal (see
    /// [`SHORTEST_FULL_SCREEN_TICK`]).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn shortest_tick(&self) -> std::time::Duration {
        match self.full_screen {
            true => SHORTEST_FULL_SCREEN_TICK,
            false => SHORTEST_TICK,
        }
    }
}

/// What a terminal taking keys (not whole lines) shows at its cursor, on the primary screen,
/// which tells a poll's timer in a line editor (a REPL's) from a wait for input: a line editor
/// draws its prompt before it waits for the next line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Shown {
    /// Nothing that tells (a full-screen program, whole lines, anything else).
    #[default]
    Other,
    /// No prompt: the cursor waits at the start of a blank row, below what the program
    /// printed last, on the line right after the one the last submitted line was typed on (a
    /// line submitted to a REPL, echoed, and no answer yet; a line the program printed before
    /// it asks for a key, `echo 'Press a key'; read -n1 -t 8`, is not one), or on that line
    /// with nothing drawn since (not even its echo: a line typed while node's REPL awaits),
    /// with no input since that drew anything (keys typed while it awaits, which it reads
    /// only then, leave it unanswered: they read as a wait for keys before the answer). A
    /// poll of the terminal with a timer, whatever its length, is the program's work on a
    /// clock before it answers (node's REPL awaiting `setTimeout(r, 3000)` polls with the
    /// timer's 3 s, awaiting one of 15 s with 15 s or with its own timers' nearer ones, 8 s,
    /// then 0.6 s), not a wait for input, until the timer goes off and is set again (see
    /// [`TimerSightings`]): the terminal's quiet alone makes no short timer an idle tick here.
    /// The default wait follows it to its cap, as it does a sleep. (A timer beyond
    /// [`CLOCK_HORIZON`] read as waiting for input at once, and a short one between two
    /// longer ones once the terminal had been quiet for longer than it, before the answer.)
    /// A poll with no timer waits for input: the program asks for a line or a key without a
    /// prompt (`input()` in Python's REPL, `read -n1`), or awaits what only input can bring.
    /// So does a poll of the terminal alone (no other descriptor, to read or to write) with a
    /// timer longer than [`SHORT_TIMER`]: only a key or the deadline can wake it, a key or a
    /// line asked for with a timeout (`read -n1 -t 30` typed at bash's prompt polls descriptor
    /// 0 alone with `pselect6`), where an event loop working on a timer also waits on its own
    /// descriptors (node's REPL: a pipe and an eventfd beside the terminal). (It read as busy
    /// until the timeout, or the default wait's cap.) A short timer there is still waited
    /// out: it is about to change the screen.
    Unanswered,
    /// A prompt: the visible cursor stands right after the text of its row, and the program
    /// printed since the last input (it answered). A poll of the terminal with a short timer
    /// is then a clock of the program's own (V8's delayed tasks in node's REPL), not a wait
    /// for the rest of a key code (which follows input with nothing printed): it waits for
    /// input.
    Prompt,
}

/// What was found of a terminal's relay outside its session (the tmux server a client of the
/// session attached to), for one foreground group: `(group, relay)`, looked for once per
/// group ([`outside_relay`]).
pub(crate) type OutsideRelay = std::cell::Cell<Option<(i32, Option<i32>)>>;

/// The most relays (see `linux::relays`) one probe judges: a relay's client in a program it
/// hosts (tmux in a tmux pane) has a relay of its own, and so on.
const RELAYS_JUDGED: usize = 8;

/// The most groups hosted by relays (tmux's panes) one probe looks at.
const HOSTED_GROUPS: usize = 64;

/// The most descriptors one probe looks at, all threads' waits and all relays together (each
/// wait's at most `WATCHED_LOOKED_AT`, 1,024): a process's threads share its descriptors, and
/// 300 threads polling the same 1,000 took 600,000 looks (and a second of the reactor) a
/// probe, as did 300 processes holding 1,000 descriptors each beside a relay's client.
const PROBE_DESCRIPTORS: usize = 4096;

/// What one probe has looked at, which bounds its work whatever the processes are: the relays
/// it judged, each once (processes can be arranged so that a relay hosts its own client, and
/// judging it again and again overflowed the reactor's stack), how many more hosted groups
/// and how many more descriptors ([`PROBE_DESCRIPTORS`]) it may look at.
#[derive(Debug)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Looks {
    /// The relays judged, with the verdict (`None` while it is being judged: met again then,
    /// the relay hosts its own client, which waits on nothing but itself).
    relays: std::cell::RefCell<Vec<(i32, Option<bool>)>>,
    /// The hosted groups this probe may still look at.
    hosted: std::cell::Cell<usize>,
    /// Why a program a judged relay hosts is busy with the last input (see
    /// `linux::judge_relay`), the first one found.
    busy_hosted: std::cell::RefCell<Option<String>>,
    /// The descriptors this probe may still look at.
    descriptors: std::cell::Cell<usize>,
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl Looks {
    fn new() -> Self {
        Looks {
            relays: Default::default(),
            hosted: std::cell::Cell::new(HOSTED_GROUPS),
            busy_hosted: Default::default(),
            descriptors: std::cell::Cell::new(PROBE_DESCRIPTORS),
        }
    }

    /// Takes `n` descriptors to look at: `false`, and none left after, when fewer are left.
    fn take(&self, n: usize) -> bool {
        let left = self.descriptors.get();
        self.descriptors.set(left.saturating_sub(n));
        left >= n
    }

    /// Whether the probe has looked at all the descriptors it may.
    fn spent(&self) -> bool {
        self.descriptors.get() == 0
    }
}

/// The short-timer waits earlier probes of one terminal's processes saw since its last input:
/// a thread seen again in a wait on the same timer after it woke in between (its voluntary
/// context switches grew), with no input in between, has a timer that goes off and is set
/// again, a monitor's tick (`top -d 1` redraws every second and reads keys between), rather
/// than a timer set once before the program changes the screen (vim's wait for the rest of a
/// key code after an Escape, followed by a longer wait, or after the next Escape by the same
/// wait: input in between). Sleeps until a point in time are recorded too, as [`SLEEP_UNTIL`]
/// (see [`CLOCK_HORIZON`]), and so are a poll's timers of any length with no prompt shown (see
/// [`Shown::Unanswered`]) and short sleeps (see [`IDLE_TICKS`]). Holds the last
/// [`TIMERS_KEPT`] threads seen.
///
/// A wait found repeated before an input is carried across it (and only such a one): a
/// monitor polling the terminal, seen back on the same timer once it woke (read the key) and
/// the terminal was written to since the input (it redrew), waits for input at once. `top -d
/// 1` and a curses program in `halfdelay(10)` set their full second again after each key, and
/// read as waiting only a second after each key when every sighting was forgotten at the
/// input; so is a sleep found repeated, once the program drew again (`watch -n 5`, after a
/// key it never reads, settled only after two ticks, 10 s). A wait on the same timer with nothing drawn since the input is no answer: ncurses
/// waits its `ESCDELAY`, a second too, for the rest of a key code after an Escape before the
/// program redraws. A timer set once after a key (vim's 'timeoutlen') was never found
/// repeated before it, and is waited out as before. What is carried stays until the thread
/// is seen on a timer again (across further input while it waits with no timer: `top`'s
/// prompt for a line).
#[derive(Debug, Default)]
pub(crate) struct TimerSightings {
    /// The time of the terminal's last input when these were seen.
    input: std::cell::Cell<Option<std::time::Instant>>,
    /// The newest first.
    seen: std::cell::RefCell<Vec<TimerSighting>>,
    /// The waits found repeated before the last input, carried across it.
    carried: std::cell::RefCell<Vec<TimerSighting>>,
}

/// How many threads' timers [`TimerSightings`] keeps: a monitor's thread and the threads of
/// its own that sleep beside it (each probe records them all, in turn: with room for four,
/// four sleepers pushed the monitor's timer out before it was seen again). A program with more
/// threads on timers than this has its monitor's tick found only when fewer of them sleep.
const TIMERS_KEPT: usize = 64;

/// One thread seen waiting on a short timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TimerSighting {
    tid: i32,
    timer: std::time::Duration,
    /// The thread's voluntary context switches then.
    wakeups: u64,
    /// Whether the wait was found to be a repeated one (and stays so while the thread sleeps).
    ticking: bool,
}

impl TimerSightings {
    /// Forgets what was seen before the terminal's last input, `input`, but for the waits
    /// found repeated, which are carried across it (see [`TimerSightings`]).
    pub(crate) fn since_input(&self, input: std::time::Instant) {
        if self.input.replace(Some(input)) != Some(input) {
            let mut seen = self.seen.borrow_mut();
            let mut carried = self.carried.borrow_mut();
            carried.retain(|c| !seen.iter().any(|s| s.tid == c.tid));
            carried.extend(seen.drain(..).filter(|s| s.ticking));
            let excess = carried.len().saturating_sub(TIMERS_KEPT);
            carried.drain(..excess);
        }
    }

    /// Records that thread `tid` waits on `timer`, having switched `wakeups` times, and says
    /// whether it was seen on the same timer before with fewer switches (or in the same wait,
    /// already found repeated), since the last input; or, when `carry` (a poll of the
    /// terminal or a sleep, written to since the input), found repeated on it before the
    /// input, and woken since.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn repeated(&self, tid: i32, timer: std::time::Duration, wakeups: u64, carry: bool) -> bool {
        let mut seen = self.seen.borrow_mut();
        let earlier = seen.iter().position(|s| s.tid == tid);
        let ticking = earlier.map(|i| seen[i]).is_some_and(|s| {
            s.timer == timer && (s.wakeups < wakeups || (s.wakeups == wakeups && s.ticking))
        }) || carry
            && self
                .carried
                .borrow()
                .iter()
                .any(|c| c.tid == tid && c.timer == timer && c.wakeups < wakeups);
        // A thread seen again moves to the front; past the bound the oldest goes.
        match earlier {
            Some(i) => {
                seen.remove(i);
            }
            None if seen.len() >= TIMERS_KEPT => {
                seen.pop();
            }
            None => {}
        }
        seen.insert(0, TimerSighting { tid, timer, wakeups, ticking });
        ticking
    }
}

/// Whether a process only waits on others, or on a clock: every thread asleep waiting for a
/// child (`wait4`, `waitid`), for a signal (`pause`, `rt_sigsuspend`: GNU screen's client,
/// while its server, a child that left the session, reads the terminal), on a pipe (reading
/// or writing it, or polling pipes alone, as man does between its formatter and its pager),
/// or in a sleep (`nanosleep`: a job a shell without job control started in the background,
/// `sleep 300 &`, shares the foreground group with the program that reads).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn idle_behind(threads: &[ThreadObs]) -> bool {
    !threads.is_empty()
        && threads.iter().all(|t| match &t.activity {
            Activity::Other(what) => {
                matches!(
                    what.as_str(),
                    "wait4"
                        | "waitid"
                        | "do_wait"
                        | "pipe_read"
                        | "pipe_write"
                        | "nanosleep"
                        | "clock_nanosleep"
                        | "hrtimer_nanosleep"
                        | "do_nanosleep"
                ) || SIGNAL_WAITS.contains(&what.as_str())
                    || what.starts_with("anon_pipe")
                    || (what.starts_with("read") && what.contains(" on pipe:"))
                    || what.ends_with(" on pipes")
                    || what == "write"
            }
            _ => false,
        })
}

/// The waits for a signal, as a thread's activity names them.
const SIGNAL_WAITS: [&str; 3] = ["pause", "rt_sigsuspend", "sigsuspend"];

/// Whether a process waits for a signal alone: every thread in `pause` or `rt_sigsuspend`
/// (GNU screen's client, while its server reads the terminal).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn waits_for_signal(threads: &[ThreadObs]) -> bool {
    !threads.is_empty()
        && threads.iter().all(|t| {
            matches!(&t.activity, Activity::Other(what) if SIGNAL_WAITS.contains(&what.as_str()))
        })
}

/// How a poll-family wait on descriptors none of which is the terminal (nor all of them pipes,
/// nor sockets alone) is described (after the call's name).
const NOT_THE_TERMINAL: &str = "on descriptors that are not the terminal";

/// Whether a process waits on the world outside the terminal and its own processes, with no
/// clock of its own: every thread asleep, at least one in a wait on sockets, on a file it
/// follows (inotify) or on other descriptors that are neither the terminal nor pipes (a
/// server, `tail -f`), the others waiting as [`idle_behind`] tells or on a lock (a worker
/// pool's threads). A poll with no descriptor is a sleep (see `polling_terminal`), not this.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn waits_outside(threads: &[ThreadObs]) -> bool {
    let outside = |t: &ThreadObs| match &t.activity {
        Activity::Other(what) => {
            what.ends_with(NOT_THE_TERMINAL)
                || what.ends_with(ON_SOCKETS)
                || what.ends_with(ON_NETWORK)
                || matches!(what.as_str(), "accept" | "accept4" | "recvfrom" | "recvmsg")
                || (what.starts_with("read")
                    && (what.contains(" on socket:") || what.contains(" on anon_inode:inotify")))
        }
        _ => false,
    };
    let on_a_lock =
        |t: &ThreadObs| matches!(&t.activity, Activity::Other(what) if what.starts_with("futex"));
    threads.iter().any(outside)
        && threads
            .iter()
            .all(|t| outside(t) || on_a_lock(t) || idle_behind(std::slice::from_ref(t)))
}

/// How a poll-family wait on the terminal and a network connection, with nothing drawn that
/// answers the last input, is described (after the call's name): a relay to a terminal at the
/// far end (see `polling_terminal`), waiting on the world outside.
const ON_NETWORK: &str =
    "relaying the terminal across the network, which has not answered the input";

/// How `ssh`'s wait on its connection alone, before the far end answered a password typed
/// last, is described (after the call's name): busy, the far end's verdict due (see
/// `polling_terminal`).
const AWAITING_FAR_END: &str = "on its connection, for the far end's verdict on the password";

/// How long after a password typed to `ssh` its wait on its connection alone is taken for a
/// wait for the far end's verdict (sshd refuses a wrong one after a delay of up to about 5 s;
/// a tunnel, `ssh -N`, lets in without a word).
const FAR_END_VERDICT: std::time::Duration = std::time::Duration::from_secs(8);

/// The table of `/proc/PID/net` that lists a socket of the protocol the kernel names `name`
/// (the `system.sockprotoname` attribute of its descriptor, with or without a final NUL):
/// `tcp`, `tcp6`, `udp` or `udp6` for the Internet's, `None` for a local one (`UNIX-STREAM`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn inet_table(name: &[u8]) -> Option<&'static str> {
    match name.strip_suffix(b"\0").unwrap_or(name) {
        b"TCP" => Some("tcp"),
        b"TCPv6" => Some("tcp6"),
        b"UDP" => Some("udp"),
        b"UDPv6" => Some("udp6"),
        _ => None,
    }
}

/// Whether the socket with inode `inode` is connected, by its line in a `/proc/PID/net/tcp`
/// style `table` (the state, 4th field, `01`: established, which a connected UDP socket shows
/// too; the inode the 10th); `None` when it is not listed.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn connected_in(table: &str, inode: u64) -> Option<bool> {
    let inode = inode.to_string();
    table.lines().skip(1).find_map(|line| {
        let mut fields = line.split_ascii_whitespace();
        let state = fields.nth(3)?;
        (fields.nth(5)? == inode).then_some(state == "01")
    })
}

/// How a poll-family wait on sockets and pipes alone is described (after the call's name).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const ON_SOCKETS: &str = "on sockets";

/// Whether a process waits on sockets: some thread polls sockets (and pipes) alone, and every
/// other one waits as [`idle_behind`] tells, as a tmux client does while its server reads the
/// terminal.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn on_sockets(threads: &[ThreadObs]) -> bool {
    let polls_sockets =
        |t: &ThreadObs| matches!(&t.activity, Activity::Other(what) if what.ends_with(ON_SOCKETS));
    threads.iter().any(polls_sockets)
        && threads.iter().all(|t| polls_sockets(t) || idle_behind(std::slice::from_ref(t)))
}

/// Kernel wait channels that indicate a terminal read or a poll-family
/// wait. `pipe_read`/`anon_pipe_read` are deliberately absent: a pipe is not
/// terminal input (a `read` syscall on a pipe is still recognised through
/// `/proc/PID/syscall`).
const INPUT_WCHANS: &[&str] = &[
    "n_tty_read",
    "tty_read",
    "wait_woken",
    "do_select",
    "core_sys_select",
    "do_sys_poll",
    "poll_schedule_timeout",
    "ep_poll",
    "do_epoll_wait",
    "do_epoll_pwait",
];

/// Classifies the contents of a `wchan` file. `None` means no wait channel
/// is available (`0`, empty, or hidden by the kernel).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn classify_wchan(raw: &str) -> Option<Activity> {
    let raw = raw.trim();
    if raw.is_empty() || raw == "0" {
        return None;
    }
    // Strip compiler suffixes such as `.constprop.0` or `.isra.0`.
    let base = raw.split('.').next().unwrap_or(raw);
    if INPUT_WCHANS.contains(&base) {
        Some(Activity::Input(base.to_string()))
    } else {
        Some(Activity::Other(base.to_string()))
    }
}

/// Parsed first field of `/proc/PID/syscall`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum SyscallField {
    /// The task is running.
    Running,
    /// Blocked in the kernel, but not in a system call (`-1`).
    NotInSyscall,
    /// Blocked in this system call number.
    Nr(i64),
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_syscall(text: &str) -> Option<SyscallField> {
    match text.split_ascii_whitespace().next()? {
        "running" => Some(SyscallField::Running),
        "-1" => Some(SyscallField::NotInSyscall),
        n => n.parse::<i64>().ok().map(SyscallField::Nr),
    }
}

/// `(number, name, is_input)` for the current architecture, or `None` where
/// the numbers are not known (then only `wchan` is used).
#[cfg(target_arch = "x86_64")]
const SYSCALLS: Option<&[(i64, &str, bool)]> = Some(&[
    (0, "read", true),
    (1, "write", false),
    (7, "poll", true),
    (17, "pread64", true),
    (19, "readv", true),
    (23, "select", true),
    (34, "pause", false),
    (35, "nanosleep", false),
    (43, "accept", false),
    (45, "recvfrom", false),
    (47, "recvmsg", false),
    (61, "wait4", false),
    (73, "flock", false),
    (128, "rt_sigtimedwait", false),
    (130, "rt_sigsuspend", false),
    (202, "futex", false),
    (215, "epoll_wait_old", true),
    (230, "clock_nanosleep", false),
    (232, "epoll_wait", true),
    (247, "waitid", false),
    (270, "pselect6", true),
    (271, "ppoll", true),
    (281, "epoll_pwait", true),
    (288, "accept4", false),
    (295, "preadv", true),
    (327, "preadv2", true),
    (426, "io_uring_enter", false),
    (441, "epoll_pwait2", true),
]);

/// `(number, name, is_input)` for the current architecture, or `None` where
/// the numbers are not known (then only `wchan` is used).
#[cfg(target_arch = "aarch64")]
const SYSCALLS: Option<&[(i64, &str, bool)]> = Some(&[
    (22, "epoll_pwait", true),
    (63, "read", true),
    (64, "write", false),
    (65, "readv", true),
    (67, "pread64", true),
    (69, "preadv", true),
    (72, "pselect6", true),
    (73, "ppoll", true),
    (95, "waitid", false),
    (98, "futex", false),
    (101, "nanosleep", false),
    (115, "clock_nanosleep", false),
    (133, "rt_sigsuspend", false),
    (137, "rt_sigtimedwait", false),
    (202, "accept", false),
    (207, "recvfrom", false),
    (212, "recvmsg", false),
    (242, "accept4", false),
    (260, "wait4", false),
    (286, "preadv2", true),
    (426, "io_uring_enter", false),
    (441, "epoll_pwait2", true),
]);

/// `(number, name, is_input)` for the current architecture, or `None` where
/// the numbers are not known (then only `wchan` is used).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const SYSCALLS: Option<&[(i64, &str, bool)]> = None;

/// Classifies a system call number, or `None` if this architecture's
/// numbers are unknown.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn classify_syscall(nr: i64) -> Option<Activity> {
    let table = SYSCALLS?;
    // x32 system calls carry __X32_SYSCALL_BIT; the common ones share numbers.
    #[cfg(target_arch = "x86_64")]
    let nr = nr & !0x4000_0000;
    Some(match table.iter().find(|(n, _, _)| *n == nr) {
        Some(&(_, name, true)) => Activity::Input(name.to_string()),
        Some(&(_, name, false)) => Activity::Other(name.to_string()),
        None => Activity::Other(format!("system call {nr}")),
    })
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{
        AWAITING_FAR_END, Activity, CLOCK_HORIZON, FAR_END_VERDICT, InputWait, Looks,
        NOT_THE_TERMINAL, ON_NETWORK, ON_SOCKETS, Probe, ProcStat, RELAYS_JUDGED, SLEEP_UNTIL,
        Shown, SleepTick, SyscallField, TIMER_SLACK, ThreadObs, classify_syscall, classify_wchan,
        connected_in, decide, describe_state, idle_behind, inet_table, is_dead, is_gone,
        on_sockets, parse_stat, parse_syscall, waits_for_signal, waits_outside,
    };
    use std::fs;

    /// Numeric entries of a `/proc`-style directory, ignoring errors.
    fn numeric_entries(dir: &str) -> std::io::Result<Vec<i32>> {
        let mut ids: Vec<i32> = fs::read_dir(dir)?
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|&id| id > 0)
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    pub(super) fn scan(mut keep: impl FnMut(&ProcStat) -> bool) -> Vec<ProcStat> {
        if !super::numbers_ours() {
            return Vec::new();
        }
        let Ok(pids) = numeric_entries("/proc") else {
            return Vec::new();
        };
        pids.into_iter()
            .filter_map(|pid| {
                let data = fs::read(format!("/proc/{pid}/stat")).ok()?;
                parse_stat(&data).ok()
            })
            .filter(|stat| keep(stat))
            .collect()
    }

    /// Observes one thread; `None` if it is gone or dead.
    pub(super) fn observe_thread(base: &str, tid: i32, probe: Probe<'_>) -> Option<ThreadObs> {
        let obs =
            |activity| Some(ThreadObs { tid, activity, clock: None, tick: None, long_sleep: None });
        let data = match fs::read(format!("{base}/stat")) {
            Ok(data) => data,
            Err(err) if is_gone(&err) => return None,
            Err(err) => return obs(Activity::Unknown(format!("stat unreadable: {err}"))),
        };
        let stat = match parse_stat(&data) {
            Ok(stat) => stat,
            Err(err) => return obs(Activity::Unknown(format!("unparsable stat: {err}"))),
        };
        if is_dead(&stat) {
            return None;
        }
        if stat.state != 'S' {
            return obs(Activity::NotSleeping(stat.state));
        }
        let syscall_problem = match fs::read_to_string(format!("{base}/syscall")) {
            Ok(text) => match parse_syscall(&text) {
                Some(SyscallField::Running) => return obs(Activity::NotSleeping('R')),
                Some(SyscallField::NotInSyscall) => {
                    return obs(Activity::Other("the kernel outside a system call".into()));
                }
                Some(SyscallField::Nr(nr)) => match classify_syscall(nr) {
                    Some(activity) => {
                        let activity = reading_terminal(base, tid, &text, activity, probe);
                        // (Read once: a sleep's timer is in the sleeping process's memory.)
                        let sleep = sleep_of(base, &text, &activity);
                        let left = sleep.and_then(|sleep| sleep_left(&data, sleep));
                        let clock = clock_due(base, tid, &text, &activity, sleep, left, probe);
                        let tick = sleep_tick(base, tid, sleep, probe);
                        let long_sleep = left.filter(|left| *left > CLOCK_HORIZON);
                        return Some(ThreadObs { tid, activity, clock, tick, long_sleep });
                    }
                    None => format!("system call {nr} unknown on this architecture"),
                },
                None => format!("unparsable syscall file {:?}", text.trim()),
            },
            Err(err) if err.raw_os_error() == Some(super::ESRCH) => return None,
            Err(err) if is_gone(&err) => {
                // Either the thread vanished or the kernel lacks the file.
                if fs::metadata(base).is_err() {
                    return None;
                }
                format!("syscall file unavailable: {err}")
            }
            Err(err) => format!("syscall file unreadable: {err}"),
        };
        match fs::read_to_string(format!("{base}/wchan")) {
            Ok(text) => match classify_wchan(&text) {
                Some(activity) => obs(activity),
                None => {
                    obs(Activity::Unknown(format!("{syscall_problem}, and wchan is not available")))
                }
            },
            Err(err) if is_gone(&err) && fs::metadata(base).is_err() => None,
            Err(err) => {
                obs(Activity::Unknown(format!("{syscall_problem}, and wchan is unreadable: {err}")))
            }
        }
    }

    /// A read or poll-family call (`activity`) counts as waiting for input only when it
    /// waits on the terminal: a shell reading a pipe (a command substitution) is not waiting
    /// for the user; for a poll-family call, see [`polling_terminal`].
    fn reading_terminal(
        base: &str,
        tid: i32,
        syscall: &str,
        activity: Activity,
        probe: Probe<'_>,
    ) -> Activity {
        let Activity::Input(name) = &activity else {
            return activity;
        };
        let other = if matches!(name.as_str(), "read" | "readv" | "pread64" | "preadv" | "preadv2")
        {
            read_elsewhere(base, name, syscall)
        } else {
            polling_terminal(base, tid, syscall, name, probe)
        };
        other.unwrap_or(activity)
    }

    /// What a read-family call waits on instead of the terminal, if its descriptor is not one.
    fn read_elsewhere(base: &str, name: &str, syscall: &str) -> Option<Activity> {
        let fd = syscall
            .split_ascii_whitespace()
            .nth(1)
            .and_then(|arg| i64::from_str_radix(arg.trim_start_matches("0x"), 16).ok())?;
        let target = fs::read_link(format!("{base}/fd/{fd}")).ok()?;
        let target = target.to_string_lossy();
        (!is_terminal(&target)).then(|| Activity::Other(format!("{name} on {target}")))
    }

    /// What a poll-family call waits on instead of the terminal's input, if anything: the
    /// terminal must be among the descriptors it waits on (or they cannot be read: another
    /// user's program), and its timer must not be a short one about to change the screen. A
    /// server polling its socket, or a loop sleeping in `select` with no descriptor, is not
    /// waiting for the user.
    fn polling_terminal(
        base: &str,
        tid: i32,
        syscall: &str,
        name: &str,
        probe: Probe<'_>,
    ) -> Option<Activity> {
        let looks = probe.looks;
        let watched = watches_terminal(base, name, syscall, looks);
        if watched.is_none() && looks.spent() {
            return Some(Activity::Unknown(format!(
                "{name} on more descriptors than one look at the processes takes"
            )));
        }
        if watched == Some(false) {
            // `ssh` on its connection alone, with nothing drawn that answers a password or
            // passphrase typed last: the far end owes its verdict (the next prompt, a refusal
            // after its delay for a wrong password, the greeting), so it is busy, not waiting
            // on the world outside; what is typed meanwhile would be echoed, then thrown away
            // by the next prompt. For a while: a tunnel (`ssh -N`) lets in without a word.
            if probe.unanswered_secret
                && probe.quiet < FAR_END_VERDICT
                && runs_ssh(base)
                && relays_across_network(base, name, syscall, looks, true)
            {
                return Some(Activity::Other(format!("{name} {AWAITING_FAR_END}")));
            }
            // A process that only shuttles data between pipes (man's pipeline between its
            // formatter and its pager) waits on the processes at their other ends.
            if waits_on_pipes(base, name, syscall, looks) {
                return Some(Activity::Other(format!("{name} on pipes")));
            }
            // A terminal multiplexer's client (tmux) waits on its server's socket while the
            // server reads the terminal (see [`group_wait`]).
            if waits_on_sockets(base, name, syscall, looks) {
                return Some(Activity::Other(format!("{name} {ON_SOCKETS}")));
            }
            // A loop sleeping in `select` with no descriptor waits on a clock.
            if watched_descriptors(base, name, syscall, true, looks)
                .is_some_and(|(fds, whole)| whole && fds.is_empty())
            {
                return Some(Activity::Other(format!("{name} on no descriptor (a sleep)")));
            }
            return Some(Activity::Other(format!("{name} {NOT_THE_TERMINAL}")));
        }
        // A relay to a terminal across the network (`ssh`, `telnet`: a wait on terminals and
        // Internet sockets alone, one connected) reads every key at once: what may be waited
        // for is at the far end, which `/proc` cannot see. Until the far end answers the last
        // input (see [`TerminalSeen::unanswered_input`]), it waits on the world outside,
        // whatever its timer (`ssh`'s keepalive); `ssh`, whose far end speaks first, also
        // until it answers the start, and it may reach the network through a proxy it started;
        // and while the cursor is hidden right below the line submitted to it, nothing drawn
        // (the far end's `top` before its first frame).
        if watched == Some(true)
            && (probe.unanswered_input || probe.unanswered_start || probe.hidden_below_line)
        {
            let ssh = runs_ssh(base);
            if (probe.unanswered_input || ssh)
                && relays_across_network(base, name, syscall, looks, ssh)
            {
                return Some(Activity::Other(format!("{name} {ON_NETWORK}")));
            }
        }
        // (A wait with no timer waits for input, with no prompt shown too: see
        // [`Shown::Unanswered`].)
        let timer = timeout(base, name, syscall)?;
        let short = timer <= super::SHORT_TIMER;
        // With no prompt shown, any timer is one, however far off (see [`Shown::Unanswered`]),
        // but for a longer one on the terminal alone: a key or a line asked for by a deadline.
        let unanswered = probe.shown == Shown::Unanswered
            && watched == Some(true)
            && (short || !waits_on_terminal_alone(base, name, syscall, looks));
        if !short && !unanswered {
            return None;
        }
        // A short timer at a prompt drawn since the last input is the program's own clock
        // (see [`Shown::Prompt`]), and so is a relay's once it drew (see [`Probe`]).
        if short && (probe.shown == Shown::Prompt || probe.relay_clock) {
            return None;
        }
        // A short timer that went off without a change and was set again is an idle tick
        // (with no prompt shown, only once seen set again: below).
        if short && !unanswered && probe.quiet > timer.saturating_add(super::TIMER_SLACK) {
            return None;
        }
        // So is one that went off and was set again, whatever it drew in between, or one
        // found so before the last input that the program went back to once it drew (see
        // [`TimerSightings`]; with no prompt shown, only once seen set again since the input).
        let carry = probe.drawn_since_input && !unanswered;
        if (timer >= probe.shortest_tick() || unanswered)
            && watched == Some(true)
            && let Some(timers) = probe.timers
            && let Some(wakeups) = voluntary_switches(base)
            && timers.repeated(tid, timer, wakeups, carry)
        {
            return None;
        }
        let before = if unanswered { ", with no prompt shown" } else { "" };
        Some(Activity::Other(format!("{name} with a {} ms timer{before}", timer.as_millis())))
    }

    /// The timer of the clock the thread at `base` sleeps on (`activity`, with the arguments
    /// in `syscall`), when it goes off within [`CLOCK_HORIZON`] and is not an idle tick: a
    /// sleep (`nanosleep`, `clock_nanosleep`), or the timeout of a poll-family wait on the
    /// world outside (an event loop's next timer). A timer of a known length counts until the
    /// terminal has been quiet for longer (it went off without a change and was set again, a
    /// server's poll every 0.5 s), a sleep until a point in time (Python's `time.sleep`) until
    /// `probe.timers` saw the thread wake and sleep again (a reloader's sleep every second).
    /// `sleep` is the thread's sleep, if it is in one ([`sleep_of`]), and `left` what is left
    /// of it at least ([`sleep_left`]).
    fn clock_due(
        base: &str,
        tid: i32,
        syscall: &str,
        activity: &Activity,
        sleep: Option<(std::time::Duration, bool)>,
        left: Option<std::time::Duration>,
        probe: Probe<'_>,
    ) -> Option<std::time::Duration> {
        let Activity::Other(what) = activity else { return None };
        let name = what.split_ascii_whitespace().next()?;
        let outside = what.ends_with(ON_SOCKETS) || what.ends_with(NOT_THE_TERMINAL);
        let (timer, until) = match name {
            _ if outside => (timeout(base, name, syscall)?, false),
            "nanosleep" | "clock_nanosleep" => sleep?,
            "futex" => lock_timer(base, syscall)?,
            _ => return None,
        };
        // A sleep goes off beyond the horizon only with more than it left for sure (see
        // [`sleep_left`]): `sleep 14` met 10 s in may go off within it.
        let beyond = match (name, sleep) {
            _ if outside => timer > CLOCK_HORIZON,
            ("nanosleep" | "clock_nanosleep", Some(_)) => left.is_some_and(|l| l > CLOCK_HORIZON),
            _ => timer > CLOCK_HORIZON,
        };
        if beyond {
            return None;
        }
        if !until {
            return (probe.quiet <= timer.saturating_add(TIMER_SLACK)).then_some(timer);
        }
        let ticks = probe.timers.is_some_and(|timers| {
            voluntary_switches(base)
                .is_some_and(|wakeups| timers.repeated(tid, SLEEP_UNTIL, wakeups, false))
        });
        (!ticks).then_some(timer)
    }

    /// The sleep thread `tid` at `base` is in (`sleep`, see [`sleep_of`]) when it is a tick
    /// (see [`SleepTick`]): a sleep of a known length up to [`SHORT_TIMER`](super::SHORT_TIMER),
    /// in a terminal quiet for longer than [`IDLE_TICKS`](super::IDLE_TICKS) such sleeps when
    /// `probe.timers` saw the thread go back to it (`less +F`'s 2 ms), or than
    /// [`FOLLOWED_SLEEPS`](super::FOLLOWED_SLEEPS) of them when not (a shell's loop, a new
    /// `sleep` each time: `while sleep 1; do :; done`); or one of
    /// [`SHORTEST_TICK`](super::SHORTEST_TICK) to [`CLOCK_HORIZON`] that `probe.timers` saw the
    /// thread go back to (`watch`'s 2 s).
    fn sleep_tick(
        base: &str,
        tid: i32,
        sleep: Option<(std::time::Duration, bool)>,
        probe: Probe<'_>,
    ) -> Option<SleepTick> {
        let (timer, until) = sleep?;
        if until || timer > CLOCK_HORIZON {
            return None;
        }
        let short = timer <= super::SHORT_TIMER;
        // (A tick found before the last input is carried across it once the program drew
        // again: `watch -n 5` after a key it never reads, a whole tick later, not two.)
        let carry = probe.drawn_since_input;
        let again = probe.timers.is_some_and(|timers| {
            voluntary_switches(base)
                .is_some_and(|wakeups| timers.repeated(tid, timer, wakeups, carry))
        });
        let sleeps = if again { super::IDLE_TICKS } else { super::FOLLOWED_SLEEPS };
        let idle = short && probe.quiet > timer.saturating_mul(sleeps).saturating_add(TIMER_SLACK);
        // (A spinner's frame, or a loop's look at a file every few milliseconds, is no
        // redraw of what a program shows.)
        let repeated = timer >= super::SHORTEST_TICK && again;
        (idle || repeated).then_some(SleepTick { timer, idle, repeated })
    }

    /// The timer of the sleep the thread at `base` is in (`activity`, with the arguments in
    /// `syscall`), if it is in one, and whether it is what is left of a sleep until a point
    /// in time (see [`sleep_timer`]).
    fn sleep_of(
        base: &str,
        syscall: &str,
        activity: &Activity,
    ) -> Option<(std::time::Duration, bool)> {
        let Activity::Other(what) = activity else { return None };
        let name = what.split_ascii_whitespace().next()?;
        if !matches!(name, "nanosleep" | "clock_nanosleep") {
            return None;
        }
        sleep_timer(base, name, syscall)
    }

    /// A sleep's timer (`name`, with the arguments in `syscall`), and whether it is what is left
    /// of a sleep until a point in time (`clock_nanosleep` with `TIMER_ABSTIME`) rather than the
    /// sleep's length. `None` when it cannot be read (or sleeps on a CPU-time clock).
    fn sleep_timer(base: &str, name: &str, syscall: &str) -> Option<(std::time::Duration, bool)> {
        let arg = |n: usize| syscall_arg(syscall, n);
        // nanosleep(request, remain); clock_nanosleep(clock, flags, request, remain)
        let (request, clock, until) = match name {
            "nanosleep" => (arg(0)?, None, false),
            _ => (arg(2)?, Some(arg(0)?), arg(1)? & 1 == 1),
        };
        let at = timespec_at(base, request)?;
        if !until {
            return Some((at, false));
        }
        Some((at.saturating_sub(clock_now(clock?)?), true))
    }

    /// The timer of a wait on a lock with a timeout (`futex`, with the arguments in `syscall`:
    /// `threading.Event().wait(3)`, a condition variable's timed wait), and whether it is what
    /// is left of a wait until a point in time (`FUTEX_WAIT_BITSET`) rather than its length
    /// (`FUTEX_WAIT`). `None` for a wait with no timeout (a worker pool's idle thread), or one
    /// that cannot be read.
    fn lock_timer(base: &str, syscall: &str) -> Option<(std::time::Duration, bool)> {
        const FUTEX_WAIT: u64 = 0;
        const FUTEX_WAIT_BITSET: u64 = 9;
        const FUTEX_CLOCK_REALTIME: u64 = 256;
        let arg = |n: usize| syscall_arg(syscall, n);
        // futex(address, op, value, timeout, ...)
        // (The operation first: other waits' memory is not read.)
        let op = arg(1)?;
        match op & 127 {
            FUTEX_WAIT => Some((timespec_at(base, arg(3)?)?, false)),
            FUTEX_WAIT_BITSET => {
                let clock = if op & FUTEX_CLOCK_REALTIME != 0 { 0 } else { 1 };
                let until = timespec_at(base, arg(3)?)?;
                Some((until.saturating_sub(clock_now(clock)?), true))
            }
            _ => None,
        }
    }

    /// What is left at least of a sleep (`sleep`, see [`sleep_of`]) of the thread whose
    /// `stat` is `stat`: a sleep until a point in time tells it; a sleep of a length began no
    /// earlier than the thread, so at least its length less the thread's age is left (`sleep
    /// 300`, a process of its own, tells it nearly exactly). `None` when that cannot be told.
    fn sleep_left(
        stat: &[u8],
        (timer, until): (std::time::Duration, bool),
    ) -> Option<std::time::Duration> {
        match until {
            true => Some(timer),
            false => timer.checked_sub(thread_age(stat)?),
        }
    }

    /// How long ago the thread whose `stat` is `stat` started (its field 22, in clock ticks
    /// since boot).
    fn thread_age(stat: &[u8]) -> Option<std::time::Duration> {
        // (After the name, whose parentheses may hold anything: the state is field 3.)
        let close = stat.iter().rposition(|&b| b == b')')?;
        let fields = std::str::from_utf8(&stat[close + 1..]).ok()?;
        let ticks: u64 = fields.split_ascii_whitespace().nth(22 - 3)?.parse().ok()?;
        let per_second = rustix::param::clock_ticks_per_second();
        let started =
            std::time::Duration::from_millis(ticks.checked_mul(1000)? / per_second.max(1));
        Some(clock_now(7)?.saturating_sub(started))
    }

    /// The time on the clock `clock` (a `clockid_t`: realtime, monotonic or boottime) now.
    fn clock_now(clock: u64) -> Option<std::time::Duration> {
        use rustix::time::{ClockId, clock_gettime};
        let now = match clock {
            0 => clock_gettime(ClockId::Realtime),
            1 => clock_gettime(ClockId::Monotonic),
            7 => clock_gettime(ClockId::Boottime),
            _ => return None,
        };
        Some(std::time::Duration::new(
            u64::try_from(now.tv_sec).ok()?,
            u32::try_from(now.tv_nsec).ok()?,
        ))
    }

    /// The `struct timespec` at `address` in the memory of the thread at `base`.
    fn timespec_at(base: &str, address: u64) -> Option<std::time::Duration> {
        time_at(base, address, false)
    }

    /// The `struct timespec` (or, `micros`, `struct timeval`) at `address` in the memory of
    /// the thread at `base`.
    fn time_at(base: &str, address: u64, micros: bool) -> Option<std::time::Duration> {
        use std::os::unix::fs::FileExt;
        if address == 0 {
            return None;
        }
        let mut raw = [0u8; 16];
        fs::File::open(format!("{base}/mem")).ok()?.read_exact_at(&mut raw, address).ok()?;
        let secs = u64::try_from(i64::from_ne_bytes(raw[..8].try_into().ok()?)).ok()?;
        let frac = u64::try_from(i64::from_ne_bytes(raw[8..].try_into().ok()?)).ok()?;
        let nanos = if micros { frac.saturating_mul(1000) } else { frac };
        Some(
            std::time::Duration::from_secs(secs)
                + std::time::Duration::from_nanos(nanos.min(999_999_999)),
        )
    }

    /// Argument `n` (from 0) of the system call in a `/proc/PID/syscall` line.
    fn syscall_arg(syscall: &str, n: usize) -> Option<u64> {
        let text = syscall.split_ascii_whitespace().nth(n + 1)?;
        u64::from_str_radix(text.trim_start_matches("0x"), 16).ok()
    }

    /// Whether a descriptor's target (a `/proc/PID/fd/N` link) is a terminal.
    fn is_terminal(target: &str) -> bool {
        ["/dev/pts/", "/dev/tty", "/dev/console", "/dev/ptmx"]
            .iter()
            .any(|prefix| target.starts_with(prefix))
    }

    /// The most descriptors of a poll-family call looked at for a terminal.
    const WATCHED_LOOKED_AT: u64 = 1024;

    /// Whether the poll-family call `name` (arguments in `syscall`) of the thread at `base`
    /// waits on a terminal among its descriptors: a `poll` or `ppoll` array and a `select`
    /// or `pselect6` read set are read from the process's memory, an epoll set from its
    /// `fdinfo`. `None` when that cannot be read, or not whole (more than
    /// [`WATCHED_LOOKED_AT`] descriptors, or an epoll set within the set).
    fn watches_terminal(base: &str, name: &str, syscall: &str, looks: &Looks) -> Option<bool> {
        let (fds, mut whole) = watched_descriptors(base, name, syscall, false, looks)?;
        for fd in fds {
            let Ok(target) = fs::read_link(format!("{base}/fd/{fd}")) else { continue };
            let target = target.to_string_lossy();
            if is_terminal(&target) {
                return Some(true);
            }
            whole &= target != "anon_inode:[eventpoll]";
        }
        whole.then_some(false)
    }

    /// Whether every descriptor the poll-family call `name` waits on, to read or to write,
    /// is a terminal (and there is at least one, all of them looked at): nothing but input or
    /// its timer can wake it, a program asking for a key or a line by a deadline (bash's
    /// `read -n1 -t 30`, `pselect6` on descriptor 0 alone), where an event loop at work on a
    /// timer waits on descriptors of its own beside the terminal (node's REPL: a pipe and an
    /// eventfd in its epoll set) (see [`Shown::Unanswered`]).
    fn waits_on_terminal_alone(base: &str, name: &str, syscall: &str, looks: &Looks) -> bool {
        waits_on_only(base, name, syscall, looks, is_terminal)
    }

    /// Whether every descriptor the poll-family call `name` waits on, to read or to write,
    /// is a pipe (and there is at least one, all of them looked at): the call then waits on
    /// the processes at the pipes' other ends, as a blocked `read` or `write` on a pipe does.
    fn waits_on_pipes(base: &str, name: &str, syscall: &str, looks: &Looks) -> bool {
        waits_on_only(base, name, syscall, looks, |target| target.starts_with("pipe:"))
    }

    /// Whether every descriptor the poll-family call `name` waits on, to read or to write,
    /// links to a target `kind` accepts (`/dev/pts/3`, `pipe:[1234]`), and there is at least
    /// one, all of them looked at.
    fn waits_on_only(
        base: &str,
        name: &str,
        syscall: &str,
        looks: &Looks,
        kind: impl Fn(&str) -> bool,
    ) -> bool {
        let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
            return false;
        };
        !fds.is_empty()
            && fds.iter().all(|fd| {
                fs::read_link(format!("{base}/fd/{fd}"))
                    .is_ok_and(|target| kind(&target.to_string_lossy()))
            })
    }

    /// Whether the poll-family call `name` waits, to read or to write, on terminals and
    /// Internet sockets alone, at least one of them connected (all of them looked at): a relay
    /// to a terminal across the network (`ssh`: its connection and the terminal; a listening
    /// socket beside, `ssh -L`). When `proxied` (an `ssh`), pipes count as its connection when
    /// they lead to a child that carries it ([`carries_connection`]: `ssh` through a
    /// `ProxyCommand` or `ProxyJump`). An event loop has descriptors of its own besides (node's
    /// eventfd and pipes, asyncio's socketpair), and is judged as before.
    fn relays_across_network(
        base: &str,
        name: &str,
        syscall: &str,
        looks: &Looks,
        proxied: bool,
    ) -> bool {
        let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
            return false;
        };
        // Every descriptor a terminal, a pipe or an Internet socket (the cheap look first),
        // then the tables those sockets are listed in, each read once, until one is connected.
        let mut sockets: Vec<(&'static str, u64)> = Vec::new();
        let mut pipes: Vec<u64> = Vec::new();
        for fd in fds {
            let link = format!("{base}/fd/{fd}");
            let Ok(target) = fs::read_link(&link) else { return false };
            let target = target.to_string_lossy();
            if is_terminal(&target) {
                continue;
            }
            match bracketed(&target, "pipe:") {
                Some(pipe) if proxied => pipes.push(pipe),
                Some(_) => return false,
                None => {
                    let Some(socket) = inet_socket(&link, &target) else { return false };
                    sockets.push(socket);
                }
            }
        }
        let process = base.find("/task/").map_or(base, |end| &base[..end]);
        if pipes.is_empty() {
            return any_connected(process, &mut sockets);
        }
        let Some(pid) = process.strip_prefix("/proc/").and_then(|pid| pid.parse::<i32>().ok())
        else {
            return false;
        };
        children(pid, None)
            .iter()
            .any(|child| carries_connection(child.pid, &pipes, looks, PROXY_HOPS))
    }

    /// How many proxies in a row a relay's connection is followed through (`ssh -J a,b,c`).
    const PROXY_HOPS: usize = 4;

    /// Whether process `pid` holds every one of `pipes` and carries the connection of the
    /// process at their other ends: it holds an Internet socket that is connected (`ssh -W`
    /// or `nc` for `ssh`'s `ProxyCommand`), or, `hops` allowing, a child of its own carries
    /// its other pipes (`ssh -J a,b`). The pipes are looked at first, the tables of sockets
    /// only for a process that holds them all (among the descriptors `looks` has room for).
    fn carries_connection(pid: i32, pipes: &[u64], looks: &Looks, hops: usize) -> bool {
        let (held, mut sockets) = pipes_and_sockets(pid, looks);
        if !pipes.iter().all(|pipe| held.contains(pipe)) {
            return false;
        }
        if any_connected(&format!("/proc/{pid}"), &mut sockets) {
            return true;
        }
        let own: Vec<u64> = held.into_iter().filter(|pipe| !pipes.contains(pipe)).collect();
        hops > 1
            && !own.is_empty()
            && children(pid, None)
                .iter()
                .any(|child| carries_connection(child.pid, &own, looks, hops - 1))
    }

    /// The pipes and the Internet sockets (a table and an inode each) among the descriptors
    /// of process `pid` that `looks` has room for.
    fn pipes_and_sockets(pid: i32, looks: &Looks) -> (Vec<u64>, Vec<(&'static str, u64)>) {
        let (mut pipes, mut sockets) = (Vec::new(), Vec::new());
        find_descriptor(pid, looks, |path, target| {
            if let Some(pipe) = bracketed(target, "pipe:") {
                pipes.push(pipe);
            } else if let Some(socket) = inet_socket(path, target) {
                sockets.push(socket);
            }
            None::<()>
        });
        (pipes, sockets)
    }

    /// Whether the process of the thread at `base` runs `ssh` (its `comm`).
    fn runs_ssh(base: &str) -> bool {
        let process = base.find("/task/").map_or(base, |end| &base[..end]);
        fs::read_to_string(format!("{process}/comm")).is_ok_and(|comm| comm.trim_end() == "ssh")
    }

    /// Whether member `proxy` of a group is a proxy `ssh` started for its connection (see
    /// [`carries_connection`]): `reader`, the member that reads the terminal, runs `ssh`, and
    /// `proxy` descends from it through members (each a proxy of the one before, `ssh -J
    /// a,b`), holds a pipe its parent holds and an Internet socket that is connected.
    fn proxy_of_ssh(proxy: &ProcStat, reader: i32, members: &[ProcStat], looks: &Looks) -> bool {
        // Up from its parent to the reader, every one an `ssh` of the group.
        let mut up = proxy.ppid;
        for hop in 1.. {
            let Some(parent) = members.iter().find(|m| m.pid == up) else { return false };
            if parent.comm != "ssh" {
                return false;
            }
            if up == reader {
                break;
            }
            if hop == PROXY_HOPS {
                return false;
            }
            up = parent.ppid;
        }
        let (parents_pipes, _) = pipes_and_sockets(proxy.ppid, looks);
        let (pipes, mut sockets) = pipes_and_sockets(proxy.pid, looks);
        pipes.iter().any(|pipe| parents_pipes.contains(pipe))
            && any_connected(&format!("/proc/{}", proxy.pid), &mut sockets)
    }

    /// The number in a descriptor's link `target` such as `pipe:[123]` of the kind `kind`
    /// (`pipe:`, `socket:`).
    fn bracketed(target: &str, kind: &str) -> Option<u64> {
        target.strip_prefix(kind)?.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
    }

    /// The table of `/proc/PID/net` and the inode of the Internet socket the descriptor at
    /// `link` (linked to `target`) is; `None` for any other descriptor.
    fn inet_socket(link: &str, target: &str) -> Option<(&'static str, u64)> {
        let inode = bracketed(target, "socket:")?;
        let mut protocol = [0u8; 32];
        let len = rustix::fs::getxattr(link, "system.sockprotoname", &mut protocol[..]).ok()?;
        Some((inet_table(&protocol[..len])?, inode))
    }

    /// Whether one of `sockets` (a table and an inode each) is connected, by the tables of
    /// `process` (`/proc/PID`), each read once.
    fn any_connected(process: &str, sockets: &mut [(&'static str, u64)]) -> bool {
        sockets.sort_unstable();
        sockets.chunk_by(|a, b| a.0 == b.0).any(|same_table| {
            fs::read_to_string(format!("{process}/net/{}", same_table[0].0)).is_ok_and(|listed| {
                same_table.iter().any(|&(_, inode)| connected_in(&listed, inode) == Some(true))
            })
        })
    }

    /// Whether the poll-family call `name` waits on sockets and pipes alone, at least one
    /// socket (all of them looked at).
    fn waits_on_sockets(base: &str, name: &str, syscall: &str, looks: &Looks) -> bool {
        let Some((fds, true)) = watched_descriptors(base, name, syscall, true, looks) else {
            return false;
        };
        let targets: Vec<String> = fds
            .iter()
            .filter_map(|fd| fs::read_link(format!("{base}/fd/{fd}")).ok())
            .map(|target| target.to_string_lossy().into_owned())
            .collect();
        targets.len() == fds.len()
            && targets.iter().any(|t| t.starts_with("socket:"))
            && targets.iter().all(|t| t.starts_with("socket:") || t.starts_with("pipe:"))
    }

    /// The descriptors the poll-family call `name` (arguments in `syscall`) of the thread at
    /// `base` waits on, and whether that is all of them (at most [`WATCHED_LOOKED_AT`] are
    /// read): a `poll` or `ppoll` array, a `select` or `pselect6` read set (and its write set
    /// when `writes`), read from the process's memory, or an epoll set from its `fdinfo`.
    /// `None` when they cannot be read, or the probe (`looks`) has no room left to look at
    /// them all.
    fn watched_descriptors(
        base: &str,
        name: &str,
        syscall: &str,
        writes: bool,
        looks: &Looks,
    ) -> Option<(Vec<u64>, bool)> {
        if looks.spent() {
            return None;
        }
        let (fds, whole) = watched_descriptors_of(base, name, syscall, writes)?;
        looks.take(fds.len()).then_some((fds, whole))
    }

    /// See [`watched_descriptors`].
    fn watched_descriptors_of(
        base: &str,
        name: &str,
        syscall: &str,
        writes: bool,
    ) -> Option<(Vec<u64>, bool)> {
        use std::os::unix::fs::FileExt;
        let arg = |n: usize| syscall_arg(syscall, n);
        Some(match name {
            "poll" | "ppoll" => {
                // struct pollfd { int fd; short events; short revents; }
                let whole = arg(1)? <= WATCHED_LOOKED_AT;
                let count = arg(1)?.min(WATCHED_LOOKED_AT) as usize;
                let mut raw = vec![0u8; count * 8];
                fs::File::open(format!("{base}/mem"))
                    .ok()?
                    .read_exact_at(&mut raw, arg(0)?)
                    .ok()?;
                let fds = raw
                    .chunks_exact(8)
                    .filter_map(|entry| {
                        u64::try_from(i32::from_ne_bytes(entry[..4].try_into().ok()?)).ok()
                    })
                    .collect();
                (fds, whole)
            }
            "select" | "pselect6" => {
                let count = arg(0)?.min(WATCHED_LOOKED_AT);
                let sets: &[usize] = if writes { &[1, 2] } else { &[1] };
                let sets: Vec<u64> = sets.iter().map(|&n| arg(n)).collect::<Option<_>>()?;
                // With no set given, nothing is watched, however large the count.
                let whole = arg(0)? <= WATCHED_LOOKED_AT || sets.iter().all(|&set| set == 0);
                let mut fds = Vec::new();
                for set in sets {
                    if set == 0 {
                        continue;
                    }
                    // An array of `long`s, descriptor n at bit n % 64 of word n / 64.
                    let mut raw = vec![0u8; count.div_ceil(64) as usize * 8];
                    fs::File::open(format!("{base}/mem"))
                        .ok()?
                        .read_exact_at(&mut raw, set)
                        .ok()?;
                    let words: Vec<u64> = raw
                        .chunks_exact(8)
                        .filter_map(|word| Some(u64::from_ne_bytes(word.try_into().ok()?)))
                        .collect();
                    fds.extend(
                        (0..count).filter(|fd| words[(fd / 64) as usize] & (1 << (fd % 64)) != 0),
                    );
                }
                (fds, whole)
            }
            "epoll_wait" | "epoll_pwait" | "epoll_pwait2" | "epoll_wait_old" => {
                let info = fs::read_to_string(format!("{base}/fdinfo/{}", arg(0)?)).ok()?;
                let fds: Vec<u64> = info
                    .lines()
                    .filter_map(|line| line.strip_prefix("tfd:"))
                    .filter_map(|rest| rest.split_ascii_whitespace().next()?.parse().ok())
                    .collect();
                let whole = fds.len() as u64 <= WATCHED_LOOKED_AT;
                (fds.into_iter().take(WATCHED_LOOKED_AT as usize).collect(), whole)
            }
            _ => return None,
        })
    }

    /// The voluntary context switches of the thread at `base` (`/proc/PID/task/TID`): how
    /// often it blocked, once per wait it entered.
    fn voluntary_switches(base: &str) -> Option<u64> {
        let status = fs::read_to_string(format!("{base}/status")).ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))?
            .trim()
            .parse()
            .ok()
    }

    /// The timeout of a poll-family call (`name`, with the arguments in `syscall`, the
    /// contents of `/proc/PID/task/TID/syscall`): `None` when it has none (it waits until an
    /// event) or it cannot be read. `poll` and `epoll_wait` pass it as a number; `select`,
    /// `pselect6`, `ppoll` and `epoll_pwait2` point to it, and it is read from the process's
    /// memory (`base`/mem, which its ancestor may read).
    fn timeout(base: &str, name: &str, syscall: &str) -> Option<std::time::Duration> {
        let arg = |n: usize| syscall_arg(syscall, n);
        // (argument, is a pointer, a pointer to microseconds rather than nanoseconds)
        let (index, pointer, micros) = match name {
            "poll" => (2, false, false),
            "epoll_wait" | "epoll_pwait" | "epoll_wait_old" => (3, false, false),
            "select" => (4, true, true),
            "pselect6" => (4, true, false),
            "ppoll" => (2, true, false),
            "epoll_pwait2" => (3, true, false),
            _ => return None,
        };
        let value = arg(index)?;
        if !pointer {
            // An int in milliseconds; negative waits for ever.
            let ms = value as u32 as i32;
            return u64::try_from(ms).ok().map(std::time::Duration::from_millis);
        }
        time_at(base, value, micros)
    }

    /// `None` if the process is gone.
    #[cfg(test)]
    pub(super) fn process_wait(pid: i32, quiet: std::time::Duration) -> Option<InputWait> {
        let looks = super::Looks::new();
        let probe = Probe {
            quiet,
            timers: None,
            looks: &looks,
            outside: None,
            shown: Shown::Other,
            unanswered_input: false,
            unanswered_start: false,
            unanswered_secret: false,
            hidden_below_line: false,
            drawn_since_input: false,
            full_screen: false,
            since_input: None,
            relay_clock: false,
        };
        observe_process(pid, probe).map(|(wait, _)| wait)
    }

    /// Whether the process is waiting, with its threads' observations; `None` if it is gone.
    fn observe_process(pid: i32, probe: Probe<'_>) -> Option<(InputWait, Vec<ThreadObs>)> {
        let proc_dir = format!("/proc/{pid}");
        let stat = match fs::read(format!("{proc_dir}/stat")) {
            Ok(data) => match parse_stat(&data) {
                Ok(stat) => stat,
                Err(err) => {
                    let reason = format!("pid {pid}: unparsable stat: {err}");
                    return Some((InputWait::Unknown { reason }, Vec::new()));
                }
            },
            Err(err) if is_gone(&err) => return None,
            Err(err) => {
                let reason = format!("pid {pid}: stat unreadable: {err}");
                return Some((InputWait::Unknown { reason }, Vec::new()));
            }
        };
        let who = format!("pid {pid} ({})", stat.comm);
        let mut tids = match numeric_entries(&format!("{proc_dir}/task")) {
            Ok(tids) => tids,
            Err(err) if is_gone(&err) => return None,
            // Cannot list threads: judge the main thread alone.
            Err(_) => vec![pid],
        };
        // Main thread first.
        tids.sort_by_key(|&tid| (tid != pid, tid));
        let threads: Vec<ThreadObs> = tids
            .into_iter()
            .filter_map(|tid| observe_thread(&format!("{proc_dir}/task/{tid}"), tid, probe))
            .collect();
        if threads.is_empty() {
            let reason = if is_dead(&stat) {
                format!("{who} is {}", describe_state(stat.state))
            } else {
                format!("{who} has no live threads")
            };
            return Some((InputWait::NotWaiting { reason }, threads));
        }
        Some((decide(pid, &who, &threads), threads))
    }

    /// The processes `keep` takes, among `candidates` when given, else among all of `/proc`.
    fn processes(candidates: Option<&[i32]>, keep: impl FnMut(&ProcStat) -> bool) -> Vec<ProcStat> {
        match candidates {
            Some(pids) => pids
                .iter()
                .filter_map(|pid| fs::read(format!("/proc/{pid}/stat")).ok())
                .filter_map(|data| parse_stat(&data).ok())
                .filter(keep)
                .collect(),
            None => scan(keep),
        }
    }

    /// See [`super::alone_in_session`].
    pub(super) fn alone_in_session(pgrp: i32, sid: i32, candidates: Option<&[i32]>) -> bool {
        let processes = processes(candidates, |s| s.session == sid && !is_dead(s));
        processes.iter().filter(|p| p.pgrp == pgrp).count() == 1
            && processes.iter().filter(|p| p.pgrp != pgrp).all(|p| waits_for_child(p.pid))
    }

    /// See [`super::others_may_print`].
    #[cfg(feature = "testing")]
    pub(super) fn others_may_print(pgrp: i32, sid: i32) -> bool {
        let others = processes(None, |s| s.session == sid && s.pgrp != pgrp && !is_dead(s));
        others.iter().any(|p| !matches!(p.state, 'T' | 't') && !waits_for_child(p.pid))
    }

    /// Whether process `pid` is blocked waiting for a child (`wait4`, `waitid`): a shell for
    /// its job.
    fn waits_for_child(pid: i32) -> bool {
        let Ok(text) = fs::read_to_string(format!("/proc/{pid}/syscall")) else {
            return false;
        };
        match parse_syscall(&text).and_then(|field| match field {
            SyscallField::Nr(nr) => classify_syscall(nr),
            _ => None,
        }) {
            Some(Activity::Other(name)) => waits_for_a_child(&name),
            _ => false,
        }
    }

    /// The processes of group `pgrp` (in session `sid`, among `candidates` when given).
    pub(super) fn members(
        pgrp: i32,
        sid: Option<i32>,
        candidates: Option<&[i32]>,
    ) -> Vec<ProcStat> {
        processes(candidates, |s| s.pgrp == pgrp && sid.is_none_or(|sid| s.session == sid))
    }

    pub(super) fn group_readers(
        pgrp: i32,
        sid: Option<i32>,
        candidates: Option<&[i32]>,
        relay: Option<i32>,
    ) -> Option<Vec<i32>> {
        let members = members(pgrp, sid, candidates);
        if members.is_empty() {
            return None;
        }
        // What a relay (tmux's server) reads of the terminal counts too.
        let looks = Looks::new();
        let relays = sid.map(|sid| relays(sid, &members, candidates, &looks)).unwrap_or_default();
        let mut pids: Vec<i32> =
            members.iter().filter(|m| !is_dead(m)).map(|m| m.pid).chain(relays).collect();
        if let Some(relay) = relay.filter(|relay| !pids.contains(relay)) {
            pids.push(relay);
        }
        // So does what children that left the session read of it (`su USER -c CMD`).
        let parents = members.iter().filter(|m| !is_dead(m)).map(|m| m.pid);
        for child in detached_children(&members, parents, candidates, &looks) {
            if !pids.contains(&child.pid) {
                pids.push(child.pid);
            }
        }
        Some(pids)
    }

    /// The relays of the terminal of group `members` (of session `sid`): live processes of
    /// other POSIX sessions that have it open, as a tmux server has its clients' terminals
    /// (passed over its socket) and reads them. They are looked for among `candidates` (the
    /// session's cgroup) when given, else among the children of the session leader's parent,
    /// where a daemon the session started ends up (the supervisor is a child subreaper). At
    /// most the descriptors `looks` has room for are looked at, all candidates together.
    fn relays(
        sid: i32,
        members: &[ProcStat],
        candidates: Option<&[i32]>,
        looks: &Looks,
    ) -> Vec<i32> {
        let Some(tty) = terminal_of(members) else {
            return Vec::new();
        };
        let adopter = match candidates {
            Some(_) => None,
            None => match super::read_stat(sid) {
                Ok(leader) => Some(leader.ppid),
                Err(_) => return Vec::new(),
            },
        };
        let others = processes(candidates, |s| {
            s.session != sid && !is_dead(s) && adopter.is_none_or(|parent| s.ppid == parent)
        });
        others.iter().map(|p| p.pid).filter(|&pid| holds_terminal(pid, tty, looks)).collect()
    }

    /// The relay outside session `sid` of the terminal of group `pgrp` (of `members`), as
    /// `memo` remembers it for the group, else looked for and remembered (see
    /// [`super::outside_relay`]).
    pub(super) fn remembered_outside_relay(
        pgrp: i32,
        sid: i32,
        members: &[ProcStat],
        looks: &Looks,
        memo: &super::OutsideRelay,
    ) -> Option<i32> {
        if let Some((group, relay)) = memo.get()
            && group == pgrp
        {
            return relay;
        }
        let relay = members
            .iter()
            .filter(|m| !is_dead(m))
            .find_map(|member| outside_relays(sid, members, member.pid, looks).into_iter().next());
        memo.set(Some((pgrp, relay)));
        relay
    }

    /// The terminals' relays outside the session's cgroup: the server a client of the
    /// session attached to (`tmux attach` to a server started before the session, outside
    /// it). They are looked for among the processes running the client's own program (tmux's
    /// server is tmux), of other POSIX sessions, that have the terminal open; a process whose
    /// program cannot be read (another user's) is not looked at. Each process looked at takes
    /// one of the descriptors `looks` has room for.
    fn outside_relays(sid: i32, members: &[ProcStat], client: i32, looks: &Looks) -> Vec<i32> {
        let Some(tty) = terminal_of(members) else {
            return Vec::new();
        };
        let Ok(program) = fs::read_link(format!("/proc/{client}/exe")) else {
            return Vec::new();
        };
        let Ok(pids) = numeric_entries("/proc") else {
            return Vec::new();
        };
        let runs_program =
            |pid: i32| fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == program);
        let of_another_session = |pid: i32| {
            fs::read(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|data| parse_stat(&data).ok())
                .is_some_and(|stat| stat.session != sid && !is_dead(&stat))
        };
        pids.into_iter()
            .take_while(|_| looks.take(1))
            .filter(|&pid| runs_program(pid) && of_another_session(pid))
            .filter(|&pid| holds_terminal(pid, tty, looks))
            .collect()
    }

    /// The live children of `parent`: from `/proc/PID/task/TID/children` (every thread's), or,
    /// where the kernel does not give those, among `candidates` when given.
    fn children(parent: i32, candidates: Option<&[i32]>) -> Vec<ProcStat> {
        let Ok(tids) = numeric_entries(&format!("/proc/{parent}/task")) else {
            return Vec::new();
        };
        let mut pids: Vec<i32> = Vec::new();
        for tid in tids {
            match fs::read_to_string(format!("/proc/{parent}/task/{tid}/children")) {
                Ok(text) => {
                    pids.extend(text.split_ascii_whitespace().filter_map(|p| p.parse::<i32>().ok()))
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound && tid == parent => {
                    // No such file in this kernel (or the process is gone).
                    return match candidates {
                        Some(_) => processes(candidates, |s| s.ppid == parent && !is_dead(s)),
                        None => Vec::new(),
                    };
                }
                Err(_) => {}
            }
        }
        pids.sort_unstable();
        pids.dedup();
        pids.into_iter()
            .filter_map(|pid| fs::read(format!("/proc/{pid}/stat")).ok())
            .filter_map(|data| parse_stat(&data).ok())
            .filter(|s| s.ppid == parent && !is_dead(s))
            .collect()
    }

    /// The terminals `host` hosts, each as its foreground group and session: the controlling
    /// terminal of each child of `host` that leads a POSIX session of its own, on a terminal
    /// (`script` and `sudo` with `use_pty` run their command so, and copy between that terminal
    /// and their own).
    fn hosted_terminals(host: i32, candidates: Option<&[i32]>) -> Vec<(i32, i32)> {
        let mut groups: Vec<(i32, i32)> =
            hosting_children(host, candidates).into_iter().map(|c| (c.tpgid, c.session)).collect();
        groups.sort_unstable();
        groups.dedup();
        groups
    }

    /// The children of `host` that lead a POSIX session of their own on a terminal that has a
    /// foreground group (see [`hosted_terminals`]).
    fn hosting_children(host: i32, candidates: Option<&[i32]>) -> Vec<ProcStat> {
        children(host, candidates)
            .into_iter()
            .filter(|c| c.pid == c.session && c.tty_nr != 0 && c.tpgid > 0)
            .collect()
    }

    /// See [`super::hosted_by_group`].
    pub(super) fn hosted_by_group(
        pgrp: i32,
        sid: Option<i32>,
        candidates: Option<&[i32]>,
    ) -> Vec<super::Hosted> {
        let mut hosted: Vec<super::Hosted> = members(pgrp, sid, candidates)
            .iter()
            .filter(|m| !is_dead(m))
            .flat_map(|m| hosting_children(m.pid, candidates))
            .map(|c| super::Hosted { leader: c.pid, group: c.tpgid })
            .collect();
        hosted.sort_unstable_by_key(|h| h.leader);
        hosted.dedup();
        hosted.truncate(super::HOSTED_GROUPS);
        hosted
    }

    /// Whether a thread's activity, `what`, is a wait for a child: the call (`wait4`,
    /// `waitid`) or where the kernel sleeps in it (`do_wait`).
    fn waits_for_a_child(what: &str) -> bool {
        matches!(what, "wait4" | "waitid" | "do_wait")
    }

    /// Whether member `pid` of a group (`members`), every thread of which waits behind
    /// something (`threads`, see [`idle_behind`]), only sleeps longer than [`CLOCK_HORIZON`]
    /// or waits for children that are members too (a shell running `sleep 300`): not for a
    /// pipe, nor for a child that left the group (`timeout` runs its command in a group of its
    /// own), which may print.
    fn asleep_long(
        pid: i32,
        threads: &[ThreadObs],
        members: &[ProcStat],
        candidates: Option<&[i32]>,
    ) -> bool {
        let for_children =
            |t: &ThreadObs| matches!(&t.activity, Activity::Other(what) if waits_for_a_child(what));
        threads.iter().all(|t| t.long_sleep.is_some())
            || threads.iter().all(for_children)
                && children(pid, candidates).iter().all(|c| members.iter().any(|m| m.pid == c.pid))
    }

    /// Whether the terminals member `host` hosts ([`hosted_terminals`]) wait for input: `None`
    /// when it hosts none (it reads the terminal for itself); else waiting when the foreground
    /// group of every one waits, busy when one is (a command `sudo` runs still works, though
    /// `sudo` itself waits on the terminal, to copy what is typed), on the world outside when
    /// one waits there and none is busy. The reader is the program on the one terminal, or,
    /// when it hosts several (GNU screen's windows), none: the host. At most
    /// [`super::HOSTED_GROUPS`] hosted groups a probe are looked at.
    fn hosted_wait(host: i32, candidates: Option<&[i32]>, probe: Probe<'_>) -> Option<InputWait> {
        let groups = hosted_terminals(host, candidates);
        if groups.is_empty() {
            return None;
        }
        let several = groups.len() > 1;
        let mut reader = None;
        let mut outside = None;
        for (pgrp, session) in groups {
            let left = probe.looks.hosted.get();
            if left == 0 {
                let reason = format!("pid {host} hosts more terminals than one probe looks at");
                return Some(InputWait::Unknown { reason });
            }
            probe.looks.hosted.set(left - 1);
            match group_wait(pgrp, Some(session), candidates, probe) {
                InputWait::Waiting { reader: found } => reader = reader.or(found),
                InputWait::Outside { reason } => {
                    outside.get_or_insert(reason);
                }
                other => return Some(other),
            }
        }
        // Of several terminals (GNU screen's windows), `/proc` cannot tell which one is shown
        // and gets the keys: no program on them is named the reader, nor are their modes
        // taken for the input's (a password prompt in a window not shown is no reason to
        // type a secret into the one shown); the host reads, as it does.
        // (Which of them waits decides the answer as for one terminal.)
        Some(match (reader, outside) {
            (None, Some(reason)) => InputWait::Outside { reason },
            (Some(_), Some(reason)) => InputWait::NotWaiting { reason },
            (reader, None) => InputWait::Waiting { reader: reader.filter(|_| !several) },
        })
    }

    /// The children of `parents` (members of the terminal's session, of `members`) that left
    /// the session, with no controlling terminal since, and still hold the terminal open (`su
    /// USER -c CMD` runs CMD so; `setsid -w`): they read it through the descriptors they
    /// inherited, as their parents wait for them.
    fn detached_children(
        members: &[ProcStat],
        parents: impl IntoIterator<Item = i32>,
        candidates: Option<&[i32]>,
        looks: &Looks,
    ) -> Vec<ProcStat> {
        let Some(tty) = terminal_of(members) else {
            return Vec::new();
        };
        let mut found: Vec<ProcStat> = Vec::new();
        for parent in parents {
            let Some(of) = members.iter().find(|m| m.pid == parent) else { continue };
            for child in children(parent, candidates) {
                if child.session != of.session
                    && child.tty_nr == 0
                    && !found.iter().any(|f| f.pid == child.pid)
                    && holds_terminal(child.pid, tty, looks)
                {
                    found.push(child);
                }
            }
        }
        found
    }

    /// Whether the children that members `behind` wait for, and that left the terminal's
    /// session ([`detached_children`]), wait for input on it: `None` when there are none, or
    /// none of their groups waits (the members' own answer stands); else their groups' answer,
    /// as [`hosted_wait`] gives it.
    fn detached_wait(
        members: &[ProcStat],
        behind: &[i32],
        candidates: Option<&[i32]>,
        probe: Probe<'_>,
    ) -> Option<InputWait> {
        let detached = detached_children(members, behind.iter().copied(), candidates, probe.looks);
        let mut groups: Vec<(i32, i32)> = detached.iter().map(|c| (c.pgrp, c.session)).collect();
        groups.sort_unstable();
        groups.dedup();
        let mut reader = None;
        let mut outside = None;
        for (pgrp, session) in groups {
            let left = probe.looks.hosted.get();
            if left == 0 {
                return None;
            }
            probe.looks.hosted.set(left - 1);
            match group_wait(pgrp, Some(session), candidates, probe) {
                InputWait::Waiting { reader: found } => reader = reader.or(found),
                InputWait::Outside { reason } => {
                    outside.get_or_insert(reason);
                }
                InputWait::NotWaiting { .. }
                | InputWait::Ticking { .. }
                | InputWait::Sleeping { .. }
                | InputWait::Stopped { .. }
                | InputWait::Unknown { .. } => return None,
            }
        }
        match (reader, outside) {
            (None, None) => None,
            (None, Some(reason)) => Some(InputWait::Outside { reason }),
            (Some(_), Some(reason)) => Some(InputWait::NotWaiting { reason }),
            (Some(reader), None) => Some(InputWait::Waiting { reader: Some(reader) }),
        }
    }

    /// The controlling terminal (`tty_nr`) of the first of `members` that has one.
    fn terminal_of(members: &[ProcStat]) -> Option<i32> {
        members.iter().map(|m| m.tty_nr).find(|&tty| tty != 0)
    }

    /// Whether process `pid` has terminal `tty` (a `tty_nr`) open, among the descriptors
    /// `looks` has room for (at most [`WATCHED_LOOKED_AT`] of its own).
    fn holds_terminal(pid: i32, tty: i32, looks: &Looks) -> bool {
        use std::os::unix::fs::MetadataExt;
        find_descriptor(pid, looks, |path, target| {
            (is_terminal(target) && fs::metadata(path).is_ok_and(|m| tty_number(m.rdev()) == tty))
                .then_some(())
        })
        .is_some()
    }

    /// The first answer `visit` gives for a descriptor of process `pid`, given its
    /// `/proc/PID/fd/N` path and what that links to, among the descriptors `looks` has room
    /// for (at most [`WATCHED_LOOKED_AT`] of its own).
    fn find_descriptor<T>(
        pid: i32,
        looks: &Looks,
        mut visit: impl FnMut(&str, &str) -> Option<T>,
    ) -> Option<T> {
        use rustix::fs::{Mode, OFlags, RawDir};
        use std::os::fd::AsFd;
        if looks.spent() {
            return None;
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = rustix::fs::open(format!("/proc/{pid}/fd"), flags, Mode::empty()).ok()?;
        // Read a few entries at a time: the kernel makes an entry for every descriptor
        // a read of the directory has room for, looked at or not (a thousand in the
        // standard library's 32 KiB, a millisecond a process).
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 512];
        let mut entries = RawDir::new(dir.as_fd(), &mut buf);
        let mut looked = 0;
        while let Some(Ok(entry)) = entries.next() {
            let name = entry.file_name().to_bytes();
            if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
                continue;
            }
            if looked == WATCHED_LOOKED_AT || !looks.take(1) {
                return None;
            }
            looked += 1;
            let path = format!("/proc/{pid}/fd/{}", String::from_utf8_lossy(name));
            if let Ok(target) = fs::read_link(&path)
                && let Some(answer) = visit(&path, &target.to_string_lossy())
            {
                return Some(answer);
            }
        }
        None
    }

    /// The relay of the terminal of group `pgrp` (its `members`, of session `sid`) that waits
    /// for input ([`relay_waits`]): one among the session's processes ([`relays`]), or, when
    /// none there waits, one outside them that the probe's memo remembers or finds
    /// ([`remembered_outside_relay`]).
    fn waiting_relay(
        pgrp: i32,
        sid: i32,
        members: &[ProcStat],
        candidates: Option<&[i32]>,
        probe: Probe<'_>,
    ) -> Option<i32> {
        relays(sid, members, candidates, probe.looks)
            .into_iter()
            .find(|&relay| relay_waits(relay, candidates, probe))
            .or_else(|| {
                let memo = probe.outside?;
                let relay = remembered_outside_relay(pgrp, sid, members, probe.looks, memo)?;
                relay_waits(relay, None, probe).then_some(relay)
            })
    }

    /// Whether the relay `relay` (see [`relays`]) waits for input: it waits itself, and so
    /// does every program it hosts, the foreground group of each terminal of a session it
    /// started (tmux's panes: a shell at its prompt, an editor; not a build), of which there
    /// is one at least (tmux starting its first pane does not wait yet).
    /// Each relay is judged once a probe, and at most [`RELAYS_JUDGED`] of them: one met again
    /// while it is judged hosts its own client, and does not wait for the user.
    fn relay_waits(relay: i32, candidates: Option<&[i32]>, probe: Probe<'_>) -> bool {
        {
            let judged = probe.looks.relays.borrow();
            if let Some(&(_, verdict)) = judged.iter().find(|(pid, _)| *pid == relay) {
                return verdict.unwrap_or(false);
            }
            if judged.len() >= RELAYS_JUDGED {
                return false;
            }
        }
        probe.looks.relays.borrow_mut().push((relay, None));
        let verdict = judge_relay(relay, candidates, probe);
        if let Some(entry) =
            probe.looks.relays.borrow_mut().iter_mut().find(|(pid, _)| *pid == relay)
        {
            entry.1 = Some(verdict);
        }
        verdict
    }

    /// See [`relay_waits`]; at most [`super::HOSTED_GROUPS`] hosted groups a probe are looked at.
    /// A hosted group that is busy and started since the last input (its leader did: a
    /// command typed into a tmux pane, `sleep 3; echo done`, each `sleep` of a loop) is busy
    /// with that input: its reason is kept in the probe's looks, and the client is busy with
    /// it (see [`group_wait`]), not waiting on its sockets. A job that started before the
    /// input (a build in a window not shown) keeps the relay from waiting, as any other.
    fn judge_relay(relay: i32, candidates: Option<&[i32]>, probe: Probe<'_>) -> bool {
        let own = Probe { relay_clock: probe.drawn_since_input, ..probe };
        if !matches!(observe_process(relay, own), Some((InputWait::Waiting { .. }, _))) {
            return false;
        }
        let live = processes(candidates, |s| !is_dead(s));
        let hosted =
            |session: i32| live.iter().any(|leader| leader.pid == session && leader.ppid == relay);
        let mut groups: Vec<(i32, i32)> = live
            .iter()
            .filter(|s| s.tty_nr != 0 && s.pgrp == s.tpgid && hosted(s.session))
            .map(|s| (s.pgrp, s.session))
            .collect();
        groups.sort_unstable();
        groups.dedup();
        let mut waits = !groups.is_empty();
        for &(pgrp, session) in &groups {
            let left = probe.looks.hosted.get();
            if left == 0 {
                return false;
            }
            probe.looks.hosted.set(left - 1);
            match group_wait(pgrp, Some(session), candidates, probe) {
                InputWait::Waiting { .. } => {}
                InputWait::NotWaiting { reason } if started_since_input(pgrp, probe) => {
                    let mut busy = probe.looks.busy_hosted.borrow_mut();
                    busy.get_or_insert(format!("{reason} (in a terminal pid {relay} hosts)"));
                    return false;
                }
                // (A group busy with the input may come after it.)
                _ if probe.since_input.is_some() => waits = false,
                _ => return false,
            }
        }
        waits
    }

    /// Whether the leader of group `pgrp` started since the last input (see
    /// [`TerminalSeen::since_input`]). Its start is in clock ticks, rounded down: one started
    /// a tick or less before the input is taken to have started after it.
    fn started_since_input(pgrp: i32, probe: Probe<'_>) -> bool {
        let Some(since_input) = probe.since_input else {
            return false;
        };
        let tick = std::time::Duration::from_secs(1)
            / rustix::param::clock_ticks_per_second().max(1) as u32;
        fs::read(format!("/proc/{pgrp}/stat"))
            .ok()
            .and_then(|stat| thread_age(&stat))
            .is_some_and(|age| age <= since_input + tick)
    }

    /// A device number as `/proc/PID/stat` gives a controlling terminal's (`tty_nr`).
    fn tty_number(rdev: u64) -> i32 {
        let (major, minor) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
        ((minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)) as i32
    }

    pub(super) fn group_wait(
        pgrp: i32,
        sid: Option<i32>,
        candidates: Option<&[i32]>,
        probe: Probe<'_>,
    ) -> InputWait {
        let members = members(pgrp, sid, candidates);
        if members.is_empty() {
            // The terminal between two jobs: the last one's processes are reaped, and its
            // shell, the session's leader, has not yet taken the terminal back (a loop's
            // `sleep 2` just ended); no one reads it.
            // Only when the kernel finds none either: members this look cannot see (a
            // `/proc` mounted with `hidepid`, a process outside the session's cgroup) may be
            // waiting for input.
            let none = rustix::process::Pid::from_raw(pgrp).is_some_and(|group| {
                rustix::process::test_kill_process_group(group) == Err(rustix::io::Errno::SRCH)
            });
            let leader = sid.and_then(|sid| super::read_stat(sid).ok()).filter(|s| !is_dead(s));
            if let Some(leader) = leader.filter(|_| none) {
                return InputWait::NotWaiting {
                    reason: format!(
                        "process group {pgrp} has no process left; {} ({}) leads the session",
                        leader.comm, leader.pid
                    ),
                };
            }
            return InputWait::Unknown { reason: format!("no process in process group {pgrp}") };
        }
        let live: Vec<&ProcStat> = members.iter().filter(|m| !is_dead(m)).collect();
        if !live.is_empty() && live.iter().all(|m| m.state == 'T') {
            let names: Vec<String> = live.iter().map(|m| m.comm.clone()).collect();
            return InputWait::Stopped {
                reason: format!("process group {pgrp} ({}) is stopped", names.join(", ")),
            };
        }
        let mut reader: Option<i32> = None;
        let mut behind: Option<InputWait> = None;
        // The members waiting for a child, a pipe or a clock (see [`idle_behind`]).
        let mut behind_pids: Vec<i32> = Vec::new();
        // Members waiting on sockets: a client (tmux's), or a proxy that carries a relay's
        // connection (see [`proxy_of_ssh`]).
        let mut relayed: Vec<(&ProcStat, InputWait)> = Vec::new();
        // A member waiting on the world outside (a server, `tail -f`), with its reason.
        let mut outside: Option<String> = None;
        // A clock about to go off in a member (see [`CLOCK_HORIZON`]), with its reason.
        let mut clock: Option<String> = None;
        // A member's short sleep that is an idle tick (see [`IDLE_TICKS`]), with its reason.
        let mut tick: Option<String> = None;
        // A member's short sleep that it goes back to again and again (see [`SleepTick`]),
        // with its reason.
        let mut repeating: Option<String> = None;
        // The member's sleep with more than [`CLOCK_HORIZON`] left that ends soonest, with its
        // reason; the threads of the members waiting behind something (see [`asleep_long`]).
        let mut long_sleep: Option<(String, std::time::Duration)> = None;
        let mut behind_threads: Vec<(i32, Vec<ThreadObs>)> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        for member in members.iter().filter(|m| !is_dead(m)) {
            let observed = observe_process(member.pid, probe);
            if clock.is_none()
                && let Some((_, threads)) = &observed
                && let Some((tid, timer)) = threads.iter().find_map(|t| Some((t.tid, t.clock?)))
            {
                let who = format!("pid {} ({})", member.pid, member.comm);
                let who = if tid == member.pid { who } else { format!("thread {tid} of {who}") };
                clock = Some(format!(
                    "{who} waits on a clock that goes off within {} ms",
                    timer.as_millis()
                ));
            }
            if let Some((_, threads)) = &observed {
                let ticks = || threads.iter().filter_map(|t| t.tick);
                let who = || format!("pid {} ({})", member.pid, member.comm);
                if tick.is_none()
                    && let Some(idle) = ticks().find(|t| t.idle)
                {
                    let ms = idle.timer.as_millis();
                    tick =
                        Some(format!("{} ticks on a {ms} ms sleep with nothing to print", who()));
                }
                if repeating.is_none()
                    && let Some(again) = ticks().find(|t| t.repeated)
                {
                    let ms = again.timer.as_millis();
                    repeating = Some(format!("{} redraws on a {ms} ms timer", who()));
                }
                // (The soonest to end of them, as what may come first.)
                if let Some(timer) = threads.iter().filter_map(|t| t.long_sleep).min()
                    && long_sleep.as_ref().is_none_or(|(_, soonest)| timer < *soonest)
                {
                    long_sleep =
                        Some((format!("{} sleeps {} s more", who(), timer.as_secs()), timer));
                }
            }
            match observed {
                None => {}
                // A member that relays the terminal to one it hosts (`script`, `sudo` with
                // `use_pty`) waits when the program on that terminal does.
                Some((InputWait::Waiting { reader: first }, _)) => {
                    match hosted_wait(member.pid, candidates, probe) {
                        None => reader = reader.or(first),
                        Some(InputWait::Waiting { reader: inner }) => {
                            reader = reader.or(inner).or(first);
                        }
                        Some(InputWait::Outside { reason }) => {
                            outside.get_or_insert(reason);
                        }
                        Some(InputWait::Unknown { reason }) => unknown.push(reason),
                        Some(not) => return not,
                    }
                }
                // A client waiting on its server's socket (tmux's), which may read the
                // terminal for it: see below.
                Some((not @ InputWait::NotWaiting { .. }, threads)) if on_sockets(&threads) => {
                    relayed.push((member, not));
                }
                // A parent waiting for its child (git for its pager, a shell for a pipeline),
                // or a process blocked on a pipe (`seq | less`), waits on the member that
                // reads the terminal.
                Some((not @ InputWait::NotWaiting { .. }, threads)) if idle_behind(&threads) => {
                    behind.get_or_insert(not);
                    behind_pids.push(member.pid);
                    behind_threads.push((member.pid, threads));
                }
                Some((InputWait::NotWaiting { reason }, threads)) if waits_outside(&threads) => {
                    outside.get_or_insert(reason);
                }
                // (A process alone is judged by `decide`, which does not say this.)
                Some((InputWait::Outside { reason }, _)) => {
                    outside.get_or_insert(reason);
                }
                Some((
                    not @ (InputWait::NotWaiting { .. }
                    | InputWait::Ticking { .. }
                    | InputWait::Sleeping { .. }
                    | InputWait::Stopped { .. }),
                    _,
                )) => {
                    return not;
                }
                Some((InputWait::Unknown { reason }, _)) => unknown.push(reason),
            }
        }
        // The client waits for input when its relay, a process of another session that has
        // the terminal open (tmux's server), waits for it, with the programs it hosts; a
        // member that reads the terminal itself besides (`curl URL | less`) waits on the
        // network, not on the user. A relay outside the session (a server the client attached
        // to) is looked for only when none in it waits.
        // A proxy `ssh` started for its connection (`ProxyCommand`) waits on the network for
        // it: the wait of the member that reads the terminal is theirs.
        let relayed = relayed.into_iter().find_map(|(member, not)| {
            let proxy = reader.is_some_and(|r| proxy_of_ssh(member, r, &members, probe.looks));
            (!proxy).then_some(not)
        });
        if let Some(not) = relayed {
            let relay = match (reader, sid) {
                (None, Some(sid)) => waiting_relay(pgrp, sid, &members, candidates, probe),
                _ => None,
            };
            // A program a relay hosts that is busy with the last input (see [`judge_relay`]):
            // the client is busy with it, not waiting on its sockets.
            let busy = probe.looks.busy_hosted.borrow_mut().take();
            if let Some(reason) = busy.filter(|_| relay.is_none() && reader.is_none()) {
                return InputWait::NotWaiting { reason };
            }
            match (relay, not) {
                (Some(relay), _) => reader = Some(relay),
                // No relay waits for input: the client waits on its sockets, as a server does.
                (None, InputWait::NotWaiting { reason }) if reader.is_none() => {
                    outside.get_or_insert(reason);
                }
                (None, not) => return not,
            }
        }
        match (reader, outside) {
            // Waiting on the world outside, unless a clock of its own is about to wake it.
            (None, Some(reason)) => {
                return match clock {
                    Some(reason) => InputWait::NotWaiting { reason },
                    None => InputWait::Outside { reason },
                };
            }
            // A member that reads the terminal while another waits on the outside (`tail -f
            // log | less`) is busy with it, as one that works is.
            (Some(_), Some(reason)) => return InputWait::NotWaiting { reason },
            (None, None) => {
                if let Some(not) = behind {
                    // A child the members wait for may have left the terminal's session and
                    // still read the terminal (`su USER -c CMD`, `setsid -w`).
                    if let Some(wait) = detached_wait(&members, &behind_pids, candidates, probe) {
                        return wait;
                    }
                    // A member waiting for a signal reads the terminal through its relay,
                    // another process of another session that holds it, as a client on its
                    // server's socket does (GNU screen's client, `screen -r`, reattached to a
                    // server that is not its child: one started before it, in the session or
                    // outside it).
                    if let Some(sid) = sid
                        && behind_threads.iter().any(|(_, threads)| waits_for_signal(threads))
                    {
                        if let Some(relay) = waiting_relay(pgrp, sid, &members, candidates, probe) {
                            return InputWait::Waiting { reader: Some(relay) };
                        }
                        if let Some(reason) = probe.looks.busy_hosted.borrow_mut().take() {
                            return InputWait::NotWaiting { reason };
                        }
                    }
                    // Every member asleep, one ticking on a short timer with nothing to
                    // print, or in a sleep longer than any default wait, none on a clock about
                    // to go off: a poll of the world outside, or nothing to wait for. Else one
                    // that goes back to the same short sleep again and again, whatever it
                    // prints: a program that redraws on a timer.
                    return match (tick, long_sleep, clock, repeating) {
                        (Some(reason), _, None, _) => InputWait::Outside { reason },
                        (None, Some((reason, timer)), None, _)
                            if unknown.is_empty()
                                && behind_threads.iter().all(|(pid, threads)| {
                                    asleep_long(*pid, threads, &members, candidates)
                                }) =>
                        {
                            InputWait::Sleeping { reason, timer }
                        }
                        (_, _, _, Some(reason)) => InputWait::Ticking { reason },
                        _ => not,
                    };
                }
            }
            (Some(_), None) => {}
        }
        if !unknown.is_empty() {
            let what = if reader.is_none() {
                "no member could be read"
            } else {
                "not every member could be read"
            };
            return InputWait::Unknown {
                reason: format!("process group {pgrp}: {what}: {}", unknown.join("; ")),
            };
        }
        if reader.is_none() {
            return InputWait::NotWaiting {
                reason: format!("all members of process group {pgrp} have exited"),
            };
        }
        InputWait::Waiting { reader }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group whose leader ended goes by a member's name.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_group_whose_leader_ended_goes_by_a_members_name() {
        use std::io::Read;
        use std::os::unix::process::CommandExt;
        let mut leader = std::process::Command::new("sh")
            .args(["-c", "sleep 30 >/dev/null & echo $!"])
            .process_group(0)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let group = leader.id() as i32;
        let mut said = String::new();
        leader.stdout.take().unwrap().read_to_string(&mut said).unwrap();
        // (Once it has printed: before its exec the child goes by the test thread's name.)
        assert_eq!(group_name(group).as_deref(), Some("sh"), "the leader, not reaped");
        leader.wait().unwrap();
        let member: i32 = said.trim().parse().unwrap();
        assert_eq!(group_name(group).as_deref(), Some("sleep"), "a member, once it ended");
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(member).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        assert_eq!(group_name(-1), None);
    }

    #[test]
    fn a_timer_counts_as_a_tick_once_seen_again_after_a_wakeup() {
        let second = std::time::Duration::from_secs(1);
        let timers = TimerSightings::default();
        let input = std::time::Instant::now();
        timers.since_input(input);
        assert!(!timers.repeated(7, second, 10, false), "a first sighting is no tick");
        assert!(!timers.repeated(7, second, 10, false), "the same wait seen again is none");
        assert!(timers.repeated(7, second, 11, false), "woken and waiting on the same timer");
        assert!(timers.repeated(7, second, 11, false), "and stays so while it sleeps");
        assert!(!timers.repeated(7, second / 2, 12, false), "another timer");
        // Other threads, fewer than are kept, leave it; more push the oldest out.
        for tid in 1..TIMERS_KEPT as i32 {
            timers.repeated(100 + tid, second, 1, false);
        }
        assert!(timers.repeated(7, second / 2, 13, false), "kept beside the others");
        for tid in 1..=TIMERS_KEPT as i32 {
            timers.repeated(200 + tid, second, 1, false);
        }
        assert!(!timers.repeated(7, second / 2, 14, false), "forgotten");
        assert_eq!(timers.seen.borrow().len(), TIMERS_KEPT, "bounded");
        timers.repeated(8, second, 1, false);
        timers.since_input(input);
        assert!(timers.repeated(8, second, 2, false), "the same input keeps what was seen");
        timers.since_input(input + second);
        assert!(!timers.repeated(8, second, 3, false), "input in between forgets it");
    }

    /// A wait found repeated before an input counts after it once the thread woke and the
    /// terminal was written to since the input (a monitor redrew after a key: `top -d 1`,
    /// `halfdelay(10)`), and not otherwise; a wait not found repeated is forgotten at the
    /// input (vim's 'timeoutlen' after an Escape, seen once per key).
    #[test]
    fn a_tick_found_before_an_input_counts_after_it_once_redrawn() {
        let second = std::time::Duration::from_secs(1);
        let timers = TimerSightings::default();
        let input = std::time::Instant::now();
        timers.since_input(input);
        for tid in 3..=7 {
            assert!(!timers.repeated(tid, second, 10, true));
            assert!(timers.repeated(tid, second, 11, true), "ticking before the input");
        }
        assert!(!timers.repeated(9, second, 10, true), "seen once before the input");
        timers.since_input(input + second);
        assert!(!timers.repeated(9, second, 11, true), "a wait seen once is forgotten");
        assert!(!timers.repeated(7, second, 11, true), "not woken since the input");
        assert!(!timers.repeated(6, second, 12, false), "nothing drawn since the input");
        assert!(!timers.repeated(5, second / 2, 12, true), "another timer");
        assert!(timers.repeated(4, second, 12, true), "woken and back on it once redrawn");
        assert!(timers.repeated(4, second, 12, true), "and stays so while it sleeps");
        // Carried across further input while the thread is not seen on a timer (3), or found
        // repeated again (4); forgotten once seen otherwise (5).
        timers.since_input(input + 2 * second);
        timers.since_input(input + 3 * second);
        assert!(timers.repeated(3, second, 12, true), "carried across further input");
        assert!(timers.repeated(4, second, 13, true), "carried again");
        assert!(!timers.repeated(5, second, 13, true), "forgotten once seen otherwise");
    }

    #[test]
    fn parse_stat_plain() {
        let s = b"1234 (bash) S 1000 1234 1234 34816 5678 4194560 0 0 0 0\n";
        let st = parse_stat(s).unwrap();
        assert_eq!(
            st,
            ProcStat {
                pid: 1234,
                comm: "bash".into(),
                state: 'S',
                ppid: 1000,
                pgrp: 1234,
                session: 1234,
                tty_nr: 34816,
                tpgid: 5678,
            }
        );
    }

    #[test]
    fn parse_stat_tricky_comm() {
        let s = b"42 (a b) c) (x) Z 1 -7 3 0 -1 0 0\n";
        let st = parse_stat(s).unwrap();
        assert_eq!(st.pid, 42);
        assert_eq!(st.comm, "a b) c) (x");
        assert_eq!(st.state, 'Z');
        assert_eq!((st.ppid, st.pgrp, st.session), (1, -7, 3));
        assert_eq!((st.tty_nr, st.tpgid), (0, -1));
        assert!(is_dead(&st));

        let st = parse_stat(b"7 () R 1 2 3 4 5").unwrap();
        assert_eq!(st.comm, "");
        let st = parse_stat(b"7 (new\nline) R 1 2 3 4 5").unwrap();
        assert_eq!(st.comm, "new\nline");
        let st = parse_stat(b"7 (\xff\xfe) R 1 2 3 4 5").unwrap();
        assert_eq!(st.comm, "\u{fffd}\u{fffd}");
    }

    #[test]
    fn parse_stat_rejects_garbage() {
        for bad in [
            &b""[..],
            b"12 bash S 1 2 3 4 5",
            b"12 (bash S 1 2 3 4 5",
            b"x (bash) S 1 2 3 4 5",
            b"12 (bash) S 1 2 3",
            b"12 (bash) SS 1 2 3 4 5",
            b"12 (bash) S 1 two 3 4 5",
            b"12 )bash( S 1 2 3 4 5",
        ] {
            let err = parse_stat(bad).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{bad:?}");
        }
    }

    #[test]
    fn process_groups_sorted_dedup() {
        let mk = |pid, pgrp| ProcStat {
            pid,
            comm: "x".into(),
            state: 'S',
            ppid: 1,
            pgrp,
            session: 1,
            tty_nr: 0,
            tpgid: -1,
        };
        let procs = [mk(1, 30), mk(2, 10), mk(3, 30), mk(4, 20), mk(5, 10)];
        assert_eq!(process_groups(&procs), vec![10, 20, 30]);
        assert!(process_groups(&[]).is_empty());
    }

    #[test]
    fn is_gone_kinds() {
        assert!(is_gone(&io::Error::from(io::ErrorKind::NotFound)));
        assert!(is_gone(&io::Error::from_raw_os_error(ESRCH)));
        assert!(!is_gone(&io::Error::from(io::ErrorKind::PermissionDenied)));
    }

    #[test]
    fn wchan_classification() {
        for w in [
            "n_tty_read",
            "wait_woken",
            "do_select",
            "do_sys_poll",
            "core_sys_select",
            "ep_poll",
            "do_epoll_wait",
            "poll_schedule_timeout.constprop.0",
            "tty_read",
        ] {
            assert!(matches!(classify_wchan(w), Some(Activity::Input(_))), "{w} should be input");
        }
        for w in ["pipe_read", "anon_pipe_read", "hrtimer_nanosleep", "do_wait", "futex_wait_queue"]
        {
            assert!(
                matches!(classify_wchan(w), Some(Activity::Other(_))),
                "{w} should not be input"
            );
        }
        assert_eq!(classify_wchan("0"), None);
        assert_eq!(classify_wchan("\n"), None);
    }

    #[test]
    fn syscall_field_parsing() {
        assert_eq!(parse_syscall("running\n"), Some(SyscallField::Running));
        assert_eq!(parse_syscall("-1 0x7ffd 0x0\n"), Some(SyscallField::NotInSyscall));
        assert_eq!(parse_syscall("230 0x0 0x0 0x7ff\n"), Some(SyscallField::Nr(230)));
        assert_eq!(parse_syscall(""), None);
        assert_eq!(parse_syscall("bogus"), None);
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn syscall_table() {
        let input = [
            "read",
            "readv",
            "pread64",
            "preadv",
            "preadv2",
            "pselect6",
            "ppoll",
            "epoll_pwait",
            "epoll_pwait2",
        ];
        #[cfg(target_arch = "x86_64")]
        let input = [&input[..], &["select", "poll", "epoll_wait"]].concat();
        let table = SYSCALLS.unwrap();
        for name in input {
            let &(nr, _, is_input) = table.iter().find(|e| e.1 == name).unwrap();
            assert!(is_input, "{name}");
            assert_eq!(classify_syscall(nr), Some(Activity::Input(name.into())));
        }
        for name in ["nanosleep", "clock_nanosleep", "wait4", "waitid", "futex", "write"] {
            let &(nr, _, is_input) = table.iter().find(|e| e.1 == name).unwrap();
            assert!(!is_input, "{name}");
            assert_eq!(classify_syscall(nr), Some(Activity::Other(name.into())));
        }
        // Numbers are unique.
        let mut nrs: Vec<i64> = table.iter().map(|e| e.0).collect();
        nrs.sort_unstable();
        nrs.dedup();
        assert_eq!(nrs.len(), table.len());
        assert_eq!(classify_syscall(9999), Some(Activity::Other("system call 9999".into())));
    }

    #[test]
    fn a_wait_on_the_world_outside_is_told_from_a_sleep_and_from_work() {
        let t = |tid, what: &str| ThreadObs {
            tid,
            activity: Activity::Other(what.into()),
            clock: None,
            tick: None,
            long_sleep: None,
        };
        let poll = format!("poll {NOT_THE_TERMINAL}");
        let sockets = format!("epoll_wait {ON_SOCKETS}");
        // `tail -f`, a server with its workers, one in `accept`, one reading its socket or
        // its inotify descriptor.
        assert!(waits_outside(&[t(1, &poll)]));
        assert!(waits_outside(&[t(1, &sockets), t(2, "futex"), t(3, "futex_wait_queue")]));
        assert!(waits_outside(&[t(1, "accept4")]));
        assert!(waits_outside(&[t(1, "read on socket:[77]")]));
        assert!(waits_outside(&[t(1, "read on anon_inode:inotify")]));
        // A relay to a terminal across the network that has not answered (`ssh`).
        assert!(waits_outside(&[t(1, &format!("ppoll {ON_NETWORK}"))]));
        // A sleep, a child, a pipe, a lock alone, a select on no descriptor, or a thread
        // that works beside it: not that.
        assert!(!waits_outside(&[t(1, "nanosleep")]));
        assert!(!waits_outside(&[t(1, "wait4")]));
        assert!(!waits_outside(&[t(1, "read on pipe:[5]")]));
        assert!(!waits_outside(&[t(1, "futex")]));
        assert!(!waits_outside(&[t(1, "select on no descriptor (a sleep)")]));
        assert!(!waits_outside(&[t(1, "read on /home/x/file")]));
        let working = ThreadObs {
            tid: 2,
            activity: Activity::NotSleeping('R'),
            clock: None,
            tick: None,
            long_sleep: None,
        };
        assert!(!waits_outside(&[t(1, &poll), working]));
        assert!(!waits_outside(&[]));
    }

    #[test]
    fn only_the_internets_sockets_are_looked_up_and_only_established_ones_are_connected() {
        assert_eq!(inet_table(b"TCP\0"), Some("tcp"));
        assert_eq!(inet_table(b"TCPv6\0"), Some("tcp6"));
        assert_eq!(inet_table(b"UDP"), Some("udp"));
        assert_eq!(inet_table(b"UDPv6\0"), Some("udp6"));
        for name in [&b"UNIX-STREAM\0"[..], b"UNIX\0", b"NETLINK\0", b"MPTCP\0", b""] {
            assert_eq!(inet_table(name), None, "{name:?}");
        }
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
            0: 0100007F:A3D7 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9104330 1 0000000000000000 100 0 0 10 0\n\
            1: 0100007F:08FB 0100007F:A3D7 01 00000000:00000000 02:000A7B3C 00000000     0        0 9104337 2 0000000000000000 20 4 30 10 -1\n";
        assert_eq!(connected_in(table, 9104337), Some(true));
        assert_eq!(connected_in(table, 9104330), Some(false), "listening");
        assert_eq!(connected_in(table, 910433), None, "a prefix of another's inode");
        assert_eq!(connected_in(table, 0), None, "the header");
    }

    #[test]
    fn decide_combinations() {
        let t =
            |tid, activity| ThreadObs { tid, activity, clock: None, tick: None, long_sleep: None };
        let input = || Activity::Input("read".into());
        let futex = || Activity::Other("futex".into());
        let who = "pid 10 (x)";
        let waiting = InputWait::Waiting { reader: Some(10) };
        assert_eq!(decide(10, who, &[t(10, input())]), waiting);
        assert_eq!(decide(10, who, &[t(10, input()), t(11, futex())]), waiting);
        assert_eq!(decide(10, who, &[t(10, futex()), t(11, input())]), waiting);
        let InputWait::NotWaiting { reason } = decide(10, who, &[t(10, futex()), t(11, futex())])
        else {
            panic!("futex-only must not be waiting");
        };
        assert!(reason.contains("pid 10 (x)") && reason.contains("futex"), "{reason}");
        let InputWait::NotWaiting { reason } =
            decide(10, who, &[t(10, input()), t(11, Activity::NotSleeping('R'))])
        else {
            panic!("a running thread means not waiting");
        };
        assert!(reason.contains("thread 11 of pid 10 (x)"), "{reason}");
        assert!(reason.contains("running"), "{reason}");
        let InputWait::Unknown { reason } =
            decide(10, who, &[t(10, Activity::Unknown("no access".into()))])
        else {
            panic!("unreadable must be unknown");
        };
        assert!(reason.contains("no access"), "{reason}");
        assert_eq!(
            decide(10, who, &[t(10, input()), t(11, Activity::Unknown("no access".into()))]),
            waiting
        );
        assert!(matches!(
            decide(10, who, &[t(10, futex()), t(11, Activity::Unknown("?".into()))]),
            InputWait::Unknown { .. }
        ));
        assert!(matches!(decide(10, who, &[]), InputWait::NotWaiting { .. }));
    }

    #[cfg(target_os = "linux")]
    mod live {
        use super::super::*;
        use std::path::PathBuf;
        use std::process::{Child, Command, Stdio};
        use std::time::{Duration, Instant};

        /// Kills (and reaps) a spawned child, and optionally its whole
        /// process group, when dropped — also when a test panics.
        struct Reaper {
            child: Child,
            group: Option<i32>,
        }

        impl Reaper {
            fn new(child: Child) -> Self {
                Reaper { child, group: None }
            }
            fn pid(&self) -> i32 {
                self.child.id() as i32
            }
        }

        impl Drop for Reaper {
            fn drop(&mut self) {
                if let Some(pgid) = self.group.and_then(rustix::process::Pid::from_raw) {
                    let _ =
                        rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
                }
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }

        /// Removes a directory tree when dropped.
        struct TempDir(PathBuf);

        impl Drop for TempDir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }

        /// How long [`wait_for`] waits: generous, so a slow or loaded machine (500 forks
        /// holding 1,000 descriptors each took over 5 s on one) cannot fail a test.
        const WAIT_FOR_LIMIT: Duration = Duration::from_secs(60);

        /// Polls `check` (up to [`WAIT_FOR_LIMIT`], 20 ms apart) until it returns `Ok`;
        /// panics with the last observation on timeout.
        fn wait_for<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
            let deadline = Instant::now() + WAIT_FOR_LIMIT;
            loop {
                match check() {
                    Ok(value) => return value,
                    Err(last) if Instant::now() >= deadline => {
                        panic!(
                            "timed out after {WAIT_FOR_LIMIT:?} waiting for {what}; last observation: {last}"
                        )
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        }

        /// The CPU time this thread has used, its own and the kernel's on its behalf: what a
        /// look at `/proc` costs, which a loaded machine does not inflate as it does wall time.
        fn thread_cpu_time() -> Duration {
            let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
            Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
        }

        /// A terminal for a test process's stdin: input-wait only counts reads of a terminal.
        /// The master side stays open (leaked) so reads block instead of failing.
        fn terminal_stdin() -> Stdio {
            let pty = crate::os::pty::open(80, 24).expect("open a pty");
            std::mem::forget(pty.master);
            Stdio::from(pty.slave)
        }

        fn spawn(cmd: &mut Command) -> Reaper {
            Reaper::new(cmd.spawn().expect("spawn test process"))
        }

        fn own_stat() -> ProcStat {
            read_stat(std::process::id() as i32).expect("read own stat")
        }

        fn thread_count(pid: i32) -> usize {
            std::fs::read_dir(format!("/proc/{pid}/task")).map(|d| d.count()).unwrap_or(0)
        }

        /// `python3` with piped stdin running `code`, or `None` (test
        /// skipped) if python3 is not installed.
        fn spawn_python(code: &str) -> Option<Reaper> {
            match Command::new("python3")
                .args(["-c", code])
                .stdin(terminal_stdin())
                .stdout(Stdio::null())
                .spawn()
            {
                Ok(child) => Some(Reaper::new(child)),
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    assert!(std::env::var_os("CI").is_none(), "CI must install python3");
                    eprintln!("python3 not found; skipping");
                    None
                }
                Err(err) => panic!("spawn python3: {err}"),
            }
        }

        /// Waits until `pid` is the real python interpreter (not e.g. a
        /// pyenv shim script) with at least `threads` threads.
        fn wait_python(pid: i32, threads: usize) {
            wait_for("python to start", || {
                let name = process_name(pid).unwrap_or_default();
                let n = thread_count(pid);
                if name.starts_with("python") && n >= threads {
                    Ok(())
                } else {
                    Err(format!("comm {name:?}, {n} threads"))
                }
            });
        }

        fn wait_waiting(pid: i32) {
            wait_for("process to wait for input", || match process_input_wait(pid) {
                InputWait::Waiting { reader: Some(reader) } if reader == pid => Ok(()),
                other => Err(format!("{other:?}")),
            });
        }

        fn temp_dir(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "termloom-procfs-{tag}-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            ));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        /// Drives the per-thread reader over a fake task directory:
        /// `syscall: None` makes the syscall file unreadable (a directory,
        /// so reading fails with EISDIR), `wchan: None` leaves it missing.
        #[test]
        fn thread_observation_fallbacks() {
            let dir = temp_dir("fake");
            let base = dir.0.join("task");
            let base_str = base.to_str().unwrap().to_string();
            let observe = |state: char, syscall: Option<&str>, wchan: Option<&str>| {
                let _ = std::fs::remove_dir_all(&base);
                std::fs::create_dir_all(&base).unwrap();
                std::fs::write(base.join("stat"), format!("9 (t (x)) {state} 1 9 9 0 -1 0\n"))
                    .unwrap();
                match syscall {
                    Some(text) => std::fs::write(base.join("syscall"), text).unwrap(),
                    None => std::fs::create_dir(base.join("syscall")).unwrap(),
                }
                if let Some(text) = wchan {
                    std::fs::write(base.join("wchan"), text).unwrap();
                }
                super::super::linux::observe_thread(
                    &base_str,
                    9,
                    super::super::Probe {
                        quiet: std::time::Duration::ZERO,
                        timers: None,
                        looks: &super::super::Looks::new(),
                        outside: None,
                        shown: super::super::Shown::Other,
                        unanswered_input: false,
                        unanswered_start: false,
                        unanswered_secret: false,
                        hidden_below_line: false,
                        drawn_since_input: false,
                        full_screen: false,
                        since_input: None,
                        relay_clock: false,
                    },
                )
                .map(|t| t.activity)
            };
            assert_eq!(observe('R', Some("0 0x0"), Some("0")), Some(Activity::NotSleeping('R')));
            assert_eq!(observe('T', Some("0 0x0"), Some("0")), Some(Activity::NotSleeping('T')));
            assert_eq!(observe('Z', None, None), None);
            assert_eq!(
                observe('S', Some("running\n"), Some("0")),
                Some(Activity::NotSleeping('R'))
            );
            assert!(matches!(
                observe('S', Some("-1 0x0 0x0\n"), Some("n_tty_read")),
                Some(Activity::Other(_))
            ));
            assert_eq!(
                observe('S', None, Some("n_tty_read")),
                Some(Activity::Input("n_tty_read".into()))
            );
            assert_eq!(
                observe('S', None, Some("do_sys_poll.isra.0\n")),
                Some(Activity::Input("do_sys_poll".into()))
            );
            assert_eq!(
                observe('S', None, Some("pipe_read")),
                Some(Activity::Other("pipe_read".into()))
            );
            let Some(Activity::Unknown(why)) = observe('S', None, Some("0")) else {
                panic!("unreadable syscall + wchan 0 must be unknown");
            };
            assert!(why.contains("wchan is not available"), "{why}");
            let Some(Activity::Unknown(why)) = observe('S', None, None) else {
                panic!("unreadable syscall + missing wchan must be unknown");
            };
            assert!(why.contains("wchan is unreadable"), "{why}");
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            {
                let read = SYSCALLS.unwrap().iter().find(|e| e.1 == "read").unwrap().0;
                // A readable syscall file wins over wchan (pipe reads count).
                assert_eq!(
                    observe('S', Some(&format!("{read} 0x0\n")), Some("anon_pipe_read")),
                    Some(Activity::Input("read".into()))
                );
            }
            // The thread directory vanished: gone.
            std::fs::remove_dir_all(&base).unwrap();
            assert_eq!(
                super::super::linux::observe_thread(
                    &base_str,
                    9,
                    super::super::Probe {
                        quiet: std::time::Duration::ZERO,
                        timers: None,
                        looks: &super::super::Looks::new(),
                        outside: None,
                        shown: super::super::Shown::Other,
                        unanswered_input: false,
                        unanswered_start: false,
                        unanswered_secret: false,
                        hidden_below_line: false,
                        drawn_since_input: false,
                        full_screen: false,
                        since_input: None,
                        relay_clock: false,
                    }
                ),
                None
            );
        }

        #[test]
        fn missing_process_is_gone() {
            let err = read_stat(i32::MAX).unwrap_err();
            assert!(is_gone(&err), "{err}");
            assert!(read_stat(0).is_err());
            assert!(read_stat(-5).is_err());
            assert_eq!(process_name(i32::MAX), None);
            assert!(matches!(process_input_wait(i32::MAX), InputWait::NotWaiting { .. }));
            assert!(matches!(process_input_wait(0), InputWait::Unknown { .. }));
            assert!(matches!(
                group_input_wait(i32::MAX, None, None, TerminalSeen::default()),
                InputWait::Unknown { .. }
            ));
            assert!(session_processes(i32::MAX).is_empty());
        }

        /// A foreground group with no process left while the session's leader lives is the
        /// terminal between two jobs (a shell's loop between one `sleep` and the next, the
        /// first reaped before the shell took the terminal back): busy, not unknown, which
        /// let the default wait take the moment for settled.
        #[test]
        fn a_group_left_empty_while_its_session_leader_lives_is_busy() {
            let leader = spawn(Command::new("setsid").args(["sleep", "30"]));
            let sid = leader.pid();
            wait_for("the leader in a session of its own", || match read_stat(sid) {
                Ok(stat) if stat.session == sid && stat.comm == "sleep" => Ok(()),
                other => Err(format!("{other:?}")),
            });
            let between = group_input_wait(i32::MAX, Some(sid), None, TerminalSeen::default());
            assert!(matches!(between, InputWait::NotWaiting { .. }), "{between:?}");
            // A group with processes this look cannot see (here none are listed to look at, as
            // from a cgroup that could not be read) is not taken for empty.
            let unseen = group_input_wait(sid, Some(sid), Some(&[]), TerminalSeen::default());
            assert!(matches!(unseen, InputWait::Unknown { .. }), "{unseen:?}");
            drop(leader);
            let gone = group_input_wait(i32::MAX, Some(sid), None, TerminalSeen::default());
            assert!(matches!(gone, InputWait::Unknown { .. }), "{gone:?}");
        }

        #[test]
        fn own_process_stat() {
            let me = own_stat();
            assert_eq!(me.pid, std::process::id() as i32);
            // The main thread of the test harness sleeps while tests run.
            assert!(!is_dead(&me), "{me:?}");
            assert!(session_processes(me.session).iter().any(|p| p.pid == me.pid));
            assert!(process_name(me.pid).is_some());
        }

        /// Children and their children, however deep: what the supervisor stops and kills.
        #[test]
        fn descendants_are_found_at_every_depth() {
            let child = spawn(
                Command::new("sh")
                    .args(["-c", "sh -c 'sleep 30 & wait' & wait"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null()),
            );
            let pid = child.pid();
            // The names are read in the wait: a forked child is called "sh" until its exec.
            let found = wait_for("a shell, its shell and its sleep", || {
                let found = descendants_of(pid);
                let names: Vec<String> =
                    found.iter().filter_map(|p| read_stat(*p).ok()).map(|s| s.comm).collect();
                if names == ["sh", "sleep"] {
                    Ok(found)
                } else {
                    Err(format!("{found:?} {names:?}"))
                }
            });
            assert!(descendants_of(found[1]).is_empty());
            // Killed (the test's reaper waits for the shell), the grandchildren too.
            for pid in &found {
                crate::os::terminate::kill(*pid, rustix::process::Signal::KILL);
            }
        }

        #[test]
        fn sleep_is_not_waiting() {
            let child = spawn(
                Command::new("sleep").arg("30").stdin(terminal_stdin()).stdout(Stdio::null()),
            );
            let pid = child.pid();
            let reason = wait_for("sleep to be in nanosleep", || match process_input_wait(pid) {
                InputWait::Waiting { .. } => panic!("sleep reported as waiting for input"),
                InputWait::NotWaiting { reason } if reason.contains("nanosleep") => Ok(reason),
                other => Err(format!("{other:?}")),
            });
            assert!(reason.contains(&format!("pid {pid} (sleep)")), "{reason}");
            for _ in 0..5 {
                assert!(matches!(process_input_wait(pid), InputWait::NotWaiting { .. }));
            }
        }

        #[test]
        fn cat_on_pipe_is_waiting() {
            let child = spawn(Command::new("cat").stdin(terminal_stdin()).stdout(Stdio::null()));
            let pid = child.pid();
            wait_waiting(pid);
            assert_eq!(process_name(pid).as_deref(), Some("cat"));
            assert_eq!(read_stat(pid).unwrap().state, 'S');
        }

        #[test]
        fn busy_loop_is_not_waiting() {
            let child = spawn(
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null()),
            );
            let pid = child.pid();
            wait_for("sh to start", || match process_name(pid) {
                Some(name) if name == "sh" => Ok(()),
                other => Err(format!("{other:?}")),
            });
            let mut running_seen = false;
            for _ in 0..20 {
                match process_input_wait(pid) {
                    InputWait::NotWaiting { reason } => {
                        running_seen |= reason.contains("running");
                    }
                    other => panic!("busy loop reported as {other:?}"),
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(running_seen, "busy loop never seen running");
        }

        #[test]
        fn python_select_is_waiting() {
            let Some(child) = spawn_python("import select,sys; select.select([sys.stdin],[],[])")
            else {
                return;
            };
            let pid = child.pid();
            wait_python(pid, 1);
            wait_waiting(pid);
        }

        #[test]
        fn python_read_with_futex_thread_is_waiting() {
            let Some(child) = spawn_python(
                "import threading,sys\n\
                 threading.Thread(target=lambda: threading.Event().wait(), daemon=True).start()\n\
                 sys.stdin.read()",
            ) else {
                return;
            };
            let pid = child.pid();
            wait_python(pid, 2);
            wait_waiting(pid);
        }

        #[test]
        fn python_join_on_sleeping_thread_is_not_waiting() {
            let Some(child) = spawn_python(
                "import threading,time\n\
                 t=threading.Thread(target=time.sleep, args=(30,))\n\
                 t.start()\n\
                 t.join()",
            ) else {
                return;
            };
            let pid = child.pid();
            wait_python(pid, 2);
            wait_for("both threads asleep", || match process_input_wait(pid) {
                InputWait::Waiting { .. } => panic!("futex + nanosleep reported as waiting"),
                InputWait::NotWaiting { reason } if reason.contains("sleeping in") => Ok(()),
                other => Err(format!("{other:?}")),
            });
        }

        #[test]
        fn stat_of_comm_with_spaces_and_parens() {
            let dir = temp_dir("comm");
            let exe = dir.0.join("a b) c");
            std::fs::copy("/bin/sleep", &exe).unwrap();
            // Another test thread may fork while the copy's write fd is
            // still open, briefly making the file "busy" (ETXTBSY).
            let child = wait_for("spawn of copied sleep", || {
                match Command::new(&exe)
                    .arg("30")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .spawn()
                {
                    Ok(child) => Ok(Reaper::new(child)),
                    Err(err) if err.raw_os_error() == Some(26) => Err(err.to_string()),
                    Err(err) => panic!("spawn {exe:?}: {err}"),
                }
            });
            let pid = child.pid();
            let st = wait_for("exec of copied sleep", || {
                let st = read_stat(pid).map_err(|e| e.to_string())?;
                if st.comm == "a b) c" { Ok(st) } else { Err(format!("{st:?}")) }
            });
            let me = own_stat();
            assert_eq!(st.pid, pid);
            assert!(matches!(st.state, 'S' | 'R'), "{st:?}");
            assert_eq!(st.ppid, me.pid);
            assert_eq!(st.session, me.session);
            assert_eq!(st.pgrp, me.pgrp);
            assert_eq!(process_name(pid).as_deref(), Some("a b) c"));
            // By pid: the other fields (state, times) may change between two reads.
            assert!(session_processes(me.session).iter().any(|p| p.pid == pid));
        }

        #[test]
        fn zombie_is_dead() {
            let mut child = Command::new("true").spawn().expect("spawn true");
            let pid = child.id() as i32;
            let st = wait_for("true to become a zombie", || {
                let st = read_stat(pid).map_err(|e| e.to_string())?;
                if st.state == 'Z' { Ok(st) } else { Err(format!("{st:?}")) }
            });
            assert!(is_dead(&st));
            let sid = own_stat().session;
            assert!(session_processes(sid).iter().any(|p| p.pid == pid));
            assert!(!live_session_processes(sid).iter().any(|p| p.pid == pid));
            assert!(matches!(process_input_wait(pid), InputWait::NotWaiting { .. }));
            child.wait().unwrap();
            assert!(read_stat(pid).is_err_and(|e| is_gone(&e)));
        }

        #[test]
        fn new_session_and_background_child() {
            let me = own_stat();
            let mut leader = spawn(
                Command::new("setsid")
                    .args(["sh", "-c", "sleep 30 & wait"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null()),
            );
            let pid = leader.pid();
            let st = wait_for("setsid to create a session", || {
                let st = read_stat(pid).map_err(|e| e.to_string())?;
                if st.session != me.session && st.comm == "sh" {
                    Ok(st)
                } else {
                    Err(format!("{st:?}"))
                }
            });
            let sid = st.session;
            assert_eq!(sid, pid, "setsid should exec in place: {st:?}");
            assert_ne!(st.pgrp, me.pgrp);
            leader.group = Some(st.pgrp);
            let procs = wait_for("background sleep in the session", || {
                let procs = live_session_processes(sid);
                if procs.iter().any(|p| p.ppid == pid && p.comm == "sleep" && p.session == sid) {
                    Ok(procs)
                } else {
                    Err(format!("{procs:?}"))
                }
            });
            assert!(procs.iter().any(|p| p.pid == pid));
            assert!(procs.iter().all(|p| p.session == sid));
            assert!(session_processes(sid).len() >= procs.len());
            assert_eq!(process_groups(&procs), vec![sid]);
            // The shell waits for its child: not waiting for input.
            let InputWait::NotWaiting { reason } =
                group_input_wait(sid, Some(sid), None, TerminalSeen::default())
            else {
                panic!("shell in wait4 must not be waiting");
            };
            assert!(reason.contains("pid"), "{reason}");
            // Kill the background child first so that the shell reaps it
            // (no orphan left for init); the Reaper then ends the shell.
            let bg =
                procs.iter().find(|p| p.ppid == pid && p.comm == "sleep").map(|p| p.pid).unwrap();
            rustix::process::kill_process(
                rustix::process::Pid::from_raw(bg).unwrap(),
                rustix::process::Signal::KILL,
            )
            .unwrap();
            wait_for("the shell to reap its background child", || match read_stat(bg) {
                Err(err) if is_gone(&err) => Ok(()),
                other => Err(format!("{other:?}")),
            });
        }

        /// A relay (a process of another session holding the terminal, as tmux's server)
        /// that hosts, in a session it started, a client of its own (a process waiting on a
        /// socket whose terminal the relay holds too): judging the relay judged the client,
        /// which judged the relay again, until the reactor's stack overflowed and the whole
        /// engine aborted. Each relay is judged once a probe: the client does not wait.
        #[test]
        fn a_relay_that_hosts_its_own_client_is_judged_once() {
            let code = r#"
import ctypes, os, socket, select, fcntl, termios
die_with_parent = lambda: ctypes.CDLL(None).prctl(1, 9)
die_with_parent()
os.setsid()
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
a, b = socket.socketpair()
if os.fork() == 0:
    die_with_parent()
    os.setsid()
    master, slave = os.openpty()
    if os.fork() == 0:
        die_with_parent()
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        poll = select.poll()
        poll.register(a, select.POLLIN)
        while True:
            poll.poll()
    while True:
        os.read(slave, 1)
poll = select.poll()
poll.register(b, select.POLLIN)
while True:
    poll.poll()
"#;
            let Some(client) = spawn_python(code) else { return };
            let client = client.pid();
            wait_python(client, 1);
            // The relay (the client's child) reads the terminal of the session it started,
            // whose leader polls a socket.
            let pids = wait_for("the relay and the session it hosts", || {
                let pids = descendants_of(client);
                let stats: Vec<ProcStat> = pids.iter().filter_map(|&p| read_stat(p).ok()).collect();
                let hosted = stats.iter().any(|s| s.pid == s.session && s.tty_nr != 0);
                let relay = pids.iter().any(|&p| {
                    matches!(process_input_wait(p), InputWait::Waiting { reader: Some(r) } if r == p)
                });
                let own = read_stat(client).map(|s| s.session == client && s.tty_nr != 0);
                match (pids.len(), hosted, relay, own) {
                    (2, true, true, Ok(true)) => Ok(pids),
                    other => Err(format!("{other:?}")),
                }
            });
            let candidates: Vec<i32> =
                std::iter::once(client).chain(pids.iter().copied()).collect();
            let outcome = wait_for("the client to poll its socket", || {
                match group_input_wait(
                    client,
                    Some(client),
                    Some(&candidates),
                    TerminalSeen::default(),
                ) {
                    // No relay waits: the client waits on its socket, on the world outside.
                    InputWait::Outside { reason } if reason.contains("on sockets") => Ok(reason),
                    other => Err(format!("{other:?}")),
                }
            });
            assert!(outcome.contains(&format!("pid {client}")), "{outcome}");
            // (The relay and the client it hosts end with their parents.)
        }

        /// A probe looks at a bounded number of descriptors, whatever the processes hold:
        /// 1,000 threads each polling the same 1,000 descriptors took two million looks (and
        /// seconds of the reactor) a probe.
        #[test]
        fn many_threads_polling_many_descriptors_cost_a_bounded_probe() {
            let code = r#"
import os, select, sys, threading
os.setpgid(0, 0)  # a group of its own: the test's may lie outside a PID namespace
fds = [os.open("/dev/null", os.O_RDONLY)]
fds += [os.dup(fds[0]) for _ in range(999)]
ready = threading.Barrier(1001)
def wait():
    poll = select.poll()
    for fd in fds:
        poll.register(fd, 0)
    ready.wait()
    poll.poll()
for _ in range(1000):
    threading.Thread(target=wait, daemon=True).start()
ready.wait()
sys.stdin.read()
"#;
            let Some(child) = spawn_python(code) else { return };
            let pid = child.pid();
            wait_python(pid, 1001);
            let candidates = [pid];
            let group = read_stat(pid).unwrap().pgrp;
            let probe =
                || group_input_wait(group, None, Some(&candidates), TerminalSeen::default());
            // The probe that finds them waiting has looked at every thread (one found running
            // ends a probe early, and under load one may be, now and then).
            let took = wait_for("the threads to poll", || {
                let started = thread_cpu_time();
                match probe() {
                    InputWait::Waiting { reader: Some(reader) } if reader == pid => {
                        Ok(thread_cpu_time() - started)
                    }
                    other => Err(format!("{other:?}")),
                }
            });
            // About 40 ms of CPU in a debug build; 3.3 s before.
            assert!(took < Duration::from_secs(1), "a probe took {took:?} of CPU");
        }

        /// The relays of a terminal are looked for among processes of other sessions, a
        /// bounded number of descriptors in all, a few read at a time: 500 processes of other
        /// sessions holding 1,000 descriptors each took a second a look (the kernel lists a
        /// thousand of them for every read of a process's descriptors).
        #[test]
        fn processes_holding_many_descriptors_cost_a_bounded_look_for_relays() {
            let code = r#"
import ctypes, os, sys, fcntl, termios
die_with_parent = lambda: ctypes.CDLL(None).prctl(1, 9)
die_with_parent()
os.setsid()
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
for _ in range(500):
    if os.fork() == 0:
        die_with_parent()
        os.setsid()
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        fds = [os.dup(null) for _ in range(1000)]
        os.read(os.pipe()[0], 1)
sys.stdin.read()
"#;
            let Some(client) = spawn_python(code) else { return };
            let client = client.pid();
            wait_python(client, 1);
            let candidates = wait_for("500 processes holding 1,000 descriptors", || {
                let pids = descendants_of(client);
                let ready = pids.len() == 500
                    && pids.iter().all(|pid| {
                        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|d| d.count() > 1000)
                    });
                match ready {
                    true => Ok(std::iter::once(client).chain(pids).collect::<Vec<i32>>()),
                    false => Err(format!("{} processes", pids.len())),
                }
            });
            let started = thread_cpu_time();
            let reads = group_reads(client, Some(client), Some(&candidates), None);
            let took = thread_cpu_time() - started;
            assert!(reads.is_some());
            // About 20 ms of CPU in a debug build; 1.1 s before.
            assert!(took < Duration::from_millis(250), "a look for relays took {took:?} of CPU");
        }

        #[test]
        fn process_group_waiting() {
            use std::os::unix::process::CommandExt;
            let me = own_stat();
            let first = spawn(
                Command::new("cat").stdin(terminal_stdin()).stdout(Stdio::null()).process_group(0),
            );
            let pgrp = first.pid();
            let _second = spawn(
                Command::new("cat")
                    .stdin(terminal_stdin())
                    .stdout(Stdio::null())
                    .process_group(pgrp),
            );
            wait_for("both cats waiting", || {
                let members = scan_processes(|p| p.pgrp == pgrp);
                match group_input_wait(pgrp, Some(me.session), None, TerminalSeen::default()) {
                    InputWait::Waiting { .. }
                        if members.len() == 2 && members.iter().all(|m| m.comm == "cat") =>
                    {
                        Ok(())
                    }
                    other => Err(format!("{other:?} {members:?}")),
                }
            });
            // The first member blocked reading names the group's reader.
            assert_eq!(
                group_input_wait(pgrp, None, None, TerminalSeen::default()),
                InputWait::Waiting { reader: Some(pgrp) }
            );
            assert!(matches!(
                group_input_wait(pgrp, Some(i32::MAX), None, TerminalSeen::default()),
                InputWait::Unknown { .. }
            ));
            // A member asleep on a clock (a background job of a shell without job control)
            // leaves the group waiting; one that runs does not.
            let _sleeper = spawn(
                Command::new("sleep")
                    .arg("30")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .process_group(pgrp),
            );
            wait_for("the sleeper to sleep", || {
                let members = scan_processes(|p| p.pgrp == pgrp);
                let sleeping = members.iter().any(|m| m.comm == "sleep" && m.state == 'S');
                match group_input_wait(pgrp, Some(me.session), None, TerminalSeen::default()) {
                    InputWait::Waiting { .. } if sleeping => Ok(()),
                    other => Err(format!("{other:?} {members:?}")),
                }
            });
            let busy = spawn(
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .process_group(pgrp),
            );
            let busy_pid = busy.pid();
            let reason =
                wait_for("a busy member to make the group not waiting", || match group_input_wait(
                    pgrp,
                    Some(me.session),
                    None,
                    TerminalSeen::default(),
                ) {
                    InputWait::NotWaiting { reason }
                        if reason.contains(&format!("pid {busy_pid} (sh)")) =>
                    {
                        Ok(reason)
                    }
                    other => Err(format!("{other:?}")),
                });
            assert!(!reason.is_empty());
        }
    }
}
