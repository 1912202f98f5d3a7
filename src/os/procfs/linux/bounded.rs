//! The reads of a probe that a program can make wait for ever, run off the caller's thread
//! (the reactor's) and waited for within a bound.
//!
//! Two kinds of read can wait on the program: its memory (`/proc/PID/mem`: a page of a file
//! whose file system never answers, FUSE's, or the process's memory map locked by a thread
//! stuck in such a fault) and an epoll set's `fdinfo` (the set's lock, which a thread of the
//! program holds while the kernel copies ready events out to it: with its events array in a
//! page registered with userfaultfd whose faults are never resolved, for ever; the read waits
//! for the lock uninterruptibly). They run on a helper thread (`termloom-proc`), and the
//! caller waits at most [`READ_BOUND`] for the answer: a read that takes longer is judged as
//! one that failed, its helper is left to it (it ends once the read does), and further reads
//! of that process fail at once while it is stuck, so a program costs the reactor one bound,
//! not one a probe. At most [`MAX_STUCK`] helpers are left stuck; past that, every such read
//! fails at once.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crossbeam_channel::Sender;

/// How long a caller waits for a read that a program can hold up (one takes microseconds).
pub(super) const READ_BOUND: Duration = Duration::from_millis(50);

/// The most helpers left stuck in a read at once.
pub(super) const MAX_STUCK: usize = 4;

/// A read, with what it does with its answer.
type Job = Box<dyn FnOnce() + Send>;

/// The helper that takes the next read, and the processes whose reads stuck helpers wait on.
struct Helpers {
    /// The helper that takes the next read (started at the first).
    ready: Option<Sender<Job>>,
    /// The process of each stuck helper's read, one entry a helper.
    stuck: Vec<i32>,
}

static HELPERS: Mutex<Helpers> = Mutex::new(Helpers { ready: None, stuck: Vec::new() });

fn helpers() -> MutexGuard<'static, Helpers> {
    HELPERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The process of a `/proc/PID/...` path (0 for another path).
pub(super) fn pid_of(path: &str) -> i32 {
    let pid = path.strip_prefix("/proc/").and_then(|rest| rest.split('/').next());
    pid.and_then(|pid| pid.parse().ok()).unwrap_or(0)
}

/// `read`'s answer, read on a helper thread for the caller, who waits for it at most
/// [`READ_BOUND`]; `None` when it takes longer, when a read of process `pid` is still stuck,
/// when [`MAX_STUCK`] helpers are, or when no helper can be started.
pub(super) fn within_bound<R: Send + 'static>(
    pid: i32,
    read: impl FnOnce() -> R + Send + 'static,
) -> Option<R> {
    let (answer, answered) = crossbeam_channel::bounded(1);
    let job: Job = Box::new(move || {
        // (One answer into room for one: never full. Its caller may have gone.)
        let _ = answer.send(read());
        let mut helpers = helpers();
        if let Some(at) = helpers.stuck.iter().position(|&stuck| stuck == pid) {
            helpers.stuck.swap_remove(at);
        }
    });
    {
        let mut helpers = helpers();
        if helpers.stuck.len() >= MAX_STUCK || helpers.stuck.contains(&pid) {
            return None;
        }
        let ready = match &helpers.ready {
            Some(ready) => ready.clone(),
            None => helpers.ready.insert(start_helper()?).clone(),
        };
        if ready.send(job).is_err() {
            helpers.ready = None;
            return None;
        }
    }
    if let Ok(answer) = answered.recv_timeout(READ_BOUND) {
        return Some(answer);
    }
    let mut helpers = helpers();
    // (Answered meanwhile: its job takes the lock only after, and finds nothing to remove.)
    if let Ok(answer) = answered.try_recv() {
        return Some(answer);
    }
    helpers.ready = None;
    helpers.stuck.push(pid);
    None
}

/// The text of the `fdinfo` file at `path` (`/proc/PID/…/fdinfo/N`), read [`within_bound`]:
/// an epoll set's waits for the set's lock. `None` where it cannot be read in time.
pub(super) fn read_fdinfo(path: &str) -> Option<String> {
    let owned = path.to_owned();
    within_bound(pid_of(path), move || std::fs::read_to_string(owned).ok()).flatten()
}

/// A new helper: a thread that runs the reads sent to it until its sender is dropped.
fn start_helper() -> Option<Sender<Job>> {
    let (jobs, taken) = crossbeam_channel::unbounded::<Job>();
    let helper = std::thread::Builder::new().name("termloom-proc".into());
    helper.spawn(move || taken.iter().for_each(|job| job())).ok()?;
    Some(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_that_does_not_end_fails_and_so_do_the_others_of_its_process_until_it_ends() {
        let (release, released) = crossbeam_channel::bounded::<()>(0);
        // Processes no other test reads.
        let (held, other) = (-7, -8);
        assert_eq!(within_bound(held, || 1), Some(1));
        assert_eq!(within_bound(held, move || released.recv().is_ok()), None);
        assert_eq!(within_bound(held, || 2), None, "its process's reads fail while it is stuck");
        assert_eq!(within_bound(other, || 3), Some(3), "another helper reads the others");
        release.send(()).unwrap();
        let began = std::time::Instant::now();
        while within_bound(held, || 4).is_none() {
            assert!(began.elapsed() < Duration::from_secs(10), "the stuck read ended");
            std::thread::yield_now();
        }
    }

    #[test]
    fn the_process_of_a_proc_path() {
        assert_eq!(pid_of("/proc/123/task/456"), 123);
        assert_eq!(pid_of("/proc/77"), 77);
        assert_eq!(pid_of("/tmp/x"), 0);
    }
}
