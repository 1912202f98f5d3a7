//! Signalling every process of a session: its POSIX session's process groups (found through
//! its cgroup when it has one, else by a scan of `/proc`), its cgroup, and the processes of
//! its POSIX session that left its cgroup (found by `reactor::outside_scan`).

use rustix::process::{Pid, Signal};

use crate::os::cgroup::Cgroup;
use crate::os::procfs;

/// Sends `signal` to one process.
pub(crate) fn kill(pid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// SIGKILL to every process of a session, at once (its engine is going away).
pub(crate) fn kill_everything(sid: i32, cgroup: Option<&Cgroup>) {
    signal_session(sid, cgroup, true, &[Signal::CONT, Signal::KILL]);
    if let Some(cgroup) = cgroup {
        cgroup.kill();
    }
}

/// Sends `signals` to every process group of the POSIX session led by `sid`; to the group
/// `sid` even when none of its processes is found if `leader`: only while the session's
/// program holds the number (else it may be given to another process, which leads a group
/// of that number).
pub(crate) fn signal_session(sid: i32, cgroup: Option<&Cgroup>, leader: bool, signals: &[Signal]) {
    let processes: Vec<procfs::ProcStat> = match cgroup {
        Some(cgroup) => cgroup
            .pids()
            .into_iter()
            .filter_map(|pid| procfs::read_stat(pid).ok())
            .filter(|s| s.session == sid)
            .collect(),
        None => procfs::session_processes(sid),
    };
    let mut groups = procfs::process_groups(&processes);
    if leader && !groups.contains(&sid) {
        groups.push(sid);
    }
    signal_each_group(&groups, signals);
}

/// Sends `signals` to the process groups of `processes`, and to each of them.
pub(crate) fn signal_groups(processes: &[procfs::ProcStat], signals: &[Signal]) {
    signal_each_group(&procfs::process_groups(processes), signals);
    for signal in signals {
        for process in processes {
            kill(process.pid, *signal);
        }
    }
}

/// Sends `signals` to each process group of `groups`.
fn signal_each_group(groups: &[i32], signals: &[Signal]) {
    for signal in signals {
        for group in groups {
            if let Some(group) = Pid::from_raw(*group) {
                let _ = rustix::process::kill_process_group(group, *signal);
            }
        }
    }
}
