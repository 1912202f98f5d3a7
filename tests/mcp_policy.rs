//! The MCP server's spawn policy (`termloom mcp --policy FILE`) and secret entry
//! (`terminal_send secret=true`), tried with the official Python MCP SDK's stdio client
//! (`tests/mcp_policy_client.py`) through both `initialize` and `server/discover`: denied
//! programs never run, `ask` programs run only when the person accepts through elicitation,
//! sudo's password given through elicitation is typed and appears in no byte the server
//! writes (stdout, stderr, recordings), and a client that cannot be asked gets an error.
//!
//! The script creates the user `termloom_sudo_PID` with a random password and
//! `/etc/sudoers.d/termloom-test-PID`, PID being this test process's (`TERMLOOM_TEST_RUN`):
//! two runs at once (a second checkout's tests beside CI) never make or remove each other's.
//! It removes both; this test removes them too (through the script's `--cleanup`, under the
//! runs' lock) if the script could not (killed, timed out), and every run removes what runs
//! killed with their test left. That needs root: as another user the test is skipped, even
//! in CI (which runs as root). The SDK is found as `tests/mcp_sdk.rs` finds it; without it, or
//! without sudo, su or the user tools, the test is skipped, except in CI (`CI` set), where it
//! fails (see `common::require`).

mod common;

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{python_with_sdk, require, require_in, require_root};
use termloom::shell_program;

/// The user the script creates: named after this process, within useradd's 32 characters.
fn sudo_user() -> String {
    format!("termloom_sudo_{}", std::process::id())
}

/// The sudoers rule the script installs, named after this process.
fn sudoers_file() -> String {
    format!("/etc/sudoers.d/termloom-test-{}", std::process::id())
}
/// How long the script may run: each of its waits returns as soon as it holds, and each of
/// its four connections gives up after five minutes; this only matters when something hangs.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How long the script has to clean up after a SIGTERM.
const CLEANUP_TIMEOUT: Duration = Duration::from_secs(60);

/// `PATH` with the system folders the user tools live in (`useradd` is in `/usr/sbin`).
fn path_with_sbin() -> OsString {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    for dir in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] {
        if !dirs.iter().any(|d| d == Path::new(dir)) {
            dirs.push(dir.into());
        }
    }
    std::env::join_paths(dirs).expect("a PATH of plain folders")
}

/// Whether the test user exists.
fn user_exists() -> bool {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd.lines().any(|line| line.starts_with(&format!("{}:", sudo_user())))
}

/// The marker the script keeps for this run while it runs (see `Sudoers` in the script).
fn run_marker() -> String {
    format!("/var/lib/termloom-test-sudoers/run-{}", std::process::id())
}

/// What the script leaves behind: removed when dropped, whatever happened before, by the
/// script's `--cleanup`, which takes the runs' lock, restores `/etc/sudoers` if this was the
/// last run needing its include, and removes what killed runs left.
struct Leftovers {
    /// The Python that runs the script.
    python: PathBuf,
}

impl Leftovers {
    /// What is left, in words.
    fn found() -> Vec<String> {
        let mut found = Vec::new();
        if user_exists() {
            found.push(format!("the user {}", sudo_user()));
        }
        for path in [sudoers_file(), run_marker()] {
            if Path::new(&path).exists() {
                found.push(path);
            }
        }
        found
    }
}

impl Drop for Leftovers {
    fn drop(&mut self) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let cleaned = Command::new(&self.python)
            .arg(root.join("tests/mcp_policy_client.py"))
            .arg("--cleanup")
            .env("PATH", path_with_sbin())
            .env("TERMLOOM_TEST_RUN", std::process::id().to_string())
            .stdin(Stdio::null())
            .output();
        match cleaned {
            Ok(output) if output.status.success() => return,
            Ok(output) => {
                eprintln!("--cleanup failed: {}", String::from_utf8_lossy(&output.stderr))
            }
            Err(err) => eprintln!("--cleanup did not run: {err}"),
        }
        // At least the rule granting ALL and the user go, even without the script.
        let user = sudo_user();
        let _ = std::fs::remove_file(sudoers_file());
        if user_exists() {
            let _ = Command::new("userdel")
                .args(["-r", "-f", &user])
                .env("PATH", path_with_sbin())
                .stdin(Stdio::null())
                .output();
        }
    }
}

/// Reads `from` to its end on a thread of its own; the buffer fills as it reads, and the
/// receiver hears when it has ended (a process the script left behind may hold the pipe).
fn collect(mut from: impl Read + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>) {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&buffer);
    let (done, ended) = mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match from.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => sink.lock().unwrap().extend_from_slice(&chunk[..n]),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = done.send(());
    });
    (buffer, ended)
}

#[test]
fn the_spawn_policy_and_secrets_work_through_the_python_sdk() {
    if !require_root(&format!("the test creates the user {} with a sudo rule", sudo_user())) {
        return;
    }
    let test = std::thread::current().name().unwrap_or("this test").to_owned();
    let ci = std::env::var_os("CI").is_some();
    let sbin = path_with_sbin();
    for program in ["useradd", "userdel", "chpasswd", "visudo"] {
        if let Err(skipped) = require_in(program, ci, Some(&sbin), &test) {
            eprintln!("{skipped}");
            return;
        }
    }
    for program in ["sudo", "su", "sh", "cat", "touch", "printf", "stty"] {
        if !require(program) {
            return;
        }
    }
    if !require(&shell_program()) {
        return;
    }
    let Some(python) = python_with_sdk() else {
        let hint = "python3 -m venv target/mcp-venv && target/mcp-venv/bin/pip install -r tests/mcp_requirements.txt";
        assert!(!ci, "the Python MCP SDK is missing: {hint}");
        eprintln!("skipped: the Python MCP SDK is not installed ({hint})");
        return;
    };

    let leftovers = Leftovers { python: python.clone() };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new(&python)
        .arg(root.join("tests/mcp_policy_client.py"))
        .args([env!("CARGO_BIN_EXE_termloom"), "mcp"])
        .current_dir(root)
        .env("PATH", &sbin)
        .env("TERMLOOM_TEST_RUN", std::process::id().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python client");
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("a process id");
    let (stdout, stdout_ended) = collect(child.stdout.take().expect("stdout"));
    let (stderr, stderr_ended) = collect(child.stderr.take().expect("stderr"));
    let (exited, exit) = mpsc::channel::<std::io::Result<ExitStatus>>();
    std::thread::spawn(move || {
        let _ = exited.send(child.wait());
    });

    let mut timed_out = false;
    let status = match exit.recv_timeout(SCRIPT_TIMEOUT) {
        Ok(status) => status,
        Err(_) => {
            // SIGTERM first: the script removes the user and the sudoers rule on it.
            timed_out = true;
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            exit.recv_timeout(CLEANUP_TIMEOUT).unwrap_or_else(|_| {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                exit.recv().expect("the waiting thread answers")
            })
        }
    };
    let status = status.expect("wait for the Python client");
    let _ = stdout_ended.recv_timeout(CLEANUP_TIMEOUT);
    let _ = stderr_ended.recv_timeout(CLEANUP_TIMEOUT);
    let stdout = String::from_utf8_lossy(&stdout.lock().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    let left = Leftovers::found();
    drop(leftovers);

    assert!(!timed_out, "the client did not end within {SCRIPT_TIMEOUT:?}:\n{stdout}\n{stderr}");
    assert!(status.success(), "the client failed ({status}):\n{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{last}\n{stdout}\n{stderr}");
    assert!(left.is_empty(), "the client left behind {left:?}:\n{stdout}");
    assert!(Leftovers::found().is_empty(), "cannot remove {:?}", Leftovers::found());
}

/// The script's bookkeeping of sudoers rules, users and the include of `/etc/sudoers.d`
/// (`Sudoers`), tried by `tests/mcp_policy_sudoers.py` on temporary paths with a fake list of
/// users: two runs interleaving (the include stays while one needs it, and goes with the last,
/// replaced by a rename with its mode), killed runs cleaned by the next, never a live one, a
/// reused pid, and a replacement visudo rejects. Needs neither root nor the SDK.
#[test]
fn the_sudoers_bookkeeping_leaves_nothing_behind() {
    if !require("python3") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(root.join("tests/mcp_policy_sudoers.py"))
        .env("PATH", path_with_sbin())
        .stdin(Stdio::null())
        .output()
        .expect("run the sudoers unit tests");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("\nOK"), "{stderr}");
}
