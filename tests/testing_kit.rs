//! The testing kit itself (`termloom::testing`): the deterministic environment, the temporary
//! `HOME`, waits that fail readably, where snapshots go and how they are redacted.
#![cfg(feature = "testing")]

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::Duration;

use common::require;
use termloom::assert_screen_snapshot;
use termloom::testing::{Redactions, TestSession, snapshot_settings};
use termloom::{Config, Until};

/// Runs `f`, which must panic, and returns its panic message.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("it should panic");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload.downcast_ref::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    }
}

thread_local! {
    /// Where the last panic on this thread happened, recorded by [`panic_location`]'s hook.
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns the file and line the panic names.
fn panic_location(f: impl FnOnce()) -> String {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
            PANICKED_AT.with(|cell| *cell.borrow_mut() = at);
            previous(info);
        }));
    });
    let _ = panic_message(f);
    PANICKED_AT.with(|cell| cell.borrow_mut().take()).expect("a panic location")
}

fn snapshot_file(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(format!("testing_kit__{name}.snap"))
}

/// The variables a program sees, from `env` run in the session.
fn environment(builder: termloom::testing::TestSessionBuilder) -> (String, String) {
    let session = builder.start();
    session.wait_for_success();
    let env = std::fs::read_to_string(session.home().join("env.txt")).unwrap();
    (env, session.home().display().to_string())
}

#[test]
fn the_environment_is_fixed_and_overridable() {
    let env_to_file = ["-c", "env > env.txt; stty size >> env.txt; pwd >> env.txt"];
    let (env, home) = environment(TestSession::builder("sh").args(env_to_file));
    let lines: Vec<&str> = env.lines().collect();
    for expected in [
        format!("HOME={home}"),
        "TERM=xterm-256color".into(),
        "LANG=C.UTF-8".into(),
        "LC_ALL=C.UTF-8".into(),
        "TZ=UTC".into(),
        "LESSHISTFILE=-".into(),
        format!("INPUTRC={home}/.inputrc"),
        format!("XDG_CONFIG_HOME={home}/.config"),
        "24 80".into(),
        home.clone(),
    ] {
        assert!(lines.contains(&expected.as_str()), "{expected} is missing from:\n{env}");
    }
    assert!(home.contains("termloom-home-"), "{home}");
    // cargo sets CARGO_PKG_NAME for the test process; the session does not inherit it.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    assert!(!env.contains("CARGO_PKG_NAME="), "{env}");
    assert!(env.contains("\nPATH=") || env.starts_with("PATH="));

    let (env, _) = environment(
        TestSession::builder("sh")
            .args(env_to_file)
            .env("GREETING", "hello")
            .env_remove("TZ")
            .keep_env("CARGO_PKG_NAME")
            .size(100, 30),
    );
    let lines: Vec<&str> = env.lines().collect();
    assert!(lines.contains(&"GREETING=hello"), "{env}");
    assert!(lines.contains(&"CARGO_PKG_NAME=termloom"), "{env}");
    assert!(lines.contains(&"30 100"), "{env}");
    assert!(!env.contains("TZ="), "{env}");
}

/// `keep_env` of a variable the kit sets gives the program the host's value (or none, where
/// the host has none), not the kit's fixed one; a later `env` sets its own again.
#[test]
fn keeping_a_variable_the_kit_sets_gives_the_hosts_value() {
    let env_to_file = ["-c", "env > env.txt"];
    let (env, home) = environment(
        TestSession::builder("sh")
            .args(env_to_file)
            .env("TZ", "Europe/Paris")
            .keep_env("HOME")
            .keep_env("TZ")
            .keep_env("LANG")
            .keep_env("TERM")
            .keep_env("COLORTERM")
            .env("LANG", "C"),
    );
    let lines: Vec<&str> = env.lines().collect();
    // (`TERM` and `COLORTERM` the engine sets of its own: they were its, not the host's.)
    for name in ["HOME", "TZ", "TERM", "COLORTERM"] {
        let host = std::env::var(name).ok();
        let shown = lines.iter().find_map(|line| line.strip_prefix(&format!("{name}=")));
        assert_eq!(shown, host.as_deref(), "{name} should be the host's:\n{env}");
    }
    assert!(!lines.contains(&format!("HOME={home}").as_str()), "{env}");
    assert!(lines.contains(&"LANG=C"), "a later env sets its own value:\n{env}");
}

/// A kit shell with shell integration runs commands as the library's does, each with its
/// output and exit code, its prompt as the kit sets it; the kit had no way to ask for it, and
/// `run_command` through `Deref` failed, advising `shell_integration(true)`.
#[test]
fn a_kit_shell_with_shell_integration_runs_commands() {
    if !require("bash") {
        return;
    }
    let shell = TestSession::bash().shell_integration(true).start();
    let result = shell.run_command("echo hi; false", Duration::from_secs(20)).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("hi\n", Some(1)), "{result:?}");
    shell.wait_until(Until::prompt());
    let screen = shell.screen();
    assert_eq!(screen.lines[..3], ["$ echo hi; false", "hi", "$"].map(String::from), "{screen}");
    // Without it, no prompt is marked: the command is refused, saying what to do.
    let plain = TestSession::bash().start();
    let err = plain.run_command("echo hi", Duration::from_secs(20)).unwrap_err();
    assert!(err.to_string().contains("shell_integration(true)"), "{err}");
}

/// Only the kit shell itself marks its prompts: `bash --norc` integration put the marks, with
/// the session's key, in exported `PS1`, `PS0` and `PROMPT_COMMAND`, so every command's
/// environment held the key and a nested bash drew valid marks (`run_command("bash --norc")`
/// returned at once, exit code 0, the inner bash still running). The nested shell now reads
/// as the command still running.
#[test]
fn a_nested_bash_does_not_mark_its_prompts_as_the_kit_shells() {
    if !require("bash") {
        return;
    }
    let shell = TestSession::bash().shell_integration(true).start();
    let result = shell.run_command("env | grep -c '133;'", Duration::from_secs(20)).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    // The nested bash drew its prompt and reads a command line: nothing marked it.
    shell.type_line("PS1='in''ner> ' bash --norc --noprofile");
    shell.wait_for_screen_text("inner> ").wait_for_input();
    let status = shell.session().status().unwrap();
    assert_eq!(status.last_exit_code, Some(1), "no command ended: {status:?}");
    let waited = shell.session().wait(Until::prompt(), Duration::from_millis(300)).unwrap();
    assert!(waited.is_timeout(), "{waited}");
    shell.type_line("exit");
    shell.wait_until(Until::prompt());
    // As the review ran it: the nested bash is a command that has not ended, waiting for input.
    let nested = shell.run_command("bash --norc --noprofile", Duration::from_secs(20)).unwrap();
    assert!(nested.waiting_for_input && nested.exit_code.is_none(), "{nested:?}");
    shell.type_line("exit");
    shell.wait_until(Until::prompt());
    let result = shell.run_command("echo $SHLVL", Duration::from_secs(20)).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("1\n", Some(0)), "{result:?}");
}

/// A kit zsh with shell integration reads the user's startup files from the session's
/// `ZDOTDIR`: the integration took the test process's own (`ZDOTDIR=/tmp/z cargo test` put a
/// developer's `.zshrc` into the kit's sessions), ignoring the one the test set.
#[test]
fn a_kit_zsh_reads_the_sessions_zdotdir() {
    if !require("zsh") {
        return;
    }
    let builder = TestSession::builder("zsh")
        .file("zdot/.zshrc", "PS1='zsh> '\nFROM_ZDOTDIR=yes\n")
        .shell_integration(true);
    let zdotdir = builder.home().join("zdot");
    let shell = builder.env("ZDOTDIR", &zdotdir).start();
    shell.wait_until(Until::prompt());
    let result = shell.run_command("echo from=$FROM_ZDOTDIR", Duration::from_secs(20)).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("from=yes\n", Some(0)), "{result:?}");
    assert_eq!(shell.last_lines(1), ["zsh> "], "{}", shell.screen());
    // A `.zshenv` that moves ZDOTDIR (the XDG layout) names where the rest is read, as zsh
    // reads it (review wx: the integration read `$HOME/.zshrc`, and ZDOTDIR was `$HOME`), also
    // when it moves an unset one only (review xb: it was set to `$HOME` for it).
    let builder = TestSession::builder("zsh")
        .file(".zshenv", "export ZDOTDIR=${ZDOTDIR:-$HOME/.config/zsh}\n")
        .file(".zshrc", "PS1='home> '\nFROM_XDG=no\n")
        .file(".config/zsh/.zshrc", "PS1='xdg> '\nFROM_XDG=yes\n")
        .shell_integration(true);
    let shell = builder.env_remove("ZDOTDIR").start();
    shell.wait_until(Until::prompt());
    let result = shell.run_command("echo from=$FROM_XDG", Duration::from_secs(20)).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("from=yes\n", Some(0)), "{result:?}");
    assert_eq!(shell.last_lines(1), ["xdg> "], "{}", shell.screen());
}

/// The kit shell's prompts do not show the session's key, and a `PS1` the user exports at
/// the prompt stays exported (review if: `echo "$PS1"` showed the key, and every prompt
/// unexported `PS1`, `PS0` and `PROMPT_COMMAND`, so `export PS1=...` lasted one command), its
/// marks carrying no key to a child; bash reading its startup file (`--rcfile`) too, one
/// that sets `set -u` (review xf: `PS0: unbound variable`, and no marks). A child drawing an
/// exported `PS1` under `set -u`, and `shopt -u promptvars`, keep working, and a theme's
/// `PROMPT_COMMAND` setting `PS1` is marked (review xf).
#[test]
fn a_kit_shells_prompts_hide_the_key_and_a_users_export_stays() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    let key = r#"grep -c 'k=[0-9a-f]\{16\}'"#;
    let rc = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "set -u\nPS1='rc> '\n")
        .shell_integration(true)
        .start();
    for shell in [TestSession::bash().shell_integration(true).start(), rc] {
        shell.wait_until(Until::prompt());
        let shown = format!(r#"printf '%s\n' "$PS1" "$PS0" "$PROMPT_COMMAND" | {key}"#);
        let result = shell.run_command(&shown, long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
        let result = shell.run_command("env | grep -c '133;'", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
        let result = shell.run_command(r#"export PS1="mine> $PS1""#, long).unwrap();
        assert_eq!(result.exit_code, Some(0), "{result:?}");
        // Still exported a prompt later, its mark naming the key's variable, not the key.
        let result = shell.run_command("env | grep -c '^PS1=mine> '", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("1\n", Some(0)), "{result:?}");
        let result = shell.run_command(&format!("env | {key}"), long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
        assert!(shell.last_lines(1)[0].starts_with("mine> "), "{}", shell.screen());
        // A child under `set -u` draws the exported PS1 (review xf: `__termloom_key: unbound
        // variable` at every prompt, as a venv's `activate` exports PS1).
        let drawn = "bash --norc --noprofile -u -i -c 'p=${PS1@P}; echo drawn'";
        let result = shell.run_command(drawn, long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("drawn\n", Some(0)), "{result:?}");
        // With `promptvars` off the marks hold the key itself, and name it again once it is
        // back on (review xf: they held `${__termloom_key}` unexpanded, dropped, and the
        // next command was refused at a prompt that lost its mark).
        let result = shell.run_command("shopt -u promptvars; echo off", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("off\n", Some(0)), "{result:?}");
        let result = shell.run_command("echo next", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("next\n", Some(0)), "{result:?}");
        // Holding the key, the exported PS1 is no longer handed on (review xl: every child
        // got the key).
        let result = shell.run_command(&format!("env | {key}"), long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
        let result = shell.run_command("shopt -s promptvars; echo on", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("on\n", Some(0)), "{result:?}");
        let result = shell.run_command(&shown, long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    }
    // A theme setting PS1 in PROMPT_COMMAND (starship, powerline-shell) gets the mark at each
    // prompt (review xf: none, "shows no shell integration prompt marks").
    let theme = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "PROMPT_COMMAND='PS1=\"theme> \"'\n")
        .shell_integration(true)
        .start();
    theme.wait_until(Until::prompt());
    for _ in 0..2 {
        let result = theme.run_command("echo hi", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("hi\n", Some(0)), "{result:?}");
        assert_eq!(theme.last_lines(1), ["theme> "], "{}", theme.screen());
    }
}

/// A bash-preexec-like hook that puts itself first in `PROMPT_COMMAND` (and leaves `$?` 0)
/// leaves the command's exit code and a theme's marks (review xl 3: `(exit 7)` gave 0, and a
/// `precmd` setting PS1 left the prompt unmarked for good); a theme that owns PS1 marks it
/// again after a command set PS1 (review xl 1: every later command was refused at a prompt
/// that lost its mark), while without a theme a PS1 a command replaced stays unmarked.
#[test]
fn a_kit_bash_keeps_exit_codes_and_a_themes_marks_behind_a_hook_that_goes_first() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    // What bash-preexec does to PROMPT_COMMAND at its first prompt, and to `$?`.
    let hook = r#"__bp_install() { PROMPT_COMMAND="__bp_precmd"$'\n'"${PROMPT_COMMAND//__bp_install[;$'\n']/}"$'\n'__bp_mode; }
__bp_precmd() { __bp_ret=$?; precmd; }
__bp_mode() { :; }
precmd() { PS1="[bp \w]\$ "; }
PROMPT_COMMAND=__bp_install
"#;
    let theme = "__theme() { PS1='[theme]\\$ '; }\nPROMPT_COMMAND=__theme\n";
    // bash 5.1+ runs an array's elements in turn (review xl 2: a theme's later element left
    // every prompt unmarked).
    let array = "a() { :; }\n__theme() { PS1='[arr \\w]\\$ '; }\nPROMPT_COMMAND=(a __theme)\n";
    for rc in [hook, theme, array] {
        let shell = TestSession::builder("bash")
            .arg("--noprofile")
            .file(".bashrc", rc)
            .shell_integration(true)
            .start();
        shell.wait_until(Until::prompt());
        for _ in 0..2 {
            let result = shell.run_command("(exit 7)", long).unwrap();
            assert_eq!(result.exit_code, Some(7), "{rc}: {result:?}");
            let result = shell.run_command("echo hi", long).unwrap();
            assert_eq!((result.output.as_str(), result.exit_code), ("hi\n", Some(0)), "{result:?}");
        }
        let result = shell.run_command("PS1='plain> '; echo set", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("set\n", Some(0)), "{result:?}");
        let result = shell.run_command("echo after", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("after\n", Some(0)), "{result:?}");
        assert!(shell.last_lines(1)[0].starts_with('['), "{}", shell.screen());
    }
    let plain = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "PS1='rc> '\n")
        .shell_integration(true)
        .start();
    plain.wait_until(Until::prompt());
    let result = plain.run_command("PS1='plain> '; echo set", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("set\n", Some(0)), "{result:?}");
    let refused = plain.run_command("echo after", long).unwrap_err().to_string();
    assert!(refused.contains("lost termloom's mark"), "{refused}");
}

/// A `readonly PROMPT_COMMAND` in the user's `.bashrc` (helper ir): the integration could not
/// add its prompt step, so no prompt was ever marked and every command waited to its timeout.
/// The prompt step's marks go in `PS1` then, with `$?` (the command's status there).
#[test]
fn a_kit_bash_with_a_readonly_prompt_command_marks_its_prompts() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    let shell = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "PS1='ro> '\nreadonly PROMPT_COMMAND='ran=1'\n")
        .shell_integration(true)
        .start();
    let waited = shell.session().wait(Until::prompt(), long).unwrap();
    assert!(waited.matched().is_some(), "{waited}\n{}", shell.screen());
    for _ in 0..2 {
        let result = shell.run_command("(exit 7)", long).unwrap();
        assert_eq!(result.exit_code, Some(7), "{result:?}");
        let result = shell.run_command("echo hi $ran", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("hi 1\n", Some(0)), "{result:?}");
    }
    assert_eq!(shell.last_lines(1), ["ro> "], "{}", shell.screen());
    let screen = shell.screen().to_string();
    assert!(!screen.contains("readonly variable"), "{screen}");
    let key = r#"grep -c 'k=[0-9a-f]\{16\}'"#;
    let result = shell.run_command(&format!(r#"printf '%s\n' "$PS1" | {key}"#), long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
}

/// `set -a` (allexport) left on by the user's `.bashrc` exported the integration's functions
/// (helper ir: a child bash saw `__termloom_prompt`, `env` showed `BASH_FUNC___termloom_*`),
/// and what its prompt step changed later: nothing of termloom's reaches a command.
#[test]
fn a_kit_bash_under_allexport_hands_nothing_of_termlooms_to_its_commands() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    let shell = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "set -a\nPS1='all> '\n")
        .shell_integration(true)
        .start();
    shell.wait_until(Until::prompt());
    // A hook that put itself first makes the prompt step rewrite PROMPT_COMMAND.
    let first = r#"PROMPT_COMMAND="hook"$'\n'"$PROMPT_COMMAND"; hook() { :; }; echo set"#;
    let result = shell.run_command(first, long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("set\n", Some(0)), "{result:?}");
    for _ in 0..2 {
        let result = shell.run_command("env | grep -c '__termloom\\|133;'", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
        let child = "bash --norc --noprofile -c 'declare -F | grep -c __termloom'";
        let result = shell.run_command(child, long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    }
    let result = shell.run_command("[[ $- == *a* ]] && echo still", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("still\n", Some(0)), "{result:?}");
}

/// A theme appended to `PROMPT_COMMAND` at the prompt (helper ir): it ran after the marks step
/// and replaced the marked `PS1`, so the end of the command that appended it (and every later
/// one) was not seen. Also with `bash --norc`.
#[test]
fn a_kit_bash_marks_a_theme_appended_to_prompt_command_after_startup() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    let rc = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "PS1='rc> '\nPROMPT_COMMAND='ran=1'\n")
        .shell_integration(true)
        .start();
    for shell in [rc, TestSession::bash().shell_integration(true).start()] {
        shell.wait_until(Until::prompt());
        let theme = r#"PROMPT_COMMAND="$PROMPT_COMMAND;PS1='theme> ';"; echo set"#;
        let result = shell.run_command(theme, long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("set\n", Some(0)), "{result:?}");
        for _ in 0..2 {
            let result = shell.run_command("(exit 3)", long).unwrap();
            assert_eq!(result.exit_code, Some(3), "{result:?}");
            let result = shell.run_command("echo hi", long).unwrap();
            assert_eq!((result.output.as_str(), result.exit_code), ("hi\n", Some(0)), "{result:?}");
            assert_eq!(shell.last_lines(1), ["theme> "], "{}", shell.screen());
        }
    }
    // A hook put ahead as an element of its own, as array-aware hooks do at the prompt
    // (direnv, starship): the prompt step runs once, first, and the hook's PS1 is marked.
    let shell = TestSession::builder("bash")
        .arg("--noprofile")
        .file(".bashrc", "PS1='rc> '\npre() { PS1='pre> '; }\n")
        .shell_integration(true)
        .start();
    shell.wait_until(Until::prompt());
    let ahead = r#"PROMPT_COMMAND=(pre "${PROMPT_COMMAND[@]}"); echo set"#;
    let result = shell.run_command(ahead, long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("set\n", Some(0)), "{result:?}");
    for _ in 0..2 {
        let result = shell.run_command("(exit 3)", long).unwrap();
        assert_eq!(result.exit_code, Some(3), "{result:?}");
        let steps = r#"printf '%s\n' "${PROMPT_COMMAND[@]}" | grep -c __termloom_prompt"#;
        let result = shell.run_command(steps, long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("1\n", Some(0)), "{result:?}");
        assert_eq!(shell.last_lines(1), ["pre> "], "{}", shell.screen());
    }
}

/// zsh hooks added after `.zshrc` (helper ir): a login shell's `.zlogin` adding a `precmd`
/// that sets `PS1` ran after the mark's hook, so the first prompt (and every one) lost the
/// mark; a deferred loader adding its theme's hook at the first prompt did the same from the
/// second. The mark's hook goes last again.
#[test]
fn a_kit_zsh_marks_prompts_of_hooks_added_after_its_zshrc() {
    if !require("zsh") {
        return;
    }
    let long = Duration::from_secs(20);
    let zlogin = "autoload -Uz add-zsh-hook\nlate() { PS1='late> ' }\nadd-zsh-hook precmd late\n";
    let login = TestSession::builder("zsh")
        .arg("-l")
        .file(".zshrc", "PS1='z> '\n")
        .file(".zlogin", zlogin)
        .shell_integration(true)
        .start();
    let deferred = "autoload -Uz add-zsh-hook
PS1='z> '
theme() { PS1='deferred> ' }
loader() { add-zsh-hook -d precmd loader; add-zsh-hook precmd theme }
add-zsh-hook precmd loader
";
    let deferred =
        TestSession::builder("zsh").file(".zshrc", deferred).shell_integration(true).start();
    for (shell, prompt) in [(login, "late> "), (deferred, "deferred> ")] {
        let waited = shell.session().wait(Until::prompt(), long).unwrap();
        assert!(waited.matched().is_some(), "{waited}\n{}", shell.screen());
        for _ in 0..2 {
            let result = shell.run_command("(exit 3)", long).unwrap();
            assert_eq!(result.exit_code, Some(3), "{result:?}");
            let result = shell.run_command("echo hi", long).unwrap();
            assert_eq!((result.output.as_str(), result.exit_code), ("hi\n", Some(0)), "{result:?}");
            assert_eq!(shell.last_lines(1), [prompt], "{}", shell.screen());
        }
    }
    // The login shell's ZDOTDIR is left as zsh would (unset here), after its .zlogin too.
    let shell = TestSession::builder("zsh")
        .arg("-l")
        .file(".zshrc", "PS1='z> '\n")
        .file(".zlogin", "SEEN=${ZDOTDIR-unset}\n")
        .shell_integration(true)
        .env_remove("ZDOTDIR")
        .start();
    shell.wait_until(Until::prompt());
    let result = shell.run_command("echo $SEEN ${ZDOTDIR-unset}", long).unwrap();
    assert_eq!(result.output, "unset unset\n", "{result:?}");
    // And as the session set it, the user's .zlogin read from there.
    let builder = TestSession::builder("zsh")
        .arg("-l")
        .file("zdot/.zshrc", "PS1='z> '\n")
        .file("zdot/.zlogin", "SEEN=$ZDOTDIR\n")
        .shell_integration(true);
    let zdotdir = builder.home().join("zdot");
    let shell = builder.env("ZDOTDIR", &zdotdir).start();
    shell.wait_until(Until::prompt());
    let result = shell.run_command("echo $SEEN $ZDOTDIR", long).unwrap();
    let zdotdir = zdotdir.display();
    assert_eq!(result.output, format!("{zdotdir} {zdotdir}\n"), "{result:?}");
}

/// A hook that puts itself first in `PROMPT_COMMAND` at every prompt (when it is not) grew
/// `PROMPT_COMMAND` a copy of itself a prompt, each run every prompt (review xo's price: the
/// marks step put the prompt step back first, leaving the hook's earlier copy behind it). The
/// copy already behind the prompt step is dropped: it runs once a prompt, exit codes kept.
/// Also when it puts itself first with `; ` (review xq: the separator's blank was kept, and
/// `PROMPT_COMMAND` grew a byte a prompt).
#[test]
fn a_kit_bash_hook_going_first_every_prompt_runs_once_a_prompt() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    for separator in [";", "; "] {
        let rc = format!(
            "PS1='h> '\nn=0\nh() {{ n=$((n+1)); [[ $PROMPT_COMMAND == h\\;* ]] || PROMPT_COMMAND=\"h{separator}$PROMPT_COMMAND\"; }}\nPROMPT_COMMAND=h\n"
        );
        let shell = TestSession::builder("bash")
            .arg("--noprofile")
            .file(".bashrc", rc)
            .shell_integration(true)
            .start();
        shell.wait_until(Until::prompt());
        let mut runs = Vec::new();
        for _ in 0..4 {
            let result = shell.run_command("(exit 5)", long).unwrap();
            assert_eq!(result.exit_code, Some(5), "{result:?}");
            let result = shell.run_command("echo $n ${#PROMPT_COMMAND}", long).unwrap();
            assert_eq!(result.exit_code, Some(0), "{result:?}");
            let words: Vec<u64> =
                result.output.split_whitespace().map(|w| w.parse().unwrap()).collect();
            runs.push((words[0], words[1]));
        }
        // One run of the hook a prompt (two prompts a round), PROMPT_COMMAND the same length.
        for pair in runs.windows(2) {
            assert_eq!(
                (pair[1].0 - pair[0].0, pair[1].1),
                (2, pair[0].1),
                "{separator:?}: {runs:?}"
            );
        }
    }
}

/// A preexec framework working as bash-preexec does (review xq: its `preexec` ran at the
/// prompt with the previous command, and the typed one got none). Such a framework puts a step
/// arming its DEBUG trap last in `PROMPT_COMMAND` (bash-preexec 0.6 as the array's last element,
/// 0.5 as the string's last line, element 0's with bash 5.1+); the trap fires before each
/// command and calls `preexec` only for the first one after that step, unless it is one of
/// `PROMPT_COMMAND`'s. The marks step ran after it, so the trap took it for the typed command.
/// It now goes before that step, and the step is run again at the first prompt, where the
/// framework's install ran it before the marks step: every typed command gets its `preexec`.
#[test]
fn a_kit_bash_behind_a_preexec_framework_gives_each_typed_command_its_preexec() {
    if !require("bash") {
        return;
    }
    let long = Duration::from_secs(20);
    // Our own sketch of the framework's logic (not its code); FORM chooses where the arming
    // step goes, and which of PROMPT_COMMAND's commands the trap recognises.
    let framework = r#"PS1='$ '
precmd() { echo "precmd status=$?" >> ~/log; }
preexec() { echo "preexec: $1" >> ~/log; }
fw_armed=
fw_precmd_step() { local s=$?; (exit $s); precmd; }
__bp_interactive_mode() { fw_armed=1; }
fw_listed() {
    local -a parts; local part scope="${PROMPT_COMMAND[*]}"
    [[ $FORM == string ]] && scope=$PROMPT_COMMAND
    IFS=$'\n;' read -rd '' -a parts <<< "$scope"
    for part in "${parts[@]}"; do
        part="${part#"${part%%[! ]*}"}"; part="${part%"${part##*[! ]}"}"
        [[ $part == "$1" ]] && return 0
    done
    return 1
}
fw_trap() {
    [[ -n $fw_armed ]] || return 0
    fw_armed=
    fw_listed "$1" && return 0
    local n cmd
    read -r n cmd <<< "$(HISTTIMEFORMAT= builtin history 1)"
    [[ -n $cmd ]] && preexec "$cmd"
    return 0
}
fw_install() {
    trap 'fw_trap "$BASH_COMMAND"' DEBUG
    local rest="${PROMPT_COMMAND//fw_install/:}"
    PROMPT_COMMAND="fw_precmd_step"$'\n'"$rest"
    if [[ $FORM == array ]]; then PROMPT_COMMAND+=(__bp_interactive_mode); else PROMPT_COMMAND+=$'\n'__bp_interactive_mode; fi
    fw_precmd_step; __bp_interactive_mode
}
PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}fw_install"
"#;
    for form in ["array", "string"] {
        let shell = TestSession::builder("bash")
            .arg("--noprofile")
            .file(".bashrc", format!("FORM={form}\n{framework}"))
            .shell_integration(true)
            .start();
        shell.wait_until(Until::prompt());
        for command in ["echo first", "sh -c 'exit 3'", "echo third"] {
            let result = shell.run_command(command, long).unwrap();
            assert!(result.exit_code.is_some(), "{form}: {result:?}");
        }
        let result = shell.run_command("cat log", long).unwrap();
        let expected = "precmd status=0\npreexec: echo first\nprecmd status=0\n\
            preexec: sh -c 'exit 3'\nprecmd status=3\npreexec: echo third\nprecmd status=0\n\
            preexec: cat log\n";
        assert_eq!((result.output.as_str(), result.exit_code), (expected, Some(0)), "{form}");
    }
}

/// zsh's integration leaves `ZDOTDIR` as zsh would (review if: a `.zshenv` that unsets it, or
/// none at all, left it set to `$HOME`), and marks a `PS1` a login shell's `.zlogin` sets
/// and exports without the key going to the shell's commands (it was marked in `.zshrc`
/// with the key in it, before `.zlogin` ran; the key was exported with it).
#[test]
fn a_kit_zsh_leaves_zdotdir_and_a_zlogins_ps1_as_zsh_would() {
    if !require("zsh") {
        return;
    }
    let long = Duration::from_secs(20);
    let builder = TestSession::builder("zsh")
        .file("zdot/.zshenv", "unset ZDOTDIR\n")
        .file(".zshrc", "PS1='z> '\n")
        .shell_integration(true);
    let zdotdir = builder.home().join("zdot");
    let unset_by_zshenv = builder.env("ZDOTDIR", &zdotdir).start();
    let never_set = TestSession::builder("zsh")
        .file(".zshrc", "PS1='z> '\n")
        .shell_integration(true)
        .env_remove("ZDOTDIR")
        .start();
    for shell in [unset_by_zshenv, never_set] {
        shell.wait_until(Until::prompt());
        let result = shell.run_command("echo ${ZDOTDIR-unset}", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("unset\n", Some(0)), "{result:?}");
        assert_eq!(shell.last_lines(1), ["z> "], "{}", shell.screen());
    }
    let shell = TestSession::builder("zsh")
        .arg("-l")
        .file(".zshrc", "PS1='z> '\n")
        .file(".zlogin", "PS1=\"login> $PS1\"; export PS1\n")
        .shell_integration(true)
        .start();
    shell.wait_until(Until::prompt());
    let key = r#"grep -c 'k=[0-9a-f]\{16\}'"#;
    let result = shell.run_command(&format!("env | {key}"), long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    let result = shell.run_command(&format!(r#"print -r -- "$PS1" | {key}"#), long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    // Exported as the user's .zlogin left it, and the prompt still marked.
    let result = shell.run_command("env | grep -c '^PS1=login> z> $'", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("1\n", Some(0)), "{result:?}");
    assert_eq!(shell.last_lines(1), ["login> z> "], "{}", shell.screen());
}

/// zsh's integration under a `.zshrc` that leaves `allexport`, `warn_create_global` and
/// `nounset` on (review xf): no variable holds a mark for `env` or `print` to show (a global
/// held `PS1`'s mark with the key, exported by `allexport`, and printing it faked a prompt),
/// nothing is created globally from a function (a warning at the first prompt), and the
/// integration runs at all (`precmd_functions: parameter not set`, no marks). A `PS1` the
/// user did not export stays unexported, `allexport` or not. `no_prompt_percent` draws no
/// `%{%}`, and exports nothing of termloom's.
#[test]
fn a_kit_zsh_with_allexport_warn_create_global_and_nounset_marks_its_prompts() {
    if !require("zsh") {
        return;
    }
    let long = Duration::from_secs(20);
    let shell = TestSession::builder("zsh")
        .file(".zshrc", "PS1='z> '\nsetopt allexport warn_create_global nounset\n")
        .shell_integration(true)
        .start();
    shell.wait_until(Until::prompt());
    let result = shell.run_command("echo ok", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("ok\n", Some(0)), "{result:?}");
    let result = shell.run_command("env | grep -c '133;'", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    let result = shell.run_command("set | grep -ac '133;'", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    let result = shell.run_command("env | grep -c '^PS1='", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("0\n", Some(1)), "{result:?}");
    let screen = shell.screen().to_string();
    assert!(!screen.contains("created globally"), "{screen}");
    assert_eq!(shell.last_lines(1), ["z> "], "{}", shell.screen());
    // `setopt no_prompt_percent` takes `%{%}` as text: the mark goes without them (review xf:
    // `z> %{%}` was drawn).
    let result = shell.run_command("setopt no_prompt_percent; echo off", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("off\n", Some(0)), "{result:?}");
    assert_eq!(shell.last_lines(1), ["z> "], "{}", shell.screen());
    let result = shell.run_command("echo typed", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("typed\n", Some(0)), "{result:?}");
    assert_eq!(shell.last_lines(3), ["z> echo typed", "typed", "z> "], "{}", shell.screen());
    // Nothing of termloom's reaches a command under `allexport` with `no_prompt_percent`
    // either (review xq: `__termloom_pp=` was in every command's environment), set at the
    // prompt or in `.zshrc` with prompts holding `%`.
    let rc = "PS1='z%# '\nPS2='c%_> '\nRPS1='r%'\nsetopt allexport no_prompt_percent\n";
    let from_rc = TestSession::builder("zsh").file(".zshrc", rc).shell_integration(true).start();
    from_rc.wait_until(Until::prompt());
    for shell in [shell, from_rc] {
        for _ in 0..2 {
            let leaked = "env | grep '__termloom\\|^PS1=\\|^PS2=\\|^RPS1='; echo end";
            let result = shell.run_command(leaked, long).unwrap();
            assert_eq!(
                (result.output.as_str(), result.exit_code),
                ("end\n", Some(0)),
                "{result:?}"
            );
        }
    }
}

/// zsh under `setopt no_prompt_percent` (helper ir): the mark went into `PS1` without `%{ %}`
/// (shown as text then), so zsh counted its bytes in the prompt's width: a right prompt was
/// drawn 26 columns early, a wrapped line edited askew. The prompt is drawn as with
/// `prompt_percent` (a `%` in it still shown), and commands see the options and prompts the
/// user set.
#[test]
fn a_kit_zsh_without_prompt_percent_draws_its_prompt_at_its_width() {
    if !require("zsh") {
        return;
    }
    let long = Duration::from_secs(20);
    let start = |options: &str| {
        let rc = format!("PS1='z% '\nRPS1='R%'\n{options}");
        let shell = TestSession::builder("zsh").file(".zshrc", rc).shell_integration(true).start();
        shell.wait_until(Until::prompt());
        shell
    };
    let off = start("setopt no_prompt_percent\n");
    let result = off.run_command("[[ -o prompt_percent ]] || print -r -- \"$PS1|$RPS1\"", long);
    let result = result.unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("z% |R%\n", Some(0)), "{result:?}");
    let percent = start("PS1='z%% '\nRPS1='R%%'\n");
    percent.run_command("true", long).unwrap();
    let drawn = |shell: &TestSession| shell.last_lines(1)[0].clone();
    assert_eq!(drawn(&off), drawn(&percent), "{}\n{}", off.screen(), percent.screen());
    assert!(drawn(&off).starts_with("z% ") && drawn(&off).trim_end().ends_with("R%"));
    // Still off for commands, twice (the prompt step undoes what it did, every prompt).
    for _ in 0..2 {
        let result = off.run_command("setopt | grep -c '^nopromptpercent$'", long).unwrap();
        assert_eq!((result.output.as_str(), result.exit_code), ("1\n", Some(0)), "{result:?}");
    }
    // With prompt_subst too what a substitution prints is not read for `%` escapes (the mark
    // counts in the width then, as before).
    let subst = start("setopt no_prompt_percent prompt_subst\nv='x%y%~'\nPS1='$v > '\n");
    let result = subst.run_command("echo hi", long).unwrap();
    assert_eq!((result.output.as_str(), result.exit_code), ("hi\n", Some(0)), "{result:?}");
    assert!(drawn(&subst).starts_with("x%y%~ > "), "{}", subst.screen());
}

/// zsh's integration finds the user's startup files through `ZDOTDIR` as the session gets
/// it: a host `ZDOTDIR` that the configuration's `env_deny` names is not read (review if: the
/// integration took the process's own, denied or not). The test runs itself again with a
/// `ZDOTDIR` of its own; the run inside starts zsh on an engine that denies it.
#[test]
fn a_denied_zdotdir_is_not_read_by_zshs_integration() {
    if !require("zsh") {
        return;
    }
    const INSIDE: &str = "TERMLOOM_KIT_TEST_DENIED_ZDOTDIR";
    if std::env::var_os(INSIDE).is_some() {
        let home = common::TestDir::new("denied-zdotdir-home");
        std::fs::write(home.join(".zshrc"), "PS1='home> '\n").unwrap();
        let config = Config { env_deny: vec!["ZDOTDIR".into()], ..Config::default() };
        let engine = termloom::Engine::new(config).unwrap();
        let spec = termloom::SpawnSpec::new("zsh").env("HOME", &*home).shell_integration(true);
        let shell = engine.spawn(spec).unwrap();
        let long = Duration::from_secs(20);
        assert!(shell.wait(Until::prompt(), long).unwrap().matched().is_some());
        let result = shell.run_command("echo ${ZDOTDIR-unset} ${FROM_DENIED-no}", long).unwrap();
        assert_eq!(result.output, "unset no\n", "{result:?}");
        let screen = shell.screen().unwrap();
        assert!(screen.lines.iter().any(|line| line.starts_with("home> ")), "{screen}");
        shell.close().unwrap();
        return;
    }
    let denied = common::TestDir::new("denied-zdotdir");
    std::fs::write(denied.join(".zshrc"), "PS1='denied> '\nFROM_DENIED=yes\n").unwrap();
    let inside = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_denied_zdotdir_is_not_read_by_zshs_integration", "--nocapture"])
        .env(INSIDE, "1")
        .env("ZDOTDIR", &*denied)
        .output()
        .unwrap();
    let output = String::from_utf8_lossy(&inside.stdout);
    assert!(inside.status.success(), "{output}{}", String::from_utf8_lossy(&inside.stderr));
    assert!(output.contains("1 passed"), "{output}");
}

/// A relative program path is taken in the session's working directory, the temporary `HOME`,
/// not the test's (the crate's): a failed start says so (it said only "No such file or
/// directory" for a script the crate has), once (it began "cannot start" twice, also for a
/// refused shell integration), and a script written into `HOME` runs.
#[test]
fn a_relative_program_path_is_the_sessions_directorys() {
    assert!(Path::new("tests/without_programs.sh").exists());
    let message = panic_message(|| {
        let _ = TestSession::builder("./tests/without_programs.sh").start();
    });
    let hint =
        "a relative path is taken in the session's working directory, [HOME], not the test's";
    assert!(message.contains(hint), "{message}");
    // Said once: the engine's message began as the kit's ("cannot start `x`: cannot start
    // "x": No such file or directory").
    assert_eq!(message.matches("cannot start").count(), 1, "{message}");
    let message = panic_message(|| {
        let _ = TestSession::builder("termloom-no-such-program").arg("-q").start();
    });
    let said = "termloom: cannot start `termloom-no-such-program -q`: no such program in PATH";
    assert!(message.starts_with(said), "{message}");
    // A shell integration refused (`invalid input: cannot start "sh": ...`): once too.
    let message = panic_message(|| {
        let _ = TestSession::builder("sh").shell_integration(true).start();
    });
    let said = "termloom: cannot start `sh`: invalid input: shell integration works with bash and zsh, not \"sh\"";
    assert!(message.starts_with(said), "{message}");
    assert_eq!(message.matches("cannot start").count(), 1, "{message}");
    let builder = TestSession::builder("./run.sh").file("run.sh", "#!/bin/sh\necho ran-here\n");
    let script = builder.home().join("run.sh");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let session = builder.start();
    session.wait_for_output("ran-here").wait_for_success();
}

/// `file` writes into the temporary `HOME` only: a path that would lead out of it (absolute, or
/// through `..`) fails with a message that says so, and nothing is written there.
#[test]
fn a_file_outside_the_temporary_home_is_refused() {
    let outside = std::env::temp_dir().join(format!("termloom-outside-{}", std::process::id()));
    let _ = std::fs::remove_file(&outside);
    let escape = Path::new("..").join(outside.file_name().unwrap());
    for path in [outside.clone(), escape, Path::new("a/../../b").to_owned()] {
        let message = panic_message(|| {
            let _ = TestSession::builder("cat").file(&path, "clobbered");
        });
        assert!(message.contains("inside the temporary HOME"), "{path:?}: {message}");
    }
    assert!(!outside.exists(), "a file was written outside the temporary HOME");
}

#[test]
fn the_temporary_home_holds_the_files_and_goes_away() {
    let builder = TestSession::builder("cat").file("config/app.toml", "answer = 42\n");
    let home = builder.home().to_owned();
    assert_eq!(std::fs::read_to_string(home.join("config/app.toml")).unwrap(), "answer = 42\n");
    let session = builder.start();
    assert_eq!(session.home(), home);
    // A second program beside it, on the same engine, reads the same HOME.
    let client = session
        .engine()
        .spawn(
            termloom::SpawnSpec::new("sh")
                .args(["-c", "cat \"$HOME/config/app.toml\""])
                .env("HOME", session.home()),
        )
        .unwrap();
    let outcome = client.wait(Until::text("answer = 42"), Duration::from_secs(30)).unwrap();
    assert!(!outcome.is_timeout(), "{outcome}");
    // The engine's session inherits the test process's environment (cargo's CARGO_PKG_NAME),
    // not the kit's fixed one, as `engine()` says (it said "only the environment its spec
    // gives it").
    let inherits = session
        .engine()
        .spawn(termloom::SpawnSpec::new("sh").args(["-c", "echo \"pkg=$CARGO_PKG_NAME\""]))
        .unwrap();
    let outcome = inherits.wait(Until::text("pkg=termloom"), Duration::from_secs(30)).unwrap();
    assert!(!outcome.is_timeout(), "{outcome}");
    drop(session);
    assert!(!home.exists(), "{} should have been removed", home.display());
    assert!(client.read().is_err(), "the engine closed the second session with the first");
}

#[test]
fn a_failed_wait_shows_the_screen_and_the_last_transcript_lines() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().timeout(Duration::from_millis(300)).start();
    sh.type_line("for i in $(seq 1 40); do echo output line $i; done");
    sh.wait_for_screen_text("output line 40").wait_for_row(23, "$");
    let message = panic_message(|| {
        sh.wait_for_screen_text("a text that never comes");
    });
    assert!(
        message.contains(
            "timed out after 300ms waiting for screen text \"a text that never comes\" in `bash --norc --noprofile`"
        ),
        "{message}"
    );
    assert!(message.contains("status: waiting for input"), "{message}");
    // The screen, in the snapshot format...
    assert!(
        message.contains("screen:\nscreen: 80x24, primary\ncursor: row 23, col 2"),
        "{message}"
    );
    assert!(message.contains("22 │output line 40\n23 │$\n"), "{message}");
    // ...and the transcript's last lines, which include what scrolled off the screen.
    assert!(message.contains("last 20 transcript lines:\n"), "{message}");
    assert!(message.contains("  | output line 22\n"), "{message}");
    assert!(!message.contains("  | output line 21\n"), "{message}");
    assert!(message.contains("  | output line 40\n  | $ \n"), "{message}");
}

#[test]
fn an_exit_fails_a_text_wait_but_not_an_exit_wait() {
    let sh = TestSession::builder("sh").args(["-c", "echo goodbye; exit 3"]).start();
    let message = panic_message(|| {
        sh.wait_for_screen_text("never printed");
    });
    assert!(
        message
            .contains("the program exited (exit code 3) waiting for screen text \"never printed\""),
        "{message}"
    );
    assert!(message.contains(" 0 │goodbye"), "{message}");
    assert_eq!(sh.wait_for_exit(), termloom::ExitStatus::Code(3));
    let message = panic_message(|| sh.wait_for_success());
    assert!(message.contains("ended with exit code 3, not exit code 0"), "{message}");
}

#[test]
fn screen_waits_on_the_cursor() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    sh.type_text("echo abc").send_keys("<Left><Left>").wait_for_cursor(0, 8);
    assert_eq!(sh.screen().cursor.col, 8);
    let screen = sh.wait_for_screen("two rows", |s| s.lines[0] == "$ echo abc");
    assert!(screen.cursor.visible);
    let message = panic_message(|| {
        TestSession::bash().timeout(Duration::from_millis(200)).start().wait_for_cursor(9, 9);
    });
    assert!(
        message.contains("timed out after 200ms waiting for cursor at row 9 col 9"),
        "{message}"
    );
}

#[test]
fn snapshots_go_to_the_top_level_snapshots_folder() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    sh.type_text("echo 'two spaces then the cursor'  ").wait_for_cursor(0, 37).wait_stable();
    assert_screen_snapshot!("prompt_with_trailing_spaces", sh);
    let stored = std::fs::read_to_string(snapshot_file("prompt_with_trailing_spaces")).unwrap();
    assert!(stored.contains("description: \"`bash --norc --noprofile`\""), "{stored}");
    // The trailing blanks the cursor sits after are shown by the caret line.
    let caret = format!("   ┆{}^", " ".repeat(37));
    assert!(stored.contains(&format!(" 0 │$ echo 'two spaces then the cursor'\n{caret}\n")));
}

#[test]
fn an_unnamed_snapshot_is_named_after_the_test() {
    let sh = TestSession::builder("sh").args(["-c", "printf 'ready\\n'; read line"]).start();
    sh.wait_for_screen_text("ready").wait_for_input().wait_stable();
    assert_screen_snapshot!(sh);
    assert!(snapshot_file("an_unnamed_snapshot_is_named_after_the_test").exists());
}

#[test]
fn alternate_screen_title_and_hidden_cursor_are_in_the_header() {
    let script = r"printf '\033]0;Kit demo\007\033[?1049h\033[?25l\033[3;10Hin the middle'; read x; printf '\033[?1049l'";
    let app = TestSession::builder("sh").args(["-c", script]).size(40, 6).start();
    app.wait_for_screen_text("in the middle").wait_for_input().wait_stable();
    let screen = app.screen();
    assert!(screen.alternate && !screen.cursor.visible);
    assert_eq!(screen.title, "Kit demo");
    // A Screen value snapshots too (without the session's redactions and description).
    assert_screen_snapshot!("alternate_screen_and_title", screen);
    app.type_line("");
    app.wait_for_success();
    assert!(!app.screen().alternate);
}

#[test]
fn volatile_text_is_redacted_in_snapshots() {
    let script = "echo \"started $(date +%F) at $(date +%T), pid $$\"; \
                  echo \"took $(shuf -i 100-999 -n 1)ms, object at 0x$(shuf -i 100000-999999 -n 1)\"; \
                  echo \"config in $HOME/.config\"; read x";
    let app = TestSession::builder("sh")
        .args(["-c", script])
        .redact(Redactions::new().dates().clock_times().pids().durations().hex_addresses())
        .start();
    app.wait_for_screen_text("config in").wait_for_input().wait_stable();
    let redacted = app.redactions().apply(&app.screen().text());
    assert_eq!(
        redacted,
        "started [DATE] at [TIME], pid [PID]\ntook [DURATION], object at [ADDR]\n\
         config in [HOME]/.config\n"
    );
    // The same filters, through insta: the stored snapshot has the placeholders.
    assert_screen_snapshot!("redacted", app);
    let stored = std::fs::read_to_string(snapshot_file("redacted")).unwrap();
    assert!(stored.contains(" 2 │config in [HOME]/.config\n"), "{stored}");
}

/// A `Screen` value knows no session, but every test session's HOME is redacted in it too.
#[test]
fn a_test_sessions_home_is_redacted_in_a_screen_value() {
    let app =
        TestSession::builder("sh").args(["-c", "echo \"config in $HOME/.config\"; read x"]).start();
    let screen = app.wait_for_screen("the path", |screen| screen.contains("config in"));
    assert_screen_snapshot!("redacted_screen_value", screen);
    let stored = std::fs::read_to_string(snapshot_file("redacted_screen_value")).unwrap();
    assert!(stored.contains(" 0 │config in [HOME]/.config\n"), "{stored}");
}

/// The user's and the machine's names differ between a developer's machine and CI: prompts,
/// `whoami`, `uname -n`. Only whole words are replaced, each time: also a name twice with
/// one character between, as `ls -l` shows a file's owner and group (`root root`).
#[test]
fn the_user_and_the_host_are_redacted() {
    let script = "echo \"$(id -un)@$(uname -n): $(whoami) on $(hostname 2>/dev/null || uname -n)\"; \
                  echo \"x$(id -un)x\"; echo \"$(id -un) $(id -un) $(uname -n):$(uname -n)\"; read x";
    let app = TestSession::builder("sh")
        .args(["-c", script])
        .redact(Redactions::new().user().hostname())
        .start();
    app.wait_for_input();
    let screen = app.redactions().apply(&app.screen().text());
    let user =
        String::from_utf8(std::process::Command::new("id").arg("-un").output().unwrap().stdout)
            .unwrap();
    let expected = format!(
        "[USER]@[HOST]: [USER] on [HOST]\nx{}x\n[USER] [USER] [HOST]:[HOST]\n",
        user.trim()
    );
    assert_eq!(screen, expected);
}

/// `timeout(Duration::MAX)` means "until it holds", as a wait of the engine's for
/// `Duration::MAX` does, instead of overflowing the deadline's `Instant`.
#[test]
fn a_wait_without_a_deadline_does_not_overflow() {
    let app = TestSession::builder("sh")
        .args(["-c", "read x; echo \"got $x\"; read y"])
        .timeout(Duration::MAX)
        .start();
    app.wait_for_input();
    app.type_line("it").wait_for_output("got it");
}

#[test]
fn snapshot_settings_serve_other_snapshots() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    sh.type_line("echo one; echo two").wait_for_row(3, "$");
    let text = sh.read_output();
    assert_eq!(text, "$ echo one; echo two\none\ntwo\n$ ");
    let redactions = Redactions::new().literal("two", "[SECOND]");
    snapshot_settings(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"), &redactions)
        .bind(|| insta::assert_snapshot!("transcript", text));
    let stored = std::fs::read_to_string(snapshot_file("transcript")).unwrap();
    assert!(stored.ends_with("$ echo one; echo [SECOND]\none\n[SECOND]\n$\n"), "{stored:?}");
}

#[test]
fn colours_and_attributes_are_an_opt_in_section() {
    let script = r"printf 'plain \033[1;31mbold red\033[0m \033[7mreversed  \033[0m\n'; read x";
    let app = TestSession::builder("sh").args(["-c", script]).size(30, 3).start();
    app.wait_for_screen_text("reversed").wait_for_input().wait_stable();
    assert!(!app.snapshot().contains("styles"));
    let styled = app.styled_snapshot();
    // The reverse-video run covers the two blanks after the word: trailing blanks that show.
    assert!(
        styled.ends_with("styles:\n 0 │ cols 6-13: fg=red bold\n 0 │ cols 15-24: inverse\n"),
        "{styled}"
    );
    assert_screen_snapshot!("styles", app.with_styles());
}

/// A wait that cannot hold fails fast once the program waits for input with an unchanged
/// screen (2 s by default), not at its timeout; a busy program is waited for to the timeout.
#[test]
fn a_broken_wait_fails_fast_while_a_busy_program_is_waited_for() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    // The screen is unchanged from the prompt after "ready" on, so at least 2 s pass after
    // the line is typed; the broken wait itself ends soon after those 2 s.
    let typed = std::time::Instant::now();
    sh.type_line("echo ready").wait_for_screen_text("ready");
    let begun = std::time::Instant::now();
    let message = panic_message(|| {
        sh.wait_for_screen_text("a title that changed");
    });
    let took = begun.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}: {message}");
    let since_typed = typed.elapsed();
    assert!(since_typed >= Duration::from_secs(2), "took {since_typed:?}: {message}");
    assert!(message.contains("has waited for input with an unchanged screen for 2s"), "{message}");
    assert!(message.contains("screen:\n"), "{message}");
    // A program that sleeps before it prints is not stuck: the wait holds after 3 s.
    let begun = std::time::Instant::now();
    sh.type_line("sleep 3; echo slept-$((40 + 2))");
    sh.wait_for_screen_text("slept-42");
    assert!(begun.elapsed() >= Duration::from_secs(3));
    // Off, only the timeout ends a wait.
    let patient =
        TestSession::bash().stuck_after(None).timeout(Duration::from_millis(2500)).start();
    let message = panic_message(|| {
        patient.wait_for_screen_text("never");
    });
    assert!(message.contains("timed out after 2.5s"), "{message}");
}

/// A shell at its prompt while a background job runs is not stuck: the job may still print
/// (the wait failed after the grace, before the job's line came). Once the job has ended, a
/// wait that cannot hold fails fast again.
#[test]
fn a_background_job_is_waited_for() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().stuck_after(Some(Duration::from_millis(300))).start();
    sh.type_line("(sleep 1; echo background-done) &").wait_for_input();
    sh.wait_for_output("background-done");
    let message = panic_message(|| {
        sh.wait_for_screen_text("never");
    });
    assert!(message.contains("has waited for input with an unchanged screen"), "{message}");
    // A job that ends during a wait that cannot hold: the wait is stuck once it has ended
    // (it waited for its whole timeout).
    sh.type_line("(sleep 1) &").wait_for_input();
    let message = panic_message(|| {
        sh.wait_for_screen_text("never");
    });
    assert!(message.contains("has waited for input with an unchanged screen"), "{message}");
}

/// The session's own ways of typing (`submit`, `send_text`, `send_bytes`, reached through
/// the session the kit's handle derefs to) are the kit's too, and so is a paste ending with a
/// line end: a wait after them looks past the submitted line's echo.
/// (`submit("sleep 1; echo one")` then `wait_for_output("one")` matched the echo at once,
/// before the command printed; so did a paste of `pasted\n` and a wait for `pasted`.)
#[test]
fn every_way_of_typing_skips_the_echo_of_a_submitted_line() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    for (n, typed) in ["submit", "send_text", "send_bytes"].into_iter().enumerate() {
        let line = format!("sleep 0.5; echo out{n}");
        match typed {
            "submit" => sh.submit(&line),
            "send_text" => sh.send_text(&format!("{line}\\r")),
            _ => sh.send_bytes(format!("{line}\r").as_bytes()),
        };
        sh.wait_for_output(&format!("out{n}"));
        let screen = sh.screen();
        let printed = format!("out{n}");
        assert!(screen.lines.contains(&printed), "{typed}: {screen}");
        sh.wait_for_input();
    }
    // A paste that ends with a line end submits it too (cat reads it as a line, without
    // bracketed paste): the wait is for cat's copy, below the echo.
    let cat = TestSession::builder("sh").args(["-c", "read line; sleep 0.5; echo \"$line\""]);
    let cat = cat.start();
    cat.wait_for_input().paste("pasted\n").wait_for_output("pasted");
    let screen = cat.screen();
    assert_eq!(screen.lines.iter().filter(|line| *line == "pasted").count(), 2, "{screen}");
    // To bash, which asks for bracketed pastes, it submits nothing: the pasted line is shown
    // on its edit line, not skipped as the echo of a line run, and Enter runs it.
    if require("bash") {
        let sh = TestSession::bash().start();
        assert!(sh.screen().modes.bracketed_paste);
        sh.paste("echo $((6*7))\n").wait_for_output("echo $((6*7))");
        sh.type_line("").wait_for_output("42");
        // Enter with the cursor inside the line: the text after it is the line's too, no
        // answer (a wait for it matched the command line).
        sh.send_keys(&format!("true # zz-marker{}", "<Left>".repeat(9))).wait_for_input();
        sh.send_keys("<Enter>");
        let message = panic_message(|| {
            sh.wait_for_output("zz-marker");
        });
        assert!(message.contains("unchanged screen"), "{message}");
    }
}

/// A long typed line's echo is skipped however bash's readline lays it out for the terminal
/// it is told of: wrapped by the terminal (`xterm`, `vt100`, `linux`: `am` and `xenl`),
/// broken with CR LF at the margin (`ansi`: `am` without `xenl`), each piece a line of its
/// own, or scrolled sideways within its row (`dumb`: `<` and the line's end). Under `ansi`
/// and `dumb`, a wait for a word of the command's second row matched the echo at once (0.00 s,
/// against 2.01 s under `xterm` for a command printing it after 2 s), for the transcript and
/// the screen alike.
#[test]
fn the_echo_of_a_line_readline_breaks_or_scrolls_is_skipped() {
    if !require("bash") {
        return;
    }
    // Under `ansi` its rows are `$ sleep ... cc`, `cccccccc ... eeee; ` (its blank lost at
    // the break) and `echo marker-word`.
    let e = "e".repeat(17);
    let line =
        format!("sleep 0.5; : aaaaaaaaaa bbbbbbbbbb cccccccccc dddddddddd {e}; echo marker-word");
    for term in ["xterm", "vt100", "linux", "ansi", "dumb"] {
        marker_waits_last(term, &line, Duration::from_millis(500));
    }
}

/// Types `line` at a bash under `TERM=term`, 40 by 10, and waits for `marker-word` in its
/// output, then (at another bash) on its screen: each wait must last `least` (the command's
/// sleep, not its echo, which shows the word at once), and the screen show the word's line.
fn marker_waits_last(term: &str, line: &str, least: Duration) {
    for on_screen in [false, true] {
        let sh = TestSession::bash().env("TERM", term).size(40, 10).start();
        let started = std::time::Instant::now();
        sh.type_line(line);
        match on_screen {
            true => sh.wait_for_screen_text("marker-word"),
            false => sh.wait_for_output("marker-word"),
        };
        let (elapsed, screen) = (started.elapsed(), sh.screen());
        let what = format!("TERM={term}, {line:?}, screen {on_screen}: {elapsed:?}\n{screen}");
        assert!(elapsed >= least, "{what}");
        assert!(screen.lines.iter().any(|row| row == "marker-word"), "{what}");
    }
}

/// Under `TERM=ansi`, readline's break can put a blank at the start of the next row rather
/// than at the end of the row before, or split a run of blanks between the two: the echo
/// goes on from the blanks shown all the same, wherever the break falls (the `a`s move it
/// across the line's blanks: one blank, shifts 0 to 8; a run of four, shifts 3 to 14). With
/// the blank taken for lost at the break, the echo's second row read as output and the waits
/// returned at once (under 1 ms) for about one break in five; with a run taken as all lost
/// or all shown, at shifts 9, 10 and 11 of the run (1 blank of 4 shown, then 2, then 3).
#[test]
fn the_echo_goes_on_from_a_blank_readline_breaks_before() {
    if !require("bash") {
        return;
    }
    for (blanks, shifts) in [(1, 0..=8), (4, 3..=14)] {
        for shift in shifts {
            let (a, run) = ("a".repeat(12 + shift), " ".repeat(blanks));
            let line = format!("sleep 0.5; : {a}{run}bbbbbbbbbb; echo marker-word");
            marker_waits_last("ansi", &line, Duration::from_millis(500));
        }
    }
}

/// A screen wait blanks the rows of a long typed line's echo still shown once its first row
/// has scrolled off (the command's output pushed it up), whether the terminal wrapped the
/// line (`xterm`) or readline broke it (`ansi`). With no row of the line's start on the
/// screen, no echo was blanked: the wait matched it at once (3 ms).
#[test]
fn the_echo_is_skipped_on_the_screen_once_its_first_row_scrolled_off() {
    if !require("bash") {
        return;
    }
    let line = format!("seq 8; sleep 1; : {}; echo marker-word", "a".repeat(60));
    for term in ["xterm", "ansi"] {
        marker_waits_last(term, &line, Duration::from_secs(1));
    }
}

/// Whether keys submit a line is the engine's rule, which the kit's waits follow: to a
/// shell's `read` (the terminal reading whole lines, `ICRNL`), Alt-Enter, `ESC \r`, ends the
/// line `ESC` began, and the wait looks past its echo. Judged by the program's rule alone
/// (Alt-Enter is a new line in zsh's command), `wait_for_output("answer")` matched the echo
/// `answer^[` at once, before `read` returned and the shell printed `answer`.
#[test]
fn keys_the_line_discipline_ends_a_line_on_submit_it() {
    if !require("sh") {
        return;
    }
    let command = "read line; sleep 0.5; echo answer; read line";
    let sh = TestSession::builder("sh").args(["-c", command]).start();
    sh.wait_for_input().send_keys("answer<M-Enter>").wait_for_output("answer");
    let screen = sh.screen();
    let answers = screen.lines.iter().filter(|line| line.contains("answer")).count();
    assert_eq!(answers, 2, "matched before the shell's answer: {screen}");
}

/// The kit keeps where a wait found the echo of the line last submitted for its later
/// waits, which look nowhere else. Each looked for it again: once the line typed on had
/// scrolled out of the transcript (10,000 lines), the first later line holding the typed
/// text, the answer `finished job`, was taken for the echo, and the wait for it never ended.
#[test]
fn the_answer_is_no_echo_once_the_line_typed_on_scrolled_away() {
    if !require("sh") || !require("seq") {
        return;
    }
    let sh = TestSession::builder("sh")
        .args(["-c", "read x; seq 20000; echo \"finished $x\"; read y"])
        .timeout(Duration::from_secs(30))
        .start();
    sh.wait_for_input();
    sh.type_line("job");
    sh.wait_for_output("19999");
    sh.wait_for_output("finished job");
}

/// A wait begun once the line typed on has left the transcript (`seq 100000` printed after
/// `job` was typed, no wait between), the echo never looked for: the lines dropped unsearched
/// may have held it, so no later line is taken for it, and `finished job` is the answer. A
/// second program tells when the flood is written (its `cat` of a FIFO the first writes to
/// after it): the flood is then read but for what the terminal holds.
#[test]
fn the_answer_is_no_echo_when_the_wait_begins_after_the_line_typed_on_scrolled_away() {
    if !require("sh") || !require("seq") || !require("mkfifo") || !require("cat") {
        return;
    }
    let fifo = std::env::temp_dir().join(format!("termloom-kit-flood-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let script = format!(
        "read x; seq 100000; echo \"finished $x\"; echo flooded > '{}'; read y",
        fifo.display()
    );
    let sh =
        TestSession::builder("sh").args(["-c", &script]).timeout(Duration::from_secs(30)).start();
    let told = TestSession::builder("cat")
        .args([fifo.as_os_str()])
        .timeout(Duration::from_secs(30))
        .start();
    sh.wait_for_input();
    sh.type_line("job");
    told.wait_for_output("flooded");
    sh.wait_for_output("finished job");
    let _ = std::fs::remove_file(&fifo);
}

/// A program that rewrites the line it was answered on (`* Name: done` over `Name: done`):
/// the rewritten line is the answer, not the echo. A wait after the rewrite took it for the
/// echo, found there again, and timed out.
#[test]
fn a_line_the_program_rewrites_after_its_echo_is_an_answer() {
    if !require("sh") {
        return;
    }
    let script = "printf 'Name: '; read x; printf '\\033[A\\r\\033[K* Name: %s\\n' \"$x\"; \
                  echo end; read y";
    let sh =
        TestSession::builder("sh").args(["-c", script]).timeout(Duration::from_secs(30)).start();
    sh.wait_for_input();
    sh.type_line("done");
    sh.wait_for_output("end");
    sh.wait_until(Until::regex(r"\* Name: done").unwrap());
}

/// A program that redraws the line typed on (`* Name: done` over `Name: done`), then answers
/// with the typed text on a later line: the answer `got done` was taken for the echo when no
/// look came between the echo and the redraw (8 of 20 runs timed out). Tried twenty times.
#[test]
fn an_answer_after_the_line_typed_on_is_redrawn_is_no_echo() {
    if !require("sh") {
        return;
    }
    let script = "printf 'Name: '; read x; printf '\\033[A\\r\\033[K* Name: %s\\n' \"$x\"; \
                  echo \"got $x\"; read y";
    for _ in 0..20 {
        let sh = TestSession::builder("sh")
            .args(["-c", script])
            .timeout(Duration::from_secs(30))
            .start();
        sh.wait_for_input();
        sh.type_line("done");
        sh.wait_for_output("got done");
    }
}

/// `press` returns once the program has answered the keys (waiting for input again, its
/// screen still); `resize_and_wait` once it has redrawn at the new size.
#[test]
fn press_and_resize_wait_for_the_program_to_answer() {
    if !require("vim") {
        return;
    }
    let lines: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    let vim = TestSession::builder("vim")
        .file("notes.txt", lines)
        .args(["-u", "NONE", "-N", "-n", "-i", "NONE", "notes.txt"])
        .start();
    vim.wait_for_input();
    // After the Escape, vim waits for the rest of a key code before it leaves insert mode:
    // the press returns only then.
    vim.press("ihello <Esc>");
    let screen = vim.screen();
    assert!(screen.lines[0].starts_with("hello line 1"), "{screen}");
    assert!(!screen.contains("-- INSERT --"), "{screen}");
    vim.resize_and_wait(60, 10);
    let screen = vim.screen();
    assert_eq!((screen.cols, screen.rows), (60, 10));
    assert!(screen.lines[8].starts_with("line 9"), "vim redrew at the new size: {screen}");
    vim.send_keys(":q!<Enter>");
    vim.wait_for_exit();
    vim.assert_terminal_restored();
}

/// `press("<Esc><Esc>")` types the second Escape within the program's wait for a key code's
/// rest, as a person's second press (and as MCP `keys` and `run --keys` type it): mc takes
/// `Esc Esc` for one cancel. The kit typed it only once mc had answered the first, which mc
/// does when its 1 s timer after a lone Escape runs out: the first closed mcedit's search
/// dialog, the second quit mcedit.
#[test]
fn an_escape_after_an_escape_comes_as_a_persons_second_press() {
    if !require("mcedit") {
        return;
    }
    let mcedit = TestSession::builder("mcedit")
        .file("notes.txt", "first line\n")
        .args(["notes.txt"])
        .size(80, 24)
        .timeout(Duration::from_secs(30))
        .start();
    mcedit.wait_for_screen_text("first line").wait_for_input();
    mcedit.press("<F7>").wait_for_screen_text("Enter search string");
    mcedit.press("<Esc><Esc>");
    let screen = mcedit.screen();
    let dialog = screen.contains("Enter search string");
    assert!(screen.contains("first line") && !dialog, "mcedit quit, or kept its dialog: {screen}");
    mcedit.press("<F10>");
    mcedit.wait_for_exit();
}

/// `send_text` ending in Escapes types them as MCP `terminal_send` does: the text, then each
/// Escape once the one before is read (`x\e` was one write, which a program reading 0.2 s
/// after its terminal is readable read as one, Alt-x's bytes the other way round; `x\e\e`
/// too). `press("<Esc>")` to a program that never waits for input (it polls the terminal
/// between the frames of its 50 ms clock) returns once it read the Escape and went on: it
/// waited for the program to wait for input, and failed at the kit's timeout (so did the
/// Escape of `press("<Esc>q")`, before its `q`). Each program
/// prints each read in hex on a row of its own.
#[test]
fn escapes_ending_text_and_keys_after_an_escape_are_read_apart() {
    if !require("python3") {
        return;
    }
    // (`timeout`: the longest wait for the terminal to be readable; `slow`: how long after
    // it the program reads; `clock`: what it does on each round.)
    let program = |timeout: &str, slow: &str, clock: &str| {
        format!(
            "import os, select, sys, time, tty\n\
             tty.setraw(0)\n\
             sys.stdout.write('ready'); sys.stdout.flush()\n\
             row, tick = 2, 0\n\
             while True:\n\
             \x20   tick += 1\n\
             \x20   {clock}\n\
             \x20   if select.select([0], [], [], {timeout})[0]:\n\
             \x20       time.sleep({slow})\n\
             \x20       sys.stdout.write(f'\\x1b[{{row}};1H' + os.read(0, 64).hex())\n\
             \x20       sys.stdout.flush()\n\
             \x20       row += 1\n"
        )
    };
    let slow = program("None", "0.2", "pass");
    let waits = program("None", "0", "pass");
    let clock = "sys.stdout.write(f'\\x1b[1;1H\\x1b[2Ktick {tick}'); sys.stdout.flush()";
    let never_waits = program("0.05", "0", clock);
    type Typing = dyn Fn(&TestSession);
    let cases: [(&str, &Typing, &[&str]); 3] = [
        (&slow, &|s| drop_ref(s.send_text("x\\e")), &["78", "1b"]),
        (&waits, &|s| drop_ref(s.send_text("x\\e\\e")), &["78", "1b", "1b"]),
        (&never_waits, &|s| drop_ref(s.press("<Esc>").send_keys("q")), &["1b", "71"]),
    ];
    for (script, typing, reads) in cases {
        let session = TestSession::builder("python3")
            .args(["-c", script])
            .size(40, 8)
            .timeout(Duration::from_secs(8))
            .start();
        session.wait_until(Until::screen_regex("ready|tick").unwrap());
        typing(&session);
        let last = reads.len();
        session.wait_until(Until::screen_row_contains(last as u16, reads[last - 1]));
        let screen = session.screen();
        let read: Vec<&str> = screen.lines[1..=last].iter().map(|l| l.trim_end()).collect();
        assert_eq!(read, reads, "{screen}");
    }
}

/// Ignores what a kit call returns (the session, for chaining).
fn drop_ref(_: &TestSession) {}

/// A program that leaves the alternate screen, a hidden cursor or an input mode behind fails
/// `assert_terminal_restored`, which names each.
#[test]
fn a_terminal_left_in_a_full_screen_mode_is_reported() {
    let script =
        "printf '\\033[?1049h\\033[?25l\\033[?2004h\\033[?1000h'; stty -echo -icanon; exit 0";
    let sloppy = TestSession::builder("sh").args(["-c", script]).start();
    sloppy.wait_for_exit();
    let message = panic_message(|| sloppy.assert_terminal_restored());
    for what in [
        "the alternate screen is still shown",
        "the cursor is hidden",
        "mouse reporting is on",
        "bracketed paste is on",
        "echo is off",
        "canonical input is off",
    ] {
        assert!(message.contains(what), "{what}: {message}");
    }
    assert!(!message.contains("application cursor keys"), "{message}");
    // The program printed no line: the message has no empty transcript section.
    assert!(!message.contains("transcript lines"), "{message}");
}

/// One call waits for a text, for the program to wait for input and for the screen to settle,
/// then snapshots.
#[test]
fn one_call_waits_settles_and_snapshots() {
    let sh =
        TestSession::builder("sh").args(["-c", "sleep 0.3; printf 'ready\\n'; read line"]).start();
    assert_screen_snapshot!("after_ready", sh, after = "ready");
    assert!(snapshot_file("after_ready").exists());
}

/// A program that prints its result and exits is snapshotted after its text too: its screen
/// is final (the wait for input failed with "the program exited"); so does a settle wait
/// after the exit hold (it failed the same way).
#[test]
fn after_takes_a_program_that_exited() {
    let sh = TestSession::builder("sh").args(["-c", "printf 'result: 42\\n'"]).start();
    assert_screen_snapshot!("after_exit", sh, after = "result: 42");
    assert!(sh.wait_for_exit().success());
    sh.wait_stable();
    assert!(snapshot_file("after_exit").exists());
}

/// The one-call form also works unnamed, named after the test.
#[test]
fn an_unnamed_snapshot_can_wait_after_a_text() {
    let sh =
        TestSession::builder("sh").args(["-c", "sleep 0.3; printf 'ready\\n'; read line"]).start();
    assert_screen_snapshot!(sh, after = "ready");
    assert!(snapshot_file("an_unnamed_snapshot_can_wait_after_a_text").exists());
}

/// `bin!` starts a binary of the package under test by its name.
#[test]
fn bin_starts_the_packages_own_binary() {
    let help = termloom::testing::bin!("termloom").args(["run", "--help"]).start();
    help.wait_for_output("--wait-screen");
    assert_eq!(help.wait_for_exit(), termloom::ExitStatus::Code(0));
}

/// A snapshot is never taken inside an open synchronized update (mode 2026): the screen is
/// read at the frame's end.
#[test]
fn a_snapshot_waits_for_the_end_of_a_synchronized_frame() {
    let script = "printf '\\033[?2026hhalf'; sleep 0.1; printf ' and whole\\033[?2026l'; read x";
    let app = TestSession::builder("sh").args(["-c", script]).start();
    // The first half is output before the frame ends; the screen is only read after.
    app.wait_for_output("half");
    let screen = app.screen();
    assert!(screen.contains("half and whole"), "{screen}");
}

/// A selection moved by a key changes only colours: the text was on the screen all along.
#[test]
fn a_change_shown_only_by_colour_is_waited_for() {
    let script = "printf '\\033[?1049h\\033[H one\\n\\033[7m two \\033[0m\\n three \\n'; read x; \
                  printf '\\033[2;1H two \\033[3;1H\\033[7m three \\033[0m'; read y";
    let menu = TestSession::builder("sh").args(["-c", script]).start();
    menu.wait_for_highlight("two");
    assert!(menu.styled_screen().find_highlighted("three").is_none());
    menu.send_keys("<Enter>");
    menu.wait_for_highlight("three");
    let styled = menu.styled_screen();
    assert!(styled.find_highlighted("two").is_none(), "{styled}");
    assert_eq!(styled.find_highlighted("three").map(|p| (p.row, p.col)), Some((2, 1)));
}

/// A failed wait for colours shows the styles it looked at, not a plain screen that hides
/// them: here the selection is underlined, not highlighted.
#[test]
fn a_failed_styled_wait_shows_the_styles() {
    let script = "printf '\\033[?1049h\\033[H one\\n\\033[4m two \\033[0m\\n'; read x";
    let menu = TestSession::builder("sh")
        .args(["-c", script])
        .stuck_after(Some(Duration::from_millis(300)))
        .start();
    menu.wait_for_screen_text("two").wait_for_input();
    let message = panic_message(|| {
        menu.wait_for_highlight("two");
    });
    assert!(message.contains("\"two\" highlighted"), "{message}");
    assert!(message.contains("\nstyles:\n 1 │ cols 0-4: underline\n"), "{message}");
}

/// A failure names one transcript line in the singular.
#[test]
fn a_failure_with_one_transcript_line_says_so() {
    let sh = TestSession::builder("sh").args(["-c", "echo boom; exit 3"]).start();
    let message = panic_message(|| sh.wait_for_success());
    assert!(message.contains("\nlast transcript line:\n  | boom\n"), "{message}");
}

/// Redactions touch the rows (and title), never the size line; a mask keeps the columns.
#[test]
fn masks_keep_columns_and_the_header_is_never_redacted() {
    let script = "echo \"size 80x24 | $(date +%T) | ok\"; read x";
    let app = TestSession::builder("sh")
        .args(["-c", script])
        .redact(Redactions::new().regex(r"\d+x\d+", "[SIZE]").mask(r"\d\d:\d\d:\d\d"))
        .start();
    app.wait_for_screen_text("| ok").wait_for_input();
    assert_screen_snapshot!("masked", app);
    let stored = std::fs::read_to_string(snapshot_file("masked")).unwrap();
    assert!(stored.contains("\nscreen: 80x24, primary\n"), "{stored}");
    assert!(stored.contains(" 0 │size [SIZE] | ▒▒▒▒▒▒▒▒ | ok\n"), "{stored}");
}

/// `SnapshotFolder::Insta` leaves the folder and naming to insta's settings in effect.
#[test]
fn snapshots_can_follow_insta_settings() {
    let app = TestSession::builder("sh")
        .args(["-c", "echo in the folder insta picks; read x"])
        .snapshot_folder(termloom::testing::SnapshotFolder::Insta)
        .start();
    app.wait_for_screen_text("insta picks").wait_for_input();
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        assert_screen_snapshot!("insta_folder", app);
    });
    // Not `testing_kit__insta_folder.snap`, as the crate-root folder would name it.
    let stored = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/insta_folder.snap");
    assert!(stored.exists(), "{}", stored.display());
}

/// A failed wait, and a failed snapshot, leave an SVG picture of the screen in the target
/// directory, with its path in the message (on stderr for a snapshot).
#[test]
fn failures_leave_a_picture_of_the_screen() {
    let app = TestSession::builder("sh")
        .args(["-c", "printf '\\033[31mred text\\033[0m\\n'; read x"])
        .stuck_after(Some(Duration::from_millis(300)))
        .start();
    let message = panic_message(|| {
        app.wait_for_screen_text("never shown");
    });
    let path = message
        .lines()
        .find_map(|line| line.strip_prefix("picture of the screen: "))
        .unwrap_or_else(|| panic!("no picture in: {message}"));
    assert!(path.contains("/termloom-screens/"), "{path}");
    let svg = std::fs::read_to_string(path).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains(">red text</tspan>"), "{svg}");
    assert!(svg.contains("fill=\"#cd0000\""), "red: {svg}");

    let dir = Path::new(path).parent().unwrap().to_owned();
    let before = std::fs::read_dir(&dir).unwrap().count();
    let _ = panic_message(|| {
        let _guard = termloom::testing::__PictureOnFailure(Some(app.styled_screen()));
        panic!("a snapshot mismatch");
    });
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before + 1);
}

/// A wait whose very condition is stillness holds on an idle program however long it is,
/// longer than the stuck grace too: the program waiting for input is what it waits for.
#[test]
fn a_settle_or_quiet_wait_longer_than_the_stuck_grace_holds() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash()
        .settle(Duration::from_millis(1200))
        .stuck_after(Some(Duration::from_millis(400)))
        .start();
    sh.type_line("echo hi");
    sh.wait_for_output("hi");
    sh.wait_stable();
    sh.wait_until(Until::quiet(Duration::from_millis(1200)));
    sh.wait_until(Until::any(vec![
        Until::screen_contains("never shown"),
        Until::stable(Duration::from_millis(1200)),
    ]));
    // `press` settles the same way.
    sh.press("<C-l>");
    // A wait for something else is still stuck after the grace.
    let message = panic_message(|| {
        sh.wait_for_screen_text("never shown");
    });
    assert!(message.contains("has waited for input with an unchanged screen"), "{message}");
}

/// Redactions see a text that wraps over two rows: the session's `HOME` printed across a
/// soft wrap is redacted, and the logical line is laid out again at the terminal's width.
#[test]
fn a_redaction_spans_a_soft_wrapped_line() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().size(30, 6).start();
    let home = sh.home().display().to_string();
    // (A `:` before the HOME: a path is replaced where it begins, not after a digit.)
    sh.type_line("echo \"1234567890123456789:$HOME/x\"");
    // The command wraps over rows 0 and 1, its output over rows 2 and 3.
    sh.wait_for_output("/x").wait_for_row(4, "$").wait_for_input().wait_stable();
    let screen = sh.screen();
    assert!(screen.lines[2].starts_with("1234567890123456789:/"), "{screen}");
    assert!(!screen.lines[2].contains(&home), "the HOME wraps: {screen}");
    let text = termloom::testing::SnapshotSource::redacted_snapshot_text(&sh);
    let tail = &home[home.len() - 6..];
    assert!(!text.contains(tail), "{text}");
    assert!(text.contains(" 2 │1234567890123456789:[HOME]/x\n 3 │\n 4 │$\n"), "{text}");
    assert_screen_snapshot!("wrapped_home", sh);
    assert_screen_snapshot!("wrapped_home_styled", sh.with_styles());
}

/// A press whose key ends the program returns once it has exited (its screen is then
/// final); a wait that the exit ends says so once ("waiting for input", not "waiting for
/// waiting for input").
#[test]
fn a_press_that_ends_the_program_returns() {
    if !require("less") {
        return;
    }
    let less = TestSession::builder("less").file("f", "one\ntwo\n").arg("f").start();
    less.wait_for_screen_text("one").wait_for_input();
    less.press("q");
    assert_eq!(less.wait_for_exit(), termloom::ExitStatus::Code(0));
    let message = panic_message(|| {
        less.wait_for_input();
    });
    assert!(message.contains("the program exited (exit code 0) waiting for input in `less f`"));
    assert!(!message.contains("waiting for waiting"), "{message}");
}

/// `after =` works with every session source, the styled one included, and the macro
/// evaluates its source once.
#[test]
fn after_works_with_styles_and_evaluates_the_source_once() {
    let app = TestSession::builder("sh")
        .args(["-c", "sleep 0.3; printf '\\033[1mready\\033[0m\\n'; read line"])
        .start();
    let mut evaluated = 0;
    assert_screen_snapshot!(
        "after_ready_styled",
        {
            evaluated += 1;
            app.with_styles()
        },
        after = "ready"
    );
    assert_eq!(evaluated, 1);
    let stored = std::fs::read_to_string(snapshot_file("after_ready_styled")).unwrap();
    assert!(stored.contains("styles:\n 0 │ cols 0-4: bold\n"), "{stored}");
}

/// A snapshot of a plain `Screen` also leaves a picture when it fails.
#[test]
fn a_plain_screen_snapshot_has_a_picture() {
    let app = TestSession::builder("sh").args(["-c", "echo plain; read x"]).start();
    app.wait_for_screen_text("plain");
    let screen = app.screen();
    let picture = termloom::testing::SnapshotSource::snapshot_picture(&screen)
        .expect("a picture of a plain screen");
    assert!(picture.to_svg(&termloom::SvgOptions::default()).contains(">plain</tspan>"));
}

/// A failure of the kit's own calls names the test's line, not a line of the kit: a start
/// that fails, a key script the kit refuses, a bad pattern.
#[test]
fn failures_name_the_tests_line() {
    let line = line!();
    let at = panic_location(|| {
        TestSession::builder("sh").cwd("no-such-directory").start();
    });
    assert_eq!(at, format!("{}:{}", file!(), line + 2));
    let app = TestSession::builder("sh").args(["-c", "echo ready; read x"]).start();
    app.wait_for_screen_text("ready").wait_for_input();
    let line = line!();
    let at = panic_location(|| {
        app.send_keys("<NoSuchKey>");
    });
    assert_eq!(at, format!("{}:{}", file!(), line + 2));
    let line = line!();
    let at = panic_location(|| {
        app.wait_for_regex("(unclosed");
    });
    assert_eq!(at, format!("{}:{}", file!(), line + 2));
}

/// The temporary `HOME` has the same length whatever `TMPDIR` says, so a program that prints
/// it wraps and cuts its lines the same way on every machine. The test runs itself again with
/// a long `TMPDIR`; the run inside prints `HOME` in a session.
#[test]
fn the_home_does_not_depend_on_tmpdir() {
    const INSIDE: &str = "TERMLOOM_KIT_TEST_LONG_TMPDIR";
    if std::env::var_os(INSIDE).is_some() {
        let app =
            TestSession::builder("sh").args(["-c", "printf '<%s>\\n' \"$HOME\"; read x"]).start();
        app.wait_for_screen_text(">").wait_for_input();
        let shown = app.screen().lines[0].clone();
        assert!(shown.starts_with("</tmp/termloom-home-"), "{shown}");
        assert_eq!(shown.len(), "</tmp/termloom-home-0000000-0000>".len(), "{shown}");
        return;
    }
    let long = common::TestDir::new("a-temporary-directory-with-a-much-longer-name");
    let inside = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "the_home_does_not_depend_on_tmpdir", "--nocapture"])
        .env(INSIDE, "1")
        .env("TMPDIR", &*long)
        .output()
        .unwrap();
    let output = String::from_utf8_lossy(&inside.stdout);
    assert!(inside.status.success(), "{output}{}", String::from_utf8_lossy(&inside.stderr));
    assert!(output.contains("1 passed"), "{output}");
}

/// A replacement that changes a row's length moves the styled runs after it with the text:
/// the `styles:` section does not depend on how long the redacted value was.
#[test]
fn styles_move_with_a_redacted_text() {
    let styled = |millis: &str| {
        let script = format!(
            "printf 'took {millis}ms \\033[32mok\\033[0m {millis}\\033[7mms\\033[0m\\n'; read x"
        );
        let app = TestSession::builder("sh")
            .args(["-c", &script])
            .size(40, 3)
            .redact(Redactions::new().durations())
            .start();
        app.wait_for_screen_text("ok").wait_for_input();
        termloom::testing::SnapshotSource::redacted_snapshot_text(&app.with_styles())
            .replace(&format!("'took {millis}ms"), "'took ...ms")
            .replace(&format!(" {millis}\\033"), " ...\\033")
    };
    let short = styled("5");
    assert!(short.contains(" 0 │took [DURATION] ok [DURATION]\n"), "{short}");
    assert!(
        short.ends_with("styles:\n 0 │ cols 16-17: fg=green\n 0 │ cols 19-28: inverse\n"),
        "{short}"
    );
    assert_eq!(styled("123456"), short);
}

/// A program that redraws the same frame on every tick of a short timer while it waits for
/// keys (ratatui's `event::poll(tick)` loop: each frame writes at least the cursor) waits for
/// input: `press` and `wait_for_input` return, not at their timeout.
#[test]
fn press_returns_for_a_program_that_redraws_on_a_timer() {
    if !require("python3") {
        return;
    }
    let script = "import os, select, tty\n\
                  tty.setraw(0)\n\
                  keys = 0\n\
                  while True:\n    \
                      os.write(1, f'\\x1b[H\\x1b[?25hkeys: {keys} '.encode())\n    \
                      if select.select([0], [], [], 0.25)[0]:\n        \
                          if os.read(0, 1) == b'q': break\n        \
                          keys += 1\n";
    let app = TestSession::builder("python3")
        .args(["-c", script])
        .timeout(Duration::from_secs(5))
        .start();
    app.wait_for_screen_text("keys: 0").wait_for_input();
    app.press("a");
    assert!(app.screen().contains("keys: 1"), "{}", app.screen());
    app.press("bc");
    assert!(app.screen().contains("keys: 3"), "{}", app.screen());
    app.press("q");
    app.wait_for_success();
}

/// A `press` the program never answers fails naming the keys and what it waited for.
#[test]
fn a_press_that_is_never_answered_names_the_keys() {
    let busy = TestSession::builder("sh")
        .args(["-c", "stty raw -echo; while :; do printf 'busy\\r'; done"])
        .timeout(Duration::from_millis(500))
        .start();
    busy.wait_for_screen_text("busy");
    let message = panic_message(|| {
        busy.press("j");
    });
    assert!(
        message.contains(
            "timed out after 500ms waiting for the program to answer press(\"j\") (to wait for input again with a still screen, or to exit) in `sh -c"
        ),
        "{message}"
    );
}

/// A wait for a row or a cursor position outside the screen fails at once, saying so, not
/// after the stuck grace (or, for a busy program, the timeout) with another reason.
#[test]
fn a_wait_outside_the_screen_fails_at_once() {
    let program = "echo hi; printf '\\033[10;1Hend'; read x";
    let app = TestSession::builder("sh").args(["-c", program]).size(40, 10).start();
    app.wait_for_screen_text("end").wait_for_input();
    let begun = std::time::Instant::now();
    let message = panic_message(|| {
        app.wait_for_row(10, "hi");
    });
    assert!(message.contains("screen row 10 is off the 40x10 screen"), "{message}");
    assert!(message.contains("sh -c"), "{message}");
    assert!(message.contains(" 0 │hi\n"), "{message}");
    let message = panic_message(|| {
        app.wait_for_cursor(1, 40);
    });
    assert!(message.contains("row 1, col 40 is off the 40x10 screen"), "{message}");
    assert!(begun.elapsed() < Duration::from_secs(1), "{:?}", begun.elapsed());
    // The last row and the cursor's column after `end` are on the screen.
    app.wait_for_row(9, "end").wait_for_cursor(9, 3);
}

/// `wait_for_output` looks at what the program printed after the last input: not at an
/// earlier answer, nor at the echo of the typed line; the handle's own reads are apart.
#[test]
fn output_waits_look_past_earlier_answers_and_the_echo() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    sh.type_line("echo 42");
    // Each line is typed once the shell reads again (as the kit's guide says: a line typed
    // while the shell is still busy is echoed twice, by the terminal and by the line editor).
    sh.wait_for_output("42").wait_for_input();
    // Only the new answer matches: it comes half a second after the line is typed (timed
    // from before the typing: the shell may read the line before `type_line` returns).
    let started = std::time::Instant::now();
    sh.type_line("sleep 0.5; echo 42");
    sh.wait_for_output("42").wait_for_input();
    assert!(started.elapsed() >= Duration::from_millis(500), "{:?}", started.elapsed());
    let started = std::time::Instant::now();
    sh.type_line("sleep 0.5; echo done");
    sh.wait_for_output("done");
    assert!(started.elapsed() >= Duration::from_millis(500), "the echo: {:?}", started.elapsed());
    // The kit's waits moved no position of the handle's: its read has it all.
    let read = sh.read().unwrap().text;
    assert!(read.contains("echo 42\n42\n") && read.contains("\ndone\n"), "{read}");
}

/// A size the terminal cannot have is told as the size given, not as the engine's settings.
#[test]
fn a_bad_size_names_the_size_given() {
    let message = panic_message(|| {
        TestSession::builder("true").size(0, 0).start();
    });
    assert!(
        message.contains("size(0, 0)") && message.contains("invalid terminal size"),
        "{message}"
    );
    assert!(!message.contains("configuration"), "{message}");
}

/// `TestSession::bash()` with a prompt of the test's own starts once that prompt is drawn:
/// it waited for a `$` on the screen, so `\u@\h:\w\$ ` (which shows `#` for root) or `> `
/// failed the start after the stuck grace.
#[test]
fn bash_starts_with_a_prompt_of_its_own() {
    if !require("bash") {
        return;
    }
    for ps1 in ["> ", r"\u:\w\$ ", "% "] {
        let sh = TestSession::bash().env("PS1", ps1).start();
        sh.type_line("echo $((6 * 7))");
        sh.wait_for_output("42").wait_for_input();
        assert!(sh.screen().lines[0].ends_with("echo $((6 * 7))"), "{}", sh.snapshot());
    }
    // With no prompt at all, or one that draws nothing (escape sequences alone), the start
    // waits for bash to read.
    for ps1 in ["", r"\[\e[0m\]"] {
        let sh = TestSession::bash().env("PS1", ps1).start();
        sh.type_line("echo $((6 * 7))");
        sh.wait_for_output("42");
    }
}

/// `wait_for_screen` returns the screen its test held for: it read the screen again after
/// the wait, so a program still drawing (here a counter) gave a screen the test did not
/// hold for, about every other time.
#[test]
fn wait_for_screen_returns_the_screen_that_held() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    sh.type_line("while :; do printf '\\r%05d' $RANDOM; done");
    let even = |screen: &termloom::Screen| {
        let number = screen.lines.get(1).and_then(|row| row.trim().parse::<u32>().ok());
        number.is_some_and(|n| n % 2 == 0)
    };
    for _ in 0..20 {
        let screen = sh.wait_for_screen("an even number on row 1", even);
        assert!(even(&screen), "{}", termloom::testing::format_screen(&screen));
    }
    sh.send_keys("<C-c>");
}

/// `keep_env` keeps a host variable whose name looks like a credential: the engine left it
/// out, so the session saw it unset though the test named it. (The host variable is set by
/// running this test again in a process of its own.)
#[test]
fn a_kept_variable_is_kept_even_if_it_looks_like_a_credential() {
    if !require("sh") {
        return;
    }
    const NAME: &str = "KIT_API_TOKEN";
    if std::env::var_os(NAME).is_none() {
        let rerun = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_kept_variable_is_kept_even_if_it_looks_like_a_credential"])
            .env(NAME, "kept-by-name")
            .output()
            .unwrap();
        let output = String::from_utf8_lossy(&rerun.stdout);
        assert!(rerun.status.success(), "{output}{}", String::from_utf8_lossy(&rerun.stderr));
        assert!(output.contains("1 passed"), "{output}");
        return;
    }
    let script = "echo \"kept=${KIT_API_TOKEN:-unset}\"; read x";
    let kept = TestSession::builder("sh").args(["-c", script]).keep_env(NAME).start();
    kept.wait_for_output("kept=").wait_for_input();
    assert_eq!(kept.screen().lines[0], "kept=kept-by-name");
    // Not named: left out, as every host variable but a few.
    let left_out = TestSession::builder("sh").args(["-c", script]).start();
    left_out.wait_for_output("kept=").wait_for_input();
    assert_eq!(left_out.screen().lines[0], "kept=unset");
    // Kept and denied at once: the contradiction is refused, not settled without a word.
    let denied = Config { env_deny: vec![NAME.into()], ..Config::default() };
    let message = panic_message(|| {
        TestSession::builder("sh").args(["-c", script]).config(denied).keep_env(NAME).start();
    });
    assert!(message.contains("env_deny") && message.contains(NAME), "{message}");
}

/// `snapshot_settings` refuses masks, which insta filters cannot apply: they were left out
/// without a word, and the snapshot kept what the test meant to mask.
#[test]
fn snapshot_settings_refuse_masks_they_cannot_apply() {
    let masked = Redactions::new().clock_times().mask(r"\d\d:\d\d");
    let message = panic_message(|| {
        let _ = snapshot_settings(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"), &masked);
    });
    assert!(message.contains("cannot mask") && message.contains("Redactions::apply"), "{message}");
    // Replacements alone are filters.
    let _ = snapshot_settings(
        concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        &Redactions::new().clock_times(),
    );
}

/// A file of the crate named by its absolute path (`concat!(env!("CARGO_MANIFEST_DIR"), ...)`)
/// put the checkout's path in the command line, and so in every snapshot's description and
/// failure message: it reads `[CRATE]`, the same on every machine.
#[test]
fn the_command_line_names_the_crates_files_as_crate() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let app =
        TestSession::builder("sh").args(["-c", "head -n 1 \"$1\"; read x", "sh", file]).start();
    app.wait_for_screen_text("[package]").wait_for_input();
    assert_eq!(app.command(), "sh -c 'head -n 1 \"$1\"; read x' sh [CRATE]/Cargo.toml");
}

/// The kit's `send_secret` (its own path: the request that answers the line an input was
/// typed on), as `engine.rs`'s `a_secret_is_typed_only_at_a_password_prompt_and_seen_nowhere`
/// checks the session's: typed only at a password prompt, its length not in the bytes typed,
/// in no failure message, and the line it was typed on taken as not echoed, so the answer
/// printed on that line after it (echo is off: its Enter moved no cursor) is no echo.
#[test]
fn the_kits_secret_is_typed_only_at_a_password_prompt_and_seen_nowhere() {
    let script = "stty -echo; printf 'Password: '; read -r pw; stty echo; \
                  printf 'got %s chars\\n' \"${#pw}\"; read x";
    let kit = TestSession::builder("sh").args(["-c", script]).start();
    kit.wait_for_input();
    assert_eq!(kit.session().status().unwrap().input_kind, Some(termloom::InputKind::Password));
    let refused = panic_message(|| {
        kit.send_secret("two\nlines");
    });
    assert!(!refused.contains("two") && !refused.contains("lines"), "{refused}");
    let typed = kit.session().info().unwrap().bytes_in;
    kit.send_secret("hunter2");
    // On the password line itself: a line taken as echoed would have had it for the echo.
    kit.wait_for_output("got 7 chars");
    assert!(kit.screen().text().contains("Password: got 7 chars"), "{}", kit.snapshot());
    assert_eq!(kit.session().info().unwrap().bytes_in, typed + 1);
    kit.wait_for_input();
    // Echo is back on: a secret now would be shown, so it is refused, naming no secret.
    let refused = panic_message(|| {
        kit.send_secret("hunter2");
    });
    assert!(refused.contains("echo"), "{refused}");
    assert!(!refused.contains("hunter2"), "{refused}");
    let scrollback = kit.session().scrollback(1 << 20).unwrap().text;
    let raw = kit.session().raw_output().unwrap().bytes;
    assert!(!scrollback.contains("hunter2"), "{scrollback}");
    assert!(!String::from_utf8_lossy(&raw).contains("hunter2"));
}

/// The kit's `send_secret` right after the prompt shows, as a test writes it: python3's
/// `getpass` prints its prompt and turns echo off a few milliseconds before it reads, and the
/// secret was refused then (within 30 rounds, every run). It waits for the reader, and is
/// typed every time, its answer found past it. (The prompt is split in the command, so its
/// echo does not match.)
#[test]
fn the_kits_secret_sent_as_the_prompt_shows_waits_for_its_reader() {
    if !require("python3") {
        return;
    }
    let kit = TestSession::builder("sh").start();
    kit.wait_for_input();
    for round in 0..30 {
        kit.submit(&format!(
            "python3 -c \"import getpass; p = getpass.getpass('Pass' 'word-{round}: '); \
             print('got-' + p + '-end-{round}')\""
        ));
        kit.wait_for_screen_text(&format!("Password-{round}: "));
        kit.send_secret("hunter2");
        kit.wait_for_output(&format!("got-hunter2-end-{round}"));
    }
}

/// `ls -l` shows a recent file's time to the minute and an older one's year after the month
/// and the day: `short_times` and `month_days` replace them (`clock_times` takes only times
/// with seconds), `file_times` masks the listing's twelve cells whole, whatever the file's age;
/// a position such as `main.rs:12:30`, and times next to each other, are handled apart.
#[test]
fn times_to_the_minute_and_listing_dates_are_redacted() {
    let script = "chmod 644 new.txt old.txt; touch -d '2020-01-02 03:04' old.txt; \
                  ls -l new.txt old.txt | cut -d' ' -f1,2,5-; \
                  echo 'at main.rs:12:30, 09:41:07 then 19:03 19:04; 4 items'; read x";
    let builder = || {
        TestSession::builder("sh")
            .args(["-c", script])
            .file("new.txt", "new\n")
            .file("old.txt", "old\n")
    };
    // (Owner and group cut, so that the rows do not depend on the user.)
    let words = builder().redact(Redactions::new().month_days().short_times()).start();
    words.wait_for_screen_text("4 items").wait_for_input();
    let rows = words.snapshot();
    assert!(rows.contains(" 0 │-rw-r--r-- 1 4 [DATE] [TIME] new.txt\n"), "{rows}");
    assert!(rows.contains(" 1 │-rw-r--r-- 1 4 [DATE] old.txt\n"), "{rows}");
    assert!(rows.contains(" 2 │at main.rs:12:30, [TIME] then [TIME] [TIME]; 4 items\n"), "{rows}");
    let masked = builder().redact(Redactions::new().file_times()).start();
    masked.wait_for_screen_text("4 items").wait_for_input();
    let rows = masked.snapshot();
    assert!(rows.contains(" 0 │-rw-r--r-- 1 4 ▒▒▒▒▒▒▒▒▒▒▒▒ new.txt\n"), "{rows}");
    assert!(rows.contains(" 1 │-rw-r--r-- 1 4 ▒▒▒▒▒▒▒▒▒▒▒▒ old.txt\n"), "{rows}");
    assert!(rows.contains(" 2 │at main.rs:12:30, 09:41:07 then 19:03 19:04; 4 items\n"), "{rows}");
}

/// mc's panels show each file's time to the minute in a column of twelve cells, and the disk's
/// usage in the bottom border (`184G / 252G (72%)`), which changes from run to run and its
/// width, and the border's, from machine to machine: masked, the panel keeps its columns and
/// the bottom row is the same whatever the disk.
#[test]
fn mcs_file_times_and_disk_usage_are_redacted_keeping_the_columns() {
    if !require("mc") {
        return;
    }
    let mc = TestSession::builder("mc")
        .arg("--nosubshell")
        .file("notes.txt", "hi\n")
        .redact(Redactions::new().file_times().disk_usage())
        .timeout(Duration::from_secs(30))
        .start();
    mc.wait_for_screen_text("notes.txt").wait_for_input().wait_stable();
    let raw = mc.screen();
    let usage = regex::Regex::new(r"\d+(\.\d+)?[KMGT]? / \d+(\.\d+)?[KMGT]? \(\d+%\)").unwrap();
    let bottom = raw.lines.iter().position(|row| usage.is_match(row)).expect("mc's disk usage");
    let redacted = mc.redactions().apply_to_screen(&raw);
    let width = |row: &str| unicode_width::UnicodeWidthStr::width(row);
    for (row, (before, after)) in raw.lines.iter().zip(&redacted.lines).enumerate() {
        assert_eq!(width(before), width(after), "row {row}: {before:?} became {after:?}");
    }
    let notes = redacted.lines.iter().find(|row| row.contains(" notes.txt ")).unwrap();
    assert!(notes.contains("│      3│▒▒▒▒▒▒▒▒▒▒▒▒│"), "{notes}");
    // The border's dashes and the usage, masked together: `└▒▒…▒ ─┘`, twice.
    let panel = regex::Regex::new(r"^└▒+ ─┘└▒+ ─┘$").unwrap();
    assert!(panel.is_match(&redacted.lines[bottom]), "{}", redacted.lines[bottom]);
    let snapshot = mc.snapshot();
    assert!(!usage.is_match(&snapshot) && snapshot.contains("▒▒▒▒▒▒▒▒▒▒▒▒│"), "{snapshot}");
    mc.press("<F10>");
    mc.wait_for_exit();
}

/// mc's panels at 60 columns cut the time column's start (`c  8 00:52`): `file_times` masks
/// what is left of it, the panel keeping its columns (it was left as it was: mc needed 70
/// columns; the kit's default 80 is enough, `mcs_file_times_and_disk_usage_are_redacted_keeping_the_columns`).
#[test]
fn mcs_file_times_cut_in_a_narrower_terminal_are_masked() {
    if !require("mc") {
        return;
    }
    let mc = TestSession::builder("mc")
        .arg("--nosubshell")
        .size(60, 24)
        .file("notes.txt", "hi\n")
        .redact(Redactions::new().file_times())
        .timeout(Duration::from_secs(30))
        .start();
    mc.wait_for_screen_text("notes.txt").wait_for_input().wait_stable();
    let raw = mc.screen();
    let redacted = mc.redactions().apply_to_screen(&raw);
    let notes = redacted.lines.iter().find(|row| row.contains(" notes.txt ")).unwrap();
    let raw_notes = raw.lines.iter().find(|row| row.contains(" notes.txt ")).unwrap();
    assert!(notes.contains("│    3│▒▒▒▒▒▒▒▒▒▒│"), "{notes} (from {raw_notes})");
    let width = |row: &str| unicode_width::UnicodeWidthStr::width(row);
    assert_eq!(width(notes), width(raw_notes), "{notes} (from {raw_notes})");
    mc.press("<F10>");
    mc.wait_for_exit();
}

/// The target directory of the build (here `CARGO_TARGET_DIR`, or the crate's `target/`) is
/// `[TARGET]` with `target_dir`, and in the command line, as a program of the package or a
/// file the build wrote is named: it is not always inside the crate's directory.
#[test]
fn the_target_directory_is_redacted() {
    // `<target>/tmp`, as Cargo gives it to integration tests.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().canonicalize().unwrap();
    let target = target.display();
    let script = "echo \"built $1/debug/app\"; read x";
    let app = TestSession::builder("sh")
        .args(["-c", script, "sh", &target.to_string()])
        .redact(Redactions::new().target_dir().crate_dir())
        .start();
    app.wait_for_screen_text("built").wait_for_input();
    assert!(app.snapshot().contains(" 0 │built [TARGET]/debug/app\n"), "{}", app.snapshot());
    // The command line, without the test asking.
    let app = TestSession::builder("sh").args(["-c", script, "sh", &target.to_string()]).start();
    assert_eq!(app.command(), "sh -c 'echo \"built $1/debug/app\"; read x' sh [TARGET]");
}

/// `snapshot()` and `styled_snapshot()` give the text `assert_screen_snapshot!` stores, with
/// the session's redactions (a user's `insta::assert_snapshot!(app.snapshot())` stored the
/// program's pid); the screen as it is stays `format_screen(&app.screen())`.
#[test]
fn snapshot_texts_are_redacted_as_the_macro_stores_them() {
    let app = TestSession::builder("sh")
        .args(["-c", "printf 'pid %s in \\033[31m%s\\033[m ok\\n' $$ \"$HOME\"; read x"])
        .redact_pid()
        .start();
    app.wait_for_screen_text("ok").wait_for_input();
    let (pid, home) = (app.pid().to_string(), app.home().display().to_string());
    let plain = app.snapshot();
    assert!(plain.contains(" 0 │pid [PID] in [HOME] ok\n"), "{plain}");
    let styled = app.styled_snapshot();
    assert!(styled.contains(" 0 │pid [PID] in [HOME] ok\n"), "{styled}");
    // The red run covers `[HOME]`, moved with the text.
    assert!(styled.contains(" 0 │ cols 13-18: fg=red\n"), "{styled}");
    for text in [&plain, &styled] {
        assert!(!text.contains(&pid) && !text.contains(&home), "{text}");
    }
    let raw = termloom::testing::format_screen(&app.screen());
    assert!(raw.contains(&format!("pid {pid} in {home} ok")), "{raw}");
}

/// A program that ignores the hangup and `SIGTERM` is killed after the kit's close grace, 1 s,
/// not the engine's 3 s: every test of such a program paid 3 s as its session was dropped.
#[test]
fn a_program_that_ignores_the_close_is_killed_after_the_kits_grace() {
    let script = "trap '' HUP TERM; echo ready; while :; do sleep 0.1; done";
    let app = TestSession::builder("sh").args(["-c", script]).start();
    app.wait_for_output("ready");
    let started = std::time::Instant::now();
    assert_eq!(app.close(), termloom::ExitStatus::Signal(9));
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(900), "killed before its grace: {took:?}");
    assert!(took < Duration::from_secs(3), "took the engine's grace: {took:?}");
    // Dropped without a close, the same.
    let app = TestSession::builder("sh").args(["-c", script]).start();
    app.wait_for_output("ready");
    let started = std::time::Instant::now();
    drop(app);
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    // A test may give more.
    let app = TestSession::builder("sh")
        .args(["-c", script])
        .close_grace(Duration::from_millis(1500))
        .start();
    app.wait_for_output("ready");
    let started = std::time::Instant::now();
    app.close();
    assert!(started.elapsed() >= Duration::from_millis(1400), "{:?}", started.elapsed());
}

/// A working directory that does not exist is named in the failure as the test wrote it,
/// inside `[HOME]`, not by the temporary directory's path, which changes from run to run.
#[test]
fn a_missing_working_directory_is_named_inside_home() {
    let builder = TestSession::builder("sh").cwd("missing");
    let home = builder.home().display().to_string();
    let message = panic_message(|| {
        builder.start();
    });
    assert!(message.contains("[HOME]/missing"), "{message}");
    assert!(!message.contains(&home), "{message}");
}

/// A time redacted with `short_times` (whose pattern takes the character before the time and
/// puts it back) leaves the colour of the text before it where it was: blue on `at ` stayed
/// on cols 0-2 only, not over `[TIME]` too (cols 0-8).
#[test]
fn a_short_time_redacted_leaves_the_colour_before_it() {
    let app = TestSession::builder("sh")
        .args(["-c", "printf '\\033[34mat \\033[m19:03 \\033[31mok\\033[m\\n'; read x"])
        .redact(Redactions::new().short_times())
        .start();
    app.wait_for_screen_text("ok").wait_for_input();
    let styled = app.styled_snapshot();
    assert!(styled.contains(" 0 │at [TIME] ok\n"), "{styled}");
    assert!(styled.contains(" 0 │ cols 0-2: fg=blue\n"), "{styled}");
    assert!(styled.contains(" 0 │ cols 10-11: fg=red\n"), "{styled}");
}

/// The target directory is replaced where it ends, not inside a longer name: an argument
/// `<target>s/thumbv7.json` is not `[TARGET]s/thumbv7.json` in the command line.
#[test]
fn the_target_directory_is_replaced_where_it_ends() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().canonicalize().unwrap();
    let beside = format!("{}s/thumbv7.json", target.display());
    let app = TestSession::builder("true").arg(&beside).arg(target.join("debug")).start();
    assert!(!app.command().contains("[TARGET]s"), "{}", app.command());
    assert!(app.command().ends_with(" [TARGET]/debug"), "{}", app.command());
    app.wait_for_exit();
}

/// A failed start names paths only (`[HOME]`, `[CRATE]`): the test's own redactions, for what
/// the program shows, are not applied to the engine's message (one could hide what went
/// wrong), and the relative program's hint names the crate's directory `[CRATE]` too.
#[test]
fn a_failed_start_redacts_paths_only() {
    let message = panic_message(|| {
        let _ = TestSession::builder("sh")
            .cwd("missing")
            .redact(Redactions::new().literal("working directory", "[SECRET]"))
            .start();
    });
    assert!(message.contains("working directory \"[HOME]/missing\""), "{message}");
    let message = panic_message(|| {
        let _ = TestSession::builder("./no-such-script.sh").cwd(env!("CARGO_MANIFEST_DIR")).start();
    });
    let hint =
        "a relative path is taken in the session's working directory, [CRATE], not the test's";
    assert!(message.contains(hint), "{message}");
}
