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
/// Exit code when the program exited (or its session was closed) before a wait's condition
/// held, as `termloom run`'s.
const EXIT_ENDED: u8 = 1;
/// Exit code when the program asks for input before a wait's condition held (or `exec`'s
/// command asks for input): the condition may still hold once it is answered, but not before.
const EXIT_INPUT: u8 = 3;

/// How a flag's value becomes a tool argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string.
    Text,
    /// A regular expression, a string (`RE` in the help).
    Regex,
    /// A string typed as it is: the tool decodes backslash escapes in it, so its backslashes
    /// are doubled (a shell's `$'...'` writes control characters, `--keys` names keys).
    Literal,
    /// No value: `true`.
    Switch,
    /// A whole number from the first bound to the second: the tool's range, checked here so
    /// that a value out of it is a usage error as any other malformed value.
    Number(u64, u64),
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A key script (`ihello<Esc>`), checked here.
    Keys,
    /// A cursor position, `ROW,COL`.
    Cursor,
    /// Transcript line numbers, `FIRST-LAST` or `FIRST-`.
    Lines,
    /// A file's contents, as a string: `-` is stdin.
    File,
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

/// The longest wait of a server's command, in ms: the tools' bound (an hour), for a call
/// holds a connection and a thread of a shared server; `termloom run`'s is a day (see
/// [`super::values::MAX_TIMEOUT_MS`]).
const MAX_WAIT_MS: u64 = termloom::tools::MAX_TIMEOUT_MS;

/// The bounds of `--max-bytes`, the tools' `max_bytes`.
const MAX_BYTES: Kind =
    Kind::Number(termloom::tools::MAX_BYTES_RANGE.0, termloom::tools::MAX_BYTES_RANGE.1);

/// The wait conditions, as `termloom run` names them.
const WAIT: &[Flag] = &[
    flag("--wait-text", "for_text", Kind::Text, "Text in a new transcript line."),
    flag("--wait-regex", "for_regex", Kind::Regex, "Regex matching a new transcript line."),
    flag("--wait-screen", "for_screen_text", Kind::Text, "Text on the screen."),
    flag("--wait-screen-regex", "for_screen_regex", Kind::Regex, "Regex matching a screen row."),
    flag(
        "--wait-row",
        "screen_row",
        Kind::Number(0, termloom::MAX_ROWS as u64 - 1),
        "Only this row (from 0) for the two above.",
    ),
    flag("--wait-cursor", "for_cursor", Kind::Cursor, "The cursor at ROW,COL (from 0)."),
    flag("--wait-quiet", "quiet_ms", Kind::Number(0, MAX_WAIT_MS), "No output for this many ms."),
    flag(
        "--wait-stable",
        "stable_ms",
        Kind::Number(0, MAX_WAIT_MS),
        "The screen unchanged for this many ms.",
    ),
    flag("--wait-prompt", "prompt", Kind::Switch, "The shell back at its prompt."),
    flag("--wait-input", "input_wait", Kind::Switch, "The program waiting for input."),
    flag("--wait-exit", "exit", Kind::Switch, "The program's exit."),
    flag(
        "--timeout",
        "timeout_ms",
        Kind::Number(1, MAX_WAIT_MS),
        "Longest wait in ms (default 30000, at most 3600000; a timeout exits 124).",
    ),
];

/// What a reading command shows.
const VIEW: &[Flag] = &[flag(
    "--view",
    "view",
    Kind::Choice(&["new", "screen", "scrollback"]),
    "new (default), screen or scrollback.",
)];

/// How much a command prints.
const OUTPUT: &[Flag] = &[flag(
    "--max-bytes",
    "max_bytes",
    MAX_BYTES,
    "Most bytes of output (default 16384), termloom's notes\n                              \
     and headers aside (at most 3072 more).",
)];

const SEND: &[Flag] = &[
    flag(
        "--text",
        "text",
        Kind::Literal,
        "Typed as it is, backslashes too (<Enter>: --submit or --keys).",
    ),
    flag("--keys", "keys", Kind::Keys, "Text and <Enter> <Esc> <C-c> <Up>... (vim notation)."),
    flag("--paste", "paste", Kind::Text, "Pasted as one block."),
    flag("--paste-file", "paste", Kind::File, "A file pasted as --paste is (- for stdin)."),
    flag("--submit", "submit", Kind::Switch, "Press Enter last."),
];

const START: &[Flag] = &[
    flag("--name", "name", Kind::Text, "A name to use instead of the id."),
    flag("--cwd", "cwd", Kind::Text, "Working directory."),
    flag("--command", "command", Kind::Text, "A shell command line instead of PROGRAM."),
    flag("--shell-integration", "shell_integration", Kind::Switch, "Prompts and exit codes."),
];

/// `start`'s flags that `parse` reads itself, and their help.
const START_PARSED: [(&str, &str); 2] = [
    ("--size COLSxROWS", "Terminal size (default 120x32)."),
    ("--env KEY=VALUE", "An environment variable for the program (repeatable)."),
];

const LOOKUP: &[Flag] = &[
    flag("--lines", "lines", Kind::Lines, "Transcript lines by number: 120-160, 120-."),
    flag("--search", "search", Kind::Regex, "The transcript lines a regex matches."),
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
        flags: &[START, WAIT, VIEW, OUTPUT],
        summary: "[--name N] [--size CxR] [--cwd D] [--env K=V] [--shell-integration]\n      [--command LINE | [--] PROGRAM ARGS...] [WAIT] [--view V] [--max-bytes N]\n  Starts a session (a shell without PROGRAM or --command) in this directory (--cwd:\n  another, relative to this one); returns when it waits for input, exits or settles\n  (at most 10 s), or when WAIT holds. Everything after PROGRAM is its arguments.",
    },
    CommandDef {
        name: "send",
        tool: "terminal_send",
        positional: &["ID"],
        flags: &[SEND, WAIT, VIEW, OUTPUT],
        summary: "ID [--text T | --keys K | --paste P | --paste-file PATH] [--submit] [WAIT]\n      [--view V] [--max-bytes N]\n  Types into the session (--text, then --paste, --keys, and Enter for --submit), then\n  waits as asked; without WAIT, until it waits for input, exits or settles, at most\n  10 s (a program still busy then is no failure: the note says so, and exit code 0).\n  --paste-file pastes a file's contents, or with - what stdin gives until it ends,\n  for a text too long for one argument (up to 4 MiB).",
    },
    CommandDef {
        name: "wait",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[WAIT, VIEW, OUTPUT],
        summary: "ID WAIT... [--view V] [--max-bytes N]\n  Waits for a condition; shows what is new.",
    },
    CommandDef {
        name: "read",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[VIEW, LOOKUP, WAIT, OUTPUT],
        summary: "ID [--lines R | --search RE | --find T] [WAIT] [--view V] [--max-bytes N]\n  What is new in the transcript since this client last read (or the screen), after\n  waiting as asked. --view: new (default), screen or scrollback (the retained\n  transcript's end).",
    },
    CommandDef {
        name: "screen",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[OUTPUT],
        summary: "ID [--max-bytes N]\n  The whole screen.",
    },
    CommandDef {
        name: "exec",
        tool: "terminal_run",
        positional: &["ID", "CMD"],
        flags: &[&[flag("--timeout", "timeout_ms", Kind::Number(1, MAX_WAIT_MS), "")], OUTPUT],
        summary: "ID CMD [--timeout MS] [--max-bytes N]\n  Runs a command in a shell session started with --shell-integration (or without\n  PROGRAM); prints its output and exits with its exit code. --timeout defaults to\n  45000 ms; a command still running then (exit 124), or waiting for input (a\n  question, a password, an editor) before (exit 3), goes on: answer it with send.",
    },
    CommandDef {
        name: "signal",
        tool: "terminal_signal",
        positional: &["ID", "SIGNAL"],
        flags: &[&[flag("--target", "target", Kind::Choice(&["foreground", "session"]), "")]],
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
        summary: "ID\n  Ends the session's processes and shows its last output. Closing a closed session\n  (by its id: its name is free once closed) changes nothing and says \"already closed\".",
    },
    CommandDef {
        name: "list",
        tool: "terminal_list",
        positional: &[],
        flags: &[],
        summary: "\n  Lists the sessions. With no server running there are none: \"no sessions\"\n  (--json: {\"sessions\":[]}), exit 0, and a note on stderr that no server runs.",
    },
];

/// Whether `name` is one of these commands (or `kill-server`).
pub(super) fn is_command(name: &str) -> bool {
    name == "kill-server" || COMMANDS.iter().any(|c| c.name == name)
}

/// The options every client command takes.
pub(super) const COMMON: &str = "\
Every command takes -L NAME or --socket PATH (which server; also before the
command, as with tmux: termloom -L work list), --client NAME
(whose read positions; default $TERMLOOM_CLIENT, else `cli`) and --json (the
structured result instead of text). ID is a session's id or name.

Options are read up to PROGRAM or `--` (after them, everything is the
program's); a flag's value is taken as it is, even when it starts with a dash.
A wait lasts at most 3600000 ms (an hour), the server's bound, as each holds a
connection to a server others share: wait again to wait longer (`termloom
run`, the caller's own process, waits up to a day).

Exit codes: 0 done; 1 the server refused the request (the message says why: an
unknown session, a value that does not fit the session, such as a row off its
screen, a session that ended) or could not be reached, the program exited (or the session was closed) before a wait's
condition held (unless --wait-exit was asked for), or the output could not be
written; 2 the command line could not be read: an unknown flag, a value
malformed, empty or out of its range (the message names the range), a send with
nothing to send, --wait-row alone; 3 the program asks for input
(a question, a password) before a wait's condition held, or `exec`'s command
does: the condition cannot hold before an answer (type it with send, then wait
again); 124 a wait asked for timed out, or `exec`'s command still runs at
--timeout; `exec`
otherwise exits with the command's exit code (the shell's, if the command ended
the shell; 128 + N for signal N), and a --wait-exit that saw the program end
with the program's (128 + N for signal N), as a shell's `wait` does (so a
program's own 1, 2, 3 or 124 reads like termloom's: --json tells them apart).";

/// The help of the client commands.
pub(super) fn help() -> String {
    let mut text =
        String::from("Commands for driving sessions of a termloom server from a shell:\n\n");
    for command in COMMANDS {
        let line = format!("termloom {} {}", command.name, command.summary);
        let line: Vec<&str> = line.lines().map(str::trim_end).collect();
        text.push_str(&format!("{}\n\n", line.join("\n")));
    }
    text.push_str("termloom kill-server\n  Closes every session and stops the server.\n\n");
    // Each group of flags once, with the commands that take it.
    for (title, group) in [
        ("START", START),
        ("SEND", SEND),
        ("LOOKUP", LOOKUP),
        ("WAIT", WAIT),
        ("VIEW", VIEW),
        ("OUTPUT", OUTPUT),
    ] {
        let takers: Vec<&str> = COMMANDS
            .iter()
            // By the group's first flag: a constant's address may differ between its uses.
            .filter(|c| c.flags.iter().any(|g| g.first().map(|f| f.name) == Some(group[0].name)))
            .map(|c| c.name)
            .collect();
        text.push_str(&format!("{title} ({}):\n", takers.join(", ")));
        for flag in group {
            let value = match flag.kind {
                Kind::Switch => "",
                Kind::Number(..) => " N",
                Kind::Regex => " RE",
                Kind::Keys => " KEYS",
                Kind::Cursor => " ROW,COL",
                Kind::Lines => " RANGE",
                Kind::Choice(_) | Kind::Text | Kind::Literal => " TEXT",
                Kind::File => " PATH",
            };
            let shown = format!("{}{value}", flag.name);
            text.push_str(&format!("  {shown:<28}{}\n", flag.help));
        }
        if title == "START" {
            // Read by `parse` itself, as they give the tool more than one argument each.
            for (shown, help) in START_PARSED {
                text.push_str(&format!("  {shown:<28}{help}\n"));
            }
        }
        text.push('\n');
    }
    text.push_str(COMMON);
    text.push('\n');
    text
}

/// What the command line asked for.
struct Request {
    target: Target,
    client: String,
    /// The options naming the server and the client as given (`-L work`, `--client a`),
    /// quoted for a shell: advice to run another command repeats them.
    reach: Vec<String>,
    json: bool,
    arguments: Map<String, Value>,
}

/// What a command line asks for: the help, or a request.
enum Parsed {
    Help,
    Run(Request),
}

/// `termloom kill-server`: only the options every command takes.
const KILL_SERVER: CommandDef =
    CommandDef { name: "kill-server", tool: "", positional: &[], flags: &[], summary: "" };

/// Runs client command `name` with its arguments.
pub(super) fn main(name: &str, args: Vec<String>) -> ExitCode {
    let help_command = format!("termloom help {name}");
    let usage = |message: &str| super::usage_error(message, &help_command);
    let command = if name == "kill-server" {
        &KILL_SERVER
    } else {
        match COMMANDS.iter().find(|c| c.name == name) {
            Some(command) => command,
            None => return usage(&format!("unknown command {name:?}")),
        }
    };
    let request = match parse(command, args) {
        Ok(Parsed::Help) => return print_out(&help()),
        Ok(Parsed::Run(request)) => request,
        Err(message) => return usage(&message),
    };
    if command.name == "kill-server" {
        return kill_server(&request);
    }
    let connected = if command.name == "start" {
        request.target.connect_or_start()
    } else {
        request.target.connect()
    };
    // No server runs, so there is no session: `list` says so on stderr, lists none on stdout
    // and succeeds (a server with no session exits when idle: that is no failure to a script
    // asking which sessions there are).
    if command.name == "list"
        && let Err(message) = &connected
        && !request.target.runs()
    {
        eprintln!("termloom: {}", with_reach(message, &request.reach));
        return if request.json {
            print_out(&format!("{}\n", json!({ "sessions": [] })))
        } else {
            print_out("no sessions\n")
        };
    }
    let result = connected.and_then(|mut client| {
        let arguments = Value::Object(request.arguments.clone());
        client
            .call_tool_as(Some(&request.client), command.tool, arguments)
            .map_err(|e| server_failed(&mut client, &e))
    });
    match result {
        Ok(result) => report(command, &request, &result),
        Err(message) => {
            // Advice such as "`termloom start` starts one" reaches the server asked for.
            eprintln!("termloom: {}", with_reach(&message, &request.reach));
            ExitCode::FAILURE
        }
    }
}

/// The message for a call that failed. A server that refused the connection (at its limit
/// of connections, say) wrote why before closing it, so a failed write is followed by a read
/// of that message.
fn server_failed(client: &mut termloom::server::Client, err: &std::io::Error) -> String {
    use std::io::ErrorKind;
    if matches!(err.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset)
        && let Err(refusal) = client.next_reply()
        && refusal.kind() == ErrorKind::Other
    {
        return format!("the termloom server refused the connection: {refusal}");
    }
    format!("the termloom server failed: {err}")
}

/// Parses a command's arguments into the tool's. The options every command takes (`-L`,
/// `--socket`, `--client`, `--json`, `-h`) are read where a flag may stand: a flag's value is
/// its value even when it looks like a flag, and after the program's first word (`start vim
/// -L`) or `--` everything is the program's.
fn parse(command: &CommandDef, args: Vec<String>) -> Result<Parsed, String> {
    let mut target = Target::default();
    // `$TERMLOOM_CLIENT`, unless empty; checked as `--client` is, and named when it is bad.
    let mut client = match std::env::var("TERMLOOM_CLIENT") {
        Ok(name) if !name.is_empty() => {
            termloom::server::check_client_name(&name)
                .map_err(|message| format!("$TERMLOOM_CLIENT: {message}"))?;
            name
        }
        _ => "cli".to_owned(),
    };
    let mut reach = Vec::new();
    let mut json = false;
    let mut help = false;
    let mut arguments = Map::new();
    let mut positional = Vec::new();
    let mut env = Map::new();
    let mut argv: Option<Vec<String>> = None;
    let mut rest = args.into_iter();
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
            "-L" | "--socket" => {
                let given = value()?;
                reach.retain(|option: &String| {
                    !option.starts_with("-L ") && !option.starts_with("--socket ")
                });
                reach.push(format!("{arg} {}", shell_quoted(&given)));
                target.option(&arg, || Some(given))?;
                continue;
            }
            "--client" => {
                client = value()?;
                termloom::server::check_client_name(&client)
                    .map_err(|message| format!("--client: {message}"))?;
                reach.retain(|option: &String| !option.starts_with("--client "));
                reach.push(format!("--client {}", shell_quoted(&client)));
                continue;
            }
            "--json" | "-h" | "--help" if given_inline => {
                return Err(format!("{arg} takes no value"));
            }
            "--json" => {
                json = true;
                continue;
            }
            "-h" | "--help" => {
                help = true;
                continue;
            }
            "--size" if command.name == "start" => {
                let (cols, rows) = size("--size", &value()?)?;
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
                // A flag is given once (a second value would silently replace the first);
                // `--paste` and `--paste-file` give one argument: one of them, once.
                let flags = command.flags.iter().flat_map(|group| group.iter());
                let same: Vec<&str> = flags.filter(|f| f.arg == flag.arg).map(|f| f.name).collect();
                if arguments.contains_key(flag.arg) {
                    return Err(match same.len() {
                        1 => format!("{arg} is given twice; give it once"),
                        _ => format!("give one of {}, once", same.join(" and ")),
                    });
                }
                let value = match flag.kind {
                    Kind::Switch if given_inline => return Err(format!("{arg} takes no value")),
                    Kind::Switch => json!(true),
                    // Empty text sends, matches or names nothing: the tool refuses it, and
                    // so does the command line, as the malformed value it is.
                    kind => match value()? {
                        empty if empty.is_empty() => {
                            return Err(format!(
                                "bad value for {arg}: it is empty; give it a value, or leave it out"
                            ));
                        }
                        value => match kind {
                            Kind::Text => json!(value),
                            Kind::Literal => json!(value.replace('\\', "\\\\")),
                            Kind::File => match read_file(&arg, &value)? {
                                empty if empty.is_empty() => {
                                    return Err(format!(
                                        "bad value for {arg}: {value:?} is empty; there is nothing to paste"
                                    ));
                                }
                                text => json!(text),
                            },
                            kind => checked(&arg, kind, value)?,
                        },
                    },
                };
                if arg == "--name" {
                    let name = value.as_str().unwrap_or_default();
                    termloom::server::check_session_name(name)
                        .map_err(|why| format!("bad value for --name: {why}"))?;
                }
                arguments.insert(flag.arg.into(), value);
            }
            None if arg.starts_with('-') && arg.len() > 1 => {
                let mut takes: Vec<&str> =
                    command.flags.iter().flat_map(|group| group.iter()).map(|f| f.name).collect();
                if command.name == "screen" && arg == "--view" {
                    return Err("`termloom screen` shows the screen and takes no --view; for \
                        another view, use `termloom read ID --view new|screen|scrollback`"
                        .into());
                }
                if command.name == "start" {
                    takes.extend(["--size", "--env"]);
                }
                takes.extend(["-L", "--socket", "--client", "--json"]);
                return Err(format!(
                    "`termloom {}` does not take {arg}; its flags are: {}",
                    command.name,
                    takes.join(", ")
                ));
            }
            None if command.name == "start" => {
                // `termloom start vim notes.txt`: the program and its arguments, all of them
                // (`termloom start python3 x --json` passes `--json` to python3).
                let mut program = vec![arg];
                program.extend(rest.by_ref());
                argv = Some(program);
                break;
            }
            None => positional.push(arg),
        }
    }
    if help {
        return Ok(Parsed::Help);
    }
    let lookups: Vec<&str> =
        LOOKUP.iter().filter(|f| arguments.contains_key(f.arg)).map(|f| f.name).collect();
    if lookups.len() > 1 {
        let all: Vec<&str> = LOOKUP.iter().map(|f| f.name).collect();
        return Err(format!(
            "give one of {} at a time, not {}",
            all.join(", "),
            lookups.join(" and ")
        ));
    }
    if let ([lookup], true) = (lookups.as_slice(), arguments.contains_key("view")) {
        return Err(format!(
            "{lookup} is a look-up of its own and shows no view; leave out --view"
        ));
    }
    // What the tool would refuse whatever the session: a malformed command line (exit 2).
    if command.name == "send"
        && !["text", "keys", "paste", "submit"].iter().any(|arg| arguments.contains_key(*arg))
    {
        return Err("`termloom send` needs something to send: --text, --keys, --paste, \
            --paste-file or --submit (to wait or read without typing, use `termloom wait` or \
            `termloom read`)"
            .into());
    }
    if arguments.contains_key("screen_row")
        && !arguments.contains_key("for_screen_text")
        && !arguments.contains_key("for_screen_regex")
    {
        return Err("--wait-row limits --wait-screen or --wait-screen-regex to one row: give \
            one of them too"
            .into());
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
            "CMD" if value.trim().is_empty() => {
                return Err("CMD is empty; give the command line to run".into());
            }
            "CMD" => arguments.insert("command".into(), json!(value)),
            "SIGNAL" => {
                value.parse::<termloom::Signal>().map_err(|err| {
                    format!(
                        "bad value for SIGNAL: {}",
                        super::values::single_line(&err.to_string())
                    )
                })?;
                arguments.insert("signal".into(), json!(value))
            }
            _ => {
                let (cols, rows) = size("COLSxROWS", &value)?;
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
    if command.name == "start" {
        // The session starts where the command was given, as `termloom run`'s does, not in
        // the server's directory (a server outlives the command that started it).
        let cwd = arguments.get("cwd").and_then(Value::as_str).map(std::path::PathBuf::from);
        let absolute = match cwd {
            Some(cwd) if cwd.is_absolute() => None,
            Some(cwd) => Some(
                std::path::absolute(&cwd).map_err(|e| format!("--cwd {:?}: {e}", cwd.display()))?,
            ),
            None => std::env::current_dir().ok(),
        };
        // A directory whose path is no UTF-8 cannot be sent: the server's is used then.
        if let Some(dir) = absolute.as_deref().and_then(std::path::Path::to_str) {
            arguments.insert("cwd".into(), json!(dir));
        }
    }
    if command.name == "screen" {
        arguments.insert("view".into(), json!("screen"));
    }
    // `wait` without a condition would only read: say so (`read` does that).
    if command.name == "wait" && !asks_to_wait(&arguments) {
        return Err(
            "`termloom wait` needs a condition such as --wait-text or --wait-exit; to read without waiting, use `termloom read`".into(),
        );
    }
    Ok(Parsed::Run(Request { target, client, reach, json, arguments }))
}

/// `word` as a shell reads it back: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
fn shell_quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `text` with the options naming the server and client the command was given (`reach`)
/// added to every `termloom COMMAND` it advises (not to `termloom read:` where a message
/// names its command), so that the advice reaches the same server as the client it was given
/// to.
fn with_reach(text: &str, reach: &[String]) -> String {
    use std::sync::LazyLock;
    static ADVICE: LazyLock<regex::Regex> = LazyLock::new(|| {
        let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
        regex::Regex::new(&format!(r"\btermloom ({}|kill-server)([ `]|$)", names.join("|")))
            .expect("a valid regex")
    });
    if reach.is_empty() {
        return text.to_owned();
    }
    let options = reach.join(" ");
    let advice = |found: &regex::Captures| format!("termloom {} {options}{}", &found[1], &found[2]);
    ADVICE.replace_all(text, advice).into_owned()
}

/// Whether the arguments name a wait condition (not only its `--timeout`).
fn asks_to_wait(arguments: &Map<String, Value>) -> bool {
    WAIT.iter().any(|flag| flag.name != "--timeout" && arguments.contains_key(flag.arg))
}

/// Most bytes `--paste-file` reads: what a server takes in one message, whose other fields
/// and escapes leave it a little less (the server says so past that).
const MAX_FILE_BYTES: u64 = termloom::mcp::DEFAULT_MAX_MESSAGE_BYTES as u64;

/// The contents of file `path` (stdin for `-`) for flag `flag`, as text.
fn read_file(flag: &str, path: &str) -> Result<String, String> {
    use std::io::Read;
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("{flag} {path:?}: {e}"))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{flag} {path:?}: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{flag} {path:?}: more than {MAX_FILE_BYTES} bytes, which no request to the server can hold; send it in parts"
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{flag} {path:?}: not UTF-8 text"))
}

/// Flag `flag`'s `value` of kind `kind` as the tool's argument, checked as the tool would
/// check it, so that a malformed value or one out of its range is a usage error (exit 2) with
/// the range it must be in, whichever the value: `bad value for --timeout: "0" is not a whole
/// number from 1 to 3600000`. Only what depends on a session (a row off its screen) is left
/// to the server.
fn checked(flag: &str, kind: Kind, value: String) -> Result<Value, String> {
    let bad = |why: String| format!("bad value for {flag}: {why}");
    match kind {
        Kind::Number(min, max) => {
            super::values::whole_number(&value, min, max).map(|n| json!(n)).map_err(bad)
        }
        Kind::Choice(words) if words.contains(&value.as_str()) => Ok(json!(value)),
        Kind::Choice(words) => Err(bad(format!("{value:?} is not one of {}", words.join(", ")))),
        Kind::Regex => match termloom::Until::regex(&value) {
            Ok(_) => Ok(json!(value)),
            Err(err) => Err(bad(super::values::single_line(&err.to_string()))),
        },
        Kind::Keys => match termloom::parse_key_script(&value) {
            Ok(_) => Ok(json!(value)),
            Err(err) => Err(bad(super::values::single_line(&err.to_string()))),
        },
        Kind::Cursor => {
            let below =
                |text: &str, bound: u16| text.trim().parse::<u16>().is_ok_and(|n| n < bound);
            let numbers = value.split_once(',').filter(|(row, col)| {
                below(row, termloom::MAX_ROWS) && below(col, termloom::MAX_COLS)
            });
            match numbers {
                Some(_) => Ok(json!(value)),
                None => Err(bad(format!(
                    "{value:?} is not ROW,COL, a row from 0 to {} and a column from 0 to {}, such as 0,5",
                    termloom::MAX_ROWS - 1,
                    termloom::MAX_COLS - 1
                ))),
            }
        }
        Kind::Lines => {
            let numbers = value.split_once('-').filter(|(first, last)| {
                first.parse::<u64>().is_ok_and(|first| {
                    last.is_empty() || last.parse::<u64>().is_ok_and(|last| last >= first)
                })
            });
            match numbers {
                Some(_) => Ok(json!(value)),
                None => Err(bad(format!(
                    "{value:?} is not FIRST-LAST with FIRST <= LAST, or FIRST- (transcript line numbers), such as 120-160"
                ))),
            }
        }
        Kind::Text | Kind::Literal | Kind::Switch | Kind::File => Ok(json!(value)),
    }
}

/// An id as a number, a name as a string.
fn session_ref(value: &str) -> Value {
    value.parse::<u64>().map_or_else(|_| json!(value), |id| json!(id))
}

/// `COLSxROWS`, within the sizes a terminal may have.
fn size(flag: &str, value: &str) -> Result<(u16, u16), String> {
    super::values::size(value)
        .map(|size| (size.cols, size.rows))
        .map_err(|why| format!("bad value for {flag}: {why}"))
}

/// A tool's words in the command line's: tool names become commands (`terminal_read` →
/// `termloom read`), arguments their flags (`max_bytes=` → `--max-bytes=`, `` `for_text` `` →
/// `` `--wait-text` ``), so that advice in a message can be followed from a shell. Advice to
/// call a tool on a session names it as the command takes it (`termloom read 5 --view=...`):
/// the session the message names, else `session`, the one the command was given.
fn in_cli_terms(message: &str, session: Option<&str>) -> String {
    use std::sync::LazyLock;
    // A tool that takes a session, and the session if the advice names it (or `it`, as in
    // "terminal_close it").
    static SESSION_TOOL: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"\b(terminal_(?:read|send|run|signal|resize|close))\b(?: (?:with )?session_id=([^\s,;)\]]+)(?: and\b)?| it\b)?",
        )
        .expect("a valid regex")
    });
    let mut text = SESSION_TOOL
        .replace_all(message, |found: &regex::Captures| {
            match found.get(2).map(|id| id.as_str()).or(session) {
                Some(id) => format!("{} session_id={id}", &found[1]),
                None => found[0].to_owned(),
            }
        })
        .into_owned();
    for command in COMMANDS {
        // `terminal_read` is `read` (not `wait` or `screen`, which also call it).
        let preferred = COMMANDS
            .iter()
            .find(|c| c.tool == command.tool && command.tool.ends_with(c.name))
            .unwrap_or(command);
        text = text.replace(command.tool, &format!("termloom {}", preferred.name));
        text = text.replace(
            &format!("termloom {} session_id=", preferred.name),
            &format!("termloom {} ", preferred.name),
        );
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
    in_ms(&replace_word(&text, "session_id", "ID"))
}

/// `text` with the durations of quiet and stable waits (`quiet for 1.5s`, `screen stable for
/// 0ns`, as Rust writes a `Duration`) in milliseconds, as `--wait-quiet` and `--wait-stable`
/// take them: `quiet for 1500 ms`.
fn in_ms(text: &str) -> String {
    use std::sync::LazyLock;
    static DURATION: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"\b(quiet|stable) for (\d+(?:\.\d+)?)(ns|µs|ms|s)\b")
            .expect("a valid regex")
    });
    DURATION
        .replace_all(text, |found: &regex::Captures| {
            let unit = match &found[3] {
                "ns" => 1e-6,
                "µs" => 1e-3,
                "ms" => 1.0,
                _ => 1e3,
            };
            let value: f64 = found[2].parse().unwrap_or_default();
            let ms = (value * unit * 1e3).round() / 1e3;
            format!("{} for {ms} ms", &found[1])
        })
        .into_owned()
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
/// terms (see [`in_cli_terms`]); the program's output is left as it is.
fn notes_in_cli_terms(text: &str, session: Option<&str>) -> String {
    let lines = text.split_inclusive('\n').map(|line| {
        let bare = line.trim_end();
        if bare.starts_with('[') && bare.ends_with(']') {
            in_cli_terms(line, session)
        } else {
            line.to_owned()
        }
    });
    lines.collect()
}

/// A result's text cut into termloom's own parts (`false`) and the program's (`true`): its
/// output and its screen (`structured`'s `output` and `screen.text`), found where a line
/// starts (the output first, the screen last), so that only termloom's words are put in the
/// command line's terms, never a program's line that looks like them.
fn own_and_programs<'t>(text: &'t str, structured: &Value) -> Vec<(&'t str, bool)> {
    let at_line_start = |at: &usize| *at == 0 || text.as_bytes()[at - 1] == b'\n';
    let found = |part: &Value, last: bool| {
        let part = part.as_str().filter(|part| !part.is_empty())?;
        let mut starts = text.match_indices(part).map(|(at, _)| at).filter(at_line_start);
        let at = if last { starts.last() } else { starts.next() }?;
        Some(at..at + part.len())
    };
    let mut ranges: Vec<_> =
        [found(&structured["output"], false), found(&structured["screen"]["text"], true)]
            .into_iter()
            .flatten()
            .collect();
    ranges.sort_by_key(|range| range.start);
    let mut pieces = Vec::new();
    let mut at = 0;
    for range in ranges {
        if range.start < at {
            continue;
        }
        pieces.push((&text[at..range.start], false));
        pieces.push((&text[range.clone()], true));
        at = range.end;
    }
    pieces.push((&text[at..], false));
    pieces
}

/// Prints a tool's result and picks the exit code.
fn report(command: &CommandDef, request: &Request, result: &ToolResult) -> ExitCode {
    let id = request.arguments.get("session_id");
    if result.is_error {
        let message =
            in_cli_terms(&in_command_terms(command, &result.text, id), given(id).as_deref());
        let message = with_reach(&message, &request.reach);
        if request.json {
            if print_out(&format!("{}\n", json!({ "error": message }))) != ExitCode::SUCCESS {
                return ExitCode::FAILURE;
            }
        } else if names_its_command(&message) {
            eprintln!("{message}");
        } else {
            eprintln!("termloom: {message}");
        }
        return ExitCode::FAILURE;
    }
    let structured = result.structured.clone().unwrap_or(Value::Null);
    let printed = if request.json {
        print_out(&format!("{structured}\n"))
    } else {
        let id = structured.get("session_id").or(id);
        let pieces = own_and_programs(&result.text, &structured);
        let mut text: String = pieces
            .into_iter()
            .map(|(piece, programs)| {
                if programs {
                    return piece.to_owned();
                }
                let own = in_command_terms(command, piece, id);
                // A resize's text is all termloom's own; elsewhere only whole lines in
                // brackets are notes.
                let own = if command.name == "resize" {
                    in_cli_terms(&own, given(id).as_deref())
                } else {
                    notes_in_cli_terms(&own, given(id).as_deref())
                };
                with_reach(&own, &request.reach)
            })
            .collect();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        print_out(&text)
    };
    if printed != ExitCode::SUCCESS {
        return printed;
    }
    let wait = &structured["wait"];
    // The program asks for input first: what was waited for cannot come before an answer,
    // and `termloom wait ... && next` must not go on as if it had. The default wait of `send`
    // or `start` ends there as it should.
    if (wait["outcome"] == "waiting_for_input" && wait["default"] != true)
        || structured["waiting_for_input"] == true
    {
        return ExitCode::from(EXIT_INPUT);
    }
    if wait["outcome"] == "timeout" || structured["timed_out"] == true {
        // Only a wait that was asked for times out: the default wait of `send` or `start`
        // ends with a note that the program is still busy. `exec`'s command still running
        // at its timeout has no exit code yet.
        return if wait["default"] == true {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_TIMEOUT)
        };
    }
    // The program ended (or the session was closed) before the condition asked for could
    // hold: it never will, and `termloom wait ... && next` must not go on.
    let ended = wait["outcome"] == "exited" || wait["outcome"] == "closed";
    let exit_satisfies = wait["outcome"] == "exited" && request.arguments.contains_key("exit");
    if ended && wait["default"] != true && !exit_satisfies {
        return ExitCode::from(EXIT_ENDED);
    }
    let status = &structured["status"];
    if command.name == "exec" {
        // The command's code; when the shell itself ended during it (`exit 5`), the shell's,
        // a signal as 128 + its number, as a shell reports it.
        let code = structured["exit_code"]
            .as_u64()
            .or_else(|| (status["activity"] == "exited").then(|| status["exit_code"].as_u64())?)
            .or_else(|| program_code(status))
            .unwrap_or(1);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    if exit_satisfies {
        // `--wait-exit` ends as a shell's `wait` does: with the program's code.
        let code = program_code(status).unwrap_or(1);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    ExitCode::SUCCESS
}

/// The exit code of a program that ended, as a shell reports it: its own, or 128 + N for
/// signal N.
fn program_code(status: &Value) -> Option<u64> {
    status["exit_code"].as_u64().or_else(|| Some(128 + status["exit_signal"].as_u64()?))
}

/// Writes `text` on stdout. A reader that went away (`termloom read ID | head -1`) is no
/// crash: the command says so on stderr and fails, as `termloom run` does.
pub(super) fn print_out(text: &str) -> ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("termloom: writing the output failed: {err}");
            ExitCode::FAILURE
        }
    }
}

/// A session as the command line names it: its name, or its id.
fn given(id: Option<&Value>) -> Option<String> {
    id.map(|id| match id {
        Value::String(name) => name.clone(),
        other => other.to_string(),
    })
}

/// The parts of a result's text that only this command can put in its terms: its own name
/// where the tool's stands (`termloom wait: ...`, not `termloom read: ...`), the session in
/// advice that leaves it out, and the advice of the MCP tools that has no flag to map to.
fn in_command_terms(command: &CommandDef, text: &str, id: Option<&Value>) -> String {
    let mut text =
        text.replace(&format!("{}:", command.tool), &format!("termloom {}:", command.name));
    if let Some(id) = given(id) {
        text = text
            .replace("terminal_read with view=", &format!("terminal_read session_id={id} view="));
    }
    for (from, to) in PHRASES {
        text = text.replace(from, to);
    }
    // The tool's arguments that are this command's positional ones, or parts of a flag's value.
    let positional: &[(&str, &str)] = match command.name {
        "exec" => &[
            ("`command` is empty; give it a value, or leave it out", "CMD is empty"),
            ("`command`", "CMD"),
        ],
        "start" => &[
            ("`argv` (a program and its arguments)", "PROGRAM ARGS"),
            ("`cols`", "--size's COLS"),
            ("`rows`", "--size's ROWS"),
        ],
        "resize" => &[("`cols`", "COLS"), ("`rows`", "ROWS")],
        _ => &[],
    };
    for (from, to) in positional {
        text = text.replace(from, to);
    }
    // A wait that would be refused before typing says nothing was typed: these commands type
    // nothing.
    if !matches!(command.name, "send" | "start") {
        text = text.replace("; nothing was sent", "");
    }
    // A look-up's errors begin with its argument (`lines must be ...`): the flag's name.
    for name in ["lines", "search"] {
        if text.strip_prefix(name).is_some_and(|rest| rest.starts_with([' ', ':'])) {
            text.insert_str(0, "--");
        }
    }
    text
}

/// Whether an error `message` begins with the command it is about (`termloom read: ...`),
/// so that it needs no `termloom: ` before it.
fn names_its_command(message: &str) -> bool {
    let command = message.strip_prefix("termloom ").and_then(|rest| rest.split_once(": "));
    command.is_some_and(|(name, _)| is_command(name))
}

/// The MCP tools' advice that is said otherwise on the command line.
const PHRASES: &[(&str, &str)] = &[
    (
        "omit session_id to start one, or use terminal_start without command/argv (or with argv=[\"bash\"] or [\"zsh\"] and shell_integration=true)",
        "start one with `termloom start` without PROGRAM (or `termloom start --shell-integration -- bash`)",
    ),
    ("close some with terminal_close (termloom close ID)", "close some with termloom close ID"),
    (
        "this MCP client did not declare the elicitation capability (or its protocol revision has none), so no one can be asked",
        "the policy says to ask a person, and no one can be asked on the command line",
    ),
];

/// `termloom kill-server`: stops the server and waits until its socket is gone.
fn kill_server(request: &Request) -> ExitCode {
    let mut client = match request.target.connect() {
        Ok(client) => client,
        Err(message) => {
            // Advice such as "`termloom start` starts one" reaches the server asked for.
            eprintln!("termloom: {}", with_reach(&message, &request.reach));
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
                "[... 7078 earlier bytes left out; to see them, call terminal_read with session_id=5 view=\"scrollback\" max_bytes=9000]",
                Some("ed"),
            ),
            "[... 7078 earlier bytes left out; to see them, call termloom read 5 --view=\"scrollback\" --max-bytes=9000]"
        );
        assert_eq!(
            in_cli_terms("follow it with terminal_read (prompt=true, timeout_ms=...)", None),
            "follow it with termloom read (--wait-prompt, --timeout=...)"
        );
        // An argument whose name ends another's is not replaced inside it.
        assert_eq!(
            in_cli_terms("give `for_text` or `text`; for_text=\"a\" text=\"b\"", None),
            "give `--wait-text` or `--text`; --wait-text=\"a\" --text=\"b\""
        );
        assert_eq!(
            in_cli_terms("terminal_run: x; terminal_close it", None),
            "termloom exec: x; termloom close it"
        );
        assert_eq!(
            in_cli_terms("for_cursor \"99,99\" is off; omit session_id; for_cursors", None),
            "--wait-cursor \"99,99\" is off; omit ID; for_cursors"
        );
    }

    #[test]
    fn durations_are_given_in_ms() {
        assert_eq!(
            in_cli_terms("[screen stable for 0ns held; quiet for 1.25s; quiet for 20ms]", None),
            "[screen stable for 0 ms held; quiet for 1250 ms; quiet for 20 ms]"
        );
    }

    /// Advice to call a tool on the session names the session as the command takes it, so
    /// that it can be run as it is.
    #[test]
    fn advice_names_the_session_the_command_was_given() {
        assert_eq!(
            in_cli_terms(
                "[still running after 0.5 s in session 1: follow it with terminal_read (prompt=true, timeout_ms=...), or interrupt it with terminal_send keys=\"<C-c>\"]",
                Some("sh"),
            ),
            "[still running after 0.5 s in session 1: follow it with termloom read sh (--wait-prompt, --timeout=...), or interrupt it with termloom send sh --keys=\"<C-c>\"]"
        );
        assert_eq!(
            in_cli_terms(
                "session 2: its program has exited and accepts no input; read its last output with terminal_read",
                Some("2"),
            ),
            "session 2: its program has exited and accepts no input; read its last output with termloom read 2"
        );
        assert_eq!(
            in_cli_terms("no sessions; start one with terminal_start", Some("2")),
            "no sessions; start one with termloom start"
        );
    }

    fn parsed(name: &str, args: &[&str]) -> Request {
        let command = COMMANDS.iter().find(|c| c.name == name).unwrap();
        match parse(command, args.iter().map(|a| a.to_string()).collect()) {
            Ok(Parsed::Run(request)) => request,
            Ok(Parsed::Help) => panic!("help for {args:?}"),
            Err(message) => panic!("{args:?}: {message}"),
        }
    }

    #[test]
    fn the_programs_words_and_flag_values_are_not_termlooms_options() {
        let start = parsed("start", &["--json", "echo", "-L", "foo", "--json", "-h", "bar"]);
        assert_eq!(start.arguments["argv"], json!(["echo", "-L", "foo", "--json", "-h", "bar"]));
        assert_eq!(start.target, Target::default());
        assert!(start.json, "--json before the program is termloom's");
        let send = parsed("send", &["1", "--text", "-h", "--client", "a-b", "-L", "x"]);
        assert_eq!(send.arguments["text"], "-h");
        assert_eq!(send.client, "a-b");
        assert_ne!(send.target, Target::default());
        let send = parsed("send", &["1", "--text", "--json"]);
        assert_eq!(send.arguments["text"], "--json");
        // Typed as it is: the tool's escape decoding gives back what the shell passed.
        let send = parsed("send", &["1", "--text", r"C:\temp\new"]);
        let text = send.arguments["text"].as_str().unwrap();
        assert_eq!(termloom::decode_escapes(text), br"C:\temp\new");
        assert!(!send.json);
        let help = parse(&COMMANDS[1], vec!["1".into(), "--help".into()]);
        assert!(matches!(help, Ok(Parsed::Help)));
        assert!(size("--size", "100000x5").is_err_and(|m| m.contains("COLS from 2 to 1000")));
        assert_eq!(size("--size", "80x24"), Ok((80, 24)));
        // A flag given twice would lose its first value without a word.
        let twice =
            parse(&COMMANDS[1], ["1", "--text", "a", "--text", "b"].map(String::from).to_vec());
        assert!(twice.is_err_and(|m| m == "--text is given twice; give it once"));
        let bad = parse(&COMMANDS[1], vec!["--client".into(), "9x".into()]);
        assert!(bad.is_err_and(|m| m.contains("--client")));
    }

    #[test]
    fn a_start_gets_the_callers_directory() {
        let here = std::env::current_dir().unwrap();
        let start = parsed("start", &["--", "pwd"]);
        assert_eq!(start.arguments["cwd"], here.to_str().unwrap());
        let start = parsed("start", &["--cwd", "sub", "--", "pwd"]);
        assert_eq!(start.arguments["cwd"], here.join("sub").to_str().unwrap());
        let start = parsed("start", &["--cwd=/tmp", "--", "pwd"]);
        assert_eq!(start.arguments["cwd"], "/tmp");
    }

    /// Only the commands that type say that nothing was typed.
    #[test]
    fn a_refused_wait_says_nothing_was_sent_only_where_something_would_be() {
        let refused = "row 99 is off the screen, so the wait could never hold; nothing was sent";
        let command = |name: &str| COMMANDS.iter().find(|c| c.name == name).unwrap();
        assert!(!in_command_terms(command("wait"), refused, None).contains("nothing was sent"));
        assert!(in_command_terms(command("send"), refused, None).contains("nothing was sent"));
    }

    /// Advice to run another command reaches the server and client this one was given.
    #[test]
    fn advice_repeats_the_options_naming_the_server_and_client() {
        let send = parsed("send", &["1", "--text", "x", "-L", "work", "--client", "a-b"]);
        assert_eq!(send.reach, ["-L work", "--client a-b"]);
        let note = "[... call termloom read 6 --view=\"scrollback\"]; `termloom start` starts one";
        assert_eq!(
            with_reach(note, &send.reach),
            "[... call termloom read -L work --client a-b 6 --view=\"scrollback\"]; `termloom start -L work --client a-b` starts one"
        );
        // A message that names its own command is not advice.
        assert_eq!(
            with_reach("termloom read: no such session", &send.reach),
            "termloom read: no such session"
        );
        let socket = parsed("read", &["1", "--socket", "/tmp/my dir/s", "--socket", "/tmp/s"]);
        assert_eq!(socket.reach, ["--socket /tmp/s"]);
        assert_eq!(shell_quoted("/tmp/my dir/it's"), r"'/tmp/my dir/it'\''s'");
        assert!(parsed("read", &["1"]).reach.is_empty());
    }

    /// A program's lines that look like termloom's notes are its own: left as they are.
    #[test]
    fn a_programs_output_and_screen_are_never_translated() {
        let output = "[text=hello keys=abc]\nterminal_read with view=\n";
        let screen = "$ x\n[lines=10 submit=true]";
        let text = format!(
            "[cat running at \"[text=hello keys=abc]\"]\n[note: call terminal_read]\n{output}--- screen 80x24 ---\n{screen}\n[... call terminal_read]"
        );
        let structured = json!({"output": output, "screen": {"text": screen}});
        let pieces = own_and_programs(&text, &structured);
        let programs: Vec<&str> =
            pieces.iter().filter(|(_, programs)| *programs).map(|(piece, _)| *piece).collect();
        assert_eq!(programs, [output, screen]);
        assert_eq!(pieces.iter().map(|(piece, _)| *piece).collect::<String>(), text);
        let run = "[x]\n[exit code 0 · 0.00 s]";
        let pieces = own_and_programs(run, &json!({"output": "[x]\n"}));
        assert_eq!(pieces, [("", false), ("[x]\n", true), ("[exit code 0 · 0.00 s]", false)]);
    }

    #[test]
    fn only_termlooms_own_notes_are_translated() {
        let text = "[cat running]\nmax_bytes=5 from the program\n[note: call terminal_read]\n";
        assert_eq!(
            notes_in_cli_terms(text, None),
            "[cat running]\nmax_bytes=5 from the program\n[note: call termloom read]\n"
        );
    }
}
