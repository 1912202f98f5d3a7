//! Which process group drew the frames the emulator saw (`top`'s redraws from the top-left,
//! `Screen::frames`), and when a group found reading ends them: the program that drew them
//! is gone, the shell is back at its prompt (a shell without OSC 133 marks to say so).
//!
//! Theirs is the terminal's foreground group after the output that started them was fed
//! (one `TIOCGPGRP` after each output fed, see [`note_groups`]). Another group found waiting
//! for input ends them: the shell after a killed `top`. Not any change of group: an
//! interactive shell gives each external command of a redraw loop a group of its own.
//! Frames whose output was read only once the shell had taken the terminal back (a `clear`
//! typed at the prompt, the shell's own `printf`) are taken for the shell's: they end when
//! the process found reading leads its group and does job control (it ignores the job
//! control signals, as an interactive shell does: the shell at its prompt, the session's or
//! one started from it); not in a shell script that draws a menu and reads its keys itself
//! (`read -rsn1`), which does not. (A menu sourced into an interactive shell, `. menu.sh`,
//! loses its frames at each key.)
//!
//! Each full screen's frame has its group too, taken the same way after the output that
//! started it (a move to the top-left, an erase of the whole screen, or the terminal gone to
//! its alternate screen) was fed:
//! a process of another group asleep on that screen (the program gdb's TUI runs, which
//! printed a line there) drew none of it, while a monitor that draws its own frames (`watch`)
//! is one whoever went to the alternate screen before it (`tput smcup; watch -n 10 date`).
//! A group that took the terminal since the reactor last read all the terminal held drew
//! the frame only if it wrote all that was written from its start on (`clear`'s erase read
//! once the next job had the terminal is not that job's).

use super::Slot;

/// After output was fed, takes the terminal's foreground group (one `TIOCGPGRP` each time):
/// - as the frames' own, while frames are drawn by no group told yet;
/// - as the last frame's own when that output started one on a full screen (see
///   `Slot::draws_full_screens`): it moved the cursor to the top-left, erased the whole
///   screen (`CSI 2 J`: a monitor that clears and writes from its third row, never moving
///   home) or put the terminal on its alternate screen. Forgotten once the terminal draws no
///   full screen.
///
/// `caught_up`: the reads of this output found the terminal holding nothing more.
///
/// The group is the one in the foreground when the output was read, not when it was
/// written: a frame drawn just before its program ended and the shell gave the terminal to
/// the next job, read only then (behind a long output still unread, or with termloom slow
/// under load), would be that job's (`tput smcup; clear; ./asks`: the program that prints a
/// line and sleeps before it asks was taken for a monitor between two frames in 3 runs of
/// 12). Output read since termloom last read all the terminal held was written after that;
/// when the group changed since (taken before that read), the frame is the new group's only
/// if it wrote more than the terminal was written from the frame's start on (see
/// [`drew_last_frame`]): whoever wrote the frame's start wrote all that too. Otherwise it
/// is the earlier group's (the shell, the job before: not the new one, whose sleeper is
/// followed to its question). A new group that cannot be looked at (another user's) is
/// taken as before; one that wrote to files too (a `pyenv` shim's bash before Python) may
/// be taken for the frame's, as before. The new group found to draw is looked at once: its
/// later frames are its own.
pub(super) fn note_groups(slot: &mut Slot, caught_up: bool) {
    let start = (slot.terminal.homes(), slot.terminal.screen_clears(), slot.terminal.alternate());
    let (homes, clears, alternate) = std::mem::replace(&mut slot.frame_start, start);
    let full_screen = slot.draws_full_screens();
    if !full_screen {
        slot.frame_group = None;
    }
    let frame_started =
        full_screen && (start.0 != homes || start.1 != clears || (start.2 && !alternate));
    let master = slot.master.as_ref().map(std::os::fd::AsFd::as_fd);
    let group = master.and_then(crate::os::pty::foreground_group);
    let before = std::mem::replace(&mut slot.group_read, group);
    let earlier = slot.group_caught_up;
    if caught_up {
        slot.group_caught_up = before;
    }
    let drawing = slot.terminal.frames_want_their_group();
    if !frame_started && !drawing {
        return;
    }
    let group = match group {
        Some(new) if frame_started && earlier != group => {
            if !drew_last_frame(slot, new) {
                earlier
            } else {
                // (Its later frames are its own too: looked at once a change of group.)
                slot.group_caught_up = group;
                group
            }
        }
        _ => group,
    };
    if frame_started {
        slot.frame_group = group;
    }
    if let Some(group) = group.filter(|_| drawing) {
        slot.terminal.frames_drawn_by(group);
    }
}

/// Whether process group `group` may have drawn the last frame's start: it wrote more
/// bytes (see [`crate::os::procfs::group_written`]) than the terminal was written since
/// (read, fed or waiting, and unread), as whoever wrote the start did, the start's own bytes
/// with the rest. The bytes unread are counted between two readings of what the group wrote
/// that agree (a group that writes on meanwhile, read [`GROUP_WRITES_READ`] times, is
/// drawing: it may have). `true` when its writes cannot be read (another user's).
fn drew_last_frame(slot: &Slot, group: i32) -> bool {
    let master = slot.master.as_ref().map(std::os::fd::AsFd::as_fd);
    let Some(mut written) = crate::os::procfs::group_written(group) else {
        return true;
    };
    for _ in 1..GROUP_WRITES_READ {
        let unread = master.and_then(crate::os::pty::unread_output).unwrap_or(0);
        let Some(again) = crate::os::procfs::group_written(group) else {
            return true;
        };
        if again == written {
            return written > slot.terminal.read_since_frame_start().saturating_add(unread);
        }
        written = again;
    }
    true
}

/// How many times [`drew_last_frame`] reads what a group wrote, at most.
const GROUP_WRITES_READ: usize = 4;

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
