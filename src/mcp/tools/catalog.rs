//! The tool catalog: one [`ToolDef`] per tool in [`TOOLS`], with its name, title, hints,
//! description, arguments and output schema, and the function that runs it.
//!
//! Everything else about the tools derives from this table: the `tools/list` entries (every
//! revision's shape), which tools exist, and the checks of a call's arguments (`args.rs`:
//! unknown and missing arguments, types, ranges, choices and defaults). Bounds and defaults
//! come from the crate's constants ([`crate::MIN_COLS`] and the others, [`Config::default`],
//! the MCP server's constants), never repeated as numbers.

use serde_json::{Map, Value, json};

use super::super::protocol::Revision;
use super::args::Args;
use super::budget::{LABEL, MATCHED};
use super::view::{DEFAULT_MAX_BYTES, MAX_BYTES_RANGE, View};
use super::waits::{SETTLE_QUIET, SETTLE_TIMEOUT};
use super::{Call, ToolError, ToolOutput, control, io};
use crate::mcp::MAX_BYTES_OVERHEAD;
use crate::{Config, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, Signal};

/// Longest wait a call may ask for, in milliseconds: an hour.
const MAX_TIMEOUT_MS: u64 = 3_600_000;
/// How long `terminal_run` waits for its command by default, in milliseconds: safely below
/// the 60 s after which common MCP hosts (the official TypeScript SDK's default) give up on a
/// request, so the "still running" answer reaches them.
const RUN_TIMEOUT_MS: u64 = 45_000;
/// `terminal_close`'s default `max_bytes` (it returns only the output not read yet).
const CLOSE_MAX_BYTES: u64 = 4096;

// The descriptions say these in words.
const _: () = assert!(SETTLE_QUIET.as_millis() == 1000, "the descriptions say \"a second\"");
const _: () = assert!(LABEL == 8 && MATCHED == 4, "the descriptions say an eighth and a quarter");

/// Runs a tool on its checked arguments.
pub(crate) type Handler = fn(&Call, &Args) -> Result<ToolOutput, ToolError>;

/// One tool: everything `tools/list` says of it, and how it runs.
pub(crate) struct ToolDef {
    /// The tool's name, e.g. `terminal_start`.
    pub name: &'static str,
    /// A short human title (2025-06-18 on), also the annotations' title (2025-03-26 on).
    pub title: &'static str,
    /// The annotations' hints.
    pub hints: Hints,
    /// What the tool does, written for a model.
    pub description: Text,
    /// The arguments, in groups (shared groups such as [`VIEW`] and [`WAIT`] defined once);
    /// their order is the schema's `required` order and the order error messages list them in.
    pub args: &'static [&'static [ArgDef]],
    /// The schema of the tool's `structuredContent` (2025-06-18 on).
    pub output: fn() -> Value,
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
    /// What it means, written for a model.
    pub description: Text,
}

/// What an argument's value may be.
pub(crate) enum Kind {
    /// A string.
    Str,
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
    /// The argument's JSON schema.
    fn schema(&self) -> Value {
        let mut schema = match self.kind {
            Kind::Str | Kind::OneOf { .. } | Kind::Signal => json!({"type": "string"}),
            Kind::Bool => json!({"type": "boolean"}),
            Kind::UInt { .. } | Kind::SessionId => json!({"type": "integer"}),
            Kind::Strings => json!({"type": "array", "items": {"type": "string"}, "minItems": 1}),
            Kind::Env => {
                json!({"type": "object", "additionalProperties": {"type": ["string", "null"]}})
            }
        };
        match self.kind {
            Kind::OneOf { values, default } => {
                schema["enum"] = json!(values);
                if let Some(default) = default {
                    schema["default"] = json!(default);
                }
            }
            Kind::Signal => schema["enum"] = json!(SIGNALS.map(Signal::name)),
            Kind::UInt { default: Some(default), .. } => schema["default"] = json!(default),
            _ => {}
        }
        if let Some((min, max)) = self.kind.range() {
            schema["minimum"] = json!(min);
            if let Some(max) = max {
                schema["maximum"] = json!(max);
            }
        }
        schema["description"] = json!(self.description.render());
        schema
    }
}

/// The signals `terminal_signal` sends, in the order its schema lists them.
const SIGNALS: [Signal; 10] = [
    Signal::Int,
    Signal::Term,
    Signal::Kill,
    Signal::Quit,
    Signal::Hup,
    Signal::Tstp,
    Signal::Cont,
    Signal::Winch,
    Signal::Usr1,
    Signal::Usr2,
];

/// Every tool, in the order `tools/list` lists them.
pub(crate) const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "terminal_start",
        title: "Start a terminal program",
        hints: ACTS,
        description: Text::Built(start_description),
        args: &[START_ARGS, VIEW, WAIT],
        output: session_view_schema,
        run: io::start,
    },
    ToolDef {
        name: "terminal_send",
        title: "Type into a terminal",
        hints: ACTS,
        description: Text::Built(send_description),
        args: &[&[SESSION_ID], SEND_ARGS, VIEW, WAIT],
        output: session_view_schema,
        run: io::send,
    },
    ToolDef {
        name: "terminal_read",
        title: "Read a terminal",
        hints: READS,
        description: Text::Built(read_description),
        args: &[&[SESSION_ID], VIEW, WAIT],
        output: session_view_schema,
        run: io::read,
    },
    ToolDef {
        name: "terminal_run",
        title: "Run a shell command",
        hints: ACTS,
        description: Text::Fixed(
            "Run one shell command line and return its output and exit code (non-interactive commands: builds, tests, git, ls). It uses a shell with shell integration, so the exit code and the end of the output are exact. Pass the session_id of a shell started by terminal_start without command/argv, or by an earlier terminal_run, to keep its working directory and variables; omit session_id to start a new shell (its session_id is returned: reuse it, and terminal_close it when done). If the command is still running at timeout_ms it keeps running: follow it with terminal_read (prompt=true) or interrupt it with terminal_send keys=\"<C-c>\". For interactive or full-screen programs use terminal_start and terminal_send instead.",
        ),
        args: &[RUN_ARGS],
        output: run_output,
        run: control::run,
    },
    ToolDef {
        name: "terminal_signal",
        title: "Signal a terminal's programs",
        hints: ENDS,
        description: Text::Built(signal_description),
        args: &[&[SESSION_ID], SIGNAL_ARGS],
        output: signal_output,
        run: control::signal,
    },
    ToolDef {
        name: "terminal_resize",
        title: "Resize a terminal",
        hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
        description: Text::Built(resize_description),
        args: &[&[SESSION_ID], RESIZE_ARGS],
        output: resize_output,
        run: control::resize,
    },
    ToolDef {
        name: "terminal_close",
        title: "Close a terminal",
        hints: ENDS,
        description: Text::Fixed(
            "Close a session when you are done with it: hang up its terminal and end every process in it (SIGHUP and SIGTERM, then SIGKILL after a grace period), and return how the program ended and any output not read yet. Closing an already closed or exited session returns how it ended. All sessions are also closed when the MCP connection ends.",
        ),
        args: &[&[SESSION_ID, max_bytes(CLOSE_MAX_BYTES)]],
        output: close_output,
        run: control::close,
    },
    ToolDef {
        name: "terminal_list",
        title: "List terminals",
        hints: READS,
        description: Text::Fixed(
            "List every session this server knows (running, exited or closed) with its id, program, pid, state, terminal size and idle time.",
        ),
        args: &[],
        output: list_output,
        run: control::list,
    },
];

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
    description: Text::Fixed(
        "The session's id, as returned by terminal_start, terminal_run or terminal_list.",
    ),
};

/// `env` of a new program or shell.
const ENV: ArgDef = ArgDef {
    name: "env",
    kind: Kind::Env,
    required: false,
    description: Text::Fixed(
        "Environment variables to set for the program (null removes one), e.g. {\"LANG\": \"C.UTF-8\"}.",
    ),
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
        "Most bytes of the whole result: the text and the structured content together, each string in them (output, screen, title, matched text, wait condition, program or command) counted as escaped in JSON, plus at most {MAX_BYTES_OVERHEAD} bytes of fixed framing (field names, numbers, status, notes). Output keeps its end (or the line a wait matched), the screen its start, saying how much was left out; a title, matched text, wait condition, program or command longer than its share (an eighth of max_bytes, a quarter for the matched text) is cut, ending with \"[... N more bytes of the ... cut]\"."
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
            "What to return: \"new\" the transcript since the previous read, \"screen\" the visible screen, \"scrollback\" the end of the retained transcript.",
        ),
    },
    max_bytes(DEFAULT_MAX_BYTES),
];

/// A string argument.
const fn text(name: &'static str, description: &'static str) -> ArgDef {
    ArgDef { name, kind: Kind::Str, required: false, description: Text::Fixed(description) }
}

/// A boolean argument.
const fn flag(name: &'static str, description: &'static str) -> ArgDef {
    ArgDef { name, kind: Kind::Bool, required: false, description: Text::Fixed(description) }
}

/// A duration in milliseconds, from `min` to an hour.
const fn millis(name: &'static str, min: u64, default: Option<u64>, description: Text) -> ArgDef {
    ArgDef {
        name,
        kind: Kind::UInt { min, max: Some(MAX_TIMEOUT_MS), default },
        required: false,
        description,
    }
}

/// The bound of the optional wait.
const WAIT_TIMEOUT: ArgDef = millis("timeout_ms", 1, None, Text::Built(wait_timeout_description));

fn wait_timeout_description() -> String {
    format!(
        "Longest time to wait, in milliseconds (default {} with a condition, {} for the default wait). A timeout is not an error: what was seen so far is returned.",
        Config::default().default_wait_timeout.as_millis(),
        SETTLE_TIMEOUT.as_millis()
    )
}

/// The optional wait every reading tool takes: its conditions, then [`WAIT_TIMEOUT`].
const WAIT: &[ArgDef] = &[
    text("for_text", "Wait until this text appears in new transcript output (within one line)."),
    text(
        "for_regex",
        "Wait until this regular expression (Rust syntax) matches a line of new transcript output, e.g. \"^42$\" or \"error|warning\".",
    ),
    text(
        "for_screen_text",
        "Wait until this text appears anywhere on the visible screen (for full-screen programs).",
    ),
    millis(
        "quiet_ms",
        0,
        None,
        Text::Fixed("Wait until the program has printed nothing for this many milliseconds."),
    ),
    millis(
        "stable_ms",
        0,
        None,
        Text::Fixed(
            "Wait until the screen has not changed for this many milliseconds (full-screen programs that redraw).",
        ),
    ),
    flag(
        "prompt",
        "Wait until the shell is back at its prompt after the last input (sessions with shell integration).",
    ),
    flag(
        "input_wait",
        "Wait until the program in the foreground is waiting to read the terminal (a REPL prompt, an editor, a password question).",
    ),
    flag("exit", "Wait until the program exits."),
    WAIT_TIMEOUT,
];

/// The sentence on waits that ends the reading tools' descriptions, naming [`WAIT`]'s
/// arguments.
fn wait_note() -> String {
    let conditions: Vec<&str> =
        WAIT.iter().map(|arg| arg.name).filter(|name| *name != WAIT_TIMEOUT.name).collect();
    format!(
        "Wait conditions (any that are given; the first to hold ends the wait, and so does the program's exit): {}; {} bounds the wait. Prefer them to sleeping or polling.",
        conditions.join(", "),
        WAIT_TIMEOUT.name
    )
}

/// The default wait of `terminal_start` and `terminal_send`, in words.
fn settle() -> String {
    format!(
        "waits until the program waits for input, exits, or has printed nothing for a second (at most {} s)",
        SETTLE_TIMEOUT.as_secs()
    )
}

/// A terminal size argument from `min` to `max`.
const fn size(name: &'static str, min: u16, max: u16, required: bool, description: Text) -> ArgDef {
    ArgDef {
        name,
        kind: Kind::UInt { min: min as u64, max: Some(max as u64), default: None },
        required,
        description,
    }
}

/// `terminal_start`'s own arguments.
const START_ARGS: &[ArgDef] = &[
    text(
        "command",
        "A shell command line, run by bash -lc (pipes, globs and && work), e.g. \"python3 -q\" or \"make test\".",
    ),
    ArgDef {
        name: "argv",
        kind: Kind::Strings,
        required: false,
        description: Text::Fixed(
            "The program and its arguments, run without a shell, e.g. [\"vim\", \"notes.txt\"].",
        ),
    },
    text("cwd", "Working directory (default: the server's)."),
    ENV,
    size(
        "cols",
        MIN_COLS,
        MAX_COLS,
        false,
        Text::Built(|| format!("Terminal width in columns (default {}).", Config::default().cols)),
    ),
    size(
        "rows",
        MIN_ROWS,
        MAX_ROWS,
        false,
        Text::Built(|| format!("Terminal height in rows (default {}).", Config::default().rows)),
    ),
    flag(
        "shell_integration",
        "Track the prompt and exit codes of a bash or zsh started interactively (default: true for the default interactive shell, false otherwise; not possible with command).",
    ),
];

fn start_description() -> String {
    format!(
        "Start a program in a new headless terminal (a real pseudo-terminal with a full terminal emulator) and return its session id, pid, status and first output. Give `command` (a shell command line, run by bash -lc) or `argv` (a program and its arguments, no shell); give neither for an interactive shell with shell integration (prompt and exit-code tracking, usable with terminal_run). The call {}, unless you give your own wait condition. Full-screen programs (vim, less, htop, top) draw on the alternate screen, which is returned as text. The session keeps running until terminal_close: close every session you start once you are done. {}",
        settle(),
        wait_note()
    )
}

/// `terminal_send`'s own arguments.
const SEND_ARGS: &[ArgDef] = &[
    text(
        "text",
        "Text to type; backslash escapes are decoded: \\n, \\r (Enter), \\t, \\e (Escape), \\xHH, \\uHHHH, \\\\. To type code or other text literally (a backslash stays a backslash), use paste.",
    ),
    text(
        "keys",
        "A key script: text with keys in angle brackets, e.g. \"ihello<Esc>:wq<Enter>\", \"<C-c>\", \"<Up><Up><Enter>\", \"<F10>\"; modifiers C- (Ctrl), M- (Alt), S- (Shift); <lt> types a literal <.",
    ),
    text(
        "paste",
        "Text to paste as one block (line breaks do not run each line in programs that enable bracketed paste).",
    ),
    flag("submit", "Press Enter after everything else (e.g. to run a typed command)."),
];

fn send_description() -> String {
    format!(
        "Type into a session, then return its new output like terminal_read. `text` is typed with backslash escapes decoded (\\n, \\r, \\t, \\e, \\xHH, \\uHHHH); `keys` is a key script: plain text mixed with keys in angle brackets such as <Enter>, <Esc>, <Tab>, <BS>, <Up>, <PageDown>, <F2>, <C-c>, <C-d>, <M-x> (<lt> is a literal <); `paste` pastes a block of text the way a terminal does (bracketed paste when the program enabled it); `submit`: true presses Enter at the end. They are sent in that order: text, paste, keys, Enter. Use keys for full-screen programs, e.g. vim `ihello<Esc>:wq<Enter>`, less `q`, interrupt `<C-c>`. Without a wait condition the call {}. {}",
        settle(),
        wait_note()
    )
}

fn read_description() -> String {
    format!(
        "Read a session without typing. view=\"new\" (default) returns the transcript printed since the previous read of the session; view=\"screen\" returns the visible screen (use it for full-screen programs such as vim, less, htop); view=\"scrollback\" returns the end of the retained transcript. The screen is also returned whenever a full-screen program has the alternate screen. Give a wait condition to block until something happens instead of sleeping; without one the call returns at once. {}",
        wait_note()
    )
}

/// `terminal_run`'s arguments.
const RUN_ARGS: &[ArgDef] = &[
    ArgDef {
        name: "command",
        kind: Kind::Str,
        required: true,
        description: Text::Fixed(
            "One shell command line (no line breaks; join commands with ; or &&).",
        ),
    },
    ArgDef {
        name: "session_id",
        kind: Kind::SessionId,
        required: false,
        description: Text::Fixed(
            "A shell session with shell integration to run in (omit to start a new one).",
        ),
    },
    text("cwd", "Working directory of a new shell (only without session_id)."),
    ENV,
    flag(
        "keep_session",
        "Keep the new shell open after the command (only without session_id): pass its session_id to later calls and close it with terminal_close. By default a shell started for one command is closed after it (unless the command is still running at the timeout).",
    ),
    millis(
        "timeout_ms",
        1,
        Some(RUN_TIMEOUT_MS),
        Text::Fixed("Longest time to wait for the command, in milliseconds."),
    ),
    max_bytes(DEFAULT_MAX_BYTES),
];

/// `terminal_signal`'s own arguments.
const SIGNAL_ARGS: &[ArgDef] = &[
    ArgDef {
        name: "signal",
        kind: Kind::Signal,
        required: true,
        description: Text::Fixed("The signal (SIG prefix and lower case are accepted too)."),
    },
    ArgDef {
        name: "target",
        kind: Kind::OneOf { values: &["foreground", "session"], default: Some("foreground") },
        required: false,
        description: Text::Fixed(
            "\"foreground\": the terminal's foreground process group; \"session\": every process group of the session.",
        ),
    },
];

fn signal_description() -> String {
    format!(
        "Send a signal to the session's foreground process group (what Ctrl-C or Ctrl-Z would reach), or with target=\"session\" to every process group of the session. Signals: {}. To interrupt a program, terminal_send keys=\"<C-c>\" usually suffices; to end a session, use terminal_close.",
        SIGNALS.map(Signal::name).join(", ")
    )
}

/// `terminal_resize`'s own arguments.
const RESIZE_ARGS: &[ArgDef] = &[
    size("cols", MIN_COLS, MAX_COLS, true, Text::Fixed("Columns.")),
    size("rows", MIN_ROWS, MAX_ROWS, true, Text::Fixed("Rows.")),
];

fn resize_description() -> String {
    format!(
        "Resize a session's terminal (cols {MIN_COLS}-{MAX_COLS}, rows {MIN_ROWS}-{MAX_ROWS}). The program gets SIGWINCH and redraws; read the screen afterwards with terminal_read view=\"screen\"."
    )
}

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

    fn input_schema(&self) -> Value {
        let properties: Map<String, Value> =
            self.args().map(|arg| (arg.name.to_owned(), arg.schema())).collect();
        let required: Vec<&str> =
            self.args().filter(|arg| arg.required).map(|arg| arg.name).collect();
        let mut schema = json!({
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        });
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        schema
    }

    fn annotations(&self) -> Value {
        json!({
            "title": self.title,
            "readOnlyHint": self.hints.read_only,
            "destructiveHint": self.hints.destructive,
            "idempotentHint": self.hints.idempotent,
            "openWorldHint": self.hints.open_world,
        })
    }

    /// The tool's `tools/list` entry, shaped for the revision: annotations from 2025-03-26,
    /// titles and output schemas from 2025-06-18.
    /// Whether the tool takes an argument named `name`.
    pub(crate) fn accepts(&self, name: &str) -> bool {
        self.args.iter().flat_map(|group| group.iter()).any(|arg| arg.name == name)
    }

    pub(crate) fn entry(&self, revision: Revision) -> Value {
        let mut entry = json!({
            "name": self.name,
            "description": self.description.render(),
            "inputSchema": self.input_schema(),
        });
        if revision >= Revision::V2025_03_26 {
            entry["annotations"] = self.annotations();
        }
        if revision >= Revision::V2025_06_18 {
            entry["title"] = json!(self.title);
            entry["outputSchema"] = (self.output)();
        }
        entry
    }
}

fn nullable(kind: &str) -> Value {
    json!({ "type": [kind, "null"] })
}

/// The schema of a session's status in structured results.
fn status_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "activity": {"type": "string", "enum": ["running", "quiet", "waiting_for_input", "at_prompt", "exited", "closed"]},
            "exit_code": nullable("integer"),
            "exit_signal": nullable("integer"),
            "foreground": {
                "type": ["object", "null"],
                "properties": {"pid": {"type": "integer"}, "name": {"type": "string"}},
                "required": ["pid", "name"]
            },
            "last_exit_code": nullable("integer"),
            "shell_integration": {"type": "boolean"},
            "seconds_since_output": {"type": "number"}
        },
        "required": ["activity", "exit_code", "exit_signal", "foreground", "last_exit_code", "shell_integration", "seconds_since_output"]
    })
}

fn screen_schema() -> Value {
    json!({
        "type": ["object", "null"],
        "properties": {
            "cols": {"type": "integer"},
            "rows": {"type": "integer"},
            "alternate": {"type": "boolean"},
            "cursor_row": {"type": "integer"},
            "cursor_col": {"type": "integer"},
            "cursor_visible": {"type": "boolean"},
            "title": {"type": "string", "description": "The window title, cut to its share of max_bytes with a \"[... N more bytes of the title cut]\" marker."},
            "text": {"type": "string"},
            "omitted_bytes": {"type": "integer"}
        },
        "required": ["cols", "rows", "alternate", "cursor_row", "cursor_col", "cursor_visible", "title", "text", "omitted_bytes"]
    })
}

fn wait_schema() -> Value {
    json!({
        "type": ["object", "null"],
        "properties": {
            "condition": {"type": "string", "description": "The condition waited for, cut to its share of max_bytes like the title."},
            "outcome": {"type": "string", "enum": ["matched", "exited", "closed", "timeout", "cancelled"]},
            "matched_text": {"type": ["string", "null"], "description": "The text that matched, cut to its share of max_bytes with a \"[... N more bytes of the matched text cut]\" marker."},
            "elapsed_ms": {"type": "integer"},
            "default": {"type": "boolean"}
        },
        "required": ["condition", "outcome", "matched_text", "elapsed_ms", "default"]
    })
}

/// The structured result of the tools that show a session (start, send, read).
fn session_view_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session_id": {"type": "integer"},
            "pid": {"type": "integer"},
            "program": {"type": "string", "description": "The program or command line, cut to its share of max_bytes like the title."},
            "status": status_schema(),
            "view": {"type": "string", "enum": VIEWS},
            "output": {"type": "string"},
            "output_omitted_bytes": {"type": "integer"},
            "first_line": nullable("integer"),
            "rewritten": {"type": "boolean"},
            "missed_lines": {"type": "integer"},
            "screen": screen_schema(),
            "wait": wait_schema()
        },
        "required": ["session_id", "pid", "program", "status", "view", "output", "output_omitted_bytes", "first_line", "rewritten", "missed_lines", "screen", "wait"]
    })
}

/// The structured result of `terminal_run`.
fn run_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session_id": {"type": "integer"},
            "new_session": {"type": "boolean"},
            "session_closed": {"type": "boolean", "description": "The new shell was closed after the command (a one-off run)."},
            "command": {"type": "string", "description": "The command line, cut to an eighth of max_bytes with a \"[... N more bytes of the command cut]\" marker."},
            "output": {"type": "string"},
            "output_omitted_bytes": {"type": "integer"},
            "exit_code": nullable("integer"),
            "timed_out": {"type": "boolean"},
            "duration_ms": {"type": "integer"},
            "status": status_schema()
        },
        "required": ["session_id", "new_session", "command", "output", "output_omitted_bytes", "exit_code", "timed_out", "duration_ms", "status"]
    })
}

/// The structured result of `terminal_signal`.
fn signal_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session_id": {"type": "integer"},
            "signal": {"type": "string"},
            "process_groups": {"type": "array", "items": {"type": "integer"}},
            "names": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["session_id", "signal", "process_groups", "names"]
    })
}

/// The structured result of `terminal_resize`.
fn resize_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session_id": {"type": "integer"},
            "cols": {"type": "integer"},
            "rows": {"type": "integer"}
        },
        "required": ["session_id", "cols", "rows"]
    })
}

/// The structured result of `terminal_close`.
fn close_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session_id": {"type": "integer"},
            "exit_code": nullable("integer"),
            "exit_signal": nullable("integer"),
            "ended": {"type": "string"},
            "output": {"type": "string"},
            "output_omitted_bytes": {"type": "integer"}
        },
        "required": ["session_id", "exit_code", "exit_signal", "ended", "output", "output_omitted_bytes"]
    })
}

/// The structured result of `terminal_list`.
fn list_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "sessions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "session_id": {"type": "integer"},
                        "pid": {"type": "integer"},
                        "program": {"type": "string"},
                        "state": {"type": "string", "enum": ["running", "exited", "closed"]},
                        "exit_code": nullable("integer"),
                        "exit_signal": nullable("integer"),
                        "cols": {"type": "integer"},
                        "rows": {"type": "integer"},
                        "idle_seconds": {"type": "number"},
                        "bytes_in": {"type": "integer"},
                        "bytes_out": {"type": "integer"},
                        "closed_reason": nullable("string")
                    },
                    "required": ["session_id", "pid", "program", "state", "exit_code", "exit_signal", "cols", "rows", "idle_seconds", "bytes_in", "bytes_out", "closed_reason"]
                }
            }
        },
        "required": ["sessions"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
