//! Relays: processes that read the session's terminal for programs on terminals of their own
//! (a tmux or GNU screen server, `script`, `sudo` with `use_pty`), and whether what they host
//! waits for input.

use super::*;
use crate::error::RelayUnseen;
use crate::os::procfs;

/// The relays of the terminal of group `members` (of session `sid`): live processes of
/// other POSIX sessions that have it open, as a tmux server has its clients' terminals
/// (passed over its socket) and reads them, or as a dialog a daemon runs opens it by its
/// name (gpg's agent runs `pinentry-curses` on the terminal `GPG_TTY` names). They are
/// looked for among the processes the session started ([`outside_the_session`]). At most the
/// descriptors `looks` has room for are looked at, all candidates together.
pub(super) fn relays(
    sid: i32,
    members: &[ProcStat],
    candidates: Option<&[i32]>,
    looks: &Looks,
) -> Vec<i32> {
    let Some(tty) = terminal_of(members) else {
        return Vec::new();
    };
    // (The members, just read, are of the session: their `stat` is not read again.)
    let rest: Option<Vec<i32>> = candidates.map(|candidates| {
        candidates.iter().copied().filter(|&pid| members.iter().all(|m| m.pid != pid)).collect()
    });
    let others = outside_the_session(sid, rest.as_deref());
    others.iter().map(|p| p.pid).filter(|&pid| holds_terminal(pid, tty, looks)).collect()
}

/// The live processes the session started that are in other POSIX sessions: among
/// `candidates` (the session's cgroup) when given, else the children of the session leader's
/// parent, where a daemon the session started ends up (the supervisor is a child subreaper),
/// and the children such a daemon, with no controlling terminal, runs in its own POSIX
/// session.
fn outside_the_session(sid: i32, candidates: Option<&[i32]>) -> Vec<ProcStat> {
    if candidates.is_some() {
        return processes(candidates, |s| s.session != sid && has_live_threads(s));
    }
    // (The adopter's children, from its `children` files: not a scan of all of `/proc`.)
    let Ok(leader) = procfs::read_stat(sid) else { return Vec::new() };
    let mut others: Vec<ProcStat> =
        children(leader.ppid, None).into_iter().filter(|s| s.session != sid).collect();
    let daemons: Vec<(i32, i32)> =
        others.iter().filter(|p| p.tty_nr == 0).map(|p| (p.pid, p.session)).collect();
    for (daemon, session) in daemons {
        let helpers = children(daemon, None).into_iter();
        others.extend(helpers.filter(|c| c.session == session));
    }
    others
}

/// A daemon the session started (a process of another POSIX session with no controlling
/// terminal, as [`outside_the_session`] finds them: gpg's agent, a tmux server) with a thread
/// at work, running or in a disk wait: a client of the session blocked on its sockets waits
/// on it, not on the world outside (gpg while its agent works out, for a second, how long a
/// passphrase's hash must take, before its dialog is drawn; or generates a key). Only with a
/// cgroup (`candidates`), which holds the session's daemons alone: without one, the
/// supervisor's children are every session's, and another session's busy daemon held this
/// one's client (a program reading a socket waited to its timeout). What it is, or `None`.
pub(super) fn daemon_at_work(sid: i32, candidates: Option<&[i32]>) -> Option<String> {
    let candidates = Some(candidates?);
    outside_the_session(sid, candidates).into_iter().filter(|p| p.tty_nr == 0).find_map(|p| {
        let tids = numeric_entries(&format!("/proc/{}/task", p.pid)).ok()?;
        let working = tids.into_iter().any(|tid| {
            procfs::read_bytes(&format!("/proc/{}/task/{tid}/stat", p.pid))
                .ok()
                .and_then(|data| parse_stat(&data).ok())
                .is_some_and(|stat| matches!(stat.state, 'R' | 'D'))
        });
        working.then(|| format!("pid {} ({}), a daemon of the session, is at work", p.pid, p.comm))
    })
}

/// The relay outside session `sid` of the terminal of group `pgrp` (of `members`), as
/// `memo` remembers it for the group, else looked for and remembered (see
/// [`procfs::outside_relay`]).
pub(in crate::os::procfs) fn remembered_outside_relay(
    pgrp: i32,
    sid: i32,
    members: &[ProcStat],
    looks: &Looks,
    memo: &procfs::OutsideRelay,
) -> Option<i32> {
    if let Some((group, relay)) = memo.get()
        && group == pgrp
    {
        return relay;
    }
    let relay = members
        .iter()
        .filter(|m| has_live_threads(m))
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
pub(super) fn outside_relays(
    sid: i32,
    members: &[ProcStat],
    client: i32,
    looks: &Looks,
) -> Vec<i32> {
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
        procfs::read_bytes(&format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|data| parse_stat(&data).ok())
            .is_some_and(|stat| stat.session != sid && has_live_threads(&stat))
    };
    pids.into_iter()
        .take_while(|_| looks.take(1))
        .filter(|&pid| runs_program(pid) && of_another_session(pid))
        .filter(|&pid| holds_terminal(pid, tty, looks))
        .collect()
}

/// The live children of `parent`: from `/proc/PID/task/TID/children` (every thread's), or,
/// where the kernel does not give those, among `candidates` when given, else among every
/// process of `/proc`.
pub(super) fn children(parent: i32, candidates: Option<&[i32]>) -> Vec<ProcStat> {
    children_within(parent, candidates, usize::MAX).unwrap_or_default()
}

/// The live children of `parent`, as [`children`] finds them, or `None` when it has more than
/// `most`: their `stat` files are read only when it has no more.
pub(super) fn children_within(
    parent: i32,
    candidates: Option<&[i32]>,
    most: usize,
) -> Option<Vec<ProcStat>> {
    let Ok(tids) = numeric_entries(&format!("/proc/{parent}/task")) else {
        return Some(Vec::new());
    };
    let mut pids: Vec<i32> = Vec::new();
    for tid in tids {
        match procfs::read_pids(&format!("/proc/{parent}/task/{tid}/children")) {
            Ok(children) => pids.extend(children),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && tid == parent => {
                // No such file in this kernel (or the process is gone).
                // (Among all of `/proc` without candidates: the supervisor's adopted daemons
                // are looked for so, as they were before the `children` files were read.)
                let found = processes(candidates, |s| s.ppid == parent && has_live_threads(s));
                return (found.len() <= most).then_some(found);
            }
            Err(_) => {}
        }
    }
    pids.sort_unstable();
    pids.dedup();
    if pids.len() > most {
        return None;
    }
    let stats = pids
        .into_iter()
        .filter_map(|pid| procfs::read_bytes(&format!("/proc/{pid}/stat")).ok())
        .filter_map(|data| parse_stat(&data).ok());
    Some(stats.filter(|s| s.ppid == parent && has_live_threads(s)).collect())
}

/// The terminals `host` hosts, each as its foreground group and session: the controlling
/// terminal of each child of `host` that leads a POSIX session of its own, on a terminal
/// (`script` and `sudo` with `use_pty` run their command so, and copy between that terminal
/// and their own).
pub(super) fn hosted_terminals(host: i32, candidates: Option<&[i32]>) -> Vec<(i32, i32)> {
    let mut groups: Vec<(i32, i32)> =
        hosting_children(host, candidates).into_iter().map(|c| (c.tpgid, c.session)).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

/// The children of `host` that lead a POSIX session of their own on a terminal that has a
/// foreground group (see [`hosted_terminals`]).
pub(super) fn hosting_children(host: i32, candidates: Option<&[i32]>) -> Vec<ProcStat> {
    children(host, candidates)
        .into_iter()
        .filter(|c| c.pid == c.session && c.tty_nr != 0 && c.tpgid > 0)
        .collect()
}

/// See [`procfs::hosted_by_group`].
pub(in crate::os::procfs) fn hosted_by_group(
    pgrp: i32,
    sid: Option<i32>,
    candidates: Option<&[i32]>,
) -> Vec<procfs::Hosted> {
    let members = members(pgrp, sid, candidates);
    hosted_by(members.iter().filter(|m| has_live_threads(m)).map(|m| m.pid), candidates)
}

/// See [`procfs::hosted_by_relays`].
pub(in crate::os::procfs) fn hosted_by_relays(
    pgrp: i32,
    sid: i32,
    candidates: Option<&[i32]>,
) -> Vec<procfs::Hosted> {
    let relays = relays_of_group(pgrp, sid, candidates, &Looks::new());
    hosted_by(relays.into_iter(), candidates)
}

/// The relays of the terminal of group `pgrp` (of session `sid`), its members read first
/// (see [`relays`]).
fn relays_of_group(pgrp: i32, sid: i32, candidates: Option<&[i32]>, looks: &Looks) -> Vec<i32> {
    let members = members(pgrp, Some(sid), candidates);
    relays(sid, &members, candidates, looks)
}

/// See [`procfs::multiplexer_of`].
pub(in crate::os::procfs) fn multiplexer_of(
    pgrp: i32,
    sid: i32,
    candidates: Option<&[i32]>,
) -> Option<procfs::Multiplexer> {
    let looks = Looks::new();
    relays_of_group(pgrp, sid, candidates, &looks).into_iter().find_map(|relay| {
        let terminals = terminals_hosted(relay, candidates, &looks);
        (!terminals.is_ok_and(|n| n <= 1)).then(|| {
            let name = procfs::read_stat(relay).map(|s| s.comm).unwrap_or_default();
            procfs::Multiplexer { pid: relay, name, terminals }
        })
    })
}

/// How many terminals relay `relay` hosts, live foreground group or not: the more of the
/// sessions its children lead on terminals (a window whose program handed the terminal to a
/// group that has ended since counts) and the pseudo-terminal masters it holds open (`/dev/ptmx`
/// descriptors: GNU screen's and tmux's windows and panes). Why not, when its descriptors
/// could not all be looked at (within what `looks` has room for).
pub(super) fn terminals_hosted(
    relay: i32,
    candidates: Option<&[i32]>,
    looks: &Looks,
) -> Result<usize, RelayUnseen> {
    let mut sessions: Vec<i32> = children(relay, candidates)
        .into_iter()
        .filter(|c| c.pid == c.session && c.tty_nr != 0)
        .map(|c| c.tty_nr)
        .collect();
    sessions.sort_unstable();
    sessions.dedup();
    let mut masters = 0;
    let search = search_descriptors(relay, looks, |_, target| {
        masters += usize::from(target == "/dev/ptmx" || target.ends_with("/pts/ptmx"));
        None::<()>
    });
    match search {
        Search::Absent | Search::Found(()) => Ok(masters.max(sessions.len())),
        Search::Unknown(unseen) => Err(unseen),
    }
}

/// The terminals `hosts` host ([`hosting_children`]), at most [`procfs::HOSTED_GROUPS`].
fn hosted_by(hosts: impl Iterator<Item = i32>, candidates: Option<&[i32]>) -> Vec<procfs::Hosted> {
    let mut hosted: Vec<procfs::Hosted> = hosts
        .flat_map(|host| hosting_children(host, candidates))
        .map(|c| procfs::Hosted { leader: c.pid, group: c.tpgid })
        .collect();
    hosted.sort_unstable_by_key(|h| h.leader);
    hosted.dedup();
    hosted.truncate(procfs::HOSTED_GROUPS);
    hosted
}

/// Whether a thread's activity, `what`, is a wait for a child: the call (`wait4`,
/// `waitid`) or where the kernel sleeps in it (`do_wait`).
pub(super) fn waits_for_a_child(what: &str) -> bool {
    crate::os::procfs::CHILD_WAITS.contains(&what)
}

/// Whether `thread` waits for a child (see [`waits_for_a_child`]).
pub(super) fn for_children(thread: &ThreadObs) -> bool {
    matches!(&thread.activity, Activity::Other(what) if waits_for_a_child(what))
}

/// Whether `child` of `parent` left its parent's session and has no controlling terminal: a
/// job ([`job_verdict`]) or a detached child ([`detached_children`]).
pub(super) fn detached_from(child: &ProcStat, parent: &ProcStat) -> bool {
    child.session != parent.session && child.tty_nr == 0
}

/// Whether member `pid` of a group (`members`), every thread of which waits behind
/// something (`threads`, see [`idle_behind`]), only sleeps longer than [`CLOCK_HORIZON`]
/// or waits for children that are members too (a shell running `sleep 300`), or are among
/// `asleep` (children that left the terminal's session and sleep so, `su USER -c 'sleep
/// 300'`): not for a pipe, nor for a child that left the group (`timeout` runs its command in
/// a group of its own), which may print. Threads on a lock with no clock due ([`on_a_lock`])
/// may wait beside those (vifm's worker, while vifm waits for its `:!sleep 300`).
pub(super) fn asleep_long(
    pid: i32,
    threads: &[ThreadObs],
    members: &[ProcStat],
    asleep: &[ProcStat],
    candidates: Option<&[i32]>,
) -> bool {
    let known = |child: &ProcStat| members.iter().chain(asleep).any(|m| m.pid == child.pid);
    let long_sleep = |t: &ThreadObs| t.long_sleep.is_some();
    let only = |waits: &dyn Fn(&ThreadObs) -> bool| {
        threads.iter().any(waits) && threads.iter().all(|t| waits(t) || on_a_lock(t))
    };
    only(&long_sleep) || only(&for_children) && children(pid, candidates).iter().all(known)
}

/// Whether the terminals member `host` hosts ([`hosted_terminals`]) wait for input: `None`
/// when it hosts none (it reads the terminal for itself); else waiting when the foreground
/// group of every one waits, busy when one is (a command `sudo` runs still works, though
/// `sudo` itself waits on the terminal, to copy what is typed), on the world outside when
/// one waits there and none is busy. The reader is the program on the one terminal, or,
/// when it hosts several (GNU screen's windows), none: the host; none too when the program
/// reading is the hosted session's leader, shares a pipe with the host and asks no password
/// (mc's subshell at its prompt: mc reads). At most [`procfs::HOSTED_GROUPS`] hosted groups a probe are looked
/// at.
pub(super) fn hosted_wait(
    host: i32,
    candidates: Option<&[i32]>,
    probe: Probe<'_>,
) -> Option<InputWait> {
    let groups = hosted_terminals(host, candidates);
    if groups.is_empty() {
        return None;
    }
    let several = groups.len() > 1;
    // The process that reads, with the session of the terminal it reads.
    let mut reader: Option<(i32, i32)> = None;
    let mut outside = None;
    for (pgrp, session) in groups {
        let left = probe.looks.hosted.get();
        if left == 0 {
            let reason = format!("pid {host} hosts more terminals than one probe looks at");
            return Some(InputWait::Unknown { reason });
        }
        probe.looks.hosted.set(left - 1);
        match group_wait(pgrp, Some(session), candidates, hosted_probe(probe)) {
            InputWait::Waiting { reader: found } => {
                reader = reader.or(found.map(|found| (found, session)));
            }
            InputWait::Outside { reason, idle_tick } => {
                outside.get_or_insert((reason, idle_tick));
            }
            other => return Some(other),
        }
    }
    // Of several terminals (GNU screen's windows), `/proc` cannot tell which one is shown
    // and gets the keys: no program on them is named the reader, nor are their modes
    // taken for the input's (a password prompt in a window not shown is no reason to
    // type a secret into the one shown); the host reads, as it does.
    // (Which of them waits decides the answer as for one terminal.)
    // A host whose own child, the leader of the hosted session, reads there and shares a pipe
    // with it drives that child as a part of itself (mc's subshell at its prompt, which
    // reports its directory and command line to mc through pipes of their own): the host
    // reads the keys and draws what is shown. The host is then the reader, under the session's
    // terminal's modes. Only the leader: a command the subshell runs (typed at mc's command
    // line) inherits those pipes, and what it asks is read on the hosted terminal, by it (a
    // password prompt there is one). A relay's leader shares no pipe with it (`script`, tmux:
    // their programs hold the terminal alone), or is not what reads: `sudo` with `use_pty`
    // hands its command its own standard streams when they are no terminal (`sudo cmd | tee
    // log`: a pipe in common), but runs it under a monitor that leads the session.
    // A password the leader itself asks for (canonical mode, echo off: `read -s` typed at
    // mc's command line) is read by it; its own prompt is not, whether an editor taking keys
    // (bash's readline) or a line read with echo (dash's).
    let asks_a_password = |hosted| {
        crate::os::pty::controlling_line_modes(hosted).is_some_and(|m| m.canonical && !m.echo)
    };
    let reader = reader
        .filter(|&(hosted, session)| {
            hosted != session
                || asks_a_password(hosted)
                || !shares_a_pipe(host, hosted, probe.looks)
        })
        .map(|(hosted, _)| hosted);
    Some(match (reader, outside) {
        (None, Some((reason, idle_tick))) => InputWait::Outside { reason, idle_tick },
        (Some(_), Some((reason, _))) => InputWait::NotWaiting { reason },
        (reader, None) => InputWait::Waiting { reader: reader.filter(|_| !several) },
    })
}

/// `probe` for a group on a terminal a member hosts (a tmux or GNU screen pane, `script`'s):
/// the session's screen is the host's (a multiplexer's is always full-screen), not what that
/// group drew, so no sleep there is taken for a monitor's between two frames (a one-off
/// `sleep` after a line in a tmux pane settled the wait before the next line). Its timers are
/// still a full-screen program's refresh when the session shows one (`htop -d 3` in a pane:
/// a first version, which took the pane for no full-screen program, waited out 10 s a key).
fn hosted_probe(probe: Probe<'_>) -> Probe<'_> {
    Probe { hosted: true, ..probe }
}

/// The children of `parents` (members of the terminal's session, of `members`) that left
/// the session, with no controlling terminal since, and still hold the terminal open (`su
/// USER -c CMD` runs CMD so; `setsid -w`): they read it through the descriptors they
/// inherited, as their parents wait for them.
pub(super) fn detached_children(
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
            if detached_from(&child, of)
                && !found.iter().any(|f| f.pid == child.pid)
                && holds_terminal(child.pid, tty, looks)
            {
                found.push(child);
            }
        }
    }
    found
}

/// Whether `detached`, children that members wait for and that left the terminal's session
/// ([`detached_children`]), wait for input on it: `None` when there are none, or none of their
/// groups waits (the members' own answer stands); else their groups' answer, as
/// [`hosted_wait`] gives it. Groups that all sleep longer than [`CLOCK_HORIZON`] (`su USER -c
/// 'sleep 300'`) give the sleep that ends soonest, which the members sleep with when they
/// only wait for them (see [`asleep_long`]).
pub(super) fn detached_wait(
    detached: &[ProcStat],
    candidates: Option<&[i32]>,
    probe: Probe<'_>,
) -> Option<InputWait> {
    let mut groups: Vec<(i32, i32)> = detached.iter().map(|c| (c.pgrp, c.session)).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut reader = None;
    let mut outside = None;
    let mut asleep: Option<(String, std::time::Duration)> = None;
    for (pgrp, session) in groups {
        let left = probe.looks.hosted.get();
        if left == 0 {
            return None;
        }
        probe.looks.hosted.set(left - 1);
        match group_wait(pgrp, Some(session), candidates, probe) {
            InputWait::Waiting { reader: found } => reader = reader.or(found),
            InputWait::Outside { reason, idle_tick } => {
                outside.get_or_insert((reason, idle_tick));
            }
            InputWait::Sleeping { reason, timer } => {
                if asleep.as_ref().is_none_or(|(_, soonest)| timer < *soonest) {
                    asleep = Some((reason, timer));
                }
            }
            InputWait::NotWaiting { .. }
            | InputWait::Ticking { .. }
            | InputWait::Stopped { .. }
            | InputWait::Unknown { .. } => return None,
        }
    }
    match (reader, outside, asleep) {
        (None, None, None) => None,
        (None, None, Some((reason, timer))) => Some(InputWait::Sleeping { reason, timer }),
        // (A sleep beside a wait is no answer, as the members' own is not.)
        (_, _, Some(_)) => None,
        (None, Some((reason, idle_tick)), None) => Some(InputWait::Outside { reason, idle_tick }),
        (Some(_), Some((reason, _)), None) => Some(InputWait::NotWaiting { reason }),
        (Some(reader), None, None) => Some(InputWait::Waiting { reader: Some(reader) }),
    }
}

/// Whether processes `a` and `b` hold a pipe in common (either end), among the descriptors
/// `looks` has room for (at most [`WATCHED_LOOKED_AT`] of each); `false` when it cannot tell.
pub(super) fn shares_a_pipe(a: i32, b: i32, looks: &Looks) -> bool {
    let mut pipes: Vec<u64> = Vec::new();
    let _ = search_descriptors(a, looks, |_, target| {
        pipes.extend(bracketed(target, "pipe:"));
        None::<()>
    });
    !pipes.is_empty()
        && find_descriptor(b, looks, |_, target| {
            bracketed(target, "pipe:").filter(|inode| pipes.contains(inode))
        })
        .is_some()
}

/// The controlling terminal (`tty_nr`) of the first of `members` that has one.
pub(super) fn terminal_of(members: &[ProcStat]) -> Option<i32> {
    members.iter().map(|m| m.tty_nr).find(|&tty| tty != 0)
}

/// Whether process `pid` has terminal `tty` (a `tty_nr`) open, among the descriptors
/// `looks` has room for (at most [`WATCHED_LOOKED_AT`] of its own).
pub(super) fn holds_terminal(pid: i32, tty: i32, looks: &Looks) -> bool {
    find_descriptor(pid, looks, |path, target| {
        // (Named as a terminal first, the cheap look; the device from the cached metadata
        // alone, [`open_device`]: the program can swap a FUSE file onto the descriptor.)
        (is_terminal(target) && open_device(path).is_some_and(|rdev| tty_number(rdev) == tty))
            .then_some(())
    })
    .is_some()
}

/// The first answer `visit` gives for a descriptor of process `pid`, given its
/// `/proc/PID/fd/N` path and what that links to, among the descriptors `looks` has room
/// for (at most [`WATCHED_LOOKED_AT`] of its own).
pub(super) fn find_descriptor<T>(
    pid: i32,
    looks: &Looks,
    visit: impl FnMut(&str, &str) -> Option<T>,
) -> Option<T> {
    match search_descriptors(pid, looks, visit) {
        Search::Found(answer) => Some(answer),
        Search::Absent | Search::Unknown(_) => None,
    }
}

/// What [`search_descriptors`] found.
pub(super) enum Search<T> {
    /// The first answer `visit` gave.
    Found(T),
    /// No answer, every descriptor looked at (none, for a process gone).
    Absent,
    /// No answer among those looked at, but not all of them could be, and why: the directory
    /// (or a link in it) could not be read, or it held more than [`WATCHED_LOOKED_AT`], or
    /// `looks` had no room left.
    Unknown(RelayUnseen),
}

/// The first answer `visit` gives for a descriptor of process `pid`, given its
/// `/proc/PID/fd/N` path and what that links to, and whether all of them were looked at
/// when none gives one (see [`Search`]).
pub(super) fn search_descriptors<T>(
    pid: i32,
    looks: &Looks,
    mut visit: impl FnMut(&str, &str) -> Option<T>,
) -> Search<T> {
    use rustix::fs::{Mode, OFlags, RawDir};
    use std::os::fd::AsFd;
    let spent = Search::Unknown(RelayUnseen::BudgetSpent { budget: PROBE_DESCRIPTORS });
    if looks.spent() {
        return spent;
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = match rustix::fs::open(format!("/proc/{pid}/fd"), flags, Mode::empty()) {
        Ok(dir) => dir,
        Err(err) if is_gone(&err.into()) => return Search::Absent,
        Err(_) => return Search::Unknown(RelayUnseen::Unreadable),
    };
    // Read a few entries at a time: the kernel makes an entry for every descriptor
    // a read of the directory has room for, looked at or not (a thousand in the
    // standard library's 32 KiB, a millisecond a process).
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 512];
    let mut entries = RawDir::new(dir.as_fd(), &mut buf);
    let mut looked = 0;
    while let Some(entry) = entries.next() {
        let Ok(entry) = entry else { return Search::Unknown(RelayUnseen::Unreadable) };
        let name = entry.file_name().to_bytes();
        if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
            continue;
        }
        if looked == WATCHED_LOOKED_AT {
            return Search::Unknown(RelayUnseen::TooManyFiles { limit: WATCHED_LOOKED_AT });
        }
        if !looks.take(1) {
            return spent;
        }
        looked += 1;
        let path = format!("/proc/{pid}/fd/{}", String::from_utf8_lossy(name));
        // (A descriptor closed meanwhile is passed over; one that cannot be read, a security
        // module denying it, leaves the answer unknown.)
        let target = match fs::read_link(&path) {
            Ok(target) => target,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return Search::Unknown(RelayUnseen::Unreadable),
        };
        if let Some(answer) = visit(&path, &target.to_string_lossy()) {
            return Search::Found(answer);
        }
    }
    Search::Absent
}

/// The process that reads the terminal of group `pgrp` (its `members`, of session `sid`)
/// through a relay that waits for input ([`relay_reader`]): found among the session's
/// processes ([`relays`]), or, when none there waits, outside them, the one the probe's memo
/// remembers or finds ([`remembered_outside_relay`]).
pub(super) fn reader_through_relay(
    pgrp: i32,
    sid: i32,
    members: &[ProcStat],
    candidates: Option<&[i32]>,
    probe: Probe<'_>,
) -> Option<i32> {
    relays(sid, members, candidates, probe.looks)
        .into_iter()
        .find_map(|relay| relay_reader(relay, candidates, probe))
        .or_else(|| {
            let memo = probe.outside?;
            let relay = remembered_outside_relay(pgrp, sid, members, probe.looks, memo)?;
            relay_reader(relay, None, probe)
        })
}

/// Whether the relay `relay` (see [`relays`]) waits for input: it waits itself, and so
/// does every program it hosts, the foreground group of each terminal of a session it
/// started (tmux's panes: a shell at its prompt, an editor; not a build), of which there
/// is one at least (tmux starting its first pane does not wait yet). The answer is the
/// process that reads: the program on the one terminal it hosts (one pane in one window,
/// whose keys all go to it), or, when it hosts several, the relay (see [`judge_relay`]);
/// `None` when it does not wait.
/// Each relay is judged once a probe, and at most [`RELAYS_JUDGED`] of them: one met again
/// while it is judged hosts its own client, and does not wait for the user.
pub(super) fn relay_reader(
    relay: i32,
    candidates: Option<&[i32]>,
    probe: Probe<'_>,
) -> Option<i32> {
    {
        let judged = probe.looks.relays.borrow();
        if let Some(&(_, verdict)) = judged.iter().find(|(pid, _)| *pid == relay) {
            return verdict.flatten();
        }
        if judged.len() >= RELAYS_JUDGED {
            return None;
        }
    }
    probe.looks.relays.borrow_mut().push((relay, None));
    let verdict = judge_relay(relay, candidates, probe);
    if let Some(entry) = probe.looks.relays.borrow_mut().iter_mut().find(|(pid, _)| *pid == relay) {
        entry.1 = Some(verdict);
    }
    verdict
}

/// See [`relay_reader`]; at most [`procfs::HOSTED_GROUPS`] hosted groups a probe are looked
/// at. A hosted group that is busy and started since the last input (its leader did: a command
/// typed into a tmux pane, `sleep 3; echo done`, each `sleep` of a loop) is busy with that input:
/// its reason is kept in the probe's looks, and the client is busy with it (see [`group_wait`]),
/// not waiting on its sockets. A job that started before the input (a build in a window not shown)
/// keeps the relay from waiting, as any other. A hosted group in a sleep with more than
/// [`CLOCK_HORIZON`] left (`sleep 300` typed into a pane), beside others that wait for input or
/// sleep so too, keeps the relay from waiting, and when it started since the last input, or
/// none of the others waits, its sleep is kept in the probe's looks: the client sleeps with it
/// (see [`group_wait`]). A hosted group that redraws on a timer and reads no keys
/// ([`InputWait::Ticking`]: `watch` in a pane beside the one typed into) keeps no other from
/// waiting, unless it started since the last input (a loop typed into a pane, printing a line
/// a second: busy with the input, as a group at work is); when none waits, its reason is kept in the probe's looks, and the client ticks
/// with it. A relay that waits, hosting one terminal, reads for the program on it
/// (`vim` in tmux's one pane): that program is named the reader, and its terminal's modes are
/// the input's (a password prompt in the pane is one the keys go to). Of several (windows,
/// panes), `/proc` cannot tell which one gets the keys: the relay reads, as it does.
pub(super) fn judge_relay(relay: i32, candidates: Option<&[i32]>, probe: Probe<'_>) -> Option<i32> {
    let own = Probe { relay: true, relay_clock: probe.drawn_since_input, ..probe };
    let Some((InputWait::Waiting { .. }, threads)) = observe_process(relay, own) else {
        return None;
    };
    let live = processes(candidates, has_live_threads);
    let hosted =
        |session: i32| live.iter().any(|leader| leader.pid == session && leader.ppid == relay);
    let mut groups: Vec<(i32, i32)> = live
        .iter()
        .filter(|s| s.tty_nr != 0 && s.pgrp == s.tpgid && hosted(s.session))
        .map(|s| (s.pgrp, s.session))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    // Hosting no terminal, it reads for itself when it reads the terminal alone (a dialog a
    // daemon runs on it: `pinentry-curses`); a server that polls its sockets beside hosts its
    // first terminal soon (tmux starting its first pane), and does not wait yet.
    if groups.is_empty() {
        return reads_terminal_alone(relay, &threads, probe.looks).then_some(relay);
    }
    let mut waits = !groups.is_empty();
    // Whether a hosted group waits for input; one neither waiting nor asleep for long.
    let (mut one_waits, mut one_else) = (false, false);
    // The process that reads in the last hosted group that waits.
    let mut hosted_reader = None;
    // The hosted groups' sleep that ends soonest (see [`InputWait::Sleeping`]), with its
    // reason; whether one of the groups asleep so started since the last input.
    let mut asleep: Option<(String, std::time::Duration)> = None;
    let mut asleep_since_input = false;
    // Why a hosted group redraws on a timer (see [`InputWait::Ticking`]), the first one.
    let mut ticking: Option<String> = None;
    for &(pgrp, session) in &groups {
        let left = probe.looks.hosted.get();
        if left == 0 {
            return None;
        }
        probe.looks.hosted.set(left - 1);
        probe.looks.job_answered.set(false);
        let verdict = group_wait(pgrp, Some(session), candidates, hosted_probe(probe));
        // Busy or asleep with the input: the group started since, or a job of it did (neovim's
        // `:!cmd` in a pane).
        let by_input = || probe.looks.job_answered.get() || started_since_input(pgrp, probe);
        match verdict {
            InputWait::Waiting { reader } => (one_waits, hosted_reader) = (true, reader),
            InputWait::NotWaiting { reason } if by_input() => {
                let mut busy = probe.looks.busy_hosted.borrow_mut();
                busy.get_or_insert(format!("{reason} (in a terminal pid {relay} hosts)"));
                return None;
            }
            // A group the keys started that prints and sleeps on a timer (a loop typed into
            // a pane, printing a line a second) is busy with them, as one at work is.
            InputWait::Ticking { reason } if by_input() => {
                let mut busy = probe.looks.busy_hosted.borrow_mut();
                busy.get_or_insert(format!("{reason} (in a terminal pid {relay} hosts)"));
                return None;
            }
            // A monitor that sleeps between its frames and reads no keys (`watch` in a pane
            // beside the one typed into), started before the input, has shown what it shows:
            // it keeps no other group from waiting.
            InputWait::Ticking { reason } => {
                ticking.get_or_insert(reason);
            }
            InputWait::Sleeping { reason, timer } => {
                waits = false;
                asleep_since_input |= by_input();
                if asleep.as_ref().is_none_or(|(_, soonest)| timer < *soonest) {
                    asleep = Some((reason, timer));
                }
            }
            // (A group busy with the input may come after it.)
            _ if probe.since_input.is_some() => (waits, one_else) = (false, true),
            _ => return None,
        }
    }
    // Asleep beside programs waiting for keys, a sleep started before the input is no
    // answer to it: the keys may have gone to one of those, in the window shown.
    if let Some((reason, timer)) = asleep
        && !one_else
        && (asleep_since_input || !one_waits)
    {
        let reason = format!("{reason} (in a terminal pid {relay} hosts)");
        probe.looks.sleeping_hosted.borrow_mut().get_or_insert((reason, timer));
    }
    // Every hosted group redraws on a timer, none waits: the client ticks with them.
    if let Some(reason) = ticking.filter(|_| waits && !one_waits) {
        let reason = format!("{reason} (in a terminal pid {relay} hosts)");
        probe.looks.ticking_hosted.borrow_mut().get_or_insert(reason);
        return None;
    }
    // (Of the terminals it hosts, every one counts, whatever runs there: a window whose
    // program's foreground group ended, or one whose program finished and is kept, may be the
    // one shown, which gets the keys.)
    let one = || groups.len() == 1 && terminals_hosted(relay, candidates, probe.looks) == Ok(1);
    waits.then(|| hosted_reader.filter(|_| one()).unwrap_or(relay))
}

/// Whether process `pid`, whose threads (`threads`) all wait, reads the terminal with no other
/// descriptor: a thread blocked reading it, or polling it alone (see
/// [`waits_on_terminal_alone`]).
fn reads_terminal_alone(pid: i32, threads: &[ThreadObs], looks: &Looks) -> bool {
    threads.iter().any(|thread| {
        let Activity::Input(name) = &thread.activity else { return false };
        if is_read(name) {
            return true;
        }
        let base = format!("/proc/{pid}/task/{}", thread.tid);
        procfs::read_text(&format!("{base}/syscall"))
            .is_ok_and(|syscall| waits_on_terminal_alone(&base, name, &syscall, looks))
    })
}

/// What the programs the relays judged in this probe host make of their client when no
/// relay waits for input (see [`judge_relay`]): busy with the last input, or asleep for
/// longer than any default wait, or redrawing on a timer, unless the client's own `clock` is
/// about to go off. The answers are taken from the probe's looks.
pub(super) fn hosted_verdict(looks: &Looks, clock: bool) -> Option<InputWait> {
    let busy = looks.busy_hosted.borrow_mut().take();
    let asleep = looks.sleeping_hosted.borrow_mut().take();
    let ticking = looks.ticking_hosted.borrow_mut().take();
    match (busy, asleep, ticking) {
        (Some(reason), _, _) => Some(InputWait::NotWaiting { reason }),
        (None, Some((reason, timer)), _) if !clock => Some(InputWait::Sleeping { reason, timer }),
        (None, None, Some(reason)) if !clock => Some(InputWait::Ticking { reason }),
        (None, _, _) => None,
    }
}

/// Whether the leader of group `pgrp` started since the last input (see
/// [`TerminalSeen::since_input`](procfs::TerminalSeen::since_input)). Its start is in clock
/// ticks, rounded down: one started a tick or less before the input is taken to have started after
/// it.
pub(super) fn started_since_input(pgrp: i32, probe: Probe<'_>) -> bool {
    let Some(input_at) = probe.input_at else {
        return false;
    };
    procfs::read_stat(pgrp).ok().is_some_and(|stat| started_since(&stat, input_at))
}

/// A device number as `/proc/PID/stat` gives a controlling terminal's (`tty_nr`).
pub(super) fn tty_number(rdev: u64) -> i32 {
    let (major, minor) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    ((minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The read count before a key typed and each look for a wait for input look for the
    /// terminal's relays among the session's cgroup's processes: the group's members, just
    /// read, are not read again (each member's `stat` was read twice in one look).
    #[test]
    fn a_look_for_relays_reads_no_member_again() {
        let own = procfs::read_stat(std::process::id() as i32).unwrap();
        let member = ProcStat { tty_nr: 34816, ..own.clone() };
        let looks = Looks::new();
        let before = procfs::files::reads_by_this_thread();
        let found = relays(own.session, std::slice::from_ref(&member), Some(&[own.pid]), &looks);
        let after = procfs::files::reads_by_this_thread();
        assert!(found.is_empty());
        // (`after`'s own read counts `before`'s.)
        assert_eq!(after - before, 1, "the look read {} files", after - before - 1);
    }
}
