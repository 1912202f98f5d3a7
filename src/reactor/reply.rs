//! Where the reactor's answer to a request goes: the channel of a caller blocked in a call, or
//! the slot of a future, whose task the answer wakes through its `std::task::Waker`. No async
//! runtime is involved: any executor's waker works, and nothing polls.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crossbeam_channel::Sender;

use crate::error::{Error, Result};

/// The answer's destination, held by the reactor.
#[derive(Debug)]
pub(crate) enum Reply<T> {
    /// A caller blocked on the channel.
    Channel(Sender<T>),
    /// A future's slot.
    Future(Producer<T>),
    /// Answered already (taken out to be sent).
    Gone,
}

impl<T> From<Sender<T>> for Reply<T> {
    fn from(sender: Sender<T>) -> Self {
        Reply::Channel(sender)
    }
}

impl<T> Reply<T> {
    /// Delivers the answer (dropped if nobody waits for it any more); returns whether someone
    /// still waited for it.
    pub(crate) fn send(self, value: T) -> bool {
        match self {
            Reply::Channel(sender) => sender.send(value).is_ok(),
            Reply::Future(producer) => producer.deliver(value),
            Reply::Gone => false,
        }
    }

    /// Takes the destination out, leaving [`Reply::Gone`].
    pub(crate) fn take(&mut self) -> Reply<T> {
        std::mem::replace(self, Reply::Gone)
    }

    /// A second way to the same destination, for the guard of a request that holds this
    /// reply: should the request panic, dropping the reply unanswered as it unwinds, the
    /// guard answers through it ([`Reply::answer_unanswered`]). While it lives, a future
    /// is not told that the engine stopped, nor a blocked caller's channel closed.
    pub(crate) fn fallback(&self) -> Reply<T> {
        match self {
            Reply::Channel(sender) => Reply::Channel(sender.clone()),
            Reply::Future(producer) => Reply::Future(producer.another()),
            Reply::Gone => Reply::Gone,
        }
    }

    /// Delivers the answer unless one was delivered already, never blocking (a blocked
    /// caller's channel holds one answer: when it is full, the caller has its answer).
    pub(crate) fn answer_unanswered(self, value: T) {
        match self {
            Reply::Channel(sender) => {
                let _ = sender.try_send(value);
            }
            Reply::Future(producer) => {
                producer.deliver(value);
            }
            Reply::Gone => {}
        }
    }
}

/// What a future and the reactor share.
#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
}

#[derive(Debug)]
struct State<T> {
    value: Option<T>,
    waker: Option<Waker>,
    /// The reactor's sides alive ([`Producer`]s: the reply, and a request's guard's
    /// fallback while the request runs).
    producers: usize,
    /// An answer was delivered (later ones are dropped).
    answered: bool,
    /// Every side of the reactor's dropped without answering (the engine stopped).
    abandoned: bool,
    /// The future was dropped: nobody takes the answer.
    future_gone: bool,
}

/// The reactor's side of a future: delivering wakes the future's task; dropping every side
/// without delivering ends the future with [`Error::EngineStopped`].
#[derive(Debug)]
pub(crate) struct Producer<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Producer<T> {
    /// Gives the future its answer, unless it had one; returns whether the future was still
    /// there to take it.
    fn deliver(self, value: T) -> bool {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.answered {
            return false;
        }
        let wanted = !state.future_gone;
        state.answered = true;
        state.value = Some(value);
        if let Some(waker) = state.waker.take() {
            drop(state);
            waker.wake();
        }
        wanted
    }

    /// Another side of the same future (see [`Reply::fallback`]).
    fn another(&self) -> Producer<T> {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.producers += 1;
        Producer { shared: self.shared.clone() }
    }
}

impl<T> Drop for Producer<T> {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.producers -= 1;
        if state.producers == 0 && !state.answered {
            state.abandoned = true;
            if let Some(waker) = state.waker.take() {
                drop(state);
                waker.wake();
            }
        }
    }
}

/// A future of one answer of the engine's reactor, woken by the reactor when the answer comes
/// (see [`Session::wait_async`](crate::Session::wait_async)). It works under any executor and
/// needs no thread of its own.
///
/// It is eager: the request is sent when the future is made, not when it is first polled, so
/// a wait's timeout counts from then and typed input is on its way at once. Dropping it before
/// it completes cancels what it waits for where that can be cancelled (a wait); otherwise the
/// answer is discarded. Like an `async fn`'s future, it must not be polled again once it
/// returned `Ready`: that panics (with `futures::select!`, wrap it in `.fuse()`). It is
/// `Send` and `Sync` when its answer is `Send`, so an `async fn` holding one across an
/// `.await` can be sent and shared between threads.
#[must_use = "the request is sent already; drop the future to cancel its wait, or await its answer"]
pub struct EngineFuture<T> {
    shared: Arc<Shared<Result<T>>>,
    /// Run when the future is dropped before it completed (`Sync` too, so that the future
    /// is `Sync` as the handles are).
    on_drop: Option<Box<dyn FnOnce() + Send + Sync>>,
    /// It returned its answer.
    done: bool,
}

impl<T> std::fmt::Debug for EngineFuture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("EngineFuture")
            .field("answered", &state.value.is_some())
            .field("abandoned", &state.abandoned)
            .finish_non_exhaustive()
    }
}

impl<T> EngineFuture<T> {
    /// A future and the reactor's side of it.
    pub(crate) fn new() -> (EngineFuture<T>, Producer<Result<T>>) {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                value: None,
                waker: None,
                producers: 1,
                answered: false,
                abandoned: false,
                future_gone: false,
            }),
        });
        let producer = Producer { shared: shared.clone() };
        (EngineFuture { shared, on_drop: None, done: false }, producer)
    }

    /// A future that is already answered (the request could not be sent).
    pub(crate) fn ready(value: Result<T>) -> EngineFuture<T> {
        let (future, producer) = EngineFuture::new();
        producer.deliver(value);
        future
    }

    /// Sets what dropping the future before it completes does.
    pub(crate) fn on_drop(mut self, hook: impl FnOnce() + Send + Sync + 'static) -> Self {
        self.on_drop = Some(Box::new(hook));
        self
    }
}

impl<T> Future for EngineFuture<T> {
    type Output = Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        assert!(!self.done, "termloom::EngineFuture polled after it completed");
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        let answer = match state.value.take() {
            Some(value) => Some(value),
            None if state.abandoned => Some(Err(Error::EngineStopped)),
            None => None,
        };
        if let Some(answer) = answer {
            drop(state);
            self.on_drop = None;
            self.done = true;
            return Poll::Ready(answer);
        }
        match &state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl<T> Drop for EngineFuture<T> {
    fn drop(&mut self) {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner()).future_gone = true;
        if let Some(hook) = self.on_drop.take() {
            hook();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answered future is ready once; polled again it panics (as an `async fn`'s future
    /// does) rather than staying pending for ever with nothing to wake it.
    #[test]
    fn a_future_is_ready_once_and_refuses_to_be_polled_again() {
        let mut future = EngineFuture::ready(Ok(7));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut pinned = Pin::new(&mut future);
        assert!(matches!(pinned.as_mut().poll(&mut cx), Poll::Ready(Ok(7))));
        let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = pinned.as_mut().poll(&mut cx);
        }));
        assert!(again.is_err(), "a completed future was polled again without a panic");
    }

    /// A request's guard holds a fallback beside the reply: the future is told the engine
    /// stopped only once both are dropped unanswered, takes the first answer of either, and
    /// a blocked caller's channel takes the fallback's answer without the reactor blocking.
    #[test]
    fn a_fallback_answers_once_and_abandons_only_with_the_reply() {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let (mut future, producer) = EngineFuture::<u8>::new();
        let reply = Reply::Future(producer);
        let fallback = reply.fallback();
        drop(reply);
        assert!(Pin::new(&mut future).poll(&mut cx).is_pending(), "abandoned with a fallback");
        fallback.answer_unanswered(Err(Error::EngineStopped));
        assert!(matches!(Pin::new(&mut future).poll(&mut cx), Poll::Ready(Err(_))));

        let (mut future, producer) = EngineFuture::<u8>::new();
        let reply = Reply::Future(producer);
        let fallback = reply.fallback();
        assert!(reply.send(Ok(1)));
        fallback.answer_unanswered(Ok(2));
        assert!(matches!(Pin::new(&mut future).poll(&mut cx), Poll::Ready(Ok(1))));

        let (mut future, producer) = EngineFuture::<u8>::new();
        let reply = Reply::Future(producer);
        drop(reply.fallback());
        drop(reply);
        let stopped = Pin::new(&mut future).poll(&mut cx);
        assert!(matches!(stopped, Poll::Ready(Err(Error::EngineStopped))), "{stopped:?}");

        let (tx, rx) = crossbeam_channel::bounded(1);
        let reply: Reply<u8> = tx.into();
        let fallback = reply.fallback();
        assert!(reply.send(1));
        fallback.answer_unanswered(2);
        assert_eq!(rx.recv(), Ok(1));
    }
}
