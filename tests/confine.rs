//! Landlock confinement as a user sees it: a confined session writes only in its directory,
//! cannot reach a TCP port an unconfined session reaches, runs with `no_new_privs`, and the
//! operator's confinement holds for every session. On a kernel without Landlock these tests
//! say so and skip (also under CI: the machine decides, not the installation).

mod common;

use std::net::TcpListener;

use common::{expect, sweep_left_overs};
use termloom::{Config, Confinement, Engine, SpawnSpec, Until};

/// Whether the kernel enforces Landlock's file and TCP rules; says why not when it does not.
fn landlock_with_tcp() -> bool {
    let engine = common::engine();
    let probe = SpawnSpec::new("true").confine(Confinement::default());
    match engine.spawn(probe) {
        Ok(_) => true,
        Err(err) => {
            eprintln!("skipped: this kernel cannot confine sessions with Landlock: {err}");
            false
        }
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    sweep_left_overs();
    let dir = std::env::temp_dir().join(format!("termloom-confine-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_confined_session_writes_only_in_its_directory_and_reaches_no_tcp_port() {
    if !landlock_with_tcp() {
        return;
    }
    let engine = common::engine();
    let inside = temp_dir("inside");
    let outside = temp_dir("outside");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "touch inside.txt && echo wrote-inside; touch {out}/escaped.txt 2>/dev/null || echo outside-refused; \
         (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo tcp-connected || echo tcp-refused; \
         grep NoNewPrivs /proc/self/status",
        out = outside.display()
    );
    // Unconfined, the same script writes outside and connects.
    let free = engine.spawn(SpawnSpec::new("bash").args(["-c", &script]).cwd(&inside)).unwrap();
    expect(&free, Until::exit());
    let text = free.read().unwrap().text;
    assert!(text.contains("tcp-connected") && !text.contains("outside-refused"), "{text}");
    std::fs::remove_file(outside.join("escaped.txt")).unwrap();
    // Confined: only inside.
    let confined = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["-c", &script])
                .cwd(&inside)
                .confine(Confinement::default()),
        )
        .unwrap();
    expect(&confined, Until::exit());
    let text = confined.read().unwrap().text;
    for line in ["wrote-inside", "outside-refused", "tcp-refused"] {
        assert!(text.lines().any(|l| l.trim() == line), "{line} missing:\n{text}");
    }
    let nnp = text.lines().find(|l| l.starts_with("NoNewPrivs:"));
    assert!(nnp.is_some_and(|l| l.trim_end().ends_with('1')), "{text}");
    assert!(!outside.join("escaped.txt").exists());
    let report = confined.info().unwrap().confinement.expect("the session says it is confined");
    assert!(
        report.contains("no TCP bind or connect") && report.contains(&inside.display().to_string()),
        "{report}"
    );
    assert_eq!(free.info().unwrap().confinement, None);
}

#[test]
fn the_operators_confinement_holds_for_every_session_and_cannot_be_loosened() {
    if !landlock_with_tcp() {
        return;
    }
    let inside = temp_dir("operator");
    let extra = temp_dir("operator-extra");
    let config = Config {
        confinement: Some(Confinement { writable: vec![extra.clone()], ..Confinement::default() }),
        base_dir: Some(inside.clone()),
        ..Config::default()
    };
    let engine = Engine::new(config).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // The session asks for network and another writable path: it gets neither.
    let other = temp_dir("operator-other");
    let loosened = Confinement { writable: vec![other.clone()], network: true, best_effort: true };
    let script = format!(
        "touch {extra}/ok && echo extra-ok; touch {other}/no 2>/dev/null || echo other-refused; \
         (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo tcp-connected || echo tcp-refused",
        extra = extra.display(),
        other = other.display()
    );
    let session = engine
        .spawn(SpawnSpec::new("bash").args(["-c", &script]).cwd(&inside).confine(loosened))
        .unwrap();
    expect(&session, Until::exit());
    let text = session.read().unwrap().text;
    for line in ["extra-ok", "other-refused", "tcp-refused"] {
        assert!(text.lines().any(|l| l.trim() == line), "{line} missing:\n{text}");
    }
    // An interactive program still works: its terminal and /dev/null are writable.
    let shell = engine
        .spawn(SpawnSpec::new("bash").args(["--norc", "--noprofile"]).env("PS1", "$ ").cwd(&inside))
        .unwrap();
    expect(&shell, Until::screen_contains("$"));
    shell.submit("echo hi > /dev/null && echo via-tty > /dev/tty").unwrap();
    expect(&shell, Until::regex("^via-tty$").unwrap());
    // A session may always write in its working directory, so it may start only where the
    // operator lets it write: the base directory, a writable path, or below them.
    std::fs::create_dir_all(extra.join("sub")).unwrap();
    for allowed in [inside.clone(), extra.join("sub")] {
        let session = engine.spawn(SpawnSpec::new("true").cwd(&allowed)).unwrap();
        expect(&session, Until::exit());
    }
    let escaped = format!("termloom-confine-escaped-{}", std::process::id());
    for outside in [std::path::PathBuf::from("/"), other.clone(), inside.join("..")] {
        let err = engine.spawn(SpawnSpec::new("touch").arg(&escaped).cwd(&outside)).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("outside what the operator's confinement"), "{message}");
        assert!(!outside.join(&escaped).exists(), "{} was written", outside.display());
    }
}

#[test]
fn relative_writable_paths_are_refused() {
    let config = Config {
        confinement: Some(Confinement { writable: vec!["build".into()], ..Confinement::default() }),
        ..Config::default()
    };
    let err = Engine::new(config).expect_err("a relative path is refused").to_string();
    assert!(err.contains("confinement") && err.contains("absolute"), "{err}");
}
