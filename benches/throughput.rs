//! Throughput: `cat` of a generated payload file as fast as the kernel delivers it, in MB/s
//! (10^6 bytes of the file per second, from before the spawn to the exit being reported):
//!
//! - `raw`: a raw PTY reader that reads and discards (the kernel limit);
//! - `emulator`: a raw reader that also feeds every chunk to a bare alacritty `Term` with no
//!   history (the emulator limit);
//! - `termloom`: `engine.spawn(cat FILE)` then `wait(Until::exit())`, which fires only after all
//!   output went PTY → grid → transcript;
//! - `tmux` (when installed): a new session of a tmux server started once, 120×32, running
//!   `cat FILE` and then `tmux wait-for -S`, timed from before `new-session` until a client's
//!   `wait-for` returns (tmux has read all but what the kernel still held when `cat` exited).
//!
//! All of them run in the same round on the same file, in a rotating order, for several rounds;
//! the medians are reported with the ratio `termloom / min(raw, emulator)` (target ≥ 0.9) and
//! `termloom / tmux`.
//! Also reported: the CPU time per MB of the thread that reads and emulates (the baseline's
//! own thread, termloom's reactor thread), whose ratio says how much more work termloom does
//! per byte than a bare emulator, a figure that a busy machine disturbs far less than MB/s.
//!
//! ```text
//! cargo bench --bench throughput                 # every payload
//! cargo bench --bench throughput -- dense        # payloads whose name contains "dense"
//! TERMLOOM_BENCH_MB=100 cargo bench --bench throughput
//! ```
//! `TERMLOOM_BENCH_MB` (default 16) is the payload size, `TERMLOOM_BENCH_ROUNDS` (default 3)
//! the number of rounds.

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, Fired, SpawnSpec, Until};

const COLS: u16 = 120;
const ROWS: u16 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    Raw,
    Emulator,
    Termloom,
    Tmux,
}

/// A tmux server of the bench's own, kept alive by an idle session between runs.
struct Tmux {
    socket: String,
    pid: i32,
}

impl Tmux {
    /// Starts the server, if tmux is installed.
    fn start() -> Option<Tmux> {
        let socket = format!("termloom-throughput-{}", std::process::id());
        let mut tmux = Tmux { socket, pid: 0 };
        let started =
            tmux.command(&["-f", "/dev/null", "new-session", "-d", "-s", "keep", "sleep 100000"]);
        if !started.is_ok_and(|s| s.success()) {
            println!("tmux: not installed or does not start; its column is left out");
            return None;
        }
        tmux.pid = std::process::Command::new("tmux")
            .args(["-L", &tmux.socket, "display-message", "-p", "#{pid}"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())?;
        Some(tmux)
    }

    fn command(&self, args: &[&str]) -> std::io::Result<std::process::ExitStatus> {
        std::process::Command::new("tmux").arg("-L").arg(&self.socket).args(args).status()
    }

    /// The server's CPU time (it is one thread).
    fn cpu(&self) -> f64 {
        std::fs::read_to_string(format!("/proc/{}/schedstat", self.pid))
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
            .map_or(0.0, |ns| ns / 1e9)
    }

    fn cat(&self, file: &Path) -> Run {
        let channel = "termloom-cat-done";
        let script =
            format!("cat '{}'; tmux -L {} wait-for -S {channel}", file.display(), self.socket);
        let (cols, rows) = (COLS.to_string(), ROWS.to_string());
        let cpu = self.cpu();
        let started = Instant::now();
        let args = ["new-session", "-d", "-s", "cat", "-x", &cols, "-y", &rows, &script];
        assert!(self.command(&args).is_ok_and(|s| s.success()), "tmux new-session");
        assert!(self.command(&["wait-for", channel]).is_ok_and(|s| s.success()), "tmux wait-for");
        let secs = started.elapsed().as_secs_f64();
        let cpu = self.cpu() - cpu;
        // The session ends with its command; this only makes sure.
        let _ = std::process::Command::new("tmux")
            .args(["-L", &self.socket, "kill-session", "-t", "cat"])
            .stderr(std::process::Stdio::null())
            .status();
        Run { secs, bytes: 0, cpu, reads: 0 }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]);
    }
}

/// One measured run: seconds, bytes read from the PTY, CPU seconds of the reading thread, and
/// (raw reader only) the number of `read` calls that returned data.
struct Run {
    secs: f64,
    bytes: u64,
    cpu: f64,
    reads: u64,
}

fn run(reader: Reader, engine: &Engine, tmux: Option<&Tmux>, file: &Path) -> Run {
    match reader {
        Reader::Raw => {
            let cpu = own_thread_cpu();
            let mut reads = 0u64;
            let (elapsed, bytes) = raw_cat(file, COLS, ROWS, |_| reads += 1);
            let cpu = (own_thread_cpu() - cpu).as_secs_f64();
            Run { secs: elapsed.as_secs_f64(), bytes, cpu, reads }
        }
        Reader::Emulator => {
            let cpu = own_thread_cpu();
            let (elapsed, bytes) = emulator_cat(file, COLS, ROWS);
            let cpu = (own_thread_cpu() - cpu).as_secs_f64();
            Run { secs: elapsed.as_secs_f64(), bytes, cpu, reads: 0 }
        }
        Reader::Termloom => termloom_cat(engine, file),
        Reader::Tmux => tmux.expect("tmux is measured only when it started").cat(file),
    }
}

fn termloom_cat(engine: &Engine, file: &Path) -> Run {
    let tid = find_thread("termloom-reactor").expect("the reactor thread");
    let before = ThreadStat::of(tid);
    let started = Instant::now();
    let session = engine.spawn(SpawnSpec::new("cat").arg(file)).expect("spawning cat");
    let outcome = session.wait(Until::exit(), Duration::from_secs(600)).expect("waiting");
    let secs = started.elapsed().as_secs_f64();
    let cpu = ThreadStat::of(tid).since(before).cpu.as_secs_f64();
    assert!(matches!(outcome.fired, Fired::Exited { .. }), "cat did not exit: {outcome}");
    let bytes = session.info().map(|i| i.bytes_out).unwrap_or(0);
    Run { secs, bytes, cpu, reads: 0 }
}

fn main() {
    header("throughput");
    let mb = env_usize("TERMLOOM_BENCH_MB", 16);
    let rounds = env_usize("TERMLOOM_BENCH_ROUNDS", 3);
    println!(
        "payload size {mb} MB, {rounds} rounds, terminal {COLS}x{ROWS}, read buffer {} KiB",
        READ_BUFFER >> 10
    );
    let dir = TempDir::new("throughput");
    let payloads: Vec<(Payload, PathBuf, u64)> = Payload::ALL
        .into_iter()
        .filter(|p| selected(p.name()))
        .map(|p| {
            let (path, size) =
                write_payload(dir.path(), p, mb * 1_000_000, usize::from(COLS), usize::from(ROWS));
            (p, path, size)
        })
        .collect();
    let config = Config { max_closed_sessions: 1, ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    let tmux = Tmux::start();
    let mut readers = vec![Reader::Raw, Reader::Emulator, Reader::Termloom];
    if tmux.is_some() {
        readers.push(Reader::Tmux);
    }
    let readers = readers;

    // Warm-up (page cache, the engine's lazy setup, CPU frequency): not recorded.
    if let Some((_, file, _)) = payloads.first() {
        for &reader in &readers {
            run(reader, &engine, tmux.as_ref(), file);
        }
    }

    // mbps[payload][reader][round]
    let mut mbps = vec![vec![Vec::new(); readers.len()]; payloads.len()];
    let mut cpu = vec![vec![Vec::new(); readers.len()]; payloads.len()];
    let mut bytes = vec![vec![0u64; readers.len()]; payloads.len()];
    let mut per_read = vec![Vec::new(); payloads.len()];
    let started = Instant::now();
    for round in 0..rounds {
        for (p, (_, file, size)) in payloads.iter().enumerate() {
            for k in 0..readers.len() {
                let r = (k + round) % readers.len();
                let result = run(readers[r], &engine, tmux.as_ref(), file);
                mbps[p][r].push(*size as f64 / result.secs / 1e6);
                cpu[p][r].push(result.cpu);
                bytes[p][r] = result.bytes;
                if result.reads > 0 {
                    per_read[p].push(result.bytes as f64 / result.reads as f64);
                }
            }
        }
    }
    let elapsed = started.elapsed();

    println!();
    println!(
        "| payload | raw MB/s | emulator MB/s | termloom MB/s | termloom / min(raw, emulator) | per-round ratios | CPU ms/MB emulator thread | CPU ms/MB reactor | CPU ratio |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|---:|---:|");
    let mut met = 0;
    for (p, (payload, _, size)) in payloads.iter().enumerate() {
        let med: Vec<f64> = (0..readers.len()).map(|r| median(&mbps[p][r])).collect();
        let limit = med[0].min(med[1]);
        let ratio = med[2] / limit;
        let per_round: Vec<f64> =
            (0..rounds).map(|i| mbps[p][2][i] / mbps[p][0][i].min(mbps[p][1][i])).collect();
        if ratio >= 0.9 {
            met += 1;
        }
        let mb = *size as f64 / 1e6;
        let emu_cpu = median(&cpu[p][1]) * 1e3 / mb;
        let reactor_cpu = median(&cpu[p][2]) * 1e3 / mb;
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.2} {} | {} | {:.1} | {:.1} | {:.2} |",
            payload.name(),
            med[0],
            med[1],
            med[2],
            ratio,
            if ratio >= 0.9 { "(met)" } else { "(NOT met)" },
            list(&per_round, 2),
            emu_cpu,
            reactor_cpu,
            emu_cpu / reactor_cpu,
        );
    }
    println!();
    println!("per-round MB/s (raw / emulator / termloom):");
    for (p, (payload, _, size)) in payloads.iter().enumerate() {
        println!(
            "  {:<14} file {} bytes, PTY delivered {} (raw) {} (emulator) {} (termloom); raw reader: {:.0} bytes per read",
            payload.name(),
            size,
            bytes[p][0],
            bytes[p][1],
            bytes[p][2],
            median(&per_read[p])
        );
        for (r, reader) in readers.iter().enumerate() {
            println!("    {:<9} {}", format!("{reader:?}"), list(&mbps[p][r], 1));
        }
    }
    println!();
    println!(
        "target termloom >= 0.9 x min(raw, emulator): met on {met} of {} payloads",
        payloads.len()
    );
    if tmux.is_some() {
        println!();
        println!(
            "| payload | termloom MB/s | tmux MB/s | termloom / tmux | CPU ms/MB reactor | CPU ms/MB tmux server | CPU ratio (tmux / termloom) |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for (p, (payload, _, size)) in payloads.iter().enumerate() {
            let mb = *size as f64 / 1e6;
            let (ours, theirs) = (median(&mbps[p][2]), median(&mbps[p][3]));
            let (ours_cpu, theirs_cpu) =
                (median(&cpu[p][2]) * 1e3 / mb, median(&cpu[p][3]) * 1e3 / mb);
            println!(
                "| {} | {ours:.1} | {theirs:.1} | {:.2} | {ours_cpu:.1} | {theirs_cpu:.1} | {:.2} |",
                payload.name(),
                ours / theirs,
                theirs_cpu / ours_cpu
            );
        }
    }
    println!("measured in {:.1} s; {}", elapsed.as_secs_f64(), load());
}
