//! A styled screen drawn as SVG: [`StyledScreen::to_svg`]. Text stays text (small, searchable,
//! selectable), every character cluster is placed at its cell's column explicitly (so a
//! browser's fallback font for a missing glyph cannot shift the columns after it), and
//! backgrounds, inverse video, underlines, strikeouts and the cursor are rectangles on the
//! cell grid.

use std::fmt::Write;

use unicode_width::UnicodeWidthChar;

use super::style::{COLOR_NAMES as NAMES, StyleRun, StyledScreen};

/// An RGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// The colours a screenshot is drawn in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Theme {
    /// The default text colour.
    pub foreground: Rgb,
    /// The default background.
    pub background: Rgb,
    /// The cursor's block.
    pub cursor: Rgb,
    /// Colours 0 to 15: black, red, green, yellow, blue, magenta, cyan, white, then the bright
    /// ones. Colours 16 to 255 are xterm's (a 6×6×6 cube and 24 greys); 24-bit colours are
    /// drawn as they are.
    pub palette: [Rgb; 16],
}

impl Theme {
    /// Light text on a dark background (the default).
    pub fn dark() -> Theme {
        Theme {
            foreground: Rgb(0xd0, 0xd0, 0xd0),
            background: Rgb(0x1c, 0x1c, 0x1c),
            cursor: Rgb(0xd0, 0xd0, 0xd0),
            palette: XTERM_16,
        }
    }

    /// Dark text on a light background.
    pub fn light() -> Theme {
        Theme {
            foreground: Rgb(0x1c, 0x1c, 0x1c),
            background: Rgb(0xfa, 0xfa, 0xfa),
            cursor: Rgb(0x1c, 0x1c, 0x1c),
            palette: XTERM_16,
        }
    }

    /// A colour of the styled screen's notation (`default`, `red`, `bright-blue`, `dim-red`,
    /// `color(N)`, `#rrggbb`); `default` is `fallback`.
    fn resolve(&self, name: &str, fallback: Rgb) -> Rgb {
        if let Some(index) = NAMES.iter().position(|n| *n == name) {
            return self.palette[index];
        }
        if let Some(base) = name.strip_prefix("dim-") {
            let Rgb(r, g, b) = self.resolve(base, fallback);
            return Rgb(r / 3 * 2, g / 3 * 2, b / 3 * 2);
        }
        if let Some(index) = name.strip_prefix("color(").and_then(|n| n.strip_suffix(')')) {
            return index.parse::<u8>().map_or(fallback, |i| self.indexed(i));
        }
        if let Some(hex) = name.strip_prefix('#').filter(|h| h.len() == 6) {
            let byte = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).unwrap_or(0);
            return Rgb(byte(0), byte(2), byte(4));
        }
        fallback
    }

    /// Colour `index` of the 256-colour palette.
    fn indexed(&self, index: u8) -> Rgb {
        match index {
            0..=15 => self.palette[usize::from(index)],
            16..=231 => {
                let i = index - 16;
                let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
                Rgb(level(i / 36), level(i / 6 % 6), level(i % 6))
            }
            232..=255 => {
                let grey = 8 + (index - 232) * 10;
                Rgb(grey, grey, grey)
            }
        }
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::dark()
    }
}

/// xterm's first 16 colours.
const XTERM_16: [Rgb; 16] = [
    Rgb(0x00, 0x00, 0x00),
    Rgb(0xcd, 0x00, 0x00),
    Rgb(0x00, 0xcd, 0x00),
    Rgb(0xcd, 0xcd, 0x00),
    Rgb(0x00, 0x00, 0xee),
    Rgb(0xcd, 0x00, 0xcd),
    Rgb(0x00, 0xcd, 0xcd),
    Rgb(0xe5, 0xe5, 0xe5),
    Rgb(0x7f, 0x7f, 0x7f),
    Rgb(0xff, 0x00, 0x00),
    Rgb(0x00, 0xff, 0x00),
    Rgb(0xff, 0xff, 0x00),
    Rgb(0x5c, 0x5c, 0xff),
    Rgb(0xff, 0x00, 0xff),
    Rgb(0x00, 0xff, 0xff),
    Rgb(0xff, 0xff, 0xff),
];

/// How a screenshot is drawn.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SvgOptions {
    /// The colours.
    pub theme: Theme,
    /// The font size in pixels; a cell is 0.6 of it wide and 1.2 of it high.
    pub font_size: f32,
    /// Space around the grid, in pixels.
    pub padding: f32,
    /// The CSS font family list, as written in CSS (`"Fira Code", monospace`); it is escaped
    /// into the SVG's `font-family` attribute.
    pub font_family: String,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            theme: Theme::dark(),
            font_size: 14.0,
            padding: 8.0,
            font_family: "'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace".to_owned(),
        }
    }
}

/// One character cluster (a base character and its combining marks) at its cell.
pub(crate) struct Cluster<'a> {
    pub(crate) col: u16,
    pub(crate) width: u16,
    pub(crate) text: &'a str,
}

/// The clusters of a row's text, each at its cell column.
pub(crate) fn clusters(line: &str) -> Vec<Cluster<'_>> {
    let mut out: Vec<Cluster<'_>> = Vec::new();
    let mut col: u16 = 0;
    let mut start = None::<(usize, u16, u16)>;
    for (at, c) in line.char_indices() {
        let width = c.width().unwrap_or(0) as u16;
        if width == 0 && start.is_some() {
            continue; // A combining mark stays with its base.
        }
        if let Some((from, at_col, w)) = start.take() {
            out.push(Cluster { col: at_col, width: w, text: &line[from..at] });
        }
        start = Some((at, col, width.max(1)));
        col += width.max(1);
    }
    if let Some((from, at_col, w)) = start {
        out.push(Cluster { col: at_col, width: w, text: &line[from..] });
    }
    out
}

/// Writes `text` escaped for XML text or an attribute value (HTML's too: the secret page's).
/// Characters XML 1.0 forbids cannot be written even as references: C0 controls (tab, line
/// feed and carriage return included, so that a row stays one line) become a space, the
/// non-characters U+FFFE and U+FFFF become U+FFFD (Rust strings hold no lone surrogates).
pub(crate) fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 => out.push(' '),
            '\u{FFFE}' | '\u{FFFF}' => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
}

/// A cell's colours and attributes, resolved.
#[derive(Clone, PartialEq)]
pub(crate) struct Look {
    pub(crate) fg: Rgb,
    pub(crate) bg: Option<Rgb>,
    pub(crate) bold: bool,
    pub(crate) italic: bool,
    pub(crate) underline: bool,
    pub(crate) strikeout: bool,
    pub(crate) dim: bool,
    pub(crate) hidden: bool,
}

pub(crate) fn look(run: Option<&StyleRun>, theme: &Theme) -> Look {
    let Some(run) = run else {
        return Look {
            fg: theme.foreground,
            bg: None,
            bold: false,
            italic: false,
            underline: false,
            strikeout: false,
            dim: false,
            hidden: false,
        };
    };
    let has = |attr: &str| run.attrs.contains(&attr);
    let fg = theme.resolve(&run.fg, theme.foreground);
    let bg = (run.bg != "default").then(|| theme.resolve(&run.bg, theme.background));
    let (fg, bg) =
        if has("inverse") { (bg.unwrap_or(theme.background), Some(fg)) } else { (fg, bg) };
    Look {
        fg,
        bg,
        bold: has("bold"),
        italic: has("italic"),
        underline: has("underline"),
        strikeout: has("strikeout"),
        dim: has("dim"),
        hidden: has("hidden"),
    }
}

impl StyledScreen {
    /// The screen as an SVG image: the cell grid with its colours (16, 256 and 24-bit),
    /// bold, italic, underline, strikeout, dim, inverse, wide characters, combining marks and
    /// the cursor (a block at its cell when visible).
    ///
    /// ```
    /// # fn demo(styled: &termloom::StyledScreen) {
    /// use termloom::{SvgOptions, Theme};
    /// let mut options = SvgOptions::default();
    /// options.theme = Theme::light();
    /// options.theme.palette[1] = termloom::Rgb(0xc0, 0x30, 0x30); // a softer red
    /// options.font_size = 16.0;
    /// let svg = styled.to_svg(&options);
    /// assert!(svg.starts_with("<svg"));
    /// # }
    /// ```
    pub fn to_svg(&self, options: &SvgOptions) -> String {
        let theme = &options.theme;
        let cell_w = options.font_size * 0.6;
        let cell_h = options.font_size * 1.2;
        let pad = options.padding;
        let screen = &self.screen;
        let width = pad * 2.0 + cell_w * f32::from(screen.cols);
        let height = pad * 2.0 + cell_h * f32::from(screen.rows);
        let x = |col: u16| pad + cell_w * f32::from(col);
        let y = |row: u16| pad + cell_h * f32::from(row);
        // Coordinates formatted once: columns' x, widths in cells, rows' y.
        let xs: Vec<String> = (0..=screen.cols).map(|c| format!("{:.1}", x(c))).collect();
        let widths: Vec<String> =
            (0..=screen.cols).map(|w| format!("{:.1}", cell_w * f32::from(w))).collect();
        let cell_height = format!("{cell_h:.1}");
        let mut out =
            String::with_capacity(64 * usize::from(screen.cols) * usize::from(screen.rows));
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.1}\" height=\"{height:.1}\" \
             viewBox=\"0 0 {width:.1} {height:.1}\" font-family=\""
        );
        escape(&options.font_family, &mut out);
        let _ = write!(out, "\" font-size=\"{}\">", options.font_size);
        let _ = write!(
            out,
            "<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>",
            theme.background.hex()
        );
        if !screen.title.is_empty() {
            out.push_str("<title>");
            escape(&screen.title, &mut out);
            out.push_str("</title>");
        }
        for (row, line) in screen.lines.iter().enumerate() {
            let row = row as u16;
            // This row's runs (the runs are in row order), each with its look resolved once.
            let first = self.runs.partition_point(|r| r.row < row);
            let end = first + self.runs[first..].partition_point(|r| r.row == row);
            let looks: Vec<(&StyleRun, Look)> =
                self.runs[first..end].iter().map(|run| (run, look(Some(run), theme))).collect();
            // Backgrounds: every run with one (the run covers blank cells too).
            let row_y = format!("{:.1}", y(row));
            for (run, run_look) in &looks {
                if let Some(bg) = run_look.bg {
                    let _ = write!(
                        out,
                        "<rect x=\"{}\" y=\"{row_y}\" width=\"{}\" height=\"{cell_height}\" fill=\"{}\"/>",
                        xs[usize::from(run.col.min(screen.cols))],
                        widths[usize::from(run.width.min(screen.cols))],
                        bg.hex()
                    );
                }
            }
            let plain = look(None, theme);
            // Clusters come in column order, so the run that styles one is found by moving
            // forward through the row's runs.
            let mut next_run = 0;
            let mut style_at = |col: u16| -> &Look {
                while next_run < looks.len()
                    && looks[next_run].0.col + looks[next_run].0.width <= col
                {
                    next_run += 1;
                }
                match looks.get(next_run) {
                    Some((run, run_look)) if run.col <= col => run_look,
                    _ => &plain,
                }
            };
            // Text: one element per stretch of one look; in it, one span per stretch of
            // single-cell characters, each placed by its own x (a wide or combined character
            // gets a span of its own).
            let baseline = format!("{:.1}", y(row) + options.font_size);
            let mut open: Option<Look> = None;
            let mut span: Vec<Cluster<'_>> = Vec::new();
            let flush = |span: &mut Vec<Cluster<'_>>, out: &mut String| {
                while span.last().is_some_and(|c| c.text.trim().is_empty()) {
                    span.pop();
                }
                if span.is_empty() {
                    return;
                }
                out.push_str("<tspan x=\"");
                for (i, cluster) in span.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(&xs[usize::from(cluster.col.min(screen.cols))]);
                }
                out.push('"');
                if let [only] = span.as_slice()
                    && only.width > 1
                {
                    let width = &widths[usize::from(only.width.min(screen.cols))];
                    let _ = write!(out, " textLength=\"{width}\"");
                }
                out.push('>');
                for cluster in span.drain(..) {
                    escape(cluster.text, out);
                }
                out.push_str("</tspan>");
            };
            for cluster in clusters(line) {
                let cell_look = style_at(cluster.col).clone();
                let blank = cluster.text.trim().is_empty();
                if cell_look.hidden || (blank && open.as_ref() != Some(&cell_look)) {
                    flush(&mut span, &mut out);
                    continue;
                }
                if open.as_ref() != Some(&cell_look) {
                    flush(&mut span, &mut out);
                    if open.is_some() {
                        out.push_str("</text>");
                    }
                    let _ = write!(out, "<text y=\"{baseline}\" fill=\"{}\"", cell_look.fg.hex());
                    if cell_look.bold {
                        out.push_str(" font-weight=\"bold\"");
                    }
                    if cell_look.italic {
                        out.push_str(" font-style=\"italic\"");
                    }
                    if cell_look.dim {
                        out.push_str(" opacity=\"0.6\"");
                    }
                    out.push_str(" xml:space=\"preserve\">");
                    open = Some(cell_look);
                }
                // A cluster that is not one single-cell character stands alone.
                let simple = cluster.width == 1 && cluster.text.chars().count() == 1;
                let adjacent = span.last().is_some_and(|last| last.col + last.width == cluster.col);
                if !simple
                    || !adjacent
                    || span
                        .first()
                        .is_some_and(|first| first.width > 1 || first.text.chars().count() > 1)
                {
                    flush(&mut span, &mut out);
                }
                span.push(cluster);
            }
            flush(&mut span, &mut out);
            if open.is_some() {
                out.push_str("</text>");
            }
            // Underline and strikeout: lines across every cell of their runs, blanks included
            // (a row's text stops at its last character; vim's cursorline does not).
            for (run, run_look) in &looks {
                if run_look.hidden {
                    continue;
                }
                let lines = [(run_look.underline, 0.1), (run_look.strikeout, -0.3)];
                for (_, below_baseline) in lines.into_iter().filter(|(drawn, _)| *drawn) {
                    let _ = write!(
                        out,
                        "<rect x=\"{}\" y=\"{:.1}\" width=\"{}\" height=\"{:.1}\" fill=\"{}\"{}/>",
                        xs[usize::from(run.col.min(screen.cols))],
                        y(row) + options.font_size * (1.0 + below_baseline),
                        widths[usize::from(run.width.min(screen.cols))],
                        options.font_size / 14.0,
                        run_look.fg.hex(),
                        if run_look.dim { " opacity=\"0.6\"" } else { "" }
                    );
                }
            }
        }
        let cursor = screen.cursor;
        if cursor.visible && cursor.row < screen.rows && cursor.col < screen.cols {
            let _ = write!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{cell_w:.1}\" height=\"{cell_h:.1}\" fill=\"{}\" fill-opacity=\"0.5\"/>",
                x(cursor.col),
                y(cursor.row),
                theme.cursor.hex()
            );
        }
        out.push_str("</svg>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::screen::{Cursor, Screen};
    use crate::types::Modes;

    fn styled(lines: &[&str], runs: Vec<StyleRun>) -> StyledScreen {
        StyledScreen {
            screen: Screen {
                cols: 10,
                rows: lines.len() as u16,
                lines: lines.iter().map(|l| l.to_string()).collect(),
                cursor: Cursor { row: 0, col: 3, visible: true },
                alternate: false,
                title: "a <title>".into(),
                modes: Modes::OFF,
                wrapped: Vec::new(),
                wide_spacer_ends: Vec::new(),
                frames: false,
            },
            runs,
        }
    }

    #[test]
    fn clusters_sit_at_their_cells() {
        let found: Vec<(u16, u16, &str)> =
            clusters("a日e\u{301}b").iter().map(|c| (c.col, c.width, c.text)).collect();
        assert_eq!(found, [(0, 1, "a"), (1, 2, "日"), (3, 1, "e\u{301}"), (4, 1, "b")]);
    }

    #[test]
    fn colours_resolve_in_every_notation() {
        let theme = Theme::dark();
        assert_eq!(theme.resolve("red", Rgb(1, 1, 1)), XTERM_16[1]);
        assert_eq!(theme.resolve("color(196)", Rgb(1, 1, 1)), Rgb(255, 0, 0));
        assert_eq!(theme.resolve("color(232)", Rgb(1, 1, 1)), Rgb(8, 8, 8));
        assert_eq!(theme.resolve("#102030", Rgb(1, 1, 1)), Rgb(0x10, 0x20, 0x30));
        assert_eq!(theme.resolve("default", Rgb(1, 1, 1)), Rgb(1, 1, 1));
    }

    #[test]
    fn text_is_placed_per_cell_styled_and_escaped() {
        let run = StyleRun::new(0, 2, 3, "red", "default", vec!["bold"]);
        let inverse = StyleRun::new(1, 0, 2, "default", "default", vec!["inverse"]);
        let svg = styled(&["a<日x", "ok"], vec![run, inverse]).to_svg(&SvgOptions::default());
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
        assert!(svg.contains("<title>a &lt;title&gt;</title>"), "{svg}");
        // `a<` at columns 0 and 1, `<` escaped; 日 (bold red) at column 2, two cells wide;
        // x at column 4.
        assert!(svg.contains("<tspan x=\"8.0 16.4\">a&lt;</tspan>"), "{svg}");
        assert!(
            svg.contains("fill=\"#cd0000\" font-weight=\"bold\" xml:space=\"preserve\"><tspan x=\"24.8\" textLength=\"16.8\">日</tspan><tspan x=\"41.6\">x</tspan>"),
            "{svg}"
        );
        // Inverse: a background of the foreground colour, text in the background colour.
        assert!(svg.contains("fill=\"#d0d0d0\"/>"), "{svg}");
        assert!(svg.contains("<text y=\"38.8\" fill=\"#1c1c1c\""), "{svg}");
        // The cursor's block.
        assert!(svg.contains("fill-opacity=\"0.5\""), "{svg}");
        assert!(svg.ends_with("</svg>\n"));
    }

    /// Whether `c` may appear in an XML 1.0 document.
    fn xml_char(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
            || c >= '\u{10000}'
    }

    /// Characters XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) never reach the SVG, in the
    /// text or the title, and the font family is escaped as an attribute value.
    #[test]
    fn the_svg_is_xml_whatever_the_screen_and_the_font_family() {
        let mut screen = styled(&["a\u{FFFE}b\u{FFFF}c\u{1}d\u{7f}"], vec![]);
        screen.screen.title = "t\u{FFFF}\u{1b}".into();
        let options = SvgOptions { font_family: "a\"b<c>&d'e".to_owned(), ..SvgOptions::default() };
        let svg = screen.to_svg(&options);
        let bad: Vec<char> = svg.chars().filter(|&c| !xml_char(c)).collect();
        assert!(bad.is_empty(), "{bad:?} in {svg}");
        assert!(svg.contains(">a\u{FFFD}b\u{FFFD}</tspan><tspan x=\"41.6\">c </tspan>"), "{svg}");
        assert!(svg.contains("<title>t\u{FFFD} </title>"), "{svg}");
        assert!(svg.contains(" font-family=\"a&quot;b&lt;c&gt;&amp;d&apos;e\" "), "{svg}");
    }
}
