//! The command-line interface: subcommand dispatch. Each subcommand lives in its own module;
//! `run` drives one session; `mcp` serves many over the Model Context Protocol.

mod failure;
mod help;
mod mcp;
mod options;
mod parse;
mod report;
mod run;
mod signals;
mod stderr_log;
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
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        eprint!("{}", help::short_usage());
        return ExitCode::from(EXIT_USAGE);
    };
    match command.to_str() {
        Some("run") => run::main(args.collect()),
        Some("mcp") => mcp::main(args.collect()),
        Some("help") => help_command(args.next()),
        Some("-h" | "--help") => print_help(&help::top_help()),
        Some("-V" | "--version") => print_help(&help::version()),
        _ => usage_error(
            &format!("unknown command {command:?}; the commands are `run`, `mcp` and `help`"),
            "termloom --help",
        ),
    }
}

/// `termloom help [COMMAND]`.
fn help_command(topic: Option<OsString>) -> ExitCode {
    match topic.as_ref().and_then(|t| t.to_str()) {
        None => print_help(&help::top_help()),
        Some("run") => print_help(&help::run_help()),
        Some("mcp") => print_help(mcp::HELP),
        Some(other) => usage_error(
            &format!("no help on {other:?}; the commands are `run`, `mcp` and `help`"),
            "termloom --help",
        ),
    }
}

/// Prints a help text on stdout and succeeds.
fn print_help(text: &str) -> ExitCode {
    print!("{text}");
    ExitCode::SUCCESS
}

/// Prints a one-line usage error with a hint to run `help_command`, and returns the usage exit
/// code.
pub(crate) fn usage_error(message: &str, help_command: &str) -> ExitCode {
    eprintln!("termloom: {message} (run `{help_command}` for usage)");
    ExitCode::from(EXIT_USAGE)
}
