//! Loading a [`Config`] from a TOML file (used by the command-line tool's `--config`).
//!
//! Keys are the `Config` field names; durations are given in milliseconds with an `_ms`
//! suffix (`quiet_ms = 500`, `idle_timeout_ms = 3600000`). Unknown keys are errors, so a typo
//! never silently falls back to a default. Every key is optional.
//!
//! ```toml
//! cols = 100
//! rows = 30
//! scrollback_lines = 20000
//! close_grace_ms = 1000
//! idle_timeout_ms = 1800000
//! env_deny = ["AWS_PROFILE"]
//!
//! [confinement]            # Landlock for every session (see `Confinement`)
//! writable = ["/tmp/builds"]
//! network = false
//!
//! [policy]                 # the spawn policy (see `Policy`)
//! default = "ask"
//! [[policy.rules]]
//! program = ["ls", "git"]
//! decision = "allow"
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::config::Config;
use crate::error::{Error, Result};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    cols: Option<u16>,
    rows: Option<u16>,
    scrollback_lines: Option<usize>,
    scrollback_bytes: Option<usize>,
    max_read_bytes: Option<usize>,
    max_readers: Option<usize>,
    raw_output_bytes: Option<usize>,
    recording_file_bytes: Option<u64>,
    write_queue_bytes: Option<usize>,
    request_queue: Option<usize>,
    quiet_ms: Option<u64>,
    input_settle_ms: Option<u64>,
    default_wait_timeout_ms: Option<u64>,
    close_grace_ms: Option<u64>,
    exit_drain_ms: Option<u64>,
    max_sessions: Option<usize>,
    max_closed_sessions: Option<usize>,
    idle_timeout_ms: Option<u64>,
    max_lifetime_ms: Option<u64>,
    reaper_interval_ms: Option<u64>,
    cgroups: Option<bool>,
    base_dir: Option<PathBuf>,
    record_dir: Option<PathBuf>,
    record_every_session: Option<bool>,
    max_osc_bytes: Option<usize>,
    max_title_bytes: Option<usize>,
    max_hyperlink_bytes: Option<usize>,
    max_title_stack: Option<usize>,
    max_combining_marks: Option<usize>,
    env_allow: Option<Vec<String>>,
    env_deny: Option<Vec<String>>,
    policy: Option<crate::policy::PolicyFile>,
    confinement: Option<crate::Confinement>,
}

/// The `Config` fields given in milliseconds, and their keys in a file.
const MS_KEYS: [(&str, &str); 8] = [
    ("quiet", "quiet_ms"),
    ("input_settle", "input_settle_ms"),
    ("default_wait_timeout", "default_wait_timeout_ms"),
    ("close_grace", "close_grace_ms"),
    ("exit_drain", "exit_drain_ms"),
    ("idle_timeout", "idle_timeout_ms"),
    ("max_lifetime", "max_lifetime_ms"),
    ("reaper_interval", "reaper_interval_ms"),
];

impl Config {
    /// Parses TOML text over the defaults, then validates the result.
    pub fn from_toml_str(text: &str) -> Result<Config> {
        Config::default().with_toml_str(text)
    }

    /// Parses TOML text over this configuration (what the text leaves out keeps its value
    /// here: a host's own defaults), then validates the result.
    pub fn with_toml_str(self, text: &str) -> Result<Config> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| Error::InvalidConfig {
            field: "(file)",
            message: format!("cannot be parsed: {e}"),
        })?;
        let ms = Duration::from_millis;
        let mut c = self;
        macro_rules! set {
            ($($field:ident),*) => { $(if let Some(v) = file.$field { c.$field = v; })* };
        }
        set!(cols, rows, scrollback_lines, scrollback_bytes, max_read_bytes, write_queue_bytes);
        set!(request_queue, max_sessions, max_closed_sessions, cgroups, env_allow, env_deny);
        set!(max_readers);
        set!(raw_output_bytes, record_every_session, recording_file_bytes);
        set!(
            max_osc_bytes,
            max_title_bytes,
            max_hyperlink_bytes,
            max_title_stack,
            max_combining_marks
        );
        macro_rules! set_ms {
            ($($key:ident => $field:ident),*) => { $(if let Some(v) = file.$key { c.$field = ms(v); })* };
        }
        set_ms!(quiet_ms => quiet, input_settle_ms => input_settle, default_wait_timeout_ms => default_wait_timeout);
        set_ms!(close_grace_ms => close_grace, exit_drain_ms => exit_drain, reaper_interval_ms => reaper_interval);
        if let Some(v) = file.idle_timeout_ms {
            c.idle_timeout = Some(ms(v));
        }
        if let Some(v) = file.max_lifetime_ms {
            c.max_lifetime = Some(ms(v));
        }
        if file.record_dir.is_some() {
            c.record_dir = file.record_dir;
        }
        if file.base_dir.is_some() {
            c.base_dir = file.base_dir;
        }
        if let Some(policy) = file.policy {
            c.policy = Some(policy.into_policy());
        }
        if file.confinement.is_some() {
            c.confinement = file.confinement;
        }
        // A duration out of range is named as the file names it (`quiet_ms`, not `quiet`).
        c.validate().map_err(|err| match err {
            Error::InvalidConfig { field, message } => {
                let key = MS_KEYS.iter().find(|(f, _)| *f == field).map_or(field, |(_, k)| k);
                Error::InvalidConfig { field: key, message }
            }
            err => err,
        })?;
        Ok(c)
    }

    /// Reads and parses a TOML file (see [`Config::from_toml_str`]).
    pub fn from_toml_file(path: impl AsRef<Path>) -> Result<Config> {
        Config::default().with_toml_file(path)
    }

    /// Reads and parses a TOML file over this configuration (see [`Config::with_toml_str`]).
    pub fn with_toml_file(self, path: impl AsRef<Path>) -> Result<Config> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(format!("reading configuration file {}", path.display()), e))?;
        self.with_toml_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_validates() {
        let c =
            Config::from_toml_str("cols = 100\nquiet_ms = 250\nidle_timeout_ms = 60000\n").unwrap();
        assert_eq!(
            (c.cols, c.quiet, c.idle_timeout),
            (100, Duration::from_millis(250), Some(Duration::from_secs(60)))
        );
        let err = Config::from_toml_str("colz = 1").unwrap_err().to_string();
        assert!(err.contains("colz"), "{err}");
        let err = Config::from_toml_str("cols = 1").unwrap_err().to_string();
        assert!(err.contains("cols"), "{err}");
    }

    #[test]
    fn reads_the_policy_table() {
        let c = Config::from_toml_str(
            "[policy]\ndefault = \"deny\"\n[[policy.rules]]\nname = \"ls\"\nprogram = [\"ls\"]\ndecision = \"allow\"\n",
        )
        .unwrap();
        let policy = c.policy.unwrap();
        assert_eq!((policy.default, policy.rules.len()), (crate::Decision::Deny, 1));
        let err = Config::from_toml_str("[[policy.rules]]\nargs = \"(\"\ndecision = \"deny\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rule 1"), "{err}");
    }
}
