//! A thread in a 32-bit system call: on x86_64, a call made through `int $0x80` (every call
//! of a 32-bit program, the `sysenter` of its vDSO included, and any such call of a 64-bit
//! one) is numbered by i386's table, not this architecture's, and its `/proc/PID/syscall`
//! line does not say so.

use super::*;

/// The activity of system call `nr` of the thread at `base` (`/proc/PID/task/TID`), whose
/// `/proc/PID/syscall` line is `syscall`: [`classify_syscall`]'s reading, or for a 32-bit
/// call (i386's 0, `restart_syscall`, is x86_64's `read`; its 7, `waitpid`, is `poll`)
/// `32-bit system call N`, read as work like any call this table does not know.
pub(super) fn classify(base: &str, syscall: &str, nr: i64) -> Option<Activity> {
    let activity = classify_syscall(nr)?;
    let known = !matches!(&activity, Activity::Other(name) if name.starts_with("system call "));
    if known && entered_by_int80(base, syscall) {
        return Some(Activity::Other(format!("32-bit system call {nr}")));
    }
    Some(activity)
}

/// Whether the call in `syscall` entered the kernel through `int $0x80` (`cd 80`): the two
/// bytes before the address it returns to, the line's last field, read from the memory of
/// the thread at `base`. (A 32-bit `sysenter` returns behind the vDSO's `int $0x80`, and a
/// restarted call goes through it again.) `false` where that cannot be read. Only an
/// address below 4 GiB is read (a 32-bit program's are all there; a 64-bit one's calls
/// return into its C library, mapped far above, but a non-PIE program's own code is there):
/// the probe's common case costs no read of memory.
#[cfg(target_arch = "x86_64")]
fn entered_by_int80(base: &str, syscall: &str) -> bool {
    use std::os::unix::fs::FileExt;
    const INT80: [u8; 2] = [0xcd, 0x80];
    let Some(after) = return_address(syscall)
        .filter(|&pc| pc <= u64::from(u32::MAX))
        .and_then(|pc| pc.checked_sub(2))
    else {
        return false;
    };
    let mut raw = [0u8; 2];
    fs::File::open(format!("{base}/mem")).and_then(|mem| mem.read_exact_at(&mut raw, after)).is_ok()
        && raw == INT80
}

/// (No 32-bit entry is told apart on other architectures.)
#[cfg(not(target_arch = "x86_64"))]
fn entered_by_int80(_base: &str, _syscall: &str) -> bool {
    false
}

/// The address a blocked system call returns to: the last of the nine fields of a
/// `/proc/PID/syscall` line (number, six arguments, stack pointer, instruction pointer).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn return_address(syscall: &str) -> Option<u64> {
    let fields: Vec<&str> = syscall.split_ascii_whitespace().collect();
    let [.., pc] = fields[..] else { return None };
    if fields.len() != 9 {
        return None;
    }
    u64::from_str_radix(pc.strip_prefix("0x")?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_return_address_is_the_last_of_nine_fields() {
        // Read after an `int $0x80` nanosleep (162) was stopped and continued: i386's
        // restart_syscall (0), whose first argument is the timespec's address.
        let line =
            "0 0x404020 0x0 0x404020 0x1 0x7f0e5f6cba10 0x7ffe4b9b6260 0x7ffe4b9b6240 0x401173";
        assert_eq!(return_address(line), Some(0x401173));
        assert_eq!(return_address("running"), None);
        assert_eq!(return_address("-1 0x7ffe4b9b6240 0x401173"), None);
    }
}
