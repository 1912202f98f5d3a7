//! Which styled runs of a screen are marked, and how: `⟦like this⟧` where a style carries
//! meaning (a selection, a focused button, a highlight), not a colour scheme.

use super::*;

/// The runs of `screen` that `styles` marks, neighbours with the same label merged.
pub(super) fn select(
    runs: &[StyleRun],
    styles: Styles,
    screen: &Screen,
    cells: usize,
) -> Vec<Marked> {
    // A background on most of the screen's `cells` is the screen's own colour (a program that
    // paints every cell, such as curses' white on black), not a highlight; unless it is a
    // box's, framed by the screen's (see [`ground`]).
    let (base, islands) = ground(runs, screen, cells);
    let meaningful = |run: &StyleRun| {
        run.attrs.contains(&"inverse") || (run.bg != "default" && Some(run.bg.as_str()) != base)
    };
    match styles {
        Styles::Off => Vec::new(),
        Styles::All => merged(runs.iter().map(|run| Marked::new(run, label(run)))),
        Styles::Meaningful => {
            let stripes = stripes(runs, &screen.lines);
            let mut chosen: Vec<&StyleRun> = runs
                .iter()
                .enumerate()
                .filter(|&(i, run)| meaningful(run) || islands.get(i).copied().unwrap_or(false))
                .filter(|&(i, _)| !stripes[i])
                .map(|(_, run)| run)
                .collect();
            if chosen.len() > MAX_MEANINGFUL_RUNS {
                let standing = standing_out(chosen.clone(), screen.cols);
                if standing.is_empty() || standing.len() > MAX_MEANINGFUL_RUNS {
                    return off_prompt(standing_out_of_bars(&chosen), screen, runs);
                }
                chosen = standing;
            }
            let spans: Vec<&[&StyleRun]> = chosen.chunk_by(|a, b| touching(a, b)).collect();
            let bars = bars(&spans, screen, runs);
            let mut marked = Vec::with_capacity(chosen.len());
            for (span, bar) in spans.iter().zip(bars) {
                if !bar {
                    marked.extend(merged(span.iter().map(|run| Marked::new(run, String::new()))));
                }
                marked.extend(standing_out_within(span));
            }
            marked.extend(standing_out_of_column(&spans));
            off_prompt(marked, screen, runs)
        }
    }
}

/// `marked` without the marks on the row of a prompt ([`prompt_row`]). (Left out once chosen:
/// the runs of that row still count among the screen's, which tell a colour scheme.)
fn off_prompt(mut marked: Vec<Marked>, screen: &Screen, runs: &[StyleRun]) -> Vec<Marked> {
    if let Some(row) = prompt_row(screen, runs) {
        marked.retain(|run| run.row != row);
    }
    marked
}

/// The row of a full-screen program's prompt, whose style carries no meaning: the visible
/// cursor stands at or past the end of its row's text, where typed text goes, right after a
/// styled run from the row's first column on one of the screen's last [`BOTTOM_BAR_ROWS`]
/// rows or on its last row of text (less's `:`, `(END)` or file name) or inside a bar of one
/// look across the row (nano's `Search:`). A menu's cursor stands on its entry or is hidden,
/// or is left where the menu was drawn last: an indented entry selected on the last rows, the
/// cursor after it (a curses menu's last entry, its `addstr` the last), is no prompt; nor is
/// a selection taking in the cursor's cell past a line's end (vim's `v$`) a bar across its
/// row, nor one ending at the cursor in the text (nano's `<M-a>` then `<End>`, an emacs
/// region) a prompt: their marks stay. A limitation: an entry drawn from the row's first
/// column, selected there with the cursor shown after it, looks as less's `(END)` does, and
/// is taken for a prompt (unmarked).
fn prompt_row(screen: &Screen, runs: &[StyleRun]) -> Option<u16> {
    let cursor = screen.cursor;
    let text = screen.lines.get(usize::from(cursor.row))?;
    let at_end = cursor.visible && cursor.col >= cell_col(text, text.len());
    if !at_end || !(screen.alternate || painted_by_curses(screen, runs)) {
        return None;
    }
    let row: Vec<&StyleRun> = runs.iter().filter(|run| run.row == cursor.row).collect();
    let mut below = screen.lines.iter().skip(usize::from(cursor.row) + 1);
    let last_text =
        below.all(|line| line.trim().is_empty()) && runs.iter().all(|run| run.row <= cursor.row);
    let bottom = cursor.row.saturating_add(BOTTOM_BAR_ROWS) >= screen.rows;
    let after =
        (bottom || last_text) && row.iter().any(|run| run.col == 0 && run.width == cursor.col);
    let bar = row.first().is_some_and(|first| {
        first.col == 0
            && row.windows(2).all(|w| touching(w[0], w[1]) && look(w[0]) == look(w[1]))
            && row.iter().map(|run| run.col.saturating_add(run.width)).max() >= Some(screen.cols)
            && (first.bg != "default" || first.attrs.contains(&"inverse"))
    });
    (after || bar).then_some(cursor.row)
}

/// Which marked `spans` (touching runs on one row, in row order) are a full-screen program's
/// bars, whose highlight says only that they are bars: spans across their whole row at the
/// screen's edges only, on its first row when that row's text starts with a blank (nano's
/// and vifm's padded title bars), or on its last [`BOTTOM_BAR_ROWS`] rows in the look of
/// that first row's bar (vifm's status bar; two bottom spans alike are no bars: ncdu's last
/// visible entry selected above its status bar). A span in the
/// middle of the screen is never a bar, whatever look it shares: a list's selected entry
/// drawn across its row (ncdu's and `htop -C`'s, inverse like their bars and header; vim's
/// `V` on long lines), and on the first row a selection is text from its first cell (tig's
/// first commit). What stands out inside a bar is still marked ([`standing_out_within`]:
/// mc's selected menu title).
fn bars(spans: &[&[&StyleRun]], screen: &Screen, runs: &[StyleRun]) -> Vec<bool> {
    if !screen.alternate && !painted_by_curses(screen, runs) {
        return vec![false; spans.len()];
    }
    let across = |span: &[&StyleRun]| {
        let (Some(first), Some(last)) = (span.first(), span.last()) else { return None };
        let whole = first.col == 0 && last.col.saturating_add(last.width) >= screen.cols;
        whole.then(|| most_look(span).map(|(look, _)| look)).flatten()
    };
    let bottom = |row: u16| row.saturating_add(BOTTOM_BAR_ROWS) >= screen.rows;
    let padded_top =
        |row: u16| row == 0 && screen.lines.first().is_some_and(|line| line.starts_with(' '));
    // The look of the padded first row's span across it: a bar, and a span across a bottom
    // row in its look is one too (vifm's title and status bars). Two bottom spans alike are
    // no pair: a list's last visible entry selected above an inverse status bar (ncdu's).
    let top = spans.iter().find(|span| padded_top(span[0].row)).and_then(|span| across(span));
    spans
        .iter()
        .map(|span| {
            let row = span[0].row;
            (padded_top(row) && top.is_some())
                || (bottom(row) && top.is_some() && across(span) == top)
        })
        .collect()
}

/// The rows at the bottom of a screen where a full-screen program draws its status bar
/// (vifm's on the row above its command line, vim's, mutt's).
const BOTTOM_BAR_ROWS: u16 = 2;

/// The most cells wide a run of a stripe is (see [`stripes`]).
const STRIPE_WIDTH: u16 = 2;

/// The fewest consecutive rows a stripe covers (see [`stripes`]).
const STRIPE_ROWS: usize = 3;

/// Which of `runs` (a screen's, row by row, left to right; its text `lines`) are stripes: at
/// most [`STRIPE_WIDTH`] cells of one look and one text, blanks or a line (`│`, `|`), at one
/// column on [`STRIPE_ROWS`] or more rows, each the next row or the one after it (the
/// selected entry, drawn otherwise, between two). A list's gutter (fzf's, beside each
/// entry), a separator between two views (tig's `│`) or a shadow is drawn alike on every row
/// whatever is selected: marked, it told nothing and, beside a long list, crowded out the
/// selection's own mark. (A selection holds text: vim's block of `x` down a column is one.)
fn stripes(runs: &[StyleRun], lines: &[String]) -> Vec<bool> {
    let text = |run: &StyleRun| {
        let line = lines.get(usize::from(run.row)).map_or("", String::as_str);
        let start = byte_at_cell(line, run.col);
        let end = start + byte_at_cell(&line[start..], run.width);
        &line[start..end]
    };
    /// A run's column, width, look and text: what the runs of a stripe share.
    type Alike<'t> = (u16, u16, (String, bool), &'t str);
    // The rows and indexes of the runs alike, in row order.
    let mut alike: HashMap<Alike, Vec<(u16, usize)>> = HashMap::new();
    let drawn = |text: &str| text.chars().all(|c| c == ' ' || c == '|' || is_box_drawing(c));
    for (i, run) in runs.iter().enumerate().filter(|(_, run)| run.width <= STRIPE_WIDTH) {
        let text = text(run);
        if drawn(text) {
            alike.entry((run.col, run.width, look(run), text)).or_default().push((run.row, i));
        }
    }
    let mut flags = vec![false; runs.len()];
    for column in alike.values() {
        for stripe in
            column.chunk_by(|a, b| b.0 <= a.0.saturating_add(2)).filter(|s| s.len() >= STRIPE_ROWS)
        {
            stripe.iter().for_each(|&(_, i)| flags[i] = true);
        }
    }
    flags
}

/// Whether `c` is one of Unicode's box-drawing characters (`│`, `┃`, `║`, `─`, `┼`...).
fn is_box_drawing(c: char) -> bool {
    ('\u{2500}'..='\u{257f}').contains(&c)
}

/// `marked`, neighbours of the same label on a row merged.
pub(super) fn merged(marked: impl Iterator<Item = Marked>) -> Vec<Marked> {
    let mut merged: Vec<Marked> = Vec::new();
    for run in marked {
        match merged.last_mut() {
            Some(last) if (last.row, last.end, &last.label) == (run.row, run.col, &run.label) => {
                last.end = run.end;
            }
            _ => merged.push(run),
        }
    }
    merged
}

/// The runs of a marked `span` (touching runs on one row) whose background (or inverse)
/// is not the span's own ([`span_look`]): the focused button of a dialog whose rows are
/// marked whole, marked again inside them (`⟦  ⟦<Yes>⟧    <No>  ⟧`). Merged with the rest,
/// the button was not told from the other, nor was moving the focus a change.
pub(super) fn standing_out_within<'a>(span: &'a [&StyleRun]) -> impl Iterator<Item = Marked> + 'a {
    let most = span_look(span).filter(|(_, alone)| !alone).map(|(look, _)| look);
    // Touching runs of one look are one mark; of two, two.
    span.chunk_by(move |a, b| look(a) == look(b))
        .filter(move |same| most.as_ref().is_some_and(|most| look(same[0]) != *most))
        .map(|same| {
            let last = same[same.len() - 1];
            Marked {
                row: same[0].row,
                col: same[0].col,
                end: last.col.saturating_add(last.width),
                label: String::new(),
            }
        })
}

/// Of more coloured runs than a highlight has, when none or too many of them stand out from
/// the colour scheme ([`standing_out`]), what stands out within the spans they make (touching runs on one row), when that fits in
/// the highlights' number (see [`standing_out_within`]): mc's menu bar, active, is cyan with
/// the selected title black, beside a function-key bar of black keys between cyan labels;
/// marking nothing told neither the title nor a move of the selection.
fn standing_out_of_bars(chosen: &[&StyleRun]) -> Vec<Marked> {
    let marked: Vec<Marked> =
        chosen.chunk_by(|a, b| touching(a, b)).flat_map(standing_out_within).collect();
    match marked.len() > MAX_MEANINGFUL_RUNS {
        true => Vec::new(),
        false => marked,
    }
}

/// Whether run `b` follows run `a` on its row with no cell between them.
fn touching(a: &StyleRun, b: &StyleRun) -> bool {
    a.row == b.row && a.col.saturating_add(a.width) == b.col
}

/// A run's look, what a mark tells apart: its background, and whether it is inverse.
pub(super) fn look(run: &StyleRun) -> (String, bool) {
    (run.bg.clone(), run.attrs.contains(&"inverse"))
}

/// A marked span's own look (touching runs on one row), and whether it is its only one: the
/// look its first and last runs share, when they share one, which frames what is between
/// them; else that of most of its cells ([`most_look`]). whiptail's entry field is wider than
/// the box's border around it on its row (`│ ____ │`): taken by its cells, the field was
/// the row's look, the border marked inside it and the row again as the one of its column
/// that stands out ([`standing_out_of_column`]), marks three deep (`⟦⟦⟦│ ⟧____⟦ │⟧⟧⟧`).
fn span_look(span: &[&StyleRun]) -> Option<((String, bool), bool)> {
    let (most, alone) = most_look(span)?;
    let (first, last) = (look(span.first()?), look(span.last()?));
    Some(if first == last { (first, alone) } else { (most, alone) })
}

/// The look of most of the cells of `runs` (of two with as many cells, the first met), and
/// whether it is their only one.
fn most_look(runs: &[&StyleRun]) -> Option<((String, bool), bool)> {
    let mut cells: Vec<((String, bool), usize)> = Vec::new();
    for run in runs {
        let look = look(run);
        match cells.iter_mut().find(|(seen, _)| *seen == look) {
            Some((_, count)) => *count += usize::from(run.width),
            None => cells.push((look, usize::from(run.width))),
        }
    }
    let alone = cells.len() == 1;
    let most = cells.into_iter().min_by_key(|(_, count)| std::cmp::Reverse(*count));
    most.map(|(look, _)| (look, alone))
}

/// Which of `runs` (a screen's, row by row, left to right) are islands of the screen's own
/// background `base` inside a box of another: a block of touching runs of that background
/// (not inverse) whose neighbours on both sides touch it and have a background that is
/// neither the default nor `base`. dialog paints its screen blue and its box white, and
/// shows the selected entry and the focused button blue on white: the screen's colour, never
/// marked, so a menu read the same whichever entry was selected.
fn islands(runs: &[StyleRun], base: &str) -> Vec<bool> {
    let grounded = |run: &StyleRun| run.bg == base && !run.attrs.contains(&"inverse");
    let boxed = |run: &StyleRun| run.bg != "default" && run.bg != base;
    let mut flags = vec![false; runs.len()];
    let mut start = 0;
    while start < runs.len() {
        if !grounded(&runs[start]) {
            start += 1;
            continue;
        }
        let mut end = start + 1;
        while end < runs.len() && grounded(&runs[end]) && touching(&runs[end - 1], &runs[end]) {
            end += 1;
        }
        let before = start.checked_sub(1).map(|i| &runs[i]);
        let after = runs.get(end);
        if before.is_some_and(|b| boxed(b) && touching(b, &runs[start]))
            && after.is_some_and(|a| boxed(a) && touching(&runs[end - 1], a))
        {
            flags[start..end].fill(true);
        }
        start = end;
    }
    flags
}

/// Whether the `islands` of `base` (see [`islands`]) hold [`ISLANDS_SHARE`] or more of its
/// cells: then they are no highlights, but `base` is a box's colour framed by the screen's
/// own (dialog's box wider than half the screen, its every row between two blue cells).
fn framed(runs: &[StyleRun], base: &str, islands: &[bool]) -> bool {
    let width = |run: &StyleRun| usize::from(run.width);
    let ground: usize = runs.iter().filter(|run| run.bg == base).map(width).sum();
    let island: usize =
        runs.iter().zip(islands).filter(|(_, island)| **island).map(|(run, _)| width(run)).sum();
    island > 0 && island * ISLANDS_SHARE >= ground
}

/// Islands (see [`islands`]) are highlights while they hold less than one cell in this many
/// of the screen's colour.
const ISLANDS_SHARE: usize = 10;

/// The screen's own colour and the islands of it (see [`islands`]): the background of most
/// of its `cells`, unless that is a box's framed by another ([`framed`]); then the
/// background its four corners share, if they share one. dialog's box wider than half the
/// screen (debconf's, 76 columns in 80) is white on most cells; taken for the screen's
/// colour, every row of the box read as an island and nothing was marked, and the blue
/// screen about it (three columns wide beside a 72-column box) as highlights on every row.
fn ground<'r>(runs: &'r [StyleRun], screen: &Screen, cells: usize) -> (Option<&'r str>, Vec<bool>) {
    let Some(most) = screen_background(runs, cells) else {
        return (None, Vec::new());
    };
    let found = islands(runs, most);
    if !framed(runs, most, &found) {
        return (Some(most), found);
    }
    match corners(runs, screen).filter(|&corner| corner != most) {
        Some(corner) => {
            let found = islands(runs, corner);
            match framed(runs, corner, &found) {
                true => (Some(corner), Vec::new()),
                false => (Some(corner), found),
            }
        }
        None => (Some(most), Vec::new()),
    }
}

/// The background of the four corner cells of `screen`, when they share one that is not the
/// default.
fn corners<'r>(runs: &'r [StyleRun], screen: &Screen) -> Option<&'r str> {
    let (last_row, last_col) = (screen.rows.checked_sub(1)?, screen.cols.checked_sub(1)?);
    let at = |row: u16, col: u16| {
        runs.iter()
            .find(|run| run.row == row && run.col <= col && col < run.col.saturating_add(run.width))
            .map(|run| run.bg.as_str())
    };
    let first = at(0, 0)?;
    let same = [(0, last_col), (last_row, 0), (last_row, last_col)]
        .into_iter()
        .all(|(row, col)| at(row, col) == Some(first));
    (same && first != "default").then_some(first)
}

/// Whether `screen` is a curses program's on the primary screen: keys in application mode
/// (as curses sets them while it runs, and resets on its way out) and a background painted
/// on more than half of its cells, per its styled `runs` (dialog, which leaves the alternate
/// screen out and paints its screen blue), or a program that draws whole frames there from
/// its top-left ([`Screen::frames`]: `top`). It is shown as a full-screen program's is: its
/// rows as lines of the transcript told nothing of what is selected, and a frame redrawn
/// after a key was read again whole as lines (about 2 KB for top's 100x24), not as the rows
/// that changed.
pub(crate) fn painted_by_curses(screen: &Screen, runs: &[StyleRun]) -> bool {
    let cells = usize::from(screen.cols) * usize::from(screen.rows);
    let painted = screen.modes.app_cursor && screen_background(runs, cells).is_some();
    !screen.alternate && (screen.frames || painted)
}

/// The marked spans (touching runs on one row, in row order) of a column of them that stand
/// out from the rest: in a stack of three or more spans starting at the same column on
/// consecutive rows (a completion menu), the one span whose look ([`span_look`]) differs when all the others share one, marked again
/// (`⟦⟦[1,2,3].map!⟧⟧`): irb's menu shows its entries cyan and the selected one magenta, all
/// marked alike, so a Tab that moved the selection read as no change.
pub(super) fn standing_out_of_column(spans: &[&[&StyleRun]]) -> impl Iterator<Item = Marked> {
    /// A span: its row, first and end columns, and look.
    type Span = (u16, u16, u16, (String, bool));
    // Stacks of spans by their first column, each ended once a row goes by without one.
    let mut stacks: Vec<Vec<Span>> = Vec::new();
    for span in spans {
        let (Some(first), Some(last)) = (span.first(), span.last()) else { continue };
        let Some((look, _)) = span_look(span) else { continue };
        let this = (first.row, first.col, last.col.saturating_add(last.width), look);
        let stack = stacks.iter_mut().rev().find(|stack| {
            stack.last().is_some_and(|&(row, col, _, _)| col == this.1 && row + 1 == this.0)
        });
        match stack {
            Some(stack) => stack.push(this),
            None => stacks.push(vec![this]),
        }
    }
    stacks.into_iter().filter(|stack| stack.len() >= 3).filter_map(|stack| {
        let odd = |i: usize| stack.iter().filter(|other| other.3 != stack[i].3).count();
        // One span differs from all the others, which share one look.
        let alone = (0..stack.len()).filter(|&i| odd(i) == stack.len() - 1).collect::<Vec<_>>();
        match alone.as_slice() {
            [one] => {
                let (row, col, end, _) = stack[*one];
                Some(Marked { row, col, end, label: String::new() })
            }
            _ => None,
        }
    })
}

/// The background of more than half of a screen's `cells`, if one has them.
fn screen_background(runs: &[StyleRun], cells: usize) -> Option<&str> {
    let mut covered: HashMap<&str, usize> = HashMap::new();
    for run in runs.iter().filter(|run| run.bg != "default") {
        *covered.entry(run.bg.as_str()).or_default() += usize::from(run.width);
    }
    covered.into_iter().find(|&(_, count)| count * 2 > cells).map(|(bg, _)| bg)
}

/// Of more coloured runs than a highlight has, those that stand out from the colour scheme
/// (a dialog on a blue screen): inverse ones, and those whose background covers less than a
/// tenth of the coloured cells (the selected entry of a menu). Then, if they all fit in the
/// highlights' number, those on a row that is not all coloured, which stand out from the
/// screen's own ground around them: mc's selection bar between its panels' borders, whose
/// colour its menu bar and function-key bar (rows coloured whole) share.
fn standing_out(runs: Vec<&StyleRun>, cols: u16) -> Vec<&StyleRun> {
    let mut cells: HashMap<&str, usize> = HashMap::new();
    let mut row_cells: HashMap<u16, usize> = HashMap::new();
    for run in &runs {
        *cells.entry(run.bg.as_str()).or_default() += usize::from(run.width);
        *row_cells.entry(run.row).or_default() += usize::from(run.width);
    }
    let total: usize = cells.values().sum();
    let rare =
        |run: &&StyleRun| run.attrs.contains(&"inverse") || cells[run.bg.as_str()] * 10 < total;
    let on_ground = |run: &&StyleRun| row_cells[&run.row] < usize::from(cols);
    let marked = runs.iter().filter(|run| rare(run) || on_ground(run)).count();
    let with_ground = marked <= MAX_MEANINGFUL_RUNS;
    runs.into_iter().filter(|run| rare(run) || with_ground && on_ground(run)).collect()
}

/// A run to mark, with its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Marked {
    pub(super) row: u16,
    pub(super) col: u16,
    pub(super) end: u16,
    pub(super) label: String,
}

impl Marked {
    pub(super) fn new(run: &StyleRun, label: String) -> Marked {
        Marked { row: run.row, col: run.col, end: run.col.saturating_add(run.width), label }
    }
}

/// A run's full label: its attributes, its foreground and `on` its background, e.g.
/// `bold red on blue`.
pub(super) fn label(run: &StyleRun) -> String {
    let mut parts: Vec<String> = run.attrs.iter().map(|a| (*a).to_owned()).collect();
    if run.fg != "default" {
        parts.push(run.fg.clone());
    }
    if run.bg != "default" {
        parts.push(format!("on {}", run.bg));
    }
    parts.join(" ")
}

/// `row` with its runs marked and [`CURSOR_MARK`] before cell `cursor`; marks past the row's
/// end are reached with spaces (a styled run of blanks is shown as blanks).
pub(super) fn decorate<'r>(
    row: &str,
    runs: impl Iterator<Item = &'r Marked>,
    cursor: Option<u16>,
) -> String {
    // (cell, order at that cell: closes, then opens, then the cursor; text)
    let mut marks: Vec<(u16, u8, String)> = Vec::new();
    for run in runs {
        let open = match run.label.as_str() {
            "" => OPEN.to_string(),
            label => format!("{OPEN}{label}|"),
        };
        marks.push((run.col, 1, open));
        marks.push((run.end, 0, CLOSE.to_string()));
    }
    marks.extend(cursor.map(|col| (col, 2, CURSOR_MARK.to_string())));
    if marks.is_empty() {
        return row.to_owned();
    }
    marks.sort_by_key(|(col, order, _)| (*col, *order));
    let mut out = String::with_capacity(row.len() + marks.len() * 8);
    let mut marks = marks.into_iter().peekable();
    // The cell column, counted along (a prefix's width per character would cost a row's
    // length squared).
    let mut col = 0u16;
    for c in row.chars() {
        while let Some((_, _, text)) = marks.next_if(|(mark, _, _)| *mark <= col) {
            out.push_str(&text);
        }
        out.push(c);
        col = col.saturating_add(char_cells(c));
    }
    for (mark, _, text) in marks {
        out.extend(std::iter::repeat_n(' ', usize::from(mark.saturating_sub(col))));
        col = col.max(mark);
        out.push_str(&text);
    }
    out
}
