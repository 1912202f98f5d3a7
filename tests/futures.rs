//! Futures without a runtime: waits as futures woken by the reactor, on a single-threaded
//! executor (`futures::executor::block_on`), with no thread per wait; a future dropped
//! mid-wait leaves no waiter behind.
//!
//! One test in this file, so that counting the process's threads is not blurred by others.

mod common;

use std::time::Duration;

use common::*;
use futures::executor::block_on;
use futures::future::join_all;
use termloom::{Fired, Session, SpawnSpec, Until};

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
}

fn cat(engine: &termloom::Engine) -> Session {
    let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&s, Until::input_wait());
    s
}

#[test]
fn a_thousand_waits_as_futures_on_one_thread_and_dropped_futures_leave_nothing() {
    let engine = engine();
    let sessions: Vec<Session> = (0..10).map(|_| cat(&engine)).collect();
    let before = threads();

    // 1,000 waits, registered with the reactor as they are made.
    let waits: Vec<_> =
        (0..1000).map(|i| sessions[i % 10].wait_async(Until::text("go"), LONG)).collect();
    for s in &sessions {
        assert_eq!(s.info().unwrap().pending_waits, 100);
    }
    assert!(threads() <= before, "no thread per wait: {} then {}", before, threads());
    for s in &sessions {
        s.send_text("go\n").unwrap();
    }
    let outcomes = block_on(join_all(waits));
    assert_eq!(outcomes.len(), 1000);
    for outcome in outcomes {
        let outcome = outcome.unwrap();
        assert!(outcome.matched().is_some(), "{outcome:?}");
    }
    assert!(threads() <= before);

    // A future dropped while it waits cancels its wait.
    let s = &sessions[0];
    let pending = s.wait_async(Until::text("never printed"), LONG);
    assert_eq!(s.info().unwrap().pending_waits, 1);
    drop(pending);
    assert_eq!(s.info().unwrap().pending_waits, 0);

    // A read that waits.
    s.send_text("after\n").unwrap();
    let (outcome, output) = block_on(s.read_async(Until::text("after"), LONG)).unwrap();
    assert!(outcome.matched().is_some(), "{outcome:?}");
    assert!(output.text.contains("after"), "{output:?}");

    // Typing and its wait, and a paste, as futures: the echo of a submitted line is no
    // answer, `cat`'s copy of it is; a bad key script fails at once; a dropped one cancels.
    let typed = block_on(s.send_keys_and_wait_async("keys<Enter>", Until::text("keys"), LONG));
    assert!(typed.unwrap().matched().is_some());
    let line = block_on(s.submit_and_wait_async("line", Until::text("line"), LONG)).unwrap();
    assert!(line.matched().is_some(), "{line:?}");
    let bytes = s.send_bytes_and_wait_async(b"bytes\r", Until::text("bytes"), LONG);
    assert!(block_on(bytes).unwrap().matched().is_some());
    assert!(block_on(s.send_keys_and_wait_async("<Nope>", Until::text("x"), LONG)).is_err());
    let pending = s.send_keys_and_wait_async("z", Until::text("never printed"), LONG);
    assert_eq!(s.info().unwrap().pending_waits, 1);
    drop(pending);
    assert_eq!(s.info().unwrap().pending_waits, 0);
    block_on(s.paste_async("pasted\n")).unwrap();
    expect(s, Until::text("pasted"));

    // A wait that times out, and close, as futures.
    let outcome = block_on(s.wait_async(Until::text("never"), Duration::from_millis(50))).unwrap();
    assert!(outcome.is_timeout());
    for s in &sessions {
        block_on(s.close_async()).unwrap();
    }
    // A wait on a closed session ends at once, saying so.
    let closed = block_on(sessions[0].wait_async(Until::text("x"), LONG)).unwrap();
    assert!(matches!(closed.fired, Fired::Closed | Fired::Exited { .. }), "{closed:?}");
}
