//! Starting a program: everything a spawn needs resolved before any process exists (working
//! directory, isolation, environment overlay, shell integration), then the terminal opened and
//! the program started on the caller's thread, so a slow `fork` never stalls the reactor.

use std::ffi::OsString;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::os::cgroup::Cgroup;
use crate::os::confine::Confinement;
use crate::os::isolation::Isolation;
use crate::os::shell_files::ShellFiles;
use crate::os::supervisor::Supervisor;
use crate::spec::SpawnSpec;
use crate::term::scan::MarkKey;

/// The parts of a started program the reactor holds.
#[derive(Debug)]
pub(crate) struct Spawned {
    pub pid: i32,
    /// When it started (clock ticks of `/proc/PID/stat`), read before it could be reaped:
    /// tells its number from another process's given it later.
    pub started_ticks: Option<u64>,
    pub master: OwnedFd,
    pub pidfd: Option<OwnedFd>,
    /// The supervisor that started (and reaps) it, which reports its exit.
    pub supervisor: Option<std::sync::Arc<Supervisor>>,
    pub program: String,
    pub cols: u16,
    pub rows: u16,
    pub cgroup: Option<Cgroup>,
    /// What the kernel enforces of the session's confinement, if it is confined.
    pub confinement: Option<String>,
    /// Started with shell integration: the key its marks carry.
    pub mark_key: Option<MarkKey>,
}

/// A spawn's resolved parts.
#[derive(Debug)]
pub(crate) struct Launch {
    argv: Vec<OsString>,
    overlay: Vec<(OsString, Option<OsString>)>,
    cwd: PathBuf,
    isolation: Isolation,
    /// Shell integration was added, with marks that carry this key.
    mark_key: Option<MarkKey>,
}

/// Resolves everything a spawn needs before any process exists; `shell_files` gives the
/// shell-integration startup files when the spec asks for them.
pub(crate) fn prepare<'a>(
    config: &Config,
    spec: &SpawnSpec,
    shell_files: impl FnOnce() -> std::io::Result<&'a ShellFiles>,
) -> std::io::Result<Launch> {
    let mut cwd = resolve_cwd(config, spec.cwd.as_deref())?;
    let confinement = Confinement::combine(config.confinement.as_ref(), spec.confinement.as_ref());
    if confinement.is_some() {
        // Checked, made writable and entered as one path with no symbolic link in it (the
        // ruleset opens it refusing any link, should one have replaced a directory since).
        cwd = std::fs::canonicalize(&cwd)?;
    }
    if let Some(operator) = &config.confinement {
        operator.check_working_directory(&cwd, &base_dir(config)?)?;
    }
    let mut isolation = spec.isolation.resolve()?;
    isolation.confinement = confinement.map(|c| c.plan(&cwd)).transpose()?;
    let mut argv = spec.argv();
    // The account's variables first, so that the session's own entries win.
    let mut overlay = Vec::new();
    if let Some(account) = &isolation.account {
        overlay.push(("HOME".into(), Some(account.home.clone().into())));
        overlay.push(("USER".into(), Some(account.name.clone().into())));
        overlay.push(("LOGNAME".into(), Some(account.name.clone().into())));
    }
    overlay.extend(spec.env.iter().cloned());
    let mark_key = spec.shell_integration.then(MarkKey::generate);
    if let Some(key) = &mark_key {
        // What the child gets of the host's environment (a `ZDOTDIR` in `env_deny` is not the
        // user's), the overlay set over it by `inject`.
        let host = crate::os::env::child_env(config, std::env::vars_os(), &[]);
        shell_files()?
            .inject(&mut argv, &mut overlay, &host, key)
            .map_err(|reason| std::io::Error::new(std::io::ErrorKind::InvalidInput, reason))?;
    }
    Ok(Launch { argv, overlay, cwd, isolation, mark_key })
}

/// The directory relative working directories start from: `Config::base_dir`, or the
/// engine's own working directory.
fn base_dir(config: &Config) -> std::io::Result<PathBuf> {
    match &config.base_dir {
        Some(base) => Ok(base.clone()),
        None => std::env::current_dir(),
    }
}

/// The working directory for a spawn: absolute, existing.
pub(crate) fn resolve_cwd(config: &Config, cwd: Option<&Path>) -> std::io::Result<PathBuf> {
    let base = base_dir(config)?;
    let dir = match cwd {
        Some(dir) => base.join(dir),
        None => base,
    };
    if !dir.is_dir() {
        // Not `NotFound`: that is a program missing from `PATH` (see `Error::Spawn`).
        let why = format!(
            "working directory {} does not exist or is not a directory",
            crate::error::quoted_os(dir.as_os_str())
        );
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            crate::error::BadWorkingDir(why),
        ));
    }
    Ok(dir)
}

/// Opens the terminal and starts the program (on the caller's thread, so a slow `fork` never
/// stalls the reactor).
pub(crate) fn start(
    launch: &Launch,
    program: &str,
    config: &Config,
    cols: u16,
    rows: u16,
    cgroup: Option<Cgroup>,
    supervisor: Option<&std::sync::Arc<Supervisor>>,
) -> std::io::Result<Spawned> {
    let pty = crate::os::pty::open(cols, rows)?;
    let env = crate::os::env::child_env(config, std::env::vars_os(), &launch.overlay);
    let (pid, started_ticks, pidfd) = match supervisor {
        // The supervisor starts it: its child, reaped and reported by it.
        Some(supervisor) => {
            let cgroup = cgroup.as_ref().map(Cgroup::path);
            let (pid, started_ticks) = supervisor
                .spawn(
                    pty.slave.as_fd(),
                    &launch.argv,
                    &env,
                    &launch.cwd,
                    cgroup,
                    &launch.isolation,
                )
                .inspect_err(|_| {
                    // A supervisor that died (or was found stuck) after it forked may have
                    // started the program, whose pid nobody learnt: the terminal knows its
                    // group, which leads its POSIX session.
                    let Some(own) = own_group_and_session() else { return };
                    if let Some(group) = crate::os::pty::foreground_group(pty.master.as_fd())
                        .filter(|group| *group > 1 && !own.contains(group))
                    {
                        crate::os::terminate::kill_everything(group, None);
                    }
                })?;
            (pid, started_ticks, None)
        }
        None => {
            let procs = cgroup.as_ref().map(|c| c.procs.as_c_str());
            let pid = crate::os::pty::spawn(
                pty.slave.as_fd(),
                &launch.argv,
                &env,
                &launch.cwd,
                procs,
                &launch.isolation,
            )?;
            // Its child, not reaped before the engine reaps it.
            let started_ticks = crate::os::procfs::read_stat(pid).ok().and_then(|s| s.starttime);
            (pid, started_ticks, open_pidfd(pid))
        }
    };
    // The engine keeps only the master: the program's exit closes the last slave.
    drop(pty.slave);
    Ok(Spawned {
        pid,
        started_ticks,
        master: pty.master,
        pidfd,
        supervisor: supervisor.cloned(),
        program: program.to_owned(),
        cols,
        rows,
        cgroup,
        confinement: launch.isolation.confinement.as_ref().map(|c| c.report.clone()),
        mark_key: launch.mark_key,
    })
}

#[cfg(target_os = "linux")]
fn open_pidfd(pid: i32) -> Option<OwnedFd> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::NONBLOCK).ok()
}

#[cfg(not(target_os = "linux"))]
fn open_pidfd(_pid: i32) -> Option<OwnedFd> {
    None
}

/// This process's group and POSIX session, as the kernel reports them to it.
///
/// Read from `/proc/self/stat` on Linux, not through `getpgrp`/`getsid`: in a PID namespace
/// whose session leader lives outside it (a container started from a shell), the kernel
/// reports the session (and possibly the group) as 0, which rustix takes for a nonzero pid
/// and panics on. `None` when they cannot be read (or `/proc` numbers processes otherwise
/// than the terminal does).
fn own_group_and_session() -> Option<[i32; 2]> {
    #[cfg(target_os = "linux")]
    {
        crate::os::procfs::own_stat().map(|stat| [stat.pgrp, stat.session])
    }
    #[cfg(not(target_os = "linux"))]
    {
        let group = rustix::process::getpgrp();
        let session = rustix::process::getsid(None).unwrap_or(group);
        Some([group, session].map(|pid| pid.as_raw_nonzero().get()))
    }
}

/// Kills a program the reactor could not take (and reaps it).
pub(crate) fn kill_leftover(pid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
    }
}
