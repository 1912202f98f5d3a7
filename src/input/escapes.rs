//! Backslash escapes in text sent to a session: `\r \n \t \e \xHH \uHHHH \\`.

/// Decodes backslash escapes into bytes.
///
/// `\r`, `\n`, `\t`, `\e` (ESC), `\xHH` (one byte), `\uHHHH` (a Unicode scalar as UTF-8) and
/// `\\` are decoded; any other backslash sequence, or a malformed one, passes through unchanged.
/// Real control characters in `text` are sent as they are, so `"\r"` and `"\\r"` are the same.
pub fn decode_escapes(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let (decoded, used) = match bytes[i + 1] {
            b'r' => (Some(vec![b'\r']), 2),
            b'n' => (Some(vec![b'\n']), 2),
            b't' => (Some(vec![b'\t']), 2),
            b'e' => (Some(vec![0x1b]), 2),
            b'\\' => (Some(vec![b'\\']), 2),
            b'x' => (hex(bytes, i + 2, 2).map(|v| vec![v as u8]), 4),
            b'u' => (
                hex(bytes, i + 2, 4).and_then(char::from_u32).map(|c| c.to_string().into_bytes()),
                6,
            ),
            _ => (None, 0),
        };
        match decoded {
            Some(decoded) => {
                out.extend_from_slice(&decoded);
                i += used;
            }
            None => {
                out.push(b'\\');
                i += 1;
            }
        }
    }
    out
}

fn hex(bytes: &[u8], start: usize, len: usize) -> Option<u32> {
    let digits = bytes.get(start..start + len)?;
    let text = std::str::from_utf8(digits).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::decode_escapes;

    #[test]
    fn known_escapes() {
        assert_eq!(decode_escapes(r"a\r\n\t\e\\b"), b"a\r\n\t\x1b\\b");
        assert_eq!(decode_escapes(r"\x41\x7f"), b"A\x7f");
        assert_eq!(decode_escapes(r"\u00e9"), "é".as_bytes());
    }

    #[test]
    fn unknown_and_malformed_pass_through() {
        assert_eq!(decode_escapes(r"\q \xZZ \u12 end\"), br"\q \xZZ \u12 end\");
        assert_eq!(decode_escapes(r"\ud800"), br"\ud800");
    }

    #[test]
    fn real_controls_equal_escapes() {
        assert_eq!(decode_escapes("ls\r"), decode_escapes(r"ls\r"));
    }
}
