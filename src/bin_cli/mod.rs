//! The command-line interface: subcommand dispatch. Each subcommand lives in its own module;
//! `run` drives one session; `mcp` serves many over the Model Context Protocol.

/// `eprintln!` that carries on when stderr cannot be written (see [`stderr_log::to_stderr`]):
/// a host that closed its end of the pipe must not turn a message into a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::bin_cli::stderr_log::to_stderr(&format!($($arg)*))
    };
}

mod agent;
mod attach;
mod connect;
mod failure;
mod help;
mod mcp;
mod options;
mod other_names;
mod parse;
mod press;
mod proxy;
mod report;
mod run;
mod server;
mod signals;
mod stderr_log;
mod stdout_watch;
mod steps;
mod table;
mod values;

use std::ffi::OsString;
use std::process::ExitCode;

/// Exit code for bad arguments.
pub(crate) const EXIT_USAGE: u8 = 2;

/// Runs the command line `args` (without the program name) and returns the exit code.
pub(crate) fn main(args: Vec<OsString>) -> ExitCode {
    stderr_log::install();
    let code = command(args);
    // (The library's log lines still queued for stderr.)
    log::logger().flush();
    code
}

/// Runs the command of `args`.
fn command(args: Vec<OsString>) -> ExitCode {
    let given = strings(args.iter().cloned());
    let mut args = server_options_after_the_command(args).into_iter();
    let Some(command) = args.next() else {
        say!("{}", help::short_usage().trim_end_matches('\n'));
        return ExitCode::from(EXIT_USAGE);
    };
    match command.to_str() {
        Some("run") => run::main(args.collect()),
        Some("mcp") => mcp::main(split_inline_values(args, &mcp::VALUE_FLAGS)),
        Some("server") => server::main(split_inline_values(args, &server::VALUE_FLAGS)),
        Some("attach") => attach::main(strings(split_inline_values(args, &[]).into_iter())),
        Some(name) if agent::is_command(name) => {
            let args: Vec<OsString> = args.collect();
            match args.iter().position(|arg| arg.to_str().is_none()) {
                Some(at) => not_utf8(name, &args, at, &given),
                None => agent::main(name, strings(args.into_iter())),
            }
        }
        // `termloom -L work help send`: the options naming a server, moved after the
        // command, name no topic.
        Some("help") => help_command(help_topic(args)),
        Some("-h" | "--help") => print_help(&help::top_help()),
        Some("-V" | "--version") => print_help(&help::version()),
        _ => {
            let message = match flag_before_the_command(&command.to_string_lossy(), &given) {
                Some(instead) => {
                    format!("{command:?} stands before the command; flags follow it: {instead}")
                }
                None => unknown_command(&command.to_string_lossy(), &given),
            };
            // `termloom --json --text x send g`: asked for JSON, it gets its failure as JSON,
            // as the command would have given it.
            usage_failure(&message, "termloom --help", asks_for_json(&given))
        }
    }
}

/// The arguments with each `--name=value` split into `--name` and `value` where `--name` is
/// one of `options` or `--socket` (which every such command takes), for the commands that
/// read their options a word at a time (`mcp`, `server`, `attach`), so that they take both
/// forms, as `run` and the session commands do. A flag given a value (`--takeover=work`) is
/// left whole, for the command to refuse, not split into a flag and a word it would take
/// for something else (the session to attach to).
fn split_inline_values(args: impl Iterator<Item = OsString>, options: &[&str]) -> Vec<OsString> {
    let mut split = Vec::new();
    for arg in args {
        match arg.to_str().and_then(|word| word.split_once('=')) {
            Some((name, value)) if name == "--socket" || options.contains(&name) => {
                split.extend([OsString::from(name), OsString::from(value)]);
            }
            _ => split.push(arg),
        }
    }
    split
}

/// `termloom --text x send g`: a flag (`first`, the first word past the options every
/// command takes) given before the client command a later word names, as the command line
/// to give instead (`given`, the arguments as given, with the command first: `termloom send
/// g --text x`).
fn flag_before_the_command(first: &str, given: &[String]) -> Option<String> {
    if !first.starts_with('-') {
        return None;
    }
    let command =
        |word: &str| agent::is_command(word) || matches!(word, "run" | "mcp" | "server" | "attach");
    let at = given.iter().position(|word| command(word))?;
    let mut words = vec!["termloom"];
    words.extend(given[at..].iter().map(String::as_str));
    // tmux's `-S PATH` is `--socket PATH`: no command takes `-S` after it. Only in a flag's
    // place: first, or after a value; after another flag it may be that flag's value
    // (`--text -S`), taken as it is.
    words.extend(given[..at].iter().enumerate().map(|(n, word)| {
        let flags_place = n == 0 || !given[n - 1].starts_with('-');
        if word == "-S" && flags_place { "--socket" } else { word.as_str() }
    }));
    let quoted: Vec<String> = words.iter().map(|word| values::shell_quote(word)).collect();
    Some(quoted.join(" "))
}

/// The arguments with the options every client command takes (`-L NAME`, `--socket PATH`,
/// `--client NAME`, `--json`) that stand before the command moved after it, where the
/// commands read them: `termloom -L work send`, as tmux is used, is `termloom send -L work`.
fn server_options_after_the_command(args: Vec<OsString>) -> Vec<OsString> {
    let mut leading = Vec::new();
    let mut rest = args.into_iter().peekable();
    while let Some(value_follows) = rest.peek().and_then(leading_option) {
        leading.extend(rest.next());
        if value_follows {
            leading.extend(rest.next());
        }
    }
    let mut args: Vec<OsString> = rest.next().into_iter().collect();
    args.extend(leading);
    args.extend(rest);
    args
}

/// Whether `arg` is an option every client command takes that may stand before the command,
/// and if so, whether its value is the next argument (`-L NAME`, not `--socket=PATH`).
fn leading_option(arg: &OsString) -> Option<bool> {
    match arg.to_str()? {
        "-L" | "--socket" | "--client" => Some(true),
        "--json" => Some(false),
        a if a.starts_with("--socket=") || a.starts_with("--client=") => Some(false),
        _ => None,
    }
}

/// The topic of `termloom help`, past the options moved after it
/// ([`server_options_after_the_command`]): `termloom -L work help send` asks for help on
/// `send`, as `termloom -L work send` sends.
fn help_topic(mut args: impl Iterator<Item = OsString>) -> Option<OsString> {
    while let Some(arg) = args.next() {
        match leading_option(&arg) {
            Some(true) => {
                args.next();
            }
            Some(false) => {}
            None => return Some(arg),
        }
    }
    None
}

/// `termloom help [COMMAND]`.
fn help_command(topic: Option<OsString>) -> ExitCode {
    match topic.as_ref().and_then(|t| t.to_str()) {
        // `help help`: the overview, which says what `help [TOPIC]` does.
        None | Some("help") => print_help(&help::top_help()),
        Some("run") => print_help(&help::run_help()),
        Some("mcp") => print_help(mcp::HELP),
        Some("server") => print_help(server::HELP),
        Some("attach") => print_help(attach::HELP),
        Some("sessions") => print_help(&agent::help(None)),
        Some(name) if agent::is_command(name) => print_help(&agent::help(Some(name))),
        // Another tool's name for a command (`kill`, `send-keys`): termloom's.
        Some(other) => {
            let instead = other_names::instead(other, &[]).map(|instead| format!("; {instead}"));
            let instead = instead.unwrap_or_default();
            usage_error(
                &format!(
                    "no help on {other:?}{instead}; the topics are sessions and the commands, \
                     {COMMANDS}"
                ),
                "termloom --help",
            )
        }
    }
}

/// The commands, for messages.
const COMMANDS: &str = "run, mcp, server, start, send, wait, read, screen, exec, signal, resize, close, list, attach, kill-server and help";

/// The commands that take flag `flag`, as their parsers know them. (The flags `mcp`,
/// `server` and `attach` list by hand are checked against their help and their parsers, by
/// `tests::listed_flags_are_named_in_their_help` and a test in tests/cli.rs.)
fn commands_taking(flag: &str) -> Vec<&'static str> {
    let own: [(&str, &[&str]); 5] = [
        ("mcp", &mcp::VALUE_FLAGS),
        ("mcp", &mcp::SWITCHES),
        ("server", &server::VALUE_FLAGS),
        ("server", &server::SWITCHES),
        ("attach", &attach::SWITCHES),
    ];
    let mut names: Vec<&str> = parse::takes(flag).then_some("run").into_iter().collect();
    for (name, flags) in own {
        if flags.contains(&flag) && !names.contains(&name) {
            names.push(name);
        }
    }
    names.extend(agent::commands_taking(flag));
    names
}

/// The message for `command`, which names no command: for a flag some command takes
/// (`--server`), that command, with the arguments `given` after it (`termloom mcp
/// --server`); else, for a name another tool gives a command (tmux's `send-keys`, `kill`),
/// termloom's; else the command it plausibly misspells, else every command.
fn unknown_command(command: &str, given: &[String]) -> String {
    // (`--server=x` names `--server`; an option every session command takes, `--json`, may
    // stand before the command and names none of them.)
    let flag = command.split_once('=').map_or(command, |(flag, _)| flag);
    let common = agent::COMMON_OPTIONS.contains(&flag);
    match if common { Vec::new() } else { commands_taking(flag) }[..] {
        [] => {}
        [name] => {
            // The words from the flag on: those before it (`--json`) are not the command's.
            let from = given.iter().position(|word| word == command).unwrap_or(0);
            let given = given[from..].iter().map(String::as_str);
            let words = ["termloom", name].into_iter().chain(given);
            let words: Vec<String> = words.map(values::shell_quote).collect();
            return format!(
                "{command:?} is a flag, not a command; did you mean {}?",
                words.join(" ")
            );
        }
        [ref first @ .., last] => {
            return format!(
                "{command:?} is a flag, not a command; the commands that take it are {} and \
                 {last}: give one first",
                first.join(", ")
            );
        }
    }
    let names = || COMMANDS.split([',', ' ']).filter(|name| !name.is_empty() && *name != "and");
    // (Before a guess: `kill` abbreviates `kill-server`, which ends every session; and a
    // near-spelling of another tool's name, `kil`, is told its command too.)
    let after = given.iter().position(|word| word == command).map_or(given, |at| &given[at + 1..]);
    let instead =
        other_names::instead(command, after).or_else(|| other_names::near(command, after, names()));
    if let Some(instead) = instead {
        return format!("unknown command {command:?}; {instead}. The commands are {COMMANDS}");
    }
    match values::closest(command, names()) {
        Some(name) => format!(
            "unknown command {command:?}; did you mean `termloom {name}`? The commands are {COMMANDS}"
        ),
        None => format!("unknown command {command:?}; the commands are {COMMANDS}"),
    }
}

/// Refuses the argument `args[at]` of a session command, which is not UTF-8 (`--text
/// $'\xff'`, a program's argument naming a file in another encoding): the command sends its
/// values to the server as JSON text, and taken lossily the byte was typed, or passed, as
/// U+FFFD without a word. A socket path (`--socket PATH`, `-L NAME`) is named as such: it
/// is not sent, and it is the command that takes it as text. A usage error (exit 2), on
/// stdout as JSON when `given` asks for JSON.
fn not_utf8(command: &str, args: &[OsString], at: usize, given: &[String]) -> ExitCode {
    let arg = &args[at];
    // A word past `--` or past `start`'s program's first word is the program's.
    let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let options = at < agent::options_end(command, &words);
    let flag = match (at.checked_sub(1).and_then(|before| args[before].to_str()), arg) {
        (Some(flag @ ("--socket" | "-L")), _) if options => Some(flag),
        (_, arg) if options && arg.as_encoded_bytes().starts_with(b"--socket=") => Some("--socket"),
        _ => None,
    };
    let message = match flag {
        Some(flag) => format!(
            "{flag} {arg:?} is not UTF-8: `termloom {command}` takes the server's socket as text; give it in UTF-8 (for a socket whose path is not, a symbolic link to it whose path is)"
        ),
        None => format!(
            "argument {arg:?} is not UTF-8 text: `termloom {command}` sends its values to the server as text, so give them in UTF-8 (a program's arguments in another encoding: `termloom run`, which passes them as they are)"
        ),
    };
    usage_failure(&message, &format!("termloom help {command}"), asks_for_json(given))
}

/// Whether the command line `given` asks for JSON (`--json` before any `--`).
fn asks_for_json(given: &[String]) -> bool {
    given.iter().take_while(|word| *word != "--").any(|word| word == "--json")
}

/// A usage error (exit 2) saying `message` and to run `help_command`: on stdout as the JSON
/// error of kind and code `usage` when `json` (exit 1 if stdout cannot take it), else on
/// stderr ([`usage_error`]).
fn usage_failure(message: &str, help_command: &str, json: bool) -> ExitCode {
    if !json {
        return usage_error(message, help_command);
    }
    let message = format!("{message} (run `{help_command}` for usage)");
    if agent::print_json_error("usage", "usage", &message) != ExitCode::SUCCESS {
        return ExitCode::FAILURE;
    }
    ExitCode::from(EXIT_USAGE)
}

/// The arguments as strings (lossily: paths and texts are UTF-8 in practice; a session
/// command refuses one that is not first, [`not_utf8`]).
fn strings(args: impl Iterator<Item = OsString>) -> Vec<String> {
    args.map(|arg| arg.to_string_lossy().into_owned()).collect()
}

/// Prints a help text on stdout and succeeds.
fn print_help(text: &str) -> ExitCode {
    agent::print_out(text)
}

/// Prints a one-line usage error with a hint to run `help_command`, and returns the usage exit
/// code.
pub(crate) fn usage_error(message: &str, help_command: &str) -> ExitCode {
    say!("termloom: {message} (run `{help_command}` for usage)");
    ExitCode::from(EXIT_USAGE)
}

/// The engine's configuration: the `--config` file over `default` (what it leaves out keeps
/// the command's own default), then the `--policy` file over its `[policy]` table.
pub(crate) fn load_config(
    config: Option<&std::path::Path>,
    policy: Option<&std::path::Path>,
    default: termloom::Config,
) -> termloom::Result<termloom::Config> {
    let mut config = match config {
        Some(path) => default.with_toml_file(path)?,
        None => default,
    };
    if let Some(path) = policy {
        config.policy = Some(termloom::Policy::from_toml_file(path)?);
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    /// Each flag `mcp`, `server` and `attach` list by hand is one their help gives as an
    /// option (on a usage line or at the start of an option's line), a value flag with its
    /// value's placeholder and a switch without: tests/cli.rs's
    /// `the_flags_mcp_server_and_attach_list_are_the_ones_their_parsers_take` checks every
    /// flag the help names against the lists and the parser, so a listed flag is one the
    /// parser takes.
    #[test]
    fn listed_flags_are_named_in_their_help() {
        let lists: [(&str, &str, &[&str], &[&str]); 3] = [
            ("mcp", super::mcp::HELP, &super::mcp::VALUE_FLAGS, &super::mcp::SWITCHES),
            ("server", super::server::HELP, &super::server::VALUE_FLAGS, &super::server::SWITCHES),
            ("attach", super::attach::HELP, &[], &super::attach::SWITCHES),
        ];
        for (command, help, values, switches) in lists {
            let options = help.lines().map(str::trim_start).filter(|line| {
                line.starts_with("Usage:") || line.starts_with("termloom ") || line.starts_with('-')
            });
            let words: Vec<&str> = options
                .flat_map(str::split_whitespace)
                .map(|word| word.trim_matches(['[', ']', ',', '|']))
                .collect();
            for flag in values.iter().chain(switches) {
                let at = words.iter().position(|word| word == flag);
                let next = at.and_then(|at| words.get(at + 1)).copied().unwrap_or_default();
                // (`FILE`, `SECONDS|never`, `N`; not `Started`.)
                let letters = next.split(|c: char| !c.is_ascii_alphabetic()).next();
                let placeholder = letters.is_some_and(|l| !l.is_empty() && l == l.to_uppercase());
                assert!(at.is_some(), "{command} lists {flag}, which its help gives no line");
                assert_eq!(
                    placeholder,
                    values.contains(flag),
                    "{command}'s help gives {flag} {next:?}"
                );
            }
        }
    }
}
