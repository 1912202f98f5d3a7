//! The one error type of termloom, with messages a person can act on.

use std::fmt;
use std::io;
use std::time::Duration;

use crate::types::SessionId;

/// Everything that can go wrong when driving sessions.
///
/// Every variant's `Display` says what happened and, where there is one, what to do about it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// No session with this id exists, nor did one.
    UnknownSession(SessionId),
    /// The session ended (its program exited, or it was closed) and was forgotten since:
    /// only the `kept` most recently ended sessions stay readable
    /// (`Config::max_closed_sessions`).
    SessionForgotten {
        /// The session.
        session: SessionId,
        /// How many ended sessions are kept.
        kept: usize,
    },
    /// The id is below the first this engine gives out: its sessions are numbered on from an
    /// earlier engine's, as a `termloom server` restarted on its socket numbers them on from
    /// the last server's, so the session was the earlier engine's and ended with it.
    SessionBeforeFirst {
        /// The session asked for.
        session: SessionId,
        /// The first id this engine gives out.
        first: SessionId,
    },
    /// The session was closed; it accepts no more input.
    SessionClosed(SessionId),
    /// The session's program has exited; it accepts no more input.
    SessionExited(SessionId),
    /// Writing these bytes would overflow the session's bounded write queue, or a paste is
    /// still waiting for room in it (nothing goes in before the paste).
    QueueFull {
        /// The session.
        session: SessionId,
        /// Bytes already waiting to be written (a paste's not yet queued included).
        queued: usize,
        /// Bytes the caller tried to add.
        attempted: usize,
        /// The queue's bound (`Config::write_queue_bytes`).
        capacity: usize,
    },
    /// A paste would take the pastes waiting for room in the session's input queue past their
    /// bound (`Config::paste_bytes`); nothing of it was queued.
    PasteTooLarge {
        /// The session.
        session: SessionId,
        /// Bytes of earlier pastes still waiting.
        waiting: usize,
        /// Bytes of this paste, as encoded.
        attempted: usize,
        /// The bound (`Config::paste_bytes`).
        capacity: usize,
    },
    /// The session has `Config::max_waits` waits pending already; the wait was refused (and
    /// nothing it would have typed was typed).
    TooManyWaits {
        /// The session.
        session: SessionId,
        /// The bound (`Config::max_waits`).
        limit: usize,
    },
    /// The caller's reader has `Config::max_waits_per_reader` waits pending on the session
    /// already; the wait was refused (and nothing it would have typed was typed). Other
    /// readers of the session can still wait.
    TooManyReaderWaits {
        /// The session.
        session: SessionId,
        /// The bound (`Config::max_waits_per_reader`).
        limit: usize,
    },
    /// A terminal size outside the accepted range.
    InvalidSize {
        /// Requested columns.
        cols: u16,
        /// Requested rows.
        rows: u16,
    },
    /// The program could not be started.
    Spawn {
        /// The program that was to run.
        program: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// A configuration value outside its allowed range.
    InvalidConfig {
        /// The offending field of [`Config`](crate::Config).
        field: &'static str,
        /// The rule it broke.
        message: String,
    },
    /// An argument that cannot be used (a bad regular expression, a malformed key script...).
    InvalidInput(String),
    /// A key script or key name that cannot be parsed.
    Key(crate::input::keys::KeyParseError),
    /// A mouse event that cannot be sent (mouse reporting off, position not encodable).
    Mouse(crate::input::mouse::MouseError),
    /// `Config::max_sessions` live sessions already exist.
    TooManySessions {
        /// The limit.
        limit: usize,
    },
    /// [`Session::run_command`](crate::Session::run_command), or a wait for
    /// [`Until::prompt`](crate::Until::prompt) alone, on a session that shows no
    /// shell-integration prompt marks (not a bash or zsh started with `shell_integration(true)`;
    /// one started so that has not drawn its first prompt yet is
    /// [`Error::NotAtPrompt`] to `run_command`).
    NoShellIntegration(SessionId),
    /// [`Session::run_command`](crate::Session::run_command) found the shell away from its
    /// prompt: running a command, or not yet at a prompt drawn after the last input or signal
    /// (nor at its first, just started; or its prompt lost the integration's marks). Keys
    /// typed at a prompt are no obstacle once the shell read them and waits with its command
    /// line empty again (`Ctrl-U` typed to clear it).
    NotAtPrompt {
        /// The session.
        session: SessionId,
        /// A command is running (rather than the prompt being late or unmarked).
        command_running: bool,
    },
    /// [`Session::run_command`](crate::Session::run_command)'s line was taken by the shell
    /// as the start of a longer command (an open quote, a here-document, a trailing
    /// backslash), so the shell waited for the rest; the line was abandoned with Ctrl-C and
    /// the shell is back at its prompt.
    CommandLineIncomplete(SessionId),
    /// A wait ended without its condition holding: the error of
    /// [`WaitOutcome::held`](crate::WaitOutcome::held), with the outcome. Its `fired` says
    /// what ended the wait (the timeout, a cancel, the program's exit before the condition
    /// held, the session's close), its `status` the session's state then, and its `screen`
    /// the screen when it timed out or was cancelled (`None` after an exit or a close). A
    /// plain [`Session::wait`](crate::Session::wait) returns such an outcome as `Ok`.
    WaitNotHeld(Box<crate::wait::WaitOutcome>),
    /// A wait's result did not arrive (the engine stopped while waiting).
    WaitAborted(Duration),
    /// A wait's own test ([`Until::screen_matches`](crate::Until::screen_matches) or
    /// [`Until::styled_screen_matches`](crate::Until::styled_screen_matches)) panicked: that wait ended; the
    /// session and the engine go on.
    WaitConditionPanicked {
        /// The condition, as it describes itself (a long description by its start and size).
        condition: String,
        /// The panic's message (held to about 2 KiB, its start and end kept).
        message: String,
    },
    /// A wait's regular expression could not be searched within its bound of work: its lazy
    /// DFA gave up on a line or screen row (a pattern of many positions whose states it cannot
    /// keep, as `[ab]*a[ab]{990}c` over random `a`s and `b`s), and either its matches have no
    /// longest length and the text left was longer than the search tracking every position
    /// at each byte takes (4 Mi positions times bytes: 4 KiB for a pattern of 1,000
    /// characters and classes), or they have one and its search in windows of twice that
    /// length spent the work one check of a line or row may (12 Mi units, each about a position tracked over a byte:
    /// `a[ab]{990}c` over 256 KiB, `error.{0,100}refused` over 1 MiB of log words), or the
    /// pattern has a Unicode word boundary (`\b`) and the line a non-ASCII byte, and its
    /// positions times the bytes left did not fit that work. Counted, not timed: the same
    /// pattern and text decide alike whatever the machine's load. That wait ended, as it
    /// could neither hold nor be told never to; the session goes on.
    WaitRegexUndecided {
        /// The condition, as it describes itself (a long description by its start and size).
        condition: String,
        /// The bytes of the line or row left to search.
        bytes: usize,
    },
    /// termloom's own code panicked while carrying out a request (a bug: please report it).
    /// When the request was for a session, that session was closed (its state may be
    /// inconsistent), with the panic in its `closed_reason`; the engine and every other
    /// session go on.
    RequestPanicked {
        /// The session the request was for, which was closed.
        session: Option<SessionId>,
        /// The panic's message.
        message: String,
    },
    /// The engine was shut down or dropped; no session can be used any more.
    EngineStopped,
    /// A paste did not all reach the program's input: it timed out or was cancelled while the
    /// program was not reading, or an interrupt dropped the input queued behind it. `sent` of
    /// its `total` bytes had been queued.
    PasteIncomplete {
        /// The session.
        session: SessionId,
        /// Bytes queued before it ended.
        sent: usize,
        /// Bytes of the encoded paste.
        total: usize,
        /// Why: `"timed out"`, `"was cancelled"` or `"was dropped by an interrupt"`.
        reason: &'static str,
    },
    /// [`Session::send_secret`](crate::Session::send_secret) found the terminal echoing, or
    /// not reading a line: nothing was typed.
    NotAtPasswordPrompt {
        /// The session.
        session: SessionId,
        /// Whether the terminal echoes typed characters.
        echo: bool,
        /// Whether it reads a line at a time.
        canonical: bool,
    },
    /// [`Session::send_secret`](crate::Session::send_secret) found the terminal (or one a
    /// program of the session relays to, a GNU screen window) at a password prompt, but no
    /// thread of its foreground group blocked reading it, for as long as it waited (2 s past
    /// `Config::input_settle`): the program turned echo off and went on working, or sleeps.
    /// Nothing was typed: the secret would have waited for whatever reads the terminal next,
    /// perhaps a shell that shows it or runs it.
    NoSecretReader {
        /// The session.
        session: SessionId,
        /// What the program does instead, as `/proc` tells it (its name and state).
        doing: String,
        /// How long the secret waited for a reader.
        waited: Duration,
    },
    /// [`Session::send_secret`](crate::Session::send_secret) found the session's terminal read
    /// by a relay that hosts more than one terminal (GNU screen's server with several windows,
    /// tmux's with several panes, one whose foreground group ended included): `/proc` cannot tell which
    /// of them the multiplexer shows, and it sends the keys to that one, whichever asked. Or by
    /// a relay whose open files termloom could not all look at (`terminals` is the
    /// [`RelayUnseen`] reason): what it hosts cannot be seen, and it is refused as one that
    /// hosts several. Nothing was typed.
    SecretThroughMultiplexer {
        /// The session.
        session: SessionId,
        /// The relay: its name and pid.
        relay: String,
        /// How many terminals it hosts, or why that could not be seen.
        terminals: std::result::Result<usize, RelayUnseen>,
    },
    /// [`Session::send_secret`](crate::Session::send_secret) was called while another secret
    /// for the same session waited for its program to read the terminal, or while MCP's
    /// `terminal_send secret=true` held the session's secret (queued for its turn behind its
    /// client's earlier call, looking whether one would be typed, or asking a person, until
    /// the person's is typed or the call ends; `by` says which): a password prompt reads one,
    /// and the second would go to whatever reads next. Nothing was typed, and no one was asked
    /// for it.
    SecretPending {
        /// The session.
        session: SessionId,
        /// What holds the session's secret: a secret waiting for its reader, a person being
        /// asked, or a call queued to ask one.
        by: PendingSecret,
    },
    /// The spawn policy (or the host's hook, or the person asked) refused a start: nothing
    /// was forked.
    SpawnDenied {
        /// What was to run.
        program: String,
        /// What decided (a rule's name, `default`, `guarded_env`, `hook`).
        rule: String,
        /// Why.
        reason: String,
    },
    /// A PNG screenshot would have more pixels than its bound
    /// ([`PngOptions::max_pixels`](crate::PngOptions::max_pixels)); nothing was drawn.
    ImageTooLarge {
        /// Its width in pixels, padding included.
        width: usize,
        /// Its height in pixels, padding included.
        height: usize,
        /// The bound.
        max_pixels: u64,
    },
    /// An operating-system call failed.
    Io {
        /// What termloom was doing.
        context: String,
        /// What the operating system said.
        source: io::Error,
    },
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What holds a session's secret when another is refused with [`Error::SecretPending`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PendingSecret {
    /// Another secret waits for its program to read the terminal.
    Reader,
    /// MCP's `terminal_send secret=true` asks a person for one, or looks whether the program
    /// reads the terminal before it asks.
    Person,
    /// MCP's `terminal_send secret=true` waits for its turn on the session (its client's
    /// earlier call there, a long wait, has not ended) before it looks and asks: no one is
    /// asked yet.
    Queued,
}

/// Why termloom could not see what a relay of a session's terminal hosts
/// ([`Error::SecretThroughMultiplexer`]): its open files were not all looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RelayUnseen {
    /// `/proc` did not show them: the relay runs as another user, or `/proc` (its mount
    /// options, a security module) hides them.
    Unreadable,
    /// It holds more open files than termloom looks at in one process (`limit`, 1,024).
    TooManyFiles {
        /// How many of one process's open files termloom looks at.
        limit: u64,
    },
    /// The look ran out of the open files it may read in all (`budget`, 4,096, across the
    /// session's processes and their relays) before it had read all of the relay's.
    BudgetSpent {
        /// How many open files one look reads in all.
        budget: usize,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }

    /// What went wrong as a stable, machine-readable name, for a program to tell errors
    /// apart without reading their messages (`termloom --json`'s `error.code`, an MCP tool
    /// error's `_meta`): `unknown_session`, `session_forgotten`, `session_closed`,
    /// `session_exited`, `queue_full`, `too_large`, `too_many_waits`, `invalid_input`,
    /// `program_not_found`, `invalid_cwd`, `spawn_failed`, `spawn_denied`, `invalid_config`,
    /// `too_many_sessions`, `no_shell_integration`, `not_at_prompt`, `command_incomplete` (the
    /// command line was left unfinished and abandoned: the shell is back at its prompt),
    /// `wait_not_held` (a wait's condition did not hold: [`crate::WaitOutcome::held`]),
    /// `wait_aborted`, `paste_incomplete`, `not_at_password_prompt`, `no_secret_reader`,
    /// `secret_through_multiplexer`, `secret_pending`, `engine_stopped`, `internal` (a bug) or
    /// `io`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownSession(_) => "unknown_session",
            Error::SessionForgotten { .. } | Error::SessionBeforeFirst { .. } => {
                "session_forgotten"
            }
            Error::SessionClosed(_) => "session_closed",
            Error::SessionExited(_) => "session_exited",
            Error::QueueFull { .. } => "queue_full",
            Error::PasteTooLarge { .. } | Error::ImageTooLarge { .. } => "too_large",
            Error::TooManyWaits { .. } | Error::TooManyReaderWaits { .. } => "too_many_waits",
            Error::InvalidSize { .. }
            | Error::InvalidInput(_)
            | Error::Key(_)
            | Error::Mouse(_) => "invalid_input",
            // From what failed, not from the kind alone: the working directory (termloom's
            // own check), the program (the system's "not found" or "not a directory" from
            // starting it), or anything else (a recording's file, the terminal...).
            Error::Spawn { source, .. }
                if source.get_ref().is_some_and(|inner| inner.is::<BadWorkingDir>()) =>
            {
                "invalid_cwd"
            }
            Error::Spawn { source, .. }
                if source.get_ref().is_none()
                    && matches!(
                        source.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                    ) =>
            {
                "program_not_found"
            }
            Error::Spawn { .. } => "spawn_failed",
            Error::SpawnDenied { .. } => "spawn_denied",
            Error::InvalidConfig { .. } => "invalid_config",
            Error::TooManySessions { .. } => "too_many_sessions",
            Error::NoShellIntegration(_) => "no_shell_integration",
            Error::NotAtPrompt { .. } => "not_at_prompt",
            Error::CommandLineIncomplete(_) => "command_incomplete",
            Error::WaitNotHeld(_) => "wait_not_held",
            Error::WaitAborted(_) => "wait_aborted",
            Error::PasteIncomplete { .. } => "paste_incomplete",
            Error::NotAtPasswordPrompt { .. } => "not_at_password_prompt",
            Error::NoSecretReader { .. } => "no_secret_reader",
            Error::SecretThroughMultiplexer { .. } => "secret_through_multiplexer",
            Error::SecretPending { .. } => "secret_pending",
            Error::EngineStopped => "engine_stopped",
            Error::WaitRegexUndecided { .. } => "regex_undecided",
            Error::WaitConditionPanicked { .. } | Error::RequestPanicked { .. } => "internal",
            Error::Io { .. } => "io",
        }
    }
}

/// Why a working directory cannot be used, the message of an [`Error::Spawn`] whose code is
/// `invalid_cwd` (told from a program's "not found" or "not a directory" by this type).
#[derive(Debug)]
pub(crate) struct BadWorkingDir(pub(crate) String);

impl fmt::Display for BadWorkingDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadWorkingDir {}

/// The most bytes of a caller's value an error repeats ([`quoted`]).
pub(crate) const SHOWN_BYTES: usize = 60;

/// `value` quoted for a message (`"vim"`), or, when longer than 60 bytes, its start and its
/// length (`"xxxx…" (3000000 bytes)`): a message repeats what a caller gave so that they can
/// find it in their call, never megabytes of it. Every message that names a caller's value
/// (the library's errors, the MCP tools') quotes it with this.
pub(crate) fn quoted(value: &str) -> String {
    cut(value).unwrap_or_else(|| format!("{value:?}"))
}

/// `value` as a field of an error's data repeats it: whole, or, when longer than 60 bytes, by
/// its start and its length as [`quoted`] gives them.
pub(crate) fn shown(value: &str) -> String {
    cut(value).unwrap_or_else(|| value.to_owned())
}

/// `value`'s start and length (`"xxxx…" (3000000 bytes)`) when it is longer than 60 bytes.
fn cut(value: &str) -> Option<String> {
    let start = &value[..value.floor_char_boundary(SHOWN_BYTES)];
    (value.len() > SHOWN_BYTES).then(|| format!("{start:?}… ({} bytes)", value.len()))
}

/// [`quoted`] for a value that need not be UTF-8 (a program, a path, an environment entry):
/// its start is shown lossily, its length in bytes as given.
pub(crate) fn quoted_os(value: &std::ffi::OsStr) -> String {
    let bytes = value.as_encoded_bytes();
    if bytes.len() <= SHOWN_BYTES {
        return format!("{value:?}");
    }
    let start = String::from_utf8_lossy(&bytes[..SHOWN_BYTES]);
    let start = start.trim_end_matches('\u{fffd}');
    format!("{start:?}… ({} bytes)", bytes.len())
}

/// What is wrong with a regular expression, without the expression: the `regex` crate's
/// message repeats it whole (with a caret under the fault), however long it is. (Here, among
/// the leaves, so that `policy` can say it without importing `wait.rs`, which imports `term/`.)
pub(crate) fn regex_problem(err: &regex::Error) -> String {
    let why = err.to_string();
    why.lines().last().unwrap_or_default().trim_start_matches("error: ").to_owned()
}

/// The longest message an [`Error`] shows, and an MCP tool's error ([`bound_message`]).
pub(crate) const MAX_MESSAGE_BYTES: usize = 2048;
/// How much of the start of a longer message is kept ([`bound_message`]); the end keeps the
/// rest of [`MAX_MESSAGE_BYTES`].
const MESSAGE_HEAD_BYTES: usize = 1400;

/// Holds a message to [`MAX_MESSAGE_BYTES`]: one that repeats megabytes a caller gave (a
/// program name, a pattern, a path, named in a message built elsewhere) keeps its start,
/// which says what is wrong, and its end, which says what to do, and says how much it left
/// out.
pub(crate) fn bound_message(message: &mut String) {
    if message.len() <= MAX_MESSAGE_BYTES {
        return;
    }
    let head = message.floor_char_boundary(MESSAGE_HEAD_BYTES);
    let tail = message.ceil_char_boundary(message.len() - (MAX_MESSAGE_BYTES - MESSAGE_HEAD_BYTES));
    *message = format!(
        "{}[… {} bytes of this message left out …]{}",
        &message[..head],
        tail - head,
        &message[tail..]
    );
}

/// Every message is held to about 2 KiB, its start and its advice kept, whatever a caller's
/// value it carries; the values an error names itself are shown by their start and size when
/// long.
// (`MAX_MESSAGE_BYTES`, `bound_message` and `quoted`, which public documentation cannot link.)
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut message = Whole(self).to_string();
        bound_message(&mut message);
        f.write_str(&message)
    }
}

/// An error's message before it is bounded.
struct Whole<'a>(&'a Error);

impl fmt::Display for Whole<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Error::UnknownSession(id) => write!(
                f,
                "unknown session {id}: no such session exists (list the sessions to see the live ones)"
            ),
            Error::SessionForgotten { session, kept } => write!(
                f,
                "session {session} ended and was forgotten: only the {kept} most recently ended sessions are kept (Config::max_closed_sessions); read a session before that many more end, or raise the bound"
            ),
            Error::SessionBeforeFirst { session, first } => write!(
                f,
                "session {session} was an earlier server's, which ended with it: this one numbers its sessions from {first} (list the sessions to see the live ones)"
            ),
            Error::SessionClosed(id) => write!(f, "session {id} is closed; start a new session"),
            Error::SessionExited(id) => write!(
                f,
                "session {id} has exited and accepts no input; read its output or close it"
            ),
            Error::QueueFull { session, queued, attempted, capacity } => write!(
                f,
                "write queue of session {session} is full: {queued} bytes are waiting and {attempted} more would exceed the bound of {capacity} bytes; wait for the program to read its input, or send less at once"
            ),
            Error::PasteTooLarge { session, waiting, attempted, capacity } => write!(
                f,
                "the paste to session {session} is {attempted} bytes and {waiting} bytes of pastes already wait for the program to read; pastes waiting are bounded at {capacity} bytes (Config::paste_bytes): paste in smaller parts as the program reads them"
            ),
            Error::TooManyWaits { session, limit } => write!(
                f,
                "session {session} has {limit} waits pending, its bound (Config::max_waits); nothing was typed: wait for one to end, or cancel one, before starting another"
            ),
            Error::TooManyReaderWaits { session, limit } => write!(
                f,
                "this caller has {limit} waits pending on session {session}, its bound for one reader (Config::max_waits_per_reader); nothing was typed: wait for one to end, or cancel one, before starting another"
            ),
            Error::InvalidSize { cols, rows } => write!(
                f,
                "invalid terminal size {cols}x{rows}: columns must be {}..={} and rows {}..={}",
                crate::types::MIN_COLS,
                crate::types::MAX_COLS,
                crate::types::MIN_ROWS,
                crate::types::MAX_ROWS
            ),
            // The system's own "not found" from starting the program; a message of
            // termloom's with that kind (a recording's missing directory) says what it is.
            Error::Spawn { program, source }
                if source.kind() == io::ErrorKind::NotFound
                    && source.get_ref().is_none()
                    && !program.contains(['/', ' ', '\t']) =>
            {
                write!(f, "cannot start {}: no such program in PATH ({source})", quoted(program))
            }
            Error::Spawn { program, source } => {
                write!(f, "cannot start {}: {source}", quoted(program))
            }
            Error::InvalidConfig { field, message } => {
                write!(f, "invalid configuration: {field} {message}")
            }
            Error::InvalidInput(message) => write!(f, "invalid input: {message}"),
            Error::Key(err) => write!(f, "{err}"),
            Error::Mouse(err) => write!(f, "{err}"),
            Error::TooManySessions { limit } => write!(
                f,
                "too many sessions: {limit} are live (max_sessions); close one before starting another"
            ),
            Error::NoShellIntegration(session) => write!(
                f,
                "session {session} shows no shell integration prompt marks, so there is no prompt to wait for or to run a command at; start bash or zsh with shell_integration(true) (or wait for its first prompt), or wait for something else (text, input wait)"
            ),
            Error::NotAtPrompt { session, command_running: true } => write!(
                f,
                "the shell of session {session} is not at its prompt (a command is running); wait for Until::prompt() first"
            ),
            Error::NotAtPrompt { session, command_running: false } => write!(
                f,
                "the shell of session {session} is not at its prompt (it has drawn no marked prompt since it started or since its last command, input or signal: it may still be starting or answering them, or its prompt lost termloom's marks when PS1 was replaced or another shell was started); wait for Until::prompt() first, or start a new session"
            ),
            Error::CommandLineIncomplete(session) => write!(
                f,
                "the shell of session {session} took the command line as the start of a longer command (an open quote, a here-document or a trailing backslash) and waited for the rest; it was abandoned with Ctrl-C: complete the line, or write the commands to a script and run that"
            ),
            Error::WaitNotHeld(outcome) => {
                let advice = match outcome.fired {
                    crate::wait::Fired::Timeout => {
                        "wait longer, or for what the program shows (the error holds the outcome and the screen at the timeout)"
                    }
                    crate::wait::Fired::Cancelled => {
                        "the wait was cancelled (the error holds the outcome and the screen then)"
                    }
                    crate::wait::Fired::Exited { .. } => {
                        "the program ended first: wait for what it shows before it ends, or for its exit (Until::exit)"
                    }
                    crate::wait::Fired::Closed => "the session was closed while it waited",
                    crate::wait::Fired::Matched(_) => "the error holds the outcome",
                };
                write!(f, "the wait's condition did not hold: {outcome}; {advice}")
            }
            Error::WaitAborted(after) => {
                write!(f, "the wait was aborted after {after:?} because the engine stopped")
            }
            Error::WaitConditionPanicked { condition, message } => write!(
                f,
                "the wait's condition {condition} panicked ({message}); that wait ended, the session goes on: fix the test, or return false where it cannot decide"
            ),
            Error::WaitRegexUndecided { condition, bytes } => write!(
                f,
                "the wait's condition {condition} could not be searched within its bound of work ({bytes} bytes of a line or row left): that wait ended, the session goes on; match a shorter part of the text, with fewer counted repetitions ([ab]{{20}} rather than [ab]{{990}}), and for a word boundary over text that is not all ASCII, ASCII's ((?-u:\\b) for \\b), which is searched without tracking each position"
            ),
            Error::RequestPanicked { session: Some(session), message } => write!(
                f,
                "termloom failed on a request for session {session} ({message}; a bug, please report it): that session was closed, the engine and other sessions go on"
            ),
            Error::RequestPanicked { session: None, message } => write!(
                f,
                "termloom failed on a request ({message}; a bug, please report it): the engine and its sessions go on"
            ),
            Error::EngineStopped => write!(f, "the termloom engine has been shut down"),
            Error::PasteIncomplete { session, sent, total, reason } => write!(
                f,
                "the paste to session {session} {reason} after {sent} of its {total} bytes were queued: the program is not reading its input (interrupt it with a signal, or read its screen)"
            ),
            Error::NoSecretReader { session, doing, waited } => write!(
                f,
                "session {session} is at a password prompt, but its program did not read the terminal within {waited:.1?} ({doing}): the secret would wait there for whatever reads it next; the secret was not typed (send it once the program waits for the password)"
            ),
            Error::SecretThroughMultiplexer { session, relay, terminals: Ok(terminals) } => {
                write!(
                    f,
                    "session {session}'s keys go through {relay}, which hosts {terminals} terminals (windows or panes): termloom cannot tell which one it shows and sends the keys to, so the secret could reach another window than the one asking, which may show it (switching to the window that asks is no help: it cannot be seen); the secret was not typed (close the multiplexer's other windows so that it hosts only the one asking, or run the program outside the multiplexer, or have a person type the secret)"
                )
            }
            Error::SecretThroughMultiplexer { session, relay, terminals: Err(unseen) } => {
                let (why, remedy) = match unseen {
                    RelayUnseen::Unreadable => (
                        "could not all read in /proc (it runs as another user, or /proc hides them)".to_owned(),
                        format!("run termloom as {relay}'s user"),
                    ),
                    RelayUnseen::TooManyFiles { limit } => (
                        format!("did not all read: it holds more than {limit}, the most termloom looks at in one process"),
                        format!("have {relay} hold fewer open files"),
                    ),
                    RelayUnseen::BudgetSpent { budget } => (
                        format!("did not all read: its look at the session's processes had read {budget} open files in all, the most one look reads, before it had read all of {relay}'s"),
                        "have the session's processes hold fewer open files".to_owned(),
                    ),
                };
                write!(
                    f,
                    "session {session}'s keys go through {relay}, whose open files termloom {why}: what it relays to cannot be seen, so which terminal would get the secret, and whether another window could show it, cannot be told, and termloom refuses it; the secret was not typed (run the program outside {relay}, or {remedy}, or have a person type the secret)"
                )
            }
            Error::SecretPending { session, by } => {
                let (asked, whom) = match by {
                    PendingSecret::Reader => (
                        "being asked",
                        "another call's secret waits for its program to read the terminal",
                    ),
                    PendingSecret::Person => (
                        "being asked",
                        "another call asks a person for one (or looks whether the program reads the terminal, to ask)",
                    ),
                    PendingSecret::Queued => (
                        "claimed",
                        "another call will ask a person for one once its client's earlier call on the session ends (no one is asked yet)",
                    ),
                };
                write!(
                    f,
                    "a secret is already {asked} for session {session}: {whom}, and a password prompt reads one; this secret was not typed, and no one was asked for it (call again once the other call is answered, if the program still asks)"
                )
            }
            Error::NotAtPasswordPrompt { session, echo, canonical } => write!(
                f,
                "session {session} is not at a password prompt ({}): the secret was not typed; wait until the program asks for a password (its status says it waits for a password), then send it",
                match (echo, canonical) {
                    (true, _) => "the terminal echoes what is typed",
                    (false, false) => "the terminal reads keys, not a line",
                    (false, true) => "the terminal cannot be read",
                }
            ),
            Error::SpawnDenied { program, rule, reason } => write!(
                f,
                "starting {} was denied by the spawn policy ({rule}): {reason}; nothing was started",
                quoted(program)
            ),
            Error::ImageTooLarge { width, height, max_pixels } => write!(
                f,
                "the PNG would be {width}×{height} pixels, over its bound of {max_pixels} (PngOptions::max_pixels); use a smaller scale or padding, or an SVG, or raise the bound"
            ),
            Error::Io { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

/// Every message already says what its cause said (`cannot start "x": No such file or
/// directory`), so no error names a `source()` too: a report that walks the chain (`anyhow`)
/// would print the cause twice. The cause itself is in the variant's fields.
impl std::error::Error for Error {}

impl From<crate::input::keys::KeyParseError> for Error {
    fn from(err: crate::input::keys::KeyParseError) -> Self {
        Error::Key(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each error has a machine-readable code, the same for a kind of error.
    #[test]
    fn a_code_names_what_went_wrong() {
        let missing = io::Error::from(io::ErrorKind::NotFound);
        let err = Error::Spawn { program: "nosuchprog".into(), source: missing };
        assert_eq!(err.code(), "program_not_found");
        assert_eq!(Error::UnknownSession(SessionId(3)).code(), "unknown_session");
        assert_eq!(Error::InvalidInput("row 99".into()).code(), "invalid_input");
    }

    /// A relay whose open files could not be read is refused for what is true: what it hosts
    /// could not be seen. It was said to host "an unknown number of terminals (windows or
    /// panes)", as if it were a multiplexer seen with several.
    #[test]
    fn a_relay_that_cannot_be_seen_is_refused_for_that() {
        let relay = |terminals| Error::SecretThroughMultiplexer {
            session: SessionId(4),
            relay: "screen (pid 77)".into(),
            terminals,
        };
        let unseen = relay(Err(RelayUnseen::Unreadable)).to_string();
        assert!(!unseen.contains("unknown number"), "{unseen}");
        assert!(!unseen.contains("hosts"), "{unseen}");
        assert!(
            unseen.starts_with(
                "session 4's keys go through screen (pid 77), whose open files termloom could not all read in /proc"
            ),
            "{unseen}"
        );
        assert!(unseen.contains("the secret was not typed"), "{unseen}");
        let seen = relay(Ok(3)).to_string();
        assert!(seen.contains("which hosts 3 terminals (windows or panes)"), "{seen}");
        assert_eq!(relay(Err(RelayUnseen::Unreadable)).code(), "secret_through_multiplexer");
    }

    /// A relay whose open files were not all read for their number (more than one process's
    /// 1,024, or the look's 4,096 in all) is refused for that, not as one that runs as
    /// another user or that /proc hides (which it does not: running as its user is no help).
    #[test]
    fn a_relay_with_too_many_open_files_is_refused_for_that() {
        let relay = |unseen| {
            Error::SecretThroughMultiplexer {
                session: SessionId(4),
                relay: "python3 (pid 77)".into(),
                terminals: Err(unseen),
            }
            .to_string()
        };
        let many = relay(RelayUnseen::TooManyFiles { limit: 1024 });
        let spent = relay(RelayUnseen::BudgetSpent { budget: 4096 });
        for said in [&many, &spent] {
            assert!(!said.contains("another user"), "{said}");
            assert!(!said.contains("hides them"), "{said}");
            assert!(!said.contains("run termloom as"), "{said}");
            assert!(said.contains("the secret was not typed"), "{said}");
        }
        assert!(
            many.contains("it holds more than 1024, the most termloom looks at in one process"),
            "{many}"
        );
        assert!(spent.contains("had read 4096 open files in all"), "{spent}");
    }

    /// A command line left unfinished was abandoned with Ctrl-C: the shell is back at its
    /// prompt, so the code is not `not_at_prompt` (waiting for the prompt would not help).
    #[test]
    fn an_abandoned_command_line_has_its_own_code() {
        assert_eq!(Error::CommandLineIncomplete(SessionId(1)).code(), "command_incomplete");
        let running = Error::NotAtPrompt { session: SessionId(1), command_running: true };
        assert_eq!(running.code(), "not_at_prompt");
    }

    /// A failed start is classified by what failed, not by its io kind alone: the program's
    /// "not a directory" from exec is no working directory's, and a "not found" of termloom's
    /// own (a recording's missing directory) is no missing program.
    #[test]
    fn a_failed_start_is_classified_by_what_failed() {
        let spawn = |source| Error::Spawn { program: "x".into(), source };
        let exec = io::Error::from_raw_os_error(libc::ENOTDIR);
        assert_eq!(spawn(exec).code(), "program_not_found");
        let exec = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(spawn(exec).code(), "program_not_found");
        let recording = io::Error::new(io::ErrorKind::NotFound, "cannot create the recording");
        assert_eq!(spawn(recording).code(), "spawn_failed");
        let cwd =
            crate::os::spawn::resolve_cwd(&crate::Config::default(), Some("/etc/passwd".as_ref()))
                .expect_err("a file is no directory");
        assert_eq!(
            cwd.to_string(),
            "working directory \"/etc/passwd\" does not exist or is not a directory"
        );
        assert_eq!(spawn(cwd).code(), "invalid_cwd");
        let denied = io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(spawn(denied).code(), "spawn_failed");
    }

    /// A report that walks the chain prints each cause once: the message holds it.
    #[test]
    fn a_cause_is_said_once() {
        let missing = io::Error::new(io::ErrorKind::NotFound, "No such file or directory");
        let err = Error::Spawn { program: "/bin/x".into(), source: missing };
        assert_eq!(err.to_string(), "cannot start \"/bin/x\": No such file or directory");
        assert!(std::error::Error::source(&err).is_none());
    }

    /// A message built elsewhere with a caller's megabytes in it is held to
    /// [`MAX_MESSAGE_BYTES`], its start (what is wrong) and end (what to do) kept; the values
    /// an error names itself are shown by their start and size.
    #[test]
    fn a_message_is_bounded_and_keeps_its_start_and_end() {
        let huge = "é".repeat(1 << 20);
        let err = Error::InvalidInput(format!("bad thing {huge}; do this instead"));
        let message = err.to_string();
        assert!(message.len() <= MAX_MESSAGE_BYTES + 64, "{}", message.len());
        assert!(message.starts_with("invalid input: bad thing éé"), "{message}");
        assert!(message.ends_with("éé; do this instead"), "{message}");
        assert!(message.contains("bytes of this message left out"), "{message}");
        let err = Error::Spawn { program: huge.clone(), source: io::Error::other("no") };
        let message = err.to_string();
        assert!(message.len() < 200, "{message}");
        assert!(message.ends_with("… (2097152 bytes): no"), "{message}");
        let err = Error::SpawnDenied { program: huge, rule: "default".into(), reason: "no".into() };
        assert!(err.to_string().len() < 200, "{err}");
        // Short values are quoted whole, as before.
        assert_eq!(quoted("vim"), "\"vim\"");
        assert_eq!(quoted_os(std::ffi::OsStr::new("a\0b")), "\"a\\0b\"");
    }
}
