//! Signalling every process of a session: its POSIX session's process groups (found through
//! its cgroup when it has one, else by a scan of `/proc`) and its cgroup.

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
    signal_session(sid, cgroup, &[Signal::CONT, Signal::KILL]);
    if let Some(cgroup) = cgroup {
        cgroup.kill();
    }
}

/// Sends `signals` to every process group of the POSIX session led by `sid`.
pub(crate) fn signal_session(sid: i32, cgroup: Option<&Cgroup>, signals: &[Signal]) {
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
