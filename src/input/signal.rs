//! Signals a caller can send to a session: [`Signal`], and what was signalled.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A signal for [`Session::signal`](crate::Session::signal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Signal {
    /// SIGINT (what Ctrl-C sends).
    Int,
    /// SIGTERM.
    Term,
    /// SIGKILL.
    Kill,
    /// SIGQUIT (what Ctrl-\ sends).
    Quit,
    /// SIGHUP.
    Hup,
    /// SIGTSTP (what Ctrl-Z sends). It stops a job of a shell with job control; the kernel
    /// discards it for the session's own program and its process group (an orphaned group,
    /// whose parent is outside the session), so it does not stop them.
    Tstp,
    /// SIGSTOP: stops the foreground process group whatever it is, the session's own program
    /// included (which SIGTSTP cannot stop: see [`Signal::Tstp`]); [`Signal::Cont`] goes on.
    Stop,
    /// SIGCONT.
    Cont,
    /// SIGWINCH.
    Winch,
    /// SIGUSR1.
    Usr1,
    /// SIGUSR2.
    Usr2,
}

/// Every signal a caller can send, in the order an unknown name's error (and MCP's
/// `terminal_signal` schema) lists them.
pub(crate) const ALL: [Signal; 11] = [
    Signal::Int,
    Signal::Term,
    Signal::Kill,
    Signal::Quit,
    Signal::Hup,
    Signal::Tstp,
    Signal::Stop,
    Signal::Cont,
    Signal::Winch,
    Signal::Usr1,
    Signal::Usr2,
];

impl Signal {
    /// The name without `SIG`, upper case (from [`crate::signal_name`], the one table).
    pub fn name(self) -> &'static str {
        let name = crate::types::signal_name(self.to_rustix().as_raw());
        name.and_then(|name| name.strip_prefix("SIG")).unwrap_or("?")
    }

    pub(crate) fn to_rustix(self) -> rustix::process::Signal {
        use rustix::process::Signal as S;
        match self {
            Signal::Int => S::INT,
            Signal::Term => S::TERM,
            Signal::Kill => S::KILL,
            Signal::Quit => S::QUIT,
            Signal::Hup => S::HUP,
            Signal::Tstp => S::TSTP,
            Signal::Stop => S::STOP,
            Signal::Cont => S::CONT,
            Signal::Winch => S::WINCH,
            Signal::Usr1 => S::USR1,
            Signal::Usr2 => S::USR2,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SIG{}", self.name())
    }
}

impl FromStr for Signal {
    type Err = Error;

    /// Parses `INT`, `SIGINT`, `int` and so on.
    fn from_str(text: &str) -> Result<Self, Error> {
        let upper = text.trim().to_ascii_uppercase();
        let name = upper.strip_prefix("SIG").unwrap_or(&upper);
        ALL.into_iter().find(|signal| signal.name() == name).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|signal| signal.name()).collect();
            Error::InvalidInput(format!(
                "unknown signal {}; accepted: {} (with or without SIG)",
                crate::error::quoted(text),
                names.join(", ")
            ))
        })
    }
}

/// Which processes a signal goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalTarget {
    /// The terminal's foreground process group (what a key like Ctrl-C reaches).
    #[default]
    Foreground,
    /// Every process group of the session.
    Session,
}

/// What a signal reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SignalReport {
    /// The signal sent.
    pub signal: Signal,
    /// The process groups that received it.
    pub groups: Vec<i32>,
    /// The name of each group's leader (or first member), in the same order.
    pub names: Vec<String>,
}

impl fmt::Display for SignalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let targets: Vec<String> = self
            .groups
            .iter()
            .zip(&self.names)
            .map(|(group, name)| format!("process group {group} ({name})"))
            .collect();
        write!(f, "sent {} to {}", self.signal, targets.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names() {
        assert_eq!("int".parse::<Signal>().unwrap(), Signal::Int);
        assert_eq!("SIGTSTP".parse::<Signal>().unwrap(), Signal::Tstp);
        let err = "SIGFOO".parse::<Signal>().unwrap_err().to_string();
        assert!(err.contains("SIGFOO") && err.contains("USR2"), "{err}");
    }

    /// Every signal a caller can send is named, from the one table of names by number (it
    /// had no name for SIGTSTP, SIGSTOP, SIGCONT and SIGWINCH, which `ALL` named apart).
    #[test]
    fn every_signal_a_caller_sends_is_named_and_parsed_back() {
        for signal in ALL {
            let name = signal.name();
            assert_ne!(name, "?", "{signal:?}");
            assert_eq!(name.parse::<Signal>().unwrap(), signal);
        }
    }
}
