//! Where an idle session's memory goes: heap bytes counted by a counting global allocator
//! (live bytes, so freed memory is not counted), for
//!
//! - `grids`: a bare alacritty `Term` of 120×32 with no history (its two grids, primary and
//!   alternate, and the rest of a `Term`);
//! - `terminal`: termloom's `Terminal` of the same size (the `Term` with its 2,000-line history
//!   setting, the parser, the scanner and rules, the transcript), fed a shell prompt;
//! - `session`: a whole session in an engine (the above plus the reactor's slot, the PTY's
//!   registration and everything the engine keeps per session), an idle `sh` showing its
//!   prompt; measured over `TERMLOOM_BENCH_SESSIONS` sessions (default 100) and divided, and
//!   also as resident memory (this process's VmRSS before and after).
//!
//! Heap bytes count what was asked for, touched or not: vte's `Processor` asks for a 2 MiB
//! buffer for synchronized updates that termloom never lets it use (the scanner holds mode
//! 2026 itself), so it is in the heap figures and, but for the page malloc writes its header
//! to, not in the resident one.
//!
//! ```text
//! cargo bench --bench memory
//! ```

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use support::*;
use termloom::{Config, Engine, SpawnSpec, Until};

/// Counts the bytes live on the heap.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call goes to the system allocator with the caller's arguments; the counter
// is only arithmetic on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const COLS: u16 = 120;
const ROWS: u16 = 32;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn kib(bytes: isize) -> f64 {
    bytes as f64 / 1024.0
}

fn main() {
    header("memory");
    let count = env_usize("TERMLOOM_BENCH_SESSIONS", 100);
    let cell = std::mem::size_of::<alacritty_terminal::term::cell::Cell>();
    let grid = usize::from(COLS) * usize::from(ROWS) * cell;
    println!(
        "one {COLS}x{ROWS} grid of {cell}-byte cells: {:.1} KiB (a Term holds two)",
        grid as f64 / 1024.0
    );

    let before = live();
    let terms: Vec<_> = (0..count).map(|_| bare_term(COLS, ROWS)).collect();
    let bare = (live() - before) / count as isize;
    drop(terms);

    let before = live();
    let terminals: Vec<_> = (0..count)
        .map(|_| {
            let mut feeder = termloom::fuzzing::Feeder::new(COLS, ROWS);
            feeder.feed(b"$ ");
            feeder
        })
        .collect();
    let terminal = (live() - before) / count as isize;
    drop(terminals);

    let engine = Engine::new(Config { max_sessions: count + 10, ..Config::default() }).unwrap();
    // The reactor's own buffers are made on its first requests: one session first.
    let first = engine.spawn(SpawnSpec::new("sh").env("PS1", "$ ")).unwrap();
    first.wait(Until::screen_contains("$"), Duration::from_secs(60)).unwrap();
    let (before, rss_before) = (live(), vm_rss_kib());
    let sessions: Vec<_> = (0..count)
        .map(|_| engine.spawn(SpawnSpec::new("sh").env("PS1", "$ ").size(COLS, ROWS)).unwrap())
        .collect();
    for session in &sessions {
        session.wait(Until::screen_contains("$"), Duration::from_secs(60)).unwrap();
    }
    let session = (live() - before) / count as isize;
    let rss = (vm_rss_kib() - rss_before) as f64 / count as f64;
    println!("| per {COLS}x{ROWS} session | heap KiB |");
    println!("|---|---:|");
    println!("| bare alacritty `Term` (two grids and the rest) | {:.1} |", kib(bare));
    println!("| the two grids alone | {:.1} |", kib(2 * grid as isize));
    println!(
        "| termloom's `Terminal` (Term, parser, scanner, transcript) | {:.1} |",
        kib(terminal)
    );
    println!("| a whole idle session (`sh` at its prompt) | {:.1} |", kib(session));
    println!("| the same, resident (VmRSS delta / {count}) | {rss:.1} |");
    println!(
        "| termloom's own: session − bare `Term` | {:.1} (Terminal's part {:.1}) |",
        kib(session - bare),
        kib(terminal - bare)
    );
    engine.shutdown();
}
