//! The control sequences termloom handles itself, before alacritty's parser sees them.
//!
//! alacritty keeps some state private and gets a few sequences wrong; a hostile program can
//! also use some of them to grow memory or to panic it. The scanner stops at the final byte of
//! each such sequence (see [`crate::term::scan`]); [`Rules::decide`] looks at the terminal as it is
//! at that point and says what the parser gets instead of the final byte:
//!
//! - **Bounded stacks**: pushes onto the title stack (`CSI 22 t`) and the kitty keyboard-mode
//!   stack (`CSI > flags u`, one stack per screen) beyond their bounds are dropped. The
//!   keyboard bound also removes a panic in alacritty (`push_keyboard_mode` evicts from the
//!   title stack, alacritty#8957).
//! - **Repetition** (`CSI n b`) is split into pieces the feed loop runs one at a time, each
//!   counted in the line and work budgets, so no repetition overflows the grid's history or
//!   runs long in one turn.
//! - **Emulation fixes**: DCH (`CSI n P`) is clamped to the cells right of the cursor;
//!   selective erase (`CSI ? J`, `CSI ? K`) is a plain erase (no cell is ever protected);
//!   alternate-screen modes 47 and 1047 enter and leave the alternate screen through mode
//!   1049 (which also saves and restores the cursor); CUU and CUD stop at the scroll region's
//!   margins; resetting origin mode homes the cursor; DECSC and DECRC save and restore origin
//!   mode with the cursor, and so do mode 1049's set and reset; CBT (`CSI n Z`) is clamped to the cursor's column (alacritty
//!   scans the row once per count, even with no tab stop left to find).
//! - **Input modes** alacritty gets wrong or ignores: `CSI = flags ; how u` becomes a pop and
//!   a push, so that it changes the top of the kitty keyboard-mode stack (alacritty changed
//!   only the flags in effect); the mouse modes 9 (X10, presses only) and 1015 (urxvt
//!   encoding) are tracked here for the modes the input encoders read.
//! - **Synchronized updates** (mode 2026) are tracked here, not by the parser, so bytes are
//!   never held back unbounded: the update's deadline tells the reactor to leave the screen
//!   to settle before it checks screen conditions.
//!
//! Replacing a final byte works in any split of the stream: the parser has seen the
//! sequence's start, so the feed loop gives it CAN (which aborts the sequence and does nothing
//! else) and then the replacement.

use std::time::{Duration, Instant};

use crate::term::scan::{Params, Sequence};

/// How long a synchronized update may hold the screen's checks back (as the parser's).
pub(crate) const SYNC_TIMEOUT: Duration = Duration::from_millis(150);
/// Depth of each screen's kitty keyboard-mode stack; deeper pushes are dropped (alacritty's
/// own bound, 4096, panics).
pub(crate) const KEYBOARD_STACK: usize = 256;
/// The most cells one piece of a split repetition writes.
pub(crate) const REPEAT_PIECE: usize = 4096;
/// The most cells one piece of a split repetition writes on a terminal `cols` wide: few
/// enough lines that a piece never overflows the grid's history.
pub(crate) fn repeat_piece(cols: usize) -> usize {
    REPEAT_PIECE.min(cols.max(1) * 700)
}
/// CAN: aborts the sequence the parser is in, and does nothing else.
pub(crate) const CAN: u8 = 0x18;

/// What the feed loop gives the parser for a sequence's final byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// The final byte, unchanged.
    Keep,
    /// CAN: the sequence is dropped.
    Drop,
    /// CAN, then these bytes.
    Replace(Vec<u8>),
    /// CAN, then this many repetitions of the last character, in pieces.
    Repeat(usize),
}

/// The terminal as the rules see it when a sequence's final byte is reached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    pub cols: usize,
    pub rows: usize,
    pub row: usize,
    pub col: usize,
    pub alternate: bool,
    pub origin: bool,
    /// The kitty keyboard flags in effect.
    pub keyboard: u8,
}

/// Bounds the rules enforce.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StackBounds {
    /// Deepest title stack.
    pub titles: usize,
}

/// What the rules track of the terminal that alacritty keeps private.
#[derive(Debug)]
pub(crate) struct Rules {
    bounds: StackBounds,
    titles: usize,
    /// Keyboard-mode stack depth of the primary and the alternate screen.
    keyboard: [usize; 2],
    /// The scroll region (first row, row past the last) when set; reset by a resize.
    region: Option<(usize, usize)>,
    /// Origin mode saved with the cursor, per screen.
    saved_origin: [bool; 2],
    /// When the open synchronized update stops holding the screen's checks back.
    sync_until: Option<Instant>,
    /// The urxvt mouse encoding (mode 1015), which alacritty does not know.
    urxvt_mouse: bool,
    /// X10 mouse reporting (mode 9, presses only), which alacritty does not know. Like
    /// xterm's mouse modes 1000, 1002 and 1003, setting one of them resets the others.
    x10_mouse: bool,
    /// xterm's modifyOtherKeys level (`CSI > 4 ; level m`), which alacritty does not know.
    modify_other_keys: u8,
    /// How many times a program set the modifyOtherKeys level (wrapping; a reset, `ESC c`,
    /// keeps it): tells the reactor a level was set since it last looked, even one set again
    /// to the same value by another program.
    modify_other_keys_sets: u32,
    /// Sequences dropped because a bound was reached.
    pub dropped: u64,
}

impl Rules {
    pub(crate) fn new(bounds: StackBounds) -> Self {
        Rules {
            bounds,
            titles: 0,
            keyboard: [0; 2],
            region: None,
            saved_origin: [false; 2],
            sync_until: None,
            urxvt_mouse: false,
            x10_mouse: false,
            modify_other_keys: 0,
            modify_other_keys_sets: 0,
            dropped: 0,
        }
    }

    /// The terminal was resized: alacritty resets the scroll region.
    pub(crate) fn resized(&mut self) {
        self.region = None;
    }

    /// The scroll region (first row, row past the last) when one other than the whole screen
    /// is set.
    pub(crate) fn region(&self) -> Option<(usize, usize)> {
        self.region
    }

    /// The end of the open synchronized update, if one is open.
    pub(crate) fn sync_deadline(&self) -> Option<Instant> {
        self.sync_until
    }

    /// Whether the program asked for the urxvt mouse encoding (mode 1015).
    pub(crate) fn urxvt_mouse(&self) -> bool {
        self.urxvt_mouse
    }

    /// Whether the program asked for X10 mouse reporting (mode 9), and no other mode since.
    pub(crate) fn x10_mouse(&self) -> bool {
        self.x10_mouse
    }

    /// xterm's modifyOtherKeys level the program set: 0 (off), 1 or 2.
    pub(crate) fn modify_other_keys(&self) -> u8 {
        self.modify_other_keys
    }

    /// How many times a program set the modifyOtherKeys level (wrapping): a change tells
    /// that a level was set since.
    pub(crate) fn modify_other_keys_sets(&self) -> u32 {
        self.modify_other_keys_sets
    }

    /// Ends the synchronized update (it expired).
    pub(crate) fn end_sync(&mut self) {
        self.sync_until = None;
    }

    /// Decides what the parser gets for `sequence`'s final byte.
    pub(crate) fn decide(&mut self, sequence: Sequence, view: View) -> Decision {
        let screen = usize::from(view.alternate);
        match sequence {
            Sequence::Esc(b'c') => {
                *self = Rules {
                    dropped: self.dropped,
                    modify_other_keys_sets: self.modify_other_keys_sets,
                    ..Rules::new(self.bounds)
                };
                Decision::Keep
            }
            Sequence::Esc(b'7') => {
                self.saved_origin[screen] = view.origin;
                Decision::Keep
            }
            Sequence::Esc(_) => self.restore_cursor(view),
            Sequence::Csi { private: None, params, action } => self.plain(params, action, view),
            Sequence::Csi { private: Some(b'?'), params, action } => {
                self.private(params, action, view)
            }
            Sequence::Csi { private: Some(b'>'), params, action: action @ (b'm' | b'n') } => {
                self.set_key_modifiers(params, action);
                Decision::Keep
            }
            // XTVERSION: answered by the `queries` module, no keyboard mode pushed.
            Sequence::Csi { private: Some(b'>'), action: b'q', .. } => Decision::Keep,
            Sequence::Csi { private: Some(b'>'), .. } => {
                if self.keyboard[screen] >= KEYBOARD_STACK {
                    self.dropped += 1;
                    return Decision::Drop;
                }
                self.keyboard[screen] += 1;
                Decision::Keep
            }
            Sequence::Csi { private: Some(b'='), params, .. } => {
                self.set_keyboard(params, screen, view.keyboard)
            }
            Sequence::Csi { private: Some(b'<'), params, .. } => {
                let depth = &mut self.keyboard[screen];
                *depth = depth.saturating_sub(usize::from(params.or(0, 1)));
                Decision::Keep
            }
            Sequence::Csi { .. } => Decision::Keep,
        }
    }

    /// xterm's key modifier options: `CSI > 4 ; level m` sets modifyOtherKeys (levels 0 to 2;
    /// others are refused, as xterm refuses them), `CSI > 4 m` and `CSI > m` reset it, `CSI >
    /// 4 n` turns it off. The other options (cursor, function keys) keep their defaults here.
    fn set_key_modifiers(&mut self, params: Params, action: u8) {
        let values = params.values();
        match (action, values.first().copied(), values.get(1).copied()) {
            (b'm', None, _) | (b'm', Some(4), None) | (b'n', Some(4), _) => {
                self.modify_other_keys = 0;
            }
            (b'm', Some(4), Some(level @ 0..=2)) => self.modify_other_keys = level as u8,
            _ => return,
        }
        self.modify_other_keys_sets = self.modify_other_keys_sets.wrapping_add(1);
    }

    /// `CSI = flags ; how u` sets the flags of the top of the screen's keyboard-mode stack
    /// (how 1 replaces, 2 adds, 3 removes; an empty stack gets an entry), as kitty does.
    /// alacritty changes only the flags in effect, leaving its stack alone: `CSI ? u` then
    /// reports the old flags, and a pop or a screen switch brings them back. The sequence is
    /// replaced by a pop (when the stack has an entry) and a push of the resulting flags.
    fn set_keyboard(&mut self, params: Params, screen: usize, current: u8) -> Decision {
        let values = params.values();
        let flags = values.first().map_or(0, |&v| v as u8) & 0x1f;
        let flags = match values.get(1).copied().unwrap_or(1) {
            2 => current | flags,
            3 => current & !flags,
            _ => flags,
        };
        let pop = if self.keyboard[screen] == 0 {
            self.keyboard[screen] = 1;
            ""
        } else {
            "\x1b[<u"
        };
        Decision::Replace(format!("{pop}\x1b[>{flags}u").into_bytes())
    }

    fn plain(&mut self, params: Params, action: u8, view: View) -> Decision {
        let count = usize::from(params.or(0, 1));
        match action {
            b'A' | b'B' | b'e' => self.vertical(action == b'A', count, view),
            b'P' if count > view.cols - view.col.min(view.cols) => {
                let count = (view.cols - view.col.min(view.cols)).max(1);
                Decision::Replace(format!("\x1b[{count}P").into_bytes())
            }
            b'b' if count > repeat_piece(view.cols) => Decision::Repeat(count),
            // CBT: alacritty scans the row left of the cursor once per count, even when no
            // tab stop is left there (after `CSI 3 g`), so `CSI 65535 Z` costs 65,535 scans.
            // Each scan that finds a stop moves left, and one that finds none moves no more:
            // past the cursor's column, a count changes nothing.
            b'Z' if count > view.col.max(1) => {
                Decision::Replace(format!("\x1b[{}Z", view.col.max(1)).into_bytes())
            }
            b't' => match count {
                22 if self.titles >= self.bounds.titles => {
                    self.dropped += 1;
                    Decision::Drop
                }
                22 => {
                    self.titles += 1;
                    Decision::Keep
                }
                23 => {
                    self.titles = self.titles.saturating_sub(1);
                    Decision::Keep
                }
                _ => Decision::Keep,
            },
            b'r' => {
                let top = usize::from(params.or(0, 1));
                let bottom = match params.values().get(1) {
                    Some(&b) if b != 0 => usize::from(b),
                    _ => view.rows,
                };
                if top < bottom {
                    let region = ((top - 1).min(view.rows), bottom.min(view.rows));
                    self.region = (region != (0, view.rows)).then_some(region);
                }
                Decision::Keep
            }
            b's' => {
                self.saved_origin[usize::from(view.alternate)] = view.origin;
                Decision::Keep
            }
            b'u' => self.restore_cursor(view),
            _ => Decision::Keep,
        }
    }

    /// CUU and CUD: xterm stops at the scroll region's top or bottom margin when the cursor
    /// starts inside it; alacritty only at the screen's edge (or, in origin mode, moves
    /// relative to the wrong origin).
    fn vertical(&self, up: bool, count: usize, view: View) -> Decision {
        let (top, bottom) = self.region.unwrap_or((0, view.rows));
        let row = view.row;
        let target = if up {
            let floor = if row >= top { top } else { 0 };
            row.saturating_sub(count).max(floor)
        } else {
            let ceiling = if row < bottom { bottom - 1 } else { view.rows - 1 };
            row.saturating_add(count).min(ceiling)
        };
        // Where alacritty would put it: `goto(row ∓ count)`, which adds the region's top in
        // origin mode and clamps.
        let (offset, max) = if view.origin { (top, bottom.max(1) - 1) } else { (0, view.rows - 1) };
        let moved =
            if up { row as i64 - count as i64 } else { row as i64 + count as i64 } + offset as i64;
        let alacritty = moved.clamp(0, max as i64) as usize;
        if alacritty == target {
            return Decision::Keep;
        }
        let line = if view.origin { target - top.min(target) } else { target };
        Decision::Replace(format!("\x1b[{};{}H", line + 1, view.col + 1).into_bytes())
    }

    fn private(&mut self, params: Params, action: u8, view: View) -> Decision {
        match action {
            // Selective erase: no cell is ever protected, so it is a plain erase.
            b'J' | b'K' => match params.values().first().copied().unwrap_or(0) {
                mode @ 0..=2 => {
                    Decision::Replace(format!("\x1b[{mode}{}", char::from(action)).into_bytes())
                }
                _ => Decision::Drop,
            },
            b'h' | b'l' if params.overflow => {
                // A list too long to decode may hide a mode handled here: dropped.
                self.dropped += 1;
                Decision::Drop
            }
            b'h' | b'l' => {
                let set = action == b'h';
                let values = params.values();
                if values.contains(&3) {
                    // DECCOLM: alacritty clears the screen and resets the scroll region.
                    self.region = None;
                }
                if values.contains(&1015) {
                    // Tracked here; alacritty ignores it.
                    self.urxvt_mouse = set;
                }
                // Setting or resetting any mouse mode ends X10 reporting, as in xterm.
                for &mode in values {
                    match mode {
                        9 => self.x10_mouse = set,
                        1000 | 1002 | 1003 => self.x10_mouse = false,
                        _ => {}
                    }
                }
                let x10 = set && values.contains(&9);
                let origin = self.alternate_screen_origin(values, set, view);
                if !x10
                    && !values.iter().any(|v| matches!(v, 47 | 1047 | 2026))
                    && (set || !values.contains(&6))
                    && origin.is_none()
                {
                    return Decision::Keep;
                }
                let mut modes = Vec::new();
                let mut out = Vec::new();
                if x10 {
                    // Mode 9 replaces the mouse mode alacritty has: that is reset there.
                    out.extend_from_slice(b"\x1b[?1000;1002;1003l");
                }
                for &mode in params.values() {
                    match mode {
                        9 => {}
                        47 | 1047 => modes.push(1049),
                        2026 => {
                            self.sync_until =
                                if set { Some(Instant::now() + SYNC_TIMEOUT) } else { None };
                        }
                        mode => modes.push(mode),
                    }
                }
                // Resetting origin mode homes the cursor (alacritty only does so on set): at its
                // place in the list, which applies left to right (in `CSI ? 6 ; 1049 l` the
                // home is the alternate screen's, and leaving restores the cursor after it).
                for run in modes.split_inclusive(|&mode| !set && mode == 6) {
                    let list: Vec<String> = run.iter().map(u16::to_string).collect();
                    out.extend_from_slice(
                        format!("\x1b[?{}{}", list.join(";"), action as char).as_bytes(),
                    );
                    if !set && run.last() == Some(&6) {
                        out.extend_from_slice(b"\x1b[H");
                    }
                }
                if let Some(origin) = origin {
                    // The cursor where leaving put it, saved first: alacritty reflows the
                    // primary screen's cursor on a resize but only clamps the one it saved on
                    // the way in. (Given to the parser, not to these rules.)
                    out.extend_from_slice(b"\x1b7");
                    out.extend_from_slice(origin_then_saved_cursor(origin));
                }
                if out.is_empty() { Decision::Drop } else { Decision::Replace(out) }
            }
            _ => Decision::Keep,
        }
    }

    /// Mode 1049 (47 and 1047 go through it) saves the cursor as DECSC does, origin mode with
    /// it, on the way into the alternate screen, and restores it as DECRC does on the way out
    /// (xterm); alacritty keeps the alternate screen's origin mode, so a program that left it
    /// set there sent the shell's next `CSI H` to its scroll region's top. `values` the modes
    /// set (`set`) or reset: the primary screen's origin mode to restore, when it differs
    /// from what the sequence leaves. Its parameters apply left to right, as in xterm: `CSI ?
    /// 6 ; 1049 h` saves origin mode set, and a 6 after a 1049 leaves what it says.
    fn alternate_screen_origin(&mut self, values: &[u16], set: bool, view: View) -> Option<bool> {
        let (mut origin, mut alternate, mut restore) = (view.origin, view.alternate, None);
        for &mode in values {
            match mode {
                6 => (origin, restore) = (set, None),
                47 | 1047 | 1049 if set && !alternate => {
                    self.saved_origin[0] = origin;
                    alternate = true;
                }
                47 | 1047 | 1049 if !set && alternate => {
                    let saved = self.saved_origin[0];
                    restore = (saved != origin).then_some(saved);
                    (origin, alternate) = (saved, false);
                }
                _ => {}
            }
        }
        restore
    }

    /// DECRC: restores origin mode with the cursor (alacritty keeps only the cursor).
    fn restore_cursor(&self, view: View) -> Decision {
        let saved = self.saved_origin[usize::from(view.alternate)];
        if saved == view.origin {
            return Decision::Keep;
        }
        Decision::Replace(origin_then_saved_cursor(saved).to_vec())
    }
}

/// Sets (`true`) or resets origin mode, then restores the cursor alacritty saved (`ESC 8`):
/// setting it homes the cursor, and the restore moves it back.
fn origin_then_saved_cursor(origin: bool) -> &'static [u8] {
    if origin { b"\x1b[?6h\x1b8" } else { b"\x1b[?6l\x1b8" }
}
