//! Replies to the terminal queries alacritty's `Term` leaves unanswered, so that no program
//! waits for an answer that never comes or guesses its terminal wrong.
//!
//! alacritty answers device attributes (`CSI c`, `CSI > c`), the cursor position and status
//! reports (`CSI 6 n`, `CSI 5 n`), the modes it knows (DECRQM, `CSI ? Pm $ p`), the text area
//! in characters and pixels (`CSI 18 t`, `CSI 14 t`), the kitty keyboard flags (`CSI ? u`) and
//! the dynamic colours (`OSC 10;?`, `OSC 11;?`). Its parser drops every DCS string (`hook`,
//! `put` and `unhook` do nothing), and `CSI > q` and `CSI 16 t` reach no handler. Here:
//! - XTVERSION (`CSI > q`, `CSI > 0 q`): `DCS > | termloom(VERSION) ST`;
//! - the cell size (`CSI 16 t`): `CSI 6 ; 16 ; 8 t`, the cell `CSI 14 t` counts;
//! - DECRQSS (`DCS $ q Pt ST`) for SGR (`m`), the scrolling region (`r`) and the cursor style
//!   (` q`), from the terminal's state; anything else the invalid reply, `DCS 0 $ r ST`. The
//!   SGR is the styled screen's for the cursor's template cell: what alacritty keeps of it,
//!   so blink is left out, and a curly, dotted or dashed underline reads as `4`, without its
//!   colour (`58`);
//! - XTGETTCAP (`DCS + q NAME;… ST`, names in hexadecimal): `TN` (`xterm-256color`, the
//!   `TERM` termloom sets), `Co` (256) and `RGB` (direct colour, a flag); every other name the
//!   'unknown' reply, `DCS 0 + r NAME ST`, at once, as xterm gives it.
//!
//! Other DCS strings are left unanswered, as xterm leaves them (vim sends `DCS zz ST` to see
//! whether the terminal shows it). The scanner keeps at most [`DCS_QUERY`] bytes of a DCS
//! string: a longer one is answered as invalid, whatever it held.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::term::Term;
use alacritty_terminal::vte::ansi::CursorShape;

use crate::term::scan::Params;
use crate::term::screen::style::cell_sgr;

/// The most bytes of a DCS string the scanner keeps for a query (after `ESC P`): a query
/// asking for 16 names fits.
pub(crate) const DCS_QUERY: usize = 256;

/// The cell size the pixel reports count: 8 pixels wide, 16 high.
pub(crate) const CELL: (u16, u16) = (8, 16);

/// What termloom answers `TN` (the terminal's name) with: the `TERM` it sets.
const TERM_NAME: &str = "xterm-256color";

/// The reply to a CSI query alacritty leaves unanswered (`private` marker, parameters and
/// final byte as the scanner decoded them), if it is one.
pub(crate) fn csi_reply(private: Option<u8>, params: &Params, action: u8) -> Option<String> {
    match (private, action) {
        (Some(b'>'), b'q') if params.or(0, 0) == 0 => {
            Some(format!("\x1bP>|termloom({})\x1b\\", env!("CARGO_PKG_VERSION")))
        }
        (None, b't') if params.values().first() == Some(&16) => {
            Some(format!("\x1b[6;{};{}t", CELL.1, CELL.0))
        }
        _ => None,
    }
}

/// The reply to a DCS string (`payload`: its bytes after `ESC P`, before `ESC \`; `overflow`:
/// it was longer than [`DCS_QUERY`] and cut there), if it is a query answered here.
/// `region`: the scrolling region (first row, row past the last) when one other than the
/// whole screen is set.
pub(crate) fn dcs_reply<T>(
    payload: &[u8],
    overflow: bool,
    term: &Term<T>,
    region: Option<(usize, usize)>,
) -> Option<String> {
    if let Some(setting) = payload.strip_prefix(b"$q") {
        return Some(match overflow {
            true => "\x1bP0$r\x1b\\".to_owned(),
            false => decrqss(setting, term, region),
        });
    }
    let names = payload.strip_prefix(b"+q")?;
    if overflow {
        return Some("\x1bP0+r\x1b\\".to_owned());
    }
    let mut reply = String::new();
    for name in names.split(|&b| b == b';') {
        match capability(name) {
            Some(value) => reply.push_str(&format!("\x1bP1+r{value}\x1b\\")),
            // The first unknown name ends the reply, as xterm ends it.
            None => {
                // (The name echoed only when it is hexadecimal, as asked: never a control
                // character of the program's back to it.)
                let name = match unhex(name) {
                    Some(_) => String::from_utf8_lossy(name),
                    None => "".into(),
                };
                reply.push_str(&format!("\x1bP0+r{name}\x1b\\"));
                break;
            }
        }
    }
    Some(reply)
}

/// DECRQSS: the setting asked for (`m`, `r`, ` q`), as the sequence that sets it.
fn decrqss<T>(setting: &[u8], term: &Term<T>, region: Option<(usize, usize)>) -> String {
    let value = match setting {
        b"m" => {
            let sgr = cell_sgr(&term.grid().cursor.template);
            match sgr.is_empty() {
                true => "0m".to_owned(),
                false => format!("0;{sgr}m"),
            }
        }
        b"r" => {
            let (top, bottom) = region.unwrap_or((0, term.grid().screen_lines()));
            format!("{};{}r", top + 1, bottom)
        }
        b" q" => {
            let style = term.cursor_style();
            let shape = match style.shape {
                CursorShape::Underline => 3,
                CursorShape::Beam => 5,
                _ => 1,
            };
            format!("{} q", shape + u8::from(!style.blinking))
        }
        _ => return "\x1bP0$r\x1b\\".to_owned(),
    };
    format!("\x1bP1$r{value}\x1b\\")
}

/// XTGETTCAP: a capability (its name in hexadecimal, as asked) with its value, `NAME=VALUE`
/// both in hexadecimal (a flag without `=`), or `None` when it is not answered.
fn capability(hex_name: &[u8]) -> Option<String> {
    let name = unhex(hex_name)?;
    let value = match name.as_slice() {
        b"TN" | b"name" => Some(TERM_NAME),
        b"Co" | b"colors" => Some("256"),
        b"RGB" => None,
        _ => return None,
    };
    let name = std::str::from_utf8(hex_name).ok()?;
    Some(match value {
        Some(value) => format!("{name}={}", hex(value.as_bytes())),
        None => name.to_owned(),
    })
}

/// Bytes from hexadecimal digits (either case); `None` for anything else.
fn unhex(digits: &[u8]) -> Option<Vec<u8>> {
    if digits.is_empty() || !digits.len().is_multiple_of(2) {
        return None;
    }
    let digit = |b: u8| char::from(b).to_digit(16);
    digits.chunks(2).map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)).collect()
}

/// Bytes in upper-case hexadecimal, as xterm writes them.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}
