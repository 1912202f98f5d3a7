//! Whether the program on the primary screen draws whole frames from its top-left, as `top`
//! does: it moved the cursor there with the cursor hidden since output last scrolled the screen
//! into the history (not a clear, `CSI 2 J`, which `top` starts with). It goes on doing so
//! until output scrolls the screen again (`top` asks for a pid on its message row with the
//! cursor shown, and leaves with a line break on the last row); a shell's `clear`, the
//! cursor shown, draws no frames.

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
}

impl Frames {
    /// Notes a slice of output settled: `scrolled` whether output scrolled rows into the
    /// history, `homes` the moves to the top-left so far, `alternate` whether the alternate
    /// screen is active (whose moves home and frames are no primary screen's: vim's, then
    /// the shell's prompt below the line that started it), `hidden` whether the cursor is.
    pub(super) fn settled(&mut self, scrolled: bool, homes: u64, alternate: bool, hidden: bool) {
        if scrolled || alternate {
            *self = Frames { homes_at_scroll: homes, drawing: false };
        } else if !hidden {
            // Moves home with the cursor shown are no frame's: a shell's `clear` before a
            // program that hides the cursor for a spinner.
            self.homes_at_scroll = homes;
        } else if homes > self.homes_at_scroll {
            self.drawing = true;
        }
    }

    /// Whether the program draws whole frames (on the primary screen: the caller asks only
    /// there).
    pub(super) fn drawing(&self) -> bool {
        self.drawing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_drawn_from_a_move_home_with_the_cursor_hidden_until_a_scroll() {
        let mut frames = Frames::default();
        // A shell's `clear`: home, the cursor shown.
        frames.settled(false, 1, false, false);
        assert!(!frames.drawing());
        // `top`: home, the cursor hidden; then its prompt, the cursor shown.
        frames.settled(false, 2, false, true);
        frames.settled(false, 2, false, false);
        assert!(frames.drawing());
        // Its line break on the last row as it leaves.
        frames.settled(true, 2, false, false);
        assert!(!frames.drawing());
        frames.settled(false, 2, false, true);
        assert!(!frames.drawing());
        // A `clear`, then a program that hides the cursor.
        frames.settled(false, 3, false, false);
        frames.settled(false, 3, false, true);
        assert!(!frames.drawing());
        // vim's frames on the alternate screen, then the shell's prompt, the cursor hidden.
        frames.settled(false, 4, true, true);
        frames.settled(false, 4, false, true);
        assert!(!frames.drawing());
    }
}
