//! Line breaks in typed text, as a person types them.

/// `bytes` (text to type, its escapes decoded) as a person types it: each line break (a line
/// feed, or a carriage return and line feed) is Enter, a carriage return, as a terminal types
/// a pasted line break. A line feed is Ctrl-J, which programs that read keys take for a key of
/// its own (nano's Justify joined the lines typed); a line discipline that reads lines makes
/// Enter a line feed again. A line feed alone is sent as the key `<C-j>`.
///
/// MCP `terminal_send`'s `text` is typed so, and with it `termloom send --text`, and
/// `termloom run`'s `--send` and `--submit` (after [`decode_escapes`](crate::decode_escapes)).
///
/// ```
/// assert_eq!(termloom::enter_for_line_breaks(b"a\nb\r\nc"), b"a\rb\rc");
/// ```
pub fn enter_for_line_breaks(bytes: &[u8]) -> Vec<u8> {
    let mut typed = Vec::with_capacity(bytes.len());
    for (i, &byte) in bytes.iter().enumerate() {
        match byte {
            b'\n' if i > 0 && bytes[i - 1] == b'\r' => {}
            b'\n' => typed.push(b'\r'),
            _ => typed.push(byte),
        }
    }
    typed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_break_is_one_enter() {
        assert_eq!(enter_for_line_breaks(b"a\nb\r\nc\rd\n\n"), b"a\rb\rc\rd\r\r");
        assert_eq!(enter_for_line_breaks(b"\n"), b"\r");
        assert_eq!(enter_for_line_breaks(b"plain"), b"plain");
    }
}
