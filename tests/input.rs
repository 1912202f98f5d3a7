//! Keys, paste, mouse and signals against real programs.

mod common;

use common::*;
use termloom::{Error, MouseButton, Signal, SignalTarget, SpawnSpec, Until, shell_program};

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    sweep_left_overs();
    let dir = std::env::temp_dir().join(format!("termloom-input-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn vim_arrow_keys_in_application_cursor_mode_and_a_saving_key_script() {
    if !require("vim") {
        return;
    }
    let path = temp_file("arrows.txt", "first\nsecond\nthird\n");
    let engine = engine();
    let vim = engine.spawn(SpawnSpec::new("vim").args(["-u", "NONE", "-N"]).arg(&path)).unwrap();
    expect(&vim, Until::screen_contains("third"));
    assert!(vim.screen().unwrap().modes.app_cursor, "vim turns on application cursor keys");
    vim.send_keys("<Down><Down><Right>x").unwrap();
    expect(&vim, Until::screen_row_contains(2, "tird"));
    vim.send_keys("<Up>ggIstart <Esc>:wq<Enter>").unwrap();
    expect(&vim, Until::exit());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "start first\nsecond\ntird\n");
}

#[test]
fn less_pages_with_page_down_and_quits_with_q() {
    if !require("less") {
        return;
    }
    let lines: String = (1..=300).map(|i| format!("line number {i}\n")).collect();
    let path = temp_file("pages.txt", &lines);
    let engine = engine();
    let less = engine.spawn(SpawnSpec::new("less").arg(&path).size(80, 24)).unwrap();
    expect(&less, Until::screen_row_contains(0, "line number 1"));
    less.send_keys("<PageDown>").unwrap();
    expect(&less, Until::screen_row_contains(0, "line number 24"));
    less.send_keys("<PageDown><PageDown>").unwrap();
    expect(&less, Until::screen_row_contains(0, "line number 70"));
    less.send_keys("/number 250<Enter>").unwrap();
    expect(&less, Until::screen_row_contains(0, "line number 250"));
    less.send_keys("q").unwrap();
    expect(&less, Until::exit());
}

#[test]
fn htop_function_keys() {
    if !require("htop") {
        return;
    }
    let engine = engine();
    let htop = engine.spawn(SpawnSpec::new("htop").size(120, 32)).unwrap();
    expect(&htop, Until::screen_contains("F10Quit"));
    htop.send_keys("<F1>").unwrap();
    expect(&htop, Until::screen_contains("Press any key to return"));
    htop.send_keys("<Esc>").unwrap();
    expect(&htop, Until::screen_contains("F10Quit"));
    htop.send_keys("<F2>").unwrap();
    expect(&htop, Until::screen_contains("Setup"));
    htop.send_keys("<F10>").unwrap();
    expect(&htop, Until::screen_contains("F10Quit"));
    htop.send_keys("<F10>").unwrap();
    expect(&htop, Until::exit());
}

#[test]
fn multi_line_paste_into_bash_waits_for_enter() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit("bind 'set enable-bracketed-paste on'").unwrap();
    expect(&sh, Until::screen_row_contains(1, "$"));
    assert!(sh.screen().unwrap().modes.bracketed_paste);
    sh.read().unwrap();
    sh.paste("echo one-$((1+0))\necho two-$((1+1))").unwrap();
    expect(&sh, Until::screen_contains("echo two-$((1+1))"));
    // Nothing ran: the pasted line break did not submit.
    let outcome =
        sh.wait(Until::regex("^one-1$").unwrap(), std::time::Duration::from_millis(300)).unwrap();
    assert!(outcome.is_timeout(), "{outcome}");
    sh.send_keys("<Enter>").unwrap();
    expect(&sh, Until::regex("^two-2$").unwrap());
    let text = read_until(&sh, "two-2");
    assert!(text.contains("one-1\n"), "{text:?}");
    sh.close().unwrap();
}

#[test]
fn large_paste_goes_through_the_bounded_queue() {
    if !require(&shell_program()) {
        return;
    }
    let engine = termloom::Engine::new(termloom::Config {
        write_queue_bytes: 4096,
        ..termloom::Config::default()
    })
    .unwrap();
    let cat = engine
        .spawn(SpawnSpec::shell("stty -icanon -echo; echo ready; head -c 200000 | wc -c"))
        .unwrap();
    expect(&cat, Until::text("ready"));
    let text = "x".repeat(200_000);
    cat.paste(&text).unwrap();
    expect(&cat, Until::regex(r"^\s*200000$").unwrap());
}

/// A line longer than a terminal reading whole lines keeps (4095 bytes) is refused, not
/// typed: the kernel would drop its rest silently (`wc -c` counted 8192 bytes of two lines
/// of 10,000). A line it keeps arrives whole.
#[cfg(target_os = "linux")]
#[test]
fn a_line_longer_than_a_canonical_terminal_keeps_is_refused() {
    if !require(&shell_program()) {
        return;
    }
    let engine = termloom::Engine::new(termloom::Config::default()).unwrap();
    let counter = engine.spawn(SpawnSpec::shell("read -r x; echo \"got ${#x}\"")).unwrap();
    expect(&counter, Until::input_wait());
    let long = format!("{}\n", "a".repeat(5000));
    for err in [counter.send_text(&long).unwrap_err(), counter.paste(&long).unwrap_err()] {
        assert!(matches!(&err, Error::InvalidInput(m) if m.contains("4095 bytes")), "{err:?}");
    }
    counter.send_text(&format!("{}\n", "b".repeat(4095))).unwrap();
    expect(&counter, Until::text("got 4095"));
}

/// A line typed in parts is not counted across them: each input is checked on its own, and a
/// part that, with what earlier ones left on the line, takes it past the 4095 bytes the kernel
/// keeps is typed (the kernel cuts the line: `read` gets 4095), never refused. Counting the
/// part typed before refused input the kernel takes whole, after the program flushed or read
/// it; this test fails if such a count comes back. The line-kill character (Ctrl-U) empties
/// a line, and a line it keeps arrives whole.
#[cfg(target_os = "linux")]
#[test]
fn a_line_typed_in_parts_is_typed_and_cut_by_the_kernel_not_refused() {
    if !require(&shell_program()) {
        return;
    }
    let engine = termloom::Engine::new(termloom::Config::default()).unwrap();
    let counter =
        engine.spawn(SpawnSpec::shell("while read -r x; do echo \"got ${#x}\"; done")).unwrap();
    expect(&counter, Until::input_wait());
    counter.send_text(&"a".repeat(3000)).unwrap();
    counter.send_text(&"b".repeat(1000)).unwrap();
    counter.paste(&"c".repeat(1000)).unwrap();
    counter.send_keys(&"d".repeat(1000)).unwrap();
    counter.send_text("\n").unwrap();
    expect(&counter, Until::text("got 4095"));
    counter.send_text(&"f".repeat(3000)).unwrap();
    counter.send_text(&format!("\x15{}\n", "h".repeat(4000))).unwrap();
    expect(&counter, Until::text("got 4000"));
}

/// A line counter, `sh` reading lines and saying their lengths, once `setup` has run after
/// its first line.
#[cfg(target_os = "linux")]
fn line_counter(engine: &termloom::Engine, setup: &str) -> termloom::Session {
    let script =
        format!("read -r a; {setup}; echo set up; while read -r x; do echo \"got ${{#x}}\"; done");
    let counter = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    expect(&counter, Until::input_wait());
    counter
}

/// Within one input, the line is never counted longer than the kernel keeps it: a word erase
/// (Ctrl-W) after 3,000 bytes, 1,500 erases of as many `é` (two bytes each with `IUTF8`),
/// 2,000 literal-next pairs (Ctrl-V a, one byte each), and a tab that the modes make a line
/// end (`VEOL`) were refused as lines of 5,001, 4,501, 6,001 and 5,001 bytes.
#[cfg(target_os = "linux")]
#[test]
fn erases_literal_next_and_line_ends_are_never_counted_past_the_kernels_line() {
    let engine = engine();
    let counter = line_counter(&engine, "true");
    counter.send_text("start\n").unwrap();
    expect(&counter, Until::text("set up"));
    counter.send_text(&format!("{}\x17{}\n", "x".repeat(3000), "y".repeat(2000))).unwrap();
    expect(&counter, Until::text("got 2000"));
    let mut one = "é".repeat(1500).into_bytes();
    one.extend([0x7f; 1500]);
    one.extend(format!("{}\n", "w".repeat(3001)).bytes());
    counter.send_bytes(&one).unwrap();
    expect(&counter, Until::text("got 3001"));
    counter
        .send_bytes(&[b"\x16a".repeat(2000), b"u".repeat(2001), b"\n".to_vec()].concat())
        .unwrap();
    expect(&counter, Until::text("got 4001"));
    // The modes' own line ends end a line: a tab as `VEOL`.
    let counter = line_counter(&engine, "stty eol ^I");
    counter.send_text("start\n").unwrap();
    expect(&counter, Until::text("set up"));
    counter.send_text(&format!("{}\t{}\n", "x".repeat(3000), "y".repeat(2000))).unwrap();
    expect(&counter, Until::text("got 5001"));
}

/// A secret refused because, with its line kill and Enter, it is longer than the input queue
/// takes, is refused without its length (`QueueFull` with `attempted: 2001`).
#[cfg(target_os = "linux")]
#[test]
fn a_secret_refused_for_its_length_gives_no_length() {
    let config = termloom::Config { write_queue_bytes: 1024, ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let reader = line_counter(&engine, "stty kill undef -echo");
    reader.send_text("start\n").unwrap();
    expect(&reader, Until::text("set up"));
    expect(&reader, Until::input_wait());
    let err = reader.send_secret(&"s".repeat(2000)).unwrap_err();
    let Error::InvalidInput(message) = &err else { panic!("{err:?}") };
    assert!(!message.contains("2000") && !message.contains("2001"), "{message}");
}

#[test]
fn mouse_click_moves_vims_cursor_only_when_enabled() {
    if !require("vim") {
        return;
    }
    let path = temp_file("mouse.txt", "aaaa\nbbbb\ncccc\n");
    let engine = engine();
    let vim = engine.spawn(SpawnSpec::new("vim").args(["-u", "NONE", "-N"]).arg(&path)).unwrap();
    expect(&vim, Until::screen_contains("cccc"));
    let err = vim.click(2, 3).unwrap_err();
    assert!(matches!(err, Error::Mouse(_)), "{err}");
    assert!(err.to_string().contains("not enabled"), "{err}");
    vim.send_keys(":set mouse=a<Enter>").unwrap();
    // The command line shows before Enter is handled: wait for the mode itself.
    expect(
        &vim,
        Until::screen_matches("mouse reporting on", |s| {
            s.modes.mouse != termloom::MouseReporting::Off
        }),
    );
    vim.click(2, 3).unwrap();
    vim.send_keys("x:wq<Enter>").unwrap();
    expect(&vim, Until::exit());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "aaaa\nbbbb\nccc\n");
}

#[test]
fn the_mouse_of_an_ended_session_says_it_ended_not_that_reporting_is_off() {
    let engine = engine();
    let exited = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&exited, Until::input_wait());
    exited.send_keys("<C-d>").unwrap();
    expect(&exited, Until::exit());
    let closed = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&closed, Until::input_wait());
    closed.close().unwrap();
    for (session, ended) in [(&exited, "exited"), (&closed, "closed")] {
        let check = |what: &str, result: termloom::Result<()>| {
            let err = result.expect_err(what);
            let right = match ended {
                "exited" => matches!(err, Error::SessionExited(_)),
                _ => matches!(err, Error::SessionClosed(_)),
            };
            assert!(right, "{what} on a session that {ended}: {err:?}");
        };
        check("click", session.click(0, 0));
        check("mouse_down", session.mouse_down(termloom::MouseButton::Left, 0, 0));
        check("mouse_up", session.mouse_up(termloom::MouseButton::Left, 0, 0));
        // Motion with no reporting sends nothing on a live session; on an ended one it fails.
        check("mouse_move", session.mouse_move(0, 0));
        check("scroll", session.scroll(termloom::ScrollDirection::Up, 1, 0, 0));
        check("scroll 0", session.scroll(termloom::ScrollDirection::Up, 0, 0, 0));
    }
}

#[test]
fn ctrl_c_stops_sleep_and_the_shell_survives() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    // A row holding only the prompt: the shell is back (rows with commands do not match).
    let idle_prompt = || Until::screen_regex(r"^\$$").unwrap();
    // The job says when it runs in the foreground, so Ctrl-C reaches it and not bash.
    sh.submit("sh -c 'echo in-foreground; exec sleep 1000'").unwrap();
    expect(&sh, Until::regex("^in-foreground$").unwrap());
    sh.send_keys("<C-c>").unwrap();
    expect(&sh, idle_prompt());
    sh.submit("echo status=$?").unwrap();
    expect(&sh, Until::text("status=130"));
    // The same through the signal panel, which names who got it.
    sh.submit("sh -c 'echo in-foreground-2; exec sleep 1001'").unwrap();
    expect(&sh, Until::regex("^in-foreground-2$").unwrap());
    let report = sh.signal(Signal::Int).unwrap();
    assert_eq!(report.signal, Signal::Int);
    // The group's leader: still `sh` or already `sleep`, depending on whether it has exec'd.
    assert!(report.names == ["sleep"] || report.names == ["sh"], "{report}");
    assert_ne!(report.groups, vec![sh.pid()]);
    expect(&sh, idle_prompt());
    sh.submit("echo status=$? alive").unwrap();
    expect(&sh, Until::regex("^status=130 alive$").unwrap());
    sh.close().unwrap();
}

/// As `Activity::Stopped` and `Signal::Tstp` say: Ctrl-Z (or SIGTSTP) to the session's own
/// program does not stop it (its process group is orphaned, so the kernel discards the
/// signal), and it goes on reading.
#[test]
fn ctrl_z_to_the_sessions_own_program_does_not_stop_it() {
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&cat, Until::input_wait());
    cat.send_keys("<C-z>").unwrap();
    let report = cat.signal(termloom::Signal::Tstp).unwrap();
    assert_eq!(report.groups, vec![cat.pid()]);
    let outcome = cat
        .send_keys_and_wait("still here<Enter>", Until::regex("^still here$").unwrap(), LONG)
        .unwrap();
    assert!(outcome.matched().is_some(), "{outcome:?}");
    assert!(!matches!(cat.status().unwrap().activity, termloom::Activity::Stopped));
}

/// `Signal::Stop` stops what Ctrl-Z cannot, the session's own program; its status says so,
/// and `Signal::Cont` lets it read again.
#[test]
fn stop_stops_the_sessions_own_program_and_cont_goes_on() {
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    expect(&cat, Until::input_wait());
    let report = cat.signal(Signal::Stop).unwrap();
    assert_eq!(report.groups, vec![cat.pid()]);
    expect(&cat, Until::quiet(std::time::Duration::from_millis(100)));
    let status = cat.status().unwrap();
    assert!(matches!(status.activity, termloom::Activity::Stopped), "{status}");
    cat.signal(Signal::Cont).unwrap();
    expect(&cat, Until::input_wait());
    cat.close().unwrap();
}

#[test]
fn ctrl_z_then_fg() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    sh.submit("sh -c 'echo in-foreground; exec cat'").unwrap();
    expect(&sh, Until::regex("^in-foreground$").unwrap());
    sh.send_keys("<C-z>").unwrap();
    expect(&sh, Until::text("Stopped"));
    sh.submit("fg").unwrap();
    expect(&sh, Until::regex("^sh -c 'echo in-foreground; exec cat'$").unwrap());
    sh.submit("typed after fg").unwrap();
    expect(&sh, Until::regex("^typed after fg$").unwrap());
    sh.send_keys("<C-d>").unwrap();
    sh.submit("echo back").unwrap();
    expect(&sh, Until::regex("^back$").unwrap());
    sh.close().unwrap();
}

#[test]
fn kill_of_the_shell_in_the_foreground_is_refused() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    let err = sh.signal(Signal::Kill).unwrap_err();
    assert!(err.to_string().contains("refusing to send SIGKILL"), "{err}");
    // It says how to signal the whole session, in each of the three ways there are.
    for way in ["target=\"session\"", "--target session", "SignalTarget::Session"] {
        assert!(err.to_string().contains(way), "{err}");
    }
    sh.submit("echo still here").unwrap();
    expect(&sh, Until::regex("^still here$").unwrap());
    let report = sh.signal_to(Signal::Kill, SignalTarget::Session).unwrap();
    assert_eq!(report.groups, vec![sh.pid()]);
    let outcome = expect(&sh, Until::exit());
    assert_eq!(outcome.fired, termloom::Fired::Exited { status: termloom::ExitStatus::Signal(9) });
}

#[test]
fn malformed_key_scripts_are_errors_and_send_nothing() {
    let engine = engine();
    let cat = engine.spawn(SpawnSpec::new("cat")).unwrap();
    for bad in ["<Esc", "<>", "<Foo>", "a<C->b", "x<F13>"] {
        let err = cat.send_keys(bad).unwrap_err();
        assert!(matches!(err, Error::Key(_)), "{bad}: {err}");
        assert!(err.to_string().contains("Enter"), "the error lists accepted forms: {err}");
    }
    cat.send_keys("ok<lt>done<Enter>").unwrap();
    // The terminal echoes the line (row 0), then cat writes it back (row 1).
    expect(&cat, Until::screen_row_contains(1, "ok<done"));
    let text = cat.read().unwrap().text;
    assert_eq!(text, "ok<done\nok<done\n");
}

/// A python3 program that runs `script` (its own statements) with the terminal in raw mode,
/// given `w(bytes)` to write and `key(label)` to print `label` and then what one read returns.
fn raw_python(engine: &termloom::Engine, script: &str) -> termloom::Session {
    let program = format!(
        "import os, tty\ntty.setraw(0)\n\
         def w(b): os.write(1, b)\n\
         def key(label):\n    w(label.encode() + b'?\\r\\n')\n    \
         w(label.encode() + b' ' + repr(os.read(0, 100)).encode() + b'\\r\\n')\n\
         {script}\nw(b'DONE\\r\\n')\nos.read(0, 1)\n"
    );
    engine.spawn(SpawnSpec::new("python3").args(["-c", &program]).size(100, 30)).unwrap()
}

/// A program that sets xterm's modifyOtherKeys (vim 9 sets level 2 at its start) reads modified
/// keys as xterm sends them then, `CSI 27 ; m ; code ~`: `C-Enter` and `M-x` came as `\r` and
/// `ESC x` (the first lost its Ctrl; vim took the second for Escape, then `x`); reset, the
/// legacy forms again.
#[test]
fn modify_other_keys_sends_modified_keys_as_xterm_does() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let py = raw_python(
        &engine,
        "w(b'\\x1b[>4;2m')\nkey('two')\nkey('alt')\nw(b'\\x1b[>4m')\nkey('reset')\n",
    );
    expect(&py, Until::screen_contains("two?"));
    assert_eq!(py.screen().unwrap().modes.modify_other_keys, 2);
    py.send_keys("<C-Enter>").unwrap();
    expect(&py, Until::screen_contains(r"two b'\x1b[27;5;13~'"));
    expect(&py, Until::screen_contains("alt?"));
    py.send_keys("<M-x>").unwrap();
    expect(&py, Until::screen_contains(r"alt b'\x1b[27;3;120~'"));
    expect(&py, Until::screen_contains("reset?"));
    py.send_keys("<C-Enter>").unwrap();
    expect(&py, Until::screen_contains(r"reset b'\r'"));
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

/// A modifyOtherKeys level left set by a program that ended without resetting it is not used
/// once the program's group is no longer in front, nor while the terminal reads lines, nor
/// above level 1 while it takes signal characters: Ctrl-C went as `CSI 27;5;99~` and
/// interrupted nothing.
#[test]
fn a_modify_other_keys_level_left_behind_does_not_stop_ctrl_c() {
    if !require("bash") || !require("sleep") {
        return;
    }
    let engine = engine();
    let bash = engine
        .spawn(SpawnSpec::new("bash").args(["--norc", "--noprofile"]).env("PS1", "prompt$ "))
        .unwrap();
    expect(&bash, Until::screen_contains("prompt$"));
    // The job says when it runs in the foreground, so Ctrl-C reaches it and not bash.
    bash.submit("sh -c 'printf \"\\033[>4;2m\"; echo level-$((1 + 1)); exec sleep 100'").unwrap();
    expect(&bash, Until::screen_contains("level-2"));
    assert_eq!(bash.screen().unwrap().modes.modify_other_keys, 2);
    bash.send_keys("<C-c>").unwrap();
    bash.submit("echo after-$?").unwrap();
    expect(&bash, Until::screen_contains("after-130"));
    bash.close().unwrap();
}

/// A modifyOtherKeys level belongs to the program that set it: one left by a program killed
/// with SIGKILL (levels 1 and 2) does not reach bash's readline after it, which reads keys
/// with `ICANON` off and `ISIG` on, like emacs. `C-,` came as `CSI 27;5;44~` and `C-Enter` as
/// `CSI 27;5;13~`, typed into the line, which it did not submit.
#[test]
fn a_modify_other_keys_level_left_by_a_killed_program_does_not_reach_readline() {
    if !require("bash") || !require("sh") {
        return;
    }
    let engine = engine();
    for level in [1, 2] {
        let bash = engine
            .spawn(SpawnSpec::new("bash").args(["--norc", "--noprofile"]).env("PS1", "prompt$ "))
            .unwrap();
        expect(&bash, Until::screen_contains("prompt$"));
        // The job sets the level, says so, and kills itself once a line is typed.
        bash.submit(&format!(
            "sh -c 'printf \"\\033[>4;{level}m\"; echo level-$((0 + {level})); read x; kill -9 $$'"
        ))
        .unwrap();
        expect(&bash, Until::screen_contains(format!("level-{level}")));
        assert_eq!(bash.screen().unwrap().modes.modify_other_keys, level);
        bash.send_keys("<Enter>").unwrap();
        expect(&bash, Until::screen_contains("Killed"));
        expect(&bash, Until::input_wait());
        assert_eq!(bash.screen().unwrap().modes.modify_other_keys, level);
        bash.send_keys("echo x$((1 + 1))<Space>b<C-,>c<C-Enter>").unwrap();
        expect(&bash, Until::screen_contains("x2 b,c"));
        bash.close().unwrap();
    }
}

/// vim 9 (`--clean`) sets modifyOtherKeys level 2: an Alt mapping fires (`<M-x>` was `ESC x`,
/// which vim read as Escape, then `x`, deleting a character).
#[test]
fn vims_alt_mapping_fires_under_modify_other_keys() {
    if !require("vim") {
        return;
    }
    let engine = engine();
    let path = temp_file("modify-other-keys.txt", "abc\n");
    let vim = engine.spawn(SpawnSpec::new("vim").args(["--clean", "-n"]).arg(&path)).unwrap();
    expect(&vim, Until::screen_contains("abc"));
    if vim.screen().unwrap().modes.modify_other_keys == 0 {
        // (A vim older than 9 sets no modifyOtherKeys: nothing to check.)
        eprintln!("this vim sets no modifyOtherKeys; skipped");
        assert!(std::env::var_os("CI").is_none(), "CI's vim must set modifyOtherKeys");
        return;
    }
    vim.send_keys(":nnoremap <lt>M-x> :echo 'alt-x-fired'<lt>CR><Enter>").unwrap();
    vim.send_keys("<M-x>").unwrap();
    expect(&vim, Until::screen_contains("alt-x-fired"));
    assert!(vim.screen().unwrap().contains("abc"), "{}", vim.screen().unwrap());
    vim.send_keys(":q!<Enter>").unwrap();
    expect(&vim, Until::exit());
}

/// emacs asks for modifyOtherKeys level 1 and keeps its signal characters on (`ISIG`, `C-g`
/// its interrupt character): keys the legacy forms cannot tell apart come with their modifiers
/// (`C-,` came as `,`, typed into the buffer; `C-Tab` as a Tab), and `C-x` stays a byte.
#[test]
fn emacs_reads_modified_keys_under_its_modify_other_keys_level() {
    if !require("emacs") {
        return;
    }
    let engine = engine();
    let emacs = engine.spawn(SpawnSpec::new("emacs").args(["-nw", "-Q"]).size(80, 20)).unwrap();
    expect(&emacs, Until::screen_contains("For information about GNU Emacs"));
    assert_eq!(emacs.screen().unwrap().modes.modify_other_keys, 1);
    emacs.send_keys("<C-,>").unwrap();
    expect(&emacs, Until::screen_contains("C-, is undefined"));
    emacs.send_keys("<C-Tab>").unwrap();
    expect(&emacs, Until::screen_contains("C-<tab> is undefined"));
    emacs.send_keys("<C-x><C-c>").unwrap();
    expect(&emacs, Until::exit());
}

/// Under emacs's modifyOtherKeys level 1, Shift alone on a printable key is dropped, as
/// xterm drops it below level 2: `S-Space` types a space (it went as `CSI 27;2;32~`, which
/// emacs typed as `2~`).
#[test]
fn emacs_types_a_space_for_shift_space_under_modify_other_keys_level_1() {
    if !require("emacs") {
        return;
    }
    let engine = engine();
    let emacs = engine
        .spawn(SpawnSpec::new("emacs").args(["-nw", "-Q", "--no-splash"]).size(80, 20))
        .unwrap();
    expect(&emacs, Until::screen_contains("*scratch*"));
    expect(&emacs, Until::input_wait());
    assert_eq!(emacs.screen().unwrap().modes.modify_other_keys, 1);
    emacs.send_keys("xa<S-Space>b<S-Space>cx").unwrap();
    expect(&emacs, Until::screen_contains("xa b cx"));
    // (*scratch* visits no file: emacs asks nothing.)
    emacs.send_keys("<C-x><C-c>").unwrap();
    expect(&emacs, Until::exit());
}

#[test]
fn kitty_keyboard_set_mode_changes_the_stack_top_and_survives_a_screen_switch() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    // `CSI = flags ; how u` sets the flags of the stack's top entry (kitty keeps one stack per
    // screen): the query reports them, and leaving the alternate screen restores them.
    let py = raw_python(
        &engine,
        "w(b'\\x1b[=1u\\x1b[?u')\nkey('set')\n\
         w(b'\\x1b[?1049h\\x1b[?1049l')\nkey('esc1')\n\
         w(b'\\x1b[>9u\\x1b[=8;3u\\x1b[?u')\nkey('removed')\n\
         w(b'\\x1b[=1;3u\\x1b[?1049h\\x1b[?1049l')\nkey('esc2')\n",
    );
    expect(&py, Until::screen_contains(r"set b'\x1b[?1u'"));
    expect(&py, Until::screen_contains("esc1?"));
    py.send_keys("<Esc>").unwrap();
    expect(&py, Until::screen_contains(r"esc1 b'\x1b[27u'"));
    expect(&py, Until::screen_contains(r"removed b'\x1b[?1u'"));
    expect(&py, Until::screen_contains("esc2?"));
    py.send_keys("<Esc>").unwrap();
    expect(&py, Until::screen_contains(r"esc2 b'\x1b'"));
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

#[test]
fn mouse_motion_with_a_button_held_is_a_drag() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    // Button-event tracking (1002) with SGR reports: read until the release (`m`).
    let py = raw_python(
        &engine,
        "w(b'\\x1b[?1002h\\x1b[?1006h')\nbuf = b''\nw(b'drag?\\r\\n')\n\
         while not buf.endswith(b'm'): buf += os.read(0, 100)\n\
         w(b'drag ' + repr(buf).encode() + b'\\r\\n')\n",
    );
    expect(&py, Until::screen_contains("drag?"));
    py.mouse_down(MouseButton::Left, 2, 3).unwrap();
    py.mouse_move(2, 7).unwrap();
    py.mouse_up(MouseButton::Left, 2, 7).unwrap();
    // The move is reported as motion (32) with the left button (0) held.
    expect(&py, Until::screen_contains(r"drag b'\x1b[<0;4;3M\x1b[<32;8;3M\x1b[<0;8;3m'"));
    // Released: motion is no longer a drag, and 1002 does not report it.
    py.mouse_move(2, 9).unwrap();
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

#[test]
fn urxvt_mouse_encoding_reports_columns_past_223() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    // Normal tracking (1000) with the urxvt encoding (1015), on a screen wider than the
    // legacy encoding can address: `CSI code+32 ; x ; y M` with decimal coordinates.
    let py = engine
        .spawn(
            SpawnSpec::new("python3")
                .args([
                    "-c",
                    "import os, tty\ntty.setraw(0)\nos.write(1, b'\\x1b[?1000h\\x1b[?1015hclick?\\r\\n')\n\
                     buf = b''\nwhile buf.count(b'M') < 2: buf += os.read(0, 100)\n\
                     os.write(1, b'click ' + repr(buf).encode() + b'\\r\\n')\nos.read(0, 1)\n",
                ])
                .size(300, 10),
        )
        .unwrap();
    expect(&py, Until::screen_contains("click?"));
    assert_eq!(py.screen().unwrap().modes.to_string(), "mouse=click/urxvt");
    py.click(1, 250).unwrap();
    expect(&py, Until::screen_contains(r"click b'\x1b[32;251;2M\x1b[35;251;2M'"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

#[test]
fn x10_mouse_mode_reports_presses_only() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    // X10 compatibility (mode 9): a click sends the press and no release.
    let py = raw_python(
        &engine,
        "w(b'\\x1b[?9h')\nkey('x10')\nkey('next')\nw(b'\\x1b[?1000hnormal?\\r\\n')\nbuf = b''\n\
         while buf.count(b'\\x1b[M') < 2: buf += os.read(0, 100)\n\
         w(b'normal ' + repr(buf).encode() + b'\\r\\n')\n",
    );
    expect(&py, Until::screen_contains("x10?"));
    assert_eq!(py.screen().unwrap().modes.mouse, termloom::MouseReporting::Press);
    py.click(2, 3).unwrap();
    expect(&py, Until::screen_contains(r"x10 b'\x1b[M $#'"));
    // A release sent in X10 mode would be read here instead of the key.
    expect(&py, Until::screen_contains("next?"));
    py.send_keys("n").unwrap();
    expect(&py, Until::screen_contains("next b'n'"));
    // A later mode replaces it: releases are reported again.
    expect(&py, Until::screen_contains("normal?"));
    assert_eq!(py.screen().unwrap().modes.mouse, termloom::MouseReporting::Click);
    py.click(2, 3).unwrap();
    expect(&py, Until::screen_contains(r"normal b'\x1b[M $#\x1b[M#$#'"));
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();

    expect(&py, Until::exit());
}

#[test]
fn ctrl_with_backquote_and_braces_sends_xterm_control_bytes() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let py = raw_python(&engine, "key('ctrl')\n");
    expect(&py, Until::screen_contains("ctrl?"));
    // X11 gives Ctrl+` NUL, Ctrl+{ ESC, Ctrl+| FS and Ctrl+} GS (the bits of `@`..`~`).
    py.send_keys("<C-`><C-{><C-|><C-}>").unwrap();
    expect(&py, Until::screen_contains(r"ctrl b'\x00\x1b\x1c\x1d'"));
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

/// Keys ending in Enter with a modifier (`x<S-Enter>`) to a program that echoes nothing: a
/// wait for its answer on the line the keys were typed on took the answer for their echo
/// (a modified Enter made the echo unknown) and timed out with the answer on the screen.
#[test]
fn an_answer_after_a_modified_enter_is_no_echo() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let py = raw_python(&engine, "key('a')\nkey('b')\n");
    expect(&py, Until::screen_contains("a?"));
    for (keys, answer) in [("<S-Enter>", "a b'\\r'"), ("x<C-Enter>", "b b'x\\r'")] {
        let outcome = py.send_keys_and_wait(keys, Until::text(answer), LONG).unwrap();
        let matched = outcome.matched().map(|m| m.text.clone());
        assert_eq!(matched.as_deref(), Some(answer), "{keys}: {:?}", outcome.fired);
    }
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

/// The numeric keypad's keys reach a program as xterm sends them: their characters in numeric
/// keypad mode, `SS3` sequences once it sets application keypad mode (`ESC =`), a modifier's
/// parameter after `SS3`; under the kitty protocol's disambiguate flag, text, or the keypad's
/// own code points. (No keypad key could be named before: `<KP1>` was an unknown key.)
#[test]
fn keypad_keys_follow_the_keypad_mode() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let py = raw_python(
        &engine,
        "key('numeric')\nw(b'\\x1b=')\nkey('application')\n\
         w(b'\\x1b>\\x1b[=1u')\nkey('kitty')\nw(b'\\x1b[=0u')\n",
    );
    expect(&py, Until::screen_contains("numeric?"));
    assert!(!py.screen().unwrap().modes.app_keypad);
    py.send_keys("<KP1><KP+><KP.><k0><KPEnter>").unwrap();
    expect(&py, Until::screen_contains(r"numeric b'1+.0\r'"));
    expect(&py, Until::screen_contains("application?"));
    assert!(py.screen().unwrap().modes.app_keypad);
    py.send_keys("<KP0><KP9><KP-><KP*><KP/><KPEnter><C-KP+>").unwrap();
    expect(
        &py,
        Until::screen_contains(r"application b'\x1bOp\x1bOy\x1bOm\x1bOj\x1bOo\x1bOM\x1bO5k'"),
    );
    expect(&py, Until::screen_contains("kitty?"));
    py.send_keys("<KP5><C-KP5><KPEnter>").unwrap();
    expect(&py, Until::screen_contains(r"kitty b'5\x1b[57404;5u\x1b[57414u'"));
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

/// A modified Enter the program reads as a key of its own submits no line: under the kitty
/// protocol `<S-Enter>` is `CSI 13;2u`, a new line in a multi-line editor, and what the keys
/// typed is the program's answer to them, as typing without Enter's is. It was taken for a
/// submitted line, its echo skipped: a wait for `print(1)`, echoed on the screen, timed out.
#[test]
fn a_modified_enter_the_program_tells_from_enter_submits_no_line() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let py = raw_python(
        &engine,
        "w(b'\\x1b[=1u> ')\nd = os.read(0, 100)\nw(d.split(b'\\x1b')[0])\n\
         w(b'\\r\\n. ' if d.endswith(b'\\x1b[13;2u') else b'\\r\\nran\\r\\n')\n\
         os.read(0, 100)\nw(b'\\x1b[=0u\\r\\n')\n",
    );
    expect(&py, Until::screen_contains(">"));
    assert_eq!(py.screen().unwrap().modes.kitty_keyboard, 1);
    let outcome =
        py.send_keys_and_wait("print(1)<S-Enter>", Until::text("print(1)"), LONG).unwrap();
    let matched = outcome.matched().map(|m| m.text.clone());
    assert_eq!(matched.as_deref(), Some("print(1)"), "{:?}", outcome.fired);
    expect(&py, Until::screen_contains(". "));
    py.send_keys("<Enter>").unwrap();
    expect(&py, Until::screen_contains("DONE"));
    py.send_keys("q").unwrap();
    expect(&py, Until::exit());
}

/// A line submitted while a flood of output is still unread in the terminal (the program
/// prints 200,000 lines before it reads): the line the input is typed on, taken as the send
/// writes, is an older one than where its echo lands, many lines on. A wait for its answer
/// (`got done`) matched the echo (`done`) instead, which it skipped only on the line taken.
#[test]
fn an_echo_past_a_flood_left_unread_is_no_answer() {
    if !require("sh") || !require("seq") {
        return;
    }
    let matched = answer_past_unread_output(&engine(), 200_000, Until::regex(".*done").unwrap());
    assert_eq!(matched.as_deref(), Some("got done"));
}

/// What `until`, sent with `done` and Enter, matches in `sh` printing `seq lines` before it
/// reads a line and answers `got` and the line: the line is typed once line 10,000 was read
/// (the flood has begun, and some of it waits unread as the line is typed).
fn answer_past_unread_output(
    engine: &termloom::Engine,
    lines: u32,
    until: Until,
) -> Option<String> {
    let script = format!("seq {lines}; read x; echo \"got $x\"; read y");
    let flood = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    expect(&flood, Until::text("10000"));
    let outcome = flood.send_bytes_and_wait(b"done\r", until, LONG).unwrap();
    flood.close().unwrap();
    outcome.matched().map(|m| m.text.clone())
}

/// A program that reads keys without the terminal's echo (`stty -icanon -echo`) and answers
/// with what it read (`got x`): the line submitted is echoed by nobody, so its answer is not
/// taken for the echo found on a later line, which only the terminal's own echo is looked for.
#[test]
fn an_answer_holding_what_was_typed_is_no_echo_without_the_terminals_echo() {
    if !require("sh") || !require("stty") {
        return;
    }
    let engine = engine();
    let script = "stty -icanon -echo; echo ready; read x; echo \"got $x\"; read y";
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&session, Until::input_wait());
    let outcome = session.send_bytes_and_wait(b"x\r", Until::regex(".*x").unwrap(), LONG).unwrap();
    let matched = outcome.matched().map(|m| m.text.clone());
    assert_eq!(matched.as_deref(), Some("got x"), "{:?}", outcome.fired);
    session.send_bytes(b"\r").unwrap();
    expect(&session, Until::exit());
}

/// A wait on the screen alone, sent with a line submitted while output is still unread (the
/// last 1,000 lines of `seq 11000`, the program then at its `read`), follows the echo to
/// where the terminal put it, on the screen's last lines: it hid the echo only on the line
/// taken as the send wrote, further up, and matched the echo `done` instead of the answer
/// `got done` (6 of 10 runs; where the echo lands is the reactor's timing: tried 5 times).
#[test]
fn a_screen_wait_past_output_left_unread_skips_the_echo() {
    if !require("sh") || !require("seq") {
        return;
    }
    let engine = engine();
    for _ in 0..5 {
        let matched =
            answer_past_unread_output(&engine, 11_000, Until::screen_regex(".*done").unwrap());
        assert_eq!(matched.as_deref(), Some("got done"));
    }
}

/// A program that rewrites the line it was answered on (`* Name: done` over the echo
/// `Name: done`): when no look came between the echo and the rewrite, the rewritten line was
/// taken for the echo (it still held the typed text), and the wait for it timed out (9 of 20
/// tries). The line typed on, no longer beginning as it did, is searched whole.
#[test]
fn a_line_rewritten_over_its_echo_is_an_answer() {
    if !require("sh") {
        return;
    }
    let engine = engine();
    let script = "printf 'Name: '; read x; printf '\\033[A\\r\\033[K* Name: %s\\n' \"$x\"; read y";
    // (Whether a look comes between the echo and the rewrite is the reactor's timing: tried
    // ten times.)
    for _ in 0..10 {
        assert_answered(&engine, script, b"done\r", Until::regex(r"\* Name: done").unwrap());
    }
}

/// Types `typed` into `sh` running `script` once it waits for input, and asserts that the
/// wait sent with it, `until`, matched (a wait that took the answer for the echo times out).
fn assert_answered(engine: &termloom::Engine, script: &str, typed: &[u8], until: Until) {
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&session, Until::input_wait());
    let outcome = session.send_bytes_and_wait(typed, until, LONG).unwrap();
    assert!(outcome.matched().is_some(), "{:?}", outcome.fired);
    session.close().unwrap();
}

/// Typed text ending in blanks (`done␠␠`, `[done␠`): the transcript keeps lines without the
/// blanks at their end, so the echo was never found on the line typed on, and the first
/// later line holding the typed text, the answer (`got done␠␠.`), was taken for the echo
/// (every run: the wait timed out).
#[test]
fn an_answer_to_a_line_ending_in_blanks_is_no_echo() {
    if !require("sh") {
        return;
    }
    let engine = engine();
    let script = "printf 'Name: '; IFS= read -r x; echo \"got $x.\"; read y";
    for (typed, until) in [
        (&b"done  \r"[..], Until::regex("got done").unwrap()),
        (&b"done \r"[..], Until::text("t done")),
    ] {
        assert_answered(&engine, script, typed, until);
    }
}

/// A program that redraws the line typed on (`* Name: done` over `Name: done`), then answers
/// with the typed text on a later line (`got done`): when no look came between the echo and
/// the redraw, the line typed on, no longer beginning as it did, held no echo, and the answer
/// was taken for it (5 of 20 runs timed out). The line typed on, still holding the typed
/// text, is where the echo is settled.
#[test]
fn an_answer_after_the_line_typed_on_is_redrawn_is_no_echo() {
    if !require("sh") {
        return;
    }
    let engine = engine();
    let script = "printf 'Name: '; read x; printf '\\033[A\\r\\033[K* Name: %s\\n' \"$x\"; \
                  echo \"got $x\"; read y";
    // (Whether a look comes between the echo and the redraw is the reactor's timing: tried
    // twenty times.)
    for _ in 0..20 {
        assert_answered(&engine, script, b"done\r", Until::regex("got done").unwrap());
    }
}
