//! A monitor between two frames in a timed wait that is no sleep: Python's
//! `threading.Event().wait(2)` (a `futex` until a point in time), `select.select([], [], [],
//! 2)`, node's `setInterval` (its event loop's `epoll_pwait` on its own pipes and eventfds,
//! its next timer the timeout). Only the thread's clock should end the wait for it to be one:
//! no other thread at work or on a clock of its own, and no other process able to write to
//! what it waits on.

use super::*;

/// Whether `member`, a process alone in its group that drew the terminal's last frame, with
/// its threads' observations `threads`, waits between two frames of a monitor (see
/// [`SleepTick::woken`]): a thread at least in a timed wait drawn so, on a lock or on pipes
/// and eventfds alone ([`Private`]) or no descriptor; every other thread asleep as
/// [`idle_behind`] tells (on a lock, in a sleep) or blocked with no timeout on pipes and
/// eventfds alone ([`thread::blocked_until_woken`]: node's other event loop); and no other
/// process of the session (of `candidates` when given, else of its POSIX session) holding any
/// of those pipes and eventfds ([`held_by_none_but`]). A thread at work (a worker loading
/// what the next screen shows), on a socket, or on the terminal makes it no monitor's wait.
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
            ticking = true;
            match on_any_lock(t) {
                true => Vec::new(),
                false => {
                    let Some(privates) = timed_poll_of_own(&base, looks) else { return false };
                    privates
                }
            }
        } else if idle_behind(std::slice::from_ref(t)) {
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
    ticking
        && (held.is_empty()
            || held_by_none_but(member.pid, &held, &session_holders(member, candidates), looks))
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
