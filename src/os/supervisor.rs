//! The supervisor: sessions die with their engine, however the engine dies.
//!
//! When an engine starts, it starts one small process, the supervisor: the host's own program
//! (`/proc/self/exe`) run again with `TERMLOOM_SUPERVISOR` set, which a constructor of this
//! crate (an `.init_array` entry, run before `main`) turns into the supervisor before the
//! host's `main` runs. Exec'ing a fresh image respects the rule of `fork` in a multi-threaded
//! host (only async-signal-safe calls until `exec`), and a library host needs no termloom
//! binary: every program that links termloom can be its own supervisor. A program whose start
//! did not run the constructor (termloom loaded some other way) gets no supervisor, and a
//! warning in the log; its sessions are then started by the engine itself.
//!
//! The supervisor **starts the sessions**: the engine opens the terminal and sends the spawn
//! request with the terminal's slave over a Unix socket (`SOCK_SEQPACKET`, one message per
//! request, descriptors passed with `SCM_RIGHTS`); the supervisor forks and execs the program
//! and answers with its pid and start time. It is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`), so whatever a session's processes leave behind (double forks,
//! `setsid`) stays among its descendants, even without cgroups; it reaps them and reports each
//! session's exit status to the engine. A fork of this small process costs little, however
//! large the engine grows.
//!
//! When the socket reaches end of file — the engine dropped, its process killed with SIGKILL or
//! crashed, its reactor thread dead — the supervisor kills every session (the process groups of
//! its POSIX session, `cgroup.kill`), then every descendant left, removes the cgroups and
//! exits.
//!
//! The engine's child is not the supervisor itself but its **guardian**, which starts the
//! supervisor (the program run once more) and waits for it. It starts a POSIX session of its
//! own, which the supervisor shares, so a Ctrl-C or a hang-up meant for the host reaches
//! neither. The guardian is a child subreaper too: a session's program runs as the same user
//! and may kill its supervisor with SIGKILL, and what the supervisor had adopted or started
//! (a `setsid` process, a double fork's) is then adopted by the guardian, the nearest
//! subreaper left, instead of by init: it kills it all and exits, and the engine, at its
//! socket's end, closes the sessions. Without a cgroup, nothing else links such a process to
//! its session. The supervisor watches the guardian in turn (a pidfd): killed, it ends
//! everything as at the engine's end. The guardian watches the engine (a pidfd, and its parent
//! process looked at every 100 ms without one; see [`crate::os::engine_watch`]): a program
//! may stop the supervisor, which would then never read its socket's end were the engine
//! killed, so once the engine is gone the guardian resumes it until it ends, and kills it
//! after [`STOP_WAIT`]. A program that kills both at once still sets free what left its POSIX
//! session, where no cgroup holds it; one that stops or kills both, in any combination, and
//! whose engine is then killed, leaves every session running (until the next engine's start
//! removes their cgroups; without cgroups, for ever).
//!
//! Cgroups of engines that died before they could clean up are removed when the next engine
//! of the same PID namespace looks for its cgroup hierarchy
//! ([`CgroupParent::remove_stale`](crate::os::cgroup::CgroupParent::remove_stale)).

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CString, OsString};
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::Sender;
use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
};
use rustix::process::{WaitId, WaitIdOptions};
use serde::{Deserialize, Serialize};

use crate::os::cgroup::Cgroup;
use crate::os::engine_watch::watch_engine;
use crate::os::isolation::Isolation;
use crate::os::procfs;
use crate::os::terminate::kill_everything;
use crate::types::ExitStatus;

/// The variable that turns a start of the host's program into the supervisor.
const ENV: &str = "TERMLOOM_SUPERVISOR";
/// The largest message (a spawn request with its environment).
const MAX_MESSAGE: usize = 1 << 20;

/// Set by the constructor: this program's start ran it, so running the program again with
/// [`ENV`] set reaches the supervisor.
static CONSTRUCTOR_RAN: AtomicBool = AtomicBool::new(false);

// An `.init_array` entry is a plain `extern "C" fn()` that the loader calls once, before
// `main`, with no arguments; `supervise_if_asked` is one.
#[used]
#[unsafe(link_section = ".init_array")]
static CONSTRUCTOR: extern "C" fn() = supervise_if_asked;

/// [`ENV`]'s value for the guardian, the engine's child, which starts the supervisor, before
/// the engine's pid.
const GUARDIAN: &str = "1 ";
/// [`ENV`]'s value for the supervisor, the guardian's child, before the guardian's pid.
const SUPERVISOR: &str = "2 ";

/// Runs before `main` in every program that links termloom: notes that it ran and, when this
/// start is a guardian's or a supervisor's, does that and exits without returning to the
/// host's `main`.
extern "C" fn supervise_if_asked() {
    CONSTRUCTOR_RAN.store(true, Ordering::Relaxed);
    let Some(role) = std::env::var_os(ENV) else { return };
    let guardian = role.to_str().and_then(|r| r.strip_prefix(SUPERVISOR)?.parse().ok());
    let engine = role.to_str().and_then(|r| r.strip_prefix(GUARDIAN)?.parse().ok());
    let code = match guardian {
        Some(guardian) => std::panic::catch_unwind(|| supervise(guardian)),
        None => std::panic::catch_unwind(|| guard(engine)),
    };
    std::process::exit(code.unwrap_or(70));
}

// ----- the wire ---------------------------------------------------------------------------

/// A spawn request: what `pty::spawn` needs, but the terminal (sent as a descriptor).
#[derive(Debug, Serialize, Deserialize)]
struct SpawnRequest {
    id: u64,
    argv: Vec<Vec<u8>>,
    env: Vec<(Vec<u8>, Vec<u8>)>,
    cwd: Vec<u8>,
    cgroup: Option<Vec<u8>>,
    isolation: Isolation,
}

/// Sends one message with descriptors.
fn send(socket: BorrowedFd<'_>, text: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() {
        control.push(SendAncillaryMessage::ScmRights(fds));
    }
    rustix::net::sendmsg(socket, &[IoSlice::new(text)], &mut control, SendFlags::NOSIGNAL)?;
    Ok(())
}

/// Receives one message and its descriptors; `None` at end of file.
fn receive(socket: BorrowedFd<'_>, buffer: &mut [u8]) -> io::Result<Option<(usize, Vec<OwnedFd>)>> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = loop {
        match rustix::net::recvmsg(
            socket,
            &mut [IoSliceMut::new(buffer)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    if received.bytes == 0 && fds.is_empty() {
        return Ok(None);
    }
    Ok(Some((received.bytes, fds)))
}

// ----- the guardian's side ----------------------------------------------------------------

/// The guardian's life: starts the supervisor, hands it the socket (its standard input),
/// watches the engine (process `engine`, its parent; see [`watch_engine`]) and waits for the
/// supervisor; then kills whatever it adopted (what the supervisor had, when it was killed)
/// and exits with the supervisor's code.
fn guard(engine: Option<i32>) -> i32 {
    // Taken from the parent only when not told (an engine gone by now left another parent).
    let engine = engine.or_else(|| rustix::process::getppid().map(|p| p.as_raw_nonzero().get()));
    let _ = rustix::process::setsid();
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    let mut command = Command::new("/proc/self/exe");
    let me = std::process::id();
    command.env(ENV, format!("{SUPERVISOR}{me}")).stdin(Stdio::inherit()).stdout(Stdio::null());
    command.stderr(Stdio::null());
    let started = command.spawn();
    // The socket is the supervisor's alone: the engine sees its end when the supervisor ends.
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = rustix::stdio::dup2_stdin(&null);
    }
    let Ok(mut supervisor) = started else { return 71 };
    let reaped = Arc::new(Mutex::new(false));
    if let Some(engine) = engine {
        watch_engine(engine, &supervisor, reaped.clone(), STOP_WAIT);
    }
    // Its end is waited for without reaping it (a zombie keeps its pid): the watch's signals
    // by pid stop, under the lock, before the pid can be given to another process.
    if let Some(pid) = rustix::process::Pid::from_raw(supervisor.id() as i32) {
        let ended = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT;
        while rustix::process::waitid(WaitId::Pid(pid), ended)
            .is_err_and(|err| err == rustix::io::Errno::INTR)
        {}
    }
    *reaped.lock().unwrap_or_else(|e| e.into_inner()) = true;
    let code = loop {
        match supervisor.wait() {
            Ok(status) => break status.code().unwrap_or(70),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break 70,
        }
    };
    // Killed, the supervisor left its children, and through them their descendants, here.
    kill_descendants();
    while let Ok(Some(_)) = rustix::process::wait(rustix::process::WaitOptions::NOHANG) {}
    code
}

// ----- the supervisor's side --------------------------------------------------------------

/// The supervisor's life: serves spawn requests and registrations on its standard input (the
/// socket) until end of file, or until its guardian (process `guardian`) is gone, then kills
/// everything, and resumes its guardian (a session's program may have stopped it).
fn supervise(guardian: i32) -> i32 {
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    // SAFETY: descriptor 0 is the socket the guardian passed on to this process as its
    // standard input; nothing else owns it.
    let socket = unsafe { OwnedFd::from_raw_fd(0) };
    watch_guardian(guardian, &socket);
    let sessions: Arc<Mutex<HashMap<i32, Option<PathBuf>>>> = Arc::default();
    let (child_started, children) = start_signal();
    let reaper = {
        let socket = socket.try_clone().ok();
        let sessions = sessions.clone();
        std::thread::spawn(move || reap(socket, &sessions, &children))
    };
    let mut buffer = vec![0; MAX_MESSAGE];
    while let Ok(Some((n, fds))) = receive(socket.as_fd(), &mut buffer) {
        let text = String::from_utf8_lossy(&buffer[..n]);
        let (verb, rest) = text.split_once(' ').unwrap_or((&text, ""));
        match verb {
            "spawn" => {
                let reply = match (serde_json::from_str::<SpawnRequest>(rest), fds.first()) {
                    (Ok(request), Some(slave)) => {
                        // Hold the table while the child starts: a child that exits at once
                        // is reaped only after its pid is registered, so its exit is reported.
                        let mut registered = sessions.lock().unwrap_or_else(|e| e.into_inner());
                        let started = start_session(&request, slave.as_fd());
                        // Its start time, read while it cannot be reaped (the table is held):
                        // a program that exits before the engine attaches it is gone from
                        // `/proc` by then, and its number may be given out again.
                        let mut ticks = None;
                        if let Ok(pid) = started {
                            ticks = procfs::read_stat(pid).ok().and_then(|s| s.starttime);
                            let cgroup =
                                request.cgroup.map(|p| PathBuf::from(OsString::from_vec(p)));
                            registered.insert(pid, cgroup);
                        }
                        drop(registered);
                        if started.is_ok() {
                            note_start(&child_started);
                        }
                        match started {
                            Ok(pid) => match ticks {
                                Some(ticks) => format!("spawned {} {pid} {ticks}", request.id),
                                None => format!("spawned {} {pid} -", request.id),
                            },
                            Err(err) => format!(
                                "failed {} {} {err}",
                                request.id,
                                err.raw_os_error().unwrap_or(0)
                            ),
                        }
                    }
                    (Ok(request), None) => format!("failed {} 0 no terminal was sent", request.id),
                    (Err(err), _) => format!("failed 0 0 unreadable request: {err}"),
                };
                let _ = send(socket.as_fd(), reply.as_bytes(), &[]);
            }
            "closed" => {
                if let Ok(sid) = rest.trim().parse::<i32>() {
                    sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(&sid);
                }
            }
            _ => {}
        }
    }
    // The engine is gone: end every session, then every descendant left.
    let registered = std::mem::take(&mut *sessions.lock().unwrap_or_else(|e| e.into_inner()));
    let mut cgroups = Vec::new();
    for (sid, cgroup) in registered {
        let cgroup = cgroup.map(Cgroup::at);
        kill_everything(sid, cgroup.as_ref());
        cgroups.extend(cgroup);
    }
    let all_gone = kill_descendants();
    drop(cgroups);
    drop(child_started);
    // A session's program may have stopped the guardian, which must reap this process and
    // end in turn (it is still this process's parent: no other process has its pid).
    if let Some(pid) = rustix::process::Pid::from_raw(guardian)
        && rustix::process::getppid() == Some(pid)
    {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::CONT);
    }
    // With descendants left (killed faster than they fork: a fork bomb without a cgroup),
    // the reaper would wait for them for ever, and the engine's drop with it: exit instead.
    if all_gone {
        let _ = reaper.join();
    }
    0
}

/// Ends the supervisor's service when its guardian, process `guardian` (its parent), is gone,
/// as at the engine's end: the socket is shut for reading, which the loop takes for its end.
/// Without pidfds (before Linux 5.3) the guardian is not watched.
fn watch_guardian(guardian: i32, socket: &OwnedFd) {
    let Some(pid) = rustix::process::Pid::from_raw(guardian) else { return };
    let pidfd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty());
    // A pidfd opened once the guardian was gone names no process, or another: the parent is
    // another by then.
    let gone = rustix::process::getppid() != Some(pid);
    let end = |socket: &OwnedFd| {
        let _ = rustix::net::shutdown(socket, rustix::net::Shutdown::Read);
    };
    if gone {
        return end(socket);
    }
    let (Ok(pidfd), Ok(socket)) = (pidfd, socket.try_clone()) else { return };
    let watch = move || {
        let mut fds = [rustix::event::PollFd::new(&pidfd, rustix::event::PollFlags::IN)];
        while let Err(rustix::io::Errno::INTR) = rustix::event::poll(&mut fds, None) {}
        end(&socket);
    };
    let _ = std::thread::Builder::new().name("termloom-guardian".into()).spawn(watch);
}

/// Starts one session's program on the terminal `slave`; its pid.
fn start_session(request: &SpawnRequest, slave: BorrowedFd<'_>) -> io::Result<i32> {
    let argv: Vec<OsString> = request.argv.iter().map(|a| OsString::from_vec(a.clone())).collect();
    if argv.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty argv"));
    }
    let env: BTreeMap<OsString, OsString> = request
        .env
        .iter()
        .map(|(k, v)| (OsString::from_vec(k.clone()), OsString::from_vec(v.clone())))
        .collect();
    let cwd = PathBuf::from(OsString::from_vec(request.cwd.clone()));
    let procs = request
        .cgroup
        .as_ref()
        .map(|dir| {
            CString::new(
                Path::new(std::ffi::OsStr::from_bytes(dir))
                    .join("cgroup.procs")
                    .into_os_string()
                    .into_vec(),
            )
        })
        .transpose()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    crate::os::pty::spawn(slave, &argv, &env, &cwd, procs.as_deref(), &request.isolation)
}

/// Reaps every child (sessions and what they left behind, which this subreaper inherits) and
/// reports the sessions' exits to the engine. Ends when the engine is gone and no child is
/// left.
///
/// A child whose start fails (its `exec` or the set-up before it) is reaped by
/// `Command::spawn` itself, which panics if it finds it gone. So this thread first waits for
/// an ended child without reaping it, then reaps only while it holds the session table's
/// lock, which a start holds until `Command::spawn` has returned.
fn reap(
    socket: Option<OwnedFd>,
    sessions: &Mutex<HashMap<i32, Option<PathBuf>>>,
    started: &crossbeam_channel::Receiver<()>,
) {
    use rustix::process::{WaitId, WaitIdOptions, WaitOptions};
    loop {
        match rustix::process::waitid(WaitId::All, WaitIdOptions::EXITED | WaitIdOptions::NOWAIT) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => {
                // No child left: wait for the next start, or the end.
                if started.recv().is_err() {
                    return;
                }
                continue;
            }
        }
        let mut reports = Vec::new();
        {
            let table = sessions.lock().unwrap_or_else(|e| e.into_inner());
            while let Ok(Some((pid, status))) = rustix::process::wait(WaitOptions::NOHANG) {
                let pid = pid.as_raw_nonzero().get();
                let report = match (status.exit_status(), status.terminating_signal()) {
                    (Some(code), _) => format!("exit {pid} code {code}"),
                    (None, Some(signal)) => format!("exit {pid} signal {signal}"),
                    (None, None) => continue,
                };
                if table.contains_key(&pid) {
                    reports.push(report);
                }
            }
        }
        if let Some(socket) = &socket {
            for report in reports {
                let _ = send(socket.as_fd(), report.as_bytes(), &[]);
            }
        }
    }
}

/// The reaper's wake-up after a start, when it had found no child left. It needs to know only
/// that a start happened since, so the channel holds one message, however many sessions start
/// while others run (one message a start, taken only when no child was left, grew by one for
/// nearly every start of a long-lived server).
fn start_signal() -> (Sender<()>, crossbeam_channel::Receiver<()>) {
    crossbeam_channel::bounded(1)
}

/// Tells the reaper a session started; a wake-up already waiting covers this one too.
fn note_start(signal: &Sender<()>) {
    let _ = signal.try_send(());
}

/// Kills every process this supervisor adopted or started, and their descendants, until
/// none is left (at most 2 s); whether none is.
fn kill_descendants() -> bool {
    use rustix::process::Signal;
    let me = std::process::id() as i32;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let descendants = crate::os::procfs::descendants_of(me);
        if descendants.is_empty() {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        // Stopped first, the whole tree, so that none forks while the others are killed (a
        // fork bomb outran one kill at a time), then killed.
        for signal in [Signal::STOP, Signal::KILL] {
            for pid in &descendants {
                crate::os::terminate::kill(*pid, signal);
            }
        }
        for child in crate::os::procfs::children_of(me) {
            kill_everything(child, None);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

// ----- the engine's side ------------------------------------------------------------------

/// Where the supervisor's reports of session exits go (the reactor).
type ExitHandler = Box<dyn Fn(i32, ExitStatus) + Send + Sync>;

/// Session exits reported by the supervisor: those reported before a handler was set, and the
/// handler.
type Exits = (Vec<(i32, ExitStatus)>, Option<ExitHandler>);

/// Told when the supervisor is gone while the engine runs (killed, or stuck and killed).
type LostHandler = Box<dyn Fn() + Send + Sync>;

/// How long a spawn waits for the supervisor's answer (a fork and an exec: milliseconds)
/// before it fails; a supervisor still stopped then is killed (and replaced).
const SPAWN_ANSWER: std::time::Duration = std::time::Duration::from_secs(10);
/// How long an engine's end waits for its supervisor to end the sessions' leftovers (it
/// takes up to 2 s to kill them) before killing it.
pub(crate) const STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What the engine and the thread reading the supervisor's answers share.
struct Link {
    socket: OwnedFd,
    /// Spawn requests waiting for their answer, by request id.
    waiting: Mutex<HashMap<u64, Sender<io::Result<Started>>>>,
    /// Exits reported before a handler was set, then the handler.
    exits: Mutex<Exits>,
    /// The supervisor still answers: its socket has not reached its end.
    alive: AtomicBool,
    /// Told once when it is gone.
    lost: Mutex<Option<LostHandler>>,
}

/// The engine's side: the supervisor's guardian (the engine's child, whose child the
/// supervisor is) and the socket to the supervisor.
pub(crate) struct Supervisor {
    child: Mutex<Option<Child>>,
    link: Arc<Link>,
    next_request: AtomicU64,
    reader: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pid = self.child.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(Child::id);
        f.debug_struct("Supervisor").field("pid", &pid).finish_non_exhaustive()
    }
}

impl Supervisor {
    /// Starts the supervisor; `None` (with a warning in the log) where it cannot run.
    pub(crate) fn start() -> Option<Supervisor> {
        // A use of the constructor, so that the linker keeps it in every program that starts
        // an engine.
        std::hint::black_box(&CONSTRUCTOR);
        if !CONSTRUCTOR_RAN.load(Ordering::Relaxed) {
            log::warn!(
                "termloom: this program's start did not run termloom's constructor, so sessions are started by the engine and a killed engine leaves them running"
            );
            return None;
        }
        let started = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(io::Error::from)
        .and_then(|(ours, theirs)| {
            let mut command = Command::new("/proc/self/exe");
            command
                .env(ENV, format!("{GUARDIAN}{}", std::process::id()))
                .stdin(Stdio::from(theirs))
                .stdout(Stdio::null());
            command.stderr(Stdio::null());
            // SAFETY: between fork and exec, only fcntl calls (no allocation). The host's
            // descriptors stay out of the supervisor, which lives as long as the engine: a
            // pipe the host holds (and meant to close) would stay open in it.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                    crate::os::descriptors::mark_above_2_cloexec();
                    Ok(())
                });
            }
            let child = command.spawn()?;
            Ok((ours, child))
        });
        let (socket, child) = match started {
            Ok(started) => started,
            Err(err) => {
                log::warn!(
                    "termloom: cannot start the supervisor ({err}); sessions are started by the engine"
                );
                return None;
            }
        };
        let link = Arc::new(Link {
            socket,
            waiting: Mutex::default(),
            exits: Mutex::new((Vec::new(), None)),
            alive: AtomicBool::new(true),
            lost: Mutex::new(None),
        });
        let reading = link.clone();
        let reader = std::thread::Builder::new()
            .name("termloom-supervisor".into())
            .spawn(move || read_answers(&reading))
            .ok()?;
        Some(Supervisor {
            child: Mutex::new(Some(child)),
            link,
            next_request: AtomicU64::new(1),
            reader: Mutex::new(Some(reader)),
        })
    }

    /// Sets where session exits are reported (exits reported before go there at once).
    pub(crate) fn on_exit(&self, handler: impl Fn(i32, ExitStatus) + Send + Sync + 'static) {
        let mut exits = self.link.exits.lock().unwrap_or_else(|e| e.into_inner());
        for (pid, status) in exits.0.drain(..) {
            handler(pid, status);
        }
        exits.1 = Some(Box::new(handler));
    }

    /// Sets what is told when the supervisor is gone while the engine runs: a session's
    /// program may kill or stop it (it runs as the same user), and its sessions are then no
    /// longer contained nor their exits reported.
    pub(crate) fn on_lost(&self, handler: impl Fn() + Send + Sync + 'static) {
        *self.link.lost.lock().unwrap_or_else(|e| e.into_inner()) = Some(Box::new(handler));
        if !self.alive() {
            lost(&self.link);
        }
    }

    /// Whether the supervisor still answers.
    pub(crate) fn alive(&self) -> bool {
        self.link.alive.load(Ordering::SeqCst)
    }

    /// Resumes the supervisor and its guardian in case a session's program stopped them
    /// (`kill -STOP $PPID`): done while a spawn waits for its answer, when a session it reaps
    /// is closed or is to report an exit, and when the engine stops it.
    pub(crate) fn wake(&self) {
        if let Some(child) = self.child.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            // The guardian leads the process group the supervisor is in.
            let guardian = child.id() as i32;
            crate::os::terminate::kill(guardian, rustix::process::Signal::CONT);
            if let Some(group) = rustix::process::Pid::from_raw(guardian) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::CONT);
            }
        }
    }

    /// Starts a session's program on the terminal `slave`, as a child of the supervisor;
    /// returns its pid and its start time (clock ticks of `/proc/PID/stat`, read before it
    /// could be reaped; `None` where `/proc` cannot tell).
    pub(crate) fn spawn(
        &self,
        slave: BorrowedFd<'_>,
        argv: &[OsString],
        env: &BTreeMap<OsString, OsString>,
        cwd: &Path,
        cgroup: Option<&Path>,
        isolation: &Isolation,
    ) -> io::Result<Started> {
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let request = SpawnRequest {
            id,
            argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
            env: env.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect(),
            cwd: cwd.as_os_str().as_bytes().to_vec(),
            cgroup: cgroup.map(|p| p.as_os_str().as_bytes().to_vec()),
            isolation: isolation.clone(),
        };
        if !self.alive() {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the supervisor is gone"));
        }
        self.wake();
        let text = format!("spawn {}", serde_json::to_string(&request).map_err(io::Error::other)?);
        let (reply, answer) = crossbeam_channel::bounded(1);
        self.link.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(id, reply);
        if let Err(err) = send(self.link.socket.as_fd(), text.as_bytes(), &[slave]) {
            self.link.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
            if rustix::io::Errno::from_io_error(&err) == Some(rustix::io::Errno::MSGSIZE) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "the program's arguments and environment are too large to start it ({} bytes to hand to the supervisor, over its socket's limit); pass long data in a file or on standard input",
                        text.len()
                    ),
                ));
            }
            return Err(err);
        }
        // Woken while it is waited for, in case a session's program stops it again.
        let deadline = std::time::Instant::now() + SPAWN_ANSWER;
        let answered = loop {
            match answer.recv_timeout(std::time::Duration::from_millis(200)) {
                Err(crossbeam_channel::RecvTimeoutError::Timeout)
                    if std::time::Instant::now() < deadline =>
                {
                    self.wake();
                }
                answered => break answered,
            }
        };
        match answered {
            Ok(answer) => answer,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "the supervisor stopped"))
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                self.link.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                // Still stopped (a session's program stopped it again): killed, so that it
                // is replaced and its sessions are ended (see `on_lost`) by its guardian,
                // resumed to do so; only slow, it stays.
                let child = self.child.lock().unwrap_or_else(|e| e.into_inner());
                // The guardian's child: the supervisor (a stopped guardian is only resumed).
                let supervisors = child.as_ref().map(|c| procfs::children_of(c.id() as i32));
                let stopped: Vec<i32> = supervisors
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|&pid| procfs::read_stat(pid).is_ok_and(|s| s.state == 'T'))
                    .collect();
                drop(child);
                for &pid in &stopped {
                    crate::os::terminate::kill(pid, rustix::process::Signal::KILL);
                }
                self.wake();
                let stopped = !stopped.is_empty();
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the supervisor did not answer within {} s{}",
                        SPAWN_ANSWER.as_secs(),
                        if stopped { " (it was stopped): it is replaced" } else { "" }
                    ),
                ))
            }
        }
    }

    /// Forgets a session once it is closed (its processes are gone).
    pub(crate) fn forget(&self, sid: i32) {
        let _ = send(self.link.socket.as_fd(), format!("closed {sid}").as_bytes(), &[]);
    }

    /// Ends the supervisor (every session is closed by then) and reaps it: resumed if a
    /// session's program stopped it, killed if it has not ended after [`STOP_WAIT`].
    pub(crate) fn stop(&self) {
        // Its end is the engine's doing: nobody is to be told.
        self.link.lost.lock().unwrap_or_else(|e| e.into_inner()).take();
        let lost = !self.alive();
        let _ = rustix::net::shutdown(&self.link.socket, rustix::net::Shutdown::Write);
        self.wake();
        let child = self.child.lock().unwrap_or_else(|e| e.into_inner()).take();
        let reader = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take();
        let finish = move || {
            if let Some(mut child) = child {
                let ended = |child: &mut Child, wait: std::time::Duration| {
                    let deadline = std::time::Instant::now() + wait;
                    while matches!(child.try_wait(), Ok(None)) {
                        if std::time::Instant::now() >= deadline {
                            return false;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                    true
                };
                // Not ended in time: the supervisor is killed, and its guardian, resumed, kills
                // what it leaves; the guardian is killed only if it does not end in turn.
                if !ended(&mut child, STOP_WAIT) {
                    let guardian = child.id() as i32;
                    for pid in procfs::children_of(guardian) {
                        crate::os::terminate::kill(pid, rustix::process::Signal::KILL);
                    }
                    crate::os::terminate::kill(guardian, rustix::process::Signal::CONT);
                    if !ended(&mut child, STOP_WAIT) {
                        let _ = child.kill();
                    }
                }
                let _ = child.wait();
            }
            // A lost supervisor's reader may be telling the reactor: it ends by itself.
            if let Some(reader) = reader.filter(|_| !lost) {
                let _ = reader.join();
            }
        };
        // The reactor's thread (a tombstone held the last handle) never waits for it.
        if crate::reactor::on_reactor_thread() {
            std::thread::spawn(finish);
        } else {
            finish();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A started program's pid and start time (clock ticks of `/proc/PID/stat`), as the
/// supervisor answers a spawn.
type Started = (i32, Option<u64>);

/// The reader thread: routes the supervisor's answers to the spawns waiting for them, and its
/// exit reports to the handler; ends when the supervisor does.
fn read_answers(link: &Link) {
    let mut buffer = vec![0; 4096];
    while let Ok(Some((n, _))) = receive(link.socket.as_fd(), &mut buffer) {
        let text = String::from_utf8_lossy(&buffer[..n]).into_owned();
        let words: Vec<&str> = text.splitn(4, ' ').collect();
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<i64>().ok());
        match words.first().copied() {
            Some("spawned") | Some("failed") => {
                let Some(id) = number(1) else { continue };
                let answer = if words[0] == "spawned" {
                    let ticks = number(3).and_then(|ticks| u64::try_from(ticks).ok());
                    number(2)
                        .map(|pid| (pid as i32, ticks))
                        .ok_or_else(|| io::Error::other("bad answer"))
                } else {
                    let message = words.get(3).copied().unwrap_or("").to_owned();
                    Err(match number(2).filter(|&errno| errno != 0) {
                        Some(errno) => {
                            // The system's error as it is, its number kept, unless the
                            // supervisor said more than the system's own words.
                            let os = io::Error::from_raw_os_error(errno as i32);
                            if message == os.to_string() {
                                os
                            } else {
                                io::Error::new(os.kind(), message)
                            }
                        }
                        None => io::Error::other(message),
                    })
                };
                let waiting =
                    link.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(&(id as u64));
                if let Some(reply) = waiting {
                    let _ = reply.send(answer);
                }
            }
            Some("exit") => {
                let (Some(pid), Some(value)) = (number(1), number(3)) else { continue };
                let status = match words.get(2).copied() {
                    Some("signal") => ExitStatus::Signal(value as i32),
                    _ => ExitStatus::Code(value as i32),
                };
                let mut exits = link.exits.lock().unwrap_or_else(|e| e.into_inner());
                match &exits.1 {
                    Some(handler) => handler(pid as i32, status),
                    None => exits.0.push((pid as i32, status)),
                }
            }
            _ => {}
        }
    }
    // The supervisor is gone: spawns still waiting fail, and the engine is told (unless it
    // stopped the supervisor itself: then the handler is gone).
    link.waiting.lock().unwrap_or_else(|e| e.into_inner()).clear();
    lost(link);
}

/// Marks the supervisor gone and tells the handler, once.
fn lost(link: &Link) {
    link.alive.store(false, Ordering::SeqCst);
    let handler = link.lost.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(handler) = handler {
        handler();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reapers_wake_ups_hold_one_message_however_many_sessions_start() {
        let (signal, started) = start_signal();
        for _ in 0..10_000 {
            note_start(&signal);
        }
        assert_eq!(started.len(), 1);
        started.recv().unwrap();
        assert!(started.try_recv().is_err());
        // A start after the reaper took the wake-up wakes it again.
        note_start(&signal);
        assert_eq!(started.len(), 1);
        // The end of the supervisor's loop ends the reaper's wait once what is left is taken.
        drop(signal);
        assert!(started.recv().is_ok());
        assert!(started.recv().is_err());
    }
}
