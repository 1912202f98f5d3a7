//! Why a run stopped before its last step ([`Failure`]), with the exit code and the message
//! that explain it.

use std::io;
use std::time::Duration;

use serde_json::{Value, json};
use termloom::{ExitStatus, Screen};

use super::parse::Planned;

/// Exit code of a timed-out wait (as `timeout(1)`).
pub(super) const EXIT_TIMEOUT: u8 = 124;
/// Exit code of any other failure.
pub(super) const EXIT_FAILURE: u8 = 1;

/// The kinds of failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FailureKind {
    /// A wait timed out.
    Timeout,
    /// The program exited while a step waited for something else.
    Exited,
    /// The session was closed while a step waited.
    Closed,
    /// The library or the output refused something.
    Error,
    /// A `--run-command` command failed.
    Command,
}

impl FailureKind {
    /// The name used in JSON.
    fn name(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Exited => "exited",
            FailureKind::Closed => "closed",
            FailureKind::Error => "error",
            FailureKind::Command => "command",
        }
    }
}

/// A failed step.
#[derive(Debug)]
pub(super) struct Failure {
    /// The step's number, if a step failed (not the output).
    pub step: Option<usize>,
    /// What went wrong.
    pub kind: FailureKind,
    /// Its error code (`--json`'s `code`): the library's ([`termloom::Error::code`]), `io`
    /// for a file or the output, else the kind's name.
    pub code: &'static str,
    /// A sentence naming the step and the cause.
    pub message: String,
    /// The screen when it happened, if known (boxed: a `Result`'s error stays small).
    pub screen: Option<Box<Screen>>,
}

impl Failure {
    /// A wait that timed out, with the screen at that moment.
    pub(super) fn timeout(step: &Planned, timeout: Duration, screen: Option<Screen>) -> Failure {
        Failure {
            step: Some(step.number),
            kind: FailureKind::Timeout,
            code: "timeout",
            message: format!("{} timed out after {} ms", step.describe(), timeout.as_millis()),
            screen: screen.map(Box::new),
        }
    }

    /// A `--run-command` whose command failed.
    pub(super) fn command(step: &Planned, code: Option<i32>) -> Failure {
        let code = code.map_or("no exit code".to_owned(), |c| format!("exit code {c}"));
        Failure {
            step: Some(step.number),
            kind: FailureKind::Command,
            code: "command",
            message: format!("{} failed: the command ended with {code}", step.describe()),
            screen: None,
        }
    }

    /// A `--run-command` whose command ended the shell itself (`exit 4`).
    pub(super) fn command_ended_shell(step: &Planned, how: termloom::ExitStatus) -> Failure {
        Failure {
            step: Some(step.number),
            kind: FailureKind::Command,
            code: "command",
            message: format!(
                "{} failed: the shell itself ended during the command ({how})",
                step.describe()
            ),
            screen: None,
        }
    }

    /// The program exited while `step` waited for something else.
    pub(super) fn exited(step: &Planned, status: ExitStatus, screen: Option<Screen>) -> Failure {
        Failure {
            step: Some(step.number),
            kind: FailureKind::Exited,
            code: "exited",
            message: format!(
                "{} failed: the program exited ({status}) before the condition held",
                step.describe()
            ),
            screen: screen.map(Box::new),
        }
    }

    /// The session was closed while `step` waited.
    pub(super) fn closed(step: &Planned) -> Failure {
        Failure {
            step: Some(step.number),
            kind: FailureKind::Closed,
            code: "closed",
            message: format!("{} failed: the session was closed", step.describe()),
            screen: None,
        }
    }

    /// The library refused `step`.
    pub(super) fn error(step: &Planned, error: termloom::Error) -> Failure {
        Failure {
            step: Some(step.number),
            kind: FailureKind::Error,
            code: error.code(),
            message: format!("{} failed: {error}", step.describe()),
            screen: None,
        }
    }

    /// Writing the output failed.
    /// A step could not write `path`.
    pub(super) fn file(step: &Planned, path: &std::path::Path, error: io::Error) -> Failure {
        Failure {
            step: Some(step.number),
            kind: FailureKind::Error,
            code: "io",
            message: format!(
                "{} failed: cannot write {}: {error}",
                step.describe(),
                path.display()
            ),
            screen: None,
        }
    }

    pub(super) fn output(error: io::Error) -> Failure {
        Failure {
            step: None,
            kind: FailureKind::Error,
            code: "io",
            message: format!("writing the output failed: {error}"),
            screen: None,
        }
    }

    /// termloom's exit code for it.
    pub(super) fn exit_code(&self) -> u8 {
        match self.kind {
            FailureKind::Timeout => EXIT_TIMEOUT,
            _ => EXIT_FAILURE,
        }
    }

    /// The JSON `error` object; its `screen` is `null` when it is `last`, the report's final
    /// screen, which the report already holds.
    pub(super) fn to_json(&self, last: &Screen) -> Value {
        let screen = self.screen.as_deref().filter(|screen| *screen != last);
        json!({
            "step": self.step,
            "kind": self.kind.name(),
            "code": self.code,
            "message": self.message,
            "screen": screen.map(super::report::screen_json),
        })
    }

    /// Explains it on stderr: the message, then the screen at that moment unless `reported`,
    /// the final screen the report printed, is the same (one copy is enough).
    pub(super) fn print(&self, reported: Option<&Screen>) {
        match self.screen.as_deref().filter(|screen| Some(*screen) != reported) {
            Some(screen) => say!("termloom: {}. The screen then:\n{screen}", self.message),
            None if self.screen.is_some() => {
                say!("termloom: {}; the report's final screen is the screen then", self.message)
            }
            None => say!("termloom: {}", self.message),
        }
    }
}
