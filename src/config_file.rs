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
    cols: Option<Whole>,
    rows: Option<Whole>,
    scrollback_lines: Option<Whole>,
    scrollback_bytes: Option<Whole>,
    max_read_bytes: Option<Whole>,
    max_readers: Option<Whole>,
    readers_tail_bytes: Option<Whole>,
    raw_output_bytes: Option<Whole>,
    recording_file_bytes: Option<Whole>,
    write_queue_bytes: Option<Whole>,
    paste_bytes: Option<Whole>,
    max_waits: Option<Whole>,
    max_waits_per_reader: Option<Whole>,
    request_queue: Option<Whole>,
    quiet_ms: Option<Whole>,
    input_settle_ms: Option<Whole>,
    default_wait_timeout_ms: Option<Whole>,
    close_grace_ms: Option<Whole>,
    exit_drain_ms: Option<Whole>,
    max_sessions: Option<Whole>,
    max_closed_sessions: Option<Whole>,
    idle_timeout_ms: Option<Whole>,
    max_lifetime_ms: Option<Whole>,
    reaper_interval_ms: Option<Whole>,
    cgroups: Option<bool>,
    base_dir: Option<PathBuf>,
    record_dir: Option<PathBuf>,
    record_every_session: Option<bool>,
    max_osc_bytes: Option<Whole>,
    max_title_bytes: Option<Whole>,
    max_hyperlink_bytes: Option<Whole>,
    max_title_stack: Option<Whole>,
    max_combining_marks: Option<Whole>,
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

/// A TOML integer, told apart from other types with a message a person reads ("expected a
/// whole number", not "expected u16"), and fitted to its field by [`fit`].
#[derive(Debug, Clone, Copy)]
struct Whole(i64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Whole;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole number")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Whole, E> {
                Ok(Whole(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Whole, E> {
                i64::try_from(v).map(Whole).map_err(|_| E::custom(format!("{v} is too large")))
            }
        }
        deserializer.deserialize_i64(Visitor)
    }
}

/// `value` of the file's `key` as its field's type. A value the type cannot hold (a negative
/// number, `cols = 70000`) is outside every field's range, so it is reported as one: with the
/// range the field's own check names (found by checking the type's largest value, which no
/// range allows).
fn fit<T: FieldNumber>(key: &'static str, value: Whole) -> Result<T> {
    T::try_from(value.0).map_err(|_| {
        let probe = format!("{key} = {}", T::MAX_IN_TOML);
        let range = match Config::default().with_toml_str(&probe) {
            Err(Error::InvalidConfig { message, .. }) => {
                message.split_once("; ").map(|(_, range)| range.to_owned())
            }
            _ => None,
        };
        let message = match range {
            Some(range) => format!("is {}; {range}", value.0),
            None => format!("is {}, which is out of range", value.0),
        };
        Error::InvalidConfig { field: key, message }
    })
}

/// A field type a TOML integer (an `i64`) is fitted to, and the largest value of it one can
/// give.
trait FieldNumber: TryFrom<i64> {
    const MAX_IN_TOML: i64;
}

impl FieldNumber for u16 {
    const MAX_IN_TOML: i64 = u16::MAX as i64;
}

impl FieldNumber for usize {
    // (On a 32-bit target, usize's own largest value.)
    const MAX_IN_TOML: i64 = if usize::BITS >= 64 { i64::MAX } else { usize::MAX as i64 };
}

impl FieldNumber for u64 {
    const MAX_IN_TOML: i64 = i64::MAX;
}

impl Config {
    /// Parses TOML text over the defaults, then validates the result.
    pub fn from_toml_str(text: &str) -> Result<Config> {
        Config::default().with_toml_str(text)
    }

    /// Parses TOML text over this configuration (what the text leaves out keeps its value
    /// here: a host's own defaults), then validates the result.
    pub fn with_toml_str(self, text: &str) -> Result<Config> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| Error::InvalidConfig {
            field: "file",
            message: format!("cannot be parsed: {e}"),
        })?;
        let ms = Duration::from_millis;
        let mut c = self;
        macro_rules! set {
            ($($field:ident),*) => { $(if let Some(v) = file.$field { c.$field = v; })* };
        }
        macro_rules! set_number {
            ($($field:ident),*) => {
                $(if let Some(v) = file.$field { c.$field = fit(stringify!($field), v)?; })*
            };
        }
        set!(cgroups, env_allow, env_deny, record_every_session);
        set_number!(cols, rows, scrollback_lines, scrollback_bytes, max_read_bytes);
        set_number!(write_queue_bytes, request_queue, max_sessions, max_closed_sessions);
        set_number!(max_readers, raw_output_bytes, recording_file_bytes, paste_bytes, max_waits);
        set_number!(readers_tail_bytes, max_waits_per_reader);
        set_number!(
            max_osc_bytes,
            max_title_bytes,
            max_hyperlink_bytes,
            max_title_stack,
            max_combining_marks
        );
        macro_rules! set_ms {
            ($($key:ident => $field:ident),*) => {
                $(if let Some(v) = file.$key { c.$field = ms(fit(stringify!($key), v)?); })*
            };
        }
        set_ms!(quiet_ms => quiet, input_settle_ms => input_settle, default_wait_timeout_ms => default_wait_timeout);
        set_ms!(close_grace_ms => close_grace, exit_drain_ms => exit_drain, reaper_interval_ms => reaper_interval);
        if let Some(v) = file.idle_timeout_ms {
            c.idle_timeout = Some(ms(fit("idle_timeout_ms", v)?));
        }
        if let Some(v) = file.max_lifetime_ms {
            c.max_lifetime = Some(ms(fit("max_lifetime_ms", v)?));
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
        // A file that cannot be parsed is named by its path.
        self.with_toml_str(&text).map_err(|err| match err {
            Error::InvalidConfig { field: "file", message } => Error::InvalidConfig {
                field: "file",
                message: format!("{} {message}", path.display()),
            },
            err => err,
        })
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
        let c =
            Config::from_toml_str("max_readers = 1024\nreaders_tail_bytes = 1048576\n").unwrap();
        assert_eq!((c.max_readers, c.readers_tail_bytes), (1024, 1 << 20));
        let c = Config::from_toml_str("max_waits = 512\nmax_waits_per_reader = 16\n").unwrap();
        assert_eq!((c.max_waits, c.max_waits_per_reader), (512, 16));
        let err = Config::from_toml_str("colz = 1").unwrap_err().to_string();
        assert!(err.contains("colz"), "{err}");
        let err = Config::from_toml_str("cols = 1").unwrap_err().to_string();
        assert!(err.contains("cols"), "{err}");
    }

    #[test]
    fn a_number_its_type_cannot_hold_is_named_with_its_key_and_range() {
        for (text, expected) in [
            ("cols = 70000", "cols is 70000; allowed range is 2..=1000"),
            ("rows = -1", "rows is -1; allowed range is 1..=500"),
            ("scrollback_lines = -3", "scrollback_lines is -3; allowed range is 1..=10000000"),
            ("max_title_stack = -1", "max_title_stack is -1; allowed range is 0..=4096"),
            ("max_waits = 0", "max_waits is 0; allowed range is 1..=100000"),
            ("max_waits_per_reader = 0", "max_waits_per_reader is 0; allowed range is 1..=100000"),
            ("quiet_ms = -5", "quiet_ms is -5; allowed range is 1ms..=3600s"),
            ("idle_timeout_ms = -5", "idle_timeout_ms is -5; allowed range is 1s..=2592000s"),
        ] {
            let err = Config::from_toml_str(text).unwrap_err().to_string();
            assert_eq!(err, format!("invalid configuration: {expected}"), "{text}");
        }
        let err = Config::from_toml_str("cols = \"wide\"").unwrap_err().to_string();
        assert!(err.contains("expected a whole number"), "{err}");
        // Numbers in range still work, at the edges too.
        let c =
            Config::from_toml_str("cols = 1000\nmax_title_stack = 0\nclose_grace_ms = 0").unwrap();
        assert_eq!((c.cols, c.max_title_stack, c.close_grace), (1000, 0, Duration::ZERO));
    }

    #[test]
    fn a_file_that_cannot_be_parsed_is_named_by_its_path() {
        let dir = std::env::temp_dir().join(format!("termloom-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(&path, "cols = [\n").unwrap();
        let err = Config::from_toml_file(&path).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            err.starts_with(&format!(
                "invalid configuration: file {} cannot be parsed",
                path.display()
            )),
            "{err}"
        );
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
