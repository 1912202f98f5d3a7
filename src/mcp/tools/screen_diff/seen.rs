//! The screens each caller was shown, within a budget of bytes shared with other callers.

use super::*;

/// How many of the screens of a session a caller was last shown are kept, as what the next one
/// is compared with: its last look and the three different ones before it. A screen comes back
/// after more than one other: mc's panels after its viewer was paged through (its first page,
/// then the next), a program after its help's pages. With two kept, it was sent whole.
pub(super) const LOOKS_KEPT: usize = 4;

/// Screens with more rows than this are not searched for rows that moved (the search compares
/// every row with every other one's hash).
pub(super) const MOVE_SEARCH_ROWS: usize = 512;

/// The most sessions whose screens one caller remembers: a caller that never closes the
/// sessions it is done with holds no more than this many sessions' screens; the one shown
/// least recently is forgotten first (its next screen is sent whole).
pub(crate) const SESSIONS_KEPT: usize = 256;

/// The most bytes of screens one caller remembers (about: [`Frame::bytes`]): past them the
/// older looks go first (those of the sessions shown least recently first, the session just
/// shown's last), each session keeping its last look, then the sessions shown least recently
/// are forgotten. 256 sessions' four looks at 120x32 take about 12 MiB; large screens (a frame
/// of 1000x500 is up to a few MiB) no longer multiply by the sessions.
pub(crate) const SCREEN_BYTES_KEPT: usize = 16 << 20;

/// The most bytes of screens the callers of one `termloom server` remember together (its
/// clients by name and its connections: up to 1,024 and 256 callers, each within
/// [`SCREEN_BYTES_KEPT`], which would otherwise add up to 20 GiB): past them the screens
/// shown least recently, whoever they were shown to, are forgotten first, and their caller
/// is sent its next screen of that session whole. Sixteen callers' full share.
pub(crate) const SERVER_SCREEN_BYTES_KEPT: usize = 256 << 20;

/// The bytes of screens that callers sharing it remember together ([`SeenScreens`]), held
/// to a limit: a look is counted before it is kept, and one that would pass the limit first
/// makes room by forgetting the session shown least recently among all its callers' (its own
/// included); a look that still finds none is not kept, and the next is sent whole.
#[derive(Debug)]
pub(crate) struct ScreenBudget {
    pub(super) limit: usize,
    /// The bytes its callers keep, and those counted for a look about to be kept.
    pub(super) used: AtomicUsize,
    /// Counts the looks remembered, which orders them across callers.
    clock: AtomicU64,
    /// Its callers' screens (each [`SeenScreens`]'s), to forget from.
    pub(super) members: Mutex<Vec<Weak<Mutex<Seen>>>>,
}

impl ScreenBudget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Arc<ScreenBudget> {
        Arc::new(ScreenBudget {
            limit,
            used: AtomicUsize::new(0),
            clock: AtomicU64::new(0),
            members: Mutex::default(),
        })
    }

    /// A caller's screens, counted in this budget.
    pub(crate) fn member(self: &Arc<Self>) -> SeenScreens {
        let seen =
            Arc::new(Mutex::new(Seen { budget: self.clone(), sessions: HashMap::new(), bytes: 0 }));
        let mut members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        members.retain(|member| member.strong_count() > 0);
        members.push(Arc::downgrade(&seen));
        SeenScreens { seen, turns: Mutex::default(), turn_ended: Condvar::new() }
    }

    /// The bytes its callers keep.
    #[cfg(test)]
    pub(super) fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }

    /// The next tick of the clock that orders looks.
    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Counts `bytes` more, if they fit.
    fn reserve(&self, bytes: usize) -> bool {
        let fits = |used: usize| used.checked_add(bytes).filter(|&total| total <= self.limit);
        self.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, fits).is_ok()
    }

    /// Counts `bytes` fewer.
    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }

    /// Forgets the session shown least recently among every caller's; whether there was one.
    /// (Called holding no caller's lock: it takes each in turn.)
    fn forget_oldest(&self) -> bool {
        let members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        let mut oldest: Option<(u64, Arc<Mutex<Seen>>, SessionId)> = None;
        for member in members.iter().filter_map(Weak::upgrade) {
            let seen = member.lock().unwrap_or_else(|e| e.into_inner());
            let Some((id, shown)) = seen.oldest_shown(None) else { continue };
            drop(seen);
            if oldest.as_ref().is_none_or(|(at, _, _)| shown < *at) {
                oldest = Some((shown, member, id));
            }
        }
        drop(members);
        let Some((_, member, id)) = oldest else { return false };
        member.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        true
    }
}

/// The screens of each session one caller was last shown whole and uncut (oldest first), for
/// at most [`SESSIONS_KEPT`] sessions and [`SCREEN_BYTES_KEPT`] bytes, counted in a
/// [`ScreenBudget`] shared with other callers (a caller of its own makes one of
/// [`SCREEN_BYTES_KEPT`]).
///
/// Two calls of the caller may read one session at once (an MCP connection runs its calls
/// side by side; a read takes no input turn): each shapes its screen against the looks kept
/// and then remembers what it told, so a result's look is named by its place among them
/// ([`Changes::told_same`]). Each does both within the session's [`ScreenTurn`], so the
/// second shapes against the looks the first left: two reads told the same as look 2, both
/// remembered, moved it and then forgot the look that had taken its place.
#[derive(Debug)]
pub(crate) struct SeenScreens {
    pub(super) seen: Arc<Mutex<Seen>>,
    /// The sessions a call of this caller is shaping and remembering a screen of.
    turns: Mutex<HashSet<SessionId>>,
    /// Signalled when a turn ends.
    turn_ended: Condvar,
}

/// A call's turn at the screens of one session that its caller was shown (see
/// [`SeenScreens::turn`]): held from shaping a screen to remembering it.
#[derive(Debug)]
pub(crate) struct ScreenTurn<'a> {
    screens: &'a SeenScreens,
    id: SessionId,
}

impl Drop for ScreenTurn<'_> {
    fn drop(&mut self) {
        let mut turns = self.screens.turns.lock().unwrap_or_else(|e| e.into_inner());
        turns.remove(&self.id);
        drop(turns);
        self.screens.turn_ended.notify_all();
    }
}

impl Default for SeenScreens {
    fn default() -> Self {
        ScreenBudget::new(SCREEN_BYTES_KEPT).member()
    }
}

impl Drop for SeenScreens {
    fn drop(&mut self) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.sessions.clear();
        let bytes = std::mem::take(&mut seen.bytes);
        seen.budget.release(bytes);
    }
}

/// What [`SeenScreens`] guards.
#[derive(Debug)]
pub(super) struct Seen {
    /// Where its bytes are counted with other callers'.
    pub(super) budget: Arc<ScreenBudget>,
    /// Each session's looks, with when it was last shown (a tick of the budget's clock).
    pub(super) sessions: HashMap<SessionId, (VecDeque<Frame>, u64)>,
    /// The bytes of the looks kept ([`Frame::bytes`]).
    pub(super) bytes: usize,
}

impl Seen {
    /// Forgets session `id`'s looks.
    pub(super) fn remove(&mut self, id: SessionId) {
        if let Some((looks, _)) = self.sessions.remove(&id) {
            self.free(looks.iter().map(Frame::bytes).sum::<usize>());
        }
    }

    /// Counts `bytes` fewer, here and in the budget.
    fn free(&mut self, bytes: usize) {
        self.bytes -= bytes;
        self.budget.release(bytes);
    }

    /// The session shown least recently, but `except`, and when it was shown.
    fn oldest_shown(&self, except: Option<SessionId>) -> Option<(SessionId, u64)> {
        let others = self.sessions.iter().filter(|(id, _)| Some(**id) != except);
        others.min_by_key(|(_, (_, shown))| *shown).map(|(id, (_, shown))| (*id, *shown))
    }

    /// Whether `frame` shows what a look of session `id` kept shows: that look is then moved
    /// to the newest place, its notes (who had the terminal, nothing read past it yet) the new
    /// one's, and the session counts as shown now. Seeing the same screen again keeps the one
    /// before it as a base, and a screen that comes back after others (mc's viewer paged
    /// down, up and down again) is one look, not a copy: the looks kept stay different
    /// screens, and the ones before them are not pushed out by copies. A look that differs
    /// only in a hidden cursor's place ([`Frame::looks_same`]) is that screen too, its cursor
    /// the new one's: a whole read of it, kept as a new look, pushed the count of every older
    /// screen one too far (`the same as the screen you saw 4 different screens ago` for the
    /// third).
    fn seen_again(&mut self, id: SessionId, frame: &Frame) -> bool {
        let Some((looks, shown)) = self.sessions.get_mut(&id) else { return false };
        let Some(at) = looks.iter().rposition(|look| look.looks_same(frame)) else {
            return false;
        };
        let mut look = looks.remove(at).expect("a look");
        (look.owner, look.read_past, look.cursor) = (frame.owner, frame.read_past, frame.cursor);
        looks.push_back(look);
        *shown = self.budget.tick();
        true
    }

    /// Forgets look `back` of session `id` (1 its last), the screen a result told the caller
    /// the one it shows is: the new look takes its place, so the caller's count of different
    /// screens and the one kept agree (review wp: a screen told `the same as` look 2, which
    /// showed a hidden cursor elsewhere, was kept as a new look, and a screen three looks
    /// back was then told as `4 different screens ago`, a base the caller did not hold).
    fn forget_look(&mut self, id: SessionId, back: u8) {
        let Some((looks, _)) = self.sessions.get_mut(&id) else { return };
        let Some(at) = looks.len().checked_sub(usize::from(back)) else { return };
        if let Some(look) = looks.remove(at) {
            self.free(look.bytes());
        }
    }

    /// Drops older looks until the looks kept take `within` bytes at most, or each session
    /// has only its last look, the base of its next screen: other sessions' first, the one
    /// shown least recently first, then those of session `id`, shown now.
    fn drop_older_looks(&mut self, id: SessionId, within: usize) {
        if self.bytes <= within {
            return;
        }
        let mut order: Vec<(u64, SessionId)> =
            self.sessions.iter().map(|(other, (_, shown))| (*shown, *other)).collect();
        order.sort_unstable_by_key(|&(shown, other)| (other == id, shown));
        for (_, other) in order {
            let looks = &mut self.sessions.get_mut(&other).expect("kept").0;
            while self.bytes > within && looks.len() > 1 {
                let old = looks.pop_front().map_or(0, |old| old.bytes());
                // (`free`, but for the looks borrowed.)
                self.bytes -= old;
                self.budget.release(old);
            }
        }
    }

    /// Keeps the looks within [`SCREEN_BYTES_KEPT`], session `id` just shown: older looks go
    /// first ([`Self::drop_older_looks`]), then other sessions, shown least recently first.
    /// Forgetting whole sessions first cost their next screens sent whole while other
    /// sessions kept older looks, a base only for a screen that comes back.
    fn trim(&mut self, id: SessionId) {
        self.drop_older_looks(id, SCREEN_BYTES_KEPT);
        while self.bytes > SCREEN_BYTES_KEPT
            && let Some(oldest) = self.oldest(id)
        {
            self.remove(oldest);
        }
    }

    /// The session shown least recently, but `except`.
    pub(super) fn oldest(&self, except: SessionId) -> Option<SessionId> {
        self.oldest_shown(Some(except)).map(|(id, _)| id)
    }
}

impl SeenScreens {
    /// Waits for session `id`'s turn among this caller's calls, and holds it until the guard
    /// is dropped: a call takes it before it shapes a screen ([`Self::shape`]) and drops it
    /// once it remembered what it told ([`Self::remember`]). Held only for that, which waits
    /// for nothing (a call's wait for output comes before), so a turn is short.
    pub(crate) fn turn(&self, id: SessionId) -> ScreenTurn<'_> {
        let mut turns = self.turns.lock().unwrap_or_else(|e| e.into_inner());
        while turns.contains(&id) {
            turns = self.turn_ended.wait(turns).unwrap_or_else(|e| e.into_inner());
        }
        turns.insert(id);
        ScreenTurn { screens: self, id }
    }

    /// Remembers that the caller has seen `frame` of session `id` in full, or, when `frame` is
    /// `None` (it was cut), that it has not seen a whole screen since: what it saw before is
    /// forgotten, so changes are never told against a screen older than one it saw cut. A
    /// look the shared budget has no room for, even once every caller's older looks are
    /// forgotten, is not kept either: the next screen is sent whole.
    pub(crate) fn remember(&self, id: SessionId, frame: Option<Frame>, told_same: Option<u8>) {
        let budget = self.lock().budget.clone();
        // A screen told as one the caller saw is that look: moved to the newest place when it
        // shows the same, else kept as it is now in its stead (it differs only in what the
        // caller is not shown); no other look is taken for it (the caller moves that one).
        let mut replaced = false;
        if let (Some(back), Some(frame)) = (told_same, &frame) {
            let mut seen = self.lock();
            let shows_same = seen.sessions.get(&id).and_then(|(looks, _)| {
                let look = looks.get(looks.len().checked_sub(usize::from(back))?)?;
                Some(look.shows_same(frame))
            });
            replaced = shows_same == Some(false);
            if replaced {
                seen.forget_look(id, back);
            }
        }
        // A screen seen again takes no bytes more.
        if let Some(frame) = &frame
            && !replaced
            && self.lock().seen_again(id, frame)
        {
            return;
        }
        let size = frame.as_ref().map_or(0, Frame::bytes);
        // Room within this caller's bytes, made by its older looks before any session's last.
        if frame.is_some() {
            let mut seen = self.lock();
            // The oldest look of session `id` first, when it has as many as are kept: the new
            // one pushes it out (review wp: another look went for it, one short of the bound).
            let full = seen.sessions.get(&id).is_some_and(|(looks, _)| looks.len() >= LOOKS_KEPT);
            if full {
                seen.forget_look(id, LOOKS_KEPT as u8);
            }
            seen.drop_older_looks(id, SCREEN_BYTES_KEPT.saturating_sub(size));
        }
        // Room in the budget, made (holding no caller's lock) by forgetting the screens shown
        // least recently, whoever's; none for a look larger than the whole budget, which
        // forgetting every caller's screens would not make fit.
        let counted = frame.is_some()
            && size <= budget.limit
            && loop {
                if budget.reserve(size) {
                    break true;
                }
                if !budget.forget_oldest() {
                    break false;
                }
            };
        let mut guard = self.lock();
        let seen = &mut *guard;
        let Some(frame) = frame.filter(|_| counted) else {
            seen.remove(id);
            return;
        };
        // (Seen meanwhile, in another of the caller's requests.)
        if !replaced && seen.seen_again(id, &frame) {
            budget.release(size);
            return;
        }
        let now = budget.tick();
        if !seen.sessions.contains_key(&id)
            && seen.sessions.len() >= SESSIONS_KEPT
            && let Some(oldest) = seen.oldest(id)
        {
            seen.remove(oldest);
        }
        let (looks, shown) = seen.sessions.entry(id).or_default();
        *shown = now;
        looks.push_back(frame);
        seen.bytes += size;
        let looks = &mut seen.sessions.get_mut(&id).expect("just kept").0;
        if looks.len() > LOOKS_KEPT {
            let old = looks.pop_front().map_or(0, |old| old.bytes());
            seen.free(old);
        }
        seen.trim(id);
    }

    /// This caller's screens, locked.
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether every line of `text` with text on it is a row of the screen of session `id`
    /// the caller was last shown (blanks around both aside).
    pub(crate) fn last_shows(&self, id: SessionId, text: &str) -> bool {
        let seen = self.lock();
        let Some(last) = seen.sessions.get(&id).and_then(|(looks, _)| looks.back()) else {
            return false;
        };
        let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty()).peekable();
        lines.peek().is_some() && lines.all(|line| last.texts.iter().any(|row| row.trim() == line))
    }

    /// The rows' text of the screen of session `id` the caller was last shown, when that was
    /// a curses program's painted primary screen (dialog's).
    pub(crate) fn last_painted(&self, id: SessionId) -> Option<Vec<String>> {
        let seen = self.lock();
        let last = seen.sessions.get(&id).and_then(|(looks, _)| looks.back())?;
        last.painted.then(|| last.texts.clone())
    }

    /// Whether the screen of session `id` the caller was last shown was the alternate one (a
    /// full-screen program's), and nothing that came after it was read yet ([`Self::read_past`]).
    pub(crate) fn last_alternate(&self, id: SessionId) -> bool {
        let seen = self.lock();
        seen.sessions
            .get(&id)
            .and_then(|(looks, _)| looks.back())
            .is_some_and(|last| last.alternate && !last.read_past)
    }

    /// The foreground process group that had the alternate screen of session `id` the caller
    /// was last shown, when that was the alternate one and nothing that came after it was read
    /// yet ([`Self::last_alternate`]).
    pub(crate) fn alternate_owner(&self, id: SessionId) -> Option<i32> {
        let seen = self.lock();
        let last = seen.sessions.get(&id).and_then(|(looks, _)| looks.back())?;
        (last.alternate && !last.read_past).then_some(last.owner).flatten()
    }

    /// Notes that the caller read output that came after the screen of session `id` it was
    /// last shown.
    pub(crate) fn read_past(&self, id: SessionId) {
        let mut seen = self.lock();
        if let Some(last) = seen.sessions.get_mut(&id).and_then(|(looks, _)| looks.back_mut()) {
            last.read_past = true;
        }
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.remember(id, None, None);
    }

    /// How to show `frame` of session `id`: whole when `whole` is asked for, when no screen
    /// of the same size and kind (primary, alternate) was seen, when more than half of the
    /// rows changed (a row that slid sideways is no change), or when the changes would take
    /// more bytes than the whole; otherwise the changes since the seen screen they take the
    /// fewest bytes against (the last one on a tie). A change is a row whose text or marked
    /// styles changed, the cursor's row when the cursor moved onto it, and the row the caller
    /// saw the cursor marked on when the cursor left it.
    pub(crate) fn shape(&self, id: SessionId, frame: &Frame, whole: bool) -> Shape {
        let seen = self.lock();
        let Some((looks, _)) = seen.sessions.get(&id).filter(|_| !whole) else {
            return Shape::Whole;
        };
        let best = looks
            .iter()
            .rev()
            .zip(1..)
            .filter(|(seen, _)| {
                (seen.cols, seen.rows, seen.alternate) == (frame.cols, frame.rows, frame.alternate)
            })
            .map(|(seen, look)| changes_since(frame, seen, look))
            .filter(|changes| changes.whole_rows() * 2 <= usize::from(frame.rows))
            .min_by_key(|changes| changes.cost(frame));
        match best {
            Some(changes) if changes.cost(frame) < frame.cost() => Shape::Changes(changes),
            _ => Shape::Whole,
        }
    }
}
