//! [`Client`]: a connection to a `termloom server`, as the command line, `termloom mcp
//! --server` and `termloom attach` use it (and a Rust program may).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use super::{OLDEST_PROTOCOL, PROTOCOL};
use crate::tools::ToolResult;

/// Longest message a client reads: the server bounds what it sends by the calls' `max_bytes`.
const MAX_REPLY_BYTES: u64 = 64 << 20;

/// The MCP revision the client speaks.
const REVISION: &str = "2025-11-25";

/// One message from the server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// The answer to request `id`: its result, or the error's message.
    Response {
        /// The request's id.
        id: u64,
        /// Its result, or the error message.
        result: Result<Value, String>,
    },
    /// A notification (`termloom/frame` while attached).
    Notification {
        /// Its method.
        method: String,
        /// Its parameters.
        params: Value,
    },
}

/// Sends requests on a connection; cheap to clone, usable from another thread than the one
/// reading replies.
#[derive(Debug, Clone)]
pub struct Sender {
    stream: Arc<UnixStream>,
    next_id: Arc<AtomicU64>,
}

impl Sender {
    /// Sends request `method` and returns its id; the answer comes as a [`Reply::Response`].
    pub fn send(&self, method: &str, params: Value) -> io::Result<u64> {
        Ok(self.send_all(vec![(method, params)])?[0])
    }

    /// Sends requests in one write (the server takes them in order) and returns their ids.
    fn send_all(&self, requests: Vec<(&str, Value)>) -> io::Result<Vec<u64>> {
        let mut lines = Vec::new();
        let mut ids = Vec::new();
        for (method, params) in requests {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
            serde_json::to_writer(&mut lines, &message)?;
            lines.push(b'\n');
            ids.push(id);
        }
        (&*self.stream).write_all(&lines)?;
        Ok(ids)
    }
}

/// A connection to a termloom server (see [`crate::server`] for the protocol).
#[derive(Debug)]
pub struct Client {
    reader: BufReader<UnixStream>,
    sender: Sender,
    initialized: bool,
}

impl Client {
    /// Connects to the server listening on `socket`, refusing one another user runs (see
    /// [`super::connect`]); a path too long for a socket is an
    /// [`io::ErrorKind::InvalidInput`] error that says so ([`super::check_socket_path`]).
    pub fn connect(socket: &Path) -> io::Result<Client> {
        let stream = super::connect(socket)?;
        let reader = BufReader::new(stream.try_clone()?);
        let sender = Sender { stream: Arc::new(stream), next_id: Arc::new(AtomicU64::new(1)) };
        Ok(Client { reader, sender, initialized: false })
    }

    /// Bounds how long a wait for the server's next message may last (`None`, the default:
    /// without bound). A server that sends nothing for that long (stopped, or hung) makes the
    /// wait fail with an [`io::ErrorKind::TimedOut`] error that says so, where it would wait
    /// forever. Messages reset it: a long call the server reports progress on is not cut.
    pub fn set_answer_timeout(&mut self, timeout: Option<std::time::Duration>) -> io::Result<()> {
        self.reader.get_ref().set_read_timeout(timeout.filter(|t| !t.is_zero()))
    }

    /// A handle that sends requests on this connection.
    pub fn sender(&self) -> Sender {
        self.sender.clone()
    }

    /// Checks that the server speaks this termloom's protocol version ([`PROTOCOL`], which
    /// `termloom/input`'s `bytes` need: a server of an older version refuses it, saying which
    /// it speaks) and names the client (clients of one name share read positions); returns
    /// the server's answer.
    pub fn hello(&mut self, client: Option<&str>) -> io::Result<Value> {
        let mut params = json!({ "protocol": PROTOCOL });
        if let Some(client) = client {
            params["client"] = json!(client);
        }
        self.request("termloom/hello", params)
    }

    /// Calls tool `name` (see `tools/list`) with its arguments and waits for its result.
    /// A `max_bytes` argument bounds each copy of the result's strings, the text and the
    /// structured content, not the two together as for other MCP clients: a caller reads one
    /// of them (the command line prints the text, or with `--json` the structured content).
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> io::Result<ToolResult> {
        self.call_tool_as(None, name, arguments)
    }

    /// [`Client::hello`] as client `client` (when given), then [`Client::call_tool`]: one
    /// write and one wait, as a command line that makes one call needs.
    pub fn call_tool_as(
        &mut self,
        client: Option<&str>,
        name: &str,
        arguments: Value,
    ) -> io::Result<ToolResult> {
        let mut requests = Vec::new();
        if let Some(client) = client {
            // A tool call needs nothing of a later version: servers of every version serve it.
            let hello = json!({ "protocol": OLDEST_PROTOCOL, "client": client });
            requests.push(("termloom/hello", hello));
        }
        if !self.initialized {
            let params = json!({
                "protocolVersion": REVISION,
                "capabilities": {},
                "clientInfo": { "name": "termloom", "version": env!("CARGO_PKG_VERSION") },
            });
            requests.push(("initialize", params));
        }
        // The command line prints one copy of the result's strings (the text, or the
        // structured content with --json): `max_bytes` is to bound that one.
        let meta = json!({ crate::mcp::server::ONE_COPY: true });
        requests
            .push(("tools/call", json!({ "name": name, "arguments": arguments, "_meta": meta })));
        let ids = self.sender.send_all(requests)?;
        let mut answers = Vec::new();
        for id in ids {
            answers.push(self.answer(id)?);
        }
        self.initialized = true;
        let result = answers.pop().unwrap_or_default();
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        let structured = result.get("structuredContent").cloned();
        // A failure's code, or `error` from a server that sends none.
        let code = result["_meta"][crate::mcp::tools::ERROR_CODE].as_str().unwrap_or("error");
        let error_code = (result["isError"] == true).then(|| code.to_owned());
        Ok(ToolResult::new(text, structured, error_code))
    }

    /// Sends request `method` and waits for its answer; an error answer is an `Err` with the
    /// server's message. Notifications that arrive meanwhile are dropped.
    pub fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let id = self.sender.send(method, params)?;
        self.answer(id)
    }

    /// Waits for the answer to request `id`, dropping notifications and other answers.
    fn answer(&mut self, id: u64) -> io::Result<Value> {
        loop {
            match self.next_reply()? {
                Some(Reply::Response { id: got, result }) if got == id => {
                    return result.map_err(io::Error::other);
                }
                Some(_) => {}
                None => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the termloom server closed the connection without answering",
                    ));
                }
            }
        }
    }

    /// The next message from the server; `None` once it closed the connection. A server that
    /// refused the connection makes it an error that says why: an
    /// [`io::ErrorKind::ConnectionAborted`] one when it was stopping as the connection came
    /// and did nothing with it ([`super::SERVER_STOPPING`]), to connect again.
    pub fn next_reply(&mut self) -> io::Result<Option<Reply>> {
        let mut line = Vec::new();
        let read = (&mut self.reader).take(MAX_REPLY_BYTES).read_until(b'\n', &mut line);
        let read = read.map_err(|err| match err.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                let waited = self.reader.get_ref().read_timeout().ok().flatten();
                let waited = waited.map_or(String::new(), |t| format!(" for {} s", t.as_secs()));
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("the termloom server sent nothing{waited}: it is stopped or hung"),
                )
            }
            _ => err,
        })?;
        if read == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') && read as u64 == MAX_REPLY_BYTES {
            return Err(io::Error::other("the server sent a message over 64 MiB"));
        }
        let message: Value = serde_json::from_slice(&line).map_err(|err| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad message from the server: {err}"),
            )
        })?;
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            return Ok(Some(Reply::Notification { method: method.to_owned(), params }));
        }
        let result = match message.get("error") {
            Some(error) => Err(error["message"].as_str().unwrap_or("error").to_owned()),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        match message.get("id").and_then(Value::as_u64) {
            Some(id) => Ok(Some(Reply::Response { id, result })),
            // An answer to no request: the server refused the connection, doing nothing with
            // it; one that came as the server stopped may connect again.
            None => {
                let stopping = message["error"]["data"]["code"] == super::SERVER_STOPPING;
                let kind =
                    if stopping { io::ErrorKind::ConnectionAborted } else { io::ErrorKind::Other };
                Err(io::Error::new(kind, result.err().unwrap_or_default()))
            }
        }
    }
}
