//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use termloom::{Config, Engine, Session, SpawnSpec, Until, WaitOutcome};

/// A generous timeout: waits return as soon as their condition holds, so this only matters
/// when something is broken or the machine is very slow.
pub(crate) const LONG: Duration = Duration::from_secs(20);

pub(crate) fn engine() -> Engine {
    Engine::new(Config::default()).expect("engine starts")
}

/// A bash with no startup files and a fixed prompt.
pub(crate) fn bash(engine: &Engine) -> Session {
    let session = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile"])
                .env("PS1", "$ ")
                .env("HISTFILE", "/dev/null"),
        )
        .expect("bash starts");
    expect(&session, Until::screen_contains("$"));
    session
}

/// Waits and panics with the screen when the condition does not hold.
pub(crate) fn expect(session: &Session, until: Until) -> WaitOutcome {
    expect_within(session, until, LONG)
}

/// [`expect`] with a timeout of its own: for work whose length a loaded machine stretches far
/// past [`LONG`] (a flood the work budget slows down on purpose).
pub(crate) fn expect_within(session: &Session, until: Until, timeout: Duration) -> WaitOutcome {
    let description = until.to_string();
    let outcome = session.wait(until, timeout).expect("wait");
    if outcome.is_timeout() {
        panic!(
            "timed out waiting for {description}; screen:\n{}",
            outcome.screen.as_ref().map(ToString::to_string).unwrap_or_default()
        );
    }
    outcome
}

/// Reads the transcript until `needle` has been read (waiting in between).
pub(crate) fn read_until(session: &Session, needle: &str) -> String {
    let mut all = String::new();
    loop {
        let out = session.read().expect("read");
        all.push_str(&out.text);
        if all.contains(needle) {
            return all;
        }
        let last_line = needle.rsplit('\n').next().unwrap_or(needle);
        expect(session, Until::text(last_line));
    }
}

/// Whether `program`, which the calling test drives, is installed; call it first thing and
/// return when it is not: `if !require("vim") { return; }`.
///
/// The tests assume only a POSIX system (`sh`, `cat`, `env`, `sleep`, `seq`, `stty`, `printf`,
/// `yes`, `tr`, `head` and the like); every other program they drive (bash, python3, vim,
/// less, htop, gdb, gcc, whiptail, zsh) may be missing on a fresh machine. A missing program
/// skips the test, saying so on stderr, except in CI (`CI` set), where it fails the test:
/// `.ci/run` installs every program. A name with a slash is a path (what
/// [`termloom::shell_program`] may return); any other name is looked up in `PATH`.
pub(crate) fn require(program: &str) -> bool {
    let test = std::thread::current().name().unwrap_or("this test").to_owned();
    let path = std::env::var_os("PATH");
    match require_in(program, std::env::var_os("CI").is_some(), path.as_deref(), &test) {
        Ok(()) => true,
        Err(skipped) => {
            eprintln!("{skipped}");
            false
        }
    }
}

/// Writes the C program `source` to `dir` and builds it there as `name` with gcc and
/// `flags`: gcc's complaint where it fails. (Call [`require`] for gcc first.)
pub(crate) fn gcc(dir: &Path, name: &str, source: &str, flags: &[&str]) -> Result<(), String> {
    let file = format!("{name}.c");
    std::fs::write(dir.join(&file), source).unwrap();
    let built = std::process::Command::new("gcc")
        .args(flags)
        .args(["-o", name, &file])
        .current_dir(dir)
        .output()
        .unwrap();
    match built.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&built.stderr).into_owned()),
    }
}

/// Builds the C program `source` as `name` in `dir` with gcc and `flags` (the build must
/// succeed): `false`, saying the test skips, where gcc is missing (except under `CI`, see
/// [`require`]).
pub(crate) fn build_c(dir: &Path, name: &str, source: &str, flags: &[&str]) -> bool {
    if !require("gcc") {
        return false;
    }
    gcc(dir, name, source, flags).unwrap_or_else(|why| panic!("gcc: {why}"));
    true
}

/// Whether this test runs as root, which it needs because `why`; says it skips when not,
/// except under `CI`, which runs as root, where it fails.
pub(crate) fn require_root(why: &str) -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "CI runs as root, and {why}");
    eprintln!("skipped: not root, and {why}");
    false
}

/// Whether `unshare --pid --fork --mount-proc` can make a PID namespace here (it needs root,
/// or user namespaces); says why not when it cannot. Tests of namespaces skip without it,
/// also under `CI`: it is a right of the machine's, not a program `.ci/run` installs.
pub(crate) fn pid_namespaces() -> bool {
    if !require("unshare") {
        return false;
    }
    let probe = std::process::Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "true"])
        .output();
    let works = probe.as_ref().is_ok_and(|probe| probe.status.success());
    if !works {
        eprintln!("skipped: unshare cannot make a PID namespace here: {probe:?}");
    }
    works
}

/// [`require`] with its inputs given (whether `CI` is set, the `PATH` or `None` when it is
/// unset, and the test's name), printing nothing: `Ok` when `program` is installed, otherwise
/// the message saying the test is skipped, or a panic in CI.
pub(crate) fn require_in(
    program: &str,
    ci: bool,
    path: Option<&OsStr>,
    test: &str,
) -> Result<(), String> {
    if installed(program, path) {
        return Ok(());
    }
    assert!(!ci, "{test} needs {program}, which is not installed: CI must install it (.ci/run)");
    Err(format!("skipped: {test} needs {program}, which is not installed"))
}

/// Whether `program` names an executable file: itself when it has a slash, otherwise in one
/// of the folders of `path` (`/bin:/usr/bin` when it is unset, as `execvp` does).
pub(crate) fn installed(program: &str, path: Option<&OsStr>) -> bool {
    let executable = |file: &Path| {
        file.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    let path = path.unwrap_or(OsStr::new("/bin:/usr/bin"));
    !program.is_empty() && std::env::split_paths(path).any(|dir| executable(&dir.join(program)))
}

/// A `termloom mcp` child process spoken to over its standard input and output, one JSON
/// message a line, after the `initialize` handshake of `revision`.
pub(crate) struct McpChild {
    input: Option<std::process::ChildStdin>,
    output: std::io::BufReader<std::process::ChildStdout>,
    child: std::process::Child,
    next_id: u64,
}

impl McpChild {
    pub(crate) fn start(revision: &str) -> McpChild {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_termloom"))
            .arg("mcp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("termloom mcp starts");
        let input = child.stdin.take();
        let output = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = McpChild { input, output, child, next_id: 1 };
        server.request(
            "initialize",
            serde_json::json!({"protocolVersion": revision, "capabilities": {},
                "clientInfo": {"name": "termloom-tests", "version": "1"}}),
        );
        server.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    /// The process id of the server.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, message: &serde_json::Value) {
        use std::io::Write;
        let input = self.input.as_mut().expect("the input is open");
        writeln!(input, "{message}").expect("termloom mcp reads");
    }

    /// Sends a request and returns its `result` (or the whole response when it has none).
    pub(crate) fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::BufRead;
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.output.read_line(&mut line).expect("reading") > 0, "termloom mcp ended");
            let response: serde_json::Value = serde_json::from_str(&line).expect("JSON");
            if response["id"] == id {
                return match response.get("result") {
                    Some(result) => result.clone(),
                    None => response,
                };
            }
        }
    }

    /// Calls a tool; returns the `tools/call` result.
    pub(crate) fn call(&mut self, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
        self.request("tools/call", serde_json::json!({"name": tool, "arguments": arguments}))
    }

    /// Kills the server with SIGKILL and reaps it.
    pub(crate) fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for McpChild {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = self.child.wait();
    }
}

/// A Python that has the official MCP SDK: `$TERMLOOM_MCP_PYTHON`, the virtual environment
/// `.ci/run` makes (`target/mcp-venv`), or `python3`.
pub(crate) fn python_with_sdk() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("TERMLOOM_MCP_PYTHON").map(PathBuf::from),
        Some(root.join("target/mcp-venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|python| {
        std::process::Command::new(python)
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|output| output.status.success())
    })
}

/// A directory of a test's own in the temporary directory, removed with what it holds when
/// dropped (a failed test's too, as the panic unwinds).
pub(crate) struct TestDir(PathBuf);

impl TestDir {
    /// A new empty directory named after `name`, this process and a counter.
    pub(crate) fn new(name: &str) -> TestDir {
        let dir = TestDir::unmade(name);
        std::fs::create_dir_all(&dir.0).expect("a test directory can be made");
        dir
    }

    /// The same path, not made: for what the code under test makes itself.
    pub(crate) fn unmade(name: &str) -> TestDir {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        let dir = std::env::temp_dir().join(format!(
            "termloom-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TestDir(dir)
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl std::ops::Deref for TestDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Removes what earlier test runs left in the temporary directory: the `termloom-KIND-PID…`
/// files and directories the tests' helpers make (which return a path, so nothing removes it
/// when the test ends) of processes that are gone, untouched for an hour (a run in another PID
/// namespace, `unshare -p`, shares this directory, and its processes are gone from this
/// `/proc`). Once per test process; a run leaves at most its own.
pub(crate) fn sweep_left_overs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    const LEFT_FOR: std::time::Duration = std::time::Duration::from_secs(3600);
    ONCE.call_once(|| {
        const KINDS: [&str; 8] = [
            "cli-test",
            "confine-escaped",
            "confine",
            "input",
            "base",
            "mcp",
            "policy",
            "zsh-home",
        ];
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("termloom-")) else {
                continue;
            };
            let pid = KINDS.iter().find_map(|kind| {
                let pid = rest.strip_prefix(kind)?.strip_prefix('-')?.split('-').next()?;
                pid.parse::<u32>().ok().filter(|pid| *pid > 1)
            });
            let old = entry
                .metadata()
                .and_then(|meta| meta.modified())
                .is_ok_and(|at| at.elapsed().is_ok_and(|age| age > LEFT_FOR));
            if old && pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let path = entry.path();
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    });
}

/// Has `command`'s process sent SIGTERM when the thread that spawns it ends
/// (`PR_SET_PDEATHSIG`): a test binary killed (a timeout, ^C) runs no `Drop`, and a server
/// with `--idle-exit never` would otherwise be left running. SIGTERM, so that the server
/// closes its sessions as it stops. The signal is the parent *thread*'s: the child is spawned
/// on the test's thread, which outlives it (its `Drop` kills it first). Kept across `exec`
/// (`unshare`), not across a change of user (`setpriv --reuid`).
pub(crate) fn dies_with_this_process(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: the closure makes two system calls and allocates nothing, as is allowed
    // between fork and exec.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM))?;
            // The parent gone before the signal was set: none would come.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("the test process is gone"));
            }
            Ok(())
        });
    }
}

/// Starts `termloom server --socket SOCKET EXTRA...` in the foreground (with `--idle-exit
/// never` unless `extra` sets it); returns once it says it listens, its log drained from
/// then on so that it never blocks on a full pipe.
pub(crate) fn start_server(socket: &Path, extra: &[&str]) -> std::process::Child {
    start_server_under(&[], socket, extra)
}

/// [`start_server`] run under `wrapper`, a command that runs its arguments (`setpriv
/// --reuid=1234 ...`, `unshare --user`); nothing when empty.
pub(crate) fn start_server_under(
    wrapper: &[&str],
    socket: &Path,
    extra: &[&str],
) -> std::process::Child {
    use std::io::{BufRead, BufReader};
    let idle: &[&str] =
        if extra.contains(&"--idle-exit") { &[] } else { &["--idle-exit", "never"] };
    let termloom = env!("CARGO_BIN_EXE_termloom");
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut command = std::process::Command::new(program);
            command.args(args).arg(termloom);
            command
        }
        None => std::process::Command::new(termloom),
    };
    dies_with_this_process(&mut command);
    let mut child = command
        .args(["server", "--socket"])
        .arg(socket)
        .args(idle)
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("termloom server starts");
    let mut log = BufReader::new(child.stderr.take().expect("its stderr is piped"));
    let mut line = String::new();
    log.read_line(&mut line).expect("the server's log is readable");
    assert!(line.contains("listening on"), "the server did not start: {line}");
    std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
    child
}

/// `termloom COMMAND --socket SOCKET ARGS...` run in `dir` (the socket before the arguments:
/// after `--` they would be the program's).
pub(crate) fn cli_on(dir: &Path, socket: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_termloom"))
        .arg(args[0])
        .arg("--socket")
        .arg(socket)
        .args(&args[1..])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("termloom runs")
}

/// Stops the tmux server on `socket` when dropped, whatever the test's end.
pub(crate) struct TmuxServer<'a>(pub(crate) &'a str);

impl Drop for TmuxServer<'_> {
    fn drop(&mut self) {
        let mut kill = std::process::Command::new("tmux");
        kill.args(["-S", self.0, "kill-server"]).stderr(std::process::Stdio::null());
        let _ = kill.status();
    }
}

/// A Python relay: a password prompt on a terminal of its own (the length of the password
/// read is printed, `pw-length N`, then a line asked for), the session's terminal left as it
/// was (reading lines, echoing), unlike `sudo` and `script`, which make it raw.
pub(crate) const ECHOING_RELAY: &str = r#"
import os, pty, select
pid, fd = pty.fork()
if pid == 0:
    os.execvp("python3", ["python3", "-c", "import getpass; p = getpass.getpass('Password: '); print('pw-length', len(p)); input('more: ')"])
while True:
    ready = select.select([0, fd], [], [])[0]
    if fd in ready:
        try:
            data = os.read(fd, 1024)
        except OSError:
            break
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        os.write(fd, os.read(0, 1024))
"#;

/// A Python stand-in for `ssh`: a relay that puts the session's terminal in raw mode and
/// shuttles keys and output between it and a "remote" shell in a session of its own, which
/// termloom cannot see, over a TCP connection on the loopback (`sys.argv[1] == "local"`: a
/// socketpair, as an event loop's own). The remote shell shows `remote$ `, echoes what it is
/// sent (a line break 0.3 s after the text before it, as across a slow network), and runs
/// four commands: `slow` prints `working`, is silent for 0.4 s, then prints
/// `done`; `cat` reads a line with no prompt and prints it back; `full` shows `full screen` on
/// the alternate screen and answers each key 0.3 s later with `key K` (`q` leaves it);
/// `right` gives its prompts a right-hand part, `[right]`, from then on (zsh's `RPROMPT`).
pub(crate) const NETWORK_RELAY: &str = r#"
import os, select, socket, sys, time, tty
local = sys.argv[1:] == ["local"]
def echo(far, data):
    # A line break comes back 0.3 s after the text before it, as across a slow network.
    for n, part in enumerate(data.split(b"\r")):
        if n:
            time.sleep(0.3); far.sendall(b"\r\n")
        far.sendall(part)
if local:
    near, far = socket.socketpair()
else:
    server = socket.create_server(("127.0.0.1", 0))
if os.fork() == 0:
    os.setsid()
    far = far if local else socket.create_connection(server.getsockname())
    prompt = b"remote$ "
    far.sendall(prompt)
    pending = b""
    while True:
        data = far.recv(64)
        if not data:
            os._exit(0)
        echo(far, data)
        pending += data
        while b"\r" in pending:
            command, pending = pending.split(b"\r", 1)
            if command == b"slow":
                far.sendall(b"working\r\n"); time.sleep(0.4); far.sendall(b"done\r\n")
            elif command == b"cat":
                while b"\r" not in pending:
                    data = far.recv(64); pending += data; echo(far, data)
                line, pending = pending.split(b"\r", 1)
                far.sendall(b"cat: " + line + b"\r\n")
            elif command == b"full":
                far.sendall(b"\x1b[?1049h\x1b[Hfull screen")
                while (key := far.recv(1)) != b"q":
                    time.sleep(0.3); far.sendall(b"\x1b[2;1Hkey " + key)
                far.sendall(b"\x1b[?1049l")
            elif command == b"right":
                prompt = b"remote$ \x1b7\x1b[999C\x1b[7D[right]\x1b8"
            far.sendall(prompt)
if not local:
    near = server.accept()[0]
tty.setraw(0)
while True:
    ready = select.select([0, near], [], [])[0]
    if 0 in ready:
        near.sendall(os.read(0, 64))
    if near in ready:
        data = near.recv(4096)
        if not data:
            break
        os.write(1, data)
"#;

/// The number of the `exit` system call (one thread's end, where `exit_group` ends the
/// process) on this architecture; `None` where the tests do not know it.
fn sys_exit_number() -> Option<u32> {
    match () {
        () if cfg!(target_arch = "x86_64") => Some(60),
        () if cfg!(target_arch = "aarch64") => Some(93),
        () => None,
    }
}

/// The number of the `ppoll` system call on this architecture; `None` where the tests do not
/// know it.
fn sys_ppoll_number() -> Option<u32> {
    match () {
        () if cfg!(target_arch = "x86_64") => Some(271),
        () if cfg!(target_arch = "aarch64") => Some(73),
        () => None,
    }
}

/// Waits until the stdout watch of `termloom mcp` or its proxy, process `pid` (its thread
/// named `termloom-stdout`), has seen stdout's end and waits for stdin's within its window:
/// `/proc/PID/task/TID/syscall` shows `ppoll` with a timeout (before the end it waits with
/// none, or in `epoll_wait`). A test that closes stdout, then stdin, closes the second once
/// this returns true: the order it is of, with no sleep between. Looked at as often as the
/// thread is scheduled, for [`LONG`] at most. False when the window was not seen: the watch
/// thread or the process ended first (the window passed while this thread was not scheduled,
/// on a loaded machine, or there was none); the caller tries again, and fails when it never
/// sees one. True at once on an architecture whose `ppoll` number the tests do not know.
pub(crate) fn until_stdout_watch_waits_for_stdin(pid: u32) -> bool {
    let Some(ppoll) = sys_ppoll_number() else {
        return true;
    };
    let tasks = PathBuf::from(format!("/proc/{pid}/task"));
    let deadline = std::time::Instant::now() + LONG;
    while std::time::Instant::now() < deadline {
        let Ok(entries) = std::fs::read_dir(&tasks) else {
            return false;
        };
        let watch = entries.flatten().map(|task| task.path()).find(|task| {
            std::fs::read_to_string(task.join("comm"))
                .is_ok_and(|comm| comm.trim() == "termloom-stdout")
        });
        let Some(watch) = watch else {
            return false;
        };
        // `NR fds nfds timeout sigmask ...`: a non-null timeout is the window's poll.
        let syscall = std::fs::read_to_string(watch.join("syscall")).unwrap_or_default();
        let mut fields = syscall.split_whitespace();
        if fields.next() == Some(&ppoll.to_string()) && fields.nth(2).is_some_and(|t| t != "0x0") {
            return true;
        }
        std::thread::yield_now();
    }
    panic!("the stdout watch of process {pid} was neither in its window nor gone within {LONG:?}");
}

/// How many times a test closing stdout, then stdin, tries to close stdin within the stdout
/// watch's window ([`until_stdout_watch_waits_for_stdin`]) before it fails.
pub(crate) const WINDOW_TRIES: usize = 20;

/// What the worker of [`first_thread_exits`] asks at its password prompt: `Password-z: `,
/// read with echo off; it prints `got-SECRET-end-z` and the process ends.
pub(crate) const ASKS_A_PASSWORD: &str = "\
old = termios.tcgetattr(0); new = termios.tcgetattr(0); new[3] &= ~termios.ECHO
termios.tcsetattr(0, termios.TCSAFLUSH, new)
os.write(1, b'Pass' b'word-z: ')
line = os.read(0, 1024).decode().strip()
termios.tcsetattr(0, termios.TCSAFLUSH, old)
os.write(1, ('\\ngot-%s-end-z\\n' % line).encode())
os._exit(0)";

/// The Python program `worker.py`, written to `dir`, whose first thread ends alone (the
/// `exit` system call, as C's `pthread_exit` in `main`) after running `main` (lines of
/// Python, at the top level: a signal's disposition is set there, Python sets none in a
/// thread), while a worker thread lives on: once `/proc/PID/stat` says the process is a
/// zombie (`Z`, the first thread's state), the worker runs `worker` (lines of Python).
/// `None`, saying the test skips, without python3 (under `CI` that fails, see [`require`])
/// or on an architecture whose number for `exit` the tests do not know.
pub(crate) fn first_thread_exits(dir: &Path, main: &str, worker: &str) -> Option<PathBuf> {
    if !require("python3") {
        return None;
    }
    let Some(number) = sys_exit_number() else {
        eprintln!("skipped: the number of the exit system call is not known on this architecture");
        return None;
    };
    let indent =
        |lines: &str| lines.lines().map(|line| format!("    {line}\n")).collect::<String>();
    let program = dir.join("worker.py");
    let source = format!(
        "import ctypes, os, termios, threading\n\
         {main}\n\
         def state():\n    return open('/proc/self/stat').read().rsplit(')', 1)[1].split()[0]\n\
         def worker():\n    while state() != 'Z':\n        os.sched_yield()\n{}\
         threading.Thread(target=worker).start()\n\
         ctypes.CDLL(None).syscall({number}, 0)\n",
        indent(worker)
    );
    std::fs::write(&program, source).unwrap();
    Some(program)
}

/// Locks the file at `path` (made if absent) exclusively as soon as a recorder's temporary
/// file appears in its directory, between the recording's making and its rename over `path`
/// once the program starts: the rename then finds the path locked, as another session's
/// recording's, and the recording stays whole under its temporary name
/// (`SessionInfo::recording_kept_at`). The thread gives the locked file back (the lock lasts
/// while it is open), or `None` if no temporary file appeared within half a minute, or if the
/// rename came first (the recorder's own lock on the file it renamed is then met: waited
/// for, it would last until the session closes), for the caller to try again.
pub(crate) fn lock_when_recording_starts(
    path: &Path,
) -> std::thread::JoinHandle<Option<std::fs::File>> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let dir = path.parent().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            let names = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name());
            if names.into_iter().any(|n| n.to_string_lossy().starts_with(".termloom-recording-")) {
                let file = std::fs::OpenOptions::new().create(true).append(true).open(&path);
                let file = file.unwrap();
                return file.try_lock().is_ok().then_some(file);
            }
            std::thread::yield_now();
        }
        None
    })
}

/// Starts `cat` recorded to `path` with the path's file locked between the recording's
/// making and its rename ([`lock_when_recording_starts`]), tried again (at most 20 times)
/// when the start was too quick for the lock: the session, and where its recording is kept
/// whole (`SessionInfo::recording_kept_at`).
pub(crate) fn kept_recording(engine: &Engine, path: &Path) -> (Session, PathBuf) {
    (0..20)
        .find_map(|_| {
            let locker = lock_when_recording_starts(path);
            let session = engine.spawn(SpawnSpec::new("cat").record(path)).unwrap();
            let _lock = locker.join().unwrap();
            match session.info().unwrap().recording_kept_at {
                Some(kept) => Some((session, kept)),
                None => {
                    session.close().unwrap();
                    None
                }
            }
        })
        .expect("a lock came between the recording's making and its rename")
}
