//! When the groups of a session were last found waiting for input with their jobs (see
//! `linux::job_verdict`), kept across probes: neovim queues a key typed while its `:!cmd` runs
//! until the command ends, so a job started before that key, since its group last waited,
//! still answers for the group; one present when the group waited is a server. A wait is
//! kept only once a later reading confirms it, with none in between finding the group or a
//! job of it at work: a single reading that found no job at work may have caught one between
//! two states (or blocked a moment on its pipe), and kept, it made that job a server for
//! every look after. A reading that finds a job of the group at rest confirms the wait only
//! [`AT_REST_CONFIRMED`] after the first: the engine reads a group several times within a
//! few milliseconds for one request, and a job resting on a pipe a moment (neovim's `:!read
//! x <fifo; sleep 3`) read as a server once two of those readings found it so.

use std::cell::RefCell;
use std::time::{Duration, Instant};

/// How many members [`JobsSeen`] keeps the time of, all groups together (and as many first
/// sightings not confirmed yet).
const MEMBERS_KEPT: usize = 16;

/// How long after the first sighting of a group's wait a reading that finds a job of it at
/// rest confirms the wait, none at work in between: longer than the readings made for one
/// request take (a wait's two, 5 ms apart, on a loaded machine; a status after it), so that
/// the job rests across two separate looks before it is taken for a server.
pub(super) const AT_REST_CONFIRMED: Duration = Duration::from_millis(500);

/// When each member's group was last found waiting for input, its jobs judged (the newest
/// first), and the sightings of a wait not confirmed yet.
#[derive(Debug, Default)]
pub(crate) struct JobsSeen {
    waited: RefCell<Vec<(i32, Instant)>>,
    /// Members whose group the last reading of it found waiting, with when, where the reading
    /// before it did not (the newest first).
    sighted: RefCell<Vec<(i32, Instant)>>,
}

impl JobsSeen {
    /// When the group of member `pid` was last found waiting, if it was (and confirmed).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn waited(&self, pid: i32) -> Option<Instant> {
        self.waited.borrow().iter().find(|(member, _)| *member == pid).map(|&(_, at)| at)
    }

    /// Records that a reading found the group of `members` waiting at `at`, a job of it at
    /// rest (`jobs_at_rest`) or none. For a member whose group an earlier reading found
    /// waiting too (with none in between finding it or a job of it at work), the wait is
    /// confirmed, at that first sighting's time (the earlier: a job started since counts):
    /// at once when this reading found no job, only [`AT_REST_CONFIRMED`] after the first
    /// when it found one at rest (until then the first sighting stays). Otherwise this is
    /// that first sighting. Past [`MEMBERS_KEPT`] the oldest go.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn waiting(&self, members: &[i32], at: Instant, jobs_at_rest: bool) {
        let mut sighted = self.sighted.borrow_mut();
        let mut confirmed = Vec::new();
        let mut first = Vec::new();
        for &member in members.iter().take(MEMBERS_KEPT) {
            match sighted.iter().find(|(pid, _)| *pid == member) {
                Some(&(_, since))
                    if jobs_at_rest && at.saturating_duration_since(since) < AT_REST_CONFIRMED =>
                {
                    first.push((member, since));
                }
                Some(&(_, since)) => confirmed.push((member, since)),
                None => first.push((member, at)),
            }
        }
        sighted.retain(|(member, _)| !members.contains(member));
        keep(&mut sighted, first);
        keep(&mut self.waited.borrow_mut(), confirmed);
    }

    /// Records that a reading found the group of `members`, or a job of it, at work or asleep
    /// (or too many jobs to look at): a first sighting of its wait before it is no longer
    /// confirmed by a later one.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn at_work(&self, members: &[i32]) {
        self.sighted.borrow_mut().retain(|(member, _)| !members.contains(member));
    }
}

/// Puts `new` (members and times) first in `kept`, replacing what it held for them; past
/// [`MEMBERS_KEPT`] the oldest go.
fn keep(kept: &mut Vec<(i32, Instant)>, new: Vec<(i32, Instant)>) {
    kept.retain(|(member, _)| !new.iter().any(|(pid, _)| pid == member));
    for entry in new.into_iter().rev() {
        kept.insert(0, entry);
    }
    kept.truncate(MEMBERS_KEPT);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_wait_of_each_member_is_kept() {
        let seen = JobsSeen::default();
        let first = Instant::now();
        seen.waiting(&[10, 11], first, false);
        seen.waiting(&[10, 11], first, false);
        let later = first + Duration::from_secs(1);
        seen.waiting(&[10], later, false);
        seen.waiting(&[10], later, false);
        assert_eq!(seen.waited(10), Some(later));
        assert_eq!(seen.waited(11), Some(first));
        assert_eq!(seen.waited(12), None);
        let many: Vec<i32> = (100..140).collect();
        seen.waiting(&many, later, false);
        seen.waiting(&many, later, false);
        assert_eq!(seen.waited.borrow().len(), MEMBERS_KEPT);
        assert_eq!(seen.sighted.borrow().len(), 0);
        assert_eq!(seen.waited(10), None, "the oldest went");
    }

    /// A wait is kept only once the next reading finds it again, at the first reading's time;
    /// a job found at work in between, or another group's reading, leaves the first alone.
    #[test]
    fn a_wait_is_kept_once_a_second_reading_in_a_row_finds_it() {
        let seen = JobsSeen::default();
        let start = Instant::now();
        let at = |s| start + Duration::from_secs(s);
        seen.waiting(&[10], at(0), false);
        seen.waiting(&[10], at(1), false);
        assert_eq!(seen.waited(10), Some(at(0)), "confirmed at the first sighting");
        // A single sighting (a job caught between two states) keeps the wait before.
        seen.waiting(&[10], at(2), false);
        assert_eq!(seen.waited(10), Some(at(0)), "one sighting alone");
        seen.at_work(&[10]);
        seen.waiting(&[10], at(3), false);
        assert_eq!(seen.waited(10), Some(at(0)), "a job at work in between");
        // Another group read in between does not break the run of this one's.
        seen.waiting(&[20], at(4), false);
        seen.waiting(&[10], at(5), false);
        assert_eq!(seen.waited(10), Some(at(3)));
        assert_eq!(seen.waited(20), None);
    }

    /// A reading that finds a job at rest confirms a wait only once it comes
    /// [`AT_REST_CONFIRMED`] after the first sighting (the readings made for one request, a
    /// few milliseconds apart, found neovim's `:!read x <fifo` at rest twice and made it a
    /// server); one that finds no job confirms it at once, and a reading at work in between
    /// starts over.
    #[test]
    fn a_job_at_rest_confirms_a_wait_only_after_a_while() {
        let seen = JobsSeen::default();
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        seen.waiting(&[10], at(0), true);
        seen.waiting(&[10], at(5), true);
        assert_eq!(seen.waited(10), None, "two readings for one request");
        seen.waiting(&[10], at(0) + AT_REST_CONFIRMED, true);
        assert_eq!(seen.waited(10), Some(at(0)), "at rest across separate looks");
        // Found at work in between: the sighting before confirms nothing.
        seen.waiting(&[10], at(10_000), true);
        seen.at_work(&[10]);
        seen.waiting(&[10], at(10_600), true);
        assert_eq!(seen.waited(10), Some(at(0)));
        seen.waiting(&[10], at(10_600) + AT_REST_CONFIRMED, true);
        assert_eq!(seen.waited(10), Some(at(10_600)));
        // A first sighting with no job, then one with a job at rest (started since, or caught
        // as it left its parent's session), then one with none.
        seen.waiting(&[10], at(20_000), false);
        seen.waiting(&[10], at(20_001), true);
        assert_eq!(seen.waited(10), Some(at(10_600)), "a job at rest a moment");
        seen.waiting(&[10], at(20_002), false);
        assert_eq!(seen.waited(10), Some(at(20_000)), "no job: at once");
    }
}
