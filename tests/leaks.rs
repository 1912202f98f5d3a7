//! Sessions die with their engine, however it dies (unless their program disabled both the
//! supervisor and its guardian first, see SECURITY.md): `kill -9` of the command line, of
//! `termloom mcp` and of a library host leaves no session process and no session cgroup
//! behind (the engine's supervisor ends them); cgroups of dead engines are removed when the
//! next engine starts.
//!
//! These tests watch processes of *another* program (the killed host's), so they poll `/proc`
//! for a condition with a deadline: there is no engine left to wait with.

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::*;
use termloom::{Fired, SpawnSpec, Until};

const TERMLOOM: &str = env!("CARGO_BIN_EXE_termloom");

/// A number no other test uses, to tell this test's `sleep` processes apart.
fn marker() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!("{}.{:04}", 5000 + std::process::id() % 4000, NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A session that leaves processes every way a program can: a plain background child, one
/// under `nohup`, and one in a new POSIX session (`setsid`); each runs `sleep MARKER`.
fn escapers(marker: &str) -> String {
    format!(
        "setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & sleep {marker} & \
         echo started; wait"
    )
}

/// Live (not zombie) processes whose command line passes `wanted`.
fn live_processes(wanted: impl Fn(&[u8]) -> bool) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| wanted(&c))
                })
                .filter(|pid| {
                    // A zombie has ended.
                    std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .is_ok_and(|s| s.rsplit(')').next().is_some_and(|r| !r.starts_with(" Z")))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Processes whose command line is `sleep MARKER`.
fn sleepers(marker: &str) -> Vec<i32> {
    let wanted = format!("sleep\0{marker}\0");
    live_processes(|cmdline| cmdline == wanted.as_bytes())
}

/// Polls `condition` until it holds or `LONG` passes.
fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + LONG;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The directory session cgroups of processes in this test's cgroup are made in, if a
/// cgroup2 hierarchy is mounted (at `/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` beside v1).
fn cgroup_parent() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        (right.split_whitespace().next()? == "cgroup2").then(|| left.split_whitespace().nth(4))?
    })?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?.trim().trim_start_matches('/');
    let dir = PathBuf::from(mount).join(path);
    dir.join("cgroup.procs").exists().then_some(dir)
}

/// This process's PID namespace, as its engine names it in its session cgroups.
fn pid_namespace() -> String {
    let link = std::fs::read_link("/proc/self/ns/pid").expect("/proc/self/ns/pid");
    let link = link.to_string_lossy();
    link.strip_prefix("pid:[").and_then(|l| l.strip_suffix(']')).expect("pid:[N]").to_owned()
}

/// Session cgroups of the engine in process `pid`.
fn cgroups_of(pid: u32) -> Vec<PathBuf> {
    let Some(parent) = cgroup_parent() else { return Vec::new() };
    let prefix = format!("termloom-{pid}-");
    std::fs::read_dir(parent)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Kills the host (`kill`: SIGKILL and reap) once its session's three sleepers run, then
/// checks that they and the session's cgroup go.
fn kill_host_and_check(host_pid: u32, kill: impl FnOnce(), marker: &str) {
    eventually("the session's three sleepers run", || sleepers(marker).len() == 3);
    let had_cgroup = !cgroups_of(host_pid).is_empty();
    kill();
    // The supervisor started the session and is its subreaper: even the process that left
    // its POSIX session is its descendant, cgroup or not.
    eventually("every sleeper is gone", || sleepers(marker).is_empty());
    if had_cgroup {
        eventually("the session cgroup is removed", || cgroups_of(host_pid).is_empty());
    }
}

#[test]
fn kill_9_of_the_command_line_ends_its_sessions() {
    let marker = marker();
    let host = Command::new(TERMLOOM)
        .args(["run", "--wait-exit", "--", "sh", "-c", &escapers(&marker)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    kill_child_and_check(host, &marker);
}

/// [`kill_host_and_check`] for a child process.
fn kill_child_and_check(mut host: Child, marker: &str) {
    let pid = host.id();
    kill_host_and_check(
        pid,
        move || {
            host.kill().unwrap();
            host.wait().unwrap();
        },
        marker,
    );
}

#[test]
fn kill_9_of_termloom_mcp_ends_its_sessions() {
    let marker = marker();
    let mut host = McpChild::start("2025-06-18");
    // The start's answer comes after the session printed "started".
    let started = host.call(
        "terminal_start",
        serde_json::json!({"argv": ["sh", "-c", escapers(&marker)], "for_text": "started"}),
    );
    assert_eq!(started["isError"], false, "{started}");
    let pid = host.pid();
    kill_host_and_check(pid, move || host.kill(), &marker);
}

/// The library host of [`kill_9_of_a_library_host_ends_its_sessions`]: run as a child process
/// of that test (this test binary, run again), it starts an engine and a session, says so,
/// and waits to be killed.
#[test]
#[ignore = "a child process of kill_9_of_a_library_host_ends_its_sessions"]
fn library_host() {
    let Some(marker) = std::env::var("TERMLOOM_LEAKS_MARKER").ok() else { return };
    let cgroups = std::env::var_os("TERMLOOM_LEAKS_NO_CGROUPS").is_none();
    let engine =
        termloom::Engine::new(termloom::Config { cgroups, ..termloom::Config::default() }).unwrap();
    let mut script = escapers(&marker);
    if let Some(first) = std::env::var_os("TERMLOOM_LEAKS_FIRST") {
        script = format!("{}; {script}", first.to_string_lossy());
    }
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    expect(&session, termloom::Until::text("started"));
    println!("ready");
    loop {
        std::thread::park();
    }
}

/// Runs [`library_host`] as a child process, without cgroups when asked.
fn library_host_process(marker: &str, cgroups: bool) -> Child {
    library_host_command(marker, cgroups).spawn().unwrap()
}

/// The command of [`library_host_process`].
fn library_host_command(marker: &str, cgroups: bool) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "library_host", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("TERMLOOM_LEAKS_MARKER", marker)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if !cgroups {
        command.env("TERMLOOM_LEAKS_NO_CGROUPS", "1");
    }
    command
}

#[test]
fn kill_9_of_a_library_host_ends_its_sessions() {
    let marker = marker();
    kill_child_and_check(library_host_process(&marker, true), &marker);
}

/// A session's program that stops its supervisor (`kill -STOP $PPID`: it runs as the same
/// user), and then its host is killed: the supervisor, stopped, never read its socket's end,
/// and without cgroups (which the next engine's start removes) the session's processes, the
/// supervisor and its guardian ran on for ever. The guardian watches the engine: it resumes
/// the supervisor, and kills it if it does not end.
#[test]
fn kill_9_of_a_host_whose_supervisor_a_program_stopped_ends_its_sessions() {
    kill_host_after("kill -STOP $PPID");
}

/// The same with the guardian stopped: the supervisor ended the sessions, but the guardian
/// stayed stopped for ever (with the supervisor a zombie beside it). The supervisor resumes it
/// as it ends.
#[test]
fn kill_9_of_a_host_whose_guardian_a_program_stopped_leaves_no_process() {
    kill_host_after("kill -STOP $(cut -d ' ' -f 4 /proc/$PPID/stat)");
}

/// Runs a library host without cgroups whose session runs `first` before it starts its
/// sleepers, kills it, and checks that the sleepers, the supervisor and its guardian go.
fn kill_host_after(first: &str) {
    let marker = marker();
    let mut host =
        library_host_command(&marker, false).env("TERMLOOM_LEAKS_FIRST", first).spawn().unwrap();
    let host_pid = host.id() as i32;
    eventually("the session's three sleepers run", || sleepers(&marker).len() == 3);
    // The guardian is the host's child, the supervisor the guardian's.
    let guardian = children(host_pid);
    let supervisor: Vec<i32> = guardian.iter().flat_map(|&pid| children(pid)).collect();
    assert_eq!((guardian.len(), supervisor.len()), (1, 1), "{guardian:?} {supervisor:?}");
    host.kill().unwrap();
    host.wait().unwrap();
    eventually("every sleeper is gone", || sleepers(&marker).is_empty());
    eventually("the supervisor and its guardian are gone", || {
        [guardian[0], supervisor[0]].iter().all(|&pid| !alive(pid))
    });
}

/// The live children of process `parent`.
fn children(parent: i32) -> Vec<i32> {
    live_processes(|_| true).into_iter().filter(|&pid| parent_of(pid) == Some(parent)).collect()
}

/// The parent of process `pid`.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..].split(' ').nth(1)?.parse().ok()
}

/// Whether process `pid` runs (a zombie has ended).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit(')').next().is_some_and(|r| !r.starts_with(" Z")))
}

#[test]
fn without_cgroups_even_a_process_that_left_its_session_dies_with_the_engine() {
    let marker = marker();
    kill_child_and_check(library_host_process(&marker, false), &marker);
}

#[test]
fn cgroups_of_dead_engines_are_removed_when_an_engine_starts() {
    let Some(parent) = cgroup_parent() else {
        eprintln!("skipped: no cgroup2 hierarchy at /sys/fs/cgroup");
        return;
    };
    // A process id above the kernel's largest: no such engine runs in this namespace.
    let stale = parent.join(format!("termloom-4999999-1-1-ns{}", pid_namespace()));
    if std::fs::create_dir(&stale).is_err() {
        eprintln!("skipped: cannot create cgroups below {}", parent.display());
        return;
    }
    // The same, made in another PID namespace, where that pid may be a live engine's: kept,
    // with the process in it. So is a cgroup of an engine that did not name its namespace.
    let elsewhere = parent.join("termloom-4999999-1-1-ns1");
    let unnamed = parent.join("termloom-4999998-1-1");
    let mut sleeper = Command::new("sleep").arg("1000").spawn().unwrap();
    for kept in [&elsewhere, &unnamed] {
        let _ = std::fs::remove_dir(kept);
        std::fs::create_dir(kept).unwrap();
    }
    std::fs::write(elsewhere.join("cgroup.procs"), sleeper.id().to_string()).unwrap();
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("true")).unwrap();
    expect(&session, termloom::Until::exit());
    assert!(!stale.exists(), "{} is still there", stale.display());
    let alive = sleeper.try_wait().unwrap().is_none();
    let kept = [&elsewhere, &unnamed].map(|dir| dir.exists());
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    for dir in [&elsewhere, &unnamed] {
        while std::fs::remove_dir(dir).is_err_and(|e| e.raw_os_error() == Some(16)) {
            std::thread::yield_now(); // EBUSY: the killed sleeper has not left yet.
        }
    }
    assert!(alive, "the process in another namespace's cgroup was killed");
    assert_eq!(kept, [true, true], "{} or {} was removed", elsewhere.display(), unnamed.display());
}

/// An engine in a PID namespace of its own (a container's) leaves alone the sessions of an
/// engine outside it, whose pid its `/proc` does not show: it took their cgroups for a dead
/// engine's and killed them (a test started beside it failed with its program killed).
#[test]
fn an_engine_in_another_pid_namespace_leaves_this_engines_sessions_alone() {
    if !pid_namespaces() {
        return;
    }
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&session, Until::input_wait());
    let contained = session.info().unwrap().containment;
    let inner = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", TERMLOOM, "run", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(inner.status.success(), "{inner:?}");
    session.submit("still here").unwrap();
    let outcome = session.wait(Until::text("still here"), LONG).unwrap();
    assert!(matches!(outcome.fired, Fired::Matched(_)), "{contained:?}: {outcome}");
}

/// A session whose cgroup holds nested cgroups (an engine run inside the session makes its
/// own sessions' cgroups there) leaves none of them behind when it closes, at once: such a
/// cgroup cannot be removed before its children, and every later engine's first start spent
/// 2 s on each one left.
#[test]
fn a_session_cgroup_with_nested_cgroups_is_removed_on_close() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", "echo ready; exec sleep 1000"])).unwrap();
    expect(&s, termloom::Until::text("ready"));
    let containment = s.info().unwrap().containment;
    let Some(dir) = containment.strip_prefix("cgroup ").map(PathBuf::from) else {
        eprintln!("skipped: sessions get no cgroup here ({containment})");
        return;
    };
    std::fs::create_dir_all(dir.join("termloom-nested-1-1/termloom-deeper-1-1")).unwrap();
    let started = Instant::now();
    s.close().unwrap();
    assert!(!dir.exists(), "{} is left behind", dir.display());
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

/// The engine's supervisor lives as long as the engine, so it must keep none of the host's
/// descriptors: a pipe the host holds without close-on-exec (and means to close) would stay
/// open in the supervisor, and whoever reads that pipe to its end would wait for the engine.
#[test]
fn the_supervisor_keeps_none_of_the_hosts_descriptors() {
    use std::os::fd::AsRawFd;
    let (_read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::empty()).unwrap();
    let pipe = std::fs::read_link(format!("/proc/self/fd/{}", write.as_raw_fd())).unwrap();
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&cat, termloom::Until::input_wait());
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", cat.pid())).unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let supervisor: u32 = after_name.split(' ').nth(1).unwrap().parse().unwrap();
    assert_ne!(supervisor, std::process::id(), "the session was started by the supervisor");
    let held: Vec<PathBuf> = std::fs::read_dir(format!("/proc/{supervisor}/fd"))
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .collect();
    assert!(!held.contains(&pipe), "the supervisor holds the host's {pipe:?}: {held:?}");
}

/// A session's program that kills the supervisor (it runs as the same user, and is its
/// child) ends every session the supervisor started, and the engine starts another for the
/// next session; one that stops it finds it resumed for the next start and for a close.
/// Before, sessions then ran uncontained, their closes took the whole grace period and more,
/// and every later start failed (`Broken pipe`) or hung.
#[test]
fn a_program_that_kills_or_stops_the_supervisor_ends_its_sessions_and_another_starts() {
    let engine = engine();
    let marker = marker();
    let bystander = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let killer = engine
        .spawn(SpawnSpec::shell(format!(
            "setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & sleep {marker} & \
             kill -9 $PPID; wait"
        )))
        .unwrap();
    // Its `setsid` sleeper is found by its cgroup only: the supervisor that adopted it is gone.
    // (An engine whose look for the hierarchy collided with another's went without.)
    let containment = killer.info().unwrap().containment;
    if cgroup_parent().is_some() {
        assert!(containment.starts_with("cgroup "), "{containment}");
    }
    for session in [&killer, &bystander] {
        let outcome = session.wait(Until::exit(), LONG).unwrap();
        assert!(matches!(outcome.fired, Fired::Closed), "{outcome}");
        let info = session.info().unwrap();
        let reason = info.closed_reason.unwrap_or_default();
        assert!(reason.contains("supervisor was killed or stopped"), "{reason}");
    }
    eventually("the killer's sleepers are gone", || sleepers(&marker).is_empty());
    // Another supervisor starts the next session, which works as any other.
    let next = engine.spawn(SpawnSpec::shell("echo fine; read x")).unwrap();
    expect(&next, Until::text("fine"));
    // Stopped: it is resumed to start the next program, and to report an exit on a close.
    let stopper = engine.spawn(SpawnSpec::shell("kill -STOP $PPID; echo stopped; read x")).unwrap();
    expect(&stopper, Until::text("stopped"));
    let after = engine.spawn(SpawnSpec::shell("echo again; read x")).unwrap();
    expect(&after, Until::text("again"));
    let stopped = engine.spawn(SpawnSpec::shell("kill -STOP $PPID; echo stopped again; read x"));
    let stopped = stopped.unwrap();
    expect(&stopped, Until::text("stopped again"));
    let started = Instant::now();
    assert!(matches!(stopped.close(), Ok(termloom::ExitStatus::Signal(1))));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    // A program that stops it and exits has its exit reported (the hang-up resumes it),
    // and the engine's end does not wait for a stopped supervisor.
    let quitter = engine.spawn(SpawnSpec::shell("kill -STOP $PPID; exit 4")).unwrap();
    let outcome = quitter.wait(Until::exit(), LONG).unwrap();
    assert!(
        matches!(outcome.fired, Fired::Exited { status: termloom::ExitStatus::Code(4) }),
        "{outcome}"
    );
    // One that stops it again and again (and ignores the close's gentle signals) is closed
    // after the grace period, not that and the wait for a killed program's report too (8 s).
    let stubborn = "trap '' HUP TERM; echo looping; while :; do kill -STOP $PPID; done";
    let stubborn = engine.spawn(SpawnSpec::shell(stubborn)).unwrap();
    expect(&stubborn, Until::text("looping"));
    let started = Instant::now();
    stubborn.close().unwrap();
    assert!(started.elapsed() < Duration::from_secs(6), "{:?}", started.elapsed());
    let last = engine.spawn(SpawnSpec::shell("kill -STOP $PPID; echo stopped; read x")).unwrap();
    expect(&last, Until::text("stopped"));
    drop(last);
    let started = Instant::now();
    drop(engine);
    // (Without the resumption it would wait 5 s and kill it.)
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

/// Live processes whose command line begins with `name`.
fn processes_named(name: &str) -> usize {
    let wanted = format!("{name}\0");
    live_processes(|cmdline| cmdline.starts_with(wanted.as_bytes())).len()
}

/// A fork bomb (held to 40 processes by its user's process limit, so the machine survives
/// it) ends with its session: when `close` returns, not one of its processes is left, with a
/// cgroup (killed as one) and without (found by session and by descent and killed, while
/// they go on forking).
#[test]
fn a_fork_bomb_ends_with_its_session() {
    if !require("bash") {
        return;
    }
    if !require_root("the bomb must run as another user for its process limit to hold it") {
        return;
    }
    for cgroups in [true, false] {
        let engine =
            termloom::Engine::new(termloom::Config { cgroups, ..termloom::Config::default() })
                .unwrap();
        let name = format!("bomb-{}", marker());
        // Every process of the bomb is a bash with this command line, forking two more.
        let bomb = format!("exec -a {name} bash -c 'b() {{ b & b & wait; }}; echo armed; b'");
        let session = engine
            .spawn(
                SpawnSpec::new("bash")
                    .args(["--norc", "--noprofile", "-c", &bomb])
                    .user("nobody")
                    .cwd("/")
                    .rlimit(termloom::Limit::Processes(40)),
            )
            .unwrap();
        expect(&session, Until::text("armed"));
        eventually("the bomb fills its process limit", || processes_named(&name) >= 30);
        let started = Instant::now();
        session.close().unwrap();
        let took = started.elapsed();
        assert_eq!(processes_named(&name), 0, "cgroups {cgroups}: left behind after close");
        assert!(took < Duration::from_secs(10), "cgroups {cgroups}: close took {took:?}");
        eprintln!("cgroups {cgroups}: closed in {took:?}");
    }
}

/// Without cgroups, a process that left its POSIX session (`setsid`, a double fork) is linked
/// to its session only by the supervisor, its subreaper: a program that kills the supervisor
/// with SIGKILL must not set such processes free. The supervisor runs below a guardian, a
/// subreaper too, that adopts them when the supervisor dies and kills them.
#[test]
fn without_cgroups_processes_that_left_their_session_die_with_a_killed_supervisor() {
    let engine =
        termloom::Engine::new(termloom::Config { cgroups: false, ..termloom::Config::default() })
            .unwrap();
    let marker = marker();
    let killer = engine
        .spawn(SpawnSpec::shell(format!(
            "setsid sleep {marker} & (setsid sleep {marker} &); echo started; read x; \
             kill -9 $PPID; wait"
        )))
        .unwrap();
    assert!(!killer.info().unwrap().containment.starts_with("cgroup"));
    expect(&killer, Until::text("started"));
    // One is the shell's child, the other (its parent gone) the supervisor's.
    eventually("both sleepers run", || sleepers(&marker).len() == 2);
    killer.send_text("\n").unwrap();
    let outcome = killer.wait(Until::exit(), LONG).unwrap();
    assert!(matches!(outcome.fired, Fired::Closed | Fired::Exited { .. }), "{outcome}");
    eventually("the sleepers that left the session are gone", || sleepers(&marker).is_empty());
    // The next session gets a new supervisor, and one that kills its guardian ends everything
    // the supervisor holds, as at the engine's end.
    let marker = self::marker();
    let killer = engine
        .spawn(SpawnSpec::shell(format!(
            "setsid sleep {marker} & echo started; read x; \
             kill -9 $(cut -d ' ' -f 4 /proc/$PPID/stat); wait"
        )))
        .unwrap();
    expect(&killer, Until::text("started"));
    eventually("the sleeper runs", || sleepers(&marker).len() == 1);
    killer.send_text("\n").unwrap();
    let outcome = killer.wait(Until::exit(), LONG).unwrap();
    assert!(matches!(outcome.fired, Fired::Closed | Fired::Exited { .. }), "{outcome}");
    eventually("the sleeper is gone", || sleepers(&marker).is_empty());
    let next = engine.spawn(SpawnSpec::shell("echo fine; read x")).unwrap();
    expect(&next, Until::text("fine"));
}

/// A process that moves itself out of its session's cgroup (as root it may write another
/// cgroup's `cgroup.procs`) but stays in the session's POSIX session, in a process group of
/// its own and ignoring SIGHUP and SIGTERM, still ends with the close. The close looked for
/// a cgroup session's processes in its cgroup alone: it returned at once (in 0.6 to 4 ms) with the
/// process running.
#[test]
fn a_process_that_leaves_the_cgroup_but_not_the_session_ends_with_the_close() {
    if !require("bash") || !require_root("only root may move a process to any cgroup") {
        return;
    }
    let Some(parent) = cgroup_parent() else {
        eprintln!("skipped: no cgroup2 hierarchy at /sys/fs/cgroup");
        return;
    };
    let config =
        termloom::Config { close_grace: Duration::from_millis(500), ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let marker = marker();
    // `set -m`: the background job gets a process group of its own.
    let script = format!(
        "set -m; (trap '' HUP TERM; echo $BASHPID >\"$PARENT/cgroup.procs\"; exec sleep {marker}) & \
         echo started; wait"
    );
    let session = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile", "-c", &script])
                .env("PARENT", parent.as_os_str()),
        )
        .unwrap();
    expect(&session, Until::text("started"));
    eventually("the sleeper runs", || sleepers(&marker).len() == 1);
    let sleeper = sleepers(&marker)[0];
    let own = std::fs::read_to_string(format!("/proc/{sleeper}/cgroup")).unwrap_or_default();
    if !session.info().unwrap().containment.starts_with("cgroup ") || own.contains("termloom-") {
        eprintln!("skipped: the session has no cgroup, or its process could not leave it");
        let _ = session.close();
        return;
    }
    let stat = std::fs::read_to_string(format!("/proc/{sleeper}/stat")).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    assert_eq!(fields[3], session.pid().to_string(), "the sleeper is in the session");
    assert_ne!(fields[2], session.pid().to_string(), "the sleeper has a group of its own");
    let started = Instant::now();
    session.close().unwrap();
    let took = started.elapsed();
    let left = sleepers(&marker);
    for pid in &left {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(*pid).unwrap(),
            rustix::process::Signal::KILL,
        );
    }
    assert!(left.is_empty(), "left behind after the close ({took:?}): {left:?}");
}

/// A process of the POSIX session outside its cgroup, found only once the program is reaped,
/// is sent every signal the close had sent by then: here SIGTERM, which it traps to end. It
/// was sent SIGHUP alone, and ran until the grace's SIGKILL (3.03 s), its trap never run.
#[test]
fn a_process_found_outside_the_cgroup_after_sigterm_gets_sigterm() {
    if !require("bash") || !require_root("only root may move a process to any cgroup") {
        return;
    }
    let Some(parent) = cgroup_parent() else {
        eprintln!("skipped: no cgroup2 hierarchy at /sys/fs/cgroup");
        return;
    };
    let grace = Duration::from_secs(5);
    let config = termloom::Config { close_grace: grace, ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let marker = marker();
    let dir = std::env::temp_dir().join(format!("termloom-leaks-term-{marker}"));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out");
    // The program ignores SIGHUP and ends at SIGTERM; its job (a process group of its own)
    // leaves the cgroup, ignores SIGHUP and writes `termed` at SIGTERM.
    let script = format!(
        "set -m; trap '' HUP; (trap '' HUP; trap 'echo termed >\"$OUT\"; exit' TERM; \
         echo $BASHPID >\"$PARENT/cgroup.procs\"; sleep {marker} & wait) & \
         echo started; wait"
    );
    let session = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile", "-c", &script])
                .env("PARENT", parent.as_os_str())
                .env("OUT", out.as_os_str()),
        )
        .unwrap();
    expect(&session, Until::text("started"));
    eventually("the sleeper runs", || sleepers(&marker).len() == 1);
    let sleeper = sleepers(&marker)[0];
    let own = std::fs::read_to_string(format!("/proc/{sleeper}/cgroup")).unwrap_or_default();
    if !session.info().unwrap().containment.starts_with("cgroup ") || own.contains("termloom-") {
        eprintln!("skipped: the session has no cgroup, or its process could not leave it");
        let _ = session.close();
        return;
    }
    let started = Instant::now();
    session.close().unwrap();
    let took = started.elapsed();
    let left = sleepers(&marker);
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(left.is_empty(), "left behind after the close ({took:?}): {left:?}");
    assert_eq!(written, "termed\n", "the trap of SIGTERM did not run (close took {took:?})");
    assert!(took < grace, "the close waited out its grace: {took:?}");
}

/// A program that moves itself out of its session's cgroup (root may) and ignores SIGHUP and
/// SIGTERM, with a job in a process group of its own, is looked for outside the cgroup as
/// soon as the cgroup is empty, not once it is reaped: the job is sent the close's SIGHUP
/// at once, it ends, and the program waiting for it ends too. Nothing outside the cgroup was
/// looked for while the program lived: the job got no signal until the grace's SIGKILL (20 s
/// here).
#[test]
fn a_program_that_left_its_cgroup_has_its_jobs_hung_up_at_the_close() {
    if !require("bash") || !require_root("only root may move a process to any cgroup") {
        return;
    }
    let Some(parent) = cgroup_parent() else {
        eprintln!("skipped: no cgroup2 hierarchy at /sys/fs/cgroup");
        return;
    };
    let grace = Duration::from_secs(20);
    let config = termloom::Config { close_grace: grace, ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let marker = marker();
    // `set -m`: the job gets a process group of its own; its subshell takes back the default
    // SIGHUP and SIGTERM the program ignores.
    let script = format!(
        "set -m; trap '' HUP TERM; echo $$ >\"$PARENT/cgroup.procs\"; \
         (trap - HUP TERM; exec sleep {marker}) & echo started; wait"
    );
    let session = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile", "-c", &script])
                .env("PARENT", parent.as_os_str()),
        )
        .unwrap();
    expect(&session, Until::text("started"));
    eventually("the job runs", || sleepers(&marker).len() == 1);
    let own = std::fs::read_to_string(format!("/proc/{}/cgroup", session.pid()));
    if !session.info().unwrap().containment.starts_with("cgroup ")
        || own.unwrap_or_default().contains("termloom-")
    {
        eprintln!("skipped: the session has no cgroup, or its program could not leave it");
        let _ = session.close();
        return;
    }
    let started = Instant::now();
    session.close().unwrap();
    let took = started.elapsed();
    let left = sleepers(&marker);
    assert!(left.is_empty(), "left behind after the close ({took:?}): {left:?}");
    assert!(took < grace / 2, "the job was not hung up: the close took {took:?}");
}

/// Set in the environment of a test binary run again by a test in a PID namespace of its
/// own (see [`a_close_leaves_alone_a_session_that_took_its_programs_pid`]).
const IN_OWN_PID_NAMESPACE: &str = "TERMLOOM_TEST_IN_OWN_PID_NAMESPACE";

/// A cgroup session's close looks for its POSIX session outside the cgroup by the session's
/// id, its program's pid: once the program is reaped, the number may be given to another
/// process, which may lead a session of its own. That session is not the closed one's, and
/// is left alone: it was sent SIGHUP, SIGTERM and SIGKILL, and the close waited for it.
///
/// The pid is taken by rewinding the next pid (`ns_last_pid`), which makes every number freed
/// reusable at once for every process of the PID namespace: the test runs again in a PID and
/// mount namespace of its own, lest it disturb the tests beside it (it ran in the machine's).
#[test]
fn a_close_leaves_alone_a_session_that_took_its_programs_pid() {
    if std::env::var_os(IN_OWN_PID_NAMESPACE).is_some() {
        return take_the_programs_pid_then_close();
    }
    if !require("sh")
        || !require_root("only root may choose the next pid (ns_last_pid)")
        || !pid_namespaces()
    {
        return;
    }
    let name = "a_close_leaves_alone_a_session_that_took_its_programs_pid";
    let inner = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(IN_OWN_PID_NAMESPACE, "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (out, err) =
        (String::from_utf8_lossy(&inner.stdout), String::from_utf8_lossy(&inner.stderr));
    eprint!("{err}");
    assert!(inner.status.success(), "in a PID namespace of its own:\n{out}\n{err}");
    assert!(out.contains("1 passed"), "the test did not run in its namespace:\n{out}");
}

/// [`a_close_leaves_alone_a_session_that_took_its_programs_pid`], in its PID namespace.
fn take_the_programs_pid_then_close() {
    use std::os::unix::process::CommandExt;
    let config =
        termloom::Config { close_grace: Duration::from_secs(3), ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let marker = marker();
    // Its program ends at once, leaving in its cgroup (out of its session) a process that
    // ignores SIGHUP and SIGTERM: the close's scan waits for the grace's SIGKILL.
    let session = engine
        .spawn(SpawnSpec::shell(format!(
            "setsid sh -c \"trap '' HUP TERM; exec sleep {marker}\" & echo started; read x"
        )))
        .unwrap();
    if !session.info().unwrap().containment.starts_with("cgroup ") {
        eprintln!("skipped: the session has no cgroup");
        return;
    }
    let pid = session.pid() as i32;
    expect(&session, Until::text("started"));
    eventually("the sleeper runs", || sleepers(&marker).len() == 1);
    session.send_text("\n").unwrap();
    expect(&session, Until::exit());
    // The exit's report and the close's hangup are one turn of the reactor: a request
    // answered after it is answered after the hangup (else the process below could take
    // the pid before the hangup went to the group of that number, its program's).
    session.info().unwrap();
    // Another process gets the program's pid and leads a session of its own.
    let mut taker = None;
    for _ in 0..100 {
        if std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).is_err() {
            break;
        }
        let mut command = Command::new("sleep");
        command.arg(format!("{marker}1")).stdin(Stdio::null());
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            command.pre_exec(|| rustix::process::setsid().map(drop).map_err(Into::into));
        }
        let mut child = command.spawn().unwrap();
        if child.id() as i32 == pid {
            taker = Some(child);
            break;
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    let Some(mut taker) = taker else {
        eprintln!("skipped: the program's pid could not be taken (ns_last_pid)");
        let _ = session.close();
        return;
    };
    let started = Instant::now();
    session.close().unwrap();
    let took = started.elapsed();
    let status = taker.try_wait().unwrap();
    let alive = status.is_none();
    eprintln!("pid {pid} taken; close took {took:?}; taker: {status:?}");
    let _ = taker.kill();
    let _ = taker.wait();
    assert!(sleepers(&marker).is_empty(), "left behind in the cgroup");
    assert!(alive, "the session that took the pid was ended by the close ({took:?})");
}
