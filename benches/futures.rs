//! Waits as futures at scale: 1,000 sessions (`cat`) each with a wait pending through
//! `wait_async` at once, on one thread; then the wake-up latency of a satisfied wait (send one
//! line, until the future completes) against the blocking API's (`wait`) on the same sessions,
//! in the same run.
//!
//! Target: one reactor thread and no thread per waiting call; futures' latency within 1.2 ×
//! the blocking API's (p50).
//!
//! ```text
//! cargo bench --bench futures
//! ```
//! `TERMLOOM_BENCH_SESSIONS` (default 1000) sets the sessions, `TERMLOOM_BENCH_SAMPLES`
//! (default 200) the samples per series.

mod support;

use std::time::{Duration, Instant};

use futures::executor::block_on;
use support::*;
use termloom::{Config, Engine, Session, SpawnSpec, Until};

const TIMEOUT: Duration = Duration::from_secs(60);

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
}

fn main() {
    header("futures");
    let count = env_usize("TERMLOOM_BENCH_SESSIONS", 1000);
    let samples = env_usize("TERMLOOM_BENCH_SAMPLES", 200).min(count);
    let config = Config { max_sessions: count + 16, ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    let started = Instant::now();
    let sessions: Vec<Session> = (0..count)
        .map(|_| engine.spawn(SpawnSpec::new("cat").size(80, 24)).expect("spawning cat"))
        .collect();
    for s in &sessions {
        let outcome = s.wait(Until::input_wait(), TIMEOUT).expect("wait");
        assert!(outcome.matched().is_some(), "cat did not start: {outcome}");
    }
    println!("{count} sessions started in {:.1} s", started.elapsed().as_secs_f64());

    // Every session waits at once, through futures.
    let before = threads();
    let mut pending: Vec<_> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| Some(s.wait_async(Until::text(format!("f{i}x")), TIMEOUT)))
        .collect();
    let waiting: usize = sessions.iter().map(|s| s.info().map_or(0, |i| i.pending_waits)).sum();
    println!(
        "{waiting} waits pending at once; threads of the process: {before} before, {} while waiting",
        threads()
    );
    let mut futures_us = Vec::new();
    let mut blocking_us = Vec::new();
    for (i, s) in sessions.iter().enumerate().take(samples) {
        // The two series alternate which goes first on a session, so neither always meets a
        // session (and a `cat`) that has been idle.
        for series in if i % 2 == 0 { [0, 1] } else { [1, 0] } {
            if series == 0 {
                let t = Instant::now();
                s.send_text(&format!("f{i}x\n")).expect("send");
                let outcome = block_on(pending[i].take().expect("pending")).expect("wait");
                futures_us.push(us(t.elapsed()));
                assert!(outcome.matched().is_some(), "{outcome}");
            } else {
                // The blocking API: the wait registered first, as the future's was.
                let wait = s.start_wait(Until::text(format!("b{i}x")), TIMEOUT).expect("wait");
                let t = Instant::now();
                s.send_text(&format!("b{i}x\n")).expect("send");
                let outcome = wait.finish().expect("wait");
                blocking_us.push(us(t.elapsed()));
                assert!(outcome.matched().is_some(), "{outcome}");
            }
        }
    }
    drop(pending);
    let (f50, b50) = (percentile(&futures_us, 50.0), percentile(&blocking_us, 50.0));
    println!("| series | p50 µs | p99 µs |");
    println!("|---|---:|---:|");
    println!("| futures | {f50:.1} | {:.1} |", percentile(&futures_us, 99.0));
    println!("| blocking | {b50:.1} | {:.1} |", percentile(&blocking_us, 99.0));
    println!(
        "futures / blocking p50: {:.2} (target ≤ 1.2: {})",
        f50 / b50,
        if f50 <= 1.2 * b50 { "met" } else { "NOT met" }
    );
    println!("{}", load());
    engine.shutdown();
}
