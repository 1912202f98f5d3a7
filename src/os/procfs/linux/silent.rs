//! Members whose output goes nowhere: busy or asleep, they cannot answer what was typed.
//!
//! A shell that starts a job in the background without job control leaves it in its own
//! process group, the terminal's foreground one: fish's first start generates completions
//! from the manual pages (`create_manpage_completions.py`, 15 s of work, its output to
//! `/dev/null`) while fish waits at its prompt; `sh -c '(work) >/dev/null 2>&1 & read x'`
//! asks its question while the work goes on. Such a member, busy, made the whole group
//! busy: no wait saw the prompt until it ended. It prints nothing on the terminal, so the
//! group waits for input when another member reads it.
//!
//! What that means for the work: a member that reads the terminal beside a silent one waits
//! for input while the work goes on, whatever the work is the user's: a script's "press q
//! to abort" read beside a silent `tar`, `entr` (which reads keys) beside its
//! `make >/dev/null 2>&1`. The reader does wait for keys, and nothing the work does shows on
//! the terminal; a caller that waits for the work's end waits for what the program prints
//! after it, or for its exit, not for input. That holds too when another member waits for
//! the work to end and prints then (`entr -s`'s shell, which reports the exit status): its
//! wait is taken as one behind the reader's.
//!
//! Standard input is not counted: a job that inherited the terminal there (every terminal a
//! shell passes on is open for reading and writing) does not write to it; a program that
//! writes to the terminal uses its standard output or error, or opens it (`/dev/tty`), which
//! is counted.
//!
//! The check keeps within the probe's descriptor budget ([`search_descriptors`]): while the
//! group is looked at, a busy member is set aside on its standard output and error alone
//! (the first descriptors listed), and only once a reader is known are the set-aside
//! members' other descriptors searched for a terminal, up to the first that holds one. At
//! most [`SILENT_MEMBERS`] are set aside: one more makes the group busy.

use super::*;

/// The most busy members whose output goes nowhere that one look at a group sets aside; the
/// next one makes the group busy, as any busy member does (a shell's background jobs are a
/// few processes: 200 `flock` processes blocked on one lock, each looked at, took 3 s of a
/// server's CPU over a 5 s wait).
pub(super) const SILENT_MEMBERS: usize = 8;

/// The busy (or asleep) members of a group whose standard output and error go nowhere, set
/// aside while the group is looked at, each with its verdict.
#[derive(Debug, Default)]
pub(super) struct Silent {
    members: Vec<(i32, InputWait)>,
}

impl Silent {
    /// Sets member `pid`, busy or asleep (`verdict`), aside when its standard output and
    /// error are `/dev/null` or closed and fewer than [`SILENT_MEMBERS`] are set aside; else
    /// gives `verdict` back: the group's.
    pub(super) fn set_aside(
        &mut self,
        pid: i32,
        verdict: InputWait,
        looks: &Looks,
    ) -> Result<(), InputWait> {
        if self.members.len() == SILENT_MEMBERS || !prints_nowhere(pid, looks, Scope::Streams) {
            return Err(verdict);
        }
        self.members.push((pid, verdict));
        Ok(())
    }

    /// The group's verdict once every member is looked at, `reader` the one that reads the
    /// terminal: `None` when nothing is set aside, or when a reader is known and no member set
    /// aside holds a terminal but on its standard input; else the first such member's verdict
    /// (with no reader, the first member's).
    pub(super) fn verdict(self, reader: Option<i32>, looks: &Looks) -> Option<InputWait> {
        let mut members = self.members.into_iter();
        if reader.is_none() {
            return members.next().map(|(_, verdict)| verdict);
        }
        members.find(|&(pid, _)| !prints_nowhere(pid, looks, Scope::All)).map(|(_, v)| v)
    }
}

/// Which descriptors [`prints_nowhere`] looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Standard output and error alone.
    Streams,
    /// Every descriptor.
    All,
}

/// What a descriptor tells [`prints_nowhere`].
enum Seen {
    /// The process may print on a terminal.
    Prints,
    /// Standard output and error are behind: no more to look at.
    StreamsDone,
}

/// Whether process `pid` can print nothing on a terminal: its standard output and error are
/// `/dev/null` (or closed), and, for [`Scope::All`], no descriptor but its standard input is
/// a terminal (one opened as `/dev/tty` is). `false` when that cannot be told among the
/// descriptors `looks` has room for (another user's process, one gone meanwhile, too many
/// descriptors).
fn prints_nowhere(pid: i32, looks: &Looks, scope: Scope) -> bool {
    let search = search_descriptors(pid, looks, |path, target| {
        let fd: u32 = path.rsplit('/').next()?.parse().ok()?;
        match fd {
            0 => None,
            1 | 2 => (target != "/dev/null").then_some(Seen::Prints),
            // (Listed in order: the standard streams come first.)
            _ if scope == Scope::Streams => Some(Seen::StreamsDone),
            _ => is_terminal(target).then_some(Seen::Prints),
        }
    });
    match search {
        Search::Absent | Search::Found(Seen::StreamsDone) => true,
        Search::Found(Seen::Prints) | Search::Unknown => false,
    }
}
