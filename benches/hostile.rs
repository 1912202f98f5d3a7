//! Fairness beside hostile output: a neighbour's keystroke round trip (send one character to
//! `cat`, wait until it is on the screen) while another session of the same engine floods
//! its terminal, for each hostile case of the hostile-output issue and for plain `yes`
//! floods, which are the baseline measured in the same run.
//!
//! Target: beside any hostile flood, the neighbour's p99 is no worse than beside a plain
//! `yes` flood (ratios printed; 1.0 or less is met, a margin of 1.5 is allowed for the noise
//! of a shared machine). The reactor's fairness is counted in work (cells), not bytes, so a
//! flood of `CSI 65535 b` (8 bytes, 65,535 cells) gets turns as short as a flood of text.
//!
//! ```text
//! cargo bench --bench hostile
//! ```
//! `TERMLOOM_BENCH_SAMPLES` (default 300) sets the samples per case; a filter argument selects
//! cases by name.

mod support;

use std::time::{Duration, Instant};

use support::*;
use termloom::{Config, Engine, Session, SpawnSpec, Until};

const COLS: u16 = 120;
const ROWS: u16 = 32;
const TIMEOUT: Duration = Duration::from_secs(30);

/// The floods: a name and a shell command that writes forever.
const FLOODS: [(&str, &str); 11] = [
    ("yes (2-byte lines)", "exec yes"),
    (
        "yes (100-character lines)",
        "exec yes yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    ),
    ("REP: x ESC[65535b per line", r"exec yes $(printf 'x\033[65535b')"),
    ("erase screen: ESC[2J per line", r"exec yes $(printf '\033[2J')"),
    ("keyboard-mode pushes", r"yes $(printf '\033[>1u') | tr -d '\n'"),
    (
        "title pushes",
        r"printf '\033]2;%s\007' $(head -c 4000 /dev/zero | tr '\0' t); yes $(printf '\033[22t') | tr -d '\n'",
    ),
    ("unterminated OSC", r"printf '\033]2;'; exec yes"),
    ("combining marks on one cell", r"printf a; yes $(printf '\314\201') | tr -d '\n'"),
    (
        "alternate screen in new colours",
        r"yes $(printf '\033[41m\033[?1049h\033[?1049l\033[44m\033[?1049h\033[?1049l') | tr -d '\n'",
    ),
    ("resets: ESC c", r"yes $(printf '\033c') | tr -d '\n'"),
    (
        "clipboard queries, answers unread",
        r#"c=$(head -c 600000 /dev/zero | tr '\0' a | base64 | tr -d '\n'); printf '\033]52;c;%s\007' "$c"; yes "$(printf '\033]52;c;?\007')" | tr -d '\n'"#,
    ),
];

/// A `cat` session whose cursor is at the top-left corner, reading its terminal.
fn cat_session(engine: &Engine) -> Session {
    let session = engine.spawn(SpawnSpec::new("cat").size(COLS, ROWS)).expect("spawning cat");
    let outcome = session.wait(Until::input_wait(), TIMEOUT).expect("waiting");
    assert!(outcome.matched().is_some(), "cat did not start: {outcome}");
    session
}

/// One keystroke's round trip: `^U` clears the line first (not timed), so the row to wait for
/// is always the one character.
fn keystroke(cat: &Session, i: usize) -> f64 {
    let c = (b'a' + (i % 26) as u8) as char;
    cat.send_bytes(b"\x15").expect("send");
    let started = Instant::now();
    cat.send_text(&c.to_string()).expect("send");
    let outcome = cat.wait(Until::screen_row_contains(0, c.to_string()), TIMEOUT).expect("wait");
    let elapsed = started.elapsed();
    assert!(outcome.matched().is_some(), "no echo: {outcome}");
    us(elapsed)
}

fn main() {
    header("hostile");
    let samples = env_usize("TERMLOOM_BENCH_SAMPLES", 300);
    println!(
        "{samples} keystrokes per case, terminal {COLS}x{ROWS}; the flood runs in another session of the same engine"
    );
    let engine = Engine::new(Config::default()).expect("engine starts");
    let cat = cat_session(&engine);
    // Warm up.
    for i in 0..50 {
        keystroke(&cat, i);
    }
    let mut baseline = None;
    println!(
        "  {:<32} {:>10} {:>10} {:>10} {:>12} {:>12}",
        "beside", "p50 µs", "p99 µs", "max µs", "MB flooded", "p99 / yes"
    );
    for (name, command) in FLOODS {
        if !selected(name) {
            continue;
        }
        let flood = engine
            .spawn(SpawnSpec::new("sh").args(["-c", command]).size(COLS, ROWS))
            .expect("spawning the flood");
        // Let the flood reach its steady state.
        std::thread::sleep(Duration::from_millis(300));
        let before = flood.info().map(|i| i.bytes_out).unwrap_or(0);
        let times: Vec<f64> = (0..samples).map(|i| keystroke(&cat, i)).collect();
        let flooded = flood.info().map(|i| i.bytes_out).unwrap_or(0) - before;
        let _ = flood.close();
        let p99 = percentile(&times, 99.0);
        let base = *baseline.get_or_insert(p99);
        println!(
            "  {:<32} {:>10.1} {:>10.1} {:>10.0} {:>12.1} {:>12.2}",
            name,
            percentile(&times, 50.0),
            p99,
            max(&times),
            flooded as f64 / 1e6,
            p99 / base
        );
    }
    println!("{}", load());
    let _ = cat.close();
}
