//! `termloom mcp [--config FILE]`: the MCP server on stdin and stdout.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
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
reading), the same, with exit status 1.

With --server the tools drive the sessions of a termloom server (started on
first use), so an MCP host, a shell-only agent using `termloom send`... and a
person using `termloom attach` see the same sessions, and they outlive the
host. The host has read positions of its own; sessions stay open when it
leaves.

Options:
  --config FILE   Engine configuration (TOML; see `termloom run --help`).
  --policy FILE   Spawn policy (TOML: default, [[rules]]; see `termloom run
                  --help`). Starts it asks about are put to the person through
                  MCP elicitation, and denied when the client cannot ask.
  --server        Serve the sessions of a termloom server.
  -L NAME, --socket PATH   Which server (with --server).
  -h, --help      Show this help.

Example (an MCP host's server entry):
  {\"command\": \"termloom\", \"args\": [\"mcp\"]}
";

/// Runs the server.
pub(super) fn main(args: Vec<OsString>) -> ExitCode {
    let mut config_path: Option<PathBuf> = None;
    let mut policy_path: Option<PathBuf> = None;
    let mut target = Target::default();
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
            Some(other) if other.starts_with("--config=") => {
                config_path = Some(other["--config=".len()..].into());
            }
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
        if config_path.is_some() || policy_path.is_some() {
            return super::usage_error(
                "--config and --policy configure a server that `termloom mcp` runs itself; with --server, pass them to `termloom server`",
                "termloom mcp --help",
            );
        }
        return proxy(&target);
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
    let served = termloom::mcp::serve(engine.clone(), std::io::stdin().lock(), output);
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
            say!("termloom: cannot write to stdout ({err}); closing every session");
            self.engine.shutdown();
            std::process::exit(1);
        }
        result
    }
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

/// `termloom mcp --server`: relays MCP between stdio and the server's socket, where the same
/// tools run on the server's sessions. When the host closes stdin, the connection's calls end
/// and the sessions stay.
fn proxy(target: &Target) -> ExitCode {
    let stream = match target
        .connect_or_start()
        .and_then(|_| UnixStream::connect(&target.socket).map_err(|e| e.to_string()))
    {
        Ok(stream) => stream,
        Err(message) => {
            say!("termloom: {message}");
            return ExitCode::FAILURE;
        }
    };
    let Ok(mut to_server) = stream.try_clone() else {
        say!("termloom: cannot use the connection to the server");
        return ExitCode::FAILURE;
    };
    // The connection relays an MCP host: a malformed or oversized message from the host is
    // answered and skipped, as `termloom mcp` does, rather than ending the connection.
    let mut from_server = std::io::BufReader::new(stream);
    if let Err(message) = say_mcp_hello(&mut to_server, &mut from_server) {
        say!("termloom: {message}");
        return ExitCode::FAILURE;
    }
    std::thread::spawn(move || {
        let _ = relay(&mut std::io::stdin().lock(), &mut to_server);
        let _ = to_server.shutdown(Shutdown::Write);
    });
    match relay(&mut from_server, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            say!("termloom: the connection to the server failed: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The id of the proxy's own `termloom/hello`, whose answer is not passed on to the host.
const HELLO_ID: &str = "termloom-mcp-proxy-hello";

/// Tells the server that the connection relays an MCP host (`termloom/hello` with `"mcp":
/// true`), before anything of the host's; reads its answer, the first line the server sends.
fn say_mcp_hello(
    to: &mut UnixStream,
    from: &mut std::io::BufReader<UnixStream>,
) -> Result<(), String> {
    let hello = serde_json::json!({"jsonrpc": "2.0", "id": HELLO_ID, "method": "termloom/hello",
        "params": {"protocol": termloom::server::PROTOCOL, "mcp": true}});
    let failed = |err: std::io::Error| format!("the connection to the server failed: {err}");
    to.write_all(format!("{hello}\n").as_bytes()).map_err(failed)?;
    let mut line = String::new();
    std::io::BufRead::read_line(from, &mut line).map_err(failed)?;
    let answer: serde_json::Value = serde_json::from_str(&line)
        .map_err(|_| "the termloom server closed the connection without answering".to_owned())?;
    match answer.get("error") {
        Some(error) => Err(format!(
            "the termloom server refused the connection: {}",
            error["message"].as_str().unwrap_or("no reason given")
        )),
        None => Ok(()),
    }
}

/// Copies `from` to `to` until `from` ends, passing on each read at once. (`std::io::copy`
/// may splice a pipe into the socket, and Linux then holds what it read until the pipe ends
/// or a large amount is there: a request would wait for the next one.)
fn relay(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        to.write_all(&buffer[..n])?;
        to.flush()?;
    }
}
