//! Agent tasks through `termloom mcp` with the official Python MCP SDK, against a tmux harness
//! (send-keys, then capture-pane until the pane is still for 0.5 s) in the same run: the bytes
//! a model reads, the calls, the facts present in each step's first result and the wall time
//! per task. The tasks and both harnesses are in `benches/agent_tasks.py`; this program finds
//! the SDK's Python (`target/mcp-venv`, which `.ci/run` creates) and runs it.
//!
//! ```text
//! cargo bench --bench agent_tasks            # every task
//! cargo bench --bench agent_tasks -- pager   # tasks whose name contains "pager"
//! ```

use std::path::Path;
use std::process::Command;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/mcp-venv/bin/python");
    if !python.exists() {
        println!(
            "skipped: the MCP SDK's Python is missing; create it with `python3 -m venv target/mcp-venv && target/mcp-venv/bin/pip install -r tests/mcp_requirements.txt`"
        );
        return;
    }
    let names: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let status = Command::new(python)
        .arg(root.join("benches/agent_tasks.py"))
        .arg(env!("CARGO_BIN_EXE_termloom"))
        .args(names)
        .status()
        .expect("run benches/agent_tasks.py");
    assert!(status.success(), "benches/agent_tasks.py failed: {status}");
}
