//! What changed between two frames: rows, a block of rows that moved, a block that slid
//! sideways, and the text that tells the caller so.

use super::*;

/// Numbers for what two frames' cells show beyond a character's code, the same in both:
/// characters with marks of no width, and marks' labels.
#[derive(Default)]
pub(super) struct CellNumbers {
    clusters: HashMap<String, u32>,
    pub(super) labels: HashMap<String, u32>,
}

impl CellNumbers {
    /// A character and its marks of no width: the character's code when it has none, else
    /// a number past every character's.
    pub(super) fn cluster(&mut self, cluster: &str) -> u64 {
        let mut chars = cluster.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return u64::from(c);
        }
        let next = 0x11_0000 + self.clusters.len() as u32;
        u64::from(*self.clusters.entry(cluster.to_owned()).or_insert(next))
    }

    /// A mark's label: a number from 1 on.
    pub(super) fn label(&mut self, label: &str) -> u64 {
        let next = 1 + self.labels.len() as u32;
        u64::from(*self.labels.entry(label.to_owned()).or_insert(next))
    }
}

/// The changes of `frame` since `seen`, the caller's `look`-th last look. The cursor's row is
/// listed when the cursor moved onto it, and when a moved block ends on it (the caller's
/// copy of the block has no mark there); the row the caller saw the cursor marked on is
/// listed when the cursor left it (the caller's copy holds a mark that is gone).
pub(super) fn changes_since(frame: &Frame, seen: &Frame, look: u8) -> Changes {
    let moved = find_move(frame, seen);
    let in_block = |row: u16| moved.is_some_and(|m| (m.to..m.to + m.count).contains(&row));
    let cursor_row = frame.cursor.row;
    let cursor_news =
        frame.cursor_marked() && (frame.cursor != seen.cursor || in_block(cursor_row));
    let mark_left = (seen.cursor_marked() && seen.cursor != frame.cursor)
        .then_some(seen.cursor.row)
        .filter(|&row| !in_block(row));
    // A row of the block is kept when it holds the row it moved from (rows between those may
    // differ: see `find_move`), another when it holds what the seen row there held.
    let marked = seen.cursor_marked().then_some(seen.cursor.row);
    let kept = |row: u16| match moved.filter(|_| in_block(row)) {
        Some(Moved { from, to, .. }) => {
            let was = from + (row - to);
            marked != Some(was) && frame.same_row(usize::from(row), seen, usize::from(was))
        }
        None => frame.same_row(usize::from(row), seen, usize::from(row)),
    };
    let listed = |row: u16| {
        let kept = kept(row);
        !kept || cursor_news && row == cursor_row || mark_left == Some(row)
    };
    // A row listed for the cursor or a mark that left it is listed whole.
    let cursor_mark = |row: u16, frame: &Frame| frame.cursor_marked() && row == frame.cursor.row;
    let whole = |row: u16| in_block(row) || cursor_mark(row, frame) || cursor_mark(row, seen);
    let slides = |row: u16| listed(row) && !whole(row);
    let slid = find_slide(frame, seen, slides);
    let rows: Vec<u16> = (0..frame.rows).filter(|&row| listed(row)).collect();
    let cut = find_cuts(frame, seen, &rows, whole, slid);
    Changes { look, moved, slid, rows, title_changed: frame.title != seen.title, cut }
}

/// The fewest bytes showing a listed row only up to its padding must save (see [`find_cuts`]).
const CUT_MIN_SAVED: usize = 16;

/// The listed rows of `frame` (`rows`, but those to be shown `whole` and those that `slid`)
/// to show only up to the blanks before their end, with the column they are cut at: a row
/// whose last run of blanks with text after it starts after a character, and whose cells from
/// there on (the blanks, what follows them, marks included) are those of the same row on
/// `seen`, when that saves [`CUT_MIN_SAVED`] bytes or more (a box's right border and the
/// padding before it: a source line in gdb's TUI gaining or losing its highlight, 50 bytes of
/// blanks). None unless the cuts save more than the header's [`CUT_CLAUSE`], nor when a row
/// listed otherwise ends in [`CUT_MARK`] (it would read as cut).
pub(super) fn find_cuts(
    frame: &Frame,
    seen: &Frame,
    rows: &[u16],
    whole: impl Fn(u16) -> bool,
    slid: Option<Slid>,
) -> Vec<(u16, u16)> {
    let slides = |row: u16| slid.is_some_and(|slid| slid.holds(row));
    let candidates: Vec<usize> = rows
        .iter()
        .filter(|&&row| !whole(row) && !slides(row))
        .map(|&row| usize::from(row))
        .collect();
    if candidates.is_empty() || frame.cols != seen.cols {
        return Vec::new();
    }
    let wanted = |row: usize| candidates.binary_search(&row).is_ok();
    let mut numbers = CellNumbers::default();
    let (now, then) = (frame.cells_of(wanted, &mut numbers), seen.cells_of(wanted, &mut numbers));
    let blank = |cell: &u64| *cell as u32 == u32::from(' ');
    let mut cuts = Vec::new();
    let mut saved = 0;
    for &row in &candidates {
        let (Some(now), Some(then)) = (now.get(row), then.get(row)) else { continue };
        if now.len() != then.len() {
            continue;
        }
        let same = now.iter().rev().zip(then.iter().rev()).take_while(|(a, b)| a == b).count();
        // The last character, the start of the text it ends, and the blanks before that.
        let Some(last) = now.iter().rposition(|cell| !blank(cell)) else { continue };
        let text = now[..last].iter().rposition(blank).map_or(0, |at| at + 1);
        let Some(pad) = now[..text].iter().rposition(|cell| !blank(cell)).map(|at| at + 1) else {
            continue;
        };
        if pad < now.len() - same {
            continue;
        }
        // Only where no marked run goes on across the cut, on either screen (an inverse
        // character, then blanks on a background: `⟦⟦X⟧      ⟧`): the shown part would close
        // the run the seen row's rest opens again, a row not read the way it was drawn.
        let shown = frame.window(row, 0, pad as u16);
        let rest = seen.window(row, pad as u16, seen.cols);
        if !frame.line(row).starts_with(&shown) || !seen.line(row).ends_with(&rest) {
            continue;
        }
        let shown = shown.len() + CUT_MARK.len_utf8();
        let saves = frame.line(row).len().saturating_sub(shown);
        if saves >= CUT_MIN_SAVED {
            cuts.push((row as u16, pad as u16));
            saved += saves;
        }
    }
    let cut = |row: u16| cuts.iter().any(|&(at, _)| at == row);
    // (A row that slid is shown as a window of it: any `…` in it may end that window.)
    let misread = rows.iter().filter(|&&row| !cut(row)).any(|&row| {
        let line = frame.line(usize::from(row));
        if slides(row) { line.contains(CUT_MARK) } else { line.ends_with(CUT_MARK) }
    });
    match saved > CUT_CLAUSE.len() && !misread {
        true => cuts,
        false => Vec::new(),
    }
}

/// The most blanks put before the cursor's mark past the end of its row's text; a cursor
/// farther out is told in the header instead (`cursor row 23 col 79`, 20 bytes).
pub(super) const MAX_CURSOR_PAD: usize = 16;

/// Screens with more cells times columns than this are not searched for rows that slid
/// sideways (the search compares each row with itself at every shift).
const SLIDE_SEARCH_CELLS: usize = 1 << 22;

/// The fewest characters (not blanks) a row that slid keeps: one or two, a box's border (the
/// left one kept as the right one, gdb's TUI window given new text), are no text that moved.
const SLIDE_MIN_KEPT: usize = 3;

/// About the bytes the header's note of a block of rows that slid takes.
pub(super) const SLIDE_NOTE: usize = 100;

/// How many spans of columns between fixed margins are searched for rows that slid, besides
/// the whole row.
const MARGIN_SPANS: usize = 2;

/// The rows a block that slid sideways may have moved down (negative: up) as well, searched in
/// this order: a list that gained or lost a row or two at its top as a panel opened beside it.
pub(super) const SLIDE_ROWS_DOWN: [i16; 5] = [0, 1, -1, 2, -2];

/// The block of consecutive rows, each of which `may_slide`, whose cells in a span of columns
/// hold what they held on `seen` (not blanks only), marks included, moved some columns
/// sideways, their other cells the same, and saves the most bytes (at least two rows, and
/// more bytes than the header's note of it; the shift the smallest on a tie).
pub(super) fn find_slide(
    frame: &Frame,
    seen: &Frame,
    may_slide: impl Fn(u16) -> bool,
) -> Option<Slid> {
    let cols = usize::from(frame.cols);
    let rows = usize::from(frame.rows).min(frame.texts.len()).min(seen.texts.len());
    let cost = rows * cols * cols;
    if cost > SLIDE_SEARCH_CELLS || frame.cols != seen.cols {
        return None;
    }
    // Rows that moved down or up as well are searched only where the bound holds for all.
    let downs = match cost * SLIDE_ROWS_DOWN.len() <= SLIDE_SEARCH_CELLS {
        true => &SLIDE_ROWS_DOWN[..],
        false => &SLIDE_ROWS_DOWN[..1],
    };
    let mut numbers = CellNumbers::default();
    let (now, then) = (frame.cells(&mut numbers), seen.cells(&mut numbers));
    // (bytes saved, the block)
    let mut best: Option<(usize, Slid)> = None;
    for &down in downs {
        // The seen row row `row` came from, when there is one.
        let from = |row: usize| {
            let was = row as isize - isize::from(down);
            (0..rows as isize).contains(&was).then_some(was as usize)
        };
        let may = |row: usize| may_slide(row as u16) && from(row).is_some();
        let spans = slide_spans(&now, &then, cols, from, may);
        for (from_col, to_col) in spans {
            let span = (from_col as u16, to_col as u16);
            // The rows that slid by each shift, in the order shifts are preferred on a tie
            // (the smaller first, to the right before to the left), with the bytes each saves.
            let mut slides: BTreeMap<(u16, bool), Vec<(usize, usize)>> = BTreeMap::new();
            for row in (0..rows).filter(|&row| may(row)) {
                let Some(was) = from(row) else { continue };
                let (now, then) = (&now[row], &then[was]);
                for by in shifts(now, then, span) {
                    let slid =
                        Slid { first: 0, count: 0, by, from_col: span.0, to_col: span.1, down };
                    if let Some(saved) = slide_saves(frame, now, then, row, &slid) {
                        slides.entry((by.unsigned_abs(), by < 0)).or_default().push((row, saved));
                    }
                }
            }
            for ((shift, left), slid_rows) in slides {
                let by = if left { -(shift as i16) } else { shift as i16 };
                let slid = Slid { first: 0, count: 0, by, from_col: span.0, to_col: span.1, down };
                // Runs of consecutive rows.
                let mut runs: Vec<(usize, usize, usize)> = Vec::new();
                for (row, saved) in slid_rows {
                    match runs.last_mut() {
                        Some((first, count, total)) if *first + *count == row => {
                            *count += 1;
                            *total += saved;
                        }
                        _ => runs.push((row, 1, saved)),
                    }
                }
                for (first, count, saved) in runs {
                    if count >= 2 && saved > SLIDE_NOTE && best.is_none_or(|(most, _)| saved > most)
                    {
                        let block = Slid { first: first as u16, count: count as u16, ..slid };
                        best = Some((saved, block));
                    }
                }
            }
        }
    }
    best.map(|(_, block)| block)
}

/// The shifts by which row `now` may have slid from the seen row `then` within the columns
/// `span`: its first character in the span found again that many columns to the right
/// (positive), or the row's found again that many to the left on the seen row (negative). A
/// slide keeps a character, so every shift it can have is among these; most rows have few.
pub(super) fn shifts(now: &[u64], then: &[u64], span: (u16, u16)) -> Vec<i16> {
    let (from, to) = (usize::from(span.0), usize::from(span.1).min(now.len()).min(then.len()));
    let shown = |cell: &u64| *cell as u32;
    let mut shifts = Vec::new();
    // (the row whose first character is looked for, the row it is looked for on, the sign)
    for (row, on, sign) in [(then, now, 1), (now, then, -1)] {
        let span = row.get(from..to).unwrap_or_default();
        let Some(at) = span.iter().position(|cell| shown(cell) != u32::from(' ')) else {
            continue;
        };
        let at = from + at;
        let again = ((at + 1)..to).filter(|&again| shown(&on[again]) == shown(&row[at]));
        shifts.extend(again.map(|again| sign * (again - at) as i16));
    }
    shifts
}

/// The bytes row `row` saves if it `slid` (its `first` and `count` aside): its cells outside
/// the span are those of the seen row it came from (`then`), its kept cells too, marks
/// included up to the row's last character, and they hold [`SLIDE_MIN_KEPT`] characters or
/// more that are not blanks; no wide character
/// is cut at the new columns' edges; the new columns take the bytes they are shown in.
pub(super) fn slide_saves(
    frame: &Frame,
    now: &[u64],
    then: &[u64],
    row: usize,
    slid: &Slid,
) -> Option<usize> {
    let cols = usize::from(frame.cols);
    let (from_col, to_col) = (usize::from(slid.from_col), usize::from(slid.to_col));
    let blank = |cell: &u64| *cell as u32 == u32::from(' ');
    let cut = |at: u16| now.get(usize::from(at)).is_some_and(|c| *c as u32 == u32::MAX);
    let ((kept_from, kept_to), (then_from, then_to)) = slid.kept();
    let (new_from, new_to) = slid.new_columns();
    let kept = &now[usize::from(kept_from)..usize::from(kept_to)];
    let was = &then[usize::from(then_from)..usize::from(then_to)];
    if kept.iter().filter(|cell| !blank(cell)).count() < SLIDE_MIN_KEPT {
        return None;
    }
    // Marks count up to the row's last character (a caller drops them after it, where they
    // end with the text).
    let text_end = match frame.styles == Styles::Meaningful {
        true => now.iter().rposition(|cell| !blank(cell)).map_or(0, |at| at + 1),
        false => cols,
    };
    let marked = text_end.saturating_sub(usize::from(kept_from)).min(kept.len());
    let same = kept[..marked] == was[..marked]
        && kept[marked..].iter().zip(&was[marked..]).all(|(a, b)| *a as u32 == *b as u32)
        && !cut(new_from)
        && !cut(new_to)
        && now[..from_col] == then[..from_col]
        && now[to_col..] == then[to_col..];
    // (Bytes, as the row's: a box-drawing character or a mark takes more than its cell.)
    same.then(|| frame.line(row).len().saturating_sub(frame.window(row, new_from, new_to).len()))
}

/// The spans of columns to search for rows that slid, on rows `cols` wide: the whole row,
/// then those between the fixed margins (cells the same at the same place at a row's start
/// and at the seen row's it came `from`, such as a pager's `>` marks or a line-number column)
/// that the most rows that `may_slide` have, up to [`MARGIN_SPANS`] of them.
pub(super) fn slide_spans(
    now: &[Vec<u64>],
    then: &[Vec<u64>],
    cols: usize,
    from: impl Fn(usize) -> Option<usize>,
    may_slide: impl Fn(usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut counts: HashMap<(usize, usize), usize> = HashMap::new();
    let rows = (0..now.len()).filter(|&row| may_slide(row));
    let pairs = rows.filter_map(|row| Some((&now[row], then.get(from(row)?)?)));
    for (now, then) in pairs {
        let start = now.iter().zip(then).take_while(|(a, b)| a == b).count();
        let end = now.iter().rev().zip(then.iter().rev()).take_while(|(a, b)| a == b).count();
        if (start, end) != (0, 0) && start + end + 2 <= cols {
            *counts.entry((start, cols - end)).or_default() += 1;
        }
    }
    let mut spans: Vec<((usize, usize), usize)> = counts.into_iter().collect();
    spans.sort_by_key(|&(span, rows)| (std::cmp::Reverse(rows), span));
    std::iter::once((0, cols))
        .chain(spans.into_iter().take(MARGIN_SPANS).map(|(span, _)| span))
        .collect()
}

/// The most rows in a row inside a block that moved that may hold other than the rows they
/// moved from (they are listed besides): a source window that scrolled, its highlight moved to
/// another line (gdb's TUI at a `next` that scrolls it), is one block, not two halves.
pub(super) const MOVE_GAP: usize = 2;

/// The block of `seen`'s rows that is on `frame` again at another place and saves the most
/// rows with text that would otherwise be sent (at least two), if any; up to [`MOVE_GAP`]
/// rows in a row inside it may hold something else. The row the caller saw the cursor marked
/// on is no moved part of a block (its copy holds the mark).
pub(super) fn find_move(frame: &Frame, seen: &Frame) -> Option<Moved> {
    let rows = frame.lines.len().min(seen.lines.len());
    if rows > MOVE_SEARCH_ROWS {
        return None;
    }
    let marked = seen.cursor_marked().then_some(usize::from(seen.cursor.row));
    // (rows saved, the block)
    let mut best: Option<(usize, Moved)> = None;
    for shift in 1..rows {
        for (from_start, to_start) in [(shift, 0), (0, shift)] {
            // Row `to_start + i` now holds what row `from_start + i` held: walk the runs.
            let moved_row = |i: usize| {
                marked != Some(from_start + i) && frame.same_row(to_start + i, seen, from_start + i)
            };
            // Rows at the block's ends that are where they were, or blank, or not moved, are
            // no part of it; but blank rows that moved right next to its ends are, where their
            // places held something else (left out, they were listed as blank rows changed, at
            // each of less's one-line scrolls).
            let in_place = |at: usize| frame.same_row(to_start + at, seen, to_start + at);
            let blank = |at: usize| frame.lines[to_start + at].is_empty();
            let still = |at: usize| blank(at) || in_place(at) || !moved_row(at);
            let blank_moved = |at: usize| blank(at) && moved_row(at) && !in_place(at);
            // (first row, the row after the last moved one, rows saved)
            let mut run: Option<(usize, usize, usize)> = None;
            let mut gap = 0;
            for i in 0..=rows - shift {
                if i < rows - shift && moved_row(i) {
                    let text = !frame.lines[to_start + i].is_empty();
                    let saves =
                        usize::from(text && !frame.same_row(to_start + i, seen, to_start + i));
                    run = Some(match run {
                        Some((first, _, saved)) => (first, i + 1, saved + saves),
                        None => (i, i + 1, saves),
                    });
                    gap = 0;
                    continue;
                }
                gap += 1;
                if gap <= MOVE_GAP && i < rows - shift {
                    continue;
                }
                gap = 0;
                let Some((mut first, mut end, saved)) = run.take() else { continue };
                if saved >= 2 && best.is_none_or(|(most, _)| saved > most) {
                    let (run_first, run_end) = (first, end);
                    while first < end && still(first) {
                        first += 1;
                    }
                    while end > first && still(end - 1) {
                        end -= 1;
                    }
                    while first > run_first && blank_moved(first - 1) {
                        first -= 1;
                    }
                    while end < run_end && blank_moved(end) {
                        end += 1;
                    }
                    let block = Moved {
                        from: (from_start + first) as u16,
                        to: (to_start + first) as u16,
                        count: (end - first) as u16,
                    };
                    best = Some((saved, block));
                }
            }
        }
    }
    best.map(|(_, block)| block)
}

/// A screen told as its changes since one the caller saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Since which screen: 1 the one the caller saw last, 2 the one it saw before that, and so
    /// on up to [`LOOKS_KEPT`].
    pub(crate) look: u8,
    /// A block of rows that moved.
    pub(crate) moved: Option<Moved>,
    /// A block of the listed rows that slid sideways: only their new columns are shown.
    pub(crate) slid: Option<Slid>,
    /// The rows that differ from that look, besides the block that moved, numbered.
    pub(crate) rows: Vec<u16>,
    /// The window title differs from that look's.
    pub(crate) title_changed: bool,
    /// Listed rows shown only up to the blanks before their end, and the column each is cut
    /// at: from there on the row is as on that look (see [`find_cuts`]).
    pub(crate) cut: Vec<(u16, u16)>,
}

impl Changes {
    /// The look whose screen the caller is told this one is (`unchanged since your last
    /// look`, `the same as the screen you saw N different screens ago`): no row changed and
    /// none moved, whatever the look notes that it is not shown (a hidden cursor's place,
    /// the styles a read asked for).
    pub(crate) fn told_same(&self) -> Option<u8> {
        (self.rows.is_empty() && self.moved.is_none()).then_some(self.look)
    }

    /// About the bytes the changes take in a result: the header's note, and each row with its
    /// number (`12│`).
    pub(super) fn cost(&self, frame: &Frame) -> usize {
        let note = match self.moved {
            Some(_) => 80,
            None => 35,
        };
        let note = note + self.slid.map_or(0, |_| SLIDE_NOTE);
        let note = note + if self.cut.is_empty() { 0 } else { CUT_CLAUSE.len() };
        let number = |row: u16| row.checked_ilog10().unwrap_or(0) as usize + 1;
        let rows: usize =
            self.rows.iter().map(|&row| number(row) + 4 + self.row_text(frame, row).len()).sum();
        note + usize::from(self.look - 1) * 20 + rows
    }

    /// How many rows are listed whole (not as the new columns of a row that slid).
    pub(super) fn whole_rows(&self) -> usize {
        self.rows.iter().filter(|&&row| !self.slid.is_some_and(|slid| slid.holds(row))).count()
    }

    /// What is shown of listed row `row`: the whole row, the new columns of a row that
    /// slid, or a row cut before its padding, [`CUT_MARK`] after it.
    pub(super) fn row_text<'f>(&self, frame: &'f Frame, row: u16) -> std::borrow::Cow<'f, str> {
        let cut = self.cut.iter().find(|&&(at, _)| at == row);
        match (self.slid, cut) {
            (Some(slid), _) if slid.holds(row) => {
                let (from, to) = slid.new_columns();
                frame.window(usize::from(row), from, to).into()
            }
            (_, Some(&(_, col))) => {
                let mut shown = frame.window(usize::from(row), 0, col);
                shown.push(CUT_MARK);
                shown.into()
            }
            _ => frame.line(usize::from(row)).into(),
        }
    }

    /// What the screen block's header says of them.
    pub(crate) fn changed(&self) -> Changed {
        Changed {
            rows: self.rows.len(),
            look: self.look,
            moved: self.moved,
            slid: self.slid,
            title_changed: self.title_changed,
            cut: !self.cut.is_empty(),
        }
    }
}

/// Which of a screen's rows to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every row (trailing empty rows below the cursor left out).
    Whole,
    /// The changes since a screen the caller saw (no rows: none besides a moved block).
    Changes(Changes),
}

/// A row as a caller reads it off a screen's text, cell by cell: each cell's text (a wide
/// character's second cell empty, marks of no width with the cell before them), whether it is
/// marked, and the cursor mark's column when the row holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReadRow {
    pub(super) cells: Vec<String>,
    pub(super) marked: Vec<bool>,
    pub(super) cursor: Option<usize>,
}

impl ReadRow {
    /// A whole row as shown, `cols` cells wide: marks end with its text.
    pub(super) fn whole(line: &str, cols: usize) -> ReadRow {
        let mut row = ReadRow::parse(line, cols);
        row.end_marks();
        row
    }

    /// `line` as shown (`⟦` `⟧` marks without labels, [`CURSOR_MARK`]), `cols` cells wide.
    fn parse(line: &str, cols: usize) -> ReadRow {
        let mut row = ReadRow { cells: Vec::new(), marked: Vec::new(), cursor: None };
        // (Marks nest: an inverse character inside a run on a background, `⟦⟦X⟧  ⟧`.)
        let mut depth = 0usize;
        for c in line.chars() {
            let on = depth > 0;
            match c {
                OPEN => depth += 1,
                CLOSE => depth = depth.saturating_sub(1),
                CURSOR_MARK => row.cursor = Some(row.cells.len()),
                c => match char_cells(c) {
                    0 => match row.cells.last_mut() {
                        Some(cell) => cell.push(c),
                        None => row.cells.push(c.to_string()),
                    },
                    width => {
                        row.cells.push(c.to_string());
                        row.marked.push(on);
                        for _ in 1..width {
                            row.cells.push(String::new());
                            row.marked.push(on);
                        }
                    }
                },
            }
            row.marked.resize(row.cells.len(), depth > 0);
        }
        row.cells.resize(cols, " ".to_owned());
        row.marked.resize(cols, false);
        row
    }

    /// Marks end with the row's text (screens mark no blank past it).
    fn end_marks(&mut self) {
        let end = self.cells.iter().rposition(|c| c != " " && !c.is_empty()).map_or(0, |at| at + 1);
        self.marked[end..].fill(false);
    }

    /// The row as one line: marked cells in upper case (a marked blank `_`), the cursor a `|`.
    fn readable(&self) -> String {
        let mut text = String::new();
        for (at, (cell, &marked)) in self.cells.iter().zip(&self.marked).enumerate() {
            if self.cursor == Some(at) {
                text.push('|');
            }
            match (marked, cell.as_str()) {
                (true, " ") => text.push('_'),
                (true, _) => text.push_str(&cell.to_uppercase()),
                (false, _) => text.push_str(cell),
            }
        }
        text
    }
}

/// Checks that a caller that saw `base` (with unlabelled marks) rebuilds `frame` exactly from
/// the text of `changes`: the rows it keeps, the block that moved, the rows listed, the new
/// columns of the rows that slid. Returns the first row that differs, as rebuilt and as it is.
/// For the fuzz target `screen_diff` and the tests.
pub(crate) fn rebuilds(base: &Frame, changes: &Changes, frame: &Frame) -> Result<(), String> {
    let cols = usize::from(base.cols);
    let rows = usize::from(frame.rows);
    let seen: Vec<ReadRow> = (0..rows).map(|r| ReadRow::whole(base.line(r), cols)).collect();
    let mut now = seen.clone();
    if let Some(Moved { from, to, count }) = changes.moved {
        for i in 0..usize::from(count) {
            now[usize::from(to) + i] = seen[usize::from(from) + i].clone();
        }
    }
    let text = frame.text(&Shape::Changes(changes.clone()));
    for line in text.split('\n').filter(|line| !line.is_empty()) {
        let (number, content) = line.split_once('│').ok_or_else(|| format!("no number: {line}"))?;
        let row: usize = number.parse().map_err(|_| format!("bad number: {line}"))?;
        now[row] = match changes.slid {
            Some(slid) if slid.holds(row as u16) => {
                // The seen row, its kept cells moved, the new ones as listed.
                let (new_from, new_to) = slid.new_columns();
                let ((kept_from, kept_to), (then_from, then_to)) = slid.kept();
                let was = usize::from(slid.seen_row(row as u16));
                let (new, old) =
                    (ReadRow::parse(content, usize::from(new_to - new_from)), &seen[was]);
                let mut rebuilt = ReadRow { cursor: None, ..old.clone() };
                let kept = usize::from(kept_from)..usize::from(kept_to);
                let was = usize::from(then_from)..usize::from(then_to);
                rebuilt.cells[kept.clone()].clone_from_slice(&old.cells[was.clone()]);
                rebuilt.marked[kept].copy_from_slice(&old.marked[was]);
                let added = usize::from(new_from)..usize::from(new_to);
                rebuilt.cells[added.clone()].clone_from_slice(&new.cells);
                rebuilt.marked[added].copy_from_slice(&new.marked);
                rebuilt.end_marks();
                rebuilt
            }
            // A row cut before its padding: as shown up to the cut, the seen row after it.
            _ if !changes.cut.is_empty() && content.ends_with(CUT_MARK) => {
                let shown = &content[..content.len() - CUT_MARK.len_utf8()];
                let col = shown
                    .chars()
                    .filter(|&c| c != OPEN && c != CLOSE && c != CURSOR_MARK)
                    .map(|c| usize::from(char_cells(c)))
                    .sum::<usize>()
                    .min(cols);
                let mut rebuilt = ReadRow::parse(shown, cols);
                rebuilt.cells[col..].clone_from_slice(&seen[row].cells[col..]);
                rebuilt.marked[col..].copy_from_slice(&seen[row].marked[col..]);
                rebuilt.end_marks();
                rebuilt
            }
            _ => ReadRow::whole(content, cols),
        };
    }
    for (row, rebuilt) in now.iter().enumerate() {
        let truth = ReadRow::whole(frame.line(row), cols);
        if *rebuilt != truth {
            return Err(format!(
                "row {row} rebuilt as\n{}\nbut is\n{}\n(seen {:?}, now {:?})",
                rebuilt.readable(),
                truth.readable(),
                base.line(row),
                frame.line(row),
            ));
        }
    }
    Ok(())
}
