//! Reads of a thread's memory, through `/proc/PID/task/TID/mem`: a poll's array, a select's
//! sets, a timer's `timespec`, the instruction before a call's return address.

use std::os::unix::fs::FileExt;

/// Fills `buf` from address `address` of the memory of the thread at `base`
/// (`/proc/PID/task/TID`): an open, one read and a close. An error where the file cannot be
/// opened (another user's process, one that is not dumpable) or the range is not mapped.
pub(super) fn read_memory(base: &str, address: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::fs::File::open(format!("{base}/mem"))?.read_exact_at(buf, address)
}
