//! The options of `termloom run` ([`RunOptions`]) and their table ([`OPTIONS`]). Options set
//! up the run as a whole, wherever they appear before `--`; adding one is one table entry.

use std::path::PathBuf;
use std::time::Duration;

use super::table::Def;
use super::values::{self, Size};

/// Default timeout of each wait step.
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_millis(10_000);

/// Everything the options set.
#[derive(Debug, Clone)]
pub(super) struct RunOptions {
    /// Terminal size (the engine's default when `None`).
    pub size: Option<Size>,
    /// Timeout of each wait step.
    pub timeout: Duration,
    /// Print one JSON object instead of the human report.
    pub json: bool,
    /// Environment variables set for the program, in order.
    pub env: Vec<(String, String)>,
    /// Working directory of the program.
    pub cwd: Option<PathBuf>,
    /// A shell command line to run instead of `-- PROGRAM [ARGS...]`.
    pub shell: Option<String>,
    /// Show the help instead of running.
    pub help: bool,
    /// Start the shell with OSC 133 prompt marks.
    pub shell_integration: bool,
    /// A TOML configuration file for the engine.
    pub config: Option<PathBuf>,
    /// Record the session (asciicast v2) to this file.
    pub record: Option<PathBuf>,
    /// A TOML spawn policy.
    pub policy: Option<PathBuf>,
    /// The most bytes of the final transcript printed (its end); all of it when `None`.
    pub max_bytes: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            size: None,
            timeout: DEFAULT_TIMEOUT,
            json: false,
            env: Vec::new(),
            cwd: None,
            shell: None,
            help: false,
            shell_integration: false,
            config: None,
            record: None,
            policy: None,
            max_bytes: None,
        }
    }
}

/// Applies an option's value (the empty string for flags) to the options.
pub(super) type OptionSetter = fn(&mut RunOptions, &str) -> Result<(), String>;

/// An option's table entry.
pub(super) type OptionDef = Def<OptionSetter>;

const SECTION: &str = "Options";

/// Every option, in the order the help lists them.
pub(super) const OPTIONS: &[OptionDef] = &[
    Def {
        name: "--size",
        alias: None,
        value: Some("COLSxROWS"),
        section: SECTION,
        help: "Terminal size at the start (default 120x32; columns 2..=1000,\n\
               rows 1..=500).",
        action: |o, v| {
            o.size = Some(values::size(v)?);
            Ok(())
        },
    },
    Def {
        name: "--timeout",
        alias: None,
        value: Some("MS"),
        section: SECTION,
        help: "Timeout of each wait step in milliseconds (default 10000, at\n\
               most 86400000: a day; a server's commands wait at most an\n\
               hour, as they hold a connection to a shared server).",
        action: |o, v| {
            o.timeout = values::millis(v)?;
            Ok(())
        },
    },
    Def {
        name: "--max-bytes",
        alias: None,
        value: Some("N"),
        section: SECTION,
        help: "Print at most the last N bytes of the final transcript, whole\n\
               lines (default: all the engine keeps; 1..=1073741824).",
        action: |o, v| {
            o.max_bytes = Some(values::whole_number(v, 1, 1 << 30)? as usize);
            Ok(())
        },
    },
    Def {
        name: "--json",
        alias: None,
        value: None,
        section: SECTION,
        help: "Print one JSON object on stdout instead of the human report\n\
               (see Output).",
        action: |o, _| {
            o.json = true;
            Ok(())
        },
    },
    Def {
        name: "--env",
        alias: None,
        value: Some("KEY=VALUE"),
        section: SECTION,
        help: "Set an environment variable for the program (repeatable). The\n\
               program otherwise inherits termloom's environment, with\n\
               TERM=xterm-256color and credential-like variables removed.",
        action: |o, v| {
            o.env.push(values::env_pair(v)?);
            Ok(())
        },
    },
    Def {
        name: "--cwd",
        alias: None,
        value: Some("DIR"),
        section: SECTION,
        help: "Working directory of the program (default: the current one).",
        action: |o, v| {
            o.cwd = Some(PathBuf::from(v));
            Ok(())
        },
    },
    Def {
        name: "--record",
        alias: None,
        value: Some("FILE.cast"),
        section: SECTION,
        help: "Record the session in asciicast v2 (asciinema play FILE.cast\n\
               replays it): output, resizes and where each wait ended. A new\n\
               file (0600) replaces FILE once the program starts, unless FILE\n\
               cannot be replaced (a mount point, a directory you cannot write):\n\
               it is then written in place. A FIFO, a device or /dev/stdout is\n\
               written as it is; a symbolic link is followed only if it is\n\
               yours or root's; FILE/ and a FILE another session records to\n\
               are refused.",
        action: |o, v| {
            o.record = Some(PathBuf::from(v));
            Ok(())
        },
    },
    Def {
        name: "--shell",
        // `termloom start`'s name for it, which an agent that used `start` gives here too.
        alias: Some("--command"),
        value: Some("LINE"),
        section: SECTION,
        help: "Run the shell command line LINE instead of `-- PROGRAM`: as\n\
               `bash -lc LINE` ($SHELL instead of bash when it is bash or zsh).",
        action: |o, v| {
            o.shell = Some(v.to_owned());
            Ok(())
        },
    },
    Def {
        name: "--shell-integration",
        alias: None,
        value: None,
        section: SECTION,
        help: "Start an interactive bash or zsh (`-- bash`) that marks its prompts\n\
               (OSC 133), for --wait-prompt and --run-command. The prompt looks\n\
               the same and the user's startup files are still read.",
        action: |o, _| {
            o.shell_integration = true;
            Ok(())
        },
    },
    Def {
        name: "--config",
        alias: None,
        value: Some("FILE"),
        section: SECTION,
        help: "Read the engine's configuration from a TOML file (keys are the\n\
               Config field names; durations as NAME_ms in milliseconds).",
        action: |o, v| {
            o.config = Some(PathBuf::from(v));
            Ok(())
        },
    },
    Def {
        name: "--policy",
        alias: None,
        value: Some("FILE"),
        section: SECTION,
        help: "Check the start against a spawn policy (TOML: `default` and\n\
               [[rules]] with program, args, cwd, env, decision = allow, deny\n\
               or ask, reason). A denied start runs nothing; `ask` is denied\n\
               here (no one to ask).",
        action: |o, v| {
            o.policy = Some(PathBuf::from(v));
            Ok(())
        },
    },
    Def {
        name: "--help",
        alias: Some("-h"),
        value: None,
        section: SECTION,
        help: "Show this help.",
        action: |o, _| {
            o.help = true;
            Ok(())
        },
    },
];
