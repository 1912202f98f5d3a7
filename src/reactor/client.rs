//! The handles' side of the reactor: requests sent over the bounded channel, with the waker.

use std::sync::Arc;

use crossbeam_channel::Sender;
use mio::Waker;

use super::{Reactor, Request};
use crate::error::{Error, Result};

/// The sending half every handle holds: the request channel and the poll's waker.
#[derive(Clone)]
pub(crate) struct Client {
    requests: Sender<Request>,
    waker: Arc<Waker>,
    /// The recordings' writer threads, which closing waits for.
    pub(crate) writers: crate::os::recording::Writers,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("queued", &self.requests.len()).finish_non_exhaustive()
    }
}

impl Client {
    pub(crate) fn new(requests: Sender<Request>, waker: Arc<Waker>) -> Self {
        Client { requests, waker, writers: Default::default() }
    }

    /// Queues a request and wakes the reactor. Refused on the reactor's own thread (from
    /// inside a wait's test): every caller then waits for an answer the blocked reactor could
    /// never give, and a full queue would block it for good.
    pub(crate) fn submit(&self, request: Request) -> Result<()> {
        if super::on_reactor_thread() {
            return Err(Error::InvalidInput(
                "a termloom call was made on the engine's own thread (from inside a wait's test, such as Until::screen_matches), where it would wait for itself forever: work out what the test needs before the wait, and act after it returns".into(),
            ));
        }
        self.requests.send(request).map_err(|_| Error::EngineStopped)?;
        self.waker.wake().map_err(|e| Error::io("waking the reactor", e))
    }

    /// Queues a request from the reactor's own thread, which nobody waits for (a shutdown
    /// asked there); a full queue drops it rather than block the reactor.
    pub(crate) fn submit_from_reactor(&self, request: Request) -> Result<()> {
        self.requests.try_send(request).map_err(|_| Error::EngineStopped)?;
        self.waker.wake().map_err(|e| Error::io("waking the reactor", e))
    }

    /// Runs `f` on the reactor thread and returns its result.
    pub(crate) fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Reactor) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.submit(Box::new(move |reactor| {
            let _ = tx.send(f(reactor));
        }))?;
        rx.recv().map_err(|_| Error::EngineStopped)?
    }
}
