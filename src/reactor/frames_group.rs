//! Which process group drew the frames the emulator saw (`top`'s redraws from the top-left,
//! `Screen::frames`), and when a group found reading ends them: the program that drew them
//! is gone, the shell is back at its prompt (a shell without OSC 133 marks to say so).
//!
//! Theirs is the terminal's foreground group after the output that started them was fed
//! (one `TIOCGPGRP` per frames). Another group found waiting for input ends them: the shell
//! after a killed `top`. Not any change of group: an interactive shell gives each external
//! command of a redraw loop a group of its own. Frames whose output was read only once the
//! shell had taken the terminal back (a `clear` typed at the prompt, the shell's own
//! `printf`) are taken for the shell's: they end when the session's leader is found reading
//! while it does job control (another group was seen in the foreground in this session, or
//! it ignores the job control signals, as an interactive shell does), not in a shell script
//! that draws a menu and reads its keys itself (`read -rsn1`), whose commands all stay in
//! its one group.

use super::Slot;

/// Takes the foreground group after output was fed as the frames' own, while frames are
/// drawn by no group told yet.
pub(super) fn note_drawing_group(slot: &mut Slot) {
    if !slot.terminal.frames_want_their_group() {
        return;
    }
    let Some(master) = &slot.master else { return };
    if let Some(group) = crate::os::pty::foreground_group(std::os::fd::AsFd::as_fd(master)) {
        note_foreground(slot, group);
        slot.terminal.frames_drawn_by(group);
    }
}

/// The terminal's foreground group is `group`: one other than the session leader's means the
/// leader, a shell, does job control.
pub(super) fn note_foreground(slot: &Slot, group: i32) {
    if group != slot.pid {
        slot.jobs_seen.set(true);
    }
}

/// The probe found `group` waiting for input, `reader` its member reading (`None`: not
/// named): frames end when another group than theirs reads, or the session's leader while
/// it does job control (the shell back at its prompt).
pub(super) fn group_reads(slot: &mut Slot, group: i32, reader: Option<i32>) {
    let leader = slot.pid;
    // (`/proc` is read only while frames are drawn and the leader reads.)
    let shell_back = slot.terminal.draws_frames()
        && group == leader
        && reader.is_none_or(|reader| reader == leader)
        && (slot.jobs_seen.get() || crate::os::procfs::does_job_control(leader));
    slot.terminal.group_reads(group, shell_back);
}
