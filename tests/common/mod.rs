//! Helpers shared by the integration tests.
#![allow(dead_code)]

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
    let description = until.to_string();
    let outcome = session.wait(until, LONG).expect("wait");
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
