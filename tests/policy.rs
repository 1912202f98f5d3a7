//! The spawn policy and hook as a host uses them: denied starts fork nothing, `ask` needs an
//! approver, the hook sees the whole request, guarded variables are asked about, and the
//! command line's `--policy`.

mod common;

use std::sync::{Arc, Mutex};

use common::{expect, sweep_left_overs};
use termloom::{
    Config, Decision, Engine, Error, Policy, SpawnHook, SpawnRequest, SpawnSpec, Until, Verdict,
};

fn engine_with(policy: Policy) -> Engine {
    Engine::new(Config { policy: Some(policy), ..Config::default() }).expect("engine starts")
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    sweep_left_overs();
    let dir = std::env::temp_dir().join(format!("termloom-policy-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const POLICY: &str = r#"
    default = "allow"
    [[rules]]
    name = "no-touch"
    program = ["touch"]
    decision = "deny"
    reason = "touching files is not allowed"
    [[rules]]
    name = "printf-asks"
    program = ["printf"]
    decision = "ask"
    [[rules]]
    name = "sh"
    program = ["sh"]
    decision = "allow"
"#;

#[test]
fn a_denied_start_forks_nothing_and_names_the_rule() {
    let engine = engine_with(Policy::from_toml_str(POLICY).unwrap());
    let dir = temp_dir("denied");
    let file = dir.join("touched");
    for spec in [
        SpawnSpec::new("touch").arg(&file),
        SpawnSpec::shell(format!("echo hi && touch {}", file.display())),
        SpawnSpec::shell(format!("echo $(touch {})", file.display())),
        SpawnSpec::new("sh").args(["-c", &format!("touch {}", file.display())]),
    ] {
        match engine.spawn(spec.clone()) {
            Err(Error::SpawnDenied { rule, reason, .. }) => {
                assert_eq!(rule, "no-touch");
                assert_eq!(reason, "touching files is not allowed");
            }
            other => panic!("{spec:?} was not denied: {other:?}"),
        }
    }
    assert!(!file.exists(), "a denied start ran");
    assert!(engine.list().unwrap().is_empty(), "a denied start left a session");
    // Other programs still start.
    let echo = engine.spawn(SpawnSpec::new("echo").arg("allowed")).unwrap();
    expect(&echo, Until::text("allowed"));
}

#[test]
fn ask_needs_an_approver_and_its_answer_decides() {
    let engine = engine_with(Policy::from_toml_str(POLICY).unwrap());
    let err = engine.spawn(SpawnSpec::new("printf").arg("x")).unwrap_err();
    assert!(matches!(&err, Error::SpawnDenied { rule, .. } if rule == "printf-asks"), "{err}");
    assert!(err.to_string().contains("spawn_with_approval"), "{err}");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let declined =
        engine.spawn_with_approval(SpawnSpec::new("printf").arg("no"), |request, verdict| {
            asked.lock().unwrap().push((request.describe(), verdict.rule.clone()));
            Err("not today".into())
        });
    assert!(matches!(declined, Err(Error::SpawnDenied { reason, .. }) if reason == "not today"));
    let session = engine
        .spawn_with_approval(SpawnSpec::new("printf").arg("approved"), |_, _| Ok(()))
        .expect("an approved start runs");
    expect(&session, Until::text("approved"));
    let asked = asked.lock().unwrap();
    assert!(asked[0].0.contains("`printf no`") && asked[0].1 == "printf-asks", "{asked:?}");
    // An allowed start never calls the approver.
    engine
        .spawn_with_approval(SpawnSpec::new("echo"), |_, _| panic!("asked about an allowed start"))
        .unwrap();
}

#[test]
fn the_hook_sees_the_whole_request_and_has_the_last_word() {
    let seen: Arc<Mutex<Vec<SpawnRequest>>> = Arc::default();
    let record = seen.clone();
    let hook = SpawnHook::new(move |request, verdict| {
        record.lock().unwrap().push(request.clone());
        if request.commands.iter().any(|c| c.program == "yes") {
            return Verdict {
                decision: Decision::Deny,
                rule: "hook".into(),
                reason: "no yes".into(),
            };
        }
        verdict
    });
    let config = Config { spawn_hook: Some(hook), ..Config::default() };
    let engine = Engine::new(config).unwrap();
    let dir = temp_dir("hook");
    let err = engine.spawn(SpawnSpec::shell("echo a | yes").cwd(&dir).env("MY_VAR", "1"));
    assert!(matches!(err, Err(Error::SpawnDenied { ref rule, .. }) if rule == "hook"), "{err:?}");
    let session = engine.spawn(SpawnSpec::new("echo").arg("fine")).unwrap();
    expect(&session, Until::text("fine"));
    let seen = seen.lock().unwrap();
    let request = &seen[0];
    let programs: Vec<&str> = request.commands.iter().map(|c| c.program.as_str()).collect();
    assert_eq!(programs, ["echo", "yes"]);
    assert_eq!(request.shell_line.as_deref(), Some("echo a | yes"));
    assert_eq!(request.cwd, dir);
    assert_eq!(request.env, [("MY_VAR".to_owned(), Some("1".to_owned()))]);
    assert!(request.commands[1].path.as_ref().is_some_and(|p| p.ends_with("yes")));
}

#[test]
fn variables_that_change_what_runs_are_asked_about() {
    let engine = engine_with(Policy::from_toml_str(POLICY).unwrap());
    for spec in [
        SpawnSpec::new("sh").env("LD_PRELOAD", "/tmp/evil.so"),
        SpawnSpec::new("sh").env("PATH", "/tmp/evil"),
        SpawnSpec::shell("BASH_ENV=/tmp/evil sh -c true"),
    ] {
        match engine.spawn(spec.clone()) {
            Err(Error::SpawnDenied { rule, .. }) => assert_eq!(rule, "guarded_env", "{spec:?}"),
            other => panic!("{spec:?} was not asked about: {other:?}"),
        }
    }
    // A PATH that points elsewhere is where the program is looked up: a rule on a path sees
    // the program that would really run.
    let dir = temp_dir("path");
    let fake = dir.join("ls");
    std::fs::write(&fake, "#!/bin/sh\necho fake\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let policy = Policy::from_toml_str(
        "default = \"deny\"\n[[rules]]\nprogram = [\"/usr/bin/ls\", \"/bin/ls\"]\nenv = [\"PATH\"]\ndecision = \"allow\"\n",
    )
    .unwrap();
    let engine = engine_with(policy);
    let faked = engine.spawn(SpawnSpec::new("ls").env("PATH", &dir));
    assert!(
        matches!(faked, Err(Error::SpawnDenied { ref rule, .. }) if rule == "default"),
        "{faked:?}"
    );
    engine
        .spawn(SpawnSpec::new("ls").env("PATH", "/usr/bin:/bin"))
        .expect("the real ls is allowed");
}

#[test]
fn malformed_policies_are_refused_and_deny_all_is_valid() {
    let bad = Config {
        policy: Some(
            Policy::from_toml_str("[[rules]]\nprogram = [\"ls\"]\ndecision = \"allow\"\n").unwrap(),
        ),
        ..Config::default()
    };
    bad.validate().unwrap();
    let mut broken = bad.policy.clone().unwrap();
    broken.rules[0].args = Some("[".into());
    let err = Engine::new(Config { policy: Some(broken), ..Config::default() }).err().unwrap();
    assert!(err.to_string().contains("rule 1"), "{err}");
    let engine = engine_with(Policy::deny_all());
    let err = engine.spawn(SpawnSpec::new("true")).unwrap_err();
    assert!(matches!(err, Error::SpawnDenied { ref rule, .. } if rule == "default"), "{err}");
}

#[test]
fn the_command_line_takes_a_policy_file() {
    let dir = temp_dir("cli");
    let policy = dir.join("policy.toml");
    std::fs::write(&policy, POLICY).unwrap();
    let file = dir.join("touched");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_termloom"))
        .args(["run", "--policy"])
        .arg(&policy)
        .arg("--")
        .arg("touch")
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("no-touch") && stderr.contains("denied"), "{stderr}");
    assert!(!file.exists());
    std::fs::write(&policy, "[[rules]]\ndecision = \"sometimes\"\n").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_termloom"))
        .args(["mcp", "--policy"])
        .arg(&policy)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("sometimes"), "{stderr}");
}

/// A `cwd` rule is not passed by a line that reaches its directory through a tilde (`cd
/// ~/DIR`, read before as the relative directory `~`) or through bash's `cdable_vars` (`cd
/// NAME` going where the variable NAME says): such a change cannot be told before the line
/// runs, so it gets the policy's strictest decision.
#[test]
fn a_directory_reached_through_a_tilde_or_cdable_vars_is_not_taken_for_another() {
    let dir = temp_dir("tilde");
    let secret = dir.join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::create_dir_all(dir.join("public")).unwrap();
    let policy = format!(
        "default = \"allow\"\n[[rules]]\nname = \"not-there\"\ncwd = [{:?}]\ndecision = \"deny\"\n",
        secret.display().to_string()
    );
    let engine = engine_with(Policy::from_toml_str(&policy).unwrap());
    let secret_text = secret.display().to_string();
    for (line, expected) in [
        ("cd ./secret && touch marker".to_owned(), "not-there"),
        ("cd ~/secret && touch marker".to_owned(), "too_complex"),
        (
            format!("cd ~/../{}/secret && touch marker", dir.file_name().unwrap().display()),
            "too_complex",
        ),
        (
            format!("shopt -s cdable_vars; there={secret_text}; cd there && touch marker"),
            "too_complex",
        ),
    ] {
        let spec = SpawnSpec::shell(&line).cwd(&dir).env("HOME", &dir);
        match engine.spawn(spec) {
            Err(Error::SpawnDenied { rule, .. }) => assert_eq!(rule, expected, "{line}"),
            other => panic!("`{line}` was not denied: {other:?}"),
        }
    }
    assert!(!secret.join("marker").exists(), "a denied start ran");
    // A line that stays out of the directory still runs.
    let allowed = engine
        .spawn(SpawnSpec::shell("cd public && echo ran-in-$(basename $PWD)").cwd(&dir))
        .unwrap();
    expect(&allowed, Until::text("ran-in-public"));
}

#[test]
fn a_line_history_expansion_would_change_is_not_typed_into_a_new_shell() {
    if !common::require(&termloom::shell_program()) {
        return;
    }
    let toolbox =
        termloom::tools::Toolbox::new(engine_with(Policy::from_toml_str(POLICY).unwrap()));
    let dir = temp_dir("history");
    let file = dir.join("touched");
    // An interactive bash replaces `!#:1-2` with the line's words 1 and 2 before it reads
    // the line: `touch FILE` would run, unseen by the rule on touch.
    let command = format!("echo touch {}; !#:1-2", file.display());
    let result =
        toolbox.call("terminal_run", &serde_json::json!({"command": command, "timeout_ms": 20000}));
    assert!(result.is_error, "{}", result.text);
    assert!(result.text.contains("history expansion"), "{}", result.text);
    assert!(!file.exists(), "the expanded line ran");
    // A `!` that history expansion leaves alone is no reason to refuse.
    let fine = toolbox.call(
        "terminal_run",
        &serde_json::json!({"command": "[ ! -e /nonexistent ] && echo \"Done!\""}),
    );
    assert!(!fine.is_error && fine.text.contains("Done!"), "{}", fine.text);
}

/// A word is an assignment to the policy where bash reads one, and only there: before a
/// command, bash reads `NAME[` to its `]` (blanks and operators included), so `A[ x ]=1 touch
/// F` runs `touch`; and it reads the word as written, so `"A"=1 echo` runs the command `A=1`.
#[test]
fn a_word_is_an_assignment_to_the_policy_only_where_bash_reads_one() {
    let policy =
        format!("{POLICY}\n[[rules]]\nname = \"no-a\"\nprogram = [\"A=1\"]\ndecision = \"deny\"\n");
    let engine = engine_with(Policy::from_toml_str(&policy).unwrap());
    let dir = temp_dir("assignments");
    let path = dir.join("touched");
    let file = path.display();
    for (line, expected) in [
        (format!("A[ x ]=1 touch {file}"), "no-touch"),
        (format!("x=1 A[ ; ]=1 touch {file}"), "no-touch"),
        (format!("echo $(A[ ) ]=1 touch {file})"), "no-touch"),
        ("\"A\"=1 echo hi".to_owned(), "no-a"),
        ("A\\=1 echo hi".to_owned(), "no-a"),
        ("$'A'=1 echo hi".to_owned(), "no-a"),
    ] {
        match engine.spawn(SpawnSpec::new("bash").args(["-c", &line])) {
            Err(Error::SpawnDenied { rule, .. }) => assert_eq!(rule, expected, "{line}"),
            other => panic!("`{line}` was not denied: {other:?}"),
        }
    }
    assert!(!path.exists(), "a denied start ran");
    // What the policy lets through runs as it read it: the program after the assignments.
    let ran = engine
        .spawn(SpawnSpec::new("bash").args(["-c", "A[ x ]=1 B+=2 echo ran-$((6*7))"]))
        .unwrap();
    expect(&ran, Until::text("ran-42"));
}
