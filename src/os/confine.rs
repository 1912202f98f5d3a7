//! Kernel confinement of a session with Landlock (Linux 5.13 and later): the program and
//! everything it starts may read and execute anywhere, write only in the session's working
//! directory and the paths listed, and, where the kernel's Landlock ABI has network rules
//! (Linux 6.7, ABI 4), neither bind nor connect TCP ports.
//!
//! The ruleset is built in the process that forks (the supervisor, or the engine), before the
//! fork; the child only makes the `prctl` and `landlock_restrict_self` calls between fork and
//! exec. Landlock without privileges needs `no_new_privs`, which the child then sets: sudo,
//! su and other setuid programs cannot raise privileges in a confined session.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Confines a session with Landlock (see [`SpawnSpec::confine`](crate::SpawnSpec::confine)
/// and [`Config::confinement`](crate::Config::confinement)).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Confinement {
    /// Absolute paths where the session may write, besides its working directory and the
    /// terminal devices (`/dev/null`, `/dev/tty`, `/dev/pts`, `/dev/zero`, `/dev/full`,
    /// `/dev/random`, `/dev/urandom`). Paths that do not exist are left out.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Allows binding and connecting TCP ports. Default `false`: no TCP at all where the
    /// kernel can enforce it.
    #[serde(default)]
    pub network: bool,
    /// Starts the session even where the kernel enforces only part of the confinement (or
    /// none of it); [`SessionInfo::confinement`](crate::SessionInfo::confinement) says what
    /// was enforced. Default `false`: such a start fails.
    #[serde(default)]
    pub best_effort: bool,
}

/// Devices every terminal program writes to.
const DEVICES: &[&str] =
    &["/dev/null", "/dev/tty", "/dev/pts", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

impl Confinement {
    /// What a session confined by both `operator` (the configuration) and `own` (its spec)
    /// gets: the operator's paths only, network and best effort only if both allow them.
    pub(crate) fn combine(
        operator: Option<&Confinement>,
        own: Option<&Confinement>,
    ) -> Option<Confinement> {
        match (operator, own) {
            (None, own) => own.cloned(),
            (Some(operator), None) => Some(operator.clone()),
            (Some(operator), Some(own)) => Some(Confinement {
                writable: operator.writable.clone(),
                network: operator.network && own.network,
                best_effort: operator.best_effort && own.best_effort,
            }),
        }
    }

    /// Checks the paths are absolute.
    pub(crate) fn validate(&self) -> Result<(), String> {
        match self.writable.iter().find(|p| !p.is_absolute()) {
            Some(path) => Err(format!(
                "writable path {} must be absolute",
                crate::error::quoted_os(path.as_os_str())
            )),
            None => Ok(()),
        }
    }

    /// Checks that a session confined by this (the operator's) confinement starts where the
    /// operator lets it write: in `base` (the engine's base directory) or below it, or in
    /// one of the writable paths. A working directory is always writable to its session, so
    /// one chosen elsewhere (a tool's `cwd` argument) would loosen the confinement. `cwd` is
    /// canonical (the spawn uses it so from the check on).
    pub(crate) fn check_working_directory(&self, cwd: &Path, base: &Path) -> io::Result<()> {
        let canonical = |path: &Path| std::fs::canonicalize(path).ok();
        let within = std::iter::once(base)
            .chain(self.writable.iter().map(PathBuf::as_path))
            .filter_map(canonical)
            .any(|allowed| cwd.starts_with(allowed));
        if within {
            return Ok(());
        }
        let mut allowed = vec![base.display().to_string()];
        allowed.extend(self.writable.iter().map(|p| p.display().to_string()));
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "working directory {} is outside what the operator's confinement lets sessions write (a session may always write in its working directory); start it in {} or below",
                cwd.display(),
                allowed.join(" or ")
            ),
        ))
    }

    /// The confinement of a session in `cwd`, with what the running kernel enforces of it;
    /// an error if it enforces less and `best_effort` is not set.
    pub(crate) fn plan(&self, cwd: &Path) -> io::Result<ConfinementPlan> {
        self.validate().map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))?;
        let mut writable = vec![cwd.to_owned()];
        writable.extend(self.writable.iter().cloned());
        let files = kernel::supports_files();
        let network_rules = self.network || kernel::supports_network();
        let mut missing = Vec::new();
        if !files {
            missing.push("file system rules (Landlock, Linux 5.13+)");
        }
        if !network_rules {
            missing.push("TCP rules (Landlock ABI 4, Linux 6.7+)");
        }
        if !missing.is_empty() && !self.best_effort {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "the session is to be confined, but this kernel cannot enforce {}; set best_effort to start it with what the kernel enforces",
                    missing.join(" nor ")
                ),
            ));
        }
        let shown: Vec<String> = writable.iter().map(|p| p.display().to_string()).collect();
        let report = match (files, network_rules) {
            (false, _) => "not confined: this kernel has no Landlock".to_owned(),
            (true, _) => format!(
                "Landlock: writes only in {}{}",
                shown.join(", "),
                match (self.network, network_rules) {
                    (true, _) => "; TCP allowed",
                    (false, true) => "; no TCP bind or connect",
                    (false, false) => "; TCP NOT restricted (the kernel has no Landlock TCP rules)",
                }
            ),
        };
        Ok(ConfinementPlan { writable, network: self.network, report })
    }
}

/// A confinement resolved for one session, ready for the process that forks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ConfinementPlan {
    /// Where the session may write: its working directory, then the listed paths.
    pub writable: Vec<PathBuf>,
    /// TCP allowed.
    pub network: bool,
    /// What the kernel enforces, in words (for `SessionInfo::confinement`).
    pub report: String,
}

impl ConfinementPlan {
    /// Builds the ruleset (before the fork); the child restricts itself with
    /// [`restrict_in_child`]. The working directory (the first writable path, canonical) is
    /// opened without following any symbolic link: had a directory of its path been replaced
    /// by a link since it was checked, the rule would allow writes where the link points.
    pub(crate) fn ruleset(&self) -> io::Result<kernel::Ruleset> {
        let (cwd, others) = self.writable.split_first().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a confinement plan without its working directory",
            )
        })?;
        kernel::build(cwd, others, self.network)
    }
}

/// Restricts the calling process (the child, between fork and exec) with `ruleset`, setting
/// `no_new_privs`. Makes system calls only; an error carries the OS error alone.
pub(crate) fn restrict_in_child(ruleset: &mut Option<kernel::Ruleset>) -> io::Result<()> {
    kernel::restrict(ruleset)
}

#[cfg(target_os = "linux")]
pub(crate) mod kernel {
    //! The Landlock calls, through the `landlock` crate.

    use std::io;
    use std::os::fd::OwnedFd;
    use std::path::{Path, PathBuf};

    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, RulesetAttr,
        RulesetCreated, RulesetCreatedAttr, path_beneath_rules,
    };

    /// The file-system rights handled: every right up to ABI 3 (refer, truncate). Device
    /// ioctls (ABI 5) are left alone: terminal programs need them on `/dev/tty`.
    const FS_ABI: ABI = ABI::V3;

    /// A ruleset built before the fork.
    pub(crate) type Ruleset = RulesetCreated;

    fn hard() -> landlock::Ruleset {
        landlock::Ruleset::default().set_compatibility(CompatLevel::HardRequirement)
    }

    /// Whether the kernel enforces the file-system rules.
    pub(crate) fn supports_files() -> bool {
        hard().handle_access(AccessFs::from_all(ABI::V1)).and_then(|r| r.create()).is_ok()
    }

    /// Whether the kernel enforces TCP rules.
    pub(crate) fn supports_network() -> bool {
        hard()
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .and_then(|r| r.create())
            .is_ok()
    }

    fn failed(err: landlock::RulesetError) -> io::Error {
        io::Error::other(format!("building the Landlock ruleset: {err}"))
    }

    /// The ruleset: read and execute everywhere, write in `cwd` (opened with no symbolic link
    /// followed), in `writable` and the devices, TCP only if `network`. Best effort: what the
    /// kernel lacks is left out (checked before).
    pub(crate) fn build(cwd: &Path, writable: &[PathBuf], network: bool) -> io::Result<Ruleset> {
        let cwd_fd = open_without_links(cwd)?;
        let mut ruleset = landlock::Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(FS_ABI))
            .map_err(failed)?;
        if !network {
            ruleset = ruleset
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(failed)?;
        }
        let devices = super::DEVICES.iter().map(PathBuf::from);
        ruleset
            .create()
            .map_err(failed)?
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(FS_ABI)))
            .and_then(|r| r.add_rule(PathBeneath::new(cwd_fd, AccessFs::from_all(FS_ABI))))
            .and_then(|r| {
                r.add_rules(path_beneath_rules(
                    writable.iter().cloned().chain(devices),
                    AccessFs::from_all(FS_ABI),
                ))
            })
            .map_err(failed)
    }

    /// Opens the directory `path` (canonical) for a rule, failing if any part of it is a
    /// symbolic link now. Kernels without `openat2` (before Linux 5.6, which have no Landlock
    /// either) open it as it is.
    fn open_without_links(path: &Path) -> io::Result<OwnedFd> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let opened = rustix::fs::openat2(
            rustix::fs::CWD,
            path,
            flags,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS,
        );
        match opened {
            Ok(fd) => Ok(fd),
            Err(rustix::io::Errno::NOSYS) => Ok(rustix::fs::open(path, flags, Mode::empty())?),
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "the working directory {} is reached through a symbolic link now, not as it was checked; nothing was started",
                    path.display()
                ),
            )),
            Err(err) => Err(err.into()),
        }
    }

    /// Restricts the calling process: `no_new_privs`, then `landlock_restrict_self`.
    pub(crate) fn restrict(ruleset: &mut Option<Ruleset>) -> io::Result<()> {
        let Some(ruleset) = ruleset.take() else { return Ok(()) };
        match ruleset.restrict_self() {
            Ok(_) => Ok(()),
            // Only the OS error: building a message could allocate after the fork.
            Err(_) => Err(io::Error::last_os_error()),
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) mod kernel {
    //! No Landlock outside Linux: a confinement is refused, or with best effort reported as
    //! not enforced.

    use std::io;
    use std::path::{Path, PathBuf};

    /// Nothing to build.
    pub(crate) type Ruleset = ();

    pub(crate) fn supports_files() -> bool {
        false
    }

    pub(crate) fn supports_network() -> bool {
        false
    }

    pub(crate) fn build(_: &Path, _: &[PathBuf], _: bool) -> io::Result<Ruleset> {
        Ok(())
    }

    pub(crate) fn restrict(_: &mut Option<Ruleset>) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A directory of the working directory's path replaced by a symbolic link between the
    /// check and the ruleset: the ruleset refuses it (following the link would allow writes
    /// where it points).
    #[test]
    fn a_working_directory_swapped_for_a_link_after_its_check_is_refused() {
        let base = std::env::temp_dir().join(format!("termloom-confine-{}", std::process::id()));
        let (inside, elsewhere) = (base.join("inside"), base.join("elsewhere"));
        let cwd = inside.join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(elsewhere.join("work")).unwrap();
        let cwd = std::fs::canonicalize(&cwd).unwrap();
        let confinement = Confinement { best_effort: true, ..Confinement::default() };
        let plan = confinement.plan(&cwd).unwrap();
        assert!(plan.ruleset().is_ok(), "as checked, the directory is taken");
        // `inside` becomes a link to `elsewhere`: the same path now leads out.
        std::fs::rename(&inside, base.join("moved")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &inside).unwrap();
        let refused = plan.ruleset().map(|_| ()).unwrap_err();
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
        let _ = std::fs::remove_dir_all(&base);
    }
}
