//! The command line's logger: the library logs through the `log` facade; the command line
//! writes warnings and errors to stderr (stdout carries reports, or MCP messages).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use log::{Level, LevelFilter, Log, Metadata, Record};

/// Whether this process is `termloom server`, whose log names it so (the MCP layer it shares
/// with `termloom mcp` says `termloom mcp:`).
static SERVER: AtomicBool = AtomicBool::new(false);

/// Makes the log say `termloom server:` where the MCP layer says `termloom mcp:`.
pub(crate) fn as_server() {
    SERVER.store(true, Ordering::Relaxed);
}

struct StderrLog;

impl Log for StderrLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= Level::Warn && metadata.target().starts_with("termloom")
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let line = record.args().to_string();
            match line.strip_prefix("termloom mcp: ") {
                Some(rest) if SERVER.load(Ordering::Relaxed) => {
                    to_stderr(&format!("termloom server: {rest}"));
                }
                _ => to_stderr(&line),
            }
        }
    }

    fn flush(&self) {}
}

/// Writes `line` and a line feed to stderr, and carries on if that fails: `eprintln!` panics
/// when stderr cannot be written (a host that closed its end of the pipe), and a log line or
/// a notice must not take down the thread that writes it (the MCP server's, or the one that
/// closes every session on SIGTERM).
pub(crate) fn to_stderr(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(line.as_bytes()).and_then(|()| stderr.write_all(b"\n"));
}

/// Installs the logger (once; later calls do nothing).
pub(crate) fn install() {
    static LOGGER: StderrLog = StderrLog;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Warn);
    }
}
