//! The device a descriptor is open on, told from the kernel's cached metadata alone.
//!
//! A descriptor's link (`/proc/PID/fd/N`) followed to its file's metadata asks the file's file
//! system, and a FUSE file's metadata is its server's to give: one that never answers made
//! the look wait in state D until the server died, on the reactor's thread. The program can
//! swap such a file onto the descriptor between a look at the link's name and the lookup
//! (`dup2`), or mount FUSE at a terminal's name in a mount namespace of its own, so no name
//! check makes the lookup safe. `statx` with `AT_STATX_DONT_SYNC` takes what the kernel has
//! cached: FUSE then never asks its server (`fuse_update_get_attr` syncs only without it),
//! nor does a network file system, and a terminal's device number is its inode's, never
//! stale.

use rustix::fs::{AtFlags, CWD, FileType, StatxFlags};

/// The device number (`st_rdev`) of the character device the descriptor at `link`
/// (`/proc/PID/…/fd/N`) is open on; `None` for another kind of file, a descriptor not open,
/// or a process gone. Never waits on the file's file system.
pub(super) fn open_device(link: &str) -> Option<u64> {
    let flags = AtFlags::STATX_DONT_SYNC;
    let stat = rustix::fs::statx(CWD, link, flags, StatxFlags::TYPE).ok()?;
    (FileType::from_raw_mode(stat.stx_mode.into()) == FileType::CharacterDevice)
        .then(|| rustix::fs::makedev(stat.stx_rdev_major, stat.stx_rdev_minor))
}

#[cfg(test)]
mod tests {
    use super::super::stalled_fuse::StalledFuse;
    use super::*;

    #[test]
    fn a_terminal_reads_as_its_device_and_a_file_as_none() {
        use std::os::unix::fs::MetadataExt;
        let null = std::fs::File::open("/dev/null").unwrap();
        let link = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&null));
        assert_eq!(open_device(&link), Some(std::fs::metadata("/dev/null").unwrap().rdev()));
        assert_eq!(open_device("/proc/self/exe"), None);
        assert_eq!(open_device("/proc/self/fd/999999"), None);
    }

    /// The device of a descriptor of a file on a FUSE file system whose server never answers
    /// ([`StalledFuse`]), held by `cat` blocked reading it, is told without asking the file
    /// system (a `stat` of it, a FUSE `GETATTR` never answered, waited until the server died).
    #[test]
    fn the_device_of_a_file_on_a_stalled_file_system_is_told_without_asking_it() {
        let Some(told) = StalledFuse::look_at_a_reader("fuse-device", open_device) else {
            return;
        };
        assert!(told.blocked, "cat blocked reading the file");
        assert_eq!(told.answer, Ok(None), "told within 5 s, and no device");
        assert!(told.unmounted);
    }
}
