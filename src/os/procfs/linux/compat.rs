//! A thread in a 32-bit system call: on x86_64, a call made through `int $0x80` (every call
//! of a 32-bit program, the `sysenter` of its vDSO included, and any such call of a 64-bit
//! one) is numbered by i386's table, not this architecture's, and its `/proc/PID/syscall`
//! line does not say so.

use super::*;

/// The activity of system call `nr` of the thread at `base` (`/proc/PID/task/TID`), whose
/// `/proc/PID/syscall` line is `syscall`: [`classify_syscall`]'s reading, or for a 32-bit
/// call (i386's 0, `restart_syscall`, is x86_64's `read`; its 3, `read`, is `close`; its 7,
/// `waitpid`, is `poll`) [`classify_i386`]'s.
pub(super) fn classify(base: &str, syscall: &str, nr: i64) -> Option<Activity> {
    let activity = classify_syscall(nr)?;
    let known = !matches!(&activity, Activity::Other(name) if name.starts_with("system call "));
    if (known || i386_entry(nr).is_some()) && entered_by_int80(base, syscall) {
        return Some(classify_i386(nr, syscall));
    }
    Some(activity)
}

/// `(number, name, reading)` of the i386 calls told apart: `reading` is whether the call
/// reads (as [`classify_syscall`]'s `is_input`) where its arguments are laid out as
/// x86_64's (a descriptor, a `pollfd` array, a futex's operation), `None` where they are not
/// (a `timespec` or `timeval` of two 32-bit fields, where the readers of a timer would take
/// 64-bit ones): such a call is read as work rather than guessed at.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const I386_SYSCALLS: &[(i64, &str, Option<bool>)] = &[
    (0, "restart_syscall", None),
    (3, "read", Some(true)),
    // (`waitpid` is the kernel's `wait4` without its last argument.)
    (7, "wait4", Some(false)),
    (114, "wait4", Some(false)),
    (142, "_newselect", None),
    (162, "nanosleep", None),
    (168, "poll", Some(true)),
    (240, "futex", Some(false)),
    (267, "clock_nanosleep", None),
    (308, "pselect6", None),
    (309, "ppoll", None),
];

/// The entry of [`I386_SYSCALLS`] for `nr`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn i386_entry(nr: i64) -> Option<(&'static str, Option<bool>)> {
    I386_SYSCALLS.iter().find(|(n, ..)| *n == nr).map(|&(_, name, reading)| (name, reading))
}

/// The activity of i386 system call `nr` (arguments in `syscall`): a read, a `poll`, a
/// `wait4` (or `waitpid`) or an untimed `futex` as x86_64's are read; any other call, one
/// whose arguments are laid out otherwise (a timed `futex`, a sleep, `select`, `ppoll`, a
/// restart) included, is `32-bit NAME` or `32-bit system call N`: work.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn classify_i386(nr: i64, syscall: &str) -> Activity {
    let timed_futex = |name: &str| name == "futex" && syscall_arg(syscall, 3) != Some(0);
    match i386_entry(nr) {
        Some((name, Some(true))) => Activity::Input(name.into()),
        Some((name, Some(false))) if !timed_futex(name) => Activity::Other(name.into()),
        Some((name, _)) => Activity::Other(format!("32-bit {name}")),
        None => Activity::Other(format!("32-bit system call {nr}")),
    }
}

/// Whether the call in `syscall` entered the kernel through `int $0x80` (`cd 80`): the two
/// bytes before the address it returns to, the line's last field, read from the memory of
/// the thread at `base`. (A 32-bit `sysenter` returns behind the vDSO's `int $0x80`, and a
/// restarted call goes through it again.) `false` for a call [`int80_site`] rules out
/// without a read; `true` where the memory cannot be read though its syscall line could (the
/// thread exited or exec'd between the two reads): its stack and code where a 32-bit
/// program's are, its call is read through i386's table.
#[cfg(target_arch = "x86_64")]
fn entered_by_int80(base: &str, syscall: &str) -> bool {
    const INT80: [u8; 2] = [0xcd, 0x80];
    let Some(after) = int80_site(syscall) else { return false };
    let mut raw = [0u8; 2];
    read_memory(base, after, &mut raw).is_err() || raw == INT80
}

/// Where the `int $0x80` of the call in `syscall` would be (two bytes before its return
/// address), if it may be a 32-bit program's: both its stack pointer and its return address
/// below 4 GiB, as all of a 32-bit task's are. A 64-bit program's stack is far above (C's at
/// `0x7ff…`, Go's goroutines' at `0xc000…`), also where its code is below (a non-PIE or
/// static program, every Go binary built the default way): the probe reads no memory of it.
/// (A 64-bit program's own `int $0x80` is not told; a read its arguments would make is on no
/// open descriptor, see `read_elsewhere`.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn int80_site(syscall: &str) -> Option<u64> {
    let [sp, pc] = stack_and_return(syscall)?;
    let low = |address: u64| address <= u64::from(u32::MAX);
    (low(sp) && low(pc)).then(|| pc.checked_sub(2)).flatten()
}

/// (No 32-bit entry is told apart on other architectures.)
#[cfg(not(target_arch = "x86_64"))]
fn entered_by_int80(_base: &str, _syscall: &str) -> bool {
    false
}

/// The stack pointer and the address a blocked system call returns to: the last two of the
/// nine fields of a `/proc/PID/syscall` line (number, six arguments, stack pointer,
/// instruction pointer).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn stack_and_return(syscall: &str) -> Option<[u64; 2]> {
    let fields: Vec<&str> = syscall.split_ascii_whitespace().collect();
    let [.., sp, pc] = fields[..] else { return None };
    if fields.len() != 9 {
        return None;
    }
    let hex = |field: &str| u64::from_str_radix(field.strip_prefix("0x")?, 16).ok();
    Some([hex(sp)?, hex(pc)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_and_return_addresses_are_the_last_two_of_nine_fields() {
        // Read after an `int $0x80` nanosleep (162) was stopped and continued: i386's
        // restart_syscall (0), whose first argument is the timespec's address.
        let line =
            "0 0x404020 0x0 0x404020 0x1 0x7f0e5f6cba10 0x7ffe4b9b6260 0x7ffe4b9b6240 0x401173";
        assert_eq!(stack_and_return(line), Some([0x7ffe4b9b6240, 0x401173]));
        assert_eq!(stack_and_return("running"), None);
        assert_eq!(stack_and_return("-1 0x7ffe4b9b6240 0x401173"), None);
    }

    #[test]
    fn only_a_call_with_its_stack_and_return_below_4_gib_is_looked_at() {
        // A `gcc -m32` program's read, returning behind the vDSO's `int $0x80`.
        let i386 = "3 0x0 0x57e4d5b0 0x400 0x0 0x0 0x0 0xffb1c2a8 0xf7f4c579";
        assert_eq!(int80_site(i386), Some(0xf7f4c577));
        // A Go program's futex (its own code, below 4 GiB, on a goroutine's stack) and a
        // static C program's read (its own code, on the main stack): never read.
        let go = "202 0x5d4a88 0x80 0x0 0x0 0x0 0x0 0xc000047e78 0x4740a3";
        assert_eq!(int80_site(go), None);
        let static_c = "0 0x0 0x4c7300 0x400 0x0 0x0 0x0 0x7ffd8c0e1a18 0x41c2e2";
        assert_eq!(int80_site(static_c), None);
        // A PIE program's call into its C library, far above.
        let pie = "0 0x0 0x55d0c1a2b2a0 0x400 0x0 0x0 0x0 0x7ffd8c0e1a18 0x7f3a9c1147e2";
        assert_eq!(int80_site(pie), None);
    }

    #[test]
    fn i386_calls_are_read_by_i386_numbers_and_those_laid_out_otherwise_as_work() {
        let line = |nr: i64, timeout: u32| {
            format!("{nr} 0x0 0x80 0x0 {timeout:#x} 0x0 0x0 0xffb1c2a8 0xf7f4c579")
        };
        let read = |nr: i64| classify_i386(nr, &line(nr, 0));
        assert_eq!(read(3), Activity::Input("read".into()));
        assert_eq!(read(168), Activity::Input("poll".into()));
        assert_eq!(read(7), Activity::Other("wait4".into()));
        assert_eq!(read(114), Activity::Other("wait4".into()));
        assert_eq!(read(240), Activity::Other("futex".into()));
        let timed = classify_i386(240, &line(240, 0x57e4d5b0));
        assert_eq!(timed, Activity::Other("32-bit futex".into()));
        assert_eq!(read(0), Activity::Other("32-bit restart_syscall".into()));
        assert_eq!(read(162), Activity::Other("32-bit nanosleep".into()));
        assert_eq!(read(142), Activity::Other("32-bit _newselect".into()));
        assert_eq!(read(309), Activity::Other("32-bit ppoll".into()));
        assert_eq!(read(6), Activity::Other("32-bit system call 6".into()));
    }
}
