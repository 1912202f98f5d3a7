//! `termloom mcp`: terminal sessions over the Model Context Protocol on stdio.

use crate::Engine;

/// Serves MCP on this process's stdin and stdout until stdin ends, then closes every session.
/// Logs go to stderr; stdout carries protocol messages only.
pub fn serve_stdio(engine: Engine) -> std::io::Result<()> {
    let _ = engine;
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "the MCP server is not built yet"))
}
