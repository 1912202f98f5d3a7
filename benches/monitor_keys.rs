//! Keys to monitors that redraw on a timer: how long after a key the engine reports the
//! program waiting for the next one (`send_keys_and_wait(key, Until::input_wait())`), for
//! `top -d 1` and a curses program in `halfdelay(10)` (both poll the terminal with a timer of
//! a second and set it again after each key), against htop in the same run (its timer, 1.5 s,
//! was never taken for work). Each key is typed at another point of the monitors' tick (a
//! pause of 50-900 ms before it, not timed), since a tick's redraw racing the key changes what
//! is seen.
//!
//! ```text
//! cargo bench --bench monitor_keys
//! ```
//! `TERMLOOM_BENCH_SAMPLES` (default 10) sets the keys per program.

mod support;

use std::time::{Duration, Instant};

use support::*;
use termloom::{Engine, SpawnSpec, Until};

const TIMEOUT: Duration = Duration::from_secs(10);

/// A curses program that redraws a tick counter and the last key every second, reading keys
/// with `halfdelay(10)` between (the readiness tests' own).
const HALFDELAY: &str = include_str!("../tests/common/halfdelay_monitor.py");

fn main() {
    header("monitor_keys");
    let samples = env_usize("TERMLOOM_BENCH_SAMPLES", 10);
    let engine = Engine::new(termloom::Config::default()).expect("engine");
    let programs: [(&str, SpawnSpec, &[&str]); 3] = [
        ("top -d 1", SpawnSpec::new("top").args(["-d", "1"]), &["x", "y"]),
        ("halfdelay(10)", SpawnSpec::new("python3").args(["-c", HALFDELAY]), &["a", "b"]),
        ("htop (reference)", SpawnSpec::new("htop"), &["H", "K"]),
    ];
    println!("| program | ms per key: median | min | max |");
    println!("|---|---:|---:|---:|");
    for (name, spec, keys) in programs {
        if !selected(name) {
            continue;
        }
        let Ok(session) = engine.spawn(spec.size(100, 30)) else {
            println!("| {name} | not installed | | |");
            continue;
        };
        let ready = session.wait(Until::input_wait(), TIMEOUT).expect("waiting");
        assert!(ready.matched().is_some(), "{name} did not start: {ready}");
        let mut taken = Vec::new();
        for i in 0..samples {
            // Another point of the tick for each key (not timed).
            std::thread::sleep(Duration::from_millis(130 * i as u64 % 900 + 50));
            let started = Instant::now();
            let key = keys[i % keys.len()];
            let outcome = session.send_keys_and_wait(key, Until::input_wait(), TIMEOUT);
            let outcome = outcome.expect("typing");
            assert!(outcome.matched().is_some(), "{name}: {outcome}");
            taken.push(started.elapsed().as_secs_f64() * 1e3);
        }
        println!(
            "| {name} | {:.0} | {:.0} | {:.0} |",
            median(&taken),
            support::min(&taken),
            max(&taken)
        );
        session.close().expect("closing");
    }
}
