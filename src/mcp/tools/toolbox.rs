//! [`Toolbox`]: the model-facing terminal tools as a library call, for Rust agent hosts that
//! define their own tools for their models. The same tools `termloom mcp` serves (the same
//! descriptions, schemas, argument checking, result text and structured results, and limits),
//! called in-process; `termloom mcp` is a transport over the same table.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use super::catalog::{self, TOOLS};
use super::offered::Offered;
use super::view::MAX_BYTES_RANGE;
use super::{Call, Caller, ToolOutput};
use crate::Engine;
use crate::SessionId;
use crate::mcp::DEFAULT_MAX_CONCURRENT_CALLS;
use crate::mcp::elicit::Inputs;
use crate::mcp::inflight::CancelToken;
use crate::mcp::protocol::Revision;
use crate::mcp::url_secret::Secrets;
use crate::reactor::{EngineFuture, Reply};

/// Default limit of [`Toolbox::call_async`] calls waiting for a thread
/// ([`Toolbox::max_queued_calls`]).
pub const DEFAULT_MAX_QUEUED_CALLS: usize = 32;

/// A tool as a host passes it to its model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The tool's name, e.g. `terminal_start`.
    pub name: String,
    /// A short human title.
    pub title: String,
    /// What the tool does, written for a model.
    pub description: String,
    /// The JSON schema of its arguments.
    pub input_schema: Value,
}

/// What a tool call returned.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The text for a model: a status header, the new transcript, the screen when it matters,
    /// notes on what was left out; or, when `is_error`, what went wrong in words a model can
    /// act on.
    pub text: String,
    /// The ids, status and exit codes as JSON, for a host's own use (`None` when `is_error`).
    pub structured: Option<Value>,
    /// The call failed in a way a model can fix (a bad argument, an unknown session, a program
    /// that cannot start).
    pub is_error: bool,
    /// A PNG picture of the screen, for a vision model (`terminal_read png=true`).
    pub image: Option<Vec<u8>>,
    /// When `is_error`, what went wrong as a machine-readable name: `unknown_session`,
    /// `program_not_found`, `name_taken`, `invalid_input`... ([`crate::Error::code`] for the
    /// library's errors; the README lists them all).
    pub error_code: Option<String>,
}

impl ToolResult {
    /// A result (for the server's client, which reads results off the wire).
    pub(crate) fn new(
        text: String,
        structured: Option<Value>,
        error_code: Option<String>,
    ) -> ToolResult {
        let is_error = error_code.is_some();
        ToolResult { text, structured, is_error, image: None, error_code }
    }
}

/// A [`Toolbox`](crate::tools::Toolbox) host's way to answer `terminal_send secret=true`
/// ([`Toolbox::answer_secrets`](crate::tools::Toolbox::answer_secrets)).
#[derive(Clone)]
pub(crate) struct SecretAnswer(pub Arc<AnswerFn>);

/// The host's callback: the secret for what asks, or `None` to refuse.
type AnswerFn = dyn Fn(&SecretAsk) -> Option<String> + Send + Sync;

impl std::fmt::Debug for SecretAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretAnswer")
    }
}

/// What a model's `terminal_send secret=true` asks a
/// [`Toolbox`](crate::tools::Toolbox)'s host for: the secret the program reading the session's
/// terminal asks for at its password prompt ([`Toolbox::answer_secrets`](crate::tools::Toolbox::answer_secrets)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SecretAsk {
    /// The session the program runs in.
    pub session: SessionId,
    /// The name of the process reading the terminal (`sudo`, `python3`, `ssh`), not the shell
    /// that started it. Like `prompt`, chosen by the program: control and format characters
    /// (an escape sequence, a bidirectional override) come as visible stand-ins.
    pub program: String,
    /// Its pid, where `/proc` tells.
    pub pid: Option<i32>,
    /// The screen's line at the cursor, trimmed: its prompt (`Password:`).
    pub prompt: String,
}

/// Ends a tool call's waits from any thread (see [`Toolbox::call_cancellable`]).
#[derive(Debug, Clone)]
pub struct ToolCancel(Arc<CancelToken>);

impl ToolCancel {
    /// A fresh handle; pass it to one call.
    pub fn new() -> Self {
        ToolCancel(CancelToken::new())
    }

    /// Ends the call's wait or paste now; the call then returns `None`. As a cancelled MCP
    /// call does, a cancelled `terminal_run`, or `terminal_send` with `submit`, also
    /// interrupts the command it typed (SIGINT to the session's foreground process group,
    /// as Ctrl-C) unless another call of this toolbox typed into the session since; a `terminal_start` (or a
    /// `terminal_run` that started its shell) closes the session it started.
    pub fn cancel(&self) {
        self.0.cancel();
    }
}

impl Default for ToolCancel {
    fn default() -> Self {
        ToolCancel::new()
    }
}

/// The terminal tools over one engine. Cheap to clone; usable from any thread ([`Toolbox::call`]
/// runs on the caller's thread and may wait; an async host uses [`Toolbox::call_async`]).
///
/// A toolbox holds a clone of its [`Engine`]: the engine's sessions end when the last clone
/// of either is dropped, so dropping the host's own `Engine` leaves them running while a
/// toolbox (or one of its clones) lives.
///
/// ```no_run
/// use termloom::tools::Toolbox;
/// use termloom::{Config, Engine};
///
/// let toolbox = Toolbox::new(Engine::new(Config::default())?).max_bytes(8 << 10)?;
/// for tool in toolbox.definitions() {
///     println!("{}: {}", tool.name, tool.input_schema);
/// }
/// let result = toolbox.call(
///     "terminal_run",
///     &serde_json::json!({"command": "echo hello"}),
/// );
/// assert!(!result.is_error, "{}", result.text);
/// println!("{}", result.text);
/// # Ok::<(), termloom::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Toolbox {
    engine: Engine,
    caller: Arc<Caller>,
    /// The tools offered (all by default).
    enabled: Vec<&'static str>,
    /// The host's byte budget: the default and the most of every call's `max_bytes`.
    max_bytes: Option<u64>,
    /// The threads running [`Toolbox::call_async`] calls, shared by the toolbox's clones.
    calls: Arc<CallThreads>,
    /// The host's answer to `terminal_send secret=true`, if it gave one.
    secrets: Option<SecretAnswer>,
}

/// A [`Toolbox::call_async`] call, as its thread runs it.
type Job = Box<dyn FnOnce() + Send>;

/// The threads of a toolbox's [`Toolbox::call_async`] calls: at most `limit` run at once, each
/// on a thread of its own, and at most `queue` more wait in `queued` for one of them to end
/// (that thread then runs the first waiting). A call past both is refused (`busy`).
struct CallThreads {
    limit: usize,
    /// The most calls waiting for a thread.
    queue: usize,
    state: Mutex<CallState>,
}

struct CallState {
    /// Threads started and not yet ended.
    running: usize,
    /// Calls waiting for a thread, at most `queue`.
    queued: VecDeque<Job>,
}

/// Why a call was not started.
enum Refused {
    /// The calls running and waiting are at their limits (which it holds: running, waiting).
    Busy(usize, usize),
    /// No thread could be started.
    Io(std::io::Error),
}

impl CallThreads {
    /// At most `limit` threads (0 is taken as 1), and `queue` calls waiting for them.
    fn new(limit: usize, queue: usize) -> Arc<CallThreads> {
        let limit = limit.max(1);
        let state = Mutex::new(CallState { running: 0, queued: VecDeque::new() });
        Arc::new(CallThreads { limit, queue, state })
    }

    /// Runs `job` on a thread of its own, or queues it while `limit` threads run.
    fn submit(self: &Arc<Self>, job: Job) -> Result<(), Refused> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.running >= self.limit {
            if state.queued.len() >= self.queue {
                return Err(Refused::Busy(self.limit, self.queue));
            }
            state.queued.push_back(job);
            return Ok(());
        }
        // Started under the lock: were it to fail, no call has been queued behind it meanwhile
        // (for a thread that does not come).
        let threads = self.clone();
        std::thread::Builder::new()
            .name("termloom-tool-call".into())
            .spawn(move || threads.work(job))
            .map_err(Refused::Io)?;
        state.running += 1;
        Ok(())
    }

    /// Runs `job`, then the calls queued meanwhile, until none is.
    fn work(&self, mut job: Job) {
        loop {
            // (A tool's panic is caught in the call; this keeps the thread's place counted
            // right whatever else might unwind.)
            let _ = catch_unwind(AssertUnwindSafe(job));
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            match state.queued.pop_front() {
                Some(next) => job = next,
                None => {
                    state.running -= 1;
                    return;
                }
            }
        }
    }
}

impl std::fmt::Debug for CallThreads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut fields = f.debug_struct("CallThreads");
        fields.field("limit", &self.limit).field("queue", &self.queue).finish_non_exhaustive()
    }
}

impl Toolbox {
    /// Every tool, over `engine`.
    pub fn new(engine: Engine) -> Toolbox {
        Toolbox {
            engine,
            caller: Arc::default(),
            enabled: TOOLS.iter().map(|tool| tool.name).collect(),
            max_bytes: None,
            calls: CallThreads::new(DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS),
            secrets: None,
        }
    }

    /// Lets the host answer a model's `terminal_send secret=true`: when the program reading a
    /// session's terminal asks for a password, `answer` is called on the call's thread with
    /// what asks ([`SecretAsk`]: the session, the program and its prompt), and returns the
    /// secret (asking its person, never the model) or `None` to refuse (the call then fails
    /// with code `declined`). The secret is typed as [`crate::Session::send_secret`] types
    /// one, only while the same process still asks at the same prompt, and held for its read
    /// under the session's secret claim; it appears in no result (the model is told only that
    /// it was typed), and its copy is zeroed once typed. The call's cancellation does not end
    /// `answer`; a secret it returns after the call was cancelled is not typed, and one that
    /// panics refuses (code `declined`; its message goes to no result). While `answer` runs,
    /// the call holds the session's turn: the same toolbox's calls typing there wait for it
    /// (keys alone, reads and closes do not). Without it, no
    /// secret can be typed through the tools: `terminal_send secret=true` fails with code
    /// `no_answer`, telling the model to interrupt the program and say what needs the
    /// password. The toolbox's clones made after share it.
    ///
    /// ```no_run
    /// use termloom::tools::Toolbox;
    /// use termloom::{Config, Engine};
    ///
    /// let toolbox = Toolbox::new(Engine::new(Config::default())?).answer_secrets(|ask| {
    ///     eprint!("{} (session {}) asks: {} ", ask.program, ask.session, ask.prompt);
    ///     std::env::var("MY_HOST_PASSWORD").ok()
    /// });
    /// # Ok::<(), termloom::Error>(())
    /// ```
    pub fn answer_secrets(
        mut self,
        answer: impl Fn(&SecretAsk) -> Option<String> + Send + Sync + 'static,
    ) -> Toolbox {
        self.secrets = Some(SecretAnswer(Arc::new(answer)));
        self
    }

    /// Sets the most [`Toolbox::call_async`] calls that run at once, each on a thread of its
    /// own (default [`DEFAULT_MAX_CONCURRENT_CALLS`], as `termloom mcp`'s
    /// [`crate::mcp::ServeOptions::max_concurrent_calls`]; 0 is taken as 1). Up to
    /// [`Toolbox::max_queued_calls`] more wait for one of them to end, then run in turn; a
    /// call past those is not run: its result is an error with code `busy`, as over MCP. The
    /// toolbox's clones made after share the limits and the calls; calls made before on this
    /// toolbox keep the threads they had.
    pub fn max_concurrent_calls(mut self, limit: usize) -> Toolbox {
        self.calls = CallThreads::new(limit, self.calls.queue);
        self
    }

    /// Sets the most [`Toolbox::call_async`] calls that wait for a thread while
    /// [`Toolbox::max_concurrent_calls`] run (default [`DEFAULT_MAX_QUEUED_CALLS`]; 0 refuses
    /// every call past those running). A waiting call holds its arguments and nothing else;
    /// one past the queue is not run: its result is an error with code `busy`. The toolbox's
    /// clones made after share the limits and the calls; calls made before on this toolbox
    /// keep the threads they had.
    pub fn max_queued_calls(mut self, queue: usize) -> Toolbox {
        self.calls = CallThreads::new(self.calls.limit, queue);
        self
    }

    /// Only the tools named (the others are neither defined nor callable); an unknown name is
    /// an error naming the tools there are. Results' advice and the tools' definitions name
    /// only these: where they would name another (to read the rest with `terminal_read`,
    /// answer with `terminal_send`, read "as terminal_start does"), it is phrased without it
    /// or left out, and arguments described once for all the tools are described by the
    /// first of these that takes them.
    pub fn only(mut self, names: &[&str]) -> crate::Result<Toolbox> {
        let mut enabled = Vec::new();
        for name in names {
            match catalog::find(name) {
                Some(tool) => enabled.push(tool.name),
                None => {
                    return Err(crate::Error::InvalidInput(format!(
                        "unknown tool {}; the tools are {}",
                        super::quoted(name),
                        catalog::NAMES.join(", ")
                    )));
                }
            }
        }
        self.enabled = enabled;
        Ok(self)
    }

    /// Sets the host's byte budget: calls without `max_bytes` use it, calls with a larger one
    /// are held to it, and advice to read more stays within it (a screen larger than one
    /// result is read a part at a time, `terminal_read screen_rows="20-"`, not with a larger
    /// `max_bytes`). It bounds a result's strings (transcript, screen, title, matched text),
    /// shared by its text and structured JSON; the fixed framing around them (the status
    /// header, notes on what was left out) adds at most
    /// [`MAX_BYTES_OVERHEAD`](crate::mcp::MAX_BYTES_OVERHEAD) bytes: a result's text and
    /// structured JSON together stay within `budget + MAX_BYTES_OVERHEAD`, so with a small
    /// budget the framing may be most of a result.
    ///
    /// A budget below the tools' least `max_bytes`, 256 bytes (as a call's own `max_bytes`
    /// is), is refused ([`crate::Error::InvalidInput`]): no result fits it. One above their
    /// most, 1 MiB, is taken as that (no call may ask for more).
    pub fn max_bytes(mut self, budget: usize) -> crate::Result<Toolbox> {
        let (least, most) = MAX_BYTES_RANGE;
        if (budget as u64) < least {
            return Err(crate::Error::InvalidInput(format!(
                "a toolbox's max_bytes must be at least {least} (got {budget}): it bounds a result's strings, and the status header and notes around them take up to {} bytes more; give {least} or more",
                crate::mcp::MAX_BYTES_OVERHEAD
            )));
        }
        self.max_bytes = Some((budget as u64).min(most));
        Ok(self)
    }

    /// The engine the tools drive.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The tools' definitions, as a host passes them to its model.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        TOOLS
            .iter()
            .filter(|tool| self.enabled.contains(&tool.name))
            .map(|tool| {
                let offered = Offered::of(&self.enabled);
                let entry = tool.entry_for(Revision::LATEST_HANDSHAKE, offered);
                ToolDefinition {
                    name: tool.name.to_owned(),
                    title: tool.title.to_owned(),
                    description: entry["description"].as_str().unwrap_or_default().to_owned(),
                    input_schema: entry["inputSchema"].clone(),
                }
            })
            .collect()
    }

    /// Calls tool `name` with its JSON arguments (an object) and waits for its result. It
    /// blocks the calling thread for the call's wait (up to its `timeout_ms`): an async host
    /// uses [`Toolbox::call_async`]. A panic in a tool's code (a bug) is caught: the call
    /// fails with error code `internal`, as it does over MCP, and the toolbox goes on.
    pub fn call(&self, name: &str, arguments: &Value) -> ToolResult {
        self.call_cancellable(name, arguments, &ToolCancel::new())
            .expect("a call nobody cancels is never cancelled")
    }

    /// [`Toolbox::call`], ended early by `cancel` (from another thread): `None` when it was
    /// cancelled.
    pub fn call_cancellable(
        &self,
        name: &str,
        arguments: &Value,
        cancel: &ToolCancel,
    ) -> Option<ToolResult> {
        self.call_starting(name, arguments, cancel).map(|(result, _)| result)
    }

    /// [`Toolbox::call_cancellable`], with the session the call started and left open, which
    /// only its result names (see [`ToolOutput::started`]).
    fn call_starting(
        &self,
        name: &str,
        arguments: &Value,
        cancel: &ToolCancel,
    ) -> Option<(ToolResult, Option<crate::SessionId>)> {
        let error = |text: String, code: &str| {
            Some((ToolResult::new(text, None, Some(code.to_owned())), None))
        };
        if !self.enabled.contains(&name) {
            let offered = self.enabled.join(", ");
            let message = format!("unknown tool {}; the tools are {offered}", super::quoted(name));
            return error(message, "invalid_input");
        }
        let mut arguments = match arguments {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            _ => {
                return error(
                    format!("{name}: the arguments must be a JSON object"),
                    "invalid_input",
                );
            }
        };
        self.apply_budget(name, &mut arguments);
        let call = Call {
            engine: &self.engine,
            cancel: &cancel.0,
            caller: &self.caller,
            progress: None,
            revision: Revision::LATEST_HANDSHAKE,
            one_copy: false,
            inputs: Inputs::Unavailable(
                "a Toolbox has no one to ask (a host decides such starts through Config::spawn_hook); nothing was done",
            ),
            secrets: self.secrets.as_ref().map_or(Secrets::NoHost, Secrets::Host),
            largest: self.max_bytes.unwrap_or(MAX_BYTES_RANGE.1) as usize,
            offered: Offered::of(&self.enabled),
        };
        // A panic in the tool's code (a bug) fails this call alone, as the MCP server's does;
        // the tools run on the caller's thread, holding only handles, so the engine and its
        // sessions go on. (Uncaught, it unwound through the host's thread, or ended a
        // `call_async` future with `EngineStopped`.)
        let outcome = match catch_unwind(AssertUnwindSafe(|| super::run(&call, name, &arguments))) {
            Ok(outcome) => outcome?,
            Err(payload) => {
                let why = crate::reactor::panic_message(&*payload);
                let mut message = format!(
                    "the {name} tool failed unexpectedly ({why}; a bug, please report it); the toolbox, the engine and its sessions go on"
                );
                // (As every result's text: no control character, within the errors' bound.)
                super::shown_controls(&mut message);
                crate::error::bound_message(&mut message);
                return error(message, "internal");
            }
        };
        // A call whose wait the cancellation ended is cancelled: nothing is returned, as the
        // MCP server sends nothing for it. (A call that had finished when the cancellation
        // came is answered: a session it started is in its result.)
        if let Ok(output) = &outcome
            && output.structured["wait"]["outcome"] == "cancelled"
        {
            super::abandon(&call, output);
            return None;
        }
        match outcome {
            Ok(ToolOutput { text, structured, image, started }) => Some((
                ToolResult { image, ..ToolResult::new(text, Some(structured), None) },
                started,
            )),
            Err(err) => error(err.message, err.code),
        }
    }

    /// [`Toolbox::call`] as a future, for an async host: the call runs on a thread of its own,
    /// so the host's executor is never blocked. At most
    /// [`Toolbox::max_concurrent_calls`] such threads run at once (32 by default); up to
    /// [`Toolbox::max_queued_calls`] more calls (32 by default) wait for one of them to end,
    /// and a call past those is refused at once: its
    /// result is an error with code `busy` (as the MCP server's past its limit), and it was
    /// not run. Dropping the future before it completes cancels the call, as
    /// [`ToolCancel::cancel`] does: its wait or paste ends, and a command it submitted is
    /// interrupted (so a `tokio::time::timeout` around a `terminal_run` stops the command;
    /// give the tool a `timeout_ms` of its own to leave the command running); a call dropped
    /// while it waited for a thread is not run at all. It fails only when no thread can be
    /// started ([`crate::Error::Io`]).
    ///
    /// It takes its arguments as [`Toolbox::call`] does, by reference (the call's thread gets
    /// a copy), and the future borrows nothing: it may be spawned on any executor.
    pub fn call_async(&self, name: &str, arguments: &Value) -> EngineFuture<ToolResult> {
        let (future, producer) = EngineFuture::new();
        let cancel = ToolCancel::new();
        let (toolbox, name, own_cancel) = (self.clone(), name.to_owned(), cancel.clone());
        let arguments = arguments.clone();
        let job: Job = Box::new(move || {
            // Dropped before its thread took it: nothing is done (nobody waits for it).
            if own_cancel.0.is_cancelled() {
                return;
            }
            // Cancelled (the future was dropped): nobody waits for the result.
            let Some((result, started)) = toolbox.call_starting(&name, &arguments, &own_cancel)
            else {
                return;
            };
            // Dropped as the call ended: a session only the result names is not left
            // behind.
            if !Reply::Future(producer).send(Ok(result))
                && let Some(id) = started
            {
                super::abandon_session(&toolbox.engine, &toolbox.caller, id);
            }
        });
        match self.calls.submit(job) {
            Ok(()) => future.on_drop(move || cancel.cancel()),
            Err(Refused::Busy(limit, queue)) => {
                let message = format!(
                    "the toolbox is already running {limit} tool calls, and {queue} more wait for them (its limits); wait for some to finish, or cancel them, then call again"
                );
                EngineFuture::ready(Ok(ToolResult::new(message, None, Some("busy".to_owned()))))
            }
            Err(Refused::Io(err)) => {
                EngineFuture::ready(Err(crate::Error::io("starting a tool call's thread", err)))
            }
        }
    }

    /// Holds `max_bytes` to the host's budget, for the tools that take it. A value that is no
    /// whole number is left for the argument check to refuse, as it is without a budget.
    fn apply_budget(&self, name: &str, arguments: &mut Map<String, Value>) {
        let Some(budget) = self.max_bytes else { return };
        if !catalog::find(name).is_some_and(|tool| tool.accepts("max_bytes")) {
            return;
        }
        let held = match arguments.get("max_bytes") {
            None | Some(Value::Null) => budget,
            Some(asked) => match asked.as_u64() {
                Some(asked) => asked.min(budget),
                None => return,
            },
        };
        arguments.insert("max_bytes".into(), held.into());
    }
}
