//! The terminal tools: `tools/list` and `tools/call`.
//!
//! Each call returns `content` text laid out for a model (a status header, the new transcript,
//! the screen when it matters, notes on what was left out) and `structuredContent` with the
//! same data as JSON; a call's `max_bytes` bounds both together (see `budget.rs`). Problems a
//! model can fix (a bad argument, an unknown session, a program that cannot start) are tool
//! results with `isError`, worded so the model can act on them.

mod args;
mod budget;
mod catalog;
mod control;
mod echoes;
mod io;
mod lookup;
pub(crate) mod names;
pub(crate) mod offered;
mod pager_prompts;
mod per_session;
pub(crate) mod progress;
mod render;
pub(crate) mod screen_diff;
pub(crate) mod toolbox;
mod unpad;
pub(crate) mod view;
mod waits;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::{Engine, Error, ReaderId, Session, SessionId, SpawnSpec};

use super::elicit::{Answer, Inputs};
use super::inflight::CancelToken;
use super::protocol::Revision;
use super::url_secret::Secrets;
use args::Args;
use catalog::TOOLS;
pub(crate) use io::typed_key_name_note;
use names::{Names, SessionRef};
use offered::has as offers;
use screen_diff::SeenScreens;
pub(crate) use waits::MARKS_NOTE;

pub(crate) use args::{quoted, whole_number};
pub(crate) use catalog::{MAX_TIMEOUT_MS, NAMES};

/// What a tool produced.
pub(crate) struct ToolOutput {
    /// The text for a model.
    pub text: String,
    /// The same data as JSON (matching the tool's output schema).
    pub structured: Value,
    /// A PNG image to send beside the text (`terminal_read png=true`).
    pub image: Option<Vec<u8>>,
    /// A session the call started and left open, which only this output names to the
    /// caller: an output that is never delivered (the call was cancelled as it ended) must
    /// not leave it behind ([`abandon`]).
    pub started: Option<SessionId>,
}

impl ToolOutput {
    /// Text and structured data, no image, no session started.
    pub(crate) fn new(text: String, structured: Value) -> ToolOutput {
        ToolOutput { text, structured, image: None, started: None }
    }
}

/// Undoes what an output that will never be delivered started: the session it names
/// ([`ToolOutput::started`]) is closed and forgotten, its name freed, since nobody will learn
/// its id to close it.
pub(crate) fn abandon(call: &Call, output: &ToolOutput) {
    if let Some(id) = output.started {
        abandon_session(call.engine, call.caller, id);
    }
}

/// Closes and forgets session `id`, whose id nobody will learn (see [`abandon`]). Its name is
/// removed first, so that no list shows it closed and still named, and the name names
/// nothing (a closed session's name otherwise names it until a start takes it).
pub(crate) fn abandon_session(engine: &Engine, caller: &Caller, id: SessionId) {
    caller.names.remove(id);
    if let Ok(session) = engine.session(id) {
        let _ = session.close();
    }
    caller.forget(id);
}

/// `bytes` in base64 (RFC 4648, with padding), as MCP's image content carries them (a few
/// lines of ours rather than a dependency).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(DIGITS[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Why a tool call failed, in words a model can act on.
#[derive(Debug)]
pub(crate) struct ToolError {
    /// The message.
    pub message: String,
    /// The call was cancelled: nothing is sent back.
    pub cancelled: bool,
    /// The call needs the person's answer first (2026-07-28): the key and the request of an
    /// `input_required` result.
    pub input_request: Option<(String, Value)>,
    /// What went wrong, as a machine-readable name (see [`Error::code`]), sent in the
    /// result's `_meta` ([`ERROR_CODE`]).
    pub code: &'static str,
}

/// The key of a failed tool call's error code in its result's `_meta`.
pub(crate) const ERROR_CODE: &str = "termloom/error_code";

impl ToolError {
    /// A failure with this code and message.
    fn with_code(code: &'static str, message: impl Into<String>) -> Self {
        ToolError { message: message.into(), cancelled: false, input_request: None, code }
    }

    /// A call with an argument that is not right for it, or for the session
    /// (`invalid_input`). A failure of another kind has a constructor of its own, or
    /// [`ToolError::code`].
    pub(crate) fn invalid_input(message: impl Into<String>) -> Self {
        ToolError::with_code("invalid_input", message)
    }

    /// This failure with error code `code` instead.
    pub(crate) fn code(self, code: &'static str) -> Self {
        ToolError { code, ..self }
    }

    /// The call was stopped before it was done (the client's input ended, the server is
    /// stopping): `stopped`.
    pub(crate) fn stopped(message: impl Into<String>) -> Self {
        ToolError::with_code("stopped", message)
    }

    /// A shell the call started did not show its prompt: `no_prompt`.
    pub(crate) fn no_prompt(message: impl Into<String>) -> Self {
        ToolError::with_code("no_prompt", message)
    }

    /// A person holds the session, or the client is at its limit: `refused`.
    pub(crate) fn refused(message: impl Into<String>) -> Self {
        ToolError::with_code("refused", message)
    }

    /// The person declined (or cancelled) the question the call asked: `declined`.
    pub(crate) fn declined(message: impl Into<String>) -> Self {
        ToolError::with_code("declined", message)
    }

    /// No answer to the call's question: no person could be asked, none answered, or the
    /// client answered with something that is no answer: `no_answer`.
    pub(crate) fn no_answer(message: impl Into<String>) -> Self {
        ToolError::with_code("no_answer", message)
    }

    /// The call asks the person (`request`, an `elicitation/create` request, under `key`)
    /// and is called again with the answer: `input_required`.
    pub(crate) fn input_required(key: &str, request: Value) -> Self {
        ToolError {
            input_request: Some((key.to_owned(), request)),
            ..ToolError::with_code("input_required", "input required")
        }
    }

    /// The call was cancelled: `cancelled`.
    pub(crate) fn cancelled() -> Self {
        ToolError { cancelled: true, ..ToolError::with_code("cancelled", "cancelled") }
    }
}

/// Advice to list the sessions (`list`) or start one (`start`, as it follows `or`, and as
/// it reads alone), in the tools offered, joined by `or` when both are: `"; "` and the
/// advice, or nothing when neither tool is offered (review xi: `start` alone had no verb).
fn list_or_start(list: &str, or: &str, (start, alone): (&str, &str)) -> String {
    match (offers("terminal_list"), offers("terminal_start")) {
        (true, true) => format!("; {list}{or}{start}"),
        (true, false) => format!("; {list}"),
        (false, true) => format!("; {alone}"),
        (false, false) => String::new(),
    }
}

impl From<Error> for ToolError {
    fn from(err: Error) -> Self {
        let read = offers("terminal_read");
        let message = match &err {
            Error::UnknownSession(id) => format!(
                "session {id} does not exist{}",
                list_or_start(
                    "call terminal_list to see the sessions",
                    ", or ",
                    ("terminal_start to start one", "call terminal_start to start one")
                )
            ),
            Error::SessionForgotten { session, kept } => format!(
                "session {session} ended and was forgotten: only the {kept} most recently ended sessions are kept{}",
                list_or_start(
                    "terminal_list shows them",
                    ", ",
                    ("terminal_start starts a new one", "terminal_start starts a new one")
                )
            ),
            Error::SessionBeforeFirst { session, first } => format!(
                "session {session} was a session of the server that ran before on this socket, and ended with it: this server numbers its sessions from {first}{}",
                list_or_start(
                    "call terminal_list to see them",
                    ", or ",
                    ("terminal_start to start one", "call terminal_start to start one")
                )
            ),
            Error::SessionClosed(id) => format!(
                "session {id} is closed and accepts no input{}{}",
                if read { "; terminal_read can still show its last output" } else { "" },
                match (read, offers("terminal_start")) {
                    (true, true) => ", and terminal_start starts a new session",
                    (false, true) => "; terminal_start starts a new session",
                    _ => "",
                }
            ),
            Error::SessionExited(id) => format!(
                "session {id}: its program has exited and accepts no input{}",
                if read { "; read its last output with terminal_read" } else { "" }
            ),
            Error::EngineStopped => {
                "the terminal engine is shutting down; no session can be used".to_owned()
            }
            _ => err.to_string(),
        };
        ToolError::with_code(err.code(), message)
    }
}

/// One lock per session, held while a call types into it, so that the input of two calls
/// running at once is not interleaved (their waits still run side by side); and a count of
/// the calls that typed into it, so that a cancelled call interrupts only its own work.
#[derive(Debug, Default)]
pub(crate) struct InputLocks {
    locks: Mutex<HashMap<SessionId, Arc<SessionInput>>>,
}

/// A session's input lock and typing count.
#[derive(Debug, Default)]
pub(crate) struct SessionInput {
    /// Held while a call types.
    pub lock: Mutex<()>,
    /// Calls that typed into the session so far.
    typed: AtomicU64,
}

impl SessionInput {
    /// Counts a call that types; returns its number.
    pub(crate) fn typing(&self) -> u64 {
        self.typed.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Whether the call numbered `number` is the last that typed.
    pub(crate) fn last_typed(&self, number: u64) -> bool {
        self.typed.load(Ordering::SeqCst) == number
    }
}

impl InputLocks {
    /// The input of session `id`. Past [`screen_diff::SESSIONS_KEPT`] sessions, those no
    /// call holds are forgotten (a session that exited needs no `terminal_close`, which
    /// forgets its lock, so a long-lived caller would otherwise keep one per session it ever
    /// typed into): nothing is lost, since a lock nobody holds is free and its count is
    /// compared only by calls that hold it.
    pub(crate) fn of(&self, id: SessionId) -> Arc<SessionInput> {
        let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
        if !locks.contains_key(&id) && locks.len() >= screen_diff::SESSIONS_KEPT {
            locks.retain(|_, input| Arc::strong_count(input) > 1);
        }
        locks.entry(id).or_default().clone()
    }

    /// Forgets the lock of a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.locks.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }
}

/// What the calls of one caller (an MCP connection, a [`toolbox::Toolbox`]) share.
#[derive(Debug, Default)]
pub(crate) struct Caller {
    /// The sessions' input locks, shared with the other callers of the same server: two
    /// clients typing into one session at once must not interleave their input either.
    pub input: Arc<InputLocks>,
    /// The screens this caller was shown, which later screens are shown as changes to.
    pub seen: SeenScreens,
    /// This caller's read positions in the sessions' transcripts.
    pub reader: ReaderId,
    /// One lock per session, this caller's own, held by a call that types from before it
    /// looks at the session until its result is made: two calls of one caller into one
    /// session (a host running a model's tool calls side by side) run one after the other, in
    /// the order they came, each result holding its own output (they shared this caller's
    /// read positions, and one result took both outputs). A key that signals (Ctrl-C) does
    /// not wait for it: it interrupts the call holding it.
    pub turns: InputLocks,
    /// The sessions' names, shared with the other callers of the same server.
    pub names: Arc<Names>,
    /// How far down each session's transcript this caller has read (see
    /// [`view::Furthest`]).
    pub furthest: view::Furthest,
    /// The echo of a line this caller submitted to each session that its result did not read
    /// (see [`echoes::UnreadEchoes`]).
    pub echoes: echoes::UnreadEchoes,
    /// The pager's prompt line this caller's last read of each session ended on (see
    /// [`pager_prompts::PagerPrompts`]).
    pub pager_prompts: pager_prompts::PagerPrompts,
}

impl Caller {
    /// A caller with its own read positions, sharing `names`, the input locks `input` and
    /// the bytes of screens remembered, `screens`, with others.
    pub(crate) fn sharing(
        names: Arc<Names>,
        input: Arc<InputLocks>,
        screens: &Arc<screen_diff::ScreenBudget>,
    ) -> Caller {
        let turns = InputLocks::default();
        let (seen, reader, furthest) = (screens.member(), ReaderId::new(), Default::default());
        let (echoes, pager_prompts) = Default::default();
        Caller { names, input, seen, reader, turns, furthest, echoes, pager_prompts }
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.input.forget(id);
        self.turns.forget(id);
        self.seen.forget(id);
        self.furthest.forget(id);
        self.echoes.forget(id);
        self.pager_prompts.forget(id);
        self.names.forget(id);
    }
}

/// A tool call's context.
pub(crate) struct Call<'a> {
    /// The engine whose sessions the tools drive.
    pub engine: &'a Engine,
    /// The call's cancellation token.
    pub cancel: &'a Arc<CancelToken>,
    /// What this caller's calls share.
    pub caller: &'a Caller,
    /// Where the call reports progress while it waits, when the client asked.
    pub progress: Option<&'a progress::Progress>,
    /// The protocol revision the call is served in.
    pub revision: Revision,
    /// The client reads one copy of the result's strings, though the revision sends two (the
    /// text and `structuredContent`): termloom's command line prints the text, or with
    /// `--json` the structured content, so `max_bytes` bounds that one copy.
    pub one_copy: bool,
    /// How the call can ask the person behind the client.
    pub inputs: Inputs<'a>,
    /// How the call can ask the person for a secret.
    pub secrets: Secrets<'a>,
    /// The largest `max_bytes` a call may be given: the top of the tools' range, or a host's
    /// smaller budget ([`Toolbox::max_bytes`](crate::tools::Toolbox::max_bytes)), which advice
    /// to read more keeps within.
    pub largest: usize,
    /// The tools the caller offers its model, which advice in a result names alone: [`run`]
    /// makes them the call's thread's, which [`offered::has`] asks.
    pub offered: offered::Offered,
}

/// Why session `id` is unknown when it was an earlier server's: this server, started over
/// on the socket, numbers its sessions from `first`.
pub(crate) fn ran_before(id: SessionId, first: SessionId) -> String {
    format!(
        "session {id} was a session of the server that ran before on this socket, and ended with it (this server numbers its sessions from {first})"
    )
}

impl Call<'_> {
    /// Session `id`, read from this caller's read position. An unknown id is an error that
    /// lists the sessions there are.
    pub(crate) fn session(&self, id: SessionId) -> Result<Session, ToolError> {
        match self.engine.session(id) {
            Ok(session) => Ok(session.as_reader(self.caller.reader)),
            Err(Error::UnknownSession(_)) => {
                Err(self.unknown(&format!("session {id} does not exist")))
            }
            // (An earlier server's session ended with it: forgotten, as `Error::code` says.)
            Err(Error::SessionBeforeFirst { first, .. }) => {
                Err(self.unknown(&ran_before(id, first)).code("session_forgotten"))
            }
            Err(err) => Err(err.into()),
        }
    }

    /// The session the call's `session_id` names, by id or by name.
    pub(crate) fn session_id(&self, args: &Args) -> Result<SessionId, ToolError> {
        self.optional_session_id(args)?.ok_or_else(|| {
            ToolError::invalid_input(format!(
                "the `session_id` argument is required{}",
                if offers("terminal_list") { " (terminal_list shows the sessions)" } else { "" }
            ))
        })
    }

    /// The session the call's `session_id` names, if it has one.
    pub(crate) fn optional_session_id(&self, args: &Args) -> Result<Option<SessionId>, ToolError> {
        match args.session_ref() {
            None => Ok(None),
            Some(SessionRef::Id(id)) => Ok(Some(id)),
            Some(SessionRef::Name(name)) => match self.caller.names.lookup(name) {
                Some(id) => Ok(Some(id)),
                None => Err(self.unknown(&format!("no session is named {name:?}"))),
            },
        }
    }

    /// `problem`, then the sessions there are.
    fn unknown(&self, problem: &str) -> ToolError {
        ToolError::invalid_input(describe_sessions(self.engine, &self.caller.names, problem))
            .code("unknown_session")
    }

    /// Starts a session, read from this caller's read position. A start the spawn policy
    /// asks about is put to the person behind the client (elicitation); the model cannot
    /// answer for them.
    pub(crate) fn spawn(&self, spec: SpawnSpec) -> Result<Session, ToolError> {
        let mut question = None;
        let started = self.engine.spawn_with_approval(spec, |request, verdict| {
            let message = format!(
                "A model asks to start {}. The spawn policy asks you first ({}: {}). Allow it? Approving also covers everything later typed into this session.",
                shown_to_person(&request.describe()),
                verdict.rule,
                verdict.reason
            );
            let schema = json!({ "type": "object", "properties": {} });
            match self.inputs.ask("approve_start", &message, schema, self.cancel) {
                Ok(Answer::Accept(_)) => Ok(()),
                Ok(Answer::Refused(action)) => Err(refused(&action)),
                Err(mut err) => {
                    err.message = format!(
                        "starting {} needs a person's approval ({}: {}), and {}",
                        request.describe(),
                        verdict.rule,
                        verdict.reason,
                        err.message
                    );
                    let reason = err.message.clone();
                    question = Some(err);
                    Err(reason)
                }
            }
        });
        match started {
            Ok(session) => Ok(session.as_reader(self.caller.reader)),
            // The question could not be put (or must be put as an input_required result).
            Err(Error::SpawnDenied { .. }) if question.is_some() => Err(question.expect("set")),
            Err(err) => Err(err.into()),
        }
    }

    /// Whether results carry `structuredContent` besides their text (from 2025-06-18).
    pub(crate) fn structured(&self) -> bool {
        self.revision >= Revision::V2025_06_18
    }
}

/// Why nothing was done when the person refused a question (`decline` or `cancel`).
pub(crate) fn refused(action: &str) -> String {
    match action {
        "decline" => "the person declined".to_owned(),
        _ => "the person cancelled the question".to_owned(),
    }
}

/// `problem`, then the sessions there are (by id, name, program and state), for a caller
/// who named one that does not exist.
pub(crate) fn describe_sessions(engine: &Engine, names: &Names, problem: &str) -> String {
    let sessions = engine.list().unwrap_or_default();
    if sessions.is_empty() {
        return match offers("terminal_start") {
            true => format!("{problem}; there are no sessions: terminal_start starts one"),
            false => format!("{problem}; there are no sessions"),
        };
    }
    // At most a few: the list grows with every session that ended, and a model reads it.
    let shown = in_listing_order(&sessions);
    let listed: Vec<String> = shown
        .iter()
        .take(LISTED_SESSIONS)
        .map(|info| {
            let name = names.name_of(info.id).map(|n| format!(" {n:?}")).unwrap_or_default();
            let state = match info.state {
                crate::SessionState::Running => "running",
                crate::SessionState::Exited(_) => "exited",
                crate::SessionState::Closed(_) => "closed",
            };
            format!("{}{name} ({}, {state})", info.id, info.program)
        })
        .collect();
    let more = match sessions.len().saturating_sub(LISTED_SESSIONS) {
        0 => String::new(),
        n => format!(", and {n} more"),
    };
    format!("{problem}; the sessions are: {}{more}", listed.join(", "))
}

/// `sessions` as a model is shown them: the live ones first, then the ended, newest first.
pub(crate) fn in_listing_order(sessions: &[crate::SessionInfo]) -> Vec<&crate::SessionInfo> {
    let mut ordered: Vec<&crate::SessionInfo> = sessions.iter().collect();
    ordered.sort_by_key(|info| (!matches!(info.state, crate::SessionState::Running), !info.id.0));
    ordered
}

/// The most sessions an unknown session's error names.
const LISTED_SESSIONS: usize = 8;

/// Whether `name` is a tool.
pub(crate) fn exists(name: &str) -> bool {
    catalog::find(name).is_some()
}

/// The `tools/list` result for a revision.
pub(crate) fn list(revision: Revision) -> Value {
    json!({ "tools": TOOLS.iter().map(|tool| tool.entry(revision)).collect::<Vec<_>>() })
}

/// Runs tool `name` on its checked arguments: its output, or why it failed (a message a
/// model can act on, or a question for the person); `None` when the call was cancelled.
/// What [`Toolbox`](toolbox::Toolbox) and the MCP server both call.
pub(crate) fn run(
    call: &Call,
    name: &str,
    arguments: &Map<String, Value>,
) -> Option<Result<ToolOutput, ToolError>> {
    #[cfg(feature = "fault-injection")]
    if call.engine.config().inject_panic_in_tool.as_deref() == Some(name) {
        panic!("fault injection: the {name} tool panicked");
    }
    // Advice in the result names only the tools the caller offers.
    let _offering = offered::offering(call.offered);
    let outcome = match catalog::find(name) {
        Some(tool) => Args::new(tool, arguments).and_then(|args| (tool.run)(call, &args)),
        None => Err(ToolError::invalid_input(format!("unknown tool {}", quoted(name)))),
    };
    match outcome {
        Err(err) if err.cancelled => None,
        Ok(mut output) => {
            shown_controls(&mut output.text);
            shown_controls_in(&mut output.structured);
            Some(Ok(output))
        }
        Err(mut err) => {
            shown_controls(&mut err.message);
            crate::error::bound_message(&mut err.message);
            Some(Err(err))
        }
    }
}

/// Replaces the control characters in `text` but line feeds and tabs by visible stand-ins
/// (`␛` for Escape, `␡` for DELETE, U+FFFD for the C1 controls), so that no result carries an
/// escape sequence, whatever a caller's arguments (echoed in errors) or a program's title
/// held.
fn shown_controls(text: &mut String) {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return;
    }
    *text = text
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c => stand_in(c).unwrap_or(c),
        })
        .collect();
}

/// The visible stand-in of a control character: the Control Pictures block's symbol for C0
/// and DEL (`␛`, `␡`), U+FFFD for the others; `None` for any other character.
fn stand_in(c: char) -> Option<char> {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + u32::from(c)),
        '\u{7f}' => Some('\u{2421}'),
        c if c.is_control() => Some('\u{fffd}'),
        _ => None,
    }
}

/// `text` as a person must see it before deciding on it: control characters (line breaks
/// included) as visible stand-ins, characters that reorder or hide text (bidirectional
/// controls, zero-width and other format characters) named by their code, and runs of more
/// than three blanks counted, so that what a model wrote cannot hide part of itself from the
/// person asked to approve it.
pub(crate) fn shown_to_person(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                let mut run = 1;
                while chars.next_if_eq(&' ').is_some() {
                    run += 1;
                }
                if run > 3 {
                    shown.push_str(&format!("⟨{run} spaces⟩"));
                } else {
                    shown.extend(std::iter::repeat_n(' ', run));
                }
            }
            '\u{80}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}' => shown.push_str(&format!("⟨U+{:04X}⟩", u32::from(c))),
            c => shown.push(stand_in(c).unwrap_or(c)),
        }
    }
    shown
}

/// [`shown_controls`] on every string in `value`.
fn shown_controls_in(value: &mut Value) {
    match value {
        Value::String(text) => shown_controls(text),
        Value::Array(items) => items.iter_mut().for_each(shown_controls_in),
        Value::Object(fields) => fields.values_mut().for_each(shown_controls_in),
        _ => {}
    }
}

/// The `tools/call` result of a tool's outcome, for the call's revision.
pub(crate) fn result(call: &Call, outcome: Result<ToolOutput, ToolError>) -> Value {
    match outcome {
        Ok(output) => {
            let mut content = vec![json!({ "type": "text", "text": output.text })];
            if let Some(png) = &output.image {
                content
                    .push(json!({ "type": "image", "data": base64(png), "mimeType": "image/png" }));
            }
            let mut result = json!({ "content": content, "isError": false });
            if call.structured() {
                result["structuredContent"] = output.structured;
            }
            result
        }
        Err(err) => refusal(&err.message, err.code),
    }
}

/// A `tools/call` result saying the call could not be run, and why as error code `code` in
/// its `_meta` (see [`ToolError::code`]).
pub(crate) fn refusal(message: &str, code: &str) -> Value {
    json!({
        "content": [{ "type": "text", "text": message }],
        "isError": true,
        "_meta": { ERROR_CODE: code },
    })
}

#[cfg(test)]
mod base64_tests {
    #[test]
    fn base64_matches_rfc_4648() {
        for (plain, encoded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(super::base64(plain.as_bytes()), encoded);
        }
    }
}

#[cfg(test)]
mod offered_tests {
    use super::offered::{self, Offered, assert_names_only, subsets_with};
    use super::*;

    /// The library's errors, as a call's result says them, advise only the tools offered
    /// (review ig); under all the tools, as they said.
    #[test]
    fn errors_advise_only_the_tools_offered() {
        let id = SessionId(3);
        let texts = || {
            let errors = [
                Error::UnknownSession(id),
                Error::SessionForgotten { session: id, kept: 64 },
                Error::SessionBeforeFirst { session: id, first: SessionId(9) },
                Error::SessionClosed(id),
                Error::SessionExited(id),
            ];
            errors.map(|err| ToolError::from(err).message).to_vec()
        };
        let all = texts().join("\n");
        for advice in [
            "session 3 does not exist; call terminal_list to see the sessions, or terminal_start to start one",
            "are kept; terminal_list shows them, terminal_start starts a new one",
            "terminal_read can still show its last output, and terminal_start starts a new session",
        ] {
            assert!(all.contains(advice), "{advice}: {all}");
        }
        for subset in subsets_with("terminal_read") {
            let _only = offered::offering(Offered::of(&subset));
            assert_names_only(&subset, &texts());
        }
        let _only = offered::offering(Offered::of(&["terminal_send"]));
        assert_names_only(&["terminal_send"], &texts());
        assert!(texts()[0].ends_with("session 3 does not exist"), "{:?}", texts());
    }

    /// With terminal_start offered and not terminal_list, the advice to start a session has
    /// its verb (review xi: "does not exist; terminal_start to start one").
    #[test]
    fn advice_to_start_a_session_alone_is_a_sentence() {
        let _only = offered::offering(Offered::of(&["terminal_read", "terminal_start"]));
        let message = |err| ToolError::from(err).message;
        assert_eq!(
            message(Error::UnknownSession(SessionId(3))),
            "session 3 does not exist; call terminal_start to start one"
        );
        let before =
            message(Error::SessionBeforeFirst { session: SessionId(3), first: SessionId(9) });
        assert!(before.ends_with("from 9; call terminal_start to start one"), "{before}");
        let forgotten = message(Error::SessionForgotten { session: SessionId(3), kept: 64 });
        assert!(forgotten.ends_with("are kept; terminal_start starts a new one"), "{forgotten}");
    }
}

#[cfg(test)]
mod code_tests {
    use super::*;

    /// Each kind of tool failure that is not a bad argument has its own constructor and
    /// code (a new site picks one, or says `invalid_input` by name): the codes a client
    /// reads in `_meta`, as the README lists them.
    #[test]
    fn each_kind_of_tool_failure_has_its_code() {
        let codes = [
            (ToolError::invalid_input("row 99"), "invalid_input"),
            (ToolError::stopped("the client's input ended"), "stopped"),
            (ToolError::no_prompt("no prompt"), "no_prompt"),
            (ToolError::declined("the person declined"), "declined"),
            (ToolError::no_answer("nobody answered"), "no_answer"),
            (ToolError::input_required("key", json!({})), "input_required"),
            (ToolError::cancelled(), "cancelled"),
            (ToolError::refused("a person holds the session"), "refused"),
            (ToolError::from(Error::SessionExited(SessionId(1))), "session_exited"),
            (ToolError::invalid_input("x").code("name_taken"), "name_taken"),
        ];
        for (error, code) in codes {
            assert_eq!(error.code, code, "{}", error.message);
        }
        // The client's answer that is no elicitation result is no answer, not bad input.
        let answer = crate::mcp::elicit::answer_of(&json!({ "action": "maybe" }));
        assert_eq!(answer.err().map(|e| e.code), Some("no_answer"));
    }
}

#[cfg(test)]
mod input_lock_tests {
    use super::*;

    /// Past the bound, the locks nobody holds are forgotten; a held one is kept, so calls
    /// on its session still share it.
    #[test]
    fn locks_nobody_holds_are_forgotten_past_the_bound() {
        let locks = InputLocks::default();
        let held = locks.of(SessionId(0));
        for id in 1..=screen_diff::SESSIONS_KEPT as u64 * 4 {
            let _ = locks.of(SessionId(id));
        }
        let count = locks.locks.lock().unwrap().len();
        assert!(count <= screen_diff::SESSIONS_KEPT + 1, "{count} locks kept");
        assert!(Arc::ptr_eq(&held, &locks.of(SessionId(0))), "a held lock was replaced");
    }
}
