//! Mouse reports, encoded the way xterm sends them to the program.
//!
//! A program asks for mouse reports with DECSET 9 (X10), 1000 (normal),
//! 1002 (button-event) or 1003 (any-event) tracking, and picks the wire
//! format with DECSET 1005 (UTF-8), 1015 (urxvt) or 1006 (SGR, which wins over
//! the others, then urxvt); without any it gets the original X10 byte format. [`encode_mouse`] turns one mouse event into the
//! bytes the terminal would send for the current [`MouseModes`], or tells the
//! caller that the event is not reported in that mode.
//!
//! Coordinates passed in are 0-based (`row`, `col`); on the wire they are
//! 1-based (`x` = column + 1, `y` = row + 1).

use std::fmt;

/// A mouse button, including the two wheel directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MouseButton {
    /// The left (primary) button, button code 0.
    Left,
    /// The middle button, button code 1.
    Middle,
    /// The right button, button code 2.
    Right,
    /// Wheel scrolled up, button code 64. Wheel events have no release.
    WheelUp,
    /// Wheel scrolled down, button code 65. Wheel events have no release.
    WheelDown,
}

/// What happened to the button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MouseAction {
    /// The button was pressed (or the wheel turned one notch).
    Press,
    /// The button was released.
    Release,
    /// The pointer moved while the button was held down (a drag).
    ///
    /// For motion with no button held use [`encode_mouse_hover`].
    Motion,
}

/// Which mouse events the program asked to receive (DECSET 9/1000/1002/1003).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum MouseTracking {
    /// Mouse reporting is off; nothing is sent.
    #[default]
    Off,
    /// X10 compatibility mode (DECSET 9): button presses only, no
    /// modifiers.
    X10,
    /// Normal tracking (DECSET 1000): presses and releases.
    Normal,
    /// Button-event tracking (DECSET 1002): presses, releases and motion
    /// while a button is held.
    Button,
    /// Any-event tracking (DECSET 1003): presses, releases and all motion.
    Any,
}

/// How mouse reports are encoded on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MouseEncoding {
    /// The original X10 encoding: `ESC [ M` then three bytes, each value plus
    /// 32. Coordinates above 223 cannot be encoded.
    #[default]
    Legacy,
    /// DECSET 1005: like [`MouseEncoding::Legacy`], but each value plus 32 is
    /// sent as a UTF-8 encoded character, allowing coordinates up to 2015.
    Utf8,
    /// DECSET 1006: `ESC [ < b ; x ; y M` (press/motion) or `… m` (release),
    /// decimal numbers without a size limit.
    Sgr,
    /// DECSET 1015 (urxvt): `ESC [ b ; x ; y M`, the legacy button code plus 32 and the
    /// coordinates as decimal numbers without a size limit.
    Urxvt,
}

/// The mouse-related modes the program has set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct MouseModes {
    /// Which events are reported.
    pub tracking: MouseTracking,
    /// How they are encoded.
    pub encoding: MouseEncoding,
}

impl From<&crate::types::Modes> for MouseModes {
    fn from(modes: &crate::types::Modes) -> Self {
        use crate::types::MouseReporting;
        MouseModes {
            tracking: match modes.mouse {
                MouseReporting::Off => MouseTracking::Off,
                MouseReporting::Press => MouseTracking::X10,
                MouseReporting::Click => MouseTracking::Normal,
                MouseReporting::Drag => MouseTracking::Button,
                MouseReporting::Motion => MouseTracking::Any,
            },
            encoding: if modes.mouse_sgr {
                MouseEncoding::Sgr
            } else if modes.mouse_urxvt {
                MouseEncoding::Urxvt
            } else if modes.mouse_utf8 {
                MouseEncoding::Utf8
            } else {
                MouseEncoding::Legacy
            },
        }
    }
}

/// Keyboard modifiers held during a mouse event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct MouseModifiers {
    /// Shift was held (adds 4 to the button code).
    pub shift: bool,
    /// Alt/Meta was held (adds 8 to the button code).
    pub alt: bool,
    /// Control was held (adds 16 to the button code).
    pub ctrl: bool,
}

impl MouseModifiers {
    /// No modifiers held.
    pub(crate) const NONE: MouseModifiers =
        MouseModifiers { shift: false, alt: false, ctrl: false };

    fn bits(self) -> u32 {
        u32::from(self.shift) * 4 + u32::from(self.alt) * 8 + u32::from(self.ctrl) * 16
    }
}

/// Why a mouse event could not be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MouseError {
    /// The program has not enabled mouse reporting ([`MouseReporting::Off`](crate::MouseReporting::Off)).
    NotEnabled,
    /// A coordinate is too large for the active encoding.
    CoordinateOutOfRange {
        /// The 0-based row that was requested.
        row: u16,
        /// The 0-based column that was requested.
        col: u16,
        /// The largest 0-based row or column the encoding can carry.
        max: u16,
        /// The encoding that cannot carry it.
        encoding: MouseEncoding,
    },
}

impl fmt::Display for MouseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MouseError::NotEnabled => f.write_str(
                "the program has not enabled mouse reporting, so no mouse event was sent",
            ),
            MouseError::CoordinateOutOfRange { row, col, max, encoding } => {
                let name = match encoding {
                    MouseEncoding::Legacy => "legacy X10",
                    MouseEncoding::Utf8 => "UTF-8 (1005)",
                    MouseEncoding::Sgr | MouseEncoding::Urxvt => "unlimited",
                };
                write!(
                    f,
                    "mouse position row {row}, column {col} (0-based) cannot be encoded in the \
                     {name} mouse encoding the program uses: rows and columns must be at most \
                     {max}; nothing was sent"
                )
            }
        }
    }
}

impl std::error::Error for MouseError {}

/// Largest 0-based coordinate in the legacy encoding (wire value 223, byte 255).
const LEGACY_MAX: u16 = 222;
/// Largest 0-based coordinate in the UTF-8 encoding (wire value 2015, char 2047).
const UTF8_MAX: u16 = 2014;

/// Encodes a mouse event as the bytes xterm sends for it.
///
/// * `row`, `col` are 0-based; they are sent 1-based.
/// * The button code is 0/1/2 for left/middle/right and 64/65 for wheel
///   up/down, plus 32 for motion, plus 4 for shift, 8 for alt and 16 for ctrl
///   (modifiers are not reported in [`MouseTracking::X10`]).
/// * A release is sent as button code 3 in the legacy and UTF-8 encodings; in
///   SGR it keeps the button's code and ends with `m` instead of `M`.
///
/// Returns:
///
/// * `Err(MouseError::NotEnabled)` when tracking is [`MouseTracking::Off`];
/// * `Ok(None)` when the current tracking mode does not report this event
///   (a release in X10 mode, motion in X10 or normal mode, or any wheel
///   release or wheel "motion", which do not exist);
/// * `Err(MouseError::CoordinateOutOfRange { .. })` when the position cannot
///   be encoded (beyond 223 in the legacy encoding, 2015 in UTF-8, 1-based);
/// * otherwise `Ok(Some(bytes))`.
pub(crate) fn encode_mouse(
    button: MouseButton,
    action: MouseAction,
    row: u16,
    col: u16,
    mods: MouseModifiers,
    modes: &MouseModes,
) -> Result<Option<Vec<u8>>, MouseError> {
    let is_wheel = matches!(button, MouseButton::WheelUp | MouseButton::WheelDown);
    let reported = match (modes.tracking, action) {
        (MouseTracking::Off, _) => return Err(MouseError::NotEnabled),
        (_, MouseAction::Press) => true,
        (MouseTracking::X10, _) => false,
        (_, MouseAction::Release) => !is_wheel,
        (MouseTracking::Normal, MouseAction::Motion) => false,
        (MouseTracking::Button | MouseTracking::Any, MouseAction::Motion) => !is_wheel,
    };
    if !reported {
        return Ok(None);
    }
    let base = match button {
        MouseButton::Left => 0,
        MouseButton::Middle => 1,
        MouseButton::Right => 2,
        MouseButton::WheelUp => 64,
        MouseButton::WheelDown => 65,
    };
    let motion = if action == MouseAction::Motion { 32 } else { 0 };
    let mod_bits = if modes.tracking == MouseTracking::X10 { 0 } else { mods.bits() };
    let release = action == MouseAction::Release;
    let sgr_code = base + motion + mod_bits;
    // Legacy and UTF-8 cannot say which button was released.
    let legacy_code = if release { 3 + mod_bits } else { sgr_code };
    encode_report(sgr_code, legacy_code, release, row, col, modes.encoding).map(Some)
}

/// Encodes pointer motion with no button held.
///
/// This is reported only in [`MouseTracking::Any`] (DECSET 1003), with button
/// code 35 (3 for "no button" plus 32 for motion) plus the modifier bits.
/// Returns `Ok(None)` in the other tracking modes and the same errors as
/// [`encode_mouse`].
pub(crate) fn encode_mouse_hover(
    row: u16,
    col: u16,
    mods: MouseModifiers,
    modes: &MouseModes,
) -> Result<Option<Vec<u8>>, MouseError> {
    match modes.tracking {
        MouseTracking::Off => Err(MouseError::NotEnabled),
        MouseTracking::Any => {
            let code = 3 + 32 + mods.bits();
            encode_report(code, code, false, row, col, modes.encoding).map(Some)
        }
        _ => Ok(None),
    }
}

fn encode_report(
    sgr_code: u32,
    legacy_code: u32,
    release: bool,
    row: u16,
    col: u16,
    encoding: MouseEncoding,
) -> Result<Vec<u8>, MouseError> {
    let x = u32::from(col) + 1;
    let y = u32::from(row) + 1;
    match encoding {
        MouseEncoding::Sgr => {
            let last = if release { 'm' } else { 'M' };
            Ok(format!("\x1b[<{sgr_code};{x};{y}{last}").into_bytes())
        }
        MouseEncoding::Urxvt => Ok(format!("\x1b[{};{x};{y}M", legacy_code + 32).into_bytes()),
        MouseEncoding::Legacy | MouseEncoding::Utf8 => {
            let max = if encoding == MouseEncoding::Legacy { LEGACY_MAX } else { UTF8_MAX };
            if row > max || col > max {
                return Err(MouseError::CoordinateOutOfRange { row, col, max, encoding });
            }
            let mut out = b"\x1b[M".to_vec();
            for value in [legacy_code + 32, x + 32, y + 32] {
                if encoding == MouseEncoding::Legacy {
                    // Bounded above: code <= 3 + 28 + 32 + 65, x, y <= 223.
                    out.push(value as u8);
                } else {
                    let ch = char::from_u32(value).expect("value below 2048 is a valid char");
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MouseAction::*;
    use MouseButton::*;

    const ALL_TRACKING: [MouseTracking; 5] = [
        MouseTracking::Off,
        MouseTracking::X10,
        MouseTracking::Normal,
        MouseTracking::Button,
        MouseTracking::Any,
    ];
    const ALL_ENCODINGS: [MouseEncoding; 4] =
        [MouseEncoding::Legacy, MouseEncoding::Utf8, MouseEncoding::Sgr, MouseEncoding::Urxvt];

    fn modes(tracking: MouseTracking, encoding: MouseEncoding) -> MouseModes {
        MouseModes { tracking, encoding }
    }

    fn enc(
        button: MouseButton,
        action: MouseAction,
        row: u16,
        col: u16,
        mods: MouseModifiers,
        m: MouseModes,
    ) -> Option<Vec<u8>> {
        encode_mouse(button, action, row, col, mods, &m).unwrap()
    }

    const NO: MouseModifiers = MouseModifiers::NONE;

    /// Expected wire bytes for (code, x, y) in a given encoding.
    fn wire(encoding: MouseEncoding, code: u32, x: u32, y: u32, release: bool) -> Vec<u8> {
        match encoding {
            MouseEncoding::Sgr => {
                format!("\x1b[<{code};{x};{y}{}", if release { 'm' } else { 'M' }).into_bytes()
            }
            MouseEncoding::Legacy => {
                vec![0x1b, b'[', b'M', (code + 32) as u8, (x + 32) as u8, (y + 32) as u8]
            }
            MouseEncoding::Urxvt => format!("\x1b[{};{x};{y}M", code + 32).into_bytes(),
            MouseEncoding::Utf8 => {
                let mut s = String::from("\x1b[M");
                for v in [code + 32, x + 32, y + 32] {
                    s.push(char::from_u32(v).unwrap());
                }
                s.into_bytes()
            }
        }
    }

    #[test]
    fn off_is_an_error_in_every_encoding() {
        for encoding in ALL_ENCODINGS {
            let m = modes(MouseTracking::Off, encoding);
            for action in [Press, Release, Motion] {
                let err = encode_mouse(Left, action, 0, 0, NO, &m).unwrap_err();
                assert_eq!(err, MouseError::NotEnabled);
            }
            assert_eq!(encode_mouse_hover(0, 0, NO, &m).unwrap_err(), MouseError::NotEnabled);
        }
        let msg = MouseError::NotEnabled.to_string();
        assert!(msg.contains("not enabled mouse reporting"), "{msg}");
        assert!(msg.contains("nothing") || msg.contains("no mouse event was sent"), "{msg}");
    }

    /// The full matrix: which events each tracking mode reports, in every
    /// encoding, with the exact bytes.
    #[test]
    fn tracking_encoding_matrix() {
        use MouseTracking as T;
        // (button, action, expected code, release, reported in X10/Normal/Button/Any)
        let cases: &[(MouseButton, MouseAction, u32, bool, [bool; 4])] = &[
            (Left, Press, 0, false, [true, true, true, true]),
            (Middle, Press, 1, false, [true, true, true, true]),
            (Right, Press, 2, false, [true, true, true, true]),
            (WheelUp, Press, 64, false, [true, true, true, true]),
            (WheelDown, Press, 65, false, [true, true, true, true]),
            (Left, Release, 0, true, [false, true, true, true]),
            (Middle, Release, 1, true, [false, true, true, true]),
            (Right, Release, 2, true, [false, true, true, true]),
            (WheelUp, Release, 64, true, [false, false, false, false]),
            (WheelDown, Release, 65, true, [false, false, false, false]),
            (Left, Motion, 32, false, [false, false, true, true]),
            (Middle, Motion, 33, false, [false, false, true, true]),
            (Right, Motion, 34, false, [false, false, true, true]),
            (WheelUp, Motion, 96, false, [false, false, false, false]),
            (WheelDown, Motion, 97, false, [false, false, false, false]),
        ];
        let trackings = [T::X10, T::Normal, T::Button, T::Any];
        for encoding in ALL_ENCODINGS {
            for (ti, tracking) in trackings.into_iter().enumerate() {
                for &(button, action, code, release, reported) in cases {
                    let got = enc(button, action, 4, 9, NO, modes(tracking, encoding));
                    let expected = reported[ti].then(|| {
                        // Legacy/UTF-8 releases use code 3.
                        let code = if release && encoding != MouseEncoding::Sgr { 3 } else { code };
                        wire(encoding, code, 10, 5, release)
                    });
                    assert_eq!(got, expected, "{button:?} {action:?} in {tracking:?}/{encoding:?}");
                }
            }
        }
    }

    #[test]
    fn exact_bytes_examples() {
        let sgr = modes(MouseTracking::Normal, MouseEncoding::Sgr);
        let legacy = modes(MouseTracking::Normal, MouseEncoding::Legacy);
        assert_eq!(enc(Left, Press, 0, 0, NO, sgr).unwrap(), b"\x1b[<0;1;1M");
        assert_eq!(enc(Left, Release, 0, 0, NO, sgr).unwrap(), b"\x1b[<0;1;1m");
        assert_eq!(enc(Right, Release, 2, 7, NO, sgr).unwrap(), b"\x1b[<2;8;3m");
        assert_eq!(enc(WheelDown, Press, 23, 79, NO, sgr).unwrap(), b"\x1b[<65;80;24M");
        assert_eq!(enc(Left, Press, 0, 0, NO, legacy).unwrap(), b"\x1b[M !!");
        assert_eq!(enc(Left, Release, 0, 0, NO, legacy).unwrap(), b"\x1b[M#!!");
        assert_eq!(enc(WheelUp, Press, 1, 2, NO, legacy).unwrap(), b"\x1b[M`#\"");
    }

    #[test]
    fn modifiers_add_bits() {
        let all = MouseModifiers { shift: true, alt: true, ctrl: true };
        let shift = MouseModifiers { shift: true, ..NO };
        let alt = MouseModifiers { alt: true, ..NO };
        let ctrl = MouseModifiers { ctrl: true, ..NO };
        let sgr = modes(MouseTracking::Any, MouseEncoding::Sgr);
        assert_eq!(enc(Left, Press, 0, 0, shift, sgr).unwrap(), b"\x1b[<4;1;1M");
        assert_eq!(enc(Left, Press, 0, 0, alt, sgr).unwrap(), b"\x1b[<8;1;1M");
        assert_eq!(enc(Left, Press, 0, 0, ctrl, sgr).unwrap(), b"\x1b[<16;1;1M");
        assert_eq!(enc(Middle, Motion, 0, 0, all, sgr).unwrap(), b"\x1b[<61;1;1M");
        assert_eq!(enc(WheelUp, Press, 0, 0, ctrl, sgr).unwrap(), b"\x1b[<80;1;1M");
        assert_eq!(enc(Right, Release, 0, 0, ctrl, sgr).unwrap(), b"\x1b[<18;1;1m");
        let legacy = modes(MouseTracking::Normal, MouseEncoding::Legacy);
        // Release keeps the modifier bits on top of code 3.
        assert_eq!(
            enc(Right, Release, 0, 0, ctrl, legacy).unwrap(),
            wire(MouseEncoding::Legacy, 19, 1, 1, true)
        );
        assert_eq!(
            enc(Left, Press, 0, 0, all, legacy).unwrap(),
            wire(MouseEncoding::Legacy, 28, 1, 1, false)
        );
        // X10 mode does not report modifiers.
        for encoding in ALL_ENCODINGS {
            let x10 = modes(MouseTracking::X10, encoding);
            assert_eq!(enc(Left, Press, 0, 0, all, x10).unwrap(), wire(encoding, 0, 1, 1, false));
        }
    }

    #[test]
    fn hover_only_in_any_event_tracking() {
        for encoding in ALL_ENCODINGS {
            for tracking in ALL_TRACKING {
                let m = modes(tracking, encoding);
                let got = encode_mouse_hover(3, 6, NO, &m);
                match tracking {
                    MouseTracking::Off => assert_eq!(got, Err(MouseError::NotEnabled)),
                    MouseTracking::Any => {
                        assert_eq!(got, Ok(Some(wire(encoding, 35, 7, 4, false))))
                    }
                    _ => assert_eq!(got, Ok(None), "{tracking:?}"),
                }
            }
        }
        let sgr = modes(MouseTracking::Any, MouseEncoding::Sgr);
        let shift = MouseModifiers { shift: true, ..NO };
        assert_eq!(encode_mouse_hover(0, 0, shift, &sgr).unwrap().unwrap(), b"\x1b[<39;1;1M");
    }

    #[test]
    fn legacy_coordinate_limit() {
        let m = modes(MouseTracking::Normal, MouseEncoding::Legacy);
        // 1-based 223 is the last encodable value: byte 255.
        let ok = enc(Left, Press, 222, 222, NO, m).unwrap();
        assert_eq!(ok, vec![0x1b, b'[', b'M', 32, 255, 255]);
        for (row, col) in [(223, 0), (0, 223), (500, 500)] {
            let err = encode_mouse(Left, Press, row, col, NO, &m).unwrap_err();
            assert_eq!(
                err,
                MouseError::CoordinateOutOfRange {
                    row,
                    col,
                    max: 222,
                    encoding: MouseEncoding::Legacy
                }
            );
            let msg = err.to_string();
            assert!(msg.contains(&format!("row {row}")), "{msg}");
            assert!(msg.contains("legacy"), "{msg}");
        }
        // An unreported event is Ok(None) even out of range.
        assert_eq!(enc(Left, Motion, 500, 500, NO, m), None);
    }

    #[test]
    fn utf8_coordinates() {
        let m = modes(MouseTracking::Normal, MouseEncoding::Utf8);
        // Small values are identical to the legacy encoding.
        assert_eq!(enc(Left, Press, 0, 0, NO, m).unwrap(), b"\x1b[M !!");
        // Column 95 (0-based 94) -> value 127, still one byte; 96 -> two bytes.
        assert_eq!(enc(Left, Press, 0, 94, NO, m).unwrap(), b"\x1b[M \x7f!");
        assert_eq!(
            enc(Left, Press, 0, 95, NO, m).unwrap(),
            [b"\x1b[M ".as_slice(), "\u{80}".as_bytes(), b"!"].concat()
        );
        // The legacy limit does not apply.
        assert_eq!(
            enc(Left, Press, 299, 499, NO, m).unwrap(),
            wire(MouseEncoding::Utf8, 0, 500, 300, false)
        );
        // 1-based 2015 -> char U+07FF, the largest two-byte UTF-8 value.
        let max = enc(Left, Press, 2014, 2014, NO, m).unwrap();
        assert_eq!(max, [b"\x1b[M ".as_slice(), "\u{7ff}\u{7ff}".as_bytes()].concat());
        let err = encode_mouse(Left, Press, 0, 2015, NO, &m).unwrap_err();
        assert!(matches!(
            err,
            MouseError::CoordinateOutOfRange { max: 2014, encoding: MouseEncoding::Utf8, .. }
        ));
    }

    #[test]
    fn sgr_has_no_coordinate_limit() {
        let m = modes(MouseTracking::Normal, MouseEncoding::Sgr);
        assert_eq!(enc(Left, Press, u16::MAX, u16::MAX, NO, m).unwrap(), b"\x1b[<0;65536;65536M");
        assert_eq!(enc(Left, Press, 2999, 4999, NO, m).unwrap(), b"\x1b[<0;5000;3000M");
    }

    #[test]
    fn default_modes_are_off_and_legacy() {
        let m = MouseModes::default();
        assert_eq!(m.tracking, MouseTracking::Off);
        assert_eq!(m.encoding, MouseEncoding::Legacy);
    }
}
