//! The one-shot web page through which the person types a secret (URL-mode elicitation): an
//! HTTP listener on 127.0.0.1, on a port of the system's choosing, at a path holding a 128-bit
//! random token, run by threads of the MCP server (never the engine's reactor): one accepts,
//! and each connection, at most [`MAX_CONNECTIONS`] at once, is served by a thread of its own,
//! so one that sends nothing holds up no other. A peer whose socket another uid owns is
//! closed unanswered ([`peer_uid`]).
//!
//! It serves a page with one password field naming the program that asks, and takes one POST
//! of that field (`application/x-www-form-urlencoded`, at most [`MAX_BODY`] bytes) whose path
//! holds the token and whose `Host` is the listener's own address (a name that resolves to
//! 127.0.0.1, DNS rebinding, is refused). The secret is handed to the call that asked
//! ([`SecretPage::posts`]); the page answers what the call said (typed, or why not), or, when
//! no call waits for it yet ([`SecretPage::waited_for`]), that it was received and is typed
//! only if the client goes on within [`HOLD`] while the program still asks; and the listener
//! closes. A secret so held is zeroed by the page itself once [`HOLD`] passed (or at the
//! page's deadline, or its close), whoever took it or not; one whose wait for a call the
//! page's close (its deadline) ends is zeroed then, the person told the question was closed. Nothing here logs a request's body. Dropping the page closes its
//! listener at once (a connection already being served is answered that the question was
//! closed), and it closes by itself at its deadline.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded, never};
use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::peer_uid::{own_uid, peer_uid};

/// The largest request head (request line and headers) read.
const MAX_HEAD: usize = 8 * 1024;
/// The largest form body taken: a secret is at most 4,095 bytes, percent-encoded three times
/// that at worst.
pub(crate) const MAX_BODY: usize = 16 * 1024;
/// How long a connection may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a connection may take to send its body once its head came, or to read the answer.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections served at once; one more is closed unanswered.
const MAX_CONNECTIONS: usize = 8;
/// The pause after an `accept` that failed (out of file descriptors), lest it spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// How long the page waits for the call to say what became of the secret.
const TYPING_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a secret posted while no call waits for it waits for one to come (a retry on its
/// way) before the page says it is held for the next.
const CALL_GRACE: Duration = Duration::from_secs(3);
/// How long after it was posted a secret may be typed: a call that comes for it later is
/// refused, and the page zeroes one still held then.
pub(crate) const HOLD: Duration = Duration::from_secs(60);

/// A secret posted through the page, and where the call says what became of it; the secret
/// is zeroed when it is dropped, taken or not.
pub(crate) struct Posted {
    /// The secret as typed into the page.
    pub secret: String,
    /// When it was posted: it is not typed [`HOLD`] after.
    pub at: Instant,
    /// What the page answers: `Ok` when typed, else the reason it was not.
    pub outcome: Sender<Result<(), String>>,
    /// Who has it: [`PENDING`], then the call ([`CLAIMED`]) or the page, which gave up
    /// waiting for a call and told the person it was not typed ([`ABANDONED`]).
    holder: Arc<AtomicU8>,
}

const PENDING: u8 = 0;
const CLAIMED: u8 = 1;
const ABANDONED: u8 = 2;

impl Drop for Posted {
    fn drop(&mut self) {
        zero(std::mem::take(&mut self.secret));
    }
}

/// Overwrites `text`'s bytes with zeros, then frees them.
pub(crate) fn zero(text: String) {
    let mut bytes = text.into_bytes();
    bytes.fill(0);
}

impl Posted {
    /// Takes the secret for typing; false when the page already told the person it was not
    /// typed (no call took it in time): then it must not be.
    pub(crate) fn claim(&self) -> bool {
        self.holder.compare_exchange(PENDING, CLAIMED, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }
}

/// An open page; closed when dropped.
pub(crate) struct SecretPage {
    address: SocketAddr,
    token: String,
    closer: Arc<Closer>,
    posts: Receiver<Posted>,
    /// The calls waiting for the page's secret ([`SecretPage::waited_for`]).
    callers: Arc<Callers>,
    /// Set by the first POST of a secret.
    taken: Arc<AtomicBool>,
    /// The receiver the page zeroes a held secret through ([`Serving::hold`]); taken when
    /// the page is dropped, lest a POST then find a receiver.
    keep: Keep,
    /// Dropped with the page: wakes a held secret's wait ([`Serving::hold`]).
    alive: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// A receiver of the page's secrets, shared by the page and its threads until it is dropped.
type Keep = Arc<std::sync::Mutex<Option<Receiver<Posted>>>>;

impl SecretPage {
    /// Opens a page asking for `program`'s secret, open until `deadline` at the latest.
    pub(crate) fn open(program: &str, deadline: Instant) -> io::Result<SecretPage> {
        SecretPage::open_holding(program, deadline, HOLD)
    }

    /// [`SecretPage::open`], a secret held for `hold` after it was posted at most.
    fn open_holding(program: &str, deadline: Instant, hold: Duration) -> io::Result<SecretPage> {
        let uid = own_uid()?;
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let address = listener.local_addr()?;
        let token = random_hex(16)?;
        let (wake, woken) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        let closer = Arc::new(Closer { stop: AtomicBool::new(false), wake });
        let (sender, posts) = bounded(1);
        let callers = Arc::new(Callers::default());
        let taken = Arc::new(AtomicBool::new(false));
        let keep = Arc::new(std::sync::Mutex::new(Some(posts.clone())));
        let (alive, dropped) = bounded(0);
        let serving = Arc::new(Serving {
            host: address.to_string(),
            uid,
            path: format!("/{token}"),
            program: program.to_owned(),
            closer: closer.clone(),
            posts: sender,
            taken: taken.clone(),
            busy: AtomicUsize::new(0),
            callers: callers.clone(),
            deadline,
            hold,
            held_until: std::sync::Mutex::new(None),
            keep: keep.clone(),
            dropped,
        });
        let thread = std::thread::Builder::new()
            .name("termloom-secret-page".into())
            .spawn(move || serving.run(listener, &woken))?;
        Ok(SecretPage {
            address,
            token,
            closer,
            posts,
            callers,
            taken,
            keep,
            alive: Some(alive),
            thread: Some(thread),
        })
    }

    /// Says that a call waits for the page's secret while the guard lives: a secret posted
    /// then is answered with what the call says of it (typed, or why not); one posted while
    /// no call waits (a stateless round's page, before its retry) is held for the call that
    /// comes, and the person told so once no call came within [`CALL_GRACE`].
    pub(crate) fn waited_for(&self) -> Waited<'_> {
        let mut count = self.callers.count.lock().unwrap_or_else(|e| e.into_inner());
        *count += 1;
        self.callers.came.notify_all();
        Waited { callers: &self.callers }
    }

    /// The page's address, for the person's browser.
    pub(crate) fn url(&self) -> String {
        format!("http://{}/{}", self.address, self.token)
    }

    /// Where a secret posted through the page arrives (once).
    pub(crate) fn posts(&self) -> &Receiver<Posted> {
        &self.posts
    }

    /// Whether the page took a secret or closed: a later question must not reuse it.
    pub(crate) fn spent(&self) -> bool {
        self.taken.load(Ordering::SeqCst) || self.closer.stopped()
    }

    /// Whether no secret can come through the page any more: it closed (a secret it took
    /// is sent before it closes) and none is waiting to be taken.
    pub(crate) fn exhausted(&self) -> bool {
        self.closer.stopped() && self.posts.is_empty()
    }
}

impl Drop for SecretPage {
    /// Closes the page without waiting for a call: a secret posted and not taken is zeroed
    /// and the page told the question was closed, and the page's receiver goes before the
    /// join, so a POST after it is told no one waits (the join waited 30 s for a post held
    /// in the page's own receiver).
    fn drop(&mut self) {
        self.closer.close();
        self.callers.wake();
        drop(self.keep.lock().unwrap_or_else(|e| e.into_inner()).take());
        drop(self.alive.take());
        let posts = std::mem::replace(&mut self.posts, never());
        for posted in posts.try_iter() {
            let _ = posted.outcome.send(Err("the question was closed.".to_owned()));
        }
        drop(posts);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A call waiting for a page's secret ([`SecretPage::waited_for`]).
pub(crate) struct Waited<'a> {
    callers: &'a Callers,
}

impl Drop for Waited<'_> {
    fn drop(&mut self) {
        *self.callers.count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
    }
}

/// The calls waiting for a page's secret, and their coming.
#[derive(Default)]
struct Callers {
    count: std::sync::Mutex<usize>,
    came: std::sync::Condvar,
}

impl Callers {
    /// Wakes a POST waiting for a call ([`Callers::come_within`]) to look at the page again:
    /// taken, lest the wake come between its look and its wait.
    fn wake(&self) {
        let _count = self.count.lock().unwrap_or_else(|e| e.into_inner());
        self.came.notify_all();
    }

    /// Whether a call waits, or comes within `grace`; false at once when the page is
    /// `closer`'s stopped (a page dropped wakes the wait).
    fn come_within(&self, grace: Duration, closer: &Closer) -> bool {
        let count = self.count.lock().unwrap_or_else(|e| e.into_inner());
        let (count, _) = self
            .came
            .wait_timeout_while(count, grace, |count| *count == 0 && !closer.stopped())
            .unwrap_or_else(|e| e.into_inner());
        *count > 0
    }
}

/// Stops the listener: a flag, and a byte on a socket its `poll` watches, which a write that
/// cannot block sends (the listener was woken by a connection to it, which could fail).
struct Closer {
    stop: AtomicBool,
    wake: UnixStream,
}

impl Closer {
    fn close(&self) {
        if !self.stop.swap(true, Ordering::SeqCst) {
            let _ = (&self.wake).write(&[0]);
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// 128 bits (or `bytes`) from the operating system's random source, in hex.
pub(crate) fn random_hex(bytes: usize) -> io::Result<String> {
    let mut buffer = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buffer)?;
    Ok(buffer.iter().map(|b| format!("{b:02x}")).collect())
}

/// Posts a form holding `secret` to the page at `url` (`http://ADDRESS/TOKEN`) and reads
/// its answer to the end: the one raw POST the lib tests send.
#[cfg(test)]
pub(crate) fn post_secret(url: &str, secret: &str) -> String {
    let (address, path) = url.strip_prefix("http://").unwrap().split_once('/').unwrap();
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = format!("secret={secret}");
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

/// The listener's side.
struct Serving {
    /// The `Host` a request must name: the listener's own address.
    host: String,
    /// The uid whose peers are served ([`own_uid`]).
    uid: u32,
    path: String,
    program: String,
    closer: Arc<Closer>,
    posts: Sender<Posted>,
    /// Set by the first POST of a secret: the page takes one.
    taken: Arc<AtomicBool>,
    /// The connections being served.
    busy: AtomicUsize,
    /// The calls waiting for the secret.
    callers: Arc<Callers>,
    /// When the page closes by itself.
    deadline: Instant,
    /// How long after it was posted a secret is held at most.
    hold: Duration,
    /// Until when a secret posted while no call waited is held.
    held_until: std::sync::Mutex<Option<Instant>>,
    /// The page's receiver, to zero a held secret through.
    keep: Keep,
    /// Disconnected when the page is dropped.
    dropped: Receiver<()>,
}

/// What a request came to.
enum Served {
    /// Answered; the page stays open.
    Again,
    /// The secret was taken: the page closes.
    Done,
}

impl Serving {
    /// Accepts connections until closed or `deadline` passes (which closes the page),
    /// waking for a connection, the close or the deadline alone.
    /// Then, when a secret posted is held for a call to come, zeroes it at the end of its
    /// hold unless a call took it.
    /// The listener closes as soon as no more connections are accepted, before the hold
    /// (a connection made then would be queued by the kernel and hang until the hold ended).
    fn run(self: Arc<Self>, listener: TcpListener, woken: &UnixStream) {
        self.accept(&listener, woken);
        // Closed however accepting ended, before the look at a held secret (see
        // [`Serving::hold_for_call`]).
        self.closer.close();
        drop(listener);
        let held = self.held_until.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(until) = held {
            self.hold(until);
        }
    }

    /// Accepts connections until closed or the deadline passes.
    fn accept(self: &Arc<Self>, listener: &TcpListener, woken: &UnixStream) {
        let deadline = self.deadline;
        let Ok(local) = listener.local_addr() else { return };
        if listener.set_nonblocking(true).is_err() {
            return;
        }
        while !self.closer.stopped() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                // A POST waiting for a call learns at once that none will come.
                self.closer.close();
                self.callers.wake();
                return;
            }
            let timeout = Timespec::try_from(left).ok();
            let mut fds = [PollFd::new(listener, PollFlags::IN), PollFd::new(woken, PollFlags::IN)];
            match poll(&mut fds, timeout.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(_) => std::thread::sleep(ACCEPT_BACKOFF),
            }
            if self.closer.stopped() {
                return;
            }
            match listener.accept() {
                Ok((stream, peer)) => self.admit(stream, peer, local),
                Err(err)
                    if matches!(
                        err.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => std::thread::sleep(ACCEPT_BACKOFF),
            }
        }
    }

    /// Serves `stream` on a thread of its own, unless its peer's socket is another uid's or
    /// [`MAX_CONNECTIONS`] are being served: then it is closed unanswered.
    fn admit(self: &Arc<Self>, stream: TcpStream, peer: SocketAddr, local: SocketAddr) {
        if peer_uid(peer, local) != Some(self.uid) {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        if self.busy.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            self.busy.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        let serving = self.clone();
        let spawned =
            std::thread::Builder::new().name("termloom-secret-conn".into()).spawn(move || {
                let mut stream = stream;
                let served = serving.connection(&mut stream);
                // Freed, and the page closed when done, before the peer sees the close: a
                // connection made once it did is served (or finds no page), never refused for
                // a slot still held.
                serving.busy.fetch_sub(1, Ordering::SeqCst);
                if let Ok(Served::Done) = served {
                    serving.closer.close();
                }
                let _ = stream.shutdown(Shutdown::Both);
            });
        if spawned.is_err() {
            self.busy.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Has the page's thread zero the secret held for a call at `until`, unless the page is
    /// closed: then its thread has read (or is past) what it holds, and this says `false`.
    /// Looked at under the lock [`Serving::run`] takes once its accepting ended, so one of
    /// the two always sees the other.
    fn hold_for_call(&self, until: Instant) -> bool {
        let mut held = self.held_until.lock().unwrap_or_else(|e| e.into_inner());
        if self.closer.stopped() {
            return false;
        }
        *held = Some(until);
        true
    }

    /// Waits until `until` or the page's drop, then zeroes the secret held in the page's
    /// channel if no call took it (it lay there until the page was dropped, up to its
    /// deadline: 10 minutes).
    fn hold(&self, until: Instant) {
        let _ = self.dropped.recv_deadline(until);
        self.zero_kept();
    }

    /// Zeroes the secrets held in the page's channel that no call took, through the receiver
    /// kept for that (once: it is taken).
    fn zero_kept(&self) {
        if let Some(posts) = self.keep.lock().unwrap_or_else(|e| e.into_inner()).take() {
            posts.try_iter().for_each(drop);
        }
    }

    /// Serves one connection's request: its head within [`HEAD_TIMEOUT`], the rest within
    /// [`IO_TIMEOUT`] after it.
    fn connection(&self, stream: &mut TcpStream) -> io::Result<Served> {
        stream.set_nonblocking(false)?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        self.serve(stream, Instant::now() + HEAD_TIMEOUT)
    }

    /// Serves one request, whose head must come by `head_by`.
    fn serve(&self, stream: &mut TcpStream, head_by: Instant) -> io::Result<Served> {
        let Some((head, mut body)) = read_head(stream, head_by)? else {
            respond(stream, "400 Bad Request", &self.page("The request could not be read."))?;
            return Ok(Served::Again);
        };
        let served = self.answer(stream, &head, &mut body);
        body.fill(0);
        served
    }

    /// Answers the request of `head`, with what of its body came with it.
    fn answer(&self, stream: &mut TcpStream, head: &str, body: &mut [u8]) -> io::Result<Served> {
        let request = Request::parse(head);
        if request.host.as_deref() != Some(self.host.as_str()) {
            let page = self.page("This page answers only at its own address.");
            respond(stream, "421 Misdirected Request", &page)?;
            return Ok(Served::Again);
        }
        if !same(request.path.as_bytes(), self.path.as_bytes()) {
            respond(stream, "404 Not Found", &self.page("No such page."))?;
            return Ok(Served::Again);
        }
        if self.closer.stopped() {
            // A connection served on after the page closed (its head came late): a form
            // typed into now would meet no page.
            respond(stream, "410 Gone", &self.page("Not typed: the question was closed."))?;
            return Ok(Served::Again);
        }
        match request.method.as_str() {
            "GET" => {
                respond(stream, "200 OK", &self.form())?;
                Ok(Served::Again)
            }
            "POST" => self.post(stream, &request, body, Instant::now() + IO_TIMEOUT),
            _ => {
                respond(stream, "405 Method Not Allowed", &self.page("Only GET and POST."))?;
                Ok(Served::Again)
            }
        }
    }

    fn post(
        &self,
        stream: &mut TcpStream,
        request: &Request,
        body: &mut [u8],
        deadline: Instant,
    ) -> io::Result<Served> {
        let form = request.content_type.as_deref().is_some_and(|kind| {
            kind.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
        if !form {
            let page = self.page("The secret must be sent by this page's form.");
            respond(stream, "415 Unsupported Media Type", &page)?;
            return Ok(Served::Again);
        }
        let length = match request.content_length {
            Some(length) if length <= MAX_BODY => length,
            _ => {
                let page = self.page("The form is too long, or its length is not given.");
                respond(stream, "413 Content Too Large", &page)?;
                return Ok(Served::Again);
            }
        };
        // Sized once, lest a growth leave a copy of the body behind.
        let mut whole = vec![0u8; length];
        let mut start = body.len().min(length);
        whole[..start].copy_from_slice(&body[..start]);
        body.fill(0);
        let body = &mut whole;
        let mut ended = false;
        while start < length && !ended {
            match read_by(stream, &mut body[start..], deadline) {
                Ok(0) => ended = true,
                Ok(read) => start += read,
                Err(err) => {
                    body.fill(0);
                    return Err(err);
                }
            }
        }
        let secret = (!ended).then(|| form_field(body, "secret"));
        body.fill(0);
        let Some(secret) = secret else { return Err(io::ErrorKind::UnexpectedEof.into()) };
        let Some(secret) = secret else {
            respond(stream, "400 Bad Request", &self.page("The form held no secret."))?;
            return Ok(Served::Again);
        };
        if self.taken.swap(true, Ordering::SeqCst) {
            zero(secret);
            let page = self.page("This page already took a secret.");
            respond(stream, "409 Conflict", &page)?;
            return Ok(Served::Again);
        }
        let (outcome, told) = bounded(1);
        let holder = Arc::new(AtomicU8::new(PENDING));
        let at = Instant::now();
        let posted = Posted { secret, at, outcome, holder: holder.clone() };
        let mut answer = match self.posts.try_send(posted) {
            Ok(()) if self.callers.come_within(CALL_GRACE, &self.closer) => {
                told.recv_timeout(TYPING_TIMEOUT).ok()
            }
            // No call waits, nor comes at once (a stateless round's page, whose client
            // retries once the person is done, as the MCP Inspector does): the secret is held
            // for the retry, and the person told so (they were kept waiting 30 s for a retry
            // that waited for them, then told to call again).
            Ok(()) => {
                let until = (at + self.hold).min(self.deadline);
                // (A call that already took it is typing it: the person is told what became
                // of it, not that it waits for a call.)
                let claimed = || holder.load(Ordering::SeqCst) == CLAIMED;
                if self.hold_for_call(until) && !claimed() {
                    let page = self.page(
                        "Received: it is typed if your client continues within a minute while the program still asks; otherwise nothing is typed. You can close this page.",
                    );
                    if let Err(err) = respond(stream, "200 OK", &page) {
                        // Not answered: held all the same (the client may retry).
                        self.closer.close();
                        return Err(err);
                    }
                    return Ok(Served::Done);
                }
                // The page closed meanwhile: a call that waited took the secret and said what
                // became of it (typed) before it went; or none came (the page's deadline, or
                // its drop), and none can take it now while the page's thread has stopped
                // looking for one to zero: zeroed here (it lay in the page's channel until
                // the page was dropped, whenever that was).
                let abandoned = || {
                    holder.compare_exchange(PENDING, ABANDONED, Ordering::SeqCst, Ordering::SeqCst)
                };
                match told.try_recv() {
                    Ok(said) => Some(said),
                    // A call that took it may still be typing it: its word is awaited.
                    Err(_) if abandoned().is_err() => told.recv_timeout(TYPING_TIMEOUT).ok(),
                    Err(_) => {
                        self.zero_kept();
                        Some(Err("the question was closed.".to_owned()))
                    }
                }
            }
            Err(_) => Some(Err("no one is waiting for it any more.".to_owned())),
        };
        if answer.is_none() {
            // No call took it in time (on 2026-07-28, no retry came): unless one is typing it
            // now, it never will be.
            let given_up =
                holder.compare_exchange(PENDING, ABANDONED, Ordering::SeqCst, Ordering::SeqCst);
            answer = match given_up {
                Ok(_) => Some(Err("no call took it in time; call again.".to_owned())),
                Err(_) => told.recv_timeout(TYPING_TIMEOUT).ok(),
            };
        }
        let said = match answer {
            Some(Ok(())) => "Typed. You can close this page.".to_owned(),
            Some(Err(reason)) => format!("Not typed: {reason}"),
            None => "Not typed: the server did not say what became of it.".to_owned(),
        };
        respond(stream, "200 OK", &self.page(&said))?;
        Ok(Served::Done)
    }

    /// The page with the password field.
    fn form(&self) -> String {
        self.html(&format!(
            "<p><b>{}</b> asks for a password or passphrase. It goes to the program alone; the model never sees it.</p>\
             <form method=\"post\"><input type=\"password\" name=\"secret\" maxlength=\"{}\" autocomplete=\"off\" autofocus required> \
             <button type=\"submit\">Type it</button></form>",
            escape(&self.program),
            crate::MAX_SECRET_BYTES
        ))
    }

    /// A page saying `text`.
    fn page(&self, text: &str) -> String {
        self.html(&format!("<p>{}</p>", escape(text)))
    }

    fn html(&self, body: &str) -> String {
        format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>termloom: {}</title></head><body>{body}</body></html>",
            escape(&self.program)
        )
    }
}

/// Compares without stopping at the first difference (the token's).
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Reads into `buffer` what comes before `deadline` (an error once it passed).
fn read_by(stream: &mut TcpStream, buffer: &mut [u8], deadline: Instant) -> io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left))?;
    stream.read(buffer)
}

/// Reads the request head by `deadline`; returns it and what of the body came with it, or
/// `None` when it does not end within [`MAX_HEAD`] bytes.
/// The buffers it read into are zeroed beyond the head: the body may have come with it.
fn read_head(stream: &mut TcpStream, deadline: Instant) -> io::Result<Option<(String, Vec<u8>)>> {
    let mut buffer = Vec::with_capacity(MAX_HEAD + 1024);
    let mut chunk = [0u8; 1024];
    let head = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let body = buffer[end + 4..].to_vec();
            buffer[end + 4..].fill(0);
            buffer.truncate(end + 4);
            break Ok(String::from_utf8(buffer).ok().map(|head| (head, body)));
        }
        if buffer.len() > MAX_HEAD {
            break Ok(None);
        }
        match read_by(stream, &mut chunk, deadline) {
            Ok(0) => break Ok(None),
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            Err(err) => break Err(err),
        }
    };
    chunk.fill(0);
    head
}

/// The parts of a request the page looks at.
struct Request {
    method: String,
    path: String,
    host: Option<String>,
    content_type: Option<String>,
    content_length: Option<usize>,
}

impl Request {
    fn parse(head: &str) -> Request {
        let mut lines = head.split("\r\n");
        let mut words = lines.next().unwrap_or("").split(' ');
        let method = words.next().unwrap_or("").to_owned();
        let path = words.next().unwrap_or("").to_owned();
        let mut request =
            Request { method, path, host: None, content_type: None, content_length: None };
        let mut hosts = 0;
        for line in lines {
            let Some((name, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "host" => {
                    hosts += 1;
                    request.host = Some(value.to_owned());
                }
                "content-type" => request.content_type = Some(value.to_owned()),
                "content-length" => request.content_length = value.parse().ok(),
                _ => {}
            }
        }
        if hosts != 1 {
            request.host = None;
        }
        request
    }
}

/// Writes a response that no one caches, frames or refers onwards, and closes.
fn respond(stream: &mut TcpStream, status: &str, body: &str) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nPragma: no-cache\r\nReferrer-Policy: no-referrer\r\n\
         X-Frame-Options: DENY\r\nX-Content-Type-Options: nosniff\r\n\
         Content-Security-Policy: default-src 'none'; form-action 'self'; frame-ancestors 'none'\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// `text` safe inside HTML (as the SVG screenshot escapes its text).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    crate::term::screen::svg::escape(text, &mut out);
    out
}

/// The field `name` of a form body, decoded; `None` when absent or not UTF-8.
fn form_field(body: &[u8], name: &str) -> Option<String> {
    body.split(|&b| b == b'&').find_map(|pair| {
        let (key, value) = match pair.iter().position(|&b| b == b'=') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &pair[pair.len()..]),
        };
        let value = (decode(key)? == name.as_bytes()).then(|| decode(value))??;
        String::from_utf8(value).map_err(|err| err.into_bytes().fill(0)).ok()
    })
}

/// A percent-encoded form value (`+` a space); what it decoded is zeroed when it fails.
fn decode(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let decoded = decode_into(bytes, &mut out);
    if decoded.is_none() {
        out.fill(0);
    }
    decoded.map(|()| out)
}

fn decode_into(bytes: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                // Two hex digits: from_str_radix alone takes "+A" as 10.
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page closes by itself at its deadline: its listener's thread ends and nothing
    /// listens at its address any more.
    #[test]
    fn a_page_closes_at_its_deadline() {
        let mut page =
            SecretPage::open("sudo", Instant::now() + Duration::from_millis(50)).unwrap();
        page.thread.take().unwrap().join().unwrap();
        assert!(TcpStream::connect(page.address).is_err(), "the page still listens");
    }

    /// At most [`MAX_CONNECTIONS`] connections are served at once: one more, while that many
    /// send nothing, is closed unanswered, even with its request sent whole; once the idle
    /// ones are closed at their head's timeout, a POST is served and takes the secret.
    #[test]
    fn a_connection_past_the_bound_is_refused_until_idle_ones_time_out() {
        let page = SecretPage::open("sudo", Instant::now() + Duration::from_secs(120)).unwrap();
        let get = format!("GET /{} HTTP/1.1\r\nHost: {}\r\n\r\n", page.token, page.address);
        let exchange = |request: &str| {
            let mut stream = TcpStream::connect(page.address).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            let mut answer = Vec::new();
            match stream.read_to_end(&mut answer) {
                // Closed with the request unread: reset.
                Err(err) if err.kind() == io::ErrorKind::ConnectionReset => answer.clear(),
                read => assert!(read.is_ok(), "{read:?}"),
            }
            String::from_utf8(answer).unwrap()
        };
        // An idle connection is answered at its head's timeout, 2 s: the machine may be so
        // slow that one was before the one past the bound came. Tried again then.
        let mut idle = Vec::new();
        for attempt in 0.. {
            let started = Instant::now();
            idle =
                (0..MAX_CONNECTIONS).map(|_| TcpStream::connect(page.address).unwrap()).collect();
            let answer = exchange(&get);
            if answer.is_empty() {
                break;
            }
            assert!(
                started.elapsed() >= HEAD_TIMEOUT / 2 && attempt < 3,
                "a connection past the bound was served: {answer}"
            );
            for mut stream in idle.drain(..) {
                stream.read_to_end(&mut Vec::new()).unwrap();
            }
        }
        // Closed at their head's timeout, unanswered.
        for mut stream in idle {
            stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let mut answer = Vec::new();
            stream.read_to_end(&mut answer).expect("an idle connection is closed");
            assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
        }
        assert!(exchange(&get).starts_with("HTTP/1.1 200"), "the page's slots stayed taken");
        let waited = page.waited_for();
        std::thread::scope(|scope| {
            let posting = scope.spawn(|| post_secret(&page.url(), "pw"));
            let posted = page.posts().recv_timeout(Duration::from_secs(30)).expect("no POST came");
            assert!(posted.claim() && posted.secret == "pw");
            posted.outcome.send(Ok(())).unwrap();
            let answer = posting.join().unwrap();
            assert!(answer.contains("Typed."), "{answer}");
        });
        drop(waited);
    }

    /// A secret posted while no call waits is held [`HOLD`] at most (here 100 ms) after it
    /// was posted: then the page zeroes it itself, and a call later finds nothing (it lay in
    /// the page's channel until the page was dropped, up to its deadline: 10 minutes).
    #[test]
    fn a_held_secret_is_dropped_by_the_page_once_its_hold_passed() {
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut page =
            SecretPage::open_holding("sudo", deadline, Duration::from_millis(100)).unwrap();
        let answer = post_secret(&page.url(), "pw");
        assert!(answer.contains("Received") && answer.contains("nothing is typed"), "{answer}");
        assert!(page.spent());
        // The page's thread zeroes it and ends.
        page.thread.take().unwrap().join().unwrap();
        if let Ok(posted) = page.posts().try_recv() {
            panic!("still held {:?} after it was posted", posted.at.elapsed());
        }
        assert!(page.exhausted());
    }

    /// Once a secret is held for a call to come, the page's listener is closed, though its
    /// thread lives on to zero the secret at the end of the hold: a connection then is
    /// refused (the listener lived through the hold, and a GET hung in the kernel's backlog
    /// until the hold ended, 5 s here).
    #[test]
    fn the_listener_closes_once_a_secret_is_held() {
        let deadline = Instant::now() + Duration::from_secs(120);
        let page = SecretPage::open_holding("sudo", deadline, Duration::from_secs(30)).unwrap();
        let answer = post_secret(&page.url(), "pw");
        assert!(answer.contains("Received"), "{answer}");
        // The page's thread drops the listener once its accepting ends, just after the
        // answer: within 5 s, as it would be at once, but never while the hold lasts.
        let until = Instant::now() + Duration::from_secs(5);
        let refused = loop {
            match TcpStream::connect_timeout(&page.address, Duration::from_secs(1)) {
                Err(err) if err.kind() == io::ErrorKind::ConnectionRefused => break true,
                _ if Instant::now() >= until => break false,
                _ => {}
            }
        };
        assert!(refused, "the page's listener still takes connections during the hold");
    }

    /// A secret posted in the last [`CALL_GRACE`] before the page's deadline, while no call
    /// waits, is answered once the page closes and zeroed then: it was answered 33 s later
    /// ("no call took it in time") and held in the page's channel with no time limit, the
    /// page's thread having found nothing held when it closed.
    #[test]
    fn a_secret_posted_just_before_the_deadline_is_dropped_when_the_page_closes() {
        let deadline = Instant::now() + Duration::from_millis(500);
        let page = SecretPage::open_holding("sudo", deadline, HOLD).unwrap();
        let answer = post_secret(&page.url(), "pw");
        // (An answer at all, not a refused or dropped connection whose text says nothing.)
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("the question was closed"), "{answer}");
        assert!(Instant::now() < deadline + CALL_GRACE, "answered only after the grace");
        if let Ok(posted) = page.posts().try_recv() {
            panic!("still held {:?} after it was posted", posted.at.elapsed());
        }
        assert!(page.exhausted());
    }

    /// A secret a call took and is typing as the page closes is answered with what became of
    /// it, not "the question was closed" while it is being typed.
    #[test]
    fn a_secret_typed_as_the_page_closes_is_answered_with_its_outcome() {
        let deadline = Instant::now() + Duration::from_millis(500);
        let page = SecretPage::open_holding("sudo", deadline, HOLD).unwrap();
        let url = page.url();
        let (answered, answer) = bounded(1);
        let posting = std::thread::spawn(move || answered.send(post_secret(&url, "pw")));
        let posted = page.posts().recv_timeout(Duration::from_secs(30)).expect("no POST came");
        assert!(posted.claim() && posted.secret == "pw");
        // The page closes at its deadline while the call types: no answer comes until the
        // call says what became of the secret.
        if let Ok(early) = answer.recv_timeout(deadline - Instant::now() + Duration::from_secs(2)) {
            panic!("answered while the secret was typed: {early}");
        }
        posted.outcome.send(Ok(())).unwrap();
        let answer = answer.recv_timeout(Duration::from_secs(30)).expect("no answer");
        assert!(answer.starts_with("HTTP/1.1 200") && answer.contains("Typed."), "{answer}");
        posting.join().unwrap().unwrap();
    }

    /// Run as root, a thread running as the kernel's overflow uid (`nobody`) opens no page:
    /// another user namespace's users are reported as that uid too.
    #[test]
    fn the_overflow_uid_opens_no_page() {
        if !rustix::process::geteuid().is_root() || !cfg!(target_os = "linux") {
            return;
        }
        let opened = std::thread::spawn(|| {
            let overflow = rustix::process::Uid::from_raw(crate::os::procfs::overflow_uid());
            rustix::thread::set_thread_res_uid(overflow, overflow, overflow).unwrap();
            SecretPage::open("sudo", Instant::now() + Duration::from_secs(60)).map(drop)
        });
        let opened = opened.join().unwrap();
        assert!(opened.is_err_and(|err| err.to_string().contains("another user namespace")));
    }

    #[test]
    fn reads_form_fields_and_escapes_html() {
        assert_eq!(form_field(b"a=1&secret=p%40ss+w%C3%B6rd", "secret").unwrap(), "p@ss wörd");
        assert_eq!(form_field(b"secret=", "secret").unwrap(), "");
        assert!(form_field(b"other=1", "secret").is_none());
        assert!(form_field(b"secret=%zz", "secret").is_none());
        assert!(form_field(b"secret=%+A", "secret").is_none());
        assert!(form_field(b"secret=%-1", "secret").is_none());
        assert_eq!(escape("<b a=\"x\">&'"), "&lt;b a=&quot;x&quot;&gt;&amp;&apos;");
        assert!(same(b"abc", b"abc") && !same(b"abc", b"abd") && !same(b"ab", b"abc"));
        let token = random_hex(16).unwrap();
        assert_eq!(token.len(), 32);
        assert_ne!(token, random_hex(16).unwrap());
    }
}
