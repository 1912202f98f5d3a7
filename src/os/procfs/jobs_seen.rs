//! When the groups of a session were last found waiting for input with their jobs (see
//! `linux::job_verdict`), kept across probes: neovim queues a key typed while its `:!cmd` runs
//! until the command ends, so a job started before that key, since its group last waited,
//! still answers for the group; one present when the group waited is a server. A wait is
//! kept only once a second reading in a row confirms it: a single reading that found no job
//! at work may have caught one between two states (or blocked a moment on its pipe), and
//! kept, it made that job a server for every look after.

use std::cell::RefCell;
use std::time::Instant;

/// How many members [`JobsSeen`] keeps the time of, all groups together (and as many first
/// sightings not confirmed yet).
const MEMBERS_KEPT: usize = 16;

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

    /// Records that a reading found the group of `members` waiting at `at`. For a member the
    /// reading of its group before found waiting too (with nothing at work in between), the
    /// wait is confirmed, at that first sighting's time (the earlier: a job started since
    /// counts); otherwise this is that first sighting. Past [`MEMBERS_KEPT`] the oldest go.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn waiting(&self, members: &[i32], at: Instant) {
        let mut sighted = self.sighted.borrow_mut();
        let mut confirmed = Vec::new();
        let mut first = Vec::new();
        for &member in members.iter().take(MEMBERS_KEPT) {
            match sighted.iter().find(|(pid, _)| *pid == member) {
                Some(&(_, since)) => confirmed.push((member, since)),
                None => first.push((member, at)),
            }
        }
        sighted.retain(|(member, _)| !members.contains(member));
        keep(&mut sighted, first);
        keep(&mut self.waited.borrow_mut(), confirmed);
    }

    /// Records that a reading found a job of the group of `members` at work or asleep (or too
    /// many to look at): a first sighting of its wait before it is no longer confirmed by the
    /// next.
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
    use std::time::Duration;

    #[test]
    fn the_last_wait_of_each_member_is_kept() {
        let seen = JobsSeen::default();
        let first = Instant::now();
        seen.waiting(&[10, 11], first);
        seen.waiting(&[10, 11], first);
        let later = first + Duration::from_secs(1);
        seen.waiting(&[10], later);
        seen.waiting(&[10], later);
        assert_eq!(seen.waited(10), Some(later));
        assert_eq!(seen.waited(11), Some(first));
        assert_eq!(seen.waited(12), None);
        let many: Vec<i32> = (100..140).collect();
        seen.waiting(&many, later);
        seen.waiting(&many, later);
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
        seen.waiting(&[10], at(0));
        seen.waiting(&[10], at(1));
        assert_eq!(seen.waited(10), Some(at(0)), "confirmed at the first sighting");
        // A single sighting (a job caught between two states) keeps the wait before.
        seen.waiting(&[10], at(2));
        assert_eq!(seen.waited(10), Some(at(0)), "one sighting alone");
        seen.at_work(&[10]);
        seen.waiting(&[10], at(3));
        assert_eq!(seen.waited(10), Some(at(0)), "a job at work in between");
        // Another group read in between does not break the run of this one's.
        seen.waiting(&[20], at(4));
        seen.waiting(&[10], at(5));
        assert_eq!(seen.waited(10), Some(at(3)));
        assert_eq!(seen.waited(20), None);
    }
}
