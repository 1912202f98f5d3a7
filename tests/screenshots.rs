//! Screenshots of screens that exercise the renderers: a 256-colour chart, 24-bit colours,
//! attributes, box drawing, CJK and emoji. The SVG is an insta snapshot (text); the PNG is a
//! golden image compared byte for byte (the bitmap font makes it the same on every machine):
//! `snapshots/screenshots__*.png`, rewritten with `INSTA_UPDATE=always` like the snapshots.

mod common;

use std::path::PathBuf;

use common::*;
use termloom::{PngOptions, SpawnSpec, StyledScreen, SvgOptions, Until};

/// The screen `script` (printf's format) draws in a 40x12 terminal.
fn screen_of(script: &str) -> StyledScreen {
    let engine = engine();
    let session = engine
        .spawn(
            SpawnSpec::new("sh")
                .args(["-c", &format!("printf '{script}'; echo; echo END; read x")])
                .size(40, 12),
        )
        .unwrap();
    expect(&session, Until::screen_contains("END"));
    session.styled_screen().unwrap()
}

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("snapshots/screenshots__{name}.png"))
}

/// Compares `png` with the golden image `name` (or writes it when snapshots are updated).
fn assert_golden(name: &str, png: &[u8]) {
    let path = golden(name);
    let update = std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "always")
        && std::env::var_os("CI").is_none();
    if update || !path.exists() && std::env::var_os("CI").is_none() {
        std::fs::write(&path, png).unwrap();
        return;
    }
    let stored = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if stored != png {
        let new = path.with_extension("png.new");
        std::fs::write(&new, png).unwrap();
        panic!("{} differs; the new image is {}", path.display(), new.display());
    }
}

fn check(name: &str, script: &str) {
    check_screen(name, &screen_of(script));
}

/// The SVG snapshot and the golden PNG of `styled`.
fn check_screen(name: &str, styled: &StyledScreen) {
    let svg = styled.to_svg(&SvgOptions::default());
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(format!("{name}_svg"), svg);
    });
    // Only the bundled font: the same image on every machine.
    let mut options = PngOptions::default();
    options.system_fonts = false;
    assert_golden(name, &styled.to_png(&options).unwrap());
}

#[test]
fn a_256_colour_chart() {
    let mut script = String::new();
    for row in 0..8 {
        for col in 0..32 {
            script.push_str(&format!("\\033[48;5;{}m ", row * 32 + col));
        }
        script.push_str("\\033[0m\\n");
    }
    script.push_str("\\033[38;2;255;128;0m24-bit orange\\033[0m");
    check("chart", &script);
}

/// vim with syntax colours on a small C file.
#[test]
fn vim_with_syntax_colours() {
    if !require("vim") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("termloom-shot-vim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hello.c"),
        "#include <stdio.h>\n\n/* A greeting. */\nint main(void) {\n    const char *who = \"world\";\n    for (int i = 0; i < 3; i++)\n        printf(\"hello, %s %d\\n\", who, i);\n    return 0;\n}\n",
    )
    .unwrap();
    let engine = engine();
    let vim = engine
        .spawn(
            SpawnSpec::new("vim")
                .args(["-u", "NONE", "-N", "-n", "-i", "NONE", "-c", "syntax on", "hello.c"])
                .cwd(&dir)
                .size(48, 12),
        )
        .unwrap();
    expect(&vim, Until::screen_contains("return 0;"));
    expect(&vim, Until::input_wait());
    check_screen("vim", &vim.styled_screen().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// htop's help screen: its colours, and text that does not change from run to run.
#[test]
fn htop_help() {
    if !require("htop") {
        return;
    }
    let engine = engine();
    let htop = engine
        .spawn(SpawnSpec::new("htop").env("HOME", "/nonexistent-termloom").size(80, 24))
        .unwrap();
    expect(&htop, Until::screen_contains("F10"));
    htop.send_keys("h").unwrap();
    expect(&htop, Until::screen_contains("hide/show kernel threads"));
    expect(&htop, Until::input_wait());
    check_screen("htop_help", &htop.styled_screen().unwrap());
}

#[test]
fn attributes_box_drawing_cjk_and_emoji() {
    let script = "┌──┬──┐\\n│ab│cd│\\n└──┴──┘\\n\\033[1mbold\\033[0m \\033[4munder\\033[0m \\033[7minverse\\033[0m \\033[9mstrike\\033[0m\\n日本語 🙂 e\\314\\201";
    check("text", script);
}

/// A PNG's padding is bounded as its scale is: `u16::MAX` pixels around a 40x12 screen asked
/// for a square of 131,000 pixels a side (50 GB of RGB), whose allocation aborted the process;
/// it is now taken as 256.
#[test]
fn a_png_padding_past_its_bound_is_taken_at_the_bound() {
    let styled = screen_of("hi");
    let mut options = PngOptions::default();
    options.padding = u16::MAX;
    options.system_fonts = false;
    let png = styled.to_png(&options).unwrap();
    let reader = png::Decoder::new(std::io::Cursor::new(&png)).read_info().unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), (2 * 256 + 40 * 8, 2 * 256 + 12 * 16));
}

/// The pixel at `(x, y)` of an RGB or RGBA PNG.
fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let at = (y as usize * info.width as usize + x as usize) * channels;
    [buf[at], buf[at + 1], buf[at + 2]]
}

fn close_to(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 24)
}

/// How many pixels of the cell box `(x0, y0)`-`(x1, y1)` are close to `colour`.
fn count_in(png: &[u8], (x0, y0, x1, y1): (u32, u32, u32, u32), colour: [u8; 3]) -> usize {
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            if close_to(pixel(png, x, y), colour) {
                n += 1;
            }
        }
    }
    n
}

/// The SVG, drawn by a real browser (headless Chromium), shows the cells' colours at their
/// cells and each character inside its own cell: the text is placed per cell, so the
/// browser's fonts cannot shift the columns.
#[test]
fn the_svg_renders_in_a_real_browser() {
    let Some(browser) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| common::installed(b, std::env::var_os("PATH").as_deref()))
    else {
        // Says it skips, or under CI fails: .ci/run installs chromium.
        require("chromium");
        return;
    };
    // Row 0: red, green and blue cells; row 1: yellow X's at columns 0, 10 and 31, with ten
    // wide characters (20 columns) before the last one.
    let script = "\\033[48;2;255;0;0m  \\033[48;2;0;255;0m  \\033[48;2;0;0;255m  \\033[0m\\n\\033[38;2;255;255;0mX         X\\033[0m日本語日本語日本語日\\033[38;2;255;255;0mX\\033[0m";
    let styled = screen_of(script);
    let mut options = SvgOptions::default();
    (options.font_size, options.padding) = (20.0, 8.0);
    let svg = styled.to_svg(&options);
    let dir = std::env::temp_dir().join(format!("termloom-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg_path, png_path) = (dir.join("screen.svg"), dir.join("shot.png"));
    std::fs::write(&svg_path, &svg).unwrap();
    // 40x12 cells of 12x24 pixels, and the padding.
    let (width, height) = (40 * 12 + 16, 12 * 24 + 16);
    let output = std::process::Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .args(["--force-device-scale-factor=1", "--default-background-color=00000000"])
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", png_path.display()))
        .arg(format!("file://{}", svg_path.display()))
        .output()
        .unwrap();
    let shot = std::fs::read(&png_path).unwrap_or_else(|e| {
        panic!("{browser} took no screenshot ({e}): {}", String::from_utf8_lossy(&output.stderr))
    });
    let cell =
        |col: u32, row: u32| (8 + col * 12, 8 + row * 24, 8 + (col + 1) * 12, 8 + (row + 1) * 24);
    let centre = |col: u32, row: u32| pixel(&shot, 8 + col * 12 + 6, 8 + row * 24 + 12);
    for (col, colour) in [(0, [255, 0, 0]), (2, [0, 255, 0]), (4, [0, 0, 255])] {
        for c in [col, col + 1] {
            assert!(close_to(centre(c, 0), colour), "cell {c},0 is {:?}", centre(c, 0));
        }
    }
    let yellow = [255, 255, 0];
    for col in [0, 10, 31] {
        let inside = count_in(&shot, cell(col, 1), yellow);
        let (x0, y0, x1, y1) = cell(col, 1);
        let left = count_in(&shot, (x0.saturating_sub(12), y0, x0, y1), yellow);
        let right = count_in(&shot, (x1, y0, x1 + 12, y1), yellow);
        assert!(inside >= 10, "no yellow X drawn in cell {col},1 ({inside} pixels)");
        assert!(
            left + right <= inside / 4,
            "the X at {col} spills over: {left} left, {right} right"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the bundled font lacks is drawn from a system font that has it (DejaVu, which
/// `.ci/run` installs): a glyph, not the placeholder's outline.
#[test]
fn the_png_draws_what_the_bitmap_font_lacks_with_a_system_font() {
    let dejavu = std::path::Path::new("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf");
    if !dejavu.exists() {
        assert!(std::env::var_os("CI").is_none(), "CI must install fonts-dejavu-core (.ci/run)");
        eprintln!("skipped: no DejaVu Sans Mono at {}", dejavu.display());
        return;
    }
    let styled = screen_of("\\342\\210\\200\\342\\206\\222 ok");
    assert!(styled.screen.lines[0].starts_with("∀→ ok"), "{:?}", styled.screen.lines[0]);
    let mut options = PngOptions::default();
    options.padding = 0;
    let drawn = styled.to_png(&options).unwrap();
    options.system_fonts = false;
    let placeholder = styled.to_png(&options).unwrap();
    assert_ne!(drawn, placeholder, "the system font drew nothing different");
    // The placeholder is hollow: its cell's middle is background. The ∀ from DejaVu has ink
    // in the middle rows of its cell, and the `ok` (bundled font) is the same in both.
    let ink = |png: &[u8], cell: u32| {
        (cell * 8..cell * 8 + 8)
            .flat_map(|x| (4..12).map(move |y| (x, y)))
            .filter(|&(x, y)| pixel(png, x, y) != pixel(png, 39 * 8, 10 * 16))
            .count()
    };
    assert!(
        ink(&drawn, 0) > ink(&placeholder, 0),
        "{} vs {}",
        ink(&drawn, 0),
        ink(&placeholder, 0)
    );
    assert!(ink(&drawn, 1) > 0, "the arrow was drawn");
    assert_eq!(ink(&drawn, 3), ink(&placeholder, 3), "the bundled font's glyphs are unchanged");
}

/// Underline and strikeout are drawn on every cell the program gave them, blanks included
/// (vim's `cursorline` underlines its whole row; a form's underlined empty field is blanks):
/// in the SVG and in the PNG, not only under the characters.
#[test]
fn underlined_and_struck_blanks_are_drawn() {
    // Row 0: "ab", three underlined blanks, then a bar; row 1: "x" and five underlined
    // blanks that end the row (the row's text stops at the x); row 2: struck blanks.
    let styled =
        screen_of("ab\\033[4m   \\033[0m|\\n\\033[4mx     \\033[0m\\n\\033[9m    \\033[0m.");
    assert_eq!(styled.screen.lines[..3], ["ab   |", "x", "    ."], "{}", styled.screen);
    assert!(styled.runs.iter().any(|r| (r.row, r.col, r.width) == (1, 0, 6)), "{styled}");

    // The SVG: a line under (or through) every decorated cell, its run's width.
    let svg = styled.to_svg(&SvgOptions::default());
    let attr = |tag: &str, name: &str| {
        let from = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[from..].split('"').next()?.to_owned())
    };
    let rects: Vec<(String, String)> = svg
        .split("<rect ")
        .skip(1)
        .filter_map(|tag| {
            let tag = format!(" {}", tag.split('>').next()?);
            Some((attr(&tag, "x")?, attr(&tag, "width")?))
        })
        .collect();
    for (col, cells) in [(2u16, 3u16), (0, 6), (0, 4)] {
        let x = format!("{:.1}", 8.0 + 8.4 * f32::from(col));
        let width = format!("{:.1}", 8.4 * f32::from(cells));
        assert!(rects.contains(&(x, width)), "no line {cells} cells wide from column {col}: {svg}");
    }

    // The PNG (scale 1, no padding): the underline is the cell's bottom row of pixels, the
    // strikeout its middle one, in the text colour.
    let mut options = PngOptions::default();
    (options.padding, options.system_fonts) = (0, false);
    let png = styled.to_png(&options).unwrap();
    let fg = [0xd0, 0xd0, 0xd0];
    for col in 2..5 {
        assert_eq!(pixel(&png, col * 8 + 4, 15), fg, "row 0, column {col} is underlined");
    }
    for col in 0..6 {
        assert_eq!(pixel(&png, col * 8 + 4, 16 + 15), fg, "row 1, column {col} is underlined");
    }
    for col in 0..4 {
        assert_eq!(pixel(&png, col * 8 + 4, 32 + 8), fg, "row 2, column {col} is struck");
    }
    assert_ne!(pixel(&png, 6 * 8 + 4, 16 + 15), fg, "past the run, nothing");
}

/// A PNG past `PngOptions::max_pixels` is refused with a typed error at once, before its
/// pixels are allocated: scale 4 with the largest padding around a 1000×500 screen is
/// 32,512×32,512 pixels, a 3.2 GB canvas that aborted the process under a memory limit (and
/// took 303 s in a debug build where it did not). The default bound still draws the
/// largest screen at scale 1, and a lower bound refuses what it would otherwise draw.
#[test]
fn png_past_its_pixel_bound_is_refused() {
    let engine = engine();
    let session =
        engine.spawn(SpawnSpec::new("sh").args(["-c", "echo hi; read x"]).size(1000, 500)).unwrap();
    expect(&session, Until::screen_contains("hi"));
    let styled = session.styled_screen().unwrap();
    let mut options = PngOptions::default();
    (options.scale, options.padding, options.system_fonts) = (4, 256, false);
    let started = std::time::Instant::now();
    let err = styled.to_png(&options).unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(1), "{:?}", started.elapsed());
    assert!(
        matches!(
            err,
            termloom::Error::ImageTooLarge { width: 32512, height: 32512, max_pixels }
                if max_pixels == termloom::DEFAULT_PNG_MAX_PIXELS
        ),
        "{err:?}"
    );
    assert_eq!(err.code(), "too_large");
    assert!(err.to_string().contains("max_pixels"), "{err}");

    // The largest screen at scale 1 and the default padding is within the default bound
    // (a lower bound refuses it: the bound is the caller's to set).
    (options.scale, options.padding) = (1, 8);
    options.max_pixels = 8016 * 8016 - 1;
    let err = styled.to_png(&options).unwrap_err();
    assert!(matches!(err, termloom::Error::ImageTooLarge { width: 8016, height: 8016, .. }));
    const { assert!(termloom::DEFAULT_PNG_MAX_PIXELS >= 8016 * 8016) };

    // A usual screen still renders at the largest scale and padding.
    let session = engine.spawn(SpawnSpec::new("sh").args(["-c", "echo hi; read x"])).unwrap();
    expect(&session, Until::screen_contains("hi"));
    let styled = session.styled_screen().unwrap();
    let (cols, rows) = (u32::from(styled.screen.cols), u32::from(styled.screen.rows));
    (options.scale, options.padding, options.max_pixels) =
        (4, 256, termloom::DEFAULT_PNG_MAX_PIXELS);
    let png = styled.to_png(&options).unwrap();
    assert_eq!(png_size(&png), (cols * 32 + 512, rows * 64 + 512));
}

/// A PNG's width and height, from its header.
fn png_size(png: &[u8]) -> (u32, u32) {
    let field = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (field(16), field(20))
}
