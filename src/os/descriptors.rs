//! The process's open descriptors: listed without allocating (so the code between fork and
//! exec can use it), marked close-on-exec or closed.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

/// Calls `f` with every open descriptor above 2, listed from `/proc/self/fd` (`/dev/fd`
/// elsewhere) with a no-allocation `RawDir`; where the list cannot be opened, with 3 to
/// 1023. Allocates nothing: safe between fork and exec.
pub(crate) fn each_above_2(mut f: impl FnMut(i32)) {
    use rustix::fs::{Mode, OFlags, RawDir};
    use std::mem::MaybeUninit;

    #[cfg(target_os = "linux")]
    let list = c"/proc/self/fd";
    #[cfg(not(target_os = "linux"))]
    let list = c"/dev/fd";
    let Ok(dir) =
        rustix::fs::open(list, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
    else {
        (3..1024).for_each(f);
        return;
    };
    let mut buf = [MaybeUninit::<u8>::uninit(); 2048];
    let mut entries = RawDir::new(dir.as_fd(), &mut buf);
    while let Some(Ok(entry)) = entries.next() {
        let name = entry.file_name().to_bytes();
        if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let fd = name
            .iter()
            .fold(0i32, |fd, digit| fd.saturating_mul(10).saturating_add(i32::from(digit - b'0')));
        if fd > 2 && fd != dir.as_raw_fd() {
            f(fd);
        }
    }
}

/// Closes every descriptor above 2 (a process that owns none of them yet: a server that
/// detached from the client that started it).
pub(crate) fn close_above_2() {
    let mut open = Vec::new();
    each_above_2(|fd| open.push(fd));
    for fd in open {
        // SAFETY: the caller owns none of these descriptors and uses none of them again.
        unsafe { rustix::io::close(fd) };
    }
}

/// Marks every descriptor above 2 close-on-exec, so nothing of the engine (or of the host
/// program embedding it) leaks into a program it starts. Runs between fork and exec: no
/// allocation.
pub(crate) fn mark_above_2_cloexec() {
    each_above_2(|fd| {
        // SAFETY: the descriptor number was just listed as open; a failed fcntl is harmless.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        if let Ok(flags) = rustix::io::fcntl_getfd(fd) {
            let _ = rustix::io::fcntl_setfd(fd, flags | rustix::io::FdFlags::CLOEXEC);
        }
    });
}
