//! Turning grid rows into text, as a person reads them: trailing blanks trimmed (kept inside
//! a soft-wrapped line), wide characters once, combining marks with their base, tabs as
//! blanks.
//!
//! This is the transcript drain's per-row work, so it is built for speed: most rows are plain
//! ASCII throughout, or begin so. [`ascii_line_text`] takes a whole row a byte a cell when the
//! grid is known to hold no wide character and no combining mark (the emulator tracks that:
//! only non-ASCII output, or a repetition of such a character, can put them there), checking
//! only each cell's character;
//! [`line_text`] handles every other row, writing a blank beginning as spaces (tested eight
//! cells a block: BENCHMARKS.md §29), copying a plain-ASCII beginning a byte a cell and
//! encoding the rest a character at a time (BENCHMARKS.md §16); the drain takes it as bytes,
//! [`line_bytes`], encoded straight into its buffer (BENCHMARKS.md §28).

use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};

/// Whether `row` continues on the next one (soft-wrapped).
pub(crate) fn is_wrapped(row: &Row<Cell>) -> bool {
    row.len() > 0 && row[Column(row.len() - 1)].flags.contains(Flags::WRAPLINE)
}

/// Whether `row` ends in the cell the terminal left empty where a wide character did not fit
/// and went on to the next row (alacritty's `LEADING_WIDE_CHAR_SPACER`): no text, unlike a
/// blank printed there.
pub(crate) fn ends_in_wide_spacer(row: &Row<Cell>) -> bool {
    row.len() > 0 && row[Column(row.len() - 1)].flags.contains(Flags::LEADING_WIDE_CHAR_SPACER)
}

/// The flags of the cells that stand for the second half of a wide character.
const SPACERS: Flags = Flags::WIDE_CHAR_SPACER.union(Flags::LEADING_WIDE_CHAR_SPACER);

/// Whether a cell adds text: not the spacer of a wide character, and not a blank (a tab is
/// a blank) without combining marks.
fn is_text(cell: &Cell) -> bool {
    ((cell.c != ' ' && cell.c != '\t') || has_marks(cell)) && !cell.flags.intersects(SPACERS)
}

/// Whether a cell carries combining marks. A cell's extra part can hold none: an underline
/// colour (SGR 58) or a hyperlink (OSC 8) alone, which add no text (`zerowidth` is then an
/// empty list, not `None`).
fn has_marks(cell: &Cell) -> bool {
    cell.zerowidth().is_some_and(|marks| !marks.is_empty())
}

/// Whether a cell's text is its character alone, one ASCII byte (any but a tab: a control
/// or DEL too, which a cell seldom holds): no spacer, no combining marks (nor anything else in
/// the cell's extra part).
/// Evaluated without short-circuits, so that a block of cells costs one branch.
fn is_plain_ascii(cell: &Cell) -> bool {
    cell.c.is_ascii() & (cell.c != '\t') & cell.extra.is_none() & !cell.flags.intersects(SPACERS)
}

/// The number of cells in the whole eight-cell blocks of blanks that `cells` begins with (a
/// blank here: a space, no spacer, nothing in the extra part), each block tested with one
/// branch, with fewer instructions a cell than [`copy_plain_prefix`] spends (BENCHMARKS.md
/// §29). A multiple of eight: the blanks after the last whole block are left to
/// [`copy_plain_prefix`].
fn blank_blocks(cells: &[Cell]) -> usize {
    const BLOCK: usize = 8;
    let mut taken = 0;
    for block in cells.chunks_exact(BLOCK) {
        let (mut blank, mut flags) = (true, Flags::empty());
        for cell in block {
            blank &= (cell.c == ' ') & cell.extra.is_none();
            flags |= cell.flags;
        }
        if !blank || flags.intersects(SPACERS) {
            break;
        }
        taken += BLOCK;
    }
    taken
}

/// Copies the plain-ASCII beginning of `cells` into `bytes`, a byte per cell, eight cells at
/// a time (each block checked with one branch); returns how many cells it took.
fn copy_plain_prefix(cells: &[Cell], bytes: &mut Vec<u8>) -> usize {
    const BLOCK: usize = 8;
    let mut taken = 0;
    for block in cells.chunks_exact(BLOCK) {
        // The block where the plain beginning ends is told, as a rule, by its last cell,
        // before the eight are read (BENCHMARKS.md §29).
        if !is_plain_ascii(&block[BLOCK - 1]) {
            break;
        }
        let mut chars = [0u8; BLOCK];
        // The block's characters, flags and extra parts ORed together: a character from a space
        // to `~` leaves both `c + 1` and `c - 0x20` (wrapping) below 0x80 (BENCHMARKS.md §28).
        let (mut outside, mut flags, mut extra) = (0u32, Flags::empty(), false);
        for (char, cell) in chars.iter_mut().zip(block) {
            let c = u32::from(cell.c);
            *char = c as u8;
            outside |= (c + 1) | c.wrapping_sub(0x20);
            flags |= cell.flags;
            extra |= cell.extra.is_some();
        }
        if outside >= 0x80 || flags.intersects(SPACERS) || extra {
            break;
        }
        bytes.extend_from_slice(&chars);
        taken += BLOCK;
    }
    for cell in &cells[taken..] {
        if !is_plain_ascii(cell) {
            break;
        }
        bytes.push(cell.c as u8);
        taken += 1;
    }
    taken
}

/// The position of the last cell that adds text. Trailing blanks (most of a row, as a rule)
/// are skipped eight at a time with one branch per eight, in blocks counted from the row's
/// end with no bounds check, as [`ascii_end`] skips them (BENCHMARKS.md §28).
fn last_text(cells: &[Cell]) -> Option<usize> {
    let mut end = cells.len();
    for block in cells.rchunks_exact(8) {
        let blank =
            block.iter().fold(true, |blank, cell| blank & (cell.c == ' ') & cell.extra.is_none());
        if !blank {
            break;
        }
        end -= 8;
    }
    cells[..end].iter().rposition(is_text)
}

/// Appends the text of a grid row to `out`, trailing blanks trimmed; returns the number of
/// cells the kept text covers. The trailing blanks are found first, from the end, so only the
/// cells up to the last text cell are visited.
///
/// Most rows are plain ASCII, or begin so: that part is copied a byte per cell, and only the
/// rest is encoded a character at a time (a third of the instructions on plain text:
/// BENCHMARKS.md §16).
pub fn row_text(row: &Row<Cell>, out: &mut String) -> usize {
    match last_text(&row[..]) {
        Some(last) => cells_text(&row[..], last, out),
        None => 0,
    }
}

/// Whether a grid row holds any text (a row of blanks, coloured or not, holds none).
pub(crate) fn has_text(row: &Row<Cell>) -> bool {
    last_text(&row[..]).is_some()
}

/// Whether a grid row holds text, all of it before column `col` (a prompt the cursor
/// follows).
pub(crate) fn text_ends_before(row: &Row<Cell>, col: usize) -> bool {
    last_text(&row[..]).is_some_and(|last| last < col)
}

/// Whether a grid row holds text before column `col`, whatever it holds from there on.
pub(crate) fn text_before(row: &Row<Cell>, col: usize) -> bool {
    let cells = &row[..];
    last_text(&cells[..col.min(cells.len())]).is_some()
}

/// Appends the text of a grid row as part of a logical line: like [`row_text`], except that
/// a row continued on the next one (soft-wrapped) keeps its trailing blanks, since a space
/// in its last column separates two words of the line; a spacer left where a wide character
/// did not fit is no text.
pub(crate) fn line_text(row: &Row<Cell>, out: &mut String) -> usize {
    match line_last(row) {
        Some(last) => cells_text(&row[..], last, out),
        None => 0,
    }
}

/// [`line_text`] as UTF-8 bytes, for the transcript's drain, which keeps bytes: the text is
/// encoded straight into `out`, neither made a `String` nor validated (BENCHMARKS.md §28).
pub(crate) fn line_bytes(row: &Row<Cell>, out: &mut Vec<u8>) -> usize {
    match line_last(row) {
        Some(last) => cells_bytes(&row[..], last, out),
        None => 0,
    }
}

/// The last cell of a grid row's text as part of a logical line (see [`line_text`]).
fn line_last(row: &Row<Cell>) -> Option<usize> {
    let cells = &row[..];
    if !is_wrapped(row) {
        return last_text(cells);
    }
    cells.iter().rposition(|cell| !cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER))
}

/// Appends the text of a grid row's first `cells` cells, blanks kept (the part of a row
/// before the cursor); returns the number of cells it covers.
pub(crate) fn text_of_first_cells(row: &Row<Cell>, cells: usize, out: &mut String) -> usize {
    match cells.min(row.len()) {
        0 => 0,
        cells => cells_text(&row[..], cells - 1, out),
    }
}

/// Appends the text of a grid row from cell `first` on, trailing blanks trimmed (the part of
/// a row after the cursor).
pub(crate) fn text_from_cell(row: &Row<Cell>, first: usize, out: &mut String) {
    let cells = &row[..];
    if let Some(last) = last_text(cells).filter(|&last| last >= first) {
        cells_text(&cells[first..], last - first, out);
    }
}

/// Appends the text of `cells` up to `last`; returns the number of cells it covers.
fn cells_text(cells: &[Cell], last: usize, out: &mut String) -> usize {
    let mut bytes = std::mem::take(out).into_bytes();
    let covered = cells_bytes(cells, last, &mut bytes);
    // Cannot fail: `out` was text and `cells_bytes` appends text.
    *out = String::from_utf8(bytes).unwrap_or_default();
    covered
}

/// Appends the text of `cells` up to `last` to `bytes`, UTF-8 encoded; returns the number of
/// cells it covers. The plain-ASCII beginning is copied a byte a cell, the rest encoded a
/// character at a time ([`push_utf8`]).
fn cells_bytes(cells: &[Cell], last: usize, bytes: &mut Vec<u8>) -> usize {
    let kept = &cells[..=last];
    bytes.reserve(kept.len());
    // A row's blank beginning (where a line printed without a carriage return began, or an
    // indentation) tested a block at a time and written as spaces in one go.
    let blank = blank_blocks(kept);
    bytes.resize(bytes.len() + blank, b' ');
    let plain = blank + copy_plain_prefix(&kept[blank..], bytes);
    for cell in &kept[plain..] {
        if cell.flags.intersects(SPACERS) {
            continue;
        }
        push_utf8(bytes, if cell.c == '\t' { ' ' } else { cell.c });
        if let Some(marks) = cell.zerowidth() {
            marks.iter().for_each(|&mark| push_utf8(bytes, mark));
        }
    }
    last + if cells[last].flags.contains(Flags::WIDE_CHAR) { 2 } else { 1 }
}

/// Appends `c` to `bytes` UTF-8 encoded, each length written as a fixed array (one room check
/// and a store or two, where `String::push` finds the length, then writes byte by byte after
/// a second chain of compares: BENCHMARKS.md §28).
#[inline(always)]
fn push_utf8(bytes: &mut Vec<u8>, c: char) {
    let code = u32::from(c);
    // The bits of a continuation byte: six of `code`, from bit `shift`.
    let next = |shift: u32| 0x80 | ((code >> shift) & 0x3f) as u8;
    if code < 0x80 {
        bytes.push(code as u8);
    } else if code < 0x800 {
        bytes.extend_from_slice(&[0xc0 | (code >> 6) as u8, next(0)]);
    } else if code < 0x1_0000 {
        bytes.extend_from_slice(&[0xe0 | (code >> 12) as u8, next(6), next(0)]);
    } else {
        bytes.extend_from_slice(&[0xf0 | (code >> 18) as u8, next(12), next(6), next(0)]);
    }
}

/// Appends the text of `row` as part of a logical line, a byte a cell, when every cell up to
/// its last non-blank one (every cell, when the row is soft-wrapped) holds a printable ASCII
/// character, and returns `true`; otherwise returns `false` with `out` as it was, and the
/// caller takes [`line_text`]. Every byte it appends is printable ASCII, so `out` stays text
/// if it was.
///
/// Only the characters are checked, not the cells' flags and marks: the caller must know that
/// the grid holds no wide character, spacer or combining mark ([`holds_wide_or_marked`]), whose
/// cells can have ASCII characters (a spacer is a blank) but other text.
pub(crate) fn ascii_line_text(row: &Row<Cell>, out: &mut Vec<u8>) -> bool {
    let cells = &row[..];
    let kept = if is_wrapped(row) { cells } else { &cells[..ascii_end(cells)] };
    let start = out.len();
    let mut outside = false;
    out.extend(kept.iter().map(|cell| {
        let c = u32::from(cell.c);
        // Not from a space to `~`: a tab, a control or anything non-ASCII.
        outside |= c.wrapping_sub(0x20) > 0x5e;
        c as u8
    }));
    if outside {
        out.truncate(start);
    }
    !outside
}

/// The end of the cells up to the last one whose character is not a space, trailing spaces
/// skipped eight at a time, in blocks counted from the row's end, with no bounds check (2.5
/// instructions a cell against 3.5 four at a time: BENCHMARKS.md §26).
fn ascii_end(cells: &[Cell]) -> usize {
    let mut end = cells.len();
    for block in cells.rchunks_exact(8) {
        if !block.iter().fold(true, |blank, cell| blank & (cell.c == ' ')) {
            break;
        }
        end -= 8;
    }
    while end > 0 && cells[end - 1].c == ' ' {
        end -= 1;
    }
    end
}

/// Whether the screen of `grid` holds a wide character, its spacer, or a combining mark.
pub(crate) fn holds_wide_or_marked(grid: &Grid<Cell>) -> bool {
    let wide = Flags::WIDE_CHAR.union(SPACERS);
    (0..grid.screen_lines()).any(|line| {
        grid[Line(line as i32)][..]
            .iter()
            .any(|cell| cell.flags.intersects(wide) || has_marks(cell))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::vte::ansi::{Color, NamedColor};

    /// Puts one kind of cell in the first cell, which may make the second its spacer.
    type Kind = dyn Fn(&mut Cell, &mut Cell);

    /// The text of `cells` up to `last` a character at a time, as `cells_text` defines it.
    fn reference(cells: &[Cell], last: usize) -> String {
        let mut text = String::new();
        for cell in cells[..=last].iter().filter(|cell| !cell.flags.intersects(SPACERS)) {
            text.push(if cell.c == '\t' { ' ' } else { cell.c });
            text.extend(cell.zerowidth().unwrap_or_default());
        }
        text
    }

    /// A row of `cols` cells, `put` applied to each with its column.
    fn row(cols: usize, put: impl Fn(usize, &mut Cell)) -> Row<Cell> {
        let mut row = Row::new(cols);
        for col in 0..cols {
            put(col, &mut row[Column(col)]);
        }
        row
    }

    /// Every kind of cell the general path takes, at every position after a plain beginning of
    /// every length (0 to 17: the 8-cell blocks and the cells after them), and cells with more
    /// combining marks than four bytes hold (a layout that gave each cell four bytes of room was
    /// tried, BENCHMARKS.md §25), at the end of the row or before other cells.
    #[test]
    fn rows_encoded_a_character_at_a_time_match_the_characters() {
        let kinds: [&Kind; 10] = [
            &|cell, _| cell.c = '\t',
            &|cell, _| cell.c = '\u{1}',
            &|cell, _| cell.c = '\u{7f}',
            &|cell, _| cell.c = 'é',
            &|cell, spacer| {
                cell.c = '中';
                cell.flags.insert(Flags::WIDE_CHAR);
                spacer.flags.insert(Flags::WIDE_CHAR_SPACER);
            },
            &|cell, spacer| {
                cell.c = '😀';
                cell.flags.insert(Flags::WIDE_CHAR);
                spacer.flags.insert(Flags::WIDE_CHAR_SPACER);
            },
            &|cell, _| {
                cell.c = 'e';
                cell.push_zerowidth('\u{301}');
            },
            // Forty marks of three bytes: 120 bytes on one cell.
            &|cell, _| {
                cell.c = 'a';
                (0..40).for_each(|_| cell.push_zerowidth('\u{20dd}'));
            },
            // An extra part without marks.
            &|cell, _| cell.set_underline_color(Some(Color::Named(NamedColor::Red))),
            &|cell, _| {
                cell.c = ' ';
                cell.flags.insert(Flags::LEADING_WIDE_CHAR_SPACER);
            },
        ];
        const COLS: usize = 24;
        for (k, kind) in kinds.iter().enumerate() {
            for plain in 0..=17 {
                for after in [0, 1, 4] {
                    let cols = plain + 2 + after;
                    assert!(cols <= COLS);
                    let mut row = row(COLS, |col, cell| {
                        cell.c = if col < cols { char::from(b'a' + (col % 26) as u8) } else { ' ' };
                        if col == cols - 1 {
                            // The line goes on on the next row: every cell is kept.
                            cell.flags.insert(Flags::WRAPLINE);
                        }
                    });
                    let (head, tail) = row[..].split_at_mut(plain + 1);
                    kind(&mut head[plain], &mut tail[0]);
                    let last = cols - 1;
                    let expected = reference(&row[..], last);
                    for start in ["", "→ 前の"] {
                        let mut out = String::from(start);
                        cells_text(&row[..], last, &mut out);
                        assert_eq!(
                            out,
                            format!("{start}{expected}"),
                            "kind {k}, plain {plain}, after {after}"
                        );
                    }
                    let cells = &row[..];
                    let from = last_text(cells).filter(|&end| end >= plain);
                    let expected =
                        from.map_or(String::new(), |end| reference(&cells[plain..], end - plain));
                    let mut out = String::new();
                    text_from_cell(&row, plain, &mut out);
                    assert_eq!(
                        out, expected,
                        "kind {k}, plain {plain}, after {after}, from the cell"
                    );
                }
            }
        }
    }

    /// A row's blank beginning of every length (0 to 20: whole eight-cell blocks and the
    /// blanks after them), then one cell of every kind that is not a plain blank (a space with
    /// a combining mark, with an extra part without marks, a wide character's spacer, a tab, a
    /// letter, a two-byte character), then text: encoded as a character at a time encodes it.
    #[test]
    fn a_blank_beginning_of_every_length_is_encoded_as_its_cells() {
        let odd: [&dyn Fn(&mut Cell); 6] = [
            &|cell| cell.push_zerowidth('\u{301}'),
            &|cell| cell.set_underline_color(Some(Color::Named(NamedColor::Red))),
            &|cell| cell.flags.insert(Flags::WIDE_CHAR_SPACER),
            &|cell| cell.c = '\t',
            &|cell| cell.c = 'x',
            &|cell| cell.c = 'é',
        ];
        for blanks in 0..=20 {
            for (k, put) in odd.iter().enumerate() {
                let row = row(32, |col, cell| match col {
                    _ if col == blanks => put(cell),
                    _ if col > blanks && col < blanks + 4 => cell.c = 'a',
                    _ => {}
                });
                let last = blanks + 3;
                let mut out = String::from("前");
                cells_text(&row[..], last, &mut out);
                assert_eq!(out, format!("前{}", reference(&row[..], last)), "{blanks} kind {k}");
                assert_eq!(blank_blocks(&row[..]), blanks / 8 * 8, "{blanks} kind {k}");
            }
        }
    }

    /// Many marks on every cell, more than four bytes each.
    #[test]
    fn a_row_of_marked_cells_is_encoded_whole() {
        let row = row(80, |col, cell| {
            cell.c = 'ä';
            (0..col % 7).for_each(|_| cell.push_zerowidth('\u{1d167}'));
        });
        let mut out = String::new();
        row_text(&row, &mut out);
        assert_eq!(out, reference(&row[..], 79));
    }

    /// `push_utf8` writes every character as `char::encode_utf8` does, the first and last of
    /// each length among them.
    #[test]
    fn characters_are_encoded_as_the_standard_library_encodes_them() {
        let mut bytes = Vec::new();
        let mut buf = [0; 4];
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            bytes.clear();
            bytes.push(b'>');
            push_utf8(&mut bytes, c);
            assert_eq!(&bytes[1..], c.encode_utf8(&mut buf).as_bytes(), "{:#x}", u32::from(c));
        }
    }

    /// `line_bytes` appends what `line_text` appends, for rows wrapped or not, after text.
    #[test]
    fn a_row_encoded_as_bytes_is_its_text() {
        for wrapped in [false, true] {
            let row = row(30, |col, cell| {
                cell.c = match col % 5 {
                    _ if col >= 20 => ' ',
                    0 => 'ñ',
                    1 => '\t',
                    2 => '😀',
                    _ => 'x',
                };
                if col == 29 && wrapped {
                    cell.flags.insert(Flags::WRAPLINE);
                }
            });
            let mut text = String::from("前");
            let mut bytes = text.clone().into_bytes();
            assert_eq!(line_text(&row, &mut text), line_bytes(&row, &mut bytes));
            assert_eq!(bytes, text.as_bytes(), "wrapped: {wrapped}");
        }
    }

    /// A character just outside printable ASCII (a control, DEL, a C1 control, the first
    /// non-ASCII ones) anywhere in an eight-cell block stops the block copy, so a row's bytes
    /// stay its text, UTF-8 (U+0080 copied as the byte 0x80 would not be; review wv).
    #[test]
    fn a_block_with_a_character_outside_printable_ascii_is_not_copied_as_bytes() {
        for odd in ['\u{1f}', '\u{7f}', '\u{80}', '\u{9f}', '\u{a0}', 'é'] {
            for at in 0..16 {
                let row = row(16, |col, cell| cell.c = if col == at { odd } else { 'a' });
                let (mut text, mut bytes) = (String::new(), Vec::new());
                line_text(&row, &mut text);
                line_bytes(&row, &mut bytes);
                assert_eq!(bytes, text.as_bytes(), "{odd:?} at {at}");
            }
        }
    }

    /// The last cell that adds text as `last_text` finds it, blanks skipped eight at a time from
    /// the end, is the one a cell-at-a-time search finds, for every row length from 1 to 40,
    /// every place of the last text cell (or none), and blanks that are not plain (a mark, an
    /// extra part without marks, a tab, a spacer) after it.
    #[test]
    fn the_last_text_cell_is_found_at_every_length_and_position() {
        let blanks: [&dyn Fn(&mut Cell); 5] = [
            &|_| {},
            // A blank with a combining mark: text.
            &|cell| cell.push_zerowidth('\u{301}'),
            &|cell| cell.set_underline_color(Some(Color::Named(NamedColor::Red))),
            &|cell| cell.c = '\t',
            &|cell| cell.flags.insert(Flags::WIDE_CHAR_SPACER),
        ];
        for cols in 1..=40 {
            for last in (0..cols).map(Some).chain([None]) {
                for (b, blank) in blanks.iter().enumerate() {
                    let row = row(cols, |col, cell| match last {
                        Some(last) if col == last => cell.c = 'x',
                        Some(last) if col < last && col % 3 == 0 => cell.c = 'a',
                        Some(last) if col == last + 3 || col == cols - 1 => blank(cell),
                        _ => {}
                    });
                    let expected = row[..].iter().rposition(is_text);
                    assert_eq!(last_text(&row[..]), expected, "{cols} {last:?} blank {b}");
                }
            }
        }
    }

    /// The end of a row's text as `ascii_end` finds it, blocks of eight from the end, is the
    /// one after its last non-space character, for every row length from 1 to 40 and every place of
    /// that character (and none).
    #[test]
    fn the_end_of_ascii_text_is_found_at_every_length_and_position() {
        for cols in 1..=40 {
            for last in (0..cols).map(Some).chain([None]) {
                let row = row(cols, |col, cell| {
                    cell.c = match (Some(col) == last, col % 3) {
                        (true, _) => 'x',
                        (false, 0) if last.is_some_and(|last| col < last) => 'a',
                        _ => ' ',
                    }
                });
                assert_eq!(ascii_end(&row[..]), last.map_or(0, |last| last + 1), "{cols} {last:?}");
            }
        }
    }
}
