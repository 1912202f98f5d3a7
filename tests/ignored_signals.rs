//! A host that ignores SIGINT (a script's background job, `nohup`): the programs in its
//! sessions still get the default action of every signal, so Ctrl-C interrupts them. An
//! ignored signal stays ignored across exec; before the fix every program in every session
//! inherited the host's SIG_IGN, and Ctrl-C, a cancelled call's interrupt and
//! `terminal_signal` INT did nothing.
//!
//! Alone in its test binary: a signal's disposition belongs to the whole process.

use std::time::Duration;

use termloom::{Config, Engine, ExitStatus, SpawnSpec, Until};

#[test]
fn programs_get_default_signal_actions_when_the_host_ignores_sigint() {
    // SAFETY: sets a disposition, no handler; no other test runs in this binary.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    let engine = Engine::new(Config::default()).unwrap();
    // `cat` reads the terminal: once it waits for input, Ctrl-C reaches `cat` itself.
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    cat.wait(Until::input_wait(), Duration::from_secs(20)).unwrap();
    cat.send_keys("<C-c>").unwrap();
    cat.wait(Until::exit(), Duration::from_secs(20)).expect("Ctrl-C did not end cat");
    assert_eq!(cat.close().unwrap(), ExitStatus::Signal(2));
}
