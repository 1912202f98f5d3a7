//! A testing kit for TUI authors: deterministic sessions, waits that fail readably, a screen
//! format for [`insta`] snapshots, and redactions for what changes from run to run.
//!
//! Enable it in the crate that tests a terminal program:
//!
//! ```toml
//! [dev-dependencies]
//! # termloom is not on crates.io yet: depend on the repository (or a local clone with `path`).
//! termloom = { git = "https://github.com/termloom/termloom", features = ["testing"] }
//! insta = "1.49"
//! ```
//!
//! A test starts the program with [`TestSession::builder`], presses keys, waits for what the
//! program shows and asserts the screen with [`assert_screen_snapshot!`]. Snapshots go to the
//! `snapshots/` folder at the root of the crate that runs the test (`<test file>__<name>.snap`);
//! review them with `cargo insta review`.
//!
//! ```no_run
//! use termloom::assert_screen_snapshot;
//! use termloom::testing::TestSession;
//!
//! #[test]
//! fn picks_the_second_item() {
//!     // The binary this package builds, in an 80x24 terminal with a fixed environment.
//!     let app = TestSession::builder(env!("CARGO_BIN_EXE_todo")).start();
//!     app.wait_for_screen_text("> Buy milk").wait_stable();
//!     app.send_keys("j");
//!     app.wait_for_screen_text("> Write tests").wait_stable();
//!     assert_screen_snapshot!("second_item", app); // snapshots/ui__second_item.snap
//!     app.send_keys("<Enter>");
//!     assert!(app.wait_for_exit().success());
//! }
//! ```
//!
//! The screen as a snapshot stores it ([`TestSession::snapshot`] gives the same text):
//!
//! ```
//! use termloom::testing::TestSession;
//! # // Needs bash: skipped where it is missing, except under CI, which installs it.
//! # if std::process::Command::new("bash").arg("-c").arg("true").status().is_err() {
//! #     assert!(std::env::var_os("CI").is_none(), "CI must install bash");
//! #     return;
//! # }
//!
//! // bash with no startup files and the prompt `$ `, HOME in a fresh temporary directory,
//! // TERM=xterm-256color, LANG=C.UTF-8 and TZ=UTC; here in a 30x4 terminal.
//! let sh = TestSession::bash().size(30, 4).start();
//! sh.type_line("echo $((6 * 7))");
//! sh.wait_for_row(1, "42").wait_for_row(2, "$").wait_stable();
//! assert_eq!(
//!     sh.snapshot(),
//!     "\
//! screen: 30x4, primary
//! cursor: row 2, col 2, visible
//! title: none
//!    ┌──────────────────────────────┐
//!  0 │$ echo $((6 * 7))
//!  1 │42
//!  2 │$
//!    ┆  ^
//!  3 │
//!    └──────────────────────────────┘
//! "
//! );
//! ```
//!
//! # What a session is given
//!
//! [`TestSessionBuilder::start`] runs the program under a terminal of 80 columns and 24 rows
//! (see [`TestSessionBuilder::size`]) with an environment that does not depend on the machine
//! or the person running the tests:
//!
//! - the host's variables are all removed except `PATH`, `USER`, `LOGNAME`, `TMPDIR` and those
//!   that locate toolchains (`PYENV_ROOT`, `CARGO_HOME`...; see
//!   [`TestSessionBuilder::keep_env`]);
//! - `HOME` is a fresh temporary directory, removed when the session is dropped, and the
//!   `XDG_*` directories are inside it, so no user startup file is read; its path,
//!   `/tmp/termloom-home-PPPPPPP-NNNN`, has the same length in every run and on every machine
//!   (it does not depend on `TMPDIR`);
//! - `TERM=xterm-256color`, `COLORTERM=truecolor` (programs may use 24-bit colours, which
//!   [`TestSession::with_styles`] snapshots show), `LANG=C.UTF-8`, `LC_ALL=C.UTF-8`, `TZ=UTC`,
//!   `SHELL=/bin/sh`, `INPUTRC` naming an empty file, `LESSHISTFILE=-`, `HISTFILE` in `HOME`;
//! - the working directory is the temporary `HOME` (see [`TestSessionBuilder::cwd`]).
//!
//! [`TestSessionBuilder::env`] and [`TestSessionBuilder::env_remove`] change any of it.
//!
//! # Waits
//!
//! Every `wait_for_*` method blocks until its condition holds and panics otherwise, after
//! [`DEFAULT_TIMEOUT`] or [`TestSessionBuilder::timeout`], with the screen and the last lines
//! of the transcript in the message. Never sleep in a test; instead:
//!
//! - after each key, wait for what it changes: a text ([`TestSession::wait_for_screen_text`],
//!   [`TestSession::wait_for_row`]) or, when only the cursor moves, the cursor
//!   ([`TestSession::wait_for_cursor`]); then, before a snapshot, for the screen to settle
//!   ([`TestSession::wait_stable`]). A stable wait alone can hold before the program has even
//!   read the key;
//! - type a line only once the program's prompt for it is drawn: a line typed while the program
//!   is still busy with the previous one is echoed by the terminal, then again by the program.
//!
//! # The snapshot format
//!
//! [`format_screen`] shows what a person sees and what a reviewer must notice (above): a header
//! with the size, the screen (primary, or alternate as full-screen programs use), the cursor's
//! position and visibility and the window title; then every row.
//!
//! The frame's top and bottom rules are exactly as wide as the terminal. Rows are numbered
//! from 0, as [`Until::screen_row_contains`] counts them. Trailing blanks are not printed,
//! except where they matter: the `^` line under the cursor's row points at the cursor's
//! column when the cursor is visible, so a cursor after a prompt's space is seen.
//!
//! Colours and attributes are left out unless asked for: snapshot
//! [`TestSession::with_styles`] to add a `styles:` section ([`format_styled_screen`]) listing
//! every run of cells that is not in the default colours, which shows a selection drawn in
//! reverse video or a highlighted search match (and trailing blanks that carry a colour).
//!
//! # Redactions
//!
//! [`Redactions`] replaces what changes between runs (clock times, pids, durations, addresses,
//! the temporary `HOME`) with placeholders such as `[TIME]`, through insta's filters. Every
//! session redacts its own `HOME` as `[HOME]`; add more with [`TestSessionBuilder::redact`].

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::{
    Config, Engine, ExitStatus, Fired, Screen, Session, SpawnSpec, StyledScreen, Until, WaitOutcome,
};

/// insta, re-exported for [`assert_screen_snapshot!`] and for [`snapshot_settings`]'s users.
pub use insta;

/// How long a wait may take before it fails the test: generous, since a wait returns as soon
/// as its condition holds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the screen must stay unchanged for [`TestSession::wait_stable`].
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(200);

/// How long a program may wait for input with its screen unchanged before a wait that has
/// not held fails ([`TestSessionBuilder::stuck_after`]): nothing will change until the test
/// types.
pub const DEFAULT_STUCK_AFTER: Duration = Duration::from_secs(2);

/// The condition a stuck wait reports (see [`TestSession::wait_until`]).
const STUCK: &str = "stuck: waiting for input, screen unchanged";

/// The terminal size of a test session unless [`TestSessionBuilder::size`] says otherwise:
/// 80 columns, 24 rows.
pub const DEFAULT_SIZE: (u16, u16) = (80, 24);

/// Transcript lines quoted in a failed wait's message.
const TRANSCRIPT_LINES: usize = 20;

/// Host variables a test session keeps: they say where programs are, not how they look.
const KEPT_ENV: &[&str] = &[
    "PATH",
    "USER",
    "LOGNAME",
    "TMPDIR",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "VIRTUAL_ENV",
    "LD_LIBRARY_PATH",
];

/// The value of `result`, or a panic with `message(error)` located at the caller's caller
/// (a `#[track_caller]` method's own caller: the test's line). A panic inside a closure such
/// as `unwrap_or_else(|e| panic!(..))` would name the closure's line in this file instead,
/// since closures do not inherit `#[track_caller]`.
#[track_caller]
fn or_panic<T, E>(result: Result<T, E>, message: impl FnOnce(E) -> String) -> T {
    match result {
        Ok(value) => value,
        Err(e) => panic!("{}", message(e)),
    }
}

/// A temporary home directory, removed when dropped.
#[derive(Debug)]
struct TempHome {
    path: PathBuf,
}

/// Homes made by this process, to name the next one.
static HOMES: AtomicU32 = AtomicU32::new(0);

impl TempHome {
    /// Makes a new empty directory in `/tmp` (the system's temporary directory where there is
    /// no writable `/tmp`). The path has a fixed length (`/tmp/`, then pid and counter
    /// zero-padded), so a program that prints it wraps and cuts its lines the same way in
    /// every run and on every machine: not under `TMPDIR`, whose length differs between a
    /// developer's machine and CI.
    fn create() -> std::io::Result<TempHome> {
        let tmp = Path::new("/tmp");
        let base = match rustix::fs::access(
            tmp,
            rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
        ) {
            Ok(()) if tmp.is_dir() => tmp.to_path_buf(),
            _ => std::env::temp_dir(),
        };
        let pid = std::process::id() % 10_000_000;
        loop {
            let n = HOMES.fetch_add(1, Ordering::Relaxed) % 10_000;
            let path = base.join(format!("termloom-home-{pid:07}-{n:04}"));
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    let path = path.canonicalize()?;
                    return Ok(TempHome { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The kit's fixed environment, which makes programs behave the same on every machine.
fn fixed_env(home: &Path) -> [(&'static str, OsString); 14] {
    [
        ("HOME", home.into()),
        ("TERM", "xterm-256color".into()),
        ("COLORTERM", "truecolor".into()),
        ("LANG", "C.UTF-8".into()),
        ("LC_ALL", "C.UTF-8".into()),
        ("TZ", "UTC".into()),
        ("SHELL", "/bin/sh".into()),
        ("INPUTRC", home.join(".inputrc").into()),
        ("LESSHISTFILE", "-".into()),
        ("HISTFILE", home.join(".bash_history").into()),
        ("XDG_CONFIG_HOME", home.join(".config").into()),
        ("XDG_DATA_HOME", home.join(".local/share").into()),
        ("XDG_STATE_HOME", home.join(".local/state").into()),
        ("XDG_CACHE_HOME", home.join(".cache").into()),
    ]
}

/// Builds a [`TestSession`]: the program, its arguments, files to put in its temporary `HOME`,
/// environment overrides, size, timeouts and redactions.
///
/// Made by [`TestSession::builder`] or [`TestSession::bash`]; [`TestSessionBuilder::start`]
/// starts the session. The temporary `HOME` exists from the moment the builder is made, so
/// files can be written into it ([`TestSessionBuilder::file`]) and its path given to the
/// program ([`TestSessionBuilder::home`]).
#[derive(Debug)]
#[must_use = "a builder does nothing until `start` is called"]
pub struct TestSessionBuilder {
    /// The program, its arguments, size, working directory and the kit's fixed environment
    /// with the caller's entries over it.
    spec: SpawnSpec,
    keep_env: Vec<String>,
    timeout: Duration,
    settle: Duration,
    stuck_after: Option<Duration>,
    config: Config,
    redactions: Redactions,
    ready: Vec<Until>,
    redact_pid: bool,
    snapshot_folder: SnapshotFolder,
    home: TempHome,
}

/// Where [`assert_screen_snapshot!`] stores a session's snapshots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotFolder {
    /// The crate's top-level `snapshots/` folder (the default).
    #[default]
    CrateRoot,
    /// Where insta puts snapshots by default (`snapshots/` beside the test file, so
    /// `tests/snapshots/` for integration tests) and in the insta settings in effect: one
    /// folder with the crate's other insta snapshots, such as `TestBackend` ones.
    Insta,
}

impl TestSessionBuilder {
    /// A builder for `program` (looked up in `PATH` unless it has a slash), with a fresh
    /// temporary `HOME`.
    ///
    /// # Panics
    ///
    /// When the temporary directory cannot be made.
    #[track_caller]
    pub fn new(program: impl AsRef<OsStr>) -> TestSessionBuilder {
        let home = or_panic(TempHome::create(), |e| {
            format!("termloom: cannot make a temporary HOME: {e}")
        });
        if let Err(e) = std::fs::write(home.path.join(".inputrc"), "") {
            panic!("termloom: cannot write {}/.inputrc: {e}", home.path.display());
        }
        let (cols, rows) = DEFAULT_SIZE;
        let mut spec = SpawnSpec::new(program).size(cols, rows).cwd(&home.path);
        for (name, value) in fixed_env(&home.path) {
            spec = spec.env(name, value);
        }
        TestSessionBuilder {
            spec,
            keep_env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            settle: DEFAULT_SETTLE,
            stuck_after: Some(DEFAULT_STUCK_AFTER),
            config: Config::default(),
            redactions: Redactions::new(),
            ready: Vec::new(),
            redact_pid: false,
            snapshot_folder: SnapshotFolder::default(),
            home,
        }
    }

    /// Where this session's snapshots go (the crate's `snapshots/` folder by default).
    pub fn snapshot_folder(mut self, folder: SnapshotFolder) -> Self {
        self.snapshot_folder = folder;
        self
    }

    /// The temporary `HOME` the session will have (it exists already).
    pub fn home(&self) -> &Path {
        &self.home.path
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.spec = self.spec.arg(arg);
        self
    }

    /// Appends several arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.spec = self.spec.args(args);
        self
    }

    /// Sets an environment variable, over the kit's fixed environment.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.spec = self.spec.env(key, value);
        self
    }

    /// Removes an environment variable, even one the kit sets.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.spec = self.spec.env_remove(key);
        self
    }

    /// Keeps one more of the host's variables (by default only `PATH`, `USER`, `LOGNAME`,
    /// `TMPDIR` and toolchain locations are kept).
    pub fn keep_env(mut self, key: impl Into<String>) -> Self {
        self.keep_env.push(key.into());
        self
    }

    /// Sets the terminal size in columns and rows (default 80x24).
    pub fn size(mut self, cols: u16, rows: u16) -> Self {
        self.spec = self.spec.size(cols, rows);
        self
    }

    /// Sets the working directory: a relative path is taken inside the temporary `HOME`
    /// (the default working directory).
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.spec = self.spec.cwd(self.home.path.join(dir));
        self
    }

    /// Sets how long each wait may take before it fails the test (default
    /// [`DEFAULT_TIMEOUT`]; `Duration::MAX`: until its condition holds).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets how long the screen must stay unchanged for [`TestSession::wait_stable`] (default
    /// [`DEFAULT_SETTLE`]).
    pub fn settle(mut self, settle: Duration) -> Self {
        self.settle = settle;
        self
    }

    /// Sets how long a program may wait for input with an unchanged screen and no output
    /// before a wait that has not held fails at once instead of at its timeout (default
    /// [`DEFAULT_STUCK_AFTER`]; `None`: only the timeout ends a wait). A busy program (not
    /// reading the terminal) is never taken as stuck.
    pub fn stuck_after(mut self, grace: Option<Duration>) -> Self {
        self.stuck_after = grace;
        self
    }

    /// Sets the engine's configuration (its `cols` and `rows` are overridden by
    /// [`TestSessionBuilder::size`]).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Writes a file into the temporary `HOME` now (`path` relative to it; parent directories
    /// are made): a document to open, a configuration file the program reads.
    ///
    /// # Panics
    ///
    /// When the file cannot be written.
    #[track_caller]
    pub fn file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Self {
        let path = self.home.path.join(path);
        if let Some(parent) = path.parent() {
            or_panic(std::fs::create_dir_all(parent), |e| {
                format!("termloom: cannot make {}: {e}", parent.display())
            });
        }
        or_panic(std::fs::write(&path, contents), |e| {
            format!("termloom: cannot write {}: {e}", path.display())
        });
        self
    }

    /// Adds redactions applied to this session's snapshots, after those of the temporary
    /// `HOME` and of the pid ([`TestSessionBuilder::redact_pid`]), which are literal texts.
    pub fn redact(mut self, redactions: Redactions) -> Self {
        self.redactions = self.redactions.and(redactions);
        self
    }

    /// Redacts the session's process id as `[PID]` wherever it appears as a number of its own
    /// (for a program that shows its own pid, such as `htop -p`).
    pub fn redact_pid(mut self) -> Self {
        self.redact_pid = true;
        self
    }

    /// Makes [`TestSessionBuilder::start`] wait for `until` before returning (for instance the
    /// prompt of a shell); several calls wait for each in turn.
    pub fn ready_when(mut self, until: Until) -> Self {
        self.ready.push(until);
        self
    }

    /// The redactions of a session: its `HOME`, its pid if asked, then the builder's.
    fn session_redactions(&self, pid: Option<i32>) -> Redactions {
        let mut redactions = Redactions::new().home(&self.home.path);
        if let Some(pid) = pid.filter(|_| self.redact_pid) {
            redactions = redactions.pid(pid);
        }
        redactions.and(self.redactions.clone())
    }

    /// The command line, for messages and snapshot descriptions, with the `HOME` redacted.
    /// A program given by an absolute path (such as `env!("CARGO_BIN_EXE_app")`) is named by its
    /// file name, which does not depend on where the repository is checked out.
    fn command_line(&self) -> String {
        let argv = self.spec.argv();
        let program = Path::new(&argv[0]);
        let mut line = match program.file_name() {
            Some(name) if program.is_absolute() => name.to_string_lossy().into_owned(),
            _ => program.to_string_lossy().into_owned(),
        };
        for arg in &argv[1..] {
            let arg = arg.to_string_lossy();
            line.push(' ');
            if arg.is_empty() || arg.contains(|c: char| c.is_whitespace() || c == '\'') {
                line.push_str(&format!("'{}'", arg.replace('\'', r"'\''")));
            } else {
                line.push_str(&arg);
            }
        }
        self.session_redactions(None).apply(&line)
    }

    /// Starts the session (and waits for [`TestSessionBuilder::ready_when`]'s conditions).
    ///
    /// # Panics
    ///
    /// When the engine or the program cannot start, or a readiness wait fails.
    #[track_caller]
    pub fn start(self) -> TestSession {
        let (cols, rows) = self.spec.size.unwrap_or(DEFAULT_SIZE);
        let command = self.command_line();
        // The size given to `size` is checked as a size (not as the engine's configuration,
        // which the test never set).
        or_panic(crate::config::check_size(cols, rows), |e| {
            format!("termloom: cannot start `{command}` at size({cols}, {rows}): {e}")
        });
        let config = Config { cols, rows, ..self.config.clone() };
        let engine = or_panic(Engine::new(config), |e| {
            format!("termloom: cannot start an engine for `{command}`: {e}")
        });
        // The host's variables are left out, but those kept and those the spec sets.
        let mut spec = self.spec.clone();
        for (name, _) in std::env::vars_os() {
            let keep = name.to_str().is_some_and(|name| {
                KEPT_ENV.contains(&name) || self.keep_env.iter().any(|k| k == name)
            });
            if !keep && !self.spec.env.iter().any(|(set, _)| *set == name) {
                spec = spec.env_remove(name);
            }
        }
        let session =
            or_panic(engine.spawn(spec), |e| format!("termloom: cannot start `{command}`: {e}"));
        let redactions = self.session_redactions(Some(session.pid()));
        let test = TestSession {
            waits: session.as_reader(crate::ReaderId::new()),
            typed: Default::default(),
            session,
            engine,
            command,
            timeout: self.timeout,
            settle: self.settle,
            stuck_after: self.stuck_after,
            redactions,
            snapshot_folder: self.snapshot_folder,
            home: self.home,
        };
        for until in self.ready {
            test.wait_until(until);
        }
        test
    }
}

/// A session started for a test: deterministic environment, a temporary `HOME`, and methods
/// that panic with a readable message instead of returning errors.
///
/// It dereferences to [`Session`] for everything else (mouse, signals, resize...). Dropping it
/// closes the session and removes the temporary `HOME`.
pub struct TestSession {
    session: Session,
    /// The session as the kit's own waits read it: their transcript conditions look at output
    /// after the last input the kit typed (typing moves this reader to the end) and skip the
    /// echo of a typed line (`typed`); the handle's own reads are untouched.
    waits: Session,
    /// The line the last submitted input was typed on, whose echo is no answer to it.
    typed: std::sync::Mutex<Option<crate::term::transcript::TypedLine>>,
    engine: Engine,
    command: String,
    timeout: Duration,
    settle: Duration,
    stuck_after: Option<Duration>,
    redactions: Redactions,
    snapshot_folder: SnapshotFolder,
    home: TempHome,
}

impl std::fmt::Debug for TestSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestSession")
            .field("command", &self.command)
            .field("session", &self.session)
            .field("home", &self.home.path)
            .finish()
    }
}

impl Deref for TestSession {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

impl Drop for TestSession {
    fn drop(&mut self) {
        let _ = self.session.close();
        self.engine.shutdown();
    }
}

impl TestSession {
    /// A builder for a session running `program`.
    #[track_caller]
    pub fn builder(program: impl AsRef<OsStr>) -> TestSessionBuilder {
        TestSessionBuilder::new(program)
    }

    /// A builder for bash with no startup files (`--norc --noprofile`), the prompt `$ `
    /// (`PS2` is `> `), and its history in `$HOME/.bash_history`; starting it waits until the
    /// prompt is drawn and bash waits for input.
    #[track_caller]
    pub fn bash() -> TestSessionBuilder {
        TestSessionBuilder::new("bash")
            .args(["--norc", "--noprofile"])
            .env("PS1", "$ ")
            .env("PS2", "> ")
            .ready_when(Until::screen_contains("$"))
            .ready_when(Until::input_wait())
    }

    /// The underlying session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session's temporary `HOME`.
    pub fn home(&self) -> &Path {
        &self.home.path
    }

    /// The engine the session runs on, to start a program beside it (a client of the server
    /// under test): `engine().spawn(SpawnSpec::new("client").env("HOME", home()))`. Such a
    /// session gets only the environment its spec gives it, and the engine closes it when the
    /// test session is dropped.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The command line that was started (`HOME` redacted).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The redactions applied to this session's snapshots.
    pub fn redactions(&self) -> &Redactions {
        &self.redactions
    }

    #[track_caller]
    fn check<T>(&self, what: &str, result: crate::Result<T>) -> T {
        or_panic(result, |e| {
            format!("termloom: {what} failed for `{}`: {e}\n\n{}", self.command, self.context(None))
        })
    }

    /// Types a key script such as `ihello<Esc>:wq<Enter>` (see [`Session::send_keys`]).
    #[track_caller]
    pub fn send_keys(&self, script: &str) -> &Self {
        let submits = crate::input::keys::parse_key_script(script)
            .is_ok_and(|items| crate::input::keys::script_submits(&items));
        self.before_typing(submits);
        self.check(&format!("send_keys({script:?})"), self.session.send_keys(script));
        self
    }

    /// Types text as it is (no key notation, no escapes).
    #[track_caller]
    pub fn type_text(&self, text: &str) -> &Self {
        self.before_typing(crate::input::keys::bytes_submit(text.as_bytes()));
        self.check("type_text", self.session.send_bytes(text.as_bytes()));
        self
    }

    /// Types text as it is, then Enter.
    #[track_caller]
    pub fn type_line(&self, text: &str) -> &Self {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(b'\r');
        self.before_typing(true);
        self.check("type_line", self.session.send_bytes(&bytes));
        self
    }

    /// Pastes text (bracketed when the program asked for it; see [`Session::paste`]).
    #[track_caller]
    pub fn paste(&self, text: &str) -> &Self {
        self.before_typing(false);
        self.check("paste", self.session.paste(text));
        self
    }

    /// Before input: what the program printed so far is no answer to it, so the kit's waits
    /// look past it; when the input submits a line, the line it is typed on is kept, whose
    /// echo is no answer either.
    #[track_caller]
    fn before_typing(&self, submits: bool) {
        self.check("reading the output before typing", self.waits.skip_output());
        let typed = match submits {
            true => self.check("reading the cursor's line", self.session.typed_line()),
            false => None,
        };
        *self.typed.lock().unwrap_or_else(|e| e.into_inner()) = typed;
    }

    /// One wait of the kit's (see [`TestSession::waits`]).
    fn wait_once(&self, until: Until, timeout: Duration) -> crate::Result<WaitOutcome> {
        let typed = self.typed.lock().unwrap_or_else(|e| e.into_inner()).clone();
        self.waits.start_wait_past(until, timeout, typed)?.finish()
    }

    /// The screen now, never half drawn: while the program draws a frame in a synchronized
    /// update (mode 2026), it waits for the frame's end (at most the engine's 150 ms bound).
    #[track_caller]
    pub fn screen(&self) -> Screen {
        self.whole_frame();
        self.check("screen", self.session.screen())
    }

    /// Waits until no synchronized update is open: screen conditions are checked only
    /// between frames, so one that always holds returns at the frame's end.
    #[track_caller]
    fn whole_frame(&self) {
        let frame = Until::screen_matches("a whole frame", |_| true);
        self.check("waiting for a whole frame", self.session.wait(frame, self.timeout));
    }

    /// The screen now in the snapshot format ([`format_screen`]), not redacted.
    #[track_caller]
    pub fn snapshot(&self) -> String {
        format_screen(&self.screen())
    }

    /// The screen now with the colours and attributes of its cells, never half drawn (see
    /// [`screen`](Self::screen)).
    #[track_caller]
    pub fn styled_screen(&self) -> StyledScreen {
        self.whole_frame();
        self.check("styled_screen", self.session.styled_screen())
    }

    /// The screen now in the snapshot format with its `styles:` section
    /// ([`format_styled_screen`]), not redacted.
    #[track_caller]
    pub fn styled_snapshot(&self) -> String {
        format_styled_screen(&self.styled_screen())
    }

    /// This session as a snapshot source that includes the colours and attributes:
    /// `assert_screen_snapshot!("menu", app.with_styles())`.
    pub fn with_styles(&self) -> WithStyles<'_> {
        WithStyles(self)
    }

    /// The last `n` lines of the transcript (what scrolled by and the primary screen down to
    /// the cursor), without moving the read cursor.
    #[track_caller]
    pub fn last_lines(&self, n: usize) -> Vec<String> {
        let text = self.check("scrollback", self.session.scrollback(64 << 10)).text;
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].iter().map(|l| l.to_string()).collect()
    }

    /// Waits until `until` holds and returns the outcome.
    ///
    /// # Panics
    ///
    /// When the wait times out, or the program exits or the session is closed first (unless
    /// `until` waits for the exit), with the screen and the last transcript lines in the
    /// message.
    ///
    /// When the program has been waiting for input with an unchanged screen for the
    /// [`stuck_after`](TestSessionBuilder::stuck_after) grace (2 s by default), the wait fails
    /// then: nothing would change before the timeout. Not a wait that an idle program
    /// satisfies, however long: a still screen ([`Until::stable`], as
    /// [`wait_stable`](Self::wait_stable) waits for with a settle time longer than the
    /// grace), quiet output ([`Until::quiet`]) or an input wait, alone or among the conditions
    /// of an [`Until::any`].
    #[track_caller]
    pub fn wait_until(&self, until: Until) -> WaitOutcome {
        let description = until.to_string();
        // "waiting for input", not "waiting for waiting for input".
        let what = match description.starts_with("waiting for ") {
            true => description,
            false => format!("waiting for {description}"),
        };
        self.wait_described(until, what)
    }

    /// [`wait_until`](Self::wait_until), whose failure says it was `what`.
    #[track_caller]
    fn wait_described(&self, until: Until, what: String) -> WaitOutcome {
        let wants_exit = until.includes_exit();
        let outcome = self.check(&what, self.wait_or_stuck(until));
        let failure = match &outcome.fired {
            Fired::Matched(found) if found.condition == STUCK => Some(format!(
                "the program has waited for input with an unchanged screen for {:?} (nothing will change until the test types; a program that reads with a timer longer than that, such as `read -t 5`, looks the same: give it more with stuck_after, or None)",
                self.stuck_after.unwrap_or_default()
            )),
            Fired::Matched(_) => None,
            Fired::Exited { .. } if wants_exit => None,
            Fired::Exited { status } => Some(format!("the program exited ({status})")),
            Fired::Closed => Some("the session was closed".to_owned()),
            Fired::Timeout => Some(format!("timed out after {:?}", self.timeout)),
            Fired::Cancelled => Some("the wait was cancelled".to_owned()),
        };
        if let Some(failure) = failure {
            panic!(
                "termloom: {failure} {what} in `{}`\n\n{}",
                self.command,
                self.context(Some(&outcome))
            );
        }
        outcome
    }

    /// Waits for `until` until the timeout, or until the program is stuck: waiting for input
    /// with the screen unchanged (and no input sent) for the grace; a stuck outcome is a match
    /// of the condition named [`STUCK`].
    fn wait_or_stuck(&self, until: Until) -> crate::Result<WaitOutcome> {
        let Some(grace) = self.stuck_after else {
            return self.wait_once(until, self.timeout);
        };
        // An idle program is what such a wait waits for: it is never stuck.
        if until.holds_when_idle() {
            return self.wait_once(until, self.timeout);
        }
        // A timeout of `Duration::MAX` is "until it holds", as the engine takes it.
        let deadline = crate::reactor::after(Instant::now(), self.timeout);
        let (input, still) = (Until::input_wait().to_string(), Until::stable(grace).to_string());
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let outcome =
                self.wait_once(Until::any(vec![until.clone(), Until::input_wait()]), left)?;
            if outcome.matched().is_none_or(|found| found.condition != input) {
                return Ok(outcome);
            }
            // Waiting for input: the condition, or the screen still for the grace.
            let left = deadline.saturating_duration_since(Instant::now());
            let mut outcome =
                self.wait_once(Until::any(vec![until.clone(), Until::stable(grace)]), left)?;
            let Fired::Matched(found) = &mut outcome.fired else {
                return Ok(outcome);
            };
            if found.condition != still {
                return Ok(outcome);
            }
            if self.session.status()?.activity == crate::Activity::WaitingForInput {
                found.condition = STUCK.to_owned();
                return Ok(outcome);
            }
        }
    }

    /// What a failure message shows: the status, the screen and the last transcript lines.
    fn context(&self, outcome: Option<&WaitOutcome>) -> String {
        let mut out = String::new();
        let status = match outcome {
            Some(outcome) => Some(outcome.status.clone()),
            None => self.session.status().ok(),
        };
        if let Some(status) = status {
            let _ = writeln!(out, "status: {status}");
        }
        let screen = match outcome.and_then(|o| o.screen.clone()) {
            Some(screen) => Some(screen),
            None => self.session.screen().ok(),
        };
        match screen {
            Some(screen) => {
                let _ = writeln!(out, "screen:\n{}", format_screen(&screen));
            }
            None => out.push_str("screen: unavailable\n"),
        }
        if let Some(path) = self.session.styled_screen().ok().and_then(|s| save_picture(&s)) {
            let _ = writeln!(out, "picture of the screen: {}", path.display());
        }
        match self.session.scrollback(64 << 10) {
            Ok(scrollback) => {
                let lines: Vec<&str> = scrollback.text.lines().collect();
                let shown = &lines[lines.len().saturating_sub(TRANSCRIPT_LINES)..];
                if shown.is_empty() {
                    return out;
                }
                let _ = writeln!(out, "last {} transcript lines:", shown.len());
                for line in shown {
                    let _ = writeln!(out, "  | {line}");
                }
            }
            Err(e) => {
                let _ = writeln!(out, "transcript: unavailable ({e})");
            }
        }
        out
    }

    /// Waits until `text` appears on the screen, within one row (text wrapped over two rows
    /// does not match; the transcript is [`wait_for_output`](Self::wait_for_output)'s).
    #[track_caller]
    pub fn wait_for_screen_text(&self, text: &str) -> &Self {
        self.wait_until(Until::screen_contains(text));
        self
    }

    /// The former name of [`wait_for_screen_text`](Self::wait_for_screen_text).
    #[deprecated(
        since = "0.1.0",
        note = "renamed `wait_for_screen_text`: it matches the screen, one row at a time (`wait_for_output` matches the transcript)"
    )]
    #[track_caller]
    pub fn wait_for_text(&self, text: &str) -> &Self {
        self.wait_for_screen_text(text)
    }

    /// Waits until `text` appears on screen row `row` (from 0).
    ///
    /// # Panics
    ///
    /// Also at once when `row` is outside the screen: the wait could never hold.
    #[track_caller]
    pub fn wait_for_row(&self, row: u16, text: &str) -> &Self {
        self.wait_until(Until::screen_row_contains(row, text));
        self
    }

    /// Waits until a regular expression matches a screen row.
    ///
    /// # Panics
    ///
    /// Also when `pattern` is not a valid regular expression.
    #[track_caller]
    pub fn wait_for_regex(&self, pattern: &str) -> &Self {
        let until = or_panic(Until::screen_regex(pattern), |e| {
            format!("termloom: bad pattern {pattern:?}: {e}")
        });
        self.wait_until(until);
        self
    }

    /// Waits until `text` is shown highlighted (in inverse video or on a background colour,
    /// see [`StyledScreen::find_highlighted`]): for a change shown only by colour, such as a
    /// selection moved in a list.
    #[track_caller]
    pub fn wait_for_highlight(&self, text: &str) -> &Self {
        let needle = text.to_owned();
        self.wait_until(Until::styled_screen_matches(format!("{text:?} highlighted"), move |s| {
            s.find_highlighted(&needle).is_some()
        }));
        self
    }

    /// Waits until `test` holds for the screen with its styles (see
    /// [`Until::styled_screen_matches`]); `description` names it in a failure.
    #[track_caller]
    pub fn wait_for_styled(
        &self,
        description: &str,
        test: impl Fn(&StyledScreen) -> bool + Send + Sync + 'static,
    ) -> &Self {
        self.wait_until(Until::styled_screen_matches(description, test));
        self
    }

    /// Waits until `text` appears in output printed since the kit last typed (`type_line`,
    /// `type_text`, `send_keys`, `press`, `paste`), not in the echo of a typed line, including
    /// text that scrolled off the screen. The handle's own [`Session::read`] is another reader:
    /// neither moves the other.
    #[track_caller]
    pub fn wait_for_output(&self, text: &str) -> &Self {
        self.wait_until(Until::text(text));
        self
    }

    /// Waits until the screen has not changed for the settle time (200 ms by default): call it
    /// after the expected text appeared, before a snapshot.
    #[track_caller]
    pub fn wait_stable(&self) -> &Self {
        self.wait_until(Until::stable(self.settle));
        self
    }

    /// Waits until the program is blocked reading the terminal and its output is quiet
    /// (Linux; see [`Until::input_wait`]).
    #[track_caller]
    pub fn wait_for_input(&self) -> &Self {
        self.wait_until(Until::input_wait());
        self
    }

    /// Types a key script (see [`Session::send_keys`]), then waits until the program has
    /// answered: it waits for input again and its screen has not changed for the settle time.
    /// The call for full-screen programs, whose answer to a key may be a colour or nothing.
    ///
    /// Keys that end the program (`q` in `less`, `:wq<Enter>` in vim) are an answer too: the
    /// press returns once the program has exited, its screen then final; check how it ended
    /// with [`wait_for_exit`](Self::wait_for_exit) or [`wait_for_success`](Self::wait_for_success).
    ///
    /// # Panics
    ///
    /// When the program neither answers nor exits before the timeout, or the session is
    /// closed.
    #[track_caller]
    pub fn press(&self, keys: &str) -> &Self {
        self.send_keys(keys);
        self.settle_for_input(&format!("press({keys:?})"))
    }

    /// Resizes the terminal, then waits for the program's redraw at the new size: the screen
    /// unchanged for the settle time after the resize, and the program waiting for input (or
    /// its exit, as [`press`](Self::press)).
    #[track_caller]
    pub fn resize_and_wait(&self, cols: u16, rows: u16) -> &Self {
        let resize = format!("resize_and_wait({cols}, {rows})");
        self.check(&resize, self.session.resize(cols, rows));
        self.settle_for_input(&resize)
    }

    /// Waits until the program waits for input with a stable screen, or has exited (its
    /// screen then final); a failure names `call`, what the program was to answer.
    #[track_caller]
    fn settle_for_input(&self, call: &str) -> &Self {
        let what = format!(
            "waiting for the program to answer {call} (to wait for input again with a still screen, or to exit)"
        );
        for until in [Until::input_wait(), Until::stable(self.settle), Until::input_wait()] {
            let until = Until::any(vec![until, Until::exit()]);
            let outcome = self.wait_described(until, what.clone());
            if matches!(outcome.fired, Fired::Exited { .. }) {
                break;
            }
        }
        self
    }

    /// Checks that the program left the terminal as it found it: the primary screen, a
    /// visible cursor, the input modes off (mouse reporting, bracketed paste, application
    /// cursor keys and keypad, focus events, the kitty keyboard protocol), and the line
    /// discipline's echo and canonical input back on (see [`crate::LineModes`]). Call it after
    /// the program exits.
    ///
    /// # Panics
    ///
    /// Naming every mode left on, with the screen.
    #[track_caller]
    pub fn assert_terminal_restored(&self) {
        let screen = self.screen();
        let modes = screen.modes;
        let line = self.session.info().ok().and_then(|info| info.line_modes);
        let left_on: Vec<&str> = [
            (line.is_some_and(|l| !l.echo), "echo is off (stty -echo)"),
            (line.is_some_and(|l| !l.canonical), "canonical input is off (raw mode)"),
            (screen.alternate, "the alternate screen is still shown"),
            (!screen.cursor.visible, "the cursor is hidden"),
            (modes.mouse != crate::MouseReporting::Off, "mouse reporting is on"),
            (modes.bracketed_paste, "bracketed paste is on"),
            (modes.app_cursor, "application cursor keys are on"),
            (modes.app_keypad, "the application keypad is on"),
            (modes.focus_events, "focus events are on"),
            (modes.kitty_keyboard != 0, "the kitty keyboard protocol is on"),
        ]
        .into_iter()
        .filter_map(|(on, what)| on.then_some(what))
        .collect();
        if !left_on.is_empty() {
            panic!(
                "termloom: `{}` did not restore the terminal: {}\n\n{}",
                self.command,
                left_on.join(", "),
                self.context(None)
            );
        }
    }

    /// Waits until the cursor is at `row` and `col` (both from 0), visible or not: for a
    /// program whose reaction to a key only moves the cursor, such as a menu that marks its
    /// selection with colours and the cursor.
    ///
    /// # Panics
    ///
    /// Also at once when the position is outside the screen: the wait could never hold.
    #[track_caller]
    pub fn wait_for_cursor(&self, row: u16, col: u16) -> &Self {
        self.wait_until(Until::cursor_at(row, col));
        self
    }

    /// Waits until `test` holds for the screen and returns the screen; `what` describes the
    /// condition for the failure message. The engine checks `test` each time output has been
    /// processed (no polling), so it must be quick.
    #[track_caller]
    pub fn wait_for_screen(
        &self,
        what: &str,
        test: impl Fn(&Screen) -> bool + Send + Sync + 'static,
    ) -> Screen {
        self.wait_until(Until::screen_matches(what, test));
        self.screen()
    }

    /// What is new in the transcript since the previous read (see [`Session::read`]).
    #[track_caller]
    pub fn read_output(&self) -> String {
        self.check("read", self.session.read()).text
    }

    /// Waits until the program exits and returns how it ended.
    #[track_caller]
    pub fn wait_for_exit(&self) -> ExitStatus {
        let outcome = self.wait_until(Until::exit());
        match outcome.fired {
            Fired::Exited { status } => status,
            other => {
                panic!("termloom: waiting for exit of `{}` ended with {other:?}", self.command)
            }
        }
    }

    /// Waits until the program exits and checks that it exited with code 0.
    #[track_caller]
    pub fn wait_for_success(&self) {
        let status = self.wait_for_exit();
        if !status.success() {
            panic!(
                "termloom: `{}` ended with {status}, not exit code 0\n\n{}",
                self.command,
                self.context(None)
            );
        }
    }

    /// Closes the session now and returns how the program ended.
    #[track_caller]
    pub fn close(&self) -> ExitStatus {
        self.check("close", self.session.close())
    }
}

pub use crate::term::screen::snapshot::{format_screen, format_styled_screen};

/// A [`TestSession`] snapshotted with the colours and attributes of its cells (see
/// [`TestSession::with_styles`] and [`format_styled_screen`]).
#[derive(Debug, Clone, Copy)]
pub struct WithStyles<'a>(&'a TestSession);

/// Replacements for what changes from run to run, applied to snapshots as insta filters
/// (regular expressions and their replacements, in the order they were added) and usable on
/// any text with [`Redactions::apply`].
///
/// ```
/// use termloom::testing::Redactions;
///
/// let redactions = Redactions::new().clock_times().durations().pids().hex_addresses();
/// assert_eq!(
///     redactions.apply("12:34:56 pid 4242 took 1.5s at 0x7ffd1234"),
///     "[TIME] pid [PID] took [DURATION] at [ADDR]"
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions {
    filters: Vec<(String, String)>,
    /// Patterns whose matches are masked cell by cell with [`MASK`].
    masks: Vec<String>,
}

/// The character that stands for each cell a [`Redactions::mask`] hides.
pub const MASK: char = '▒';

impl Redactions {
    /// No redactions.
    pub fn new() -> Redactions {
        Redactions::default()
    }

    /// Replaces matches of a regular expression (regex crate syntax) with `replacement`, which
    /// may name groups as `$1` or `${name}`.
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid regular expression.
    #[track_caller]
    pub fn regex(mut self, pattern: &str, replacement: &str) -> Redactions {
        if let Err(e) = regex::Regex::new(pattern) {
            panic!("termloom: bad redaction pattern {pattern:?}: {e}");
        }
        self.filters.push((pattern.to_owned(), replacement.to_owned()));
        self
    }

    /// Masks the matches of a regular expression cell by cell: each cell becomes [`MASK`], so
    /// the columns after it stay where they were (a wide character's two cells become two
    /// marks). For values whose width is fixed but whose text changes, such as a clock in a
    /// status bar or a column of process ids; a replacement ([`Redactions::regex`]) reads
    /// better where alignment does not matter.
    ///
    /// ```
    /// use termloom::testing::Redactions;
    ///
    /// let masked = Redactions::new().mask(r"\d{2}:\d{2}").apply("| 09:41 | ready |");
    /// assert_eq!(masked, "| ▒▒▒▒▒ | ready |");
    /// ```
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid regular expression.
    #[track_caller]
    pub fn mask(mut self, pattern: &str) -> Redactions {
        if let Err(e) = regex::Regex::new(pattern) {
            panic!("termloom: bad mask pattern {pattern:?}: {e}");
        }
        self.masks.push(pattern.to_owned());
        self
    }

    /// Replaces every occurrence of a literal text.
    pub fn literal(self, text: &str, replacement: &str) -> Redactions {
        self.regex(&regex::escape(text), &replacement.replace('$', "$$"))
    }

    /// Replaces a path (as given and canonicalized) with `replacement`: `/tmp/x/notes.txt`
    /// becomes `[NAME]/notes.txt`.
    pub fn path(mut self, path: &Path, replacement: &str) -> Redactions {
        let mut forms = vec![path.to_string_lossy().into_owned()];
        if let Ok(canonical) = path.canonicalize() {
            forms.push(canonical.to_string_lossy().into_owned());
        }
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        for form in forms.iter().filter(|f| !f.is_empty()) {
            self = self.literal(form, replacement);
        }
        self
    }

    /// Replaces a temporary home directory with `[HOME]` (every [`TestSession`] does this for
    /// its own).
    pub fn home(self, home: &Path) -> Redactions {
        self.path(home, "[HOME]")
    }

    /// Replaces every [`TestSession`]'s temporary home directory (`/tmp/termloom-home-…`,
    /// whichever session's) with `[HOME]`: what a snapshot of a [`Screen`], a
    /// [`StyledScreen`] or a [`Session`] gets, which do not know the session they came from.
    pub fn test_homes(self) -> Redactions {
        self.regex(r"/(?:[^\s/]+/)*termloom-home-\d{7}-\d{4}", "[HOME]")
    }

    /// Replaces the name of the user running the tests with `[USER]` where it stands as a
    /// word (a prompt's `user@host`, `whoami`, a process list's user column): it differs
    /// between a developer's machine and CI. The name is the password database's for this
    /// process's user (programs such as `whoami` and `ps` read it there), or `USER` when the
    /// database has none.
    pub fn user(self) -> Redactions {
        let name = user_name().unwrap_or_default();
        self.word(&name, "[USER]")
    }

    /// Replaces this machine's host name with `[HOST]` where it stands as a word (a prompt's
    /// `user@host`, `uname -n`, `hostname`).
    pub fn hostname(self) -> Redactions {
        let uname = rustix::system::uname();
        let name = uname.nodename().to_string_lossy().into_owned();
        self.word(&name, "[HOST]")
    }

    /// Replaces `text` where it stands as a word (no letter, digit or `_` on either side);
    /// nothing when it is empty. The sides are tested without taking the characters there
    /// (`\b` beside a word character of `text`, `\B` beside another), so that a separator
    /// between two occurrences (`root root`) serves both.
    fn word(self, text: &str, replacement: &str) -> Redactions {
        let (Some(first), Some(last)) = (text.chars().next(), text.chars().last()) else {
            return self;
        };
        // A word character as the pattern's `\b` takes it.
        let word = regex::Regex::new(r"\w").expect("a valid regular expression");
        let side = |c: char| match word.is_match(c.encode_utf8(&mut [0; 4])) {
            true => r"\b",
            false => r"\B",
        };
        let pattern = format!("{}{}{}", side(first), regex::escape(text), side(last));
        self.regex(&pattern, &replacement.replace('$', "$$"))
    }

    /// Replaces clock times with seconds, such as `09:41:07` or `9:41:07.123`, with `[TIME]`.
    pub fn clock_times(self) -> Redactions {
        self.regex(r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b", "[TIME]")
    }

    /// Replaces ISO dates (`2024-05-17`) with `[DATE]`.
    pub fn dates(self) -> Redactions {
        self.regex(r"\b\d{4}-\d{2}-\d{2}\b", "[DATE]")
    }

    /// Replaces durations with a unit (`1.5s`, `250ms`, `3 µs`, `2m10s`) with `[DURATION]`.
    pub fn durations(self) -> Redactions {
        self.regex(r"\b(\d+h)?(\d+m)?\d+(\.\d+)?\s?(ns|us|µs|ms|s)\b", "[DURATION]")
    }

    /// Replaces the number after `pid`, `PID`, `process` or `Process` (as in `pid 4242`,
    /// `PID: 4242`, `(process 4242)`) with `[PID]`.
    pub fn pids(self) -> Redactions {
        self.regex(r"\b(?i:(pid|process))(\s*[:=]?\s*)\d+\b", "$1$2[PID]")
    }

    /// Replaces a given process id wherever it appears as a number of its own.
    pub fn pid(self, pid: i32) -> Redactions {
        self.regex(&format!(r"\b{pid}\b"), "[PID]")
    }

    /// Replaces hexadecimal addresses of at least four digits (`0x7ffd1234`) with `[ADDR]`.
    pub fn hex_addresses(self) -> Redactions {
        self.regex(r"\b0x[0-9a-fA-F]{4,}\b", "[ADDR]")
    }

    /// Adds every filter and mask of `other` after this one's.
    pub fn and(mut self, other: Redactions) -> Redactions {
        self.filters.extend(other.filters);
        self.masks.extend(other.masks);
        self
    }

    /// The replacements as (regular expression, replacement) pairs, in order.
    pub fn filters(&self) -> &[(String, String)] {
        &self.filters
    }

    /// The masks' regular expressions, in order.
    pub fn masks(&self) -> &[String] {
        &self.masks
    }

    /// Applies the redactions to a text: the replacements in order, then the masks.
    pub fn apply(&self, text: &str) -> String {
        self.apply_mapped(text).text
    }

    /// [`Redactions::apply`], keeping track of where each character of `text` went.
    fn apply_mapped(&self, text: &str) -> Mapped {
        let mut mapped = Mapped::new(text);
        for (pattern, replacement) in &self.filters {
            if let Ok(re) = regex::Regex::new(pattern) {
                mapped.replace(&re, |found, out| found.expand(replacement, out));
            }
        }
        for pattern in &self.masks {
            if let Ok(re) = regex::Regex::new(pattern) {
                mapped.replace(&re, |found, out| {
                    let cells = unicode_width::UnicodeWidthStr::width(&found[0]);
                    out.extend(std::iter::repeat_n(MASK, cells));
                });
            }
        }
        mapped
    }

    /// Applies the redactions to a screen's rows and title (see [`Redactions::apply`]); the
    /// size and modes stay as they are. Rows the terminal wrapped (a line longer than the
    /// width goes on in the next row) are redacted as the one line they show, so a path
    /// wrapped over two rows is still found; a line a redaction changed is laid out again over
    /// the same rows, cut at the terminal's width (the last of its rows keeps what is left
    /// over, and rows it no longer needs are left empty). Every other row stays as it was.
    /// A cursor on a changed line moves with the text after the change (after a prompt that
    /// shows a redacted path, it is where the redacted prompt ends), so its position does not
    /// depend on what was redacted either.
    ///
    /// [`assert_screen_snapshot!`] redacts a [`TestSession`]'s screen this way.
    pub fn apply_to_screen(&self, screen: &Screen) -> Screen {
        self.redact_screen(screen, &mut Vec::new())
    }

    /// Applies the redactions to a styled screen: its screen as
    /// [`Redactions::apply_to_screen`] does, and its runs of colours and attributes moved with
    /// the text on the lines a redaction changed, so that they still cover the cells they
    /// styled (a run over a replaced text covers its replacement).
    ///
    /// [`assert_screen_snapshot!`] redacts [`TestSession::with_styles`] this way.
    pub fn apply_to_styled_screen(&self, styled: &StyledScreen) -> StyledScreen {
        let mut runs = styled.runs.clone();
        let screen = self.redact_screen(&styled.screen, &mut runs);
        StyledScreen { screen, runs }
    }

    /// [`Redactions::apply_to_screen`], moving `runs` (of that screen) with the text.
    fn redact_screen(&self, screen: &Screen, runs: &mut Vec<crate::StyleRun>) -> Screen {
        let mut out = screen.clone();
        if self.filters.is_empty() && self.masks.is_empty() {
            return out;
        }
        out.title = self.apply(&screen.title);
        let cols = screen.cols.max(1);
        let wraps = |row: usize| screen.wrapped.get(row).copied().unwrap_or(false);
        let mut first = 0;
        while first < screen.lines.len() {
            let mut end = first + 1;
            while end < screen.lines.len() && wraps(end - 1) {
                end += 1;
            }
            // The logical line: a wrapped row is as wide as the terminal, its trailing blanks
            // (trimmed from the row's text) included.
            let mut line = String::new();
            for row in first..end {
                line.push_str(&screen.lines[row]);
                if row + 1 < end {
                    let width =
                        crate::term::screen::cell_col(&screen.lines[row], screen.lines[row].len());
                    line.extend(std::iter::repeat_n(' ', usize::from(cols.saturating_sub(width))));
                }
            }
            let mapped = self.apply_mapped(&line);
            let redacted = &mapped.text;
            if *redacted != line {
                out.lines.splice(first..end, split_rows(redacted, cols, end - first));
                let rows = first as u16..end as u16;
                let (mut moved, mut kept) = (Vec::new(), Vec::new());
                for run in runs.drain(..) {
                    match rows.contains(&run.row) {
                        true => moved.extend(mapped.move_run(
                            &line,
                            run,
                            first as u16,
                            end as u16,
                            cols,
                        )),
                        false => kept.push(run),
                    }
                }
                kept.extend(moved);
                kept.sort_by_key(|run| (run.row, run.col));
                *runs = kept;
                let row = usize::from(screen.cursor.row);
                if (first..end).contains(&row) {
                    let at = (row - first) * usize::from(cols) + usize::from(screen.cursor.col);
                    let moved = moved_offset(&line, redacted, at);
                    let last = end - first - 1;
                    let (down, col) = match moved / usize::from(cols) {
                        down if down > last => (last, moved - last * usize::from(cols)),
                        down => (down, moved % usize::from(cols)),
                    };
                    out.cursor.row = (first + down) as u16;
                    out.cursor.col = col.min(usize::from(cols) - 1) as u16;
                }
            }
            first = end;
        }
        out
    }

    /// Applies the redactions to a screen snapshot's rows and title only: the size, cursor
    /// and style lines are the snapshot's own and stay as they are. The text does not say
    /// which rows the terminal wrapped, so each row is redacted alone: redact the screen with
    /// [`Redactions::apply_to_screen`] before formatting it to find texts wrapped over rows.
    pub fn apply_to_screen_snapshot(&self, snapshot: &str) -> String {
        if self.filters.is_empty() && self.masks.is_empty() {
            return snapshot.to_owned();
        }
        let mut out = String::with_capacity(snapshot.len());
        for line in snapshot.split_inclusive('\n') {
            let row = line.find(" │").filter(|&at| {
                at > 0 && line[..at].trim_start().chars().all(|c| c.is_ascii_digit())
            });
            match (row, line.strip_prefix("title: ")) {
                (Some(at), _) => {
                    let start = at + " │".len();
                    out.push_str(&line[..start]);
                    out.push_str(&self.apply(&line[start..]));
                }
                (None, Some(title)) => {
                    out.push_str("title: ");
                    out.push_str(&self.apply(title));
                }
                (None, None) => out.push_str(line),
            }
        }
        out
    }

    /// Adds the replacements to insta settings as filters (masks need the text: pass it
    /// through [`Redactions::apply`] first).
    pub fn apply_to(&self, settings: &mut insta::Settings) {
        for (pattern, replacement) in &self.filters {
            settings.add_filter(pattern, replacement.as_str());
        }
    }
}

/// A text redacted, with where each character boundary of the original went.
struct Mapped {
    /// The redacted text.
    text: String,
    /// For each character boundary of the original (0 to its length), that boundary in
    /// `text`, for what begins there: inside a replaced match, the replacement's start.
    starts: Vec<usize>,
    /// The same for what ends there: inside a replaced match, the replacement's end.
    ends: Vec<usize>,
}

impl Mapped {
    /// `text` unchanged.
    fn new(text: &str) -> Mapped {
        let boundaries: Vec<usize> = (0..=text.chars().count()).collect();
        Mapped { text: text.to_owned(), starts: boundaries.clone(), ends: boundaries }
    }

    /// Replaces every match of `re` with what `with` writes, as `Regex::replace_all` does,
    /// and moves the boundaries.
    fn replace(
        &mut self,
        re: &regex::Regex,
        mut with: impl FnMut(&regex::Captures<'_>, &mut String),
    ) {
        // (start, end, replacement's length) in characters of the text before the change.
        let mut changes = Vec::new();
        let (mut out, mut last, mut chars) = (String::new(), 0, 0);
        for found in re.captures_iter(&self.text) {
            let whole = found.get(0).expect("group 0 is the match");
            let kept = &self.text[last..whole.start()];
            out.push_str(kept);
            let start = chars + kept.chars().count();
            let end = start + whole.as_str().chars().count();
            let before = out.len();
            with(&found, &mut out);
            changes.push((start, end, out[before..].chars().count()));
            (last, chars) = (whole.end(), end);
        }
        out.push_str(&self.text[last..]);
        self.text = out;
        let moved = |at: usize, ends: bool| {
            let mut shifted = at;
            for &(start, end, len) in &changes {
                if at <= start {
                    break;
                }
                if at < end {
                    let inside = if ends { start + len } else { start };
                    return inside + shifted - at;
                }
                shifted = shifted + len - (end - start);
            }
            shifted
        };
        self.starts.iter_mut().for_each(|at| *at = moved(*at, false));
        self.ends.iter_mut().for_each(|at| *at = moved(*at, true));
    }

    /// `run`, on rows `first..last_row` of a logical line `line` laid out over rows of `cols`
    /// cells, moved to where its cells went in the redacted text (laid out as
    /// [`split_rows`] does: the last row takes what is left over): one run per row it now
    /// covers, none if it covered nothing.
    fn move_run(
        &self,
        line: &str,
        run: crate::StyleRun,
        first: u16,
        last_row: u16,
        cols: u16,
    ) -> Vec<crate::StyleRun> {
        use unicode_width::UnicodeWidthStr;
        let cols_n = usize::from(cols);
        let offset = usize::from(run.row - first) * cols_n + usize::from(run.col);
        let (old_width, new_width) = (line.width(), self.text.width());
        // A cell offset within the original text, as where it went in the redacted text.
        let moved = |cells: usize, map: &[usize]| {
            let mut width = 0;
            let at = line.chars().take_while(|&c| {
                let before = width;
                width += usize::from(crate::term::screen::char_cells(c));
                before < cells
            });
            let at = map[at.count()];
            self.text.chars().take(at).collect::<String>().width()
        };
        // Cells past the text (a status bar's or a selection's colour filling the row) keep
        // their columns, but for what the redacted text now covers.
        let end = offset + usize::from(run.width);
        let from = match offset >= old_width {
            true => offset.max(new_width),
            false => moved(offset, &self.starts),
        };
        let to = match end > old_width {
            true => end.max(new_width),
            false => moved(end, &self.ends),
        };
        let last = usize::from(last_row - first - 1);
        let place = |cells: usize| match cells / cols_n {
            row if row > last => (last, cells - last * cols_n),
            row => (row, cells % cols_n),
        };
        let mut pieces = Vec::new();
        let (mut at, stop) = (from, to);
        while at < stop {
            let (row, col) = place(at);
            let room = if row == last { usize::MAX } else { cols_n - col };
            let width = (stop - at).min(room).min(cols_n.saturating_sub(col));
            if width == 0 {
                break;
            }
            let mut piece = run.clone();
            (piece.row, piece.col, piece.width) = (first + row as u16, col as u16, width as u16);
            pieces.push(piece);
            at += (stop - at).min(room);
        }
        pieces
    }
}

/// Where cell offset `at` of `line` is in `redacted`, the same line redacted: before the
/// part that changed it stays, after it (the cursor past a prompt that showed a redacted
/// path, say) it moves by the change in width, and inside it goes to the changed part's end.
fn moved_offset(line: &str, redacted: &str, at: usize) -> usize {
    use unicode_width::UnicodeWidthStr;
    let same_start = line.chars().zip(redacted.chars()).take_while(|(a, b)| a == b).count();
    let rest = |s: &str| s.chars().skip(same_start).collect::<Vec<_>>();
    let (old_rest, new_rest) = (rest(line), rest(redacted));
    let same_end = old_rest.iter().rev().zip(new_rest.iter().rev()).take_while(|(a, b)| a == b);
    let tail: String = old_rest[old_rest.len() - same_end.count()..].iter().collect();
    let before: String = line.chars().take(same_start).collect();
    let (old_width, new_width, after) = (line.width(), redacted.width(), tail.width());
    if at <= before.width() {
        at
    } else if at >= old_width - after {
        at + new_width - old_width
    } else {
        new_width - after
    }
}

/// `line` cut into `rows` rows of at most `cols` cells (a wide character that does not fit
/// goes to the next row), trailing blanks trimmed; the last row takes whatever is left over,
/// and rows left without text are empty.
fn split_rows(line: &str, cols: u16, rows: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut width = 0u16;
    for c in line.chars() {
        let cells = crate::term::screen::char_cells(c);
        if cells > 0 && width + cells > cols && width > 0 && out.len() < rows {
            out.push(String::new());
            width = 0;
        }
        width += cells;
        out.last_mut().expect("one row at least").push(c);
    }
    for row in &mut out {
        row.truncate(row.trim_end_matches(' ').len());
    }
    out.resize(rows.max(1), String::new());
    out
}

/// Something [`assert_screen_snapshot!`] can snapshot: a [`TestSession`], a [`Session`], a
/// [`Screen`], or with colours and attributes a [`StyledScreen`] or
/// [`TestSession::with_styles`].
pub trait SnapshotSource {
    /// The text to store, before redaction.
    fn snapshot_text(&self) -> String;

    /// Where the snapshot goes.
    fn snapshot_folder(&self) -> SnapshotFolder {
        SnapshotFolder::CrateRoot
    }

    /// The styled screen, drawn as a picture when the snapshot does not match (every source
    /// of the kit has one).
    fn snapshot_picture(&self) -> Option<StyledScreen> {
        None
    }

    /// The text to store: [`SnapshotSource::snapshot_text`] with the redactions applied to
    /// its rows and title.
    fn redacted_snapshot_text(&self) -> String {
        self.snapshot_redactions().apply_to_screen_snapshot(&self.snapshot_text())
    }

    /// The redactions to apply: by default every [`TestSession`]'s temporary home
    /// ([`Redactions::test_homes`]).
    fn snapshot_redactions(&self) -> Redactions {
        Redactions::new().test_homes()
    }

    /// A line describing what was snapshotted, stored in the snapshot's header.
    fn snapshot_description(&self) -> Option<String> {
        None
    }
}

impl SnapshotSource for TestSession {
    fn snapshot_text(&self) -> String {
        self.snapshot()
    }

    /// The screen redacted with [`Redactions::apply_to_screen`], which sees texts wrapped
    /// over rows, then formatted.
    fn redacted_snapshot_text(&self) -> String {
        format_screen(&self.redactions.apply_to_screen(&self.screen()))
    }

    fn snapshot_redactions(&self) -> Redactions {
        self.redactions.clone()
    }

    fn snapshot_description(&self) -> Option<String> {
        Some(format!("`{}`", self.command))
    }

    fn snapshot_folder(&self) -> SnapshotFolder {
        self.snapshot_folder
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        self.session.styled_screen().ok()
    }
}

impl SnapshotSource for WithStyles<'_> {
    fn snapshot_text(&self) -> String {
        self.0.styled_snapshot()
    }

    /// The styled screen's rows and title redacted with [`Redactions::apply_to_styled_screen`]
    /// (the `styles:` section's runs move with the text), then formatted.
    fn redacted_snapshot_text(&self) -> String {
        format_styled_screen(&self.0.redactions.apply_to_styled_screen(&self.0.styled_screen()))
    }

    fn snapshot_redactions(&self) -> Redactions {
        self.0.snapshot_redactions()
    }

    fn snapshot_description(&self) -> Option<String> {
        self.0.snapshot_description()
    }

    fn snapshot_folder(&self) -> SnapshotFolder {
        self.0.snapshot_folder()
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        self.0.snapshot_picture()
    }
}

impl SnapshotSource for StyledScreen {
    fn snapshot_text(&self) -> String {
        format_styled_screen(self)
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        Some(self.clone())
    }
}

impl SnapshotSource for Session {
    fn snapshot_text(&self) -> String {
        match self.screen() {
            Ok(screen) => format_screen(&screen),
            Err(e) => panic!("termloom: cannot read the screen of session {}: {e}", self.id()),
        }
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        self.styled_screen().ok()
    }
}

impl SnapshotSource for Screen {
    fn snapshot_text(&self) -> String {
        format_screen(self)
    }

    /// The screen without colours (a plain screen has none).
    fn snapshot_picture(&self) -> Option<StyledScreen> {
        Some(StyledScreen { screen: self.clone(), runs: Vec::new() })
    }
}

impl<T: SnapshotSource + ?Sized> SnapshotSource for &T {
    fn snapshot_text(&self) -> String {
        (**self).snapshot_text()
    }

    fn redacted_snapshot_text(&self) -> String {
        (**self).redacted_snapshot_text()
    }

    fn snapshot_redactions(&self) -> Redactions {
        (**self).snapshot_redactions()
    }

    fn snapshot_description(&self) -> Option<String> {
        (**self).snapshot_description()
    }

    fn snapshot_folder(&self) -> SnapshotFolder {
        (**self).snapshot_folder()
    }

    fn snapshot_picture(&self) -> Option<StyledScreen> {
        (**self).snapshot_picture()
    }
}

/// A snapshot source that can wait for its program, for [`assert_screen_snapshot!`]'s
/// `after = "text"`: a [`TestSession`] and [`TestSession::with_styles`]. Not public API.
#[doc(hidden)]
pub trait __SettleAfter {
    /// Waits for `text` on the screen, for the program to wait for input and for the screen
    /// to settle.
    #[track_caller]
    fn __settle_after(&self, text: &str);
}

impl __SettleAfter for TestSession {
    #[track_caller]
    fn __settle_after(&self, text: &str) {
        self.wait_for_screen_text(text).wait_for_input().wait_stable();
    }
}

impl __SettleAfter for WithStyles<'_> {
    #[track_caller]
    fn __settle_after(&self, text: &str) {
        self.0.__settle_after(text);
    }
}

impl<T: __SettleAfter + ?Sized> __SettleAfter for &T {
    #[track_caller]
    fn __settle_after(&self, text: &str) {
        (**self).__settle_after(text);
    }
}

/// insta settings for screen snapshots: snapshots stored in `snapshot_dir` (use
/// `concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots")` for the crate's top-level `snapshots/`
/// folder), named `<test file>__<name>.snap`, with the redactions as filters. Starts from the
/// settings in effect, so an enclosing `insta::with_settings!` still applies.
///
/// [`assert_screen_snapshot!`] uses it; call it directly to snapshot something else in the
/// same place:
///
/// ```no_run
/// use termloom::testing::{Redactions, snapshot_settings};
///
/// let settings = snapshot_settings(
///     concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
///     &Redactions::new().clock_times(),
/// );
/// settings.bind(|| insta::assert_snapshot!("report", "generated at 12:00:00"));
/// ```
pub fn snapshot_settings(
    snapshot_dir: impl AsRef<Path>,
    redactions: &Redactions,
) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot_dir.as_ref());
    settings.set_prepend_module_to_snapshot(true);
    settings.set_omit_expression(true);
    redactions.apply_to(&mut settings);
    settings
}

/// The settings [`assert_screen_snapshot!`] binds: a source's folder (`crate_snapshots` for
/// [`SnapshotFolder::CrateRoot`]), no filters (the text is redacted already, in its rows
/// only). Not public API.
#[doc(hidden)]
pub fn __settings_for(folder: SnapshotFolder, crate_snapshots: &str) -> insta::Settings {
    match folder {
        SnapshotFolder::CrateRoot => snapshot_settings(crate_snapshots, &Redactions::new()),
        SnapshotFolder::Insta => {
            let mut settings = insta::Settings::clone_current();
            settings.set_omit_expression(true);
            settings
        }
    }
}

/// Asserts a screen snapshot with insta, stored in the top-level `snapshots/` folder of the
/// crate whose test calls it (or insta's own, see [`SnapshotFolder`]).
///
/// `assert_screen_snapshot!(session)` names the snapshot after the test function (a second
/// one in the same test gets `-2`...); `assert_screen_snapshot!("name", session)` names it.
/// `session` is a [`TestSession`](crate::testing::TestSession), a [`Session`](crate::Session)
/// or a [`Screen`](crate::Screen) (or a reference to one); a `TestSession`'s redactions are
/// applied to the rows and the title (never to the size; the cursor and the style runs move
/// with the text on a changed line; a [`Redactions::mask`] keeps the columns) and its command
/// line is the snapshot's description.
///
/// `assert_screen_snapshot!("name", session, after = "text")` first waits for `text` on the
/// screen, for the program to wait for input and for the screen to settle: one call per step
/// (for a `TestSession` or its [`with_styles`](crate::testing::TestSession::with_styles)).
/// The source is evaluated once.
///
/// A mismatch fails the test with a diff and leaves a `.snap.new` file for
/// `cargo insta review`; `INSTA_UPDATE=always` (or `cargo insta test --accept`) writes the new
/// snapshots, and with `CI=true` nothing is written.
///
/// ```no_run
/// use termloom::assert_screen_snapshot;
/// use termloom::testing::TestSession;
///
/// let vim = TestSession::builder("vim").args(["-u", "NONE", "notes.txt"]).start();
/// vim.wait_for_screen_text("notes.txt").wait_stable();
/// assert_screen_snapshot!("vim_empty_file", vim);
/// ```
#[macro_export]
macro_rules! assert_screen_snapshot {
    ($source:expr $(,)?) => {{
        let __termloom_source = &$source;
        let __termloom_text =
            $crate::testing::SnapshotSource::redacted_snapshot_text(__termloom_source);
        let __termloom_guard = $crate::__termloom_snapshot_settings!(__termloom_source);
        let __termloom_picture = $crate::testing::__PictureOnFailure(
            $crate::testing::SnapshotSource::snapshot_picture(__termloom_source),
        );
        $crate::testing::insta::assert_snapshot!(__termloom_text);
        drop(__termloom_picture);
        drop(__termloom_guard);
    }};
    ($name:expr, $source:expr, after = $text:expr $(,)?) => {{
        let __termloom_after = &$source;
        $crate::testing::__SettleAfter::__settle_after(__termloom_after, $text);
        $crate::assert_screen_snapshot!($name, __termloom_after);
    }};
    ($name:expr, $source:expr $(,)?) => {{
        let __termloom_source = &$source;
        let __termloom_text =
            $crate::testing::SnapshotSource::redacted_snapshot_text(__termloom_source);
        let __termloom_guard = $crate::__termloom_snapshot_settings!(__termloom_source);
        let __termloom_picture = $crate::testing::__PictureOnFailure(
            $crate::testing::SnapshotSource::snapshot_picture(__termloom_source),
        );
        $crate::testing::insta::assert_snapshot!($name, __termloom_text);
        drop(__termloom_picture);
        drop(__termloom_guard);
    }};
}

/// Binds the snapshot settings for [`assert_screen_snapshot!`] (not public API).
#[doc(hidden)]
#[macro_export]
macro_rules! __termloom_snapshot_settings {
    ($source:expr) => {{
        let mut __termloom_settings = $crate::testing::__settings_for(
            $crate::testing::SnapshotSource::snapshot_folder($source),
            ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        );
        if let ::core::option::Option::Some(description) =
            $crate::testing::SnapshotSource::snapshot_description($source)
        {
            __termloom_settings.set_description(description);
        }
        __termloom_settings.bind_to_scope()
    }};
}

/// Where pictures of failed screens go: `termloom-screens/` in the target directory of the
/// test binary (`target/termloom-screens/`), or in the temporary directory.
fn pictures_dir() -> PathBuf {
    let exe = std::env::current_exe().ok();
    let target = exe.as_deref().and_then(|exe| {
        let deps = exe.parent()?;
        (deps.file_name()? == "deps").then(|| deps.parent()?.parent())?
    });
    target.map_or_else(std::env::temp_dir, Path::to_path_buf).join("termloom-screens")
}

/// Writes `styled` as an SVG picture named after the running test; its path, or `None` if it
/// could not be written.
fn save_picture(styled: &StyledScreen) -> Option<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let dir = pictures_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let test = std::thread::current().name().unwrap_or("test").replace("::", "__");
    let number = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{test}-{}-{number}.svg", std::process::id()));
    std::fs::write(&path, styled.to_svg(&crate::SvgOptions::default())).ok()?;
    Some(path)
}

/// Saves a picture of a snapshot's screen if the snapshot assertion fails (it is dropped while
/// the test panics). Not public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct __PictureOnFailure(pub Option<StyledScreen>);

impl Drop for __PictureOnFailure {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(path) = self.0.as_ref().and_then(save_picture)
        {
            eprintln!("termloom: picture of the screen: {}", path.display());
        }
    }
}

/// A [`TestSessionBuilder`] for a binary of the package under test, by its name:
/// `bin!("todo")` is `TestSession::builder(env!("CARGO_BIN_EXE_todo"))` (Cargo builds the
/// package's binaries for its integration tests and names them in these variables).
///
/// ```ignore
/// use termloom::testing::bin;
///
/// let app = bin!("todo").arg("--demo").start();
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __termloom_bin {
    ($name:literal) => {
        $crate::testing::TestSession::builder(::core::env!(::core::concat!(
            "CARGO_BIN_EXE_",
            $name
        )))
    };
}

#[doc(inline)]
pub use crate::__termloom_bin as bin;
pub use crate::assert_screen_snapshot;

/// This process's user name in the password database (`/etc/passwd`), else `USER`.
fn user_name() -> Option<String> {
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.get(2) == Some(&uid.as_str()))
        .and_then(|fields| fields.first().map(|name| (*name).to_owned()))
        .or_else(|| std::env::var("USER").ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cursor, Modes};

    fn screen(rows: &[&str], cursor: (u16, u16, bool)) -> Screen {
        Screen {
            cols: 12,
            rows: rows.len() as u16,
            lines: rows.iter().map(|r| r.to_string()).collect(),
            cursor: Cursor { row: cursor.0, col: cursor.1, visible: cursor.2 },
            alternate: true,
            title: "t\"x".into(),
            modes: Modes::OFF,
            wrapped: Vec::new(),
        }
    }

    #[test]
    fn hidden_cursor_has_no_caret_and_wide_rows_keep_their_cells() {
        let text = format_screen(&screen(&["日本", "", "x"], (0, 4, false)));
        assert_eq!(
            text,
            "screen: 12x3, alternate\ncursor: hidden\ntitle: \"t\\\"x\"\n   \
             ┌────────────┐\n 0 │日本\n 1 │\n 2 │x\n   └────────────┘\n"
        );
        let text = format_screen(&screen(&["日本", "", "x"], (0, 4, true)));
        assert!(text.contains(" 0 │日本\n   ┆    ^\n"), "{text}");
    }

    /// By the conditions themselves, at any depth, never by their descriptions (a text that
    /// reads "a, exit, b" is no exit condition).
    #[test]
    fn exit_conditions_are_recognised() {
        assert!(Until::exit().includes_exit());
        assert!(Until::any(vec![Until::text("a"), Until::exit()]).includes_exit());
        let nested = Until::any(vec![Until::text("never"), Until::any(vec![Until::exit()])]);
        assert!(nested.includes_exit());
        assert!(!Until::text("exit").includes_exit());
        assert!(!Until::any(vec![Until::text("a, exit, b")]).includes_exit());
    }

    #[test]
    fn redactions_apply_in_order() {
        let r = Redactions::new()
            .home(Path::new("/tmp/h-1"))
            .dates()
            .clock_times()
            .literal("a$b", "[X]")
            .pid(77);
        assert_eq!(
            r.apply("/tmp/h-1/x 2024-01-02 03:04:05 a$b 77 177"),
            "[HOME]/x [DATE] [TIME] [X] [PID] 177"
        );
        assert_eq!(Redactions::new().durations().apply("in 12ms, 3.5 s, 2m3s; 4 items"), {
            "in [DURATION], [DURATION], [DURATION]; 4 items"
        });
    }

    /// A text wrapped over rows is redacted as the line it is and laid out again over the
    /// same rows; rows the terminal did not join stay apart, and unchanged lines as they were.
    #[test]
    fn redactions_see_lines_wrapped_over_rows() {
        let rows =
            ["ab /tmp/ho", "me-123/x", "/tmp/ho", "me-123", "0123456789", "/tmp/home-", "123 end"];
        let mut wrapped = screen(&rows, (0, 0, false));
        wrapped.cols = 10;
        wrapped.title = "in /tmp/home-123".into();
        wrapped.wrapped = vec![true, false, false, false, true, true, false];
        let redactions = Redactions::new().literal("/tmp/home-123", "[HOME]");
        let redacted = redactions.apply_to_screen(&wrapped);
        assert_eq!(
            redacted.lines,
            ["ab [HOME]/", "x", "/tmp/ho", "me-123", "0123456789", "[HOME] end", ""]
        );
        assert_eq!(redacted.title, "in [HOME]");
        assert_eq!(
            (redacted.rows, redacted.cursor, redacted.wrapped.len()),
            (7, wrapped.cursor, 7)
        );
        // Nothing to redact: the same screen.
        assert_eq!(Redactions::new().literal("absent", "x").apply_to_screen(&wrapped), wrapped);
        // Wide characters that do not fit go to the next row; the last row takes the rest.
        assert_eq!(split_rows("日本語日本語", 5, 2), ["日本", "語日本語"]);
    }

    /// Styled runs move with the text a redaction changed: after a replacement they shift, over
    /// a replaced text they cover its replacement, past the text (coloured trailing blanks)
    /// they shift too, and on a line wrapped over rows they follow the new layout.
    #[test]
    fn styled_runs_move_with_a_redacted_line() {
        let run = |row, col, width| crate::StyleRun::new(row, col, width, "red", "default", vec![]);
        let moved = |rows: &[&str], wrapped: Vec<bool>, runs: Vec<crate::StyleRun>| {
            let mut plain = screen(rows, (0, 0, false));
            plain.wrapped = wrapped;
            let styled = StyledScreen { screen: plain, runs };
            let redactions = Redactions::new().literal("4242", "[PID]").durations();
            let runs = redactions.apply_to_styled_screen(&styled).runs;
            runs.iter().map(|r| (r.row, r.col, r.width)).collect::<Vec<_>>()
        };
        // "pid 4242 ok 5ms": "4242" (4-7), "ok" (9-10), "ms" (13-14), then a colour that
        // fills the row (30-39) past the text, and one from "5ms" to the row's end.
        let runs = vec![run(0, 4, 4), run(0, 9, 2), run(0, 13, 2), run(0, 30, 10), run(1, 0, 1)];
        // On 40 columns: "pid [PID] ok [DURATION]".
        let wide = |rows: &[&str], runs| {
            let mut plain = screen(rows, (0, 0, false));
            plain.cols = 40;
            let styled = StyledScreen { screen: plain, runs };
            let redactions = Redactions::new().literal("4242", "[PID]").durations();
            let runs = redactions.apply_to_styled_screen(&styled).runs;
            runs.iter().map(|r| (r.row, r.col, r.width)).collect::<Vec<_>>()
        };
        assert_eq!(
            wide(&["pid 4242 ok 5ms", "x"], runs),
            [(0, 4, 5), (0, 10, 2), (0, 13, 10), (0, 30, 10), (1, 0, 1)]
        );
        // Past the text, what the longer redacted text covers is left to the text's runs.
        assert_eq!(
            wide(&["pid 4242 ok 5ms", "x"], vec![run(0, 12, 28), run(0, 16, 6)]),
            [(0, 13, 27)]
        );
        // Wrapped over two rows of 12: "ab 4242 cd e" + "f": "[PID]" moves "cd" to the
        // first row's end and "e" to the second row.
        assert_eq!(
            moved(
                &["ab 4242 cd e", "f"],
                vec![true],
                vec![run(0, 8, 2), run(0, 11, 1), run(1, 0, 1)]
            ),
            [(0, 9, 2), (1, 0, 1), (1, 1, 1)]
        );
    }

    /// The cursor on a line a redaction changed moves with the text after the change (a
    /// prompt showing a redacted path), stays before it, and goes to the change's end from
    /// inside it: where it is does not depend on what was redacted.
    #[test]
    fn the_cursor_moves_with_a_redacted_line() {
        let cursor_at = |rows: &[&str], cols: u16, wrapped: Vec<bool>, at: (u16, u16)| {
            let mut screen = screen(rows, (at.0, at.1, true));
            (screen.cols, screen.wrapped) = (cols, wrapped);
            let redacted = Redactions::new().literal("/home/alice-1234", "[HOME]");
            let cursor = redacted.apply_to_screen(&screen).cursor;
            (cursor.row, cursor.col)
        };
        let prompt = ["x", "me@host:/home/alice-1234$"];
        // Past the prompt (two blanks after it), at its start, inside the path.
        assert_eq!(cursor_at(&prompt, 40, vec![], (1, 27)), (1, 17));
        assert_eq!(cursor_at(&prompt, 40, vec![], (1, 0)), (1, 0));
        assert_eq!(cursor_at(&prompt, 40, vec![], (1, 12)), (1, 14));
        // The cursor on another row stays where it is.
        assert_eq!(cursor_at(&prompt, 40, vec![], (0, 1)), (0, 1));
        // A line wrapped over two rows of 12: the cursor after it, on its second row, comes
        // back to the first row, which now holds all of it.
        let wrapped = ["ab /home/ali", "ce-1234/x"];
        assert_eq!(cursor_at(&wrapped, 12, vec![true], (1, 9)), (0, 11));
        assert_eq!(cursor_at(&wrapped, 12, vec![true], (0, 1)), (0, 1));
        // Redacted to something longer, the cursor moves right on the second row, and stays
        // in the last column of the line's last row when the line overflows its rows.
        let longer = |rows: &[&str], at: (u16, u16)| {
            let mut screen = screen(rows, (at.0, at.1, true));
            (screen.cols, screen.wrapped) = (12, vec![true]);
            let cursor = Redactions::new().literal("ali", "[SOMEONE]").apply_to_screen(&screen);
            (cursor.cursor.row, cursor.cursor.col)
        };
        assert_eq!(longer(&["ab /home/ali", "ce/x"], (1, 4)), (1, 10));
        assert_eq!(longer(&wrapped, (1, 9)), (1, 11));
        assert_eq!(split_rows("ab  ", 5, 3), ["ab", "", ""]);
    }
}
