//! JSON-RPC 2.0: classifying one incoming message, and the shapes of responses and errors.

use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// The message is not valid JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// The JSON is not a valid request object (or the request is not acceptable now).
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// The method's parameters are wrong.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// Something failed inside the server.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// The per-request protocol version is not one the server speaks (MCP 2026-07-28).
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Most JSON values one message may hold (every string, an object's keys among them, number,
/// `true`, `false`, `null`, array and object, counted in its text before any is parsed): a
/// message is parsed into a tree of values, and `[0,0,…]` takes 32 bytes of it for each 2
/// bytes of text (a 4 MiB message took 65 MB). A message holding more is refused whole,
/// nothing in it parsed or run, with an error naming this bound: 16,384 values take at most
/// a few MiB, and text in a long string counts once.
pub(crate) const MAX_MESSAGE_VALUES: usize = 16_384;

/// Longest progress token accepted, in bytes of its JSON text: every progress notification
/// of a call repeats it, one each 2 s of a wait of up to an hour.
pub(crate) const MAX_PROGRESS_TOKEN_BYTES: usize = 256;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    /// The error code.
    pub code: i64,
    /// One sentence saying what is wrong and, where possible, what to do.
    pub message: String,
    /// Extra data, if any.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data. Its message is held to about 2 KiB, its start and its advice
    /// kept, whatever it repeats of a request (`crate::error::bound_message`), as a tool's is.
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        let mut message = message.into();
        crate::error::bound_message(&mut message);
        RpcError { code, message, data: None }
    }

    /// Attaches data.
    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The error as JSON.
    pub(crate) fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }
}

/// A request id exactly as the client wrote it: the JSON text of a string or a number (or
/// `null` when none could be read), echoed verbatim in the response. Parsing it into a number
/// would round ids beyond 2^53, and re-encoding a string would change its escapes.
#[derive(Debug, Clone)]
pub(crate) struct Id(Box<RawValue>);

impl Id {
    /// `null`, for an answer to a message whose id could not be read.
    pub(crate) fn null() -> Id {
        Id(RawValue::NULL.to_owned())
    }

    /// The id written as `text`, if it is one JSON string or number.
    pub(crate) fn parse(text: &[u8]) -> Option<Id> {
        let raw: &RawValue = serde_json::from_slice(text).ok()?;
        Id::of(raw)
    }

    /// `raw` as a progress token, if it is a string or a whole number (MCP: "a string or
    /// integer value") of at most [`MAX_PROGRESS_TOKEN_BYTES`]: it is echoed as written, as
    /// an id is.
    pub(crate) fn progress_token(raw: &RawValue) -> Option<Id> {
        let text = raw.get();
        let whole = !text.contains(['.', 'e', 'E']);
        let short = text.len() <= MAX_PROGRESS_TOKEN_BYTES;
        Id::of(raw).filter(|_| short && (text.starts_with('"') || whole))
    }

    /// `raw` as an id, if it is a string or a number.
    fn of(raw: &RawValue) -> Option<Id> {
        matches!(raw.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9'))
            .then(|| Id(raw.to_owned()))
    }

    /// What tells requests in progress apart: a string by its characters (however they were
    /// escaped), a number by its text; a string never matches a number.
    pub(crate) fn key(&self) -> String {
        let text = self.0.get();
        match serde_json::from_str::<String>(text) {
            Ok(string) => format!("s{string}"),
            Err(_) => format!("n{text}"),
        }
    }
}

impl PartialEq for Id {
    fn eq(&self, other: &Id) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for Id {}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.get())
    }
}

/// A JSON value exactly as the client wrote it, compared by its text.
#[derive(Debug, Clone)]
pub(crate) struct Verbatim(pub(crate) Box<RawValue>);

impl PartialEq for Verbatim {
    fn eq(&self, other: &Verbatim) -> bool {
        self.0.get() == other.0.get()
    }
}

/// One message from the client, classified.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request: it gets exactly one response (unless it is cancelled).
    Request {
        /// Its id, as written.
        id: Id,
        /// The method.
        method: String,
        /// Named parameters (absent or `null` params are `None`).
        params: Option<Map<String, Value>>,
        /// `params._meta.progressToken` exactly as written (absent or `null`: `None`), for
        /// the progress notifications to echo byte for byte (parsed, a whole number past
        /// 2^64 was a float, and no notification could name it). A request with one that is
        /// neither a string nor an integer, or longer than [`MAX_PROGRESS_TOKEN_BYTES`], is
        /// `Invalid` (`-32602`), whatever its method.
        progress_token: Option<Id>,
        /// `params.inputResponses` (MCP 2026-07-28: the answers to a call's questions) as
        /// written, not parsed (absent or `null`: `None`): a call may hold them for as long as
        /// it waits, up to `max_message_bytes` each, and as a tree of values small answers took
        /// ten times their text.
        input_responses: Option<Verbatim>,
    },
    /// A notification: it gets no response.
    Notification {
        /// The method.
        method: String,
        /// `params.requestId` as written, when it is a string or a number: the request a
        /// `notifications/cancelled` names. The server reads nothing else of notifications.
        request_id: Option<Id>,
    },
    /// A response from the client to a request of the server's (an elicitation).
    Response {
        /// Its id, when it is a string or a number.
        id: Option<Id>,
        /// Its result, or the message of its error.
        outcome: Result<Value, String>,
    },
    /// Not a valid request: answered with `error`, under `id` when one could be read.
    Invalid {
        /// The request's id, or `null`.
        id: Id,
        /// What is wrong with it.
        error: RpcError,
    },
}

/// One line of input, parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    /// One message.
    One(Incoming),
    /// A (non-empty) batch of messages, answered with one array.
    Batch(Vec<Incoming>),
}

/// Parses one line of input. A line that is not valid JSON (or not UTF-8) is an `Invalid`
/// message, under the id its bytes show when they show one.
pub(crate) fn parse(bytes: &[u8]) -> Line {
    let parse_error = |err: serde_json::Error| {
        let error = RpcError::new(
            PARSE_ERROR,
            format!(
                "parse error: the message is not valid JSON ({err}); send one JSON-RPC message per line"
            ),
        );
        let id = sniff_id(bytes);
        Line::One(match sniff_response(bytes) {
            true => unreadable_response(id, &error),
            false => Incoming::Invalid { id: id.unwrap_or_else(Id::null), error },
        })
    };
    let message: &RawValue = match serde_json::from_slice(bytes) {
        Ok(message) => message,
        Err(err) => return parse_error(err),
    };
    if holds_more_values_than(message.get().as_bytes(), MAX_MESSAGE_VALUES) {
        let error = RpcError::new(
            INVALID_REQUEST,
            format!(
                "message too complex: it holds more than {MAX_MESSAGE_VALUES} JSON values (strings, numbers, arrays, objects...), and a message may hold at most {MAX_MESSAGE_VALUES}; nothing in it was run: send fewer values at once (long text in one string counts once)"
            ),
        )
        .with_data(json!({ "maxValues": MAX_MESSAGE_VALUES, "length": bytes.len() }));
        let id = sniff_id(bytes);
        return Line::One(match sniff_response(bytes) {
            true => unreadable_response(id, &error),
            false => Incoming::Invalid { id: id.unwrap_or_else(Id::null), error },
        });
    }
    if !message.get().starts_with('[') {
        return Line::One(classify(message));
    }
    match serde_json::from_str::<Vec<&RawValue>>(message.get()) {
        Ok(items) if items.is_empty() => Line::One(Incoming::Invalid {
            id: Id::null(),
            error: RpcError::new(INVALID_REQUEST, "an empty JSON-RPC batch"),
        }),
        Ok(items) => Line::Batch(items.into_iter().map(classify).collect()),
        Err(err) => parse_error(err),
    }
}

/// Whether the JSON text `json` (valid JSON) holds more than `limit` values: each string (an
/// object's keys too), number, literal, array and object counts one. Stops counting past
/// `limit`, and allocates nothing.
pub(crate) fn holds_more_values_than(json: &[u8], limit: usize) -> bool {
    let mut count = 0usize;
    let mut at = 0;
    // Inside a number or a literal, counted at its first byte.
    let mut in_scalar = false;
    while let Some(&byte) = json.get(at) {
        match byte {
            b'"' => {
                count += 1;
                in_scalar = false;
                at += 1;
                // To the closing quote, over escapes.
                loop {
                    let rest = json.get(at..).unwrap_or_default();
                    match memchr::memchr2(b'"', b'\\', rest) {
                        Some(i) if rest[i] == b'\\' => at += i + 2,
                        Some(i) => break at += i,
                        None => return count > limit,
                    }
                }
            }
            b'{' | b'[' => {
                count += 1;
                in_scalar = false;
            }
            b',' | b':' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' => in_scalar = false,
            _ if !in_scalar => {
                count += 1;
                in_scalar = true;
            }
            _ => {}
        }
        if count > limit {
            return true;
        }
        at += 1;
    }
    false
}

/// Classifies one JSON value (an element of a batch, or a whole message).
fn classify(message: &RawValue) -> Incoming {
    let Some(mut message) = members(message) else {
        return invalid(Id::null(), "a JSON-RPC message must be a JSON object");
    };
    let id = message.remove("id");
    let usable_id = id.and_then(Id::of);
    let reply_id = usable_id.clone().unwrap_or_else(Id::null);
    let value = |raw: &RawValue| serde_json::from_str::<Value>(raw.get());
    if !message.get("jsonrpc").is_some_and(|v| value(v).is_ok_and(|v| v == "2.0")) {
        let error = RpcError::new(INVALID_REQUEST, "the message must have \"jsonrpc\": \"2.0\"");
        let response = ["result", "error"].iter().any(|key| message.contains_key(*key));
        return match response && !message.contains_key("method") {
            true => unreadable_response(usable_id, &error),
            false => Incoming::Invalid { id: reply_id, error },
        };
    }
    let method = match message.remove("method").map(|m| serde_json::from_str::<String>(m.get())) {
        Some(Ok(method)) => method,
        Some(Err(_)) => return invalid(reply_id, "\"method\" must be a string"),
        None if message.contains_key("result") || message.contains_key("error") => {
            let outcome = match (message.get("result"), message.get("error")) {
                (Some(result), _) => value(result).map_err(|e| e.to_string()),
                (None, Some(error)) => Err(value(error)
                    .ok()
                    .and_then(|e| e.get("message").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "an error without a message".into())),
                (None, None) => unreachable!("checked above"),
            };
            return Incoming::Response { id: usable_id, outcome };
        }
        None => return invalid(reply_id, "the message has no \"method\""),
    };
    let params = message.remove("params").filter(|p| p.get() != "null");
    match params.map(|p| p.get().as_bytes()[0]) {
        None | Some(b'{') => {}
        Some(b'[') => {
            let error = RpcError::new(
                INVALID_PARAMS,
                format!(
                    "{} takes named parameters: \"params\" must be an object",
                    crate::error::quoted(&method)
                ),
            );
            return match usable_id {
                Some(id) => Incoming::Invalid { id, error },
                // A notification with bad params is dropped, like any notification.
                None => Incoming::Notification { method, request_id: None },
            };
        }
        Some(_) => return invalid(reply_id, "\"params\" must be an object"),
    }
    match (id, usable_id) {
        (None, _) => {
            let request_id = params
                .and_then(members)
                .and_then(|mut params| params.remove("requestId"))
                .and_then(Id::of);
            Incoming::Notification { method, request_id }
        }
        (Some(_), Some(id)) => {
            let progress_token = params
                .and_then(members)
                .and_then(|mut params| params.remove("_meta"))
                .and_then(members)
                .and_then(|mut meta| meta.remove("progressToken"))
                .filter(|token| token.get() != "null")
                .map(|token| Id::progress_token(token).ok_or(token))
                .transpose();
            // Refused before the params are parsed: an integer too large for a float could
            // not be.
            let progress_token = match progress_token {
                Ok(token) => token,
                Err(token) => {
                    let error = RpcError::new(
                        INVALID_PARAMS,
                        format!(
                            "params._meta.progressToken must be a string or an integer of at most {MAX_PROGRESS_TOKEN_BYTES} bytes, not {}; leave it out for no progress notifications",
                            crate::error::quoted(token.get())
                        ),
                    );
                    return Incoming::Invalid { id, error };
                }
            };
            let unreadable = |err: serde_json::Error| {
                let error = RpcError::new(
                    PARSE_ERROR,
                    format!(
                        "parse error: the params of {} cannot be read ({err})",
                        crate::error::quoted(&method)
                    ),
                );
                Incoming::Invalid { id: id.clone(), error }
            };
            let mut params = match params.map(|p| serde_json::from_str(p.get())).transpose() {
                Ok(params) => params,
                Err(err) => return unreadable(err),
            };
            let input_responses = params
                .as_mut()
                .and_then(|params: &mut HashMap<String, &RawValue>| params.remove("inputResponses"))
                .filter(|answers| answers.get() != "null")
                .map(|answers| Verbatim(answers.to_owned()));
            let params = match params.map(parsed).transpose() {
                Ok(params) => params,
                Err(err) => return unreadable(err),
            };
            Incoming::Request { id, method, params, progress_token, input_responses }
        }
        (Some(_), None) => invalid(Id::null(), "the request id must be a string or a number"),
    }
}

/// The members of a JSON object, each as written; `None` if `value` is not an object.
fn members(value: &RawValue) -> Option<HashMap<String, &RawValue>> {
    serde_json::from_str(value.get()).ok()
}

/// An object's members, each parsed.
fn parsed(members: HashMap<String, &RawValue>) -> Result<Map<String, Value>, serde_json::Error> {
    members.into_iter().map(|(name, raw)| Ok((name, serde_json::from_str(raw.get())?))).collect()
}

/// A response that cannot be read, as the question it answers hears it (a response gets no
/// response, even an error).
fn unreadable_response(id: Option<Id>, error: &RpcError) -> Incoming {
    let outcome = Err(format!("its answer could not be read: {}", error.message));
    Incoming::Response { id, outcome }
}

fn invalid(id: Id, message: &str) -> Incoming {
    Incoming::Invalid { id, error: RpcError::new(INVALID_REQUEST, message) }
}

/// A success response, as one line of JSON (without the line end).
pub(crate) fn result_response(id: &Id, result: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// An error response, as one line of JSON (without the line end).
pub(crate) fn error_response(id: &Id, error: &RpcError) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{}}}"#, error.to_json())
}

/// Finds a top-level `"id"` member with a string or number value in the beginning of a JSON
/// object, without parsing the (possibly cut or invalid) rest. Used to answer an oversized
/// request, or one that is not valid JSON or not UTF-8, under its own id.
pub(crate) fn sniff_id(prefix: &[u8]) -> Option<Id> {
    walk(prefix, |key, value| match (key, value) {
        ("id", Some(value)) => Some(Id::parse(value)),
        _ => None,
    })?
}

/// Whether the beginning of a JSON object shows a response, a top-level `"result"` or
/// `"error"` member before any `"method"`, without parsing the (possibly cut or invalid)
/// rest: an oversized or unreadable answer to a question of the server's, never answered.
pub(crate) fn sniff_response(prefix: &[u8]) -> bool {
    walk(prefix, |key, value| match (key, value) {
        ("result" | "error", None) => Some(true),
        ("method", None) => Some(false),
        _ => None,
    })
    .unwrap_or(false)
}

/// Walks the top-level members of the JSON object `prefix` begins, as far as they can be
/// read: `visit` sees each key, first alone, then with its value's text; the first `Some` it
/// gives ends the walk.
fn walk<T>(prefix: &[u8], mut visit: impl FnMut(&str, Option<&[u8]>) -> Option<T>) -> Option<T> {
    let mut scanner = Scanner { bytes: prefix, at: 0 };
    scanner.skip_blank();
    if !scanner.eat(b'{') {
        return None;
    }
    loop {
        scanner.skip_blank();
        let key = scanner.string()?;
        if let Some(found) = visit(&key, None) {
            return Some(found);
        }
        scanner.skip_blank();
        if !scanner.eat(b':') {
            return None;
        }
        scanner.skip_blank();
        let start = scanner.at;
        scanner.value()?;
        if let Some(found) = visit(&key, Some(&prefix[start..scanner.at])) {
            return Some(found);
        }
        scanner.skip_blank();
        if !scanner.eat(b',') {
            return None;
        }
    }
}

/// Finds a top-level `"id"` member with a string or number value at the end of a JSON object
/// (`…,"id":7}`, where the TypeScript SDK writes it), in the object's last bytes. Used, as
/// [`sniff_id`], for an oversized message.
pub(crate) fn sniff_last_id(tail: &[u8]) -> Option<Id> {
    let text = tail.trim_ascii_end().strip_suffix(b"}")?.trim_ascii_end();
    let start = match text.strip_suffix(b"\"") {
        // A string: from the last quote before its end that no backslash escapes.
        Some(body) => {
            let mut end = body.len();
            loop {
                let quote = memchr::memrchr(b'"', &body[..end])?;
                let slashes = body[..quote].iter().rev().take_while(|b| **b == b'\\').count();
                if slashes % 2 == 0 {
                    break quote;
                }
                end = quote;
            }
        }
        None => {
            let number = |b: &&u8| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E');
            text.len() - text.iter().rev().take_while(number).count()
        }
    };
    let id = Id::parse(&text[start..])?;
    let before = text[..start].trim_ascii_end().strip_suffix(b":")?.trim_ascii_end();
    // `"id"` a key of its own, not the end of a longer one (`"x\"id"`).
    let before = before.strip_suffix(b"\"id\"")?.trim_ascii_end();
    matches!(before.last(), Some(b',' | b'{')).then_some(id)
}

/// A minimal JSON skimmer over a byte prefix.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// A string; returns its raw contents (escapes left as they are).
    fn string(&mut self) -> Option<String> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        let raw = String::from_utf8_lossy(self.bytes.get(start..self.at)?).into_owned();
        self.at += 1;
        Some(raw)
    }

    /// Skips one value of any kind.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while !matches!(self.peek()?, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    self.at += 1;
                }
                Some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Incoming {
        match super::parse(text.as_bytes()) {
            Line::One(incoming) => incoming,
            Line::Batch(_) => panic!("a batch"),
        }
    }

    fn raw_id(text: &str) -> Id {
        Id::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn classifies_messages() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Incoming::Request { method, params: None, .. } if method == "ping"
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Incoming::Notification { request_id: None, .. }
        ));
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Incoming::Response { id: Some(raw_id("1")), outcome: Ok(json!({})) }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":"e","error":{"code":-1,"message":"no"}}"#),
            Incoming::Response { id: Some(raw_id("\"e\"")), outcome: Err("no".into()) }
        );
        let Incoming::Invalid { id: got, error } =
            parse(r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!((got, error.code), (raw_id(r#""a""#), INVALID_REQUEST));
        let Incoming::Invalid { id, .. } = parse(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!(id, Id::null());
        let Incoming::Invalid { error, .. } =
            parse(r#"{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}"#)
        else {
            panic!()
        };
        assert_eq!(error.code, INVALID_PARAMS);
        let Line::Batch(items) = super::parse(b"[1]") else { panic!() };
        assert!(matches!(items[..], [Incoming::Invalid { .. }]));
        assert!(
            matches!(parse("[]"), Incoming::Invalid { error, .. } if error.code == INVALID_REQUEST)
        );
    }

    /// A message is refused once it holds more values than [`MAX_MESSAGE_VALUES`], counted in
    /// its text, under its id: `[0,0,…]` in a 4 MiB ping's params took 65 MB as a tree of
    /// values before the method was looked at.
    #[test]
    fn a_message_of_too_many_values_is_refused_unparsed() {
        let counted = br#"{"a":[1,-2.5e3,true,null,"x\"y",{}, [ ]],"b":""}"#;
        assert!(!holds_more_values_than(counted, 12));
        assert!(holds_more_values_than(counted, 11));
        // 11 values besides the array's items.
        let ping = |items: usize| {
            let junk = vec!["0"; items].join(",");
            format!(r#"{{"jsonrpc":"2.0","id":"v","method":"ping","params":{{"junk":[{junk}]}}}}"#)
        };
        assert!(matches!(parse(&ping(MAX_MESSAGE_VALUES - 11)), Incoming::Request { .. }));
        let Incoming::Invalid { id, error } = parse(&ping(MAX_MESSAGE_VALUES - 10)) else {
            panic!("taken")
        };
        assert_eq!((id, error.code), (raw_id(r#""v""#), INVALID_REQUEST));
        let big = ping((4 << 20) / 2 - 100);
        let Incoming::Invalid { error, .. } = parse(&big) else { panic!("taken") };
        assert!(error.message.contains("more than 16384 JSON values"), "{}", error.message);
        assert_eq!(
            error.data,
            Some(json!({ "maxValues": MAX_MESSAGE_VALUES, "length": big.len() }))
        );
        // A batch is counted whole, before any of it is taken apart.
        let batch = format!("[{}]", vec![r#"{"jsonrpc":"2.0","method":"m"}"#; 4000].join(","));
        assert!(
            matches!(parse(&batch), Incoming::Invalid { error, .. } if error.code == INVALID_REQUEST)
        );
        // A long string is one value.
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"t":"{}"}}}}"#,
            "a\\\"".repeat(1 << 20)
        );
        assert!(matches!(parse(&text), Incoming::Request { .. }));
    }

    #[test]
    fn ids_are_kept_as_written() {
        let big = "123456789012345678901234567890";
        let Incoming::Request { id, .. } =
            parse(&format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#))
        else {
            panic!()
        };
        assert_eq!(id.to_string(), big);
        assert_eq!(
            result_response(&id, &json!({})),
            format!(r#"{{"jsonrpc":"2.0","id":{big},"result":{{}}}}"#)
        );
        let escaped = r#""a\u00e9\"\/b""#;
        let Incoming::Request { id: got, .. } =
            parse(&format!(r#"{{"jsonrpc":"2.0","id":{escaped},"method":"ping"}}"#))
        else {
            panic!()
        };
        assert_eq!(got.to_string(), escaped);
        // Keys tell requests apart by meaning: escapes do not matter, types do.
        assert_eq!(got.key(), raw_id(r#""aé\"/b""#).key());
        assert_ne!(raw_id("1").key(), raw_id(r#""1""#).key());
        assert_ne!(raw_id(big).key(), raw_id("123456789012345678901234567891").key());
        assert_eq!(Id::parse(b"[1]"), None);
        let token = |text: &str| Id::progress_token(&RawValue::from_string(text.into()).unwrap());
        for good in [big, "-7", "0", r#""t\u00e9""#] {
            assert_eq!(token(good).map(|t| t.to_string()), Some(good.to_owned()), "{good}");
        }
        let (longest, long) =
            ("9".repeat(MAX_PROGRESS_TOKEN_BYTES), format!("\"{}\"", "t".repeat(255)));
        assert!(token(&longest).is_some());
        for bad in ["1.5", "1e3", "1.0", "true", "null", "{}", "[1]", &long] {
            assert_eq!(token(bad), None, "{bad}");
        }
        assert_eq!(Id::parse(b"true"), None);
        let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":123456789012345678901234567890}}"#;
        assert!(matches!(
            parse(cancel),
            Incoming::Notification { request_id: Some(id), .. } if id.to_string() == big
        ));
    }

    #[test]
    fn unreadable_lines_are_answered_under_the_id_they_show() {
        let bytes = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"m\",\"params\":{\"t\":\"\xff\"}}";
        let Line::One(Incoming::Invalid { id: got, error }) = super::parse(bytes) else { panic!() };
        assert_eq!((got, error.code), (raw_id("7"), PARSE_ERROR));
        let bytes = b"{\"params\":{\"text\":\"\xff\xfe\"},\"id\":\"x-1\",\"method\":\"m\"}";
        let Line::One(Incoming::Invalid { id: got, error }) = super::parse(bytes) else { panic!() };
        assert_eq!((got, error.code), (raw_id(r#""x-1""#), PARSE_ERROR));
        let Incoming::Invalid { id: got, .. } =
            parse(r#"{"jsonrpc":"2.0","id":"t","method":"m",}"#)
        else {
            panic!()
        };
        assert_eq!(got, raw_id(r#""t""#));
        let Line::One(Incoming::Invalid { id: got, .. }) = super::parse(b"\xff{\"id\":1}") else {
            panic!()
        };
        assert_eq!(got, Id::null());
    }

    #[test]
    fn sniffs_the_id_of_a_cut_message() {
        let cut = br#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"x":"aaaa"#;
        assert_eq!(sniff_id(cut), Some(raw_id(r#""big-1""#)));
        let later = br#"{"method":"ping","params":{"a":[1,{"id":3}],"s":"\"}"},"id":42,"pad":"xx"#;
        assert_eq!(sniff_id(later), Some(raw_id("42")));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","params":{"pad":"xxxx"#), None);
        assert_eq!(sniff_id(b"not json"), None);
        assert_eq!(sniff_id(br#"{"id":12ab,"method":"x"}"#), None);
        assert_eq!(sniff_id(b"{\"id\":\"\xff\",\"method\":\"x\"}"), None);
        assert!(sniff_response(br#"{"result":{"action":"accept","content":{"pad":"xx"#));
        assert!(sniff_response(br#"{"jsonrpc":"2.0","id":"q","error":{"code""#));
        assert!(!sniff_response(br#"{"jsonrpc":"2.0","method":"m","result":1}"#));
        assert!(!sniff_response(br#"{"jsonrpc":"2.0","id":1,"params":{"result":1"#));
        let last = |text: &str| sniff_last_id(text.as_bytes());
        assert_eq!(
            last(r#"xxx"},"jsonrpc":"2.0","id":"termloom-elicit-3"}"#),
            Some(raw_id(r#""termloom-elicit-3""#))
        );
        assert_eq!(last("xx]} , \"id\" : -12 }\n"), Some(raw_id("-12")));
        assert_eq!(last(r#"xx","id":"a\"b\\"}"#), Some(raw_id(r#""a\"b\\""#)));
        for none in
            [r#"xx","x\"id":5}"#, r#"xx","id":5}}"#, r#"xx","id":[5]}"#, r#"xx","id":5"#, r#"5}"#]
        {
            assert_eq!(last(none), None, "{none}");
        }
    }
}
