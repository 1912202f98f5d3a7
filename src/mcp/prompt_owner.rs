//! Who asks for a secret: the process reading the session's terminal (its pid and start time)
//! and the prompt line it shows. A secret the person posted is typed only while the same
//! process shows the same prompt (`terminal_send secret=true`): one asked for `sudo` must not
//! be typed into whatever asks next (`python3`'s `getpass`, which prints it, or `ssh` to
//! another host).
//!
//! The process is read only once the session is seen waiting for input
//! ([`crate::Until::input_wait`]: blocked reading the terminal, no output or input for
//! `Config::input_settle`): before that,
//! `Status::foreground` names the foreground group's leader, so a shell and the `python3` it
//! started (one group) would look the same. A session that does not settle within [`settle`],
//! or whose reader `/proc` does not name (`Status::reader`) while its foreground group has
//! other members than its leader, gets no owner, and no secret is typed for it: the leader
//! alone in its group is the reader (`sudo` under a server that is not root).

use std::time::Duration;

use super::tools::ToolError;
use crate::{Activity, Session};

/// The longest a look at who asks waits, with `config`: 2 s past its `input_settle`
/// (which may be up to 10 s), which a session must be quiet for before it is seen waiting.
pub(crate) fn settle(config: &crate::Config) -> Duration {
    config.reader_settle()
}

/// The process at a session's password prompt, and the prompt, when the secret is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptOwner {
    /// The process reading the terminal, seen waiting for input (`Status::foreground`).
    pub pid: Option<i32>,
    /// Its start time (`starttime` of `/proc/PID/stat`), lest a pid reused count as the same
    /// process; `None` where it cannot be read.
    pub started: Option<u64>,
    /// Its name.
    pub program: String,
    /// The screen's line at the cursor, trimmed: the prompt.
    pub prompt: String,
}

impl PromptOwner {
    /// Who asks in `session` now: waits up to `within` ([`settle`]) for it to be seen waiting
    /// for input, and says why no secret can be typed when it is not, or nothing names its
    /// reader.
    #[cfg(test)]
    pub(crate) fn read(session: &Session, within: Duration) -> Result<PromptOwner, ToolError> {
        PromptOwner::of(session, &session.wait(crate::Until::input_wait(), within)?, within)
    }

    /// Who asks in `session`, from `waited`, the outcome of a wait of up to `within` for
    /// [`crate::Until::input_wait`] (one a call's cancellation ends: see `tools::io`).
    pub(crate) fn of(
        session: &Session,
        waited: &crate::WaitOutcome,
        within: Duration,
    ) -> Result<PromptOwner, ToolError> {
        let settled = waited.is_held() && waited.status.activity == Activity::WaitingForInput;
        let reader = match waited.status.foreground.clone() {
            Some(process)
                if settled
                    && match waited.status.reader {
                        Some(named) => named == process.pid,
                        None => leads_alone(session, process.pid),
                    } =>
            {
                process
            }
            Some(_) if settled => {
                return Err(ToolError::no_answer(
                    "no process reading the session's terminal can be named (only its foreground group, which has several members), so which one would read the secret cannot be told; nothing was typed",
                ));
            }
            Some(_) => {
                return Err(ToolError::no_answer(format!(
                    "the session was not seen waiting for input within {within:?} (it still prints, or is busy), so which process would read the secret cannot be told; nothing was typed: call again once it waits"
                )));
            }
            None => {
                return Err(ToolError::no_answer(
                    "no process reading the session's terminal can be named, so which one would read the secret cannot be told; nothing was typed",
                ));
            }
        };
        let screen = session.screen()?;
        let prompt = screen.lines.get(screen.cursor.row as usize).map_or("", |l| l.trim());
        let started = crate::os::procfs::read_stat(reader.pid).ok().and_then(|s| s.starttime);
        let (pid, program) = (Some(reader.pid), reader.name);
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

/// Whether the foreground group led by `leader` has no other live member in `session`: then
/// the leader is the process that reads, though `/proc` did not name it (`sudo`, another
/// user's process, under a server that is not root: its `/proc/PID/syscall` is denied, and
/// only its line modes tell it asks for a password). `/proc/PID/stat` is readable for all.
fn leads_alone(session: &Session, leader: i32) -> bool {
    let members = crate::os::procfs::live_session_processes(session.pid());
    members.iter().filter(|process| process.pgrp == leader).map(|process| process.pid).eq([leader])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Engine, SpawnSpec, Until};

    /// Once a shell's password prompt took its line, the `python3` it starts (in the shell's
    /// process group) asks at the same prompt: read before the session settles, the owner
    /// must be `python3`, not the group's leader, or the shell's secret would be typed into
    /// `python3`, which prints it.
    #[test]
    fn the_owner_is_the_process_that_reads_not_its_groups_leader() {
        let engine = Engine::new(Config::default()).unwrap();
        let script = r#"read -r -s -p 'Password: ' p; echo; python3 -c 'import getpass; print("second"); getpass.getpass("Password: ")'; true"#;
        let session = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
        let long = Duration::from_secs(20);
        session.wait(Until::input_wait(), long).unwrap();
        let first = PromptOwner::read(&session, settle(&Config::default())).unwrap();
        assert_eq!((first.program.as_str(), first.prompt.as_str()), ("bash", "Password:"));
        session.send_text("\n").unwrap();
        // python3 runs; whether it reads yet or not, the group's leader is bash.
        assert!(session.wait(Until::text("second"), long).unwrap().is_held());
        let now = PromptOwner::read(&session, settle(&Config::default())).unwrap();
        assert_eq!(now.program, "python3", "{now:?}");
        assert!(first.changed(&now).is_some(), "{first:?} {now:?}");
        session.close().unwrap();
    }

    /// A shell's `read` times out, and the `head` it starts (same group) reads at the same
    /// prompt with nothing written either way: the owner must become `head`, not stay the
    /// shell the sighting cached before named, or the shell's secret would be typed into it.
    #[test]
    fn a_new_reader_of_the_group_is_named_though_nothing_was_written() {
        let engine = Engine::new(Config::default()).unwrap();
        let script = "read -r -s -t 3 -p 'Password: ' p; stty -echo; head -n1 > /dev/null";
        let session = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
        let long = Duration::from_secs(20);
        session.wait(Until::input_wait(), long).unwrap();
        let first = PromptOwner::read(&session, settle(&Config::default())).unwrap();
        assert_eq!((first.program.as_str(), first.prompt.as_str()), ("bash", "Password:"));
        // Each look waits for the session to be seen waiting; bash's `read` times out after
        // 3 s, then `head` reads.
        let deadline = std::time::Instant::now() + long;
        let mut now = PromptOwner::read(&session, settle(&Config::default()));
        while !matches!(&now, Ok(owner) if owner.program == "head")
            && std::time::Instant::now() < deadline
        {
            now = PromptOwner::read(&session, settle(&Config::default()));
        }
        let now = now.unwrap();
        assert_eq!(now.program, "head", "{now:?}");
        assert!(first.changed(&now).is_some(), "{first:?} {now:?}");
        session.close().unwrap();
    }

    /// With `input_settle` longer than the 2 s the look waits past it, a session must still be
    /// seen waiting within the look, or no secret could ever be typed.
    #[test]
    fn the_look_outlasts_a_long_input_settle() {
        let config = Config { input_settle: Duration::from_secs(3), ..Config::default() };
        let engine = Engine::new(config.clone()).unwrap();
        let script = "read -r -s -p 'Password: ' p";
        let session = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
        let owner = PromptOwner::read(&session, settle(&config)).unwrap();
        assert_eq!((owner.program.as_str(), owner.prompt.as_str()), ("bash", "Password:"));
        session.close().unwrap();
    }

    /// A group's leader stands for an unnamed reader only when it is the group's one live
    /// member: beside a job of its group (`sleep &`), which may read as well, it does not.
    #[test]
    fn a_leader_stands_for_its_group_only_alone() {
        let engine = Engine::new(Config::default()).unwrap();
        let long = Duration::from_secs(20);
        for (script, alone) in [("read -r -s p", true), ("sleep 30 & read -r -s p", false)] {
            let session = engine.spawn(SpawnSpec::new("bash").args(["-c", script])).unwrap();
            assert!(session.wait(Until::input_wait(), long).unwrap().is_held(), "{script}");
            assert_eq!(leads_alone(&session, session.pid()), alone, "{script}");
            session.close().unwrap();
        }
    }
}
