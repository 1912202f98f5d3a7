//! One examination of a session's processes reads each `/proc` file once.
//!
//! A look at a session (the input-wait probe, a status, the read count before a write, the
//! look for a program asking for a line) reads the same files from several places: the
//! group's members are found from their `stat`, which the probe of each reads again, and the
//! look for the terminals a member hosts and for the jobs it started each list its threads
//! and read their `children`. While [`examine`] runs a look on a thread, the first reading of
//! a path (its bytes, or its error) serves every later one on that thread: one `/proc` view
//! of the processes per look, as if read at one moment, not a view per caller. Nothing is kept
//! once the look ends: a process may exit, exec or start a thread between two looks.
//!
//! Only whole files and directory listings are kept, never a read of a process's memory or
//! of an `fdinfo` (`linux/bounded.rs`), which run on a helper thread and are bounded there.
//! Readers that do not go through it read each time they are asked within a look: a
//! process's `fd` listing (read a few entries at a time, stopped at the first answer), its
//! `timers` and `net/*` tables, and the `io` and `comm` files kept open (`files.rs`).
//!
//! What it keeps is bounded: at most [`MAX_KEPT`] paths and [`MAX_BYTES`] (their names,
//! bytes and entries), as many as a look at a session of a few processes of a few threads
//! reads many times over. Past either bound a path is read without being kept, each time it
//! is read (a program of 30,000 threads, whose `stat`, `syscall` and `status` a probe reads,
//! or a look at every process of a host without a cgroup, kept tens of MB a look).
//!
//! A read made to see whether a file changed since an earlier read is never served from
//! the examination (it would give the earlier bytes, unchanged always): it reads with
//! `files::read_text_now` or `files::read_bytes_now`, which neither look at it nor fill it
//! (`linux/restart.rs`'s second reading of a thread's `syscall`, and its `wchan`, read after
//! the arguments; `linux/jobs.rs`'s second reading of a job process's `stat`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::rc::Rc;

/// What an examination keeps of a path: its bytes or entries, or the error reading it gave.
type Reading<T> = Result<Rc<[T]>, Failure>;

/// The most paths an examination keeps (files and directories).
const MAX_KEPT: usize = 1024;

/// The most bytes an examination keeps: of paths, of files and of listings' entries.
const MAX_BYTES: usize = 256 * 1024;

/// The readings of the examination open on a thread.
#[derive(Default)]
struct Readings {
    /// Files by path: their bytes, or the error reading them gave.
    files: HashMap<String, Reading<u8>>,
    /// Directories by path: their numeric entries, sorted, or the error listing them gave.
    listings: HashMap<String, Reading<i32>>,
    /// The bytes kept in both, paths included.
    bytes: usize,
}

impl Readings {
    /// Whether a reading of `bytes` more (its path's included) is kept: within both bounds.
    fn has_room(&mut self, bytes: usize) -> bool {
        let kept = self.files.len() + self.listings.len();
        let room = kept < MAX_KEPT && self.bytes + bytes <= MAX_BYTES;
        if room {
            self.bytes += bytes;
        }
        room
    }
}

/// An error kept to be given again: as the same `io::Error` where it was the system's.
#[derive(Clone)]
struct Failure {
    raw: Option<i32>,
    kind: io::ErrorKind,
    text: String,
}

impl Failure {
    fn of(err: &io::Error) -> Failure {
        Failure { raw: err.raw_os_error(), kind: err.kind(), text: err.to_string() }
    }

    fn error(&self) -> io::Error {
        match self.raw {
            Some(raw) => io::Error::from_raw_os_error(raw),
            None => io::Error::new(self.kind, self.text.clone()),
        }
    }
}

thread_local! {
    /// The examination open on this thread, if any.
    static OPEN: RefCell<Option<Readings>> = const { RefCell::new(None) };
}

/// Ends the examination it opened when dropped (a panic included).
struct Closes;

impl Drop for Closes {
    fn drop(&mut self) {
        OPEN.with(|open| open.borrow_mut().take());
    }
}

/// Runs `look` as one examination: each `/proc` file it reads through [`file()`] is read once,
/// each directory listed through [`listing`] once. Within an examination already open on this
/// thread, `look` is part of it.
pub(crate) fn examine<R>(look: impl FnOnce() -> R) -> R {
    let opened = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let opens = open.is_none();
        if opens {
            *open = Some(Readings::default());
        }
        opens
    });
    // (Not `then_some(Closes)`: the value made for a nested look would be dropped at once,
    // and close the examination it is part of.)
    let _closes = if opened { Some(Closes) } else { None };
    look()
}

/// The bytes of the file at `path` as this thread's open examination first read them, read
/// now with `read` if it has not; `None` when no examination is open (the caller reads).
pub(super) fn file(
    path: &str,
    read: impl FnOnce() -> io::Result<Vec<u8>>,
) -> Option<io::Result<Rc<[u8]>>> {
    first_reading(path, |readings| &mut readings.files, read)
}

/// The bytes `read` gives of the file at `path` (one not read through this module's callers:
/// a cgroup's `cgroup.procs`), read only at the first reading within this thread's open
/// examination, as [`file()`] reads.
pub(crate) fn read_examined(
    path: &str,
    read: impl FnOnce() -> io::Result<Vec<u8>>,
) -> io::Result<Vec<u8>> {
    let mut read = Some(read);
    match file(path, || read.take().expect("read once")()) {
        Some(bytes) => bytes.map(|bytes| bytes.to_vec()),
        None => read.take().expect("not read without an examination")(),
    }
}

/// The numeric entries of directory `dir` as this thread's open examination first listed
/// them, listed now with `list` if it has not; `None` when no examination is open.
pub(super) fn listing(
    dir: &str,
    list: impl FnOnce() -> io::Result<Vec<i32>>,
) -> Option<io::Result<Rc<[i32]>>> {
    first_reading(dir, |readings| &mut readings.listings, list)
}

/// What `read` gives of `path` (a file's bytes, a directory's entries) as this thread's open
/// examination first read it, in its readings of that kind (`kind`), read now and kept if
/// it has not; `None` when no examination is open.
fn first_reading<T>(
    path: &str,
    kind: fn(&mut Readings) -> &mut HashMap<String, Reading<T>>,
    read: impl FnOnce() -> io::Result<Vec<T>>,
) -> Option<io::Result<Rc<[T]>>> {
    let kept = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        open.as_mut().map(|readings| kind(readings).get(path).cloned())
    })?;
    if let Some(kept) = kept {
        return Some(kept.map_err(|failure| failure.error()));
    }
    // (Read with no borrow held: what reads may look at the examination too.)
    let read = read().map(Rc::from);
    OPEN.with(|open| {
        if let Some(readings) = open.borrow_mut().as_mut() {
            let kept = read.as_ref().map(Rc::clone).map_err(Failure::of);
            let size = match &kept {
                Ok(read) => std::mem::size_of_val::<[T]>(read),
                Err(failure) => failure.text.len(),
            };
            if readings.has_room(path.len() + size) {
                kind(readings).insert(path.to_owned(), kept);
            }
        }
    });
    Some(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within an examination a path is read once and its error given again as it was; a
    /// nested examination is the same one; once it ends, nothing read is kept.
    #[test]
    fn an_examination_reads_a_path_once_and_keeps_nothing_after() {
        let reads = std::cell::Cell::new(0);
        let read = || {
            reads.set(reads.get() + 1);
            Ok(vec![reads.get() as u8])
        };
        assert!(file("/x", read).is_none(), "no examination open: the caller reads");
        let (first, second, nested) = examine(|| {
            let first = file("/x", read).unwrap().unwrap();
            let second = file("/x", read).unwrap().unwrap();
            let nested = examine(|| file("/x", read).unwrap().unwrap());
            (first, second, nested)
        });
        assert_eq!((&*first, &*second, &*nested), (&[1][..], &[1][..], &[1][..]));
        assert_eq!(reads.get(), 1);
        let again = examine(|| file("/x", read).unwrap().unwrap());
        assert_eq!(&*again, &[2], "a new examination reads again");
        let gone = || Err(io::Error::from_raw_os_error(3));
        let errors = examine(|| {
            let first = file("/gone", gone).unwrap().unwrap_err();
            let second = file("/gone", || unreachable!("read once")).unwrap().unwrap_err();
            (first.to_string(), second.to_string(), second.raw_os_error())
        });
        assert_eq!((errors.0, errors.2), (errors.1, Some(3)));
        let listed = std::cell::Cell::new(0);
        let list = || {
            listed.set(listed.get() + 1);
            Ok(vec![7, 8])
        };
        let entries = examine(|| {
            let first = listing("/d", list).unwrap().unwrap();
            (first, listing("/d", list).unwrap().unwrap())
        });
        assert_eq!((&*entries.0, &*entries.1, listed.get()), (&[7, 8][..], &[7, 8][..], 1));
        assert!(listing("/d", list).is_none());
        let kept = || Ok(b"42\n".to_vec());
        let twice = examine(|| (read_examined("/c", kept), read_examined("/c", || unreachable!())));
        assert_eq!((twice.0.unwrap(), twice.1.unwrap()), (b"42\n".to_vec(), b"42\n".to_vec()));
        assert_eq!(read_examined("/c", || Ok(Vec::new())).unwrap(), b"", "read again after");
    }

    /// A look that panics ends its examination: nothing it read is served to the next look.
    #[test]
    fn a_panic_inside_an_examination_ends_it() {
        let panicked = std::panic::catch_unwind(|| {
            examine(|| {
                file("/p", || Ok(vec![1])).unwrap().unwrap();
                panic!("the look fails");
            })
        });
        assert!(panicked.is_err());
        assert!(OPEN.with(|open| open.borrow().is_none()), "the examination is closed");
        assert!(file("/p", || Ok(vec![2])).is_none(), "no examination open");
        let again = examine(|| file("/p", || Ok(vec![2])).unwrap().unwrap());
        assert_eq!(&*again, &[2], "read again in the next look");
    }

    /// An examination keeps no more than [`MAX_KEPT`] paths and [`MAX_BYTES`]: past either
    /// bound a path is read each time, and those kept before are still served.
    #[test]
    fn an_examination_keeps_a_bounded_amount() {
        let reads = std::cell::Cell::new(0);
        let read = |len: usize| {
            reads.set(reads.get() + 1);
            Ok(vec![0; len])
        };
        let (kept, past) = examine(|| {
            for n in 0..MAX_KEPT {
                file(&format!("/{n}"), || read(1)).unwrap().unwrap();
            }
            file("/past", || read(1)).unwrap().unwrap();
            file("/past", || read(1)).unwrap().unwrap();
            let kept = file("/0", || unreachable!("kept")).unwrap().unwrap();
            let bytes = OPEN.with(|open| open.borrow().as_ref().unwrap().bytes);
            (kept, bytes)
        });
        assert_eq!(&*kept, &[0]);
        assert_eq!(reads.get(), MAX_KEPT + 2, "the path past the bound read twice");
        assert!(past <= MAX_BYTES);
        reads.set(0);
        let big = MAX_BYTES / 2;
        let lens = examine(|| {
            let first = file("/a", || read(big)).unwrap().unwrap().len();
            let second = file("/b", || read(big)).unwrap().unwrap().len();
            file("/b", || read(big)).unwrap().unwrap();
            let listed = listing("/d", || Ok(vec![1; big / 4])).unwrap().unwrap().len();
            file("/a", || unreachable!("kept")).unwrap().unwrap();
            (first, second, listed)
        });
        assert_eq!(lens, (big, big, big / 4));
        assert_eq!(reads.get(), 3, "past the bytes' bound: read each time");
    }
}
