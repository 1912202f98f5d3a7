//! No supervisor: the stand-in for [`crate::os::supervisor`] on every platform but Linux,
//! where the supervisor cannot run (it needs `PR_SET_CHILD_SUBREAPER`, pidfds and an ELF
//! `.init_array` constructor). Sessions are started by the engine itself, and a killed engine
//! leaves them running.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::BorrowedFd;
use std::path::Path;

use crate::os::isolation::Isolation;
use crate::types::ExitStatus;

/// A supervisor, of which there is none here: [`Supervisor::start`] gives `None`, so no value
/// of this type exists.
#[derive(Debug)]
pub(crate) enum Supervisor {}

impl Supervisor {
    /// Gives `None`, with a warning in the log: no supervisor runs on this platform.
    pub(crate) fn start() -> Option<Supervisor> {
        log::warn!(
            "termloom: no supervisor on this platform, so sessions are started by the engine and a killed engine leaves them running"
        );
        None
    }

    /// Never called: no supervisor exists.
    pub(crate) fn on_exit(&self, _handler: impl Fn(i32, ExitStatus) + Send + Sync + 'static) {
        match *self {}
    }

    /// Never called: no supervisor exists.
    pub(crate) fn on_lost(&self, _handler: impl Fn() + Send + Sync + 'static) {
        match *self {}
    }

    /// Never called: no supervisor exists.
    pub(crate) fn alive(&self) -> bool {
        match *self {}
    }

    /// Never called: no supervisor exists.
    pub(crate) fn wake(&self) {
        match *self {}
    }

    /// Never called: no supervisor exists.
    pub(crate) fn spawn(
        &self,
        _slave: BorrowedFd<'_>,
        _argv: &[OsString],
        _env: &BTreeMap<OsString, OsString>,
        _cwd: &Path,
        _cgroup: Option<&Path>,
        _isolation: &Isolation,
    ) -> io::Result<i32> {
        match *self {}
    }

    /// Never called: no supervisor exists.
    pub(crate) fn forget(&self, _sid: i32) {
        match *self {}
    }
}
