//! The engine: the reactor thread and the handles that talk to it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::Sender;
use mio::{Poll, Waker};

use crate::config::{Config, check_size};
use crate::error::{Error, Result};
use crate::reactor::{Reactor, Request, Spawned, WAKER};
use crate::session::{Session, SessionId, SessionInfo};
use crate::spec::SpawnSpec;

/// The sending half every handle holds: the request channel and the poll's waker.
#[derive(Clone)]
pub(crate) struct Client {
    requests: Sender<Request>,
    waker: Arc<Waker>,
    config: Arc<Config>,
}

impl Client {
    /// The engine's configuration.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// Queues a request and wakes the reactor.
    pub(crate) fn submit(&self, request: Request) -> Result<()> {
        self.requests.send(request).map_err(|_| Error::EngineStopped)?;
        self.waker.wake().map_err(|e| Error::io("waking the reactor", e))
    }

    /// Runs `f` on the reactor thread and returns its result.
    pub(crate) fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Reactor) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.submit(Box::new(move |reactor| {
            let _ = tx.send(f(reactor));
        }))?;
        rx.recv().map_err(|_| Error::EngineStopped)?
    }
}

/// Engines started in this process.
static ENGINES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

struct Shared {
    client: Client,
    config: Arc<Config>,
    /// Shell-integration scripts, written on first use.
    shell_files: std::sync::OnceLock<crate::shell::ShellFiles>,
    /// Where session cgroups go, looked up on first use.
    cgroup_parent: std::sync::OnceLock<Option<crate::cgroup::CgroupParent>>,
    /// This engine's number in the process, to name its cgroups.
    number: u64,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Shared {
    fn shutdown(&self) {
        let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        let (tx, rx) = crossbeam_channel::bounded(1);
        if self.client.submit(Box::new(move |r| r.begin_shutdown(Some(tx)))).is_ok() {
            let _ = rx.recv();
        }
        let _ = thread.join();
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The session engine: one reactor thread driving every session.
///
/// Cheap to clone and usable from any thread. When the last clone is dropped (or
/// [`Engine::shutdown`] is called) every session is closed and the reactor stops; [`Session`]
/// handles then fail with [`Error::EngineStopped`].
#[derive(Clone)]
pub struct Engine {
    shared: Arc<Shared>,
}

impl Engine {
    /// Validates `config` and starts the reactor thread.
    pub fn new(config: Config) -> Result<Engine> {
        config.validate()?;
        let config = Arc::new(config);
        let poll = Poll::new().map_err(|e| Error::io("creating the poll", e))?;
        let waker = Arc::new(
            Waker::new(poll.registry(), WAKER).map_err(|e| Error::io("creating the waker", e))?,
        );
        let (requests, receiver) = crossbeam_channel::bounded(config.request_queue);
        let reactor_config = config.clone();
        let thread = std::thread::Builder::new()
            .name("termloom-reactor".into())
            .spawn(move || Reactor::new(poll, receiver, reactor_config).run())
            .map_err(|e| Error::io("starting the reactor thread", e))?;
        Ok(Engine {
            shared: Arc::new(Shared {
                client: Client { requests, waker, config: config.clone() },
                config,
                shell_files: std::sync::OnceLock::new(),
                cgroup_parent: std::sync::OnceLock::new(),
                number: ENGINES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                thread: Mutex::new(Some(thread)),
            }),
        })
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// Starts a program under a new pseudo-terminal.
    pub fn spawn(&self, spec: SpawnSpec) -> Result<Session> {
        let config = &self.shared.config;
        let (cols, rows) = spec.size.unwrap_or((config.cols, config.rows));
        check_size(cols, rows)?;
        let program = spec.program_name();
        let spawn_error = |source| Error::Spawn { program: program.clone(), source };
        let launch = self.prepare(&spec).map_err(spawn_error)?;
        let client = &self.shared.client;
        let id = client.call(|r| r.reserve())?;
        let cgroup = match self.cgroup_parent() {
            Some(parent) => {
                let name = format!("termloom-{}-{}-{}", std::process::id(), self.shared.number, id);
                Some(parent.create(&name))
            }
            None => None,
        };
        let started = match cgroup.transpose() {
            Ok(cgroup) => start(&launch, &program, config, cols, rows, cgroup),
            Err(source) => Err(source),
        };
        let spawned = match started {
            Ok(spawned) => spawned,
            Err(source) => {
                let _ = client.submit(Box::new(|r| r.release()));
                return Err(spawn_error(source));
            }
        };
        let pid = spawned.pid;
        if let Err(err) = client.call(move |r| r.attach(id, spawned)) {
            kill_leftover(pid);
            return Err(err);
        }
        Ok(Session { id, pid, client: client.clone() })
    }

    /// Resolves everything a spawn needs before any process exists.
    fn prepare(&self, spec: &SpawnSpec) -> std::io::Result<Launch> {
        let cwd = resolve_cwd(&self.shared.config, spec.cwd.as_deref())?;
        let isolation = spec.isolation.resolve()?;
        let mut argv = spec.argv();
        // The account's variables first, so that the session's own entries win.
        let mut overlay = Vec::new();
        if let Some(account) = &isolation.account {
            overlay.push(("HOME".into(), Some(account.home.clone().into())));
            overlay.push(("USER".into(), Some(account.name.clone().into())));
            overlay.push(("LOGNAME".into(), Some(account.name.clone().into())));
        }
        overlay.extend(spec.env.iter().cloned());
        if spec.shell_integration {
            self.shell_files()?
                .inject(&mut argv, &mut overlay)
                .map_err(|reason| std::io::Error::new(std::io::ErrorKind::InvalidInput, reason))?;
        }
        Ok(Launch { argv, overlay, cwd, isolation })
    }

    fn cgroup_parent(&self) -> Option<&crate::cgroup::CgroupParent> {
        if !self.shared.config.cgroups {
            return None;
        }
        self.shared.cgroup_parent.get_or_init(crate::cgroup::detect).as_ref()
    }

    fn shell_files(&self) -> std::io::Result<&crate::shell::ShellFiles> {
        if let Some(files) = self.shared.shell_files.get() {
            return Ok(files);
        }
        let files = crate::shell::ShellFiles::create()?;
        Ok(self.shared.shell_files.get_or_init(|| files))
    }

    /// A handle to an existing session (live, or a tombstone that can still be read).
    pub fn session(&self, id: SessionId) -> Result<Session> {
        let info = self.shared.client.call(move |r| r.info(id))?;
        Ok(Session { id, pid: info.pid, client: self.shared.client.clone() })
    }

    /// Every session the engine knows: live ones and tombstones, by id.
    pub fn list(&self) -> Result<Vec<SessionInfo>> {
        self.shared.client.call(|r| Ok(r.list()))
    }

    /// Closes every session and stops the reactor. Blocks until done (at most the close grace
    /// period plus the time processes take to die).
    pub fn shutdown(&self) {
        self.shared.shutdown();
    }
}

/// The working directory for a spawn: absolute, existing.
fn resolve_cwd(config: &Config, cwd: Option<&Path>) -> std::io::Result<PathBuf> {
    let base = match &config.base_dir {
        Some(base) => base.clone(),
        None => std::env::current_dir()?,
    };
    let dir = match cwd {
        Some(dir) => base.join(dir),
        None => base,
    };
    if !dir.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("working directory {} does not exist or is not a directory", dir.display()),
        ));
    }
    Ok(dir)
}

/// A spawn's resolved parts.
struct Launch {
    argv: Vec<std::ffi::OsString>,
    overlay: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)>,
    cwd: PathBuf,
    isolation: crate::isolation::Isolation,
}

/// Opens the terminal and starts the program (on the caller's thread, so a slow `fork` never
/// stalls the reactor).
fn start(
    launch: &Launch,
    program: &str,
    config: &Config,
    cols: u16,
    rows: u16,
    cgroup: Option<crate::cgroup::Cgroup>,
) -> std::io::Result<Spawned> {
    let pty = crate::pty::open(cols, rows)?;
    let env = crate::env::child_env(config, std::env::vars_os(), &launch.overlay);
    let pid = crate::pty::spawn(
        &pty,
        &launch.argv,
        &env,
        &launch.cwd,
        cgroup.as_ref(),
        &launch.isolation,
    )?;
    let pidfd = open_pidfd(pid);
    // The engine keeps only the master: the program's exit closes the last slave.
    drop(pty.slave);
    Ok(Spawned { pid, master: pty.master, pidfd, program: program.to_owned(), cols, rows, cgroup })
}

#[cfg(target_os = "linux")]
fn open_pidfd(pid: i32) -> Option<std::os::fd::OwnedFd> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::NONBLOCK).ok()
}

#[cfg(not(target_os = "linux"))]
fn open_pidfd(_pid: i32) -> Option<std::os::fd::OwnedFd> {
    None
}

fn kill_leftover(pid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
    }
}
