//! One cgroup v2 per session, so that even processes that left the session's POSIX session
//! (with `setsid`) are found and killed: `cgroup.kill` ends everything inside at once.
//!
//! The engine looks for a writable cgroup2 hierarchy in `/proc/self/mountinfo` and its own
//! cgroup in `/proc/self/cgroup`, and creates `termloom-PID-ENGINE-SESSION-nsNAMESPACE` below
//! that. The child joins it between fork and exec (writing `0` to `cgroup.procs`), so nothing
//! it starts can escape. Without such a hierarchy sessions are contained by their POSIX
//! session only, and their [`SessionInfo`](crate::SessionInfo) says so.
//!
//! The name carries the engine's PID namespace because a cgroup hierarchy is shared by
//! namespaces whose pids overlap: an engine judges a cgroup left by a dead engine (and removes
//! it, killing what is inside) only when that engine numbered its pid in the same namespace.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Where session cgroups are created.
#[derive(Debug, Clone)]
pub(crate) struct CgroupParent {
    dir: PathBuf,
    /// This process's PID namespace, when `/proc` numbers processes as it does.
    namespace: Option<u64>,
}

/// Finds the engine's own cgroup in a cgroup2 hierarchy and checks it can hold children.
pub(crate) fn detect() -> Option<CgroupParent> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let fstype = right.split_whitespace().next()?;
        (fstype == "cgroup2").then(|| left.split_whitespace().nth(4).map(PathBuf::from))?
    })?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let dir = mount.join(path.trim_start_matches('/'));
    let namespace = pid_namespace();
    // The hierarchy must let us create and remove a child. Each look has a probe of its own:
    // the engines of a process look at once, and one's probe made another's creation fail
    // (`EEXIST`), which left that engine's sessions without cgroups. A name taken anyway (a
    // probe left by a killed process of the same pid) is passed over.
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let probe = (0..100).find_map(|_| {
        let probe = dir.join(format!(
            "termloom-probe-{}-{}-ns{}",
            std::process::id(),
            PROBES.fetch_add(1, Ordering::Relaxed),
            namespace.unwrap_or_default()
        ));
        match std::fs::create_dir(&probe) {
            Ok(()) => Some(Some(probe)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => None,
            Err(_) => Some(None),
        }
    })??;
    let usable = probe.join("cgroup.procs").exists();
    let _ = std::fs::remove_dir(&probe);
    usable.then_some(CgroupParent { dir, namespace })
}

/// The PID namespace this process's pids are numbered in (`/proc/self/ns/pid` reads
/// `pid:[4026531836]`), if `/proc` is mounted for it: a `/proc` of another namespace numbers
/// processes otherwise, and its pids say nothing about this one's.
fn pid_namespace() -> Option<u64> {
    if !crate::os::procfs::numbers_ours() {
        return None;
    }
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    link.to_str()?.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// The engine a session cgroup's name says made it: its pid and PID namespace. `None` for
/// other names, and for the names of engines that did not know their namespace.
fn maker(name: &str) -> Option<(u32, u64)> {
    let (rest, namespace) = name.strip_prefix("termloom-")?.rsplit_once("-ns")?;
    let pid = rest.split('-').next()?.parse().ok()?;
    Some((pid, namespace.parse().ok()?))
}

/// How long [`CgroupParent::create`] waits for the killed processes of a leftover cgroup
/// to leave it (on the thread that starts the session, never the reactor's).
const LEFTOVER_WAIT: Duration = Duration::from_millis(50);

/// How many other names [`CgroupParent::create`] tries for a session whose cgroup is
/// left over from an earlier start of its id.
const MAX_RETRIES: u32 = 16;

/// A session's cgroup.
#[derive(Debug)]
pub(crate) struct Cgroup {
    dir: PathBuf,
    /// `cgroup.procs` as a C string, for the child to join before exec.
    pub procs: CString,
    /// `cgroup.procs` open for reading, at the first [`Cgroup::pids`] (`None` if it could
    /// not be opened): read again from its start with `pread`, one system call while it lists
    /// up to 4,088 bytes (`procfs::read_pids_from_start`), where opening it each time took
    /// five (the read count before each key typed reads it).
    listing: std::sync::OnceLock<Option<std::os::fd::OwnedFd>>,
}

impl CgroupParent {
    /// Creates the cgroup of session `session` of this process's engine number `engine`.
    ///
    /// A cgroup of that name already there is a leftover of this engine: the id was given
    /// back after a start that failed, and the cgroup could not be removed then (a process
    /// in it stuck in an uninterruptible sleep). Its processes are killed and it is removed
    /// if they leave within [`LEFTOVER_WAIT`]; otherwise the session's cgroup takes a name with a number after
    /// the id (`-r1`, `-r2`, ...), so the id's second start never fails for the first one.
    pub(crate) fn create(&self, engine: u64, session: u64) -> io::Result<Cgroup> {
        let pid = std::process::id();
        let mut attempt = 0;
        let dir = loop {
            let retry = if attempt == 0 { String::new() } else { format!("-r{attempt}") };
            let name = match self.namespace {
                Some(ns) => format!("termloom-{pid}-{engine}-{session}{retry}-ns{ns}"),
                None => format!("termloom-{pid}-{engine}-{session}{retry}"),
            };
            let dir = self.dir.join(name);
            match std::fs::create_dir(&dir) {
                Ok(()) => break dir,
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists && attempt < MAX_RETRIES => {
                    if attempt == 0 {
                        // (The kill takes effect a moment later: the cgroup is busy until then.)
                        kill_all(&dir);
                        remove_tree(&dir, Instant::now() + LEFTOVER_WAIT);
                        if std::fs::create_dir(&dir).is_ok() {
                            break dir;
                        }
                    }
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        };
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        Ok(Cgroup { dir, procs, listing: std::sync::OnceLock::new() })
    }

    /// Removes the cgroups of dead engines (killing what is left in them): those whose name
    /// says they were made in this process's PID namespace by a process that is gone. Cgroups
    /// of other namespaces' engines are never touched (their pids are not this namespace's),
    /// nor, when this process cannot tell its own namespace, any.
    pub(crate) fn remove_stale(&self) {
        let Some(ours) = self.namespace else { return };
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            let Some((pid, namespace)) = entry.file_name().to_str().and_then(maker) else {
                continue;
            };
            if namespace == ours
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                drop(Cgroup::at(entry.path()));
            }
        }
    }
}

impl Cgroup {
    /// A session cgroup known by its path (to a supervisor, or left by a dead engine).
    pub(crate) fn at(dir: PathBuf) -> Cgroup {
        let procs =
            CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).unwrap_or_default();
        Cgroup { dir, procs, listing: std::sync::OnceLock::new() }
    }

    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// The processes inside.
    pub(crate) fn pids(&self) -> Vec<i32> {
        let listing = self.listing.get_or_init(|| {
            use rustix::fs::{Mode, OFlags};
            rustix::fs::open(self.procs.as_c_str(), OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
                .ok()
        });
        let read = || match listing {
            Some(fd) => crate::os::procfs::read_pids_from_start(fd),
            None => std::fs::read(self.dir.join("cgroup.procs")),
        };
        // (Once within a look at the session: see `procfs::examine`.)
        let text = match self.procs.to_str() {
            Ok(path) => crate::os::procfs::read_examined(path, read),
            Err(_) => read(),
        };
        text.map(|text| {
            let text = String::from_utf8_lossy(&text);
            text.lines().filter_map(|l| l.trim().parse().ok()).collect()
        })
        .unwrap_or_default()
    }

    /// Kills everything inside: `cgroup.kill` where the kernel has it (5.14+), SIGKILL to each
    /// process otherwise.
    pub(crate) fn kill(&self) {
        kill_all(&self.dir);
    }
}

/// Kills everything inside cgroup `dir`, as [`Cgroup::kill`] does.
fn kill_all(dir: &Path) {
    if std::fs::write(dir.join("cgroup.kill"), b"1").is_err() {
        kill_members(dir);
    }
}

/// Joins the calling process to the cgroup whose `cgroup.procs` is `procs`; for the child
/// between fork and exec (system calls only).
pub(crate) fn join_in_child(procs: &std::ffi::CStr) -> io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(procs, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    rustix::io::write(&fd, b"0")?;
    Ok(())
}

/// How long a removal waits for killed processes to leave a cgroup.
const REMOVE_WAIT: Duration = Duration::from_secs(2);

/// Removals waiting on threads of their own ([`Cgroup::remove_without_waiting`]), and how many
/// may at once.
static REMOVERS: AtomicUsize = AtomicUsize::new(0);
const MAX_REMOVERS: usize = 8;

impl Cgroup {
    /// Kills what is left inside and removes the cgroup, as dropping it does, but without
    /// waiting on the calling thread (the reactor's) for killed processes to leave: when they
    /// have not left at once, a thread of its own waits for them (at most [`MAX_REMOVERS`] at
    /// a time; past that, the caller waits as a drop does).
    pub(crate) fn remove_without_waiting(mut self) {
        self.kill();
        let waited = Instant::now() + REMOVE_WAIT;
        // Taken, so that the drop at the end does nothing more.
        let dir = std::mem::take(&mut self.dir);
        // One try now: nearly always enough, the close's checks saw its processes leave.
        remove_tree(&dir, Instant::now());
        if !dir.exists() {
            return;
        }
        if REMOVERS.fetch_add(1, Ordering::SeqCst) < MAX_REMOVERS {
            let busy = dir.clone();
            let spawned =
                std::thread::Builder::new().name("termloom-cgroup".into()).spawn(move || {
                    remove_tree(&busy, waited);
                    REMOVERS.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_ok() {
                return;
            }
        }
        REMOVERS.fetch_sub(1, Ordering::SeqCst);
        remove_tree(&dir, waited);
    }
}

impl Drop for Cgroup {
    /// Kills what is left inside and removes the cgroup, with the cgroups nested in it (an
    /// engine run inside a session makes its sessions' cgroups there), deepest first, waiting
    /// a little (at most 2 s in all) for the killed processes to leave.
    fn drop(&mut self) {
        if self.dir.as_os_str().is_empty() {
            return; // removed by `remove_without_waiting`
        }
        // `cgroup.kill` ends the nested cgroups' processes too; without it, each level's own.
        self.kill();
        remove_tree(&self.dir, Instant::now() + REMOVE_WAIT);
    }
}

/// SIGKILL to each process of cgroup `dir` (not of the cgroups nested in it).
fn kill_members(dir: &Path) {
    let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    for pid in procs.lines().filter_map(|l| l.trim().parse().ok()) {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Removes cgroup `dir` after the cgroups nested in it (a cgroup with children cannot be
/// removed: EBUSY), retrying while killed processes have not left yet, until `deadline`.
fn remove_tree(dir: &Path, deadline: Instant) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                if !entry.path().join("cgroup.kill").exists() {
                    kill_members(&entry.path());
                }
                remove_tree(&entry.path(), deadline);
            }
        }
    }
    while std::fs::remove_dir(dir).is_err_and(|e| e.raw_os_error() == Some(16))
        && Instant::now() < deadline
    {
        // EBUSY: the killed processes have not left yet.
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::{detect, maker};

    #[test]
    fn a_session_cgroup_names_the_engine_that_made_it() {
        assert_eq!(maker("termloom-412-0-7-ns4026531836"), Some((412, 4026531836)));
        // Names of engines that did not know their namespace, probes, and others: no maker.
        for name in ["termloom-412-0-7", "termloom-probe-412-3-ns1", "termloom-x-ns1", "user.slice"]
        {
            assert_eq!(maker(name), None, "{name}");
        }
    }

    /// A session's cgroup removed from the reactor's thread: what is inside is killed and
    /// the cgroup goes, whether at once or on a thread of its own.
    #[test]
    fn a_cgroup_removed_without_waiting_kills_what_is_inside_and_goes() {
        let Some(parent) = detect() else {
            eprintln!("skipped: no writable cgroup2 hierarchy");
            return;
        };
        let cgroup = parent.create(u64::MAX, u64::from(std::process::id())).unwrap();
        let dir = cgroup.path().to_owned();
        let mut sleeper = std::process::Command::new("sleep").arg("600").spawn().unwrap();
        std::fs::write(dir.join("cgroup.procs"), sleeper.id().to_string()).unwrap();
        assert_eq!(cgroup.pids(), vec![sleeper.id() as i32]);
        cgroup.remove_without_waiting();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(sleeper.wait().unwrap().signal(), Some(9));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while dir.exists() {
            assert!(std::time::Instant::now() < deadline, "{} was not removed", dir.display());
            std::thread::yield_now();
        }
    }

    /// A cgroup's listing is opened once and read again from its start: it follows the
    /// members that join and leave, and the cgroup is removed while it is open. (It was
    /// opened, `statx`ed and closed at each look: before each key typed.)
    #[test]
    fn a_cgroup_listing_kept_open_follows_its_members_and_lets_it_go() {
        let Some(parent) = detect() else {
            eprintln!("skipped: no writable cgroup2 hierarchy");
            return;
        };
        let session = u64::from(std::process::id()) + (2 << 40);
        let cgroup = parent.create(u64::MAX, session).unwrap();
        let dir = cgroup.path().to_owned();
        assert!(cgroup.pids().is_empty());
        let listing = dir.join("cgroup.procs");
        let open_here = || {
            std::fs::read_dir("/proc/self/fd")
                .unwrap()
                .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
                .filter(|target| *target == listing)
                .count()
        };
        assert_eq!(open_here(), 1, "the listing is kept open");
        let mut sleepers: Vec<_> = (0..2)
            .map(|_| std::process::Command::new("sleep").arg("600").spawn().unwrap())
            .collect();
        let ids: Vec<i32> = sleepers.iter().map(|s| s.id() as i32).collect();
        std::fs::write(&listing, ids[0].to_string()).unwrap();
        assert_eq!(cgroup.pids(), vec![ids[0]]);
        std::fs::write(&listing, ids[1].to_string()).unwrap();
        let mut both = cgroup.pids();
        both.sort();
        assert_eq!(both, ids);
        sleepers[0].kill().unwrap();
        sleepers[0].wait().unwrap();
        assert_eq!(cgroup.pids(), vec![ids[1]]);
        assert_eq!(open_here(), 1, "opened once");
        sleepers[1].kill().unwrap();
        sleepers[1].wait().unwrap();
        assert!(cgroup.pids().is_empty());
        drop(cgroup);
        assert_eq!(open_here(), 0, "closed with the cgroup");
        assert!(!dir.exists(), "{} was not removed", dir.display());
    }

    /// An id given back after a failed start whose cgroup could not be removed (a process in
    /// it stuck in an uninterruptible sleep): the id's next start found the name taken and
    /// failed with `EEXIST`. The leftover's processes are killed, and the new cgroup takes
    /// its name if it could be removed at once, another name if not.
    #[test]
    fn a_cgroup_left_over_under_the_same_name_never_fails_the_next_start() {
        let Some(parent) = detect() else {
            eprintln!("skipped: no writable cgroup2 hierarchy");
            return;
        };
        let session = u64::from(std::process::id()) + (1 << 40);
        let first = parent.create(u64::MAX, session).unwrap();
        let mut sleeper = std::process::Command::new("sleep").arg("600").spawn().unwrap();
        std::fs::write(first.path().join("cgroup.procs"), sleeper.id().to_string()).unwrap();
        let left = first.path().to_owned();
        // Left behind: its drop would kill and remove it.
        let _ = std::mem::ManuallyDrop::new(first);
        let second = parent.create(u64::MAX, session).unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(sleeper.wait().unwrap().signal(), Some(9), "the leftover's process lives");
        assert!(second.pids().is_empty());
        let name = second.path().file_name().unwrap().to_str().unwrap().to_owned();
        let leftover = left.file_name().unwrap().to_str().unwrap();
        // (Killed, its process leaves within the wait and the name is taken again, but for a
        // machine too slow to let it.)
        assert!(
            second.path() == left || name.contains(&format!("-{session}-r1")),
            "{name} beside {leftover}"
        );
        if second.path() != left {
            drop(super::Cgroup::at(left));
        }
    }

    /// Engines of one process find the hierarchy at once (tests run side by side, each with
    /// its engine): one engine's probe made another's fail (`EEXIST`), and that engine ran its
    /// sessions without cgroups, where a process that left its session escaped the close of a
    /// session whose supervisor was killed.
    #[test]
    fn engines_of_one_process_find_the_hierarchy_at_once() {
        if detect().is_none() {
            eprintln!("skipped: no writable cgroup2 hierarchy");
            return;
        }
        let threads = 8;
        let start = std::sync::Barrier::new(threads);
        let missed = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    start.wait();
                    for _ in 0..50 {
                        if detect().is_none() {
                            missed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(missed.into_inner(), 0, "detections that found no hierarchy");
    }
}
