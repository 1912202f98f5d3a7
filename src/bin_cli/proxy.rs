//! `termloom mcp --server`: relays MCP between stdio and a termloom server's socket, where the
//! same tools run on the server's sessions. It ends in one of three ways:
//! - the host closes stdin: the connection's calls end and the sessions stay (exit 0 once the
//!   server has answered);
//! - the server goes away first (stopped, killed): each request of the host's it had not
//!   answered is answered with an error, the proxy says so on stderr, and it exits 1. The
//!   requests kept for that are bounded ([`MAX_PENDING`], [`MAX_PENDING_BYTES`]), the oldest
//!   forgotten first;
//! - stdout is gone: a write to it failed (an answer, or one of those errors), or a watch on
//!   it saw its reader go though nothing was written (a pipe closed, a socket shut for
//!   reading; [`watch_stdout`](super::stdout_watch::watch_stdout)), stdin not ending within
//!   [`BOTH_CLOSED_WITHIN`](super::stdout_watch::BOTH_CLOSED_WITHIN) of it (a host closing
//!   both, in either order, ends its input): the proxy says so on stderr, once, and exits 1;
//!   its connection's calls end and the sessions stay.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{BufRead, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

use super::connect::Target;

/// The id of the proxy's own `termloom/hello`, whose answer is not passed on to the host.
const HELLO_ID: &str = "termloom-mcp-proxy-hello";

/// The longest line of the host's whose request is kept track of: the server refuses longer
/// ones at once (they are past any message bound it takes), answering under the id they show.
const MAX_TRACKED_LINE: usize = 64 << 20;

/// The longest message of the server's passed on: as `termloom::server::Client` reads them
/// (the server bounds its answers by the calls' `max_bytes`); a longer one ends the relay as
/// a failed connection, its line never held whole.
const MAX_ANSWER_BYTES: u64 = 64 << 20;

/// JSON-RPC's "Internal error", the answer to a request the server went away before answering.
const INTERNAL_ERROR: i64 = -32603;

/// Relays until the host closes stdin and the server has answered, or the server goes away.
pub(super) fn run(target: &Target) -> ExitCode {
    // A server that was stopping as this connected (an idle exit at that very moment) turned
    // it away having done nothing: connected again, once, as the other commands do, which
    // starts a new server.
    let opened = match open(target) {
        Err(Opened::TurnedAway(_)) => open(target),
        opened => opened,
    };
    let (mut to_server, mut from_server) = match opened {
        Ok(ends) => ends,
        Err(Opened::Failed(message) | Opened::TurnedAway(message)) => {
            say!("termloom: {message}");
            return ExitCode::FAILURE;
        }
    };
    let pending = Arc::new(Pending::default());
    let host_done = Arc::new(AtomicBool::new(false));
    {
        let pending = pending.clone();
        let host_done = host_done.clone();
        std::thread::spawn(move || {
            let mut lines = Lines::new(MAX_TRACKED_LINE);
            let relayed = relay(&mut std::io::stdin().lock(), &mut to_server, |bytes| {
                lines.feed(bytes, |line| pending.requested(line));
            });
            // The host's input ended (not the server's connection, which failing to take it
            // is the server going away): said before the server can see the end, so that the
            // end of the connection that follows reads as the host's doing.
            if !matches!(relayed, Err(Failed::Writing(_))) {
                host_done.store(true, Ordering::SeqCst);
            }
            let _ = to_server.shutdown(Shutdown::Write);
        });
    }
    // A stdout closed while nothing is written (the host gone but for its input) ends the
    // proxy too; its connection's calls end with it, and the sessions stay.
    super::stdout_watch::watch_stdout(|| stdout_gone("its reader is gone"));
    let mut stdout = std::io::stdout().lock();
    let ended = relay_answers(&mut from_server, &mut stdout, &pending);
    let unanswered = pending.take();
    let host_done = host_done.load(Ordering::SeqCst);
    let why = match ended {
        Err(Failed::Writing(err)) => stdout_gone(&err.to_string()),
        Ok(()) if host_done && unanswered.is_empty() => return ExitCode::SUCCESS,
        Ok(()) => None,
        Err(Failed::Reading(err)) => Some(format!("the connection to it failed: {err}")),
    };
    // Once the host had left, the server may still end the connection before answering
    // everything (calls that did not end within its drain time): it did not stop then.
    let what = match host_done {
        true => "the termloom server ended the connection",
        false => "the termloom server stopped",
    };
    let message = match why {
        Some(why) => format!("{what} ({why})"),
        None => what.to_owned(),
    };
    for id in &unanswered {
        let error = serde_json::json!({
            "code": INTERNAL_ERROR,
            "message": format!("{message} before answering this request; this MCP server exits (started again, it starts a termloom server if none runs)"),
        });
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#);
        // (A host that stopped reading got no error: said once, as any failed write is.)
        if let Err(err) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
            stdout_gone(&err.to_string());
        }
    }
    match unanswered.len() {
        0 => say!("termloom: {message}"),
        1 => say!("termloom: {message}; the request it had not answered got an error"),
        n => say!("termloom: {message}; the {n} requests it had not answered got errors"),
    }
    ExitCode::FAILURE
}

/// Says that stdout is gone (`why`) and exits 1; a second caller (the relay and the watch on
/// stdout at once) waits for the first's exit.
fn stdout_gone(why: &str) -> ! {
    static SAYING: Mutex<()> = Mutex::new(());
    let _first = SAYING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    say!("termloom: cannot write to stdout ({why}); the host stopped reading");
    log::logger().flush();
    std::process::exit(1);
}

/// How relaying one way failed.
enum Failed {
    /// Reading (from the server, or the host's stdin) failed.
    Reading(std::io::Error),
    /// Writing (to the host's stdout, or the server) failed.
    Writing(std::io::Error),
}

/// Passes the server's messages on to the host, a line at a time as each arrives, noting the
/// answers; returns once the server closes the connection.
fn relay_answers(
    from: &mut impl BufRead,
    to: &mut impl Write,
    pending: &Pending,
) -> Result<(), Failed> {
    let mut line = Vec::new();
    loop {
        line.clear();
        match from.by_ref().take(MAX_ANSWER_BYTES).read_until(b'\n', &mut line) {
            Ok(0) => return Ok(()),
            Ok(read) if read as u64 == MAX_ANSWER_BYTES && line.last() != Some(&b'\n') => {
                return Err(Failed::Reading(std::io::Error::other(format!(
                    "it sent a message over {} MiB",
                    MAX_ANSWER_BYTES >> 20
                ))));
            }
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(Failed::Reading(err)),
        }
        pending.answered(&line);
        to.write_all(&line).and_then(|()| to.flush()).map_err(Failed::Writing)?;
    }
}

/// Most requests of the host's kept track of while the server has not answered them; past
/// it the oldest is forgotten (not answered by the proxy should the server go away).
const MAX_PENDING: usize = 4096;

/// Most lines of the host's kept open, the server not having shown it took them (40 bytes
/// each, 2.5 MiB in all): a host that sends lines faster than it reads answers keeps them open
/// (a line of notifications alone is never answered), and past this the oldest is forgotten
/// (4,096 lost a refused batch's line behind 4,100 notifications: review ve).
const MAX_OPEN_LINES: usize = 1 << 16;

/// Most bytes of their ids (each kept as written and as told apart); an id of more than
/// this alone is not kept.
const MAX_PENDING_BYTES: usize = 1 << 20;

/// The host's requests the server has not answered yet: their ids as written, by what tells
/// ids apart (a string by its characters, a number by its text); at most [`MAX_PENDING`] of
/// them, [`MAX_PENDING_BYTES`] of ids, the oldest forgotten first.
#[derive(Default)]
struct Pending {
    book: Mutex<Book>,
}

/// What [`Pending`] holds.
#[derive(Default)]
struct Book {
    /// The requests, by what tells their ids apart.
    requests: HashMap<String, Request>,
    /// Their keys, oldest first.
    order: BTreeMap<u64, String>,
    /// The bytes of their ids and keys.
    bytes: usize,
    /// The requests and lines noted so far.
    noted: u64,
    lines: u64,
    /// The host's lines the server may still answer whole, oldest first, at most
    /// [`MAX_OPEN_LINES`]: every line, requests or not (a line of notifications alone, or of
    /// too many values, is refused whole too), until an answer shows the server took it.
    open_lines: VecDeque<Line>,
}

/// A line of the host's: which it was, how long (as the server counts it, without a `\r`
/// before the newline), and how many messages that batch holds, when it is one.
#[derive(Clone, Copy)]
struct Line {
    line: u64,
    length: u64,
    batch: Option<u64>,
    /// It holds more values than a message may ([`termloom::mcp::too_many_values`]).
    too_many_values: bool,
}

/// A request of the host's not answered yet, and the line it came in.
struct Request {
    /// Its id, as written.
    id: String,
    /// When it was noted (its place in [`Book::order`]).
    at: u64,
    /// Which line it came in.
    line: u64,
}

impl Book {
    /// Notes a line of the host's the server may answer whole.
    fn open_line(&mut self, line: Line) {
        if self.open_lines.len() == MAX_OPEN_LINES {
            self.open_lines.pop_front();
        }
        self.open_lines.push_back(line);
    }

    fn note(&mut self, key: String, id: String, line: u64) {
        self.forget(&key);
        let bytes = key.len() + id.len();
        if bytes > MAX_PENDING_BYTES {
            return;
        }
        self.noted += 1;
        let at = self.noted;
        self.order.insert(at, key.clone());
        self.requests.insert(key, Request { id, at, line });
        self.bytes += bytes;
        while self.requests.len() > MAX_PENDING || self.bytes > MAX_PENDING_BYTES {
            let Some((_, oldest)) = self.order.pop_first() else { break };
            self.forget(&oldest);
        }
    }

    /// Forgets a request; returns the line it came in.
    fn forget(&mut self, key: &str) -> Option<u64> {
        let request = self.requests.remove(key)?;
        self.order.remove(&request.at);
        self.bytes -= key.len() + request.id.len();
        Some(request.line)
    }

    /// Takes an answer to a request of line `line` as the sign that the server took that
    /// line and every one before it: it answers a line whole as it reads it, before it runs
    /// anything of a later one.
    fn took_lines_to(&mut self, line: u64) {
        while self.open_lines.front().is_some_and(|open| open.line <= line) {
            self.open_lines.pop_front();
        }
    }

    /// Forgets the requests of the oldest open line `answered` says an answer of the
    /// server's to a whole line was for; the open lines before it were taken (the server
    /// answers lines whole in their order).
    fn forget_line(&mut self, answered: impl Fn(&Line) -> bool) {
        let Some(at) = self.open_lines.iter().position(answered) else { return };
        let line = self.open_lines[at].line;
        self.open_lines.drain(..=at);
        let keys: Vec<String> = self
            .requests
            .iter()
            .filter(|(_, request)| request.line == line)
            .map(|(key, _)| key.clone())
            .collect();
        keys.iter().for_each(|key| {
            self.forget(key);
        });
    }
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes the requests of a line of the host's (one message or a batch), and forgets those
    /// a `notifications/cancelled` in it cancels (a cancelled request is not answered).
    fn requested(&self, line: &[u8]) {
        let length = line.strip_suffix(b"\r").unwrap_or(line).len() as u64;
        // Refused whole by the server, and not parsed here either: a 30 MB batch of small
        // requests took the proxy to 489 MB.
        if termloom::mcp::too_many_values(line) {
            let mut book = self.lock();
            book.lines += 1;
            let line = book.lines;
            book.open_line(Line { line, length, batch: None, too_many_values: true });
            return;
        }
        let (batch, messages) = messages(line);
        let mut book = self.lock();
        book.lines += 1;
        let seen = book.lines;
        book.open_line(Line { line: seen, length, batch, too_many_values: false });
        for message in messages {
            match (message.get("method"), message.get("id").and_then(|id| key(id))) {
                (Some(_), Some(key)) => book.note(key, message["id"].get().to_owned(), seen),
                (Some(method), None) if method.get() == r#""notifications/cancelled""# => {
                    let cancelled = message
                        .get("params")
                        .and_then(|params| {
                            serde_json::from_str::<HashMap<String, &RawValue>>(params.get()).ok()
                        })
                        .and_then(|params| params.get("requestId").and_then(|id| key(id)));
                    if let Some(cancelled) = cancelled {
                        book.forget(&cancelled);
                    }
                }
                _ => {}
            }
        }
    }

    /// Forgets the requests a line of the server's answers (one message or a batch's array).
    /// An error that answers a whole line, its requests' ids perhaps unread, names it by
    /// what its `data` says: the line's `length` (one too long, or, with `maxValues`,
    /// holding too many values), or how many messages a `batch` the server refused held.
    /// The server answers a line whole as it reads it, so such an error is for the oldest
    /// open line ([`Book::open_lines`]: requests or not) that fits it, and an answer to a
    /// request closes its line and those before it.
    fn answered(&self, line: &[u8]) {
        let (batch, messages) = messages(line);
        let answers: Vec<String> = messages
            .iter()
            .filter(|message| !message.contains_key("method"))
            .filter_map(|message| message.get("id").and_then(|id| key(id)))
            .collect();
        let whole = match (batch, messages.first()) {
            (None, Some(message)) if !message.contains_key("method") => whole_line(message),
            _ => None,
        };
        if answers.is_empty() && whole.is_none() {
            return;
        }
        let mut book = self.lock();
        // The whole line first: an error for a line too long whose id the server could read
        // is that line's, and taken as an answer to its request first it closed that line,
        // so the error fell to a later one as long, closing the lines between (review ve).
        match whole {
            Some(Whole::TooLong(length)) => book.forget_line(|open| open.length == length),
            Some(Whole::TooManyValues(length)) => {
                book.forget_line(|open| open.too_many_values && open.length == length)
            }
            Some(Whole::Batch(items)) => book.forget_line(|open| open.batch == Some(items)),
            None => {}
        }
        for answer in answers {
            if let Some(line) = book.forget(&answer) {
                book.took_lines_to(line);
            }
        }
    }

    /// The ids not answered, as written, oldest first; none are left.
    fn take(&self) -> Vec<String> {
        let mut book = self.lock();
        let book = std::mem::take(&mut *book);
        let mut requests = book.requests;
        book.order.values().filter_map(|key| requests.remove(key)).map(|r| r.id).collect()
    }
}

/// Which line of the host's an error of the server's answers whole.
enum Whole {
    /// The line this long, too long for the server (and so every line as long).
    TooLong(u64),
    /// The line this long of more values than a message may hold (a line as long of fewer
    /// is taken: a request waiting for its answer).
    TooManyValues(u64),
    /// The batch of this many messages.
    Batch(u64),
}

/// Which line the error `message` answers whole, when its `data` says.
fn whole_line(message: &HashMap<String, &RawValue>) -> Option<Whole> {
    fn members(raw: &RawValue) -> Option<HashMap<String, &RawValue>> {
        serde_json::from_str(raw.get()).ok()
    }
    let data = members(message.get("error")?)?.get("data").copied().and_then(members)?;
    let number =
        |name: &str| data.get(name).and_then(|n| serde_json::from_str::<u64>(n.get()).ok());
    match (number("length"), number("batch")) {
        (Some(length), _) if data.contains_key("maxValues") => Some(Whole::TooManyValues(length)),
        (Some(length), _) => Some(Whole::TooLong(length)),
        (None, Some(items)) => Some(Whole::Batch(items)),
        (None, None) => None,
    }
}

/// The messages of a line, each as its members written: one, or a batch's (with how many
/// messages the batch holds); none when the line is not JSON objects.
fn messages(line: &[u8]) -> (Option<u64>, Vec<HashMap<String, &RawValue>>) {
    fn object(raw: &RawValue) -> Option<HashMap<String, &RawValue>> {
        serde_json::from_str(raw.get()).ok()
    }
    let Ok(value) = serde_json::from_slice::<&RawValue>(line) else { return (None, Vec::new()) };
    if value.get().starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(value.get()).unwrap_or_default();
        (Some(items.len() as u64), items.into_iter().filter_map(object).collect())
    } else {
        (None, object(value).into_iter().collect())
    }
}

/// What tells request ids apart, for an id that is a string or a number: a string by its
/// characters (however they were escaped), a number by its text.
fn key(id: &RawValue) -> Option<String> {
    let text = id.get();
    match text.as_bytes().first()? {
        b'"' => serde_json::from_str::<String>(text).ok().map(|s| format!("s{s}")),
        b'-' | b'0'..=b'9' => Some(format!("n{text}")),
        _ => None,
    }
}

/// The host's input cut into lines, each whole line handed on once its end is read; a line
/// longer than `limit` is skipped.
struct Lines {
    line: Vec<u8>,
    limit: usize,
    /// The line being read is too long to keep.
    skipping: bool,
}

impl Lines {
    fn new(limit: usize) -> Lines {
        Lines { line: Vec::new(), limit, skipping: false }
    }

    fn feed(&mut self, mut bytes: &[u8], mut whole: impl FnMut(&[u8])) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|b| *b == b'\n');
            let (part, rest) = match end {
                Some(at) => (&bytes[..at], &bytes[at + 1..]),
                None => (bytes, &[][..]),
            };
            if !self.skipping {
                if self.line.len() + part.len() > self.limit {
                    self.skipping = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            if end.is_some() {
                if !self.skipping {
                    whole(&self.line);
                }
                self.line.clear();
                self.skipping = false;
            }
            bytes = rest;
        }
    }
}

/// Why a connection to the server was not opened.
enum Opened {
    /// The server turned it away as it stopped (`server_stopping`): to connect again.
    TurnedAway(String),
    /// Anything else.
    Failed(String),
}

/// Connects to the server (starting one if none runs) and says hello: the ends to write to
/// and read from.
fn open(target: &Target) -> Result<(UnixStream, std::io::BufReader<UnixStream>), Opened> {
    let stream = target
        .connect_or_start()
        .and_then(|_| termloom::server::connect(&target.socket).map_err(|e| e.to_string()))
        .map_err(Opened::Failed)?;
    let Ok(mut to_server) = stream.try_clone() else {
        return Err(Opened::Failed("cannot use the connection to the server".to_owned()));
    };
    // The connection relays an MCP host: a malformed or oversized message from the host is
    // answered and skipped, as `termloom mcp` does, rather than ending the connection.
    let mut from_server = std::io::BufReader::new(stream);
    say_mcp_hello(&mut to_server, &mut from_server)?;
    Ok((to_server, from_server))
}

/// Tells the server that the connection relays an MCP host (`termloom/hello` with `"mcp":
/// true`), before anything of the host's; reads its answer, the first line the server sends.
fn say_mcp_hello(
    to: &mut UnixStream,
    from: &mut std::io::BufReader<UnixStream>,
) -> Result<(), Opened> {
    use std::io::ErrorKind;
    let hello = serde_json::json!({"jsonrpc": "2.0", "id": HELLO_ID, "method": "termloom/hello",
        "params": {"protocol": termloom::server::OLDEST_PROTOCOL, "mcp": true}});
    let failed =
        |err: std::io::Error| Opened::Failed(format!("the connection to the server failed: {err}"));
    // A server turning the connection away may have closed it before reading the hello.
    let written = to.write_all(format!("{hello}\n").as_bytes());
    if let Err(err) = &written
        && !matches!(err.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset)
    {
        return Err(failed(written.unwrap_err()));
    }
    let mut line = String::new();
    std::io::BufRead::read_line(from, &mut line).map_err(failed)?;
    let answer: serde_json::Value = match serde_json::from_str(&line) {
        Ok(answer) => answer,
        Err(_) => {
            written.map_err(failed)?;
            let closed = "the termloom server closed the connection without answering";
            return Err(Opened::Failed(closed.to_owned()));
        }
    };
    match answer.get("error") {
        Some(error) => {
            let message = format!(
                "the termloom server refused the connection: {}",
                error["message"].as_str().unwrap_or("no reason given")
            );
            match error["data"]["code"] == termloom::server::SERVER_STOPPING {
                true => Err(Opened::TurnedAway(message)),
                false => Err(Opened::Failed(message)),
            }
        }
        None => Ok(()),
    }
}

/// Copies `from` to `to` until `from` ends, passing on each read at once (and showing it to
/// `seen`). (`std::io::copy` may splice a pipe into the socket, and Linux then holds what it
/// read until the pipe ends or a large amount is there: a request would wait for the next one.)
fn relay(
    from: &mut impl Read,
    to: &mut impl Write,
    mut seen: impl FnMut(&[u8]),
) -> Result<(), Failed> {
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(Failed::Reading(err)),
        };
        // Noted before the server can answer it.
        seen(&buffer[..n]);
        to.write_all(&buffer[..n]).and_then(|()| to.flush()).map_err(Failed::Writing)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_pending_until_answered_or_cancelled() {
        let pending = Pending::default();
        let big = "123456789012345678901234567890";
        let mut lines = Lines::new(MAX_TRACKED_LINE);
        let input = format!(
            concat!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
                "\n",
                r#"[{{"jsonrpc":"2.0","id":"a\u00e9","method":"ping"}},{{"jsonrpc":"2.0","method":"notifications/initialized"}}]"#,
                "\n",
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call"}}"#,
                "\n",
                r#"{{"jsonrpc":"2.0","id":"e1","result":{{}}}}"#,
                "\n",
                r#"{{"jsonrpc":"2.0","id":"c","method":"tools/call"}}"#,
                "\n",
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"c"}}}}"#,
                "\n",
                r#"{{"jsonrpc":"2.0","id":"cut"#,
            ),
            big
        );
        // Fed in pieces that cut lines anywhere.
        for piece in input.as_bytes().chunks(7) {
            lines.feed(piece, |line| pending.requested(line));
        }
        pending.answered(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        pending.answered(br#"[{"jsonrpc":"2.0","id":"a\u00e9","result":{}}]"#);
        // A request of the server's to the host answers nothing.
        pending.answered(format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"x"}}"#).as_bytes());
        assert_eq!(pending.take(), vec![big.to_owned()]);
        assert!(pending.take().is_empty());
        // "1" and 1 are different ids.
        pending.requested(br#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#);
        pending.answered(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(pending.take(), vec![r#""1""#.to_owned()]);
    }

    /// At most [`MAX_PENDING`] requests are kept, the oldest forgotten first: every request
    /// the server never answered under its id was kept, 225 bytes each (10,000 pings in
    /// each of 200 refused batches: 459 MB).
    #[test]
    fn the_requests_kept_are_bounded() {
        let pending = Pending::default();
        for n in 0..10_000 {
            pending.requested(
                format!(r#"{{"jsonrpc":"2.0","id":"r{n}","method":"ping"}}"#).as_bytes(),
            );
        }
        let kept = pending.take();
        assert_eq!(kept.len(), 4096);
        assert_eq!(kept[0], r#""r5904""#);
        let long =
            format!(r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#, "x".repeat(300 << 10));
        for _ in 0..8 {
            pending
                .requested(long.replacen("xx", &format!("{}", pending.lock().noted), 1).as_bytes());
        }
        assert!(pending.lock().bytes <= MAX_PENDING_BYTES);
        assert_eq!(pending.take().len(), 1);
        let huge = format!(r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#, "x".repeat(1 << 20));
        pending.requested(huge.as_bytes());
        assert!(pending.take().is_empty());
    }

    /// An error the server sends under id `null` for a whole line (a batch it refuses, a
    /// line too long or of too many values) answers that line's requests: they were answered
    /// again, with a made-up error, when the connection ended.
    #[test]
    fn a_whole_line_answered_under_id_null_is_answered() {
        let pending = Pending::default();
        let batch = |ids: &[&str]| {
            let items: Vec<String> = ids
                .iter()
                .map(|id| format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#))
                .collect();
            format!("[{}]", items.join(","))
        };
        pending.requested(batch(&["a", "b"]).as_bytes());
        pending.requested(batch(&["c", "d", "e"]).as_bytes());
        pending.requested(batch(&["f", "g"]).as_bytes());
        let mid = r#"{"jsonrpc":"2.0","method":"ping","id":"mid","params":{"pad":"xxxx"}}"#;
        pending.requested(format!("{mid}\r").as_bytes());
        pending.requested(br#"{"jsonrpc":"2.0","id":"kept","method":"ping"}"#);
        let refused = |data: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32600,"message":"no","data":{data}}}}}"#
            )
        };
        // In the lines' order, as the server answers lines whole when it reads them.
        pending.answered(refused(r#"{"batch":2}"#).as_bytes());
        pending.answered(refused(r#"{"batch":3}"#).as_bytes());
        pending.answered(refused(&format!(r#"{{"limit":10,"length":{}}}"#, mid.len())).as_bytes());
        // Not a whole line's answer.
        pending.answered(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#);
        assert_eq!(pending.take(), [r#""f""#, r#""g""#, r#""kept""#]);
        // A line of more values than a message may hold is refused whole, and not kept.
        let ids: Vec<String> = (0..5000).map(|n| format!("r{n}")).collect();
        pending.requested(batch(&ids.iter().map(String::as_str).collect::<Vec<_>>()).as_bytes());
        assert!(pending.take().is_empty());
    }

    /// A line with no request of its own (notifications alone, or too many values to be
    /// parsed) answered whole is that line, not an older one of the same length or batch
    /// size whose requests wait for their answers: review vb found such requests forgotten,
    /// never answered when the server then went away.
    #[test]
    fn a_line_answered_whole_is_never_a_taken_one() {
        // A notification of too many values, and a call's line as long.
        let zeros = vec!["0"; 16_400].join(",");
        let heavy = format!(r#"{{"jsonrpc":"2.0","method":"x","params":[{zeros}]}}"#);
        let (start, end) =
            (r#"{"jsonrpc":"2.0","id":"the-call","method":"tools/call","p":""#, r#""}"#);
        let pad = "x".repeat(heavy.len() - start.len() - end.len());
        let padded = format!("{start}{pad}{end}");
        assert_eq!(padded.len(), heavy.len());
        let pending = Pending::default();
        pending.requested(padded.as_bytes());
        pending.requested(heavy.as_bytes());
        let error = |data: String| {
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32600,"message":"no","data":{data}}}}}"#
            )
        };
        let too_many = format!(r#"{{"maxValues":16384,"length":{}}}"#, heavy.len());
        pending.answered(error(too_many).as_bytes());
        assert_eq!(pending.take(), [r#""the-call""#]);
        // A batch of notifications refused before an initialize, then a batch of requests.
        let note = r#"{"jsonrpc":"2.0","method":"notifications/x"}"#;
        pending.requested(format!("[{note},{note}]").as_bytes());
        pending.requested(br#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#);
        let ping = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#);
        pending.requested(format!("[{},{}]", ping("a"), ping("b")).as_bytes());
        pending.answered(error(r#"{"batch":2}"#.to_owned()).as_bytes());
        pending.answered(br#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
        assert_eq!(pending.take(), [r#""a""#, r#""b""#]);
    }

    /// A line too long, answered whole under its own id (the server read it), is that line:
    /// taken as its request's answer first, it closed the line, and the error fell to a later
    /// line as long, closing a refused batch between them (review ve).
    #[test]
    fn a_line_answered_whole_under_its_id_closes_no_later_line() {
        let pending = Pending::default();
        let big = |id: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","p":"{}"}}"#, "x".repeat(100))
        };
        let request = |id: &str, method: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"{method}"}}"#)
        };
        pending.requested(big("b1").as_bytes());
        pending
            .requested(format!("[{},{}]", request("a", "ping"), request("b", "ping")).as_bytes());
        pending.requested(big("b2").as_bytes());
        pending.requested(request("init", "initialize").as_bytes());
        let calls = format!("[{},{}]", request("c", "tools/call"), request("d", "tools/call"));
        pending.requested(calls.as_bytes());
        let length = big("b1").len();
        let too_long = |id: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"{id}","error":{{"code":-32600,"message":"no","data":{{"limit":10,"length":{length}}}}}}}"#
            )
        };
        pending.answered(too_long("b1").as_bytes());
        pending.answered(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no","data":{"batch":2}}}"#,
        );
        pending.answered(too_long("b2").as_bytes());
        pending.answered(br#"{"jsonrpc":"2.0","id":"init","result":{}}"#);
        assert_eq!(pending.take(), [r#""c""#, r#""d""#]);
        // A refused batch behind thousands of lines of notifications, which the server
        // never answers: it is still open when its error comes (4,096 lines were kept).
        pending
            .requested(format!("[{},{}]", request("a", "ping"), request("b", "ping")).as_bytes());
        for _ in 0..5_000 {
            pending.requested(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#);
        }
        pending.answered(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no","data":{"batch":2}}}"#,
        );
        assert!(pending.take().is_empty());
    }

    #[test]
    fn an_overlong_line_is_skipped_whole() {
        let mut lines = Lines::new(8);
        let mut seen = Vec::new();
        lines.feed(b"123456", |line| seen.push(line.len()));
        lines.feed(b"789\nshort\n", |line| seen.push(line.len()));
        assert_eq!(seen, vec![5]);
    }

    /// A message of the server's longer than any it sends ends the relay as a failed
    /// connection once its bound is read, after what came before it was passed on; its line
    /// is never held whole, however long.
    #[test]
    fn an_endless_answer_ends_the_relay_at_its_bound() {
        let before = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n".as_slice();
        let endless = std::io::repeat(b'x').take(MAX_ANSWER_BYTES * 2);
        let mut from = std::io::BufReader::new(before.chain(endless));
        let mut to = Vec::new();
        let pending = Pending::default();
        pending.requested(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        match relay_answers(&mut from, &mut to, &pending) {
            Err(Failed::Reading(err)) => assert!(err.to_string().contains("over 64 MiB"), "{err}"),
            _ => panic!("the relay went on"),
        }
        assert_eq!(to, before);
        assert!(pending.take().is_empty());
    }
}
