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
    /// Where it is mounted; its one file is `file`.
    pub(super) mnt: PathBuf,
}

impl StalledFuse {
    /// The file system mounted in a directory named after `name`; `None`, saying the test
    /// skips, when not root or where no FUSE file system can be mounted (no `/dev/fuse`, a
    /// right of the machine's), and without python3 (which fails under `CI`).
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
            .stderr(Stdio::null())
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
            eprintln!("skipped: no FUSE mount here");
            let _ = server.wait();
            return None;
        }
        Some(StalledFuse { server, said, mnt })
    }

    /// Waits for the server to take a read of its file, which it never answers: whether it
    /// said so (not when it ended first). The reader is then waiting on it.
    pub(super) fn wait_for_read(&mut self) -> bool {
        let mut line = String::new();
        self.said.read_line(&mut line).is_ok_and(|_| line.trim() == "stalled")
    }

    /// Ends the server, which fails every request waiting on it, and unmounts: whether the
    /// unmount succeeded.
    pub(super) fn end(mut self) -> bool {
        self.server.kill().unwrap();
        self.server.wait().unwrap();
        let unmounted = Command::new("umount").arg("-l").arg(&self.mnt).status().unwrap();
        let _ = std::fs::remove_dir(&self.mnt);
        unmounted.success()
    }
}
