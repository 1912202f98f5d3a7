//! The tools that start a session, type into it, click in it and read it: `terminal_start`,
//! `terminal_send`, `terminal_mouse` and `terminal_read`.

use std::sync::Arc;

use crate::{
    MouseButton, MouseReporting, Screen, ScriptItem, ScrollDirection, Session, Signal, SpawnSpec,
    parse_key_script,
};

use super::args::Args;
use super::catalog::MOUSE_ACTIONS;
use super::lookup;
use super::offered::has as offers;
use super::view::{Typed, show, view_args};
use super::waits::{self, DefaultWait};
use super::{Call, SessionInput, ToolError, ToolOutput};
use crate::mcp::prompt_owner::PromptOwner;
use crate::mcp::url_secret::Asking;
use crate::reactor::Typing;

/// `terminal_start`.
pub(crate) fn start(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let spec = spawn_spec(args, call.engine.config())?;
    let view = view_args(args)?;
    // A shell with integration is ready when its prompt is drawn: before that, its startup
    // files may be between reads of the terminal.
    let default = if spec.shell_integration { DefaultWait::Prompt } else { DefaultWait::Settle };
    let plan = waits::plan(args, default, call.engine.config())?;
    // A wait that cannot hold on the screen asked for is refused while nothing has started.
    let config = call.engine.config();
    let (cols, rows) = spec.size.unwrap_or((config.cols, config.rows));
    if let Some(why) = plan.as_ref().and_then(|plan| waits::refusal_before_start(plan, cols, rows))
    {
        return Err(ToolError::invalid_input(format!("{why}; nothing was started")));
    }
    let claim = match args.str("name") {
        Some(name) => Some(call.caller.names.claim(name, call.engine)?),
        None => None,
    };
    let spec = if args.bool("record") == Some(true) { spec.record_in_dir() } else { spec };
    let session = call.spawn(spec)?;
    if let Some(claim) = claim {
        claim.bind(session.id());
    }
    let shown = (|| {
        let report = plan.as_ref().map(|plan| waits::run_started(call, &session, plan));
        let report = report.transpose()?;
        if call.cancel.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        // (A wait refused once the program ran is said under the header: the session is
        // started whatever its wait.)
        let mut output = show(call, &session, view, report.as_ref(), true)?;
        output.started = Some(session.id());
        if let Some(path) = session.info().ok().and_then(|info| info.recording) {
            output.text.push_str(&format!("[recording to {}]\n", path.display()));
            output.structured["recording"] = serde_json::json!(path);
        }
        Ok(output)
    })();
    if shown.is_err() {
        // Cancelled, or failed after the start: nobody will learn this session's id, so it
        // is not left behind, and neither is its name: it names no session any caller knows,
        // and is free for the next start.
        super::abandon_session(call.engine, call.caller, session.id());
    }
    shown
}

/// What to run, from `command`, `argv`, `cwd`, `env`, `cols`, `rows`, `shell_integration`.
fn spawn_spec(args: &Args, config: &crate::Config) -> Result<SpawnSpec, ToolError> {
    let command = args.str("command");
    let argv = args.strings("argv");
    let integration = args.bool("shell_integration");
    let mut spec = match (command, argv) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid_input(
                "terminal_start takes `command` (a shell command line) or `argv` (a program and its arguments), not both",
            ));
        }
        (Some(line), None) => {
            if line.trim().is_empty() {
                return Err(ToolError::invalid_input("terminal_start: `command` is empty"));
            }
            if integration == Some(true) {
                let tools: Vec<&str> = ["terminal_run", "terminal_send"]
                    .into_iter()
                    .filter(|tool| offers(tool))
                    .collect();
                let then = match tools.is_empty() {
                    true => String::new(),
                    false => format!(", then run commands in it with {}", tools.join(" or ")),
                };
                return Err(ToolError::invalid_input(format!(
                    "terminal_start: shell_integration needs an interactive shell, not a command line run by one: omit `command` (the default shell), or give the shell as argv=[\"zsh\"] (bash or zsh){then}"
                )));
            }
            SpawnSpec::shell(line)
        }
        (None, Some(argv)) => {
            let Some((program, rest)) = argv.split_first() else {
                return Err(ToolError::invalid_input(
                    "terminal_start: `argv` must name a program, e.g. [\"python3\", \"-q\"]",
                ));
            };
            SpawnSpec::new(program).args(rest).shell_integration(integration.unwrap_or(false))
        }
        (None, None) => {
            SpawnSpec::interactive_shell().shell_integration(integration.unwrap_or(true))
        }
    };
    spec = place(spec, args.str("cwd"), args.env());
    let cols = args.uint("cols");
    let rows = args.uint("rows");
    if cols.is_some() || rows.is_some() {
        let cols = cols.map_or(config.cols, |c| c as u16);
        let rows = rows.map_or(config.rows, |r| r as u16);
        spec = spec.size(cols, rows);
    }
    Ok(spec)
}

/// `spec` with the working directory and environment overlay of a call (`cwd`, `env`).
pub(crate) fn place(
    mut spec: SpawnSpec,
    cwd: Option<&str>,
    env: &[(String, Option<String>)],
) -> SpawnSpec {
    if let Some(cwd) = cwd {
        spec = spec.cwd(cwd);
    }
    for (name, value) in env {
        spec = match value {
            Some(value) => spec.env(name, value),
            None => spec.env_remove(name),
        };
    }
    spec
}

/// The echo of the line a `terminal_send` call submits (its `text`, then its `keys`, then
/// Enter when it `submit`s), when it is plain text (see `script_echo`); a paste's is not told.
fn submitted_echo(
    text: Option<&str>,
    keys: Option<&[ScriptItem]>,
    paste: Option<&str>,
    submit: bool,
) -> Option<String> {
    if paste.is_some() {
        return None;
    }
    let mut items = Vec::new();
    if let Some(text) = text {
        items.push(ScriptItem::Text(String::from_utf8(crate::decode_escapes(text)).ok()?));
    }
    items.extend(keys.unwrap_or_default().iter().cloned());
    if submit {
        let enter = crate::input::keys::Key {
            code: crate::input::keys::KeyCode::Enter,
            mods: crate::input::keys::Modifiers::NONE,
        };
        items.push(ScriptItem::Key(enter));
    }
    crate::input::keys::script_echo(&items)
}

/// `terminal_send`.
pub(crate) fn send(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = call.session_id(args)?;
    let text = args.str("text");
    let paste = args.str("paste");
    let keys = args.str("keys");
    let submit = args.bool("submit").unwrap_or(false);
    if args.bool("secret") == Some(true) {
        if text.is_some() || paste.is_some() || keys.is_some() || submit {
            return Err(ToolError::invalid_input(
                "terminal_send: `secret` is sent alone (the person types it and Enter is pressed); leave out text, keys, paste and submit",
            ));
        }
        // Claimed before the session's turn, held until the secret is typed or the call ends:
        // a second secret call (this caller's, behind this one's question, or another's) is
        // refused at once, and nothing else is typed as a secret, while a person is asked.
        // Refused so as queued while this call waits for its turn behind the caller's earlier
        // call on the session (a long wait): no one is asked then, and none is said to be.
        let claim = call.session(id)?.claim_secret()?;
        let turn = call.caller.turns.of(id);
        let _turn = turn.lock.lock().unwrap_or_else(|e| e.into_inner());
        claim.asking()?;
        return send_secret(call, args, id, claim);
    }
    if text.is_none() && paste.is_none() && keys.is_none() && !submit {
        return Err(ToolError::invalid_input(format!(
            "terminal_send needs something to send: `text`, `keys`, `paste` or submit=true{}",
            if offers("terminal_read") {
                " (to read without typing, use terminal_read)"
            } else {
                ""
            }
        )));
    }
    // Checked before anything is sent, so a bad script sends nothing.
    if let Some(keys) = keys
        && let Some(bracketed) = crate::input::keys::bracketed_key_names(keys)
    {
        let quoted = crate::error::quoted;
        return Err(ToolError::invalid_input(format!(
            "terminal_send: keys={} would type its letters, not press {}: key names go in angle brackets, keys={} (to type the letters, give text={})",
            quoted(keys),
            if keys.split_whitespace().count() == 1 { "the key" } else { "the keys" },
            quoted(&bracketed),
            quoted(keys),
        )));
    }
    let script = keys.map(parse_key_script).transpose().map_err(crate::Error::from)?;
    // One key alone (a Ctrl-C, an Escape) cannot interleave with another call's input, so it
    // does not wait for the input lock: it never waits behind another call's paste.
    let one_key = text.is_none()
        && paste.is_none()
        && !submit
        && matches!(script.as_deref(), Some([ScriptItem::Key(_)]));
    let mut view = view_args(args)?;
    let mut plan = waits::plan(args, DefaultWait::Settle, call.engine.config())?;
    let session = call.session(id)?;
    if let Some(plan) = &plan {
        waits::check(plan, &session)?;
    }
    // Ctrl-C, Ctrl-\ or Ctrl-Z alone signals the shell: it waits as terminal_signal does.
    let signals = one_key && script.as_deref().is_some_and(crate::input::keys::script_signals);
    // The session's turn is this call's from now on (a signal interrupts the call whose it is).
    let turn = call.caller.turns.of(id);
    let _turn = (!signals).then(|| turn.lock.lock().unwrap_or_else(|e| e.into_inner()));
    if signals {
        session.until_shell_reads()?;
    }
    let (held_paste, full_screen) = {
        let input = call.caller.input.of(id);
        let _typing = (!one_key).then(|| input.lock.lock().unwrap_or_else(|e| e.into_inner()));
        // A call cancelled before it typed (while another call's paste held the input) types
        // nothing, and so interrupts nothing.
        if call.cancel.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        let typed = input.typing();
        // A paste ending in a line break, to a program that asked for bracketed pastes: its
        // line editor holds the block, breaks and all, as text on its edit line; nothing runs
        // it but an Enter after it (as in a terminal). Said in the result, since the model
        // meant to run it, but not to a full-screen program (on the alternate screen: an
        // editor, vim's insert mode or emacs), which has no line to run and takes the block
        // as text: an Enter would add a line break to it (see `held_paste_note`). To any other
        // program, its last line break is Enter: the paste is a submitted line.
        let screen = paste.map(|_| session.screen()).transpose()?;
        let full_screen = screen.as_ref().is_some_and(|screen| screen.alternate);
        // Whether the paste went out bracketed, as the paste request found it (bash turns
        // bracketed pastes off while a command runs and on at its prompt: a reading before
        // typing could say off for a paste sent bracketed as the command ends).
        let mut bracketed = false;
        // A submitted line's echo (`echo done` typed at a prompt) is no answer to it: text
        // conditions search after the line it is typed on, taken by the request of the first
        // piece this call types (once this call has the input: a call queued behind another's
        // paste would take a line the paste moved on from), from its own reading, with no
        // request before it. Output still unread then (a flood) puts the terminal's echo
        // further on: the wait follows it there (`TypedLine::anchor`), and the result's
        // unread echo is where the wait found it.
        // Whether what the call types last submits one is the engine's rule, from the modes
        // of the terminal and its keys, answered by the send of that last piece from its own
        // reading (a question asked before typing read modes the program could change before
        // the send).
        let mut line = Taken::default();
        // Whether the last piece sent submitted a line (a piece that types nothing, such as
        // `paste: ""` or `keys: ""`, leaves the verdict of the piece before it).
        let mut submits = false;
        // Text and the Enter that submits it go in one write when nothing comes between
        // them, as a terminal multiplexer's `send-keys TEXT Enter` does: an Enter written a
        // millisecond after the text can reach a line editor that leaves raw mode while it
        // handles each key (irb's reline 0.3) in the terminal's line mode, whose echo of it
        // moved the cursor down a row and the prompt was drawn twice.
        let bytes = text.map_or_else(Vec::new, |text| {
            crate::input::line_breaks::enter_for_line_breaks(&crate::decode_escapes(text))
        });
        // Text ending in Escapes (`hello\e`, `x\e\e`): the bytes before them first, read
        // before the first Escape is typed, then each Escape alone, as keys before an Escape
        // and an Escape after another are (`text_typing_steps`).
        let ends_in_escape = bytes.last() == Some(&0x1b);
        let mut pieces: Vec<(Vec<u8>, Option<std::time::Duration>)> =
            crate::input::keys::text_typing_steps(&bytes)
                .into_iter()
                .map(|(piece, bound)| (piece.to_vec(), bound))
                .collect();
        let enter_with_text = submit && paste.is_none() && script.is_none() && !ends_in_escape;
        if enter_with_text {
            match pieces.last_mut() {
                Some((piece, _)) => piece.push(b'\r'),
                None => pieces.push((b"\r".to_vec(), None)),
            }
        }
        // The waits between the pieces this call types take at most its timeout in all.
        let timeout = args.uint("timeout_ms").map(std::time::Duration::from_millis);
        let typing = std::time::Instant::now();
        let deadline = typing + timeout.unwrap_or(call.engine.config().default_wait_timeout);
        // The program ended while the call typed: the rest is not typed.
        let mut ended = false;
        for (at, (piece, _)) in pieces.iter().enumerate() {
            if let Some((_, bound)) = at.checked_sub(1).map(|before| &pieces[before]) {
                let done = "the text before its last Escapes was typed, the rest not";
                ended = await_text_read(call, &session, deadline, *bound, done, piece)?;
                if ended {
                    break;
                }
            }
            submits = line.send(&session, Typing::Bytes(piece.clone()))?;
        }
        // The text's last Escape (text that is only Escapes too) is read alone before what the
        // call types after it (with it, an Alt chord or a key code's start: fish took `\e\r`
        // for Alt-Enter): once the program waits for input, or half a second on (one that
        // never waits for input, or is busy, gets the rest then, as it got the Escape's
        // text); at once while the terminal reads whole lines, where it goes with its line.
        // Keys right after it wait in `press_keys`, which knows whether they begin with an
        // Escape.
        if ends_in_escape && !ended && (paste.is_some() || (script.is_none() && submit)) {
            let done = "the text was typed, the rest not";
            let bound = pieces.last().and_then(|(_, bound)| *bound);
            let next: &[u8] = if paste.is_some() { b"" } else { b"\r" };
            ended = await_text_read(call, &session, deadline, bound, done, next)?;
        }
        if let Some(paste) = paste.filter(|_| !ended) {
            // Bounded by the call's timeout and ended by its cancellation, so a program that
            // stopped reading cannot hold the session's input (and this call) forever.
            let timeout = args.uint("timeout_ms").map(std::time::Duration::from_millis);
            let (pending, verdict) = session.start_paste_submitting(paste, timeout, None)?;
            let canceller = pending.canceller();
            call.cancel.on_stop(move || canceller.cancel());
            pending.finish()?;
            if let Some(verdict) = verdict {
                submits = verdict.submits;
                bracketed = verdict.bracketed && paste.ends_with(['\n', '\r']);
                line.take(verdict.line);
            }
        }
        // (Keys cut short, by the program's exit, type no Enter after them.)
        let all_keys = match script.as_deref() {
            _ if ended => false,
            Some(items) => {
                // What the call typed before its keys, for a refusal between them to name.
                let earlier = match (
                    text.is_some_and(|t| !t.is_empty()),
                    paste.is_some_and(|p| !p.is_empty()),
                ) {
                    (true, true) => Some("the text and the paste"),
                    (true, false) => Some("the text"),
                    (false, true) => Some("the paste"),
                    (false, false) => None,
                };
                // (The text's last Escape, when nothing came between it and the keys.)
                let after_escape = ends_in_escape && paste.is_none();
                let typed = (deadline, earlier.map(|earlier| (earlier, after_escape)));
                let (all, pressed) = press_keys(call, &session, items, typed, submit, &mut line)?;
                submits = pressed.unwrap_or(submits);
                all
            }
            None => true,
        };
        if let Some(plan) = plan.as_mut() {
            plan.spend(typing.elapsed());
        }
        if submit && all_keys {
            if !enter_with_text {
                submits = line.send(&session, Typing::Bytes(b"\r".to_vec()))?;
            }
            // Once the line is submitted: a cancellation that came while it was typed
            // interrupts it now, after its Enter.
            interrupt_on_cancel(call, &session, &input, typed);
        }
        // The echo of the line it submits, for the view and for the wait's typed line.
        let echo =
            submits.then(|| submitted_echo(text, script.as_deref(), paste, submit)).flatten();
        view.typed = match submits {
            true => echo.clone().map_or(Typed::Nothing, Typed::Submitted),
            // (Its echo as if submitted: the characters typed, when they are plain text. A
            // paste adds as it comes, unless keys after it may edit.)
            false => match (paste, submitted_echo(text, script.as_deref(), None, true)) {
                (Some(_), _) if keys.is_none() => Typed::Nothing,
                (None, Some(echo)) => Typed::Plain(echo),
                _ => Typed::Keys,
            },
        };
        let held_paste = !submits && bracketed;
        // The line the submitted line was typed on: its echo is no answer to it, and the
        // result leaves it out if it is read only in a later call (see `UnreadEchoes`).
        let typed_line = line.line.filter(|_| submits);
        view.echo_at = typed_line
            .as_ref()
            .filter(|line| line.echoed)
            .map(|line| (line.number, line.before.len()));
        if let Some(plan) = plan.as_mut() {
            plan.typed_line = typed_line.map(|mut line| {
                line.echo = echo;
                line
            });
        }
        (held_paste, full_screen)
    };
    let report = match &plan {
        Some(plan) => Some(waits::run_after(call, &session, plan, "the input was typed")?),
        None => None,
    };
    // (Where the wait found the echo, further on than the line typed on after a flood.)
    if let Some(at) = report.as_ref().and_then(|report| report.echo_at) {
        view.echo_at = Some(at);
    }
    let mut output = show(call, &session, view, report.as_ref(), false)?;
    if let Some(note) = keys.and_then(|keys| typed_key_name_note(keys, submit)) {
        super::render::push_block(&mut output.text, &note);
    }
    if held_paste {
        let status = session.status()?;
        if status.activity == crate::Activity::WaitingForInput
            && let Some(note) = held_paste_note(full_screen, status.foreground.as_ref())
        {
            super::render::push_block(&mut output.text, &note);
        }
    }
    Ok(output)
}

/// What the result says of `keys` ending in a key name written out after text (`make Enter`,
/// see [`key_name_typed_at_end`](crate::key_name_typed_at_end)), typed as its letters: how a
/// script writes the key. Not for `Enter` (nor `C-m`, `C-j`) with `submit`, which pressed
/// Enter after it (the key told would be pressed twice); any other key (`C-c`, `Tab`) is still told, and the
/// script writing it submits after it. The one place of the note's words and of that
/// exception: the command line puts this line in its terms.
pub(crate) fn typed_key_name_note(keys: &str, submit: bool) -> Option<String> {
    let (word, key) = crate::key_name_typed_at_end(keys)?;
    if submit && word.parse::<crate::Key>().is_ok_and(ends_a_line) {
        return None;
    }
    Some(format!("[keys typed its last word, {word}, as text; {key} presses the key]"))
}

/// Whether `key` ends a line as `submit`'s Enter does: Enter, and Ctrl-M and Ctrl-J, which
/// type the same carriage return and line feed (`echo hi C-m` with `submit`, told `<C-m>`,
/// submitted twice).
fn ends_a_line(key: crate::Key) -> bool {
    use crate::KeyCode::{Char, Enter};
    let ctrl = crate::Modifiers { ctrl: true, ..crate::Modifiers::NONE };
    match key.code {
        Enter => key.mods == crate::Modifiers::NONE,
        Char('m' | 'j') => key.mods == ctrl,
        _ => false,
    }
}

/// What the result says of a paste ending in a line break that the program took as one block
/// (bracketed paste) and waits for input after, `full_screen` when the session was on the
/// alternate screen, `foreground` the program that reads: a line editor (a shell, a REPL)
/// holds it on its edit line, to be run with `submit=true`; a full-screen editor (vim's
/// insert mode, emacs) took it as text, and is told nothing, as an Enter would add a line
/// break. The alternate screen is the program's own unless a multiplexer hosts it
/// (`foreground.within`: tmux, GNU screen), whose screen it always is: the program in its pane
/// is not seen, and the note says what each kind of program made of the paste.
fn held_paste_note(full_screen: bool, foreground: Option<&crate::Process>) -> Option<String> {
    let hosted = foreground.and_then(|program| Some((&program.name, program.within.as_ref()?)));
    match (full_screen, hosted) {
        (false, _) => Some(
            "[the program took the paste as one block (bracketed paste): its line breaks are text on its edit line, not Enter; send submit=true to run it]"
                .to_owned(),
        ),
        (true, Some((name, relay))) => Some(format!(
            "[{name} in {relay} took the paste as one block (bracketed paste): a line editor (a shell, a REPL) holds its line breaks as text on its edit line, not Enter, and submit=true runs it; a full-screen editor took it as text]"
        )),
        (true, None) => None,
    }
}

/// Types key script `items` as a person presses them: the keys after a plain Tab or an
/// Escape once the program has read it and waits for input again (an Escape also once it
/// read it and went on, [`escape_read`](crate::input::keys::escape_read): a program that
/// never waits for input; or the default wait ends otherwise; an Escape after an Escape after at most
/// [`BETWEEN_ESCAPES`](crate::input::keys::BETWEEN_ESCAPES), as a person's second press), and
/// an Escape once the program has read the keys before it (or after
/// [`READ_BEFORE_AN_ESCAPE`](crate::input::keys::READ_BEFORE_AN_ESCAPE)), as
/// [`typing_parts`](crate::input::keys::typing_parts) cuts them under the terminal's modes
/// as the call begins to type its keys (an Escape the kitty keyboard protocol sends as a
/// sequence, `CSI 27 u`, is typed with the keys around it). node's REPL takes a Tab read
/// together with more keys for pasted text: `<Tab><Tab>` inserted two tab characters instead
/// of completing. An Escape read together with the next keys is a key code or an Alt chord
/// with them: vim took `<Esc>Otwo` for the keypad's 4 (`ESC O t`) then `wo`; read together
/// with the keys before it, nano held them all, undrawn, as a Meta key's start (keys that
/// begin with an Escape after the call's text or paste wait for those to be read too). The
/// waits between them end by `deadline` (the call's timeout, else the default wait's, from
/// its first piece typed); a program still busy then gets the rest as they are, to read when
/// it can (typed ahead, not lost). Whether every key was sent: keys left when the program
/// exits or the session closes are not; a call cancelled meanwhile ends with the keys typed
/// so far, never pressing Enter after a line cut short. And whether the last part sent
/// submitted a line, by its send's own reading of the terminal's modes (`None` when there
/// were no keys, and nothing was sent). `line` takes the line the first part was typed on
/// when the call typed nothing before the keys; `earlier` names what it typed before them
/// (its text, its paste), for a wait between parts refused to say, and whether that ended
/// with the text's last Escape, which the keys wait for as what follows text's Escape does.
fn press_keys(
    call: &Call,
    session: &Session,
    items: &[ScriptItem],
    (deadline, earlier): (std::time::Instant, Option<(&str, bool)>),
    then_enter: bool,
    line: &mut Taken,
) -> Result<(bool, Option<bool>), ToolError> {
    let (earlier, after_escape) = earlier.unzip();
    let modes = session.screen()?.modes;
    let done = match earlier {
        Some(earlier) => format!(
            "{earlier} and the keys up to a Tab or an Escape (or before an Escape) were typed, the rest of the keys not"
        ),
        None => "the keys up to a Tab or an Escape (or before an Escape) were typed, the rest not"
            .to_owned(),
    };
    // Keys that begin with an Escape after the call's text or paste, or any keys after text
    // that ended in an Escape: what came before is read first, as keys before an Escape are
    // (an Escape after the text's Escape within `BETWEEN_ESCAPES`, as keys' second Escape).
    let escape_first = items.first().is_some_and(|item| match item {
        ScriptItem::Key(key) => key.read_after_the_keys_before(&modes),
        ScriptItem::Text(_) => false,
    });
    // (After the text's Escape, the keys wait for it to be read half a second at most, as
    // what the call types after it does, and not at all while the terminal reads whole
    // lines: `text_typing_steps`.)
    let bound = match (after_escape == Some(true), escape_first) {
        (true, true) => Some(crate::input::keys::BETWEEN_ESCAPES),
        (true, false) | (false, true) => Some(crate::input::keys::READ_BEFORE_AN_ESCAPE),
        (false, false) => None,
    };
    if let Some((earlier, bound)) = earlier.zip(bound) {
        let done = format!("{earlier} was typed, the keys not");
        let ended = match after_escape == Some(true) {
            true => {
                let next = match items.first() {
                    Some(ScriptItem::Key(key)) => key.encode(&modes),
                    Some(ScriptItem::Text(text)) => text.as_bytes().to_vec(),
                    None => Vec::new(),
                };
                await_text_read(call, session, deadline, Some(bound), &done, &next)?
            }
            false => await_read(call, session, deadline, Some(bound), None, &done)?,
        };
        if ended {
            return Ok((false, None));
        }
    }
    let steps = crate::input::keys::typing_steps(items, &modes);
    let Some(((last, _), before)) = steps.split_last() else { return Ok((true, None)) };
    let mut send = |part: &str| -> Result<bool, ToolError> {
        let items = parse_key_script(part).map_err(crate::Error::from)?;
        line.send(session, Typing::Keys(items))
    };
    for (part, bound) in before {
        let submits = send(part)?;
        let also = crate::input::keys::escape_read(part, &modes);
        if await_read(call, session, deadline, *bound, also, &done)? {
            return Ok((false, Some(submits)));
        }
    }
    let submits = send(last)?;
    // An Enter the call types after keys that end in an Escape waits for it to be read, as
    // keys after an Escape do (fish took `\e\r` for Alt-Enter).
    let ends_in_escape = parse_key_script(last).is_ok_and(|items| {
        matches!(items.last(), Some(ScriptItem::Key(key)) if key.read_after_the_keys_before(&modes))
    });
    let also = crate::input::keys::escape_read(last, &modes);
    if then_enter && ends_in_escape && await_read(call, session, deadline, None, also, &done)? {
        return Ok((false, Some(submits)));
    }
    Ok((true, Some(submits)))
}

/// Waits for the program in `session` to read what a `terminal_send` call typed so far
/// before it types more: the default wait ([`waits::Plan::settle`]), or `also` (after an
/// Escape: [`escape_read`](crate::input::keys::escape_read)), at most `bound` and until
/// `deadline` (none once it has passed). Whether the program ended (exited, or the
/// session closed), so that the rest is not typed; an error when the call is cancelled.
/// `done` says what was typed, for a wait refused to say.
fn await_read(
    call: &Call,
    session: &Session,
    deadline: std::time::Instant,
    bound: Option<std::time::Duration>,
    also: Option<crate::Until>,
    done: &str,
) -> Result<bool, ToolError> {
    let left = deadline.saturating_duration_since(std::time::Instant::now());
    if left.is_zero() {
        return Ok(false);
    }
    let mut settle = waits::Plan::settle(call.engine.config(), bound.map_or(left, |b| b.min(left)));
    if let Some(also) = also {
        settle = settle.or(also);
    }
    match waits::run_after(call, session, &settle, done)?.outcome {
        "cancelled" => Err(ToolError::cancelled()),
        "exited" | "closed" => Ok(true),
        _ => Ok(false),
    }
}

/// [`await_read`] between the pieces of a `terminal_send` call's text and after them
/// (within `bound`, one of [`text_typing_steps`](crate::input::keys::text_typing_steps)'s),
/// unless the terminal reads whole lines
/// ([`line_holds_text`](crate::input::keys::line_holds_text)): then nothing of the text is
/// read before its line ends, and what comes next is typed at once.
fn await_text_read(
    call: &Call,
    session: &Session,
    deadline: std::time::Instant,
    bound: Option<std::time::Duration>,
    done: &str,
    next: &[u8],
) -> Result<bool, ToolError> {
    if crate::input::keys::line_holds_text(session.info()?.line_modes, next) {
        return Ok(false);
    }
    await_read(call, session, deadline, bound, None, done)
}

/// The line a `terminal_send` call's first piece was typed on, taken by that piece's own
/// request (a send, [`Session::send_taking_line`], or a paste's): the wait after a submitted
/// line looks for its echo at or after it.
#[derive(Default)]
struct Taken {
    /// The line (`None` on the alternate screen, or before anything was typed).
    line: Option<crate::term::transcript::TypedLine>,
    /// A piece was typed: the line is the one its request took, and later pieces take none.
    taken: bool,
}

impl Taken {
    /// Keeps `line`, the one a piece's request took, if it is the call's first piece.
    fn take(&mut self, line: Option<crate::term::transcript::TypedLine>) {
        if !self.taken {
            (self.line, self.taken) = (line, true);
        }
    }

    /// Types `typing` into `session` now, taking the line it is typed on if it is the call's
    /// first piece; whether it submitted a line.
    fn send(&mut self, session: &Session, typing: Typing) -> Result<bool, ToolError> {
        if self.taken {
            return Ok(session.send_typing(typing)?);
        }
        let (submits, line) = session.send_taking_line(typing)?;
        self.take(line);
        Ok(submits)
    }
}

/// Who asks in `session` now ([`PromptOwner::of`], after a wait for input), the wait for it
/// to settle ended when the call is cancelled.
fn prompt_owner(
    call: &Call,
    session: &crate::Session,
    within: std::time::Duration,
) -> Result<PromptOwner, ToolError> {
    let pending = session.start_wait(crate::Until::input_wait(), within)?;
    let canceller = pending.canceller();
    call.cancel.on_stop(move || canceller.cancel());
    let (reply, timeout) = pending.reply();
    let gone = || crate::Error::WaitAborted(timeout);
    let waited = super::progress::await_reply(call, session, reply, gone)?;
    if call.cancel.is_cancelled() {
        return Err(ToolError::cancelled());
    }
    PromptOwner::of(session, &waited, within)
}

/// `terminal_send` with `secret`: asks the person behind the client for the secret the
/// program's password prompt wants (URL-mode elicitation, `url_secret`) and types it; the
/// model sees only that it was entered. `claim`, the session's secret claimed for the call,
/// is held until the secret is typed or the call ends.
fn send_secret(
    call: &Call,
    args: &Args,
    id: crate::SessionId,
    claim: crate::session::SecretClaim,
) -> Result<ToolOutput, ToolError> {
    let view = view_args(args)?;
    let plan = waits::plan(args, DefaultWait::Settle, call.engine.config())?;
    let session = call.session(id)?;
    // The program that reads the terminal (python3's getpass in a shell), not the shell, and
    // its prompt: the secret is typed only while they still ask. (A look that waits for the
    // session to settle, which the call's cancellation ends.)
    let settle = crate::mcp::prompt_owner::settle(call.engine.config());
    let owner = prompt_owner(call, &session, settle)?;
    // Checked before the person is asked (and again by the reactor before it types), by the
    // library's own judgement, held as a secret is for a program that shows its prompt before
    // it reads (under GNU screen or `script` too), within the same bound.
    claim.await_reader().map_err(ToolError::from)?;
    // (The hold cannot be cancelled: a call cancelled during it asks no one.)
    if call.cancel.is_cancelled() {
        return Err(ToolError::cancelled());
    }
    let message = format!(
        "{} (session {id}) asks for a password or passphrase: \"{}\". Open the page to type it: it goes to the program, and the model never sees it.",
        super::shown_to_person(&owner.program),
        super::shown_to_person(&owner.prompt)
    );
    let alive = || super::super::url_secret::runs(&session);
    let mut type_it = |secret: &str| -> Result<(), ToolError> {
        // The person may have taken minutes: another program (or prompt) may ask now. Looked
        // at before the session's input is held (the look may wait for the session to
        // settle), and again, at once unless something changed, once it is held.
        if let Some(why) = owner.changed(&prompt_owner(call, &session, settle)?) {
            return Err(ToolError::no_answer(format!(
                "{why}; nothing was typed: call again if it still asks"
            )));
        }
        let input = call.caller.input.of(id);
        let _typing = input.lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(why) = owner.changed(&prompt_owner(call, &session, settle)?) {
            return Err(ToolError::no_answer(format!(
                "{why}; nothing was typed: call again if it still asks"
            )));
        }
        input.typing();
        claim.send(secret).map_err(ToolError::from)
    };
    call.secrets.ask(Asking {
        message: &message,
        owner: &owner,
        session: id,
        cancel: call.cancel,
        alive: &alive,
        type_it: &mut type_it,
    })?;
    drop(claim);
    let report = match &plan {
        Some(plan) => Some(waits::run_after(call, &session, plan, "the secret was typed")?),
        None => None,
    };
    let mut output = show(call, &session, view, report.as_ref(), false)?;
    output.text.insert_str(0, "[the person typed the secret; it is not shown]\n");
    output.structured["secret_entered"] = serde_json::json!(true);
    Ok(output)
}

/// When the call is cancelled (now, if it already was), interrupts what it submitted
/// (Ctrl-C's signal to the session's foreground group), unless another call has typed into the
/// session since the call's typing numbered `number` ([`SessionInput::typing`]). Called once
/// the input is on its way to the session, so that the signal follows it.
pub(crate) fn interrupt_on_cancel(
    call: &Call,
    session: &Session,
    input: &Arc<SessionInput>,
    number: u64,
) {
    let (session, input) = (session.clone(), input.clone());
    call.cancel.on_cancel(move || {
        if input.last_typed(number) {
            let _ = session.signal(Signal::Int);
        }
    });
}

/// `terminal_read`.
pub(crate) fn read(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = call.session_id(args)?;
    let view = view_args(args)?;
    let plan = waits::plan(args, DefaultWait::None, call.engine.config())?;
    let look_up = lookup::asked(args)?;
    let session = call.session(id)?;
    let report = match &plan {
        Some(plan) => Some(waits::run(call, &session, plan)?),
        None => None,
    };
    if let Some(name) = look_up {
        return lookup::lookup(&session, args, name, report.as_ref(), call);
    }
    show(call, &session, view, report.as_ref(), false)
}

/// `terminal_mouse`.
pub(crate) fn mouse(call: &Call, args: &Args) -> Result<ToolOutput, ToolError> {
    let id = call.session_id(args)?;
    let action = args.str("action").unwrap_or(MOUSE_ACTIONS[0]);
    let view = view_args(args)?;
    let plan = waits::plan(args, DefaultWait::Settle, call.engine.config())?;
    let session = call.session(id)?;
    // The session's turn first: the screen clicked on is the one this call's input meets.
    let turn = call.caller.turns.of(id);
    let _turn = turn.lock.lock().unwrap_or_else(|e| e.into_inner());
    // An ended session's last screen may still show mouse reporting off (or on): say it ended.
    match session.status()?.activity {
        crate::Activity::Exited(_) => return Err(crate::Error::SessionExited(id).into()),
        crate::Activity::Closed(_) => return Err(crate::Error::SessionClosed(id).into()),
        _ => {}
    }
    let screen = session.screen()?;
    if screen.modes.mouse == MouseReporting::Off {
        return Err(ToolError::invalid_input(format!(
            "session {id}: the program has not enabled mouse reporting, so a mouse event would be lost; nothing was sent{}",
            match offers("terminal_send") {
                true => ". Use terminal_send keys instead (arrows, <Tab>, <Enter>, <PageDown>)",
                false => "",
            }
        )));
    }
    if args.uint("count").is_some() && !action.starts_with("scroll") {
        return Err(ToolError::invalid_input(format!(
            "terminal_mouse: `count` is the wheel notches of scroll_up and scroll_down; a {action} takes none (for a double click, click twice)"
        )));
    }
    let (row, col) = mouse_target(args, &screen, action)?;
    if let Some(plan) = &plan {
        waits::check(plan, &session)?;
    }
    {
        let input = call.caller.input.of(id);
        let _typing = input.lock.lock().unwrap_or_else(|e| e.into_inner());
        input.typing();
        let wheel = |direction| {
            let count = args.uint("count").unwrap_or(DEFAULT_NOTCHES) as u16;
            session.scroll(direction, count, row, col)
        };
        match action {
            "right_click" => {
                session.mouse_down(MouseButton::Right, row, col)?;
                session.mouse_up(MouseButton::Right, row, col)?;
            }
            "scroll_up" => wheel(ScrollDirection::Up)?,
            "scroll_down" => wheel(ScrollDirection::Down)?,
            _ => session.click(row, col)?,
        }
    }
    let report = match &plan {
        Some(plan) => Some(waits::run_after(call, &session, plan, "the mouse event was sent")?),
        None => None,
    };
    show(call, &session, view, report.as_ref(), false)
}

/// Wheel notches of a scroll that does not say.
const DEFAULT_NOTCHES: u64 = 3;

/// Where a mouse event goes: `row` and `col`, or the first place `text` is shown; a scroll
/// with neither goes to the middle of the screen.
fn mouse_target(args: &Args, screen: &Screen, action: &str) -> Result<(u16, u16), ToolError> {
    let (row, col) = (args.uint("row"), args.uint("col"));
    let at = match (args.str("text"), row, col) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(ToolError::invalid_input(
                "terminal_mouse takes `text` or `row` and `col`, not both",
            ));
        }
        (Some(text), None, None) => {
            screen.find(text).map(|at| (at.row, at.col)).ok_or_else(|| {
                ToolError::invalid_input(format!(
                    "{} is not on the screen; nothing was sent{}",
                    super::args::quoted(text),
                    match offers("terminal_read") {
                        true => ". Read it with terminal_read view=\"screen\"",
                        false => "",
                    }
                ))
            })?
        }
        (None, Some(row), Some(col)) => (row as u16, col as u16),
        (None, None, None) if action.starts_with("scroll") => (screen.rows / 2, screen.cols / 2),
        _ => {
            return Err(ToolError::invalid_input(
                "terminal_mouse needs `row` and `col` (from 0), or `text` to find on the screen",
            ));
        }
    };
    if at.0 >= screen.rows || at.1 >= screen.cols {
        return Err(ToolError::invalid_input(format!(
            "row {}, col {} is outside the {}x{} screen (rows 0-{}, cols 0-{}); nothing was sent",
            at.0,
            at.1,
            screen.cols,
            screen.rows,
            screen.rows - 1,
            screen.cols - 1
        )));
    }
    Ok(at)
}

#[cfg(test)]
mod typed_key_name_tests {
    use super::typed_key_name_note as note;

    /// `submit` presses Enter alone: it makes a last word `Enter` no note (the key told would
    /// be pressed twice), and leaves every other key's (it hid them all: `Tab`, `C-c`).
    #[test]
    fn submit_leaves_out_only_enter() {
        assert_eq!(note("make Enter", true), None);
        assert_eq!(note("echo hi C-m", true), None, "C-m types Enter's carriage return");
        assert_eq!(note("echo hi C-j", true), None, "C-j a line feed");
        assert!(note("echo hi C-m", false).is_some());
        assert!(note("echo hi M-C-m", true).is_some(), "Alt-Enter is not submit's Enter");
        let told = "[keys typed its last word, Enter, as text; <Enter> presses the key]";
        assert_eq!(note("make Enter", false).as_deref(), Some(told));
        for (script, word) in [
            ("git sta Tab", "Tab"),
            ("sleep 9 C-c", "C-c"),
            ("ihello Esc", "Esc"),
            ("x Escape", "Escape"),
            ("x BTab", "BTab"),
            ("ab BSpace", "BSpace"),
            ("ab Backspace", "Backspace"),
            ("x M-C-x", "M-C-x"),
        ] {
            let told =
                format!("[keys typed its last word, {word}, as text; <{word}> presses the key]");
            for submit in [false, true] {
                assert_eq!(note(script, submit), Some(told.clone()), "{script:?}, submit {submit}");
            }
        }
        assert_eq!(note("echo Foo Bar", false), None);
    }
}
