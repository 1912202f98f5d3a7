//! Descriptors no other process of the session holds: the self-pipes and eventfds of a
//! program's own event loop (gdb's), which no other program of the session can write to, so
//! that a poll of them beside the terminal is woken by the terminal or by the program itself
//! (see [`held_by_none_but`] for what is not looked through).

use super::*;

/// A descriptor that only its own process may hold: a pipe or an eventfd, which a process
/// gets by making it, from its parent, or handed over a socket, never by opening a name
/// (a named pipe is another kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Private {
    /// A pipe, by its inode (`pipe:[123]`): either end of it.
    Pipe(u64),
    /// An eventfd, by its `eventfd-id` (every eventfd links to the same `anon_inode`).
    EventFd(u64),
}

/// What descriptor `fd` of the thread at `base` (`/proc/PID/task/TID`) is, when it is a
/// pipe or an eventfd ([`Private`]); `None` for any other, or an eventfd the kernel does not
/// tell apart (no `eventfd-id` before Linux 6.0).
pub(super) fn private_of(base: &str, fd: u64) -> Option<Private> {
    let target = fs::read_link(format!("{base}/fd/{fd}")).ok()?;
    private_target(&target.to_string_lossy(), || read_fdinfo(&format!("{base}/fdinfo/{fd}")))
}

/// See [`private_of`]: the descriptor links to `target`, and `fdinfo` reads its `fdinfo`.
fn private_target(target: &str, fdinfo: impl FnOnce() -> Option<String>) -> Option<Private> {
    if let Some(inode) = bracketed(target, "pipe:") {
        return Some(Private::Pipe(inode));
    }
    if target != "anon_inode:[eventfd]" {
        return None;
    }
    eventfd_id(&fdinfo()?).map(Private::EventFd)
}

/// The `eventfd-id` an eventfd's `fdinfo` gives.
pub(super) fn eventfd_id(fdinfo: &str) -> Option<u64> {
    fdinfo.lines().find_map(|line| line.strip_prefix("eventfd-id:")?.trim().parse().ok())
}

/// Whether no process of `holders` but `pid` holds any of `held`. `holders` are the processes
/// that can: those the session started (the members of its cgroup, which holds those that left
/// the POSIX session too, or, without one, the processes of the POSIX session), the only ones
/// that can have inherited a descriptor of the session's programs. So a probe reads the
/// descriptors the session's processes hold (within `looks`'s bound), not the machine's, and
/// a process outside the session (another user's, one that is not dumpable, whose descriptors
/// `/proc` does not show) is never looked through. Left out: without a cgroup, a process that
/// left the session (`setsid`) holding one of the pipes; and a process outside that was
/// handed one over a socket or took it (`pidfd_getfd`), which a program does not do with the
/// self-pipe of its event loop. `false` when one of `holders` cannot be looked through, or
/// `looks` has no room left for its descriptors.
pub(super) fn held_by_none_but(pid: i32, held: &[Private], holders: &[i32], looks: &Looks) -> bool {
    holders.iter().filter(|&&other| other != pid).all(|&other| {
        let found = search_descriptors(other, looks, |path, target| {
            let fdinfo = || {
                let (process, fd) = path.rsplit_once("/fd/")?;
                read_fdinfo(&format!("{process}/fdinfo/{fd}"))
            };
            private_target(target, fdinfo).filter(|private| held.contains(private))
        });
        matches!(found, Search::Absent)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_and_eventfds_are_told_apart_and_nothing_else_is_private() {
        let no_info = || None;
        assert_eq!(private_target("pipe:[42]", no_info), Some(Private::Pipe(42)));
        let info = "pos:\t0\nflags:\t02004002\neventfd-count:                0\neventfd-id: 4\n";
        let fdinfo = || Some(info.to_owned());
        assert_eq!(private_target("anon_inode:[eventfd]", fdinfo), Some(Private::EventFd(4)));
        // An eventfd the kernel does not tell apart, a socket, a named pipe, a terminal.
        let old = || Some("pos:\t0\neventfd-count: 0\n".to_owned());
        assert_eq!(private_target("anon_inode:[eventfd]", old), None);
        for other in ["socket:[42]", "/tmp/fifo", "/dev/pts/3", "anon_inode:[eventpoll]"] {
            assert_eq!(private_target(other, || Some(info.to_owned())), None, "{other}");
        }
    }
}
