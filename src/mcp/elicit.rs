//! Asking the person behind the MCP client (elicitation), as each revision defines it:
//!
//! - **2025-06-18 and 2025-11-25** (handshake): the server sends an `elicitation/create`
//!   request on the connection while the tool call waits; the client's response is routed
//!   back to the waiting call by its id ([`Asker`]).
//! - **2026-07-28** (stateless): the server cannot send requests. The tool call returns an
//!   `input_required` result naming what it needs (`inputRequests`); the client asks the
//!   person and calls the tool again with the answers in `inputResponses`, and the call is run
//!   again with them ([`Inputs::Rounds`]).
//! - **2024-11-05 and 2025-03-26** have no elicitation, nor has a client that did not declare
//!   the capability, or declared URL elicitation alone (termloom asks by forms): a question
//!   fails the call with a clear reason.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, bounded};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::inflight::CancelToken;
use super::jsonrpc::Id;
use super::outbox::Outbox;
use super::protocol::Revision;
use super::tools::ToolError;

/// What the person answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// Accepted, with the form's content.
    Accept(Map<String, Value>),
    /// Declined or cancelled (the action's name).
    Refused(String),
}

/// How a tool call can ask its client's person.
#[derive(Clone, Copy)]
pub(crate) enum Inputs<'a> {
    /// It cannot: the reason, for the model.
    Unavailable(&'static str),
    /// By a request on the connection (handshake revisions).
    Live(&'a Asker, Revision),
    /// By an `input_required` result; the answers the client sent with this round.
    Rounds(Option<&'a Answers>),
}

/// The answers a stateless client sent with a round of a call (`inputResponses`), kept as the
/// JSON text they came in: the call holds them while it runs, up to an hour's wait, and as a
/// tree of values a message's 4 MiB of small answers took ten times that (32 calls held 1.3
/// GB). A question looks its answer up in them, parsing them again.
#[derive(Debug)]
pub(crate) struct Answers(Box<RawValue>);

impl Answers {
    /// The answers written as `raw`, when it is an object (of question keys to answers).
    pub(crate) fn of(raw: Box<RawValue>) -> Option<Answers> {
        raw.get().starts_with('{').then_some(Answers(raw))
    }

    /// The answers by question key, each as written (parsed once: none when unreadable).
    pub(super) fn parsed(&self) -> HashMap<String, &RawValue> {
        serde_json::from_str(self.0.get()).unwrap_or_default()
    }

    /// The answer to the question `key`.
    pub(super) fn get(&self, key: &str) -> Option<Value> {
        let answers: HashMap<String, &RawValue> = serde_json::from_str(self.0.get()).ok()?;
        serde_json::from_str(answers.get(key)?.get()).ok()
    }
}

impl Inputs<'_> {
    /// Asks the person a form question: `key` names it (in `inputRequests`), `schema` is the
    /// form's `requestedSchema`.
    pub(crate) fn ask(
        &self,
        key: &str,
        message: &str,
        schema: Value,
        cancel: &std::sync::Arc<CancelToken>,
    ) -> Result<Answer, ToolError> {
        match *self {
            Inputs::Unavailable(why) => Err(ToolError::no_answer(why)),
            Inputs::Live(asker, revision) => {
                let mut params = json!({ "message": message, "requestedSchema": schema });
                if revision >= Revision::V2025_11_25 {
                    params["mode"] = json!("form");
                }
                asker.ask(params, cancel)
            }
            Inputs::Rounds(responses) => {
                // The key names the question itself, not only its kind: an answer to another
                // question (another command to start, another prompt) answers nothing here.
                let key = question_key(key, message, &schema);
                match responses.and_then(|r| r.get(&key)) {
                    Some(response) => answer_of(&response),
                    None => Err(ToolError::input_required(
                        &key,
                        json!({
                            "method": "elicitation/create",
                            "params": { "mode": "form", "message": message, "requestedSchema": schema },
                        }),
                    )),
                }
            }
        }
    }
}

/// The `inputRequests` key of a question: its kind, then a digest of what it asks (64-bit
/// FNV-1a of the message and the form), e.g. `approve_start-3f1c9a0b27d4e6f1`.
fn question_key(kind: &str, message: &str, schema: &Value) -> String {
    let digest =
        crate::digest::fnv1a(message.bytes().chain([0]).chain(schema.to_string().into_bytes()));
    format!("{kind}-{digest:016x}")
}

/// An `ElicitResult`, read.
pub(super) fn answer_of(result: &Value) -> Result<Answer, ToolError> {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => Ok(Answer::Accept(
            result.get("content").and_then(Value::as_object).cloned().unwrap_or_default(),
        )),
        Some(action @ ("decline" | "cancel")) => Ok(Answer::Refused(action.to_owned())),
        _ => Err(ToolError::no_answer(
            "the client answered the question with something other than an elicitation result (action accept, decline or cancel); nothing was done",
        )),
    }
}

/// What ends the wait for an answer, besides the timeout.
pub(super) enum Reply {
    /// The client's response: its result, or the message of its error.
    Answered(Result<Value, String>),
    /// The call that asked was cancelled, or the input ended.
    Stopped,
}

/// The questions a connection has sent and not had answered yet.
pub(crate) struct Asker {
    outbox: Outbox,
    pending: Mutex<HashMap<String, Sender<Reply>>>,
    next: AtomicU64,
    timeout: Duration,
}

impl Asker {
    /// An asker writing to `outbox`, giving up on a question after `timeout`.
    pub(crate) fn new(outbox: Outbox, timeout: Duration) -> Asker {
        Asker { outbox, pending: Mutex::default(), next: AtomicU64::new(1), timeout }
    }

    /// Sends `elicitation/create` with `params`; returns the question's key and where its
    /// answer comes (or [`Reply::Stopped`] when the call that asked is cancelled or the input
    /// ends).
    pub(super) fn post(
        &self,
        params: Value,
        cancel: &std::sync::Arc<CancelToken>,
    ) -> (String, Receiver<Reply>) {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let key = format!("termloom-elicit-{number}");
        let (sender, receiver) = bounded(2);
        self.lock().insert(key.clone(), sender.clone());
        cancel.on_stop(move || {
            let _ = sender.try_send(Reply::Stopped);
        });
        let request = json!({
            "jsonrpc": "2.0", "id": key, "method": "elicitation/create", "params": params,
        });
        self.outbox.send(request.to_string());
        (key, receiver)
    }

    /// Forgets question `key`; one given up on (`reason`) is cancelled with the client
    /// (`notifications/cancelled`), so that it no longer waits for the person.
    pub(super) fn forget(&self, key: &str, given_up: Option<&str>) {
        self.lock().remove(key);
        if let Some(reason) = given_up {
            let cancelled = json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": { "requestId": key, "reason": reason },
            });
            self.outbox.send(cancelled.to_string());
        }
    }

    /// Sends `elicitation/create` with `params` and waits for the answer, the call's end
    /// (cancellation or the end of the input) or the timeout.
    fn ask(
        &self,
        params: Value,
        cancel: &std::sync::Arc<CancelToken>,
    ) -> Result<Answer, ToolError> {
        let (key, receiver) = self.post(params, cancel);
        let reply = receiver.recv_timeout(self.timeout);
        let given_up = match &reply {
            Ok(Reply::Answered(_)) => None,
            Ok(Reply::Stopped) if cancel.is_cancelled() => Some("the tool call was cancelled"),
            Ok(Reply::Stopped) => Some("the server is closing"),
            Err(_) => Some("no answer in time"),
        };
        self.forget(&key, given_up);
        let unanswered = |message: String| Err(ToolError::no_answer(message));
        match reply {
            Ok(Reply::Answered(Ok(result))) => answer_of(&result),
            Ok(_) if cancel.is_cancelled() => Err(ToolError::cancelled()),
            Ok(Reply::Stopped) => unanswered(
                "the question to the person was abandoned: the connection is closing; nothing was done".to_owned(),
            ),
            Ok(Reply::Answered(Err(message))) => unanswered(format!(
                "the client could not ask the person ({message}); nothing was done"
            )),
            Err(_) => unanswered(format!(
                "the person did not answer within {:?}; nothing was done",
                self.timeout
            )),
        }
    }

    /// How long the person has to answer.
    pub(super) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sends a notification to the client.
    pub(super) fn notify(&self, message: &Value) {
        self.outbox.send(message.to_string());
    }

    /// Routes a response from the client to the question it answers (others are ignored);
    /// true if it named a question waiting for its answer.
    pub(crate) fn deliver(&self, id: Option<&Id>, outcome: Result<Value, String>) -> bool {
        let Some(id) = id else { return false };
        let key = serde_json::from_str::<String>(&id.to_string()).unwrap_or_default();
        if let Some(sender) = self.lock().get(&key) {
            let _ = sender.try_send(Reply::Answered(outcome));
            true
        } else {
            let id = crate::error::quoted(&id.to_string());
            log::debug!("termloom mcp: ignored a response to no question of ours (id {id})");
            false
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Sender<Reply>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_answers() {
        let accept = json!({"action": "accept", "content": {"secret": "x"}});
        let Answer::Accept(content) = answer_of(&accept).unwrap() else { panic!() };
        assert_eq!(content["secret"], "x");
        assert_eq!(
            answer_of(&json!({"action": "decline"})).unwrap(),
            Answer::Refused("decline".into())
        );
        assert!(answer_of(&json!({"action": "maybe"})).is_err());
    }

    #[test]
    fn rounds_ask_with_an_input_request_then_read_the_answer() {
        let cancel = CancelToken::new();
        let err = Inputs::Rounds(None).ask("approve", "ok?", json!({}), &cancel).unwrap_err();
        let (key, request) = err.input_request.unwrap();
        assert!(key.starts_with("approve-") && key.len() == "approve-".len() + 16, "{key}");
        assert_eq!(request["method"], "elicitation/create");
        let answers = json!({ key.clone(): {"action": "accept"} });
        let answers = Answers::of(serde_json::value::to_raw_value(&answers).unwrap()).unwrap();
        let answers = &answers;
        let answer =
            Inputs::Rounds(Some(answers)).ask("approve", "ok?", json!({}), &cancel).unwrap();
        assert_eq!(answer, Answer::Accept(Map::new()));
        // The answer to one question answers no other of the same kind.
        let other = Inputs::Rounds(Some(answers)).ask("approve", "other?", json!({}), &cancel);
        let (other_key, _) = other.unwrap_err().input_request.unwrap();
        assert_ne!(other_key, key);
        let none = Inputs::Unavailable("no").ask("approve", "ok?", json!({}), &cancel);
        assert!(Answers::of(RawValue::from_string("[1]".into()).unwrap()).is_none(), "an object");
        assert_eq!(none.unwrap_err().message, "no");
    }
}
