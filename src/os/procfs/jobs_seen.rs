//! When the groups of a session were last found waiting for input with their jobs (see
//! `linux::job_verdict`), kept across probes: neovim queues a key typed while its `:!cmd` runs
//! until the command ends, so a job started before that key, since its group last waited,
//! still answers for the group; one present when the group waited is a server.

use std::time::Instant;

/// How many members [`JobsSeen`] keeps the time of, all groups together.
const MEMBERS_KEPT: usize = 16;

/// When each member's group was last found waiting for input, its jobs judged (the newest
/// first).
#[derive(Debug, Default)]
pub(crate) struct JobsSeen {
    waited: std::cell::RefCell<Vec<(i32, Instant)>>,
}

impl JobsSeen {
    /// When the group of member `pid` was last found waiting, if it was.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn waited(&self, pid: i32) -> Option<Instant> {
        self.waited.borrow().iter().find(|(member, _)| *member == pid).map(|&(_, at)| at)
    }

    /// Records that the group of `members` was found waiting at `at`; past [`MEMBERS_KEPT`]
    /// the oldest go.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn waiting(&self, members: &[i32], at: Instant) {
        let mut waited = self.waited.borrow_mut();
        waited.retain(|(member, _)| !members.contains(member));
        for &member in members.iter().take(MEMBERS_KEPT) {
            waited.insert(0, (member, at));
        }
        waited.truncate(MEMBERS_KEPT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_wait_of_each_member_is_kept() {
        let seen = JobsSeen::default();
        let first = Instant::now();
        seen.waiting(&[10, 11], first);
        let later = first + std::time::Duration::from_secs(1);
        seen.waiting(&[10], later);
        assert_eq!(seen.waited(10), Some(later));
        assert_eq!(seen.waited(11), Some(first));
        assert_eq!(seen.waited(12), None);
        let many: Vec<i32> = (100..140).collect();
        seen.waiting(&many, later);
        assert_eq!(seen.waited.borrow().len(), MEMBERS_KEPT);
        assert_eq!(seen.waited(10), None, "the oldest went");
    }
}
