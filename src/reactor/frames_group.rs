//! Which process group drew the frames the emulator saw (`top`'s redraws from the top-left,
//! `Screen::frames`), and when a group found reading ends them: the program that drew them
//! is gone, the shell is back at its prompt (a shell without OSC 133 marks to say so).
//!
//! Theirs is the terminal's foreground group after the output that started them was fed
//! (one `TIOCGPGRP` per frames). Another group found waiting for input ends them: the shell
//! after a killed `top`. Not any change of group: an interactive shell gives each external
//! command of a redraw loop a group of its own. Frames whose output was read only once the
//! shell had taken the terminal back (a `clear` typed at the prompt, the shell's own
//! `printf`) are taken for the shell's: they end when the process found reading leads its
//! group and does job control (it ignores the job control signals, as an interactive shell
//! does: the shell at its prompt, the session's or one started from it); not in a shell
//! script that draws a menu and reads its keys itself (`read -rsn1`), which does not. (A
//! menu sourced into an interactive shell, `. menu.sh`, loses its frames at each key.)
//!
//! Each full screen's frame has its group too, taken the same way after the output that
//! started it (a move to the top-left, an erase of the whole screen, or the terminal gone to
//! its alternate screen) was fed:
//! a process of another group asleep on that screen (the program gdb's TUI runs, which
//! printed a line there) drew none of it, while a monitor that draws its own frames (`watch`)
//! is one whoever went to the alternate screen before it (`tput smcup; watch -n 10 date`).

use super::Slot;

/// After output was fed, takes the terminal's foreground group (one `TIOCGPGRP`, only when
/// one of them wants it):
/// - as the frames' own, while frames are drawn by no group told yet;
/// - as the last frame's own when that output started one on a full screen (see
///   `Slot::draws_full_screens`): it moved the cursor to the top-left, erased the whole
///   screen (`CSI 2 J`: a monitor that clears and writes from its third row, never moving
///   home) or put the terminal on its alternate screen. Forgotten once the terminal draws no
///   full screen.
///
/// Known limit, as for the frames' group: the group is the one in the foreground when the
/// output was read, not when it was written. A frame drawn just before its program ended and
/// the shell gave the terminal to the next job, read only then, is taken for that job's
/// (`tput smcup; clear; ./asks`: the program that sleeps before it asks is then taken for a
/// monitor, as before frames had groups).
pub(super) fn note_groups(slot: &mut Slot) {
    let start = (slot.terminal.homes(), slot.terminal.screen_clears(), slot.terminal.alternate());
    let (homes, clears, alternate) = std::mem::replace(&mut slot.frame_start, start);
    let full_screen = slot.draws_full_screens();
    if !full_screen {
        slot.frame_group = None;
    }
    let frame_started =
        full_screen && (start.0 != homes || start.1 != clears || (start.2 && !alternate));
    let drawing = slot.terminal.frames_want_their_group();
    if !frame_started && !drawing {
        return;
    }
    let master = slot.master.as_ref().map(std::os::fd::AsFd::as_fd);
    let group = master.and_then(crate::os::pty::foreground_group);
    if frame_started {
        slot.frame_group = group;
    }
    if let Some(group) = group.filter(|_| drawing) {
        slot.terminal.frames_drawn_by(group);
    }
}

/// The probe found `group` waiting for input, `reader` its member reading (`None`: not
/// named, its leader): frames end when another group than theirs reads, or a shell at its
/// prompt (the reader leads its group and does job control).
pub(super) fn group_reads(slot: &mut Slot, group: i32, reader: Option<i32>) {
    let reader = reader.unwrap_or(group);
    // (`/proc` is read only while frames are drawn and a group's leader reads.)
    let shell_back = slot.terminal.draws_frames()
        && reader == group
        && crate::os::procfs::does_job_control(reader);
    slot.terminal.group_reads(group, shell_back);
}
