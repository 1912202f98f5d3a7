//! The guardian's watch of the engine: once the engine is gone, the supervisor is resumed
//! until it ends, and killed if it does not (see [`crate::os::supervisor`]).
//!
//! A session's program may stop the supervisor (`kill -STOP $PPID`: it runs as the same
//! user); were the engine's process then killed, the supervisor would never read its socket's
//! end, and every session would run on.

use std::os::fd::OwnedFd;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::process::{Pid, PidfdFlags, Signal};

/// How often the supervisor is resumed once the engine is gone.
const RESUME_EVERY: Duration = Duration::from_millis(10);
/// How often the guardian looks at its parent when no pidfd tells it of the engine's end
/// (kernels before 5.3, a seccomp filter refusing `pidfd_open`), or when a wake-up of the
/// pidfd found its parent unchanged.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Watches the engine (process `engine`, the guardian's parent when it started it) from a
/// thread of its own. The engine is gone once the guardian's parent is another process (the
/// engine's end gives its children to a subreaper or init), looked at when a pidfd of the
/// engine wakes the watch, or every [`LOOK_EVERY`] without one; a wake-up or an error of the
/// wait with the parent unchanged does not count. The supervisor (and the guardian's process
/// group, which it shares) is then resumed every [`RESUME_EVERY`] until `stop_wait` has
/// passed, and killed (the guardian then kills what it leaves).
///
/// The supervisor is signalled through a pidfd when there is one: once the guardian has
/// reaped it, a signal through it fails, and never reaches another process given its pid;
/// without one, by pid, only while `reaped` is false, under its lock: the guardian sets it,
/// under the lock, once the supervisor has ended but before it reaps it (a signal before
/// then reaches the supervisor, a zombie, whose pid is still its own). Should the engine end the
/// supervisor itself but end first (its `stop` running detached, a host's `process::exit`
/// with the engine running), the watch only resumes the supervisor on its way to its end:
/// the engine's socket has reached its end, and the sessions are being ended.
pub(crate) fn watch_engine(
    engine: i32,
    supervisor: &Child,
    reaped: Arc<Mutex<bool>>,
    stop_wait: Duration,
) {
    let Some(supervisor_pid) = Pid::from_raw(supervisor.id() as i32) else { return };
    let supervisor_fd = rustix::process::pidfd_open(supervisor_pid, PidfdFlags::empty()).ok();
    // Opened once the engine was gone, the pidfd names no process, or another: the parent
    // tells which.
    let engine_fd = Pid::from_raw(engine)
        .and_then(|engine| rustix::process::pidfd_open(engine, PidfdFlags::empty()).ok());
    let watch = move || {
        wait_for_end(engine_fd.as_ref(), || rustix::process::getppid() != Pid::from_raw(engine));
        let signal = |signal: Signal| match &supervisor_fd {
            Some(fd) => {
                let _ = rustix::process::pidfd_send_signal(fd, signal);
            }
            None => {
                let reaped = reaped.lock().unwrap_or_else(|e| e.into_inner());
                if !*reaped {
                    let _ = rustix::process::kill_process(supervisor_pid, signal);
                }
            }
        };
        let deadline = Instant::now() + stop_wait;
        while Instant::now() < deadline {
            let _ = rustix::process::kill_current_process_group(Signal::CONT);
            signal(Signal::CONT);
            std::thread::sleep(RESUME_EVERY);
        }
        signal(Signal::KILL);
    };
    let _ = std::thread::Builder::new().name("termloom-engine".into()).spawn(watch);
}

/// Returns once `gone()` holds: looked at when `engine_fd` (a pidfd, readable once its
/// process has ended) wakes the wait, and every [`LOOK_EVERY`] without one, or after a wake
/// or an error with `gone()` false.
fn wait_for_end(engine_fd: Option<&OwnedFd>, mut gone: impl FnMut() -> bool) {
    while !gone() {
        let woken = engine_fd.is_some_and(|fd| {
            let mut fds = [rustix::event::PollFd::new(fd, rustix::event::PollFlags::IN)];
            rustix::event::poll(&mut fds, None).is_ok_and(|ready| ready > 0)
        });
        if woken && gone() {
            return;
        }
        std::thread::sleep(LOOK_EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wake-up of the engine's pidfd is not the engine's end unless the parent changed: a
    /// poll that failed (ENOMEM) was taken for it, and a healthy supervisor was killed.
    #[test]
    fn a_wake_up_with_the_parent_unchanged_is_not_the_engines_end() {
        // A pidfd that is readable at once: its process has ended.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = Pid::from_raw(child.id() as i32).unwrap();
        let fd = rustix::process::pidfd_open(pid, PidfdFlags::empty()).ok();
        let mut looks = 0;
        wait_for_end(fd.as_ref(), || {
            looks += 1;
            looks > 4
        });
        let _ = child.wait();
        assert_eq!(looks, 5, "the wait ended before its parent changed");
    }

    /// Without a pidfd of the engine (kernels before 5.3, seccomp), the parent is looked at
    /// every [`LOOK_EVERY`], 100 ms: the engine was not watched at all. Three waits between
    /// looks take 300 ms, and less than 2 s on a loaded machine (an interval of 700 ms or
    /// more fails).
    #[test]
    fn without_a_pidfd_the_engines_end_is_looked_for_every_100_ms() {
        let started = Instant::now();
        let mut looks = 0;
        wait_for_end(None, || {
            looks += 1;
            looks > 3
        });
        let took = started.elapsed();
        assert_eq!(looks, 4);
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_secs(2), "three waits between looks took {took:?}");
    }
}
