//! What can signal a process of its own accord, which `/proc` shows: its POSIX timers, and its
//! children when it catches `SIGCHLD`. A self-pipe's purpose is to be written by a signal
//! handler (gdb's event loop learns of its inferior so), so a poll of one beside the terminal
//! is woken by such a signal as by a key.
//!
//! Not shown, and so not told: a timer of `alarm` or `setitimer(ITIMER_REAL)`, which `/proc`
//! does not give (`itrealvalue` in `stat` is always 0 since Linux 2.6.17, and neither
//! `status` nor `timers` lists it); nor a signal another process sends (`kill`), which comes
//! from outside as a key does.

use super::*;

/// `SIGCHLD` on Linux.
const SIGCHLD: u32 = 17;

/// Whether process `pid` may be signalled by a clock or a child of its own: it has a POSIX
/// timer (`timer_create`, listed in `/proc/PID/timers`) that notifies it by a signal, armed or
/// not (`/proc` does not say which), or it catches `SIGCHLD` (`SigCgt` in its `status`) and has
/// a live child that is not stopped by it tracing it (a debugger's program at a breakpoint runs
/// again only when the debugger sets it running). `true` where that cannot be read; a kernel
/// without `/proc/PID/timers` (built without `CONFIG_CHECKPOINT_RESTORE`) shows no timer, as
/// one without `/proc/PID/task/TID/children` shows no child: there, as for `alarm`, the rule
/// cannot tell (the REPLs' prompts are not all taken for busy for want of the file).
pub(super) fn may_signal_itself(pid: i32, candidates: Option<&[i32]>) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/timers")) {
        Ok(timers) if signalling_timer(&timers) => return true,
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return true,
    }
    let Ok(status) = crate::os::procfs::read_status(&format!("/proc/{pid}/status")) else {
        return true;
    };
    let Some(caught) = caught_signals(&status) else { return true };
    caught & (1 << (SIGCHLD - 1)) != 0
        && children(pid, candidates)
            .iter()
            .any(|child| !(child.state == 't' && stopped_by_tracer(child.pid, pid)))
}

/// Whether `/proc/PID/timers` text `timers` lists a timer that notifies by a signal (`notify:
/// signal/pid.N` or `thread/tid.N`; `none/pid.N` notifies no one).
pub(super) fn signalling_timer(timers: &str) -> bool {
    // (`none/pid.42`: the kind, then whom it would notify.)
    timers
        .lines()
        .filter_map(|line| line.strip_prefix("notify:"))
        .any(|how| how.trim().split('/').next() != Some("none"))
}

/// The signals a process catches, as its `status` text gives them (`SigCgt`, a hexadecimal
/// mask, signal N at bit N - 1).
pub(super) fn caught_signals(status: &str) -> Option<u64> {
    let mask = status.lines().find_map(|line| line.strip_prefix("SigCgt:"))?;
    u64::from_str_radix(mask.trim(), 16).ok()
}

/// Whether a process's `status` text shows the dispositions of a shell that does job
/// control: `SIGTSTP` (20) and `SIGTTOU` (22) ignored (`SigIgn`), `SIGTTIN` (21) ignored or
/// caught (fish catches it, to send it to itself). A program run with the default
/// dispositions, a shell running a script, has none ignored.
pub(crate) fn ignores_job_control_signals(status: &str) -> bool {
    const TSTP_TTOU: u64 = (1 << 19) | (1 << 21);
    const TTIN: u64 = 1 << 20;
    let mask = |field: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
    };
    let (Some(ignored), caught) = (mask("SigIgn:"), mask("SigCgt:").unwrap_or(0)) else {
        return false;
    };
    ignored & TSTP_TTOU == TSTP_TTOU && (ignored | caught) & TTIN != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_that_signal_and_caught_signals_are_read() {
        let timer = "ID: 0\nsignal: 14/0000000000000000\nnotify: signal/pid.42\nClockID: 1\n";
        assert!(signalling_timer(timer));
        assert!(signalling_timer("ID: 1\nsignal: 34/00\nnotify: thread/tid.43\nClockID: 0\n"));
        assert!(!signalling_timer("ID: 2\nsignal: 0/00\nnotify: none/pid.42\nClockID: 1\n"));
        assert!(!signalling_timer("ID: 0\nsignal: 14/00\nnotify: none/pid.42\nClockID: 1\n"));
        assert!(!signalling_timer(""));
        let status = "Name:\tgdb\nSigBlk:\t0000000000000000\nSigCgt:\t0000000180014a07\n";
        assert_eq!(caught_signals(status), Some(0x1_8001_4a07));
        assert!(caught_signals(status).unwrap() & (1 << (SIGCHLD - 1)) != 0);
        assert_eq!(caught_signals("Name:\tx\n"), None);
    }

    /// An interactive bash's `SigIgn` (read at its prompt) and one running a script's.
    #[test]
    fn a_shell_doing_job_control_ignores_its_signals() {
        assert!(ignores_job_control_signals("Name:\tbash\nSigIgn:\t0000000080384004\n"));
        assert!(!ignores_job_control_signals("Name:\tbash\nSigIgn:\t0000000080000004\n"));
        assert!(!ignores_job_control_signals("Name:\tbash\n"));
        // fish at its prompt: TSTP and TTOU ignored, TTIN caught.
        let fish = "Name:\tfish\nSigIgn:\t0000000000281000\nSigCgt:\t0000000000100002\n";
        assert!(ignores_job_control_signals(fish));
        let ttin_default = "Name:\tx\nSigIgn:\t0000000000281000\nSigCgt:\t0000000000000002\n";
        assert!(!ignores_job_control_signals(ttin_default));
    }
}
