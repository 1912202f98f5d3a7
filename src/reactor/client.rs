//! The handles' side of the reactor: requests sent over the bounded channel, with the waker.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::{Receiver, Sender};
use mio::Waker;

use super::{CloseReason, Reactor, Request};
use crate::error::{Error, Result};
use crate::types::SessionId;

/// Whether the reactor has stopped taking requests, shared by it and every handle, with a
/// receiving end of the request channel for one job: a request that lands in the channel after
/// the reactor's last look would stay there (and its caller wait for its answer for ever, as
/// the handles keep the channel open), so its sender drops it, and its caller is told that the
/// engine stopped.
pub(crate) struct Stop {
    stopped: AtomicBool,
    leftovers: Receiver<Request>,
}

impl Stop {
    pub(crate) fn new(leftovers: Receiver<Request>) -> Arc<Stop> {
        Arc::new(Stop { stopped: AtomicBool::new(false), leftovers })
    }

    /// Stops taking requests when the returned guard drops: the reactor's thread holds it
    /// while the reactor runs, so however the thread ends (a panic too), no request waits.
    pub(crate) fn when_dropped(self: Arc<Self>) -> impl Drop {
        struct Guard(Arc<Stop>);
        impl Drop for Guard {
            fn drop(&mut self) {
                self.0.stopped.store(true, Ordering::SeqCst);
                self.0.drop_leftovers();
            }
        }
        Guard(self)
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Drops the requests nobody will take (each drops its reply's sender).
    fn drop_leftovers(&self) {
        while self.leftovers.try_recv().is_ok() {}
    }
}

/// The sending half every handle holds: the request channel and the poll's waker.
#[derive(Clone)]
pub(crate) struct Client {
    requests: Sender<Request>,
    waker: Arc<Waker>,
    stop: Arc<Stop>,
    /// The recordings' writer threads, which closing waits for.
    pub(crate) writers: crate::os::recording::Writers,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("queued", &self.requests.len()).finish_non_exhaustive()
    }
}

impl Client {
    pub(crate) fn new(requests: Sender<Request>, waker: Arc<Waker>, stop: Arc<Stop>) -> Self {
        Client { requests, waker, stop, writers: Default::default() }
    }

    /// Queues a request and wakes the reactor. Refused on the reactor's own thread (from
    /// inside a wait's test): every caller then waits for an answer the blocked reactor could
    /// never give, and a full queue would block it for good.
    pub(crate) fn submit(&self, request: Request) -> Result<()> {
        if super::on_reactor_thread() {
            super::note_refused_call();
            return Err(Error::InvalidInput(
                "a termloom call was made on the engine's own thread (from inside a wait's test, such as Until::screen_matches), where it would wait for itself forever: work out what the test needs before the wait, and act after it returns".into(),
            ));
        }
        if self.stop.stopped() {
            return Err(Error::EngineStopped);
        }
        self.requests.send(request).map_err(|_| Error::EngineStopped)?;
        if self.stop.stopped() {
            // The reactor may have made its last look before the request landed: dropped
            // here, the caller's answer channel closes (taken, it was answered).
            self.stop.drop_leftovers();
            return Ok(());
        }
        self.waker.wake().map_err(|e| Error::io("waking the reactor", e))
    }

    /// Queues `request`, a request for session `id` that answers at `reply` (a wait, a
    /// paste, a command, a close), without waiting for it. A panic in it closes that session
    /// (its state may be inconsistent) and is answered at `reply` with
    /// [`Error::RequestPanicked`], as [`Client::call_for`] answers, unless the session's
    /// closing answered it first: `reply` dropped unanswered would tell a future that the
    /// engine stopped, and a blocked waiter that its wait was aborted.
    pub(crate) fn submit_for<T: Send + 'static>(
        &self,
        id: SessionId,
        reply: super::Reply<Result<T>>,
        request: impl FnOnce(&mut Reactor, super::Reply<Result<T>>) + Send + 'static,
    ) -> Result<()> {
        self.submit(Box::new(move |reactor| reactor.guarded_request(id, reply, request)))
    }

    /// Runs `f` on the reactor thread and returns its result; a panic in `f` is answered
    /// with [`Error::RequestPanicked`].
    pub(crate) fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Reactor) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.call_guarded(None, f)
    }

    /// Runs `f`, a request for session `id`, on the reactor thread and returns its result; a
    /// panic in `f` closes that session (its state may be inconsistent) and is answered with
    /// [`Error::RequestPanicked`].
    pub(crate) fn call_for<T: Send + 'static>(
        &self,
        id: SessionId,
        f: impl FnOnce(&mut Reactor) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.call_guarded(Some(id), f)
    }

    fn call_guarded<T: Send + 'static>(
        &self,
        session: Option<SessionId>,
        f: impl FnOnce(&mut Reactor) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.submit(Box::new(move |reactor| {
            let result = panic::catch_unwind(AssertUnwindSafe(|| f(reactor)));
            let _ = tx.send(result.unwrap_or_else(|payload| {
                let message = super::panic_message(&*payload);
                if let Some(id) = session {
                    reactor.session_failed(id.0, CloseReason::RequestFailed, message.clone());
                }
                Err(Error::RequestPanicked { session, message })
            }));
        }))?;
        rx.recv().map_err(|_| Error::EngineStopped)?
    }
}
