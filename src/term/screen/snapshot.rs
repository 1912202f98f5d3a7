//! The testing kit's snapshot layout of a screen ([`format_screen`]) and of a styled screen
//! ([`format_styled_screen`]): a header, every row numbered in a frame exactly as wide as the
//! terminal, a caret under the cursor. Re-exported by `termloom::testing`.

use std::fmt::Write as _;

use super::Screen;
use super::style::StyledScreen;

/// Formats a screen for snapshots: a header (size, primary or alternate screen, cursor, title),
/// then every row, numbered from 0, in a frame exactly as wide as the terminal; a `^` line under
/// the cursor's row points at the cursor's column while the cursor is visible.
///
/// ```no_run
/// use std::time::Duration;
/// use termloom::testing::format_screen;
/// use termloom::{Config, Engine, SpawnSpec, Until};
///
/// let engine = Engine::new(Config::default())?;
/// let sh = engine.spawn(SpawnSpec::new("sh").args(["-c", "printf '$ ls\\n$ '; read x"]).size(10, 2))?;
/// sh.wait(Until::input_wait(), Duration::from_secs(10))?;
/// print!("{}", format_screen(&sh.screen()?));
/// // screen: 10x2, primary
/// // cursor: row 1, col 2, visible
/// // title: none
/// //    ┌──────────┐
/// //  0 │$ ls
/// //  1 │$
/// //    ┆  ^
/// //    └──────────┘
/// # Ok::<(), termloom::Error>(())
/// ```
pub fn format_screen(screen: &Screen) -> String {
    let mut out = String::new();
    let cursor = screen.cursor;
    let _ = writeln!(
        out,
        "screen: {}x{}, {}",
        screen.cols,
        screen.rows,
        if screen.alternate { "alternate" } else { "primary" }
    );
    // A hidden cursor's position is left out: programs leave it wherever their last redraw
    // ended, which changes with their versions, not with what they show.
    if cursor.visible {
        let _ = writeln!(out, "cursor: row {}, col {}, visible", cursor.row, cursor.col);
    } else {
        out.push_str("cursor: hidden\n");
    }
    if screen.title.is_empty() {
        out.push_str("title: none\n");
    } else {
        let _ = writeln!(out, "title: {:?}", screen.title);
    }
    let gutter = screen.lines.len().saturating_sub(1).to_string().len().max(2);
    let rule = "─".repeat(usize::from(screen.cols));
    let pad = " ".repeat(gutter);
    let _ = writeln!(out, "{pad} ┌{rule}┐");
    for (index, row) in screen.lines.iter().enumerate() {
        let _ = writeln!(out, "{index:>gutter$} │{row}");
        if cursor.visible && index == usize::from(cursor.row) {
            let _ = writeln!(out, "{pad} ┆{}^", " ".repeat(usize::from(cursor.col)));
        }
    }
    let _ = writeln!(out, "{pad} └{rule}┘");
    out
}

/// Formats a styled screen for snapshots: [`format_screen`]'s layout, then a `styles:` section
/// with one line per run of cells whose colours or attributes are not the defaults, under the
/// number of its row: `  5 │ cols 20-59: fg=white bg=blue bold`; the same run repeated on
/// consecutive rows (a box's sides, a column of colour) is one line under the rows' range:
/// `1-22 │ cols 0-0: fg=blue`. Colours are `default`, names (`red`, `bright-blue`),
/// `color(N)` or `#rrggbb`; attributes are `bold`, `dim`, `italic`, `underline`, `inverse`,
/// `hidden`, `strikeout`.
///
/// It shows what the text alone does not: a selection drawn in reverse video, a highlighted
/// search match, an error in red.
pub fn format_styled_screen(styled: &StyledScreen) -> String {
    let mut out = format_screen(&styled.screen);
    if styled.runs.is_empty() {
        out.push_str("styles: none\n");
        return out;
    }
    out.push_str("styles:\n");
    // (first row, last row, first column, the run's text after its row): runs sorted by
    // their text then row, so that repeats down consecutive rows merge.
    let mut lines: Vec<(u16, u16, u16, String)> = Vec::new();
    let mut sorted: Vec<_> =
        styled.runs.iter().map(|run| (run.row, run.col, describe(run))).collect();
    sorted.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.cmp(&b.0)));
    for (row, col, text) in sorted {
        match lines.last_mut() {
            Some((_, last, _, same)) if *same == text && *last + 1 == row => *last = row,
            _ => lines.push((row, row, col, text)),
        }
    }
    lines.sort_by_key(|&(first, _, col, _)| (first, col));
    let label = |first: u16, last: u16| match first == last {
        true => first.to_string(),
        false => format!("{first}-{last}"),
    };
    let gutter = styled.screen.lines.len().saturating_sub(1).to_string().len().max(2);
    let width = lines.iter().map(|(f, l, _, _)| label(*f, *l).len()).max().unwrap_or(0).max(gutter);
    for (first, last, _, text) in lines {
        let _ = writeln!(out, "{:>width$} │{text}", label(first, last));
    }
    out
}

/// A run's columns and style, without its row: ` cols 20-59: fg=white bg=blue bold`.
fn describe(run: &super::style::StyleRun) -> String {
    let last = run.col + run.width.saturating_sub(1);
    let mut text = format!(" cols {}-{last}:", run.col);
    if run.fg != "default" {
        let _ = write!(text, " fg={}", run.fg);
    }
    if run.bg != "default" {
        let _ = write!(text, " bg={}", run.bg);
    }
    for attr in &run.attrs {
        let _ = write!(text, " {attr}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::screen::style::StyleRun;
    use crate::{Cursor, Modes};

    fn run(row: u16, col: u16, width: u16, fg: &str) -> StyleRun {
        StyleRun { row, col, width, fg: fg.into(), bg: "default".into(), attrs: vec![] }
    }

    #[test]
    fn a_box_takes_a_few_style_lines_and_a_hidden_cursor_no_position() {
        let rows = 24;
        let mut runs = vec![run(0, 0, 80, "blue")];
        for row in 1..rows - 1 {
            runs.push(run(row, 0, 1, "blue"));
            runs.push(run(row, 79, 1, "blue"));
        }
        runs.push(run(5, 3, 4, "red"));
        runs.push(run(rows - 1, 0, 80, "blue"));
        let screen = Screen {
            cols: 80,
            rows,
            lines: vec![String::new(); usize::from(rows)],
            cursor: Cursor { row: 7, col: 9, visible: false },
            alternate: true,
            title: String::new(),
            modes: Modes::OFF,
            wrapped: Vec::new(),
            wide_spacer_ends: Vec::new(),
            frames: false,
        };
        let text = format_styled_screen(&StyledScreen { screen, runs });
        assert!(text.contains("cursor: hidden\n"), "{text}");
        let styles = &text[text.find("styles:\n").unwrap() + 8..];
        assert_eq!(
            styles,
            "   0 │ cols 0-79: fg=blue\n\
             1-22 │ cols 0-0: fg=blue\n\
             1-22 │ cols 79-79: fg=blue\n\
             \x20  5 │ cols 3-6: fg=red\n\
             \x20 23 │ cols 0-79: fg=blue\n"
        );
    }
}
