//! The tool catalog: one [`ToolDef`] per tool in [`TOOLS`], with its name, title, hints,
//! description and arguments, and the function that runs it.
//!
//! `tools/list` is what a model reads before its first call, on every conversation, so it is
//! kept small (a test holds it to 8 KB, 8,000 bytes, in every revision): descriptions teach
//! in few words, the shared wait and view arguments are described once (by `terminal_read`)
//! and listed by type elsewhere (a choice's values too), and there are no output schemas.
//! A toolbox's subset of the tools ([`ToolDef::entry_for`]) has them described by its first
//! tool that takes them, and descriptions that name only its tools.
//!
//! Everything else about the tools derives from this table: the `tools/list` entries (every
//! revision's shape), which tools exist, and the checks of a call's arguments (`args.rs`:
//! unknown and missing arguments, types, ranges, choices and defaults). Bounds and defaults
//! come from the crate's constants ([`crate::MIN_COLS`] and the others, [`Config::default`],
//! the MCP server's constants), never repeated as numbers.

use serde_json::{Map, Value, json};

use super::super::protocol::Revision;
use super::args::Args;
use super::offered::Offered;
use super::view::{DEFAULT_MAX_BYTES, MAX_BYTES_RANGE, View};
use super::waits::{SETTLE_QUIET, SETTLE_TIMEOUT};
use super::{Call, ToolError, ToolOutput, control, io};
use crate::mcp::MAX_BYTES_OVERHEAD;
use crate::{Config, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, Signal};

/// Longest wait a call may ask for, in milliseconds: an hour.
pub(crate) const MAX_TIMEOUT_MS: u64 = 3_600_000;
/// How long `terminal_run` waits for its command by default, in milliseconds: safely below
/// the 60 s after which common MCP hosts (the official TypeScript SDK's default) give up on a
/// request, so the "still running" answer reaches them.
const RUN_TIMEOUT_MS: u64 = 45_000;
/// `terminal_close`'s default `max_bytes` (it returns only the output not read yet).
const CLOSE_MAX_BYTES: u64 = 4096;

/// Runs a tool on its checked arguments.
pub(crate) type Handler = fn(&Call, &Args) -> Result<ToolOutput, ToolError>;

/// One tool: everything `tools/list` says of it, and how it runs.
pub(crate) struct ToolDef {
    /// The tool's name, e.g. `terminal_start`.
    pub name: &'static str,
    /// A short human title ([`super::toolbox::ToolDefinition::title`]; `tools/list` leaves
    /// it out).
    pub title: &'static str,
    /// The annotations' hints.
    pub hints: Hints,
    /// What the tool does, written for a model.
    pub description: Text,
    /// The arguments, in groups (shared groups such as [`VIEW`] and [`WAIT`] defined once);
    /// their order is the schema's `required` order and the order error messages list them in.
    pub args: &'static [&'static [ArgDef]],
    /// How many of the leading groups in `args` carry their descriptions in the schema; the
    /// later ones are shared groups described by another tool (`terminal_read`), listed with
    /// their types only, which keeps `tools/list` small.
    pub described: usize,
    /// Runs the tool.
    pub run: Handler,
}

/// Tool annotations (2025-03-26 on): hints to a client about a tool's effects.
pub(crate) struct Hints {
    /// The tool changes nothing.
    pub read_only: bool,
    /// The tool may end something (processes, sessions).
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// It reaches beyond termloom's own state (programs run, files may change).
    pub open_world: bool,
}

/// A description: fixed text, or text built from the constants it names.
pub(crate) enum Text {
    /// Fixed text.
    Fixed(&'static str),
    /// Text built when `tools/list` is answered.
    Built(fn() -> String),
}

impl Text {
    /// The text.
    fn render(&self) -> String {
        match self {
            Text::Fixed(text) => (*text).to_owned(),
            Text::Built(build) => build(),
        }
    }
}

/// One argument of a tool.
pub(crate) struct ArgDef {
    /// Its name.
    pub name: &'static str,
    /// Its type, bounds and default.
    pub kind: Kind,
    /// A call must give it (`null` counts as not given).
    pub required: bool,
    /// What it means, written for a model (empty: the name says it all).
    pub description: Text,
}

/// What an argument's value may be.
pub(crate) enum Kind {
    /// A string.
    Str,
    /// Text to send: an empty one sends nothing and reads as not given (`text: ""` with
    /// `submit` presses Enter alone, as models often write it).
    Input,
    /// One of these strings, `default` when not given.
    OneOf {
        /// The accepted values.
        values: &'static [&'static str],
        /// The value when the argument is not given.
        default: Option<&'static str>,
    },
    /// A signal name; the schema lists [`SIGNALS`], and `SIG` prefixes and lower case are
    /// accepted too.
    Signal,
    /// `true` or `false` (the strings `"true"` and `"false"` are accepted too).
    Bool,
    /// A whole number within `min..=max` (`max` unbounded when `None`), `default` when not
    /// given (numeric strings are accepted too).
    UInt {
        /// Smallest value.
        min: u64,
        /// Largest value, if any.
        max: Option<u64>,
        /// The value when the argument is not given.
        default: Option<u64>,
    },
    /// A session id (a whole number from 1).
    SessionId,
    /// A non-empty list of strings (the tool says itself what an empty one lacks).
    Strings,
    /// Environment variables: names to string values, `null` to remove one.
    Env,
}

impl Kind {
    /// The range of a number: `(min, max)`.
    pub(crate) fn range(&self) -> Option<(u64, Option<u64>)> {
        match *self {
            Kind::UInt { min, max, .. } => Some((min, max)),
            Kind::SessionId => Some((1, None)),
            _ => None,
        }
    }
}

impl ArgDef {
    /// The argument's JSON schema: its type and, when `described`, its choices and its
    /// description (a signal's choices always). An undescribed argument is one a shared
    /// group describes elsewhere (its bounds and choices are still checked, and an error
    /// names them).
    fn schema(&self, described: bool) -> Value {
        let mut schema = match self.kind {
            Kind::Str | Kind::Input | Kind::OneOf { .. } | Kind::Signal => {
                json!({"type": "string"})
            }
            Kind::Bool => json!({"type": "boolean"}),
            Kind::UInt { .. } => json!({"type": "integer"}),
            // An id, or the name given at terminal_start.
            Kind::SessionId => json!({"type": ["integer", "string"]}),
            Kind::Strings => json!({"type": "array", "items": {"type": "string"}}),
            Kind::Env => json!({"type": "object"}),
        };
        match self.kind {
            // A shared choice (`view`) is listed with its values once, where it is described.
            Kind::OneOf { values, .. } if described => schema["enum"] = json!(values),
            Kind::Signal => schema["enum"] = json!(SIGNALS.map(Signal::name)),
            _ => {}
        }
        let description = self.description.render();
        if described && !description.is_empty() {
            schema["description"] = json!(description);
        }
        schema
    }
}

/// The signals `terminal_signal` sends, in the order its schema lists them: every one the
/// crate sends.
const SIGNALS: [Signal; 11] = crate::input::signal::ALL;

/// Every tool, in the order `tools/list` lists them.
pub(crate) const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "terminal_start",
        title: "Start a program",
        hints: ACTS,
        description: Text::Built(start_description),
        args: &[START_ARGS, VIEW, WAIT],
        described: 1,
        run: io::start,
    },
    ToolDef {
        name: "terminal_send",
        title: "Type into a terminal",
        hints: ACTS,
        description: Text::Fixed(
            "Type into a session, then read it as terminal_start does. Sent in this order: text, paste, keys, Enter (submit).",
        ),
        args: &[&[SESSION_ID], SEND_ARGS, VIEW, WAIT],
        described: 2,
        run: io::send,
    },
    ToolDef {
        name: "terminal_read",
        title: "Read a terminal",
        hints: READS,
        description: Text::Fixed(
            "Read a session. A wait field blocks until it holds (or the program exits) instead of sleeping; without one it returns at once. A full-screen program's screen is shown, as its changed rows when few changed.",
        ),
        args: &[&[SESSION_ID], VIEW, WAIT, LOOKUPS],
        described: 4,
        run: io::read,
    },
    ToolDef {
        name: "terminal_mouse",
        title: "Click or scroll",
        hints: ACTS,
        description: Text::Fixed(
            "Click or scroll at row,col (from 0) or on screen text, in a program that reads the mouse; then read as terminal_start does.",
        ),
        args: &[&[SESSION_ID], MOUSE_ARGS, VIEW],
        described: 2,
        run: io::mouse,
    },
    ToolDef {
        name: "terminal_run",
        title: "Run a shell command",
        hints: ACTS,
        description: Text::Fixed(
            "Run a shell command line to its end: its output and exit code. Without session_id a new shell runs it, then closes. Still running at timeout_ms, or waiting for input: it goes on (terminal_read prompt=true, or send). Interactive programs: terminal_start.",
        ),
        args: &[RUN_ARGS, &[max_bytes(DEFAULT_MAX_BYTES)]],
        described: 1,
        run: control::run,
    },
    ToolDef {
        name: "terminal_signal",
        title: "Signal a terminal's programs",
        hints: ENDS,
        description: Text::Fixed(
            "Signal the foreground process group (target=session: all its groups), then wait as terminal_send does.",
        ),
        args: &[&[SESSION_ID], SIGNAL_ARGS],
        described: 2,
        run: control::signal,
    },
    ToolDef {
        name: "terminal_resize",
        title: "Resize a terminal",
        hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
        description: Text::Fixed("Resize a session's terminal (SIGWINCH); shows it redrawn."),
        args: &[&[SESSION_ID], RESIZE_ARGS],
        described: 2,
        run: control::resize,
    },
    ToolDef {
        name: "terminal_close",
        title: "Close a terminal",
        hints: ENDS,
        description: Text::Fixed(
            "End a session and all its processes; returns how it ended and unread output. Close each session you start unless its program exited.",
        ),
        args: &[&[SESSION_ID, max_bytes(CLOSE_MAX_BYTES)]],
        described: 0,
        run: control::close,
    },
    ToolDef {
        name: "terminal_list",
        title: "List terminals",
        hints: READS,
        description: Text::Fixed("List the sessions: id, program, pid, state, size, idle time."),
        args: &[],
        described: 0,
        run: control::list,
    },
];

/// The tool that describes argument `name` under the tools `offered`: the first offered that
/// describes it in its own schema, else the first offered that takes it.
fn describer(name: &str, offered: Offered) -> Option<&'static str> {
    let tools = || TOOLS.iter().filter(|tool| offered.has(tool.name) && tool.accepts(name));
    let tool = tools().find(|tool| tool.describes(name)).or_else(|| tools().next());
    tool.map(|tool| tool.name)
}

/// Tool `name`'s `description` phrased with only the tools `offered` (each phrase that names
/// another is said without it); the same under all of them.
fn alone(name: &str, description: &str, offered: Offered) -> String {
    let has = |tool| offered.has(tool);
    let settled = format!(
        "then wait {}, or for its wait fields; it returns the new output or screen",
        settle()
    );
    let mut text = description.to_owned();
    let mut say = |was: &str, now: &str| text = text.replace(was, now);
    match name {
        "terminal_start" => {
            if !has("terminal_run") {
                say(
                    " (command, argv, or neither: a shell for terminal_run)",
                    " (command, argv, or neither: a shell)",
                );
            }
            if !has("terminal_read") {
                say(
                    ", or for terminal_read's wait fields; returns what terminal_read would.",
                    ", or for its wait fields; returns its output or screen.",
                );
            }
        }
        "terminal_send" if !has("terminal_start") => {
            say("then read it as terminal_start does.", &format!("{settled}."));
        }
        // (It takes no wait fields, review xm.)
        "terminal_mouse" if !has("terminal_start") => {
            say("then read as terminal_start does.", &format!("{}.", waits_alone()));
        }
        "terminal_signal" if !has("terminal_send") => {
            say("then wait as terminal_send does.", &format!("{}.", waits_alone()));
        }
        "terminal_run" => {
            let goes_on = match (has("terminal_read"), has("terminal_send")) {
                (true, true) => "it goes on (terminal_read prompt=true, or send).",
                (true, false) => "it goes on (terminal_read prompt=true).",
                (false, true) => "it goes on (terminal_send answers it).",
                (false, false) => "it goes on.",
            };
            say("it goes on (terminal_read prompt=true, or send).", goes_on);
            if !has("terminal_start") {
                say(" Interactive programs: terminal_start.", "");
            }
        }
        _ => {}
    }
    text
}

/// How a tool that takes no wait fields waits, said without another tool's name.
fn waits_alone() -> String {
    format!("then wait {}; it returns the new output or screen", settle())
}

/// Every tool name, in the order they are listed.
pub(crate) const NAMES: [&str; TOOLS.len()] = {
    let mut names = [""; TOOLS.len()];
    let mut i = 0;
    while i < TOOLS.len() {
        names[i] = TOOLS[i].name;
        i += 1;
    }
    names
};

/// The tool called `name`.
pub(crate) fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|tool| tool.name == name)
}

/// The hints of a tool that acts on the world: it starts or drives programs.
const ACTS: Hints =
    Hints { read_only: false, destructive: false, idempotent: false, open_world: true };
/// The hints of a tool that only looks.
const READS: Hints =
    Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
/// The hints of a tool that may end processes.
const ENDS: Hints =
    Hints { read_only: false, destructive: true, idempotent: false, open_world: true };

/// `session_id` where a tool requires it.
const SESSION_ID: ArgDef = ArgDef {
    name: "session_id",
    kind: Kind::SessionId,
    required: true,
    description: Text::Fixed(""),
};

/// `env` of a new program or shell.
const ENV: ArgDef = ArgDef {
    name: "env",
    kind: Kind::Env,
    required: false,
    description: Text::Fixed("Variables to set (null removes one)."),
};

/// `max_bytes` with its default.
const fn max_bytes(default: u64) -> ArgDef {
    ArgDef {
        name: "max_bytes",
        kind: Kind::UInt {
            min: MAX_BYTES_RANGE.0,
            max: Some(MAX_BYTES_RANGE.1),
            default: Some(default),
        },
        required: false,
        description: Text::Built(max_bytes_description),
    }
}

fn max_bytes_description() -> String {
    format!(
        "Bound of the result in bytes, {}-{} (+{MAX_BYTES_OVERHEAD} of framing).",
        MAX_BYTES_RANGE.0, MAX_BYTES_RANGE.1
    )
}

/// The values of `view`.
const VIEWS: [&str; 3] = [View::ALL[0].name(), View::ALL[1].name(), View::ALL[2].name()];

/// What a reading tool returns and how much.
const VIEW: &[ArgDef] = &[
    ArgDef {
        name: "view",
        kind: Kind::OneOf { values: &VIEWS, default: Some(View::New.name()) },
        required: false,
        description: Text::Fixed(
            "new (default): the transcript since your last read; screen: the whole screen; scrollback: the transcript's end.",
        ),
    },
    max_bytes(DEFAULT_MAX_BYTES),
    flag("styles", "Styled screen text: default ⟦highlights⟧, true ⟦style|all⟧, false none."),
];

/// A string argument.
const fn text(name: &'static str, description: &'static str) -> ArgDef {
    ArgDef { name, kind: Kind::Str, required: false, description: Text::Fixed(description) }
}

/// Text to send (see [`Kind::Input`]).
const fn input(name: &'static str, description: &'static str) -> ArgDef {
    ArgDef { name, kind: Kind::Input, required: false, description: Text::Fixed(description) }
}

/// A boolean argument.
const fn flag(name: &'static str, description: &'static str) -> ArgDef {
    ArgDef { name, kind: Kind::Bool, required: false, description: Text::Fixed(description) }
}

/// A whole number from `min` to `max`.
const fn number(
    name: &'static str,
    min: u64,
    max: u64,
    required: bool,
    description: Text,
) -> ArgDef {
    ArgDef { name, kind: Kind::UInt { min, max: Some(max), default: None }, required, description }
}

/// A duration in milliseconds, from `min` to an hour.
const fn millis(name: &'static str, min: u64, description: Text) -> ArgDef {
    number(name, min, MAX_TIMEOUT_MS, false, description)
}

/// The bound of the optional wait.
const WAIT_TIMEOUT: ArgDef = millis("timeout_ms", 1, Text::Built(wait_timeout_description));

fn wait_timeout_description() -> String {
    format!(
        "Longest wait (default {} ms); a timeout returns what was seen.",
        Config::default().default_wait_timeout.as_millis(),
    )
}

/// The optional wait every reading tool takes: its conditions, then [`WAIT_TIMEOUT`].
const WAIT: &[ArgDef] = &[
    text("for_text", "Text in a new transcript line."),
    text("for_regex", "Rust regex matching a new transcript line."),
    text("for_screen_text", "Text on the screen."),
    text("for_screen_regex", "Regex matching a screen row."),
    number(
        "screen_row",
        0,
        MAX_ROWS as u64 - 1,
        false,
        Text::Fixed("for_screen_* on this row only (from 0)."),
    ),
    text("for_cursor", "The cursor at \"row,col\" (from 0)."),
    millis("quiet_ms", 0, Text::Fixed("No output for this long.")),
    millis("stable_ms", 0, Text::Fixed("The screen unchanged for this long.")),
    flag("prompt", "The shell back at its prompt (shell integration)."),
    flag("input_wait", "The program waiting for input."),
    flag("exit", "The program's exit."),
    WAIT_TIMEOUT,
];

/// `terminal_read`'s look-ups, which leave the read cursor where it is.
const LOOKUPS: &[ArgDef] = &[
    text("lines", "Transcript lines: \"120-160\", \"120-\"."),
    text("search", "Regex: transcript lines it matches."),
    text("find", "Where this text is on the screen."),
    // (Undescribed, for `tools/list` to stay within 8 KB: a look at a screen larger than
    // the result may be advises it, with its value, `screen_rows="20-"`.)
    text("screen_rows", ""),
    flag("svg", "The screen as SVG text."),
    flag("png", "The screen as a PNG image."),
];

/// The default wait of the tools that act, in words.
fn settle() -> String {
    format!(
        "until the program waits for input, exits or is quiet for {} s and not busy (at most {} s)",
        SETTLE_QUIET.as_secs_f64(),
        SETTLE_TIMEOUT.as_secs()
    )
}

/// A terminal size argument from `min` to `max`.
const fn size(name: &'static str, min: u16, max: u16, required: bool, description: Text) -> ArgDef {
    number(name, min as u64, max as u64, required, description)
}

/// `terminal_start`'s own arguments.
const START_ARGS: &[ArgDef] = &[
    text("command", "Run by $SHELL -lc (bash or zsh)."),
    ArgDef {
        name: "argv",
        kind: Kind::Strings,
        required: false,
        description: Text::Fixed("A program and its arguments (no shell)."),
    },
    text("cwd", "Working directory."),
    ENV,
    size("cols", MIN_COLS, MAX_COLS, false, Text::Fixed("")),
    size("rows", MIN_ROWS, MAX_ROWS, false, Text::Fixed("")),
    flag("shell_integration", "Track prompts and exit codes (default: on for the shell)."),
    text("name", "A name usable as session_id."),
    flag("record", "Record it (asciicast); returns the file."),
];

fn start_description() -> String {
    format!(
        "Start a program in a new terminal (command, argv, or neither: a shell for terminal_run). Waits {}, or for terminal_read's wait fields; returns what terminal_read would.",
        settle(),
    )
}

/// `terminal_send`'s own arguments.
const SEND_ARGS: &[ArgDef] = &[
    input(
        "text",
        "Typed, \\n \\r \\t \\e \\xHH \\uHHHH \\\\ decoded, a line break as Enter; literal text: paste.",
    ),
    input(
        "keys",
        "Text and <Enter> <Esc> <Tab> <BS> <Up> <PageDown> <F2> <C-c> <M-x>; <lt> is <. E.g. \"ihi<Esc>:wq<Enter>\".",
    ),
    input("paste", "Text pasted as one block, literally."),
    flag("submit", "Press Enter last."),
    flag("secret", "At a password prompt: the person types it, unseen by you."),
];

/// `terminal_mouse`'s own arguments.
const MOUSE_ARGS: &[ArgDef] = &[
    ArgDef {
        name: "action",
        kind: Kind::OneOf { values: &MOUSE_ACTIONS, default: Some(MOUSE_ACTIONS[0]) },
        required: false,
        description: Text::Fixed(""),
    },
    size("row", 0, MAX_ROWS - 1, false, Text::Fixed("")),
    size("col", 0, MAX_COLS - 1, false, Text::Fixed("")),
    text("text", "Where this text is shown (its first occurrence)."),
    number("count", 1, 100, false, Text::Fixed("Wheel notches (default 3).")),
];

/// The values of `terminal_mouse`'s `action`.
pub(crate) const MOUSE_ACTIONS: [&str; 4] = ["click", "right_click", "scroll_up", "scroll_down"];

/// `terminal_run`'s arguments.
const RUN_ARGS: &[ArgDef] = &[
    ArgDef {
        name: "command",
        kind: Kind::Str,
        required: true,
        description: Text::Fixed("One line; join commands with ; or &&."),
    },
    ArgDef {
        name: "session_id",
        kind: Kind::SessionId,
        required: false,
        description: Text::Fixed("A shell to run in, keeping its directory and variables."),
    },
    text("cwd", "Working directory of a new shell."),
    ENV,
    flag("keep_session", "Keep the new shell open for later calls."),
    ArgDef {
        name: "timeout_ms",
        kind: Kind::UInt { min: 1, max: Some(MAX_TIMEOUT_MS), default: Some(RUN_TIMEOUT_MS) },
        required: false,
        description: Text::Built(|| format!("Default {RUN_TIMEOUT_MS}.")),
    },
];

/// `terminal_signal`'s own arguments.
const SIGNAL_ARGS: &[ArgDef] = &[
    ArgDef { name: "signal", kind: Kind::Signal, required: true, description: Text::Fixed("") },
    ArgDef {
        name: "target",
        kind: Kind::OneOf { values: &["foreground", "session"], default: Some("foreground") },
        required: false,
        description: Text::Fixed(""),
    },
];

/// `terminal_resize`'s own arguments.
const RESIZE_ARGS: &[ArgDef] = &[
    size("cols", MIN_COLS, MAX_COLS, true, Text::Fixed("")),
    size("rows", MIN_ROWS, MAX_ROWS, true, Text::Fixed("")),
];

impl ToolDef {
    /// Every argument, in order.
    pub(crate) fn args(&self) -> impl Iterator<Item = &'static ArgDef> + use<> {
        let groups: &'static [&'static [ArgDef]] = self.args;
        groups.iter().flat_map(|group| group.iter())
    }

    /// The argument called `name`.
    pub(crate) fn arg(&self, name: &str) -> Option<&'static ArgDef> {
        self.args().find(|arg| arg.name == name)
    }

    /// Whether the tool takes an argument named `name`.
    pub(crate) fn accepts(&self, name: &str) -> bool {
        self.arg(name).is_some()
    }

    fn input_schema(&self) -> Value {
        let properties: Map<String, Value> = self
            .args
            .iter()
            .enumerate()
            .flat_map(|(group, args)| args.iter().map(move |arg| (group < self.described, arg)))
            .map(|(described, arg)| (arg.name.to_owned(), arg.schema(described)))
            .collect();
        let required: Vec<&str> =
            self.args().filter(|arg| arg.required).map(|arg| arg.name).collect();
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        schema
    }

    /// The hints that differ from the protocol's defaults (not read-only, destructive, not
    /// idempotent, open world): the defaults go without saying, and so do the hints the
    /// protocol calls meaningless for a read-only tool.
    fn annotations(&self) -> Value {
        let mut hints = Map::new();
        let Hints { read_only, destructive, idempotent, open_world } = self.hints;
        for (name, value, default) in [
            ("readOnlyHint", read_only, false),
            ("destructiveHint", destructive, true),
            ("idempotentHint", idempotent, false),
            ("openWorldHint", open_world, true),
        ] {
            // For a read-only tool, whether it destroys or repeats cleanly means nothing.
            let moot = read_only && matches!(name, "destructiveHint" | "idempotentHint");
            if value != default && !moot {
                hints.insert(name.to_owned(), json!(value));
            }
        }
        Value::Object(hints)
    }

    /// The tool's entry as a caller offering `offered` lists it: [`ToolDef::entry`] when all
    /// the tools are offered; under a subset (review xi), its description names only tools
    /// offered ([`alone`]), and a shared argument no offered tool describes is described by
    /// the first offered tool that takes it.
    pub(crate) fn entry_for(&self, revision: Revision, offered: Offered) -> Value {
        let mut entry = self.entry(revision);
        if TOOLS.iter().all(|tool| offered.has(tool.name)) {
            return entry;
        }
        entry["description"] = json!(alone(self.name, &self.description.render(), offered));
        let properties = &mut entry["inputSchema"]["properties"];
        for args in self.args.iter().skip(self.described) {
            for arg in args.iter().filter(|arg| describer(arg.name, offered) == Some(self.name)) {
                properties[arg.name] = arg.schema(true);
            }
        }
        entry
    }

    /// Whether this tool describes its argument `name` in its own schema.
    fn describes(&self, name: &str) -> bool {
        let described = self.args.iter().take(self.described);
        described.flat_map(|args| args.iter()).any(|arg| arg.name == name)
    }

    /// The tool's `tools/list` entry, shaped for the revision: annotations from 2025-03-26.
    /// Titles (which hosts show in place of the name when given) are left out to save bytes
    /// a model reads on every conversation, and there are no output schemas: structured results carry ids,
    /// status and exit codes a host may use, and the text says everything a model needs.
    pub(crate) fn entry(&self, revision: Revision) -> Value {
        let mut entry = json!({
            "name": self.name,
            "description": self.description.render(),
            "inputSchema": self.input_schema(),
        });
        if revision >= Revision::V2025_03_26 {
            let annotations = self.annotations();
            if annotations.as_object().is_some_and(|a| !a.is_empty()) {
                entry["annotations"] = annotations;
            }
        }
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under every subset of the tools, each offered tool's entry names only offered tools,
    /// and every argument with a description is described by an offered tool (review xi:
    /// `only(["terminal_send"])` read "as terminal_start does", its wait and view arguments
    /// "described once, by terminal_read", which was not offered); under all of them, the
    /// entries are `tools/list`'s.
    #[test]
    fn a_subset_of_the_tools_is_described_alone() {
        use super::super::offered::{assert_names_only, subsets_with};
        let revision = Revision::LATEST_HANDSHAKE;
        let all = Offered::of(&NAMES);
        assert!(TOOLS.iter().all(|tool| tool.entry_for(revision, all) == tool.entry(revision)));
        for subset in TOOLS.iter().flat_map(|tool| subsets_with(tool.name)) {
            let offered = Offered::of(&subset);
            let tools = || TOOLS.iter().filter(|tool| subset.contains(&tool.name));
            let entries: Vec<Value> =
                tools().map(|tool| tool.entry_for(revision, offered)).collect();
            let texts: Vec<String> = entries.iter().map(Value::to_string).collect();
            assert_names_only(&subset, &texts);
            // (Review xm: terminal_mouse alone said it waited "for its wait fields".)
            for tool in tools() {
                let entry = tool.entry_for(revision, offered);
                let says = entry["description"].as_str().unwrap().contains("its wait fields");
                assert!(!says || tool.accepts("for_text"), "{subset:?}: {entry}");
            }
            for arg in tools().flat_map(|tool| tool.args()) {
                if arg.description.render().is_empty() {
                    continue;
                }
                let described = entries.iter().any(|entry| {
                    entry["inputSchema"]["properties"][arg.name].get("description").is_some()
                });
                assert!(described, "{subset:?}: {} undescribed", arg.name);
            }
        }
        let send =
            find("terminal_send").unwrap().entry_for(revision, Offered::of(&["terminal_send"]));
        let description = send["description"].as_str().unwrap();
        assert!(description.starts_with("Type into a session, then wait until"), "{description}");
        assert!(send["inputSchema"]["properties"]["view"].get("enum").is_some(), "{send}");
    }

    #[test]
    fn the_signals_are_those_the_crate_parses() {
        let names = SIGNALS.map(Signal::name).join(", ");
        let err = "?".parse::<Signal>().unwrap_err().to_string();
        assert!(err.contains(&format!("accepted: {names} (")), "{err}");
    }

    #[test]
    fn arguments_are_unique_and_defaults_within_their_bounds() {
        for tool in TOOLS {
            let names: Vec<&str> = tool.args().map(|arg| arg.name).collect();
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{}: {names:?}", tool.name);
            for arg in tool.args() {
                match arg.kind {
                    Kind::UInt { min, max, default: Some(default) } => {
                        assert!(
                            min <= default && default <= max.unwrap_or(u64::MAX),
                            "{}",
                            arg.name
                        )
                    }
                    Kind::OneOf { values, default: Some(default) } => {
                        assert!(values.contains(&default), "{}", arg.name)
                    }
                    _ => {}
                }
                assert!(!(arg.required && matches!(arg.kind, Kind::UInt { default: Some(_), .. })));
            }
        }
    }
}
