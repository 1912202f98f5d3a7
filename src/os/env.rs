//! The child's environment: the host's, minus credentials, plus termloom's terminal settings,
//! plus the session's own entries.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

use crate::config::Config;

/// Substrings that make a variable name look like a credential.
const CREDENTIAL_WORDS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "API_KEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
];

/// Names the host may set that would mislead the child about its terminal.
const TERMINAL_NAMES: &[&str] = &["COLUMNS", "LINES", "TERMCAP", "TMUX", "TMUX_PANE", "STY"];

/// Whether a variable name looks like a credential and is dropped by default.
pub fn is_credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper == "SSH_AUTH_SOCK" {
        return false;
    }
    upper.starts_with("TERMLOOM_")
        || upper.ends_with("_KEY")
        || upper.ends_with("_PAT")
        || CREDENTIAL_WORDS.iter().any(|word| upper.contains(word))
}

/// Builds the environment of a child from the host's variables `host`.
pub(crate) fn child_env(
    config: &Config,
    host: impl IntoIterator<Item = (OsString, OsString)>,
    overlay: &[(OsString, Option<OsString>)],
) -> BTreeMap<OsString, OsString> {
    let listed = |list: &[String], name: &str| list.iter().any(|n| n == name);
    let mut env: BTreeMap<OsString, OsString> = host
        .into_iter()
        .filter(|(name, _)| {
            let name = name.to_string_lossy();
            if listed(&config.env_deny, &name) {
                return false;
            }
            if listed(&config.env_allow, &name) {
                return true;
            }
            !is_credential_name(&name) && !TERMINAL_NAMES.contains(&name.as_ref())
        })
        .collect();
    env.insert("TERM".into(), "xterm-256color".into());
    env.insert("COLORTERM".into(), "truecolor".into());
    let has_locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .any(|name| env.get(OsStr::new(name)).is_some_and(|v| !v.is_empty()));
    if !has_locale {
        env.insert("LANG".into(), "C.UTF-8".into());
    }
    for (name, value) in overlay {
        match value {
            Some(value) => env.insert(name.clone(), value.clone()),
            None => env.remove(name),
        };
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(vars: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        vars.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    #[test]
    fn credentials_are_dropped_and_terminal_set() {
        let env = child_env(
            &Config::default(),
            host(&[
                ("GITHUB_TOKEN", "x"),
                ("AWS_SECRET_ACCESS_KEY", "x"),
                ("MY_PAT", "x"),
                ("OPENAI_API_KEY", "x"),
                ("TERMLOOM_DEBUG", "1"),
                ("SSH_AUTH_SOCK", "/tmp/agent"),
                ("HOME", "/root"),
                ("COLUMNS", "80"),
                ("TERM", "dumb"),
            ]),
            &[],
        );
        let names: Vec<_> = env.keys().map(|k| k.to_str().unwrap()).collect();
        assert_eq!(names, ["COLORTERM", "HOME", "LANG", "SSH_AUTH_SOCK", "TERM"]);
        assert_eq!(env[OsStr::new("TERM")], "xterm-256color");
    }

    #[test]
    fn lists_and_overlay_win() {
        let config = Config {
            env_allow: vec!["CI_JOB_TOKEN".into()],
            env_deny: vec!["HOME".into()],
            ..Config::default()
        };
        let env = child_env(
            &config,
            host(&[("CI_JOB_TOKEN", "t"), ("HOME", "/root"), ("LANG", "fr_FR.UTF-8")]),
            &[("TERM".into(), Some("vt100".into())), ("LANG".into(), None)],
        );
        assert_eq!(env[OsStr::new("CI_JOB_TOKEN")], "t");
        assert!(!env.contains_key(OsStr::new("HOME")));
        assert!(!env.contains_key(OsStr::new("LANG")));
        assert_eq!(env[OsStr::new("TERM")], "vt100");
    }
}
