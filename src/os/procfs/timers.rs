//! Timers seen in earlier probes of one terminal's processes: a monitor's tick.

/// The short-timer waits earlier probes of one terminal's processes saw since its last input: a
/// thread seen again in a wait on the same timer after it woke in between (its voluntary context
/// switches grew), with no input in between, has a timer that goes off and is set again, a
/// monitor's tick (`top -d 1` redraws every second and reads keys between), rather than a timer set
/// once before the program changes the screen (vim's wait for the rest of a key code after an
/// Escape, followed by a longer wait, or after the next Escape by the same wait: input in between).
/// Sleeps until a point in time are recorded too, as [`SLEEP_UNTIL`](super::SLEEP_UNTIL) (see
/// [`CLOCK_HORIZON`](super::CLOCK_HORIZON)), and so are a poll's timers of any length with no
/// prompt shown (see [`Shown::Unanswered`](super::Shown::Unanswered)) and short sleeps (see
/// [`IDLE_TICKS`](super::IDLE_TICKS)). Holds the last [`TIMERS_KEPT`] threads seen.
///
/// A wait found repeated before an input is carried across it (and only such a one): a monitor
/// polling the terminal, seen back on the same timer once it woke (read the key) and the terminal
/// was written to since the input (it redrew), waits for input at once. `top -d 1` and a curses
/// program in `halfdelay(10)` set their full second again after each key, and read as waiting only
/// a second after each key when every sighting was forgotten at the input; so is a sleep found
/// repeated, once the program drew again (`watch -n 5`, after a key it never reads, settled only
/// after two ticks, 10 s). A wait on the same timer with nothing drawn since the input is no
/// answer: ncurses waits its `ESCDELAY`, a second too, for the rest of a key code after an Escape
/// before the program redraws. A timer set once after a key (vim's 'timeoutlen') was never found
/// repeated before it, and is waited out as before. What is carried stays until the thread is seen
/// on a timer again (across further input while it waits with no timer: `top`'s prompt for a line).
#[derive(Debug, Default)]
pub(crate) struct TimerSightings {
    /// The time of the terminal's last input when these were seen.
    input: std::cell::Cell<Option<std::time::Instant>>,
    /// The time of the terminal's last output, as the probe about to look was told (see
    /// [`TimerSightings::drawn_at`]).
    output: std::cell::Cell<Option<std::time::Instant>>,
    /// The newest first.
    seen: std::cell::RefCell<Vec<TimerSighting>>,
    /// The waits found repeated before the last input, carried across it.
    carried: std::cell::RefCell<Vec<TimerSighting>>,
    /// The threads seen on a tick at the session's start while another thread of their
    /// process worked (see [`TimerSightings::alone_since_start`]), the newest first.
    worked_beside: std::cell::RefCell<Vec<i32>>,
    /// When groups were last found waiting with their jobs, kept across probes as these are.
    pub(super) jobs: super::jobs_seen::JobsSeen,
}

/// How many threads' timers [`TimerSightings`] keeps: a monitor's thread and the threads of
/// its own that sleep beside it (each probe records them all, in turn: with room for four,
/// four sleepers pushed the monitor's timer out before it was seen again). A program with more
/// threads on timers than this has its monitor's tick found only when fewer of them sleep.
pub(super) const TIMERS_KEPT: usize = 64;

/// One thread seen waiting on a short timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TimerSighting {
    tid: i32,
    timer: std::time::Duration,
    /// The thread's voluntary context switches then.
    wakeups: u64,
    /// Whether the wait was found to be a repeated one (and stays so while the thread sleeps).
    ticking: bool,
    /// When the thread was first seen in this wait.
    since: std::time::Instant,
    /// When the wait on the same timer before this one was first seen, while this one is not
    /// found repeated yet: it is once that timer has passed since (see [`gone_off`]).
    after: Option<std::time::Instant>,
}

/// Whether a wait on `timer` first seen at `since` can have gone off by `at`: at least `timer`
/// passed since (the wait began before it was seen, so it went off by then at the latest). A
/// sleep until a point in time ([`SLEEP_UNTIL`](super::SLEEP_UNTIL)), whose length is not known,
/// may have gone off any time.
fn gone_off(timer: std::time::Duration, since: std::time::Instant, at: std::time::Instant) -> bool {
    timer == super::SLEEP_UNTIL || at.saturating_duration_since(since) >= timer
}

impl TimerSightings {
    /// Forgets what was seen before the terminal's last input, `input`, but for the waits
    /// found repeated, which are carried across it (see [`TimerSightings`]).
    pub(crate) fn since_input(&self, input: std::time::Instant) {
        if self.input.replace(Some(input)) != Some(input) {
            let mut seen = self.seen.borrow_mut();
            let mut carried = self.carried.borrow_mut();
            carried.retain(|c| !seen.iter().any(|s| s.tid == c.tid));
            carried.extend(seen.drain(..).filter(|s| s.ticking));
            let excess = carried.len().saturating_sub(TIMERS_KEPT);
            carried.drain(..excess);
        }
    }

    /// Tells when the terminal was last written to, `output`, before a probe looks: a thread
    /// back on the same timer with output between its two waits has ticked whatever time
    /// passed (see [`TimerSightings::repeated`]).
    pub(crate) fn drawn_at(&self, output: std::time::Instant) {
        self.output.set(Some(output));
    }

    /// Whether the terminal was written to after `since`.
    fn drawn_after(&self, since: std::time::Instant) -> bool {
        self.output.get().is_some_and(|output| output > since)
    }

    /// Whether thread `tid`, on a tick at the session's start, was alone each time it was seen
    /// so (`alone`: every other thread of its process waits on a lock of its own, or there is
    /// none): a worker seen loading what the first screen is to show may have ended with its
    /// result not drawn yet (a curses program's "Loading..." until its tick, 0.2 s after its
    /// worker ended), so such a tick is taken as one only once seen repeated. Records `tid`
    /// when not `alone`.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn alone_since_start(&self, tid: i32, alone: bool) -> bool {
        let mut worked = self.worked_beside.borrow_mut();
        let seen = worked.contains(&tid);
        if !alone && !seen {
            worked.truncate(TIMERS_KEPT - 1);
            worked.insert(0, tid);
        }
        alone && !seen
    }

    /// Records that thread `tid` waits on `timer`, having switched `wakeups` times, as a tick
    /// found repeated, carried across the first input: a full-screen program that drew and
    /// polls the terminal alone on a timer of [`SHORTEST_TICK`](super::SHORTEST_TICK) to
    /// [`SHORT_TIMER`](super::SHORT_TIMER) before any input was typed waits for keys between
    /// its ticks. No key code waits for its rest and no key for its answer, which is what such
    /// a timer is after input (vim's 'timeoutlen'); w3m, which polls its terminal every second
    /// whatever it shows, read as busy until the timer went off once, 1.1 s at every start.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn tick_at_start(&self, tid: i32, timer: std::time::Duration, wakeups: u64) {
        let since = std::time::Instant::now();
        self.record(TimerSighting { tid, timer, wakeups, ticking: true, since, after: None });
    }

    /// Records `sighting` as its thread's newest: a thread seen again moves to the front; past
    /// [`TIMERS_KEPT`] the oldest goes.
    fn record(&self, sighting: TimerSighting) {
        let mut seen = self.seen.borrow_mut();
        match seen.iter().position(|s| s.tid == sighting.tid) {
            Some(i) => {
                seen.remove(i);
            }
            None if seen.len() >= TIMERS_KEPT => {
                seen.pop();
            }
            None => {}
        }
        seen.insert(0, sighting);
    }

    /// Records that thread `tid` waits on `timer` at `at`, having switched `wakeups` times, and
    /// says whether it was seen on the same timer before with fewer switches, and either the
    /// terminal was written to since that wait was first seen (a monitor redraws each time it
    /// wakes, whatever woke it) or, with nothing drawn, that timer gone off since (see
    /// [`gone_off`]: node's REPL, woken within the millisecond, goes back to the same time left
    /// and draws nothing); or in the same wait, already found repeated or so since the wait
    /// before; all since the last input; or found repeated on it before the
    /// input and, when `carry` (a poll of the terminal or a sleep, written to since the
    /// input), woken since, or, when `unfed` says the input never reached it, still in that
    /// same wait: a monitor on a terminal a relay hosts (`watch` in a neovim `:terminal` or a
    /// tmux pane) that the keys did not go to, which ticks as it did before them. `unfed` is
    /// asked only then (it opens the thread's terminal).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn repeated(
        &self,
        at: std::time::Instant,
        tid: i32,
        timer: std::time::Duration,
        wakeups: u64,
        carry: bool,
        unfed: impl FnOnce() -> bool,
    ) -> bool {
        let earlier = self.seen.borrow().iter().find(|s| s.tid == tid).copied();
        let carried = |woken: bool| {
            self.carried.borrow().iter().any(|c| {
                c.tid == tid
                    && c.timer == timer
                    && if woken { c.wakeups < wakeups } else { c.wakeups == wakeups }
            })
        };
        let same_timer = earlier.filter(|s| s.timer == timer);
        // The same wait keeps when it was first seen, and the wait before it.
        let (since, after) = match same_timer {
            Some(s) if s.wakeups == wakeups => (s.since, s.after),
            Some(s) if s.wakeups < wakeups => (at, Some(s.since)),
            _ => (at, None),
        };
        // (A wait found repeated, gone back to, is so again: a monitor's next tick.)
        let ticking = same_timer.is_some_and(|s| s.wakeups <= wakeups && s.ticking)
            || after.is_some_and(|after| self.drawn_after(after) || gone_off(timer, after, at))
            || carry && carried(true)
            || carried(false) && unfed();
        let after = after.filter(|_| !ticking);
        self.record(TimerSighting { tid, timer, wakeups, ticking, since, after });
        ticking
    }
}

/// For tests: an instant an hour after the one it gave before, so that every timer seen
/// earlier has gone off by then (see [`gone_off`]).
#[cfg(test)]
pub(super) fn later() -> std::time::Instant {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let calls = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    *START.get_or_init(std::time::Instant::now) + std::time::Duration::from_secs(3600) * calls
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread woken within a wait and back on the same timer before that timer could have
    /// gone off since the wait before was first seen has not ticked (node's REPL awaiting a
    /// 3 s timer, woken within the millisecond and back on 2.998 s); once the timer has passed
    /// since, it has, whether found then or later in the same wait (a monitor first seen late
    /// in a tick); and a tick found so, gone back to, is one again at once.
    #[test]
    fn a_timer_counts_as_set_again_only_once_it_could_have_gone_off() {
        let ms = std::time::Duration::from_millis;
        let timers = TimerSightings::default();
        timers.since_input(std::time::Instant::now());
        let seen = std::time::Instant::now();
        let left = ms(2998);
        assert!(!timers.repeated(seen, 7, left, 10, false, || false), "a first sighting");
        assert!(!timers.repeated(seen + ms(20), 7, left, 11, false, || false), "woken early");
        assert!(!timers.repeated(seen + ms(1500), 7, left, 11, false, || false), "its time left");
        assert!(!timers.repeated(seen + ms(1600), 7, left, 12, false, || false), "woken again");
        // A monitor's 1 s tick first seen 300 ms into it: its next tick is found once a second
        // has passed since, in the same wait.
        let second = ms(1000);
        assert!(!timers.repeated(seen, 8, second, 10, false, || false));
        assert!(!timers.repeated(seen + ms(750), 8, second, 11, false, || false), "too soon");
        assert!(timers.repeated(seen + ms(1000), 8, second, 11, false, || false), "gone off");
        assert!(timers.repeated(seen + ms(1710), 8, second, 12, false, || false), "next tick");
        assert!(timers.repeated(seen + ms(1720), 8, second, 12, false, || false), "stays so");
        // A monitor woken every 300 ms (by a pipe) on a fixed 1 s timeout, which redraws on each
        // wake: the terminal written to between its two waits makes the second a tick at once.
        assert!(!timers.repeated(seen, 10, second, 10, false, || false));
        timers.drawn_at(seen + ms(300));
        assert!(timers.repeated(seen + ms(310), 10, second, 11, false, || false), "drew between");
        // Output before the wait was first seen is none between the two.
        assert!(!timers.repeated(seen + ms(400), 11, second, 10, false, || false));
        assert!(!timers.repeated(seen + ms(700), 11, second, 11, false, || false), "drew before");
        // A sleep until a point in time, its length unknown, may have gone off any time.
        let until = super::super::SLEEP_UNTIL;
        assert!(!timers.repeated(seen, 9, until, 10, false, || false));
        assert!(timers.repeated(seen + ms(1), 9, until, 11, false, || false));
    }

    /// A wait found repeated before the input, seen in that same wait after it (no wakeup
    /// since, nothing drawn), counts only when the input never reached its thread; that is
    /// asked only then (it opens the thread's terminal).
    #[test]
    fn the_same_wait_carried_across_an_input_counts_only_unfed_and_asks_only_then() {
        let second = std::time::Duration::from_secs(1);
        let timers = TimerSightings::default();
        let input = std::time::Instant::now();
        timers.since_input(input);
        for tid in [7, 8] {
            assert!(!timers.repeated(later(), tid, second, 10, false, || panic!("not carried")));
            assert!(timers.repeated(later(), tid, second, 11, false, || panic!("seen repeated")));
        }
        timers.since_input(input + second);
        assert!(!timers.repeated(later(), 7, second, 11, false, || false), "the input may be its");
        assert!(timers.repeated(later(), 8, second, 11, false, || true), "the input not its");
        let asked = || panic!("asked with no such wait carried");
        assert!(!timers.repeated(later(), 9, second, 11, false, asked), "never seen");
        assert!(!timers.repeated(later(), 8, second / 2, 11, false, asked), "another timer");
        assert!(timers.repeated(later(), 8, second, 12, true, asked), "woken and redrawn: no need");
    }

    #[test]
    fn a_tick_at_the_start_is_one_only_while_its_thread_was_always_seen_alone() {
        let timers = TimerSightings::default();
        assert!(timers.alone_since_start(7, true));
        assert!(!timers.alone_since_start(7, false), "a worker beside it");
        assert!(!timers.alone_since_start(7, true), "the worker ended, its work maybe undrawn");
        assert!(timers.alone_since_start(8, true), "another thread is another");
    }

    #[test]
    fn a_timer_counts_as_a_tick_once_seen_again_after_a_wakeup() {
        let second = std::time::Duration::from_secs(1);
        let timers = TimerSightings::default();
        let input = std::time::Instant::now();
        timers.since_input(input);
        assert!(
            !timers.repeated(later(), 7, second, 10, false, || false),
            "a first sighting is no tick"
        );
        assert!(
            !timers.repeated(later(), 7, second, 10, false, || false),
            "the same wait seen again is none"
        );
        assert!(
            timers.repeated(later(), 7, second, 11, false, || false),
            "woken and waiting on the same timer"
        );
        assert!(
            timers.repeated(later(), 7, second, 11, false, || false),
            "and stays so while it sleeps"
        );
        assert!(!timers.repeated(later(), 7, second / 2, 12, false, || false), "another timer");
        // Other threads, fewer than are kept, leave it; more push the oldest out.
        for tid in 1..TIMERS_KEPT as i32 {
            timers.repeated(later(), 100 + tid, second, 1, false, || false);
        }
        assert!(
            timers.repeated(later(), 7, second / 2, 13, false, || false),
            "kept beside the others"
        );
        for tid in 1..=TIMERS_KEPT as i32 {
            timers.repeated(later(), 200 + tid, second, 1, false, || false);
        }
        assert!(!timers.repeated(later(), 7, second / 2, 14, false, || false), "forgotten");
        assert_eq!(timers.seen.borrow().len(), TIMERS_KEPT, "bounded");
        timers.repeated(later(), 8, second, 1, false, || false);
        timers.since_input(input);
        assert!(
            timers.repeated(later(), 8, second, 2, false, || false),
            "the same input keeps what was seen"
        );
        timers.since_input(input + second);
        assert!(
            !timers.repeated(later(), 8, second, 3, false, || false),
            "input in between forgets it"
        );
    }

    #[test]
    fn a_tick_at_the_start_is_carried_across_the_first_input() {
        let second = std::time::Duration::from_secs(1);
        let timers = TimerSightings::default();
        timers.tick_at_start(7, second, 10);
        timers.since_input(std::time::Instant::now());
        assert!(!timers.repeated(later(), 7, second, 10, true, || false), "not woken since");
        assert!(
            timers.repeated(later(), 7, second, 11, true, || false),
            "woken and back on it, drawn since"
        );
        assert!(!timers.repeated(later(), 8, second, 11, true, || false), "another thread");
    }
}
