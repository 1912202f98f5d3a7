//! Command round trip: run `true` in bash and know it finished, three ways, in the same run:
//!
//! - `run_command`: `Session::run_command("true")` in a bash started with shell integration
//!   (OSC 133 marks tell when the prompt is back);
//! - `quiet window`: what tools without shell integration do: type `true` and Enter, then wait
//!   until the session has printed nothing for a window (100 ms and 500 ms), the window counted
//!   from the last output after the keys were sent;
//! - `tmux`: `tmux send-keys 'true' Enter`, then `tmux capture-pane -p` in a tight loop (no
//!   sleep: tmux's best case) until the next prompt shows (a private server, `tmux -L`).
//!
//! ```text
//! cargo bench --bench command [-- run_command|quiet|tmux]
//! ```
//! `TERMLOOM_BENCH_SAMPLES` (default 200) sets the run_command samples; the quiet-window and
//! tmux series take fewer (see the output).

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, Session, SpawnSpec, Until};

const TIMEOUT: Duration = Duration::from_secs(20);

fn integrated_bash(engine: &Engine) -> Session {
    let session = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile"])
                .env("PS1", "$ ")
                .env("HISTFILE", "/dev/null")
                .size(120, 32)
                .shell_integration(true),
        )
        .expect("bash starts");
    let outcome = session.wait(Until::prompt(), TIMEOUT).expect("wait");
    assert!(outcome.matched().is_some(), "no prompt: {outcome}");
    session
}

fn run_command_sample(session: &Session) -> Duration {
    let started = Instant::now();
    let result = session.run_command("true", TIMEOUT).expect("run_command");
    let elapsed = started.elapsed();
    assert_eq!(result.exit_code, Some(0), "{result:?}");
    elapsed
}

/// Types `true` Enter, then waits until nothing was printed for `window` since the last
/// output that came after the keys.
fn quiet_sample(session: &Session, window: Duration) -> Duration {
    let started = Instant::now();
    session.submit("true").expect("submit");
    loop {
        let outcome = session.wait(Until::quiet(window), TIMEOUT).expect("wait");
        assert!(outcome.matched().is_some(), "{outcome}");
        // The quiet must cover output that came after the keys were sent: the echo at least.
        let last_output = outcome.status.since_output;
        if started.elapsed() > last_output {
            return started.elapsed();
        }
    }
}

/// A private tmux server running bash with a numbered prompt.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start() -> Option<Tmux> {
        let version = Command::new("tmux").arg("-V").output().ok()?;
        if !version.status.success() {
            return None;
        }
        println!("tmux: {}", String::from_utf8_lossy(&version.stdout).trim());
        let tmux = Tmux { socket: format!("termloom-bench-{}", std::process::id()) };
        let status = tmux
            .command(&[
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "bench",
                "-x",
                "120",
                "-y",
                "32",
                "PS1='[\\#]$ ' HISTFILE=/dev/null exec bash --norc --noprofile",
            ])
            .status()
            .ok()?;
        status.success().then_some(tmux)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-L").arg(&self.socket).args(args);
        command
    }

    fn capture(&self) -> String {
        let output =
            self.command(&["capture-pane", "-p", "-t", "bench"]).output().expect("capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The last non-empty line of the pane.
    fn last_line(&self) -> String {
        self.capture().lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_owned()
    }

    /// Waits (polling) until the last line is `line`; returns the number of captures.
    fn poll_until(&self, line: &str) -> usize {
        let deadline = Instant::now() + TIMEOUT;
        let mut captures = 0;
        loop {
            captures += 1;
            if self.last_line() == line {
                return captures;
            }
            assert!(Instant::now() < deadline, "tmux pane never showed {line:?}");
        }
    }

    /// The number in the prompt `[N]$` on the last line.
    fn prompt_number(&self) -> u64 {
        let last = self.last_line();
        last.trim_start_matches('[')
            .split(']')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected tmux prompt {last:?}"))
    }

    fn sample(&self) -> (Duration, usize) {
        let next = self.prompt_number() + 1;
        let started = Instant::now();
        let sent = self.command(&["send-keys", "-t", "bench", "true", "Enter"]).status();
        assert!(sent.is_ok_and(|s| s.success()), "send-keys failed");
        let captures = self.poll_until(&format!("[{next}]$"));
        (started.elapsed(), captures)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]).status();
    }
}

fn report(name: &str, samples: &[f64], baseline: Option<f64>) {
    let ratio =
        baseline.map_or(String::new(), |b| format!("{:.1}x", percentile(samples, 50.0) / b));
    println!(
        "| {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
        name,
        samples.len(),
        percentile(samples, 50.0),
        percentile(samples, 90.0),
        percentile(samples, 99.0),
        max(samples),
        ratio
    );
}

fn main() {
    header("command");
    let samples = env_usize("TERMLOOM_BENCH_SAMPLES", 200);
    let engine = Engine::new(Config::default()).expect("engine starts");
    let session = integrated_bash(&engine);
    let quiet_session = integrated_bash(&engine);

    // Warm-up.
    for _ in 0..20 {
        run_command_sample(&session);
    }

    let mut run_command = Vec::new();
    let mut quiet_100 = Vec::new();
    let mut quiet_500 = Vec::new();
    let mut tmux_samples = Vec::new();
    let mut captures = Vec::new();
    let tmux = if selected("tmux") { Tmux::start() } else { None };
    if let Some(tmux) = &tmux {
        tmux.poll_until("[1]$");
        for _ in 0..5 {
            tmux.sample();
        }
    } else if selected("tmux") {
        println!("tmux: not installed or failed to start; its series is skipped");
    }

    // Interleaved rounds: the series share the machine's noise.
    let rounds = 5;
    let started = Instant::now();
    for _ in 0..rounds {
        if selected("run_command") {
            for _ in 0..samples / rounds {
                run_command.push(us(run_command_sample(&session)));
            }
        }
        if selected("quiet") {
            for _ in 0..4 {
                quiet_100.push(us(quiet_sample(&quiet_session, Duration::from_millis(100))));
            }
            quiet_500.push(us(quiet_sample(&quiet_session, Duration::from_millis(500))));
        }
        if let Some(tmux) = &tmux {
            for _ in 0..20 {
                let (elapsed, n) = tmux.sample();
                tmux_samples.push(us(elapsed));
                captures.push(n as f64);
            }
        }
    }
    let elapsed = started.elapsed();

    println!();
    println!("| method | samples | p50 µs | p90 µs | p99 µs | max µs | p50 vs run_command |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let base = (!run_command.is_empty()).then(|| percentile(&run_command, 50.0));
    if !run_command.is_empty() {
        report("termloom run_command(\"true\")", &run_command, base);
    }
    if !quiet_100.is_empty() {
        report("termloom submit + quiet 100 ms", &quiet_100, base);
        report("termloom submit + quiet 500 ms", &quiet_500, base);
    }
    if !tmux_samples.is_empty() {
        report("tmux send-keys + capture-pane polling", &tmux_samples, base);
        println!();
        println!(
            "tmux: median {:.0} capture-pane calls per command (each a tmux client process)",
            median(&captures)
        );
    }
    println!("measured in {:.1} s; {}", elapsed.as_secs_f64(), load());
    drop(tmux);
    let _ = session.close();
    let _ = quiet_session.close();
}
