//! The operating system: pseudo-terminals, the child's environment and isolation, cgroups,
//! `/proc`, and shell integration's startup files. Nothing here knows about the terminal
//! model or the reactor.

pub(crate) mod cgroup;
pub(crate) mod confine;
pub(crate) mod descriptors;
pub(crate) mod env;
pub(crate) mod isolation;
pub(crate) mod procfs;
pub(crate) mod pty;
pub(crate) mod recording;
pub(crate) mod shell_files;
pub(crate) mod spawn;
pub(crate) mod supervisor;
pub(crate) mod terminate;
