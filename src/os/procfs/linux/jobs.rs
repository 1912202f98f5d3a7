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
/// the group was last found waiting (kept across probes in `probe.timers`): neovim queues a key
/// typed while its `:!cmd` runs until it ends (whose output it may show as it comes). A job
/// present when the group waited is a server and is not looked at; a server on a clock (a
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
    if let Some(seen) = seen.filter(|_| verdict.is_none()) {
        let pids: Vec<i32> = members.iter().map(|m| m.pid).collect();
        seen.waiting(&pids, std::time::Instant::now());
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
        let Some((_, threads)) = observe_process(process.pid, probe) else { continue };
        let who = format!("pid {} ({}), a job of pid {parent}", process.pid, process.comm);
        if threads.iter().any(|t| matches!(t.activity, Activity::NotSleeping('R' | 'D'))) {
            return Some(InputWait::NotWaiting { reason: format!("{who}, is at work") });
        }
        if let Some(timer) = threads.iter().find_map(|t| t.clock) {
            let ms = timer.as_millis();
            let reason = format!("{who}, waits on a clock that goes off within {ms} ms");
            return Some(InputWait::NotWaiting { reason });
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
        let session = process.session;
        pending
            .extend(descendants.into_iter().filter(|c| c.session == session).map(|c| (c, parent)));
    }
    asleep
        .filter(|(reason, _)| !reason.is_empty())
        .map(|(reason, timer)| InputWait::Sleeping { reason, timer })
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
