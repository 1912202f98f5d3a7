//! Frames end when the session's shell is back reading the terminal (a shell without OSC 133
//! marks to say so): the program that drew them is gone. A probe that found the terminal's
//! foreground group waiting for input tells it (`Reactor::check_waiters`); it ends them when
//! the reader is the session's leader and the leader is a shell. Not on a change of the
//! foreground group: an interactive shell gives each external command of a loop its own
//! group, so a redraw loop typed at it changes group several times a frame. A program run as
//! the session itself (`top`) is no shell, and a shell running a loop (`sh -c 'while …'`)
//! reads no terminal while it runs.

use super::Slot;

/// Programs taken for a shell by their name (`comm`).
const SHELLS: &[&str] =
    &["bash", "rbash", "sh", "dash", "ash", "zsh", "fish", "ksh", "mksh", "yash", "tcsh", "csh"];

/// The probe found `group` waiting for input, `reader` its member reading (else its leader):
/// frames end when it is the session's shell (its leader, the session's own process) reading.
pub(super) fn shell_reads(slot: &mut Slot, group: Option<i32>, reader: Option<i32>) {
    let leader = slot.pid;
    if !slot.terminal.draws_frames()
        || group != Some(leader)
        || reader.is_some_and(|reader| reader != leader)
    {
        return;
    }
    let shell =
        crate::os::procfs::process_name(leader).is_some_and(|name| SHELLS.contains(&name.as_str()));
    if shell {
        slot.terminal.end_frames();
    }
}
