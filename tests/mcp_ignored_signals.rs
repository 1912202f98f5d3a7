//! `termloom mcp` started by a host that ignores SIGINT (a script's background job, `nohup`):
//! the programs in its sessions still get the default action of every signal, so Ctrl-C
//! interrupts them. An ignored signal stays ignored across exec; before the fix every
//! program in every session inherited the host's SIG_IGN, and Ctrl-C, a cancelled call's
//! interrupt and terminal_signal INT did nothing.
//!
//! The server runs as a child process (the dispositions are the process's own), driven over
//! its stdin and stdout as an MCP client would.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

struct Server {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Server {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.input, "{message}").expect("write a request");
        self.input.flush().expect("flush");
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).expect("read") > 0, "the server ended");
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &response["result"];
        assert_eq!(result["isError"], false, "{response}");
        result["structuredContent"].clone()
    }
}

#[test]
fn programs_get_default_signal_actions_when_the_host_ignores_sigint() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_termloom"));
    command.arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped());
    // SAFETY: only signal() between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = command.spawn().expect("start termloom mcp");
    let input = child.stdin.take().unwrap();
    let output = BufReader::new(child.stdout.take().unwrap());
    let mut server = Server { child, input, output, next: 0 };
    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    });
    server.request("initialize", init);
    writeln!(server.input, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();

    let started = server.tool("terminal_start", json!({"argv": ["sleep", "60"]}));
    let id = started["session_id"].clone();
    server.tool("terminal_send", json!({"session_id": id, "keys": "<C-c>"}));
    let read =
        server.tool("terminal_read", json!({"session_id": id, "exit": true, "timeout_ms": 20000}));
    assert_eq!(read["wait"]["outcome"], "exited", "Ctrl-C did not end sleep: {read}");
    assert_eq!(read["status"]["exit_signal"], 2, "{read}");

    drop(server.input);
    let status = server.child.wait().expect("the server exits at the end of its input");
    assert!(status.success(), "{status}");
}
