//! The MCP server driven through pipes, as an MCP client drives `termloom mcp` on stdio:
//! handshakes of every revision and the stateless `server/discover`, tool listings, errors,
//! cancellation, real programs (vim, a Python REPL, shell commands), and shutdown at the end
//! of input.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use common::{ECHOING_RELAY, NETWORK_RELAY, require, sweep_left_overs};
use serde_json::{Value, json};
use termloom::mcp::{MAX_BYTES_OVERHEAD, ServeOptions, serve_with};
use termloom::{Config, Engine, shell_program};

/// `cat` reading keys (non-canonical), not lines, beside a job of its group that may print
/// (a sleep): a wait for text it never prints runs to its timeout (a wait beside a program
/// that asks for input with nothing else able to print ends when it asks).
const KEYS_CAT: [&str; 3] = ["sh", "-c", "stty -icanon; sleep 600 & exec cat"];

const LONG: Duration = Duration::from_secs(30);
const MODERN: &str = "2026-07-28";

/// A server on pipes, with a reader thread collecting its output lines.
struct Client {
    input: Option<std::io::PipeWriter>,
    lines: crossbeam_channel::Receiver<String>,
    /// Responses read while looking for another one, by id.
    stash: HashMap<String, Value>,
    /// Messages that were not responses to a request of ours (arrays, null ids).
    other: Vec<Value>,
    /// Gets `serve`'s result when it returns.
    server: crossbeam_channel::Receiver<std::io::Result<()>>,
    next_id: u64,
    /// `_meta` to put on every request (the stateless revision).
    envelope: Option<Value>,
}

impl Client {
    fn start() -> Client {
        Client::with_options(ServeOptions::default())
    }

    fn with_options(options: ServeOptions) -> Client {
        Client::serving(Engine::new(Config::default()).expect("engine starts"), options)
    }

    /// A server of `engine`, before any handshake.
    fn serving(engine: Engine, options: ServeOptions) -> Client {
        let (server_in, input) = std::io::pipe().unwrap();
        let (output, server_out) = std::io::pipe().unwrap();
        let (done, server) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || {
            let _ = done.send(serve_with(engine, BufReader::new(server_in), server_out, &options));
        });
        Client::reading(input, output, server)
    }

    /// A server in `child` (`termloom mcp --server`, say), its stdin and stdout piped, before
    /// any handshake; [`Client::finish`] waits for it to exit.
    fn of_process(mut child: std::process::Child) -> Client {
        use std::os::fd::OwnedFd;
        let input = std::io::PipeWriter::from(OwnedFd::from(child.stdin.take().unwrap()));
        let output = std::io::PipeReader::from(OwnedFd::from(child.stdout.take().unwrap()));
        let (done, server) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || {
            let exited = child.wait().and_then(|status| match status.success() {
                true => Ok(()),
                false => Err(std::io::Error::other(format!("the server exited: {status}"))),
            });
            let _ = done.send(exited);
        });
        Client::reading(input, output, server)
    }

    /// A client writing to `input` and reading `output`, `server` answered when it stops.
    fn reading(
        input: std::io::PipeWriter,
        output: std::io::PipeReader,
        server: crossbeam_channel::Receiver<std::io::Result<()>>,
    ) -> Client {
        let (tx, lines) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            input: Some(input),
            lines,
            stash: HashMap::new(),
            other: Vec::new(),
            server,
            next_id: 1,
            envelope: None,
        }
    }

    /// A client that completed the handshake of `version`.
    fn initialized(version: &str) -> Client {
        let mut client = Client::start();
        let result = client.initialize(version);
        assert_eq!(result["protocolVersion"], version);
        client.notify("notifications/initialized", json!({}));
        client
    }

    /// A stateless (2026-07-28) client that probed with `server/discover`.
    fn discovered() -> Client {
        Client::discovered_on(Client::start(), json!({}))
    }

    /// `client`, probed with `server/discover` as a stateless client with `capabilities`.
    fn discovered_on(mut client: Client, capabilities: Value) -> Client {
        client.envelope = Some(json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }));
        let result = client.ok("server/discover", json!({}));
        assert_eq!(result["supportedVersions"], json!([MODERN]));
        client
    }

    fn initialize(&mut self, version: &str) -> Value {
        self.initialize_with(version, json!({}))
    }

    fn initialize_with(&mut self, version: &str, capabilities: Value) -> Value {
        self.ok(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "mcp-test", "version": "1"},
            }),
        )
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("input open");
        input.write_all(bytes).unwrap();
        input.write_all(b"\n").unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(serde_json::to_string(message).unwrap().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request (with the envelope, if any) and returns its id.
    fn send_request(&mut self, method: &str, mut params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        if let Some(envelope) = &self.envelope {
            params["_meta"] = envelope.clone();
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next line from the server, as written.
    fn next_line(&mut self) -> String {
        self.lines.recv_timeout(LONG).expect("a message from the server")
    }

    /// The next message from the server.
    fn next(&mut self, timeout: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    /// The response to request `id`.
    fn response(&mut self, id: &Value) -> Value {
        let key = id.to_string();
        let deadline = Instant::now() + LONG;
        loop {
            if let Some(found) = self.stash.remove(&key) {
                return found;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.next(left).unwrap_or_else(|| panic!("no response to {id}"));
            match message.get("id") {
                Some(id) if !id.is_null() => {
                    self.stash.insert(id.to_string(), message);
                }
                _ => self.other.push(message),
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(&id)
    }

    /// A request that must succeed; returns its result.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    /// A request that must fail with `code`; returns the error.
    fn fails(&mut self, method: &str, params: Value, code: i64) -> Value {
        let response = self.request(method, params);
        assert_eq!(response["error"]["code"], code, "{method}: {response}");
        response["error"].clone()
    }

    /// Calls a tool; returns the `tools/call` result.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.ok("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// Calls a tool that must succeed; returns its structured content.
    fn tool(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], false, "{tool} failed: {}", text(&result));
        result["structuredContent"].clone()
    }

    /// Calls a tool that must fail; returns its message.
    fn tool_error(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], true, "{tool} should fail: {result}");
        text(&result)
    }

    /// Starts an interactive bash without start files, its prompt `$ `; returns its session
    /// id.
    fn bash_session(&mut self) -> Value {
        let argv = json!({"argv": ["bash", "--norc", "--noprofile", "-i"], "env": {"PS1": "$ "}});
        self.tool("terminal_start", argv)["session_id"].clone()
    }

    /// Starts a bash without start files (its own prompt) on a `cols`x`rows` terminal;
    /// returns its session id.
    fn bash_sized(&mut self, cols: u16, rows: u16) -> Value {
        let argv = json!({"argv": ["bash", "--norc", "--noprofile"], "cols": cols, "rows": rows});
        self.tool("terminal_start", argv)["session_id"].clone()
    }

    /// Sends `arguments` to session `id` with `terminal_send`; returns the result's text.
    fn send_to(&mut self, id: &Value, mut arguments: Value) -> String {
        arguments["session_id"] = id.clone();
        text(&self.call("terminal_send", arguments))
    }

    /// Waits until cancelled call `id` is over: its id is free again (a call in progress holds
    /// it, and a request reusing it is refused), reused for a `terminal_list`.
    fn until_call_ended(&mut self, id: &Value) {
        let deadline = Instant::now() + LONG;
        loop {
            let list = json!({"name": "terminal_list", "arguments": {}});
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": list}));
            let response = self.response(id);
            if response.get("error").is_none() {
                return;
            }
            assert!(Instant::now() < deadline, "the cancelled call went on: {response}");
        }
    }

    /// Ends the input and waits for the server to return.
    fn finish(mut self) {
        drop(self.input.take());
        let served = self.server.recv_timeout(LONG).expect("the server stops at the end of input");
        served.expect("serve returns Ok at the end of input");
    }
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

/// Whether a process runs (a zombie waiting for an init that reaps slowly has ended).
fn alive(pid: i64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
    !matches!(state, Some(Some('Z' | 'X')))
}

/// A directory of this test process's own.
fn temp_dir(name: &str) -> std::path::PathBuf {
    sweep_left_overs();
    let dir = std::env::temp_dir().join(format!("termloom-mcp-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let path = temp_dir(name).join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// A Python script that draws screens on the alternate screen, one a key: `body` calls
/// `draw(rows)` (or `draw(rows, title)`, which sets the window title first) for each, and
/// each waits for a key before the next.
fn screens_on_keys(name: &str, body: &str) -> std::path::PathBuf {
    let draw = "import sys, tty\n\
                tty.setcbreak(0)\n\
                def draw(rows, title=None):\n\
                \x20   if title is not None:\n\
                \x20       sys.stdout.write('\\x1b]2;' + title + '\\x07')\n\
                \x20   sys.stdout.write('\\x1b[?1049h\\x1b[H\\x1b[2J' + '\\r\\n'.join(rows))\n\
                \x20   sys.stdout.flush()\n\
                \x20   sys.stdin.read(1)\n";
    temp_file(name, &format!("{draw}{body}"))
}

#[test]
fn initialize_negotiates_every_handshake_revision() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut client = Client::start();
        let result = client.initialize(version);
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(result["serverInfo"]["name"], "termloom");
        assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        assert!(result["capabilities"]["tools"].is_object(), "{result}");
        assert!(result["instructions"].as_str().unwrap().contains("terminal_close"));
        assert!(result.get("resultType").is_none(), "handshake results have no resultType");
        client.notify("notifications/initialized", json!({}));
        assert_eq!(client.ok("ping", json!({})), json!({}));
        let tools = client.ok("tools/list", json!({}))["tools"].as_array().unwrap().clone();
        assert_eq!(tools.len(), 9);
        for tool in &tools {
            assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
            assert!(!tool["description"].as_str().unwrap().is_empty());
            assert!(tool.get("outputSchema").is_none(), "{version}: {tool}");
            if version < "2025-03-26" {
                assert!(tool.get("annotations").is_none(), "{tool}");
            }
        }
        let result = client.call("terminal_list", json!({}));
        assert_eq!(result.get("structuredContent").is_some(), version >= "2025-06-18");
        // Initializing twice is refused.
        client.fails(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {}}),
            -32600,
        );
        client.finish();
    }
    // A revision the server does not know gets the latest handshake revision.
    let mut client = Client::start();
    assert_eq!(client.initialize("2099-01-01")["protocolVersion"], "2025-11-25");
    client.finish();
}

#[test]
fn tool_list_has_the_expected_tools_and_schemas() {
    let mut client = Client::initialized("2025-11-25");
    let tools = client.ok("tools/list", json!({}))["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "terminal_start",
            "terminal_send",
            "terminal_read",
            "terminal_mouse",
            "terminal_run",
            "terminal_signal",
            "terminal_resize",
            "terminal_close",
            "terminal_list"
        ]
    );
    let by_name: HashMap<&str, &Value> = names.iter().copied().zip(tools.iter()).collect();
    let send = by_name["terminal_send"];
    for arg in ["session_id", "text", "keys", "paste", "submit", "for_text", "for_regex"] {
        assert!(send["inputSchema"]["properties"].get(arg).is_some(), "terminal_send lacks {arg}");
    }
    for arg in ["for_screen_text", "quiet_ms", "prompt", "input_wait", "exit", "timeout_ms"] {
        assert!(send["inputSchema"]["properties"].get(arg).is_some(), "terminal_send lacks {arg}");
    }
    assert_eq!(send["inputSchema"]["required"], json!(["session_id"]));
    let start = by_name["terminal_start"];
    for arg in ["command", "argv", "cwd", "env", "cols", "rows", "shell_integration"] {
        assert!(
            start["inputSchema"]["properties"].get(arg).is_some(),
            "terminal_start lacks {arg}"
        );
    }
    let read = &by_name["terminal_read"]["inputSchema"]["properties"];
    assert_eq!(read["view"]["enum"], json!(["new", "screen", "scrollback"]));
    // An argument's description names the arguments it goes with: `properties` is an
    // object, whose members a client (and this server) may list in any order.
    let described = |arg: &str| read[arg]["description"].as_str().unwrap_or_default().to_owned();
    assert!(described("screen_row").contains("for_screen_*"), "{}", described("screen_row"));
    for tool in &tools {
        for (arg, schema) in tool["inputSchema"]["properties"].as_object().unwrap() {
            let description = schema["description"].as_str().unwrap_or_default();
            assert!(!description.contains(" above"), "{}'s {arg}: {description}", tool["name"]);
        }
    }
    assert!(read.get("max_bytes").is_some());
    // A shared argument is described, its choices listed, once: where it is read.
    assert_eq!(send["inputSchema"]["properties"]["view"], json!({"type": "string"}));
    // Hints the protocol calls meaningless for a read-only tool go unsaid.
    assert_eq!(
        by_name["terminal_read"]["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(by_name["terminal_send"]["annotations"], json!({"destructiveHint": false}));
    // The tools' and their arguments' descriptions.
    let descriptions = serde_json::to_string(&tools).unwrap();
    for teaching in ["<Esc>", "terminal_close", "instead of sleeping", "exit code"] {
        assert!(descriptions.contains(teaching), "the descriptions should mention {teaching}");
    }
    client.fails("tools/list", json!({"cursor": "abc"}), -32602);
    client.finish();
}

/// `tools/list` is read by a model before its first call, on every conversation: it stays
/// within 8 KB (8,000 bytes) in every revision (the official Python SDK negotiates the newest), and every
/// change to the tools must keep it there.
#[test]
fn the_tool_list_stays_within_8_kb() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut client = Client::initialized(version);
        let tools = client.ok("tools/list", json!({}))["tools"].clone();
        let size = tools.to_string().len();
        assert!(size <= 8_000, "{version}: tools/list is {size} bytes");
        client.finish();
    }
    let mut client = Client::discovered();
    let size = client.ok("tools/list", json!({}))["tools"].to_string().len();
    assert!(size <= 8_000, "2026-07-28: tools/list is {size} bytes");
    client.finish();
}

#[test]
fn discover_and_per_request_meta_serve_the_stateless_revision() {
    let mut client = Client::discovered();
    let result = client.ok("server/discover", json!({}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": false}));
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "termloom");
    assert!(result["ttlMs"].is_u64() && result["cacheScope"] == "public");
    let list = client.ok("tools/list", json!({}));
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].is_u64() && list["cacheScope"].is_string(), "{list}");
    assert_eq!(list["tools"].as_array().unwrap().len(), 9);
    let result = client.call("terminal_list", json!({}));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["structuredContent"], json!({"sessions": []}));
    // Every request must carry its version and capabilities.
    let envelope = client.envelope.take();
    let error = client.fails("tools/list", json!({}), -32602);
    assert!(error["message"].as_str().unwrap().contains("clientCapabilities"), "{error}");
    client.fails(
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
        -32602,
    );
    let error = client.fails(
        "tools/list",
        json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2030-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}),
        -32022,
    );
    assert_eq!(error["data"]["requested"], "2030-01-01");
    assert!(error["data"]["supported"].as_array().unwrap().contains(&json!(MODERN)));
    // The handshake is refused on a stateless connection, naming what is served.
    let error = client.fails(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}}),
        -32022,
    );
    assert_eq!(error["data"]["supported"], json!([MODERN]));
    client.envelope = envelope;
    assert_eq!(client.call("terminal_list", json!({}))["isError"], false);
    client.finish();

    // A stateless client need not probe: any request with the envelope opens the connection.
    let mut client = Client::start();
    client.envelope = Some(json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }));
    let result = client.call("terminal_list", json!({}));
    assert_eq!(
        (result["resultType"].as_str(), result["isError"].as_bool()),
        (Some("complete"), Some(false))
    );
    assert_eq!(client.ok("ping", json!({}))["resultType"], "complete");
    client.finish();

    // And a handshake connection refuses stateless requests.
    let mut client = Client::initialized("2025-06-18");
    client.envelope = Some(json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }));
    client.fails("server/discover", json!({}), -32600);
    client.envelope = None;
    client.fails("server/discover", json!({}), -32601);
    client.finish();
}

#[test]
fn requests_before_initialization_are_refused_except_ping() {
    let mut client = Client::start();
    assert_eq!(client.ok("ping", json!({})), json!({}));
    let error = client.fails("tools/list", json!({}), -32600);
    assert!(error["message"].as_str().unwrap().contains("initialize"), "{error}");
    client.fails("tools/call", json!({"name": "terminal_list"}), -32600);
    client.fails("resources/list", json!({}), -32601);
    client.fails("server/discover", json!({}), -32602);
    client.initialize("2025-11-25");
    client.ok("tools/list", json!({}));
    client.finish();
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_serving_goes_on() {
    let mut client = Client::initialized("2025-03-26");
    let expect_null_error = |client: &mut Client, raw: &[u8], code: i64| {
        client.send_raw(raw);
        let message = client.next(LONG).expect("an error response");
        assert_eq!(message["id"], Value::Null, "{message}");
        assert_eq!(message["error"]["code"], code, "{}: {message}", String::from_utf8_lossy(raw));
    };
    expect_null_error(&mut client, b"{not json", -32700);
    expect_null_error(&mut client, b"\xff\xfe{}", -32700);
    expect_null_error(&mut client, &[b'['; 100_000], -32700);
    expect_null_error(&mut client, b"[]", -32600);
    expect_null_error(&mut client, b"null", -32600);
    expect_null_error(&mut client, br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600);
    expect_null_error(&mut client, br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, -32600);
    // Blank lines, responses and unknown notifications get nothing.
    client.send_raw(b"   ");
    client.send_raw(br#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    client.notify("notifications/whatever", json!({}));
    client.notify("notifications/cancelled", json!({"requestId": "never-sent"}));
    client.send(&json!({"jsonrpc": "1.0", "id": "v1", "method": "ping"}));
    assert_eq!(client.response(&json!("v1"))["error"]["code"], -32600);
    client.send(&json!({"jsonrpc": "2.0", "id": "nomethod"}));
    assert_eq!(client.response(&json!("nomethod"))["error"]["code"], -32600);
    client.send(&json!({"jsonrpc": "2.0", "id": "arr", "method": "tools/list", "params": [1]}));
    assert_eq!(client.response(&json!("arr"))["error"]["code"], -32602);
    client.fails("no/such/method", json!({}), -32601);
    // A notification sent with an id is a request no method answers, and it says why.
    let error = client.fails("notifications/cancelled", json!({"requestId": "x"}), -32601);
    assert!(error["message"].as_str().unwrap().contains("without one"), "{error}");
    // Wrong parameters.
    client.fails("tools/call", json!({}), -32602);
    client.fails("tools/call", json!({"name": 5}), -32602);
    let error = client.fails("tools/call", json!({"name": "terminal_teleport"}), -32602);
    assert!(error["message"].as_str().unwrap().contains("terminal_start"), "{error}");
    client.fails("tools/call", json!({"name": "terminal_list", "arguments": "x"}), -32602);
    client.fails("initialize", json!({}), -32602);
    // Argument errors are tool results a model can read and act on.
    let message = client.tool_error("terminal_send", json!({"session": 1, "text": "x"}));
    assert!(message.contains("`session`") && message.contains("session_id"), "{message}");
    let message = client.tool_error("terminal_read", json!({"session_id": true}));
    assert!(message.contains("session_id") && message.contains("whole number"), "{message}");
    let message = client.tool_error("terminal_read", json!({"session_id": "one"}));
    assert!(message.contains("no session is named \"one\""), "{message}");
    let message = client.tool_error("terminal_read", json!({"session_id": 1, "view": "all"}));
    assert!(message.contains("scrollback"), "{message}");
    let message = client.tool_error("terminal_start", json!({"argv": "vim"}));
    assert!(message.contains("list of strings"), "{message}");
    let message = client.tool_error("terminal_start", json!({"command": "x", "argv": ["y"]}));
    assert!(message.contains("not both"), "{message}");
    let message = client.tool_error("terminal_start", json!({"argv": ["/no/such/program"]}));
    assert!(message.contains("/no/such/program"), "{message}");
    let message = client.tool_error("terminal_read", json!({"session_id": 1, "for_regex": "("}));
    assert!(message.contains("regular expression"), "{message}");
    let message = client.tool_error("terminal_read", json!({"session_id": 1, "for_regex": "a*"}));
    assert!(message.contains("can match the empty string"), "{message}");
    // A batch (2025-03-26): one array of responses; notifications get none.
    client.send_raw(
        br#"[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b2","method":"nope"},7]"#,
    );
    let batch = client.next(LONG).expect("a batch response");
    let batch = batch.as_array().expect("an array");
    assert_eq!(batch.len(), 3, "{batch:?}");
    let by_id = |id: &str| batch.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(by_id("b1")["result"], json!({}));
    assert_eq!(by_id("b2")["error"]["code"], -32601);
    assert!(batch.iter().any(|r| r["id"].is_null() && r["error"]["code"] == -32600));
    client.send_raw(br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#);
    assert_eq!(client.ok("ping", json!({})), json!({}));
    assert!(client.other.is_empty(), "nothing answered the notification-only batch");
    client.finish();
}

/// A batch's responses are held until its last is in, and a request can ask for far more than
/// its own bytes (`tools/list`, 46 bytes, answers 8 KB): requests after the answers pass
/// `max_message_bytes` are answered with a short error, not run. (A 1 MB batch of `tools/list`
/// was answered with 160 MB, the server's memory peaking at 560 MB.)
#[test]
fn a_batchs_answers_are_bounded_by_the_message_bound() {
    let limit = 64 << 10;
    let mut client =
        Client::with_options(ServeOptions { max_message_bytes: limit, ..ServeOptions::default() });
    client.initialize("2025-03-26");
    client.notify("notifications/initialized", json!({}));
    let one = serde_json::to_string(&client.ok("tools/list", json!({}))).unwrap().len();
    let count = 200;
    let requests: Vec<String> = (0..count)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#))
        .collect();
    client.send_raw(format!("[{}]", requests.join(",")).as_bytes());
    let line = client.next_line();
    assert!(
        line.len() < limit + one + count * 200,
        "{} bytes answered a {count}-request batch",
        line.len()
    );
    let batch: Vec<Value> = serde_json::from_str(&line).unwrap();
    assert_eq!(batch.len(), count);
    let listed = batch.iter().filter(|r| r["result"]["tools"].is_array()).count();
    assert!(listed > 0 && listed <= limit / one + 1, "{listed} lists");
    for refused in batch.iter().filter(|r| r.get("error").is_some()) {
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("passed 65536 bytes"), "{message}");
    }
    // The connection goes on, and the next batch is answered whole.
    client.send_raw(br#"[{"jsonrpc":"2.0","id":"p","method":"ping"}]"#);
    assert!(client.next_line().contains(r#""result":{}"#));
    let started = client.call("terminal_start", json!({"argv": ["echo", "still here"]}));
    assert!(text(&started).contains("still here"), "{started}");
    client.finish();
}

/// JSON-RPC batches are served in the revisions that have them (2025-03-26, and 2024-11-05's
/// plain JSON-RPC 2.0); 2025-06-18 removed them, and the stateless revision has none: there a
/// batch is one `Invalid Request` (id null), and nothing in it runs. Before `initialize` no
/// revision is agreed. (Batches were served whatever the revision.)
#[test]
fn batches_are_refused_in_revisions_without_them() {
    let escaped = r#""tab\t \"quoted\" \u00e9""#;
    let batch = format!(
        r#"[{{"jsonrpc":"2.0","id":{escaped},"method":"ping"}},{{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{{"name":"terminal_start","arguments":{{"argv":["echo","ran"]}}}}}}]"#
    );
    let refused = |client: &mut Client, what: &str| {
        client.send_raw(batch.as_bytes());
        let answer = client.next(LONG).expect("an answer to the batch");
        assert_eq!(answer["id"], Value::Null, "{what}: {answer}");
        assert_eq!(answer["error"]["code"], -32600, "{what}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap().to_owned();
        assert!(message.contains("nothing in the batch was run"), "{what}: {message}");
        message
    };
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = Client::initialized(version);
        let message = refused(&mut client, version);
        assert!(message.contains(version) && message.contains("removed"), "{message}");
        // Nothing in the batch ran, and serving goes on.
        assert_eq!(client.ok("ping", json!({})), json!({}));
        let listed = client.tool("terminal_list", json!({}));
        assert_eq!(listed["sessions"], json!([]), "{version}: the batch's start ran");
        assert!(client.stash.is_empty() && client.other.is_empty(), "{:?}", client.other);
        client.finish();
    }
    let mut client = Client::discovered();
    let message = refused(&mut client, "2026-07-28");
    assert!(message.contains("2026-07-28"), "{message}");
    client.finish();
    let mut client = Client::start();
    let message = refused(&mut client, "before initialize");
    assert!(message.contains("before initialization"), "{message}");
    client.finish();
    for version in ["2024-11-05", "2025-03-26"] {
        let mut client = Client::initialized(version);
        client.send_raw(batch.as_bytes());
        let line = client.next_line();
        let answers: Vec<Value> = serde_json::from_str(&line).unwrap();
        assert_eq!(answers.len(), 2, "{version}: {line}");
        // The id comes back as it was written, in a batch too.
        assert!(line.contains(&format!(r#""id":{escaped}"#)), "{version}: {line}");
        let started = answers.iter().find(|a| a["id"] == "t").unwrap();
        assert!(text(&started["result"]).contains("ran"), "{version}: {started}");
        client.finish();
    }
}

/// A JSON-RPC error repeats what a request gave by its start and size, and is held to about
/// 2 KiB, as a tool's error is: a method name, a cursor, a protocol version of a megabyte.
/// (Each came back whole, the version twice: 2 MB answered a 1 MB `_meta`.)
#[test]
fn json_rpc_errors_repeat_a_long_value_by_its_start_and_size() {
    let long = "m".repeat(1 << 20);
    let envelope = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": long,
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let mut client = Client::start();
    let refused = |client: &mut Client, method: &str, params: Value, code: i64| {
        let id = client.send_request(method, params);
        let line = client.next_line();
        assert!(line.len() < 4096, "{method:.20}: {} bytes: {line:.200}", line.len());
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!((&answer["id"], &answer["error"]["code"]), (&id, &json!(code)), "{line:.300}");
        answer["error"].clone()
    };
    let error = refused(&mut client, &long, json!({}), -32601);
    assert!(error["message"].as_str().unwrap().contains("(1048576 bytes)"), "{error}");
    let error = refused(&mut client, "ping", envelope.clone(), -32022);
    assert_eq!(error["data"]["supported"][0], MODERN, "{error}");
    refused(&mut client, &format!("notifications/{long}"), json!({}), -32601);
    let error = refused(&mut client, &long, json!([1]), -32602);
    assert!(error["message"].as_str().unwrap().contains("(1048576 bytes)"), "{error}");
    client.send_raw(
        format!(r#"{{"jsonrpc":"2.0","id":"far","method":"{long}","params":{{"n":1e999}}}}"#)
            .as_bytes(),
    );
    let error = client.response(&json!("far"))["error"].clone();
    assert_eq!(error["code"], -32700, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.len() < 300 && message.contains("(1048576 bytes)"), "{message:.300}");
    refused(&mut client, &long, json!({"_meta": {}}), -32601);
    client.initialize("2025-11-25");
    let error = refused(&mut client, "tools/list", json!({"cursor": long}), -32602);
    assert!(error["message"].as_str().unwrap().contains("(1048576 bytes)"), "{error}");
    refused(&mut client, &long, json!({}), -32601);
    assert_eq!(client.ok("ping", json!({})), json!({}));
    client.finish();
}

#[test]
fn ids_come_back_exactly_as_written() {
    let mut client = Client::initialized("2025-11-25");
    let big = "123456789012345678901234567890";
    let escaped = r#""tab\t \"quoted\" \u00e9\/ \ud83d\ude00""#;
    // The id member of a response line, wherever it is among the members.
    let has_id = |line: &str, id: &str| {
        [",", "}"].iter().any(|end| line.contains(&format!(r#""id":{id}{end}"#)))
    };
    for id in [big, escaped, "-7", "1e3", r#""""#] {
        client.send_raw(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes());
        let line = client.next_line();
        assert!(has_id(&line, id) && line.contains(r#""result":{}"#), "{id}: {line}");
        client.send_raw(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"nope"}}"#).as_bytes());
        let line = client.next_line();
        assert!(has_id(&line, id) && line.contains("-32601"), "{id}: {line}");
    }
    // Tool calls under ids that differ only beyond a double's precision are told apart, in
    // progress and when cancelled.
    // (A cat reading keys, not lines: a wait for text it never prints runs to its timeout.)
    let cat = client.tool("terminal_start", json!({"argv": KEYS_CAT}))["session_id"].clone();
    let other = "123456789012345678901234567891";
    for id in [big, other] {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"terminal_read","arguments":{{"session_id":{cat},"for_text":"never","timeout_ms":1500}}}}}}"#
        );
        client.send_raw(call.as_bytes());
    }
    client.send_raw(
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{big}}}}}"#
        )
        .as_bytes(),
    );
    let line = client.next_line();
    assert!(has_id(&line, other), "{line}");
    assert!(line.contains(r#""outcome":"timeout""#), "{line}");
    if let Ok(line) = client.lines.recv_timeout(Duration::from_millis(1000)) {
        panic!("the cancelled call was answered: {line}");
    }
    client.finish();
}

#[test]
fn unreadable_lines_are_answered_under_the_id_they_show() {
    let mut client = Client::initialized("2025-11-25");
    // Not UTF-8: the id before the bad bytes is still read.
    client.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":\"bad-utf8\",\"method\":\"tools/call\",\"params\":{\"name\":\"terminal_list\",\"arguments\":{\"x\":\"\xff\xfe\"}}}",
    );
    let error = client.response(&json!("bad-utf8"));
    assert_eq!(error["error"]["code"], -32700, "{error}");
    // After them too, and when the JSON is broken further on.
    client.send_raw(b"{\"jsonrpc\":\"2.0\",\"params\":{\"x\":\"\xc3\"},\"id\":123456789012345678901234567890,\"method\":\"ping\"}");
    let line = client.next_line();
    assert!(line.contains(r#""id":123456789012345678901234567890,"#), "{line}");
    assert!(line.contains("-32700"), "{line}");
    client.send_raw(br#"{"jsonrpc":"2.0","id":9,"method":"ping",}"#);
    assert_eq!(client.response(&json!(9))["error"]["code"], -32700);
    // The server goes on.
    assert_eq!(client.ok("ping", json!({})), json!({}));
    client.finish();
}

#[test]
fn env_names_no_environment_can_hold_are_tool_errors() {
    let mut client = Client::initialized("2025-11-25");
    let message = client.tool_error("terminal_start", json!({"argv": ["true"], "env": {"": "x"}}));
    assert!(message.contains("empty variable name"), "{message}");
    let message =
        client.tool_error("terminal_start", json!({"argv": ["true"], "env": {"A=B": "x"}}));
    assert!(message.contains("\"A=B\"") && message.contains("`=`"), "{message}");
    let message =
        client.tool_error("terminal_run", json!({"command": "true", "env": {"A=B": "x"}}));
    assert!(message.contains("\"A=B\"") && message.contains("`=`"), "{message}");
    let message =
        client.tool_error("terminal_start", json!({"argv": ["true"], "env": {"A\0": "x"}}));
    assert!(message.contains("NUL"), "{message}");
    let listed = client.tool("terminal_list", json!({}));
    assert_eq!(listed["sessions"], json!([]), "no session was started: {listed}");
    client.finish();
}

#[test]
fn an_exited_session_says_so_to_resize_as_to_send() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool("terminal_start", json!({"argv": ["true"], "exit": true}));
    assert_eq!(started["status"]["exit_code"], 0, "{started}");
    let id = started["session_id"].clone();
    let sent = client.tool_error("terminal_send", json!({"session_id": id, "text": "x"}));
    assert!(sent.contains("has exited"), "{sent}");
    let resized =
        client.tool_error("terminal_resize", json!({"session_id": id, "cols": 60, "rows": 20}));
    assert!(resized.contains("has exited, so it was not resized"), "{resized}");
    let signalled =
        client.tool_error("terminal_signal", json!({"session_id": id, "signal": "SIGINT"}));
    assert!(signalled.contains("has exited, so no signal was sent"), "{signalled}");
    assert!(!signalled.contains("accepts no input"), "{signalled}");
    client.finish();
}

/// `keys` of bare key names (tmux's notation, `C-c`, `Enter`) is refused with the script to
/// give, `<C-c>`, and `text` for the letters, before anything is typed: it typed the letters
/// `C-c` and the word `Enter` (as the command line's `--keys` did), and a program to
/// interrupt went on. A lower-case word or `Escape :wq` is typed as before.
#[test]
fn key_names_without_brackets_are_refused_with_the_script_to_give() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool("terminal_start", json!({"argv": ["cat"]}));
    let id = started["session_id"].clone();
    let refused = client.tool_error("terminal_send", json!({"session_id": id, "keys": "C-c"}));
    assert!(refused.contains("keys=\"<C-c>\""), "{refused}");
    assert!(refused.contains("text=\"C-c\""), "{refused}");
    let refused =
        client.tool_error("terminal_send", json!({"session_id": id, "keys": "Up Up Enter"}));
    assert!(refused.contains("keys=\"<Up><Up><Enter>\""), "{refused}");
    let typed = client
        .tool("terminal_send", json!({"session_id": id, "keys": "end<Enter>", "for_text": "end"}));
    let output = typed["output"].as_str().unwrap();
    assert!(output.starts_with("end\n"), "nothing typed before: {typed}");
    client.finish();
}

/// A paste that ends in a line break, to a line editor that asked for bracketed pastes, is
/// held on the edit line (as in a terminal): the result says so and how to run it. To any
/// other program it is a submitted line.
#[test]
fn a_paste_ending_in_a_line_break_is_held_or_submitted() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    client.bash_session();
    // (bash's readline asks for bracketed pastes, as it does by default since 5.1.)
    let pasted =
        client.call("terminal_send", json!({"session_id": 1, "paste": "echo one\necho two\n"}));
    let said = text(&pasted);
    assert!(said.contains("send submit=true to run it"), "{said}");
    // (`text: ""` with `submit`, as models often write Enter alone, is Enter alone.)
    let ran = client.call("terminal_send", json!({"session_id": 1, "text": "", "submit": true}));
    let ran = text(&ran);
    assert!(ran.contains("\none\ntwo\n") || ran.contains("\none\n"), "{ran}");
    assert!(!ran.contains("submit=true to run it"), "{ran}");
    // Empty text alone sends nothing, and the error says what would.
    let nothing = client.call("terminal_send", json!({"session_id": 1, "text": ""}));
    assert!(text(&nothing).contains("needs something to send"), "{}", text(&nothing));
    // A paste with no line break at its end says nothing of the kind.
    let plain = client.call("terminal_send", json!({"session_id": 1, "paste": "echo three"}));
    assert!(!text(&plain).contains("bracketed"), "{}", text(&plain));
    // To a program that did not ask for bracketed pastes, a paste's last line break is Enter:
    // a wait for text does not match the pasted line's echo, as with submit=true.
    let reader = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "read x; sleep 1; echo \"got $x\""], "input_wait": true}),
    );
    let pasted = client.call(
        "terminal_send",
        json!({"session_id": reader["session_id"], "paste": "hello\n", "for_text": "hello"}),
    );
    assert!(text(&pasted).contains("got hello"), "matched the echo: {}", text(&pasted));
    client.finish();
}

/// A piece that types nothing after text that submits a line (a paste of a bracketed-paste
/// marker alone, which a paste strips) leaves the text's verdict: the line is submitted, and
/// a wait for text does not match its echo. Before, the empty paste's request answered "not
/// submitted" in its place. (An empty `paste` or `keys` reads as not given.)
#[test]
fn an_empty_piece_after_a_submitted_line_leaves_it_submitted() {
    if !require("sh") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let reader = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "read x; sleep 1; echo \"got $x\""], "input_wait": true}),
    );
    let sent = client.call(
        "terminal_send",
        json!({"session_id": reader["session_id"], "text": "hello\n", "paste": "\u{1b}[201~",
            "for_text": "hello"}),
    );
    assert!(text(&sent).contains("got hello"), "matched the echo: {}", text(&sent));
    client.finish();
}

/// A paste ending in a line break, to a full-screen editor that asked for bracketed pastes
/// (vim in insert mode), is text in its buffer: the result does not say it is held on an edit
/// line, to be run with submit=true (an Enter there adds a line break to the text).
#[test]
fn a_paste_to_a_full_screen_editor_is_not_said_to_be_held_on_an_edit_line() {
    if !require("vim") {
        return;
    }
    let path = temp_file("pasted.txt", "");
    let mut client = Client::initialized("2025-11-25");
    let vim = ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", path.to_str().unwrap()];
    let started = client.tool("terminal_start", json!({"argv": vim, "input_wait": true}));
    let id = started["session_id"].clone();
    assert_eq!(started["screen"]["alternate"], true, "{started}");
    let insert = client.call("terminal_send", json!({"session_id": id, "keys": "i"}));
    assert!(text(&insert).contains("-- INSERT --"), "{}", text(&insert));
    let pasted = client.call("terminal_send", json!({"session_id": id, "paste": "one\ntwo\n"}));
    let said = text(&pasted);
    assert!(said.contains("two"), "{said}");
    assert!(!said.contains("bracketed"), "{said}");
    let saved = client
        .call("terminal_send", json!({"session_id": id, "keys": "<Esc>:wq<Enter>", "exit": true}));
    assert_eq!(saved["structuredContent"]["status"]["exit_code"], 0, "{}", text(&saved));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n\n");
    client.finish();
}

/// A paste ending in a line break to a shell in a tmux pane, which tmux draws on the session's
/// alternate screen, is said to be held on the shell's edit line (worded for what tmux may
/// host: the program in the pane is not seen), and submit=true runs it.
#[test]
fn a_paste_to_a_shell_in_a_tmux_pane_is_said_to_be_held_on_its_edit_line() {
    if !require("tmux") || !require("bash") {
        return;
    }
    let socket = temp_dir("tmux-paste").join("s");
    let socket = socket.to_str().unwrap();
    let _server = common::TmuxServer(socket);
    let mut client = Client::initialized("2025-11-25");
    let pane = "bash --norc --noprofile -i";
    let argv = ["tmux", "-S", socket, "-f", "/dev/null", "new-session", pane];
    let started = client.tool("terminal_start", json!({"argv": argv, "input_wait": true}));
    assert_eq!(started["screen"]["alternate"], true, "{started}");
    let id = started["session_id"].clone();
    let pasted = client.call("terminal_send", json!({"session_id": id, "paste": "echo o''ne\n"}));
    let said = text(&pasted);
    assert!(said.contains("bash in tmux took the paste as one block"), "{said}");
    assert!(said.contains("submit=true runs it"), "{said}");
    let ran = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "", "submit": true, "for_screen_text": "one"}),
    );
    assert!(text(&ran).contains("one"), "{}", text(&ran));
    client.finish();
}

/// A wait for text ends when the shell is back at its prompt (bash's line editor reads keys,
/// not a line) and nothing else in the session can print: the command is done and the text
/// never came. Text printed before the wait is pointed to; a background job still to print is
/// waited for.
#[test]
fn a_text_wait_ends_when_the_shell_is_back_at_its_prompt() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let shell = client.tool(
        "terminal_start",
        json!({"argv": ["bash", "--norc", "--noprofile"], "shell_integration": true, "prompt": true}),
    );
    let id = shell["session_id"].clone();
    let mut send = |line: &str, until: &str| {
        let started = Instant::now();
        let sent = client.call(
            "terminal_send",
            json!({"session_id": id, "text": line, "submit": true, "for_text": until,
                   "timeout_ms": 60000}),
        );
        assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
        let outcome = sent["structuredContent"]["wait"]["outcome"].as_str().unwrap().to_owned();
        (outcome, text(&sent))
    };
    let (outcome, said) = send("echo build failed", "build succeeded");
    assert_eq!(outcome, "waiting_for_input", "{said}");
    assert!(said.contains("build failed") && said.contains("asks for input first"), "{said}");
    assert!(!said.contains("before the wait"), "{said}");
    // The line typed holds the text: its echo is no line printed before the wait.
    let (outcome, said) = send("grep -c build-nothing /dev/null", "build-nothing");
    assert_eq!(outcome, "waiting_for_input", "{said}");
    assert!(!said.contains("before the wait"), "{said}");
    let (outcome, said) = send("echo build succeeded", "build succeeded");
    assert_eq!(outcome, "matched", "{said}");
    // An earlier command's line had it: said to be from before this call's input, not as
    // if this command had printed it before the wait.
    let (outcome, said) = send("true", "build succeeded");
    assert_eq!(outcome, "waiting_for_input", "{said}");
    assert!(said.contains("had it before this call's input"), "{said}");
    assert!(!said.contains("before the wait"), "{said}");
    let (outcome, said) = send("(sleep 1.5; echo jo''b done) &", "job done");
    assert_eq!(outcome, "matched", "a background job still to print: {said}");
    client.finish();
}

/// A shell's prompt drawn where a pager's last row soft-wrapped into its `:` prompt (a long
/// line cut at the screen's foot, `git log` through `less -FRX`), erased on its way out, starts
/// a line of its own: the prompt was read as the end of that line, in the result and in the
/// transcript (`...columnroot@vm:~# echo hi`).
#[test]
fn a_prompt_after_a_pager_cut_in_a_wrapped_line_is_a_line_of_its_own() {
    if !require("bash") || !require("less") {
        return;
    }
    let lines: Vec<String> = (0..20).map(|n| format!("{n:02}{}", "-long".repeat(30))).collect();
    let file = temp_file("wrapped.txt", &(lines.join("\n") + "\n"));
    let mut client = Client::initialized("2025-11-25");
    let shell = client.tool(
        "terminal_start",
        json!({"argv": ["bash", "--norc", "--noprofile"], "shell_integration": true,
               "env": {"PS1": "$ "}, "cols": 80, "rows": 12}),
    );
    let id = shell["session_id"].clone();
    let command = format!("less -X {}", file.display());
    let paged =
        client.call("terminal_send", json!({"session_id": id, "text": command, "submit": true}));
    assert!(text(&paged).contains("less waiting for keys"), "{}", text(&paged));
    let quit = text(&client.call("terminal_send", json!({"session_id": id, "keys": "q"})));
    assert!(quit.ends_with("\n$ "), "{quit}");
    client.call("terminal_send", json!({"session_id": id, "text": "echo hi", "submit": true}));
    let all = client.call("terminal_read", json!({"session_id": id, "view": "scrollback"}));
    assert!(text(&all).lines().any(|line| line == "$ echo hi"), "{}", text(&all));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A line break in `text` is typed as Enter (a carriage return), as a person's Enter and a
/// terminal's paste type it: sent as a line feed, it was Ctrl-J, which nano takes for Justify,
/// so `alpha\nbeta\ngamma` typed into nano read as one line, `alpha beta gamma`.
#[test]
fn a_line_break_in_text_is_typed_as_enter() {
    if !require("nano") {
        return;
    }
    let file = temp_dir("nano-lines").join("notes.txt");
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["nano", "--ignorercfiles", file.to_str().unwrap()], "cols": 80, "rows": 24}),
    );
    let id = started["session_id"].clone();
    let typed =
        client.call("terminal_send", json!({"session_id": id, "text": "alpha\nbeta\r\ngamma"}));
    let said = text(&typed);
    assert!(said.contains("nano waiting for keys"), "{said}");
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let rows: Vec<String> =
        text(&screen).lines().skip(3).take(3).map(|row| row.trim_end().to_owned()).collect();
    assert_eq!(rows, ["alpha", "beta", "gamma▌"], "{}", text(&screen));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// Text and the Enter that submits it reach the program in one read, as one write, as tmux's
/// `send-keys TEXT Enter` types them: irb's line editor (reline 0.3) leaves raw mode while it
/// handles each key, and an Enter written a moment after the text came in the terminal's line
/// mode, whose echo moved the cursor a row down (the prompt drawn twice, 7 runs in 12). A
/// program in raw mode shows what each of its reads got; twelve lines, so that reads which
/// happened to find both writes cannot pass it.
#[test]
fn text_and_its_enter_are_typed_in_one_write() {
    let mut client = Client::initialized("2025-11-25");
    let script = "import os, tty\ntty.setraw(0)\nfor _ in range(12):\n    data = os.read(0, 100)\n    os.write(1, b'read %r\\r\\n' % data)";
    let started = client.tool("terminal_start", json!({"argv": ["python3", "-c", script]}));
    let id = started["session_id"].clone();
    for line in (1..=12).map(|n| format!("{n}*7")) {
        let sent = client.call(
            "terminal_send",
            json!({"session_id": id, "text": line, "submit": true, "for_text": format!("read b'{line}")}),
        );
        let said = text(&sent);
        assert!(said.contains(&format!("read b'{line}\\r'")), "{said}");
    }
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A wait for text ends when the program asks for a line instead (nothing more comes until
/// one is typed), not at its timeout; a shell reading a line beside a background job that
/// prints later is waited for.
#[test]
fn a_text_wait_ends_when_the_program_asks_for_a_line_instead() {
    let mut client = Client::initialized("2025-11-25");
    let script = "a = input('Name: '); b = input('Age: '); print('Hello', a, b)";
    client.tool("terminal_start", json!({"argv": ["python3", "-c", script]}));
    let started = Instant::now();
    let sent = client.call(
        "terminal_send",
        json!({"session_id": 1, "text": "bob", "submit": true, "for_text": "Hello", "timeout_ms": 20000}),
    );
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let said = text(&sent);
    assert!(said.contains("stopped waiting for text \"Hello\"") && said.contains("Age:"), "{said}");
    assert_eq!(sent["structuredContent"]["wait"]["outcome"], "waiting_for_input", "{sent}");
    let sent = client.call(
        "terminal_send",
        json!({"session_id": 1, "text": "7", "submit": true, "for_text": "Hello bob 7"}),
    );
    // (The whole line: `print` may write its pieces one by one, and a wait for `Hello`
    // alone can end before the rest arrives.)
    assert!(text(&sent).contains("Hello bob 7"), "{}", text(&sent));
    let late = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", "(sleep 1.5; echo late) & read x"], "for_text": "late"}),
    );
    assert_eq!(late["structuredContent"]["wait"]["outcome"], "matched", "{}", text(&late));
    // With job control too: the shell reads a line alone in its group while its background
    // job, in a group of its own, is still to print.
    let shell = client.tool("terminal_start", json!({"argv": ["sh", "-i"], "input_wait": true}));
    let job = client.call(
        "terminal_send",
        json!({"session_id": shell["session_id"], "text": "(sleep 1.5; echo jo''b done) &",
               "submit": true, "for_text": "job done"}),
    );
    assert_eq!(job["structuredContent"]["wait"]["outcome"], "matched", "{}", text(&job));
    // A program quiet in a loop on a short timer that waits on no descriptor, or a server
    // on its socket, asks for nothing: the wait runs to its text.
    let script = "import select, socket\n\
                  a, b = socket.socketpair()\n\
                  for _ in range(8): select.select([], [], [], 0.2)\n\
                  for _ in range(12): select.select([a], [], [], 0.5)\n\
                  print('ready')";
    let looping = client.call(
        "terminal_start",
        json!({"argv": ["python3", "-c", script], "for_text": "ready", "timeout_ms": 20000}),
    );
    assert_eq!(looping["structuredContent"]["wait"]["outcome"], "matched", "{}", text(&looping));
    client.finish();
}

/// A wait for text ends when a REPL reading keys (not lines) at its prompt asks for its next
/// line: every thread of it blocked reading the terminal, or polling it alone with no timeout,
/// and nothing else in its session (Python's REPL and pdb, readline's `select` on descriptor 0:
/// such a wait ran to its timeout). A thread of the REPL asleep beside it, that prints when it
/// wakes, is waited for.
#[test]
fn a_text_wait_ends_when_a_repl_reading_keys_asks_for_its_next_line() {
    if !require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = temp_file("stop.py", "x = 1\nbreakpoint()\nprint('done', x)\n");
    // (Python 3.13's own REPL polls every 100 ms for its input hooks; the basic one, readline's,
    // waits for a key with no timeout, as `input()` does at pdb's prompt.)
    let repls = [
        json!({"argv": ["python3", "-q"], "env": {"PYTHON_BASIC_REPL": "1"}, "input_wait": true}),
        json!({"argv": ["python3", script.to_str().unwrap()], "input_wait": true}),
    ];
    for repl in repls {
        let id = client.tool("terminal_start", repl)["session_id"].clone();
        let started = Instant::now();
        let sent = client.call(
            "terminal_send",
            json!({"session_id": id, "text": "print('hi ' + 'al')", "submit": true,
                   "for_text": "hi bob", "timeout_ms": 60000}),
        );
        assert!(started.elapsed() < LONG, "{:?}: {}", started.elapsed(), text(&sent));
        let said = text(&sent);
        assert_eq!(sent["structuredContent"]["wait"]["outcome"], "waiting_for_input", "{said}");
        assert!(said.contains("asks for input first") && said.contains("hi al"), "{said}");
        client.tool("terminal_close", json!({"session_id": id}));
    }
    let repl =
        json!({"argv": ["python3", "-q"], "env": {"PYTHON_BASIC_REPL": "1"}, "input_wait": true});
    let id = client.tool("terminal_start", repl)["session_id"].clone();
    let line = "import threading, time; threading.Thread(target=lambda: (time.sleep(1.5), print('la' + 'te'))).start()";
    submits_and_waits_for_late(&mut client, &id, line);
    client.finish();
}

/// Submits `line` in session `id`, which makes its program print `late` a while after it
/// asks for input again: a wait for that text is not ended by the prompt, and matches.
fn submits_and_waits_for_late(client: &mut Client, id: &Value, line: &str) {
    let late = client.call(
        "terminal_send",
        json!({"session_id": id, "text": line, "submit": true, "for_text": "late",
               "timeout_ms": 60000}),
    );
    assert_eq!(late["structuredContent"]["wait"]["outcome"], "matched", "{}", text(&late));
}

/// C `source` built with debugging information as program `name` in a directory of its own,
/// for gdb to run; `None` (the test skipped) without gdb or gcc.
fn program_for_gdb(name: &str, source: &str) -> Option<std::path::PathBuf> {
    if !require("gdb") || !require("gcc") {
        return None;
    }
    let dir = temp_dir(&format!("{name}.c"));
    assert!(common::build_c(&dir, name, source, &["-g"]));
    Some(dir.join(name))
}

/// gdb reads keys at its prompt in an event loop: it polls the terminal beside self-pipes no
/// other process holds, with no timeout, its worker threads idle on locks of its own. Only a
/// key can wake it, as at Python's prompt, but a wait for text there ran to its timeout (8 s
/// of 8); it ends when gdb asks, also with its program stopped at a breakpoint. The program,
/// continued, that prints a line 2 s later, is waited for.
#[test]
fn a_text_wait_ends_at_gdbs_prompt_and_waits_for_the_program_it_runs() {
    let source = "#include <stdio.h>\n#include <unistd.h>\n\
         int main(void) { sleep(2); puts(\"la\" \"te\"); return 0; }\n";
    let Some(program) = program_for_gdb("late", source) else { return };
    let mut client = Client::initialized("2025-11-25");
    // (No debuginfod question at the start, whatever the machine's environment.)
    let gdb = json!({"argv": ["gdb", "-nx", "-q", program.to_str().unwrap()],
                     "env": {"DEBUGINFOD_URLS": ""}, "input_wait": true});
    let id = client.tool("terminal_start", gdb)["session_id"].clone();
    let started = Instant::now();
    let sent = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "print 6 * 7", "submit": true,
               "for_text": "never printed", "timeout_ms": 20000}),
    );
    let said = text(&sent);
    assert!(started.elapsed() < LONG, "{:?}: {said}", started.elapsed());
    assert_eq!(sent["structuredContent"]["wait"]["outcome"], "waiting_for_input", "{said}");
    assert!(said.contains("asks for input first") && said.contains("= 42"), "{said}");
    // At a breakpoint too: the program gdb stopped tracing it runs only when gdb says so.
    client.tool("terminal_send", json!({"session_id": id, "text": "break main", "submit": true}));
    let stopped = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "run", "submit": true,
               "for_text": "never printed", "timeout_ms": 20000}),
    );
    let said = text(&stopped);
    assert_eq!(stopped["structuredContent"]["wait"]["outcome"], "waiting_for_input", "{said}");
    assert!(said.contains("Breakpoint 1, main"), "{said}");
    submits_and_waits_for_late(&mut client, &id, "continue");
    client.finish();
}

/// gdb's TUI (`gdb -tui`) holds the alternate screen while the program it runs has the
/// terminal: that program, asleep on a short clock (`sleep(2)` before it asks for a number),
/// drew none of the full screen it sleeps on, and is no monitor between two frames. `run`
/// returned after 0.39 s, `settled: redrawing on a timer`, before the program asked; it
/// waits until the program asks for its line, as without the TUI.
#[test]
fn the_default_wait_follows_a_program_gdbs_tui_runs_until_it_asks_for_a_line() {
    let source = "#include <stdio.h>\n#include <unistd.h>\n\
         int main(void) { char line[64]; puts(\"working\"); fflush(stdout); sleep(2);\n\
         printf(\"enter a number: \"); fflush(stdout);\n\
         if (fgets(line, sizeof line, stdin)) printf(\"got %s\", line); return 0; }\n";
    let Some(program) = program_for_gdb("asks", source) else { return };
    let mut client = Client::initialized("2025-11-25");
    let gdb = json!({"argv": ["gdb", "-nx", "-q", "-tui", program.to_str().unwrap()],
                     "env": {"DEBUGINFOD_URLS": ""}, "for_screen_text": "(gdb)"});
    let id = client.tool("terminal_start", gdb)["session_id"].clone();
    let started = Instant::now();
    let run =
        client.call("terminal_send", json!({"session_id": id, "text": "run", "submit": true}));
    let (took, said) = (started.elapsed(), text(&run));
    assert!(said.contains("asks waiting for a line"), "after {took:?}: {said}");
    assert!(said.contains("enter a number:"), "after {took:?}: {said}");
    assert!(took >= Duration::from_secs(2), "after {took:?}: {said}");
    let answered =
        client.call("terminal_send", json!({"session_id": id, "text": "21", "submit": true}));
    let said = text(&answered);
    assert!(said.contains("got 21") && said.contains("gdb waiting for keys"), "{said}");
    client.finish();
}

/// node's REPL reads keys at its prompt in an event loop, beside descriptors of its own and on
/// a timer: a timer set at the prompt prints later, without a key, and a wait for its text is
/// not ended by the prompt.
#[test]
fn a_text_wait_at_nodes_prompt_waits_for_its_timer() {
    if !require("node") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id =
        client.tool("terminal_start", json!({"argv": ["node"], "input_wait": true}))["session_id"]
            .clone();
    let line = "setTimeout(() => console.log('la' + 'te'), 2000)";
    submits_and_waits_for_late(&mut client, &id, line);
    client.finish();
}

/// Keys after a Tab are sent once the program has read the Tab, as a person's come: node's
/// REPL takes a Tab read with more keys for pasted text, so `<Tab><Tab>` after `Math.ma`
/// inserted two tab characters (`> Math.ma       `) instead of completing `Math.max`.
#[test]
fn keys_after_a_tab_come_once_the_tab_is_read() {
    if !require("node") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.tool("terminal_start", json!({"argv": ["node"], "cols": 80, "rows": 24}))
        ["session_id"]
        .clone();
    client.call("terminal_send", json!({"session_id": id, "text": "Math.ma"}));
    client.call("terminal_send", json!({"session_id": id, "keys": "<Tab><Tab>"}));
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = &screen["structuredContent"]["screen"];
    let row = shown["cursor_row"].as_u64().unwrap() as usize;
    let line = shown["text"].as_str().unwrap().lines().nth(row).unwrap_or_default().to_owned();
    assert_eq!(line.trim_end(), "> Math.max▌", "{}", text(&screen));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// An Escape in `keys` reaches the program before the keys after it, as a person's would:
/// sent in one write, vim (`--clean`, whose `ttimeout` waits 100 ms for a key code's rest)
/// read `<Esc>Otwo` as the keypad's 4 (`ESC O t`) then `wo`, and the buffer read `one4wo`.
#[test]
fn keys_after_an_escape_come_once_the_escape_is_read() {
    if !require("vim") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client
        .tool("terminal_start", json!({"argv": ["vim", "--clean", "-n"], "cols": 80, "rows": 24}))
        ["session_id"]
        .clone();
    client.call("terminal_send", json!({"session_id": id, "keys": "ione<Esc>Otwo<Esc>"}));
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    let rows: Vec<&str> = shown.lines().take(2).map(str::trim_end).collect();
    assert_eq!(rows, ["two", "one"], "{}", text(&screen));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// An Escape right after an Escape in `keys` reaches the program within its wait for a key
/// code's rest, as a person's second press: mc takes `Esc Esc` for one cancel. The second
/// was sent once the program had read and answered the first, which mc does only when its
/// timer after a lone Escape runs out (1 s): the first closed mcedit's search dialog, the
/// second quit mcedit (2.1 s).
#[test]
fn an_escape_after_an_escape_comes_as_a_persons_second_press() {
    if !require("mcedit") {
        return;
    }
    let dir = temp_dir("mcedit-escapes");
    let file = dir.join("notes.txt");
    std::fs::write(&file, "first line\n").unwrap();
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["mcedit", file.to_str().unwrap()]);
    // mc's settings in a home of their own.
    let env = json!({"HOME": dir.to_str().unwrap()});
    let started =
        client.call("terminal_start", json!({"argv": argv, "env": env, "cols": 80, "rows": 24}));
    assert!(text(&started).contains("first line"), "{}", text(&started));
    let id = started["structuredContent"]["session_id"].clone();
    let search = client.call("terminal_send", json!({"session_id": id, "keys": "<F7>"}));
    assert!(text(&search).contains("Enter search string"), "{}", text(&search));
    let closed = client.call("terminal_send", json!({"session_id": id, "keys": "<Esc><Esc>"}));
    let shown = text(&closed);
    assert!(shown.starts_with("[mcedit waiting for keys"), "mcedit quit: {shown}");
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    let dialog = shown.contains("Enter search string");
    assert!(shown.contains("first line") && !dialog, "{shown}");
    // So too an Escape in keys after text that ends in one (review wm: it waited for mc to
    // answer the text's Escape, at the end of its 1 s timer, and the keys' Escape quit mcedit).
    // (The dialog is the screen seen before: the result says so, the screen view shows it.)
    client.call("terminal_send", json!({"session_id": id, "keys": "<F7>"}));
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    assert!(shown.contains("Enter search string"), "{shown}");
    let closed =
        client.call("terminal_send", json!({"session_id": id, "text": "x\\e", "keys": "<Esc>"}));
    let shown = text(&closed);
    assert!(shown.starts_with("[mcedit waiting for keys"), "mcedit quit: {shown}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// The keys before an Escape in `keys`, and text ending in an Escape, reach the program
/// before it, as a person's would: sent in one write, nano took the Escape for a Meta key's
/// prefix and held the keys read with it, drawing none of them until the next key came, so
/// `hello world<Esc>` (or `text: "hello world\\e"`) left its screen as it was (`unchanged
/// since your last look`), the text typed but not shown.
#[test]
fn keys_before_an_escape_are_read_before_it() {
    if !require("nano") {
        return;
    }
    for (field, typed) in [("keys", "hello world<Esc>"), ("text", "hello world\\e")] {
        let file = temp_dir("nano-escape").join(format!("{field}.txt"));
        let mut client = Client::initialized("2025-11-25");
        let argv = json!(["nano", "--ignorercfiles", file.to_str().unwrap()]);
        let started = client.tool("terminal_start", json!({"argv": argv, "cols": 80, "rows": 24}));
        let id = started["session_id"].clone();
        let typed = client.call("terminal_send", json!({"session_id": id, field: typed}));
        assert!(text(&typed).contains("1│hello world▌"), "{field}: {}", text(&typed));
        let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
        let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
        let row = shown.lines().nth(1).map(str::trim_end);
        assert_eq!(row, Some("hello world▌"), "{field}: {shown}");
        client.call("terminal_close", json!({ "session_id": id }));
        client.finish();
    }
}

/// Under the kitty keyboard protocol an Escape is a sequence of its own (`CSI 27 u`), which no
/// program takes for a Meta prefix or a key code's start: it is typed with the keys around
/// it, in one write. It was cut before and after as the Escape byte is, each cut a wait for
/// the program to read the part before (0.16 s an Escape in neovim). The program shows
/// each read it makes on a line of its own.
#[test]
fn an_escape_under_the_kitty_keyboard_protocol_is_typed_with_the_keys_around_it() {
    let script = "import os, sys, tty\n\
        tty.setraw(0)\n\
        sys.stdout.write('\\x1b[>1u'); sys.stdout.flush()\n\
        while True:\n\
        \x20   data = os.read(0, 256)\n\
        \x20   sys.stdout.write('read ' + repr(data) + '\\r\\n'); sys.stdout.flush()\n";
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", "-c", script]);
    let id =
        client.tool("terminal_start", json!({"argv": argv, "cols": 60, "rows": 10}))["session_id"]
            .clone();
    let sent = client.call("terminal_send", json!({"session_id": id, "keys": "ab<Esc>cd"}));
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    let reads: Vec<&str> = shown.lines().filter(|line| line.starts_with("read ")).collect();
    assert_eq!(reads, [r"read b'ab\x1b[27ucd'"], "{shown}\n{}", text(&sent));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// The keys before an Escape are given half a second to be read, no more: a game redrawing
/// every 50 ms, which never waits for input, got the Escape only at the end of the default
/// wait's 10 s after `jj` (review we). The game shows how long after the first key the
/// Escape came.
#[test]
fn an_escape_after_keys_reaches_a_program_that_never_waits_soon() {
    let script = "import os, select, sys, time, tty\n\
        tty.setraw(0)\n\
        typed, state, tick, first = b'', 'RUNNING', 0, None\n\
        while True:\n\
        \x20   tick += 1\n\
        \x20   sys.stdout.write(f'\\x1b[H\\x1b[2Ktick {tick} {state} typed={typed!r}')\n\
        \x20   sys.stdout.flush()\n\
        \x20   if select.select([0], [], [], 0.05)[0]:\n\
        \x20       data = os.read(0, 64)\n\
        \x20       first = first or time.monotonic()\n\
        \x20       typed += data.replace(b'\\x1b', b'')\n\
        \x20       if b'\\x1b' in data: state = f'PAUSED after {time.monotonic() - first:.1f} s'\n\
        \x20       if b'\\r' in data: state = f'ENTER after {time.monotonic() - first:.1f} s'\n";
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", "-c", script]);
    let id =
        client.tool("terminal_start", json!({"argv": argv, "cols": 60, "rows": 10}))["session_id"]
            .clone();
    let sent = client.call("terminal_send", json!({"session_id": id, "keys": "jj<Esc>"}));
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    let after = shown.split("PAUSED after ").nth(1).and_then(|rest| rest.split(' ').next());
    let seconds: f64 = after.and_then(|s| s.parse().ok()).unwrap_or(f64::MAX);
    assert!(seconds < 3.0, "the Escape came {seconds} s after the keys: {shown}\n{}", text(&sent));
    assert!(shown.contains("typed=b'jj'"), "{shown}");
    client.call("terminal_close", json!({ "session_id": id }));
    // Text ending in an Escape, then Enter: the Enter waits for the Escape to be read, about
    // a second after the program read it when it never waits for input (`escape_read`;
    // review wm: the call's whole timeout, here 6 s; 10 s by default).
    let id =
        client.tool("terminal_start", json!({"argv": argv, "cols": 60, "rows": 10}))["session_id"]
            .clone();
    let sent = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "jj\\e", "submit": true, "timeout_ms": 6000}),
    );
    let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    let after = shown.split("ENTER after ").nth(1).and_then(|rest| rest.split(' ').next());
    let seconds: f64 = after.and_then(|s| s.parse().ok()).unwrap_or(f64::MAX);
    assert!(seconds < 3.0, "the Enter came {seconds} s after the text: {shown}\n{}", text(&sent));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// Around an Escape each piece a call types is a read of its own, soon after the one before
/// where it has a bound (review wo): an Enter after keys ending in an Escape was written with
/// it, `\e\r`, which fish takes for Alt-Enter (and keys after an Escape, given half a second
/// for a while, came with it to a program slower than that: vim's `one4wo`, review wq);
/// keys after text that is only an Escape went
/// with it; to a program that never waits for input, keys after text ending in an Escape
/// waited the call's whole timeout, and an Escape in keys after the text's Escape half a
/// second, not `BETWEEN_ESCAPES`; keys after an Escape in keys waited the call's whole timeout
/// (the program read the Escape, but never waits for input), and text's last Escapes went in
/// one write. Each program prints each read with its time on a row of its
/// own; the first reads what it is sent 0.2 s late, the second redraws a clock every 50 ms,
/// so it never waits for input.
#[test]
fn each_piece_around_an_escape_is_read_apart_and_soon() {
    let program = |clock: &str, slow: &str| {
        format!(
            "import os, select, sys, time, tty\n\
             tty.setraw(0)\n\
             start, tick, row = time.monotonic(), 0, 2\n\
             while True:\n\
             \x20   tick += 1\n\
             \x20   {clock}\n\
             \x20   if select.select([0], [], [], 0.05)[0]:\n\
             \x20       time.sleep({slow})\n\
             \x20       data = os.read(0, 64)\n\
             \x20       sys.stdout.write(f'\\x1b[{{row}};1H{{time.monotonic() - start:.2f}} {{data.hex()}}')\n\
             \x20       sys.stdout.flush()\n\
             \x20       row += 1\n"
        )
    };
    // (Slow to read what it is sent: what comes within 0.2 s of it is read with it.)
    let waits = program("pass", "0.2");
    // (Slower than half a second: the keys after an Escape wait for it all the same.)
    let slow = program("pass", "0.8");
    let never_waits =
        program("sys.stdout.write(f'\\x1b[1;1H\\x1b[2Ktick {tick}'); sys.stdout.flush()", "0");
    // (Raw, polling between naps: it never waits for input, and prints nothing after its
    // `ready` until its `q`, then every read, and exits.)
    let quiet = include_str!("common/quiet_poller.py").to_owned();
    // (Reads a line (the terminal's canonical mode) polling between naps, so it never waits
    // for input; prints it and exits.)
    let lines = "import os, select, sys, time\n\
        start = time.monotonic()\n\
        while not select.select([0], [], [], 0)[0]:\n\
        \x20   time.sleep(0.05)\n\
        sys.stdout.write(f'\\x1b[2;1H{time.monotonic() - start:.2f} {os.read(0, 64).hex()}')\n\
        sys.stdout.flush()\n"
        .to_owned();
    // (what the call types, the reads it must come as: hex bytes, the longest gap before each)
    let cases = [
        (
            &waits,
            json!({"keys": "echo<Esc>", "submit": true}),
            &[("6563686f", 9.0), ("1b", 9.0), ("0d", 9.0)][..],
        ),
        (&slow, json!({"keys": "<Esc>q"}), &[("1b", 9.0), ("71", 9.0)][..]),
        (&waits, json!({"text": "\\e", "keys": "abc"}), &[("1b", 9.0), ("616263", 9.0)][..]),
        (
            &never_waits,
            json!({"text": "x\\e", "keys": "<Esc>"}),
            &[("78", 9.0), ("1b", 1.5), ("1b", 0.35)][..],
        ),
        (
            &never_waits,
            json!({"text": "x\\e", "keys": "q"}),
            &[("78", 9.0), ("1b", 1.5), ("71", 2.5)][..],
        ),
        // (Keys after an Escape in keys: they waited the call's whole timeout.)
        (&never_waits, json!({"keys": "<Esc>q"}), &[("1b", 9.0), ("71", 2.5)][..]),
        (&never_waits, json!({"keys": "a<Esc>q"}), &[("61", 9.0), ("1b", 1.5), ("71", 2.5)][..]),
        // (Escapes ending the text: they went in one write.)
        (&never_waits, json!({"text": "x\\e\\e"}), &[("78", 9.0), ("1b", 1.5), ("1b", 0.35)][..]),
        // (Keys after text's Escape to a program that read it and never prints: half a second
        // at most, as before review wu; they waited the call's whole timeout.)
        (&quiet, json!({"text": "\\e", "keys": "q"}), &[("1b", 9.0), ("71", 1.5)][..]),
        // (In canonical mode the Escape goes with its line: the Enter at once; it waited the
        // call's whole timeout, `LINE_CALL` below.)
        (&lines, json!({"text": "x\\e", "submit": true}), &[("781b0a", 9.0)][..]),
    ];
    /// The longest the call typing a line to `lines` may take (its timeout is 3 s).
    const LINE_CALL: Duration = Duration::from_millis(2000);
    let mut client = Client::initialized("2025-11-25");
    for (script, typed, reads) in cases {
        let argv = json!(["python3", "-c", script]);
        let started = client.tool("terminal_start", json!({"argv": argv, "cols": 60, "rows": 10}));
        let id = started["session_id"].clone();
        let mut args = typed.clone();
        args["session_id"] = id.clone();
        args["timeout_ms"] = json!(3000);
        let sent = Instant::now();
        client.call("terminal_send", args);
        let took = sent.elapsed();
        let screen = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
        let shown = screen["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
        let new: Vec<(f64, &str)> = shown
            .lines()
            .filter_map(|line| line.trim_end().split_once(' '))
            .filter_map(|(time, hex)| Some((time.parse().ok()?, hex.trim_end_matches('▌'))))
            .collect();
        let hexes: Vec<&str> = new.iter().map(|(_, hex)| *hex).collect();
        let wanted: Vec<&str> = reads.iter().map(|(hex, _)| *hex).collect();
        assert_eq!(hexes, wanted, "{typed}: {shown}");
        if script == &lines {
            assert!(took < LINE_CALL, "{typed}: the call took {took:?}: {shown}");
        }
        for (at, (_, most)) in reads.iter().enumerate().skip(1) {
            let gap = new[at].0 - new[at - 1].0;
            assert!(
                gap < *most,
                "{typed}: read {at} came {gap:.2} s after the one before: {shown}"
            );
        }
        client.call("terminal_close", json!({ "session_id": id }));
    }
    client.finish();
}

/// Keys cut short by a cancellation (while the call waits for a Tab to be read) type nothing
/// more: no Enter after a line cut short (`rm -r build/ca<Tab>/tmp` would have run as
/// `rm -r build/cache/`). The program logs what it read after the Tab, once busy a while, to
/// a file another session follows.
#[test]
fn keys_cut_short_by_a_cancellation_are_not_submitted() {
    let log = temp_dir("cut-short").join("log");
    std::fs::write(&log, "").unwrap();
    let script = "import os, select, sys, time, tty\n\
        tty.setraw(0)\n\
        log = open(sys.argv[1], 'a', buffering=1)\n\
        data = b''\n\
        while b'\\t' not in data:\n    data += os.read(0, 100)\n\
        log.write('busy\\n')\n\
        end = time.time() + 3\n\
        while time.time() < end:\n    pass\n\
        rest = b''\n\
        while select.select([0], [], [], 1)[0]:\n    rest += os.read(0, 100)\n\
        log.write('after the tab %r\\n' % rest)\n";
    let mut client = Client::initialized("2025-11-25");
    let path = log.to_str().unwrap();
    let watcher =
        client.tool("terminal_start", json!({"argv": ["tail", "-F", path]}))["session_id"].clone();
    let program = client.tool("terminal_start", json!({"argv": ["python3", "-c", script, path]}))
        ["session_id"]
        .clone();
    let sending = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": program, "keys": "ab<Tab>cd", "submit": true}}),
    );
    let busy = client.tool(
        "terminal_read",
        json!({"session_id": watcher, "for_text": "busy", "timeout_ms": 30000}),
    );
    assert_eq!(busy["wait"]["outcome"], "matched", "{busy}");
    client.notify("notifications/cancelled", json!({"requestId": sending, "reason": "test"}));
    let after = client.tool(
        "terminal_read",
        json!({"session_id": watcher, "for_text": "after the tab", "timeout_ms": 30000}),
    );
    assert_eq!(after["wait"]["outcome"], "matched", "{after}");
    assert!(after.to_string().contains("after the tab b''"), "{after}");
    client.finish();
}

/// Keys cut short by a cancellation at a Tab leave what was typed before it, completed, on the
/// program's edit line, where nothing submits it; the cancelled call gets no result, and the
/// next result for the session shows that line: a read ends with it, and the line the next
/// call submits reads as the program got it (`gitx status echo hi`), not as the call typed it.
/// bash's completion of `gitx` logs that it runs, then waits for the test to let it finish.
#[test]
fn what_a_cancelled_call_left_on_the_edit_line_is_in_the_next_result() {
    for program in ["bash", "mkfifo"] {
        if !require(program) {
            return;
        }
    }
    let dir = temp_dir("cut-at-tab");
    let (log, gate) = (dir.join("log"), dir.join("gate"));
    std::fs::write(&log, "").unwrap();
    let made = std::process::Command::new("mkfifo").arg(&gate).status().unwrap();
    assert!(made.success());
    let (log, gate) = (log.to_str().unwrap(), gate.to_str().unwrap());
    let mut client = Client::initialized("2025-11-25");
    let watcher =
        client.tool("terminal_start", json!({"argv": ["tail", "-F", log]}))["session_id"].clone();
    let id = client.bash_session();
    let completion = format!(
        "_slow() {{ echo busy >> {log}; read -r _ < {gate}; COMPREPLY=(status); }}; complete -F _slow gitx"
    );
    let set = json!({"session_id": id, "text": completion, "submit": true});
    assert!(text(&client.call("terminal_send", set)).ends_with("\n$ "));
    for next in ["read", "send"] {
        let keys = json!({"session_id": id, "keys": "gitx st<Tab> --short", "submit": true});
        let sending =
            client.send_request("tools/call", json!({"name": "terminal_send", "arguments": keys}));
        let busy = json!({"session_id": watcher, "for_text": "busy", "timeout_ms": 30000});
        assert_eq!(client.tool("terminal_read", busy)["wait"]["outcome"], "matched");
        client.notify("notifications/cancelled", json!({"requestId": sending, "reason": "test"}));
        // (Answered once the cancellation was taken.)
        assert_eq!(client.ok("ping", json!({})), json!({}));
        std::fs::write(gate, "go\n").unwrap();
        match next {
            "read" => {
                let read = json!({"session_id": id, "input_wait": true, "timeout_ms": 30000});
                let read = text(&client.call("terminal_read", read));
                assert!(read.ends_with("\ngitx status "), "{read}");
                let cleared = json!({"session_id": id, "keys": "<C-u>"});
                client.call("terminal_send", cleared);
            }
            _ => {
                let line = json!({"session_id": id, "text": "echo hi", "submit": true});
                let sent = text(&client.call("terminal_send", line));
                assert!(sent.contains("\ngitx status echo hi\n"), "{sent}");
                assert!(sent.ends_with("gitx: command not found\n$ "), "{sent}");
            }
        }
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A command that waits in a full-screen program (a pager) comes back with that program's
/// screen and the way out (its own keys, not Ctrl-C), in one call.
#[test]
fn a_command_waiting_in_a_full_screen_program_shows_its_screen() {
    if !require("less") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    // Within the call's max_bytes, output and screen together.
    let ran =
        client.call("terminal_run", json!({"command": "less /etc/passwd", "max_bytes": 1000}));
    let said = text(&ran);
    let size = said.len() + ran["structuredContent"].to_string().len();
    assert!(size <= 1000 + MAX_BYTES_OVERHEAD, "{size} bytes: {said}");
    assert_eq!(ran["structuredContent"]["waiting_for_input"], true, "{said}");
    assert!(said.contains("--- screen") && said.contains("root:"), "{said}");
    assert!(
        said.contains("quit the program with its own keys") && !said.contains("<C-c>"),
        "{said}"
    );
    assert!(ran["structuredContent"]["screen"]["text"].as_str().unwrap().contains("root:"));
    let id = ran["structuredContent"]["session_id"].clone();
    let quit = client.call("terminal_send", json!({"session_id": id, "keys": "q", "prompt": true}));
    assert!(!text(&quit).contains("timed out"), "{}", text(&quit));
    client.finish();
}

/// A command that waits in a pager on the primary screen (`git log`, through `less -FRX`)
/// leaves the caller on the pager's prompt line as a read does: the `q` after it said `[from
/// a line you saw, since redrawn]` before the shell's prompt (the run did not note the
/// prompt).
#[test]
fn a_command_waiting_in_a_pager_leaves_its_prompt_line_unrepeated() {
    for program in ["less", "seq"] {
        if !require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let ran = client.call("terminal_run", json!({"command": "seq 1 200 | less -X"}));
    let said = text(&ran);
    assert_eq!(ran["structuredContent"]["waiting_for_input"], true, "{said}");
    assert!(said.contains("\n:\n[less waiting for keys"), "{said}");
    let id = ran["structuredContent"]["session_id"].clone();
    let quit = client.call("terminal_send", json!({"session_id": id, "keys": "q", "prompt": true}));
    assert_eq!(quit["structuredContent"]["rewritten"], false, "{}", text(&quit));
    assert!(!text(&quit).contains("since redrawn"), "{}", text(&quit));
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A command that waits for a password is answered by the person (`secret`), and the advice
/// says so rather than to type it; to a client that cannot ask its person for it (no URL-mode
/// elicitation, forms alone included), it says that no answer can come through the model (it
/// pointed to a `secret=true` that such a client's call refuses).
#[test]
fn a_command_waiting_for_a_password_is_answered_with_a_secret() {
    if !require("python3") {
        return;
    }
    let command = "python3 -c 'import getpass; getpass.getpass()'";
    for elicits in [true, false] {
        let mut client = Client::start();
        // A form cannot ask for a password (the MCP specification forbids it): only URL mode.
        let capabilities = match elicits {
            true => json!({"elicitation": {"url": {}}}),
            false => json!({"elicitation": {"form": {}}}),
        };
        client.initialize_with("2025-11-25", capabilities);
        client.notify("notifications/initialized", json!({}));
        let ran = client.call("terminal_run", json!({"command": command}));
        let said = text(&ran);
        assert_eq!(ran["structuredContent"]["status"]["input_kind"], "password", "{said}");
        assert_eq!(said.contains("terminal_send secret=true"), elicits, "{said}");
        assert_eq!(said.contains("cannot ask its person"), !elicits, "{said}");
        let id = ran["structuredContent"]["session_id"].clone();
        client.tool("terminal_close", json!({"session_id": id}));
        client.finish();
    }
}

/// A command whose output outgrew the transcript's bound (10,000 lines by default) says which
/// lines are still held, and they can be read by number.
#[test]
fn a_run_past_the_transcript_bound_says_which_lines_are_held() {
    let mut client = Client::initialized("2025-11-25");
    let ran = client.call("terminal_run", json!({"command": "seq 1 30000", "max_bytes": 400}));
    let said = text(&ran);
    let held = said
        .split("which holds lines ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("no range of held lines: {said}"));
    let first: u64 = held.split('-').next().unwrap().parse().unwrap();
    assert!(first > 15_000, "{said}");
    // The advice's own range, as a model would copy it.
    let lines = said
        .split("lines=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no range to read: {said}"));
    assert_eq!(lines, format!("{first}-"), "{said}");
    let id = ran["structuredContent"]["session_id"].clone();
    let read = client.call("terminal_read", json!({"session_id": id, "lines": lines}));
    assert_eq!(read["isError"], false, "{read}");
    assert!(text(&read).contains(&format!("{first}│")), "{}", text(&read));
    client.finish();
}

/// Shell integration asked for on a command line names the ways that work: the default shell,
/// or the shell itself as `argv`, which then runs commands.
#[test]
fn integration_on_a_command_line_names_the_shell_as_argv() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let message =
        client.tool_error("terminal_start", json!({"command": "bash", "shell_integration": true}));
    assert!(message.contains("argv=[\"zsh\"]") && message.contains("omit `command`"), "{message}");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["bash"], "shell_integration": true, "prompt": true}),
    );
    let ran = client.tool(
        "terminal_run",
        json!({"session_id": started["session_id"], "command": "echo via argv"}),
    );
    assert_eq!(ran["exit_code"], 0, "{ran}");
    assert!(ran["output"].as_str().unwrap().contains("via argv"), "{ran}");
    client.finish();
}

/// The default wait does not take a busy program for settled because it has been quiet: a
/// program sleeping (or computing) for two seconds before it asks is waited for, so the
/// next input is not sent before its question.
#[test]
fn the_default_wait_waits_out_a_quiet_busy_program() {
    let mut client = Client::initialized("2025-11-25");
    let started = Instant::now();
    let result = client
        .call("terminal_start", json!({"argv": ["sh", "-c", "sleep 2; printf 'name? '; read x"]}));
    let header = text(&result);
    assert!(started.elapsed() >= Duration::from_secs(2), "{:?}: {header}", started.elapsed());
    assert!(header.contains("sh waiting for a line") && header.contains("name?"), "{header}");
    client.finish();
}

/// A program waiting on the world outside, not on the terminal nor a clock (`tail -f` on its
/// file, a server on its socket), is taken as settled once quiet: it may print again only
/// when something happens out there. The default wait took its whole 10 s for them.
#[test]
fn the_default_wait_settles_a_program_waiting_on_the_world_outside() {
    if !require("tail") || !require("python3") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("termloom-outside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log");
    std::fs::write(&log, "first line\n").unwrap();
    let server = ["python3", "-m", "http.server", "0", "--bind", "127.0.0.1"];
    settle_soon(&[
        (vec!["tail", "-f", log.to_str().unwrap()], "first line"),
        (server.to_vec(), "Serving HTTP"),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program following files (`tail -f`, alone or writing into a pipe) settles the default
/// wait as soon as it is seen waiting on them, and the result says so: it has printed what
/// they hold. It waited out the silence's fallback, `tail running, quiet · settled after
/// 1.26 s`. What the file gains later is read as it comes.
#[test]
fn the_default_wait_settles_a_program_following_files_at_once() {
    for program in ["tail", "sh", "cat"] {
        if !require(program) {
            return;
        }
    }
    let log = temp_dir("follow").join("log");
    std::fs::write(&log, "first line\n").unwrap();
    let path = log.to_str().unwrap();
    let piped = format!("tail -f '{path}' | cat");
    let mut client = Client::initialized("2025-11-25");
    for (n, argv) in [vec!["tail", "-f", path], vec!["sh", "-c", &piped]].into_iter().enumerate() {
        let started = Instant::now();
        let result = client.call("terminal_start", json!({ "argv": argv }));
        let (took, said) = (started.elapsed(), text(&result));
        let settled = said.contains("first line") && said.contains("settled after");
        assert!(settled && said.contains(": following files"), "{argv:?} after {took:?}: {said}");
        let id = result["structuredContent"]["session_id"].clone();
        let line = format!("line {n} appended");
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes()).unwrap();
        let read = json!({"session_id": id, "for_text": line, "timeout_ms": 30000});
        assert_eq!(client.tool("terminal_read", read)["wait"]["outcome"], "matched");
        client.call("terminal_close", json!({ "session_id": id }));
    }
    client.finish();
    let _ = std::fs::remove_dir_all(log.parent().unwrap());
}

/// A program that polls its terminal for a hang-up alone (no event asked for), beside files it
/// follows, does not wait for input: `journalctl -f` (here a stand-in that polls as it does,
/// an inotify descriptor and its output with no event) read `journalctl waiting for a line`,
/// though no key does anything. It settles as following files, and its answer to a change is
/// read: the stand-in's prompt after it.
#[test]
fn a_poll_of_the_terminal_for_its_hang_up_is_no_wait_for_input() {
    if !require("python3") {
        return;
    }
    let script = "import ctypes, select, sys\n\
                  libc = ctypes.CDLL(None, use_errno=True)\n\
                  fd = libc.inotify_init1(0)\n\
                  libc.inotify_add_watch(fd, sys.argv[1].encode(), 2)\n\
                  print('following', flush=True)\n\
                  p = select.poll()\n\
                  p.register(fd, select.POLLIN)\n\
                  p.register(1, 0)\n\
                  p.poll()\n\
                  input('changed; answer? ')\n";
    let log = temp_dir("hang-up").join("log");
    std::fs::write(&log, "").unwrap();
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", "-c", script, log.to_str().unwrap()]);
    let result = client.call("terminal_start", json!({ "argv": argv }));
    let said = text(&result);
    let following = said.contains("following") && said.contains(": following files");
    assert!(following && !said.contains("waiting for"), "{said}");
    let id = result["structuredContent"]["session_id"].clone();
    std::fs::write(&log, "grown\n").unwrap();
    let read = json!({"session_id": id, "input_wait": true, "timeout_ms": 30000});
    let read = text(&client.call("terminal_read", read));
    assert!(read.contains("waiting for a line") && read.contains("changed; answer? "), "{read}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
    let _ = std::fs::remove_dir_all(log.parent().unwrap());
}

/// The blank rows of the primary screen a full-screen program moves the cursor past on its way
/// out (cfdisk's ncurses: to the last row, then a line break) are no output: after `q` the
/// shell's prompt came after 31 blank lines, and cfdisk alone, which leaves the screen blank,
/// read as a blank line a row after its exit.
#[test]
fn the_blank_rows_a_full_screen_program_leaves_on_its_way_out_are_not_read() {
    if !require("cfdisk") || !require("bash") {
        return;
    }
    let disk = temp_dir("cfdisk").join("disk.img");
    std::fs::File::create(&disk).unwrap().set_len(100 << 20).unwrap();
    let path = disk.to_str().unwrap();
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let typed = json!({"session_id": id, "text": format!("cfdisk {path}"), "submit": true});
    let started = text(&client.call("terminal_send", typed));
    assert!(started.contains("Select label type"), "{started}");
    let quit = text(&client.call("terminal_send", json!({"session_id": id, "keys": "q"})));
    assert_eq!(quit.split_once('\n').map(|(_, read)| read), Some("$ "), "{quit:?}");
    // Only there: a later read's blank lines are the program's (a first version left them
    // out of every read after one look at the alternate screen).
    let line = "sleep 1; printf '\\n\\nlater-%s\\n' $((1 + 1))";
    client.call(
        "terminal_send",
        json!({"session_id": id, "text": line, "submit": true, "timeout_ms": 100}),
    );
    let later =
        text(&client.call("terminal_read", json!({"session_id": id, "for_text": "later-2"})));
    assert!(later.contains("\n\n\nlater-2"), "{later:?}");
    client.call("terminal_close", json!({ "session_id": id }));
    let started = client.call("terminal_start", json!({"argv": ["cfdisk", path]}));
    assert!(text(&started).contains("Select label type"), "{}", text(&started));
    let id = started["structuredContent"]["session_id"].clone();
    let quit = text(&client.call("terminal_send", json!({"session_id": id, "keys": "q"})));
    assert_eq!(quit, "[exited (exit code 0)]");
    client.finish();
    let _ = std::fs::remove_dir_all(disk.parent().unwrap());
}

/// A program that waits on the world outside while a clock of its own is about to go off is
/// waited for: its silence is no answer. An event loop's timer (`asyncio.sleep`, node's
/// `setTimeout`) is the timeout of its wait on a socket or an eventfd; a thread or a child
/// sleeping beside a thread blocked in `accept` or a read of a socketpair, or waiting on a
/// lock with a timeout (`threading.Event().wait(3)`), wakes to print. They were taken for
/// settled after 1.25 s, their answer 2 s away.
#[test]
fn the_default_wait_waits_out_a_clock_beside_a_wait_on_the_world_outside() {
    if !require("python3") {
        return;
    }
    let asyncio = "import asyncio\n\
                   async def main():\n\
                   \x20   print('working', flush=True)\n\
                   \x20   await asyncio.sleep(3)\n\
                   \x20   print('DONE', flush=True)\n\
                   \x20   input('answer? ')\n\
                   asyncio.run(main())\n";
    let thread = "import socket, threading, time\n\
                  srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n\
                  threading.Thread(target=srv.accept, daemon=True).start()\n\
                  print('working', flush=True)\n\
                  time.sleep(3)\n\
                  print('DONE', flush=True)\n\
                  input('answer? ')\n";
    let child = "import os, socket, time\n\
                 a, b = socket.socketpair()\n\
                 print('working', flush=True)\n\
                 if os.fork() == 0:\n\
                 \x20   time.sleep(3); b.send(b'DONE'); os._exit(0)\n\
                 print(a.recv(10).decode(), flush=True)\n\
                 input('answer? ')\n";
    let event = "import socket, threading\n\
                 srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n\
                 threading.Thread(target=srv.accept, daemon=True).start()\n\
                 print('working', flush=True)\n\
                 threading.Event().wait(3)\n\
                 print('DONE', flush=True)\n\
                 input('answer? ')\n";
    let mut cases = vec![
        ("an asyncio sleep", vec!["python3", "-c", asyncio], "python3 waiting for a line"),
        ("a thread's sleep", vec!["python3", "-c", thread], "python3 waiting for a line"),
        ("a child's sleep", vec!["python3", "-c", child], "python3 waiting for a line"),
        ("a timed wait on a lock", vec!["python3", "-c", event], "python3 waiting for a line"),
    ];
    let node = "console.log('working'); setTimeout(() => console.log('DONE'), 3000)";
    if require("node") {
        cases.push(("a node timer", vec!["node", "-e", node], "exited (exit code 0)"));
    }
    let mut client = Client::initialized("2025-11-25");
    for (what, argv, state) in cases {
        let started = Instant::now();
        let result = client.call("terminal_start", json!({ "argv": argv }));
        let took = started.elapsed();
        let said = text(&result);
        assert!(said.contains(state) && said.contains("DONE"), "{what} after {took:?}: {said}");
        let id = result["structuredContent"]["session_id"].clone();
        client.call("terminal_close", json!({ "session_id": id }));
    }
    client.finish();
}

/// A loop ticking on a short timer with nothing to print settles: a shell's `while sleep 1`
/// and `less +F` (2 ms sleeps between looks at the file it follows) looked busy, every
/// member asleep on a clock, and took the default wait's whole 10 s. (The shell's loop, a new
/// `sleep` each time, settles once five of them passed with nothing printed: a script's run of
/// fewer is followed, `the_default_wait_follows_a_run_of_short_sleeps_to_its_end`.)
#[test]
fn the_default_wait_settles_a_loop_ticking_with_nothing_to_print() {
    if !require("less") {
        return;
    }
    let file = std::env::temp_dir().join(format!("termloom-follow-{}.txt", std::process::id()));
    std::fs::write(&file, "followed line\n").unwrap();
    let follow = format!("less +F {}", file.display());
    settle_soon(&[
        (vec!["sh", "-c", "while sleep 1; do :; done"], "sh running"),
        (vec!["sh", "-c", &follow], "followed line"),
    ]);
    let _ = std::fs::remove_file(&file);
}

/// A program in a sleep longer than the default wait's 10 s (`sleep 300`, Python's
/// `time.sleep(60)`) settles it as soon as the sleep is seen, and the result says so: it took
/// the whole 10 s, then said the program was still busy (later, the fallback's second of
/// silence). A shorter sleep before output is still waited out
/// (`the_default_wait_waits_out_a_quiet_busy_program`).
#[test]
fn the_default_wait_settles_a_sleep_longer_than_itself() {
    if !require("python3") {
        return;
    }
    let python = "import time; print('started', flush=True); time.sleep(60)";
    settle_soon(&[
        (vec!["sh", "-c", "echo started; sleep 300; echo never"], ": sleeping 29"),
        (vec!["python3", "-c", python], "s: sleeping 5"),
    ]);
    // Not a sleep with less than the wait left (`sleep 11`, 2 s in: its length is no more
    // than an upper bound of what is left), nor one beside a child that left the group
    // (`timeout` runs its command in a group of its own), which may print.
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["sh", "-c", "echo started; sleep 11; echo done; exec cat"]);
    let started = client.tool("terminal_start", json!({"argv": argv, "for_text": "started"}));
    let id = started["session_id"].clone();
    client
        .call("terminal_read", json!({"session_id": id, "for_text": "never", "timeout_ms": 2000}));
    // (A signal the program ignores, for the default wait after it.)
    let waited = client.call("terminal_signal", json!({"session_id": id, "signal": "WINCH"}));
    let waited = text(&waited);
    assert!(waited.contains("settled") || waited.contains("done"), "no default wait: {waited}");
    assert!(!waited.contains("sleeping"), "a sleep with 9 s left: {waited}");
    client.call("terminal_close", json!({ "session_id": id }));
    let script = "sleep 300 & timeout 20 sh -c 'sleep 3; echo late'; echo end; wait";
    let result = client.call("terminal_start", json!({"argv": ["sh", "-c", script]}));
    let said = text(&result);
    assert!(said.contains("late") && !said.contains("sleeping"), "{said}");
    client
        .call("terminal_close", json!({ "session_id": result["structuredContent"]["session_id"] }));
    client.finish();
}

/// A script's run of short sleeps with nothing printed between them (`sleep 1; sleep 1; sleep
/// 1; echo done`) is followed to its end, typed at a shell's prompt as run by `sh -c`: each
/// `sleep` a process of its own, as in a loop's ticks, it was taken for a loop ticking with
/// nothing to print after two of them, and the default wait ended before `done`.
#[test]
fn the_default_wait_follows_a_run_of_short_sleeps_to_its_end() {
    if !require("bash") || !require("sleep") {
        return;
    }
    let script = "sleep 1; sleep 1; sleep 1; echo done";
    let mut client = Client::initialized("2025-11-25");
    let result = client.call("terminal_start", json!({ "argv": ["sh", "-c", script] }));
    let said = text(&result);
    assert!(said.contains("exited") && said.contains("\ndone"), "{said}");
    let id = client.bash_session();
    let sent =
        client.call("terminal_send", json!({"session_id": id, "text": script, "submit": true}));
    let said = text(&sent);
    assert!(said.contains("\ndone") && said.contains("waiting for keys"), "{said}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A key asked for with a timeout, typed at a shell's prompt with no prompt text (`read -n1 -t
/// 30`: bash polls the terminal alone, taking keys, its cursor at the start of the blank row
/// below the submitted line), ends the default wait as a wait for keys: it was taken for a
/// REPL working on a timer, and the call said it was still busy after the wait's 10 s cap.
#[test]
fn the_default_wait_ends_at_a_key_asked_for_with_a_timeout_and_no_prompt() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    // (The answer, `y-42`, is not in the line typed: its echo is no answer.)
    let line = "read -n1 -t 30 k; echo \"$k-$((6 * 7))\"";
    let sent =
        client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true}));
    let said = text(&sent);
    let status = &sent["structuredContent"]["status"];
    assert_eq!(status["activity"], "waiting_for_input", "{said}");
    assert_eq!(status["input_kind"], "keys", "{said}");
    assert!(!said.contains("still busy") && !said.contains("-42"), "{said}");
    let answered = client.call("terminal_send", json!({"session_id": id, "text": "y"}));
    let said = text(&answered);
    assert!(said.contains("y-42") && said.contains("waiting for keys"), "{said}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A command that prints a line of progress every 2 s is followed, tick after tick, to the
/// default wait's cap (it sleeps between its lines: busy, not settled), and said to be still
/// busy. Typed at a shell with no prompt marks, which runs it as a job of its own, the way to
/// wait for its end is the shell's wait for keys at its prompt, `input_wait=true`: the result
/// said `exit=true`, which would wait for the shell itself to exit.
#[test]
fn a_command_printing_progress_in_a_shell_is_followed_and_waited_for_by_its_prompt() {
    if !require("bash") || !require("sleep") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let line = "for i in 1 2 3 4 5 6 7; do echo step $i; sleep 2; done; echo finished";
    let sent =
        client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true}));
    let said = text(&sent);
    assert!(said.contains("still busy after") && said.contains("\nstep 2\n"), "{said}");
    assert!(said.contains("wait with for_text or input_wait=true"), "{said}");
    let ended = client
        .call("terminal_read", json!({"session_id": id, "input_wait": true, "timeout_ms": 60_000}));
    let said = text(&ended);
    assert!(said.contains("bash waiting for keys") && said.contains("\nfinished\n"), "{said}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A full-screen program that only redraws on a timer (`watch`, which sleeps between its
/// redraws and prints on every one; on the primary screen too, where it redraws from the
/// top-left) settles: each took the default wait's whole 10 s. After a key (which watch never
/// reads) it settles at its next tick: it took two, its tick found again from the start. A
/// loop that prints a line on the same timer, on the primary screen, is still busy: the wait
/// follows it to its end.
#[test]
fn the_default_wait_settles_a_full_screen_program_redrawing_on_a_timer() {
    if !require("watch") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let result = client.call("terminal_start", json!({ "argv": ["watch", "-n", "3", "date"] }));
    let said = text(&result);
    assert!(said.contains("settled after") && said.contains("redrawing on a timer"), "{said}");
    assert!(said.contains("Every 3.0s: date"), "{said}");
    let id = result["structuredContent"]["session_id"].clone();
    for _ in 0..2 {
        let started = Instant::now();
        let result = client.call("terminal_send", json!({ "session_id": id, "keys": "x" }));
        let (took, said) = (started.elapsed(), text(&result));
        assert!(said.contains("redrawing on a timer"), "{said}");
        // (A tick is 3 s; two of them 6 s.)
        assert!(took < Duration::from_millis(5500), "after {took:?}: {said}");
    }
    client.call("terminal_close", json!({ "session_id": id }));
    // (A terminal without an alternate screen: watch redraws the primary one from its
    // top-left.)
    let primary = json!({ "argv": ["watch", "date"], "env": {"TERM": "vt100"} });
    let result = client.call("terminal_start", primary);
    let said = text(&result);
    assert!(said.contains("settled after") && said.contains("redrawing on a timer"), "{said}");
    let id = result["structuredContent"]["session_id"].clone();
    client.call("terminal_close", json!({ "session_id": id }));
    let line_a_tick = "for i in 1 2 3; do echo tick $i; sleep 0.5; done; echo done";
    let result = client.call("terminal_start", json!({ "argv": ["sh", "-c", line_a_tick] }));
    let said = text(&result);
    assert!(said.contains("exited") && said.contains("done"), "{said}");
    client.finish();
}

/// `watch` leaves the cursor in the bottom-right corner: its whole screen was its two lines,
/// then 29 blank rows down to that cursor at 120x32. The header tells where the cursor is;
/// the rows shown end with the text.
#[test]
fn the_blank_rows_down_to_a_cursor_parked_in_a_corner_are_not_shown() {
    if !require("watch") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    // (The default wait: settled once watch redraws on its timer, its cursor moved to the
    // corner after its text, which a wait for that text could end before.)
    let start = json!({"argv": ["watch", "-n", "1", "echo", "hello"], "cols": 120, "rows": 32});
    let result = client.call("terminal_start", start);
    let said = text(&result);
    assert!(said.contains("redrawing on a timer"), "{said}");
    assert!(said.contains("cursor row 31 col 119 ---"), "{said}");
    assert!(said.ends_with("\nhello"), "{said:?}");
    let id = result["structuredContent"]["session_id"].clone();
    // A range of rows to the end ends there too, not 29 blank rows down at the cursor's.
    let rows = client.call("terminal_read", json!({"session_id": id, "screen_rows": "0-"}));
    let said = text(&rows);
    assert_eq!(rows["structuredContent"]["last_row"], 2, "{said}");
    assert!(
        said.contains("--- screen rows 0-2 of 120x32 ---") && said.ends_with("│hello"),
        "{said}"
    );
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// Starts each program (`argv`) with the default wait, which must end settled, quiet, before
/// its cap (10 s, which ends it "still busy"), showing `shown`.
fn settle_soon(cases: &[(Vec<&str>, &str)]) {
    let mut client = Client::initialized("2025-11-25");
    for (argv, shown) in cases {
        let started = Instant::now();
        let result = client.call("terminal_start", json!({ "argv": argv }));
        let took = started.elapsed();
        let said = text(&result);
        // (`running, quiet` once silent for the fallback's second; a long sleep settles
        // sooner.)
        let settled = said.contains(" running") && said.contains(" · settled");
        let settled = settled && said.contains(shown);
        assert!(settled, "{argv:?} after {took:?}: {said}");
        let id = result["structuredContent"]["session_id"].clone();
        client.call("terminal_close", json!({ "session_id": id }));
    }
    client.finish();
}

/// Through a relay to a terminal across the network (`ssh`; here a stand-in, see
/// `NETWORK_RELAY`), the default wait follows what the far end prints to its next prompt, and
/// a line asked for there with no prompt settles once quiet: the relay reads every key, so
/// its wait on the terminal says nothing of the far end. Both returned as soon as the echo of
/// the typed line arrived, `waiting for keys`, before the remote's answer.
#[test]
fn the_default_wait_follows_a_relay_across_the_network_to_its_prompt() {
    if !require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client.call("terminal_start", json!({"argv": ["python3", "-c", NETWORK_RELAY]}));
    assert!(text(&started).contains("waiting for keys"), "{}", text(&started));
    let id = started["structuredContent"]["session_id"].clone();
    let send = |client: &mut Client, line: &str| {
        let sent =
            client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true}));
        text(&sent)
    };
    let said = send(&mut client, "slow");
    assert!(said.contains("waiting for keys") && said.contains("done"), "{said}");
    let said = send(&mut client, "cat");
    assert!(said.contains("running, quiet · settled"), "{said}");
    let said = send(&mut client, "typed");
    assert!(said.contains("waiting for keys") && said.contains("cat: typed"), "{said}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A command typed into a tmux pane is waited for to its end, as in a shell of the session's
/// own: the client waits on its server's socket, and the server waits for keys while the
/// pane's command sleeps. `echo start; sleep 3; echo slept` returned after 1.3 s, `running,
/// quiet · settled`, with `start` alone. A job that started before the input, in a window not
/// shown, keeps no call busy to the default wait's end. The header names the program of the
/// one pane, in tmux, with its input (a password prompt is one), not tmux's server.
#[test]
fn the_default_wait_follows_a_command_in_a_tmux_pane_to_its_end() {
    if !require("tmux") || !require("bash") {
        return;
    }
    let socket = temp_dir("tmux-pane").join("s");
    let socket = socket.to_str().unwrap();
    let _server = common::TmuxServer(socket);
    let mut client = Client::initialized("2025-11-25");
    let pane = "bash --norc --noprofile -i";
    // (New windows run the pane's shell too, not a login shell reading the user's files.)
    let mut argv = vec!["tmux", "-S", socket, "-f", "/dev/null", "new-session", pane];
    argv.extend([";", "set", "-g", "default-command", pane]);
    let started = client.call("terminal_start", json!({"argv": argv, "rows": 24}));
    let header = text(&started).lines().next().unwrap_or_default().to_owned();
    assert!(header.ends_with(" · bash in tmux waiting for keys]"), "{}", text(&started));
    let id = started["structuredContent"]["session_id"].clone();
    let send = |client: &mut Client, mut arguments: Value| {
        arguments["session_id"] = id.clone();
        text(&client.call("terminal_send", arguments))
    };
    let said =
        send(&mut client, json!({"text": "echo start; sleep 3; echo slept", "submit": true}));
    assert!(said.starts_with("[bash in tmux waiting for keys") && said.contains("slept"), "{said}");
    let said = send(&mut client, json!({"text": "read -rs -p 'Password: ' pw", "submit": true}));
    assert!(said.starts_with("[bash in tmux waiting for a password (echo off)"), "{said}");
    send(&mut client, json!({"keys": "<C-c>"}));
    // A busy job in window 0, then window 1 shown: its commands settle.
    let said = send(
        &mut client,
        json!({"text": "sh -c 'while :; do :; done'", "submit": true, "timeout_ms": 300}),
    );
    assert!(said.contains("running"), "{said}");
    send(&mut client, json!({"keys": "<C-b>c", "for_screen_regex": "^bash-[0-9.]+[#$] ?$"}));
    let said = send(&mut client, json!({"text": "echo hi", "submit": true}));
    let answered = said.lines().any(|line| line == "hi" || line.ends_with("│hi"));
    assert!(answered && !said.contains("still busy"), "{said}");
    client.call("terminal_close", json!({ "session_id": id }));
    client.finish();
}

/// A server whose clocks tick without printing still settles once quiet: a development
/// server's reloader sleeping a second at a time beside the thread that serves (Django's,
/// Flask's), node's HTTP server with its 30 s timer.
#[test]
fn the_default_wait_settles_a_server_whose_clocks_tick_in_silence() {
    if !require("python3") {
        return;
    }
    let reloader = "import socket, threading, time, selectors\n\
                    srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n\
                    def serve():\n\
                    \x20   sel = selectors.PollSelector(); sel.register(srv, selectors.EVENT_READ)\n\
                    \x20   while True: sel.select(0.5)\n\
                    threading.Thread(target=serve, daemon=True).start()\n\
                    print('serving', flush=True)\n\
                    while True: time.sleep(1)\n";
    let mut cases = vec![(vec!["python3", "-c", reloader], "serving")];
    let node = "require('http').createServer((q, r) => r.end()).listen(0, '127.0.0.1', () => console.log('serving'))";
    if require("node") {
        cases.push((vec!["node", "-e", node], "serving"));
    }
    settle_soon(&cases);
}

/// The progress bars a running program redraws below the line it keeps the cursor on (tqdm's
/// at positions 1 and on, one per file a download fetches) are shown with the result: no read
/// reached them while it ran, and a read showed the first bar of three. A status line kept at
/// the screen's bottom below blank rows (apt's, until the log reaches it) is not.
#[test]
fn bars_a_running_program_draws_below_the_cursor_are_shown() {
    let mut client = Client::initialized("2025-11-25");
    let bars = "printf 'file-0 10%%\\nfile-1 5%%\\nfile-2 2%%\\033[2A\\r'; sleep 60";
    let started = client.call("terminal_start", json!({"argv": ["sh", "-c", bars]}));
    let said = text(&started);
    assert!(said.contains(" running · "), "{said}");
    let shown = "file-0 10%\n--- below the cursor, rows 1-2 ---\nfile-1 5%\nfile-2 2%";
    assert!(said.ends_with(shown), "{said}");
    // The same bars again are no news.
    let id = started["structuredContent"]["session_id"].clone();
    let said = text(&client.call("terminal_read", json!({"session_id": id})));
    assert!(said.contains("no new output]\n--- below the cursor, rows 1-2: unchanged"), "{said}");
    let status = "printf 'log 1\\n\\0337\\033[24;1Hstatus 40%%\\0338'; sleep 60";
    let said = text(&client.call("terminal_start", json!({"argv": ["sh", "-c", status]})));
    assert!(said.ends_with("log 1\n") && !said.contains("status"), "{said}");
    client.finish();
}

/// What a line editor draws below the line being edited, zsh's list of completions, is shown
/// with the result, marked where it is highlighted (the choice in a menu): it was in no
/// transcript line, and the result said `no new output`. Rows below the cursor the caller
/// read before, a program having moved the cursor up onto a line above them, or was shown
/// last, are not repeated.
#[test]
fn what_a_line_editor_draws_below_the_cursor_is_shown() {
    if !require("zsh") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("termloom-below-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["alpha1", "alpha2", "alpha3"] {
        std::fs::write(dir.join(name), "").unwrap();
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client
        .call("terminal_start", json!({"argv": ["zsh", "-f"], "env": {"PS1": "%# "}, "cols": 80}));
    let id = started["structuredContent"]["session_id"].clone();
    let mut send = |arguments: Value| {
        let mut arguments = arguments;
        arguments["session_id"] = id.clone();
        client.call("terminal_send", arguments)
    };
    let line = format!("ls {}/alpha", dir.display());
    send(json!({ "text": line }));
    let listed = send(json!({"keys": "<Tab>"}));
    let said = text(&listed);
    assert!(!said.contains("no new output"), "{said}");
    assert!(said.contains("--- below the cursor, row 1 ---\nalpha1  alpha2  alpha3"), "{said}");
    let below = &listed["structuredContent"]["below_cursor"];
    assert_eq!(below["first_row"], 1, "{listed}");
    // The next choice, the list unchanged below it: not repeated.
    let said = text(&send(json!({"keys": "<Tab>"})));
    assert!(said.contains("alpha1\n--- below the cursor, row 1: unchanged since"), "{said}");
    send(json!({"keys": "<C-u>"}));
    let said = text(&send(
        json!({"text": "zmodload zsh/complist; zstyle ':completion:*' menu select; autoload -U compinit; compinit -u", "submit": true}),
    ));
    assert!(!said.contains("below the cursor"), "{said}");
    send(json!({ "text": line }));
    send(json!({"keys": "<Tab>"}));
    let chosen = text(&send(json!({"keys": "<Tab>"})));
    assert!(chosen.contains("below the cursor") && chosen.contains("⟦alpha1"), "{chosen}");
    send(json!({"keys": "<C-c>"}));
    // A program that moves the cursor up onto a line read before: the rows below it were read.
    let script = "printf 'one\\ntwo\\nthree\\n'; read a; printf '\\033[3Aask? '; read b";
    let again = client.call("terminal_start", json!({"argv": ["sh", "-c", script]}));
    assert!(text(&again).contains("three"), "{}", text(&again));
    let id = again["structuredContent"]["session_id"].clone();
    let asked =
        client.call("terminal_send", json!({"session_id": id, "text": "x", "submit": true}));
    let said = text(&asked);
    assert!(said.contains("ask?") && !said.contains("below the cursor"), "{said}");
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A command line longer than the terminal is wide, edited at its start (`<C-a>` then a word
/// typed before it, as a model prefixes `time ` or `sudo `), is one line: the rows the
/// cursor's row wraps into are its rest, marked after the cursor as on a line that fits,
/// not rows below the cursor. Before, `<C-a>` alone said `--- below the cursor, row 1 ---`
/// with the line's rest, and `time ` the whole line with no cursor mark, then its rest again
/// below it, cut at the screen's width.
#[test]
fn the_rest_of_a_wrapped_line_edited_at_its_start_is_its_own() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!({"argv": ["bash", "--norc", "--noprofile"], "env": {"PS1": "$ "}, "cols": 30});
    let id = client.tool("terminal_start", argv)["session_id"].clone();
    let line = "echo one two three four five six seven eight nine";
    client.send_to(&id, json!({ "text": line }));
    let moved = client.send_to(&id, json!({"keys": "<C-a>"}));
    assert!(moved.contains("no new output") && !moved.contains("below the cursor"), "{moved}");
    let typed = client.send_to(&id, json!({"keys": "time "}));
    assert!(typed.ends_with(&format!("\n$ time ▌{line}")), "{typed}");
    let ran = client.send_to(&id, json!({"keys": "<Enter>"}));
    assert!(ran.contains("one two three four five six seven eight nine\n"), "{ran}");
    client.finish();
}

/// What the caller was shown below the cursor (node's preview of a value) is no unread output
/// at a close, which moves it into the transcript: node left it there on its way out, and the
/// close repeated it.
#[test]
fn rows_shown_below_the_cursor_are_no_unread_output_at_a_close() {
    if !require("node") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client.call("terminal_start", json!({"argv": ["node"], "cols": 80}));
    let id = started["structuredContent"]["session_id"].clone();
    let typed = client.call("terminal_send", json!({"session_id": id, "keys": "Math.PI"}));
    let said = text(&typed);
    // (`// 3.14…` where node shows no colours.)
    assert!(
        said.contains("--- below the cursor, row 3 ---\n") && said.contains("3.14159"),
        "{said}"
    );
    let closed = text(&client.call("terminal_close", json!({"session_id": id})));
    assert!(closed.starts_with("[closed") && !closed.contains("unread output"), "{closed}");
    client.finish();
}

/// A client, and the result of its start of `zsh -f` with the prompt `%# ` and the right
/// prompt `[%?]` (the last exit code) in a terminal `cols` wide.
fn zsh_with_a_right_prompt(cols: u16) -> (Client, Value) {
    let mut client = Client::initialized("2025-11-25");
    let started = client.call(
        "terminal_start",
        json!({"argv": ["zsh", "-f"], "env": {"PS1": "%# ", "RPROMPT": "[%?]"}, "cols": cols}),
    );
    (client, started)
}

/// Text after the cursor on the line a program waits at is no typed text: a right prompt
/// (zsh's `RPROMPT`), a suggestion drawn past what was typed (IPython's, fish's), the rest
/// of a line edited in its middle. The cursor is marked in the output's last line there, as
/// on a screen (the line read as typed whole: `% echo world`, the cursor before `world`);
/// a line with nothing after the cursor is not marked.
#[test]
fn the_cursor_is_marked_where_text_follows_it_on_the_line() {
    if !require("zsh") {
        return;
    }
    let (mut client, started) = zsh_with_a_right_prompt(40);
    let said = text(&started);
    let prompt = said.lines().last().unwrap();
    assert!(prompt.starts_with("# ▌ ") || prompt.starts_with("% ▌ "), "{said}");
    assert!(prompt.ends_with(" [0]") && !said.contains(" at \""), "{said}");
    let id = started["structuredContent"]["session_id"].clone();
    let mut send = |arguments: Value| client.send_to(&id, arguments);
    let said = send(json!({"text": "echo world", "keys": "<Left><Left><Left><Left><Left>"}));
    assert!(said.contains(" echo ▌world") && !said.contains(" at \""), "{said}");
    send(json!({"keys": "<C-u>"}));
    let said = send(json!({"text": "RPROMPT=", "submit": true}));
    assert!(!said.contains('▌'), "{said}");
    let said = send(json!({"text": "echo"}));
    assert!(!said.contains('▌'), "{said}");
    client.finish();
}

/// The padding before a right prompt (zsh's `RPROMPT`) is read as two blanks, in a command's
/// line and at the prompt waiting, not as the line's width of blanks; a screen keeps its
/// columns.
#[test]
fn a_right_prompts_padding_is_read_short() {
    if !require("zsh") {
        return;
    }
    let (mut client, started) = zsh_with_a_right_prompt(60);
    let said = text(&started);
    let padding = " ".repeat(16);
    assert!(said.ends_with("% ▌ [0]") || said.ends_with("# ▌ [0]"), "{said}");
    let id = started["structuredContent"]["session_id"].clone();
    let ran = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "echo hello; false", "submit": true}),
    );
    let said = text(&ran);
    assert!(said.contains(" echo hello; false  [0]\nhello\n"), "{said}");
    assert!(said.ends_with(" ▌ [1]") && !said.contains(&padding), "{said}");
    let screen = text(&client.call("terminal_read", json!({"session_id": id, "view": "screen"})));
    assert!(screen.contains(&format!("hello; false{padding}")), "{screen}");
    client.finish();
}

/// The rest of a line read in part before (pytest's dots, then its `[ 40%]` at the right
/// edge) has its padding read short too: alone it did not reach the edge, and a later read
/// gave all 58 blanks.
#[test]
fn the_padding_in_the_rest_of_a_line_read_before_is_read_short() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let dots = "printf 'test_a.py ....'; read -rs; printf '..%64s\\n' '[ 40%]'; read -rs";
    let started = client.call("terminal_start", json!({"argv": ["bash", "-c", dots], "cols": 80}));
    let said = text(&started);
    assert!(said.ends_with("\ntest_a.py ...."), "{said}");
    let id = started["structuredContent"]["session_id"].clone();
    let said = text(&client.call("terminal_send", json!({"session_id": id, "keys": "<Enter>"})));
    assert!(said.ends_with("\n..  [ 40%]\n"), "{said:?}");
    client.finish();
}

/// A progress bar drawn to the terminal's right edge (`pv`'s, tqdm's) is read with its blanks,
/// the part still to fill, not shortened as a right prompt's padding is: shown short, a bar
/// at 20% looked nearly full.
#[test]
fn a_progress_bars_blanks_are_read_whole() {
    let mut client = Client::initialized("2025-11-25");
    let bars = "printf ' 20%%|##%28s| 1/5\n[====>%28s] 40%%\n' '' ''; read x";
    let result = client.call("terminal_start", json!({"argv": ["sh", "-c", bars], "cols": 40}));
    let said = text(&result);
    let blanks = " ".repeat(28);
    assert!(said.contains(&format!("\n 20%|##{blanks}| 1/5\n")), "{said}");
    assert!(said.contains(&format!("\n[====>{blanks}] 40%")), "{said}");
    client.finish();
}

/// The blanks a program wrote up to a hidden cursor at the end of its output (`top`'s last
/// row, padded to the screen's width) are not read, nor is a hidden cursor's row named where
/// the program waits (`top`'s last process); before a visible one (a prompt's) they are, as
/// they show where typing goes.
#[test]
fn blanks_up_to_a_hidden_cursor_are_not_read() {
    let mut client = Client::initialized("2025-11-25");
    let padded = "printf '\\033[?25lfirst\\nlast row%20s' ''; read x";
    let result = client.call("terminal_start", json!({"argv": ["sh", "-c", padded]}));
    let said = text(&result);
    assert!(said.contains("sh waiting for a line"), "{said}");
    assert!(said.ends_with("\nfirst\nlast row"), "{said:?}");
    let id = result["structuredContent"]["session_id"].clone();
    let read = text(&client.call("terminal_read", json!({"session_id": id})));
    assert_eq!(read, "[sh waiting for a line · no new output]");
    let prompt = "printf 'name: '; read x";
    let result = client.call("terminal_start", json!({"argv": ["sh", "-c", prompt]}));
    let said = text(&result);
    assert!(said.ends_with("\nname: "), "{said:?}");
    let id = result["structuredContent"]["session_id"].clone();
    let read = text(&client.call("terminal_read", json!({"session_id": id})));
    assert_eq!(read, "[sh waiting for a line at \"name:\" · no new output]");
    client.finish();
}

/// A toolbar a program waiting for keys keeps at the screen's bottom (ptpython's) is shown
/// below the cursor by its row alone: the blank rows between it and the cursor were shown as
/// empty lines (27 of them at ptpython's prompt).
#[test]
fn blank_rows_above_a_toolbar_below_the_cursor_are_left_out() {
    let mut client = Client::initialized("2025-11-25");
    let program = "import sys, tty; tty.setcbreak(0); \
        sys.stdout.write('ready> \\0337\\033[12;1Htoolbar F2\\0338'); sys.stdout.flush(); \
        sys.stdin.read(1)";
    let started = client.call(
        "terminal_start",
        json!({"argv": ["python3", "-c", program], "cols": 40, "rows": 12, "input_wait": true}),
    );
    let said = text(&started);
    assert!(said.ends_with("ready> \n--- below the cursor, row 11 ---\ntoolbar F2"), "{said:?}");
    assert_eq!(started["structuredContent"]["below_cursor"]["first_row"], 11, "{started}");
    client.finish();
}

/// The header names the whole line the cursor waits on, not the fragment of it on the
/// cursor's row, where the line wrapped (a prompt longer than the screen is wide); a line over
/// 200 bytes by its end.
#[test]
fn the_header_names_a_wrapped_line_whole() {
    let mut client = Client::initialized("2025-11-25");
    for (count, named) in [(50, "a".repeat(50)), (300, format!("…{}", "a".repeat(194)))] {
        let prompt = format!("printf '%s name: ' {}; read x", "a".repeat(count));
        let result = client.call(
            "terminal_start",
            json!({"argv": ["sh", "-c", prompt], "cols": 40, "rows": 12, "input_wait": true}),
        );
        let id = result["structuredContent"]["session_id"].clone();
        let read = text(&client.call("terminal_read", json!({"session_id": id})));
        assert_eq!(read, format!("[sh waiting for a line at \"{named} name:\" · no new output]"));
    }
    client.finish();
}

/// Output that changes nothing on the screen (a line editor's mode switch) does not make the
/// status contradict the wait that just ended on the program's wait for input.
#[test]
fn the_status_agrees_with_the_wait_after_invisible_output() {
    let mut client = Client::initialized("2025-11-25");
    let result = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", "sleep 0.5; printf '\\033[?2004h'; read x"]}),
    );
    let header = text(&result);
    assert!(header.contains("sh waiting for a line"), "{header}");
    assert!(!header.contains("running"), "{header}");
    let read = text(&client.call("terminal_read", json!({"session_id": 1})));
    assert!(read.contains("sh waiting for a line"), "{read}");
    client.finish();
}

/// A session closed while its program ran is listed and read as ended by the close, as the
/// close said, not as killed (which reads like a crash); one whose program had exited keeps
/// its exit; a running one is listed as what its program does, as a result's header says it.
#[test]
fn a_closed_session_is_listed_as_its_close_told_it() {
    let mut client = Client::initialized("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": ["cat"]}));
    let closed = client.call("terminal_close", json!({"session_id": cat["session_id"]}));
    assert!(text(&closed).contains("ended by the close (SIGHUP)"), "{}", text(&closed));
    let read = text(&client.call("terminal_read", json!({"session_id": cat["session_id"]})));
    assert!(read.starts_with("[closed (ended by the close (SIGHUP))"), "{read}");
    let again = text(&client.call("terminal_close", json!({"session_id": cat["session_id"]})));
    assert!(again.contains("already closed (ended by the close (SIGHUP))"), "{again}");
    let exited =
        client.tool("terminal_start", json!({"argv": ["sh", "-c", "exit 3"], "exit": true}));
    client.tool("terminal_close", json!({"session_id": exited["session_id"]}));
    let waiting = client.tool("terminal_start", json!({"argv": ["cat"]}));
    let listed = text(&client.call("terminal_list", json!({})));
    let lines: Vec<&str> = listed.lines().collect();
    // The live first, then the ended, newest first.
    assert_eq!(lines.len(), 3, "{listed}");
    assert!(lines[0].contains("cat waiting for a line"), "{listed}");
    assert!(lines[1].contains("closed (exit code 3)"), "{listed}");
    assert!(lines[2].contains("closed (ended by the close (SIGHUP))"), "{listed}");
    assert!(!listed.contains("killed"), "{listed}");
    client.call("terminal_close", json!({"session_id": waiting["session_id"]}));
    client.finish();
}

#[test]
fn oversized_messages_are_refused_under_their_id_and_skipped() {
    let mut client = Client::initialized("2025-11-25");
    let pad = "x".repeat(5 << 20);
    let big =
        format!(r#"{{"jsonrpc":"2.0","id":"big","method":"ping","params":{{"pad":"{pad}"}}}}"#);
    client.send_raw(big.as_bytes());
    let error = client.response(&json!("big"));
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("4194304"), "{error}");
    // Its id last, as the TypeScript SDK writes it, is found there too.
    let late =
        format!(r#"{{"jsonrpc":"2.0","method":"ping","params":{{"pad":"{pad}"}},"id":"late"}}"#);
    client.send_raw(late.as_bytes());
    assert_eq!(client.response(&json!("late"))["error"]["code"], -32600);
    // Without a readable id it is answered with a null id; serving goes on.
    let anonymous = format!(
        r#"{{"jsonrpc":"2.0","method":"ping","params":{{"pad":"{pad}"}},"id":"amid","x":[{pad:?}]}}"#
    );
    client.send_raw(anonymous.as_bytes());
    let error = client.next(LONG).unwrap();
    assert_eq!((error["id"].clone(), error["error"]["code"].clone()), (Value::Null, json!(-32600)));
    assert_eq!(client.ok("ping", json!({})), json!({}));
    // Just under the limit is fine.
    let pad = "y".repeat((4 << 20) - 200);
    let fits =
        format!(r#"{{"jsonrpc":"2.0","id":"fits","method":"ping","params":{{"pad":"{pad}"}}}}"#);
    client.send_raw(fits.as_bytes());
    assert_eq!(client.response(&json!("fits"))["result"], json!({}));
    client.finish();
}

/// `terminal_read` waits only for a condition given: a `timeout_ms` alone would bound nothing,
/// and is refused naming the conditions (as `termloom read --timeout` alone is), the session
/// untouched; with a condition it bounds the wait.
#[test]
fn a_read_timeout_without_a_wait_is_refused_naming_the_conditions() {
    let mut client = Client::initialized("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": KEYS_CAT, "input_wait": true}));
    let id = cat["session_id"].clone();
    for arguments in [
        json!({"session_id": id, "timeout_ms": 5000}),
        json!({"session_id": id, "timeout_ms": 5000, "view": "screen"}),
        json!({"session_id": id, "timeout_ms": 5000, "prompt": false, "exit": false}),
        json!({"session_id": id, "timeout_ms": 5000, "lines": "0-"}),
    ] {
        let message = client.tool_error("terminal_read", arguments.clone());
        assert!(
            message.starts_with("terminal_read: `timeout_ms` bounds a wait, and no wait was asked for: give a condition too (for_text, for_regex,"),
            "{arguments}: {message}"
        );
        assert!(message.ends_with("or leave out timeout_ms to read at once"), "{message}");
    }
    // The session is intact, and a timeout with a condition bounds its wait.
    let read = client
        .tool("terminal_read", json!({"session_id": id, "for_text": "never", "timeout_ms": 200}));
    assert_eq!(read["wait"]["outcome"], "timeout", "{read}");
    let sent = client
        .tool("terminal_send", json!({"session_id": id, "text": "ok", "for_screen_text": "ok"}));
    assert_eq!(sent["wait"]["outcome"], "matched", "{sent}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// An argument of megabytes that is wrong comes back in the error by its start and size, or
/// the error is cut to about 2 KiB keeping its start and its advice; a model is never sent its
/// megabytes back. The session beside the calls is untouched.
#[test]
fn errors_repeat_megabytes_of_arguments_only_by_their_start() {
    let mut client = Client::initialized("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": KEYS_CAT, "input_wait": true}));
    let id = cat["session_id"].clone();
    let big = "x".repeat(2 << 20);
    let shown = format!("\"{}\"… ({} bytes)", &big[..60], big.len());
    for (tool, arguments, expected) in [
        ("terminal_read", json!({"session_id": big}), "invalid session name"),
        ("terminal_read", json!({"session_id": id, "for_cursor": big}), "for_cursor must be"),
        ("terminal_read", json!({"session_id": id, "lines": big}), "lines must be"),
        ("terminal_read", json!({"session_id": id, big.as_str(): 1}), "does not take"),
        ("terminal_start", json!({"argv": ["cat"], "name": big}), "invalid session name"),
        ("terminal_start", json!({"argv": ["cat"], "env": {format!("{big}="): "1"}}), "`env` has"),
    ] {
        let message = client.tool_error(tool, arguments);
        let start = format!("\"{}\"… (", &big[..60]);
        assert!(message.contains(expected) && message.contains(&start), "{}", &message[..200]);
        assert!(message.len() < 1024, "{tool}: {} bytes", message.len());
    }
    // Messages of the library name what was given by its start and size too, whole.
    for (tool, arguments, start, end) in [
        (
            "terminal_read",
            json!({"session_id": id, "for_regex": format!("{big}(")}),
            "invalid input: bad regular expression",
            "with a backslash to match them as text",
        ),
        (
            "terminal_read",
            json!({"session_id": id, "search": format!("{big}(")}),
            "search: bad regular expression",
            "with a backslash to match them as text",
        ),
        (
            "terminal_signal",
            json!({"session_id": id, "signal": big}),
            "invalid input: unknown signal",
            "(with or without SIG)",
        ),
        (
            "terminal_start",
            json!({"argv": ["cat"], "cwd": format!("/{big}")}),
            "cannot start \"cat\": working directory \"/xxx",
            "does not exist or is not a directory",
        ),
        (
            "terminal_send",
            json!({"session_id": id, "keys": format!("<{big}>")}),
            "invalid key \"<xxx",
            "",
        ),
    ] {
        let message = client.tool_error(tool, arguments);
        assert!(message.len() <= 2048 + 64, "{tool}: {} bytes", message.len());
        assert!(message.starts_with(start) && message.ends_with(end), "{message}");
        assert!(message.contains("xxx\"… (2097"), "{message}");
        assert!(!message.contains(" bytes of this message left out …]"), "{message}");
    }
    // A look-up's answer names what it looked for by its start too.
    let found = client.call("terminal_read", json!({"session_id": id, "find": big}));
    assert_eq!(text(&found), format!("[cat waiting for keys]\n{shown} is not on the screen"));
    let unknown = client.fails("tools/call", json!({"name": big, "arguments": {}}), -32602);
    let message = unknown["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("unknown tool {shown}; the tools are")), "{message}");
    let sent = client
        .tool("terminal_send", json!({"session_id": id, "text": "ok", "for_screen_text": "ok"}));
    assert_eq!(sent["wait"]["outcome"], "matched", "{sent}");
    client.finish();
}

/// A `session_id` that is neither a whole number from 1 nor a name is refused saying it is a
/// session's id or name, and a float too large to be any particular whole number (`1e30`) is no
/// id: it read as 18446744073709551615 ("session 18446744073709551615 does not exist").
#[test]
fn session_ids_of_the_wrong_kind_are_refused_as_ids_or_names() {
    let mut client = Client::initialized("2025-11-25");
    for wrong in [
        json!(true),
        json!(0),
        json!("0"),
        json!(-1),
        json!(1.5),
        json!(1e30),
        json!([1]),
        json!({}),
    ] {
        let message = client.tool_error("terminal_read", json!({"session_id": wrong}));
        assert_eq!(
            message,
            format!(
                "terminal_read: `session_id` must be a session id (a whole number from 1, as terminal_start returned it) or a session's name (terminal_list shows them), not {wrong}"
            )
        );
    }
    let message = client.tool_error("terminal_close", json!({"session_id": 1e17}));
    assert!(message.contains("must be a session id"), "{message}");
    // Exact floats and numeric strings still name a session.
    let cat = client.tool("terminal_start", json!({"argv": ["cat"]}));
    let id = cat["session_id"].as_u64().unwrap();
    for given in [json!(id as f64), json!(format!(" {id}"))] {
        let read = client.tool("terminal_read", json!({"session_id": given}));
        assert_eq!(read["session_id"], id, "{read}");
    }
    client.finish();
}

/// `terminal_run` checks its line before it starts a shell for it: a control character (which
/// the shell's line editor would take as a key) or a blank line is refused in the tool's words,
/// and no shell is started and closed for nothing.
#[test]
fn a_run_line_the_shell_would_not_take_starts_no_shell() {
    let mut client = Client::initialized("2025-11-25");
    for (command, expected) in [
        (
            "echo a\u{1}b",
            "terminal_run: the command holds the control character U+0001, which the shell would take as a key",
        ),
        ("echo a\u{0}b", "control character U+0000"),
        ("echo a\rb", "terminal_run: the command must be one line"),
        ("   ", "terminal_run: the command is blank; give the command line to run"),
    ] {
        let message = client.tool_error("terminal_run", json!({"command": command}));
        assert!(message.contains(expected), "{command:?}: {message}");
    }
    let listed = client.tool("terminal_list", json!({}));
    assert_eq!(listed["sessions"], json!([]), "{listed}");
    client.finish();
}

/// `lines="N-"` from the largest line number reads to the end like any other: it was said to
/// end before it began.
#[test]
fn lines_from_the_largest_number_read_to_the_end() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "echo one; exec cat"], "for_text": "one"}),
    );
    let id = started["session_id"].clone();
    let message = client
        .tool_error("terminal_read", json!({"session_id": id, "lines": "18446744073709551615-"}));
    assert!(message.contains("the transcript holds lines 0-"), "{message}");
    assert!(!message.contains("ends before it begins"), "{message}");
    client.finish();
}

/// `lines` before any line settled (`dpkg-reconfigure tzdata`'s whiptail on the alternate
/// screen) said "the transcript has no settled line yet; ask within them": there was no
/// line to ask within. It says where to look instead.
#[test]
fn lines_before_any_settled_line_point_to_the_screen() {
    let mut client = Client::initialized("2025-11-25");
    let line = r#"printf '\033[?1049hfull screen'; exec cat"#;
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", line], "for_screen_text": "full screen"}),
    );
    let id = started["session_id"].clone();
    let message = client.tool_error("terminal_read", json!({"session_id": id, "lines": "1-"}));
    assert!(message.contains("no settled line yet"), "{message}");
    assert!(!message.contains("within them") && message.contains("view=\"screen\""), "{message}");
    client.finish();
}

#[test]
fn unknown_sessions_are_tool_errors_naming_what_to_do() {
    let mut client = Client::initialized("2025-11-25");
    for tool in ["terminal_read", "terminal_send", "terminal_close", "terminal_resize"] {
        let arguments = match tool {
            "terminal_send" => json!({"session_id": 4242, "text": "x"}),
            "terminal_resize" => json!({"session_id": 4242, "cols": 80, "rows": 24}),
            _ => json!({"session_id": 4242}),
        };
        let message = client.tool_error(tool, arguments);
        assert!(
            message.contains("session 4242 does not exist; there are no sessions"),
            "{message}"
        );
    }
    // With many sessions, the live ones come first and a few are named, not all.
    for _ in 0..10 {
        client.tool("terminal_start", json!({"argv": ["true"], "exit": true}));
    }
    let live = client.tool("terminal_start", json!({"argv": ["cat"]}));
    let message = client.tool_error("terminal_read", json!({"session_id": 4242}));
    let named =
        format!("the sessions are: {} (cat, running), 10 (true, exited)", live["session_id"]);
    assert!(message.contains(&named), "{message}");
    assert!(message.ends_with(", and 3 more"), "{message}");
    // The list shows the live sessions and the newest ended ones, and says what it left out.
    let listed = client.call("terminal_list", json!({}));
    let entries = listed["structuredContent"]["sessions"].as_array().unwrap();
    assert_eq!(entries.len(), 6, "{listed}");
    assert_eq!(entries[0]["session_id"], live["session_id"], "{listed}");
    assert_eq!(listed["structuredContent"]["sessions_left_out"], 5, "{listed}");
    assert_eq!(listed["structuredContent"]["left_out_ids"], json!([1, 2, 3, 4, 5]), "{listed}");
    assert!(
        text(&listed).ends_with(
            "[... 5 ended sessions more left out: 1-5; each is readable by its id with terminal_read until it is forgotten]"
        ),
        "{}",
        text(&listed)
    );
    client.finish();
}

#[test]
fn vim_edits_and_saves_a_file() {
    if !require("vim") {
        return;
    }
    let path = temp_file("notes.txt", "first line\nsecond line\n");
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["vim", "-u", "NONE", "-N", path.to_str().unwrap()], "cols": 80, "rows": 24}),
    );
    let id = started["session_id"].clone();
    assert!(started["pid"].as_i64().unwrap() > 0);
    assert_eq!(started["screen"]["alternate"], true, "{started}");
    assert!(started["screen"]["text"].as_str().unwrap().contains("second line"), "{started}");
    assert_eq!(started["status"]["activity"], "waiting_for_input", "{started}");
    let result = client.call(
        "terminal_send",
        json!({"session_id": id, "keys": "ggIhello from mcp, <Esc>:wq<Enter>", "exit": true}),
    );
    let sent = &result["structuredContent"];
    assert_eq!(sent["wait"]["outcome"], "exited", "{}", text(&result));
    assert_eq!(sent["status"]["activity"], "exited");
    assert_eq!(sent["status"]["exit_code"], 0);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "hello from mcp, first line\nsecond line\n"
    );
    let closed = client.tool("terminal_close", json!({"session_id": id}));
    assert_eq!(closed["exit_code"], 0);
    // What a program prints as the close ends it is returned, without the blank lines after.
    let script = "trap 'printf \"bye\\n\\n\\n\\n\\n\"; exit 0' HUP TERM; echo ready; while :; do sleep 1; done";
    let parting =
        client.tool("terminal_start", json!({"argv": ["sh", "-c", script], "for_text": "ready"}));
    let closing = client.call("terminal_close", json!({"session_id": parting["session_id"]}));
    let output = closing["structuredContent"]["output"].as_str().unwrap();
    assert!(output.ends_with("\nbye") || output == "bye", "{}", text(&closing));
    assert!(text(&closing).ends_with("bye"), "{}", text(&closing));
    // What a closed session printed can still be read; it says it was closed.
    let read = client.tool("terminal_read", json!({"session_id": id, "view": "scrollback"}));
    assert_eq!(read["status"]["activity"], "closed", "{read}");
    assert_eq!(read["status"]["exit_code"], 0, "{read}");
    client.finish();
}

#[test]
fn python_repl_with_waits_and_bounded_output() {
    if !require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-06-18");
    let mut started = client.call("terminal_start", json!({"argv": ["python3", "-q"]}));
    let id = started["structuredContent"]["session_id"].clone();
    let mut output = started["structuredContent"]["output"].as_str().unwrap().to_owned();
    let status = &started["structuredContent"]["status"];
    // The header of the call that saw the REPL waiting: the start's, or on a slow machine
    // the follow-up read's, which names no session (its call named it).
    let mut expected_header = format!("[session {id} started · python3 waiting for keys");
    if status["activity"] != "waiting_for_input" || status["foreground"]["name"] != "python3" {
        // The REPL was still starting when the settle wait ended: wait for it to read input.
        started = client.call("terminal_read", json!({"session_id": id, "input_wait": true}));
        output.push_str(started["structuredContent"]["output"].as_str().unwrap_or_default());
        expected_header = "[python3 waiting for keys".to_owned();
    }
    let view = &started["structuredContent"];
    assert_eq!(view["status"]["activity"], "waiting_for_input", "{}", text(&started));
    assert_eq!(view["status"]["foreground"]["name"], "python3");
    let header = text(&started).lines().next().unwrap().to_owned();
    assert!(header.starts_with(&expected_header), "{header}");
    assert!(output.contains(">>>"), "{output}");
    let sent = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "6 * 7", "submit": true, "for_regex": "^42$"}),
    );
    let view = &sent["structuredContent"];
    assert_eq!(view["wait"]["outcome"], "matched", "{}", text(&sent));
    assert_eq!(view["wait"]["matched_text"], "42");
    assert!(view["output"].as_str().unwrap().contains("42"), "{view}");
    assert!(text(&sent).contains("42"));
    // Large output keeps its end, and says what was left out and how to get it.
    let result = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "for i in range(3000): print('line', i)\\r\\r",
               "for_text": "line 2999", "max_bytes": 1000}),
    );
    let sent = &result["structuredContent"];
    assert!(sent["output_omitted_bytes"].as_u64().unwrap() > 10_000, "{sent}");
    assert!(sent["output"].as_str().unwrap().len() <= 1000);
    // The advice asks for what the left-out lines take, not several times as much.
    let advised: u64 = text(&result)
        .split("view=\"scrollback\" max_bytes=")
        .nth(1)
        .and_then(|rest| rest.split(']').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no advice to read more: {}", text(&result)));
    let omitted = sent["output_omitted_bytes"].as_u64().unwrap();
    assert!(advised < 3 * omitted, "{advised} bytes asked to see {omitted}");
    let all = client.tool(
        "terminal_read",
        json!({"session_id": id, "view": "scrollback", "max_bytes": advised}),
    );
    let all = all["output"].as_str().unwrap();
    assert!(all.contains("\nline 0\n") && all.contains("line 2999"), "{all}");
    let read = client
        .call("terminal_read", json!({"session_id": id, "view": "scrollback", "max_bytes": 300}));
    assert!(text(&read).contains("line 2999"), "{}", text(&read));
    assert!(text(&read).contains("earlier bytes"), "{}", text(&read));
    // A wait that times out says so (with nothing new, the caller has every row: no screen).
    // The REPL sleeps meanwhile: at its prompt, quiet for 500 ms, it would end the wait as
    // asking for a line, and a loaded machine took that long between the prompt and the wait.
    let sleeping = json!({"session_id": id, "text": "import time; time.sleep(60)", "submit": true});
    let slept = client.tool("terminal_send", sleeping);
    assert_ne!(slept["status"]["activity"], "waiting_for_input", "{slept}");
    let read = client.call(
        "terminal_read",
        json!({"session_id": id, "for_text": "never printed", "timeout_ms": 300}),
    );
    assert_eq!(read["structuredContent"]["wait"]["outcome"], "timeout", "{}", text(&read));
    assert!(
        text(&read).contains("timed out") && text(&read).contains("no new output"),
        "{}",
        text(&read)
    );
    assert!(!text(&read).contains("--- screen"), "{}", text(&read));
    let woken = client.tool("terminal_send", json!({"session_id": id, "keys": "<C-c>"}));
    assert_eq!(woken["status"]["activity"], "waiting_for_input", "{woken}");
    let screen = client.tool("terminal_read", json!({"session_id": id, "view": "screen"}));
    assert!(screen["screen"]["text"].as_str().unwrap().contains(">>>"), "{screen}");
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": id, "text": "import sys; sys.exit(3)", "submit": true, "exit": true}),
    );
    assert_eq!(sent["status"]["activity"], "exited");
    assert_eq!(sent["status"]["exit_code"], 3);
    let message = client.tool_error("terminal_send", json!({"session_id": id, "text": "1"}));
    assert!(message.contains("exited"), "{message}");
    let closed = client.tool("terminal_close", json!({"session_id": id}));
    assert_eq!(closed["exit_code"], 3);
    client.finish();
}

/// Sets a 3,990-byte title (with quotes and backslashes, which JSON escapes), says `ready`,
/// then answers each number n it reads with a line of `m`, n, `:`, n times `x"\é`, and `END`
/// (erasing the rows below the cursor first), and 0 with `below` two rows below the cursor.
const TITLE_AND_LONG_LINES: &str = r#"
import sys
sys.stdout.write('\x1b]2;' + 'ti"tle\\\u00e9.' * 399 + '\x07ready\n')
sys.stdout.flush()
while True:
    line = sys.stdin.readline()
    if not line:
        break
    n = int(line)
    if n == 0:
        sys.stdout.write('\n\n\x1b[2A\x1b7\x1b[2Bbelow\x1b8')
    else:
        sys.stdout.write('\x1b[J' + 'm%d:' % n + 'x"\\\u00e9' * n + 'END\n')
    sys.stdout.flush()
"#;

/// The size of a tool result as a client receives it: its text and its structured content,
/// serialized.
fn result_size(result: &Value) -> usize {
    let text = serde_json::to_string(&result["content"][0]["text"]).unwrap().len();
    let structured = result.get("structuredContent").map_or(0, |s| s.to_string().len());
    text + structured
}

/// Checks that a result succeeded within `max_bytes` and the documented overhead.
fn assert_within(result: &Value, max_bytes: usize, what: &str) {
    assert_eq!(result["isError"], false, "{what}: {}", text(result));
    let size = result_size(result);
    assert!(
        size <= max_bytes + MAX_BYTES_OVERHEAD,
        "{what} at max_bytes={max_bytes}: {size} bytes"
    );
}

/// Checks that `cut` is a non-empty start of `whole` followed by the marker of `what`.
fn assert_cut(cut: &str, whole: &str, what: &str) {
    let (kept, marker) = cut.split_once("[... ").unwrap_or_else(|| panic!("not cut: {cut:?}"));
    assert!(!kept.is_empty() && whole.starts_with(kept), "{cut:?}");
    let left_out = whole.len() - kept.len();
    assert_eq!(marker, format!("{left_out} more bytes of the {what} cut]"));
}

#[test]
fn max_bytes_bounds_the_whole_result_title_and_matched_text_included() {
    if !require("python3") {
        return;
    }
    let title = "ti\"tle\\é.".repeat(399);
    let line = |n: usize| format!("m{n}:{}END", "x\"\\é".repeat(n));
    assert!(title.len() < 4000 && line(1200).len() > 5000);
    // A client of a revision with structured content, and one with text only.
    for (version, structured) in [("2025-06-18", true), ("2024-11-05", false)] {
        let mut client = Client::initialized(version);
        let started = client.call(
            "terminal_start",
            json!({"argv": ["python3", "-c", TITLE_AND_LONG_LINES], "for_text": "ready",
                   "max_bytes": 1024}),
        );
        assert_within(&started, 1024, "terminal_start");
        let id = started["structuredContent"]["session_id"].as_u64().unwrap_or_else(|| {
            let header = text(&started);
            header["[session ".len()..].split(' ').next().unwrap().parse().unwrap()
        });
        for (n, max) in [256, 1024, 4096, 16_384].into_iter().enumerate() {
            let n = 1200 + n;
            let screen = client.call(
                "terminal_read",
                json!({"session_id": id, "view": "screen", "max_bytes": max}),
            );
            assert_within(&screen, max, "view=screen");
            assert!(text(&screen).contains("more bytes of the title cut]"), "{}", text(&screen));
            if structured {
                let cut = screen["structuredContent"]["screen"]["title"].as_str().unwrap();
                assert_cut(cut, &title, "title");
            }
            let sent = client.call(
                "terminal_send",
                json!({"session_id": id, "text": n.to_string(), "submit": true,
                       "for_regex": format!("^m{n}:.*END$"), "max_bytes": max}),
            );
            assert_within(&sent, max, "terminal_send with a wait");
            assert!(text(&sent).contains("more bytes of the matched text cut]"));
            if structured {
                let wait = &sent["structuredContent"]["wait"];
                assert_eq!(wait["outcome"], "matched", "{}", text(&sent));
                assert_cut(wait["matched_text"].as_str().unwrap(), &line(n), "matched text");
                let omitted = sent["structuredContent"]["output_omitted_bytes"].as_u64().unwrap();
                assert!(omitted > 0, "{}", text(&sent));
            }
            let scrollback = client.call(
                "terminal_read",
                json!({"session_id": id, "view": "scrollback", "max_bytes": max}),
            );
            assert_within(&scrollback, max, "view=scrollback");
            assert!(text(&scrollback).ends_with("END\n"), "{}", text(&scrollback));
            // A wait that times out shows the screen, title included, beside the new output
            // (a leading zero typed at the start of the next line, which int() reads past: a
            // blank alone before the cursor is no output), when the screen holds more than
            // the caller has read: a row below the cursor.
            client.call(
                "terminal_send",
                json!({"session_id": id, "text": "0", "submit": true,
                       "for_screen_text": "below", "max_bytes": max}),
            );
            let timed_out = client.call(
                "terminal_send",
                json!({"session_id": id, "text": "0", "for_text": "never printed",
                       "timeout_ms": 50, "max_bytes": max}),
            );
            assert_within(&timed_out, max, "view=new with the screen");
            assert!(
                text(&timed_out).contains("more bytes of the title cut]"),
                "{}",
                text(&timed_out)
            );
        }
        let closed = client.call("terminal_close", json!({"session_id": id, "max_bytes": 256}));
        assert_within(&closed, 256, "terminal_close");
        client.finish();
    }
}

#[test]
fn shell_commands_report_output_and_exit_codes() {
    if !require(&shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    // A one-off run closes the shell it started.
    let once = client.tool("terminal_run", json!({"command": "echo once"}));
    assert_eq!(
        (once["new_session"].as_bool(), once["session_closed"].as_bool()),
        (Some(true), Some(true))
    );
    let listed = client.tool("terminal_list", json!({}));
    let entry = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session_id"] == once["session_id"])
        .cloned()
        .unwrap();
    assert_eq!(entry["state"], "closed", "{entry}");
    let run = client
        .call("terminal_run", json!({"command": "echo hello; echo world", "keep_session": true}));
    let result = &run["structuredContent"];
    assert_eq!(result["exit_code"], 0, "{}", text(&run));
    assert_eq!(result["output"], "hello\nworld\n");
    assert_eq!(result["new_session"], true);
    assert!(text(&run).contains("[exit code 0"), "{}", text(&run));
    let id = result["session_id"].clone();
    let result =
        client.tool("terminal_run", json!({"session_id": id, "command": "ls /no/such/dir"}));
    assert_eq!(result["exit_code"], 2);
    assert!(result["output"].as_str().unwrap().contains("No such file"), "{result}");
    client.tool("terminal_run", json!({"session_id": id, "command": "cd /tmp && X=kept"}));
    let kept = client.tool_error(
        "terminal_run",
        json!({"session_id": id, "command": "true", "keep_session": true}),
    );
    assert!(kept.contains("`keep_session` is for the shell terminal_run starts"), "{kept}");
    let result =
        client.tool("terminal_run", json!({"session_id": id, "command": "pwd; echo $X; false"}));
    assert_eq!(
        (result["output"].as_str().unwrap(), result["exit_code"].as_i64()),
        ("/tmp\nkept\n", Some(1))
    );
    // A command still running at the timeout keeps running; a signal interrupts it.
    let call = client.call(
        "terminal_run",
        json!({"session_id": id, "command": "echo started; sleep 1000", "timeout_ms": 500}),
    );
    let result = &call["structuredContent"];
    assert_eq!((result["timed_out"].as_bool(), result["exit_code"].as_i64()), (Some(true), None));
    // The shell was given: nothing to close (one terminal_run started is, below).
    assert!(!text(&call).contains("terminal_close"), "{}", text(&call));
    let message = client.tool_error("terminal_run", json!({"session_id": id, "command": "true"}));
    assert!(message.contains("<C-c>"), "{message}");
    let signalled = client.tool("terminal_signal", json!({"session_id": id, "signal": "INT"}));
    assert_eq!(signalled["signal"], "INT");
    let read = client.tool("terminal_read", json!({"session_id": id, "prompt": true}));
    assert_eq!(read["wait"]["outcome"], "matched", "{read}");
    assert_eq!(read["status"]["last_exit_code"], 130);
    // A command that ends the shell itself has no exit code of its own (not the last
    // command's 130); the result says the shell ended, and the shell takes no more commands.
    let ended =
        client.call("terminal_run", json!({"session_id": id, "command": "echo bye; exit 4"}));
    let shown = text(&ended);
    assert!(ended["structuredContent"]["exit_code"].is_null(), "{shown}");
    assert_eq!(ended["structuredContent"]["status"]["exit_code"], 4, "{shown}");
    assert!(shown.contains("bye") && shown.contains("the shell itself ended"), "{shown}");
    let message = client.tool_error("terminal_run", json!({"session_id": id, "command": "true"}));
    assert!(message.contains("exited"), "{message}");
    // A session started without shell integration gets the tool's advice, not the library's.
    let cat = client.tool("terminal_start", json!({"argv": ["cat"]}))["session_id"].clone();
    let message = client.tool_error("terminal_run", json!({"session_id": cat, "command": "true"}));
    assert!(
        message.contains("no shell integration") && message.contains("omit session_id"),
        "{message}"
    );
    assert!(!message.contains("shell_integration(true)"), "{message}");
    let message = client.tool_error("terminal_read", json!({"session_id": cat, "prompt": true}));
    assert!(message.contains("prompt can never hold"), "{message}");
    client.tool("terminal_close", json!({"session_id": cat}));
    let once = client.call("terminal_run", json!({"command": "exit 3"}));
    assert!(
        text(&once).contains("the shell itself ended during the command (exit code 3)"),
        "{}",
        text(&once)
    );
    // A kept shell that ended is not one to close.
    let kept = client.call("terminal_run", json!({"command": "exit 5", "keep_session": true}));
    let said = text(&kept);
    assert!(said.contains("(exit code 5)") && !said.contains("close it"), "{said}");
    // terminal_start with a command line, and the interactive shell by default.
    let started = client
        .tool("terminal_start", json!({"command": "echo from-a-shell-line; exit 4", "exit": true}));
    assert!(started["output"].as_str().unwrap().contains("from-a-shell-line"), "{started}");
    assert_eq!(started["status"]["exit_code"], 4);
    let shell = client.tool("terminal_start", json!({"cwd": "/tmp", "env": {"GREETING": "hi"}}));
    assert_eq!(shell["status"]["shell_integration"], true, "{shell}");
    let result = client.tool(
        "terminal_run",
        json!({"session_id": shell["session_id"], "command": "echo $GREETING from $(pwd)"}),
    );
    assert_eq!(result["output"], "hi from /tmp\n");
    let pasted = client.tool(
        "terminal_send",
        json!({"session_id": shell["session_id"], "paste": "echo pasted-one\necho pasted-two",
               "submit": true, "for_regex": "^pasted-two$"}),
    );
    let output = pasted["output"].as_str().unwrap();
    assert!(output.contains("\npasted-one\n") && output.contains("\npasted-two\n"), "{pasted}");
    let resized = client.tool(
        "terminal_resize",
        json!({"session_id": shell["session_id"], "cols": 60, "rows": 20}),
    );
    assert_eq!((resized["cols"].as_u64(), resized["rows"].as_u64()), (Some(60), Some(20)));
    let screen =
        client.tool("terminal_read", json!({"session_id": shell["session_id"], "view": "screen"}));
    assert_eq!(
        (screen["screen"]["cols"].as_u64(), screen["screen"]["rows"].as_u64()),
        (Some(60), Some(20))
    );
    let listed = client.tool("terminal_list", json!({}));
    // The one-off runs' closed shells, the kept one, `cat`, the shell line and this one.
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 6, "{listed}");
    // The live first, then the ended, newest first.
    assert_eq!(sessions[0]["state"], "running", "{listed}");
    let ids: Vec<u64> = sessions.iter().map(|s| s["session_id"].as_u64().unwrap()).collect();
    assert!(ids[1..].windows(2).all(|w| w[0] > w[1]), "{listed}");
    // A one-off run's shell is closed even when the command ended it.
    let once_id = &once["structuredContent"]["session_id"];
    let once_entry = sessions.iter().find(|s| &s["session_id"] == once_id).unwrap();
    assert_eq!(once_entry["state"], "closed", "{listed}");
    // Output on the alternate screen is no transcript: the result says where it is.
    let alt =
        client.call("terminal_run", json!({"command": "printf '\\033[?1049h'; echo altscreen"}));
    assert!(text(&alt).contains("left on the alternate screen"), "{}", text(&alt));
    let started = client.call("terminal_run", json!({"command": "sleep 1000", "timeout_ms": 300}));
    assert!(text(&started).contains("terminal_close the shell when done"), "{}", text(&started));
    // A command that asks a question returns when it waits for the answer, not at the
    // timeout; its shell is kept, the answer typed, and the rest read as any output.
    let asked = Instant::now();
    let question = client.call(
        "terminal_run",
        json!({"command": "read -r -p 'Continue? [y/N] ' x; echo got=$x", "timeout_ms": 60000}),
    );
    assert!(asked.elapsed() < Duration::from_secs(30), "{:?}", asked.elapsed());
    let answer = &question["structuredContent"];
    assert_eq!(
        (answer["waiting_for_input"].clone(), answer["timed_out"].clone()),
        (json!(true), json!(false))
    );
    assert!(
        text(&question).starts_with("Continue? [y/N] \n[bash waiting for a line after"),
        "{}",
        text(&question)
    );
    let shell = answer["session_id"].clone();
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": shell, "text": "y", "submit": true, "prompt": true}),
    );
    let output = sent["output"].as_str().unwrap();
    assert!(output.starts_with("y\ngot=y\n"), "only what is new: {sent}");
    // Keys typed at the prompt and left there: the command is refused at once, with how to
    // clear the line, not after waiting for a prompt that will not come.
    client.tool("terminal_send", json!({"session_id": shell, "text": "ls"}));
    let refused = Instant::now();
    let message = client.tool_error(
        "terminal_run",
        json!({"session_id": shell, "command": "echo hi", "timeout_ms": 60000}),
    );
    assert!(message.contains("keys=\"<C-u><Enter>\""), "{message}");
    assert!(refused.elapsed() < Duration::from_secs(30), "{:?}", refused.elapsed());
    client.tool(
        "terminal_send",
        json!({"session_id": shell, "keys": "<C-u><Enter>", "prompt": true}),
    );
    let ran = client.tool("terminal_run", json!({"session_id": shell, "command": "echo hi"}));
    assert_eq!((ran["output"].clone(), ran["exit_code"].clone()), (json!("hi\n"), json!(0)));
    // A line cleared with <C-u> alone, with no new prompt drawn, is an empty line: the
    // command runs.
    client.tool("terminal_send", json!({"session_id": shell, "text": "ls"}));
    client.tool("terminal_send", json!({"session_id": shell, "keys": "<C-u>"}));
    let ran = client.tool("terminal_run", json!({"session_id": shell, "command": "echo ho"}));
    assert_eq!((ran["output"].clone(), ran["exit_code"].clone()), (json!("ho\n"), json!(0)));
    // So is one an arrow key filled from history first (its Escape starts a key code).
    client.tool("terminal_send", json!({"session_id": shell, "keys": "<Up><C-u>"}));
    let ran = client.tool("terminal_run", json!({"session_id": shell, "command": "echo hey"}));
    assert_eq!((ran["output"].clone(), ran["exit_code"].clone()), (json!("hey\n"), json!(0)));
    // One that left text after the cursor is not; nor one whose last key was not the line
    // kill (a Ctrl-X waiting for its second key: Ctrl-X Ctrl-U is readline's undo, which
    // brought `echo XYZ` back before the command), nor one after an Escape (a vi-mode line
    // editor out of insert mode would take the command for its commands).
    let refused = |client: &mut Client, keys: &[&str]| {
        client.tool(
            "terminal_send",
            json!({"session_id": shell, "keys": "<C-g><C-e><C-u><Enter>", "prompt": true}),
        );
        for keys in keys {
            client.tool("terminal_send", json!({"session_id": shell, "keys": keys}));
        }
        let message = client.tool_error(
            "terminal_run",
            json!({"session_id": shell, "command": "echo hi", "timeout_ms": 60000}),
        );
        assert!(message.contains("keys=\"<C-u><Enter>\""), "{keys:?}: {message}");
    };
    refused(&mut client, &["abc<C-b><C-b><C-u>"]);
    refused(&mut client, &["echo XYZ<C-u>", "<C-x>"]);
    refused(&mut client, &["echo XYZ<C-u><C-x>", "<C-u>"]);
    refused(&mut client, &["echo XYZ<Esc><C-u>"]);
    client.finish();
}

#[test]
fn cancellation_ends_a_wait_without_a_response_and_other_calls_go_on() {
    let mut client = Client::initialized("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": ["cat"]}))["session_id"].clone();
    let other = client.tool("terminal_start", json!({"argv": ["cat"]}))["session_id"].clone();
    let waiting = client.send_request(
        "tools/call",
        json!({"name": "terminal_read", "arguments": {"session_id": cat, "for_text": "never", "timeout_ms": 60000}}),
    );
    // While that waits, pings and calls on another session are answered.
    let started = Instant::now();
    assert_eq!(client.ok("ping", json!({})), json!({}));
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": other, "text": "echo me", "submit": true, "for_text": "echo me"}),
    );
    assert_eq!(sent["wait"]["outcome"], "matched");
    assert!(started.elapsed() < Duration::from_secs(10));
    client.notify("notifications/cancelled", json!({"requestId": waiting, "reason": "test"}));
    // No response comes for the cancelled request.
    assert_eq!(client.ok("ping", json!({})), json!({}));
    if let Some(message) = client.next(Duration::from_millis(1500)) {
        panic!("unexpected message after the cancellation: {message}");
    }
    assert!(
        !client.stash.contains_key(&waiting.to_string()),
        "the cancelled call was answered: {:?}",
        client.stash.get(&waiting.to_string())
    );
    // The session still works.
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": cat, "text": "still here", "submit": true, "for_text": "still here"}),
    );
    assert_eq!(sent["wait"]["outcome"], "matched");
    client.finish();
}

/// A look at the primary screen reads what it shows: the next read repeats none of it, and
/// the lines that scrolled past before the look are named by number, to be read by range.
#[test]
fn a_look_at_the_screen_reads_what_it_shows() {
    let mut client = Client::initialized("2025-11-25");
    let script = "seq 1 30; printf 'more? '; read x; echo after $x; read y";
    let started = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", script], "cols": 40, "rows": 10, "view": "screen"}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let screen = started["structuredContent"]["screen"]["text"].as_str().unwrap().to_owned();
    assert!(screen.starts_with("22\n") && screen.ends_with("30\nmore? ▌"), "{started}");
    // Lines 0-20 hold 1-21, which scrolled off the screen's top.
    assert_eq!(started["structuredContent"]["lines_not_on_screen"], json!([0, 20]), "{started}");
    let note = format!("lines 0-20; terminal_read session_id={id} lines=\"0-20\" shows them]");
    assert!(text(&started).contains(&note), "{}", text(&started));
    let unseen = client.call("terminal_read", json!({"session_id": id, "lines": "0-20"}));
    assert!(text(&unseen).contains("0│1\n") && text(&unseen).contains("20│21"), "{unseen}");
    // The next read starts after the screen's last line.
    let sent = client.tool("terminal_send", json!({"session_id": id, "text": "x", "submit": true}));
    let output = sent["output"].as_str().unwrap();
    assert!(output.contains("after x") && !output.contains("30"), "{sent}");
    // A look that finds nothing new on the screen names no lines.
    let look = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    assert!(look["structuredContent"].get("lines_not_on_screen").is_none(), "{look}");
    let read = client.tool("terminal_read", json!({"session_id": id}));
    assert_eq!(read["output"], "", "{read}");
    client.finish();
}

/// A look at the primary screen names as not on it only the lines that are not: a line
/// soft-wrapped over two rows, the rest of a line whose start (a prompt) was read before, and
/// the screen's lines below the cursor where the program ended with it above them, are on it.
/// Each was compared with one row, found different, and named with every line above it.
#[test]
fn a_look_at_the_screen_names_only_the_lines_it_does_not_show() {
    let mut client = Client::initialized("2025-11-25");
    // Lines 0-19 hold 1-20, line 20 fifty zeros (two rows of 40), line 21 `more? `.
    let script = "seq 1 20; printf '%050d\\n' 0; printf 'more? '; read x";
    let started = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", script], "cols": 40, "rows": 10, "view": "screen"}),
    );
    let screen = started["structuredContent"]["screen"]["text"].as_str().unwrap();
    assert!(screen.starts_with("14\n") && screen.ends_with("more? ▌"), "{started}");
    assert_eq!(started["structuredContent"]["lines_not_on_screen"], json!([0, 12]), "{started}");
    let id = started["structuredContent"]["session_id"].clone();
    client.call("terminal_close", json!({ "session_id": id }));
    // The prompt `name? ` is read by the start; the look after the answer shows its line whole.
    let script = "printf 'name? '; read n; echo hello $n; printf 'more? '; read x";
    let started = client.tool("terminal_start", json!({"argv": ["sh", "-c", script]}));
    assert_eq!(started["output"], "name? ", "{started}");
    let id = started["session_id"].clone();
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": id, "text": "bob", "submit": true, "view": "screen"}),
    );
    assert!(sent["screen"]["text"].as_str().unwrap().contains("name? bob\nhello bob"), "{sent}");
    assert!(sent.get("lines_not_on_screen").is_none(), "{sent}");
    client.call("terminal_close", json!({ "session_id": id }));
    // A program that ends with the cursor moved up above its last lines.
    let script = "printf 'a\\nb\\nc\\n\\033[2A'";
    let started =
        client.tool("terminal_start", json!({"argv": ["sh", "-c", script], "view": "screen"}));
    assert!(started["screen"]["text"].as_str().unwrap().starts_with("a\n"), "{started}");
    assert!(started.get("lines_not_on_screen").is_none(), "{started}");
    client.finish();
}

/// A look at the primary screen that `max_bytes` cuts names every line it read, as on the cut
/// screen (`cut_screen_lines`; none scrolled off it): the rows cut from the screen's end (the
/// program's last lines) were read and named nowhere, and the next read did not show them
/// either.
#[test]
fn a_look_at_a_screen_cut_by_max_bytes_names_the_lines_it_read() {
    let mut client = Client::initialized("2025-11-25");
    let script = "for i in 1 2 3 4 5 6 7 8; do printf 'line %d %050d\\n' $i 0; done; \
                  echo last answer; printf 'more? '; read x";
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", script], "view": "screen", "max_bytes": 700}),
    );
    let screen = started["screen"]["text"].as_str().unwrap();
    assert!(screen.starts_with("line 1 ") && !screen.contains("last answer"), "{started}");
    assert_eq!(started["cut_screen_lines"], json!([0, 9]), "{started}");
    assert!(started.get("lines_not_on_screen").is_none(), "{started}");
    let id = started["session_id"].clone();
    let lines = client.call("terminal_read", json!({"session_id": id, "lines": "8-9"}));
    assert!(text(&lines).contains("last answer"), "{lines}");
    client.finish();
}

/// A cancelled call is not answered, so it takes nothing from its client's read position:
/// what was new when it was cancelled is still new for the next read (the cancelled wait's
/// read took it, and the next read said "no new output").
#[test]
fn a_cancelled_wait_leaves_the_new_output_unread() {
    let mut client = Client::initialized("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": KEYS_CAT}))["session_id"].clone();
    // Typed and echoed, but not read: the scrollback view moves no read position.
    let typed = client.tool(
        "terminal_send",
        json!({"session_id": cat, "text": "unread words\r", "view": "scrollback", "for_screen_text": "unread words"}),
    );
    assert_eq!(typed["wait"]["outcome"], "matched", "{typed}");
    let waiting = client.send_request(
        "tools/call",
        json!({"name": "terminal_read", "arguments": {"session_id": cat, "for_text": "never", "timeout_ms": 60000}}),
    );
    // The wait is pending once the session lists it.
    let deadline = Instant::now() + LONG;
    while client.tool("terminal_list", json!({}))["sessions"][0]["pending_waits"] != 1 {
        assert!(Instant::now() < deadline, "the wait never became pending");
    }
    client.notify("notifications/cancelled", json!({"requestId": waiting, "reason": "test"}));
    client.until_call_ended(&waiting);
    let read = client.tool("terminal_read", json!({"session_id": cat}));
    assert!(read["output"].as_str().unwrap().contains("unread words"), "{read}");
    client.finish();
}

/// terminal_signal waits for the program's answer, as terminal_send does: a shell redraws its
/// prompt after SIGINT, and a command run right after is typed whole into the new prompt. A
/// shell at its prompt is signalled (or sent Ctrl-C) once it reads: bash signalled just
/// before it reads draws no new prompt. The start waits for the shell's first prompt: its
/// default wait ends on silence too, and a signal then cuts its startup files short, before
/// they add the prompt marks (a startup file polling on short sleeps, as pyenv's rehash does
/// for its lock, was quiet for 1.25 s: `terminal_run` found no integration).
#[test]
fn a_command_right_after_a_signal_runs_whole() {
    if !require(&shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let shell = client.tool("terminal_start", json!({"prompt": true, "timeout_ms": 20_000}));
    assert_eq!(shell["wait"]["outcome"], "matched", "{shell}");
    let id = shell["session_id"].clone();
    for attempt in 0..8 {
        // By terminal_signal, or by Ctrl-C typed (the terminal sends the signal).
        if attempt % 2 == 0 {
            let signalled =
                client.call("terminal_signal", json!({"session_id": id, "signal": "INT"}));
            assert_eq!(signalled["structuredContent"]["signal"], "INT", "{signalled}");
        } else {
            client.tool("terminal_send", json!({"session_id": id, "keys": "<C-c>"}));
        }
        let command = format!("echo after{attempt}");
        let ran = client.tool(
            "terminal_run",
            json!({"session_id": id, "command": command, "timeout_ms": 15_000}),
        );
        assert_eq!(
            (ran["output"].as_str(), ran["exit_code"].as_i64()),
            (Some(format!("after{attempt}\n").as_str()), Some(0)),
            "{ran}"
        );
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// terminal_signal to a REPL that a shell with integration runs returns once the REPL reads
/// again, as terminal_send's Ctrl-C does: it waited for the shell's prompt, which the REPL
/// hides, and so ended only on 1.25 s of quiet (`settled after 1.25 s: quiet for 1250 ms`).
/// A shell at its prompt still gets its new prompt waited for.
#[test]
fn a_signal_to_a_repl_in_a_shell_returns_when_it_reads_again() {
    if !require(&shell_program()) || !require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let shell = client.tool("terminal_start", json!({"prompt": true, "timeout_ms": 20_000}));
    assert_eq!(shell["wait"]["outcome"], "matched", "{shell}");
    let id = shell["session_id"].clone();
    let started = client.tool(
        "terminal_send",
        json!({"session_id": id, "text": "python3 -q", "submit": true, "for_text": ">>>", "timeout_ms": 20_000}),
    );
    assert_eq!(started["wait"]["outcome"], "matched", "{started}");
    let busy = client.tool(
        "terminal_send",
        json!({"session_id": id, "text": "while True: pass", "submit": true, "keys": "<Enter>", "quiet_ms": 300}),
    );
    assert_eq!(busy["status"]["activity"], "running", "{busy}");
    for round in 0..2 {
        // A busy loop, then the REPL idle at its prompt.
        let signalled = client.call("terminal_signal", json!({"session_id": id, "signal": "INT"}));
        let shown = text(&signalled);
        let header = shown.lines().next().unwrap_or_default();
        assert_eq!(header, "[python3 waiting for keys]", "round {round}: {shown}");
        assert!(shown.contains("KeyboardInterrupt"), "round {round}: {shown}");
    }
    client.tool("terminal_send", json!({"session_id": id, "keys": "<C-d>", "prompt": true}));
    let signalled = client.call("terminal_signal", json!({"session_id": id, "signal": "INT"}));
    let shown = text(&signalled);
    assert!(shown.lines().next().unwrap_or_default().contains("at the shell prompt"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// No result carries a control character (so no escape sequence), whatever the arguments held
/// (echoed in errors) or a program put in its title.
#[test]
fn results_show_control_characters_as_visible_stand_ins() {
    let mut client = Client::initialized("2025-11-25");
    let message = client.tool_error("terminal_list", json!({"\u{1b}x": 1}));
    assert!(message.contains("\u{241b}x") && !message.contains('\u{1b}'), "{message:?}");
    let message =
        client.tool_error("terminal_start", json!({"argv": ["true"], "cwd": "/tmp/\u{1b}[31m"}));
    assert!(!message.contains('\u{1b}'), "{message:?}");
    let script = "printf '\\033]2;T\\302\\23331mX\\007'; echo titled; sleep 60";
    let started = client.call("terminal_start", json!({"command": script, "for_text": "titled"}));
    let id = started["structuredContent"]["session_id"].clone();
    let read = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let all = read.to_string();
    assert!(!text(&read).chars().any(|c| c.is_control() && c != '\n'), "{all}");
    assert_eq!(read["structuredContent"]["screen"]["title"], "T\u{fffd}31mX", "{all}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A `terminal_start` cancelled at any point leaves no session running: its caller never
/// learns the id, so nobody else would close it.
#[test]
fn a_cancelled_start_leaves_no_session_behind() {
    let mut client = Client::initialized("2025-11-25");
    // Sessions running, and how many of them have a wait in place.
    let running = |client: &mut Client| {
        let listed = client.tool("terminal_list", json!({}));
        let sessions = listed["sessions"].as_array().unwrap().clone();
        let running: Vec<_> = sessions.iter().filter(|s| s["state"] == "running").collect();
        (running.len(), running.iter().filter(|s| s["pending_waits"] == 1).count())
    };
    let until = |client: &mut Client, what: &str, done: &dyn Fn((usize, usize)) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done(running(client)) {
            assert!(Instant::now() < deadline, "{what}");
        }
    };
    for attempt in 0..20 {
        let start = client.send_request(
            "tools/call",
            json!({"name": "terminal_start", "arguments": {"command": "sleep 300", "for_text": "never", "timeout_ms": 60000}}),
        );
        // Cancelled at once (perhaps before it starts anything), or as its wait begins (a
        // cancellation that stopped the wait before it marked the call cancelled let the call
        // answer, with a session nobody closed).
        if attempt % 2 == 1 {
            until(&mut client, "the start's wait did not begin", &|(_, waiting)| waiting == 1);
        }
        client.notify("notifications/cancelled", json!({"requestId": start, "reason": "test"}));
        until(&mut client, "a cancelled start left its session running", &|(n, _)| n == 0);
    }
    client.finish();
}

/// A named `terminal_start` cancelled while it waits gives its name back with its session:
/// the name named the closed session (a read by name said it was closed, and `terminal_list`
/// showed the name on it) though its caller never learned of it.
#[test]
fn a_cancelled_named_start_gives_its_name_back() {
    let mut client = Client::initialized("2025-11-25");
    let start = client.send_request(
        "tools/call",
        json!({"name": "terminal_start", "arguments": {"name": "ed", "command": "sleep 300", "for_text": "never", "timeout_ms": 60000}}),
    );
    let deadline = Instant::now() + LONG;
    while client.tool("terminal_list", json!({}))["sessions"][0]["pending_waits"] != 1 {
        assert!(Instant::now() < deadline, "the start's wait did not begin");
    }
    client.notify("notifications/cancelled", json!({"requestId": start, "reason": "test"}));
    let listed = loop {
        let listed = client.tool("terminal_list", json!({}));
        if listed["sessions"][0]["state"] != "running" {
            break listed;
        }
        assert!(Instant::now() < deadline, "the cancelled start's session still runs");
    };
    assert!(listed["sessions"][0].get("name").is_none_or(Value::is_null), "{listed}");
    let message = client.tool_error("terminal_read", json!({"session_id": "ed"}));
    assert!(message.contains("no session is named \"ed\""), "{message}");
    // The name is free: a new start takes it, and it names the new session.
    let started = client.tool("terminal_start", json!({"name": "ed", "argv": ["cat"]}));
    let read = client.tool("terminal_read", json!({"session_id": "ed"}));
    assert_eq!(read["session_id"], started["session_id"], "{read}");
    client.finish();
}

#[test]
fn calls_beyond_the_limit_are_refused_with_a_tool_error() {
    let options = ServeOptions { max_concurrent_calls: 2, ..ServeOptions::default() };
    let mut client = Client::with_options(options);
    client.initialize("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": KEYS_CAT}))["session_id"].clone();
    let wait = json!({"name": "terminal_read", "arguments": {"session_id": cat, "for_text": "never", "timeout_ms": 1500}});
    let first = client.send_request("tools/call", wait.clone());
    let second = client.send_request("tools/call", wait);
    // The server admits calls in the order it reads them: both are running by the time it
    // reads the next one.
    let message = client.tool_error("terminal_list", json!({}));
    assert!(message.contains("already running 2"), "{message}");
    for id in [first, second] {
        let response = client.response(&id);
        assert_eq!(response["result"]["structuredContent"]["wait"]["outcome"], "timeout");
    }
    client.tool("terminal_list", json!({}));
    client.finish();
}

#[test]
fn end_of_input_closes_every_session_and_leaves_no_process() {
    if !require("python3") || !require("bash") || !require(&shell_program()) {
        return;
    }
    let mut client = Client::discovered();
    let mut pids = Vec::new();
    for argv in [json!(["sleep", "1000"]), json!(["python3", "-q"]), json!(["bash", "--norc"])] {
        let started = client.tool("terminal_start", json!({"argv": argv}));
        pids.push(started["pid"].as_i64().unwrap());
    }
    let shell = client
        .tool("terminal_run", json!({"command": "sleep 1000 & echo $!", "keep_session": true}));
    assert_eq!(shell["exit_code"], 0);
    // Interactive bash also prints the job ("[1] PID"); the last line is the echo.
    let last = shell["output"].as_str().unwrap().trim().lines().last().unwrap().to_owned();
    pids.push(last.parse().unwrap());
    // A call in progress when the input ends is answered, its wait cut short.
    let waiting = client.send_request(
        "tools/call",
        json!({"name": "terminal_read", "arguments": {"session_id": 1, "exit": true, "timeout_ms": 60000}}),
    );
    // The call is admitted before the end of input is read, whenever its wait starts.
    assert!(pids.iter().all(|pid| alive(*pid)));
    drop(client.input.take());
    let response = client.response(&waiting);
    assert_eq!(response["result"]["isError"], false, "{response}");
    let started = Instant::now();
    client.finish();
    assert!(started.elapsed() < Duration::from_secs(10));
    for pid in pids {
        assert!(!alive(pid), "process {pid} survived the end of input");
    }
}

/// With the `fault-injection` feature, a panic is injected in one session's feed: that session
/// ends with the panic as its closed reason, and the server and the other sessions go on.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_in_one_session_ends_that_session_only() {
    if !require(&shell_program()) {
        return;
    }
    let config =
        Config { inject_panic_on_output: Some("INJECTED-PANIC".into()), ..Config::default() };
    let engine = Engine::new(config).expect("engine starts");
    let mut client = Client::serving(engine, ServeOptions::default());
    client.initialize("2025-11-25");
    client.notify("notifications/initialized", json!({}));
    let bystander = client.tool("terminal_start", json!({"argv": ["cat"], "input_wait": true}));
    let victim = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "read x; printf 'INJECTED-%s\\n' PANIC; sleep 1000"], "input_wait": true}),
    );
    let victim_id = victim["session_id"].clone();
    let pid = victim["pid"].as_i64().unwrap();
    let sent = client
        .call("terminal_send", json!({"session_id": victim_id, "text": "go\r", "exit": true}));
    assert_eq!(sent["isError"], false, "{}", text(&sent));
    let listed = client.tool("terminal_list", json!({}));
    let entry = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session_id"] == victim_id)
        .cloned()
        .unwrap();
    let reason = entry["closed_reason"].as_str().unwrap_or_default();
    assert!(reason.contains("emulation failed") && reason.contains("INJECTED-PANIC"), "{entry}");
    assert!(!alive(pid), "the victim's shell is gone");
    // The server and the other session go on.
    let echoed = client.tool(
        "terminal_send",
        json!({"session_id": bystander["session_id"], "text": "still here\r", "for_text": "still here"}),
    );
    assert_eq!(echoed["wait"]["outcome"], "matched", "{echoed}");
    client.tool("terminal_run", json!({"command": "echo new session"}));
    client.finish();
}

/// With the `fault-injection` feature, a call that started a session is cancelled as its tool
/// returns, after it has its result and before its answer is decided: no answer is sent, so
/// the session it started, which only that answer named, is closed and its name freed (it
/// was left running, named, and nobody knew its id).
#[cfg(feature = "fault-injection")]
#[test]
fn a_start_cancelled_as_it_answers_leaves_no_session_behind() {
    if !require(&shell_program()) {
        return;
    }
    let starts = [
        ("terminal_start", json!({"name": "orphan", "argv": KEYS_CAT, "input_wait": true})),
        ("terminal_run", json!({"command": "echo kept", "keep_session": true})),
    ];
    for (tool, arguments) in starts {
        let config = Config { inject_cancel_after_tool: Some(tool.into()), ..Config::default() };
        let engine = Engine::new(config).expect("engine starts");
        let mut client = Client::serving(engine, ServeOptions::default());
        client.initialize("2025-11-25");
        client.notify("notifications/initialized", json!({}));
        let start =
            client.send_request("tools/call", json!({"name": tool, "arguments": arguments}));
        let deadline = Instant::now() + LONG;
        let listed = loop {
            let listed = client.tool("terminal_list", json!({}));
            let state = &listed["sessions"][0]["state"];
            if !state.is_null() && state != "running" {
                break listed;
            }
            assert!(Instant::now() < deadline, "{tool}: the session was left running: {listed}");
        };
        assert!(listed["sessions"][0]["name"].is_null(), "{tool}: {listed}");
        if tool == "terminal_start" {
            let message = client.tool_error("terminal_read", json!({"session_id": "orphan"}));
            assert!(message.contains("no session is named \"orphan\""), "{message}");
            let again = client.tool("terminal_list", json!({}));
            assert!(again["sessions"][0]["name"].is_null(), "{again}");
        }
        // The cancelled call was not answered.
        client.tool("terminal_list", json!({}));
        assert!(!client.stash.contains_key(&start.to_string()), "{tool} was answered");
        client.finish();
    }
}

/// Every call reads, so a wait must still find text written over a line a call already
/// returned: a progress bar redrawn with `\r`, a line retyped after `^U` in `cat`.
#[test]
fn waits_find_text_written_over_lines_already_read() {
    let mut client = Client::initialized("2025-11-25");
    let script = r"stty -echo; printf 'progress 50%%'; read x; printf '\rprogress 100%%'; read x";
    let started = client
        .tool("terminal_start", json!({"argv": ["sh", "-c", script], "for_text": "progress 50"}));
    assert_eq!(started["wait"]["outcome"], "matched", "{started}");
    let id = started["session_id"].clone();
    let sent =
        client.call("terminal_send", json!({"session_id": id, "text": "\r", "for_text": "100%"}));
    assert_eq!(sent["structuredContent"]["wait"]["outcome"], "matched", "{sent}");
    // The line the first result ended on comes again, said to be that line redrawn.
    let said = text(&sent);
    assert!(said.contains("[from a line you saw, since redrawn]\nprogress 100%"), "{said}");
    client.tool("terminal_close", json!({"session_id": id}));
    let cat = client.tool("terminal_start", json!({"argv": ["cat"], "input_wait": true}));
    let id = cat["session_id"].clone();
    for word in ["alpha", "beta", "gamma"] {
        let sent = client.tool(
            "terminal_send",
            json!({"session_id": id, "keys": format!("<C-u>{word}"), "for_text": word}),
        );
        assert_eq!(sent["wait"]["outcome"], "matched", "{word}: {sent}");
    }
    client.finish();
}

/// A full-screen program writes no transcript: a transcript-only wait is refused at once,
/// naming the screen condition to use, instead of timing out.
#[test]
fn transcript_waits_on_the_alternate_screen_are_refused_with_a_hint() {
    if !common::require("vim") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE"], "input_wait": true}),
    );
    let id = started["session_id"].clone();
    assert_eq!(started["screen"]["alternate"], true, "{started}");
    let begun = Instant::now();
    let message = client.tool_error(
        "terminal_send",
        json!({"session_id": id, "keys": "ihello", "for_text": "hello"}),
    );
    assert!(
        message.contains("for_screen_text") && message.contains("nothing was sent"),
        "{message}"
    );
    assert!(begun.elapsed() < Duration::from_secs(10));
    // The screen condition works (and the refused call typed nothing).
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": id, "keys": "ihello world", "for_screen_text": "hello world"}),
    );
    assert_eq!(sent["wait"]["outcome"], "matched", "{sent}");
    // A search of the transcript finds nothing there, and says where to look instead.
    let searched = client.call("terminal_read", json!({"session_id": id, "search": "hello"}));
    let searched = text(&searched);
    assert!(searched.contains("0 transcript lines") && searched.contains("find="), "{searched}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// terminal_start whose wait is refused once its program runs (prompt=true on a program that
/// marks no prompts: whether it marks them is known only once it runs) returns the session
/// it started, running, with the refusal beside it and the default wait done instead. Before,
/// the call failed with "...; nothing was sent" and closed the program under it: a model
/// read that nothing had happened and started it again.
#[test]
fn a_start_whose_wait_is_refused_returns_the_running_session() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.call("terminal_start", json!({"argv": ["cat"], "prompt": true}));
    let shown = text(&started);
    assert_eq!(started["isError"], false, "{shown}");
    let result = &started["structuredContent"];
    let id = result["session_id"].clone();
    assert!(shown.starts_with(&format!("[session {id} started · cat ")), "{shown}");
    assert!(shown.contains("prompt can never hold"), "{shown}");
    assert!(shown.contains(&format!("session {id} runs")), "{shown}");
    assert!(!shown.contains("nothing was sent"), "{shown}");
    assert_eq!(result["wait_refused"], true, "{result}");
    let why = result["wait_refusal"].as_str().unwrap_or_default();
    assert!(why.contains("prompt can never hold"), "the reason, for a script: {result}");
    assert_eq!(result["wait"]["default"], true, "the default wait was done: {result}");
    // A program that has already exited is not said to run.
    let ended =
        client.call("terminal_start", json!({"argv": ["sh", "-c", "true"], "prompt": true}));
    let said = text(&ended);
    let ended_id = &ended["structuredContent"]["session_id"];
    assert!(said.contains(&format!("session {ended_id} ran and has exited")), "{said}");
    assert!(!said.contains(&format!("session {ended_id} runs")), "{said}");
    // A wait known to be refused before the start (a place off the screen asked for) starts
    // nothing, and says so.
    let before = client.tool("terminal_list", json!({}))["sessions"].as_array().unwrap().len();
    for wait in [json!({"for_cursor": "99,99"}), json!({"for_screen_text": "x", "screen_row": 24})]
    {
        let mut args = json!({"argv": ["cat"], "cols": 80, "rows": 24});
        args.as_object_mut().unwrap().extend(wait.as_object().unwrap().clone());
        let refused = client.call("terminal_start", args);
        let said = text(&refused);
        assert_eq!(refused["isError"], true, "{said}");
        assert!(said.contains("off the requested 80x24 screen"), "{said}");
        assert!(said.contains("nothing was started"), "{said}");
    }
    let after = client.tool("terminal_list", json!({}))["sessions"].as_array().unwrap().len();
    assert_eq!(after, before, "nothing was started");
    // It runs and takes input.
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": id, "text": "still here\r", "for_text": "still here"}),
    );
    assert_eq!(sent["wait"]["outcome"], "matched", "{sent}");
    // A start whose wait holds says nothing of a refusal.
    let other = client.tool("terminal_start", json!({"argv": ["cat"], "input_wait": true}));
    assert_eq!(other.get("wait_refused"), None, "{other}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.tool("terminal_close", json!({"session_id": other["session_id"]}));
    client.finish();
}

/// terminal_start prompt=true on a shell started without termloom's integration that marks
/// its prompts itself (OSC 133 in bash's PS1) is judged once the shell is ready, after the
/// start's own readiness wait: its prompt wait holds. It was judged right after the spawn, and
/// refused ("marks no prompts") whenever the shell had not drawn its first prompt yet (here
/// always: it starts half a second late).
#[test]
fn a_prompt_wait_on_a_start_whose_shell_marks_its_own_prompts_holds() {
    let mut client = Client::initialized("2025-11-25");
    let ps1 = r"\[\e]133;A\a\]mine$ \[\e]133;B\a\]";
    // (A shell that is not interactive drops PS1 from its environment.)
    let late = "sleep 0.5; PS1=\"$MINE\" exec bash --norc --noprofile -i";
    let argv = json!(["bash", "-c", late]);
    let start = json!({"argv": argv, "env": {"MINE": ps1}, "prompt": true, "timeout_ms": 30_000});
    let started = client.call("terminal_start", start);
    let result = &started["structuredContent"];
    assert_eq!(started["isError"], false, "{}", text(&started));
    assert_eq!(result.get("wait_refused"), None, "{result}");
    assert_eq!(result["wait"]["outcome"], "matched", "{result}");
    assert_eq!(result["wait"]["default"], false, "the prompt was waited for: {result}");
    assert_eq!(result["status"]["shell_integration"], true, "{result}");
    // The readiness wait before the prompt's counts in the wait's time (it said 0 before).
    let elapsed = result["wait"]["elapsed_ms"].as_u64().unwrap();
    assert!(elapsed >= 400, "{elapsed} ms: {result}");
    client.tool("terminal_close", json!({"session_id": result["session_id"]}));
    // Not ready by the end of the readiness wait: the refusal says so, not that the
    // program marks no prompts.
    let slow = "for i in $(seq 80); do echo $i; sleep 0.1; done; PS1=\"$MINE\" exec bash --norc --noprofile -i";
    let argv = json!(["bash", "-c", slow]);
    let start = json!({"argv": argv, "env": {"MINE": ps1}, "prompt": true, "timeout_ms": 1_500});
    let started = client.call("terminal_start", start);
    let result = &started["structuredContent"];
    let refused = result["wait_refusal"].as_str().unwrap_or_default();
    assert!(
        refused.contains("marked no prompt before its start's readiness wait ran out"),
        "{result}"
    );
    client.tool("terminal_close", json!({"session_id": result["session_id"]}));
    client.finish();
}

/// A session whose recording could not be written to its end (a FIFO whose reader went away
/// after the header; a full disk is the same) says so in few bytes where a model reads a
/// session's end and its status: terminal_close's result and terminal_list with the error
/// (text and structured content), a read's status header in a few fixed bytes; a session
/// whose recording is whole gets no word of it. Before, no tool said it: the model never
/// learnt the recording lacked the rest of the session.
#[test]
fn a_recording_that_failed_is_said_by_the_tools() {
    let dir = common::TestDir::new("mcp-recording-fails");
    let fifo = dir.join("cast.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // The header, then the reader goes away.
            let mut header = String::new();
            BufReader::new(std::fs::File::open(&fifo).unwrap()).read_line(&mut header).unwrap();
            header
        })
    };
    let engine = Engine::new(Config::default()).expect("engine starts");
    let spec = termloom::SpawnSpec::new("sh").args(["-c", "read x; seq 1 20000"]).record(&fifo);
    let session = engine.spawn(spec).unwrap();
    assert!(reader.join().unwrap().starts_with("{\""), "the header was written");
    let id = session.id().0;
    drop(session);
    let mut client = Client::serving(engine, ServeOptions::default());
    client.initialize("2025-11-25");
    client.notify("notifications/initialized", json!({}));
    let whole = client.tool("terminal_start", json!({"argv": ["cat"], "input_wait": true}));
    let whole = whole["session_id"].clone();
    let sent = client.tool("terminal_send", json!({"session_id": id, "text": "\r", "exit": true}));
    assert_eq!(sent["wait"]["outcome"], "exited", "{sent}");
    // The close waits for the recording's writer: its error is known then.
    let said = "recording failed: Broken pipe";
    let closed = client.call("terminal_close", json!({"session_id": id}));
    assert!(text(&closed).starts_with("[closed · ") && text(&closed).contains(said), "{closed}");
    assert!(!text(&closed).contains("os error"), "few bytes: {closed}");
    assert_eq!(closed["structuredContent"]["recording_error"], "Broken pipe", "{closed}");
    // A read's status header says it in a few fixed bytes (terminal_list and terminal_close
    // say why).
    let read = client.call("terminal_read", json!({"session_id": id}));
    let header = text(&read).lines().next().unwrap_or_default().to_owned();
    assert!(header.ends_with(" · recording failed]"), "{header}");
    let listed = client.call("terminal_list", json!({}));
    let line = |of: &Value| {
        let start = format!("session {of} ");
        text(&listed).lines().find(|line| line.starts_with(&start)).unwrap_or_default().to_owned()
    };
    assert!(line(&json!(id)).contains(said), "{}", text(&listed));
    assert!(!line(&whole).contains("recording"), "{}", text(&listed));
    let entries = listed["structuredContent"]["sessions"].as_array().unwrap().clone();
    let entry = |of: &Value| entries.iter().find(|e| e["session_id"] == *of).unwrap().clone();
    assert_eq!(entry(&json!(id))["recording_error"], "Broken pipe", "{entries:?}");
    assert_eq!(entry(&whole).get("recording_error"), None, "{entries:?}");
    // So do the look-ups' headers (lines, search, find, svg).
    for lookup in [
        json!({"lines": "19999-"}),
        json!({"search": "1"}),
        json!({"find": "1"}),
        json!({"svg": true, "max_bytes": 1 << 20}),
    ] {
        let mut args = lookup.clone();
        args["session_id"] = json!(id);
        let read = client.call("terminal_read", args);
        let header = text(&read).lines().next().unwrap_or_default().to_owned();
        assert!(header.ends_with(" · recording failed]"), "{lookup}: {header}");
    }
    // A session whose recording is whole (or that is not recorded) gets no word of it.
    let read = client.call("terminal_read", json!({"session_id": whole}));
    assert!(!text(&read).contains("recording"), "{read}");
    assert_eq!(read["structuredContent"].get("recording_error"), None, "{read}");
    let closed = client.call("terminal_close", json!({"session_id": whole}));
    assert!(!text(&closed).contains("recording"), "{closed}");
    assert_eq!(closed["structuredContent"].get("recording_error"), None, "{closed}");
    client.finish();
}

/// A session whose recording could not be put at its path once the program had started (the
/// path's file was locked meanwhile, as another session's recording is; a file made
/// immutable is the same) says where the recording is, whole, under its temporary name:
/// terminal_close's and terminal_list's lines and structured content give the path uncut
/// (`recording_kept_at`), a read's status header says `recording not at its path`. Before,
/// every header said `recording failed`, and the error, cut to 60 bytes, lost the path.
#[test]
fn a_recording_not_at_its_path_is_said_with_where_it_is() {
    let dir = common::TestDir::new("mcp-recording-kept");
    let path = dir.join("out.cast");
    let engine = Engine::new(Config::default()).expect("engine starts");
    let (session, kept) = common::kept_recording(&engine, &path);
    let id = session.id().0;
    session.send_text("kept-text\n").unwrap();
    drop(session);
    let kept_text = kept.to_str().unwrap().to_owned();
    assert!(kept_text.len() > 60, "{kept_text}");
    let mut client = Client::serving(engine, ServeOptions::default());
    client.initialize("2025-11-25");
    client.notify("notifications/initialized", json!({}));
    let read = client.call("terminal_read", json!({"session_id": id, "for_text": "kept-text"}));
    let header = text(&read).lines().next().unwrap_or_default().to_owned();
    assert!(header.contains(" · recording not at its path"), "{header}");
    assert!(!header.contains("recording failed"), "{header}");
    let said = format!("recording not at its path, it is at {kept_text:?}: ");
    let listed = client.call("terminal_list", json!({}));
    assert!(text(&listed).contains(&said), "{}", text(&listed));
    let entry = &listed["structuredContent"]["sessions"][0];
    assert_eq!(entry["recording_kept_at"], kept_text, "{entry}");
    let error = entry["recording_error"].as_str().unwrap_or_default();
    assert!(error.len() <= 60 && error.starts_with("the recording could not be put"), "{entry}");
    let closed = client.call("terminal_close", json!({"session_id": id}));
    assert!(text(&closed).starts_with("[closed · ") && text(&closed).contains(&said), "{closed}");
    assert_eq!(closed["structuredContent"]["recording_kept_at"], kept_text, "{closed}");
    let cast = std::fs::read_to_string(&kept).unwrap();
    assert!(cast.starts_with("{\"") && cast.contains("kept-text"), "whole: {cast}");
    client.finish();
}

/// The default wait says which of its conditions ended it.
#[test]
fn the_default_wait_says_what_settled_it() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool("terminal_start", json!({"argv": ["cat"], "input_wait": true}));
    let id = started["session_id"].clone();
    let sent = client.call("terminal_send", json!({"session_id": id, "text": "hello\r"}));
    let text = text(&sent);
    // The status names the condition that ended the wait: waiting for input (a line). Its
    // conditions are states, which match no text.
    assert!(text.starts_with("[cat waiting for a line]\n"), "{text}");
    assert_eq!(sent["structuredContent"]["wait"]["matched_text"], Value::Null, "{sent}");
    // A wait for text already read times out, and says where the text was. (Beside `cat`
    // reading keys, a job of its group able to print, nothing else ends the wait; canonical
    // `cat`, asking for a line, ended it once quiet for 500 ms, which a loaded machine
    // reached within the 300 ms.)
    let keys = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "echo hello; stty -icanon; sleep 600 & exec cat"],
               "input_wait": true}),
    );
    let keys = keys["session_id"].clone();
    let late = client
        .call("terminal_read", json!({"session_id": keys, "for_text": "hello", "timeout_ms": 300}));
    let late = self::text(&late);
    assert!(late.contains("timed out") && late.contains("line 0 had it before the wait"), "{late}");
    // A blank line read before is pointed to for `^$`, as the wait itself would take one
    // printed (the hint said nothing); the empty line at the cursor, still being written, is
    // none. The wait ends as the program asks for a line, whatever the machine's load.
    let blank = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "echo a; echo; echo b; read x"], "input_wait": true}),
    );
    let blank = blank["session_id"].clone();
    client.call("terminal_read", json!({"session_id": blank}));
    let late = client.call(
        "terminal_read",
        json!({"session_id": blank, "for_regex": "^$", "timeout_ms": 60_000}),
    );
    let late = self::text(&late);
    assert!(late.contains("asks for input first") && late.contains("line 1 had it"), "{late}");
    // So does one the program's exit ends.
    let leaving = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "echo bye; read x"], "input_wait": true}),
    );
    let gone = client.call(
        "terminal_send",
        json!({"session_id": leaving["session_id"], "text": "go", "submit": true, "for_text": "bye"}),
    );
    let gone = self::text(&gone);
    assert!(gone.contains("exited while waiting") && gone.contains("line 0 had it"), "{gone}");
    // Where it waits is said when the output does not show it: a prompt read before, then
    // only the end of its row typed, is not repeated.
    let asks = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "printf 'name? '; read x; echo hi $x; read y"], "input_wait": true}),
    );
    let asks = asks["session_id"].clone();
    let typed = client.call("terminal_send", json!({"session_id": asks, "text": "bob"}));
    let typed = self::text(&typed);
    assert_eq!(typed, "[sh waiting for a line]\nbob", "{typed}");
    client.finish();
}

/// Closing a running shell does not read like a crash.
#[test]
fn a_close_says_the_program_ended_by_the_close() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool("terminal_start", json!({"argv": ["cat"], "input_wait": true}));
    let closed = client.call("terminal_close", json!({"session_id": started["session_id"]}));
    let text = text(&closed);
    assert!(text.contains("ended by the close (SIGHUP)"), "{text}");
    assert!(!text.contains("killed"), "{text}");
    client.finish();
}

/// A close goes on hanging the program up until it ends, as a real terminal's hangup does:
/// a SIGHUP that lands before the program blocks on the terminal (bash takes one between
/// drawing its prompt and readline's wait for a key, and slept through it until SIGKILL, 3 s
/// later, when a `terminal_run` was closed right after its command) is not its last. This
/// program lets its first SIGHUP pass, as bash's lost one, and ignores SIGTERM.
#[test]
fn a_close_hangs_up_again_a_program_that_slept_through_its_sighup() {
    if !require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "import os, signal, sys\n\
                  signal.signal(signal.SIGTERM, signal.SIG_IGN)\n\
                  hups = []\n\
                  def hup(*_):\n    \
                      if hups: sys.exit(129)\n    \
                      hups.append(1)\n\
                  signal.signal(signal.SIGHUP, hup)\n\
                  print('ready', flush=True)\n\
                  while True: os.read(0, 1)\n";
    let started = client
        .tool("terminal_start", json!({"argv": ["python3", "-c", script], "for_text": "ready"}));
    let closed = client.call("terminal_close", json!({"session_id": started["session_id"]}));
    let text = text(&closed);
    assert!(text.contains("exit code 129"), "{text}");
    assert!(!text.contains("SIGKILL"), "{text}");
    client.finish();
}

/// A close hangs the program up first, as a closing terminal does, and sends SIGTERM only to
/// what still runs a while later: gdb, on its way out for the hangup, took the SIGTERM sent
/// with it for an interrupt, and its Python's `Exception ignored ... KeyboardInterrupt`
/// traceback was the closed session's last output (three closes in three). A program that
/// ignores the hangup still ends by SIGTERM.
#[test]
fn a_close_hangs_up_before_it_terminates() {
    if !require("gdb") || !require("sh") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    for _ in 0..3 {
        let argv = json!(["gdb", "-q", "-nx"]);
        let started = client.tool("terminal_start", json!({"argv": argv, "for_text": "(gdb)"}));
        let closed = client.call("terminal_close", json!({"session_id": started["session_id"]}));
        let text = text(&closed);
        assert!(text.contains("exit code 0") && !text.contains("Traceback"), "{text}");
    }
    let argv = json!(["sh", "-c", "trap '' HUP; echo ready; sleep 100"]);
    let started = client.tool("terminal_start", json!({"argv": argv, "for_text": "ready"}));
    let closed = client.call("terminal_close", json!({"session_id": started["session_id"]}));
    let text = text(&closed);
    assert!(text.contains("ended by the close (SIGTERM)"), "{text}");
    client.finish();
}

/// A wait that times out on the primary screen does not print the same lines twice: when the
/// new output already reaches the cursor's row, the screen is left out, and when there is no
/// new output (the caller has read every row: 27 rows of `y` were printed again after a
/// flood) too; a screen with rows below the cursor is shown.
#[test]
fn a_timeout_on_the_primary_screen_prints_its_lines_once() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool("terminal_start", json!({"argv": KEYS_CAT, "input_wait": true}));
    let id = started["session_id"].clone();
    let sent = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "alpha\rbeta\r", "for_text": "never printed",
               "timeout_ms": 500}),
    );
    let shown = text(&sent);
    assert_eq!(sent["structuredContent"]["wait"]["outcome"], "timeout", "{shown}");
    assert_eq!(shown.matches("beta").count(), 2, "typed and echoed once each: {shown}");
    assert!(!shown.contains("--- screen"), "{shown}");
    let read = client.call(
        "terminal_read",
        json!({"session_id": id, "for_text": "never printed", "timeout_ms": 300}),
    );
    let shown = text(&read);
    assert!(!shown.contains("--- screen") && shown.contains("no new output"), "{shown}");
    // Rows below the cursor are not in the transcript: the screen shows them.
    client.call("terminal_send", json!({"session_id": id, "text": "\\e[5;1Hbelow\\e[2;1H"}));
    let read = client.call(
        "terminal_read",
        json!({"session_id": id, "for_text": "never printed", "timeout_ms": 300}),
    );
    let shown = text(&read);
    assert!(shown.contains("--- screen") && shown.contains("below"), "{shown}");
    client.finish();
}

/// A wait that times out while a build redraws its progress bar below lines an earlier call
/// read does not send the screen again: every row above the bar was read, and the bar is in
/// the new output (the screen, 20 rows of a build's log the model had, came with every
/// timed-out wait for `Finished`).
#[test]
fn a_timeout_below_lines_read_before_leaves_the_screen_out() {
    let mut client = Client::initialized("2025-11-25");
    // A build's log, then its progress bar redrawn in place for each line typed (not echoed);
    // the background job keeps the program from counting as the one that asks for input.
    let build = "stty -icanon -echo; sleep 600 & \
                 for c in alpha beta gamma delta; do echo \"   Compiling $c v1.0.0\"; done; \
                 while read n; do printf '\\r    Building [%s/9]' \"$n\"; done";
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", build], "for_text": "Compiling delta", "cols": 60, "rows": 12}),
    );
    let id = started["session_id"].clone();
    for step in ["1", "2"] {
        let sent = client.call(
            "terminal_send",
            json!({"session_id": id, "text": format!("{step}\r"), "for_text": "Finished",
                   "timeout_ms": 500}),
        );
        let shown = text(&sent);
        assert_eq!(sent["structuredContent"]["wait"]["outcome"], "timeout", "{shown}");
        assert!(shown.contains(&format!("Building [{step}/9]")), "{shown}");
        assert!(!shown.contains("--- screen") && !shown.contains("Compiling"), "{shown}");
    }
    client.finish();
}

/// A timed-out wait whose new output is only a wrapped line's last row (`表z` after 120
/// zeros on a 60-column screen) sends the screen: the output is a fragment of the screen's
/// line, not the line (review wd: taken for the whole line, as a prompt's end is, since
/// `4a4ab60`).
#[test]
fn a_timeout_on_a_wrapped_lines_last_row_sends_the_screen() {
    let mut client = Client::initialized("2025-11-25");
    let program = "stty -icanon -echo; sleep 600 & printf '%0120d' 0; \
                   while read n; do printf '表z'; done";
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", program], "for_text": "0000000000", "cols": 60, "rows": 12}),
    );
    let id = started["session_id"].clone();
    let sent = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "1\r", "for_text": "Finished", "timeout_ms": 500}),
    );
    let shown = text(&sent);
    assert_eq!(sent["structuredContent"]["wait"]["outcome"], "timeout", "{shown}");
    assert_eq!(sent["structuredContent"]["output"], "表z", "{shown}");
    assert!(shown.contains("--- screen"), "{shown}");
    client.finish();
}

/// A small `max_bytes` cuts new output around the line a wait matched, not only at its end,
/// and says how much came before and after.
#[test]
fn a_cut_keeps_the_line_that_matched() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["sh", "-c", "echo MARK here; seq 1 3000; echo END; exec cat"],
               "view": "scrollback", "for_screen_text": "END"}),
    );
    let id = started["session_id"].clone();
    let read = client
        .call("terminal_read", json!({"session_id": id, "for_text": "MARK", "max_bytes": 600}));
    assert_within(&read, 600, "a read cut around its match");
    let output = read["structuredContent"]["output"].as_str().unwrap();
    assert!(output.starts_with("MARK here\n1\n2\n"), "{}", text(&read));
    assert!(!output.contains("END"), "{}", text(&read));
    assert!(text(&read).contains("later bytes of new output left out"), "{}", text(&read));
    let omitted = read["structuredContent"]["output_omitted_bytes"].as_u64().unwrap();
    assert!(omitted > 10_000, "{omitted}");
    // A match at the end keeps the end, as before.
    let sent = client.call(
        "terminal_send",
        json!({"session_id": id, "text": "again\r", "for_text": "again", "max_bytes": 600}),
    );
    assert!(text(&sent).contains("again"), "{}", text(&sent));
    assert!(!text(&sent).contains("later bytes"), "{}", text(&sent));
    client.finish();
}

/// A full-screen program's screen is sent whole once, then as the rows that changed since
/// this caller last saw it, with the cursor marked; `view="screen"` sends it whole again.
#[test]
fn screens_are_sent_as_the_rows_that_changed() {
    if !common::require("vim") {
        return;
    }
    let lines: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    let file = temp_file("diff.txt", &lines);
    let mut client = Client::initialized("2025-11-25");
    let vim = ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", file.to_str().unwrap()];
    let started = client.call("terminal_start", json!({"argv": vim, "input_wait": true}));
    let shown = text(&started);
    let id = started["structuredContent"]["session_id"].clone();
    // The cursor is on a character: the header says where (a mark would split the word).
    assert!(shown.contains("--- screen 120x32, cursor row 0 col 0 ---"), "{shown}");
    assert!(shown.contains("line 7"), "{shown}");
    // One character deleted: only its row, numbered.
    let sent = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
    let shown = text(&sent);
    assert!(
        shown.contains("rows changed since your last look") && shown.contains("0│ine 1"),
        "{shown}"
    );
    assert!(!shown.contains("line 7"), "unchanged rows are not sent again: {shown}");
    // Nothing changed since: said in one line.
    let read = client.call("terminal_read", json!({"session_id": id}));
    assert!(text(&read).contains("unchanged since your last look"), "{}", text(&read));
    // Asked for, the whole screen.
    let read = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    let shown = text(&read);
    assert!(shown.contains("\nine 1") && shown.contains("line 7"), "{shown}");
    // In insert mode past the end of a line, the cursor is marked where typing goes.
    let typed = client.call("terminal_send", json!({"session_id": id, "keys": "A!"}));
    assert!(text(&typed).contains("0│ine 1!▌"), "{}", text(&typed));
    assert!(!shown.contains("rows changed"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// Rows that moved as a block are said in one line, and a screen that comes back (a menu
/// closed) is told as its changes since the previous different screen the caller saw.
#[test]
fn moved_rows_and_a_screen_that_comes_back_are_sent_as_changes() {
    if !common::require("python3") {
        return;
    }
    let script = screens_on_keys(
        "menu.py",
        "procs = ['process %d' % n for n in range(1, 21)]\n\
         draw(procs)\n\
         draw(['Sort by'] + ['field %d' % n for n in range(1, 21)])\n\
         draw(procs[:5] + ['process 99'] + procs[5:])\n\
         draw(procs[3:] + ['end'])\n",
    );
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", script.to_str().unwrap()]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "process 20", "cols": 40, "rows": 24}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let menu = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
    assert!(text(&menu).contains("field 20"), "{}", text(&menu));
    // Back from the menu, a process inserted above the list's end. The row the cursor was
    // marked on (after "process 20") is no part of the block: it is sent where it is now.
    let back = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
    let shown = text(&back);
    assert!(
        shown.contains(
            "as at the previous different screen you saw, with its rows 5-18 moved to 6-19; rows changed besides"
        ) && shown.contains("5│process 99\n20│process 20▌"),
        "{shown}"
    );
    assert!(!shown.contains("process 12"), "rows that moved are not sent again: {shown}");
    assert_eq!(back["structuredContent"]["screen"]["since_look"], 2, "{back}");
    // The list's first rows dropped, the process above it gone: the rest of the list moved
    // up four rows (but its last, where the cursor was marked); the rows above it and the
    // ones it left changed.
    let scrolled = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
    let shown = text(&scrolled);
    assert!(
        shown.contains("as at your last look, with its rows 6-19 moved to 2-15; rows changed")
            && shown.contains("0│process 4\n1│process 5\n16│process 20\n17│end▌\n18│\n19│\n20│"),
        "{shown}"
    );
    assert!(!shown.contains("process 12"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A screen that comes back after others is told as its changes since it: mc's panels,
/// after its viewer (F3) showed a file's first page, then its next (PageDown), and quit
/// (F10). Only the last two screens were kept, both the viewer's, and the panels were sent
/// whole again (3,779 bytes at 100x30 for a screen the caller had seen, unchanged). And a
/// screen seen again is one look, not a copy: the viewer paged down, up and down again (its
/// two pages each shown twice) kept four looks of those two pages, and the panels, pushed
/// out, were sent whole when F10 quit it (review wk).
#[test]
fn a_screen_that_comes_back_after_others_is_sent_as_changes() {
    if !common::require("mc") {
        return;
    }
    let dir = temp_dir("mc-viewer");
    let numbers: String = (1..=200).map(|n| format!("{n}\n")).collect();
    std::fs::write(dir.join("numbers.txt"), numbers).unwrap();
    let paged: [&[(&str, &str)]; 2] = [
        &[("<PageDown>", "29")],
        &[
            ("<PageDown>", "29"),
            ("<PageUp>", "the previous different screen you saw"),
            ("<PageDown>", "the previous different screen you saw"),
        ],
    ];
    for pages in paged {
        // mc's settings in a home of their own, out of the panels.
        let home = temp_dir("mc-viewer-home");
        let mut client = Client::initialized("2025-11-25");
        // No subshell (`-u`): the panels alone, both in the directory that holds the file.
        let argv = json!(["mc", "-u", dir.to_str().unwrap(), dir.to_str().unwrap()]);
        let env = json!({"HOME": home.to_str().unwrap()});
        let started = client
            .call("terminal_start", json!({"argv": argv, "env": env, "cols": 100, "rows": 30}));
        let id = started["structuredContent"]["session_id"].clone();
        let panels = text(&started);
        assert!(panels.contains("numbers.txt") && panels.contains("PullDn"), "{panels}");
        let send = |client: &mut Client, keys: &str, wanted: &str| {
            let sent = client.call("terminal_send", json!({"session_id": id, "keys": keys}));
            assert!(text(&sent).contains(wanted), "{keys}: {}", text(&sent));
            sent
        };
        send(&mut client, "<Down>", "numbers.txt");
        send(&mut client, "<F3>", "UnWrap");
        for (keys, wanted) in pages {
            send(&mut client, keys, wanted);
        }
        let back = send(&mut client, "<F10>", "");
        let shown = text(&back);
        assert!(!shown.contains("numbers.txt"), "{pages:?}: the panels sent again: {shown}");
        assert!(shown.contains("the screen you saw 3 different screens ago"), "{shown}");
        assert_eq!(back["structuredContent"]["screen"]["since_look"], 3, "{back}");
        client.tool("terminal_close", json!({"session_id": id}));
        client.finish();
    }
}

/// Idle processes of the test's own, killed when dropped.
struct Sleepers(Vec<std::process::Child>);

impl Sleepers {
    fn start(count: usize) -> Sleepers {
        let spawn = || std::process::Command::new("sleep").arg("600").spawn().unwrap();
        Sleepers((0..count).map(|_| spawn()).collect())
    }

    /// Their pids, as htop's `-p` takes them.
    fn pids(&self) -> String {
        self.0.iter().map(|child| child.id().to_string()).collect::<Vec<_>>().join(",")
    }
}

impl Drop for Sleepers {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A panel that opens at the left of a list (htop's sort menu) slides the list's rows to the
/// right: they are sent as their new columns only, the list's header and processes not again.
#[test]
fn rows_that_slid_sideways_are_sent_as_their_new_columns() {
    if !common::require("htop") {
        return;
    }
    // A list of sleepers of our own, sorted by PID and refreshed every 10 s, stays still
    // between the two looks (the machine's own processes come and go while tests run).
    let sleepers = Sleepers::start(12);
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["htop", "-d", "100", "-s", "PID", "-p", sleepers.pids()]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "Quit", "cols": 100, "rows": 30}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    assert!(text(&started).contains("USER"), "{}", text(&started));
    // (A still screen: a wait for an entry of the menu could end on a frame drawn half, the
    // list not moved yet below it; htop redraws only every 10 s here.)
    let menu =
        client.call("terminal_send", json!({"session_id": id, "keys": "<F6>", "stable_ms": 300}));
    let shown = text(&menu);
    let slid = &menu["structuredContent"]["screen"]["slid"];
    let (first, count, by) =
        (slid["first"].as_u64(), slid["count"].as_u64(), slid["columns"].as_i64());
    let (Some(first), Some(count), Some(by)) = (first, count, by) else { panic!("{menu}") };
    assert!(by > 0 && count >= 10, "{menu}");
    let note = format!(
        "rows {first}-{} as then but moved {by} columns to the right, only their columns 0-{} shown",
        first + count - 1,
        by - 1
    );
    assert!(shown.contains(&note), "{shown}");
    assert!(shown.contains("│PERCENT_MEM\n") && shown.contains("Sort by"), "{shown}");
    // The rows that slid show only the panel, not the list again.
    for line in shown.lines().filter_map(|line| line.split_once('│')) {
        let row: u64 = line.0.parse().unwrap();
        if (first..first + count).contains(&row) {
            assert!(!line.1.contains("sleep"), "the list is not sent again: {shown}");
        }
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A dialog drawn over a bordered panel (mc's F7) is sent as the rows it changed, whole: its
/// rows end with the border the panel's rows begin with, which a slide of all but one column
/// would keep, but its box-drawing characters take three bytes a cell, so that slide saves
/// nothing (it was told as `moved 39 columns to the right, only their columns 0-38 shown`).
#[test]
fn a_dialog_over_a_bordered_panel_is_sent_as_whole_rows_not_a_slide() {
    if !common::require("python3") {
        return;
    }
    let script = screens_on_keys(
        "dialog.py",
        "panel = '│ item' + ' ' * 26 + '│ size │'\n\
         box = '│  ├' + '─' * 28 + '┤ │    │'\n\
         bottom = ['└' + '─' * 29 + '┴' + '─' * 6 + '┘'] * 12\n\
         draw(['panel'] + [panel] * 10 + bottom)\n\
         draw(['panel'] + [panel] * 3 + [box] * 4 + [panel] * 3 + bottom)\n",
    );
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", script.to_str().unwrap()]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "panel", "cols": 40, "rows": 24}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let dialog = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
    let shown = text(&dialog);
    assert!(!shown.contains("columns to the right"), "{shown}");
    assert_eq!(dialog["structuredContent"]["screen"]["slid"], Value::Null, "{dialog}");
    let row = format!("│  ├{}┤ │    │", "─".repeat(28));
    for n in 4..8 {
        assert!(shown.contains(&format!("\n{n}│{row}")), "row {n} whole: {shown}");
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// gdb's TUI turning its source window into its assembly (`layout asm`) writes new text
/// between the same borders: a slide of all but one column keeps only the left border, as the
/// right one, and saved the padding before it; it was told as `rows 1-13 as then but moved 79
/// columns to the right, only their columns 0-78 shown`, though no text moved. The rows are
/// sent as changed, whole, below them the command window's rows that stayed are not.
#[test]
fn new_text_between_the_same_borders_is_sent_as_whole_rows_not_a_slide() {
    if !common::require("python3") {
        return;
    }
    let script = screens_on_keys(
        "window.py",
        "boxed = lambda text: '│' + text.ljust(38) + '│'\n\
         source = [boxed(f'  {n}  int x{n} = {n};') for n in range(10)]\n\
         asm = [boxed(f' 0x55{n} <main+{n}>  mov %rsp') for n in range(10)]\n\
         below = [f'(gdb) command {n}' for n in range(12)]\n\
         draw(['window'] + source + below)\n\
         draw(['window'] + asm + below)\n",
    );
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", script.to_str().unwrap()]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "window", "cols": 40, "rows": 24}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let asm = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
    let shown = text(&asm);
    assert!(!shown.contains("columns to the right"), "{shown}");
    assert_eq!(asm["structuredContent"]["screen"]["slid"], Value::Null, "{asm}");
    let row = format!("│{:<38}│", " 0x553 <main+3>  mov %rsp");
    assert!(shown.contains(&format!("\n4│{row}")), "row 4 whole: {shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// gdb's TUI (helper 402's user study): a `next` moves the source window's highlight to the
/// next line, and the two rows it changed were sent whole, 50 blanks before the window's right
/// border each (160-900 bytes a step against 45-190 for plain gdb): they are sent up to their
/// text, `…` standing for the rest as the caller saw it. `tui disable` then gave `(gdb) `
/// alone, as though the TUI's windows were still shown: the screen gdb drew instead is shown
/// whole.
#[test]
fn gdbs_tui_rows_are_sent_without_their_padding_and_its_end_shows_the_screen() {
    if !require("gdb") || !require("gcc") {
        return;
    }
    let dir = temp_dir("tui.c");
    let source = "#include <stdio.h>\n\nint main(void) {\n    int total = 0;\n\
         for (int i = 0; i < 3; i++) {\n        total += i;\n    }\n\
         printf(\"total=%d\\n\", total);\n    return 0;\n}\n";
    assert!(common::build_c(&dir, "tui", source, &["-g", "-O0"]));
    let program = dir.join("tui");
    let mut client = Client::initialized("2025-11-25");
    let gdb = json!({"argv": ["gdb", "-nx", "-q", "-tui", program.to_str().unwrap()],
                     "env": {"DEBUGINFOD_URLS": ""}, "input_wait": true, "cols": 80, "rows": 24});
    let id = client.tool("terminal_start", gdb)["session_id"].clone();
    let call = |client: &mut Client, line: &str| {
        client.call(
            "terminal_send",
            json!({"session_id": id, "text": line, "submit": true, "timeout_ms": 20000}),
        )
    };
    let send = |client: &mut Client, line: &str| text(&call(client, line));
    send(&mut client, "break main");
    let stopped = send(&mut client, "run");
    assert!(stopped.contains("Breakpoint 1, main"), "{stopped}");
    let stepped = call(&mut client, "next");
    assert_eq!(stepped["structuredContent"]["screen"]["rows_cut"], true, "{stepped}");
    let next = text(&stepped);
    assert!(
        next.contains("rows changed") && next.contains("a row ending in … goes on as then"),
        "{next}"
    );
    let row = next.lines().find(|line| line.contains("for (int i = 0; i < 3; i++) {"));
    assert!(row.is_some_and(|row| row.ends_with("{⟧…")), "{next}");
    assert!(!next.lines().any(|line| line.ends_with("        │")), "rows padded: {next}");
    let disabled = send(&mut client, "tui disable");
    assert!(disabled.contains("--- screen 80x24 ---\n(gdb) ▌"), "{disabled}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A program that leaves its full screen and reads keys again is shown the primary screen it
/// drew when that holds only what was read (`alone> `): the lines alone did not say that the
/// full screen was gone. A primary screen with rows from before (`from before`, as vim's at
/// `:!ls`) is read as lines, as before. (The terminal is raw before anything is drawn: a key
/// typed before `tty.setraw`, whose flush drops it, was lost under load.)
#[test]
fn leaving_the_full_screen_shows_the_screen_only_when_it_holds_nothing_from_before() {
    if !require("python3") {
        return;
    }
    let script = temp_file(
        "leaves.py",
        "import sys, tty\n\
         tty.setraw(sys.stdin.fileno())\n\
         def key(): sys.stdin.read(1)\n\
         def out(text): sys.stdout.write(text); sys.stdout.flush()\n\
         out('\\x1b[?1049h\\x1b[H\\x1b[2Jfull screen'); key()\n\
         out('\\x1b[?1049l\\x1b[H\\x1b[2Jalone> '); key()\n\
         out('from before\\r\\n\\x1b[?1049h\\x1b[H\\x1b[2Jfull again'); key()\n\
         out('\\x1b[?1049lback> '); key()\n",
    );
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", script.to_str().unwrap()]);
    let started =
        client.call("terminal_start", json!({"argv": argv, "for_screen_text": "full screen"}));
    let id = started["structuredContent"]["session_id"].clone();
    let key = |client: &mut Client| {
        let sent = client.call("terminal_send", json!({"session_id": id, "keys": "x"}));
        text(&sent)
    };
    let alone = key(&mut client);
    assert!(alone.contains("--- screen 120x32 ---\nalone> ▌"), "{alone}");
    let again = key(&mut client);
    assert!(again.contains("full again"), "{again}");
    let back = key(&mut client);
    assert!(back.contains("back>") && !back.contains("--- screen"), "{back}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A screen's title is named with the whole screen, and with its changes only when it changed
/// since the screen they are counted from: a title a program set once (or left behind when it
/// exited, as mc's) is not repeated in every look.
#[test]
fn the_title_is_named_with_changes_only_when_it_changed() {
    if !common::require("python3") {
        return;
    }
    let script = screens_on_keys(
        "titled.py",
        "rows = lambda row: ['top', row] + ['line %d' % i for i in range(12)]\n\
         draw(rows('first'), 'my title')\n\
         draw(rows('second'), 'my title')\n\
         draw(rows('third'), 'new title')\n",
    );
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["python3", script.to_str().unwrap()]);
    let started = client.call("terminal_start", json!({"argv": argv, "for_screen_text": "first"}));
    assert!(text(&started).contains("title \"my title\""), "{}", text(&started));
    let id = started["structuredContent"]["session_id"].clone();
    let same = client
        .call("terminal_send", json!({"session_id": id, "keys": "x", "for_screen_text": "second"}));
    let shown = text(&same);
    assert!(shown.contains("rows changed since") && !shown.contains("title"), "{shown}");
    assert_eq!(same["structuredContent"]["screen"]["title"], "my title", "{same}");
    let renamed = client
        .call("terminal_send", json!({"session_id": id, "keys": "x", "for_screen_text": "third"}));
    let shown = text(&renamed);
    assert!(
        shown.contains("rows changed since") && shown.contains("title \"new title\""),
        "{shown}"
    );
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// Text scrolled sideways (`less -S` and the right arrow) slides its rows to the left: they
/// are sent as the columns that came into view.
#[test]
fn text_scrolled_sideways_is_sent_as_the_columns_that_came_into_view() {
    if !common::require("less") {
        return;
    }
    // Lines with no repeating pattern, so only the real shift keeps their text.
    let line = |n: usize| {
        let words: String = (0..40).map(|i| format!("w{n:02}{i:02} ")).collect();
        format!("{n:03}: {words}")
    };
    let lines: String = (1..=60).map(|n| line(n) + "\n").collect();
    let file = temp_file("wide.txt", &lines);
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["less", "-S", file.to_str().unwrap()]);
    let started = client
        .call("terminal_start", json!({"argv": argv, "input_wait": true, "cols": 80, "rows": 24}));
    let id = started["structuredContent"]["session_id"].clone();
    assert!(text(&started).contains(&line(1)[..79]), "{}", text(&started));
    let right = client.call("terminal_send", json!({"session_id": id, "keys": "<Right>"}));
    let shown = text(&right);
    let slid = &right["structuredContent"]["screen"]["slid"];
    let by = slid["columns"].as_i64().unwrap_or_else(|| panic!("{right}"));
    assert!(by < 0 && slid["count"].as_u64() >= Some(20), "{right}");
    // The last column holds less's `>` (the line goes on) before and after: a margin.
    let columns = by.unsigned_abs() as usize;
    let note = format!(
        "as then but their columns 0-78 moved {columns} columns to the left, only their columns {}-78 shown",
        79 - columns
    );
    assert!(shown.contains(&note), "{shown}");
    // Row 0 holds the first line from column `columns` on: its columns up to the margin that
    // were past the screen's edge are new.
    let new = &line(1)[79..79 + columns];
    assert!(shown.contains(&format!("0│{}", new.trim_end())), "{shown}");
    assert!(!shown.contains(&line(1)[columns..79]), "kept columns are not sent again: {shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// Text scrolled sideways beside a margin that stays (vim's line numbers, `zl`) slides only
/// the span right of the margin.
#[test]
fn text_scrolled_beside_line_numbers_slides_right_of_them() {
    if !common::require("vim") {
        return;
    }
    let lines: String = (1..=40)
        .map(|n| (0..30).map(|i| format!("t{n:02}{i:02}")).collect::<Vec<_>>().join(" ") + "\n")
        .collect();
    let file = temp_file("numbered.txt", &lines);
    let mut client = Client::initialized("2025-11-25");
    let vim = [
        "vim",
        "-u",
        "NONE",
        "-N",
        "-n",
        "-i",
        "NONE",
        "-c",
        "set nowrap number",
        file.to_str().unwrap(),
    ];
    let started = client
        .call("terminal_start", json!({"argv": vim, "input_wait": true, "cols": 80, "rows": 24}));
    let id = started["structuredContent"]["session_id"].clone();
    assert!(text(&started).contains("  1 t0100 t0101"), "{}", text(&started));
    let scrolled = client.call("terminal_send", json!({"session_id": id, "keys": "20zl"}));
    let shown = text(&scrolled);
    let slid = &scrolled["structuredContent"]["screen"]["slid"];
    // The number column (4 cells) stays; the text right of it moved 20 columns left.
    assert_eq!(slid["columns"], -20, "{scrolled}");
    assert_eq!(slid["from_col"], 4, "{scrolled}");
    assert!(
        shown.contains(
            "their columns 4-79 moved 20 columns to the left, only their columns 60-79 shown"
        ),
        "{shown}"
    );
    assert!(!shown.contains("t0105"), "the kept text is not sent again: {shown}");
    client.call("terminal_send", json!({"session_id": id, "keys": ":q!<Enter>"}));
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A dialog's colour scheme has too many coloured runs to mark them all; its selected entry
/// (a background few of its cells have) is marked, and moves with the selection.
#[test]
fn a_dialogs_selected_entry_is_marked_among_its_colours() {
    if !common::require("whiptail") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!([
        "whiptail",
        "--menu",
        "Pick a fruit",
        "14",
        "40",
        "4",
        "apple",
        "red, crisp",
        "banana",
        "yellow",
        "cherry",
        "small"
    ]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "<Cancel>", "cols": 80, "rows": 24}),
    );
    let shown = text(&started);
    assert!(shown.contains("⟦apple") && !shown.contains("⟦banana"), "{shown}");
    let id = started["structuredContent"]["session_id"].clone();
    let moved = client.call("terminal_send", json!({"session_id": id, "keys": "<Down>"}));
    let shown = text(&moved);
    assert!(shown.contains("⟦banana") && !shown.contains("⟦apple"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A small dialog on a large screen is marked whole (its colour is not the screen's), and
/// its focused button is marked again inside it: a Tab that moves the focus changes its row.
/// Merged with the dialog's mark, the buttons read the same and the Tab as no change.
#[test]
fn a_focused_button_is_marked_inside_a_marked_dialog() {
    if !common::require("whiptail") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["whiptail", "--yesno", "Proceed with install?", "8", "40"]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "<No>", "cols": 120, "rows": 32}),
    );
    let shown = text(&started);
    assert!(shown.contains("⟦<Yes>⟧") && !shown.contains("⟦<No>"), "{shown}");
    let id = started["structuredContent"]["session_id"].clone();
    let moved = client.call("terminal_send", json!({"session_id": id, "keys": "<Tab>"}));
    let shown = text(&moved);
    assert!(shown.contains("⟦<No>⟧") && !shown.contains("⟦<Yes>"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// whiptail's entry field is wider than the box's border beside it on its row (`│ ____ │`):
/// taken by its cells for the row's look, the field made the border stand out inside the
/// row and the row stand out of the box's column, marks three deep (`⟦⟦⟦│ ⟧____⟦ │⟧⟧⟧`). The
/// row is the box's, the field marked once inside it, and typing changes it there.
#[test]
fn a_dialogs_entry_field_is_marked_once_inside_its_box() {
    if !common::require("whiptail") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["whiptail", "--passwordbox", "Password", "10", "40"]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "<Cancel>", "cols": 80, "rows": 24}),
    );
    let shown = text(&started);
    assert!(shown.contains("⟦│ ⟦____") && !shown.contains("⟦⟦"), "{shown}");
    let id = started["structuredContent"]["session_id"].clone();
    let typed = client.call("terminal_send", json!({"session_id": id, "text": "abc"}));
    let shown = text(&typed);
    assert!(shown.contains("⟦│ ⟦***___") && !shown.contains("⟦⟦"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// fzf draws a gutter in its selection's background beside every entry, and tig a line
/// between its views: each row's blank or `│` was marked (`⟦ ⟧ grape`), and beside a list
/// taller than the highlights' number nothing at all, the selected entry neither. Runs drawn
/// alike down a column are left unmarked; the selected entry is marked, and follows `<Up>`.
#[test]
fn fzfs_selected_entry_is_marked_and_its_gutter_is_not() {
    if !common::require("fzf") || !common::require("sh") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    // fzf draws its frame, then, some 20 ms later, once more its cursor (nothing seen
    // changes), in between looking as if it waited for keys (its reader blocked on the
    // terminal, its other threads on short timers): on a loaded machine a wait for input
    // (the start's default one, or one asked for) ended in that gap, and the status taken
    // after it, seeing the cursor's output, said "sh running". Its list is waited for, then
    // its silence.
    let started = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", "seq 40 | fzf"], "cols": 40, "rows": 30,
               "for_screen_text": "40/40"}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let ready =
        client.call("terminal_read", json!({"session_id": id, "quiet_ms": 500, "view": "screen"}));
    let shown = text(&ready);
    assert!(shown.contains("fzf waiting for keys"), "{shown}");
    assert!(shown.contains("⟦> 1⟧") && !shown.contains("⟦ ⟧"), "{shown}");
    let moved = client.call("terminal_send", json!({"session_id": id, "keys": "<Up>"}));
    let shown = text(&moved);
    assert!(shown.contains("⟦> 2⟧") && !shown.contains("⟦ ⟧"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// vifm's title and status bars, across their rows, and less's `(END)`, the cursor after it,
/// were marked (`⟦ /tmp/…⟧`, `⟦(END)⟧`), 6 bytes each time their row was sent, telling
/// nothing. They are not; vifm's selected entry still is, and moves with `j`.
#[test]
fn bars_and_a_pagers_prompt_are_not_marked_and_a_selection_is() {
    if !common::require("vifm") || !common::require("less") {
        return;
    }
    let dir = temp_dir("bars");
    for name in ["apple.txt", "banana.txt"] {
        std::fs::write(dir.join(name), "x\n").unwrap();
    }
    let path = dir.display().to_string();
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["vifm", path, path]);
    let env = json!({"HOME": path});
    let started =
        client.call("terminal_start", json!({"argv": argv, "env": env, "cols": 80, "rows": 24}));
    let shown = text(&started);
    let id = started["structuredContent"]["session_id"].clone();
    assert!(shown.contains("vifm waiting for keys"), "{shown}");
    let title = shown.lines().nth(2).unwrap_or_default();
    assert!(title.starts_with(" ~") && !title.contains('⟦'), "{shown}");
    assert!(shown.contains("⟦ ../") && !shown.contains("⟦ apple"), "{shown}");
    let moved = text(&client.call("terminal_send", json!({"session_id": id, "keys": "j"})));
    assert!(moved.contains("⟦ apple.txt") && !moved.contains("⟦ ../"), "{moved}");
    let status = moved.lines().find(|row| row.starts_with("22│"));
    assert!(status.is_some_and(|row| row.contains("Hint") && !row.contains('⟦')), "{moved}");
    client.tool("terminal_close", json!({"session_id": id}));
    let started = client.call(
        "terminal_start",
        json!({"argv": ["less", dir.join("apple.txt")], "for_screen_text": "(END)"}),
    );
    let shown = text(&started);
    assert!(shown.ends_with("apple.txt (END)▌") && !shown.contains('⟦'), "{shown}");
    let id = started["structuredContent"]["session_id"].clone();
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// `htop -C` shows its column header and its selected process inverse, across their rows:
/// the selection was taken for a bar sharing the header's look and left unmarked, and
/// `<Down>` came back as unchanged. It is marked, and moves.
#[test]
fn a_monochrome_lists_selection_across_its_row_is_marked() {
    if !common::require("htop") {
        return;
    }
    let sleepers = Sleepers::start(6);
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["htop", "-C", "-d", "100", "-s", "PID", "-p", sleepers.pids()]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "Quit", "cols": 100, "rows": 30}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let shown = text(&started);
    let selected = |shown: &str| {
        shown.lines().filter(|row| row.contains("sleep") && row.contains('⟦')).count()
    };
    assert_eq!(selected(&shown), 1, "{shown}");
    let moved =
        client.call("terminal_send", json!({"session_id": id, "keys": "<Down>", "stable_ms": 300}));
    let moved = text(&moved);
    assert!(!moved.contains("unchanged"), "{moved}");
    assert!(moved.contains("rows changed since your last look"), "{moved}");
    assert_eq!(selected(&moved), 1, "{moved}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// nano's selection from `<M-a>` to `<End>` ends at the cursor, at its line's end: its row
/// was taken for a prompt's and the selection shown unmarked. It is marked.
#[test]
fn a_selection_ending_at_the_cursor_is_marked() {
    if !common::require("nano") {
        return;
    }
    let dir = temp_dir("nano-selection");
    let file = dir.join("hello.txt");
    std::fs::write(&file, "hello world\n").unwrap();
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["nano", "--ignorercfiles", file]);
    let started = client.call(
        "terminal_start",
        json!({"argv": argv, "for_screen_text": "Help", "cols": 80, "rows": 24}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let marked = client.call("terminal_send", json!({"session_id": id, "keys": "<M-a>"}));
    assert!(text(&marked).contains("Mark Set"), "{}", text(&marked));
    let selected = client.call("terminal_send", json!({"session_id": id, "keys": "<End>"}));
    let shown = text(&selected);
    assert!(shown.contains("⟦hello world⟧"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// `top` redraws its frame on the primary screen from the top-left: each key's result read
/// the frame again whole as lines (about 2 KB at 100x24, the summary and the column heads
/// unchanged). It is shown as a full-screen program's screen, its changed rows after a key:
/// its prompt's row after `k`, the rows the redraw after `<Esc>` changed. A shell's `clear`
/// (the cursor shown) is still read as lines, and so is the shell once top has left.
#[test]
fn tops_frame_after_a_key_is_sent_as_the_rows_that_changed() {
    for program in ["top", "sleep", "bash"] {
        if !require(program) {
            return;
        }
    }
    // Processes whose rows stay the same: sleeping, no CPU time.
    let mut sleepers: Vec<std::process::Child> =
        (0..10).map(|_| std::process::Command::new("sleep").arg("600").spawn().unwrap()).collect();
    let pids: Vec<String> = sleepers.iter().map(|child| child.id().to_string()).collect();
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let mut send = |arguments: Value| client.send_to(&id, arguments);
    let cleared = send(json!({"text": "clear; echo cleared", "submit": true}));
    assert!(cleared.contains("cleared") && !cleared.contains("--- screen"), "{cleared}");
    let line = format!("top -d 5 -p {}", pids.join(","));
    let frame = send(json!({"text": line, "submit": true}));
    assert!(frame.contains("--- screen 120x32, cursor hidden ---"), "{frame}");
    assert!(frame.contains("Tasks:") && frame.contains("PID USER"), "{frame}");
    let asked = send(json!({"keys": "k"}));
    assert!(asked.contains("rows changed since your last look"), "{asked}");
    assert!(asked.contains("│PID to signal/kill") && asked.len() < 400, "{asked}");
    let redrawn = send(json!({"keys": "<Esc>"}));
    assert!(redrawn.contains("rows changed since your last look"), "{redrawn}");
    assert!(!redrawn.contains("Tasks:") && !redrawn.contains("PID USER"), "{redrawn}");
    let back = send(json!({"keys": "q"}));
    assert!(back.ends_with("$ ") && !back.contains("--- screen"), "{back}");
    let echoed = send(json!({"text": "echo hi", "submit": true}));
    assert!(echoed.ends_with("]\necho hi\nhi\n$ "), "{echoed}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
    for sleeper in &mut sleepers {
        let _ = sleeper.kill();
        let _ = sleeper.wait();
    }
}

/// A command that hid the cursor only while it cleared the screen (`tput civis; clear;
/// tput cnorm`) was taken for one drawing frames, and the flag stuck: every later command's
/// output was the whole screen (`--- screen 120x32 ---`). Frames end with the command (its
/// end mark), so the next command reads as lines.
#[test]
fn a_clear_with_the_cursor_hidden_leaves_no_frames_behind() {
    for program in ["bash", "tput", "python3"] {
        if !require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let mut send = |arguments: Value| client.send_to(&id, arguments);
    let line = "echo one; tput civis; clear; tput cnorm; echo two";
    let cleared = send(json!({"text": line, "submit": true}));
    assert!(cleared.contains("two"), "{cleared}");
    let counted = send(json!({"text": "seq 3", "submit": true}));
    assert!(counted.contains("1\n2\n3\n") && !counted.contains("--- screen"), "{counted}");
    // A REPL (no shell's marks) that hides the cursor while it clears, then answers.
    send(json!({"text": "python3 -q", "submit": true, "for_screen_text": ">>> "}));
    let redraw = r#"print("\x1b[?25l\x1b[H\x1b[2J\x1b[?25h", end="")"#;
    send(json!({"text": redraw, "submit": true}));
    let answered = send(json!({"text": "print(6 * 7)", "submit": true}));
    assert!(answered.contains("42\n>>> ") && !answered.contains("--- screen"), "{answered}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// In a shell without OSC 133 marks, a program that left the cursor hidden (`printf
/// '\e[?25l'`, a killed `top`) made the next `clear` start frames, and they stuck: the
/// shell's later output was the whole screen (`--- screen 80x24, cursor hidden ---`). Frames
/// end when another group than the one that drew them reads: the shell, back at its prompt.
#[test]
fn frames_end_when_the_program_that_drew_them_leaves_the_foreground() {
    for program in ["bash", "sh", "clear", "head"] {
        if !require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_sized(80, 24);
    let mut send = |arguments: Value| client.send_to(&id, arguments);
    // (`\\e`: the text's own escapes would type an Escape.)
    send(json!({"text": "printf '\\\\e[?25l'", "submit": true}));
    // The clear read while its program still has the foreground (head waits for a line).
    let cleared = send(json!({"text": "sh -c 'clear; head -n 1'", "submit": true}));
    assert!(cleared.contains("--- screen 80x24, cursor hidden ---"), "{cleared}");
    send(json!({"text": "x", "submit": true}));
    let echoed = send(json!({"text": "echo one; echo two", "submit": true}));
    assert!(echoed.contains("one\ntwo\n") && !echoed.contains("--- screen"), "{echoed}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A clear drawn by an interactive shell itself (its builtin `printf` writes `clear`'s bytes
/// with the cursor hidden; a `clear` typed at the prompt is read so, once the shell has the
/// terminal back): the frames it starts are the shell's own, and they stuck (`echo one`
/// answered `--- screen 60x12, cursor hidden ---`, 9 of 9 runs of `clear`). The shell back at
/// its prompt, a shell doing job control, ends them.
#[test]
fn a_clear_typed_at_the_prompt_with_the_cursor_hidden_draws_no_lasting_frames() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_sized(60, 12);
    let mut send = |arguments: Value| client.send_to(&id, arguments);
    // (`\\e`: the text's own escapes would type an Escape.)
    send(json!({"text": "printf '\\\\e[?25l\\\\e[H\\\\e[2J'", "submit": true}));
    let echoed = send(json!({"text": "echo one; echo two", "submit": true}));
    assert!(echoed.contains("one\ntwo\n") && !echoed.contains("--- screen"), "{echoed}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A shell script drawing a menu reads its keys itself (`read -rsn1`), in the one process
/// group that draws: frames that ended whenever the session's shell was found reading read
/// every key's answer as lines (`[from a line you saw, since redrawn]`, part of the list).
/// Only another group reading ends frames: the menu stays a screen.
#[test]
fn a_menu_a_shell_script_draws_and_reads_keys_for_stays_a_screen() {
    for program in ["bash", "tput"] {
        if !require(program) {
            return;
        }
    }
    let script = temp_dir("bash-menu").join("menu.sh");
    std::fs::write(
        &script,
        r#"tput civis; clear; sel=0
while :; do
  tput cup 0 0
  for i in 0 1 2; do
    if [ $i = $sel ]; then printf '> item %s\n' $i; else printf '  item %s\n' $i; fi
  done
  read -rsn1 k
  case $k in j) sel=$(( (sel + 1) % 3 ));; q) break;; esac
done
tput cnorm
"#,
    )
    .unwrap();
    let mut client = Client::initialized("2025-11-25");
    let started = client.call(
        "terminal_start",
        json!({"argv": ["bash", "--norc", "--noprofile", script], "cols": 40, "rows": 8}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    for selected in ["> item 1", "> item 2", "> item 0"] {
        let answer = text(&client.call("terminal_send", json!({"session_id": id, "keys": "j"})));
        assert!(answer.contains("--- screen 40x8, cursor hidden"), "{selected}: {answer}");
        assert!(answer.contains(selected), "{selected}: {answer}");
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// An interactive bash gives each external command of a loop its own process group: a loop
/// typed at it that redraws the screen from the top with the cursor hidden changes the
/// terminal's foreground group several times a frame, and frames that ended on a change of
/// group read it as lines (`[from a line you saw, since redrawn]`). Only another group found
/// reading, or the shell back at its prompt, ends frames: the loop, which reads nothing, is a
/// screen, and after Ctrl-C, the cursor still hidden, the shell's output is lines (whichever
/// group held the terminal when the frames' output was read).
#[test]
fn a_redraw_loop_typed_at_an_interactive_shell_is_a_screen() {
    for program in ["bash", "tput", "date", "ps", "sleep"] {
        if !require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_sized(60, 12);
    let mut send = |arguments: Value| client.send_to(&id, arguments);
    let line = "clear; tput civis; while :; do tput cup 0 0; date +%N; ps -o pgid=,comm=; \
                sleep 0.3; done";
    let drawn = send(json!({"text": line, "submit": true}));
    assert!(drawn.contains("--- screen 60x12, cursor hidden ---"), "{drawn}");
    // A Ctrl-C that comes as one of the loop's commands exits, its group gone before bash
    // takes the terminal back, reaches no process and the loop goes on (a CI run saw it): a
    // person presses it again.
    let stopped = (0..5).any(|_| send(json!({"keys": "<C-c>"})).contains("[bash waiting"));
    assert!(stopped, "the loop went on after five Ctrl-C");
    let echoed = send(json!({"text": "echo one; echo two", "submit": true}));
    assert!(echoed.contains("one\ntwo\n") && !echoed.contains("--- screen"), "{echoed}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A curses menu that draws its entries in order and leaves the cursor after the last one
/// drawn: its last entry selected, on the screen's last rows, the cursor after it, was taken
/// for a prompt (less's `(END)`) and shown unmarked, so the selection vanished (`<Down>` to
/// `Cherry` read `  Cherry▌`). A prompt's run starts in its row's first column; an indented
/// entry stays marked.
#[test]
fn a_menus_last_entry_selected_with_the_cursor_after_it_stays_marked() {
    if !require("python3") {
        return;
    }
    let script = temp_dir("curses-menu").join("menu.py");
    std::fs::write(
        &script,
        r#"import curses
def main(w):
    items, sel = ["Apple", "Banana", "Cherry"], 0
    while True:
        w.erase()
        w.addstr(0, 0, "Pick a fruit:")
        for i, item in enumerate(items):
            w.addstr(2 + i, 2, item, curses.A_REVERSE if i == sel else 0)
        w.refresh()
        key = w.getch()
        if key == curses.KEY_DOWN:
            sel = min(sel + 1, len(items) - 1)
        elif key in (10, 13):
            return
curses.wrapper(main)
"#,
    )
    .unwrap();
    let mut client = Client::initialized("2025-11-25");
    let started =
        client.call("terminal_start", json!({"argv": ["python3", script], "cols": 60, "rows": 5}));
    let id = started["structuredContent"]["session_id"].clone();
    let shown = text(&started);
    assert!(shown.contains("⟦Apple⟧") && shown.contains("  Cherry▌"), "{shown}");
    client.call("terminal_send", json!({"session_id": id, "keys": "<Down>"}));
    let last = client.call("terminal_send", json!({"session_id": id, "keys": "<Down>"}));
    let shown = text(&last);
    assert!(shown.contains("  ⟦Cherry⟧▌") && !shown.contains("⟦Banana"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A bash without start files on an 80x24 terminal, `line` (a dialog) submitted in it, once
/// dialog waits for keys: the session's id and the result's text.
fn dialog_in_bash(client: &mut Client, line: &str) -> (Value, String) {
    let id = client.bash_sized(80, 24);
    let menu =
        client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true}));
    let shown = text(&menu);
    assert!(shown.contains("dialog waiting for keys"), "{shown}");
    (id, shown)
}

/// dialog leaves the alternate screen out (its boxes stay on the shell's screen), paints the
/// screen blue, and shows its selected entry and focused button blue on white. Its rows were
/// read as transcript lines, with no mark: a `<Down>` read "unchanged since your last look"
/// (in view=screen too: the entry had the screen's own colour). A curses program's painted
/// primary screen is shown as a screen, the entry marked, and moving it changes its rows;
/// once it ended (keys out of application mode), the shell's lines read as before. The
/// command line it painted over is not named among lines not on the screen (the caller typed
/// it), nor is its box's bottom row, moved into the transcript when a close ends it, read as
/// unread output.
#[test]
fn dialogs_menu_on_the_primary_screen_marks_its_selected_entry() {
    if !common::require("dialog") || !common::require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let line = "dialog --menu 'Pick one' 15 40 4 1 Apple 2 Banana 3 Cherry; echo rc=$?";
    let (id, shown) = dialog_in_bash(&mut client, line);
    assert!(shown.contains("--- screen 80x24"), "{shown}");
    assert!(shown.contains("⟦Apple⟧") && !shown.contains("⟦Banana"), "{shown}");
    assert!(!shown.contains("not on this screen"), "{shown}");
    // (The default wait: until dialog reads keys again, having redrawn.)
    let moved = client.call("terminal_send", json!({"session_id": id, "keys": "<Down>"}));
    let shown = text(&moved);
    assert!(shown.contains("⟦Banana⟧") && !shown.contains("⟦Apple"), "{shown}");
    assert!(!shown.contains("unchanged"), "{shown}");
    let ended = client
        .call("terminal_send", json!({"session_id": id, "keys": "<Enter>", "for_text": "rc="}));
    let shown = text(&ended);
    assert!(shown.contains("rc=0") && !shown.contains("--- screen"), "{shown}");
    // (Typed before bash drew its prompt, the line would be echoed twice: once typed ahead,
    // once redrawn after the prompt.)
    client.call("terminal_read", json!({"session_id": id, "input_wait": true}));
    let line = "dialog --yesno 'Go on?' 6 20";
    let asked =
        client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true}));
    let shown = text(&asked);
    assert!(shown.contains("Go on?") && !shown.contains("not on this screen"), "{shown}");
    let closed = text(&client.call("terminal_close", json!({"session_id": id})));
    assert!(closed.starts_with("[closed") && !closed.contains("unread output"), "{closed}");
    client.finish();
}

/// `top` draws its frame on the primary screen in place: the lines a start read are its
/// screen's rows. Read with a small `max_bytes`, its screen was cut and its lines were named
/// "new output not on this screen" (`lines 0-23`), though nothing scrolled off it: the read's
/// cut start was counted as off the screen. They are named as on the cut screen, with the way
/// to read them.
#[test]
fn a_frame_cut_by_max_bytes_is_not_named_as_output_off_the_screen() {
    if !common::require("top") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!({"argv": ["top", "-d", "60"], "cols": 80, "rows": 24, "max_bytes": 500});
    let started = client.call("terminal_start", argv);
    let shown = text(&started);
    let id = started["structuredContent"]["session_id"].clone();
    assert!(
        shown.contains("top waiting for keys") && shown.contains("of the screen left out"),
        "{shown}"
    );
    assert!(!shown.contains("not on this screen"), "{shown}");
    assert!(shown.contains("[this screen was cut: new output lines 0-"), "{shown}");
    assert!(shown.contains(&format!("terminal_read session_id={id} lines=\"0-")), "{shown}");
    let structured = &started["structuredContent"];
    assert!(structured.get("lines_not_on_screen").is_none(), "{structured}");
    assert_eq!(structured["cut_screen_lines"][0], 0, "{structured}");
    client.call("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// dialog paints over the command line that started it. Read with a `max_bytes` that cuts the
/// read's start, the lines the cut left out were put back to compare with the screen without
/// the mark that the read began with the echo: the typed line was named "new output not on
/// this screen" (`lines_not_on_screen: [0, 0]`), and the screen's lines as 1-18, not 5-18 as
/// with a budget that did not cut the read's start. Both budgets name the same lines. So with
/// `top` started after `seq 50`: its command line was named.
#[test]
fn a_dialog_cut_by_max_bytes_does_not_name_the_line_typed() {
    if !common::require("dialog") || !common::require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let line = "dialog --menu 'Pick one' 15 40 4 1 Apple 2 Banana 3 Cherry; echo rc=$?";
    let mut named = Vec::new();
    for max_bytes in [400, 1500] {
        let id = client.bash_sized(80, 24);
        let sent = json!({"session_id": id, "text": line, "submit": true, "max_bytes": max_bytes});
        let menu = client.call("terminal_send", sent);
        let shown = text(&menu);
        assert!(shown.contains("dialog waiting for keys"), "{shown}");
        assert!(shown.contains("[this screen was cut: new output lines "), "{shown}");
        assert!(!shown.contains("not on this screen"), "{shown}");
        let structured = &menu["structuredContent"];
        assert!(structured.get("lines_not_on_screen").is_none(), "{structured}");
        named.push(structured["cut_screen_lines"].clone());
        client.call("terminal_close", json!({"session_id": id}));
    }
    assert!(named[0].is_array() && named[0] == named[1], "{named:?}");
    // `top` after lines that scrolled: its prompt line was named (`lines_not_on_screen`).
    if common::require("top") {
        let id = client.bash_sized(80, 24);
        let counted = client.send_to(&id, json!({"text": "seq 50", "submit": true}));
        assert!(counted.contains("\n50\n"), "{counted}");
        let sent = json!({"session_id": id, "text": "top -d 60", "submit": true, "max_bytes": 800});
        let top = client.call("terminal_send", sent);
        let shown = text(&top);
        assert!(shown.contains("top waiting for keys"), "{shown}");
        assert!(!shown.contains("not on this screen"), "{shown}");
        let structured = &top["structuredContent"];
        assert!(structured.get("lines_not_on_screen").is_none(), "{structured}");
        client.call("terminal_close", json!({"session_id": id}));
    }
    client.finish();
}

/// A read that `max_bytes` cuts, leaving out more lines than the screen has rows, of a
/// command line that prints lines then paints a curses program's screen over the primary one
/// (`seq 100; dialog`): the lines put back to compare with the screen are the screen's rows
/// alone, and the echo of the line typed, among those still left out, was named "new output
/// not on this screen" (`lines_not_on_screen` began with the typed line). The lines named
/// begin after it, at `seq`'s first.
#[test]
fn a_cut_read_leaving_out_more_lines_than_rows_does_not_name_the_line_typed() {
    if !common::require("dialog") || !common::require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_sized(80, 24);
    let line = "seq 100; dialog --msgbox 'Read on?' 6 30";
    let sent = json!({"session_id": id, "text": line, "submit": true, "max_bytes": 600});
    let shown = client.call("terminal_send", sent);
    let said = text(&shown);
    assert!(said.contains("dialog waiting for keys"), "{said}");
    let structured = &shown["structuredContent"];
    let first = structured["lines_not_on_screen"][0].as_u64();
    let first = first.unwrap_or_else(|| panic!("no lines named: {structured}"));
    let named = client.call("terminal_read", json!({"session_id": id, "lines": first.to_string()}));
    let named = text(&named);
    let row = named.lines().last().unwrap_or_default();
    assert_eq!(row, format!("{first}│1"), "the first line named is seq's first: {named}");
    client.call("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A line typed in one call and submitted in a later one (`keys: "<Enter>"`, or `text: ""`
/// with `submit`) that prints, then paints a curses program's screen over the primary one:
/// the later call's echo is the empty string, and the read, starting with the typed line's
/// empty rest, was taken to begin with that echo after the rest was left out, so the first
/// line of real output was skipped as "the echo" (`echo IMPORTANT-ERROR; dialog` named no
/// line not on the screen; `seq 100; dialog` cut by `max_bytes=600` named seq's second line
/// first). The lines named begin at the output's first, cut or not.
#[test]
fn a_line_submitted_in_a_later_call_names_its_first_line_of_output() {
    if !common::require("dialog") || !common::require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let cases = [
        ("echo IMPORTANT-ERROR; dialog --msgbox 'Read on?' 6 30", None, "IMPORTANT-ERROR"),
        ("seq 100; dialog --msgbox 'Read on?' 6 30", Some(600), "1"),
    ];
    let submits = [json!({"keys": "<Enter>"}), json!({"text": "", "submit": true})];
    for (line, max_bytes, output) in cases {
        for submit in &submits {
            let id = client.bash_sized(80, 24);
            client.send_to(&id, json!({"text": line}));
            let mut sent = submit.clone();
            sent["session_id"] = id.clone();
            if let Some(max_bytes) = max_bytes {
                sent["max_bytes"] = json!(max_bytes);
            }
            let shown = client.call("terminal_send", sent);
            let said = text(&shown);
            assert!(said.contains("dialog waiting for keys"), "{said}");
            let structured = &shown["structuredContent"];
            let first = structured["lines_not_on_screen"][0].as_u64();
            let first = first.unwrap_or_else(|| panic!("{line} {submit}: none named: {said}"));
            let lines = first.to_string();
            let named = client.call("terminal_read", json!({"session_id": id, "lines": lines}));
            let named = text(&named);
            let row = named.lines().last().unwrap_or_default();
            assert_eq!(row, format!("{first}│{output}"), "{line} {submit}: {named}");
            let note = format!("terminal_read session_id={id} lines=\"{first}-");
            assert!(said.contains(&note), "{line} {submit}: {said}");
            client.call("terminal_close", json!({"session_id": id}));
        }
    }
    client.finish();
}

/// A line typed at a prompt that starts a program on the alternate screen (vim, less, htop, a
/// curses script) is read by the call that typed it, in the default view, with the screen the
/// program drew; after a look at the screen alone (`view="screen"`) it is unread when the
/// program returns. The result of the key that ended the program began with the line the
/// caller had typed, in a call that typed no such line (`less /etc/services`, then `$ `,
/// after `q`): it is not read again, and the echo left unread by the look at the screen is
/// left out. What the program printed on the primary screen as it ended (`done`) is still
/// shown, a line typed next reads as usual, and a pager that left its page on the primary
/// screen (`less -X`) had its line read at once.
#[test]
fn the_echo_of_a_line_that_started_a_full_screen_program_is_not_read_when_it_returns() {
    for program in ["bash", "vim", "less", "htop", "python3"] {
        if !common::require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let notes: String = (1..=60).map(|n| format!("note {n}\n")).collect();
    let file = temp_file("notes.txt", &notes);
    let file = file.display();
    let curses =
        r#"python3 -c 'import curses; curses.wrapper(lambda w: w.getch()); print("done")'"#;
    let runs = [
        (format!("vim -u NONE -N -n -i NONE {file}"), "new", ":q<Enter>", ""),
        (format!("less {file}"), "new", "q", ""),
        (format!("less {file}"), "screen", "q", ""),
        ("htop".to_owned(), "new", "q", ""),
        (curses.to_owned(), "new", "x", "done\n"),
    ];
    for (line, view, quit, printed) in runs {
        let typed = json!({"session_id": id, "text": line, "submit": true, "view": view});
        let shown = text(&client.call("terminal_send", typed));
        assert!(shown.contains("waiting for keys") && shown.contains("--- screen"), "{shown}");
        if view == "new" {
            assert!(shown.contains(&format!("]\n{line}\n")), "{line}: {shown}");
        }
        let back = text(&client.call("terminal_send", json!({"session_id": id, "keys": quit})));
        assert!(back.ends_with(&format!("]\n{printed}$ ")), "{line}: {back}");
    }
    let line = format!("less -X {file}");
    let page = text(
        &client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true})),
    );
    assert!(page.contains(&format!("{line}\nnote 1\n")), "{page}");
    let back = text(&client.call("terminal_send", json!({"session_id": id, "keys": "q"})));
    assert!(!back.contains("less") && back.ends_with("$ "), "{back}");
    let echoed = text(
        &client.call("terminal_send", json!({"session_id": id, "text": "echo hi", "submit": true})),
    );
    assert!(echoed.ends_with("]\necho hi\nhi\n$ "), "{echoed}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// What a line typed at a prompt printed just before the program it started took the
/// alternate screen (`echo one; echo two; vim`) comes with that program's screen: the call
/// showed vim's screen alone, and `one` and `two` came with the result of the key that ended
/// vim. They are not shown again then.
#[test]
fn lines_printed_just_before_a_full_screen_program_come_with_its_screen() {
    if !common::require("bash") || !common::require("vim") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let line = "echo one; echo two; vim -u NONE -N -n -i NONE";
    let shown = client.send_to(&id, json!({"text": line, "submit": true}));
    assert!(shown.contains("vim waiting for keys"), "{shown}");
    assert!(shown.contains(&format!("]\n{line}\none\ntwo\n--- screen")), "{shown}");
    let back = client.send_to(&id, json!({"keys": ":q<Enter>"}));
    assert!(back.ends_with("]\n$ ") && !back.contains("one"), "{back}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// dialog's box wider than half the screen (`dpkg-reconfigure tzdata`'s, 76 columns in 80):
/// its white is then the colour most cells have, the screen's blue only about its edges. Its
/// selected entry and focused button were not marked, and `<Down>` and `<Tab>` read
/// "unchanged since your last look": every row of the box was taken for a highlight, or
/// (72 columns) the blue beside every row.
#[test]
fn a_dialog_wider_than_half_the_screen_marks_its_selected_entry() {
    if !common::require("dialog") || !common::require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let line = "dialog --backtitle Setup --menu 'Geographic area:' 20 76 9 1 Africa 2 Asia 3 Europe; echo rc=$?";
    let (id, shown) = dialog_in_bash(&mut client, line);
    assert!(shown.contains("⟦Africa⟧") && !shown.contains("⟦Asia"), "{shown}");
    assert!(shown.contains("⟦<  OK  >⟧"), "{shown}");
    let moved = client.call("terminal_send", json!({"session_id": id, "keys": "<Down>"}));
    let shown = text(&moved);
    assert!(shown.contains("⟦Asia⟧") && !shown.contains("⟦Africa"), "{shown}");
    assert!(!shown.contains("unchanged"), "{shown}");
    let tabbed = client.call("terminal_send", json!({"session_id": id, "keys": "<Tab>"}));
    let shown = text(&tabbed);
    assert!(shown.contains("⟦<Cancel>⟧") && !shown.contains("unchanged"), "{shown}");
    // 72 columns: three of the screen's blue beside the box on each row.
    let line =
        "dialog --backtitle Setup --menu 'Time zone:' 20 72 9 1 Alaska 2 Arizona; echo rc=$?";
    let sent = json!({"session_id": id, "keys": "<Enter>", "for_text": "rc="});
    // The box's bottom row and the blank rows below it, seen on its screen, are no news
    // once it ends.
    let ended = text(&client.call("terminal_send", sent));
    assert!(ended.contains("rc=1") && !ended.contains('└'), "{ended}");
    assert!(!ended.contains("]\n\n"), "{ended}");
    client.call("terminal_read", json!({"session_id": id, "input_wait": true}));
    let menu =
        client.call("terminal_send", json!({"session_id": id, "text": line, "submit": true}));
    let shown = text(&menu);
    assert!(shown.contains("⟦Alaska⟧") && shown.contains("⟦<  OK  >⟧"), "{shown}");
    assert_eq!(shown.matches('⟦').count(), 3, "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A pager that stays on the primary screen (`less -X`, git's `less -FRX`, `more`) erases its
/// prompt line (`:`, `(END)`) before it goes on, and the next page, or the shell's prompt once
/// it quits, is written over that line, which the caller had read: each such result said
/// `[from a line you saw, since redrawn]` (37 bytes) before it. Nothing the caller read is
/// lost there, and the note is left out; a line the caller read that keeps its start, edited
/// since (`<C-u>` at the shell's prompt), is still said to be redrawn.
#[test]
fn a_pagers_prompt_line_written_over_is_not_said_to_be_redrawn() {
    for program in ["bash", "less", "seq"] {
        if !common::require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let mut send = |arguments: Value| {
        let mut arguments = arguments;
        arguments["session_id"] = id.clone();
        let result = client.call("terminal_send", arguments);
        assert_eq!(result["structuredContent"]["rewritten"], false, "{result}");
        text(&result)
    };
    let page = send(json!({"text": "seq 1 200 | less -X", "submit": true}));
    assert!(page.contains("less waiting for keys") && page.ends_with("\n:"), "{page}");
    // The next page's first line is written over the `:`.
    let next = send(json!({"keys": " "}));
    let first = next.lines().nth(1).and_then(|line| line.parse::<u32>().ok());
    assert!(first.is_some_and(|n| n > 1) && next.ends_with("\n:"), "{next}");
    // The shell's prompt is: the result is the header and the prompt.
    let back = send(json!({"keys": "q"}));
    assert!(back.ends_with("]\n$ ") && back.lines().count() == 2, "{back}");
    // A short file's `(END)`, on the row after its last line.
    let short = send(json!({"text": "printf 'a\\nb\\n' | less -X", "submit": true}));
    assert!(short.ends_with("\na\nb\n(END)"), "{short}");
    let back = send(json!({"keys": "q"}));
    assert!(back.ends_with("]\n$ ") && back.lines().count() == 2, "{back}");
    // A line edited at the shell's prompt keeps its start: said to be redrawn.
    let typed = json!({"session_id": id, "text": "echo one"});
    assert!(text(&client.call("terminal_send", typed)).ends_with("\necho one"));
    let edited = json!({"session_id": id, "keys": "<C-u>echo two"});
    let edited = text(&client.call("terminal_send", edited));
    assert!(edited.ends_with("\n[from a line you saw, since redrawn]\n$ echo two"), "{edited}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A look at a `less -X` page with `view="screen"` reads the page's lines too, and ends on
/// the pager's prompt line as a read of what is new does: the `q` after it said `[from a
/// line you saw, since redrawn]` before the shell's prompt (the screen view did not remember
/// the prompt).
#[test]
fn a_pagers_prompt_line_seen_on_the_screen_is_not_said_to_be_redrawn() {
    for program in ["bash", "less", "seq"] {
        if !common::require(program) {
            return;
        }
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.bash_session();
    let page = json!({"session_id": id, "text": "seq 1 200 | less -X", "submit": true});
    let page = text(&client.call("terminal_send", page));
    assert!(page.contains("less waiting for keys") && page.ends_with("\n:"), "{page}");
    // The next page, looked at as a screen.
    let next = json!({"session_id": id, "keys": " ", "view": "screen"});
    let next = text(&client.call("terminal_send", next));
    assert!(next.contains("\n:") && !next.contains("\n1\n"), "{next}");
    let back = client.call("terminal_send", json!({"session_id": id, "keys": "q"}));
    assert_eq!(back["structuredContent"]["rewritten"], false, "{back}");
    let back = text(&back);
    assert!(back.ends_with("]\n$ ") && back.lines().count() == 2, "{back}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// irb's completion menu, drawn below the line: entries cyan, the selected one magenta. All
/// were marked alike, and a Tab that moved the selection read "below the cursor, rows 1-4:
/// unchanged since your last look"; the selected entry is marked again, and moves.
#[test]
fn irbs_selected_completion_is_marked_and_moves_with_tab() {
    if !common::require("irb") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client.call(
        "terminal_start",
        json!({"argv": ["irb"], "env": {"IRBRC": "/dev/null"}, "cols": 60, "rows": 8}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let menu = client.call("terminal_send", json!({"session_id": id, "keys": "[1,2,3].ma"}));
    let shown = text(&menu);
    assert!(shown.contains("⟦[1,2,3].map⟧") && !shown.contains("⟦⟦"), "{shown}");
    let first = client.call("terminal_send", json!({"session_id": id, "keys": "<Tab>"}));
    let shown = text(&first);
    assert!(shown.contains("⟦⟦[1,2,3].map!⟧⟧"), "{shown}");
    let second = client.call("terminal_send", json!({"session_id": id, "keys": "<Tab>"}));
    let shown = text(&second);
    assert!(shown.contains("⟦⟦[1,2,3].map⟧⟧") && !shown.contains("unchanged"), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// terminal_mouse clicks on text a program shows, and refuses what it cannot do in words
/// that say what to do instead.
#[test]
fn the_mouse_clicks_on_text_and_refuses_what_it_cannot_do() {
    if !common::require("htop") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["htop"], "for_screen_text": "Quit", "cols": 120, "rows": 30}),
    );
    let id = started["session_id"].clone();
    assert_eq!(started["wait"]["outcome"], "matched", "{started}");
    let outside =
        client.tool_error("terminal_mouse", json!({"session_id": id, "row": 30, "col": 0}));
    assert!(outside.contains("outside the 120x30 screen"), "{outside}");
    let absent =
        client.tool_error("terminal_mouse", json!({"session_id": id, "text": "no such text"}));
    assert!(
        absent.contains("is not on the screen") && absent.contains("view=\"screen\""),
        "{absent}"
    );
    let both = client.tool_error(
        "terminal_mouse",
        json!({"session_id": id, "text": "Quit", "row": 1, "col": 1}),
    );
    assert!(both.contains("not both"), "{both}");
    let count =
        client.tool_error("terminal_mouse", json!({"session_id": id, "text": "Quit", "count": 2}));
    assert!(count.contains("`count` is the wheel notches"), "{count}");
    // A click on htop's "F10 Quit" button ends it.
    let clicked = client.call("terminal_mouse", json!({"session_id": id, "text": "Quit"}));
    let shown = text(&clicked);
    assert!(
        clicked["structuredContent"]["wait"]["outcome"] == "exited"
            || clicked["structuredContent"]["status"]["activity"] == "exited",
        "{shown}"
    );
    client.tool("terminal_close", json!({"session_id": id}));
    // An ended session says so, whatever its last screen's modes.
    let closed = client.tool_error("terminal_mouse", json!({"session_id": id, "row": 1, "col": 1}));
    assert!(closed.contains("has exited") || closed.contains("is closed"), "{closed}");
    // A shell has no mouse reporting: the click is refused, naming keys.
    let shell = client.tool("terminal_start", json!({"command": "cat"}));
    let id = shell["session_id"].clone();
    let refused =
        client.tool_error("terminal_mouse", json!({"session_id": id, "row": 0, "col": 0}));
    assert!(
        refused.contains("not enabled mouse reporting") && refused.contains("keys"),
        "{refused}"
    );
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// Waits on a screen regex, on one screen row and on the cursor's position.
#[test]
fn waits_on_a_screen_regex_a_row_and_the_cursor() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "printf '\\033[2J\\033[3;1Hrow two here\\033[5;8H'; sleep 60";
    let started = client.tool("terminal_start", json!({"command": script, "for_cursor": "4,7"}));
    let id = started["session_id"].clone();
    assert_eq!(started["wait"]["outcome"], "matched", "{started}");
    let matched = client.tool(
        "terminal_read",
        json!({"session_id": id, "for_screen_regex": "row \\w+ here", "screen_row": 2}),
    );
    assert_eq!(matched["wait"]["matched_text"], "row two here", "{matched}");
    let elsewhere = client.tool(
        "terminal_read",
        json!({"session_id": id, "for_screen_text": "row two", "screen_row": 1, "timeout_ms": 300}),
    );
    assert_eq!(elsewhere["wait"]["outcome"], "timeout", "{elsewhere}");
    let alone = client.tool_error("terminal_read", json!({"session_id": id, "screen_row": 2}));
    assert!(alone.contains("for_screen_text or for_screen_regex"), "{alone}");
    let bad = client.tool_error("terminal_read", json!({"session_id": id, "for_cursor": "4"}));
    assert!(bad.contains("\"row,col\""), "{bad}");
    // Places off the screen could never be reached: refused at once, naming the screen.
    let off = client.tool_error("terminal_read", json!({"session_id": id, "for_cursor": "999,9"}));
    assert!(off.contains("off session") && off.contains("120x32"), "{off}");
    let off = client.tool_error(
        "terminal_read",
        json!({"session_id": id, "for_screen_text": "x", "screen_row": 40}),
    );
    assert!(off.contains("screen_row 40 is off"), "{off}");
    // Empty text would match at once; empty keys alone send nothing.
    let empty = client.tool_error("terminal_read", json!({"session_id": id, "for_text": ""}));
    assert!(empty.contains("`for_text` is empty"), "{empty}");
    let empty = client.tool_error("terminal_send", json!({"session_id": id, "keys": ""}));
    assert!(empty.contains("needs something to send"), "{empty}");
    let regex =
        client.tool_error("terminal_read", json!({"session_id": id, "for_screen_regex": "("}));
    assert!(regex.contains("bad regular expression"), "{regex}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// The status says what kind of input a program waits for, and where, when nothing else in
/// the result shows it.
#[test]
fn the_status_says_what_input_is_awaited_and_where() {
    if !common::require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "import getpass; getpass.getpass('Secret: ')";
    let started = client.call(
        "terminal_start",
        json!({"argv": ["python3", "-c", script], "for_screen_text": "Secret:"}),
    );
    let id = started["structuredContent"]["session_id"].clone();
    let read = client.call("terminal_read", json!({"session_id": id, "input_wait": true}));
    let shown = text(&read);
    assert!(shown.contains("python3 waiting for a password (echo off)"), "{shown}");
    assert_eq!(read["structuredContent"]["status"]["input_kind"], "password", "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    let started = client.call("terminal_start", json!({"argv": ["python3", "-q"]}));
    let id = started["structuredContent"]["session_id"].clone();
    // Read again with nothing new: the header says where the program waits.
    let read = client.call("terminal_read", json!({"session_id": id, "input_wait": true}));
    let shown = text(&read);
    assert!(shown.contains("python3 waiting for keys at \">>>\""), "{shown}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A program waiting on a short timer is not waiting for input yet: after an Escape vim waits
/// for the rest of a key code before it leaves insert mode, and after `:wq` it waits for the
/// terminal's answers on its way out. The default wait sees both through.
#[test]
fn waits_on_a_short_timer_are_not_taken_as_final() {
    if !common::require("vim") {
        return;
    }
    let file = temp_file("timer.txt", "");
    let mut client = Client::initialized("2025-11-25");
    let vim = ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", file.to_str().unwrap()];
    let started = client.tool("terminal_start", json!({"argv": vim, "input_wait": true}));
    let id = started["session_id"].clone();
    let typed = client.call(
        "terminal_send",
        json!({"session_id": id, "keys": "ihello", "for_screen_text": "-- INSERT --"}),
    );
    assert!(text(&typed).contains("hello"), "{}", text(&typed));
    for _ in 0..3 {
        let escaped = client.call("terminal_send", json!({"session_id": id, "keys": "<Esc>"}));
        let shown = text(&escaped);
        assert!(!shown.contains("-- INSERT --"), "the Escape was not seen through: {shown}");
        client.call(
            "terminal_send",
            json!({"session_id": id, "keys": "a", "for_screen_text": "-- INSERT --"}),
        );
    }
    client.call("terminal_send", json!({"session_id": id, "keys": "<Esc>"}));
    let saved = client.tool("terminal_send", json!({"session_id": id, "keys": ":wq<Enter>"}));
    assert_eq!(saved["status"]["activity"], "exited", "{saved}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello\n");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// Styled screen text is marked where its style carries meaning (inverse, a background), every
/// style on request, and none when asked.
#[test]
fn styled_screen_text_is_marked_as_asked() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "printf '\\033[7mselected\\033[0m plain \\033[42m    \\033[0m\\033[31mred\\033[0m'; sleep 60";
    let started =
        client.tool("terminal_start", json!({"command": script, "for_screen_text": "red"}));
    let id = started["session_id"].clone();
    let screen = |client: &mut Client, styles: Value| {
        let read = client
            .call("terminal_read", json!({"session_id": id, "view": "screen", "styles": styles}));
        text(&read)
    };
    let highlights = screen(&mut client, Value::Null);
    assert!(highlights.contains("⟦selected⟧ plain ⟦    ⟧red"), "{highlights}");
    let all = screen(&mut client, json!(true));
    assert!(all.contains("⟦inverse|selected⟧ plain ⟦on green|    ⟧⟦red|red⟧"), "{all}");
    let none = screen(&mut client, json!(false));
    assert!(none.contains("selected plain     red"), "{none}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// terminal_read's look-ups: transcript lines by number, a search, where text is on the
/// screen; none moves the read cursor, and bad ones say what to ask instead.
#[test]
fn transcript_lines_search_and_find() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script =
        "for i in $(seq 0 99); do echo \"line $i\"; done; echo 'error: disk full'; sleep 60";
    let started = client.tool(
        "terminal_start",
        json!({"command": script, "for_text": "disk full", "view": "scrollback"}),
    );
    let id = started["session_id"].clone();
    let lines = text(&client.call("terminal_read", json!({"session_id": id, "lines": "10-12"})));
    assert!(lines.contains("10│line 10\n11│line 11\n12│line 12"), "{lines}");
    assert!(lines.contains("transcript lines 10-12 (it holds 0-"), "{lines}");
    let one = text(&client.call("terminal_read", json!({"session_id": id, "lines": "11"})));
    assert!(one.ends_with("\n11│line 11"), "{one}");
    let search = text(
        &client.call("terminal_read", json!({"session_id": id, "search": "^line 4[2-4]$|error"})),
    );
    assert!(search.contains("4 transcript lines of 0-"), "{search}");
    assert!(
        search.contains("42│line 42\n43│line 43\n44│line 44\n100│error: disk full"),
        "{search}"
    );
    let small = text(
        &client
            .call("terminal_read", json!({"session_id": id, "search": "line", "max_bytes": 256})),
    );
    assert!(small.contains("earlier matches (lines 0-") && small.contains("99│line 99"), "{small}");
    // The note says how to see them all, and that bound does.
    let enough = small
        .split("left out by max_bytes; max_bytes=")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no max_bytes to see the rest: {small}"));
    let all =
        text(&client.call(
            "terminal_read",
            json!({"session_id": id, "search": "line", "max_bytes": enough}),
        ));
    assert!(!all.contains("left out") && all.contains("0│line 0\n"), "{all}");
    let found = text(&client.call("terminal_read", json!({"session_id": id, "find": "disk"})));
    assert!(found.contains("\"disk\" is on the screen at row"), "{found}");
    // Nothing was consumed: the new output is all still there.
    let new = client.tool("terminal_read", json!({"session_id": id}));
    assert!(new["output"].as_str().unwrap().contains("line 0\n"), "{new}");
    let past = client.tool_error("terminal_read", json!({"session_id": id, "lines": "5000-5010"}));
    assert!(past.contains("the transcript holds lines 0-"), "{past}");
    assert!(!past.contains("dropped"), "nothing was dropped: {past}");
    let bad = client.tool_error("terminal_read", json!({"session_id": id, "lines": "ten"}));
    assert!(bad.contains("\"FIRST-LAST\""), "{bad}");
    let backwards = client.tool_error("terminal_read", json!({"session_id": id, "lines": "5-2"}));
    assert!(backwards.contains("ends before it begins"), "{backwards}");
    let regex = client.tool_error("terminal_read", json!({"session_id": id, "search": "("}));
    assert!(regex.contains("bad regular expression"), "{regex}");
    let two =
        client.tool_error("terminal_read", json!({"session_id": id, "search": "a", "find": "b"}));
    assert!(
        two.contains("one of `lines`, `search`, `find`, `screen_rows`, `svg` and `png`"),
        "{two}"
    );
    // Arguments that would be left unused are refused, not dropped.
    let images =
        client.tool_error("terminal_read", json!({"session_id": id, "svg": true, "png": true}));
    assert!(images.contains("not svg and png"), "{images}");
    let view = client
        .tool_error("terminal_read", json!({"session_id": id, "lines": "1-2", "view": "screen"}));
    assert!(view.contains("leave out `view`"), "{view}");
    // A wait before a look-up is said in its header.
    let waited = text(&client.call(
        "terminal_read",
        json!({"session_id": id, "lines": "0-0", "for_screen_regex": ".", "timeout_ms": 5000}),
    ));
    assert!(waited.lines().next().unwrap().contains("matched"), "{waited}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// The lines a look-up shows are sent once, in the text: with them in the structured result as
/// well (as the command line's `--json` has them), `lines` and `search` sent twice what
/// `max_bytes` allows.
#[test]
fn looked_up_lines_stay_within_max_bytes() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"command": "seq 1 4000; echo done; sleep 60", "for_text": "done"}),
    );
    let id = started["session_id"].clone();
    for look_up in [json!({"search": "0"}), json!({"lines": "0-"})] {
        let mut args = json!({"session_id": id, "max_bytes": 8192});
        args.as_object_mut().unwrap().extend(look_up.as_object().unwrap().clone());
        let result = client.call("terminal_read", args);
        assert!(text(&result).contains("left out by max_bytes"), "{}", text(&result));
        assert_within(&result, 8192, &look_up.to_string());
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A line longer than `max_bytes` is shown cut, its number kept, by `lines` and by `search`:
/// `lines` kept a first line whole whatever its length (262 KB for a 16 KB bound), and a
/// search cut its one match at the start, number and all.
#[test]
fn a_line_longer_than_max_bytes_is_cut_with_its_number() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "printf 'x%.0s' $(seq 5000); echo; echo end; sleep 60";
    let started = client.tool("terminal_start", json!({"command": script, "for_text": "end"}));
    let id = started["session_id"].clone();
    for arguments in [
        json!({"session_id": id, "lines": "0-1", "max_bytes": 300}),
        json!({"session_id": id, "search": "^x", "max_bytes": 300}),
    ] {
        let result = client.call("terminal_read", arguments.clone());
        let said = text(&result);
        let size = said.len() + result["structuredContent"].to_string().len();
        assert!(size <= 300 + MAX_BYTES_OVERHEAD, "{arguments}: {size} bytes: {said}");
        assert!(said.contains("\n0│xxx"), "{arguments}: {said}");
        assert!(said.contains("more bytes of this line cut]"), "{arguments}: {said}");
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A call that sent a progress token gets progress notifications while it waits, carrying
/// the session's last line of output.
#[test]
fn long_waits_report_progress_with_the_last_line() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "echo step one; sleep 5; echo all done; sleep 60";
    let started = client.tool("terminal_start", json!({"command": script, "for_text": "step one"}));
    let id = started["session_id"].clone();
    let call = json!({
        "name": "terminal_read",
        "arguments": {"session_id": id, "for_text": "all done"},
        "_meta": {"progressToken": "tok-1"},
    });
    let request = client.send_request("tools/call", call);
    let response = client.response(&request);
    assert_eq!(response["result"]["structuredContent"]["wait"]["outcome"], "matched", "{response}");
    let progress: Vec<&Value> =
        client.other.iter().filter(|m| m["method"] == "notifications/progress").collect();
    assert!(!progress.is_empty(), "no progress notification in {:?}", client.other);
    for note in &progress {
        assert_eq!(note["params"]["progressToken"], "tok-1", "{note}");
        let message = note["params"]["message"].as_str().unwrap();
        assert!(message.contains("last line: step one"), "{message}");
    }
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A progress token is echoed as the client wrote it, as an id is, an integer past 2^64
/// included; one that is neither a string nor an integer, which MCP does not allow, or longer
/// than 256 bytes, is refused. (A whole number past 2^64 got no notification, parsed into a
/// float no notification could name, and a float, `true` or an object were silently ignored;
/// a 3 MB token was repeated by each notification, 9.4 MB in 7 s, and one of 400 digits failed
/// the request as a parse error.)
#[test]
fn a_progress_token_is_echoed_as_written_and_one_of_another_kind_refused() {
    let mut client = Client::initialized("2025-11-25");
    let cat = client.tool("terminal_start", json!({"argv": KEYS_CAT}))["session_id"].clone();
    for bad in [json!(1.5), json!(true), json!({"t": 1}), json!([1])] {
        let call = json!({"name": "terminal_list", "_meta": {"progressToken": bad}});
        let error = client.fails("tools/call", call, -32602);
        assert!(error["message"].as_str().unwrap().contains("progressToken"), "{error}");
    }
    // Every notification repeats the token: one past 256 bytes of JSON is refused, named by
    // its start and size, an integer too large to parse included (it failed the params).
    let list = |token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{{"name":"terminal_list","_meta":{{"progressToken":{token}}}}}}}"#
        )
    };
    for (token, size) in [(format!("{:?}", "t".repeat(255)), 257), ("9".repeat(400), 400)] {
        client.send_raw(list(&token).as_bytes());
        let error = client.response(&json!("t"))["error"].clone();
        assert_eq!(error["code"], -32602, "{error}");
        assert!(error["message"].as_str().unwrap().contains(&format!("({size} bytes)")), "{error}");
    }
    client.send_raw(list(&format!("{:?}", "t".repeat(254))).as_bytes());
    assert!(client.response(&json!("t"))["result"]["structuredContent"]["sessions"].is_array());
    let big = "123456789012345678901234567890";
    // A wait far longer than a notification's 2 s, cancelled once one came.
    let wait = format!(r#"{{"session_id":{cat},"for_text":"never","timeout_ms":600000}}"#);
    client.send_raw(
        format!(
            r#"{{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{{"name":"terminal_read","arguments":{wait},"_meta":{{"progressToken":{big}}}}}}}"#
        )
        .as_bytes(),
    );
    let note = client.next_line();
    assert!(note.contains("notifications/progress"), "{note}");
    assert!(note.contains(&format!(r#""progressToken":{big},"#)), "{note}");
    client.notify("notifications/cancelled", json!({"requestId": "p"}));
    client.tool("terminal_close", json!({"session_id": cat}));
    client.finish();
}

/// Cancelling a terminal_send that submitted a command interrupts the command (as Ctrl-C
/// would), and the shell comes back to its prompt.
#[test]
fn a_cancelled_submit_interrupts_its_command() {
    if !require("bash") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let shell = client.tool("terminal_start", json!({"prompt": true}));
    let id = shell["session_id"].clone();
    let call = json!({
        "name": "terminal_send",
        "arguments": {"session_id": id, "text": "(echo st''arted; exec sleep 30); echo af''ter", "submit": true, "for_regex": "^after$"},
    });
    let request = client.send_request("tools/call", call);
    // The command runs (a subshell printed "started"; a signal ends it before or in the sleep).
    let begun = Instant::now();
    let running =
        client.tool("terminal_read", json!({"session_id": id, "for_screen_regex": "^started"}));
    assert_eq!(running["wait"]["outcome"], "matched", "{running}");
    client.notify("notifications/cancelled", json!({"requestId": request, "reason": "stop"}));
    let back = client.tool("terminal_read", json!({"session_id": id, "prompt": true}));
    assert_eq!(back["wait"]["outcome"], "matched", "{back}");
    assert!(begun.elapsed() < Duration::from_secs(20), "the command was not interrupted");
    let output = client.tool("terminal_read", json!({"session_id": id, "view": "scrollback"}));
    assert!(!output["output"].as_str().unwrap().contains("\nafter\n"), "{output}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A terminal_send that submits a line, cancelled while it waits for another call's input
/// (a paste the program does not read), types nothing and interrupts nothing: it sent the
/// session's program SIGINT (killing it) once the paste ended, then typed its line anyway.
#[test]
fn a_submit_cancelled_before_it_typed_neither_types_nor_interrupts() {
    let mut client = Client::initialized("2025-11-25");
    let id = client.tool("terminal_start", json!({"argv": ["sleep", "600"]}))["session_id"].clone();
    // A paste larger than the input queue holds the session's input until it is cancelled
    // (its timeout is long: on a loaded machine a short one ran out before the server read
    // the cancellation of the call queued behind it, which then typed and was interrupted).
    // (In lines a terminal reading whole lines keeps: a longer one is refused.)
    let paste = format!("{}\n", "A".repeat(1023)).repeat(2 << 10);
    let pasting = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "paste": paste, "timeout_ms": 600_000}}),
    );
    let begun = client.tool(
        "terminal_read",
        json!({"session_id": id, "for_screen_text": "AAAAAAAAAA", "view": "screen"}),
    );
    assert_eq!(begun["wait"]["outcome"], "matched", "{begun}");
    let submit = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "text": "echo typed", "submit": true}}),
    );
    client.notify("notifications/cancelled", json!({"requestId": submit, "reason": "test"}));
    // The server reads notifications in order: the submit is cancelled before the paste ends.
    client.notify("notifications/cancelled", json!({"requestId": pasting, "reason": "test"}));
    client.until_call_ended(&pasting);
    client.until_call_ended(&submit);
    let after = client.tool(
        "terminal_read",
        json!({"session_id": id, "exit": true, "timeout_ms": 2000, "view": "screen"}),
    );
    let status = &after["status"];
    assert_eq!(after["wait"]["outcome"], "timeout", "the program was interrupted: {status}");
    assert!(!after["screen"].to_string().contains("echo typed"), "the line was typed");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A program that polls the terminal with a short timeout in a loop (Python 3.13's REPL polls
/// every 100 ms) waits for input once its timer has gone off without a change: `input_wait`
/// holds and the status says so. It read "running, quiet" for ever, and the wait timed out.
#[test]
fn a_program_polling_with_a_short_timer_reads_as_waiting_for_input() {
    if !require("python3") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let script = "import select, sys\nprint('name? ', end='', flush=True)\nwhile not select.select([sys.stdin], [], [], 0.1)[0]:\n    pass\nprint('hello', sys.stdin.readline().strip())\n";
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["python3", "-c", script], "input_wait": true, "timeout_ms": 20000}),
    );
    assert_eq!(started["wait"]["outcome"], "matched", "{started}");
    assert_eq!(started["status"]["activity"], "waiting_for_input", "{started}");
    let id = started["session_id"].clone();
    let answered = client.tool(
        "terminal_send",
        json!({"session_id": id, "text": "ada", "submit": true, "exit": true, "timeout_ms": 20000}),
    );
    assert!(answered["output"].as_str().unwrap().contains("hello ada"), "{answered}");
    client.finish();
}

/// A line read before and cleared since (a pager's ":" on its way out) is not announced as
/// redrawn when nothing follows: the result said "no new output" and then that a redrawn line
/// was repeated, with no line. (Nor is "no new output" said beside the exit.)
#[test]
fn a_cleared_line_is_not_announced_as_repeated() {
    let mut client = Client::initialized("2025-11-25");
    let script = "printf 'data\\n:'; stty -echo; read x; printf '\\r\\033[K'; stty echo";
    let started =
        client.tool("terminal_start", json!({"argv": ["sh", "-c", script], "input_wait": true}));
    assert_eq!(started["output"], "data\n:", "{started}");
    let id = started["session_id"].clone();
    let result =
        client.call("terminal_send", json!({"session_id": id, "keys": "<Enter>", "exit": true}));
    let shown = text(&result);
    assert!(!shown.contains("redrawn"), "{shown}");
    // The exit is the news: nothing more is said (not "no new output" either).
    assert_eq!(shown, "[exited (exit code 0)]", "{shown}");
    client.finish();
}

/// `png=true` sends the screen as MCP image content (base64 PNG) for a vision model.
#[test]
fn the_screen_comes_as_a_png_image() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", "echo picture; read x"], "for_screen_text": "picture"}),
    );
    assert_eq!(started["isError"], false, "{started}");
    let result = client.call("terminal_read", json!({"session_id": 1, "png": true}));
    assert_eq!(result["isError"], false, "{result}");
    let image = &result["content"][1];
    assert_eq!(image["type"], "image", "{result}");
    assert_eq!(image["mimeType"], "image/png");
    assert!(image["data"].as_str().unwrap().starts_with("iVBORw0KGgo"), "a PNG signature");
    client.finish();
}

/// A PNG larger than the default `max_bytes` comes whole when the call gives none (a picture
/// is priced by its pixels, not read a byte at a time); a `max_bytes` the call gives holds.
#[test]
fn a_busy_screens_png_needs_no_max_bytes() {
    let mut client = Client::initialized("2025-11-25");
    let draw = "i=0; while [ $i -lt 1900 ]; do printf '\\033[3%d;4%dm%x' $((i%8)) $(((i/8)%8)) $((i%16)); i=$((i+1)); done; printf '\\033[0m done'; read x";
    let started = client.call(
        "terminal_start",
        json!({"argv": ["sh", "-c", draw], "for_screen_text": " done", "cols": 80, "rows": 24}),
    );
    assert_eq!(started["isError"], false, "{started}");
    let result = client.call("terminal_read", json!({"session_id": 1, "png": true}));
    assert_eq!(result["isError"], false, "{result}");
    let png = result["structuredContent"]["png_bytes"].as_u64().unwrap();
    assert!(png.div_ceil(3) * 4 > 16_384, "the picture is larger than the default: {png} bytes");
    assert_eq!(result["content"][1]["type"], "image", "{result}");
    let refused = client
        .tool_error("terminal_read", json!({"session_id": 1, "png": true, "max_bytes": 16384}));
    assert!(refused.contains("over max_bytes 16384"), "{refused}");
    client.finish();
}

/// A picture look-up after a wait says in its text why the wait returned, as the other
/// look-ups do (its text lacked the wait's line, which only its structured result had): a
/// wait matched, and one that stopped because the program asked for input first.
#[test]
fn a_picture_after_a_wait_says_why_the_wait_returned() {
    let mut client = Client::initialized("2025-11-25");
    let argv = json!({"argv": ["sh", "-c", "echo picture; read x"], "for_screen_text": "picture"});
    let id = client.tool("terminal_start", argv)["session_id"].clone();
    for picture in ["svg", "png"] {
        let waits = [
            ("picture", "matched", "screen text \"picture\" matched after "),
            ("never", "waiting_for_input", "stopped waiting for screen text \"never\" after "),
        ];
        for (wanted, outcome, said) in waits {
            let args = json!({"session_id": id, picture: true, "for_screen_text": wanted});
            let read = client.call("terminal_read", args);
            let header = text(&read).lines().next().unwrap_or_default().to_owned();
            assert!(header.contains(said), "{picture} {wanted}: {header}");
            assert_eq!(read["structuredContent"]["wait"]["outcome"], outcome, "{read}");
        }
    }
    client.call("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A PNG look-up the call gave no `max_bytes` has the largest for its image, but the wait's
/// strings in its header and structured result are cut within the default, as a `lines`
/// look-up's are: a 300,000-character `for_screen_text` that stopped waiting gave 149,775
/// bytes of text beside the picture.
#[test]
fn a_pngs_wait_is_cut_within_the_default_max_bytes() {
    let mut client = Client::initialized("2025-11-25");
    let argv = json!({"argv": ["sh", "-c", "echo picture; read x"], "for_screen_text": "picture"});
    let id = client.tool("terminal_start", argv)["session_id"].clone();
    let wanted = "w".repeat(300_000);
    let args = json!({"session_id": id, "png": true, "for_screen_text": wanted});
    let read = client.call("terminal_read", args);
    assert_eq!(read["isError"], false, "{read}");
    assert_eq!(read["content"][1]["type"], "image", "{read}");
    let structured = &read["structuredContent"];
    assert_eq!(structured["wait"]["outcome"], "waiting_for_input", "{structured}");
    let said = text(&read).len() + structured.to_string().len();
    assert!(said <= 16_384, "{said} bytes of text and structured result");
    client.call("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A picture refused as too large after a wait (a screen of 24 lines, a `max_bytes` of 1024)
/// says first, as a picture's header does, the session's status and why the wait returned:
/// the refusal said only the picture's size, and the caller could not tell whether the wait
/// had matched.
#[test]
fn a_picture_refused_after_a_wait_says_why_the_wait_returned() {
    let mut client = Client::initialized("2025-11-25");
    let argv = json!({"argv": ["sh", "-c", "seq 1000 1022; echo picture; read x"], "for_screen_text": "picture"});
    let id = client.tool("terminal_start", argv)["session_id"].clone();
    for picture in ["svg", "png"] {
        let waits = [
            ("picture", "screen text \"picture\" matched after "),
            ("never", "stopped waiting for screen text \"never\" after "),
        ];
        for (wanted, said) in waits {
            let args = json!({"session_id": id, picture: true, "for_screen_text": wanted, "max_bytes": 1024});
            let refused = client.call("terminal_read", args);
            assert_eq!(refused["_meta"]["termloom/error_code"], "too_large", "{refused}");
            let refused = text(&refused);
            let (header, why) = refused.split_once('\n').unwrap_or_default();
            assert!(
                header.starts_with("[sh ") && header.contains(said),
                "{picture} {wanted}: {refused}"
            );
            assert!(why.starts_with("the screen's "), "{picture} {wanted}: {refused}");
        }
    }
    // Without a wait, the refusal alone, as before.
    let args = json!({"session_id": id, "png": true, "max_bytes": 1024});
    let refused = client.tool_error("terminal_read", args);
    assert!(refused.starts_with("the screen's PNG is "), "{refused}");
    client.call("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A server whose engine has `policy`.
fn serving_policy(policy: &str) -> Client {
    let config = Config {
        policy: Some(termloom::Policy::from_toml_str(policy).expect("the policy parses")),
        ..Config::default()
    };
    Client::serving(Engine::new(config).expect("engine starts"), ServeOptions::default())
}

const ASKING_POLICY: &str = r#"
    [[rules]]
    name = "no-touch"
    program = ["touch"]
    decision = "deny"
    reason = "touching files is not allowed here"
    [[rules]]
    name = "printf-asks"
    program = ["printf"]
    decision = "ask"
"#;

impl Client {
    /// Answers the server's question `number` (its elicitation/create request) with `result`;
    /// returns the question.
    fn answer(&mut self, number: u64, result: Value) -> Value {
        let id = json!(format!("termloom-elicit-{number}"));
        let question = self.response(&id);
        assert_eq!(question["method"], "elicitation/create", "{question}");
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
        question
    }
}

#[test]
fn the_spawn_policy_denies_and_asks_the_person_through_elicitation() {
    let dir = temp_dir("policy");
    let mut client = serving_policy(ASKING_POLICY);
    client.initialize_with("2025-11-25", json!({"elicitation": {}}));
    // Denied: the rule is named and nothing ran.
    let denied = dir.join("denied");
    let message = client
        .tool_error("terminal_start", json!({"command": format!("touch {}", denied.display())}));
    assert!(message.contains("no-touch") && message.contains("denied"), "{message}");
    assert!(!denied.exists(), "a denied start ran");
    // terminal_run's own new shell: the command is decided with the start.
    let command = format!("touch {}", denied.display());
    let message =
        client.tool_error("terminal_run", json!({"command": command, "timeout_ms": 20_000}));
    assert!(message.contains("no-touch"), "{message}");
    assert!(!denied.exists(), "a denied command ran");
    // Asked, and declined: nothing ran.
    let made = dir.join("made");
    let start = json!({"command": format!("printf made > {}", made.display())});
    let id =
        client.send_request("tools/call", json!({"name": "terminal_start", "arguments": start}));
    let question = client.answer(1, json!({"action": "decline"}));
    let asked = question["params"]["message"].as_str().unwrap();
    assert!(asked.contains("printf made") && asked.contains("printf-asks"), "{asked}");
    assert_eq!(question["params"]["mode"], "form");
    let result = client.response(&id)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("declined"), "{}", text(&result));
    assert!(client.tool("terminal_list", json!({}))["sessions"].as_array().unwrap().is_empty());
    // A command cannot hide its end from the person: line breaks, runs of blanks and
    // characters that reorder text are shown for what they are.
    let hiding = format!("printf ok{}\n\n; printf x # {}", " ".repeat(300), '\u{202e}');
    let id = client.send_request(
        "tools/call",
        json!({"name": "terminal_start", "arguments": {"command": hiding}}),
    );
    let question = client.answer(2, json!({"action": "decline"}));
    let asked = question["params"]["message"].as_str().unwrap();
    assert!(asked.contains("⟨300 spaces⟩␊␊; printf x # ⟨U+202E⟩"), "{asked}");
    assert!(!asked.contains('\n') && !asked.contains('\u{202e}'), "{asked}");
    client.response(&id);
    // Asked, and accepted: it runs.
    let id = client.send_request(
        "tools/call",
        json!({"name": "terminal_start", "arguments": {"command": format!("printf made > {}", made.display()), "exit": true}}),
    );
    client.answer(3, json!({"action": "accept", "content": {}}));
    let result = client.response(&id)["result"].clone();
    assert_eq!(result["isError"], false, "{}", text(&result));
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "made");
    client.finish();
}

/// A client that cannot be asked is told so: one without the capability, and one that
/// declared URL elicitation alone (2025-11-25 on), which takes no form (`{}` alone is forms
/// only). (The latter was sent a form and the call waited for its answer.)
#[test]
fn a_client_without_elicitation_is_told_no_one_can_be_asked() {
    let told = |mut client: Client| {
        let message = client.tool_error("terminal_start", json!({"argv": ["printf", "x"]}));
        assert!(message.contains("elicitation") && message.contains("printf-asks"), "{message}");
        assert!(client.stash.is_empty() && client.other.is_empty(), "{:?}", client.stash);
        client.finish();
    };
    for version in ["2025-03-26", "2025-11-25"] {
        let mut client = serving_policy(ASKING_POLICY);
        client.initialize(version);
        told(client);
    }
    let urls_only = json!({"elicitation": {"url": {}}});
    let mut client = serving_policy(ASKING_POLICY);
    client.initialize_with("2025-11-25", urls_only.clone());
    told(client);
    told(Client::discovered_on(serving_policy(ASKING_POLICY), urls_only));
}

#[test]
fn the_stateless_revision_asks_with_input_required_rounds() {
    let mut client =
        Client::discovered_on(serving_policy(ASKING_POLICY), json!({"elicitation": {}}));
    let start =
        json!({"name": "terminal_start", "arguments": {"argv": ["printf", "asked"], "exit": true}});
    let first = client.ok("tools/call", start.clone());
    assert_eq!(first["resultType"], "input_required", "{first}");
    let requests = first["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{first}");
    let (key, question) = requests.iter().next().unwrap();
    assert!(key.starts_with("approve_start-"), "{first}");
    assert_eq!(question["method"], "elicitation/create", "{first}");
    assert!(question["params"]["message"].as_str().unwrap().contains("printf asked"));
    // An approval of this start approves no other: another command is asked about again.
    let mut other =
        json!({"name": "terminal_start", "arguments": {"argv": ["printf", "other"], "exit": true}});
    other["inputResponses"] = json!({ key.clone(): {"action": "accept", "content": {}} });
    let asked_again = client.ok("tools/call", other);
    assert_eq!(asked_again["resultType"], "input_required", "{asked_again}");
    let mut declined = start.clone();
    declined["inputResponses"] = json!({ key.clone(): {"action": "decline"} });
    let result = client.ok("tools/call", declined);
    assert_eq!(
        (result["resultType"].as_str(), result["isError"].as_bool()),
        (Some("complete"), Some(true))
    );
    let mut accepted = start;
    accepted["inputResponses"] = json!({ key.clone(): {"action": "accept", "content": {}} });
    let result = client.ok("tools/call", accepted);
    assert_eq!(result["isError"], false, "{}", text(&result));
    assert!(text(&result).contains("asked"), "{}", text(&result));
    client.finish();
}

/// Also behind a relay to a terminal it hosts (`script`, as `sudo` with `use_pty` does), which
/// keeps the session's own terminal raw: the prompt is the hosted terminal's.
#[test]
fn a_secret_is_typed_through_the_page_and_never_shown() {
    if !require("script") {
        return;
    }
    let secret = "hunter2-Zq9";
    // The password is read by a program the shell started, which the question names.
    let script = format!(
        "python3 -c 'import getpass; p = getpass.getpass(\"Password: \"); print(\"RIGHT\" if p == \"{secret}\" else \"WRONG\")'; read -r -p 'more: ' q"
    );
    let hosted = format!("bash -c '{}'", script.replace('\'', r"'\''"));
    for argv in [json!(["bash", "-c", script]), json!(["script", "-qc", hosted, "/dev/null"])] {
        a_secret_is_typed_and_never_shown(&argv, secret);
    }
    // A client that cannot ask the person is told what to do instead, and how (it said only
    // "type it into the program themselves", which a session of `termloom mcp` gives no way
    // to).
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["python3", "-c", "import getpass; getpass.getpass()"], "input_wait": true}),
    );
    let refused = client
        .tool_error("terminal_send", json!({"session_id": started["session_id"], "secret": true}));
    assert!(refused.contains("type it into the program themselves"), "{refused}");
    // And how they can: through the server's session, or a terminal of their own.
    let attach = format!("termloom attach {} --takeover", started["session_id"]);
    assert!(refused.contains(&attach) && refused.contains("of their own"), "{refused}");
    client.finish();
}

/// A password prompt shown before its program reads (it turns echo off and prints it, then
/// works a moment, as `su` does its PAM work), behind `script`, which keeps the session's
/// terminal raw: the look before the person is asked is the library's `send_secret`'s, held
/// for a reader within the same bound, and the person is asked once the program reads. It
/// looked at the status alone and refused in under 1 ms ("the terminal reads keys, not a
/// line"), while the library held.
#[test]
fn a_secret_asked_for_behind_script_before_its_program_reads_is_held_for_it() {
    if !require("script") || !require("python3") {
        return;
    }
    let secret = "hunter2-Zq9";
    let asks = format!(
        "import getpass, termios, time\nmode = termios.tcgetattr(0)\nmode[3] &= ~termios.ECHO\n\
         termios.tcsetattr(0, termios.TCSANOW, mode)\nprint('Code: ', end='', flush=True)\n\
         time.sleep(1)\np = getpass.getpass('')\n\
         print('RIGHT' if p == '{secret}' else 'WRONG', flush=True)\ntime.sleep(60)\n"
    );
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let argv = json!(["script", "-qc", "python3 -c \"$ASKS\"", "/dev/null"]);
    let start = json!({"argv": argv, "env": {"ASKS": asks}, "for_screen_text": "Code:"});
    let started = client.tool("terminal_start", start);
    let id = started["session_id"].clone();
    let began = Instant::now();
    let call = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true, "for_text": "RIGHT"}}),
    );
    let question = client.answer(1, json!({"action": "accept"}));
    assert_eq!(question["params"]["mode"], "url", "{question}");
    assert!(began.elapsed() < Duration::from_secs(5), "{:?}", began.elapsed());
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    assert!(page.post(secret).contains("Typed."));
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], false, "{}", text(&result));
    assert!(text(&result).contains("RIGHT"), "{}", text(&result));
    assert!(!text(&result).contains(secret), "{}", text(&result));
    client.finish();
}

/// A `terminal_send secret=true` cancelled while the library's look holds for a program to
/// read asks no one once the hold ends: no `elicitation/create` reaches the client, and no
/// page opens. The program turned echo off, showed its prompt and watches the terminal for
/// its hang-up alone (as `journalctl -f` does: seen waiting for input, but no reader of a
/// secret) and a FIFO the test writes to once the call holds; then it reads the terminal.
/// Meanwhile a secret sent to the session is refused as one already being asked for
/// (`secret_pending`). Without 5ffc91c the cancelled call asked the person once the
/// program read.
#[test]
fn a_secret_call_cancelled_while_it_holds_for_the_reader_asks_no_one() {
    if !require("python3") || !require("mkfifo") {
        return;
    }
    let secret = "hunter2-Zq9";
    // Seen waiting for input only once quiet for 2 s: the call's look at who asks waits
    // still when the test's own wait begins, and ends with it; its hold follows at once, and
    // lasts until the program reads (or 2 s past `input_settle`).
    let config = Config { input_settle: Duration::from_secs(2), ..Config::default() };
    let engine = Engine::new(config).unwrap();
    let mut client = Client::serving(engine.clone(), ServeOptions::default());
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let dir = temp_dir("secret-hold-cancel");
    // (The test's secret may reach the engine before the call's look, if the call's thread
    // is slower to run than the test's: the test then tries again.)
    for attempt in 1.. {
        assert!(attempt <= 10, "the call never held before the test's secret");
        let gate = dir.join(format!("gate-{attempt}"));
        assert!(std::process::Command::new("mkfifo").arg(&gate).status().unwrap().success());
        let asks = format!(
            "import getpass, os, select, termios, time\nmode = termios.tcgetattr(0)\n\
             mode[3] &= ~termios.ECHO\ntermios.tcsetattr(0, termios.TCSANOW, mode)\n\
             print('Code: ', end='', flush=True)\ngate = os.open({:?}, os.O_RDWR)\n\
             p = select.poll()\np.register(0, 0)\np.register(gate, select.POLLIN)\np.poll()\n\
             p = getpass.getpass('')\n\
             print('RIGHT' if p == '{secret}' else 'WRONG', flush=True)\ntime.sleep(60)\n",
            gate.to_str().unwrap()
        );
        let start = json!({"argv": ["python3", "-c", asks], "for_screen_text": "Code:"});
        let id = client.tool("terminal_start", start)["session_id"].clone();
        let session = engine.session(termloom::SessionId(id.as_u64().unwrap())).unwrap();
        let call = client.send_request(
            "tools/call",
            json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}}),
        );
        common::expect(&session, termloom::Until::input_wait());
        // (A round trip through the server, for the call's thread to reach its hold first.)
        assert_eq!(client.ok("ping", json!({})), json!({}));
        // A secret sent now is refused while the call holds; sent before the call's look, it
        // is held itself, and the call is refused (that attempt tells nothing of the
        // cancellation).
        let said = format!("a secret is already being asked for session {id}");
        let (held, probe) = crossbeam_channel::bounded(1);
        let probing = session.clone();
        std::thread::spawn(move || held.send(probing.send_secret(secret)));
        let (key, lines) = (call.to_string(), client.lines.clone());
        let first = loop {
            if let Some(response) = client.stash.remove(&key) {
                break Err(response);
            }
            crossbeam_channel::select! {
                recv(probe) -> answer => break Ok(answer.unwrap()),
                recv(lines) -> line => {
                    let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
                    match message.get("id") {
                        Some(id) if !id.is_null() => {
                            client.stash.insert(id.to_string(), message);
                        }
                        _ => client.other.push(message),
                    }
                },
                default(LONG) => panic!("neither the call nor the secret beside it was answered"),
            }
        };
        match first {
            Ok(Err(err)) if err.code() == "secret_pending" => {
                assert!(err.to_string().starts_with(&said), "{err}");
            }
            Err(response) => {
                let result = &response["result"];
                assert_eq!(result["_meta"]["termloom/error_code"], "secret_pending", "{result}");
                assert!(text(result).starts_with(&said), "{result}");
                std::fs::write(&gate, "go").unwrap();
                probe.recv_timeout(LONG).unwrap().expect("the secret held is typed");
                common::expect(&session, termloom::Until::text("RIGHT"));
                client.tool("terminal_close", json!({"session_id": id}));
                continue;
            }
            Ok(other) => panic!("the call did not hold, or was not seen to: {other:?}"),
        }
        // The call holds for the reader: cancelled now, it must ask no one once it reads.
        client.notify("notifications/cancelled", json!({"requestId": call, "reason": "test"}));
        // (Answered once the cancellation was taken.)
        assert_eq!(client.ok("ping", json!({})), json!({}));
        std::fs::write(&gate, "go").unwrap();
        client.until_call_ended(&call);
        let asked = client.stash.values().chain(&client.other).find(|m| m.get("method").is_some());
        assert!(asked.is_none(), "the person was asked: {asked:?}");
        // Nothing was typed: the program reads the secret sent now.
        session.send_secret(secret).unwrap();
        common::expect(&session, termloom::Until::text("RIGHT"));
        client.tool("terminal_close", json!({"session_id": id}));
        break;
    }
    let _ = std::fs::remove_dir_all(&dir);
    client.finish();
}

/// While a person is asked for a session's secret (the MCP call's question open), the
/// session's secret is taken: a library secret, a second call of the same client and a call
/// of another connection to the same engine are refused `secret_pending` at once, typing
/// nothing and asking no one. The call lets it go however it ends: declined, cancelled,
/// typed or timed out. It was held only during the call's look before it asked: the library's
/// secret was typed (`got lib`), and the other connection asked the person again.
#[test]
fn a_secret_being_asked_for_is_refused_to_others_until_the_call_ends() {
    if !require("python3") {
        return;
    }
    let engine = Engine::new(Config::default()).unwrap();
    let mut client = Client::serving(engine.clone(), ServeOptions::default());
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let quick = std::time::Duration::from_secs(2);
    let options = ServeOptions { elicitation_timeout: quick, ..ServeOptions::default() };
    let mut other = Client::serving(engine.clone(), options);
    other.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let asks = "import getpass\nwhile True:\n    p = getpass.getpass('Password: ')\n    \
                print('got ' + p, flush=True)\n";
    let start = json!({"argv": ["python3", "-c", asks], "input_wait": true});
    let id = client.tool("terminal_start", start)["session_id"].clone();
    let session = engine.session(termloom::SessionId(id.as_u64().unwrap())).unwrap();
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let pending = format!("a secret is already being asked for session {id}");
    // Each secret the library sends once the call has ended is typed (the program reads it).
    let typed = |secret: &str| {
        common::expect(&session, termloom::Until::input_wait());
        session.send_secret(secret).expect("typed once the call ended");
        common::expect(&session, termloom::Until::text(format!("got {secret}")));
    };
    let refused = |client: &mut Client| {
        let err = session.send_secret("lib").expect_err("refused while a person is asked");
        assert_eq!(err.code(), "secret_pending", "{err}");
        assert!(err.to_string().starts_with(&pending), "{err}");
        let began = Instant::now();
        let result = client.call("terminal_send", send["arguments"].clone());
        assert_eq!(result["_meta"]["termloom/error_code"], "secret_pending", "{result}");
        assert!(began.elapsed() < Duration::from_secs(5), "{:?}", began.elapsed());
    };

    // Declined.
    let call = client.send_request("tools/call", send.clone());
    let question = client.response(&json!("termloom-elicit-1"));
    assert_eq!(question["method"], "elicitation/create", "{question}");
    refused(&mut client);
    refused(&mut other);
    let asked = other.stash.values().chain(&other.other).find(|m| m.get("method").is_some());
    assert!(asked.is_none(), "the other connection asked the person again: {asked:?}");
    client.send(
        &json!({"jsonrpc": "2.0", "id": "termloom-elicit-1", "result": {"action": "decline"}}),
    );
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["_meta"]["termloom/error_code"], "declined", "{result}");
    let shown = session.screen().unwrap().text();
    assert!(!shown.contains("got lib"), "the library's secret was typed: {shown}");
    typed("after-decline");

    // Cancelled.
    let call = client.send_request("tools/call", send.clone());
    client.response(&json!("termloom-elicit-2"));
    refused(&mut client);
    client.notify("notifications/cancelled", json!({"requestId": call, "reason": "test"}));
    client.until_call_ended(&call);
    typed("after-cancel");

    // Typed.
    let call = client.send_request("tools/call", send.clone());
    let question = client.answer(3, json!({"action": "accept"}));
    refused(&mut client);
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    page.post("person");
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], false, "{result}");
    common::expect(&session, termloom::Until::text("got person"));
    typed("after-person");

    // Timed out (the other connection's question, which it does not answer).
    let call = other.send_request("tools/call", send.clone());
    other.response(&json!("termloom-elicit-1"));
    let result = other.response(&call)["result"].clone();
    assert_eq!(result["_meta"]["termloom/error_code"], "no_answer", "{result}");
    assert!(text(&result).contains("did not type the secret within"), "{result}");
    typed("after-timeout");

    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
    other.finish();
}

/// A secret call queued behind its client's long call on the session (a `terminal_send`
/// waiting for a password prompt that comes only once the test types a line) holds the
/// session's secret, but no one is asked yet, and the refusals say so: the library's, the
/// same client's second secret call's (answered at once, not queued behind the turn) and
/// another connection's. Once the long call ends and the queued one asks the person, they
/// say a person is asked. They said a person was asked while the call only waited.
#[test]
fn a_secret_call_queued_behind_its_clients_long_call_says_no_one_is_asked_yet() {
    if !require("python3") {
        return;
    }
    let engine = Engine::new(Config::default()).unwrap();
    let mut client = Client::serving(engine.clone(), ServeOptions::default());
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let mut other = Client::serving(engine.clone(), ServeOptions::default());
    other.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let asks = "import getpass\nwhile True:\n    p = getpass.getpass('Password: ')\n    \
                print('got ' + p, flush=True)\n";
    // (The second `read` reads the terminal with echo on: a secret would show there, so the
    // library's is refused at once, not held as for a program on its way to its prompt.)
    let script = "read -r go; read -r open; exec python3 -c \"$ASKS\"";
    let start = json!({"argv": ["bash", "-c", script], "env": {"ASKS": asks}, "input_wait": true});
    let id = client.tool("terminal_start", start)["session_id"].clone();
    let session = engine.session(termloom::SessionId(id.as_u64().unwrap())).unwrap();
    // The long call: it has the session's turn once its line is echoed, and waits on.
    let long = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "text": "go", "submit": true, "for_screen_text": "Password:", "timeout_ms": 600_000}}),
    );
    common::expect(&session, termloom::Until::text("go"));
    // (Its reader seen: a secret sent before would be held for the program's prompt.)
    common::expect(&session, termloom::Until::input_wait());
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let queued = client.send_request("tools/call", send.clone());
    // Until the queued call claims the secret, the library's is refused for the echoing
    // terminal (`not_at_password_prompt`), typing nothing.
    let deadline = Instant::now() + LONG;
    let refused = loop {
        let err = session.send_secret("lib").expect_err("no password prompt yet");
        if err.code() == "secret_pending" {
            break err.to_string();
        }
        assert_eq!(err.code(), "not_at_password_prompt", "{err}");
        assert!(Instant::now() < deadline, "the queued call never claimed the secret");
    };
    let not_yet = format!("a secret is already claimed for session {id}");
    assert!(refused.starts_with(&not_yet), "{refused}");
    assert!(refused.contains("no one is asked yet"), "{refused}");
    for client in [&mut client, &mut other] {
        let began = Instant::now();
        let result = client.call("terminal_send", send["arguments"].clone());
        assert_eq!(result["_meta"]["termloom/error_code"], "secret_pending", "{result}");
        assert!(text(&result).starts_with(&not_yet), "{result}");
        assert!(began.elapsed() < Duration::from_secs(5), "{:?}", began.elapsed());
    }
    let asked = client.stash.values().chain(&client.other).find(|m| m.get("method").is_some());
    assert!(asked.is_none(), "the person was asked while the call waited: {asked:?}");
    // The long call ends on the password prompt; the queued call asks the person.
    session.submit("open").unwrap();
    let result = client.response(&long)["result"].clone();
    assert_eq!(result["isError"], false, "{}", text(&result));
    let question = client.response(&json!("termloom-elicit-1"));
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let refused = session.send_secret("lib").expect_err("a person is asked");
    let asking =
        format!("a secret is already being asked for session {id}: another call asks a person");
    assert!(refused.to_string().starts_with(&asking), "{refused}");
    let result = other.call("terminal_send", send["arguments"].clone());
    assert!(text(&result).starts_with(&asking), "{result}");
    client.send(
        &json!({"jsonrpc": "2.0", "id": "termloom-elicit-1", "result": {"action": "decline"}}),
    );
    let result = client.response(&queued)["result"].clone();
    assert_eq!(result["_meta"]["termloom/error_code"], "declined", "{result}");
    // Let go: the library's secret is typed.
    session.send_secret("after").expect("typed once the call ended");
    common::expect(&session, termloom::Until::text("got after"));
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
    other.finish();
}

/// Starts `argv`, which asks for `secret` and then for a line, and types the secret the
/// person posts through the page whose address the URL-mode question gives.
fn a_secret_is_typed_and_never_shown(argv: &serde_json::Value, secret: &str) {
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let started = client.tool("terminal_start", json!({"argv": argv, "input_wait": true}));
    let id = started["session_id"].clone();
    // Not at a password prompt yet? It is: bash reads with echo off. A second secret later,
    // at the echoing `more:` prompt, is refused without asking anyone.
    let call = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true, "input_wait": true}}),
    );
    let question = client.answer(1, json!({"action": "accept"}));
    let params = &question["params"];
    assert_eq!(params["mode"], "url", "{question}");
    assert!(params.get("requestedSchema").is_none(), "{question}");
    let asked = params["message"].as_str().unwrap();
    assert!(
        asked.contains("Password:") && asked.starts_with("python3 (session"),
        "{argv}: {asked}"
    );
    let page = SecretPage::of(params["url"].as_str().unwrap());
    let form = page.get();
    assert!(form.starts_with("HTTP/1.1 200") && form.contains("type=\"password\""), "{form}");
    assert!(form.contains("<b>python3</b>") && form.contains("no-store"), "{form}");
    assert!(form.contains("maxlength=\"4095\""), "{form}");
    let typed = page.post(secret);
    assert!(typed.contains("Typed."), "{typed}");
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], false, "{argv}: {}", text(&result));
    assert!(text(&result).contains("RIGHT"), "{argv}: {}", text(&result));
    let complete =
        client.other.iter().find(|m| m["method"] == "notifications/elicitation/complete");
    let complete = complete.unwrap_or_else(|| panic!("no completion: {:?}", client.other));
    assert_eq!(complete["params"]["elicitationId"], params["elicitationId"]);
    // The page took one secret and closed.
    assert!(page.refused(), "a second POST reached the page");
    let refused = client.tool_error("terminal_send", json!({"session_id": id, "secret": true}));
    assert!(refused.contains("not at a password prompt"), "{argv}: {refused}");
    let read = client.tool("terminal_read", json!({"session_id": id, "view": "scrollback"}));
    let everything = format!("{read}{result}{}", serde_json::to_string(&client.other).unwrap());
    assert!(!everything.contains(secret), "the secret leaked: {everything}");
    client.finish();
}

/// The page of a URL-mode question for a secret, as a browser reaches it.
struct SecretPage {
    address: String,
    path: String,
}

impl SecretPage {
    fn of(url: &str) -> SecretPage {
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("{url}"));
        let (port, token) = rest.split_once('/').unwrap();
        assert_eq!(token.len(), 32, "a 128-bit token: {url}");
        SecretPage { address: format!("127.0.0.1:{port}"), path: format!("/{token}") }
    }

    /// Sends `request` whole and reads the answer to the end; `None` when no connection.
    fn exchange(&self, request: &str) -> Option<String> {
        use std::io::Read;
        let mut stream = std::net::TcpStream::connect(&self.address).ok()?;
        stream.set_read_timeout(Some(LONG)).unwrap();
        stream.write_all(request.as_bytes()).ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        (!answer.is_empty()).then_some(answer)
    }

    fn get_with(&self, path: &str, host: &str) -> String {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n");
        self.exchange(&request).expect("the page answers")
    }

    fn get(&self) -> String {
        self.get_with(&self.path, &self.address)
    }

    fn post_with(&self, path: &str, host: &str, secret: &str) -> Option<String> {
        let body = format!("secret={secret}");
        self.exchange(&format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ))
    }

    fn post(&self, secret: &str) -> String {
        self.post_with(&self.path, &self.address, secret).expect("the page answers")
    }

    /// Whether the page is closed (no connection, or no answer).
    fn refused(&self) -> bool {
        self.post_with(&self.path, &self.address, "again").is_none()
    }
}

/// The page refuses a wrong token and a wrong `Host` (DNS rebinding) and stays open for the
/// person; a declined question closes it at once, types nothing and says so.
#[test]
fn a_secret_page_refuses_strangers_and_closes_when_declined() {
    if !require("bash") {
        return;
    }
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"form": {}, "url": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let call = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}}),
    );
    let question = client.response(&json!("termloom-elicit-1"));
    assert_eq!(question["params"]["mode"], "url", "{question}");
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    let wrong_token = format!("/{}", "0".repeat(32));
    assert!(page.get_with(&wrong_token, &page.address).starts_with("HTTP/1.1 404"));
    let posted = page.post_with(&wrong_token, &page.address, "x").unwrap();
    assert!(posted.starts_with("HTTP/1.1 404"), "{posted}");
    let port = page.address.rsplit(':').next().unwrap();
    for host in [format!("evil.example:{port}"), format!("localhost:{port}"), String::new()] {
        let got = page.get_with(&page.path, &host);
        assert!(got.starts_with("HTTP/1.1 421"), "{host}: {got}");
        let posted = page.post_with(&page.path, &host, "x").unwrap();
        assert!(posted.starts_with("HTTP/1.1 421"), "{host}: {posted}");
    }
    // A form too long, or not a form, is refused without taking the one POST.
    let long = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n\r\n",
        page.path, page.address
    );
    let refused = page.exchange(&long).unwrap();
    assert!(refused.starts_with("HTTP/1.1 413"), "{refused}");
    let json = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}",
        page.path, page.address
    );
    let refused = page.exchange(&json).unwrap();
    assert!(refused.starts_with("HTTP/1.1 415"), "{refused}");
    // An escape is two hex digits: "%+A" is not a line break (it was decoded as one, and the
    // POST taken).
    let refused = page.post_with(&page.path, &page.address, "%+A").unwrap();
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    assert!(page.get().contains("<b>bash</b>"), "still open for the person");
    client.send(
        &json!({"jsonrpc": "2.0", "id": "termloom-elicit-1", "result": {"action": "decline"}}),
    );
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("declined") && text(&result).contains("nothing was typed"));
    assert!(page.refused(), "the page outlived the decline");
    let read = client.tool("terminal_read", json!({"session_id": id}));
    assert!(!text(&read).contains("got"), "something was typed: {read}");
    // A client that asks by forms alone is not asked for a password at all.
    client.finish();
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"form": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let refused = client.tool_error("terminal_send", json!({"session_id": id, "secret": true}));
    assert!(refused.contains("forbids asking for a password by a form"), "{refused}");
    let asked = client.stash.values().chain(&client.other).any(|m| m.get("method").is_some());
    assert!(!asked, "the person was asked: {:?} {:?}", client.stash, client.other);
    client.finish();
}

/// A bash waiting at `read -s` for a password, then printing its length; a client of
/// `capabilities` and the id of that session.
fn a_password_prompt(mut client: Client) -> (Client, Value) {
    let script = "read -r -s -p 'Password: ' p; echo; echo \"got ${#p}\"; read -r q";
    let argv = json!({"argv": ["bash", "-c", script], "input_wait": true});
    let started = client.tool("terminal_start", argv);
    assert_eq!(started["status"]["input_kind"], "password", "{started}");
    (client, started["session_id"].clone())
}

/// On the stateless revision the page's address comes in an `input_required` round; the
/// retry with the person's consent waits for the secret posted through it. A declined retry
/// closes the page.
#[test]
fn a_secret_is_typed_through_a_page_across_stateless_rounds() {
    if !require("bash") {
        return;
    }
    let client = Client::discovered_on(Client::start(), json!({"elicitation": {"url": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let round = |client: &mut Client| {
        let first = client.ok("tools/call", send.clone());
        assert_eq!(first["resultType"], "input_required", "{first}");
        let (key, question) = first["inputRequests"].as_object().unwrap().iter().next().unwrap();
        assert_eq!(question["method"], "elicitation/create", "{first}");
        assert_eq!(question["params"]["mode"], "url", "{first}");
        // 2026-07-28 removed elicitationId (and the completion) from URL mode.
        assert!(question["params"].get("elicitationId").is_none(), "{first}");
        let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
        (key.clone(), page)
    };
    let (key, page) = round(&mut client);
    let mut declined = send.clone();
    declined["inputResponses"] = json!({ key: {"action": "decline"} });
    let result = client.ok("tools/call", declined);
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("declined"), "{}", text(&result));
    assert!(page.refused(), "the page outlived the decline");
    // A secret too long is refused without its length (it reached the model).
    let (key, page) = round(&mut client);
    let mut accepted = send.clone();
    accepted["inputResponses"] = json!({ key: {"action": "accept"} });
    let call = client.send_request("tools/call", accepted);
    let said = page.post(&"a".repeat(5_000));
    assert!(said.contains("Not typed") && !said.contains("5000"), "{said}");
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert!(!text(&result).contains("5000"), "{}", text(&result));
    let (key, page) = round(&mut client);
    // One page a session: another round before the retry asks for the same page.
    let (again, same) = round(&mut client);
    assert_eq!((&again, &same.path), (&key, &page.path), "a second page for the session");
    let mut accepted = send.clone();
    accepted["inputResponses"] = json!({ key: {"action": "accept"} });
    let call = client.send_request("tools/call", accepted);
    let secret = "s3cret%20with+a%26";
    assert!(page.post(secret).contains("Typed."));
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], false, "{}", text(&result));
    // "s3cret with a&", decoded from the form.
    assert!(text(&result).contains("got 14"), "{}", text(&result));
    assert!(page.refused(), "a second POST reached the page");
    client.finish();
}

/// Connections that send nothing hold up no other: the page answers the person while four
/// of them are open, and closes each once its head is late (the page served one connection at
/// a time, each for up to 10 s: the person's GET waited 40 s). Run as root, a peer of another
/// uid (nobody) is closed unanswered (it was served the page).
#[test]
fn a_secret_page_answers_its_owner_while_idle_connections_are_open() {
    if !require("bash") || !require("python3") {
        return;
    }
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let call = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}}),
    );
    let question = client.answer(1, json!({"action": "accept"}));
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    if rustix::process::geteuid().is_root() {
        let (host, port) = page.address.split_once(':').unwrap();
        let stranger = format!(
            "import os, socket\nos.setgid(65534); os.setuid(65534)\ns = socket.socket()\ns.connect((b'{host}', {port}))\ns.sendall(b'GET {} HTTP/1.1\\r\\nHost: {}\\r\\n\\r\\n')\ns.settimeout(30)\nprint(len(s.recv(100)))",
            page.path, page.address
        );
        let ran = std::process::Command::new("python3").args(["-c", &stranger]).output().unwrap();
        let said = String::from_utf8_lossy(&ran.stdout);
        assert_eq!(said.trim(), "0", "another uid was answered: {said} {ran:?}");
    }
    let idle: Vec<std::net::TcpStream> =
        (0..4).map(|_| std::net::TcpStream::connect(&page.address).unwrap()).collect();
    assert!(page.get().starts_with("HTTP/1.1 200"), "the person's GET waited");
    assert!(page.post("pw").contains("Typed."));
    let result = client.response(&call)["result"].clone();
    assert!(text(&result).contains("got 2"), "{}", text(&result));
    for mut stream in idle {
        use std::io::Read;
        stream.set_read_timeout(Some(LONG)).unwrap();
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).expect("an idle connection is closed");
    }
    client.finish();
}

/// A secret posted before a declined retry is not typed, and the page says at once that the
/// question was closed (the decline's close waited 30 s for the post held in the page's own
/// channel, then told the person "no call took it in time; call again").
#[test]
fn a_secret_posted_before_a_declined_retry_is_answered_at_once() {
    if !require("bash") {
        return;
    }
    let client = Client::discovered_on(Client::start(), json!({"elicitation": {"url": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    // The POST and the decline race: retried until the POST reached the page first.
    for _ in 0..20 {
        let first = client.ok("tools/call", send.clone());
        let (key, question) = first["inputRequests"].as_object().unwrap().iter().next().unwrap();
        let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
        let posting = std::thread::spawn(move || page.post_with(&page.path, &page.address, "x"));
        let mut declined = send.clone();
        declined["inputResponses"] = json!({ key.clone(): {"action": "decline"} });
        let result = client.ok("tools/call", declined);
        assert!(text(&result).contains("declined"), "{}", text(&result));
        let Some(answer) = posting.join().unwrap() else { continue };
        assert!(!answer.contains("call again"), "{answer}");
        if answer.contains("Not typed: the question was closed.") {
            let read = client.tool("terminal_read", json!({"session_id": id}));
            assert!(!text(&read).contains("got"), "something was typed: {read}");
            client.finish();
            return;
        }
        // The decline came more than 3 s after the POST: the secret was held for the retry,
        // which declined; nothing was typed either.
        if answer.contains("Received") {
            let read = client.tool("terminal_read", json!({"session_id": id}));
            assert!(!text(&read).contains("got"), "something was typed: {read}");
            continue;
        }
        assert!(answer.contains("no one is waiting"), "{answer}");
    }
    panic!("the POST never reached the page before the decline");
}

/// A client that retries only once the person posted the page (the MCP Inspector's flow) has
/// the secret typed by its retry at once, and the person is told at once that it was received
/// (the page waited 30 s for a call, then said "call again", and so did the retry).
#[test]
fn a_secret_posted_before_the_retry_is_typed_by_the_retry() {
    if !require("bash") {
        return;
    }
    let client = Client::discovered_on(Client::start(), json!({"elicitation": {"url": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let first = client.ok("tools/call", send.clone());
    let (key, question) = first["inputRequests"].as_object().unwrap().iter().next().unwrap();
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    let started = Instant::now();
    let said = page.post("pw3");
    assert!(said.contains("Received") && !said.contains("call again"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(20), "the page waited for a call");
    assert!(page.refused(), "the page took a second secret");
    let mut accepted = send;
    accepted["inputResponses"] = json!({ key.clone(): {"action": "accept"} });
    let result = client.ok("tools/call", accepted);
    assert_eq!(result["isError"], false, "{}", text(&result));
    assert!(text(&result).contains("got 3"), "{}", text(&result));
    assert!(!text(&result).contains("pw3"), "{}", text(&result));
    client.finish();
}

/// A secret held for the retry is typed only for the process and the prompt its page was
/// opened for: once another process asks (a second `getpass`, which would print it, as
/// `python3` or `ssh` to another host may ask once `sudo` gave up), or the same one at
/// another prompt, the retry types nothing and says to call again; the next round opens
/// another page (the retry typed the secret into whatever asked then: "leaked pw3").
#[test]
fn a_secret_held_for_the_retry_is_typed_only_where_it_was_asked_for() {
    if !require("bash") || !require("python3") {
        return;
    }
    let asks_again = [
        "python3 -c 'import getpass; getpass.getpass(\"Password: \")'; python3 -c 'import getpass; print(\"leaked\", getpass.getpass(\"Password: \"))'; read -r q",
        "read -r -s -p 'Password: ' p; echo; read -r -s -p 'Other: ' q; echo \"leaked $q\"; read -r q",
    ];
    for script in asks_again {
        let client = Client::discovered_on(Client::start(), json!({"elicitation": {"url": {}}}));
        let mut client = client;
        let argv = json!({"argv": ["bash", "-c", script], "input_wait": true});
        let started = client.tool("terminal_start", argv);
        assert_eq!(started["status"]["input_kind"], "password", "{started}");
        let id = started["session_id"].clone();
        let send =
            json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
        let first = client.ok("tools/call", send.clone());
        let (key, question) = first["inputRequests"].as_object().unwrap().iter().next().unwrap();
        let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
        let said = page.post("pw3");
        assert!(said.contains("Received") && said.contains("nothing is typed"), "{said}");
        // The prompt ends without it (sudo's own timeout), and another asks.
        let next = client
            .call("terminal_send", json!({"session_id": id, "text": "\n", "input_wait": true}));
        assert_eq!(next["structuredContent"]["status"]["input_kind"], "password", "{next}");
        let mut accepted = send.clone();
        accepted["inputResponses"] = json!({ key.clone(): {"action": "accept"} });
        let result = client.ok("tools/call", accepted);
        let said = text(&result);
        assert_eq!(result["isError"], true, "{script}: {said}");
        assert!(said.contains("nothing was typed") && said.contains("call again"), "{said}");
        let read = client.tool("terminal_read", json!({"session_id": id, "view": "scrollback"}));
        assert!(!read.to_string().contains("leaked"), "{script}: typed: {read}");
        // A new question gets a page of its own.
        let again = client.ok("tools/call", send);
        let (other, _) = again["inputRequests"].as_object().unwrap().iter().next().unwrap();
        assert_ne!(other, key, "{again}");
        client.tool("terminal_close", json!({"session_id": id}));
        client.finish();
    }
}

/// On a handshake revision the call waits while the person types: a secret posted once
/// another process asks (the first ended) is not typed, and the page and the call say why (it
/// was typed into the second program, which printed it).
#[test]
fn a_secret_posted_once_another_program_asks_is_not_typed() {
    if !require("bash") || !require("python3") || !require("mkfifo") {
        return;
    }
    let fifo = std::env::temp_dir().join(format!("termloom-secret-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // The second asks with echo off, then says so through the FIFO.
    let second = format!(
        "import sys, termios; a = termios.tcgetattr(0); a[3] &= ~termios.ECHO; termios.tcsetattr(0, termios.TCSANOW, a); print(\"Password: \", end=\"\", flush=True); open(\"{}\", \"w\").write(\"r\"); print(\"leaked\", sys.stdin.readline())",
        fifo.display()
    );
    let script = format!(
        "python3 -c 'import getpass; getpass.getpass(\"Password: \")'; python3 -c '{second}'; read -r q"
    );
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    let argv = json!({"argv": ["bash", "-c", script], "input_wait": true});
    let started = client.tool("terminal_start", argv);
    let id = started["session_id"].clone();
    let first = &started["status"]["foreground"];
    assert_eq!(first["name"], "python3", "{started}");
    let call = client.send_request(
        "tools/call",
        json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}}),
    );
    let question = client.answer(1, json!({"action": "accept"}));
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    // While the person types, the first gives up, and the second asks.
    let pid = rustix::process::Pid::from_raw(first["pid"].as_i64().unwrap() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let mut asked = String::new();
    std::io::Read::read_to_string(&mut std::fs::File::open(&fifo).unwrap(), &mut asked).unwrap();
    let _ = std::fs::remove_file(&fifo);
    let said = page.post("pw3");
    assert!(said.contains("Not typed") && said.contains("call again"), "{said}");
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], true, "{}", text(&result));
    assert!(text(&result).contains("nothing was typed"), "{}", text(&result));
    let read = client.tool("terminal_read", json!({"session_id": id, "view": "scrollback"}));
    assert!(!read.to_string().contains("leaked"), "typed: {read}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A retry answering many questions is read once, whatever their number: 4,000 keys that
/// name no waiting page, as many as a message's 16,384 values hold, are answered with a new
/// round at once (each key parsed the whole answers again and looked at every waiting page's
/// session: 50,000 of them, hours of work).
#[test]
fn a_secret_retry_with_many_answers_is_read_once() {
    if !require("bash") {
        return;
    }
    let client = Client::discovered_on(Client::start(), json!({"elicitation": {"url": {}}}));
    let (mut client, id) = a_password_prompt(client);
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let first = client.ok("tools/call", send.clone());
    let (key, _) = first["inputRequests"].as_object().unwrap().iter().next().unwrap();
    let mut answers: serde_json::Map<String, Value> =
        (0..4_000).map(|n| (format!("secret-{n:032}"), json!({"action": "decline"}))).collect();
    let mut retry = send.clone();
    retry["inputResponses"] = Value::Object(answers.clone());
    let again = client.ok("tools/call", retry);
    assert_eq!(again["resultType"], "input_required", "{again}");
    // The round's own key among them still finds its page.
    answers.insert(key.clone(), json!({"action": "decline"}));
    let mut declined = send;
    declined["inputResponses"] = Value::Object(answers);
    let result = client.ok("tools/call", declined);
    assert!(text(&result).contains("declined"), "{}", text(&result));
    client.finish();
}

/// The call's cancellation and the session's end close the page at once.
#[test]
fn a_secret_page_closes_when_its_call_is_cancelled_or_its_session_ends() {
    if !require("bash") {
        return;
    }
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    client.notify("notifications/initialized", json!({}));
    let (mut client, id) = a_password_prompt(client);
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let call = client.send_request("tools/call", send.clone());
    let question = client.response(&json!("termloom-elicit-1"));
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    assert!(page.get().starts_with("HTTP/1.1 200"));
    client.notify("notifications/cancelled", json!({"requestId": call}));
    // The server gives the question up once the page is closed.
    let deadline = Instant::now() + LONG;
    while !client.other.iter().any(|m| m["method"] == "notifications/cancelled") {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = client.next(left).expect("the question is cancelled with the client");
        client.other.push(message);
    }
    assert!(page.refused(), "the page outlived the call's cancellation");
    let call = client.send_request("tools/call", send);
    let question = client.answer(2, json!({"action": "accept"}));
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    client.tool("terminal_close", json!({"session_id": id}));
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("session ended"), "{}", text(&result));
    assert!(page.refused(), "the page outlived the session");
    client.finish();
}

/// A `termloom server` connection (here `termloom mcp --server`'s) whose client goes away
/// while its person is asked for a secret lets go of the session's secret: the session
/// outlives the connection, and another connection's secret call asks its person at once
/// (no `secret_pending`), whose secret is typed; the first question's page is closed. (The
/// claim is let go when the call ends, which the end of the connection brings; a plain
/// `termloom mcp`'s end stops its engine and every session with it.)
#[test]
fn a_secret_claim_is_let_go_when_its_servers_client_goes_away() {
    if !require("python3") {
        return;
    }
    let dir = common::TestDir::new("secret-gone");
    let socket = dir.join("s");
    let mut server = common::start_server(&socket, &[]);
    let connect = || {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_termloom"))
            .args(["mcp", "--server", "--socket"])
            .arg(&socket)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut client = Client::of_process(child);
        client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
        client.notify("notifications/initialized", json!({}));
        client
    };
    let mut first = connect();
    let asks = "import getpass\nwhile True:\n    p = getpass.getpass('Password: ')\n    \
                print('got ' + p, flush=True)\n";
    let start = json!({"argv": ["python3", "-c", asks], "input_wait": true});
    let id = first.tool("terminal_start", start)["session_id"].clone();
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    first.send_request("tools/call", send.clone());
    let question = first.response(&json!("termloom-elicit-1"));
    let abandoned = SecretPage::of(question["params"]["url"].as_str().unwrap());
    // The client goes away mid-question: its input ends, and its proxy exits.
    first.finish();
    let mut second = connect();
    // (The server may not have seen the first connection end yet: its claim, still held,
    // is refused at once, until its call ends.)
    let deadline = Instant::now() + LONG;
    let call = loop {
        let call = second.send_request("tools/call", send.clone());
        let message = loop {
            let message = second.next(LONG).expect("an answer or a question");
            match message.get("id") {
                Some(found) if *found == call => break message,
                Some(found) if found == "termloom-elicit-1" => break message,
                _ => second.other.push(message),
            }
        };
        if message["method"] == "elicitation/create" {
            second.stash.insert(message["id"].to_string(), message);
            break call;
        }
        let result = &message["result"];
        assert_eq!(result["_meta"]["termloom/error_code"], "secret_pending", "{result}");
        assert!(Instant::now() < deadline, "the gone client's claim was never let go");
    };
    let question = second.answer(1, json!({"action": "accept"}));
    assert!(abandoned.refused(), "the gone client's page is still open");
    let page = SecretPage::of(question["params"]["url"].as_str().unwrap());
    assert!(page.post("second").contains("Typed."));
    let result = second.response(&call)["result"].clone();
    assert_eq!(result["isError"], false, "{}", text(&result));
    let read = second.call("terminal_read", json!({"session_id": id, "view": "scrollback"}));
    assert!(text(&read).contains("got second"), "{}", text(&read));
    second.tool("terminal_close", json!({"session_id": id}));
    second.finish();
    let _ = server.kill();
    let _ = server.wait();
}

/// A secret's look at who asks waits (up to 2 s) for the session to settle; a program that
/// keeps printing at its prompt never does, and a cancelled call stops waiting at once, not
/// when the look gives up.
#[test]
fn a_secret_call_cancelled_while_the_program_prints_ends_at_once() {
    if !require("bash") {
        return;
    }
    let mut client = Client::start();
    client.initialize_with("2025-11-25", json!({"elicitation": {"url": {}}}));
    client.notify("notifications/initialized", json!({}));
    let script = "stty -echo; while :; do printf .; sleep 0.1; done";
    let started = client.tool("terminal_start", json!({"argv": ["bash", "-c", script]}));
    let id = started["session_id"].clone();
    let send = json!({"name": "terminal_send", "arguments": {"session_id": id, "secret": true}});
    let call = client.send_request("tools/call", send);
    // The look is pending once the session lists its wait.
    let deadline = Instant::now() + LONG;
    while client.tool("terminal_list", json!({}))["sessions"][0]["pending_waits"] != 1 {
        assert!(Instant::now() < deadline, "the look never became pending");
    }
    client.notify("notifications/cancelled", json!({"requestId": call, "reason": "test"}));
    let cancelled = Instant::now();
    client.until_call_ended(&call);
    let took = cancelled.elapsed();
    assert!(took < Duration::from_secs(1), "the cancelled call went on for {took:?}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A password prompt on a terminal a relay hosts counts only while the session's own terminal,
/// which the secret passes through first, does not echo: a relay that leaves it echoing gets a
/// refusal before the person is asked (no `input_required` round).
#[test]
fn a_secret_is_not_asked_for_through_a_relay_whose_terminal_echoes() {
    if !require("python3") {
        return;
    }
    let mut client = Client::discovered_on(Client::start(), json!({"elicitation": {}}));
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["python3", "-c", ECHOING_RELAY], "input_wait": true}),
    );
    assert_eq!(started["status"]["input_kind"], "password", "{started}");
    let id = started["session_id"].clone();
    let refused = client.call("terminal_send", json!({"session_id": id, "secret": true}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&refused).contains("not at a password prompt"), "{}", text(&refused));
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// A wait sent with a submitted line waits for the program's answer, not for the line's own
/// echo: `echo done` typed at a prompt does not match `done` before the command prints it.
#[test]
fn a_submitted_lines_echo_does_not_end_its_wait() {
    if !require(&shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let id = client.tool("terminal_start", json!({}))["session_id"].clone();
    for (how, send) in [
        ("submit", json!({"text": "sleep 0.5; echo done", "submit": true})),
        ("keys", json!({"keys": "sleep 0.5; echo done<Enter>"})),
    ] {
        let mut arguments = send;
        arguments["session_id"] = id.clone();
        arguments["for_text"] = json!("done");
        let sent = client.tool("terminal_send", arguments);
        assert_eq!(sent["wait"]["outcome"], "matched", "{how}: {sent}");
        let elapsed = sent["wait"]["elapsed_ms"].as_u64().unwrap();
        assert!(elapsed >= 400, "{how}: matched the echo after {elapsed} ms: {sent}");
        // Typing without a submit still matches what it types (the line is the answer).
        let typed = client.tool(
            "terminal_send",
            json!({"session_id": id, "text": "echo typed", "for_text": "typed"}),
        );
        assert_eq!(typed["wait"]["outcome"], "matched", "{how}: {typed}");
        client.tool("terminal_send", json!({"session_id": id, "keys": "<C-u>"}));
    }
    client.finish();
}

/// A line submitted while a flood of output is still unread (`seq 200000` before a `read`):
/// the line taken as the first piece is typed is an older one than where the terminal's echo
/// lands, mid-flood (`13179done`), and a wait for `done` matched that echo, not the answer
/// `got done`.
#[test]
fn a_submitted_lines_echo_past_a_flood_does_not_end_its_wait() {
    if !require("sh") || !require("seq") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["sh", "-c", "seq 200000; read x; echo \"got $x\"; read y"]);
    for (how, send) in [
        ("submit", json!({"text": "done", "submit": true})),
        ("keys", json!({"keys": "done<Enter>"})),
    ] {
        let started = client.tool("terminal_start", json!({"argv": argv, "for_text": "10000"}));
        assert_eq!(started["wait"]["outcome"], "matched", "{how}: {started}");
        let id = started["session_id"].clone();
        let mut arguments = send;
        arguments["session_id"] = id.clone();
        arguments["for_regex"] = json!(".*done");
        let sent = client.tool("terminal_send", arguments);
        assert_eq!(sent["wait"]["outcome"], "matched", "{how}: {}", sent["wait"]);
        assert_eq!(sent["wait"]["matched_text"], "got done", "{how}: {}", sent["wait"]);
        client.tool("terminal_close", json!({"session_id": id}));
    }
    client.finish();
}

/// `terminal_send`'s wait after a submitted line takes no answer for its echo: not
/// `got done␠␠.` to `done␠␠` typed (the transcript keeps the line typed on as `Name: done`,
/// without its blanks: the echo was not found there, and the answer was taken for it, every
/// run), nor `got done` after the program redrew the line typed on as `* Name: done` (taken
/// for the echo when no look came between the echo and the redraw, 8 of 10 runs; tried ten
/// times).
#[test]
fn an_answer_holding_the_typed_text_does_not_pass_for_its_echo() {
    if !require("sh") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let blanks = "printf 'Name: '; IFS= read -r x; echo \"got $x.\"; read y";
    let redrawn = "printf 'Name: '; read x; printf '\\033[A\\r\\033[K* Name: %s\\n' \"$x\"; echo \"got $x\"; read y";
    let runs =
        std::iter::once((blanks, "done  ")).chain(std::iter::repeat_n((redrawn, "done"), 10));
    for (script, text) in runs {
        let argv = json!(["sh", "-c", script]);
        let started = client.tool("terminal_start", json!({"argv": argv, "for_text": "Name:"}));
        assert_eq!(started["wait"]["outcome"], "matched", "{started}");
        let id = started["session_id"].clone();
        let send = json!({"session_id": id, "text": text, "submit": true, "for_regex": "got done"});
        let sent = client.tool("terminal_send", send);
        assert_eq!(sent["wait"]["outcome"], "matched", "{script}: {}", sent["wait"]);
        client.tool("terminal_close", json!({"session_id": id}));
    }
    client.finish();
}

/// Whether keys submit a line is the engine's rule: to a shell's `read` (the terminal reading
/// whole lines, `ICRNL`), Alt-Enter, `ESC \r`, ends the line `ESC` began, so a wait sent with
/// it waits for the answer, not for the line's echo. `terminal_send` judged it by the
/// program's rule alone (Alt-Enter is a new line in zsh's command): `for_text` matched the
/// echo `answer^[` at once, before the shell printed `answer` half a second later.
#[test]
fn keys_the_line_discipline_ends_a_line_on_submit_it() {
    if !require("sh") {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["sh", "-c", "read line; sleep 0.5; echo answer; read line"]);
    let started = client.tool("terminal_start", json!({"argv": argv, "input_wait": true}));
    let id = started["session_id"].clone();
    let sent = client.tool(
        "terminal_send",
        json!({"session_id": id, "keys": "answer<M-Enter>", "for_text": "answer"}),
    );
    assert_eq!(sent["wait"]["outcome"], "matched", "{sent}");
    let elapsed = sent["wait"]["elapsed_ms"].as_u64().unwrap();
    assert!(elapsed >= 400, "matched the echo after {elapsed} ms: {sent}");
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// Lines dropped past the transcript's bound before they were read are counted in a note of
/// the result's own, which a small `max_bytes` (that keeps the output's end) cannot cut, and
/// which no advice offers to read.
#[test]
fn lines_dropped_before_a_read_are_told_whatever_is_cut() {
    let config = Config { scrollback_lines: 100, ..Config::default() };
    let mut client =
        Client::serving(Engine::new(config).expect("engine starts"), ServeOptions::default());
    client.initialize("2025-11-25");
    client.notify("notifications/initialized", json!({}));
    let flood = client.call(
        "terminal_start",
        json!({"argv": ["seq", "1", "5000"], "exit": true, "max_bytes": 300}),
    );
    let said = text(&flood);
    let note = said.lines().find(|l| l.contains("earlier lines were dropped")).unwrap_or("");
    assert!(
        note.ends_with("earlier lines were dropped unread, past the transcript's bound]"),
        "{said}"
    );
    assert!(!said.contains("[termloom:"), "{said}");
    assert!(said.contains("\n5000"), "the end is kept: {said}");
    let dropped: u64 = note.trim_start_matches('[').split(' ').next().unwrap().parse().unwrap();
    assert_eq!(flood["structuredContent"]["missed_lines"], dropped, "{flood}");
    assert!(dropped >= 4800, "{said}");
    client.finish();
}

/// A transcript of one line says so, and to ask for it: it said "holds line 0; ask within
/// them".
#[test]
fn a_transcript_of_one_line_is_said_as_one() {
    let mut client = Client::initialized("2025-11-25");
    let started = client.tool("terminal_start", json!({"argv": ["printf", "zero"], "exit": true}));
    let id = started["session_id"].clone();
    let message = client.tool_error("terminal_read", json!({"session_id": id, "lines": "7"}));
    assert!(message.contains("line 7: the transcript holds line 0; ask for it"), "{message}");
    client.finish();
}

/// A resize to the size a session has changes nothing: its screen is sent as unchanged, not
/// again whole, as a terminal_read of view="screen" (asked for) would send it.
#[test]
fn a_resize_to_the_same_size_does_not_resend_the_screen() {
    if !common::require("less") {
        return;
    }
    let lines: String = (1..=100).map(|n| format!("line number {n}\n")).collect();
    let file = temp_file("same-size.txt", &lines);
    let mut client = Client::initialized("2025-11-25");
    let argv = json!(["less", file.to_str().unwrap()]);
    let started = client
        .tool("terminal_start", json!({"argv": argv, "input_wait": true, "cols": 60, "rows": 10}));
    let id = started["session_id"].clone();
    let resized = client.call("terminal_resize", json!({"session_id": id, "cols": 60, "rows": 10}));
    let said = text(&resized);
    assert!(said.contains("resized to 60x10\n--- screen 60x10"), "{said}");
    assert!(said.contains("unchanged since your last look"), "{said}");
    assert!(!said.contains("line number 1\n"), "{said}");
    let asked = client.call("terminal_read", json!({"session_id": id, "view": "screen"}));
    assert!(text(&asked).contains("line number 1\n"), "{}", text(&asked));
    client.tool("terminal_close", json!({"session_id": id}));
    client.finish();
}

/// `terminal_resize` waits for the program's redraw, as `terminal_send` waits for an answer,
/// and shows the screen: a program that redraws 0.3 s after its SIGWINCH is shown redrawn.
#[test]
fn a_resize_shows_the_screen_redrawn() {
    let mut client = Client::initialized("2025-11-25");
    let script = "import os, signal, sys, time, tty\n\
                  tty.setcbreak(0)\n\
                  def redraw(*_):\n\
                  \x20   time.sleep(0.3)\n\
                  \x20   c, r = os.get_terminal_size(0)\n\
                  \x20   print(f'\\x1b[2J\\x1b[Hsize {c}x{r}', flush=True)\n\
                  signal.signal(signal.SIGWINCH, redraw)\n\
                  print('ready', flush=True)\n\
                  while True: sys.stdin.read(1)\n";
    let started = client.tool(
        "terminal_start",
        json!({"argv": ["python3", "-c", script], "for_text": "ready", "cols": 80, "rows": 24}),
    );
    let resized = client.call(
        "terminal_resize",
        json!({"session_id": started["session_id"], "cols": 40, "rows": 10}),
    );
    let said = text(&resized);
    assert!(said.contains("resized to 40x10\n--- screen 40x10"), "{said}");
    assert!(said.contains("size 40x10"), "the redraw was not waited for: {said}");
    assert!(said.starts_with("[python3 waiting for keys"), "{said}");
    assert_eq!(resized["structuredContent"]["cols"], 40, "{resized}");
    client.finish();
}

/// How `server` exits, within [`LONG`]; killed, and the test failed with `otherwise`, if it
/// does not.
fn exit_of(server: &mut std::process::Child, otherwise: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + LONG;
    loop {
        if let Some(status) = server.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            panic!("{otherwise}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `termloom mcp` run by a host that closed its end of the stderr pipe: a log line (here the
/// one for an oversized message) and the notice of a SIGTERM cannot be written, and the
/// server carries on without them. (`eprintln!` panicked on the broken pipe: the oversized
/// message crashed the server unanswered, and a SIGTERM killed the thread that closes the
/// sessions, leaving the server running.)
#[test]
fn a_closed_stderr_neither_crashes_the_server_nor_stops_a_sigterm() {
    use std::process::{Command, Stdio};
    let (stderr_reader, stderr_writer) = std::io::pipe().unwrap();
    drop(stderr_reader);
    let mut server = Command::new(env!("CARGO_BIN_EXE_termloom"))
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr_writer)
        .spawn()
        .expect("termloom mcp starts");
    let mut input = server.stdin.take().unwrap();
    let (tx, lines) = crossbeam_channel::unbounded();
    let output = server.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut ask = |message: &[u8]| {
        input.write_all(message).unwrap();
        input.write_all(b"\n").unwrap();
        lines.recv_timeout(LONG).expect("an answer")
    };
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    assert!(ask(init.as_bytes()).contains(r#""protocolVersion":"2025-11-25""#));
    let start = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "terminal_start", "arguments": {"argv": KEYS_CAT}}});
    let started: Value = serde_json::from_str(&ask(start.to_string().as_bytes())).unwrap();
    let pid = started["result"]["structuredContent"]["pid"].as_i64().expect("a pid");
    let pad = "x".repeat(termloom::mcp::DEFAULT_MAX_MESSAGE_BYTES);
    let big =
        format!(r#"{{"jsonrpc":"2.0","id":"big","method":"ping","params":{{"pad":"{pad}"}}}}"#);
    let answer = ask(big.as_bytes());
    assert!(answer.contains(r#""id":"big""#) && answer.contains("-32600"), "{answer}");
    assert!(ask(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).contains(r#""result":{}"#));
    let termloom = rustix::process::Pid::from_raw(server.id() as i32).unwrap();
    rustix::process::kill_process(termloom, rustix::process::Signal::TERM).unwrap();
    let status = exit_of(&mut server, "termloom mcp did not exit on SIGTERM");
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(!alive(pid), "the session's process survived the SIGTERM");
    drop(input);
}

/// `termloom mcp` with its stdin and stdout piped and its stderr to `stderr`: the process,
/// its input, and its output.
fn termloom_mcp(
    stderr: std::process::Stdio,
) -> (std::process::Child, std::process::ChildStdin, BufReader<std::process::ChildStdout>) {
    use std::process::{Command, Stdio};
    let mut server = Command::new(env!("CARGO_BIN_EXE_termloom"))
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("termloom mcp starts");
    let input = server.stdin.take().unwrap();
    let output = BufReader::new(server.stdout.take().unwrap());
    (server, input, output)
}

/// `termloom mcp` whose host closed stdout but not stdin: once an answer cannot be written,
/// every session is closed and the server exits 1. (It went on reading requests it could not
/// answer, its sessions running, until the host also closed stdin.) So too once the last
/// reader of its stdout is gone with nothing more to write: here a copy of the pipe's read
/// end, as a child the host forked holds it until its `exec`, takes the ping's answer, and is
/// closed after it. (The server, its answer written, waited for the next request for ever:
/// under load, another test's fork held the copy while the answer was written.)
#[test]
fn a_closed_stdout_closes_every_session_and_stops_the_server() {
    for held in [false, true] {
        a_closed_stdout_stops_the_server(held);
    }
}

/// See [`a_closed_stdout_closes_every_session_and_stops_the_server`]; `held`: a copy of
/// stdout's read end takes the ping's answer, and is closed after it.
fn a_closed_stdout_stops_the_server(held: bool) {
    let (mut server, mut input, mut output) = termloom_mcp(std::process::Stdio::piped());
    let mut ask = |message: &str| {
        input.write_all(message.as_bytes()).unwrap();
        input.write_all(b"\n").unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        line
    };
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    assert!(ask(init).contains(r#""protocolVersion":"2025-11-25""#));
    let start = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "terminal_start", "arguments": {"argv": KEYS_CAT}}});
    let started: Value = serde_json::from_str(&ask(&start.to_string())).unwrap();
    let pid = started["result"]["structuredContent"]["pid"].as_i64().expect("a pid");
    let copy = held.then(|| {
        use std::os::fd::AsFd;
        std::fs::File::from(output.get_ref().as_fd().try_clone_to_owned().unwrap())
    });
    drop(output);
    input.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n").unwrap();
    if let Some(copy) = copy {
        let mut answer = String::new();
        BufReader::new(copy).read_line(&mut answer).unwrap();
        assert!(answer.contains(r#""id":2"#), "{answer}");
    }
    let status = exit_of(&mut server, "termloom mcp went on with its stdout closed");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{status}: {stderr}");
    assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    assert!(!alive(pid), "the session's process survived");
    drop(input);
}

/// A host that closes stdin and stdout at once, in either order (as a host that exits does,
/// its descriptors closed in their numbers' order), ends the server as the end of its input
/// does: exit 0, nothing said of stdout. (The watch on stdout took the closed one for a
/// reader gone while the server stopped at the end of its input: exit 1 four times in five,
/// review wz; and stdout closed first, exit 1: stdin was looked at only at that moment.)
#[test]
fn a_host_closing_stdin_and_stdout_at_once_ends_the_server_as_its_input_end_does() {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for round in 0..10 {
        let mut tries = 0;
        let mut server = loop {
            let (mut server, mut input, mut output) = termloom_mcp(std::process::Stdio::piped());
            input.write_all(format!("{init}\n").as_bytes()).unwrap();
            let mut line = String::new();
            output.read_line(&mut line).unwrap();
            assert!(line.contains("protocolVersion"), "{line}");
            if round % 2 == 0 {
                drop((input, output));
                break server;
            }
            // Stdin once the server has seen stdout's end and waits for stdin's (its window),
            // as a host closing them one after the other: the order the test is of. A window
            // that passed unseen (this thread not scheduled for its 0.25 s) is tried again.
            drop(output);
            if common::until_stdout_watch_waits_for_stdin(server.id()) {
                drop(input);
                break server;
            }
            let _ = server.kill();
            let _ = server.wait();
            tries += 1;
            assert!(tries < common::WINDOW_TRIES, "round {round}: no window seen in {tries} tries");
        };
        let status = exit_of(&mut server, "termloom mcp went on with its input ended");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(0), "round {round}: {status}: {stderr}");
        assert!(!stderr.contains("cannot write to stdout"), "round {round}: {stderr}");
    }
}

/// A terminal_run whose new shell has not shown its prompt when the input ends is answered,
/// its wait cut short, as every call in progress then is. (The stopped wait was taken for a
/// cancellation, and the call got no response.)
#[test]
fn a_run_starting_its_shell_when_the_input_ends_is_answered() {
    if !require(&shell_program()) {
        return;
    }
    let mut client = Client::initialized("2025-11-25");
    let run = json!({"name": "terminal_run", "arguments": {"command": "echo hi"}});
    let id = client.send_request("tools/call", run);
    drop(client.input.take());
    let response = client.response(&id);
    assert!(response["result"]["content"].is_array(), "{response}");
    let served = client.server.recv_timeout(LONG).expect("the server stops at the end of input");
    served.expect("serve returns Ok at the end of input");
}

/// A question the server gives up on, because the call that asked was cancelled or because
/// the person did not answer in time, is cancelled with the client, so that the host stops
/// asking its person (the 2025-11-25 lifecycle: the sender of a request that timed out, or
/// whose purpose is gone, cancels it). It was left open.
#[test]
fn a_question_given_up_on_is_cancelled_with_the_client() {
    let cancelled_question = |client: &mut Client, question: &str| {
        let note = client.next(LONG).expect("a message from the server");
        assert_eq!(note["method"], "notifications/cancelled", "{note}");
        assert_eq!(note["params"]["requestId"], question, "{note}");
        assert!(note.get("id").is_none(), "{note}");
    };
    // The tool call that asked is cancelled: the question is, and the call is not answered.
    let mut client = serving_policy(ASKING_POLICY);
    client.initialize_with("2025-11-25", json!({"elicitation": {}}));
    let start = json!({"name": "terminal_start", "arguments": {"argv": ["printf", "x"]}});
    let call = client.send_request("tools/call", start.clone());
    let question = client.next(LONG).expect("the question");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    client.notify("notifications/cancelled", json!({"requestId": call}));
    cancelled_question(&mut client, "termloom-elicit-1");
    assert_eq!(client.ok("ping", json!({})), json!({}));
    assert!(!client.stash.contains_key(&call.to_string()), "the cancelled call was answered");
    client.finish();
    // No answer in time: the question is cancelled, and the call says why nothing was done.
    let config = Config {
        policy: Some(termloom::Policy::from_toml_str(ASKING_POLICY).unwrap()),
        ..Config::default()
    };
    let options =
        ServeOptions { elicitation_timeout: Duration::from_millis(300), ..ServeOptions::default() };
    let mut client = Client::serving(Engine::new(config).unwrap(), options);
    client.initialize_with("2025-11-25", json!({"elicitation": {}}));
    let call = client.send_request("tools/call", start);
    assert_eq!(client.next(LONG).unwrap()["method"], "elicitation/create");
    cancelled_question(&mut client, "termloom-elicit-1");
    let result = client.response(&call)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("did not answer"), "{}", text(&result));
    client.finish();
}

/// The client's answer to a question that cannot be read, too long or not JSON, ends the
/// question with why, and gets no answer itself, its id first or last (as the TypeScript SDK
/// writes it). (It was answered with an error under the question's own id, a response to a
/// request the client never sent, and the call waited the 10 minutes a person has; with the
/// id last, it still was, and so was one to a question no longer waiting.)
#[test]
fn an_unreadable_answer_ends_its_question_and_is_not_answered() {
    let config = Config {
        policy: Some(termloom::Policy::from_toml_str(ASKING_POLICY).unwrap()),
        ..Config::default()
    };
    let options = ServeOptions { max_message_bytes: 4096, ..ServeOptions::default() };
    let mut client = Client::serving(Engine::new(config).unwrap(), options);
    client.initialize_with("2025-11-25", json!({"elicitation": {}}));
    let start = json!({"name": "terminal_start", "arguments": {"argv": ["printf", "x"]}});
    let long = "x".repeat(5000);
    let answers = [
        format!(
            r#"{{"jsonrpc":"2.0","id":"termloom-elicit-1","result":{{"action":"accept","content":{{"pad":"{long}"}}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":"termloom-elicit-2","result":{"action":"accept""#.to_owned(),
        // The TypeScript SDK writes the id last.
        format!(
            r#"{{"result":{{"action":"accept","content":{{"pad":"{long}"}}}},"jsonrpc":"2.0","id":"termloom-elicit-3"}}"#
        ),
    ];
    for (answer, why) in answers.iter().zip(["5092 bytes", "could not be read", "5092 bytes"]) {
        let call = client.send_request("tools/call", start.clone());
        let question = client.next(LONG).expect("the question");
        assert_eq!(question["method"], "elicitation/create", "{question}");
        client.send_raw(answer.as_bytes());
        let result = client.response(&call)["result"].clone();
        assert_eq!(result["isError"], true, "{result}");
        assert!(text(&result).contains(why), "{}", text(&result));
        assert!(client.stash.is_empty() && client.other.is_empty(), "{:?}", client.stash);
    }
    // Such an answer to a question no longer waiting (its call cancelled) is not answered
    // either.
    let call = client.send_request("tools/call", start.clone());
    assert_eq!(client.next(LONG).expect("the question")["method"], "elicitation/create");
    client.notify("notifications/cancelled", json!({"requestId": call}));
    assert_eq!(client.next(LONG).unwrap()["method"], "notifications/cancelled");
    for (n, answer) in answers.iter().enumerate() {
        let late = answer.replace(&format!("termloom-elicit-{}", n + 1), "termloom-elicit-4");
        assert_ne!(&late, answer);
        client.send_raw(late.as_bytes());
    }
    client.send_raw(br#"{"jsonrpc":"1.0","id":"termloom-elicit-4","result":{}}"#);
    assert_eq!(client.ok("ping", json!({})), json!({}));
    assert!(client.stash.is_empty() && client.other.is_empty(), "{:?}", client.stash);
    assert_eq!(client.tool("terminal_list", json!({}))["sessions"], json!([]));
    client.finish();
}

/// A message as long as the bound is accepted whichever line end it has: the `\r` of a
/// `\r\n` is not part of the message. (It was counted, and the message refused as too large.)
#[test]
fn a_message_at_the_bound_is_accepted_with_a_crlf_line_end() {
    let limit = 256;
    let mut client =
        Client::with_options(ServeOptions { max_message_bytes: limit, ..ServeOptions::default() });
    client.initialize("2025-11-25");
    let ping = |id: &str, length: usize| {
        let bare =
            format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","params":{{"p":""}}}}"#);
        let pad = "x".repeat(length - bare.len());
        let message =
            format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","params":{{"p":"{pad}"}}}}"#);
        assert_eq!(message.len(), length);
        format!("{message}\r").into_bytes()
    };
    client.send_raw(&ping("at", limit));
    assert_eq!(client.response(&json!("at")), json!({"jsonrpc": "2.0", "id": "at", "result": {}}));
    client.send_raw(&ping("over", limit + 1));
    let refused = client.response(&json!("over"));
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["data"]["length"], limit + 1, "{refused}");
    client.finish();
}

/// A message of many small values is refused before they are parsed, whatever its method:
/// a ping whose params held `[0,0,…]`, 4 MiB of it, took `termloom mcp` to a peak of 76 MB
/// (32 bytes of parsed value for each 2 bytes of text), and each connection of a
/// `termloom server` as much at once. Its answer names the bound.
#[test]
fn a_message_of_many_small_values_costs_about_its_bytes() {
    let (mut server, mut input, mut output) = termloom_mcp(std::process::Stdio::null());
    let mut answer = |message: &str| -> Value {
        writeln!(input, "{message}").unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).expect("an answer")
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    assert!(answer(&init.to_string())["result"].is_object());
    let zeros = vec!["0"; (4 << 20) / 2 - 100].join(",");
    let ping =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"junk":[{zeros}]}}}}"#);
    let refused = answer(&ping);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.id())).unwrap();
    let peak = status.lines().find_map(|line| line.strip_prefix("VmHWM:")).unwrap();
    let kib: u64 = peak.trim().trim_end_matches(" kB").parse().unwrap();
    // The line's 4 MiB and what the server needs besides (about 10 MiB).
    assert!(kib < 32 << 10, "a 4 MiB message took termloom mcp to {kib} KiB");
    assert_eq!((&refused["id"], &refused["error"]["code"]), (&json!(1), &json!(-32600)));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("more than 16384 JSON values"), "{message}");
    assert_eq!(refused["error"]["data"]["maxValues"], 16384, "{refused}");
    drop(input);
    let status = exit_of(&mut server, "termloom mcp did not stop at the end of its input");
    assert!(status.success(), "{status}");
}

/// A waiting call holds the `inputResponses` it was sent (2026-07-28's answers to its
/// questions) as the text they came in, and a call of a handshake revision, which has none,
/// holds nothing of them. (Sixteen waits, each sent 4 MB of small answers, held them parsed:
/// 660 MB, ten times their text, and 32, the calls at once, 1.3 GB; then written again from
/// the parse, a number `9e15` as `9000000000000000.0`: 270 MB.)
#[test]
fn the_answers_a_waiting_call_was_sent_are_held_as_their_text() {
    use std::process::{Command, Stdio};
    const CALLS: usize = 16;
    let modern = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    for era in ["2025-11-25", MODERN] {
        let mut server = Command::new(env!("CARGO_BIN_EXE_termloom"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("termloom mcp starts");
        let mut input = server.stdin.take().unwrap();
        let (tx, lines) = crossbeam_channel::unbounded();
        let output = server.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut send = |message: &str| {
            input.write_all(message.as_bytes()).unwrap();
            input.write_all(b"\n").unwrap();
        };
        let params = |params: Value| match era {
            MODERN => {
                let mut params = params;
                params["_meta"] = modern.clone();
                params
            }
            _ => params,
        };
        let opening = match era {
            MODERN => json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover",
                "params": params(json!({}))}),
            _ => json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": era, "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "1"}}}),
        };
        send(&opening.to_string());
        assert!(lines.recv_timeout(LONG).expect("an answer").contains(r#""result""#));
        let start = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": params(json!({"name": "terminal_start", "arguments": {"argv": KEYS_CAT}}))});
        send(&start.to_string());
        let started: Value = serde_json::from_str(&lines.recv_timeout(LONG).unwrap()).unwrap();
        let id = started["result"]["structuredContent"]["session_id"].clone();
        assert!(id.is_u64(), "{started}");
        // 4 MB of answers in as many values as a message may hold (800,000 numbers, which a
        // parse held at ten times their text, are now refused whole, as any message of more
        // than 16,384 values is).
        let answers = format!(
            r#"{{"approve_start-0":["{}"]}}"#,
            vec!["9e15".repeat(65); 15_000].join(r#"",""#)
        );
        for call in 0..CALLS {
            let wait = json!({"session_id": id, "for_text": "never", "timeout_ms": 60_000});
            let mut call = json!({"jsonrpc": "2.0", "id": 10 + call, "method": "tools/call",
                "params": params(json!({"name": "terminal_read", "arguments": wait}))})
            .to_string();
            call.truncate(call.len() - 2);
            call.push_str(&format!(r#","inputResponses":{answers}}}}}"#));
            send(&call);
        }
        // Its answer comes once every call before it was read and is waiting.
        send(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": params(json!({}))})
                .to_string(),
        );
        assert!(lines.recv_timeout(LONG).expect("the ping's answer").contains(r#""id":2"#));
        let status = std::fs::read_to_string(format!("/proc/{}/status", server.id())).unwrap();
        let rss = status.lines().find_map(|line| line.strip_prefix("VmRSS:")).unwrap();
        let kib: u64 = rss.trim().trim_end_matches(" kB").parse().unwrap();
        // The answers' text, 4 MB a call, and what the server needs besides.
        assert!(kib < 160 << 10, "{era}: {CALLS} waiting calls hold {kib} KiB");
        drop(input);
        let status = exit_of(&mut server, "termloom mcp did not stop at the end of its input");
        assert!(status.success(), "{era}: {status}");
    }
}
