//! The reads of a probe that a program can make wait for ever, run off the caller's thread
//! (the reactor's) and waited for within a bound.
//!
//! Two kinds of read can wait on the program: its memory (`/proc/PID/mem`: a page of a file
//! whose file system never answers, FUSE's, or the process's memory map locked by a thread
//! stuck in such a fault) and an epoll set's `fdinfo` (the set's lock, which a thread of the
//! program holds while the kernel copies ready events out to it: with its events array in a
//! page registered with userfaultfd whose faults are never resolved, for ever; the read waits
//! for the lock uninterruptibly). They run on a helper thread (`termloom-proc`) of the
//! caller's own, so no read waits behind another caller's, and the caller waits at most
//! [`READ_BOUND`] from when the helper began the read, which it may not do for up to
//! [`TURN_BOUND`] (a machine so loaded that a woken thread waits that long for the CPU: not
//! the program's doing; a helper that has not begun by then is refused, its process not
//! blamed but held: its reads refused at once for [`HELD_FOR`], then tried again), and as
//! long again as the helper waited for the CPU since it began (its
//! `schedstat`; while it is runnable, only the time it ran is the read's), within
//! [`TURN_BOUND`] after it was sent. A read that takes longer is refused
//! ([`Refused`]): its helper is left to it (a FUSE read the server took ends only when the
//! server answers or dies, whatever becomes of the program), and, when the read had the
//! bound of its own (off a run queue: sleeping on the program, or working), its process
//! (told by its pid and start time) is remembered as slow for its life: its further such reads are
//! refused at once, so releasing and taking again what its reads wait on costs the reactor
//! one bound, not one a probe (for [`MAX_SLOW`] live such processes: past them, each costs a
//! bound a probe); one whose read was refused with no one blamed is held for [`HELD_FOR`],
//! costing up to [`TURN_BOUND`] once a while under a load that lasts, not every read.
//! An `fdinfo` is read up to [`FDINFO_BYTES`]; the kernel still builds it whole, its work and
//! memory growing with an epoll set's watches, and a read it answers within the bound is
//! never blamed (a set of 45,000 watches, about 45 ms a read, waited on by four threads,
//! costs each probe about 180 ms: a known gap).
//! At most [`MAX_STUCK`] helpers are left stuck; past that, every such read is refused at
//! once. A refused read is never taken for an answer: a probe that met one judges the
//! thread unknown, never waiting for keys ([`refusals`]).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::{RecvTimeoutError, Sender};

/// How long a caller waits for a read that a program can hold up (one takes microseconds).
pub(super) const READ_BOUND: Duration = Duration::from_millis(50);

/// How long, in all, a caller waits for its helper to begin a read: one that has not had the
/// CPU yet on a loaded machine (under a CI run, a woken thread can wait longer than
/// [`READ_BOUND`] for its turn) is not the program's doing: past this the read is refused,
/// its process not blamed but held for [`HELD_FOR`].
pub(super) const TURN_BOUND: Duration = Duration::from_millis(250);

/// How long a process one of whose reads was refused with no one blamed (held up by the
/// machine's load: not begun within [`TURN_BOUND`], or kept off the CPU) has its further
/// reads refused at once: under a load that lasts, each read of it cost up to [`TURN_BOUND`]
/// every probe (review xn: 8 reads, 2 s), and one a while, then tried again, bounds that
/// without taking its load for the program's doing for its life.
const HELD_FOR: Duration = Duration::from_secs(1);

/// The most helpers left stuck in a read at once.
pub(super) const MAX_STUCK: usize = 4;

/// The most bytes of an `fdinfo` file kept: an epoll set's has a line of about 100 bytes a
/// watch, so this holds the first [`WATCHED_LOOKED_AT`](super::descriptors::WATCHED_LOOKED_AT)
/// whole and more (read whole, a set of 500,000 watches was about 40 MB).
const FDINFO_BYTES: u64 = 256 * 1024;

/// The most processes remembered as slow at once (past it, those gone are forgotten; while
/// it is full of live ones, no more are remembered).
const MAX_SLOW: usize = 64;

/// A read, with what it does with its answer.
type Job = Box<dyn FnOnce() + Send>;

/// A read [`within_bound`] did not answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// It took longer than the bound, or its process is remembered as slow, or
    /// [`MAX_STUCK`] helpers are stuck.
    Slow,
    /// It panicked, or no helper could be started: its process is not blamed.
    Failed,
}

/// The helpers left in reads, and the processes whose reads were too slow.
struct Blamed {
    /// How many helpers are still in a read their callers gave up on.
    stuck: usize,
    /// Each process (pid, start time) one of whose reads took longer than the bound.
    slow: Vec<(i32, u64)>,
    /// Each process (pid) one of whose reads was refused with no one blamed, and until when
    /// its reads are refused at once ([`HELD_FOR`]); at most [`MAX_SLOW`].
    held: Vec<(i32, Instant)>,
}

static BLAMED: Mutex<Blamed> = Mutex::new(Blamed { stuck: 0, slow: Vec::new(), held: Vec::new() });

fn blamed() -> MutexGuard<'static, Blamed> {
    BLAMED.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    /// This caller thread's helper (started at its first read, dropped when one is stuck).
    static HELPER: RefCell<Option<Sender<Job>>> = const { RefCell::new(None) };
    /// How many of this thread's reads were refused.
    static REFUSALS: Cell<u64> = const { Cell::new(0) };
    /// (On a helper) its own `schedstat`, kept open: read as it begins each read.
    static OWN_SCHEDSTAT: RefCell<Option<std::fs::File>> = const { RefCell::new(None) };
}

/// When a helper began a read: the time, its thread, and the time it had run and waited for
/// the CPU by then ([`cpu_times`]; `None` where the kernel does not say).
#[derive(Debug, Clone, Copy)]
struct Begun {
    at: Instant,
    tid: i32,
    times: Option<(Duration, Duration)>,
}

impl Begun {
    /// Made on the helper as it begins a read.
    fn now() -> Begun {
        let tid = rustix::thread::gettid().as_raw_nonzero().get();
        let times = OWN_SCHEDSTAT.with(|own| {
            let mut own = own.borrow_mut();
            if own.is_none() {
                *own = std::fs::File::open("/proc/thread-self/schedstat").ok();
            }
            let mut text = [0u8; 96];
            let len = rustix::io::pread(own.as_ref()?, &mut text, 0).ok()?;
            cpu_times(&text[..len])
        });
        Begun { at: Instant::now(), tid, times }
    }

    /// The part of the time since the helper began that is the read's own: the whole of it
    /// but what it waited for the CPU, or, while it is runnable (waiting for the CPU or
    /// running: the kernel counts a wait only once it ends), the time it ran. `None` where the
    /// kernel does not say.
    fn own_time(&self) -> Option<Duration> {
        let (ran, waited) = self.times?;
        let text = std::fs::read(format!("/proc/self/task/{}/schedstat", self.tid)).ok()?;
        let (ran_now, waited_now) = cpu_times(&text)?;
        let runnable = crate::os::procfs::read_text(&format!("/proc/self/task/{}/stat", self.tid))
            .ok()
            .and_then(|stat| stat.rsplit_once(") ")?.1.chars().next())
            == Some('R');
        Some(match runnable {
            true => ran_now.saturating_sub(ran),
            false => self.at.elapsed().saturating_sub(waited_now.saturating_sub(waited)),
        })
    }
}

/// The time a thread ran and the time it waited on a run queue for the CPU, from its
/// `schedstat` (`text`: the two, then its turns, in nanoseconds).
fn cpu_times(text: &[u8]) -> Option<(Duration, Duration)> {
    let mut fields = std::str::from_utf8(text).ok()?.split_ascii_whitespace();
    let mut next = || fields.next()?.parse().ok().map(Duration::from_nanos);
    Some((next()?, next()?))
}

/// How many reads [`within_bound`] refused on this thread so far: a probe compares it before
/// and after its reads, and a thread whose reads were refused is judged unknown.
pub(super) fn refusals() -> u64 {
    REFUSALS.with(Cell::get)
}

/// The process of a `/proc/PID/...` path (0 for another path).
pub(super) fn pid_of(path: &str) -> i32 {
    let pid = path.strip_prefix("/proc/").and_then(|rest| rest.split('/').next());
    pid.and_then(|pid| pid.parse().ok()).unwrap_or(0)
}

/// When process `pid` started (`starttime`, clock ticks since boot); `None` when gone. (Read
/// without [`BLAMED`] held: every caller's reads take that lock.)
fn start_time(pid: i32) -> Option<u64> {
    crate::os::procfs::read_stat(pid).ok()?.starttime
}

/// Whether process `pid`, which started at `started`, is remembered as slow (forgetting an
/// entry of its pid that started otherwise: another process's, gone).
fn is_slow(blamed: &mut Blamed, pid: i32, started: Option<u64>) -> bool {
    blamed.slow.retain(|&(slow, at)| slow != pid || Some(at) == started);
    blamed.slow.iter().any(|&(slow, _)| slow == pid)
}

/// Remembers process `pid`, which started at `started`, as slow, forgetting first those in
/// `gone` (found gone without the lock held); nothing more while the list is full of live
/// ones.
fn remember_slow(blamed: &mut Blamed, pid: i32, started: u64, gone: &[(i32, u64)]) {
    blamed.slow.retain(|entry| !gone.contains(entry));
    if blamed.slow.len() < MAX_SLOW {
        blamed.slow.push((pid, started));
    }
}

/// The processes remembered as slow that are gone, when the list is full (read without the
/// lock held: their start times).
fn gone_when_full() -> Vec<(i32, u64)> {
    let listed = {
        let blamed = blamed();
        if blamed.slow.len() < MAX_SLOW {
            return Vec::new();
        }
        blamed.slow.clone()
    };
    gone(listed)
}

/// Those of `listed` (pid, start time) that are gone: their pid's start time is another's,
/// or none (read without [`BLAMED`] held).
fn gone(listed: Vec<(i32, u64)>) -> Vec<(i32, u64)> {
    listed.into_iter().filter(|&(pid, at)| start_time(pid) != Some(at)).collect()
}

/// `read`'s answer, read on this thread's helper, waited for at most [`READ_BOUND`] from
/// when the helper began it (within [`TURN_BOUND`]), and for as long again as the helper
/// waited for the CPU meanwhile (within [`TURN_BOUND`] after it was sent: a begun read
/// preempted on a loaded machine is not the program's doing); refused when it takes longer
/// (process `pid` is then remembered as slow, when the read had the bound of its own: not
/// for one never begun, nor one that spent the rest waiting for the CPU), when `pid` is
/// remembered so, when [`MAX_STUCK`] helpers are stuck, when it panics, or when no helper
/// can be started. Every refusal is counted ([`refusals`]).
pub(super) fn within_bound<R: Send + 'static>(
    pid: i32,
    read: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Refused> {
    let answer = ask(pid, read);
    if answer.is_err() {
        REFUSALS.with(|refusals| refusals.set(refusals.get() + 1));
    }
    answer
}

/// See [`within_bound`], refusals uncounted.
fn ask<R: Send + 'static>(
    pid: i32,
    read: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Refused> {
    // (A process's start time is read only when its pid is remembered, and never with
    // `BLAMED` held.)
    let listed = pid > 0 && blamed().slow.iter().any(|&(slow, _)| slow == pid);
    let started = if listed { start_time(pid) } else { None };
    {
        let mut blamed = blamed();
        if blamed.stuck >= MAX_STUCK || listed && is_slow(&mut blamed, pid, started) {
            return Err(Refused::Slow);
        }
        let now = Instant::now();
        blamed.held.retain(|&(_, until)| until > now);
        if pid > 0 && blamed.held.iter().any(|&(held, _)| held == pid) {
            return Err(Refused::Slow);
        }
    }
    let (answer, answered) = crossbeam_channel::bounded(1);
    let abandoned = Arc::new(AtomicBool::new(false));
    let given_up = Arc::clone(&abandoned);
    // When the helper began the read.
    let began = Arc::new(Mutex::new(None));
    let begins = Arc::clone(&began);
    let job: Job = Box::new(move || {
        *begins.lock().unwrap_or_else(PoisonError::into_inner) = Some(Begun::now());
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
        // (One answer into room for one: never full. Its caller may have gone.)
        let _ = answer.send(read.map_err(|_| Refused::Failed));
        let mut blamed = blamed();
        if given_up.load(Ordering::Relaxed) {
            blamed.stuck -= 1;
        }
    });
    let sent = HELPER.with(|helper| {
        let mut helper = helper.borrow_mut();
        let ready = match &*helper {
            Some(ready) => ready,
            None => helper.insert(start_helper().ok_or(Refused::Failed)?),
        };
        ready.send(job).map_err(|_| Refused::Failed)
    });
    if sent.is_err() {
        HELPER.with(|helper| helper.borrow_mut().take());
        return Err(Refused::Failed);
    }
    // A read gets the bound from when it began; one not begun (its helper waiting for the
    // CPU) is looked at again until `TURN_BOUND` after it was sent. A begun read also gets the
    // time its helper has waited for the CPU since (preempted just after it began), until
    // `TURN_BOUND` after it was sent. Its process is blamed only when the read had the bound
    // of its own: under a CI run a read of a few bytes of `ssh`'s poll array, not begun
    // 270-400 ms after it was sent or preempted 85 ms after it began, blamed `ssh` for its
    // life, and every wait for its far end read unknown to its timeout.
    let sent_at = Instant::now();
    let mut extended = None;
    let own_time = loop {
        let begun = *began.lock().unwrap_or_else(PoisonError::into_inner);
        if begun.is_none() && sent_at.elapsed() >= TURN_BOUND {
            break None;
        }
        let deadline = match begun {
            Some(begun) => extended.unwrap_or(begun.at + READ_BOUND),
            None => (sent_at + TURN_BOUND).min(Instant::now() + READ_BOUND),
        };
        match answered.recv_deadline(deadline) {
            Ok(answer) => return answer,
            Err(RecvTimeoutError::Disconnected) => return Err(Refused::Failed),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Some(begun) = begun {
            let own = begun.own_time().unwrap_or_else(|| begun.at.elapsed());
            if own >= READ_BOUND || sent_at.elapsed() >= TURN_BOUND {
                break Some(own);
            }
            let rest = (READ_BOUND - own).max(Duration::from_millis(5));
            extended = Some((Instant::now() + rest).min(sent_at + TURN_BOUND));
        }
    };
    // (A read not begun, or that had less than the bound of its own, the rest spent waiting
    // for the CPU, blames no one: the machine's load held it up, not the program.)
    let blames = own_time.is_some_and(|own| own >= READ_BOUND);
    let started = if pid > 0 && blames { start_time(pid) } else { None };
    let gone = if started.is_some() { gone_when_full() } else { Vec::new() };
    let mut blamed = blamed();
    // (Answered meanwhile: its job takes the lock only after, and finds itself not
    // abandoned.)
    if let Ok(answer) = answered.try_recv() {
        return answer;
    }
    abandoned.store(true, Ordering::Relaxed);
    blamed.stuck += 1;
    HELPER.with(|helper| helper.borrow_mut().take());
    if let Some(started) = started {
        remember_slow(&mut blamed, pid, started, &gone);
    } else if pid > 0 && !blames && blamed.held.len() < MAX_SLOW {
        blamed.held.push((pid, Instant::now() + HELD_FOR));
    }
    Err(Refused::Slow)
}

/// (Tests) Forgets that process `pid`'s reads are held ([`HELD_FOR`]).
#[cfg(test)]
fn forget_held(pid: i32) {
    blamed().held.retain(|&(held, _)| held != pid);
}

/// The text of the `fdinfo` file at `path` (`/proc/PID/…/fdinfo/N`), read [`within_bound`]:
/// an epoll set's waits for the set's lock. `None` where it cannot be read, or not in time.
pub(super) fn read_fdinfo(path: &str) -> Option<String> {
    use std::io::Read;
    let owned = path.to_owned();
    let read = move || {
        let mut text = String::new();
        let file = std::fs::File::open(owned).ok()?;
        file.take(FDINFO_BYTES).read_to_string(&mut text).ok()?;
        Some(text)
    };
    within_bound(pid_of(path), read).ok().flatten()
}

/// (Tests) Remembers live process `pid` as slow, as a read of it that took longer than the
/// bound would have.
#[cfg(test)]
pub(super) fn remember_as_slow(pid: i32) {
    let started = start_time(pid).expect("a live process");
    remember_slow(&mut blamed(), pid, started, &[]);
}

/// A new helper: a thread that runs the reads sent to it until its sender is dropped.
fn start_helper() -> Option<Sender<Job>> {
    let (jobs, taken) = crossbeam_channel::unbounded::<Job>();
    let helper = std::thread::Builder::new().name("termloom-proc".into());
    helper.spawn(move || taken.iter().for_each(|job| job())).ok()?;
    Some(jobs)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A child that lives until dropped: a process whose start time can be read.
    pub(in crate::os::procfs::linux) struct Sleeper(std::process::Child);

    impl Drop for Sleeper {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    impl Sleeper {
        pub(in crate::os::procfs::linux) fn id(&self) -> u32 {
            self.0.id()
        }
    }

    /// A `sleep 1000`, begun (exec'd) once this returns.
    pub(in crate::os::procfs::linux) fn sleeper() -> Sleeper {
        let mut sleep = std::process::Command::new("sleep");
        sleep.arg("1000").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        Sleeper(sleep.spawn().unwrap())
    }

    fn end(child: Sleeper) {
        drop(child);
    }

    #[test]
    fn a_read_that_does_not_end_is_refused_and_its_process_is_slow_for_its_life() {
        let (held, other) = (sleeper(), sleeper());
        let (held_pid, other_pid) = (held.id() as i32, other.id() as i32);
        let (release, released) = crossbeam_channel::bounded::<()>(0);
        let refused = refusals();
        assert_eq!(within_bound(held_pid, || 1), Ok(1));
        refused_the_bound_after_it_began(held_pid, move || {
            let _ = released.recv();
        });
        assert_eq!(within_bound(held_pid, || 2), Err(Refused::Slow), "refused while stuck");
        assert_eq!(within_bound(other_pid, || 3), Ok(3), "another helper reads the others");
        assert_eq!(refusals(), refused + 2, "each refusal counted");
        release.send(()).unwrap();
        // (The stuck read has ended: its process is still slow, at once.)
        let began = std::time::Instant::now();
        assert_eq!(within_bound(held_pid, || 4), Err(Refused::Slow), "slow for its life");
        assert!(began.elapsed() < READ_BOUND, "refused without waiting");
        end(held);
        end(other);
    }

    /// Checks that `read` of process `pid` is refused the bound after it began (later only by
    /// as long as its helper waited for the CPU meanwhile, on a loaded machine: then at most
    /// [`TURN_BOUND`] after it was sent, and the caller's own turn for the CPU).
    fn refused_the_bound_after_it_began(pid: i32, read: impl FnOnce() + Send + 'static) {
        let (begins, began) = crossbeam_channel::bounded(1);
        let answer = within_bound(pid, move || {
            begins.send(Instant::now()).unwrap();
            read()
        });
        assert_eq!(answer, Err(Refused::Slow));
        let took = began.recv().unwrap().elapsed();
        let latest = TURN_BOUND + READ_BOUND;
        assert!(took >= READ_BOUND && took < latest, "refused {took:?} after it began");
    }

    /// Spins on this thread (runnable throughout) for `time`.
    fn spin(time: Duration) {
        let began = std::time::Instant::now();
        while began.elapsed() < time {
            std::hint::spin_loop();
        }
    }

    /// A read that works on the CPU past the bound (a program made it long: an epoll set's
    /// `fdinfo` of many watches) is refused the bound after it began, not waited for up to
    /// [`TURN_BOUND`] as one not begun is (on a loaded machine, only as long again as it
    /// waited for the CPU), and its process is slow.
    #[test]
    fn a_read_working_past_the_bound_is_refused_the_bound_after_it_began() {
        let working = sleeper();
        let pid = working.id() as i32;
        refused_the_bound_after_it_began(pid, || spin(READ_BOUND * 6));
        assert_eq!(within_bound(pid, || 1), Err(Refused::Slow), "its process slow");
        end(working);
    }

    /// A read begun, then kept off the CPU past the bound by another thread on its CPU (its
    /// helper preempted on a loaded machine), is waited for as long as its helper waited for
    /// the CPU, within [`TURN_BOUND`], and blames no one: it was refused 50 ms after it began
    /// and its process was slow for its life (a read of `ssh`'s poll array, under a CI run:
    /// the remote prompt's wait read unknown to its end, 1 run in 45).
    #[test]
    fn a_read_kept_off_the_cpu_past_the_bound_is_answered_and_blames_no_one() {
        let process = sleeper();
        let pid = process.id() as i32;
        // (Up to three times: one begun late on a loaded machine may pass `TURN_BOUND`,
        // refused then, but blaming no one; a refusal holds the process for `HELD_FOR`, so
        // the hold is forgotten before each.)
        let mut answers = Vec::new();
        beside_a_hog(|cpu| {
            while answers.len() < 3 && !answers.contains(&Ok(7)) {
                forget_held(pid);
                answers.push(within_bound(pid, yielding(cpu, READ_BOUND * 2)));
            }
        });
        if answers.is_empty() {
            return;
        }
        assert!(answers.contains(&Ok(7)), "refused though it waited for the CPU: {answers:?}");
        forget_held(pid);
        assert_eq!(within_bound(pid, || 8), Ok(8), "its process is not slow");
        end(process);
    }

    /// A read refused with no one blamed (kept off the CPU past `TURN_BOUND`: a load that
    /// lasts) holds its process for [`HELD_FOR`]: its further reads are refused at once, not
    /// each after up to `TURN_BOUND` (review xn: 8 reads cost 2 s, and so every probe), and it
    /// is tried again once the hold ends: not slow for its life.
    #[test]
    fn a_read_held_up_by_load_holds_its_process_a_while() {
        let process = sleeper();
        let pid = process.id() as i32;
        let mut refused = None;
        beside_a_hog(|cpu| refused = Some(within_bound(pid, yielding(cpu, TURN_BOUND * 2))));
        let Some(refused) = refused else { return };
        assert_eq!(refused, Err(Refused::Slow));
        let began = Instant::now();
        for _ in 0..8 {
            assert_eq!(within_bound(pid, || 2), Err(Refused::Slow), "held");
        }
        assert!(began.elapsed() < READ_BOUND, "8 held reads took {:?}", began.elapsed());
        // (The hold's end brought forward to now: it ends as its time passes, review xo.)
        blamed().held.iter_mut().filter(|(held, _)| *held == pid).for_each(|(_, until)| {
            *until = Instant::now();
        });
        assert_eq!(within_bound(pid, || 3), Ok(3), "tried again once the hold ends");
        end(process);
    }

    /// Runs `f` with a thread spinning on one CPU, given to `f`, and this thread on another
    /// (which the spinner does not keep from seeing a bound's end); not where the kernel
    /// gives no `schedstat` or fewer than two CPUs are allowed.
    fn beside_a_hog(f: impl FnOnce(rustix::thread::CpuSet)) {
        let own = std::fs::read("/proc/thread-self/schedstat").unwrap_or_default();
        if cpu_times(&own).is_none() {
            return;
        }
        let allowed = rustix::thread::sched_getaffinity(None).unwrap();
        let cpus: Vec<usize> =
            (0..rustix::thread::CpuSet::MAX_CPU).filter(|&n| allowed.is_set(n)).take(2).collect();
        let [caller, hogged] = cpus[..] else { return };
        let mut own = rustix::thread::CpuSet::new();
        own.set(caller);
        rustix::thread::sched_setaffinity(None, &own).unwrap();
        let mut cpu = rustix::thread::CpuSet::new();
        cpu.set(hogged);
        let stop = Arc::new(AtomicBool::new(false));
        let (ready, hogging) = crossbeam_channel::bounded(1);
        let hog = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                rustix::thread::sched_setaffinity(None, &cpu).unwrap();
                ready.send(()).unwrap();
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        };
        hogging.recv().unwrap();
        f(cpu);
        stop.store(true, Ordering::Relaxed);
        hog.join().unwrap();
        rustix::thread::sched_setaffinity(None, &allowed).unwrap();
    }

    /// A read that moves its helper to `cpu` (the hog's) and gives it the CPU for `time`:
    /// runnable throughout, running for microseconds; answers 7.
    fn yielding(cpu: rustix::thread::CpuSet, time: Duration) -> impl FnOnce() -> i32 + Send {
        move || {
            rustix::thread::sched_setaffinity(None, &cpu).unwrap();
            let began = Instant::now();
            while began.elapsed() < time {
                rustix::thread::sched_yield();
            }
            7
        }
    }

    /// Reads sent from other threads while one is stuck are answered (they waited behind
    /// the stuck one on a helper all callers shared, timed out, and their process was blamed).
    #[test]
    fn a_read_from_another_thread_does_not_wait_behind_a_stuck_one() {
        let (held, innocent) = (sleeper(), sleeper());
        let (held_pid, innocent_pid) = (held.id() as i32, innocent.id() as i32);
        let (release, released) = crossbeam_channel::bounded::<()>(0);
        let (start, started) = crossbeam_channel::bounded::<()>(1);
        let stuck = std::thread::spawn(move || {
            within_bound(held_pid, move || {
                start.send(()).unwrap();
                released.recv()
            })
        });
        started.recv().unwrap();
        // (Each read from a new thread, until the stuck one is given up, and one after.)
        let mut answers = Vec::new();
        let mut n = 0;
        loop {
            let given_up = stuck.is_finished();
            answers.push(std::thread::spawn(move || within_bound(innocent_pid, move || n)).join());
            n += 1;
            if given_up {
                break;
            }
        }
        release.send(()).unwrap();
        assert_eq!(stuck.join().unwrap(), Err(Refused::Slow));
        let answers: Vec<_> = answers.into_iter().map(Result::unwrap).collect();
        assert_eq!(answers, (0..n).map(Ok).collect::<Vec<_>>());
        end(held);
        end(innocent);
    }

    /// (Unwound without the panic hook, whose backtrace can take longer than the bound.)
    #[test]
    fn a_read_that_panics_fails_without_blaming_its_process() {
        let process = sleeper();
        let pid = process.id() as i32;
        assert_eq!(
            within_bound(pid, || -> i32 { std::panic::resume_unwind(Box::new(())) }),
            Err(Refused::Failed)
        );
        assert_eq!(within_bound(pid, || 5), Ok(5), "its process is not slow");
        end(process);
    }

    /// Full of live processes, the slow list remembers no more (forgetting its oldest made 65
    /// slow processes cost a bound each a probe), and forgets only those gone.
    #[test]
    fn a_slow_list_full_of_live_processes_remembers_no_more_and_forgets_only_the_gone() {
        let mut sleepers: Vec<Sleeper> = (0..=MAX_SLOW).map(|_| sleeper()).collect();
        let listed: Vec<(i32, u64)> = sleepers
            .iter()
            .map(|sleeper| (sleeper.id() as i32, start_time(sleeper.id() as i32).unwrap()))
            .collect();
        let mut blamed = Blamed { stuck: 0, slow: Vec::new(), held: Vec::new() };
        for &(pid, at) in &listed[..MAX_SLOW] {
            remember_slow(&mut blamed, pid, at, &[]);
        }
        let (extra, extra_at) = listed[MAX_SLOW];
        let slow = |blamed: &mut Blamed, &(pid, at): &(i32, u64)| is_slow(blamed, pid, Some(at));
        let gone_now = gone(blamed.slow.clone());
        remember_slow(&mut blamed, extra, extra_at, &gone_now);
        assert!(!slow(&mut blamed, &listed[MAX_SLOW]), "remembered past a full list of live ones");
        assert!(listed[..MAX_SLOW].iter().all(|entry| slow(&mut blamed, entry)), "one forgotten");
        // (Reaped: its pid has no start time, or another's.)
        end(sleepers.remove(0));
        let gone_now = gone(blamed.slow.clone());
        remember_slow(&mut blamed, extra, extra_at, &gone_now);
        assert!(slow(&mut blamed, &listed[MAX_SLOW]), "not remembered once one was gone");
        assert_eq!(blamed.slow.len(), MAX_SLOW, "the gone one forgotten");
        assert!(listed[1..].iter().all(|entry| slow(&mut blamed, entry)), "a live one forgotten");
        sleepers.into_iter().for_each(end);
    }

    #[test]
    fn the_process_of_a_proc_path() {
        assert_eq!(pid_of("/proc/123/task/456"), 123);
        assert_eq!(pid_of("/proc/77"), 77);
        assert_eq!(pid_of("/tmp/x"), 0);
    }
}
