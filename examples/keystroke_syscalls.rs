//! The driver BENCHMARKS §14 counts the reactor's system calls per keystroke with: one
//! session at 120×32, 20 keystrokes of warm-up, then `KEYS` typed one a request with
//! `send_keys_and_wait`, between a `stat` of `DIR/keystrokes-start` and one of
//! `DIR/keystrokes-end` (marks in the trace); it prints the reactor thread's id.
//!
//! `PROGRAM` is `cat` (`x` and Backspace in turn, each waited for at the cursor), `bash`
//! (`bash --norc` with shell integration, at its prompt, the same keys), `vim` (`vim -u NONE
//! -N` in insert mode, the same keys) or `input-wait` (`cat`, a letter waited for with
//! `Until::input_wait`).
//!
//! Run it under strace, then count the reactor thread's calls between the marks:
//!
//! ```sh
//! cargo build --release --example keystroke_syscalls
//! mkdir -p /tmp/ks && strace -f -qq -o /tmp/ks/trace.txt \
//!     target/release/examples/keystroke_syscalls /tmp/ks cat 400 | tee /tmp/ks/out.txt
//! tid=$(sed -n 's/^reactor thread //p' /tmp/ks/out.txt)
//! sed -n '/keystrokes-start/,/keystrokes-end/p' /tmp/ks/trace.txt \
//!     | awk '/<unfinished \.\.\.>$/ { sub(/ *<unfinished \.\.\.>$/, ""); u[$1] = $0; next }
//!            $2 == "<..." { t = $1; sub(/^[0-9]+ +<\.\.\. [a-z_0-9]+ resumed>/, ""); $0 = u[t] $0 }
//!            1' \
//!     | grep "^$tid " \
//!     | sed 's/^[0-9]* *\([a-z_0-9]*\)(\(.*\)/\1 \2/; s/^ioctl [0-9]*, \([A-Z0-9]*\).*/ioctl:\1/; s/ .*//' \
//!     | sort | uniq -c
//! ```
//!
//! (Divide by `KEYS`. A call strace split in two lines while another thread's went on,
//! `ioctl(5, FIONREAD <unfinished ...>` then `<... ioctl resumed>, [0]) = 0`, is joined by
//! thread id first: counted alone, its second line landed in a bucket named by the thread
//! id. `ioctl` lines are counted by request: `ioctl:FIONREAD`, `ioctl:TCGETS2`,
//! `ioctl:TIOCGPGRP`.)

use std::path::Path;
use std::time::Duration;

use termloom::{Config, Engine, Session, SpawnSpec, Until};

/// How long a keystroke's answer may take.
const ANSWER: Duration = Duration::from_secs(10);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, program, keys] = args.as_slice() else {
        return Err("usage: keystroke_syscalls DIR cat|bash|vim|input-wait KEYS".into());
    };
    let keys: usize = keys.parse()?;
    let engine = Engine::new(Config::default())?;
    let spec = match program.as_str() {
        "cat" | "input-wait" => SpawnSpec::new("cat"),
        "bash" => SpawnSpec::new("bash").args(["--norc"]).shell_integration(true),
        "vim" => SpawnSpec::new("vim").args(["-u", "NONE", "-N"]),
        other => return Err(format!("no such program: {other}").into()),
    };
    let session = engine.spawn(spec.size(120, 32))?;
    session.wait(Until::input_wait(), ANSWER)?;
    if program == "vim" {
        session.send_keys_and_wait("i", Until::screen_contains("-- INSERT --"), ANSWER)?;
    }
    let cursor = session.screen()?.cursor;
    let key = |i: usize| type_key(&session, program, i, (cursor.row, cursor.col));
    (0..20).try_for_each(key)?;
    let _ = std::fs::metadata(Path::new(dir).join("keystrokes-start"));
    (20..20 + keys).try_for_each(key)?;
    let _ = std::fs::metadata(Path::new(dir).join("keystrokes-end"));
    let reactor = std::fs::read_dir("/proc/self/task")?.flatten().find(|task| {
        std::fs::read_to_string(task.path().join("comm"))
            .is_ok_and(|comm| comm.starts_with("termloom-reac"))
    });
    println!(
        "reactor thread {}",
        reactor.ok_or("no reactor thread")?.file_name().to_string_lossy()
    );
    Ok(())
}

/// Types keystroke `i` into `session` and waits for its answer; `(row, col)` is where the
/// cursor stood before the first.
fn type_key(
    session: &Session,
    program: &str,
    i: usize,
    (row, col): (u16, u16),
) -> Result<(), Box<dyn std::error::Error>> {
    let outcome = if program == "input-wait" {
        session.send_keys_and_wait("x", Until::input_wait(), ANSWER)?
    } else {
        let (script, at) = if i.is_multiple_of(2) { ("x", col + 1) } else { ("<BS>", col) };
        session.send_keys_and_wait(script, Until::cursor_at(row, at), ANSWER)?
    };
    match outcome.matched() {
        Some(_) => Ok(()),
        None => Err(format!("keystroke {i} unanswered: {outcome}").into()),
    }
}
