//! The command line for agents that only have a shell: `termloom start`, `send`, `wait`,
//! `read`, `screen`, `exec`, `signal`, `resize`, `close`, `list`, `kill-server`. Each is one
//! process and one tool call to the server (the MCP tools' own text, or `--json` for their
//! structured result), so sessions outlive the command that started them.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Map, Value, json};
use termloom::tools::ToolResult;

use super::connect::Target;

mod flags;
mod milliseconds;
mod mistakes;
mod parse;
mod wording;

pub(super) use parse::{shell_quoted, with_reach};

use flags::*;
use milliseconds::seconds_for_milliseconds;
use mistakes::*;
use parse::*;
use wording::*;

pub(super) use flags::{commands_taking, help, is_command, overview};
pub(super) use mistakes::COMMON_OPTIONS;

/// Exit code when a wait timed out, as `termloom run` and `timeout(1)`.
const EXIT_TIMEOUT: u8 = 124;
/// Exit code when the program exited (or its session was closed) before a wait's condition
/// held, as `termloom run`'s.
const EXIT_ENDED: u8 = 1;
/// Exit code when a start's wait was refused once its program ran (the session runs): as
/// for any request the server refuses.
const EXIT_REFUSED: u8 = 1;
/// Exit code when the program asks for input before a wait's condition held (or `exec`'s
/// command asks for input): the condition may still hold once it is answered, but not before.
const EXIT_INPUT: u8 = 3;

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
    // Known before the arguments are checked, so that a malformed command line given
    // `--json` is reported as every other failure is.
    let json = asks_for_json(command, &args);
    let request = match parse(command, args) {
        Ok(Parsed::Help) => return print_out(&help(Some(command.name))),
        Ok(Parsed::Run(request)) => request,
        Err(message) if json => {
            let message = format!("{message} (run `{help_command}` for usage)");
            return fail(true, FailureKind::Usage, None, &message);
        }
        Err(message) => return usage(&message),
    };
    if command.name == "kill-server" {
        return kill_server(&request);
    }
    // A server that was stopping as this command connected (an idle exit at that very
    // moment) turned it away having done nothing: connected again, once, the command finds
    // no server, or (`start`) starts a new one.
    let mut called = call(command, &request);
    if let Called::TurnedAway = called {
        called = call(command, &request);
    }
    match called {
        Called::Done(code) => code,
        Called::TurnedAway => {
            let message =
                "the termloom server turned the command away twice, as it stopped; run it again";
            fail(request.json, FailureKind::Server, None, message)
        }
    }
}

/// How a command's one call ended.
enum Called {
    /// With this exit code.
    Done(ExitCode),
    /// Turned away by a server stopping as it connected, which did nothing with it.
    TurnedAway,
}

/// Connects (`start`: starting a server if none runs), calls the command's tool and reports.
fn call(command: &CommandDef, request: &Request) -> Called {
    let connected = match command.name {
        "start" => request.target.connect_or_start().map(Some),
        _ => request.target.try_connect(),
    };
    // No server runs, so there is no session: `list` says so on stderr, lists none on stdout
    // and succeeds (a server with no session exits when idle: that is no failure to a script
    // asking which sessions there are).
    if command.name == "list" && matches!(connected, Ok(None)) {
        say!("termloom: {}", with_reach(&request.target.none_runs(), &request.reach));
        return Called::Done(if request.json {
            print_out(&format!("{}\n", json!({ "sessions": [] })))
        } else {
            print_out("no sessions\n")
        });
    }
    let connected = connected.and_then(|client| client.ok_or_else(|| request.target.none_runs()));
    // Why the command line is ambiguous, found once connected (see [`ambiguous_signal`]).
    let mut ambiguous = None;
    let result = connected.map_err(Some).and_then(|mut client| {
        let arguments = Value::Object(request.arguments.clone());
        // A stopped or hung server is not waited for forever: the call's own wait, or the
        // longest a tool waits by default, and half a minute more.
        let waits = request.arguments.get("timeout_ms").and_then(Value::as_u64);
        let silence = Duration::from_millis(waits.unwrap_or(LONGEST_DEFAULT_WAIT_MS)) + GRACE;
        client
            .set_answer_timeout(Some(silence))
            .and_then(|()| {
                ambiguous = ambiguous_signal(&mut client, command, request)?;
                match ambiguous {
                    Some(_) => Ok(None),
                    None => client
                        .call_tool_as(Some(&request.client), command.tool, arguments)
                        .map(Some),
                }
            })
            .map_err(|e| server_failed(&mut client, &e, &request.target))
    });
    if let Some(why) = ambiguous {
        return Called::Done(fail(request.json, FailureKind::Usage, None, &why));
    }
    Called::Done(match result {
        Ok(Some(result)) => report(command, request, &result),
        Ok(None) => unreachable!("a call is left out only for an ambiguous command line"),
        Err(None) => return Called::TurnedAway,
        // Advice such as "`termloom start` starts one" reaches the server asked for.
        Err(Some(message)) => {
            fail(request.json, FailureKind::Server, None, &with_reach(&message, &request.reach))
        }
    })
}

/// Why `termloom signal ID SIGNAL` is ambiguous, if it is: ID is a signal's name too
/// (`signal TERM INT`), and both words name two running sessions, so that the words meant in
/// `kill`'s order (the signal first) would signal the other session. Asked of the server (the
/// sessions' names) only then; nothing is sent when it is.
fn ambiguous_signal(
    client: &mut termloom::server::Client,
    command: &CommandDef,
    request: &Request,
) -> std::io::Result<Option<String>> {
    let id = request.arguments.get("session_id").and_then(Value::as_str);
    let signal = request.arguments.get("signal").and_then(Value::as_str);
    let (Some(id), Some(signal)) = (id, signal) else { return Ok(None) };
    if command.name != "signal" || id.parse::<termloom::Signal>().is_err() {
        return Ok(None);
    }
    let list = client.call_tool_as(Some(&request.client), "terminal_list", json!({}))?;
    let sessions = list.structured.as_ref().map(|list| &list["sessions"]);
    let id_of = |name: &str| {
        sessions
            .and_then(Value::as_array)
            .and_then(|all| {
                all.iter().find(|session| session["name"] == name && session["state"] == "running")
            })
            .map(|session| session["session_id"].clone())
    };
    // Both words name sessions that run, two of them: either order signals one. (When ID
    // names none, the call is refused as naming no session, the sessions listed; an ended
    // session takes no signal; `signal HUP HUP` has one meaning.)
    let (Some(named), Some(other)) = (id_of(id), id_of(signal)) else { return Ok(None) };
    if named == other {
        return Ok(None);
    }
    Ok(Some(format!(
        "`termloom signal {id} {signal}` is ambiguous: {id} and {signal} name both signals and \
        sessions ({named} and {other}); nothing was sent. Give the session by its id: termloom \
        signal {named} {signal} sends {signal} to session {id}, termloom signal {other} {id} \
        sends {id} to session {signal}"
    )))
}

/// The longest a tool waits when the call gives no `timeout_ms` (terminal_run's 45 s, with
/// room to spare).
const LONGEST_DEFAULT_WAIT_MS: u64 = 60_000;

/// How much longer than the call's wait the command line waits for a silent server before it
/// gives up on it.
const GRACE: Duration = Duration::from_secs(30);

/// What kind of failure a command reports: with `--json`, its `error.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailureKind {
    /// A malformed command line (exit 2).
    Usage,
    /// No server to reach, or the server refused or failed the connection (exit 1).
    Server,
    /// The tool call failed: the session is unknown or ended, a value the server refused...
    /// (exit 1).
    Error,
}

impl FailureKind {
    fn name(self) -> &'static str {
        match self {
            FailureKind::Usage => "usage",
            FailureKind::Server => "server",
            FailureKind::Error => "error",
        }
    }

    fn exit_code(self) -> ExitCode {
        match self {
            FailureKind::Usage => ExitCode::from(super::EXIT_USAGE),
            _ => ExitCode::FAILURE,
        }
    }
}

/// Reports a failure: with `--json`, as the one JSON object every command prints for one,
/// `{"error": {"kind": KIND, "code": CODE, "message": MESSAGE}}` on stdout (nothing on
/// stderr), its code the server's (`unknown_session`, `name_taken`...) or else the kind's;
/// otherwise the message on stderr. Returns the exit code, the same either way.
fn fail(json: bool, kind: FailureKind, code: Option<&str>, message: &str) -> ExitCode {
    if json {
        let code = code.unwrap_or(kind.name());
        if print_json_error(kind.name(), code, message) != ExitCode::SUCCESS {
            return ExitCode::FAILURE;
        }
    } else if names_its_command(message) {
        say!("{message}");
    } else {
        say!("termloom: {message}");
    }
    kind.exit_code()
}

/// The message for a call that failed. A server that refused the connection (at its limit
/// of connections, say) wrote why before closing it, so a failed write is followed by a read
/// of that message. A server that is gone once the call lost its connection was stopped
/// while the call ran (`kill-server`, a signal, a crash): that says more than a lost answer.
/// `None`: the server turned the connection away as it stopped, having done nothing with it
/// ([`termloom::server::SERVER_STOPPING`]), and the command is to connect again.
fn server_failed(
    client: &mut termloom::server::Client,
    err: &std::io::Error,
    target: &Target,
) -> Option<String> {
    use std::io::ErrorKind;
    let refusal = match err.kind() {
        ErrorKind::ConnectionAborted => return None,
        ErrorKind::BrokenPipe | ErrorKind::ConnectionReset => client.next_reply().err(),
        _ => None,
    };
    match refusal.map(|refusal| (refusal.kind(), refusal)) {
        Some((ErrorKind::ConnectionAborted, _)) => return None,
        Some((ErrorKind::Other, refusal)) => {
            return Some(format!("the termloom server refused the connection: {refusal}"));
        }
        _ => {}
    }
    let lost = matches!(
        err.kind(),
        ErrorKind::UnexpectedEof | ErrorKind::BrokenPipe | ErrorKind::ConnectionReset
    );
    if lost && target.server_gone() {
        return Some(target.stopped_during("the call"));
    }
    if err.kind() == ErrorKind::TimedOut {
        return Some(format!(
            "{err}; the call was given up (`termloom kill-server` ends it and its sessions; its log is beside {})",
            target.socket.display()
        ));
    }
    Some(format!("the termloom server failed: {err}"))
}

/// A message of a tool's, whole, in this command's terms and then the command line's (see
/// [`in_command_terms`], [`in_cli_terms`]): a failure's, and a start's `wait_refusal`.
fn in_our_terms(command: &CommandDef, text: &str, id: Option<&Value>) -> String {
    in_cli_terms(&in_command_terms(command, text, id), given(id).as_deref())
}

/// Prints a tool's result and picks the exit code.
fn report(command: &CommandDef, request: &Request, result: &ToolResult) -> ExitCode {
    let id = request.arguments.get("session_id");
    if stopped_during_the_call(command, request, result) {
        let message = with_reach(&request.target.stopped_during("the call"), &request.reach);
        return fail(request.json, FailureKind::Server, None, &message);
    }
    if result.is_error {
        let message = in_our_terms(command, &failure_as_named(&result.text, id), id);
        let message = with_reach(&message, &request.reach);
        let code = result.error_code.as_deref();
        return fail(request.json, FailureKind::Error, code, &message);
    }
    let mut structured = result.structured.clone().unwrap_or(Value::Null);
    // The session as the command was given it (a name stays a name; a start's, the `--name`
    // it gave), else the result's.
    let start_name = request.arguments.get("name").filter(|_| command.name == "start");
    let named = id.or(start_name).or(structured.get("session_id")).cloned();
    // Why a start's wait was refused, in the flags' terms as the text's note says it (it
    // named the tools' arguments: `for_regex`, `terminal_start without command or argv`),
    // naming the session as the text does.
    if let Some(why) = structured["wait_refusal"].as_str() {
        let why = as_named(why, structured.get("session_id"), named.as_ref());
        let why = in_our_terms(command, &why, named.as_ref());
        structured["wait_refusal"] = Value::String(why);
    }
    let mut notes = notes(&request.arguments, &structured);
    // The wait's note on termloom's marks in its condition, which the text's first line ends
    // with, is among the notes in JSON.
    if request.json && structured["wait"]["termloom_marks"] == true {
        notes.push(termloom::tools::MARKS_NOTE.to_owned());
    }
    // The tool's note on a key name typed as text, taken out of its text (the block it ends
    // with) and said among the notes.
    let key_note = typed_key_name_note(&request.arguments);
    let result_text = match &key_note {
        Some(line) => without_last_line(&result.text, line),
        None => std::borrow::Cow::Borrowed(result.text.as_str()),
    };
    notes.extend(key_note.as_deref().map(super::values::key_name_note_in_cli_terms));
    let printed = if request.json {
        if let (false, Some(object)) = (notes.is_empty(), structured.as_object_mut()) {
            object.insert("notes".into(), json!(notes));
        }
        print_out(&format!("{structured}\n"))
    } else {
        let named = named.as_ref();
        let id = structured.get("session_id").or(id);
        let pieces = own_and_programs(&result_text, &structured);
        let mut text: String = pieces
            .into_iter()
            .enumerate()
            .map(|(at, (piece, programs))| {
                if programs {
                    return piece.to_owned();
                }
                // A start's first line keeps the id it gives (`[session 43 started`).
                let kept = match (at, start_name) {
                    (0, Some(_)) => piece.find('\n').map_or(piece.len(), |end| end + 1),
                    _ => 0,
                };
                let (kept, rest) = piece.split_at(kept);
                let own = format!("{kept}{}", as_named(rest, id, named));
                let own = in_command_terms(command, &own, named);
                // A resize's text is all termloom's own; elsewhere only whole lines in
                // brackets are notes.
                let own = if command.name == "resize" {
                    in_cli_terms(&own, given(named).as_deref())
                } else {
                    notes_in_cli_terms(&own, given(named).as_deref())
                };
                with_reach(&own, &request.reach)
            })
            .collect();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        // Under the first line, which says how the wait ended.
        let at = text.find('\n').map_or(0, |at| at + 1);
        let notes: String = notes.iter().map(|note| format!("[{note}]\n")).collect();
        text.insert_str(at, &notes);
        print_out(&text)
    };
    if printed != ExitCode::SUCCESS {
        return printed;
    }
    // A start whose wait was refused once its program ran: the session runs (its id is
    // printed), but what was asked for was not waited for, and `termloom start --wait-... &&
    // next` must not go on as if it held.
    if structured["wait_refused"] == true {
        return ExitCode::from(EXIT_REFUSED);
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

/// Whether the call's session was closed because the server was stopped during the call
/// (`termloom kill-server` while a `wait` or an `exec` ran): its result says only that the
/// session was closed (a wait's `closed`, an `exec` that "finished" with no exit code), so
/// the server is asked whether it is gone, only then.
fn stopped_during_the_call(command: &CommandDef, request: &Request, result: &ToolResult) -> bool {
    let closed = match &result.structured {
        _ if command.name == "close" => false,
        _ if result.is_error => {
            matches!(result.error_code.as_deref(), Some("session_closed" | "engine_stopped"))
        }
        Some(structured) => {
            structured["wait"]["outcome"] == "closed"
                || structured["status"]["activity"] == "closed"
        }
        None => false,
    };
    closed && request.target.server_gone()
}

/// What the command line notes of the call (`arguments`) and its result: a value in
/// milliseconds that read like seconds, a `--text` ending in `\n` written out. Printed under
/// the result's first line, in brackets, or with `--json` as the result's `notes`, when there
/// are any, followed there by the tool's own note on a `--keys` ending in a key name written
/// out ([`typed_key_name_note`]).
fn notes(arguments: &Map<String, Value>, result: &Value) -> Vec<String> {
    let mut notes = seconds_for_milliseconds(arguments, result);
    notes.extend(mistakes::escaped_line_break(arguments));
    notes
}

/// The line `terminal_send`'s result ends with for the call's `keys` ending in a key name
/// written out after text (`make Enter`: [`termloom::tools::typed_key_name_note`], with the
/// call's `submit`), if it has one. Worked out from the call, not looked for in the result's
/// text, where a program's output could read like it.
fn typed_key_name_note(arguments: &Map<String, Value>) -> Option<String> {
    let keys = arguments.get("keys")?.as_str()?;
    let submit = arguments.get("submit").and_then(Value::as_bool).unwrap_or(false);
    termloom::tools::typed_key_name_note(keys, submit)
}

/// `text` without the last whole line that is `line` (the tool's own block, which follows
/// whatever a program printed), as it was when it holds none.
fn without_last_line<'t>(text: &'t str, line: &str) -> std::borrow::Cow<'t, str> {
    let whole = |at: &usize| {
        let end = at + line.len();
        (*at == 0 || text.as_bytes()[at - 1] == b'\n')
            && (end == text.len() || text.as_bytes()[end] == b'\n')
    };
    match text.rmatch_indices(line).map(|(at, _)| at).find(whole) {
        Some(at) => {
            let end = (at + line.len() + 1).min(text.len());
            std::borrow::Cow::Owned(format!("{}{}", &text[..at], &text[end..]))
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// The exit code of a program that ended, as a shell reports it: its own, or 128 + N for
/// signal N.
fn program_code(status: &Value) -> Option<u64> {
    status["exit_code"].as_u64().or_else(|| Some(128 + status["exit_signal"].as_u64()?))
}

/// Where the options of session command `name`'s `args` end: at `--`, at `start`'s
/// program's first word, or at the end (no option follows; an unknown command has none).
pub(super) fn options_end(name: &str, args: &[String]) -> usize {
    every_command().find(|c| c.name == name).map_or(0, |command| parse::options_end(command, args))
}

/// Writes the JSON every command prints for a failure under `--json`, one line on stdout:
/// `{"error": {"kind": KIND, "code": CODE, "message": MESSAGE}}`, CODE a machine-readable
/// name of what went wrong (`termloom run`'s report adds `step` and `screen` to its `error`).
pub(super) fn print_json_error(kind: &str, code: &str, message: &str) -> ExitCode {
    let error = json!({ "kind": kind, "code": code, "message": message });
    print_out(&format!("{}\n", json!({ "error": error })))
}

/// Writes `text` on stdout. A reader that went away (`termloom read ID | head -1`) is no
/// crash: the command says so on stderr and fails, as `termloom run` does.
pub(super) fn print_out(text: &str) -> ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            say!("termloom: writing the output failed: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `termloom kill-server`: stops the server and waits until its socket is gone; with
/// `--json`, then says so in one line, `{"stopped": true, "socket": PATH}`. With no server
/// running there is nothing to stop, which is no failure: a note on stderr says so, and
/// `--json` gives `{"stopped": false, ...}`.
fn kill_server(request: &Request) -> ExitCode {
    let socket = request.target.socket.to_string_lossy();
    let done = |stopped: bool| {
        if request.json {
            print_out(&format!("{}\n", json!({ "stopped": stopped, "socket": socket })))
        } else {
            ExitCode::SUCCESS
        }
    };
    // A request that fails otherwise (the connection closed or reset before it was written
    // or answered: the server stopping, as for another `kill-server` at the same time) is
    // looked at again: a server gone since, or turning connections away, stopped as asked.
    let mut failed = None;
    for _ in 0..KILL_TRIES {
        let mut client = match request.target.try_connect() {
            Ok(Some(client)) => client,
            Ok(None) if failed.is_some() => return done(true),
            Ok(None) => {
                say!("termloom: no termloom server is running on {socket}; nothing to stop");
                return done(false);
            }
            // Advice such as "`termloom start` starts one" reaches the server asked for.
            Err(message) => {
                let message = with_reach(&message, &request.reach);
                return fail(request.json, FailureKind::Server, None, &message);
            }
        };
        match client.request("termloom/shutdown", json!({})) {
            // The server answers, closes every session, then exits: its end closes the
            // connection.
            Ok(_) => {
                while let Ok(Some(_)) = client.next_reply() {}
                return done(true);
            }
            // A server that turned the request away was stopping already: stopped as asked.
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionAborted => return done(true),
            Err(err) => failed = Some(err),
        }
    }
    let err = failed.map_or_else(String::new, |err| err.to_string());
    let message = format!("the server did not accept the shutdown: {err}");
    fail(request.json, FailureKind::Server, None, &message)
}

/// How many times `kill-server` connects to a server whose connection failed before it
/// answered (review us: 9 of 200 concurrent `kill-server`s exited 1 with a broken pipe, a
/// reset or no answer, while the server stopped as asked).
const KILL_TRIES: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure's advice names the session as the command was given it: it said
    /// `termloom read 2 --wait-prompt` (and "session 2's shell") to a command given `ed`.
    #[test]
    fn a_failure_names_the_session_as_given() {
        let drawing = "session 2's shell has begun its prompt but not drawn it yet: wait for the prompt with terminal_read session_id=2 prompt=true timeout_ms=..., then run the command";
        let run = COMMANDS.iter().find(|c| c.name == "exec").unwrap();
        assert_eq!(
            in_our_terms(run, &failure_as_named(drawing, Some(&json!("ed"))), Some(&json!("ed"))),
            "session ed's shell has begun its prompt but not drawn it yet: wait for the prompt with termloom read ed --wait-prompt --timeout=..., then run the command"
        );
        // Given by id, or naming another session too, the text stays as it is.
        assert_eq!(failure_as_named(drawing, Some(&json!(2))), drawing);
        let two = "the name \"ed\" is taken by session 3; close session 4 first";
        assert_eq!(failure_as_named(two, Some(&json!("ed"))), two);
    }

    #[test]
    fn advice_is_given_in_the_command_lines_terms() {
        assert_eq!(
            in_cli_terms(
                "[... 7078 earlier bytes left out; to see them, call terminal_read with session_id=5 view=\"scrollback\" max_bytes=9000]",
                Some("ed"),
            ),
            "[... 7078 earlier bytes left out; to see them, run termloom read 5 --view=\"scrollback\" --max-bytes=9000]"
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

    /// A note names the session as the command was given it: by name, or by id.
    #[test]
    fn a_note_names_the_session_as_given() {
        let note =
            "[still running after 0.2 s in session 1: follow it with terminal_read session_id=1]";
        assert_eq!(
            as_named(note, Some(&json!(1)), Some(&json!("sh"))),
            "[still running after 0.2 s in session sh: follow it with terminal_read session_id=sh]"
        );
        assert_eq!(as_named(note, Some(&json!(1)), Some(&json!(1))), note);
        // Another session's id that begins with this one's is left alone.
        let other = "session 12 and session_id=12";
        assert_eq!(as_named(other, Some(&json!(1)), Some(&json!("sh"))), other);
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
    fn json_is_asked_for_only_where_parse_reads_it() {
        let asks = |name: &str, args: &[&str]| {
            let command = COMMANDS.iter().find(|c| c.name == name).unwrap();
            asks_for_json(command, &args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
        };
        assert!(asks("read", &["1", "--bogus", "--json"]));
        assert!(asks("send", &["1", "--keys", "x", "--json"]));
        assert!(!asks("send", &["1", "--text", "--json"]), "a flag's value");
        assert!(!asks("send", &["1", "--client", "--json"]), "an option's value");
        assert!(!asks("start", &["cat", "--json"]), "the program's word");
        assert!(!asks("start", &["--", "--json"]));
        assert!(asks("start", &["--size", "1x1", "--json", "cat"]));
        assert!(!asks("read", &["1", "--json=yes"]));
    }

    /// `COMMON_OPTIONS`, kept by hand, are the options the help says every command takes
    /// (its "Every command takes" paragraph), and every command's parser takes each of them.
    #[test]
    fn the_common_options_are_the_ones_every_command_takes() {
        let help = help(None);
        let (_, common) = help.split_once("Every command takes").unwrap();
        let common = common.split("\n\n").next().unwrap_or_default();
        let mut named: Vec<&str> = common
            .split_whitespace()
            .map(|word| word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-'))
            .filter(|word| word.starts_with('-'))
            .collect();
        let mut listed = COMMON_OPTIONS.to_vec();
        named.sort_unstable();
        named.dedup();
        listed.sort_unstable();
        assert_eq!(named, listed, "{common}");
        for command in every_command() {
            for option in COMMON_OPTIONS {
                let mut args = vec![option.to_owned()];
                if option != "--json" {
                    args.push(if option == "--socket" { "/tmp/s" } else { "x" }.to_owned());
                }
                args.push("--not-a-flag".to_owned());
                let refused = parse(command, args).err().unwrap_or_default();
                assert!(
                    refused.contains("take --not-a-flag"),
                    "{} {option}: {refused}",
                    command.name
                );
            }
        }
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
            "[cat running]\nmax_bytes=5 from the program\n[note: run termloom read]\n"
        );
    }
}
