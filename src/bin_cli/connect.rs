//! Finding the server of a client command: `-L NAME` / `--socket PATH`, and starting the
//! server on first use, as tmux does (detached, logging to a file beside its socket).

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use termloom::server::{Client, socket_path};

/// How long a client waits for a server it started to listen.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Which server a command talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    /// Its socket.
    pub socket: PathBuf,
}

impl Default for Target {
    fn default() -> Self {
        Target { socket: socket_path("default") }
    }
}

impl Target {
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
                if label.is_empty() {
                    return Err("-L needs a NAME that is not empty".into());
                }
                if label.contains('/') {
                    return Err(format!(
                        "-L {label:?}: a server name has no slash (give a path with --socket)"
                    ));
                }
                socket_path(&label)
            }
            "--socket" => PathBuf::from(value().ok_or("--socket needs a PATH")?),
            _ => return Ok(false),
        };
        self.socket = socket;
        Ok(true)
    }

    /// Connects to the running server; the error says none runs.
    pub(super) fn connect(&self) -> Result<Client, String> {
        Client::connect(&self.socket).map_err(|err| match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => format!(
                "no termloom server is running on {}; `termloom start` starts one with a session",
                self.socket.display()
            ),
            _ => format!("cannot connect to {}: {err}", self.socket.display()),
        })
    }

    /// Connects to the server, starting one first if none runs.
    pub(super) fn connect_or_start(&self) -> Result<Client, String> {
        match Client::connect(&self.socket) {
            Ok(client) => return Ok(client),
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                ) => {}
            Err(err) => return Err(format!("cannot connect to {}: {err}", self.socket.display())),
        }
        let log = log_path(&self.socket);
        start_server(&self.socket, &log)?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match Client::connect(&self.socket) {
                Ok(client) => return Ok(client),
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(err) => {
                    return Err(format!(
                        "started a termloom server, but it does not listen on {} ({err}); see its log {}",
                        self.socket.display(),
                        log.display()
                    ));
                }
            }
        }
    }
}

/// The log of a server started on first use: its socket's path with `.log`.
fn log_path(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".log");
    PathBuf::from(name)
}

/// Starts `termloom server --detach` on `socket`, its output appended to `log`. A second
/// client starting one at the same time is harmless: one server takes the socket's lock and
/// the other exits.
fn start_server(socket: &Path, log: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find termloom itself: {e}"))?;
    if let Some(dir) = socket.parent() {
        // The server makes the directory private; it must exist for the log first.
        let _ = std::fs::DirBuilder::new().recursive(true).create(dir);
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    let log_file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log)
        .map_err(|e| format!("cannot open the server log {}: {e}", log.display()))?;
    Command::new(exe)
        .arg("server")
        .arg("--socket")
        .arg(socket)
        .arg("--detach")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .map(drop)
        .map_err(|e| format!("cannot start the termloom server: {e}"))
}
