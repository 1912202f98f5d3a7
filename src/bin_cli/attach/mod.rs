//! `termloom attach ID [--takeover]`: a person watches a session live in their own terminal,
//! or takes it over. The server streams the session's screen (`termloom/frame`); this draws
//! the newest frame on the alternate screen (its rows that changed; frames a slow terminal
//! missed are skipped), clipped to the person's terminal, with a status line that says who
//! may type, how to leave (Ctrl-]) and the session's title.

use std::io::Read;
use std::os::fd::AsFd;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use crossbeam_channel::Sender;
use rustix::termios;
use serde_json::{Value, json};
use termloom::server::Reply;

use super::agent::{shell_quoted, with_reach};
use super::connect::Target;
use super::stderr_log;

mod draw;
mod terminal;

use draw::{Person, Shown, draw, final_text};
use terminal::{KeyModes, View};

/// Ctrl-], the key that detaches (and hands a session back).
const DETACH: u8 = 0x1d;

/// How long attach waits for the server's first word (the session's first frame, which a
/// server sends at once, or its refusal) before it takes the terminal anyway: a refusal is
/// said on the terminal as it is, but a server that says nothing must not leave the person
/// without the detach key.
const FIRST_WORD: std::time::Duration = std::time::Duration::from_secs(1);

/// The help of `termloom attach`.
pub(super) const HELP: &str = "\
Usage: termloom attach ID [--takeover] [--no-status] [-L NAME | --socket PATH]

Shows session ID (an id or a name) live in this terminal. Read-only by default:
what you type is ignored (the status line says so once you type). With
--takeover you type into the session and agents' input to it is refused (\"a
person holds this session\") until you hand it back; the status line of those who
watch says \"a person holds it\" meanwhile. What the session cannot take now (its
input queue full) is refused, not typed: the bell rings, the status line says so
(with --no-status, a line on stderr when that is not this terminal), and leaving
says why. Ctrl-] detaches (and hands back). Without -L or --socket, the server
is $TERMLOOM_SOCKET's if set. A session larger than this terminal is clipped (to
the rows around its cursor), and the status line says so, and shows the
session's title; resizing this terminal redraws it. --no-status gives the status
line's row to the session: a session as tall as this terminal is shown whole
(its last row, vim's command line, is otherwise below the view when the cursor
is above it).

When the session ends, its last screen is left in this terminal. Exits 0 when
you leave or the session ends; 1, with the reason on stderr, when it cannot
attach (an unknown session, one someone else holds), the server goes away or the
terminal cannot be written to; 2 for a bad command line; 128 + N when signal N
(SIGTERM, SIGHUP, SIGINT, SIGQUIT) ends it, the terminal restored first. Stopped
(SIGTSTP), it gives the terminal back first, and takes it again when continued
(fg).
";

/// What the main loop reacts to.
enum Event {
    /// A frame to draw is waiting in [`Pending`].
    Frame,
    /// Bytes the person typed, and whether they filled the read (more may follow at once,
    /// the rest of a paste).
    Typed(Vec<u8>, bool),
    /// The server answered request `id`: with the error's message if it refused it.
    Answered(u64, Option<String>),
    /// The person's terminal was resized: draw the last frame again, to its new size.
    Resized,
    /// The attachment ended, why, and whether it failed (an unknown session, one someone
    /// else holds, a lost server).
    End(String, bool),
    /// The session ended (its program exited, or it was closed), and why.
    SessionEnded(String),
    /// A signal that ends the attachment (SIGTERM, SIGHUP, SIGINT, SIGQUIT) arrived: the
    /// terminal is restored before leaving.
    Signalled(i32),
    /// The attachment is to stop (SIGTSTP): the terminal is given back to the shell first.
    Suspended,
    /// The attachment went on after a stop (SIGCONT): the terminal is taken again, its
    /// modes and screen as the shell left them.
    Continued,
}

/// The flags of its own `termloom attach` takes (`-L`, `--socket`, `-h` aside).
pub(super) const SWITCHES: [&str; 2] = ["--takeover", "--no-status"];

/// Runs `termloom attach`.
pub(super) fn main(args: Vec<String>) -> ExitCode {
    let usage = |message: &str| super::usage_error(message, "termloom attach --help");
    let mut target = Target::from_environment();
    let mut takeover = false;
    let mut no_status = false;
    let mut session: Option<String> = None;
    // The `-L` or `--socket` given, for advice that names a command: pasted, it reaches the
    // same server (see [`with_reach`]).
    let mut reach: Vec<String> = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut given = None;
        let value = || {
            given = args.next();
            given.clone()
        };
        match target.option(&arg, value) {
            Ok(true) => {
                let given = given.as_deref().unwrap_or_default();
                reach = vec![format!("{arg} {}", shell_quoted(given))];
                continue;
            }
            Ok(false) => {}
            Err(message) => return usage(&message),
        }
        match arg.as_str() {
            "-h" | "--help" => return super::agent::print_out(HELP),
            "--takeover" => takeover = true,
            "--no-status" => no_status = true,
            _ if session.is_none() && !arg.starts_with('-') => session = Some(arg),
            _ => return usage(&format!("unexpected argument {arg:?}")),
        }
    }
    if let Err(message) = target.checked() {
        return usage(&message);
    }
    let Some(session) = session else { return usage("attach needs a session ID") };
    // A word that is neither an id nor a name is a malformed command line, as elsewhere.
    let checked = match session.parse::<u64>() {
        Ok(0) => Err("session ids start at 1, not 0".to_owned()),
        Ok(_) => Ok(()),
        Err(_) => termloom::server::check_session_name(&session),
    };
    if let Err(why) = checked {
        return usage(&format!("bad value for ID: {why}"));
    }
    let stdin = std::io::stdin();
    let Ok(saved) = termios::tcgetattr(stdin.as_fd()) else {
        say!("termloom: attach needs a terminal on its standard input");
        return ExitCode::FAILURE;
    };
    let mut client = match target.connect() {
        Ok(client) => client,
        Err(message) => {
            say!("termloom: {}", with_reach(&message, &reach));
            return ExitCode::FAILURE;
        }
    };
    if let Err(err) = client.hello(None) {
        say!("termloom: {err}");
        return ExitCode::FAILURE;
    }
    let reference = session.parse::<u64>().map_or_else(|_| json!(session), |id| json!(id));
    let sender = client.sender();
    let attach_id =
        match sender.send("termloom/attach", json!({"session": reference, "takeover": takeover})) {
            Ok(id) => id,
            Err(err) => {
                say!("termloom: {err}");
                return ExitCode::FAILURE;
            }
        };
    let (events, received) = crossbeam_channel::bounded::<Event>(64);
    let pending = Arc::new(Pending::default());
    spawn_reader(client, attach_id, Arc::clone(&pending), events.clone());
    // The server's first word, before the terminal is touched: the session's first frame, or
    // its refusal (no session is named so), said on the terminal as it is.
    let first = match received.recv_timeout(FIRST_WORD) {
        Ok(Event::End(message, _)) => {
            let message = with_reach(&message.replace("terminal_start", "termloom start"), &reach);
            say!("termloom: cannot attach to session {session}: {message}");
            return ExitCode::FAILURE;
        }
        Ok(event) => Some(event),
        Err(crossbeam_channel::RecvTimeoutError::Timeout) => None,
        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
            Some(Event::End("the server closed the connection".to_owned(), true))
        }
    };
    spawn_keyboard(events.clone());
    spawn_signal_watcher(events);
    let stderr_elsewhere = stderr_elsewhere();
    let mut view = View::enter(saved);
    let mut reason = String::from("detached");
    let mut failed = false;
    // The signal that ended the attachment, if one did.
    let mut signalled: Option<i32> = None;
    // The screen the session ended with, shown after the view is left.
    let mut final_screen: Option<String> = None;
    // The last frame, drawn again when the terminal is resized.
    let mut last: Option<Value> = None;
    // What the person's terminal shows (see Shown).
    let mut shown = Shown::default();
    // The person, as the status line describes them.
    let mut person = Person { holds: takeover, typed: false, no_status, refused: false };
    // The request handing a held session back, once the person asked to leave.
    let mut release: Option<u64> = None;
    // The start of a character the person typed whose end has not been read yet.
    let mut unfinished: Vec<u8> = Vec::new();
    // The inputs the server refused (typing nothing), and why the last one was.
    let mut refused: (usize, String) = (0, String::new());
    // A terminal that cannot be written to ends the attachment: nobody sees it any more.
    let unwritable = |err: std::io::Error| format!("cannot write to the terminal ({err})");
    if let Err(err) = view.write(terminal::ENTER.as_bytes()) {
        reason = unwritable(err);
        failed = true;
    }
    // Stopped (SIGTSTP) and not continued in the foreground yet: frames are kept, not drawn
    // (on the shell's screen, in its modes).
    let mut stopped = false;
    let mut received = first.into_iter().chain(received.iter());
    while !failed && let Some(event) = received.next() {
        match event {
            Event::Frame => {
                // Taken with an earlier event: drawn already.
                let Some(frame) = pending.take() else { continue };
                if stopped {
                    last = Some(frame);
                    continue;
                }
                // Keys reach the program as it asked for them only when the person types.
                let modes = if takeover { KeyModes::of(&frame) } else { KeyModes::default() };
                let drawing = view.switch_modes(modes) + &draw(&frame, person, &mut shown);
                let drawn = view.write(drawing.as_bytes());
                last = Some(frame);
                if let Err(err) = drawn {
                    reason = unwritable(err);
                    failed = true;
                    break;
                }
            }
            Event::Resized => {
                if let Some(frame) = last.as_ref().filter(|_| !stopped) {
                    shown.forget();
                    let drawn = format!("\x1b[H\x1b[2J{}", draw(frame, person, &mut shown));
                    if let Err(err) = view.write(drawn.as_bytes()) {
                        reason = unwritable(err);
                        failed = true;
                        break;
                    }
                }
            }
            Event::Suspended => {
                stopped = true;
                view.suspend();
                // Stopped here until continued; SIGCONT then takes the terminal again.
                let _ = signal_hook::low_level::raise(signal_hook::consts::SIGSTOP);
            }
            // (Continued in the background, `bg`: taking the terminal would stop it again, on
            // SIGTTOU; it waits for `fg`.)
            Event::Continued if !in_foreground() => stopped = true,
            Event::Continued => {
                stopped = false;
                shown.forget();
                let mut drawing = view.resume();
                if let Some(frame) = &last {
                    let modes = if takeover { KeyModes::of(frame) } else { KeyModes::default() };
                    drawing += &view.switch_modes(modes);
                    drawing += &draw(frame, person, &mut shown);
                }
                if let Err(err) = view.write(drawing.as_bytes()) {
                    reason = unwritable(err);
                    failed = true;
                    break;
                }
            }
            Event::Typed(..) if release.is_some() => {}
            Event::Typed(bytes, full) => {
                let detach = bytes.iter().position(|b| *b == DETACH);
                let typed = &bytes[..detach.unwrap_or(bytes.len())];
                if !takeover && !typed.is_empty() && !person.typed {
                    // Nothing shows what was typed: the status line says it was ignored.
                    person.typed = true;
                    if let Some(frame) = &last
                        && let Err(err) = view.write(draw(frame, person, &mut shown).as_bytes())
                    {
                        reason = unwritable(err);
                        failed = true;
                        break;
                    }
                }
                if takeover && !typed.is_empty() {
                    let mut typed = [std::mem::take(&mut unfinished).as_slice(), typed].concat();
                    // A character split between two reads (a long paste, which fills them) is
                    // sent whole; a read that did not fill the buffer is all there is for now,
                    // sent as it is: an 8-bit Meta key's byte (M-b, 0xE2) is no character's
                    // start, and waiting for the next key would hold it back.
                    if detach.is_none() && full {
                        unfinished = typed.split_off(complete_len(&typed));
                    }
                    if !typed.is_empty() {
                        send_input(&sender, &reference, &typed);
                    }
                }
                if detach.is_none() {
                    continue;
                }
                if !takeover {
                    break;
                }
                // Leave once the server confirms the session is handed back, so an agent's
                // next command finds it free.
                match sender.send("termloom/release", json!({"session": reference})) {
                    Ok(id) => release = Some(id),
                    Err(_) => break,
                }
            }
            Event::Answered(id, error) => {
                if release == Some(id) {
                    reason = "handed back".to_owned();
                    break;
                }
                // An answer to input: refused, it typed nothing, and the person is told (a
                // bell, the status line, and why on leaving) rather than lose it unseen.
                let was_refused = person.refused;
                person.refused = error.is_some();
                let mut drawing = String::new();
                if let Some(why) = error {
                    // One bell for a run of refusals (each read of a paste is an input).
                    if !was_refused {
                        drawing.push('\x07');
                        // Without a status line, said at once where it draws nothing over
                        // the program: on stderr, when that is not this terminal; queued,
                        // since a pipe nobody reads would stop this loop once full.
                        if person.no_status && stderr_elsewhere {
                            stderr_log::to_stderr_queued(format!(
                                "termloom: what you typed was refused, and not typed: {why}"
                            ));
                        }
                    }
                    refused = (refused.0 + 1, why);
                }
                if person.refused != was_refused
                    && let Some(frame) = last.as_ref().filter(|_| !stopped)
                {
                    drawing += &draw(frame, person, &mut shown);
                }
                if !stopped && let Err(err) = view.write(drawing.as_bytes()) {
                    reason = unwritable(err);
                    failed = true;
                    break;
                }
            }
            Event::End(why, failure) => {
                reason = why;
                failed = failure;
                // A server lost once the session was shown: the person keeps what it showed.
                if failure {
                    final_screen = last.as_ref().map(final_text);
                }
                break;
            }
            Event::Signalled(signal) => {
                signalled = Some(signal);
                break;
            }
            Event::SessionEnded(why) => {
                reason = why;
                final_screen = last.as_ref().map(final_text);
                break;
            }
        }
    }
    view.leave(final_screen.as_deref());
    // The last lines are queued, then waited for a bounded time: a stderr pipe nobody reads
    // (full of refusals said under `--no-status`) holds the exit up no longer than that.
    let tell = |line: String| stderr_log::to_stderr_queued(line);
    if refused.0 > 0 {
        let (count, why) = refused;
        let times = if count == 1 { "once".to_owned() } else { format!("{count} times") };
        tell(format!(
            "termloom: what you typed was refused {times}, and not typed; the last time: {why}"
        ));
    }
    // A session closed under the person as the server stopped (it closes every session
    // first): the attachment was lost with the server, said as such. A session the server
    // no longer has ("the session is gone", a server that removed it before its watch saw
    // it closed) is asked about too. The server is asked once whether it is gone.
    let closed_under = !failed
        && signalled.is_none()
        && (reason.starts_with("the session was closed") || reason == "the session is gone");
    let gone = signalled.is_none() && (failed || closed_under) && target.server_gone();
    failed |= closed_under && gone;
    let code = if let Some(signal) = signalled {
        tell(format!("termloom: left session {session}: {}", ended_by(signal)));
        ExitCode::from(128 + signal as u8)
    } else if failed {
        // The connection lost as the server stopped: said so, not as a bare I/O error.
        if gone {
            reason = with_reach(&target.stopped_during("the attachment"), &reach);
        }
        // Once a frame was drawn, the attachment was made: it was lost, not refused.
        match last.is_some() {
            true => tell(format!("termloom: lost session {session}: {reason}")),
            false => tell(format!("termloom: cannot attach to session {session}: {reason}")),
        }
        ExitCode::FAILURE
    } else {
        tell(format!("termloom: left session {session}: {reason}"));
        ExitCode::SUCCESS
    };
    stderr_log::flush_queued();
    code
}

/// What signal `signal`, which ended the attachment, is, as the message on leaving says it:
/// `SIGHUP (signal 1)`, not a bare number ([`termloom::signal_name`]). Not why it was sent:
/// a closed terminal and a `kill -HUP` send the same SIGHUP.
fn ended_by(signal: i32) -> String {
    match termloom::signal_name(signal) {
        Some(name) => format!("{name} (signal {signal})"),
        None => format!("signal {signal}"),
    }
}

/// Tells the main loop when the person's terminal is resized (SIGWINCH), when a signal that
/// ends the attachment arrives (SIGTERM, SIGHUP, SIGINT, SIGQUIT), and when it is to stop
/// (SIGTSTP) or goes on after a stop (SIGCONT), so that the terminal is left in raw mode and
/// on the alternate screen by none, and taken again after a stop.
fn spawn_signal_watcher(events: Sender<Event>) {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGWINCH};
    let watched = [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT];
    let Ok(mut signals) = signal_hook::iterator::Signals::new(watched) else {
        return;
    };
    std::thread::spawn(move || {
        for signal in signals.forever() {
            let event = match signal {
                SIGWINCH => Event::Resized,
                SIGTSTP => Event::Suspended,
                SIGCONT => Event::Continued,
                _ => Event::Signalled(signal),
            };
            if events.send(event).is_err() {
                return;
            }
        }
    });
}

/// Sends what the person typed: as text when it is UTF-8, else as its bytes, unchanged (an
/// 8-bit Meta key's byte, text in another encoding). The answer comes as
/// [`Event::Answered`].
fn send_input(sender: &termloom::server::Sender, session: &Value, bytes: &[u8]) {
    let params = match std::str::from_utf8(bytes) {
        Ok(text) => json!({"session": session, "text": text}),
        Err(_) => json!({"session": session, "bytes": bytes}),
    };
    let _ = sender.send("termloom/input", params);
}

/// The newest frame the server sent that is not drawn yet. One that arrives before it is
/// drawn replaces it: a terminal slower than the session changes (a slow link, a stalled
/// one) is drawn the screen as it is once it takes more, not every frame it missed, and the
/// server's frames never queue behind it.
#[derive(Default)]
struct Pending(Mutex<Option<Value>>);

impl Pending {
    /// Keeps `frame` in place of any waiting; true when none was (the main loop is to be told).
    fn put(&self, frame: Value) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).replace(frame).is_none()
    }

    /// Takes the frame waiting, if any.
    fn take(&self) -> Option<Value> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Reads the server's messages: frames (kept in `pending`), and the end of the attachment.
fn spawn_reader(
    mut client: termloom::server::Client,
    attach_id: u64,
    pending: Arc<Pending>,
    events: Sender<Event>,
) {
    std::thread::spawn(move || {
        let end = loop {
            match client.next_reply() {
                Ok(Some(Reply::Notification { method, params })) if method == "termloom/frame" => {
                    if pending.put(params) && events.send(Event::Frame).is_err() {
                        return;
                    }
                }
                Ok(Some(Reply::Response { id, result })) if id == attach_id => {
                    break match result {
                        Ok(value) => Event::SessionEnded(
                            value["reason"].as_str().unwrap_or("ended").to_owned(),
                        ),
                        Err(message) => Event::End(message, true),
                    };
                }
                Ok(Some(Reply::Response { id, result })) => {
                    if events.send(Event::Answered(id, result.err())).is_err() {
                        return;
                    }
                }
                Ok(Some(_)) => {}
                Ok(None) => break Event::End("the server closed the connection".to_owned(), true),
                Err(err) => break Event::End(err.to_string(), true),
            }
        };
        let _ = events.send(end);
    });
}

/// Reads what the person types.
fn spawn_keyboard(events: Sender<Event>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin();
        let mut buffer = [0u8; 1024];
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => {
                    let _ = events.send(Event::End("the terminal closed".to_owned(), false));
                    return;
                }
                Ok(n) => {
                    let full = n == buffer.len();
                    if events.send(Event::Typed(buffer[..n].to_vec(), full)).is_err() {
                        return;
                    }
                }
            }
        }
    });
}

/// Whether this process's group is the foreground one of its terminal (standard input); `true`
/// when that cannot be told.
fn in_foreground() -> bool {
    match termios::tcgetpgrp(std::io::stdin().as_fd()) {
        Ok(group) => group == rustix::process::getpgrp(),
        Err(_) => true,
    }
}

/// The length of `bytes` without the unfinished UTF-8 character at its end, if any.
fn complete_len(bytes: &[u8]) -> usize {
    let mut start = 0;
    loop {
        match std::str::from_utf8(&bytes[start..]) {
            Ok(_) => return bytes.len(),
            Err(err) => match err.error_len() {
                None => return start + err.valid_up_to(),
                Some(invalid) => start += err.valid_up_to() + invalid,
            },
        }
    }
}

/// Whether standard error goes elsewhere than the terminal the session is drawn on (standard
/// output): a file, a pipe, another terminal, where a line draws nothing over the program.
fn stderr_elsewhere() -> bool {
    use rustix::fs::fstat;
    match (fstat(std::io::stdout()), fstat(std::io::stderr())) {
        (Ok(out), Ok(err)) => (out.st_dev, out.st_ino) != (err.st_dev, err.st_ino),
        _ => false,
    }
}
