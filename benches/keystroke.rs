//! Keystroke round trip: in a session running `cat` (cooked mode, so the terminal's line
//! discipline echoes each character), send one character through the public API and wait
//! until it is on the screen; against the raw echo (write one byte to a PTY master whose slave
//! runs `cat`, block in `read` until the echo comes back) in the same run.
//!
//! Four series, interleaved in rounds of 100 samples:
//! - `raw`: the kernel's echo, read by a thread blocked in `read(2)`;
//! - `screen`: `send_text(c)` then `wait(Until::screen_row_contains(row, row_so_far))`;
//! - `transcript`: `send_text(c)` then `wait(Until::text(c))` (a `read()` between samples, not
//!   timed, moves the read cursor past the character);
//! - `wait first`: `start_wait(screen condition)` (which does not block), then `send_text(c)`,
//!   then `finish()`: one round trip less for the caller.
//!
//! Then 200 more samples of `raw` and `screen` while another session of the same engine floods
//! its terminal (`yes`), and a decomposition: single requests timed on the idle session.
//!
//! Targets: p50 ≤ 100 µs and p99 ≤ 500 µs through the API, and no sample bounded by a polling
//! interval (the maximum and the share of samples over 1 ms are printed).
//!
//! ```text
//! cargo bench --bench keystroke
//! ```
//! `TERMLOOM_BENCH_SAMPLES` (default 1000) sets the samples per series.

mod support;

use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, Session, SpawnSpec, Until};

const COLS: u16 = 120;
const ROWS: u16 = 32;
const TIMEOUT: Duration = Duration::from_secs(10);

/// The character typed for sample `i`.
fn char_of(i: usize) -> char {
    (b'a' + (i % 26) as u8) as char
}

/// A `cat` session whose screen is empty and whose cursor is at the top-left corner.
fn cat_session(engine: &Engine) -> Session {
    let session = engine.spawn(SpawnSpec::new("cat").size(COLS, ROWS)).expect("spawning cat");
    // Wait until cat reads the terminal, so that the session is in its steady state.
    let outcome = session.wait(Until::input_wait(), TIMEOUT).expect("waiting");
    assert!(outcome.matched().is_some(), "cat did not start: {outcome}");
    session
}

struct Series {
    name: &'static str,
    samples: Vec<f64>,
}

fn main() {
    header("keystroke");
    let total = env_usize("TERMLOOM_BENCH_SAMPLES", 1000);
    let per_round = 100.min(total);
    let rounds = total.div_ceil(per_round);
    println!("{total} samples per series, {rounds} rounds of {per_round}, terminal {COLS}x{ROWS}");
    // Keep below the line discipline's 4095-byte line (nothing is ever submitted).
    assert!(total + 500 < 4000, "at most ~3500 samples");

    let engine = Engine::new(Config::default()).expect("engine starts");
    let screen_session = cat_session(&engine);
    let text_session = cat_session(&engine);
    let early_session = cat_session(&engine);
    let mut raw = RawPty::open(COLS, ROWS).expect("opening a raw PTY");
    let mut raw_child = raw.spawn("cat", &[]).expect("spawning cat");

    let mut series = [
        Series { name: "raw echo (kernel)", samples: Vec::new() },
        Series { name: "termloom, screen wait", samples: Vec::new() },
        Series { name: "termloom, transcript wait", samples: Vec::new() },
        Series { name: "termloom, wait started before the send", samples: Vec::new() },
    ];
    let mut typed = [0usize; 4];
    let mut buf = [0u8; 256];

    let mut raw_sample = |typed: &mut usize| {
        let c = char_of(*typed) as u8;
        let started = Instant::now();
        raw.write_all(&[c]);
        let n = raw.read(&mut buf).expect("echo");
        let elapsed = started.elapsed();
        assert_eq!(&buf[..n], &[c], "the echo is the character");
        *typed += 1;
        elapsed
    };
    let screen_sample = |typed: &mut usize| {
        let i = *typed;
        let (row, col) = (i / usize::from(COLS), i % usize::from(COLS));
        let row_so_far: String = (i - col..=i).map(char_of).collect();
        let started = Instant::now();
        screen_session.send_text(&char_of(i).to_string()).expect("send");
        let outcome = screen_session
            .wait(Until::screen_row_contains(row as u16, row_so_far), TIMEOUT)
            .expect("wait");
        let elapsed = started.elapsed();
        assert!(outcome.matched().is_some(), "no echo: {outcome}");
        *typed += 1;
        elapsed
    };
    // The wait is registered first (`start_wait` does not block), then the character sent: the
    // caller waits for one reply after the send's instead of two round trips in a row.
    let early_sample = |typed: &mut usize| {
        let i = *typed;
        let (row, col) = (i / usize::from(COLS), i % usize::from(COLS));
        let row_so_far: String = (i - col..=i).map(char_of).collect();
        let started = Instant::now();
        let pending = early_session
            .start_wait(Until::screen_row_contains(row as u16, row_so_far), TIMEOUT)
            .expect("wait");
        early_session.send_text(&char_of(i).to_string()).expect("send");
        let outcome = pending.finish().expect("wait");
        let elapsed = started.elapsed();
        assert!(outcome.matched().is_some(), "no echo: {outcome}");
        *typed += 1;
        elapsed
    };
    let text_sample = |typed: &mut usize| {
        let c = char_of(*typed).to_string();
        let started = Instant::now();
        text_session.send_text(&c).expect("send");
        let outcome = text_session.wait(Until::text(c.clone()), TIMEOUT).expect("wait");
        let elapsed = started.elapsed();
        assert!(outcome.matched().is_some(), "no echo: {outcome}");
        let read = text_session.read().expect("read");
        assert!(read.text.ends_with(&c), "read {read:?}");
        *typed += 1;
        elapsed
    };

    // Warm-up: 50 of each, not recorded.
    for _ in 0..50 {
        raw_sample(&mut typed[0]);
        screen_sample(&mut typed[1]);
        text_sample(&mut typed[2]);
        early_sample(&mut typed[3]);
    }
    let started = Instant::now();
    for round in 0..rounds {
        for k in 0..4 {
            let s = (k + round) % 4;
            for _ in 0..per_round {
                let elapsed = match s {
                    0 => raw_sample(&mut typed[0]),
                    1 => screen_sample(&mut typed[1]),
                    2 => text_sample(&mut typed[2]),
                    _ => early_sample(&mut typed[3]),
                };
                series[s].samples.push(us(elapsed));
            }
        }
    }
    let elapsed = started.elapsed();

    println!();
    println!(
        "| series | p50 µs | p90 µs | p99 µs | max µs | > 1 ms | p50 / raw p50 | per-round p50 µs |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    let raw_p50 = percentile(&series[0].samples, 50.0);
    for s in &series {
        let per_round: Vec<f64> =
            s.samples.chunks(per_round).map(|chunk| percentile(chunk, 50.0)).collect();
        let over = s.samples.iter().filter(|&&v| v > 1000.0).count();
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.0} | {} of {} | {:.2} | {} |",
            s.name,
            percentile(&s.samples, 50.0),
            percentile(&s.samples, 90.0),
            percentile(&s.samples, 99.0),
            max(&s.samples),
            over,
            s.samples.len(),
            percentile(&s.samples, 50.0) / raw_p50,
            list(&per_round, 0),
        );
    }
    println!();
    println!("histogram (µs buckets; a polling interval would show as a pile at its period):");
    let edges = [25.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0, 500.0, 1000.0, 5000.0, f64::MAX];
    for s in &series {
        let mut counts = vec![0usize; edges.len()];
        for v in &s.samples {
            let bucket = edges.iter().position(|e| v <= e).unwrap_or(edges.len() - 1);
            counts[bucket] += 1;
        }
        let cells: Vec<String> = edges
            .iter()
            .zip(&counts)
            .map(|(e, c)| if *e == f64::MAX { format!(">5000:{c}") } else { format!("≤{e}:{c}") })
            .collect();
        println!("  {:<40} {}", s.name, cells.join(" "));
    }
    println!();
    for s in &series[1..] {
        let p50 = percentile(&s.samples, 50.0);
        let p99 = percentile(&s.samples, 99.0);
        println!(
            "{}: p50 {:.1} µs (target ≤ 100: {}), p99 {:.1} µs (target ≤ 500: {})",
            s.name,
            p50,
            if p50 <= 100.0 { "met" } else { "NOT met" },
            p99,
            if p99 <= 500.0 { "met" } else { "NOT met" }
        );
    }
    println!("measured in {:.1} s; {}", elapsed.as_secs_f64(), load());

    // The same while another session of the engine floods its terminal: how long can a
    // keystroke wait behind another session's output?
    let flood = engine
        .spawn(SpawnSpec::new("yes").arg("y".repeat(100)).size(COLS, ROWS))
        .expect("spawning yes");
    std::thread::sleep(Duration::from_millis(200));
    let mut under_flood = [Vec::new(), Vec::new()];
    for _ in 0..2 {
        for _ in 0..100 {
            under_flood[0].push(us(raw_sample(&mut typed[0])));
        }
        for _ in 0..100 {
            under_flood[1].push(us(screen_sample(&mut typed[1])));
        }
    }
    let flooded = flood.info().map(|i| i.bytes_out).unwrap_or(0);
    let _ = flood.close();
    println!();
    println!(
        "while another session floods (`yes`, {:.0} MB read meanwhile), {} samples each:",
        flooded as f64 / 1e6,
        under_flood[0].len()
    );
    for (name, samples) in
        [("raw echo (kernel)", &under_flood[0]), ("termloom, screen wait", &under_flood[1])]
    {
        println!(
            "  {:<26} p50 {:>8.1} µs  p90 {:>8.1} µs  p99 {:>8.1} µs  max {:>8.0} µs",
            name,
            percentile(samples, 50.0),
            percentile(samples, 90.0),
            percentile(samples, 99.0),
            max(samples)
        );
    }

    // Where the time goes: single requests to the reactor on the same (idle) session.
    println!();
    println!("decomposition (200 calls each, on the idle screen-wait session):");
    let calls: [(&str, &dyn Fn()); 5] = [
        ("send_bytes(b\"\") (request round trip)", &|| {
            screen_session.send_bytes(b"").expect("send");
        }),
        ("info()", &|| {
            screen_session.info().expect("info");
        }),
        ("screen()", &|| {
            screen_session.screen().expect("screen");
        }),
        ("status()", &|| {
            screen_session.status().expect("status");
        }),
        ("wait(screen_contains) already true", &|| {
            let outcome = screen_session.wait(Until::screen_contains("a"), TIMEOUT).expect("wait");
            assert!(outcome.matched().is_some());
        }),
    ];
    for (name, call) in calls {
        let samples: Vec<f64> = (0..200)
            .map(|_| {
                let started = Instant::now();
                call();
                us(started.elapsed())
            })
            .collect();
        println!(
            "  {:<40} p50 {:>8.1} µs  p99 {:>8.1} µs",
            name,
            percentile(&samples, 50.0),
            percentile(&samples, 99.0)
        );
    }
    let processes = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten().filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok()).count()
        })
        .unwrap_or(0);
    println!("  (processes on the machine: {processes})");

    let _ = raw_child.kill();
    let _ = raw_child.wait();
    let _ = screen_session.close();
    let _ = text_session.close();
    let _ = early_session.close();
}
