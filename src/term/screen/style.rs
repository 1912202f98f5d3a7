//! Colours and attributes of the screen's cells, as runs: [`StyledScreen`].

use std::fmt;

use alacritty_terminal::grid::Row;
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};
use serde::Serialize;

use crate::term::screen::{Screen, ScreenPos};

/// A run of cells on one row that share colours and attributes other than the defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct StyleRun {
    /// Row from 0.
    pub row: u16,
    /// First cell column from 0.
    pub col: u16,
    /// Number of cells.
    pub width: u16,
    /// Foreground: `default`, a name (`red`, `bright-blue`), `color(N)` or `#rrggbb`.
    pub fg: String,
    /// Background, in the same notation.
    pub bg: String,
    /// Attributes: `bold`, `dim`, `italic`, `underline`, `inverse`, `hidden`, `strikeout`.
    pub attrs: Vec<&'static str>,
}

/// A screen snapshot with the colours and attributes of its cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct StyledScreen {
    /// The text snapshot.
    pub screen: Screen,
    /// Every run of cells whose style is not the default, row by row, left to right.
    pub runs: Vec<StyleRun>,
}

#[cfg(test)]
impl StyleRun {
    /// A run, for tests.
    pub(crate) fn new(
        row: u16,
        col: u16,
        width: u16,
        fg: &str,
        bg: &str,
        attrs: Vec<&'static str>,
    ) -> StyleRun {
        StyleRun { row, col, width, fg: fg.to_owned(), bg: bg.to_owned(), attrs }
    }
}

impl StyledScreen {
    /// The run that styles the cell at `row`, `col` (from 0), if it is not plain.
    pub fn style_at(&self, row: u16, col: u16) -> Option<&StyleRun> {
        self.runs.iter().find(|run| run.row == row && (run.col..run.col + run.width).contains(&col))
    }

    /// Where `text` is first shown highlighted: every one of its cells in inverse video or on
    /// a background colour, as a list's selection, a menu's current item or a search match
    /// usually is.
    pub fn find_highlighted(&self, text: &str) -> Option<ScreenPos> {
        let width = unicode_width::UnicodeWidthStr::width(text) as u16;
        self.screen.find_all(text).find(|pos| {
            (pos.col..pos.col + width.max(1)).all(|col| {
                self.style_at(pos.row, col)
                    .is_some_and(|run| run.bg != "default" || run.attrs.contains(&"inverse"))
            })
        })
    }
}

impl StyleRun {
    /// The parameters of the SGR sequence (`ESC [ … m`, after a reset) that draws this run's
    /// colours and attributes on a terminal: `1;31;48;5;236` for bold red on colour 236. A
    /// dimmed colour (`dim-red`) is its colour with the `dim` attribute.
    pub fn sgr(&self) -> String {
        let mut params: Vec<String> = Vec::new();
        let dimmed = [&self.fg, &self.bg].iter().any(|c| c.starts_with("dim-"));
        for attr in &self.attrs {
            params.push(
                match *attr {
                    "bold" => "1",
                    "dim" => "2",
                    "italic" => "3",
                    "underline" => "4",
                    "inverse" => "7",
                    "hidden" => "8",
                    _ => "9",
                }
                .to_owned(),
            );
        }
        if dimmed && !self.attrs.contains(&"dim") {
            params.push("2".to_owned());
        }
        params.extend(color_sgr(&self.fg, 30));
        params.extend(color_sgr(&self.bg, 40));
        params.join(";")
    }
}

/// The SGR parameter of colour `name` (the runs' notation) as a foreground (`base` 30) or a
/// background (`base` 40); none for `default`.
fn color_sgr(name: &str, base: u8) -> Option<String> {
    let name = name.strip_prefix("dim-").unwrap_or(name);
    if let Some(index) = COLOR_NAMES.iter().position(|n| *n == name) {
        let index = index as u8;
        return Some(if index < 8 { base + index } else { base + 60 + index - 8 }.to_string());
    }
    let extended = base + 8;
    if let Some(index) = name.strip_prefix("color(").and_then(|n| n.strip_suffix(')')) {
        return Some(format!("{extended};5;{index}"));
    }
    let hex = name.strip_prefix('#').filter(|h| h.len() == 6)?;
    let byte = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).unwrap_or(0);
    Some(format!("{extended};2;{};{};{}", byte(0), byte(2), byte(4)))
}

/// The names of colours 0 to 15.
pub(crate) const COLOR_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "white",
    "bright-black",
    "bright-red",
    "bright-green",
    "bright-yellow",
    "bright-blue",
    "bright-magenta",
    "bright-cyan",
    "bright-white",
];

fn color_name(color: Color) -> String {
    match color {
        Color::Named(named) => {
            let index = named as usize;
            if index < 16 {
                COLOR_NAMES[index].to_owned()
            } else if (NamedColor::DimBlack as usize..=NamedColor::DimWhite as usize)
                .contains(&index)
            {
                format!("dim-{}", COLOR_NAMES[index - NamedColor::DimBlack as usize])
            } else {
                "default".to_owned()
            }
        }
        Color::Indexed(i) if usize::from(i) < 16 => COLOR_NAMES[usize::from(i)].to_owned(),
        Color::Indexed(i) => format!("color({i})"),
        Color::Spec(rgb) => format!("#{:02x}{:02x}{:02x}", rgb.r, rgb.g, rgb.b),
    }
}

const ATTRS: [(Flags, &str); 7] = [
    (Flags::BOLD, "bold"),
    (Flags::DIM, "dim"),
    (Flags::ITALIC, "italic"),
    (Flags::ALL_UNDERLINES, "underline"),
    (Flags::INVERSE, "inverse"),
    (Flags::HIDDEN, "hidden"),
    (Flags::STRIKEOUT, "strikeout"),
];

fn style_of(cell: &Cell) -> (String, String, Vec<&'static str>) {
    let attrs = ATTRS.iter().filter(|(f, _)| cell.flags.intersects(*f)).map(|(_, n)| *n).collect();
    (color_name(cell.fg), color_name(cell.bg), attrs)
}

/// The SGR parameters (after a reset) that draw with `cell`'s colours and attributes, as
/// [`StyleRun::sgr`] gives them: empty for the plain style.
pub(crate) fn cell_sgr(cell: &Cell) -> String {
    let (fg, bg, attrs) = style_of(cell);
    StyleRun { row: 0, col: 0, width: 1, fg, bg, attrs }.sgr()
}

/// The non-default runs of one grid row. Styles are named only where the cell's colours or
/// attributes differ from the cell before (a row of one style names one cell).
pub(crate) fn row_runs(row_index: u16, row: &Row<Cell>, out: &mut Vec<StyleRun>) {
    let style_flags = ATTRS.iter().fold(Flags::empty(), |all, (flag, _)| all | *flag);
    let key = |cell: &Cell| (cell.fg, cell.bg, cell.flags & style_flags);
    let mut current: Option<StyleRun> = None;
    // The raw style of the cell before.
    let mut previous: Option<(Color, Color, Flags)> = None;
    for (col, cell) in row[..].iter().enumerate() {
        if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
            if let Some(run) = &mut current {
                run.width += 1;
            }
            continue;
        }
        let raw = key(cell);
        if previous == Some(raw) {
            if let Some(run) = &mut current {
                run.width += 1;
            }
            continue;
        }
        let (fg, bg, attrs) = style_of(cell);
        let plain = fg == "default" && bg == "default" && attrs.is_empty();
        previous = Some(raw);
        match &mut current {
            Some(run) if run.fg == fg && run.bg == bg && run.attrs == attrs => run.width += 1,
            _ => {
                out.extend(current.take());
                if !plain {
                    current =
                        Some(StyleRun { row: row_index, col: col as u16, width: 1, fg, bg, attrs });
                }
            }
        }
    }
    out.extend(current);
}

impl fmt::Display for StyledScreen {
    /// The screen's layout, then one line per run: `row R cols A-B: fg=.. bg=.. attrs`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.screen)?;
        write!(f, "styles:")?;
        if self.runs.is_empty() {
            write!(f, " none")?;
        }
        for run in &self.runs {
            write!(f, "\n  row {} cols {}-{}:", run.row, run.col, run.col + run.width - 1)?;
            if run.fg != "default" {
                write!(f, " fg={}", run.fg)?;
            }
            if run.bg != "default" {
                write!(f, " bg={}", run.bg)?;
            }
            for attr in &run.attrs {
                write!(f, " {attr}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_drawn_with_the_sgr_of_its_style() {
        let sgr = |fg: &str, bg: &str, attrs: Vec<&'static str>| {
            StyleRun::new(0, 0, 1, fg, bg, attrs).sgr()
        };
        assert_eq!(sgr("red", "default", vec!["bold"]), "1;31");
        assert_eq!(sgr("bright-blue", "black", vec![]), "94;40");
        assert_eq!(sgr("default", "bright-white", vec!["inverse", "underline"]), "7;4;107");
        assert_eq!(sgr("color(208)", "#1c2b3a", vec![]), "38;5;208;48;2;28;43;58");
        assert_eq!(sgr("dim-green", "default", vec![]), "2;32");
        assert_eq!(sgr("dim-green", "default", vec!["dim"]), "2;32");
        assert_eq!(sgr("default", "default", vec!["strikeout", "hidden", "italic"]), "9;8;3");
    }
}
