//! Input that cannot hang a call: a paste to a program that stopped reading ends at its
//! timeout or when cancelled, saying how much was queued; an interrupt never waits behind
//! queued input (the foreground group gets the signal, as the line discipline would do).

mod common;

use std::time::{Duration, Instant};

use common::*;
use termloom::{Config, Engine, Error, Session, SpawnSpec, Until};

/// A program that never reads its terminal (its input buffer fills up), in a small-queue
/// engine.
/// A program that never reads its terminal. Non-canonical: in canonical mode the line
/// discipline discards what overflows a line with no newline in it, so a paste could drain
/// into the kernel on a fast machine instead of waiting for room.
fn stuck(engine: &Engine) -> Session {
    let script = "stty -icanon -echo; echo ready; exec sleep 1000";
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&s, Until::text("ready"));
    s
}

fn small_queue() -> Engine {
    Engine::new(Config { write_queue_bytes: 1 << 10, ..Config::default() }).unwrap()
}

#[test]
fn a_paste_to_a_program_that_does_not_read_ends_at_its_timeout() {
    let engine = small_queue();
    let s = stuck(&engine);
    let started = Instant::now();
    let err = s.start_paste(&"x".repeat(8 << 20), Some(Duration::from_millis(300))).unwrap();
    let err = err.finish().unwrap_err();
    assert!(started.elapsed() < LONG, "took {:?}", started.elapsed());
    match err {
        Error::PasteIncomplete { sent, total, reason, .. } => {
            assert!(sent < total, "{sent} of {total}");
            assert_eq!(reason, "timed out");
        }
        other => panic!("{other:?}"),
    }
    // The session still takes input, and an interrupt reaches the program.
    s.send_keys("<C-c>").unwrap();
    let outcome = s.wait(Until::exit(), LONG).unwrap();
    assert!(!outcome.is_timeout(), "{outcome:?}");
}

/// Pastes waiting for a program that does not read are bounded (`Config::paste_bytes`): one
/// past the bound, alone or beside another waiting, is refused whole, and the one waiting
/// goes on. (The kernel takes the first 64 KiB or so of a paste into the terminal's own
/// buffer, so the pastes are far larger.) Before, any number of pastes of any size waited in the engine's memory.
#[test]
fn pastes_waiting_for_room_are_bounded() {
    let engine = Engine::new(Config {
        write_queue_bytes: 1 << 10,
        paste_bytes: 1 << 20,
        ..Config::default()
    })
    .unwrap();
    let s = stuck(&engine);
    let too_large = s.paste(&"z".repeat((1 << 20) + 1)).unwrap_err();
    assert!(
        matches!(too_large, Error::PasteTooLarge { waiting: 0, capacity, .. } if capacity == 1 << 20),
        "{too_large:?}"
    );
    assert!(too_large.to_string().contains("Config::paste_bytes"), "{too_large}");
    let waiting = s.start_paste(&"w".repeat(800 << 10), Some(LONG * 10)).unwrap();
    let beside = s.paste(&"v".repeat(400 << 10)).unwrap_err();
    assert!(
        matches!(beside, Error::PasteTooLarge { waiting, attempted, .. } if waiting > 400 << 10 && attempted == 400 << 10),
        "{beside:?}"
    );
    waiting.canceller().cancel();
    let err = waiting.finish().unwrap_err();
    assert!(matches!(err, Error::PasteIncomplete { reason: "was cancelled", .. }), "{err:?}");
    // Once it is gone, a paste within the bound waits again.
    let again = s.start_paste(&"u".repeat(800 << 10), Some(Duration::from_millis(200))).unwrap();
    let err = again.finish().unwrap_err();
    assert!(matches!(err, Error::PasteIncomplete { reason: "timed out", .. }), "{err:?}");
}

#[test]
fn a_paste_can_be_cancelled_from_another_thread() {
    let engine = small_queue();
    let s = stuck(&engine);
    let pending = s.start_paste(&"y".repeat(8 << 20), Some(LONG * 10)).unwrap();
    let canceller = pending.canceller();
    let cancelling = std::thread::spawn(move || canceller.cancel());
    let started = Instant::now();
    let err = pending.finish().unwrap_err();
    cancelling.join().unwrap();
    assert!(started.elapsed() < LONG);
    assert!(matches!(err, Error::PasteIncomplete { reason: "was cancelled", .. }), "{err:?}");
    s.close().unwrap();
}

/// A paste whose handle is dropped ends, as a dropped `paste_async` future's does: its rest
/// no longer holds the session's input until its timeout.
#[test]
fn a_dropped_paste_ends() {
    let engine = small_queue();
    let s = stuck(&engine);
    let pending = s.start_paste(&"d".repeat(8 << 20), Some(LONG * 10)).unwrap();
    drop(pending);
    // What was queued stays queued (the program does not read it), but nothing of the paste
    // waits behind it any more.
    match s.send_bytes(b"x") {
        Ok(()) => {}
        Err(Error::QueueFull { queued, capacity, .. }) => {
            assert!(queued <= capacity, "{queued} bytes still waiting, the paste's rest")
        }
        Err(other) => panic!("{other:?}"),
    }
    s.close().unwrap();
}

#[test]
fn an_interrupt_never_waits_behind_a_paste() {
    let engine = small_queue();
    let s = stuck(&engine);
    let pending = s.start_paste(&"z".repeat(8 << 20), Some(LONG * 10)).unwrap();
    // Ctrl-C while the paste waits for room: the paste is dropped, the program interrupted.
    s.send_keys("<C-c>").unwrap();
    let err = pending.finish().unwrap_err();
    assert!(
        matches!(err, Error::PasteIncomplete { reason: "was dropped by an interrupt", .. }),
        "{err:?}"
    );
    let outcome = s.wait(Until::exit(), LONG).unwrap();
    assert!(!outcome.is_timeout(), "{outcome:?}");
}

#[test]
fn an_mcp_paste_ends_at_the_call_timeout_and_ctrl_c_still_gets_through() {
    let mut server = McpChild::start("2025-06-18");
    let started = server.call(
        "terminal_start",
        serde_json::json!({"argv": ["sh", "-c", "stty -icanon -echo isig; echo ready; exec sleep 1000"],
            "for_text": "ready"}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    assert!(id.is_u64(), "{started}");
    let begun = Instant::now();
    let pasted = server.call(
        "terminal_send",
        serde_json::json!({"session_id": id, "paste": "p".repeat(3 << 20), "timeout_ms": 500}),
    );
    assert_eq!(pasted["isError"], true, "{pasted}");
    let text = pasted["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("timed out"), "{text}");
    assert!(begun.elapsed() < LONG);
    let interrupted = server.call(
        "terminal_send",
        serde_json::json!({"session_id": id, "keys": "<C-c>", "exit": true}),
    );
    assert_eq!(interrupted["structuredContent"]["wait"]["outcome"], "exited", "{interrupted}");
}

/// A paste waiting for room when its session is closed ends with `SessionClosed`, not as if
/// the program had exited.
#[test]
fn a_paste_ended_by_a_close_says_the_session_was_closed() {
    let engine = small_queue();
    let s = stuck(&engine);
    let pending = s.start_paste(&"c".repeat(8 << 20), Some(LONG * 10)).unwrap();
    // Requests are taken in order: the paste waits for room when the close arrives.
    s.close().unwrap();
    let err = pending.finish().unwrap_err();
    assert!(matches!(err, Error::SessionClosed(_)), "{err:?}");
}

/// Input sent while a paste waits for room is refused, and the error counts the paste's bytes
/// among those waiting (it said the queue held at most its bound, and that the input sent
/// would overflow it when it would not).
#[test]
fn input_behind_a_waiting_paste_is_refused_with_what_waits() {
    let engine = small_queue();
    let s = stuck(&engine);
    let pending = s.start_paste(&"q".repeat(1 << 20), Some(LONG * 10)).unwrap();
    match s.send_text("x").unwrap_err() {
        Error::QueueFull { queued, attempted, capacity, .. } => {
            assert_eq!((attempted, capacity), (1, 1 << 10));
            assert!(queued > capacity, "{queued} bytes waiting behind a 1 MiB paste");
        }
        other => panic!("{other:?}"),
    }
    pending.canceller().cancel();
    assert!(pending.finish().is_err());
    s.close().unwrap();
}
