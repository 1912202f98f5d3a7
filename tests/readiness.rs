//! Precise waits, shell integration and input-wait detection.

mod common;

use std::time::{Duration, Instant};

use common::*;
use termloom::{
    Activity, Config, Engine, Error, InputKind, Location, Screen, Session, SpawnSpec, Until,
    shell_program,
};

/// zsh with shell integration at its first prompt, its `HOME` a directory of its own
/// (`termloom-zsh-TAG-PID` in the temporary directory) holding `zshrc` as its `.zshrc`; the
/// directory is given back for its caller to remove.
fn zsh_at_home(engine: &termloom::Engine, tag: &str, zshrc: &str) -> (Session, std::path::PathBuf) {
    let home = std::env::temp_dir().join(format!("termloom-zsh-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".zshrc"), zshrc).unwrap();
    let spec =
        SpawnSpec::new("zsh").env("HOME", &home).env_remove("ZDOTDIR").shell_integration(true);
    let zsh = engine.spawn(spec).unwrap();
    expect(&zsh, Until::prompt());
    (zsh, home)
}

fn integrated_bash(engine: &termloom::Engine) -> Session {
    integrated_bash_with_prompt(engine, "prompt> ")
}

/// bash without startup files, with shell integration and `ps1` as its `PS1`, at its first
/// prompt.
fn integrated_bash_with_prompt(engine: &termloom::Engine, ps1: &str) -> Session {
    let sh = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile"])
                .env("PS1", ps1)
                .shell_integration(true),
        )
        .unwrap();
    expect(&sh, Until::prompt());
    sh
}

#[test]
fn run_command_returns_output_and_exit_codes() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    let screen = sh.screen().unwrap();
    assert_eq!(screen.lines[0], "prompt>", "the prompt looks the same: {screen}");
    let result = sh.run_command("echo hello; echo world", LONG).unwrap();
    assert_eq!(result.output, "hello\nworld\n");
    assert_eq!(result.exit_code, Some(0));
    assert!(!result.timed_out);
    let result = sh.run_command("ls /no/such/path", LONG).unwrap();
    assert_eq!(result.exit_code, Some(2));
    assert!(result.output.contains("No such file"), "{result:?}");
    let result = sh.run_command("false", LONG).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("", Some(1)));
    let result = sh.run_command("printf 'no newline'", LONG).unwrap();
    assert_eq!(result.output, "no newline");
    // Output that looks like a prompt does not fool it.
    let result = sh.run_command("echo 'prompt> '; echo '$ '; sleep 0.3; echo end", LONG).unwrap();
    // Trailing blanks are trimmed, as on every transcript line.
    assert_eq!(result.output, "prompt>\n$\nend\n");
    assert_eq!(sh.status().unwrap().last_exit_code, Some(0));
    assert_eq!(sh.status().unwrap().activity, Activity::AtPrompt);
    // The read cursor moved past the commands.
    let after = sh.read().unwrap();
    assert!(!after.text.contains("hello"), "{after:?}");
    sh.close().unwrap();
}

#[test]
fn run_command_on_a_command_silent_for_ten_seconds() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    let started = Instant::now();
    let result = sh.run_command("sleep 10; echo finally", Duration::from_secs(60)).unwrap();
    assert!(started.elapsed() >= Duration::from_secs(10));
    assert_eq!(result.output, "finally\n");
    assert_eq!(result.exit_code, Some(0));
    assert!(result.duration >= Duration::from_secs(10));
    sh.close().unwrap();
}

#[test]
fn run_command_timeout_and_errors() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    let result = sh.run_command("echo partial; sleep 1000", Duration::from_millis(500)).unwrap();
    assert!(result.timed_out);
    assert_eq!(result.exit_code, None);
    assert!(result.output.contains("partial"), "{result:?}");
    let err = sh.run_command("echo busy", LONG).unwrap_err();
    assert!(err.to_string().contains("not at its prompt"), "{err}");
    sh.send_keys("<C-c>").unwrap();
    expect(&sh, Until::prompt());
    assert!(sh.run_command("echo a\necho b", LONG).is_err());
    // Control characters would be keys to the line editor; an empty line runs nothing.
    for line in ["ls \x1b", "echo a\x1bb", "echo a\x03b", "echo tab\there", "", "   "] {
        let err = sh.run_command(line, LONG).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{line:?}: {err}");
    }
    // None of them was typed: the shell still runs commands.
    assert_eq!(sh.run_command("echo still", LONG).unwrap().output, "still\n");
    // A line the shell takes as the start of a longer one is abandoned at once, not left to
    // time out (nor to swallow the next command).
    let started = std::time::Instant::now();
    let err = sh.run_command("echo 'unterminated", LONG).unwrap_err();
    assert!(matches!(err, Error::CommandLineIncomplete(id) if id == sh.id()), "{err:?}");
    assert!(err.to_string().contains("start of a longer command"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    expect(&sh, Until::prompt());
    assert_eq!(sh.run_command("echo next", LONG).unwrap().output, "next\n");
    // A command that itself reads the terminal has started: it is not abandoned, and the call
    // returns when it waits for input (a builtin's read, or another program's), not at its
    // timeout; the command goes on, and is answered as any program is.
    let started = Instant::now();
    let result = sh.run_command("read -r -p 'Continue? [y/N] ' x; echo got $x", LONG).unwrap();
    assert!(result.waiting_for_input && !result.timed_out, "{result:?}");
    assert_eq!(result.exit_code, None);
    assert_eq!(result.status.input_kind, Some(InputKind::Line));
    assert_eq!(result.output, "Continue? [y/N] ");
    assert!(started.elapsed() < LONG / 2, "{:?}", started.elapsed());
    sh.submit("hi").unwrap();
    expect(&sh, Until::prompt());
    let result = sh.run_command("cat", LONG).unwrap();
    assert!(result.waiting_for_input, "{result:?}");
    sh.send_keys("<C-d>").unwrap();
    expect(&sh, Until::prompt());
    assert_eq!(sh.run_command("echo after", LONG).unwrap().output, "after\n");
    // A command that replaces PS1 (and so loses the prompt's mark) still gets its result,
    // and the next one is refused with the reason.
    let result = sh.run_command("PS1='$ '; echo ps1", LONG).unwrap();
    assert_eq!(
        (result.output.as_str(), result.exit_code, result.timed_out),
        ("ps1\n", Some(0), false)
    );
    let err = sh.run_command("echo more", LONG).unwrap_err();
    assert!(err.to_string().contains("PS1 was replaced"), "{err}");
    // Without integration it fails clearly instead of guessing.
    let plain = bash(&engine);
    let err = plain.run_command("true", LONG).unwrap_err();
    assert!(matches!(err, Error::NoShellIntegration(_)), "{err:?}");
    assert!(err.to_string().contains("shell integration"), "{err}");
    // A wait for its prompt alone could never hold: refused at once, not at the timeout.
    let started = Instant::now();
    let err = plain.wait(Until::prompt(), LONG).unwrap_err();
    assert!(matches!(err, Error::NoShellIntegration(_)), "{err:?}");
    assert!(started.elapsed() < LONG / 2, "{:?}", started.elapsed());
    // So is an `any` of nothing else.
    let err = plain.wait(Until::any(vec![Until::prompt()]), LONG).unwrap_err();
    assert!(matches!(err, Error::NoShellIntegration(_)), "{err:?}");
    // With another condition beside it, the wait goes on.
    plain.wait(Until::any(vec![Until::prompt(), Until::input_wait()]), LONG).unwrap();
    // Integration is for shells only.
    let err = engine.spawn(SpawnSpec::new("python3").shell_integration(true)).unwrap_err();
    assert!(err.to_string().contains("bash and zsh"), "{err}");
}

/// A prompt that takes long to draw (its `PS1` runs a command, as a slow machine or a
/// process under strace stretches any prompt) draws its mark (`B`) well after it began (`A`):
/// `run_command` answered 250 ms after `A`, as at a prompt that lost its mark, and the next
/// `run_command` was refused (not at its prompt). It waits for the prompt.
#[test]
fn run_command_waits_for_a_prompt_drawn_slowly() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash_with_prompt(&engine, "$(sleep 0.6)slow> ");
    for word in ["one", "two", "three"] {
        let result = sh.run_command(&format!("echo {word}"), LONG).unwrap();
        assert_eq!(
            (result.output.as_str(), result.exit_code, result.timed_out),
            (format!("{word}\n").as_str(), Some(0), false),
            "{result:?}"
        );
        // Answered once the prompt was drawn, not while its command substitution slept.
        assert!(result.duration >= Duration::from_millis(600), "{result:?}");
        assert_eq!(result.status.activity, Activity::AtPrompt, "{result:?}");
    }
    sh.close().unwrap();
}

/// A command that ended (its exit code marked) while its prompt is still being drawn at the
/// command's deadline (a `PS1` that runs a slow command: a git prompt in a big repository)
/// has ended: it was answered as still running (`timed_out`, no exit code).
#[test]
fn run_command_that_ended_before_a_slow_prompt_is_not_timed_out() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash_with_prompt(&engine, "$(sleep 3)slow> ");
    let result = sh.run_command("echo x", Duration::from_secs(1)).unwrap();
    assert_eq!(
        (result.output.as_str(), result.exit_code, result.timed_out, result.waiting_for_input),
        ("x\n", Some(0), false, false),
        "{result:?}"
    );
    // The prompt comes, and the next command runs there.
    expect(&sh, Until::prompt());
    assert_eq!(sh.run_command("echo y", LONG).unwrap().output, "y\n");
    sh.close().unwrap();
}

/// A prompt that asks a question before it draws its mark (a `PS1` running `git fetch`, at
/// `Username for …:`) is no prompt that lost its mark: the command's caller gets its result
/// (it ended), told that the prompt waits for input. It was answered as ended with nothing
/// said of the question, the prompt taken as drawn; then as the command waiting for input,
/// with no exit code.
#[test]
fn run_command_at_a_prompt_that_asks_a_question_waits_for_input() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    let asks = r#"PS1="\$(printf 'Username: ' >/dev/tty; head -n1 </dev/tty >/dev/null)$PS1""#;
    let result = sh.run_command(&format!("{asks}; echo set"), LONG).unwrap();
    assert_eq!(
        (result.output.as_str(), result.exit_code, result.waiting_for_input, result.timed_out),
        ("set\n", Some(0), false, false),
        "{result:?}"
    );
    assert!(result.prompt_waiting_for_input, "{result:?}");
    // Answered, the prompt is drawn with its mark, and the next command runs (and is asked
    // about again).
    sh.submit("me").unwrap();
    expect(&sh, Until::prompt());
    let result = sh.run_command("echo more", LONG).unwrap();
    assert!(result.prompt_waiting_for_input && result.output == "more\n", "{result:?}");
    sh.submit("me").unwrap();
    expect(&sh, Until::prompt());
    sh.close().unwrap();
}

/// A `PROMPT_COMMAND` that reads a line from the terminal, with a timer (`read -t 20`) or
/// without (`read -p 'Continue? '`), asks a question before the prompt is drawn: the command's
/// caller gets its result, told that its prompt waits for input, and the next command runs
/// once it is answered. The
/// timed one was waited out (2 s), and the untimed one answered as ended, the prompt taken as
/// one that lost its mark.
#[test]
fn run_command_at_a_prompt_command_reading_a_line_waits_for_input() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    for read in ["read -t 20 x", "read -p 'Continue? ' x"] {
        asked_before_the_prompt(&sh, &prompt_command_reading(read), |sh| sh.submit("y"), UNSET);
    }
    sh.close().unwrap();
}

/// What `run_command` runs to add `read` to bash's `PROMPT_COMMAND`, and prints `set`.
fn prompt_command_reading(read: &str) -> String {
    format!(r#"PROMPT_COMMAND="$PROMPT_COMMAND; {read}"; echo set"#)
}

/// What takes the read [`prompt_command_reading`] added out, and prints `more`.
const UNSET: &str = "PROMPT_COMMAND=${PROMPT_COMMAND%; *}; echo more";

/// Runs `set` (which prints `set`) with `run_command` on `shell`, whose next prompt then asks
/// a question before it is drawn: the command's result is its own, told that the prompt waits
/// for input. Once `answer` answers it, the prompt is drawn and `unset` (which takes the
/// question out and prints `more`) runs.
fn asked_before_the_prompt(
    shell: &Session,
    set: &str,
    answer: fn(&Session) -> termloom::Result<()>,
    unset: &str,
) {
    let result = shell.run_command(set, LONG).unwrap();
    assert_eq!(
        (result.output.as_str(), result.exit_code, result.waiting_for_input),
        ("set\n", Some(0), false),
        "{set}: {result:?}"
    );
    assert!(result.prompt_waiting_for_input && !result.timed_out, "{set}: {result:?}");
    answer(shell).unwrap();
    expect(shell, Until::prompt());
    assert_eq!(shell.run_command(unset, LONG).unwrap().output, "more\n");
}

/// A prompt that reads a single key before it is drawn (bash's `read -n1 -p 'Continue? '` in
/// `PROMPT_COMMAND`, silent or not; zsh's `read -k` or `read -q` in a `precmd` hook) asks a
/// question, as one reading a line does: the command's caller gets its result, told that its
/// prompt waits for input, and the next command runs once a key answers it. Such a read turns
/// canonical input off, as the line editor does, and the command was answered as ended at a
/// prompt that lost its mark; the line editors (readline, zle) also turn echo and the
/// literal-next character off, which a read of keys leaves on (or echo alone off, with `-s`).
#[test]
fn run_command_at_a_prompt_reading_a_key_waits_for_input() {
    let engine = engine();
    if require("bash") {
        let sh = integrated_bash(&engine);
        for read in ["read -n1 -p 'Continue? ' x", "read -s -n1 x"] {
            // A key answers it (an Enter after it would reach the line editor).
            let key = |sh: &Session| sh.send_keys("y");
            asked_before_the_prompt(&sh, &prompt_command_reading(read), key, UNSET);
        }
        sh.close().unwrap();
    }
    if require("zsh") {
        sweep_left_overs();
        let (zsh, home) = zsh_at_home(&engine, "key", "PS1='zsh%# '\n");
        for read in ["read -k x", "read -q x"] {
            let set = format!("ask() {{ {read} }}; precmd_functions+=(ask); echo set");
            let unset = "precmd_functions=(${precmd_functions:#ask}); echo more";
            asked_before_the_prompt(&zsh, &set, |zsh| zsh.send_keys("y"), unset);
        }
        zsh.close().unwrap();
        let _ = std::fs::remove_dir_all(&home);
    }
}

/// zsh's line editor at a prompt that lost its mark (`PS1` replaced by a `precmd` hook added
/// after the integration's, which marks `PS1` at each prompt) reads the terminal beside a
/// timer (`sched`) or a descriptor it watches (`zle -F`, as async prompt frameworks do): it is
/// the prompt, and the command is answered as ended. It was taken as a prompt still being drawn,
/// and the command answered only at its deadline.
#[test]
fn run_command_at_zsh_reading_beside_a_timer_takes_the_prompt_that_lost_its_mark() {
    if !require("zsh") {
        return;
    }
    sweep_left_overs();
    let engine = engine();
    let (zsh, home) = zsh_at_home(&engine, "lost", "PS1='zsh%# '\n");
    zsh.run_command("zmodload zsh/sched; sched +900 true", LONG).unwrap();
    let timeout = Duration::from_secs(10);
    let lose = "lose() { PS1='lost> ' }; precmd_functions+=(lose); echo set";
    let result = zsh.run_command(lose, timeout).unwrap();
    assert_eq!(
        (result.output.as_str(), result.exit_code, result.timed_out, result.waiting_for_input),
        ("set\n", Some(0), false, false),
        "{result:?}"
    );
    assert!(result.duration < timeout / 2, "{result:?}");
    zsh.close().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn prompt_wait_does_not_fire_on_the_prompt_before_the_command() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    // Measured from before the submit: the wait itself may start late on a loaded machine.
    let submitted = std::time::Instant::now();
    sh.submit("sleep 0.5; echo done-sleeping").unwrap();
    let outcome = expect(&sh, Until::prompt());
    assert!(submitted.elapsed() >= Duration::from_millis(500), "{outcome}");
    assert!(sh.read().unwrap().text.contains("done-sleeping"));
    sh.close().unwrap();
}

/// A shell run as another user reads the integration's startup file, made by the engine's
/// user: the marks still come.
#[test]
fn shell_integration_works_for_a_session_run_as_another_user() {
    if !require("bash") {
        return;
    }
    if !require_root("switching to another user needs root") {
        return;
    }
    let engine = engine();
    let sh = engine
        .spawn(
            SpawnSpec::new("bash")
                .arg("--noprofile")
                .env("PS1", "prompt> ")
                .user("nobody")
                .cwd("/")
                .shell_integration(true),
        )
        .unwrap();
    expect(&sh, Until::prompt());
    let done = sh.run_command("id -u", LONG).unwrap();
    assert_eq!(done.exit_code, Some(0), "{done:?}");
    assert_eq!(done.output.trim(), "65534", "{done:?}");
    assert!(!sh.read().unwrap().text.contains("Permission denied"));
    sh.close().unwrap();
}

/// Only the session's own shell carries the marks: bash reading its startup file and zsh
/// added them to a `PS1` that came in the environment (the spec's) and left it exported, so
/// every command's environment held the session's key and a nested shell inherited the
/// prompt's mark; bash `--norc` exported all three of `PS1`, `PS0` and `PROMPT_COMMAND`, and a
/// nested bash marked whole prompts, taken for the outer shell's.
#[test]
fn the_shells_commands_do_not_inherit_the_marks() {
    let engine = engine();
    let plain: &[&str] = &[];
    for (shell, args) in [("bash", plain), ("bash", &["--norc", "--noprofile"]), ("zsh", plain)] {
        if !require(shell) {
            continue;
        }
        let home =
            std::env::temp_dir().join(format!("termloom-inherit-{shell}-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        // The nested zsh reads it (none would start zsh's first-run menu).
        std::fs::write(home.join(".zshrc"), "").unwrap();
        let spec = SpawnSpec::new(shell)
            .args(args)
            .env("HOME", &home)
            .env_remove("ZDOTDIR")
            .env("PS1", "outer> ")
            .shell_integration(true);
        let sh = engine.spawn(spec).unwrap();
        expect(&sh, Until::prompt());
        let result = sh.run_command("env | grep -c '133;'", LONG).unwrap();
        let said = (result.output.as_str(), result.exit_code);
        assert_eq!(said, ("0\n", Some(1)), "{shell} {args:?}: {result:?}");
        // A nested shell of the same kind, at its prompt (not in the line's echo), has not
        // ended the command (the nested bash reads no `/etc/bash.bashrc`, which may set its
        // own prompt).
        let nested = if shell == "bash" { "bash --norc --noprofile" } else { shell };
        sh.submit(&format!("PS1='in''ner> ' {nested}")).unwrap();
        expect(&sh, Until::screen_contains("inner> "));
        expect(&sh, Until::input_wait());
        let status = sh.status().unwrap();
        assert_eq!(status.last_exit_code, Some(1), "{shell} {args:?}: {status:?}");
        let waited = sh.wait(Until::prompt(), Duration::from_millis(300)).unwrap();
        assert!(waited.is_timeout(), "{shell} {args:?}: {waited}");
        sh.close().unwrap();
        let _ = std::fs::remove_dir_all(&home);
    }
}

fn input_wait_fires(session: &Session) -> Option<InputKind> {
    let outcome = expect(session, Until::input_wait());
    assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
    assert!(outcome.status.foreground.is_some());
    outcome.status.input_kind
}

fn input_wait_does_not_fire(session: &Session) {
    let outcome = session.wait(Until::input_wait(), Duration::from_millis(800)).unwrap();
    assert!(outcome.is_timeout(), "{outcome}");
    assert_ne!(outcome.status.activity, Activity::WaitingForInput);
}

/// `man` runs its pager by the name of its role, `pager` (Debian's `/usr/bin/pager`, a link to
/// `less`): the status names the program that reads the keys, `less`, whose keys the caller
/// types, not `pager`. The page is the test's own (Debian's images strip man pages), and so is
/// the link, as `PAGER`.
#[test]
fn man_pager_is_named_by_the_program_it_runs() {
    if !require("man") || !require("less") {
        return;
    }
    let dir = TestDir::new("man-pager");
    let less = in_path("less");
    let pager = dir.join("pager");
    let _ = std::fs::remove_file(&pager);
    std::os::unix::fs::symlink(&less, &pager).unwrap();
    std::fs::write(
        dir.join("page.1"),
        ".TH PAGE 1\n.SH NAME\npage \\- a test page\n.SH OPTIONS\n.TP\n\\-a\nall of them\n",
    )
    .unwrap();
    let engine = engine();
    let man = engine
        .spawn(
            SpawnSpec::new("man")
                .arg("./page.1")
                .cwd(&dir)
                .env("PAGER", &pager)
                .env_remove("MANPAGER"),
        )
        .unwrap();
    let outcome = expect(&man, Until::input_wait());
    assert!(man.screen().unwrap().contains("a test page"), "{outcome}");
    let reader = outcome.status.foreground.as_ref().map(|p| p.name.as_str());
    assert_eq!(reader, Some("less"), "{outcome}");
    man.send_keys("q").unwrap();
    expect(&man, Until::exit());
}

/// Where `program` is in `PATH` (the test has required it).
fn in_path(program: &str) -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|file| file.is_file()).unwrap()
}

/// A session whose own program goes by a role's name (`pager`, a link to `less`) is named by
/// the program it runs, as a reader behind `man` is: `less`, and still `less` once that file
/// is removed while it runs (its executable then reads `less (deleted)`); an executable whose
/// file name is no plain name (a line break, an escape sequence) leaves the role's name.
/// Before, the group's leader was named by its role, `pager`.
#[test]
fn a_session_run_by_a_roles_name_is_named_by_its_program() {
    if !require("less") {
        return;
    }
    let dir = TestDir::new("role-name");
    let less = in_path("less");
    let text = dir.join("text");
    std::fs::write(&text, "some text\n").unwrap();
    let engine = engine();
    for (file, named) in [("less", "less"), ("le\nss\u{1b}[31m", "pager")] {
        let copy = dir.join(file);
        std::fs::copy(&less, &copy).unwrap();
        let pager = dir.join("pager");
        let _ = std::fs::remove_file(&pager);
        std::os::unix::fs::symlink(&copy, &pager).unwrap();
        let session = engine.spawn(SpawnSpec::new(&pager).arg(&text)).unwrap();
        let outcome = expect(&session, Until::input_wait());
        let name = |status: &termloom::Status| status.foreground.as_ref().map(|p| p.name.clone());
        assert_eq!(name(&outcome.status).as_deref(), Some(named), "{file:?}: {outcome}");
        std::fs::remove_file(&copy).unwrap();
        let status = session.status().unwrap();
        assert_eq!(name(&status).as_deref(), Some(named), "{file:?} removed: {status:?}");
        session.send_keys("q").unwrap();
        expect(&session, Until::exit());
    }
}

/// The program a shell runs in the group it leads (a command substitution's, `x=$(fzf)`) is
/// what a status names while it runs, not the shell: `bash running` said the shell itself was
/// busy while fzf loaded its list.
#[test]
fn a_command_substitutions_program_is_named_while_it_runs() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = bash(&engine);
    expect(&sh, Until::input_wait());
    let name = |status: &termloom::Status| status.foreground.as_ref().map(|p| p.name.clone());
    assert_eq!(name(&sh.status().unwrap()).as_deref(), Some("bash"));
    sh.submit("x=$(sleep 30)").unwrap();
    quiet_until_named(&sh, "sleep");
    let status = sh.status().unwrap();
    assert_eq!(name(&status).as_deref(), Some("sleep"), "{status:?}");
    sh.send_keys("<C-c>").unwrap();
    let outcome = expect(&sh, Until::input_wait());
    assert_eq!(name(&outcome.status).as_deref(), Some("bash"), "{outcome}");
    // Through the subshell that runs a pipeline: its command.
    sh.submit("x=$(echo 1 | sleep 30)").unwrap();
    quiet_until_named(&sh, "sleep");
    sh.send_keys("<C-c>").unwrap();
    expect(&sh, Until::input_wait());
    // Of a pipeline, the command doing the work, not the last one, asleep reading its pipe
    // (`x=$(list | fzf | sed s/a/b/)` named `sed` while fzf loaded its list).
    sh.submit("x=$(echo 1 | sleep 30 | cat)").unwrap();
    quiet_until_named(&sh, "sleep");
    sh.send_keys("<C-c>").unwrap();
    expect(&sh, Until::input_wait());
    sh.close().unwrap();
}

/// A shell reading the terminal (`read x`) is named itself while a program it started earlier
/// in its group runs (a process substitution's, `exec 3< <(sleep 30)`): only a shell reading a
/// pipe reads its command's output. Such a status named `sleep` until the input wait was seen
/// (`input_settle`, made long here so that the status is taken before it).
#[test]
fn a_shell_reading_the_terminal_is_named_itself_beside_a_process_substitution() {
    if !require("bash") {
        return;
    }
    let config = Config { input_settle: Duration::from_secs(10), ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    let sh = bash(&engine);
    sh.submit("exec 3< <(sleep 30); echo read''ing; read x").unwrap();
    expect(&sh, Until::text("reading"));
    let outcome = expect(&sh, Until::quiet(Duration::from_millis(500)));
    let name = outcome.status.foreground.as_ref().map(|p| p.name.as_str());
    assert_eq!(name, Some("bash"), "{outcome}");
    sh.send_keys("<C-c>").unwrap();
    sh.close().unwrap();
}

/// Waits, quiet a little longer each time (300 ms more, up to 20 s of quiet in all), until a
/// status taken at the end of the wait names `program` in the foreground, and returns it: a
/// shell on a loaded machine may not have started its command after a first short quiet.
fn quiet_until_named(session: &Session, program: &str) -> termloom::Status {
    let mut seen = Vec::new();
    for step in 1..=66u64 {
        let outcome = expect(session, Until::quiet(Duration::from_millis(300 * step)));
        let name = outcome.status.foreground.as_ref().map(|p| p.name.clone());
        if name.as_deref() == Some(program) {
            return outcome.status;
        }
        seen.push(name);
    }
    panic!("the status never named {program}: {seen:?}");
}

#[test]
fn input_wait_on_programs_waiting_for_the_terminal() {
    if !require("python3") || !require(&shell_program()) || !require("vim") || !require("less") {
        return;
    }
    let engine = engine();
    let py = engine.spawn(SpawnSpec::new("python3").arg("-q")).unwrap();
    // readline reads key by key.
    assert_eq!(input_wait_fires(&py), Some(InputKind::Keys));
    assert!(py.screen().unwrap().contains(">>>"));
    assert_eq!(py.status().unwrap().foreground.unwrap().name, "python3");

    let password = engine
        .spawn(
            SpawnSpec::new("python3")
                .args(["-c", "import getpass; print(getpass.getpass('Password: ') == 'hunter2')"]),
        )
        .unwrap();
    assert_eq!(input_wait_fires(&password), Some(InputKind::Password));
    assert!(password.screen().unwrap().contains("Password:"));
    password.submit("hunter2").unwrap();
    expect(&password, Until::text("True"));

    let read = engine.spawn(SpawnSpec::shell("read -r line; echo got:$line")).unwrap();
    assert_eq!(input_wait_fires(&read), Some(InputKind::Line));
    read.submit("x").unwrap();
    expect(&read, Until::text("got:x"));

    let vim =
        engine.spawn(SpawnSpec::new("vim").args(["-u", "NONE", "-N", "-n", "-i", "NONE"])).unwrap();
    assert_eq!(input_wait_fires(&vim), Some(InputKind::Keys));
    let less = engine.spawn(SpawnSpec::new("less").arg("/etc/passwd")).unwrap();
    assert_eq!(input_wait_fires(&less), Some(InputKind::Keys));
}

/// A shell without job control runs its background jobs in the foreground group: a sleeping
/// one does not hide that the group's reader waits for input.
#[test]
fn a_sleeping_background_job_does_not_hide_a_wait_for_input() {
    if !require(&shell_program()) || !require("sleep") {
        return;
    }
    let engine = engine();
    let s =
        engine.spawn(SpawnSpec::shell("sleep 300 & read -r x; echo got $x; sleep 300")).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    s.submit("it").unwrap();
    expect(&s, Until::text("got it"));
    // Now no member reads: the sleepers are no wait for input.
    input_wait_does_not_fire(&s);
}

/// A busy background job whose output goes nowhere (`/dev/null`), in the foreground group of
/// a shell without job control, does not hide that the group's reader waits for input: fish's
/// first start generates completions so for 15 s while it waits at its prompt, and every wait
/// ran out (`sh running`, 10 s for the default one). One that may print on the terminal still
/// keeps the group busy; so does the silent one once no member reads.
#[test]
fn a_busy_background_job_that_prints_nowhere_does_not_hide_a_wait_for_input() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let line = "(while :; do :; done) >/dev/null 2>&1 & read -r x; echo got $x; wait";
    let s = engine.spawn(SpawnSpec::shell(line)).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    s.submit("it").unwrap();
    expect(&s, Until::text("got it"));
    // Now the shell waits for the job: no member reads.
    input_wait_does_not_fire(&s);
    s.close().unwrap();
    // The same job printing on the terminal (it may, any time) keeps the group busy.
    let line = "(while :; do :; done) & read -r x; kill $!";
    let s = engine.spawn(SpawnSpec::shell(line)).unwrap();
    input_wait_does_not_fire(&s);
    s.submit("").unwrap();
    expect(&s, Until::exit());
}

/// A busy job whose output goes nowhere, awaited by a member that may print once it ends (a
/// subshell running `make >/dev/null 2>&1; echo built` in the background), keeps the group
/// busy beside a member that reads: what is shown changes when the work is done. One awaited
/// by a member that prints nowhere either does not, nor one beside a reader its shell runs
/// in the foreground (`head`, `python3`): the shell waits for any child, and prints nothing
/// before the reader ends (taken for the work's, it kept the group busy).
#[test]
fn a_silent_job_awaited_by_a_member_that_may_print_keeps_the_group_busy() {
    if !require(&shell_program()) || !require("head") {
        return;
    }
    let engine = engine();
    let work = "sh -c 'while :; do :; done' >/dev/null 2>&1";
    // (The question asked first: the shell is at its read well within the wait below.)
    let line = format!("({work}; echo built) & echo asking; read -r x");
    let s = engine.spawn(SpawnSpec::shell(&line)).unwrap();
    expect(&s, Until::text("asking"));
    input_wait_does_not_fire(&s);
    s.close().unwrap();
    let line = format!("({work}; echo built) >/dev/null 2>&1 & read -r x");
    let s = engine.spawn(SpawnSpec::shell(&line)).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    s.close().unwrap();
    let line = format!("{work} & head -n1");
    let s = engine.spawn(SpawnSpec::shell(&line)).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    s.close().unwrap();
}

/// A program is not waiting for input while input it has not read is queued on its terminal,
/// even while /proc shows it blocked in a read: here a read that returns only once 5 bytes
/// have arrived (VMIN), sent 2. A part of a line in canonical mode is different: the program
/// waits for the rest.
#[test]
fn queued_input_not_read_yet_is_not_waiting_for_input() {
    if !require(&shell_program()) || !require("stty") || !require("head") {
        return;
    }
    let engine = engine();
    let script = "stty -icanon -echo min 5; head -c 5 | od -c; sleep 60";
    let reader = engine.spawn(SpawnSpec::shell(script)).unwrap();
    assert_eq!(input_wait_fires(&reader), Some(InputKind::Keys));
    reader.send_text("ab").unwrap();
    input_wait_does_not_fire(&reader);
    reader.send_text("cde").unwrap();
    expect(&reader, Until::text("a   b   c   d   e"));

    let line = engine.spawn(SpawnSpec::shell("read -r line; echo got:$line; sleep 60")).unwrap();
    assert_eq!(input_wait_fires(&line), Some(InputKind::Line));
    line.send_text("half a li").unwrap();
    assert_eq!(input_wait_fires(&line), Some(InputKind::Line));
    line.send_text("ne\r").unwrap();
    expect(&line, Until::text("got:half a line"));
}

/// Input typed after earlier input the program has read since, with no look at the program
/// in between (no status taken): the program's read count taken before the earlier input was
/// kept for the later one, found moved (by the earlier input's read) at the next look, and
/// the later input taken as read. Here a read that returns only once 5 bytes have arrived
/// (VMIN), sent 2 after a line, was reported waiting for input.
#[test]
fn input_typed_after_input_read_since_is_not_taken_as_read() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import os, termios\n\
        os.write(1, b'name? '); os.read(0, 100)\n\
        a = termios.tcgetattr(0); a[3] &= ~(termios.ICANON | termios.ECHO)\n\
        a[6][termios.VMIN] = 5; a[6][termios.VTIME] = 0\n\
        termios.tcsetattr(0, termios.TCSANOW, a)\n\
        os.write(1, b'ready\\n'); os.write(1, b'got %r\\n' % os.read(0, 5)); os.read(0, 1)\n";
    let s = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    s.send_text("x\r").unwrap();
    // Answered on the output itself: its status takes no look at the program.
    let outcome = expect(&s, Until::text("ready"));
    assert_ne!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
    s.send_text("ab").unwrap();
    input_wait_does_not_fire(&s);
    s.send_text("cde").unwrap();
    expect(&s, Until::text("got b'abcde'"));
}

/// The same, the later input going to a process the group gained since the earlier input (a
/// shell that reads a line, then runs a program in its own group): the count before the later
/// input sums the readers the earlier count found only while the session holds the same
/// processes, so the new program's reads are counted from before the later input.
#[test]
fn input_typed_for_a_program_started_since_earlier_input_is_not_taken_as_read() {
    if !require("python3") || !require("sh") {
        return;
    }
    let engine = engine();
    let python = "import os, termios\n\
        a = termios.tcgetattr(0); a[3] &= ~(termios.ICANON | termios.ECHO)\n\
        a[6][termios.VMIN] = 5; a[6][termios.VTIME] = 0\n\
        termios.tcsetattr(0, termios.TCSANOW, a)\n\
        os.write(1, b'ready\\n'); os.write(1, b'got %r\\n' % os.read(0, 5)); os.read(0, 1)\n";
    let script = format!("read -r x; python3 -c \"{python}\"; echo end");
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", &script])).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    s.send_text("x\r").unwrap();
    // Answered on the output itself: its status takes no look at the program.
    expect(&s, Until::text("ready"));
    s.send_text("ab").unwrap();
    input_wait_does_not_fire(&s);
    s.send_text("cde").unwrap();
    expect(&s, Until::text("got b'abcde'"));
}

/// A resize, like input, is for the program to answer: a program seen waiting for input
/// before a resize was still taken to wait after it (the sighting was kept until the next
/// input or output), while it was busy answering the resize, and a wait for input was
/// answered before the program had redrawn.
#[test]
fn a_resize_ends_a_sighting_of_a_wait_for_input() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    // On SIGWINCH it computes for a second (not reading the terminal), then redraws.
    let script = r#"
import os, signal, time
def winch(*_):
    end = time.time() + 1
    while time.time() < end:
        pass
    os.write(1, b"redrawn\r\n")
signal.signal(signal.SIGWINCH, winch)
os.write(1, b"ready\r\n")
while True:
    os.read(0, 1)
"#;
    let py = engine.spawn(SpawnSpec::new("python3").args(["-c", script]).size(80, 24)).unwrap();
    expect(&py, Until::text("ready"));
    assert_eq!(input_wait_fires(&py), Some(InputKind::Line));
    py.resize(100, 30).unwrap();
    let outcome = expect(&py, Until::input_wait());
    assert!(
        py.screen().unwrap().contains("redrawn"),
        "taken as waiting for input while it answered the resize: {outcome}"
    );
    py.close().unwrap();
}

/// A signal character typed (Ctrl-C) is taken by the line discipline, which also discards the
/// input queued before it: a program that catches the signal and reads again waits for input,
/// though it never read those bytes.
#[test]
fn a_typed_interrupt_leaves_no_unread_input() {
    if !require("python3") || !require(&shell_program()) || !require("sleep") {
        return;
    }
    let engine = engine();
    let py = engine.spawn(SpawnSpec::new("python3").arg("-q")).unwrap();
    assert_eq!(input_wait_fires(&py), Some(InputKind::Keys));
    py.submit("import time; time.sleep(60)").unwrap();
    input_wait_does_not_fire(&py);
    py.send_keys("<C-c>").unwrap();
    expect(&py, Until::text("KeyboardInterrupt"));
    assert_eq!(input_wait_fires(&py), Some(InputKind::Keys));

    // A line typed while the program is busy (ignoring SIGINT) is flushed by the ^C: when it
    // reads, it waits for another. (The 3 s are the room the two sends have after "ready".)
    let script = "trap '' INT; echo ready; sleep 3; read -r line; echo got:$line; sleep 60";
    let reader = engine.spawn(SpawnSpec::shell(script)).unwrap();
    expect(&reader, Until::text("ready"));
    reader.submit("early").unwrap();
    reader.send_keys("<C-c>").unwrap();
    assert_eq!(input_wait_fires(&reader), Some(InputKind::Line));
    reader.submit("late").unwrap();
    expect(&reader, Until::text("got:late"));
}

/// The pane of [`waits_through_its_server`]: a prompt, a line read, then a sleep and a read.
const PANE: &str = "printf 'ready> '; read -r x; echo got-$x; sleep 3; read -r y";

/// A multiplexer's client whose window runs [`PANE`] waits for input of `kind` at the
/// prompt, not while the window's program sleeps, and again after it. (With one pane or
/// window, the program in it reads, on a terminal of its own: [`PANE`]'s `read` a line.)
fn waits_through_its_server_for(client: &Session, kind: InputKind) {
    assert_eq!(input_wait_fires(client), Some(kind));
    assert!(client.screen().unwrap().contains("ready>"));
    client.submit("42").unwrap();
    expect(client, Until::screen_contains("got-42"));
    input_wait_does_not_fire(client);
    assert_eq!(input_wait_fires(client), Some(kind));
    client.close().unwrap();
}

/// A tmux client hands its terminal to the tmux server, a process of another POSIX session
/// that reads it: the client itself only polls its socket. The server's wait is the
/// terminal's, before and after a line typed through it; the program of its one pane reads
/// a line.
#[test]
fn a_tmux_client_waits_for_input_through_its_server() {
    if !require("tmux") || !require(&shell_program()) {
        return;
    }
    let dir = TestDir::new("tmux");
    let socket = dir.join("s");
    let engine = engine();
    let socket = socket.to_str().unwrap();
    let tmux = engine
        .spawn(SpawnSpec::new("tmux").args(["-S", socket, "-f", "/dev/null", "new-session", PANE]))
        .unwrap();
    waits_through_its_server_for(&tmux, InputKind::Line);
}

/// A tmux server sets a timer of half a second after a pane's output (it renames its windows
/// then), and a wait for input took that long after every line typed into a pane: the timer
/// read as a wait for the rest of a key code. A line is now answered as soon as the pane's
/// shell waits again; an Escape is still waited out, as tmux waits its `escape-time` (500 ms)
/// for the rest of a key code before it passes the Escape on.
#[test]
fn a_line_typed_into_a_tmux_pane_is_answered_without_the_servers_rename_timer() {
    if !require("tmux") || !require("bash") {
        return;
    }
    let dir = TestDir::new("tmux-rename");
    let socket = dir.join("s");
    let socket = socket.to_str().unwrap();
    let engine = engine();
    let pane = "bash --norc --noprofile";
    let tmux = engine
        .spawn(SpawnSpec::new("tmux").args(["-S", socket, "-f", "/dev/null", "new-session", pane]))
        .unwrap();
    assert_eq!(input_wait_fires(&tmux), Some(InputKind::Keys));
    let mut taken = Vec::new();
    for n in 1..=5 {
        let started = Instant::now();
        let line = format!("echo answer-$((40 + {n}))<Enter>");
        let outcome = tmux.send_keys_and_wait(&line, Until::input_wait(), LONG).unwrap();
        taken.push(started.elapsed());
        assert!(outcome.matched().is_some(), "{outcome}");
        let screen = tmux.screen().unwrap();
        assert!(screen.contains(&format!("answer-{}", 40 + n)), "{screen}");
    }
    // (Each took the timer's half second or more; a loaded machine may slow one or two.)
    let quick = taken.iter().filter(|took| **took < Duration::from_millis(300)).count();
    assert!(quick >= 3, "the lines waited for the server's timer: {taken:?}");
    let started = Instant::now();
    let outcome = tmux.send_keys_and_wait("<Esc>", Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(started.elapsed() >= Duration::from_millis(400), "{:?}", started.elapsed());
    tmux.close().unwrap();
}

/// A tmux client attached to a server started outside the session (before it, by someone
/// else: an agent driving a person's tmux) waits for input through that server, which is in
/// no cgroup or process tree of the session's. It was never "waiting for input", so every
/// call took its whole default wait.
#[test]
fn a_tmux_client_of_a_server_outside_the_session_waits_through_it() {
    if !require("tmux") || !require(&shell_program()) {
        return;
    }
    let dir = TestDir::new("tmux-outside");
    let socket = dir.join("s");
    let socket = socket.to_str().unwrap();
    let started = std::process::Command::new("tmux")
        .args(["-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", PANE])
        .status()
        .unwrap();
    let _server = TmuxServer(socket);
    assert!(started.success(), "{started}");
    let engine = engine();
    let tmux = engine.spawn(SpawnSpec::new("tmux").args(["-S", socket, "attach"])).unwrap();
    waits_through_its_server_for(&tmux, InputKind::Line);
}

/// A directory the user's alone, as GNU screen wants its sockets' (`SCREENDIR`) and gpg its
/// home (`GNUPGHOME`).
fn private_dir(name: &str) -> TestDir {
    let dir = TestDir::new(name);
    std::fs::set_permissions(&*dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    dir
}

/// GNU screen with `args`, its sockets in `dir` (see [`private_dir`]).
fn gnu_screen(engine: &termloom::Engine, dir: &TestDir, args: &[&str]) -> Session {
    let spec = SpawnSpec::new("screen").args(args).env("SCREENDIR", dir.to_str().unwrap());
    engine.spawn(spec).unwrap()
}

/// GNU screen's client hands its terminal to its server, a child of its own that left the
/// session (`SCREEN`), and waits in `pause()` for signals: the server reads the terminal and
/// the programs of its windows. The client in `pause()` was taken for busy: never "waiting
/// for input", so every call of the MCP server took its whole default wait (10 s). The
/// window's program is the reader, on its own terminal: it reads a line.
#[test]
fn a_gnu_screen_client_waits_for_input_through_its_server() {
    if !require("screen") || !require(&shell_program()) {
        return;
    }
    let dir = private_dir("screen");
    let engine = engine();
    let screen = gnu_screen(&engine, &dir, &["-c", "/dev/null", "sh", "-c", PANE]);
    waits_through_its_server_for(&screen, InputKind::Line);
}

/// gpg asks for a passphrase through its agent, a daemon in a POSIX session of its own, which
/// runs `pinentry-curses` on the terminal `GPG_TTY` names: pinentry opens it by its name (no
/// controlling terminal) and polls it alone, while gpg waits on the agent's socket. Nothing
/// read as waiting for input: every call of the MCP server waited out its quiet (1.3 s after
/// each key, `gpg running, quiet`). The dialog is the reader, of keys, found in the session's
/// cgroup and, without cgroups, among the children of a daemon the session started.
#[test]
fn a_passphrase_dialog_a_daemon_runs_on_the_terminal_waits_for_keys() {
    if !require("gpg") || !require("gpg-agent") || !require("pinentry-curses") || !require("bash") {
        return;
    }
    let pinentry = in_path("pinentry-curses");
    for cgroups in [true, false] {
        let home = private_dir("gpg");
        let conf = format!("pinentry-program {}\n", pinentry.display());
        std::fs::write(home.join("gpg-agent.conf"), conf).unwrap();
        std::fs::write(home.join("in.txt"), "a secret\n").unwrap();
        let engine =
            termloom::Engine::new(termloom::Config { cgroups, ..termloom::Config::default() })
                .unwrap();
        let line = "GPG_TTY=$(tty) exec gpg -c -o out.gpg in.txt";
        let spec = SpawnSpec::new("bash")
            .args(["-c", line])
            .cwd(&*home)
            .env("GNUPGHOME", home.to_str().unwrap());
        let gpg = engine.spawn(spec).unwrap();
        for asked in ["Enter passphrase", "Please re-enter this passphrase"] {
            expect(&gpg, Until::screen_contains(asked));
            assert_eq!(input_wait_fires(&gpg), Some(InputKind::Keys), "cgroups {cgroups}");
            let reader = gpg.status().unwrap().foreground.unwrap().name;
            assert!(reader.starts_with("pinentry"), "cgroups {cgroups}: {reader}");
            gpg.send_keys("correct-horse-42<Enter>").unwrap();
        }
        let done = expect(&gpg, Until::exit());
        let exited = termloom::ExitStatus::Code(0);
        assert_eq!(done.status.activity, Activity::Exited(exited), "cgroups {cgroups}: {done}");
        assert!(home.join("out.gpg").is_file());
        gpg.close().unwrap();
    }
}

/// A dialog a daemon runs on the terminal that reads its answer and ends, the next dialog
/// drawn by a new process of the same program (`gpg -c`'s second `pinentry-curses`, "Please
/// re-enter this passphrase"): the input was read, by the dialog gone. The reads of the
/// group's readers were summed before the answer was typed (the client's, and the first
/// dialog's up to its read); the next dialog's, up to its read, added up to as many, and the
/// answer was taken for unread until the wait's timeout (1 run in 10 under load with gpg).
/// Here the two dialogs are the same Perl program, which reads alike until it asks, and
/// draw nothing after the answer (echo off): the next look comes once the second asks. The
/// daemon reaps each dialog at once, or (`late`) only after both: a dialog ended but not
/// reaped, still in its group, has ended all the same (review vu).
#[test]
fn the_next_dialog_a_daemon_runs_after_one_that_read_its_answer_waits_for_input() {
    if !require("python3") || !require("perl") {
        return;
    }
    // (In Perl, the client in Python: a process of another session running the client's own
    // program is taken for a relay it attached to, whose reads count from then on.)
    let dialog = "use POSIX;\n\
        my $fd = POSIX::open($ARGV[0], O_RDWR | O_NOCTTY);\n\
        my $modes = POSIX::Termios->new;\n\
        $modes->getattr($fd);\n\
        $modes->setlflag($modes->getlflag & ~ECHO);\n\
        $modes->setattr($fd, TCSANOW);\n\
        POSIX::write($fd, \"dialog $ARGV[1] asks: \", 15);\n\
        POSIX::read($fd, my $answer, 100);\n";
    let client = format!(
        "import os, socket, subprocess, sys\n\
        late = sys.argv[1:] == ['late']\n\
        tty = os.ttyname(0)\n\
        mine, theirs = socket.socketpair()\n\
        if os.fork() == 0:\n\
        \x20   os.setsid()\n\
        \x20   if os.fork() == 0:\n\
        \x20       mine.close()\n\
        \x20       null = os.open(os.devnull, os.O_RDWR)\n\
        \x20       for fd in (0, 1, 2):\n\
        \x20           os.dup2(null, fd)\n\
        \x20       kept = []\n\
        \x20       for n in ['1', '2']:\n\
        \x20           p = subprocess.Popen(['perl', '-e', {dialog:?}, tty, n])\n\
        \x20           if late:\n\
        \x20               os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)\n\
        \x20           else:\n\
        \x20               p.wait()\n\
        \x20           kept.append(p)\n\
        \x20       for p in kept:\n\
        \x20           p.wait()\n\
        \x20       theirs.sendall(b'ok')\n\
        \x20   os._exit(0)\n\
        os.wait()\n\
        theirs.close()\n\
        print('answered', mine.recv(16).decode())\n"
    );
    for (cgroups, reaped) in [(true, "now"), (false, "now"), (true, "late")] {
        let engine =
            termloom::Engine::new(termloom::Config { cgroups, ..termloom::Config::default() })
                .unwrap();
        let spec = SpawnSpec::new("python3").args(["-c", &client, reaped]);
        let session = engine.spawn(spec).unwrap();
        for n in ["1", "2"] {
            expect(&session, Until::screen_contains(format!("dialog {n} asks")));
            let fired = input_wait_fires(&session);
            assert_eq!(fired, Some(InputKind::Password), "cgroups {cgroups}, reaped {reaped}");
            session.send_keys("yes<Enter>").unwrap();
        }
        read_until(&session, "answered ok");
        expect(&session, Until::exit());
        session.close().unwrap();
    }
}

/// A client blocked reading the socket of a daemon the session started, while the daemon
/// computes: gpg while its agent, started with it, works out for a second how long a
/// passphrase's hash must take before it shows its dialog, or generates a key. The client was
/// taken for a wait on the world outside, and the default wait settled once quiet (`gpg
/// running, quiet · settled after 1.26 s`, the dialog not drawn yet, and a key typed then was
/// lost). Here the daemon, forked twice into a POSIX session of its own, computes for 3 s, then
/// answers: the default wait waits for the answer. (With cgroups only: without them the
/// session's daemons cannot be told from the other sessions', see the test below.)
#[test]
fn a_client_waits_for_the_daemon_it_started_while_the_daemon_computes() {
    if !require("python3") {
        return;
    }
    let client = "import os, socket, time\n\
        mine, theirs = socket.socketpair()\n\
        if os.fork() == 0:\n\
        \x20   os.setsid()\n\
        \x20   if os.fork() == 0:\n\
        \x20       mine.close()\n\
        \x20       end = time.monotonic() + 3\n\
        \x20       while time.monotonic() < end:\n\
        \x20           pass\n\
        \x20       theirs.sendall(b'42')\n\
        \x20   os._exit(0)\n\
        os.wait()\n\
        theirs.close()\n\
        print('answer', mine.recv(16).decode())\n";
    let v2 = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"];
    if !v2.iter().any(|dir| std::path::Path::new(dir).join("cgroup.controllers").exists()) {
        eprintln!("no cgroup v2 here: the session's daemons cannot be told apart; skipped");
        assert!(std::env::var_os("CI").is_none(), "CI runs with cgroups");
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": ["python3", "-c", client] });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("answer 42"), "{}", started.text);
    assert!(started.text.contains("exited"), "{}", started.text);
}

/// A program reading a socket whose other end is quiet settles the default wait once quiet,
/// while another session of the engine runs a busy daemon: without cgroups, every session's
/// daemons were taken for this one's, and the wait ran to its 10 s timeout.
#[test]
fn another_sessions_busy_daemon_does_not_hold_a_client_reading_a_socket() {
    let Some((_listener, client)) = connected_python("print('connected', flush=True)\ns.recv(1)\n")
    else {
        return;
    };
    let busy = "import os\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        pass\n";
    for cgroups in [true, false] {
        let engine =
            termloom::Engine::new(termloom::Config { cgroups, ..termloom::Config::default() })
                .unwrap();
        let toolbox = termloom::tools::Toolbox::new(engine);
        let daemon =
            toolbox.call("terminal_start", &serde_json::json!({ "argv": ["python3", "-c", busy] }));
        let daemon_id = daemon.structured.as_ref().unwrap()["session_id"].clone();
        let began = Instant::now();
        let start = serde_json::json!({ "argv": ["python3", "-c", client] });
        let started = toolbox.call("terminal_start", &start);
        assert!(started.text.contains("connected"), "cgroups {cgroups}: {}", started.text);
        assert!(!started.text.contains("still busy"), "cgroups {cgroups}: {}", started.text);
        assert!(
            began.elapsed() < Duration::from_secs(8),
            "cgroups {cgroups}: {:?}",
            began.elapsed()
        );
        let id = started.structured.as_ref().unwrap()["session_id"].clone();
        toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
        toolbox.call("terminal_close", &serde_json::json!({ "session_id": daemon_id }));
    }
}

/// A password asked for in GNU screen's one window: the window's program is the reader, on
/// a terminal that reads lines with echo off, so a secret may be typed (the session's
/// terminal, which screen keeps raw, does not echo it either). That terminal's modes must
/// pass the secret whole too: with `stty intr z` there, a secret's `z` would drop its start
/// (and interrupt the prompt), so a secret holding one is refused, naming nothing of it.
#[test]
fn a_secret_is_typed_at_a_password_prompt_in_gnu_screens_window() {
    if !require("screen") || !require(&shell_program()) {
        return;
    }
    let dir = private_dir("screen-secret");
    let asks = "stty -echo intr z; printf 'Password: '; read -r p; stty echo intr ^C; echo; \
                echo \"got-$p-end\"; sleep 60";
    let engine = engine();
    let screen = gnu_screen(&engine, &dir, &["-c", "/dev/null", "sh", "-c", asks]);
    expect(&screen, Until::screen_contains("Password:"));
    assert_eq!(input_wait_fires(&screen), Some(InputKind::Password));
    let err = screen.send_secret("abzcd").unwrap_err();
    assert!(err.to_string().contains("acts on a character"), "{err}");
    assert!(!err.to_string().contains("abzcd"), "{err}");
    screen.send_secret("hunter2").unwrap();
    expect(&screen, Until::screen_contains("got-hunter2-end"));
    screen.close().unwrap();
}

/// A secret sent the moment a password prompt shows in GNU screen's window, whose program
/// turned echo off and drew it, then works a moment before python's `getpass` reads (as `su`
/// does its PAM work): the secret is held, as on the session's own terminal, until the
/// window's program reads, and typed then. It was looked at once and refused at once
/// (`NotAtPasswordPrompt`: screen keeps the session's terminal raw, and the window's reader
/// was not found), 10 sends of 10; python's own `getpass`, sent to as its prompt showed, was
/// refused 4 of 10 on a loaded machine.
#[test]
fn a_secret_sent_as_gnu_screens_window_shows_its_password_prompt_is_held_for_its_reader() {
    if !require("screen") || !require("python3") {
        return;
    }
    let asks = "import getpass, termios, time\n\
                mode = termios.tcgetattr(0)\nmode[3] &= ~termios.ECHO\n\
                termios.tcsetattr(0, termios.TCSANOW, mode)\n\
                print('Secret: ', end='', flush=True)\ntime.sleep(0.3)\n\
                p = getpass.getpass('')\nprint('got-' + p + '-end', flush=True)\ntime.sleep(60)\n";
    let engine = engine();
    let mut refused = Vec::new();
    for round in 0..10 {
        let dir = private_dir(&format!("screen-held-secret-{round}"));
        let screen = gnu_screen(&engine, &dir, &["-c", "/dev/null", "python3", "-c", asks]);
        expect(&screen, Until::screen_contains("Secret:"));
        match screen.send_secret("hunter2") {
            Ok(()) => {
                expect(&screen, Until::screen_contains("got-hunter2-end"));
            }
            Err(err) => refused.push(format!("round {round}: {err}")),
        }
        screen.close().unwrap();
    }
    eprintln!("refused {} of 10", refused.len());
    assert!(refused.is_empty(), "{refused:#?}");
}

/// A password prompt in GNU screen's window whose program never reads (`stty -echo`, then a
/// sleep): the secret is held as on the session's own terminal, and refused as there once its
/// time is out, with `NoSecretReader` naming what the program does. It was refused at once
/// with `NotAtPasswordPrompt`, the terminal the session relays to never looked at.
#[test]
fn a_secret_for_gnu_screens_window_that_never_reads_is_refused_as_on_the_sessions_own_terminal() {
    if !require("screen") || !require(&shell_program()) {
        return;
    }
    let dir = private_dir("screen-no-reader");
    let asks = "stty -echo; printf 'Password: '; sleep 60";
    let engine = engine();
    let screen = gnu_screen(&engine, &dir, &["-c", "/dev/null", "sh", "-c", asks]);
    expect(&screen, Until::screen_contains("Password:"));
    let began = Instant::now();
    let err = screen.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::NoSecretReader { .. }), "{err}");
    assert!(err.to_string().contains("sleep"), "{err}");
    assert!(began.elapsed() >= Duration::from_secs(2), "{:?}", began.elapsed());
    assert!(!err.to_string().contains("hunter2"), "{err}");
    screen.close().unwrap();
}

/// `screen -r` attaches to a GNU screen server that is not its child (one started before,
/// detached from: here in the same session): the client waits in `pause()` and the server
/// reads the terminal, as tmux's does for `tmux attach`. It was never waiting for input
/// (each MCP call took its whole default wait); it waits through that server now, for the
/// line the program of its one window reads on its own terminal.
#[test]
fn a_gnu_screen_client_reattached_waits_through_its_server() {
    if !require("screen") || !require("bash") {
        return;
    }
    let dir = private_dir("screen-reattach");
    let engine = engine();
    let shell = engine
        .spawn(
            SpawnSpec::new("bash")
                .args(["--norc", "--noprofile"])
                .env("PS1", "prompt> ")
                .env("SCREENDIR", dir.to_str().unwrap())
                .env("PANE", PANE),
        )
        .unwrap();
    expect(&shell, Until::screen_contains("prompt>"));
    shell.submit("screen -c /dev/null -S tl sh -c \"$PANE\"").unwrap();
    expect(&shell, Until::screen_contains("ready>"));
    shell.send_keys("<C-a>d").unwrap();
    expect(&shell, Until::text("[detached"));
    shell.submit("screen -c /dev/null -r tl").unwrap();
    expect(&shell, Until::screen_contains("ready>"));
    waits_through_its_server_for(&shell, InputKind::Line);
}

/// GNU screen with two windows: a password prompt in the first, hidden, and a line asked for
/// in the second, shown, which gets the keys. `/proc` cannot tell which window is shown: the
/// program of the first was named the reader ("sh waiting for a password"), and a secret sent
/// then went to the window shown, which echoed it. Now screen itself reads (keys), and a
/// secret is refused.
#[test]
fn gnu_screen_with_two_windows_names_no_window_the_reader() {
    if !require("screen") || !require(&shell_program()) {
        return;
    }
    let dir = private_dir("screen-windows");
    let rc = dir.join("screenrc");
    std::fs::write(
        &rc,
        "startup_message off\n\
         screen -t pw sh -c 'stty -echo; printf \"Password: \"; read -r p; stty echo; echo; echo pw-$p; sleep 60'\n\
         screen -t line sh -c 'printf \"name> \"; read -r x; echo got-$x; sleep 60'\n",
    )
    .unwrap();
    let engine = engine();
    let screen = gnu_screen(&engine, &dir, &["-c", rc.to_str().unwrap()]);
    expect(&screen, Until::screen_contains("name>"));
    let outcome = expect(&screen, Until::input_wait());
    assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
    let reader = outcome.status.foreground.as_ref().map(|p| p.name.as_str());
    assert_eq!(reader, Some("screen"), "{outcome}");
    let err = screen.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::SecretThroughMultiplexer { terminals: Ok(2), .. }), "{err}");
    screen.submit("42").unwrap();
    expect(&screen, Until::screen_contains("got-42"));
    assert!(!screen.screen().unwrap().contains("hunter2"));
    screen.close().unwrap();
}

/// A worker thread asking for a password after its process's first thread ended alone
/// (`SYS_exit`, C's `pthread_exit` in `main`) waits for it, a password, as any program at
/// that prompt: `/proc/PID/stat` says such a process is a zombie (the first thread's state),
/// and the probe passed it over, so no input wait held (the session stayed `Quiet`, with no
/// input kind) and MCP's `terminal_send` refused a secret to "call again once it waits". The
/// secret is typed to it (the reader check, which passed it over too, refused it after 2 s:
/// `NoSecretReader`, "process group N has no live process").
#[test]
fn a_worker_whose_first_thread_exited_waits_for_its_password() {
    let dir = TestDir::new("zombie-leader-password");
    let Some(program) = first_thread_exits(&dir, "", ASKS_A_PASSWORD) else { return };
    let engine = engine();
    let session = bash(&engine);
    expect(&session, Until::input_wait());
    session.submit(&format!("python3 '{}'", program.display())).unwrap();
    expect(&session, Until::screen_contains("Password-z: "));
    let outcome = expect(&session, Until::input_wait());
    assert_eq!(outcome.status.input_kind, Some(InputKind::Password), "{outcome}");
    let reader = outcome.status.foreground.as_ref().unwrap();
    assert_eq!(reader.name, "python3", "{outcome}");
    session.send_secret("hunter2").unwrap();
    expect(&session, Until::text("got-hunter2-end-z"));
    session.close().unwrap();
}

/// The same kind of process, its worker running, stopped (`Signal::Stop`, SIGSTOP): its
/// status said `Quiet`, not `Stopped`, as the all-stopped check read the stat's state, the
/// first thread's `Z`. Such a process's live threads' states are read now.
#[test]
fn a_stopped_worker_whose_first_thread_exited_is_stopped() {
    let dir = TestDir::new("zombie-leader-stopped");
    let worker = "import time\nos.write(1, b'work' b'er-up\\n')\nwhile True: time.sleep(1)";
    let Some(program) = first_thread_exits(&dir, "", worker) else { return };
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("python3").arg(&program)).unwrap();
    expect(&session, Until::text("worker-up"));
    assert!(!matches!(session.status().unwrap().activity, Activity::Stopped));
    session.signal(termloom::Signal::Stop).unwrap();
    expect(&session, Until::quiet(Duration::from_millis(100)));
    let status = session.status().unwrap();
    assert!(matches!(status.activity, Activity::Stopped), "{status}");
    session.close().unwrap();
}

/// GNU screen with two windows: a password asked for in the first, hidden, while the program
/// of the second, shown, handed its terminal to a process group that has ended since, so that
/// no live process owns that terminal. The relay's judgement counted only the windows with a
/// live foreground group: it named the first window's reader, and a secret, held while that
/// program worked before reading or sent once it read, went to the window shown, which echoed
/// it (3 sends of 3). Every terminal screen hosts counts now: the secret is refused at once,
/// saying why, and nothing is typed.
#[test]
fn a_secret_through_gnu_screen_showing_a_window_whose_group_ended_is_refused() {
    if !require("screen") || !require("python3") || !require(&shell_program()) {
        return;
    }
    let dir = private_dir("screen-ended-group");
    let shown = dir.join("shown.py");
    std::fs::write(
        &shown,
        "import os, signal, time\nsignal.signal(signal.SIGTTOU, signal.SIG_IGN)\n\
         pid = os.fork()\n\
         if pid == 0:\n    os.setpgid(0, 0)\n    time.sleep(0.1)\n    os._exit(0)\n\
         os.setpgid(pid, pid)\nos.tcsetpgrp(0, pid)\nos.waitpid(pid, 0)\n\
         print('window-two', flush=True)\ntime.sleep(120)\n",
    )
    .unwrap();
    let rc = dir.join("screenrc");
    std::fs::write(
        &rc,
        format!(
            "startup_message off\n\
             screen -t pw sh -c 'stty -echo; printf \"Password: \"; sleep 2; read -r p; stty echo; echo; echo pw-$p; sleep 60'\n\
             screen -t two python3 {}\n",
            shown.display()
        ),
    )
    .unwrap();
    let engine = engine();
    let screen = gnu_screen(&engine, &dir, &["-c", rc.to_str().unwrap()]);
    expect(&screen, Until::screen_contains("window-two"));
    // Sent while the hidden window's program works before it reads (it was held, then typed),
    // then once it reads.
    let began = Instant::now();
    let err = screen.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::SecretThroughMultiplexer { terminals: Ok(2), .. }), "{err}");
    assert!(err.to_string().contains("cannot tell which one it shows"), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert!(began.elapsed() < Duration::from_secs(1), "{:?}", began.elapsed());
    let outcome = expect(&screen, Until::input_wait());
    let reader = outcome.status.foreground.as_ref().map(|p| p.name.as_str());
    assert_eq!(reader, Some("screen"), "{outcome}");
    assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
    let err = screen.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::SecretThroughMultiplexer { .. }), "{err}");
    // (Typed, the window shown would echo it: its terminal echoes.)
    screen.send_text("echoed").unwrap();
    expect(&screen, Until::screen_contains("echoed"));
    assert!(!screen.screen().unwrap().contains("hunter2"));
    assert!(!format!("{:?}", screen.read().unwrap()).contains("hunter2"));
    screen.close().unwrap();
}

/// A relay of the caller's own user (it left the session, holds the session's terminal and
/// relays a `getpass` on a terminal of its own) whose open files are too many to read all of
/// (1,100 besides its terminals, past the 1,024 termloom reads of one process) is refused for
/// that: it was said to run "as another user, or /proc hides them", and running termloom as
/// its user was advised, which was no help.
#[test]
fn a_secret_through_a_relay_with_too_many_open_files_is_refused_for_that() {
    if !require("python3") {
        return;
    }
    let relay = "import os, pty, select, sys, time, tty\n\
        name = os.ttyname(0)\n\
        pid = os.fork()\n\
        if pid:\n    os.waitpid(pid, 0)\n    sys.exit(0)\n\
        os.setsid()\n\
        term = os.open(name, os.O_RDWR | os.O_NOCTTY)\n\
        child, master = pty.fork()\n\
        if child == 0:\n    import getpass\n    p = getpass.getpass('Password: ')\n    \
            print('got ' + p, flush=True)\n    time.sleep(60)\n    os._exit(0)\n\
        extra = [os.open('/dev/null', os.O_RDONLY) for _ in range(1100)]\n\
        tty.setraw(term)\n\
        p = select.poll()\np.register(term, select.POLLIN)\np.register(master, select.POLLIN)\n\
        while True:\n    for fd, _ in p.poll():\n        data = os.read(fd, 1024)\n        \
            if not data:\n            os._exit(0)\n        \
            os.write(master if fd == term else term, data)\n";
    let engine = engine();
    let session = engine.spawn(SpawnSpec::new("python3").args(["-c", relay])).unwrap();
    expect(&session, Until::screen_contains("Password:"));
    expect(&session, Until::input_wait());
    let err = session.send_secret("hunter2").unwrap_err();
    let many = termloom::RelayUnseen::TooManyFiles { limit: 1024 };
    assert!(
        matches!(err, Error::SecretThroughMultiplexer { terminals: Err(m), .. } if m == many),
        "{err}"
    );
    let said = err.to_string();
    assert!(
        said.contains("it holds more than 1024, the most termloom looks at in one process"),
        "{said}"
    );
    assert!(!said.contains("another user") && !said.contains("hides them"), "{said}");
    assert!(!said.contains("hunter2"), "{said}");
    assert!(!session.screen().unwrap().text().contains("got"));
    session.close().unwrap();
}

/// A password asked for in tmux's one pane: the pane's program is named the reader, in tmux,
/// on a terminal that reads lines with echo off, and a secret may be typed, as in GNU
/// screen's one window. The server, which reads the session's terminal raw, was named
/// instead, whatever the pane ran (`tmux: server waiting for keys`), and a secret refused.
/// With a second window, `/proc` cannot tell which one gets the keys: the server reads again,
/// named as the program the session runs (`tmux`, not its title `tmux: server`), and a secret
/// is refused.
#[test]
fn the_program_in_tmuxs_one_pane_is_named_the_reader_with_its_input() {
    if !require("tmux") || !require("sh") {
        return;
    }
    let dir = TestDir::new("tmux-pane-reader");
    let socket = dir.join("s");
    let socket = socket.to_str().unwrap();
    let asks = "stty -echo; printf 'Password: '; read -r p; stty echo; echo; echo pw-$p; read -r q";
    let engine = engine();
    let args = ["-S", socket, "-f", "/dev/null", "new-session", "sh", "-c", asks];
    let tmux = engine.spawn(SpawnSpec::new("tmux").args(args)).unwrap();
    expect(&tmux, Until::screen_contains("Password:"));
    let outcome = expect(&tmux, Until::input_wait());
    assert_eq!(outcome.status.input_kind, Some(InputKind::Password), "{outcome}");
    let reader = outcome.status.foreground.as_ref().unwrap();
    assert_eq!((reader.name.as_str(), reader.within.as_deref()), ("sh", Some("tmux")));
    tmux.send_secret("hunter2").unwrap();
    expect(&tmux, Until::screen_contains("pw-hunter2"));

    let line = "printf 'name> '; read -r x; echo got-$x; read -r y";
    let window = std::process::Command::new("tmux")
        .args(["-S", socket, "new-window", "sh", "-c", line])
        .status()
        .unwrap();
    assert!(window.success(), "{window}");
    expect(&tmux, Until::screen_contains("name>"));
    let outcome = expect(&tmux, Until::input_wait());
    assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
    let reader = outcome.status.foreground.as_ref().unwrap();
    assert_eq!((reader.name.as_str(), reader.within.as_deref()), ("tmux", None));
    let err = tmux.send_secret("hunter2").unwrap_err();
    assert!(matches!(err, Error::SecretThroughMultiplexer { terminals: Ok(2), .. }), "{err}");
    tmux.close().unwrap();
}

/// `sleep 300` typed into a shell in a tmux pane, or in GNU screen's window, settles the
/// default wait at once and says so, as it does in a shell of the session's own: the
/// multiplexer's server (the relay) reads the session's terminal, and the sleep it hosts read
/// as no wait for input, so the client was `running, quiet` after 1.3 s of silence (tmux) or
/// still busy after the whole 10 s (screen). A short sleep is still followed to its end.
#[test]
fn a_long_sleep_in_a_tmux_pane_or_a_gnu_screen_window_settles_the_default_wait() {
    if !require("tmux") || !require("screen") || !require("bash") || !require("sleep") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let tmux_dir = TestDir::new("tmux-sleep");
    let socket = tmux_dir.join("s");
    let pane = "bash --norc --noprofile";
    let argv = serde_json::json!(["tmux", "-S", socket, "-f", "/dev/null", "new-session", pane]);
    settles_long_sleeps(&toolbox, serde_json::json!({ "argv": argv }), str::to_owned);
    let screens = private_dir("screen-sleep");
    let argv = serde_json::json!(["screen", "-c", "/dev/null", "bash", "--norc", "--noprofile"]);
    let env = serde_json::json!({ "SCREENDIR": *screens });
    let start = serde_json::json!({ "argv": argv, "env": env });
    settles_long_sleeps(&toolbox, start, str::to_owned);
}

/// A monitor on a fast tick in a tmux pane (`htop -d 3`, a 0.3 s poll of its pane) waits for
/// keys at once: its timer is a full-screen program's refresh, as it is outside tmux. (Probed
/// as a hosted terminal whose screen the session does not show, a first version took it for
/// no full-screen program: the 0.3 s timer was no tick, and each call waited out 10 s.)
#[test]
fn a_fast_monitor_in_a_tmux_pane_waits_for_keys_at_once() {
    if !require("tmux") || !require("htop") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let dir = TestDir::new("tmux-htop");
    let socket = dir.join("s");
    let home = private_dir("tmux-htop-home");
    let argv = serde_json::json!([
        "tmux",
        "-S",
        socket,
        "-f",
        "/dev/null",
        "new-session",
        "htop",
        "-d",
        "3"
    ]);
    let start =
        serde_json::json!({ "argv": argv, "env": { "HOME": *home }, "for_screen_text": "F10" });
    let started = toolbox.call("terminal_start", &start);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let began = Instant::now();
    let sent =
        toolbox.call("terminal_send", &serde_json::json!({ "session_id": id, "keys": "<F6>" }));
    assert!(sent.text.contains("waiting for keys"), "{}", sent.text);
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {}", began.elapsed(), sent.text);
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A monitor that sleeps between its frames in a tmux pane (`watch -n 5`) beside the pane
/// typed into (vim's) keeps the server from waiting no more than it keeps its own pane's
/// program: it has shown what it shows. Every key waited for the monitor's next tick
/// (`tmux: client running, quiet · settled after 1.97 s` with `watch -n 2`, 5 s with `-n 5`).
#[test]
fn a_monitor_in_a_tmux_pane_beside_the_one_typed_into_keeps_no_key_waiting() {
    if !require("tmux") || !require("vim") || !require("watch") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let dir = TestDir::new("tmux-watch");
    let socket = dir.join("s");
    let vim = "vim -u NONE -N -i NONE -n";
    let argv = serde_json::json!([
        "tmux",
        "-S",
        socket,
        "-f",
        "/dev/null",
        "new-session",
        vim,
        ";",
        "split-window",
        "watch -n 5 date",
        ";",
        "select-pane",
        "-t",
        "0"
    ]);
    // (The default wait: it ends once the monitor is seen ticking, a tick after its start.)
    let started = toolbox.call("terminal_start", &serde_json::json!({ "argv": argv }));
    assert!(started.text.contains("Every 5.0s: date"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    for keys in ["ohello<Esc>", "yyp", ":echo 'said'<Enter>"] {
        let began = Instant::now();
        let arguments = serde_json::json!({ "session_id": id, "keys": keys });
        let said = toolbox.call("terminal_send", &arguments).text;
        let took = began.elapsed();
        assert!(said.contains("waiting for keys"), "{keys}: {said}");
        assert!(took < Duration::from_millis(2500), "{keys} after {took:?}: {said}");
    }
    let look = serde_json::json!({ "session_id": id, "view": "screen" });
    let screen = toolbox.call("terminal_read", &look).text;
    assert_eq!(screen.matches("hello").count(), 2, "{screen}");
    assert!(screen.contains("said"), "{screen}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));

    // A loop the keys start in a pane beside vim's, printing a line a second, redraws on a
    // timer too, but is busy with the keys: the server did not wait (it read `tmux: server
    // waiting for keys` 1.1 s in).
    let socket = dir.join("t");
    let bash = "bash --norc --noprofile";
    let argv = serde_json::json!([
        "tmux",
        "-S",
        socket,
        "-f",
        "/dev/null",
        "new-session",
        vim,
        ";",
        "split-window",
        bash
    ]);
    let started = toolbox.call("terminal_start", &serde_json::json!({ "argv": argv }));
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let keys = "perl -le '$|=1; for (1..30) { print qq(step $_); sleep 1 }'<Enter>";
    let arguments = serde_json::json!({ "session_id": id, "keys": keys, "timeout_ms": 4000 });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("step 2"), "{said}");
    assert!(!said.contains("waiting for keys") && !said.contains("settled"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// Starts bash, or a multiplexer whose one window runs it (`start`, the arguments of
/// `terminal_start`), and checks the default wait after `sleep 300`, then after `sleep 3`,
/// each typed into it as the line `typed` makes of it.
fn settles_long_sleeps(
    toolbox: &termloom::tools::Toolbox,
    start: serde_json::Value,
    typed: impl Fn(&str) -> String,
) {
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let send = |arguments: serde_json::Value| {
        let mut arguments = arguments;
        arguments["session_id"] = id.clone();
        toolbox.call("terminal_send", &arguments).text
    };
    let began = Instant::now();
    let said = send(serde_json::json!({ "text": typed("sleep 300"), "submit": true }));
    assert!(said.contains("settled") && said.contains(": sleeping 29"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    let said = send(serde_json::json!({ "keys": "<C-c>" }));
    assert!(said.contains("waiting for keys"), "{said}");
    // (The sum is printed only when the sleep has ended: the typed line shows the sum's
    // expression.)
    let line = typed("sleep 3; echo done-$((1 + 2))");
    let said = send(serde_json::json!({ "text": line, "submit": true }));
    assert!(said.contains("done-3") && said.contains("waiting for keys"), "{said}");
    // A program that printed, then sleeps once, is followed too: the multiplexer's screen is
    // full-screen, but its pane's sleep is no monitor's between two frames (it settled before
    // the last line).
    let line = typed("perl -e '$|=1; print qq(step-1\\n); sleep 3; print qq(done-4\\n)'");
    let said = send(serde_json::json!({ "text": line, "submit": true }));
    assert!(said.contains("done-4") && said.contains("waiting for keys"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// `sleep 300` run in a POSIX session of its own by a command the shell waits for, which
/// keeps the terminal with no controlling terminal (`setsid -w`, `su USER -c`), settles the
/// default wait at once and says so, as in a shell of the session's own: the sleep's verdict
/// was dropped through the detached child, and the call read `running, quiet · still busy
/// after 10.0 s`. A short sleep is still followed to its end.
#[test]
fn a_long_sleep_in_a_session_of_its_own_settles_the_default_wait() {
    if !require("bash") || !require("setsid") || !require("sleep") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": ["bash", "--norc", "--noprofile"] });
    settles_long_sleeps(&toolbox, start.clone(), |command| format!("setsid -w sh -c '{command}'"));
    if !require_root("switching to another user needs root") || !require("su") {
        return;
    }
    let su = |command: &str| format!("su -s /bin/sh nobody -c '{command}'");
    settles_long_sleeps(&toolbox, start, su);
}

/// `sleep 300` stopped with Ctrl-Z and brought back with `fg`, and a program back in its
/// `poll` of the terminal, are read as before the stop: the kernel finishes each interrupted
/// call through `restart_syscall`, which was read as work, and each `fg` read `running, quiet
/// · still busy after 10.0 s`.
#[test]
fn a_sleep_or_a_poll_of_the_terminal_stopped_and_continued_is_read_as_before() {
    if !require("bash") || !require("sleep") || !require("python3") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start =
        serde_json::json!({ "argv": ["bash", "--norc", "--noprofile"], "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let send = |arguments: serde_json::Value| {
        let mut arguments = arguments;
        arguments["session_id"] = id.clone();
        toolbox.call("terminal_send", &arguments).text
    };
    let line = |text: &str| serde_json::json!({ "text": text, "submit": true });
    let said = send(line("sleep 300"));
    assert!(said.contains("settled") && said.contains(": sleeping 29"), "{said}");
    let said = send(serde_json::json!({ "keys": "<C-z>" }));
    assert!(said.contains("Stopped") && said.contains("bash waiting for keys"), "{said}");
    let began = Instant::now();
    let said = send(line("fg"));
    assert!(said.contains("settled") && said.contains(": sleeping 29"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    let said = send(serde_json::json!({ "keys": "<C-c>" }));
    assert!(said.contains("bash waiting for keys"), "{said}");
    let poll = "python3 -c 'import select; p = select.poll(); p.register(0, select.POLLIN); \
        print(\"ready:\", p.poll(), flush=True)'";
    let said = send(line(poll));
    assert!(said.contains("python3 waiting for a line"), "{said}");
    let said = send(serde_json::json!({ "keys": "<C-z>" }));
    assert!(said.contains("Stopped") && said.contains("bash waiting for keys"), "{said}");
    let began = Instant::now();
    let said = send(line("fg"));
    assert!(said.contains("python3 waiting for a line"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    let said = send(line("go"));
    assert!(said.contains("ready: [(0, 1)]") && said.contains("bash waiting for keys"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A debugged program in `sleep(600)`, interrupted with Ctrl-C and continued under gdb,
/// settles the default wait at once, sleeping, as it did when first run: the sleep the
/// kernel restarts after the debugger's stop read as work, `running, quiet · still busy
/// after 10.0 s`.
#[test]
fn a_sleep_continued_under_gdb_settles_the_default_wait() {
    if !require("gcc") || !require("gdb") {
        return;
    }
    let dir = TestDir::new("gdb-nap");
    let program = "#include <stdio.h>\n#include <unistd.h>\n\
        int main(void) { puts(\"napping\"); fflush(stdout); sleep(600); return 0; }\n";
    std::fs::write(dir.join("nap.c"), program).unwrap();
    let toolbox = termloom::tools::Toolbox::new(engine());
    let argv = ["sh", "-c", "gcc -g -O0 -o nap nap.c && exec gdb -nx -q ./nap"];
    let start = serde_json::json!({ "argv": argv, "cwd": *dir, "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("gdb waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let send = |arguments: serde_json::Value| {
        let mut arguments = arguments;
        arguments["session_id"] = id.clone();
        toolbox.call("terminal_send", &arguments).text
    };
    let said = send(serde_json::json!({ "text": "run", "submit": true }));
    assert!(said.contains("napping") && said.contains(": sleeping 59"), "{said}");
    let said = send(serde_json::json!({ "keys": "<C-c>" }));
    assert!(said.contains("SIGINT") && said.contains("gdb waiting for keys"), "{said}");
    let began = Instant::now();
    let said = send(serde_json::json!({ "text": "continue", "submit": true }));
    assert!(said.contains("settled") && said.contains(": sleeping 59"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// Builds the C program `source` as the 32-bit x86 program `name` in `dir` (`gcc -m32`,
/// with gcc-multilib's libraries), as [`require`] does for a program: `false`, saying the
/// test skips, where it cannot (no gcc, no 32-bit C library), except under `CI`, where that
/// fails; `false` too on another architecture than x86_64, under `CI` too.
fn build_32_bit(dir: &std::path::Path, name: &str, source: &str) -> bool {
    if !cfg!(target_arch = "x86_64") || !require("gcc") {
        return false;
    }
    let Err(why) = common::gcc(dir, name, source, &["-m32", "-O0"]) else { return true };
    assert!(std::env::var_os("CI").is_none(), "gcc -m32 fails (gcc-multilib, .ci/run): {why}");
    eprintln!("skipped: gcc -m32 cannot build here (no gcc-multilib): {why}");
    false
}

/// The toolbox, the session it started running `argv` in `dir` (the start's text must
/// contain `ready`), and a `terminal_send` to it.
fn start_in(
    dir: &std::path::Path,
    argv: &[&str],
    ready: &str,
) -> (termloom::tools::Toolbox, serde_json::Value) {
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": argv, "cwd": dir, "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains(ready), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    (toolbox, id)
}

/// `terminal_send` of `arguments` to session `id`: what it says.
fn send_to(
    toolbox: &termloom::tools::Toolbox,
    id: &serde_json::Value,
    arguments: serde_json::Value,
) -> String {
    let mut arguments = arguments;
    arguments["session_id"] = id.clone();
    toolbox.call("terminal_send", &arguments).text
}

/// A 32-bit program (`gcc -m32`, every call of which goes through `int $0x80` and is
/// numbered by i386's table) reading a line waits for one, at once: i386's `read` (3) is
/// x86_64's `close`, and every line sent to it was read as work, the full default wait.
#[test]
fn a_32_bit_program_reading_a_line_waits_for_one() {
    let dir = TestDir::new("i386-repl");
    let program = "#include <stdio.h>\n\
        int main(void) {\n    char line[256];\n    for (;;) {\n        \
        fputs(\"> \", stdout); fflush(stdout);\n        \
        if (!fgets(line, sizeof line, stdin)) return 0;\n        \
        printf(\"got %s\", line);\n    }\n}\n";
    if !build_32_bit(&dir, "repl", program) {
        return;
    }
    let (toolbox, id) = start_in(&dir, &["./repl"], "repl waiting for a line");
    let began = Instant::now();
    let said = send_to(&toolbox, &id, serde_json::json!({ "text": "hello", "submit": true }));
    assert!(said.contains("got hello") && said.contains("repl waiting for a line"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A 32-bit program asleep (`sleep(300)`), stopped with Ctrl-Z and continued with `fg`, is
/// busy as before the stop: i386's `restart_syscall` is 0, x86_64's `read`, and the sleep's
/// first argument, its clock (0), was taken for the terminal's descriptor: waiting for a line.
#[test]
fn a_32_bit_sleep_stopped_and_continued_is_not_read_as_a_read_of_the_terminal() {
    if !require("bash") {
        return;
    }
    let dir = TestDir::new("i386-nap");
    let program = "#include <stdio.h>\n#include <unistd.h>\n\
        int main(void) { puts(\"napping\"); fflush(stdout); sleep(300); return 0; }\n";
    if !build_32_bit(&dir, "nap", program) {
        return;
    }
    let argv = ["bash", "--norc", "--noprofile"];
    let (toolbox, id) = start_in(&dir, &argv, "bash waiting for keys");
    let send = |arguments| send_to(&toolbox, &id, arguments);
    let line = |text: &str| serde_json::json!({ "text": text, "submit": true, "timeout_ms": 2000 });
    let said = send(line("./nap"));
    assert!(said.contains("napping") && said.contains("still busy"), "{said}");
    let said = send(serde_json::json!({ "keys": "<C-z>" }));
    assert!(said.contains("Stopped") && said.contains("bash waiting for keys"), "{said}");
    let said = send(line("fg"));
    assert!(said.contains("still busy") && !said.contains("waiting for"), "{said}");
    let said = send(serde_json::json!({ "keys": "<C-c>" }));
    assert!(said.contains("bash waiting for keys"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A 32-bit program in `waitpid(-1, &status, __WALL | __WCLONE)` (i386's 7, made through
/// `int $0x80`: any child, cloned or not) for its child `sleep 300` sleeps with it: x86_64's 7
/// is `poll`, and its arguments were taken for a poll of an unreadable array (the terminal,
/// perhaps) with no timeout (the options, `0xc0000000`, a negative `int`): waiting for a line.
#[test]
fn a_32_bit_waitpid_on_a_sleeping_child_is_not_waiting() {
    let dir = TestDir::new("i386-waitpid");
    let program = "#include <stdio.h>\n#include <unistd.h>\n\
        int main(void) {\n    if (fork() == 0) return execl(\"/bin/sleep\", \"sleep\", \"300\", (char *)0);\n    \
        puts(\"parenting\"); fflush(stdout); int status, r;\n    \
        __asm__ volatile(\"int $0x80\" : \"=a\"(r) : \"a\"(7), \"b\"(-1), \"c\"(&status), \
        \"d\"(0xc0000000) : \"memory\");\n    return r < 0;\n}\n";
    if !build_32_bit(&dir, "parent", program) {
        return;
    }
    let argv = ["bash", "--norc", "--noprofile"];
    let (toolbox, id) = start_in(&dir, &argv, "bash waiting for keys");
    let line = serde_json::json!({ "text": "./parent", "submit": true, "timeout_ms": 2000 });
    let said = send_to(&toolbox, &id, line);
    let asleep = said.contains(": sleeping 29") && !said.contains("waiting for");
    assert!(said.contains("parenting") && asleep, "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

#[test]
fn input_wait_does_not_fire_for_sleeping_or_busy_programs() {
    let engine = engine();
    let sleep = engine.spawn(SpawnSpec::new("sleep").arg("30")).unwrap();
    input_wait_does_not_fire(&sleep);
    let busy = engine.spawn(SpawnSpec::new("sh").args(["-c", "while :; do :; done"])).unwrap();
    input_wait_does_not_fire(&busy);
    let writer =
        engine.spawn(SpawnSpec::new("sh").args(["-c", "while :; do echo x; done"])).unwrap();
    input_wait_does_not_fire(&writer);
}

#[test]
fn regex_waits_match_across_writes() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell("printf 'abc'; sleep 0.3; printf 'def\\n'; sleep 30"))
        .unwrap();
    let outcome = expect(&s, Until::regex("abcdef$").unwrap());
    let found = outcome.matched().unwrap();
    assert_eq!(found.text, "abcdef");
    assert_eq!(found.location, Location::Transcript { line: 0, offset: 0 });
    s.close().unwrap();
}

/// A line a read returned in part is still waited on whole (`^` is its start), for a match
/// that holds its new part; what was read cannot match alone.
#[test]
fn a_wait_matches_a_line_read_in_part_by_its_whole_text() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell(
            "stty -echo; printf 'Downloading... '; read x; printf 'done\\n'; sleep 30",
        ))
        .unwrap();
    // (Echo off, so that the Enter below adds no line end: `done` goes on the same line.)
    assert_eq!(input_wait_fires(&s), Some(InputKind::Password));
    assert_eq!(s.read().unwrap().text, "Downloading... ");
    // Only old text: no match.
    let outcome = s.wait(Until::text("Downloading"), Duration::from_millis(300)).unwrap();
    assert!(outcome.is_timeout(), "{outcome}");
    s.submit("").unwrap();
    let outcome = expect(&s, Until::regex(r"^Downloading\.\.\. done$").unwrap());
    assert_eq!(outcome.matched().unwrap().location, Location::Transcript { line: 0, offset: 0 });
}

/// A regex wait finds a match that holds new text though it overlaps one of text already
/// read: `xab` was read (a match of `ab`), then `1` printed; `b1` is new. The search for
/// matches that do not overlap took `ab`, which holds nothing new, went on after it and found
/// nothing, so the wait ran to its timeout.
#[test]
fn a_regex_wait_finds_a_match_overlapping_one_already_read() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell("stty -echo; printf 'xab'; read x; printf '1\\n'; sleep 30"))
        .unwrap();
    expect(&s, Until::regex("ab|b1").unwrap());
    assert_eq!(input_wait_fires(&s), Some(InputKind::Password));
    assert_eq!(s.read().unwrap().text, "xab");
    // (Echo off: the Enter adds no line end, and `1` goes on the same line.)
    s.submit("").unwrap();
    let outcome = expect(&s, Until::regex("ab|b1").unwrap());
    let found = outcome.matched().unwrap();
    assert_eq!(found.text, "b1", "{outcome}");
    assert_eq!(found.location, Location::Transcript { line: 0, offset: 2 });
    // What was read matches alone no more.
    assert_eq!(s.read().unwrap().text, "1\n");
    let outcome = s.wait(Until::regex("ab|b1").unwrap(), Duration::from_millis(300)).unwrap();
    assert!(outcome.is_timeout(), "{outcome}");
}

/// What a program prints on the line an answer was typed on at a password prompt (echo
/// off) is its answer, not the answer's echo: a wait finds it.
#[test]
fn an_answer_printed_on_a_password_prompts_line_is_found() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let script = "printf 'Continue? '; read -s -r x; echo \"answer=$x\"; read y";
    let s = engine.spawn(SpawnSpec::shell(script)).unwrap();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Password));
    let outcome = s.send_bytes_and_wait(b"y\r", Until::text("answer=y"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    // With echo on, the echo of what is typed is no answer.
    let echoed =
        engine.spawn(SpawnSpec::shell("read -r x; sleep 0.5; echo \"got $x\"; read y")).unwrap();
    assert_eq!(input_wait_fires(&echoed), Some(InputKind::Line));
    let outcome = echoed.send_bytes_and_wait(b"got it\r", Until::text("got"), LONG).unwrap();
    assert_eq!(outcome.matched().unwrap().location, Location::Transcript { line: 1, offset: 0 });
    let line = engine.spawn(SpawnSpec::shell("read -r x; echo \"said $x\"; read y")).unwrap();
    assert_eq!(input_wait_fires(&line), Some(InputKind::Line));
    let outcome = line.submit_and_wait("said it", Until::text("said"), LONG).unwrap();
    assert_eq!(outcome.matched().unwrap().location, Location::Transcript { line: 1, offset: 0 });
}

#[test]
fn screen_waits_while_a_program_redraws() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell(
            "for i in $(seq 1 40); do printf '\\033[H\\033[2Jframe %d of 40' $i; sleep 0.02; done; sleep 30",
        ))
        .unwrap();
    let outcome = expect(&s, Until::screen_regex(r"frame (2\d) of 40").unwrap());
    let found = outcome.matched().unwrap();
    assert_eq!(found.location, Location::Screen { row: 0, col: 0 });
    // A window far longer than a frame's 20 ms, so a loaded machine's pauses cannot end it.
    let outcome = expect(&s, Until::stable(Duration::from_millis(1500)));
    assert!(outcome.matched().is_some());
    assert_eq!(s.screen().unwrap().lines[0], "frame 40 of 40");
    s.close().unwrap();
}

#[test]
fn quiet_and_any() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell("for i in 1 2 3 4 5; do echo tick; sleep 0.1; done; sleep 30"))
        .unwrap();
    expect(&s, Until::text("tick"));
    let started = Instant::now();
    let outcome = expect(&s, Until::quiet(Duration::from_millis(400)));
    // Four more ticks 100 ms apart, then 400 ms of silence.
    assert!(started.elapsed() >= Duration::from_millis(700), "{outcome}");
    let outcome =
        expect(&s, Until::any(vec![Until::text("never printed"), Until::screen_contains("tick")]));
    assert_eq!(outcome.matched().unwrap().condition, "screen text \"tick\"");
    s.close().unwrap();
}

#[test]
fn zsh_integration() {
    if !require("zsh") {
        return;
    }
    sweep_left_overs();
    let engine = engine();
    // The user's own startup file is still read.
    let (zsh, home) = zsh_at_home(&engine, "home", "PS1='zsh%# '\nexport FROM_USER_ZSHRC=yes\n");
    assert_eq!(zsh.screen().unwrap().lines[0], "zsh#", "the prompt looks the same");
    let result = zsh
        .run_command("echo $FROM_USER_ZSHRC; exit_with() { return $1 }; exit_with 5", LONG)
        .unwrap();
    assert_eq!(result.output, "yes\n");
    assert_eq!(result.exit_code, Some(5));
    zsh.close().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

/// A wait searches a line again from its start when it was rewritten after a read: a progress
/// bar redrawn with `\r`, and a line above the cursor redrawn after a cursor move.
#[test]
fn waits_see_text_written_over_an_already_read_line() {
    let engine = engine();
    let script = r#"stty -echo; printf 'progress 50%%'; read x; printf '\rprogress 100%%'; read x
printf '\na: 10%%\nb: 10%%\n'; read x; printf '\033[2A\ra: 99%%\n\n'; read x"#;
    let s = engine.spawn(SpawnSpec::new("sh").args(["-c", script])).unwrap();
    expect(&s, Until::text("progress 50"));
    assert!(s.read().unwrap().text.contains("progress 50%"));
    s.send_text("\r").unwrap();
    let outcome = expect(&s, Until::text("100%"));
    let termloom::Fired::Matched(found) = &outcome.fired else { panic!("{outcome:?}") };
    assert!(matches!(found.location, Location::Transcript { offset: 9, .. }), "{outcome:?}");
    // A rewritten line is searched whole again, so text read before matches again too.
    s.send_text("\r").unwrap();
    expect(&s, Until::text("b: 10%"));
    let read = s.read().unwrap();
    assert!(read.text.contains("a: 10%") && read.text.contains("b: 10%"), "{read:?}");
    s.send_text("\r").unwrap();
    expect(&s, Until::regex(r"^a: 99%$").unwrap());
    // Text read and not rewritten is not found again.
    let outcome = s.wait(Until::text("b: 10%"), Duration::from_millis(300)).unwrap();
    assert!(outcome.is_timeout(), "{outcome:?}");
    s.close().unwrap();
}

/// A pager behind its parent (a shell waiting for the pipeline, as git waits for its pager)
/// waits for input: the member reading the terminal decides, the others only wait for it.
#[test]
fn a_pager_behind_its_parent_waits_for_input() {
    if !require("less") {
        return;
    }
    let engine = engine();
    let s =
        engine.spawn(SpawnSpec::new("sh").args(["-c", "seq 1 500 | less; echo after"])).unwrap();
    let started = Instant::now();
    let outcome = expect(&s, Until::input_wait());
    assert!(outcome.matched().is_some(), "{outcome:?}");
    let status = s.status().unwrap();
    assert_eq!(status.activity, Activity::WaitingForInput);
    // The status names the pager, not the shell that leads the group.
    assert_eq!(status.foreground.map(|p| p.name).as_deref(), Some("less"));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    s.send_keys("q").unwrap();
    expect(&s, Until::exit());
}

/// An editor behind a file manager that has a worker thread (vifm, whose main thread waits
/// for vim while another waits on a lock of vifm's own) waits for input: the file manager only
/// waits for it. vifm read as running, and every call into vim waited the default wait's 10 s.
#[test]
fn an_editor_behind_a_file_manager_with_a_worker_thread_waits_for_input() {
    if !require("vifm") || !require("vim") {
        return;
    }
    let dir = TestDir::new("vifm");
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("note.txt"), "remember the milk\n").unwrap();
    let files = files.display().to_string();
    let engine = engine();
    let s = engine
        .spawn(
            SpawnSpec::new("vifm")
                .args([&files, &files])
                .env("HOME", dir.display().to_string())
                .size(80, 24),
        )
        .unwrap();
    let waits = |name: &str| {
        let outcome = expect_within(&s, Until::input_wait(), Duration::from_secs(10));
        let reader = outcome.status.foreground.as_ref().map(|p| p.name.as_str());
        assert_eq!(reader, Some(name), "{outcome}");
        assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
    };
    expect(&s, Until::screen_contains("note.txt"));
    waits("vifm");
    // The last entry (after `../`), opened in vim.
    s.send_keys("G").unwrap();
    waits("vifm");
    s.send_keys("l").unwrap();
    expect(&s, Until::screen_contains("remember the milk"));
    waits("vim");
    s.send_keys(":q<Enter>").unwrap();
    expect(&s, Until::screen_contains("note.txt"));
    waits("vifm");
    // A confirmation dialog.
    s.send_keys("dd").unwrap();
    expect(&s, Until::screen_contains("Are you sure"));
    waits("vifm");
    s.send_keys("y").unwrap();
    expect(&s, Until::screen_contains("1 file deleted"));
    // `:q` typed before vifm waited again after the deletion was once lost in CI (the status
    // line still said `1 file deleted`): typed once it waits, as a person types.
    waits("vifm");
    s.send_keys(":q<Enter>").unwrap();
    expect(&s, Until::exit());
}

/// `sleep 300` run by a file manager that has a worker thread (vifm's `:!sleep 300`: its main
/// thread waits for the command while another waits on a lock of vifm's own) settles the
/// default wait at once, sleeping, as one a shell runs: it read `vifm running`, still busy
/// after 10 s.
#[test]
fn a_long_sleep_behind_a_file_manager_with_a_worker_thread_settles_the_default_wait() {
    if !require("vifm") || !require("sleep") {
        return;
    }
    let dir = TestDir::new("vifm-sleep");
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("note.txt"), "milk\n").unwrap();
    let files = files.display().to_string();
    let home = dir.display().to_string();
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({
        "argv": ["vifm", &files, &files], "env": { "HOME": home }, "input_wait": true,
    });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let began = Instant::now();
    let arguments = serde_json::json!({ "session_id": id, "keys": ":!sleep 300<Enter>" });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("settled") && said.contains(": sleeping 29"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A shell with more children than the look for detached jobs reads (70 background jobs) is
/// judged by its own reading of the terminal: it was undecided, never waiting, and a wait for
/// input timed out.
#[test]
fn a_shell_with_many_background_jobs_still_waits_for_input() {
    if !require("bash") || !require("sleep") {
        return;
    }
    let engine = engine();
    let sh = engine.spawn(SpawnSpec::new("bash").args(["--norc", "--noprofile"])).unwrap();
    expect(&sh, Until::input_wait());
    let line = "for i in $(seq 70); do sleep 30 & done; echo started<Enter>";
    let outcome = sh.send_keys_and_wait(line, Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let began = Instant::now();
    let outcome = sh.send_keys_and_wait("echo hi<Enter>", Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {outcome}", began.elapsed());
    sh.send_keys_and_wait("kill $(jobs -p)<Enter>", Until::input_wait(), LONG).unwrap();
    sh.close().unwrap();
}

/// A command neovim runs (`:!sleep 2; echo done`: libuv starts it in a POSIX session of its
/// own, its output on socket pairs, while neovim's terminal thread goes on reading keys into
/// its typeahead) keeps neovim busy until it ends and neovim draws its output; `:!sleep 300`
/// settles the default wait at once, sleeping, and a job that waits on its pipe (a server
/// `jobstart` runs) leaves neovim waiting for keys. The default wait said neovim waited for
/// keys 80 ms in, the screen showing the command line alone; `done` came 2 s later.
#[test]
fn a_command_neovim_runs_keeps_it_busy_until_its_output_is_drawn() {
    if !require("nvim") {
        return;
    }
    let dir = TestDir::new("nvim-bang");
    let home = dir.display().to_string();
    let engine = engine();
    let spec = SpawnSpec::new("nvim").args(["--clean", "-n"]).cwd(&dir).env("HOME", &home);
    let s = engine.spawn(spec.size(80, 24)).unwrap();
    expect(&s, Until::input_wait());
    let began = Instant::now();
    let keys = ":!sleep 2; echo done<Enter>";
    let outcome = s.send_keys_and_wait(keys, Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let screen = s.screen().unwrap();
    let shown = |text: &str| screen.lines.iter().any(|line| line.starts_with(text));
    assert!(shown("done") && shown("Press ENTER"), "{:?} in: {screen}", began.elapsed());
    assert!(began.elapsed() >= Duration::from_secs(2), "{:?}", began.elapsed());
    // Sleeps one after another, each within the horizon, in a terminal quiet since the first
    // began: the second was taken for an idle tick, `nvim waiting for keys` 1.16 s in.
    let began = Instant::now();
    let keys = "<Enter>:!sleep 1; sleep 1; echo ended<Enter>";
    let outcome = s.send_keys_and_wait(keys, Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let screen = s.screen().unwrap();
    let shown = |text: &str| screen.lines.iter().any(|line| line.starts_with(text));
    assert!(shown("ended"), "{:?} in: {screen}", began.elapsed());
    // A key typed while the command runs is queued until it ends: the job, started before
    // that key, still counts (the key read `nvim waiting for keys` 0.1 s after it; the
    // output, once drawn, is gone with the Escape, so the time tells).
    let began = Instant::now();
    let keys = "<Enter>:!sleep 4; echo over<Enter>";
    let outcome = s.send_keys_and_wait(keys, Until::input_wait(), Duration::from_secs(1)).unwrap();
    assert!(outcome.matched().is_none(), "{outcome}");
    let outcome = s.send_keys_and_wait("<Esc>", Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(began.elapsed() >= Duration::from_secs(4), "{:?}: {outcome}", began.elapsed());
    let keys = "<Enter>:let job = jobstart(['cat'])<Enter>";
    let outcome = s.send_keys_and_wait(keys, Until::input_wait(), Duration::from_secs(5)).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    // A key typed while a command that prints runs: neovim shows its lines as they come and
    // queues the key, so the job still answers (a rule that dropped it once neovim drew read
    // `nvim waiting for keys` 1.08 s in, `line3` of 8 shown).
    let keys = "<Enter>:!for i in 1 2 3 4 5; do echo line$i; sleep 1; done<Enter>";
    s.send_keys_and_wait(keys, Until::screen_contains("line2"), LONG).unwrap();
    // (The key, read once the loop ended, dismisses its `Press ENTER`: the time tells.)
    let began = Instant::now();
    let outcome = s.send_keys_and_wait("x", Until::input_wait(), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(began.elapsed() >= Duration::from_secs(2), "{:?}: {outcome}", began.elapsed());
    // A job with more processes than a probe looks at is undecided, not waiting (past the
    // sixteenth, neovim read `waiting for keys`).
    let keys = ":!sh -c 'for i in $(seq 40); do sleep 5 & done; wait'<Enter>";
    let outcome = s.send_keys_and_wait(keys, Until::input_wait(), Duration::from_secs(3)).unwrap();
    assert!(outcome.matched().is_none(), "{outcome}");
    s.close().unwrap();

    let toolbox = termloom::tools::Toolbox::new(engine);
    let start = serde_json::json!({
        "argv": ["nvim", "--clean", "-n"], "cwd": &home, "env": { "HOME": &home },
        "input_wait": true,
    });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let began = Instant::now();
    let arguments = serde_json::json!({ "session_id": id, "keys": ":!sleep 300<Enter>" });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("settled") && said.contains(": sleeping 29"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}: {said}", began.elapsed());
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));

    // In a tmux pane, the job answers the input though neovim started before it (it read
    // `tmux: client running, quiet · settled after 1.28 s`, before `done`).
    if !require("tmux") {
        return;
    }
    let socket = dir.join("s");
    let nvim = format!("env HOME={home} nvim --clean -n");
    let argv = serde_json::json!(["tmux", "-S", socket, "-f", "/dev/null", "new-session", nvim]);
    let started = toolbox.call("terminal_start", &serde_json::json!({ "argv": argv }));
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let arguments = serde_json::json!({ "session_id": id, "keys": ":!sleep 3; echo done<Enter>" });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("done") && said.contains("waiting for keys"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A command vim runs (`:!read -p 'name? ' x; echo got $x`, with bash as its shell) that asks
/// for a line waits for input: vim polls for the command's end (`waitpid` with `WNOHANG`
/// between sleeps of up to 10 ms) beside glibc's helper thread for its timers, in
/// `rt_sigtimedwait` with no timeout, which was taken for work: the call read `vim running,
/// quiet`, still busy after 10 s, the question on the screen.
#[test]
fn a_command_vim_runs_that_asks_for_a_line_waits_for_input() {
    if !require("vim") || !require("bash") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let argv = ["vim", "-u", "NONE", "-N", "-i", "NONE", "-n", "--cmd", "set shell=bash"];
    let start = serde_json::json!({ "argv": argv, "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("vim waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let began = Instant::now();
    let keys = ":!read -p 'name? ' x; echo got $x<Enter>";
    let said =
        toolbox.call("terminal_send", &serde_json::json!({ "session_id": id, "keys": keys }));
    let (took, said) = (began.elapsed(), said.text);
    assert!(said.contains("name? ") && said.contains("waiting for a line"), "{said}");
    assert!(took < Duration::from_secs(5), "after {took:?}: {said}");
    let arguments = serde_json::json!({ "session_id": id, "text": "bob", "submit": true });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("got bob") && said.contains("vim waiting for keys"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A pager behind a parent that shuttles data between pipes with `select` (man between its
/// formatter and its pager, `man bash`) waits for input: that parent waits on the pipes'
/// other ends, as one blocked reading or writing a pipe does.
#[test]
fn a_pager_behind_a_parent_polling_pipes_waits_for_input() {
    if !require("less") || !require("python3") {
        return;
    }
    let engine = engine();
    // The parent feeds the pager, then waits in select on a pipe nothing writes to.
    let script = "import os, select, subprocess\n\
        r, w = os.pipe()\n\
        pager = subprocess.Popen(['less'], stdin=subprocess.PIPE)\n\
        pager.stdin.write(b''.join(b'line %d\\n' % i for i in range(100)))\n\
        pager.stdin.flush()\n\
        select.select([r], [], [])\n";
    let s = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    expect(&s, Until::screen_contains("line 0"));
    let started = Instant::now();
    let outcome = s.wait(Until::input_wait(), Duration::from_secs(5)).unwrap();
    assert!(outcome.matched().is_some(), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let status = s.status().unwrap();
    assert_eq!(status.activity, Activity::WaitingForInput, "{status:?}");
    assert_eq!(status.foreground.map(|p| p.name).as_deref(), Some("less"));
    s.close().unwrap();
}

#[test]
fn an_abandoned_command_line_is_answered_once_the_prompt_is_back() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let sh = integrated_bash(&engine);
    for _ in 0..3 {
        let err = sh.run_command("echo 'unterminated", LONG).unwrap_err();
        assert!(err.to_string().contains("start of a longer command"), "{err}");
        // The shell is back at its prompt when the error arrives: the next command runs at
        // once, with no wait for the prompt in between.
        assert_eq!(sh.run_command("echo next", LONG).unwrap().output, "next\n");
    }
}

/// A program that redraws its text in place, the cursor ending where it was each time (a
/// counter, a clock, `top`), never has a stable screen; nor has a screen just resized.
#[test]
fn a_screen_redrawn_in_place_is_not_stable() {
    if !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let s = engine
        .spawn(SpawnSpec::shell(
            "i=0; while :; do i=$((i+1)); printf '\\rtick %06d' $i; sleep 0.05; done",
        ))
        .unwrap();
    expect(&s, Until::screen_contains("tick 000003"));
    let outcome =
        s.wait(Until::stable(Duration::from_millis(600)), Duration::from_secs(3)).unwrap();
    assert!(outcome.is_timeout(), "the counter changes every 50 ms: {outcome}");
    s.close().unwrap();
    // A resize changes the screen even when the program does not redraw: a stable wait
    // already under way counts from it.
    let s = engine.spawn(SpawnSpec::shell("echo hi; exec cat")).unwrap();
    expect(&s, Until::text("hi"));
    expect(&s, Until::quiet(Duration::from_millis(1000)));
    let pending = s.start_wait(Until::stable(Duration::from_millis(1500)), LONG).unwrap();
    s.resize(60, 20).unwrap();
    let outcome = pending.finish().unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    assert!(outcome.elapsed >= Duration::from_millis(1400), "{outcome}");
    s.close().unwrap();
    // A screen that stops changing is stable.
    let s = engine.spawn(SpawnSpec::shell("printf 'done'; sleep 30")).unwrap();
    expect(&s, Until::screen_contains("done"));
    assert!(expect(&s, Until::stable(Duration::from_millis(300))).matched().is_some());
    s.close().unwrap();
}

/// A program that prints the same line on every tick of a short timer is busy printing, not
/// waiting for input, though the screen looks the same after each line (every row `y`): lines
/// scrolling by are no still screen. (A frame redrawn the same on each tick is: the testing
/// kit's `press_returns_for_a_program_that_redraws_on_a_timer`.)
#[test]
fn the_same_line_printed_on_every_tick_is_no_input_wait() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    let script = "while :; do echo y; read -t 0.1 x && break; done; echo ended";
    let ticking =
        engine.spawn(SpawnSpec::new("bash").args(["--norc", "-c", script]).size(20, 4)).unwrap();
    // Several screenfuls of `y` go by within the wait.
    let outcome = ticking.wait(Until::input_wait(), Duration::from_secs(3)).unwrap();
    assert!(outcome.is_timeout(), "a ticking printer read as waiting: {outcome}");
    ticking.send_text("q\r").unwrap();
    expect(&ticking, Until::text("ended"));
}

/// A monitor that redraws on a one-second timer and reads keys between its ticks (`top -d 1`)
/// waits for input: its timer goes off and is set again with no input in between. Before,
/// its screen never stayed still for longer than its timer, so it never read as waiting. The
/// terminal is found among what it waits on whichever call it waits in.
#[test]
fn a_monitor_ticking_every_second_waits_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let waits = [
        ("select", "select.select([0], [], [], 1.0)[0]"),
        ("poll", "poller.poll(1000)"),
        ("epoll", "poller.poll(1.0)"),
    ];
    for (call, wait) in waits {
        let poller = match call {
            "poll" => "poller = select.poll(); poller.register(0, select.POLLIN)",
            "epoll" => "poller = select.epoll(); poller.register(0, select.EPOLLIN)",
            _ => "pass",
        };
        let script = format!(
            "import select, sys, tty\n\
             tty.setcbreak(0)\n\
             {poller}\n\
             n = 0\n\
             while True:\n\
             \x20   n += 1\n\
             \x20   print(f'\\rtick {{n}}', end='', flush=True)\n\
             \x20   if {wait}:\n\
             \x20       print(' key', sys.stdin.read(1), flush=True)\n\
             \x20       break\n"
        );
        let monitor = engine.spawn(SpawnSpec::new("python3").args(["-c", &script])).unwrap();
        assert_eq!(input_wait_fires(&monitor), Some(InputKind::Keys), "{call}");
        assert!(monitor.screen().unwrap().contains("tick"), "{call}");
        monitor.send_text("q").unwrap();
        expect(&monitor, Until::text("key q"));
    }
}

/// A monitor ticking every second (see `a_monitor_ticking_every_second_waits_for_keys`) beside
/// four threads of its own, each sleeping five seconds at a time, waits for keys (its cursor
/// at the start of its row, so no prompt tells it: only its timer, seen set again): the sleeps
/// are remembered beside the monitor's timer, not in its place. With room for four threads,
/// the sleepers pushed the monitor's timer out before each probe saw it again, and it never
/// read as waiting.
#[test]
fn a_monitor_beside_sleeping_threads_waits_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import select, sys, threading, time, tty\n\
                  tty.setcbreak(0)\n\
                  def nap():\n\
                  \x20   while True: time.sleep(5)\n\
                  for _ in range(4): threading.Thread(target=nap, daemon=True).start()\n\
                  n = 0\n\
                  while True:\n\
                  \x20   n += 1\n\
                  \x20   print(f'\\rtick {n}\\r', end='', flush=True)\n\
                  \x20   if select.select([0], [], [], 1.0)[0]:\n\
                  \x20       print(' key', sys.stdin.read(1), flush=True)\n\
                  \x20       break\n";
    let monitor = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    assert_eq!(input_wait_fires(&monitor), Some(InputKind::Keys));
    assert!(monitor.screen().unwrap().contains("tick"));
    monitor.send_text("q").unwrap();
    expect(&monitor, Until::text("key q"));
}

/// A monitor woken more often than its own timeout (`select` on the terminal and a pipe, 1 s,
/// a thread writing the pipe every 300 ms) and redrawing on each wake waits for keys: it drew
/// between its two waits on the same timer, so the second is a tick whether or not that timer
/// could have gone off. Counting a tick only once its timer had passed since the wait before
/// was first seen, it never read as waiting (each wake moved that sighting on: 10 s timed out).
/// Its own timeout never goes off here (the screen would say so): the reading comes from its
/// wakes alone.
#[test]
fn a_monitor_woken_more_often_than_its_timeout_waits_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import os, select, sys, threading, time, tty\n\
                  tty.setcbreak(0)\n\
                  r, w = os.pipe()\n\
                  def poke():\n\
                  \x20   while True: time.sleep(0.3); os.write(w, b'x')\n\
                  threading.Thread(target=poke, daemon=True).start()\n\
                  n, out = 0, 0\n\
                  while True:\n\
                  \x20   n += 1\n\
                  \x20   print(f'\\rtick {n} timeouts {out}\\r', end='', flush=True)\n\
                  \x20   ready = select.select([0, r], [], [], 1.0)[0]\n\
                  \x20   if not ready: out += 1\n\
                  \x20   if r in ready: os.read(r, 64)\n\
                  \x20   if 0 in ready:\n\
                  \x20       print(' key', sys.stdin.read(1), flush=True)\n\
                  \x20       break\n";
    let monitor = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    expect(&monitor, Until::screen_contains("tick 2"));
    let outcome = monitor.wait(Until::input_wait(), Duration::from_secs(8)).unwrap();
    assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
    let screen = monitor.screen().unwrap();
    assert!(screen.contains("timeouts 0"), "its own timeout went off: {screen}");
    monitor.send_text("q").unwrap();
    expect(&monitor, Until::text("key q"));
}

/// A short timer set once after each key, before the program redraws (vim's wait for the
/// rest of a key code after an Escape), is no wait for input, on the second key as on the
/// first: the same timer seen again after input is not a monitor's tick.
#[test]
fn a_timer_set_after_each_key_is_waited_out_every_time() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import os, select, tty\n\
                  tty.setcbreak(0)\n\
                  n = 0\n\
                  while True:\n\
                  \x20   os.read(0, 1)\n\
                  \x20   n += 1\n\
                  \x20   select.select([0], [], [], 1.0)\n\
                  \x20   print(f'redrawn {n}', flush=True)\n";
    let program = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    input_wait_fires(&program);
    for n in 1..=3 {
        program.send_text("x").unwrap();
        input_wait_fires(&program);
        let screen = program.screen().unwrap();
        assert!(screen.contains(&format!("redrawn {n}")), "key {n}: {screen}");
    }
}

/// A monitor that redraws on a one-second timer and sets the whole second again after each key
/// it answers (a curses program in `halfdelay(10)`, `top -d 1`) waits for the next key as soon
/// as it has redrawn: its tick, found before the key, is carried across it. (Every key read as
/// waiting only after the timer had gone off once more, a second later.) An Escape, after
/// which ncurses waits its `ESCDELAY` (a second too) with nothing drawn, is still waited out
/// until the program answers it.
#[test]
fn a_monitor_waits_for_the_next_key_as_soon_as_it_redrew() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = include_str!("common/halfdelay_monitor.py");
    let spec = SpawnSpec::new("python3").args(["-c", script]).env("ESCDELAY", "1000");
    let monitor = engine.spawn(spec).unwrap();
    input_wait_fires(&monitor);
    assert_keys_answered_at_once(&monitor, &["a", "b", "c", "d"], |key, screen| {
        let code = key.as_bytes()[0];
        assert!(screen.lines[0].ends_with(&format!(" key {code}")), "{screen}");
    });
    // An Escape alone, after a key the program draws for, or with a key code's start after
    // it, in one write: ncurses waits a second for the rest of the key code, and that wait on
    // the tick's own timer, after the redraw for the key, is no wait for the next key.
    for (keys, last) in [("<Esc>", 27), ("a<Esc>", 27), ("a<Esc>[", b'[')] {
        let outcome = monitor.send_keys_and_wait(keys, Until::input_wait(), LONG).unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
        let screen = monitor.screen().unwrap();
        let answered = screen.lines[0].ends_with(&format!(" key {last}"));
        assert!(answered, "{keys}: the key code's start unanswered: {screen}");
    }
    monitor.close().unwrap();
    if !require("top") {
        return;
    }
    let top = engine.spawn(SpawnSpec::new("top").args(["-d", "1"]).size(100, 30)).unwrap();
    input_wait_fires(&top);
    assert_keys_answered_at_once(&top, &["x", "x", "y", "y"], |_, _| {});
    top.close().unwrap();
}

/// A directory named for `name` holding two HTML pages: `index.html`, whose path is returned,
/// with a link "second page" to `b.html` ("The second page.") and then `more`.
fn two_pages(name: &str, more: &str) -> (TestDir, std::path::PathBuf) {
    let dir = TestDir::new(name);
    let page = dir.join("index.html");
    let html = format!("<title>Home</title><p>See the <a href=\"b.html\">second page</a>.\n{more}");
    std::fs::write(&page, html).unwrap();
    std::fs::write(dir.join("b.html"), "<title>B</title><p>The second page.\n").unwrap();
    (dir, page)
}

/// A full-screen program that polls its terminal every second whatever it shows (w3m) waits
/// for keys as soon as it drew its first page, and after each key as soon as it answered it:
/// with no input typed yet, its timer is no wait for the rest of a key code nor for an
/// answer. Every start read as busy until the timer had gone off once, 1.1 s.
#[test]
fn a_browser_polling_its_terminal_every_second_waits_for_keys_from_its_first_page() {
    if !require("w3m") {
        return;
    }
    let (dir, page) = two_pages("w3m", "");
    let engine = engine();
    let spec = SpawnSpec::new("w3m")
        .arg(page.display().to_string())
        .env("HOME", dir.display().to_string())
        .size(80, 24);
    let w3m = engine.spawn(spec).unwrap();
    expect(&w3m, Until::screen_contains("See the second page."));
    let drawn = Instant::now();
    let outcome = expect(&w3m, Until::input_wait());
    assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
    let waited = drawn.elapsed();
    assert!(waited < Duration::from_millis(800), "the first page waited {waited:?}");
    // The link, followed, and back.
    assert_keys_answered_at_once(&w3m, &["<Tab>", "<Enter>", "B"], |key, screen| {
        let shown = if key == "<Enter>" { "The second page." } else { "See the second page." };
        assert!(screen.contains(shown), "{key}: {screen}");
    });
    w3m.close().unwrap();
}

/// A text browser (lynx) waits for keys as soon as it answered each one: a link followed and
/// back, a text field entered, typed into and left, and its quit question; `y` ends it.
#[test]
fn a_text_browser_answers_each_key_at_once_through_a_link_a_form_and_its_quit_question() {
    if !require("lynx") {
        return;
    }
    let form = "<form action=\"b.html\">Name: <input type=\"text\" name=\"who\"></form>\n";
    let (dir, page) = two_pages("lynx", form);
    let engine = engine();
    let spec = SpawnSpec::new("lynx")
        .args(["-nocolor", &page.display().to_string()])
        .env("HOME", dir.display().to_string())
        .size(80, 24);
    let lynx = engine.spawn(spec).unwrap();
    expect(&lynx, Until::screen_contains("See the second page."));
    input_wait_fires(&lynx);
    let keys = ["<Right>", "<Left>", "<Down>", "Alice", "<Up>", "q"];
    assert_keys_answered_at_once(&lynx, &keys, |key, screen| {
        let shown = match key {
            "<Right>" => "The second page.",
            "<Left>" => "See the second page.",
            "<Down>" => "Enter text into the field",
            "Alice" => "Name: Alice",
            "<Up>" => "Use right-arrow or <return> to activate",
            _ => "Are you sure you want to quit?",
        };
        assert!(screen.contains(shown), "{key}: {screen}");
    });
    lynx.send_keys("y").unwrap();
    expect(&lynx, Until::exit());
}

/// A full-screen program's tick at its start is no wait for keys while another of its threads
/// works, nor once one was seen working: a curses program that draws "Loading...", ticks every
/// second on the terminal, and has a worker thread fetching for 0.9 s (a sleep) that then
/// ends, waits for keys once its tick drew the data (its first screen read as waiting in
/// 0.37 s, before the data came, and with the worker's work alone looked at, in 0.95 s,
/// between the worker's end and the tick that draws what it fetched).
#[test]
fn a_full_screen_program_whose_worker_still_loads_is_not_waiting_at_its_first_tick() {
    if !require("python3") {
        return;
    }
    let script = r#"
import curses, threading, time
def main(scr):
    data = {}
    def fetch():
        time.sleep(0.9)
        data['v'] = 'DATA READY'
    threading.Thread(target=fetch, daemon=True).start()
    scr.addstr(0, 0, 'Loading...')
    scr.refresh()
    scr.timeout(1000)
    while scr.getch() != ord('q'):
        scr.erase()
        scr.addstr(0, 0, data.get('v', 'Loading...'))
        scr.refresh()
curses.wrapper(main)
"#;
    let engine = engine();
    let loader = engine.spawn(SpawnSpec::new("python3").args(["-c", script]).size(80, 24)).unwrap();
    expect(&loader, Until::screen_contains("Loading..."));
    input_wait_fires(&loader);
    let screen = loader.screen().unwrap();
    assert!(screen.contains("DATA READY"), "{screen}");
    loader.close().unwrap();
}

/// The curses monitor on a one-second tick (`common/halfdelay_monitor.py`), waiting only 25 ms
/// for the rest of a key code after an Escape (`ESCDELAY=25`, as nnn and htop set it), once
/// it waits for keys.
fn short_escape_delay_monitor(engine: &termloom::Engine) -> Session {
    let script = include_str!("common/halfdelay_monitor.py");
    let spec = SpawnSpec::new("python3").args(["-c", script]).env("ESCDELAY", "25");
    let monitor = engine.spawn(spec).unwrap();
    input_wait_fires(&monitor);
    monitor
}

/// An Escape alone, typed to a monitor on a one-second tick that waits only briefly for the
/// rest of a key code (`ESCDELAY=25`, as nnn and htop set it), reads as waiting as soon as the
/// monitor redrew for it: nothing was typed before it that the redraw could answer instead.
/// (Each Escape took the tick's whole second: `htop -d 10` closing its sort menu, 1.10 s.)
#[test]
fn a_monitor_with_a_short_escape_delay_answers_an_escape_at_once() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let monitor = short_escape_delay_monitor(&engine);
    assert_keys_answered_at_once(&monitor, &["<Esc>"; 4], |_, screen| {
        assert!(screen.lines[0].ends_with(" key 27"), "{screen}");
    });
    monitor.close().unwrap();
}

/// An Escape typed after other keys in one write (`a<Esc>`; `<F6><Esc>` to `htop -d 10`,
/// which opens the sort menu and closes it) to a monitor on a one-second tick that waits only
/// briefly for the rest of a key code (`ESCDELAY=25`) reads as waiting as soon as the monitor
/// drew again after that wait: what it drew then answers the Escape. What it drew for the keys
/// before the Escape counted for nothing, and so did what it drew after, until the tick's
/// second had passed in silence: 1.11 s each.
#[test]
fn a_monitor_answering_keys_that_end_in_an_escape_is_waiting_once_it_drew_again() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let monitor = short_escape_delay_monitor(&engine);
    assert_keys_answered_at_once(&monitor, &["a<Esc>"; 4], |_, screen| {
        assert!(screen.lines[0].ends_with(" key 27"), "{screen}");
    });
    monitor.close().unwrap();
    if !require("htop") {
        return;
    }
    let htop = engine.spawn(SpawnSpec::new("htop").args(["-d", "10"]).size(100, 30)).unwrap();
    expect(&htop, Until::screen_contains("Quit"));
    input_wait_fires(&htop);
    assert_keys_answered_at_once(&htop, &["<F6><Esc>"; 4], |_, screen| {
        assert!(!screen.contains("Sort by"), "the menu left open: {screen}");
    });
    htop.close().unwrap();
}

/// Types each of `keys` to a monitor on a one-second tick with a wait for its wait for input,
/// checks the screen after each with `check`, and asserts that at least all but one were
/// answered well within the tick (each took a second before the tick was carried across the
/// key; one key may race a tick's redraw on a loaded machine).
fn assert_keys_answered_at_once(session: &Session, keys: &[&str], check: impl Fn(&str, &Screen)) {
    let mut taken = Vec::new();
    for key in keys {
        let started = Instant::now();
        let outcome = session.send_keys_and_wait(key, Until::input_wait(), LONG).unwrap();
        taken.push(started.elapsed());
        assert!(outcome.matched().is_some(), "{outcome}");
        check(key, &session.screen().unwrap());
    }
    let quick = taken.iter().filter(|took| **took < Duration::from_millis(800)).count();
    assert!(quick + 1 >= taken.len(), "the keys waited for a tick: {taken:?}");
}

/// node's REPL with no history file, waiting at its first prompt.
fn node_repl(engine: &termloom::Engine) -> Session {
    let node = engine.spawn(SpawnSpec::new("node").env("NODE_REPL_HISTORY", "")).unwrap();
    input_wait_fires(&node);
    assert!(node.screen().unwrap().contains(">"), "{}", node.screen().unwrap());
    node
}

/// A REPL awaiting a timer (node's `await new Promise(r => setTimeout(r, 3000))`) polls the
/// terminal with the timer's 3 s, taking keys, its cursor at the start of the blank row below
/// the submitted line: it works on a clock before it answers, and is waited for until its
/// answer and its next prompt are drawn, whatever is typed meanwhile that it does not read
/// yet (keys, or a whole line: it echoes neither until it answers). A timer over a second read
/// as waiting for input at once (htop's 1.5 s tick, at its screen, is one), and so did the
/// await once keys were typed after its line.
#[test]
fn a_repl_awaiting_a_timer_is_waited_for_until_its_prompt() {
    if !require("node") {
        return;
    }
    let engine = engine();
    let node = node_repl(&engine);
    // (The answer is not in the line typed: its echo is no answer.)
    let awaits = |words: &str| {
        format!("await new Promise(r => setTimeout(() => r({words}.join(' ')), 3000))")
    };
    for (words, typed_meanwhile, answer, then) in [
        ("['timer', 'done']", None, "'timer done'", None),
        ("['keys', 'typed']", Some("6 *"), "'keys typed'", Some((" 7\r", "42"))),
        ("['line', 'typed']", Some("5 + 5\r"), "'line typed'", Some(("", "10"))),
    ] {
        let started = Instant::now();
        node.send_text(&format!("{}\r", awaits(words))).unwrap();
        if let Some(typed) = typed_meanwhile {
            // Once the line's echo has ended, the cursor at the start of the row below it.
            let echoed = Until::screen_matches("the line echoed", |screen| {
                let row = usize::from(screen.cursor.row);
                screen.cursor.col == 0
                    && row > 0
                    && screen.lines[row - 1].ends_with("3000))")
                    && screen.lines[row].is_empty()
            });
            expect(&node, echoed);
            node.send_text(typed).unwrap();
        }
        input_wait_fires(&node);
        let screen = node.screen().unwrap();
        assert!(screen.contains(answer), "read as waiting before its answer: {screen}");
        assert!(started.elapsed() >= Duration::from_millis(2500), "{:?}", started.elapsed());
        // What was typed meanwhile is read after the answer.
        if let Some((rest, result)) = then {
            node.send_text(rest).unwrap();
            expect(&node, Until::screen_regex(&format!("(?m)^{result}$")).unwrap());
        }
    }
    node.close().unwrap();
}

/// A REPL awaiting a timer further off than the default wait's 10 s (node's `await new
/// Promise(r => setTimeout(r, 12000))`, polling the terminal with that timer, or with a nearer
/// one of node's own, V8's 8 s, and then a short one between the two; a line editor of its own
/// polling the terminal and its event loop's pipe with 16 s, or with 2 s, 0.3 s and 2 s) has
/// not answered: it is waited for until its
/// answer and prompt. It read as waiting for input at once (a timer over 10 s), or once the
/// short timer between two longer ones was shorter than the terminal's quiet. A wait with no
/// timer and no prompt shown is a wait for input: `input()` with no prompt in Python's REPL.
#[test]
fn a_repl_awaiting_a_distant_timer_is_waited_for_until_its_prompt() {
    let engine = engine();
    // The programs work at the same time, each with a wait for input started as its line is
    // typed; each answers (with text not in the line typed: its echo is no answer) after the
    // wait before it has ended, so a wait ended too early is seen before its program answers.
    let mut awaiting = Vec::new();
    let wait = |repl: &Session| repl.start_wait(Until::input_wait(), Duration::from_secs(90));
    if require("python3") {
        let repl = clock_editor(&engine, "2, 0.3, 2");
        awaiting.push((wait(&repl).unwrap(), repl, "the answer"));
    }
    if require("node") {
        let node = node_repl(&engine);
        let line =
            "await new Promise(r => setTimeout(() => r(['late', 'answer'].join(' ')), 12000))";
        node.send_text(&format!("{line}\r")).unwrap();
        awaiting.push((wait(&node).unwrap(), node, "'late answer'"));
    }
    if require("python3") {
        let repl = clock_editor(&engine, "16");
        awaiting.push((wait(&repl).unwrap(), repl, "the answer"));
    }
    for (pending, repl, answer) in awaiting {
        let outcome = pending.finish().unwrap();
        assert!(outcome.matched().is_some(), "{outcome}");
        assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
        let screen = repl.screen().unwrap();
        assert!(screen.contains(answer), "read as waiting before its answer: {screen}");
        repl.close().unwrap();
    }
    if require("python3") {
        let py = engine.spawn(SpawnSpec::new("python3").arg("-q")).unwrap();
        assert_eq!(input_wait_fires(&py), Some(InputKind::Keys));
        py.send_text("x = input()\r").unwrap();
        expect(&py, Until::text("x = input()"));
        assert_eq!(input_wait_fires(&py), Some(InputKind::Keys));
        py.send_text("typed\r").unwrap();
        py.send_text("print(x * 2)\r").unwrap();
        expect(&py, Until::text("typedtyped"));
        py.close().unwrap();
    }
}

/// A line editor of its own (python3, taking keys) at its prompt, `> `, that has been sent the
/// line `go`: it polls the terminal, and the pipe an event loop wakes itself through (as
/// node's REPL polls a pipe and an eventfd beside the terminal), with each of `timers`
/// (seconds, a Python list's items) in turn before it prints `the answer` and its next prompt.
/// (A poll of the terminal alone with a longer timer asks for a key by a deadline: see
/// `a_key_or_line_asked_for_with_a_timeout_at_a_shell_prompt_waits_for_input_at_once`.)
fn clock_editor(engine: &termloom::Engine, timers: &str) -> Session {
    let editor = format!(
        "import os, select, sys, tty\n\
         tty.setcbreak(0)\n\
         wake, _ = os.pipe()\n\
         def out(s): sys.stdout.write(s); sys.stdout.flush()\n\
         out('> ')\n\
         while True:\n\
         \x20   c = os.read(0, 1)\n\
         \x20   if c != b'\\n':\n\
         \x20       out(c.decode()); continue\n\
         \x20   out('\\n')\n\
         \x20   for timer in [{timers}]: select.select([0, wake], [], [], timer)\n\
         \x20   out('the answer\\n> ')\n"
    );
    let repl = engine.spawn(SpawnSpec::new("python3").args(["-c", &editor])).unwrap();
    assert_eq!(input_wait_fires(&repl), Some(InputKind::Keys));
    repl.send_text("go\r").unwrap();
    repl
}

/// A line editor of its own (python3, raw, taking keys) on an event loop that polls the
/// terminal and its pipe with a 3 s timer, as node's REPL polls with its timers, at its prompt
/// `> `, after writing `setup` (kitty keyboard flags, application keypad mode). Enter, in each
/// of its encodings (`\r`, the kitty protocol's `CSI 13 u`, the keypad's `ESC O M`), submits
/// the line: the editor works on the loop's clock (a poll with a 3 s timer) and then prints
/// `the answer` and its next prompt. Alt-Enter (`ESC \r`) starts a new line in the command,
/// as zsh's line editor does: the cursor at the start of the row below.
fn keyed_editor(engine: &termloom::Engine, setup: &str) -> Session {
    let editor = format!(
        "import os, select, tty\n\
         tty.setraw(0)\n\
         wake, _ = os.pipe()\n\
         os.write(1, b'{setup}> ')\n\
         while True:\n\
         \x20   if not select.select([0, wake], [], [], 3)[0]: continue\n\
         \x20   keys = os.read(0, 100)\n\
         \x20   if keys.endswith(b'\\x1b\\r'):\n\
         \x20       os.write(1, keys[:-2] + b'\\r\\n'); continue\n\
         \x20   enter = [e for e in (b'\\r', b'\\x1b[13u', b'\\x1bOM') if keys.endswith(e)]\n\
         \x20   if not enter:\n\
         \x20       os.write(1, keys); continue\n\
         \x20   os.write(1, keys[:-len(enter[0])] + b'\\r\\n')\n\
         \x20   select.select([0, wake], [], [], 3)\n\
         \x20   os.write(1, b'the answer\\r\\n> ')\n"
    );
    let editor = engine.spawn(SpawnSpec::new("python3").args(["-c", &editor])).unwrap();
    assert_eq!(input_wait_fires(&editor), Some(InputKind::Keys));
    editor
}

/// Enter submits a line in every encoding the program reads as Enter: a program that asked
/// for the kitty protocol's flag 8 gets `CSI 13 u`, and the keypad's Enter in application
/// keypad mode is `ESC O M`. The line the editor then works on is waited for until its answer.
/// Only `\r` or `\n` last counted as a submitted line: the editor, working on a clock, read as
/// waiting for input at once (77 ms and 81 ms, before its answer; 3.09 s with `\r`).
#[test]
fn an_enter_in_the_programs_encoding_submits_its_line() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    for (setup, keys) in [("\\x1b[>8u", "go<Enter>"), ("\\x1b=", "go<KPEnter>")] {
        let editor = keyed_editor(&engine, setup);
        let modes = editor.screen().unwrap().modes;
        assert!(modes.kitty_keyboard == 8 || modes.app_keypad, "{modes:?}");
        let started = Instant::now();
        let outcome = editor.send_keys_and_wait(keys, Until::input_wait(), LONG).unwrap();
        assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
        let screen = editor.screen().unwrap();
        assert!(screen.contains("the answer"), "{keys}: waiting before its answer: {screen}");
        assert!(started.elapsed() >= Duration::from_millis(2500), "{:?}", started.elapsed());
        editor.close().unwrap();
    }
}

/// Alt-Enter in the legacy encoding, `ESC \r`, is a key of its own to a program reading keys
/// (zsh's line editor starts a new line in the command with it), not a submitted line: the
/// editor, idle on its loop's 3 s timer with the cursor at the start of the row below the line,
/// waits for input at once. Taken for a submitted line (`\r` last), the timer read as the
/// editor's work on it: the wait ended only once it went off, 3.1 s later.
#[test]
fn alt_enter_starting_a_new_line_in_the_command_submits_no_line() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let editor = keyed_editor(&engine, "");
    let started = Instant::now();
    let outcome = editor.send_keys_and_wait("go<M-Enter>", Until::input_wait(), LONG).unwrap();
    let took = started.elapsed();
    assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
    let screen = editor.screen().unwrap();
    assert_eq!((screen.cursor.row, screen.cursor.col), (1, 0), "{screen}");
    assert!(!screen.contains("the answer"), "{screen}");
    assert!(took < Duration::from_secs(2), "took {took:?}: {screen}");
    editor.close().unwrap();
}

/// A REPL's prompt drawn while a short timer of its own is pending (node's: V8's delayed tasks
/// after `execSync`, or an interval the user set) waits for input at once: a short timer is a
/// wait for the rest of a key code only where it follows input with nothing printed. It read
/// as busy until the terminal had been quiet for longer than the timer, up to 1.1 s late.
#[test]
fn a_prompt_drawn_with_a_short_timer_pending_waits_for_input_at_once() {
    if !require("node") {
        return;
    }
    let engine = engine();
    let node = node_repl(&engine);
    let started = Instant::now();
    node.send_text("const tick = setInterval(() => {}, 1000); 'armed'\r").unwrap();
    input_wait_fires(&node);
    let took = started.elapsed();
    let screen = node.screen().unwrap();
    assert!(screen.contains("'armed'"), "{screen}");
    // Read as waiting only once the timer went off (1 s) it took 1.0 to 1.1 s.
    assert!(took < Duration::from_millis(800), "took {took:?}: {screen}");
    node.close().unwrap();
}

/// A line editor's suggestion drawn after the cursor (prompt_toolkit's and fish's, from the
/// history) leaves the cursor within its row's text, not after it, and prompt_toolkit polls the
/// terminal with its 0.5 s key-flush timer after every key: that prompt, drawn since the keys,
/// waits for input at once. Each send to IPython, ptpython or litecli with a suggestion shown
/// (`import o` at IPython's prompt, `o` the start of a line in its history) read as busy until
/// the timer went off, 0.46 s late. (A script stands in for prompt_toolkit, drawing the
/// suggestion grey as it does, `38;5;241`; its timer a second long, the longest short one (a
/// longer one is no clock of the program's own). When the timer goes off it creates a file: a
/// wait the timer held finds it there, however slow the machine.)
#[test]
fn a_prompt_with_a_suggestion_after_the_cursor_waits_for_input_at_once() {
    if !require("python3") {
        return;
    }
    let dir = TestDir::new("suggestion-timer");
    let went_off = dir.join("went-off");
    let engine = engine();
    let script = "import os, select, sys, tty\n\
                  tty.setraw(0)\n\
                  line, timer = '', None\n\
                  sys.stdout.write('> '); sys.stdout.flush()\n\
                  while True:\n\
                  \x20   if not select.select([0], [], [], timer)[0]:\n\
                  \x20       timer = None\n\
                  \x20       open(sys.argv[1], 'w').close()\n\
                  \x20       continue\n\
                  \x20   line, timer = line + os.read(0, 1).decode(), 1.0\n\
                  \x20   rest = 'abcdef'[len(line):] if 'abcdef'.startswith(line) else ''\n\
                  \x20   back = '\\x1b[%dD' % len(rest) if rest else ''\n\
                  \x20   sys.stdout.write('\\r\\x1b[K> ' + line + '\\x1b[38;5;241m' + rest + '\\x1b[0m' + back)\n\
                  \x20   sys.stdout.flush()\n";
    let spec = SpawnSpec::new("python3").arg("-c").arg(script).arg(&went_off);
    let editor = engine.spawn(spec).unwrap();
    input_wait_fires(&editor);
    let until = Until::input_wait();
    let outcome = editor.send_keys_and_wait("ab", until, Duration::from_secs(30)).unwrap();
    let held = went_off.exists();
    assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
    let screen = editor.screen().unwrap();
    assert_eq!(screen.lines[0], "> abcdef", "{screen}");
    assert_eq!((screen.cursor.row, screen.cursor.col), (0, 4), "{screen}");
    // Read as waiting only once the timer went off, it took 1.0 to 1.1 s.
    assert!(!held, "the wait ended only when the timer went off: {screen}");
    editor.close().unwrap();
}

/// IPython (prompt_toolkit) draws a suggestion from its history after the cursor, grey, and
/// polls the terminal with its 0.5 s key-flush timer after every key: `import o` typed after
/// `import os` was submitted waits for input well before that timer goes off (0.47 s before).
/// (Told by the output's age when the wait ended, not by the send's duration, which a loaded
/// machine stretches: held by the timer, the last output was 0.46 s old.)
#[test]
fn ipython_with_a_suggestion_after_the_cursor_waits_for_input_at_once() {
    if !require("ipython3") {
        return;
    }
    let dir = TestDir::new("ipython");
    let engine = engine();
    let spec =
        SpawnSpec::new("ipython3").arg("--no-banner").env("HOME", &*dir).env("IPYTHONDIR", &*dir);
    let ipython = engine.spawn(spec).unwrap();
    input_wait_fires(&ipython);
    let until = Until::input_wait();
    let wait = Duration::from_secs(30);
    ipython.submit_and_wait("import os", until.clone(), wait).unwrap();
    let started = Instant::now();
    let outcome = ipython.send_keys_and_wait("import o", until, wait).unwrap();
    let took = started.elapsed();
    assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{outcome}");
    let screen = ipython.screen().unwrap();
    let row = &screen.lines[usize::from(screen.cursor.row)];
    assert!(row.ends_with("import os"), "no suggestion drawn: {screen}");
    assert_eq!(usize::from(screen.cursor.col), row.len() - 1, "{screen}");
    // Held by the key-flush timer, the wait ended 0.46 s after the last output.
    let quiet = outcome.status.since_output;
    assert!(quiet < Duration::from_millis(300), "quiet for {quiet:?} (took {took:?}): {screen}");
    ipython.close().unwrap();
}

/// A program that idles polling the terminal on a short timer of its own, back on a short
/// timer after a key and its first frame, is not thereby waiting again: the key may have
/// started work redrawn on a timer. A job that polls every 0.5 s while idle and redraws its
/// ten steps on `select` every 0.3 s (or 0.25 s) after `w` is followed to "done". (A rule
/// tried for prompt_toolkit's keys and not kept, "idled on a short timer before the key, back
/// on one of 0.2 s or more after drawing at once", read it waiting 77 ms after the key,
/// "working 0/10"; so did two of the three tests below.)
#[test]
fn a_job_a_key_starts_on_a_shorter_timer_is_followed_to_its_end() {
    if !require("python3") {
        return;
    }
    let dir = TestDir::new("key-job");
    std::fs::write(dir.join("job.py"), JOB_PY).unwrap();
    let engine = engine();
    for tick in ["0.3", "0.25"] {
        let spec = SpawnSpec::new("python3").arg(dir.join("job.py")).env("TICK", tick);
        key_is_followed_to(&engine, spec, "w", "done after", &format!("TICK={tick}"));
    }
}

/// A curses search box that polls every 0.5 s while idle and searches 0.3 s after each key (a
/// debounce) is followed to its results, not read as waiting at "searching...".
#[test]
fn a_debounced_search_is_followed_to_its_results() {
    if !require("python3") {
        return;
    }
    let dir = TestDir::new("debounce");
    std::fs::write(dir.join("debounce.py"), DEBOUNCE_PY).unwrap();
    let engine = engine();
    let search = engine.spawn(SpawnSpec::new("python3").arg(dir.join("debounce.py"))).unwrap();
    input_wait_fires(&search);
    for (key, query) in [("a", "'a'"), ("b", "'ab'"), ("c", "'abc'")] {
        let until = Until::input_wait();
        let outcome = search.send_keys_and_wait(key, until, Duration::from_secs(30)).unwrap();
        assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{key}: {outcome}");
        let screen = search.screen().unwrap();
        let results = screen.lines[2].starts_with(&format!("results for {query}"));
        assert!(results, "{key}: read as waiting before its search: {screen}");
    }
    search.close().unwrap();
}

/// The same in prompt_toolkit: a key binding that starts a background task of one
/// `asyncio.sleep(0.3)` is followed to "done", not read as waiting at "working 0/10".
#[test]
fn a_prompt_toolkit_task_started_by_a_key_is_followed_to_its_end() {
    prompt_toolkit_task_is_followed("1", "0.3");
}

/// So is a prompt_toolkit spinner a key starts, ten frames 0.1 s apart.
#[test]
fn a_prompt_toolkit_spinner_started_by_a_key_is_followed_to_its_end() {
    prompt_toolkit_task_is_followed("10", "0.1");
}

/// Runs pt.py with `STEPS` and `TICK`, types `w` and checks the wait ends with "done" drawn.
fn prompt_toolkit_task_is_followed(steps: &str, tick: &str) {
    if !require("ipython3") || !require("python3") {
        return;
    }
    let dir = TestDir::new("pt-task");
    std::fs::write(dir.join("pt.py"), PT_PY).unwrap();
    let engine = engine();
    let spec =
        SpawnSpec::new("python3").arg(dir.join("pt.py")).env("STEPS", steps).env("TICK", tick);
    key_is_followed_to(&engine, spec, "w", "done after", &format!("STEPS={steps} TICK={tick}"));
}

/// Spawns `spec`, waits until it waits for input, types `key` and checks the wait for input
/// ends with a line starting with `done` drawn, not while the work the key started goes on
/// (`run` names the case in a failure).
fn key_is_followed_to(
    engine: &termloom::Engine,
    spec: SpawnSpec,
    key: &str,
    done: &str,
    run: &str,
) {
    let session = engine.spawn(spec).unwrap();
    input_wait_fires(&session);
    let wait = Duration::from_secs(30);
    let outcome = session.send_keys_and_wait(key, Until::input_wait(), wait).unwrap();
    assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{run}: {outcome}");
    let screen = session.screen().unwrap();
    let drawn = screen.lines.iter().any(|line| line.starts_with(done));
    assert!(drawn, "{run}: read as waiting while it worked: {screen}");
    session.close().unwrap();
}

/// The reviewer's job: a key starts ten steps redrawn on `select` every `TICK` s; idle, it
/// polls the terminal every 0.5 s.
const JOB_PY: &str = r#"# A key starts a job whose progress is redrawn on a 0.3 s select timer; idle, it polls on 0.5 s.
import os, select, sys, termios, time, tty
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setcbreak(fd)
out = sys.stdout
out.write("\x1b[?25lpress w to start a job, q to quit\r\n"); out.flush()
idle = float(os.environ.get("IDLE", "0.5")); tick = float(os.environ.get("TICK", "0.3"))
steps = int(os.environ.get("STEPS", "10"))
job = None
try:
    while True:
        r, _, _ = select.select([fd], [], [], tick if job is not None else idle)
        if r:
            k = os.read(fd, 16)
            if k == b"q": break
            if k == b"w" and job is None:
                job = (0, time.monotonic())
                out.write("\rworking 0/%d      " % steps); out.flush()
            continue
        if job is not None:
            n, t0 = job
            n += 1
            if n >= steps:
                out.write("\rdone after %.2f s   \r\n" % (time.monotonic() - t0)); out.flush()
                job = None
            else:
                job = (n, t0)
                out.write("\rworking %d/%d      " % (n, steps)); out.flush()
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
    out.write("\x1b[?25h"); out.flush()
"#;

/// The reviewer's search box: its search 0.3 s after the last key; idle, it polls every 0.5 s.
const DEBOUNCE_PY: &str = r#"# A search box that runs its search 0.3 s after the last key (a debounce); idle, it polls every 0.5 s.
import curses, os, time
def main(scr):
    curses.use_default_colors()
    debounce = int(float(os.environ.get("DEBOUNCE", "0.3")) * 1000)
    full = os.environ.get("FULL", "1") == "1"
    query, due, typed_at = "", False, None
    scr.addstr(0, 0, "search: ")
    scr.refresh()
    while True:
        scr.timeout(debounce if due else 500)
        k = scr.getch()
        if k == -1:
            if due:
                due = False
                scr.move(2, 0); scr.clrtoeol()
                scr.addstr(2, 0, "results for %r (%.2f s after the key)" % (query, time.monotonic() - typed_at))
                scr.move(0, 8 + len(query)); scr.refresh()
            continue
        if k == ord("\n"):
            break
        query += chr(k); due = True; typed_at = time.monotonic()
        scr.addstr(0, 8, query); scr.move(2, 0); scr.clrtoeol(); scr.addstr(2, 0, "searching...")
        scr.move(0, 8 + len(query)); scr.refresh()
curses.wrapper(main)
"#;

/// The reviewer's prompt_toolkit application: `w` starts a background task of `STEPS` steps
/// of `asyncio.sleep(TICK)`.
const PT_PY: &str = r#"import asyncio, os, time
from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window, FormattedTextControl
state = {"text": "press w to start a job"}
tick = float(os.environ.get("TICK", "0.3"))
kb = KeyBindings()
async def job(app):
    t0 = time.monotonic()
    for n in range(1, int(os.environ.get("STEPS", "10")) + 1):
        await asyncio.sleep(tick)
        state["text"] = "working %d/10" % n
        app.invalidate()
    state["text"] = "done after %.2f s" % (time.monotonic() - t0)
    app.invalidate()
@kb.add("w")
def _(event):
    state["text"] = "working 0/10"
    event.app.create_background_task(job(event.app))
@kb.add("q")
def _(event):
    event.app.exit()
full = os.environ.get("FULL", "1") == "1"
app = Application(layout=Layout(Window(FormattedTextControl(lambda: state["text"]), height=1)), key_bindings=kb, full_screen=full)
app.run()
"#;

/// A busy program's own text after its cursor is no suggestion: a spinner drawn as its glyph
/// and a backspace leaves the cursor on the glyph, in its row's text, while the program, in
/// cbreak mode, polls the terminal every 0.1 s so that a key can stop it. It works until it
/// prints `finished`; read as waiting at the first poll, 0.31 s into a 4 s spin, it was a
/// false wait. So is its glyph drawn grey (`CSI 90 m`) or faint (`CSI 2 m`), as a
/// suggestion is: read as waiting 0.22 s into the spin (the text before the cursor does not
/// end with the `s` typed, as a suggestion's does), and, when the key typed was a space
/// (`Working: ` ends with it), 0.34 s in. A status drawn grey after a key the terminal echoed
/// (`[y/n] y`, then `  (downloading 3/30)` redrawn every 0.1 s) read as waiting 0.34 s in:
/// a single key echoed is no line being typed. The programs read keys with echo on, as a
/// line editor does.
#[test]
fn a_spinner_drawn_before_its_cursor_is_busy_until_it_finishes() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import select, sys, termios, time\n\
                  style = sys.argv[1]\n\
                  modes = termios.tcgetattr(0)\n\
                  modes[3] &= ~termios.ICANON\n\
                  termios.tcsetattr(0, termios.TCSANOW, modes)\n\
                  sys.stdout.write('press s to start: '); sys.stdout.flush()\n\
                  sys.stdin.read(1)\n\
                  sys.stdout.write('\\r\\nWorking: '); sys.stdout.flush()\n\
                  end, glyph = time.monotonic() + 3, 0\n\
                  while time.monotonic() < end:\n\
                  \x20   sys.stdout.write(style + '|/-\\\\'[glyph % 4] + '\\x1b[0m\\b')\n\
                  \x20   sys.stdout.flush()\n\
                  \x20   glyph += 1\n\
                  \x20   select.select([0], [], [], 0.1)\n\
                  sys.stdout.write('\\r\\nfinished, press a key: '); sys.stdout.flush()\n\
                  sys.stdin.read(1)\n";
    let status = "import select, sys, termios, time\n\
                  modes = termios.tcgetattr(0)\n\
                  modes[3] &= ~termios.ICANON\n\
                  termios.tcsetattr(0, termios.TCSANOW, modes)\n\
                  sys.stdout.write('Download 30 files? [y/n] '); sys.stdout.flush()\n\
                  sys.stdin.read(1)\n\
                  end, n = time.monotonic() + 3, 0\n\
                  while time.monotonic() < end:\n\
                  \x20   sys.stdout.write('\\x1b7\\x1b[90m  (downloading %d/30)\\x1b[0m\\x1b8' % n)\n\
                  \x20   sys.stdout.flush()\n\
                  \x20   n += 1\n\
                  \x20   select.select([0], [], [], 0.1)\n\
                  sys.stdout.write('\\r\\nfinished, press a key: '); sys.stdout.flush()\n\
                  sys.stdin.read(1)\n";
    let runs = [
        (script, "", "s"),
        (script, "\x1b[90m", "s"),
        (script, "\x1b[2m", "s"),
        (script, "\x1b[90m", " "),
        (status, "", "y"),
    ];
    for (program, style, key) in runs {
        let spec = SpawnSpec::new("python3").args(["-c", program, style]);
        key_is_followed_to(&engine, spec, key, "finished", &format!("{style:?} {key:?}"));
    }
}

/// A program ticking on a one-second timer that waits on a socket, not the terminal, is busy,
/// not waiting for keys: only a timer on a wait that includes the terminal is a monitor's tick.
#[test]
fn a_timer_on_a_socket_is_no_wait_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import select, socket\n\
                  a, b = socket.socketpair()\n\
                  n = 0\n\
                  while True:\n\
                  \x20   n += 1\n\
                  \x20   print('progress', n, flush=True)\n\
                  \x20   select.select([a], [], [], 1.0)\n";
    let ticker = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    expect(&ticker, Until::text("progress 1"));
    // Three ticks and more: a monitor's tick would read as waiting after the second.
    let outcome = ticker.wait(Until::input_wait(), Duration::from_millis(3500)).unwrap();
    assert!(outcome.is_timeout(), "a ticker on a socket read as waiting for keys: {outcome}");
    assert_ne!(ticker.status().unwrap().activity, Activity::WaitingForInput);
}

/// A program that waits on anything but the terminal, quiet, is not waiting for input,
/// whatever its timer: a server polling its socket on a short timer (`python3 -m
/// http.server`: 0.5 s) or none, a loop sleeping in `select` with no descriptor, an event
/// loop whose epoll set holds only a socket. Before, a poll-family wait counted whatever it
/// waited on, and a short timer once the terminal had been quiet for longer.
#[test]
fn a_quiet_wait_on_other_descriptors_is_no_wait_for_input() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let waits = [
        ("a socket, 0.5 s timer", "select.select([a], [], [], 0.5)"),
        ("a socket, no timer", "poller.poll()"),
        ("nothing, 0.2 s timer", "select.select([], [], [], 0.2)"),
        ("an epoll set of a socket", "epoller.poll(0.5)"),
    ];
    for (what, wait) in waits {
        let script = format!(
            "import select, socket\n\
             a, b = socket.socketpair()\n\
             poller = select.poll(); poller.register(a, select.POLLIN)\n\
             epoller = select.epoll(); epoller.register(a, select.EPOLLIN)\n\
             print('serving', flush=True)\n\
             while True:\n\
             \x20   {wait}\n"
        );
        let server = engine.spawn(SpawnSpec::new("python3").args(["-c", &script])).unwrap();
        expect(&server, Until::text("serving"));
        let outcome = server.wait(Until::input_wait(), Duration::from_millis(1500)).unwrap();
        assert!(outcome.is_timeout(), "waiting on {what} read as waiting for input: {outcome}");
        assert_ne!(server.status().unwrap().activity, Activity::WaitingForInput, "{what}");
        server.close().unwrap();
    }
}

/// An event loop whose epoll set holds another epoll set, which holds the terminal, waits
/// for input: a set whose descriptors cannot all be looked at is not taken to leave the
/// terminal out.
#[test]
fn a_nested_epoll_set_on_the_terminal_waits_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let script = "import select, sys, tty\n\
                  tty.setcbreak(0)\n\
                  inner = select.epoll(); inner.register(0, select.EPOLLIN)\n\
                  outer = select.epoll(); outer.register(inner.fileno(), select.EPOLLIN)\n\
                  print('ready', flush=True)\n\
                  outer.poll()\n\
                  print('key', sys.stdin.read(1), flush=True)\n";
    let program = engine.spawn(SpawnSpec::new("python3").args(["-c", script])).unwrap();
    expect(&program, Until::text("ready"));
    assert_eq!(input_wait_fires(&program), Some(InputKind::Keys));
    program.send_text("q").unwrap();
    expect(&program, Until::text("key q"));
}

/// A program that runs another on a terminal of its own and relays between the two (`script`;
/// `sudo` does so by default, its `use_pty`) reads the session's terminal whatever the program
/// it hosts does: it waits for input only when the foreground group of the terminal it hosts
/// waits. It read as waiting for keys from its first moment, while the command it ran slept,
/// so a call returned before the command had printed anything.
#[test]
fn a_program_relaying_to_a_terminal_it_hosts_waits_with_the_program_in_it() {
    if !require("script") || !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let command = "sleep 3; printf 'ready> '; read -r x; echo got-$x; sleep 3; \
        stty -echo; printf 'pw> '; read -r y; stty echo; echo; echo pw-length-${#y}; read -r z";
    let script = engine
        .spawn(
            SpawnSpec::new("script")
                .args(["-q", "-c", command, "/dev/null"])
                .env("SHELL", "/bin/sh"),
        )
        .unwrap();
    input_wait_does_not_fire(&script);
    // The kind of input is the hosted terminal's (a line), not that of the session's terminal,
    // which the relay keeps raw (it read "keys").
    assert_eq!(input_wait_fires(&script), Some(InputKind::Line));
    assert!(script.screen().unwrap().contains("ready>"));
    // The status names the program that reads, not the relay.
    assert_eq!(script.status().unwrap().foreground.map(|p| p.name).as_deref(), Some("sh"));
    script.submit("42").unwrap();
    expect(&script, Until::screen_contains("got-42"));
    input_wait_does_not_fire(&script);
    // A password prompt in the hosted terminal is one: a secret may be typed there (it was
    // refused, the session's terminal being raw).
    assert_eq!(input_wait_fires(&script), Some(InputKind::Password));
    script.send_secret("hunter2").unwrap();
    expect(&script, Until::screen_contains("pw-length-7"));
    assert!(!script.screen().unwrap().contains("hunter2"));
    assert_eq!(input_wait_fires(&script), Some(InputKind::Line));
    script.close().unwrap();
}

/// Behind a relay that keeps the session's terminal raw while the terminal it hosts reads
/// whole lines (`script`; `sudo` with `use_pty` does the same), the hosted terminal's line
/// discipline says whether keys submit a line: Alt-Enter, `ESC \r`, ends the line of the
/// command's `read` (`ICRNL`), and a wait sent with it looks past its echo. Judged by the
/// raw terminal's rule (the program's: Alt-Enter is a new line in zsh's command), the wait
/// for `answer` matched the echo `answer^[` at once, before the command printed `answer`.
#[test]
fn keys_a_hosted_terminals_line_discipline_ends_a_line_on_submit_it() {
    if !require("script") {
        return;
    }
    let engine = engine();
    let command = "printf 'ready> '; read -r x; sleep 0.5; echo answer; read -r x";
    let script = engine
        .spawn(
            SpawnSpec::new("script")
                .args(["-q", "-c", command, "/dev/null"])
                .env("SHELL", "/bin/sh"),
        )
        .unwrap();
    assert_eq!(input_wait_fires(&script), Some(InputKind::Line));
    let outcome =
        script.send_keys_and_wait("answer<M-Enter>", Until::text("answer"), LONG).unwrap();
    assert!(outcome.matched().is_some(), "{outcome}");
    let screen = script.screen().unwrap();
    let answers = screen.lines.iter().filter(|line| line.contains("answer")).count();
    assert_eq!(answers, 2, "matched before the command's answer: {screen}");
    script.close().unwrap();
}

/// `sudo` with `use_pty` (Debian's default) whose standard output is a pipe (`sudo cmd | tee
/// log`) hands that pipe to the command it runs on the terminal it hosts: the two hold a pipe
/// in common, yet `sudo` only relays, and a password prompt of the command is read by the
/// command (it read as `sudo waiting for keys`, and a secret was refused). Without `use_pty`
/// the command reads the session's terminal itself, and is named so too.
#[test]
fn a_command_sudo_hosts_with_its_output_piped_reads_its_password_prompt() {
    if !require_root("sudo runs a command without a password only for root")
        || !require("sudo")
        || !require("python3")
    {
        return;
    }
    let engine = engine();
    let asks = "import getpass; print('length', len(getpass.getpass('Secret: ')))";
    let line = format!("sudo -n python3 -c \"{asks}\" | tee /dev/null; exec sleep 60");
    let sudo = engine.spawn(SpawnSpec::new("sh").args(["-c", &line])).unwrap();
    expect(&sudo, Until::screen_contains("Secret:"));
    assert_eq!(input_wait_fires(&sudo), Some(InputKind::Password));
    assert_eq!(sudo.status().unwrap().foreground.map(|p| p.name).as_deref(), Some("python3"));
    sudo.send_secret("hunter2").unwrap();
    expect(&sudo, Until::screen_contains("length 7"));
    assert!(!sudo.screen().unwrap().contains("hunter2"));
    sudo.close().unwrap();
}

/// `less +F` following a file (a 2 ms sleep between its looks at the file, with nothing to
/// print) settles the default wait as soon as it is seen ticking so, as a full-screen program
/// redrawing on a timer does (`watch`), and says so: it settled only after the silence's
/// fallback, `less running, quiet · settled after 1.25 s`, at its start and after `F`.
#[test]
fn a_full_screen_program_ticking_with_nothing_to_print_settles_at_once() {
    if !require("less") {
        return;
    }
    let file =
        std::env::temp_dir().join(format!("termloom-follow-tick-{}.txt", std::process::id()));
    std::fs::write(&file, "followed line\n").unwrap();
    let toolbox = termloom::tools::Toolbox::new(engine());
    let argv = serde_json::json!({ "argv": ["less", "+F", file.to_str().unwrap()] });
    let started = toolbox.call("terminal_start", &argv);
    let said = &started.text;
    assert!(said.contains("followed line"), "{said}");
    assert!(said.contains("ticking on a timer with nothing to print"), "{said}");
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let send = |keys: &str| {
        let arguments = serde_json::json!({ "session_id": id, "keys": keys });
        toolbox.call("terminal_send", &arguments).text
    };
    let said = send("<C-c>");
    assert!(said.contains("less waiting for keys"), "{said}");
    let said = send("F");
    assert!(said.contains("ticking on a timer with nothing to print"), "{said}");
    // (What is appended is shown: it is no tick.)
    std::fs::write(&file, "followed line\nappended line\n").unwrap();
    let waited = serde_json::json!({ "session_id": id, "for_screen_text": "appended line" });
    let said = toolbox.call("terminal_read", &waited).text;
    assert!(said.contains("appended line"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
    let _ = std::fs::remove_file(&file);
}

/// A full-screen monitor that sleeps between its frames and reads no keys (`watch -n 10`, in
/// `clock_nanosleep` for 10 s) has shown what it shows as soon as its first frame is drawn:
/// the default wait settles it then, as it does `top` and `htop`. It took one whole tick
/// (`watch -n 5`: `settled after 5.07 s`), or ended `still busy after 10.0 s` (`-n 10`),
/// waiting to see the sleep again after a wake-up.
#[test]
fn a_monitor_sleeping_between_its_frames_settles_at_its_first_frame() {
    if !require("watch") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    for interval in ["5", "10"] {
        let started = Instant::now();
        let argv = serde_json::json!({ "argv": ["watch", "-n", interval, "date"] });
        let result = toolbox.call("terminal_start", &argv);
        let (took, said) = (started.elapsed(), &result.text);
        assert!(said.contains("redrawing on a timer"), "{said}");
        assert!(said.contains(&format!("Every {interval}.0s: date")), "{said}");
        // (A tick is 5 s or more; a frame is drawn within a fraction of a second.)
        assert!(took < Duration::from_millis(2500), "after {took:?}: {said}");
        let id = result.structured.as_ref().unwrap()["session_id"].clone();
        toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
    }
}

/// A monitor draws its own frames on the alternate screen whoever went to it first: `watch
/// -n 10` after `tput smcup` (at once, after a pause, run by `exec` or by a shell function)
/// settles at its first frame. When the probe took the group that went to the alternate
/// screen (tput's) for the one that draws it, these waited out watch's 10 s tick.
#[test]
fn a_monitor_on_an_alternate_screen_another_program_entered_settles_at_its_first_frame() {
    if !require("bash") || !require("watch") || !require("tput") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": ["bash", "--norc", "--noprofile"],
                                    "env": { "TERM": "xterm-256color" }, "input_wait": true });
    let commands = [
        "tput smcup; watch -n 10 date",
        "tput smcup; sleep 0.2; watch -n 10 date",
        "monitor() { watch -n 10 date; }; tput smcup; monitor",
        "tput smcup; exec watch -n 10 date",
    ];
    for command in commands {
        let started = toolbox.call("terminal_start", &start);
        assert!(started.text.contains("waiting for keys"), "{}", started.text);
        let id = started.structured.as_ref().unwrap()["session_id"].clone();
        settles_at_its_first_frame(&toolbox, &id, command);
        toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
    }
}

/// A monitor that erases the whole screen and writes from its third row, never moving home,
/// starts its frames with the erase: after `tput smcup` (another group's), it settles at its
/// first frame. With only moves home and the alternate screen's entry starting frames, the
/// last frame was tput's, and this waited out the 10 s sleep (review vq).
#[test]
fn a_monitor_that_erases_its_screen_without_moving_home_settles_at_its_first_frame() {
    if !require("bash") || !require("tput") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    // (The process that drew sleeps: `exec` keeps it.)
    let monitor = r#"sh -c 'printf "\033[2J\033[3;1Hframe one"; exec sleep 10'"#;
    for command in [format!("tput smcup; {monitor}"), format!("tput smcup; sleep 0.3; {monitor}")] {
        settles_as_a_monitor(&toolbox, &command, "frame one", Duration::from_millis(3000));
    }
}

/// Submits `command` to a new bash session of `toolbox`: the call settles as a monitor's
/// ("redrawing on a timer"), `shown` on the screen, within `within` (long before the
/// monitor's next frame).
fn settles_as_a_monitor(
    toolbox: &termloom::tools::Toolbox,
    command: &str,
    shown: &str,
    within: Duration,
) {
    let start = serde_json::json!({ "argv": ["bash", "--norc", "--noprofile"],
                                    "env": { "TERM": "xterm-256color" }, "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let began = Instant::now();
    let arguments = serde_json::json!({ "session_id": id, "text": command, "submit": true });
    let said = toolbox.call("terminal_send", &arguments).text;
    let took = began.elapsed();
    assert!(said.contains("redrawing on a timer"), "{command}: {said}");
    assert!(said.contains(shown), "{command}: {said}");
    assert!(took < within, "{command} after {took:?}: {said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A Python monitor sleeps until its next frame (`time.sleep` is `clock_nanosleep` with
/// `TIMER_ABSTIME`, a deadline, where C's `sleep` gives a length): drawn on the alternate
/// screen, by hand after `tput smcup` or by curses, it settles at its first frame as C's does.
/// Such a sleep was never taken for a monitor's between two frames, and each call waited out
/// the 10 s tick: `still busy after 10.0 s`.
#[test]
fn a_python_monitor_sleeping_until_its_next_frame_settles_at_its_first_frame() {
    if !require("bash") || !require("tput") || !require("python3") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let dir = TestDir::new("python-monitor");
    let by_hand = dir.join("by_hand.py");
    std::fs::write(
        &by_hand,
        "import sys, time\nn = 0\nwhile True:\n    \
         sys.stdout.write('\\033[2J\\033[3;1Hframe %d' % n); n += 1\n    \
         sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n",
    )
    .unwrap();
    let curses = dir.join("monitor_in_curses.py");
    std::fs::write(
        &curses,
        "import curses, time\ndef main(s):\n    n = 0\n    while True:\n        \
         s.addstr(2, 0, 'frame %d' % n); n += 1; s.refresh(); time.sleep(10)\n\
         curses.wrapper(main)\n",
    )
    .unwrap();
    let (by_hand, curses) = (by_hand.display(), curses.display());
    // (Every half second too, the shortest monitor's tick: the deadline less the time the
    // frame was read, a little under the tick, settled at random, 0.7 s to never; review vt.)
    let every_half_second = format!("tput smcup; python3 {by_hand} 0.5");
    for (command, shown) in [
        (format!("tput smcup; python3 {by_hand} 10"), "frame 0"),
        (format!("python3 {curses}"), "frame 0"),
        (every_half_second, "frame "),
    ] {
        settles_as_a_monitor(&toolbox, &command, shown, Duration::from_millis(5000));
    }
}

/// A monitor may sleep between its frames in something else than a sleep: a wait on a lock
/// (Python's `threading.Event().wait`, a `futex` until a deadline), `select` with no
/// descriptor (`select.select([], [], [], 10)`, `pselect6` for a length) or on descriptors that
/// are not the terminal (a pipe of its own). Drawn on the alternate screen, each settles at its
/// first frame, as one in `time.sleep` does. Each waited out the default wait's whole 10 s,
/// `still busy after 10.0 s`: the lock's and `select`'s timers read as a clock about to go off.
/// So does one beside a heartbeat thread asleep for 30 s at a time (`heartbeat`: 10 s with
/// every other thread required on a lock, review vz).
#[test]
fn a_python_monitor_waiting_on_a_lock_or_in_select_settles_at_its_first_frame() {
    if !require("bash") || !require("tput") || !require("python3") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let dir = TestDir::new("python-waits");
    let monitor = dir.join("monitor.py");
    std::fs::write(
        &monitor,
        "import os, select, sys, threading\nhow, every = sys.argv[1], float(sys.argv[2])\n\
         event, (r, w) = threading.Event(), os.pipe()\nn = 0\n\
         if how == 'heartbeat':\n    import time\n    \
         threading.Thread(target=lambda: [time.sleep(30) for _ in iter(int, 1)], daemon=True).start()\n\
         while True:\n    \
         sys.stdout.write('\\033[2J\\033[3;1Hframe %d' % n); n += 1; sys.stdout.flush()\n    \
         if how in ('event', 'heartbeat'): event.wait(every)\n    \
         elif how == 'select': select.select([], [], [], every)\n    \
         else: select.select([r], [], [], every)\n",
    )
    .unwrap();
    settles_at_each_tick(
        &toolbox,
        &format!("python3 {}", monitor.display()),
        &["event", "select", "pipe", "heartbeat"],
    );
}

/// Runs `program HOW EVERY` (a monitor drawing `frame N` every `EVERY` seconds) after `tput
/// smcup` for each of `hows`, every 10 s and every 2 s: each settles at its first frame
/// ([`settles_as_a_monitor`]).
fn settles_at_each_tick(toolbox: &termloom::tools::Toolbox, program: &str, hows: &[&str]) {
    for how in hows {
        for every in ["10", "2"] {
            let command = format!("tput smcup; {program} {how} {every}");
            // (Every 2 s, the frame shown may be the second. The call took the default
            // wait's 10 s; an interpreter may take seconds to start under load.)
            let shown = if every == "10" { "frame 0" } else { "frame " };
            settles_as_a_monitor(toolbox, &command, shown, Duration::from_millis(8000));
        }
    }
}

/// A full-screen program that drew and waits on a clock for its work before it asks (a lock
/// a worker thread at work sets, or one polling its work every 100 ms, a queue a sleeping
/// worker fills, a future a worker waiting for a child completes, a socket beside an eventfd
/// of its own, as node's event loop waits on one, a pipe another process writes to, each with
/// a timeout) is working, not a monitor between two frames: the call waits for its question.
/// (`poller`, `queue` and `child` settled at `loading`, the other threads taken as idle:
/// review vy; `timer` and `ticker`, a `threading.Timer` and a worker on a clock of its own,
/// once several threads' clocks were taken: review wb; `untimed`, the worker's clock the only
/// one, the main thread's wait untimed: review wc.)
#[test]
fn a_full_screen_program_waiting_for_its_work_with_a_timeout_is_no_monitor() {
    if !require("bash") || !require("tput") || !require("python3") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let dir = TestDir::new("python-work");
    let asks = dir.join("asks.py");
    std::fs::write(
        &asks,
        "import os, select, socket, subprocess, sys, threading, time\nhow = sys.argv[1]\n\
         sys.stdout.write('\\033[2J\\033[3;1Hloading'); sys.stdout.flush()\n\
         def work(done):\n    end = time.monotonic() + 1.5\n    \
         while time.monotonic() < end: pass\n    done.set()\n\
         if how == 'worker':\n    done = threading.Event()\n    \
         threading.Thread(target=work, args=(done,), daemon=True).start(); done.wait(10)\n\
         elif how == 'poller':\n    done = threading.Event()\n    \
         def poll():\n        end = time.monotonic() + 1.5\n        \
         while time.monotonic() < end: time.sleep(0.1)\n        done.set()\n    \
         threading.Thread(target=poll, daemon=True).start(); done.wait(10)\n\
         elif how == 'timer':\n    done = threading.Event()\n    \
         threading.Timer(1.5, done.set).start(); done.wait(10)\n\
         elif how in ('ticker', 'untimed'):\n    done, work = threading.Event(), threading.Event()\n    \
         def tick():\n        for _ in range(3): work.wait(0.6)\n        done.set()\n    \
         threading.Thread(target=tick, daemon=True).start(); done.wait(10 if how == 'ticker' else None)\n\
         elif how == 'queue':\n    import queue; q = queue.Queue()\n    \
         threading.Thread(target=lambda: (time.sleep(1.5), q.put(1)), daemon=True).start()\n    \
         q.get(timeout=10)\n\
         elif how == 'child':\n    from concurrent.futures import ThreadPoolExecutor\n    \
         run = lambda: subprocess.run(['sleep', '1.5'], start_new_session=True)\n    \
         ThreadPoolExecutor(1).submit(run).result(timeout=10)\n\
         elif how == 'socket':\n    (a, b), e = socket.socketpair(), os.eventfd(0)\n    \
         threading.Thread(target=lambda: (time.sleep(1.5), b.send(b'x')), daemon=True).start()\n    \
         select.select([a, e], [], [], 10)\n\
         else:\n    r, w = os.pipe()\n    \
         subprocess.Popen(['sh', '-c', 'sleep 1.5; echo x'], stdout=w, process_group=0)\n    \
         os.close(w); select.select([r], [], [], 10)\n\
         sys.stdout.write('\\033[2J\\033[3;1Hname? '); sys.stdout.flush(); input()\n",
    )
    .unwrap();
    let asks = asks.display();
    let start = serde_json::json!({ "argv": ["bash", "--norc", "--noprofile"],
                                    "env": { "TERM": "xterm-256color" }, "input_wait": true });
    for how in
        ["worker", "poller", "timer", "ticker", "untimed", "queue", "child", "socket", "pipe"]
    {
        let started = toolbox.call("terminal_start", &start);
        let id = started.structured.as_ref().unwrap()["session_id"].clone();
        let text = format!("tput smcup; python3 {asks} {how}");
        let arguments = serde_json::json!({ "session_id": id, "text": text, "submit": true });
        let said = toolbox.call("terminal_send", &arguments).text;
        // (Taken for a monitor, it settled at `loading`, 0.2 to 0.5 s in. At the moment the
        // work ends, under load, the question may be drawn as a probe still finds the wait:
        // the call then says `redrawing on a timer` with the question shown.)
        assert!(said.contains("name? "), "{how}: {said}");
        toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
    }
}

/// node's timers (`setInterval`, a `setTimeout` set again at each frame) are the timeout of
/// its event loop's `epoll_pwait` on its own pipes and eventfds: a monitor so drawn on the
/// alternate screen settles at its first frame. It waited out the default wait's whole 10 s,
/// `still busy after 10.0 s`, the timeout read as a clock about to go off.
#[test]
fn a_node_monitor_on_its_event_loops_timer_settles_at_its_first_frame() {
    if !require("bash") || !require("tput") || !require("node") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let dir = TestDir::new("node-monitor");
    let monitor = dir.join("monitor.js");
    std::fs::write(
        &monitor,
        "const [how, every] = [process.argv[2], Number(process.argv[3]) * 1000];\nlet n = 0;\n\
         const draw = () => process.stdout.write(`\\x1b[2J\\x1b[3;1Hframe ${n++}`);\n\
         if (how === 'interval') { draw(); setInterval(draw, every); }\n\
         else { const loop = () => { draw(); setTimeout(loop, every); }; loop(); }\n",
    )
    .unwrap();
    settles_at_each_tick(
        &toolbox,
        &format!("node {}", monitor.display()),
        &["interval", "timeout"],
    );
}

/// A Python program on the primary screen that prints a line and sleeps (until a point in
/// time) before it asks for input is working, not a monitor between two frames: the call
/// waits for its question.
#[test]
fn a_python_program_sleeping_before_its_question_on_the_primary_screen_is_no_monitor() {
    if !require("bash") || !require("python3") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": ["bash", "--norc", "--noprofile"],
                                    "env": { "TERM": "xterm-256color" }, "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let command = "python3 -c 'import sys, time; print(\"working\"); sys.stdout.flush(); \
                   time.sleep(3); input(\"name? \")'";
    let arguments = serde_json::json!({ "session_id": id, "text": command, "submit": true });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("name? "), "{said}");
    assert!(!said.contains("redrawing on a timer"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// Submits `command`, which starts `watch -n 10 date`, to session `id`: the call settles at
/// watch's first frame, redrawing on a timer, long before its 10 s tick.
fn settles_at_its_first_frame(
    toolbox: &termloom::tools::Toolbox,
    id: &serde_json::Value,
    command: &str,
) {
    let began = Instant::now();
    let arguments = serde_json::json!({ "session_id": id, "text": command, "submit": true });
    let said = toolbox.call("terminal_send", &arguments).text;
    let took = began.elapsed();
    assert!(said.contains("redrawing on a timer"), "{command}: {said}");
    assert!(said.contains("Every 10.0s: date"), "{command}: {said}");
    // (A tick is 10 s; a frame is drawn within a fraction of a second.)
    assert!(took < Duration::from_millis(3000), "{command} after {took:?}: {said}");
}

/// `watch -n 10` run by gdb's TUI draws its own frames on the screen gdb went to: it
/// settles at its first frame, not after its 10 s tick.
#[test]
fn a_monitor_gdbs_tui_runs_settles_at_its_first_frame() {
    if !require("gdb") || !require("watch") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    // (No debuginfod question at the start, whatever the machine's environment.)
    let argv = ["gdb", "-nx", "-q", "-tui", "--args", "watch", "-n", "10", "date"];
    let start = serde_json::json!({ "argv": argv,
                                    "env": { "DEBUGINFOD_URLS": "", "TERM": "xterm-256color" },
                                    "for_screen_text": "(gdb)" });
    let started = toolbox.call("terminal_start", &start);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    settles_at_its_first_frame(&toolbox, &id, "run");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// `watch -n 10` run by gdb's `shell` (in gdb's process group, gdb waiting for it in `wait4`
/// beside its idle workers) settles at its first frame, as it does alone in its group: with
/// gdb beside it, it was no monitor until seen back in its sleep after a tick, and the call
/// waited the default wait's 10 s, `gdb running, quiet`. Back at gdb's prompt, gdb waits.
#[test]
fn a_monitor_gdbs_shell_command_runs_settles_at_its_first_frame() {
    if !require("gdb") || !require("watch") {
        return;
    }
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": ["gdb", "-nx", "-q"],
                                    "env": { "DEBUGINFOD_URLS": "", "TERM": "xterm-256color" },
                                    "for_screen_text": "(gdb)" });
    let started = toolbox.call("terminal_start", &start);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    settles_at_its_first_frame(&toolbox, &id, "shell watch -n 10 date");
    let arguments = serde_json::json!({ "session_id": id, "keys": "<C-c>" });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("gdb waiting for keys"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A program gdb's TUI runs with `shell` that prints a line, then sleeps before it asks, is
/// no monitor between two frames, though gdb waits for it as for `shell watch`: the full
/// screen is gdb's, drawn before the input, so the call waits for the question. Taken for
/// one, it settled after 0.2 s, `redrawing on a timer`, the question not asked yet.
#[test]
fn a_program_gdbs_tui_shell_runs_sleeping_before_its_question_is_no_monitor() {
    if !require("gdb") || !require("python3") {
        return;
    }
    let dir = TestDir::new("gdb-tui-shell");
    let asks = dir.join("asks.py");
    let program = "import time\nprint('working', flush=True)\ntime.sleep(2)\n\
                   print('got', input('name? '))\n";
    std::fs::write(&asks, program).unwrap();
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({ "argv": ["gdb", "-nx", "-q", "-tui"],
                                    "env": { "DEBUGINFOD_URLS": "", "TERM": "xterm-256color" },
                                    "for_screen_text": "(gdb)" });
    let started = toolbox.call("terminal_start", &start);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let line = format!("shell python3 {}", asks.display());
    let arguments = serde_json::json!({ "session_id": id, "text": line, "submit": true });
    let said = toolbox.call("terminal_send", &arguments).text;
    assert!(said.contains("name? ") && said.contains("python3 waiting for"), "{said}");
    assert!(!said.contains("redrawing on a timer"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A monitor in a neovim `:terminal` beside the window the keys go to (`watch -n 5` in a
/// split) ticks as it did before them: the keys never reached it, its terminal holds none
/// unread and it still sleeps the sleep it was found ticking in, so the default wait settles
/// at once. Each key waited for the monitor's next tick, 5 s (`top -d 1`'s poll: 1 s), to see
/// it back on its timer after a wake-up.
#[test]
fn a_monitor_in_a_neovim_terminal_the_keys_do_not_reach_settles_at_once() {
    if !require("nvim") || !require("watch") {
        return;
    }
    let dir = TestDir::new("nvim-watch");
    let home = dir.display().to_string();
    let toolbox = termloom::tools::Toolbox::new(engine());
    let start = serde_json::json!({
        "argv": ["nvim", "--clean", "-n"], "cwd": &home, "env": { "HOME": &home },
        "input_wait": true,
    });
    let started = toolbox.call("terminal_start", &start);
    assert!(started.text.contains("waiting for keys"), "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let send = |keys: &str| {
        let arguments = serde_json::json!({ "session_id": id, "keys": keys });
        let began = Instant::now();
        let said = toolbox.call("terminal_send", &arguments).text;
        (began.elapsed(), said)
    };
    let (_, said) = send(":split | terminal watch -n 5 date<Enter>");
    assert!(said.contains("Every 5.0s: date"), "{said}");
    for keys in ["<C-w>j", "ihello<Esc>", "yyp"] {
        let (took, said) = send(keys);
        assert!(took < Duration::from_millis(2500), "{keys} after {took:?}: {said}");
        assert!(said.contains("settled") || said.contains("waiting for keys"), "{said}");
    }
    let look = serde_json::json!({ "session_id": id, "view": "screen" });
    let screen = toolbox.call("terminal_read", &look).text;
    assert_eq!(screen.matches("hello").count(), 2, "{screen}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A progress bar redrawn once a second (`printf '\r%3d%%'`, then `sleep 1`) runs and prints,
/// waiting for no input: its status reads `Running` however long after a redraw it is read.
/// It read `Quiet` whenever read more than the quiet window's 500 ms after a redraw (11 of 20
/// reads 0.37 s apart, the others `Running`). Once it is silent for longer than its pace, it
/// is quiet.
#[test]
fn a_progress_bar_redrawn_on_a_timer_reads_as_running_between_its_redraws() {
    if !require("bash") || !require("sleep") {
        return;
    }
    let engine = engine();
    let script = "for i in 1 2 3 4 5 6; do printf '\\r%3d%%' $((i * 10)); sleep 1; done; \
                  printf ' done'; exec sleep 60";
    let bar = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
    for percent in [30, 40, 50] {
        expect(&bar, Until::screen_contains(format!("{percent:3}%")));
        // (Later in the second than the quiet window.)
        expect(&bar, Until::quiet(Duration::from_millis(700)));
        let status = bar.status().unwrap();
        assert_eq!(status.activity, Activity::Running, "at {percent}%: {status:?}");
    }
    expect(&bar, Until::screen_contains("done"));
    expect(&bar, Until::quiet(Duration::from_secs(2)));
    assert_eq!(bar.status().unwrap().activity, Activity::Quiet);
    bar.close().unwrap();
}

/// A download's meter redrawn at a steady pace while the program polls its socket, as curl's is
/// (`curl -o FILE URL`: a `poll` of the socket alone with a timeout of a second, the meter
/// rewritten with `\r` about once a second, up to 1.45 s apart under `--limit-rate`), is a
/// program running, not one waiting on the world outside: the default wait settled it in a
/// pause between two redraws longer than its 1.25 s of silence (curl at 38% after 3.84 s of
/// a 5.2 s download). This script writes curl's meter bytes, its redraws 1.1, 1.1, 1.5, then
/// 2 s apart, and the wait returns its last line, at the program's exit.
#[test]
fn a_download_meter_redrawn_at_a_pace_while_polling_its_socket_is_waited_for() {
    download_meter_waited_for("[(10, 1.1), (20, 1.1), (30, 1.5), (45, 2.0), (60, 2.0)]", 60);
}

/// A download's meter is followed from its first redraw, before two pauses between redraws
/// show a pace: curl's first gaps, up to 1.45 s, were longer than the default wait's 1.25 s of
/// silence, and it returned in 2 of 3 runs at about 2.05 s of a 5 s download with the meter
/// redrawn once. This script's first two redraws are 1.7 s apart: without the meter's rule
/// the wait returned at its first state, ` 0     0`.
#[test]
fn a_download_meter_is_waited_for_from_its_first_redraw() {
    download_meter_waited_for("[(10, 1.7), (25, 1.7)]", 25);
}

/// Runs a python3 script that polls a socket with a timeout of a second, as curl does, and
/// writes curl's meter bytes, redrawn after each of `redraws`' gaps (a python list of
/// `(percent, seconds)`, the last at `last` percent), and checks that MCP's default wait
/// returns the meter's final line alone, at the program's exit.
fn download_meter_waited_for(redraws: &str, last: u32) {
    let meter = format!(
        "p = select.poll()\np.register(s, select.POLLIN)\n\
         out = sys.stderr\n\
         out.write('  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\\r\\n'\n\
         '                                 Dload  Upload   Total   Spent    Left  Speed\\r\\n'\n\
         '\\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0')\n\
         out.flush()\n\
         for pct, gap in {redraws}:\n    \
             end = time.monotonic() + gap\n    \
             while (left := end - time.monotonic()) > 0:\n        \
                 p.poll(int(min(left, 1.0) * 1000) + 1)\n    \
             out.write(f'\\r {{pct:2d}} 7812k   {{pct:2d}}  {{pct * 78:4d}}k    0     0  1013k      0  0:00:07  0:00:03  0:00:04 1013k')\n    \
             out.flush()\n\
         out.write('\\r100 7812k  100 7812k    0     0  1516k      0  0:00:05  0:00:05 --:--:-- 1711k\\n')\n"
    );
    let Some(started) = started_connected_python(&meter) else {
        return;
    };
    assert!(started.contains("100 7812k  100 7812k"), "{started}");
    assert!(started.contains("exited"), "{started}");
    let state = format!(" {last:2} 7812k");
    assert!(!started.contains(&state), "the meter's last state alone: {started}");
}

/// Lines printed at a pace settle the default wait once quiet, as they did before a pace held
/// it: a server's retries backing off by less than half again each time (a thread's lines
/// 1, 1, 1.4, 2 and 2.9 s apart while the main thread waits on its socket) held the wait to
/// its end ("still busy after 10.0 s"; review uv), where it settles at the first silence
/// longer than the wait's. Only a row redrawn in place (a meter) holds it.
#[test]
fn lines_printed_at_a_pace_settle_the_default_wait_once_quiet() {
    let body = "import threading\n\
         def beat():\n    \
             print('start', flush=True)\n    \
             for gap in (1, 1, 1.4, 2, 2.9):\n        \
                 time.sleep(gap)\n        \
                 print(f'retry after {gap}', flush=True)\n\
         threading.Thread(target=beat, daemon=True).start()\n\
         s.recv(1)\n";
    let Some(started) = started_connected_python(body) else {
        return;
    };
    assert!(started.contains("retry after 1"), "{started}");
    assert!(started.contains("settled after"), "{started}");
    assert!(!started.contains("still busy"), "{started}");
}

/// The text of MCP's `terminal_start` (its default wait) of a python3 script running `body`
/// as [`connected_python`] does; `None` without python3.
fn started_connected_python(body: &str) -> Option<String> {
    let (_listener, script) = connected_python(body)?;
    let toolbox = termloom::tools::Toolbox::new(engine());
    let args = serde_json::json!({ "argv": ["python3", "-c", script] });
    Some(toolbox.call("terminal_start", &args).text)
}

/// A python3 script that runs `body` connected, as `s`, to a listener of the test's on the
/// loopback (kept open while the test holds it), with `select`, `socket`, `sys` and `time`
/// imported; `None` without python3.
fn connected_python(body: &str) -> Option<(std::net::TcpListener, String)> {
    if !require("python3") {
        return None;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "import select, socket, sys, time\ns = socket.create_connection(('127.0.0.1', {port}))\n{body}"
    );
    Some((listener, script))
}

/// A program that ends a thread in answer to a key and draws nothing before it exits is still
/// answering the key: btop's `q` stops its runner thread, then btop restores the terminal and
/// exits about 100 ms later, while its input thread is back in `read` and its main thread in
/// short sleeps, as when it idles. A wait for input after the `q` ended after 75 ms on
/// `btop waiting for keys`, the screen unchanged, btop exiting 34 ms later.
#[test]
fn a_program_ending_a_thread_in_answer_to_a_key_is_waited_for() {
    if !require("btop") {
        return;
    }
    let engine = engine();
    let btop = engine.spawn(SpawnSpec::new("btop")).unwrap();
    assert_eq!(input_wait_fires(&btop), Some(InputKind::Keys));
    btop.send_text("q").unwrap();
    let outcome = expect(&btop, Until::any(vec![Until::input_wait(), Until::exit()]));
    assert!(matches!(outcome.status.activity, Activity::Exited(_)), "{outcome}");
}

/// A raw-mode python3 with a worker thread it ends at the first key it reads (and draws
/// nothing), reading keys until `q`, once it waits for keys.
fn ending_a_worker_at_the_first_key(engine: &termloom::Engine) -> Session {
    let script = "import os, threading, tty\n\
        tty.setraw(0)\n\
        stop = threading.Event()\n\
        worker = threading.Thread(target=stop.wait)\n\
        worker.start()\n\
        while os.read(0, 1) != b'q':\n    \
            if not stop.is_set():\n        \
                stop.set()\n        \
                worker.join()\n";
    let program = engine.spawn(SpawnSpec::new("python3").arg("-c").arg(script)).unwrap();
    assert_eq!(input_wait_fires(&program), Some(InputKind::Keys));
    program
}

/// Keys typed in two writes with nothing drawn between (`:q`, then its Enter) are one typing:
/// the threads counted before the first count for the second too, and a program that ended a
/// thread for them is still answering them.
#[test]
fn keys_written_twice_keep_the_threads_counted_before_the_first() {
    let engine = engine();
    let program = ending_a_worker_at_the_first_key(&engine);
    program.send_text("e").unwrap();
    program.send_bytes(b"\r").unwrap();
    let outcome = program.wait(Until::input_wait(), Duration::from_millis(400)).unwrap();
    assert!(outcome.is_timeout(), "{outcome}");
    program.send_text("q").unwrap();
    expect(&program, Until::exit());
}

/// The threads a program had before a key count only for the key written right after the
/// sighting that counted them: a key that ended a worker thread (and drew nothing) is taken
/// for still being answered, but the next key, which ends none, finds the program waiting.
/// (A count kept from a sighting made before the last input called every later key that drew
/// nothing still answered: its wait ran to the quiet fallback or its timeout.)
#[test]
fn a_key_after_one_that_ended_a_thread_finds_the_program_waiting() {
    let engine = engine();
    let program = ending_a_worker_at_the_first_key(&engine);
    program.send_text("e").unwrap();
    // It ended its worker for the key and drew nothing: still answering it, for a while.
    let outcome = program.wait(Until::input_wait(), Duration::from_millis(400)).unwrap();
    assert!(outcome.is_timeout(), "{outcome}");
    for key in ["x", "y"] {
        program.send_text(key).unwrap();
        assert_eq!(input_wait_fires(&program), Some(InputKind::Keys), "after {key}");
    }
    program.send_text("q").unwrap();
    expect(&program, Until::exit());
}

/// mc started in a directory of its own (`termloom-NAME-PID`), bash its subshell, once it
/// waits for keys, named as the program that reads them: its engine, mc and the directory.
fn mc_in_a_directory(name: &str) -> (termloom::Engine, Session, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("termloom-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let engine = engine();
    let mc = engine
        .spawn(
            SpawnSpec::new("mc").cwd(&dir).env("SHELL", "/bin/bash").env("HISTFILE", "/dev/null"),
        )
        .unwrap();
    assert_eq!(input_wait_fires(&mc), Some(InputKind::Keys));
    assert_eq!(mc.status().unwrap().foreground.map(|p| p.name).as_deref(), Some("mc"));
    (engine, mc, dir)
}

/// Waits until mc, back from a command typed at its command line, reads keys again, then shows
/// the subshell's screen (`C-o`), where the command's output stays until the next `C-o`, and
/// waits for `text` there. The output is on the screen only from the command's end until mc
/// takes its panels back: a loaded machine hands both over in one read, and a wait for it
/// there timed out.
fn expect_in_mcs_subshell_screen(mc: &Session, text: &str) {
    assert_eq!(input_wait_fires(mc), Some(InputKind::Keys));
    assert_eq!(mc.status().unwrap().foreground.map(|p| p.name).as_deref(), Some("mc"));
    mc.send_keys("<C-o>").unwrap();
    expect(mc, Until::screen_contains(text));
}

/// A program that runs a shell on a terminal of its own and drives it through pipes of their
/// own (mc's subshell, which reports its directory to mc so) is no relay: mc reads the keys and
/// draws its panels, the subshell only runs the commands typed at mc's command line. mc was
/// taken for a relay hosting bash, as `script` is, and the status read `bash waiting for keys`.
#[test]
fn a_program_driving_a_shell_it_hosts_is_the_one_that_reads() {
    if !require("mc") || !require("bash") {
        return;
    }
    // The subshell runs (mc shows its prompt on its command line): mc hosts it.
    let (_engine, mc, dir) = mc_in_a_directory("mc");
    let named = || mc.status().unwrap().foreground.map(|p| p.name);
    // A command typed at mc's command line runs in the subshell, and mc shows what it did.
    mc.send_text("mkdir made-by-subshell").unwrap();
    mc.send_keys("<Enter>").unwrap();
    expect(&mc, Until::screen_contains("/made-by-subshell"));
    assert_eq!(input_wait_fires(&mc), Some(InputKind::Keys));
    assert_eq!(named().as_deref(), Some("mc"));
    mc.close().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program run from mc's command line runs in mc's subshell, on the subshell's terminal,
/// which mc shows while it runs: what it asks is read from that terminal, by that program.
/// It inherits the pipes mc and its subshell share, and a password prompt so run read as `mc
/// waiting for keys` (a secret was refused: `NotAtPasswordPrompt`).
#[test]
fn a_password_prompt_run_from_mcs_command_line_is_read_by_the_program_that_asks() {
    if !require("mc") || !require("bash") || !require("python3") {
        return;
    }
    let (_engine, mc, dir) = mc_in_a_directory("mc-pw");
    let named = || mc.status().unwrap().foreground.map(|p| p.name);
    mc.send_text(
        "python3 -c 'import getpass; print(\"length\", len(getpass.getpass(\"Secret: \")))'",
    )
    .unwrap();
    mc.send_keys("<Enter>").unwrap();
    expect(&mc, Until::screen_contains("Secret:"));
    assert_eq!(input_wait_fires(&mc), Some(InputKind::Password));
    assert_eq!(named().as_deref(), Some("python3"));
    mc.send_secret("hunter2").unwrap();
    expect_in_mcs_subshell_screen(&mc, "length 7");
    assert!(!mc.screen().unwrap().contains("hunter2"));
    mc.close().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A password asked for by mc's subshell itself (bash's `read -s`, typed at mc's command line)
/// is read by the subshell, on its terminal. The subshell leads its session and shares mc's
/// pipes, as it does at its own prompt, where mc reads the keys: both read as `mc waiting for
/// keys` (a secret was refused), told apart now by the terminal's modes, canonical with echo
/// off. A subshell's own prompt is mc's, whether its line editor takes keys (bash's readline)
/// or it reads lines with echo (dash's: taken for a line the subshell read, by a first version).
#[test]
fn a_password_asked_by_mcs_subshell_itself_is_read_by_the_subshell() {
    if !require("mc") || !require("bash") || !require("dash") {
        return;
    }
    let (_engine, mc, dir) = mc_in_a_directory("mc-read");
    let named = || mc.status().unwrap().foreground.map(|p| p.name);
    mc.send_text("read -s x; echo length ${#x}").unwrap();
    mc.send_keys("<Enter>").unwrap();
    assert_eq!(input_wait_fires(&mc), Some(InputKind::Password));
    assert_eq!(named().as_deref(), Some("bash"));
    mc.send_secret("hunter2").unwrap();
    expect_in_mcs_subshell_screen(&mc, "length 7");
    assert!(!mc.screen().unwrap().contains("hunter2"));
    mc.close().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let engine = engine();
    let spec = SpawnSpec::new("mc").cwd(std::env::temp_dir()).env("SHELL", "/bin/dash");
    let mc = engine.spawn(spec).unwrap();
    assert_eq!(input_wait_fires(&mc), Some(InputKind::Keys));
    assert_eq!(mc.status().unwrap().foreground.map(|p| p.name).as_deref(), Some("mc"));
    mc.close().unwrap();
}

/// A command run in a POSIX session of its own, with no controlling terminal (`su USER -c
/// CMD` does so, as `setsid -w` does), reads the session's terminal through the descriptors
/// it inherited, while its parent, the terminal's foreground group, only waits for it: it
/// waits for input when that command does. It read as running, so every call took its whole
/// default wait (10 s) and said the program was still busy.
#[test]
fn a_command_in_a_session_of_its_own_waits_for_input_on_the_terminal() {
    if !require("setsid") || !require(&shell_program()) {
        return;
    }
    let engine = engine();
    let command =
        "sleep 3; printf 'name? '; read -r x; echo hi-$x; sleep 3; read -r y; echo bye-$y";
    let s = engine.spawn(SpawnSpec::new("setsid").args(["-w", "sh", "-c", command])).unwrap();
    input_wait_does_not_fire(&s);
    let started = Instant::now();
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    assert!(s.screen().unwrap().contains("name?"));
    assert_eq!(s.status().unwrap().foreground.map(|p| p.name).as_deref(), Some("sh"));
    s.submit("bob").unwrap();
    expect(&s, Until::text("hi-bob"));
    // The line typed was read (by a process outside the terminal's foreground group): the
    // next read is a wait for input again, once the sleep is over.
    input_wait_does_not_fire(&s);
    assert_eq!(input_wait_fires(&s), Some(InputKind::Line));
    assert!(started.elapsed() < Duration::from_secs(12), "{:?}", started.elapsed());
    s.submit("ann").unwrap();
    expect(&s, Until::text("bye-ann"));
    expect(&s, Until::exit());
}

/// A key asked for with a timeout below a line the program printed (`echo 'Press a key'; read
/// -rsn1 -t 8`: bash polls the terminal with the 8 s left, taking keys, its cursor at the start
/// of the blank row below the line) waits for input at once. Only a cursor on the line after
/// one submitted to the program is a REPL working on that line (see
/// `a_repl_awaiting_a_timer_is_waited_for_until_its_prompt`): taken for one, the key prompt
/// was never read as waiting, and a wait for input ran until the read timed out.
#[test]
fn a_key_asked_for_with_a_timeout_below_a_printed_line_waits_for_input() {
    let engine = engine();
    let script = "echo 'Press a key'; read -rsn1 -t 8 k; echo \"got $k\"; read -r line";
    let session = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
    let started = Instant::now();
    assert_eq!(input_wait_fires(&session), Some(InputKind::Keys));
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    assert!(!session.screen().unwrap().contains("got"), "{}", session.screen().unwrap());
    // Typed at the shell's prompt, the same: the line after the submitted one is the script's.
    session.close().unwrap();
    let session = bash(&engine);
    session.submit(&format!("bash -c {}", shell_quote(script))).unwrap();
    let started = Instant::now();
    expect(&session, Until::screen_contains("Press a key"));
    assert_eq!(input_wait_fires(&session), Some(InputKind::Keys));
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    session.send_text("y").unwrap();
    expect(&session, Until::text("got y"));
    session.close().unwrap();
}

/// A key or a line asked for with a timeout, typed at a shell's prompt with no prompt text
/// of its own (`read -n1 -t 30`: bash polls descriptor 0 alone with `pselect6`, taking keys,
/// its cursor at the start of the blank row below the submitted line), waits for input at once,
/// and so does a program polling the terminal alone with a timeout (Python's `select`), with
/// echo or without: only a key or the deadline can wake such a wait, where an event loop
/// working on a timer (node's REPL awaiting one) waits on descriptors of its own too. Taken
/// for a REPL's work on a timer, the first read as busy until the read timed out (or the
/// default wait's 10 s cap). With prompt text (`read -p 'Continue? '`), or whole lines (`read
/// -t 30 line`, the terminal in canonical mode), it waited for input at once already.
#[test]
fn a_key_or_line_asked_for_with_a_timeout_at_a_shell_prompt_waits_for_input_at_once() {
    if !require("bash") {
        return;
    }
    let engine = engine();
    // (Each answer, `KEY-N` with N a number of its own, is not in the line typed: its echo is
    // no answer.)
    let answer = |n: u32| format!("echo \"$k-$(({n} + 1))\"");
    let mut asks = vec![
        (format!("read -n1 -t 30 k; {}", answer(100)), "y", InputKind::Keys, 101),
        (format!("read -rsn1 -t 30 k; {}", answer(200)), "y", InputKind::Keys, 201),
        (format!("read -p 'Continue? ' -n1 -t 30 k; {}", answer(300)), "y", InputKind::Keys, 301),
        (format!("read -t 30 k; {}", answer(400)), "yes\r", InputKind::Line, 401),
    ];
    if require("python3") {
        let select = "import select, sys, tty; tty.setcbreak(0); \
            k = sys.stdin.read(1) if select.select([0], [], [], 30)[0] else ''; \
            print(k + '-' + str(500 + 1))";
        asks.push((format!("python3 -c {}", shell_quote(select)), "y", InputKind::Keys, 501));
    }
    let session = bash(&engine);
    for (line, key, kind, n) in asks {
        session.submit(&line).unwrap();
        // Read as busy, the wait runs until the read times out (past this wait's own timeout)
        // and the answer is printed with no key.
        let outcome = session.wait(Until::input_wait(), Duration::from_secs(60)).unwrap();
        assert!(outcome.matched().is_some(), "{line}: {outcome}");
        assert_eq!(outcome.status.activity, Activity::WaitingForInput, "{line}: {outcome}");
        assert_eq!(outcome.status.input_kind, Some(kind), "{line}: {outcome}");
        let screen = session.screen().unwrap();
        assert!(
            !screen.contains(&format!("-{n}")),
            "{line}: read as waiting once timed out: {screen}"
        );
        session.send_text(key).unwrap();
        let typed = key.trim_end_matches('\r');
        expect(&session, Until::screen_contains(format!("{typed}-{n}")));
        expect(&session, Until::input_wait());
    }
    session.close().unwrap();
}

/// `text` quoted for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A relay to a terminal across the network (`ssh`; here a stand-in whose remote shell runs in
/// a session of its own over a TCP connection) reads every key at once, whatever the far end
/// does: it waits for keys only once the far end answered the last input. A command the remote
/// runs (`slow`: a line, 0.4 s of silence, then `done`) is waited for to its prompt (a plain
/// one, or one with a right-hand part, which leaves the cursor mid-row), a line asked for with no prompt (`cat`) is no wait for
/// input termloom can see, and a full-screen program there waits for keys once it redrew after
/// the last key. All read as waiting for keys as soon as the typed line's echo arrived, or at
/// once. The same relay over a socketpair, an event loop's own (IPython's, beside the
/// terminal), is a program on this machine: its wait with no prompt shown is a wait for input.
#[test]
fn a_relay_across_the_network_waits_for_keys_only_once_the_far_end_answered() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let relay = engine.spawn(SpawnSpec::new("python3").args(["-c", NETWORK_RELAY])).unwrap();
    expect(&relay, Until::screen_contains("remote$"));
    assert_eq!(input_wait_fires(&relay), Some(InputKind::Keys));
    for prompt in ["plain", "right"] {
        relay.send_text("slow\r").unwrap();
        input_wait_fires(&relay);
        let screen = relay.screen().unwrap();
        assert!(screen.contains("done"), "{prompt}: read as waiting before the answer: {screen}");
        relay.send_text("right\r").unwrap();
        input_wait_fires(&relay);
        let screen = relay.screen().unwrap();
        let prompt = &screen.lines[usize::from(screen.cursor.row)];
        assert!(prompt.starts_with("remote$") && prompt.ends_with("[right]"), "{screen}");
    }
    relay.send_text("cat\r").unwrap();
    expect(&relay, Until::text("cat"));
    input_wait_does_not_fire(&relay);
    relay.send_text("typed\r").unwrap();
    expect(&relay, Until::text("cat: typed"));
    input_wait_fires(&relay);
    // On the alternate screen, once the far end drew since the last key.
    relay.send_text("full\r").unwrap();
    input_wait_fires(&relay);
    assert!(relay.screen().unwrap().contains("full screen"));
    for key in ["a", "b"] {
        relay.send_text(key).unwrap();
        input_wait_fires(&relay);
        let screen = relay.screen().unwrap();
        assert!(screen.contains(&format!("key {key}")), "read as waiting before: {screen}");
    }
    relay.close().unwrap();

    let local =
        engine.spawn(SpawnSpec::new("python3").args(["-c", NETWORK_RELAY, "local"])).unwrap();
    assert_eq!(input_wait_fires(&local), Some(InputKind::Keys));
    local.send_text("cat\r").unwrap();
    expect(&local, Until::text("cat"));
    input_wait_fires(&local);
    local.close().unwrap();
}

/// A program that waits for keys polling the terminal beside Internet sockets of its own waits
/// for keys after each key or line it answers with a line (its cursor below it), whatever the
/// sockets: a server's listening socket and a socket it sends from (unconnected); a connected
/// one beside a pipe of its own (an event loop's); or, with its cursor hidden (a TUI drawing
/// on the primary screen), a connected one alone. Only a wait on terminals and Internet
/// sockets alone, one connected, its answer not drawn, is a relay's to a far end. And node's
/// REPL awaiting a timer with a connection open is waited for until its answer.
#[test]
fn a_program_polling_its_own_sockets_beside_the_terminal_waits_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let sockets = [
        ("unconnected", "[listener, udp]", ""),
        ("connected, beside a pipe", "[client, wake]", ""),
        ("connected, cursor hidden", "[client]", "\\x1b[?25l"),
    ];
    for (what, polled, before) in sockets {
        let script = format!(
            "import os, select, socket, sys, tty\n\
             tty.setcbreak(0)\n\
             listener = socket.create_server(('127.0.0.1', 0))\n\
             udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
             client = socket.create_connection(listener.getsockname())\n\
             server_end = listener.accept()[0]\n\
             wake, _ = os.pipe()\n\
             print('{before}press keys', flush=True)\n\
             while True:\n\
             \x20   ready = select.select([0] + {polled}, [], [])[0]\n\
             \x20   if 0 in ready: print('key', repr(os.read(0, 1).decode()), flush=True)\n"
        );
        let program = engine.spawn(SpawnSpec::new("python3").args(["-c", &script])).unwrap();
        expect(&program, Until::text("press keys"));
        assert_eq!(input_wait_fires(&program), Some(InputKind::Keys), "{what}");
        for (key, answer) in [("x", "key 'x'"), ("\r", "key '\\n'")] {
            program.send_text(key).unwrap();
            expect(&program, Until::text(answer));
            assert_eq!(input_wait_fires(&program), Some(InputKind::Keys), "{what}: {key:?}");
        }
        program.close().unwrap();
    }
    if require("node") {
        let node = node_repl(&engine);
        let connect = "const net = require('net'); const srv = net.createServer().listen(0); \
                       await new Promise(r => srv.on('listening', r)); \
                       const conn = net.connect(srv.address().port); 'connected'";
        node.send_text(&format!("{connect}\r")).unwrap();
        expect(&node, Until::text("'connected'"));
        input_wait_fires(&node);
        node.send_text("await new Promise(r => setTimeout(r, 2000)); ['ANS', 'WER'].join('')\r")
            .unwrap();
        input_wait_fires(&node);
        let screen = node.screen().unwrap();
        assert!(screen.contains("'ANSWER'"), "read as waiting before its answer: {screen}");
        node.close().unwrap();
    }
}

/// Local programs shaped like a relay are judged as before the rules for `ssh` through a
/// proxy and for its start: a program polling the terminal and the pipes to a child that
/// holds a connection (blocked reading its input) waits for keys, one whose child polls its
/// connection (a download feeding it) is busy, a client that connected and speaks first (`nc`,
/// `telnet host 80`) waits for keys at its start, and a program in raw mode that ignores Enter
/// and keys waits for keys after each. The first and the last read as busy to the wait's end
/// when those rules were not kept to `ssh` (and to a line typed below another one).
#[test]
fn local_programs_shaped_like_relays_are_judged_as_before() {
    if !require("python3") {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let engine = engine();
    for (child_waits, parent_prints, waits_for_keys) in [
        ("sys.stdin.buffer.read(1)", "print('ready')", true),
        ("select.select([s, sys.stdin], [], [])", "print('> ', end='')", false),
    ] {
        let child = format!(
            "import select, socket, sys\n\
             s = socket.create_connection(('127.0.0.1', {port}))\n\
             print('up', flush=True)\n\
             {child_waits}"
        );
        let parent = format!(
            "import select, subprocess, sys\n\
             c = subprocess.Popen([sys.executable, '-c', {child:?}], stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n\
             c.stdout.readline()\n\
             {parent_prints}\n\
             sys.stdout.flush()\n\
             select.select([sys.stdin, c.stdout], [], [])"
        );
        let program = engine.spawn(SpawnSpec::new("python3").args(["-c", &parent])).unwrap();
        expect(&program, Until::screen_regex("ready|>").unwrap());
        match waits_for_keys {
            true => assert!(input_wait_fires(&program).is_some()),
            false => input_wait_does_not_fire(&program),
        }
        program.close().unwrap();
    }
    let client = format!(
        "import select, socket, sys\n\
         s = socket.create_connection(('127.0.0.1', {port}))\n\
         print('connected', flush=True)\n\
         select.select([sys.stdin, s], [], [])"
    );
    let client = engine.spawn(SpawnSpec::new("python3").args(["-c", &client])).unwrap();
    expect(&client, Until::text("connected"));
    input_wait_fires(&client);
    client.close().unwrap();
    if require("node") {
        let js = "console.log('Press q to quit:'); process.stdin.setRawMode(true); \
                  process.stdin.resume(); setTimeout(() => {}, 60000); \
                  process.stdin.on('data', d => { if (d.toString() === 'q') process.exit(0); });";
        let node = engine.spawn(SpawnSpec::new("node").args(["-e", js])).unwrap();
        expect(&node, Until::text("Press q"));
        assert_eq!(input_wait_fires(&node), Some(InputKind::Keys));
        for ignored in ["\r", "x"] {
            node.send_text(ignored).unwrap();
            assert_eq!(input_wait_fires(&node), Some(InputKind::Keys), "after {ignored:?}");
        }
        node.close().unwrap();
    }
    drop(listener);
}

/// An `sshd` of the test's own on the loopback, in the foreground, killed when dropped; it
/// lets in one key, made for it, for the user running the test.
struct Sshd {
    child: std::process::Child,
    port: u16,
    dir: TestDir,
}

impl Sshd {
    /// Starts it on a free port (tried up to three times: the port is found free, then taken).
    fn start() -> Sshd {
        Sshd::start_with("", "")
    }

    /// [`Sshd::start`] with a client key locked by `passphrase` (`""`: none), and `config`
    /// (where `{dir}` is the test's directory) put first in the server's configuration, whose
    /// first value of a keyword is the one it takes.
    fn start_with(passphrase: &str, config: &str) -> Sshd {
        let dir = TestDir::new("sshd");
        for (key, passphrase) in [("host_key", ""), ("client_key", passphrase)] {
            let made = std::process::Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", passphrase, "-f"])
                .arg(dir.join(key))
                .status()
                .unwrap();
            assert!(made.success(), "ssh-keygen");
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
        let added = config.replace("{dir}", &dir.display().to_string());
        // (Its privilege separation directory, which Debian's package makes at boot.)
        let _ = std::fs::create_dir_all("/run/sshd");
        for _ in 0..3 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|free| free.local_addr())
                .unwrap()
                .port();
            let d = dir.display();
            let config = format!(
                "{added}Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\n\
                 AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\nStrictModes no\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
                 PermitRootLogin prohibit-password\n"
            );
            std::fs::write(dir.join("sshd_config"), config).unwrap();
            let mut child = std::process::Command::new(sshd_path())
                .args(["-D", "-e", "-f"])
                .arg(dir.join("sshd_config"))
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            // It says when it listens, on its log (standard error with `-e`), or ends.
            let log = std::io::BufReader::new(child.stderr.take().unwrap());
            let (said, listening) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                use std::io::BufRead;
                let mut lines = log.lines().map_while(Result::ok);
                let _ = said.send(lines.any(|line| line.contains("listening on")));
                // (Read to its end, so that it never logs to a closed pipe.)
                lines.for_each(drop);
            });
            if listening.recv_timeout(LONG) == Ok(true) {
                return Sshd { child, port, dir };
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("sshd did not start");
    }

    /// `ssh` to it with a terminal, running `remote` there.
    fn ssh(&self, remote: &str) -> SpawnSpec {
        SpawnSpec::new("ssh").args(self.options()).args(["-tt", "127.0.0.1", remote])
    }

    /// [`Sshd::ssh`] through a `ProxyCommand` that is `ssh -W` to it (what `ProxyJump` runs).
    fn ssh_proxied(&self, remote: &str) -> SpawnSpec {
        let proxy = format!("ProxyCommand=ssh {} -W %h:%p 127.0.0.1", self.options().join(" "));
        SpawnSpec::new("ssh").args(self.options()).args(["-o", &proxy, "-tt", "127.0.0.1", remote])
    }

    /// [`Sshd::ssh`] through two jump hosts, itself twice (`ssh -J hop,hop hop`): a proxy
    /// (`ssh -J hop -W`) whose own proxy (`ssh -W`) holds the connection.
    fn ssh_through_jumps(&self, remote: &str) -> SpawnSpec {
        let config = self.dir.join("ssh_config");
        let key = self.dir.join("client_key");
        let host = format!(
            "Host hop\n HostName 127.0.0.1\n Port {}\n IdentityFile {}\n \
             StrictHostKeyChecking no\n UserKnownHostsFile /dev/null\n LogLevel ERROR\n \
             ServerAliveInterval 30\n",
            self.port,
            key.display()
        );
        std::fs::write(&config, host).unwrap();
        let config = config.to_str().unwrap().to_owned();
        SpawnSpec::new("ssh").args(["-F", &config, "-tt", "-J", "hop,hop", "hop", remote])
    }

    /// The options of an `ssh` to it: no configuration, its key, no known hosts, a keepalive.
    fn options(&self) -> Vec<String> {
        let key = self.dir.join("client_key");
        let options = [
            "-F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
            "-o LogLevel=ERROR -o ServerAliveInterval=30 -i",
        ];
        let words = options.iter().flat_map(|o| o.split(' ')).map(str::to_string);
        words
            .chain([key.to_str().unwrap().to_string(), "-p".into(), self.port.to_string()])
            .collect()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ssh` waiting on its connection alone for the far end's verdict on a passphrase (a key
/// checked slowly there, as a wrong password is refused only after a delay) is busy: the
/// default wait goes on to the remote prompt. It settled after 1.25 s of quiet, `running,
/// quiet`, with no answer, and what was typed next (the password again, a command) was
/// echoed in the clear, then thrown away by the prompt that came. A tunnel (`ssh -N`), which
/// prints nothing once in, still settles once quiet.
#[test]
fn the_default_wait_waits_for_the_far_end_of_ssh_to_answer() {
    if !sshd_usable() {
        return;
    }
    let slow = "AuthorizedKeysFile none\nAuthorizedKeysCommandUser root\n\
                AuthorizedKeysCommand /bin/sh -c \"sleep 2; cat {dir}/authorized_keys\"\n";
    let sshd = Sshd::start_with("phrase", slow);
    let toolbox = termloom::tools::Toolbox::new(engine());
    let remote = "PS1='remote$ ' exec bash --norc --noprofile -i";
    let mut argv = vec!["ssh".to_string()];
    argv.extend(sshd.options());
    argv.extend(["-tt".into(), "127.0.0.1".into(), remote.into()]);
    let start = serde_json::json!({ "argv": argv, "input_wait": true });
    let started = toolbox.call("terminal_start", &start);
    let said = &started.text;
    assert!(said.contains("waiting for a password") && said.contains("passphrase"), "{said}");
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    let sent = toolbox.call(
        "terminal_send",
        &serde_json::json!({"session_id": id, "text": "phrase", "submit": true}),
    );
    let said = &sent.text;
    assert!(said.contains("waiting for keys") && said.contains("remote$"), "{said}");
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
    let fast = Sshd::start();
    let mut argv = vec!["ssh".to_string(), "-N".into()];
    argv.extend(fast.options());
    argv.push("127.0.0.1".into());
    let began = Instant::now();
    let tunnel = toolbox.call("terminal_start", &serde_json::json!({ "argv": argv }));
    let said = &tunnel.text;
    assert!(said.contains("running, quiet · settled"), "{said}");
    assert!(began.elapsed() < Duration::from_secs(8), "{:?}: {said}", began.elapsed());
    let id = tunnel.structured.as_ref().unwrap()["session_id"].clone();
    toolbox.call("terminal_close", &serde_json::json!({ "session_id": id }));
}

/// A program behind `ssh` that hides the cursor before it draws (`top`, computing its first
/// frame) has not answered the line that started it: the relay is followed until it draws.
/// It was read as waiting for keys as soon as the line's echo and the hidden cursor came, and
/// what was typed next went to the far end's type-ahead.
#[test]
fn a_program_behind_ssh_that_hides_the_cursor_is_waited_for_until_it_draws() {
    if !sshd_usable() {
        return;
    }
    let sshd = Sshd::start();
    let engine = engine();
    // Without the keepalive, as by default: `ssh` then polls with no timer (with one, the
    // blank row under the line read as no prompt shown, and the timer kept it busy anyway).
    let mut options = sshd.options();
    let keepalive = options.iter().position(|o| o.starts_with("ServerAliveInterval")).unwrap();
    options.drain(keepalive - 1..=keepalive);
    let remote = "PS1='remote$ ' exec bash --norc --noprofile -i";
    let spec = SpawnSpec::new("ssh").args(options).args(["-tt", "127.0.0.1", remote]);
    let ssh = engine.spawn(spec).unwrap();
    assert_eq!(input_wait_fires(&ssh), Some(InputKind::Keys));
    ssh.send_text("printf '\\033[?25l'; sleep 1; echo drawn; read -rsn1 k\r").unwrap();
    input_wait_fires(&ssh);
    let screen = ssh.screen().unwrap();
    assert!(screen.lines.iter().any(|line| line == "drawn"), "read as waiting: {screen}");
    ssh.close().unwrap();
}

/// Whether the tests can run their own `sshd` and reach it with `ssh` (said so when not).
fn sshd_usable() -> bool {
    require("ssh")
        && require("ssh-keygen")
        && require(&sshd_path().to_string_lossy())
        && require_root("sshd lets a user in only when it runs as root")
}

/// Where `sshd` is (it must be started by its absolute path).
fn sshd_path() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).chain(["/usr/sbin".into(), "/sbin".into()]);
    dirs.map(|dir| dir.join("sshd")).find(|sshd| sshd.is_file()).unwrap_or("sshd".into())
}

/// A shell reached through `ssh` (to an `sshd` on the loopback, with a keepalive), directly,
/// through a `ProxyCommand` (`ssh -W`, as `ProxyJump` runs it, which carries the connection
/// over pipes) and through two jump hosts (a proxy with a proxy of its own): the start is waited for to the remote's prompt, a command that
/// prints, is silent, then prints again is waited for to its next prompt, and a line `cat`
/// reads there, with no prompt, is no wait for input termloom can see; `ssh` reads every key
/// whatever the far end does. Directly, both read as waiting for keys as soon as the typed
/// line's echo arrived (and with the keepalive, `cat` as busy to the default wait's cap);
/// through the proxy, `ssh` never read as waiting for keys (its proxy, polling its socket,
/// kept the group busy).
#[test]
fn a_command_typed_through_ssh_is_waited_for_to_the_remote_prompt() {
    if !sshd_usable() {
        return;
    }
    let sshd = Sshd::start();
    let engine = engine();
    let shell = "PS1='remote$ ' exec bash --norc --noprofile -i";
    let ways = [
        ("directly", sshd.ssh(shell)),
        ("through a proxy", sshd.ssh_proxied(shell)),
        ("through two jump hosts", sshd.ssh_through_jumps(shell)),
    ];
    for (how, spec) in ways {
        let ssh = engine.spawn(spec).unwrap();
        assert_eq!(input_wait_fires(&ssh), Some(InputKind::Keys), "{how}");
        let screen = ssh.screen().unwrap();
        assert!(screen.contains("remote$"), "{how}: read as waiting before the prompt: {screen}");
        ssh.send_text("echo working; sleep 1; echo $((6 * 7))\r").unwrap();
        input_wait_fires(&ssh);
        let screen = ssh.screen().unwrap();
        assert!(screen.lines.iter().any(|line| line == "42"), "{how}: read as waiting: {screen}");
        ssh.send_text("cat\r").unwrap();
        expect(&ssh, Until::text("cat"));
        input_wait_does_not_fire(&ssh);
        ssh.send_text("typed\r").unwrap();
        ssh.send_keys("<C-d>").unwrap();
        assert_eq!(input_wait_fires(&ssh), Some(InputKind::Keys), "{how}");
        let screen = ssh.screen().unwrap();
        assert!(screen.lines.iter().filter(|line| *line == "typed").count() == 2, "{screen}");
        ssh.close().unwrap();
    }
}

/// A far end whose first output draws nothing has not answered `ssh`'s start: bash turns
/// bracketed paste on (`ESC [?2004h`) in a write of its own before its prompt's, which may come
/// a packet later; here a second later. The wait goes on to the prompt. (That output was
/// taken for the far end's answer, and the start read as waiting for keys on a blank screen,
/// `ssh`'s keepalive a long timer: under load the first wait of
/// [`a_command_typed_through_ssh_is_waited_for_to_the_remote_prompt`] fired before the prompt.)
/// A far end that clears the screen and waits for keys with nothing shown waits for keys all
/// the same, a few seconds on (it never did, review wz).
#[test]
fn ssh_whose_far_end_set_a_mode_before_its_prompt_is_waited_for_to_the_prompt() {
    if !sshd_usable() {
        return;
    }
    let sshd = Sshd::start();
    let engine = engine();
    let shell = "printf '\\033[?2004h'; sleep 1; PS1='remote$ ' exec bash --norc --noprofile -i";
    for (how, spec) in [("directly", sshd.ssh(shell)), ("through a proxy", sshd.ssh_proxied(shell))]
    {
        let ssh = engine.spawn(spec).unwrap();
        assert_eq!(input_wait_fires(&ssh), Some(InputKind::Keys), "{how}");
        let screen = ssh.screen().unwrap();
        assert!(screen.contains("remote$"), "{how}: read as waiting before the prompt: {screen}");
        ssh.close().unwrap();
    }
    for blank in ["clear; exec cat", "echo hello; sleep 1; clear; exec cat"] {
        let ssh = engine.spawn(sshd.ssh(blank)).unwrap();
        assert_eq!(input_wait_fires(&ssh), Some(InputKind::Keys), "{blank}");
        ssh.close().unwrap();
    }
    // A full-screen program switches screens first, and may draw its first frame seconds
    // later (review xb: read as waiting on the blank screen 3 s on).
    let late = "printf '\\033[?1049h'; sleep 4; printf 'first frame'; exec cat";
    let ssh = engine.spawn(sshd.ssh(late)).unwrap();
    assert_eq!(input_wait_fires(&ssh), Some(InputKind::Keys));
    let screen = ssh.screen().unwrap();
    assert!(screen.contains("first frame"), "read as waiting before its frame: {screen}");
    ssh.close().unwrap();
}

/// A monitor refreshed more often than twice a second (`htop -d 3`: every 0.3 s, its reads of
/// the terminal timed so) waits for keys between its frames: on the alternate screen such a
/// timer is its refresh, and so it is for one that redraws the primary screen from its top-left
/// (`top -d 0.3`). Each read as busy, and every default wait took its whole 10 s. A spinner on
/// the same timer, redrawing its row, is busy.
#[test]
fn a_full_screen_monitor_refreshed_every_300_ms_waits_for_keys() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    // A frame every 0.3 s, each different, between polls of the terminal timed so.
    let monitor = |start: &str, frame: &str| {
        format!(
            "import os, select, sys, tty\n\
             tty.setcbreak(0)\n\
             w = lambda s: (sys.stdout.write(s), sys.stdout.flush())\n\
             w('{start}')\n\
             keys = select.poll(); keys.register(0, select.POLLIN)\n\
             frame = 0\n\
             while True:\n\
             \x20   frame += 1\n\
             \x20   w(f'{frame}frame {{frame}}, q quits')\n\
             \x20   if keys.poll(300) and os.read(0, 1) == b'q':\n\
             \x20       break\n"
        )
    };
    // (Their cursors hidden, as `top`'s and a spinner's are: a visible one after a row's text
    // is a prompt's.)
    for (how, start, frame, waits) in [
        ("on the alternate screen", "\\x1b[?1049h\\x1b[?25l", "\\x1b[H\\x1b[2J", true),
        ("on the primary screen", "\\x1b[?25l", "\\x1b[H\\x1b[2J", true),
        ("a spinner's row", "\\x1b[?25l", "\\r", false),
    ] {
        let app =
            engine.spawn(SpawnSpec::new("python3").args(["-c", &monitor(start, frame)])).unwrap();
        expect(&app, Until::screen_contains("frame 3"));
        // (Well within the 10 s it took: a wait for input never held while the frames came.)
        let outcome =
            app.wait(Until::input_wait(), Duration::from_secs(if waits { 8 } else { 3 })).unwrap();
        assert_eq!(!outcome.is_timeout(), waits, "{how}: {outcome}");
        app.send_keys("q").unwrap();
        expect(&app, Until::exit());
    }
    if require("top") {
        let top = engine.spawn(SpawnSpec::new("top").args(["-d", "0.3"]).size(100, 30)).unwrap();
        let outcome = top.wait(Until::input_wait(), Duration::from_secs(8)).unwrap();
        assert_eq!(outcome.status.input_kind, Some(InputKind::Keys), "{outcome}");
        assert!(!top.screen().unwrap().alternate, "top keeps to the primary screen");
        top.send_keys("q").unwrap();
        expect(&top, Until::exit());
    }
    if !require("htop") {
        return;
    }
    let htop = engine.spawn(SpawnSpec::new("htop").args(["-d", "3"]).size(100, 30)).unwrap();
    expect(&htop, Until::screen_contains("Quit"));
    assert_eq!(input_wait_fires(&htop), Some(InputKind::Keys));
    htop.send_keys("<F6>").unwrap();
    expect(&htop, Until::screen_contains("Sort by"));
    assert_eq!(input_wait_fires(&htop), Some(InputKind::Keys));
    htop.send_keys("<Esc>").unwrap();
    expect(&htop, Until::screen_matches("the sort menu closed", |s| !s.contains("Sort by")));
    htop.send_keys("q").unwrap();
    expect(&htop, Until::exit());
}
