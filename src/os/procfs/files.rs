//! Reading `/proc` files in as few system calls as the kernel allows.
//!
//! A file of one record (`/proc/PID/stat`, `comm`, `io`, `syscall`, `wchan`, `status`: the
//! kernel writes it whole in one go) is read with one `read` into a buffer on the stack: a
//! read shorter than the buffer is its end. `std::fs::read` also asks for the file's size
//! (`statx`, 0 for every `/proc` file) and reads again to see the end: five system calls
//! where three do.
//!
//! The files the keystroke path reads every time (the foreground group's `io`, for its read
//! count before each write, and its leader's `comm`, for the status of the reply) are kept
//! open instead, a few per thread ([`KEPT`]), and read again at offset 0 with `pread`: one
//! system call. A kept file stays the process's it was opened for: once that process is
//! reaped its reads fail (`ESRCH`), even if its pid was given to another, and the file is
//! then opened again by its path, as an unkept read would.

use std::cell::RefCell;
use std::io;
use std::os::fd::OwnedFd;

/// The buffer a one-record file is read into: more than any of them holds but `status`.
const RECORD: usize = 4096;

/// The files kept open per thread; the oldest is closed for a new one.
const KEPT: usize = 16;

/// A file of a process that is kept open for the next read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// `/proc/PID/io`.
    Io,
    /// `/proc/PID/comm`.
    Comm,
}

impl Kept {
    fn path(self, pid: i32) -> String {
        match self {
            Kept::Io => format!("/proc/{pid}/io"),
            Kept::Comm => format!("/proc/{pid}/comm"),
        }
    }
}

thread_local! {
    /// The files kept open on this thread, the least recently read first.
    static FILES: RefCell<Vec<(i32, Kept, OwnedFd)>> = const { RefCell::new(Vec::new()) };
}

fn open(path: &str) -> io::Result<OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    Ok(rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?)
}

/// Reads the one-record file open as `fd` from its start and gives its bytes to `parse`.
fn read_from_start<R>(fd: &OwnedFd, parse: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
    // (Not zeroed: the kernel writes what is read, and only that is looked at.)
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); RECORD];
    let (read, _) = rustix::io::pread(fd, &mut buf, 0)?;
    if read.len() < RECORD {
        return Ok(parse(read));
    }
    // Longer than the buffer: read on to the end.
    Ok(parse(&read_on(fd, read.to_vec())?))
}

/// `all`, the first bytes of the file open as `fd`, and the rest of it read on from where
/// they end with `pread` until a read returns nothing.
fn read_on(fd: &OwnedFd, mut all: Vec<u8>) -> io::Result<Vec<u8>> {
    // (Not zeroed: the kernel writes what is read, and only that is looked at.)
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); RECORD];
    loop {
        let (read, _) = rustix::io::pread(fd, &mut buf, all.len() as u64)?;
        if read.is_empty() {
            return Ok(all);
        }
        all.extend_from_slice(read);
    }
}

/// Reads `path`, a file of one record, and gives its bytes to `parse`: open, one read, close;
/// within an examination, only at its first reading there (see [`super::examination`]).
pub(crate) fn read_record<R>(path: &str, parse: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
    match super::examination::file(path, || read_from_start(&open(path)?, <[u8]>::to_vec)) {
        Some(bytes) => Ok(parse(&bytes?)),
        None => read_from_start(&open(path)?, parse),
    }
}

/// The most bytes one record of a listing of pids takes: a pid of up to seven digits (at
/// most 4,194,304, the kernel's `PID_MAX_LIMIT`) and its separator (`cgroup.procs` prints
/// `"%d\n"`, a `children` file `"%d "`).
const PID_RECORD: usize = 8;

/// The whole of a listing of pids open as `fd` (`cgroup.procs`, `/proc/PID/task/TID/children`),
/// read from its start with `pread`: one system call while it holds up to 4,088 bytes.
///
/// Such a listing is a `seq_file` of many records, where a read shorter than asked is not
/// its end: the kernel fills a read from a buffer of its own, a page at least (4,096
/// bytes), with whole records, and a record that does not fit there waits for the next read
/// (a first read of `/proc/self/maps` gave 3,930 bytes of 4,096 asked, and the second
/// 4,062 more). A read of 4,096 bytes asked that ends short of the listing's end so leaves
/// less than a record of the kernel's buffer unused: more than `4,096 - PID_RECORD` bytes.
/// A first read of no more than that is the whole listing; a longer one is read on until a
/// read returns nothing.
pub(crate) fn read_pids_from_start(fd: &OwnedFd) -> io::Result<Vec<u8>> {
    // (Not zeroed: the kernel writes what is read, and only that is looked at.)
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); RECORD];
    let (read, _) = rustix::io::pread(fd, &mut buf, 0)?;
    let all = read.to_vec();
    if all.len() <= RECORD - PID_RECORD {
        return Ok(all);
    }
    read_on(fd, all)
}

/// The pids listed in `path`, a listing of pids (a `children` file), read as
/// [`read_pids_from_start`] reads it: open, one read while it is short, close; within an
/// examination, only at its first reading there.
pub(crate) fn read_pids(path: &str) -> io::Result<Vec<i32>> {
    let parse = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.split_ascii_whitespace().filter_map(|pid| pid.parse().ok()).collect()
    };
    match super::examination::file(path, || read_pids_from_start(&open(path)?)) {
        Some(bytes) => Ok(parse(&bytes?)),
        None => Ok(parse(&read_pids_from_start(&open(path)?)?)),
    }
}

/// The bytes of `path`, a file of one record (`stat`), as [`read_record`] reads them.
pub(crate) fn read_bytes(path: &str) -> io::Result<Vec<u8>> {
    read_record(path, <[u8]>::to_vec)
}

/// The text of `path`, a file of one record (`syscall`, `wchan`; `status` through
/// [`read_status`]), as [`read_record`] reads it; `InvalidData` when it is not UTF-8, as
/// `read_to_string`.
pub(crate) fn read_text(path: &str) -> io::Result<String> {
    text(read_record(path, |bytes| std::str::from_utf8(bytes).map(str::to_owned))?)
}

/// The text of `path`, a file of one record, as [`read_text`] gives it, read now: open, one
/// read, close, never served from nor kept in an open examination. For a read made to see
/// whether the file changed since an earlier read (see [`super::examination`]).
pub(crate) fn read_text_now(path: &str) -> io::Result<String> {
    text(read_from_start(&open(path)?, |bytes| std::str::from_utf8(bytes).map(str::to_owned))?)
}

/// The text of a process's or thread's `status` at `path`, as [`read_text`] reads it, its
/// `Name:` line's bytes that are not UTF-8 (a name set by `prctl(PR_SET_NAME)`, or the name
/// of the file the process was run as) replaced: read as UTF-8 alone, the whole file failed,
/// and with it what the other lines tell.
pub(crate) fn read_status(path: &str) -> io::Result<String> {
    read_record(path, |bytes| String::from_utf8_lossy(bytes).into_owned())
}

/// The bytes of `path`, a file of one record (`stat`), read now as [`read_text_now`] reads
/// it: a `stat` whose process's name is not UTF-8 (set by `prctl(PR_SET_NAME)`, or the name
/// of the file it was run as) is read too.
pub(crate) fn read_bytes_now(path: &str) -> io::Result<Vec<u8>> {
    read_from_start(&open(path)?, <[u8]>::to_vec)
}

/// The text of a file read, or `InvalidData` when it is not UTF-8.
fn text(read: Result<String, std::str::Utf8Error>) -> io::Result<String> {
    read.map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))
}

/// Reads `file` of process `pid` through the descriptor kept open for it on this thread
/// (opened and kept at the first read), and gives its bytes to `parse`.
pub(crate) fn read_kept<R>(pid: i32, file: Kept, parse: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
    FILES.with(|files| {
        let mut files = files.borrow_mut();
        if let Some(i) = files.iter().position(|(p, f, _)| (*p, *f) == (pid, file)) {
            // A `Result` of the read alone: `parse` is called at most once.
            let mut parse = Some(parse);
            match read_from_start(&files[i].2, |bytes| parse.take().map(|p| p(bytes))) {
                Ok(Some(read)) => {
                    // The most recently read last: the oldest read is the one let go.
                    let kept = files.remove(i);
                    files.push(kept);
                    return Ok(read);
                }
                Ok(None) => unreachable!("parse is called once"),
                // Its process was reaped (or became unreadable): open the path again.
                Err(_) => {
                    files.remove(i);
                    let parse = parse.take().expect("not called on an error");
                    return open_and_keep(&mut files, pid, file, parse);
                }
            }
        }
        open_and_keep(&mut files, pid, file, parse)
    })
}

fn open_and_keep<R>(
    files: &mut Vec<(i32, Kept, OwnedFd)>,
    pid: i32,
    file: Kept,
    parse: impl FnOnce(&[u8]) -> R,
) -> io::Result<R> {
    let fd = open(&file.path(pid))?;
    let read = read_from_start(&fd, parse)?;
    if files.len() >= KEPT {
        files.remove(0);
    }
    files.push((pid, file, fd));
    Ok(read)
}

/// The read system calls the calling thread has made (`syscr` of `/proc/thread-self/io`,
/// which counts a read once it returned: this one is counted by the next).
#[cfg(test)]
pub(crate) fn reads_by_this_thread() -> u64 {
    read_record("/proc/thread-self/io", |io| super::io_field(io, "syscr:")).unwrap().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `sleep 30` child, once it sleeps: its name is `sleep` (its exec is done) and its state
    /// is `S` (its loader, which reads the libraries it maps, is done too).
    fn a_sleeping_child() -> (std::process::Child, i32) {
        let child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id() as i32;
        let asleep = || {
            let stat = read_bytes(&format!("/proc/{pid}/stat")).unwrap();
            stat.windows(9).any(|w| w == b"(sleep) S")
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !asleep() {
            assert!(std::time::Instant::now() < deadline, "sleep never slept");
            std::thread::yield_now();
        }
        (child, pid)
    }

    /// The read count before each key typed reads the group's `io` with one system call once
    /// its file is open (`std::fs::read_to_string` read it in four, after an open and a
    /// `statx`), and the status's name of the group with one (two).
    #[test]
    fn a_count_of_reads_and_a_name_read_again_take_one_read_each() {
        let (mut child, pid) = a_sleeping_child();
        let count = super::super::reads_of(&[pid]);
        assert!(count.is_some());
        let before = reads_by_this_thread();
        assert_eq!(super::super::reads_of(&[pid]), count, "sleep read nothing");
        let after = reads_by_this_thread();
        // (`after`'s own read counts `before`'s.)
        assert_eq!(after - before, 2, "the count took {} reads", after - before - 1);
        assert_eq!(super::super::process_name(pid).as_deref(), Some("sleep"));
        let before = reads_by_this_thread();
        assert_eq!(super::super::process_name(pid).as_deref(), Some("sleep"));
        let after = reads_by_this_thread();
        assert_eq!(after - before, 2, "the name took {} reads", after - before - 1);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(super::super::reads_of(&[pid]), None, "a reaped process is not counted");
        assert_eq!(super::super::process_name(pid), None);
    }

    #[test]
    fn a_record_is_read_whole_and_a_long_one_to_its_end() {
        let pid = std::process::id();
        let stat = read_record(&format!("/proc/{pid}/stat"), <[u8]>::to_vec).unwrap();
        assert!(stat.starts_with(format!("{pid} (").as_bytes()), "{stat:?}");
        assert_eq!(stat.last(), Some(&b'\n'));
        let long = std::env::temp_dir().join(format!("termloom-record-{pid}"));
        let text: Vec<u8> = (0..3 * RECORD + 5).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&long, &text).unwrap();
        let read = read_record(long.to_str().unwrap(), <[u8]>::to_vec);
        std::fs::remove_file(&long).unwrap();
        assert_eq!(read.unwrap(), text, "a file longer than the buffer is read to its end");
    }

    /// A listing of pids is read whole whatever its length: in one read while a further
    /// record would have fit (no read for its end), read on past a first read that might
    /// have stopped where a record did not fit, or that filled the buffer. (A regular file
    /// stands for the listing: it checks the threshold between one read and more, not the
    /// kernel's `seq_file`, which a regular file's reads do not stop short as it may.)
    #[test]
    fn a_listing_of_pids_is_read_whole() {
        let path = std::env::temp_dir().join(format!("termloom-pids-{}", std::process::id()));
        for len in [0, 6, RECORD - PID_RECORD, RECORD - PID_RECORD + 1, RECORD, 3 * RECORD + 5] {
            let text: Vec<u8> = (0..len).map(|i| if i % 6 == 5 { b'\n' } else { b'7' }).collect();
            std::fs::write(&path, &text).unwrap();
            let fd = open(path.to_str().unwrap()).unwrap();
            let before = reads_by_this_thread();
            assert_eq!(read_pids_from_start(&fd).unwrap(), text, "{len} bytes");
            let reads = reads_by_this_thread() - before - 1;
            let once = len <= RECORD - PID_RECORD;
            assert_eq!(reads == 1, once, "{len} bytes took {reads} reads");
        }
        // (`cgroup.procs` ends its records with a line break, a `children` file with a blank.)
        std::fs::write(&path, "12\n345 6789 ").unwrap();
        let pids = read_pids(path.to_str().unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(pids, [12, 345, 6789]);
    }

    #[test]
    fn a_kept_file_is_read_again_and_opened_again_once_its_process_is_gone() {
        let (mut child, pid) = a_sleeping_child();
        let name = || read_kept(pid, Kept::Comm, <[u8]>::to_vec);
        assert_eq!(name().unwrap(), b"sleep\n");
        assert_eq!(name().unwrap(), b"sleep\n");
        let kept = FILES.with(|f| f.borrow().iter().filter(|(p, ..)| *p == pid).count());
        assert_eq!(kept, 1);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(name().is_err(), "a reaped process's kept file is not read");
        let kept = FILES.with(|f| f.borrow().iter().filter(|(p, ..)| *p == pid).count());
        assert_eq!(kept, 0);
    }

    #[test]
    fn no_more_than_kept_files_stay_open() {
        let pid = std::process::id() as i32;
        read_kept(pid, Kept::Io, |_| ()).unwrap();
        let mut children: Vec<_> = (0..KEPT)
            .map(|_| std::process::Command::new("sleep").arg("30").spawn().unwrap())
            .collect();
        for child in &children {
            read_kept(child.id() as i32, Kept::Comm, |_| ()).unwrap();
        }
        let files = FILES.with(|f| f.borrow().len());
        assert_eq!(files, KEPT);
        let own = FILES.with(|f| f.borrow().iter().any(|(p, ..)| *p == pid));
        assert!(!own, "the oldest file was closed");
        for child in &mut children {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
}
