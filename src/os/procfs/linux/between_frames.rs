//! A monitor between two frames in a timed wait that is no sleep: Python's
//! `threading.Event().wait(2)` (a `futex` until a point in time), `select.select([], [], [],
//! 2)`, node's `setInterval` (its event loop's `epoll_pwait` on its own pipes and eventfds,
//! its next timer the timeout). Only the thread's clock should end the wait for it to be one:
//! no other thread at work or on a clock of its own, and no other process able to write to
//! what it waits on.

use super::*;

/// Whether `member`, a process alone in its group that drew the terminal's last frame, with
/// its threads' observations `threads`, waits between two frames of a monitor (see
/// [`SleepTick::woken`]): its main thread in a timed wait drawn so, on a lock or on pipes and
/// eventfds alone ([`Private`]) or no descriptor; every other thread asleep on a lock of the
/// process's own with no timeout ([`thread::on_own_lock`]), in a sleep past [`CLOCK_HORIZON`],
/// or blocked with no timeout on pipes and eventfds alone ([`thread::blocked_until_woken`]:
/// node's other event loop), none on a clock of its own (a worker's may end the main
/// thread's wait: a `threading.Timer`, a worker's `work.wait(1)`, review wb; so an idle node
/// worker, its event loop on a timer of node's for its first 8 s or so, makes it no monitor
/// until then); no child of
/// its own; and no other process of the session (of `candidates` when given, else of its POSIX
/// session) holding any of those pipes and eventfds ([`held_by_none_but`]). A thread at work
/// (a worker loading what the next screen shows), asleep within [`CLOCK_HORIZON`] (a worker
/// polling its work every 100 ms), waiting for a child or reading a pipe, on a socket, or on
/// the terminal makes it no monitor's wait (review vy: each of those settled at `loading`).
/// A pipe's fill cannot be read from `/proc`: one written by a worker that then ended is not
/// told from an empty one.
pub(super) fn between_frames(
    member: &ProcStat,
    threads: &[ThreadObs],
    candidates: Option<&[i32]>,
    looks: &Looks,
) -> bool {
    let Ok(tty) = u64::try_from(member.tty_nr) else { return false };
    let mut held = Vec::new();
    let mut ticking = false;
    for t in threads {
        let base = format!("/proc/{}/task/{}", member.pid, t.tid);
        let privates = if t.tick.is_some_and(|tick| tick.woken && tick.drawn) {
            // (The main thread's clock alone: a worker's may end the main thread's wait, a
            // `threading.Timer`, a worker's `work.wait(1)`, review wb.)
            if t.tid != member.pid {
                return false;
            }
            ticking = true;
            match on_any_lock(t) {
                true if still_on_its_lock(&base) => Vec::new(),
                true => return false,
                false => {
                    let Some(privates) = timed_poll_of_own(&base, looks) else { return false };
                    privates
                }
            }
        } else if t.long_sleep.is_some() || thread::on_own_lock(&base) {
            // (A sleep past [`CLOCK_HORIZON`] outlasts the wait's clock, which is within it:
            // a heartbeat thread's `time.sleep(30)`, review vz.)
            Vec::new()
        } else {
            match thread::blocked_until_woken(&base, tty, looks) {
                Some(wait) if !wait.terminal => wait.beside,
                _ => return false,
            }
        };
        for private in privates {
            if !held.contains(&private) {
                held.push(private);
            }
        }
    }
    // (A child of its own may end the wait: a worker's `subprocess.run`, node's `spawn`.)
    ticking
        && relay::children(member.pid, candidates).is_empty()
        && (held.is_empty()
            || held_by_none_but(member.pid, &held, &session_holders(member, candidates), looks)
                && held.iter().all(|&private| unready(member.pid, private, looks)))
}

/// Whether `private`, a pipe or eventfd only process `pid` holds, has nothing that would wake
/// a wait on it at once: an eventfd with a count of 0 (`eventfd-count`, in hexadecimal), a pipe whose write
/// end the process holds (with none, its reader is at its end: a child that wrote and ended
/// left its parent seen asleep on the pipe a moment later, under load). `false` when that
/// cannot be told.
fn unready(pid: i32, private: Private, looks: &Looks) -> bool {
    let found = search_descriptors(pid, looks, |path, target| {
        let fdinfo = || {
            let (process, fd) = path.rsplit_once("/fd/")?;
            read_fdinfo(&format!("{process}/fdinfo/{fd}"))
        };
        match private {
            Private::Pipe(inode) if target == format!("pipe:[{inode}]") => {
                // (`flags` in octal: `O_WRONLY` or `O_RDWR`, the write end.)
                let info = fdinfo()?;
                let flags = info.lines().find_map(|line| line.strip_prefix("flags:"))?;
                let flags = u64::from_str_radix(flags.trim(), 8).ok()?;
                (flags & 3 != 0).then_some(())
            }
            Private::EventFd(_) if target == "anon_inode:[eventfd]" => {
                let info = fdinfo()?;
                if eventfd_id(&info).map(Private::EventFd) != Some(private) {
                    return None;
                }
                let count = info.lines().find_map(|line| line.strip_prefix("eventfd-count:"))?;
                (u64::from_str_radix(count.trim(), 16).ok()? == 0).then_some(())
            }
            _ => None,
        }
    });
    matches!(found, Search::Found(()))
}

/// Whether the thread at `base`, seen waiting on a lock when its process was looked at, is
/// still asleep on one that is not released ([`thread::lock_released`]), now that every other
/// thread was looked at after it: a worker that released it (Python's `Event.set`) and ended
/// between the two looks was no longer seen, and its waiter, seen before, read as a monitor
/// between two frames (under load, 2 runs in 5). It must still be a timed wait on a lock of
/// its own with [`TIMER_SLACK`](crate::os::procfs::TIMER_SLACK) or more to go
/// ([`thread::own_lock_tick`]): one that woke from `Event.wait` and went into Python's 5 ms
/// wait for its interpreter lock is not.
fn still_on_its_lock(base: &str) -> bool {
    match thread::look(base) {
        thread::Look::Sleeping { syscall, activity: Activity::Other(name), .. } => {
            name == "futex" && thread::own_lock_tick(base, &syscall).is_some()
        }
        _ => false,
    }
}

/// The pipes and eventfds ([`Private`]) the poll-family wait the thread at `base` is in waits
/// on, when it waits on nothing else (none, for a `select` on no descriptor); `None` when it
/// waits on another descriptor, is in another call, or that cannot be read (a read of its
/// memory refused by the bound included).
fn timed_poll_of_own(base: &str, looks: &Looks) -> Option<Vec<Private>> {
    let refused = bounded::refusals();
    // (As the call is classified, before a look at what it waits on.)
    let thread::Look::Sleeping { syscall, activity: Activity::Input(name), .. } =
        thread::look(base)
    else {
        return None;
    };
    if thread::is_read(&name) {
        return None;
    }
    let Some((fds, true)) = watched_descriptors(base, &name, &syscall, true, looks) else {
        return None;
    };
    let privates = fds.iter().map(|&fd| private_of(base, fd)).collect::<Option<Vec<_>>>()?;
    (bounded::refusals() == refused).then_some(privates)
}
