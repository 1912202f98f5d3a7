//! An agent loop on the toolbox: the tool definitions go to a model, the model's calls go to
//! [`Toolbox::call`], their results back to the model, until it is done. The "model" here is
//! a script that reads the results like a model would (it looks for the text it needs), so the
//! example runs anywhere, offline.
//!
//! Run it with:
//!
//! ```sh
//! cargo run --example agent_loop
//! ```

use serde_json::{Value, json};
use termloom::tools::{ToolResult, Toolbox};
use termloom::{Config, Engine};

/// What the scripted model does next, given the last result; `None` when it is done.
fn model(step: usize, last: Option<&ToolResult>) -> Option<(&'static str, Value)> {
    let session = last
        .and_then(|r| r.structured.as_ref())
        .and_then(|s| s["session_id"].as_u64())
        .unwrap_or(1);
    match step {
        // Start a Python REPL and wait until it reads its terminal (its prompt is up).
        0 => Some(("terminal_start", json!({"argv": ["python3", "-q"], "input_wait": true}))),
        // Type a line, wait for the answer.
        1 => Some((
            "terminal_send",
            json!({"session_id": session, "text": "print(6 * 7)\r", "for_regex": "^42$"}),
        )),
        // A model checks the result before it goes on.
        2 if last.is_some_and(|r| r.text.contains("42")) => {
            Some(("terminal_send", json!({"session_id": session, "keys": "<C-d>", "exit": true})))
        }
        2 => Some(("terminal_close", json!({"session_id": session}))),
        _ => None,
    }
}

fn main() -> Result<(), termloom::Error> {
    let toolbox = Toolbox::new(Engine::new(Config::default())?).max_bytes(4 << 10)?;
    // What a host gives its model: names, descriptions and input schemas.
    for tool in toolbox.definitions() {
        let first_line = tool.description.lines().next().unwrap_or_default();
        println!("tool {}: {first_line}", tool.name);
    }
    let mut last = None;
    for step in 0.. {
        let Some((name, arguments)) = model(step, last.as_ref()) else { break };
        println!("\n> {name} {arguments}");
        let result = toolbox.call(name, &arguments);
        println!("{}{}", if result.is_error { "[error] " } else { "" }, result.text);
        last = Some(result);
    }
    Ok(())
}
