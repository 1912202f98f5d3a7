//! Who asks for a secret: the process reading the session's terminal (its pid and start time)
//! and the prompt line it shows. A secret the person posted is typed only while the same
//! process shows the same prompt (`terminal_send secret=true`): one asked for `sudo` must not
//! be typed into whatever asks next (`python3`'s `getpass`, which prints it, or `ssh` to
//! another host).

use crate::{Result, Session};

/// The process at a session's password prompt, and the prompt, when the secret is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptOwner {
    /// The foreground process: the one reading the terminal while it is seen waiting, else
    /// the foreground group's leader (`Status::foreground`); `None` without one.
    pub pid: Option<i32>,
    /// Its start time (`starttime` of `/proc/PID/stat`), lest a pid reused count as the same
    /// process; `None` where it cannot be read.
    pub started: Option<u64>,
    /// Its name, or the session's program without a foreground process.
    pub program: String,
    /// The screen's line at the cursor, trimmed: the prompt.
    pub prompt: String,
}

impl PromptOwner {
    /// Who asks in `session` now.
    pub(crate) fn read(session: &Session) -> Result<PromptOwner> {
        let status = session.status()?;
        let screen = session.screen()?;
        let prompt = screen.lines.get(screen.cursor.row as usize).map_or("", |l| l.trim());
        let (pid, program) = match status.foreground {
            Some(process) => (Some(process.pid), process.name),
            None => (None, session.info()?.program),
        };
        let started = pid.and_then(|pid| crate::os::procfs::read_stat(pid).ok()?.starttime);
        Ok(PromptOwner { pid, started, program, prompt: prompt.to_owned() })
    }

    /// Why a secret asked for by `self` must not be typed for `now`, when it must not.
    pub(crate) fn changed(&self, now: &PromptOwner) -> Option<String> {
        if self == now {
            return None;
        }
        let who = |owner: &PromptOwner| match owner.pid {
            Some(pid) => format!("{} (pid {pid})", owner.program),
            None => owner.program.clone(),
        };
        Some(if self.pid != now.pid || self.started != now.started || self.program != now.program {
            format!("{} asked for it, and {} reads the terminal now", who(self), who(now))
        } else {
            "the program's prompt changed since it was asked for".to_owned()
        })
    }
}
