//! A process that polls for its child's end between short sleeps, rather than blocking in
//! `wait4` (vim's `:!cmd`): its sleep is a wait for that child, whose state decides (see
//! [`polls_for_a_child`]).

use super::thread::{Look, look, sleep_of};
use super::{Activity, InputWait, ProcStat, ThreadObs, children_within, decide};
use crate::os::procfs::{self, POLLS_FOR_A_CHILD};

/// The most children of a process whose `stat` [`polls_for_a_child`] reads: one with more has
/// a live child all the same.
const CHILDREN_READ: usize = 16;

/// `observed`, the wait and threads of `member` (a process of a terminal's session), with
/// each thread in a sleep shorter than [`SHORTEST_TICK`](procfs::SHORTEST_TICK) that is no
/// monitor's between two frames named a poll for a child ([`POLLS_FOR_A_CHILD`]), when
/// `member` has a live child in its session (among `candidates` where the kernel lists no
/// children), and the wait decided again from them. vim checks for the end of a `:!` command
/// with `waitpid` and `WNOHANG`, then sleeps 1 ms, 2 ms... up to 10 ms, and again every 10 ms,
/// its timers' helper thread beside it in a wait for a signal: that sleep, gone back to again
/// and again with nothing printed, read as an idle tick on the world outside, and the default
/// wait settled 1.25 s in while the command worked (`:!timeout 3 sleep 100; echo timed out`,
/// a `perl` waiting for its `alarm`). Its child decides, as it does for a shell in `wait4`.
pub(super) fn polls_for_a_child(
    member: &ProcStat,
    observed: (InputWait, Vec<ThreadObs>),
    candidates: Option<&[i32]>,
) -> (InputWait, Vec<ThreadObs>) {
    let (wait, mut threads) = observed;
    let polls = |t: &ThreadObs| short_sleep(member.pid, t);
    if !matches!(wait, InputWait::NotWaiting { .. })
        || !threads.iter().any(polls)
        || !has_a_live_child(member, candidates)
    {
        return (wait, threads);
    }
    for thread in threads.iter_mut().filter(|t| short_sleep(member.pid, t)) {
        thread.activity = Activity::Other(POLLS_FOR_A_CHILD.to_string());
        thread.tick = None;
    }
    let who = format!("pid {} ({})", member.pid, member.comm);
    (decide(member.pid, &who, &threads), threads)
}

/// Whether thread `t` of process `pid` is in a sleep (`nanosleep`, `clock_nanosleep`) shorter
/// than [`SHORTEST_TICK`](procfs::SHORTEST_TICK), or with less than that left, as its
/// `syscall` file tells when read again, that is no monitor's between two frames (see
/// [`procfs::SleepTick`]).
fn short_sleep(pid: i32, t: &ThreadObs) -> bool {
    let sleeping = matches!(&t.activity, Activity::Other(what)
        if what == "nanosleep" || what == "clock_nanosleep");
    if !sleeping || t.long_sleep.is_some() || t.tick.is_some_and(|t| t.drawn || t.repeated) {
        return false;
    }
    let base = format!("/proc/{pid}/task/{}", t.tid);
    let Look::Sleeping { syscall, activity, .. } = look(&base) else { return false };
    sleep_of(&base, &syscall, &activity).is_some_and(|(timer, _)| timer < procfs::SHORTEST_TICK)
}

/// Whether `member` has a live child in its session (at most [`CHILDREN_READ`] read).
fn has_a_live_child(member: &ProcStat, candidates: Option<&[i32]>) -> bool {
    match children_within(member.pid, candidates, CHILDREN_READ) {
        Some(children) => children.iter().any(|child| child.session == member.session),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::procfs::{idle_behind, read_stat};
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    /// A Perl that sleeps 200 ms again and again (`clock_nanosleep`), with a child that
    /// sleeps (forked first) when its argument is 1.
    const POLLER: &str = "my $kid = $ARGV[0] ? fork() : 1; if ($kid == 0) { sleep 60; exit } \
                          while (1) { Time::HiRes::usleep(200000) }";

    /// Kills a process group when dropped (the test's poller and its child).
    struct Group(std::process::Child);

    impl Drop for Group {
        fn drop(&mut self) {
            let group = rustix::process::Pid::from_raw(self.0.id() as i32).unwrap();
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            let _ = self.0.wait();
        }
    }

    /// The poller (see [`POLLER`]) with a child or not, and its wait and threads once it is
    /// seen asleep (the child started), the terminal quiet for 5 s; `None` without `perl`.
    fn poller(child: bool) -> Option<(Group, ProcStat, (InputWait, Vec<ThreadObs>))> {
        let arg = if child { "1" } else { "0" };
        let spawned = std::process::Command::new("perl")
            .args(["-MTime::HiRes", "-e", POLLER, arg])
            .process_group(0)
            .spawn();
        let group = match spawned {
            Ok(spawned) => Group(spawned),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                assert!(std::env::var_os("CI").is_none(), "CI must install perl");
                return None;
            }
            Err(err) => panic!("spawn perl: {err}"),
        };
        let pid = group.0.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let observed = super::super::process_observed(pid, Duration::from_secs(5));
            let asleep = observed.as_ref().is_some_and(|(_, threads)| {
                threads.iter().all(|t| t.tick.is_some_and(|tick| tick.idle))
            });
            let children = children_within(pid, None, CHILDREN_READ).unwrap_or_default();
            if asleep && children.len() == usize::from(child) {
                let stat = read_stat(pid).unwrap();
                return Some((group, stat, observed.unwrap()));
            }
            assert!(Instant::now() < deadline, "perl never slept (child: {child})");
            std::thread::yield_now();
        }
    }

    /// A process in a short sleep, with a live child, polls for it: its sleep is a wait for a
    /// child (as `wait4` is, behind it), not an idle tick; without a child, the same sleep is
    /// left as it is (an idle tick, the terminal quiet for long).
    #[test]
    fn a_short_sleep_beside_a_live_child_is_a_wait_for_it() {
        let Some((_group, stat, observed)) = poller(true) else { return };
        let (wait, threads) = polls_for_a_child(&stat, observed, None);
        assert!(threads.iter().all(super::super::for_children), "{threads:?}");
        assert!(threads.iter().all(|t| t.tick.is_none()), "{threads:?}");
        assert!(idle_behind(&threads), "{threads:?}");
        assert!(format!("{wait:?}").contains(POLLS_FOR_A_CHILD), "{wait:?}");
        let Some((_group, stat, observed)) = poller(false) else { return };
        assert!(observed.1.iter().all(|t| short_sleep(stat.pid, t)), "{observed:?}");
        let (_, threads) = polls_for_a_child(&stat, observed, None);
        assert!(threads.iter().all(|t| t.tick.is_some_and(|tick| tick.idle)), "{threads:?}");
        assert!(!threads.iter().any(super::super::for_children), "{threads:?}");
    }
}
