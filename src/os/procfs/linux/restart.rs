//! A system call the kernel goes on with after a stop: `restart_syscall`, and which call it
//! restarts.
//!
//! A `poll`, a `nanosleep`, a relative `clock_nanosleep` or a timed `futex` wait interrupted
//! by a stop (Ctrl-Z, then `fg`; a debugger's breakpoint or Ctrl-C, then `continue`) is not
//! entered again under its own number: the kernel finishes it through `restart_syscall`,
//! whose `/proc/PID/syscall` line keeps the arguments of the call it restarts but not its
//! name. The thread's wait channel and those arguments tell the call.

use super::*;
use crate::os::procfs;

/// The name [`classify_syscall`] gives the restart.
pub(super) const RESTART: &str = "restart_syscall";

/// Wait channels of a sleep restarted through `restart_syscall`: the entry of the system
/// call, the first function on its stack that is not one of the scheduler's (`do_nanosleep`
/// and `hrtimer_nanosleep_restart` are; `hrtimer_nanosleep`, a sleep's own channel, is not
/// on a restart's stack). Best-effort, the channels seen on 6.x kernels: a kernel that shows
/// another (arm64's with `invoke_syscall` inlined, `el0_svc_common`), like a poll whose
/// `poll_schedule_timeout` is inlined (`do_poll`) or a relative sleep on `CLOCK_TAI`, is
/// not told, and the restart reads as work, as before this reading.
const SLEEP_CHANNELS: &[&str] = &[
    "do_syscall_64",
    "__x64_sys_restart_syscall",
    "__arm64_sys_restart_syscall",
    "__do_sys_restart_syscall",
    "invoke_syscall",
];

/// `activity`, or, when it is the restart, the activity of the call it restarts, read from
/// the wait channel of the thread at `base` (`/proc/PID/task/TID`) and the arguments in
/// `syscall`; the restart itself when that cannot be told.
pub(super) fn resolved(base: &str, syscall: &str, activity: Activity) -> Activity {
    // (Read now, never from the look's examination: the channel is to be read after the
    // arguments, and `syscall` again to see whether it changed since they were read.)
    let read = |file: &str| procfs::read_text_now(&format!("{base}/{file}")).ok();
    resolved_by(read, syscall, activity)
}

/// [`resolved`], with the thread's files read by `read` (`wchan`, `syscall`).
fn resolved_by(
    read: impl Fn(&str) -> Option<String>,
    syscall: &str,
    activity: Activity,
) -> Activity {
    if !matches!(&activity, Activity::Other(name) if name == RESTART) {
        return activity;
    }
    let wchan = read("wchan");
    // (The channel is read after the arguments: the restarted call may have ended and the
    // thread blocked in another meanwhile, whose channel would tell the old arguments for
    // its call's. Told only while the line is unchanged.)
    let told = restarted(wchan.as_deref(), syscall);
    if read("syscall").as_deref() != Some(syscall) {
        return activity;
    }
    told.unwrap_or(activity)
}

/// The call `restart_syscall` goes on with, by the wait channel `wchan` and the arguments
/// in `syscall`: `poll` (the one poll-family call restarted so), a `futex` wait, or a
/// `clock_nanosleep` (on the realtime, monotonic or boottime clock) or `nanosleep`, told by
/// their arguments' layout. `None` for any other.
pub(super) fn restarted(wchan: Option<&str>, syscall: &str) -> Option<Activity> {
    let channel = match classify_wchan(wchan?)? {
        Activity::Input(_) => return Some(Activity::Input("poll".into())),
        Activity::Other(channel) => channel,
        _ => return None,
    };
    if channel.starts_with("futex") {
        return Some(Activity::Other("futex".into()));
    }
    if !SLEEP_CHANNELS.contains(&channel.as_str()) {
        return None;
    }
    let arg = |n| syscall_arg(syscall, n);
    // clock_nanosleep(clock, flags, request, remain); nanosleep(request, remain). A pointer
    // is never below the first page; a clock and the flags always are.
    let user = |address: u64| address >= 4096;
    let name = match (arg(0)?, arg(1)?) {
        (0 | 1 | 7, 0 | 1) if user(arg(2)?) => "clock_nanosleep",
        (request, remain) if user(request) && (remain == 0 || user(remain)) => "nanosleep",
        _ => return None,
    };
    Some(Activity::Other(name.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_channel_read_after_the_call_changed_tells_nothing() {
        let restart = || Activity::Other(RESTART.into());
        // A raw nanosleep's restart, whose second argument (the remainder's address) would
        // be read as poll's count of descriptors.
        let nap = "219 0x7ffc26abe60 0x7ffc26abea0 0x0 0x0 0x0 0x0 0x7ffcc26abe48 0x7f\n";
        let poll = "7 0x7f0d8334c150 0x1 0xffffffff 0x1 0x0 0x0 0x7ffd 0x7f\n";
        let channel = "poll_schedule_timeout.constprop.0";
        let reading = |line: &'static str| {
            move |file: &str| Some(if file == "wchan" { channel } else { line }.to_string())
        };
        // Ended and blocked in a poll between the two reads: still the restart.
        assert_eq!(resolved_by(reading(poll), nap, restart()), restart());
        // Unchanged: told by the channel.
        let told = resolved_by(reading(nap), nap, restart());
        assert_eq!(told, Activity::Input("poll".into()));
        // Another call is left as it is, with no look.
        let write = Activity::Other("write".into());
        assert_eq!(resolved_by(|_: &str| None, nap, write.clone()), write);
    }

    /// The second reading of `syscall`, made to see whether the call changed, is read from
    /// the file within an examination too (one served from the examination's first reading
    /// was the same line always: a raw nanosleep's restart, ended and blocked in a poll
    /// between the two reads, read as a poll with the sleep's arguments).
    #[test]
    fn a_call_changed_within_an_examination_is_seen_changed() {
        let base = std::env::temp_dir().join(format!("termloom-restart-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let nap = "219 0x7ffc26abe60 0x7ffc26abea0 0x0 0x0 0x0 0x0 0x7ffcc26abe48 0x7f\n";
        let poll = "7 0x7f0d8334c150 0x1 0xffffffff 0x1 0x0 0x0 0x7ffd 0x7f\n";
        std::fs::write(base.join("wchan"), "poll_schedule_timeout.constprop.0").unwrap();
        std::fs::write(base.join("syscall"), nap).unwrap();
        let dir = base.to_str().unwrap();
        let restart = || Activity::Other(RESTART.into());
        let activity = procfs::examine(|| {
            let first = procfs::read_text(&format!("{dir}/syscall")).unwrap();
            assert_eq!(first, nap);
            std::fs::write(base.join("syscall"), poll).unwrap();
            resolved(dir, &first, restart())
        });
        std::fs::remove_dir_all(&base).unwrap();
        assert_eq!(activity, restart(), "changed between the reads: still the restart");
    }

    #[test]
    fn a_restarted_call_is_told_by_its_wait_channel_and_arguments() {
        let other = |name: &str| Some(Activity::Other(name.into()));
        // Read after `sleep 600` (glibc's clock_nanosleep) was stopped and continued.
        let sleep = "219 0x0 0x0 0x7ffcc26abe60 0x7ffcc26abea0 0x0 0x0 0x7ffcc26abe48 0x7f";
        assert_eq!(restarted(Some("do_syscall_64"), sleep), other("clock_nanosleep"));
        // Read after a raw nanosleep(2) was stopped and continued (its channel before the
        // stop, under its own number, is hrtimer_nanosleep).
        let nanosleep = "219 0x7f381b0b5960 0x0 0x7f381b1e8bc0 0x560c2dd9a490 0x0 0x6 0x7ffd 0x7f";
        assert_eq!(restarted(Some("do_syscall_64"), nanosleep), other("nanosleep"));
        assert_eq!(restarted(Some("hrtimer_nanosleep"), nanosleep), None);
        let poll = "219 0x7f0d8334c150 0x1 0xffffffff 0x1 0x0 0x0 0x7ffd 0x7f";
        assert_eq!(
            restarted(Some("poll_schedule_timeout.constprop.0"), poll),
            Some(Activity::Input("poll".into()))
        );
        let futex = "219 0x5593e27155c0 0x89 0x0 0x7ffe2ddb98d0 0x0 0x0 0x7ffe 0x7f";
        assert_eq!(restarted(Some("futex_do_wait"), futex), other("futex"));
        // A CPU-time clock, a channel of no sleep, a hidden channel: not told.
        let cpu_clock = "219 0x2 0x0 0x7ffcc26abe60 0x0 0x0 0x0 0x7ffcc26abe48 0x7f";
        assert_eq!(restarted(Some("do_syscall_64"), cpu_clock), None);
        assert_eq!(restarted(Some("pipe_read"), sleep), None);
        assert_eq!(restarted(Some("0"), sleep), None);
        assert_eq!(restarted(None, sleep), None);
    }
}
