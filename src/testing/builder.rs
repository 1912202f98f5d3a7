//! Starting a test session: [`TestSessionBuilder`], its temporary `HOME` and fixed
//! environment.

use super::*;

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

#[derive(Debug)]
pub(super) struct TempHome {
    pub(super) path: PathBuf,
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
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| sweep_left_homes(&base, LEFT_HOME_AGE));
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

/// How old a home left by a test process that is gone must be before it is removed: a test
/// of another PID namespace sharing `/tmp` may live under a pid that looks free here, but
/// not for a day.
const LEFT_HOME_AGE: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Removes the temporary homes in `base` that test processes left when they were killed (a
/// `SIGKILL`, a CI timeout: no drop ran): those of this user, named after a pid with no
/// process, not changed for `age`.
fn sweep_left_homes(base: &Path, age: std::time::Duration) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(base) else { return };
    let uid = rustix::process::getuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix("termloom-home-"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, n)| (pid.len() == 7 && n.len() == 4).then_some(pid))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(meta) = entry.path().symlink_metadata() else { continue };
        let old = meta.modified().ok().and_then(|t| t.elapsed().ok()).is_some_and(|e| e >= age);
        if crate::os::procfs::numbers_ours()
            && meta.is_dir()
            && meta.uid() == uid
            && old
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
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
    close_grace: Duration,
    config: Config,
    redactions: Redactions,
    ready: Vec<Until>,
    /// Whether [`TestSessionBuilder::start`] first waits for bash's prompt (whatever `PS1`
    /// says, so long as it draws something): [`TestSession::bash`].
    pub(super) bash_prompt: bool,
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
    /// temporary `HOME`. A relative path with a slash (`./run.sh`), like a relative file
    /// argument, is taken in the session's working directory, the temporary `HOME` unless
    /// [`cwd`](Self::cwd) says otherwise, not in the test's: name a file of the crate by its
    /// absolute path, `concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/run.sh")`.
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
            close_grace: DEFAULT_CLOSE_GRACE,
            config: Config::default(),
            redactions: Redactions::new(),
            ready: Vec::new(),
            bash_prompt: false,
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
    /// `TMPDIR` and toolchain locations are kept), even one whose name or value looks like a
    /// credential (`API_TOKEN`), which a session otherwise never gets from the host (see
    /// [`Config::env_allow`]): the test named it. [`TestSessionBuilder::start`] panics when
    /// the configuration's [`Config::env_deny`] names it too.
    ///
    /// The host's value replaces the kit's fixed one (`keep_env("TERM")` gives the program
    /// the host's `TERM`, not `xterm-256color`) and an earlier [`env`](Self::env) or
    /// [`env_remove`](Self::env_remove) of it; a variable the host does not have is then
    /// unset. A later `env` or `env_remove` changes it again.
    pub fn keep_env(mut self, key: impl Into<String>) -> Self {
        let key = key.into();
        // The kit's value (or an earlier call's) would be set over the host's, and the
        // engine sets `TERM` and `COLORTERM` of its own: the host's value is set, as `env`
        // would set it (a later `env` is set over it).
        self.spec.env.retain(|(name, _)| name.as_os_str() != OsStr::new(&key));
        self.spec = match std::env::var_os(&key) {
            Some(value) => self.spec.env(&key, value),
            None => self.spec.env_remove(&key),
        };
        self.keep_env.push(key);
        self
    }

    /// Starts bash or zsh with shell integration, its prompt marked as
    /// [`SpawnSpec::shell_integration`] marks it (the prompt looks the same): for
    /// [`Session::run_command`](crate::Session::run_command), each command's output and exit
    /// code, and [`Until::prompt`], through the session's `Deref`
    /// (`TestSession::bash().shell_integration(true).start()`). Without it they fail: no
    /// prompt is marked. Another program fails to start.
    pub fn shell_integration(mut self, enabled: bool) -> Self {
        self.spec = self.spec.shell_integration(enabled);
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
    /// reading the terminal) is never taken as stuck, nor one beside which another process of
    /// the session runs (a shell's background job, `cmd &`), which may still print.
    pub fn stuck_after(mut self, grace: Option<Duration>) -> Self {
        self.stuck_after = grace;
        self
    }

    /// Sets the engine's configuration. Its `cols` and `rows` are not used: the terminal's
    /// size is [`TestSessionBuilder::size`]'s, 80x24 unless set; nor is its `close_grace`:
    /// the kit's is [`TestSessionBuilder::close_grace`]'s, 1 s unless set.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sets how long closing the session (dropping it, [`TestSession::close`]) waits after
    /// its hangup before it kills what still runs (default [`DEFAULT_CLOSE_GRACE`], 1 s;
    /// `SIGTERM` goes 0.5 s after the hangup; [`Config::close_grace`] says how the close
    /// goes): a program that ignores `SIGHUP` and
    /// `SIGTERM` costs the test that long. Longer for a program whose test checks what it
    /// does as it is closed (saving a file, say) and takes more time; at most 10 minutes.
    pub fn close_grace(mut self, grace: Duration) -> Self {
        self.close_grace = grace;
        self
    }

    /// Writes a file into the temporary `HOME` now (`path` relative to it; parent directories
    /// are made): a document to open, a configuration file the program reads.
    ///
    /// # Panics
    ///
    /// When the file cannot be written, or `path` would lead out of the temporary `HOME`
    /// (an absolute path, or one with `..`): nothing is written then.
    #[track_caller]
    pub fn file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Self {
        let path = path.as_ref();
        if !path.components().all(|part| {
            matches!(part, std::path::Component::Normal(_) | std::path::Component::CurDir)
        }) {
            panic!(
                "termloom: file({}) must name a path inside the temporary HOME, relative to it and without `..`; nothing was written",
                path.display()
            );
        }
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

    /// The command line, for messages and snapshot descriptions, with the `HOME`, the target
    /// directory (`[TARGET]`, [`Redactions::target_dir`]) and the crate's directory redacted
    /// (`[CRATE]`, [`Redactions::crate_dir`]), with the session's own redactions. A program
    /// given by an absolute path (such as `env!("CARGO_BIN_EXE_app")`) is named by its file
    /// name: none of it depends on where the repository is checked out.
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
        self.session_redactions(None).and(Self::build_paths()).apply(&line)
    }

    /// The target directory's and the crate's redactions (`[TARGET]`, `[CRATE]`): paths of
    /// the test's own.
    fn build_paths() -> Redactions {
        Redactions::new().target_dir().crate_dir()
    }

    /// `text` with paths redacted, and nothing else: the temporary `HOME` (`[HOME]`), the
    /// target directory (`[TARGET]`) and the crate's (`[CRATE]`), for the messages of a
    /// failed start. The test's own redactions ([`TestSessionBuilder::redact`]) are for what
    /// the program shows: on the engine's message they could hide what went wrong.
    fn paths_redacted(&self, text: &str) -> String {
        Redactions::new().home(&self.home.path).and(Self::build_paths()).apply(text)
    }

    /// For a failed start: where a relative program path with a slash was looked for (the
    /// session's working directory, not the test's), or nothing.
    fn relative_program_hint(&self) -> String {
        let argv = self.spec.argv();
        let program = Path::new(&argv[0]);
        if !program.is_relative() || program.components().count() < 2 {
            return String::new();
        }
        let cwd = self.spec.cwd.as_deref().unwrap_or(&self.home.path).to_string_lossy();
        format!(
            " (a relative path is taken in the session's working directory, {}, not the test's: name a file of the crate by its absolute path)",
            self.paths_redacted(&cwd)
        )
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
        let mut config =
            Config { cols, rows, close_grace: self.close_grace, ..self.config.clone() };
        // A variable both kept and denied would be left out without a word.
        if let Some(denied) = self.keep_env.iter().find(|name| config.env_deny.contains(name)) {
            panic!(
                "termloom: keep_env({denied:?}) names a variable the configuration's env_deny leaves out; drop one of them"
            );
        }
        // A kept variable is kept even if it looks like a credential: the test asked for it.
        config.env_allow.extend(self.keep_env.iter().cloned());
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
        let session = or_panic(engine.spawn(spec), |e| {
            // The engine's message begins as this one does (`cannot start "prog": `), or
            // says so after `invalid input: ` (a refused shell integration): once.
            let message = e.to_string();
            let once = |program: &str, message: &str| {
                let said = format!("cannot start {}: ", crate::error::quoted(program));
                message.strip_prefix(&said).map(str::to_owned)
            };
            let why = match &e {
                crate::Error::Spawn { program, .. } => once(program, &message),
                crate::Error::InvalidInput(inner) => once(&self.spec.program_name(), inner)
                    .map(|why| format!("invalid input: {why}")),
                _ => None,
            };
            let why = why.unwrap_or(message);
            // (A working directory that does not exist is named as `[HOME]/missing`.)
            let why = self.paths_redacted(&why);
            format!("termloom: cannot start `{command}`: {why}{}", self.relative_program_hint())
        });
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
        // bash's prompt, as `PS1` draws it (`$ `, or a test's own such as `\u@\h:\w\$ `, which
        // shows `#` for root): the screen is no longer blank, or the cursor has moved.
        let ps1 = self.spec.env.iter().rev().find(|(name, _)| name == "PS1");
        let draws = ps1.is_some_and(|(_, value)| {
            value.as_deref().is_some_and(|ps1| prompt_draws(&ps1.to_string_lossy()))
        });
        if self.bash_prompt && draws {
            test.wait_until(Until::screen_matches("bash's prompt", |screen| {
                (screen.cursor.row, screen.cursor.col) != (0, 0)
                    || screen.lines.iter().any(|line| !line.trim().is_empty())
            }));
        }
        for until in self.ready {
            test.wait_until(until);
        }
        test
    }
}

/// Whether bash's prompt `PS1` draws something: anything outside its `\[ ... \]` spans (the
/// escape sequences that move nothing: colours, a window title). A prompt of such spans alone
/// leaves the screen blank and the cursor where it was, and is waited for by bash's read alone.
fn prompt_draws(ps1: &str) -> bool {
    let mut rest = ps1;
    while let Some(start) = rest.find("\\[") {
        if start > 0 {
            return true;
        }
        rest = rest.find("\\]").map_or("", |end| &rest[end + 2..]);
    }
    !rest.is_empty()
}

#[cfg(test)]
mod tests {
    /// Homes a killed test process left are removed once a day old; a recent one, one of a
    /// live process and other names are kept.
    #[test]
    fn homes_left_by_killed_test_processes_are_swept_once_old() {
        let base = std::env::temp_dir().join(format!("termloom-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let make = |name: &str, old: bool| {
            let dir = base.join(name);
            std::fs::create_dir_all(dir.join(".config")).unwrap();
            if old {
                let then = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
                std::fs::File::open(&dir).unwrap().set_modified(then).unwrap();
            }
            dir
        };
        // (No pid reaches 9,999,999: the kernel's limit is 4,194,304.)
        let left = make("termloom-home-9999999-0001", true);
        let recent = make("termloom-home-9999999-0002", false);
        let live = make(&format!("termloom-home-{:07}-0001", std::process::id()), true);
        let other = make("termloom-home-x", true);
        super::sweep_left_homes(&base, std::time::Duration::from_secs(3600));
        assert!(!left.exists() || !crate::os::procfs::numbers_ours());
        assert!(recent.exists() && live.exists() && other.exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    use super::prompt_draws;

    /// A prompt is waited for on the screen unless it is made of `\[ ... \]` spans alone.
    #[test]
    fn a_prompt_of_escape_spans_alone_draws_nothing() {
        for drawn in ["$ ", r"\u@\h:\w\$ ", r"\[\e[1m\]$\[\e[0m\] ", r"x\[\e[0m\]", " "] {
            assert!(prompt_draws(drawn), "{drawn}");
        }
        for blank in ["", r"\[\e[0m\]", r"\[\e]0;title\a\]\[\e[0m\]", r"\[\e[0m"] {
            assert!(!prompt_draws(blank), "{blank}");
        }
    }
}
