//! Glyphs the bundled bitmap font lacks, drawn from the system's fonts when one has them
//! (CJK, symbols, arrows, …), for PNG screenshots.
//!
//! The fonts are found once, by walking the usual font directories (`/usr/share/fonts`,
//! `/usr/local/share/fonts`, `~/.local/share/fonts`, `~/.fonts`, and macOS's `/Library/Fonts`
//! and `/System/Library/Fonts`): TrueType and OpenType files, monospaced ones (a name with
//! `Mono`) first, at most [`MAX_FONTS`] of them, each at most [`MAX_FONT_BYTES`]. A font is
//! read the first time a character needs it and kept, while the fonts kept stay within
//! [`MAX_LOADED_BYTES`] (fonts past it are not read: a character only they have gets the
//! placeholder). The first screenshot that needs a fallback pays for reading the fonts it
//! looks through; a character no font has is remembered as such. Outlines are rasterised with
//! `ab_glyph`. Colour-bitmap fonts (emoji) have no outlines and are passed over, so emoji
//! keep the placeholder. Rasterised glyphs are cached, at most [`MAX_GLYPHS`] of them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use ab_glyph::{Font, FontVec, PxScale, ScaleFont, point};

/// Most font files considered.
pub(crate) const MAX_FONTS: usize = 256;
/// Largest font file read, in bytes.
pub(crate) const MAX_FONT_BYTES: u64 = 64 << 20;
/// Most bytes of fonts kept in memory.
pub(crate) const MAX_LOADED_BYTES: u64 = 128 << 20;
/// Most rasterised glyphs kept; the cache starts over past it.
pub(crate) const MAX_GLYPHS: usize = 4096;

/// A glyph's coverage of its cell box, one byte (0 to 255) per pixel, row by row.
pub(crate) type Coverage = Arc<Vec<u8>>;

struct Fallback {
    paths: Vec<PathBuf>,
    /// Each path's font once read (`None` inside: unreadable).
    fonts: Vec<Option<Option<FontVec>>>,
    glyphs: HashMap<(char, usize, usize), Option<Coverage>>,
    /// Bytes of the fonts read so far.
    loaded: u64,
}

fn fallback() -> &'static Mutex<Fallback> {
    static FALLBACK: OnceLock<Mutex<Fallback>> = OnceLock::new();
    FALLBACK.get_or_init(|| {
        let paths = discover();
        let fonts = paths.iter().map(|_| None).collect();
        Mutex::new(Fallback { paths, fonts, glyphs: HashMap::new(), loaded: 0 })
    })
}

/// `c` drawn by the first system font that has it, in a box `width`×`height` pixels; `None`
/// when no font has it.
pub(crate) fn glyph(c: char, width: usize, height: usize) -> Option<Coverage> {
    let mut state = fallback().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = state.glyphs.get(&(c, width, height)) {
        return found.clone();
    }
    let found = state.rasterise(c, width, height);
    if state.glyphs.len() >= MAX_GLYPHS {
        state.glyphs.clear();
    }
    state.glyphs.insert((c, width, height), found.clone());
    found
}

impl Fallback {
    fn rasterise(&mut self, c: char, width: usize, height: usize) -> Option<Coverage> {
        for index in 0..self.paths.len() {
            if self.fonts[index].is_none() {
                let font = load(&self.paths[index], MAX_LOADED_BYTES - self.loaded);
                self.loaded += font.as_ref().map_or(0, |(_, bytes)| *bytes);
                self.fonts[index] = Some(font.map(|(font, _)| font));
            }
            let Some(Some(font)) = &self.fonts[index] else { continue };
            if font.glyph_id(c).0 == 0 {
                continue;
            }
            if let Some(coverage) = draw(font, c, width, height) {
                return Some(Arc::new(coverage));
            }
        }
        None
    }
}

/// The font at `path` and its size, if it is no larger than `room` bytes.
fn load(path: &Path, room: u64) -> Option<(FontVec, u64)> {
    let size = std::fs::metadata(path).ok()?.len();
    if size > room {
        return None;
    }
    let data = std::fs::read(path).ok()?;
    let size = data.len() as u64;
    FontVec::try_from_vec_and_index(data, 0).ok().map(|font| (font, size))
}

/// Draws `c` to fill the box's height (ascent to descent), squeezed to its width if wider,
/// centred; `None` if the font has no outline for it.
fn draw(font: &FontVec, c: char, width: usize, height: usize) -> Option<Vec<u8>> {
    let id = font.glyph_id(c);
    let mut scale = PxScale::from(height as f32);
    let advance = font.as_scaled(scale).h_advance(id);
    if advance > width as f32 && advance > 0.0 {
        scale.x *= width as f32 / advance;
    }
    let scaled = font.as_scaled(scale);
    let left = ((width as f32 - scaled.h_advance(id)) / 2.0).max(0.0);
    let glyph = id.with_scale_and_position(scale, point(left, scaled.ascent()));
    let outlined = font.outline_glyph(glyph)?;
    let bounds = outlined.px_bounds();
    let mut coverage = vec![0u8; width * height];
    outlined.draw(|x, y, c| {
        let (x, y) = (bounds.min.x as i64 + i64::from(x), bounds.min.y as i64 + i64::from(y));
        if (0..width as i64).contains(&x) && (0..height as i64).contains(&y) {
            let at = y as usize * width + x as usize;
            coverage[at] = coverage[at].max((c.clamp(0.0, 1.0) * 255.0) as u8);
        }
    });
    Some(coverage)
}

/// The font files, monospaced ones first, then by path.
fn discover() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = ["/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts"]
        .iter()
        .chain(&["/System/Library/Fonts"])
        .map(PathBuf::from)
        .collect();
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        dirs.push(home.join(".local/share/fonts"));
        dirs.push(home.join(".fonts"));
    }
    let mut found = Vec::new();
    for dir in dirs {
        walk(&dir, 0, &mut found);
    }
    found.sort_by_key(|path| {
        let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        (!name.contains("mono"), name.contains("bold") || name.contains("italic"), path.clone())
    });
    found.truncate(MAX_FONTS);
    found
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if found.len() >= MAX_FONTS * 4 {
            return;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if meta.is_dir() && depth < 4 {
            walk(&path, depth + 1, found);
        } else if meta.is_file() && meta.len() <= MAX_FONT_BYTES {
            let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
            if matches!(extension.as_deref(), Some("ttf" | "otf" | "ttc")) {
                found.push(path);
            }
        }
    }
}
