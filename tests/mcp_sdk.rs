//! The MCP server tried with the official Python MCP SDK's stdio client, as an agent host
//! would use it (`tests/mcp_client.py`), through both `initialize` and `server/discover`, with
//! hostile messages mixed in.
//!
//! The SDK is found in `target/mcp-venv` (what `.ci/run` creates), or wherever
//! `TERMLOOM_MCP_PYTHON` points. In CI (`CI` set) a missing SDK is a failure; elsewhere the
//! test says how to install it and passes. The client drives vim, python3 and the shell:
//! without them it is skipped the same way (see `common::require`).

mod common;

use std::path::Path;
use std::process::Command;

use common::{python_with_sdk, require};
use termloom::shell_program;

#[test]
fn the_python_sdk_client_drives_termloom_mcp() {
    if !require("vim") || !require("python3") || !require(&shell_program()) {
        return;
    }
    let Some(python) = python_with_sdk() else {
        let hint = "python3 -m venv target/mcp-venv && target/mcp-venv/bin/pip install -r tests/mcp_requirements.txt";
        assert!(std::env::var_os("CI").is_none(), "the Python MCP SDK is missing: {hint}");
        eprintln!("skipped: the Python MCP SDK is not installed ({hint})");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(&python)
        .arg(root.join("tests/mcp_client.py"))
        .args([env!("CARGO_BIN_EXE_termloom"), "mcp"])
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client failed:\n{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{last}\n{stdout}");
}
