//! Characters cut between two reads, given to the parser so that it completes them alone.
//!
//! vte 0.15 completes a character an earlier `advance` left unfinished by copying up to
//! three more bytes, and when the text after the character came in those bytes it counts
//! them as taken while printing only the character (`advance_partial_utf8`, its branch for
//! a buffer whose first bytes are valid; alacritty/vte#159): `a\xc3` read, then
//! `\xa9:\xc3\xa9`, printed `aéé`, the `:` lost from the screen and the transcript. So the
//! continuation bytes a read starts with, up to those the cut character lacks, are given to
//! the parser on their own first.

/// How many continuation bytes the character the parser's bytes ended with still lacks.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct CutCharacter {
    missing: usize,
}

impl CutCharacter {
    /// Splits `bytes`, the parser's next, into the continuation bytes that complete (or go on
    /// with) the character the bytes before left unfinished, for the parser alone, and the
    /// rest; and notes the character the rest leaves unfinished, if any.
    pub(super) fn split<'a>(&mut self, bytes: &'a [u8]) -> (&'a [u8], &'a [u8]) {
        let taken = bytes.iter().take(self.missing).take_while(|&&b| is_continuation(b)).count();
        let (completion, rest) = bytes.split_at(taken);
        self.missing = match rest.is_empty() {
            // All of them went on with the character: it may still lack some.
            true => self.missing - taken,
            // Completed, or cut off by a byte that does not go on with it (the parser then
            // prints a replacement character, taking nothing that follows).
            false => missing_at_end(rest),
        };
        (completion, rest)
    }
}

/// Whether `byte` continues a UTF-8 character (`10xxxxxx`).
fn is_continuation(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

/// How many continuation bytes the character `bytes` ends with lacks: none when they end
/// with a whole character, an ASCII byte, or bytes that are no UTF-8.
fn missing_at_end(bytes: &[u8]) -> usize {
    let tail = &bytes[bytes.len().saturating_sub(4)..];
    let Some(lead) = tail.iter().rposition(|&b| !is_continuation(b)) else { return 0 };
    let length: usize = match tail[lead] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 0,
    };
    length.saturating_sub(tail.len() - lead)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes a cut character lacks are split off the next bytes, however many reads
    /// they come in; bytes that do not go on with it, or a whole character, split nothing.
    #[test]
    fn the_rest_of_a_cut_character_is_split_off() {
        let mut cut = CutCharacter::default();
        assert_eq!(cut.split(b"a\xc3"), (&b""[..], &b"a\xc3"[..]));
        assert_eq!(cut.split(b"\xa9:\xc3\xa9"), (&b"\xa9"[..], &b":\xc3\xa9"[..]));
        assert_eq!(cut.split(b"x"), (&b""[..], &b"x"[..]));
        // A four-byte character in three reads.
        assert_eq!(cut.split("y😀".as_bytes()[..2].as_ref()), (&b""[..], &b"y\xf0"[..]));
        assert_eq!(cut.split(b"\x9f"), (&b"\x9f"[..], &b""[..]));
        assert_eq!(cut.split(b"\x98\x80z"), (&b"\x98\x80"[..], &b"z"[..]));
        // A lead byte followed by no continuation: nothing split off.
        assert_eq!(cut.split(b"\xe4"), (&b""[..], &b"\xe4"[..]));
        assert_eq!(cut.split(b"q\xb8"), (&b""[..], &b"q\xb8"[..]));
        assert_eq!(missing_at_end(b"\xe4\xb8\x80"), 0);
        assert_eq!(missing_at_end(b"\xe4\xb8"), 1);
        assert_eq!(missing_at_end(b"\xc3\xa9\xa9"), 0);
        assert_eq!(missing_at_end(b"\xff"), 0);
    }
}
