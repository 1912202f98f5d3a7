//! A styled screen drawn as a PNG image: [`StyledScreen::to_png`], rasterised in-process with
//! the public-domain 8×8 bitmap font of the `font8x8` crate, each glyph drawn 8 pixels wide
//! and 16 high (rows doubled), so box-drawing lines join from cell to cell. The same screen
//! gives the same image on every machine: no system font is read.
//!
//! What the font lacks (CJK, most symbols) is drawn from a system font that has it, when
//! [`PngOptions::system_fonts`] allows it and one does (see `fallback.rs`): those characters
//! then depend on the machine's fonts. What no font draws (emoji, whose fonts are colour
//! bitmaps) is a placeholder: the outline of the character's cells.

use font8x8::UnicodeFonts;

use super::style::StyledScreen;
use super::svg::{Look, Rgb, Theme, clusters, look};

/// The most padding a PNG takes, in pixels: 65,535 around even a small screen asked for a
/// 131,000-pixel square (50 GB), which no allocation holds.
const MAX_PADDING: u16 = 256;

/// The default bound on a PNG's pixels ([`PngOptions::max_pixels`]): 2^26, 64 Mi pixels
/// (192 MiB of RGB while it is drawn), which the largest screen (`MAX_COLS`×`MAX_ROWS`,
/// 1000×500) holds at scale 1 with the default padding (8,016×8,016 pixels).
pub const DEFAULT_PNG_MAX_PIXELS: u64 = 1 << 26;

/// Cell size at scale 1, in pixels.
const CELL_W: usize = 8;
const CELL_H: usize = 16;

/// How a PNG screenshot is drawn.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PngOptions {
    /// The colours.
    pub theme: Theme,
    /// Pixels per font pixel, 1 to 4: a cell is 8×scale wide and 16×scale high.
    pub scale: u8,
    /// Space around the grid, in pixels, at most 256 (more is taken as 256, as a scale past
    /// 4 is taken as 4).
    pub padding: u16,
    /// Draw what the bundled font lacks with the system's fonts, where one has it. Default
    /// `true`; `false` gives the same image on every machine (placeholders instead).
    pub system_fonts: bool,
    /// The most pixels (width × height, padding included) the image may have, default
    /// [`DEFAULT_PNG_MAX_PIXELS`]: a larger one is refused with [`Error::ImageTooLarge`]
    /// before anything is drawn (each pixel takes 3 bytes while the image is drawn; scale 4
    /// with the largest padding around a 1000×500 screen is a billion pixels, 3.2 GB).
    ///
    /// [`Error::ImageTooLarge`]: crate::Error::ImageTooLarge
    pub max_pixels: u64,
}

impl Default for PngOptions {
    fn default() -> Self {
        PngOptions {
            theme: Theme::dark(),
            scale: 1,
            padding: 8,
            system_fonts: true,
            max_pixels: DEFAULT_PNG_MAX_PIXELS,
        }
    }
}

/// The 8×8 glyph of `c`, if the font has it.
fn glyph(c: char) -> Option<[u8; 8]> {
    font8x8::BASIC_FONTS
        .get(c)
        .or_else(|| font8x8::LATIN_FONTS.get(c))
        .or_else(|| font8x8::BOX_FONTS.get(c))
        .or_else(|| font8x8::BLOCK_FONTS.get(c))
        .or_else(|| font8x8::GREEK_FONTS.get(c))
        .or_else(|| font8x8::HIRAGANA_FONTS.get(c))
        .or_else(|| font8x8::MISC_FONTS.get(c))
        .or_else(|| font8x8::SGA_FONTS.get(c))
}

/// An RGB image being drawn.
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    /// Blends `colour` over the box at `(x, y)`, `width` wide, by `coverage` (0 to 255 per
    /// pixel, row by row).
    fn blend(&mut self, x: usize, y: usize, width: usize, coverage: &[u8], colour: Rgb) {
        for (i, &c) in coverage.iter().enumerate().filter(|(_, c)| **c > 0) {
            let (col, row) = (x + i % width, y + i / width);
            if col >= self.width || row >= self.height {
                continue;
            }
            let at = (row * self.width + col) * 3;
            for (channel, target) in [colour.0, colour.1, colour.2].into_iter().enumerate() {
                let old = u16::from(self.pixels[at + channel]);
                let mixed = (u16::from(target) * u16::from(c) + old * (255 - u16::from(c))) / 255;
                self.pixels[at + channel] = mixed as u8;
            }
        }
    }

    fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, colour: Rgb) {
        for row in y..(y + h).min(self.height) {
            for col in x..(x + w).min(self.width) {
                let at = (row * self.width + col) * 3;
                self.pixels[at..at + 3].copy_from_slice(&[colour.0, colour.1, colour.2]);
            }
        }
    }
}

impl StyledScreen {
    /// The screen as a PNG image: colours (16, 256 and 24-bit), bold (drawn one pixel wider),
    /// underline, strikeout, dim, inverse, wide characters and the cursor (an underline bar at
    /// its cell when visible); see the module's notes on the font.
    ///
    /// # Errors
    ///
    /// [`Error::ImageTooLarge`](crate::Error::ImageTooLarge) when the image would have more
    /// pixels than [`PngOptions::max_pixels`] (nothing is drawn).
    pub fn to_png(&self, options: &PngOptions) -> crate::Result<Vec<u8>> {
        let scale = usize::from(options.scale.clamp(1, 4));
        let (cell_w, cell_h) = (CELL_W * scale, CELL_H * scale);
        let pad = usize::from(options.padding.min(MAX_PADDING));
        let screen = &self.screen;
        let theme = &options.theme;
        let (width, height) = (
            pad * 2 + cell_w * usize::from(screen.cols),
            pad * 2 + cell_h * usize::from(screen.rows),
        );
        let bound = max_pixels(options.max_pixels, isize::MAX as u64);
        let Some(pixels) = pixels_within(width as u64, height as u64, bound) else {
            return Err(crate::Error::ImageTooLarge { width, height, max_pixels: bound });
        };
        let mut canvas = Canvas { width, height, pixels: Vec::new() };
        canvas.pixels = [theme.background.0, theme.background.1, theme.background.2].repeat(pixels);
        for (row, line) in screen.lines.iter().enumerate() {
            let y = pad + row * cell_h;
            let runs: Vec<_> = self.runs.iter().filter(|r| usize::from(r.row) == row).collect();
            for run in &runs {
                if let Some(bg) = look(Some(run), theme).bg {
                    let x = pad + usize::from(run.col) * cell_w;
                    canvas.fill(x, y, usize::from(run.width) * cell_w, cell_h, bg);
                }
            }
            for cluster in clusters(line) {
                let run = runs.iter().find(|r| (r.col..r.col + r.width).contains(&cluster.col));
                let cell_look = look(run.copied(), theme);
                let x = pad + usize::from(cluster.col) * cell_w;
                let width = usize::from(cluster.width) * cell_w;
                let cell = Cell { x, y, width, scale, system_fonts: options.system_fonts };
                draw_cluster(&mut canvas, cluster.text, &cell, &cell_look, theme.background);
            }
            // Underline and strikeout: across every cell of their runs, blanks included (a
            // row's text stops at its last character; vim's cursorline does not).
            for run in &runs {
                let run_look = look(Some(run), theme);
                if run_look.hidden {
                    continue;
                }
                let x = pad + usize::from(run.col) * cell_w;
                let width = usize::from(run.width) * cell_w;
                let fg = ink(&run_look, theme.background);
                if run_look.underline {
                    canvas.fill(x, y + cell_h - scale, width, scale, fg);
                }
                if run_look.strikeout {
                    canvas.fill(x, y + cell_h / 2, width, scale, fg);
                }
            }
        }
        let cursor = screen.cursor;
        if cursor.visible && cursor.row < screen.rows && cursor.col < screen.cols {
            let x = pad + usize::from(cursor.col) * cell_w;
            let y = pad + usize::from(cursor.row) * cell_h + cell_h - 2 * scale;
            canvas.fill(x, y, cell_w, 2 * scale, theme.cursor);
        }
        Ok(encode(&canvas))
    }
}

/// The most pixels a PNG may have: `asked` ([`PngOptions::max_pixels`]), within what a
/// canvas of 3 bytes a pixel takes in a single allocation of at most `largest` bytes
/// (`isize::MAX`: 2^31 - 1 on a 32-bit target, where a bound raised past a third of it
/// panicked as the canvas was made, 3 × its pixels overflowing).
fn max_pixels(asked: u64, largest: u64) -> u64 {
    asked.min(largest / 3)
}

/// The pixels of a `width`×`height` image, if they are at most `bound` (see [`max_pixels`]),
/// as the canvas's length in pixels; computed in `u64`, which no `u32`s' product overflows.
fn pixels_within(width: u64, height: u64, bound: u64) -> Option<usize> {
    let pixels = width.checked_mul(height).filter(|&pixels| pixels <= bound)?;
    usize::try_from(pixels).ok()
}

/// Where a character cluster is drawn.
struct Cell {
    x: usize,
    y: usize,
    /// Its cells' width in pixels.
    width: usize,
    scale: usize,
    system_fonts: bool,
}

/// Draws one character cluster (its base character; combining marks are not drawn);
/// `background` is the theme's, under a cell with no background of its own.
fn draw_cluster(canvas: &mut Canvas, text: &str, at: &Cell, cell: &Look, background: Rgb) {
    let Cell { x, y, width, scale, system_fonts } = *at;
    let Some(c) = text.chars().next() else { return };
    if c == ' ' || cell.hidden {
        return;
    }
    let fg = ink(cell, background);
    let cell_h = CELL_H * scale;
    match glyph(c).filter(|_| width == CELL_W * scale) {
        Some(rows) => {
            for (gy, bits) in rows.iter().enumerate() {
                for gx in 0..8 {
                    let on = bits & (1 << gx) != 0
                        || (cell.bold && gx > 0 && bits & (1 << (gx - 1)) != 0);
                    if on {
                        // Each font row is drawn twice: 8 rows fill the 16-pixel cell.
                        canvas.fill(x + gx * scale, y + gy * 2 * scale, scale, 2 * scale, fg);
                    }
                }
            }
        }
        None if let Some(coverage) =
            system_fonts.then(|| super::fallback::glyph(c, width, cell_h)).flatten() =>
        {
            canvas.blend(x, y, width, &coverage, fg);
        }
        None => {
            // The placeholder: the outline of the character's cells, inset by a pixel.
            let (left, top) = (x + scale, y + 2 * scale);
            let (w, h) = (width - 2 * scale, cell_h - 4 * scale);
            canvas.fill(left, top, w, scale, fg);
            canvas.fill(left, top + h - scale, w, scale, fg);
            canvas.fill(left, top, scale, h, fg);
            canvas.fill(left + w - scale, top, scale, h, fg);
        }
    }
}

/// The colour a cell's text and lines are drawn in: dim text faded towards what it is drawn
/// on, a third of the way to the background (`background`, the theme's, under a cell with
/// no background of its own).
fn ink(cell: &Look, background: Rgb) -> Rgb {
    if !cell.dim {
        return cell.fg;
    }
    let bg = cell.bg.unwrap_or(background);
    let mix = |f: u8, b: u8| ((u16::from(f) * 2 + u16::from(b)) / 3) as u8;
    Rgb(mix(cell.fg.0, bg.0), mix(cell.fg.1, bg.1), mix(cell.fg.2, bg.2))
}

/// The canvas as PNG bytes (RGB, 8 bits).
fn encode(canvas: &Canvas) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, canvas.width as u32, canvas.height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let written =
        encoder.write_header().and_then(|mut writer| writer.write_image_data(&canvas.pixels));
    debug_assert!(written.is_ok(), "writing a PNG to memory cannot fail: {written:?}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::screen::style::StyleRun;
    use crate::term::screen::{Cursor, Screen};
    use crate::types::Modes;

    /// A bound on a PNG's pixels raised past what a 32-bit target can allocate (a third of
    /// `isize::MAX`, 3 bytes a pixel) is held to that: the canvas's bytes never overflow.
    /// Before, 3 × the pixels was computed unchecked, and an image of more than 715,827,882
    /// pixels (a 1,000×1,000-cell screen at scale 4 and more) panicked there.
    #[test]
    fn a_canvas_larger_than_a_32_bit_target_allocates_is_refused() {
        let largest = u64::from(i32::MAX.unsigned_abs());
        let bound = max_pixels(u64::MAX, largest);
        assert_eq!(bound, 715_827_882);
        assert!(bound * 3 <= largest);
        // 65,535 × 16 columns (the widest screen at scale 2) by 40,000 pixels: 4.2e10.
        assert_eq!(pixels_within(65_535 * 16, 40_000, bound), None);
        assert_eq!(pixels_within(715_827_882, 1, bound), Some(715_827_882));
        assert_eq!(pixels_within(715_827_883, 1, bound), None);
        assert_eq!(max_pixels(1 << 26, largest), 1 << 26, "a bound within it is kept");
    }

    fn decode(bytes: &[u8]) -> (usize, usize, Vec<u8>) {
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        (info.width as usize, info.height as usize, pixels)
    }

    #[test]
    fn cells_are_drawn_in_their_colours_and_boxes_join() {
        let styled = StyledScreen {
            screen: Screen {
                cols: 4,
                rows: 2,
                lines: vec!["A│日".into(), " │".into()],
                cursor: Cursor { row: 1, col: 0, visible: true },
                alternate: false,
                title: String::new(),
                modes: Modes::OFF,
                wrapped: Vec::new(),
                wide_spacer_ends: Vec::new(),
                frames: false,
            },
            runs: vec![StyleRun::new(0, 0, 1, "red", "blue", vec![])],
        };
        let options = PngOptions { padding: 0, system_fonts: false, ..PngOptions::default() };
        let (w, h, px) = decode(&styled.to_png(&options).unwrap());
        assert_eq!((w, h), (32, 32));
        let at = |x: usize, y: usize| {
            Rgb(px[(y * w + x) * 3], px[(y * w + x) * 3 + 1], px[(y * w + x) * 3 + 2])
        };
        let theme = Theme::dark();
        // Cell (0, 0): a blue background, some red pixels of the A.
        assert_eq!(at(0, 0), theme.palette[4]);
        assert!(
            (0..8)
                .flat_map(|x| (0..16).map(move |y| (x, y)))
                .any(|(x, y)| at(x, y) == theme.palette[1])
        );
        // The vertical box line in column 1 runs from the top of row 0 to the bottom of row 1.
        let line_x = (8..16).find(|&x| at(x, 0) == theme.foreground).expect("a line at the top");
        assert!((0..32).all(|y| at(line_x, y) == theme.foreground), "the line joins");
        // 日 is not in the font: a placeholder outline over its two cells.
        assert_eq!(at(17, 2), theme.foreground);
        assert_eq!(at(30, 2), theme.foreground);
        assert_eq!(at(24, 8), theme.background, "hollow");
        // The cursor's bar at the bottom of cell (1, 0).
        assert_eq!(at(3, 31), theme.cursor);
        // The same screen, the same bytes.
        assert_eq!(styled.to_png(&options).unwrap(), styled.to_png(&options).unwrap());
    }

    /// Dim text is mixed towards the background it is drawn on: the theme's when the cell
    /// has none, so on the light theme it is lighter than normal text, not darker.
    #[test]
    fn dim_text_fades_towards_the_theme_background() {
        let styled = StyledScreen {
            screen: Screen {
                cols: 2,
                rows: 1,
                lines: vec!["AA".into()],
                cursor: Cursor { row: 0, col: 0, visible: false },
                alternate: false,
                title: String::new(),
                modes: Modes::OFF,
                wrapped: Vec::new(),
                wide_spacer_ends: Vec::new(),
                frames: false,
            },
            runs: vec![StyleRun::new(0, 1, 1, "default", "default", vec!["dim"])],
        };
        for theme in [Theme::light(), Theme::dark()] {
            let options = PngOptions {
                padding: 0,
                system_fonts: false,
                theme: theme.clone(),
                ..PngOptions::default()
            };
            let (w, _, px) = decode(&styled.to_png(&options).unwrap());
            let colours = |x0: usize| {
                let mut found: Vec<Rgb> = (x0..x0 + 8)
                    .flat_map(|x| (0..16).map(move |y| (x, y)))
                    .map(|(x, y)| {
                        let at = (y * w + x) * 3;
                        Rgb(px[at], px[at + 1], px[at + 2])
                    })
                    .filter(|c| *c != theme.background)
                    .collect();
                found.dedup();
                found
            };
            assert_eq!(colours(0), vec![theme.foreground], "normal text");
            let fg = theme.foreground;
            let bg = theme.background;
            let mix = |f: u8, b: u8| ((u16::from(f) * 2 + u16::from(b)) / 3) as u8;
            let dimmed = Rgb(mix(fg.0, bg.0), mix(fg.1, bg.1), mix(fg.2, bg.2));
            assert!(colours(8).iter().all(|c| *c == dimmed), "{:?} != {dimmed:?}", colours(8));
            let light = |c: Rgb| u32::from(c.0) + u32::from(c.1) + u32::from(c.2);
            let (normal, dim) = (light(fg).abs_diff(light(bg)), light(dimmed).abs_diff(light(bg)));
            assert!(dim < normal, "dim text is closer to the background");
        }
    }
}
