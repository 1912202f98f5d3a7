//! `termloom mcp [--config FILE]`: the MCP server on stdin and stdout.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use termloom::{Config, Engine};

use super::signals;

/// The help of `termloom mcp`.
pub(super) const HELP: &str = "\
Usage: termloom mcp [--config FILE]

Serves terminal sessions over the Model Context Protocol (JSON-RPC 2.0, one
message per line) on stdin and stdout. Logs go to stderr. The tools are
terminal_start, terminal_send, terminal_read, terminal_run, terminal_signal,
terminal_resize, terminal_close and terminal_list; tools/list describes them.

On end of stdin, SIGTERM or SIGINT every session is closed (no process is left
behind) and the server exits 0.

Options:
  --config FILE   Engine configuration (TOML; see `termloom run --help`).
  -h, --help      Show this help.

Example (an MCP host's server entry):
  {\"command\": \"termloom\", \"args\": [\"mcp\"]}
";

/// Runs the server.
pub(super) fn main(args: Vec<OsString>) -> ExitCode {
    let mut config_path: Option<PathBuf> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("-h" | "--help") => {
                print!("{HELP}");
                return ExitCode::SUCCESS;
            }
            Some("--config") => match args.next() {
                Some(path) => config_path = Some(path.into()),
                None => return super::usage_error("--config needs a FILE", "termloom mcp --help"),
            },
            Some(other) if other.starts_with("--config=") => {
                config_path = Some(other["--config=".len()..].into());
            }
            _ => {
                return super::usage_error(
                    &format!("unknown argument {arg:?} for `termloom mcp`"),
                    "termloom mcp --help",
                );
            }
        }
    }
    let config = match &config_path {
        Some(path) => Config::from_toml_file(path),
        None => Ok(Config::default()),
    };
    let engine = match config.and_then(Engine::new) {
        Ok(engine) => engine,
        Err(err) => {
            eprintln!("termloom: {err}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(stop) = signals::install() {
        stop.close_on_signal_with_exit(engine.clone(), 0);
    }
    let served = termloom::mcp::serve_stdio(engine.clone());
    engine.shutdown();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("termloom: the MCP server stopped: {err}");
            ExitCode::FAILURE
        }
    }
}
