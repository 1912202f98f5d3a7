//! Entry points for the fuzz targets in `fuzz/`, for `tests/fuzz_corpus.rs` (which replays
//! every saved corpus input on the stable toolchain) and for the benchmarks in `benches/`,
//! which measure the real code rather than copies of it.
//!
//! Not part of the stable API: hidden from the documentation and free to change. Each
//! function takes arbitrary bytes and must neither panic nor grow memory past the engine's
//! bounds, whatever the bytes are.

use crate::config::Config;
use crate::term::Terminal;
use crate::term::emulator::Turn;
use crate::term::scan::MarkKey;

/// Feeds bytes through the whole output path (scanner, emulator, transcript) as a session's
/// reactor would, then takes every view (screen, styled screen, transcript read, tail).
///
/// The first two bytes choose the terminal's size, how the rest is split into reads and
/// whether shell-integration marks must carry a key (`k=0123456789abcdef`), so the fuzzer
/// explores sizes, read boundaries and both ways of taking marks too.
pub fn feed_terminal(data: &[u8]) {
    let (cols, rows, chunk, keyed, rest) = match data {
        [a, b, rest @ ..] => {
            let cols = 2 + u16::from(*a % 119);
            let rows = 1 + u16::from(*b % 40);
            let chunk = 1 + usize::from(a ^ b) * 7;
            (cols, rows, chunk, b & 0x80 != 0, rest)
        }
        _ => (80, 24, 4096, false, data),
    };
    let key = keyed.then(|| MarkKey::from_digits(*b"0123456789abcdef"));
    let mut terminal = Terminal::new(cols, rows, &Config::default(), key);
    for piece in rest.chunks(chunk) {
        feed_whole(&mut terminal, piece);
        // Reads interleave with output, as a caller's would.
        if piece.len() % 3 == 0 {
            let _ = terminal.read(0, 4096);
        }
    }
    let _ = terminal.screen();
    let _ = terminal.styled_screen().to_string();
    let _ = terminal.read(0, 1 << 20);
    terminal.resize(cols.saturating_add(7).min(crate::MAX_COLS), rows / 2 + 1, keyed);
    let _ = terminal.screen();
    // The session ends: the rows below the cursor are read too.
    terminal.end();
    let _ = terminal.read(0, 1 << 20);
    let _ = terminal.retained(1 << 20);
}

/// Feeds `bytes` to `terminal` in turns of 16 KiB of work until none is left pending, as the
/// reactor would, with the input queue's default room for replies.
fn feed_whole(terminal: &mut Terminal, bytes: &[u8]) {
    let mut turn = Turn { budget: 16 << 10, reply_room: 1 << 20, ..Turn::default() };
    terminal.feed(bytes, &mut turn);
    while terminal.has_pending() {
        turn.budget = 16 << 10;
        terminal.resume(&mut turn);
    }
}

/// Shows a terminal's screen to a caller up to five times over, as the MCP tools do, and checks
/// that each screen sent as changes (rows listed, a block of rows moved, rows slid sideways)
/// rebuilds exactly from the screens seen before it: panics if not.
///
/// The first byte chooses the size and the marks (unlabelled highlights or none); the rest is
/// the output, split into the five screens' parts at `0xff` bytes (a byte no UTF-8 holds): as
/// many as the looks kept and one more, so each of them can be the base.
pub fn screen_diff(data: &[u8]) {
    use crate::mcp::tools::screen_diff::{Frame, SeenScreens, Shape, Styles, rebuilds};
    let Some((&choice, rest)) = data.split_first() else { return };
    let cols = 4 + u16::from(choice & 0x1f);
    let rows = 2 + u16::from(choice >> 5 & 3) * 3;
    let styles = if choice & 0x80 == 0 { Styles::Meaningful } else { Styles::Off };
    let mut terminal = Terminal::new(cols, rows, &Config::default(), None);
    let seen = SeenScreens::default();
    let id = crate::SessionId(1);
    // The distinct screens the caller was shown, newest last, as the caller keeps them.
    let mut shown: Vec<Frame> = Vec::new();
    for part in rest.split(|&b| b == 0xff).take(5) {
        feed_whole(&mut terminal, part);
        let styled = terminal.styled_screen();
        let frame = Frame::new(&styled.screen, &styled.runs, styles);
        let mut told_same = None;
        if let Shape::Changes(changes) = seen.shape(id, &frame, false) {
            let base = &shown[shown.len() - usize::from(changes.look)];
            if let Err(wrong) = rebuilds(base, &changes, &frame) {
                panic!("{changes:?} do not rebuild the screen: {wrong}");
            }
            told_same = changes.told_same();
        }
        seen.remember(id, Some(frame.clone()), told_same);
        // A screen told as one seen before is that look, moved to the newest place (as the
        // caller reads the header); one seen again is too.
        match told_same {
            Some(back) => drop(shown.remove(shown.len() - usize::from(back))),
            None => shown.retain(|look| !look.looks_same(&frame)),
        }
        shown.push(frame);
    }
}

/// Appends the text of one grid row to `out` as the transcript and the screen take it (wide
/// characters once, combining marks kept, tabs as blanks, trailing blanks trimmed); returns the
/// cells the kept text covers.
pub use crate::term::row_text::row_text;

/// The whole output path of one session (scanner, rules, emulator, transcript), fed from
/// memory as the reactor feeds it, for benchmarks.
#[derive(Debug)]
pub struct Feeder(Terminal);

impl Feeder {
    /// A terminal of `cols` × `rows` with the default configuration.
    pub fn new(cols: u16, rows: u16) -> Feeder {
        Feeder(Terminal::new(cols, rows, &Config::default(), None))
    }

    /// Feeds `bytes` completely as the reactor feeds what it reads from a terminal: in reads
    /// of the size it makes, in turns of its work budget.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        use crate::reactor::{TURN_WORK, read_size};
        let mut turn = Turn { budget: TURN_WORK, ..Turn::default() };
        loop {
            if self.0.has_pending() {
                self.0.resume(&mut turn);
            } else if bytes.is_empty() {
                break;
            } else {
                let (read, rest) = bytes.split_at(read_size(turn.budget).min(bytes.len()));
                self.0.feed(read, &mut turn);
                bytes = rest;
            }
            if turn.budget == 0 {
                turn = Turn { budget: TURN_WORK, ..Turn::default() };
            }
        }
    }

    /// Settled transcript lines.
    pub fn settled_lines(&self) -> u64 {
        self.0.transcript().end()
    }
}

/// Decodes the escapes of text sent with `send_text`.
pub fn decode_escapes(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::input::escapes::decode_escapes(text);
    }
}

/// Parses a key script and encodes it for every combination of the input modes that change
/// encodings; a script of bare key names is told a bracketed one
/// ([`crate::bracketed_key_names`]) that must parse, and one that parses and ends in a key
/// name written out ([`crate::key_name_typed_at_end`]) that key, bracketed, a short script
/// that parses to it alone, in a short note ([`crate::tools::typed_key_name_note`]) given
/// with `submit` too unless the key types what its Enter does (Enter, `C-m`, `C-j`), and never
/// given for a script not told.
pub fn key_script(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(bracketed) = crate::input::keys::bracketed_key_names(text) {
        assert!(
            crate::input::keys::parse_key_script(&bracketed).is_ok(),
            "{text:?} is told {bracketed:?}, which does not parse"
        );
    }
    let Ok(items) = crate::input::keys::parse_key_script(text) else { return };
    if let Some((word, pressing)) = crate::input::keys::key_name_typed_at_end(text) {
        let told = crate::input::keys::parse_key_script(&pressing);
        let key = word.parse::<crate::Key>().ok();
        assert!(
            matches!(told.as_deref(), Ok([crate::ScriptItem::Key(only)]) if Some(*only) == key),
            "{text:?} is told {pressing:?}, which is not the key {word}"
        );
        assert!(pressing.len() <= 16, "{text:?} is told {} bytes", pressing.len());
        // A key that types what `submit`'s Enter types, a carriage return or a line feed
        // (Enter, C-m, C-j), in the terminal's default modes.
        let enter = told.as_deref().is_ok_and(|items| {
            let typed = crate::input::keys::encode_script(items, &Default::default());
            matches!(typed.as_slice(), b"\r" | b"\n")
        });
        for submit in [false, true] {
            let note = crate::tools::typed_key_name_note(text, submit);
            assert_eq!(note.is_some(), !(submit && enter), "{text:?}, submit {submit}: {note:?}");
            let note = note.unwrap_or_default();
            assert!(note.len() <= 100, "{text:?} is noted in {} bytes", note.len());
        }
    } else {
        assert_eq!(crate::tools::typed_key_name_note(text, false), None, "{text:?}");
        assert_eq!(crate::tools::typed_key_name_note(text, true), None, "{text:?}");
    }
    for app_cursor in [false, true] {
        for (kitty, modify_other_keys) in [(0u8, 0u8), (0, 1), (0, 2), (1, 0), (31, 0)] {
            let modes = crate::input::keys::KeyModes {
                app_cursor,
                kitty_flags: kitty,
                modify_other_keys,
                ..Default::default()
            };
            let _ = crate::input::keys::encode_script(&items, &modes);
        }
    }
}

/// Parses one MCP message (one line of the stdio transport) as the server does before it
/// dispatches it.
pub fn mcp_message(data: &[u8]) {
    crate::mcp::parse_for_fuzzing(data);
}

/// Parses and validates a TOML configuration file.
pub fn config_toml(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Config::from_toml_str(text);
    }
}

/// Decides a start with a policy: the first byte chooses a shell line or an argv (split at
/// spaces), the rest is the line; the request is built (shell words, wrappers, `PATH`
/// lookups) and decided by a policy with every kind of rule.
pub fn spawn_policy(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let spec = if mode & 1 == 0 {
        crate::SpawnSpec::shell(text.as_ref())
    } else {
        let mut words = text.split(' ');
        crate::SpawnSpec::new(words.next().unwrap_or("")).args(words)
    };
    let policy = crate::Policy::from_toml_str(
        r#"
        default = "ask"
        [[rules]]
        program = ["rm", "/usr/bin/*"]
        args = "-r"
        decision = "deny"
        [[rules]]
        program = ["ls", "sh"]
        cwd = ["/tmp"]
        env = ["PATH"]
        decision = "allow"
        "#,
    )
    .expect("the fuzz policy is valid");
    let request = crate::SpawnRequest::of(&spec, std::path::PathBuf::from("/tmp"));
    let _ = policy.decide(&request);
    let _ = request.describe();
}
