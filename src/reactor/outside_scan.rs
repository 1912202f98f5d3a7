//! Looking for closing sessions' processes outside their cgroups, off the reactor's thread: a
//! scan of `/proc` costs about 1 ms per 100 processes on the host, whatever the session's
//! size. A thread of its own makes one scan for every close that asked since its last, and
//! sends each close its answer through a channel the reactor empties every round, waking it.

use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender};
use mio::Waker;

use crate::os::procfs::{self, ProcStat};

/// One close's question: the live processes of the POSIX session `sid` not among `members`
/// (its cgroup's, sorted).
struct Ask {
    id: u64,
    sid: i32,
    members: Vec<i32>,
}

/// One close's answer: the processes of session `id`'s POSIX session found outside its
/// cgroup, sorted by pid.
pub(super) struct Found {
    pub(super) id: u64,
    pub(super) outside: Vec<ProcStat>,
}

/// The questions not taken yet, and whether a thread is there to take them.
#[derive(Default)]
struct Pending {
    asks: Vec<Ask>,
    running: bool,
}

/// The reactor's side: questions go to the scanning thread (started when one is asked and
/// none runs; it ends once nothing is left to ask), answers come back through `found`.
pub(super) struct OutsideScans {
    pending: Arc<Mutex<Pending>>,
    answers: Sender<Found>,
    found: Receiver<Found>,
    waker: Option<Arc<Waker>>,
}

impl OutsideScans {
    /// Answers wake the poll through `waker` (without one, they wait for the next round).
    pub(super) fn new(waker: Option<Arc<Waker>>) -> Self {
        let (answers, found) = crossbeam_channel::unbounded();
        OutsideScans { pending: Arc::default(), answers, found, waker }
    }

    /// Asks for the live processes of POSIX session `sid` outside `members` (sorted), for
    /// session `id`: answered through [`OutsideScans::take`]. Where no thread can be started,
    /// the scan is made here.
    pub(super) fn ask(&self, id: u64, sid: i32, members: Vec<i32>) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.asks.push(Ask { id, sid, members });
        if pending.running {
            return;
        }
        pending.running = true;
        drop(pending);
        let (shared, answers, waker) =
            (self.pending.clone(), self.answers.clone(), self.waker.clone());
        let spawned = std::thread::Builder::new()
            .name("termloom-scan".into())
            .spawn(move || serve(&shared, &answers, waker.as_deref()));
        if spawned.is_err() {
            serve(&self.pending, &self.answers, None);
        }
    }

    /// An answer that came back, if any.
    pub(super) fn take(&self) -> Option<Found> {
        self.found.try_recv().ok()
    }
}

/// Answers the questions asked, one scan for all those waiting, until none is left.
fn serve(pending: &Mutex<Pending>, answers: &Sender<Found>, waker: Option<&Waker>) {
    loop {
        let asks = {
            let mut pending = pending.lock().unwrap_or_else(|e| e.into_inner());
            if pending.asks.is_empty() {
                pending.running = false;
                return;
            }
            std::mem::take(&mut pending.asks)
        };
        let mut sids: Vec<i32> = asks.iter().map(|ask| ask.sid).collect();
        sids.sort_unstable();
        sids.dedup();
        let live = procfs::live_processes_of_sessions(&sids);
        for ask in asks {
            let outside = live
                .iter()
                .filter(|p| p.session == ask.sid && ask.members.binary_search(&p.pid).is_err())
                .cloned()
                .collect();
            let _ = answers.send(Found { id: ask.id, outside });
        }
        if let Some(waker) = waker {
            let _ = waker.wake();
        }
    }
}
