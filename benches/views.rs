//! Costs of the views on a 200×60 session: time per call of a screen snapshot, a transcript
//! read and a wait, on sessions whose transcript already holds 0, 10,000, 100,000 and
//! 1,000,000 lines; and a wait pending while the program floods the terminal. The point is
//! that the cost follows the new output, not the size of the history.
//!
//! Each session runs a small `sh` loop (echo off) that prints a history file, then on request
//! prints one line (`e TOKEN`), N lines (`n N TOKEN`) or a whole file (`f FILE TOKEN`), always
//! ending with the line TOKEN.
//!
//! Series (medians over interleaved rounds; µs per call, through the public API):
//! - `info()`: the cheapest request, the round-trip baseline;
//! - `screen()`: the snapshot;
//! - `read()`, nothing new / after 1 new line / after 101 new lines;
//! - `wait(text)` that holds at once, on 1 / 101 new lines;
//! - `scrollback(64 KiB)`.
//!
//! Flood: `f FILE TOKEN` with 16 MB of text while a wait for TOKEN (transcript text, regex or
//! screen) is pending, in MB/s, on the empty and on the 1,000,000-line session, against the raw
//! PTY reader and the bare-emulator reader on the same file at 200×60 in the same run.
//!
//! Miss: whether waits for a line in the middle of a flood see it, while several sessions
//! flood at once (20 with the default 10,000-line store, 10 with a 1,000-line store): the
//! reactor falls behind, reads long turns, and lines settled in one turn can be dropped from
//! the store before any waiter is checked.
//!
//! ```text
//! cargo bench --bench views [-- calls|flood|miss]
//! ```

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, Session, SpawnSpec, Until};

const COLS: u16 = 200;
const ROWS: u16 = 60;
const TIMEOUT: Duration = Duration::from_secs(120);
const HISTORIES: [usize; 4] = [0, 10_000, 100_000, 1_000_000];

const SCRIPT: &str = r#"stty -echo; cat "$0"; echo READY
while read c a b; do
  case "$c" in
    e) echo "$a" ;;
    n) seq -f "new line %g" "$a"; echo "$b" ;;
    f) cat "$a"; echo "$b" ;;
  esac
done"#;

fn spawn(engine: &Engine, history: &Path) -> Session {
    let session = engine
        .spawn(
            SpawnSpec::new("sh")
                .args(["-c", SCRIPT, history.to_str().expect("utf-8 path")])
                .size(COLS, ROWS),
        )
        .expect("sh starts");
    let outcome = session.wait(Until::regex("^READY$").expect("regex"), TIMEOUT).expect("wait");
    assert!(outcome.matched().is_some(), "the history was not printed: {outcome}");
    // Read everything, so that the read cursor is at the end.
    loop {
        let out = session.read().expect("read");
        if !out.truncated {
            break;
        }
    }
    session
}

/// Sends a request line and waits (not timed) until its token is in the transcript.
fn request(session: &Session, line: &str, token: &str) {
    session.submit(line).expect("send");
    let until = Until::regex(&format!("^{token}$")).expect("regex");
    let outcome = session.wait(until, TIMEOUT).expect("wait");
    assert!(outcome.matched().is_some(), "{line}: {outcome}");
}

fn time<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let value = f();
    (us(started.elapsed()), value)
}

const CALLS: [&str; 9] = [
    "info() [round-trip baseline]",
    "screen()",
    "read(), nothing new",
    "read(), 1 new line",
    "read(), 101 new lines",
    "wait(text) true at once, 1 new line",
    "wait(text) true at once, 101 new lines",
    "scrollback(64 KiB)",
    "transcript lines after the run",
];

fn calls(dir: &Path) {
    println!();
    println!("--- time per call (µs, median of interleaved rounds), {COLS}x{ROWS}");
    let config = Config {
        cols: COLS,
        rows: ROWS,
        scrollback_lines: 2_000_000,
        scrollback_bytes: 256 << 20,
        max_read_bytes: 16 << 20,
        ..Config::default()
    };
    let engine = Engine::new(config).expect("engine starts");
    let sessions: Vec<Session> = HISTORIES
        .iter()
        .map(|&lines| {
            let file = if lines == 0 {
                let path = dir.join("empty.txt");
                std::fs::write(&path, b"").expect("write");
                path
            } else {
                write_lines(dir, &format!("history-{lines}.txt"), lines, "end of history")
            };
            let (secs, session) = time(|| spawn(&engine, &file));
            println!("  history of {lines} lines loaded in {:.2} s", secs / 1e6);
            session
        })
        .collect();

    // samples[call][session]
    let mut samples = vec![vec![Vec::new(); sessions.len()]; CALLS.len() - 1];
    let rounds = 5;
    let per_round = 20;
    let mut token = 0usize;
    let started = Instant::now();
    for _ in 0..rounds {
        for (s, session) in sessions.iter().enumerate() {
            for _ in 0..per_round {
                samples[0][s].push(time(|| session.info().expect("info")).0);
                samples[1][s].push(time(|| session.screen().expect("screen")).0);
                samples[2][s].push(time(|| session.read().expect("read")).0);

                token += 1;
                let tok = format!("tok{token}");
                request(session, &format!("e {tok}"), &tok);
                let (t, outcome) = time(|| session.wait(Until::text(&tok), TIMEOUT).expect("w"));
                assert!(outcome.matched().is_some());
                samples[5][s].push(t);
                let (t, out) = time(|| session.read().expect("read"));
                assert!(out.text.contains(&tok), "{out:?}");
                samples[3][s].push(t);

                token += 1;
                let tok = format!("tok{token}");
                request(session, &format!("n 100 {tok}"), &tok);
                let (t, outcome) = time(|| session.wait(Until::text(&tok), TIMEOUT).expect("w"));
                assert!(outcome.matched().is_some());
                samples[6][s].push(t);
                let (t, out) = time(|| session.read().expect("read"));
                assert!(out.text.lines().count() >= 101, "{out:?}");
                samples[4][s].push(t);

                samples[7][s].push(time(|| session.scrollback(64 << 10).expect("sb")).0);
            }
        }
    }
    let elapsed = started.elapsed();
    let header: Vec<String> = HISTORIES.iter().map(|h| format!("history {h} lines")).collect();
    println!();
    println!("| call | {} | 1M / 0 |", header.join(" | "));
    println!("|---|{}---:|", "---:|".repeat(HISTORIES.len()));
    for (c, name) in CALLS.iter().enumerate().take(CALLS.len() - 1) {
        let medians: Vec<f64> = samples[c].iter().map(|v| median(v)).collect();
        let cells: Vec<String> = medians.iter().map(|m| format!("{m:.1}")).collect();
        println!(
            "| {} | {} | {:.2} |",
            name,
            cells.join(" | "),
            medians[medians.len() - 1] / medians[0]
        );
    }
    let ends: Vec<String> = sessions
        .iter()
        .map(|s| {
            let out = s.read().expect("read");
            format!("{}", out.first_line)
        })
        .collect();
    println!("| {} | {} | |", CALLS[CALLS.len() - 1], ends.join(" | "));
    println!("measured in {:.1} s", elapsed.as_secs_f64());
    drop(sessions);
    engine.shutdown();
}

/// Builds a wait condition for a token.
type MakeUntil = dyn Fn(&str) -> Until;

/// Floods `session` with `file` while a wait built by `until(token)` is pending; MB/s.
fn flood(session: &Session, file: &Path, size: u64, until: &MakeUntil, n: usize) -> f64 {
    let tok = format!("flood{n}");
    let started = Instant::now();
    session.submit(&format!("f {} {tok}", file.display())).expect("send");
    let outcome = session.wait(until(&tok), TIMEOUT).expect("wait");
    let secs = started.elapsed().as_secs_f64();
    assert!(outcome.matched().is_some(), "{outcome}");
    // Move the read cursor to the end (not timed).
    loop {
        if !session.read().expect("read").truncated {
            break;
        }
    }
    size as f64 / secs / 1e6
}

fn floods(dir: &Path) {
    println!();
    println!("--- a wait pending during a flood of 16 MB of text lines, {COLS}x{ROWS}, MB/s");
    let (file, size) =
        write_payload(dir, Payload::Plain, 16_000_000, usize::from(COLS), usize::from(ROWS));
    let config = Config {
        cols: COLS,
        rows: ROWS,
        scrollback_lines: 3_000_000,
        scrollback_bytes: 512 << 20,
        max_read_bytes: 16 << 20,
        ..Config::default()
    };
    let engine = Engine::new(config).expect("engine starts");
    let empty = dir.join("empty-flood.txt");
    std::fs::write(&empty, b"").expect("write");
    let big = write_lines(dir, "history-flood.txt", 1_000_000, "end of history");
    let sessions = [spawn(&engine, &empty), spawn(&engine, &big)];
    let kinds: [(&str, &MakeUntil); 3] = [
        ("wait(text)", &|t: &str| Until::text(t)),
        ("wait(regex ^tok$)", &|t: &str| Until::regex(&format!("^{t}$")).expect("regex")),
        ("wait(screen_contains)", &|t: &str| Until::screen_contains(t)),
    ];
    let rounds = 3;
    let mut raw = Vec::new();
    let mut emu = Vec::new();
    // mbps[kind][session]
    let mut mbps = vec![vec![Vec::new(); sessions.len()]; kinds.len()];
    let mut n = 0;
    flood(&sessions[0], &file, size, kinds[0].1, n);
    let started = Instant::now();
    for _ in 0..rounds {
        let (t, _) = raw_cat(&file, COLS, ROWS, |_| {});
        raw.push(size as f64 / t.as_secs_f64() / 1e6);
        let (t, _) = emulator_cat(&file, COLS, ROWS);
        emu.push(size as f64 / t.as_secs_f64() / 1e6);
        for (k, (_, until)) in kinds.iter().enumerate() {
            for (s, session) in sessions.iter().enumerate() {
                n += 1;
                mbps[k][s].push(flood(session, &file, size, *until, n));
            }
        }
    }
    let elapsed = started.elapsed();
    let limit = median(&raw).min(median(&emu));
    println!();
    println!(
        "| reader | history 0 lines | history 1,000,000 lines | 1M / 0 | vs min(raw, emulator) |"
    );
    println!("|---|---:|---:|---:|---:|");
    println!("| raw PTY reader | {:.1} | | | |", median(&raw));
    println!("| raw reader + bare alacritty Term | {:.1} | | | |", median(&emu));
    for (k, (name, _)) in kinds.iter().enumerate() {
        let a = median(&mbps[k][0]);
        let b = median(&mbps[k][1]);
        println!(
            "| termloom, {} pending | {:.1} | {:.1} | {:.2} | {:.2} / {:.2} |",
            name,
            a,
            b,
            b / a,
            a / limit,
            b / limit
        );
    }
    println!("measured in {:.1} s", elapsed.as_secs_f64());
    drop(sessions);
    engine.shutdown();
}

/// Do waits for a line in the middle of a flood see it, with a store of `lines` lines, while
/// `count` sessions flood at once (so that the reactor falls behind and reads long turns)?
fn miss(dir: &Path, lines: usize, count: usize) {
    println!();
    println!(
        "--- scrollback_lines {lines}: waits for a line in the middle of an 8 MB flood, {count} sessions at once, {COLS}x{ROWS}"
    );
    let half = Payload::Plain.generate(4_000_000, usize::from(COLS), usize::from(ROWS));
    let mut bytes = half.clone();
    bytes.extend_from_slice(b"termloom-middle-needle\n");
    bytes.extend_from_slice(&half);
    let file: PathBuf = dir.join("needle.txt");
    std::fs::write(&file, &bytes).expect("write");
    let config = Config { cols: COLS, rows: ROWS, scrollback_lines: lines, ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    let empty = dir.join("empty-miss.txt");
    std::fs::write(&empty, b"").expect("write");
    let sessions: Vec<Session> = (0..count).map(|_| spawn(&engine, &empty)).collect();
    let waits: Vec<_> = sessions
        .iter()
        .map(|session| {
            let until =
                Until::any(vec![Until::text("termloom-middle-needle"), Until::text("flood-end")]);
            let wait = session.start_wait(until, TIMEOUT).expect("wait");
            session.submit(&format!("f {} flood-end", file.display())).expect("send");
            wait
        })
        .collect();
    let mut found = 0;
    for wait in waits {
        let outcome = wait.finish().expect("wait");
        let matched = outcome.matched().expect("a match");
        if matched.text == "termloom-middle-needle" {
            found += 1;
        }
    }
    println!(
        "| scrollback_lines {lines}, {count} floods at once: wait(any[text(middle line), text(end line)]) | middle line seen by {found} of {count} waits |"
    );
    drop(sessions);
    engine.shutdown();
}

/// A 120x32 screen full of colours (every cell a different 256-colour background and
/// foreground, bold on every other row): the styled screen and its SVG, timed apart. Target:
/// the SVG ≤ 2 ms.
fn screenshots(dir: &Path) {
    let engine = Engine::new(Config::default()).expect("engine");
    let mut script = String::new();
    for row in 0..31 {
        for col in 0..120 {
            let colour = (row * 120 + col) % 256;
            let bold = if row % 2 == 0 { "1;" } else { "" };
            let c = (b'a' + (col % 26) as u8) as char;
            script.push_str(&format!("\x1b[{bold}38;5;{};48;5;{colour}m{c}", 255 - colour));
        }
        script.push_str("\x1b[0m\n");
    }
    let file = dir.join("colours.txt");
    std::fs::write(&file, script).expect("write");
    let line = format!("cat {}; sleep 100", file.display());
    let session =
        engine.spawn(SpawnSpec::new("sh").args(["-c", &line]).size(120, 32)).expect("spawn");
    session.wait(Until::quiet(Duration::from_millis(300)), TIMEOUT).expect("wait");
    let mut styled_times = Vec::new();
    let mut svg_times = Vec::new();
    let mut png_times = Vec::new();
    let mut bytes = 0;
    let mut png_bytes = 0;
    for _ in 0..200 {
        let (t, styled) = time(|| session.styled_screen().expect("styled"));
        styled_times.push(t);
        let (t, svg) = time(|| styled.to_svg(&termloom::SvgOptions::default()));
        svg_times.push(t);
        bytes = svg.len();
        let (t, png) = time(|| styled.to_png(&termloom::PngOptions::default()).unwrap());
        png_times.push(t);
        png_bytes = png.len();
    }
    println!(
        "| 120x32, every cell coloured: styled_screen() | p50 {:.0} µs |\n| the same: to_svg() | p50 {:.0} µs, {} KiB |",
        median(&styled_times),
        median(&svg_times),
        bytes >> 10
    );
    println!("| the same: to_png() | p50 {:.0} µs, {} KiB |", median(&png_times), png_bytes >> 10);
    drop(session);
    // 3,840 different characters the bitmap font lacks (mathematical operators, arrows and
    // CJK): the system fonts are looked through for each, once.
    let mut text = String::new();
    let symbols = (0x2190..0x2400).chain(0x4e00..0x5800).filter_map(char::from_u32);
    for (i, c) in symbols.take(120 * 31).enumerate() {
        text.push(c);
        if (i + 1) % 120 == 0 || (c >= '\u{4e00}' && (i + 1) % 60 == 0) {
            text.push('\n');
        }
    }
    let file = dir.join("symbols.txt");
    std::fs::write(&file, text).expect("write");
    let line = format!("cat {}; sleep 100", file.display());
    let session =
        engine.spawn(SpawnSpec::new("sh").args(["-c", &line]).size(120, 32)).expect("spawn");
    session.wait(Until::quiet(Duration::from_millis(300)), TIMEOUT).expect("wait");
    let styled = session.styled_screen().expect("styled");
    let (first, _) = time(|| styled.to_png(&termloom::PngOptions::default()).unwrap());
    let warm: Vec<f64> = (0..50)
        .map(|_| time(|| styled.to_png(&termloom::PngOptions::default()).unwrap()).0)
        .collect();
    println!(
        "| 120x32 of symbols and CJK the bitmap font lacks: to_png(), system fonts | first {first:.0} µs (fonts found and read), then p50 {:.0} µs |",
        median(&warm)
    );
    drop(session);
    engine.shutdown();
}

fn main() {
    header("views");
    let dir = TempDir::new("views");
    let started = Instant::now();
    if selected("calls") {
        calls(dir.path());
    }
    if selected("flood") {
        floods(dir.path());
    }
    if selected("screenshot") {
        screenshots(dir.path());
    }
    if selected("miss") {
        miss(dir.path(), Config::default().scrollback_lines, 20);
        miss(dir.path(), 1000, 10);
    }
    println!();
    println!("measured in {:.1} s; {}", started.elapsed().as_secs_f64(), load());
}
