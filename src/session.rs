//! The handle callers hold for one session: [`Session`].

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::input::escapes::decode_escapes;
use crate::input::keys::{Key, ScriptItem, parse_key_script};
use crate::input::mouse::{MouseAction, MouseButton};
use crate::input::signal::{Signal, SignalReport, SignalTarget};
use crate::reactor::{Client, EngineFuture, Reply, Typing};
use crate::term::screen::Screen;
use crate::types::{CommandResult, Output, Scrollback, SessionId, SessionInfo, Status};
use crate::wait::{Until, WaitOutcome};

/// How long a signal to a shell at its prompt waits for the shell to be reading the terminal
/// (see [`Session::signal_to`]).
pub const PROMPT_READ_WAIT: Duration = Duration::from_secs(1);

/// The longest secret [`Session::send_secret`] types, in bytes: the longest line Linux's
/// terminal line discipline keeps (4,095 bytes and the line's end); a longer one would be cut
/// there, and the program would read only its beginning.
pub const MAX_SECRET_BYTES: usize = 4095;

/// Ids of waits, unique in the process.
static NEXT_WAIT: AtomicU64 = AtomicU64::new(1);

/// A wait in progress (see [`Session::start_wait`]). Dropping it before the wait ends cancels
/// the wait, as dropping a [`Session::wait_async`] future does.
#[derive(Debug)]
pub struct PendingWait {
    session: Session,
    waiter: u64,
    timeout: Duration,
    reply: crossbeam_channel::Receiver<Result<WaitOutcome>>,
}

impl PendingWait {
    /// Blocks until the wait ends and returns its outcome.
    pub fn finish(self) -> Result<WaitOutcome> {
        self.reply.recv().map_err(|_| Error::WaitAborted(self.timeout))?
    }

    /// The channel the outcome arrives on, and the wait's timeout (for the error when the
    /// engine drops the wait).
    pub(crate) fn reply(&self) -> (&crossbeam_channel::Receiver<Result<WaitOutcome>>, Duration) {
        (&self.reply, self.timeout)
    }

    /// Ends the wait now; [`PendingWait::finish`] then returns `Fired::Cancelled` (unless it
    /// had already ended).
    pub fn cancel(&self) {
        self.canceller().cancel();
    }

    /// A handle that cancels this wait from any thread, while another blocks in
    /// [`PendingWait::finish`].
    pub fn canceller(&self) -> WaitCanceller {
        WaitCanceller {
            client: self.session.client.clone(),
            id: self.session.id,
            waiter: self.waiter,
        }
    }
}

impl Drop for PendingWait {
    fn drop(&mut self) {
        // Nothing received and the reactor still holds the sender: the wait goes on, and
        // nobody will take its outcome.
        if matches!(self.reply.try_recv(), Err(crossbeam_channel::TryRecvError::Empty)) {
            self.cancel();
        }
    }
}

/// A paste in progress (see [`Session::start_paste`]). Dropping it before the paste is
/// queued ends the paste, as dropping a [`Session::paste_async`] future does: the rest of it
/// would otherwise hold the session's input (every send refused with
/// [`Error::QueueFull`]) until its timeout.
#[derive(Debug)]
#[must_use = "dropping it ends the paste; call finish to wait until it is queued"]
pub struct PendingPaste {
    session: Session,
    paste: u64,
    reply: crossbeam_channel::Receiver<Result<()>>,
}

impl PendingPaste {
    /// Blocks until the whole paste is queued for the program, or it times out or is
    /// cancelled ([`Error::PasteIncomplete`]), or the session is closed
    /// ([`Error::SessionClosed`]) or its program exits ([`Error::SessionExited`]) first.
    pub fn finish(self) -> Result<()> {
        self.reply.recv().map_err(|_| Error::EngineStopped)?
    }

    /// A handle that ends this paste from any thread, while another blocks in
    /// [`PendingPaste::finish`].
    pub fn canceller(&self) -> WaitCanceller {
        WaitCanceller {
            client: self.session.client.clone(),
            id: self.session.id,
            waiter: self.paste,
        }
    }
}

impl Drop for PendingPaste {
    fn drop(&mut self) {
        // Not answered yet, and the reactor still holds the sender: the paste goes on, and
        // nobody will take its outcome.
        if matches!(self.reply.try_recv(), Err(crossbeam_channel::TryRecvError::Empty)) {
            self.canceller().cancel();
        }
    }
}

/// Cancels one wait or paste from any thread (see [`PendingWait::canceller`] and
/// [`PendingPaste::canceller`]).
#[derive(Clone, Debug)]
pub struct WaitCanceller {
    client: Client,
    id: SessionId,
    waiter: u64,
}

impl WaitCanceller {
    /// Ends the wait or paste now (nothing happens if it already ended).
    pub fn cancel(&self) {
        let (id, waiter) = (self.id, self.waiter);
        let _ = self.client.submit(Box::new(move |r| r.cancel_wait(id, waiter)));
    }
}

/// Which way the mouse wheel turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    /// Away from the user: content moves down.
    Up,
    /// Towards the user.
    Down,
}

/// A handle to one session. Cheap to clone, usable from any thread; every call is a message
/// to the engine's reactor thread.
///
/// The session is the engine's, not the handle's: dropping a handle, even the last one,
/// leaves its program running until it exits, [`Session::close`] ends it, or the engine shuts
/// down (its last [`Engine`](crate::Engine) clone dropped, or
/// [`Engine::shutdown`](crate::Engine::shutdown)). [`Engine::session`](crate::Engine::session)
/// gives a handle to it again.
///
/// ```no_run
/// use std::time::Duration;
/// use termloom::{Config, Engine, SpawnSpec, Until};
///
/// let engine = Engine::new(Config::default())?;
/// let less = engine.spawn(SpawnSpec::new("less").arg("/etc/services"))?;
/// less.wait(Until::input_wait(), Duration::from_secs(10))?.held()?;
/// less.send_keys("/http<Enter>")?;
/// less.wait(Until::screen_contains("http"), Duration::from_secs(10))?.held()?;
/// println!("{}", less.screen()?);
/// less.send_keys("q")?;
/// less.wait(Until::exit(), Duration::from_secs(10))?.held()?;
/// # Ok::<(), termloom::Error>(())
/// ```
#[derive(Clone)]
pub struct Session {
    pub(crate) id: SessionId,
    pub(crate) pid: i32,
    pub(crate) client: Client,
    /// Whose read position reads and waits use (0: the default reader).
    pub(crate) reader: u64,
}

/// A reader of sessions' transcripts with its own read positions: what one caller has read
/// is still new to another (see [`Session::as_reader`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReaderId(u64);

static NEXT_READER: AtomicU64 = AtomicU64::new(1);

impl ReaderId {
    /// A reader no handle has used yet.
    pub fn new() -> ReaderId {
        ReaderId(NEXT_READER.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for ReaderId {
    fn default() -> Self {
        ReaderId::new()
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("pid", &self.pid).finish()
    }
}

impl Session {
    /// The session's id.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// The program's process id (it leads its own POSIX session and process group).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Sends text with backslash escapes decoded (`\r \n \t \e \xHH \uHHHH \\`; see
    /// [`decode_escapes`]).
    pub fn send_text(&self, text: &str) -> Result<()> {
        self.send_bytes(&decode_escapes(text))
    }

    /// Sends text like [`Session::send_text`], then a carriage return (Enter). A wait after
    /// it sees the line's echo as new output; [`Session::submit_and_wait`] does not.
    pub fn submit(&self, text: &str) -> Result<()> {
        self.send_bytes(&submitted(text))
    }

    /// [`Session::submit`] and a wait in one request, as [`Session::send_bytes_and_wait`]:
    /// text conditions skip the line's echo (`echo done` waiting for `done` waits for the
    /// output).
    pub fn submit_and_wait(
        &self,
        text: &str,
        until: Until,
        timeout: Duration,
    ) -> Result<WaitOutcome> {
        self.send_bytes_and_wait(&submitted(text), until, timeout)
    }

    /// Types a secret (a password) and Enter, only if the program is at a password prompt:
    /// the terminal reads a line with echo off ([`crate::InputKind::Password`]), checked by
    /// the reactor just before the bytes are queued; otherwise it fails with
    /// [`Error::NotAtPasswordPrompt`] and types nothing. The secret is not echoed (so it never
    /// reaches the transcript, the screen or the raw output), is never recorded even when
    /// input is, and appears in no error or log. A secret with a line break, NUL or other
    /// control character, or longer than [`MAX_SECRET_BYTES`], is refused whole; so is one
    /// the program would read after earlier lines it has not read yet, or that would pass
    /// through a terminal that echoes on its way to a terminal a program of the session hosts
    /// (a relay that does not make the session's terminal raw); and one the terminal would
    /// not pass whole as one line (a character of it that a program made a special character,
    /// `stty intr z`, or an Enter that ends no line, `stty -icrnl`).
    ///
    /// It is typed only in a turn where some thread of the terminal's foreground group is
    /// seen blocked on it (a read of it, or a `poll`, `select` or `epoll` wait watching it,
    /// whatever its timer; other threads may run), where `/proc` can tell. That reader is not
    /// tied to the program that asked: whatever reads the terminal then takes the secret (a
    /// `read` the shell runs once the asking program exited, if it blocks within the wait
    /// below). Programs print their prompt and turn echo off a few milliseconds before they
    /// read, so a secret sent as soon as the prompt shows may find no reader yet: the call
    /// then waits, the reactor looking again every 20 ms for up to 2 s past
    /// `Config::input_settle`, and types the secret as soon as it sees one (checking the modes
    /// again then). So does one sent while the terminal still echoes and nothing reads it, the
    /// cursor right after its row's text: the program printed its prompt before turning echo off (`printf 'Password: '; stty -echo;
    /// read p`, Python's own prompt before `getpass.getpass('')`). When the time runs out with
    /// none (a program that turned echo off and went on working, or asleep: `stty -echo;
    /// sleep 9`) it fails with [`Error::NoSecretReader`], saying what the program does, and
    /// types nothing ([`Error::NotAtPasswordPrompt`] for one working on with echo on). A
    /// terminal that echoes while something reads it (a shell at its prompt, `read p`), or with
    /// the cursor at a line's start (no prompt shown), fails at once with
    /// [`Error::NotAtPasswordPrompt`]: typing there would show the secret. A prompt on a terminal that a
    /// program of the session relays to (a GNU screen window, `sudo` with `use_pty`) is waited
    /// for the same way: the secret is typed once the readiness probe sees that terminal's
    /// program read, or refused with [`Error::NoSecretReader`] when the time runs out. One
    /// secret a session is asked for at a time: another sent meanwhile (or while MCP's
    /// `terminal_send secret=true` asks a person for one, from its look whether one would be
    /// typed until the person's is typed or the call ends) is refused at once with
    /// [`Error::SecretPending`], typing nothing.
    pub fn send_secret(&self, secret: &str) -> Result<()> {
        check_secret(secret)?;
        self.secret_request(secret.as_bytes().to_vec(), None, (false, None)).map(drop)
    }

    /// Claims the session's secret for the caller, until the claim is dropped: while it is
    /// held, a secret sent otherwise than through it ([`Session::send_secret`], another MCP
    /// call's) is refused with [`Error::SecretPending`]. MCP's `terminal_send secret=true`
    /// holds one from its look whether a secret would be typed until the person's is typed or
    /// the call ends, so that no one else is asked, and nothing else typed, meanwhile. Refused
    /// with [`Error::SecretPending`] itself while another secret is claimed or held. Taken
    /// queued, its refusals saying no one is asked yet, until [`SecretClaim::asking`].
    pub(crate) fn claim_secret(&self) -> Result<SecretClaim> {
        let id = self.id;
        let number = self.client.call_for(id, move |r| r.claim_secret(id))?;
        Ok(SecretClaim { session: self.clone(), number })
    }

    /// Asks the reactor to type `secret` (see [`Session::send_secret`]) and waits for its
    /// answer, which may be held until a program reads the terminal; with `skip`, each look
    /// first moves that reader past everything printed before, and the answer is the line
    /// the secret was typed on; with `dry`, nothing is typed (see
    /// [`SecretClaim::await_reader`]); `claim`, a [`SecretClaim`]'s number, lets it through
    /// that claim.
    fn secret_request(
        &self,
        secret: Vec<u8>,
        skip: Option<u64>,
        (dry, claim): (bool, Option<u64>),
    ) -> Result<Option<crate::term::transcript::TypedLine>> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let id = self.id;
        self.client.call_for(id, move |r| {
            r.send_secret(id, secret, (skip, dry, claim), tx.into());
            Ok(())
        })?;
        rx.recv().map_err(|_| Error::EngineStopped)?
    }

    /// Sends bytes as they are. Fails with [`Error::QueueFull`] rather than block when the
    /// session's write queue cannot take them, and with [`Error::InvalidInput`], typing
    /// nothing, when the terminal reads whole lines (canonical mode) and a line is longer
    /// than it keeps (4095 bytes on Linux; the kernel would drop the rest silently); the same
    /// holds for every way of typing, pastes included. Each call is checked alone: a line
    /// typed over several calls is not counted across them, so the kernel may still cut it
    /// past 4095 bytes (send the line in one call to have it checked). The check never counts
    /// more than the kernel keeps: the line is counted with the terminal's own line ends,
    /// erase, line-kill and signal characters, and anew from nothing after a word erase,
    /// literal-next or an erase of non-ASCII text. A lone
    /// Ctrl-C, Ctrl-\\ or Ctrl-Z byte typed to a shell at its prompt waits for the shell to
    /// read the terminal first, as [`Session::signal_to`] does.
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<()> {
        self.send_typing(Typing::Bytes(bytes.to_vec())).map(drop)
    }

    /// Types a key script: text mixed with keys in bracket notation, such as
    /// `ihello<Esc>:wq<Enter>`, `<C-c>`, `<Up><Up><Enter>` (`<lt>` is a literal `<`). Keys are
    /// encoded for the modes the program has set at the moment they are sent (application
    /// cursor keys, the kitty keyboard protocol). A malformed script is an error naming the
    /// bad token; nothing is sent then. Ctrl-C, Ctrl-\\ or Ctrl-Z alone, typed to a shell at
    /// its prompt, waits for the shell to read the terminal first, as [`Session::signal_to`]
    /// does.
    pub fn send_keys(&self, script: &str) -> Result<()> {
        self.send_typing(Typing::Keys(parse_key_script(script)?)).map(drop)
    }

    /// Presses one key (see [`Key`]'s `FromStr` for names such as `"C-c"` or `"PageDown"`).
    /// Ctrl-C, Ctrl-\\ and Ctrl-Z wait as they do in [`Session::send_keys`].
    pub fn send_key(&self, key: Key) -> Result<()> {
        self.send_typing(Typing::Keys(vec![ScriptItem::Key(key)])).map(drop)
    }

    /// Types `typing` now, answering whether it submitted a line by the send's own reading
    /// of the terminal's modes; a key that signals typed to a shell at its prompt waits
    /// first ([`Session::until_shell_reads_before`]).
    pub(crate) fn send_typing(&self, typing: Typing) -> Result<bool> {
        self.until_shell_reads_before(&typing)?;
        let id = self.id;
        self.client.call_for(self.id, move |r| match &typing {
            Typing::Keys(items) => r.send_keys(id, items),
            Typing::Bytes(bytes) => r.send(id, bytes),
        })
    }

    /// Before `typing` is sent: when it is a key that signals ([`Typing::signals`]), waits
    /// for a shell at its prompt to read the terminal ([`Session::until_shell_reads`]). The
    /// one pre-check of every send that types at once.
    fn until_shell_reads_before(&self, typing: &Typing) -> Result<()> {
        match typing.signals() {
            true => self.until_shell_reads(),
            false => Ok(()),
        }
    }

    /// Pastes text: wrapped in bracketed-paste markers when the program enabled bracketed
    /// paste, plain otherwise; markers inside the text are removed and line ends become `\r`,
    /// as a terminal does. A paste larger than the write queue goes through it in pieces,
    /// this call waiting for room (the reactor never waits) for at most the engine's
    /// `default_wait_timeout`; see [`Session::start_paste`] for a timeout and cancellation of
    /// its own.
    pub fn paste(&self, text: &str) -> Result<()> {
        self.start_paste(text, None)?.finish()
    }

    /// Starts a paste (see [`Session::paste`]) without waiting for it: [`PendingPaste::finish`]
    /// waits until it is queued, or until `timeout` (default: the engine's
    /// `default_wait_timeout`) passes while the program does not read, and
    /// [`PendingPaste::canceller`] ends it from another thread; dropping the [`PendingPaste`]
    /// ends it too (what was queued stays queued). A paste that does not complete
    /// fails with [`Error::PasteIncomplete`], saying how much of it was queued.
    pub fn start_paste(&self, text: &str, timeout: Option<Duration>) -> Result<PendingPaste> {
        self.start_paste_submitting(text, timeout, None).map(|(pending, _)| pending)
    }

    /// [`Session::start_paste`], answering whether the paste submits a line (one ending with
    /// a line end, not bracketed) and whether it went out bracketed, by the paste request's
    /// own reading of the terminal's modes, and the line the cursor was on as it was written
    /// (see [`Session::send_taking_line`]); the request answers that before the paste is
    /// queued, `None` for a paste that types nothing. With `skip`,
    /// the request first moves that session's reader past everything printed before the
    /// paste (see [`Session::skip_output`]).
    pub(crate) fn start_paste_submitting(
        &self,
        text: &str,
        timeout: Option<Duration>,
        skip: Option<&Session>,
    ) -> Result<(PendingPaste, Option<crate::reactor::PasteVerdict>)> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let (id, text, skip) = (self.id, text.to_owned(), skip.map(|skip| skip.reader));
        let paste = NEXT_WAIT.fetch_add(1, Ordering::Relaxed);
        let reply = tx.into();
        // A request that panics closes the session and says so, as every call does.
        let verdict = self
            .client
            .call_for(self.id, move |r| Ok(r.paste(id, paste, (&text, skip), timeout, reply)))?;
        Ok((PendingPaste { session: self.clone(), paste, reply: rx }, verdict))
    }

    /// Sends the request that pastes `text`, answered at `reply`, without waiting for the
    /// reactor to take it (for [`Session::paste_async`]); returns the paste's id (in the id
    /// space of waits: a [`WaitCanceller`] ends it).
    fn send_paste(
        &self,
        text: &str,
        timeout: Option<Duration>,
        reply: Reply<Result<()>>,
    ) -> Result<u64> {
        let (id, text) = (self.id, text.to_owned());
        let paste = NEXT_WAIT.fetch_add(1, Ordering::Relaxed);
        self.client.submit_for(id, reply, move |r, reply| {
            r.paste(id, paste, (&text, None), timeout, reply);
        })?;
        Ok(paste)
    }

    /// A future answered at the reply `start` is given, whose wait (or paste) `start` sent
    /// and named; dropping the future cancels it.
    fn cancelled_on_drop<T>(
        &self,
        start: impl FnOnce(Reply<Result<T>>) -> Result<u64>,
    ) -> EngineFuture<T> {
        let (future, producer) = EngineFuture::new();
        match start(Reply::Future(producer)) {
            Ok(waiter) => {
                let canceller = WaitCanceller { client: self.client.clone(), id: self.id, waiter };
                future.on_drop(move || canceller.cancel())
            }
            Err(err) => EngineFuture::ready(Err(err)),
        }
    }

    /// Clicks the left button at a cell (row and column from 0): press, then release. Fails
    /// when the program has not enabled mouse reporting, instead of sending bytes it would
    /// read as text; on a session that ended, with [`Error::SessionExited`] or
    /// [`Error::SessionClosed`], as every mouse call does.
    pub fn click(&self, row: u16, col: u16) -> Result<()> {
        self.mouse_down(MouseButton::Left, row, col)?;
        self.mouse_up(MouseButton::Left, row, col)
    }

    /// Presses a mouse button at a cell.
    pub fn mouse_down(&self, button: MouseButton, row: u16, col: u16) -> Result<()> {
        let id = self.id;
        self.client.call_for(self.id, move |r| {
            r.send_mouse(id, Some(button), MouseAction::Press, row, col)
        })
    }

    /// Releases a mouse button at a cell.
    pub fn mouse_up(&self, button: MouseButton, row: u16, col: u16) -> Result<()> {
        let id = self.id;
        self.client.call_for(self.id, move |r| {
            r.send_mouse(id, Some(button), MouseAction::Release, row, col)
        })
    }

    /// Moves the mouse to a cell. With a button pressed by [`Session::mouse_down`] and not yet
    /// released this is a drag with that button (reported in modes 1002 and 1003); with none
    /// it is reported only when the program asked for all motion (mode 1003). Otherwise
    /// nothing is sent.
    pub fn mouse_move(&self, row: u16, col: u16) -> Result<()> {
        let id = self.id;
        self.client
            .call_for(self.id, move |r| r.send_mouse(id, None, MouseAction::Motion, row, col))
    }

    /// Turns the mouse wheel `notches` times at a cell (none: sends nothing, but fails on a
    /// session that ended, as every mouse call does).
    pub fn scroll(
        &self,
        direction: ScrollDirection,
        notches: u16,
        row: u16,
        col: u16,
    ) -> Result<()> {
        let button = match direction {
            ScrollDirection::Up => MouseButton::WheelUp,
            ScrollDirection::Down => MouseButton::WheelDown,
        };
        if notches == 0 {
            // (No event: refused where one would be, as on a session that ended.)
            let id = self.id;
            return self.client.call_for(self.id, move |r| r.takes_input(id));
        }
        for _ in 0..notches {
            self.mouse_down(button, row, col)?;
        }
        Ok(())
    }

    /// Sends a signal to the terminal's foreground process group (what a key such as Ctrl-C
    /// reaches). SIGKILL is refused when the session's own program is in the foreground:
    /// close the session instead.
    pub fn signal(&self, signal: Signal) -> Result<SignalReport> {
        self.signal_to(signal, SignalTarget::Foreground)
    }

    /// Sends a signal to the foreground process group or to every process group of the
    /// session. A shell at its prompt (shell integration) is signalled once it is seen
    /// reading the terminal, at most [`PROMPT_READ_WAIT`] after the call: bash, signalled
    /// between drawing its prompt and reading, prints `^C` but draws no new prompt until the
    /// next key, so a wait for the prompt after the signal would not end.
    pub fn signal_to(&self, signal: Signal, target: SignalTarget) -> Result<SignalReport> {
        self.until_shell_reads()?;
        let id = self.id;
        self.client.call_for(self.id, move |r| r.signal(id, signal, target))
    }

    /// Waits until a shell at its prompt is seen reading the terminal, at most
    /// [`PROMPT_READ_WAIT`]; returns at once when the shell is not at its prompt. Done before
    /// a signal, and before a key that signals (Ctrl-C typed to a shell at its prompt).
    pub(crate) fn until_shell_reads(&self) -> Result<()> {
        if matches!(self.status()?.activity, crate::types::Activity::AtPrompt) {
            self.wait(Until::input_wait(), PROMPT_READ_WAIT)?;
        }
        Ok(())
    }

    /// What is new in the transcript since the previous read (see [`Output`]).
    pub fn read(&self) -> Result<Output> {
        let id = self.id;
        let reader = self.reader;
        self.client.call_for(self.id, move |r| r.read(id, reader, None))
    }

    /// Like [`Session::read`], returning at most `max_bytes` (and at most the engine's
    /// `max_read_bytes`). A `max_bytes` below 4 counts as 4, the longest character, so that
    /// every read makes progress.
    pub fn read_max(&self, max_bytes: usize) -> Result<Output> {
        let id = self.id;
        let reader = self.reader;
        self.client.call_for(self.id, move |r| r.read(id, reader, Some(max_bytes)))
    }

    /// The retained transcript (settled lines and the primary screen's lines down to the
    /// cursor, also while a full-screen program's alternate screen hides them), at most
    /// `max_bytes` of its end; the flag says whether older text was left out. Does not move
    /// the read cursor.
    pub fn scrollback(&self, max_bytes: usize) -> Result<Scrollback> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.scrollback(id, max_bytes))
    }

    /// The newest bytes the program wrote, exactly as written (escape sequences included), at
    /// most `Config::raw_output_bytes` of them: for debugging what the emulator was given.
    pub fn raw_output(&self) -> Result<crate::types::RawOutput> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.raw_output(id))
    }

    /// The session's recording so far, as asciicast v2 text, when it is recorded in memory
    /// ([`SpawnSpec::record_to_memory`](crate::SpawnSpec::record_to_memory)); `None`
    /// otherwise (a recording to a file is read from its file). Readable after the program
    /// exits and after `close`, while the session is kept. The reactor hands over the events
    /// shared, not copied; the text is joined on the caller's thread.
    pub fn recording(&self) -> Result<Option<String>> {
        let id = self.id;
        let snapshot = self.client.call_for(self.id, move |r| r.recording(id))?;
        Ok(snapshot.map(crate::os::recording::Snapshot::text))
    }

    /// Lines of the retained transcript by number (from 0 at the session's start; the line
    /// at the cursor included), at most `max_bytes` of them from the range's start; lines the
    /// transcript's bound dropped are left out. Does not move the read cursor. A range that
    /// ends before it starts is refused ([`Error::InvalidInput`]).
    pub fn transcript_lines(
        &self,
        range: std::ops::Range<u64>,
        max_bytes: usize,
    ) -> Result<crate::TranscriptLines> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.transcript_lines(id, range, max_bytes))
    }

    /// This session as `reader` reads it: reads, transcript waits and `run_command` use and
    /// move that reader's position, so what one reader has read is still new to another (two
    /// clients of one engine, each with its own [`ReaderId`]). Handles from
    /// [`Engine::spawn`](crate::Engine::spawn) and [`Engine::session`](crate::Engine::session)
    /// share the default reader. A session keeps the positions of `Config::max_readers`
    /// readers besides it; the least recently used is forgotten (and starts over from the
    /// oldest retained line; its next read says so:
    /// [`Output::position_forgotten`](crate::Output::position_forgotten)). Their copies of the
    /// screen text they last read take at most `Config::readers_tail_bytes`: a reader whose
    /// copy was dropped gets that text again, marked
    /// [`Output::rewritten`](crate::Output::rewritten).
    pub fn as_reader(&self, reader: ReaderId) -> Session {
        Session { reader: reader.0, ..self.clone() }
    }

    /// A snapshot of the visible screen.
    pub fn screen(&self) -> Result<Screen> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.screen(id))
    }

    /// A snapshot of the visible screen with the colours and attributes of its cells, as runs
    /// (its `Display` adds a `styles:` section to the screen's layout).
    pub fn styled_screen(&self) -> Result<crate::term::screen::style::StyledScreen> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.styled_screen(id))
    }

    /// Blocks the calling thread (never the reactor) until `until` holds, the session ends, or
    /// `timeout` passes; the outcome says which. A timeout is an outcome, not an error:
    /// [`WaitOutcome::held`] makes it one (`session.wait(until, timeout)?.held()?`).
    pub fn wait(&self, until: Until, timeout: Duration) -> Result<WaitOutcome> {
        self.start_wait(until, timeout)?.finish()
    }

    /// Types a key script (see [`Session::send_keys`]) and waits until `until` holds, in one
    /// request to the reactor: the keys are written and the wait is in place before any output
    /// is looked at, so the program's answer cannot be missed, and the caller waits for one
    /// reply instead of two. A condition that already holds before the keys are answered
    /// matches at once: wait for something the keys change. Keys that end with Enter submit
    /// a line, and text conditions skip what its echo adds to the line it is typed on
    /// (`echo done<Enter>` waiting for `done` waits for the output, not the echo). Ctrl-C,
    /// Ctrl-\\ or Ctrl-Z alone waits first as in [`Session::send_keys`].
    ///
    /// ```no_run
    /// # fn demo(vim: &termloom::Session) -> termloom::Result<()> {
    /// use std::time::Duration;
    /// use termloom::Until;
    /// vim.send_keys_and_wait("i", Until::screen_row_contains(23, "-- INSERT --"), Duration::from_secs(5))?;
    /// # Ok(()) }
    /// ```
    pub fn send_keys_and_wait(
        &self,
        script: &str,
        until: Until,
        timeout: Duration,
    ) -> Result<WaitOutcome> {
        self.type_and_wait(Typing::Keys(parse_key_script(script)?), until, timeout)
    }

    /// Sends bytes as they are (see [`Session::send_bytes`]) and waits until `until` holds,
    /// as [`Session::send_keys_and_wait`] does: bytes that end with a line end (`\r` or `\n`)
    /// submit a line, and text conditions skip what its echo adds to the line it is typed on
    /// (`echo done\r` waiting for `done` waits for the output, not the echo). One request:
    /// a wait that would be refused is refused before anything is sent.
    pub fn send_bytes_and_wait(
        &self,
        bytes: &[u8],
        until: Until,
        timeout: Duration,
    ) -> Result<WaitOutcome> {
        self.type_and_wait(Typing::Bytes(bytes.to_vec()), until, timeout)
    }

    /// Types `typing` and waits for `until`, in one request to the reactor.
    fn type_and_wait(
        &self,
        typing: Typing,
        until: Until,
        timeout: Duration,
    ) -> Result<WaitOutcome> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let waiter = self.start_type_and_wait(typing, until, timeout, tx.into())?;
        PendingWait { session: self.clone(), waiter, timeout, reply: rx }.finish()
    }

    /// Sends the request that types `typing` and waits for `until`, answered at `reply`;
    /// returns the wait's id. A key that signals (Ctrl-C, Ctrl-\\ or Ctrl-Z alone) typed to a
    /// shell at its prompt is held back by the reactor until the shell is seen reading, at
    /// most [`PROMPT_READ_WAIT`], as [`Session::signal_to`] waits: neither the caller's
    /// thread (or executor) nor the reactor blocks meanwhile.
    fn start_type_and_wait(
        &self,
        typing: Typing,
        until: Until,
        timeout: Duration,
        reply: Reply<Result<WaitOutcome>>,
    ) -> Result<u64> {
        let (id, reader) = (self.id, self.reader);
        let hold = typing.signals().then_some(PROMPT_READ_WAIT);
        let waiter = NEXT_WAIT.fetch_add(1, Ordering::Relaxed);
        self.client.submit_for(id, reply, move |r, reply| {
            r.type_then_wait(id, typing, reader, (until, timeout), hold, waiter, reply)
        })?;
        Ok(waiter)
    }

    /// [`Session::type_and_wait`] as a future (see [`Session::wait_async`]); dropping it
    /// cancels the wait (what was typed stays typed).
    fn type_and_wait_async(
        &self,
        typing: crate::Result<Typing>,
        until: Until,
        timeout: Duration,
    ) -> EngineFuture<WaitOutcome> {
        self.cancelled_on_drop(|reply| self.start_type_and_wait(typing?, until, timeout, reply))
    }

    /// Starts a wait without blocking; the returned [`PendingWait`] is finished (blocking) or
    /// cancelled from any thread. Dropping it unfinished cancels the wait. The wait is sent to
    /// the engine's thread, not checked here: a wait the engine refuses (an unknown session, a
    /// condition that can never hold on its screen, [`Error::TooManyWaits`],
    /// [`Error::TooManyReaderWaits`]) is refused by the [`PendingWait`]'s `finish`.
    pub fn start_wait(&self, until: Until, timeout: Duration) -> Result<PendingWait> {
        self.start_wait_past(until, timeout, None)
    }

    /// [`Session::start_wait`], its transcript conditions not searching the echo added to
    /// `typed_line`, or on the later line where the wait finds it (see
    /// [`Session::send_taking_line`]); the outcome says where (`WaitOutcome::typed_line`).
    pub(crate) fn start_wait_past(
        &self,
        until: Until,
        timeout: Duration,
        typed_line: Option<crate::term::transcript::TypedLine>,
    ) -> Result<PendingWait> {
        let id = self.id;
        let waiter = NEXT_WAIT.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = crossbeam_channel::bounded(1);
        let reader = self.reader;
        self.client.submit_for(id, tx.into(), move |r, reply| {
            r.wait_past(id, reader, (until, timeout), typed_line, waiter, reply)
        })?;
        Ok(PendingWait { session: self.clone(), waiter, timeout, reply: rx })
    }

    /// Notes whether a person holds this session's keyboard (a server's `attach --takeover`):
    /// then a wait that types nothing is not ended by the program's asking for a line, which
    /// the person may answer.
    pub(crate) fn set_held_by_person(&self, held: bool) -> Result<()> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.set_held_by_person(id, held))
    }

    /// Moves this handle's reader past everything printed so far, without returning it (or
    /// copying it, as a [`Session::read`] that drops its text would): a wait after it looks
    /// only at what is printed from now on, where a condition already holding in unread
    /// output would match at once.
    pub fn skip_output(&self) -> Result<()> {
        let (id, reader) = (self.id, self.reader);
        self.client.call_for(self.id, move |r| r.skip_output(id, reader))
    }

    /// Types `input` now and answers the line it was typed on when it submits a line (see
    /// [`Session::send_taking_line`]), in one request whose one reading of the terminal's modes
    /// decides it all (a question asked apart would be judged under modes the program may
    /// change before the send); first moves `skip`'s reader past everything
    /// printed before the input. A key that signals (Ctrl-C alone) typed to a shell at its
    /// prompt waits first as [`Session::send_keys`] does. For the testing kit.
    #[cfg(feature = "testing")]
    pub(crate) fn send_noting_line(
        &self,
        input: crate::reactor::Noted,
        skip: &Session,
    ) -> Result<Option<crate::term::transcript::TypedLine>> {
        let typing = match input {
            crate::reactor::Noted::Typing(typing) => typing,
            crate::reactor::Noted::Secret(secret) => {
                return self.secret_request(secret, Some(skip.reader), (false, None));
            }
        };
        self.until_shell_reads_before(&typing)?;
        let (id, skip) = (self.id, skip.reader);
        self.client.call_for(self.id, move |r| r.send_noting_line(id, typing, skip))
    }

    /// Types `typing` now, answering whether it submitted a line and the line the cursor is
    /// on, where it is echoed, both from the send's own request (`None` on the alternate
    /// screen); see [`Reactor::send_taking_line`](crate::reactor::Reactor). A key that
    /// signals typed to a shell at its prompt waits first, as [`Session::send_keys`] does.
    /// For a caller that keeps, for its waits, the line its first send was typed on, with no
    /// request of its own before it: a wait for the answer does not match the echo.
    pub(crate) fn send_taking_line(
        &self,
        typing: Typing,
    ) -> Result<(bool, Option<crate::term::transcript::TypedLine>)> {
        self.until_shell_reads_before(&typing)?;
        let id = self.id;
        self.client.call_for(self.id, move |r| r.send_taking_line(id, typing))
    }

    /// Who reads the terminal when the shell has begun a prompt (OSC 133 `A`) without drawing
    /// its mark (`B`): the shell itself (its `PS1` lost the mark when it was replaced), another
    /// process (a question the prompt asks), or nobody yet (the prompt is still being drawn).
    /// `None` when the last mark is another.
    pub(crate) fn unmarked_reader(&self) -> Result<Option<crate::reactor::UnmarkedReader>> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.unmarked_reader(id))
    }

    /// Types `line` and Enter into a shell started with shell integration, waits until its
    /// prompt comes back (at most `timeout`) and returns the command's own output, exit code
    /// and duration. The read cursor moves past the command, so the next [`Session::read`]
    /// does not return it again (past text before its prompt that this handle was not given
    /// as it reads now too: [`CommandResult::unread_before`] names it, with
    /// [`CommandResult::previous_exit_code`] when no earlier read told it). Fails with a
    /// clear error when the shell shows no integration ([`Error::NoShellIntegration`]) or is
    /// not at its prompt ([`Error::NotAtPrompt`]), or when `line` is empty or holds a line
    /// break or another control character (the line is typed, so the line editor
    /// would take it as a key). A line the shell takes as the start of a longer command (an
    /// open quote) is abandoned with Ctrl-C:
    /// [`Error::CommandLineIncomplete`].
    pub fn run_command(&self, line: &str, timeout: Duration) -> Result<CommandResult> {
        self.start_command(line, timeout)?.recv().map_err(|_| Error::WaitAborted(timeout))?
    }

    /// Checks `line` as [`Session::run_command`] does before it types anything: refused
    /// ([`Error::InvalidInput`]) when it is empty, or holds a line break or another control
    /// character; its messages name no caller, for `run_command`, the command line's
    /// `--run-command` and MCP's `terminal_run` all give them. For a program that takes
    /// command lines from its own input (a command line's flags) and would check them before
    /// it starts anything.
    ///
    /// ```
    /// assert!(termloom::Session::check_command_line("make test").is_ok());
    /// assert!(termloom::Session::check_command_line("a\tb").is_err());
    /// ```
    pub fn check_command_line(line: &str) -> Result<()> {
        if line.contains(['\n', '\r']) {
            return Err(Error::InvalidInput(
                "the command must be one line; join commands with ; or &&, or write a script and run it; nothing was run".into(),
            ));
        }
        // The line is typed: the shell's line editor would take these as keys (Escape,
        // Tab's completion, Ctrl-C), not as part of the command.
        if let Some(control) = line.chars().find(|c| c.is_control()) {
            return Err(Error::InvalidInput(format!(
                "the command holds the control character U+{:04X}, which the shell would take as a key, since the line is typed: write it with the shell's quoting ($'\\t', $'\\e'), or type it as keys; nothing was run",
                u32::from(control)
            )));
        }
        if line.trim().is_empty() {
            return Err(Error::InvalidInput(
                "the command is blank; give the command line to run".into(),
            ));
        }
        Ok(())
    }

    /// Starts [`Session::run_command`]; its result arrives on the channel returned.
    pub(crate) fn start_command(
        &self,
        line: &str,
        timeout: Duration,
    ) -> Result<crossbeam_channel::Receiver<Result<CommandResult>>> {
        let id = self.id;
        let line = line.to_owned();
        let (tx, rx) = crossbeam_channel::bounded(1);
        let reader = self.reader;
        self.client.submit_for(id, tx.into(), move |r, reply| {
            r.run_command(id, reader, &line, timeout, reply)
        })?;
        Ok(rx)
    }

    /// The session's clipboard: what the program last copied with OSC 52.
    pub fn clipboard(&self) -> Result<String> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.clipboard(id))
    }

    /// Sets the session's clipboard, which the program can paste with an OSC 52 query. It
    /// holds what a program's own copy can (OSC 52 within
    /// [`Config::max_osc_bytes`](crate::Config::max_osc_bytes), its text in base64: about
    /// three quarters of that), and what an answer to the program's query can carry within
    /// [`Config::write_queue_bytes`](crate::Config::write_queue_bytes) (786,423 bytes by
    /// default); longer text is refused ([`Error::InvalidInput`]) and the clipboard left as
    /// it was.
    pub fn set_clipboard(&self, text: &str) -> Result<()> {
        let id = self.id;
        let text = text.to_owned();
        self.client.call_for(self.id, move |r| r.set_clipboard(id, text))
    }

    /// What the session is doing now (see [`Status`]).
    pub fn status(&self) -> Result<Status> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.status(id))
    }

    /// Resizes the terminal: the grid and the kernel's window size (the program gets
    /// SIGWINCH).
    pub fn resize(&self, cols: u16, rows: u16) -> Result<()> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.resize(id, cols, rows))
    }

    /// Information about the session.
    pub fn info(&self) -> Result<SessionInfo> {
        let id = self.id;
        self.client.call_for(self.id, move |r| r.info(id))
    }

    /// Closes the session: SIGHUP and SIGCONT, then (500 ms later, to what still runs) SIGTERM
    /// to every process group of it, SIGKILL after `Config::close_grace`, until no process of the session is left; then reaps the
    /// program and returns how it ended. Calling it again returns the same status. A file
    /// recording of the session is complete on disk when it returns (its writer is given up
    /// to 10 s).
    pub fn close(&self) -> Result<crate::ExitStatus> {
        let id = self.id;
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.client.submit_for(id, tx.into(), move |r, reply| r.close(id, reply))?;
        let status = rx.recv().map_err(|_| Error::EngineStopped)?;
        // Closing dropped the session's recorder; its file is complete once written.
        self.client.writers.wait(id);
        status
    }

    // ----- futures ---------------------------------------------------------------------

    /// [`Session::wait`] as a future: woken by the reactor when the wait ends (through the
    /// task's `std::task::Waker`), under any executor, with no thread of its own. Dropping the
    /// future before it completes cancels the wait.
    ///
    /// ```no_run
    /// # async fn run(session: termloom::Session) -> termloom::Result<()> {
    /// use std::time::Duration;
    /// let outcome = session.wait_async(termloom::Until::text("ready"), Duration::from_secs(10)).await?;
    /// # Ok(()) }
    /// ```
    pub fn wait_async(&self, until: Until, timeout: Duration) -> EngineFuture<WaitOutcome> {
        let (id, reader) = (self.id, self.reader);
        self.cancelled_on_drop(|reply| {
            let waiter = NEXT_WAIT.fetch_add(1, Ordering::Relaxed);
            self.client.submit_for(id, reply, move |r, reply| {
                r.wait(id, reader, until, timeout, waiter, reply)
            })?;
            Ok(waiter)
        })
    }

    /// [`Session::send_keys_and_wait`] as a future (see [`Session::wait_async`]): an async
    /// host types and waits without blocking its executor. Dropping it cancels the wait (a
    /// key still held back, below, is then not typed). As in the blocking call, Ctrl-C,
    /// Ctrl-\\ or Ctrl-Z alone, typed to a shell at its prompt, is typed once the shell is
    /// seen reading the terminal, at most [`PROMPT_READ_WAIT`] later (bash, signalled before
    /// it reads, draws no new prompt until the next key): the reactor holds it back, and
    /// neither it nor the executor waits.
    pub fn send_keys_and_wait_async(
        &self,
        script: &str,
        until: Until,
        timeout: Duration,
    ) -> EngineFuture<WaitOutcome> {
        let typing = parse_key_script(script).map(Typing::Keys).map_err(Into::into);
        self.type_and_wait_async(typing, until, timeout)
    }

    /// [`Session::send_bytes_and_wait`] as a future (see [`Session::wait_async`]); a lone
    /// Ctrl-C, Ctrl-\\ or Ctrl-Z byte waits for a shell at its prompt to read, as in
    /// [`Session::send_keys_and_wait_async`].
    pub fn send_bytes_and_wait_async(
        &self,
        bytes: &[u8],
        until: Until,
        timeout: Duration,
    ) -> EngineFuture<WaitOutcome> {
        self.type_and_wait_async(Ok(Typing::Bytes(bytes.to_vec())), until, timeout)
    }

    /// [`Session::submit_and_wait`] as a future (see [`Session::wait_async`]).
    pub fn submit_and_wait_async(
        &self,
        text: &str,
        until: Until,
        timeout: Duration,
    ) -> EngineFuture<WaitOutcome> {
        self.send_bytes_and_wait_async(&submitted(text), until, timeout)
    }

    /// [`Session::paste`] as a future (see [`Session::wait_async`]): a paste to a program that
    /// reads slowly waits for room without blocking the executor (at most the engine's
    /// `default_wait_timeout`). Dropping it ends the paste (what was queued stays queued).
    pub fn paste_async(&self, text: &str) -> EngineFuture<()> {
        self.cancelled_on_drop(|reply| self.send_paste(text, None, reply))
    }

    /// A read that waits: waits (as a future, see [`Session::wait_async`]) until `until` holds
    /// or `timeout` passes, then returns the outcome and what is new in the transcript (the
    /// read itself is one short request to the reactor). As the other futures, it is eager
    /// (the wait is in place when it is made), dropping it cancels the wait, and it owns what
    /// it needs (a clone of the handle): it is `Send`, `Sync` and `'static`, so it may be
    /// spawned on a multi-threaded runtime, the handle it came from dropped. Its wait
    /// searches the output from where the caller's read cursor stood when it was made: a
    /// [`Session::read`] made meanwhile takes that output, and the outcome can then name a
    /// match its own read no longer returns.
    pub fn read_async(
        &self,
        until: Until,
        timeout: Duration,
    ) -> impl Future<Output = Result<(WaitOutcome, Output)>> + Send + Sync + use<> {
        let wait = self.wait_async(until, timeout);
        let session = self.clone();
        async move {
            let outcome = wait.await?;
            Ok((outcome, session.read()?))
        }
    }

    /// [`Session::run_command`] as a future (see [`Session::wait_async`]). Dropping it does not
    /// stop the command; its result is discarded, and its output is left for the next
    /// [`Session::read`].
    pub fn run_command_async(&self, line: &str, timeout: Duration) -> EngineFuture<CommandResult> {
        let id = self.id;
        let line = line.to_owned();
        let (future, producer) = EngineFuture::new();
        let reply = Reply::Future(producer);
        let reader = self.reader;
        match self
            .client
            .submit_for(id, reply, move |r, reply| r.run_command(id, reader, &line, timeout, reply))
        {
            Ok(()) => future,
            Err(err) => EngineFuture::ready(Err(err)),
        }
    }

    /// [`Session::close`] as a future (see [`Session::wait_async`]). Dropping it does not stop
    /// the close. Unlike [`Session::close`] it does not wait for a file recording's last
    /// events to reach the disk (that would block the executor); [`Engine::shutdown`] does.
    ///
    /// [`Engine::shutdown`]: crate::Engine::shutdown
    pub fn close_async(&self) -> EngineFuture<crate::ExitStatus> {
        let id = self.id;
        let (future, producer) = EngineFuture::new();
        let reply = Reply::Future(producer);
        match self.client.submit_for(id, reply, move |r, reply| r.close(id, reply)) {
            Ok(()) => future,
            Err(err) => EngineFuture::ready(Err(err)),
        }
    }
}

/// A session's secret claimed for one caller ([`Session::claim_secret`]), let go when dropped
/// (whichever way the caller ends: answered, refused, cancelled, or in a panic).
pub(crate) struct SecretClaim {
    session: Session,
    number: u64,
}

impl SecretClaim {
    /// The claim's call has its turn on the session: from now on the secrets it refuses are
    /// told that a person is asked ([`PendingSecret::Person`](crate::PendingSecret::Person)),
    /// not that a call waits to ask ([`PendingSecret::Queued`](crate::PendingSecret::Queued)).
    pub(crate) fn asking(&self) -> Result<()> {
        let (id, number) = (self.session.id, self.number);
        self.session.client.call_for(id, move |r| {
            r.ask_secret(id, number);
            Ok(())
        })
    }

    /// Waits as [`Session::send_secret`] does for a program to read the terminal at a
    /// password prompt, on the same judgement and within the same bound, and answers as it
    /// would, typing nothing: `Ok` when a secret would be typed now. MCP's `terminal_send
    /// secret=true` looks so before it asks a person for the secret.
    pub(crate) fn await_reader(&self) -> Result<()> {
        self.session.secret_request(Vec::new(), None, (true, Some(self.number))).map(drop)
    }

    /// Types `secret` as [`Session::send_secret`] does, through the claim.
    pub(crate) fn send(&self, secret: &str) -> Result<()> {
        check_secret(secret)?;
        let secret = secret.as_bytes().to_vec();
        self.session.secret_request(secret, None, (false, Some(self.number))).map(drop)
    }
}

impl Drop for SecretClaim {
    fn drop(&mut self) {
        let (id, number) = (self.session.id, self.number);
        // (Not waited for; an engine that stopped has no claims left.)
        let _ = self.session.client.submit(Box::new(move |r| r.release_secret(id, number)));
    }
}

/// Refuses a secret [`Session::send_secret`] would not type: one with a line break, NUL or
/// other control character, or longer than [`MAX_SECRET_BYTES`]; the messages name no
/// secret.
pub(crate) fn check_secret(secret: &str) -> Result<()> {
    if secret.chars().any(char::is_control) {
        return Err(Error::InvalidInput(
            "a secret cannot contain a line break, NUL or other control character (a line break would end it early, and control characters are acted on by the terminal); nothing was typed".into(),
        ));
    }
    if secret.len() > MAX_SECRET_BYTES {
        return Err(Error::InvalidInput(format!(
            "a secret is at most {MAX_SECRET_BYTES} bytes, the longest line a terminal keeps (this one is longer: the terminal would cut it); nothing was typed"
        )));
    }
    Ok(())
}

/// `text` with its escapes decoded and a carriage return (Enter) after it.
pub(crate) fn submitted(text: &str) -> Vec<u8> {
    let mut bytes = decode_escapes(text);
    bytes.push(b'\r');
    bytes
}
