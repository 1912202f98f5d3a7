//! What to run in a session: [`SpawnSpec`].

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::os::isolation::{IsolationSpec, Limit};

/// How the session's program is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Run this program with these arguments, no shell involved.
    Argv(OsString, Vec<OsString>),
    /// Run this command line through a bash-like shell with `-lc`.
    Shell(String),
}

/// A description of a session to start: the program, its working directory, environment and
/// terminal size.
///
/// ```no_run
/// # use termloom::{Engine, Config, SpawnSpec};
/// let engine = Engine::new(Config::default())?;
/// let vim = engine.spawn(SpawnSpec::new("vim").arg("notes.txt").size(100, 30))?;
/// let shell = engine.spawn(SpawnSpec::shell("ls -l | head").cwd("/tmp"))?;
/// # Ok::<(), termloom::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnSpec {
    pub(crate) command: Command,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) env: Vec<(OsString, Option<OsString>)>,
    pub(crate) size: Option<(u16, u16)>,
    pub(crate) shell_integration: bool,
    pub(crate) isolation: IsolationSpec,
    pub(crate) record: Option<PathBuf>,
    /// Record in `Config::record_dir` (the MCP tools' `record`).
    pub(crate) record_in_dir: bool,
    pub(crate) record_input: bool,
    /// Record in memory, at most this many bytes of events.
    pub(crate) record_memory: Option<usize>,
    /// A command line the caller will type into the shell at once (`terminal_run`'s new
    /// shell): the spawn policy decides it with the start.
    pub(crate) typed_line: Option<String>,
    pub(crate) confinement: Option<crate::Confinement>,
}

impl SpawnSpec {
    /// Runs `program` directly (looked up in `PATH` when it has no slash), with no shell.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self::from_command(Command::Argv(program.as_ref().to_owned(), Vec::new()))
    }

    /// Runs `line` as a shell command line: `$SHELL -lc LINE` when `$SHELL` names bash or zsh,
    /// otherwise `bash -lc LINE`. `-l` makes it a login shell, so the user's profile is read.
    /// A blank line is refused by the start ([`Error::InvalidInput`](crate::Error::InvalidInput)).
    pub fn shell(line: impl Into<String>) -> Self {
        Self::from_command(Command::Shell(line.into()))
    }

    fn from_command(command: Command) -> Self {
        SpawnSpec {
            command,
            cwd: None,
            env: Vec::new(),
            size: None,
            shell_integration: false,
            isolation: IsolationSpec::default(),
            record: None,
            record_in_dir: false,
            record_input: false,
            record_memory: None,
            typed_line: None,
            confinement: None,
        }
    }

    /// Says which command line the caller will type into this shell first, so that the spawn
    /// policy decides it together with the start (the MCP `terminal_run` in a new shell).
    pub(crate) fn typed_line(mut self, line: &str) -> Self {
        self.typed_line = Some(line.to_owned());
        self
    }

    /// Records the session to `path` in asciicast v2 (`asciinema play` replays it): its
    /// output with timestamps, resizes, and a marker where each wait ended. The recording is
    /// a new file, mode 0600, made beside `path` (in its directory, under a temporary name)
    /// and renamed over it once the program has started: an existing file is replaced, not
    /// written into (a reader who had it open, its owner, its other hard links see nothing of
    /// the recording), and a start that fails, or whose file's header cannot be written (a
    /// full disk), leaves `path` as it was. An existing file that cannot be replaced is
    /// written into in place instead (made private, then emptied): a mount point (a
    /// single-file bind mount), a file in a directory the caller cannot write, another user's
    /// file in a sticky directory that is not the caller's. A FIFO or a device (`/dev/null`)
    /// is written to as it is, and a link of /proc (`/dev/stdout`, `/dev/fd/N`,
    /// `/proc/self/fd/N`) is written through, into the file it has open, never replaced. A
    /// path that ends in `/` is refused, as is a path another session records to (its file
    /// is locked while it is written). A symbolic link at `path` is followed (dangling, the
    /// recording is made where it points) when the caller's effective user or root owns it;
    /// another user's link is refused (see SECURITY.md). A write to the file that fails (a
    /// full disk) ends the recording, and a rename that fails once the program started (the
    /// file is not replaced: the recording stays under its temporary name) is told:
    /// [`SessionInfo::recording_error`](crate::SessionInfo::recording_error) says why, and
    /// where the recording is. See also `Config::record_dir`.
    pub fn record(mut self, path: impl AsRef<Path>) -> Self {
        self.record = Some(path.as_ref().to_owned());
        self
    }

    /// Records the session in `Config::record_dir`, under a name the engine picks
    /// ([`SessionInfo::recording`](crate::SessionInfo::recording) says which); the spawn fails
    /// if no `record_dir` is configured.
    pub fn record_in_dir(mut self) -> Self {
        self.record_in_dir = true;
        self
    }

    /// Records the session in memory instead of a file: asciicast v2 text that
    /// [`Session::recording`](crate::Session::recording) returns, the header and the newest
    /// events within `max_bytes` (1 KiB..=1 GiB; the oldest events go first, and a marker says
    /// how many, the header then giving the size of the newest resize among them; the newest
    /// output event is kept even when it alone is larger, one read of at
    /// most 64 KiB of output). It outlives the program, as long as the session is kept.
    pub fn record_to_memory(mut self, max_bytes: usize) -> Self {
        self.record_memory = Some(max_bytes);
        self
    }

    /// Records what is typed into the session too (off by default: input may hold secrets).
    /// Input typed or pasted at a password prompt, as things are when the input is queued, is
    /// left out: one marker event stands for each run of it. A password prompt is the
    /// session's terminal reading lines without echoing them (canonical mode, echo off); or,
    /// while it takes keys without echo (the raw mode a relay sets), a terminal a program of
    /// the session hosts and relays to (`sudo` with `use_pty`, `script`) reading lines
    /// without echo; or, where the terminal that reads the keys cannot be read (the remote
    /// end of `ssh`; a hosted terminal of another user), the cursor right after a prompt that
    /// ends in a colon and names a password, passphrase, passcode or PIN (and the masks it
    /// shows for the keys typed so far, `*`). A prompt worded
    /// otherwise on such a terminal is not seen: what is typed there is recorded.
    pub fn record_input(mut self, enabled: bool) -> Self {
        self.record_input = enabled;
        self
    }

    /// Appends one argument (ignored by [`SpawnSpec::shell`] specs).
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        if let Command::Argv(_, args) = &mut self.command {
            args.push(arg.as_ref().to_owned());
        }
        self
    }

    /// Appends several arguments (ignored by [`SpawnSpec::shell`] specs).
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for arg in args {
            self = self.arg(arg);
        }
        self
    }

    /// Sets the working directory; a relative one is resolved against the engine's
    /// `Config::base_dir`. A directory that does not exist fails the spawn.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    /// Sets one environment variable for the child, over the inherited environment. Entries
    /// given here always win over termloom's own defaults (`TERM`, `LANG`...).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Removes one variable from the child's environment.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// Sets the terminal size in columns and rows (default: the engine's `Config`).
    pub fn size(mut self, cols: u16, rows: u16) -> Self {
        self.size = Some((cols, rows));
        self
    }

    /// Starts bash or zsh with OSC 133 prompt marks injected (see `os/shell_files.rs` in
    /// ARCHITECTURE.md): the user's startup files are still read and the prompt looks the
    /// same. Enables [`Until::prompt`](crate::Until::prompt),
    /// [`Session::run_command`](crate::Session::run_command) and the at-prompt status. Spawning
    /// another program with it fails.
    pub fn shell_integration(mut self, enabled: bool) -> Self {
        self.shell_integration = enabled;
        self
    }

    /// An interactive shell: `$SHELL` when it is bash or zsh, otherwise bash; with shell
    /// integration on.
    pub fn interactive_shell() -> Self {
        SpawnSpec::new(shell_program()).shell_integration(true)
    }

    /// Runs the program as another user (a name or a numeric id from `/etc/passwd`), with that
    /// user's primary group and no supplementary groups unless [`SpawnSpec::groups`] says
    /// otherwise; `HOME`, `USER` and `LOGNAME` follow unless set explicitly. Needs root.
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.isolation.user = Some(user.into());
        self
    }

    /// Runs the program with this primary group (a name or a numeric id). Needs root.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.isolation.group = Some(group.into());
        self
    }

    /// Sets the supplementary groups (an empty list drops them all). Needs root.
    pub fn groups<I, S>(mut self, groups: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.isolation.supplementary_groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// Sets `no_new_privs`: sudo, su and setuid programs cannot raise privileges.
    pub fn no_new_privs(mut self, enabled: bool) -> Self {
        self.isolation.no_new_privs = enabled;
        self
    }

    /// Confines the session with Landlock: reads anywhere, writes only in its working
    /// directory and the listed paths, no TCP unless allowed (see [`crate::Confinement`]).
    /// Sets `no_new_privs` too, so sudo cannot work in it. Where the engine's
    /// [`Config::confinement`](crate::Config::confinement) is set, that one applies and this
    /// can only take away (network, best effort), never add writable paths.
    pub fn confine(mut self, confinement: crate::Confinement) -> Self {
        self.confinement = Some(confinement);
        self
    }

    /// Adds a resource limit (soft and hard).
    pub fn rlimit(mut self, limit: Limit) -> Self {
        self.isolation.limits.push(limit);
        self
    }

    /// A short name of the program for messages and listings.
    pub fn program_name(&self) -> String {
        match &self.command {
            Command::Argv(program, _) => program.to_string_lossy().into_owned(),
            Command::Shell(line) => line.clone(),
        }
    }

    /// Refuses a program with no name, which no `PATH` look-up can find, a blank command line
    /// (`$SHELL -lc ''` runs nothing and exits 0; `Session::run_command` refuses one too), and
    /// a NUL byte in the program, an argument, the command line or the working directory,
    /// which no C string (what `exec` and `chdir` take) can hold.
    pub(crate) fn check_program(&self) -> crate::Result<()> {
        let nul = |what: &str, text: &OsStr| -> crate::Result<()> {
            match text.as_encoded_bytes().contains(&0) {
                true => Err(crate::Error::InvalidInput(format!(
                    "the {what} {} contains a NUL byte, which cannot be passed to a program; remove it",
                    crate::error::quoted_os(text)
                ))),
                false => Ok(()),
            }
        };
        match &self.command {
            Command::Argv(program, _) if program.is_empty() => {
                return Err(crate::Error::InvalidInput(
                    "the program to start has an empty name: name one (SpawnSpec::new(\"bash\")), or give a shell command line (SpawnSpec::shell)".into(),
                ));
            }
            Command::Argv(program, args) => {
                nul("program", program)?;
                args.iter().try_for_each(|arg| nul("argument", arg))?;
            }
            Command::Shell(line) if line.trim().is_empty() => {
                return Err(crate::Error::InvalidInput(
                    "the command line to run is blank: give one (SpawnSpec::shell(\"make test\")), or start an interactive shell (SpawnSpec::interactive_shell)".into(),
                ));
            }
            Command::Shell(line) => nul("command line", OsStr::new(line))?,
        }
        match &self.cwd {
            Some(cwd) => nul("working directory", cwd.as_os_str()),
            None => Ok(()),
        }
    }

    /// Refuses environment entries no environment can hold: an empty name, a name with `=`
    /// or NUL, a value with NUL.
    pub(crate) fn check_env(&self) -> crate::Result<()> {
        for (name, value) in &self.env {
            let name_bytes = name.as_encoded_bytes();
            let problem = if name_bytes.is_empty() {
                Some("an empty name")
            } else if name_bytes.contains(&b'=') {
                Some("a name containing `=`")
            } else if name_bytes.contains(&0) {
                Some("a name containing NUL")
            } else if value.as_ref().is_some_and(|v| v.as_encoded_bytes().contains(&0)) {
                Some("a value containing NUL")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(crate::Error::InvalidInput(format!(
                    "environment variable {}: {problem} cannot be passed to a program",
                    crate::error::quoted_os(name)
                )));
            }
        }
        Ok(())
    }

    /// The argv actually executed.
    pub(crate) fn argv(&self) -> Vec<OsString> {
        match &self.command {
            Command::Argv(program, args) => {
                std::iter::once(program.clone()).chain(args.iter().cloned()).collect()
            }
            Command::Shell(line) => {
                vec![shell_program().into(), "-lc".into(), line.into()]
            }
        }
    }
}

/// The shell used for [`SpawnSpec::shell`]: `$SHELL` if it is bash or zsh, else `bash`.
pub fn shell_program() -> String {
    if let Ok(shell) = std::env::var("SHELL") {
        let name = Path::new(&shell).file_name().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "bash" | "zsh") {
            return shell;
        }
    }
    "bash".to_owned()
}
