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
    let raw = within_bound(pid_of(base), read).map_err(|refused| {
        let why = format!("the memory read was refused ({refused:?})");
        std::io::Error::new(std::io::ErrorKind::TimedOut, why)
    })??;
    buf.copy_from_slice(&raw);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::stalled_fuse::StalledFuse;
    use super::*;
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    use std::time::Duration;

    /// Maps the file named by its argument (never touching it), prints the mapping's address
    /// and waits for the end of its standard input.
    const MAPPER: &str = "import ctypes, os, sys\n\
        libc = ctypes.CDLL(None)\n\
        libc.mmap.restype = ctypes.c_void_p\n\
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, \
        ctypes.c_int, ctypes.c_long]\n\
        print(libc.mmap(None, 4096, 1, 2, os.open(sys.argv[1], os.O_RDONLY), 0), flush=True)\n\
        sys.stdin.read()\n";

    /// A page of a file on a FUSE file system whose server never answers ([`StalledFuse`]),
    /// mapped by a process, fails to be read within the bound: it waited until the server
    /// died (7.0 s, then `EIO`, with the server killed by hand).
    #[test]
    fn a_page_of_a_file_on_a_stalled_file_system_is_not_waited_for() {
        let Some(fuse) = StalledFuse::mount("fuse-mem") else { return };
        let mut mapper = Command::new("python3")
            .args(["-c", MAPPER])
            .arg(fuse.mnt.join("file"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut said = String::new();
        std::io::BufReader::new(mapper.stdout.take().unwrap()).read_line(&mut said).unwrap();
        let address: u64 = said.trim().parse().unwrap();
        let (sender, read) = crossbeam_channel::bounded(1);
        let base = format!("/proc/{}", mapper.id());
        std::thread::spawn(move || sender.send(read_memory(&base, address, &mut [0u8; 16])));
        let answer = read.recv_timeout(Duration::from_secs(5));
        let unmounted = fuse.end();
        drop(mapper.stdin.take());
        mapper.wait().unwrap();
        let answer = answer.expect("the read ends within 5 s");
        let refused = answer.as_ref().map_err(std::io::Error::kind);
        assert_eq!(refused, Err(std::io::ErrorKind::TimedOut), "refused by the bound: {answer:?}");
        assert!(unmounted);
    }
}
