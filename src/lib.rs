//! termloom: a headless, fully terminal-emulating session engine.
//!
//! It runs programs under real pseudo-terminals, feeds every byte they print into an
//! [`alacritty_terminal`] grid, and gives its caller two views of each session:
//!
//! - a **settled line transcript** ([`Session::read`]): what scrolled by, as a person would
//!   have read it, with only the new part on each read;
//! - a **rendered screen snapshot** ([`Session::screen`]): the visible grid, alternate screen
//!   included, with cursor, title and modes.
//!
//! Callers type into sessions, wait for precise conditions ([`Until`]) instead of sleeping,
//! and close them without leaving a process behind. One `mio` reactor thread drives every
//! session; see ARCHITECTURE.md.
//!
//! ```no_run
//! use std::time::Duration;
//! use termloom::{Config, Engine, SpawnSpec, Until};
//!
//! let engine = Engine::new(Config::default())?;
//! let py = engine.spawn(SpawnSpec::new("python3").arg("-q"))?;
//! // A timeout is an outcome, not an error: `held()?` makes it one.
//! py.wait(Until::text(">>> "), Duration::from_secs(10))?.held()?;
//! py.submit("6 * 7")?;
//! py.wait(Until::regex(r"^42$")?, Duration::from_secs(10))?.held()?;
//! print!("{}", py.read()?.text);
//! println!("{}", py.screen()?);
//! py.close()?;
//! # Ok::<(), termloom::Error>(())
//! ```

// Linux alone: the supervisor, the child's isolation, the waits on pidfds and Landlock have no
// stand-in elsewhere (ARCHITECTURE.md, "Platforms", says what a port would need).
#[cfg(not(target_os = "linux"))]
compile_error!("termloom builds on Linux only: see ARCHITECTURE.md, \"Platforms\"");

mod config;
mod config_file;
mod digest;
mod engine;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod input;
pub mod mcp;
/// The model-facing terminal tools as a library call (see [`tools::Toolbox`]).
pub mod tools {
    pub use crate::mcp::tools::toolbox::{
        DEFAULT_MAX_QUEUED_CALLS, SecretAsk, ToolCancel, ToolDefinition, ToolResult, Toolbox,
    };

    /// The line `terminal_send`'s result adds when its `keys` end in a key name written out
    /// after text and typed as its letters (see [`crate::key_name_typed_at_end`]): `[keys typed
    /// its last word, C-c, as text; <C-c> presses the key]`. `submit` as the call gives it:
    /// Enter pressed after the keys makes a last word `Enter` (or `C-m`, `C-j`, which type the
    /// same) no note (the key told would be pressed twice); any other key is still told.
    /// `None` when nothing is to be said. The command line's `send` and `run --keys` put this
    /// line in their terms.
    pub fn typed_key_name_note(keys: &str, submit: bool) -> Option<String> {
        crate::mcp::tools::typed_key_name_note(keys, submit)
    }

    /// What a wait's line adds when its condition holds termloom's marks (`⟦ ⟧` around
    /// highlighted text, `▌` at the cursor) that the program did not print and the wait ended
    /// unmet; the structured result's `wait` says `termloom_marks: true` instead (the command
    /// line's `--json` puts this note among its `notes`).
    pub const MARKS_NOTE: &str = crate::mcp::tools::MARKS_NOTE;

    /// The longest wait a tool call may ask for (`timeout_ms`, `quiet_ms`...), in
    /// milliseconds: an hour. A longer one is refused, naming this bound.
    pub const MAX_TIMEOUT_MS: u64 = crate::mcp::tools::MAX_TIMEOUT_MS;

    /// The smallest and largest `max_bytes` a tool call may ask for (inclusive); others are
    /// refused, naming these bounds.
    pub const MAX_BYTES_RANGE: (u64, u64) = crate::mcp::tools::view::MAX_BYTES_RANGE;

    /// Checks a regular expression as `terminal_read`'s `search` takes it: refused, with why,
    /// when it is no regular expression or is too large to search. A search is no wait: a
    /// pattern that every line matches (`.*`, `^`) or that a line cannot hold is taken, as a
    /// look-up that lists every line or none (a wait refuses those, [`crate::Until::regex`]).
    pub fn check_search(pattern: &str) -> Result<(), String> {
        crate::wait::caller_regex(pattern).map(|_| ())
    }
}
mod os;
mod policy;
mod reactor;
pub mod server;
mod session;
mod spec;
mod term;
#[cfg(feature = "testing")]
pub mod testing;
mod types;
mod wait;

pub use config::Config;
pub use engine::Engine;
pub use error::{Error, PendingSecret, RelayUnseen, Result};
pub use input::escapes::decode_escapes;
pub use input::keypad::KeypadKey;
pub use input::keys::{
    ACCEPTED_KEY_FORMS, AFTER_AN_ESCAPE_READ, BETWEEN_ESCAPES, Key, KeyCode, KeyParseError,
    Modifiers, READ_BEFORE_AN_ESCAPE, ScriptItem, bracketed_key_names, escape_read,
    key_name_typed_at_end, line_holds_text, parse_key_script, part_read, part_read_bound,
    text_typing_steps, typing_parts, typing_steps,
};
pub use input::line_breaks::enter_for_line_breaks;
pub use input::mouse::{MouseButton, MouseEncoding, MouseError};
pub use input::signal::{Signal, SignalReport, SignalTarget};
pub use os::confine::Confinement;
pub use os::env::{is_credential_name, is_credential_value};
pub use os::isolation::Limit;
pub use policy::{
    DEFAULT_GUARDED_ENV, Decision, Policy, RequestedCommand, Rule, SpawnHook, SpawnRequest, Verdict,
};
pub use reactor::EngineFuture;
pub use session::{
    MAX_SECRET_BYTES, PROMPT_READ_WAIT, PendingPaste, PendingWait, ReaderId, ScrollDirection,
    Session, WaitCanceller,
};
pub use spec::{SpawnSpec, shell_program};
pub use term::scan::PromptMark;
pub use term::screen::png::{DEFAULT_PNG_MAX_PIXELS, PngOptions};
pub use term::screen::style::{StyleRun, StyledScreen};
pub use term::screen::svg::{Rgb, SvgOptions, Theme};
pub use term::screen::{Cursor, Modes, MouseReporting, Screen, ScreenPos};
pub use types::{
    Activity, CommandResult, ExitStatus, InputKind, LineModes, MAX_COLS, MAX_ROWS, MIN_COLS,
    MIN_ROWS, Output, Process, RawOutput, Scrollback, SessionId, SessionInfo, SessionState, Status,
    TranscriptLines, signal_name,
};
pub use wait::{Fired, Location, Match, Until, WaitOutcome};

// The handles and their futures are shared across threads: a compile-time check.
const _: () = {
    const fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<Engine>();
    send_and_sync::<Session>();
    send_and_sync::<PendingWait>();
    send_and_sync::<PendingPaste>();
    send_and_sync::<WaitCanceller>();
    send_and_sync::<EngineFuture<WaitOutcome>>();
    send_and_sync::<EngineFuture<tools::ToolResult>>();
};

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
