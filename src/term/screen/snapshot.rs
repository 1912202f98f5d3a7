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
    let _ = writeln!(
        out,
        "cursor: row {}, col {}, {}",
        cursor.row,
        cursor.col,
        if cursor.visible { "visible" } else { "hidden" }
    );
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
/// number of its row: `  5 │ cols 20-59: fg=white bg=blue bold`. Colours are `default`, names
/// (`red`, `bright-blue`), `color(N)` or `#rrggbb`; attributes are `bold`, `dim`, `italic`,
/// `underline`, `inverse`, `hidden`, `strikeout`.
///
/// It shows what the text alone does not: a selection drawn in reverse video, a highlighted
/// search match, an error in red.
pub fn format_styled_screen(styled: &StyledScreen) -> String {
    let mut out = format_screen(&styled.screen);
    let gutter = styled.screen.lines.len().saturating_sub(1).to_string().len().max(2);
    if styled.runs.is_empty() {
        out.push_str("styles: none\n");
        return out;
    }
    out.push_str("styles:\n");
    for run in &styled.runs {
        let last = run.col + run.width.saturating_sub(1);
        let _ = write!(out, "{:>gutter$} │ cols {}-{last}:", run.row, run.col);
        if run.fg != "default" {
            let _ = write!(out, " fg={}", run.fg);
        }
        if run.bg != "default" {
            let _ = write!(out, " bg={}", run.bg);
        }
        for attr in &run.attrs {
            let _ = write!(out, " {attr}");
        }
        out.push('\n');
    }
    out
}
