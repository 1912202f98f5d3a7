//! A caller's record of each session it looked at, kept for at most [`SESSIONS_KEPT`]
//! sessions: how far it read ([`Furthest`](super::view::Furthest)), the echo it left unread
//! ([`UnreadEchoes`](super::echoes::UnreadEchoes)), the pager prompt its last read ended on
//! ([`PagerPrompts`](super::pager_prompts::PagerPrompts)).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::SessionId;

use super::screen_diff::SESSIONS_KEPT;

/// One record per session, for at most [`SESSIONS_KEPT`] sessions: past it, the lowest id's
/// (the oldest session's) is forgotten to make room.
#[derive(Debug)]
pub(crate) struct PerSession<T>(Mutex<HashMap<SessionId, T>>);

impl<T> Default for PerSession<T> {
    fn default() -> Self {
        PerSession(Mutex::new(HashMap::new()))
    }
}

impl<T> PerSession<T> {
    /// The records, with room for session `id`'s (the oldest session's forgotten if there is
    /// none and no room).
    fn with_room_for(&self, id: SessionId) -> std::sync::MutexGuard<'_, HashMap<SessionId, T>> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !map.contains_key(&id)
            && map.len() >= SESSIONS_KEPT
            && let Some(oldest) = map.keys().min().copied()
        {
            map.remove(&oldest);
        }
        map
    }

    /// Runs `act` on session `id`'s record, made with `new` if there is none.
    pub(crate) fn with<R>(
        &self,
        id: SessionId,
        new: impl FnOnce() -> T,
        act: impl FnOnce(&mut T) -> R,
    ) -> R {
        act(self.with_room_for(id).entry(id).or_insert_with(new))
    }

    /// Sets session `id`'s record to `record`, in place of any it had.
    pub(crate) fn set(&self, id: SessionId, record: T) {
        self.with_room_for(id).insert(id, record);
    }

    /// What `look` finds in session `id`'s record, if there is one.
    pub(crate) fn look<R>(&self, id: SessionId, look: impl FnOnce(&T) -> R) -> Option<R> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&id).map(look)
    }

    /// Forgets session `id`'s record (read past, or the session closed).
    pub(crate) fn forget(&self, id: SessionId) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }

    /// How many sessions have a record.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_session_is_forgotten_past_the_bound() {
        let records = PerSession::default();
        for id in 1..=SESSIONS_KEPT as u64 + 1 {
            records.set(SessionId(id), id);
        }
        assert_eq!(records.look(SessionId(1), |&r| r), None);
        assert_eq!(records.look(SessionId(2), |&r| r), Some(2));
        assert_eq!(records.len(), SESSIONS_KEPT);
        // A record kept is changed in place, or set anew, and none is forgotten for it.
        records.with(SessionId(2), || 0, |r| *r += 10);
        assert_eq!(records.look(SessionId(2), |&r| r), Some(12));
        records.set(SessionId(2), 7);
        assert_eq!(records.look(SessionId(2), |&r| r), Some(7));
        assert_eq!(records.len(), SESSIONS_KEPT);
        records.forget(SessionId(2));
        assert_eq!(records.look(SessionId(2), |&r| r), None);
    }
}
