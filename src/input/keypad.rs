//! The numeric keypad's keys: their names and the bytes xterm and the kitty keyboard protocol
//! send for them.
//!
//! * Numeric keypad mode (DECKPNM, `ESC >`, the default): the key's character (`KP5` is
//!   `5`, `KPEnter` a carriage return), modifiers not reported, as xterm's keypad sends them.
//! * Application keypad mode (DECKPAM, `ESC =`): `SS3` and a final byte, `ESC O p`..`ESC O y`
//!   for the digits, `ESC O M` Enter, `ESC O j k l m n o X` for `* + , - . / =`; with modifiers,
//!   xterm puts their parameter between the two (`C-KP+` is `ESC O 5 k`). (So a VT220 sends
//!   them, and xterm with its `numLock` resource off; with NumLock on, xterm sends the
//!   characters in both modes.)
//! * The kitty keyboard protocol: with its disambiguate flag, keys that type text (the digits
//!   and operators, unmodified or with Shift alone) send it, the others (Enter, any key with
//!   Ctrl or Alt, every key with flag 8) are `CSI code ; mods u` with the keypad's own code
//!   points, `KP_0` 57399 to `KP_SEPARATOR` 57416; without it, a keypad key is sent as the
//!   main keyboard's key (kitty's `convert_kp_key_to_normal_key`), but the separator, which
//!   that function keeps a keypad key (`CSI 57416 u` under flag 8).

use super::keys::{KeyCode, Modifiers};

/// A key of the numeric keypad. More may come in later versions, so a `match` on it needs a
/// `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeypadKey {
    /// A digit key, `0` to `9`. Other numbers are not encodable and encode to no bytes.
    Digit(u8),
    /// `.` (decimal point).
    Decimal,
    /// `/`.
    Divide,
    /// `*`.
    Multiply,
    /// `-`.
    Subtract,
    /// `+`.
    Add,
    /// `=` (on some keypads).
    Equal,
    /// `,` (the separator, on some keypads).
    Separator,
    /// The keypad's Enter.
    Enter,
}

/// The keypad's operator keys and their characters, in the order of their names.
const OPERATORS: [(KeypadKey, char); 7] = [
    (KeypadKey::Decimal, '.'),
    (KeypadKey::Divide, '/'),
    (KeypadKey::Multiply, '*'),
    (KeypadKey::Subtract, '-'),
    (KeypadKey::Add, '+'),
    (KeypadKey::Equal, '='),
    (KeypadKey::Separator, ','),
];

/// vim's names of the keypad's keys but the digits (`<kPlus>`), lower-cased.
const VIM_NAMES: [(&str, KeypadKey); 8] = [
    ("kpoint", KeypadKey::Decimal),
    ("kdivide", KeypadKey::Divide),
    ("kmultiply", KeypadKey::Multiply),
    ("kminus", KeypadKey::Subtract),
    ("kplus", KeypadKey::Add),
    ("kequal", KeypadKey::Equal),
    ("kcomma", KeypadKey::Separator),
    ("kenter", KeypadKey::Enter),
];

impl KeypadKey {
    /// The key named `lower` (lower case): tmux's names `kp0`..`kp9`, `kp.`, `kp/`, `kp*`,
    /// `kp-`, `kp+`, `kp=`, `kp,`, `kpenter`, or vim's `k0`..`k9`, `kpoint`, `kdivide`,
    /// `kmultiply`, `kminus`, `kplus`, `kequal`, `kcomma`, `kenter`.
    pub(crate) fn from_name(lower: &str) -> Option<KeypadKey> {
        if let Some(&(_, key)) = VIM_NAMES.iter().find(|(name, _)| *name == lower) {
            return Some(key);
        }
        if let Some(rest) = lower.strip_prefix("kp") {
            if rest == "enter" {
                return Some(KeypadKey::Enter);
            }
            let mut chars = rest.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else { return None };
            return KeypadKey::from_char(c);
        }
        let digit = lower.strip_prefix('k')?;
        match digit.as_bytes() {
            [d @ b'0'..=b'9'] => Some(KeypadKey::Digit(d - b'0')),
            _ => None,
        }
    }

    /// The key whose character (in numeric keypad mode) is `c`, but Enter's.
    fn from_char(c: char) -> Option<KeypadKey> {
        match c {
            '0'..='9' => Some(KeypadKey::Digit(c as u8 - b'0')),
            _ => OPERATORS.iter().find(|(_, op)| *op == c).map(|(key, _)| *key),
        }
    }

    /// The character the key types in numeric keypad mode: a digit, an operator, or a
    /// carriage return for Enter; `None` for a digit out of range.
    pub fn character(self) -> Option<char> {
        match self {
            KeypadKey::Digit(d @ 0..=9) => Some(char::from(b'0' + d)),
            KeypadKey::Digit(_) => None,
            KeypadKey::Enter => Some('\r'),
            op => OPERATORS.iter().find(|(key, _)| *key == op).map(|(_, c)| *c),
        }
    }

    /// The final byte of the key's `SS3` sequence in application keypad mode (xterm's
    /// `kypd_apl`): `p`..`y` for the digits, `M` for Enter, `X` for `=`, and for the other
    /// operators their character plus 0x40 (`*` 0x2a is `j`).
    fn ss3_final(self) -> Option<u8> {
        match self {
            KeypadKey::Enter => Some(b'M'),
            KeypadKey::Equal => Some(b'X'),
            key => key.character().map(|c| c as u8 + 0x40),
        }
    }

    /// The key's code point in the kitty keyboard protocol (`KP_0` is 57399).
    fn kitty_code(self) -> Option<u32> {
        Some(match self {
            KeypadKey::Digit(d @ 0..=9) => 57399 + u32::from(d),
            KeypadKey::Digit(_) => return None,
            KeypadKey::Decimal => 57409,
            KeypadKey::Divide => 57410,
            KeypadKey::Multiply => 57411,
            KeypadKey::Subtract => 57412,
            KeypadKey::Add => 57413,
            KeypadKey::Enter => 57414,
            KeypadKey::Equal => 57415,
            KeypadKey::Separator => 57416,
        })
    }

    /// The main keyboard's key the kitty protocol sends this one as without its disambiguate
    /// flag: Enter, or the character's key.
    pub(crate) fn main_key(self) -> Option<KeyCode> {
        match self {
            KeypadKey::Enter => Some(KeyCode::Enter),
            key => key.character().map(KeyCode::Char),
        }
    }
}

impl std::fmt::Display for KeypadKey {
    /// tmux's name of the key: `KP0`, `KP+`, `KPEnter`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self, self.character()) {
            (KeypadKey::Enter, _) => f.write_str("KPEnter"),
            (_, Some(c)) => write!(f, "KP{c}"),
            (KeypadKey::Digit(d), None) => write!(f, "KP{d}"),
            (_, None) => unreachable!("only a digit can be out of range"),
        }
    }
}

/// xterm's bytes for `key` with `mods`: in application keypad mode (`app_keypad`) `SS3`, the
/// modifier parameter when a modifier is held, and the key's final byte; in numeric mode the
/// key's character, modifiers dropped.
pub(crate) fn legacy(key: KeypadKey, mods: Modifiers, app_keypad: bool) -> Vec<u8> {
    if !app_keypad {
        let mut out = Vec::with_capacity(1);
        if let Some(c) = key.character() {
            out.push(c as u8);
        }
        return out;
    }
    let Some(last) = key.ss3_final() else { return Vec::new() };
    let mut out = b"\x1bO".to_vec();
    if !mods.is_empty() {
        out.extend_from_slice(mods.param().to_string().as_bytes());
    }
    out.push(last);
    out
}

/// The kitty protocol's bytes for `key` with `mods` under its disambiguate flag (the caller
/// sends the main keyboard's key without it), `all_as_escapes` (flag 8) and `embed_text`
/// (flag 16): the key's text when it types some and no flag asks for escapes, else
/// `CSI code [; mods [; text]] u`.
pub(crate) fn kitty(
    key: KeypadKey,
    mods: Modifiers,
    all_as_escapes: bool,
    embed_text: bool,
) -> Vec<u8> {
    let (Some(code), Some(c)) = (key.kitty_code(), key.character()) else { return Vec::new() };
    let text = (key != KeypadKey::Enter && !mods.ctrl && !mods.alt).then_some(c);
    if let Some(text) = text.filter(|_| !all_as_escapes) {
        return vec![text as u8];
    }
    super::keys::kitty_csi_u(code, None, mods, text.filter(|_| embed_text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mods(ctrl: bool, alt: bool, shift: bool) -> Modifiers {
        Modifiers { ctrl, alt, shift }
    }

    #[test]
    fn names_read_back() {
        for name in ["KP0", "KP9", "KP.", "KP/", "KP*", "KP-", "KP+", "KP=", "KP,", "KPEnter"] {
            let key = KeypadKey::from_name(&name.to_ascii_lowercase()).expect(name);
            assert_eq!(key.to_string(), name);
        }
        let vim = [
            ("k0", "KP0"),
            ("k7", "KP7"),
            ("kplus", "KP+"),
            ("kpoint", "KP."),
            ("kenter", "KPEnter"),
        ];
        for (vim, tmux) in vim {
            assert_eq!(KeypadKey::from_name(vim).map(|k| k.to_string()).as_deref(), Some(tmux));
        }
        for bad in ["kp", "kp10", "kpx", "k", "k10", "kpenterx", "kp++"] {
            assert_eq!(KeypadKey::from_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn xterm_numeric_and_application_modes() {
        let none = Modifiers::NONE;
        let cases: &[(KeypadKey, &str, &str)] = &[
            (KeypadKey::Digit(0), "0", "\x1bOp"),
            (KeypadKey::Digit(5), "5", "\x1bOu"),
            (KeypadKey::Digit(9), "9", "\x1bOy"),
            (KeypadKey::Multiply, "*", "\x1bOj"),
            (KeypadKey::Add, "+", "\x1bOk"),
            (KeypadKey::Separator, ",", "\x1bOl"),
            (KeypadKey::Subtract, "-", "\x1bOm"),
            (KeypadKey::Decimal, ".", "\x1bOn"),
            (KeypadKey::Divide, "/", "\x1bOo"),
            (KeypadKey::Equal, "=", "\x1bOX"),
            (KeypadKey::Enter, "\r", "\x1bOM"),
        ];
        for &(key, numeric, application) in cases {
            assert_eq!(legacy(key, none, false), numeric.as_bytes(), "{key}");
            assert_eq!(legacy(key, mods(true, true, true), false), numeric.as_bytes(), "{key}");
            assert_eq!(legacy(key, none, true), application.as_bytes(), "{key}");
        }
        assert_eq!(legacy(KeypadKey::Add, mods(true, false, false), true), b"\x1bO5k");
        assert_eq!(legacy(KeypadKey::Enter, mods(false, true, false), true), b"\x1bO3M");
        assert_eq!(legacy(KeypadKey::Digit(1), mods(false, false, true), true), b"\x1bO2q");
        assert!(legacy(KeypadKey::Digit(10), Modifiers::NONE, false).is_empty());
        assert!(legacy(KeypadKey::Digit(10), Modifiers::NONE, true).is_empty());
    }

    #[test]
    fn kitty_disambiguated() {
        let none = Modifiers::NONE;
        assert_eq!(kitty(KeypadKey::Digit(1), none, false, false), b"1");
        assert_eq!(kitty(KeypadKey::Digit(1), mods(false, false, true), false, false), b"1");
        assert_eq!(kitty(KeypadKey::Add, mods(true, false, false), false, false), b"\x1b[57413;5u");
        assert_eq!(kitty(KeypadKey::Enter, none, false, false), b"\x1b[57414u");
        assert_eq!(
            kitty(KeypadKey::Enter, mods(false, false, true), false, false),
            b"\x1b[57414;2u"
        );
        assert_eq!(kitty(KeypadKey::Digit(0), none, true, false), b"\x1b[57399u");
        assert_eq!(kitty(KeypadKey::Digit(0), none, true, true), b"\x1b[57399;;48u");
        assert_eq!(
            kitty(KeypadKey::Divide, mods(false, true, false), true, true),
            b"\x1b[57410;3u"
        );
        assert_eq!(kitty(KeypadKey::Separator, none, true, false), b"\x1b[57416u");
        assert!(kitty(KeypadKey::Digit(12), none, true, false).is_empty());
    }
}
