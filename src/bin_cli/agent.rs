//! The command line for agents that only have a shell: `termloom start`, `send`, `wait`,
//! `read`, `screen`, `exec`, `signal`, `resize`, `close`, `list`, `kill-server`. Each is one
//! process and one tool call to the server (the MCP tools' own text, or `--json` for their
//! structured result), so sessions outlive the command that started them.

use std::process::ExitCode;

use serde_json::{Map, Value, json};
use termloom::tools::ToolResult;

use super::connect::Target;

/// Exit code when a wait timed out, as `termloom run` and `timeout(1)`.
const EXIT_TIMEOUT: u8 = 124;

/// How a flag's value becomes a tool argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string.
    Text,
    /// No value: `true`.
    Switch,
    /// A whole number.
    Number,
}

/// A command-line flag and the tool argument it sets.
struct Flag {
    name: &'static str,
    arg: &'static str,
    kind: Kind,
    help: &'static str,
}

const fn flag(name: &'static str, arg: &'static str, kind: Kind, help: &'static str) -> Flag {
    Flag { name, arg, kind, help }
}

/// The wait conditions, as `termloom run` names them.
const WAIT: &[Flag] = &[
    flag("--wait-text", "for_text", Kind::Text, "Text in a new transcript line."),
    flag("--wait-regex", "for_regex", Kind::Text, "Regex matching a new transcript line."),
    flag("--wait-screen", "for_screen_text", Kind::Text, "Text on the screen."),
    flag("--wait-screen-regex", "for_screen_regex", Kind::Text, "Regex matching a screen row."),
    flag("--wait-row", "screen_row", Kind::Number, "Only this row (from 0) for the two above."),
    flag("--wait-cursor", "for_cursor", Kind::Text, "The cursor at ROW,COL (from 0)."),
    flag("--wait-quiet", "quiet_ms", Kind::Number, "No output for this many ms."),
    flag("--wait-stable", "stable_ms", Kind::Number, "The screen unchanged for this many ms."),
    flag("--wait-prompt", "prompt", Kind::Switch, "The shell back at its prompt."),
    flag("--wait-input", "input_wait", Kind::Switch, "The program waiting for input."),
    flag("--wait-exit", "exit", Kind::Switch, "The program's exit."),
    flag("--timeout", "timeout_ms", Kind::Number, "Longest wait in ms (a timeout exits 124)."),
];

/// What a reading command shows.
const VIEW: &[Flag] = &[
    flag("--view", "view", Kind::Text, "new (default), screen or scrollback."),
    flag("--max-bytes", "max_bytes", Kind::Number, "Most bytes of output."),
];

const SEND: &[Flag] = &[
    flag("--text", "text", Kind::Text, "Typed, with \\n \\r \\t \\e \\xHH escapes."),
    flag("--keys", "keys", Kind::Text, "Text and <Enter> <Esc> <C-c> <Up>... (vim notation)."),
    flag("--paste", "paste", Kind::Text, "Pasted as one block."),
    flag("--submit", "submit", Kind::Switch, "Press Enter last."),
];

const START: &[Flag] = &[
    flag("--name", "name", Kind::Text, "A name to use instead of the id."),
    flag("--cwd", "cwd", Kind::Text, "Working directory."),
    flag("--command", "command", Kind::Text, "A shell command line instead of PROGRAM."),
    flag("--shell-integration", "shell_integration", Kind::Switch, "Prompts and exit codes."),
];

const LOOKUP: &[Flag] = &[
    flag("--lines", "lines", Kind::Text, "Transcript lines by number: 120-160, 120-."),
    flag("--search", "search", Kind::Text, "The transcript lines a regex matches."),
    flag("--find", "find", Kind::Text, "Where this text is on the screen."),
];

/// One client command: its name, the tool it calls, its positional arguments and flags.
struct CommandDef {
    name: &'static str,
    tool: &'static str,
    /// Positional arguments, in order (`ID`, `CMD`...).
    positional: &'static [&'static str],
    flags: &'static [&'static [Flag]],
    summary: &'static str,
}

const COMMANDS: &[CommandDef] = &[
    CommandDef {
        name: "start",
        tool: "terminal_start",
        positional: &[],
        flags: &[START, WAIT, VIEW],
        summary: "[--name N] [--size CxR] [--cwd D] [--env K=V] [--shell-integration] [-- PROGRAM ARGS]\n  Starts a session (a shell without PROGRAM); returns when it waits for input or settles.",
    },
    CommandDef {
        name: "send",
        tool: "terminal_send",
        positional: &["ID"],
        flags: &[SEND, WAIT, VIEW],
        summary: "ID [--text T | --keys K | --paste P] [--submit] [WAIT]\n  Types into the session, then waits as asked (default: until it settles).",
    },
    CommandDef {
        name: "wait",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[WAIT, VIEW],
        summary: "ID WAIT...\n  Waits for a condition; shows what is new.",
    },
    CommandDef {
        name: "read",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[VIEW, LOOKUP, WAIT],
        summary: "ID [--lines R | --search RE | --find T] [WAIT]\n  What is new in the transcript since this client last read (or the screen), after\n  waiting as asked.",
    },
    CommandDef {
        name: "screen",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[VIEW],
        summary: "ID\n  The whole screen.",
    },
    CommandDef {
        name: "exec",
        tool: "terminal_run",
        positional: &["ID", "CMD"],
        flags: &[&[flag("--timeout", "timeout_ms", Kind::Number, "")], VIEW],
        summary: "ID CMD [--timeout MS]\n  Runs a command in a shell session started with --shell-integration (or without\n  PROGRAM); prints its output and exits with its exit code.",
    },
    CommandDef {
        name: "signal",
        tool: "terminal_signal",
        positional: &["ID", "SIGNAL"],
        flags: &[&[flag("--target", "target", Kind::Text, "")]],
        summary: "ID SIGNAL [--target session]\n  Sends INT, TERM, KILL, HUP... to the foreground program (or every process).",
    },
    CommandDef {
        name: "resize",
        tool: "terminal_resize",
        positional: &["ID", "COLSxROWS"],
        flags: &[],
        summary: "ID COLSxROWS\n  Resizes the terminal.",
    },
    CommandDef {
        name: "close",
        tool: "terminal_close",
        positional: &["ID"],
        flags: &[],
        summary: "ID\n  Ends the session's processes and shows its last output.",
    },
    CommandDef {
        name: "list",
        tool: "terminal_list",
        positional: &[],
        flags: &[],
        summary: "\n  Lists the sessions.",
    },
];

/// Whether `name` is one of these commands (or `kill-server`).
pub(super) fn is_command(name: &str) -> bool {
    name == "kill-server" || COMMANDS.iter().any(|c| c.name == name)
}

/// The options every client command takes.
pub(super) const COMMON: &str = "\
Every command takes -L NAME or --socket PATH (which server), --client NAME
(whose read positions; default $TERMLOOM_CLIENT, else `cli`) and --json (the
structured result instead of text). ID is a session's id or name.

Exit codes: 0 done; 1 the server refused the request (the message says why: an
unknown session, a value out of range, a session that ended) or could not be
reached; 2 the command line could not be read; 124 a wait timed out; `exec`
exits with the command's exit code (the shell's, if the command ended the
shell; 128 + N for signal N).";

/// The help of the client commands.
pub(super) fn help() -> String {
    let mut text =
        String::from("Commands for driving sessions of a termloom server from a shell:\n\n");
    for command in COMMANDS {
        text.push_str(&format!("termloom {} {}\n\n", command.name, command.summary));
    }
    text.push_str("termloom kill-server\n  Closes every session and stops the server.\n\n");
    text.push_str("WAIT (send, wait, start):\n");
    for flag in WAIT {
        let value = match flag.kind {
            Kind::Switch => "",
            Kind::Number => " N",
            Kind::Text => " TEXT",
        };
        text.push_str(&format!("  {:<28}{}\n", format!("{}{value}", flag.name), flag.help));
    }
    text.push('\n');
    text.push_str(COMMON);
    text.push('\n');
    text
}

/// What the command line asked for.
struct Request {
    target: Target,
    client: String,
    json: bool,
    arguments: Map<String, Value>,
}

/// Runs client command `name` with its arguments.
pub(super) fn main(name: &str, args: Vec<String>) -> ExitCode {
    let help_command = format!("termloom help {name}");
    let usage = |message: &str| super::usage_error(message, &help_command);
    if args.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h") {
        print!("{}", help());
        return ExitCode::SUCCESS;
    }
    if name == "kill-server" {
        return match parse_common(args) {
            Ok((target, _, _, rest)) if rest.is_empty() => kill_server(&target),
            Ok((_, _, _, rest)) => usage(&format!("kill-server takes no {:?}", rest[0])),
            Err(message) => usage(&message),
        };
    }
    let Some(command) = COMMANDS.iter().find(|c| c.name == name) else {
        return usage(&format!("unknown command {name:?}"));
    };
    let request = match parse(command, args) {
        Ok(request) => request,
        Err(message) => return usage(&message),
    };
    let connected = if command.name == "start" {
        request.target.connect_or_start()
    } else {
        request.target.connect()
    };
    let result = connected.and_then(|mut client| {
        let arguments = Value::Object(request.arguments.clone());
        client
            .call_tool_as(Some(&request.client), command.tool, arguments)
            .map_err(|e| format!("the termloom server failed: {e}"))
    });
    match result {
        Ok(result) => report(command, &result, request.json),
        Err(message) => {
            eprintln!("termloom: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Takes `-L`, `--socket`, `--client` and `--json` out of `args`; returns them and the rest.
fn parse_common(args: Vec<String>) -> Result<(Target, String, bool, Vec<String>), String> {
    let mut target = Target::default();
    let mut client = std::env::var("TERMLOOM_CLIENT").unwrap_or_else(|_| "cli".to_owned());
    let mut json = false;
    let mut rest = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            rest.push(arg);
            rest.extend(args.by_ref());
            break;
        }
        if target.option(&arg, || args.next())? {
            continue;
        }
        match arg.as_str() {
            "--json" => json = true,
            "--client" => client = args.next().ok_or("--client needs a NAME")?,
            _ => rest.push(arg),
        }
    }
    Ok((target, client, json, rest))
}

/// Parses a command's arguments into the tool's.
fn parse(command: &CommandDef, args: Vec<String>) -> Result<Request, String> {
    let (target, client, json, rest) = parse_common(args)?;
    let mut arguments = Map::new();
    let mut positional = Vec::new();
    let mut env = Map::new();
    let mut argv: Option<Vec<String>> = None;
    let mut rest = rest.into_iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            if command.name != "start" {
                return Err(format!("`termloom {}` takes no program after --", command.name));
            }
            argv = Some(rest.by_ref().collect());
            break;
        }
        // `--flag=VALUE` as well as `--flag VALUE`.
        let (arg, mut inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg, None),
        };
        let given_inline = inline.is_some();
        let mut value =
            || inline.take().map_or_else(|| rest.next().ok_or(format!("{arg} needs a value")), Ok);
        match arg.as_str() {
            "--size" if command.name == "start" => {
                let (cols, rows) = size(&value()?)?;
                arguments.insert("cols".into(), cols.into());
                arguments.insert("rows".into(), rows.into());
                continue;
            }
            "--env" if command.name == "start" => {
                let pair = value()?;
                let (key, val) =
                    pair.split_once('=').ok_or(format!("--env {pair:?}: give KEY=VALUE"))?;
                env.insert(key.to_owned(), json!(val));
                continue;
            }
            _ => {}
        }
        let found = command.flags.iter().flat_map(|group| group.iter()).find(|f| f.name == arg);
        match found {
            Some(flag) => {
                let value = match flag.kind {
                    Kind::Switch if given_inline => return Err(format!("{arg} takes no value")),
                    Kind::Switch => json!(true),
                    Kind::Text => json!(value()?),
                    Kind::Number => {
                        let text = value()?;
                        json!(
                            text.parse::<u64>()
                                .map_err(|_| format!("{arg} {text:?}: give a whole number"))?
                        )
                    }
                };
                arguments.insert(flag.arg.into(), value);
            }
            None if arg.starts_with('-') && arg.len() > 1 => {
                return Err(format!("`termloom {}` does not take {arg}", command.name));
            }
            None if command.name == "start" => {
                // `termloom start vim notes.txt`: the program and its arguments.
                let mut program = vec![arg];
                program.extend(rest.by_ref());
                argv = Some(program);
                break;
            }
            None => positional.push(arg),
        }
    }
    if positional.len() != command.positional.len() {
        return Err(format!(
            "`termloom {}` takes {}",
            command.name,
            if command.positional.is_empty() {
                "no positional argument".to_owned()
            } else {
                command.positional.join(" ")
            }
        ));
    }
    for (name, value) in command.positional.iter().zip(positional) {
        match *name {
            "ID" => arguments.insert("session_id".into(), session_ref(&value)),
            "CMD" => arguments.insert("command".into(), json!(value)),
            "SIGNAL" => arguments.insert("signal".into(), json!(value)),
            _ => {
                let (cols, rows) = size(&value)?;
                arguments.insert("cols".into(), cols.into());
                arguments.insert("rows".into(), rows.into())
            }
        };
    }
    if let Some(argv) = argv.filter(|argv| !argv.is_empty()) {
        arguments.insert("argv".into(), json!(argv));
    }
    if !env.is_empty() {
        arguments.insert("env".into(), Value::Object(env));
    }
    if command.name == "screen" {
        arguments.insert("view".into(), json!("screen"));
    }
    // `wait` without a condition would only read: say so (`read` does that).
    let waits_for = |flag: &Flag| flag.name != "--timeout" && arguments.contains_key(flag.arg);
    if command.name == "wait" && !WAIT.iter().any(waits_for) {
        return Err(
            "`termloom wait` needs a condition such as --wait-text or --wait-exit; to read without waiting, use `termloom read`".into(),
        );
    }
    Ok(Request { target, client, json, arguments })
}

/// An id as a number, a name as a string.
fn session_ref(value: &str) -> Value {
    value.parse::<u64>().map_or_else(|_| json!(value), |id| json!(id))
}

/// `COLSxROWS`.
fn size(value: &str) -> Result<(u16, u16), String> {
    value
        .split_once('x')
        .and_then(|(c, r)| Some((c.parse().ok()?, r.parse().ok()?)))
        .ok_or(format!("{value:?}: give the size as COLSxROWS, e.g. 100x30"))
}

/// A tool's words in the command line's: tool names become commands (`terminal_read` →
/// `termloom read`), arguments their flags (`max_bytes=` → `--max-bytes=`, `` `for_text` `` →
/// `` `--wait-text` ``), so that advice in a message can be followed from a shell.
fn in_cli_terms(message: &str) -> String {
    let mut text = message.to_owned();
    for command in COMMANDS {
        // `terminal_read` is `read` (not `wait` or `screen`, which also call it).
        let preferred = COMMANDS
            .iter()
            .find(|c| c.tool == command.tool && command.tool.ends_with(c.name))
            .unwrap_or(command);
        text = text.replace(command.tool, &format!("termloom {}", preferred.name));
    }
    text = replace_word(&text, "session_id=", "ID ");
    for flag in COMMANDS.iter().flat_map(|c| c.flags.iter().copied().flatten()) {
        text = replace_word(&text, &format!("`{}`", flag.arg), &format!("`{}`", flag.name));
        if matches!(flag.kind, Kind::Switch) {
            text = replace_word(&text, &format!("{}=true", flag.arg), flag.name);
        }
        text = replace_word(&text, &format!("{}=", flag.arg), &format!("{}=", flag.name));
        // Bare names that are no English word (`for_cursor "99,99" is off the screen`).
        if flag.arg.contains('_') {
            text = replace_word(&text, flag.arg, flag.name);
        }
    }
    replace_word(&text, "session_id", "ID")
}

/// `text` with `from` replaced by `to` where `from` is not part of a longer word (`text=` in
/// `for_text=` or `--wait-text=`, `for_text` in `for_texts`, is left alone).
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let open_end = from.chars().next_back().is_some_and(word);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back().or_else(|| out.chars().next_back());
        let after = rest[at + from.len()..].chars().next();
        let inside = before.is_some_and(word) || (open_end && after.is_some_and(word));
        out.push_str(&rest[..at]);
        out.push_str(if inside { from } else { to });
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// A result's text with termloom's own notes (whole lines in brackets) in the command line's
/// terms; the program's output is left as it is.
fn notes_in_cli_terms(text: &str) -> String {
    let lines = text.split_inclusive('\n').map(|line| {
        let bare = line.trim_end();
        if bare.starts_with('[') && bare.ends_with(']') {
            in_cli_terms(line)
        } else {
            line.to_owned()
        }
    });
    lines.collect()
}

/// Prints a tool's result and picks the exit code.
fn report(command: &CommandDef, result: &ToolResult, json: bool) -> ExitCode {
    if result.is_error {
        if json {
            println!("{}", json!({ "error": result.text }));
        } else {
            eprintln!("termloom: {}", in_cli_terms(&result.text));
        }
        return ExitCode::FAILURE;
    }
    let structured = result.structured.clone().unwrap_or(Value::Null);
    if json {
        println!("{structured}");
    } else {
        let text = notes_in_cli_terms(&result.text);
        print!("{text}");
        if !text.ends_with('\n') {
            println!();
        }
    }
    let timed_out = structured["wait"]["outcome"] == "timeout" || structured["timed_out"] == true;
    if timed_out {
        return ExitCode::from(EXIT_TIMEOUT);
    }
    if command.name == "exec" {
        // The command's code; when the shell itself ended during it (`exit 5`), the shell's,
        // a signal as 128 + its number, as a shell reports it.
        let status = &structured["status"];
        let code = structured["exit_code"]
            .as_u64()
            .or_else(|| (status["activity"] == "exited").then(|| status["exit_code"].as_u64())?)
            .or_else(|| Some(128 + status["exit_signal"].as_u64()?))
            .unwrap_or(1);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    ExitCode::SUCCESS
}

/// `termloom kill-server`: stops the server and waits until its socket is gone.
fn kill_server(target: &Target) -> ExitCode {
    let mut client = match target.connect() {
        Ok(client) => client,
        Err(message) => {
            eprintln!("termloom: {message}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(err) = client.request("termloom/shutdown", json!({})) {
        eprintln!("termloom: the server did not accept the shutdown: {err}");
        return ExitCode::FAILURE;
    }
    // The server answers, closes every session, then exits: its end closes the connection.
    while let Ok(Some(_)) = client.next_reply() {}
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_is_given_in_the_command_lines_terms() {
        assert_eq!(
            in_cli_terms(
                "[... 7078 earlier bytes left out; to see them, call terminal_read with session_id=5 and view=\"scrollback\" and max_bytes=9000]"
            ),
            "[... 7078 earlier bytes left out; to see them, call termloom read with ID 5 and --view=\"scrollback\" and --max-bytes=9000]"
        );
        assert_eq!(
            in_cli_terms("follow it with terminal_read (prompt=true, timeout_ms=...)"),
            "follow it with termloom read (--wait-prompt, --timeout=...)"
        );
        // An argument whose name ends another's is not replaced inside it.
        assert_eq!(
            in_cli_terms("give `for_text` or `text`; for_text=\"a\" text=\"b\""),
            "give `--wait-text` or `--text`; --wait-text=\"a\" --text=\"b\""
        );
        assert_eq!(
            in_cli_terms("terminal_run: x; terminal_close it"),
            "termloom exec: x; termloom close it"
        );
        assert_eq!(
            in_cli_terms("for_cursor \"99,99\" is off; omit session_id; for_cursors"),
            "--wait-cursor \"99,99\" is off; omit ID; for_cursors"
        );
    }

    #[test]
    fn only_termlooms_own_notes_are_translated() {
        let text =
            "[session 1 · cat running]\nmax_bytes=5 from the program\n[note: call terminal_read]\n";
        assert_eq!(
            notes_in_cli_terms(text),
            "[session 1 · cat running]\nmax_bytes=5 from the program\n[note: call termloom read]\n"
        );
    }
}
