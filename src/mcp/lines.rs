//! Newline-delimited framing with a bound: one message per line, never more than
//! `max_bytes` of one line held in memory.

use std::io::{self, BufRead};

/// What the next line of input was.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line (without its line end), at most the bound long.
    Message(Vec<u8>),
    /// A line longer than the bound. Its first `max_bytes` bytes and its last [`TAIL_BYTES`]
    /// are kept (to find the request id in them, at the start or at the end, where the
    /// TypeScript SDK writes it); the rest was skipped up to the next newline without being
    /// buffered.
    TooLong {
        /// The first bytes of the line.
        prefix: Vec<u8>,
        /// The last bytes of the line (without its line end).
        tail: Vec<u8>,
        /// How long the line was, in bytes.
        length: u64,
    },
}

/// Most bytes kept of the end of an oversized line.
pub(crate) const TAIL_BYTES: usize = 256;

/// Reads lines of at most `max_bytes` bytes from a `BufRead`, resynchronising at the next newline
/// after an oversized one.
pub(crate) struct LineReader<R> {
    input: R,
    max_bytes: usize,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps `input`.
    pub(crate) fn new(input: R, max_bytes: usize) -> Self {
        LineReader { input, max_bytes }
    }

    /// The next line, or `None` at the end of input. A last line without a newline counts.
    /// `\r\n` line ends are accepted; the `\r` is not part of the line, nor of its length.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<Line>> {
        // One byte more than the bound is kept, for a `\r` before the newline.
        let keep = self.max_bytes.saturating_add(1);
        let mut line = Vec::new();
        let mut length: u64 = 0;
        let mut last = None;
        let mut tail = Vec::new();
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if chunk.is_empty() {
                if length == 0 {
                    return Ok(None);
                }
                break;
            }
            let (part, used, complete) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (&chunk[..at], at + 1, true),
                None => (chunk, chunk.len(), false),
            };
            length += part.len() as u64;
            last = part.last().copied().or(last);
            let room = keep.saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            // The line's last bytes (one more, for a `\r`), for when it passes the bound.
            tail.extend_from_slice(&part[part.len().saturating_sub(TAIL_BYTES + 1)..]);
            tail.drain(..tail.len().saturating_sub(TAIL_BYTES + 1));
            self.input.consume(used);
            if complete {
                break;
            }
        }
        if last == Some(b'\r') {
            length -= 1;
            if line.len() as u64 > length {
                line.pop();
            }
        }
        if length > self.max_bytes as u64 {
            if last == Some(b'\r') {
                tail.pop();
            }
            tail.drain(..tail.len().saturating_sub(TAIL_BYTES));
            line.truncate(self.max_bytes);
            return Ok(Some(Line::TooLong { prefix: line, tail, length }));
        }
        Ok(Some(Line::Message(line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer so lines straddle refills.
        let mut reader = LineReader::new(io::BufReader::with_capacity(3, input), max);
        std::iter::from_fn(|| reader.next_line().unwrap()).collect()
    }

    #[test]
    fn splits_lines_and_keeps_a_last_line_without_newline() {
        assert_eq!(
            lines(b"ab\r\ncdef\n\nlast", 10),
            vec![
                Line::Message(b"ab".to_vec()),
                Line::Message(b"cdef".to_vec()),
                Line::Message(Vec::new()),
                Line::Message(b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn oversized_lines_are_cut_and_reading_resumes_after_them() {
        assert_eq!(
            lines(b"0123456789abc\nok\n", 8),
            vec![
                Line::TooLong {
                    prefix: b"01234567".to_vec(),
                    tail: b"0123456789abc".to_vec(),
                    length: 13
                },
                Line::Message(b"ok".to_vec()),
            ]
        );
        // Exactly the bound is fine, with either line end.
        assert_eq!(lines(b"01234567\n", 8), vec![Line::Message(b"01234567".to_vec())]);
        assert_eq!(
            lines(b"01234567\r\n0123456\r", 8),
            vec![Line::Message(b"01234567".to_vec()), Line::Message(b"0123456".to_vec())]
        );
        assert_eq!(
            lines(b"012345678\r\n", 8),
            vec![Line::TooLong {
                prefix: b"01234567".to_vec(),
                tail: b"012345678".to_vec(),
                length: 9
            }]
        );
        // Of a long line, its last bytes are kept too (where some clients write the id).
        let long = [vec![b'x'; 1000], b"\"id\":7}\r\n".to_vec()].concat();
        let [Line::TooLong { tail, length: 1007, .. }] = &lines(&long, 8)[..] else { panic!() };
        assert_eq!(tail.len(), TAIL_BYTES);
        assert!(tail.ends_with(b"x\"id\":7}"), "{}", String::from_utf8_lossy(tail));
    }
}
