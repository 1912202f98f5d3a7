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
    let one_session = cat_session(&engine);
    let mut raw = RawPty::open(COLS, ROWS).expect("opening a raw PTY");
    let mut raw_child = raw.spawn("cat", &[]).expect("spawning cat");

    let mut series = [
        Series { name: "raw echo (kernel)", samples: Vec::new() },
        Series { name: "termloom, screen wait", samples: Vec::new() },
        Series { name: "termloom, transcript wait", samples: Vec::new() },
        Series { name: "termloom, wait started before the send", samples: Vec::new() },
        Series { name: "termloom, send_keys_and_wait (one request)", samples: Vec::new() },
    ];
    let mut typed = [0usize; 5];
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
    // Keys and wait in one request.
    let one_sample = |typed: &mut usize| {
        let i = *typed;
        let (row, col) = (i / usize::from(COLS), i % usize::from(COLS));
        let row_so_far: String = (i - col..=i).map(char_of).collect();
        let started = Instant::now();
        let outcome = one_session
            .send_keys_and_wait(
                &char_of(i).to_string(),
                Until::screen_row_contains(row as u16, row_so_far),
                TIMEOUT,
            )
            .expect("send and wait");
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
        one_sample(&mut typed[4]);
    }
    let started = Instant::now();
    for round in 0..rounds {
        for k in 0..5 {
            let s = (k + round) % 5;
            for _ in 0..per_round {
                let elapsed = match s {
                    0 => raw_sample(&mut typed[0]),
                    1 => screen_sample(&mut typed[1]),
                    2 => text_sample(&mut typed[2]),
                    3 => early_sample(&mut typed[3]),
                    _ => one_sample(&mut typed[4]),
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
    // keystroke wait behind another session's output? Rounds of 50 keystrokes beside a
    // flood, termloom's and tmux's alternately, each flood started for its round and stopped
    // after it: the same moments of the machine. In each round the flood first runs alone for
    // 200 ms (its solo rate), then beside the keystrokes, so both rates come from the same
    // rounds (one solo second before all rounds swung by ±20 % against them).
    let mut tmux = TmuxKeys::start();
    let mut under_flood = [Vec::new(), Vec::new()];
    let mut tmux_idle = Vec::new();
    let mut tmux_flooded = Vec::new();
    let (mut solo_bytes, mut solo_time) = (0u64, Duration::ZERO);
    let (mut beside_bytes, mut beside_time) = (0u64, Duration::ZERO);
    for round in 0..8 {
        let flood = engine
            .spawn(SpawnSpec::new("yes").arg("y".repeat(100)).size(COLS, ROWS))
            .expect("spawning yes");
        let bytes_out = || flood.info().map(|i| i.bytes_out).unwrap_or(0);
        std::thread::sleep(Duration::from_millis(100));
        let (from, started) = (bytes_out(), Instant::now());
        std::thread::sleep(Duration::from_millis(200));
        solo_bytes += bytes_out().saturating_sub(from);
        solo_time += started.elapsed();
        let (from, started) = (bytes_out(), Instant::now());
        for _ in 0..50 {
            under_flood[0].push(us(raw_sample(&mut typed[0])));
            under_flood[1].push(us(screen_sample(&mut typed[1])));
        }
        beside_bytes += bytes_out().saturating_sub(from);
        beside_time += started.elapsed();
        let _ = flood.close();
        if let Some(tmux) = &mut tmux {
            for i in 0..50 {
                tmux_idle.push(tmux.sample(round * 200 + i));
            }
            tmux.flood(true);
            std::thread::sleep(Duration::from_millis(100));
            for i in 0..50 {
                tmux_flooded.push(tmux.sample(round * 200 + 100 + i));
            }
            tmux.flood(false);
        }
    }
    drop(tmux);
    let solo_rate = solo_bytes as f64 / solo_time.as_secs_f64();
    let beside_rate = beside_bytes as f64 / beside_time.as_secs_f64();
    println!();
    println!(
        "while another session floods (`yes`, {:.0} MB/s alone and {:.0} MB/s beside the keystrokes in the same rounds: {:.2} × solo), {} samples each, in 8 rounds alternating with tmux's:",
        solo_rate / 1e6,
        beside_rate / 1e6,
        beside_rate / solo_rate,
        under_flood[0].len()
    );
    let mut rows =
        vec![("raw echo (kernel)", &under_flood[0]), ("termloom, screen wait", &under_flood[1])];
    if tmux_flooded.is_empty() {
        println!("  (tmux is not installed: no tmux series)");
    } else {
        rows.push(("tmux, idle (control mode)", &tmux_idle));
        rows.push(("tmux, beside a flood", &tmux_flooded));
    }
    for (name, samples) in rows {
        println!(
            "  {:<26} p50 {:>8.1} µs  p90 {:>8.1} µs  p99 {:>8.1} µs  max {:>8.0} µs",
            name,
            percentile(samples, 50.0),
            percentile(samples, 90.0),
            percentile(samples, 99.0),
            max(samples)
        );
    }

    let slow: Vec<String> = under_flood[1]
        .iter()
        .enumerate()
        .filter(|(_, v)| **v > 1000.0)
        .map(|(i, v)| format!("#{} of round {}: {:.0} µs", i % 50, i / 50, v))
        .collect();
    println!(
        "  termloom samples over 1 ms: {}",
        if slow.is_empty() { "none".to_owned() } else { slow.join(", ") }
    );
    if !tmux_flooded.is_empty() {
        println!(
            "  termloom / tmux beside a flood: p50 {:.2}, p99 {:.2}",
            percentile(&under_flood[1], 50.0) / percentile(&tmux_flooded, 50.0),
            percentile(&under_flood[1], 99.0) / percentile(&tmux_flooded, 99.0)
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

/// tmux's keystroke round trip through a control-mode client (`tmux -C`, no process per
/// step): `send-keys` to a pane running `cat`, until the client gets the pane's `%output` with
/// the character. The flood runs in a second tmux session of the same server, not attached to
/// this client, so its output is not sent to it.
struct TmuxKeys {
    socket: String,
    pane: String,
    client: std::process::Child,
    to_tmux: std::process::ChildStdin,
    from_tmux: std::io::BufReader<std::process::ChildStdout>,
    line: String,
}

impl TmuxKeys {
    /// A tmux server with a `cat` pane and a control client on it; `None` without tmux.
    fn start() -> Option<TmuxKeys> {
        use std::process::{Command, Stdio};
        let socket = format!("termloom-keys-{}", std::process::id());
        let size = [COLS.to_string(), ROWS.to_string()];
        let new = ["-f", "/dev/null", "new-session", "-d", "-s", "keys", "-x", &size[0]];
        Self::tmux(&socket, &[&new[..], &["-y", &size[1], "cat"]].concat())?;
        let pane = Self::tmux(&socket, &["display", "-p", "-t", "keys", "#{pane_id}"])?;
        let pane = String::from_utf8_lossy(&pane.stdout).trim().to_owned();
        let mut client = Command::new("tmux")
            .args(["-L", &socket, "-C", "attach", "-t", "keys"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let to_tmux = client.stdin.take()?;
        let from_tmux = std::io::BufReader::new(client.stdout.take()?);
        let mut keys = TmuxKeys { socket, pane, client, to_tmux, from_tmux, line: String::new() };
        // Keys sent before the client is attached echo before it gets the pane's output: the
        // first sample waited for an `%output` that never came (two runs of 4 December).
        while !keys.line.starts_with("%session-changed") {
            keys.line.clear();
            if std::io::BufRead::read_line(&mut keys.from_tmux, &mut keys.line).ok()? == 0 {
                return None;
            }
        }
        for i in 0..50 {
            keys.sample(i);
        }
        Some(keys)
    }

    fn tmux(socket: &str, args: &[&str]) -> Option<std::process::Output> {
        std::process::Command::new("tmux")
            .arg("-L")
            .arg(socket)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
    }

    /// One keystroke, in µs.
    fn sample(&mut self, i: usize) -> f64 {
        use std::io::{BufRead, Write};
        let c = char_of(i);
        let prefix = format!("%output {} ", self.pane);
        let started = Instant::now();
        writeln!(self.to_tmux, "send-keys -t {} -l {c}", self.pane).expect("to tmux");
        self.to_tmux.flush().expect("to tmux");
        loop {
            self.line.clear();
            if self.from_tmux.read_line(&mut self.line).unwrap_or(0) == 0 {
                panic!("the tmux client ended");
            }
            if self.line.starts_with(&prefix) && self.line[prefix.len()..].contains(c) {
                return us(started.elapsed());
            }
        }
    }

    /// Starts or stops the flooding session.
    fn flood(&mut self, on: bool) {
        if on {
            let (cols, rows) = (COLS.to_string(), ROWS.to_string());
            let yes = format!("yes {}", "y".repeat(100));
            let new = ["new-session", "-d", "-s", "flood", "-x", &cols, "-y", &rows, &yes];
            Self::tmux(&self.socket, &new).expect("a flooding tmux session");
        } else {
            Self::tmux(&self.socket, &["kill-session", "-t", "flood"]);
        }
    }
}

impl Drop for TmuxKeys {
    fn drop(&mut self) {
        Self::tmux(&self.socket, &["kill-server"]);
        let _ = self.client.wait();
    }
}
