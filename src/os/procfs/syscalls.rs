//! Wait channels and system call numbers: which ones read or poll.

use super::*;

/// Kernel wait channels that indicate a terminal read or a poll-family
/// wait. `pipe_read`/`anon_pipe_read` are deliberately absent: a pipe is not
/// terminal input (a `read` syscall on a pipe is still recognised through
/// `/proc/PID/syscall`).
pub(super) const INPUT_WCHANS: &[&str] = &[
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
pub(super) fn classify_wchan(raw: &str) -> Option<Activity> {
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
pub(super) enum SyscallField {
    /// The task is running.
    Running,
    /// Blocked in the kernel, but not in a system call (`-1`).
    NotInSyscall,
    /// Blocked in this system call number.
    Nr(i64),
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(super) fn parse_syscall(text: &str) -> Option<SyscallField> {
    match text.split_ascii_whitespace().next()? {
        "running" => Some(SyscallField::Running),
        "-1" => Some(SyscallField::NotInSyscall),
        n => n.parse::<i64>().ok().map(SyscallField::Nr),
    }
}

/// `(number, name, is_input)` for the current architecture, or `None` where
/// the numbers are not known (then only `wchan` is used).
#[cfg(target_arch = "x86_64")]
pub(super) const SYSCALLS: Option<&[(i64, &str, bool)]> = Some(&[
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
    (219, "restart_syscall", false),
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
pub(super) const SYSCALLS: Option<&[(i64, &str, bool)]> = Some(&[
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
    (128, "restart_syscall", false),
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
pub(super) const SYSCALLS: Option<&[(i64, &str, bool)]> = None;

/// Classifies a system call number, or `None` if this architecture's
/// numbers are unknown.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(super) fn classify_syscall(nr: i64) -> Option<Activity> {
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
