//! The core engine, driven through real programs under real PTYs.

mod common;

use std::time::Duration;

use common::*;
use termloom::{
    Config, Engine, Error, ExitStatus, Fired, ReaderId, Signal, SpawnSpec, Until, shell_program,
};

#[test]
fn python_repl_computes_a_value() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let py = engine.spawn(SpawnSpec::new("python3").args(["-q", "-i"])).unwrap();
    expect(&py, Until::text(">>> "));
    py.submit("6 * 7").unwrap();
    let outcome = expect(&py, Until::regex(r"^42$").unwrap());
    assert!(outcome.matched().is_some());
    let text = read_until(&py, "42\n>>> ");
    assert!(text.contains(">>> 6 * 7\n42\n>>> "), "{text:?}");
    py.submit("exit()").unwrap();
    let outcome = expect(&py, Until::exit());
    assert_eq!(outcome.fired, Fired::Exited { status: ExitStatus::Code(0) });
    // As `WaitOutcome::matched` says: an exit holds `Until::exit` with no `Match`.
    assert!(outcome.matched().is_none() && !outcome.is_timeout(), "{outcome:?}");
}

#[test]
fn long_output_comes_back_complete_and_in_order_across_reads() {
    let engine = termloom::Engine::new(termloom::Config {
        scrollback_lines: 200_000,
        scrollback_bytes: 8 << 20,
        max_read_bytes: 64 << 10,
        ..termloom::Config::default()
    })
    .unwrap();
    let seq = engine.spawn(SpawnSpec::new("seq").arg("100000")).unwrap();
    let mut text = String::new();
    let mut reads = 0;
    loop {
        let out = seq.read().unwrap();
        assert_eq!(out.missed_lines, 0);
        assert!(!out.rewritten);
        text.push_str(&out.text);
        reads += 1;
        if matches!(seq.info().unwrap().state, termloom::SessionState::Exited(_)) && !out.truncated
        {
            let last = seq.read().unwrap();
            text.push_str(&last.text);
            if last.text.is_empty() {
                break;
            }
            continue;
        }
        if !out.truncated {
            seq.wait(Until::exit(), Duration::from_millis(50)).unwrap();
        }
    }
    let expected: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(text.len(), expected.len(), "after {reads} reads");
    assert!(text == expected);
    assert!(reads > 2, "expected several reads, got {reads}");
}

#[test]
fn vim_edits_and_saves_on_the_alternate_screen() {
    if !require("bash") || !require("vim") {
        return;
    }
    let dir = tempdir();
    let engine = engine();
    let sh = bash(&engine);
    sh.submit(&format!("cd {} && echo before-vim", dir.display())).unwrap();
    expect(&sh, Until::screen_contains("before-vim"));
    expect(&sh, Until::screen_row_contains(2, "$"));
    let before = sh.screen().unwrap();
    assert!(!before.alternate);
    sh.submit("vim -u NONE -N notes.txt").unwrap();
    expect(&sh, Until::screen_contains("\"notes.txt\" [New]"));
    let screen = sh.screen().unwrap();
    assert!(screen.alternate, "{screen}");
    sh.send_text("ihello from termloom\x1b").unwrap();
    expect(&sh, Until::screen_row_contains(0, "hello from termloom"));
    sh.send_text(":wq\r").unwrap();
    expect(&sh, Until::screen_contains("$ vim -u NONE -N notes.txt"));
    let after = sh.screen().unwrap();
    assert!(!after.alternate);
    // The shell's screen is back exactly as it was, plus the vim command line.
    assert_eq!(after.lines[..2], before.lines[..2]);
    let saved = std::fs::read_to_string(dir.join("notes.txt")).unwrap();
    assert_eq!(saved, "hello from termloom\n");
    // vim's screen never reached the transcript.
    let text = sh.read().unwrap().text;
    assert!(!text.contains("~"), "{text:?}");
    sh.close().unwrap();
}

#[test]
fn progress_bar_drawn_with_carriage_returns_settles_to_its_last_state() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit(r"for i in 1 2 3; do printf '\\rprogress %d/3' $i; sleep 0.2; done; echo; echo done")
        .unwrap();
    let first = read_until(&sh, "progress");
    let rest = read_until(&sh, "done");
    let all = format!("{first}{rest}");
    assert!(all.contains("progress 3/3\n"), "{all:?}");
    sh.close().unwrap();
}

/// A progress line that pads itself with blanks (wget's `eta 2s     `, written to erase a
/// longer frame) ends at its text for a regex's `$` while the cursor is still after the blanks,
/// as it does once settled: the wait matched only when the program went on.
#[test]
fn a_regex_end_matches_before_the_blanks_a_progress_line_pads_with() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit(r"printf 'z 42%%[==>   ] 5.0MB/s    eta 2s     '; read -rs").unwrap();
    let outcome = expect(&sh, Until::regex(r"eta \d+s$").unwrap());
    assert_eq!(outcome.matched().map(|m| m.text.as_str()), Some("eta 2s"), "{outcome:?}");
    sh.close().unwrap();
}

#[test]
fn a_rewritten_partial_line_is_flagged() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.read().unwrap();
    sh.submit(r"printf 'step 1'; read -rs; printf '\\rstep 2'; read -rs").unwrap();
    expect(&sh, Until::regex("^step 1$").unwrap());
    // `read -s` has turned echo off once bash blocks reading the terminal.
    expect(&sh, Until::input_wait());
    let out = sh.read().unwrap();
    assert!(out.text.ends_with("step 1"), "{out:?}");
    sh.submit("").unwrap();
    expect(&sh, Until::screen_regex("^step 2$").unwrap());
    let out = sh.read().unwrap();
    assert!(out.rewritten, "{out:?} {}", sh.screen().unwrap());
    assert!(out.text.starts_with("step 2"), "{out:?}");
    sh.close().unwrap();
}

#[test]
fn clear_in_the_middle_keeps_earlier_lines_in_the_transcript() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit("echo first; clear; echo second").unwrap();
    // Not the echoed command line, which contains "second" too: the output row itself.
    expect(&sh, Until::screen_regex("^second$").unwrap());
    let text = read_until(&sh, "second\n");
    assert!(text.contains("first\n"), "{text:?}");
    assert!(text.find("first").unwrap() < text.rfind("second").unwrap());
    sh.close().unwrap();
}

/// `clear` for a terminal whose description erases with `CSI H CSI J` (screen, tmux, vt100,
/// linux) keeps what the screen showed before it in the transcript, each line once, as
/// xterm's `CSI 2 J` does: the lines that had not scrolled off were lost.
#[test]
fn clear_by_erasing_down_from_home_keeps_earlier_lines_once() {
    if !require("clear") || !require(&shell_program()) {
        return;
    }
    let engine = engine();
    for term in ["screen", "vt100", "linux"] {
        let line = format!("echo one; echo two; TERM={term} clear; echo three; sleep 30");
        let sh = engine.spawn(SpawnSpec::shell(&line).size(40, 6)).unwrap();
        expect(&sh, Until::screen_regex("^three$").unwrap());
        let text = read_until(&sh, "three\n");
        assert_eq!(text, "one\ntwo\nthree\n", "{term}");
        sh.close().unwrap();
    }
}

/// `clear` written with a charset designation between the move home and the erase down
/// (`CSI H ESC ( 0 ESC ( B CSI J`, as some programs emit it) keeps what the screen showed,
/// as a plain `CSI H CSI J` does: the designation hid the move, and `one` and `two` were lost.
#[test]
fn clear_with_a_charset_switch_after_home_keeps_earlier_lines() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    for clear in [r"\033[H\033(0\033(B\033[J", r"\033[?25l\033[H\033(B\033[J"] {
        let line = format!(r"printf 'one\ntwo\n{clear}three\n'; sleep 30");
        let sh = engine.spawn(SpawnSpec::shell(&line).size(40, 6)).unwrap();
        expect(&sh, Until::screen_regex("^three$").unwrap());
        let text = read_until(&sh, "three\n");
        assert_eq!(text, "one\ntwo\nthree\n", "{clear}");
        sh.close().unwrap();
    }
}

/// `clear` with the cursor hidden (`tput civis`, or a program killed while it hid it) for a
/// terminal whose description erases with `CSI H CSI J` (tmux, screen, linux) keeps what the
/// screen showed in the transcript too: such an erase was taken for a line editor redrawing
/// its prompt from the first row, and `one` was lost.
#[test]
fn clear_with_the_cursor_hidden_keeps_earlier_lines() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    for term in ["tmux-256color", "screen", "linux"] {
        let line = "echo one; tput civis; clear; echo three; sleep 30";
        let spec = SpawnSpec::new("bash").args(["-c", line]).env("TERM", term).size(40, 6);
        let sh = engine.spawn(spec).unwrap();
        expect(&sh, Until::screen_regex("^three$").unwrap());
        let text = read_until(&sh, "three\n");
        assert_eq!(text, "one\nthree\n", "{term}");
        sh.close().unwrap();
    }
}

/// `tput civis; echo one; clear; echo two; clear` under `TERM=screen` (`CSI H CSI J`, the
/// cursor hidden throughout) keeps `two`, which a person saw between the clears: it was lost,
/// the second clear taken for a monitor's next frame. A monitor's loop of clears, the cursor
/// hidden, keeps every frame, each once, as under xterm (it kept its first alone).
#[test]
fn a_line_between_two_clears_with_the_cursor_hidden_is_kept() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    let line = "echo zero; tput civis; echo one; clear; echo two; clear; echo three; sleep 30";
    let spec = SpawnSpec::new("bash").args(["-c", line]).env("TERM", "screen").size(40, 6);
    let sh = engine.spawn(spec).unwrap();
    expect(&sh, Until::screen_regex("^three$").unwrap());
    sh.close().unwrap();
    assert_eq!(sh.scrollback(1 << 20).unwrap().text, "zero\none\ntwo\nthree\n");
    // Each frame's clear and text in one write: the session closed between them would show
    // an empty screen.
    let line = "echo zero; tput civis; i=0; while :; do printf '\\033[H\\033[Jframe %d\\n' $i; \
        i=$((i+1)); sleep 0.1; done";
    let spec = SpawnSpec::new("bash").args(["-c", line]).env("TERM", "screen").size(40, 6);
    let sh = engine.spawn(spec).unwrap();
    expect(&sh, Until::screen_regex("^frame 5$").unwrap());
    sh.close().unwrap();
    let text = sh.scrollback(1 << 20).unwrap().text;
    let frames: Vec<&str> = text.lines().skip(1).collect();
    let wanted: Vec<String> = (0..frames.len()).map(|n| format!("frame {n}")).collect();
    assert!(text.starts_with("zero\n") && frames.len() >= 6, "{text:?}");
    assert_eq!(frames, wanted, "{text:?}");
}

/// A log redrawn from its scrolling region's top under origin mode (`CSI 3;5 r`, `CSI ? 6 h`,
/// `CSI H`) between two clears, the cursor hidden, draws no frames from the screen's top-left:
/// the second clear settles what the screen showed. Its two moves were counted as moves to the
/// top-left, a monitor's frames, and the clear erased only: `one`, `log b` and `two` were lost.
#[test]
fn moves_to_a_regions_top_under_origin_mode_draw_no_frames() {
    if !require("sh") {
        return;
    }
    let engine = engine();
    let line = "printf '\\033[?25lzero\\n\\033[H\\033[Jone\\n'; \
        printf '\\033[3;5r\\033[?6h\\033[Hlog a\\033[Hlog b\\033[?6l\\033[r'; \
        printf '\\033[6;1Htwo\\n\\033[H\\033[Jthree\\n'; sleep 30";
    let spec = SpawnSpec::new("sh").args(["-c", line]).size(40, 8);
    let sh = engine.spawn(spec).unwrap();
    expect(&sh, Until::screen_regex("^three$").unwrap());
    sh.close().unwrap();
    let text = sh.scrollback(1 << 20).unwrap().text;
    assert_eq!(text, "zero\none\n\nlog b\n\n\ntwo\nthree\n", "{text:?}");
}

/// A bash without start files or prompt marks (`PS1` `$ `), `TERM=screen` (`clear` is
/// `CSI H CSI J`), 40 columns by `rows`, at its prompt.
fn bash_without_marks_under_screen(engine: &termloom::Engine, rows: u16) -> termloom::Session {
    let spec = SpawnSpec::new("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .env("HISTFILE", "/dev/null")
        .env("TERM", "screen")
        .size(40, rows);
    let sh = engine.spawn(spec).unwrap();
    expect(&sh, Until::screen_contains("$"));
    sh
}

/// A wait for text after two clears with the cursor hidden (`TERM=screen`, `bash --norc`)
/// matches only text printed after it: the frame the second clear erased was held aside and
/// settled once the shell was found back, renumbering the lines already read, so a wait for
/// `build done` matched the one read before, while the command still slept (0.01 s, not 3 s).
#[test]
fn a_wait_after_two_clears_with_the_cursor_hidden_matches_no_text_already_read() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash_without_marks_under_screen(&engine, 20);
    sh.send_text("tput civis; clear; echo A1\n").unwrap();
    expect(&sh, Until::screen_regex("^A1$").unwrap());
    sh.send_text("clear; echo build done\n").unwrap();
    expect(&sh, Until::screen_regex("^build done$").unwrap());
    sh.read().unwrap();
    // The shell found back at its prompt after the read ended the frames.
    expect(&sh, Until::input_wait());
    // (Quoted apart: the command line echoed holds no `build done`.)
    sh.send_text("echo started; sleep 2; echo build' 'done\n").unwrap();
    expect(&sh, Until::text("build done"));
    let screen = sh.screen().unwrap().text();
    let started = screen.find("\nstarted\n").unwrap_or_else(|| panic!("{screen:?}"));
    assert!(screen[started..].contains("\nbuild done\n"), "matched early: {screen:?}");
    let text = sh.read().unwrap().text;
    assert!(!text.contains("A1"), "{text:?}");
    assert_eq!(text.matches("build done").count(), 1, "{text:?}");
    sh.close().unwrap();
}

/// Commands typed ahead in one send at a shell without prompt marks, the cursor left hidden
/// (`tput civis`), under `TERM=screen`: the lines between their two clears are kept (`b` and
/// its command line were lost), settled by the second clear.
#[test]
fn lines_between_clears_typed_ahead_with_the_cursor_hidden_are_kept() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash_without_marks_under_screen(&engine, 8);
    sh.send_text("tput civis\necho a; clear\necho b; clear\necho c\n").unwrap();
    expect(&sh, Until::screen_regex("^c$").unwrap());
    expect(&sh, Until::input_wait());
    let text = sh.scrollback(1 << 20).unwrap().text;
    let b = text.find("\nb\n").unwrap_or_else(|| panic!("{text:?}"));
    assert!(text.find("\na\n").is_some_and(|a| a < b), "{text:?}");
    assert!(text.find("\nc\n").is_some_and(|c| b < c), "{text:?}");
    sh.close().unwrap();
}

/// Three clears typed ahead in one send at a shell without prompt marks, the cursor left
/// hidden, under `TERM=screen`, read once: every frame between them is kept, each once (`b`
/// and `$ clear; echo c` were lost, the third clear taken for a monitor's next frame).
#[test]
fn a_third_frame_between_clears_typed_ahead_with_the_cursor_hidden_is_kept() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash_without_marks_under_screen(&engine, 8);
    sh.send_text("tput civis\n").unwrap();
    expect(&sh, Until::input_wait());
    sh.read().unwrap();
    sh.send_text("clear; echo a\nclear; echo b\nclear; echo c\n").unwrap();
    expect(&sh, Until::screen_regex("^c$").unwrap());
    expect(&sh, Until::input_wait());
    let text = sh.read().unwrap().text;
    // (The prompt before the first command was read with `tput civis`'s output.)
    let wanted = "clear; echo a\na\n$ clear; echo b\nb\n$ clear; echo c\nc\n$ ";
    assert_eq!(text, wanted);
    sh.close().unwrap();
}

/// At a shell without prompt marks, the cursor left hidden, under `TERM=screen`, waits on
/// text alone (no probe finds the shell back, so the frames the hidden cursor started go on):
/// the output of every clear reaches the transcript and the reads, each once. A loop's
/// `frame2` and `frame3`, and the commands `clear; echo C3` and `clear; echo D4` sent one by
/// one, were lost from the transcript: every clear after the second erased only.
#[test]
fn clears_waited_for_by_text_with_the_cursor_hidden_keep_every_frame() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash_without_marks_under_screen(&engine, 12);
    let line =
        "tput civis; for i in 1 2 3 4; do clear; echo frame$i; sleep 0.3; done; echo loop' 'done\n";
    sh.send_text(line).unwrap();
    expect(&sh, Until::text("loop done"));
    let text = sh.read().unwrap().text;
    for i in 1..=4 {
        assert_eq!(text.matches(&format!("\nframe{i}\n")).count(), 1, "frame{i}: {text:?}");
    }
    assert!(text.contains("frame1\nframe2\nframe3\nframe4\nloop done\n"), "{text:?}");
    sh.close().unwrap();
    let sh = bash_without_marks_under_screen(&engine, 12);
    sh.send_text("tput civis; clear; echo A1\n").unwrap();
    expect(&sh, Until::regex("^A1$").unwrap());
    let mut read = sh.read().unwrap().text;
    for name in ["B2", "C3", "D4"] {
        sh.send_text(&format!("clear; echo {name}\n")).unwrap();
        expect(&sh, Until::regex(&format!("^{name}$")).unwrap());
        read.push_str(&sh.read().unwrap().text);
    }
    let kept = sh.scrollback(1 << 20).unwrap().text;
    for name in ["A1", "B2", "C3", "D4"] {
        let line = format!("\n{name}\n");
        assert_eq!(kept.matches(&line).count(), 1, "{name}: {kept:?}");
        assert_eq!(read.matches(&line).count(), 1, "{name}: {read:?}");
        let command = format!("$ clear; echo {name}\n");
        assert_eq!(kept.matches(&command).count(), usize::from(name != "A1"), "{kept:?}");
    }
    sh.close().unwrap();
}

/// A loop under `TERM=screen` that hides the cursor, redraws a status line from the top-left
/// each iteration (`tput sc`, `tput cup 0 0`, its text, `tput rc`; or `printf '\033[s'` …
/// `printf '\033[u'`), prints a line and clears every third iteration keeps every line, each
/// once: the status lines were taken for frames drawn from the top-left between two clears,
/// and every line after the first clear was lost (with `CSI s` and `CSI u`, every line).
#[test]
fn a_status_line_redrawn_between_clears_with_the_cursor_hidden_loses_no_line() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    for (save, restore) in [("tput sc", "tput rc"), ("printf '\\033[s'", "printf '\\033[u'")] {
        let sh = bash_without_marks_under_screen(&engine, 12);
        let line = format!(
            "tput civis; clear; echo; for i in 1 2 3 4 5 6 7 8 9; do {save}; tput cup 0 0; \
             printf 'status %s' $i; {restore}; echo line$i; \
             if [ $((i % 3)) = 0 ]; then clear; echo; fi; done; echo loop' 'done\n"
        );
        sh.send_text(&line).unwrap();
        expect(&sh, Until::text("loop done"));
        let text = sh.read().unwrap().text;
        for i in 1..=9 {
            let times = text.matches(&format!("\nline{i}\n")).count();
            assert_eq!(times, 1, "{save}: line{i}: {text:?}");
        }
        sh.close().unwrap();
    }
}

/// A `clear` with the cursor shown after one with it hidden (`tput civis; clear; tput cnorm`)
/// keeps the lines printed between in the transcript under `TERM=screen` (`CSI H CSI J`): the
/// hidden clear started frames, and the shown one was taken for a frame after the first, its
/// erase settling nothing (`one` and `two` lost in 2 of 3 runs, depending on how the reads
/// were split: run ten times, so that a split that loses them comes).
#[test]
fn clear_with_the_cursor_shown_after_a_hidden_one_keeps_the_lines_between() {
    if !require("clear") || !require("tput") || !require("bash") {
        return;
    }
    let engine = engine();
    let line = "echo zero; tput civis; clear; tput cnorm; echo one; echo two; clear; echo three; \
        sleep 30";
    for run in 0..10 {
        let spec = SpawnSpec::new("bash").args(["-c", line]).env("TERM", "screen").size(40, 6);
        let sh = engine.spawn(spec).unwrap();
        expect(&sh, Until::screen_regex("^three$").unwrap());
        let text = read_until(&sh, "three\n");
        assert_eq!(text, "zero\none\ntwo\nthree\n", "run {run}");
        sh.close().unwrap();
    }
}

/// A status line above a scrolling region (`CSI 3 ; 8 r`, as irssi, weechat and some progress
/// displays keep one on the primary screen): the lines scrolled off the region's top are in
/// the transcript, each once and in order, before what the screen still shows. They were lost
/// (alacritty keeps only rows scrolled off the screen's top).
#[test]
fn lines_scrolled_off_a_region_under_a_status_line_are_kept() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let line = r"printf '\033[3;8r\033[1;1Hstatus: running\033[3;1H'; i=1; \
        while [ $i -le 20 ]; do echo log $i; i=$((i+1)); done; printf '\033[r\033[8;1Hdone'; \
        sleep 30";
    let sh = engine.spawn(SpawnSpec::shell(line).size(40, 8)).unwrap();
    expect(&sh, Until::screen_regex("^done").unwrap());
    let text = sh.scrollback(1 << 20).unwrap().text;
    let logs: String = (1..=15).map(|i| format!("log {i}\n")).collect();
    let shown: String = (16..=20).map(|i| format!("log {i}\n")).collect();
    assert_eq!(text, format!("{logs}status: running\n\n{shown}done"));
    sh.close().unwrap();
}

/// A log scrolling under a status line (a scrolling region below the screen's top): a reader
/// who reads after each line gets that line alone, never a rewrite. Every read after a scroll
/// returned the status line and the whole region again, marked `rewritten` (the unsettled
/// lines began with the status line and were numbered anew each time a row settled beneath
/// it). The status line joins the transcript at the end.
#[test]
fn reads_of_a_log_under_a_status_line_return_only_what_is_new() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let line = r"stty -echo; printf '\033[3;8r\033[1;1Hstatus: running\033[3;1H'; i=1; \
        while [ $i -le 10 ]; do echo log $i; i=$((i+1)); done; \
        while read l; do echo got $l; done";
    let sh = engine.spawn(SpawnSpec::shell(line).size(40, 8)).unwrap();
    let read = |needle: &str| {
        let mut text = String::new();
        loop {
            let out = sh.read().unwrap();
            assert!(!out.rewritten, "after {text:?}: {:?}", out.text);
            text.push_str(&out.text);
            if text.contains(needle) {
                return text;
            }
            expect(&sh, Until::text(needle.trim_end()));
        }
    };
    let logs: String = (1..=10).map(|i| format!("log {i}\n")).collect();
    assert_eq!(read("log 10\n"), logs);
    let mut got = String::new();
    for word in ["one", "two", "three", "four", "five", "six", "seven", "eight"] {
        sh.submit(word).unwrap();
        let new = format!("got {word}\n");
        assert_eq!(read(&new), new);
        got.push_str(&new);
    }
    assert_eq!(sh.scrollback(1 << 20).unwrap().text, format!("{logs}{got}"));
    sh.close().unwrap();
    let text = sh.scrollback(1 << 20).unwrap().text;
    assert!(text.starts_with(&logs) && text.contains("status: running\n"), "{text:?}");
}

/// A line soft-wrapped across a region's last row under a status line, whose first row scrolled
/// off the region, settles whole after the status line once the region is reset and the whole
/// screen scrolls, as the screen showed them: it was cut in two around the status line.
#[test]
fn a_wrapped_line_under_a_status_line_settles_whole_after_the_region_is_reset() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let line = r"printf '\033[2;4r\033[1;1Htop\033[2;1Ha\nb\n0123456789abc\n\n\033[r\033[4;1H\n\n\n\ndone'; \
        sleep 30";
    let sh = engine.spawn(SpawnSpec::shell(line).size(10, 4)).unwrap();
    expect(&sh, Until::screen_regex("^done").unwrap());
    let text = sh.scrollback(1 << 20).unwrap().text;
    assert_eq!(text, format!("a\nb\ntop\n0123456789abc{}done", "\n".repeat(6)));
    sh.close().unwrap();
}

/// A terminal reset (`ESC c`, as `tput reset` and `reset` print it) wipes the screen: what it
/// showed was read, and stays in the transcript, from the primary screen and from under the
/// alternate one.
#[test]
fn a_terminal_reset_keeps_what_the_screen_showed_in_the_transcript() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    for (line, expected) in [
        (r"printf 'one\ntwo\033cthree\n'; sleep 30", "one\ntwo\nthree\n"),
        (r"printf 'one\ntwo\033[?1049hfull\033cthree\n'; sleep 30", "one\ntwo\nthree\n"),
    ] {
        let sh = engine.spawn(SpawnSpec::shell(line).size(40, 6)).unwrap();
        expect(&sh, Until::screen_regex("^three$").unwrap());
        let text = read_until(&sh, "three\n");
        assert_eq!(text, expected, "{line}");
        sh.close().unwrap();
    }
}

/// Clearing a screen that shows nothing (a `clear` or a reset as a program starts) adds no
/// empty line to the transcript.
#[test]
fn clearing_a_blank_screen_adds_no_line() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    for line in [
        r"printf '\033[H\033[2J'; echo hi; sleep 30",
        r"printf '\033[2J\033[H\033[2J\033[3J'; echo hi; sleep 30",
        r"printf '\033c'; echo hi; sleep 30",
    ] {
        let sh = engine.spawn(SpawnSpec::shell(line).size(40, 6)).unwrap();
        expect(&sh, Until::screen_regex("^hi$").unwrap());
        assert_eq!(read_until(&sh, "hi\n"), "hi\n", "{line}");
        sh.close().unwrap();
    }
}

/// Lines that scrolled off the primary screen in the same write that switched to the
/// alternate screen are read while the alternate screen is up (and kept when the program
/// ends there), like the lines that scrolled off before, and so are the rows it hides, but
/// the line left half-written at the cursor (`l5`), read once the program is back.
#[test]
fn lines_scrolled_off_as_the_alternate_screen_opens_are_read_at_once() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let line = r"printf 'l1\nl2\nl3\nl4\nl5\033[?1049h\033[Hfull'; sleep 30";
    let sh = engine.spawn(SpawnSpec::shell(line).size(20, 3)).unwrap();
    expect(&sh, Until::screen_contains("full"));
    assert_eq!(sh.read().unwrap().text, "l1\nl2\nl3\nl4\n");
    sh.close().unwrap();
}

/// The retained transcript (`scrollback`, the command line's final transcript) keeps what
/// the primary screen showed while a full-screen program hides it, also when the program is
/// still on the alternate screen as the session ends.
#[test]
fn the_transcript_keeps_the_primary_screen_under_a_full_screen_program() {
    if !require("bash") || !require("less") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit("echo hello").unwrap();
    expect(&sh, Until::screen_regex("^hello$").unwrap());
    expect(&sh, Until::screen_regex(r"^\$ $").unwrap());
    sh.submit("seq 1 100 | less").unwrap();
    expect(&sh, Until::screen_regex("^20$").unwrap());
    assert!(sh.screen().unwrap().alternate);
    let text = sh.scrollback(1 << 20).unwrap().text;
    assert_eq!(text, "$ echo hello\nhello\n$ seq 1 100 | less\n", "{text:?}");
    sh.close().unwrap();
    assert_eq!(sh.scrollback(1 << 20).unwrap().text, text);
}

/// What a full-screen program's command printed on the primary screen between two of its
/// screens (vifm's `:!cmd`, which leaves its screen, runs the command, and takes it back
/// without a pause) is read as soon as the program is back, not once it ends: a read saw
/// nothing new, and an MCP call only the unchanged screen, though the command had printed.
/// What was typed at the primary screen before a program took the alternate screen stays
/// unread while it is up (the shell's prompt and the command that started it).
#[test]
fn what_a_full_screen_programs_command_printed_is_read_once_it_is_back() {
    if !require("vifm") {
        return;
    }
    let dir = TestDir::new("vifm-command");
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("note.txt"), "milk\n").unwrap();
    let files = files.display().to_string();
    let engine = engine();
    let spec = SpawnSpec::new("vifm")
        .args([&files, &files])
        .env("HOME", dir.display().to_string())
        .size(80, 24);
    let vifm = engine.spawn(spec).unwrap();
    expect(&vifm, Until::screen_contains("note.txt"));
    expect(&vifm, Until::input_wait());
    assert_eq!(vifm.read().unwrap().text, "");
    vifm.send_keys(":!echo printed-$((6*7))<Enter>").unwrap();
    expect(&vifm, Until::text("printed-42"));
    expect(&vifm, Until::input_wait());
    assert!(vifm.screen().unwrap().alternate);
    let read = vifm.read().unwrap();
    assert!(read.text.contains("printed-42\n"), "{read:?}");
    vifm.send_keys(":q<Enter>").unwrap();
    expect(&vifm, Until::exit());
    let rest = vifm.read().unwrap();
    assert!(!rest.text.contains("printed-42") && !rest.rewritten, "{rest:?}");
}

/// A transcript wait searches what a read gives: the lines a program printed on the primary
/// screen between two of its screens, here left and taken back in one write, so no check can
/// see the primary screen in between (the wait searched only the tail, which the alternate
/// screen hides, and timed out every time while a read gave the line).
#[test]
fn a_wait_finds_what_a_full_screen_program_printed_between_two_screens() {
    if !require("bash") {
        return;
    }
    let script = r#"printf '\033[?1049h\033[Hscreen A'; read -rsn1
printf '\033[?1049lprinted-%s\n\033[?1049h\033[Hscreen A' 42; read -rsn1"#;
    let engine = engine();
    let program = engine.spawn(SpawnSpec::new("bash").args(["-c", script]).size(80, 24)).unwrap();
    expect(&program, Until::input_wait());
    assert_eq!(program.read().unwrap().text, "");
    program.send_keys("x").unwrap();
    expect(&program, Until::text("printed-42"));
    expect(&program, Until::input_wait());
    assert!(program.screen().unwrap().alternate);
    assert_eq!(program.read().unwrap().text, "printed-42\n");
    program.close().unwrap();
}

/// What a full-screen program printed between two of its screens is read while it is back
/// when input was typed at the primary screen meanwhile too (the line answered there), as it
/// would be on the primary screen: the reader had not read it.
#[test]
fn input_typed_between_two_screens_is_read_while_the_program_is_back() {
    if !require("bash") {
        return;
    }
    let script = r#"printf '\033[?1049h\033[Hscreen A'; read -rsn1
printf '\033[?1049lname? '; read -r name
printf '\033[?1049h\033[Hscreen B'; read -rsn1"#;
    let engine = engine();
    let program = engine.spawn(SpawnSpec::new("bash").args(["-c", script]).size(80, 24)).unwrap();
    expect(&program, Until::input_wait());
    assert_eq!(program.read().unwrap().text, "");
    program.send_keys("x").unwrap();
    expect(&program, Until::screen_contains("name?"));
    expect(&program, Until::input_wait());
    program.submit("bob").unwrap();
    expect(&program, Until::screen_contains("screen B"));
    expect(&program, Until::input_wait());
    assert_eq!(program.read().unwrap().text, "name? bob\n");
    program.send_keys("x").unwrap();
    expect(&program, Until::exit());
    let rest = program.read().unwrap();
    assert!(rest.text.is_empty() && !rest.rewritten, "{rest:?}");
}

/// The lines a command printed just before a full-screen program took the alternate screen
/// (`echo one; echo two; vim`, git's hook output before its editor, gdb's banner before its
/// TUI) are read while the program is up, as a person saw them before it drew: they were
/// still rows of the primary screen, and came only with the first read after vim ended. They
/// are not read again when it ends, nor when a program takes the alternate screen again and
/// again (each line printed between its screens read once).
#[test]
fn lines_printed_just_before_a_full_screen_program_are_read_while_it_runs() {
    if !require("bash") || !require("vim") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    expect(&sh, Until::input_wait());
    assert_eq!(sh.read().unwrap().text, "$ ");
    let line = "echo one; echo two; vim -u NONE -N -n -i NONE";
    sh.submit(line).unwrap();
    expect(&sh, Until::screen_contains("VIM - Vi IMproved"));
    expect(&sh, Until::input_wait());
    assert!(sh.screen().unwrap().alternate);
    assert_eq!(sh.read().unwrap().text, format!("{line}\none\ntwo\n"));
    sh.send_keys(":q<Enter>").unwrap();
    expect(&sh, Until::screen_regex(r"^\$ $").unwrap());
    expect(&sh, Until::input_wait());
    let back = sh.read().unwrap();
    assert_eq!((back.text.as_str(), back.rewritten), ("$ ", false), "{back:?}");
    let line = r#"for i in 1 2 3; do echo line-$i; printf '\033[?1049h\033[Hscreen %s' $i; read -rsn1; printf '\033[?1049l'; done"#;
    sh.submit(line).unwrap();
    for i in 1..=3 {
        expect(&sh, Until::screen_contains(format!("screen {i}")));
        expect(&sh, Until::input_wait());
        let read = sh.read().unwrap();
        let echo = if i == 1 { format!("{line}\n") } else { String::new() };
        assert_eq!((read.text, read.rewritten), (format!("{echo}line-{i}\n"), false));
        sh.send_keys("x").unwrap();
    }
    expect(&sh, Until::screen_regex(r"^\$ $").unwrap());
    expect(&sh, Until::input_wait());
    let back = sh.read().unwrap();
    assert_eq!((back.text.as_str(), back.rewritten), ("$ ", false), "{back:?}");
    sh.close().unwrap();
}

/// A line a command left half-written at the cursor before it started a full-screen program
/// is read once the program is back, not while it is up: `git commit` prints `hint: Waiting
/// for your editor to close the file... ` with no line break, starts the editor, and erases
/// that line (`CR EL`) for its summary once the editor ends; read while vim was up, it made
/// the read after `:wq` begin with the marker of a line since redrawn. The lines finished
/// before it are still read while the program is up.
#[test]
fn a_half_written_line_before_a_full_screen_program_is_read_once_it_is_back() {
    if !require("bash") || !require("vim") || !require("git") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    expect(&sh, Until::input_wait());
    let line = "echo one; echo two; vim -u NONE -N -n -i NONE";
    sh.submit(line).unwrap();
    expect(&sh, Until::screen_contains("VIM - Vi IMproved"));
    expect(&sh, Until::input_wait());
    assert_eq!(sh.read().unwrap().text, format!("$ {line}\none\ntwo\n"));
    sh.send_keys(":q<Enter>").unwrap();
    expect(&sh, Until::screen_regex(r"^\$ $").unwrap());
    let setup = "cd \"$(mktemp -d)\" && git init -q -b main && git config user.name t && \
                 git config user.email t@example.com && echo a > f && git add f && \
                 export GIT_EDITOR='vim -u NONE -N -n -i NONE' && echo set-$((1 + 1))";
    sh.submit(setup).unwrap();
    expect(&sh, Until::text("set-2"));
    expect(&sh, Until::input_wait());
    sh.read().unwrap();
    sh.submit("git commit").unwrap();
    expect(&sh, Until::screen_contains("Please enter the commit message"));
    expect(&sh, Until::input_wait());
    assert!(sh.screen().unwrap().alternate);
    let up = sh.read().unwrap();
    assert_eq!((up.text.as_str(), up.rewritten), ("git commit\n", false), "{up:?}");
    sh.send_keys("ihello<Esc>:wq<Enter>").unwrap();
    expect(&sh, Until::screen_contains("1 file changed"));
    expect(&sh, Until::input_wait());
    let back = sh.read().unwrap();
    assert!(!back.rewritten, "{back:?}");
    assert!(back.text.starts_with("[main (root-commit) "), "{back:?}");
    assert!(back.text.contains("] hello\n"), "{back:?}");
    sh.submit("rm -rf \"$PWD\"").unwrap();
    sh.close().unwrap();
}

/// A line read at the cursor before a full-screen program took the screen is not read again
/// once the program is back and the line is continued: vim's `:!cmd` leaves `Press ENTER or
/// type command to continue` at the primary screen's cursor, read as its output, and a read
/// while vim was back on the alternate screen (a key's result) took that line as empty, so
/// the next `:!cmd` (or `:q`) began its output with the same line again, unflagged.
#[test]
fn a_line_read_before_a_full_screen_program_took_the_screen_is_not_read_again() {
    if !require("bash") || !require("vim") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    expect(&sh, Until::input_wait());
    sh.submit("vim -u NONE -N -n -i NONE").unwrap();
    expect(&sh, Until::screen_contains("VIM - Vi IMproved"));
    expect(&sh, Until::input_wait());
    sh.read().unwrap();
    let press = "Press ENTER or type command to continue";
    sh.send_keys(":!echo one<Enter>").unwrap();
    expect(&sh, Until::text(press));
    expect(&sh, Until::input_wait());
    let one = sh.read().unwrap();
    assert!(one.text.ends_with(&format!("one\n\n{press}")), "{one:?}");
    sh.send_keys("<Enter>").unwrap();
    expect(&sh, Until::screen_regex("^~").unwrap());
    expect(&sh, Until::input_wait());
    let up = sh.read().unwrap();
    assert_eq!((up.text.as_str(), up.rewritten), ("", false), "{up:?}");
    sh.send_keys(":!echo two<Enter>").unwrap();
    expect(&sh, Until::text("two"));
    expect(&sh, Until::text(press));
    expect(&sh, Until::input_wait());
    let two = sh.read().unwrap();
    assert_eq!((two.text.as_str(), two.rewritten), (&*format!("\ntwo\n\n{press}"), false));
    sh.send_keys("<Enter>").unwrap();
    expect(&sh, Until::screen_regex("^~").unwrap());
    expect(&sh, Until::input_wait());
    let up = sh.read().unwrap();
    assert_eq!((up.text.as_str(), up.rewritten), ("", false), "{up:?}");
    sh.send_keys(":q<Enter>").unwrap();
    expect(&sh, Until::screen_regex(r"^\$ $").unwrap());
    expect(&sh, Until::input_wait());
    let back = sh.read().unwrap();
    assert_eq!((back.text.as_str(), back.rewritten), ("\n$ ", false), "{back:?}");
    sh.close().unwrap();
}

/// A line rewritten at the cursor after it was read, before a full-screen program took the
/// screen, is read rewritten, with its new text, once the program is back, and a read while
/// the program is up has nothing new: that read was marked `rewritten` with no text (the line
/// left out as the hidden tail's cursor line, where the reader had been given `abc`).
#[test]
fn a_line_rewritten_before_a_full_screen_program_took_the_screen_is_read_when_it_is_back() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    expect(&sh, Until::input_wait());
    sh.submit(concat!(
        r"printf 'a%sc' b; read -rsn1; printf '\\rx%sz\\e[?1049h\\e[HU%s' y P; read -rsn1; ",
        r"printf '\\e[?1049l'; read -rsn1"
    ))
    .unwrap();
    expect(&sh, Until::text("abc"));
    expect(&sh, Until::input_wait());
    let given = sh.read().unwrap();
    assert!(given.text.ends_with("abc"), "{given:?}");
    sh.send_keys("k").unwrap();
    expect(&sh, Until::screen_contains("UP"));
    expect(&sh, Until::input_wait());
    let up = sh.read().unwrap();
    assert_eq!((up.text.as_str(), up.rewritten), ("", false), "{up:?}");
    sh.send_keys("k").unwrap();
    expect(&sh, Until::screen_contains("xyz"));
    expect(&sh, Until::input_wait());
    let back = sh.read().unwrap();
    assert_eq!((back.text.as_str(), back.rewritten), ("xyz", true), "{back:?}");
    sh.send_keys("k").unwrap();
    expect(&sh, Until::screen_contains("xyz$ "));
    sh.close().unwrap();
}

#[test]
fn wide_and_combining_characters() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let sh = engine
        .spawn(SpawnSpec::shell("printf '中文 e\\xcc\\x81 ok\\n'; sleep 30").size(20, 5))
        .unwrap();
    expect(&sh, Until::screen_contains("ok"));
    let screen = sh.screen().unwrap();
    assert_eq!(screen.lines[0], "中文 e\u{301} ok");
    let found = screen.find("ok").unwrap();
    assert_eq!(found.col, 7);
    assert!(sh.read().unwrap().text.starts_with("中文 e\u{301} ok\n"));
    sh.close().unwrap();
}

#[test]
fn resize_is_seen_by_the_child() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit("stty size").unwrap();
    expect(&sh, Until::text("32 120"));
    sh.resize(100, 40).unwrap();
    sh.submit("stty size").unwrap();
    expect(&sh, Until::text("40 100"));
    let screen = sh.screen().unwrap();
    assert_eq!((screen.cols, screen.rows), (100, 40));
    assert!(matches!(sh.resize(0, 10), Err(Error::InvalidSize { .. })));
    sh.close().unwrap();
}

/// Resizing while bash edits a soft-wrapped command line: bash redraws the line from where it
/// laid it out, erasing each row on its way up. Widening rejoined the line's rows, and the
/// redraw erased the output line above the command line before it was read; narrowing left
/// the line's first row soft-wrapped into the redrawn line, read as one with it. Every line
/// is read once now, as the screen shows them.
#[test]
fn resizing_while_bash_edits_a_wrapped_line_loses_no_line_above() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let typed = "echo abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    // bash's redraw leaves the cursor where the line ends, laid out at the new width (a row
    // above where the reflow left it), and a narrowing's leftover row a line of its own.
    let redrawn = |from: u16, to: u16| match (from, to) {
        (20, 40) => Until::cursor_at(4, 13),
        (20, 60) => Until::cursor_at(3, 53),
        _ => Until::regex(r"^\$ echo abcdefghijklm$").unwrap(),
    };
    for (from, to) in [(20, 40), (20, 60), (40, 20)] {
        let spec = SpawnSpec::new("bash")
            .args(["--norc", "--noprofile"])
            .env("PS1", "$ ")
            .env("HISTFILE", "/dev/null")
            .size(from, 8);
        let sh = engine.spawn(spec).unwrap();
        expect(&sh, Until::input_wait());
        sh.submit("echo one; echo two").unwrap();
        expect(&sh, Until::screen_regex("^two$").unwrap());
        // (bash reads again before the line is typed: typed ahead while it still ran the
        // command, the terminal echoed the line, and readline drew it again after its prompt.)
        expect(&sh, Until::input_wait());
        sh.send_text(typed).unwrap();
        expect(&sh, Until::screen_contains("GHIJ"));
        expect(&sh, Until::input_wait());
        sh.resize(to, 8).unwrap();
        expect(&sh, redrawn(from, to));
        expect(&sh, Until::input_wait());
        let text = sh.scrollback(1 << 20).unwrap().text;
        let left = if to < from { "$ echo abcdefghijklm\n" } else { "" };
        let expected = format!("$ echo one; echo two\none\ntwo\n{left}$ {typed}");
        assert_eq!(text, expected, "{from} to {to} columns");
        sh.close().unwrap();
    }
}

#[test]
fn an_exited_session_refuses_resize_as_it_refuses_input() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("true")).unwrap();
    expect(&s, Until::exit());
    assert!(matches!(s.send_text("x"), Err(Error::SessionExited(_))));
    let err = s.resize(100, 40).unwrap_err();
    assert!(matches!(err, Error::SessionExited(_)), "{err}");
    assert!(err.to_string().contains("has exited"), "{err}");
}

#[test]
fn output_written_just_before_exit_is_not_lost() {
    let engine = engine();
    for _ in 0..20 {
        let s = engine
            .spawn(SpawnSpec::new("sh").args(["-c", "seq 2000; printf 'last words'; exit 3"]))
            .unwrap();
        let outcome = expect(&s, Until::exit());
        assert_eq!(outcome.fired, Fired::Exited { status: ExitStatus::Code(3) });
        let text = s.scrollback(1 << 20).unwrap().text;
        assert!(text.ends_with("2000\nlast words"), "{:?}", &text[text.len().saturating_sub(40)..]);
    }
}

/// A program that moves the cursor up and then ends (a progress display that goes back to
/// redraw its first line, killed there) leaves rows below the cursor that a person read: the
/// final transcript has them, whether the program exited or the session was closed, and no
/// blank rows after them.
#[test]
fn rows_below_the_cursor_are_in_the_final_transcript() {
    let engine = engine();
    let script = r"printf 'step 1\nstep 2\nstep 3\n\033[3Aupdating'";
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script]).size(40, 8)).unwrap();
    expect(&s, Until::exit());
    assert_eq!(s.scrollback(1 << 20).unwrap().text, "updating\nstep 2\nstep 3");
    let s = engine
        .spawn(SpawnSpec::new("sh").args(["-c", &format!("{script}; sleep 30")]).size(40, 8))
        .unwrap();
    expect(&s, Until::screen_contains("updating"));
    assert_eq!(s.read().unwrap().text, "updating");
    s.close().unwrap();
    assert_eq!(s.read().unwrap().text, "\nstep 2\nstep 3");
    assert_eq!(s.scrollback(1 << 20).unwrap().text, "updating\nstep 2\nstep 3");
}

#[test]
fn no_descriptor_leaks_into_the_child() {
    let engine = engine();
    // Keep some descriptors of our own open.
    let _others = (0..3).map(|_| engine.spawn(SpawnSpec::new("cat")).unwrap()).collect::<Vec<_>>();
    let s = engine.spawn(SpawnSpec::new("ls").arg("/proc/self/fd")).unwrap();
    expect(&s, Until::exit());
    let text = s.read().unwrap().text;
    let fds: Vec<&str> = text.split_whitespace().collect();
    // 0, 1, 2 and the directory ls itself opened to list them.
    assert_eq!(fds.len(), 4, "{text:?}");
    assert_eq!(&fds[..3], ["0", "1", "2"]);
}

/// A session's terminal is its engine user's, and no other user may read or write it
/// (SECURITY.md, "Terminals": devpts makes it 0620 or 0600).
#[test]
fn a_sessions_terminal_is_closed_to_other_users() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("stat").args(["-L", "-c", "%a %u", "/dev/stdin"])).unwrap();
    expect(&s, Until::exit());
    let text = s.read().unwrap().text;
    let (mode, owner) = text.trim().split_once(' ').expect("mode and owner");
    let mode = u32::from_str_radix(mode, 8).unwrap();
    assert_eq!(mode & 0o007, 0, "others may use the terminal: {text:?}");
    assert_eq!(owner.parse::<u32>().unwrap(), rustix::process::getuid().as_raw(), "{text:?}");
}

/// What is typed into one session reaches its program alone (SECURITY.md, "read another
/// session's input through termloom").
#[test]
fn input_to_one_session_reaches_no_other() {
    let engine = engine();
    let spec = || SpawnSpec::new("sed").args(["-u", "s/^/got:/"]);
    let (a, b) = (engine.spawn(spec()).unwrap(), engine.spawn(spec()).unwrap());
    a.send_text("only-for-a\r").unwrap();
    expect(&a, Until::text("got:only-for-a"));
    b.send_text("for-b\r").unwrap();
    expect(&b, Until::text("got:for-b"));
    let read = b.read().unwrap().text;
    assert!(!read.contains("only-for-a"), "{read:?}");
}

#[test]
fn send_text_decodes_escapes_and_queue_is_bounded() {
    if !require(&shell_program()) {
        return;
    }
    let engine = termloom::Engine::new(termloom::Config {
        write_queue_bytes: 4096,
        ..termloom::Config::default()
    })
    .unwrap();
    let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
    s.send_text(r"tab\there\x21\r").unwrap();
    expect(&s, Until::text("here!"));
    assert!(s.read().unwrap().text.contains("tab     here!"));
    s.close().unwrap();
    // A program that never reads its raw-mode terminal: the kernel's buffer fills, then ours.
    let s = engine.spawn(SpawnSpec::shell("stty raw -echo; echo ready; exec sleep 60")).unwrap();
    expect(&s, Until::text("ready"));
    let chunk = vec![b'x'; 1024];
    let mut full = None;
    for _ in 0..100_000 {
        if let Err(err) = s.send_bytes(&chunk) {
            full = Some(err);
            break;
        }
    }
    let err = full.expect("queue fills up");
    assert!(matches!(err, Error::QueueFull { capacity: 4096, .. }), "{err}");
    assert!(err.to_string().contains("4096"));
    s.close().unwrap();
}

#[test]
fn spawn_errors_name_the_program() {
    let engine = engine();
    let err = engine.spawn(SpawnSpec::new("no-such-program-xyz")).unwrap_err();
    assert!(
        matches!(&err, Error::Spawn { source, .. } if source.raw_os_error() == Some(2)),
        "the system's error number is kept: {err:?}"
    );
    assert!(err.to_string().contains("\"no-such-program-xyz\": no such program in PATH"), "{err}");
    let err = engine.spawn(SpawnSpec::new("/no/such-program")).unwrap_err();
    assert!(!err.to_string().contains("PATH"), "{err}");
    let err = engine.spawn(SpawnSpec::new("true").cwd("/no/such/dir")).unwrap_err();
    assert!(err.to_string().contains("/no/such/dir"), "{err}");
    let err = engine.spawn(SpawnSpec::new("true").size(1, 1)).unwrap_err();
    assert!(matches!(err, Error::InvalidSize { .. }));
    // No name is no missing program: it says what to give.
    let err = engine.spawn(SpawnSpec::new("")).unwrap_err();
    assert!(matches!(&err, Error::InvalidInput(m) if m.contains("empty name")), "{err}");
    // Nor a blank command line, which ran nothing and exited 0.
    for line in ["", "  \t"] {
        let err = engine.spawn(SpawnSpec::shell(line)).unwrap_err();
        assert!(matches!(&err, Error::InvalidInput(m) if m.contains("is blank")), "{err}");
    }
}

/// A start that fails in the child (here `exec` refuses a directory) is
/// answered with its error every time, and the engine goes on starting programs and hearing
/// of their exits: the supervisor's reaper never takes the failed child from `Command::spawn`,
/// which waits for it itself (and used to panic, ending the supervisor, when it was gone).
#[test]
fn failed_starts_leave_the_engine_able_to_start_programs() {
    let dir = tempdir();
    // A directory: `execve` refuses it (EACCES).
    let bogus = dir.join("not-a-program");
    std::fs::create_dir(&bogus).unwrap();
    let engine = engine();
    // A live session keeps the reaper waiting for children (with none, it waits for a start).
    let live = engine.spawn(SpawnSpec::new("cat")).unwrap();
    for attempt in 0..40 {
        let err = engine.spawn(SpawnSpec::new(&bogus)).unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(err, Error::Spawn { .. }) && message.contains("not-a-program"),
            "attempt {attempt}: {message}"
        );
        assert!(!message.contains("supervisor"), "attempt {attempt}: {message}");
    }
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", "exit 3"])).unwrap();
    let outcome = s.wait(Until::exit(), Duration::from_secs(30)).unwrap();
    assert!(matches!(outcome.fired, Fired::Exited { status: ExitStatus::Code(3) }), "{outcome:?}");
    live.send_keys("<C-d>").unwrap();
    let outcome = live.wait(Until::exit(), Duration::from_secs(30)).unwrap();
    assert!(matches!(outcome.fired, Fired::Exited { .. }), "{outcome:?}");
}

fn tempdir() -> TestDir {
    TestDir::new("test")
}

#[test]
fn osc52_clipboard_and_bells() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell(r"printf '\033]52;c;aGVsbG8=\007\007\007'; read -r line; echo got"))
        .unwrap();
    expect(&s, Until::input_wait());
    assert_eq!(s.clipboard().unwrap(), "hello");
    assert_eq!(s.info().unwrap().bells, 2);
    s.set_clipboard("pasted").unwrap();
    assert_eq!(s.clipboard().unwrap(), "pasted");
    s.close().unwrap();
}

/// The caller's clipboard holds what a program's OSC 52 copy can carry within
/// `max_osc_bytes`, and no more: `set_clipboard` took any size (a gigabyte the program could
/// then ask for). Past the bound it is refused as invalid input, the clipboard and the session
/// as they were.
#[test]
fn the_callers_clipboard_holds_what_a_programs_copy_can() {
    if !require(&shell_program()) {
        return;
    }
    // `]52;;` (6 bytes with the BEL) and 1,016 bytes of base64: 762 bytes of text.
    let engine = Engine::new(Config { max_osc_bytes: 1024, ..Config::default() }).unwrap();
    let most = 762;
    let copy = |bytes: usize| format!(r"printf '\033]52;;{}\007'", "YWFh".repeat(bytes / 3));
    let script = format!("{}; read -r x; {}; read -r y; echo done", copy(most), copy(most + 3));
    let s = engine.spawn(SpawnSpec::shell(&script)).unwrap();
    expect(&s, Until::input_wait());
    assert_eq!(s.clipboard().unwrap(), "a".repeat(most), "the most a program can copy");
    // The program's next copy, 3 bytes more, is dropped with its OSC string.
    s.set_clipboard("kept").unwrap();
    s.submit("").unwrap();
    expect(&s, Until::input_wait());
    assert_eq!(s.clipboard().unwrap(), "kept");
    assert_eq!(s.info().unwrap().dropped_sequences, 1);
    // The caller may set as much, not a byte more.
    s.set_clipboard(&"b".repeat(most)).unwrap();
    assert_eq!(s.clipboard().unwrap().len(), most);
    let err = s.set_clipboard(&"c".repeat(most + 1)).unwrap_err();
    assert!(matches!(err, termloom::Error::InvalidInput(_)), "{err:?}");
    assert!(err.to_string().contains("max_osc_bytes"), "{err}");
    let err = s.set_clipboard(&"c".repeat(64 << 20)).unwrap_err();
    assert!(matches!(err, termloom::Error::InvalidInput(_)), "{err:?}");
    assert_eq!(s.clipboard().unwrap(), "b".repeat(most), "unchanged");
    // The session goes on.
    s.submit("").unwrap();
    expect(&s, Until::text("done"));
    s.close().unwrap();
}

/// A clipboard as large as its bound is answered whole, for a program in raw mode asking with
/// `ESC ] 52 ; c ; ? BEL` (or ST): the answer was sized 2 bytes too large (1,048,578 bytes for
/// a program's largest copy, 786,426 bytes, whose answer is 1,048,576), more than the default
/// reply room (`write_queue_bytes`, 1 MiB), and silently dropped, the program waiting forever.
/// The caller's clipboard is held so that its answer fits that room with either terminator.
/// An answer dropped (the same copy asked for with an ST, a byte over) is counted in
/// `SessionInfo::replies_dropped`: it was counted where nobody could see it.
#[test]
fn a_clipboard_at_its_bound_is_answered_whole() {
    if !require("python3") {
        return;
    }
    let script = r#"
import base64, os, sys, termios, tty
def ask(terminator):
    old = termios.tcgetattr(0)
    tty.setraw(0)
    os.write(1, b"\x1b]52;c;?" + terminator)
    got = b""
    while not got.endswith(terminator):
        got += os.read(0, 1 << 16)
    termios.tcsetattr(0, termios.TCSADRAIN, old)
    text = base64.b64decode(got[7:-len(terminator)])
    print("answer", len(got), "text", len(text), set(text.decode()))
if sys.argv[1] == "copy":
    os.write(1, b"\x1b]52;c;" + base64.b64encode(b"a" * 786426) + b"\x07")
    ask(b"\x07")
elif sys.argv[1] == "over":
    os.write(1, b"\x1b]52;c;" + base64.b64encode(b"a" * 786426) + b"\x07")
    os.write(1, b"\x1b]52;c;?\x1b\\asked\n")
else:
    input("ask? ")
    ask(b"\x1b\\")
input()
"#;
    let engine = engine();
    let run = |mode: &str| engine.spawn(SpawnSpec::new("python3").args(["-c", script, mode]));
    let s = run("copy").unwrap();
    expect(&s, Until::text("answer 1048576 text 786426 {'a'}"));
    assert_eq!(s.info().unwrap().replies_dropped, 0);
    s.close().unwrap();
    // Asked with an ST, the same copy's answer is a byte over the room, and dropped: the
    // program waits on, and the session's information says why (it was counted, unseen).
    let s = run("over").unwrap();
    expect(&s, Until::text("asked"));
    assert_eq!(s.info().unwrap().replies_dropped, 1);
    s.close().unwrap();
    // (Another session: clipboard answers are held to a megabyte a second, and past it dropped.)
    let s = run("ask").unwrap();
    expect(&s, Until::input_wait());
    // The caller's bound: what the queue holds with an ST (9 bytes) besides the base64.
    let err = s.set_clipboard(&"b".repeat(786_424)).unwrap_err();
    assert!(matches!(err, termloom::Error::InvalidInput(_)), "{err:?}");
    assert!(err.to_string().contains("write_queue_bytes"), "{err}");
    s.set_clipboard(&"b".repeat(786_423)).unwrap();
    s.submit("").unwrap();
    expect(&s, Until::text("answer 1048573 text 786423 {'b'}"));
    s.close().unwrap();
}

/// A regex for a blank line (`^$`, `^\s*$`, `\B`) holds when the program prints one: an
/// ended line the caller never read is new even when empty (the transcript keeps no trailing
/// blanks, so `echo '   '` ends empty too). They timed out: a line was searched only for a
/// match past what was read, and an empty line has nothing past its start. The line at the
/// cursor, still being written, is no blank line printed, nor is one the caller read.
#[test]
fn a_regex_for_a_blank_line_holds_when_one_is_printed() {
    let engine = engine();
    let script = "echo a; echo '   '; echo; echo b; read y; echo c; read z";
    for pattern in ["^$", r"^\s*$", r"\B"] {
        let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
        let outcome = expect(&s, Until::regex(pattern).unwrap());
        let found = outcome.matched().expect("a match");
        // Line 0 is `a`, line 1 the blanks (`echo '   '`).
        assert_eq!(found.location, termloom::Location::Transcript { line: 1, offset: 0 });
        assert_eq!(found.text, "", "{pattern}");
        // Read, those blank lines are no longer new; nor is the empty line at the cursor,
        // being written.
        expect(&s, Until::input_wait());
        s.read().unwrap();
        s.submit("x").unwrap();
        expect(&s, Until::text("c"));
        expect(&s, Until::input_wait());
        let read = s.wait(Until::regex(pattern).unwrap(), Duration::from_millis(300)).unwrap();
        assert!(read.is_timeout(), "{pattern}: {read}");
        s.close().unwrap();
    }
    // A read after output ending in a line end ends on the empty line at the cursor, given
    // nothing of it: the blank line the program ends there next is new (it timed out, `b`'s
    // line matching `^b$`, as the empty line was counted as read). The program goes on when
    // a file appears (typed input would make the line the one it was typed on).
    let dir = TestDir::new("blank-after-read");
    let go = dir.as_ref().join("go");
    let script = "echo a; until [ -e \"$0\" ]; do sleep 0.05; done; echo; echo b; sleep 30";
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script]).arg(&go)).unwrap();
    expect(&s, Until::text("a"));
    assert_eq!(s.read().unwrap().text, "a\n");
    std::fs::write(&go, "").unwrap();
    let found = expect(&s, Until::regex("^$").unwrap());
    let found = found.matched().expect("a match");
    assert_eq!(found.location, termloom::Location::Transcript { line: 1, offset: 0 });
    s.close().unwrap();
}

#[test]
fn environment_entries_no_environment_can_hold_are_refused() {
    let engine = engine();
    for (name, value) in [("", "x"), ("A=B", "x"), ("NUL\0", "x"), ("OK", "a\0b")] {
        let err = engine.spawn(SpawnSpec::new("true").env(name, value)).unwrap_err();
        assert!(matches!(err, termloom::Error::InvalidInput(_)), "{name:?}: {err:?}");
    }
    assert!(engine.list().unwrap().is_empty(), "nothing was started");
}

/// A NUL byte no program, argument, command line or directory can hold is refused as invalid
/// input naming where it is, before anything starts, as one in the environment is.
#[test]
fn a_nul_in_what_to_start_is_refused_as_invalid_input() {
    let engine = engine();
    let specs = [
        ("program", SpawnSpec::new("tr\0ue")),
        ("argument", SpawnSpec::new("echo").args(["ok", "a\0b"])),
        ("command line", SpawnSpec::shell("echo a\0b")),
        ("working directory", SpawnSpec::new("true").cwd("/tm\0p")),
    ];
    for (what, spec) in specs {
        match engine.spawn(spec) {
            Err(termloom::Error::InvalidInput(message)) => {
                assert!(message.contains(what) && message.contains("NUL"), "{what}: {message}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    assert!(engine.list().unwrap().is_empty(), "nothing was started");
}

/// Each reader has its own read position: what one has read is still new to another, for
/// reads, transcript waits and `run_command`; past `max_readers` the least recently used
/// reader is forgotten and starts over.
#[test]
fn readers_keep_their_own_read_positions() {
    if !require("bash") {
        return;
    }
    let config = termloom::Config { max_readers: 2, ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let spec = SpawnSpec::new("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .shell_integration(true);
    let default = engine.spawn(spec).unwrap();
    expect(&default, Until::prompt());
    let (a, b) = (termloom::ReaderId::new(), termloom::ReaderId::new());
    let alice = default.as_reader(a);
    let bob = default.as_reader(b);
    let ran = alice.run_command("echo one-two-three", LONG).unwrap();
    assert_eq!(ran.output, "one-two-three\n");
    // Alice's position moved past the command; Bob's and the default reader's did not.
    assert!(!alice.read().unwrap().text.contains("one-two-three"));
    let seen = bob.wait(Until::text("one-two-three"), LONG).unwrap();
    assert!(seen.matched().is_some(), "{seen}");
    assert!(bob.read().unwrap().text.contains("one-two-three"));
    assert!(default.read().unwrap().text.contains("one-two-three"));
    // Bob has read it now: a wait of his does not find it again.
    let again = bob.wait(Until::text("one-two-three"), Duration::from_millis(300)).unwrap();
    assert!(again.is_timeout(), "{again}");
    // A third reader pushes out the least recently used (Alice), who starts over.
    let carol = default.as_reader(termloom::ReaderId::new());
    assert!(carol.read().unwrap().text.contains("one-two-three"));
    assert!(!bob.read().unwrap().text.contains("one-two-three"), "Bob is remembered");
    assert!(alice.read().unwrap().text.contains("one-two-three"), "a forgotten reader starts over");
    default.close().unwrap();
}

/// With no room for the readers' copies of the screen (`readers_tail_bytes` 0), only the most
/// recent reader keeps one: a reader whose copy was dropped gets the screen's text again,
/// marked `rewritten`, then reads on as before; no line is lost.
#[test]
fn a_reader_whose_copy_of_the_screen_was_dropped_reads_it_again_marked_rewritten() {
    let config = Config { readers_tail_bytes: 0, ..Config::default() };
    let engine = Engine::new(config).unwrap();
    let session = engine
        .spawn(SpawnSpec::new("sh").args(["-c", "echo first-line; read x; echo second-line; cat"]))
        .unwrap();
    expect(&session, Until::text("first-line"));
    let alice = session.as_reader(termloom::ReaderId::new());
    let bob = session.as_reader(termloom::ReaderId::new());
    let read = alice.read().unwrap();
    assert_eq!((read.text.as_str(), read.rewritten), ("first-line\n", false));
    // Bob reads last: Alice's copy is dropped.
    assert_eq!(bob.read().unwrap().text, "first-line\n");
    let read = alice.read().unwrap();
    assert!(read.rewritten, "{read:?}");
    assert_eq!((read.text.as_str(), read.first_line), ("first-line\n", 0));
    // Alice is the most recent reader now: her copy is kept.
    let read = alice.read().unwrap();
    assert_eq!((read.text.as_str(), read.rewritten), ("", false));
    session.send_text("\n").unwrap();
    expect(&session, Until::text("second-line"));
    let read = alice.read().unwrap();
    assert_eq!((read.text.as_str(), read.rewritten), ("\nsecond-line\n", false));
    let read = bob.read().unwrap();
    assert!(read.rewritten, "{read:?}");
    assert_eq!(read.text, "first-line\n\nsecond-line\n");
    session.close().unwrap();
}

/// The raw output ring keeps the newest bytes exactly as written, within its bound.
#[test]
fn raw_output_keeps_the_newest_bytes_as_written() {
    let engine = Engine::new(Config { raw_output_bytes: 1000, ..Config::default() }).unwrap();
    let session = engine
        .spawn(
            SpawnSpec::new("sh")
                .args(["-c", "printf '\\033[31mred\\033[0m\\n'; seq 1 2000; echo end"]),
        )
        .unwrap();
    expect(&session, Until::exit());
    let raw = session.raw_output().unwrap();
    assert_eq!(raw.bytes.len(), 1000, "bounded");
    assert!(raw.bytes.ends_with(b"1999\r\n2000\r\nend\r\n"), "newest kept, as written");
    assert!(raw.total > 8000, "{}", raw.total);
    let engine = Engine::new(Config::default()).unwrap();
    let session = engine.spawn(SpawnSpec::new("printf").arg("\\033[31mred\\033[0m")).unwrap();
    expect(&session, Until::exit());
    assert_eq!(session.raw_output().unwrap().bytes, b"\x1b[31mred\x1b[0m");
}

/// Two engines of one process recording in the same directory keep each session's
/// recording: the names the engines pick never replace an existing file.
#[test]
fn recordings_in_one_directory_never_replace_each_other() {
    let dir = TestDir::new("two-engines");
    let config = || Config {
        record_dir: Some(dir.to_path_buf()),
        record_every_session: true,
        ..Config::default()
    };
    let (first, second) = (Engine::new(config()).unwrap(), Engine::new(config()).unwrap());
    let mut paths = Vec::new();
    for (engine, word) in [(&first, "first-engine"), (&second, "second-engine")] {
        let session = engine.spawn(SpawnSpec::new("echo").arg(word)).unwrap();
        expect(&session, Until::exit());
        session.close().unwrap();
        paths.push(session.info().unwrap().recording.expect("recorded"));
    }
    assert_ne!(paths[0], paths[1]);
    for (path, word) in paths.iter().zip(["first-engine", "second-engine"]) {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains(word), "{}: {text}", path.display());
    }
}

/// A start that fails leaves no recording behind in `Config::record_dir`.
#[test]
fn a_failed_start_leaves_no_recording() {
    let dir = TestDir::new("failed-recordings");
    let config = Config {
        record_dir: Some(dir.to_path_buf()),
        record_every_session: true,
        ..Config::default()
    };
    let engine = Engine::new(config).unwrap();
    for program in ["/nonexistent-program", "/etc/passwd"] {
        assert!(engine.spawn(SpawnSpec::new(program)).is_err(), "{program}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "{:?}", left.iter().map(|e| e.path()).collect::<Vec<_>>());
}

/// `existing.cast` in `dir`, holding "notes kept here", readable by everyone (0644).
fn readable_notes(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let existing = dir.join("existing.cast");
    std::fs::write(&existing, "notes kept here\n").unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o644)).unwrap();
    existing
}

/// A recording named by its caller (`SpawnSpec::record`, `termloom run --record`) never
/// removes or exposes what was at its path before: a start that fails removes only a file the
/// recording made (before, it removed whatever was there: an existing file, a symbolic link,
/// `/dev/null` for a root caller), and an existing file is replaced by a private one (mode
/// 0600, as a new one is; before, it kept its mode: 0644, readable by all).
#[test]
fn a_recording_never_removes_or_exposes_what_was_at_its_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TestDir::new("recording-path");
    let engine = engine();
    let existing = readable_notes(&dir);
    let link = dir.join("link.cast");
    std::os::unix::fs::symlink(&existing, &link).unwrap();
    let made = dir.join("made.cast");
    for path in [&existing, &link, &made] {
        let started = engine.spawn(SpawnSpec::new("/nonexistent-termloom-program").record(path));
        assert!(started.is_err(), "{}", path.display());
    }
    assert!(existing.exists(), "a failed start removed the file that was there");
    assert!(link.symlink_metadata().is_ok(), "a failed start removed the symbolic link");
    assert!(!made.exists(), "the file the recording made goes");
    let session = engine.spawn(SpawnSpec::new("echo").arg("recorded-now").record(&existing));
    let session = session.unwrap();
    expect(&session, Until::exit());
    session.close().unwrap();
    let mode = std::fs::metadata(&existing).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "mode {mode:o}: an existing file is made private");
    let text = std::fs::read_to_string(&existing).unwrap();
    assert!(text.starts_with("{\"") && text.contains("recorded-now"), "{text}");
    assert!(!text.contains("notes kept here"), "truncated: {text}");
}

/// A recording named by its caller is made afresh, mode 0600, and renamed over what was at
/// its path once the session started: a reader who had the old file open reads nothing of
/// it, and the file's owner, another user for a root caller, cannot read it. Before, the
/// old file was truncated and written in place: that reader (who opened it while it was
/// 0644) read the whole recording, and the other user's file stayed theirs.
#[test]
fn a_recording_is_made_afresh_and_never_written_into_what_was_at_its_path() {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::fs::PermissionsExt;
    let dir = TestDir::new("recording-afresh");
    let engine = engine();
    let existing = readable_notes(&dir);
    let mut reader = std::fs::File::open(&existing).unwrap();
    let old_inode = std::fs::metadata(&existing).unwrap().ino();
    // As root, the file is another user's (nobody's), private to them.
    let root = rustix::process::geteuid().is_root();
    if root {
        let nobody = rustix::fs::Uid::from_raw(65534);
        rustix::fs::chown(&existing, Some(nobody), None).unwrap();
        std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let session =
        engine.spawn(SpawnSpec::new("echo").arg("recorded-now").record(&existing)).unwrap();
    expect(&session, Until::exit());
    session.close().unwrap();
    let mut seen = String::new();
    reader.read_to_string(&mut seen).unwrap();
    assert_eq!(seen, "notes kept here\n", "the old file's reader saw the recording");
    let metadata = std::fs::metadata(&existing).unwrap();
    assert_ne!(metadata.ino(), old_inode, "the recording is a new file");
    assert_eq!(metadata.permissions().mode() & 0o7777, 0o600);
    assert_eq!(metadata.uid(), rustix::process::geteuid().as_raw(), "the caller's file");
    let text = std::fs::read_to_string(&existing).unwrap();
    assert!(text.starts_with("{\"") && text.contains("recorded-now"), "{text}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("existing.cast")], "no temporary file is left");
}

/// A symbolic link at a recording's path is followed when the caller or root owns it, a
/// dangling one too (the recording made where it points; before, it was refused), and to a
/// device the device is written as it is; a link of another user is refused, and what it
/// points to is left alone (before, a root caller followed it: a link another user put in
/// their directory led root to overwrite a file of their choosing).
#[test]
fn a_recording_follows_only_the_links_of_its_caller_or_root() {
    let dir = TestDir::new("recording-links");
    let engine = engine();
    let record = |path: &std::path::Path, word: &str| {
        let spec = SpawnSpec::new("echo").arg(word).record(path);
        let session = engine.spawn(spec)?;
        expect(&session, Until::exit());
        session.close()
    };
    let target = dir.join("target.cast");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.join("link.cast");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    record(&link, "through-the-link").unwrap();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink(), "the link stays");
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.contains("through-the-link"), "{text}");

    let absent = dir.join("absent.cast");
    let dangling = dir.join("dangling.cast");
    std::os::unix::fs::symlink("absent.cast", &dangling).unwrap();
    record(&dangling, "made-where-it-points").expect("a dangling link is followed");
    let text = std::fs::read_to_string(&absent).unwrap();
    assert!(text.contains("made-where-it-points"), "{text}");

    let null = dir.join("null.cast");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    record(&null, "to-a-device").unwrap();
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());

    // A link of /proc to a pipe (`/dev/stdout`'s way) is written through.
    let (read_end, write_end) = rustix::pipe::pipe().unwrap();
    let through = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&write_end));
    record(std::path::Path::new(&through), "into-the-pipe").unwrap();
    drop(write_end);
    let mut piped = String::new();
    std::io::Read::read_to_string(&mut std::fs::File::from(read_end), &mut piped).unwrap();
    assert!(piped.starts_with("{\"") && piped.contains("into-the-pipe"), "{piped}");

    if !require_root("only root can give a link to another user") {
        return;
    }
    let theirs = dir.join("theirs.cast");
    std::os::unix::fs::symlink(&target, &theirs).unwrap();
    let nobody = rustix::fs::Uid::from_raw(65534);
    rustix::fs::chownat(
        rustix::fs::CWD,
        &theirs,
        Some(nobody),
        None,
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
    )
    .unwrap();
    let before = std::fs::read_to_string(&target).unwrap();
    let err = record(&theirs, "not-followed").expect_err("another user's link is refused");
    assert!(err.to_string().contains("is another user's (uid 65534)"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), before, "the target is left alone");
    assert!(theirs.symlink_metadata().unwrap().file_type().is_symlink(), "the link stays");
}

/// A tmpfs of one page mounted at a new directory, unmounted when dropped.
struct TinyMount(TestDir);

impl TinyMount {
    /// `None` (the test skips) when not root, except under `CI`.
    fn new(name: &str) -> Option<TinyMount> {
        if !require_root("mounting a tmpfs needs root") || !require("mount") {
            return None;
        }
        let dir = TestDir::new(name);
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=4k,mode=0700", "tmpfs"])
            .arg(&*dir)
            .status()
            .unwrap();
        assert!(mounted.success(), "mount -t tmpfs failed");
        Some(TinyMount(dir))
    }

    fn names(&self) -> Vec<String> {
        names_in(&self.0)
    }
}

/// The names in `dir`, sorted.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let entries = std::fs::read_dir(dir).unwrap().flatten();
    let mut names: Vec<_> = entries.map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

impl Drop for TinyMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&*self.0).status();
    }
}

/// A recording whose header cannot be written (a full disk) starts nothing and leaves its
/// path as it was: the file made for it is removed, and an existing file keeps what it held.
/// Before, a new file was left empty, and an existing one was truncated first (which, on a
/// full disk, freed the room to record over it).
#[test]
fn a_recording_whose_header_cannot_be_written_leaves_its_path_as_it_was() {
    let Some(disk) = TinyMount::new("full-disk") else { return };
    let engine = engine();
    let existing = disk.0.join("existing.cast");
    std::fs::write(&existing, "old\n").unwrap(); // its page fills the tmpfs
    let started = engine.spawn(SpawnSpec::new("echo").arg("x").record(&existing));
    let err = started.expect_err("no room for the header: nothing starts");
    assert!(err.to_string().contains("No space left on device"), "{err}");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "old\n");
    assert_eq!(disk.names(), ["existing.cast"]);

    std::fs::remove_file(&existing).unwrap();
    std::fs::write(disk.0.join("filler"), vec![b'x'; 4096]).unwrap();
    let started = engine.spawn(SpawnSpec::new("echo").arg("x").record(disk.0.join("new.cast")));
    let err = started.expect_err("no room for the header: nothing starts");
    assert!(err.to_string().contains("No space left on device"), "{err}");
    assert_eq!(disk.names(), ["filler"], "no file is left behind");
}

/// Makes `source.cast` in `dir`, holding `old`, and bind-mounts it over `out.cast` there (a
/// single-file bind mount, as Docker and Kubernetes make): the two paths.
fn bind_mounted_file(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let source = dir.join("source.cast");
    std::fs::write(&source, "old\n").unwrap();
    let point = dir.join("out.cast");
    std::fs::write(&point, "").unwrap();
    let mounted =
        std::process::Command::new("mount").arg("--bind").args([&source, &point]).status().unwrap();
    assert!(mounted.success(), "mount --bind failed");
    (source, point)
}

/// A recording that could not be put at its path (kept whole under its temporary name) and
/// whose file then could not be written to its end (here a small tmpfs filled meanwhile) says
/// both: `recording_write_failed`, and a heading that says it lacks the rest. Before, the
/// heading said only `recording not at its path`, which reads as whole (review ur).
#[test]
fn a_recording_kept_elsewhere_whose_write_failed_says_it_lacks_the_rest() {
    use std::io::Write;
    if !require_root("a tmpfs mount needs root") || !require("mount") {
        return;
    }
    let dir = TestDir::new("recording-kept-write-fails");
    let small = dir.join("small");
    std::fs::create_dir(&small).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(&small)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount -t tmpfs failed");
    let engine = engine();
    let (session, kept) = kept_recording(&engine, &small.join("out.cast"));
    let before = session.info().unwrap();
    // The filesystem filled: the recording's next write fails (ENOSPC).
    let mut filler = std::fs::File::create(small.join("filler")).unwrap();
    while filler.write_all(&[b'.'; 4096]).is_ok() {}
    for _ in 0..4 {
        session.send_text(&format!("{}\n", "y".repeat(2_000))).unwrap();
    }
    expect(&session, Until::text("yyyy"));
    session.close().unwrap();
    let after = session.info().unwrap();
    drop(filler);
    let _ = std::process::Command::new("umount").arg(&small).status();
    assert!(!before.recording_write_failed, "{before:?}");
    assert_eq!(before.recording_heading(), Some("recording not at its path"));
    assert!(after.recording_write_failed, "{after:?}");
    assert_eq!(after.recording_kept_at.as_ref(), Some(&kept));
    assert_eq!(after.recording_heading(), Some("recording not at its path, and it lacks the rest"));
}

/// A file mounted over a recording's path (a single-file bind mount, as Docker and
/// Kubernetes make) cannot be replaced: the recording is written into it, in place, and the
/// program starts. Before, the rename after the start failed (`EBUSY`), and the program that
/// ran was reported as not started: "cannot start "touch": … Device or resource busy".
#[test]
fn a_recording_over_a_mount_point_is_written_into_it() {
    if !require_root("a bind mount needs root") || !require("mount") {
        return;
    }
    let dir = TestDir::new("recording-mount");
    let (source, point) = bind_mounted_file(&dir);
    let touched = dir.join("touched");
    let engine = engine();
    // (The program's own output, recorded as it is read: a wait's marker is recorded only
    // while the session lasts, and `touch` alone may be over before the wait arrives.)
    let spec = SpawnSpec::new("sh")
        .args(["-c", "touch \"$0\" && echo written-in-place"])
        .arg(&touched)
        .record(&point);
    let started = engine.spawn(spec);
    let info = started.as_ref().map_err(ToString::to_string).map(|session| {
        expect(session, Until::exit());
        session.info().unwrap()
    });
    if let Ok(session) = started {
        session.close().unwrap();
    }
    let _ = std::process::Command::new("umount").arg(&point).status();
    let info = info.expect("the program started, and the call says so");
    assert!(touched.exists(), "the program ran");
    assert_eq!(info.recording_error, None);
    let text = std::fs::read_to_string(&source).unwrap();
    assert!(text.starts_with("{\"") && text.contains("written-in-place"), "{text}");
    let names = names_in(&dir);
    assert_eq!(names, ["out.cast", "source.cast", "touched"], "no temporary file is left");
}

/// Sets (`+i`, `+a`) or clears a file's attribute with `chattr`; false (the test skips, but
/// fails under `CI`) where the filesystem has none.
fn chattr(flag: &str, path: &std::path::Path) -> bool {
    let set = std::process::Command::new("chattr").arg(flag).arg(path).status();
    let done = set.is_ok_and(|status| status.success());
    assert!(done || std::env::var_os("CI").is_none(), "chattr {flag} failed on {path:?}");
    if !done {
        eprintln!("skipped: chattr {flag} does not work on {path:?}'s filesystem");
    }
    done
}

/// A recording to an immutable or append-only file (`chattr +i`, `+a`), or into an
/// append-only directory, which no one may replace, root included, is refused before the
/// program starts, with an error that names the flag. Before, the program ran, the rename
/// after its start failed (`EPERM`), the whole recording was left under its temporary name,
/// and the report said the file "lacks the rest".
#[test]
fn a_recording_to_a_file_no_one_may_replace_is_refused_before_the_start() {
    if !require_root("chattr +i and +a need root") || !require("chattr") {
        return;
    }
    let dir = TestDir::new("recording-immutable");
    let engine = engine();
    let touched = dir.join("touched");
    let cases = [("+i", "out.cast", "immutable (chattr +i)"), ("+a", "out.cast", "append-only")];
    for (flag, name, said) in cases {
        let path = dir.join(name);
        std::fs::write(&path, "old\n").unwrap();
        if !chattr(flag, &path) {
            return;
        }
        let started = engine.spawn(SpawnSpec::new("touch").arg(&touched).record(&path));
        chattr(&flag.replace('+', "-"), &path);
        let err = started.map(|_| ()).expect_err("the recording is refused");
        assert!(err.to_string().contains(said), "{flag}: {err}");
        assert!(!touched.exists(), "{flag}: the program did not run");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(names_in(&dir), ["out.cast"], "{flag}: no temporary file is left");
    }
    let inner = dir.join("inner");
    std::fs::create_dir(&inner).unwrap();
    if !chattr("+a", &inner) {
        return;
    }
    let started = engine.spawn(SpawnSpec::new("touch").arg(&touched).record(inner.join("a.cast")));
    let left = names_in(&inner);
    chattr("-a", &inner);
    let err = started.map(|_| ()).expect_err("the recording is refused");
    assert!(err.to_string().contains("its directory is append-only"), "{err}");
    assert!(err.to_string().contains("never be removed"), "{err}");
    assert!(!touched.exists() && left.is_empty(), "{left:?}");
    // A file already in an append-only directory cannot be replaced but can be emptied: it
    // is written in place, and the program runs.
    let existing = inner.join("b.cast");
    std::fs::write(&existing, "old\n").unwrap();
    if !chattr("+a", &inner) {
        return;
    }
    let started = engine.spawn(SpawnSpec::new("touch").arg(&touched).record(&existing));
    let recorded = started.map(|session| {
        expect(&session, Until::exit());
        session.close().unwrap();
    });
    let left = names_in(&inner);
    chattr("-a", &inner);
    recorded.expect("a file in an append-only directory is written in place");
    assert!(touched.exists(), "the program ran");
    assert_eq!(left, ["b.cast"], "no temporary file is left");
    // Emptied and written: the recording's header where "old" was. (Whether the exit's
    // marker is there depends on whether the wait began before the program ended.)
    let text = std::fs::read_to_string(&existing).unwrap();
    assert!(text.starts_with("{\"") && !text.contains("old"), "{text}");
}

/// A file that cannot be replaced (here a bind mount's) and has other names (hard links) is
/// not written in place, whoever owns it: that would write every name, and whoever could
/// make the name a link would choose a file of the caller's (owned by the caller: the first
/// case) to be emptied and filled with the recording. Before, the recording went into every
/// name; after a first mend, only another user's file was refused.
#[test]
fn a_recording_is_not_written_in_place_into_a_hard_linked_file() {
    use std::os::unix::fs::chown;
    if !require_root("a bind mount needs root") || !require("mount") {
        return;
    }
    let engine = engine();
    for owner in [0, 65534] {
        let dir = TestDir::new("recording-hard-link");
        let (source, point) = bind_mounted_file(&dir);
        chown(&source, Some(owner), Some(owner)).unwrap();
        let other_name = dir.join("other-name");
        std::fs::hard_link(&source, &other_name).unwrap();
        let touched = dir.join("touched");
        let started = engine.spawn(SpawnSpec::new("touch").arg(&touched).record(&point));
        let _ = std::process::Command::new("umount").arg(&point).status();
        let err = started.map(|_| ()).expect_err("the recording is refused");
        assert!(err.to_string().contains("hard links"), "owner {owner}: {err}");
        assert!(!touched.exists(), "owner {owner}: the program did not run");
        assert_eq!(std::fs::read_to_string(&other_name).unwrap(), "old\n");
    }
}

/// Root recording to a descriptor of another user's process through /proc
/// (`/proc/PID/fd/1`) writes into it: a link of /proc is the kernel's, never planted, so it
/// is not refused as another user's link. Before, the owner check came first and refused it.
#[test]
fn root_records_into_another_users_descriptor_through_proc() {
    use std::io::Read;
    if !require_root("a process of another user needs root") || !require("setpriv") {
        return;
    }
    let mut holder = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(["sh", "-c", "echo ready; exec sleep 600"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = holder.stdout.take().unwrap();
    let link = format!("/proc/{}/fd/1", holder.id());
    // Once it says so, the process is `nobody`'s, and so is its link.
    let mut ready = [0; 6];
    pipe.read_exact(&mut ready).unwrap();
    assert_eq!(&ready, b"ready\n");
    let engine = engine();
    let started = engine.spawn(SpawnSpec::new("echo").arg("into-nobodys-pipe").record(&link));
    let result = started.map(|session| {
        expect(&session, Until::exit());
        session.close().unwrap();
    });
    let _ = holder.kill();
    let _ = holder.wait();
    result.expect("root records into the descriptor");
    let mut text = String::new();
    pipe.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("{\"") && text.contains("into-nobodys-pipe"), "{text}");
}

/// A link of /proc (`/proc/self/fd/N`) names an open file, whatever the text it reads as:
/// a recording to one is written through it, into that file, for a deleted file and a memfd
/// alike. Before, the link's text was taken for a path, and a file was made by that name:
/// `del.txt (deleted)` beside the deleted file, `/memfd:rec (deleted)` in `/`.
#[test]
fn a_recording_to_a_link_of_proc_is_written_into_the_open_file() {
    use std::io::{Read, Seek};
    let dir = TestDir::new("recording-proc-link");
    let engine = engine();
    let record = |file: &std::fs::File, word: &str| {
        let fd = std::os::fd::AsRawFd::as_raw_fd(file);
        let spec = SpawnSpec::new("echo").arg(word).record(format!("/proc/self/fd/{fd}"));
        let session = engine.spawn(spec).unwrap();
        expect(&session, Until::exit());
        session.close().unwrap();
    };
    let read = |mut file: &std::fs::File| {
        let mut text = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    let deleted = dir.join("del.txt");
    let file = std::fs::File::options().read(true).write(true).create_new(true).open(&deleted);
    let file = file.unwrap();
    std::fs::remove_file(&deleted).unwrap();
    record(&file, "into-the-deleted-file");
    let stray = names_in(&dir);
    assert!(stray.is_empty(), "a file made by the link's text: {stray:?}");
    let text = read(&file);
    assert!(text.starts_with("{\"") && text.contains("into-the-deleted-file"), "{text}");

    let memfd = rustix::fs::memfd_create("rec", rustix::fs::MemfdFlags::CLOEXEC).unwrap();
    let memfd = std::fs::File::from(memfd);
    let stray = std::path::Path::new("/memfd:rec (deleted)");
    let made_before = stray.exists();
    record(&memfd, "into-the-memfd");
    let made = !made_before && stray.exists();
    if made {
        let _ = std::fs::remove_file(stray);
    }
    assert!(!made, "a file made by the link's text: {stray:?}");
    let text = read(&memfd);
    assert!(text.starts_with("{\"") && text.contains("into-the-memfd"), "{text}");
}

/// A recording's path that ends in `/` names a directory, and is refused whether or not the
/// directory exists. Before, a file was made by the directory's name (`outdir`).
#[test]
fn a_recording_path_that_ends_in_a_slash_is_refused() {
    let dir = TestDir::new("recording-slash");
    let engine = engine();
    std::fs::create_dir(dir.join("there")).unwrap();
    for name in ["there/", "absent/", "absent/."] {
        let path = format!("{}/{name}", dir.display());
        let started = engine.spawn(SpawnSpec::new("echo").arg("x").record(&path));
        let err = started.expect_err("a directory's name is refused");
        assert!(err.to_string().contains("directory"), "{name}: {err}");
    }
    assert_eq!(names_in(&dir), ["there"], "no file is made");
    assert!(dir.join("there").is_dir());
}

/// A second session recording to the path a first session records to is refused before it
/// starts, and the first's recording is kept. Before, the second's file replaced the first's,
/// which was lost without a word.
#[test]
fn a_second_recording_to_a_path_being_recorded_is_refused() {
    let dir = TestDir::new("recording-twice");
    let engine = engine();
    let path = dir.join("one.cast");
    let first = engine.spawn(SpawnSpec::new("cat").record(&path)).unwrap();
    first.send_text("first-one\n").unwrap();
    expect(&first, Until::text("first-one"));
    let second = engine.spawn(SpawnSpec::new("echo").arg("second-one").record(&path));
    let err = second.expect_err("the path is being recorded");
    assert!(err.to_string().contains("another session is recording to it"), "{err}");
    first.send_keys("<C-d>").unwrap();
    expect(&first, Until::exit());
    first.close().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("first-one") && !text.contains("second-one"), "{text}");
    // Once the first has ended, the path may be recorded to again.
    let third = engine.spawn(SpawnSpec::new("echo").arg("third-one").record(&path)).unwrap();
    expect(&third, Until::exit());
    third.close().unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().contains("third-one"));
}

/// A recording whose file cannot be written any more (here a FIFO whose reader went away;
/// a full disk is the same) says so in `SessionInfo::recording_error` and `termloom run`'s
/// report, rather than ending short without a word (before, the writer ignored the error).
#[test]
fn a_recording_that_cannot_be_written_says_so() {
    use std::io::BufRead;
    let dir = TestDir::new("recording-fails");
    let fifo = gate_fifo(&dir, "cast.fifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // The header, then the reader goes away.
            let mut header = String::new();
            std::io::BufReader::new(std::fs::File::open(&fifo).unwrap())
                .read_line(&mut header)
                .unwrap();
            header
        })
    };
    let engine = engine();
    let spec = SpawnSpec::new("sh").args(["-c", "read x; seq 1 20000"]).record(&fifo);
    let session = engine.spawn(spec).unwrap();
    let header = reader.join().unwrap();
    assert!(header.starts_with("{\""), "{header}");
    assert_eq!(session.info().unwrap().recording_error, None, "nothing failed yet");
    expect(&session, Until::input_wait());
    session.submit("").unwrap();
    expect(&session, Until::exit());
    session.close().unwrap();
    let info = session.info().unwrap();
    let error = info.recording_error.expect("the failed write is told");
    assert!(error.contains("Broken pipe"), "{error}");
    assert_eq!(info.recording.as_deref(), Some(fifo.as_path()));
}

/// `Config::record_dir` records every session; input only when its spec asks.
#[test]
fn sessions_are_recorded_where_the_configuration_says() {
    let dir = TestDir::new("recordings");
    let config = Config {
        record_dir: Some(dir.to_path_buf()),
        record_every_session: true,
        ..Config::default()
    };
    let engine = Engine::new(config).unwrap();
    let session = engine.spawn(SpawnSpec::new("cat").record_input(true)).unwrap();
    session.submit("typed").unwrap();
    expect(&session, Until::screen_row_contains(1, "typed"));
    let path = session.info().unwrap().recording.expect("recorded");
    assert!(path.starts_with(&dir), "{}", path.display());
    session.close().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{") && text.contains("\"version\":2"), "{text}");
    assert!(text.contains(",\"i\",\"typed\\r\"]"), "{text}");
    assert!(text.contains(",\"o\",\"typed\\r\\n"), "{text}");
    // A relative directory is refused by name.
    let err =
        Engine::new(Config { record_dir: Some("casts".into()), ..Config::default() }).unwrap_err();
    assert!(err.to_string().contains("record_dir"), "{err}");
}

/// Set in the run of [`a_keystroke_asks_the_terminal_each_thing_once`] that strace traces.
const TRACED_KEYSTROKES: &str = "TERMLOOM_TRACED_KEYSTROKES";

/// The reactor's system calls for a keystroke typed with its wait in one request (issue 19),
/// counted by strace on the reactor's thread, this test run again as its child, request by
/// request (the test marks each, and the key's `write` cuts it): the master is asked
/// whether output waits unread once before the write (twice only when it found some) and at
/// most once after it (for the answer's status), not again right after the write and at the
/// echo for a wait that reads neither silence nor stillness; the terminal's modes exactly
/// once before the write, after the master was asked, a control key included (read for its
/// encoding, then again before its write), in a session that records what is typed too (its
/// check for a password prompt, whose input it leaves out, read them again: twice a key). It
/// asked 5 and 1.5 times. Only what the load
/// cannot change is bounded: a put-off look leaves the answer to a status whose input-wait
/// probe may read the modes up to 3 times more, so the calls after the write are not
/// counted but for `FIONREAD`, nor are totals. Then statuses of the
/// idle `cat`, each with its input-wait probe: the master asked once for its foreground
/// group and once for unread output, that after the group (the probe's `/proc` reads come
/// between), not each twice (80 and 80 for 40 statuses) nor unread output first. Pastes into
/// the recorded `cat`, asking as a keystroke does up to their write (the recording's check
/// for a password prompt read the modes again for each piece: twice a paste). Ctrl-Cs,
/// which may be held for a shell at its prompt, typed at once into `cat` under `stty -isig`
/// (canonical: the line discipline echoes each as `^C` and holds it until an Enter, never
/// sent, so `cat` reads none): the master asked once before each write, not again after an
/// answer of none (twice before the typing took the hold's look). Commands run in a shell
/// (`run_command`), asking as a keystroke does before their write (the master asked once
/// whether output waits unread: it was twice, a second time by the send after the checks).
/// Keys typed through the testing kit (with its feature), each in one request that answers
/// whether it submitted a line as a keystroke does (it asked that in a request of its own
/// first: two `FIONREAD`s and two `TCGETS2` a key). Last,
/// control keys sent to `yes` while its output waits unread: the send reads the output
/// before it reads the modes, once, for the whole request up to its write (reading output
/// may let the program change them: one that prints more than the terminal holds, then
/// turns signals off, reads a Ctrl-C as a byte; it read them first, then again for the
/// write, and the first reading decided the signal).
#[test]
fn a_keystroke_asks_the_terminal_each_thing_once() {
    const KEYS: usize = 40;
    if let Some(marks) = std::env::var_os(TRACED_KEYSTROKES) {
        return type_traced_keystrokes(std::path::Path::new(&marks), KEYS);
    }
    if !require("strace") || !require(&shell_program()) {
        return;
    }
    let dir = TestDir::new("keystroke-calls");
    let trace = dir.join("trace.txt");
    let name = "a_keystroke_asks_the_terminal_each_thing_once";
    let run = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=ioctl,write,stat,statx,newfstatat,open,openat,pread64"])
        .arg("-o")
        .arg(&trace)
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(TRACED_KEYSTROKES, &*dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the traced run failed: {out}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let reactor = out
        .lines()
        .find_map(|line| Some(line.split_once("reactor thread ")?.1.trim()))
        .unwrap_or_else(|| panic!("the traced run named no reactor thread: {out}"));
    let trace = std::fs::read_to_string(&trace).unwrap();
    let trace = joined_calls(&trace);
    // The reactor's ioctls between each pair of marks.
    let calls = |start: &str, end: &str| {
        let mut inside = false;
        let mut calls = Vec::new();
        for (tid, call) in &trace {
            if call.contains(start) {
                inside = true;
            } else if call.contains(end) {
                break;
            } else if inside && *tid == reactor && call.starts_with("ioctl(") {
                calls.push(call.clone());
            }
        }
        assert!(inside, "no {start} mark in the trace");
        calls
    };
    let count = |calls: &[String], name: &str| calls.iter().filter(|c| c.contains(name)).count();
    // The ioctls and writes of a reactor (the thread `thread`) between a pair of marks,
    // request by request (split at each `next-request` mark), each cut at its write of one of
    // `keys` (as strace shows them): the calls before it, the write, then those after.
    let requests_of = |thread: &str, start: &str, end: &str, keys: &[&str]| {
        let mut requests: Vec<Vec<String>> = Vec::new();
        let mut inside = false;
        for (tid, call) in &trace {
            if call.contains(start) {
                inside = true;
            } else if call.contains(end) {
                break;
            } else if inside && call.contains("/next-request\"") {
                requests.push(Vec::new());
            } else if let Some(request) = requests.last_mut()
                && *tid == thread
                && (call.starts_with("ioctl(") || call.starts_with("write("))
            {
                request.push(call.clone());
            }
        }
        let written: Vec<_> = keys.iter().map(|key| format!("\"{key}\", ")).collect();
        let writes = |c: &String| c.starts_with("write(") && written.iter().any(|w| c.contains(w));
        requests
            .into_iter()
            .map(|calls| {
                let at = calls.iter().position(writes);
                let at =
                    at.unwrap_or_else(|| panic!("a request wrote none of {keys:?}: {calls:?}"));
                let (before, after) = calls.split_at(at);
                (before.to_vec(), after[0].clone(), after[1..].to_vec())
            })
            .collect::<Vec<_>>()
    };
    let requests = |start: &str, end: &str, keys: &[&str]| requests_of(reactor, start, end, keys);
    // Which of `names` each call asks, in order.
    let asked = |calls: &[String], names: &[&'static str]| -> Vec<&'static str> {
        calls.iter().filter_map(|c| names.iter().copied().find(|name| c.contains(name))).collect()
    };
    // A send-and-wait up to its write: `FIONREAD` at most twice, never again after an answer
    // of none (once more only after one that found output), then `TCGETS2` once, last.
    let asks_before_writing = |before: &[String]| {
        let order = asked(before, &["FIONREAD", "TCGETS"]);
        let unread: Vec<_> = before.iter().filter(|c| c.contains("FIONREAD")).collect();
        let again = unread.iter().rev().skip(1).any(|c| c.contains("FIONREAD, [0]"));
        assert!(
            order.last() == Some(&"TCGETS")
                && count(before, "TCGETS") == 1
                && unread.len() <= 2
                && !again,
            "a request up to its write: {before:?}"
        );
    };
    // Each keystroke, up to its write: the master asked once whether output waits unread
    // (twice when it found some: a turn more is read at once; none when output was pending
    // in the terminal), then the modes once. After its write, the answer's status asks the
    // master at most once. (No bound on what a status's input-wait probe asks, whose branch
    // the machine's load decides: a put-off look leaves the answer to a probing status; nor
    // on totals, which only add those up.)
    let keystrokes = requests("keystrokes-start", "keystrokes-end", &["x", "\\177"]);
    assert_eq!(keystrokes.len(), KEYS, "requests between the keystrokes' marks");
    for (before, _, after) in &keystrokes {
        asks_before_writing(before);
        assert!(count(after, "FIONREAD") <= 1, "a keystroke's answer: {after:?}");
    }
    let statuses = calls("statuses-start", "statuses-end");
    let (unread, groups) = (count(&statuses, "FIONREAD"), count(&statuses, "TIOCGPGRP"));
    assert_eq!((unread, groups), (STATUSES, STATUSES), "FIONREAD, TIOCGPGRP for {STATUSES}");
    let order = asked(&statuses, &["TIOCGPGRP", "FIONREAD"]);
    assert!(
        order.chunks(2).all(|pair| pair == ["TIOCGPGRP", "FIONREAD"]),
        "a status asked for unread output before its foreground group: {order:?}"
    );
    // A paste into the recorded `cat` asks as a keystroke does, up to its write: the modes
    // once, for the paste, the recording's check for a password prompt and the write (the
    // recording's check read them again: two `TCGETS2` a paste).
    let pastes = requests("pastes-start", "pastes-end", &["x"]);
    assert_eq!(pastes.len(), PASTES, "requests between the pastes' marks");
    for (before, _, _) in &pastes {
        asks_before_writing(before);
    }
    // A key that may be held for a shell's prompt, typed at once, asks as any other: the
    // hold's look is the typing's (it was asked again, both answering none).
    let held = requests("held-start", "held-end", &["\\3"]);
    assert_eq!(held.len(), HELD_KEYS, "requests between the Ctrl-Cs' marks");
    for (before, _, after) in &held {
        asks_before_writing(before);
        assert!(count(after, "FIONREAD") <= 1, "a Ctrl-C's answer: {after:?}");
    }
    // A command run in a shell asks as a keystroke does, on the master (its check for input
    // the shell has not read asks the terminal's other side, `TIOCGPTPEER`'s descriptor): it
    // asked twice in a row, both answering none, its send again after its checks. The master
    // is the descriptor the command is written to (the other sessions of the reactor may be
    // looked at meanwhile); the line may start with a Ctrl-U (`\25`), which clears stray input.
    let commands = requests("commands-start", "commands-end", &["true\\r", "\\25true\\r"]);
    assert_eq!(commands.len(), COMMANDS, "requests between the commands' marks");
    // (What comes after the write is not bounded: the command's own looks while it runs and
    // the wait for the next prompt.)
    for (before, write, _) in &commands {
        let fd = write.strip_prefix("write(").and_then(|c| c.split_once(','));
        let fd = fd.unwrap_or_else(|| panic!("a command's write names no descriptor: {write}")).0;
        let master = format!("ioctl({fd},");
        let on_master: Vec<_> = before.iter().filter(|c| c.starts_with(&master)).cloned().collect();
        asks_before_writing(&on_master);
    }
    // The testing kit types a key as a keystroke is typed, in one request that answers
    // whether it submitted a line and the line it was typed on, from its one reading of the
    // modes: it asked whether the key submits a line in a request of its own first, then
    // sent it in another, which read the output waiting unread and the modes again (two
    // `FIONREAD`s and two `TCGETS2` a key, and two verdicts that could disagree: a program
    // that turned canonical input off between them had the echo of a line never submitted
    // skipped).
    #[cfg(feature = "testing")]
    {
        let kit = out.lines().find_map(|line| Some(line.split_once("kit's reactor: ")?.1));
        let kit = kit.unwrap_or_else(|| panic!("the traced run named no kit's reactor: {out}"));
        let typed = requests_of(kit.trim(), "kit-start", "kit-end", &["x", "\\177"]);
        assert_eq!(typed.len(), KIT_KEYS, "requests between the kit's marks");
        for (before, _, _) in &typed {
            asks_before_writing(before);
        }
    }
    // A send reads the output waiting unread before the modes (reading it may let the
    // program change them), then the modes once, for everything up to its write: the master
    // is asked before the modes are read, not after (output pending in the terminal, read
    // without asking it, counts as found).
    let flood = requests("flood-start", "flood-end", &["\\1"]);
    assert_eq!(flood.len(), FLOOD_SENDS, "requests between the flood's marks");
    for (before, _, _) in &flood {
        asks_before_writing(before);
    }
    // (Whether a send finds output waiting is the machine's timing: under strace, `yes` may
    // not have written since the reactor last read, and the master answers none. The order
    // is checked either way, as a keystroke's.)
    // Each status of a `cat` resized since it was seen waiting probes `/proc` whole, as one
    // examination: no path opened twice (a file read, a directory listed), and each file
    // read from its start in one `pread` (a one-record file; `cgroup.procs` and `children`,
    // listings of a few pids). A status read the group's `stat` three times (twice in its
    // probe, once more for the status), listed its threads twice, and read `cgroup.procs`
    // with a second `pread` for its end.
    let mut probes: Vec<Vec<&str>> = Vec::new();
    let mut inside = false;
    for (tid, call) in &trace {
        if call.contains("probes-start") {
            inside = true;
        } else if call.contains("probes-end") {
            break;
        } else if inside && call.contains("/next-request\"") {
            probes.push(Vec::new());
        } else if let Some(probe) = probes.last_mut()
            && *tid == reactor
        {
            probe.push(call.as_str());
        }
    }
    assert_eq!(probes.len(), PROBING_STATUSES, "requests between the probes' marks");
    for calls in &probes {
        let opened: Vec<&str> = calls
            .iter()
            .filter(|c| c.starts_with("open(") || c.starts_with("openat("))
            .filter_map(|c| c.split('"').nth(1))
            .filter(|path| path.starts_with("/proc/"))
            .collect();
        let twice: Vec<&&str> =
            opened.iter().filter(|p| opened.iter().filter(|o| o == p).count() > 1).collect();
        assert!(
            twice.is_empty() && opened.iter().any(|p| p.ends_with("/task")),
            "a status's probe opened {twice:?} more than once (or listed no thread): {calls:#?}"
        );
        // (The offset, the last argument: `pread64(7, "123\n", 4096, 4) = 0`.)
        let offset = |c: &&str| {
            let (call, _) = c.rsplit_once(" = ")?;
            call.trim_end().strip_suffix(')')?.rsplit(", ").next().map(str::to_owned)
        };
        let further: Vec<_> = calls
            .iter()
            .filter(|c| c.starts_with("pread64(") && offset(c).as_deref() != Some("0"))
            .collect();
        assert!(further.is_empty(), "a status read on past a first pread: {further:?}");
    }
}

/// strace's calls with their thread's id, in the order they began: a call another thread's
/// interrupted is split in two lines (`ioctl(5, FIONREAD <unfinished ...>`, then `<... ioctl
/// resumed>, [0]) = 0`), joined here (by thread id) into the one line it would be alone.
fn joined_calls(trace: &str) -> Vec<(&str, String)> {
    let mut calls: Vec<(&str, String)> = Vec::new();
    let mut unfinished = std::collections::HashMap::new();
    for line in trace.lines() {
        let Some((tid, call)) = line.split_once(' ') else { continue };
        let call = call.trim_start();
        if let Some(start) = call.strip_suffix("<unfinished ...>") {
            unfinished.insert(tid, calls.len());
            calls.push((tid, start.trim_end().to_owned()));
        } else if let Some((_, rest)) =
            call.strip_prefix("<... ").and_then(|call| call.split_once(" resumed>"))
        {
            match unfinished.remove(tid) {
                Some(at) => calls[at].1.push_str(rest),
                None => calls.push((tid, rest.to_owned())),
            }
        } else {
            calls.push((tid, call.to_owned()));
        }
    }
    calls
}

/// [`joined_calls`] joins a call strace split while another thread's went on, by thread id.
#[test]
fn strace_calls_split_by_another_thread_are_joined() {
    let trace = "7 ioctl(5, FIONREAD <unfinished ...>\n\
                 8 statx(AT_FDCWD, \"/d/next-request\", 0) = -1 ENOENT\n\
                 9 ioctl(6, FIONREAD <unfinished ...>\n\
                 7 <... ioctl resumed>, [0]) = 0\n\
                 9 <... ioctl resumed>, [3]) = 0\n";
    let calls = joined_calls(trace);
    let calls: Vec<_> = calls.iter().map(|(tid, call)| format!("{tid} {call}")).collect();
    assert_eq!(
        calls,
        [
            "7 ioctl(5, FIONREAD, [0]) = 0",
            "8 statx(AT_FDCWD, \"/d/next-request\", 0) = -1 ENOENT",
            "9 ioctl(6, FIONREAD, [3]) = 0",
        ]
    );
}

/// How many statuses [`a_keystroke_asks_the_terminal_each_thing_once`] asks of idle `cat`.
const STATUSES: usize = 40;

/// How many pastes [`a_keystroke_asks_the_terminal_each_thing_once`] makes into `cat`.
const PASTES: usize = 20;

/// How many Ctrl-Cs [`a_keystroke_asks_the_terminal_each_thing_once`] types into `cat`.
const HELD_KEYS: usize = 30;

/// How many commands [`a_keystroke_asks_the_terminal_each_thing_once`] runs in a shell.
const COMMANDS: usize = 20;

/// How many keys [`a_keystroke_asks_the_terminal_each_thing_once`] types through the testing
/// kit.
#[cfg(feature = "testing")]
const KIT_KEYS: usize = 20;

/// How many control keys [`a_keystroke_asks_the_terminal_each_thing_once`] sends `yes`.
const FLOOD_SENDS: usize = 40;

/// How many statuses [`a_keystroke_asks_the_terminal_each_thing_once`] asks of a `cat` after
/// a resize, each with a probe of `/proc`.
const PROBING_STATUSES: usize = 20;

/// [`a_keystroke_asks_the_terminal_each_thing_once`]'s traced run: `keys` keystrokes into
/// `cat`, recorded with what is typed, a letter and a backspace in turn, each waited for at the cursor in the same
/// request, between a look at `marks`' `keystrokes-start` and `keystrokes-end`; then
/// [`STATUSES`] statuses of it, waiting for input, between `statuses-start` and
/// `statuses-end`; [`PASTES`] pastes of `x` into it, each erased, between `pastes-start` and
/// `pastes-end`; [`HELD_KEYS`] Ctrl-Cs into `cat` under `stty -isig` (echoed as `^C`, held
/// by the line discipline until an Enter), between `held-start` and `held-end`; [`COMMANDS`]
/// `true`s run in a shell with integration, between `commands-start` and `commands-end`;
/// [`KIT_KEYS`] keys through the testing kit, with its feature ([`type_through_the_kit`]); then
/// [`FLOOD_SENDS`] Ctrl-As sent to `yes`, between `flood-start` and `flood-end`; a
/// `next-request` mark before each request of those but the statuses; last,
/// [`PROBING_STATUSES`] statuses of a `cat` whose sighting waiting for input a resize made
/// old (a status keeps none: each probes `/proc`), between `probes-start` and `probes-end`,
/// each after a `next-request` mark.
fn type_traced_keystrokes(marks: &std::path::Path, keys: usize) {
    let engine = engine();
    // (Recording what is typed: whether a key is left out, typed at a password prompt, is
    // told by the request's one reading of the modes.)
    let spec = SpawnSpec::new("cat").size(80, 24).record_to_memory(1 << 20).record_input(true);
    let cat = engine.spawn(spec).unwrap();
    expect(&cat, Until::input_wait());
    let key = |i: usize| {
        let (script, col) = if i.is_multiple_of(2) { ("x", 1) } else { ("<BS>", 0) };
        let outcome = cat.send_keys_and_wait(script, Until::cursor_at(0, col), LONG).unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
    };
    (0..10).for_each(key);
    let _ = std::fs::metadata(marks.join("keystrokes-start"));
    (10..10 + keys).for_each(|i| {
        let _ = std::fs::metadata(marks.join("next-request"));
        key(i);
    });
    let _ = std::fs::metadata(marks.join("keystrokes-end"));
    expect(&cat, Until::input_wait());
    let _ = std::fs::metadata(marks.join("statuses-start"));
    for _ in 0..STATUSES {
        let status = cat.status().unwrap();
        assert_eq!(status.activity, termloom::Activity::WaitingForInput, "{status:?}");
    }
    let _ = std::fs::metadata(marks.join("statuses-end"));
    // Pastes into the recorded `cat`, each waited for at the cursor and erased.
    let _ = std::fs::metadata(marks.join("pastes-start"));
    for _ in 0..PASTES {
        let _ = std::fs::metadata(marks.join("next-request"));
        cat.paste("x").unwrap();
        expect(&cat, Until::cursor_at(0, 1));
        let outcome = cat.send_keys_and_wait("<BS>", Until::cursor_at(0, 0), LONG).unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
    }
    let _ = std::fs::metadata(marks.join("pastes-end"));
    // Ctrl-C, which a shell at its prompt would have held back, typed at once into `cat`
    // with signals off (`-isig`): canonical, the line discipline echoes it as `^C` and
    // holds it until an Enter; each waited for at the cursor. (`sh -c`, not a login shell:
    // the user's profile is no part of what is counted, and one that waits, as `pyenv
    // rehash` does for a lock another shell holds, outlasted the input wait under load.)
    let line = ["-c", "stty -isig; exec cat"];
    let typed = engine.spawn(SpawnSpec::new("sh").args(line).size(80, 24)).unwrap();
    expect(&typed, Until::input_wait());
    let _ = std::fs::metadata(marks.join("held-start"));
    for i in 1..=HELD_KEYS {
        let col = u16::try_from(2 * i).unwrap();
        let _ = std::fs::metadata(marks.join("next-request"));
        let outcome = typed.send_keys_and_wait("<C-c>", Until::cursor_at(0, col), LONG).unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
    }
    let _ = std::fs::metadata(marks.join("held-end"));
    // Commands run in a shell with integration, each its own request, each at a prompt
    // drawn (under strace, bash can take longer than a look's interval, 250 ms, between the
    // prompt's start and its drawn mark: the command before is answered at the prompt's
    // start, taken for one whose `PS1` lost the mark, and the next refused, not at a prompt).
    let spec = SpawnSpec::new(shell_program()).shell_integration(true).size(80, 24);
    let shell = engine.spawn(spec).unwrap();
    let _ = std::fs::metadata(marks.join("commands-start"));
    for _ in 0..COMMANDS {
        expect(&shell, Until::prompt());
        let _ = std::fs::metadata(marks.join("next-request"));
        let ran = shell.run_command("true", LONG).unwrap();
        assert_eq!(ran.exit_code, Some(0), "{ran:?}");
    }
    let _ = std::fs::metadata(marks.join("commands-end"));
    #[cfg(feature = "testing")]
    type_through_the_kit(marks);
    // A control key sent while output waits unread: the send reads a turn of it first.
    let yes = engine.spawn(SpawnSpec::new("yes").size(80, 24)).unwrap();
    yes.wait(Until::text("y"), LONG).unwrap();
    let _ = std::fs::metadata(marks.join("flood-start"));
    for _ in 0..FLOOD_SENDS {
        let _ = std::fs::metadata(marks.join("next-request"));
        yes.send_keys("<C-a>").unwrap();
    }
    let _ = std::fs::metadata(marks.join("flood-end"));
    // Statuses of a `cat` whose sighting waiting for input a resize made old: a status keeps
    // no sighting, so each probes `/proc` (once the terminal has been quiet for
    // `input_settle`; `cat` ignores the resize's `SIGWINCH`, still in its read).
    let fresh = engine.spawn(SpawnSpec::new("cat").size(80, 24)).unwrap();
    expect(&fresh, Until::input_wait());
    fresh.resize(81, 24).unwrap();
    let quiet = fresh.wait(Until::quiet(Duration::from_millis(200)), LONG).unwrap();
    assert!(quiet.matched().is_some(), "{quiet}");
    let _ = std::fs::metadata(marks.join("probes-start"));
    for _ in 0..PROBING_STATUSES {
        let _ = std::fs::metadata(marks.join("next-request"));
        let status = fresh.status().unwrap();
        assert_eq!(status.activity, termloom::Activity::WaitingForInput, "{status:?}");
    }
    let _ = std::fs::metadata(marks.join("probes-end"));
    let tasks = std::fs::read_dir("/proc/self/task").unwrap();
    let reactor = tasks.map(|task| task.unwrap().path()).find(|task| {
        std::fs::read_to_string(task.join("comm"))
            .is_ok_and(|comm| comm.starts_with("termloom-reac"))
    });
    println!("reactor thread {}", reactor.unwrap().file_name().unwrap().to_string_lossy());
}

/// [`type_traced_keystrokes`]'s keys typed through the testing kit: [`KIT_KEYS`] keys into
/// `cat`, a letter and a backspace in turn, each waited for at the cursor, between `marks`'
/// `kit-start` and `kit-end`, a `next-request` mark before each. The kit's session runs on an
/// engine of its own: its reactor's thread id is printed (`kit's reactor: ID`).
#[cfg(feature = "testing")]
fn type_through_the_kit(marks: &std::path::Path) {
    let reactors = || -> Vec<std::ffi::OsString> {
        let tasks = std::fs::read_dir("/proc/self/task").unwrap().map(|t| t.unwrap().path());
        let reactors = tasks.filter(|task| {
            std::fs::read_to_string(task.join("comm"))
                .is_ok_and(|comm| comm.starts_with("termloom-reac"))
        });
        reactors.map(|task| task.file_name().unwrap().to_owned()).collect()
    };
    let before = reactors();
    let kit =
        termloom::testing::TestSession::builder("cat").ready_when(Until::input_wait()).start();
    let reactor = reactors().into_iter().find(|task| !before.contains(task));
    let reactor = reactor.expect("the kit's engine started a reactor");
    let _ = std::fs::metadata(marks.join("kit-start"));
    for i in 0..KIT_KEYS {
        let (script, col) = if i.is_multiple_of(2) { ("x", 1) } else { ("<BS>", 0) };
        let _ = std::fs::metadata(marks.join("next-request"));
        kit.send_keys(script).wait_for_cursor(0, col);
    }
    let _ = std::fs::metadata(marks.join("kit-end"));
    println!("kit's reactor: {}", reactor.to_string_lossy());
}

/// Keys and the wait for their answer in one request: the answer is never missed, and a bad
/// script sends nothing.
#[test]
fn keys_and_their_wait_go_in_one_request() {
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&session, Until::input_wait());
    for round in 0..20 {
        let word = format!("w{round}x");
        let outcome = session
            .send_keys_and_wait(&format!("{word}<Enter>"), Until::text(word.clone()), LONG)
            .unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
    }
    let err = session.send_keys_and_wait("<Nope>", Until::text("x"), LONG).unwrap_err();
    assert!(err.to_string().contains("Nope"), "{err}");
    let err = session.send_keys_and_wait("zz", Until::text("a\nb"), LONG).unwrap_err();
    assert!(err.to_string().contains("line break"), "{err}");
    // A row or cursor position off the screen could never be reached: refused at once.
    let (cols, rows) = (session.screen().unwrap().cols, session.screen().unwrap().rows);
    let size = format!("{cols}x{rows}");
    let started = std::time::Instant::now();
    for (until, what) in [
        (Until::screen_row_contains(rows, "x"), format!("screen row {rows}")),
        (Until::screen_row_regex(999, "x").unwrap(), "screen row 999".to_owned()),
        (Until::cursor_at(0, cols), format!("row 0, col {cols}")),
        (Until::any(vec![Until::exit(), Until::cursor_at(rows, 0)]), format!("row {rows}, col 0")),
    ] {
        let err = session.wait(until.clone(), LONG).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(&what) && message.contains(&size), "{message}");
        let err = session.send_keys_and_wait("zz", until.clone(), LONG).unwrap_err();
        assert!(err.to_string().contains(&what), "{err}");
        let err = session.send_bytes_and_wait(b"zz\r", until, LONG).unwrap_err();
        assert!(err.to_string().contains(&what), "{err}");
    }
    assert!(started.elapsed() < LONG / 2, "refused only after {:?}", started.elapsed());
    let screen = session.screen().unwrap();
    assert!(!screen.contains("zz"), "an invalid wait sends nothing: {screen}");
    // Keys that submit a line: the wait is for the answer, not the line's echo.
    let shell = engine.spawn(SpawnSpec::new("bash").args(["--norc", "--noprofile"])).unwrap();
    expect(&shell, Until::input_wait());
    let started = std::time::Instant::now();
    let outcome =
        shell.send_keys_and_wait("sleep 0.4; echo done<Enter>", Until::text("done"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(started.elapsed() >= Duration::from_millis(350), "matched the echo: {outcome}");
    // So is a wait on the screen: the row the line was typed on shows it too.
    for until in [Until::screen_contains("deploy ok"), Until::screen_regex("deploy ok").unwrap()] {
        shell.send_keys_and_wait("clear<Enter>", Until::input_wait(), LONG).unwrap();
        let started = std::time::Instant::now();
        let outcome =
            shell.send_keys_and_wait("sleep 0.4; echo deploy ok<Enter>", until, LONG).unwrap();
        assert!(started.elapsed() >= Duration::from_millis(350), "matched the echo: {outcome}");
        let found = outcome.matched().unwrap();
        assert_eq!(found.location, termloom::Location::Screen { row: 1, col: 0 }, "{outcome}");
    }
    // A program that echoes nothing answers on the line Enter was typed on: only the echo is
    // skipped, and there is none.
    let script = "read -s -n1 -p 'Press any key to continue...' k; echo ' continuing'; read k";
    let key = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
    expect(&key, Until::input_wait());
    for until in [Until::text("continuing"), Until::screen_contains("continuing")] {
        let outcome = key.send_keys_and_wait("<Enter>", until, LONG).unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
    }
}

/// `skip_output` moves a reader past what was printed without returning it: the next read
/// and wait see only what comes after.
#[test]
fn skipped_output_is_not_read_again() {
    let engine = engine();
    let script = "echo first; read x; echo second; read y";
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&s, Until::input_wait());
    s.skip_output().unwrap();
    assert_eq!(s.read().unwrap().text, "");
    let outcome = s.send_bytes_and_wait(b"\n", Until::text("second"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let text = s.read().unwrap().text;
    assert!(text.contains("second") && !text.contains("first"), "{text:?}");
}

/// A spec's own values the engine refuses are the caller's mistake, `Error::InvalidInput`,
/// not a failure to start (`Error::Spawn`).
#[test]
fn values_a_start_refuses_are_invalid_input() {
    let engine = engine();
    for (spec, said) in [
        (SpawnSpec::new("sh").shell_integration(true), "bash and zsh"),
        (SpawnSpec::new("true").record_to_memory(1000), "1 KiB..=1 GiB"),
    ] {
        let err = engine.spawn(spec).unwrap_err();
        assert!(matches!(&err, Error::InvalidInput(m) if m.contains(said)), "{err:?}");
    }
    let ok = engine.spawn(SpawnSpec::new("true")).unwrap();
    expect(&ok, Until::exit());
}

/// Arguments too large to hand to the supervisor are a clear error, and the engine goes on.
#[test]
fn arguments_too_large_to_start_are_a_clear_error() {
    let engine = engine();
    let huge = "x".repeat(400 << 10);
    let err = engine.spawn(SpawnSpec::new("echo").arg(&huge)).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("too large") || message.contains("Argument list too long"),
        "{message}"
    );
    let session = engine.spawn(SpawnSpec::new("echo").arg("fine")).unwrap();
    expect(&session, Until::exit());
}

/// A FIFO named `name` in `dir`, made afresh (a program waits on it until the test writes,
/// or a test's reader holds back a writer).
fn gate_fifo(dir: &TestDir, name: &str) -> std::path::PathBuf {
    let fifo = dir.join(name);
    let _ = std::fs::remove_file(&fifo);
    let mode = rustix::fs::Mode::from_raw_mode(0o600);
    rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, mode, 0).unwrap();
    fifo
}

/// A shell in a new engine that turned echo off and reads a FIFO of `dir` (the gate, returned),
/// then runs `then`: a terminal at a password prompt that no program reads until the gate
/// is written to.
fn echo_off_behind_a_gate(
    dir: &TestDir,
    then: &str,
) -> (termloom::Engine, termloom::Session, std::path::PathBuf) {
    let gate = gate_fifo(dir, "gate");
    let engine = engine();
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    let line = format!("stty -echo; echo busy-$((6*7)); read -r g < '{}'; {then}", gate.display());
    session.submit(&line).unwrap();
    expect(&session, Until::text("busy-42"));
    (engine, session, gate)
}

/// Runs `before` then `echo shell-42` in the shell at `session`'s prompt, waits for its answer
/// and closes the session: its scrollback then (where a secret must not be).
fn scrollback_once_the_shell_answers(session: &termloom::Session, before: &str) -> String {
    session.submit(&format!("{before}echo shell-$((6 * 7))")).unwrap();
    expect(session, Until::text("shell-42"));
    let scrollback = session.scrollback(1 << 20).unwrap().text;
    session.close().unwrap();
    scrollback
}

/// A secret is typed only at a password prompt, and reaches no transcript, raw output or
/// recording, even one that records input.
#[test]
fn a_secret_is_typed_only_at_a_password_prompt_and_seen_nowhere() {
    let dir = TestDir::new("secret");
    let cast = dir.join("s.cast");
    let engine = engine();
    let script = "stty -echo; printf 'Password: '; read -r pw; stty echo; echo; \
                  echo \"got ${#pw} chars\"; read x";
    let session = engine
        .spawn(SpawnSpec::new("sh").args(["-c", script]).record(&cast).record_input(true))
        .unwrap();
    expect(&session, Until::input_wait());
    assert_eq!(session.status().unwrap().input_kind, Some(termloom::InputKind::Password));
    let err = session.send_secret("two\nlines").unwrap_err();
    assert!(!err.to_string().contains("two"), "the secret is not in the error: {err}");
    let typed = session.info().unwrap().bytes_in;
    session.send_secret("hunter2").unwrap();
    expect(&session, Until::text("got 7 chars"));
    // Nor does its length show in the bytes typed: it counts as its Enter.
    assert_eq!(session.info().unwrap().bytes_in, typed + 1);
    expect(&session, Until::input_wait());
    // Echo is back on: a secret now would be shown, so it is refused.
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::NotAtPasswordPrompt { echo: true, .. }), "{err}");
    let scrollback = session.scrollback(1 << 20).unwrap().text;
    let raw = session.raw_output().unwrap().bytes;
    session.submit("visible").unwrap();
    session.close().unwrap();
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
    assert!(!String::from_utf8_lossy(&raw).contains("hunter2"));
    let text = std::fs::read_to_string(&cast).unwrap();
    assert!(text.contains("\"i\",\"visible\\r\""), "ordinary input is recorded: {text}");
    assert!(!text.contains("hunter2"), "{text}");
}

/// A secret is not typed behind lines the program has not read yet: it would be read after
/// them, here by a shell once the prompt took the earlier line for the password, which then
/// ran the secret as a command and printed it in its error. The earlier line is typed with
/// echo on (its echo shows the terminal has it), then echo is turned off without reading it.
/// Each of the two waits has a FIFO of its own: a second read of one FIFO opens it at once
/// while the test still holds it open from the first write, and reads nothing.
#[test]
fn a_secret_is_not_typed_behind_lines_the_program_has_not_read() {
    let dir = TestDir::new("secret-unread");
    let [gate, second_gate] = ["gate", "second-gate"].map(|name| gate_fifo(&dir, name));
    let script = format!(
        "printf 'name? '; read -r g < '{gate}'; stty -echo; printf 'Password: '; \
         read -r g < '{second_gate}'; read -r pw; stty echo; echo; \
         echo \"read ${{#pw}} chars\"; PS1='sh> ' exec sh -i",
        gate = gate.display(),
        second_gate = second_gate.display()
    );
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    expect(&session, Until::screen_contains("name? "));
    session.submit("typed-ahead").unwrap();
    expect(&session, Until::screen_contains("name? typed-ahead"));
    std::fs::write(&gate, "go\n").unwrap();
    expect(&session, Until::screen_contains("Password: "));
    // Not reading yet (it waits for the gate), but the terminal is at a password prompt.
    let modes = session.info().unwrap().line_modes.unwrap();
    assert_eq!(modes.input_kind(), termloom::InputKind::Password);
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(err.to_string().contains("has not read 12 bytes"), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    std::fs::write(&second_gate, "go\n").unwrap();
    expect(&session, Until::text("read 11 chars"));
    expect(&session, Until::screen_contains("sh> "));
    let scrollback = scrollback_once_the_shell_answers(&session, "");
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
}

/// Text typed earlier without Enter waits in the terminal's line buffer, where nothing counts
/// it as unread (the kernel counts complete lines only): a secret typed after it would be read
/// as the rest of that line, and the program would take `typed-ahead` and the secret together
/// for the password. The secret erases the unfinished line first with the terminal's
/// line-kill character (VKILL), so the program reads the secret alone.
#[test]
fn a_secret_is_not_typed_behind_an_unfinished_line() {
    let dir = TestDir::new("secret-partial");
    let gate = gate_fifo(&dir, "gate");
    let script = format!(
        "printf 'busy '; read -r g < '{gate}'; stty -echo; printf 'Password: '; read -r pw; \
         stty echo; echo; echo \"read ${{#pw}} chars\"",
        gate = gate.display()
    );
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    expect(&session, Until::screen_contains("busy "));
    session.send_text("typed-ahead").unwrap();
    expect(&session, Until::screen_contains("busy typed-ahead"));
    std::fs::write(&gate, "go\n").unwrap();
    expect(&session, Until::screen_contains("Password: "));
    let modes = session.info().unwrap().line_modes.unwrap();
    assert_eq!(modes.input_kind(), termloom::InputKind::Password);
    session.send_secret("hunter2").unwrap();
    expect(&session, Until::regex(r"read \d+ chars").unwrap());
    let scrollback = session.scrollback(1 << 20).unwrap().text;
    session.close().unwrap();
    assert!(scrollback.contains("read 7 chars"), "{scrollback}");
}

/// A relay that copies between the session's terminal and a terminal of its own, where a
/// program asks for a password, but leaves the session's terminal echoing (unlike `sudo` and
/// `script`, which make it raw): a secret typed there would be echoed by the session's
/// terminal on its way to the relay, so it is refused.
#[test]
fn a_secret_is_not_typed_through_a_relay_whose_terminal_echoes() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("python3").args(["-c", ECHOING_RELAY])).unwrap();
    expect(&session, Until::screen_contains("Password: "));
    expect(&session, Until::input_wait());
    // The program asking reads a password on its own terminal, which does not echo.
    assert_eq!(session.status().unwrap().input_kind, Some(termloom::InputKind::Password));
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::NotAtPasswordPrompt { echo: true, .. }), "{err}");
    session.submit("typed").unwrap();
    expect(&session, Until::text("pw-length 5"));
    let scrollback = session.scrollback(1 << 20).unwrap().text;
    session.close().unwrap();
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
}

/// A program that watches the terminal for its hang-up alone, echo off (`journalctl -f`
/// polls it with no event to read, beside the files it follows), reads nothing: a secret
/// sent then is refused, for a `poll` array and for an epoll set, not typed for the shell to
/// read next (a poll-family wait counted the terminal whatever events it asked for:
/// `journalctl -f` took the secret, and bash then ran it).
#[test]
fn a_secret_is_not_typed_while_the_terminal_is_watched_for_its_hang_up_alone() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    let watches = [
        ("poll", "p=select.poll(); p.register(0, 0); p.poll(30000)"),
        ("epoll", "e=select.epoll(); e.register(0, 0); e.poll(30)"),
    ];
    for (kind, watch) in watches {
        let shown = format!("print(\"{kind}-\" + str(6*7), flush=True)");
        session
            .submit(&format!("stty -echo; python3 -c 'import select; {shown}; {watch}'; stty echo"))
            .unwrap();
        expect(&session, Until::text(format!("{kind}-42")));
        let err = session.send_secret("hunter2").unwrap_err();
        assert!(matches!(err, Error::NoSecretReader { .. }), "{kind}: {err}");
        session.send_bytes(b"\x03").unwrap();
        expect(&session, Until::input_wait());
    }
    let scrollback = scrollback_once_the_shell_answers(&session, "stty echo; ");
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
}

/// A terminal that reads a line without echo, but that no program reads (a command turned
/// echo off, then went on working): a secret typed there waited for the next reader, here the
/// shell, which showed it on its command line and printed it in its error
/// (`bash: hunter2: command not found`). It is refused once no program read within the time
/// a secret waits for one (2 s past `input_settle`), saying what the program does: one
/// blocked on a FIFO (opened by the test once the secret was refused), one asleep, while
/// another session is served as usual.
#[test]
fn a_secret_is_not_typed_while_no_program_reads_the_terminal() {
    let dir = TestDir::new("secret-no-reader");
    let (engine, session, gate) = echo_off_behind_a_gate(&dir, "stty echo; echo done-$((6*7))");
    let modes = session.info().unwrap().line_modes.unwrap();
    assert_eq!(modes.input_kind(), termloom::InputKind::Password, "echo is off");
    let started = std::time::Instant::now();
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::NoSecretReader { .. }), "{err}");
    assert!(started.elapsed() >= Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(!err.to_string().contains("hunter2"), "{err}");
    std::fs::write(&gate, "go\n").unwrap();
    expect(&session, Until::text("done-42"));
    expect(&session, Until::input_wait());
    session.submit("stty -echo; echo asleep-$((6*7)); sleep 30; stty echo").unwrap();
    expect(&session, Until::text("asleep-42"));
    // The secret is held on the reactor's timers, which go on serving every other session:
    // another shell answers one command after another while it waits.
    let other = bash(&engine);
    expect(&other, Until::input_wait());
    let held = session.clone();
    let secret = std::thread::spawn(move || held.send_secret("hunter2"));
    let mut answered = 0;
    while !secret.is_finished() {
        other.submit(&format!("echo answered-$((6*7))-{answered}")).unwrap();
        expect(&other, Until::text(format!("answered-42-{answered}")));
        answered += 1;
    }
    let err = secret.join().unwrap().unwrap_err();
    assert!(answered >= 3, "another session answered {answered} commands while it was held");
    assert!(matches!(err, Error::NoSecretReader { .. }), "{err}");
    assert!(err.to_string().contains("sleep"), "{err}");
    session.send_bytes(b"\x03").unwrap();
    expect(&session, Until::input_wait());
    let scrollback = scrollback_once_the_shell_answers(&session, "stty echo; ");
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
}

/// Two secrets for one session at once: whichever comes second is refused at once with an
/// error of its own (`SecretPending`, code `secret_pending`) saying a secret is already being
/// asked for the session, and types nothing; the first, held while no program reads, is typed
/// once one does, alone. The second was an `invalid_input` saying the session "has a secret
/// waiting for its program to read already", which MCP's look before it asks a person (which
/// holds no secret) got too.
#[test]
fn a_second_secret_for_a_session_is_refused_while_the_first_waits() {
    let dir = TestDir::new("secret-pending");
    let (_engine, session, gate) =
        echo_off_behind_a_gate(&dir, "read -r p; stty echo; echo \"got-$p-end\"");
    let (answers, answered) = crossbeam_channel::unbounded();
    for secret in ["hunter2", "hunter3"] {
        let (session, answers) = (session.clone(), answers.clone());
        std::thread::spawn(move || answers.send((secret, session.send_secret(secret))).unwrap());
    }
    // The first held for 2 s past `input_settle` while the program reads the FIFO.
    let (refused, err) = answered.recv_timeout(LONG).expect("one secret is answered at once");
    let err = err.expect_err("nothing reads the terminal yet");
    assert_eq!(err.code(), "secret_pending", "{err}");
    let said = format!("a secret is already being asked for session {}", session.id());
    assert!(err.to_string().starts_with(&said), "{err}");
    assert!(!err.to_string().contains("hunter"), "{err}");
    std::fs::write(&gate, "go\n").unwrap();
    let (typed, answer) = answered.recv_timeout(LONG).expect("the first is answered");
    answer.unwrap_or_else(|err| panic!("{typed}: {err}"));
    assert_ne!(typed, refused);
    expect(&session, Until::text(format!("got-{typed}-end")));
    let scrollback = scrollback_once_the_shell_answers(&session, "");
    assert!(!scrollback.contains(refused), "{scrollback}");
}

/// Programs print their password prompt and turn echo off a few milliseconds before they
/// block reading the terminal: a secret sent as soon as the prompt shows (python3's
/// `getpass`) found no reader and was refused, 9 times in 20. It waits for the reader, and is
/// typed every time. (The prompt is split in the command, so its echo does not match.) So is
/// one for a prompt that reads with a timeout in a loop.
#[test]
fn a_secret_sent_as_the_prompt_shows_waits_for_its_reader() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    for round in 0..20 {
        session
            .submit(&format!(
                "python3 -c \"import getpass; p = getpass.getpass('Pass' 'word-{round}: '); \
                 print('got-' + p + '-end-{round}')\""
            ))
            .unwrap();
        expect(&session, Until::screen_contains(format!("Password-{round}: ")));
        session.send_secret("hunter2").unwrap_or_else(|err| panic!("round {round}: {err}"));
        expect(&session, Until::text(format!("got-hunter2-end-{round}")));
    }
    // A prompt that reads with a timeout in a loop sleeps in `pselect6` on a short timer,
    // which the probe does not take for a wait on the terminal at first, and may turn echo
    // on between its reads (`read -s -t` does; here for 50 ms): the secret is held through
    // both, and typed on a later read.
    session
        .submit(
            "stty -echo; printf 'Pass''word-t: '; \
             while ! read -t 0.2 -r p; do stty echo; sleep 0.05; stty -echo; done; \
             stty echo; echo; echo \"got-$p-end-t\"",
        )
        .unwrap();
    expect(&session, Until::screen_contains("Password-t: "));
    session.send_secret("hunter2").unwrap();
    expect(&session, Until::text("got-hunter2-end-t"));
    session.close().unwrap();
}

/// A program that prints its prompt before it turns echo off (`printf 'Password: '; stty
/// -echo; read p`, or Python printing its own prompt then calling `getpass.getpass('')`)
/// shows the prompt while the terminal still echoes and nothing reads it: a secret sent as
/// soon as the prompt showed was refused at once with `NotAtPasswordPrompt`, about 0.1 ms
/// after the wait matched, 3 times in 6 and 4 times in 6. It waits for the program's read,
/// and is typed every time. A terminal that echoes while something reads it (a shell at its
/// prompt, `read` of a line with echo on) still refuses it at once, and one that echoes while
/// its program works and never reads refuses it once the time is out.
#[test]
fn a_secret_sent_before_the_program_turns_echo_off_waits_for_its_reader() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let idioms = [
        "printf 'Password: '; stty -echo; read -r p; stty echo; echo; echo \"got-${#p}-end\"",
        "python3 -c \"import getpass; print('Password: ', end='', flush=True); \
         print('got-%d-end' % len(getpass.getpass('')))\"",
    ];
    let mut refused = Vec::new();
    for (kind, idiom) in idioms.iter().enumerate() {
        for round in 0..10 {
            let session =
                engine.spawn(SpawnSpec::new("bash").args(["--norc", "-c", idiom])).unwrap();
            expect(&session, Until::regex("Password: $").unwrap());
            if let Err(err) = session.send_secret("hunter2") {
                refused.push(format!("round {kind}-{round}: {err}"));
                // (Typed once the program reads, to end the round.)
                expect(&session, Until::input_wait());
                session.send_secret("hunter2").unwrap();
            }
            expect(&session, Until::text("got-7-end"));
            session.close().unwrap();
        }
    }
    assert!(refused.is_empty(), "{} refused: {refused:#?}", refused.len());
    // Read with echo on, at the shell's prompt or by `read`: refused at once (the hold's
    // bound is 2 s past `input_settle`).
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    for reading in ["the prompt", "read"] {
        if reading == "read" {
            session.submit("read -r line; echo \"line-$line\"").unwrap();
            expect(&session, Until::input_wait());
        }
        let started = std::time::Instant::now();
        let err = session.send_secret("hunter2").unwrap_err();
        assert!(matches!(err, Error::NotAtPasswordPrompt { .. }), "{reading}: {err}");
        let took = started.elapsed();
        assert!(took < Duration::from_millis(500), "{reading}: refused after {took:?}");
    }
    session.submit("visible").unwrap();
    expect(&session, Until::text("line-visible"));
    // Working with echo on, the cursor at a line's start (no prompt shown): refused at once,
    // though a read with echo off comes a second later, which a held secret would go to
    // (review vh: typed after 328 ms, and shown) with no prompt asking for it.
    let later_reader = "echo working-$((6*7)); sleep 1; stty -echo; read -r x; stty echo; \
                        echo \"shown:$x\"";
    session.submit(later_reader).unwrap();
    expect(&session, Until::text("working-42"));
    let started = std::time::Instant::now();
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::NotAtPasswordPrompt { echo: true, .. }), "{err}");
    let took = started.elapsed();
    assert!(took < Duration::from_millis(500), "working: refused after {took:?}");
    expect(&session, Until::input_wait());
    session.submit("typed").unwrap();
    expect(&session, Until::text("shown:typed"));
    expect(&session, Until::input_wait());
    // Echo on, a prompt shown, never read: held, and refused once the time is out.
    session.submit("printf 'Name: '; sleep 30").unwrap();
    expect(&session, Until::regex("^Name: $").unwrap());
    let started = std::time::Instant::now();
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::NotAtPasswordPrompt { echo: true, .. }), "{err}");
    assert!(started.elapsed() >= Duration::from_secs(2), "{:?}", started.elapsed());
    session.send_bytes(b"\x03").unwrap();
    expect(&session, Until::input_wait());
    let scrollback = scrollback_once_the_shell_answers(&session, "");
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
}

/// A secret needs only some thread of the foreground group blocked on the terminal. Python's
/// `getpass` beside a daemon thread spinning for ever was refused every time after 2 s
/// (`NoSecretReader`: the spinning thread "is running"), and a countdown prompt that waits in
/// `select` on the terminal with a 250 ms timer, redrawing between, was refused ("not in a
/// wait for the terminal"); with a 1 s timer it was typed only once the timer had gone off
/// and the prompt had counted down. Both are typed, the countdown's before its first tick.
#[test]
fn a_secret_is_typed_beside_a_busy_thread_and_into_a_ticking_prompt() {
    if !require("python3") {
        return;
    }
    let dir = TestDir::new("secret-busy-ticking");
    let engine = engine();
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    for round in 0..3 {
        session
            .submit(&format!(
                "python3 -c \"import getpass, threading; \
                 threading.Thread(target=lambda: [0 for _ in iter(int, 1)], daemon=True).start(); \
                 p = getpass.getpass('Pass' 'word-b{round}: '); print('got-' + p + '-end-b{round}')\""
            ))
            .unwrap();
        expect(&session, Until::screen_contains(format!("Password-b{round}: ")));
        session.send_secret("hunter2").unwrap_or_else(|err| panic!("busy {round}: {err}"));
        expect(&session, Until::text(format!("got-hunter2-end-b{round}")));
    }
    // A countdown in `select` on descriptor 0, echo off, redrawn each time the timer goes off.
    let countdown = dir.join("countdown.py");
    std::fs::write(
        &countdown,
        "import os, select, sys, termios\n\
         tag, timer = sys.argv[1], float(sys.argv[2])\n\
         old = termios.tcgetattr(0); new = termios.tcgetattr(0); new[3] &= ~termios.ECHO\n\
         termios.tcsetattr(0, termios.TCSAFLUSH, new)\n\
         left = 30\n\
         sys.stdout.write('Pass' 'word-%s (%d): ' % (tag, left)); sys.stdout.flush()\n\
         while not select.select([0], [], [], timer)[0]:\n\
         \x20   left -= 1\n\
         \x20   sys.stdout.write('\\rPass' 'word-%s (%d): ' % (tag, left)); sys.stdout.flush()\n\
         line = os.read(0, 1024).decode().strip()\n\
         termios.tcsetattr(0, termios.TCSAFLUSH, old)\n\
         print('\\ngot-%s-end-%s-%d' % (line, tag, left))\n",
    )
    .unwrap();
    for (tag, timer) in [("q", "0.25"), ("s", "1.0")] {
        session.submit(&format!("python3 '{}' {tag} {timer}", countdown.display())).unwrap();
        expect(&session, Until::screen_contains(format!("Password-{tag} (")));
        session.send_secret("hunter2").unwrap_or_else(|err| panic!("timer {timer}: {err}"));
        expect(&session, Until::text(format!("got-hunter2-end-{tag}-")));
    }
    // (The 1 s countdown took it before its first tick.)
    expect(&session, Until::text("got-hunter2-end-s-30"));
    session.close().unwrap();
}

/// A secret must reach the program that asks whole, as one line. A terminal whose interrupt
/// character a program set to a printable one (`stty intr z`) dropped the secret's start at
/// its `z` and interrupted the prompt, and the shell ran the rest (`bash: unter: command not
/// found`); one whose Enter ends no line (`stty -icrnl`) kept the secret on an unfinished
/// line that the shell read once the prompt gave up. Both are refused, naming nothing of the
/// secret, and a secret without such a character is typed.
#[test]
fn a_secret_the_terminal_would_not_pass_whole_is_refused() {
    let engine = engine();
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    session
        .submit(
            "stty -echo intr z; printf 'Password: '; read -r pw; stty echo intr ^C; echo; \
             echo \"got ${#pw} chars\"",
        )
        .unwrap();
    expect(&session, Until::screen_contains("Password: "));
    expect(&session, Until::input_wait());
    let err = session.send_secret("abczhunter").unwrap_err();
    assert!(err.to_string().contains("acts on a character"), "{err}");
    assert!(!err.to_string().contains("hunter"), "{err}");
    session.send_secret("hunter2").unwrap();
    expect(&session, Until::text("got 7 chars"));
    expect(&session, Until::input_wait());
    session.submit("stty -echo -icrnl; printf 'Password: '; read -t 20 -r pw").unwrap();
    expect(&session, Until::screen_contains("Password: "));
    expect(&session, Until::input_wait());
    let err = session.send_secret("hunter2").unwrap_err();
    assert!(err.to_string().contains("does not end a line at Enter"), "{err}");
    session.send_text("\n").unwrap();
    expect(&session, Until::input_wait());
    let scrollback = scrollback_once_the_shell_answers(&session, "stty sane; ");
    assert!(!scrollback.contains("unter"), "{scrollback}");
}

/// A secret longer than the longest line a terminal keeps (4,095 bytes) is refused whole: the
/// terminal would have cut it, and the program read only its beginning.
#[test]
fn a_secret_longer_than_a_terminal_line_is_refused_whole() {
    let engine = engine();
    let script = "stty -echo; printf 'Password: '; read -r pw; stty echo; echo; \
                  echo \"got ${#pw} chars\"; read x";
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&session, Until::input_wait());
    let err = session.send_secret(&"a".repeat(termloom::MAX_SECRET_BYTES + 1)).unwrap_err();
    assert!(err.to_string().contains("at most 4095 bytes"), "{err}");
    session.send_secret(&"a".repeat(termloom::MAX_SECRET_BYTES)).unwrap();
    expect(&session, Until::text("got 4095 chars"));
    session.close().unwrap();
}

/// Closing a session returns once its recording is on disk, however far its writer is
/// behind. The recording goes to a FIFO whose reader holds back until `close` returns or two
/// seconds pass: a `close` that waits for the writer cannot return before the reader reads
/// (the writer is blocked on the full FIFO), one that does not wait returns at once.
#[test]
fn a_recording_is_complete_when_close_returns() {
    use std::io::Read;
    let dir = TestDir::new("complete");
    let fifo = gate_fifo(&dir, "cast.fifo");
    let (closed, wait_for_close) = crossbeam_channel::bounded::<()>(1);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut file = std::fs::File::open(&fifo).unwrap();
            let close_returned = wait_for_close.recv_timeout(Duration::from_secs(2)).is_ok();
            let mut text = String::new();
            file.read_to_string(&mut text).unwrap();
            (text, close_returned)
        })
    };
    let engine = engine();
    // About 200 KB of output: more than the FIFO holds, far less than the writer's queue.
    let session = engine.spawn(SpawnSpec::new("seq").args(["1", "35000"]).record(&fifo)).unwrap();
    expect(&session, Until::exit());
    session.close().unwrap();
    let _ = closed.send(());
    let (text, close_returned_first) = reader.join().unwrap();
    assert!(!close_returned_first, "close returned while the recording was still being written");
    assert!(text.contains("35000\\r\\n"), "{}", &text[text.len().saturating_sub(300)..]);

    // The engine's shutdown waits for every recording too.
    let cast = dir.join("shutdown.cast");
    let session = engine.spawn(SpawnSpec::new("seq").args(["1", "35000"]).record(&cast)).unwrap();
    expect(&session, Until::exit());
    engine.shutdown();
    let text = std::fs::read_to_string(&cast).unwrap();
    assert!(text.contains("35000\\r\\n"), "{}", &text[text.len().saturating_sub(300)..]);
}

/// A recording to a file stops at `Config::recording_file_bytes`, says so in its last line,
/// and the session goes on: its transcript has every line.
#[test]
fn a_recording_to_a_file_stops_at_its_bound() {
    let dir = TestDir::new("bounded");
    let cast = dir.join("bounded.cast");
    let engine =
        Engine::new(Config { recording_file_bytes: 8 << 10, ..Config::default() }).unwrap();
    // About 200 KB of output.
    let session = engine.spawn(SpawnSpec::new("seq").args(["1", "35000"]).record(&cast)).unwrap();
    expect(&session, Until::exit());
    session.close().unwrap();
    let text = std::fs::read_to_string(&cast).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.contains("\"m\"") && last.contains("stopped at its bound of 8192 bytes"),
        "{last}"
    );
    assert!(text.len() - last.len() - 1 <= 8 << 10, "{} bytes", text.len());
    assert!(!text.contains("35000"), "later output is not recorded");
    let transcript = session.scrollback(1 << 10).unwrap().text;
    assert!(transcript.contains("\n35000"), "the session went on: {transcript}");
}

#[test]
fn a_recording_in_memory_is_read_back_after_the_program_ends() {
    let engine = engine();
    let session = engine
        .spawn(
            SpawnSpec::shell("printf 'one\\ntwo\\n'; sleep 0.1; printf three")
                .record_to_memory(64 << 10),
        )
        .unwrap();
    expect(&session, Until::exit());
    session.close().unwrap();
    let text = session.recording().unwrap().expect("recorded in memory");
    let lines: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str(l).expect("asciicast lines are JSON")).collect();
    assert_eq!(lines[0]["version"], 2);
    let output: String = lines[1..]
        .iter()
        .filter(|e| e[1] == "o")
        .map(|e| e[2].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(output, "one\r\ntwo\r\nthree");
    assert_eq!(session.info().unwrap().recording, None, "no file");
    // Out of range, nothing starts; not recorded, nothing to read.
    let err = engine.spawn(SpawnSpec::new("true").record_to_memory(10)).unwrap_err();
    assert!(err.to_string().contains("1 KiB"), "{err}");
    let plain = engine.spawn(SpawnSpec::new("true")).unwrap();
    assert_eq!(plain.recording().unwrap(), None);
}

/// A character split between two reads is recorded whole even when invalid bytes come
/// before it in the same read: replaying the recording shows what the screen showed.
#[test]
fn a_split_character_after_invalid_bytes_is_recorded_whole() {
    let engine = engine();
    // "A", an invalid byte, then the first two bytes of "日"; the third comes after a read
    // (echo off: nothing comes between them).
    let script = "stty -echo; printf 'A\\377\\346\\227'; read x; printf '\\245 ok'; read y";
    let session =
        engine.spawn(SpawnSpec::new("sh").args(["-c", script]).record_to_memory(64 << 10)).unwrap();
    expect(&session, Until::input_wait());
    session.submit("").unwrap();
    expect(&session, Until::screen_contains("日 ok"));
    let text = session.recording().unwrap().expect("recorded in memory");
    let output: String = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("asciicast lines are JSON"))
        .filter(|e| e[1] == "o")
        .map(|e| e[2].as_str().unwrap().to_owned())
        .collect();
    assert!(output.starts_with("A\u{fffd}"), "{output:?}");
    assert!(output.contains("日 ok"), "the split character is whole: {output:?}");
    session.close().unwrap();
}

/// A recording marks where each wait ended, the one the program's exit ends included (the
/// program hangs up the terminal before its exit is reported).
#[test]
fn a_recording_marks_the_wait_the_exit_ends() {
    let dir = TestDir::new("exit-mark");
    let cast = dir.join("exit.cast");
    let engine = engine();
    let session =
        engine.spawn(SpawnSpec::new("sh").args(["-c", "read x; echo bye"]).record(&cast)).unwrap();
    expect(&session, Until::input_wait());
    let outcome = session.send_keys_and_wait("<Enter>", Until::exit(), LONG).unwrap();
    assert!(matches!(outcome.fired, Fired::Exited { .. }), "{outcome:?}");
    session.close().unwrap();
    let text = std::fs::read_to_string(&cast).unwrap();
    let markers: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("asciicast lines are JSON"))
        .filter(|e| e[1] == "m")
        .map(|e| e[2].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(markers, ["wait: waiting for input", "wait: exited (exit code 0)"], "{text}");
}

/// A recording's file that nobody reads until [`StalledFile::text`]: a FIFO whose reader
/// opens it at once (so the recording can start) and reads only when told.
struct StalledFile {
    path: std::path::PathBuf,
    read_now: crossbeam_channel::Sender<()>,
    reader: std::thread::JoinHandle<Vec<u8>>,
    _dir: TestDir,
}

impl StalledFile {
    fn new(name: &str) -> StalledFile {
        let dir = TestDir::new(name);
        let path = gate_fifo(&dir, "cast.fifo");
        let (read_now, wait) = crossbeam_channel::bounded::<()>(1);
        let fifo = path.clone();
        let reader = std::thread::spawn(move || {
            use std::io::Read;
            let mut file = std::fs::File::open(&fifo).unwrap();
            let _ = wait.recv_timeout(Duration::from_secs(120));
            let mut text = Vec::new();
            file.read_to_end(&mut text).unwrap();
            text
        });
        StalledFile { path, read_now, reader, _dir: dir }
    }

    /// Reads the whole recording (once its writer closed the file).
    fn text(self) -> String {
        let _ = self.read_now.send(());
        String::from_utf8(self.reader.join().unwrap()).expect("a recording is UTF-8")
    }
}

/// The events waiting for a recording's writer are bounded in bytes, not only in number: a
/// program that floods control bytes (each escaped to six characters) while the recording's
/// file is not being written (a FIFO nobody reads yet) costs at most the bound, and the
/// recording says how many events were dropped.
#[test]
fn a_stalled_recording_holds_a_bounded_number_of_bytes() {
    let fifo = StalledFile::new("stalled");
    let engine = engine();
    // 8 MB of NUL bytes: 48 MB of escaped events, more than the queue may hold.
    let session = engine
        .spawn(SpawnSpec::shell("head -c 8000000 /dev/zero; echo done").record(&fifo.path))
        .unwrap();
    let outcome = session.wait(Until::exit(), Duration::from_secs(120)).unwrap();
    assert!(matches!(outcome.fired, Fired::Exited { .. }), "{outcome:?}");
    session.close().unwrap();
    let text = fifo.text();
    assert!(text.len() < 16 << 20, "{} bytes were queued for the writer", text.len());
    assert!(text.contains("events dropped (the recording fell behind)"), "a marker says so");
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("asciicast lines are JSON");
    }
}

/// Events dropped because a recording's writer fell behind are said at the end of the file
/// too, when no later event came to carry the marker: a program that printed thousands of
/// lines to a recording whose file was not being written, then exited.
#[test]
fn a_recording_that_fell_behind_at_its_end_says_so() {
    if !require("python3") {
        return;
    }
    let fifo = StalledFile::new("behind-at-end");
    let engine = engine();
    // 12,000 lines, each written apart from the next: more events than the pipe and the
    // writer's queue hold (4,096) when each is read alone, and more bytes than they hold (9.7
    // MB, past the queue's 8 MiB) however many a read takes (a loaded machine's reads take
    // several: 12,000 short lines then fit in the queue, and none was dropped).
    let script = "import os, time\nfor i in range(12000):\n    os.write(1, b'%d %s\\n' % (i, b'x' * 800))\n    time.sleep(0.0005)\n";
    let session =
        engine.spawn(SpawnSpec::new("python3").args(["-c", script]).record(&fifo.path)).unwrap();
    expect_within(&session, Until::exit(), Duration::from_secs(120));
    session.close().unwrap();
    let text = fifo.text();
    let events: Vec<serde_json::Value> =
        text.lines().skip(1).map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let output: String =
        events.iter().filter(|e| e[1] == "o").map(|e| e[2].as_str().unwrap()).collect();
    assert!(!output.contains("11999"), "the writer fell behind: the last lines were dropped");
    let last = events.last().unwrap();
    assert_eq!(last[1], "m", "{last}");
    assert!(
        last[2].as_str().unwrap().contains("events dropped (the recording fell behind)"),
        "{last}"
    );
}

/// A recording of input has what was pasted too, its characters whole where the paste was
/// queued in pieces.
#[test]
fn a_recording_of_input_has_the_paste() {
    let engine = Engine::new(Config { write_queue_bytes: 1024, ..Config::default() }).unwrap();
    let session = spawn_recording_input(&engine, SpawnSpec::new("cat"));
    expect(&session, Until::input_wait());
    // 1,200 bytes in pieces of 512: the first boundary splits a character.
    let text = "日".repeat(400);
    session.paste(&text).unwrap();
    expect(&session, Until::text(&text));
    let recording = session.recording().unwrap().expect("recorded in memory");
    let input: String = recording
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("asciicast lines are JSON"))
        .filter(|e| e[1] == "i")
        .map(|e| e[2].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(input, text);
    session.close().unwrap();
}

/// A recording of input leaves out what is typed while the terminal reads a line without
/// echoing it (a password typed as text, here into bash's `read -s`): a marker stands in its
/// place, and input typed once the terminal echoes again is recorded. Before, the password
/// was in the recording.
#[test]
fn a_recording_of_input_leaves_out_what_the_terminal_does_not_echo() {
    let engine = engine();
    let script =
        "read -r -s -p 'Password: ' pw; echo; echo \"got ${#pw}\"; read -r n; echo \"name $n\"";
    let spec = SpawnSpec::new("bash").args(["--norc", "--noprofile", "-c", script]);
    let session = spawn_recording_input(&engine, spec);
    expect(&session, Until::screen_contains("Password: "));
    expect(&session, Until::input_wait());
    let modes = session.info().unwrap().line_modes.unwrap();
    assert_eq!(modes.input_kind(), termloom::InputKind::Password);
    session.send_text("hunter2").unwrap();
    session.send_keys("<Enter>").unwrap();
    expect(&session, Until::text("got 7"));
    expect(&session, Until::input_wait());
    session.send_text("alice\n").unwrap();
    expect(&session, Until::text("name alice"));
    assert_input_recorded(&session, "alice\n");
}

/// Spawns `spec` recording its output and input in memory.
fn spawn_recording_input(engine: &termloom::Engine, spec: SpawnSpec) -> termloom::Session {
    engine.spawn(spec.record_to_memory(64 << 10).record_input(true)).unwrap()
}

/// Closes `session` and checks its recording of input: the password `hunter2` nowhere, the
/// input recorded `input` (its `i` events, joined), and one marker standing for input left
/// out.
fn assert_input_recorded(session: &termloom::Session, input: &str) {
    let recording = session.recording().unwrap().expect("recorded in memory");
    session.close().unwrap();
    assert!(!recording.contains("hunter2"), "{recording}");
    let events: Vec<serde_json::Value> = recording
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("asciicast lines are JSON"))
        .collect();
    let recorded: String =
        events.iter().filter(|e| e[1] == "i").map(|e| e[2].as_str().unwrap()).collect();
    assert_eq!(recorded, input, "{recording}");
    let left_out = events
        .iter()
        .filter(|e| e[1] == "m" && e[2].as_str().unwrap().contains("input left out"))
        .count();
    assert_eq!(left_out, 1, "{recording}");
}

/// A password typed at a prompt on a terminal that a program of the session hosts and relays
/// to (`script` here; `sudo` with `use_pty` does the same) is left out of a recording of
/// input, as at a prompt on the session's own terminal: the relay keeps the session's terminal
/// raw (no echo, but keys, not lines), so its modes did not show a password prompt, and the
/// password was recorded. The status says a password is asked for, from the hosted terminal.
/// The prompt names no password, so it is the hosted terminal's modes that tell.
#[test]
fn a_recording_of_input_leaves_out_a_password_typed_through_a_relay() {
    if !require("script") || !require("sh") {
        return;
    }
    let engine = engine();
    let command = "stty -echo; printf 'Code word> '; read -r pw; stty echo; echo; \
                   echo \"got ${#pw}\"; read -r n; echo \"name $n\"; read -r z";
    let spec =
        SpawnSpec::new("script").args(["-qfc", command, "/dev/null"]).env("SHELL", "/bin/sh");
    let session = spawn_recording_input(&engine, spec);
    expect(&session, Until::screen_contains("Code word> "));
    let outcome = expect(&session, Until::input_wait());
    assert_eq!(outcome.status.input_kind, Some(termloom::InputKind::Password), "{outcome}");
    let own = session.info().unwrap().line_modes.unwrap();
    assert_eq!(own.input_kind(), termloom::InputKind::Keys, "the relay keeps its terminal raw");
    session.send_text("hunter2").unwrap();
    session.send_keys("<Enter>").unwrap();
    expect(&session, Until::text("got 7"));
    expect(&session, Until::input_wait());
    session.submit("alice").unwrap();
    expect(&session, Until::text("name alice"));
    assert_input_recorded(&session, "alice\r");
}

/// A program that reads keys itself without echoing them, on the far side of which a password
/// is asked (the remote end of `ssh`, whose terminal termloom cannot read; here a program
/// that does as `ssh` shows a remote prompt): what is typed while the cursor stands right after
/// a password prompt (`alice@example's password: `) is left out of a recording of input. It
/// was recorded, the session's terminal being raw.
#[test]
fn a_recording_of_input_leaves_out_what_is_typed_at_a_password_prompt_shown_raw() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import os, tty\n\
        tty.setraw(0)\n\
        def line(echo):\n    got = b''\n    while not got.endswith(b'\\r'):\n        \
        data = os.read(0, 64); got += data\n        if echo: os.write(1, data)\n    \
        return got[:-1]\n\
        os.write(1, b\"alice@example's password: \")\n\
        os.write(1, b'\\r\\ngot %d\\r\\n$ ' % len(line(False)))\n\
        os.write(1, b'\\r\\nran %s\\r\\n' % line(True))\n\
        os.read(0, 1)\n";
    let session = spawn_recording_input(&engine, SpawnSpec::new("python3").args(["-c", script]));
    expect(&session, Until::screen_contains("password: "));
    expect(&session, Until::input_wait());
    session.send_text("hunter2").unwrap();
    session.send_keys("<Enter>").unwrap();
    expect(&session, Until::text("got 7"));
    session.send_text("ls -l\r").unwrap();
    expect(&session, Until::text("ran ls -l"));
    assert_input_recorded(&session, "ls -l\r");
}

/// A password typed key by key (as a person types it through `attach`) at a prompt that
/// shows a mask character for each key (`sudo` with `pwfeedback`, which reads keys without
/// echo and prints `*`): the first key was left out of a recording of input, the rest were
/// recorded, the text before the cursor (`password for ann: *`) no longer ending in a colon.
#[test]
fn a_recording_of_input_leaves_out_a_password_typed_at_a_masked_prompt() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import os, tty\n\
        tty.setraw(0)\n\
        os.write(1, b'[sudo] password for ann: ')\n\
        got = b''\n\
        while not got.endswith(b'\\r'):\n    got += os.read(0, 1)\n    \
        if not got.endswith(b'\\r'): os.write(1, b'*')\n\
        os.write(1, b'\\r\\ngot %d\\r\\n$ ' % (len(got) - 1))\n\
        line = b''\n\
        while not line.endswith(b'\\r'):\n    data = os.read(0, 64); line += data; os.write(1, data)\n\
        os.write(1, b'\\r\\nran %s\\r\\n' % line[:-1])\n\
        os.read(0, 1)\n";
    let session = spawn_recording_input(&engine, SpawnSpec::new("python3").args(["-c", script]));
    expect(&session, Until::screen_contains("password for ann: "));
    expect(&session, Until::input_wait());
    for (typed, key) in "hunter2".chars().enumerate() {
        session.send_text(&key.to_string()).unwrap();
        expect(&session, Until::screen_contains("*".repeat(typed + 1)));
    }
    session.send_keys("<Enter>").unwrap();
    expect(&session, Until::text("got 7"));
    session.send_text("ls -l\r").unwrap();
    expect(&session, Until::text("ran ls -l"));
    assert_input_recorded(&session, "ls -l\r");
}

/// A password pasted at a password prompt (canonical, echo off) is left out of a recording of
/// input, as one typed is: a paste's pieces were recorded as they were queued, whatever the
/// terminal's modes.
#[test]
fn a_recording_of_input_leaves_out_a_password_pasted() {
    let engine = engine();
    let script = "stty -echo; printf 'Password: '; read -r pw; stty echo; echo; \
                  echo \"got ${#pw}\"; read -r n; echo \"name $n\"";
    let session = spawn_recording_input(&engine, SpawnSpec::new("sh").args(["-c", script]));
    expect(&session, Until::input_wait());
    session.paste("hunter2\n").unwrap();
    expect(&session, Until::text("got 7"));
    expect(&session, Until::input_wait());
    session.paste("alice\n").unwrap();
    expect(&session, Until::text("name alice"));
    // (A paste's line break is typed as Enter.)
    assert_input_recorded(&session, "alice\r");
}

/// A recording in memory keeps the newest event even when it alone is larger than the
/// bound (a full-screen redraw read at once): the recording ends where the program is.
#[test]
fn a_recording_in_memory_keeps_its_newest_event_whole() {
    let engine = engine();
    // About 12 KB of escape sequences (eight bytes each once escaped) in one write.
    let script = "printf 'start\\n'; read x; i=0; s=''; while [ $i -lt 4000 ]; do \
                  s=\"$s\\033[m\"; i=$((i+1)); done; printf \"$s END\"; read y";
    let session =
        engine.spawn(SpawnSpec::new("sh").args(["-c", script]).record_to_memory(1 << 10)).unwrap();
    expect(&session, Until::input_wait());
    session.submit("").unwrap();
    expect(&session, Until::screen_contains(" END"));
    let text = session.recording().unwrap().expect("recorded in memory");
    let events: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("asciicast lines are JSON"))
        .collect();
    let last = events.iter().rfind(|e| e[1] == "o");
    let last = last.and_then(|e| e[2].as_str()).unwrap_or_default();
    assert!(last.ends_with(" END"), "the newest output is kept: {text}");
    session.close().unwrap();
}

/// A recording in memory whose oldest events went, a resize among them, still replays at the
/// size its events were drawn for: the header (or a later resize event) says it, not the
/// size the session started with.
#[test]
fn a_recording_in_memory_keeps_the_size_of_its_dropped_resizes() {
    let engine = engine();
    let script = "read x; head -c 3000 /dev/zero | tr '\\0' x; echo; echo done; read y";
    let session = engine
        .spawn(SpawnSpec::new("sh").args(["-c", script]).size(80, 24).record_to_memory(1 << 10))
        .unwrap();
    expect(&session, Until::input_wait());
    session.resize(100, 30).unwrap();
    session.submit("").unwrap();
    expect(&session, Until::screen_contains("done"));
    let text = session.recording().unwrap().expect("recorded in memory");
    let mut lines = text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    let header = lines.next().unwrap();
    let events: Vec<serde_json::Value> = lines.collect();
    assert!(events[0][2].as_str().unwrap().contains("older events dropped"), "{text}");
    let mut size = (header["width"].as_u64().unwrap(), header["height"].as_u64().unwrap());
    for event in events.iter().filter(|e| e[1] == "r") {
        let (cols, rows) = event[2].as_str().unwrap().split_once('x').unwrap();
        size = (cols.parse().unwrap(), rows.parse().unwrap());
    }
    assert_eq!(size, (100, 30), "the recording replays at the wrong size: {text}");
    // (The 3,000 bytes after it, in however many reads they came, pushed the resize out.)
    assert!(events.iter().all(|e| e[1] != "r"), "the resize was kept: {text}");
    session.close().unwrap();
}

/// A recording's header names the TERM its program ran with.
#[test]
fn a_recording_header_names_the_programs_term() {
    let engine = engine();
    let session = engine
        .spawn(
            SpawnSpec::new("sh")
                .args(["-c", "echo \"term=$TERM\""])
                .env("TERM", "vt100")
                .record_to_memory(1 << 10),
        )
        .unwrap();
    expect(&session, Until::exit());
    let text = session.recording().unwrap().expect("recorded in memory");
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["env"]["TERM"], "vt100", "{text}");
    assert!(text.contains("term=vt100"), "{text}");
    session.close().unwrap();
}

/// Runs `f` on a thread of its own; fails if it has not returned within 30 s (a hang).
fn within_30_s<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("{what} hung"))
}

/// A wait whose own test panics fails with its own error; the engine and its other sessions
/// go on.
#[test]
fn a_panicking_wait_test_ends_only_that_wait() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let pending = s
        .start_wait(
            Until::screen_matches("a test that panics", |screen| {
                assert!(!screen.lines[0].contains('x'), "the test's own panic");
                false
            }),
            Duration::from_secs(30),
        )
        .unwrap();
    s.send_text("x\n").unwrap();
    let err = pending.finish().unwrap_err();
    assert!(matches!(err, Error::WaitConditionPanicked { .. }), "{err}");
    assert!(err.to_string().contains("the test's own panic"), "{err}");
    s.send_text("still here\n").unwrap();
    expect(&s, Until::screen_contains("still here"));
    let other = engine.spawn(SpawnSpec::new("sh").args(["-c", "exit 4"])).unwrap();
    let outcome = other.wait(Until::exit(), Duration::from_secs(30)).unwrap();
    assert!(matches!(outcome.fired, Fired::Exited { status: ExitStatus::Code(4) }));
}

/// A wait's test that calls into the engine gets an error instead of waiting for itself, and
/// the wait fails saying so (it waited out its timeout), and an engine whose last handle is dropped on the reactor's thread (inside a test) shuts down
/// without waiting for itself.
#[test]
fn calls_from_inside_a_wait_test_do_not_hang() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let inner = s.clone();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen_inside = seen.clone();
    let waiting = s.clone();
    let outcome = within_30_s("a wait whose test calls the session", move || {
        waiting.wait(
            Until::screen_matches("calls the session", move |_| {
                let answer = inner.status();
                let refused = matches!(answer, Err(Error::InvalidInput(_)));
                seen_inside.lock().unwrap().get_or_insert(refused);
                false
            }),
            Duration::from_secs(30),
        )
    });
    // The wait fails at once and says why, instead of waiting out its timeout.
    let err = outcome.unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("calls the session\") called into the engine"), "{err}");
    assert_eq!(*seen.lock().unwrap(), Some(true), "the call inside the test was refused");
    // The last engine handle, held by a test, is dropped on the reactor's thread.
    let held = engine.clone();
    let pending = s
        .start_wait(
            Until::screen_matches("holds the engine", move |screen| {
                let _ = &held;
                screen.lines[0].contains("go")
            }),
            Duration::from_secs(30),
        )
        .unwrap();
    drop(engine);
    s.send_text("go\n").unwrap();
    assert!(pending.finish().unwrap().matched().is_some());
    let after = s.clone();
    within_30_s("a call after the engine shut down", move || {
        let _ = after.read();
    });
}

/// Two commands typed into one shell at once: the second is refused, the first runs whole.
#[test]
fn a_second_command_while_one_runs_is_refused() {
    let engine = engine();
    let sh = engine.spawn(SpawnSpec::new(shell_program()).shell_integration(true)).unwrap();
    expect(&sh, Until::prompt());
    let first = sh.run_command_async("sleep 0.3; echo AAA; false", Duration::from_secs(30));
    let err = sh.run_command("echo BBB", Duration::from_secs(30)).unwrap_err();
    assert!(matches!(err, Error::NotAtPrompt { command_running: true, .. }), "{err}");
    let result = futures_lite_block_on(first).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("AAA\n", Some(1)), "{result:?}");
}

/// A command whose caller gave up on it (a dropped future, a cancelled call) leaves its
/// output to the next read: only a caller that was given the output reads past it.
#[test]
fn a_command_nobody_waits_for_leaves_its_output_unread() {
    let engine = engine();
    let sh = engine.spawn(SpawnSpec::new(shell_program()).shell_integration(true)).unwrap();
    expect(&sh, Until::prompt());
    sh.read().unwrap();
    drop(sh.run_command_async("sleep 1; echo finished-late", Duration::from_secs(30)));
    expect(&sh, Until::text("finished-late"));
    expect(&sh, Until::prompt());
    let read = sh.read().unwrap().text;
    assert!(read.contains("finished-late"), "the output was read past: {read:?}");
    // A caller that took the answer reads past it.
    let result = sh.run_command("echo taken", Duration::from_secs(30)).unwrap();
    assert_eq!(result.output, "taken\n");
    assert!(!sh.read().unwrap().text.contains("taken"));
}

/// A signal right after a shell's prompt waits for the shell to read the terminal: bash,
/// signalled between drawing its prompt and reading, draws no new prompt until the next key,
/// and a wait for the prompt after the signal would never end.
#[test]
fn a_signal_right_after_the_prompt_gets_a_new_prompt() {
    let engine = engine();
    let sh = engine.spawn(SpawnSpec::new(shell_program()).shell_integration(true)).unwrap();
    expect(&sh, Until::prompt());
    for _ in 0..10 {
        sh.signal(Signal::Int).unwrap();
        expect(&sh, Until::prompt());
    }
    let result = sh.run_command("echo after-signals", Duration::from_secs(30)).unwrap();
    assert_eq!(result.output, "after-signals\n");
}

/// Ctrl-C typed right after a shell's prompt (as a key, a key script, its byte, or with a
/// wait) waits, as a signal does, for the shell to read the terminal: typed before, bash
/// prints `^C` and draws no new prompt until the next key, and the wait for the prompt never
/// ends.
#[test]
fn ctrl_c_typed_right_after_the_prompt_gets_a_new_prompt() {
    let engine = engine();
    let sh = engine.spawn(SpawnSpec::new(shell_program()).shell_integration(true)).unwrap();
    expect(&sh, Until::prompt());
    for round in 0..40 {
        match round % 4 {
            0 => sh.send_keys("<C-c>").unwrap(),
            1 => sh.send_key("C-c".parse().unwrap()).unwrap(),
            2 => sh.send_bytes(b"\x03").unwrap(),
            _ => {
                let outcome = sh.send_keys_and_wait("<C-c>", Until::prompt(), LONG).unwrap();
                assert!(outcome.matched().is_some(), "round {round}: {:?}", outcome.screen);
                continue;
            }
        }
        expect(&sh, Until::prompt());
    }
    let result = sh.run_command("echo after-ctrl-c", Duration::from_secs(30)).unwrap();
    assert_eq!(result.output, "after-ctrl-c\n");
}

/// Ctrl-C typed with a wait as a future, right after a shell's prompt, waits as the blocking
/// call does for the shell to read the terminal, without blocking the executor: it was typed
/// at once, bash printed `^C` and drew no new prompt, and the wait for the prompt never ended.
#[test]
fn ctrl_c_typed_as_a_future_right_after_the_prompt_gets_a_new_prompt() {
    let engine = engine();
    let sh = engine.spawn(SpawnSpec::new(shell_program()).shell_integration(true)).unwrap();
    expect(&sh, Until::prompt());
    for round in 0..30 {
        let typed = match round % 2 {
            0 => sh.send_keys_and_wait_async("<C-c>", Until::prompt(), LONG),
            _ => sh.send_bytes_and_wait_async(b"\x03", Until::prompt(), LONG),
        };
        let outcome = futures_lite_block_on(typed).unwrap();
        assert!(outcome.matched().is_some(), "round {round}: {outcome}");
    }
    let result = sh.run_command("echo after-ctrl-c", Duration::from_secs(30)).unwrap();
    assert_eq!(result.output, "after-ctrl-c\n");
}

/// Shell-integration marks that a command prints (a log of another shell shown with `cat`, a
/// program that forges them) carry no session key: they neither end the command nor set its
/// exit code, and no prompt is seen before the real one.
#[test]
fn marks_a_command_prints_do_not_end_it() {
    let forged = r"printf '\033]133;D;7\007\033]133;A\007$ \033]133;B\007'";
    let line = format!("{forged}; sleep 0.5; echo after-the-forgery; false");
    for shell in ["bash", "zsh"] {
        if !common::require(shell) {
            continue;
        }
        let engine = engine();
        let sh = engine.spawn(SpawnSpec::new(shell).shell_integration(true)).unwrap();
        expect(&sh, Until::prompt());
        let result = sh.run_command(&line, Duration::from_secs(30)).unwrap();
        assert_eq!(result.exit_code, Some(1), "{shell}: {result:?}");
        assert!(result.output.contains("after-the-forgery"), "{shell}: {result:?}");
        // The key is not left in the environment of the shell's commands.
        let env = sh.run_command("env | grep -c TERMLOOM_MARK_KEY", Duration::from_secs(30));
        assert_eq!(env.unwrap().output.trim(), "0", "{shell}");
    }
}

/// Blocks on a future (the library's futures need no runtime).
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

/// `Duration::MAX` means "until it holds", not an overflow in the reactor.
#[test]
fn a_wait_without_end_waits_until_it_holds() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", "read x; exit 2"])).unwrap();
    let pending = s.start_wait(Until::exit(), Duration::MAX).unwrap();
    s.send_text("\n").unwrap();
    let outcome = pending.finish().unwrap();
    assert!(matches!(outcome.fired, Fired::Exited { status: ExitStatus::Code(2) }), "{outcome:?}");
    // A paste with no end is refused for what it is (the program exited), not as a reactor
    // that stopped.
    let err = s.start_paste("x", Some(Duration::MAX)).and_then(|p| p.finish()).unwrap_err();
    assert!(matches!(err, Error::SessionExited(_)), "{err}");
}

/// `send_keys_and_wait` with a wait that is refused (a prompt on a shell without integration)
/// types nothing: the error means nothing happened.
#[test]
fn keys_with_a_refused_wait_are_not_typed() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    let err = sh.send_keys_and_wait("echo typed-anyway<Enter>", Until::prompt(), LONG).unwrap_err();
    assert!(matches!(err, Error::NoShellIntegration(_)), "{err:?}");
    sh.submit("echo marker").unwrap();
    expect(&sh, Until::regex("^marker$").unwrap());
    let text = sh.read().unwrap().text;
    assert!(!text.contains("typed-anyway"), "{text:?}");
}

/// A `PendingWait` dropped before its wait ends cancels it, as a dropped future does: no
/// waiter is left on the session until its timeout (here: never).
#[test]
fn a_dropped_pending_wait_cancels_its_wait() {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let pending = s.start_wait(Until::text("never"), Duration::MAX).unwrap();
    assert_eq!(s.info().unwrap().pending_waits, 1);
    drop(pending);
    // The cancel was queued before this request, so the reactor has taken it.
    assert_eq!(s.info().unwrap().pending_waits, 0);
    // A wait finished as usual is not disturbed.
    let pending = s.start_wait(Until::text("hi"), LONG).unwrap();
    s.send_text("hi\n").unwrap();
    assert!(pending.finish().unwrap().matched().is_some());
    assert_eq!(s.info().unwrap().pending_waits, 0);
}

/// Shutdowns from two threads at once both return only when every session is gone.
#[test]
fn concurrent_shutdowns_both_wait_for_the_end() {
    let config = Config { close_grace: Duration::from_millis(300), ..Config::default() };
    let engine = Engine::new(config).unwrap();
    let s = engine
        .spawn(
            SpawnSpec::new("sh")
                .args(["-c", "trap '' TERM HUP; echo ready; while :; do sleep 1; done"]),
        )
        .unwrap();
    expect(&s, Until::text("ready"));
    let pid = s.pid();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                engine.shutdown();
                rustix::process::test_kill_process(rustix::process::Pid::from_raw(pid).unwrap())
                    .is_err()
            })
        })
        .collect();
    for thread in threads {
        assert!(thread.join().unwrap(), "a shutdown returned while the program still ran");
    }
}

/// A call racing a shutdown gets an answer: `EngineStopped` when the reactor stopped before
/// it took the call, never a wait for ever (a request queued after the reactor's last look
/// stayed in the channel while handles held it open).
#[test]
fn calls_racing_a_shutdown_are_answered() {
    for _ in 0..60 {
        let engine = Engine::new(Config::default()).unwrap();
        let s = engine.spawn(SpawnSpec::new("cat")).unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        let caller = s.clone();
        std::thread::spawn(move || {
            while caller.status().is_ok() {}
            let ended = caller.wait(Until::text("never"), LONG);
            let _ = done.send(ended.map(|_| ()));
        });
        engine.shutdown();
        let ended = finished.recv_timeout(LONG).expect("a call racing the shutdown hung");
        assert!(matches!(ended, Err(Error::EngineStopped)), "{ended:?}");
    }
}

/// A program that closes every descriptor of its terminal before it exits (GNU `touch`
/// replaces its stdin with the file, then closes stdout and stderr at exit) is not hung up:
/// the terminal's master stays open until the program is reaped, so it ends with its own
/// status, not SIGHUP.
#[test]
fn a_program_that_lets_go_of_its_terminal_ends_with_its_own_status() {
    let engine = engine();
    for _ in 0..3 {
        let session = engine
            .spawn(SpawnSpec::new("bash").args([
                "--norc",
                "--noprofile",
                "-c",
                "exec 0</dev/null 1>/dev/null 2>&1; sleep 0.3; exit 3",
            ]))
            .unwrap();
        let outcome = session.wait(Until::exit(), LONG).unwrap();
        assert_eq!(outcome.fired, Fired::Exited { status: ExitStatus::Code(3) }, "{outcome:?}");
    }
}

/// A screen wait matches the cursor's row up to the cursor, as the transcript has it: a
/// prompt's trailing space (`$ `) is found on the screen, where rows drop trailing blanks;
/// other rows' trailing blanks are not made up.
#[test]
fn a_screen_wait_matches_a_prompts_trailing_space() {
    let engine = engine();
    let session = engine
        .spawn(SpawnSpec::new("sh").args(["-c", "echo 'done '; printf 'go? '; read x"]))
        .unwrap();
    expect(&session, Until::text("go? "));
    expect(&session, Until::screen_contains("go? "));
    expect(&session, Until::screen_regex("^go\\? $").unwrap());
    // A pattern written for the row as the screen shows it still matches.
    expect(&session, Until::screen_regex("^go\\?$").unwrap());
    expect(&session, Until::screen_row_regex(1, "^go\\?$").unwrap());
    expect(&session, Until::screen_row_contains(1, "go? "));
    expect(&session, Until::screen_row_regex(1, "\\? $").unwrap());
    let outcome =
        session.wait(Until::screen_contains("done "), Duration::from_millis(300)).unwrap();
    assert!(outcome.is_timeout(), "a trailing blank off the cursor's row matched: {outcome}");
    session.close().unwrap();
}

/// Waits that could never hold are refused at once: `any` of nothing, a row past the screen;
/// and a wait that a resize made impossible ends with that error, not at its timeout. A line
/// range that ends before it starts is refused too.
#[test]
fn impossible_waits_are_refused_not_waited_out() {
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("cat").size(80, 24)).unwrap();
    let empty = session.wait(Until::any(vec![]), Duration::from_secs(20));
    assert!(matches!(empty, Err(Error::InvalidInput(_))), "{empty:?}");
    // Empty text, which every line holds, matched at once: refused, nested in an `any` too;
    // so is a regex every line matches (`a*`), while one for a blank row (`^$`) waits.
    for until in [
        Until::text(""),
        Until::any(vec![Until::exit(), Until::any(vec![Until::screen_contains("")])]),
    ] {
        let empty = session.wait(until, Duration::from_secs(20));
        assert!(matches!(empty, Err(Error::InvalidInput(_))), "{empty:?}");
    }
    for every_line in ["", "a*", "^", "(x|)$"] {
        let err = Until::regex(every_line).unwrap_err();
        assert!(err.to_string().contains("empty string"), "{every_line:?}: {err}");
    }
    assert!(
        session.wait(Until::screen_row_regex(3, "^$").unwrap(), Duration::from_secs(20)).is_ok()
    );
    let past = session.wait(Until::screen_row_contains(30, "x"), Duration::from_secs(20));
    assert!(matches!(past, Err(Error::InvalidInput(_))), "{past:?}");
    let row =
        session.start_wait(Until::screen_row_contains(20, "x"), Duration::from_secs(20)).unwrap();
    let cursor = session.start_wait(Until::cursor_at(20, 70), Duration::from_secs(20)).unwrap();
    let started = std::time::Instant::now();
    session.resize(20, 5).unwrap();
    for pending in [row, cursor] {
        let ended = pending.finish();
        assert!(matches!(ended, Err(Error::InvalidInput(_))), "{ended:?}");
    }
    // One that can still hold another way goes on: `any` of a row now off the screen and
    // the program's exit ends with the exit.
    let either = Until::any(vec![Until::screen_row_contains(3, "x"), Until::exit()]);
    let pending = session.start_wait(either, Duration::from_secs(20)).unwrap();
    session.resize(20, 2).unwrap();
    session.send_bytes(b"\x04").unwrap();
    let ended = pending.finish().unwrap();
    assert!(matches!(ended.fired, Fired::Exited { .. }), "{ended}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = session.transcript_lines(10..2, 100);
    assert!(matches!(backwards, Err(Error::InvalidInput(_))), "{backwards:?}");
    session.close().unwrap();
}

/// A resize is for the program to answer, as input is: silence counts from it, so a wait for
/// quiet after a resize waits out the program's redraw instead of holding at once.
#[test]
fn silence_counts_from_a_resize() {
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&session, Until::quiet(Duration::from_millis(300)));
    // Measured from before the resize: the wait itself may start late on a loaded machine.
    let resized = std::time::Instant::now();
    session.resize(60, 20).unwrap();
    let outcome = session.wait(Until::quiet(Duration::from_millis(300)), LONG).unwrap();
    assert!(!outcome.is_timeout(), "{outcome}");
    assert!(resized.elapsed() >= Duration::from_millis(300), "held at once: {outcome}");
    session.close().unwrap();
}

/// A recording that cannot be created fails the start with what is wrong (its directory is
/// missing), not with "no such program in PATH" about a program that is there.
#[test]
fn a_missing_recording_directory_is_not_a_missing_program() {
    let engine = engine();
    let err = engine
        .spawn(SpawnSpec::new("cat").record("/nonexistent-termloom-dir/session.cast"))
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("cannot create the recording"), "{message}");
    assert!(!message.contains("no such program"), "{message}");
    // A program missing from PATH is still said to be one.
    let err = engine.spawn(SpawnSpec::new("no-such-program-termloom")).unwrap_err();
    assert!(err.to_string().contains("no such program in PATH"), "{err}");
    // And the program runs once the recording can be made.
    let dir = std::env::temp_dir().join(format!("termloom-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cat = engine.spawn(SpawnSpec::new("cat").record(dir.join("session.cast"))).unwrap();
    expect(&cat, Until::input_wait());
    cat.close().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A duration out of range in a configuration file is named by its key there (`quiet_ms`),
/// not by the `Config` field a reader of the file does not see.
#[test]
fn a_config_file_names_a_duration_by_its_key() {
    for (text, key) in [
        ("quiet_ms = 0", "quiet_ms"),
        ("idle_timeout_ms = 500", "idle_timeout_ms"),
        ("close_grace_ms = 3600000", "close_grace_ms"),
        ("idle_timeout_ms = 2000\nreaper_interval_ms = 5000", "reaper_interval_ms"),
    ] {
        let err = termloom::Config::from_toml_str(text).unwrap_err().to_string();
        assert!(err.contains(&format!("configuration: {key} ")), "{text}: {err}");
    }
}

/// A logical line longer than `max_read_bytes` is split into lines of that size when it
/// scrolls off; read while still on the screen, it is split the same way, so it is not
/// returned again (as rewritten) once it settles.
#[test]
fn a_line_longer_than_a_read_is_not_returned_again_when_it_settles() {
    if !require("bash") {
        return;
    }
    let config = Config { max_read_bytes: 64, ..Config::default() };
    let engine = Engine::new(config).unwrap();
    let script = "printf '%0100d' 0; read -r; printf 'after\\n'; seq 1 12; read -r";
    let session = engine
        .spawn(SpawnSpec::new("bash").args(["--norc", "--noprofile", "-c", script]).size(40, 6))
        .unwrap();
    expect(&session, Until::input_wait());
    // Everything there is to read, none of it returned before.
    let read_all = |text: &mut String| loop {
        let out = session.read().unwrap();
        assert!(!out.rewritten, "{out:?}");
        text.push_str(&out.text);
        if !out.truncated {
            break;
        }
    };
    let mut text = String::new();
    read_all(&mut text);
    session.submit("").unwrap();
    expect(&session, Until::text("12"));
    expect(&session, Until::input_wait());
    read_all(&mut text);
    let zeros = "0".repeat(100);
    let numbers: String = (1..=12).map(|i| format!("{i}\n")).collect();
    assert_eq!(text, format!("{}\n{}\nafter\n{numbers}", &zeros[..64], &zeros[64..]));
    session.close().unwrap();
}

/// zsh ends output that did not end its line with its end-of-line mark and spaces that wrap
/// onto the next row, then erases from there down and draws its prompt on that row: the
/// output's line and the prompt are two lines of the transcript, and the command's output has
/// no trailing spaces.
#[test]
fn zsh_prompt_after_output_without_a_newline_starts_its_own_line() {
    if !require("zsh") {
        return;
    }
    let home = tempdir();
    std::fs::write(home.join(".zshrc"), "PS1='zsh> '\nPROMPT_EOL_MARK=END\n").unwrap();
    let engine = engine();
    let spec = SpawnSpec::new("zsh")
        .env("HOME", &*home)
        .env_remove("ZDOTDIR")
        .size(30, 8)
        .shell_integration(true);
    let zsh = engine.spawn(spec).unwrap();
    expect(&zsh, Until::prompt());
    let result = zsh.run_command("printf foo", LONG).unwrap();
    assert_eq!(result.output, "fooEND");
    let result = zsh.run_command("echo bar", LONG).unwrap();
    assert_eq!(result.output, "bar\n");
    let text = zsh.scrollback(1 << 20).unwrap().text;
    assert!(text.ends_with("zsh> printf foo\nfooEND\nzsh> echo bar\nbar\nzsh> "), "{text:?}");
    zsh.close().unwrap();
}

/// fish (3.x) ends output that did not end its line with its end-of-line mark `⏎` and spaces
/// that wrap onto the next row, then erases that row from its start (`CR EL`) and draws its
/// prompt on it: the output's line and the prompt are two lines of the transcript, without the
/// row's blanks (they were one, `foo⏎`, 26 spaces and `> echo bar`).
#[test]
fn fish_prompt_after_output_without_a_newline_starts_its_own_line() {
    if !require("fish") {
        return;
    }
    let home = tempdir();
    let engine = engine();
    let spec = SpawnSpec::new("fish")
        .args(["--no-config", "-C", "function fish_prompt; echo '> '; end"])
        .env("HOME", &*home)
        .size(30, 8);
    let fish = engine.spawn(spec).unwrap();
    expect(&fish, Until::input_wait());
    let outcome = fish.submit_and_wait("printf foo", Until::text("foo"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    // (fish at its prompt again before the next line: typed ahead, its echo comes first.)
    expect(&fish, Until::input_wait());
    let outcome = fish.submit_and_wait("echo bar", Until::text("bar"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    expect(&fish, Until::input_wait());
    let text = fish.scrollback(1 << 20).unwrap().text;
    assert!(text.ends_with("> printf foo\nfoo\u{23ce}\n> echo bar\nbar\n> "), "{text:?}");
    fish.close().unwrap();
}

/// fish (3.x) after output exactly as wide as the terminal (the cursor waits to wrap on the
/// last column): its end-of-line mark wraps onto the next row, which it erases from its start
/// (`CR EL`) and draws its prompt on. The output and the prompt are two lines; a line of `cat`
/// filling two rows exactly stays one line (the zeros and `> echo bar` were one line).
#[test]
fn fish_prompt_after_output_as_wide_as_the_terminal_starts_its_own_line() {
    if !require("fish") {
        return;
    }
    let home = tempdir();
    let long = "ab".repeat(30);
    std::fs::write(home.join("long"), format!("{long}\n")).unwrap();
    let engine = engine();
    let spec = SpawnSpec::new("fish")
        .args(["--no-config", "-C", "function fish_prompt; echo '> '; end"])
        .env("HOME", &*home)
        .cwd(&*home)
        .size(30, 8);
    let fish = engine.spawn(spec).unwrap();
    expect(&fish, Until::input_wait());
    let outcome = fish.submit_and_wait("printf '%030d' 0", Until::text("000"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    // (fish at its prompt again before the next line: typed ahead, its echo comes first.)
    expect(&fish, Until::input_wait());
    let outcome = fish.submit_and_wait("cat long", Until::text("abab"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    // (fish at its prompt again before the next line: typed ahead, its echo comes first.)
    expect(&fish, Until::input_wait());
    let outcome = fish.submit_and_wait("echo bar", Until::text("bar"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    expect(&fish, Until::input_wait());
    let text = fish.scrollback(1 << 20).unwrap().text;
    let zeros = "0".repeat(30);
    let expected = format!("{zeros}\n> cat long\n{long}\n> echo bar\nbar\n> ");
    assert!(text.ends_with(&expected), "{text:?}");
    fish.close().unwrap();
}

/// fish's continuation row (after `begin`, the cursor moved right to the indentation, nothing
/// written) reads as an empty line, and the command typed there as a continuation of it with
/// its indentation: reads returned the row as 6 blanks at 30 columns (24 at 120 columns with
/// fish's default prompt), then `end`, drawn less indented, as a rewritten line.
#[test]
fn fish_continuation_row_reads_as_its_text_not_as_blanks() {
    if !require("fish") {
        return;
    }
    let home = tempdir();
    let engine = engine();
    let spec = SpawnSpec::new("fish")
        .args(["--no-config", "-C", "function fish_prompt; echo '> '; end"])
        .env("HOME", &*home)
        .size(30, 8);
    let fish = engine.spawn(spec).unwrap();
    expect(&fish, Until::input_wait());
    assert_eq!(fish.read().unwrap().text, "> ");
    fish.submit_and_wait("begin", Until::input_wait(), LONG).unwrap().held().unwrap();
    let read = fish.read().unwrap();
    assert_eq!((read.text.as_str(), read.rewritten), ("begin\n", false), "{read:?}");
    let outcome = fish.send_keys_and_wait("echo hi", Until::text("echo hi"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    expect(&fish, Until::input_wait());
    let read = fish.read().unwrap();
    assert_eq!((read.text.as_str(), read.rewritten), ("      echo hi", false), "{read:?}");
    fish.close().unwrap();
}

/// zsh forces a wrap at the last column with a space and `CR EL` on the next row: a command
/// whose typed space falls in the last column is one line of the transcript (it was split
/// there, `$ echo abcdefghijkl` and `more`, by the rule for fish's end-of-line mark).
#[test]
fn zsh_command_with_a_blank_in_the_last_column_stays_one_line() {
    if !require("zsh") {
        return;
    }
    let engine = engine();
    let spec = SpawnSpec::new("zsh").args(["-f"]).env("PS1", "$ ").size(20, 8);
    let zsh = engine.spawn(spec).unwrap();
    expect(&zsh, Until::input_wait());
    let outcome = zsh.submit_and_wait("echo abcdefghijkl more", Until::text("more"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    expect(&zsh, Until::input_wait());
    let text = zsh.scrollback(1 << 20).unwrap().text;
    assert_eq!(text, "$ echo abcdefghijkl more\nabcdefghijkl more\n$ ", "{text:?}");
    zsh.close().unwrap();
}

/// aspell's `check` leaves through ncurses' `endwin` twice: the second moves the cursor to the
/// last row and resets mode 1049 again on the primary screen, as it came back. The cursor goes
/// back where the primary screen came back (xterm and tmux restore it there), so the shell's
/// prompt comes right below the command and no blank lines are read between them (22 at 24
/// rows, in reads and the scrollback).
#[test]
fn aspell_check_leaves_no_blank_lines_before_the_next_prompt() {
    if !require("aspell") {
        return;
    }
    let home = tempdir();
    std::fs::write(home.join("words.txt"), "helo wrld\n").unwrap();
    let engine = engine();
    let spec = SpawnSpec::new("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .env("HISTFILE", "/dev/null")
        .env("HOME", &*home)
        .cwd(&*home)
        .size(80, 24);
    let sh = engine.spawn(spec).unwrap();
    expect(&sh, Until::input_wait());
    sh.submit("aspell --lang=en check words.txt").unwrap();
    expect(&sh, Until::screen_contains("Ignore all"));
    expect(&sh, Until::input_wait());
    sh.send_keys("x").unwrap();
    expect(&sh, Until::screen_regex(r"^\$ $").unwrap());
    let outcome = sh.submit_and_wait("echo done", Until::text("done"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    expect(&sh, Until::input_wait());
    let text = sh.scrollback(1 << 20).unwrap().text;
    assert_eq!(text, "$ aspell --lang=en check words.txt\n$ echo done\ndone\n$ ", "{text:?}");
    sh.close().unwrap();
}

/// A program that set origin mode (and a scroll region) on the alternate screen and left it
/// through mode 1049 left origin mode set on the primary screen: the next `CSI H` went to the
/// region's top (row 4), not the screen's. 1049 restores origin mode with the cursor, as
/// xterm's DECRC does.
#[test]
fn leaving_the_alternate_screen_restores_origin_mode() {
    let engine = engine();
    let script = r"printf 'a\nbc\033[?1049h\033[5;10r\033[?6h\033[2;1Hx\033[?1049l\033[Hhome'
read x";
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script]).size(40, 12)).unwrap();
    expect(&s, Until::input_wait());
    let screen = s.screen().unwrap();
    assert_eq!(screen.lines[0], "home", "{screen}");
    assert_eq!((screen.cursor.row, screen.cursor.col), (0, 4), "{screen}");
    s.close().unwrap();
}

/// A line a transcript wait has not searched yet stays in the store until the wait has
/// searched it, even when the look after output is put off (a costly look went just before)
/// and more lines than the store's bound scroll by meanwhile: the wait matched nothing and ran
/// to its timeout.
#[test]
fn a_put_off_look_still_searches_lines_the_bound_would_drop() {
    let engine = Engine::new(Config { scrollback_lines: 100, ..Config::default() }).unwrap();
    let s = engine
        .spawn(
            SpawnSpec::new("sh")
                .args(["-c", "read a; echo go; sleep 0.1; echo needle; seq 1 3000; read b"]),
        )
        .unwrap();
    expect(&s, Until::input_wait());
    // Each look costs 50 ms (this test), so the look after the next output is put off by
    // 450 ms: past the needle and the 3,000 lines after it.
    let costly = Until::screen_matches("a costly test", |_| {
        std::thread::sleep(Duration::from_millis(50));
        false
    });
    let until = Until::any(vec![Until::text("needle"), costly]);
    let outcome = s.send_bytes_and_wait(b"\n", until, LONG).unwrap();
    let found = outcome.matched().unwrap_or_else(|| panic!("{outcome}"));
    assert_eq!(found.text, "needle");
    s.close().unwrap();
}

/// A program that redraws the same frame on a timer, each inside a synchronized update too
/// long for one read of the terminal, has a stable screen: the frame is compared once it is
/// complete. The half-drawn frame at the end of each read counted as a change, so the screen
/// was never stable.
#[test]
fn the_same_frame_redrawn_in_synchronized_updates_is_a_stable_screen() {
    let engine = engine();
    let frame = r#"f=$(i=0; while [ $i -lt 1800 ]; do printf '\033[38;5;%dmX' $((i % 200 + 16)); i=$((i+1)); done)
while :; do printf '\033[?2026h\033[H%s\033[0m\033[?2026l' "$f"; sleep 0.1; done"#;
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", frame])).unwrap();
    expect(&s, Until::screen_contains("XXXXXXXX"));
    let outcome = s.wait(Until::stable(Duration::from_millis(700)), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    s.close().unwrap();
}

/// Waits pending on one session are bounded (`Config::max_waits`): one past the bound is
/// refused with `Error::TooManyWaits`, and one that would type first types nothing; the
/// pending waits still end, the bound frees as they do, and another session is untouched.
/// Before, any number of waits (each with a copy of what its reader had read of the screen,
/// each checked against every output) piled up on a session.
#[test]
fn waits_pending_on_a_session_are_bounded() {
    let engine = Engine::new(Config { max_waits: 8, ..Config::default() }).unwrap();
    let s = bash(&engine);
    let other = bash(&engine);
    let pending: Vec<_> =
        (0..8).map(|_| s.start_wait(Until::text("go-ahead"), LONG).unwrap()).collect();
    for _ in 0..1000 {
        let err = s.start_wait(Until::text("go-ahead"), LONG).unwrap().finish().unwrap_err();
        assert!(matches!(err, Error::TooManyWaits { limit: 8, .. }), "{err:?}");
    }
    let err = s.send_keys_and_wait("echo typed<Enter>", Until::text("typed"), LONG).unwrap_err();
    assert!(
        matches!(err, Error::TooManyWaits { session, limit: 8 } if session == s.id()),
        "{err:?}"
    );
    assert!(err.to_string().contains("Config::max_waits"), "{err}");
    assert_eq!(s.info().unwrap().pending_waits, 8);
    // The other session is untouched: its waits are its own (seven, and the one below).
    let extra: Vec<_> =
        (0..7).map(|_| other.start_wait(Until::text("never-printed"), LONG).unwrap()).collect();
    other.send_keys("echo other-$((6*7))<Enter>").unwrap();
    expect(&other, Until::text("other-42"));
    drop(extra);
    // Nothing was typed into the session whose wait was refused.
    assert!(!s.screen().unwrap().to_string().contains("typed"), "{}", s.screen().unwrap());
    // Its pending waits end as usual, and the bound frees as they do.
    s.send_keys("echo go-ahead<Enter>").unwrap();
    for wait in pending {
        let outcome = wait.finish().unwrap();
        assert!(!outcome.is_timeout(), "{outcome:?}");
    }
    assert_eq!(s.info().unwrap().pending_waits, 0);
    s.send_keys_and_wait("echo $((20+1))x<Enter>", Until::text("21x"), LONG).unwrap();
}

/// A library error repeats a caller's long argument only by its start and size, and its
/// message is held to about 2 KiB, while still saying what was wrong: a multi-megabyte bad
/// regular expression, wait text, key name in a key script, signal name, program with a NUL,
/// environment entry, working directory, and a program that cannot start. Before, each was
/// repeated whole (the key name twice), so a 3 MB argument made a 3 MB (or 6 MB) message.
#[test]
fn errors_repeat_a_long_argument_by_its_start() {
    const BOUND: usize = 2048;
    let huge = "x".repeat(2 << 20);
    let check = |err: Error, says: &str| {
        let message = err.to_string();
        assert!(message.len() <= BOUND, "{} bytes: {}", message.len(), &message[..200]);
        assert!(message.contains(says), "{message}");
        assert!(message.contains("xxxx"), "{message}");
    };
    check(Until::regex(&format!("({huge}")).unwrap_err(), "unclosed group");
    check(Until::screen_regex(&format!("{huge}[")).unwrap_err(), "unclosed character class");
    let engine = Engine::new(Config::default()).unwrap();
    let s = bash(&engine);
    let err = s.wait(Until::text(format!("{huge}\n")), LONG).unwrap_err();
    check(err, "contains a line break");
    check(s.send_keys(&format!("echo <{huge}>")).unwrap_err(), "unknown key name");
    check(s.send_keys(&format!("<C-{huge}>")).unwrap_err(), "unknown key name");
    check(s.send_keys(&format!("<{huge}")).unwrap_err(), "invalid key");
    check(huge.parse::<Signal>().unwrap_err(), "unknown signal");
    let spawn = |spec: SpawnSpec| engine.spawn(spec).expect_err("refused");
    check(spawn(SpawnSpec::new(format!("{huge}\0"))), "contains a NUL byte");
    check(spawn(SpawnSpec::new("true").args([format!("\0{huge}")])), "contains a NUL byte");
    check(spawn(SpawnSpec::new("true").env(format!("{huge}="), "v")), "a name containing `=`");
    let err = spawn(SpawnSpec::new("true").env("NAME", format!("{huge}\0")));
    assert!(err.to_string().contains("a value containing NUL"), "{err}");
    check(spawn(SpawnSpec::new("true").cwd(format!("/{huge}"))), "does not exist");
    check(spawn(SpawnSpec::new(format!("no-such-program-{huge}"))), "cannot start");
    // Nor do the errors that carry a caller's text in their fields rather than only in their
    // message (`Debug` shows every field whole): a recording's path, a wait's description,
    // the program a policy's rule decides about.
    // (A message cut by the bound says how much it left out, a few bytes past 2 KiB.)
    let held = |err: Error, says: &str| {
        let (debug, message) = (format!("{err:?}"), err.to_string());
        assert!(debug.len() < 4096, "{} bytes: {}", debug.len(), &debug[..200]);
        assert!(message.len() <= BOUND + 64, "{} bytes: {}", message.len(), &message[..200]);
        assert!(message.contains(says) && message.contains("xxxx"), "{message}");
    };
    let path = format!("/nonexistent-termloom/{}", "x".repeat(200_000));
    held(spawn(SpawnSpec::new("true").record(path)), "cannot create the recording");
    let test = Until::screen_matches(huge.clone(), |_| panic!("{}", "p".repeat(10_000)));
    let pending = s.start_wait(test, LONG).unwrap();
    s.send_keys("echo woken<Enter>").unwrap();
    held(pending.finish().unwrap_err(), "panicked");
    let rule = termloom::Rule {
        program: vec!["**".into()],
        decision: termloom::Decision::Deny,
        ..termloom::Rule::default()
    };
    let policy = termloom::Policy { rules: vec![rule], ..termloom::Policy::default() };
    let guarded = Engine::new(Config { policy: Some(policy), ..Config::default() }).unwrap();
    let program = format!("/nonexistent-termloom/{}", "x".repeat(200_000));
    let err = guarded.spawn(SpawnSpec::new(program)).unwrap_err();
    let message = err.to_string();
    assert!(message.len() <= BOUND && message.contains("decides deny"), "{message}");
    // The program is its own field (repeated by its start in the message); the reason, shown
    // to a person asked too, names it by its start.
    let Error::SpawnDenied { reason, .. } = err else { panic!("{err:?}") };
    assert!(reason.len() < 400 && reason.contains("xxxx"), "{} bytes", reason.len());
    // Nothing of it reached the session, which goes on.
    s.send_keys_and_wait("echo $((40+2))y<Enter>", Until::text("42y"), LONG).unwrap();
}

/// A session's waits are shared by every caller that reads it (a server's clients, MCP
/// connections, the library's handles), so each reader is held to its share
/// (`Config::max_waits_per_reader`): one reader at its bound is refused with
/// `Error::TooManyReaderWaits`, typing nothing, while another reader's waits (and the default
/// reader's) are still taken, until the session's own bound (`max_waits`) holds for all of
/// them. Before, one caller's waits could fill `max_waits` and every other caller's wait on
/// the session was refused.
#[test]
fn one_reader_cannot_take_every_wait_of_a_session() {
    let config = Config { max_waits: 8, max_waits_per_reader: 3, ..Config::default() };
    let engine = Engine::new(config).unwrap();
    let s = bash(&engine);
    let greedy = s.as_reader(ReaderId::new());
    let mut pending: Vec<_> =
        (0..3).map(|_| greedy.start_wait(Until::text("go-ahead"), LONG).unwrap()).collect();
    for _ in 0..100 {
        let err = greedy.start_wait(Until::text("go-ahead"), LONG).unwrap().finish().unwrap_err();
        assert!(
            matches!(err, Error::TooManyReaderWaits { session, limit: 3 } if session == s.id()),
            "{err:?}"
        );
    }
    let err =
        greedy.send_keys_and_wait("echo typed<Enter>", Until::text("typed"), LONG).unwrap_err();
    assert!(matches!(err, Error::TooManyReaderWaits { limit: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("Config::max_waits_per_reader"), "{err}");
    assert!(!s.screen().unwrap().to_string().contains("typed"), "{}", s.screen().unwrap());
    // Another reader, and the default one, still wait: their share is their own.
    let other = s.as_reader(ReaderId::new());
    pending.extend((0..3).map(|_| other.start_wait(Until::text("go-ahead"), LONG).unwrap()));
    pending.extend((0..2).map(|_| s.start_wait(Until::text("go-ahead"), LONG).unwrap()));
    assert_eq!(s.info().unwrap().pending_waits, 8);
    // The session's bound still holds for all of them together.
    let third = s.as_reader(ReaderId::new());
    let err = third.start_wait(Until::text("go-ahead"), LONG).unwrap().finish().unwrap_err();
    assert!(matches!(err, Error::TooManyWaits { limit: 8, .. }), "{err:?}");
    s.send_keys("echo go-ahead<Enter>").unwrap();
    for wait in pending {
        assert!(!wait.finish().unwrap().is_timeout());
    }
    // The shares free as the waits end.
    greedy.send_keys_and_wait("echo $((20+1))x<Enter>", Until::text("21x"), LONG).unwrap();
    // The refused call typed nothing: its line never reached the shell, now that everything
    // typed since has been answered (the screen, looked at right after the refusal, could
    // not have shown an echo still on its way).
    let transcript = s.scrollback(1 << 20).unwrap().text;
    assert!(!transcript.contains("echo typed"), "{transcript}");
    // The default reader is the host's own, held by the session's bound alone.
    let host: Vec<_> =
        (0..5).map(|_| s.start_wait(Until::text("host-go"), LONG).unwrap()).collect();
    s.send_keys("echo host-go<Enter>").unwrap();
    for wait in host {
        assert!(!wait.finish().unwrap().is_timeout());
    }
}

/// The futures are `Send` and `Sync`, as the handles are: an `async fn` of a host's that
/// holds one across an `.await` can then be shared between threads too.
#[test]
fn futures_are_send_and_sync() {
    fn shared_between_threads<T: Send + Sync>(value: T) -> T {
        value
    }
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let wait = shared_between_threads(cat.wait_async(Until::input_wait(), LONG));
    let outcome = futures::executor::block_on(wait).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let typed = cat.submit_and_wait_async("hello", Until::regex("^hello$").unwrap(), LONG);
    let outcome = futures::executor::block_on(shared_between_threads(typed)).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let read = shared_between_threads(cat.read_async(Until::input_wait(), LONG));
    let (_, output) = futures::executor::block_on(read).unwrap();
    assert!(output.text.contains("hello"), "{output:?}");
    let closed = shared_between_threads(cat.close_async());
    futures::executor::block_on(closed).unwrap();
}

/// Every future of a session owns what it needs, as `tokio::spawn` on a multi-threaded
/// runtime asks (`Send + 'static`): each is made from a clone of the handle dropped at once,
/// then awaited on a thread of its own. `read_async` borrowed its handle (an `async fn` of
/// `&self`), so it could not be spawned, and sent its wait only when first polled, unlike the
/// others, which are eager; it now has its wait in place when it is made.
#[test]
fn futures_own_what_they_need_and_can_be_spawned() {
    fn spawned<F>(future: F) -> std::thread::JoinHandle<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        std::thread::spawn(move || futures::executor::block_on(future))
    }
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let handle = || cat.clone();
    spawned(handle().wait_async(Until::input_wait(), LONG)).join().unwrap().unwrap();
    let typed =
        handle().send_keys_and_wait_async("typed<Enter>", Until::regex("^typed$").unwrap(), LONG);
    assert!(spawned(typed).join().unwrap().unwrap().matched().is_some());
    let read = handle().read_async(Until::regex("^pasted$").unwrap(), LONG);
    assert_eq!(cat.info().unwrap().pending_waits, 1, "the wait is in place before a poll");
    spawned(handle().paste_async("pasted\n")).join().unwrap().unwrap();
    let (outcome, output) = spawned(read).join().unwrap().unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(output.text.contains("typed\n") && output.text.contains("pasted"), "{output:?}");
    spawned(handle().close_async()).join().unwrap().unwrap();
}

/// `WaitOutcome::held` turns a wait whose condition did not hold into an error, for a host to
/// which that is a failure (`session.wait(..)?` alone goes on after a timeout): a timeout, a
/// cancel, a close, or an exit before the text came are `Error::WaitNotHeld` with the outcome;
/// a match, and an exit that `Until::exit` (alone or in an `any`) waited for, are not.
#[test]
fn held_makes_a_wait_that_did_not_hold_an_error() {
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let ready = cat.wait(Until::input_wait(), LONG).unwrap();
    assert!(ready.is_held(), "{ready}");
    assert!(ready.held().is_ok());
    let timed_out = cat.wait(Until::text("never printed"), Duration::from_millis(200)).unwrap();
    assert!(timed_out.is_timeout() && !timed_out.is_held(), "{timed_out}");
    let err = timed_out.held().unwrap_err();
    assert_eq!(err.code(), "wait_not_held");
    assert!(err.to_string().contains("did not hold: timed out"), "{err}");
    assert!(err.to_string().contains("wait longer"), "{err}");
    let Error::WaitNotHeld(outcome) = err else { panic!("{err:?}") };
    assert!(outcome.is_timeout() && outcome.screen.is_some(), "{outcome:?}");
    // Its message's advice is for what ended the wait: only a timeout's says to wait longer.
    let pending = cat.start_wait(Until::text("never printed"), LONG).unwrap();
    pending.cancel();
    let err = pending.finish().unwrap().held().unwrap_err();
    assert!(matches!(&err, Error::WaitNotHeld(o) if o.fired == Fired::Cancelled), "{err:?}");
    assert!(
        err.to_string()
            .ends_with("the wait was cancelled (the error holds the outcome and the screen then)"),
        "{err}"
    );
    cat.close().unwrap();
    let err = cat.wait(Until::exit(), LONG).unwrap().held().unwrap_err();
    assert!(matches!(&err, Error::WaitNotHeld(o) if o.fired == Fired::Closed), "{err:?}");
    assert!(err.to_string().ends_with("the session was closed while it waited"), "{err}");

    // An exit holds a wait for it, and no other.
    let bye = || engine.spawn(SpawnSpec::new("sh").args(["-c", "echo bye"])).unwrap();
    let exited = bye().wait(Until::text("never printed"), LONG).unwrap();
    assert!(matches!(exited.fired, Fired::Exited { .. }), "{exited}");
    let err = exited.held().unwrap_err();
    assert!(matches!(&err, Error::WaitNotHeld(o) if !o.is_timeout()), "{err:?}");
    assert!(err.to_string().contains("the program ended first"), "{err}");
    assert!(!err.to_string().contains("wait longer"), "{err}");
    let exit = bye().wait(Until::exit(), LONG).unwrap().held().unwrap();
    assert_eq!(exit.fired, Fired::Exited { status: ExitStatus::Code(0) });
    let either = Until::any(vec![Until::text("never printed"), Until::exit()]);
    let exit = bye().wait(either, LONG).unwrap().held().unwrap();
    assert!(matches!(exit.fired, Fired::Exited { .. }), "{exit}");
}

/// The transcript and the screen hold text as a terminal shows it: a tab is the spaces it
/// moved over, and an escape sequence or a carriage return is acted on, never shown. A wait
/// for a text holding one could never hold; it is refused at once, saying so, as a text
/// with a line break is, instead of waiting out its timeout.
#[test]
fn a_wait_for_text_with_a_control_character_is_refused() {
    let engine = engine();
    let tsv = engine
        .spawn(SpawnSpec::new("sh").args(["-c", r"printf 'x\ty\n\033[1mbold\033[0m\n'; read x"]))
        .unwrap();
    expect(&tsv, Until::text("bold"));
    let never = Duration::from_secs(2);
    for until in [
        Until::text("x\ty"),
        Until::screen_contains("x\ty"),
        Until::screen_row_contains(0, "x\ty"),
        Until::any(vec![Until::exit(), Until::text("\x1b[1mbold")]),
        Until::text("bold\r"),
    ] {
        let what = until.to_string();
        match tsv.wait(until, never) {
            Err(Error::InvalidInput(message)) => {
                assert!(message.contains("could never hold"), "{what}: {message}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    let Err(err) = tsv.wait(Until::text("x\ty"), never) else { unreachable!() };
    assert!(err.to_string().contains("a tab, which the terminal shows as spaces"), "{err}");
    // Written as shown, the same text is found.
    expect(&tsv, Until::screen_contains("x       y"));
}

/// Transcript and screen regexes match within one line: a pattern every match of which holds
/// a line break (`foo\nbar`, `foo\r?\nbar`) or another control character (`foo\tbar`, an
/// Escape, a carriage return: no shown line holds one) could never match, and is refused at once by
/// `Until::regex`, `screen_regex` and `screen_row_regex`, saying so; before, it was accepted
/// and a wait for it ran out its whole timeout. A pattern that can also match without one
/// (`foo(\n|$)`, `(?s)foo.*`) is accepted, and matches.
#[test]
fn a_regex_that_needs_a_line_break_is_refused_at_once() {
    let engine = engine();
    let two =
        engine.spawn(SpawnSpec::new("sh").args(["-c", "printf 'foo\\nbar\\n'; read x"])).unwrap();
    expect(&two, Until::screen_contains("bar"));
    let never = Duration::from_secs(2);
    type Make = fn(&str) -> termloom::Result<Until>;
    // With what the refusal names: a line break, or another control character (a tab, an
    // Escape, a carriage return), which no shown line holds either.
    let refused: [(&str, Make, &str); 8] = [
        ("foo\nbar", Until::regex, "one line"),
        (r"foo\nbar", Until::regex, "one line"),
        (r"foo\r?\n+bar", Until::screen_regex, "one line"),
        (r"(foo|bar)[\n]", |p| Until::screen_row_regex(0, p), "one line"),
        (r"(?m)^foo$\n^bar$", Until::regex, "one line"),
        (r"foo\tbar", Until::regex, "control character"),
        (r"\x1b\[31mfoo", Until::screen_regex, "control character"),
        (r"bar\r", |p| Until::screen_row_regex(1, p), "control character"),
    ];
    for (pattern, make, why) in refused {
        match make(pattern) {
            Err(Error::InvalidInput(message)) => assert!(message.contains(why), "{message}"),
            Err(other) => panic!("{pattern:?}: {other:?}"),
            Ok(until) => {
                let outcome = two.wait(until, never).unwrap();
                panic!(
                    "{pattern:?} was accepted; its wait: {:?} after {:?}",
                    outcome.fired, outcome.elapsed
                )
            }
        }
    }
    for pattern in [r"foo(\n|$)", r"(?s)foo.*", r"[\s\S]?bar", r"foo\n?"] {
        Until::regex(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
        let until = Until::screen_regex(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
        expect(&two, until);
    }
}

/// A host that stores what it knows of a session as JSON (its id, how its program ended,
/// what it was doing, a signal and a target to send) reads it back as it was: the ids and the
/// enums that name a state or a choice deserialise from what they serialise to. `SessionId`
/// serialised only, so a host could not read back the ids it had stored. They hash, as
/// `SessionId` and `Signal` did (a host counting exits by status keys a map by it).
#[test]
fn ids_and_states_read_back_from_their_json() {
    fn round_trip<T>(value: T) -> String
    where
        T: serde::Serialize
            + serde::de::DeserializeOwned
            + Copy
            + Eq
            + std::hash::Hash
            + std::fmt::Debug,
    {
        // Hashable too, as the ids are: a host may key a map by them.
        assert_eq!(std::collections::HashSet::from([value]).len(), 1);
        let json = serde_json::to_string(&value).unwrap();
        let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(back, value, "{json}");
        json
    }
    let engine = engine();
    let three = engine.spawn(SpawnSpec::new("sh").args(["-c", "exit 3"])).unwrap();
    expect(&three, Until::exit());
    let info = three.info().unwrap();
    let id = three.id();
    assert_eq!(round_trip(id), id.to_string());
    assert_eq!(id.to_string().parse::<termloom::SessionId>(), Ok(id));
    assert_eq!(engine.session(round_trip_id(&id)).unwrap().id(), id);
    assert_eq!(round_trip(info.state), r#"{"state":"exited","status":{"code":3}}"#);
    round_trip(info.status.activity);
    round_trip(ExitStatus::Signal(9));
    round_trip(termloom::SessionState::Running);
    round_trip(termloom::InputKind::Password);
    round_trip(termloom::MouseReporting::Drag);
    assert_eq!(round_trip(Signal::Usr1), r#""USR1""#);
    round_trip(termloom::SignalTarget::Session);
    round_trip(termloom::ScrollDirection::Up);
}

/// `id` stored as JSON and read back.
fn round_trip_id(id: &termloom::SessionId) -> termloom::SessionId {
    serde_json::from_value(serde_json::json!(id.0)).unwrap()
}

/// `Session::recording` of a large recording in memory does not hold up other sessions: the
/// reactor hands over the events shared and the caller joins them. It copied the whole text
/// on the reactor, up to the 1 GiB bound: 384 MiB took 0.7 s a call, and another session's
/// `info()` waited 744 ms meanwhile (215–322 ms at 192 MiB, 104–220 ms at 160 MiB); with the
/// join on the caller's thread it waited 9–22 ms, but once 115 ms in a CI run beside four
/// test builds (a stall of the machine's, in one call of three). So the other session's
/// longest wait is taken during each call, and the least of them must stay under 100 ms:
/// a join on the reactor holds it up in every call (191–264 ms each at 320 MiB, tried).
#[test]
fn large_recording_in_memory_is_copied_off_the_reactor() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;
    const CALLS: usize = 3;
    let mib: u64 = std::env::var("TERMLOOM_TEST_RECORDING_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(320);
    let engine = engine();
    // NUL bytes, each recorded as six (`\u0000`): a sixth of the output for the recording's
    // size, and the cheapest bytes for the terminal to take.
    let script = format!("head -c {} /dev/zero", (mib << 20) / 6 + (64 << 10));
    let big =
        engine.spawn(SpawnSpec::new("sh").args(["-c", &script]).record_to_memory(1 << 30)).unwrap();
    expect_within(&big, Until::exit(), Duration::from_secs(1200));
    let other = engine.spawn(SpawnSpec::new("cat")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // The call under way: 0 before the first, `n` during the `n`-th.
    let call = Arc::new(AtomicUsize::new(0));
    let worst = Arc::new(Mutex::new([Duration::ZERO; CALLS + 1]));
    let probe = {
        let (other, stop, call, worst) =
            (other.clone(), Arc::clone(&stop), Arc::clone(&call), Arc::clone(&worst));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let during = call.load(Ordering::Relaxed);
                let started = Instant::now();
                other.info().unwrap();
                let waited = started.elapsed();
                let mut worst = worst.lock().unwrap();
                worst[during] = worst[during].max(waited);
            }
        })
    };
    let mut recorded = 0;
    for n in 1..=CALLS {
        call.store(n, Ordering::Relaxed);
        let started = Instant::now();
        recorded = big.recording().unwrap().unwrap().len();
        eprintln!("recording() of {recorded} bytes took {:?}", started.elapsed());
    }
    stop.store(true, Ordering::Relaxed);
    probe.join().unwrap();
    let during_calls = worst.lock().unwrap()[1..].to_vec();
    eprintln!("another session's longest info() in each call: {during_calls:?}");
    assert!(recorded as u64 > mib << 20, "{recorded} bytes recorded");
    let least = during_calls.iter().min().copied().unwrap_or_default();
    assert!(least < Duration::from_millis(100), "info() waited {during_calls:?} for recording()");
}
