//! The session manager: limits, reaping, tombstones, configuration, environment, isolation,
//! and the no-survivor gauntlet.

mod common;

use std::time::Duration;

use common::*;
use termloom::{
    Config, Engine, Error, ExitStatus, Fired, SessionState, SpawnSpec, Until, shell_program,
};

/// Pids of live (non-zombie) processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let zombie = stat.rfind(')').is_some_and(|i| stat[i + 2..].starts_with('Z'));
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !zombie && cmdline.contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// Starts the gauntlet of survivors in a bash session: a shell ignoring TERM and HUP, a
/// background job, a `nohup` child, a stopped job, a child in another process group, and one
/// that left the POSIX session with `setsid`. Each sleeps for a distinctive time.
fn start_gauntlet(sh: &termloom::Session, base: u32) -> Vec<String> {
    let markers: Vec<String> = (0..5).map(|i| format!("{}", base + i)).collect();
    // Ready once every background child has become its `sleep` (a child forked by `&` may
    // not have yet when the next command runs).
    sh.submit(&format!(
        "trap '' TERM HUP; sleep {} & nohup sleep {} >/dev/null 2>&1 & (trap '' TERM HUP INT; exec sleep {}) & setsid sleep {} & set -m; sleep {} & for m in {}; do until pgrep -f \"^sleep $m\\$\" >/dev/null; do :; done; done; echo gauntlet-ready",
        markers[0], markers[1], markers[2], markers[3], markers[4], markers.join(" ")
    ))
    .unwrap();
    expect(sh, Until::regex("^gauntlet-ready$").unwrap());
    // The job says when it runs in the foreground, so Ctrl-Z reaches it and not bash.
    sh.submit(&format!("sh -c 'echo in-foreground; exec sleep {}'", base + 5)).unwrap();
    expect(sh, Until::regex("^in-foreground$").unwrap());
    sh.send_text("\x1a").unwrap();
    expect(sh, Until::text("Stopped"));
    let mut all = markers;
    all.push(format!("{}", base + 5));
    for marker in &all {
        assert_eq!(processes_with(&format!("sleep {marker}")).len(), 1, "{marker} runs");
    }
    all
}

fn assert_no_survivors(markers: &[String]) {
    for marker in markers {
        let left = processes_with(&format!("sleep {marker}"));
        assert!(left.is_empty(), "sleep {marker} survived: {left:?}");
    }
}

fn quick_close() -> Config {
    Config { close_grace: Duration::from_millis(300), ..Config::default() }
}

#[test]
fn close_leaves_no_survivor_even_setsid_escapees() {
    if !require("bash") {
        return;
    }
    let engine = Engine::new(quick_close()).unwrap();
    let sh = bash(&engine);
    let info = sh.info().unwrap();
    assert!(info.containment.starts_with("cgroup "), "tests run as root with cgroup v2: {info:?}");
    let markers = start_gauntlet(&sh, 910_100);
    sh.close().unwrap();
    assert_no_survivors(&markers);
}

#[test]
fn dropping_the_engine_leaves_no_survivor() {
    if !require("bash") {
        return;
    }
    let engine = Engine::new(quick_close()).unwrap();
    let sh = bash(&engine);
    let markers = start_gauntlet(&sh, 920_100);
    drop(engine);
    assert_no_survivors(&markers);
}

#[test]
fn a_program_that_exits_leaves_nothing_behind_either() {
    if !require(&shell_program()) {
        return;
    }
    let engine = Engine::new(quick_close()).unwrap();
    let s = engine
        .spawn(SpawnSpec::shell(
            "setsid sleep 930101 & nohup sleep 930102 >/dev/null 2>&1 & exit 4",
        ))
        .unwrap();
    let outcome = expect(&s, Until::exit());
    assert_eq!(outcome.fired, Fired::Exited { status: ExitStatus::Code(4) });
    // The tombstone is finished once what the program left behind is gone.
    assert_eq!(s.close().unwrap(), ExitStatus::Code(4));
    assert_no_survivors(&["930101".into(), "930102".into()]);
}

#[test]
fn posix_session_fallback_without_cgroups() {
    if !require("bash") {
        return;
    }
    let engine = Engine::new(Config { cgroups: false, ..quick_close() }).unwrap();
    let sh = bash(&engine);
    assert!(sh.info().unwrap().containment.starts_with("POSIX session"));
    sh.submit("sleep 940101 & trap '' TERM HUP; echo ok").unwrap();
    expect(&sh, Until::regex("^ok$").unwrap());
    sh.close().unwrap();
    assert_no_survivors(&["940101".into()]);
}

#[test]
fn session_limit_and_unique_ids() {
    let engine = Engine::new(Config { max_sessions: 2, ..Config::default() }).unwrap();
    let a = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let b = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let err = engine.spawn(SpawnSpec::new("cat")).unwrap_err();
    assert!(matches!(err, Error::TooManySessions { limit: 2 }), "{err}");
    assert!(err.to_string().contains("max_sessions"));
    a.close().unwrap();
    let c = engine.spawn(SpawnSpec::new("cat")).unwrap();
    assert!(c.id() > b.id() && b.id() > a.id(), "ids are never reused");
    let list = engine.list().unwrap();
    assert_eq!(list.len(), 3, "two live sessions and a tombstone");
    let live: Vec<_> = list.iter().filter(|i| i.state == SessionState::Running).collect();
    assert_eq!(live.len(), 2);
    assert!(live.iter().all(|i| i.program == "cat" && i.cols == 120 && i.rows == 32));
}

#[test]
fn idle_sessions_are_reaped_and_tombstones_read() {
    if !require(&shell_program()) {
        return;
    }
    let engine = Engine::new(Config {
        idle_timeout: Some(Duration::from_secs(1)),
        reaper_interval: Duration::from_millis(100),
        ..quick_close()
    })
    .unwrap();
    let s = engine.spawn(SpawnSpec::shell("echo hello from the past; exec sleep 1000")).unwrap();
    expect(&s, Until::text("hello from the past"));
    let outcome = s.wait(Until::exit(), LONG).unwrap();
    assert_eq!(outcome.fired, Fired::Closed);
    assert!(outcome.elapsed < Duration::from_secs(5), "{outcome}");
    let info = s.info().unwrap();
    assert!(info.closed_reason.as_deref().unwrap_or("").contains("idle_timeout"), "{info:?}");
    // Reading the tombstone drains what was not read, then reports closed with the status.
    let out = s.read().unwrap();
    assert!(out.text.contains("hello from the past"), "{out:?}");
    assert_eq!(out.status.activity, termloom::Activity::Closed(ExitStatus::Signal(1)));
    assert_eq!(s.read().unwrap().text, "");
}

#[test]
fn lifetime_limit_and_tombstone_bound() {
    let engine = Engine::new(Config {
        max_lifetime: Some(Duration::from_secs(1)),
        reaper_interval: Duration::from_millis(100),
        max_closed_sessions: 2,
        ..quick_close()
    })
    .unwrap();
    let sessions: Vec<_> = (0..3).map(|_| engine.spawn(SpawnSpec::new("cat")).unwrap()).collect();
    for s in &sessions {
        let outcome = s.wait(Until::exit(), LONG);
        assert!(matches!(outcome, Ok(_) | Err(Error::SessionForgotten { .. })));
    }
    let tombstones = engine.list().unwrap();
    assert_eq!(tombstones.len(), 2, "only max_closed_sessions tombstones are kept");
    assert!(
        tombstones.iter().all(|t| t.closed_reason.as_deref().unwrap().contains("max_lifetime"))
    );
    let oldest = sessions.iter().find(|s| tombstones.iter().all(|t| t.id != s.id())).unwrap();
    let forgotten = oldest.read().unwrap_err();
    assert!(
        matches!(forgotten, Error::SessionForgotten { session, kept: 2 } if session == oldest.id()),
        "{forgotten}"
    );
    assert!(forgotten.to_string().contains("max_closed_sessions"), "{forgotten}");
    let never = engine.session(termloom::SessionId(1000)).and_then(|s| s.read()).unwrap_err();
    assert!(matches!(never, Error::UnknownSession(_)), "{never}");
}

#[test]
fn invalid_configurations_are_refused_with_the_field_named() {
    let cases: Vec<(Config, &str)> = vec![
        (Config { cols: 1, ..Config::default() }, "cols"),
        (Config { rows: 0, ..Config::default() }, "rows"),
        (Config { scrollback_lines: 0, ..Config::default() }, "scrollback_lines"),
        (Config { scrollback_bytes: 10, ..Config::default() }, "scrollback_bytes"),
        (Config { max_read_bytes: 3, ..Config::default() }, "max_read_bytes"),
        (Config { max_read_bytes: 5 << 20, ..Config::default() }, "max_read_bytes"),
        (Config { write_queue_bytes: 1, ..Config::default() }, "write_queue_bytes"),
        (Config { max_sessions: 0, ..Config::default() }, "max_sessions"),
        (Config { close_grace: Duration::from_secs(3600), ..Config::default() }, "close_grace"),
        (Config { quiet: Duration::ZERO, ..Config::default() }, "quiet"),
        (
            Config { idle_timeout: Some(Duration::from_millis(5)), ..Config::default() },
            "idle_timeout",
        ),
        (
            Config {
                idle_timeout: Some(Duration::from_secs(2)),
                reaper_interval: Duration::from_secs(2),
                ..Config::default()
            },
            "reaper_interval",
        ),
        (Config { base_dir: Some("relative".into()), ..Config::default() }, "base_dir"),
    ];
    for (config, field) in cases {
        let err = Engine::new(config).expect_err("refused");
        assert!(matches!(err, Error::InvalidConfig { .. }), "{err}");
        assert!(err.to_string().contains(field), "{field}: {err}");
        assert!(err.to_string().contains("range") || err.to_string().contains("must"), "{err}");
    }
}

#[test]
fn credentials_stay_out_of_the_child_environment() {
    // SAFETY: integration tests in this file do not read these variables concurrently.
    unsafe {
        std::env::set_var("FAKE_GITHUB_TOKEN", "ghp_fake");
        std::env::set_var("FAKE_SERVICE_API_KEY", "sk_fake");
        std::env::set_var("MY_DEPLOY_PAT", "pat_fake");
        std::env::set_var("TERMLOOM_SECRETISH", "x");
    }
    let engine =
        Engine::new(Config { env_allow: vec!["MY_DEPLOY_PAT".into()], ..Config::default() })
            .unwrap();
    let s = engine.spawn(SpawnSpec::new("env").env("EXPLICIT_TOKEN", "given")).unwrap();
    expect(&s, Until::exit());
    let text = s.scrollback(1 << 20).unwrap().text;
    assert!(
        !text.contains("ghp_fake") && !text.contains("sk_fake") && !text.contains("TERMLOOM_"),
        "{text}"
    );
    assert!(text.contains("MY_DEPLOY_PAT=pat_fake"), "allowed explicitly");
    assert!(text.contains("EXPLICIT_TOKEN=given"), "explicit entries win");
    assert!(text.contains("TERM=xterm-256color") && text.contains("COLORTERM=truecolor"));
}

#[test]
fn relative_cwd_uses_the_base_dir_and_missing_dirs_fail_at_spawn() {
    sweep_left_overs();
    let base = std::env::temp_dir().join(format!("termloom-base-{}", std::process::id()));
    std::fs::create_dir_all(base.join("sub")).unwrap();
    let engine = Engine::new(Config { base_dir: Some(base.clone()), ..Config::default() }).unwrap();
    let s = engine.spawn(SpawnSpec::new("pwd").cwd("sub")).unwrap();
    expect(&s, Until::exit());
    assert!(s.read().unwrap().text.contains(&format!("{}", base.join("sub").display())));
    let err = engine.spawn(SpawnSpec::new("pwd").cwd("missing")).unwrap_err();
    assert!(matches!(err, Error::Spawn { .. }) && err.to_string().contains("missing"), "{err}");
}

#[test]
fn a_session_run_as_nobody_cannot_sudo() {
    if !require(&shell_program()) {
        return;
    }
    if !require_root("switching to another user needs root") {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(
            SpawnSpec::shell("id -u; id -G; sudo -n id -u; echo sudo-exit=$?; ulimit -n")
                .user("nobody")
                .no_new_privs(true)
                .rlimit(termloom::Limit::OpenFiles(64))
                .cwd("/"),
        )
        .unwrap();
    expect(&s, Until::exit());
    let text = s.scrollback(1 << 20).unwrap().text;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "65534", "{text}");
    assert_eq!(lines[1], "65534", "supplementary groups dropped: {text}");
    assert!(!lines.contains(&"0"), "sudo must not reach root: {text}");
    assert!(text.lines().any(|l| l.starts_with("sudo-exit=") && l != "sudo-exit=0"), "{text}");
    assert_eq!(lines.last(), Some(&"64"), "{text}");
    if std::path::Path::new("/usr/bin/sudo").exists() {
        assert!(text.contains("no new privileges"), "sudo is stopped by no_new_privs: {text}");
    }
    let err = engine.spawn(SpawnSpec::new("true").user("no-such-user-xyz")).unwrap_err();
    assert!(err.to_string().contains("no-such-user-xyz"), "{err}");
}

#[test]
fn without_tombstones_an_ended_session_is_forgotten() {
    if !require(&shell_program()) {
        return;
    }
    let engine = Engine::new(Config { max_closed_sessions: 0, ..Config::default() }).unwrap();
    for _ in 0..5 {
        let s = engine.spawn(SpawnSpec::shell("echo bye")).unwrap();
        let outcome = s.wait(Until::exit(), LONG).unwrap();
        assert!(matches!(outcome.fired, Fired::Exited { .. } | Fired::Closed), "{outcome}");
        // The exit is reported before the close's last look for processes left behind (a
        // scan off the reactor's thread) ends it: a close returns once it has ended, or
        // refuses a session already forgotten.
        let _ = s.close();
    }
    // The reactor is still serving, and remembers none of them.
    assert!(engine.list().unwrap().is_empty());
    let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
    s.close().unwrap();
}

/// With a request queue of one, callers on many threads wait their turn for room (they do
/// not fail, and none of their requests is lost), and each is answered.
#[test]
fn callers_wait_for_room_in_a_full_request_queue() {
    let engine = Engine::new(Config { request_queue: 1, ..Config::default() }).unwrap();
    let cat = engine
        .spawn(SpawnSpec::new("sh").args(["-c", "stty -echo; echo ready; exec cat"]))
        .unwrap();
    expect(&cat, Until::input_wait());
    let callers: Vec<_> = (0..8)
        .map(|caller| {
            let cat = cat.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    cat.send_text(&format!("c{caller}i{i}\n")).unwrap();
                    let status = cat.status().unwrap();
                    assert_eq!(status.foreground.map(|p| p.name).as_deref(), Some("cat"));
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
    // Every line reached the program, which prints each once (the terminal echoes none).
    for caller in 0..8 {
        expect(&cat, Until::text(format!("c{caller}i199")));
    }
    let text = cat.scrollback(1 << 20).unwrap().text;
    for caller in 0..8 {
        for i in 0..200 {
            let line = format!("c{caller}i{i}");
            assert_eq!(text.lines().filter(|l| *l == line).count(), 1, "{line}");
        }
    }
    cat.close().unwrap();
}
