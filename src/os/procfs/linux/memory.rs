//! Reads of a thread's memory, through `/proc/PID/task/TID/mem`: a poll's array, a select's
//! sets, a timer's `timespec`, the instruction before a call's return address.

use std::os::unix::fs::FileExt;

use super::bounded::{pid_of, within_bound};

/// Fills `buf` from address `address` of the memory of the thread at `base`
/// (`/proc/PID/task/TID`): an open, one read and a close, on a helper thread waited for
/// within a bound (the program can make the read wait for ever: see [`super::bounded`]). An
/// error where the file cannot be opened (another user's process, one that is not dumpable),
/// the range is not mapped, or the read did not end within the bound.
pub(super) fn read_memory(base: &str, address: u64, buf: &mut [u8]) -> std::io::Result<()> {
    let path = format!("{base}/mem");
    let len = buf.len();
    let read = move || {
        let mut raw = vec![0u8; len];
        std::fs::File::open(path)?.read_exact_at(&mut raw, address).map(|()| raw)
    };
    let raw = within_bound(pid_of(base), read).ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::TimedOut, "the memory read did not end in time")
    })??;
    buf.copy_from_slice(&raw);
    Ok(())
}
