//! Optional per-session isolation: another user and group, `no_new_privs`, resource limits.
//!
//! Everything is resolved before `fork` (user names through `/etc/passwd` and `/etc/group`);
//! between `fork` and `exec` the child only makes system calls. Switching user or group needs
//! root (CAP_SETUID/CAP_SETGID); without it the spawn fails with the OS error.

use std::io;

use rustix::process::{Gid, Resource, Rlimit, Uid};

/// A resource limit for the child (`setrlimit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Limit {
    /// Most processes of the child's user (RLIMIT_NPROC): every process of that user counts,
    /// not the session's alone, and the kernel does not hold root (or a process with
    /// CAP_SYS_RESOURCE or CAP_SYS_ADMIN) to it, so bound a fork bomb by running the session
    /// as another user ([`SpawnSpec::user`](crate::SpawnSpec::user)).
    Processes(u64),
    /// Most open files (RLIMIT_NOFILE).
    OpenFiles(u64),
    /// Largest address space in bytes (RLIMIT_AS).
    AddressSpace(u64),
    /// CPU time in seconds (RLIMIT_CPU): SIGKILL at the limit. The soft and hard limits are
    /// the same, so the kernel sends no SIGXCPU first.
    CpuSeconds(u64),
}

impl Limit {
    fn resource(self) -> (Resource, u64) {
        match self {
            Limit::Processes(n) => (Resource::Nproc, n),
            Limit::OpenFiles(n) => (Resource::Nofile, n),
            Limit::AddressSpace(n) => (Resource::As, n),
            Limit::CpuSeconds(n) => (Resource::Cpu, n),
        }
    }
}

/// What the caller asked for (names unresolved).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct IsolationSpec {
    pub user: Option<String>,
    pub group: Option<String>,
    pub supplementary_groups: Option<Vec<String>>,
    pub no_new_privs: bool,
    pub limits: Vec<Limit>,
}

/// A user as `/etc/passwd` describes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: String,
}

/// The resolved isolation, ready for the child.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Isolation {
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    pub groups: Option<Vec<u32>>,
    pub no_new_privs: bool,
    pub limits: Vec<Limit>,
    /// The account switched to, for HOME, USER and LOGNAME.
    pub account: Option<Account>,
    /// Landlock confinement.
    pub confinement: Option<crate::os::confine::ConfinementPlan>,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn lookup_user(name: &str) -> io::Result<Account> {
    let passwd = std::fs::read_to_string("/etc/passwd")?;
    let by_id = name.parse::<u32>().ok();
    passwd
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            (f.len() >= 7).then(|| Account {
                name: f[0].to_owned(),
                uid: f[2].parse().unwrap_or(u32::MAX),
                gid: f[3].parse().unwrap_or(u32::MAX),
                home: f[5].to_owned(),
            })
        })
        .find(|a| a.name == name || Some(a.uid) == by_id)
        .ok_or_else(|| invalid(format!("no user {} in /etc/passwd", crate::error::quoted(name))))
}

fn lookup_group(name: &str) -> io::Result<u32> {
    if let Ok(gid) = name.parse() {
        return Ok(gid);
    }
    let groups = std::fs::read_to_string("/etc/group")?;
    groups
        .lines()
        .find_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            (f.len() >= 3 && f[0] == name).then(|| f[2].parse().ok()).flatten()
        })
        .ok_or_else(|| invalid(format!("no group {} in /etc/group", crate::error::quoted(name))))
}

impl IsolationSpec {
    /// Resolves names to ids.
    pub(crate) fn resolve(&self) -> io::Result<Isolation> {
        let account = self.user.as_deref().map(lookup_user).transpose()?;
        let gid = match &self.group {
            Some(group) => Some(lookup_group(group)?),
            None => account.as_ref().map(|a| a.gid),
        };
        let groups = match &self.supplementary_groups {
            Some(names) => Some(names.iter().map(|n| lookup_group(n)).collect::<io::Result<_>>()?),
            // Switching user drops the supplementary groups of the engine's user.
            None if account.is_some() || gid.is_some() => Some(gid.into_iter().collect()),
            None => None,
        };
        Ok(Isolation {
            uid: account.as_ref().map(|a| a.uid),
            gid,
            groups,
            no_new_privs: self.no_new_privs,
            limits: self.limits.clone(),
            account,
            confinement: None,
        })
    }
}

impl Isolation {
    /// Applies the isolation in the child, between fork and exec: limits, groups, group, user,
    /// then `no_new_privs`. Makes system calls only.
    pub(crate) fn apply_in_child(&self) -> io::Result<()> {
        for limit in &self.limits {
            let (resource, value) = limit.resource();
            rustix::process::setrlimit(
                resource,
                Rlimit { current: Some(value), maximum: Some(value) },
            )?;
        }
        if let Some(groups) = &self.groups {
            let mut ids = [Gid::ROOT; 64];
            let count = groups.len().min(ids.len());
            for (slot, gid) in ids.iter_mut().zip(groups) {
                *slot = Gid::from_raw(*gid);
            }
            rustix::thread::set_thread_groups(&ids[..count])?;
        }
        if let Some(gid) = self.gid {
            rustix::thread::set_thread_gid(Gid::from_raw(gid))?;
        }
        if let Some(uid) = self.uid {
            rustix::thread::set_thread_uid(Uid::from_raw(uid))?;
        }
        if self.no_new_privs {
            rustix::thread::set_no_new_privs(true)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_nobody() {
        let spec = IsolationSpec { user: Some("nobody".into()), ..Default::default() };
        let iso = spec.resolve().unwrap();
        assert_eq!(iso.uid, Some(65534));
        assert_eq!(iso.groups, Some(vec![iso.gid.unwrap()]));
        let err = IsolationSpec { user: Some("no-such-user-xyz".into()), ..Default::default() }
            .resolve()
            .unwrap_err();
        assert!(err.to_string().contains("no-such-user-xyz"));
    }
}
