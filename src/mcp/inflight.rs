//! Tool calls in progress: their cancellation tokens by request id, and the bound on how many
//! run at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::jsonrpc::Id;

type Hook = Box<dyn FnOnce() + Send>;

/// A one-way switch with hooks to run when it flips (once), or at once for hooks added after.
#[derive(Default)]
struct Trigger {
    fired: AtomicBool,
    hooks: Mutex<Vec<Hook>>,
}

impl Trigger {
    fn is_fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }

    /// Flips the switch; true the first time. Hooks run outside the lock.
    fn fire(&self) -> bool {
        if self.fired.swap(true, Ordering::SeqCst) {
            return false;
        }
        let hooks = std::mem::take(&mut *self.hooks.lock().unwrap_or_else(|e| e.into_inner()));
        for hook in hooks {
            hook();
        }
        true
    }

    /// Runs `hook` when the switch flips, or now if it already has.
    fn on_fire(&self, hook: impl FnOnce() + Send + 'static) {
        let mut hooks = self.hooks.lock().unwrap_or_else(|e| e.into_inner());
        if self.is_fired() {
            drop(hooks);
            hook();
        } else {
            hooks.push(Box::new(hook));
        }
    }
}

/// Whether a request was cancelled (its result is unused: nothing is sent back) or only
/// stopped (the input ended: waits end, the result is still sent), and what to do the moment
/// either happens.
#[derive(Default)]
pub(crate) struct CancelToken {
    cancelled: Trigger,
    stopped: Trigger,
    /// The client is gone: the result will not be read, so the call takes no output from its
    /// client's read positions (see [`CancelToken::is_abandoned`]).
    abandoned: AtomicBool,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("stopped", &self.stopped.is_fired())
            .field("cancelled", &self.cancelled.is_fired())
            .field("abandoned", &self.is_abandoned())
            .finish()
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub(crate) fn new() -> Arc<CancelToken> {
        Arc::new(CancelToken::default())
    }

    /// Whether the request was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.is_fired()
    }

    /// Whether the request was stopped: cancelled, or its waits ended by the end of the input.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.is_fired()
    }

    /// Ends the request's waits early; its result is still sent.
    pub(crate) fn interrupt(&self) {
        self.stopped.fire();
    }

    /// Whether the request's client is gone (its connection closed while the request ran):
    /// nobody reads the result, so the output it would show stays unread for the client's
    /// next call (another connection of the same client, on a server).
    pub(crate) fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::SeqCst)
    }

    /// Runs `hook` when the request is stopped, by a cancellation or the end of the input (now,
    /// if it already was): it ends the request's wait.
    pub(crate) fn on_stop(&self, hook: impl FnOnce() + Send + 'static) {
        self.stopped.on_fire(hook);
    }

    /// Cancels the request: runs its cancellation hooks (once), then stops it. In this order
    /// a call whose wait the stop ends already reads as cancelled (it does not answer, and
    /// closes a session it started whose id nobody will learn).
    pub(crate) fn cancel(&self) {
        self.cancelled.fire();
        self.stopped.fire();
    }

    /// Runs `hook` when the request is cancelled (now, if it already was).
    pub(crate) fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) {
        self.cancelled.on_fire(hook);
    }
}

/// Why a call was not admitted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The limit of concurrent calls is reached.
    Busy(usize),
    /// A request with the same id is still in progress.
    DuplicateId,
}

struct State {
    calls: HashMap<String, Arc<CancelToken>>,
    running: usize,
    /// Calls whose answer is decided and being queued for the writer ([`Answering`]): they
    /// wait there while the client does not read, each on its thread with its answer.
    answering: usize,
}

/// The registry of calls in progress.
pub(crate) struct InFlight {
    state: Mutex<State>,
    idle: Condvar,
    limit: usize,
}

/// A call's place in the registry; dropping it frees the place.
pub(crate) struct Ticket {
    registry: Arc<InFlight>,
    key: String,
    token: Arc<CancelToken>,
}

impl Ticket {
    /// The call's cancellation token.
    pub(crate) fn token(&self) -> &Arc<CancelToken> {
        &self.token
    }

    /// The call's answer is decided: it no longer runs (its id is free again), but it counts
    /// until the returned guard is dropped, once the answer is queued for the writer.
    pub(crate) fn answering(self) -> Answering {
        let registry = self.registry.clone();
        registry.state.lock().unwrap_or_else(|e| e.into_inner()).answering += 1;
        drop(self);
        Answering { registry }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut state = self.registry.state.lock().unwrap_or_else(|e| e.into_inner());
        state.calls.remove(&self.key);
        state.running -= 1;
        self.registry.idle.notify_all();
    }
}

/// A call whose answer is being queued (see [`Ticket::answering`]).
pub(crate) struct Answering {
    registry: Arc<InFlight>,
}

impl Drop for Answering {
    fn drop(&mut self) {
        let mut state = self.registry.state.lock().unwrap_or_else(|e| e.into_inner());
        state.answering -= 1;
        self.registry.idle.notify_all();
    }
}

impl InFlight {
    /// A registry admitting at most `limit` calls at once.
    pub(crate) fn new(limit: usize) -> Arc<InFlight> {
        Arc::new(InFlight {
            state: Mutex::new(State { calls: HashMap::new(), running: 0, answering: 0 }),
            idle: Condvar::new(),
            limit,
        })
    }

    /// Admits the call with request id `id`. While calls whose answers are being queued fill
    /// the limit, waits for them: they wait for the client to read (then admitting more would
    /// leave a thread and an answer behind for each), or are about to be done (the client read
    /// an answer and called again at once, and is not refused for it).
    pub(crate) fn admit(self: &Arc<Self>, id: &Id) -> Result<Ticket, Refusal> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let key = id.key();
        if state.calls.contains_key(&key) {
            return Err(Refusal::DuplicateId);
        }
        while state.running < self.limit
            && state.answering > 0
            && state.running + state.answering >= self.limit
        {
            state = self.idle.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.running >= self.limit {
            return Err(Refusal::Busy(self.limit));
        }
        let token = CancelToken::new();
        state.calls.insert(key.clone(), token.clone());
        state.running += 1;
        Ok(Ticket { registry: self.clone(), key, token })
    }

    /// Cancels the call with request id `id`; false if no such call is in progress.
    pub(crate) fn cancel(&self, id: &Id) -> bool {
        let token =
            self.state.lock().unwrap_or_else(|e| e.into_inner()).calls.get(&id.key()).cloned();
        match token {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Interrupts every call in progress: their waits end, their results are still sent.
    /// When the `client_gone`, they are abandoned first (see [`CancelToken::is_abandoned`]),
    /// so that a call the interruption wakes already reads as abandoned.
    pub(crate) fn interrupt_all(&self, client_gone: bool) {
        let tokens: Vec<_> =
            self.state.lock().unwrap_or_else(|e| e.into_inner()).calls.values().cloned().collect();
        for token in tokens {
            if client_gone {
                token.abandoned.store(true, Ordering::SeqCst);
            }
            token.interrupt();
        }
    }

    /// Waits until no call is in progress, at most `timeout`; true if none is.
    pub(crate) fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.running > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self.idle.wait_timeout(state, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_id(text: &str) -> Id {
        Id::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn admits_up_to_the_limit_and_refuses_duplicates() {
        let registry = InFlight::new(2);
        let first = registry.admit(&raw_id("1")).unwrap();
        assert_eq!(registry.admit(&raw_id("1")).err(), Some(Refusal::DuplicateId));
        let _second = registry.admit(&raw_id(r#""1""#)).unwrap();
        assert_eq!(registry.admit(&raw_id("3")).err(), Some(Refusal::Busy(2)));
        drop(first);
        let third = registry.admit(&raw_id("3")).unwrap();
        assert!(registry.cancel(&raw_id("3")));
        assert!(third.token().is_cancelled());
        assert!(!registry.cancel(&raw_id("99")));
    }

    /// A call whose answer waits to be queued (the client does not read) still takes its
    /// place: the next call waits for it rather than leaving one more thread and answer
    /// behind, and is admitted once the answer is queued.
    #[test]
    fn answers_waiting_to_be_queued_hold_their_places() {
        let registry = InFlight::new(2);
        let running = registry.admit(&raw_id("1")).unwrap();
        let answering = registry.admit(&raw_id("2")).unwrap().answering();
        // Its id is free again, but not its place: a third call would wait.
        let (tx, rx) = crossbeam_channel::unbounded();
        let waiting = registry.clone();
        let admitted = std::thread::spawn(move || {
            let ticket = waiting.admit(&raw_id("2"));
            tx.send(()).unwrap();
            ticket.is_ok()
        });
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "admitted past the limit");
        drop(answering);
        assert!(admitted.join().unwrap());
        drop(running);
        // Every place taken by running calls is refused at once, as before.
        let _a = registry.admit(&raw_id("10")).unwrap();
        let _b = registry.admit(&raw_id("11")).unwrap();
        assert_eq!(registry.admit(&raw_id("12")).err(), Some(Refusal::Busy(2)));
    }

    /// What a cancellation's stop wakes (a call whose wait it ends) already sees the call
    /// cancelled: otherwise the call could answer, and leave a session it started running.
    #[test]
    fn a_cancellation_reads_as_cancelled_before_it_stops_the_call() {
        let token = std::sync::Arc::new(CancelToken::new());
        let (tx, rx) = crossbeam_channel::unbounded();
        let seen = token.clone();
        token.on_stop(move || tx.send(seen.is_cancelled()).unwrap());
        token.cancel();
        assert_eq!(rx.try_recv(), Ok(true));
    }

    #[test]
    fn hooks_run_once_on_cancel() {
        let token = CancelToken::new();
        let (tx, rx) = crossbeam_channel::unbounded();
        let tx2 = tx.clone();
        token.on_cancel(move || tx.send(1).unwrap());
        token.cancel();
        token.cancel();
        token.on_cancel(move || tx2.send(2).unwrap());
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1, 2]);
    }
}
