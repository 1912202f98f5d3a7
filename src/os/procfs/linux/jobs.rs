//! Jobs: children a member of the terminal's foreground group runs in a POSIX session of
//! their own, with no controlling terminal, and whose output it shows when they end, while
//! it goes on reading the terminal (neovim runs `:!cmd`, `:make`, `:r !cmd` and `system()`
//! so: libuv starts them detached, on pipes or socket pairs, and neovim's terminal thread
//! keeps reading keys into its typeahead meanwhile).

use super::input_at as input_at_of;
use super::*;
use std::time::Duration;

/// The most processes of a group's jobs one probe looks at: a job's shell, its pipeline and
/// their children (`:!make` runs `sh -c make`, make runs the compiler). A job with more is
/// undecided.
const JOB_PROCESSES: usize = 16;

/// The most children of a member the jobs are looked for among: a member with more (a shell
/// with 70 background jobs) is judged without its jobs, by its group's own answer.
const MEMBER_CHILDREN: usize = 64;

/// What the jobs the members of a group (`members`) started since the group last waited make
/// of the group, which otherwise waits for input: busy while a process of one is at work
/// (running, or in a disk wait) or on a clock that goes off within [`CLOCK_HORIZON`] (`:!sleep
/// 2; echo done` in neovim, whose answer comes when the sleep ends); asleep with them when they
/// only sleep longer than that or wait for their children that do (`:!sleep 300`); `None` when
/// there is no such job, or one waits on anything else (on its pipe for the editor's requests):
/// the group's own answer stands. A job counts when it started since the last input, or since
/// the group was last found waiting (kept across probes in `probe.timers`, once two readings
/// in a row found it so: a single one may have caught a job between two states): neovim
/// queues a key typed while its `:!cmd` runs until it ends (whose output it may show as it
/// comes). A job present when the group waited is a server and is not looked at; a server on a clock (a
/// language server neovim starts detached, polling on a timer) is taken for work until once
/// found without one: slow, never a false wait. Nor is a child looked at that
/// holds a terminal (a `:terminal`'s shell, which leads a session on a terminal of its own:
/// see [`hosted_wait`]).
pub(super) fn job_verdict(
    members: &[ProcStat],
    candidates: Option<&[i32]>,
    probe: Probe<'_>,
) -> Option<InputWait> {
    let seen = probe.timers.map(|timers| &timers.jobs);
    let verdict = judge_jobs(members, candidates, probe);
    probe.looks.job_answered.set(verdict.is_some());
    if let Some(seen) = seen {
        // (Kept once the next reading finds the group waiting too: see `JobsSeen`.)
        let pids: Vec<i32> = members.iter().map(|m| m.pid).collect();
        match verdict {
            None => seen.waiting(&pids, std::time::Instant::now()),
            Some(_) => seen.at_work(&pids),
        }
    }
    verdict
}

/// [`job_verdict`]'s answer, what it keeps aside.
fn judge_jobs(
    members: &[ProcStat],
    candidates: Option<&[i32]>,
    probe: Probe<'_>,
) -> Option<InputWait> {
    let input_at = probe.input_at?;
    let seen = probe.timers.map(|timers| &timers.jobs);
    let mut pending: Vec<(ProcStat, i32)> = Vec::new();
    for member in members.iter().filter(|m| has_live_threads(m)) {
        // Since the input, or since the group last waited if that was earlier.
        let waited = seen.and_then(|seen| seen.waited(member.pid));
        let waited_at = input_at_of(waited.map(|at| at.elapsed()));
        let since = waited_at.map_or(input_at, |waited| waited.min(input_at));
        let Some(children) = children_within(member.pid, candidates, MEMBER_CHILDREN) else {
            continue;
        };
        let jobs = children
            .into_iter()
            .filter(|child| detached_from(child, member) && started_since(child, since));
        pending.extend(jobs.map(|job| (job, member.pid)));
    }
    if pending.is_empty() {
        return None;
    }
    if pending.len() > JOB_PROCESSES {
        return Some(too_many(pending[0].1));
    }
    // The sleep that ends soonest, with its reason, while every process looked at only
    // sleeps so or waits for its children.
    let mut asleep: Option<(String, std::time::Duration)> = Some((String::new(), Duration::MAX));
    let mut looked = 0;
    // A job draws nothing until it ends: the terminal's quiet tells none of its sleeps or timed
    // polls from an idle tick, so any within the horizon is work (`:!sleep 1; sleep 1`).
    let probe = Probe { quiet: Duration::ZERO, timers: None, ..probe };
    while let Some((process, parent)) = pending.pop() {
        looked += 1;
        let who = format!("pid {} ({}), a job of pid {parent}", process.pid, process.comm);
        // Listed, then gone before its look: it just ended, and its parent is woken by it.
        let Some((_, threads)) = observe_process(process.pid, probe) else {
            return Some(InputWait::NotWaiting { reason: format!("{who}, has just ended") });
        };
        if threads.iter().any(|t| matches!(t.activity, Activity::NotSleeping('R' | 'D'))) {
            return Some(InputWait::NotWaiting { reason: format!("{who}, is at work") });
        }
        if let Some(timer) = threads.iter().find_map(|t| t.clock) {
            let ms = timer.as_millis();
            let reason = format!("{who}, waits on a clock that goes off within {ms} ms");
            return Some(InputWait::NotWaiting { reason });
        }
        // Seen asleep as it woke or ended (a loop's `sleep 1`, its memory gone before its
        // timer was read, reads as a sleep of no length): at work, and its parent woken by it.
        if woke(process.pid) {
            return Some(InputWait::NotWaiting { reason: format!("{who}, has just woken") });
        }
        let only_asleep =
            threads.iter().all(|t| t.long_sleep.is_some() || for_children(t) || on_a_lock(t));
        match threads.iter().filter_map(|t| t.long_sleep).min() {
            _ if !only_asleep => asleep = None,
            Some(timer) if asleep.as_ref().is_some_and(|(_, soonest)| timer < *soonest) => {
                let reason = format!("{who}, sleeps {} s more", timer.as_secs());
                asleep = Some((reason, timer));
            }
            _ => {}
        }
        // (Those looked at, those pending and these children: at most `JOB_PROCESSES`.)
        let room = JOB_PROCESSES.saturating_sub(looked + pending.len());
        let Some(descendants) = children_within(process.pid, candidates, room) else {
            return Some(too_many(parent));
        };
        if reaping(process.pid, &threads, descendants.len()) {
            let reason = format!("{who}, reaps a child that has just ended");
            return Some(InputWait::NotWaiting { reason });
        }
        let session = process.session;
        pending
            .extend(descendants.into_iter().filter(|c| c.session == session).map(|c| (c, parent)));
    }
    asleep
        .filter(|(reason, _)| !reason.is_empty())
        .map(|(reason, timer)| InputWait::Sleeping { reason, timer })
}

/// Whether process `pid`, whose threads were seen as `threads`, with `live_children`
/// children alive when listed after that look, is reaping a child: a thread waited for
/// children, none is left alive, and one has ended unreaped (a zombie) or the process has
/// woken since (it reaped it: a shell's `sleep 1` in a loop, seen just before it ended;
/// taken for a job asleep with nothing to wait for, it left the group waiting for input and
/// made the job a server, present when the group waited, for every look after). Not a
/// tracer (`strace -p`), which waits for its tracees with no child at all, asleep (review
/// vo: a program that started one then read its terminal read busy until the next input).
fn reaping(pid: i32, threads: &[ThreadObs], live_children: usize) -> bool {
    live_children == 0 && threads.iter().any(for_children) && (has_ended_child(pid) || woke(pid))
}

/// Whether process `pid` has a child that ended and is not reaped yet (a zombie), among
/// those its main thread started.
fn has_ended_child(pid: i32) -> bool {
    let children = crate::os::procfs::read_pids(&format!("/proc/{pid}/task/{pid}/children"));
    children.is_ok_and(|children| {
        children.iter().any(|child| {
            crate::os::procfs::read_bytes(&format!("/proc/{child}/stat"))
                .ok()
                .and_then(|data| parse_stat(&data).ok())
                .is_some_and(|stat| stat.state == 'Z')
        })
    })
}

/// Whether process `pid`, seen asleep, has woken or ended since: read now (one `stat`, not
/// as the look first read it), it runs (or exits: `R`), is in a disk wait, or has no thread
/// alive, or is gone. Read as bytes: a process whose name is not UTF-8 is read again too (as
/// text, it was not, and read as asleep).
fn woke(pid: i32) -> bool {
    match crate::os::procfs::read_bytes_now(&format!("/proc/{pid}/stat")) {
        Ok(data) => parse_stat(&data)
            .is_ok_and(|stat| !has_live_threads(&stat) || matches!(stat.state, 'R' | 'D')),
        Err(err) => is_gone(&err),
    }
}

/// The answer when the jobs of `member` hold more processes than a probe looks at: undecided,
/// neither waiting nor busy.
fn too_many(member: i32) -> InputWait {
    let reason = format!("pid {member} runs more jobs and children than a probe looks at");
    InputWait::Unknown { reason }
}

/// Whether `process` started at or after `at` (on `CLOCK_BOOTTIME`: when the last input was
/// sent, or when a group last waited): its start is in clock ticks, rounded down, so one
/// started a tick or less before is taken to have started after (a group's leader, too: see
/// [`started_since_input`]). Both are times, not ages, so that the time a probe takes before it
/// reads the start makes no job started after the input look older than it.
pub(super) fn started_since(process: &ProcStat, at: Duration) -> bool {
    let tick = Duration::from_secs(1) / rustix::param::clock_ticks_per_second().max(1) as u32;
    started_at(process).is_some_and(|started| started + tick >= at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job's process seen asleep that has woken since (at work), or ended (a zombie, or
    /// reaped), has woken; one still asleep has not.
    #[test]
    fn a_process_that_woke_or_ended_since_its_look_has_woken() {
        let mut spin =
            std::process::Command::new("sh").args(["-c", "while :; do :; done"]).spawn().unwrap();
        let working = woke(spin.id() as i32);
        spin.kill().unwrap();
        spin.wait().unwrap();
        assert!(working, "at work");
        let mut sleep = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = sleep.id() as i32;
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while crate::os::procfs::read_stat(pid).is_ok_and(|stat| stat.state != 'S') {
            assert!(std::time::Instant::now() < deadline, "sleep never slept");
            std::thread::yield_now();
        }
        assert!(!woke(pid), "asleep");
        sleep.kill().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while crate::os::procfs::read_stat(pid).is_ok_and(|stat| stat.state != 'Z') {
            assert!(std::time::Instant::now() < deadline, "sleep never ended");
            std::thread::yield_now();
        }
        assert!(woke(pid), "a zombie");
        sleep.wait().unwrap();
        assert!(woke(pid), "reaped");
    }

    /// A single reading that finds a job at rest (blocked on its pipe, as a look may catch a
    /// job between two states) leaves it a job for a later input, once it works again: kept
    /// as its group's wait, that reading made the job a server, present when the group
    /// waited, and the group read waiting with the job at work. Two readings in a row keep
    /// the wait (the job, started before them, a server then).
    #[test]
    fn a_single_reading_of_a_job_at_rest_leaves_it_a_job() {
        use std::io::Write;
        let timers = crate::os::procfs::TimerSightings::default();
        let looks = crate::os::procfs::Looks::new();
        let probe = |input_at| Probe {
            timers: Some(&timers),
            input_at: Some(input_at),
            ..Probe::quiet_for(Duration::ZERO, &looks)
        };
        let now = || input_at_of(Some(Duration::ZERO)).unwrap();
        let state = |pid: i32| crate::os::procfs::read_stat(pid).ok().map(|stat| stat.state);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let until = |what: &str, done: &dyn Fn() -> bool| {
            while !done() {
                assert!(std::time::Instant::now() < deadline, "{what}");
                std::thread::yield_now();
            }
        };
        // A shell that starts its job, in a session of its own, on a line; the job reads a
        // line, then works.
        let script = "read go; setsid sh -c 'read x; while :; do :; done'; :";
        let mut shell = std::process::Command::new("sh")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = shell.id() as i32;
        let mut input = shell.stdin.take().unwrap();
        let input_at = now();
        until("sh never read", &|| state(pid) == Some('S'));
        let member = || vec![crate::os::procfs::read_stat(pid).unwrap()];
        // The group found waiting twice, with no job: kept.
        assert_eq!(job_verdict(&member(), None, probe(input_at)), None);
        assert_eq!(job_verdict(&member(), None, probe(input_at)), None);
        input.write_all(b"go\n").unwrap();
        let job = || {
            children(pid, None)
                .into_iter()
                .find(|c| c.comm == "sh" && c.session == c.pid)
                .map(|c| c.pid)
        };
        until("the job never read", &|| job().is_some_and(|job| state(job) == Some('S')));
        let job = job().unwrap();
        // (Two clock ticks and more after the job started: a start within a tick of the
        // reading counts whatever the reading did.)
        let later = std::time::Instant::now() + Duration::from_millis(100);
        while std::time::Instant::now() < later {
            std::hint::spin_loop();
        }
        // The one reading at rest.
        assert_eq!(job_verdict(&member(), None, probe(input_at)), None);
        input.write_all(b"x\n").unwrap();
        until("the job never worked", &|| state(job) == Some('R'));
        let verdict = job_verdict(&member(), None, probe(now()));
        let kill = |pid| {
            let pid = rustix::process::Pid::from_raw(pid).unwrap();
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        };
        kill(job);
        kill(pid);
        shell.wait().unwrap();
        assert!(matches!(verdict, Some(InputWait::NotWaiting { .. })), "{verdict:?}");
    }

    /// A job process whose name is not UTF-8 (a shell run as a file named `sh\xff`) that
    /// woke is read again as any other: read as text, its `stat` failed, and it read as
    /// asleep.
    #[test]
    fn a_process_whose_name_is_not_utf8_is_read_again() {
        use std::os::unix::ffi::OsStrExt;
        let dir = std::env::temp_dir().join(format!("termloom-woke-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join(std::ffi::OsStr::from_bytes(b"sh\xff"));
        std::os::unix::fs::symlink("/bin/sh", &program).unwrap();
        let spin = std::process::Command::new(&program).args(["-c", "while :; do :; done"]).spawn();
        let _ = std::fs::remove_dir_all(&dir);
        let mut spin = spin.unwrap();
        let pid = spin.id() as i32;
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !crate::os::procfs::read_stat(pid).is_ok_and(|stat| stat.comm == "sh\u{fffd}") {
            assert!(std::time::Instant::now() < deadline, "sh\\xff never ran");
            std::thread::yield_now();
        }
        let working = woke(pid);
        spin.kill().unwrap();
        spin.wait().unwrap();
        assert!(working, "at work");
    }

    /// A job's shell seen waiting for its child, whose children are listed after the child
    /// ended (a loop's `sleep 1`), is reaping it: at work, not asleep with nothing to wait for
    /// (a key typed into a neovim `:!for` loop read `nvim waiting for keys` 1.2 s after it,
    /// the loop made a server for every look after). A shell with its child alive is not, nor
    /// is a process that waits for no child.
    #[test]
    fn a_wait_for_children_none_of_which_is_alive_is_reaping() {
        let mut shell = std::process::Command::new("sh")
            .args(["-c", "sleep 30; exit"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = shell.id() as i32;
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let (threads, children) = loop {
            let threads = process_observed(pid, Duration::ZERO).map(|(_, threads)| threads);
            let children = children(pid, None);
            if let Some(threads) = threads.filter(|t| t.iter().any(for_children))
                && !children.is_empty()
            {
                break (threads, children);
            }
            assert!(std::time::Instant::now() < deadline, "sh never waited for its sleep");
            std::thread::yield_now();
        };
        let sleep = children[0].pid;
        let sleep_threads = process_observed(sleep, Duration::ZERO).map(|(_, threads)| threads);
        let signal = |pid: i32, signal| {
            let _ =
                rustix::process::kill_process(rustix::process::Pid::from_raw(pid).unwrap(), signal);
        };
        assert!(!reaping(pid, &threads, children.len()), "its sleep alive: asleep with it");
        assert!(!reaping(pid, &threads, 0), "no child ended: asleep (a tracer's wait)");
        // The shell stopped, its sleep ends unreaped: the look that saw it wait was just before.
        signal(pid, rustix::process::Signal::STOP);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while crate::os::procfs::read_stat(pid).is_ok_and(|stat| stat.state != 'T') {
            assert!(std::time::Instant::now() < deadline, "sh never stopped");
            std::thread::yield_now();
        }
        signal(sleep, rustix::process::Signal::KILL);
        while crate::os::procfs::read_stat(sleep).is_ok_and(|stat| stat.state != 'Z') {
            assert!(std::time::Instant::now() < deadline, "sleep never ended");
            std::thread::yield_now();
        }
        assert!(reaping(pid, &threads, 0), "its sleep ended after the look: reaping it");
        assert!(!reaping(sleep, &sleep_threads.unwrap(), 0), "a sleep waits for no child");
        signal(pid, rustix::process::Signal::KILL);
        signal(pid, rustix::process::Signal::CONT);
        shell.wait().unwrap();
    }

    /// A job started after the input counts however long the probe took before it read the
    /// job's start (an age read then, against the time since the input taken as the probe
    /// began, made it look older than the input).
    #[test]
    fn a_job_started_after_the_input_counts_however_late_it_is_looked_at() {
        let at = input_at_of(Some(Duration::ZERO)).unwrap();
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        let stat = crate::os::procfs::read_stat(child.id() as i32).unwrap();
        // (The rest of a probe, before it gets to the job.)
        let later = std::time::Instant::now() + Duration::from_millis(100);
        while std::time::Instant::now() < later {
            std::hint::spin_loop();
        }
        let counted = started_since(&stat, at);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(counted);
        assert!(!started_since(&stat, at + Duration::from_secs(1)), "one a second older");
    }
}
