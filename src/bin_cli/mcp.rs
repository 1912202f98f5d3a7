//! `termloom mcp [--config FILE] [--policy FILE]`: the MCP server on stdin and stdout; with
//! `--server`, the MCP tools of a termloom server's sessions, relayed by [`super::proxy`].

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use termloom::{Config, Engine};

use super::connect::Target;
use super::signals;

/// The help of `termloom mcp`.
pub(super) const HELP: &str = "\
Usage: termloom mcp [--config FILE] [--policy FILE]
       termloom mcp --server [-L NAME | --socket PATH]

Serves terminal sessions over the Model Context Protocol (JSON-RPC 2.0, one
message per line) on stdin and stdout. Logs go to stderr. The tools are
terminal_start, terminal_send, terminal_read, terminal_mouse, terminal_run,
terminal_signal, terminal_resize, terminal_close and terminal_list; tools/list
describes them.

On end of stdin, SIGTERM or SIGINT every session is closed (no process is left
behind) and the server exits 0; when stdout is closed (the host stopped
reading: a pipe closed, a socket shut for reading), the same, with exit status
1. A host that closes both, in either order within 0.25 s (as when it exits),
ends it as the end of stdin does: exit 0, unless an answer could not be written.

With --server the tools drive the sessions of a termloom server (started on
first use), so an MCP host, a shell-only agent using `termloom send`... and a
person using `termloom attach` see the same sessions, and they outlive the
host. The host has read positions of its own; sessions stay open when it
leaves. When the server stops first, each request it had not answered is
answered with an error, the reason goes to stderr, and termloom exits 1.

Options:
  --config FILE   Engine configuration (TOML; see `termloom run --help`).
  --policy FILE   Spawn policy (TOML: default, [[rules]]; see
                  `termloom run --help`). Starts it asks about are put to the
                  person through MCP elicitation, and denied when the client
                  cannot ask.
  --server        Serve the sessions of a termloom server.
  -L NAME, --socket PATH   Which server (with --server; default $TERMLOOM_SOCKET
                           if set).
  -h, --help      Show this help.

Example (an MCP host's server entry):
  {\"command\": \"termloom\", \"args\": [\"mcp\"]}
";

/// The flags of its own `termloom mcp` takes that take a value, as `--flag=VALUE` too (`-L`,
/// `--socket` aside).
pub(super) const VALUE_FLAGS: [&str; 2] = ["--config", "--policy"];

/// The other flags of its own `termloom mcp` takes (`-h` aside): a flag given as the command
/// (`termloom --server`) is told the command that takes it.
pub(super) const SWITCHES: [&str; 1] = ["--server"];

/// Runs the server.
pub(super) fn main(args: Vec<OsString>) -> ExitCode {
    let mut config_path: Option<PathBuf> = None;
    let mut policy_path: Option<PathBuf> = None;
    // A bad `$TERMLOOM_SOCKET` matters only to `--server` without `-L` or `--socket`.
    let mut target = Target::from_environment();
    let mut via_server = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match target.option(&arg.to_string_lossy(), || {
            args.next().map(|a| a.to_string_lossy().into_owned())
        }) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(message) => return super::usage_error(&message, "termloom mcp --help"),
        }
        if arg == "--server" {
            via_server = true;
            continue;
        }
        match arg.to_str() {
            Some("-h" | "--help") => return super::agent::print_out(HELP),
            Some("--config") => match args.next() {
                Some(path) => config_path = Some(path.into()),
                None => return super::usage_error("--config needs a FILE", "termloom mcp --help"),
            },
            Some("--policy") => match args.next() {
                Some(path) => policy_path = Some(path.into()),
                None => return super::usage_error("--policy needs a FILE", "termloom mcp --help"),
            },
            _ => {
                return super::usage_error(
                    &format!("unknown argument {arg:?} for `termloom mcp`"),
                    "termloom mcp --help",
                );
            }
        }
    }
    if via_server {
        if let Err(message) = target.checked() {
            return super::usage_error(&message, "termloom mcp --help");
        }
        if config_path.is_some() || policy_path.is_some() {
            return super::usage_error(
                "--config and --policy configure a server that `termloom mcp` runs itself; with --server, pass them to `termloom server`",
                "termloom mcp --help",
            );
        }
        return super::proxy::run(&target);
    }
    let config =
        super::load_config(config_path.as_deref(), policy_path.as_deref(), Config::default());
    let engine = match config.and_then(Engine::new) {
        Ok(engine) => engine,
        Err(err) => {
            say!("termloom: {err}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(stop) = signals::install() {
        stop.close_on_signal_with_exit(engine.clone(), 0);
    }
    let output = StopWhenClosed { stdout: std::io::stdout(), engine: engine.clone() };
    let watched = engine.clone();
    super::stdout_watch::watch_stdout(move || stop(&watched, "its reader is gone"));
    let served = termloom::mcp::serve(engine.clone(), std::io::stdin().lock(), output);
    input_ended();
    engine.shutdown();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            say!("termloom: the MCP server stopped: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The server's stdout, which stops the server once the host has closed it: no answer can
/// reach the host any more, so every session is closed and termloom exits 1 rather than read
/// requests it cannot answer until the host also closes stdin.
struct StopWhenClosed {
    stdout: std::io::Stdout,
    engine: Engine,
}

impl StopWhenClosed {
    /// Passes on what `result` says, unless it is an error (other than an interruption, which
    /// is tried again): then the server stops.
    fn unless_failed<T>(&self, result: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(err) = &result
            && err.kind() != std::io::ErrorKind::Interrupted
        {
            stop(&self.engine, &err.to_string());
        }
        result
    }
}

/// Whether the server stopped at the end of its input (see [`input_ended`]), held while it
/// stops for a closed stdout (see [`stop`]).
static STOPPING: std::sync::Mutex<bool> = std::sync::Mutex::new(false);

/// Notes the end of the input: the server stops as it does then (exit 0), and a stdout
/// closed meanwhile (a host closing both at once) is no longer a reason to stop (exit 1).
fn input_ended() {
    *STOPPING.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = true;
}

/// Says why stdout is gone, closes every session and exits 1; a second caller (the writer and
/// the watcher at once) waits for the first's exit. Once the input ended, returns at once.
fn stop(engine: &Engine, why: &str) {
    let ended = STOPPING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if *ended {
        return;
    }
    say!("termloom: cannot write to stdout ({why}); closing every session");
    engine.shutdown();
    log::logger().flush();
    std::process::exit(1);
}

impl Write for StopWhenClosed {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.stdout.write(bytes);
        self.unless_failed(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = self.stdout.flush();
        self.unless_failed(flushed)
    }
}
