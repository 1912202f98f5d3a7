//! Scale: many sessions in one engine.
//!
//! 1. Starts 500 idle `bash --norc --noprofile` sessions (120×32) and reports the time to
//!    spawn them all and until every prompt is on its screen; the engine's memory per session
//!    (this process's VmRSS before and after, divided by the count: the children are other
//!    processes and are not counted; target ≤ 256 KiB); then the reactor thread's CPU time and
//!    wake-ups (context switches, from `/proc/self/task/TID/status`) over 10 idle seconds
//!    (target: zero wake-ups), and whether a wait that already returned still wakes the reactor
//!    at its deadline; the cost of `list()` and `info()` with that many sessions; and the time
//!    `shutdown` takes to close them all.
//! 2. Starts 100 sessions that each `cat` the same 2 MB file at once (each `sh` blocks opening
//!    a FIFO; opening it for writing releases them all) and reports the aggregate throughput
//!    and fairness: when each session reached the middle of its file and its end.
//!    Baselines in the same run: one termloom session and a raw PTY reader on one larger file
//!    of the same text.
//!
//! ```text
//! cargo bench --bench scale [-- idle|output]
//! ```
//! `TERMLOOM_BENCH_SESSIONS` (default 500), `TERMLOOM_BENCH_IDLE_SECS` (default 10),
//! `TERMLOOM_BENCH_BUSY` (default 100) and `TERMLOOM_BENCH_BUSY_MB` (default 2) change the
//! sizes.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, Fired, Session, SpawnSpec, Until};

const COLS: u16 = 120;
const ROWS: u16 = 32;
const TIMEOUT: Duration = Duration::from_secs(120);
const HALFWAY: &str = "termloom-bench-halfway-mark";

fn bash(engine: &Engine) -> Session {
    engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile"])
                .env("PS1", "$ ")
                .env("HISTFILE", "/dev/null")
                .size(COLS, ROWS),
        )
        .expect("bash starts")
}

/// The reactor thread's id (it names itself once it runs: retry for a moment).
fn reactor() -> i32 {
    for _ in 0..1000 {
        if let Some(tid) = find_thread("termloom-reactor") {
            return tid;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("no thread named termloom-reactor");
}

fn idle(count: usize, idle_secs: u64) {
    println!();
    println!("--- {count} idle bash sessions, {COLS}x{ROWS}");
    let config = Config { max_sessions: count + 10, ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    // Warm-up: the engine's lazy setup (cgroup detection) and the allocator.
    let warm = bash(&engine);
    let outcome = warm.wait(Until::screen_contains("$"), TIMEOUT).expect("wait");
    assert!(outcome.matched().is_some(), "{outcome}");
    warm.close().expect("close");
    println!(
        "containment: {}",
        warm.info().map(|i| i.containment).unwrap_or_else(|e| e.to_string())
    );

    let rss_before = vm_rss_kib();
    let tid = reactor();
    let started = Instant::now();
    let mut sessions = Vec::with_capacity(count);
    let mut pending = Vec::with_capacity(count);
    let mut spawn_ms = Vec::with_capacity(count);
    for _ in 0..count {
        let spawn_started = Instant::now();
        let session = bash(&engine);
        spawn_ms.push(spawn_started.elapsed().as_secs_f64() * 1e3);
        pending.push(session.start_wait(Until::screen_contains("$"), TIMEOUT).expect("wait"));
        sessions.push(session);
    }
    let spawned = started.elapsed();
    let rss_spawned = vm_rss_kib();
    for wait in pending {
        let outcome = wait.finish().expect("wait");
        assert!(outcome.matched().is_some(), "a bash did not show its prompt: {outcome}");
    }
    let ready = started.elapsed();
    let rss_ready = vm_rss_kib();
    // Past the engine's quiet window (500 ms), when idle sessions trim their grid's cache.
    std::thread::sleep(Duration::from_millis(1500));
    let rss_quiet = vm_rss_kib();
    let per = |after: u64| (after.saturating_sub(rss_before)) as f64 / count as f64;
    let cell = std::mem::size_of::<alacritty_terminal::term::cell::Cell>();
    let grid = cell * usize::from(COLS) * usize::from(ROWS);
    let tenth = (count / 10).max(1);
    println!(
        "| start | {count} spawns: {:.2} s ({:.2} ms each; median of the first {tenth} {:.2} ms, of the last {tenth} {:.2} ms) | all prompts on screen: {:.2} s |",
        spawned.as_secs_f64(),
        spawned.as_secs_f64() * 1e3 / count as f64,
        median(&spawn_ms[..tenth]),
        median(&spawn_ms[count - tenth..]),
        ready.as_secs_f64()
    );
    println!(
        "| memory per session (VmRSS delta / {count}) | after spawn {:.0} KiB | prompts shown {:.0} KiB | quiet {:.0} KiB | target ≤ 256 KiB: {} |",
        per(rss_spawned),
        per(rss_ready),
        per(rss_quiet),
        if per(rss_quiet) <= 256.0 { "met" } else { "NOT met" }
    );
    println!(
        "  (VmRSS {rss_before} KiB before, {rss_quiet} KiB after; one {COLS}x{ROWS} alacritty grid of {cell}-byte cells is {} KiB, and a Term holds two: primary and alternate)",
        grid >> 10
    );

    // Requests that look at every session, or at /proc, with this many sessions alive.
    let processes = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten().filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok()).count()
        })
        .unwrap_or(0);
    let timed = |f: &dyn Fn()| {
        let samples: Vec<f64> = (0..3)
            .map(|_| {
                let started = Instant::now();
                f();
                us(started.elapsed())
            })
            .collect();
        median(&samples)
    };
    let list_us = timed(&|| {
        assert_eq!(engine.list().expect("list").len(), count + 1);
    });
    let info_us = timed(&|| {
        sessions[0].info().expect("info");
    });
    let screen_us = timed(&|| {
        sessions[0].screen().expect("screen");
    });
    println!(
        "| with {count} sessions ({processes} processes on the machine) | list() {:.1} ms | info() of one {:.0} µs | screen() of one {:.0} µs |",
        list_us / 1e3,
        info_us,
        screen_us
    );
    // Idle: nothing happens for idle_secs. (Past the quiet timers the requests above armed.)
    std::thread::sleep(Duration::from_millis(600));
    let before = ThreadStat::of(tid);
    std::thread::sleep(Duration::from_secs(idle_secs));
    let during = ThreadStat::of(tid).since(before);
    println!(
        "| reactor over {idle_secs} idle s | CPU {:.3} ms | wake-ups {} (voluntary {}, involuntary {}) | target zero wake-ups: {} |",
        during.cpu.as_secs_f64() * 1e3,
        during.switches(),
        during.voluntary,
        during.nonvoluntary,
        if during.switches() == 0 { "met" } else { "NOT met" }
    );
    // A wait that fires at once leaves its timeout behind: does the reactor wake for it?
    let probe = &sessions[0];
    let outcome = probe.wait(Until::screen_contains("$"), Duration::from_secs(1)).expect("wait");
    assert!(outcome.matched().is_some());
    let before = ThreadStat::of(tid);
    std::thread::sleep(Duration::from_millis(1500));
    let after = ThreadStat::of(tid).since(before);
    println!(
        "| after one wait(timeout 1 s) that matched at once, next 1.5 s | wake-ups {} | CPU {:.3} ms |",
        after.switches(),
        after.cpu.as_secs_f64() * 1e3
    );

    let started = Instant::now();
    engine.shutdown();
    println!("| shutdown closing {count} sessions | {:.2} s |", started.elapsed().as_secs_f64());
}

/// A plain-text file of `size` bytes with the halfway mark in its middle.
fn busy_file(dir: &Path, size: usize) -> (std::path::PathBuf, u64) {
    let half = Payload::Plain.generate(size / 2, usize::from(COLS), usize::from(ROWS));
    let mut bytes = half.clone();
    bytes.extend_from_slice(HALFWAY.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(&half);
    let path = dir.join("busy.txt");
    std::fs::write(&path, &bytes).expect("writing the file");
    (path, bytes.len() as u64)
}

fn output(count: usize, mb: usize) {
    println!();
    println!("--- {count} sessions writing {mb} MB each at once, {COLS}x{ROWS}");
    let dir = TempDir::new("scale");
    let (file, size) = busy_file(dir.path(), mb * 1_000_000);
    let (single, single_size) =
        write_payload(dir.path(), Payload::Plain, 20_000_000, usize::from(COLS), usize::from(ROWS));
    // A read turn (up to 1 MiB) can settle more lines than the default 10,000 kept, and a
    // transcript wait only looks at what is kept when the turn ends (see the views benchmark):
    // keep enough lines for the halfway mark to be seen.
    let config =
        Config { max_sessions: count + 10, scrollback_lines: 100_000, ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    let tid = reactor();

    // Baselines: one session, one raw reader (same text, 20 MB).
    let single_mbps = |engine: &Engine| {
        let started = Instant::now();
        let s = engine.spawn(SpawnSpec::new("cat").arg(&single).size(COLS, ROWS)).expect("cat");
        let outcome = s.wait(Until::exit(), TIMEOUT).expect("wait");
        assert!(matches!(outcome.fired, Fired::Exited { .. }));
        single_size as f64 / started.elapsed().as_secs_f64() / 1e6
    };
    let raw_mbps = || {
        let (elapsed, _) = raw_cat(&single, COLS, ROWS, |_| {});
        single_size as f64 / elapsed.as_secs_f64() / 1e6
    };
    single_mbps(&engine);
    let mut one = vec![single_mbps(&engine)];
    let mut raw = vec![raw_mbps()];

    // Every session blocks opening a FIFO for reading; opening it for writing releases them all
    // at once (no request to the reactor is involved in the start).
    let fifo = dir.path().join("go.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    let script = ": < \"$1\"; exec cat \"$0\"";
    let file_arg = file.to_str().expect("utf-8 path");
    let fifo_arg = fifo.to_str().expect("utf-8 path");
    let sessions: Vec<Session> = (0..count)
        .map(|_| {
            engine
                .spawn(
                    SpawnSpec::new("sh").args(["-c", script, file_arg, fifo_arg]).size(COLS, ROWS),
                )
                .expect("sh starts")
        })
        .collect();
    // Time for every sh to reach the FIFO.
    std::thread::sleep(Duration::from_millis(1000));
    // Every session's halfway and exit waits, each finished by a thread that notes the time.
    let mut pending = Vec::new();
    for s in &sessions {
        let half = s.start_wait(Until::text(HALFWAY), TIMEOUT).expect("wait");
        let exit = s.start_wait(Until::exit(), TIMEOUT).expect("wait");
        pending.push((half, exit));
    }
    // A round trip, so every wait is registered before the start.
    sessions[0].screen().expect("screen");
    let before = ThreadStat::of(tid);
    let started = Instant::now();
    let times: Vec<(f64, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = pending
            .into_iter()
            .map(|(half, exit)| {
                scope.spawn(move || {
                    let h = half.finish().expect("wait");
                    let half_at = started.elapsed().as_secs_f64();
                    assert!(h.matched().is_some(), "halfway mark not seen: {h}");
                    let e = exit.finish().expect("wait");
                    assert!(matches!(e.fired, Fired::Exited { .. }), "{e}");
                    (half_at, started.elapsed().as_secs_f64())
                })
            })
            .collect();
        let go = std::fs::OpenOptions::new().write(true).open(&fifo).expect("opening the FIFO");
        drop(go);
        handles.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    let reactor_stat = ThreadStat::of(tid).since(before);
    let total = times.iter().map(|t| t.1).fold(0.0, f64::max);
    let aggregate = (size * count as u64) as f64 / total / 1e6;
    one.push(single_mbps(&engine));
    raw.push(raw_mbps());

    let halves: Vec<f64> = times.iter().map(|t| t.0).collect();
    let ends: Vec<f64> = times.iter().map(|t| t.1).collect();
    let rates: Vec<f64> = ends.iter().map(|e| size as f64 / e / 1e6).collect();
    let jain = rates.iter().sum::<f64>().powi(2)
        / (rates.len() as f64 * rates.iter().map(|r| r * r).sum::<f64>());
    let starved = halves.iter().filter(|&&h| h > median(&ends)).count();
    println!(
        "| aggregate | {:.1} MB/s ({} x {} bytes in {:.2} s) | one termloom session {:.1} MB/s | raw reader {:.1} MB/s | aggregate / one session {:.2} |",
        aggregate,
        count,
        size,
        total,
        median(&one),
        median(&raw),
        aggregate / median(&one)
    );
    println!(
        "| reached halfway (s) | min {:.2} | median {:.2} | max {:.2} |",
        min(&halves),
        median(&halves),
        max(&halves)
    );
    println!(
        "| finished (s) | min {:.2} | median {:.2} | max {:.2} | max/min {:.2} |",
        min(&ends),
        median(&ends),
        max(&ends),
        max(&ends) / min(&ends)
    );
    let deciles = |v: &[f64]| {
        let cells: Vec<String> =
            (1..=9).map(|d| format!("{:.2}", percentile(v, d as f64 * 10.0))).collect();
        cells.join(" ")
    };
    println!("| deciles of reaching halfway (s) | {} |", deciles(&halves));
    println!("| deciles of finishing (s) | {} |", deciles(&ends));
    println!(
        "| fairness | Jain index of per-session rates {:.3} (1 = equal) | sessions not halfway when the median session had finished: {} |",
        jain, starved
    );
    println!(
        "| reactor during the burst | CPU {:.2} s of {:.2} s ({:.0}%) |",
        reactor_stat.cpu.as_secs_f64(),
        total,
        reactor_stat.cpu.as_secs_f64() / total * 100.0
    );
    println!(
        "  baselines before / after the burst: one session {} MB/s, raw {} MB/s",
        list(&one, 1),
        list(&raw, 1)
    );
}

fn main() {
    header("scale");
    let started = Instant::now();
    if selected("idle") {
        let count = env_usize("TERMLOOM_BENCH_SESSIONS", 500);
        idle(count, env_usize("TERMLOOM_BENCH_IDLE_SECS", 10) as u64);
    }
    if selected("output") {
        output(env_usize("TERMLOOM_BENCH_BUSY", 100), env_usize("TERMLOOM_BENCH_BUSY_MB", 2));
    }
    println!();
    println!("measured in {:.1} s; {}", started.elapsed().as_secs_f64(), load());
}
