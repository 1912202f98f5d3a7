//! What callers type into a session, encoded for the terminal's modes: key names and key
//! scripts (xterm and the kitty keyboard protocol; the numeric keypad's keys apart), mouse reports, bracketed paste, backslash
//! escapes, line breaks typed as Enter, and signal names. Pure functions of their input and
//! the modes: nothing here touches a terminal.

pub(crate) mod escapes;
pub(crate) mod keypad;
pub(crate) mod keys;
pub(crate) mod line_breaks;
pub(crate) mod mouse;
pub(crate) mod paste;
pub(crate) mod signal;
