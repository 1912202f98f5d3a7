//! What a session is doing: [`Status`].

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::session::ExitStatus;

/// What the session's program is doing, as far as termloom can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "activity", content = "exit", rename_all = "snake_case")]
pub enum Activity {
    /// It runs and has written output within the quiet window.
    Running,
    /// It runs and has been silent for the quiet window (`Config::quiet`).
    Quiet,
    /// Its foreground process group is blocked reading the terminal (Linux `/proc`).
    WaitingForInput,
    /// The shell is at its prompt (shell integration).
    AtPrompt,
    /// The program exited.
    Exited(ExitStatus),
    /// The session was closed before its program exited; how the program ended.
    Closed(ExitStatus),
}

/// A process, by pid and command name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Process {
    /// Process id (for a foreground group: the group's id).
    pub pid: i32,
    /// Command name (`/proc/PID/comm`).
    pub name: String,
}

/// A session's status, carried by every read and wait outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    /// What it is doing.
    pub activity: Activity,
    /// The terminal's foreground process group, while the program runs.
    pub foreground: Option<Process>,
    /// Time since the program last wrote output.
    pub since_output: Duration,
    /// Exit code of the shell's last command (shell integration).
    pub last_exit_code: Option<i32>,
    /// Whether OSC 133 prompt marks have been seen.
    pub shell_integration: bool,
    /// Why input-wait detection could not decide, when it could not.
    pub input_wait_unknown: Option<String>,
}

impl Default for Status {
    fn default() -> Self {
        Status {
            activity: Activity::Running,
            foreground: None,
            since_output: Duration::ZERO,
            last_exit_code: None,
            shell_integration: false,
            input_wait_unknown: None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.activity {
            Activity::Running => f.write_str("running")?,
            Activity::Quiet => f.write_str("quiet")?,
            Activity::WaitingForInput => f.write_str("waiting for input")?,
            Activity::AtPrompt => f.write_str("at prompt")?,
            Activity::Exited(status) => write!(f, "exited ({status})")?,
            Activity::Closed(status) => write!(f, "closed ({status})")?,
        }
        if let Some(process) = &self.foreground {
            write!(f, ", foreground {} (pid {})", process.name, process.pid)?;
        }
        if let Some(code) = self.last_exit_code {
            write!(f, ", last exit code {code}")?;
        }
        write!(f, ", last output {:.1}s ago", self.since_output.as_secs_f64())
    }
}
