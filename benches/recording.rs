//! What recording a session (asciicast v2) costs: the same payload through a session without
//! and with `SpawnSpec::record`, in alternating rounds of the same run. Target: the recorded
//! run's throughput ≥ 0.9 × the plain run's.
//!
//! ```text
//! cargo bench --bench recording
//! ```
//! `TERMLOOM_BENCH_MB` (default 16) sets the payload, `TERMLOOM_BENCH_ROUNDS` (default 3) the
//! rounds.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, SpawnSpec, Until};

/// Seconds to show `file` through `cat` in a fresh session, recorded to `record` if given.
fn run(file: &Path, record: Option<&Path>) -> f64 {
    let engine = Engine::new(Config::default()).expect("engine");
    let mut spec = SpawnSpec::new("cat").arg(file);
    if let Some(path) = record {
        spec = spec.record(path);
    }
    let started = Instant::now();
    let session = engine.spawn(spec).expect("spawn");
    let outcome = session.wait(Until::exit(), Duration::from_secs(300)).expect("wait");
    assert!(!outcome.is_timeout(), "cat did not finish");
    let seconds = started.elapsed().as_secs_f64();
    engine.shutdown();
    seconds
}

fn main() {
    header("recording");
    let mb = env_usize("TERMLOOM_BENCH_MB", 16);
    let rounds = env_usize("TERMLOOM_BENCH_ROUNDS", 3);
    let dir = TempDir::new("recording");
    let (file, bytes) = write_payload(dir.path(), Payload::Plain, mb * 1_000_000, 120, 32);
    let cast = dir.path().join("run.cast");
    let (mut plain, mut recorded) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternate which goes first.
        if round % 2 == 0 {
            plain.push(run(&file, None));
            recorded.push(run(&file, Some(&cast)));
        } else {
            recorded.push(run(&file, Some(&cast)));
            plain.push(run(&file, None));
        }
    }
    let mbps = |s: f64| bytes as f64 / 1e6 / s;
    let cast_size = std::fs::metadata(&cast).map_or(0, |m| m.len());
    println!("| series | MB/s (median of {rounds}) |\n|---|---|");
    println!("| plain | {:.1} |", mbps(median(&plain)));
    println!(
        "| recorded | {:.1} (cast: {:.1} MB) |",
        mbps(median(&recorded)),
        cast_size as f64 / 1e6
    );
    println!("ratio recorded / plain: {:.2}", median(&plain) / median(&recorded));
}
