//! Replays every saved fuzz input on the stable toolchain: each file of `fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/` goes through the function its fuzz target calls, under
//! `catch_unwind`, and a test fails listing every input that panicked, with the panic's message
//! and location. Timed fuzzing (nightly, cargo-fuzz) is `fuzz/run`; see RELIABILITY.md.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Instant;

thread_local! {
    /// While an input is replayed on this thread: where its panic, if any, is recorded.
    static REPLAYING: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records the panics of replayed inputs (message and location) instead of printing them; any
/// other panic (a failed assertion of this file) goes to the default hook.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let recorded = REPLAYING.with(|slot| match slot.borrow_mut().as_mut() {
                Some(message) => {
                    *message = info.to_string().replace('\n', " ");
                    true
                }
                None => false,
            });
            if !recorded {
                default(info);
            }
        }));
    });
}

/// The saved inputs of one target, sorted by path.
fn inputs(target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir).join(target)) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Runs every saved input of `target` through `run`; fails listing each one that panicked.
fn replay(target: &str, run: fn(&[u8])) {
    install_hook();
    let files = inputs(target);
    assert!(!files.is_empty(), "no saved inputs for {target} in fuzz/corpus/{target}/");
    let start = Instant::now();
    let mut panicked = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        REPLAYING.with(|slot| *slot.borrow_mut() = Some(String::new()));
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| run(&data)));
        let message = REPLAYING.with(|slot| slot.borrow_mut().take()).unwrap_or_default();
        if outcome.is_err() {
            let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path);
            panicked.push(format!("{}: {message}", name.display()));
        }
    }
    assert!(
        panicked.is_empty(),
        "{} of {} saved {target} inputs panicked:\n{}",
        panicked.len(),
        files.len(),
        panicked.join("\n")
    );
    eprintln!("{target}: {} inputs replayed in {:?}", files.len(), start.elapsed());
}

/// Saved inputs stay small (seeds scale huge repros down), so the replay stays fast.
#[test]
fn saved_inputs_are_small() {
    let targets = [
        "feed_terminal",
        "decode_escapes",
        "key_script",
        "mcp_message",
        "config_toml",
        "spawn_policy",
        "screen_diff",
    ];
    let too_big: Vec<String> = targets
        .iter()
        .flat_map(|target| inputs(target))
        .filter(|path| std::fs::metadata(path).unwrap().len() > 64 << 10)
        .map(|path| path.display().to_string())
        .collect();
    assert!(too_big.is_empty(), "saved fuzz inputs over 64 KiB:\n{}", too_big.join("\n"));
}

#[test]
fn feed_terminal_corpus() {
    replay("feed_terminal", termloom::fuzzing::feed_terminal);
}

#[test]
fn decode_escapes_corpus() {
    replay("decode_escapes", termloom::fuzzing::decode_escapes);
}

#[test]
fn key_script_corpus() {
    replay("key_script", termloom::fuzzing::key_script);
}

#[test]
fn mcp_message_corpus() {
    replay("mcp_message", termloom::fuzzing::mcp_message);
}

#[test]
fn config_toml_corpus() {
    replay("config_toml", termloom::fuzzing::config_toml);
}

#[test]
fn spawn_policy_corpus() {
    replay("spawn_policy", termloom::fuzzing::spawn_policy);
}

#[test]
fn screen_diff_corpus() {
    replay("screen_diff", termloom::fuzzing::screen_diff);
}
