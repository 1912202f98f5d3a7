//! The server loop: reads one message per line, answers protocol requests at once, runs each
//! tool call on a worker thread, and closes every session when the input ends.

use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::Engine;

use super::ServeOptions;
use super::elicit::{Answers, Asker, Inputs};
use super::inflight::{InFlight, Refusal, Ticket};
use super::jsonrpc::{
    self, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Id, Incoming, METHOD_NOT_FOUND,
    RpcError, Verbatim, error_response, sniff_id, sniff_last_id, sniff_response,
};
use super::lines::{Line, LineReader};
use super::outbox::{Batch, Outbox, Responder, Writer};
use super::protocol::{Protocol, Served, has_envelope};
use super::tools::progress::Progress;
use super::tools::{self, Call, Caller, ToolError};
use super::url_secret::{Secrets, Waiting};

/// How long calls interrupted by the end of input get to answer before sessions are closed.
const DRAIN: Duration = Duration::from_secs(1);
/// How long calls get to finish once the engine has stopped.
const FINISH: Duration = Duration::from_secs(10);

/// What `termloom server` adds to serving MCP on one of its connections (see
/// `crate::server`): its own methods, a check before each tool call, and which caller's read
/// positions the calls use. A connection with an extension shares its engine: the end of its
/// input ends only its own calls' waits, and a malformed or oversized message closes it.
pub(crate) trait Extension: Send + Sync {
    /// The caller whose read positions and screens the connection's calls use now.
    fn caller(&self) -> Arc<Caller>;
    /// Answers a method MCP does not define; gives `responder` back when the method is not
    /// one of the extension's either.
    fn request(
        &self,
        method: &str,
        params: Map<String, Value>,
        responder: Responder,
        outbox: &Outbox,
    ) -> Option<Responder>;
    /// Checks (and may rewrite) a tool call before it runs: `Err` refuses it with a message
    /// for the model and its error code. `Ok` may hold what the call takes while it runs (a place among its
    /// client's sessions), given back when it is dropped: once the call has ended and
    /// [`Extension::called`] has seen its result, or when it is not run after all.
    fn admit(
        &self,
        tool: &str,
        arguments: &mut Map<String, Value>,
    ) -> Result<Option<Box<dyn Send>>, tools::ToolError>;
    /// Sees what a tool call that succeeded returned (its structured result).
    fn called(&self, tool: &str, arguments: &Map<String, Value>, result: &Value);
    /// The connection's input ended.
    fn closed(&self);
    /// Whether the client is gone, now that the connection's input ended: it closed the
    /// connection rather than only its own end of it, so it reads no more answers.
    fn client_gone(&self) -> bool {
        false
    }
    /// Whether a malformed or oversized message, once answered, closes the connection; when
    /// not, it is skipped and serving goes on, as on stdio.
    fn closes_on_bad_message(&self) -> bool {
        true
    }
}

/// Serves until the input ends, then closes every session and flushes the output.
pub(crate) fn run<R: BufRead, W: Write + Send + 'static>(
    engine: Engine,
    input: R,
    output: W,
    options: &ServeOptions,
) -> io::Result<()> {
    serve(engine, input, output, options, None)
}

/// Serves one connection of `termloom server` until its input ends or a bad message closes it;
/// the engine and its sessions go on.
pub(crate) fn run_connection<R: BufRead, W: Write + Send + 'static>(
    engine: Engine,
    input: R,
    output: W,
    options: &ServeOptions,
    extension: Arc<dyn Extension>,
) -> io::Result<()> {
    serve(engine, input, output, options, Some(extension))
}

fn serve<R: BufRead, W: Write + Send + 'static>(
    engine: Engine,
    input: R,
    output: W,
    options: &ServeOptions,
    extension: Option<Arc<dyn Extension>>,
) -> io::Result<()> {
    let (outbox, writer) = Writer::start(output, options.max_queued_bytes)?;
    let asker = Arc::new(Asker::new(outbox.clone(), options.elicitation_timeout));
    let waiting = Arc::new(Waiting::new(engine.clone(), options.elicitation_timeout));
    let mut server = Server {
        engine,
        asker,
        waiting,
        outbox,
        inflight: InFlight::new(options.max_concurrent_calls.max(1)),
        caller: Arc::default(),
        protocol: Protocol::new(),
        max_message_bytes: options.max_message_bytes,
        extension,
        refused: false,
    };
    let mut lines = LineReader::new(input, options.max_message_bytes);
    let result = loop {
        if server.refused {
            break Ok(());
        }
        match lines.next_line() {
            Ok(Some(Line::Message(bytes))) => server.message(&bytes),
            Ok(Some(Line::TooLong { prefix, tail, length })) => {
                server.too_long(&prefix, &tail, length);
            }
            Ok(None) => break Ok(()),
            Err(err) => {
                log::error!("termloom mcp: reading the input failed: {err}");
                break Err(err);
            }
        }
    };
    let idle = server.shut_down();
    if idle {
        writer.finish();
    } else {
        log::warn!("termloom mcp: some tool calls did not finish; exiting without them");
    }
    result
}

struct Server {
    engine: Engine,
    /// The questions sent to the client's person and not answered yet.
    asker: Arc<Asker>,
    /// The pages for secrets stateless rounds opened, waiting for their calls' retries.
    waiting: Arc<Waiting>,
    outbox: Outbox,
    inflight: Arc<InFlight>,
    caller: Arc<Caller>,
    protocol: Protocol,
    max_message_bytes: usize,
    /// What `termloom server` adds, on its connections.
    extension: Option<Arc<dyn Extension>>,
    /// A bad message was answered and, on a server connection, ends it.
    refused: bool,
}

impl Server {
    /// Handles one line: a message or a batch.
    fn message(&mut self, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match jsonrpc::parse(bytes) {
            jsonrpc::Line::One(message) => self.one(message, None),
            jsonrpc::Line::Batch(items) => {
                if let Err(error) = self.protocol.admit_batch() {
                    // One answer for the whole batch, as for any message that is no valid
                    // request; nothing in it is run. Its `data` says how many messages it
                    // refused, by which `termloom mcp --server` knows which of the host's
                    // lines it answers.
                    let error = error.with_data(json!({ "batch": items.len() }));
                    return self.one(Incoming::Invalid { id: Id::null(), error }, None);
                }
                // The batch's responses are held until the last is in: no more of them than a
                // message may hold are asked for.
                let batch = Batch::new(self.outbox.clone(), self.max_message_bytes);
                for item in items {
                    match item {
                        Incoming::Request { id, .. } if batch.is_full() => {
                            Responder::in_batch(id, &batch).error(&RpcError::new(
                                INVALID_REQUEST,
                                format!(
                                    "not run: this batch's answers passed {} bytes; send it again",
                                    self.max_message_bytes
                                ),
                            ));
                        }
                        item => self.one(item, Some(&batch)),
                    }
                }
                batch.seal();
            }
        }
    }

    /// Answers a line longer than the limit, under its id when its beginning or its end (as
    /// the TypeScript SDK writes it) shows it.
    fn too_long(&mut self, prefix: &[u8], tail: &[u8], length: u64) {
        let id = sniff_id(prefix).or_else(|| sniff_last_id(tail)).unwrap_or_else(Id::null);
        log::warn!(
            "termloom mcp: refused a message of {length} bytes (id {})",
            tools::quoted(&id.to_string())
        );
        let error = RpcError::new(
            INVALID_REQUEST,
            format!(
                "message too large: {length} bytes, and messages are limited to {} bytes; send less at once (for example, paste long text in pieces)",
                self.max_message_bytes
            ),
        )
        .with_data(json!({ "limit": self.max_message_bytes, "length": length }));
        // The client's answer to a question of ours: the question ends, saying why, and a
        // response gets no response, even one to a question no longer waiting.
        if sniff_response(prefix) {
            let why = format!(
                "its answer was {length} bytes, and messages are limited to {} bytes",
                self.max_message_bytes
            );
            self.asker.deliver(Some(&id), Err(why));
        } else {
            self.outbox.send(error_response(&id, &error));
        }
        self.refused = self.closes_on_bad_message();
    }

    /// Whether a bad message ends the connection (on a server connection, unless it relays
    /// an MCP host).
    fn closes_on_bad_message(&self) -> bool {
        self.extension.as_ref().is_some_and(|extension| extension.closes_on_bad_message())
    }

    /// Handles one message, alone or in a batch.
    fn one(&mut self, message: Incoming, batch: Option<&Arc<Batch>>) {
        let responder = |id: Id, outbox: &Outbox| match batch {
            Some(batch) => Responder::in_batch(id, batch),
            None => Responder::direct(id, outbox.clone()),
        };
        match message {
            Incoming::Invalid { id, error } => {
                // (An answer to a question of ours that cannot be read is a `Response`.)
                responder(id, &self.outbox).error(&error);
                self.refused = self.closes_on_bad_message();
            }
            Incoming::Response { id, outcome } => {
                self.asker.deliver(id.as_ref(), outcome);
            }
            Incoming::Notification { method, request_id } => {
                self.notification(&method, request_id.as_ref());
            }
            Incoming::Request { id, method, params, progress_token, input_responses } => {
                let responder = responder(id, &self.outbox);
                self.request(responder, &method, params, progress_token, input_responses);
            }
        }
    }

    fn notification(&mut self, method: &str, request_id: Option<&Id>) {
        if method == "notifications/cancelled"
            && let Some(id) = request_id
        {
            // Per the protocol, the cancelled request gets no response.
            self.inflight.cancel(id);
        }
        // notifications/initialized needs no action; unknown notifications are ignored.
    }

    fn request(
        &mut self,
        responder: Responder,
        method: &str,
        params: Option<Map<String, Value>>,
        progress_token: Option<Id>,
        input_responses: Option<Verbatim>,
    ) {
        match method {
            "ping" => {
                if has_envelope(params.as_ref()) {
                    match self.protocol.admit(method, params.as_ref()) {
                        Ok(served) => responder.result(served.finish(json!({}))),
                        Err(error) => responder.error(&error),
                    }
                } else {
                    responder.result(json!({}));
                }
            }
            "initialize" if responder.is_batched() => responder.error(&RpcError::new(
                INVALID_REQUEST,
                "initialize must not be part of a JSON-RPC batch; send it alone",
            )),
            "initialize" => match self.protocol.initialize(params.as_ref()) {
                Ok((served, result)) => responder.result(served.finish(result)),
                Err(error) => responder.error(&error),
            },
            "server/discover" | "tools/list" | "tools/call" => {
                let served = match self.protocol.admit(method, params.as_ref()) {
                    Ok(served) => served,
                    Err(error) => return responder.error(&error),
                };
                match method {
                    "server/discover" => {
                        responder.result(served.finish(Protocol::discover(served)));
                    }
                    "tools/list" => self.list_tools(responder, served, params.as_ref()),
                    _ => self.call_tool(
                        responder,
                        served,
                        params.unwrap_or_default(),
                        progress_token,
                        input_responses,
                    ),
                }
            }
            _ => {
                let responder = match &self.extension {
                    Some(extension) => match extension.request(
                        method,
                        params.unwrap_or_default(),
                        responder,
                        &self.outbox,
                    ) {
                        Some(responder) => responder,
                        None => return,
                    },
                    None => responder,
                };
                let message = match method.starts_with("notifications/") {
                    // A notification sent with an id is a request, which no method of that
                    // name answers: it is not acted on.
                    true => format!(
                        "method not found: {} is a notification, and a notification has no id: send it without one (nothing was done)",
                        tools::quoted(method)
                    ),
                    false => format!(
                        "method not found: {}; this server offers initialize, ping, tools/list, tools/call and server/discover",
                        tools::quoted(method)
                    ),
                };
                responder.error(&RpcError::new(METHOD_NOT_FOUND, message));
            }
        }
    }

    fn list_tools(
        &self,
        responder: Responder,
        served: Served,
        params: Option<&Map<String, Value>>,
    ) {
        if let Some(cursor) = params.and_then(|p| p.get("cursor")).filter(|c| !c.is_null()) {
            return responder.error(&RpcError::new(
                INVALID_PARAMS,
                format!(
                    "invalid cursor {}: the tool list has one page; list without a cursor",
                    tools::quoted(
                        &cursor.as_str().map_or_else(|| cursor.to_string(), str::to_owned)
                    )
                ),
            ));
        }
        responder.result(served.finish(served.cacheable(tools::list(served.revision))));
    }

    fn call_tool(
        &self,
        responder: Responder,
        served: Served,
        mut params: Map<String, Value>,
        progress_token: Option<Id>,
        input_responses: Option<Verbatim>,
    ) {
        let name = match params.get("name") {
            Some(Value::String(name)) if tools::exists(name) => name.clone(),
            Some(Value::String(name)) => {
                return responder.error(&RpcError::new(
                    INVALID_PARAMS,
                    format!(
                        "unknown tool {}; the tools are {}",
                        tools::quoted(name),
                        tools::NAMES.join(", ")
                    ),
                ));
            }
            _ => {
                return responder.error(&RpcError::new(
                    INVALID_PARAMS,
                    "tools/call needs params.name, a tool name from tools/list",
                ));
            }
        };
        // Taken, not copied: they may be most of a message.
        let mut arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(_) => {
                return responder.error(&RpcError::new(
                    INVALID_PARAMS,
                    format!("tools/call: params.arguments must be an object of {name}'s arguments"),
                ));
            }
        };
        let held = match self.extension.as_ref().map(|e| e.admit(&name, &mut arguments)) {
            None => None,
            Some(Ok(held)) => held,
            Some(Err(err)) => {
                return responder.result(served.finish(tools::refusal(&err.message, err.code)));
            }
        };
        let ticket = match self.inflight.admit(responder.id()) {
            Ok(ticket) => ticket,
            Err(Refusal::DuplicateId) => {
                let message = format!(
                    "request id {} is already used by a request in progress; use a new id",
                    responder.id()
                );
                return responder.error(&RpcError::new(INVALID_REQUEST, message));
            }
            Err(Refusal::Busy(limit)) => {
                let message = format!(
                    "the server is already running {limit} tool calls (its limit); wait for some to finish, or cancel them, then call again"
                );
                return responder.result(served.finish(tools::refusal(&message, "busy")));
            }
        };
        let progress = progress_token.map(|token| Progress::new(token, self.outbox.clone()));
        // 2026-07-28: the answers to the questions a previous round of this call asked, as
        // written. No other revision has them, nor a client that cannot be asked: they are
        // not kept.
        let answers = match served.revision.is_modern() && (served.elicitation || served.url) {
            true => input_responses.and_then(|answers| Answers::of(answers.0)),
            false => None,
        };
        let one_copy = params
            .get("_meta")
            .and_then(|meta| meta.get(ONE_COPY))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let job =
            Job { responder, ticket, name, arguments, served, progress, answers, one_copy, held };
        let job = Arc::new(Mutex::new(Some(job)));
        let engine = self.engine.clone();
        let caller = match &self.extension {
            Some(extension) => extension.caller(),
            None => self.caller.clone(),
        };
        let extension = self.extension.clone();
        let asker = self.asker.clone();
        let waiting = self.waiting.clone();
        let taken = job.clone();
        let spawned =
            std::thread::Builder::new().name("termloom-mcp-call".into()).spawn(move || {
                if let Some(job) = taken.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    job.run(&engine, &caller, (&asker, &waiting), extension.as_deref());
                }
            });
        if let Err(err) = spawned
            && let Some(job) = job.lock().unwrap_or_else(|e| e.into_inner()).take()
        {
            let message = format!("cannot start a thread for the tool call: {err}");
            job.responder.error(&RpcError::new(INTERNAL_ERROR, message));
        }
    }

    /// Ends every call's waits, closes every session, and waits for the calls to answer;
    /// true if they all did.
    /// On a server connection only this connection's calls end; the engine goes on.
    fn shut_down(self) -> bool {
        let gone = self.extension.as_ref().is_some_and(|extension| extension.client_gone());
        self.inflight.interrupt_all(gone);
        self.inflight.wait_idle(DRAIN);
        match &self.extension {
            Some(extension) => extension.closed(),
            None => self.engine.shutdown(),
        }
        self.inflight.wait_idle(FINISH)
    }
}

/// The `_meta` field of a `tools/call` by which a client says it reads one copy of the
/// result's strings, the text or the structured content, so that `max_bytes` bounds that copy
/// ([`Call::one_copy`](tools::Call::one_copy)); termloom's command line sends it.
pub(crate) const ONE_COPY: &str = "termloom/one_copy";

/// A tool call handed to a worker thread.
struct Job {
    responder: Responder,
    /// Held until the answer is queued, so the call counts as in progress until then.
    ticket: Ticket,
    name: String,
    arguments: Map<String, Value>,
    served: Served,
    progress: Option<Progress>,
    /// `inputResponses` (2026-07-28).
    answers: Option<Answers>,
    /// The client reads one copy of the result's strings ([`ONE_COPY`]).
    one_copy: bool,
    /// What the extension's admission gave the call to hold while it runs.
    held: Option<Box<dyn Send>>,
}

/// Why a call cannot ask its client's person.
const CANNOT_ASK: &str = "this MCP client did not declare elicitation by a form (or its protocol revision has none), so no one can be asked; nothing was done";

/// Why a call cannot ask its client's person for a secret: the client has no URL elicitation.
const NO_URL: &str = "this MCP client did not declare URL-mode elicitation (capability elicitation.url, from protocol 2025-11-25), and the MCP specification forbids asking for a password by a form, so no one can be asked";

impl Job {
    fn run(
        self,
        engine: &Engine,
        caller: &Caller,
        (asker, waiting): (&Asker, &Waiting),
        extension: Option<&dyn Extension>,
    ) {
        let Job { responder, ticket, name, arguments, served, progress, answers, one_copy, held } =
            self;
        // Given back when the call ends, after the extension saw its result.
        let _held = held;
        let token = ticket.token().clone();
        let progress = progress.as_ref();
        let inputs = match (served.elicitation, served.revision.is_modern()) {
            (false, _) => Inputs::Unavailable(CANNOT_ASK),
            (true, true) => Inputs::Rounds(answers.as_ref()),
            (true, false) => Inputs::Live(asker, served.revision),
        };
        let secrets = match (served.url, served.revision.is_modern()) {
            (false, _) => Secrets::Unavailable(NO_URL),
            (true, true) => Secrets::Rounds(waiting, answers.as_ref()),
            (true, false) => Secrets::Live(asker),
        };
        let revision = served.revision;
        let largest = tools::view::MAX_BYTES_RANGE.1 as usize;
        let call = Call {
            engine,
            cancel: &token,
            caller,
            progress,
            revision,
            one_copy,
            inputs,
            secrets,
            largest,
            offered: tools::offered::Offered::ALL,
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| tools::run(&call, &name, &arguments)));
        #[cfg(feature = "fault-injection")]
        if engine.config().inject_cancel_after_tool.as_deref() == Some(name.as_str()) {
            token.cancel();
        }
        let cancelled = token.is_cancelled();
        if cancelled && let Ok(Some(Ok(output))) = &outcome {
            // Cancelled after the tool had its result: the result is not sent, so a session
            // it started, which only the result names, is closed rather than left running.
            // (A cancellation that comes after this check is too late: the result is sent.)
            tools::abandon(&call, output);
        }
        // The call stops running once its answer is decided, so that a client sending its
        // next call as soon as it reads this answer finds the place free; it still counts
        // until the answer is queued (a client that does not read holds it there).
        let _answering = ticket.answering();
        match outcome {
            _ if cancelled => responder.silence(),
            Ok(Some(Err(ToolError { input_request: Some((key, request)), .. }))) => {
                let result = json!({
                    "resultType": "input_required",
                    "inputRequests": { key: request },
                });
                responder.result(served.finish(result));
            }
            Ok(Some(outcome)) => {
                if let (Some(extension), Ok(output)) = (extension, &outcome) {
                    extension.called(&name, &arguments, &output.structured);
                }
                responder.result(served.finish(tools::result(&call, outcome)));
            }
            Ok(None) => responder.silence(),
            Err(_) => responder.error(&RpcError::new(
                INTERNAL_ERROR,
                format!("the {name} tool failed unexpectedly; the server goes on (details on its stderr)"),
            )),
        }
    }
}
