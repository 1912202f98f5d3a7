//! The server side of `termloom attach`: a session's screen streamed to a person's terminal as
//! `termloom/frame` notifications, a frame whenever the screen (its text or its colours)
//! changes. A client that reads
//! slower than the screen changes (a terminal that draws slowly, a stalled one) gets the screen
//! as it is when it has read the last frame: one frame at most waits for it per attachment,
//! not every frame since (a frame of a large screen is up to a megabyte).

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, TryRecvError};
use serde_json::{Value, json};

use crate::mcp::outbox::Outbox;
use crate::{Session, SessionState};

/// How often an attached screen is looked at. Only while a person watches: the engine has no
/// "screen changed" notification, and a person does not see faster than this.
const FRAME_INTERVAL: Duration = Duration::from_millis(50);

/// The most styled runs a frame carries: more than a person's terminal of 200x80 can show
/// with a style change at every other cell. A screen with more (a hostile program's) has its
/// later rows drawn plain, and a frame stays a few hundred kilobytes over its text.
const MAX_FRAME_RUNS: usize = 8192;

/// A flag that a connection's input ended, which attach streams wait on.
#[derive(Debug, Default)]
pub(crate) struct Ended {
    ended: Mutex<bool>,
    changed: Condvar,
}

impl Ended {
    /// Marks the connection ended and wakes its streams.
    pub(crate) fn end(&self) {
        *self.ended.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Waits at most `timeout`; true once the connection ended.
    fn wait(&self, timeout: Duration) -> bool {
        let ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        let (ended, _) = self
            .changed
            .wait_timeout_while(ended, timeout, |ended| !*ended)
            .unwrap_or_else(|e| e.into_inner());
        *ended
    }
}

/// The last frame an attachment sent, and whether it has been written to the client.
#[derive(Default)]
struct Sent {
    last: Option<Value>,
    /// Signalled once the last frame has been written (or could not be).
    written: Option<Receiver<()>>,
}

impl Sent {
    /// Whether the last frame has left: the next may be sent. Until then, later frames are
    /// not queued behind it; the screen is looked at again at the next interval.
    fn is_written(&mut self) -> bool {
        match &self.written {
            Some(written) => !matches!(written.try_recv(), Err(TryRecvError::Empty)),
            None => true,
        }
    }
}

/// One person watching one session.
pub(crate) struct Watch {
    pub session: Session,
    /// The session's name when it has one (shown on the person's status line).
    pub name: Option<String>,
    pub outbox: Outbox,
    pub ended: std::sync::Arc<Ended>,
    /// The person holds the session (took it over).
    pub held: bool,
    /// Whether another connection holds the session (another person took it over).
    pub held_by_other: Box<dyn Fn() -> bool + Send>,
    /// Whether the server is stopping (it closes every session, which may be removed before
    /// the watch sees it closed).
    pub stopping: Box<dyn Fn() -> bool + Send>,
}

impl Watch {
    /// Sends a frame for every change the client has read the last frame before, until the
    /// program ends or the connection does; returns why it stopped.
    pub(crate) fn stream(&self) -> String {
        let mut sent = Sent::default();
        loop {
            if sent.is_written() {
                match self.frame() {
                    Ok(frame) => self.send_changed(frame, &mut sent),
                    Err(_) => return self.gone(),
                }
            }
            let ended = match self.session.info().map(|info| (info.state, info.status)) {
                Ok((SessionState::Running, _)) => None,
                Ok((SessionState::Exited(how), _)) => Some(format!("the program ended ({how})")),
                Ok((SessionState::Closed(how), status)) => {
                    Some(format!("the session was closed ({})", how.ending(status.ended_by_close)))
                }
                Err(_) => Some(self.gone()),
            };
            if let Some(ended) = ended {
                // The screen as the program left it: what it printed last came after the
                // frame above.
                if let Ok(frame) = self.frame() {
                    self.send_changed(frame, &mut sent);
                }
                return ended;
            }
            if self.ended.wait(FRAME_INTERVAL) {
                return "detached".to_owned();
            }
        }
    }

    /// Why the watch stopped when its session is no longer there: closed by the server
    /// stopping (said as a close, which the client tells as the server stopped), or gone.
    fn gone(&self) -> String {
        match (self.stopping)() {
            true => "the session was closed (the server was stopped)".to_owned(),
            false => "the session is gone".to_owned(),
        }
    }

    /// Sends `frame` unless it is the last one sent.
    fn send_changed(&self, frame: Value, sent: &mut Sent) {
        if sent.last.as_ref() != Some(&frame) {
            let message = json!({
                "jsonrpc": "2.0",
                "method": "termloom/frame",
                "params": frame,
            });
            sent.written = Some(self.outbox.send_noting_written(message.to_string()));
            sent.last = Some(frame);
        }
    }

    /// The screen as a frame: its rows' text, and its styled runs (the first
    /// [`MAX_FRAME_RUNS`]) as `[row, col, width, sgr]` (see [`crate::StyleRun::sgr`]), which
    /// the person's terminal draws in colour.
    fn frame(&self) -> crate::Result<Value> {
        let styled = self.session.styled_screen()?;
        let styles: Vec<Value> = styled
            .runs
            .iter()
            .take(MAX_FRAME_RUNS)
            .map(|run| json!([run.row, run.col, run.width, run.sgr()]))
            .collect();
        let screen = styled.screen;
        let cursor = screen.cursor;
        Ok(json!({
            "session": self.session.id().0,
            "name": self.name,
            "cols": screen.cols,
            "rows": screen.rows,
            "lines": screen.lines,
            "styles": styles,
            "cursor": cursor.visible.then_some([cursor.row, cursor.col]),
            "title": screen.title,
            "modes": screen.modes,
            "held": self.held,
            "held_by_other": (self.held_by_other)(),
        }))
    }
}
