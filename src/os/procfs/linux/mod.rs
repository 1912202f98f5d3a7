//! The Linux side of the probe: `/proc` read for the processes of a terminal's foreground
//! group, their threads' waits ([`thread`]), their descriptors ([`descriptors`]) and the
//! relays that host terminals of their own ([`relay`]).

use super::{
    AWAITING_FAR_END, Activity, CLOCK_HORIZON, FAR_END_VERDICT, FOLLOWING, InputWait, Looks,
    NOT_THE_TERMINAL, ON_NETWORK, ON_SOCKETS, PROBE_DESCRIPTORS, Probe, ProcStat, RELAYS_JUDGED,
    SLEEP_UNTIL, Shown, SleepTick, SyscallField, TIMER_SLACK, ThreadObs, classify_syscall,
    classify_wchan, connected_in, decide, describe_state, has_live_threads, idle_behind,
    inet_table, is_dead, is_gone, on_a_lock, on_any_lock, on_sockets, parse_stat, parse_syscall,
    reads_a_socket, waits_for_signal, waits_outside,
};
use std::fs;

mod between_frames;
mod bounded;
mod compat;
mod descriptors;
mod jobs;
mod memory;
mod open_device;
mod private;
mod relay;
mod restart;
mod signals;
mod silent;
#[cfg(test)]
mod stalled_fuse;
mod thread;
use between_frames::between_frames;
use bounded::read_fdinfo;
use descriptors::*;
use jobs::*;
use memory::read_memory;
use open_device::open_device;
use private::*;
use relay::*;
pub(super) use relay::{
    hosted_by_group, hosted_by_relays, multiplexer_of, remembered_outside_relay,
};
pub(crate) use signals::ignores_job_control_signals;
use signals::*;
pub(super) use thread::observe_thread;
#[cfg(test)]
pub(super) use thread::waits_on_own_lock;
use thread::*;

/// Numeric entries of a `/proc`-style directory, sorted ([`numeric`]); within an
/// examination, listed only at its first listing there (see [`super::examination`]).
fn numeric_entries(dir: &str) -> std::io::Result<Vec<i32>> {
    match super::examination::listing(dir, || list_numeric(dir)) {
        Some(listed) => listed.map(|ids| ids.to_vec()),
        None => list_numeric(dir),
    }
}

/// Lists the numeric entries of `dir`, sorted ([`numeric`]).
fn list_numeric(dir: &str) -> std::io::Result<Vec<i32>> {
    numeric(fs::read_dir(dir)?.map(|entry| entry.map(|entry| entry.file_name())))
}

/// The positive numbers among the names of a directory's `entries`, sorted; other names are
/// left out. An entry that cannot be read fails the listing: a part of it taken for the
/// whole would leave a process or a thread out (a thread left out of a process's could
/// make the others all seem asleep on their own locks).
fn numeric(
    entries: impl Iterator<Item = std::io::Result<std::ffi::OsString>>,
) -> std::io::Result<Vec<i32>> {
    let mut ids = Vec::new();
    for name in entries {
        let id = name?.to_str().and_then(|name| name.parse::<i32>().ok());
        ids.extend(id.filter(|&id| id > 0));
    }
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
        .filter_map(|pid| super::read_record(&format!("/proc/{pid}/stat"), parse_stat).ok()?.ok())
        .filter(|stat| keep(stat))
        .collect()
}

/// `None` if the process is gone.
#[cfg(test)]
pub(super) fn process_wait(pid: i32, quiet: std::time::Duration) -> Option<InputWait> {
    process_observed(pid, quiet).map(|(wait, _)| wait)
}

/// (Tests) Whether process `pid` is waiting, with its threads' observations, as a probe of a
/// terminal quiet for `quiet` finds them; `None` if it is gone.
#[cfg(test)]
pub(super) fn process_observed(
    pid: i32,
    quiet: std::time::Duration,
) -> Option<(InputWait, Vec<ThreadObs>)> {
    let looks = super::Looks::new();
    let probe = Probe::quiet_for(quiet, &looks);
    observe_process(pid, probe)
}

/// When an input sent `since_input` ago was sent, on `CLOCK_BOOTTIME` (the clock a process's
/// start is on).
pub(super) fn input_at(since_input: Option<std::time::Duration>) -> Option<std::time::Duration> {
    Some(clock_now(7)?.saturating_sub(since_input?))
}

/// Whether the process is waiting, with its threads' observations; `None` if it is gone.
fn observe_process(pid: i32, probe: Probe<'_>) -> Option<(InputWait, Vec<ThreadObs>)> {
    let proc_dir = format!("/proc/{pid}");
    let stat = match super::read_bytes(&format!("{proc_dir}/stat")) {
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
            .filter_map(|pid| super::read_record(&format!("/proc/{pid}/stat"), parse_stat).ok())
            .filter_map(Result::ok)
            .filter(keep)
            .collect(),
        None => scan(keep),
    }
}

/// See [`super::shell_command`]: the live children of `parent` from its `children` files,
/// at most `most` of them, with no scan of `/proc` (none where the kernel gives no such
/// files).
pub(super) fn children_listed(parent: i32, most: usize) -> Option<Vec<ProcStat>> {
    children_within(parent, Some(&[]), most)
}

/// See [`super::shell_command`]: whether process `pid`'s first thread sleeps in a read-family
/// call on a pipe (a shell reading a command substitution's output), from its `syscall` file
/// and the link of the descriptor the call reads (`fd/N`, `pipe:[…]`): not in `wait4` (a
/// shell waiting for a command to end, as a script's loop does), nor reading the terminal
/// (`read x` while a process substitution's program runs: `exec 3< <(sleep 3); read x`).
pub(super) fn reads_pipe(pid: i32) -> bool {
    let base = format!("/proc/{pid}/task/{pid}");
    let thread::Look::Sleeping { activity: super::Activity::Input(name), syscall, .. } =
        thread::look(&base)
    else {
        return false;
    };
    let Some(fd) = thread::is_read(&name).then(|| thread::syscall_arg(&syscall, 0)).flatten()
    else {
        return false;
    };
    let Ok(fd) = i32::try_from(fd) else { return false };
    fs::read_link(format!("{base}/fd/{fd}"))
        .is_ok_and(|target| target.to_string_lossy().starts_with("pipe:["))
}

/// See [`super::alone_in_session`].
pub(super) fn alone_in_session(
    pgrp: i32,
    sid: i32,
    candidates: Option<&[i32]>,
    tracees: bool,
) -> bool {
    let processes = processes(candidates, |s| s.session == sid && has_live_threads(s));
    let mut group = processes.iter().filter(|p| p.pgrp == pgrp);
    let (Some(one), None) = (group.next(), group.next()) else { return false };
    processes.iter().filter(|p| p.pgrp != pgrp).all(|p| {
        waits_for_child(p.pid) || tracees && p.state == 't' && stopped_by_tracer(p.pid, one.pid)
    })
}

/// Whether every thread of process `pid` is stopped by its tracer, process `tracer` (a
/// debugger's program at a breakpoint): state `t`, and its `TracerPid` a thread of `tracer`.
/// Only `tracer` can set it running again (or a `SIGKILL` end it).
pub(super) fn stopped_by_tracer(pid: i32, tracer: i32) -> bool {
    let Ok(tids) = numeric_entries(&format!("/proc/{pid}/task")) else { return false };
    let traced_by = |status: &str| {
        let tid = status.lines().find_map(|line| line.strip_prefix("TracerPid:"))?;
        let tid = tid.trim().parse::<i32>().ok().filter(|&tid| tid > 0)?;
        // (The thread that traces it, not always the process's first.)
        Some(tid == tracer || fs::metadata(format!("/proc/{tracer}/task/{tid}")).is_ok())
    };
    !tids.is_empty()
        && tids.iter().all(|tid| {
            let base = format!("/proc/{pid}/task/{tid}");
            let stopped = super::read_bytes(&format!("{base}/stat"))
                .ok()
                .and_then(|data| parse_stat(&data).ok())
                .is_some_and(|stat| stat.state == 't');
            stopped
                && super::read_status(&format!("{base}/status"))
                    .is_ok_and(|status| traced_by(&status) == Some(true))
        })
}

/// See [`super::awaits_input_alone`]: every thread blocked until the terminal or the process
/// itself wakes it ([`thread::blocked_until_woken`]), one at least on the terminal, no timer
/// or child of its own that may signal it ([`may_signal_itself`]), and no other process of the
/// session (of `candidates` when given, else of its POSIX session) holding a pipe or eventfd
/// they poll ([`held_by_none_but`]).
pub(super) fn awaits_input_alone(pid: i32, candidates: Option<&[i32]>) -> bool {
    let looks = Looks::new();
    let Ok(stat) = super::read_stat(pid) else { return false };
    let Ok(tty) = u64::try_from(stat.tty_nr) else { return false };
    let Ok(tids) = numeric_entries(&format!("/proc/{pid}/task")) else { return false };
    let mut terminal = false;
    let mut beside = Vec::new();
    for tid in tids {
        let base = format!("/proc/{pid}/task/{tid}");
        let Some(wait) = thread::blocked_until_woken(&base, tty, &looks) else { return false };
        terminal |= wait.terminal;
        for private in wait.beside {
            if !beside.contains(&private) {
                beside.push(private);
            }
        }
    }
    if !terminal || may_signal_itself(pid, candidates) {
        return false;
    }
    if beside.is_empty() {
        return true;
    }
    held_by_none_but(pid, &beside, &session_holders(&stat, candidates), &looks)
}

/// The processes that may hold a descriptor of process `stat`'s (see [`held_by_none_but`]):
/// `candidates` when given (the session's cgroup), else the processes of its POSIX session.
fn session_holders(stat: &ProcStat, candidates: Option<&[i32]>) -> Vec<i32> {
    match candidates {
        Some(pids) => pids.to_vec(),
        None => processes(None, |s| s.session == stat.session && has_live_threads(s))
            .into_iter()
            .map(|s| s.pid)
            .collect(),
    }
}

/// See [`super::blocked_on_terminal`].
pub(super) fn blocked_on_terminal(pid: i32, device: u64) -> bool {
    let looks = Looks::new();
    let Ok(tids) = numeric_entries(&format!("/proc/{pid}/task")) else { return false };
    tids.iter().any(|tid| {
        let base = format!("/proc/{pid}/task/{tid}");
        thread::blocked_until_woken(&base, device, &looks).is_some_and(|wait| wait.terminal)
    })
}

/// See [`super::terminal_reader`].
pub(super) fn terminal_reader(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
    device: u64,
) -> super::TerminalReader {
    use super::TerminalReader;
    let looks = Looks::new();
    let mut left = super::THREADS_LOOKED_AT;
    let (mut not, mut unknown) = (None, None);
    for member in members(pgrp, sid, candidates).iter().filter(|m| has_live_threads(m)) {
        let pid = member.pid;
        let who = format!("pid {pid} ({})", member.comm);
        let tids = match numeric_entries(&format!("/proc/{pid}/task")) {
            Ok(tids) => tids,
            Err(err) if is_gone(&err) => continue,
            Err(err) => {
                unknown.get_or_insert_with(|| format!("{who}: threads unreadable: {err}"));
                continue;
            }
        };
        for tid in tids {
            if left == 0 {
                let reason = format!("more threads than {} to look at", super::THREADS_LOOKED_AT);
                return TerminalReader::Unknown { reason };
            }
            left -= 1;
            let name = || match tid == pid {
                true => who.clone(),
                false => format!("thread {tid} of {who}"),
            };
            match thread::terminal_read(&format!("/proc/{pid}/task/{tid}"), device, &looks) {
                TerminalRead::Reads => return TerminalReader::Reading { reader: pid },
                TerminalRead::Not(what) if not.is_none() => {
                    not = Some(format!("{} {what}", name()))
                }
                TerminalRead::Unknown(why) if unknown.is_none() => {
                    unknown = Some(format!("{}: {why}", name()));
                }
                TerminalRead::Not(_) | TerminalRead::Gone | TerminalRead::Unknown(_) => {}
            }
        }
    }
    match (unknown, not) {
        (Some(reason), _) => TerminalReader::Unknown { reason },
        (None, Some(what)) => TerminalReader::NotReading {
            reason: format!("{what}, and no thread of its group is blocked reading the terminal"),
        },
        (None, None) => TerminalReader::NotReading {
            reason: format!("process group {pgrp} has no live process"),
        },
    }
}

/// See [`super::others_may_print`].
#[cfg(feature = "testing")]
pub(super) fn others_may_print(pgrp: i32, sid: i32) -> bool {
    let others = processes(None, |s| s.session == sid && s.pgrp != pgrp && has_live_threads(s));
    others.iter().any(|p| !in_states(p, &['T', 't']) && !waits_for_child(p.pid))
}

/// Whether every live thread of process `stat` is in one of `states` (`T`, stopped): its
/// stat's state, but for a process whose first thread ended alone (a zombie with live
/// threads, see [`has_live_threads`]) the states of its other threads, from the thread look
/// (`Z` is its first thread's). `false` when its threads cannot be listed or none is left.
fn in_states(stat: &ProcStat, states: &[char]) -> bool {
    if !(is_dead(stat) && has_live_threads(stat)) {
        return states.contains(&stat.state);
    }
    let Ok(tids) = numeric_entries(&format!("/proc/{}/task", stat.pid)) else { return false };
    let mut live = tids.into_iter().filter_map(|tid| {
        match stat_of(&format!("/proc/{}/task/{tid}", stat.pid)) {
            Err(Look::Gone) => None,
            Ok(thread) => Some(thread.state),
            Err(Look::NotSleeping(state)) => Some(state),
            Err(_) => Some('?'),
        }
    });
    let first = live.next();
    first.is_some_and(|state| states.contains(&state)) && live.all(|s| states.contains(&s))
}

/// Whether process `pid` is blocked waiting for a child (`wait4`, `waitid`): a shell for
/// its job.
fn waits_for_child(pid: i32) -> bool {
    let Ok(text) = super::read_text(&format!("/proc/{pid}/syscall")) else {
        return false;
    };
    // (A read of its memory refused by the bound tells nothing: no wait for a child.)
    let refused = bounded::refusals();
    match parse_syscall(&text).and_then(|field| match field {
        SyscallField::Nr(nr) => compat::classify(&format!("/proc/{pid}"), &text, nr),
        _ => None,
    }) {
        Some(Activity::Other(name)) => waits_for_a_child(&name) && bounded::refusals() == refused,
        _ => false,
    }
}

/// The processes of group `pgrp` (in session `sid`, among `candidates` when given).
pub(super) fn members(pgrp: i32, sid: Option<i32>, candidates: Option<&[i32]>) -> Vec<ProcStat> {
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
        members.iter().filter(|m| has_live_threads(m)).map(|m| m.pid).chain(relays).collect();
    if let Some(relay) = relay.filter(|relay| !pids.contains(relay)) {
        pids.push(relay);
    }
    // So does what children that left the session read of it (`su USER -c CMD`).
    let parents = members.iter().filter(|m| has_live_threads(m)).map(|m| m.pid);
    for child in detached_children(&members, parents, candidates, &looks) {
        if !pids.contains(&child.pid) {
            pids.push(child.pid);
        }
    }
    Some(pids)
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
        let leader = sid.and_then(|sid| super::read_stat(sid).ok()).filter(has_live_threads);
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
    let live: Vec<&ProcStat> = members.iter().filter(|m| has_live_threads(m)).collect();
    if !live.is_empty() && live.iter().all(|m| in_states(m, &['T'])) {
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
    // (With whether it is an idle tick, see [`InputWait::Outside`].)
    let mut outside: Option<(String, bool)> = None;
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
    // The members busy or asleep whose output goes nowhere (see [`silent`]), with their
    // verdicts: the group's when no other member reads the terminal.
    let mut silent = silent::Silent::default();
    // (A process alone in its group that drew a full screen and sleeps has drawn its frame:
    // `watch`, seen once; not a shell's `sleep` between two steps of a script, which wrote
    // nothing, nor one alone in a job of its own, which wrote nothing either, nor one of
    // another group than the one that started the screen's last frame: the program gdb's TUI
    // runs, which printed a line on gdb's screen. `watch` started its own, whoever went to the
    // alternate screen before it. So has one whose parent, a member, waits for it, every other
    // member doing so too, on a full screen drawn since the last input: gdb's `shell watch -n
    // 10 date`, `drawn_beside`, judged once every member was looked at, see [`waited_for`];
    // not a program gdb's TUI runs with `shell`, which printed a line on gdb's screen.)
    let alone = members.iter().filter(|m| has_live_threads(m)).count() == 1;
    let may_have_drawn = probe.frame_group.is_none_or(|drew| drew == pgrp);
    let mut drawn_beside: Option<(&ProcStat, String)> = None;
    for member in members.iter().filter(|m| has_live_threads(m)) {
        let observed = observe_process(member.pid, probe);
        // (A monitor between two frames in a timed wait that is no sleep: see
        // [`between_frames`].)
        let between = alone
            && may_have_drawn
            && observed.as_ref().is_some_and(|(wait, threads)| {
                matches!(wait, InputWait::NotWaiting { .. })
                    && threads.iter().any(|t| t.tick.is_some_and(|t| t.drawn && t.woken))
                    && super::has_written(member.pid)
                    && between_frames(member, threads, candidates, probe.looks)
            });
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
                tick = Some(format!("{} ticks on a {ms} ms {}", who(), super::TICKS_IDLE));
            }
            let redraws = |tick: SleepTick| {
                let ms = tick.timer.as_millis();
                match tick.until {
                    true => format!("{} redraws on a timer, {ms} ms to its next frame", who()),
                    false => format!("{} redraws on a {ms} ms timer", who()),
                }
            };
            if repeating.is_none() {
                if let Some(again) = ticks().find(|t| t.repeated) {
                    repeating = Some(redraws(again));
                } else if let Some(drawn) = ticks()
                    .find(|t| t.drawn && (!t.woken || between))
                    .filter(|_| {
                        may_have_drawn
                            && (alone || (drawn_beside.is_none() && probe.full_screen_since_input))
                    })
                    .filter(|_| super::has_written(member.pid))
                {
                    match alone {
                        true => repeating = Some(redraws(drawn)),
                        false => drawn_beside = Some((member, redraws(drawn))),
                    }
                }
            }
            // (The soonest to end of them, as what may come first.)
            if let Some(timer) = threads.iter().filter_map(|t| t.long_sleep).min()
                && long_sleep.as_ref().is_none_or(|(_, soonest)| timer < *soonest)
            {
                long_sleep = Some((format!("{} sleeps {} s more", who(), timer.as_secs()), timer));
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
                    Some(InputWait::Outside { reason, idle_tick }) => {
                        outside.get_or_insert((reason, idle_tick));
                    }
                    Some(InputWait::Unknown { reason }) => unknown.push(reason),
                    Some(not) => return not,
                }
            }
            // A monitor between two frames waits as one in a sleep does.
            Some((not @ InputWait::NotWaiting { .. }, threads)) if between => {
                behind.get_or_insert(not);
                behind_pids.push(member.pid);
                behind_threads.push((member.pid, threads));
            }
            // A client waiting on its server's socket (tmux's), or reading it for an answer
            // (gpg its agent's), which may read the terminal for it: see below.
            Some((not @ InputWait::NotWaiting { .. }, threads))
                if on_sockets(&threads) || reads_a_socket(&threads) =>
            {
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
                outside.get_or_insert((reason, false));
            }
            // (A process alone is judged by `decide`, which does not say this.)
            Some((InputWait::Outside { reason, idle_tick }, _)) => {
                outside.get_or_insert((reason, idle_tick));
            }
            Some((
                not @ (InputWait::NotWaiting { .. }
                | InputWait::Ticking { .. }
                | InputWait::Sleeping { .. }),
                _,
            )) => {
                if let Err(not) = silent.set_aside(member.pid, not, probe.looks) {
                    return not;
                }
            }
            Some((not @ InputWait::Stopped { .. }, _)) => return not,
            Some((InputWait::Unknown { reason }, _)) => unknown.push(reason),
        }
    }
    // A member that prints nowhere leaves the group busy (or asleep) unless another reads
    // the terminal.
    if let Some(not) = silent.verdict(reader, &members, &behind_threads, probe.looks) {
        return not;
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
        // (The relay, or the one program it hosts: see [`judge_relay`].)
        let relay = match (reader, sid) {
            (None, Some(sid)) => reader_through_relay(pgrp, sid, &members, candidates, probe),
            _ => None,
        };
        // A program a relay hosts that is busy with the last input, or asleep for longer
        // than any default wait (see [`judge_relay`]): the client is busy or asleep with
        // it, not waiting on its sockets.
        let hosted = hosted_verdict(probe.looks, clock.is_some());
        if let Some(verdict) = hosted.filter(|_| relay.is_none() && reader.is_none()) {
            return verdict;
        }
        match (relay, not) {
            (Some(relay), _) => reader = Some(relay),
            // No relay waits for input: the client waits on its sockets, as a server does,
            // unless a daemon the session started, which it may wait on, is at work.
            (None, InputWait::NotWaiting { reason }) if reader.is_none() => {
                if let Some(reason) = sid.and_then(|sid| daemon_at_work(sid, candidates)) {
                    return InputWait::NotWaiting { reason };
                }
                outside.get_or_insert((reason, false));
            }
            (None, not) => return not,
        }
    }
    match (reader, outside) {
        // Waiting on the world outside, unless a clock of its own is about to wake it.
        (None, Some((reason, idle_tick))) => {
            return match clock {
                Some(reason) => InputWait::NotWaiting { reason },
                None => InputWait::Outside { reason, idle_tick },
            };
        }
        // A member that reads the terminal while another waits on the outside (`tail -f
        // log | less`) is busy with it, as one that works is.
        (Some(_), Some((reason, _))) => return InputWait::NotWaiting { reason },
        (None, None) => {
            if let Some(not) = behind {
                // A child the members wait for may have left the terminal's session and
                // still read the terminal (`su USER -c CMD`, `setsid -w`); or sleep longer
                // than any default wait there, which the members then sleep with, as with
                // a child of their own (judged below).
                let detached = detached_children(
                    &members,
                    behind_pids.iter().copied(),
                    candidates,
                    probe.looks,
                );
                let mut asleep: &[ProcStat] = &[];
                match detached_wait(&detached, candidates, probe) {
                    Some(InputWait::Sleeping { reason, timer }) => {
                        if long_sleep.as_ref().is_none_or(|(_, soonest)| timer < *soonest) {
                            long_sleep = Some((reason, timer));
                        }
                        asleep = &detached;
                    }
                    Some(wait) => return wait,
                    None => {}
                }
                // A member waiting for a signal reads the terminal through its relay,
                // another process of another session that holds it, as a client on its
                // server's socket does (GNU screen's client, `screen -r`, reattached to a
                // server that is not its child: one started before it, in the session or
                // outside it).
                if let Some(sid) = sid
                    && behind_threads.iter().any(|(_, threads)| waits_for_signal(threads))
                {
                    if let Some(reader) =
                        reader_through_relay(pgrp, sid, &members, candidates, probe)
                    {
                        return InputWait::Waiting { reader: Some(reader) };
                    }
                    if let Some(verdict) = hosted_verdict(probe.looks, clock.is_some()) {
                        return verdict;
                    }
                }
                // A member that drew its frame and sleeps, which the others only wait for.
                if repeating.is_none()
                    && let Some((sleeper, reason)) = drawn_beside
                    && waited_for(sleeper, &members, &behind_threads)
                {
                    repeating = Some(reason);
                }
                // Every member asleep, one ticking on a short timer with nothing to
                // print, or in a sleep longer than any default wait, none on a clock about
                // to go off: a poll of the world outside, or nothing to wait for. Else one
                // that goes back to the same short sleep again and again, whatever it
                // prints: a program that redraws on a timer.
                return match (tick, long_sleep, clock, repeating) {
                    (Some(reason), _, None, _) => InputWait::Outside { reason, idle_tick: true },
                    (None, Some((reason, timer)), None, _)
                        if unknown.is_empty()
                            && behind_threads.iter().all(|(pid, threads)| {
                                asleep_long(*pid, threads, &members, asleep, candidates)
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
    // A job a member started since the last input, which it shows the output of when it
    // ends (neovim's `:!cmd`), keeps it busy or asleep while it works or sleeps.
    if let Some(job) = job_verdict(&members, candidates, probe) {
        return job;
    }
    InputWait::Waiting { reader }
}

/// Whether every live member of a group but `sleeper` (`members`) waits for a child and
/// for nothing else (a thread in `wait4` or `waitid`, the others too or on a lock with no
/// clock due, as `behind` observed them), `sleeper`'s parent among them: a program that runs
/// it and waits for its end (gdb's `shell watch -n 10 date`, gdb in `wait4` beside its idle
/// workers). A monitor so run that drew its frame and sleeps is one between two frames, as
/// when it is alone in its group.
fn waited_for(sleeper: &ProcStat, members: &[ProcStat], behind: &[(i32, Vec<ThreadObs>)]) -> bool {
    let only_waits = |pid: i32| {
        behind.iter().find(|(member, _)| *member == pid).is_some_and(|(_, threads)| {
            threads.iter().any(for_children)
                && threads.iter().all(|t| for_children(t) || on_a_lock(t))
        })
    };
    let others: Vec<&ProcStat> =
        members.iter().filter(|m| m.pid != sleeper.pid && has_live_threads(m)).collect();
    others.iter().any(|m| m.pid == sleeper.ppid) && others.iter().all(|m| only_waits(m.pid))
}

#[cfg(test)]
mod listing_tests {
    use super::*;

    /// A listing's numeric names are its entries, sorted; an entry that cannot be read fails
    /// it (it was left out, and the rest taken for the whole).
    #[test]
    fn an_entry_that_cannot_be_read_fails_the_listing() {
        let name = |name: &str| Ok(std::ffi::OsString::from(name));
        let listed = numeric([name("12"), name("self"), name("3"), name("0")].into_iter());
        assert_eq!(listed.unwrap(), [3, 12]);
        let failed = std::io::Error::from_raw_os_error(5);
        let listed = numeric([name("12"), Err(failed), name("3")].into_iter());
        assert_eq!(listed.map_err(|err| err.raw_os_error()), Err(Some(5)));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod child_wait_tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    /// A 32-bit program (each call through `int $0x80`, told by a read of its memory) that
    /// forks a child that pauses, says `.` and waits for it.
    const WAITER: &str = "#include <sys/wait.h>\n#include <unistd.h>\n\
        int main(void) {\n    if (fork() == 0) { pause(); return 0; }\n    \
        write(1, \".\", 1);\n    wait(0);\n    return 0;\n}\n";

    /// [`WAITER`] built in `dir` with `gcc -m32`; `None` (the test skips) where it cannot be
    /// (no gcc, no gcc-multilib), except under `CI`, whose `.ci/run` installs them.
    fn build_waiter(dir: &std::path::Path) -> Option<std::path::PathBuf> {
        fs::create_dir_all(dir).unwrap();
        let (source, program) = (dir.join("waiter.c"), dir.join("waiter"));
        fs::write(&source, WAITER).unwrap();
        let built = Command::new("gcc").args(["-m32", "-o"]).arg(&program).arg(&source).output();
        if built.as_ref().is_ok_and(|built| built.status.success()) {
            return Some(program);
        }
        assert!(std::env::var_os("CI").is_none(), "gcc -m32 fails (.ci/run): {built:?}");
        eprintln!("skipped: gcc -m32 cannot build here: {built:?}");
        None
    }

    /// [`WAITER`]'s process group, killed when dropped (a failed assertion left it behind,
    /// holding the test's output open), and the directory it was built in, removed.
    struct Waiter(std::process::Child, std::path::PathBuf);

    impl Drop for Waiter {
        fn drop(&mut self) {
            if let Some(group) = rustix::process::Pid::from_raw(self.0.id() as i32) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            let _ = self.0.wait();
            let _ = fs::remove_dir_all(&self.1);
        }
    }

    /// A program waiting for its child is told so after a read refused earlier on the same
    /// thread (the refusal is not its look's), and not once the read of its call's memory (is
    /// it a 32-bit call?) is refused.
    #[test]
    fn a_wait_for_a_child_is_told_after_a_refusal_and_not_when_refused() {
        let dir = std::env::temp_dir().join(format!("termloom-waiter-{}", std::process::id()));
        let Some(program) = build_waiter(&dir) else {
            let _ = fs::remove_dir_all(&dir);
            return;
        };
        let mut waiter = Command::new(program);
        waiter.process_group(0).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut waiter = Waiter(waiter.spawn().unwrap(), dir);
        let pid = waiter.0.id() as i32;
        // (Said once its child is forked, right before its wait.)
        waiter.0.stdout.take().unwrap().read_exact(&mut [0u8]).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !waits_for_child(pid) {
            assert!(std::time::Instant::now() < deadline, "it never waited for its child");
            std::thread::yield_now();
        }
        let failed =
            bounded::within_bound(0, || -> i32 { std::panic::resume_unwind(Box::new(())) });
        assert!(failed.is_err());
        assert!(waits_for_child(pid), "an earlier refusal made it no waiter");
        bounded::remember_as_slow(pid);
        assert!(!waits_for_child(pid), "its call's read refused, yet a waiter");
    }
}
