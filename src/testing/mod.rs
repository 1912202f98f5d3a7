//! A testing kit for TUI authors: deterministic sessions, waits that fail readably, a screen
//! format for [`insta`] snapshots, and redactions for what changes from run to run.
//!
//! Enable it in the crate that tests a terminal program:
//!
//! ```toml
//! [dev-dependencies]
//! # termloom is not on crates.io yet: depend on the repository (or a local clone with `path`).
//! termloom = { git = "https://github.com/termloom/termloom", features = ["testing"] }
//! # Only for insta's own macros: `assert_screen_snapshot!` uses `termloom::testing::insta`.
//! insta = "1.49"
//! ```
//!
//! A test starts the program with [`TestSession::builder`], presses keys, waits for what the
//! program shows and asserts the screen with [`assert_screen_snapshot!`]. Snapshots go to the
//! `snapshots/` folder at the root of the crate that runs the test (`<test file>__<name>.snap`);
//! review them with `cargo insta review`.
//!
//! ```no_run
//! use termloom::assert_screen_snapshot;
//! use termloom::testing::TestSession;
//!
//! #[test]
//! fn picks_the_second_item() {
//!     // The binary this package builds, in an 80x24 terminal with a fixed environment.
//!     let app = TestSession::builder(env!("CARGO_BIN_EXE_todo")).start();
//!     app.wait_for_screen_text("> Buy milk").wait_stable();
//!     app.send_keys("j");
//!     app.wait_for_screen_text("> Write tests").wait_stable();
//!     assert_screen_snapshot!("second_item", app); // snapshots/ui__second_item.snap
//!     app.send_keys("<Enter>");
//!     assert!(app.wait_for_exit().success());
//! }
//! ```
//!
//! The screen as a snapshot stores it ([`TestSession::snapshot`] gives the same text, redacted
//! as the snapshot is):
//!
//! ```
//! use termloom::testing::TestSession;
//! # // Needs bash: skipped where it is missing, except under CI, which installs it.
//! # if std::process::Command::new("bash").arg("-c").arg("true").status().is_err() {
//! #     assert!(std::env::var_os("CI").is_none(), "CI must install bash");
//! #     return;
//! # }
//!
//! // bash with no startup files and the prompt `$ `, HOME in a fresh temporary directory,
//! // TERM=xterm-256color, LANG=C.UTF-8 and TZ=UTC; here in a 30x4 terminal.
//! let sh = TestSession::bash().size(30, 4).start();
//! sh.type_line("echo $((6 * 7))");
//! sh.wait_for_row(1, "42").wait_for_row(2, "$").wait_stable();
//! assert_eq!(
//!     sh.snapshot(),
//!     "\
//! screen: 30x4, primary
//! cursor: row 2, col 2, visible
//! title: none
//!    ┌──────────────────────────────┐
//!  0 │$ echo $((6 * 7))
//!  1 │42
//!  2 │$
//!    ┆  ^
//!  3 │
//!    └──────────────────────────────┘
//! "
//! );
//! ```
//!
//! # What a session is given
//!
//! [`TestSessionBuilder::start`] runs the program under a terminal of 80 columns and 24 rows
//! (see [`TestSessionBuilder::size`]) with an environment that does not depend on the machine
//! or the person running the tests:
//!
//! - the host's variables are all removed except `PATH`, `USER`, `LOGNAME`, `TMPDIR` and those
//!   that locate toolchains (`PYENV_ROOT`, `CARGO_HOME`...; see
//!   [`TestSessionBuilder::keep_env`]);
//! - `HOME` is a fresh temporary directory, removed when the session is dropped, and the
//!   `XDG_*` directories are inside it, so no user startup file is read; its path,
//!   `/tmp/termloom-home-PPPPPPP-NNNN`, has the same length in every run and on every machine
//!   (it does not depend on `TMPDIR`). A test process killed before its drops ran (`SIGKILL`, a
//!   CI timeout) leaves its homes; the next test process of the same user to start a session
//!   removes those a day old whose process is gone;
//! - `TERM=xterm-256color`, `COLORTERM=truecolor` (programs may use 24-bit colours, which
//!   [`TestSession::with_styles`] snapshots show), `LANG=C.UTF-8`, `LC_ALL=C.UTF-8`, `TZ=UTC`,
//!   `SHELL=/bin/sh`, `INPUTRC` naming an empty file, `LESSHISTFILE=-`, `HISTFILE` in `HOME`;
//! - the working directory is the temporary `HOME` (see [`TestSessionBuilder::cwd`]);
//! - closing the session (dropping it) kills what ignores its hangup and `SIGTERM` after
//!   [`DEFAULT_CLOSE_GRACE`], 1 s, not the engine's 3 s (see
//!   [`TestSessionBuilder::close_grace`]).
//!
//! [`TestSessionBuilder::env`], [`TestSessionBuilder::env_remove`] and
//! [`TestSessionBuilder::keep_env`] (the host's value) change any of it.
//!
//! # Waits
//!
//! Every `wait_for_*` method blocks until its condition holds and panics otherwise, after
//! [`DEFAULT_TIMEOUT`] or [`TestSessionBuilder::timeout`], with the screen (and its `styles:`
//! runs, for a wait on colours) and the last lines of the transcript in the message. A program
//! that waits for input with an unchanged screen fails the wait sooner, after
//! [`TestSessionBuilder::stuck_after`] (2 s): nothing would change until the test types
//! (unless a shell's background job still runs, which is waited for).
//! Never sleep in a test; instead:
//!
//! - after each key, wait for what it changes: a text ([`TestSession::wait_for_screen_text`],
//!   [`TestSession::wait_for_row`]), when only the cursor moves the cursor
//!   ([`TestSession::wait_for_cursor`]), when only colours change a highlight
//!   ([`TestSession::wait_for_highlight`]), or, in a full-screen program, send the key with
//!   [`TestSession::press`], which returns once it waits for input again with a still screen;
//!   then, before a snapshot, for the screen to settle
//!   ([`TestSession::wait_stable`]). A stable wait alone can hold before the program has even
//!   read the key;
//! - type a line only once the program's prompt for it is drawn: a line typed while the program
//!   is still busy with the previous one is echoed by the terminal, then again by the program.
//!
//! # The snapshot format
//!
//! [`format_screen`] shows what a person sees and what a reviewer must notice (above): a header
//! with the size, the screen (primary, or alternate as full-screen programs use), the cursor's
//! position and visibility and the window title; then every row.
//!
//! The frame's top and bottom rules are exactly as wide as the terminal. Rows are numbered
//! from 0, as [`Until::screen_row_contains`] counts them. Trailing blanks are not printed,
//! except where they matter: the `^` line under the cursor's row points at the cursor's
//! column when the cursor is visible, so a cursor after a prompt's space is seen.
//!
//! Colours and attributes are left out unless asked for: snapshot
//! [`TestSession::with_styles`] to add a `styles:` section ([`format_styled_screen`]) listing
//! every run of cells that is not in the default colours, which shows a selection drawn in
//! reverse video or a highlighted search match (and trailing blanks that carry a colour).
//!
//! # Redactions
//!
//! [`Redactions`] replaces what changes between runs (clock times, pids, durations, addresses,
//! the temporary `HOME`) with placeholders such as `[TIME]`. [`assert_screen_snapshot!`]
//! applies a session's redactions to the screen's rows and title before insta sees the text
//! (no insta filter is involved), and so do [`TestSession::snapshot`] and
//! [`TestSession::styled_snapshot`]; [`snapshot_settings`] turns them into insta filters for
//! snapshots of your own. Every session redacts its own `HOME` as `[HOME]`; add more with
//! [`TestSessionBuilder::redact`]: for file listings and mc's panels,
//! [`Redactions::short_times`] and [`Redactions::month_days`] (`19:03`, `Dec  7`), or
//! [`Redactions::file_times`] and [`Redactions::disk_usage`], which keep the columns; for the
//! build's paths, [`Redactions::target_dir`] and [`Redactions::crate_dir`].

mod builder;
mod redact;
mod session;
mod snapshot;

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::{
    Config, Engine, ExitStatus, Fired, Screen, Session, SpawnSpec, StyledScreen, Until, WaitOutcome,
};

use builder::TempHome;
pub use builder::{SnapshotFolder, TestSessionBuilder};
pub use redact::{MASK, Redactions};
pub use session::{TestSession, WithStyles};
use snapshot::save_picture;
pub use snapshot::*;

/// insta, re-exported for [`assert_screen_snapshot!`] and for [`snapshot_settings`]'s users.
pub use insta;

pub use crate::term::screen::snapshot::{format_screen, format_styled_screen};

/// How long a wait may take before it fails the test: generous, since a wait returns as soon
/// as its condition holds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the screen must stay unchanged for [`TestSession::wait_stable`].
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(200);

/// How long a program may wait for input with its screen unchanged before a wait that has
/// not held fails ([`TestSessionBuilder::stuck_after`]): nothing will change until the test
/// types.
pub const DEFAULT_STUCK_AFTER: Duration = Duration::from_secs(2);

/// How long closing a test session (dropping it, [`TestSession::close`]) lets its program
/// end before it kills what still runs with `SIGKILL` ([`TestSessionBuilder::close_grace`]):
/// counted from the hangup (`SIGHUP`), with `SIGTERM` sent to what still runs 0.5 s after
/// it, so a program that ignores the hangup has the other 0.5 s after its `SIGTERM`. The
/// engine's 3 s ([`Config::close_grace`]) would be spent in full by every test whose program
/// ignores those signals.
pub const DEFAULT_CLOSE_GRACE: Duration = Duration::from_secs(1);

/// The condition a stuck wait reports (see [`TestSession::wait_until`]).
const STUCK: &str = "stuck: waiting for input, screen unchanged";

/// The terminal size of a test session unless [`TestSessionBuilder::size`] says otherwise:
/// 80 columns, 24 rows.
pub const DEFAULT_SIZE: (u16, u16) = (80, 24);

/// Transcript lines quoted in a failed wait's message.
const TRANSCRIPT_LINES: usize = 20;

/// The value of `result`, or a panic with `message(error)` located at the caller's caller
/// (a `#[track_caller]` method's own caller: the test's line). A panic inside a closure such
/// as `unwrap_or_else(|e| panic!(..))` would name the closure's line in this file instead,
/// since closures do not inherit `#[track_caller]`.
#[track_caller]
fn or_panic<T, E>(result: Result<T, E>, message: impl FnOnce(E) -> String) -> T {
    match result {
        Ok(value) => value,
        Err(e) => panic!("{}", message(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::redact::split_rows;
    use super::*;
    use crate::{Cursor, Modes};

    fn screen(rows: &[&str], cursor: (u16, u16, bool)) -> Screen {
        Screen {
            cols: 12,
            rows: rows.len() as u16,
            lines: rows.iter().map(|r| r.to_string()).collect(),
            cursor: Cursor { row: cursor.0, col: cursor.1, visible: cursor.2 },
            alternate: true,
            title: "t\"x".into(),
            modes: Modes::OFF,
            wrapped: Vec::new(),
            wide_spacer_ends: Vec::new(),
            frames: false,
        }
    }

    #[test]
    fn hidden_cursor_has_no_caret_and_wide_rows_keep_their_cells() {
        let text = format_screen(&screen(&["日本", "", "x"], (0, 4, false)));
        assert_eq!(
            text,
            "screen: 12x3, alternate\ncursor: hidden\ntitle: \"t\\\"x\"\n   \
             ┌────────────┐\n 0 │日本\n 1 │\n 2 │x\n   └────────────┘\n"
        );
        let text = format_screen(&screen(&["日本", "", "x"], (0, 4, true)));
        assert!(text.contains(" 0 │日本\n   ┆    ^\n"), "{text}");
    }

    /// By the conditions themselves, at any depth, never by their descriptions (a text that
    /// reads "a, exit, b" is no exit condition).
    #[test]
    fn exit_conditions_are_recognised() {
        assert!(Until::exit().includes_exit());
        assert!(Until::any(vec![Until::text("a"), Until::exit()]).includes_exit());
        let nested = Until::any(vec![Until::text("never"), Until::any(vec![Until::exit()])]);
        assert!(nested.includes_exit());
        assert!(!Until::text("exit").includes_exit());
        assert!(!Until::any(vec![Until::text("a, exit, b")]).includes_exit());
    }

    #[test]
    fn redactions_apply_in_order() {
        let r = Redactions::new()
            .home(Path::new("/tmp/h-1"))
            .dates()
            .clock_times()
            .literal("a$b", "[X]")
            .pid(77);
        assert_eq!(
            r.apply("/tmp/h-1/x 2024-01-02 03:04:05 a$b 77 177"),
            "[HOME]/x [DATE] [TIME] [X] [PID] 177"
        );
        assert_eq!(Redactions::new().durations().apply("in 12ms, 3.5 s, 2m3s; 4 items"), {
            "in [DURATION], [DURATION], [DURATION]; 4 items"
        });
    }

    /// The crate's directory, as `cargo test` gives it to the test binary, and only that.
    #[test]
    fn the_crates_directory_is_redacted() {
        let dir = env!("CARGO_MANIFEST_DIR");
        // (Only as `cargo test` runs it: a binary run by hand has no such variable, and the
        // redaction then does nothing, as its documentation says.)
        if std::env::var("CARGO_MANIFEST_DIR").as_deref() != Ok(dir) {
            assert_eq!(Redactions::new().crate_dir(), Redactions::new());
            return;
        }
        let text = format!("panicked at {dir}/src/lib.rs:1:5");
        let redacted = Redactions::new().crate_dir().apply(&text);
        assert_eq!(redacted, "panicked at [CRATE]/src/lib.rs:1:5");
    }

    /// ISO 8601 timestamps (a `T` between the date and the time, a `Z` after it: all word
    /// characters, where `\b` cannot stand) and milliseconds after a comma (Python's
    /// `logging`) are redacted, whichever of the two comes first; a comma between fields, or a
    /// word after a date's `T`, is left as it is.
    #[test]
    fn timestamps_are_redacted_whole() {
        let text = "2024-05-17T09:41:07Z at 2024-05-17T09:41:07.123+02:00, 2024-05-17 09:41:07,123 \
                    INFO; 12:00:00Zulu 2024-05-17Thursday; 09:00:00,10:00:00; \
                    2024-05-17,09:41:07,200,OK; 12:00:00,5 items; 09:41:07,123";
        let expected = "[DATE]T[TIME]Z at [DATE]T[TIME]+02:00, [DATE] [TIME] INFO; \
                        12:00:00Zulu 2024-05-17Thursday; [TIME],[TIME]; \
                        [DATE],[TIME],200,OK; [TIME],5 items; [TIME]";
        assert_eq!(Redactions::new().dates().clock_times().apply(text), expected);
        assert_eq!(Redactions::new().clock_times().dates().apply(text), expected);
        assert_eq!(Redactions::new().clock_times().apply("x 9:41:07 y"), "x [TIME] y");
    }

    /// A text wrapped over rows is redacted as the line it is and laid out again over the
    /// same rows; rows the terminal did not join stay apart, and unchanged lines as they were.
    #[test]
    fn redactions_see_lines_wrapped_over_rows() {
        let rows =
            ["ab /tmp/ho", "me-123/x", "/tmp/ho", "me-123", "0123456789", "/tmp/home-", "123 end"];
        let mut wrapped = screen(&rows, (0, 0, false));
        wrapped.cols = 10;
        wrapped.title = "in /tmp/home-123".into();
        wrapped.wrapped = vec![true, false, false, false, true, true, false];
        let redactions = Redactions::new().literal("/tmp/home-123", "[HOME]");
        let redacted = redactions.apply_to_screen(&wrapped);
        assert_eq!(
            redacted.lines,
            ["ab [HOME]/", "x", "/tmp/ho", "me-123", "0123456789", "[HOME] end", ""]
        );
        assert_eq!(redacted.title, "in [HOME]");
        assert_eq!(
            (redacted.rows, redacted.cursor, redacted.wrapped.len()),
            (7, wrapped.cursor, 7)
        );
        // Nothing to redact: the same screen.
        assert_eq!(Redactions::new().literal("absent", "x").apply_to_screen(&wrapped), wrapped);
        // Wide characters that do not fit go to the next row; the last row takes the rest.
        assert_eq!(split_rows("日本語日本語", 5, 2), ["日本", "語日本語"]);
    }

    /// Styled runs move with the text a redaction changed: after a replacement they shift, over
    /// a replaced text they cover its replacement, past the text (coloured trailing blanks)
    /// they shift too, and on a line wrapped over rows they follow the new layout.
    #[test]
    fn styled_runs_move_with_a_redacted_line() {
        let run = |row, col, width| crate::StyleRun::new(row, col, width, "red", "default", vec![]);
        let moved = |rows: &[&str], wrapped: Vec<bool>, runs: Vec<crate::StyleRun>| {
            let mut plain = screen(rows, (0, 0, false));
            plain.wrapped = wrapped;
            let styled = StyledScreen { screen: plain, runs };
            let redactions = Redactions::new().literal("4242", "[PID]").durations();
            let runs = redactions.apply_to_styled_screen(&styled).runs;
            runs.iter().map(|r| (r.row, r.col, r.width)).collect::<Vec<_>>()
        };
        // "pid 4242 ok 5ms": "4242" (4-7), "ok" (9-10), "ms" (13-14), then a colour that
        // fills the row (30-39) past the text, and one from "5ms" to the row's end.
        let runs = vec![run(0, 4, 4), run(0, 9, 2), run(0, 13, 2), run(0, 30, 10), run(1, 0, 1)];
        // On 40 columns: "pid [PID] ok [DURATION]".
        let wide = |rows: &[&str], runs| {
            let mut plain = screen(rows, (0, 0, false));
            plain.cols = 40;
            let styled = StyledScreen { screen: plain, runs };
            let redactions = Redactions::new().literal("4242", "[PID]").durations();
            let runs = redactions.apply_to_styled_screen(&styled).runs;
            runs.iter().map(|r| (r.row, r.col, r.width)).collect::<Vec<_>>()
        };
        assert_eq!(
            wide(&["pid 4242 ok 5ms", "x"], runs),
            [(0, 4, 5), (0, 10, 2), (0, 13, 10), (0, 30, 10), (1, 0, 1)]
        );
        // Past the text, what the longer redacted text covers is left to the text's runs.
        assert_eq!(
            wide(&["pid 4242 ok 5ms", "x"], vec![run(0, 12, 28), run(0, 16, 6)]),
            [(0, 13, 27)]
        );
        // Wrapped over two rows of 12: "ab 4242 cd e" + "f": "[PID]" moves "cd" to the
        // first row's end and "e" to the second row.
        assert_eq!(
            moved(
                &["ab 4242 cd e", "f"],
                vec![true],
                vec![run(0, 8, 2), run(0, 11, 1), run(1, 0, 1)]
            ),
            [(0, 9, 2), (1, 0, 1), (1, 1, 1)]
        );
    }

    /// The cursor on a line a redaction changed moves with the text after the change (a
    /// prompt showing a redacted path), stays before it, and goes to the change's end from
    /// inside it: where it is does not depend on what was redacted.
    #[test]
    fn the_cursor_moves_with_a_redacted_line() {
        let cursor_at = |rows: &[&str], cols: u16, wrapped: Vec<bool>, at: (u16, u16)| {
            let mut screen = screen(rows, (at.0, at.1, true));
            (screen.cols, screen.wrapped) = (cols, wrapped);
            let redacted = Redactions::new().literal("/home/alice-1234", "[HOME]");
            let cursor = redacted.apply_to_screen(&screen).cursor;
            (cursor.row, cursor.col)
        };
        let prompt = ["x", "me@host:/home/alice-1234$"];
        // Past the prompt (two blanks after it), at its start, inside the path.
        assert_eq!(cursor_at(&prompt, 40, vec![], (1, 27)), (1, 17));
        assert_eq!(cursor_at(&prompt, 40, vec![], (1, 0)), (1, 0));
        assert_eq!(cursor_at(&prompt, 40, vec![], (1, 12)), (1, 14));
        // The cursor on another row stays where it is.
        assert_eq!(cursor_at(&prompt, 40, vec![], (0, 1)), (0, 1));
        // A line wrapped over two rows of 12: the cursor after it, on its second row, comes
        // back to the first row, which now holds all of it.
        let wrapped = ["ab /home/ali", "ce-1234/x"];
        assert_eq!(cursor_at(&wrapped, 12, vec![true], (1, 9)), (0, 11));
        assert_eq!(cursor_at(&wrapped, 12, vec![true], (0, 1)), (0, 1));
        // Redacted to something longer, the cursor moves right on the second row, and stays
        // in the last column of the line's last row when the line overflows its rows.
        let longer = |rows: &[&str], at: (u16, u16)| {
            let mut screen = screen(rows, (at.0, at.1, true));
            (screen.cols, screen.wrapped) = (12, vec![true]);
            let cursor = Redactions::new().literal("ali", "[SOMEONE]").apply_to_screen(&screen);
            (cursor.cursor.row, cursor.cursor.col)
        };
        assert_eq!(longer(&["ab /home/ali", "ce/x"], (1, 4)), (1, 10));
        assert_eq!(longer(&wrapped, (1, 9)), (1, 11));
        assert_eq!(split_rows("ab  ", 5, 3), ["ab", "", ""]);
    }

    /// A screen is redacted with the patterns compiled when the redactions were made, not
    /// again for each row (a debug build took about 1 s per snapshot, 14 s on a 500x200
    /// screen: a few milliseconds per pattern per row), and its empty rows are skipped.
    #[test]
    fn patterns_are_compiled_once_not_for_every_row() {
        let redactions = Redactions::new()
            .clock_times()
            .short_times()
            .month_days()
            .file_times()
            .dates()
            .durations()
            .pids()
            .hex_addresses()
            .disk_usage()
            .home(Path::new("/tmp/h-1"));
        let mut rows = vec!["at 19:03 Dec  7 pid 42 0x7ffd1234 in /tmp/h-1/x took 2ms"; 60];
        rows.extend([""; 40]);
        let mut big = screen(&rows, (0, 0, true));
        big.cols = 200;
        let compiled = || super::redact::COMPILED.with(|count| count.get());
        let before = compiled();
        let started = Instant::now();
        let redacted = redactions.apply_to_screen(&big);
        let styled = StyledScreen { screen: big.clone(), runs: Vec::new() };
        redactions.apply_to_styled_screen(&styled);
        let took = started.elapsed();
        assert_eq!(compiled(), before, "patterns compiled again");
        assert_eq!(
            redacted.lines[0],
            "at [TIME] [DATE] pid [PID] [ADDR] in [HOME]/x took [DURATION]"
        );
        // (Generous: well under 1 s in a debug build of a loaded machine.)
        assert!(took < Duration::from_secs(5), "{took:?}");
    }

    /// A path is replaced where it ends (before a `/`, a blank, a `:`, the end), not where a
    /// longer name goes on (`<crate>/targets`); the longer of two paths, one inside the other,
    /// is replaced first whatever the order they were added in (`<crate>/target` is
    /// `[TARGET]`, never `[CRATE]/target`), also through `and`.
    #[test]
    fn paths_are_replaced_where_they_end_the_longer_first() {
        let (krate, target) = (Path::new("/w/c"), Path::new("/w/c/target"));
        let text =
            "/w/c/targets/t.json /w/c/target/debug/app /w/c/target: /w/c/x /w/cc /w/c.bak /w/c";
        let expected =
            "[CRATE]/targets/t.json [TARGET]/debug/app [TARGET]: [CRATE]/x /w/cc /w/c.bak [CRATE]";
        let crate_first = Redactions::new().path(krate, "[CRATE]").path(target, "[TARGET]");
        let target_first = Redactions::new().path(target, "[TARGET]").path(krate, "[CRATE]");
        let joined = Redactions::new()
            .path(krate, "[CRATE]")
            .and(Redactions::new().path(target, "[TARGET]"));
        for redactions in [crate_first, target_first, joined] {
            assert_eq!(redactions.apply(text), expected, "{redactions:?}");
        }
        // A sentence's end is no name going on; a path given with its last `/` still holds
        // what is below it (review xc).
        let said = Redactions::new().path(krate, "[CRATE]").apply("saved in /w/c. Then /w/c.");
        assert_eq!(said, "saved in [CRATE]. Then [CRATE].");
        let slashed = Redactions::new().path(Path::new("/nonexistent/x/"), "[X]");
        assert_eq!(slashed.apply("/nonexistent/x/a /nonexistent/x"), "[X]/a [X]");
    }

    /// A path is replaced only where it begins too: at the start of the text or after a
    /// character that does not go on a file name (review if: a crate at `/work/main` masked
    /// `/mnt/work/main/x` as `/mnt[CRATE]/x`); a `file://` URL's path is, and so is a path
    /// right after another with one character between them (a `PATH`-like list, a blank), the
    /// character serving as the first one's end and the second one's start, and one after
    /// a short option (`-I/w/c`), not after a letter or digit otherwise; an insta filter
    /// does the same. The session's home begins the same way.
    #[test]
    fn paths_are_replaced_where_they_begin() {
        let krate = Redactions::new().path(Path::new("/w/c"), "[CRATE]");
        let text = "/mnt/w/c/x ./w/c a/w/c ~/w/c x-/w/c /w/c/x /w/c:/w/c/bin /w/c /w/c (/w/c) \
            '/w/c' \"/w/c\" =/w/c [/w/c] </w/c> │/w/c│ file:///w/c/x file:///mnt/w/c //w/c \
            cc -I/w/c/include -L/w/c -xI/w/c 9/w/c";
        let expected = "/mnt/w/c/x ./w/c a/w/c ~/w/c x-/w/c [CRATE]/x [CRATE]:[CRATE]/bin [CRATE] \
            [CRATE] ([CRATE]) '[CRATE]' \"[CRATE]\" =[CRATE] [[CRATE]] <[CRATE]> │[CRATE]│ \
            file://[CRATE]/x file:///mnt/w/c //w/c cc -I[CRATE]/include -L[CRATE] -xI/w/c 9/w/c";
        assert_eq!(krate.apply(text), expected);
        let mut settings = insta::Settings::new();
        krate.apply_to(&mut settings);
        settings.bind(|| insta::assert_snapshot!(text, @r#"/mnt/w/c/x ./w/c a/w/c ~/w/c x-/w/c [CRATE]/x [CRATE]:[CRATE]/bin [CRATE] [CRATE] ([CRATE]) '[CRATE]' "[CRATE]" =[CRATE] [[CRATE]] <[CRATE]> │[CRATE]│ file://[CRATE]/x file:///mnt/w/c //w/c cc -I[CRATE]/include -L[CRATE] -xI/w/c 9/w/c"#));
        let home = Redactions::new().home(Path::new("/tmp/termloom-home-0000001-0000"));
        let text = "/mnt/tmp/termloom-home-0000001-0000/x /tmp/termloom-home-0000001-0000/x";
        assert_eq!(home.apply(text), "/mnt/tmp/termloom-home-0000001-0000/x [HOME]/x");
    }

    /// A folder under a path named like the path is not replaced again, by the path's second
    /// pass nor by another path's filter (review xf: `/src/src/main.rs` of a crate at `/src`
    /// was `[CRATE][CRATE]/main.rs`, `[HOME]`'s rest took `[CRATE]`); a diff's signs and a
    /// response file's `@` at a word's start go before a path replaced (they did before the
    /// path's start was looked at).
    #[test]
    fn a_replaced_paths_rest_is_not_replaced_again() {
        let krate = Redactions::new().path(Path::new("/src"), "[CRATE]");
        assert_eq!(
            krate.apply("error at /src/src/main.rs:3:5"),
            "error at [CRATE]/src/main.rs:3:5"
        );
        let both = Redactions::new().home(Path::new("/tmp/h")).path(Path::new("/w/c"), "[CRATE]");
        assert_eq!(both.apply("/tmp/h/w/c/x /w/c/x"), "[HOME]/w/c/x [CRATE]/x");
        let text = "+/src/a\n-/src/b\ncc @/src/args x+/src/c";
        assert_eq!(krate.apply(text), "+[CRATE]/a\n-[CRATE]/b\ncc @[CRATE]/args x+/src/c");
        let mut settings = insta::Settings::new();
        krate.apply_to(&mut settings);
        settings.bind(|| {
            insta::assert_snapshot!("/src/src/main.rs +/src/a", @"[CRATE]/src/main.rs +[CRATE]/a")
        });
    }

    /// A session's own home is named for it alone: what goes on after it is a file beside it,
    /// `[HOME].bak`, and a sentence may end on it (review xc: the raw path, with the test's
    /// pid, stayed, so the snapshot changed every run).
    #[test]
    fn a_sessions_home_is_replaced_before_a_name_going_on() {
        let home = Redactions::new().home(Path::new("/tmp/termloom-home-0000001-0000"));
        let text = "Saved to /tmp/termloom-home-0000001-0000. /tmp/termloom-home-0000001-0000.bak \
            /tmp/termloom-home-0000001-0000-old /tmp/termloom-home-0000001-00001";
        let expected = "Saved to [HOME]. [HOME].bak [HOME]-old /tmp/termloom-home-0000001-00001";
        assert_eq!(home.apply(text), expected);
    }

    /// A path as JSON may write it, each `/` escaped (`\/w\/c`), is replaced as the path is,
    /// where it begins and ends, the longer of two first, in a `file:` URL too (it was left:
    /// a JSON log or result in a snapshot kept the machine's paths).
    #[test]
    fn json_escaped_paths_are_replaced() {
        let (krate, target) = (Path::new("/w/c"), Path::new("/w/c/target"));
        let redactions = Redactions::new().path(krate, "[CRATE]").path(target, "[TARGET]");
        let text =
            r#"{"file":"\/w\/c\/src\/lib.rs","bin":"\/w\/c\/target\/debug\/app","dir":"\/w\/c","#;
        let text = format!(
            r#"{text}"other":"\/mnt\/w\/c","near":"\/w\/cc","url":"file:\/\/\/w\/c\/x","path":"\/w\/c:\/w\/c\/bin"}}"#
        );
        let expected = r#"{"file":"[CRATE]\/src\/lib.rs","bin":"[TARGET]\/debug\/app","dir":"[CRATE]","other":"\/mnt\/w\/c","near":"\/w\/cc","url":"file:\/\/[CRATE]\/x","path":"[CRATE]:[CRATE]\/bin"}"#;
        assert_eq!(redactions.apply(&text), expected);
        let home = "/tmp/termloom-home-0000001-0000";
        let escaped = r#""\/tmp\/termloom-home-0000001-0000\/x""#;
        for redactions in [Redactions::new().home(Path::new(home)), Redactions::new().test_homes()]
        {
            assert_eq!(redactions.apply(escaped), r#""[HOME]\/x""#, "{redactions:?}");
        }
    }

    /// Dates as programs in the kit's C locale write them: `date`'s (the day of the week
    /// before the month, which changes with the date too), `date -R`'s and mail's (the day
    /// first), whole month names, and dates in numbers with a year (`%x`, `%D`, `2024/05/17`);
    /// a day and a month in numbers alone, a ratio or a count, stay. (Only the month's
    /// abbreviation and the day were taken, and ISO dates: `Tue [DATE]`, `08 Dec 2026`,
    /// `12/08/26` reached snapshots.)
    #[test]
    fn dates_as_programs_write_them_are_replaced() {
        let words = Redactions::new().month_days().clock_times();
        let rows = [
            ("Tue Dec  8 00:31:07 UTC 2026", "[DATE] [TIME] UTC 2026"),
            ("Date: Tue, 08 Dec 2026 00:31:07 +0000", "Date: [DATE] [TIME] +0000"),
            ("on 8 December 2026.", "on [DATE]."),
            ("Released September 17, 2024", "Released [DATE]"),
            ("Sept 3 and Dec 08", "[DATE] and [DATE]"),
            ("Tuesday, December 8, 2026", "[DATE]"),
            ("Decimal 8, Monday 3, 8 Dec, 3 Mayday", "Decimal 8, Monday 3, 8 Dec, 3 Mayday"),
        ];
        for (row, expected) in rows {
            assert_eq!(words.apply(row), expected, "{row}");
        }
        let numbers = Redactions::new().dates().clock_times();
        let rows = [
            ("12/08/26 00:31:07", "[DATE] [TIME]"),
            ("12/08/2026, 8/12/2026, 2026/12/08", "[DATE], [DATE], [DATE]"),
            ("12/08 done, 3/4, 1/2/345, 2026/1/2", "12/08 done, 3/4, 1/2/345, 2026/1/2"),
            // Triples that are no dates: a month above 12 or a day above 31 either way
            // round, single digits before a two-digit year, and numbers in a path or after a
            // version's dot.
            ("frames 24/30/60, cache 4/8/16", "frames 24/30/60, cache 4/8/16"),
            ("/proc/12/08/26 refs/pull/12/34/56", "/proc/12/08/26 refs/pull/12/34/56"),
            ("go1.21/12/99 v2.12/08/26 x12/08/26", "go1.21/12/99 v2.12/08/26 x12/08/26"),
            ("2024/13/01 2024/05/32 13/13/2024", "2024/13/01 2024/05/32 13/13/2024"),
            // Real ones: either way round, at a line's start, after a space or a bracket.
            ("31/12/2026 12/31/26 (1/9/2026)", "[DATE] [DATE] ([DATE])"),
            ("05/17/24,17/05/24 2024/05/17", "[DATE],[DATE] [DATE]"),
        ];
        for (row, expected) in rows {
            assert_eq!(numbers.apply(row), expected, "{row}");
        }
    }

    /// mc's panels narrower than 70 columns cut the time column's start: what is left between
    /// the borders is masked cell for cell (it was left as it was, `c  8 00:52`); the same
    /// text outside such borders stays.
    #[test]
    fn file_times_cut_by_mcs_narrower_panels_are_masked() {
        let redactions = Redactions::new().file_times();
        let rows = [
            (
                "│/..   │--DIR│ec  8 00:52││ a │3│Dec  8 00:52│",
                "│/..   │--DIR│▒▒▒▒▒▒▒▒▒▒▒││ a │3│▒▒▒▒▒▒▒▒▒▒▒▒│",
            ),
            ("│ notes.txt │    3│c  8 00:52││", "│ notes.txt │    3│▒▒▒▒▒▒▒▒▒▒││"),
            ("|old |3|n  2  2020|", "|old |3|▒▒▒▒▒▒▒▒▒▒|"),
            ("│/..      │DIR│  8 00:52││", "│/..      │DIR│▒▒▒▒▒▒▒▒▒││"),
            ("at c  8 00:52 and │x 8 00:52│", "at c  8 00:52 and │x 8 00:52│"),
        ];
        for (row, expected) in rows {
            assert_eq!(redactions.apply(row), expected, "{row}");
        }
    }

    /// A mask's `mask` group that took no part in a match masks nothing of it (review xc: the
    /// whole match was masked).
    #[test]
    fn a_mask_group_left_out_of_a_match_masks_nothing() {
        let masked = Redactions::new().mask(r"(?:(?P<mask>\d+)|none) done");
        assert_eq!(masked.apply("12 done / none done"), "▒▒ done / none done");
    }

    /// mc's disk usage is masked with its border's run before it, in either border; a ratio
    /// and a percentage without units, or without the border's end after them, stay.
    #[test]
    fn only_mcs_disk_usage_is_masked() {
        let redactions = Redactions::new().disk_usage();
        let rows = [
            ("└──── 198G / 252G (78%) ─┘", "└▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒ ─┘"),
            ("+-- 1.5T / 2T (75%) -+", "+▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒ -+"),
            ("198G / 252G (78%) ─┘", "▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒ ─┘"),
            ("Progress 3 / 4 (75%) done", "Progress 3 / 4 (75%) done"),
            ("Copy - 3G / 4G (75%) done", "Copy - 3G / 4G (75%) done"),
            ("└──── 3 / 4 (75%) ─┘", "└──── 3 / 4 (75%) ─┘"),
        ];
        for (row, masked) in rows {
            assert_eq!(redactions.apply(row), masked, "{row}");
        }
    }
}
