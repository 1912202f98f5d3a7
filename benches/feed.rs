//! In-process cost of the emulation stages, no PTY: each payload of the throughput benchmark
//! is fed from memory (64 KiB chunks, like the reactor's reads) through stages that add, one
//! at a time, what termloom's feed path does on top of a bare alacritty `Term`, and then
//! through termloom's real feed path. CPU MB/s of one thread, median of several repetitions:
//!
//! - `bare`: `Processor::advance` into a `Term` with no history (the emulator baseline);
//! - `sliced`: the same in slices of at most 1,968 printable bytes (the scanner's line budget,
//!   found here by a stand-in for the scanner);
//! - `history`: a `Term` with a 2,000-line history fed in those slices, the history cleared
//!   after each slice (no text read);
//! - `rows`: the same, and every history row turned into text first (termloom's own
//!   `row_text`, through the hidden `termloom::fuzzing` module);
//! - `transcript`: the same, and every line stored in a 10,000-line bounded deque of `String`s;
//! - `termloom`: termloom's whole feed path (scanner, rules, emulator, transcript), as the
//!   reactor runs it, without the PTY.
//!
//! ```text
//! cargo bench --bench feed [-- PAYLOAD]
//! ```
//! `TERMLOOM_BENCH_MB` (default 8) sets the payload size, `TERMLOOM_BENCH_REPS` (default 5) the
//! repetitions. `TERMLOOM_FEED_STAGE=N` runs only the N-th stage (0 = bare ... 5 = termloom),
//! to count its instructions with `valgrind --tool=callgrind`:
//!
//! ```text
//! TERMLOOM_BENCH_MB=1 TERMLOOM_BENCH_REPS=1 TERMLOOM_FEED_STAGE=4 \
//!   valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/deps/feed-HASH plain
//! ```

mod support;

use std::collections::VecDeque;
use std::time::Instant;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::Flags;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{Config as TermConfig, Term};
use alacritty_terminal::vte::ansi::Processor;
use support::*;
use termloom::fuzzing::{Feeder, row_text};

const COLS: usize = 120;
const ROWS: usize = 32;
const GRID_HISTORY: usize = 2000;
const CHUNK: usize = 64 << 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Bare,
    Sliced,
    History,
    Rows,
    Transcript,
    Termloom,
}

const STAGES: [Stage; 6] =
    [Stage::Bare, Stage::Sliced, Stage::History, Stage::Rows, Stage::Transcript, Stage::Termloom];

/// The length of the next slice: like the scanner's line budget, every byte outside an escape
/// sequence counts one line, and runs of plain bytes are skipped with `memchr` (a stand-in for
/// src/scan.rs, which also tracks OSC and string sequences).
fn next_slice(bytes: &[u8], budget: usize) -> usize {
    let mut lines = 0;
    let mut i = 0;
    while i < bytes.len() {
        let run = memchr::memchr(0x1b, &bytes[i..]).unwrap_or(bytes.len() - i);
        let take = run.min(budget - lines);
        lines += take;
        i += take;
        if lines >= budget || i == bytes.len() {
            return i;
        }
        // An escape sequence: ESC, then up to its final byte.
        i += 1;
        if bytes.get(i) == Some(&b'[') {
            i += 1;
        }
        while i < bytes.len() && !(0x40..=0x7e).contains(&bytes[i]) {
            i += 1;
        }
        i += 1;
    }
    bytes.len()
}

struct Store {
    lines: VecDeque<String>,
    pending: String,
}

fn feed(stage: Stage, payload: &[u8]) -> f64 {
    if stage == Stage::Termloom {
        let mut feeder = Feeder::new(COLS as u16, ROWS as u16);
        let started = Instant::now();
        for chunk in payload.chunks(CHUNK) {
            feeder.feed(chunk);
        }
        let secs = started.elapsed().as_secs_f64();
        std::hint::black_box(feeder.settled_lines());
        return payload.len() as f64 / secs / 1e6;
    }
    let history = if stage <= Stage::Sliced { 0 } else { GRID_HISTORY };
    let config = TermConfig { scrolling_history: history, ..TermConfig::default() };
    let mut term = Term::new(config, &TermSize::new(COLS, ROWS), VoidListener);
    let mut parser: Processor = Processor::new();
    let mut store = Store { lines: VecDeque::new(), pending: String::new() };
    let mut text = String::new();
    let started = Instant::now();
    for chunk in payload.chunks(CHUNK) {
        if stage == Stage::Bare {
            parser.advance(&mut term, chunk);
            continue;
        }
        let mut rest = chunk;
        while !rest.is_empty() {
            let n = next_slice(rest, GRID_HISTORY - ROWS);
            parser.advance(&mut term, &rest[..n]);
            rest = &rest[n..];
            let grid = term.grid();
            let lines = grid.history_size();
            if lines == 0 {
                continue;
            }
            if stage >= Stage::Rows {
                for back in (1..=lines).rev() {
                    let row = &grid[Line(-(back as i32))];
                    text.clear();
                    row_text(row, &mut text);
                    if stage >= Stage::Transcript {
                        let wrapped = row[Column(row.len() - 1)].flags.contains(Flags::WRAPLINE);
                        store.pending.push_str(&text);
                        if !wrapped {
                            store.lines.push_back(std::mem::take(&mut store.pending));
                            if store.lines.len() > 10_000 {
                                store.lines.pop_front();
                            }
                        }
                    }
                }
            }
            term.grid_mut().clear_history();
        }
    }
    let secs = started.elapsed().as_secs_f64();
    std::hint::black_box(&store.lines);
    std::hint::black_box(term.grid().screen_lines());
    payload.len() as f64 / secs / 1e6
}

fn main() {
    header("feed (in-process, no PTY)");
    let mb = env_usize("TERMLOOM_BENCH_MB", 8);
    let reps = env_usize("TERMLOOM_BENCH_REPS", 5);
    // One stage only (its position in the table, from 0): for counting instructions under
    // `valgrind --tool=callgrind`, which a busy machine cannot disturb.
    let only: Option<usize> =
        std::env::var("TERMLOOM_FEED_STAGE").ok().and_then(|v| v.parse().ok());
    println!(
        "payload size {mb} MB, {reps} repetitions, terminal {COLS}x{ROWS}, CPU MB/s of one thread"
    );
    println!();
    println!(
        "| payload | bare | sliced | history | rows | transcript | transcript / bare | termloom | termloom / bare |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let started = Instant::now();
    for payload in Payload::ALL.into_iter().filter(|p| selected(p.name())) {
        let bytes = payload.generate(mb * 1_000_000, COLS, ROWS);
        let mut results = vec![Vec::new(); STAGES.len()];
        if only.is_none() {
            feed(Stage::Bare, &bytes);
        }
        for _ in 0..reps {
            for (s, stage) in STAGES.iter().enumerate() {
                if only.is_some_and(|o| o != s) {
                    results[s].push(f64::NAN);
                    continue;
                }
                results[s].push(feed(*stage, &bytes));
            }
        }
        let med: Vec<f64> = results.iter().map(|r| median(r)).collect();
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} |",
            payload.name(),
            med[0],
            med[1],
            med[2],
            med[3],
            med[4],
            med[4] / med[0],
            med[5],
            med[5] / med[0]
        );
    }
    println!();
    println!("measured in {:.1} s; {}", started.elapsed().as_secs_f64(), load());
}
