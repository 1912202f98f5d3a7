//! The operating system: pseudo-terminals, the child's environment and isolation,
//! confinement, cgroups, `/proc`, recordings, the supervisor, and shell integration's startup
//! files. Nothing here knows about the terminal model or the reactor, with two exceptions:
//! the session key of shell-integration marks (`term::scan::MarkKey`), handed to the shell,
//! and the supervisor's question whether it runs on the reactor's thread
//! (`reactor::on_reactor_thread`), so that it never waits there.

pub(crate) mod cgroup;
pub(crate) mod confine;
pub(crate) mod descriptors;
pub(crate) mod engine_watch;
pub(crate) mod env;
pub(crate) mod isolation;
pub(crate) mod procfs;
pub(crate) mod pty;
pub(crate) mod recording;
pub(crate) mod shell_files;
pub(crate) mod spawn;
pub(crate) mod supervisor;
pub(crate) mod terminate;
