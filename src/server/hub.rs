//! What every connection of a server shares: the engine, session names, the sessions' input
//! locks, the clients' read positions, who started which session, who holds which session,
//! and the server's life (connections, idleness, stopping).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::mcp::ServeOptions;
use crate::mcp::jsonrpc::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Id, RpcError, error_response,
};
use crate::mcp::outbox::{Outbox, Responder};
use crate::mcp::server::{Extension, run_connection};
use crate::mcp::tools::ToolError;
use crate::mcp::tools::names::Names;
use crate::mcp::tools::screen_diff::{SERVER_SCREEN_BYTES_KEPT, ScreenBudget};
use crate::mcp::tools::{Caller, InputLocks, describe_sessions};
use crate::{Engine, SessionId, SessionState};

use super::attach::{self, Ended};
use super::{OLDEST_PROTOCOL, PROTOCOL, ServerOptions, socket};

/// What `termloom/input` types: its `text`, or its `bytes` (numbers from 0 to 255: what a
/// person typed that is not UTF-8, such as an 8-bit Meta key's byte); the error says which
/// to give.
fn typed_bytes(params: &Map<String, Value>) -> Result<Vec<u8>, String> {
    let bad = || {
        "give termloom/input either text (a string) or bytes (an array of numbers from 0 to 255)"
            .to_owned()
    };
    match (params.get("text"), params.get("bytes")) {
        (Some(Value::String(text)), None) => Ok(text.as_bytes().to_vec()),
        (None, Some(Value::Array(bytes))) => bytes
            .iter()
            .map(|byte| byte.as_u64().and_then(|b| u8::try_from(b).ok()).ok_or_else(bad))
            .collect(),
        _ => Err(bad()),
    }
}

/// The tools refused to everyone but the holder of a session a person took over.
const TYPING_TOOLS: [&str; 6] = [
    "terminal_send",
    "terminal_mouse",
    "terminal_run",
    "terminal_signal",
    "terminal_resize",
    "terminal_close",
];

/// The first and the longest wait before accepting again after a failure to accept.
const ACCEPT_RETRY: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));
/// How often failures to accept are logged while they go on.
const ACCEPT_WARNINGS: Duration = Duration::from_secs(60);

/// How often a server looks whether its socket is still there ([`Hub::watch_socket`]).
const SOCKET_CHECK: Duration = Duration::from_secs(2);

/// How long `termloom/shutdown` waits for its answer to be written before the server stops.
const ANSWER_BEFORE_STOP: Duration = Duration::from_secs(5);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Connections and whether the server is stopping.
#[derive(Debug, Default)]
struct Life {
    connections: usize,
    stopping: bool,
}

/// The clients a server knows by name, each with when it was last named: at the limit, the one
/// named least recently that no connection or call uses is forgotten for a new one.
#[derive(Debug, Default)]
struct Clients {
    by_name: HashMap<String, (Arc<Caller>, u64)>,
    /// Counts the times a client is named (`termloom/hello`).
    tick: u64,
}

/// The state shared by a server's connections.
#[derive(Debug)]
pub(crate) struct Hub {
    engine: Engine,
    options: ServerOptions,
    names: Arc<Names>,
    /// The sessions' input locks, which every client's calls take: two clients' input to one
    /// session is not interleaved.
    input: Arc<InputLocks>,
    /// The bytes of screens every caller (client, connection) remembers, together
    /// ([`SERVER_SCREEN_BYTES_KEPT`]).
    screens: Arc<ScreenBudget>,
    /// Named clients' callers (read positions and screens seen), at most
    /// [`ServerOptions::max_clients`].
    clients: Mutex<Clients>,
    /// The client that started each open session.
    owners: Mutex<HashMap<SessionId, String>>,
    /// The starts in progress of each client, which count toward its limit of sessions
    /// ([`Starting`]).
    starting: Mutex<HashMap<String, usize>>,
    /// Tool calls in progress on each session, by the client process that made them (its
    /// connections together), at most `Config::max_waits_per_reader` ([`Waiting`]).
    waiting: Mutex<HashMap<(Peer, SessionId), usize>>,
    /// Sessions a person took over, by connection number.
    holders: Mutex<HashMap<SessionId, u64>>,
    life: Mutex<Life>,
    /// Signalled whenever something that bears on idleness or stopping happens.
    changed: Condvar,
    next_connection: AtomicU64,
    /// The socket's path and a handle on the listening socket, to wake the accepting thread
    /// when stopping.
    socket: OnceLock<(PathBuf, UnixListener)>,
    /// Where the ids given out are recorded, for the next server on the socket.
    ids: Mutex<Option<Ids>>,
}

/// The record of the session ids a server may have given out.
#[derive(Debug)]
struct Ids {
    /// The lock file, which records them ([`socket::record_next_id`]).
    lock: std::fs::File,
    /// The first id of this server's.
    first: u64,
    /// The starts admitted so far: each gives out at most one id.
    starts: u64,
}

impl Hub {
    pub(crate) fn new(engine: Engine, options: ServerOptions) -> Arc<Hub> {
        Arc::new(Hub {
            engine,
            options,
            names: Arc::default(),
            input: Arc::default(),
            screens: ScreenBudget::new(SERVER_SCREEN_BYTES_KEPT),
            clients: Mutex::default(),
            owners: Mutex::default(),
            starting: Mutex::default(),
            waiting: Mutex::default(),
            holders: Mutex::default(),
            life: Mutex::default(),
            changed: Condvar::new(),
            next_connection: AtomicU64::new(1),
            socket: OnceLock::new(),
            ids: Mutex::default(),
        })
    }

    /// Records the ids this server gives out, from `first` on, in the lock file `file` (see
    /// [`Hub::before_start`]).
    pub(crate) fn recording_ids(&self, file: std::fs::File, first: u64) {
        *lock(&self.ids) = Some(Ids { lock: file, first, starts: 0 });
    }

    /// Before a start, records an id above every one given out with it, so that the next
    /// server on the socket starts above them even if this one is killed. A record that
    /// fails is logged; the start goes on.
    fn before_start(&self) {
        let mut ids = lock(&self.ids);
        let Some(ids) = ids.as_mut() else { return };
        ids.starts += 1;
        if let Err(err) = socket::record_next_id(&ids.lock, ids.first + ids.starts) {
            log::warn!(
                "termloom server: cannot record the session ids given out in the lock file: {err}; a server started next on this socket may give out this one's ids again"
            );
        }
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Keeps a handle on the listening socket, so that [`Hub::stop`] can wake the accepting
    /// thread from the moment the socket exists.
    pub(crate) fn listening_on(&self, listener: &UnixListener, path: &Path) -> std::io::Result<()> {
        let handle = listener.try_clone()?;
        let _ = self.socket.set((path.to_owned(), handle));
        Ok(())
    }

    /// Accepts connections on `listener` (whose file is `file`) until stopped.
    pub(crate) fn serve(
        self: Arc<Self>,
        listener: &UnixListener,
        file: socket::SocketFile,
    ) -> std::io::Result<()> {
        let path = file.path().to_owned();
        let watcher = self.clone();
        std::thread::Builder::new()
            .name("termloom-server-idle".into())
            .spawn(move || watcher.watch_idle())?;
        let watcher = self.clone();
        std::thread::Builder::new()
            .name("termloom-server-socket".into())
            .spawn(move || watcher.watch_socket(&file))?;
        log::info!("termloom server: listening on {} (pid {})", path.display(), std::process::id());
        // The wait after a failure to accept, while they go on; when one was last logged.
        let mut failing: Option<Duration> = None;
        let mut warned: Option<Instant> = None;
        for stream in listener.incoming() {
            if self.is_stopping() {
                // Connections that came as it stopped (an idle exit decided as a client
                // connected) are told so, not dropped unanswered: this one, and those queued
                // behind it, which `stop` left to accept (it lets no new one in).
                if let Ok(stream) = stream {
                    turn_away(stream);
                }
                // Shut first (as `stop` does, which may not have yet: the idle watcher
                // decides before it calls it), so that no connection queues behind the last
                // one turned away, unanswered.
                let _ = rustix::net::shutdown(listener, rustix::net::Shutdown::Both);
                turn_away_queued(listener);
                break;
            }
            match stream {
                Ok(stream) => {
                    failing = None;
                    self.clone().accept(stream);
                }
                Err(err) => {
                    // Out of descriptors (or memory), `accept` fails at once until some are
                    // freed: retried at once, it would spin and fill the log. Waits that grow,
                    // each ended early when a connection ends; a warning a minute at most.
                    if warned.is_none_or(|at| at.elapsed() >= ACCEPT_WARNINGS) {
                        log::warn!(
                            "termloom server: accepting a connection failed: {err}; retrying until it succeeds (logged once a minute)"
                        );
                        warned = Some(Instant::now());
                    }
                    let wait =
                        failing.map_or(ACCEPT_RETRY.0, |wait| (wait * 2).min(ACCEPT_RETRY.1));
                    failing = Some(wait);
                    let life = lock(&self.life);
                    if !life.stopping {
                        let _ = self.changed.wait_timeout(life, wait);
                    }
                }
            }
        }
        log::info!("termloom server: stopping; closing every session");
        Ok(())
    }

    fn is_stopping(&self) -> bool {
        lock(&self.life).stopping
    }

    /// Stops the server: the accepting thread wakes, turns away the connections queued
    /// ([`turn_away`]) and returns. Shutting the listening socket down wakes `accept` on
    /// Linux even if the socket's file was removed or replaced, and refuses every connection
    /// after it (`ECONNREFUSED`, as a stopped server's socket does), so that those queued
    /// are all there are; a connection to the path is the fallback.
    pub(crate) fn stop(&self) {
        lock(&self.life).stopping = true;
        self.changed.notify_all();
        if let Some((path, listener)) = self.socket.get()
            && rustix::net::shutdown(listener, rustix::net::Shutdown::Both).is_err()
        {
            let _ = UnixStream::connect(path);
        }
    }

    /// Something bearing on idleness happened.
    fn touch(&self) {
        self.changed.notify_all();
    }

    /// Checks a new connection and serves it on a thread of its own.
    fn accept(self: Arc<Self>, mut stream: UnixStream) {
        if let Err(message) = socket::check_peer(&stream) {
            log::warn!("termloom server: refused a connection: {message}");
            return refuse(&mut stream, &message);
        }
        {
            let mut life = lock(&self.life);
            // Stopping since this connection was taken (an idle exit decided meanwhile, which
            // counted no connection): turned away, not served by a server about to exit.
            if life.stopping {
                drop(life);
                return turn_away(stream);
            }
            if life.connections >= self.options.max_connections {
                drop(life);
                let message = format!(
                    "the server has {} connections, its limit; try again when some end",
                    self.options.max_connections
                );
                return refuse(&mut stream, &message);
            }
            life.connections += 1;
        }
        self.touch();
        let hub = self.clone();
        let spawned = std::thread::Builder::new()
            .name("termloom-server-connection".into())
            .spawn(move || hub.serve_connection(stream));
        if let Err(err) = spawned {
            log::error!("termloom server: cannot start a connection thread: {err}");
            lock(&self.life).connections -= 1;
        }
    }

    fn serve_connection(self: Arc<Self>, mut stream: UnixStream) {
        let number = self.next_connection.fetch_add(1, Ordering::Relaxed);
        let peer = socket::peer_process(&stream).map_or(Peer::Connection(number), Peer::Process);
        let input = stream.try_clone().inspect_err(|err| {
            // Out of descriptors: the client is told so rather than find the connection closed.
            let message = format!(
                "the server cannot serve another connection now ({err}); try again when some end"
            );
            refuse(&mut stream, &message);
        });
        let gone = Arc::new(AtomicBool::new(false));
        let result = input.and_then(|input| {
            let input = Input { reader: BufReader::new(input), gone: gone.clone() };
            let connection = Arc::new(Connection {
                hub: self.clone(),
                number,
                peer,
                caller: Mutex::new(Arc::new(Caller::sharing(
                    self.names.clone(),
                    self.input.clone(),
                    &self.screens,
                ))),
                client: Mutex::new(format!("connection-{number}")),
                ended: Arc::default(),
                attached: Arc::default(),
                gone,
                mcp_host: AtomicBool::new(false),
            });
            let options = ServeOptions {
                max_message_bytes: self.options.max_message_bytes,
                max_concurrent_calls: self.options.max_pending_requests,
                max_queued_bytes: self.options.max_queued_bytes,
                ..ServeOptions::default()
            };
            run_connection(self.engine.clone(), input, stream, &options, connection)
        });
        if let Err(err) = result {
            log::debug!("termloom server: connection {number} ended: {err}");
        }
        lock(&self.life).connections -= 1;
        self.touch();
    }

    /// Waits for the server to be idle (no connection, no open session) for
    /// [`ServerOptions::idle_exit`], then stops it. Blocks without a timeout while anything is
    /// open, so an idle server with sessions makes no wake-ups.
    fn watch_idle(&self) {
        let mut life = lock(&self.life);
        loop {
            if life.stopping {
                return;
            }
            let busy = life.connections > 0 || self.has_open_sessions();
            let idle_exit = self.options.idle_exit.filter(|_| !busy);
            let Some(idle_exit) = idle_exit else {
                life = self.changed.wait(life).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let (guard, waited) =
                self.changed.wait_timeout(life, idle_exit).unwrap_or_else(|e| e.into_inner());
            life = guard;
            if waited.timed_out() && life.connections == 0 && !self.has_open_sessions() {
                // A connection queued for the accepting thread is a client come at the
                // deadline: not idle (one that comes after this look is turned away, told
                // why). Waited for until accepted (which wakes this), not looked at again
                // and again.
                if self.connection_queued() {
                    let accepted = self.changed.wait_timeout(life, ACCEPT_RETRY.1);
                    life = accepted.unwrap_or_else(|e| e.into_inner()).0;
                    continue;
                }
                // Decided under the lock the look was made under: a connection the accepting
                // thread takes after it is turned away ([`Hub::accept`]), not served by a
                // server about to exit.
                life.stopping = true;
                drop(life);
                log::info!("termloom server: idle for {idle_exit:?}; exiting");
                self.stop();
                return;
            }
        }
    }

    /// Stops the server once its socket's file is gone or replaced (`rm -rf
    /// /run/user/UID/termloom`, the runtime directory removed at logout), looking every
    /// [`SOCKET_CHECK`]: no client can reach it any more, to list, attach to or close its
    /// sessions, and with sessions it never idles out, so they would run on unreachable. It
    /// does not make the socket again: once its lock file is gone too, another server may
    /// listen at the path already (a server meant to outlive the last logout, which removes
    /// the runtime directory whether or not logind ends the user's processes, takes a socket
    /// outside it). One `stat` every few seconds: a watch of the directory (inotify) is
    /// Linux's alone.
    fn watch_socket(&self, file: &socket::SocketFile) {
        let mut life = lock(&self.life);
        // Woken early by whatever else bears on the server's life: looked at on time all
        // the same.
        let mut next = Instant::now() + SOCKET_CHECK;
        loop {
            if life.stopping {
                return;
            }
            let left = next.saturating_duration_since(Instant::now());
            if !left.is_zero() {
                life = self.changed.wait_timeout(life, left).unwrap_or_else(|e| e.into_inner()).0;
                continue;
            }
            next = Instant::now() + SOCKET_CHECK;
            // Looked at without the lock: a stat on a slow file system holds up no one.
            drop(life);
            if !file.reachable() {
                log::warn!(
                    "termloom server: its socket {} was removed or replaced, so no client can reach it; closing every session and exiting",
                    file.path().display()
                );
                self.stop();
                return;
            }
            life = lock(&self.life);
        }
    }

    /// Whether a connection waits to be accepted.
    fn connection_queued(&self) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let Some((_, listener)) = self.socket.get() else { return false };
        let mut fds = [PollFd::new(listener, PollFlags::IN)];
        let now = Timespec { tv_sec: 0, tv_nsec: 0 };
        poll(&mut fds, Some(&now)).is_ok_and(|ready| ready > 0)
    }

    /// Whether a session is open: running, or exited and not closed (its output still read).
    fn has_open_sessions(&self) -> bool {
        self.engine.list().is_ok_and(|sessions| {
            sessions.iter().any(|info| !matches!(info.state, SessionState::Closed(_)))
        })
    }

    /// The caller of client `name`: its read positions, shared by its connections. At
    /// [`ServerOptions::max_clients`], a new name takes the place of the client named least
    /// recently that no connection or call uses (its read positions are forgotten: named
    /// again, it reads from the oldest retained line); when every one is in use, it is refused.
    fn client(&self, name: &str) -> Result<Arc<Caller>, String> {
        let mut clients = lock(&self.clients);
        clients.tick += 1;
        let tick = clients.tick;
        if let Some((caller, named)) = clients.by_name.get_mut(name) {
            *named = tick;
            return Ok(caller.clone());
        }
        let limit = self.options.max_clients;
        if clients.by_name.len() >= limit {
            // Only the map holds an unused caller: a connection named so, or a call still
            // running with it, holds another reference.
            let unused = clients
                .by_name
                .iter()
                .filter(|(_, (caller, _))| Arc::strong_count(caller) == 1)
                .min_by_key(|(_, (_, named))| *named)
                .map(|(name, _)| name.clone());
            match unused {
                Some(forgotten) => {
                    clients.by_name.remove(&forgotten);
                    log::info!(
                        "termloom server: forgot client {forgotten:?}, the least recently used of {limit}, for {name:?}"
                    );
                }
                None => {
                    return Err(format!(
                        "the server has {limit} clients, its limit (termloom server --max-clients), and each is connected or in a call; reuse a client name, or try again when one disconnects"
                    ));
                }
            }
        }
        let caller =
            Arc::new(Caller::sharing(self.names.clone(), self.input.clone(), &self.screens));
        clients.by_name.insert(name.to_owned(), (caller.clone(), tick));
        Ok(caller)
    }

    /// The session `value` names: an id or a name, read as the tools read a `session_id`
    /// (`1`, `1.0`, `" 1"`), so that the holder's check names the session a tool acts on.
    /// Else an invalid-params error whose `data.code` is the tools' code for it:
    /// `session_forgotten` for an earlier server's id or an ended session dropped (as
    /// [`crate::Error::code`] gives it), `unknown_session` for no such session, and the
    /// error's own code for any other (`engine_stopped`).
    fn resolve(&self, value: &Value) -> Result<SessionId, RpcError> {
        let refused = |code: &str, message: String| {
            RpcError::new(INVALID_PARAMS, message).with_data(json!({ "code": code }))
        };
        let id = match (crate::mcp::tools::whole_number(value), value) {
            (Some(id), _) => Some(SessionId(id)),
            (None, Value::String(s)) => self.names.lookup(s),
            _ => None,
        };
        let described = |why: &str| describe_sessions(&self.engine, &self.names, why);
        match id.map(|id| (id, self.engine.session(id))) {
            Some((id, Ok(_))) => Ok(id),
            Some((id, Err(crate::Error::SessionBeforeFirst { first, .. }))) => Err(refused(
                "session_forgotten",
                described(&crate::mcp::tools::ran_before(id, first)),
            )),
            // Said as the tools say it (`no session is named "ed"`, `session 99 does not exist`).
            None | Some((_, Err(crate::Error::UnknownSession(_)))) => {
                let problem = match value {
                    Value::String(name) if id.is_none() => format!("no session is named {name:?}"),
                    _ => format!("session {value} does not exist"),
                };
                Err(refused("unknown_session", described(&problem)))
            }
            // An ended session of this server's dropped, a stopped engine: the error's code.
            Some((_, Err(e))) => Err(refused(e.code(), described(&e.to_string()))),
        }
    }

    /// The connection holding session `id`, if a person took it over.
    fn holder(&self, id: SessionId) -> Option<u64> {
        lock(&self.holders).get(&id).copied()
    }
}

/// A connection's input, which notes when it ends whether the client is gone: it closed the
/// connection (the socket hangs up), not only its writing end of it (a client that sends its
/// requests, then shuts its end down, still reads the answers).
struct Input {
    reader: BufReader<UnixStream>,
    gone: Arc<AtomicBool>,
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buf)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.reader.fill_buf()?.is_empty() {
            self.gone.store(hung_up(self.reader.get_ref()), Ordering::SeqCst);
        }
        self.reader.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.reader.consume(amount);
    }
}

/// Whether the peer of `stream` closed it (both ways).
fn hung_up(stream: &UnixStream) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(stream, PollFlags::empty())];
    let now = Timespec { tv_sec: 0, tv_nsec: 0 };
    poll(&mut fds, Some(&now)).is_ok() && fds[0].revents().contains(PollFlags::HUP)
}

/// Answers a connection that is refused, and closes it.
fn refuse(stream: &mut UnixStream, message: &str) {
    refuse_with(stream, RpcError::new(INVALID_REQUEST, message));
}

fn refuse_with(stream: &mut UnixStream, error: RpcError) {
    let _ = stream.write_all(format!("{}\n", error_response(&Id::null(), &error)).as_bytes());
}

/// Refuses a connection that came as the server stopped, before it read anything of it: an
/// error whose `data.code` is [`super::SERVER_STOPPING`], which the client turns into an
/// [`std::io::ErrorKind::ConnectionAborted`] error, to try again (a command that starts a
/// server then starts a new one). Dropped unanswered, the connection's client could not tell
/// whether its request was done.
fn turn_away(mut stream: UnixStream) {
    // A client that sends nothing else holds the server's end up for no longer than this.
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let error = RpcError::new(
        INVALID_REQUEST,
        "this termloom server was stopping as this connection came (idle, asked to, or its socket gone), so it did nothing with it; connect again (a command that starts a server starts a new one)",
    );
    refuse_with(&mut stream, error.with_data(json!({ "code": super::SERVER_STOPPING })));
}

/// Turns away ([`turn_away`]) every connection queued on the stopped server's `listener`.
fn turn_away_queued(listener: &UnixListener) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    while let Ok((stream, _)) = listener.accept() {
        let _ = stream.set_nonblocking(false);
        turn_away(stream);
    }
}

/// Whose tool calls on a session count together toward `Config::max_waits_per_reader`: the
/// process at the other end of the connection, whatever connections it opened and whatever
/// client names it gave them; a connection alone when its process cannot be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Peer {
    Process(i32),
    Connection(u64),
}

/// One connection: its client's read positions and the sessions it holds.
struct Connection {
    hub: Arc<Hub>,
    number: u64,
    /// The process at its other end.
    peer: Peer,
    caller: Mutex<Arc<Caller>>,
    client: Mutex<String>,
    /// Set when the connection's input ends; attach streams stop.
    ended: Arc<Ended>,
    /// Attach streams running on this connection, each on a thread of its own: at most
    /// [`ServerOptions::max_pending_requests`], as an attach request is in progress until its
    /// stream ends.
    attached: Arc<AtomicUsize>,
    /// Set when the input ends if the client closed the connection (see [`Input`]).
    gone: Arc<AtomicBool>,
    /// The connection relays an MCP host (`termloom mcp --server`, `termloom/hello` with
    /// `"mcp": true`): a bad message is answered and skipped, as `termloom mcp` does.
    mcp_host: AtomicBool,
}

impl Connection {
    fn hello(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let invalid = |message: String| RpcError::new(INVALID_PARAMS, message);
        match params.get("protocol").and_then(Value::as_u64) {
            Some(version) if (OLDEST_PROTOCOL..=PROTOCOL).contains(&version) => {}
            other => {
                return Err(invalid(format!(
                    "this server speaks termloom protocol {OLDEST_PROTOCOL} to {PROTOCOL}, not {}; use a termloom of the same version as the server (termloom kill-server, then retry, starts a new one)",
                    other.map_or("none".to_owned(), |v| v.to_string())
                )));
            }
        }
        if params.get("mcp").and_then(Value::as_bool) == Some(true) {
            self.mcp_host.store(true, Ordering::SeqCst);
        }
        if let Some(name) = params.get("client").and_then(Value::as_str) {
            super::check_client_name(name).map_err(invalid)?;
            let caller = self.hub.client(name).map_err(invalid)?;
            *lock(&self.caller) = caller;
            *lock(&self.client) = name.to_owned();
        }
        Ok(json!({
            "protocol": PROTOCOL,
            "server": concat!("termloom ", env!("CARGO_PKG_VERSION")),
            "pid": std::process::id(),
            "client": *lock(&self.client),
        }))
    }

    fn attach(&self, params: &Map<String, Value>, responder: Responder, outbox: &Outbox) {
        let invalid = |message: String| RpcError::new(INVALID_PARAMS, message);
        let id = match self.hub.resolve(params.get("session").unwrap_or(&Value::Null)) {
            Ok(id) => id,
            Err(error) => return responder.error(&error),
        };
        let limit = self.hub.options.max_pending_requests;
        let streams = self.attached.fetch_add(1, Ordering::SeqCst);
        if streams >= limit {
            self.attached.fetch_sub(1, Ordering::SeqCst);
            return responder.error(&invalid(format!(
                "this connection already has {streams} attachments in progress, its limit; detach one first"
            )));
        }
        let attached = Streaming(self.attached.clone());
        let takeover = params.get("takeover").and_then(Value::as_bool).unwrap_or(false);
        // Looked up before the session is held, so that a refusal holds nothing.
        let session = match self.hub.engine.session(id) {
            Ok(session) => session,
            Err(err) => return responder.error(&invalid(err.to_string())),
        };
        if takeover {
            let mut holders = lock(&self.hub.holders);
            if holders.get(&id).is_some_and(|holder| *holder != self.number) {
                // Answered without the table held: the answer waits for room in this
                // connection's queue, which a client that reads nothing never makes, and every
                // connection's calls, attachments and end look at the table.
                drop(holders);
                #[cfg(test)]
                tests::refusing();
                return responder.error(&invalid(format!(
                    "session {id} is already held by another person; attach without --takeover to watch it"
                )));
            }
            holders.insert(id, self.number);
            // (A session that ends meanwhile needs no note.)
            let _ = session.set_held_by_person(true);
        }
        let hub = self.hub.clone();
        let number = self.number;
        let watching = hub.clone();
        let stopping = hub.clone();
        let watch = attach::Watch {
            name: self.hub.names.name_of(id),
            session,
            outbox: outbox.clone(),
            ended: self.ended.clone(),
            held: takeover,
            held_by_other: Box::new(move || {
                watching.holder(id).is_some_and(|holder| holder != number)
            }),
            stopping: Box::new(move || stopping.is_stopping()),
        };
        // Taken back when the thread cannot be started: the attachment is then answered with
        // the reason, or the person's `termloom attach` would wait for a frame forever.
        let answer = Arc::new(Mutex::new(Some(responder)));
        let answering = answer.clone();
        let spawned =
            std::thread::Builder::new().name("termloom-server-attach".into()).spawn(move || {
                let reason = watch.stream();
                release(&hub, number, Some(id));
                drop(attached);
                if let Some(responder) = lock(&answering).take() {
                    responder.result(json!({ "reason": reason }));
                }
            });
        if let Err(err) = spawned {
            release(&self.hub, self.number, Some(id));
            log::error!("termloom server: cannot start an attach thread: {err}");
            if let Some(responder) = lock(&answer).take() {
                responder.error(&RpcError::new(
                    INTERNAL_ERROR,
                    format!("the server cannot stream the session now ({err}); try again later"),
                ));
            }
        }
    }

    fn input(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let invalid = |message: String| RpcError::new(INVALID_PARAMS, message);
        let id = self.hub.resolve(params.get("session").unwrap_or(&Value::Null))?;
        if self.hub.holder(id) != Some(self.number) {
            return Err(invalid(format!(
                "this connection does not hold session {id}; attach with takeover first"
            )));
        }
        let bytes = typed_bytes(params).map_err(invalid)?;
        let session = self.hub.engine.session(id).map_err(|e| invalid(e.to_string()))?;
        // Typed since the tool calls before it: a cancelled one no longer interrupts the
        // session's program (see `interrupt_on_cancel`), which is the person's now.
        self.hub.input.of(id).typing();
        session.send_bytes(&bytes).map_err(|e| invalid(e.to_string()))?;
        Ok(json!({}))
    }

    /// The existing session a tool call names, by id or by name, when it names one.
    fn target(&self, arguments: &Map<String, Value>) -> Option<SessionId> {
        self.hub.resolve(arguments.get("session_id")?).ok()
    }

    /// Refuses a call on session `id` past `Config::max_waits_per_reader` calls in progress
    /// on it from this connection's process, across all its connections: each call waits on
    /// the session at most once, and the engine holds each reader to that share of the
    /// session's waits, but every connection that names no client is a reader of its own, so
    /// without this one process opening a few connections could take every wait of a session
    /// from the server's other clients. The call holds its place until it ends.
    fn hold_wait(&self, id: SessionId) -> Result<Waiting, ToolError> {
        let limit = self.hub.engine.config().max_waits_per_reader;
        let key = (self.peer, id);
        let mut waiting = lock(&self.hub.waiting);
        if waiting.get(&key).is_some_and(|count| *count >= limit) {
            let whose = match self.peer {
                Peer::Process(pid) => format!("this client's process ({pid})"),
                Peer::Connection(_) => "this connection".to_owned(),
            };
            // The library's code for the same bound (`Error::TooManyReaderWaits`).
            return Err(ToolError::invalid_input(format!(
                "{whose} has {limit} calls in progress on session {id} across its connections, its bound (Config::max_waits_per_reader); nothing was typed: wait for one to end, or cancel one, before starting another"
            ))
            .code("too_many_waits"));
        }
        *waiting.entry(key).or_default() += 1;
        Ok(Waiting { hub: self.hub.clone(), key })
    }

    /// Refuses a start past the client's limit of open sessions, counting its starts in
    /// progress (each of which was admitted before any of them had started a session):
    /// sessions whose program exited hold no process (their tombstones are bounded by
    /// `max_closed_sessions`) and do not count. An admitted start holds its place until its
    /// call ends.
    fn check_session_limit(&self) -> Result<Starting, ToolError> {
        let client = lock(&self.client).clone();
        let limit = self.hub.options.max_sessions_per_client;
        let mut owners = lock(&self.hub.owners);
        let open: Vec<SessionId> = match self.hub.engine.list() {
            Ok(sessions) => sessions
                .iter()
                .filter(|info| matches!(info.state, SessionState::Running))
                .map(|info| info.id)
                .collect(),
            Err(err) => return Err(ToolError::invalid_input(err.to_string()).code(err.code())),
        };
        owners.retain(|id, _| open.contains(id));
        let mine = owners.values().filter(|owner| **owner == client).count();
        let mut starting = lock(&self.hub.starting);
        let pending = starting.get(&client).copied().unwrap_or(0);
        if mine + pending >= limit {
            let sessions = if mine == 1 { "session" } else { "sessions" };
            let mine = match pending {
                0 => format!("{mine} open {sessions}"),
                _ => format!("{mine} open {sessions} and {pending} starting"),
            };
            return Err(ToolError::refused(format!(
                "client {client:?} has {mine}, its limit; close one with terminal_close (termloom close ID) first"
            )));
        }
        *starting.entry(client.clone()).or_default() += 1;
        Ok(Starting { hub: self.hub.clone(), client })
    }
}

/// A start in progress, counted toward its client's limit of sessions until dropped (once
/// its call has ended and its session, if it started one, is among the client's).
struct Starting {
    hub: Arc<Hub>,
    client: String,
}

impl Drop for Starting {
    fn drop(&mut self) {
        count_down(&mut lock(&self.hub.starting), &self.client);
    }
}

/// Counts one fewer for `key`, forgetting it at none.
fn count_down<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, usize>, key: &K) {
    if let Some(count) = counts.get_mut(key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(key);
        }
    }
}

/// A tool call in progress on a session, counted toward its process's share of the session's
/// waits until dropped ([`Connection::hold_wait`]).
struct Waiting {
    hub: Arc<Hub>,
    key: (Peer, SessionId),
}

impl Drop for Waiting {
    fn drop(&mut self) {
        count_down(&mut lock(&self.hub.waiting), &self.key);
    }
}

/// An attach stream counted on its connection; dropping it ends the count (also when its
/// thread could not be started, or a refusal returns early).
struct Streaming(Arc<AtomicUsize>);

impl Drop for Streaming {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Lets go of the sessions connection `number` holds (only `only`, when given).
fn release(hub: &Hub, number: u64, only: Option<SessionId>) {
    let mut released = Vec::new();
    lock(&hub.holders).retain(|&id, holder| {
        let kept = *holder != number || only.is_some_and(|o| o != id);
        if !kept {
            released.push(id);
        }
        kept
    });
    for id in released {
        if let Ok(session) = hub.engine.session(id) {
            let _ = session.set_held_by_person(false);
        }
    }
}

impl Extension for Connection {
    fn caller(&self) -> Arc<Caller> {
        lock(&self.caller).clone()
    }

    fn request(
        &self,
        method: &str,
        params: Map<String, Value>,
        responder: Responder,
        outbox: &Outbox,
    ) -> Option<Responder> {
        let answer = |responder: Responder, result: Result<Value, RpcError>| match result {
            Ok(value) => responder.result(value),
            Err(error) => responder.error(&error),
        };
        match method {
            "termloom/hello" => answer(responder, self.hello(&params)),
            "termloom/input" => answer(responder, self.input(&params)),
            "termloom/release" => {
                let id = self.hub.resolve(params.get("session").unwrap_or(&Value::Null));
                answer(
                    responder,
                    id.map(|id| {
                        release(&self.hub, self.number, Some(id));
                        json!({})
                    }),
                );
            }
            "termloom/shutdown" => {
                let written = responder.result_written(json!({}));
                let hub = self.hub.clone();
                // Stopping closes this connection too: the answer goes out first (a loaded
                // machine can take a while to schedule the writer), then the server stops.
                let _ = std::thread::Builder::new().name("termloom-server-stop".into()).spawn(
                    move || {
                        let _ = written.recv_timeout(ANSWER_BEFORE_STOP);
                        hub.stop();
                    },
                );
            }
            "termloom/attach" => self.attach(&params, responder, outbox),
            _ => return Some(responder),
        }
        None
    }

    fn admit(
        &self,
        tool: &str,
        arguments: &mut Map<String, Value>,
    ) -> Result<Option<Box<dyn Send>>, ToolError> {
        if TYPING_TOOLS.contains(&tool)
            && let Some(id) = self.target(arguments)
            && let Some(holder) = self.hub.holder(id)
            && holder != self.number
        {
            return Err(ToolError::refused(format!(
                "a person holds this session ({id}, through termloom attach --takeover): input, signals, resizes and closing are refused until they hand it back; terminal_read still shows it"
            )));
        }
        // A call on a session may wait on it; closing ends the waits, and is never refused.
        let waiting = match self.target(arguments) {
            Some(id) if tool != "terminal_close" => Some(self.hold_wait(id)?),
            _ => None,
        };
        let starts = tool == "terminal_start"
            || (tool == "terminal_run" && !arguments.contains_key("session_id"));
        if !starts {
            return Ok(waiting.map(|waiting| Box::new(waiting) as Box<dyn Send>));
        }
        let starting = self.check_session_limit()?;
        self.hub.before_start();
        Ok(Some(Box::new((waiting, starting))))
    }

    fn called(&self, tool: &str, arguments: &Map<String, Value>, structured: &Value) {
        let id = structured.get("session_id").and_then(Value::as_u64).map(SessionId);
        match (tool, id) {
            ("terminal_start" | "terminal_run", Some(id))
                if !arguments.contains_key("session_id") =>
            {
                lock(&self.hub.owners).insert(id, lock(&self.client).clone());
            }
            ("terminal_close", Some(id)) => {
                lock(&self.hub.owners).remove(&id);
            }
            _ => {}
        }
        self.hub.touch();
    }

    fn client_gone(&self) -> bool {
        self.gone.load(Ordering::SeqCst)
    }

    fn closes_on_bad_message(&self) -> bool {
        !self.mcp_host.load(Ordering::SeqCst)
    }

    fn closed(&self) {
        self.ended.end();
        release(&self.hub, self.number, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::tools;

    std::thread_local! {
        /// Told, on a test's thread that sets it, once a takeover is refused and its answer
        /// is about to be sent (see [`refusing`]).
        static REFUSING: std::cell::Cell<Option<crossbeam_channel::Sender<()>>> =
            const { std::cell::Cell::new(None) };
    }

    /// Called by [`Connection::attach`] once it refused a takeover, before the answer waits
    /// for room in the connection's queue: a test knows then that the refusal has looked at
    /// the table of held sessions, and whatever it still holds it holds while it waits.
    pub(super) fn refusing() {
        if let Some(told) = REFUSING.take() {
            let _ = told.send(());
        }
    }

    /// `termloom/input` types text as UTF-8 and bytes as they are; anything else is refused
    /// saying what to give.
    #[test]
    fn input_is_text_or_bytes() {
        let params = |value: Value| value.as_object().unwrap().clone();
        assert_eq!(typed_bytes(&params(json!({"text": "é"}))).unwrap(), "é".as_bytes());
        assert_eq!(typed_bytes(&params(json!({"bytes": [0xe9, 0]}))).unwrap(), [0xe9, 0]);
        for bad in [
            json!({}),
            json!({"bytes": [256]}),
            json!({"bytes": ["a"]}),
            json!({"text": 1}),
            json!({"text": "a", "bytes": [1]}),
        ] {
            let err = typed_bytes(&params(bad.clone())).unwrap_err();
            assert!(err.contains("numbers from 0 to 255"), "{bad}: {err}");
        }
    }

    #[test]
    fn release_lets_go_of_one_or_every_session() {
        let hub =
            Hub::new(Engine::new(crate::Config::default()).unwrap(), ServerOptions::default());
        lock(&hub.holders).extend([(SessionId(1), 7), (SessionId(2), 7), (SessionId(3), 8)]);
        release(&hub, 7, Some(SessionId(1)));
        assert_eq!(hub.holder(SessionId(1)), None);
        assert_eq!(hub.holder(SessionId(2)), Some(7));
        release(&hub, 7, None);
        assert_eq!(hub.holder(SessionId(2)), None);
        assert_eq!(hub.holder(SessionId(3)), Some(8));
        hub.engine.shutdown();
    }

    /// A refused takeover's answer waits for room in its connection's queue, which a client
    /// that reads nothing never makes: it waited holding the server's table of held sessions,
    /// so every other connection's typing call (each looks there), attachment and end waited
    /// too, for as long as that client lived.
    #[test]
    fn a_refused_takeover_waits_for_its_answer_without_the_holders_table() {
        let engine = Engine::new(crate::Config::default()).unwrap();
        let session = engine.spawn(crate::SpawnSpec::new("cat")).unwrap();
        let hub = Hub::new(engine.clone(), ServerOptions::default());
        // Another connection (7) holds the session.
        lock(&hub.holders).insert(session.id(), 7);
        // This connection's client reads nothing: its writer is stuck on a full socket with a
        // message bigger than the socket takes, and its queue (one byte) is full behind it.
        let (output, client) = UnixStream::pair().unwrap();
        let (outbox, writer) = crate::mcp::outbox::Writer::start(output, 1).unwrap();
        outbox.send(format!("\"{}\"", "x".repeat(4 << 20)));
        let connection = Connection {
            hub: hub.clone(),
            number: 8,
            peer: Peer::Connection(8),
            caller: Mutex::new(Arc::new(Caller::sharing(
                hub.names.clone(),
                hub.input.clone(),
                &hub.screens,
            ))),
            client: Mutex::new("connection-8".into()),
            ended: Arc::default(),
            attached: Arc::default(),
            gone: Arc::default(),
            mcp_host: AtomicBool::new(false),
        };
        let params = json!({"session": session.id().0, "takeover": true});
        let params = params.as_object().unwrap().clone();
        let (refused, refusal) = crossbeam_channel::bounded(1);
        let refusing = std::thread::spawn(move || {
            REFUSING.set(Some(refused));
            let responder = Responder::direct(Id::null(), outbox.clone());
            connection.attach(&params, responder, &outbox);
        });
        // Once the refusal is decided, its answer about to wait for room that never comes,
        // another connection looks at the table, as a typing call's admission does.
        refusal.recv_timeout(Duration::from_secs(10)).expect("the takeover was refused");
        let (looked, look) = crossbeam_channel::bounded(1);
        let looking = hub.clone();
        let id = session.id();
        std::thread::spawn(move || looked.send(looking.holder(id)));
        let holder = look.recv_timeout(Duration::from_secs(10));
        // The client leaves: the writer's write fails, and the refusal's answer goes nowhere.
        drop(client);
        refusing.join().unwrap();
        writer.finish();
        assert_eq!(holder, Ok(Some(7)), "the table was held while the refusal waited");
        assert_eq!(hub.holder(id), Some(7), "the refused takeover took nothing");
        engine.shutdown();
    }

    #[test]
    fn typing_tools_are_tools() {
        for name in TYPING_TOOLS {
            assert!(tools::exists(name), "{name}");
        }
    }
}
