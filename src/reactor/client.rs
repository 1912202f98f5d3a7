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

    /// Queues a request and wakes the reactor.
    pub(crate) fn submit(&self, request: Request) -> Result<()> {
        self.requests.send(request).map_err(|_| Error::EngineStopped)?;
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
