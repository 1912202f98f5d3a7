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
//! after it, or for its exit, not for input. Nothing tells whether the reader itself reacts
//! when the work ends: `entr -s`, its parent, prints its exit status then. A member that
//! waits for it to end and may print (its parent, or that parent's, waiting for a child with
//! its own output not going nowhere: a subshell running `make >/dev/null 2>&1; echo built`
//! in the background) keeps the group busy: what is shown changes when the work is done.
//! Not a member the reader descends from: a shell waits for any child, the reader it runs
//! in the foreground too (`make >/dev/null 2>&1 & head -n1`), and prints after it.
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

    /// The group's verdict once every member (`group`) is looked at, `reader` the one that
    /// reads the terminal, `behind` the members waiting behind something with their threads:
    /// `None` when nothing is set aside, or when a reader is known and no member set aside
    /// holds a terminal but on its standard input, nor is awaited by a member that may print
    /// ([`awaited_by_a_printer`]); else the first such member's verdict (with no reader, the
    /// first member's).
    pub(super) fn verdict(
        self,
        reader: Option<i32>,
        group: &[ProcStat],
        behind: &[(i32, Vec<ThreadObs>)],
        looks: &Looks,
    ) -> Option<InputWait> {
        let mut members = self.members.into_iter();
        if reader.is_none() {
            return members.next().map(|(_, verdict)| verdict);
        }
        members
            .find(|&(pid, _)| {
                awaited_by_a_printer(pid, reader, group, behind, looks)
                    || !prints_nowhere(pid, looks, Scope::All)
            })
            .map(|(_, verdict)| verdict)
    }
}

/// Whether member `pid` of `group` is awaited by a member that may print once it ends: its
/// parent, or that parent's and so on, a member of `behind` with a thread waiting for a child,
/// whose standard output or error is not `/dev/null` (a subshell's `make >/dev/null 2>&1;
/// echo built`). A parent that waits and prints nowhere is passed through to its own. Not a
/// parent the `reader` descends from: a shell waits for any child (`waitpid(-1)`), and one
/// that ran the reader in the foreground (`work >/dev/null 2>&1 & head -n1`) waits for it,
/// printing nothing before it ends; so do the shell's own parents.
fn awaited_by_a_printer(
    pid: i32,
    reader: Option<i32>,
    group: &[ProcStat],
    behind: &[(i32, Vec<ThreadObs>)],
    looks: &Looks,
) -> bool {
    let waits_for_a_child = |parent: i32| {
        behind.iter().any(|(pid, threads)| {
            *pid == parent
                && threads.iter().any(
                    |t| matches!(&t.activity, Activity::Other(what) if waits_for_a_child(what)),
                )
        })
    };
    let mut at = pid;
    // (At most every member once: a parent is looked up among them.)
    for _ in 0..group.len() {
        let Some(parent) = group.iter().find(|m| m.pid == at).map(|m| m.ppid) else {
            return false;
        };
        if !waits_for_a_child(parent) || reader.is_some_and(|r| descends(r, parent, group)) {
            return false;
        }
        if !prints_nowhere(parent, looks, Scope::Streams) {
            return true;
        }
        at = parent;
    }
    false
}

/// Whether member `pid` of `group` is `ancestor` or descends from it through members.
fn descends(pid: i32, ancestor: i32, group: &[ProcStat]) -> bool {
    let mut at = pid;
    // (At most every member once.)
    for _ in 0..=group.len() {
        if at == ancestor {
            return true;
        }
        match group.iter().find(|m| m.pid == at) {
            Some(member) => at = member.ppid,
            None => return false,
        }
    }
    false
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
        Search::Found(Seen::Prints) | Search::Unknown(_) => false,
    }
}
