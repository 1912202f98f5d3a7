//! JSON-RPC 2.0: classifying one incoming message, and the shapes of responses and errors.

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
    /// An error without data.
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
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

/// One message from the client, classified.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request: it gets exactly one response (unless it is cancelled).
    Request {
        /// Its id, a string or a number.
        id: Value,
        /// The method.
        method: String,
        /// Named parameters (absent or `null` params are `None`).
        params: Option<Map<String, Value>>,
    },
    /// A notification: it gets no response.
    Notification {
        /// The method.
        method: String,
        /// Named parameters.
        params: Option<Map<String, Value>>,
    },
    /// A response from the client. The server sends no requests, so it is ignored.
    Response,
    /// Not a valid request: answered with `error`, under `id` when one could be read.
    Invalid {
        /// The request's id, or `null`.
        id: Value,
        /// What is wrong with it.
        error: RpcError,
    },
}

/// Classifies one JSON value (an element of a batch, or a whole message).
pub(crate) fn classify(value: Value) -> Incoming {
    let Value::Object(mut message) = value else {
        return invalid(Value::Null, "a JSON-RPC message must be a JSON object");
    };
    let id = message.remove("id");
    let usable_id = match &id {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        _ => None,
    };
    let reply_id = usable_id.clone().unwrap_or(Value::Null);
    if message.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return invalid(reply_id, "the message must have \"jsonrpc\": \"2.0\"");
    }
    let method = match message.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return invalid(reply_id, "\"method\" must be a string"),
        None if message.contains_key("result") || message.contains_key("error") => {
            return Incoming::Response;
        }
        None => return invalid(reply_id, "the message has no \"method\""),
    };
    let params = match message.remove("params") {
        None | Some(Value::Null) => None,
        Some(Value::Object(params)) => Some(params),
        Some(Value::Array(_)) => {
            let error = RpcError::new(
                INVALID_PARAMS,
                format!("{method} takes named parameters: \"params\" must be an object"),
            );
            return match usable_id {
                Some(id) => Incoming::Invalid { id, error },
                // A notification with bad params is dropped, like any notification.
                None => Incoming::Notification { method, params: None },
            };
        }
        Some(_) => return invalid(reply_id, "\"params\" must be an object"),
    };
    match id {
        None => Incoming::Notification { method, params },
        Some(_) => match usable_id {
            Some(id) => Incoming::Request { id, method, params },
            None => invalid(Value::Null, "the request id must be a string or a number"),
        },
    }
}

fn invalid(id: Value, message: &str) -> Incoming {
    Incoming::Invalid { id, error: RpcError::new(INVALID_REQUEST, message) }
}

/// A success response.
pub(crate) fn result_response(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response.
pub(crate) fn error_response(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_json() })
}

/// Finds a top-level `"id"` member with a string or number value in the beginning of a JSON
/// object, without parsing the (possibly cut) rest. Used to answer an oversized request under
/// its own id.
pub(crate) fn sniff_id(prefix: &[u8]) -> Option<Value> {
    let mut scanner = Scanner { bytes: prefix, at: 0 };
    scanner.skip_blank();
    if !scanner.eat(b'{') {
        return None;
    }
    loop {
        scanner.skip_blank();
        let key = scanner.string()?;
        scanner.skip_blank();
        if !scanner.eat(b':') {
            return None;
        }
        scanner.skip_blank();
        let start = scanner.at;
        scanner.value()?;
        if key == "id" {
            let value: Value = serde_json::from_slice(&prefix[start..scanner.at]).ok()?;
            return matches!(value, Value::String(_) | Value::Number(_)).then_some(value);
        }
        scanner.skip_blank();
        if !scanner.eat(b',') {
            return None;
        }
    }
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
        classify(serde_json::from_str(text).unwrap())
    }

    #[test]
    fn classifies_messages() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Incoming::Request { method, params: None, .. } if method == "ping"
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Incoming::Notification { .. }
        ));
        assert_eq!(parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Incoming::Response);
        let Incoming::Invalid { id, error } = parse(r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!((id, error.code), (json!("a"), INVALID_REQUEST));
        let Incoming::Invalid { id, .. } = parse(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!(id, Value::Null);
        let Incoming::Invalid { error, .. } =
            parse(r#"{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}"#)
        else {
            panic!()
        };
        assert_eq!(error.code, INVALID_PARAMS);
        assert!(matches!(parse("[1]"), Incoming::Invalid { .. }));
    }

    #[test]
    fn sniffs_the_id_of_a_cut_message() {
        let cut = br#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"x":"aaaa"#;
        assert_eq!(sniff_id(cut), Some(json!("big-1")));
        let later = br#"{"method":"ping","params":{"a":[1,{"id":3}],"s":"\"}"},"id":42,"pad":"xx"#;
        assert_eq!(sniff_id(later), Some(json!(42)));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","params":{"pad":"xxxx"#), None);
        assert_eq!(sniff_id(b"not json"), None);
    }
}
