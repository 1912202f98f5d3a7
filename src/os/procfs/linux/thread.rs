//! What one thread waits on: reads and polls of the terminal, clocks and sleeps, read from
//! `/proc/PID/task/TID` (its `syscall`, `wchan` and the memory its arguments point to).

use super::*;
use crate::os::procfs;

/// What a look at one thread finds before it asks what the thread waits on (see [`look`]):
/// whether it is there, whether it sleeps, and in which system call.
pub(super) enum Look {
    /// It is gone, or dead.
    Gone,
    /// Its `stat` cannot be read or parsed (why).
    StatUnknown(String),
    /// It does not sleep: its state (`R` when its `syscall` file says it runs).
    NotSleeping(char),
    /// It sleeps in the kernel outside a system call.
    OutsideSyscall,
    /// It sleeps, but its call cannot be told from its `syscall` file (why: the file
    /// unavailable, unreadable or unparsable, or the call's number unknown here).
    CallUnknown(String),
    /// It sleeps in a system call.
    Sleeping {
        /// Its `stat` (boxed: the other looks are small).
        stat: Box<ProcStat>,
        /// Its `syscall` line: the call's number and arguments.
        syscall: String,
        /// What the call does ([`super::compat::classify`]), a restart resolved to the
        /// call it restarts ([`super::restart::resolved`]).
        activity: Activity,
    },
}

/// The one prologue of every look at the thread at `base` (`/proc/PID/task/TID`): its
/// `stat`, then, if it sleeps, its `syscall` file, the call classified and a restart
/// resolved. (The call's classification may read the thread's memory: a caller that
/// counts refusals takes [`super::bounded::refusals`] before it.)
pub(super) fn look(base: &str) -> Look {
    let stat = match stat_of(base) {
        Ok(stat) => stat,
        Err(look) => return look,
    };
    let syscall = match procfs::read_text(&format!("{base}/syscall")) {
        Ok(syscall) => syscall,
        Err(err) => return syscall_unread(base, &err),
    };
    let nr = match parse_syscall(&syscall) {
        Some(SyscallField::Nr(nr)) => nr,
        Some(SyscallField::Running) => return Look::NotSleeping('R'),
        Some(SyscallField::NotInSyscall) => return Look::OutsideSyscall,
        None => return Look::CallUnknown(format!("unparsable syscall file {:?}", syscall.trim())),
    };
    let Some(activity) = super::compat::classify(base, &syscall, nr) else {
        return Look::CallUnknown(format!("system call {nr} unknown on this architecture"));
    };
    let activity = super::restart::resolved(base, &syscall, activity);
    let activity = untimed_signal_wait(&syscall, activity);
    Look::Sleeping { stat: Box::new(stat), syscall, activity }
}

/// `activity`, named [`procfs::UNTIMED_SIGNAL_WAIT`] when it is `rt_sigtimedwait` with no
/// timeout (its third argument null, in `syscall`: `sigwaitinfo`, `sigwait`), a wait for a
/// signal alone, which [`procfs::idle_behind`] takes as it takes `pause`: glibc's helper thread
/// for POSIX timers that start a thread (`SIGEV_THREAD`, vim's) waits so for ever.
pub(super) fn untimed_signal_wait(syscall: &str, activity: Activity) -> Activity {
    match &activity {
        Activity::Other(name)
            if name == "rt_sigtimedwait" && syscall_arg(syscall, 2) == Some(0) =>
        {
            Activity::Other(procfs::UNTIMED_SIGNAL_WAIT.to_string())
        }
        _ => activity,
    }
}

/// The `stat` of the thread at `base` when it sleeps (state `S`), else what [`look`] finds.
pub(super) fn stat_of(base: &str) -> Result<ProcStat, Look> {
    let stat = match procfs::read_bytes(&format!("{base}/stat")) {
        Ok(data) => {
            parse_stat(&data).map_err(|err| Look::StatUnknown(format!("unparsable stat: {err}")))?
        }
        Err(err) if is_gone(&err) => return Err(Look::Gone),
        Err(err) => return Err(Look::StatUnknown(format!("stat unreadable: {err}"))),
    };
    match stat.state {
        _ if is_dead(&stat) => Err(Look::Gone),
        'S' => Ok(stat),
        state => Err(Look::NotSleeping(state)),
    }
}

/// What [`look`] finds when the `syscall` file of the thread at `base` could not be read
/// (`err`): the thread gone, or its call unknown.
fn syscall_unread(base: &str, err: &std::io::Error) -> Look {
    if err.raw_os_error() == Some(procfs::ESRCH) {
        return Look::Gone;
    }
    if !is_gone(err) {
        return Look::CallUnknown(format!("syscall file unreadable: {err}"));
    }
    // Either the thread vanished or the kernel lacks the file.
    match fs::metadata(base) {
        Err(_) => Look::Gone,
        Ok(_) => Look::CallUnknown(format!("syscall file unavailable: {err}")),
    }
}

/// Observes one thread; `None` if it is gone or dead.
pub(in crate::os::procfs) fn observe_thread(
    base: &str,
    tid: i32,
    probe: Probe<'_>,
) -> Option<ThreadObs> {
    let obs =
        |activity| Some(ThreadObs { tid, activity, clock: None, tick: None, long_sleep: None });
    // (Reads of its memory are refused from here on: see [`unless_refused`].)
    let refused = super::bounded::refusals();
    let syscall_problem = match look(base) {
        Look::Gone => return None,
        Look::StatUnknown(why) => return obs(Activity::Unknown(why)),
        Look::NotSleeping(state) => return obs(Activity::NotSleeping(state)),
        Look::OutsideSyscall => {
            return obs(Activity::Other("the kernel outside a system call".into()));
        }
        Look::Sleeping { stat, syscall, activity } => {
            return Some(observe_call(base, tid, &stat, &syscall, activity, refused, probe));
        }
        Look::CallUnknown(why) => why,
    };
    match procfs::read_text(&format!("{base}/wchan")) {
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

/// What thread `tid` at `base`, asleep (its `stat`) in the call `syscall` doing `activity`,
/// waits on, with its clocks; unknown when a read of its memory was refused since `refused`.
fn observe_call(
    base: &str,
    tid: i32,
    stat: &ProcStat,
    syscall: &str,
    activity: Activity,
    refused: u64,
    probe: Probe<'_>,
) -> ThreadObs {
    let activity = reading_terminal(base, tid, syscall, activity, probe);
    let activity = unless_refused(activity, refused);
    // (Read once: a sleep's timer is in the sleeping process's memory.)
    let sleep = sleep_of(base, syscall, &activity);
    let left = sleep.and_then(|sleep| sleep_left(stat, sleep));
    let clock = clock_due(base, tid, syscall, &activity, sleep, left, probe);
    let tick = match sleep {
        Some(_) => sleep_tick(base, tid, sleep, probe),
        None => wait_tick(base, syscall, &activity, probe),
    };
    let long_sleep = left.filter(|left| *left > CLOCK_HORIZON);
    // (A timer's read refused reads as no timer: the thread is unknown.)
    if super::bounded::refusals() != refused {
        let activity = Activity::Unknown("a read of its memory refused by the bound".into());
        return ThreadObs { tid, activity, clock: None, tick: None, long_sleep: None };
    }
    ThreadObs { tid, activity, clock, tick, long_sleep }
}

/// `activity`, unless it is a wait for input and a read of the thread's memory or `fdinfo`
/// was refused since `refused` ([`super::bounded::refusals`]): what the refused read would
/// have told is unknown (an unreadable poll set reads as one watching the terminal, another
/// user's program's), and a program whose reads are slow, or a full set of stuck helpers,
/// must not make a thread read as waiting for keys.
fn unless_refused(activity: Activity, refused: u64) -> Activity {
    match activity {
        Activity::Input(name) if super::bounded::refusals() != refused => {
            Activity::Unknown(format!("{name}, a read of its memory refused by the bound"))
        }
        activity => activity,
    }
}

/// A read or poll-family call (`activity`) counts as waiting for input only when it
/// waits on the terminal: a shell reading a pipe (a command substitution) is not waiting
/// for the user; for a poll-family call, see [`polling_terminal`].
pub(super) fn reading_terminal(
    base: &str,
    tid: i32,
    syscall: &str,
    activity: Activity,
    probe: Probe<'_>,
) -> Activity {
    let Activity::Input(name) = &activity else {
        return activity;
    };
    let other = if is_read(name) {
        read_elsewhere(base, name, syscall)
    } else {
        polling_terminal(base, tid, syscall, name, probe)
    };
    other.unwrap_or(activity)
}

/// Whether the call `name` is of the read family (`read`, `readv`, `pread64`...), whose
/// first argument is the descriptor read.
pub(super) fn is_read(name: &str) -> bool {
    matches!(name, "read" | "readv" | "pread64" | "preadv" | "preadv2")
}

/// What a read-family call waits on instead of the terminal, if its descriptor is not one:
/// nothing when its descriptor cannot be one (above an `int`, or not open: the argument of
/// another call, read through the wrong table).
pub(super) fn read_elsewhere(base: &str, name: &str, syscall: &str) -> Option<Activity> {
    let no_descriptor = || Some(Activity::Other(format!("{name} on no open descriptor")));
    let Ok(fd) = i32::try_from(syscall_arg(syscall, 0)?) else { return no_descriptor() };
    let target = match fs::read_link(format!("{base}/fd/{fd}")) {
        Ok(target) => target,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return no_descriptor(),
        Err(_) => return None,
    };
    let target = target.to_string_lossy();
    (!is_terminal(&target)).then(|| Activity::Other(format!("{name} on {target}")))
}

/// What a poll-family call waits on instead of the terminal's input, if anything: the
/// terminal must be among the descriptors it waits on (or they cannot be read: another
/// user's program), and its timer must not be a short one about to change the screen. A
/// server polling its socket, or a loop sleeping in `select` with no descriptor, is not
/// waiting for the user.
pub(super) fn polling_terminal(
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
        // A program following files (`tail -f`) waits for them to grow.
        if polls_followed_files(base, name, syscall, looks) {
            return Some(Activity::Other(format!("{name} {FOLLOWING}")));
        }
        return Some(Activity::Other(format!("{name} {NOT_THE_TERMINAL}")));
    }
    // A program following files that polls the terminal for its hang-up alone (`journalctl
    // -f`) reads no key. (Its descriptors are looked at only when one of them is not polled to
    // read: a program polling the terminal to read costs no more looks.)
    if watched == Some(true)
        && polls_one_not_to_read(base, name, syscall)
        && polls_followed_files(base, name, syscall, looks)
    {
        return Some(Activity::Other(format!("{name} {FOLLOWING}")));
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
        if (probe.unanswered_input || ssh) && relays_across_network(base, name, syscall, looks, ssh)
        {
            return Some(Activity::Other(format!("{name} {ON_NETWORK}")));
        }
    }
    // (A wait with no timer waits for input, with no prompt shown too: see
    // [`Shown::Unanswered`].)
    let timer = timeout(base, name, syscall)?;
    let short = timer <= procfs::SHORT_TIMER;
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
    // So is a full-screen program's tick on the terminal alone at the session's start, once
    // it drew (see [`procfs::TimerSightings::tick_at_start`]), when nothing else of the
    // program worked meanwhile: a worker still loading what the first screen is to show
    // (sleeping, reading a socket, running), or seen so earlier, may have it redrawn when the
    // tick goes off (see [`procfs::TimerSightings::alone_since_start`]).
    if short
        && !unanswered
        && probe.since_input.is_none()
        && probe.full_screen
        && probe.drawn_since_input
        && timer >= procfs::SHORTEST_TICK
        && watched == Some(true)
        && waits_on_terminal_alone(base, name, syscall, looks)
        && {
            let alone = others_wait_on_own_locks(base, tid);
            probe.timers.map_or(alone, |timers| timers.alone_since_start(tid, alone))
        }
    {
        if let Some(timers) = probe.timers
            && let Some(wakeups) = voluntary_switches(base)
        {
            timers.tick_at_start(tid, timer, wakeups);
        }
        return None;
    }
    // A short timer that went off without a change and was set again is an idle tick
    // (with no prompt shown, only once seen set again: below). Not a relay's that drew
    // nothing since an input less than a short timer ago: an event loop's wait is set to
    // its nearest timer's rest, and tmux, woken 500 ms after a pane's output to rename its
    // window, went back to the last 90 ms of its `escape-time` after an Escape, read as a
    // 90 ms tick in a terminal quiet for 500 ms (the Escape's wait ended before tmux passed
    // it on, and a key typed then made it Alt with the Escape).
    let key_code_wait = probe.relay
        && !probe.drawn_since_input
        && probe
            .since_input
            .is_some_and(|since| since <= procfs::SHORT_TIMER.saturating_add(procfs::TIMER_SLACK));
    if short
        && !unanswered
        && !key_code_wait
        && probe.quiet > timer.saturating_add(procfs::TIMER_SLACK)
    {
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
        && timers
            .repeated(std::time::Instant::now(), tid, timer, wakeups, carry, || unfed(tid, probe))
    {
        return None;
    }
    let before = if unanswered { ", with no prompt shown" } else { "" };
    Some(Activity::Other(format!("{name} with a {} ms timer{before}", timer.as_millis())))
}

/// What the thread at `base` waits on, found blocked until the terminal or its own process
/// wakes it (see [`blocked_until_woken`]).
#[derive(Debug, Default)]
pub(super) struct UntimedWait {
    /// It waits on its controlling terminal: reading it, or polling it.
    pub terminal: bool,
    /// The pipes and eventfds it polls (beside the terminal, or alone), which only a process
    /// that holds one can write to.
    pub beside: Vec<Private>,
}

/// What the thread at `base` waits on when it is blocked until its controlling terminal, the
/// device `tty` (see [`is_controlling_terminal`]), or its own process wakes it: asleep
/// reading the terminal, or polling with no timeout the terminal and pipes or eventfds
/// ([`Private`]) alone (gdb's event loop: its self-pipes beside the terminal; another
/// terminal is not one, a relay's master that wakes it when the program it hosts prints,
/// `script`'s `/dev/ptmx`), or waiting on a
/// lock of its process's own (a private `futex`, not shared with other processes) with no
/// timeout (an idle worker's). No clock wakes it, nor any descriptor but those; whether
/// another process holds one of the pipes is for the caller to find. `None` for any other
/// wait, or where that cannot be read.
pub(super) fn blocked_until_woken(base: &str, tty: u64, looks: &Looks) -> Option<UntimedWait> {
    // (A read of its memory refused by the bound tells nothing: see [`unless_refused`].)
    let refused = super::bounded::refusals();
    untimed_wait(base, tty, looks).filter(|_| super::bounded::refusals() == refused)
}

/// See [`blocked_until_woken`], refusals unchecked.
fn untimed_wait(base: &str, tty: u64, looks: &Looks) -> Option<UntimedWait> {
    let Look::Sleeping { syscall, activity, .. } = look(base) else { return None };
    let name = match activity {
        Activity::Other(name) if name == "futex" => {
            return waits_on_own_lock(&syscall).then(UntimedWait::default);
        }
        Activity::Input(name) => name,
        _ => return None,
    };
    if is_read(&name) {
        let fd = syscall_arg(&syscall, 0)?;
        let terminal = is_controlling_terminal(&format!("{base}/fd/{fd}"), tty);
        return terminal.then(|| UntimedWait { terminal, beside: Vec::new() });
    }
    if !without_timeout(&name, &syscall) {
        return None;
    }
    let Some((fds, true)) = watched_descriptors(base, &name, &syscall, true, looks) else {
        return None;
    };
    let mut wait = UntimedWait::default();
    for fd in &fds {
        if is_controlling_terminal(&format!("{base}/fd/{fd}"), tty) {
            wait.terminal = true;
        } else {
            wait.beside.push(private_of(base, *fd)?);
        }
    }
    (!fds.is_empty()).then_some(wait)
}

/// What a thread does, for a secret typed to the terminal (see [`terminal_read`]).
pub(super) enum TerminalRead {
    /// It is blocked reading the terminal.
    Reads,
    /// It does something else (what, for people: `sleeps in nanosleep`, `is running (R)`).
    Not(String),
    /// It is gone or dead.
    Gone,
    /// It cannot be told (why).
    Unknown(String),
}

/// Whether the thread at `base` is blocked on the terminal device `tty`: asleep in a read of
/// it, or in a poll-family call that watches it to read, whatever its timeout (see
/// [`procfs::terminal_reader`]). A read of its memory refused by the bound tells nothing.
pub(super) fn terminal_read(base: &str, tty: u64, looks: &Looks) -> TerminalRead {
    let refused = super::bounded::refusals();
    let answer = read_of_terminal(base, tty, looks);
    if super::bounded::refusals() != refused {
        return TerminalRead::Unknown("a read of its memory refused by the bound".into());
    }
    answer
}

/// See [`terminal_read`], refusals unchecked.
fn read_of_terminal(base: &str, tty: u64, looks: &Looks) -> TerminalRead {
    let (syscall, activity) = match look(base) {
        Look::Gone => return TerminalRead::Gone,
        Look::StatUnknown(why) | Look::CallUnknown(why) => return TerminalRead::Unknown(why),
        Look::NotSleeping(state) => {
            return TerminalRead::Not(format!("is {}", describe_state(state)));
        }
        Look::OutsideSyscall => {
            return TerminalRead::Not("is in the kernel outside a system call".into());
        }
        Look::Sleeping { syscall, activity, .. } => (syscall, activity),
    };
    let name = match activity {
        Activity::Input(name) => name,
        Activity::Other(what) => return TerminalRead::Not(format!("sleeps in {what}")),
        Activity::NotSleeping(state) => {
            return TerminalRead::Not(format!("is {}", describe_state(state)));
        }
        Activity::Unknown(why) => return TerminalRead::Unknown(why),
    };
    let on_terminal = |fd: u64| is_controlling_terminal(&format!("{base}/fd/{fd}"), tty);
    if is_read(&name) {
        return match syscall_arg(&syscall, 0) {
            Some(fd) if on_terminal(fd) => TerminalRead::Reads,
            _ => TerminalRead::Not(format!("sleeps in {name} on another file than the terminal")),
        };
    }
    match watched_for_reading(base, &name, &syscall, looks) {
        Some((fds, _)) if fds.iter().any(|&fd| on_terminal(fd)) => TerminalRead::Reads,
        Some((_, true)) => TerminalRead::Not(format!("sleeps in {name} {NOT_THE_TERMINAL}")),
        _ => TerminalRead::Unknown(format!("{name} on descriptors that could not all be read")),
    }
}

/// Whether every other thread of the process of the thread `tid` at `base`
/// (`/proc/PID/task/TID`) is asleep on a lock of the process's own with no timeout
/// ([`waits_on_own_lock`]: only a thread of the process can wake it), or there is none.
/// `false` where that cannot be read (its threads' listing, an entry of it included).
pub(super) fn others_wait_on_own_locks(base: &str, tid: i32) -> bool {
    let Some(task) = base.rsplit_once('/').map(|(task, _)| task) else { return false };
    let Ok(others) = numeric_entries(task) else { return false };
    others.into_iter().all(|other| other == tid || on_own_lock(&format!("{task}/{other}")))
}

/// Whether the thread at `base` is asleep on a lock of its process's own with no timeout
/// (see [`waits_on_own_lock`]), or gone or dead.
pub(super) fn on_own_lock(base: &str) -> bool {
    match look(base) {
        Look::Gone => true,
        Look::Sleeping { syscall, activity: Activity::Other(name), .. } => {
            name == "futex" && waits_on_own_lock(&syscall)
        }
        _ => false,
    }
}

/// Whether the `futex` call (arguments in `syscall`) waits with no timeout on a lock private
/// to its process (`FUTEX_WAIT` or `FUTEX_WAIT_BITSET` with `FUTEX_PRIVATE_FLAG`): only
/// another thread of the process can wake it.
pub(in crate::os::procfs) fn waits_on_own_lock(syscall: &str) -> bool {
    const FUTEX_WAIT: u64 = 0;
    const FUTEX_WAIT_BITSET: u64 = 9;
    const FUTEX_PRIVATE_FLAG: u64 = 128;
    // futex(address, op, value, timeout, ...)
    let (Some(op), Some(timeout)) = (syscall_arg(syscall, 1), syscall_arg(syscall, 3)) else {
        return false;
    };
    matches!(op & 127, FUTEX_WAIT | FUTEX_WAIT_BITSET)
        && op & FUTEX_PRIVATE_FLAG != 0
        && timeout == 0
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
pub(super) fn clock_due(
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
    let outside =
        what.ends_with(ON_SOCKETS) || what.ends_with(NOT_THE_TERMINAL) || what.ends_with(FOLLOWING);
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
        voluntary_switches(base).is_some_and(|wakeups| {
            timers.repeated(std::time::Instant::now(), tid, SLEEP_UNTIL, wakeups, false, || false)
        })
    });
    (!ticks).then_some(timer)
}

/// The sleep thread `tid` at `base` is in (`sleep`, see [`sleep_of`]) when it is a tick
/// (see [`SleepTick`]): a sleep of a known length up to [`SHORT_TIMER`](procfs::SHORT_TIMER),
/// in a terminal quiet for longer than [`IDLE_TICKS`](procfs::IDLE_TICKS) such sleeps when
/// `probe.timers` saw the thread go back to it (`less +F`'s 2 ms), or than
/// [`FOLLOWED_SLEEPS`](procfs::FOLLOWED_SLEEPS) of them when not (a shell's loop, a new
/// `sleep` each time: `while sleep 1; do :; done`); or one of
/// [`SHORTEST_TICK`](procfs::SHORTEST_TICK) to [`CLOCK_HORIZON`] that `probe.timers` saw the
/// thread go back to (`watch`'s 2 s), or that a full-screen program drawn since the last
/// input sleeps (`watch -n 10` between two frames, seen once). A sleep until a point in time
/// within [`CLOCK_HORIZON`] is a tick only so, drawn, its frames as far apart as the sleep's
/// deadline is from the terminal's last output (see [`SleepTick::drawn`]): its length is not
/// known, and whether its thread goes back to it is [`clock_due`]'s to find.
pub(super) fn sleep_tick(
    base: &str,
    tid: i32,
    sleep: Option<(std::time::Duration, bool)>,
    probe: Probe<'_>,
) -> Option<SleepTick> {
    let (timer, until) = sleep?;
    if timer > CLOCK_HORIZON {
        return None;
    }
    // (Python's `time.sleep(10)` in a monitor's loop sleeps until its next frame: it read as
    // busy until then, where C's `sleep(10)` settled at the first frame.)
    let drawn = |apart: std::time::Duration| apart >= procfs::SHORTEST_TICK && frame_drawn(probe);
    if until {
        let drawn = drawn(frames_apart(timer, until, probe));
        return drawn.then_some(SleepTick {
            timer,
            until,
            idle: false,
            repeated: false,
            drawn,
            woken: false,
        });
    }
    let short = timer <= procfs::SHORT_TIMER;
    // (A tick found before the last input is carried across it once the program drew
    // again: `watch -n 5` after a key it never reads, a whole tick later, not two.)
    let carry = probe.drawn_since_input;
    let again = probe.timers.is_some_and(|timers| {
        voluntary_switches(base).is_some_and(|wakeups| {
            timers.repeated(std::time::Instant::now(), tid, timer, wakeups, carry, || {
                unfed(tid, probe)
            })
        })
    });
    let sleeps = if again { procfs::IDLE_TICKS } else { procfs::FOLLOWED_SLEEPS };
    let idle = short && probe.quiet > timer.saturating_mul(sleeps).saturating_add(TIMER_SLACK);
    // (A spinner's frame, or a loop's look at a file every few milliseconds, is no
    // redraw of what a program shows.)
    let repeated = timer >= procfs::SHORTEST_TICK && again;
    let drawn = drawn(timer);
    (idle || repeated || drawn).then_some(SleepTick {
        timer,
        until,
        idle,
        repeated,
        drawn,
        woken: false,
    })
}

/// How far apart at least the frames of a monitor are that waits `timer` on a clock (see
/// [`SleepTick::drawn`]): the timer's length, or, for what is left of a wait `until` a point
/// in time, that and the terminal's quiet together, less the time the frame took to be read
/// ([`TIMER_SLACK`] added: a loop every 0.5 s came out a few milliseconds short).
fn frames_apart(timer: std::time::Duration, until: bool, probe: Probe<'_>) -> std::time::Duration {
    match until {
        true => timer.saturating_add(probe.quiet).saturating_add(TIMER_SLACK),
        false => timer,
    }
}

/// The tick of thread `tid`'s timed wait (`activity`, with the arguments in `syscall`) when
/// it is no sleep ([`sleep_tick`] judges those) and may be a monitor's between two frames,
/// drawn as [`SleepTick::drawn`] tells: a wait on a lock of its process's own with a timeout
/// (Python's `threading.Event().wait(2)`, a `futex` until a point in time: [`lock_timer`]), or a
/// poll-family wait with a timeout on no descriptor (`select.select([], [], [], 2)`), on
/// pipes, or on descriptors none of which is the terminal (node's event loop on its own
/// pipes and eventfds, its next timer the timeout), within [`CLOCK_HORIZON`]. Something else
/// than the clock may end such a wait (see [`SleepTick::woken`]): whether anything can is
/// `between_frames`' to find, once the group is known.
pub(super) fn wait_tick(
    base: &str,
    syscall: &str,
    activity: &Activity,
    probe: Probe<'_>,
) -> Option<SleepTick> {
    // (Nothing of the thread's memory is read unless a frame was drawn.)
    if !frame_drawn(probe) {
        return None;
    }
    let Activity::Other(what) = activity else { return None };
    let name = what.split_ascii_whitespace().next()?;
    let polled = what.ends_with(NOT_THE_TERMINAL)
        || what.ends_with(" on pipes")
        || what.ends_with(" on no descriptor (a sleep)");
    let (timer, until) = match name {
        "futex" => own_lock_tick(base, syscall)?,
        _ if polled => (timeout(base, name, syscall)?, false),
        _ => return None,
    };
    let drawn =
        timer <= CLOCK_HORIZON && frames_apart(timer, until, probe) >= procfs::SHORTEST_TICK;
    drawn.then_some(SleepTick { timer, until, idle: false, repeated: false, drawn, woken: true })
}

/// What is left of the timed wait on a lock of its process's own (`FUTEX_PRIVATE_FLAG`: no
/// other process can wake it) the thread at `base` is in (`futex`, with the arguments in
/// `syscall`), and whether it is one until a point in time ([`lock_timer`]), when
/// [`TIMER_SLACK`] or more is left and the lock is not released already ([`lock_released`]):
/// Python's 5 ms waits for its interpreter lock, the terminal's quiet added as to a
/// deadline's, read as a monitor's frames 0.5 s apart (review vy).
pub(super) fn own_lock_tick(base: &str, syscall: &str) -> Option<(std::time::Duration, bool)> {
    syscall_arg(syscall, 1).filter(|op| op & 128 != 0)?;
    let (timer, until) = lock_timer(base, syscall)?;
    (timer >= TIMER_SLACK && !lock_released(base, syscall)).then_some((timer, until))
}

/// Whether the lock the thread at `base` waits on (`futex`, with the arguments in `syscall`)
/// was released already, its wake-up under way: the word at its address no longer holds the
/// value it sleeps on (a waker changes it before it wakes the thread: `sem_post`, a condition
/// variable's signal). Python's `Event.set` by a worker that then ended left its waiter seen
/// asleep on the lock a moment later, under load, taken for a monitor's wait. `true` too
/// when the word cannot be read.
pub(super) fn lock_released(base: &str, syscall: &str) -> bool {
    let (Some(address), Some(value)) = (syscall_arg(syscall, 0), syscall_arg(syscall, 2)) else {
        return true;
    };
    let mut word = [0u8; 4];
    read_memory(base, address, &mut word).is_err() || u64::from(u32::from_ne_bytes(word)) != value
}

/// Whether the terminal `probe` looks at shows a full-screen program drawn on since its last
/// input, on the session's own terminal (not one a member hosts): a sleep there may be a
/// monitor's between two of its frames (see [`SleepTick::drawn`]).
fn frame_drawn(probe: Probe<'_>) -> bool {
    probe.full_screen && !probe.hosted && probe.drawn_since_input
}

/// Whether the input since the last one never reached thread `tid`, on a terminal a member
/// hosts (`probe.hosted`: a neovim `:terminal`, a tmux pane), still in the wait it was found
/// ticking in before it (see [`procfs::TimerSightings::repeated`]): its terminal holds no
/// input unread, so the relay kept the keys (they went to another window), or the thread
/// would have woken to read them. Never on the session's own terminal, where the input went.
fn unfed(tid: i32, probe: Probe<'_>) -> bool {
    probe.hosted && crate::os::pty::controlling_unread_input(tid) == Some(0)
}

/// The timer of the sleep the thread at `base` is in (`activity`, with the arguments in
/// `syscall`), if it is in one, and whether it is what is left of a sleep until a point
/// in time (see [`sleep_timer`]).
pub(super) fn sleep_of(
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
pub(super) fn sleep_timer(
    base: &str,
    name: &str,
    syscall: &str,
) -> Option<(std::time::Duration, bool)> {
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
pub(super) fn lock_timer(base: &str, syscall: &str) -> Option<(std::time::Duration, bool)> {
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
pub(super) fn sleep_left(
    stat: &ProcStat,
    (timer, until): (std::time::Duration, bool),
) -> Option<std::time::Duration> {
    match until {
        true => Some(timer),
        false => timer.checked_sub(thread_age(stat)?),
    }
}

/// When the thread whose `stat` is `stat` started (its `starttime`), on `CLOCK_BOOTTIME`,
/// rounded down to a clock tick.
pub(super) fn started_at(stat: &ProcStat) -> Option<std::time::Duration> {
    let per_second = rustix::param::clock_ticks_per_second().max(1);
    Some(std::time::Duration::from_millis(stat.starttime?.checked_mul(1000)? / per_second))
}

/// How long ago the thread whose `stat` is `stat` started (its `starttime`).
pub(super) fn thread_age(stat: &ProcStat) -> Option<std::time::Duration> {
    let ticks = stat.starttime?;
    let per_second = rustix::param::clock_ticks_per_second();
    let started = std::time::Duration::from_millis(ticks.checked_mul(1000)? / per_second.max(1));
    Some(clock_now(7)?.saturating_sub(started))
}

/// The time on the clock `clock` (a `clockid_t`: realtime, monotonic or boottime) now.
pub(super) fn clock_now(clock: u64) -> Option<std::time::Duration> {
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
pub(super) fn timespec_at(base: &str, address: u64) -> Option<std::time::Duration> {
    time_at(base, address, false)
}

/// The `struct timespec` (or, `micros`, `struct timeval`) at `address` in the memory of
/// the thread at `base`.
pub(super) fn time_at(base: &str, address: u64, micros: bool) -> Option<std::time::Duration> {
    if address == 0 {
        return None;
    }
    let mut raw = [0u8; 16];
    read_memory(base, address, &mut raw).ok()?;
    let secs = u64::try_from(i64::from_ne_bytes(raw[..8].try_into().ok()?)).ok()?;
    let frac = u64::try_from(i64::from_ne_bytes(raw[8..].try_into().ok()?)).ok()?;
    let nanos = if micros { frac.saturating_mul(1000) } else { frac };
    Some(
        std::time::Duration::from_secs(secs)
            + std::time::Duration::from_nanos(nanos.min(999_999_999)),
    )
}

/// Argument `n` (from 0) of the system call in a `/proc/PID/syscall` line.
pub(super) fn syscall_arg(syscall: &str, n: usize) -> Option<u64> {
    let text = syscall.split_ascii_whitespace().nth(n + 1)?;
    u64::from_str_radix(text.trim_start_matches("0x"), 16).ok()
}

/// The voluntary context switches of the thread at `base` (`/proc/PID/task/TID`): how
/// often it blocked, once per wait it entered.
pub(super) fn voluntary_switches(base: &str) -> Option<u64> {
    let status = procfs::read_status(&format!("{base}/status")).ok()?;
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
pub(super) fn timeout(base: &str, name: &str, syscall: &str) -> Option<std::time::Duration> {
    let (index, pointer, micros) = timeout_argument(name)?;
    let value = syscall_arg(syscall, index)?;
    if !pointer {
        // An int in milliseconds; negative waits for ever.
        let ms = value as u32 as i32;
        return u64::try_from(ms).ok().map(std::time::Duration::from_millis);
    }
    time_at(base, value, micros)
}

/// Whether the poll-family call `name` (arguments in `syscall`) has no timeout: it waits
/// until an event, however long (a negative number of milliseconds, or no pointer to a
/// timeout). `false` for a timeout, or one that cannot be read.
pub(super) fn without_timeout(name: &str, syscall: &str) -> bool {
    timeout_argument(name).and_then(|(index, pointer, _)| {
        let value = syscall_arg(syscall, index)?;
        // (A number of milliseconds waits for ever when negative; a pointer, when null.)
        Some(if pointer { value == 0 } else { (value as u32 as i32) < 0 })
    }) == Some(true)
}

/// Where the poll-family call `name` takes its timeout: the argument's index, whether it
/// points to the timeout, and whether what it points to counts microseconds (a `struct
/// timeval`) rather than nanoseconds. `None` for another call.
fn timeout_argument(name: &str) -> Option<(usize, bool, bool)> {
    Some(match name {
        "poll" => (2, false, false),
        "epoll_wait" | "epoll_pwait" | "epoll_wait_old" => (3, false, false),
        "select" => (4, true, true),
        "pselect6" => (4, true, false),
        "ppoll" => (2, true, false),
        "epoll_pwait2" => (3, true, false),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read's first argument that cannot be an open descriptor of the thread is not the
    /// terminal: i386's `restart_syscall` (0) of an `int $0x80` sleep, read as x86_64's
    /// `read`, keeps the sleep's timespec address there.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_read_of_no_open_descriptor_is_not_of_the_terminal() {
        let tid = rustix::thread::gettid().as_raw_nonzero().get();
        let base = format!("/proc/self/task/{tid}");
        let nap =
            "0 0x404020 0x0 0x404020 0x1 0x7f0e5f6cba10 0x7ffe4b9b6260 0x7ffe4b9b6240 0x401173";
        let not_open = Some(Activity::Other("read on no open descriptor".into()));
        assert_eq!(read_elsewhere(&base, "read", nap), not_open);
        let huge = "0 0x7ffe4b9b6260 0x0 0x0 0x0 0x0 0x0 0x7ffe4b9b6240 0x401173";
        assert_eq!(read_elsewhere(&base, "read", huge), not_open);
        // An open descriptor that is no terminal names what it is.
        let file = fs::File::open("/proc/self/stat").unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let open = format!("0 {fd:#x} 0x0 0x1 0x0 0x0 0x0 0x7ffe4b9b6240 0x401173");
        let elsewhere = read_elsewhere(&base, "read", &open);
        assert!(
            matches!(&elsewhere, Some(Activity::Other(what)) if what.contains("/proc/")),
            "{elsewhere:?}"
        );
    }

    /// `rt_sigtimedwait` with no timeout (its third argument null: `sigwaitinfo`) is a wait for
    /// a signal alone, which a thread waits behind others in; one with a timeout is not named
    /// so, nor is any other call.
    #[test]
    fn a_signal_wait_with_no_timeout_is_told_from_a_timed_one() {
        let call = |name: &str| Activity::Other(name.to_string());
        let untimed = "128 0x7f4639 0x7f4633 0x0 0x8 0x0 0x7ffceb 0x7f4633 0x7f4633";
        let named = call(procfs::UNTIMED_SIGNAL_WAIT);
        assert_eq!(untimed_signal_wait(untimed, call("rt_sigtimedwait")), named);
        let timed = "128 0x7f4639 0x7f4633 0x7ffceb 0x8 0x0 0x7ffceb 0x7f4633 0x7f4633";
        assert_eq!(untimed_signal_wait(timed, call("rt_sigtimedwait")), call("rt_sigtimedwait"));
        assert_eq!(untimed_signal_wait(untimed, call("futex")), call("futex"));
        assert!(procfs::idle_behind(&[ThreadObs {
            tid: 1,
            activity: named,
            clock: None,
            tick: None,
            long_sleep: None,
        }]));
    }

    /// The wake-ups of a thread whose process's name is not UTF-8 (a shell run as a file
    /// named `sh\xff`) are read: its `status` read as UTF-8 failed, and none were.
    #[test]
    fn the_wakeups_of_a_process_named_in_bytes_not_utf8_are_read() {
        use std::os::unix::ffi::OsStrExt;
        let dir = std::env::temp_dir().join(format!("termloom-wakeups-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let program = dir.join(std::ffi::OsStr::from_bytes(b"sh\xff"));
        std::os::unix::fs::symlink("/bin/sh", &program).unwrap();
        let stdin = std::process::Stdio::piped();
        let shell =
            std::process::Command::new(&program).args(["-c", "read x"]).stdin(stdin).spawn();
        let _ = fs::remove_dir_all(&dir);
        let mut shell = shell.unwrap();
        let pid = shell.id() as i32;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !procfs::read_stat(pid).is_ok_and(|stat| stat.comm == "sh\u{fffd}") {
            assert!(std::time::Instant::now() < deadline, "sh\\xff never ran");
            std::thread::yield_now();
        }
        let wakeups = voluntary_switches(&format!("/proc/{pid}/task/{pid}"));
        drop(shell.stdin.take());
        shell.wait().unwrap();
        assert!(wakeups.is_some());
    }

    #[test]
    fn only_a_lock_of_the_process_own_waited_on_with_no_timeout_is_its_own() {
        // futex(address, op, value, timeout, ...): FUTEX_WAIT_BITSET | PRIVATE | CLOCK_REALTIME
        // as glibc's condition variables wait (gdb's and node's idle workers).
        assert!(waits_on_own_lock("202 0x55 0x189 0x0 0x0 0x0 0xffffffff 0x7f 0x7f"));
        assert!(waits_on_own_lock("202 0x55 0x80 0x0 0x0 0x0 0x0 0x7f 0x7f"));
        // With a timeout, shared with other processes, or another operation (a wake).
        assert!(!waits_on_own_lock("202 0x55 0x189 0x0 0x7ffc 0x0 0xffffffff 0x7f 0x7f"));
        assert!(!waits_on_own_lock("202 0x55 0x9 0x0 0x0 0x0 0xffffffff 0x7f 0x7f"));
        assert!(!waits_on_own_lock("202 0x55 0x81 0x1 0x0 0x0 0x0 0x7f 0x7f"));
        assert!(!waits_on_own_lock("202 0x55"));
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    /// A thread in a sleep whose timer's read is refused is unknown, not asleep with no
    /// timer: a clock lost would let its group read as waiting while it is about to print.
    #[test]
    fn a_sleep_whose_timer_read_is_refused_is_unknown() {
        // (Begun once `sleep` is exec'd: its start-up alone is left before its sleep; killed
        // however the test ends.)
        let sleep = super::super::bounded::tests::sleeper();
        let pid = sleep.id() as i32;
        let observed = super::super::process_observed;
        let main = |pid| observed(pid, std::time::Duration::ZERO).unwrap().1.remove(0);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while main(pid).long_sleep.is_none() {
            assert!(std::time::Instant::now() < deadline, "{:?}", main(pid));
            std::thread::yield_now();
        }
        super::super::bounded::remember_as_slow(pid);
        let refused = main(pid);
        drop(sleep);
        assert!(matches!(refused.activity, Activity::Unknown(_)), "{refused:?}");
    }

    /// A wait for input judged while a read of the thread's memory was refused is unknown:
    /// an unreadable poll set reads as one watching the terminal (a false wait in every
    /// session once four reads were stuck).
    #[test]
    fn a_wait_for_input_with_a_read_refused_meanwhile_is_unknown() {
        let input = || Activity::Input("poll".into());
        let before = super::super::bounded::refusals();
        assert_eq!(unless_refused(input(), before), input());
        let failed = super::super::bounded::within_bound(0, || -> i32 {
            std::panic::resume_unwind(Box::new(()))
        });
        assert!(failed.is_err());
        assert!(matches!(unless_refused(input(), before), Activity::Unknown(_)));
        let other = || Activity::Other("nanosleep".into());
        assert_eq!(unless_refused(other(), before), other(), "only a wait for input");
    }
}
