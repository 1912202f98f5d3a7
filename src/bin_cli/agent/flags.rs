//! The commands' flags and help: what each command takes, and how a flag's value becomes a
//! tool argument.

use super::super::help::item;

/// Where a flag's description starts in a help page.
const FLAG_COLUMN: usize = 30;

/// How a flag's value becomes a tool argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A string.
    Text,
    /// A regular expression a wait matches, a string (`RE` in the help): checked as a wait
    /// checks it.
    Regex,
    /// A regular expression a look-up searches with, a string (`RE` in the help): checked as
    /// the tool's search checks it, which takes a pattern a wait refuses (`.*`, `^`: every
    /// line, or none).
    Search,
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
pub(super) struct Flag {
    pub(super) name: &'static str,
    pub(super) arg: &'static str,
    pub(super) kind: Kind,
    pub(super) help: &'static str,
}

pub(super) const fn flag(
    name: &'static str,
    arg: &'static str,
    kind: Kind,
    help: &'static str,
) -> Flag {
    Flag { name, arg, kind, help }
}

/// The longest wait of a server's command, in ms: the tools' bound (an hour), for a call
/// holds a connection and a thread of a shared server; `termloom run`'s is a day (see
/// [`super::super::values::MAX_TIMEOUT_MS`]).
const MAX_WAIT_MS: u64 = termloom::tools::MAX_TIMEOUT_MS;

/// The bounds of `--max-bytes`, the tools' `max_bytes`.
const MAX_BYTES: Kind =
    Kind::Number(termloom::tools::MAX_BYTES_RANGE.0, termloom::tools::MAX_BYTES_RANGE.1);

/// The wait conditions, as `termloom run` names them.
pub(super) const WAIT: &[Flag] = &[
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
    "Most bytes of output, from 256 to 1048576 (default 16384), termloom's notes and \
     headers aside (at most 4096 more).",
)];

const SEND: &[Flag] = &[
    flag(
        "--text",
        "text",
        Kind::Literal,
        "Typed as it is, backslashes too; a line break as Enter (a line feed: --keys \
         '<C-j>'; Enter last: --submit).",
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

pub(super) const LOOKUP: &[Flag] = &[
    flag(
        "--lines",
        "lines",
        Kind::Lines,
        "Transcript lines by number (the first is 0): 120-160, 120-, 120.",
    ),
    flag("--search", "search", Kind::Search, "The transcript lines a regex matches."),
    flag("--find", "find", Kind::Text, "Where this text is on the screen."),
];

/// One client command: its name, the tool it calls, its positional arguments and flags.
pub(super) struct CommandDef {
    pub(super) name: &'static str,
    pub(super) tool: &'static str,
    /// Positional arguments, in order (`ID`, `CMD`...).
    pub(super) positional: &'static [&'static str],
    pub(super) flags: &'static [&'static [Flag]],
    /// What it does, in one line of the overview (`termloom help`).
    pub(super) brief: &'static str,
    pub(super) summary: &'static str,
}

pub(super) const COMMANDS: &[CommandDef] = &[
    CommandDef {
        name: "start",
        tool: "terminal_start",
        positional: &[],
        flags: &[START, WAIT, VIEW, OUTPUT],
        brief: "Start a session (a shell, or PROGRAM); wait until it settles.",
        summary: "[--name N] [--size CxR] [--cwd D] [--env K=V]\n      [--shell-integration] [--command LINE | [--] PROGRAM ARGS...] [WAIT]\n      [--view V] [--max-bytes N]\n  Starts a session (a shell without PROGRAM or --command) in this directory\n  (--cwd: another, relative to this one); returns when it waits for input, exits\n  or settles (at most 10 s), or when WAIT holds. Everything after PROGRAM is its\n  arguments.",
    },
    CommandDef {
        name: "send",
        tool: "terminal_send",
        positional: &["ID"],
        flags: &[SEND, WAIT, VIEW, OUTPUT],
        brief: "Type text, keys or a paste into a session, then wait.",
        summary: "ID [--text T | --keys K | --paste P | --paste-file PATH]\n      [--submit] [WAIT] [--view V] [--max-bytes N]\n  Types into the session (--text, then --paste, --keys, and Enter for --submit),\n  then waits as asked; without WAIT, until it waits for input, exits or settles,\n  at most 10 s (a program still busy then is no failure: the note says so, and\n  exit code 0).\n  --paste-file pastes a file's contents, or with - what stdin gives until it\n  ends, for a text too long for one argument (up to 4 MiB).",
    },
    CommandDef {
        name: "wait",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[WAIT, VIEW, OUTPUT],
        brief: "Wait for text, a prompt, an exit...; show what is new.",
        summary: "ID WAIT... [--view V] [--max-bytes N]\n  Waits for a condition; shows what is new.",
    },
    CommandDef {
        name: "read",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[VIEW, LOOKUP, WAIT, OUTPUT],
        brief: "What is new in a session, its scrollback, or a look-up.",
        summary: "ID [--lines R | --search RE | --find T] [WAIT] [--view V]\n      [--max-bytes N]\n  What is new in the transcript since this client last read (or the screen),\n  after waiting as asked. --view: new (default), screen or scrollback (the\n  retained transcript's end).",
    },
    CommandDef {
        name: "screen",
        tool: "terminal_read",
        positional: &["ID"],
        flags: &[OUTPUT],
        brief: "A session's whole screen.",
        summary: "ID [--max-bytes N]\n  The whole screen (without a cursor once the program ended: none owns it).\n  In what termloom shows, ⟦ ⟧ enclose highlighted text and ▌ marks the cursor\n  (on a blank; in new output, before the character it is on, `echo ▌world`):\n  marks, not the program's text (leave them out of a wait).",
    },
    CommandDef {
        name: "exec",
        tool: "terminal_run",
        positional: &["ID", "CMD"],
        flags: &[&[flag("--timeout", "timeout_ms", Kind::Number(1, MAX_WAIT_MS), "")], OUTPUT],
        brief: "Run a command in a shell session: its output and code.",
        summary: "ID CMD [--timeout MS] [--max-bytes N]\n  Runs a command in a shell session started with --shell-integration (or without\n  PROGRAM); prints its output and exits with its exit code. --timeout defaults\n  to 45000 ms; a command still running then (exit 124), or waiting for input (a\n  question, a password, an editor) before (exit 3), goes on: answer it with\n  send. CMD is one line without control characters (exit 2): for a tab, let\n  the shell expand it, \"echo a\\$'\\\\t'b\".",
    },
    CommandDef {
        name: "signal",
        tool: "terminal_signal",
        positional: &["ID", "SIGNAL"],
        flags: &[&[flag("--target", "target", Kind::Choice(&["foreground", "session"]), "")]],
        brief: "Send a signal to a session's program.",
        summary: "ID SIGNAL [--target session]\n  Sends INT, TERM, KILL, HUP... to the foreground program (or every process).\n  KILL to the session's own program (the one started, or its shell at the\n  prompt) is refused (exit 1): close the session instead, or give\n  --target session. ID comes first; two running sessions named like signals,\n  one by each word (signal TERM INT), are refused as ambiguous: give the id.",
    },
    CommandDef {
        name: "resize",
        tool: "terminal_resize",
        positional: &["ID", "COLSxROWS"],
        flags: &[],
        brief: "Resize a session's terminal.",
        summary: "ID COLSxROWS\n  Resizes the terminal.",
    },
    CommandDef {
        name: "close",
        tool: "terminal_close",
        positional: &["ID"],
        flags: &[],
        brief: "End a session's processes; show its last output.",
        summary: "ID\n  Ends the session's processes and shows its last output. Closing a closed\n  session changes nothing and says \"already closed\" (its name, free for a new\n  start, names it until one takes it).",
    },
    CommandDef {
        name: "list",
        tool: "terminal_list",
        positional: &[],
        flags: &[],
        brief: "The sessions, live and ended.",
        summary: "\n  Lists every live session, the five newest ended ones (how and when each\n  ended), and the ids of the other ended ones (each readable with\n  termloom read ID). With no server running there are none: \"no sessions\"\n  (--json: {\"sessions\":[]}), exit 0, and a note on stderr that no server runs.",
    },
];

/// `termloom kill-server`: only the options every command takes, and no tool of its own.
pub(super) const KILL_SERVER: CommandDef = CommandDef {
    name: "kill-server",
    tool: "",
    positional: &[],
    flags: &[],
    brief: "Close every session and stop the server.",
    summary: "\n  Closes every session and stops the server. With no server running there is\n  nothing to stop: exit 0, and a note on stderr says so (--json:\n  {\"stopped\": false}).",
};

/// [`COMMANDS`] and [`KILL_SERVER`].
pub(super) fn every_command() -> impl Iterator<Item = &'static CommandDef> {
    COMMANDS.iter().chain([&KILL_SERVER])
}

/// Each client command's name and what it does, for the overview (`termloom help`).
pub(crate) fn overview() -> Vec<(&'static str, &'static str)> {
    every_command().map(|c| (c.name, c.brief)).collect()
}

/// The client commands that take flag `flag` (`--wait-text`: `wait`, `read`...).
pub(crate) fn commands_taking(flag: &str) -> impl Iterator<Item = &'static str> {
    let takes = move |c: &&CommandDef| {
        c.flags.iter().flat_map(|group| group.iter()).any(|f| f.name == flag)
    };
    every_command().filter(takes).map(|c| c.name)
}

/// Whether `name` is one of the client commands.
pub(crate) fn is_command(name: &str) -> bool {
    every_command().any(|c| c.name == name)
}

/// The options every client command takes.
const COMMON: &str = "\
Every command takes -L NAME or --socket PATH (which server; default
$TERMLOOM_SOCKET, a socket's path, else -L default; also before the command, as
with tmux: termloom -L work list), --client NAME (whose read positions; default
$TERMLOOM_CLIENT, else `cli`) and --json (the structured result instead of text;
a failure, of whatever kind, is then one line on stdout, {\"error\": {\"kind\":
\"usage\" | \"server\" | \"error\", \"code\": CODE, \"message\": ...}}, with the same exit
code; CODE tells failures apart: unknown_session, program_not_found, name_taken,
invalid_input... as the README lists). ID is a session's id or name.

Options are read up to PROGRAM or `--` (after them, everything is the
program's); a flag's value is taken as it is, even when it starts with a dash.
A wait lasts at most 3600000 ms (an hour), the server's bound, as each holds a
connection to a server others share: wait again to wait longer (`termloom
run`, the caller's own process, waits up to a day).

Exit codes: 0 done; 1 the server refused the request (the message says why: an
unknown session, a value that does not fit the session, such as a row off its
screen, a session that ended) or could not be reached, a start's wait was
refused once its program ran (--wait-prompt on a program that marks no prompts:
the session is started all the same, and its result printed, a note saying why;
--json: wait_refusal), the program exited (or the session was closed) before a
wait's condition held (unless --wait-exit was asked for), the server was
stopped during the call (kill-server), or the output could not be written; 2
the command line could not be read: an unknown flag, a value malformed, empty or
out of its range (the message names the range), a send with nothing to send,
--wait-row alone, a read's --timeout without a wait, an exec's CMD holding a
control character, an ambiguous signal;
3 the program asks for input (a question, a password) before a wait's condition
held, or `exec`'s command does: the condition cannot hold before an answer
(type it with send, then wait again; while a person holds the session with
attach --takeover, a wait typing nothing waits for them instead); 124 a wait
asked for timed out, or `exec`'s command still runs at --timeout; `exec`
otherwise exits with the command's exit code (the shell's, if the command ended
the shell; 128 + N for signal N), and a --wait-exit that saw the program end
with the program's (128 + N for signal N), as a shell's `wait` does (so a
program's own 1, 2, 3 or 124 reads like termloom's: --json tells them apart).";

/// The groups of flags, each described once in a help page, with the commands that take it.
const GROUPS: [(&str, &[Flag]); 6] = [
    ("START", START),
    ("SEND", SEND),
    ("LOOKUP", LOOKUP),
    ("WAIT", WAIT),
    ("VIEW", VIEW),
    ("OUTPUT", OUTPUT),
];

/// Whether `command` takes the flags of `group`: by the group's first flag, as a constant's
/// address may differ between its uses.
fn takes(command: &CommandDef, group: &[Flag]) -> bool {
    command.flags.iter().any(|g| g.first().map(|f| f.name) == Some(group[0].name))
}

/// The help of the client commands: all of them (`termloom help sessions`) when `name` is
/// `None`, else only command `name`'s (`termloom help send`, `termloom send --help`): its
/// usage, the flags it takes, what every command takes, and the names of the others.
pub(crate) fn help(name: Option<&str>) -> String {
    let shown: Vec<&CommandDef> =
        every_command().filter(|c| name.is_none_or(|name| c.name == name)).collect();
    let mut text = match name {
        None => {
            String::from("Commands for driving sessions of a termloom server from a shell:\n\n")
        }
        Some(_) => String::new(),
    };
    for command in &shown {
        let line = format!("termloom {} {}", command.name, command.summary);
        let line: Vec<&str> = line.lines().map(str::trim_end).collect();
        text.push_str(&format!("{}\n\n", line.join("\n")));
    }
    for (title, group) in GROUPS {
        if !shown.iter().any(|c| takes(c, group)) {
            continue;
        }
        let takers: Vec<&str> =
            COMMANDS.iter().filter(|c| takes(c, group)).map(|c| c.name).collect();
        text.push_str(&format!("{title} ({}):\n", takers.join(", ")));
        for flag in group {
            let value = match flag.kind {
                Kind::Switch => "",
                Kind::Number(..) => " N",
                Kind::Regex | Kind::Search => " RE",
                Kind::Keys => " KEYS",
                Kind::Cursor => " ROW,COL",
                Kind::Lines => " RANGE",
                Kind::Choice(_) | Kind::Text | Kind::Literal => " TEXT",
                Kind::File => " PATH",
            };
            let shown = format!("{}{value}", flag.name);
            text.push_str(&item(&shown, flag.help, FLAG_COLUMN));
        }
        if title == "START" {
            // Read by `parse` itself, as they give the tool more than one argument each.
            for (shown, help) in START_PARSED {
                text.push_str(&item(shown, help, FLAG_COLUMN));
            }
        }
        text.push('\n');
    }
    text.push_str(COMMON);
    text.push('\n');
    if let Some(name) = name {
        let others: Vec<&str> =
            every_command().map(|c| c.name).filter(|other| *other != name).collect();
        text.push('\n');
        text.push_str(&super::super::help::wrapped(
            &format!(
                "The other commands: {}; `termloom help sessions` describes them all.",
                others.join(", ")
            ),
            0,
            80,
        ));
    }
    text
}
