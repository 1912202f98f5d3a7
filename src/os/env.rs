//! The child's environment: the host's, minus credentials, plus termloom's terminal settings,
//! plus the session's own entries.
//!
//! A host variable is left out when its **name** ([`is_credential_name`]) or its **value**
//! ([`is_credential_value`]) looks like a credential, or when it would mislead the child about
//! its terminal (`COLUMNS`, `TMUX`, ...). A name in [`Config::env_deny`] is always left out
//! (even one `env_allow` names too); any other name in [`Config::env_allow`] is always kept,
//! whatever its name or value look like: that is how a variable is let through on purpose.
//! The session's own entries (`SpawnSpec::env`, `env_remove`) apply last.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::sync::LazyLock;

use regex::Regex;

use crate::config::Config;

/// Substrings that make a variable name look like a credential.
const CREDENTIAL_WORDS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "API_KEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
];

/// Whole words of a variable name that make it look like a credential.
const CREDENTIAL_NAME_PARTS: &[&str] =
    &["COOKIE", "COOKIES", "BEARER", "JWT", "DSN", "WEBHOOK", "AUTHORIZATION"];

/// Names the host may set that would mislead the child about its terminal.
const TERMINAL_NAMES: &[&str] = &["COLUMNS", "LINES", "TERMCAP", "TMUX", "TMUX_PANE", "STY"];

/// Whether a variable name looks like a credential, so that the variable is left out of a
/// child's environment unless [`Config::env_allow`] names it.
///
/// The rules, case-insensitive (a *word* is a part of the name between underscores):
///
/// - containing `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `CREDENTIAL`,
///   `API_KEY`, `ACCESS_KEY` or `PRIVATE_KEY`;
/// - ending in `_KEY`, `_PAT` or `_PWD` (`MYSQL_PWD`; `PWD` and `OLDPWD` themselves are
///   kept);
/// - with a word `COOKIE`, `COOKIES`, `BEARER`, `JWT`, `DSN`, `WEBHOOK` or `AUTHORIZATION`;
/// - ending in the word `AUTH` or the words `AUTH_CONFIG` (`DOCKER_AUTH_CONFIG`,
///   `npm_config__auth`; `OS_AUTH_URL` is kept);
/// - starting with `TERMLOOM_`;
///
/// except `SSH_AUTH_SOCK`, which is kept. The value is checked too: see
/// [`is_credential_value`].
pub fn is_credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper == "SSH_AUTH_SOCK" {
        return false;
    }
    let words: Vec<&str> = upper.split('_').collect();
    upper.starts_with("TERMLOOM_")
        || upper.ends_with("_KEY")
        || upper.ends_with("_PAT")
        || upper.ends_with("_PWD")
        || CREDENTIAL_WORDS.iter().any(|word| upper.contains(word))
        || words.iter().any(|word| CREDENTIAL_NAME_PARTS.contains(word))
        || words.ends_with(&["AUTH"])
        || words.ends_with(&["AUTH", "CONFIG"])
}

/// Tokens of well-known shapes (see [`is_credential_value`]).
static TOKEN_SHAPES: LazyLock<Regex> = LazyLock::new(|| {
    let at_word_start = r"(?:^|[^A-Za-z0-9_])";
    let tokens = [
        r"gh[pousr]_[A-Za-z0-9]{30,}",
        r"github_pat_[A-Za-z0-9_]{30,}",
        r"glpat-[A-Za-z0-9_-]{20,}",
        r"xox[abposr]-[A-Za-z0-9-]{10,}",
        r"(?:AKIA|ASIA)[A-Z0-9]{16}(?:$|[^A-Za-z0-9])",
        r"sk-[A-Za-z0-9_-]{32,}",
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
        r"npm_[A-Za-z0-9]{36}",
        r"pypi-AgE[A-Za-z0-9_-]{16,}",
        r"AIza[A-Za-z0-9_-]{35}",
        r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
    ];
    let anywhere = [
        r"https?://hooks\.slack\.com/",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----",
        r"(?i:authorization:\s*(?:bearer|basic|token)\s+\S)",
        r"^\s*(?i:bearer)\s+[A-Za-z0-9._~+/-]+=*\s*$",
    ];
    let pattern = format!("{at_word_start}(?:{})|{}", tokens.join("|"), anywhere.join("|"));
    Regex::new(&pattern).expect("the token shapes are a valid regular expression")
});

/// A whole value `Basic <base64>`, as in an `Authorization` header.
static BASIC_AUTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?i:basic)\s+([A-Za-z0-9+/]{4,}={0,2})\s*$")
        .expect("the Basic shape is a valid regular expression")
});

/// Whether a variable's value looks like a credential, so that the variable is left out of a
/// child's environment whatever its name, unless [`Config::env_allow`] names it.
///
/// The rules, each matching anywhere in the value unless said otherwise:
///
/// - a URL whose user information has a password: `scheme://user:password@host`, also with
///   an empty user (`redis://:password@host`); `https://user@host` is kept;
/// - a JSON Web Token: `eyJ` and two more base64url parts separated by dots;
/// - a token with a well-known prefix, at the start of a word and as long as real ones are:
///   GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), Slack
///   (`xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxs-`, `xoxr-`), AWS access key ids (`AKIA` or
///   `ASIA` and 16 capitals or digits), OpenAI and Anthropic style keys (`sk-` and at least 32
///   more characters), Stripe (`sk_live_`, `rk_live_`, `sk_test_`, `rk_test_`), npm (`npm_`),
///   PyPI (`pypi-AgE`), Google (`AIza`);
/// - a Slack webhook URL (`https://hooks.slack.com/...`);
/// - a PEM private key (`-----BEGIN ... PRIVATE KEY-----`);
/// - an `Authorization` header's value: the whole value `Bearer <token>`, or `Basic <base64>`
///   whose decoding holds a `:`, or `Authorization: Bearer|Basic|Token ...` anywhere.
///
/// Random-looking values without such a shape (a git commit id, a UUID, base64 text) are
/// kept: guessing at entropy would drop too many ordinary settings.
pub fn is_credential_value(value: &str) -> bool {
    url_has_password(value)
        || TOKEN_SHAPES.is_match(value)
        || BASIC_AUTH.captures(value).is_some_and(|c| base64_decodes_to_a_colon(&c[1]))
}

/// Whether a URL in `value` has user information with a non-empty password.
fn url_has_password(value: &str) -> bool {
    value.match_indices("://").any(|(at, _)| {
        let scheme = value[..at]
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            .next()
            .unwrap_or("");
        if !scheme.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return false;
        }
        let rest = &value[at + 3..];
        let authority =
            rest.split(|c: char| "/?#".contains(c) || c.is_whitespace()).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .and_then(|(userinfo, _)| userinfo.split_once(':'))
            .is_some_and(|(_, password)| !password.is_empty())
    })
}

/// Whether standard base64 `text` decodes to bytes holding a `:` (`user:password`).
fn base64_decodes_to_a_colon(text: &str) -> bool {
    let (mut bits, mut count) = (0u32, 0u32);
    for byte in text.trim_end_matches('=').bytes() {
        let sextet = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return false,
        };
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            if (bits >> count) & 0xff == u32::from(b':') {
                return true;
            }
            bits &= (1 << count) - 1;
        }
    }
    false
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
        .filter(|(name, value)| {
            let name = name.to_string_lossy();
            if listed(&config.env_deny, &name) {
                return false;
            }
            if listed(&config.env_allow, &name) {
                return true;
            }
            !is_credential_name(&name)
                && !TERMINAL_NAMES.contains(&name.as_ref())
                && !is_credential_value(&value.to_string_lossy())
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
    /// Whether `name=value` in the host's environment reaches a child under `config`.
    fn passes_with(config: &Config, name: &str, value: &str) -> bool {
        child_env(config, host(&[(name, value)]), &[])
            .get(OsStr::new(name))
            .is_some_and(|v| v == value)
    }

    fn passes(name: &str, value: &str) -> bool {
        passes_with(&Config::default(), name, value)
    }

    /// A fake JSON Web Token: `{"alg":"HS256","typ":"JWT"}.{"sub":"1234567890"}.signature`.
    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.\
                       SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    /// The variables of issue 13, item 2, with values shaped like the real ones: each reached
    /// the child before values were looked at.
    const LEAKED: &[(&str, &str)] = &[
        ("DATABASE_URL", "postgres://app:s3cr3t-pw@db.internal:5432/app"),
        ("REDIS_URL", "redis://:hunter2@cache.internal:6379/0"),
        ("MYSQL_PWD", "hunter2"),
        ("PASSPHRASE", "correct horse battery staple"),
        ("GPG_PASSPHRASE", "correct horse battery staple"),
        ("DOCKER_AUTH_CONFIG", r#"{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}"#),
        ("SENTRY_DSN", "https://4f1c2a9e8b7d@o12345.ingest.sentry.io/67890"),
        ("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX"),
        ("CI_JOB_JWT", JWT),
        ("COOKIE", "session=8f14e45fceea167a5a36dedd4bea2543"),
        ("BEARER", "Bearer 8f14e45fceea167a5a36dedd4bea2543"),
    ];

    #[test]
    fn every_credential_of_the_issue_is_dropped() {
        for (name, value) in LEAKED {
            assert!(!passes(name, value), "{name}={value} reached the child");
        }
    }

    #[test]
    fn credential_values_are_dropped_whatever_the_name() {
        let values = [
            // A URL whose user information has a password, anywhere in the value.
            "postgres://app:s3cr3t@db:5432/app",
            "redis://:hunter2@cache:6379",
            "amqps://guest:guest@rabbit/vhost",
            "mongodb+srv://u:p@cluster0.example.net/db?retryWrites=true",
            "https://proxy.example.com,http://user:pw@proxy2.example.com:3128",
            // A JSON Web Token, alone or inside a longer value.
            JWT,
            &format!("token={JWT}"),
            // Well-known token prefixes.
            "ghp_0123456789abcdefABCDEF0123456789abcd",
            "gho_0123456789abcdefABCDEF0123456789abcd",
            "ghu_0123456789abcdefABCDEF0123456789abcd",
            "ghs_0123456789abcdefABCDEF0123456789abcd",
            "ghr_0123456789abcdefABCDEF0123456789abcd",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
            "glpat-0123456789abcdefABCD",
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "xoxp-123456789012-123456789012-abcdef",
            "https://hooks.slack.com/services/T000/B000/XXXX",
            "AKIAIOSFODNN7EXAMPLE",
            "ASIAIOSFODNN7EXAMPLE",
            "sk-proj-0123456789abcdefABCDEF0123456789abcdef",
            "sk-ant-api03-0123456789abcdefABCDEF0123456789abcdef",
            "sk_live_0123456789abcdefABCDEF01",
            "rk_live_0123456789abcdefABCDEF01",
            "npm_0123456789abcdefABCDEF0123456789abcd",
            "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAw",
            "AIzaSyA0123456789abcdefABCDEF0123456789",
            // An `Authorization` header's value.
            "Bearer 8f14e45fceea167a5a36dedd4bea2543",
            "bearer abc.def.ghi",
            "Basic dXNlcjpwYXNzd29yZA==",
            "-H 'Authorization: Bearer abc123'",
            // A private key.
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
        ];
        for value in values {
            assert!(!passes("SOME_SETTING", value), "{value:?} reached the child");
        }
    }

    #[test]
    fn credential_names_are_dropped() {
        for name in [
            "MYSQL_PWD",
            "PGPASSWORD",
            "GPG_PASSPHRASE",
            "DOCKER_AUTH_CONFIG",
            "npm_config__auth",
            "PROXY_AUTH",
            "HTTP_AUTHORIZATION",
            "HTTP_COOKIE",
            "SENTRY_DSN",
            "DISCORD_WEBHOOK",
            "CI_JOB_JWT",
            "CI_JOB_JWT_V2",
            "BEARER",
            "COOKIE",
            "PASSPHRASE",
            "SLACK_WEBHOOK_URL",
        ] {
            assert!(is_credential_name(name), "{name}");
        }
        // These are caught by their values only.
        for name in ["DATABASE_URL", "REDIS_URL", "HTTP_PROXY", "PWD", "OLDPWD", "SSH_AUTH_SOCK"] {
            assert!(!is_credential_name(name), "{name}");
        }
    }

    #[test]
    fn ordinary_variables_pass() {
        let vars = [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("LANG", "en_US.UTF-8"),
            ("TERM_PROGRAM", "vscode"),
            ("PWD", "/home/me/src"),
            ("OLDPWD", "/home/me"),
            ("SSH_AUTH_SOCK", "/tmp/ssh-XXXXabcd/agent.1234"),
            ("OS_AUTH_URL", "https://keystone.example.com:5000/v3"),
            ("XAUTHORITY", "/run/user/1000/gdm/Xauthority"),
            ("HOMEPAGE", "https://example.com:8443/path?q=a:b&r=c@d#frag"),
            ("GIT_REMOTE", "https://git@github.com/owner/repo.git"),
            ("GIT_URL", "git@github.com:owner/repo.git"),
            ("DATABASE_URL", "postgres://localhost/app"),
            ("MAIL", "me@example.com"),
            ("GIT_COMMIT", "14b03ba2c8e5d8f1a6b9c0d3e4f5a6b7c8d9e0f1"),
            ("INVOCATION_ID", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
            ("SHORT_B64", "dGVzdA=="),
            ("NONCE", "c29tZSBzaG9ydCB0ZXh0"),
            ("CLUSTER", "sk-prod-cluster-eu-west-1"),
            ("GREETING", "Basic settings apply"),
            ("MODE", "Basic settings"),
            ("ALMOST_AWS", "AKIAIOSFODNN7EXAMPLEX"),
            ("TEMPLATE", "eyJhbGciOiJIUzI1NiJ9"),
            ("MOTTO", "bearer of good news"),
            ("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33"),
            ("JAVA_TOOL_OPTIONS", "-Dfile.encoding=UTF-8 -Dhttp.proxyHost=proxy:3128"),
        ];
        for (name, value) in vars {
            assert!(passes(name, value), "{name}={value} was dropped");
        }
    }

    #[test]
    fn env_allow_lets_a_credential_through_on_purpose() {
        let config = Config {
            env_allow: vec!["DATABASE_URL".into(), "CI_JOB_JWT".into(), "MYSQL_PWD".into()],
            ..Config::default()
        };
        for (name, value) in LEAKED {
            let allowed = config.env_allow.iter().any(|a| a == name);
            assert_eq!(passes_with(&config, name, value), allowed, "{name}");
        }
    }
}
