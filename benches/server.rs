//! `termloom server` from a shell, as an agent drives it: one process per step.
//!
//! - **Round trip**: `termloom send ID --keys TOKEN --wait-screen TOKEN` (process start,
//!   connection, hello, the call, the wait and the exit included) in a session running `cat`,
//!   against `tmux send-keys` + `tmux capture-pane` repeated until the token shows, in the same
//!   run and interleaved. Target: p50 ≤ 3 ms and below tmux.
//! - **100 clients at once**: 100 `termloom send` processes started together, each with its
//!   own client name and token; every one must succeed (no error) and the slowest is reported
//!   beside the median (no starvation).
//! - **Idle**: a server with 10 sessions (`cat`) and no client, watched for 2 s: the context
//!   switches of all its threads (`/proc/PID/task/*/status`). Target: zero wake-ups.
//!
//! ```text
//! cargo bench --bench server
//! ```
//! `TERMLOOM_BENCH_SAMPLES` (default 200) sets the round trips per series.

mod support;

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

const TERMLOOM: &str = env!("CARGO_BIN_EXE_termloom");

/// A foreground server on a socket of the bench's own.
struct Server {
    child: Child,
    socket: PathBuf,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let socket = dir.join("s");
        let mut child = Command::new(TERMLOOM)
            .args(["server", "--idle-exit", "never", "--socket"])
            .arg(&socket)
            .stderr(Stdio::piped())
            .spawn()
            .expect("termloom server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        assert!(line.contains("listening"), "{line}");
        Server { child, socket }
    }

    fn cli(&self, args: &[&str]) -> std::process::Output {
        let output = Command::new(TERMLOOM)
            .arg(args[0])
            .arg("--socket")
            .arg(&self.socket)
            .args(&args[1..])
            .stdin(Stdio::null())
            .output()
            .expect("termloom runs");
        assert!(
            output.status.success(),
            "termloom {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Context switches so far of each thread of process `pid`, by thread id.
fn switches(pid: u32) -> std::collections::HashMap<String, u64> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Default::default();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let status = std::fs::read_to_string(task.path().join("status")).ok()?;
            let count = status
                .lines()
                .filter(|l| l.contains("ctxt_switches"))
                .filter_map(|l| l.split_whitespace().last()?.parse::<u64>().ok())
                .sum();
            Some((task.file_name().to_string_lossy().into_owned(), count))
        })
        .collect()
}

/// Context switches between two [`switches`] (a thread that ended in between is not counted;
/// one that started counts whole).
fn wakeups(
    before: &std::collections::HashMap<String, u64>,
    after: &std::collections::HashMap<String, u64>,
) -> u64 {
    after.iter().map(|(tid, n)| n - before.get(tid).copied().unwrap_or(0).min(*n)).sum()
}

/// A tmux server of its own with one `cat` window, or `None` without tmux.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn start(dir: &Path) -> Option<Tmux> {
        let socket = dir.join("tmux");
        let started = Command::new("tmux")
            .args(["-S"])
            .arg(&socket)
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "b",
                "-x",
                "120",
                "-y",
                "32",
                "cat",
            ])
            .status()
            .ok()?;
        started.success().then_some(Tmux { socket })
    }

    fn run(&self, args: &[&str]) -> String {
        let output =
            Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// send-keys, then capture-pane until `token` shows: what a tmux-driving agent does,
    /// without its sleeps.
    fn round_trip(&self, token: &str) {
        self.run(&["send-keys", "-t", "b", token]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.run(&["capture-pane", "-p", "-t", "b"]).contains(token) {
            assert!(Instant::now() < deadline, "tmux never showed {token}");
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").status();
    }
}

fn ms(values: &[f64]) -> String {
    format!(
        "p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        median(values) / 1000.0,
        percentile(values, 90.0) / 1000.0,
        max(values) / 1000.0
    )
}

fn main() {
    header("server");
    let samples = env_usize("TERMLOOM_BENCH_SAMPLES", 200);
    let dir = TempDir::new("server");
    let server = Server::start(dir.path());
    server.cli(&["start", "--name", "b", "--size", "120x32", "--", "cat"]);
    let tmux = Tmux::start(dir.path());
    if tmux.is_none() {
        println!("tmux is not installed: no baseline");
    }

    if selected("round trip") {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let mut floor = Vec::new();
        for i in 0..samples {
            // The floor: starting the binary and waiting for it, with no server involved.
            let start = Instant::now();
            let version = Command::new(TERMLOOM).arg("--version").output().expect("termloom");
            assert!(version.status.success());
            floor.push(us(start.elapsed()));
            // A fresh line now and then, so that the tokens never wrap.
            if i % 8 == 0 {
                server.cli(&["send", "b", "--keys", "<Enter>", "--wait-quiet", "0"]);
                if let Some(tmux) = &tmux {
                    tmux.run(&["send-keys", "-t", "b", "Enter"]);
                }
            }
            let token = format!("k{i}x");
            let start = Instant::now();
            server.cli(&["send", "b", "--keys", &token, "--wait-screen", &token]);
            ours.push(us(start.elapsed()));
            if let Some(tmux) = &tmux {
                let start = Instant::now();
                tmux.round_trip(&token);
                theirs.push(us(start.elapsed()));
            }
        }
        println!("process start, termloom --version:                {}", ms(&floor));
        println!("round trip, termloom send --keys T --wait-screen T: {}", ms(&ours));
        if !theirs.is_empty() {
            println!("round trip, tmux send-keys + capture-pane until T:  {}", ms(&theirs));
            println!("ratio of medians (termloom / tmux): {:.2}", median(&ours) / median(&theirs));
        }
    }

    if selected("clients") {
        // Each client types its own line and waits for it in the transcript.
        let start = Instant::now();
        let waiters: Vec<_> = (0..100)
            .map(|n| {
                let child = Command::new(TERMLOOM)
                    .arg("send")
                    .arg("--socket")
                    .arg(&server.socket)
                    .args(["b", "--client", &format!("c{n}"), "--text", &format!("c{n}y\\n")])
                    .args(["--wait-text", &format!("c{n}y"), "--timeout", "30000"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("termloom runs");
                let started = Instant::now();
                std::thread::spawn(move || {
                    let output = child.wait_with_output().expect("waiting");
                    (us(started.elapsed()), output.status.success())
                })
            })
            .collect();
        let mut times = Vec::new();
        let mut failed = 0;
        for waiter in waiters {
            let (time, ok) = waiter.join().expect("waiter");
            times.push(time);
            failed += usize::from(!ok);
        }
        println!(
            "100 clients at once: {failed} failed; per client {}; all done in {:.1} ms",
            ms(&times),
            us(start.elapsed()) / 1000.0
        );
    }

    if selected("idle") {
        for n in 0..9 {
            server.cli(&["start", "--name", &format!("idle{n}"), "--", "cat"]);
        }
        // Let the last start's settling finish, then watch.
        std::thread::sleep(Duration::from_secs(1));
        let before = switches(server.child.id());
        std::thread::sleep(Duration::from_secs(2));
        let after = switches(server.child.id());
        println!(
            "idle server, 10 sessions, 2 s: {} context switches in {} threads",
            wakeups(&before, &after),
            after.len()
        );
    }
}
