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

mod examination;
mod files;
pub(crate) use examination::{examine, read_examined};
pub(crate) use files::{
    Kept, read_bytes, read_bytes_now, read_kept, read_pids, read_pids_from_start, read_record,
    read_status, read_text, read_text_now,
};

/// The kernel's overflow uid (`/proc/sys/kernel/overflowuid`; 65534 where it cannot be
/// read): the uid a user namespace reports for every user it does not map.
pub(crate) fn overflow_uid() -> u32 {
    let read = std::fs::read_to_string("/proc/sys/kernel/overflowuid");
    read.ok().and_then(|text| text.trim().parse().ok()).unwrap_or(65534)
}

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
    /// The threads of the process (`num_threads`, field 20); `None` in a stat cut short
    /// before it.
    pub num_threads: Option<u32>,
    /// When the process or thread started (`starttime`, field 22), in clock ticks since
    /// boot; `None` in a stat cut short before it.
    pub starttime: Option<u64>,
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
        /// Whether it is a member's idle tick (see [`IDLE_TICKS`]): a short sleep it goes
        /// back to with nothing to print (`less +F` between its looks at the file it
        /// follows), rather than a wait on the world outside itself (`tail -f`'s `inotify`).
        /// A full-screen program so ticking has shown what it shows (the default wait takes
        /// it as settled at once). Its `reason` ends with [`TICKS_IDLE`].
        idle_tick: bool,
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

impl InputWait {
    /// What it does instead of waiting for input, as its reason says; `None` when it waits.
    pub(crate) fn reason(&self) -> Option<&str> {
        match self {
            InputWait::Waiting { .. } => None,
            InputWait::NotWaiting { reason }
            | InputWait::Outside { reason, .. }
            | InputWait::Ticking { reason }
            | InputWait::Sleeping { reason, .. }
            | InputWait::Stopped { reason }
            | InputWait::Unknown { reason } => Some(reason),
        }
    }
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

/// Returns true if the thread is a zombie (`Z`) or dead (`X`/`x`). Of a process, that is the
/// state of its first thread only: whether the process lives is [`has_live_threads`].
pub(crate) fn is_dead(stat: &ProcStat) -> bool {
    matches!(stat.state, 'Z' | 'X' | 'x')
}

/// Whether the process whose `/proc/PID/stat` is `stat` may have a live thread: it is not
/// dead, or it is a zombie with other threads (its first thread exited alone, `SYS_exit`
/// rather than `exit_group`, as C's `pthread_exit` in `main`, and its workers live on: the
/// stat tells the first thread's state, and counts it among the threads until the last one
/// ends). Such a process is no zombie: its workers run, read the terminal, and are ended by
/// signals to it as any process's threads are.
pub(crate) fn has_live_threads(stat: &ProcStat) -> bool {
    !is_dead(stat) || stat.state == 'Z' && stat.num_threads.is_some_and(|threads| threads > 1)
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
        read_record(&format!("/proc/{pid}/stat"), parse_stat)?
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        Err(unsupported())
    }
}

/// Whether process `pid` is a shell that does job control: it ignores `SIGTSTP` and `SIGTTOU`
/// and ignores or catches `SIGTTIN` (`SigIgn`, `SigCgt` in its `status`), as an interactive
/// shell must to stay in the foreground while it hands the terminal to its jobs (bash, zsh,
/// dash -i ignore all three, fish catches `SIGTTIN`); a shell running a script does not. `false` where that cannot be read (always on non-Linux
/// targets).
pub(crate) fn does_job_control(pid: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        pid > 0
            && numbers_ours()
            && read_status(&format!("/proc/{pid}/status"))
                .is_ok_and(|status| linux::ignores_job_control_signals(&status))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
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
        read_kept(pid, Kept::Comm, |data| {
            let data = data.strip_suffix(b"\n").unwrap_or(data);
            String::from_utf8_lossy(data).into_owned()
        })
        .ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// Names a program is run by that say its role, not which program it is: Debian's
/// alternatives `pager` (`man`'s default pager: `less`, `more`, `most`), `editor` and
/// `www-browser`.
const ROLE_NAMES: [&str; 3] = ["pager", "editor", "www-browser"];

/// The name of the program `pid` runs, as a status names it: its `comm`
/// ([`process_name`]), or, where that is a role name (`ROLE_NAMES`: `man ls` runs
/// `/usr/bin/pager`, a link to `less`), its executable's file name, without a variant's
/// suffix (`vim.basic` is `vim`), which says which keys it takes. `None` as for
/// [`process_name`].
pub(crate) fn program_name(pid: i32) -> Option<String> {
    let name = process_name(pid)?;
    if !ROLE_NAMES.contains(&name.as_str()) {
        return Some(name);
    }
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    // An executable removed since it started (an upgrade while it runs) reads `… (deleted)`.
    let file = exe.as_ref().and_then(|exe| exe.file_name()?.to_str());
    let file = file.map(|file| file.strip_suffix(" (deleted)").unwrap_or(file));
    // Only a plain name (as a relay's): a file name may hold a line break or an escape
    // sequence, which a status line must not.
    let program = file
        .map(without_variant)
        .filter(|program| program.len() <= MAX_PROGRAM_NAME && plain_name(program));
    Some(program.map_or(name, str::to_owned))
}

/// Whether `name` is a name a header gives as it is: ASCII letters, digits, `.`, `_`, `-` and
/// `+`, at least one (no control character, blank or quote, which JSON need not escape).
fn plain_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b))
}

/// The longest executable's file name [`program_name`] gives (a `comm` is at most 15 bytes).
const MAX_PROGRAM_NAME: usize = 64;

/// An executable's file name without the suffix of a variant built of it, lowercase letters
/// after a dot (Debian's `vim.basic`, `vim.tiny`, `vim.nox` are `vim`); a version
/// (`python3.11`) is kept.
fn without_variant(file: &str) -> &str {
    match file.split_once('.') {
        Some((stem, variant))
            if !stem.is_empty()
                && !variant.is_empty()
                && variant.bytes().all(|b| b.is_ascii_lowercase()) =>
        {
            stem
        }
        _ => file,
    }
}

/// The name of the relay that process `pid` reads the keys of session `sid` through (a tmux
/// or GNU screen server, on whose pane or window it is): the parent of the leader of `pid`'s
/// POSIX session, when that one leads it on a terminal and the parent is of another session
/// than `sid` (a program of the session that hosts a terminal, `script` or `sudo` with
/// `use_pty`, is none), up to any colon in its name (`tmux` for `tmux: server`). `None`
/// where `/proc` cannot tell, or when the name is not plain ASCII letters, digits, `.`, `_`,
/// `-` and `+`: a header says it in few bytes, which JSON need not escape.
pub(crate) fn relay_name(pid: i32, sid: i32) -> Option<String> {
    let leader = read_stat(read_stat(pid).ok()?.session).ok()?;
    if leader.pid == sid || leader.tty_nr == 0 {
        return None;
    }
    let relay = read_stat(leader.ppid).ok().filter(|relay| relay.session != sid)?;
    let name = relay.comm.split(':').next().unwrap_or_default().trim();
    plain_name(name).then(|| name.to_owned())
}

/// The name of process `pid` when it is a relay of session `sid` itself (a tmux or GNU screen
/// server reading the session's terminal for its panes, in a POSIX session of its own with no
/// terminal), up to any colon (`tmux` for `tmux: server`), as [`relay_name`] names it; `None`
/// for any other process, or where `/proc` cannot tell. A status names the relay so when it
/// is the reader: tmux with two panes, which `/proc` cannot tell the shown one of (`tmux:
/// server waiting for keys` said a name the session never ran).
pub(crate) fn relay_own_name(pid: i32, sid: i32) -> Option<String> {
    let stat = read_stat(pid).ok().filter(|stat| stat.session != sid && stat.tty_nr == 0)?;
    let name = stat.comm.split(':').next().unwrap_or_default().trim();
    plain_name(name).then(|| name.to_owned())
}

/// The name a process group goes by: its leader's, or, once the leader has ended and been
/// reaped (a pipeline's first command done, a shell that exited leaving a job it started in
/// the background of its group), a live member's; `None` when no process is left in it.
pub(crate) fn group_name(pgrp: i32) -> Option<String> {
    program_name(pgrp).or_else(|| {
        let members = scan_processes(|stat| stat.pgrp == pgrp && has_live_threads(stat));
        members.into_iter().next().map(|member| member.comm)
    })
}

/// The programs that are shells, by their names: a status names what one runs in the group it
/// leads ([`shell_command`]).
pub(crate) const SHELLS: &[&str] = &["bash", "zsh", "sh", "dash", "ksh", "mksh", "fish"];

/// How many of a shell's newest children in its group [`shell_command`] asks, newest first,
/// whether they sleep reading a pipe (one `syscall` file each, and a descriptor's link).
const PIPELINE_LOOKS: usize = 8;

/// The program a shell runs in its own process group and reads the output of, for a status
/// to name while the group is not found waiting: bash runs a command substitution's program
/// (`x=$(fzf)`, `x=$(sleep 30)`) in the group it leads, and reads its pipe, so the group,
/// named by its leader, read `bash running` while fzf loaded its list. Among `shell`'s live
/// children in group `shell`, the newest that does not sleep reading a pipe (the one doing the
/// work: in `x=$(list | fzf | sed s/a/b/)` fzf, not `sed` waiting on it; of the
/// [`PIPELINE_LOOKS`] newest), else the newest, and its name ([`program_name`]), while the
/// shell sleeps reading a pipe, or, while that child is a shell too (the subshell of
/// `x=$(a | fzf)`), its own child there, chosen so, down to 4 levels; `None` when the shell does not sleep reading
/// a pipe (a shell waiting for a command to end: `sh -c 'while sleep 1; do :; done'` is the
/// shell's loop; a shell reading the terminal: `read x` while `exec 3< <(sleep 3)`'s `sleep`
/// runs is the shell's own read), has no such child (a builtin) or more than 64, or where `/proc` cannot
/// tell. Read from the `syscall`, `fd` and `children` files, with no scan of `/proc` (a status
/// taken on the reactor's thread makes none).
pub(crate) fn shell_command(shell: i32) -> Option<(i32, String)> {
    #[cfg(target_os = "linux")]
    {
        if !linux::reads_pipe(shell) {
            return None;
        }
        let mut parent = shell;
        let mut found = None;
        for _ in 0..4 {
            let Some(children) = linux::children_listed(parent, 64) else { break };
            let mut members: Vec<&ProcStat> =
                children.iter().filter(|stat| stat.pgrp == shell).collect();
            members.sort_unstable_by_key(|stat| std::cmp::Reverse((stat.starttime, stat.pid)));
            let Some(&newest) = members.first() else { break };
            let working = members
                .iter()
                .take(PIPELINE_LOOKS)
                .find(|stat| !linux::reads_pipe(stat.pid))
                .map_or(newest, |stat| *stat);
            let name = program_name(working.pid).unwrap_or_else(|| working.comm.clone());
            let shell_again = SHELLS.contains(&name.as_str());
            parent = working.pid;
            found = Some((working.pid, name));
            if !shell_again {
                break;
            }
        }
        found
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = shell;
        None
    }
}

/// Returns every process whose session id is `sid`, sorted by pid.
///
/// Scans the numeric directories of `/proc`; processes that vanish (or
/// become unreadable) during the scan are skipped. Includes zombies; see
/// [`live_session_processes`]. Empty on non-Linux targets.
pub(crate) fn session_processes(sid: i32) -> Vec<ProcStat> {
    scan_processes(|stat| stat.session == sid)
}

/// The live children of process `parent` (zombies excluded, not a process whose first
/// thread alone ended: see [`has_live_threads`]).
pub(crate) fn children_of(parent: i32) -> Vec<i32> {
    scan_processes(|stat| stat.ppid == parent && has_live_threads(stat))
        .iter()
        .map(|s| s.pid)
        .collect()
}

/// The live descendants of `ancestor` (children, their children, and so on), from one scan
/// of `/proc`.
pub(crate) fn descendants_of(ancestor: i32) -> Vec<i32> {
    let live = scan_processes(has_live_threads);
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

/// Like [`session_processes`], but without zombie/dead processes (a process whose first
/// thread alone ended is kept: see [`has_live_threads`]).
pub(crate) fn live_session_processes(sid: i32) -> Vec<ProcStat> {
    scan_processes(|stat| stat.session == sid && has_live_threads(stat))
}

/// The live processes of the POSIX sessions `sids` (sorted), from one scan of `/proc`.
pub(crate) fn live_processes_of_sessions(sids: &[i32]) -> Vec<ProcStat> {
    scan_processes(|stat| sids.binary_search(&stat.session).is_ok() && has_live_threads(stat))
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
            frame_group,
            full_screen_since_input,
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
            frame_group,
            full_screen_since_input,
            since_input,
            input_at: linux::input_at(since_input),
            relay_clock: false,
            relay: false,
            hosted: false,
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
    pids.iter().try_fold(0u64, |sum, &pid| {
        let calls = read_kept(pid, Kept::Io, |io| io_field(io, "syscr:")).ok()??;
        Some(sum.wrapping_add(calls))
    })
}

/// The number after `name` (`syscr:`) in the text of a `/proc/PID/io`.
fn io_field(io: &[u8], name: &str) -> Option<u64> {
    let io = std::str::from_utf8(io).ok()?;
    io.lines().find_map(|line| line.strip_prefix(name))?.trim().parse().ok()
}

/// Whether process `pid` has written anything since it was forked (`wchar` in its
/// `/proc/PID/io`, which `exec` keeps): a program that drew its screen has, a `sleep` a shell
/// started has not. `false` when it cannot be read.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn has_written(pid: i32) -> bool {
    read_record(&format!("/proc/{pid}/io"), |io| io_field(io, "wchar:"))
        .is_ok_and(|bytes| bytes.is_some_and(|bytes| bytes > 0))
}

/// The threads process `pid` has (`num_threads`, field 20 of `/proc/PID/stat`); `None` when
/// it cannot be read (gone, no `/proc` of ours).
pub(crate) fn thread_count(pid: i32) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        if pid <= 0 || !numbers_ours() {
            return None;
        }
        read_stat(pid).ok()?.num_threads
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
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
/// (among `candidates` when given) waits for a child (a shell for its job), or, with
/// `tracees`, is stopped by that process tracing it (a program gdb stopped at a breakpoint):
/// then nothing but that process can print, or set another running that prints. (A tracee
/// counts only for a caller that found the tracer blocked until a key, which alone can make
/// it resume its tracee.) `false` where `/proc` cannot tell.
pub(crate) fn alone_in_session(
    pgrp: i32,
    sid: i32,
    candidates: Option<&[i32]>,
    tracees: bool,
) -> bool {
    #[cfg(target_os = "linux")]
    {
        numbers_ours() && linux::alone_in_session(pgrp, sid, candidates, tracees)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates, tracees);
        false
    }
}

/// Whether every thread of process `pid` is blocked until input comes: reading the terminal,
/// or polling it with no timeout alone or beside pipes and eventfds no other process of the
/// session holds (self-pipes, which the process writes to itself, from its signal handlers
/// among others), or waiting with no timeout on a lock of the process's own, at least one on
/// the terminal; and it has no POSIX timer that signals it, nor, when it catches `SIGCHLD`, a
/// live child but those it stopped tracing them. No clock of its own that `/proc` shows, no
/// other program of the session and no thread at work can make it print (a REPL's readline at
/// its prompt:
/// Python's, `sqlite3`'s, `bc`'s; gdb's event loop and its idle workers), where an event loop
/// (node's REPL) waits on descriptors of its own with a timer, one whose pipe another process
/// holds may be written to, and a thread sleeping beside the one that reads may print when it
/// wakes. The holders of such pipes are looked for among the session's processes alone:
/// `candidates` (its cgroup's members) when given, else the processes of `pid`'s POSIX session;
/// without a cgroup, a process that left the session (`setsid`) holding one is not seen.
/// Nor is a timer of `alarm` or `setitimer(ITIMER_REAL)`, which `/proc` does not show: a
/// program that arms one at its prompt is taken to wait for a key alone, though its `SIGALRM`
/// may make it print; nor a signal another process sends (`kill`), which comes from outside
/// as a key does. `false` where `/proc` cannot tell.
pub(crate) fn awaits_input_alone(pid: i32, candidates: Option<&[i32]>) -> bool {
    #[cfg(target_os = "linux")]
    {
        numbers_ours() && linux::awaits_input_alone(pid, candidates)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, candidates);
        false
    }
}

/// Whether a thread of process `pid` is blocked until the terminal device `device` (a
/// pseudo-terminal's slave, `st_rdev`) wakes it: asleep reading it, or polling it with no
/// timeout (see `linux::thread::blocked_until_woken`). A hang-up of that terminal ends such a
/// wait. `false` where `/proc` cannot tell.
pub(crate) fn blocked_on_terminal(pid: i32, device: u64) -> bool {
    #[cfg(target_os = "linux")]
    {
        numbers_ours() && linux::blocked_on_terminal(pid, device)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, device);
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

/// Whether a program of a terminal's foreground group reads it now, for a secret typed there
/// (see [`terminal_reader`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TerminalReader {
    /// A thread of this process is blocked reading the terminal.
    Reading {
        /// The process.
        reader: i32,
    },
    /// No thread of the group is blocked reading the terminal.
    NotReading {
        /// What the group does instead, naming a process of it.
        reason: String,
    },
    /// It cannot be told (another user's process, a read refused by its bound, no `/proc` of
    /// ours), and no thread was seen reading.
    Unknown {
        /// What could not be read.
        reason: String,
    },
}

/// Whether SOME thread of a live member of group `pgrp` (in session `sid`, among
/// `candidates` when given) is blocked on the terminal `device` (a pseudo-terminal's slave,
/// `st_rdev`): asleep in a read of it, or in a poll-family call (`select`, `poll`, `epoll`)
/// that watches it to read (an event to read asked for, not its hang-up alone: `journalctl
/// -f`), whatever its timeout. Other threads running (a busy worker) or a
/// short timer (a prompt that redraws a countdown between its polls) do not matter, as they
/// do for [`group_input_wait`]: a secret typed now is read by that thread. At most
/// [`THREADS_LOOKED_AT`] threads and [`PROBE_DESCRIPTORS`] descriptors are looked at.
pub(crate) fn terminal_reader(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
    device: u64,
) -> TerminalReader {
    #[cfg(target_os = "linux")]
    {
        if pgrp <= 0 || !numbers_ours() {
            return TerminalReader::Unknown { reason: NOT_OURS.to_string() };
        }
        linux::terminal_reader(pgrp, sid, candidates, device)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates, device);
        TerminalReader::Unknown { reason: UNSUPPORTED.to_string() }
    }
}

/// The most threads one look for a terminal's reader ([`terminal_reader`]) looks at.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const THREADS_LOOKED_AT: usize = 4096;

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

/// The terminals that the relays of the terminal of group `pgrp` (of session `sid`, among
/// `candidates` when given) host ([`Hosted`]), at most [`HOSTED_GROUPS`]: processes of other
/// POSIX sessions that the session started and that have its terminal open and read it for
/// the programs on terminals of their own (GNU screen's server and its windows, tmux's and
/// its panes); none where `/proc` cannot tell.
pub(crate) fn hosted_by_relays(pgrp: i32, sid: i32, candidates: Option<&[i32]>) -> Vec<Hosted> {
    #[cfg(target_os = "linux")]
    {
        if pgrp <= 0 || !numbers_ours() {
            return Vec::new();
        }
        linux::hosted_by_relays(pgrp, sid, candidates)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates);
        Vec::new()
    }
}

/// A relay of a session's terminal that hosts more than one terminal, or an unknown number
/// (see [`multiplexer_of`]): GNU screen's server with several windows, tmux's with several
/// panes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Multiplexer {
    /// Its process.
    pub pid: i32,
    /// Its name (`comm`).
    pub name: String,
    /// How many terminals it hosts, or why its descriptors could not all be looked at.
    pub terminals: Result<usize, crate::error::RelayUnseen>,
}

/// The first relay of the terminal of group `pgrp` (of session `sid`, among `candidates` when
/// given), as [`hosted_by_relays`] finds them, that hosts more than one terminal, live
/// foreground group or not (every session its children lead on a terminal, every
/// pseudo-terminal master it holds open), or whose descriptors could not all be looked at:
/// `/proc` cannot tell which of them is shown and gets the keys. `None` when there is none,
/// or where `/proc` cannot tell.
pub(crate) fn multiplexer_of(
    pgrp: i32,
    sid: i32,
    candidates: Option<&[i32]>,
) -> Option<Multiplexer> {
    #[cfg(target_os = "linux")]
    {
        if pgrp <= 0 || !numbers_ours() {
            return None;
        }
        linux::multiplexer_of(pgrp, sid, candidates)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgrp, sid, candidates);
        None
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
    read_record("/proc/self/stat", parse_stat).ok()?.ok()
}

#[cfg(not(target_os = "linux"))]
fn unsupported() -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, UNSUPPORTED)
}

/// Scans `/proc` and returns the processes accepted by `keep`, sorted by pid.
fn scan_processes(keep: impl FnMut(&ProcStat) -> bool) -> Vec<ProcStat> {
    #[cfg(test)]
    scan_count::count();
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

/// Under test: how many scans of `/proc` each thread made (the reactor's must stay few).
#[cfg(test)]
pub(crate) mod scan_count {
    use std::sync::Mutex;
    use std::thread::ThreadId;

    static SCANS: Mutex<Vec<(ThreadId, usize)>> = Mutex::new(Vec::new());

    /// Counts one scan by the current thread.
    pub(super) fn count() {
        let me = std::thread::current().id();
        let mut scans = SCANS.lock().unwrap_or_else(|e| e.into_inner());
        match scans.iter_mut().find(|(thread, _)| *thread == me) {
            Some((_, n)) => *n += 1,
            None => scans.push((me, 1)),
        }
    }

    /// How many scans `thread` made.
    pub(crate) fn of(thread: ThreadId) -> usize {
        let scans = SCANS.lock().unwrap_or_else(|e| e.into_inner());
        scans.iter().find(|(t, _)| *t == thread).map_or(0, |(_, n)| *n)
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
    // (Fields 9 to 19 between: flags, faults, times, priority, nice.)
    let num_threads = fields.nth(20 - 9).and_then(|s| s.parse().ok());
    let starttime = fields.nth(22 - 21).and_then(|s| s.parse().ok());
    Ok(ProcStat { pid, comm, state, ppid, pgrp, session, tty_nr, tpgid, num_threads, starttime })
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

/// A sleep a thread is in, when it says the program only ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct SleepTick {
    /// The sleep's length, or, for a sleep until a point in time (`until`), what is left of
    /// it.
    timer: std::time::Duration,
    /// The sleep is one until a point in time (Python's `time.sleep`, `clock_nanosleep` with
    /// `TIMER_ABSTIME`), whose length is not known: only `drawn` can say it.
    until: bool,
    /// The terminal has been quiet for longer than [`IDLE_TICKS`] such sleeps, the thread seen
    /// going back to it, or [`FOLLOWED_SLEEPS`] otherwise: the program ticks with nothing to
    /// print.
    idle: bool,
    /// [`TimerSightings`] saw the thread in the same sleep (of [`SHORTEST_TICK`] to
    /// [`CLOCK_HORIZON`]) before, and it has woken and gone back to it since: it sleeps on it
    /// again and again (`watch`, whatever it prints).
    repeated: bool,
    /// A sleep of [`SHORTEST_TICK`] to [`CLOCK_HORIZON`] on a full-screen program's terminal
    /// drawn on since its last input (see [`TerminalSeen`]): a process alone in its group so
    /// asleep that has written has drawn its frame and sleeps till the next (`watch -n 10`),
    /// seen once (a shell's `sleep 3`, alone in its job in a tmux pane, has written nothing).
    /// A sleep until a point in time that far off from the terminal's last output, what is
    /// left of it and its quiet together, is one too: the program writes nothing before then,
    /// so its frames are that far apart (a Python monitor's `time.sleep(10)`).
    drawn: bool,
    /// The wait is no sleep but a timed one that something else than its clock may end
    /// (`linux::thread::wait_tick`, only `drawn`): on a lock (`threading.Event().wait(2)`) or
    /// on descriptors none of them the terminal, or none (`select.select([], [], [], 2)`,
    /// node's event loop on its own pipes and eventfds). It is a monitor's between two
    /// frames only when nothing but the thread's clock can end it (`linux::between_frames`).
    woken: bool,
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

/// How the reason of an idle tick ends (see [`InputWait::Outside`]'s `idle_tick`, which
/// says it: the text is for people).
const TICKS_IDLE: &str = "sleep with nothing to print";

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
    /// No input was sent yet, and nothing drawn answers the start (no output, no text on the
    /// screen within a few seconds of output that left none (modes set, a clear), or the visible cursor at the start of a blank row below a row
    /// of text): `ssh`, whose far end greets first (`Last login: ...`, then its prompt), waits
    /// on the world outside until then.
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
    /// not end in an unfinished key code, a lone Escape or `ESC [`, after other keys (the
    /// program may still be waiting for its rest, whatever it drew for the keys before it;
    /// typed alone, what it draws answers it), or it was written to again after a pause (the
    /// program waited for the rest, then answered): a monitor's redraw after a key,
    /// which lets a tick found before the key count after it (see [`TimerSightings`]).
    pub(crate) drawn_since_input: bool,
    /// The terminal shows its alternate screen, or its program redraws the whole primary
    /// screen from its top-left frame after frame (`top`): a full-screen program, whose timer
    /// of [`SHORTEST_FULL_SCREEN_TICK`] or more on a read of the terminal is a refresh (`htop
    /// -d 3`, `top -d 0.3`), not a spinner's frame.
    pub(crate) full_screen: bool,
    /// The terminal's foreground process group when the last frame of that full screen was
    /// started (a move to its top-left, or the terminal gone to its alternate screen), when
    /// known: the program that draws what it shows. A process of another group asleep there
    /// (the program gdb's TUI runs, in `sleep(2)` after a line) drew none of it, and is no
    /// monitor between two of its frames; `watch` draws its own, whoever went to the
    /// alternate screen (`tput smcup; watch -n 10 date`).
    pub(crate) frame_group: Option<i32>,
    /// The terminal draws a full screen that it did not when the last input was sent (or
    /// there was none): the program on it took it since (gdb's `shell watch -n 10 date`, not
    /// a line printed on the screen of gdb's TUI, which it drew before).
    pub(crate) full_screen_since_input: bool,
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
    /// The group that started the full screen's last frame (see [`TerminalSeen`]).
    frame_group: Option<i32>,
    /// The full screen was drawn since the last input (see [`TerminalSeen`]).
    full_screen_since_input: bool,
    /// The group looked at is on a terminal a member hosts (a tmux or GNU screen pane), whose
    /// screen the session's terminal does not show as it is: no sleep there is taken for a
    /// monitor's between two frames (see `SleepTick::drawn`).
    hosted: bool,
    /// How long ago the last input was sent (see [`TerminalSeen`]).
    since_input: Option<std::time::Duration>,
    /// When the last input was sent, on the clock processes' starts are on (`CLOCK_BOOTTIME`),
    /// taken as the probe began: a process's start is compared with it, not its age read
    /// later in the probe with `since_input`.
    input_at: Option<std::time::Duration>,
    /// The process looked at is a relay (a tmux server, see `linux::relays`) and the
    /// terminal was drawn on since its last input: a short timer of its own is its clock
    /// (tmux renames its windows 500 ms after their output), not a wait for the rest of a key
    /// code, which follows input with nothing drawn (tmux's `escape-time` after an Escape).
    relay_clock: bool,
    /// The process looked at is a relay (a tmux server, see `linux::relays`): with nothing
    /// drawn since an input less than a short timer ago, a short timer of its own may be its
    /// wait for the rest of a key code (tmux's `escape-time` after an Escape), however long
    /// the terminal has been quiet (see `linux::thread`).
    relay: bool,
}

impl<'a> Probe<'a> {
    /// (Tests) A probe of a terminal quiet for `quiet` that tells nothing more: no timers,
    /// no input, the primary screen, nothing unanswered. Tests change the fields they need.
    #[cfg(test)]
    pub(crate) fn quiet_for(quiet: std::time::Duration, looks: &'a Looks) -> Probe<'a> {
        Probe {
            quiet,
            timers: None,
            looks,
            outside: None,
            shown: Shown::Other,
            unanswered_input: false,
            unanswered_start: false,
            unanswered_secret: false,
            hidden_below_line: false,
            drawn_since_input: false,
            full_screen: false,
            frame_group: None,
            full_screen_since_input: false,
            since_input: None,
            input_at: None,
            relay_clock: false,
            relay: false,
            hosted: false,
        }
    }

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
    /// A prompt: the visible cursor stands right after the text of its row, or before a
    /// suggestion from the history drawn after it, grey or faint (as prompt_toolkit and fish
    /// draw one; a busy program's spinner glyph after its cursor is none), and the program printed since the last input (it
    /// answered). A poll of the terminal with a short timer
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
    /// The relays judged, with the verdict: the process that reads through the relay, or
    /// `None` when it does not wait (see `linux::relay_reader`); the verdict is `None` while
    /// the relay is being judged: met again then, it hosts its own client, which waits on
    /// nothing but itself.
    relays: std::cell::RefCell<Vec<(i32, Option<Option<i32>>)>>,
    /// The hosted groups this probe may still look at.
    hosted: std::cell::Cell<usize>,
    /// Why a program a judged relay hosts is busy with the last input (see
    /// `linux::judge_relay`), the first one found.
    busy_hosted: std::cell::RefCell<Option<String>>,
    /// The sleep with more than [`CLOCK_HORIZON`] left of a program a judged relay hosts
    /// beside others that only wait for input or sleep so (see `linux::judge_relay`), with its
    /// reason: the first one found.
    sleeping_hosted: std::cell::RefCell<Option<(String, std::time::Duration)>>,
    /// Why every program a judged relay hosts redraws on a timer and none waits for input
    /// (see `linux::judge_relay`), the first one found.
    ticking_hosted: std::cell::RefCell<Option<String>>,
    /// Whether the last group judged was busy or asleep with a job its members started since
    /// it last waited (see `linux::job_verdict`): an answer to the input, whenever the group
    /// itself started.
    job_answered: std::cell::Cell<bool>,
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
            sleeping_hosted: Default::default(),
            ticking_hosted: Default::default(),
            job_answered: Default::default(),
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

/// Whether a process only waits on others, or on a clock: every thread asleep waiting for a
/// child (`wait4`, `waitid`), for a signal (`pause`, `rt_sigsuspend`: GNU screen's client,
/// while its server, a child that left the session, reads the terminal; `rt_sigtimedwait` with
/// no timeout, [`UNTIMED_SIGNAL_WAIT`]: glibc's helper thread for timers that start a thread,
/// vim's, beside its main thread polling for the end of a `:!` command), on a pipe (reading
/// or writing it, or polling pipes alone, as man does between its formatter and its pager),
/// or in a sleep (`nanosleep`: a job a shell without job control started in the background,
/// `sleep 300 &`, shares the foreground group with the program that reads); beside them,
/// threads on a lock with no clock due ([`on_a_lock`]: vifm's worker, while its main thread
/// waits for the editor it started).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn idle_behind(threads: &[ThreadObs]) -> bool {
    threads.iter().any(|t| !on_a_lock(t)) && threads.iter().all(|t| on_a_lock(t) || waits_behind(t))
}

/// Whether a thread waits on a lock (`futex`) with no clock due (see [`CLOCK_HORIZON`]), as
/// [`idle_behind`] and `linux::asleep_long` take it beside threads that wait for a child or
/// sleep: most often a worker idle until another thread of its process hands it work. Which
/// lock is not looked at: a lock shared with another process (which may wake it), a timed wait
/// whose timer is far off or counts as an idle tick, or one whose timeout could not be read,
/// count too (`linux::waits_on_own_lock` tells a lock of the process's own with no timeout,
/// where that matters: the before-input tick).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn on_a_lock(t: &ThreadObs) -> bool {
    t.clock.is_none() && on_any_lock(t)
}

/// Whether a thread waits on a lock (`futex`), with a clock due or not: beside threads that
/// wait on the world outside ([`waits_outside`]), whose verdict weighs a member's clock apart.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn on_any_lock(t: &ThreadObs) -> bool {
    matches!(&t.activity, Activity::Other(what) if what.starts_with("futex"))
}

/// The calls (as `/proc/PID/task/TID/syscall` or `wchan` names them) of a thread waiting for a
/// child to end or stop.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const CHILD_WAITS: [&str; 3] = ["wait4", "waitid", "do_wait"];

/// Whether a thread waits as [`idle_behind`] tells: for a child ([`CHILD_WAITS`]), a signal, on
/// a pipe, or in a sleep.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn waits_behind(t: &ThreadObs) -> bool {
    match &t.activity {
        Activity::Other(what) => {
            matches!(
                what.as_str(),
                "pipe_read"
                    | "pipe_write"
                    | "nanosleep"
                    | "clock_nanosleep"
                    | "hrtimer_nanosleep"
                    | "do_nanosleep"
            ) || CHILD_WAITS.contains(&what.as_str())
                || SIGNAL_WAITS.contains(&what.as_str())
                || what == UNTIMED_SIGNAL_WAIT
                || what.starts_with("anon_pipe")
                || (what.starts_with("read") && what.contains(" on pipe:"))
                || what.ends_with(" on pipes")
                || what == "write"
        }
        _ => false,
    }
}

/// The waits for a signal, as a thread's activity names them.
const SIGNAL_WAITS: [&str; 3] = ["pause", "rt_sigsuspend", "sigsuspend"];

/// A thread's activity in `rt_sigtimedwait` with no timeout (`sigwaitinfo`, `sigwait`): no
/// clock wakes it, only a signal, as in `pause` (see `linux::thread::untimed_signal_wait`).
const UNTIMED_SIGNAL_WAIT: &str = "rt_sigtimedwait with no timeout";

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

/// How a poll-family wait on inotify descriptors (beside pipes it writes alone) is described
/// (after the call's name): a program following files (`tail -f`), which prints when they
/// grow (see [`follows_files`]).
const FOLLOWING: &str = "on files it follows (inotify)";

/// Whether a reason of a wait on the world outside ([`InputWait::Outside`]) names a wait on
/// files a program follows (a poll of inotify descriptors, or a read of one: `tail -f`,
/// `inotifywait -m`): it has printed what they hold, and prints again only when they change,
/// so the default wait takes it as settled once seen so, as a long sleep is, not after the
/// silence's fallback.
pub(crate) fn follows_files(reason: &str) -> bool {
    reason.contains(FOLLOWING) || reason.contains(" on anon_inode:inotify")
}

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
                || what.ends_with(FOLLOWING)
                || what.ends_with(ON_SOCKETS)
                || what.ends_with(ON_NETWORK)
                || matches!(what.as_str(), "accept" | "accept4" | "recvfrom" | "recvmsg")
                || (what.starts_with("read")
                    && (what.contains(" on socket:") || what.contains(" on anon_inode:inotify")))
        }
        _ => false,
    };
    threads.iter().any(outside)
        && threads
            .iter()
            .all(|t| outside(t) || on_any_lock(t) || idle_behind(std::slice::from_ref(t)))
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

/// Whether a process waits for a server's answer on a socket it reads (gpg on its agent's,
/// while the agent's passphrase dialog reads the terminal): some thread blocked reading a
/// socket (`read`, `recvfrom`, `recvmsg`), and every other one waiting as [`idle_behind`]
/// tells.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn reads_a_socket(threads: &[ThreadObs]) -> bool {
    let reads = |t: &ThreadObs| {
        matches!(&t.activity, Activity::Other(what)
            if what.starts_with("read") && what.contains(" on socket:")
                || matches!(what.as_str(), "recvfrom" | "recvmsg"))
    };
    threads.iter().any(reads)
        && threads.iter().all(|t| reads(t) || idle_behind(std::slice::from_ref(t)))
}

#[cfg(target_os = "linux")]
mod jobs_seen;
mod linux;
mod syscalls;
mod timers;
use syscalls::*;
pub(crate) use timers::TimerSightings;

#[cfg(test)]
mod tests;
