//! `termloom server`: one engine whose sessions outlive their clients, served on a Unix-domain
//! socket to the command line (`termloom start`, `send`, `read`, …), to MCP hosts
//! (`termloom mcp --server`) and to people watching (`termloom attach`).
//!
//! # Protocol (version [`PROTOCOL`])
//!
//! JSON-RPC 2.0, one message per line, on the socket. Everything `termloom mcp` serves is
//! served (`initialize`, `tools/list`, `tools/call`, … of every MCP revision it knows), and
//! these methods besides:
//!
//! - `termloom/hello` `{"protocol": 2, "client": "NAME"}` → `{"protocol", "server", "pid",
//!   "client"}`: checks the protocol version the client needs (from [`OLDEST_PROTOCOL`] to
//!   [`PROTOCOL`]: 2 for `termloom/input`'s `bytes`, 1 for everything else; a server of
//!   version 1 refuses 2, saying which it speaks) and names the client. Clients with the same name
//!   share read positions (what "new output" means), across connections; a connection that
//!   never says hello has read positions of its own. The server keeps
//!   [`ServerOptions::max_clients`] names: past them, the one named least recently that no
//!   connection or call uses is forgotten. A version outside that range is refused.
//!   `"mcp": true` says the connection relays an MCP host (`termloom mcp --server` sends
//!   it): a malformed or oversized message is then answered and skipped, as `termloom mcp`
//!   does on stdio, instead of closing the connection.
//!   A connection the client closes while calls run (killed in a wait) ends their waits, and
//!   they take nothing from its read positions: what they would have shown stays new. (Once
//!   the client only shuts its writing end, the calls still answer with what they read.)
//! - `termloom/attach` `{"session": ID or NAME, "takeover": bool}`: streams the session's
//!   screen as `termloom/frame` notifications (`{"session", "name", "cols", "rows", "lines",
//!   "styles": [[row, col, width, sgr], ...], "cursor": [row, col] or null, "title",
//!   "modes", "held", "held_by_other"}`, `name` the session's name or null, `sgr` the parameters of the SGR sequence that
//!   draws a run's colours and attributes, `modes` the input modes its program set (as
//!   [`crate::Modes`]: `app_cursor`, `bracketed_paste`...), `held` whether this connection
//!   holds the session, `held_by_other` whether another does) whenever it changes (once the client
//!   has read the last frame: a slow reader gets the screen as it is then), and answers
//!   `{"reason"}` when the program ends (`"the program ended (exit code 3)"`, after a last
//!   frame of the screen it left) or the connection closes. With `takeover` the
//!   connection holds the session: tools that type into it, signal, resize or close it are
//!   refused for everyone else with "a person holds this session", until the connection ends.
//! - `termloom/input` `{"session", "text"}` or `{"session", "bytes": [n, ...]}`: types into a
//!   session this connection holds, `text` as UTF-8, `bytes` (numbers from 0 to 255) as they
//!   are (what is not UTF-8, such as an 8-bit Meta key's byte; protocol 2, which a client
//!   that types bytes says in its hello). Answers `{}` once queued, or
//!   an error when it typed nothing (the session's input queue is full, its program ended):
//!   the input is then lost, and the client is to tell its person. It counts as typed after
//!   every tool call before it: one cancelled later does not interrupt the program with
//!   Ctrl-C's signal.
//! - `termloom/release` `{"session"}`: hands a held session back (the stream goes on).
//! - `termloom/shutdown`: closes every session and stops the server.
//!
//! Session ids go on from the last server's on the same socket (recorded in its lock file
//! before each start), so an id a client kept from an earlier server never names a session of
//! this one; using one is refused saying whose it was (by `termloom/attach`, `termloom/input`
//! and `termloom/release` with invalid params whose `data.code` is `session_forgotten`, as a
//! tool's error code is; `unknown_session` for an id or name of no session).
//!
//! Messages are bounded ([`ServerOptions::max_message_bytes`]), as are the requests in
//! progress per connection ([`ServerOptions::max_pending_requests`]). A malformed, oversized
//! or truncated message is answered with an error and its connection closed (unless the
//! connection relays an MCP host, see `termloom/hello`); other
//! connections and every session go on. Whatever the client sent after the bad message is not
//! read, so a client may see the connection reset once it has read the answer.
//!
//! # Threads
//!
//! No async runtime: one thread accepts connections, each connection has a reader and a writer
//! thread, each tool call runs on a thread of its own (as in `termloom mcp`), each attachment
//! (`termloom/attach`) streams from a thread of its own, one thread watches for the server
//! to be idle, and one for its socket to be gone. Every one of them blocks in a system call
//! or on a condition variable until something happens, except an attachment's, which looks at
//! its session's screen every 50 ms while someone watches, and the socket's watcher, which
//! looks every 2 s whether the socket's path still names the server's socket: once it was
//! removed (its directory too, as at logout) or replaced, no client can reach the server,
//! which then stops, closing every session. So an idle server wakes once every 2 s.

mod attach;
mod client;
mod hub;
mod socket;

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::Engine;

pub use client::{Client, Reply, Sender};
pub use socket::{
    CLOSING_WAIT, check_socket_dir, check_socket_path, check_socket_place, connect,
    prepare_socket_dir, socket_dir, socket_path,
};

/// Detaches a server started by a client (`termloom server --detach`) from it, before it
/// opens anything: a session of its own, so the client's terminal closing does not reach it,
/// and none of the descriptors above 2 it inherited, since a pipe the client's caller left
/// open to it (a shell's `3>&1`, a `make` jobserver) would stay open until the server exits,
/// and whoever reads that pipe to its end would wait that long.
pub fn detach() {
    let _ = rustix::process::setsid();
    crate::os::descriptors::close_above_2();
}

/// Checks a client's name as the server does (`termloom/hello`'s `client`): 1 to 64 letters,
/// digits, `-`, `_` or `.`, not starting with a digit or `-`; the error says so.
pub fn check_client_name(name: &str) -> Result<(), String> {
    use crate::mcp::tools::names::{MAX_NAME, NAME_RULE, check_name};
    check_name(name)
        .map_err(|_| format!("invalid client name {name:?}: use 1 to {MAX_NAME} {NAME_RULE}"))
}

/// Checks a session's name as the server does (`terminal_start`'s `name`): 1 to 64 letters,
/// digits, `-`, `_` or `.`, not starting with a digit (so it never reads as an id) or `-` (so
/// the command line never reads it as a flag); the error says so.
pub fn check_session_name(name: &str) -> Result<(), String> {
    crate::mcp::tools::names::check_name(name).map_err(|err| err.message)
}

/// The version of the protocol this termloom speaks, which `termloom/hello` checks: 2, since
/// `termloom/input` took `bytes` (a server of version 1 refuses them, typing nothing). A
/// client says the version it needs: [`Client::hello`] this one, for `termloom attach`, which
/// types bytes; a tool call needs nothing past [`OLDEST_PROTOCOL`], and says so.
pub const PROTOCOL: u64 = 2;

/// The `data.code` of the error a server answers a connection with that came as it stopped
/// (an idle exit decided as the client connected): it did nothing with it. The client's
/// calls fail with an [`io::ErrorKind::ConnectionAborted`] error then, to connect again.
pub const SERVER_STOPPING: &str = "server_stopping";

/// The oldest version a server accepts in `termloom/hello`: version 1 is this one without
/// `termloom/input`'s `bytes`, so a client that needs nothing more (a tool call, an MCP
/// host's proxy) says 1 and is served by servers of either version.
pub const OLDEST_PROTOCOL: u64 = 1;

/// How long an idle server waits by default before it exits: no session and no client.
pub const DEFAULT_IDLE_EXIT: Duration = Duration::from_secs(10);
/// Default limit of connections at once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Default limit of requests in progress on one connection.
pub const DEFAULT_MAX_PENDING_REQUESTS: usize = 32;
/// Default limit of client names (each has read positions) a server keeps.
pub const DEFAULT_MAX_CLIENTS: usize = 1024;
/// Default limit of the sessions one client (by name) may have open.
pub const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 32;

/// How a server listens and what it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The socket ([`socket_path`]`("default")` by default).
    pub socket: PathBuf,
    /// Exit after this long with no session open and no client connected; `None`: never.
    /// Default [`DEFAULT_IDLE_EXIT`].
    pub idle_exit: Option<Duration>,
    /// Most connections at once; more are refused with an error. Default
    /// [`DEFAULT_MAX_CONNECTIONS`].
    pub max_connections: usize,
    /// Longest message, in bytes. Default [`crate::mcp::DEFAULT_MAX_MESSAGE_BYTES`].
    pub max_message_bytes: usize,
    /// Most bytes of messages queued for one connection's client that reads them slowly, or
    /// not at all; what would add more waits for room. Default
    /// [`crate::mcp::DEFAULT_MAX_QUEUED_BYTES`] (see
    /// [`ServeOptions::max_queued_bytes`](crate::mcp::ServeOptions::max_queued_bytes)).
    pub max_queued_bytes: usize,
    /// Most requests in progress on one connection, tool calls and attachments (`termloom
    /// attach`, each streaming until it ends) each counted on their own. Default
    /// [`DEFAULT_MAX_PENDING_REQUESTS`].
    pub max_pending_requests: usize,
    /// Most sessions one client may have running (started, not closed, their program not
    /// exited). Default
    /// [`DEFAULT_MAX_SESSIONS_PER_CLIENT`].
    pub max_sessions_per_client: usize,
    /// Most client names (`termloom/hello`) the server keeps read positions for. A new name
    /// past it takes the place of the one named least recently that no connection or call
    /// uses (whose read positions are forgotten), and is refused only when every one is in
    /// use. Each session keeps the positions of its
    /// [`Config::max_readers`](crate::Config::max_readers) most recent readers, so give the
    /// engine as many (their copies of the screen are bounded apart, by
    /// [`Config::readers_tail_bytes`](crate::Config::readers_tail_bytes)). Default
    /// [`DEFAULT_MAX_CLIENTS`].
    pub max_clients: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            socket: socket_path("default"),
            idle_exit: Some(DEFAULT_IDLE_EXIT),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_message_bytes: crate::mcp::DEFAULT_MAX_MESSAGE_BYTES,
            max_queued_bytes: crate::mcp::DEFAULT_MAX_QUEUED_BYTES,
            max_pending_requests: DEFAULT_MAX_PENDING_REQUESTS,
            max_sessions_per_client: DEFAULT_MAX_SESSIONS_PER_CLIENT,
            max_clients: DEFAULT_MAX_CLIENTS,
        }
    }
}

impl ServerOptions {
    /// The defaults, listening on `socket`.
    pub fn at(socket: impl Into<PathBuf>) -> ServerOptions {
        ServerOptions { socket: socket.into(), ..ServerOptions::default() }
    }
}

/// A server bound to its socket, ready to [`Server::run`].
#[derive(Debug)]
pub struct Server {
    bound: socket::Bound,
    hub: Arc<hub::Hub>,
}

/// Stops a running server from another thread (a signal handler's thread, for one).
#[derive(Debug, Clone)]
pub struct ServerStop(Arc<hub::Hub>);

impl ServerStop {
    /// Stops the server: [`Server::run`] closes every session and returns.
    pub fn stop(&self) {
        self.0.stop();
    }
}

impl Server {
    /// Binds the socket (see [`ServerOptions::socket`]): its directory is made private to
    /// this user (0700), the socket is 0600, and a stale socket left by a server that died is
    /// replaced. Fails if a server already runs on it.
    pub fn bind(engine: Engine, options: ServerOptions) -> io::Result<Server> {
        let bound = socket::bind(&options.socket)?;
        // Ids go on from the last server's on this socket: an id a caller kept from it never
        // names a session of this one.
        engine.number_sessions_from(bound.first_id).map_err(io::Error::other)?;
        let hub = hub::Hub::new(engine, options);
        hub.listening_on(&bound.listener, &bound.path)?;
        hub.recording_ids(bound.lock.try_clone()?, bound.first_id);
        Ok(Server { bound, hub })
    }

    /// The socket it listens on.
    pub fn socket(&self) -> &std::path::Path {
        &self.bound.path
    }

    /// A handle that stops the server.
    pub fn stopper(&self) -> ServerStop {
        ServerStop(self.hub.clone())
    }

    /// Serves until stopped ([`ServerStop::stop`], `termloom/shutdown`), idle for
    /// [`ServerOptions::idle_exit`], or unreachable (its socket's file removed or replaced,
    /// looked at every 2 s); then closes every session, removes the socket (if still its
    /// own) and returns.
    pub fn run(self) -> io::Result<()> {
        let Server { bound, hub } = self;
        let result = hub.clone().serve(&bound.listener, bound.file());
        hub.engine().shutdown();
        drop(bound);
        result
    }
}
