//! The settled lines of a transcript, packed into a few large buffers instead of a `String`
//! each: storing a line copies it, and dropping the oldest one frees nothing until its whole
//! buffer is unused.
//!
//! A `String` per line cost an allocation for every line that scrolled by and a free for every
//! line dropped from the front, on memory long gone from the cache: in a flood of short lines
//! malloc and free took about 15 % of the feed path's time (BENCHMARKS.md §16).
//!
//! The buffers hold bytes, and a line is checked to be UTF-8 only when it is read: the drain
//! stores rows it took a byte a cell, each byte checked printable ASCII as it was copied, and
//! every other line comes from a `str`, so a line is always text; a flood pushes most lines
//! out unread, and those are never validated (BENCHMARKS.md §26).

use std::collections::VecDeque;

/// A buffer is closed for appending once it holds this many bytes (a longer line gets a
/// buffer of its own), unless the store is given a smaller size. Buffers grow as `String`s do
/// up to it, so a session with little output holds little.
const CHUNK: usize = 32 << 10;

/// Where a line is: its buffer (counted from the first ever made) and its byte range there.
#[derive(Debug, Clone, Copy)]
struct Span {
    chunk: u64,
    start: u32,
    len: u32,
}

/// Lines in order, appended at the back and dropped from the front. Besides the lines it
/// holds at most about four buffers' worth of bytes: the front one's dropped lines, the back
/// one's room, a spare, and the first buffer's growth past the size.
#[derive(Debug)]
pub(crate) struct LineStore {
    /// The size at which a buffer is closed.
    chunk_bytes: usize,
    chunks: VecDeque<Vec<u8>>,
    /// The number of the chunk at the front of `chunks`.
    first_chunk: u64,
    spans: VecDeque<Span>,
    /// A buffer freed from the front, kept for the next one needed (so a steady flood
    /// allocates nothing).
    spare: Option<Vec<u8>>,
}

impl Default for LineStore {
    fn default() -> Self {
        LineStore::with_chunk_bytes(CHUNK)
    }
}

impl LineStore {
    /// A store whose buffers close at `chunk_bytes` (at most 32 KiB is used).
    pub(crate) fn with_chunk_bytes(chunk_bytes: usize) -> Self {
        LineStore {
            chunk_bytes: chunk_bytes.clamp(1, CHUNK),
            chunks: VecDeque::new(),
            first_chunk: 0,
            spans: VecDeque::new(),
            spare: None,
        }
    }

    /// Number of lines.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// Line `index` (0 is the oldest kept).
    pub(crate) fn get(&self, index: usize) -> Option<&str> {
        self.spans.get(index).map(|span| self.text(*span))
    }

    fn text(&self, span: Span) -> &str {
        let chunk = &self.chunks[(span.chunk - self.first_chunk) as usize];
        let start = span.start as usize;
        as_text(&chunk[start..start + span.len as usize])
    }

    /// The lines, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.spans.iter().map(|span| self.text(*span))
    }

    /// Appends a line, which must be UTF-8 text: a `str`'s bytes, or bytes checked to be
    /// ASCII (lines longer than 4 GiB are not made: transcripts cut lines far shorter).
    pub(crate) fn push(&mut self, line: &[u8]) {
        self.push_with(line.len(), |chunk| {
            chunk.extend_from_slice(line);
            true
        });
    }

    /// Appends the line `write` appends to the buffer it is given, at most `most` bytes of
    /// UTF-8 text, written in place rather than copied (a row taken a byte a cell); when
    /// `write` returns `false` nothing is added, and what it appended is taken back. Returns
    /// the line's length, if one was added.
    pub(crate) fn push_with(
        &mut self,
        most: usize,
        write: impl FnOnce(&mut Vec<u8>) -> bool,
    ) -> Option<usize> {
        let fits = self.chunks.back().is_some_and(|chunk| {
            let len = chunk.len() + most;
            len <= self.chunk_bytes || (chunk.is_empty() && len <= chunk.capacity())
        });
        if !fits {
            let mut chunk = match self.spare.take() {
                Some(spare) if spare.capacity() >= most => spare,
                // The first buffer grows with the output; once one has filled, the next is
                // made whole at once.
                _ if self.chunks.is_empty() && self.first_chunk == 0 => Vec::new(),
                _ => Vec::with_capacity(self.chunk_bytes.max(most)),
            };
            chunk.clear();
            self.chunks.push_back(chunk);
        }
        let chunk_number = self.first_chunk + self.chunks.len() as u64 - 1;
        let chunk = self.chunks.back_mut().expect("a chunk was just made");
        let start = chunk.len();
        if !write(chunk) {
            chunk.truncate(start);
            return None;
        }
        let len = chunk.len() - start;
        debug_assert!(len <= most, "a writer wrote {len} bytes, past its {most}");
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let span_len = u32::try_from(len).unwrap_or(u32::MAX);
        self.spans.push_back(Span { chunk: chunk_number, start, len: span_len });
        Some(len)
    }

    /// Drops the oldest line; returns its length.
    pub(crate) fn pop_front(&mut self) -> Option<usize> {
        let span = self.spans.pop_front()?;
        let still_used =
            self.spans.front().map_or(self.first_chunk + self.chunks.len() as u64, |s| s.chunk);
        while self.first_chunk < still_used && self.chunks.len() > 1 {
            let freed = self.chunks.pop_front().expect("counted");
            self.first_chunk += 1;
            if freed.capacity() <= 2 * self.chunk_bytes {
                self.spare = Some(freed);
            }
        }
        if self.spans.is_empty() {
            // Nothing left: the last buffer starts over (kept for the next line).
            if let Some(chunk) = self.chunks.back_mut() {
                chunk.clear();
            }
        }
        Some(span.len as usize)
    }
}

/// Bytes stored as text, as the text they are. They are UTF-8 by how every line is made (see
/// [`LineStore::push`]); were they ever not, the reader gets their valid beginning, and a
/// build with debug assertions (every test and fuzz run) stops there.
pub(crate) fn as_text(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            if cfg!(debug_assertions) {
                panic!("stored bytes are not UTF-8: {error}");
            }
            std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_back_in_order_across_buffers() {
        let mut store = LineStore::default();
        let lines: Vec<String> =
            (0..20_000).map(|i| format!("line {i} {}", "x".repeat(i % 97))).collect();
        for line in &lines {
            store.push(line.as_bytes());
        }
        assert_eq!(store.len(), lines.len());
        assert!(store.chunks.len() > 10, "{} buffers", store.chunks.len());
        assert_eq!(store.get(12_345), Some(lines[12_345].as_str()));
        assert!(store.iter().eq(lines.iter().map(String::as_str)));
        assert!(store.iter().rev().eq(lines.iter().rev().map(String::as_str)));
        for (n, line) in lines.iter().enumerate().take(15_000) {
            assert_eq!(store.pop_front(), Some(line.len()), "line {n}");
        }
        assert_eq!(store.get(0), Some(lines[15_000].as_str()));
        let kept: usize = lines[15_000..].iter().map(String::len).sum();
        let most = kept / CHUNK + 2;
        assert!(store.chunks.len() <= most, "freed buffers are dropped: {}", store.chunks.len());
        assert!(store.iter().eq(lines[15_000..].iter().map(String::as_str)));
    }

    #[test]
    fn long_and_empty_lines_and_reuse() {
        let mut store = LineStore::default();
        let long = "y".repeat(3 * CHUNK);
        for round in 0..3 {
            store.push(b"");
            store.push(long.as_bytes());
            store.push(b"short");
            assert_eq!(store.get(1).map(str::len), Some(long.len()), "round {round}");
            assert_eq!(store.get(2), Some("short"));
            assert_eq!(store.get(0), Some(""));
            assert_eq!(store.get(3), None);
            assert_eq!(store.pop_front(), Some(0));
            assert_eq!(store.pop_front(), Some(long.len()));
            assert_eq!(store.pop_front(), Some(5));
            assert_eq!(store.pop_front(), None);
            assert_eq!(store.len(), 0);
        }
        // A steady flood through a bounded store reuses its buffers.
        for i in 0..100_000 {
            store.push(format!("flood {i}").as_bytes());
            if store.len() > 1000 {
                store.pop_front();
            }
        }
        assert_eq!(store.get(999), Some("flood 99999"));
        assert!(store.chunks.len() <= 2, "{}", store.chunks.len());
    }

    /// A line written in place lands as one pushed would; a writer that gives up leaves
    /// nothing behind, in a buffer already used or in one made for it.
    #[test]
    fn lines_written_in_place_and_writers_that_give_up() {
        let mut store = LineStore::with_chunk_bytes(16);
        let give_up = |out: &mut Vec<u8>| {
            out.extend_from_slice(b"nothing");
            false
        };
        for i in 0..50 {
            let line = format!("line {i}");
            let written = store.push_with(line.len(), |out| {
                out.extend_from_slice(line.as_bytes());
                true
            });
            assert_eq!(written, Some(line.len()));
            let held: usize = store.chunks.iter().map(Vec::len).sum();
            assert_eq!(store.push_with(12, give_up), None);
            assert_eq!(store.chunks.iter().map(Vec::len).sum::<usize>(), held, "line {i}");
            assert_eq!(store.get(store.len() - 1), Some(line.as_str()));
        }
        assert!(store.iter().eq((0..50).map(|i| format!("line {i}"))));
    }

    /// What a small store holds besides its lines stays within four of its buffers.
    #[test]
    fn a_small_store_holds_little_besides_its_lines() {
        let mut store = LineStore::with_chunk_bytes(256);
        for i in 0..10_000 {
            store.push(format!("line {i} {}", "z".repeat(i % 40)).as_bytes());
            while store.len() > 20 {
                store.pop_front();
            }
            let lines: usize = store.iter().map(str::len).sum();
            let held: usize = store.chunks.iter().map(Vec::capacity).sum::<usize>()
                + store.spare.as_ref().map_or(0, Vec::capacity);
            assert!(held <= lines + 4 * 256, "line {i}: {held} bytes for {lines}");
        }
    }
}
