//! The `termloom` command line, run as a real process. Every test synchronises through the
//! CLI's own waits; none sleeps.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use common::{pid_namespaces, require, sweep_left_overs};
use serde_json::Value;
use termloom::shell_program;

const TERMLOOM: &str = env!("CARGO_BIN_EXE_termloom");

/// A timeout for waits that should succeed: generous, as waits return as soon as they hold.
const LONG_MS: &str = "20000";

/// Every step `termloom run` accepts; the help must explain each.
const STEPS: &[&str] = &[
    "--send",
    "--submit",
    "--wait-screen",
    "--wait-screen-regex",
    "--wait-text",
    "--wait-regex",
    "--wait-exit",
    "--resize",
    "--screen",
    "--screenshot",
    "--read",
    "--keys",
    "--paste",
    "--signal",
    "--run-command",
    "--wait-stable",
    "--wait-quiet",
    "--wait-prompt",
    "--wait-input",
];

/// Every option of `termloom run`.
const OPTIONS: &[&str] = &[
    "--size",
    "--timeout",
    "--json",
    "--env",
    "--cwd",
    "--shell",
    "--shell-integration",
    "--config",
    "--record",
    "--help",
];

/// Runs `termloom` with `args` to completion.
fn termloom(args: &[&str]) -> Output {
    Command::new(TERMLOOM).args(args).stdin(Stdio::null()).output().expect("termloom runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit code, with both streams in the panic message when there is none.
fn code(output: &Output) -> i32 {
    output.status.code().unwrap_or_else(|| {
        panic!("no exit code: {:?}\n{}\n{}", output.status, stdout(output), stderr(output))
    })
}

/// Asserts the exit code, showing both streams when it differs.
fn assert_code(output: &Output, expected: i32) {
    assert_eq!(code(output), expected, "stdout:\n{}\nstderr:\n{}", stdout(output), stderr(output));
}

/// Runs `termloom` with `args`, which it must refuse as a malformed command line (exit 2):
/// its stderr.
fn refused(args: &[&str]) -> String {
    let output = termloom(args);
    assert_code(&output, 2);
    stderr(&output)
}

/// Parses the one JSON object `--json` prints.
fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(output), stderr(output)))
}

/// The text of a `--- name ---` section of the human report: up to the next section.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let header = format!("--- {name} ---\n");
    let start =
        text.find(&header).unwrap_or_else(|| panic!("no {header:?} in {text}")) + header.len();
    let rest = &text[start..];
    let end = rest.find("\n--- ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

fn tempdir() -> PathBuf {
    sweep_left_overs();
    let dir = std::env::temp_dir().join(format!(
        "termloom-cli-test-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a program prints reaches the command line's output as text, never as escape
/// sequences to the person's terminal (SECURITY.md, "send escape sequences to your terminal"):
/// colours, a screen switch, a clipboard write and a bell are interpreted by the emulator,
/// and the title is printed quoted, its quote escaped and its tab dropped.
#[test]
fn a_programs_escape_sequences_never_reach_the_commands_output() {
    let script = r#"printf '\033]0;x"y\tz\007\033]52;c;aGk=\007\033[31mred\033[0m\033[?1049hready\n\007'; sleep 5"#;
    let output = termloom(&["run", "--wait-screen", "ready", "--screen", "--", "sh", "-c", script]);
    assert_code(&output, 0);
    let printed = stdout(&output);
    assert!(printed.contains("ready"), "{printed}");
    assert!(printed.contains(r#"title "x\"yz""#), "{printed}");
    let controls = |c: char| c.is_control() && c != '\n';
    assert!(!printed.contains(controls), "{printed:?}");
}

#[test]
fn the_readme_vim_example_edits_the_file_and_shows_the_screen() {
    if !require("vim") {
        return;
    }
    let dir = tempdir();
    let file = dir.join("termloom-demo.txt");
    let file = file.to_str().unwrap();
    // Twice: the second run finds the file the first wrote, and replaces its text.
    for run in 0..2 {
        let output = termloom(&[
            "run",
            "--timeout",
            LONG_MS,
            "--wait-input",
            "--send",
            r"ggdGihello from termloom\e",
            "--send",
            r":w\r",
            "--wait-screen",
            "written",
            "--screen",
            "--send",
            r":q\r",
            "--wait-exit",
            "--",
            "vim",
            "-u",
            "NONE",
            "-N",
            file,
        ]);
        assert_code(&output, 0);
        let text = stdout(&output);
        let screen = section(&text, "step 5: --screen");
        assert!(screen.contains("alternate screen"), "{screen}");
        assert!(screen.contains("\nhello from termloom\n"), "{screen}");
        assert!(screen.contains("written"), "{screen}");
        assert_eq!(screen.contains("[New]"), run == 0, "{screen}");
        // Then the transcript, the final screen and the exit.
        section(&text, "transcript");
        assert!(section(&text, "screen").contains("primary screen"), "{text}");
        assert!(text.ends_with("--- exit: exit code 0 ---\n"), "{text}");
        assert_eq!(std::fs::read_to_string(file).unwrap(), "hello from termloom\n");
        assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_report_has_the_exit_the_screen_and_the_transcript() {
    // No steps: termloom waits for the exit.
    let output = termloom(&["run", "--json", "--", "sh", "-c", "echo hi; exit 3"]);
    assert_code(&output, 3);
    let report = json(&output);
    assert_eq!(report["exit"], serde_json::json!({ "code": 3 }));
    assert_eq!(report["closed_by_termloom"], false);
    assert!(report["transcript"].as_str().unwrap().contains("hi"), "{report}");
    assert_eq!(report["screen"]["rows"][0], "hi");
    assert_eq!(report["screen"]["cols"], 120);
    assert_eq!(report["screen"]["alternate"], false);
    assert!(report["screen"]["cursor"]["row"].is_u64(), "{report}");
    assert!(report["screen"]["modes"].is_object(), "{report}");
    assert!(report["error"].is_null(), "{report}");
}

#[test]
fn json_report_of_a_program_termloom_closed_has_its_captures() {
    if !require(&shell_program()) {
        return;
    }
    let output = termloom(&[
        "run",
        "--json",
        "--timeout",
        LONG_MS,
        "--wait-text",
        "ready",
        "--screen",
        "--read",
        "--shell",
        "echo ready; exec sleep 1000",
    ]);
    assert_code(&output, 0);
    let report = json(&output);
    assert_eq!(report["closed_by_termloom"], true);
    assert!(report["exit"]["signal"].is_u64(), "{report}");
    let captures = report["captures"].as_array().unwrap();
    assert_eq!(captures.len(), 2, "{report}");
    assert_eq!(captures[0]["step"], 2);
    assert_eq!(captures[0]["screen"]["rows"][0], "ready");
    assert_eq!(captures[1]["step"], 3);
    assert!(captures[1]["read"].as_str().unwrap().starts_with("ready\n"));
}

/// The screen is printed once: in the report, which comes as usual; stderr says why the run
/// failed and points to it.
#[test]
fn a_timed_out_wait_exits_124_and_shows_the_screen_once() {
    if !require(&shell_program()) {
        return;
    }
    let output = termloom(&[
        "run",
        "--timeout",
        "1500",
        "--wait-screen",
        "on screen",
        "--wait-screen",
        "never shown",
        "--shell",
        "echo on screen; exec sleep 1000",
    ]);
    assert_code(&output, 124);
    let err = stderr(&output);
    assert!(err.contains("step 2 (--wait-screen 'never shown') timed out after 1500 ms"), "{err}");
    assert!(err.contains("the report's final screen is the screen then"), "{err}");
    assert!(!err.contains("screen 120x32") && !err.contains("\non screen\n"), "{err}");
    // The report still comes, with the program closed by termloom, and the screen.
    let out = stdout(&output);
    assert!(out.contains("(closed by termloom) ---"), "{out}");
    assert_eq!(out.matches("screen 120x32").count(), 1, "{out}");
    assert!(section(&out, "screen").contains("\non screen\n"), "{out}");

    // With --json, the error's screen is left out when it is the final one, and a screen's
    // blank rows at the bottom are not listed.
    let output = termloom(&[
        "run",
        "--json",
        "--timeout",
        "1500",
        "--wait-screen",
        "on screen",
        "--screen",
        "--wait-screen",
        "never shown",
        "--shell",
        "echo on screen; exec sleep 1000",
    ]);
    assert_code(&output, 124);
    let report = json(&output);
    assert_eq!(report["error"]["kind"], "timeout");
    assert_eq!(report["error"]["screen"], Value::Null, "{report}");
    assert_eq!(report["screen"]["height"], 32);
    assert_eq!(report["screen"]["rows"], serde_json::json!(["on screen"]), "{report}");
    assert_eq!(report["captures"][0]["screen"]["rows"], serde_json::json!(["on screen"]));
    // The report's `error` says it all: nothing on stderr.
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
}

/// `--send` and `--submit` type a line break (`\n`, `\r\n`) as Enter, as `termloom send
/// --text` and MCP `terminal_send` do: `--send 'ab\ncd\r\ne'` typed `ab`, a line feed (Ctrl-J,
/// nano's Justify), `cd`, a carriage return and a line feed. A program reading raw bytes
/// sees what was typed.
#[test]
fn run_types_a_line_break_as_enter() {
    for program in ["sh", "stty", "head", "od"] {
        if !require(program) {
            return;
        }
    }
    let raw = "stty raw -echo; head -c 10 | od -An -c";
    let args = ["run", "--timeout", LONG_MS, "--wait-input", "--send", r"ab\ncd\r\ne"];
    let args = [&args[..], &["--submit", r"f\ng", "--wait-exit", "--shell", raw]].concat();
    let output = termloom(&args);
    assert_code(&output, 0);
    let out = stdout(&output);
    let words = |line: &str| line.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    let bytes = out.lines().map(words).find(|words| words.first().is_some_and(|w| w == "a"));
    let typed = ["a", "b", r"\r", "c", "d", r"\r", "e", "f", r"\r", "g"];
    assert_eq!(bytes, Some(typed.map(str::to_owned).to_vec()), "{out}");
}

/// Every `--json` failure has a `code`, a failed step's too: the library's code for a step it
/// refused, else the failure's kind.
#[test]
fn a_failed_steps_json_error_has_a_code() {
    let cases: [(&[&str], &str, &str); 3] = [
        (&["--wait-text", "never printed", "--", "sh", "-c", "exit 4"], "exited", "exited"),
        (&["--timeout", "300", "--wait-text", "never", "--", "sleep", "5"], "timeout", "timeout"),
        (&["--wait-prompt", "--", "sleep", "5"], "error", "no_shell_integration"),
    ];
    for (args, kind, code) in cases {
        let output = termloom(&[&["run", "--json"], args].concat());
        let report = json(&output);
        assert_eq!(report["error"]["kind"], kind, "{args:?}: {report}");
        assert_eq!(report["error"]["code"], code, "{args:?}: {report}");
    }
}

#[test]
fn a_program_that_exits_during_another_wait_fails_with_its_status() {
    let output = termloom(&[
        "run",
        "--timeout",
        LONG_MS,
        "--wait-text",
        "never printed",
        "--",
        "sh",
        "-c",
        "echo bye; exit 4",
    ]);
    assert_code(&output, 1);
    let err = stderr(&output);
    assert!(err.contains("step 1 (--wait-text 'never printed')"), "{err}");
    assert!(err.contains("the program exited (exit code 4)"), "{err}");
    // The screen then is the report's final screen: printed there, once.
    assert!(err.contains("the report's final screen is the screen then"), "{err}");
    assert!(section(&stdout(&output), "screen").contains("bye\n"), "{}", stdout(&output));
}

/// In a PID namespace whose POSIX session leader lives outside it (as in a container started
/// from a shell), the kernel reports this process's session as 0; a failed start, which looks
/// up its own session, panicked there. Needs the right to make a namespace (root); skips
/// without it, saying so.
#[test]
fn a_failed_start_in_a_namespace_without_its_session_leader_exits_1() {
    if !pid_namespaces() {
        return;
    }
    let output = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", TERMLOOM, "run", "--", "no-such-program-xyz"])
        .stdin(Stdio::null())
        .output()
        .expect("unshare runs");
    assert_code(&output, 1);
    assert!(stderr(&output).contains("no such program in PATH"), "{}", stderr(&output));
}

/// Under `unshare --pid` without a `/proc` of its own, `/proc` numbers processes as another
/// namespace does: the engine reads nothing there (it would take strangers for its sessions'
/// processes) and still runs a program to its end, with its output and exit code.
#[test]
fn a_run_in_a_pid_namespace_that_kept_the_outer_proc_still_works() {
    if !pid_namespaces() {
        return;
    }
    let output = Command::new("unshare")
        .args(["--pid", "--fork", TERMLOOM, "run", "--timeout", LONG_MS, "--wait-text", "hi"])
        .args(["--wait-exit", "--", "sh", "-c", "echo hi; exit 3"])
        .stdin(Stdio::null())
        .output()
        .expect("unshare runs");
    assert_code(&output, 3);
    assert!(section(&stdout(&output), "transcript").contains("hi"), "{}", stdout(&output));
}

/// `termloom mcp --help` names every tool `tools/list` offers.
#[test]
fn the_mcp_help_names_every_tool() {
    let output = termloom(&["mcp", "--help"]);
    assert_code(&output, 0);
    let help = stdout(&output).replace('\n', " ");
    let engine = termloom::Engine::new(termloom::Config::default()).unwrap();
    let tools = termloom::tools::Toolbox::new(engine).definitions();
    assert!(!tools.is_empty());
    for tool in tools {
        assert!(help.contains(&tool.name), "{} is missing from:\n{help}", tool.name);
    }
}

/// `mcp`, `server` and `attach` take an option's value inline (`--policy=FILE`), as `run` and
/// the session commands do: `termloom mcp --policy=FILE` was an unknown argument, though
/// `--config=FILE` was taken.
#[test]
fn every_command_takes_an_options_value_inline() {
    let output = termloom(&["mcp", "--policy=/nonexistent/policy.toml"]);
    assert_code(&output, 1);
    assert!(stderr(&output).contains("reading policy file /nonexistent/policy.toml"), "{output:?}");
    let output = termloom(&["server", "--idle-exit=soon"]);
    assert_code(&output, 2);
    assert!(stderr(&output).contains("--idle-exit \"soon\": give seconds"), "{output:?}");
    let output = termloom(&["attach", "--socket=/nonexistent/socket", "1"]);
    // (Taken: what stops it is its standard input, no terminal here.)
    assert!(stderr(&output).contains("attach needs a terminal"), "{output:?}");
    // A flag given a value is refused whole, not taken for the flag and a session.
    let output = termloom(&["attach", "--takeover=work"]);
    assert_code(&output, 2);
    assert!(stderr(&output).contains("--takeover=work"), "{output:?}");
}

/// A working directory that does not exist is named as such, not as a program missing from
/// `PATH`, whether the program is a bare name or a path.
#[test]
fn a_missing_working_directory_is_not_a_missing_program() {
    for program in ["true", "/bin/true"] {
        let output = termloom(&["run", "--cwd", "/nonexistent-termloom-dir", "--", program]);
        assert_code(&output, 1);
        let err = stderr(&output);
        assert!(
            err.contains("working directory \"/nonexistent-termloom-dir\" does not exist"),
            "{err}"
        );
        assert!(!err.contains("no such program"), "{err}");
    }
}

#[test]
fn library_errors_exit_1_with_their_message() {
    let output = termloom(&["run", "--", "no-such-program-xyz"]);
    assert_code(&output, 1);
    assert!(stderr(&output).contains("no-such-program-xyz"), "{}", stderr(&output));
    let output =
        termloom(&["run", "--timeout", LONG_MS, "--wait-exit", "--send", "too late", "--", "true"]);
    assert_code(&output, 1);
    let err = stderr(&output);
    assert!(err.contains("step 2 (--send 'too late') failed"), "{err}");
    assert!(err.contains("has exited"), "{err}");
    // Input and the wait after it go in one request; a wait that cannot be made is refused
    // before anything is typed, and named as the step that failed.
    let output =
        termloom(&["run", "--timeout", LONG_MS, "--send", "x", "--wait-prompt", "--", "cat"]);
    assert_code(&output, 1);
    let err = stderr(&output);
    assert!(err.contains("step 2 (--wait-prompt) failed"), "{err}");
}

#[test]
fn resize_is_seen_by_the_program() {
    if !require("bash") {
        return;
    }
    let output = termloom(&[
        "run",
        "--json",
        "--timeout",
        LONG_MS,
        "--size",
        "80x24",
        "--env",
        "PS1=$ ",
        "--env",
        "HISTFILE=/dev/null",
        "--wait-screen",
        "$",
        "--resize",
        "100x40",
        "--submit",
        "stty size; exit",
        "--wait-exit",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    assert_code(&output, 0);
    let report = json(&output);
    let transcript = report["transcript"].as_str().unwrap();
    assert!(transcript.contains("\n40 100\n"), "{transcript:?}");
    assert_eq!(report["screen"]["cols"], 100);
    assert_eq!(report["screen"]["height"], 40);
}

#[test]
fn env_and_cwd_reach_the_program() {
    if !require(&shell_program()) {
        return;
    }
    let dir = tempdir();
    let output = termloom(&[
        "run",
        "--json",
        "--env",
        "GREETING=hello there",
        "--cwd",
        dir.to_str().unwrap(),
        "--shell",
        "echo \"$GREETING from $(pwd)\"",
    ]);
    assert_code(&output, 0);
    let transcript = json(&output)["transcript"].as_str().unwrap().to_owned();
    assert!(transcript.contains(&format!("hello there from {}", dir.display())), "{transcript:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn read_prints_only_new_output_in_step_order() {
    if !require(&shell_program()) {
        return;
    }
    let output = termloom(&[
        "run",
        "--timeout",
        LONG_MS,
        "--wait-text",
        "first",
        "--read",
        "--submit",
        "",
        "--wait-text",
        "second",
        "--read",
        "--wait-exit",
        "--shell",
        "echo first; read -r; echo second",
    ]);
    assert_code(&output, 0);
    let text = stdout(&output);
    assert_eq!(section(&text, "step 2: --read"), "first\n");
    let second = section(&text, "step 5: --read");
    assert!(second.contains("second") && !second.contains("first"), "{text}");
    assert!(text.find("step 2: --read") < text.find("step 5: --read"));
    assert!(text.find("step 5: --read") < text.find("--- transcript ---"));
}

/// A wait after a submitted line (`--submit`, `--send` ending with `\r`, `--keys` ending with
/// `<Enter>`) waits for the program's answer, not for the line's echo, which holds the text
/// too.
#[test]
fn a_wait_after_a_submitted_line_skips_its_echo() {
    if !require("sh") {
        return;
    }
    let output = termloom(&[
        "run",
        "--timeout",
        LONG_MS,
        "--wait-input",
        "--submit",
        "sleep 0.3; echo finished",
        "--wait-text",
        "finished",
        "--read",
        "--wait-input",
        "--send",
        "sleep 0.3; echo second\\r",
        "--wait-regex",
        "second$",
        "--read",
        "--wait-input",
        "--keys",
        "sleep 0.3; echo third<Enter>",
        "--wait-text",
        "third",
        "--read",
        "--",
        "sh",
    ]);
    assert_code(&output, 0);
    let text = stdout(&output);
    for (step, word) in [(4, "finished"), (8, "second"), (12, "third")] {
        let read = section(&text, &format!("step {step}: --read"));
        assert!(read.lines().any(|line| line == word), "the answer, not the echo: {text}");
    }
}

/// A wait text or a command line the library refuses is refused as the flags are parsed,
/// before anything starts: `--wait-text $'a\tb'` started the program and typed the steps
/// before it (the file `--send` touches was made), and only then failed. The command line's
/// refusal names no Rust method (it said "run_command types the line…").
#[test]
fn a_wait_text_the_library_refuses_fails_before_anything_starts() {
    let marker = std::env::temp_dir().join(format!("termloom-cli-cj-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let touch = format!("touch {}\\n", marker.display());
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--send", &touch, "--wait-text", "a\tb", "--", "sh"], "a tab"),
        (&["run", "--send", &touch, "--wait-screen", "a\x1bb", "--", "sh"], "an Escape"),
        (&["run", "--send", &touch, "--wait-text", "a\nb", "--", "sh"], "a line break"),
        (
            &["run", "--shell-integration", "--send", &touch, "--run-command", "a\tb", "--", "sh"],
            "the command holds the control character U+0009, which the shell would take",
        ),
    ];
    for (args, why) in cases {
        let err = refused(args);
        assert!(err.starts_with("termloom: bad value for "), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert!(!marker.exists(), "{args:?} typed its --send before failing");
    }
}

#[test]
fn bad_arguments_exit_2_naming_the_argument() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--size", "big", "--", "true"], "--size"),
        (&["run", "--resize", "10", "--", "true"], "--resize"),
        (&["run", "--timeout", "soon", "--", "true"], "--timeout"),
        (&["run", "--frobnicate", "--", "true"], "--frobnicate"),
        (&["run", "--wait-regex", "(", "--", "true"], "--wait-regex"),
        (&["run", "--env", "NOVALUE", "--", "true"], "--env"),
        (&["run", "--screen=yes", "--", "true"], "--screen"),
        (&["run", "--send"], "--send"),
        (&["run", "vim", "notes.txt"], "\"vim\""),
        (&["run", "--screen"], "no program"),
        (&["run", "--shell", "true", "--", "true"], "--shell"),
        (&["run", "--shell-integration", "--shell", "ls"], "--shell-integration"),
        // A blank command line (it exited 1 with the library's message, naming
        // SpawnSpec::shell).
        (&["run", "--shell", ""], "--shell is blank"),
        (&["run", "--shell= \t"], "--shell is blank"),
        (&["frobnicate"], "frobnicate"),
    ];
    for (args, named) in cases {
        let output = termloom(args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        let err = stderr(&output);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(err.contains("--help"), "{args:?}: {err}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn help_explains_every_step_and_option_with_examples() {
    for args in [&["run", "--help"][..], &["help", "run"], &["run", "--send", "x", "-h"]] {
        let output = termloom(args);
        assert_code(&output, 0);
        let help = stdout(&output);
        for name in STEPS.iter().chain(OPTIONS) {
            let listed = help.lines().any(|line| {
                let line = line.trim_start();
                // Or after its alias: `-h, --help`, `--command, --shell LINE`.
                let named = line.split_once(", ");
                let named =
                    named.filter(|(alias, _)| alias.starts_with('-') && !alias.contains(' '));
                let line = named.map_or(line, |(_, name)| name);
                line.starts_with(&format!("{name} ")) || line == *name
            });
            assert!(listed, "{args:?}: {name} is not explained");
        }
        let example = r"termloom run --wait-input --send 'ggdGihello from termloom\e' \
      --send ':w\r' --wait-screen 'written' --screen --send ':q\r' --wait-exit \
      -- vim -u NONE -N /tmp/termloom-demo.txt";
        assert!(help.contains(example), "{args:?}: the README example is missing");
        assert!(help.contains("Exit status"), "{args:?}");
    }
    let output = termloom(&["--version"]);
    assert_code(&output, 0);
    assert!(stdout(&output).starts_with("termloom "));
}

/// `termloom help` (and `--help`, `-h`) is a short overview: a line a command, under the help
/// that gives its details, each of which exists; it was `run`'s whole reference (212 lines),
/// with the commands of an agent that has only a shell a pointer among them.
#[test]
fn the_bare_help_is_a_short_overview_naming_where_the_details_are() {
    let overview = stdout(&termloom(&["help"]));
    for args in [&["--help"][..], &["-h"], &["-L", "elsewhere", "help"]] {
        let output = termloom(args);
        assert_code(&output, 0);
        assert_eq!(stdout(&output), overview, "{args:?}");
    }
    assert!(overview.lines().count() <= 40, "{} lines:\n{overview}", overview.lines().count());
    assert!(!overview.contains("Exit status") && !overview.contains("--wait-text"), "{overview}");
    let commands = [
        "run",
        "start",
        "send",
        "wait",
        "read",
        "screen",
        "exec",
        "signal",
        "resize",
        "close",
        "list",
        "kill-server",
        "attach",
        "server",
        "mcp",
    ];
    for command in commands {
        let line = overview.lines().find(|l| l.split_whitespace().next() == Some(command));
        assert!(line.is_some_and(|l| l.len() > command.len() + 10), "{command}:\n{overview}");
        let details = termloom(&["help", command]);
        assert_code(&details, 0);
        assert!(stdout(&details).len() > overview.len() / 4, "{command}");
    }
    for topic in ["`termloom help run`", "`termloom help sessions`", "`termloom help CMD`"] {
        assert!(overview.contains(topic), "{topic}:\n{overview}");
    }
    // Every flag the bare command takes is listed (`-h`, `--help` and `-V` were accepted but
    // not named).
    for flag in ["-h, --help", "--version", "-V"] {
        assert!(overview.contains(flag), "{flag}:\n{overview}");
    }
    assert_code(&termloom(&["help", "sessions"]), 0);
    // Every line fits an 80-column terminal.
    for line in overview.lines() {
        assert!(line.chars().count() <= 80, "{} wide: {line}", line.chars().count());
    }
    // `help [TOPIC]` is offered, so `help help` is help (the overview); an unknown topic's
    // error lists the topics.
    let help = termloom(&["help", "help"]);
    assert_code(&help, 0);
    assert_eq!(stdout(&help), overview);
    let unknown = termloom(&["help", "nonsense"]);
    assert_code(&unknown, 2);
    assert!(stderr(&unknown).contains("sessions"), "{}", stderr(&unknown));
}

#[cfg(target_os = "linux")]
#[test]
fn programs_receive_signals_normally() {
    if !require(&shell_program()) {
        return;
    }
    // termloom handles its own stop signals; the program must not inherit them blocked or
    // ignored.
    let output =
        termloom(&["run", "--json", "--shell", "grep -E '^Sig(Blk|Ign)' /proc/self/status"]);
    assert_code(&output, 0);
    let transcript = json(&output)["transcript"].as_str().unwrap().to_owned();
    let hup_int_term = (1 << (1 - 1)) | (1 << (2 - 1)) | (1 << (15 - 1));
    for field in ["SigBlk:", "SigIgn:"] {
        let line = transcript
            .lines()
            .find(|l| l.starts_with(field))
            .unwrap_or_else(|| panic!("no {field} in {transcript}"));
        let mask = u64::from_str_radix(line[field.len()..].trim(), 16).unwrap();
        assert_eq!(mask & hup_int_term, 0, "{line}");
    }
}

#[test]
fn sigterm_closes_the_session_before_termloom_exits() {
    if !require(&shell_program()) {
        return;
    }
    let mut child = Command::new(TERMLOOM)
        .args([
            "run",
            "--timeout",
            "600000",
            "--wait-text",
            "pid=",
            "--read",
            "--wait-exit",
            "--shell",
            "echo pid=$$; exec sleep 1000",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The `--read` step prints the program's pid as soon as the program printed it.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let pid: i32 = lines
        .by_ref()
        .map(Result::unwrap)
        .find_map(|line| line.strip_prefix("pid=").map(|p| p.trim().parse().unwrap()))
        .expect("the program's pid is printed");
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    rustix::process::test_kill_process(pid).expect("the program runs");
    let termloom = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(termloom, rustix::process::Signal::TERM).unwrap();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(128 + 15));
    assert!(stderr(&output).contains("received SIGTERM"), "{}", stderr(&output));
    // termloom exits only after the session is closed and the program reaped.
    assert!(rustix::process::test_kill_process(pid).is_err());
    // The report is printed as for any other end, saying termloom closed the program.
    let report = rest.join("\n");
    assert!(report.contains("--- screen ---") && report.contains("closed by termloom"), "{report}");
}

/// With `--json`, a run ended by a stop signal still prints its JSON report.
#[test]
fn a_stop_signal_still_gets_the_json_report() {
    let marker = format!("sleep {}", 4_600_000 + std::process::id() % 1000);
    let child = Command::new(TERMLOOM)
        .args(["run", "--json", "--timeout", "600000", "--wait-exit", "--shell", &marker])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while processes_with(&marker).is_empty() {
        assert!(std::time::Instant::now() < deadline, "{marker} never started");
        std::thread::yield_now();
    }
    let termloom = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(termloom, rustix::process::Signal::TERM).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(128 + 15), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("one JSON report");
    assert_eq!(report["closed_by_termloom"], true, "{report}");
    assert!(processes_with(&marker).is_empty(), "the program survived");
}

/// `termloom run` of vim (`vim_args`, then the file `name` in a directory of its own) through
/// `steps` after its start, to its exit: what it saved in the file.
fn vim_run(name: &str, vim_args: &[&str], steps: &[&str]) -> String {
    let dir = tempdir();
    let file = dir.join(name);
    let mut args = vec!["run", "--timeout", LONG_MS, "--wait-input"];
    args.extend(steps);
    args.extend(["--wait-exit", "--", "vim"]);
    args.extend(vim_args);
    args.push(file.to_str().unwrap());
    let output = termloom(&args);
    assert_code(&output, 0);
    std::fs::read_to_string(&file).unwrap()
}

#[test]
fn keys_and_input_wait_drive_vim() {
    if !require("vim") {
        return;
    }
    let keys = ["--keys", "ifirst<Enter>second<Esc><Up>Atop<Esc>:wq<Enter>"];
    assert_eq!(vim_run("keys.txt", &["-u", "NONE", "-N"], &keys), "firsttop\nsecond\n");
}

/// `--keys` reach the program as a person's do: an Escape read in one write with the keys
/// after it (this step's or the next one's) is a key code's start, and vim (`--clean`, whose
/// `ttimeout` waits 100 ms for the rest) took `<Esc>Otwo` for the keypad's 4 (`ESC O t`) and
/// wrote `one4wo`.
#[test]
fn keys_after_an_escape_reach_vim_once_it_read_the_escape() {
    if !require("vim") {
        return;
    }
    let keys = ["--keys", "ione<Esc>Otwo<Esc>", "--keys", "Othree<Esc>:wq<Enter>"];
    assert_eq!(vim_run("escape.txt", &["--clean", "-n"], &keys), "three\ntwo\none\n");
}

/// `--send` text ending in an Escape reaches the program as `--keys` ending in one does: the
/// text first, the Escape once it is read. Sent in one write, nano took the Escape for a Meta
/// key's prefix and held the text read with it undrawn, so the wait for it timed out, with
/// the step before a wait and without one.
#[test]
fn send_text_before_a_last_escape_is_read_before_it() {
    if !require("nano") {
        return;
    }
    let dir = tempdir();
    let file = dir.join("escape.txt");
    let waited = ["--send", r"hello world\e", "--wait-screen", "hello world"];
    let shown = ["--send", r"hello world\e", "--screen"];
    for steps in [&waited[..], &shown[..]] {
        let mut args = vec!["run", "--timeout", LONG_MS, "--wait-input"];
        args.extend(steps);
        args.extend(["--", "nano", "--ignorercfiles", file.to_str().unwrap()]);
        let output = termloom(&args);
        assert_code(&output, 0);
        assert!(stdout(&output).contains("hello world") || steps == waited, "{}", stdout(&output));
    }
}

/// A `--send` step's text ending in an Escape is read alone before the next step's input, as
/// MCP `terminal_send` waits after it (fish took `\e\r` for Alt-Enter); and each of its last
/// Escapes is a read of its own. `--send 'x\e' --send q` wrote the Escape and the `q` a moment
/// apart, and a program reading 0.2 s after its terminal is readable read them together, as
/// Alt-q; `x\e\e` was typed `x`, then both Escapes in one write. The program prints each
/// read in hex on a line of its own.
#[test]
fn send_text_ending_in_an_escape_is_read_before_the_next_step() {
    if !require("python3") {
        return;
    }
    let script = "import os, select, sys, time, tty\n\
        tty.setraw(0)\n\
        while True:\n\
        \x20   select.select([0], [], [])\n\
        \x20   time.sleep({slow})\n\
        \x20   sys.stdout.write(os.read(0, 64).hex() + '\\r\\n')\n\
        \x20   sys.stdout.flush()\n";
    let cases = [
        ("0.2", &["--send", r"x\e", "--send", "q", "--wait-screen", "71"][..], "78 1b 71"),
        ("0", &["--send", r"x\e\e", "--wait-quiet", "500"][..], "78 1b 1b"),
    ];
    for (slow, steps, reads) in cases {
        let script = script.replace("{slow}", slow);
        let mut args = vec!["run", "--timeout", LONG_MS, "--wait-input"];
        args.extend(steps);
        args.extend(["--screen", "--", "python3", "-c", &script]);
        let output = termloom(&args);
        assert_code(&output, 0);
        let shown = stdout(&output);
        let hex = |w: &&str| w.chars().all(|c| c.is_ascii_hexdigit());
        let read: Vec<&str> = shown.split_whitespace().filter(hex).collect();
        let read = read.join(" ");
        assert!(read.contains(reads), "{steps:?}: read {read}: {shown}");
    }
    // A line (canonical mode) read between the frames of a clock, never waiting for input nor
    // quiet: the Escape goes with its line, and the next step's input at once (review wu: it
    // waited 10 s, till `PART_TIMEOUT`). Printed in hex on row 2.
    let lines = "import os, select, sys, time\n\
        while True:\n\
        \x20   sys.stdout.write('\\x1b[1;1Hclock'); sys.stdout.flush()\n\
        \x20   if select.select([0], [], [], 0)[0]:\n\
        \x20       sys.stdout.write('\\x1b[2;1H' + os.read(0, 64).hex()); sys.stdout.flush()\n\
        \x20   time.sleep(0.05)\n";
    let started = std::time::Instant::now();
    let args = ["run", "--timeout", LONG_MS, "--wait-screen", "clock", "--send", r"x\e"];
    let args = [&args[..], &["--send", "q\r", "--wait-screen", "781b710a", "--screen"]].concat();
    let output = termloom(&[&args[..], &["--", "python3", "-c", lines]].concat());
    assert_code(&output, 0);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(6), "took {took:?}: {}", stdout(&output));
    // Raw, polling between naps (never waiting for input), printing nothing until its `q`, then
    // each read with its time: the `q` half a second after the Escape at most (review wu:
    // 1.25 s, when the CLI took the program's silence for its answer).
    let quiet = "import os, select, sys, time, tty\n\
        tty.setraw(0)\n\
        sys.stdout.write('ready'); sys.stdout.flush()\n\
        start, reads = time.monotonic(), []\n\
        while not reads or not reads[-1].endswith('71'):\n\
        \x20   if select.select([0], [], [], 0)[0]:\n\
        \x20       reads.append(f'{time.monotonic() - start:.2f}:{os.read(0, 64).hex()}')\n\
        \x20   time.sleep(0.05)\n\
        sys.stdout.write('\\r\\n' + ' '.join(reads) + '\\r\\n'); sys.stdout.flush()\n";
    let args = ["run", "--timeout", LONG_MS, "--wait-screen", "ready", "--send", r"\e"];
    let args = [&args[..], &["--send", "q", "--wait-exit", "--screen"]].concat();
    let output = termloom(&[&args[..], &["--", "python3", "-c", quiet]].concat());
    let shown = stdout(&output);
    let line = shown.lines().find(|line| line.contains(":1b ")).unwrap_or_default();
    let reads: Vec<(f64, &str)> = line
        .split_whitespace()
        .filter_map(|word| word.split_once(':'))
        .filter_map(|(time, hex)| Some((time.parse().ok()?, hex)))
        .collect();
    let hexes: Vec<&str> = reads.iter().map(|(_, hex)| *hex).collect();
    assert_eq!(hexes, ["1b", "71"], "{shown}");
    let gap = reads[1].0 - reads[0].0;
    assert!(gap < 1.0, "the q came {gap:.2} s after the Escape: {shown}");
}

#[test]
fn run_command_prints_output_and_fails_on_a_failing_command() {
    if !require("bash") {
        return;
    }
    // `termloom run` of bash with shell integration and `steps`.
    let in_bash = |steps: &[&str]| {
        let mut args = vec!["run", "--timeout", LONG_MS, "--shell-integration"];
        args.extend(steps);
        args.extend(["--", "bash", "--norc", "--noprofile"]);
        termloom(&args)
    };
    let ok = in_bash(&["--wait-prompt", "--run-command", "echo from-the-command"]);
    assert_code(&ok, 0);
    assert!(stdout(&ok).contains("from-the-command"), "{}", stdout(&ok));
    let failing = in_bash(&["--wait-prompt", "--run-command", "ls /no/such/dir"]);
    assert_code(&failing, 1);
    assert!(stderr(&failing).contains("exit code 2"), "{}", stderr(&failing));
    // Without --wait-prompt the command waits for the first prompt itself; a command that
    // ends the shell says so.
    let ended = in_bash(&["--run-command", "echo first", "--run-command", "exit 4"]);
    assert_code(&ended, 1);
    assert!(stdout(&ended).contains("first"), "{}", stdout(&ended));
    assert!(
        stderr(&ended).contains("the shell itself ended during the command (exit code 4)"),
        "{}",
        stderr(&ended)
    );
}

#[test]
fn signal_step_interrupts_the_foreground_program() {
    if !require("bash") || !require("python3") {
        return;
    }
    let output = termloom(&[
        "run",
        "--timeout",
        LONG_MS,
        "--env",
        "PS1=$ ",
        "--wait-screen",
        "$",
        "--submit",
        "python3 -c 'import time; print(\"ready\", flush=True); time.sleep(1000)'",
        "--wait-regex",
        "^ready$",
        "--signal",
        "INT",
        "--wait-screen-regex",
        "^\\$$",
        "--submit",
        "echo status=$?; exit",
        "--wait-exit",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    assert_code(&output, 0);
    assert!(stdout(&output).contains("status=130"), "{}", stdout(&output));
}

#[test]
fn config_file_is_read_and_checked() {
    let dir = tempdir();
    let good = dir.join("good.toml");
    std::fs::write(&good, "cols = 90\nrows = 20\n").unwrap();
    let output = termloom(&["run", "--config", good.to_str().unwrap(), "--", "stty", "size"]);
    assert_code(&output, 0);
    assert!(stdout(&output).contains("20 90"), "{}", stdout(&output));
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "max_read_bytes = 1\n").unwrap();
    let output = termloom(&["run", "--config", bad.to_str().unwrap(), "--", "true"]);
    assert_code(&output, 1);
    assert!(stderr(&output).contains("max_read_bytes"), "{}", stderr(&output));
}

/// Live (non-zombie) processes whose command line is exactly `command`.
fn processes_with(command: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let zombie = stat.rfind(')').is_some_and(|i| stat[i + 2..].starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmdline).replace('\0', " ").trim_end() == command {
            found.push(pid);
        }
    }
    found
}

#[test]
fn sigint_to_termloom_leaves_no_survivor_of_the_gauntlet() {
    if !require(&shell_program()) {
        return;
    }
    let mut child = Command::new(TERMLOOM)
        .args([
            "run",
            "--timeout",
            "600000",
            "--wait-text",
            "gauntlet-ready",
            "--read",
            "--wait-exit",
            "--shell",
            "trap '' TERM HUP INT; setsid sleep 960101 & nohup sleep 960102 >/dev/null 2>&1 & \
             (trap '' TERM HUP; exec sleep 960103) & echo gauntlet-ready; sleep 960104",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Whatever happens below, termloom gets SIGINT: a failed assertion must not leave it
    // (and the gauntlet) running.
    let termloom = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    struct Interrupt(rustix::process::Pid);
    impl Drop for Interrupt {
        fn drop(&mut self) {
            let _ = rustix::process::kill_process(self.0, rustix::process::Signal::INT);
        }
    }
    let interrupt = Interrupt(termloom);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    lines.by_ref().map(Result::unwrap).find(|line| line.contains("gauntlet-ready")).unwrap();
    // The background jobs may still be between fork and exec: watch /proc until each runs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    for marker in ["960101", "960102", "960103", "960104"] {
        while processes_with(&format!("sleep {marker}")).len() != 1 {
            assert!(std::time::Instant::now() < deadline, "sleep {marker} never started");
            std::thread::yield_now();
        }
    }
    drop(interrupt);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(128 + 2), "{}", stderr(&output));
    for marker in ["960101", "960102", "960103", "960104"] {
        let left = processes_with(&format!("sleep {marker}"));
        assert!(left.is_empty(), "sleep {marker} survived: {left:?}");
    }
}

/// The wait after a read finds text written over the line it read (the issue's repro exited
/// 124 while the screen showed "progress 100%").
#[test]
fn a_wait_after_a_read_finds_a_rewritten_line() {
    let out = termloom(&[
        "run",
        "--timeout",
        "15000",
        "--wait-text",
        "progress 50",
        "--read",
        "--wait-text",
        "100%",
        "--",
        "sh",
        "-c",
        r#"printf "progress 50%%"; sleep 1; printf "\rprogress 100%%"; sleep 30"#,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}

/// `--screenshot FILE.svg` writes the screen as an SVG with its colours, `FILE.png` as a PNG;
/// other extensions are refused before anything runs.
#[test]
fn screenshot_writes_an_svg_of_the_screen() {
    let path = std::env::temp_dir().join(format!("termloom-shot-{}.svg", std::process::id()));
    let shot = path.to_str().unwrap();
    let output = termloom(&[
        "run",
        "--wait-screen",
        "end",
        "--screenshot",
        shot,
        "--",
        "sh",
        "-c",
        "printf '\\033[32mgreen\\033[0m <&> end'; sleep 1",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
    assert!(svg.contains("fill=\"#00cd00\""), "green: {svg}");
    assert!(svg.contains(">green</tspan>"), "{svg}");
    assert!(svg.contains("&lt;&amp;&gt; end</tspan>"), "escaped: {svg}");
    let png = path.with_extension("png");
    let output = termloom(&[
        "run",
        "--wait-screen",
        "end",
        "--screenshot",
        png.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "echo end; sleep 1",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let image = std::fs::read(&png).unwrap();
    let _ = std::fs::remove_file(&png);
    assert!(image.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG signature");
    let refused = termloom(&["run", "--screenshot", "shot.gif", "--", "true"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains(".svg or .png"));
}

/// `--record FILE.cast` writes an asciicast v2 recording that asciinema itself plays back.
#[test]
fn record_writes_a_cast_that_asciinema_reads() {
    let path = std::env::temp_dir().join(format!("termloom-rec-{}.cast", std::process::id()));
    let cast = path.to_str().unwrap();
    let output = termloom(&[
        "run",
        "--record",
        cast,
        "--wait-text",
        "two",
        "--resize",
        "90x20",
        "--send",
        "x\\n",
        "--wait-exit",
        "--",
        "sh",
        "-c",
        "echo one; echo two; read x; echo three",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let events: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events[0]["version"], 2, "{text}");
    assert_eq!(events[0]["width"], 120, "{text}");
    let kinds: Vec<&str> = events[1..].iter().map(|e| e[1].as_str().unwrap()).collect();
    assert!(kinds.contains(&"o") && kinds.contains(&"r") && kinds.contains(&"m"), "{text}");
    assert!(!kinds.contains(&"i"), "input is not recorded by default: {text}");
    assert!(text.contains("\"m\",\"wait: text \\\"two\\\"\""), "{text}");
    if !require("asciinema") {
        return;
    }
    // asciinema reads its terminal (/dev/tty): play the recording in a session of termloom's.
    let engine = common::engine();
    let player = engine.spawn(termloom::SpawnSpec::new("asciinema").arg("cat").arg(&path)).unwrap();
    let outcome = player.wait(termloom::Until::exit(), std::time::Duration::from_secs(20));
    let shown = player.read().unwrap().text;
    let _ = std::fs::remove_file(&path);
    assert!(matches!(outcome.unwrap().fired, termloom::Fired::Exited { .. }));
    assert!(shown.contains("one\ntwo\nx\nthree"), "{shown:?}");
}

/// A recording whose file cannot be written any more (a FIFO whose reader went away after
/// the header; a full disk is the same) is reported: `--json`'s `recording_error` has the
/// error, the human report says it on a line before the exit line, and a warning on stderr
/// names the file. Before, the run said nothing (and then the human report said nothing).
#[test]
fn a_recording_that_cannot_be_written_is_reported() {
    let dir = common::TestDir::new("cli-recording-fails");
    for format in ["--json", "--human"] {
        let fifo = dir.join(format!("cast{format}.fifo"));
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut header = String::new();
                let file = std::fs::File::open(&fifo).unwrap();
                BufReader::new(file).read_line(&mut header).unwrap();
                header
            })
        };
        let cast = fifo.to_str().unwrap();
        let script = "read x; seq 1 20000";
        let steps = ["--wait-input", "--send", "\\n", "--wait-exit"];
        let mut args = vec!["run", "--max-bytes", "100", "--record", cast];
        args.extend((format == "--json").then_some(format));
        args.extend(steps);
        args.extend(["--", "sh", "-c", script]);
        let output = termloom(&args);
        assert!(reader.join().unwrap().starts_with("{\""), "the header was written");
        assert!(output.status.success(), "{}", stderr(&output));
        let named = format!("cast{format}.fifo");
        assert!(stderr(&output).contains(&named), "{}", stderr(&output));
        if format == "--json" {
            let report = json(&output);
            let error = report["recording_error"].as_str().unwrap_or_default();
            assert!(error.contains("Broken pipe"), "{}", report["recording_error"]);
            continue;
        }
        let report = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut last = report.lines().rev();
        assert!(last.next().is_some_and(|line| line.starts_with("--- exit: ")), "{report}");
        let said = last.next().unwrap_or_default();
        assert!(
            said.starts_with("--- recording failed, the file lacks the rest: Broken pipe"),
            "{report}"
        );
    }
}

/// A recording that cannot be created is named as the cause, not the program.
#[test]
fn a_recording_that_cannot_be_created_is_named() {
    let output = termloom(&["run", "--record", "/nonexistent-termloom/x.cast", "--", "true"]);
    assert!(!output.status.success());
    let stderr = stderr(&output);
    assert!(
        stderr.contains("cannot create the recording \"/nonexistent-termloom/x.cast\""),
        "{stderr}"
    );
}

/// A file the caller may write, in a directory it may not (a user's file in a system
/// directory), cannot be replaced: the recording is written into it, in place. Before, the
/// start was refused: "Permission denied", named after the file, though the directory was
/// the cause.
#[test]
fn a_recording_into_a_directory_the_caller_cannot_write_is_written_in_place() {
    use std::os::unix::fs::PermissionsExt;
    if !common::require_root("only root can run termloom as another user") {
        return;
    }
    let dir = common::TestDir::new("record-unwritable-dir");
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = dir.join("theirs.cast");
    std::fs::write(&file, "old\n").unwrap();
    let nobody = rustix::fs::Uid::from_raw(65534);
    rustix::fs::chown(&file, Some(nobody), None).unwrap();
    let output = record_as_nobody(&file, &["echo", "written-in-place"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("{\"") && text.contains("written-in-place"), "{text}");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o600, "made private");
}

/// `termloom run --record PATH -- ARGV` run as `nobody` (uid and gid 65534), from `/`.
fn record_as_nobody(path: &std::path::Path, argv: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    Command::new(TERMLOOM)
        .args(["run", "--record"])
        .arg(path)
        .arg("--")
        .args(argv)
        .current_dir("/")
        .env("HOME", "/")
        .env_remove("XDG_RUNTIME_DIR")
        .uid(65534)
        .gid(65534)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Whoever owns the directory of a file written in place (the caller may not write it) can
/// link its name to a file of the caller's and rename a file of its own over it again, over
/// and over: the caller's file is never written. Before, the count of names was read after
/// the open, when the link could be gone again (one start in 12 to 102 emptied the caller's
/// file and filled it with the recording, review ut); then before and after the open, but a
/// rename lowers the count before the name changes (one run in four failed under load,
/// review uw). The directory's owner here is `daemon` (uid 1); its own file, one name, is
/// written in place when a start opens it.
#[test]
fn a_recording_in_place_never_writes_a_file_linked_there_and_unlinked_meanwhile() {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    if !common::require_root("only root can run termloom as another user") {
        return;
    }
    let dir = common::TestDir::new("record-link-race");
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (nobody, daemon) = (rustix::fs::Uid::from_raw(65534), rustix::fs::Uid::from_raw(1));
    let victim = dir.join("notes");
    std::fs::write(&victim, "private\n").unwrap();
    rustix::fs::chown(&victim, Some(nobody), None).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let theirs = dir.join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    rustix::fs::chown(&theirs, Some(daemon), None).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o755)).unwrap();
    let record = |path: &std::path::Path| record_as_nobody(path, &["true"]);
    // Caught whatever the timing: the caller's own file, one name, in that directory (as the
    // name is between the link and the rename) is refused and left as it is.
    let own = theirs.join("own.cast");
    std::fs::write(&own, "mine\n").unwrap();
    rustix::fs::chown(&own, Some(nobody), None).unwrap();
    let output = record(&own);
    assert_ne!(code(&output), 0, "the caller's own file there is refused");
    assert!(stderr(&output).contains("your own file"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&own).unwrap(), "mine\n");
    let name = theirs.join("rec.cast");
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let staged = theirs.join("staged");
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::hard_link(&victim, &staged);
                let _ = std::fs::rename(&staged, &name);
                // The owner's own file, with no other name, made writable by the caller.
                if std::fs::write(&staged, "theirs\n").is_ok() {
                    let _ = rustix::fs::chown(&staged, Some(daemon), None);
                    let mode = std::fs::Permissions::from_mode(0o666);
                    let _ = std::fs::set_permissions(&staged, mode);
                    let _ = std::fs::rename(&staged, &name);
                }
            }
        });
        let mut refused = 0;
        for start in 0..150 {
            let output = record(&name);
            refused += usize::from(code(&output) != 0);
            let text = std::fs::read_to_string(&victim).unwrap();
            if text != "private\n" {
                stop.store(true, Ordering::Relaxed);
                panic!("start {start} wrote the linked file: {text:?}");
            }
        }
        stop.store(true, Ordering::Relaxed);
        assert!(refused > 0, "no start saw the link: the race was never run");
    });
}

/// `--record /dev/stdout` with the output sent to a file writes the recording there, before
/// the report, as a program prints. Before, the recording was renamed over the file, and the
/// report went to the file it replaced, which nothing could read any more.
#[test]
fn a_recording_to_stdout_redirected_to_a_file_is_printed_there() {
    let dir = common::TestDir::new("record-stdout-file");
    let out = dir.join("out.txt");
    let status = Command::new(TERMLOOM)
        .args(["run", "--record", "/dev/stdout", "--", "echo", "printed-here"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let report = text.find("--- transcript ---").expect("the report is in the file");
    let recording = text.find("[0.").expect("the recording is in the file");
    assert!(text.starts_with("{\"") && recording < report, "{text}");
    let names: Vec<_> =
        std::fs::read_dir(&*dir).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, ["out.txt"]);
}

/// A `termloom server` of the test's own, in the foreground on a socket in a directory of
/// its own (`--idle-exit never`); ready once it said it listens; killed when dropped.
struct PrivateServer {
    child: std::process::Child,
    socket: PathBuf,
    _dir: common::TestDir,
}

impl PrivateServer {
    fn start() -> PrivateServer {
        let dir = common::TestDir::unmade("cli-server");
        let socket = dir.join("s");
        PrivateServer { child: common::start_server(&socket, &[]), socket, _dir: dir }
    }

    /// `termloom COMMAND --socket S ARGS...`.
    fn cli(&self, args: &[&str]) -> Output {
        common::cli_on(std::path::Path::new("."), &self.socket, args)
    }

    /// A command that must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.cli(args);
        assert_code(&output, 0);
        stdout(&output)
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A wait the program's question cut short is no success: `termloom wait q --wait-text
/// Hello && next` must not go on, and its code is neither a timeout's nor an exit's.
#[test]
fn a_wait_cut_short_by_a_question_exits_3() {
    let server = PrivateServer::start();
    let question = "read -p 'Proceed? ' x; echo Hello; exec cat";
    server.ok(&["start", "--name", "q", "--", "bash", "-c", question]);
    for args in [
        &["wait", "q", "--wait-text", "Hello", "--timeout", LONG_MS][..],
        &["read", "q", "--wait-text", "Hello", "--timeout", LONG_MS],
        &["start", "--wait-text", "Hello", "--timeout", LONG_MS, "--", "bash", "-c", question],
    ] {
        let output = server.cli(args);
        assert_code(&output, 3);
        assert!(stdout(&output).contains("asks for input first"), "{}", stdout(&output));
    }
    let output = server.cli(&["wait", "q", "--wait-text", "Hello", "--json"]);
    assert_code(&output, 3);
    assert_eq!(json(&output)["wait"]["outcome"], "waiting_for_input");
    // Once answered, the same wait holds.
    server.ok(&["send", "q", "--text", "y", "--submit", "--wait-text", "Hello"]);
    let help = stdout(&termloom(&["help", "wait"]));
    assert!(help.contains("3 the program asks for input"), "{help}");
}

/// A start whose wait was refused is no success: `termloom start --wait-prompt -- cat &&
/// next` must not go on as if the prompt came (it exited 0). A wait refused once the program
/// ran keeps the session, its id printed, the note saying why and the program's state
/// (`--json`: `wait_refusal`); one that is known to be refused before (a place off the
/// screen asked for) starts nothing.
#[test]
fn a_start_whose_wait_is_refused_exits_1() {
    let server = PrivateServer::start();
    let output = server.cli(&["start", "--wait-prompt", "--", "cat"]);
    assert_code(&output, 1);
    let out = stdout(&output);
    assert!(out.starts_with("[session 1 started · cat "), "{out}");
    assert!(out.contains("--wait-prompt can never hold"), "{out}");
    assert!(out.contains("session 1 runs (wait on it with termloom read"), "{out}");
    let output = server.cli(&["start", "--json", "--wait-prompt", "--", "cat"]);
    assert_code(&output, 1);
    let result = json(&output);
    assert_eq!(result["session_id"], 2, "{result}");
    assert_eq!(result["wait_refused"], true, "{result}");
    let why = result["wait_refusal"].as_str().unwrap_or_default();
    assert!(why.contains("--wait-prompt can never hold"), "{result}");
    // In the command line's terms, as the text's note: it named the MCP tools' arguments.
    assert!(why.contains("--wait-regex") && !why.contains("for_regex"), "{why}");
    assert!(!why.contains("terminal_start"), "{why}");
    // A program that has exited already is not said to run.
    let output = server.cli(&["start", "--wait-prompt", "--", "sh", "-c", "true"]);
    assert_code(&output, 1);
    let out = stdout(&output);
    assert!(out.contains("session 3 ran and has exited: do not start"), "{out}");
    assert!(!out.contains("session 3 runs"), "{out}");
    // Off the screen asked for: refused before anything started.
    for wait in [&["--wait-cursor", "99,99"][..], &["--wait-screen", "x", "--wait-row", "40"]] {
        let args = [&["start", "--size", "80x24"], wait, &["--", "cat"]].concat();
        let output = server.cli(&args);
        assert_code(&output, 1);
        let err = stderr(&output);
        assert!(err.contains("off the requested 80x24 screen"), "{err}");
        assert!(err.contains("nothing was started"), "{err}");
        assert_eq!(stdout(&output), "", "{err}");
    }
    // A session started with a name is named by it, as later commands take it, after the
    // first line's id (it said `session 4 runs (wait on it with termloom read 4)`).
    let output = server.cli(&["start", "--name", "cat2", "--wait-prompt", "--", "cat"]);
    assert_code(&output, 1);
    let out = stdout(&output);
    assert!(out.starts_with("[session 4 started · cat "), "{out}");
    assert!(out.contains("session cat2 runs (wait on it with termloom read"), "{out}");
    assert!(out.contains(" cat2): do not start it again"), "{out}");
    assert!(!out.contains(" 4): do not start"), "{out}");
    // So does `--json`'s `wait_refusal` (it named the id where the text named the name).
    let output = server.cli(&["start", "--json", "--name", "cat3", "--wait-prompt", "--", "cat"]);
    assert_code(&output, 1);
    let result = json(&output);
    let why = result["wait_refusal"].as_str().unwrap_or_default();
    assert!(why.starts_with("session cat3 was not started with shell integration"), "{why}");
    assert!(!why.contains("session 5"), "{why}");
    let listed = json(&server.cli(&["list", "--json"]));
    assert_eq!(listed["sessions"].as_array().map(Vec::len), Some(5), "{listed}");
    let help = stdout(&termloom(&["help", "start"]));
    assert!(help.contains("a start's wait was\nrefused once its program ran"), "{help}");
}

/// `termloom send ID --text 'less FILE' --submit` at a shell prompt shows less's screen, and
/// `--keys q` then printed the line typed before, which less had hidden on the primary
/// screen before any read reached it (`less FILE`, then the prompt): the client typed it, so
/// it is left out, as through MCP.
#[test]
fn the_line_that_started_a_pager_is_not_printed_when_it_quits() {
    if !require("bash") || !require("less") || !require("env") {
        return;
    }
    let server = PrivateServer::start();
    let shell = ["start", "--name", "sh", "--", "env", "PS1=$ ", "bash", "--norc", "--noprofile"];
    server.ok(&shell);
    let paged = server.ok(&["send", "sh", "--text", "less /etc/passwd", "--submit"]);
    assert!(paged.contains("less waiting for keys") && paged.contains("root:"), "{paged}");
    let back = server.ok(&["send", "sh", "--keys", "q"]);
    assert!(back.ends_with("]\n$ \n") && !back.contains("less"), "{back}");
}

/// `less -X` on lines wider than the screen (a `git log` at 80 columns) whose page ends in a
/// row filled to its last column writes its prompt on the next row after a space and a
/// backspace, so that row wraps into the prompt's: `q` (and `<Space>`, which writes the
/// line's rest over the prompt) repeated that row's whole line, 80 bytes the caller had
/// read, after `[from a line you saw, since redrawn]`, as if it had changed. So it did when
/// the full row ended in a blank (each line led by `abc`, a word ends at the margin): the read
/// line keeps a wrapped row's blank, the screen's row trims it, and `q` repeated the row's
/// line (79 bytes). A line editor's command line wrapped the same way is no prompt: deleting
/// its end is still shown.
#[test]
fn a_pagers_prompt_after_a_full_row_is_no_line_redrawn() {
    if !require("less") {
        return;
    }
    let dir = tempdir();
    let file = dir.join("wide.txt");
    let file = file.to_str().unwrap();
    let server = PrivateServer::start();
    let rows = ["line05 ".repeat(11) + "lin", "abc".to_owned() + &"line05 ".repeat(11)];
    let rests = ["line09 xx\n:", "]\nline05 line05 line05 xx\nabcline06 "];
    for ((lead, full_row), rest) in ["", "abc"].into_iter().zip(rows).zip(rests) {
        let wide: String =
            (1..=20).map(|i| format!("{lead}{}xx\n", format!("line{i:02} ").repeat(14))).collect();
        std::fs::write(file, wide).unwrap();
        for (name, keys) in [("quit", "q"), ("page", " ")] {
            let start = ["start", "--name", name, "--size", "80x10", "--", "less", "-X", file];
            let page = server.ok(&start);
            assert!(page.contains("less waiting for keys") && page.contains(&full_row), "{page}");
            let after = server.ok(&["send", name, "--keys", keys]);
            assert!(!after.contains("since redrawn") && !after.contains(&full_row), "{after}");
            if keys == " " {
                assert!(after.contains(rest), "{after}");
            }
            server.ok(&["close", name]);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    // A line editor's command line wrapped after a full row is no prompt: deleting the part
    // on the next row is an edit, shown.
    if !require("bash") || !require("env") {
        return;
    }
    let shell = ["--", "env", "PS1=$ ", "bash", "--norc", "--noprofile"];
    server.ok(&[&["start", "--name", "sh", "--size", "30x10"][..], &shell[..]].concat());
    let typed = format!("echo {}xyz", "a".repeat(23));
    server.ok(&["send", "sh", "--text", &typed]);
    let erased = server.ok(&["send", "sh", "--keys", "<BS><BS><BS>"]);
    assert!(erased.contains("since redrawn]\n$ echo aaa"), "{erased}");
}

/// A look-up (`--lines`, `--search`, `--find`) after a wait exits as the wait ended, as a
/// read without one does: 124 at its timeout, 3 when a question cut it short, 1 when the
/// program exited first, the program's code for `--wait-exit`.
#[test]
fn a_look_up_after_a_wait_exits_as_the_wait_ended() {
    let server = PrivateServer::start();
    let busy = "echo first; exec sleep 600";
    server.ok(&["start", "--name", "busy", "--wait-text", "first", "--", "sh", "-c", busy]);
    let question = "echo first; read -p 'Proceed? ' x; exec cat";
    server.ok(&["start", "--name", "q", "--", "bash", "-c", question]);
    let exited = ["start", "--name", "e", "--wait-exit", "--", "sh", "-c", "echo first; exit 4"];
    assert_code(&server.cli(&exited), 4);
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["read", "busy", "--search", "first", "--wait-text", "nope", "--timeout", "300"],
            124,
            "timeout",
        ),
        (
            &["read", "q", "--lines", "0-", "--wait-text", "nope", "--timeout", LONG_MS],
            3,
            "waiting_for_input",
        ),
        (
            &["read", "e", "--find", "first", "--wait-text", "nope", "--timeout", LONG_MS],
            1,
            "exited",
        ),
        (&["read", "e", "--search", "first", "--wait-exit", "--timeout", LONG_MS], 4, "exited"),
    ];
    for (args, expected, outcome) in cases {
        let output = server.cli(args);
        assert_code(&output, *expected);
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let output = server.cli(&with_json);
        assert_code(&output, *expected);
        assert_eq!(json(&output)["wait"]["outcome"], *outcome, "{args:?}");
    }
}

/// A call whose server is gone while it waits (killed, or stopped by `termloom kill-server`
/// or a signal) says the server stopped, not that it failed.
#[test]
fn a_wait_whose_server_is_killed_says_the_server_stopped() {
    let mut server = PrivateServer::start();
    let busy = "echo ready; exec sleep 600";
    server.ok(&["start", "--name", "busy", "--wait-text", "ready", "--", "sh", "-c", busy]);
    let waiting = Command::new(TERMLOOM)
        .args(["wait", "--socket", server.socket.to_str().unwrap(), "busy"])
        .args(["--wait-text", "never", "--timeout", "60000"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Until the server holds the wait.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let list = json(&server.cli(&["list", "--json"]));
        if list["sessions"][0]["pending_waits"] == 1 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the wait never began: {list}");
    }
    server.child.kill().unwrap();
    let output = waiting.wait_with_output().unwrap();
    assert_code(&output, 1);
    let stderr = stderr(&output);
    assert!(stderr.contains("server on") && stderr.contains("stopped during the call"), "{stderr}");
    assert!(!stderr.contains("failed"), "{stderr}");
}

/// A command that replaces `PS1` loses the prompt's mark: `exec` answers it, and the next one
/// is refused for that reason. It was refused as though keys had been typed since the prompt
/// (none were), with advice (`<C-u><Enter>`) that only draws another unmarked prompt.
#[test]
fn exec_after_the_prompt_lost_its_mark_says_so() {
    if !require("bash") {
        return;
    }
    let server = PrivateServer::start();
    let bash = ["--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile"];
    server.ok(&[&["start", "--name", "sh", "--shell-integration"][..], &bash].concat());
    let ran = server.ok(&["exec", "sh", "PS1='> '; echo replaced"]);
    assert!(ran.contains("replaced\n") && ran.contains("exit code 0"), "{ran}");
    let output = server.cli(&["exec", "sh", "echo more"]);
    assert_code(&output, 1);
    let stderr = stderr(&output);
    assert!(stderr.contains("lost termloom's mark"), "{stderr}");
    assert!(!stderr.contains("keys were typed"), "{stderr}");
}

/// A prompt that asks a question before it draws its mark is not one that lost the mark:
/// `exec` gives the command's exit code and says its prompt waits for input, and the next
/// `exec` names the reader and does not advise typing commands (they would be the question's
/// answer). Both said the prompt lost termloom's mark (PS1 replaced); then `exec` said the
/// command waited for input (exit 3), with no exit code though `echo set` ended with 0.
#[test]
fn exec_at_a_prompt_that_asks_a_question_names_the_reader() {
    if !require("bash") {
        return;
    }
    let server = PrivateServer::start();
    let bash = ["--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile"];
    server.ok(&[&["start", "--name", "sh", "--shell-integration"][..], &bash].concat());
    let asks = r#"PS1="\$(printf 'Username: ' >/dev/tty; head -n1 </dev/tty >/dev/null)$PS1""#;
    let output = server.cli(&["exec", "sh", &format!("{asks}; echo set")]);
    assert_code(&output, 0);
    let stdout = stdout(&output);
    assert!(stdout.starts_with("set\n[exit code 0 · "), "{stdout}");
    assert!(stdout.contains("prompt, not drawn yet, waits for"), "{stdout}");
    assert!(stdout.contains("head (run by its PS1"), "{stdout}");
    assert!(stdout.contains("termloom send ") && stdout.contains("--wait-prompt"), "{stdout}");
    let output = server.cli(&["exec", "sh", "echo more"]);
    assert_code(&output, 1);
    let stderr = stderr(&output);
    assert!(stderr.contains("head (pid"), "{stderr}");
    assert!(!stderr.contains("lost termloom's mark"), "{stderr}");
}

/// The help lists, for each flag, the commands that take it, and a flag is refused in the
/// command line's own words: its flags, never the tools' argument names.
#[test]
fn the_help_says_which_commands_take_a_flag_and_errors_name_only_flags() {
    let help = stdout(&termloom(&["help", "send"]));
    assert!(help.contains("\nVIEW (start, send, wait, read):\n"), "{help}");
    assert!(help.contains("\nOUTPUT (start, send, wait, read, screen, exec):\n"), "{help}");
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let refused = |args: &[&str], expected: &str| {
        let output = server.cli(args);
        assert_code(&output, 2);
        let stderr = stderr(&output);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        for tools_word in ["keep_session", "`cwd`", "svg", "png", "session_id"] {
            assert!(!stderr.contains(tools_word), "{args:?}: {stderr}");
        }
    };
    refused(
        &["exec", "sh", "echo hi", "--view", "screen"],
        "`termloom exec` does not take --view; its flags are: --timeout, --max-bytes,",
    );
    refused(
        &["read", "sh", "--search", "x", "--find", "y"],
        "give one of --lines, --search, --find at a time, not --search and --find",
    );
    refused(&["read", "sh", "--search", "x", "--view", "screen"], "leave out --view");
    refused(&["screen", "sh", "--view", "new"], "takes no --view");
    let screen = server.ok(&["screen", "sh", "--max-bytes", "4096"]);
    assert!(screen.contains("--- screen "), "{screen}");
}

/// Every flag a command takes is described in its help's lists of flags, `start`'s `--size`
/// and `--env` too.
#[test]
fn the_help_describes_every_flag_a_command_takes() {
    for command in ["start", "send", "wait", "read", "screen"] {
        let help = stdout(&termloom(&["help", command]));
        let output = termloom(&[command, "--no-such-flag"]);
        assert_code(&output, 2);
        let err = stderr(&output);
        let flags = err.split("its flags are: ").nth(1).expect("the flags").split(" (run").next();
        for flag in flags.unwrap().split(", ") {
            if ["-L", "--socket", "--client", "--json"].contains(&flag) {
                continue; // Described once, for every command.
            }
            assert!(help.contains(&format!("\n  {flag} ")), "{command} {flag}:\n{help}");
        }
    }
}

/// `--max-bytes` bounds the program's part of the output; the help says how much termloom's
/// own notes and headers add, and that bound holds for the smallest budget.
#[test]
fn the_help_says_what_max_bytes_leaves_out_and_it_holds() {
    let overhead = termloom::mcp::MAX_BYTES_OVERHEAD;
    let help = stdout(&termloom(&["help", "read"])).replace("\n", " ").replace("  ", "");
    assert!(help.contains(&format!("(at most {overhead} more)")), "{help}");
    let server = PrivateServer::start();
    let script = "seq 1 3000; read x";
    server.ok(&["start", "--name", "big", "--wait-text", "2999", "--", "sh", "-c", script]);
    for args in [
        &["read", "big", "--view", "scrollback", "--max-bytes", "256"][..],
        &["screen", "big", "--max-bytes", "256"],
        &["read", "big", "--search", "1", "--max-bytes", "256"],
    ] {
        let printed = server.ok(args);
        assert!(printed.len() <= 256 + overhead, "{args:?}: {} bytes", printed.len());
    }
}

/// `read --search` is a look-up, not a wait: a pattern every line matches (`.*`, `^`, `a*`,
/// `error|`) lists every line, as the tool's `search` does, where it was refused as a wait
/// for it is (exit 2, "can match the empty string"). A bad one is still a usage error.
#[test]
fn a_search_takes_a_pattern_every_line_matches() {
    let server = PrivateServer::start();
    let script = "echo first; echo second; read x";
    server.ok(&["start", "--name", "s", "--wait-text", "second", "--", "sh", "-c", script]);
    for pattern in [".*", "^", "a*", "error|"] {
        let printed = server.ok(&["read", "s", "--search", pattern]);
        assert!(printed.contains("first") && printed.contains("second"), "{pattern}: {printed}");
    }
    let refused = server.cli(&["read", "s", "--search", "("]);
    assert_code(&refused, 2);
}

/// The help says what is refused: `--max-bytes`'s range (it gave only the default, and 200
/// exited 2), and that `signal ID KILL` to the session's own program is refused (the help
/// listed KILL among the signals it sends).
#[test]
fn the_help_says_what_is_refused() {
    let (least, most) = termloom::tools::MAX_BYTES_RANGE;
    let range = format!("from {least} to {most}");
    let help = stdout(&termloom(&["help", "read"])).replace('\n', " ").replace("  ", "");
    assert!(help.contains(&format!("--max-bytes N Most bytes of output, {range}")), "{help}");
    let refused = termloom(&["read", "1", "--max-bytes", &(least - 1).to_string()]);
    assert_code(&refused, 2);
    assert!(stderr(&refused).contains(&range), "{}", stderr(&refused));
    let help = stdout(&termloom(&["help", "signal"])).replace('\n', " ").replace("  ", "");
    let says = "KILL to the session's own program (the one started, or its shell at the prompt) is refused (exit 1): close the session instead, or give --target session.";
    assert!(help.contains(says), "{help}");
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "c", "--", "cat"]);
    let killed = server.cli(&["signal", "c", "KILL"]);
    assert_code(&killed, 1);
    assert!(stderr(&killed).contains("refusing to send SIGKILL"), "{}", stderr(&killed));
    server.ok(&["signal", "c", "KILL", "--target", "session"]);
}

/// The advice to see what a read of the scrollback left out asks for what the command line
/// prints, one copy: enough to show it all, not about twice that (it took the bytes it never
/// had to need twice their length in JSON, where the text it showed needs a tenth more).
#[test]
fn the_advice_to_see_more_asks_for_about_what_it_takes() {
    if !require("seq") {
        return;
    }
    let server = PrivateServer::start();
    let script = "seq 1 8000; echo END; read x";
    server.ok(&["start", "--name", "big", "--wait-text", "END", "--", "sh", "-c", script]);
    let whole = (1..=8000).map(|n| format!("{n}\n")).collect::<String>() + "END\n";
    let needed = serde_json::to_string(&whole).unwrap().len();
    let read = server.ok(&["read", "big", "--view", "scrollback"]);
    let advised = read.split("--max-bytes=").nth(1).and_then(|rest| rest.split(']').next());
    let advised: usize = advised.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{read}"));
    assert!(advised >= needed && advised <= needed * 5 / 4, "{advised} for {needed}: {read}");
    let all =
        server.ok(&["read", "big", "--view", "scrollback", "--max-bytes", &advised.to_string()]);
    assert!(!all.contains("left out") && all.contains("\n1\n2\n3\n"), "{all}");
}

/// `-L NAME`, `--socket PATH`, `--client NAME` and `--json` may stand before any command,
/// `help` too.
#[test]
fn help_after_the_server_options_gives_the_help() {
    let plain = termloom(&["help", "send"]);
    assert_code(&plain, 0);
    for args in [
        &["-L", "elsewhere", "help", "send"][..],
        &["--socket", "/nonexistent/s", "help", "send"],
        &["--socket=/nonexistent/s", "help", "send"],
        &["--client", "me", "--json", "help", "send"],
        &["--client=me", "help", "send"],
    ] {
        let output = termloom(args);
        assert_code(&output, 0);
        assert_eq!(stdout(&output), stdout(&plain), "{args:?}");
    }
    let output = termloom(&["-L", "elsewhere", "help"]);
    assert_code(&output, 0);
    assert_eq!(stdout(&output), stdout(&termloom(&["help"])));
}

/// `run --max-bytes N` prints at most the last N bytes of the final transcript, whole lines,
/// and says that earlier output was left out (as `transcript_truncated` with `--json`).
#[test]
fn run_prints_at_most_max_bytes_of_the_transcript() {
    if !require("seq") {
        return;
    }
    let output = termloom(&["run", "--max-bytes", "40", "--shell", "seq 1 5000"]);
    assert_code(&output, 0);
    let transcript = section(&stdout(&output), "transcript").to_owned();
    let (note, kept) = transcript.split_once('\n').unwrap();
    assert!(note.contains("left out") && note.contains("--max-bytes"), "{transcript}");
    assert!(kept.len() <= 40 && kept.contains("\n5000\n"), "{transcript}");
    assert!(kept.lines().all(|line| line.is_empty() || line.parse::<u32>().is_ok()), "{kept}");
    let report = json(&termloom(&["run", "--json", "--max-bytes", "40", "--shell", "seq 1 5000"]));
    assert_eq!(report["transcript_truncated"], true, "{report}");
    assert!(report["transcript"].as_str().is_some_and(|t| t.len() <= 40), "{report}");
    let whole = json(&termloom(&["run", "--json", "--shell", "seq 1 5000"]));
    assert_eq!(whole["transcript_truncated"], false, "{whole}");
    assert!(whole["transcript"].as_str().is_some_and(|t| t.starts_with("1\n2\n")), "{whole}");
    let refused = termloom(&["run", "--max-bytes", "0", "--", "true"]);
    assert_code(&refused, 2);
}

/// A client command's help is its own: its usage, the flags it takes and what every command
/// takes, not the page of every command (`termloom help sessions`), which names them all.
#[test]
fn each_client_command_has_a_help_of_its_own() {
    let all = stdout(&termloom(&["help", "sessions"]));
    for command in ["start", "send", "wait", "read", "screen", "exec", "list", "kill-server"] {
        let own = termloom(&["help", command]);
        assert_code(&own, 0);
        let own = stdout(&own);
        assert!(own.starts_with("termloom "), "{command}: {own}");
        assert_eq!(own.split_whitespace().nth(1), Some(command), "{own}");
        assert!(own.contains("Exit codes:") && own.contains("termloom help sessions"), "{own}");
        assert!(own.len() < all.len() * 2 / 3, "{command}: {} of {} bytes", own.len(), all.len());
        assert_eq!(own, stdout(&termloom(&[command, "--help"])), "{command}");
        assert!(all.contains(&format!("\ntermloom {command}")), "{command} missing: {all}");
    }
    let exec = stdout(&termloom(&["help", "exec"]));
    assert!(exec.contains("--max-bytes N") && !exec.contains("--wait-text"), "{exec}");
    assert!(all.contains("--wait-text") && all.contains("--paste-file PATH"), "{all}");
}

/// `--client` and `--json` before the command are read as after it, as `-L` and `--socket`.
#[test]
fn client_and_json_may_stand_before_the_command() {
    let server = PrivateServer::start();
    let socket = server.socket.to_str().unwrap();
    let program = ["sh", "-c", "echo marker; exec cat"];
    server.ok(&[&["start", "--name", "sh", "--wait-text", "marker", "--"][..], &program].concat());
    // Client `cli` read the marker at the start; to client `other` it is new, once.
    let output = termloom(&["--json", "--client", "other", "--socket", socket, "read", "sh"]);
    assert_code(&output, 0);
    let read: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(read["output"].as_str().is_some_and(|o| o.contains("marker")), "{read}");
    let output = termloom(&["--client=other", "--socket", socket, "read", "sh"]);
    assert_code(&output, 0);
    assert!(!stdout(&output).contains("marker"), "{}", stdout(&output));
    assert!(!server.ok(&["read", "sh"]).contains("marker"));
}

/// With no server on a socket in a directory others may write in (`/tmp`), where no server
/// may run, the note says so rather than advising a `termloom start` that would be refused.
#[test]
fn no_server_where_none_may_run_is_said_so() {
    // The note on `list` and the server's refusal of `start` give the same reason.
    let refused_by_both = |socket: &str, reason: &str| {
        let listed = termloom(&["list", "--socket", socket]);
        assert_code(&listed, 0);
        let note = stderr(&listed);
        assert!(note.contains("and none can") && note.contains(reason), "{note}");
        assert!(!note.contains("termloom start"), "{note}");
        let started = termloom(&["start", "--socket", socket, "--", "true"]);
        assert_code(&started, 1);
        assert!(stderr(&started).contains(reason), "{}", stderr(&started));
    };
    let socket = format!("/tmp/termloom-test-shared-{}.sock", std::process::id());
    refused_by_both(&socket, "other users may write in /tmp");
    // A directory reached through a link.
    let dir = common::TestDir::new("cli-linked-socket-dir");
    std::fs::create_dir(dir.join("real")).unwrap();
    std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).unwrap();
    refused_by_both(dir.join("link").join("s").to_str().unwrap(), "is not a directory");
    // A directory still to be made, in another user's (only root can give a directory away,
    // so only then is it tried).
    let theirs = dir.join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    if std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).is_ok() {
        let socket = theirs.join("missing").join("s");
        refused_by_both(socket.to_str().unwrap(), "belongs to uid 65534");
    }
}

/// A malformed value and a value out of its range are the same mistake: exit 2, and a message
/// `bad value for FLAG: ...` that names what is valid, whichever command reads it.
#[test]
fn bad_values_exit_2_naming_the_valid_range() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let cases: &[(&[&str], &str)] = &[
        (&["resize", "sh", "0x0"], "COLS from 2 to 1000 and ROWS from 1 to 500"),
        (&["resize", "sh", "100000x5"], "COLS from 2 to 1000 and ROWS from 1 to 500"),
        (&["start", "--size", "1x1", "--", "true"], "COLS from 2 to 1000 and ROWS from 1 to 500"),
        (&["wait", "sh", "--wait-exit", "--timeout", "0"], "from 1 to 3600000"),
        (&["wait", "sh", "--wait-exit", "--timeout", "-1"], "from 1 to 3600000"),
        (&["wait", "sh", "--wait-exit", "--timeout", "3600001"], "from 1 to 3600000"),
        (&["exec", "sh", "true", "--timeout", "0"], "from 1 to 3600000"),
        (&["read", "sh", "--max-bytes", "0"], "from 256 to 1048576"),
        (&["read", "sh", "--max-bytes", "-1"], "from 256 to 1048576"),
        (&["wait", "sh", "--wait-quiet", "99999999999999999999"], "from 0 to 3600000"),
        (&["wait", "sh", "--wait-screen", "x", "--wait-row", "500"], "from 0 to 499"),
        (&["send", "sh", "--keys", "<Foo>"], "unknown key name \"Foo\""),
        (&["wait", "sh", "--wait-regex", "("], "bad regular expression"),
        (&["wait", "sh", "--wait-regex", "a*"], "can match the empty string"),
        (&["read", "sh", "--search", "("], "bad regular expression"),
        (&["wait", "sh", "--wait-cursor", "1"], "ROW,COL"),
        (&["read", "sh", "--lines", "abc"], "FIRST-LAST"),
        (&["read", "sh", "--lines", "160-120"], "FIRST <= LAST"),
        (&["wait", "sh", "--wait-cursor", "600,5"], "a row from 0 to 499"),
        (&["read", "sh", "--view", "foo"], "new, screen, scrollback"),
        (&["signal", "sh", "FOO"], "unknown signal \"FOO\""),
        (&["signal", "sh", "INT", "--target", "foo"], "foreground, session"),
        (&["run", "--keys", "<Foo>", "--", "true"], "unknown key name \"Foo\""),
        (&["run", "--wait-regex", "(", "--", "true"], "bad regular expression"),
        (&["run", "--wait-screen-regex", "^", "--", "true"], "can match the empty string"),
        (&["run", "--timeout", "0", "--", "true"], "from 1 to 86400000"),
        (&["run", "--size", "0x0", "--", "true"], "COLS from 2 to 1000 and ROWS from 1 to 500"),
    ];
    for (args, range) in cases {
        let output = if args[0] == "run" { termloom(args) } else { server.cli(args) };
        assert_code(&output, 2);
        let stderr = stderr(&output);
        assert!(stderr.starts_with("termloom: bad value for "), "{args:?}: {stderr}");
        assert!(stderr.contains(range), "{args:?}: {stderr}");
        assert!(!stderr.contains("invalid input"), "{args:?}: {stderr}");
    }
    // The bounds are the tools' own: the server would refuse what the command line lets by.
    let engine = termloom::Engine::new(termloom::Config::default()).unwrap();
    let tools = termloom::tools::Toolbox::new(engine);
    for (argument, value, range) in [
        ("timeout_ms", 3_600_001, "from 1 to 3600000"),
        ("quiet_ms", 3_600_001, "from 0 to 3600000"),
        ("max_bytes", 255, "from 256 to 1048576"),
        ("max_bytes", 1_048_577, "from 256 to 1048576"),
        ("screen_row", 500, "from 0 to 499"),
    ] {
        let arguments = serde_json::json!({ "session_id": 1, argument: value });
        let result = tools.call("terminal_read", &arguments);
        assert!(result.is_error && result.text.contains(range), "{argument}: {}", result.text);
    }
}

/// A command line the tool would refuse whatever the session is malformed, as a bad value
/// is: exit 2 with what to give instead, before anything is sent (the session is untouched).
#[test]
fn a_command_line_the_tool_would_refuse_exits_2() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let dir = tempdir();
    let empty = dir.join("empty");
    std::fs::write(&empty, "").unwrap();
    let empty = empty.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["send", "sh"], "needs something to send: --text, --keys, --paste, --paste-file or"),
        (&["send", "sh", "--wait-exit"], "needs something to send"),
        (&["send", "sh", "--text", ""], "bad value for --text: it is empty"),
        (&["send", "sh", "--keys", ""], "bad value for --keys: it is empty"),
        (&["send", "sh", "--paste-file", empty], "is empty; there is nothing to paste"),
        (&["wait", "sh", "--wait-text="], "bad value for --wait-text: it is empty"),
        (&["read", "sh", "--find", ""], "bad value for --find: it is empty"),
        (&["wait", "sh", "--wait-row", "3"], "give one of them too"),
        (&["read", "sh", "--timeout", "500"], "--timeout bounds a wait: give a condition"),
        (&["exec", "sh", ""], "CMD is empty"),
        (&["exec", "sh", "echo a\necho b"], "CMD must be one line"),
        (&["exec", "sh", "echo a\recho b"], "CMD must be one line"),
        (&["start", "--command", ""], "bad value for --command: it is empty"),
        (&["start", "--name", "", "--", "true"], "bad value for --name: it is empty"),
        (&["start", "--name", "12", "--", "true"], "invalid session name \"12\""),
        (&["start", "--name", "a b", "--", "true"], "not starting with a digit"),
        (&["start", "--name=-x", "--", "true"], "invalid session name \"-x\""),
        (&["read", "a b"], "bad value for ID: invalid session name \"a b\""),
        (&["send", "é", "--text", "x"], "bad value for ID: invalid session name \"é\""),
        (&["close", "99999999999999999999999"], "not starting with a digit (an id)"),
        (&["read", "0"], "bad value for ID: session ids start at 1"),
        (&["attach", "0"], "bad value for ID: session ids start at 1"),
        (&["attach", "a b"], "bad value for ID: invalid session name \"a b\""),
        (&["start", "--env", "=x", "--", "true"], "--env \"=x\": give KEY=VALUE"),
        (&["start", "--command", "ls", "--", "true"], "give --command LINE or PROGRAM ARGS"),
        (&["start", "--shell-integration", "--command", "ls"], "give the shell as PROGRAM"),
    ];
    for (args, expected) in cases {
        let output = server.cli(args);
        assert_code(&output, 2);
        let stderr = stderr(&output);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.contains("for usage)"), "{args:?}: {stderr}");
    }
    // Nothing was started or typed.
    let list = server.ok(&["list"]);
    assert_eq!(list.lines().count(), 1, "{list}");
    assert!(!server.ok(&["read", "sh", "--view", "scrollback"]).contains("sh:"));
}

/// The mistakes a caller plausibly makes (the text to type given as an argument, a flag of
/// other tools, a condition without its `--wait-`, a command line in words) are told what
/// to give instead, exit 2, and nothing is typed.
#[test]
fn a_mistaken_command_line_says_what_to_give_instead() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let cases: &[(&[&str], &str)] = &[
        (&["send", "sh", "ls -l"], "to type 'ls -l', give --text 'ls -l' (and --submit"),
        (&["send", "sh", "ls -l", "--submit"], "to type 'ls -l', give --text 'ls -l'"),
        (&["send", "sh", "ls", "-l", "/tmp"], "to type 'ls -l /tmp', give --text 'ls -l /tmp'"),
        (&["send", "sh", "--text", "ls", "--enter"], "to press Enter, give --submit"),
        (&["wait", "sh", "--text", "x"], "does not take --text; give --wait-text: text in"),
        (&["read", "sh", "--prompt"], "give --wait-prompt: the shell back at its prompt"),
        (&["wait", "sh", "--keys", "x"], "`termloom wait` types nothing: type with termloom send"),
        (&["read", "--session", "sh"], "the session is the first argument: termloom read ID"),
        (&["read", "sh", "--timeout-ms", "500"], "give --timeout: longest wait in ms"),
        (&["send", "sh", "--key", "x"], "give --keys: text and <Enter>"),
        (
            &["exec", "sh", "ls", "-la", "/tmp"],
            "quote the whole command line, termloom exec sh 'ls -la /tmp'",
        ),
        (&["exec", "sh", "ls", "/"], "termloom exec sh 'ls /'"),
        (&["exec", "sh"], "takes ID CMD; CMD is missing: the command line to run"),
        (&["read"], "takes ID; ID is missing: the session's id or name"),
        (&["read", "sh", "x"], "takes ID alone; x is one argument too many"),
        (&["signal", "sh"], "SIGNAL is missing"),
        (&["list", "x"], "`termloom list` takes no argument"),
    ];
    for (args, expected) in cases {
        let output = server.cli(args);
        assert_code(&output, 2);
        let stderr = stderr(&output);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    // A flag nothing plausibly means still lists the command's flags.
    let output = server.cli(&["wait", "sh", "--bogus"]);
    assert!(stderr(&output).contains("its flags are: --wait-text, --wait-regex"), "{output:?}");
    let list = server.ok(&["list"]);
    assert_eq!(list.lines().count(), 1, "{list}");
    assert!(!server.ok(&["read", "sh", "--view", "scrollback"]).contains("ls"));
}

/// A flag given before the command is answered with the command line to give, the command
/// first (the options every command takes may stand before it).
#[test]
fn a_flag_before_the_command_is_given_back_after_it() {
    let output = termloom(&["--text", "ls -l", "send", "g", "--submit"]);
    assert_code(&output, 2);
    let expected = "\"--text\" stands before the command; flags follow it: termloom send g \
                    --submit --text 'ls -l'";
    assert!(stderr(&output).contains(expected), "{}", stderr(&output));
    let output = termloom(&["-L", "x", "--timeout", "100", "read", "g", "--wait-prompt"]);
    assert_code(&output, 2);
    let expected = "termloom read g --wait-prompt -L x --timeout 100";
    assert!(stderr(&output).contains(expected), "{}", stderr(&output));
    let output = termloom(&["--bogus"]);
    assert!(stderr(&output).contains("unknown command \"--bogus\""), "{}", stderr(&output));
}

/// A misspelt command or flag (a letter off, two swapped) is told the one it misspells, not
/// every name there is, before anything reaches a server; a word near none still gets the
/// list, and a flag of one or two letters no guess.
#[test]
fn a_misspelt_command_or_flag_is_told_the_one_meant() {
    let cases: &[(&[&str], &str)] = &[
        (&["strat"], "unknown command \"strat\"; did you mean `termloom start`?"),
        (&["sned", "g", "--text", "x"], "did you mean `termloom send`?"),
        (&["start", "--nmae", "ed"], "does not take --nmae; give --name: a name to use"),
        (&["start", "--siez", "80x24"], "does not take --siez; give --size (run"),
        (&["send", "g", "--tetx", "ls"], "does not take --tetx; give --text: typed as it is"),
        (&["wait", "g", "--wait-promt"], "give --wait-prompt: the shell back at its prompt"),
        (&["read", "g", "--serach", "x"], "give --search: the transcript lines a regex matches"),
        (&["run", "--sumbit", "ls", "--", "bash"], "\"--sumbit\"; did you mean --submit?"),
        (&["run", "--wait-exti", "--", "true"], "did you mean --wait-exit?"),
    ];
    for (args, expected) in cases {
        let err = refused(args);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("its flags are"), "{args:?}: {err}");
    }
    let err = refused(&["frobnicate"]);
    assert!(!err.contains("did you mean"), "{err}");
    let err = refused(&["send", "g", "-x"]);
    assert!(err.contains("its flags are: --text"), "{err}");
}

/// A command named as tmux names it (`send-keys`, `capture-pane`, `kill-session`), or by a
/// verb an agent guesses (`kill`, `new`), is told termloom's command for it, before anything
/// reaches a server: `kill` (one session) is told `close`, never taken for an abbreviation of
/// `kill-server`, which ends every session.
#[test]
fn another_tools_command_names_are_told_termlooms() {
    let cases: &[(&[&str], &str)] = &[
        (&["kill", "sh"], "unknown command \"kill\"; `termloom close ID` ends one session"),
        (&["kill-session", "-t", "sh"], "`termloom close ID` ends one session"),
        (&["new-session", "-s", "x"], "`termloom start` starts a session"),
        (&["send-keys", "-t", "sh", "ls", "Enter"], "`termloom send ID --keys KEYS`"),
        (&["capture-pane", "-p"], "`termloom screen ID` shows the screen"),
        (&["ls"], "`termloom list` lists the sessions"),
        (&["press", "sh", "<Enter>"], "`termloom send ID --keys KEYS`"),
    ];
    for (args, expected) in cases {
        let err = refused(args);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("did you mean `termloom kill-server`"), "{args:?}: {err}");
    }
}

/// A near-spelling of `kill` (`kil`, `kills`, `kill-se`, `kll`) is told `close`, as `kill`
/// is, never only `kill-server` (which `kill-se` abbreviates, and which ends every session).
#[test]
fn a_near_spelling_of_kill_is_told_close() {
    for word in ["kil", "kills", "kill-s", "kill-se", "kll", "kill-sesion"] {
        let err = refused(&[word, "sh"]);
        assert!(err.contains("`termloom close ID` ends one session"), "{word}: {err}");
        assert!(!err.contains("did you mean `termloom kill-server`"), "{word}: {err}");
    }
    // A misspelling of termloom's own command is still told it.
    assert!(refused(&["sned", "sh"]).contains("did you mean `termloom send`?"));
}

/// `kill -INT py` (a signal, not an end) is told `termloom signal`, first; a `kill` of a
/// session names `signal` too, after `close`.
#[test]
fn a_kill_with_a_signal_is_told_signal_first() {
    for args in [&["kill", "-INT", "py"][..], &["kill", "-9", "py"], &["kill", "-s", "TERM", "py"]]
    {
        let err = refused(args);
        let told =
            "unknown command \"kill\"; `termloom signal ID SIGNAL` sends its program a signal";
        assert!(err.contains(told), "{args:?}: {err}");
        assert!(err.contains("`termloom close ID` ends one session"), "{args:?}: {err}");
    }
    let err = refused(&["kill", "py"]);
    assert!(err.contains("unknown command \"kill\"; `termloom close ID`"), "{err}");
    assert!(err.contains("`termloom signal ID SIGNAL`"), "{err}");
}

/// `termloom help kill` (another tool's name for a command) is told termloom's command, as
/// `termloom kill` is.
#[test]
fn help_on_another_tools_name_tells_termlooms() {
    for (topic, told) in
        [("kill", "`termloom close ID`"), ("send-keys", "`termloom send ID --keys")]
    {
        let err = refused(&["help", topic]);
        assert!(err.contains(&format!("no help on \"{topic}\"; {told}")), "{err}");
    }
}

/// A duration given with a unit to a flag in milliseconds (`--timeout 5s`), or as a fraction
/// (`1.5`, seconds), is refused with the number of milliseconds to give, by the session
/// commands and by `run` alike; other numbers, and a value no unit explains, get the range
/// alone.
#[test]
fn a_duration_with_a_unit_is_told_its_milliseconds() {
    let cases: &[(&[&str], &str)] = &[
        (&["wait", "g", "--wait-text", "x", "--timeout", "5s"], "for 5 s, give 5000"),
        (&["wait", "g", "--wait-quiet", "1.5s"], "for 1.5 s, give 1500"),
        (&["send", "g", "--submit", "--wait-stable", "300ms"], "for 300 ms, give 300"),
        (&["exec", "g", "make", "--timeout", "2min"], "for 2 min, give 120000"),
        (&["run", "--timeout", "10s", "--", "true"], "for 10 s, give 10000"),
        (&["run", "--wait-quiet", "2s", "--", "true"], "for 2 s, give 2000"),
        // A fraction without a unit, which no number of milliseconds is, reads as seconds.
        (&["wait", "g", "--wait-text", "x", "--timeout", "1.5"], "for 1.5 s, give 1500"),
        (&["run", "--timeout", "0.5", "--", "true"], "for 0.5 s, give 500"),
    ];
    for (args, expected) in cases {
        let err = refused(args);
        assert!(err.contains(": it is in milliseconds; "), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    for args in [
        &["read", "g", "--max-bytes", "5s"][..],
        &["wait", "g", "--wait-text", "x", "--timeout", "2h"],
        &["wait", "g", "--wait-text", "x", "--timeout", "soon"],
    ] {
        let err = refused(args);
        assert!(!err.contains("milliseconds"), "{args:?}: {err}");
    }
}

/// Key names without their angle brackets (`--keys C-c`, `--keys Enter`: tmux's `send-keys`
/// notation) would type their letters into the program: they are refused before anything is
/// typed, with the script to give (`'<C-c>'`) and the flag that types the letters.
#[test]
fn key_names_without_brackets_are_refused_with_the_script_to_give() {
    let cases: &[(&[&str], &str)] = &[
        (&["send", "g", "--keys", "C-c"], "key names go in angle brackets, '<C-c>'"),
        (&["send", "g", "--keys", "Enter"], "(to type the letters, give --text Enter)"),
        (&["send", "g", "--keys", "Up Up Enter"], "'<Up><Up><Enter>'"),
        (
            &["run", "--keys", "Escape", "--", "true"],
            "'<Escape>' (to type the letters, give --send",
        ),
    ];
    for (args, expected) in cases {
        let err = refused(args);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    let output = termloom(&["--json", "send", "g", "--keys", "C-c"]);
    assert_eq!(json(&output)["error"]["code"], "usage", "{output:?}");
}

/// The notes under a result's first line are in `--json`'s result too, as `notes`: a
/// caller reading JSON never saw them.
#[test]
fn json_results_have_the_notes_the_text_has() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let typed = json(&server.cli(&["--json", "send", "sh", "--text", r"echo one\n"]));
    let notes = typed["notes"].as_array().expect("notes");
    assert!(notes[0].as_str().unwrap().starts_with("--text is typed as it is: the \\n"), "{typed}");
    server.ok(&["send", "sh", "--keys", "<C-u>"]);
    let output = server.cli(&["--json", "wait", "sh", "--wait-text", "never", "--timeout", "8"]);
    assert_code(&output, 124);
    let waited = json(&output);
    let note =
        "--timeout is in milliseconds: --timeout 8 waited 8 ms; for 8 s, give --timeout 8000";
    assert_eq!(waited["notes"], serde_json::json!([note]), "{waited}");
}

/// termloom's screens mark highlighted text `⟦like this⟧` and the cursor `▌`; an agent that
/// copies a row it was shown into a wait waits for marks no program printed: the timeout
/// says what they are, so it waits again for the text alone (which then holds at once).
#[test]
fn a_wait_for_termlooms_own_marks_is_told_they_are_not_on_the_screen() {
    let server = PrivateServer::start();
    let program = "printf '\\033[7mMain\\033[0m menu\\n'; exec sleep 60";
    server.ok(&["start", "--name", "hl", "--", "sh", "-c", program]);
    server.ok(&["wait", "hl", "--wait-screen", "Main menu"]);
    let shown = server.ok(&["screen", "hl"]);
    assert!(shown.contains("⟦Main⟧ menu"), "{shown}");
    let output = server.cli(&["wait", "hl", "--wait-screen", "⟦Main⟧ menu", "--timeout", "300"]);
    assert_code(&output, 124);
    let note = "⟦ ⟧ and ▌ are termloom's marks (highlights, the cursor)";
    assert!(stdout(&output).contains(note), "{}", stdout(&output));
    let output = server.cli(&["wait", "hl", "--wait-screen", "Main menu", "--timeout", "300"]);
    assert_code(&output, 0);
    assert!(!stdout(&output).contains(note), "{}", stdout(&output));
    server.ok(&["close", "hl"]);
    // (`▌` is also put before the character the cursor is on, in new output.)
    let help = stdout(&termloom(&["help", "screen"]));
    assert!(help.contains("before the character it is on"), "{help}");
}

/// A wait for termloom's marks that the program's question ends (`>>> ▌` copied from a
/// screen, exit 3: "the program asks for input first") says they are marks, as a timeout
/// does: without it, the agent was told to type. With `--json`, the note is among `notes`.
#[test]
fn a_wait_for_marks_cut_short_by_a_question_is_told_they_are_marks() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "asks", "--", "sh", "-c", "printf '>>> '; read x; sleep 60"]);
    server.ok(&["wait", "asks", "--wait-input"]);
    let note = "⟦ ⟧ and ▌ are termloom's marks (highlights, the cursor)";
    let output = server.cli(&["wait", "asks", "--wait-screen", ">>> ▌", "--timeout", "10000"]);
    assert_code(&output, 3);
    let out = stdout(&output);
    assert!(out.contains("the program asks for input first"), "{out}");
    assert!(out.contains(note), "{out}");
    let waited = ["wait", "asks", "--wait-screen", ">>> ▌", "--timeout", "10000", "--json"];
    let result = json(&server.cli(&waited));
    let notes = result["notes"].as_array().cloned().unwrap_or_default();
    assert!(notes.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with(note))), "{result}");
    assert_eq!(result["wait"]["termloom_marks"], true, "{result}");
    server.ok(&["close", "asks"]);
}

/// A program that prints `▌` or `⟦` itself (a progress bar) is waited for as for any text:
/// a wait for them that times out is not told they are termloom's marks.
#[test]
fn a_wait_for_marks_the_program_printed_is_not_told_they_are_termlooms() {
    let server = PrivateServer::start();
    let program = "printf 'loading \\342\\226\\214\\342\\226\\214 40%%\\n[\\342\\237\\246] start\\n'; exec sleep 60";
    server.ok(&["start", "--name", "bar", "--", "sh", "-c", program]);
    server.ok(&["wait", "bar", "--wait-screen", "[⟦] start"]);
    let note = "termloom's marks";
    for wait in [
        ["--wait-screen", "▌▌▌ 50%"],
        ["--wait-screen-regex", "▌+ 50%"],
        ["--wait-text", "[⟦] done"],
    ] {
        let output = server.cli(&["wait", "bar", wait[0], wait[1], "--timeout", "300"]);
        assert_code(&output, 124);
        assert!(!stdout(&output).contains(note), "{wait:?}: {}", stdout(&output));
    }
    // A mark it did not print still is one.
    let output = server.cli(&["wait", "bar", "--wait-screen", "[⟦] start⟧", "--timeout", "300"]);
    assert_code(&output, 124);
    assert!(stdout(&output).contains(note), "{}", stdout(&output));
    server.ok(&["close", "bar"]);
}

/// A flag given as the command is told the command that takes it (`termloom --server` is
/// `termloom mcp --server`, not `termloom server`), or the commands, when several do.
#[test]
fn a_flag_given_as_the_command_is_told_the_command_that_takes_it() {
    let err = refused(&["--server"]);
    assert!(
        err.contains("\"--server\" is a flag, not a command; did you mean termloom mcp --server?"),
        "{err}"
    );
    assert!(!err.contains("`termloom server`"), "{err}");
    let err = refused(&["--server", "-L", "work"]);
    assert!(err.contains("did you mean termloom mcp --server -L work?"), "{err}");
    assert!(refused(&["--detach"]).contains("did you mean termloom server --detach?"));
    let err = refused(&["--keys", "x"]);
    assert!(err.contains("the commands that take it are run and send: give one first"), "{err}");
    // Review vg: a flag with its value, and the words before the flag, which the command
    // named does not take (an option every session command takes names none of them).
    assert!(refused(&["--server=x"]).contains("did you mean termloom mcp --server=x?"));
    // (Asked for JSON, the refusal comes as JSON on stdout.)
    let refused_as_json = |args: &[&str]| {
        let output = termloom(args);
        assert_code(&output, 2);
        json(&output)["error"]["message"].as_str().unwrap_or_default().to_owned()
    };
    let err = refused_as_json(&["--json", "--server"]);
    assert!(err.contains("did you mean termloom mcp --server?"), "{err}");
    let err = refused_as_json(&["--json"]);
    assert!(err.contains("unknown command") && !err.contains("did you mean"), "{err}");
}

/// `mcp`, `server` and `attach` read their flags a word at a time, and list their own by hand
/// (`VALUE_FLAGS`, `SWITCHES`) for `--flag=VALUE` and for a flag given as the command: of
/// every `--flag` a command's help names, those its parser takes are listed and those it
/// refuses are not (listed, `termloom --flag` is told the command), and a listed flag's
/// value is taken inline too. (`bin_cli::tests::listed_flags_are_named_in_their_help`
/// checks that no listed flag is missing from the help.)
#[test]
fn the_flags_mcp_server_and_attach_list_are_the_ones_their_parsers_take() {
    const NOT_A_FLAG: &str = "--not-a-flag";
    // Refused for NOT_A_FLAG, after it: the words before it were taken.
    let takes = |args: &[&str]| {
        let mut args = args.to_vec();
        args.push(NOT_A_FLAG);
        refused(&args).contains(&format!("argument {NOT_A_FLAG:?}"))
    };
    for command in ["mcp", "server", "attach"] {
        let help = stdout(&termloom(&["help", command]));
        let words: Vec<&str> = help.split_whitespace().collect();
        let mut taken = Vec::new();
        for (at, word) in words.iter().enumerate() {
            let flag = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
            if !flag.starts_with("--") || ["--help", "--socket"].contains(&flag) {
                continue;
            }
            // A value's placeholder in capitals follows the flag somewhere in the help.
            let value = words.iter().zip(&words[1..]).any(|(w, next)| {
                let placeholder = next.split(|c: char| !c.is_ascii_alphabetic()).next();
                *w == flag && placeholder.is_some_and(|p| !p.is_empty() && p == p.to_uppercase())
            });
            let accepted = match value {
                true => takes(&[command, flag, "1"]),
                false => takes(&[command, flag]),
            };
            let err = refused(&[flag]);
            let named = err.split_once("is a flag, not a command").is_some_and(|(_, told)| {
                told.split(|c: char| !c.is_ascii_alphanumeric() && c != '-').any(|w| w == command)
            });
            assert_eq!(
                accepted, named,
                "`termloom {command}` takes {flag} (value: {value}): {accepted}; listed: {named} \
                 (`termloom {flag}`: {err}); word {at} of its help"
            );
            if accepted && value {
                let inline = format!("{flag}=1");
                assert!(takes(&[command, &inline]), "`termloom {command} {inline}` refused");
            }
            if accepted && !taken.contains(&flag) {
                taken.push(flag);
            }
        }
        let expected: &[&str] = match command {
            "mcp" => &["--config", "--policy", "--server"],
            "server" => &["--idle-exit", "--max-clients", "--detach"],
            _ => &["--takeover", "--no-status"],
        };
        // (So that a help read wrongly does not pass for want of flags.)
        for flag in expected {
            assert!(taken.contains(flag), "{command}: {flag} not found in its help: {taken:?}");
        }
    }
}

/// A `--text` ending in `\n` written out (`echo hi\n`, as `run --send` and the MCP tools
/// take it) is typed as it is, not as Enter: the result says so, under its first line, and
/// how to press Enter; a text ending in a real line break, or in `\\n`, gets no such note.
#[test]
fn a_text_ending_in_an_escape_written_out_is_told_it_was_not_enter() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let note = "[--text is typed as it is: the \\n it ends with was typed as those characters, \
                not as Enter; --submit presses Enter";
    let typed = server.ok(&["send", "sh", "--text", r"echo one\n"]);
    assert!(typed.lines().nth(1).is_some_and(|line| line.starts_with(note)), "{typed}");
    server.ok(&["send", "sh", "--keys", "<C-u>"]);
    let submitted = server.ok(&["send", "sh", "--text", r"echo two\r\n", "--submit"]);
    assert!(submitted.contains("the \\r\\n it ends with was typed as those"), "{submitted}");
    // A real line break, or a backslash written out before the `n` (an even run before it).
    for text in ["echo three\n", r"printf x\\n", r"printf x\\\\n"] {
        server.ok(&["send", "sh", "--keys", "<C-u>"]);
        let output = server.ok(&["send", "sh", "--text", text]);
        assert!(!output.contains("typed as it is"), "{text:?}: {output}");
    }
    server.ok(&["send", "sh", "--keys", "<C-u>"]);
    let odd = server.ok(&["send", "sh", "--text", r"printf x\\\n"]);
    assert!(odd.contains("the \\n it ends with was typed as those"), "{odd}");
}

/// A `--keys` ending in a key name written out after text (`echo one Enter`, tmux's
/// notation) is typed as before, its letters, and told so once, under the result's first
/// line, in the tool's words with the key bracketed (the tool's own line is moved there), and
/// in `--json`'s `notes`; `run --keys` says it on stderr. Words that read as text (`echo Foo
/// Bar`) are told nothing, nor `Enter` with `--submit`; other keys with it are.
#[test]
fn a_key_name_written_out_at_the_end_of_keys_is_told() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let typed = server.ok(&["send", "sh", "--keys", "echo one Enter"]);
    let note = "[--keys typed its last word, Enter, as text; <Enter> presses the key]";
    assert_eq!(typed.lines().nth(1), Some(note), "{typed}");
    assert_eq!(typed.matches("its last word").count(), 1, "{typed}");
    let screen = server.ok(&["screen", "sh"]);
    assert!(screen.contains("echo one Enter"), "the letters are typed: {screen}");
    server.ok(&["send", "sh", "--keys", "<C-u>"]);
    let typed = json(&server.cli(&["--json", "send", "sh", "--keys", "sleep 9 C-c"]));
    let said = "--keys typed its last word, C-c, as text; <C-c> presses the key";
    assert_eq!(typed["notes"], serde_json::json!([said]), "{typed}");
    server.ok(&["send", "sh", "--keys", "<C-u>"]);
    // Modifiers in any order, as the keys' parser takes them (only C-, M-, S- were told).
    let typed = json(&server.cli(&["--json", "send", "sh", "--keys", "sleep 9 M-C-c"]));
    let said = "--keys typed its last word, M-C-c, as text; <M-C-c> presses the key";
    assert_eq!(typed["notes"], serde_json::json!([said]), "{typed}");
    server.ok(&["send", "sh", "--keys", "<C-u>"]);
    let text = server.ok(&["send", "sh", "--keys", "echo Foo Bar"]);
    assert!(!text.contains("its last word"), "{text}");
    // With --submit, Enter was pressed after it: no key to tell (review vm).
    let text = server.ok(&["send", "sh", "--keys", " two Enter", "--submit"]);
    assert!(!text.contains("its last word"), "{text}");
    // --submit presses Enter, not Tab: `<Tab>` before it was still meant (it hid every key),
    // as the tool says, once.
    let text = server.ok(&["send", "sh", "--keys", "echo three Tab", "--submit"]);
    let note = "[--keys typed its last word, Tab, as text; <Tab> presses the key]";
    assert_eq!(text.lines().nth(1), Some(note), "{text}");
    assert_eq!(text.matches("its last word").count(), 1, "{text}");
    // `C-m` types Enter's carriage return: told with --submit, it was submitted twice
    // (review vp).
    let text = server.ok(&["send", "sh", "--keys", "echo four C-m", "--submit"]);
    assert!(!text.contains("its last word"), "{text}");
    // The note is worked out from the call, not looked for in the result: a program's line
    // that reads like it is left where it is and told nothing of, though its row holds the
    // cursor mark (review vp: it was taken for the tool's and moved among the notes).
    let line = "[keys typed its last word, X, as text; <X> presses the key]";
    let printing = format!("printf '{line}\\nprompt> after\\033[6D'; read x");
    let text = server.ok(&["send", "sh", "--text", &printing, "--keys", "<Enter>"]);
    assert!(text.contains(line) && !text.contains("[--keys"), "{text}");
    server.ok(&["send", "sh", "--keys", "<Enter>"]);
    let typed =
        json(&server.cli(&["--json", "send", "sh", "--text", &printing, "--keys", "<Enter>"]));
    assert_eq!(typed.get("notes"), None, "{typed}");
    server.ok(&["send", "sh", "--keys", "<Enter>"]);
    let args = ["run", "--timeout", LONG_MS, "--keys", "ab Enter", "--wait-text", "ab Enter"];
    let output = termloom(&[&args[..], &["--", "cat"]].concat());
    assert_code(&output, 0);
    let said = "step 1: --keys typed its last word, Enter, as text; <Enter> presses the key";
    assert!(stderr(&output).contains(said), "{}", stderr(&output));
}

/// `read --lines` and `read --search` with `--json` give the lines themselves, numbered, as
/// the text does (`[[1, "one"]]`), not only which numbers they had; `--lines N` is line N
/// alone.
#[test]
fn a_json_look_up_gives_its_lines() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "p", "--wait-exit", "--", "printf", r"zero\none\ntwo\n"]);
    let lines = json(&server.cli(&["--json", "read", "p", "--lines", "1-2"]));
    assert_eq!(lines["lines"], serde_json::json!([[1, "one"], [2, "two"]]), "{lines}");
    let one = json(&server.cli(&["--json", "read", "p", "--lines", "1"]));
    assert_eq!(one["lines"], serde_json::json!([[1, "one"]]), "{one}");
    assert!(server.ok(&["read", "p", "--lines", "2"]).ends_with("\n2│two\n"));
    let found = json(&server.cli(&["--json", "read", "p", "--search", "^t"]));
    assert_eq!(found["lines"], serde_json::json!([[2, "two"]]), "{found}");
    assert_eq!(found["matches"], 1, "{found}");
}

/// `read --lines N` past the end says "line N", as it was asked: it said "lines 7-7".
#[test]
fn a_single_line_past_the_end_is_said_as_one_line() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "p", "--wait-exit", "--", "printf", r"zero\none\n"]);
    let output = server.cli(&["read", "p", "--lines", "7"]);
    assert_code(&output, 1);
    let said = stderr(&output);
    assert!(said.contains("line 7: the transcript holds lines 0-"), "{said}");
    assert!(!said.contains("7-7"), "{said}");
}

/// The note on output cut by `--max-bytes` is a command line to run, naming the session as
/// the command did: it said "call termloom read 1 --view=..." of a session named `p`.
#[test]
fn the_note_on_cut_output_is_a_command_line_naming_the_session_as_given() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "p", "--wait-exit", "--", "seq", "1", "3000"]);
    let socket = server.socket.display();
    for (session, other) in [("p", " 1 "), ("1", " p ")] {
        let said = server.ok(&["read", session, "--view", "scrollback", "--max-bytes", "300"]);
        let note = said.lines().find(|line| line.starts_with("[...")).expect(&said);
        let command =
            format!("; to see them, run termloom read --socket {socket} {session} --view=");
        assert!(note.contains(&command), "{note}");
        assert!(!note.contains("call ") && !note.contains(other), "{note}");
    }
}

/// A command line asking for `--json` gets its failure as JSON even when the command could
/// not be told (a flag before it, an unknown command): one line on stdout, exit 2.
#[test]
fn json_is_given_for_a_command_that_could_not_be_told() {
    for args in [&["--json", "--text", "x", "send", "g"][..], &["--json", "bogus"]] {
        let output = termloom(args);
        assert_code(&output, 2);
        assert_eq!(stderr(&output), "", "{args:?}");
        let error = &json(&output)["error"];
        assert_eq!((&error["kind"], &error["code"]), (&"usage".into(), &"usage".into()));
        assert!(error["message"].as_str().unwrap().contains("(run `termloom --help`"), "{error}");
    }
}

/// A `--timeout` that reads like seconds and timed out says it was milliseconds, and what to
/// give for that many seconds; one of a second or more says nothing of it. The note that the
/// command still runs names the session as the command was given it (it said "in session 1"
/// of the session named `sh`, and `termloom read sh` after it).
#[test]
fn a_timeout_in_seconds_is_told_it_was_milliseconds() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let output = server.cli(&["exec", "sh", "sleep 30", "--timeout", "8"]);
    assert_code(&output, 124);
    let said = stdout(&output);
    assert!(said.contains("in session sh: follow it with termloom read"), "{said}");
    assert!(!said.contains("session 1"), "{said}");
    let note =
        "[--timeout is in milliseconds: --timeout 8 waited 8 ms; for 8 s, give --timeout 8000]";
    assert!(stdout(&output).contains(note), "{}", stdout(&output));
    // (`sleep 30` still runs: the waits cannot end at the prompt.)
    let output = server.cli(&["wait", "sh", "--wait-text", "never", "--timeout", "8"]);
    assert_code(&output, 124);
    assert_eq!(stdout(&output).lines().nth(1), Some(note), "{}", stdout(&output));
    let output = server.cli(&["wait", "sh", "--wait-text", "never", "--timeout", "1000"]);
    assert_code(&output, 124);
    assert!(!stdout(&output).contains("in milliseconds"), "{}", stdout(&output));
}

/// A command whose `exec` timed out ends later, its last lines and exit code printed after
/// that result; the next `exec` moves the read position past them with its own output, and
/// says so: which lines, how the command ended, and the read that shows them (they were
/// skipped without a word: a build's errors, printed after its exec timed out, were never
/// seen). An `exec` after everything was read says nothing of it.
#[test]
fn exec_names_the_unread_end_of_the_command_before() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let build = "printf 'compiling\\n'; read -t 30 go; echo 'error: build failed'; (exit 101)";
    let output = server.cli(&["exec", "sh", build, "--timeout", "1000"]);
    assert_code(&output, 3);
    // The build ends once answered; another client's wait sees its prompt (this client's
    // position stays where the timed-out exec left it).
    server.ok(&[
        "send",
        "sh",
        "--client",
        "other",
        "--submit",
        "--wait-prompt",
        "--timeout",
        LONG_MS,
    ]);
    let output = server.ok(&["exec", "sh", "echo next"]);
    let note = output.lines().next().unwrap_or_default();
    assert!(note.starts_with("[unread output from before this command"), "{output}");
    assert!(note.contains("(the command before ended with exit code 101)"), "{output}");
    let lines = note.split(" sh --lines=\"").nth(1).and_then(|l| l.split('"').next());
    let lines = lines.unwrap_or_else(|| panic!("no read named: {output}"));
    let read = server.ok(&["read", "sh", "--lines", lines]);
    assert!(read.contains("error: build failed"), "{lines}: {read}");
    assert!(output.contains("\nnext\n[exit code 0"), "{output}");
    let output = server.ok(&["exec", "sh", "echo again"]);
    assert!(!output.contains("unread"), "{output}");
}

/// Runs `command` with `exec` in session `sh` until it waits for a line (`read -t 30 go`,
/// the result given then), answers it from another client, whose wait sees the prompt come
/// back (this client's position stays where the exec left it), and returns what the next
/// `exec` of this client (`echo next`) prints.
fn exec_after_a_returned_exec(server: &PrivateServer, command: &str) -> String {
    let output = server.cli(&["exec", "sh", command, "--timeout", LONG_MS]);
    assert_code(&output, 3);
    let answer = ["send", "sh", "--client", "other", "--submit", "--wait-prompt"];
    server.ok(&[&answer[..], &["--timeout", LONG_MS]].concat());
    let output = server.ok(&["exec", "sh", "echo next"]);
    assert!(output.contains("\nnext\n[exit code 0"), "{output}");
    output
}

/// The lines the note that starts `output` says to read, read.
fn read_named_lines(server: &PrivateServer, output: &str) -> String {
    let note = output.lines().next().unwrap_or_default();
    let lines = note.split(" sh --lines=\"").nth(1).and_then(|l| l.split('"').next());
    let lines = lines.unwrap_or_else(|| panic!("no read named: {output}"));
    server.ok(&["read", "sh", "--lines", lines])
}

/// A progress line the timed-out result gave (`Building 1/9`), rewritten after it with
/// `\r` (the error), is unread in its final form: named, as `read` returns it again (review
/// wd: it was taken as read, the error and exit code left out); so is text the command left
/// on the prompt's own row (`FAIL: no newline$ `).
#[test]
fn exec_names_a_line_rewritten_or_the_prompt_row_before_it() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let build = "printf 'Building 1/9'; read -t 30 go; printf '\\rerror: build failed\\033[K\\n'; (exit 101)";
    let output = exec_after_a_returned_exec(&server, build);
    assert!(output.starts_with("[unread output from before this command (the command before ended with exit code 101): line"), "{output}");
    let read = read_named_lines(&server, &output);
    assert!(read.contains("error: build failed"), "{read}");
    let output =
        exec_after_a_returned_exec(&server, "read -t 30 go; printf 'FAIL: no newline'; (exit 2)");
    assert!(output.starts_with("[unread output from before this command (the command before ended with exit code 2): line"), "{output}");
    let read = read_named_lines(&server, &output);
    assert!(read.contains("FAIL: no newline"), "{read}");
}

/// A command that ended with no output after its exec returned still has its exit code told
/// (review wd: `(exit 3)` after a timed-out exec was never reported); a two-line prompt's
/// first line, after its start mark, is no unread output.
#[test]
fn exec_tells_the_exit_code_of_the_command_before_without_output() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let output = exec_after_a_returned_exec(&server, "read -t 30 go; (exit 3)");
    assert!(
        output.starts_with("[the command before ended with exit code 3, after the last result]\n"),
        "{output}"
    );
    server.ok(&["exec", "sh", "PS1=\"[ctx \\W]\\n$PS1\""]);
    let output = exec_after_a_returned_exec(&server, "read -t 30 go; (exit 4)");
    assert!(
        output.starts_with("[the command before ended with exit code 4, after the last result]\n"),
        "{output}"
    );
    let output = server.ok(&["exec", "sh", "echo again"]);
    assert!(!output.contains("[the command before") && !output.contains("unread"), "{output}");
}

/// The exit code told is the one of the caller's own command that ended after its result,
/// not the shell's last, that of another client's command run after it (`true`'s 0 was told
/// for the caller's 7).
#[test]
fn exec_tells_the_code_of_its_own_command_not_another_clients_after_it() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let output = server.cli(&["exec", "sh", "read -t 30 go; (exit 7)", "--timeout", LONG_MS]);
    assert_code(&output, 3);
    let answer = ["send", "sh", "--client", "other", "--submit", "--wait-prompt"];
    server.ok(&[&answer[..], &["--timeout", LONG_MS]].concat());
    server.ok(&["exec", "sh", "--client", "other", "true"]);
    let output = server.ok(&["exec", "sh", "echo next"]);
    let note = output.lines().next().unwrap_or_default();
    assert!(note.contains("the command before ended with exit code 7"), "{output}");
}

/// A command that cleared or rewrote, after the timed-out result, the line that result ended
/// on has its exit code told: its output ends before the position the result left the
/// caller at, which was taken for its having been told (review wh).
#[test]
fn exec_tells_the_exit_code_of_a_command_that_cleared_its_last_line() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    // (The answer's echo ends the line `read` waits on: the command goes back up to it.)
    let cleared =
        "printf 'Working... 10%%'; read -t 30 go; printf '\\033[1A\\r\\033[2K'; (exit 18)";
    let output = exec_after_a_returned_exec(&server, cleared);
    assert!(
        output.starts_with("[the command before ended with exit code 18, after the last result]\n"),
        "{output}"
    );
    let rewritten = "printf 'line1\\nprog 10%%'; read -t 30 go; \
        printf '\\033[1A\\r\\033[2K\\033[1A\\033[2Kfinal\\n'; (exit 17)";
    let output = exec_after_a_returned_exec(&server, rewritten);
    let note = output.lines().next().unwrap_or_default();
    assert!(note.contains("ended with exit code 17"), "{output}");
}

/// Lines of the command before dropped from the bounded transcript before the caller read
/// them are said to be (review wd: the note named only the lines still kept).
#[test]
fn exec_says_unread_lines_before_it_were_dropped() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let flood = "read -t 30 go; seq 1 30000; echo flood-end; (exit 7)";
    let output = exec_after_a_returned_exec(&server, flood);
    let note = output.lines().next().unwrap_or_default();
    let said =
        "[unread output from before this command (the command before ended with exit code 7): ";
    assert!(note.starts_with(said), "{output}");
    let dropped = note[said.len()..].split(' ').next().and_then(|n| n.parse::<u64>().ok());
    assert!(dropped.is_some_and(|n| n > 10_000), "{output}");
    assert!(note.contains(" lines dropped from the transcript unread, then lines "), "{output}");
    // The last line named is the flood's last.
    let last = note.split("--lines=\"").nth(1).and_then(|l| l.split('"').next()?.split('-').nth(1));
    let last = last.unwrap_or_else(|| panic!("no range: {output}"));
    let read = server.ok(&["read", "sh", "--lines", &format!("{last}-{last}")]);
    assert!(read.contains("flood-end"), "{read}");
}

/// `$TERMLOOM_SOCKET` names the server a command reaches without `-L` or `--socket` (it was
/// ignored: the command reached the default server, and typed into its sessions); one that
/// cannot be a socket's path is refused, named.
#[test]
fn termloom_socket_names_the_server() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "here", "--", "sh"]);
    let with_variable = |value: &std::ffi::OsStr, args: &[&str]| {
        Command::new(TERMLOOM)
            .args(args)
            .env("TERMLOOM_SOCKET", value)
            .stdin(Stdio::null())
            .output()
            .expect("termloom runs")
    };
    let listed = with_variable(server.socket.as_os_str(), &["list"]);
    assert_code(&listed, 0);
    assert!(stdout(&listed).contains("\"here\""), "{}", stdout(&listed));
    let long = "/tmp/".to_owned() + &"s".repeat(200);
    let refused = with_variable(long.as_ref(), &["list"]);
    assert_code(&refused, 2);
    assert!(stderr(&refused).starts_with("termloom: $TERMLOOM_SOCKET: "), "{}", stderr(&refused));
    // `--socket` wins over it, bad or not.
    let socket = server.socket.to_str().unwrap();
    let listed = with_variable(long.as_ref(), &["list", "--socket", socket]);
    assert_code(&listed, 0);
    let read = with_variable("/nonexistent/s".as_ref(), &["read", "here", "--socket", socket]);
    assert_code(&read, 0);
}

/// A closed session's name names it until a start takes the name: closing it twice by name
/// says "already closed" (it said "no session is named", exit 1), and a read shows its end.
#[test]
fn a_closed_sessions_name_names_it_until_taken() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "e", "--", "sh", "-c", "echo bye; exec sleep 60"]);
    assert!(server.ok(&["close", "e"]).starts_with("[closed · "));
    let again = server.ok(&["close", "e"]);
    assert!(again.starts_with("[closed · already closed"), "{again}");
    let typed = server.cli(&["send", "e", "--text", "x"]);
    assert_code(&typed, 1);
    // Named as the command was given it.
    assert!(stderr(&typed).contains("session e is closed"), "{}", stderr(&typed));
    // A start takes the name: it names the new session.
    server.ok(&["start", "--name", "e", "--", "sh"]);
    let closed = json(&server.cli(&["close", "e", "--json"]));
    assert_eq!(closed["session_id"], 2, "{closed}");
}

/// A closed session is listed with its name while the name names it, as an exited one is, and
/// without it once a start took the name: the list showed no name on a closed session (`session
/// 1 · closed`), though `close e` and `read e` still reached it by that name.
#[test]
fn a_closed_session_is_listed_with_its_name_until_a_start_takes_it() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "e", "--", "sh", "-c", "echo bye; exec sleep 60"]);
    server.ok(&["start", "--name", "x", "--wait-exit", "--", "sh", "-c", "exit 0"]);
    server.ok(&["close", "e"]);
    let line = |list: &str, id: u64| {
        let named = format!("session {id} ");
        let line = list.lines().find(|line| line.starts_with(&named));
        line.unwrap_or_else(|| panic!("{list}")).to_owned()
    };
    let listed_name = |id: u64| {
        let listed = json(&server.cli(&["list", "--json"]));
        let sessions = listed["sessions"].as_array().unwrap().clone();
        sessions.into_iter().find(|s| s["session_id"] == id).unwrap()["name"].clone()
    };
    let list = server.ok(&["list"]);
    assert!(line(&list, 1).starts_with("session 1 \"e\" · closed"), "{list}");
    assert!(line(&list, 2).starts_with("session 2 \"x\" · exited"), "{list}");
    assert_eq!(listed_name(1), "e");
    // A start takes the name: the session that had it is listed without.
    server.ok(&["start", "--name", "e", "--", "sh"]);
    let list = server.ok(&["list"]);
    assert!(line(&list, 1).starts_with("session 1 · closed"), "{list}");
    assert!(line(&list, 3).starts_with("session 3 \"e\" · "), "{list}");
    assert_eq!(listed_name(1), Value::Null);
    assert_eq!(listed_name(3), "e");
}

/// `attach` to no such session says so before it touches the terminal, in the other
/// commands' words: it switched to the alternate screen and back, then said "there is no
/// session".
#[test]
fn attach_to_no_such_session_leaves_the_terminal_alone() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let dir = tempdir();
    let cast = dir.join("attach.cast");
    let socket = server.socket.to_str().unwrap();
    let attach = [TERMLOOM, "attach", "nosuch", "--socket", socket];
    let output = termloom(
        &[&["run", "--record", cast.to_str().unwrap(), "--wait-exit", "--"][..], &attach].concat(),
    );
    assert_code(&output, 1);
    let recorded = std::fs::read_to_string(&cast).unwrap();
    let printed: String = recorded
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event[1] == "o")
        .map(|event| event[2].as_str().unwrap().to_owned())
        .collect();
    assert!(!printed.contains("\x1b[?1049h"), "{printed:?}");
    assert!(printed.contains("no session is named \"nosuch\""), "{printed:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `attach 99` says of an id what the other commands say: it said "there is no session 99"
/// where `read 99` says "session 99 does not exist".
#[test]
fn attach_to_no_such_id_says_it_as_the_commands_do() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--", "sh"]);
    let read = stderr(&server.cli(&["read", "99"]));
    assert!(read.contains("session 99 does not exist"), "{read}");
    let socket = server.socket.to_str().unwrap();
    let attach = [TERMLOOM, "attach", "99", "--socket", socket];
    let output = termloom(&[&["run", "--wait-exit", "--"][..], &attach].concat());
    assert_code(&output, 1);
    let said = stdout(&output);
    assert!(said.contains("session 99 does not exist"), "{said:?}");
    assert!(!said.contains("there is no session"), "{said:?}");
}

/// tmux's `-S PATH` before the command is given back as a command line that runs: it said
/// `termloom attach s -S PATH`, which fails (no command takes `-S`).
#[test]
fn a_socket_flag_before_the_command_is_given_back_as_one_that_runs() {
    let dir = tempdir();
    let socket = dir.join("sock");
    let output = termloom(&["-S", socket.to_str().unwrap(), "attach", "s"]);
    assert_code(&output, 2);
    let said = stderr(&output);
    let advised =
        said.split("flags follow it: termloom ").nth(1).and_then(|rest| rest.split(" (run").next());
    let advised: Vec<&str> = advised.unwrap_or_else(|| panic!("{said}")).split(' ').collect();
    let output = termloom(&advised);
    let ran = stderr(&output);
    assert!(!ran.contains("unexpected argument"), "{advised:?}: {ran}");
    assert!(ran.contains("attach needs a terminal"), "{advised:?}: {ran}");
    std::fs::remove_dir_all(&dir).ok();
    // `-S` as another flag's value is that value (review vf: it became `--socket`).
    let value = stderr(&termloom(&["--text", "-S", "send", "g"]));
    assert!(value.contains("termloom send g --text -S "), "{value}");
}

/// A failure of a command given a session by name names it so, in its text and its advice:
/// it said "the shell of session 1" of the session the command was given as `ed`.
#[test]
fn a_failure_names_the_session_as_given() {
    if !require("bash") {
        return;
    }
    let server = PrivateServer::start();
    let bash = ["--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile"];
    server.ok(&[&["start", "--name", "ed", "--shell-integration"][..], &bash].concat());
    let output = server.cli(&["exec", "ed", "sleep 60", "--timeout", "200"]);
    assert_code(&output, 124);
    let output = server.cli(&["exec", "ed", "echo more"]);
    assert_code(&output, 1);
    let said = stderr(&output);
    assert!(said.contains("the shell of session ed is not at its prompt"), "{said}");
    assert!(said.contains(" ed (--wait-prompt)"), "{said}");
}

/// `exec` at a password prompt says, in the command line's words, how the person can type
/// it (MCP's "no elicitation" is no advice on a command line), with the server's socket and
/// the session as the command named it.
#[test]
fn exec_at_a_password_prompt_says_how_the_person_types_it() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    let output = server.cli(&["exec", "sh", "read -s -p 'Password: ' pw"]);
    assert_code(&output, 3);
    let said = stdout(&output);
    let socket = server.socket.display();
    let attach =
        format!("`termloom attach --socket {socket} sh --takeover` (Ctrl-] hands it back)");
    assert!(said.contains(&attach), "{said}");
    assert!(!said.contains("elicitation") && !said.contains("--client"), "{said}");
    assert!(said.contains(&format!("termloom send --socket {socket} sh --keys=")), "{said}");
}

/// A start whose program is not found uses up no session id: the next start gets it, and
/// until then that id is no session (it was said to have ended and been forgotten, though
/// it never ran).
#[test]
fn a_failed_start_uses_up_no_session_id() {
    let server = PrivateServer::start();
    let first = json(&server.cli(&["start", "--json", "--wait-exit", "--", "true"]));
    let first = first["session_id"].as_u64().expect("an id");
    let next = (first + 1).to_string();
    let failed = server.cli(&["start", "--", "/nonexistent/termloom-no-program"]);
    assert_code(&failed, 1);
    let read = server.cli(&["read", &next]);
    assert_code(&read, 1);
    let said = stderr(&read);
    assert!(!said.contains("forgotten") && said.contains("does not exist"), "{said}");
    let started = json(&server.cli(&["start", "--json", "--wait-exit", "--", "true"]));
    assert_eq!(started["session_id"], first + 1, "{started}");
}

/// A server name is a file name: `-L .` and `-L ..` named a directory as the socket (the
/// socket directory itself, or the one above it), and were taken.
#[test]
fn a_server_name_that_is_no_file_name_is_refused() {
    for name in [".", "..", "", "a/b"] {
        let output = termloom(&["-L", name, "list"]);
        assert_code(&output, 2);
        let said = stderr(&output);
        assert!(said.contains("is not empty, has no slash and is not . or .."), "{name:?}: {said}");
    }
}

/// The small things: advice reaches the server asked for, `list` without a server lists no
/// session (and with one, none: advice in the command line's terms), `kill-server` without
/// one has nothing to stop (exit 0: it exited 1 and advised starting a server), and a signal
/// to a program that exited says that no signal was sent.
#[test]
fn without_a_server_list_is_empty_and_advice_names_the_server() {
    let name = format!("cli-test-none-{}", std::process::id());
    let output = termloom(&["-L", &name, "list"]);
    assert_code(&output, 0);
    assert_eq!(stdout(&output), "no sessions\n");
    assert!(stderr(&output).contains(&format!("`termloom start -L {name}` starts one")));
    let output = termloom(&["list", "-L", &name, "--json"]);
    assert_code(&output, 0);
    assert_eq!(json(&output), serde_json::json!({ "sessions": [] }));
    let output = termloom(&["-L", &name, "send", "x", "--text", "a"]);
    assert_code(&output, 1);
    assert!(stderr(&output).contains(&format!("`termloom start -L {name}` starts one")));
    // Nothing to stop is no failure: cleaning up twice is fine.
    let output = termloom(&["-L", &name, "kill-server"]);
    assert_code(&output, 0);
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    assert!(stderr(&output).contains("no termloom server is running"), "{}", stderr(&output));
    assert!(stderr(&output).contains("nothing to stop"), "{}", stderr(&output));
    let output = termloom(&["-L", &name, "kill-server", "--json"]);
    assert_code(&output, 0);
    assert_eq!(json(&output)["stopped"], false, "{}", stdout(&output));

    let help = stdout(&termloom(&["server", "--help"]));
    let config = help.find("--config FILE").unwrap();
    let readers = help.find("Unless it sets max_readers").unwrap();
    let policy = help.find("--policy FILE").unwrap();
    assert!(config < readers && readers < policy, "{help}");

    // A server with no session advises the command that starts one, not the MCP tool.
    let server = PrivateServer::start();
    let socket = server.socket.to_str().unwrap();
    let listed = server.ok(&["list"]);
    let advice = format!("no sessions; start one with termloom start --socket {socket}\n");
    assert_eq!(listed, advice);
    server.ok(&["start", "--name", "e", "--wait-exit", "--", "true"]);
    let output = server.cli(&["signal", "e", "INT"]);
    assert_code(&output, 1);
    let stderr = stderr(&output);
    assert!(stderr.contains("its program has exited, so no signal was sent"), "{stderr}");
    assert!(!stderr.contains("accepts no input"), "{stderr}");
}

/// A message for stderr whose reader is gone (a host that closed its end of the pipe) is
/// dropped: the command still exits with its own code, not a panic's 101.
#[test]
fn a_closed_stderr_pipe_leaves_the_exit_code_alone() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = std::process::Command::new(TERMLOOM)
        .args(["start", "--no-such-flag"])
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2), "{status}");
}

/// An ended session is listed with how it ended and when, not with the pid it no longer has
/// or an idle time that says nothing (`pid 8058 · ... · idle 0.0 s` was listed for a closed
/// session); a live one keeps both.
#[test]
fn an_ended_session_is_listed_with_when_it_ended_not_its_pid() {
    let server = PrivateServer::start();
    let exited =
        server.cli(&["start", "--name", "gone", "--wait-exit", "--", "sh", "-c", "exit 3"]);
    assert_code(&exited, 3);
    server.ok(&["start", "--name", "shut", "--", "sh"]);
    server.ok(&["close", "shut"]);
    server.ok(&["start", "--name", "live", "--", "sh"]);
    let list = server.ok(&["list"]);
    // (Sessions 1, 2 and 3.)
    let line = |id: u64| {
        let named = format!("session {id} ");
        list.lines().find(|line| line.starts_with(&named)).unwrap_or_else(|| panic!("{list}"))
    };
    let ended = regex::Regex::new(r" · started \d+ s ago · ended \d+ s ago$").unwrap();
    for id in [1, 2] {
        let line = line(id);
        assert!(ended.is_match(line), "{line}");
        assert!(!line.contains("pid ") && !line.contains("idle"), "{line}");
    }
    assert!(line(1).contains("exited (exit code 3)"), "{list}");
    assert!(line(2).contains("closed"), "{list}");
    let live = line(3);
    assert!(live.contains(" · pid ") && live.contains(" s ago · idle "), "{live}");
    assert!(!live.contains("ended"), "{live}");
    let listed = json(&server.cli(&["list", "--json"]));
    let sessions = listed["sessions"].as_array().unwrap();
    let entry = |id: u64| sessions.iter().find(|s| s["session_id"] == id).unwrap();
    assert!(entry(1)["ended_seconds_ago"].as_f64().is_some(), "{listed}");
    assert!(entry(2)["ended_seconds_ago"].as_f64().is_some(), "{listed}");
    assert!(entry(3)["ended_seconds_ago"].is_null(), "{listed}");
}

/// The screen of a session whose program ended draws no cursor: no program owns the one it
/// left (`▌` was drawn on the row below its last line). A live program's is drawn.
#[test]
fn the_screen_of_an_ended_session_draws_no_cursor() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "live", "--", "cat"]);
    let live = server.ok(&["screen", "live"]);
    assert!(live.contains('▌'), "{live}");
    server.ok(&["start", "--name", "done", "--wait-exit", "--", "sh", "-c", "echo bye"]);
    let screen = server.ok(&["screen", "done"]);
    assert!(screen.contains("\n--- screen 120x32 ---\nbye\n"), "{screen}");
    assert!(!screen.contains('▌') && !screen.contains("cursor"), "{screen}");
    // The MCP tool's view, which the command prints, says the same.
    let looked = json(&server.cli(&["screen", "done", "--json"]));
    assert_eq!(looked["screen"]["cursor_visible"], false, "{looked}");
    assert!(!looked["screen"]["text"].as_str().unwrap().contains('▌'), "{looked}");
    server.ok(&["send", "live", "--keys", "<C-d>", "--wait-exit"]);
    let ended = server.ok(&["screen", "live"]);
    assert!(!ended.contains('▌'), "{ended}");
}

/// A `--wait-quiet` or `--wait-stable` that reads like seconds and ended the wait says it was
/// milliseconds, as a `--timeout` does (`--wait-quiet 2` returned at once with no note); one
/// of 100 or more says nothing of it.
#[test]
fn a_quiet_or_stable_wait_in_seconds_is_told_it_was_milliseconds() {
    let server = PrivateServer::start();
    server.ok(&["start", "--name", "sh", "--wait-prompt", "--timeout", LONG_MS]);
    // (Nothing prints while `sleep 30` runs: the waits hold at once.)
    let sent = server.ok(&["send", "sh", "--text", "sleep 30", "--submit", "--wait-quiet", "2"]);
    let quiet = "[--wait-quiet is in milliseconds: --wait-quiet 2 held after 2 ms without \
                 output; for 2 s, give --wait-quiet 2000]";
    assert_eq!(sent.lines().nth(1), Some(quiet), "{sent}");
    let waited = server.ok(&["wait", "sh", "--wait-stable", "5"]);
    let stable = "[--wait-stable is in milliseconds: --wait-stable 5 held after 5 ms of an \
                  unchanged screen; for 5 s, give --wait-stable 5000]";
    assert_eq!(waited.lines().nth(1), Some(stable), "{waited}");
    for flag in ["--wait-quiet", "--wait-stable"] {
        let waited = server.ok(&["wait", "sh", flag, "100"]);
        assert!(!waited.contains("in milliseconds"), "{waited}");
    }
}

/// A line break in `--text` is typed as Enter, a carriage return (`\r\n` as one), as MCP
/// `terminal_send` types it, and `termloom help send` says so; a line feed is `--keys
/// '<C-j>'`. A program reading keys raw shows the bytes it read.
#[test]
fn a_line_break_in_send_text_is_typed_as_enter() {
    if !require("python3") {
        return;
    }
    let help = stdout(&termloom(&["help", "send"]));
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("a line break as Enter (a line feed: --keys '<C-j>'"), "{help}");
    let server = PrivateServer::start();
    let reader = "import sys, tty\ntty.setraw(0)\nread = b''\nwhile len(read) < 6:\n    \
                  read += sys.stdin.buffer.raw.read(6 - len(read))\nprint(list(read))";
    server.ok(&["start", "--name", "raw", "--wait-input", "--", "python3", "-c", reader]);
    server.ok(&["send", "raw", "--text", "a\nb\r\nc"]);
    let output = server.cli(&["send", "raw", "--keys", "<C-j>", "--wait-exit"]);
    assert_code(&output, 0);
    assert!(stdout(&output).contains("[97, 13, 98, 13, 99, 10]"), "{}", stdout(&output));
}

/// Every help page fits a terminal 80 columns wide: `termloom help TOPIC` for every topic the
/// command line names (taken from its answer to an unknown one, so a new command is held
/// too), `termloom CMD --help` and `termloom --help` (`--timeout N ...` was 103 columns, and
/// `run`'s pages up to 90).
#[test]
fn every_help_page_fits_80_columns() {
    let unknown = stderr(&termloom(&["help", "no-such-topic"]));
    let topics = unknown
        .split_once("the topics are ")
        .and_then(|(_, rest)| rest.split_once(" (run "))
        .map(|(topics, _)| topics.replace(" and the commands,", ",").replace(" and ", ", "))
        .unwrap_or_else(|| panic!("{unknown}"));
    let topics: Vec<&str> = topics.split(", ").collect();
    assert!(topics.contains(&"sessions") && topics.contains(&"kill-server"), "{topics:?}");
    let mut pages = vec![vec!["help"], vec!["--help"]];
    for topic in &topics {
        pages.push(vec!["help", topic]);
        if !["sessions", "help"].contains(topic) {
            pages.push(vec![topic, "--help"]);
        }
    }
    for args in pages {
        let output = termloom(&args);
        assert_code(&output, 0);
        let page = stdout(&output);
        assert!(page.lines().count() > 2, "{args:?}: {page}");
        for line in page.lines() {
            let width = line.chars().count();
            assert!(width <= 80, "{args:?}: a line of {width} columns:\n{line}");
        }
    }
}

/// A session command's argument that is not UTF-8 is refused as a usage error (exit 2),
/// before any server is asked, and under `--json` as one: taken lossily, `--text $'\xff'`
/// typed U+FFFD, and a program's argument so encoded reached it so changed, without a word.
/// A socket path that is not UTF-8 is named as one, not as a value sent to the server.
#[test]
fn a_session_commands_argument_that_is_not_utf8_is_a_usage_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempdir();
    let socket = dir.join("none");
    let bad = OsStr::from_bytes(b"a\xffb");
    // (`--socket` first: after `--`, it is the program's argument.)
    let run = |args: &[&OsStr]| {
        Command::new(TERMLOOM)
            .arg("--socket")
            .arg(&socket)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("termloom runs")
    };
    let os = |s: &'static str| OsStr::new(s);
    let sent = run(&[os("send"), os("x"), os("--text"), bad]);
    assert_code(&sent, 2);
    assert!(stderr(&sent).contains("is not UTF-8 text"), "{}", stderr(&sent));
    let started = run(&[os("start"), os("--"), os("printf"), bad]);
    assert_code(&started, 2);
    let json = run(&[os("send"), os("x"), os("--json"), os("--text"), bad]);
    assert_code(&json, 2);
    let error: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(error["error"]["kind"], "usage", "{error}");
    assert!(json.stderr.is_empty(), "{}", stderr(&json));
    let mut bad_socket = dir.join("x").into_os_string();
    bad_socket.push(bad);
    let mut inline = OsStr::new("--socket=").to_owned();
    inline.push(&bad_socket);
    for args in [[os("list"), os("--socket"), &bad_socket], [os("-L"), bad, os("list")]] {
        let listed = Command::new(TERMLOOM).args(args).stdin(Stdio::null()).output().unwrap();
        assert_code(&listed, 2);
        let message = stderr(&listed);
        assert!(message.contains("is not UTF-8: `termloom list` takes the server's"), "{message}");
        assert!(!message.contains("sends its values"), "{message}");
    }
    let listed = Command::new(TERMLOOM).args([os("list"), &inline]).output().unwrap();
    assert!(stderr(&listed).starts_with("termloom: --socket \""), "{}", stderr(&listed));
    // Past the program's first word, `-L` is the program's argument, its value too.
    let started = run(&[os("start"), os("printf"), os("-L"), bad]);
    assert_code(&started, 2);
    assert!(stderr(&started).contains("is not UTF-8 text"), "{}", stderr(&started));
}

/// `run --keys` waits after an Escape as MCP `terminal_send` does (review xe): for a program
/// busy in raw mode for 4 s after the `x` before it, the wait after the Escape ended after
/// 1.25 s of silence, and the program read the `q` with the Escape, as Alt-q (`1b71`); now
/// silence ends it only while the program is not known to be busy. The program prints each
/// read, with its time, once it reads `q`.
#[test]
fn run_keys_after_an_escape_wait_for_a_busy_program() {
    if !require("python3") {
        return;
    }
    let program = include_str!("common/busy_after_x.py");
    let args = ["run", "--timeout", LONG_MS, "--wait-text", "ready", "--keys", "x<Esc>q"];
    let output = termloom(&[&args[..], &["--wait-exit", "--", "python3", "-c", program]].concat());
    assert_code(&output, 0);
    let shown = stdout(&output);
    // (The transcript's lines: the screen after it shows them again.)
    let transcript = shown.split("--- screen ---").next().unwrap_or_default();
    let hexes: Vec<&str> = transcript
        .lines()
        .filter_map(|line| line.trim_end().split_once(' '))
        .filter(|(time, _)| time.parse::<f64>().is_ok())
        .map(|(_, hex)| hex)
        .collect();
    assert_eq!(hexes, ["78", "1b", "71"], "{shown}");
}
