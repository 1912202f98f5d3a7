//! `termloom server`: the server in the foreground (for service managers), or detached when a
//! client starts it on first use.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use termloom::server::{Server, ServerOptions};
use termloom::{Config, Engine};

use super::connect::Target;

/// The help of `termloom server`.
pub(super) const HELP: &str = "\
Usage: termloom server [-L NAME | --socket PATH] [OPTIONS]

Runs a termloom server in the foreground: one set of sessions that outlive
their clients, for `termloom start`, `send`, `read`, `attach`... (which start a
server on first use themselves) and `termloom mcp --server`. It listens on a
Unix socket private to this user ($XDG_RUNTIME_DIR/termloom/NAME, or
termloom-UID/NAME in the temporary directory); other users are refused.

A server a client starts on first use gets the options of the last server
that listened on the same socket (recorded beside it), so a --policy does not
vanish when its server idles out.

It exits after it has had no session and no client for the idle period, and
on SIGTERM or SIGINT, closing every session (no process is left behind, even
if it is killed: its supervisor ends the sessions); a second SIGTERM or SIGINT
while they close kills them at once. It also closes every session and exits
once its socket is removed (its directory too, as at logout): no client could
reach them. A server started while such a one still closes waits for it, at
most 10 s, then exits 75 saying so.

Options:
  -L NAME                       A separate server by name (default \"default\").
  --socket PATH                 Listen on PATH instead (its directory is left as
                                it is; one others may write in is refused).
                                Without either, $TERMLOOM_SOCKET if set.
  --idle-exit SECONDS|never     Exit after this long idle (default 10).
  --max-sessions-per-client N   Sessions one client may run (default 32).
  --max-connections N           Connections at once (default 256).
  --max-clients N               Client names (--client) whose read positions are
                                kept (default 1024); past them, the one used
                                least recently, and not connected, is forgotten.
  --config FILE                 Engine configuration (TOML; `termloom help run`
                                says its keys). Unless it sets max_readers, that
                                is --max-clients: each of the server's clients
                                keeps its read position.
  --policy FILE                 Spawn policy (TOML; `termloom help run` says
                                its form): MCP connections ask their person
                                where it says ask; other starts it asks about
                                are denied.
  --detach                      Started on first use: leave the caller's session
                                and ignore SIGHUP.
  -h, --help                    Show this help.
";

/// The exit code of a server that did not start because the one before it on its socket
/// was still closing (`EX_TEMPFAIL`: start one again once it has).
pub(super) const EXIT_CLOSING: u8 = 75;

/// The flags of its own `termloom server` takes that take a value, as `--flag=VALUE` too
/// (`-L`, `--socket` aside).
pub(super) const VALUE_FLAGS: [&str; 6] = [
    "--idle-exit",
    "--max-sessions-per-client",
    "--max-clients",
    "--max-connections",
    "--config",
    "--policy",
];

/// The other flags of its own `termloom server` takes (`-h` aside).
pub(super) const SWITCHES: [&str; 1] = ["--detach"];

/// Runs the server.
pub(super) fn main(args: Vec<OsString>) -> ExitCode {
    super::stderr_log::as_server();
    let usage = |message: &str| super::usage_error(message, "termloom server --help");
    let mut target = Target::from_environment();
    let mut options = ServerOptions::default();
    let mut config_path: Option<PathBuf> = None;
    let mut policy_path: Option<PathBuf> = None;
    let mut detach = false;
    // The options a server started on first use on this socket gets again (see
    // connect::remember_options), paths made absolute.
    let mut remembered: Vec<String> = Vec::new();
    let mut args = args.into_iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = args.next() {
        match target.option(&arg, || args.next()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(message) => return usage(&message),
        }
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let parsed: Result<(), String> = match arg.as_str() {
            "-h" | "--help" => return super::agent::print_out(HELP),
            "--detach" => {
                detach = true;
                Ok(())
            }
            "--idle-exit" => value(&arg).and_then(|v| {
                remembered.extend([arg.clone(), v.clone()]);
                options.idle_exit = match v.as_str() {
                    "never" => None,
                    secs => Some(
                        secs.parse::<f64>()
                            .ok()
                            .and_then(|s| Duration::try_from_secs_f64(s).ok())
                            .ok_or(format!(
                                "--idle-exit {secs:?}: give seconds from 0 (at most {}) or `never`",
                                u64::MAX
                            ))?,
                    ),
                };
                Ok(())
            }),
            "--max-sessions-per-client" => value(&arg).and_then(|v| {
                remembered.extend([arg.clone(), v.clone()]);
                options.max_sessions_per_client = count(&arg, &v)?;
                Ok(())
            }),
            "--max-clients" => value(&arg).and_then(|v| {
                remembered.extend([arg.clone(), v.clone()]);
                // Each is a reader of every session: at most Config::max_readers' top.
                options.max_clients = count(&arg, &v).and_then(|n| match n <= 100_000 {
                    true => Ok(n),
                    false => Err(format!("{arg} {v:?}: give a whole number from 1 to 100000")),
                })?;
                Ok(())
            }),
            "--max-connections" => value(&arg).and_then(|v| {
                remembered.extend([arg.clone(), v.clone()]);
                options.max_connections = count(&arg, &v)?;
                Ok(())
            }),
            "--config" => value(&arg).map(|v| {
                remembered.extend([arg.clone(), absolute(&v)]);
                config_path = Some(v.into())
            }),
            "--policy" => value(&arg).map(|v| {
                remembered.extend([arg.clone(), absolute(&v)]);
                policy_path = Some(v.into())
            }),
            _ => Err(format!("unknown argument {arg:?} for `termloom server`")),
        };
        if let Err(message) = parsed {
            return usage(&message);
        }
    }
    if let Err(message) = target.checked() {
        return usage(&message);
    }
    options.socket = target.socket;
    if detach {
        termloom::server::detach();
    }
    // Every client's read position is kept (see ServerOptions::max_clients).
    let default = Config { max_readers: options.max_clients, ..Config::default() };
    let config = super::load_config(config_path.as_deref(), policy_path.as_deref(), default);
    let engine = match config.and_then(Engine::new) {
        Ok(engine) => engine,
        Err(err) => {
            // Remembered even so: the next server started on first use fails the same way
            // (its log says why) rather than start without the policy meant for it.
            let _ = super::connect::remember_options(&options.socket, &remembered);
            say!("termloom: {err}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::bind(engine.clone(), options) {
        Ok(server) => server,
        Err(err) => {
            engine.shutdown();
            say!("termloom: {err}");
            // A server still closing there (see termloom::server::CLOSING_WAIT): no fault of
            // this one's options, as a client that started it tells its caller.
            if err.kind() == std::io::ErrorKind::ResourceBusy {
                return ExitCode::from(EXIT_CLOSING);
            }
            return ExitCode::FAILURE;
        }
    };
    // Bound: this server owns the socket, so its options are the ones a server started
    // on first use gets next (a policy must not vanish when this server idles out).
    if let Err(err) = super::connect::remember_options(server.socket(), &remembered) {
        engine.shutdown();
        say!("termloom: {err}");
        return ExitCode::FAILURE;
    }
    let stop = server.stopper();
    match Signals::new([SIGHUP, SIGINT, SIGTERM]) {
        Ok(mut signals) => {
            let watching =
                std::thread::Builder::new().name("termloom-signals".into()).spawn(move || {
                    let mut stopping = false;
                    for signal in signals.forever() {
                        if signal == SIGHUP && detach {
                            continue;
                        }
                        if stopping && signal == SIGHUP {
                            // A closed terminal hangs up its foreground job twice (the kernel,
                            // then its shell): no one asked to hurry, so each session keeps its
                            // grace.
                            say!("termloom server: received SIGHUP again; still closing (SIGTERM or SIGINT kills every session at once)");
                            continue;
                        }
                        if stopping {
                            // Asked again while sessions close, each given its grace: the
                            // server exits now, and its supervisor, at the end of its socket,
                            // kills every session at once (as when the server is killed).
                            say!(
                                "termloom server: received signal {signal} again; killing every session at once"
                            );
                            log::logger().flush();
                            std::process::exit(128 + signal);
                        }
                        say!("termloom server: received signal {signal}; closing every session (SIGTERM or SIGINT again kills them at once)");
                        stop.stop();
                        stopping = true;
                    }
                });
            if let Err(err) = watching {
                say!("termloom: cannot watch for signals: {err}");
            }
        }
        Err(err) => say!("termloom: cannot watch for signals: {err}"),
    }
    // Said once the signals are handled, so that whoever waits for this line may stop it.
    say!(
        "termloom server: listening on {} (pid {})",
        server.socket().display(),
        std::process::id()
    );
    match server.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            say!("termloom server: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `path` made absolute against the working directory (a server started on first use runs
/// elsewhere).
fn absolute(path: &str) -> String {
    std::path::absolute(path).map_or_else(|_| path.to_owned(), |p| p.display().to_string())
}

/// A positive count.
fn count(name: &str, value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or(format!("{name} {value:?}: give a whole number from 1"))
}
