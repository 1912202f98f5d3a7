//! One cgroup v2 per session, so that even processes that left the session's POSIX session
//! (with `setsid`) are found and killed: `cgroup.kill` ends everything inside at once.
//!
//! The engine looks for a writable cgroup2 hierarchy in `/proc/self/mountinfo` and its own
//! cgroup in `/proc/self/cgroup`, and creates `termloom-PID-ID` below that. The child joins it
//! between fork and exec (writing `0` to `cgroup.procs`), so nothing it starts can escape.
//! Without such a hierarchy sessions are contained by their POSIX session only, and their
//! [`SessionInfo`](crate::SessionInfo) says so.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where session cgroups are created.
#[derive(Debug, Clone)]
pub(crate) struct CgroupParent {
    dir: PathBuf,
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
    // The hierarchy must let us create and remove a child.
    let probe = dir.join(format!("termloom-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).ok()?;
    let usable = probe.join("cgroup.procs").exists();
    let _ = std::fs::remove_dir(&probe);
    usable.then_some(CgroupParent { dir })
}

/// A session's cgroup.
#[derive(Debug)]
pub(crate) struct Cgroup {
    dir: PathBuf,
    /// `cgroup.procs` as a C string, for the child to join before exec.
    pub procs: CString,
}

impl CgroupParent {
    /// The directory session cgroups are created in.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the cgroup of one session.
    pub(crate) fn create(&self, name: &str) -> io::Result<Cgroup> {
        let dir = self.dir.join(name);
        std::fs::create_dir(&dir)?;
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        Ok(Cgroup { dir, procs })
    }
}

impl Cgroup {
    /// A session cgroup known by its path (to a supervisor, or left by a dead engine).
    pub(crate) fn at(dir: PathBuf) -> Cgroup {
        let procs =
            CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).unwrap_or_default();
        Cgroup { dir, procs }
    }

    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// The processes inside.
    pub(crate) fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Kills everything inside: `cgroup.kill` where the kernel has it (5.14+), SIGKILL to each
    /// process otherwise.
    pub(crate) fn kill(&self) {
        if std::fs::write(self.dir.join("cgroup.kill"), b"1").is_err() {
            kill_members(&self.dir);
        }
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

impl Drop for Cgroup {
    /// Kills what is left inside and removes the cgroup, with the cgroups nested in it (an
    /// engine run inside a session makes its sessions' cgroups there), deepest first, waiting
    /// a little (at most 2 s in all) for the killed processes to leave.
    fn drop(&mut self) {
        // `cgroup.kill` ends the nested cgroups' processes too; without it, each level's own.
        self.kill();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        remove_tree(&self.dir, deadline);
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
fn remove_tree(dir: &Path, deadline: std::time::Instant) {
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
        && std::time::Instant::now() < deadline
    {
        // EBUSY: the killed processes have not left yet.
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
