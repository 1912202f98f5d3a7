//! The supervisor: sessions die with their engine, however the engine dies.
//!
//! When an engine starts, it starts one small process, the supervisor: the host's own program
//! (`/proc/self/exe`) run again with `TERMLOOM_SUPERVISOR` set, which a constructor of this
//! crate (an `.init_array` entry, run before `main`) turns into the supervisor before the
//! host's `main` runs. Exec'ing a fresh image respects the rule of `fork` in a multi-threaded
//! host (only async-signal-safe calls until `exec`), and a library host needs no termloom
//! binary: every program that links termloom can be its own supervisor. A program whose start
//! did not run the constructor (termloom loaded some other way) gets no supervisor, and a
//! warning in the log.
//!
//! The engine holds the write end of a pipe that is the supervisor's standard input. It
//! registers each session as it starts (the POSIX session id and the cgroup) and forgets it
//! once it is closed. When the pipe reaches end of file — the engine dropped, its process
//! killed with SIGKILL or crashed, its reactor thread dead — the supervisor kills every session
//! still registered (the process groups of the POSIX session, `cgroup.kill`), removes their
//! cgroups and exits. It starts a POSIX session of its own, so a Ctrl-C or a hang-up meant for
//! the host does not reach it.
//!
//! Cgroups of engines that died before this existed (or whose supervisor was killed too) are
//! removed when the next engine looks for its cgroup hierarchy ([`remove_stale_cgroups`]).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::os::cgroup::Cgroup;
use crate::os::terminate::kill_everything;

/// The variable that turns a start of the host's program into the supervisor.
const ENV: &str = "TERMLOOM_SUPERVISOR";

/// Set by the constructor: this program's start ran it, so running the program again with
/// [`ENV`] set reaches the supervisor.
static CONSTRUCTOR_RAN: AtomicBool = AtomicBool::new(false);

// SAFETY (of the attribute): an `.init_array` entry is a plain `extern "C" fn()` that the
// loader calls once, before `main`, with no arguments; `supervise_if_asked` is one.
#[used]
#[unsafe(link_section = ".init_array")]
static CONSTRUCTOR: extern "C" fn() = supervise_if_asked;

/// Runs before `main` in every program that links termloom: notes that it ran and, when this
/// start is a supervisor's, supervises and exits without returning to the host's `main`.
extern "C" fn supervise_if_asked() {
    CONSTRUCTOR_RAN.store(true, Ordering::Relaxed);
    if std::env::var_os(ENV).is_none() {
        return;
    }
    let code = match std::panic::catch_unwind(supervise) {
        Ok(()) => 0,
        Err(_) => 70,
    };
    std::process::exit(code);
}

/// The supervisor's life: reads registrations from standard input until end of file, then
/// kills what is still registered.
fn supervise() {
    let _ = rustix::process::setsid();
    let mut sessions: HashMap<i32, Option<PathBuf>> = HashMap::new();
    let stdin = std::io::stdin().lock();
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next().and_then(|w| w.parse::<i32>().ok())) {
            (Some("session"), Some(sid)) => {
                let cgroup = words.next().filter(|p| !p.is_empty()).map(PathBuf::from);
                sessions.insert(sid, cgroup);
            }
            (Some("closed"), Some(sid)) => {
                sessions.remove(&sid);
            }
            _ => {}
        }
    }
    for (sid, cgroup) in sessions {
        let cgroup = cgroup.map(Cgroup::at);
        kill_everything(sid, cgroup.as_ref());
        // Dropping the cgroup kills what is left in it and removes it.
    }
}

/// The engine's side: the supervisor process and the pipe to it.
#[derive(Debug)]
pub(crate) struct Supervisor {
    child: Mutex<Option<Child>>,
    pipe: Mutex<Option<ChildStdin>>,
}

impl Supervisor {
    /// Starts the supervisor; `None` (with a warning in the log) where it cannot run.
    pub(crate) fn start() -> Option<Supervisor> {
        // A use of the constructor, so that the linker keeps it in every program that starts
        // an engine.
        std::hint::black_box(&CONSTRUCTOR);
        if !CONSTRUCTOR_RAN.load(Ordering::Relaxed) {
            log::warn!(
                "termloom: this program's start did not run termloom's constructor, so no supervisor ends the sessions if the program is killed"
            );
            return None;
        }
        let started = Command::new("/proc/self/exe")
            .env(ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match started {
            Ok(child) => child,
            Err(err) => {
                log::warn!(
                    "termloom: cannot start the supervisor ({err}); sessions will not outlive a killed engine's cleanup"
                );
                return None;
            }
        };
        let pipe = child.stdin.take()?;
        // Never block the engine on a supervisor that stopped reading: a message that does
        // not fit is dropped (and logged).
        let _ = rustix::io::ioctl_fionbio(pipe.as_fd(), true);
        Some(Supervisor { child: Mutex::new(Some(child)), pipe: Mutex::new(Some(pipe)) })
    }

    /// Registers a session: its POSIX session id and its cgroup.
    pub(crate) fn register(&self, sid: i32, cgroup: Option<&Path>) {
        let cgroup = cgroup.map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        self.send(&format!("session {sid} {cgroup}\n"));
    }

    /// Forgets a session once it is closed (its processes are gone).
    pub(crate) fn forget(&self, sid: i32) {
        self.send(&format!("closed {sid}\n"));
    }

    fn send(&self, message: &str) {
        let mut pipe = self.pipe.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pipe) = pipe.as_mut()
            && let Err(err) = pipe.write_all(message.as_bytes())
        {
            log::warn!("termloom: the supervisor did not take {message:?}: {err}");
        }
    }

    /// Ends the supervisor (every session is closed by then) and reaps it.
    pub(crate) fn stop(&self) {
        drop(self.pipe.lock().unwrap_or_else(|e| e.into_inner()).take());
        if let Some(mut child) = self.child.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = child.wait();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Removes the cgroups of dead engines below `parent` (`termloom-PID-…` whose process is
/// gone), killing what is left in them.
pub(crate) fn remove_stale_cgroups(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("termloom-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            drop(Cgroup::at(entry.path()));
        }
    }
}
