//! The person's terminal while attached: raw mode, the alternate screen, and the key modes
//! of the session's program while they hold it; all given back when they leave or stop.

use std::io::Write;
use std::os::fd::AsFd;

use rustix::termios::{self, OptionalActions, Termios};
use serde_json::Value;

/// The person's terminal while attached: in raw mode, and showing the alternate screen once
/// the caller entered it. Both are undone when it is left, or dropped unleft (a panic), so the
/// person never gets back a terminal that echoes nothing or still shows the session.
pub(super) struct View {
    saved: Termios,
    out: std::io::Stdout,
    left: bool,
    /// The key modes the terminal was asked for (see [`KeyModes`]).
    modes: KeyModes,
}

impl View {
    /// Puts the terminal in raw mode.
    pub(super) fn enter(saved: Termios) -> View {
        let mut raw = saved.clone();
        raw.make_raw();
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &raw);
        View { saved, out: std::io::stdout(), left: false, modes: KeyModes::default() }
    }

    /// The sequences that put the terminal in key modes `modes`, noted as its modes.
    pub(super) fn switch_modes(&mut self, modes: KeyModes) -> String {
        std::mem::replace(&mut self.modes, modes).switch(modes)
    }

    /// Writes `bytes` to the terminal at once.
    pub(super) fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.out.flush()
    }

    /// Leaves the alternate screen, shows the cursor and `final_screen` (how the session
    /// ended), and restores the terminal's modes: a terminal that can no longer be written
    /// to still gets its modes back.
    pub(super) fn leave(mut self, final_screen: Option<&str>) {
        let mut bytes = self.switch_modes(KeyModes::default()).into_bytes();
        bytes.extend_from_slice(LEAVE);
        bytes.extend_from_slice(final_screen.unwrap_or_default().as_bytes());
        let _ = self.write(&bytes);
        self.restore();
    }

    /// Gives the terminal back while the attachment is stopped: the primary screen, the
    /// cursor shown, the key modes and the terminal's modes as they were.
    pub(super) fn suspend(&mut self) {
        let mut bytes = self.switch_modes(KeyModes::default()).into_bytes();
        bytes.extend_from_slice(LEAVE);
        let _ = self.write(&bytes);
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &self.saved);
    }

    /// Takes the terminal again after a stop (whether or not [`View::suspend`] gave it back:
    /// a SIGSTOP is not seen): raw mode again; returns the sequences that show the
    /// alternate screen, cleared ([`ENTER`]), to write before the view is drawn again.
    pub(super) fn resume(&mut self) -> String {
        let mut raw = self.saved.clone();
        raw.make_raw();
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &raw);
        // Whatever the key modes are now (the shell may have set or reset them), they are off
        // after this, and asked for again as the next frame wants them.
        let all = KeyModes { app_cursor: true, bracketed_paste: true };
        self.modes = KeyModes::default();
        all.switch(KeyModes::default()) + ENTER
    }

    /// Gives the terminal its modes back, once.
    fn restore(&mut self) {
        if !self.left {
            self.left = true;
            let stdin = std::io::stdin();
            let _ = termios::tcsetattr(stdin.as_fd(), OptionalActions::Now, &self.saved);
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        if !self.left {
            let mut bytes = self.switch_modes(KeyModes::default()).into_bytes();
            bytes.extend_from_slice(LEAVE);
            let _ = self.write(&bytes);
            self.restore();
        }
    }
}

/// Shows the alternate screen, cleared, with autowrap off: a row is drawn only when it
/// changed, and one a character the terminal draws wider than `unicode-width` says (an emoji
/// with its variation selector) ran over would wrap into the next row, or scroll the view
/// from the last, until a resize redrew it all.
pub(super) const ENTER: &str = "\x1b[?1049h\x1b[?7l\x1b[H\x1b[2J";

/// Leaves the alternate screen, shows the cursor and turns autowrap back on.
const LEAVE: &[u8] = b"\x1b[?7h\x1b[?1049l\x1b[?25h";

/// The modes of the person's terminal that decide the bytes their keys send, as the
/// session's program set them in its own terminal, while the person holds the session:
/// their arrows reach it in its cursor-key mode, and their pastes bracketed when it asked
/// (a shell then waits for Enter, where it ran each pasted line as it came). All off while
/// the person only watches, and once they leave. Not the kitty keyboard protocol nor xterm's
/// modifyOtherKeys, on purpose: under them the detach key, Ctrl-], would come as an escape
/// sequence (keys reach the program in their legacy forms: `M-x` as `ESC x`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct KeyModes {
    /// Application cursor keys (DECCKM, mode 1).
    pub(super) app_cursor: bool,
    /// Bracketed paste (mode 2004).
    pub(super) bracketed_paste: bool,
}

impl KeyModes {
    /// The modes `frame`'s program set.
    pub(super) fn of(frame: &Value) -> KeyModes {
        let on = |mode: &str| frame["modes"][mode].as_bool() == Some(true);
        KeyModes { app_cursor: on("app_cursor"), bracketed_paste: on("bracketed_paste") }
    }

    /// The sequences that switch a terminal in modes `self` to modes `to`.
    fn switch(self, to: KeyModes) -> String {
        let set = |mode: u16, on: bool| format!("\x1b[?{mode}{}", if on { 'h' } else { 'l' });
        let mut out = String::new();
        if self.app_cursor != to.app_cursor {
            out.push_str(&set(1, to.app_cursor));
        }
        if self.bracketed_paste != to.bracketed_paste {
            out.push_str(&set(2004, to.bracketed_paste));
        }
        out
    }
}

/// The person's terminal size: columns and rows (80x24 when unknown).
pub(super) fn terminal_size() -> (usize, usize) {
    match termios::tcgetwinsize(std::io::stdout().as_fd()) {
        Ok(size) if size.ws_col > 0 && size.ws_row > 0 => {
            (usize::from(size.ws_col), usize::from(size.ws_row))
        }
        _ => (80, 24),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Autowrap is off while attached (rows are drawn only when they change: one that ran over
    /// would stay wrapped into the next) and back on when the person leaves.
    #[test]
    fn autowrap_is_off_while_attached() {
        assert!(ENTER.contains("\x1b[?7l"), "{ENTER:?}");
        assert!(String::from_utf8_lossy(LEAVE).contains("\x1b[?7h"), "{LEAVE:?}");
    }

    /// The person's terminal follows the program's key modes, and only when they change.
    #[test]
    fn key_modes_are_switched_when_they_change() {
        let frame = serde_json::json!({"modes": {"app_cursor": true, "bracketed_paste": false}});
        let cursor_keys = KeyModes::of(&frame);
        assert_eq!(cursor_keys, KeyModes { app_cursor: true, bracketed_paste: false });
        assert_eq!(KeyModes::default().switch(cursor_keys), "\x1b[?1h");
        assert_eq!(cursor_keys.switch(cursor_keys), "");
        let both = KeyModes { app_cursor: true, bracketed_paste: true };
        assert_eq!(cursor_keys.switch(both), "\x1b[?2004h");
        assert_eq!(both.switch(KeyModes::default()), "\x1b[?1l\x1b[?2004l");
        assert_eq!(KeyModes::of(&serde_json::json!({})), KeyModes::default());
    }
}
