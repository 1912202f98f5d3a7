//! The terminal tools: `tools/list` and `tools/call`.
//!
//! Each call returns `content` text laid out for a model (a status header, the new transcript,
//! the screen when it matters, notes on what was left out) and `structuredContent` with the
//! same data as JSON; a call's `max_bytes` bounds both together (see `budget.rs`). Problems a
//! model can fix (a bad argument, an unknown session, a program that cannot start) are tool
//! results with `isError`, worded so the model can act on them.

mod args;
mod budget;
mod catalog;
mod control;
mod io;
mod lookup;
pub(crate) mod progress;
mod render;
mod screen_diff;
pub(crate) mod toolbox;
mod view;
mod waits;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::{Engine, Error, ReaderId, Session, SessionId, SpawnSpec};

use super::inflight::CancelToken;
use super::protocol::Revision;
use args::Args;
use catalog::TOOLS;
use screen_diff::SeenScreens;

pub(crate) use catalog::NAMES;

/// What a tool produced.
pub(crate) struct ToolOutput {
    /// The text for a model.
    pub text: String,
    /// The same data as JSON (matching the tool's output schema).
    pub structured: Value,
}

/// Why a tool call failed, in words a model can act on.
#[derive(Debug)]
pub(crate) struct ToolError {
    /// The message.
    pub message: String,
    /// The call was cancelled: nothing is sent back.
    pub cancelled: bool,
}

impl ToolError {
    /// A failure with this message.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ToolError { message: message.into(), cancelled: false }
    }

    /// The call was cancelled.
    pub(crate) fn cancelled() -> Self {
        ToolError { message: "cancelled".into(), cancelled: true }
    }
}

impl From<Error> for ToolError {
    fn from(err: Error) -> Self {
        ToolError::new(match &err {
            Error::UnknownSession(id) => format!(
                "session {id} does not exist; call terminal_list to see the sessions, or terminal_start to start one"
            ),
            Error::SessionClosed(id) => format!(
                "session {id} is closed and accepts no input; terminal_read can still show its last output, and terminal_start starts a new session"
            ),
            Error::SessionExited(id) => format!(
                "session {id}: its program has exited and accepts no input; read its last output with terminal_read, then terminal_close it"
            ),
            Error::EngineStopped => {
                "the terminal engine is shutting down; no session can be used".to_owned()
            }
            _ => err.to_string(),
        })
    }
}

/// One lock per session, held while a call types into it, so that the input of two calls
/// running at once is not interleaved (their waits still run side by side); and a count of
/// the calls that typed into it, so that a cancelled call interrupts only its own work.
#[derive(Debug, Default)]
pub(crate) struct InputLocks {
    locks: Mutex<HashMap<SessionId, Arc<SessionInput>>>,
}

/// A session's input lock and typing count.
#[derive(Debug, Default)]
pub(crate) struct SessionInput {
    /// Held while a call types.
    pub lock: Mutex<()>,
    /// Calls that typed into the session so far.
    typed: AtomicU64,
}

impl SessionInput {
    /// Counts a call that types; returns its number.
    pub(crate) fn typing(&self) -> u64 {
        self.typed.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Whether the call numbered `number` is the last that typed.
    pub(crate) fn last_typed(&self, number: u64) -> bool {
        self.typed.load(Ordering::SeqCst) == number
    }
}

impl InputLocks {
    /// The input of session `id`.
    pub(crate) fn of(&self, id: SessionId) -> Arc<SessionInput> {
        let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
        locks.entry(id).or_default().clone()
    }

    /// Forgets the lock of a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.locks.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }
}

/// What the calls of one caller (an MCP connection, a [`toolbox::Toolbox`]) share.
#[derive(Debug, Default)]
pub(crate) struct Caller {
    /// The sessions' input locks.
    pub input: InputLocks,
    /// The screens this caller was shown, which later screens are shown as changes to.
    pub seen: SeenScreens,
    /// This caller's read positions in the sessions' transcripts.
    pub reader: ReaderId,
}

impl Caller {
    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.input.forget(id);
        self.seen.forget(id);
    }
}

/// A tool call's context.
pub(crate) struct Call<'a> {
    /// The engine whose sessions the tools drive.
    pub engine: &'a Engine,
    /// The call's cancellation token.
    pub cancel: &'a Arc<CancelToken>,
    /// What this caller's calls share.
    pub caller: &'a Caller,
    /// Where the call reports progress while it waits, when the client asked.
    pub progress: Option<&'a progress::Progress>,
    /// The protocol revision the call is served in.
    pub revision: Revision,
}

impl Call<'_> {
    /// Session `id`, read from this caller's read position.
    pub(crate) fn session(&self, id: SessionId) -> crate::Result<Session> {
        Ok(self.engine.session(id)?.as_reader(self.caller.reader))
    }

    /// Starts a session, read from this caller's read position.
    pub(crate) fn spawn(&self, spec: SpawnSpec) -> crate::Result<Session> {
        Ok(self.engine.spawn(spec)?.as_reader(self.caller.reader))
    }

    /// Whether results carry `structuredContent` besides their text (from 2025-06-18).
    pub(crate) fn structured(&self) -> bool {
        self.revision >= Revision::V2025_06_18
    }
}

/// Whether `name` is a tool.
pub(crate) fn exists(name: &str) -> bool {
    catalog::find(name).is_some()
}

/// The `tools/list` result for a revision.
pub(crate) fn list(revision: Revision) -> Value {
    json!({ "tools": TOOLS.iter().map(|tool| tool.entry(revision)).collect::<Vec<_>>() })
}

/// Runs tool `name` on its checked arguments: its output, or a message a model can act on;
/// `None` when the call was cancelled. What [`Toolbox`] and the MCP server both call.
pub(crate) fn run(
    call: &Call,
    name: &str,
    arguments: &Map<String, Value>,
) -> Option<Result<ToolOutput, String>> {
    let outcome = match catalog::find(name) {
        Some(tool) => Args::new(tool, arguments).and_then(|args| (tool.run)(call, &args)),
        None => Err(ToolError::new(format!("unknown tool {name:?}"))),
    };
    match outcome {
        Ok(output) => Some(Ok(output)),
        Err(err) if err.cancelled => None,
        Err(err) => Some(Err(err.message)),
    }
}

/// Runs tool `name` (which [`exists`]) on its checked arguments; `None` when the call was
/// cancelled, otherwise the `tools/call` result for the call's revision.
pub(crate) fn call(call: &Call, name: &str, arguments: &Map<String, Value>) -> Option<Value> {
    Some(match run(call, name, arguments)? {
        Ok(output) => {
            let mut result = json!({
                "content": [{ "type": "text", "text": output.text }],
                "isError": false,
            });
            if call.structured() {
                result["structuredContent"] = output.structured;
            }
            result
        }
        Err(message) => refusal(&message),
    })
}

/// A `tools/call` result saying the call could not be run.
pub(crate) fn refusal(message: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}
