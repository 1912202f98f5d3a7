//! Hostile output: nothing a program prints may panic the reactor, grow memory past a bound,
//! or lose lines; and a panic in one session's code path ends that session only.
//!
//! Memory bounds are measured in a child process (the `termloom` command-line tool, run under
//! a small Python wrapper that reports its children's peak RSS), so tests running in parallel
//! in this process do not blur the figure.

mod common;

use std::process::Command;
use std::time::Duration;

use common::*;
use termloom::{Engine, Session, SessionState, SpawnSpec, Until};

const TERMLOOM: &str = env!("CARGO_BIN_EXE_termloom");

/// The peak RSS, in KiB, of `termloom run --wait-exit -- sh -c script`, which must succeed
/// (measured by python3: the tests that call it require it).
fn peak_rss_kib(script: &str) -> u64 {
    peak_rss_kib_at("120x32", script)
}

/// [`peak_rss_kib`] in a terminal of `size` (`COLSxROWS`).
fn peak_rss_kib_at(size: &str, script: &str) -> u64 {
    peak_rss_kib_of(&["--size", size, "--wait-exit"], script)
}

/// The peak RSS, in KiB, of `termloom run --timeout 120000 ARGS -- sh -c script`.
fn peak_rss_kib_of(args: &[&str], script: &str) -> u64 {
    let wrapper = "import resource, subprocess, sys\n\
                   done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n\
                   print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let out = Command::new("python3")
        .args(["-c", wrapper, TERMLOOM, "run", "--timeout", "120000"])
        .args(args)
        .args(["--", "sh", "-c", script])
        .output()
        .expect("python3 runs");
    let report = String::from_utf8_lossy(&out.stdout);
    let mut fields = report.split_whitespace();
    let code: i32 = fields.next().and_then(|f| f.parse().ok()).unwrap_or(-1);
    assert_eq!(code, 0, "termloom run failed: {report} {}", String::from_utf8_lossy(&out.stderr));
    fields.next().and_then(|f| f.parse().ok()).expect("the peak RSS")
}

/// The peak RSS of a run that prints little: the baseline every bound is measured against.
fn baseline_kib() -> u64 {
    peak_rss_kib("echo hello")
}

/// Asserts that `script`'s run stays within `allowance` KiB above the baseline.
fn assert_bounded(script: &str, allowance: u64, what: &str) {
    let baseline = baseline_kib();
    let peak = peak_rss_kib(script);
    eprintln!("{what}: peak RSS {peak} KiB, baseline {baseline} KiB");
    assert!(
        peak <= baseline + allowance,
        "{what}: peak RSS {peak} KiB, baseline {baseline} KiB, allowance {allowance} KiB"
    );
}

#[test]
fn an_unterminated_osc_string_is_not_buffered_past_max_osc_bytes() {
    if !require("python3") {
        return;
    }
    // 100 MB of OSC payload, never terminated; the bound is 1 MiB (held) + 1 MiB (parser).
    assert_bounded(
        r"printf '\033]2;'; head -c 100000000 /dev/zero | tr '\0' a",
        8 << 10,
        "unterminated OSC",
    );
}

#[test]
fn the_title_stack_is_bounded() {
    if !require("python3") {
        return;
    }
    // A 100 KiB title is over max_title_bytes (dropped); a 4000-byte one then pushed 4096
    // times keeps max_title_stack (16) copies.
    assert_bounded(
        r#"big=$(head -c 100000 /dev/zero | tr '\0' t); printf '\033]2;%s\007' "$big"
t=$(head -c 4000 /dev/zero | tr '\0' t); printf '\033]2;%s\007' "$t"
i=0; while [ $i -lt 4096 ]; do printf '\033[22t'; i=$((i+1)); done"#,
        8 << 10,
        "title stack",
    );
}

#[test]
fn combining_marks_on_one_cell_are_bounded() {
    if !require("python3") {
        return;
    }
    // 20 million combining acute accents on one cell (80 MB of marks before the bound).
    assert_bounded(
        r"printf a; yes $(printf '\314\201') | tr -d '\n' | head -c 40000000",
        8 << 10,
        "combining marks",
    );
}

/// Rows scrolled off and recorded are cleared at once: alacritty keeps up to a thousand of
/// them for reuse, and their cells kept their hyperlinks (a 2 KB link on every cell made
/// 185 MB at 80x24). Here 3,000 rows of 20 cells, each with its own 2,000-byte link (120 MB):
/// 51 MB before, within 8 MiB of the baseline after.
#[test]
fn hyperlinks_of_rows_scrolled_off_are_not_kept() {
    if !require("python3") {
        return;
    }
    let script = r#"python3 -c 'import sys
link = b"u" * 2000
out = sys.stdout.buffer
for r in range(3000):
    out.write(b"".join(b"\x1b]8;id=%d;http://%s\x1b\\X\x1b]8;;\x1b\\" % (r * 20 + c, link) for c in range(20)) + b"\r\n")
out.flush()'"#;
    let baseline = peak_rss_kib_at("20x5", "echo hello");
    let peak = peak_rss_kib_at("20x5", script);
    eprintln!("hyperlinks: peak RSS {peak} KiB, baseline {baseline} KiB");
    assert!(peak <= baseline + (16 << 10), "peak RSS {peak} KiB, baseline {baseline} KiB");
}

/// Narrowing a full 1000x500 screen to 2 columns reflows it in steps: in one step alacritty
/// moved 125 million cells (2.4 s on the reactor) and left 2.8 GB allocated (6.7 s and
/// 2,966 MB for this run); in steps, 1 s and about 60 MB.
#[test]
fn narrowing_a_full_screen_to_two_columns_costs_little() {
    if !require("python3") {
        return;
    }
    let script = r"python3 -c 'import sys
sys.stdout.write((chr(65) * 100000 + chr(10)) * 50 + chr(10) + 42 * chr(46) + chr(10))
sys.stdout.flush()'; exec sleep 100";
    let args = ["--size", "1000x500", "--wait-text", &".".repeat(42), "--resize", "2x1"];
    let peak = peak_rss_kib_of(&[&args[..], &["--resize", "1000x500"]].concat(), script);
    let baseline = baseline_kib();
    eprintln!("narrowing: peak RSS {peak} KiB, baseline {baseline} KiB");
    assert!(peak <= baseline + (256 << 10), "peak RSS {peak} KiB, baseline {baseline} KiB");
}

#[test]
fn clipboard_queries_cost_no_more_than_the_input_queue_holds() {
    if !require("python3") {
        return;
    }
    // A 600 KB clipboard (OSC 52), then 3,000 queries of 9 bytes each: every answer is
    // 800 KB of base64. Answers beyond the room in the input queue (1 MiB) are dropped
    // before they are made; they once piled up in the turn (gigabytes) and took minutes.
    assert_bounded(
        r#"c=$(head -c 600000 /dev/zero | tr '\0' a | base64 | tr -d '\n')
printf '\033]52;c;%s\007' "$c"
yes "$(printf '\033]52;c;?\007')" | head -n 3000 | tr -d '\n'"#,
        16 << 10,
        "clipboard queries",
    );
}

#[test]
fn keyboard_mode_floods_do_not_take_the_engine_down() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let bystander = bash(&engine);
    let flood = engine
        .spawn(SpawnSpec::new("sh").args([
            "-c",
            r"i=0; while [ $i -lt 5000 ]; do printf '\033[>1u'; i=$((i+1)); done; echo flooded; read x",
        ]))
        .unwrap();
    expect(&flood, Until::text("flooded"));
    assert!(flood.info().unwrap().dropped_sequences >= 5000 - 256);
    assert_eq!(flood.screen().unwrap().modes.kitty_keyboard, 1);
    bystander.submit("echo still here").unwrap();
    expect(&bystander, Until::regex("^still here$").unwrap());
    flood.close().unwrap();
    bystander.close().unwrap();
}

/// The CPU seconds (user and system) of `termloom run ARGS -- python3 -c code`, its program
/// included (measured by python3: the tests that call it require it).
fn cpu_seconds_of(args: &[&str], code: &str) -> f64 {
    let wrapper = "import resource, subprocess, sys\n\
                   subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n\
                   used = resource.getrusage(resource.RUSAGE_CHILDREN)\n\
                   print(used.ru_utime + used.ru_stime)";
    let out = Command::new("python3")
        .args(["-c", wrapper, TERMLOOM, "run"])
        .args(args)
        .args(["--", "python3", "-c", code])
        .output()
        .expect("python3 runs");
    let report = String::from_utf8_lossy(&out.stdout);
    report.trim().parse().unwrap_or_else(|_| panic!("no CPU time: {report}"))
}

/// A python3 program for a 1000x500 terminal: it fills the screen with `e` and three acute
/// accents a cell (where building the screen's text costs most), prints `ready`, waits for a
/// line of input when `after_a_line`, then for `seconds` writes one byte every `gap` seconds
/// in place (nothing scrolls), prints `done` on row 3 and sleeps.
fn trickle_on_marks(after_a_line: bool, gap: f64, seconds: u32) -> String {
    let wait = if after_a_line { "sys.stdin.readline()" } else { "" };
    format!(
        r#"
import os, sys, time
out = sys.stdout.buffer
for row in range(500):
    out.write(b"\033[%d;1H" % (row + 1) + ("e\u0301\u0301\u0301" * 999).encode())
out.write(b"\033[1;1Hready")
out.flush()
{wait}
end = time.time() + {seconds}
n = 0
while time.time() < end:
    os.write(1, b"\033[2;1H" + (b"x" if n % 2 else b"y"))
    n += 1
    time.sleep({gap})
os.write(1, b"\033[3;1Hdone")
time.sleep(60)
"#
    )
}

/// A python3 program for a 500x200 terminal: it fills the primary screen with text, takes
/// the alternate screen and leaves it again `toggles` times (`CSI ? 1049 h`, `CSI ? 1049 l`,
/// 16 bytes a toggle, nothing drawn between), prints `done` and exits.
fn toggles_of_the_alternate_screen(toggles: usize) -> String {
    format!(
        r#"
import sys
out = sys.stdout.buffer
for row in range(200):
    out.write(b"\033[%d;1H" % (row + 1) + b"row %d " % row + b"x" * 490)
out.write(b"\033[?1049h\033[?1049l" * {toggles})
out.write(b"\033[1;1Hdone")
out.flush()
"#
    )
}

/// Each time a program took the alternate screen, the primary screen it hid was rendered
/// twice (its lines down to the cursor and to its last row with text, which reads take while
/// it is up), uncounted in the turn's work: 2,000 toggles of a filled 500x200 screen (32 KB)
/// took 7.5 s of CPU in a debug build, 0.5 s in a release one (0.06 s without the toggles).
/// A screen unchanged since it was last hidden is not rendered again, and each render counts
/// as work. 20,000 toggles now cost under 2 s of CPU in a debug build on the machine this
/// was written on, 2.4 s on a slower one (6 December, the same code): the bound is 8 s, a
/// tenth of the 75 s they cost before in a debug build, so that no slow machine fails it.
#[test]
fn taking_the_alternate_screen_again_and_again_costs_little() {
    if !require("python3") {
        return;
    }
    let run = |toggles: usize| {
        let args = ["--size", "500x200", "--timeout", "120000"];
        cpu_seconds_of(&args, &toggles_of_the_alternate_screen(toggles))
    };
    let toggled = run(20_000);
    let plain = run(0);
    eprintln!("CPU: {toggled:.2} s with 20,000 toggles, {plain:.2} s without");
    assert!(
        toggled < plain + 8.0,
        "20,000 toggles of the alternate screen cost {:.2} s of CPU",
        toggled - plain
    );
}

/// A session whose 1000x500 screen is full of cells of three combining marks, written once:
/// a wait on its screen text costs a costly look (0.2-0.6 s in a debug build) each time.
fn screen_of_marks(engine: &Engine) -> Session {
    let marks = trickle_on_marks(false, 0.01, 0);
    let busy =
        engine.spawn(SpawnSpec::new("python3").args(["-c", &marks]).size(1000, 500)).unwrap();
    busy.wait(Until::screen_contains("done"), Duration::from_secs(60)).unwrap();
    busy
}

/// A bash with shell integration, no startup files and the prompt `$ `, at its prompt; `ps0`
/// is its `PS0` (what it prints as a command starts).
fn marked_bash(engine: &Engine, ps0: Option<&str>) -> Session {
    let mut spec = SpawnSpec::new("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .shell_integration(true);
    if let Some(ps0) = ps0 {
        spec = spec.env("PS0", ps0);
    }
    let sh = engine.spawn(spec).unwrap();
    sh.wait(Until::prompt(), Duration::from_secs(60)).unwrap();
    sh
}

/// A wait on the screen rebuilds its text when output comes; at 1000x500 cells of combining
/// marks that took 15 ms, and a program writing a byte a millisecond kept the reactor busy
/// all the time for it (3.7 s of CPU in 4 s). Costly looks are now spaced out.
#[test]
fn a_screen_wait_beside_a_trickle_costs_a_share_of_the_reactor() {
    if !require("python3") {
        return;
    }
    // A byte a millisecond for 4 s, written in place (nothing scrolls).
    let trickle = trickle_on_marks(false, 0.001, 4);
    let run = |wait: &str, argument: &str| {
        let size = ["--size", "1000x500", "--timeout", "60000"];
        let args = [&size[..], &["--wait-screen", "ready", wait, argument]].concat();
        cpu_seconds_of(&args, &trickle)
    };
    // The same run with a wait on the screen, which holds once the trickle is over, and with
    // a wait for a second of quiet, which looks at no text.
    let watched = run("--wait-screen", "done");
    let unwatched = run("--wait-quiet", "1000");
    eprintln!("CPU: {watched:.2} s with a wait on the screen, {unwatched:.2} s without");
    assert!(
        watched < unwatched + 2.0,
        "a wait on the screen cost {:.2} s of CPU over 4 s of trickle",
        watched - unwatched
    );
}

/// A wait for a stable screen is not answered while the screen changes, however costly the
/// looks after output are: with a costly wait on the screen beside it (1000x500 cells of
/// combining marks), looks after output were put off, and the stable wait's re-check, made
/// meanwhile, took the screen as unchanged since the last look: it was answered in the middle
/// of a trickle that changed the screen every 10 ms.
#[test]
fn a_stable_wait_beside_a_costly_look_is_not_answered_while_the_screen_changes() {
    if !require("python3") {
        return;
    }
    let trickle = trickle_on_marks(true, 0.01, 3);
    let engine = engine();
    let spec = SpawnSpec::new("python3").args(["-c", &trickle]).size(1000, 500);
    let session = engine.spawn(spec).unwrap();
    let long = Duration::from_secs(60);
    session.wait(Until::screen_contains("ready"), long).unwrap();
    let costly = session.start_wait(Until::screen_contains("never shown"), long).unwrap();
    session.submit("").unwrap();
    let out = session.wait(Until::stable(Duration::from_millis(150)), long).unwrap();
    let screen = session.screen().unwrap();
    assert!(
        screen.lines[2].starts_with("done"),
        "answered as stable after {:?}, while the screen changed",
        out.elapsed
    );
    drop(costly);
    session.close().unwrap();
}

/// A wait does not time out while its answer sits unread: with a costly wait on the screen
/// beside it (1000x500 cells of combining marks), the look made when a wait for the answer to
/// a line was registered outlasted the wait's timeout; the program answered at once, but its
/// answer was still unread on the terminal when the timeout fired, right after that look, and
/// the wait timed out.
#[test]
fn a_wait_does_not_time_out_while_its_answer_sits_unread() {
    if !require("python3") {
        return;
    }
    let script = r#"
import sys
out = sys.stdout.buffer
for row in range(500):
    out.write(b"\033[%d;1H" % (row + 1) + ("e\u0301\u0301\u0301" * 999).encode())
out.write(b"\033[1;1Hready")
out.flush()
sys.stdin.readline()
out.write(b"\033[2;1Hanswer")
out.flush()
sys.stdin.readline()
"#;
    let engine = engine();
    let spec = SpawnSpec::new("python3").args(["-c", script]).size(1000, 500);
    let session = engine.spawn(spec).unwrap();
    let long = Duration::from_secs(60);
    session.wait(Until::screen_contains("ready"), long).unwrap();
    let costly = session.start_wait(Until::screen_contains("never shown"), long).unwrap();
    // What a look at this screen costs here (the screen's text, built as a look builds it);
    // the wait's timeout is half of it, time enough for the program to answer.
    let started = std::time::Instant::now();
    session.screen().unwrap();
    let timeout = started.elapsed() / 2;
    let out = session.submit_and_wait("", Until::screen_contains("answer"), timeout).unwrap();
    assert!(
        out.matched().is_some(),
        "timed out after {:?} (the program answered at once): {out}",
        out.elapsed
    );
    drop(costly);
    session.close().unwrap();
}

/// A bash with shell integration on a 1000x500 terminal whose screen is full of cells of
/// three combining marks (where building the screen's text costs most), at its prompt on the
/// last row.
fn integrated_bash_on_marks(engine: &Engine) -> Session {
    let fill = r#"
import sys
out = sys.stdout.buffer
for row in range(500):
    out.write(b"\033[%d;1H" % (row + 1) + ("e\u0301\u0301\u0301" * 999).encode())
out.write(b"\033[500;1H\n")
"#;
    let spec = SpawnSpec::new("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .env("FILL", fill)
        .shell_integration(true)
        .size(1000, 500);
    let session = engine.spawn(spec).unwrap();
    let long = Duration::from_secs(60);
    session.wait(Until::prompt(), long).unwrap();
    let filled = session.run_command("python3 -c \"$FILL\"", long).unwrap();
    assert_eq!(filled.exit_code, Some(0), "{filled:?}");
    session
}

/// A command's result is not taken for a timeout once its prompt is back: with a costly wait
/// on the screen beside it (1000x500 cells of combining marks), the look after the command's
/// output was put off (looks are spaced out by nine times their cost), and the command's
/// timeout, due before the look, answered it as timed out though its prompt had come back
/// within milliseconds.
#[test]
fn a_command_is_not_timed_out_once_its_prompt_is_back() {
    if !require("bash") || !require("python3") {
        return;
    }
    let engine = engine();
    let session = integrated_bash_on_marks(&engine);
    let long = Duration::from_secs(60);
    let costly = session.start_wait(Until::screen_contains("never shown"), long).unwrap();
    // What a look at this screen costs here (the screen's text, built as a look builds it,
    // and sent): the look after the command's first output puts the next one off by nine
    // times about that, past the command's timeout.
    let started = std::time::Instant::now();
    session.screen().unwrap();
    let timeout = started.elapsed() * 2;
    // (The prompt comes after the look its output starts: that look is made at once.)
    let done = session.run_command("echo hi; sleep 0.05", timeout).unwrap();
    assert!(!done.timed_out, "timed out after {:?}: {}", done.duration, done.status);
    assert_eq!(done.output.trim(), "hi");
    drop(costly);
    session.close().unwrap();
}

/// A prompt drawn before a line was typed is no answer to it, even when the reactor reads it
/// only after: here bash drew its prompt for `true` while costly looks at another session's
/// screen (1000x500 cells of combining marks) held the reactor, the next line was typed
/// before that prompt was read, and a wait for the prompt after it was answered by that old
/// prompt at once, with the next command still running.
#[test]
fn a_prompt_drawn_before_the_input_is_no_answer_to_it() {
    if !require("bash") || !require("python3") {
        return;
    }
    let engine = engine();
    let long = Duration::from_secs(60);
    let busy = screen_of_marks(&engine);
    // A command starts (its mark is written) half a second after its line is read, so that
    // the old prompt is read before the next command's start, however the reactor and bash
    // are scheduled once the line is typed.
    let sh = marked_bash(&engine, Some("$(sleep 0.5)"));
    // Sent without waiting for the reactor, so that the requests below are taken with it, in
    // one round: the registrations' looks at the other screen hold the reactor while bash
    // draws its prompt for `true` (a second or more), and the line after is typed then.
    let first = sh.submit_and_wait_async("true", Until::prompt(), long);
    let costly: Vec<_> = (0..4)
        .map(|_| busy.start_wait(Until::screen_contains("never shown"), long).unwrap())
        .collect();
    let out = sh.submit_and_wait("sleep 1; echo two", Until::prompt(), long).unwrap();
    assert!(out.matched().is_some(), "{out}");
    let text = sh.scrollback(1 << 20).unwrap().text;
    assert!(
        text.trim_end().ends_with("two\n$"),
        "the prompt wait was answered after {:?}, before the command ended: {:?}",
        out.elapsed,
        &text[text.len().saturating_sub(80)..]
    );
    drop((first, costly));
    sh.close().unwrap();
    busy.close().unwrap();
}

/// A command line is typed at the prompt the shell drew before it, even when the reactor has
/// not read that prompt yet: here costly looks at another session's screen held the reactor
/// while bash ran `true` and drew its next prompt, and `run_command`, taken in the same
/// round, judged the shell by the prompt before `true` (older than the last input) and
/// refused with "not at its prompt".
#[test]
fn a_command_is_typed_at_a_prompt_drawn_but_not_read_yet() {
    if !require("bash") || !require("python3") {
        return;
    }
    let engine = engine();
    let long = Duration::from_secs(60);
    let busy = screen_of_marks(&engine);
    let sh = marked_bash(&engine, None);
    // Sent without waiting for the reactor, so that they are taken in one round: the costly
    // waits' first looks hold it while bash runs `true` and draws its prompt.
    let first = sh.submit_and_wait_async("true", Until::prompt(), long);
    let costly: Vec<_> =
        (0..4).map(|_| busy.wait_async(Until::screen_contains("never shown"), long)).collect();
    let ran = futures::executor::block_on(sh.run_command_async("echo two", long));
    let ran = ran.unwrap_or_else(|err| panic!("the command was refused: {err}"));
    assert_eq!(ran.output.trim(), "two", "{ran:?}");
    drop((first, costly));
    sh.close().unwrap();
    busy.close().unwrap();
}

/// A status taken while the program's output sits unread (costly looks at another session's
/// screen held the reactor while it printed) says output is coming, not that the program has
/// been quiet since the last read.
#[test]
fn a_status_with_output_unread_is_not_quiet() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let long = Duration::from_secs(60);
    let busy = screen_of_marks(&engine);
    // The answer comes 0.3 s after the line, while the costly looks hold the reactor, however
    // the requests below fall into its rounds (read at once, it would be 1 s old by the status
    // when the status came a round after the looks).
    let spec = SpawnSpec::new("sh").args(["-c", "read x; sleep 0.3; echo answered; exec sleep 60"]);
    let sh = engine.spawn(spec).unwrap();
    sh.wait(Until::input_wait(), long).unwrap();
    // Sent without waiting for the reactor, so that the status is taken in the same round,
    // after the costly waits' first looks (a second or more), while `answered` is unread.
    let typed = sh.submit_and_wait_async("", Until::quiet(Duration::from_secs(30)), long);
    let costly: Vec<_> =
        (0..4).map(|_| busy.wait_async(Until::screen_contains("never shown"), long)).collect();
    let status = sh.status().unwrap();
    assert!(
        status.since_output < Duration::from_millis(500),
        "a status with output unread said the last output was {:?} ago ({:?})",
        status.since_output,
        status.activity
    );
    drop((typed, costly));
    sh.close().unwrap();
    busy.close().unwrap();
}

/// `sh -c script` in a terminal 1,000 columns wide (where a row's work is largest).
fn flood_at_1000_columns(engine: &Engine, script: &str) -> Session {
    engine.spawn(SpawnSpec::new("sh").args(["-c", script]).size(1000, 24)).unwrap()
}

/// A bystander's command line, typed beside a flood, is answered within 5 s (a flood whose
/// work the budget does not count takes the reactor for tens of seconds).
fn answers_beside_the_flood(bystander: &Session, i: usize) {
    let started = std::time::Instant::now();
    bystander.submit(&format!("echo still here {i}")).unwrap();
    expect(bystander, Until::regex(&format!("^still here {i}$")).unwrap());
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "a keystroke beside the flood took {took:?}");
}

#[test]
fn backward_tab_floods_do_not_starve_other_sessions() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let bystander = bash(&engine);
    // No tab stop left (`CSI 3 g`), the cursor at the last of 1,000 columns, then
    // `CSI 65535 Z` without end: alacritty scanned the row 65,535 times for each one, so one
    // turn of it took the reactor for minutes.
    let flood = flood_at_1000_columns(
        &engine,
        r"printf '\033[3g'; echo flooding; yes $(printf '\033[1000G\033[65535Z') | tr -d '\n'",
    );
    expect(&flood, Until::text("flooding"));
    for i in 0..3 {
        answers_beside_the_flood(&bystander, i);
    }
    assert!(flood.info().unwrap().state == SessionState::Running);
    flood.close().unwrap();
    bystander.close().unwrap();
}

#[test]
fn insert_mode_floods_are_counted_and_keep_their_text() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let bystander = bash(&engine);
    // Insert mode at 1,000 columns: every character shifts the rest of its row (46 times the
    // CPU of plain text per byte, which the work budget did not count).
    let flood = flood_at_1000_columns(
        &engine,
        r"printf '\033[4h'; yes abcdefghijklmnopqrstuvwxyz | head -n 4000 | tr '\n' '\r'; printf '\033[4l\r\n'; printf 'tail\r\033[4hhead->\033[4l\n'; echo done; read x",
    );
    answers_beside_the_flood(&bystander, 0);
    // 14 s in a debug build beside three builds: the budget slows such a flood on purpose.
    expect_within(&flood, Until::regex("^done$").unwrap(), Duration::from_secs(180));
    // Inserted, not overwritten: `head->` went in before `tail`.
    expect(&flood, Until::text("head->tail"));
    flood.close().unwrap();
    bystander.close().unwrap();
}

#[test]
fn the_issue_repro_through_the_command_line() {
    let out = Command::new(TERMLOOM)
        .args(["run", "--timeout", "60000", "--wait-exit", "--"])
        .args(["sh", "-c", r"printf '\033[>1u%.0s' $(seq 4097); echo survived"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("survived"), "{stdout}");
}

#[test]
fn long_repetitions_lose_no_line() {
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::new("sh").args([
            "-c",
            r"i=0; while [ $i -lt 20 ]; do printf 'ID%04d-\033[65535b\r\n' $i; i=$((i+1)); done; echo end",
        ]))
        .unwrap();
    expect(&s, Until::exit());
    let mut all = String::new();
    loop {
        let out = s.read().unwrap();
        all.push_str(&out.text);
        if !out.truncated {
            break;
        }
    }
    let ids: Vec<(String, usize)> =
        all.lines().filter(|l| l.starts_with("ID")).map(|l| (l[..6].to_owned(), l.len())).collect();
    let expected: Vec<(String, usize)> =
        (0..20).map(|i| (format!("ID{i:04}"), 7 + 65535)).collect();
    assert_eq!(ids, expected);
}

/// An engine whose requests panic on input holding `INJECTED-PANIC` (`fault-injection`).
#[cfg(feature = "fault-injection")]
fn engine_panicking_on_input() -> Engine {
    engine_panicking_on("INJECTED-PANIC")
}

/// An engine whose requests panic on input holding `input` (`fault-injection`).
#[cfg(feature = "fault-injection")]
fn engine_panicking_on(input: &str) -> Engine {
    let config = termloom::Config {
        inject_panic_on_input: Some(input.into()),
        close_grace: Duration::from_millis(500),
        ..termloom::Config::default()
    };
    Engine::new(config).unwrap()
}

/// What a panic injected in input (typed or pasted) begins with, whatever it was injected in.
#[cfg(feature = "fault-injection")]
const INJECTED: &str = "fault injection: the ";

/// Checks that `err` says termloom failed on `victim`'s request with the injected panic, and
/// that `victim` ends closed with the panic as its reason, which it returns.
#[cfg(feature = "fault-injection")]
fn failed_and_closed(victim: &Session, err: &termloom::Error) -> String {
    assert!(
        matches!(err, termloom::Error::RequestPanicked { session: Some(id), message }
            if *id == victim.id() && message.contains(INJECTED)),
        "{err:?}"
    );
    let outcome = victim.wait(Until::exit(), LONG).unwrap();
    assert!(!outcome.is_timeout(), "{outcome:?}");
    let info = victim.info().unwrap();
    assert!(matches!(info.state, SessionState::Closed(_)), "{info:?}");
    let reason = info.closed_reason.unwrap_or_default();
    assert!(reason.contains(INJECTED), "{reason}");
    reason
}

/// With the `fault-injection` feature, a panic is injected in a request for one session (its
/// input): the caller is told termloom failed on it, that session is closed with the panic as
/// its reason, and the engine and the other sessions go on. Before, the caller was told the
/// engine had stopped, and the session went on in whatever state the panic left it.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_in_a_request_ends_its_session_only() {
    if !require("bash") {
        return;
    }
    let engine = engine_panicking_on_input();
    let bystander = bash(&engine);
    let victim = bash(&engine);
    let pid = victim.pid();
    let err = victim.send_text("echo INJECTED-PANIC").unwrap_err();
    assert!(err.to_string().contains("that session was closed"), "{err}");
    let reason = failed_and_closed(&victim, &err);
    assert!(reason.contains("failed on a request"), "{reason}");
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "the victim's shell is gone");
    // Everything else goes on.
    bystander.submit("echo still here").unwrap();
    expect(&bystander, Until::regex("^still here$").unwrap());
    assert_eq!(engine.list().unwrap().len(), 2);
    bystander.close().unwrap();
}

/// With the `fault-injection` feature, a panic is injected in a paste request: as for any
/// other request, the caller is told termloom failed on it and that session is closed.
/// Before, the paste's request was sent unguarded: the caller was told the engine had
/// stopped, and the session went on.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_in_a_paste_request_ends_its_session() {
    if !require("bash") {
        return;
    }
    let engine = engine_panicking_on_input();
    let victim = bash(&engine);
    let err = victim.paste("echo INJECTED-PANIC\n").unwrap_err();
    failed_and_closed(&victim, &err);
}

/// With the `fault-injection` feature, a panic is injected in a request whose answer comes
/// later (a wait typed with its input, a paste), made as a future or by a blocking
/// send-and-wait: as for any other request, the caller is told termloom failed on it and that
/// session is closed. Before, the request's reply was dropped unanswered: the future said the
/// engine had stopped (`EngineStopped`) and the blocking call that its wait was aborted
/// (`WaitAborted`), while the session went on in whatever state the panic left it.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_in_a_request_answered_later_ends_its_session_and_says_so() {
    if !require("bash") {
        return;
    }
    let engine = engine_panicking_on_input();
    let bystander = bash(&engine);
    use futures::executor::block_on;
    for how in ["keys as a future", "a blocking submit and wait", "a paste as a future"] {
        let victim = bash(&engine);
        let answered = match how {
            "keys as a future" => block_on(victim.send_keys_and_wait_async(
                "echo INJECTED-PANIC<Enter>",
                Until::text("never printed"),
                LONG,
            ))
            .map(drop),
            "a blocking submit and wait" => victim
                .submit_and_wait("echo INJECTED-PANIC", Until::text("never printed"), LONG)
                .map(drop),
            _ => block_on(victim.paste_async("echo INJECTED-PANIC\n")),
        };
        failed_and_closed(&victim, &answered.expect_err(how));
    }
    // Everything else goes on.
    bystander.submit("echo still here").unwrap();
    expect(&bystander, Until::regex("^still here$").unwrap());
    bystander.close().unwrap();
}

/// With the `fault-injection` feature, a panic is injected in typing held back: a lone Ctrl-C
/// sent with a wait to a shell with integration at its prompt is held until the shell reads,
/// and typed then by the reactor itself, outside the guard of the request that held it. Its
/// caller, a future or blocked, is told termloom failed on its request, and the session's
/// closed reason names the request, not its terminal emulation. Before, the future was told
/// the engine had stopped, the blocked caller that its wait was aborted (after 10s), and the
/// session said its terminal emulation failed.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_typing_held_back_input_ends_its_session_and_says_so() {
    if !require("bash") {
        return;
    }
    // (The panic is injected in the Ctrl-C.)
    let engine = engine_panicking_on("\u{3}");
    use futures::executor::block_on;
    for how in ["as a future", "blocking"] {
        let spec = SpawnSpec::new("bash").shell_integration(true).env("HISTFILE", "/dev/null");
        let victim = engine.spawn(spec).unwrap();
        expect(&victim, Until::prompt());
        let until = Until::text("never printed");
        let answered = match how {
            "as a future" => block_on(victim.send_keys_and_wait_async("<C-c>", until, LONG)),
            _ => victim.send_keys_and_wait("<C-c>", until, LONG),
        };
        let reason = failed_and_closed(&victim, &answered.map(drop).expect_err(how));
        assert!(!reason.contains("emulation"), "{how}: {reason}");
    }
}

/// With the `fault-injection` feature, a panic is injected in one session's feed: that
/// session ends (its processes too) with the panic as its closed reason; the others, and the
/// engine, go on.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_in_one_session_ends_that_session_only() {
    if !require("bash") {
        return;
    }
    let config = termloom::Config {
        inject_panic_on_output: Some("INJECTED-PANIC".into()),
        close_grace: Duration::from_millis(500),
        ..termloom::Config::default()
    };
    let engine = Engine::new(config).unwrap();
    let bystander = bash(&engine);
    let victim = engine
        .spawn(
            SpawnSpec::new("sh").args(["-c", "read x; printf 'INJECTED-%s\\n' PANIC; sleep 1000"]),
        )
        .unwrap();
    let pid = victim.pid();
    expect(&victim, Until::input_wait());
    victim.submit("go").unwrap();
    let outcome = victim.wait(Until::exit(), LONG).unwrap();
    assert!(!outcome.is_timeout(), "{outcome:?}");
    let info = victim.info().unwrap();
    assert!(matches!(info.state, SessionState::Closed(_)), "{info:?}");
    let reason = info.closed_reason.unwrap_or_default();
    assert!(reason.contains("emulation failed") && reason.contains("INJECTED-PANIC"), "{reason}");
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "the victim's shell is gone");
    assert!(victim.send_text("x").is_err());
    // Everything else goes on.
    bystander.submit("echo still here").unwrap();
    expect(&bystander, Until::regex("^still here$").unwrap());
    let another = bash(&engine);
    another.submit("echo new").unwrap();
    expect(&another, Until::regex("^new$").unwrap());
    another.close().unwrap();
    bystander.close().unwrap();
}

/// A command whose output asks the terminal questions (as binary data does by chance) leaves
/// the answers as typed keys for the shell, on its command line once it is back at its
/// prompt: the next command line is typed on a cleared line (it ran `6c…echo after`, not
/// found).
#[test]
fn answers_left_on_the_command_line_do_not_spoil_the_next_command() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let spec = SpawnSpec::new("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .shell_integration(true);
    let session = engine.spawn(spec).unwrap();
    expect(&session, Until::prompt());
    // (Several rounds: the shell may have read the answers yet not echoed them when the next
    // command is typed, a window of microseconds.)
    for _ in 0..20 {
        let asked = session.run_command(r"printf '\033[c\033[6n\033[5n'", LONG).unwrap();
        assert_eq!(asked.exit_code, Some(0), "{}", asked.status);
        let next = session.run_command("echo after", LONG).unwrap();
        let got = (next.output.as_str(), next.exit_code);
        assert_eq!(got, ("after\n", Some(0)), "{}", next.status);
    }
    session.close().unwrap();
}

/// A program that registers a page with userfaultfd and never resolves its faults, then
/// waits in `epoll_wait` on the terminal and a ready eventfd with its events array in that
/// page: the kernel copies the ready event out while holding the epoll set's lock, faults,
/// and waits for ever, the lock held; a read of the set's `fdinfo` waits for that lock,
/// uninterruptibly.
const EPOLL_TRAP: &str = r#"#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    long page = sysconf(_SC_PAGESIZE);
    int uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
    struct uffdio_api api = { .api = UFFD_API };
    if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) { perror("userfaultfd"); return 1; }
    char *trap = mmap(0, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct uffdio_register reg = {
        .range = { (unsigned long)trap, page }, .mode = UFFDIO_REGISTER_MODE_MISSING };
    if (ioctl(uffd, UFFDIO_REGISTER, &reg)) { perror("register"); return 1; }
    int ep = epoll_create1(0), ready = eventfd(1, 0);
    struct epoll_event event = { .events = EPOLLIN, .data.fd = 0 };
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &event);
    event.data.fd = ready;
    epoll_ctl(ep, EPOLL_CTL_ADD, ready, &event);
    puts("trapped"); fflush(stdout);
    epoll_wait(ep, (struct epoll_event *)trap, 8, -1);
    return 0;
}
"#;

/// A program whose epoll set's lock it holds for ever (userfaultfd, [`EPOLL_TRAP`]) does not
/// freeze the engine: its probe's read of the set (`/proc/PID/fdinfo/N`, which waits for the
/// lock, uninterruptibly) is not the reactor's, and a bystander's echo is answered. (The read
/// was the reactor's: every session froze until the program was killed.)
#[test]
fn a_probe_of_a_program_holding_its_epoll_lock_for_ever_does_not_freeze_the_engine() {
    if !require("bash") || !require_root("userfaultfd's kernel faults need root") {
        return;
    }
    let dir = TestDir::new("epoll-trap");
    if !build_c(&dir, "trap", EPOLL_TRAP, &["-O0"]) {
        return;
    }
    let engine = engine();
    let (sender, heard) = std::sync::mpsc::channel();
    // Every call into the engine on a thread of its own: none ends while the reactor is
    // frozen (the reactor may probe the program of its own accord once it is quiet).
    let calls = {
        let (engine, cwd) = (engine.clone(), dir.to_path_buf());
        std::thread::spawn(move || {
            let bystander = bash(&engine);
            let trap = engine.spawn(SpawnSpec::new("./trap").cwd(cwd)).unwrap();
            sender.send(Some(trap.pid())).unwrap();
            expect(&trap, Until::text("trapped"));
            trap.wait(Until::input_wait(), Duration::from_secs(2)).unwrap();
            for i in 0..3 {
                bystander.submit(&format!("echo still here {i}")).unwrap();
                expect(&bystander, Until::regex(&format!("^still here {i}$")).unwrap());
            }
            sender.send(None).unwrap();
            (trap, bystander)
        })
    };
    let pid = heard.recv_timeout(LONG).expect("the program starts").unwrap();
    let answered = heard.recv_timeout(Duration::from_secs(15));
    if answered.is_err() {
        // Frees the reactor (the program's lock is let go once it dies), then fails.
        let pid = rustix::process::Pid::from_raw(pid).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    }
    let (trap, bystander) = calls.join().unwrap();
    assert!(answered.is_ok(), "the probe and a bystander's echoes were not answered in 15 s");
    trap.close().unwrap();
    bystander.close().unwrap();
}

/// A session running `sh -c script`, once it waits for input and all it printed was read.
fn read_to_its_input_wait(engine: &Engine, script: &str) -> Session {
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&session, Until::input_wait());
    while !session.read().unwrap().text.is_empty() {}
    session
}

/// A caller's regex whose matches overlap all along a long line already read (`a+` over
/// 100,000 `a`s) costs the reactor a bounded search, not one search from every start: a wait
/// for it took the line's length squared, minutes with every session stalled behind it. So
/// does one whose search goes on to the line's end past each short match (`a+b|a`,
/// `a(.*b)?`: a bound that counted only the match's bytes let every start be tried), and
/// one whose matches, taken one after another, do (`a{16}(.*b)?`). Each wait here times out
/// after its 500 ms and the other session answers at once.
#[test]
fn a_regex_overlapping_itself_along_a_long_read_line_does_not_stall_the_engine() {
    let engine = engine();
    let script = "head -c 100000 /dev/zero | tr '\\0' a; echo; exec cat";
    let long = read_to_its_input_wait(&engine, script);
    let other = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&other, Until::input_wait());
    let (done, outcome) = std::sync::mpsc::channel();
    let waiting = long.clone();
    std::thread::spawn(move || {
        let patterns = ["a+", "a+b|a", "a(.*b)?", "a{16}(.*b)?"];
        let waited = patterns.into_iter().try_for_each(|pattern| {
            let until = Until::regex(pattern).unwrap();
            waiting.wait(until, Duration::from_millis(500)).map(drop)
        });
        let answered = waited.and_then(|_| {
            other.send_text("ping\r")?;
            other.wait(Until::text("ping"), LONG)
        });
        let _ = done.send(answered.map(|a| a.is_held()));
    });
    let answered = outcome.recv_timeout(Duration::from_secs(60));
    if answered.is_err() {
        // The reactor is still searching: leave its handles to the process's exit.
        std::mem::forget(long);
        std::mem::forget(engine);
        panic!("waits for regexes over a read line of 100,000 a's stalled the engine for 60 s");
    }
    assert!(answered.unwrap().unwrap(), "the other session echoes its line");
}

/// A long line read in part, not to its end (100,000 `a`s read, one more echoed after them):
/// the search for a match overlapping read text (`a+b|a`: each search goes to the line's end)
/// stops at its bound, and the match starting in the new text is still found, on time. The
/// test of a line read to its end would pass without the bound, since such a line is not
/// searched.
#[test]
fn a_regex_over_a_long_line_read_in_part_finds_the_new_match_on_time() {
    let engine = engine();
    let script = "head -c 100000 /dev/zero | tr '\\0' a; exec cat";
    let long = read_to_its_input_wait(&engine, script);
    long.send_text("a").unwrap();
    let (done, outcome) = std::sync::mpsc::channel();
    let waiting = long.clone();
    std::thread::spawn(move || {
        let _ = done.send(waiting.wait(Until::regex("a+b|a").unwrap(), LONG));
    });
    let started = std::time::Instant::now();
    let Ok(outcome) = outcome.recv_timeout(Duration::from_secs(30)) else {
        // The reactor is still searching: leave its handles to the process's exit.
        std::mem::forget(long);
        std::mem::forget(engine);
        panic!("a wait for a+b|a over a line of 100,000 a's read in part stalled for 30 s");
    };
    let took = started.elapsed();
    let outcome = outcome.unwrap();
    let found = outcome.matched().expect("the new a matches");
    assert_eq!(found.text, "a");
    assert!(
        matches!(found.location, termloom::Location::Transcript { offset: 100_000, .. }),
        "{:?}",
        found.location
    );
    assert!(took < Duration::from_secs(10), "the wait took {took:?}");
    long.close().unwrap();
}

/// A caller's regex whose search tracks each of its ~900 positions at every byte
/// (`[ab]*a[ab]{900}c|b` over random `a`s and `b`s: its lazy DFA gives up) costs the reactor
/// a bound in bytes times positions, not in bytes alone: over a line of 3,000 such bytes read
/// but for the last, the bound in bytes let it search 399 times to the line's end, 6.2 s a
/// check in a release build, with every session stalled. The wait times out and the other
/// session answers on time.
#[test]
fn a_regex_of_many_positions_over_a_partly_read_line_does_not_stall_the_engine() {
    let engine = engine();
    let script = "awk 'BEGIN { srand(7); for (i = 0; i < 3000; i++) printf \"%s\", (rand() < 0.5 ? \"a\" : \"b\") }'; exec cat";
    let long = read_to_its_input_wait(&engine, script);
    long.send_text("a").unwrap();
    expect(&long, Until::quiet(Duration::from_millis(100)));
    let other = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&other, Until::input_wait());
    let (done, outcome) = std::sync::mpsc::channel();
    let waiting = long.clone();
    std::thread::spawn(move || {
        let until = Until::regex("[ab]*a[ab]{900}c|b").unwrap();
        let waited = waiting.wait(until, Duration::from_millis(500)).map(|a| a.is_held());
        let answered =
            other.send_text("ping\r").and_then(|_| other.wait(Until::text("ping"), LONG));
        let _ = done.send((waited, answered.map(|a| a.is_held())));
    });
    let answered = outcome.recv_timeout(Duration::from_secs(30));
    if answered.is_err() {
        // The reactor is still searching: leave its handles to the process's exit.
        std::mem::forget(long);
        std::mem::forget(engine);
        panic!(
            "a wait for [ab]*a[ab]{{900}}c|b over a line of 3,000 a's and b's stalled the engine for 30 s"
        );
    }
    let (waited, answered) = answered.unwrap();
    assert!(!waited.unwrap(), "no match holds the new a");
    assert!(answered.unwrap(), "the other session echoes its line");
}

/// A caller's regex too large to search (a literal of 3,000 `a`s: each search tracks every
/// one of its characters at each byte, 1.5 s over a line of 448 KiB in a debug build, minutes
/// at 100,000 with every session stalled) is refused before any wait starts, for the
/// transcript and the screen alike, and so is one that compiles too large (a Unicode class
/// repeated); one of 1,000 is taken, and its wait over a read line of 100,000 `a`s times out
/// on time.
#[test]
fn a_regex_too_large_to_search_is_refused() {
    for pattern in ["a".repeat(3000), "(ab){600}".to_owned(), "a{100}{100}".to_owned()] {
        for refused in [Until::regex(&pattern), Until::screen_regex(&pattern)] {
            let err = refused.err().unwrap_or_else(|| panic!("/{pattern:.20}/ is taken"));
            assert!(matches!(err, termloom::Error::InvalidInput(_)), "{err:?}");
            assert!(err.to_string().contains("too large to search"), "{err}");
        }
    }
    // A Unicode class compiles to tens of kilobytes: repeated 60 times it is 3.0 MB of
    // automaton, past what the search's lazy DFA holds (0.3 to 0.6 s a search of 256 KiB
    // in a release build, seconds in a debug one), though it has few classes.
    for pattern in [r"\w{60}", r"\pL{100}", r"(\w\d){40}"] {
        let err = Until::regex(pattern).err().unwrap_or_else(|| panic!("/{pattern}/ is taken"));
        assert!(matches!(err, termloom::Error::InvalidInput(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("too large to search: it compiles to more than 2 MiB"), "{err}");
        assert!(message.contains("repeat it fewer times"), "{err}");
    }
    for pattern in [r"\w{40}", r"\w+@\w+\.\w+", r"^\d{4}-\d{2}-\d{2}", "[a-z]{1000}"] {
        assert!(Until::regex(pattern).is_ok(), "/{pattern}/ is refused");
    }
    let engine = engine();
    let script = "head -c 100000 /dev/zero | tr '\\0' a; echo; exec cat";
    let long = read_to_its_input_wait(&engine, script);
    let started = std::time::Instant::now();
    let taken = Until::regex(&"a".repeat(1000)).unwrap();
    assert!(long.wait(taken, Duration::from_millis(500)).unwrap().is_timeout());
    assert!(started.elapsed() < LONG, "the wait took {:?}", started.elapsed());
}

/// A command printing `bytes` random `a`s and `b`s (no line break).
fn random_ab(bytes: usize) -> String {
    format!(
        "awk 'BEGIN {{ srand(7); for (i = 0; i < {bytes}; i++) printf \"%s\", (rand() < 0.5 ? \"a\" : \"b\") }}'"
    )
}

/// A caller's regex whose lazy DFA gives up (`[ab]*a[ab]{990}c` over 256 KiB of random `a`s
/// and `b`s, unread) was searched tracking each of its ~1,000 positions at every byte: 1.5 to
/// 2.3 s a check in a release build (tens of seconds in a debug one), on the reactor, every
/// session stalled, and the wait then ran out its timeout. Its search now gives up within
/// its bound of work and the wait says so (`WaitRegexUndecided`) at once; the other session
/// echoes on time.
#[test]
fn a_regex_whose_lazy_dfa_gives_up_over_a_long_line_is_undecided_without_stalling() {
    let engine = engine();
    let script = format!("{}; echo; exec cat", random_ab(262_143));
    let long = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    expect(&long, Until::input_wait());
    let other = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&other, Until::input_wait());
    let (done, outcome) = std::sync::mpsc::channel();
    let waiting = long.clone();
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let until = Until::regex("[ab]*a[ab]{990}c").unwrap();
        let waited = waiting.wait(until, LONG);
        let took = started.elapsed();
        let answered =
            other.send_text("ping\r").and_then(|_| other.wait(Until::text("ping"), LONG));
        let _ = done.send((waited, took, answered.map(|a| a.is_held()), started.elapsed()));
    });
    let Ok((waited, took, answered, total)) = outcome.recv_timeout(Duration::from_secs(60)) else {
        // The reactor is still searching: leave its handles to the process's exit.
        std::mem::forget(long);
        std::mem::forget(engine);
        panic!("a wait for [ab]*a[ab]{{990}}c over 256 KiB of a's and b's stalled for 60 s");
    };
    let err = waited.expect_err("the wait cannot be decided");
    assert!(matches!(err, termloom::Error::WaitRegexUndecided { .. }), "{err:?}");
    assert!(err.to_string().contains("could not be searched within its bound of work"), "{err}");
    assert!(took < Duration::from_secs(5), "the wait took {took:?}");
    assert!(answered.unwrap(), "the other session echoes its line");
    assert!(total < Duration::from_secs(10), "the wait and the echo took {total:?}");
}

/// A regex whose lazy DFA gives up still finds its matches where its search fits its bound
/// of work: in a line of 2,000 random `a`s and `b`s and an `a`, read, then 990 `b`s and a
/// `c` typed (the match straddles what was read), and on a screen row; one whose lazy DFA
/// keeps up (`a{1000}`) finds its match at the end of a line of 262,000 `a`s.
#[test]
fn a_regex_whose_lazy_dfa_gives_up_still_finds_its_matches() {
    let engine = engine();
    let script = format!("{}; printf a; exec cat", random_ab(2000));
    let short = read_to_its_input_wait(&engine, &script);
    short.send_text(&format!("{}c", "b".repeat(990))).unwrap();
    let outcome = expect(&short, Until::regex("[ab]*a[ab]{990}c").unwrap());
    let found = outcome.matched().expect("a match");
    assert_eq!(found.text.len(), 2992, "{}", found.text);
    assert!(found.text.ends_with(&format!("a{}c", "b".repeat(990))));
    let script = "printf 'ba%.0s' $(seq 15); printf 'c\\n'; exec cat";
    let screen = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    let outcome = expect(&screen, Until::screen_regex("[ab]*a[ab]{20}c").unwrap());
    assert_eq!(outcome.matched().expect("a match").text, format!("{}c", "ba".repeat(15)));
    let script = "head -c 262000 /dev/zero | tr '\\0' a; echo; exec cat";
    let long = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    let outcome = expect(&long, Until::regex(&"a".repeat(1000)).unwrap());
    assert_eq!(outcome.matched().expect("a match").text.len(), 1000);
}

/// A pattern with a gap of a counted length (`error.{0,100}refused`) over a line of 65,520
/// bytes of log words then `error: connection refused`: its lazy DFA gives up, and the wait
/// failed undecided (its ~110 positions times the bytes past its bound of work) where the
/// `regex` crate matched; it now matches, as do a word boundary's patterns over ASCII and
/// non-ASCII text (`\bfoo\b`, refused as unsupported by the lazy DFA), on the transcript and
/// the screen.
#[test]
fn a_regex_with_a_counted_gap_or_a_word_boundary_matches_a_long_line() {
    let engine = engine();
    let words = "info request id user served cache miss ms ok GET /api/v1 200 worker error timeout retry closed";
    let script = format!(
        "awk 'BEGIN {{ srand(7); n = split(\"{words}\", w, \" \"); s = \"\"; while (length(s) < 65520) s = s w[int(rand() * n) + 1] \" \"; printf \"%s\", substr(s, 1, 65520) }}'; echo 'error: connection refused'; echo 'été foo über'; exec cat"
    );
    let long = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    // The line printed whole before the wait: searched whole, not as it arrives.
    expect(&long, Until::input_wait());
    let outcome = expect(&long, Until::regex("error.{0,100}refused").unwrap());
    let found = outcome.matched().expect("a match");
    assert_eq!(found.text, "error: connection refused");
    assert_eq!(found.location, termloom::Location::Transcript { line: 0, offset: 65_520 });
    let outcome = expect(&long, Until::regex(r"\bfoo\b").unwrap());
    assert_eq!(outcome.matched().expect("a match").text, "foo");
    let outcome = expect(&long, Until::screen_regex(r"(?i)\bÜBER\b").unwrap());
    assert_eq!(outcome.matched().expect("a match").text, "über");
}
