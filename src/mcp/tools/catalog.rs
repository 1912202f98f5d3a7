//! The tools as `tools/list` describes them: names, descriptions that teach a model how to use
//! them, input schemas and output schemas.

use serde_json::{Map, Value, json};

use super::super::protocol::Revision;
use crate::mcp::MAX_BYTES_OVERHEAD;

/// `terminal_start`.
pub(crate) const START: &str = "terminal_start";
/// `terminal_send`.
pub(crate) const SEND: &str = "terminal_send";
/// `terminal_read`.
pub(crate) const READ: &str = "terminal_read";
/// `terminal_run`.
pub(crate) const RUN: &str = "terminal_run";
/// `terminal_signal`.
pub(crate) const SIGNAL: &str = "terminal_signal";
/// `terminal_resize`.
pub(crate) const RESIZE: &str = "terminal_resize";
/// `terminal_close`.
pub(crate) const CLOSE: &str = "terminal_close";
/// `terminal_list`.
pub(crate) const LIST: &str = "terminal_list";

/// Every tool name, in the order they are listed.
pub(crate) const NAMES: [&str; 8] = [START, SEND, READ, RUN, SIGNAL, RESIZE, CLOSE, LIST];

/// The optional wait every reading tool takes.
pub(crate) const WAIT_ARGS: [&str; 9] = [
    "for_text",
    "for_regex",
    "for_screen_text",
    "quiet_ms",
    "stable_ms",
    "prompt",
    "input_wait",
    "exit",
    "timeout_ms",
];

/// What a reading tool returns and how much.
pub(crate) const VIEW_ARGS: [&str; 2] = ["view", "max_bytes"];

/// The arguments each tool accepts.
pub(crate) fn accepted(tool: &str) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = match tool {
        START => vec!["command", "argv", "cwd", "env", "cols", "rows", "shell_integration"],
        SEND => vec!["session_id", "text", "keys", "paste", "submit"],
        READ => vec!["session_id"],
        RUN => vec!["command", "session_id", "cwd", "env", "timeout_ms", "max_bytes"],
        SIGNAL => vec!["session_id", "signal", "target"],
        RESIZE => vec!["session_id", "cols", "rows"],
        CLOSE => vec!["session_id", "max_bytes"],
        _ => vec![],
    };
    if matches!(tool, START | SEND | READ) {
        names.extend(VIEW_ARGS);
        names.extend(WAIT_ARGS);
    }
    names
}

const WAIT_NOTE: &str = "Wait conditions (any that are given; the first to hold ends the wait, and so does the program's exit): for_text, for_regex, for_screen_text, quiet_ms, stable_ms, prompt, input_wait, exit; timeout_ms bounds the wait. Prefer them to sleeping or polling.";

fn description(tool: &str) -> String {
    match tool {
        START => format!(
            "Start a program in a new headless terminal (a real pseudo-terminal with a full terminal emulator) and return its session id, pid, status and first output. Give `command` (a shell command line, run by bash -lc) or `argv` (a program and its arguments, no shell); give neither for an interactive shell with shell integration (prompt and exit-code tracking, usable with terminal_run). The call waits until the program waits for input, exits, or has printed nothing for a second (at most 10 s), unless you give your own wait condition. Full-screen programs (vim, less, htop, top) draw on the alternate screen, which is returned as text. The session keeps running until terminal_close: close every session you start once you are done. {WAIT_NOTE}"
        ),
        SEND => format!(
            "Type into a session, then return its new output like terminal_read. `text` is typed with backslash escapes decoded (\\n, \\r, \\t, \\e, \\xHH, \\uHHHH); `keys` is a key script: plain text mixed with keys in angle brackets such as <Enter>, <Esc>, <Tab>, <BS>, <Up>, <PageDown>, <F2>, <C-c>, <C-d>, <M-x> (<lt> is a literal <); `paste` pastes a block of text the way a terminal does (bracketed paste when the program enabled it); `submit`: true presses Enter at the end. They are sent in that order: text, paste, keys, Enter. Use keys for full-screen programs, e.g. vim `ihello<Esc>:wq<Enter>`, less `q`, interrupt `<C-c>`. Without a wait condition the call waits until the program waits for input, exits, or has printed nothing for a second (at most 10 s). {WAIT_NOTE}"
        ),
        READ => format!(
            "Read a session without typing. view=\"new\" (default) returns the transcript printed since the previous read of the session; view=\"screen\" returns the visible screen (use it for full-screen programs such as vim, less, htop); view=\"scrollback\" returns the end of the retained transcript. The screen is also returned whenever a full-screen program has the alternate screen. Give a wait condition to block until something happens instead of sleeping; without one the call returns at once. {WAIT_NOTE}"
        ),
        RUN => "Run one shell command line and return its output and exit code (non-interactive commands: builds, tests, git, ls). It uses a shell with shell integration, so the exit code and the end of the output are exact. Pass the session_id of a shell started by terminal_start without command/argv, or by an earlier terminal_run, to keep its working directory and variables; omit session_id to start a new shell (its session_id is returned: reuse it, and terminal_close it when done). If the command is still running at timeout_ms it keeps running: follow it with terminal_read (prompt=true) or interrupt it with terminal_send keys=\"<C-c>\". For interactive or full-screen programs use terminal_start and terminal_send instead.".to_owned(),
        SIGNAL => "Send a signal to the session's foreground process group (what Ctrl-C or Ctrl-Z would reach), or with target=\"session\" to every process group of the session. Signals: INT, TERM, KILL, QUIT, HUP, TSTP, CONT, WINCH, USR1, USR2. To interrupt a program, terminal_send keys=\"<C-c>\" usually suffices; to end a session, use terminal_close.".to_owned(),
        RESIZE => "Resize a session's terminal (cols 2-1000, rows 1-500). The program gets SIGWINCH and redraws; read the screen afterwards with terminal_read view=\"screen\".".to_owned(),
        CLOSE => "Close a session when you are done with it: hang up its terminal and end every process in it (SIGHUP and SIGTERM, then SIGKILL after a grace period), and return how the program ended and any output not read yet. Closing an already closed or exited session returns how it ended. All sessions are also closed when the MCP connection ends.".to_owned(),
        _ => "List every session this server knows (running, exited or closed) with its id, program, pid, state, terminal size and idle time.".to_owned(),
    }
}

fn title(tool: &str) -> &'static str {
    match tool {
        START => "Start a terminal program",
        SEND => "Type into a terminal",
        READ => "Read a terminal",
        RUN => "Run a shell command",
        SIGNAL => "Signal a terminal's programs",
        RESIZE => "Resize a terminal",
        CLOSE => "Close a terminal",
        _ => "List terminals",
    }
}

/// Tool annotations (hints): read-only, destructive, idempotent, open world.
fn annotations(tool: &str) -> Value {
    let (read_only, destructive, idempotent) = match tool {
        READ | LIST => (true, false, true),
        RESIZE => (false, false, true),
        SIGNAL | CLOSE => (false, true, false),
        _ => (false, false, false),
    };
    json!({
        "title": title(tool),
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": !matches!(tool, READ | LIST | RESIZE),
    })
}

fn session_id() -> Value {
    json!({
        "type": "integer",
        "minimum": 1,
        "description": "The session's id, as returned by terminal_start, terminal_run or terminal_list."
    })
}

fn wait_properties(props: &mut Map<String, Value>) {
    let entries = [
        (
            "for_text",
            json!({"type": "string", "description": "Wait until this text appears in new transcript output (within one line)."}),
        ),
        (
            "for_regex",
            json!({"type": "string", "description": "Wait until this regular expression (Rust syntax) matches a line of new transcript output, e.g. \"^42$\" or \"error|warning\"."}),
        ),
        (
            "for_screen_text",
            json!({"type": "string", "description": "Wait until this text appears anywhere on the visible screen (for full-screen programs)."}),
        ),
        (
            "quiet_ms",
            json!({"type": "integer", "minimum": 0, "maximum": 3_600_000, "description": "Wait until the program has printed nothing for this many milliseconds."}),
        ),
        (
            "stable_ms",
            json!({"type": "integer", "minimum": 0, "maximum": 3_600_000, "description": "Wait until the screen has not changed for this many milliseconds (full-screen programs that redraw)."}),
        ),
        (
            "prompt",
            json!({"type": "boolean", "description": "Wait until the shell is back at its prompt after the last input (sessions with shell integration)."}),
        ),
        (
            "input_wait",
            json!({"type": "boolean", "description": "Wait until the program in the foreground is waiting to read the terminal (a REPL prompt, an editor, a password question)."}),
        ),
        ("exit", json!({"type": "boolean", "description": "Wait until the program exits."})),
        (
            "timeout_ms",
            json!({"type": "integer", "minimum": 1, "maximum": 3_600_000, "description": "Longest time to wait, in milliseconds (default 30000 with a condition, 10000 for the default wait). A timeout is not an error: the output so far and the screen are returned."}),
        ),
    ];
    for (name, schema) in entries {
        props.insert(name.into(), schema);
    }
}

fn view_properties(props: &mut Map<String, Value>) {
    props.insert(
        "view".into(),
        json!({
            "type": "string",
            "enum": ["new", "screen", "scrollback"],
            "default": "new",
            "description": "What to return: \"new\" the transcript since the previous read, \"screen\" the visible screen, \"scrollback\" the end of the retained transcript."
        }),
    );
    props.insert("max_bytes".into(), max_bytes(16_384));
}

fn max_bytes(default: u64) -> Value {
    json!({
        "type": "integer",
        "minimum": 256,
        "maximum": 1_048_576,
        "default": default,
        "description": format!("Most bytes of the whole result: the text and the structured content together, each string in them (output, screen, title, matched text, wait condition, program or command) counted as escaped in JSON, plus at most {MAX_BYTES_OVERHEAD} bytes of fixed framing (field names, numbers, status, notes). Output keeps its end and the screen its start, saying how much was left out; a title, matched text, wait condition, program or command longer than its share (an eighth of max_bytes, a quarter for the matched text) is cut, ending with \"[... N more bytes of the ... cut]\".")
    })
}

fn env_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": {"type": ["string", "null"]},
        "description": "Environment variables to set for the program (null removes one), e.g. {\"LANG\": \"C.UTF-8\"}."
    })
}

fn object(props: Map<String, Value>, required: &[&str]) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": props,
        "additionalProperties": false,
    });
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// The input schema of `tool`.
pub(crate) fn input_schema(tool: &str) -> Value {
    let mut props = Map::new();
    let mut required: Vec<&str> = Vec::new();
    match tool {
        START => {
            props.insert("command".into(), json!({"type": "string", "description": "A shell command line, run by bash -lc (pipes, globs and && work), e.g. \"python3 -q\" or \"make test\"."}));
            props.insert("argv".into(), json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "The program and its arguments, run without a shell, e.g. [\"vim\", \"notes.txt\"]."}));
            props.insert("cwd".into(), json!({"type": "string", "description": "Working directory (default: the server's)."}));
            props.insert("env".into(), env_schema());
            props.insert("cols".into(), json!({"type": "integer", "minimum": 2, "maximum": 1000, "description": "Terminal width in columns (default 120)."}));
            props.insert("rows".into(), json!({"type": "integer", "minimum": 1, "maximum": 500, "description": "Terminal height in rows (default 32)."}));
            props.insert("shell_integration".into(), json!({"type": "boolean", "description": "Track the prompt and exit codes of a bash or zsh started interactively (default: true for the default interactive shell, false otherwise; not possible with command)."}));
            view_properties(&mut props);
            wait_properties(&mut props);
        }
        SEND => {
            props.insert("session_id".into(), session_id());
            props.insert("text".into(), json!({"type": "string", "description": "Text to type; backslash escapes are decoded: \\n, \\r (Enter), \\t, \\e (Escape), \\xHH, \\uHHHH, \\\\."}));
            props.insert("keys".into(), json!({"type": "string", "description": "A key script: text with keys in angle brackets, e.g. \"ihello<Esc>:wq<Enter>\", \"<C-c>\", \"<Up><Up><Enter>\", \"<F10>\"; modifiers C- (Ctrl), M- (Alt), S- (Shift); <lt> types a literal <."}));
            props.insert("paste".into(), json!({"type": "string", "description": "Text to paste as one block (line breaks do not run each line in programs that enable bracketed paste)."}));
            props.insert("submit".into(), json!({"type": "boolean", "description": "Press Enter after everything else (e.g. to run a typed command)."}));
            view_properties(&mut props);
            wait_properties(&mut props);
            required.push("session_id");
        }
        READ => {
            props.insert("session_id".into(), session_id());
            view_properties(&mut props);
            wait_properties(&mut props);
            required.push("session_id");
        }
        RUN => {
            props.insert("command".into(), json!({"type": "string", "description": "One shell command line (no line breaks; join commands with ; or &&)."}));
            props.insert("session_id".into(), json!({"type": "integer", "minimum": 1, "description": "A shell session with shell integration to run in (omit to start a new one)."}));
            props.insert("cwd".into(), json!({"type": "string", "description": "Working directory of a new shell (only without session_id)."}));
            props.insert("env".into(), env_schema());
            props.insert("timeout_ms".into(), json!({"type": "integer", "minimum": 1, "maximum": 3_600_000, "default": 60_000, "description": "Longest time to wait for the command, in milliseconds."}));
            props.insert("max_bytes".into(), max_bytes(16_384));
            required.push("command");
        }
        SIGNAL => {
            props.insert("session_id".into(), session_id());
            props.insert("signal".into(), json!({"type": "string", "enum": ["INT", "TERM", "KILL", "QUIT", "HUP", "TSTP", "CONT", "WINCH", "USR1", "USR2"], "description": "The signal (SIG prefix and lower case are accepted too)."}));
            props.insert("target".into(), json!({"type": "string", "enum": ["foreground", "session"], "default": "foreground", "description": "\"foreground\": the terminal's foreground process group; \"session\": every process group of the session."}));
            required.extend(["session_id", "signal"]);
        }
        RESIZE => {
            props.insert("session_id".into(), session_id());
            props.insert("cols".into(), json!({"type": "integer", "minimum": 2, "maximum": 1000, "description": "Columns."}));
            props.insert(
                "rows".into(),
                json!({"type": "integer", "minimum": 1, "maximum": 500, "description": "Rows."}),
            );
            required.extend(["session_id", "cols", "rows"]);
        }
        CLOSE => {
            props.insert("session_id".into(), session_id());
            props.insert("max_bytes".into(), max_bytes(4096));
            required.push("session_id");
        }
        _ => {}
    }
    object(props, &required)
}

fn nullable(kind: &str) -> Value {
    json!({ "type": [kind, "null"] })
}

/// The schema of a session's status in structured results.
pub(crate) fn status_schema() -> Value {
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
            "view": {"type": "string", "enum": ["new", "screen", "scrollback"]},
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

/// The output schema of `tool`.
pub(crate) fn output_schema(tool: &str) -> Value {
    match tool {
        START | SEND | READ => session_view_schema(),
        RUN => json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "integer"},
                "new_session": {"type": "boolean"},
                "command": {"type": "string", "description": "The command line, cut to an eighth of max_bytes with a \"[... N more bytes of the command cut]\" marker."},
                "output": {"type": "string"},
                "output_omitted_bytes": {"type": "integer"},
                "exit_code": nullable("integer"),
                "timed_out": {"type": "boolean"},
                "duration_ms": {"type": "integer"},
                "status": status_schema()
            },
            "required": ["session_id", "new_session", "command", "output", "output_omitted_bytes", "exit_code", "timed_out", "duration_ms", "status"]
        }),
        SIGNAL => json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "integer"},
                "signal": {"type": "string"},
                "process_groups": {"type": "array", "items": {"type": "integer"}},
                "names": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["session_id", "signal", "process_groups", "names"]
        }),
        RESIZE => json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "integer"},
                "cols": {"type": "integer"},
                "rows": {"type": "integer"}
            },
            "required": ["session_id", "cols", "rows"]
        }),
        CLOSE => json!({
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
        }),
        _ => json!({
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
        }),
    }
}

/// One tool's `tools/list` entry, shaped for the revision: annotations from 2025-03-26,
/// titles and output schemas from 2025-06-18.
pub(crate) fn tool_entry(tool: &str, revision: Revision) -> Value {
    let mut entry = json!({
        "name": tool,
        "description": description(tool),
        "inputSchema": input_schema(tool),
    });
    if revision >= Revision::V2025_03_26 {
        entry["annotations"] = annotations(tool);
    }
    if revision >= Revision::V2025_06_18 {
        entry["title"] = json!(title(tool));
        entry["outputSchema"] = output_schema(tool);
    }
    entry
}
