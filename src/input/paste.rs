//! Encoding of pasted text, optionally as a bracketed paste.
//!
//! A terminal emulator that pastes text into a program does two things to it,
//! and [`encode_paste`] does the same:
//!
//! * Line breaks are sent as carriage returns: both `\n` and `\r\n` become a
//!   single `\r` (a lone `\r` stays as it is). This is what pressing Enter
//!   sends, and what xterm, kitty, alacritty and others send for pasted
//!   newlines, so a shell or editor in raw mode sees one "Enter" per line.
//! * When the program has enabled bracketed paste (DECSET 2004) the text is
//!   wrapped in `ESC [200~` … `ESC [201~`, so that the program can tell pasted
//!   text from typed text. Any start or end marker already present in the text
//!   is removed first, so pasted content can never end the bracket early and
//!   have the rest interpreted as typed keys.

/// The bracketed-paste start marker, `ESC [200~`.
pub(crate) const PASTE_START: &[u8] = b"\x1b[200~";

/// The bracketed-paste end marker, `ESC [201~`.
pub(crate) const PASTE_END: &[u8] = b"\x1b[201~";

/// Encodes `text` as the bytes a terminal sends to the program for a paste.
///
/// Steps, in order:
///
/// 1. Every `ESC [200~` and `ESC [201~` inside `text` is removed, repeatedly,
///    until none remain. A marker split by another marker (for example
///    `ESC [20` `ESC [201~` `1~`) therefore cannot re-form once the inner one
///    is removed. This is done whether or not `bracketed` is set: the markers
///    are never legitimate pasted content.
/// 2. `\r\n` and `\n` are converted to `\r`, as terminals do for pastes (see
///    the module documentation). A lone `\r` is kept.
/// 3. If `bracketed` is true the result is wrapped in [`PASTE_START`] …
///    [`PASTE_END`].
///
/// Other control characters are passed through unchanged.
pub(crate) fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    let stripped = strip_markers(text.as_bytes());
    let body = normalize_newlines(&stripped);
    if !bracketed {
        return body;
    }
    let mut out = Vec::with_capacity(PASTE_START.len() + body.len() + PASTE_END.len());
    out.extend_from_slice(PASTE_START);
    out.extend_from_slice(&body);
    out.extend_from_slice(PASTE_END);
    out
}

/// Removes the paste markers until none remain, in a single pass.
///
/// Bytes are appended to the output one at a time; whenever the output ends
/// with a marker, the marker is cut off. The output therefore never contains a
/// marker, and a marker that only forms after an inner one was removed is
/// removed too. Since the two markers cannot overlap each other (each contains
/// `ESC` only as its first byte), this gives the same result as replacing all
/// markers over and over until none are left, in linear time.
fn strip_markers(input: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(input.len());
    for &byte in input {
        out.push(byte);
        if byte == b'~' && (out.ends_with(PASTE_START) || out.ends_with(PASTE_END)) {
            out.truncate(out.len() - PASTE_START.len());
        }
    }
    out
}

/// Converts `\r\n` and `\n` to `\r`.
fn normalize_newlines(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'\r' if input.get(i + 1) == Some(&b'\n') => {
                out.push(b'\r');
                i += 2;
            }
            b'\n' => {
                out.push(b'\r');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn plain_text_unbracketed_is_unchanged() {
        assert_eq!(encode_paste("hello world", false), b"hello world");
        assert_eq!(encode_paste("", false), b"");
    }

    #[test]
    fn bracketed_wraps_text() {
        assert_eq!(encode_paste("hi", true), b"\x1b[200~hi\x1b[201~");
        assert_eq!(encode_paste("", true), b"\x1b[200~\x1b[201~");
    }

    #[test]
    fn newlines_become_carriage_returns() {
        assert_eq!(encode_paste("a\nb", false), b"a\rb");
        assert_eq!(encode_paste("a\r\nb", false), b"a\rb");
        assert_eq!(encode_paste("a\rb", false), b"a\rb");
        assert_eq!(encode_paste("a\n\nb\n", false), b"a\r\rb\r");
        assert_eq!(encode_paste("a\r\n\r\nb", false), b"a\r\rb");
        assert_eq!(encode_paste("a\n\r\nb", false), b"a\r\rb");
        assert_eq!(encode_paste("a\r\rb", false), b"a\r\rb");
        assert_eq!(encode_paste("x\ny", true), b"\x1b[200~x\ry\x1b[201~");
    }

    #[test]
    fn markers_are_stripped() {
        assert_eq!(encode_paste("a\x1b[200~b", false), b"ab");
        assert_eq!(encode_paste("a\x1b[201~b", false), b"ab");
        assert_eq!(encode_paste("\x1b[201~rm -rf /\x1b[200~", true), b"\x1b[200~rm -rf /\x1b[201~");
        assert_eq!(encode_paste("\x1b[200~\x1b[201~", false), b"");
    }

    #[test]
    fn split_markers_cannot_reform() {
        // Removing the inner marker would join "\x1b[20" and "1~".
        assert_eq!(encode_paste("x\x1b[20\x1b[201~1~y", false), b"xy");
        assert_eq!(encode_paste("x\x1b[20\x1b[200~0~y", true), b"\x1b[200~xy\x1b[201~");
        // Deeply nested.
        let mut nested = String::new();
        for _ in 0..50 {
            nested.push_str("\x1b[20");
        }
        for _ in 0..50 {
            nested.push_str("1~");
        }
        let out = encode_paste(&format!("a{nested}b"), true);
        assert_eq!(out, b"\x1b[200~ab\x1b[201~");
    }

    #[test]
    fn partial_markers_are_kept() {
        assert_eq!(encode_paste("\x1b[200", false), b"\x1b[200");
        assert_eq!(encode_paste("\x1b[202~", false), b"\x1b[202~");
        assert_eq!(encode_paste("[200~", false), b"[200~");
        assert_eq!(encode_paste("\x1b[A", false), b"\x1b[A");
    }

    #[test]
    fn body_never_contains_markers() {
        let inputs = [
            "\x1b[2\x1b[200~01~",
            "\x1b\x1b[201~[200~",
            "\x1b[200\x1b[201~~",
            "~\x1b[201~~\x1b[200~~",
            "\x1b[20\x1b[20\x1b[200~0~1~",
        ];
        for input in inputs {
            let out = encode_paste(input, true);
            let body = &out[PASTE_START.len()..out.len() - PASTE_END.len()];
            assert!(!contains(body, PASTE_START), "{input:?} -> {out:?}");
            assert!(!contains(body, PASTE_END), "{input:?} -> {out:?}");
        }
    }

    #[test]
    fn utf8_is_preserved() {
        let out = encode_paste("héllo\x1b[201~ wörld ✓\n", true);
        assert_eq!(out, "\x1b[200~héllo wörld ✓\r\x1b[201~".as_bytes());
    }
}
