//! `termloom attach ID [--takeover]`: a person watches a session live in their own terminal,
//! or takes it over. The server streams the session's screen (`termloom/frame`); this draws
//! the newest frame on the alternate screen (its rows that changed; frames a slow terminal
//! missed are skipped), clipped to the person's terminal, with a status line that says who
//! may type, how to leave (Ctrl-]) and the session's title.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use crossbeam_channel::Sender;
use rustix::termios::{self, OptionalActions, Termios};
use serde_json::{Value, json};
use termloom::server::Reply;
use unicode_width::UnicodeWidthChar;

use super::connect::Target;

/// Ctrl-], the key that detaches (and hands a session back).
const DETACH: u8 = 0x1d;

/// The help of `termloom attach`.
pub(super) const HELP: &str = "\
Usage: termloom attach ID [--takeover] [-L NAME | --socket PATH]

Shows session ID (an id or a name) live in this terminal. Read-only by
default: what you type is ignored (the status line says so once you type).
With --takeover you type into the session
and agents' input to it is refused (\"a person holds this session\") until you
hand it back; the status line of those who watch says \"a person holds it\"
meanwhile. Ctrl-] detaches (and hands back). Without -L or --socket, the
server is $TERMLOOM_SOCKET's if set. A session larger than this
terminal is clipped (to the rows around its cursor), and the status line says
so, and shows the session's title; resizing this terminal redraws it.

When the session ends, its last screen is left in this terminal. Exits 0
when you leave or the session ends; 1, with the reason on stderr, when
it cannot attach (an unknown session, one someone else holds), the server
goes away or the terminal cannot be written to; 2 for a bad command line;
128 + N when signal N (SIGTERM, SIGHUP, SIGINT, SIGQUIT) ends it, the
terminal restored first. Stopped (SIGTSTP), it gives the terminal back first,
and takes it again when continued (fg).
";

/// What the main loop reacts to.
enum Event {
    /// A frame to draw is waiting in [`Pending`].
    Frame,
    /// Bytes the person typed.
    Typed(Vec<u8>),
    /// The server answered request `id`.
    Answered(u64),
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

/// Runs `termloom attach`.
pub(super) fn main(args: Vec<String>) -> ExitCode {
    let usage = |message: &str| super::usage_error(message, "termloom attach --help");
    let mut target = Target::from_environment();
    let mut takeover = false;
    let mut session: Option<String> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match target.option(&arg, || args.next()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(message) => return usage(&message),
        }
        match arg.as_str() {
            "-h" | "--help" => return super::agent::print_out(HELP),
            "--takeover" => takeover = true,
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
            say!("termloom: {message}");
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
    spawn_keyboard(events.clone());
    spawn_signal_watcher(events);
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
    let mut person = Person { holds: takeover, typed: false };
    // The request handing a held session back, once the person asked to leave.
    let mut release: Option<u64> = None;
    // The start of a character the person typed whose end has not been read yet.
    let mut unfinished: Vec<u8> = Vec::new();
    // A terminal that cannot be written to ends the attachment: nobody sees it any more.
    let unwritable = |err: std::io::Error| format!("cannot write to the terminal ({err})");
    if let Err(err) = view.write(b"\x1b[?1049h\x1b[H\x1b[2J") {
        reason = unwritable(err);
        failed = true;
    }
    let mut received = received.iter();
    while !failed && let Some(event) = received.next() {
        match event {
            Event::Frame => {
                // Taken with an earlier event: drawn already.
                let Some(frame) = pending.take() else { continue };
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
                if let Some(frame) = &last {
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
                view.suspend();
                // Stopped here until continued; SIGCONT then takes the terminal again.
                let _ = signal_hook::low_level::raise(signal_hook::consts::SIGSTOP);
            }
            Event::Continued => {
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
            Event::Typed(_) if release.is_some() => {}
            Event::Typed(bytes) => {
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
                    // A character split between two reads (a long paste) is sent whole.
                    if detach.is_none() {
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
            Event::Answered(id) => {
                if release == Some(id) {
                    reason = "handed back".to_owned();
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
    if let Some(signal) = signalled {
        // The terminal may be gone (SIGHUP): a message that cannot be written is no failure.
        let _ = writeln!(std::io::stderr(), "termloom: left session {session}: signal {signal}");
        return ExitCode::from(128 + signal as u8);
    }
    if failed {
        // Once a frame was drawn, the attachment was made: it was lost, not refused.
        if last.is_some() {
            say!("termloom: lost session {session}: {reason}");
        } else {
            say!("termloom: cannot attach to session {session}: {reason}");
        }
        return ExitCode::FAILURE;
    }
    say!("termloom: left session {session}: {reason}");
    ExitCode::SUCCESS
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

fn send_input(sender: &termloom::server::Sender, session: &Value, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = sender.send("termloom/input", json!({"session": session, "text": text}));
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
                Ok(Some(Reply::Response { id, .. })) => {
                    if events.send(Event::Answered(id)).is_err() {
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
                    if events.send(Event::Typed(buffer[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });
}

/// The person's terminal while attached: in raw mode, and showing the alternate screen once
/// the caller entered it. Both are undone when it is left, or dropped unleft (a panic), so the
/// person never gets back a terminal that echoes nothing or still shows the session.
struct View {
    saved: Termios,
    out: std::io::Stdout,
    left: bool,
    /// The key modes the terminal was asked for (see [`KeyModes`]).
    modes: KeyModes,
}

impl View {
    /// Puts the terminal in raw mode.
    fn enter(saved: Termios) -> View {
        let mut raw = saved.clone();
        raw.make_raw();
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &raw);
        View { saved, out: std::io::stdout(), left: false, modes: KeyModes::default() }
    }

    /// The sequences that put the terminal in key modes `modes`, noted as its modes.
    fn switch_modes(&mut self, modes: KeyModes) -> String {
        std::mem::replace(&mut self.modes, modes).switch(modes)
    }

    /// Writes `bytes` to the terminal at once.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.out.flush()
    }

    /// Leaves the alternate screen, shows the cursor and `final_screen` (how the session
    /// ended), and restores the terminal's modes: a terminal that can no longer be written
    /// to still gets its modes back.
    fn leave(mut self, final_screen: Option<&str>) {
        let mut bytes = self.switch_modes(KeyModes::default()).into_bytes();
        bytes.extend_from_slice(LEAVE);
        bytes.extend_from_slice(final_screen.unwrap_or_default().as_bytes());
        let _ = self.write(&bytes);
        self.restore();
    }

    /// Gives the terminal back while the attachment is stopped: the primary screen, the
    /// cursor shown, the key modes and the terminal's modes as they were.
    fn suspend(&mut self) {
        let mut bytes = self.switch_modes(KeyModes::default()).into_bytes();
        bytes.extend_from_slice(LEAVE);
        let _ = self.write(&bytes);
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &self.saved);
    }

    /// Takes the terminal again after a stop (whether or not [`View::suspend`] gave it back:
    /// a SIGSTOP is not seen): raw mode again; returns the sequences that show the
    /// alternate screen, cleared, to write before the view is drawn again.
    fn resume(&mut self) -> String {
        let mut raw = self.saved.clone();
        raw.make_raw();
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &raw);
        // Whatever the key modes are now (the shell may have set or reset them), they are off
        // after this, and asked for again as the next frame wants them.
        let all = KeyModes { app_cursor: true, bracketed_paste: true };
        self.modes = KeyModes::default();
        all.switch(KeyModes::default()) + "\x1b[?1049h\x1b[H\x1b[2J"
    }

    /// Gives the terminal its modes back, once.
    fn restore(&mut self) {
        if !self.left {
            self.left = true;
            let stdin = std::io::stdin();
            let _ = termios::tcsetattr(stdin.as_fd(), OptionalActions::Now, &self.saved);
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        if !self.left {
            let mut bytes = self.switch_modes(KeyModes::default()).into_bytes();
            bytes.extend_from_slice(LEAVE);
            let _ = self.write(&bytes);
            self.restore();
        }
    }
}

/// Leaves the alternate screen and shows the cursor.
const LEAVE: &[u8] = b"\x1b[?1049l\x1b[?25h";

/// The modes of the person's terminal that decide the bytes their keys send, as the
/// session's program set them in its own terminal, while the person holds the session:
/// their arrows reach it in its cursor-key mode, and their pastes bracketed when it asked
/// (a shell then waits for Enter, where it ran each pasted line as it came). All off while
/// the person only watches, and once they leave.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct KeyModes {
    /// Application cursor keys (DECCKM, mode 1).
    app_cursor: bool,
    /// Bracketed paste (mode 2004).
    bracketed_paste: bool,
}

impl KeyModes {
    /// The modes `frame`'s program set.
    fn of(frame: &Value) -> KeyModes {
        let on = |mode: &str| frame["modes"][mode].as_bool() == Some(true);
        KeyModes { app_cursor: on("app_cursor"), bracketed_paste: on("bracketed_paste") }
    }

    /// The sequences that switch a terminal in modes `self` to modes `to`.
    fn switch(self, to: KeyModes) -> String {
        let set = |mode: u16, on: bool| format!("\x1b[?{mode}{}", if on { 'h' } else { 'l' });
        let mut out = String::new();
        if self.app_cursor != to.app_cursor {
            out.push_str(&set(1, to.app_cursor));
        }
        if self.bracketed_paste != to.bracketed_paste {
            out.push_str(&set(2004, to.bracketed_paste));
        }
        out
    }
}

/// The person's terminal size: columns and rows (80x24 when unknown).
fn terminal_size() -> (usize, usize) {
    match termios::tcgetwinsize(std::io::stdout().as_fd()) {
        Ok(size) if size.ws_col > 0 && size.ws_row > 0 => {
            (usize::from(size.ws_col), usize::from(size.ws_row))
        }
        _ => (80, 24),
    }
}

/// The person attached, as their status line describes them.
#[derive(Clone, Copy, Debug, Default)]
struct Person {
    /// They hold the session (`--takeover`): what they type reaches its program.
    holds: bool,
    /// They typed while they only watch: it was ignored.
    typed: bool,
}

/// What the person's terminal shows, kept from frame to frame: a frame rewrites only the
/// rows that changed (a clock ticking on a full screen is one row, not the screen).
#[derive(Default)]
struct Shown {
    /// The first of the session's rows shown (see [`first_row_shown`]).
    top: usize,
    /// The terminal's size when `rows` were drawn: at another, each is drawn again.
    size: (usize, usize),
    /// Each of the terminal's rows as drawn (the status line last), `None` once unknown.
    rows: Vec<Option<String>>,
}

impl Shown {
    /// Forgets what the rows show (the terminal was cleared): the next frame draws each.
    fn forget(&mut self) {
        self.rows.clear();
    }

    /// Adds to `out` what draws `drawing` on the terminal's row `row` (from 0), unless the
    /// row shows it already.
    fn draw_row(&mut self, out: &mut String, row: usize, drawing: String) {
        if self.rows.len() <= row {
            self.rows.resize(row + 1, None);
        }
        if self.rows[row].as_ref() != Some(&drawing) {
            out.push_str(&format!("\x1b[{};1H{drawing}", row + 1));
            self.rows[row] = Some(drawing);
        }
    }
}

/// The escape sequences that draw `frame`, clipped to the terminal, and the status line, on
/// a terminal that shows `shown`: the rows that changed.
fn draw(frame: &Value, person: Person, shown: &mut Shown) -> String {
    let takeover = person.holds;
    let (cols, rows) = terminal_size();
    if shown.size != (cols, rows) {
        shown.size = (cols, rows);
        shown.forget();
    }
    let view_rows = rows - 1;
    let lines: Vec<&str> = frame["lines"]
        .as_array()
        .map(|lines| lines.iter().map(|l| l.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    let (session_cols, session_rows) = (
        frame["cols"].as_u64().unwrap_or(0) as usize,
        frame["rows"].as_u64().unwrap_or(0) as usize,
    );
    let cursor = frame["cursor"]
        .as_array()
        .and_then(|c| Some([c.first()?.as_u64()? as usize, c.get(1)?.as_u64()? as usize]));
    shown.top = first_row_shown(cursor.map(|[row, _]| row), shown.top, session_rows, view_rows);
    let top = shown.top;
    let styles = frame_styles(frame);
    let mut out = String::from("\x1b[?25l");
    for row in 0..view_rows {
        let line = lines.get(top + row).copied().unwrap_or_default();
        let runs: Vec<&Run> = styles.iter().filter(|run| run.row == top + row).collect();
        let mut drawing = String::new();
        // Not after a row as wide as the terminal: the cursor waits to wrap on its last
        // column, which xterm's erase would blank.
        if draw_row(&mut drawing, line, &runs, cols) < cols {
            drawing.push_str("\x1b[K");
        }
        shown.draw_row(&mut out, row, drawing);
    }
    // The way out first, then who may type and the clipping: what a narrow terminal cuts
    // (and a terminal narrower than the session is narrow) is the least needed.
    let mut status = format!(
        " {} · {}{}",
        if takeover { "Ctrl-] hands back" } else { "Ctrl-] detaches" },
        if takeover {
            "you hold it, agents are refused"
        } else if frame["held_by_other"].as_bool() == Some(true) {
            // What is typed now is a person's, not an agent's.
            "read-only, a person holds it"
        } else {
            "read-only"
        },
        if person.typed { ": what you type is ignored" } else { "" },
    );
    if session_cols > cols || session_rows > view_rows {
        status.push_str(&format!(" · clipped from {session_cols}x{session_rows}"));
    }
    if top > 0 {
        status.push_str(&format!(", rows {top}-{}", top + view_rows - 1));
    }
    status.push_str(&format!(" · termloom · session {}", frame["session"]));
    // The program's title (a shell's directory, the file an editor has open), as tmux shows
    // a pane's: on the status line, not the person's own title, which stays theirs.
    let title = frame["title"].as_str().unwrap_or_default();
    // Text only: a frame cannot make the person's terminal do anything but colour.
    let title: String = title.chars().filter(|c| !c.is_control()).collect();
    if !title.trim().is_empty() {
        status.push_str(&format!(" · {title}"));
    }
    let status = clip(&status, cols);
    let pad = cols.saturating_sub(width(status));
    shown.draw_row(&mut out, view_rows, format!("\x1b[7m{status}{}\x1b[0m", " ".repeat(pad)));
    if let Some([row, col]) = cursor
        && let Some(row) = row.checked_sub(top).filter(|row| *row < view_rows)
        && col < cols
    {
        out.push_str(&format!("\x1b[{};{}H\x1b[?25h", row + 1, col + 1));
    }
    out
}

/// A run of cells of one style in a frame: its row, first column, width, and the parameters
/// of the SGR sequence that draws it.
struct Run {
    row: usize,
    col: usize,
    width: usize,
    sgr: String,
}

/// The styled runs of `frame` (`[row, col, width, sgr]` each), left to right on each row.
fn frame_styles(frame: &Value) -> Vec<Run> {
    let run = |value: &Value| {
        let number = |at: usize| value.get(at)?.as_u64().map(|n| n as usize);
        let sgr = value.get(3)?.as_str()?;
        // Parameters only: a frame cannot make the person's terminal do anything but colour.
        let sgr = sgr.bytes().all(|b| b.is_ascii_digit() || b == b';').then(|| sgr.to_owned())?;
        Some(Run { row: number(0)?, col: number(1)?, width: number(2)?, sgr })
    };
    frame["styles"].as_array().map(|runs| runs.iter().filter_map(run).collect()).unwrap_or_default()
}

/// Draws `line` into `out` in the colours of its `runs` (a run past the text's end colours
/// blanks: a bar, a selection), clipped to `cols` cells; returns the cells drawn.
fn draw_row(out: &mut String, line: &str, runs: &[&Run], cols: usize) -> usize {
    let styled_end = runs.iter().map(|run| run.col.saturating_add(run.width)).max().unwrap_or(0);
    let padding = styled_end.saturating_sub(width(line));
    let mut col = 0;
    // The run being drawn, by its first column.
    let mut active: Option<usize> = None;
    for c in line.chars().chain(std::iter::repeat_n(' ', padding)) {
        let cells = c.width().unwrap_or(0);
        if col + cells > cols {
            break;
        }
        // A combining mark takes the style of the character it is drawn on.
        if cells > 0 {
            let run =
                runs.iter().find(|run| (run.col..run.col.saturating_add(run.width)).contains(&col));
            if run.map(|run| run.col) != active {
                out.push_str("\x1b[0m");
                if let Some(run) = run {
                    out.push_str(&format!("\x1b[{}m", run.sgr));
                }
                active = run.map(|run| run.col);
            }
        }
        out.push(c);
        col += cells;
    }
    if active.is_some() {
        out.push_str("\x1b[0m");
    }
    col
}

/// The first of a session's `rows` shown in a view of `view_rows`: 0, unless the cursor (at
/// row `cursor`) would be below the view, which then ends at the cursor's row, as tmux shows
/// a window larger than its client. While the cursor is hidden, the view stays at `top`.
fn first_row_shown(cursor: Option<usize>, top: usize, rows: usize, view_rows: usize) -> usize {
    let last_top = rows.saturating_sub(view_rows);
    cursor.map_or(top, |row| (row + 1).saturating_sub(view_rows)).min(last_top)
}

/// The rows of `frame` without the blank ones at its end, clipped to the terminal, as lines
/// to print on the person's screen.
fn final_text(frame: &Value) -> String {
    let (cols, _) = terminal_size();
    let mut lines: Vec<&str> = frame["lines"]
        .as_array()
        .map(|lines| lines.iter().map(|l| clip(l.as_str().unwrap_or_default(), cols)).collect())
        .unwrap_or_default();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.iter().map(|line| format!("{line}\r\n")).collect()
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

/// The display width of `text`.
fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// The longest start of `text` at most `cols` cells wide.
fn clip(text: &str, cols: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.width().unwrap_or(0);
        if used > cols {
            return &text[..at];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_follows_the_cursor_down() {
        assert_eq!(first_row_shown(Some(5), 9, 32, 23), 0);
        assert_eq!(first_row_shown(Some(22), 0, 32, 23), 0);
        assert_eq!(first_row_shown(Some(23), 0, 32, 23), 1);
        assert_eq!(first_row_shown(Some(31), 0, 32, 23), 9);
        assert_eq!(first_row_shown(Some(40), 0, 32, 23), 9, "never past the last row");
        assert_eq!(first_row_shown(None, 0, 32, 23), 0);
        assert_eq!(first_row_shown(None, 9, 32, 23), 9, "a hidden cursor keeps the view");
        assert_eq!(first_row_shown(None, 9, 32, 40), 0, "a taller terminal shows all");
        assert_eq!(first_row_shown(Some(3), 0, 4, 23), 0);
    }

    /// A row as wide as the terminal is not followed by an erase: with the cursor waiting to
    /// wrap on the last column, xterm erased that column's character.
    #[test]
    fn a_row_as_wide_as_the_terminal_is_not_erased_after() {
        let (cols, _) = terminal_size();
        let full = "x".repeat(cols);
        let frame =
            serde_json::json!({"lines": [full, "short"], "cols": cols, "rows": 2, "session": 1});
        let drawn = draw(&frame, Person::default(), &mut Shown::default());
        assert!(drawn.contains(&format!("{full}\x1b[2;1H")), "{drawn:?}");
        assert!(drawn.contains("short\x1b[K"), "{drawn:?}");
    }

    /// The session's colours are drawn, blanks a run covers past the text too, and clipped
    /// with the text; a row without a style has no escape sequence in it.
    #[test]
    fn rows_are_drawn_in_their_colours() {
        let run = |col, width, sgr: &str| Run { row: 0, col, width, sgr: sgr.to_owned() };
        let (red, bar) = (run(0, 2, "1;31"), run(3, 5, "7"));
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "ab cd", &[&red, &bar], 80), 8);
        assert_eq!(out, "\x1b[0m\x1b[1;31mab\x1b[0m \x1b[0m\x1b[7mcd   \x1b[0m");
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "ab cd", &[&red, &bar], 4), 4);
        assert_eq!(out, "\x1b[0m\x1b[1;31mab\x1b[0m \x1b[0m\x1b[7mc\x1b[0m");
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "日本", &[], 80), 4);
        assert_eq!(out, "日本");
        let frame = serde_json::json!({"styles": [[0, 1, 2, "31"], [1, 0, 1, "31m\x1b]0;x"]]});
        let styles = frame_styles(&frame);
        assert_eq!(styles.len(), 1, "a run that is not parameters only is not drawn");
        // A run whose numbers overflow (a frame no server sends) is drawn to the row's end.
        let endless = run(1, usize::MAX, "7");
        let mut out = String::new();
        assert_eq!(draw_row(&mut out, "ab", &[&endless], 4), 4);
        assert_eq!(out, "a\x1b[0m\x1b[7mb  \x1b[0m");
    }

    /// The person's terminal follows the program's key modes, and only when they change.
    #[test]
    fn key_modes_are_switched_when_they_change() {
        let frame = serde_json::json!({"modes": {"app_cursor": true, "bracketed_paste": false}});
        let cursor_keys = KeyModes::of(&frame);
        assert_eq!(cursor_keys, KeyModes { app_cursor: true, bracketed_paste: false });
        assert_eq!(KeyModes::default().switch(cursor_keys), "\x1b[?1h");
        assert_eq!(cursor_keys.switch(cursor_keys), "");
        let both = KeyModes { app_cursor: true, bracketed_paste: true };
        assert_eq!(cursor_keys.switch(both), "\x1b[?2004h");
        assert_eq!(both.switch(KeyModes::default()), "\x1b[?1l\x1b[?2004l");
        assert_eq!(KeyModes::of(&serde_json::json!({})), KeyModes::default());
    }

    #[test]
    fn clipping_counts_cells() {
        assert_eq!(clip("hello", 3), "hel");
        assert_eq!(clip("日本語", 5), "日本");
        assert_eq!(clip("ab", 10), "ab");
    }
}
