//! Progress notifications while a call waits: when the client sent a `progressToken` with a
//! call, a `notifications/progress` every [`PROGRESS_EVERY`] carries the time waited and the
//! session's last line of output, so the host sees the call is alive (and hosts that reset
//! their request timeout on progress do not give up on a long wait).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use serde_json::json;

use crate::Session;
use crate::mcp::jsonrpc::Id;
use crate::mcp::outbox::Outbox;

use super::Call;
use super::budget::keep_end;

/// How often a waiting call reports progress.
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_secs(2);
/// Most bytes of the live tail a progress message carries.
const TAIL_BYTES: usize = 200;

/// Where a call's progress goes: the client's token (as it wrote it) and the server's output.
pub(crate) struct Progress {
    token: Id,
    outbox: Outbox,
    sent: AtomicU64,
    started: Instant,
}

impl Progress {
    /// Progress for the call that sent `token`.
    pub(crate) fn new(token: Id, outbox: Outbox) -> Progress {
        Progress { token, outbox, sent: AtomicU64::new(0), started: Instant::now() }
    }

    /// Sends one notification: the seconds waited, and the last line `session` printed.
    fn report(&self, session: &Session) {
        let count = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
        let secs = self.started.elapsed().as_secs();
        let last = session.scrollback(TAIL_BYTES * 4).map(|s| s.text).unwrap_or_default();
        let last = last.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("");
        let (tail, _) = keep_end(last, TAIL_BYTES);
        let message = match tail {
            "" => format!("waiting, {secs} s"),
            tail => format!("waiting, {secs} s; last line: {tail}"),
        };
        let params = json!({"progress": count, "message": message}).to_string();
        let (token, rest) = (&self.token, &params[1..]);
        self.outbox.send(format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},{rest}}}"#
        ));
    }
}

/// Waits for the reply on `rx` to a request about `session`, reporting progress meanwhile
/// when the call asked for it; `gone` is the error when the engine dropped the request.
pub(crate) fn await_reply<T>(
    call: &Call,
    session: &Session,
    rx: &Receiver<crate::Result<T>>,
    gone: impl Fn() -> crate::Error,
) -> crate::Result<T> {
    reply_or_stop(call, session, rx, &crossbeam_channel::never(), &gone)
        .unwrap_or_else(|| Err(gone()))
}

/// [`await_reply`] for a reply the engine gives only when its work ends (a command's), which
/// no cancellation of the call's wait ends: `None` once the call is stopped (cancelled, or its
/// client's input ended) first. `rx` is then dropped, so the engine knows nobody takes the
/// reply (a command's output stays unread for the caller's next read).
pub(crate) fn await_reply_unless_stopped<T>(
    call: &Call,
    session: &Session,
    rx: Receiver<crate::Result<T>>,
    gone: impl Fn() -> crate::Error,
) -> Option<crate::Result<T>> {
    let (stop, stopped) = crossbeam_channel::bounded(1);
    call.cancel.on_stop(move || {
        let _ = stop.try_send(());
    });
    reply_or_stop(call, session, &rx, &stopped, &gone)
}

/// The reply on `rx`, or `None` once `stopped` is told first; progress is reported meanwhile
/// when the call asked for it.
fn reply_or_stop<T>(
    call: &Call,
    session: &Session,
    rx: &Receiver<crate::Result<T>>,
    stopped: &Receiver<()>,
    gone: &impl Fn() -> crate::Error,
) -> Option<crate::Result<T>> {
    let ticks = match call.progress {
        Some(_) => crossbeam_channel::tick(PROGRESS_EVERY),
        None => crossbeam_channel::never(),
    };
    loop {
        crossbeam_channel::select! {
            recv(rx) -> reply => return Some(reply.unwrap_or_else(|_| Err(gone()))),
            recv(stopped) -> _ => return None,
            recv(ticks) -> _ => {
                if let Some(progress) = call.progress {
                    progress.report(session);
                }
            }
        }
    }
}
