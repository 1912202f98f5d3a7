//! Named keys, key scripts, and the bytes a terminal sends for them.
//!
//! * [`Key`] parses tmux-style names (`Enter`, `C-c`, `M-S-Up`, `F5`, `a`)
//!   with [`std::str::FromStr`] and encodes itself with [`Key::encode`].
//! * [`parse_key_script`] reads text mixed with vim-style bracketed keys
//!   (`ihello<Esc>:wq<CR>`) and [`encode_script`] turns the result into bytes.
//!
//! Encoding follows xterm when the program has not enabled the kitty keyboard
//! protocol ([`KeyModes::kitty_flags`] `== 0`), and the kitty keyboard
//! protocol (<https://sw.kovidgoyal.net/kitty/keyboard-protocol/>) otherwise.
//! Only key presses are ever encoded: there are no repeat or release events.

use std::fmt;
use std::str::FromStr;

use super::keypad::{self, KeypadKey};
use crate::error::quoted;

/// A compact description of every accepted key form, included in
/// [`KeyParseError`] messages.
pub const ACCEPTED_KEY_FORMS: &str = "a single character (a, <, é) or a key name: Enter (CR, Return), \
Tab, BTab (= S-Tab), Escape (Esc), Space, Backspace (BSpace, BS), Delete (DC, Del), \
Insert (IC), Up, Down, Left, Right, Home, End, PageUp (PPage, PgUp), \
PageDown (NPage, PgDn), F1-F12, lt (<), Bar (|), Bslash (\\), \
the numeric keypad's KP0-KP9, KP. KP/ KP* KP- KP+ KP= KP, KPEnter (vim's k0-k9, kPoint, kDivide, \
kMultiply, kMinus, kPlus, kEqual, kComma, kEnter); \
optionally prefixed by modifiers C- (ctrl), M- or A- (alt), S- (shift) in any order, \
e.g. C-c, M-Enter, C-S-Up; names are case-insensitive; \
in key scripts write keys in angle brackets, e.g. ihello<Esc>:wq<CR>, and <lt> for a literal <";

/// A key on the keyboard, without modifiers. More keys may come in later versions (the
/// keypad's came before the first release), so a `match` on it needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyCode {
    /// A key that produces a character. Space is `Char(' ')`.
    Char(char),
    /// Enter / Return.
    Enter,
    /// Tab. Shift+Tab (back-tab) is `Tab` with [`Modifiers::shift`].
    Tab,
    /// Escape.
    Escape,
    /// Backspace.
    Backspace,
    /// Delete (forward delete).
    Delete,
    /// Insert.
    Insert,
    /// Cursor up.
    Up,
    /// Cursor down.
    Down,
    /// Cursor left.
    Left,
    /// Cursor right.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Function key `F1` to `F12`. Other numbers are not encodable and
    /// [`Key::encode`] returns no bytes for them.
    F(u8),
    /// A key of the numeric keypad: its character in numeric keypad mode, an `SS3` sequence
    /// in application keypad mode (`KeyModes::app_keypad`), its own code point in the kitty
    /// protocol (see the `keypad` module).
    Keypad(KeypadKey),
}

/// Modifier keys held together with a key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// Control.
    pub ctrl: bool,
    /// Alt (Meta).
    pub alt: bool,
    /// Shift.
    pub shift: bool,
}

impl Modifiers {
    /// No modifiers.
    pub const NONE: Modifiers = Modifiers { ctrl: false, alt: false, shift: false };

    /// True when no modifier is held.
    pub fn is_empty(&self) -> bool {
        !(self.ctrl || self.alt || self.shift)
    }

    /// The modifier parameter used by xterm and the kitty protocol:
    /// `1 + shift*1 + alt*2 + ctrl*4`.
    pub fn param(&self) -> u8 {
        1 + u8::from(self.shift) + 2 * u8::from(self.alt) + 4 * u8::from(self.ctrl)
    }
}

/// A key together with its modifiers.
///
/// Parse one from tmux-style notation with [`str::parse`]; see
/// [`ACCEPTED_KEY_FORMS`]. Its [`Display`](fmt::Display) form parses back to
/// the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// The modifiers held with it.
    pub mods: Modifiers,
}

/// The terminal modes that change how keys are encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct KeyModes {
    /// Application cursor keys (DECCKM, `CSI ? 1 h`): unmodified cursor keys
    /// and Home/End are sent as `SS3` sequences (`ESC O A`) instead of `CSI`
    /// (`ESC [ A`) in the legacy encoding.
    pub app_cursor: bool,
    /// Application keypad (DECKPAM, `ESC =`): the numeric keypad's keys
    /// ([`KeyCode::Keypad`]) send `SS3` sequences (`ESC O p` for `KP0`) instead of
    /// their characters in the legacy encoding. No other key changes.
    pub app_keypad: bool,
    /// The kitty keyboard protocol's progressive-enhancement flags, as set by
    /// the program (`CSI = flags u` / `CSI > flags u`): 1 disambiguate escape
    /// codes, 2 report event types, 4 report alternate keys, 8 report all keys
    /// as escape codes, 16 report associated text. 0 means the legacy xterm
    /// encoding.
    pub kitty_flags: u8,
    /// xterm's modifyOtherKeys level (`CSI > 4 ; level m`), for the legacy encoding: see
    /// [`modified_other_key`].
    pub modify_other_keys: u8,
}

impl From<&crate::types::Modes> for KeyModes {
    fn from(modes: &crate::types::Modes) -> Self {
        KeyModes {
            app_cursor: modes.app_cursor,
            app_keypad: modes.app_keypad,
            kitty_flags: modes.kitty_keyboard,
            modify_other_keys: modes.modify_other_keys,
        }
    }
}

/// The kitty "disambiguate escape codes" flag.
const KITTY_DISAMBIGUATE: u8 = 1;
/// The kitty "report event types" flag.
const KITTY_EVENT_TYPES: u8 = 2;
/// The kitty "report alternate keys" flag.
const KITTY_ALTERNATES: u8 = 4;
/// The kitty "report all keys as escape codes" flag.
const KITTY_ALL_AS_ESCAPES: u8 = 8;
/// The kitty "report associated text" flag.
const KITTY_TEXT: u8 = 16;

/// A key name that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyParseError {
    /// The offending token, as written (in a key script including its `<` and
    /// `>`).
    pub token: String,
    /// Why it was rejected.
    pub reason: String,
}

impl KeyParseError {
    fn new(token: impl Into<String>, reason: impl Into<String>) -> Self {
        KeyParseError { token: token.into(), reason: reason.into() }
    }
}

impl fmt::Display for KeyParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid key {}: {}. Accepted forms: {}",
            crate::error::quoted(&self.token),
            self.reason,
            ACCEPTED_KEY_FORMS
        )
    }
}

impl std::error::Error for KeyParseError {}

/// One piece of a key script: literal text or a key press.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScriptItem {
    /// Text, sent as its UTF-8 bytes.
    Text(String),
    /// A key press, sent with [`Key::encode`].
    Key(Key),
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/// Looks up a key name (case-insensitively). Returns the key and whether the
/// name implies shift (`BTab`).
fn lookup_name(name: &str) -> Option<(KeyCode, bool)> {
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "enter" | "cr" | "return" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "btab" => return Some((KeyCode::Tab, true)),
        "escape" | "esc" => KeyCode::Escape,
        "space" => KeyCode::Char(' '),
        "backspace" | "bspace" | "bs" => KeyCode::Backspace,
        "delete" | "dc" | "del" => KeyCode::Delete,
        "insert" | "ic" => KeyCode::Insert,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" | "ppage" | "pgup" => KeyCode::PageUp,
        "pagedown" | "npage" | "pgdn" => KeyCode::PageDown,
        "lt" => KeyCode::Char('<'),
        "bar" => KeyCode::Char('|'),
        "bslash" => KeyCode::Char('\\'),
        _ => {
            if let Some(key) = KeypadKey::from_name(&lower) {
                return Some((KeyCode::Keypad(key), false));
            }
            let n: u8 = lower.strip_prefix('f')?.parse().ok()?;
            // Reject "f01", "f+1" and the like: only the canonical digits.
            if !(1..=12).contains(&n) || lower[1..] != n.to_string() {
                return None;
            }
            KeyCode::F(n)
        }
    };
    Some((code, false))
}

/// If `s` starts with a modifier prefix (`C-`, `M-`, `A-`, `S-`, any case),
/// returns the modifier letter (lowercased).
fn modifier_prefix(s: &str) -> Option<char> {
    let b = s.as_bytes();
    if b.len() >= 2 && b[1] == b'-' {
        let m = b[0].to_ascii_lowercase();
        if matches!(m, b'c' | b'm' | b'a' | b's') {
            return Some(char::from(m));
        }
    }
    None
}

/// How modifiers are written, for the hint of [`spelled_out_modifiers`].
const MODIFIER_PREFIXES: &str = "modifiers are written C- for Ctrl, M- for Alt, S- for Shift";

/// A key written with its modifiers spelled out, as other tools write them (`Ctrl-c`,
/// `ctrl+shift+up`, `Alt-x`, `Control-C`), in this notation (`C-c`, `C-S-up`, `M-x`), if
/// that is a key: the hint of an unknown key name.
fn spelled_out_modifiers(name: &str) -> Option<String> {
    let mut rest = name;
    let mut prefixes = String::new();
    while let Some(cut) = rest.find(['-', '+']) {
        let prefix = match rest[..cut].to_ascii_lowercase().as_str() {
            "ctrl" | "control" | "ctl" => "C-",
            "alt" | "meta" | "opt" | "option" => "M-",
            "shift" => "S-",
            // Already this notation (`C-Ctrl-c`): a prefix of the key's own.
            "c" | "m" | "a" | "s" if rest.as_bytes()[cut] == b'-' => &rest[..=cut],
            _ => break,
        };
        prefixes.push_str(prefix);
        rest = &rest[cut + 1..];
    }
    let fix = format!("{prefixes}{rest}");
    let spelled = prefixes.len() < name.len() - rest.len();
    (spelled && !rest.is_empty() && fix.parse::<Key>().is_ok()).then_some(fix)
}

/// True when `s` is one or more modifier prefixes and nothing else (`C-`,
/// `C-S-`).
fn is_only_modifiers(s: &str) -> bool {
    let mut rest = s;
    while modifier_prefix(rest).is_some() {
        rest = &rest[2..];
    }
    rest.is_empty() && !s.is_empty()
}

impl FromStr for Key {
    type Err = KeyParseError;

    /// Parses tmux-style key notation; see [`ACCEPTED_KEY_FORMS`].
    ///
    /// Modifier prefixes `C-`, `M-`/`A-` and `S-` may be combined in any
    /// order. With `C-` an ASCII letter is case-insensitive (`C-A` is `C-a`);
    /// otherwise a character keeps its case (`M-A` is alt with `A`).
    fn from_str(s: &str) -> Result<Key, KeyParseError> {
        if s.is_empty() {
            return Err(KeyParseError::new(s, "empty key name"));
        }
        let mut mods = Modifiers::NONE;
        let mut rest = s;
        // A prefix needs something after it: "C-" alone is not ctrl+nothing,
        // and "C--" is ctrl with '-'.
        while rest.len() > 2 {
            match modifier_prefix(rest) {
                Some('c') => mods.ctrl = true,
                Some('m' | 'a') => mods.alt = true,
                Some('s') => mods.shift = true,
                _ => break,
            }
            rest = &rest[2..];
        }
        let code = if let Some((code, shift)) = lookup_name(rest) {
            mods.shift |= shift;
            code
        } else {
            let mut chars = rest.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => KeyCode::Char(c),
                _ if is_only_modifiers(rest) => {
                    return Err(KeyParseError::new(
                        s,
                        format!("modifier prefix {} is not followed by a key", quoted(rest)),
                    ));
                }
                _ => {
                    let hint = spelled_out_modifiers(s)
                        .map(|fix| format!("; write {fix} ({MODIFIER_PREFIXES})"))
                        .unwrap_or_default();
                    return Err(KeyParseError::new(
                        s,
                        format!("unknown key name {}{hint}", quoted(rest)),
                    ));
                }
            }
        };
        let code = match code {
            KeyCode::Char(c) if mods.ctrl && c.is_ascii_alphabetic() => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            other => other,
        };
        Ok(Key { code, mods })
    }
}

impl fmt::Display for Key {
    /// Writes the key in the notation [`FromStr`] accepts, e.g. `C-M-Up`,
    /// `S-Tab`, `Space`, `a`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.ctrl {
            f.write_str("C-")?;
        }
        if self.mods.alt {
            f.write_str("M-")?;
        }
        if self.mods.shift {
            f.write_str("S-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::Escape => f.write_str("Escape"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Delete"),
            KeyCode::Insert => f.write_str("Insert"),
            KeyCode::Up => f.write_str("Up"),
            KeyCode::Down => f.write_str("Down"),
            KeyCode::Left => f.write_str("Left"),
            KeyCode::Right => f.write_str("Right"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PageUp"),
            KeyCode::PageDown => f.write_str("PageDown"),
            KeyCode::F(n) => write!(f, "F{n}"),
            KeyCode::Keypad(key) => write!(f, "{key}"),
        }
    }
}

// ---------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------

/// How a key that is not Enter/Tab/Escape/Backspace/text is encoded.
#[derive(Clone, Copy)]
enum Functional {
    /// `CSI 1 ; m X`, unmodified `CSI X` (or `SS3 X` in application cursor
    /// mode): cursor keys, Home, End.
    Cursor(u8),
    /// `CSI 1 ; m X`, unmodified `SS3 X`: F1-F4 in xterm.
    Ss3(u8),
    /// `CSI n ; m ~`, unmodified `CSI n ~`.
    Tilde(u8),
}

/// xterm's encoding of the functional keys.
fn xterm_functional(code: KeyCode) -> Option<Functional> {
    use Functional::*;
    Some(match code {
        KeyCode::Up => Cursor(b'A'),
        KeyCode::Down => Cursor(b'B'),
        KeyCode::Right => Cursor(b'C'),
        KeyCode::Left => Cursor(b'D'),
        KeyCode::Home => Cursor(b'H'),
        KeyCode::End => Cursor(b'F'),
        KeyCode::Insert => Tilde(2),
        KeyCode::Delete => Tilde(3),
        KeyCode::PageUp => Tilde(5),
        KeyCode::PageDown => Tilde(6),
        KeyCode::F(n @ 1..=4) => Ss3(b'P' + (n - 1)),
        KeyCode::F(n @ 5..=12) => Tilde([15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)]),
        _ => return None,
    })
}

/// The number and final byte of a key in the kitty protocol's functional key
/// table (`CSI number ; modifiers final`).
fn kitty_functional(code: KeyCode) -> Option<(u32, u8)> {
    Some(match code {
        KeyCode::Escape => (27, b'u'),
        KeyCode::Enter => (13, b'u'),
        KeyCode::Tab => (9, b'u'),
        KeyCode::Backspace => (127, b'u'),
        // The spec's table gives F3 as `CSI 13 ~`, not `CSI 1 R`, because
        // `CSI 1 ; m R` collides with a cursor position report.
        KeyCode::F(3) => (13, b'~'),
        other => match xterm_functional(other)? {
            Functional::Cursor(c) | Functional::Ss3(c) => (1, c),
            Functional::Tilde(n) => (u32::from(n), b'~'),
        },
    })
}

/// `CSI [number] [; mods] final`, leaving out a number of 1 when there are no
/// modifiers, as both xterm and the kitty protocol do.
fn csi(number: u32, mods: Modifiers, last: u8) -> Vec<u8> {
    let mut s = String::from("\x1b[");
    if mods.is_empty() {
        if number != 1 {
            s.push_str(&number.to_string());
        }
    } else {
        s.push_str(&format!("{number};{}", mods.param()));
    }
    let mut out = s.into_bytes();
    out.push(last);
    out
}

/// The byte control turns an ASCII key into, per the kitty protocol's legacy
/// ctrl table (a superset of xterm's): `C-a`..`C-z` (either case) are
/// 0x01..0x1a, `C-@`/`C-Space`/`C-2` NUL, `C-[`/`C-3` ESC, `C-\`/`C-4` 0x1c,
/// `C-]`/`C-5` 0x1d, `C-^`/`C-~`/`C-6` 0x1e, `C-_`/`C-/`/`C-7` 0x1f,
/// `C-?`/`C-8` DEL. Other characters have no control form.
fn ctrl_byte(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        ' ' | '@' | '2' => 0,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '~' | '6' => 0x1e,
        '_' | '/' | '7' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

/// The character shift produces from `c`: its upper case when that is a
/// single character, otherwise `c` itself. No keyboard layout is assumed, so
/// shift does not change digits or punctuation (`S-1` is `1`, not `!`).
fn shifted(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// The lower-case ("un-shifted") form of `c`, if `c` is an upper-case letter
/// with a single-character lower case.
fn unshifted(c: char) -> Option<char> {
    if !c.is_uppercase() {
        return None;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) if l != c => Some(l),
        _ => None,
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// xterm's encoding of Enter, Escape, Backspace and Tab with any modifiers:
/// alt adds an `ESC` prefix, ctrl turns Backspace into BS, shift turns Tab
/// into `CSI Z`; other modifiers are not reported.
fn legacy_c0_key(code: KeyCode, mods: Modifiers) -> Option<Vec<u8>> {
    let main: &[u8] = match code {
        KeyCode::Enter => b"\r",
        KeyCode::Escape => b"\x1b",
        KeyCode::Backspace if mods.ctrl => b"\x08",
        KeyCode::Backspace => b"\x7f",
        KeyCode::Tab if mods.shift => b"\x1b[Z",
        KeyCode::Tab => b"\t",
        _ => return None,
    };
    let mut out = Vec::with_capacity(main.len() + 1);
    if mods.alt {
        out.push(0x1b);
    }
    out.extend_from_slice(main);
    Some(out)
}

/// xterm's form of a modified key under modifyOtherKeys `level`, `CSI 27 ; m ; code ~`,
/// where the legacy encoding loses the modifier or the key; `None` where the legacy form
/// stands (any key at level 0, unmodified keys, functional keys, which have modified forms of
/// their own, and Backspace). At level 1, as xterm's `ModifyOtherKeys` has it, only keys
/// without Alt (Alt's `ESC` prefix stands): Enter and Tab with Ctrl or Shift (`C-Enter`,
/// `S-Enter`, `C-Tab`; `S-Tab` and `C-S-Tab` stay `CSI Z`), Ctrl on a character without a
/// control byte (`C-.`), and Escape with Ctrl and Shift; characters with a control byte keep
/// it (`C-a`, `C-S-a`), and Shift alone on a printable character, Space included, is dropped
/// (`S-Space` is a space, `S-a` is `A`: xterm's `allowedCharModifiers` drops it at levels 0
/// and 1). At level 2 every key with a modifier but Shift alone on a character other than
/// Space (`S-a` stays `A`, where xterm sends `CSI 27;2;65~`; both read the same to a program
/// that asked; `S-Space` is `CSI 27;2;32~`), and `S-Tab`: `C-a` is `CSI 27;5;97~`, `M-x`
/// `CSI 27;3;120~`, `M-Enter` `CSI 27;3;13~`. The code is the character sent, shifted when
/// Shift is held (`C-S-a` is `CSI 27;6;65~`).
fn modified_other_key(code: KeyCode, mods: Modifiers, level: u8) -> Option<Vec<u8>> {
    if level == 0 || mods.is_empty() {
        return None;
    }
    let shift_only = mods == Modifiers { shift: true, ..Modifiers::NONE };
    let ctrl_only = mods == Modifiers { ctrl: true, ..Modifiers::NONE };
    if level < 2 && mods.alt {
        return None;
    }
    let (sent, modified) = match code {
        KeyCode::Enter => ('\r', true),
        KeyCode::Tab => ('\t', !shift_only && (level >= 2 || !mods.shift)),
        KeyCode::Escape => ('\x1b', level >= 2 || !(shift_only || ctrl_only)),
        KeyCode::Char(c) => {
            let sent = if mods.shift { shifted(c) } else { c };
            let modified = if mods.ctrl && xterm_ctrl_byte(c).is_some() {
                level >= 2
            } else {
                mods.ctrl || mods.alt || (c == ' ' && shift_only && level >= 2)
            };
            (sent, modified)
        }
        _ => return None,
    };
    modified.then(|| format!("\x1b[27;{};{}~", mods.param(), u32::from(sent)).into_bytes())
}

/// The control bytes X11 (and so xterm) gives the ASCII keys the kitty table leaves
/// out: control masks every character from `@` to `~` to its low five bits, so `` C-` ``
/// is NUL, `C-{` ESC, `C-|` 0x1c and `C-}` 0x1d.
fn xterm_ctrl_byte(c: char) -> Option<u8> {
    ctrl_byte(c).or(match c {
        '`' | '{' | '|' | '}' => Some(c as u8 & 0x1f),
        _ => None,
    })
}

/// xterm's encoding of a character key: `ESC` prefix for alt, then the
/// control byte for ctrl (ctrl is dropped for characters without one), else
/// the shifted character for shift, else the character.
fn legacy_char(c: char, mods: Modifiers) -> Vec<u8> {
    let mut out = Vec::with_capacity(5);
    if mods.alt {
        out.push(0x1b);
    }
    if mods.ctrl
        && let Some(b) = xterm_ctrl_byte(c)
    {
        out.push(b);
        return out;
    }
    push_char(&mut out, if mods.shift { shifted(c) } else { c });
    out
}

impl Key {
    /// Whether keys typed after this one should wait until the program has read it, under the
    /// terminal's `modes`: an Escape sent as the Escape byte (see
    /// [`Key::read_after_the_keys_before`]), which read with the next keys starts a key code or
    /// an Alt chord with them (vim `--clean` took `<Esc>Otwo` for the keypad's 4, `ESC O t`),
    /// and a plain Tab (or `<C-i>`, the same byte), which node's REPL takes for pasted text
    /// when read with more keys.
    pub fn read_alone(&self, modes: &crate::types::Modes) -> bool {
        let ctrl_only = self.mods == Modifiers { ctrl: true, ..Modifiers::NONE };
        match self.code {
            KeyCode::Tab => self.mods == Modifiers::NONE,
            KeyCode::Char('i') => ctrl_only,
            _ => self.read_after_the_keys_before(modes),
        }
    }

    /// Whether the keys typed before this one should be read before it is typed, under the
    /// terminal's `modes`: an Escape (`<Esc>`, `<C-[>`) sent as the Escape byte, which nano
    /// takes for a Meta key's prefix and holds, with every key read with it, drawing none of
    /// them until the next key comes: `hello<Esc>` in one write left its screen as it was,
    /// where a person, whose Escape comes after the text, sees `hello`. The keys before it are
    /// given [`READ_BEFORE_AN_ESCAPE`] to be read. Not under the kitty keyboard protocol
    /// (neovim asks for it), which sends them as a sequence of their own (`CSI 27 u`,
    /// `CSI 91;5u`) that no program takes for a prefix or a key code's start. xterm's
    /// modifyOtherKeys leaves Escape the Escape byte, which the programs that ask for it read
    /// as such: emacs as its Meta prefix, vim (level 2) as a key code's start (`<Esc>Otwo` read
    /// in one write was the keypad's 4), so under it an Escape is still typed apart (and
    /// `<C-[>` too, which only level 2 makes a sequence: the level keys are typed under is the
    /// reactor's, lower than the program's while the terminal takes signal characters).
    pub fn read_after_the_keys_before(&self, modes: &crate::types::Modes) -> bool {
        let ctrl_only = self.mods == Modifiers { ctrl: true, ..Modifiers::NONE };
        let escape = match self.code {
            KeyCode::Escape => true,
            KeyCode::Char('[') => ctrl_only,
            _ => false,
        };
        let legacy = KeyModes { modify_other_keys: 0, ..KeyModes::from(modes) };
        escape && self.encode_for(&legacy).last() == Some(&0x1b)
    }

    /// Whether pressing this key under `modes` ends a line, for a program that reads keys:
    /// Enter and the keypad's Enter (`ESC O M` in application keypad mode, `CSI 57414 u`
    /// under the kitty protocol: Enter to a program that asked for them), unmodified or with
    /// modifiers it is sent as they are (`<S-Enter>`, `<C-Enter>`: `\r` in the legacy
    /// encoding). Not one the program can tell from Enter: Alt-Enter (`ESC \r`, which zsh's
    /// and fish's line editors take for a new line in the command), and every modified Enter
    /// under modifyOtherKeys or the kitty protocol (`CSI 27;2;13~`, `CSI 13;2u`), which the
    /// program reads as a key of its own (a new line in a multi-line editor). While the
    /// terminal reads whole lines (canonical mode), its line discipline decides from the
    /// bytes instead, whatever the key (the reactor's `submits_line`): `ESC O M` left by a
    /// program that died in application keypad mode ends no line of a shell's `read`.
    pub(crate) fn submits(&self, modes: &KeyModes) -> bool {
        matches!(self.code, KeyCode::Enter | KeyCode::Keypad(KeypadKey::Enter))
            && (self.mods.is_empty()
                || self.encode_for(modes) == Key::new(self.code).encode_for(modes))
    }

    /// A key with no modifiers.
    pub fn new(code: KeyCode) -> Key {
        Key { code, mods: Modifiers::NONE }
    }

    /// A key with the given modifiers.
    pub fn with_mods(code: KeyCode, mods: Modifiers) -> Key {
        Key { code, mods }
    }

    /// The bytes a terminal sends to the program when this key is pressed.
    ///
    /// With `modes.kitty_flags == 0` this is xterm's encoding:
    ///
    /// * Enter `\r`, Tab `\t`, S-Tab `CSI Z`, Escape `ESC`, Backspace DEL
    ///   (C-Backspace BS); alt prefixes `ESC` (M-Enter is `ESC \r`).
    /// * Cursor keys and Home/End: `CSI A` (`SS3 A` when
    ///   `KeyModes::app_cursor` is set), with modifiers `CSI 1 ; m A` where
    ///   m = 1 + shift + 2·alt + 4·ctrl (CSI even in application cursor mode).
    /// * Insert/Delete/PageUp/PageDown `CSI 2/3/5/6 ~`, F1-F4 `SS3 P..S`,
    ///   F5-F12 `CSI 15/17/18/19/20/21/23/24 ~`; with modifiers
    ///   `CSI n ; m ~` and `CSI 1 ; m P..S`.
    /// * Characters as UTF-8. Ctrl maps ASCII keys to their C0 control
    ///   (`C-a` 0x01, `C-@`, `` C-` `` and `C-Space` NUL, `C-[` and `C-{` ESC,
    ///   `C-\` and `C-|` 0x1c, `C-]` and `C-}` 0x1d, `C-^` 0x1e, `C-_` 0x1f,
    ///   `C-?` DEL, and the digit row) and is
    ///   not reported for characters without one; alt prefixes `ESC`
    ///   (`M-C-a` is `ESC 0x01`); shift upper-cases letters (`S-a` is `A`).
    ///   Shift is dropped for Enter, Escape and Backspace, as in xterm.
    ///
    /// With xterm's modifyOtherKeys set (`Modes::modify_other_keys`, vim 9 sets level 2),
    /// modified keys the legacy forms lose, and at level 2 every character key with Ctrl or
    /// Alt, are `CSI 27 ; m ; code ~` (`C-Enter` is `CSI 27;5;13~`; see
    /// `modified_other_key`).
    ///
    /// With kitty flags set, see `KeyModes::kitty_flags` and the kitty
    /// keyboard protocol. In summary, with flag 1 (disambiguate):
    ///
    /// * Escape is `CSI 27 u`; text keys with ctrl or alt (or alt+shift) are
    ///   `CSI codepoint ; m u`, the codepoint being the lower-case key
    ///   (`C-a` is `CSI 97;5u`, `M-A` is `CSI 97;4u`); unmodified and
    ///   shift-only text keys are still sent as text.
    /// * Enter, Tab and Backspace stay `\r`, `\t`, DEL unless modified
    ///   (`CSI 13;m u`, `CSI 9;m u`, `CSI 127;m u`; S-Tab is `CSI 9;2u`).
    /// * Functional keys use `CSI` forms only, never `SS3`, whatever the
    ///   cursor mode: `CSI A`, `CSI 1;5A`, `CSI 3~`, F1 `CSI P`, F3 `CSI 13~`
    ///   (the spec moved F3 off `CSI R`, which collides with cursor position
    ///   reports).
    ///
    /// Flag 8 (report all keys as escape codes) sends every key as an escape
    /// code, including unmodified text (`a` is `CSI 97u`, `A` is
    /// `CSI 97;2u`) and Enter/Tab/Backspace (`CSI 13u`, `CSI 9u`,
    /// `CSI 127u`). Flag 4 adds the shifted key when shift is held
    /// (`C-S-a` is `CSI 97:65;6u`); the base-layout key is never sent. Flag
    /// 16 with flag 8 embeds the text a text key produces (`a` is
    /// `CSI 97;;97u`). Flag 2 adds nothing to presses, but like flag 1 it
    /// takes functional keys out of the legacy `SS3` forms. Shifted
    /// punctuation is reported as its own codepoint, since no keyboard layout
    /// is assumed.
    ///
    /// The numeric keypad's keys ([`KeyCode::Keypad`]) send their characters (`KPEnter` a
    /// carriage return, modifiers dropped), or in application keypad mode
    /// (`KeyModes::app_keypad`, `ESC =`) `SS3` sequences, `ESC O p`..`ESC O y` for `KP0`..`KP9`,
    /// `ESC O M` for `KPEnter`, `ESC O k m j o n` for `KP+ KP- KP* KP/ KP.`, with a modifier
    /// its parameter after `SS3` (`C-KP+` is `ESC O 5 k`), as xterm sends them; under the kitty
    /// protocol's disambiguate flag, their text or `CSI 57399..57416 ; m u`.
    ///
    /// `F(n)` outside 1..=12 and `Keypad(Digit(n))` above 9 encode to no bytes.
    pub fn encode(&self, modes: &crate::types::Modes) -> Vec<u8> {
        self.encode_for(&KeyModes::from(modes))
    }

    /// [`Key::encode`] for the key-relevant modes.
    pub(crate) fn encode_for(&self, modes: &KeyModes) -> Vec<u8> {
        if modes.kitty_flags == 0 {
            modified_other_key(self.code, self.mods, modes.modify_other_keys)
                .unwrap_or_else(|| self.encode_legacy(modes))
        } else {
            self.encode_kitty(modes)
        }
    }

    fn encode_legacy(&self, modes: &KeyModes) -> Vec<u8> {
        let (mods, app_cursor) = (self.mods, modes.app_cursor);
        match self.code {
            KeyCode::Char(c) => return legacy_char(c, mods),
            KeyCode::Keypad(key) => return keypad::legacy(key, mods, modes.app_keypad),
            _ => {}
        }
        if let Some(bytes) = legacy_c0_key(self.code, mods) {
            return bytes;
        }
        match xterm_functional(self.code) {
            Some(Functional::Cursor(c)) if mods.is_empty() && app_cursor => vec![0x1b, b'O', c],
            Some(Functional::Ss3(c)) if mods.is_empty() => vec![0x1b, b'O', c],
            Some(Functional::Cursor(c) | Functional::Ss3(c)) => csi(1, mods, c),
            Some(Functional::Tilde(n)) => csi(u32::from(n), mods, b'~'),
            None => Vec::new(),
        }
    }

    fn encode_kitty(&self, modes: &KeyModes) -> Vec<u8> {
        let flags = modes.kitty_flags;
        match self.code {
            KeyCode::Char(c) => kitty_text_key(c, self.mods, flags),
            // (The separator too without it: kitty keeps it a keypad key.)
            KeyCode::Keypad(key)
                if flags & KITTY_DISAMBIGUATE != 0 || key == KeypadKey::Separator =>
            {
                keypad::kitty(
                    key,
                    self.mods,
                    flags & KITTY_ALL_AS_ESCAPES != 0,
                    flags & KITTY_TEXT != 0,
                )
            }
            // Without the disambiguate flag kitty sends the main keyboard's key.
            KeyCode::Keypad(key) => key
                .main_key()
                .map(|code| Key::with_mods(code, self.mods).encode_kitty(modes))
                .unwrap_or_default(),
            code => kitty_functional_key(code, self.mods, modes),
        }
    }
}

/// A functional key (anything but a text key) in the kitty protocol.
fn kitty_functional_key(code: KeyCode, mods: Modifiers, modes: &KeyModes) -> Vec<u8> {
    let flags = modes.kitty_flags;
    let disambiguate = flags & KITTY_DISAMBIGUATE != 0;
    let all_as_escapes = flags & KITTY_ALL_AS_ESCAPES != 0;
    // Without flags 1, 2 and 8 the legacy forms are kept (only flags 4
    // and/or 16 set, which do not apply to functional keys).
    let legacy_forms = flags & (KITTY_DISAMBIGUATE | KITTY_EVENT_TYPES | KITTY_ALL_AS_ESCAPES) == 0;

    if legacy_forms {
        let legacy = Key::with_mods(code, mods).encode_legacy(modes);
        // Legacy keeps everything except F3 with modifiers, for which the
        // kitty table's `CSI 13 ; m ~` replaces xterm's `CSI 1 ; m R`.
        if code != KeyCode::F(3) || mods.is_empty() {
            return legacy;
        }
    }
    if mods.is_empty() {
        if code == KeyCode::Escape && !disambiguate && !all_as_escapes {
            return b"\x1b".to_vec();
        }
        if !all_as_escapes {
            match code {
                KeyCode::Enter => return b"\r".to_vec(),
                KeyCode::Tab => return b"\t".to_vec(),
                KeyCode::Backspace => return b"\x7f".to_vec(),
                _ => {}
            }
        }
    }
    match kitty_functional(code) {
        Some((number, last)) => csi(number, mods, last),
        None => Vec::new(),
    }
}

/// A text-producing key in the kitty protocol.
fn kitty_text_key(c: char, mods: Modifiers, flags: u8) -> Vec<u8> {
    let disambiguate = flags & KITTY_DISAMBIGUATE != 0;
    let all_as_escapes = flags & KITTY_ALL_AS_ESCAPES != 0;
    let alternates = flags & KITTY_ALTERNATES != 0;
    let embed_text = flags & KITTY_TEXT != 0;

    // The protocol reports the un-shifted key plus the shift modifier: an
    // upper-case letter is its lower-case key with shift.
    let (key, mods) = match unshifted(c) {
        Some(lower) => (lower, Modifiers { shift: true, ..mods }),
        None => (c, mods),
    };
    let shifted_key = if mods.shift { shifted(key) } else { key };
    // Only unmodified or shift-only presses of printable keys produce text.
    let text = (!mods.ctrl && !mods.alt && !key.is_control()).then_some(shifted_key);

    if let Some(t) = text
        && !all_as_escapes
    {
        let mut out = Vec::with_capacity(4);
        push_char(&mut out, t);
        return out;
    }

    let add_alternate = alternates && mods.shift && shifted_key != key;
    let add_text = embed_text && text.is_some();
    if !add_alternate && !add_text {
        if mods.is_empty() && !all_as_escapes {
            // A control character with no modifiers: sent as is.
            let mut out = Vec::with_capacity(4);
            push_char(&mut out, key);
            return out;
        }
        if !mods.is_empty()
            && !disambiguate
            && !all_as_escapes
            && let Some(bytes) = kitty_legacy_text(key, shifted_key, mods)
        {
            return bytes;
        }
    }

    let alternate = add_alternate.then_some(shifted_key);
    kitty_csi_u(u32::from(key), alternate, mods, text.filter(|_| add_text))
}

/// The kitty protocol's `CSI code [: alternate] [; mods [; text]] u` for the key whose code
/// point is `code`: its shifted key's when `alternate` (flag 4), its modifiers, and the text
/// it types when `text` (flag 16).
pub(super) fn kitty_csi_u(
    code: u32,
    alternate: Option<char>,
    mods: Modifiers,
    text: Option<char>,
) -> Vec<u8> {
    let mut s = format!("\x1b[{code}");
    if let Some(alternate) = alternate {
        s.push_str(&format!(":{}", u32::from(alternate)));
    }
    if !mods.is_empty() || text.is_some() {
        s.push(';');
        if !mods.is_empty() {
            s.push_str(&mods.param().to_string());
        }
    }
    if let Some(text) = text {
        s.push_str(&format!(";{}", u32::from(text)));
    }
    s.push('u');
    s.into_bytes()
}

/// The kitty protocol's legacy encoding of a modified ASCII text key, used
/// when neither flag 1 nor flag 8 is set. Returns `None` for combinations
/// that have no legacy form (they are then sent as `CSI u`).
fn kitty_legacy_text(key: char, shifted_key: char, mods: Modifiers) -> Option<Vec<u8>> {
    if !(key.is_ascii_graphic() || key == ' ') {
        return None;
    }
    let mut key = key;
    let mut rest = mods;
    if mods.shift && shifted_key != key && (!mods.ctrl || !key.is_ascii_lowercase()) {
        key = shifted_key;
        rest.shift = false;
    }
    let ctrl = |k: char| ctrl_byte(k).unwrap_or(k as u8);
    let bytes = match (rest.ctrl, rest.alt, rest.shift) {
        (false, true, false) => vec![0x1b, key as u8],
        (true, false, false) => vec![ctrl(key)],
        (true, true, false) => vec![0x1b, ctrl(key)],
        (true, false, true) if key == ' ' => vec![ctrl(key)],
        (false, true, true) if key == ' ' => vec![0x1b, key as u8],
        _ => return None,
    };
    Some(bytes)
}

// ---------------------------------------------------------------------------
// Key scripts
// ---------------------------------------------------------------------------

/// Names that stand for a literal character in a script; they become text.
fn literal_char_name(name: &str) -> Option<char> {
    match name.to_ascii_lowercase().as_str() {
        "lt" => Some('<'),
        "bar" => Some('|'),
        "bslash" => Some('\\'),
        _ => None,
    }
}

const UNTERMINATED: &str = "`<` starts a key name that is not closed by `>` \
(key names contain no spaces and no `<`); write <lt> for a literal `<`";

/// Parses a key script: text mixed with keys in vim bracket notation.
///
/// * `ihello<Esc>:wq<Enter>`, `<C-c>`, `<Up><Up><CR>`.
/// * Inside `<…>` any name [`Key`] accepts (case-insensitive), including the
///   vim spellings `<CR>`, `<Return>`, `<BS>`, `<Del>`, `<Space>`, `<Esc>`,
///   `<Tab>`, `<S-Tab>`, `<C-x>`, `<M-x>`, `<A-x>`, `<PageUp>`, `<F5>`.
///   `<C->>` is ctrl with `>`.
/// * `<lt>`, `<Bar>` and `<Bslash>` are the literal text `<`, `|` and `\`
///   (they join the surrounding text); with modifiers (`<C-lt>`) they are
///   keys.
/// * A `>` outside brackets is text. Adjacent text is one [`ScriptItem::Text`].
///
/// A `<` that does not start a valid `<…>` key is an error naming the token:
/// unterminated (`<Esc` — the name may not contain whitespace or another
/// `<`), empty (`<>`), an unknown name (`<Foo>`) or a dangling modifier
/// (`<C->`). Text is never guessed from a bad key name.
pub fn parse_key_script(script: &str) -> Result<Vec<ScriptItem>, KeyParseError> {
    let mut items = Vec::new();
    let mut text = String::new();
    let mut rest = script;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let (name, consumed) = bracket_name(after)?;
        if let Some(c) = literal_char_name(name) {
            text.push(c);
        } else {
            let key = name.parse::<Key>().map_err(|e| {
                // The fix in the script's own notation: `<C-c>`, not `C-c`.
                let reason = match spelled_out_modifiers(name) {
                    Some(fix) => format!(
                        "unknown key name {}; write <{fix}> ({MODIFIER_PREFIXES})",
                        quoted(name)
                    ),
                    None => e.reason,
                };
                KeyParseError::new(format!("<{name}>"), reason)
            })?;
            if !text.is_empty() {
                items.push(ScriptItem::Text(std::mem::take(&mut text)));
            }
            items.push(ScriptItem::Key(key));
        }
        rest = &after[consumed..];
    }
    text.push_str(rest);
    if !text.is_empty() {
        items.push(ScriptItem::Text(text));
    }
    Ok(items)
}

/// The key script to give for `script` when it is only key names without their angle
/// brackets (`C-c`, `Enter`, `Up Up Enter`: tmux's `send-keys` notation), which
/// [`parse_key_script`] takes for text and would type letter by letter: `<C-c>`,
/// `<Up><Up><Enter>`. `None` for any other script. A word counts when it names a [`Key`] and
/// is written as one, capitalised (`Enter`, `F5`, `C-c`) or after one of tmux's modifiers in
/// lower case (`c-c`, `m-x`, `s-tab`), so that another lower-case word (`end`, `up`, `a-b`,
/// which the key names take for Alt-b), a single character (`q`) and a script with any other
/// word (`Escape :wq`) stay text. The command line's `--keys` and the MCP tools' `keys` refuse
/// such a script with it.
pub fn bracketed_key_names(script: &str) -> Option<String> {
    let named = |word: &str| {
        let tmux_modifier = ["c-", "m-", "s-"].iter().any(|m| word.starts_with(m));
        word.chars().count() >= 2
            && (word.starts_with(|c: char| c.is_ascii_uppercase()) || tmux_modifier)
            && word.parse::<Key>().is_ok()
    };
    let words: Vec<&str> = script.split_whitespace().collect();
    if words.is_empty() || !words.iter().all(|word| named(word)) {
        return None;
    }
    Some(words.iter().map(|word| bracketed(word)).collect())
}

/// Key name `word` in angle brackets: `<Enter>`, `<C-c>`. A `<` in brackets starts another
/// name, so the key is written `lt` there (`C-<` is `<C-lt>`).
fn bracketed(word: &str) -> String {
    match word.strip_suffix('<') {
        Some(modifiers) => format!("<{modifiers}lt>"),
        None => format!("<{word}>"),
    }
}

/// The names that, written out as the last word of a key script, are taken for a key meant
/// and not for text: what a terminal's text seldom ends with but tmux's `send-keys TEXT Enter`
/// ends with. Written as tmux and vim write them (`enter`, `TAB` are left alone): `Enter`,
/// the Escape key (`Escape`, `Esc`), Tab and Shift-Tab (`Tab`, `BTab`) and Backspace
/// (`BSpace`, `Backspace`). Names that end sentences and commands as words (`Up`, `End`,
/// `Home`, `Space`, `Bar`, `Lt`, `Return`, `Delete`, `F1`) are not among them.
const KEY_NAMES_ENDING_NO_TEXT: [&str; 7] =
    ["Enter", "Escape", "Esc", "Tab", "BTab", "BSpace", "Backspace"];

/// The key name that key script `script` ends with as text, written out without its angle
/// brackets after text (`make Enter`, `sleep 9 C-c`: tmux's `send-keys` notation), which
/// [`parse_key_script`] types letter by letter, and the key as a script writes it:
/// `("Enter", "<Enter>")`, `("C-c", "<C-c>")`. `None` for any other script. (Only the key is
/// told, not a script rewritten around it: `Escape :wq Enter` would be told a script still
/// typing `Escape`, and a long script's rewrite would be cut where it is shown.)
///
/// Only a last word that essentially never ends typed text counts, since the script is typed
/// as it is and only told: `Enter`, `Escape`, `Esc`, `Tab`, `BTab`, `BSpace` or `Backspace`,
/// capitalised as tmux and vim write them (`KEY_NAMES_ENDING_NO_TEXT`), or a chord (see
/// `chord_of_a_letter`): the upper-case modifiers [`Key`] takes (`C-`, `M-` or `A-`, `S-`), in
/// any order and each modifier at most once, with a lower-case letter (`C-c`, `C-d`, `M-x`,
/// `C-M-a`, `M-C-a`); a capital after them reads as a range or a grade (`C-D`), lower-case
/// modifiers as a range (`a-z`). A script of several lines is text typed as lines (a
/// here-document's), and is not told. Words that are key names but also ordinary words
/// (`Press Up`, `echo Foo Bar`, `Lt`, `End`) stay text, as does a name before the end (`Press
/// Enter now`) or followed by a bracketed key (`Enter<Enter>`), and a script of key names
/// alone, which [`bracketed_key_names`] tells. The command line's `--keys` and the MCP tools'
/// `keys` type such a script as given and note it with the key returned, in the words of
/// [`tools::typed_key_name_note`](crate::tools::typed_key_name_note).
pub fn key_name_typed_at_end(script: &str) -> Option<(&str, String)> {
    let script = script.trim_end();
    if script.contains(['\n', '\r']) {
        return None;
    }
    let (before, word) = script.rsplit_once(char::is_whitespace)?;
    let named = KEY_NAMES_ENDING_NO_TEXT.contains(&word) || chord_of_a_letter(word);
    if before.trim().is_empty() || !named || bracketed_key_names(script).is_some() {
        return None;
    }
    Some((word, bracketed(word)))
}

/// Whether `word` is a chord [`key_name_typed_at_end`] tells: one or more of the modifier
/// prefixes [`Key`]'s parser takes, written in upper case (`C-`, `M-`, `A-`, `S-`), in any
/// order as tmux takes them (`C-M-x`, `M-C-x`), each modifier once (`M-` and `A-` are both
/// Alt: `M-A-x` is no chord, nor `C-C-c`), then one lower-case ASCII letter. Every such word
/// parses to a key with those modifiers; a few bytes are looked at, however long the word.
fn chord_of_a_letter(word: &str) -> bool {
    let mut held = Modifiers::NONE;
    let mut rest = word;
    while let [modifier @ (b'C' | b'M' | b'A' | b'S'), b'-', ..] = rest.as_bytes() {
        let flag = match modifier {
            b'C' => &mut held.ctrl,
            b'S' => &mut held.shift,
            _ => &mut held.alt,
        };
        if std::mem::replace(flag, true) {
            return false;
        }
        rest = &rest[2..];
    }
    !held.is_empty() && matches!(rest.as_bytes(), [letter] if letter.is_ascii_lowercase())
}

/// Finds the key name after a `<`. Returns the name and the number of bytes
/// of `after` it occupies including the closing `>`.
fn bracket_name(after: &str) -> Result<(&str, usize), KeyParseError> {
    for (i, ch) in after.char_indices() {
        match ch {
            '>' => {
                let name = &after[..i];
                if name.is_empty() {
                    return Err(KeyParseError::new(
                        "<>",
                        "empty key name; write <lt> for a literal `<`",
                    ));
                }
                // `<C->>`: the key is `>` itself.
                if is_only_modifiers(name) && after[i + 1..].starts_with('>') {
                    return Ok((&after[..=i], i + 2));
                }
                return Ok((name, i + 1));
            }
            '<' => {
                return Err(KeyParseError::new(format!("<{}", &after[..i]), UNTERMINATED));
            }
            c if c.is_whitespace() => {
                return Err(KeyParseError::new(format!("<{}", &after[..i]), UNTERMINATED));
            }
            _ => {}
        }
    }
    Err(KeyParseError::new(format!("<{after}"), UNTERMINATED))
}

/// Encodes a parsed key script.
///
/// Text items are sent as their plain UTF-8 bytes in every mode — even when
/// the kitty flag 8 (report all keys as escape codes) would make a typed text
/// key an escape code — just as a terminal sends pasted or IME-committed text.
/// Key items are sent with [`Key::encode`].
pub(crate) fn encode_script(items: &[ScriptItem], modes: &KeyModes) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        match item {
            ScriptItem::Text(t) => out.extend_from_slice(t.as_bytes()),
            ScriptItem::Key(k) => out.extend_from_slice(&k.encode_for(modes)),
        }
    }
    out
}

/// Whether typing `items` under `modes` ends a line: an Enter last (see [`Key::submits`]), or
/// text that ends with a line end.
pub(crate) fn script_submits(items: &[ScriptItem], modes: &KeyModes) -> bool {
    match items.last() {
        Some(ScriptItem::Key(key)) => key.submits(modes),
        Some(ScriptItem::Text(text)) => bytes_submit(text.as_bytes()),
        None => false,
    }
}

/// Whether typing `bytes` ends a line: a carriage return or a line feed last.
pub(crate) fn bytes_submit(bytes: &[u8]) -> bool {
    matches!(bytes.last(), Some(b'\r' | b'\n'))
}

/// The longest wait for the keys before an Escape to be read before the Escape is typed
/// anyway ([`Key::read_after_the_keys_before`]): nano answers them in a few milliseconds,
/// and a program that never waits for input (a game redrawing on its own clock) would hold
/// the Escape for the whole wait, which the caller never meant to spend there (it waited
/// 10 s before this bound). A program slower than this gets the Escape with its keys, as it
/// did before keys were cut before an Escape. Text's last Escape is given as long before
/// what the call types after it.
pub const READ_BEFORE_AN_ESCAPE: std::time::Duration = std::time::Duration::from_millis(500);

/// The longest wait for an Escape to be read before an Escape right after it is typed: a
/// person's second press comes within the moment a program waits after an Escape for a key
/// code's rest (mc's 1 s timer, ncurses's `ESCDELAY`), and mc takes the two for one cancel.
/// Typed once the first was read and answered, which mc does only when its timer runs out,
/// each was a lone Escape: `<Esc><Esc>` closed mcedit's search dialog, then quit mcedit.
/// Still a write of its own, typed once the first was read or when this wait ends: a program
/// that reads at once reads them apart (bubbletea takes `ESC ESC` read together for
/// Alt-Escape), one busy for longer reads both in one read, `\e\e`, as it does a person's
/// two quick presses (tmux's `send-keys Escape Escape` writes them together).
pub const BETWEEN_ESCAPES: std::time::Duration = std::time::Duration::from_millis(150);

/// The longest wait for key script `part`, one of [`typing_parts`]'s, to be read before
/// `next`, the part after it, is typed: [`BETWEEN_ESCAPES`] when both are Escapes there;
/// [`READ_BEFORE_AN_ESCAPE`] when `part` was cut only because `next` begins with an Escape
/// (under the terminal's `modes`, as `typing_parts` cut them); `None` (the caller's own
/// bound) when `part` ends with another key read alone, or either does not parse. (The keys
/// after an Escape wait for it to be read, however long: given half a second, a program
/// busy longer read `<Esc>Otwo` as the keypad's 4 again, review wq; a program that never
/// waits for input gets them at the end of the caller's wait.)
pub fn part_read_bound(
    part: &str,
    next: &str,
    modes: &crate::types::Modes,
) -> Option<std::time::Duration> {
    let (part, next) = (parse_key_script(part).ok()?, parse_key_script(next).ok()?);
    let escape = |item: Option<&ScriptItem>| matches!(item, Some(ScriptItem::Key(key)) if key.read_after_the_keys_before(modes));
    let ends_alone = matches!(part.last(), Some(ScriptItem::Key(key)) if key.read_alone(modes));
    match (escape(part.last()), escape(next.first())) {
        (true, true) => Some(BETWEEN_ESCAPES),
        (false, true) if !ends_alone => Some(READ_BEFORE_AN_ESCAPE),
        _ => None,
    }
}

/// How long after a program read an Escape typed alone, and went on (printed since), the keys
/// after it are typed when it does not wait for input ([`escape_read`]; a second more when it
/// printed nothing since): longer than a wait for the rest of a key code after an Escape
/// with a timer of a second or less (vim's `timeoutlen`, ncurses's `ESCDELAY` and mc's timer
/// as set by default), and 100 ms of slack. A longer timer (vim's `ttimeoutlen=1800`,
/// `ESCDELAY=1500`) is a poll the probe takes for a wait for input, as an idle tick: the keys
/// after the Escape go within it, and are read with it. Given
/// [`BETWEEN_ESCAPES`], vim `-u NONE` (which draws within its second's wait) took
/// `<Esc>Otwo` for the keypad's 4 again.
pub const AFTER_AN_ESCAPE_READ: std::time::Duration =
    crate::os::procfs::SHORT_TIMER.saturating_add(crate::os::procfs::TIMER_SLACK);

/// What else shows that key script `part`, one of [`typing_parts`]'s, ending in an Escape
/// (under the terminal's `modes`), was read alone, besides the program's wait for input:
/// the terminal's input queue found empty, the program printing after that, and
/// [`AFTER_AN_ESCAPE_READ`] since; or a second more with nothing printed
/// ([`Until::input_read`](crate::Until::input_read)). A program that never waits for input
/// (a game polling the terminal between the frames of its clock, or polling and printing
/// nothing) gets the keys after the Escape so, a second or two on, not at the end of the
/// caller's wait (10 s or more); one waiting for the rest of a key code with a timer of a
/// second or less (vim's `ttimeout`, ncurses's `ESCDELAY`) has answered the Escape alone by
/// then (a longer timer is taken for a wait for input, and the keys after the Escape come
/// within it, [`AFTER_AN_ESCAPE_READ`]); the Escape read by a relay waiting on the terminal
/// again (`script`, `sudo` with `use_pty`) counts as read only once the program behind it
/// prints or waits for input; and one busy in canonical
/// mode (vim in `system()`) has not read it (an Escape in a line not ended is not counted
/// read). `None` for a part that does not end in an Escape (or does not parse). MCP
/// `terminal_send`'s `keys`, `termloom run --keys` ([`part_read`]) and the testing kit's
/// `press` end their waits so (text's last Escape is given [`READ_BEFORE_AN_ESCAPE`]: [`text_typing_steps`]).
pub fn escape_read(part: &str, modes: &crate::types::Modes) -> Option<crate::Until> {
    let items = parse_key_script(part).ok()?;
    matches!(items.last(), Some(ScriptItem::Key(key)) if key.read_after_the_keys_before(modes))
        .then(|| crate::Until::input_read(AFTER_AN_ESCAPE_READ))
}

/// What ends the wait for key script `part`, one of [`typing_parts`]'s, to be read before the
/// next part is typed, for a caller with no wait of its own (`termloom run --keys`): the
/// program waits for input again ([`Until::input_wait`](crate::Until::input_wait)), exits,
/// or has been quiet for `quiet`; after an Escape, quiet for `quiet` only while not known to
/// be busy (its foreground group waiting for input, or `/proc` unable to tell: a program
/// run as another user), as MCP `terminal_send`'s default wait, or [`escape_read`]. A
/// program busy in raw mode for longer than `quiet` after the keys before an Escape has not
/// read the Escape: silence alone typed the keys after it, which it read with the Escape in
/// one read (`x<Esc>q` as `x`, then Alt-q).
pub fn part_read(
    part: &str,
    modes: &crate::types::Modes,
    quiet: std::time::Duration,
) -> crate::Until {
    let mut read = vec![crate::Until::input_wait(), crate::Until::exit()];
    match escape_read(part, modes) {
        Some(escape) => read.extend([crate::Until::settled(quiet), escape]),
        None => read.push(crate::Until::quiet(quiet)),
    }
    crate::Until::any(read)
}

/// Text to type (its escapes decoded) cut as [`typing_steps`] cuts keys: the bytes before the
/// Escapes it ends with, then each of those Escapes alone, each with the longest wait for it
/// to be read before the next piece, or what the caller types after the text, is typed
/// ([`READ_BEFORE_AN_ESCAPE`] before the first Escape and after the last, [`BETWEEN_ESCAPES`]
/// for an Escape before another; `None`, the caller's own bound, after text that does not
/// end in an Escape). `x\e\e` is `x`, `\e`, `\e`: typed in one write, mc took the two
/// Escapes for one cancel, bubbletea for Alt-Escape. Text that does not end in an Escape is
/// one piece (an Escape inside the text, `\e[A`, `ihi\e:wq\r`, is typed with the bytes
/// around it, as given); empty text none. The wait after the last Escape is bounded as
/// before the first: a program that neither waits for input nor prints once it read it
/// would hold what comes next until the caller's timeout (10 s), and one that waits for a
/// key code's rest after it answers it alone within that time or reads it with the next keys,
/// as it did when they were one write. No wait at all while the terminal reads whole lines
/// ([`line_holds_text`]). MCP `terminal_send`'s `text`, `termloom run --send` and the
/// testing kit's `send_text` are typed so.
///
/// ```
/// use termloom::{BETWEEN_ESCAPES, READ_BEFORE_AN_ESCAPE};
/// let steps = termloom::text_typing_steps(b"x\x1b\x1b");
/// let x = (&b"x"[..], Some(READ_BEFORE_AN_ESCAPE));
/// let escapes = [(&b"\x1b"[..], Some(BETWEEN_ESCAPES)), (&b"\x1b"[..], Some(READ_BEFORE_AN_ESCAPE))];
/// assert_eq!(steps, [x, escapes[0], escapes[1]]);
/// assert_eq!(termloom::text_typing_steps(b"\x1b[A"), [(&b"\x1b[A"[..], None)]);
/// ```
pub fn text_typing_steps(bytes: &[u8]) -> Vec<(&[u8], Option<std::time::Duration>)> {
    let kept = bytes.len() - bytes.iter().rev().take_while(|&&byte| byte == 0x1b).count();
    let mut steps = Vec::new();
    if kept > 0 {
        let bound = (kept < bytes.len()).then_some(READ_BEFORE_AN_ESCAPE);
        steps.push((&bytes[..kept], bound));
    }
    for at in kept..bytes.len() {
        let bound = if at + 1 < bytes.len() { BETWEEN_ESCAPES } else { READ_BEFORE_AN_ESCAPE };
        steps.push((&bytes[at..=at], Some(bound)));
    }
    steps
}

/// Whether what is typed after a piece of text, `next`, may go without a wait for the piece
/// to be read: the terminal, under its `line_modes` ([`SessionInfo::line_modes`](crate::SessionInfo::line_modes)),
/// holds typed text until its line ends (canonical mode), so an Escape in the line goes on
/// with it, read with what ends it, however long the typist waits; and `next` ends the line
/// or interrupts it (Enter, Ctrl-C, Ctrl-D, Ctrl-Z, Ctrl-\). A program reading lines
/// (Python's `input()` between the frames of its clock) or never reading (`while :; do echo
/// tick; sleep .1; done`) held the Enter or Ctrl-C after `x\e` for the caller's whole timeout
/// (10 s, review wu). Other keys still wait (half a second at most after text): a program
/// busy in canonical mode that then reads keys in raw mode, vim in `system()`, read `\eOt`
/// typed at once as the keypad's 4 (review xa).
pub fn line_holds_text(line_modes: Option<crate::types::LineModes>, next: &[u8]) -> bool {
    let ends_line = matches!(next.first(), Some(b'\r' | b'\n' | 0x03 | 0x04 | 0x1a | 0x1c));
    ends_line && line_modes.is_some_and(|modes| modes.canonical)
}

/// A key script cut, under the terminal's `modes`, after each key that must be read alone
/// ([`Key::read_alone`]) when more keys follow, and before an Escape that keys come before
/// ([`Key::read_after_the_keys_before`]), as key scripts (a literal `<` as `<lt>`), each to
/// be typed once the program has read the one before: `<Esc>q` is `<Esc>` then `q`, `x<Esc>`
/// is `x` then `<Esc>`, unless the terminal sends Escape as a sequence of its own (the kitty
/// keyboard protocol). MCP `terminal_send`'s `keys` and `termloom run --keys` are typed so.
///
/// ```
/// // Under a session's modes (`session.screen()?.modes`); here a terminal's first ones, then
/// // with the kitty keyboard protocol on.
/// let items = termloom::parse_key_script("ione<Esc>Otwo<Tab>x").unwrap();
/// let mut modes = termloom::Modes::default();
/// assert_eq!(termloom::typing_parts(&items, &modes), ["ione", "<Escape>", "Otwo<Tab>", "x"]);
/// modes.kitty_keyboard = 1;
/// assert_eq!(termloom::typing_parts(&items, &modes), ["ione<Escape>Otwo<Tab>", "x"]);
/// ```
pub fn typing_parts(items: &[ScriptItem], modes: &crate::types::Modes) -> Vec<String> {
    let mut parts = vec![String::new()];
    for (at, item) in items.iter().enumerate() {
        let after_keys = !parts.last().expect("a part").is_empty();
        let escape = matches!(item, ScriptItem::Key(key) if key.read_after_the_keys_before(modes));
        if after_keys && escape {
            parts.push(String::new());
        }
        let part = parts.last_mut().expect("a part");
        match item {
            ScriptItem::Text(text) => part.push_str(&text.replace('<', "<lt>")),
            ScriptItem::Key(key) => part.push_str(&format!("<{key}>")),
        }
        if matches!(item, ScriptItem::Key(key) if key.read_alone(modes)) && at + 1 < items.len() {
            parts.push(String::new());
        }
    }
    parts
}

/// [`typing_parts`] each with the longest wait for it to be read before the next part is
/// typed ([`part_read_bound`]: [`READ_BEFORE_AN_ESCAPE`] before an Escape,
/// [`BETWEEN_ESCAPES`] for an Escape before another; `None`, the caller's own bound,
/// otherwise and after the last part). MCP `terminal_send`'s `keys`, `termloom run --keys`
/// and the testing kit's `press` type their keys so: in the legacy encoding
/// `ione<Esc><Esc>x` is `ione` (half a second), `<Escape>` (150 ms), `<Escape>` (the
/// caller's bound), `x`.
pub fn typing_steps(
    items: &[ScriptItem],
    modes: &crate::types::Modes,
) -> Vec<(String, Option<std::time::Duration>)> {
    let parts = typing_parts(items, modes);
    let bounds: Vec<_> = (0..parts.len())
        .map(|at| part_read_bound(&parts[at], parts.get(at + 1).map_or("", String::as_str), modes))
        .collect();
    parts.into_iter().zip(bounds).collect()
}

/// What a program that echoes typed text would show for `items`, a script that submits a
/// line: its characters, when they are plain text (characters, shifted or not, and the Enter
/// that ends it, with a modifier or not); `None` when keys that edit, move or complete are among them (the line's
/// echo cannot be told from the keys).
pub(crate) fn script_echo(items: &[ScriptItem]) -> Option<String> {
    let mut echo = String::new();
    let last = items.len().checked_sub(1)?;
    for (i, item) in items.iter().enumerate() {
        match item {
            ScriptItem::Text(text) if i == last => echo.push_str(&bytes_echo(text.as_bytes())?),
            ScriptItem::Text(text) => echo.push_str(plain_text(text)?),
            // With a modifier too (`<S-Enter>`): the line's characters are still its echo,
            // and what the program adds after them its answer (taken all for echo, a reply
            // on that line went unseen).
            ScriptItem::Key(Key {
                code: KeyCode::Enter | KeyCode::Keypad(KeypadKey::Enter),
                ..
            }) if i == last => {}
            ScriptItem::Key(Key { code: KeyCode::Char(c), mods })
                if !mods.ctrl && !mods.alt && !c.is_control() =>
            {
                match mods.shift {
                    true => echo.extend(c.to_uppercase()),
                    false => echo.push(*c),
                }
            }
            ScriptItem::Key(_) => return None,
        }
    }
    Some(echo)
}

/// What a program that echoes typed text would show for `bytes`, which submit a line (see
/// [`script_echo`]): the text before its line end, when it is plain text.
pub(crate) fn bytes_echo(bytes: &[u8]) -> Option<String> {
    let line = bytes.strip_suffix(b"\r").or_else(|| bytes.strip_suffix(b"\n"))?;
    plain_text(std::str::from_utf8(line).ok()?).map(str::to_owned)
}

/// `text` when it holds no control character.
fn plain_text(text: &str) -> Option<&str> {
    (!text.chars().any(char::is_control)).then_some(text)
}

/// Whether typing `items` is one key that signals: Ctrl-C, Ctrl-\\ or Ctrl-Z alone (what a
/// terminal's line discipline turns into SIGINT, SIGQUIT or SIGTSTP by default).
pub(crate) fn script_signals(items: &[ScriptItem]) -> bool {
    matches!(
        items,
        [ScriptItem::Key(Key { code: KeyCode::Char(c), mods })]
            if mods.ctrl && matches!(c.to_ascii_lowercase(), 'c' | '\\' | 'z')
    )
}

/// Whether typing `bytes` is one character that signals by default: ETX (Ctrl-C), FS
/// (Ctrl-\\) or SUB (Ctrl-Z) alone.
pub(crate) fn bytes_signal(bytes: &[u8]) -> bool {
    matches!(bytes, [0x03 | 0x1c | 0x1a])
}

/// Whether typing `bytes` ends in a key code not finished yet (see [`unfinished_key_start`])
/// after other keys, which the program may draw for while it waits for the rest: what it
/// draws after a key code's start typed alone answers that.
pub(crate) fn bytes_end_in_unfinished_key_after_keys(bytes: &[u8]) -> bool {
    unfinished_key_start(bytes).is_some_and(|start| start > 0)
}

/// Where the key code not finished yet that `bytes` ends in starts, if they end in one: a
/// lone Escape, or an Escape then `[` or `O` with no final byte after them (`ESC [ 1 ;`). A
/// program reading keys waits for the rest (ncurses's `ESCDELAY`) before it answers what was
/// typed before it.
fn unfinished_key_start(bytes: &[u8]) -> Option<usize> {
    let escape = bytes.iter().rposition(|&b| b == 0x1b)?;
    let unfinished = match &bytes[escape + 1..] {
        [] | [b'O'] => true,
        // Parameter and intermediate bytes, no final byte yet.
        [b'[', rest @ ..] => rest.iter().all(|b| (0x20..=0x3f).contains(b)),
        _ => false,
    };
    unfinished.then_some(escape)
}

/// Whether typing `bytes` presses Escape as a key of its own: an Escape that starts no key
/// code (`ESC [`, `ESC O`: the arrows, a bracketed paste's markers), though perhaps an Alt
/// chord's (`ESC x`), which cannot be told from Escape then `x`.
pub(crate) fn bytes_press_escape(bytes: &[u8]) -> bool {
    let starts_code = |at: usize| matches!(bytes.get(at + 1), Some(b'[' | b'O'));
    bytes.iter().enumerate().any(|(at, &b)| b == 0x1b && !starts_code(at))
}

#[cfg(test)]
mod tests {
    /// Escape pressed is told from an Escape that starts a key code or a paste's marker.
    #[test]
    fn escape_pressed_is_told_from_a_key_codes_start() {
        for pressed in [&b"\x1b"[..], b"a\x1b", b"\x1b:wq\r", b"\x1b[A\x1bx", b"\x1b\x1b[A"] {
            assert!(super::bytes_press_escape(pressed), "{pressed:?}");
        }
        for not in [&b""[..], b"abc\x15", b"\x1b[A\x1bOB", b"\x1b[200~text\x1b[201~"] {
            assert!(!super::bytes_press_escape(not), "{not:?}");
        }
    }

    /// A key code cut short is told from a whole one and from text after an Escape.
    #[test]
    fn an_unfinished_key_code_is_told_at_the_end_of_input() {
        for unfinished in [&b"\x1b"[..], b"a\x1b", b"\x1b[", b"x\x1b[1;", b"\x1bO", b"\x1b[A\x1b"] {
            assert!(super::unfinished_key_start(unfinished).is_some(), "{unfinished:?}");
            let alone = [&b"\x1b"[..], b"\x1b[", b"\x1bO"].contains(&unfinished);
            let after_keys = super::bytes_end_in_unfinished_key_after_keys(unfinished);
            assert_eq!(after_keys, !alone, "{unfinished:?}");
        }
        for whole in
            [&b""[..], b"a", b"\x1b[A", b"\x1b[1;5A", b"\x1bOP", b"\x1bx", b"\x1b[Ab", b"\x1b\x1bx"]
        {
            assert!(super::unfinished_key_start(whole).is_none(), "{whole:?}");
        }
    }

    /// The echo of a submitted line is told from plain text and Enter only.
    #[test]
    fn a_submitted_lines_echo_is_its_plain_text() {
        let echo = |script: &str| super::script_echo(&super::parse_key_script(script).unwrap());
        assert_eq!(echo("echo done<Enter>").as_deref(), Some("echo done"));
        assert_eq!(echo("<Enter>").as_deref(), Some(""));
        assert_eq!(echo("a<Space>B<S-c><CR>").as_deref(), Some("a BC"));
        for enter in ["<S-Enter>", "<C-Enter>", "<M-Enter>"] {
            assert_eq!(echo(&format!("x{enter}")).as_deref(), Some("x"), "{enter}");
        }
        assert_eq!(echo("x<KPEnter>").as_deref(), Some("x"));
        let submits = |script: &str, modes: &KeyModes| {
            super::script_submits(&super::parse_key_script(script).unwrap(), modes)
        };
        let legacy = &LEGACY;
        assert!(submits("x<Enter>", legacy) && submits("x<S-Enter>", legacy));
        assert!(submits("x<C-Enter>", legacy) && submits("x<C-KPEnter>", legacy));
        assert!(!submits("x<M-Enter>", legacy) && !submits("x<Up>", legacy));
        assert!(submits("x\r", legacy) && submits("x<KPEnter>", legacy));
        // A modified Enter the program reads as a key of its own submits no line; Enter
        // itself does, whatever its bytes.
        for modes in [&modes(false, 0, 1), &modes(false, 0, 2), &kitty(1), &kitty(9)] {
            for enter in ["x<S-Enter>", "x<C-Enter>", "x<M-Enter>"] {
                assert!(!submits(enter, modes), "{enter} with {modes:?}");
            }
            assert!(submits("x<Enter>", modes) && submits("x<KPEnter>", modes), "{modes:?}");
            // (modifyOtherKeys leaves the keypad alone: Ctrl is dropped, `\r` is sent.)
            let kitty = modes.kitty_flags != 0;
            assert_eq!(submits("x<C-KPEnter>", modes), !kitty, "{modes:?}");
        }
        let keypad = KeyModes { app_keypad: true, ..LEGACY };
        assert!(submits("x<KPEnter>", &keypad) && !submits("x<C-KPEnter>", &keypad));
        for edited in ["<Up><Enter>", "ls /us<Tab><Enter>", "ab<BS><Enter>", "<C-u>x<Enter>"] {
            assert_eq!(echo(edited), None, "{edited}");
        }
        assert_eq!(super::bytes_echo(b"6 * 7\r").as_deref(), Some("6 * 7"));
        assert_eq!(super::bytes_echo(b"x\n").as_deref(), Some("x"));
        assert_eq!(super::bytes_echo(b"a\tb\r"), None);
        assert_eq!(super::bytes_echo(b"no end"), None);
    }

    use super::*;

    fn key(s: &str) -> Key {
        s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    fn k(code: KeyCode, ctrl: bool, alt: bool, shift: bool) -> Key {
        Key::with_mods(code, Modifiers { ctrl, alt, shift })
    }

    const LEGACY: KeyModes = modes(false, 0, 0);
    const APP: KeyModes = modes(true, 0, 0);
    const fn modes(app_cursor: bool, kitty_flags: u8, modify_other_keys: u8) -> KeyModes {
        KeyModes { app_cursor, app_keypad: false, kitty_flags, modify_other_keys }
    }
    const fn kitty(flags: u8) -> KeyModes {
        modes(false, flags, 0)
    }
    const fn kitty_app(flags: u8) -> KeyModes {
        modes(true, flags, 0)
    }

    /// A script is cut after each key read alone (Escape, as `<Esc>` or `<C-[>`, and a plain
    /// Tab) that more keys follow, and before an Escape that keys come before, and its parts
    /// read back as the keys it holds (a literal `<` as `<lt>`).
    #[test]
    fn a_script_is_cut_after_the_keys_read_alone() {
        let off = crate::types::Modes::OFF;
        let parts = |script: &str| typing_parts(&parse_key_script(script).unwrap(), &off);
        let part_read_bound = |part, next| part_read_bound(part, next, &off);
        assert_eq!(parts("<Esc>q"), ["<Escape>", "q"]);
        assert_eq!(parts("ihello<Esc>:wq<CR>"), ["ihello", "<Escape>", ":wq<Enter>"]);
        assert_eq!(parts("a<lt>b<Esc><Esc><Down>"), ["a<lt>b", "<Escape>", "<Escape>", "<Down>"]);
        assert_eq!(parts("x<Esc>"), ["x", "<Escape>"]);
        assert_eq!(parts("<Esc>"), ["<Escape>"]);
        assert_eq!(parts("ione<C-[>Otwo"), ["ione", "<C-[>", "Otwo"]);
        assert_eq!(parts("a<Tab><Esc>"), ["a<Tab>", "<Escape>"]);
        assert_eq!(parts("<M-x>a<M-[>"), ["<M-x>a<M-[>"]);
        assert_eq!(parts("a<C-i>b<M-i>c"), ["a<C-i>", "b<M-i>c"]);
        // Keys cut only before an Escape are given half a second to be read; other cuts the
        // caller's bound.
        assert_eq!(part_read_bound("ihello", "<Escape>"), Some(READ_BEFORE_AN_ESCAPE));
        assert_eq!(part_read_bound("x", "<C-[>q"), Some(READ_BEFORE_AN_ESCAPE));
        assert_eq!(part_read_bound("a<Tab>", "<Escape>"), None);
        // An Escape right after an Escape comes within a program's wait for a key code's
        // rest, as a person's second press.
        assert_eq!(part_read_bound("<Escape>", "<Escape>"), Some(BETWEEN_ESCAPES));
        assert_eq!(part_read_bound("a<C-[>", "<Escape>q"), Some(BETWEEN_ESCAPES));
        assert_eq!(part_read_bound("<Escape>", "q"), None);
        assert_eq!(part_read_bound("a<Tab>", "b"), None);
        assert_eq!(parts("a<Tab>b<S-Tab>c<C-Tab>d"), ["a<Tab>", "b<S-Tab>c<C-Tab>d"]);
        assert_eq!(parts("<M-x><C-c><Up><Up><Enter>"), ["<M-x><C-c><Up><Up><Enter>"]);
        for script in ["a<lt>b<Esc>", "<Esc>", "<Down>", "<M-x><C-c>", "<C->>", "a<Tab><Tab>b"] {
            let items = parse_key_script(script).unwrap();
            let again = typing_parts(&items, &off).concat();
            assert_eq!(parse_key_script(&again).unwrap(), items, "{script}");
        }
    }

    /// Each part is typed with the wait [`part_read_bound`] gives it before the next.
    #[test]
    fn typing_steps_bound_each_part_by_the_next() {
        let items = parse_key_script("ione<Esc><Esc>x").unwrap();
        let steps = typing_steps(&items, &crate::types::Modes::OFF);
        let bounds = [Some(READ_BEFORE_AN_ESCAPE), Some(BETWEEN_ESCAPES), None, None];
        let parts = ["ione", "<Escape>", "<Escape>", "x"].map(str::to_owned);
        assert_eq!(steps, parts.into_iter().zip(bounds).collect::<Vec<_>>());
    }

    /// Under the kitty keyboard protocol an Escape is a sequence of its own (`CSI 27 u`), which
    /// no program takes for a prefix: it is typed with the keys around it, where each cut
    /// cost a wait for the program to read the part before. Under modifyOtherKeys it is the
    /// Escape byte still (vim, which sets level 2, reads it with the next keys as a key code),
    /// and `<C-[>` too, whatever the level.
    #[test]
    fn an_escape_the_terminal_sends_as_a_sequence_is_not_typed_apart() {
        let off = crate::types::Modes::OFF;
        let kitty = crate::types::Modes { kitty_keyboard: 1, ..off };
        let parts = |script: &str, modes: &crate::types::Modes| {
            typing_parts(&parse_key_script(script).unwrap(), modes)
        };
        assert_eq!(parts("ione<Esc>Otwo<C-[>x", &kitty), ["ione<Escape>Otwo<C-[>x"]);
        assert_eq!(parts("a<Tab><Esc>b", &kitty), ["a<Tab>", "<Escape>b"]);
        assert_eq!(part_read_bound("a", "<Escape>", &kitty), None);
        assert_eq!(part_read_bound("a", "<Escape>", &off), Some(READ_BEFORE_AN_ESCAPE));
        // (Alt-Escape ends in the Escape byte, as Escape does.)
        assert_eq!(parts("a<M-Esc>b", &off), ["a", "<M-Escape>", "b"]);
        for level in [1, 2] {
            let xterm = crate::types::Modes { modify_other_keys: level, ..off };
            assert_eq!(
                parts("ione<Esc>Otwo<C-[>x", &xterm),
                ["ione", "<Escape>", "Otwo", "<C-[>", "x"]
            );
        }
    }

    /// xterm's modifyOtherKeys forms, at levels 1 and 2 (what xterm's `ModifyOtherKeys` in
    /// `input.c` sends for a US keyboard, but for `S-a` at level 2, see `modified_other_key`),
    /// and the legacy forms it leaves alone.
    #[test]
    fn modify_other_keys_levels() {
        // (key, level 1, level 2); "" is the legacy form.
        let table = [
            ("Enter", "", ""),
            ("a", "", ""),
            ("S-a", "", ""),
            ("C-Enter", "\x1b[27;5;13~", "\x1b[27;5;13~"),
            ("S-Enter", "\x1b[27;2;13~", "\x1b[27;2;13~"),
            ("M-Enter", "", "\x1b[27;3;13~"),
            ("C-Tab", "\x1b[27;5;9~", "\x1b[27;5;9~"),
            ("S-Tab", "", ""),
            ("C-S-Tab", "", "\x1b[27;6;9~"),
            ("S-Space", "", "\x1b[27;2;32~"),
            ("S-1", "", ""),
            ("C-.", "\x1b[27;5;46~", "\x1b[27;5;46~"),
            ("C-S-a", "", "\x1b[27;6;65~"),
            ("C-M-a", "", "\x1b[27;7;97~"),
            ("C-a", "", "\x1b[27;5;97~"),
            ("C-c", "", "\x1b[27;5;99~"),
            ("M-x", "", "\x1b[27;3;120~"),
            ("C-Escape", "", "\x1b[27;5;27~"),
            ("M-Escape", "", "\x1b[27;3;27~"),
            ("C-S-Escape", "\x1b[27;6;27~", "\x1b[27;6;27~"),
            ("C-BSpace", "", ""),
            ("C-Up", "", ""),
            ("S-F5", "", ""),
        ];
        for (name, one, two) in table {
            let key = key(name);
            for (level, want) in [(1, one), (2, two)] {
                let want = match want {
                    "" => key.encode_for(&LEGACY),
                    form => form.as_bytes().to_vec(),
                };
                let got = key.encode_for(&modes(false, 0, level));
                assert_eq!(show(&got), show(&want), "{name} at level {level}");
            }
        }
        // The kitty protocol, when on, decides alone.
        assert_eq!(key("C-Enter").encode_for(&modes(false, 1, 2)), b"\x1b[13;5u");
    }

    fn show(b: &[u8]) -> String {
        b.escape_ascii().to_string()
    }

    /// (key, legacy, legacy + application cursor, kitty flag 1).
    /// Kitty flag 1 output is the same with and without application cursor
    /// mode; that is checked too.
    const TABLE: &[(&str, &str, &str, &str)] = &[
        // Text keys.
        ("a", "a", "a", "a"),
        ("A", "A", "A", "A"),
        ("z", "z", "z", "z"),
        ("1", "1", "1", "1"),
        ("<", "<", "<", "<"),
        ("lt", "<", "<", "<"),
        ("é", "é", "é", "é"),
        ("É", "É", "É", "É"),
        ("✓", "✓", "✓", "✓"),
        ("Space", " ", " ", " "),
        ("S-a", "A", "A", "A"),
        ("S-é", "É", "É", "É"),
        ("S-1", "1", "1", "1"),
        ("S-Space", " ", " ", " "),
        // Ctrl.
        ("C-a", "\x01", "\x01", "\x1b[97;5u"),
        ("C-A", "\x01", "\x01", "\x1b[97;5u"),
        ("C-c", "\x03", "\x03", "\x1b[99;5u"),
        ("C-z", "\x1a", "\x1a", "\x1b[122;5u"),
        ("C-@", "\x00", "\x00", "\x1b[64;5u"),
        ("C-Space", "\x00", "\x00", "\x1b[32;5u"),
        ("C-[", "\x1b", "\x1b", "\x1b[91;5u"),
        ("C-\\", "\x1c", "\x1c", "\x1b[92;5u"),
        ("C-]", "\x1d", "\x1d", "\x1b[93;5u"),
        ("C-^", "\x1e", "\x1e", "\x1b[94;5u"),
        ("C-_", "\x1f", "\x1f", "\x1b[95;5u"),
        ("C-?", "\x7f", "\x7f", "\x1b[63;5u"),
        ("C-2", "\x00", "\x00", "\x1b[50;5u"),
        ("C-/", "\x1f", "\x1f", "\x1b[47;5u"),
        ("C-1", "1", "1", "\x1b[49;5u"),
        ("C-é", "é", "é", "\x1b[233;5u"),
        // X11 masks the rest of `@`..`~` too.
        ("C-`", "\x00", "\x00", "\x1b[96;5u"),
        ("C-{", "\x1b", "\x1b", "\x1b[123;5u"),
        ("C-|", "\x1c", "\x1c", "\x1b[124;5u"),
        ("C-}", "\x1d", "\x1d", "\x1b[125;5u"),
        ("M-C-}", "\x1b\x1d", "\x1b\x1d", "\x1b[125;7u"),
        ("C-S-a", "\x01", "\x01", "\x1b[97;6u"),
        // Alt.
        ("M-a", "\x1ba", "\x1ba", "\x1b[97;3u"),
        ("A-a", "\x1ba", "\x1ba", "\x1b[97;3u"),
        ("M-A", "\x1bA", "\x1bA", "\x1b[97;4u"),
        ("M-S-a", "\x1bA", "\x1bA", "\x1b[97;4u"),
        ("M-C-a", "\x1b\x01", "\x1b\x01", "\x1b[97;7u"),
        ("C-M-S-a", "\x1b\x01", "\x1b\x01", "\x1b[97;8u"),
        ("M-Space", "\x1b ", "\x1b ", "\x1b[32;3u"),
        ("M-é", "\x1bé", "\x1bé", "\x1b[233;3u"),
        ("M-<", "\x1b<", "\x1b<", "\x1b[60;3u"),
        ("M-[", "\x1b[", "\x1b[", "\x1b[91;3u"),
        // Enter.
        ("Enter", "\r", "\r", "\r"),
        ("M-Enter", "\x1b\r", "\x1b\r", "\x1b[13;3u"),
        ("C-Enter", "\r", "\r", "\x1b[13;5u"),
        ("S-Enter", "\r", "\r", "\x1b[13;2u"),
        // Tab.
        ("Tab", "\t", "\t", "\t"),
        ("S-Tab", "\x1b[Z", "\x1b[Z", "\x1b[9;2u"),
        ("BTab", "\x1b[Z", "\x1b[Z", "\x1b[9;2u"),
        ("M-Tab", "\x1b\t", "\x1b\t", "\x1b[9;3u"),
        ("C-Tab", "\t", "\t", "\x1b[9;5u"),
        ("C-S-Tab", "\x1b[Z", "\x1b[Z", "\x1b[9;6u"),
        ("M-S-Tab", "\x1b\x1b[Z", "\x1b\x1b[Z", "\x1b[9;4u"),
        // Escape.
        ("Escape", "\x1b", "\x1b", "\x1b[27u"),
        ("M-Escape", "\x1b\x1b", "\x1b\x1b", "\x1b[27;3u"),
        ("C-Escape", "\x1b", "\x1b", "\x1b[27;5u"),
        ("S-Escape", "\x1b", "\x1b", "\x1b[27;2u"),
        // Backspace.
        ("Backspace", "\x7f", "\x7f", "\x7f"),
        ("C-Backspace", "\x08", "\x08", "\x1b[127;5u"),
        ("M-Backspace", "\x1b\x7f", "\x1b\x7f", "\x1b[127;3u"),
        ("C-M-Backspace", "\x1b\x08", "\x1b\x08", "\x1b[127;7u"),
        ("S-Backspace", "\x7f", "\x7f", "\x1b[127;2u"),
        // Cursor keys.
        ("Up", "\x1b[A", "\x1bOA", "\x1b[A"),
        ("Down", "\x1b[B", "\x1bOB", "\x1b[B"),
        ("Right", "\x1b[C", "\x1bOC", "\x1b[C"),
        ("Left", "\x1b[D", "\x1bOD", "\x1b[D"),
        ("Home", "\x1b[H", "\x1bOH", "\x1b[H"),
        ("End", "\x1b[F", "\x1bOF", "\x1b[F"),
        ("S-Up", "\x1b[1;2A", "\x1b[1;2A", "\x1b[1;2A"),
        ("M-Down", "\x1b[1;3B", "\x1b[1;3B", "\x1b[1;3B"),
        ("M-S-Right", "\x1b[1;4C", "\x1b[1;4C", "\x1b[1;4C"),
        ("C-Left", "\x1b[1;5D", "\x1b[1;5D", "\x1b[1;5D"),
        ("C-S-Up", "\x1b[1;6A", "\x1b[1;6A", "\x1b[1;6A"),
        ("C-M-Up", "\x1b[1;7A", "\x1b[1;7A", "\x1b[1;7A"),
        ("C-M-S-Up", "\x1b[1;8A", "\x1b[1;8A", "\x1b[1;8A"),
        ("C-Home", "\x1b[1;5H", "\x1b[1;5H", "\x1b[1;5H"),
        ("S-End", "\x1b[1;2F", "\x1b[1;2F", "\x1b[1;2F"),
        // Editing keypad.
        ("Insert", "\x1b[2~", "\x1b[2~", "\x1b[2~"),
        ("Delete", "\x1b[3~", "\x1b[3~", "\x1b[3~"),
        ("PageUp", "\x1b[5~", "\x1b[5~", "\x1b[5~"),
        ("PageDown", "\x1b[6~", "\x1b[6~", "\x1b[6~"),
        ("S-Insert", "\x1b[2;2~", "\x1b[2;2~", "\x1b[2;2~"),
        ("C-Delete", "\x1b[3;5~", "\x1b[3;5~", "\x1b[3;5~"),
        ("M-PageUp", "\x1b[5;3~", "\x1b[5;3~", "\x1b[5;3~"),
        ("C-S-PageDown", "\x1b[6;6~", "\x1b[6;6~", "\x1b[6;6~"),
        // Function keys.
        ("F1", "\x1bOP", "\x1bOP", "\x1b[P"),
        ("F2", "\x1bOQ", "\x1bOQ", "\x1b[Q"),
        ("F3", "\x1bOR", "\x1bOR", "\x1b[13~"),
        ("F4", "\x1bOS", "\x1bOS", "\x1b[S"),
        ("F5", "\x1b[15~", "\x1b[15~", "\x1b[15~"),
        ("F6", "\x1b[17~", "\x1b[17~", "\x1b[17~"),
        ("F7", "\x1b[18~", "\x1b[18~", "\x1b[18~"),
        ("F8", "\x1b[19~", "\x1b[19~", "\x1b[19~"),
        ("F9", "\x1b[20~", "\x1b[20~", "\x1b[20~"),
        ("F10", "\x1b[21~", "\x1b[21~", "\x1b[21~"),
        ("F11", "\x1b[23~", "\x1b[23~", "\x1b[23~"),
        ("F12", "\x1b[24~", "\x1b[24~", "\x1b[24~"),
        ("S-F1", "\x1b[1;2P", "\x1b[1;2P", "\x1b[1;2P"),
        ("C-F2", "\x1b[1;5Q", "\x1b[1;5Q", "\x1b[1;5Q"),
        ("C-F3", "\x1b[1;5R", "\x1b[1;5R", "\x1b[13;5~"),
        ("M-F4", "\x1b[1;3S", "\x1b[1;3S", "\x1b[1;3S"),
        ("C-F5", "\x1b[15;5~", "\x1b[15;5~", "\x1b[15;5~"),
        ("S-F12", "\x1b[24;2~", "\x1b[24;2~", "\x1b[24;2~"),
        ("C-M-S-F8", "\x1b[19;8~", "\x1b[19;8~", "\x1b[19;8~"),
    ];

    #[test]
    fn key_table_all_modes() {
        for &(name, legacy, app, kitty1) in TABLE {
            let key = key(name);
            let cases = [
                ("legacy", LEGACY, legacy),
                ("legacy app-cursor", APP, app),
                ("kitty 1", kitty(1), kitty1),
                ("kitty 1 app-cursor", kitty_app(1), kitty1),
            ];
            for (mode_name, modes, expected) in cases {
                assert_eq!(
                    show(&key.encode_for(&modes)),
                    show(expected.as_bytes()),
                    "{name} in {mode_name}"
                );
            }
        }
    }

    /// The numeric keypad's keys through the key names, in every mode: numeric and
    /// application keypad (xterm), the kitty protocol with and without disambiguate.
    #[test]
    fn keypad_keys_in_every_mode() {
        let keypad = KeyModes { app_keypad: true, ..LEGACY };
        // (key, numeric, application keypad, kitty 1, kitty 8, kitty 9)
        let table: &[(&str, &str, &str, &str, &str, &str)] = &[
            ("KP0", "0", "\x1bOp", "0", "\x1b[48u", "\x1b[57399u"),
            ("KP7", "7", "\x1bOw", "7", "\x1b[55u", "\x1b[57406u"),
            ("k9", "9", "\x1bOy", "9", "\x1b[57u", "\x1b[57408u"),
            ("KP+", "+", "\x1bOk", "+", "\x1b[43u", "\x1b[57413u"),
            ("kPlus", "+", "\x1bOk", "+", "\x1b[43u", "\x1b[57413u"),
            ("KP-", "-", "\x1bOm", "-", "\x1b[45u", "\x1b[57412u"),
            ("KP*", "*", "\x1bOj", "*", "\x1b[42u", "\x1b[57411u"),
            ("KP/", "/", "\x1bOo", "/", "\x1b[47u", "\x1b[57410u"),
            ("KP.", ".", "\x1bOn", ".", "\x1b[46u", "\x1b[57409u"),
            ("KP=", "=", "\x1bOX", "=", "\x1b[61u", "\x1b[57415u"),
            // (kitty keeps the separator a keypad key without its disambiguate flag.)
            ("KP,", ",", "\x1bOl", ",", "\x1b[57416u", "\x1b[57416u"),
            ("KPEnter", "\r", "\x1bOM", "\x1b[57414u", "\x1b[13u", "\x1b[57414u"),
            ("C-KP+", "+", "\x1bO5k", "\x1b[57413;5u", "\x1b[43;5u", "\x1b[57413;5u"),
            ("M-KPEnter", "\r", "\x1bO3M", "\x1b[57414;3u", "\x1b[13;3u", "\x1b[57414;3u"),
            ("S-KP1", "1", "\x1bO2q", "1", "\x1b[49;2u", "\x1b[57400;2u"),
        ];
        for &(name, numeric, application, kitty1, kitty8, kitty9) in table {
            let key = key(name);
            let cases = [
                ("numeric", LEGACY, numeric),
                ("numeric, modifyOtherKeys 2", modes(false, 0, 2), numeric),
                ("application keypad", keypad, application),
                (
                    "application keypad and cursor",
                    KeyModes { app_cursor: true, ..keypad },
                    application,
                ),
                ("kitty 1", kitty(1), kitty1),
                ("kitty 1, application keypad", KeyModes { kitty_flags: 1, ..keypad }, kitty1),
                ("kitty 8", kitty(8), kitty8),
                ("kitty 9", kitty(9), kitty9),
            ];
            for (mode_name, modes, expected) in cases {
                assert_eq!(
                    show(&key.encode_for(&modes)),
                    show(expected.as_bytes()),
                    "{name} in {mode_name}"
                );
            }
        }
        // Flag 16 embeds a keypad key's text; without flag 1, the main keyboard's key's.
        assert_eq!(key("KP5").encode_for(&kitty(25)), b"\x1b[57404;;53u");
        assert_eq!(key("KP5").encode_for(&kitty(24)), b"\x1b[53;;53u");
        assert_eq!(key("KPEnter").encode_for(&kitty(2)), b"\r");
        assert!(Key::new(KeyCode::Keypad(KeypadKey::Digit(10))).encode_for(&LEGACY).is_empty());
    }

    /// Application keypad mode changes no key but the keypad's.
    #[test]
    fn app_keypad_changes_only_the_keypad() {
        for &(name, legacy, app, _) in TABLE {
            let key = key(name);
            let keypad = KeyModes { app_keypad: true, ..LEGACY };
            assert_eq!(key.encode_for(&keypad), legacy.as_bytes(), "{name}");
            let keypad_app = KeyModes { app_keypad: true, ..APP };
            assert_eq!(key.encode_for(&keypad_app), app.as_bytes(), "{name}");
        }
    }

    /// Flag 8 (report all keys as escape codes), alone and with flag 1.
    const FLAG8: &[(&str, &str)] = &[
        ("a", "\x1b[97u"),
        ("A", "\x1b[97;2u"),
        ("S-a", "\x1b[97;2u"),
        ("é", "\x1b[233u"),
        ("É", "\x1b[233;2u"),
        ("1", "\x1b[49u"),
        ("<", "\x1b[60u"),
        ("Space", "\x1b[32u"),
        ("C-a", "\x1b[97;5u"),
        ("M-a", "\x1b[97;3u"),
        ("Enter", "\x1b[13u"),
        ("Tab", "\x1b[9u"),
        ("S-Tab", "\x1b[9;2u"),
        ("Backspace", "\x1b[127u"),
        ("Escape", "\x1b[27u"),
        ("M-Enter", "\x1b[13;3u"),
        ("Up", "\x1b[A"),
        ("C-Up", "\x1b[1;5A"),
        ("Delete", "\x1b[3~"),
        ("F1", "\x1b[P"),
        ("F3", "\x1b[13~"),
        ("F12", "\x1b[24~"),
    ];

    #[test]
    fn kitty_report_all_keys() {
        for &(name, expected) in FLAG8 {
            for modes in [kitty(8), kitty(9), kitty_app(9), kitty(11)] {
                assert_eq!(
                    show(&key(name).encode_for(&modes)),
                    show(expected.as_bytes()),
                    "{name} with {modes:?}"
                );
            }
        }
    }

    #[test]
    fn kitty_alternate_keys_and_text() {
        let cases: &[(u8, &str, &str)] = &[
            // Flag 4: the shifted key is added when shift is held.
            (5, "C-S-a", "\x1b[97:65;6u"),
            (5, "M-A", "\x1b[97:65;4u"),
            (5, "C-a", "\x1b[97;5u"),
            (5, "S-a", "A"),
            (5, "C-S-1", "\x1b[49;6u"),
            (5, "S-Up", "\x1b[1;2A"),
            (13, "A", "\x1b[97:65;2u"),
            (13, "a", "\x1b[97u"),
            // Flag 16 (with 8): the text is embedded.
            (24, "a", "\x1b[97;;97u"),
            (24, "S-a", "\x1b[97;2;65u"),
            (24, "é", "\x1b[233;;233u"),
            (24, "C-a", "\x1b[97;5u"),
            (24, "Enter", "\x1b[13u"),
            (31, "A", "\x1b[97:65;2;65u"),
            (31, "Space", "\x1b[32;;32u"),
            // Flag 16 without 8: text keys are still plain text.
            (17, "a", "a"),
            (17, "C-a", "\x1b[97;5u"),
        ];
        for &(flags, name, expected) in cases {
            assert_eq!(
                show(&key(name).encode_for(&kitty(flags))),
                show(expected.as_bytes()),
                "{name} with flags {flags}"
            );
        }
    }

    #[test]
    fn kitty_without_disambiguate_keeps_legacy_forms() {
        // (flags, app_cursor, key, bytes)
        let cases: &[(u8, bool, &str, &str)] = &[
            // Flag 2 alone: legacy text and C0 keys, but functional keys leave
            // the SS3 forms and modified Enter etc. become CSI u.
            (2, false, "Escape", "\x1b"),
            (2, false, "C-a", "\x01"),
            (2, false, "M-a", "\x1ba"),
            (2, false, "Enter", "\r"),
            (2, false, "M-Enter", "\x1b[13;3u"),
            (2, true, "Up", "\x1b[A"),
            (2, false, "F1", "\x1b[P"),
            // Flag 4 alone: legacy forms, including SS3 in app-cursor mode.
            (4, true, "Up", "\x1bOA"),
            (4, false, "Up", "\x1b[A"),
            (4, false, "F1", "\x1bOP"),
            (4, false, "C-F3", "\x1b[13;5~"),
            (4, false, "M-Enter", "\x1b\r"),
            (4, false, "S-Tab", "\x1b[Z"),
            (4, false, "Escape", "\x1b"),
            (4, false, "C-a", "\x01"),
            (4, false, "M-C-a", "\x1b\x01"),
            (4, false, "C-S-a", "\x1b[97:65;6u"),
            (4, false, "C-Space", "\x00"),
            // Combinations legacy cannot express fall back to CSI u.
            (2, false, "C-S-a", "\x1b[97;6u"),
            (2, false, "C-é", "\x1b[233;5u"),
            (2, false, "C-M-S-a", "\x1b[97;8u"),
            (2, false, "C-S-Space", "\x00"),
            (2, false, "M-S-Space", "\x1b "),
            (16, false, "M-a", "\x1ba"),
        ];
        for &(flags, app_cursor, name, expected) in cases {
            let modes = modes(app_cursor, flags, 0);
            assert_eq!(
                show(&key(name).encode_for(&modes)),
                show(expected.as_bytes()),
                "{name} with flags {flags}, app_cursor {app_cursor}"
            );
        }
    }

    #[test]
    fn out_of_range_function_keys_encode_to_nothing() {
        for n in [0, 13, 255] {
            let key = Key::new(KeyCode::F(n));
            assert!(key.encode_for(&LEGACY).is_empty());
            assert!(key.encode_for(&kitty(1)).is_empty());
        }
    }

    #[test]
    fn parse_every_name_and_alias() {
        use KeyCode::*;
        let cases: &[(&str, KeyCode)] = &[
            ("Enter", Enter),
            ("CR", Enter),
            ("Return", Enter),
            ("Tab", Tab),
            ("Escape", Escape),
            ("Esc", Escape),
            ("Space", Char(' ')),
            ("Backspace", Backspace),
            ("BSpace", Backspace),
            ("BS", Backspace),
            ("Delete", Delete),
            ("DC", Delete),
            ("Del", Delete),
            ("Insert", Insert),
            ("IC", Insert),
            ("Up", Up),
            ("Down", Down),
            ("Left", Left),
            ("Right", Right),
            ("Home", Home),
            ("End", End),
            ("PageUp", PageUp),
            ("PPage", PageUp),
            ("PgUp", PageUp),
            ("PageDown", PageDown),
            ("NPage", PageDown),
            ("PgDn", PageDown),
            ("lt", Char('<')),
            ("Bar", Char('|')),
            ("Bslash", Char('\\')),
            ("KP0", Keypad(KeypadKey::Digit(0))),
            ("KP9", Keypad(KeypadKey::Digit(9))),
            ("K3", Keypad(KeypadKey::Digit(3))),
            ("KP.", Keypad(KeypadKey::Decimal)),
            ("KP/", Keypad(KeypadKey::Divide)),
            ("KP*", Keypad(KeypadKey::Multiply)),
            ("KP-", Keypad(KeypadKey::Subtract)),
            ("KP+", Keypad(KeypadKey::Add)),
            ("KP=", Keypad(KeypadKey::Equal)),
            ("KP,", Keypad(KeypadKey::Separator)),
            ("KPEnter", Keypad(KeypadKey::Enter)),
            ("kPoint", Keypad(KeypadKey::Decimal)),
            ("kDivide", Keypad(KeypadKey::Divide)),
            ("kMultiply", Keypad(KeypadKey::Multiply)),
            ("kMinus", Keypad(KeypadKey::Subtract)),
            ("kPlus", Keypad(KeypadKey::Add)),
            ("kEqual", Keypad(KeypadKey::Equal)),
            ("kComma", Keypad(KeypadKey::Separator)),
            ("kEnter", Keypad(KeypadKey::Enter)),
            ("a", Char('a')),
            ("A", Char('A')),
            ("<", Char('<')),
            (">", Char('>')),
            ("-", Char('-')),
            ("é", Char('é')),
            ("C", Char('C')),
            ("M", Char('M')),
            ("F", Char('F')),
        ];
        for &(name, code) in cases {
            assert_eq!(key(name), Key::new(code), "{name}");
            // Names are case-insensitive; a single character keeps its case.
            if name.chars().count() > 1 {
                assert_eq!(key(&name.to_lowercase()), key(name), "{name} lower-case");
                assert_eq!(key(&name.to_uppercase()), key(name), "{name} upper-case");
            }
        }
        for n in 1..=12u8 {
            assert_eq!(key(&format!("F{n}")), Key::new(F(n)));
            assert_eq!(key(&format!("f{n}")), Key::new(F(n)));
        }
        assert_eq!(key("BTab"), k(Tab, false, false, true));
        assert_eq!(key("btab"), k(Tab, false, false, true));
        assert_eq!(key("S-Tab"), k(Tab, false, false, true));
    }

    #[test]
    fn parse_case_insensitive() {
        assert_eq!(key("enter"), Key::new(KeyCode::Enter));
        assert_eq!(key("ESC"), Key::new(KeyCode::Escape));
        assert_eq!(key("pageup"), Key::new(KeyCode::PageUp));
        assert_eq!(key("PGDN"), Key::new(KeyCode::PageDown));
        assert_eq!(key("c-a"), k(KeyCode::Char('a'), true, false, false));
        assert_eq!(key("m-enter"), k(KeyCode::Enter, false, true, false));
        assert_eq!(key("s-tab"), k(KeyCode::Tab, false, false, true));
        assert_eq!(key("LT"), Key::new(KeyCode::Char('<')));
    }

    #[test]
    fn parse_modifier_combinations() {
        use KeyCode::*;
        let cases: &[(&str, Key)] = &[
            ("C-a", k(Char('a'), true, false, false)),
            ("C-A", k(Char('a'), true, false, false)),
            ("C-z", k(Char('z'), true, false, false)),
            ("M-a", k(Char('a'), false, true, false)),
            ("A-a", k(Char('a'), false, true, false)),
            ("M-A", k(Char('A'), false, true, false)),
            ("S-a", k(Char('a'), false, false, true)),
            ("M-Enter", k(Enter, false, true, false)),
            ("C-S-Up", k(Up, true, false, true)),
            ("S-C-Left", k(Left, true, false, true)),
            ("M-C-a", k(Char('a'), true, true, false)),
            ("C-M-a", k(Char('a'), true, true, false)),
            ("A-S-C-F5", k(F(5), true, true, true)),
            ("C-M-S-Delete", k(Delete, true, true, true)),
            ("C-@", k(Char('@'), true, false, false)),
            ("C-[", k(Char('['), true, false, false)),
            ("C-\\", k(Char('\\'), true, false, false)),
            ("C-]", k(Char(']'), true, false, false)),
            ("C-^", k(Char('^'), true, false, false)),
            ("C-_", k(Char('_'), true, false, false)),
            ("C-?", k(Char('?'), true, false, false)),
            ("C-Space", k(Char(' '), true, false, false)),
            ("C--", k(Char('-'), true, false, false)),
            ("M--", k(Char('-'), false, true, false)),
            ("C-lt", k(Char('<'), true, false, false)),
            ("M-é", k(Char('é'), false, true, false)),
            ("S-BTab", k(Tab, false, false, true)),
            ("M-BTab", k(Tab, false, true, true)),
            ("C-C-c", k(Char('c'), true, false, false)),
        ];
        for (name, expected) in cases {
            assert_eq!(key(name), *expected, "{name}");
        }
    }

    #[test]
    fn parse_errors_name_the_token() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("Foo", "unknown key name \"Foo\""),
            ("C-Foo", "unknown key name \"Foo\""),
            ("F0", "unknown"),
            ("F13", "unknown"),
            ("F01", "unknown"),
            ("ab", "unknown"),
            ("C-", "not followed by a key"),
            ("C-M-", "not followed by a key"),
            ("X-a", "unknown"),
            ("Ctrl-c", "unknown key name \"Ctrl-c\"; write C-c (modifiers are written"),
            ("Control-Enter", "write C-Enter ("),
            ("Enter ", "unknown"),
            ("C-ab", "unknown"),
            ("KP10", "unknown key name \"KP10\""),
            ("C-KPx", "unknown key name \"KPx\""),
            ("KP", "unknown"),
        ];
        for &(token, reason) in cases {
            let err = token.parse::<Key>().unwrap_err();
            assert_eq!(err.token, token);
            assert!(err.reason.contains(reason), "{token:?}: {}", err.reason);
            let msg = err.to_string();
            assert!(msg.contains(&format!("{token:?}")), "{msg}");
            assert!(msg.contains(ACCEPTED_KEY_FORMS), "{msg}");
        }
    }

    #[test]
    fn display_round_trips() {
        let names = [
            "a",
            "A",
            "<",
            ">",
            "-",
            "é",
            "Space",
            "C-Space",
            "C-a",
            "M-A",
            "C-M-S-Up",
            "S-Tab",
            "Enter",
            "M-Enter",
            "Escape",
            "Backspace",
            "Delete",
            "Insert",
            "Home",
            "End",
            "PageUp",
            "PageDown",
            "F1",
            "F12",
            "C--",
            "C-[",
            "M-<",
            "KP0",
            "KP-",
            "C-KP-",
            "M-S-KP+",
            "KP.",
            "KPEnter",
        ];
        for name in names {
            let key = key(name);
            assert_eq!(key.to_string().parse::<Key>().unwrap(), key, "{name}");
        }
        assert_eq!(key("C-S-up").to_string(), "C-S-Up");
        assert_eq!(key("BTab").to_string(), "S-Tab");
        assert_eq!(key("Space").to_string(), "Space");
    }

    #[test]
    fn modifiers_param() {
        assert_eq!(Modifiers::NONE.param(), 1);
        assert!(Modifiers::default().is_empty());
        assert_eq!(k(KeyCode::Up, false, false, true).mods.param(), 2);
        assert_eq!(k(KeyCode::Up, false, true, false).mods.param(), 3);
        assert_eq!(k(KeyCode::Up, true, false, false).mods.param(), 5);
        assert_eq!(k(KeyCode::Up, true, true, true).mods.param(), 8);
    }

    fn text(s: &str) -> ScriptItem {
        ScriptItem::Text(s.to_string())
    }
    fn skey(s: &str) -> ScriptItem {
        ScriptItem::Key(key(s))
    }

    #[test]
    fn script_parsing() {
        let cases: Vec<(&str, Vec<ScriptItem>)> = vec![
            ("", vec![]),
            ("hello", vec![text("hello")]),
            (
                "ihello<Esc>:wq<Enter>",
                vec![text("ihello"), skey("Esc"), text(":wq"), skey("Enter")],
            ),
            ("<C-c>", vec![skey("C-c")]),
            ("<Up><Up><Enter>", vec![skey("Up"), skey("Up"), skey("Enter")]),
            ("a<lt>b", vec![text("a<b")]),
            ("<lt>", vec![text("<")]),
            ("<LT>/<Bar>/<Bslash>", vec![text("</|/\\")]),
            ("<C-lt>", vec![skey("C-lt")]),
            ("a > b", vec![text("a > b")]),
            (">", vec![text(">")]),
            ("<CR>", vec![skey("Enter")]),
            ("<Return>", vec![skey("Enter")]),
            ("<BS><Del>", vec![skey("Backspace"), skey("Delete")]),
            ("<Space>", vec![skey("Space")]),
            ("<Tab><S-Tab>", vec![skey("Tab"), skey("BTab")]),
            ("<C-x><M-x><A-x>", vec![skey("C-x"), skey("M-x"), skey("A-x")]),
            ("<PageUp><F5>", vec![skey("PageUp"), skey("F5")]),
            (
                "<KP1><KP-><C-KP+><kEnter>",
                vec![skey("KP1"), skey("KP-"), skey("C-KP+"), skey("KPEnter")],
            ),
            ("<cr><esc><c-w>", vec![skey("Enter"), skey("Esc"), skey("C-w")]),
            ("<C->>", vec![skey("C->")]),
            ("<C->>>", vec![skey("C->"), text(">")]),
            ("<a>", vec![skey("a")]),
            ("x<Esc>y<Esc>", vec![text("x"), skey("Esc"), text("y"), skey("Esc")]),
            ("héllo<Enter>✓", vec![text("héllo"), skey("Enter"), text("✓")]),
        ];
        for (script, expected) in cases {
            assert_eq!(parse_key_script(script).unwrap(), expected, "{script:?}");
        }
    }

    #[test]
    fn a_key_name_written_out_at_the_end_of_text_is_told() {
        let told = key_name_typed_at_end;
        for (script, word) in [
            ("make Enter", "Enter"),
            ("make  Enter \n", "Enter"),
            ("sleep 9 C-c", "C-c"),
            ("cat C-d", "C-d"),
            ("emacs M-x", "M-x"),
            ("x C-M-a", "C-M-a"),
            (":wq Escape", "Escape"),
            ("ihello Esc", "Esc"),
            ("git sta Tab", "Tab"),
            ("a<lt>b BTab", "BTab"),
            ("ab BSpace", "BSpace"),
            ("ab Backspace", "Backspace"),
            ("ls<Up> Enter", "Enter"),
            // Only the key is told (review vm: a script rewritten around it, `Escape
            // :wq<Enter>`, still typed `Escape`).
            ("Escape :wq Enter", "Enter"),
        ] {
            let key = format!("<{word}>");
            assert_eq!(told(script), Some((word, key.clone())), "{script:?}");
            let items = parse_key_script(&key).unwrap();
            assert!(matches!(items[..], [ScriptItem::Key(_)]), "{key}");
        }
        // A modifier twice is no chord (review vm: `C-` repeated 100,000 times was told back
        // whole, 200 KB past a result's bound); lines are text typed as lines.
        let long = format!("x {}a", "C-".repeat(100_000));
        for script in ["x C-C-c", "x C-M-C-a", long.as_str(), "cat > f\nPress Enter", "a\r Enter"] {
            assert_eq!(told(script), None, "{script:?}");
        }
        // Words that read as text (a review found `echo Foo Bar<Enter>` refused), names before
        // the end or before a bracketed key, lower-case or capital chords, and names alone
        // (refused with their brackets instead).
        for script in [
            "echo Foo Bar<Enter>",
            "echo Foo Bar",
            "Press Enter now",
            "echo Enter<Enter>",
            "echo Enter <Enter>",
            "Go Up",
            "Press End",
            "Press Home",
            "hit Space",
            "a Lt",
            "say Return",
            "make enter",
            "make ENTER",
            "grades C-D",
            "x c-c",
            "section C-3",
            "Enter",
            "C-c",
            "Up Enter",
            "",
            "  Enter",
            "makeEnter",
        ] {
            assert_eq!(told(script), None, "{script:?}");
        }
    }

    /// A chord after text is told whatever the order of its modifiers, as the parser takes
    /// them (`M-C-c` was not told: only `C-`, `M-`, `S-` in that order were), each modifier
    /// once, and only as written in upper case; every chord told parses to the key with
    /// exactly the modifiers written.
    #[test]
    fn a_chord_after_text_is_told_in_any_order_of_its_modifiers() {
        for (script, word) in
            [("x M-C-c", "M-C-c"), ("x S-C-a", "S-C-a"), ("x A-x", "A-x"), ("x S-M-C-z", "S-M-C-z")]
        {
            assert_eq!(key_name_typed_at_end(script), Some((word, format!("<{word}>"))));
        }
        for script in ["x M-A-x", "x A-M-x", "x S-C-S-a", "x A-A-b", "tr A-Z a-z", "x m-C-c"] {
            assert_eq!(key_name_typed_at_end(script), None, "{script:?}");
        }
        // Every word of up to four prefixes of the parser's (any case) and a letter: told when
        // its prefixes are upper case and name each modifier once, and then the key it parses
        // to holds those modifiers.
        let prefixes = ["C-", "M-", "A-", "S-", "c-", "m-", "a-", "s-"];
        let mut words = vec![String::new()];
        let mut level = words.clone();
        for _ in 0..4 {
            level = level
                .iter()
                .flat_map(|word| prefixes.iter().map(move |prefix| format!("{word}{prefix}")))
                .collect();
            words.extend(level.iter().cloned());
        }
        for prefix in &words {
            let word = format!("{prefix}q");
            let written: Vec<&str> = prefix.split_terminator('-').collect();
            let alt = written.iter().filter(|m| ["M", "A"].contains(m)).count();
            let once = ["C", "S"].iter().all(|m| written.iter().filter(|w| *w == m).count() <= 1);
            let upper = written.iter().all(|m| m.chars().all(|c| c.is_ascii_uppercase()));
            let chord = !written.is_empty() && upper && once && alt <= 1;
            let told = key_name_typed_at_end(&format!("x {word}")).is_some();
            assert_eq!(told, chord, "{word}");
            if told {
                let key: Key = word.parse().unwrap();
                let mods = Modifiers {
                    ctrl: written.contains(&"C"),
                    alt: alt == 1,
                    shift: written.contains(&"S"),
                };
                assert_eq!(key, Key { code: KeyCode::Char('q'), mods }, "{word}");
            }
        }
    }

    #[test]
    fn bare_key_names_are_told_their_brackets() {
        assert_eq!(bracketed_key_names("C-c").as_deref(), Some("<C-c>"));
        assert_eq!(bracketed_key_names("Up Up Enter").as_deref(), Some("<Up><Up><Enter>"));
        // tmux takes its modifiers in lower case too.
        assert_eq!(bracketed_key_names("c-c").as_deref(), Some("<c-c>"));
        assert_eq!(bracketed_key_names("m-x").as_deref(), Some("<m-x>"));
        // Told a script that parses (fuzzing found `C-<` told `<C-<>`).
        for (bare, bracketed) in [("C-<", "<C-lt>"), ("C->", "<C->>"), ("M-<", "<M-lt>")] {
            assert_eq!(bracketed_key_names(bare).as_deref(), Some(bracketed), "{bare}");
            assert!(parse_key_script(bracketed).is_ok(), "{bracketed}");
        }
        // Lower-case words, which key names also take (`a-b` is Alt-b), and other text stay
        // text: a review found `a-z A-Z` refused.
        assert!("a-b".parse::<Key>().is_ok());
        for text in ["a-b", "a-z A-Z", "end", "q", "Escape :wq", ""] {
            assert_eq!(bracketed_key_names(text), None, "{text:?}");
        }
    }

    #[test]
    fn script_errors_name_the_token() {
        let cases: &[(&str, &str, &str)] = &[
            ("<Esc", "<Esc", "not closed"),
            ("ihello<Esc", "<Esc", "not closed"),
            ("<", "<", "not closed"),
            ("a < b", "<", "not closed"),
            ("<Esc x>", "<Esc", "not closed"),
            ("<a<Esc>", "<a", "not closed"),
            ("<<lt>", "<", "not closed"),
            ("<>", "<>", "empty"),
            ("a<>b", "<>", "empty"),
            ("<Foo>", "<Foo>", "unknown key name \"Foo\""),
            ("x<C-Foo>y", "<C-Foo>", "unknown key name \"Foo\""),
            ("a<C->b", "<C->", "not followed by a key"),
            ("<Ctrl-c>", "<Ctrl-c>", "write <C-c> (modifiers are written C- for Ctrl"),
            ("x<ctrl+shift+Up>", "<ctrl+shift+Up>", "write <C-S-Up> ("),
            ("<Alt-x>", "<Alt-x>", "write <M-x> ("),
            ("<C-Shift-Tab>", "<C-Shift-Tab>", "write <C-S-Tab> ("),
            ("<F13>", "<F13>", "unknown"),
            ("ok<Enter>then<Bogus>", "<Bogus>", "unknown"),
        ];
        for &(script, token, reason) in cases {
            let err = parse_key_script(script).unwrap_err();
            assert_eq!(err.token, token, "{script:?}");
            assert!(err.reason.contains(reason), "{script:?}: {}", err.reason);
            let msg = err.to_string();
            assert!(msg.contains(&format!("{token:?}")), "{msg}");
            assert!(msg.contains(ACCEPTED_KEY_FORMS), "{msg}");
        }
    }

    #[test]
    fn script_encoding() {
        let items = parse_key_script("ihello<Esc>:wq<CR>").unwrap();
        assert_eq!(encode_script(&items, &LEGACY), b"ihello\x1b:wq\r");
        assert_eq!(encode_script(&items, &kitty(1)), b"ihello\x1b[27u:wq\r");
        // Text stays plain text even when flag 8 would escape typed keys.
        assert_eq!(encode_script(&items, &kitty(8)), b"ihello\x1b[27u:wq\x1b[13u");
        let items = parse_key_script("<Up><Up><Enter>").unwrap();
        assert_eq!(encode_script(&items, &LEGACY), b"\x1b[A\x1b[A\r");
        assert_eq!(encode_script(&items, &APP), b"\x1bOA\x1bOA\r");
        let items = parse_key_script("a<lt>b<C-c>").unwrap();
        assert_eq!(encode_script(&items, &LEGACY), b"a<b\x03");
        assert_eq!(encode_script(&items, &kitty(9)), b"a<b\x1b[99;5u");
        assert_eq!(encode_script(&[], &LEGACY), b"");
    }
}
