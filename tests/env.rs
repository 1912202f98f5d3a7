//! The credential filter on a real child: `termloom run` is started with secrets in its own
//! environment (set on that process only, never on the test's), runs `env` under a PTY and
//! waits for it to exit; its report must hold none of them. No sleeps: the CLI's `--wait-exit`
//! is the synchronisation.

use std::process::{Command, Stdio};

const TERMLOOM: &str = env!("CARGO_BIN_EXE_termloom");

/// The variables of issue 13, item 2, with values shaped like the real ones, plus tokens that
/// only their values give away. Each value carries a marker the report must not contain.
const SECRETS: &[(&str, &str)] = &[
    ("DATABASE_URL", "postgres://app:leak01@db.internal:5432/app"),
    ("REDIS_URL", "redis://:leak02@cache.internal:6379/0"),
    ("MYSQL_PWD", "leak03"),
    ("PASSPHRASE", "leak04 horse battery staple"),
    ("GPG_PASSPHRASE", "leak05 horse battery staple"),
    ("DOCKER_AUTH_CONFIG", r#"{"auths":{"leak06.example.com":{"auth":"dXNlcjpwYXNz"}}}"#),
    ("SENTRY_DSN", "https://leak07@o12345.ingest.sentry.io/67890"),
    ("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/leak08"),
    (
        "CI_JOB_JWT",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWFrMDkifQ.leak09sFlKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
    ),
    ("COOKIE", "session=leak10"),
    ("BEARER", "Bearer leak11abcdef"),
    ("SOME_SETTING", "ghp_leak120123456789abcdefABCDEF0123456789"),
    ("HTTPS_PROXY", "http://me:leak13@proxy.internal:3128"),
];

#[test]
fn credentials_in_the_host_environment_do_not_reach_a_real_child() {
    let dir = std::env::temp_dir().join(format!("termloom-env-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("allow.toml");
    std::fs::write(&config, "env_allow = [\"ALLOWED_DATABASE_URL\"]\n").unwrap();
    let output = Command::new(TERMLOOM)
        .args(["run", "--config", config.to_str().unwrap(), "--timeout", "20000"])
        .args(["--wait-exit", "--", "sh", "-c", "env"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
        .env("HOME", &dir)
        .envs(SECRETS.iter().copied())
        .env("ALLOWED_DATABASE_URL", "postgres://app:on-purpose@db/app")
        .env("PLAIN_URL", "https://example.com:8443/path?q=a:b")
        .env("GIT_COMMIT", "14b03ba2c8e5d8f1a6b9c0d3e4f5a6b7c8d9e0f1")
        .stdin(Stdio::null())
        .output()
        .expect("termloom runs");
    let _ = std::fs::remove_dir_all(&dir);
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(report.contains("--- exit: exit code 0 ---"), "{report}");
    for (name, _) in SECRETS {
        let line = format!("{name}=");
        assert!(
            !report.lines().any(|l| l.starts_with(&line)),
            "{name} reached the child:\n{report}"
        );
    }
    // Every secret holds `leak` and a number (the checkout's path may hold `leak` alone).
    let leaked = report
        .match_indices("leak")
        .any(|(at, _)| report[at + 4..].starts_with(|c: char| c.is_ascii_digit()));
    assert!(!leaked, "a secret reached the child:\n{report}");
    for kept in [
        "ALLOWED_DATABASE_URL=postgres://app:on-purpose@db/app",
        "PLAIN_URL=https://example.com:8443/path?q=a:b",
        "GIT_COMMIT=14b03ba2c8e5d8f1a6b9c0d3e4f5a6b7c8d9e0f1",
        "TERM=xterm-256color",
    ] {
        assert!(report.contains(kept), "{kept} is missing:\n{report}");
    }
}
