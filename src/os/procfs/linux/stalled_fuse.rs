//! (Tests) A FUSE file system of one file whose server answers nothing once the file is read
//! (`tests/stalled_fuse.py`): what `sshfs` is when its link dies.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};

/// The mounted file system and its server.
pub(super) struct StalledFuse {
    server: Child,
    /// What the server says: `mounted`, then `stalled` once a read came.
    said: std::io::BufReader<ChildStdout>,
    /// Whether the server was ended and the file system unmounted.
    down: bool,
    /// Where it is mounted; its one file is `file`.
    pub(super) mnt: PathBuf,
}

impl StalledFuse {
    /// The file system mounted in a directory named after `name`; `None`, saying the test
    /// skips, when not root, where there is no `/dev/fuse` or the mount is refused (`EPERM`:
    /// a right of the machine's), and without python3 (which fails under `CI`). A server that
    /// fails otherwise fails the test under `CI`.
    pub(super) fn mount(name: &str) -> Option<StalledFuse> {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: mounting a FUSE file system needs root");
            return None;
        }
        let dir = format!("termloom-{name}-{}", std::process::id());
        let mnt = std::env::temp_dir().join(dir);
        std::fs::create_dir_all(&mnt).unwrap();
        let server = Command::new("python3")
            .args(["-c", include_str!("../../../../tests/stalled_fuse.py")])
            .arg(&mnt)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut server = match server {
            Ok(server) => server,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                assert!(std::env::var_os("CI").is_none(), "CI must install python3");
                eprintln!("skipped: python3 not found");
                return None;
            }
            Err(err) => panic!("spawn python3: {err}"),
        };
        let mut said = std::io::BufReader::new(server.stdout.take().unwrap());
        let mut line = String::new();
        said.read_line(&mut line).unwrap();
        if line.trim() != "mounted" {
            let mut why = String::new();
            let _ = std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut why);
            let _ = server.wait();
            let _ = std::fs::remove_dir(&mnt);
            let refused = why.starts_with("/dev/fuse: [Errno 2]")
                || why.starts_with("mount: Operation not permitted");
            assert!(refused || std::env::var_os("CI").is_none(), "the FUSE server failed: {why}");
            eprintln!("skipped: no FUSE mount here: {}", why.trim());
            return None;
        }
        Some(StalledFuse { server, said, down: false, mnt })
    }

    /// Waits for the server to take a read of its file, which it never answers: whether it
    /// said so (not when it ended first). The reader is then waiting on it.
    pub(super) fn wait_for_read(&mut self) -> bool {
        let mut line = String::new();
        self.said.read_line(&mut line).is_ok_and(|_| line.trim() == "stalled")
    }

    /// Ends the server, which fails every request waiting on it, and unmounts: whether the
    /// unmount succeeded. (Dropped without it, on a test's panic, it does the same.)
    pub(super) fn end(mut self) -> bool {
        self.take_down()
    }

    /// See [`StalledFuse::end`]; once.
    fn take_down(&mut self) -> bool {
        if self.down {
            return true;
        }
        self.down = true;
        let _ = self.server.kill();
        let _ = self.server.wait();
        let unmounted = Command::new("umount").arg("-l").arg(&self.mnt).status();
        let _ = std::fs::remove_dir(&self.mnt);
        unmounted.is_ok_and(|status| status.success())
    }
}

/// What a look at a stalled reader's descriptor told ([`StalledFuse::look_at_a_reader`]).
pub(super) struct Told<R> {
    /// Whether the reader was seen blocked reading the file.
    pub(super) blocked: bool,
    /// The look's answer, or `Err` when it had not answered within 5 s.
    pub(super) answer: Result<R, crossbeam_channel::RecvTimeoutError>,
    /// Whether the file system was unmounted after.
    pub(super) unmounted: bool,
}

impl StalledFuse {
    /// Mounts a file system named after `name` (`None` where that skips the test, see
    /// [`StalledFuse::mount`]), has `cat` read its file until blocked, runs `look` on the
    /// link of `cat`'s descriptor of it (`/proc/PID/fd/3`) on another thread, waits at most
    /// 5 s for its answer, then ends the server and `cat`.
    pub(super) fn look_at_a_reader<R: Send + 'static>(
        name: &str,
        look: impl FnOnce(&str) -> R + Send + 'static,
    ) -> Option<Told<R>> {
        let mut fuse = StalledFuse::mount(name)?;
        let mut cat =
            Command::new("cat").arg(fuse.mnt.join("file")).stdout(Stdio::null()).spawn().unwrap();
        let link = format!("/proc/{}/fd/3", cat.id());
        let blocked = fuse.wait_for_read();
        let (sender, told) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || sender.send(look(&link)));
        let answer = told.recv_timeout(std::time::Duration::from_secs(5));
        let unmounted = fuse.end();
        let _ = cat.kill();
        cat.wait().unwrap();
        Some(Told { blocked, answer, unmounted })
    }
}

impl Drop for StalledFuse {
    fn drop(&mut self) {
        self.take_down();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropped without [`StalledFuse::end`] (a test's panic), it ends its server and unmounts.
    #[test]
    fn a_stalled_file_system_dropped_is_unmounted() {
        let Some(fuse) = StalledFuse::mount("fuse-drop") else { return };
        let mnt = fuse.mnt.to_string_lossy().into_owned();
        let mounted = || std::fs::read_to_string("/proc/self/mountinfo").unwrap().contains(&mnt);
        assert!(mounted());
        drop(fuse);
        assert!(!mounted(), "{mnt} unmounted");
    }
}
