//! Finding the server of a client command: `-L NAME` / `--socket PATH`, and starting the
//! server on first use, as tmux does (detached, logging to a file beside its socket).

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use termloom::server::{
    CLOSING_WAIT, Client, check_socket_dir, check_socket_path, prepare_socket_dir, socket_path,
};

/// How long a client waits for a server it started to listen: longer than that server waits
/// for one still closing on the socket ([`CLOSING_WAIT`]), so that the client sees it give up
/// and says why, rather than give up first, advising what does not help.
const START_TIMEOUT: Duration = CLOSING_WAIT.saturating_add(Duration::from_secs(5));

/// Which server a command talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    /// Its socket.
    pub socket: PathBuf,
    /// Why `$TERMLOOM_SOCKET` cannot name a socket, while no `-L` or `--socket` overrides it
    /// (see [`Target::checked`]).
    unusable_variable: Option<String>,
}

impl Default for Target {
    fn default() -> Self {
        Target { socket: socket_path("default"), unusable_variable: None }
    }
}

/// The variable naming the socket of the server every command reaches when it is given no
/// `-L` or `--socket`, as `--socket PATH` does.
pub(super) const SOCKET_VARIABLE: &str = "TERMLOOM_SOCKET";

impl Target {
    /// The server a command reaches unless told otherwise: `$TERMLOOM_SOCKET`'s when it is
    /// set and not empty, else the default one (`-L default`). A variable that cannot name a
    /// socket matters only to a command given no `-L` or `--socket` ([`Target::checked`]).
    pub(super) fn from_environment() -> Target {
        let Some(path) = std::env::var_os(SOCKET_VARIABLE).filter(|path| !path.is_empty()) else {
            return Target::default();
        };
        let socket = PathBuf::from(path);
        match check_socket_path(&socket) {
            Ok(()) => Target { socket, unusable_variable: None },
            Err(err) => Target {
                unusable_variable: Some(format!("${SOCKET_VARIABLE}: {err}")),
                ..Target::default()
            },
        }
    }

    /// Once the command line is read: the target, or why `$TERMLOOM_SOCKET` cannot name the
    /// server when no `-L` or `--socket` was given instead.
    pub(super) fn checked(&self) -> Result<(), String> {
        self.unusable_variable.clone().map_or(Ok(()), Err)
    }

    /// Reads `-L NAME` or `--socket PATH` (with its value taken from `value`); false if `arg`
    /// is neither.
    pub(super) fn option(
        &mut self,
        arg: &str,
        value: impl FnOnce() -> Option<String>,
    ) -> Result<bool, String> {
        let socket = match arg {
            "-L" => {
                let label = value().ok_or("-L needs a NAME")?;
                // The socket's file name in termloom's directory: `.` and `..` would name a
                // directory (the socket's own, or the one above it) in the socket's place.
                if label.is_empty() || label.contains('/') || label == "." || label == ".." {
                    return Err(format!(
                        "-L {label:?}: a server name is the socket's file name, so it is not empty, has no slash and is not . or .. (give a path with --socket)"
                    ));
                }
                socket_path(&label)
            }
            "--socket" => PathBuf::from(value().ok_or("--socket needs a PATH")?),
            _ => return Ok(false),
        };
        // Refused here, as a bad command line, rather than when connecting or listening.
        check_socket_path(&socket).map_err(|err| format!("{arg}: {err}"))?;
        *self = Target { socket, unusable_variable: None };
        Ok(true)
    }

    /// Connects to the server there, if one listens: `None` when its socket is missing or
    /// refuses connections (none runs); an error for any other failure to connect, such as
    /// something other than a socket at the path (a directory, a file), which is no server's
    /// socket, for every command alike.
    pub(super) fn try_connect(&self) -> Result<Option<Client>, String> {
        match Client::connect(&self.socket) {
            Ok(client) => Ok(Some(client)),
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                ) =>
            {
                Ok(None)
            }
            Err(err) => Err(format!("cannot connect to {}: {err}", self.socket.display())),
        }
    }

    /// What is said when no server runs there: how to start one, or why none can.
    pub(super) fn none_runs(&self) -> String {
        match check_socket_dir(&self.socket) {
            Ok(()) => format!(
                "no termloom server is running on {}; `termloom start` starts one with a session",
                self.socket.display()
            ),
            Err(refused) => format!(
                "no termloom server is running on {}, and none can: {refused}",
                self.socket.display()
            ),
        }
    }

    /// Whether the server is gone (stopped, or stopping: it takes no connection, or loses
    /// the one it took), asked once a call lost its connection or saw its session closed. A
    /// server being killed may still take a connection for a moment: gone when that
    /// connection is lost too (a server that does not answer at all within 2 s is not said to
    /// be gone).
    pub(super) fn server_gone(&self) -> bool {
        use std::io::ErrorKind;
        let lost = |kind| {
            matches!(
                kind,
                ErrorKind::UnexpectedEof
                    | ErrorKind::BrokenPipe
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
            )
        };
        match Client::connect(&self.socket) {
            Ok(mut probe) => {
                let (answered, answer) = std::sync::mpsc::channel();
                std::thread::spawn(move || answered.send(probe.hello(None).map(drop)));
                answer
                    .recv_timeout(std::time::Duration::from_secs(2))
                    .is_ok_and(|hello| hello.is_err_and(|err| lost(err.kind())))
            }
            Err(err) => matches!(err.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused),
        }
    }

    /// What a command says of a server that stopped while it ran (see [`Target::server_gone`]).
    pub(super) fn stopped_during(&self, what: &str) -> String {
        format!(
            "the termloom server on {} was stopped during {what} (`termloom kill-server`, a signal or a crash), and its sessions ended with it",
            self.socket.display()
        )
    }

    /// Connects to the running server; the error says none runs, and whether one could.
    pub(super) fn connect(&self) -> Result<Client, String> {
        self.try_connect()?.ok_or_else(|| self.none_runs())
    }

    /// Connects to the server, starting one first if none runs.
    pub(super) fn connect_or_start(&self) -> Result<Client, String> {
        if let Some(client) = self.try_connect()? {
            return Ok(client);
        }
        let log = log_path(&self.socket);
        // What the log holds already is an earlier server's.
        let logged_before = std::fs::metadata(&log).map_or(0, |m| m.len());
        let (mut server, remembered) = start_server(&self.socket, &log)?;
        let deadline = Instant::now() + START_TIMEOUT;
        let mut give_up = deadline;
        loop {
            let err = match Client::connect(&self.socket) {
                Ok(client) => return Ok(client),
                Err(err) => err,
            };
            let now = Instant::now();
            if now >= give_up {
                let why = not_listening(&self.socket, &log, logged_before, &err, &mut server);
                // One that found the server before it still closing (its log said so) failed
                // for no fault of its options.
                let closing = matches!(server.try_wait(), Ok(Some(status))
                    if status.code() == Some(super::server::EXIT_CLOSING.into()));
                return Err(match closing {
                    true => why,
                    false => with_remembered(why, &self.socket, &remembered),
                });
            }
            // A server that exited has failed, unless it lost the socket's lock to another
            // client's, which holds the lock only to listen at once: give that one a moment.
            if give_up == deadline && matches!(server.try_wait(), Ok(Some(_))) {
                give_up = deadline.min(now + EXITED_GRACE);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// How long a client still tries to connect once the server it started has exited.
const EXITED_GRACE: Duration = Duration::from_millis(500);

/// Why a server a client started does not listen: how it ended (if it did) and what it
/// logged since `logged_before`, the log's length before it started.
fn not_listening(
    socket: &Path,
    log: &Path,
    logged_before: u64,
    err: &io::Error,
    server: &mut Child,
) -> String {
    let ended = match server.try_wait() {
        Ok(Some(status)) => format!("it exited ({status})"),
        _ => format!("it does not listen ({err})"),
    };
    let said = std::fs::read(log)
        .ok()
        .and_then(|bytes| bytes.get(usize::try_from(logged_before).ok()?..).map(<[u8]>::to_vec))
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .filter(|said| !said.is_empty())
        .map(|said| {
            let said: String = said.chars().take(MAX_LOG_QUOTE).collect();
            format!(": {said}")
        })
        .unwrap_or_default();
    format!(
        "started a termloom server on {}, but {ended}{said} (its log: {})",
        socket.display(),
        log.display()
    )
}

/// `why` a server did not listen, and, when it was given the options the last server on
/// `socket` had, which and where they are recorded: a policy or configuration file since
/// removed fails every server started there, until the options are mended.
fn with_remembered(why: String, socket: &Path, remembered: &[String]) -> String {
    if remembered.is_empty() {
        return why;
    }
    format!(
        "{why}. It had the options of the last server on this socket ({}), recorded in {}: start one with the options it needs (`termloom server --socket {} ...`), or remove that file",
        remembered.join(" "),
        options_path(socket).display(),
        socket.display()
    )
}

/// Most characters of a failed server's log quoted in the client's message.
const MAX_LOG_QUOTE: usize = 2000;

/// The log of a server started on first use: its socket's path with `.log`.
fn log_path(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".log");
    PathBuf::from(name)
}

/// The options of the last server that listened on `socket`: its path with `.options`.
fn options_path(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".options");
    PathBuf::from(name)
}

/// Records the options of a server now listening on `socket` (its `--policy`, `--config`,
/// limits and idle time, paths absolute), so that a server a client starts on first use after
/// this one has gone gets them again: a policy does not vanish when its server idles out.
/// Written to a new file renamed into place, in the socket's private directory.
pub(super) fn remember_options(socket: &Path, options: &[String]) -> Result<(), String> {
    let path = options_path(socket);
    let fresh = path.with_extension("options.new");
    let text: String = options.iter().map(|option| format!("{option}\0")).collect();
    let _ = std::fs::remove_file(&fresh);
    OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&fresh)
        .and_then(|mut file| io::Write::write_all(&mut file, text.as_bytes()))
        .and_then(|()| std::fs::rename(&fresh, &path))
        .map_err(|e| format!("cannot record the server's options in {}: {e}", path.display()))
}

/// The options [`remember_options`] recorded for `socket`, if any.
fn remembered_options(socket: &Path) -> Result<Vec<String>, String> {
    let path = options_path(socket);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.split_terminator('\0').map(str::to_owned).collect()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(format!("cannot read the server's options {}: {err}", path.display())),
    }
}

/// Starts `termloom server --detach` on `socket` with the options the last server there had,
/// its output appended to `log`; returns it and those options. A second client starting one
/// at the same time is harmless: one server takes the socket's lock and the other exits.
fn start_server(socket: &Path, log: &Path) -> Result<(Child, Vec<String>), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find termloom itself: {e}"))?;
    let cannot =
        |e: io::Error| format!("cannot start a termloom server on {}: {e}", socket.display());
    // Something other than a socket in its place was refused before, by the connection
    // tried first (`termloom::server::connect`): the log is not made beside it.
    // The directory must exist, and be safe, for the log first.
    prepare_socket_dir(socket).map_err(cannot)?;
    let remembered = remembered_options(socket)?;
    let log_file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        // A link in its place (the directory swapped under a parent others may write to)
        // is refused, not followed to a file of the user's.
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(log)
        .map_err(|e| format!("cannot open the server log {}: {e}", log.display()))?;
    Command::new(exe)
        .arg("server")
        .arg("--socket")
        .arg(socket)
        .arg("--detach")
        .args(&remembered)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .map(|child| (child, remembered))
        .map_err(|e| format!("cannot start the termloom server: {e}"))
}
