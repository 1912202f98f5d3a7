//! `termloom mcp`: terminal sessions over the Model Context Protocol, on stdio.
//!
//! The transport is JSON-RPC 2.0, one message per line; stdout carries protocol messages only
//! and logs go to stderr. Both eras of the protocol connect:
//!
//! - **Handshake revisions** 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25: the client
//!   sends `initialize`, the server answers with the same revision (or 2025-11-25 when it does
//!   not know the one asked for), its name and version and the `tools` capability; then
//!   `notifications/initialized`, `ping`, `tools/list` and `tools/call`. Results are shaped
//!   for the revision (annotations from 2025-03-26, `structuredContent` from 2025-06-18; no
//!   tool has an `outputSchema`, which would only lengthen `tools/list`). JSON-RPC batches
//!   are served under 2024-11-05 and 2025-03-26; under 2025-06-18 and later, which removed
//!   them, a batch is answered with one `Invalid Request` error and nothing in it is run.
//! - **2026-07-28** (stateless): every request carries its protocol version and client
//!   capabilities in `params._meta`; `server/discover` returns the supported versions,
//!   capabilities and server identity; results carry `resultType` and the server's identity.
//!   A client that supports both eras probes with `server/discover` first and falls back to
//!   `initialize` on an error, as the revision's stdio rules say.
//!
//! The client's opening selects the era for the connection. Tool calls run on worker threads
//! (at most [`ServeOptions::max_concurrent_calls`] at once), so a long wait never blocks
//! `ping`, other sessions or `notifications/cancelled`, which ends the cancelled call's wait
//! and suppresses its response. A line longer than [`ServeOptions::max_message_bytes`] is
//! refused without being buffered whole, and one holding more than 16,384 JSON values
//! (`jsonrpc::MAX_MESSAGE_VALUES`) before any of them is parsed. When the input ends, every session is closed and
//! the engine stops.
//!
//! The tools (`terminal_start`, `terminal_send`, `terminal_read`, `terminal_mouse`,
//! `terminal_run`, `terminal_signal`, `terminal_resize`, `terminal_close`, `terminal_list`)
//! are described in `tools/list` for a model.

/// Whether the JSON text `line` holds more values than a message may (16,384, each string,
/// number, literal, array and object): the server refuses such a message whole, before any
/// of it is parsed, so `termloom mcp --server` neither parses nor keeps track of it.
#[doc(hidden)]
pub fn too_many_values(line: &[u8]) -> bool {
    jsonrpc::holds_more_values_than(line, jsonrpc::MAX_MESSAGE_VALUES)
}

mod elicit;
mod inflight;
pub(crate) mod jsonrpc;
mod lines;
pub(crate) mod outbox;
mod peer_uid;
mod prompt_owner;
mod protocol;
mod secret_page;
pub(crate) mod server;
#[cfg(target_os = "linux")]
mod sock_diag;
pub(crate) mod tools;
mod url_secret;

use std::io::{self, BufRead, Write};

use crate::Engine;

/// Parses one message as the server does before dispatching it, and counts its values as
/// `termloom mcp --server` does any line of its host's, JSON or not (for the fuzz targets).
pub(crate) fn parse_for_fuzzing(bytes: &[u8]) {
    let _ = too_many_values(bytes);
    let _ = jsonrpc::parse(bytes);
}

/// Bytes a tool result may carry beyond the `max_bytes` its call asked for.
///
/// `max_bytes` bounds the whole result of the tools that take it: its strings (transcript,
/// screen text, window title, matched text, wait condition, program or command) share it,
/// each counted as its JSON-escaped length once in the text for a model and once more in
/// `structuredContent` when the revision sends one. Everything else, the fixed framing
/// (field names, numbers, the status, notes on what was left out and cut markers), stays
/// within this many bytes: the serialized text and structured content together never exceed
/// `max_bytes + MAX_BYTES_OVERHEAD`. (The longest framing measured is 3,109 bytes, its
/// counts at their longest: the rest is room for notes to come.)
pub const MAX_BYTES_OVERHEAD: usize = 4096;

/// Default limit of one message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 << 20;
/// Default limit of tool calls running at once.
pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 32;
/// Default limit of the bytes of messages queued for a client that reads slowly: 8 MiB.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 8 << 20;

/// Limits of the MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeOptions {
    /// Longest accepted message (one line), in bytes; a longer one is answered with an
    /// `Invalid Request` error, under its id when its start or its last 256 bytes show it, and
    /// skipped (the client's answer to a question of the server's ends that question instead,
    /// unanswered). It also bounds a batch's answers, which are held
    /// until the last is in: once they pass it, the batch's further requests are answered
    /// with a short error and not run. Default [`DEFAULT_MAX_MESSAGE_BYTES`].
    pub max_message_bytes: usize,
    /// Most tool calls running at once; beyond it a call gets an error result asking to wait.
    /// A running call of the 2026-07-28 revision holds the `inputResponses` it was sent, as
    /// their text, at most `max_message_bytes`: together at most this many times that (128
    /// MiB by default). Default [`DEFAULT_MAX_CONCURRENT_CALLS`].
    pub max_concurrent_calls: usize,
    /// How long a tool call waits for the person to answer a question put through
    /// elicitation (a start the spawn policy asks about, a secret) before it gives up and
    /// does nothing. Default [`DEFAULT_ELICITATION_TIMEOUT`].
    pub elicitation_timeout: std::time::Duration,
    /// Most bytes of messages (answers, notifications) queued for a client that reads them
    /// slowly, or not at all; a call or notification that would add more waits for room (its
    /// call keeps its place among those running), and so does the reading of further
    /// requests. A message alone in the queue may be larger. At most 256 messages are queued
    /// besides. Default [`DEFAULT_MAX_QUEUED_BYTES`].
    pub max_queued_bytes: usize,
}

/// Default time a person has to answer a question: 10 minutes.
pub const DEFAULT_ELICITATION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_concurrent_calls: DEFAULT_MAX_CONCURRENT_CALLS,
            elicitation_timeout: DEFAULT_ELICITATION_TIMEOUT,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
        }
    }
}

/// Serves MCP on this process's stdin and stdout until stdin ends, then closes every session.
/// Logs go to stderr; stdout carries protocol messages only.
pub fn serve_stdio(engine: Engine) -> io::Result<()> {
    serve(engine, io::stdin().lock(), io::stdout())
}

/// Serves MCP on `input` and `output` with the default [`ServeOptions`]; see [`serve_with`].
pub fn serve<R: BufRead, W: Write + Send + 'static>(
    engine: Engine,
    input: R,
    output: W,
) -> io::Result<()> {
    serve_with(engine, input, output, &ServeOptions::default())
}

/// Serves MCP: reads one JSON-RPC message per line from `input` and writes one per line to
/// `output` (from a writer thread of its own), until `input` ends. Then it lets calls in
/// progress answer (their waits end early), shuts the engine down, which closes every session
/// and leaves no process behind, flushes `output` and returns `Ok(())`. An error reading
/// `input` ends serving the same way and is returned.
pub fn serve_with<R: BufRead, W: Write + Send + 'static>(
    engine: Engine,
    input: R,
    output: W,
    options: &ServeOptions,
) -> io::Result<()> {
    server::run(engine, input, output, options)
}
