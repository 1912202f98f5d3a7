//! Whether the program on the primary screen draws whole frames from its top-left, as `top`
//! does: it moved the cursor there with the cursor hidden since output last scrolled the screen
//! into the history (not a clear, `CSI 2 J`, which `top` starts with). It goes on doing so
//! until output scrolls the screen again (`top` asks for a pid on its message row with the
//! cursor shown, and leaves with a line break on the last row), the cursor shown goes down a
//! row (output written as lines: a REPL's answer after a redraw that hid the cursor only while
//! it cleared), the screen is cleared with the cursor shown, the shell is back (its OSC 133
//! prompt or command-end mark: `top` killed, `tput civis; clear; tput cnorm` ended), a process
//! group other than the one that drew them is found waiting for input (the reactor's probe;
//! without marks the shell back at its prompt after a killed `top`) or the terminal is reset
//! (RIS). A shell's `clear`, the cursor shown, draws no frames.
//!
//! A clear drawn as `CSI H CSI J` (`clear` for screen, tmux, linux) settles the screen into
//! the transcript with the cursor shown whatever frames were drawn, and ends them; with the
//! cursor hidden it settles the screen too, as xterm's `CSI 2 J` does, unless frames were
//! drawn from the top-left between it and the clear before it in these frames (two moves there
//! or more, not counting one a cursor restore undid before the next move there or clear, a
//! status line redrawn: a save, `DECSC` or `CSI s`, home, its text, a restore, `DECRC` or
//! `CSI u`, to a cursor saved elsewhere than home, however often; `top`'s, whose first clear
//! is at its start and next at a key opening its help):
//! from then on the program is a monitor, and its clears are its next frames, which erase
//! only until the frames end ([`Frames::clear_erases_only`]). A plain move home with the
//! cursor hidden (a status line redrawn: `DECSC`, home, `DECRC`) starts frames, but no clear.
//! Known limit: whatever is drawn from home between a save and its restore counts as a status
//! line, however many rows it takes: a three-row dashboard (`DECSC`, home, `cpu`, `CR LF`,
//! `mem`, `CR LF`, `load`, `DECRC`) redrawn between two clears with the cursor hidden makes no
//! monitor, and each of its clears settles the screen, dashboard included. The cursor's row at
//! the restore would tell it from a status line of one row, but a status line of two would
//! then lose every line after a clear again, worse than a frame read twice.
//!
//! Every such clear settles so that `tput civis; echo one; clear; echo two; clear; echo
//! three; clear`, the cursor hidden throughout, keeps `two` and `three` (the frames the clears
//! erase, which a person read: commands typed ahead, or typed one by one at a shell without
//! prompt marks): each settles when it is erased, its lines then the readable tail's end, so
//! no line a reader already has is numbered anew. A monitor redrawing itself from a clear
//! with the cursor hidden (`while :; do clear; date; sleep 1; done`) keeps every frame, as it
//! does under xterm, where `clear` is `CSI 2 J`. Known limit: a monitor that never moves home
//! between its clears is not told from such a loop, and each of its clears settles a whole
//! screen: `htop` under `TERM=linux` (no alternate screen, the cursor hidden) redraws its rows
//! without moving home and clears only to open or close its help or setup, so its help opened
//! and closed three times settles 4 of its screens and 3 help screens (206 lines at 100x30).
//!
//! The group that draws is the terminal's foreground group after the output that started
//! frames was fed (the first seen while they are drawn: the shell's prompt after a killed
//! `top` is fed with the shell in the foreground too); the shell back at its prompt ends
//! frames taken for its own (`reactor/frames_group.rs` says when).

/// What a slice of output that settled did (see [`Frames::settled`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Settled {
    /// Output scrolled rows into the history.
    pub(super) scrolled: bool,
    /// The screen was cleared.
    pub(super) cleared: bool,
    /// The moves to the top-left so far (`Scanner::homes`).
    pub(super) homes: u64,
    /// How many of those a cursor restore undid (`Scanner::undone_homes`).
    pub(super) undone: u64,
    /// The alternate screen is active (its moves home and frames are no primary screen's).
    pub(super) alternate: bool,
    /// The cursor is hidden.
    pub(super) hidden: bool,
    /// The cursor's row.
    pub(super) row: usize,
}

/// How rows left the primary screen for the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scrolled {
    /// Output scrolled them off (a line feed on the last row).
    Output,
    /// A clear of the screen moved them there.
    Cleared,
}

/// What the emulator saw of frames drawn on the primary screen (see the module's text).
#[derive(Debug, Default)]
pub(super) struct Frames {
    /// The moves to the top-left (`Scanner::homes`) counted when output last scrolled the
    /// primary screen, or when the cursor was last seen shown.
    homes_at_scroll: u64,
    /// A frame was started since then, the cursor hidden.
    drawing: bool,
    /// The moves to the top-left (`Scanner::homes`) and those a cursor restore undid
    /// (`Scanner::undone_homes`) counted at the last clear (`CSI H CSI J`, the cursor hidden)
    /// since `drawing` was last set: the first is set when it settles, the later ones by
    /// [`Frames::clear_erases_only`].
    cleared_at: Option<(u64, u64)>,
    /// The cursor's row when a slice last settled with it shown, and the moves home counted
    /// then: kept across slices that settle with it hidden (a REPL hides it around each
    /// redraw, and how its output is cut into slices decides which settle shown).
    shown_row: Option<(usize, u64)>,
    /// The terminal's foreground process group first seen after output fed while frames were
    /// drawn: theirs (see [`Frames::drawn_by`]).
    group: Option<i32>,
    /// Frames were drawn from the top-left between two of these frames' clears: they are a
    /// monitor's (`top`'s), whose clears erase only (see [`Frames::clear_erases_only`]).
    monitor: bool,
}

impl Frames {
    /// Notes a slice of output settled (see [`Settled`]): output scrolling and the alternate
    /// screen end frames (vim's moves home, then the shell's prompt below the line that
    /// started it, are no frames of the primary screen's), a move home with the cursor
    /// hidden starts them.
    /// `cleared` whether the screen was cleared: with the cursor shown, that ends frames (a
    /// program that hid the cursor only while it cleared, `tput civis; clear; tput cnorm`,
    /// draws none after).
    pub(super) fn settled(&mut self, settled: Settled) {
        let Settled { scrolled, cleared, homes, undone, alternate, hidden, row } = settled;
        let shown_row = self.shown_row;
        if !hidden {
            self.shown_row = Some((row, homes));
        }
        // The cursor shown goes down a row with no move home between: output is written as
        // lines (a REPL's answer after its redraw, the cursor hidden only while it cleared),
        // not a frame; `top` moves it down only with the cursor hidden, and types its prompt
        // along one row, a frame from home between two of its prompts.
        let lines = shown_row.is_some_and(|(before, at)| !hidden && at == homes && row > before);
        if scrolled || alternate || lines || (cleared && !hidden) {
            self.ended(homes);
        } else if !hidden {
            // Moves home with the cursor shown are no frame's: a shell's `clear` before a
            // program that hides the cursor for a spinner.
            self.homes_at_scroll = homes;
        } else {
            if homes > self.homes_at_scroll && !self.drawing {
                self.drawing = true;
            }
            if self.drawing && cleared && self.cleared_at.is_none() {
                self.cleared_at = Some((homes, undone));
            }
        }
    }

    /// Frames end, `homes` the moves to the top-left so far: the shell is back (its prompt's
    /// or its command's end mark, OSC 133: `top` killed, a dashboard stopped with Ctrl-C; or
    /// another group found reading, see [`Frames::group_reads`]), or the terminal was reset
    /// (RIS).
    pub(super) fn ended(&mut self, homes: u64) {
        self.homes_at_scroll = homes;
        self.drawing = false;
        self.cleared_at = None;
        self.group = None;
        self.monitor = false;
    }

    /// The terminal's foreground process group is `group` after output was fed: the first
    /// told while frames are drawn is theirs.
    pub(super) fn drawn_by(&mut self, group: i32) {
        if self.wants_group() {
            self.group = Some(group);
        }
    }

    /// Whether frames are drawn and no group was told drawing them yet.
    pub(super) fn wants_group(&self) -> bool {
        self.drawing && self.group.is_none()
    }

    /// The reactor's probe found process group `group` waiting for input, `shell_back` a
    /// shell at its prompt (a process leading its group that does job control, reading),
    /// `homes` the moves to the top-left so far: frames another group drew end (the program
    /// that drew them is gone, or stopped: the shell reads again), and any frames once the
    /// shell is back (frames taken for its own: a `clear` whose output was read after it).
    pub(super) fn group_reads(&mut self, group: i32, shell_back: bool, homes: u64) {
        if self.drawing && (shell_back || self.group.is_some_and(|drew| drew != group)) {
            self.ended(homes);
        }
    }

    /// Whether the program draws whole frames (on the primary screen: the caller asks only
    /// there).
    pub(super) fn drawing(&self) -> bool {
        self.drawing
    }

    /// Whether a clear drawn with the cursor hidden started these frames before the last of
    /// `homes` moves to the top-left: that move starts a frame after the first (the first is
    /// the program's start, `top`'s clear of what the screen showed before it). A plain move
    /// home with the cursor hidden (a status line redrawn: `DECSC`, home, `DECRC`) starts
    /// frames, but no first clear: the next clear is still the first.
    pub(super) fn cleared_before(&self, homes: u64) -> bool {
        self.drawing && self.cleared_at.is_some_and(|(at, _)| at < homes)
    }

    /// A clear (`CSI H CSI J`) is drawn with the cursor hidden, the last of `homes` moves to
    /// the top-left: whether it erases only, a monitor's next frame. The first clear of the
    /// frames settles what the screen showed ([`Frames::cleared_before`]), and so does each
    /// later one (`echo two` between `clear`s, the cursor hidden), unless frames were drawn
    /// from the top-left between it and the clear before it, two moves there or more (`top`,
    /// which clears only at its start and when it opens a screen such as its help: the frame
    /// its key found on the screen is a monitor's; one move there, `tput cup 0 0`, is no
    /// frames, nor `top`'s one refresh, which then settles, nor any move there a restore
    /// undid, `undone` of `homes` so far: a status line redrawn, `DECSC` or `CSI s`, home,
    /// `DECRC` or `CSI u`, as often as it is). Once they were, every later clear of these frames erases only.
    pub(super) fn clear_erases_only(&mut self, homes: u64, undone: u64) -> bool {
        if !self.cleared_before(homes) {
            return false;
        }
        // (The clears' own moves home are `at` and the last of `homes`; a restore undid
        // `undone - undone_at` of those between.)
        let drawn_from_home = self
            .cleared_at
            .is_some_and(|(at, undone_at)| at + 2 + undone.saturating_sub(undone_at) < homes);
        self.cleared_at = Some((homes, undone));
        self.monitor |= drawn_from_home;
        self.monitor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slice settled that cleared nothing.
    fn at(scrolled: bool, homes: u64, alternate: bool, hidden: bool) -> Settled {
        Settled { scrolled, cleared: false, homes, undone: 0, alternate, hidden, row: 0 }
    }

    /// A REPL that hides the cursor around each redraw: a slice that settles with it hidden
    /// between two that settle with it shown, a row apart with no move home between, still
    /// tells lines written (it forgot the row shown before, and frames went on).
    #[test]
    fn the_cursor_shown_a_row_lower_across_a_hidden_slice_ends_frames() {
        let settle = |hidden: bool, row: usize| Settled {
            scrolled: false,
            cleared: false,
            homes: 2,
            undone: 0,
            alternate: false,
            hidden,
            row,
        };
        let mut frames = Frames::default();
        frames.settled(settle(true, 0));
        frames.settled(settle(false, 3));
        assert!(frames.drawing());
        frames.settled(settle(true, 5));
        frames.settled(settle(false, 4));
        assert!(!frames.drawing());
        // `top`: a frame from home between two of its prompts on one row.
        let mut top = Frames::default();
        top.settled(at(false, 1, false, true));
        top.settled(Settled { row: 5, ..at(false, 1, false, false) });
        top.settled(Settled { row: 20, ..at(false, 2, false, true) });
        top.settled(Settled { row: 5, ..at(false, 2, false, false) });
        assert!(top.drawing());
    }

    #[test]
    fn frames_are_drawn_from_a_move_home_with_the_cursor_hidden_until_a_scroll() {
        let mut frames = Frames::default();
        // A shell's `clear`: home, the cursor shown.
        frames.settled(at(false, 1, false, false));
        assert!(!frames.drawing());
        // `top`: home, the cursor hidden; then its prompt, the cursor shown.
        frames.settled(at(false, 2, false, true));
        frames.settled(at(false, 2, false, false));
        assert!(frames.drawing());
        // Its line break on the last row as it leaves.
        frames.settled(at(true, 2, false, false));
        assert!(!frames.drawing());
        frames.settled(at(false, 2, false, true));
        assert!(!frames.drawing());
        // A `clear`, then a program that hides the cursor.
        frames.settled(at(false, 3, false, false));
        frames.settled(at(false, 3, false, true));
        assert!(!frames.drawing());
        // vim's frames on the alternate screen, then the shell's prompt, the cursor hidden.
        frames.settled(at(false, 4, true, true));
        frames.settled(at(false, 4, false, true));
        assert!(!frames.drawing());
    }

    /// `tput civis; clear; tput cnorm` and a REPL's redraw hid the cursor only while they
    /// moved home: frames stuck, and every later command's output read as a whole screen.
    /// A clear with the cursor shown, the shell's marks and a reset end them.
    #[test]
    fn frames_end_at_a_clear_with_the_cursor_shown_a_prompt_and_a_reset() {
        let mut frames = Frames::default();
        frames.settled(at(false, 1, false, true));
        assert!(frames.drawing());
        frames.settled(Settled { cleared: true, ..at(false, 1, false, false) });
        assert!(!frames.drawing());
        frames.settled(at(false, 2, false, true));
        assert!(frames.drawing());
        // A REPL's answer, the cursor shown, down a row.
        frames.settled(at(false, 2, false, false));
        assert!(frames.drawing());
        frames.settled(Settled { row: 1, ..at(false, 2, false, false) });
        assert!(!frames.drawing());
        frames.settled(at(false, 3, false, true));
        assert!(frames.drawing());
        frames.ended(3);
        assert!(!frames.drawing());
        frames.settled(at(false, 3, false, true));
        assert!(!frames.drawing());
    }

    /// Frames end when another group than the one first seen drawing them reads (the shell
    /// whose prompt was fed after them too); not when their own group reads (a shell
    /// script's menu reading its keys), nor when a group reads before any was seen drawing.
    #[test]
    fn frames_end_when_another_group_than_theirs_reads() {
        let mut frames = Frames::default();
        frames.drawn_by(10);
        frames.settled(at(false, 1, false, true));
        assert!(frames.drawing());
        frames.group_reads(20, false, 1);
        assert!(frames.drawing(), "no group was seen drawing yet");
        frames.drawn_by(30);
        frames.drawn_by(20);
        frames.group_reads(30, false, 1);
        assert!(frames.drawing(), "the group that drew reads its keys");
        frames.group_reads(20, false, 1);
        assert!(!frames.drawing());
        // The next frames start with no group seen.
        frames.settled(at(false, 2, false, true));
        frames.group_reads(20, false, 2);
        assert!(frames.drawing());
        // The shell back at its prompt ends frames taken for its own.
        frames.drawn_by(20);
        frames.group_reads(20, true, 2);
        assert!(!frames.drawing());
    }
}
