//! Closing sessions leaves no process behind.

mod common;

use std::time::{Duration, Instant};

use common::*;
use termloom::{Activity, Config, Engine, Error, ExitStatus, SpawnSpec, Until, shell_program};

/// Processes whose POSIX session is `sid` and that are not zombies, but for a zombie with
/// threads left (its first thread ended alone, its others run: `/proc/PID/stat` tells the
/// first thread's state, and counts it among the threads until the last one ends).
fn survivors(sid: i32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        let threads_left = fields.get(17).and_then(|n| n.parse::<u32>().ok()) > Some(1);
        if fields[3].parse::<i32>() == Ok(sid) && (fields[0] != "Z" || threads_left) {
            found.push(format!("{pid} {}", &stat[..close + 1]));
        }
    }
    found
}

#[test]
fn close_ends_a_stubborn_shell_with_background_and_stopped_jobs() {
    if !require("bash") {
        return;
    }
    let engine =
        Engine::new(Config { close_grace: Duration::from_millis(500), ..Config::default() })
            .unwrap();
    let sh = bash(&engine);
    sh.submit("trap '' TERM HUP; sleep 1000 & (trap '' TERM HUP; sleep 1001) & nohup sleep 1002 >/dev/null 2>&1 & echo started").unwrap();
    expect(&sh, Until::text("started"));
    // The job says when it runs in the foreground, so Ctrl-Z reaches it and not bash.
    sh.submit("sh -c 'echo in-foreground; exec sleep 1003'").unwrap();
    expect(&sh, Until::regex("^in-foreground$").unwrap());
    sh.send_text("\x1a").unwrap(); // Ctrl-Z: a stopped job
    expect(&sh, Until::text("Stopped"));
    let sid = sh.pid();
    assert!(survivors(sid).len() >= 5, "{:?}", survivors(sid));
    let started = Instant::now();
    let status = sh.close().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(status, ExitStatus::Signal(9), "the shell ignores TERM and HUP");
    assert_eq!(survivors(sid), Vec::<String>::new());
    // Closing again returns the same status; input is refused.
    assert_eq!(sh.close().unwrap(), status);
    assert!(matches!(sh.send_text("x"), Err(Error::SessionClosed(_))));
    // The tombstone still reads.
    assert!(sh.scrollback(1 << 20).unwrap().text.contains("started"));
}

/// A process that ignores every signal a close sends before SIGKILL, reading the terminal
/// after the program that started it is gone (passwd at its prompt, run by adduser, which
/// `close` waited out for the grace's 3 s and killed): the terminal is hung up once the
/// program is reaped, as a closing window hangs up its terminal, and the read's end ends it.
#[test]
fn close_hangs_up_the_terminal_for_a_reader_that_ignores_its_signals() {
    if !require("bash") {
        return;
    }
    let engine =
        Engine::new(Config { close_grace: Duration::from_secs(20), ..Config::default() }).unwrap();
    let inner = "trap '' HUP INT QUIT TERM; read -r x; echo read-ended";
    let outer = format!("bash -c \"{inner}\"; echo after");
    let s = engine.spawn(SpawnSpec::new("bash").arg("-c").arg(outer)).unwrap();
    expect(&s, Until::input_wait());
    let sid = s.pid();
    assert_eq!(survivors(sid).len(), 2, "{:?}", survivors(sid));
    let started = Instant::now();
    let status = s.close().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(status, ExitStatus::Signal(1), "the outer shell takes the SIGHUP");
    assert_eq!(survivors(sid), Vec::<String>::new());
}

/// A job whose first thread ended alone (`SYS_exit`, C's `pthread_exit` in `main`), its
/// worker ignoring the close's SIGHUP, SIGTERM and SIGINT, is killed when the grace ends, as
/// any process that ignores them is. `/proc/PID/stat` says such a process is a zombie (the
/// first thread's state): the close took it as gone, and returned at once (6 ms, bash's
/// SIGHUP) with the worker left running.
#[test]
fn close_kills_a_job_whose_first_thread_exited_and_that_ignores_its_signals() {
    let dir = TestDir::new("close-zombie-leader");
    let ignore = "import signal\n\
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT): signal.signal(s, signal.SIG_IGN)";
    let worker = "import time\nos.write(1, b'work' b'er-up\\n')\nwhile True: time.sleep(1)";
    let Some(program) = first_thread_exits(&dir, ignore, worker) else { return };
    let grace = Duration::from_millis(500);
    let engine = Engine::new(Config { close_grace: grace, ..Config::default() }).unwrap();
    let sh = bash(&engine);
    sh.submit(&format!("python3 '{}'", program.display())).unwrap();
    expect(&sh, Until::text("worker-up"));
    let sid = sh.pid();
    assert_eq!(survivors(sid).len(), 2, "bash and the job: {:?}", survivors(sid));
    let started = Instant::now();
    sh.close().unwrap();
    assert!(started.elapsed() >= grace, "{:?}: the job was not waited for", started.elapsed());
    assert_eq!(survivors(sid), Vec::<String>::new());
}

/// What a process the program left prints while the close waits for it is kept: the terminal
/// is hung up only for one blocked reading it (see above), not for a job that ignores the
/// close's signals and goes on printing, nor for a cleanup that prints as it ends.
#[test]
fn close_keeps_what_processes_left_behind_print_in_their_grace() {
    if !require("bash") {
        return;
    }
    let engine =
        Engine::new(Config { close_grace: Duration::from_secs(20), ..Config::default() }).unwrap();
    let job = "(trap '' HUP INT TERM; for i in 1 2 3; do echo tick $i; sleep 0.3; done; \
               echo survivor-done) & sleep 0.1; echo leader-exits";
    let s = engine.spawn(SpawnSpec::new("bash").arg("-c").arg(job)).unwrap();
    expect(&s, Until::text("leader-exits"));
    s.close().unwrap();
    let text = s.scrollback(1 << 20).unwrap().text;
    assert!(text.contains("tick 3") && text.contains("survivor-done"), "{text}");
}

#[test]
fn close_of_a_cooperative_program_is_quick_and_reports_its_signal() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("sleep").arg("1000")).unwrap();
    let started = Instant::now();
    let status = s.close().unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(status, ExitStatus::Signal(1), "SIGHUP comes first");
    assert!(survivors(s.pid()).is_empty());
    // As `Fired::Closed` says: a wait begun after the close ends so at once, an exit's too.
    for until in [Until::exit(), Until::text("x"), Until::input_wait()] {
        let outcome = s.wait(until, LONG).unwrap();
        assert_eq!(outcome.fired, termloom::Fired::Closed, "{outcome:?}");
    }
}

#[test]
fn dropping_the_engine_closes_every_session() {
    if !require("bash") {
        return;
    }
    let engine =
        Engine::new(Config { close_grace: Duration::from_millis(300), ..Config::default() })
            .unwrap();
    let mut sids = Vec::new();
    for _ in 0..3 {
        let sh = bash(&engine);
        sh.submit("trap '' TERM HUP; sleep 1000 & echo up").unwrap();
        expect(&sh, Until::text("up"));
        sids.push(sh.pid());
    }
    let handle = engine.spawn(SpawnSpec::new("cat")).unwrap();
    drop(engine);
    for sid in sids {
        assert!(survivors(sid).is_empty(), "{:?}", survivors(sid));
    }
    assert!(matches!(handle.read(), Err(Error::EngineStopped)));
}

#[test]
fn exit_status_of_a_program_that_ends_on_its_own() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine.spawn(SpawnSpec::shell("exit 7")).unwrap();
    let outcome = expect(&s, Until::exit());
    assert_eq!(outcome.fired, termloom::Fired::Exited { status: ExitStatus::Code(7) });
    assert!(matches!(s.send_text("x"), Err(Error::SessionExited(_))));
    assert_eq!(s.status().unwrap().activity, Activity::Exited(ExitStatus::Code(7)));
    assert_eq!(s.close().unwrap(), ExitStatus::Code(7));
    // Closed then: its status says so (it said "exited" still), with how the program ended.
    assert_eq!(s.status().unwrap().activity, Activity::Closed(ExitStatus::Code(7)));
}

/// A program of 2000 threads blocked in `pause`, closed 30 times. During its `exit_group`
/// its first thread is briefly a zombie while the others end (`/proc/PID/stat` says `Z` with
/// threads left), after the process has left the session's cgroup: the close, finding the
/// cgroup empty, scanned outside it, found the dying process alive and waited for the next
/// scan, 250 ms later (36 closes of 90 took 270–330 ms, the others 24–99 ms). What was found
/// outside is looked at again on every check now, so the close ends once the process is gone
/// (1 close of 140 over 240 ms on a loaded machine: 2 of 30 are let pass).
#[test]
fn close_of_a_many_threaded_program_does_not_wait_a_rescan_for_its_exit() {
    let dir = TestDir::new("close-many-threads");
    let source = "#include <pthread.h>\n#include <stdio.h>\n#include <unistd.h>\n\
        static void *block(void *arg) { (void)arg; pause(); return 0; }\n\
        int main(void) {\n  for (int i = 0; i < 2000; i++) { pthread_t t; \
        if (pthread_create(&t, 0, block, 0)) return 1; }\n\
        printf(\"threads-up\\n\"); fflush(stdout); pause(); }\n";
    if !build_c(&dir, "threads", source, &["-O0", "-pthread"]) {
        return;
    }
    let program = dir.join("threads");
    let engine = engine();
    let mut took = Vec::new();
    for _ in 0..30 {
        let sh = bash(&engine);
        sh.submit(&format!("'{}'", program.display())).unwrap();
        expect(&sh, Until::text("threads-up"));
        let started = Instant::now();
        sh.close().unwrap();
        took.push(started.elapsed());
        assert!(survivors(sh.pid()).is_empty(), "{:?}", survivors(sh.pid()));
    }
    let slow = took.iter().filter(|t| **t > Duration::from_millis(240)).count();
    assert!(slow <= 2, "{slow} closes of 30 over 240 ms: {took:?}");
}
