//! The engine: the reactor thread and the handles that talk to it.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use mio::{Poll, Waker};

use crate::config::{Config, check_size};
use crate::error::{Error, Result};
use crate::os::spawn;
use crate::os::supervisor::Supervisor;
use crate::policy::{SpawnRequest, Verdict};
use crate::reactor::{Client, Reactor, Stop, WAKER};
use crate::session::Session;
use crate::spec::SpawnSpec;
use crate::types::{SessionId, SessionInfo};

/// Engines started in this process.
static ENGINES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

struct Shared {
    client: Client,
    config: Arc<Config>,
    /// Shell-integration scripts, written on first use.
    shell_files: std::sync::OnceLock<crate::os::shell_files::ShellFiles>,
    /// Where session cgroups go, looked up on first use.
    cgroup_parent: std::sync::OnceLock<Option<crate::os::cgroup::CgroupParent>>,
    /// This engine's number in the process, to name its cgroups.
    number: u64,
    /// Ends the sessions if this process dies without closing them (`None` where it cannot
    /// run; see `os::supervisor`); replaced when a session's program killed it.
    supervisor: Mutex<Option<Arc<Supervisor>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// Starts a supervisor whose reports of exits, and of its own loss, go to the reactor.
fn start_supervisor(client: &Client) -> Option<Arc<Supervisor>> {
    let supervisor = Arc::new(Supervisor::start()?);
    let reports = client.clone();
    supervisor.on_exit(move |pid, status| {
        let _ = reports.submit(Box::new(move |r| r.supervised_exit(pid, status)));
    });
    let reports = client.clone();
    supervisor.on_lost(move || {
        let _ = reports.submit(Box::new(|r| r.supervisor_lost()));
    });
    Some(supervisor)
}

impl Shared {
    /// The supervisor to start a session with: a new one in place of one that is gone.
    fn supervisor(&self) -> Option<Arc<Supervisor>> {
        let mut current = self.supervisor.lock().unwrap_or_else(|e| e.into_inner());
        if current.as_ref().is_some_and(|supervisor| !supervisor.alive()) {
            log::warn!(
                "termloom: the supervisor is gone (a session's program killed or stopped it?); starting another"
            );
            match start_supervisor(&self.client) {
                Some(fresh) => *current = Some(fresh),
                // Tried again at the next start; this one goes without.
                None => return None,
            }
        }
        current.clone()
    }

    /// Closes every session and stops the reactor; returns when that is done, also to a
    /// caller that arrives while another one's shutdown is under way (the lock is held
    /// throughout).
    fn shutdown(&self) {
        if crate::reactor::on_reactor_thread() {
            // The last handle dropped inside a wait's test: the reactor cannot wait for itself.
            // It shuts down once this round ends; its thread is left to end by itself.
            crate::reactor::ask_shutdown_on_reactor();
            return;
        }
        let mut thread = self.thread.lock().unwrap_or_else(|e| e.into_inner());
        let Some(handle) = thread.take() else {
            return;
        };
        let (tx, rx) = crossbeam_channel::bounded(1);
        if self.client.submit(Box::new(move |r| r.begin_shutdown(Some(tx)))).is_ok() {
            let _ = rx.recv();
        }
        let _ = handle.join();
        // The reactor dropped every recorder: their files are complete once written.
        self.client.writers.wait_all();
        drop(thread);
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
///
/// ```no_run
/// use std::time::Duration;
/// use termloom::{Config, Engine, SpawnSpec, Until};
///
/// let engine = Engine::new(Config::default())?;
/// let top = engine.spawn(SpawnSpec::new("top").size(100, 30))?;
/// top.wait(Until::screen_contains("load average"), Duration::from_secs(10))?.held()?;
/// println!("{}", top.screen()?);
/// for info in engine.list()? {
///     println!("session {}: {} ({})", info.id, info.program, info.status);
/// }
/// engine.shutdown();
/// # Ok::<(), termloom::Error>(())
/// ```
#[derive(Clone)]
pub struct Engine {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("number", &self.shared.number).finish_non_exhaustive()
    }
}

impl Engine {
    /// Under test: the reactor's client, to look at its state.
    #[cfg(test)]
    pub(crate) fn client(&self) -> &Client {
        &self.shared.client
    }

    /// Under test: the reactor thread's id.
    #[cfg(test)]
    pub(crate) fn reactor_thread(&self) -> Option<std::thread::ThreadId> {
        let thread = self.shared.thread.lock().unwrap_or_else(|e| e.into_inner());
        thread.as_ref().map(|t| t.thread().id())
    }

    /// Validates `config` and starts the reactor thread.
    pub fn new(config: Config) -> Result<Engine> {
        config.validate()?;
        let config = Arc::new(config);
        let poll = Poll::new().map_err(|e| Error::io("creating the poll", e))?;
        let waker = Arc::new(
            Waker::new(poll.registry(), WAKER).map_err(|e| Error::io("creating the waker", e))?,
        );
        let (requests, receiver) = crossbeam_channel::bounded(config.request_queue);
        let stop = Stop::new(receiver.clone());
        let reactor_stop = stop.clone();
        let reactor_config = config.clone();
        let reactor_waker = waker.clone();
        let thread = std::thread::Builder::new()
            .name("termloom-reactor".into())
            .spawn(move || {
                let _stop = reactor_stop.when_dropped();
                Reactor::new(poll, receiver, reactor_config, Some(reactor_waker)).run();
            })
            .map_err(|e| Error::io("starting the reactor thread", e))?;
        let client = Client::new(requests, waker, stop);
        let supervisor = Mutex::new(start_supervisor(&client));
        Ok(Engine {
            shared: Arc::new(Shared {
                client,
                config,
                shell_files: std::sync::OnceLock::new(),
                cgroup_parent: std::sync::OnceLock::new(),
                number: ENGINES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                supervisor,
                thread: Mutex::new(Some(thread)),
            }),
        })
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// Starts a program under a new pseudo-terminal, if the spawn policy and hook
    /// ([`Config::policy`], [`Config::spawn_hook`]) allow it. A start they would ask a person
    /// about is denied here ([`Error::SpawnDenied`]): use [`Engine::spawn_with_approval`] to
    /// ask.
    ///
    /// It blocks briefly while the program starts (2–45 ms measured): an async host may run it
    /// on a blocking thread (`tokio::task::spawn_blocking`).
    pub fn spawn(&self, spec: SpawnSpec) -> Result<Session> {
        self.spawn_with_approval(spec, |_, verdict| {
            Err(format!(
                "{}; it needs a person's approval and nobody was asked (over MCP the person is asked; a library host asks with Engine::spawn_with_approval)",
                verdict.reason
            ))
        })
    }

    /// Decides a start as [`Engine::spawn`] would, without starting anything: the verdict of
    /// the policy and the hook.
    pub fn check_spawn(&self, spec: &SpawnSpec) -> Result<(SpawnRequest, Verdict)> {
        let config = &self.shared.config;
        let cwd = spawn::resolve_cwd(config, spec.cwd.as_deref())
            .map_err(|source| Error::Spawn { program: spec.program_name(), source })?;
        let request = SpawnRequest::of(spec, cwd);
        let verdict = match &config.policy {
            Some(policy) => policy.decide(&request),
            None => Verdict::no_policy(),
        };
        let verdict = match &config.spawn_hook {
            Some(hook) => hook.check(&request, verdict),
            None => verdict,
        };
        Ok((request, verdict))
    }

    /// Starts a program like [`Engine::spawn`]; where the policy or the hook says
    /// [`Decision::Ask`](crate::Decision::Ask), `approve` is called with the request and the
    /// verdict, and the start goes ahead only if it returns `Ok(())` (`Err(reason)`: denied,
    /// with that reason). Approving a start covers everything later typed into the session.
    pub fn spawn_with_approval(
        &self,
        spec: SpawnSpec,
        approve: impl FnOnce(&SpawnRequest, &Verdict) -> std::result::Result<(), String>,
    ) -> Result<Session> {
        let config = &self.shared.config;
        let (cols, rows) = spec.size.unwrap_or((config.cols, config.rows));
        check_size(cols, rows)?;
        spec.check_program()?;
        spec.check_env()?;
        let program = spec.program_name();
        // Without a policy or a hook every start is allowed: no request to build.
        if config.policy.is_some() || config.spawn_hook.is_some() {
            let (request, verdict) = self.check_spawn(&spec)?;
            let refused = match verdict.decision {
                crate::Decision::Allow => None,
                crate::Decision::Deny => Some(verdict.reason.clone()),
                crate::Decision::Ask => approve(&request, &verdict).err(),
            };
            if let Some(reason) = refused {
                log::info!("termloom: denied starting {program:?} ({}): {reason}", verdict.rule);
                return Err(Error::SpawnDenied { program, rule: verdict.rule, reason });
            }
        }
        // A value of the spec itself refused (shell integration's shell, a recording's bound)
        // is the caller's mistake, not a failure to start.
        let spawn_error = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::InvalidInput if source.raw_os_error().is_none() => {
                let program = crate::error::quoted(&program);
                Error::InvalidInput(format!("cannot start {program}: {source}"))
            }
            _ => Error::Spawn { program: program.clone(), source },
        };
        let launch = spawn::prepare(config, &spec, || self.shell_files()).map_err(spawn_error)?;
        let client = &self.shared.client;
        let id = client.call(|r| r.reserve())?;
        // The recording's file is made before the program starts, so a bad path starts nothing.
        let mut recorder = match self.recorder(&spec, id, cols, rows) {
            Ok(recorder) => recorder,
            Err(source) => {
                let _ = client.submit(Box::new(move |r| r.release(id)));
                return Err(spawn_error(source));
            }
        };
        if let Some(written) = recorder.as_ref().and_then(|r| r.written()) {
            client.writers.add(id, written);
        }
        let cgroup = self.cgroup_parent().map(|parent| parent.create(self.shared.number, id.0));
        let supervisor = self.shared.supervisor();
        let started = match cgroup.transpose() {
            Ok(cgroup) => {
                spawn::start(&launch, &program, config, cols, rows, cgroup, supervisor.as_ref())
            }
            Err(source) => Err(source),
        };
        let spawned = match started {
            Ok(spawned) => spawned,
            Err(source) => {
                let _ = client.submit(Box::new(move |r| r.release(id)));
                // A start that failed records nothing: its file goes, if the recorder made it
                // (a file, a FIFO or a device that was there before stays: `/dev/null` too).
                if let Some(recorder) = recorder {
                    recorder.abandon();
                }
                return Err(spawn_error(source));
            }
        };
        let pid = spawned.pid;
        // The program started: its recording, made afresh, takes the path's place (a rename
        // that fails leaves it under its temporary name, which `recording_error` gives: the
        // program runs, so this start is no failure).
        if let Some(recorder) = recorder.as_mut() {
            recorder.commit();
        }
        if let Err(err) = client.call(move |r| r.attach(id, spawned, recorder)) {
            spawn::kill_leftover(pid);
            return Err(err);
        }
        Ok(Session { id, pid, client: client.clone(), reader: 0 })
    }

    /// The session's recording, if its spec or the configuration asks for one.
    fn recorder(
        &self,
        spec: &SpawnSpec,
        id: SessionId,
        cols: u16,
        rows: u16,
    ) -> std::io::Result<Option<crate::os::recording::Recorder>> {
        let config = &self.shared.config;
        // The program's TERM, as the recording's header says: the engine's unless the spec
        // sets or removes it.
        let term = match spec.env.iter().rev().find(|(name, _)| name == "TERM") {
            Some((_, value)) => value.as_ref().map(|v| v.to_string_lossy().into_owned()),
            None => Some("xterm-256color".to_owned()),
        };
        let term = term.as_deref();
        if let Some(limit) = spec.record_memory {
            if !(1 << 10..=1 << 30).contains(&limit) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("a recording in memory must be 1 KiB..=1 GiB; {limit} bytes asked"),
                ));
            }
            let recorder = crate::os::recording::Recorder::in_memory(
                cols,
                rows,
                spec.record_input,
                limit,
                term,
            );
            return Ok(Some(recorder));
        }
        let path = match (&spec.record, &config.record_dir) {
            (Some(path), _) => path.clone(),
            (None, Some(dir)) if config.record_every_session || spec.record_in_dir => {
                let size = (cols, rows);
                let limit = config.recording_file_bytes;
                return Self::record_in(dir, id, size, spec.record_input, term, limit).map(Some);
            }
            (None, None) if spec.record_in_dir => {
                return Err(std::io::Error::other(
                    "recording needs a directory: the operator sets record_dir in the configuration",
                ));
            }
            _ => return Ok(None),
        };
        let (input, limit) = (spec.record_input, config.recording_file_bytes);
        crate::os::recording::Recorder::create(&path, (cols, rows), input, false, term, limit)
            .map(Some)
            .map_err(|err| cannot_create(&path, &err))
    }

    /// A recording in `dir` under a name of the engine's, `termloom-PID-ID.cast`, or with a
    /// number added when a file of that name exists (another engine of this process, an
    /// earlier process of this pid): an existing file is never replaced.
    fn record_in(
        dir: &std::path::Path,
        id: SessionId,
        size: (u16, u16),
        input: bool,
        term: Option<&str>,
        limit: u64,
    ) -> std::io::Result<crate::os::recording::Recorder> {
        let stem = format!("termloom-{}-{id}", std::process::id());
        let mut path = dir.join(format!("{stem}.cast"));
        for n in 2..=1000 {
            match crate::os::recording::Recorder::create(&path, size, input, true, term, limit) {
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    path = dir.join(format!("{stem}-{n}.cast"));
                }
                result => return result.map_err(|err| cannot_create(&path, &err)),
            }
        }
        let err = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
        Err(cannot_create(&path, &err))
    }

    fn cgroup_parent(&self) -> Option<&crate::os::cgroup::CgroupParent> {
        if !self.shared.config.cgroups {
            return None;
        }
        let parent = self.shared.cgroup_parent.get_or_init(|| {
            let parent = crate::os::cgroup::detect()?;
            parent.remove_stale();
            Some(parent)
        });
        parent.as_ref()
    }

    fn shell_files(&self) -> std::io::Result<&crate::os::shell_files::ShellFiles> {
        if let Some(files) = self.shared.shell_files.get() {
            return Ok(files);
        }
        let files = crate::os::shell_files::ShellFiles::create()?;
        Ok(self.shared.shell_files.get_or_init(|| files))
    }

    /// A handle to an existing session (live, or a tombstone that can still be read).
    pub fn session(&self, id: SessionId) -> Result<Session> {
        let info = self.shared.client.call_for(id, move |r| r.info(id))?;
        Ok(Session { id, pid: info.pid, client: self.shared.client.clone(), reader: 0 })
    }

    /// Numbers this engine's sessions from `first` on (a server restarted on its socket goes
    /// on from the last one's ids); before its first session only.
    pub(crate) fn number_sessions_from(&self, first: u64) -> Result<()> {
        self.shared.client.call(move |r| {
            r.number_from(first);
            Ok(())
        })
    }

    /// Every session the engine knows: live ones and tombstones, by id.
    pub fn list(&self) -> Result<Vec<SessionInfo>> {
        self.shared.client.call(|r| Ok(r.list()))
    }

    /// Closes every session and stops the reactor. Blocks until done (at most the close grace
    /// period plus the time processes take to die), and until the sessions' file recordings
    /// are on disk (up to 10 s more). Dropping the last clone does the same. In an async task,
    /// close the sessions with [`Session::close_async`] first (then this is quick), or call it
    /// (or drop the engine) on a blocking thread (`tokio::task::spawn_blocking`).
    pub fn shutdown(&self) {
        self.shared.shutdown();
    }
}

/// The error of a recording that cannot be created, naming it.
fn cannot_create(path: &std::path::Path, err: &std::io::Error) -> std::io::Error {
    std::io::Error::new(
        err.kind(),
        format!("cannot create the recording {}: {err}", crate::error::quoted_os(path.as_os_str())),
    )
}
