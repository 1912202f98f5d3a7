//! The primary screen's lines as the alternate screen hid them (see
//! [`Emulator::hidden_tail`](super::Emulator::hidden_tail)), and when one such capture may
//! serve again: taking the alternate screen renders the primary one twice, and a program that
//! takes it again and again without drawing on the primary screen between (a hostile
//! `CSI ? 1049 h CSI ? 1049 l` loop, 16 bytes a toggle) would pay that at every toggle.

/// The primary screen's lines as the alternate screen hid them.
#[derive(Clone, Debug)]
pub(super) struct HiddenTail {
    /// From its top down to its last row with text (or its cursor, if lower): read once the
    /// session ended.
    pub(super) lines: Vec<String>,
    /// Down to the cursor's line, from the tail's top (`top`): read while it runs.
    pub(super) to_cursor: Vec<String>,
    /// The tail's top row when it was hidden (a scrolling region's top, or 0).
    pub(super) top: usize,
    /// The cursor's row and column when it was hidden.
    pub(super) cursor: (usize, usize),
    /// Whether the primary screen is still as it was hidden: a resize while the alternate
    /// screen is up reflows it (a narrowing scrolls its rows into the history, settled when
    /// it is left), and the capture may no longer serve for the next hiding.
    pub(super) reusable: bool,
}

/// Whether `before_final` (a slice's bytes before the final byte of the CSI sequence that
/// ends it) is that sequence's own start alone (`ESC [`, then parameter and intermediate
/// bytes): nothing else was given to the parser with it, so nothing was drawn.
pub(super) fn csi_alone(before_final: &[u8]) -> bool {
    before_final
        .strip_prefix(b"\x1b[")
        .is_some_and(|rest| rest.iter().all(|b| (0x20..=0x3f).contains(b)))
}

/// Whether a mode sequence's `values` are one alternate screen mode alone (47, 1047 or 1049):
/// leaving by it brings the primary screen back as it was hidden, nothing else changed with
/// it (mode 3 beside it would clear it).
pub(super) fn alternate_mode_alone(values: &[u16]) -> bool {
    matches!(values, [47 | 1047 | 1049])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_alone_is_told_from_one_after_text() {
        assert!(csi_alone(b"\x1b[?1049"));
        assert!(!csi_alone(b"x\x1b[?1049"));
        assert!(!csi_alone(b"?1049"));
        assert!(!csi_alone(b"\x1b[?1049\x1b[?1049"));
        assert!(alternate_mode_alone(&[1049]));
        assert!(!alternate_mode_alone(&[1049, 3]));
    }
}
