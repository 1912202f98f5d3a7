//! The command line's logger: the library logs through the `log` facade; the command line
//! writes warnings and errors to stderr (stdout carries reports, or MCP messages).

use std::io::Write;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The log lines that may wait for stderr: past them, lines are dropped and counted.
const LOG_QUEUE: usize = 256;

/// How long the end of the command waits for the log lines still queued to be written.
const FLUSH_WITHIN: Duration = Duration::from_millis(500);

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
            let line = match line.strip_prefix("termloom mcp: ") {
                Some(rest) if SERVER.load(Ordering::Relaxed) => {
                    format!("termloom server: {rest}")
                }
                _ => line,
            };
            queue().push(line);
        }
    }

    /// Waits (at most [`FLUSH_WITHIN`]) for the lines queued to be written: called before the
    /// command ends, and before each `std::process::exit`.
    fn flush(&self) {
        if let Some(queue) = QUEUE.get() {
            queue.flush(FLUSH_WITHIN);
        }
    }
}

/// The queue of the command's log lines, written to stderr by a thread of its own.
static QUEUE: OnceLock<LineQueue> = OnceLock::new();

fn queue() -> &'static LineQueue {
    QUEUE.get_or_init(|| LineQueue::new(LOG_QUEUE, write_line))
}

/// Lines written by a thread of their own: a thread that logs never waits for the writing
/// (the reactor's, when a host never reads the stderr pipe of `termloom mcp` and it fills),
/// and past `capacity` lines waiting, a line is dropped, and a line then says how many were.
struct LineQueue {
    lines: crossbeam_channel::Sender<String>,
    /// Lines queued and not yet written.
    pending: Arc<AtomicUsize>,
    /// Lines dropped since the last one written.
    dropped: Arc<AtomicUsize>,
}

impl LineQueue {
    fn new(capacity: usize, write: impl Fn(&str) + Send + 'static) -> LineQueue {
        let (lines, queued) = crossbeam_channel::bounded::<String>(capacity);
        let pending = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicUsize::new(0));
        let (written, lost) = (pending.clone(), dropped.clone());
        // (Without the thread, lines are dropped and counted: the queue fills.)
        let _ = std::thread::Builder::new().name("termloom-log".into()).spawn(move || {
            for line in queued {
                let lost = lost.swap(0, Ordering::Relaxed);
                if lost > 0 {
                    write(&format!("termloom: {lost} lines dropped (stderr was not read)"));
                }
                write(&line);
                written.fetch_sub(1, Ordering::Release);
            }
        });
        LineQueue { lines, pending, dropped }
    }

    /// Queues `line`, or drops it when the queue is full.
    fn push(&self, line: String) {
        self.pending.fetch_add(1, Ordering::Relaxed);
        if self.lines.try_send(line).is_err() {
            self.pending.fetch_sub(1, Ordering::Relaxed);
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Waits until the lines queued are written, at most `within`.
    fn flush(&self, within: Duration) {
        let started = Instant::now();
        while self.pending.load(Ordering::Acquire) > 0 && started.elapsed() < within {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Queues `line` for stderr, as a log line is: for a thread that must not wait for stderr
/// (`attach`'s, whose events would stop once a stderr pipe nobody reads is full). Past the
/// queue's lines, it is dropped, and a line then says how many were.
pub(crate) fn to_stderr_queued(line: String) {
    queue().push(line);
}

/// Waits for the lines queued ([`to_stderr_queued`]) to be written, at most [`FLUSH_WITHIN`]:
/// before a command that queued its lines exits, so that a stderr nobody reads holds its
/// exit up no longer.
pub(crate) fn flush_queued() {
    if let Some(queue) = QUEUE.get() {
        queue.flush(FLUSH_WITHIN);
    }
}

/// Writes `line` and a line feed to stderr, and carries on if that fails: `eprintln!` panics
/// when stderr cannot be written (a host that closed its end of the pipe), and a log line or
/// a notice must not take down the thread that writes it (the MCP server's, or the one that
/// closes every session on SIGTERM).
///
/// Log lines queued before it are written first (at most [`FLUSH_WITHIN`] is waited for them).
pub(crate) fn to_stderr(line: &str) {
    if let Some(queue) = QUEUE.get() {
        queue.flush(FLUSH_WITHIN);
    }
    write_line(line);
}

/// Writes `line` and a line feed to stderr, carrying on if that fails (see [`to_stderr`]).
fn write_line(line: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that never returns (stderr nobody reads) holds up no one that logs: lines
    /// past the queue's room are dropped, and the flush at the end gives up in time.
    #[test]
    fn a_stalled_writer_never_holds_up_the_threads_that_log() {
        let (_never, stalled) = crossbeam_channel::bounded::<()>(0);
        let queue = LineQueue::new(4, move |_| {
            let _ = stalled.recv();
        });
        let started = Instant::now();
        for i in 0..1000 {
            queue.push(format!("line {i}"));
        }
        queue.flush(Duration::from_millis(50));
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        // At most the queue's room and the line being written are held.
        assert!(queue.pending.load(Ordering::Relaxed) <= 4 + 1);
    }

    /// Lines are written in order, and a flush waits for them; lines dropped are counted in a
    /// line before the next one written.
    #[test]
    fn lines_are_written_in_order_and_drops_are_told() {
        let (tx, written) = crossbeam_channel::unbounded::<String>();
        let queue = LineQueue::new(8, move |line| {
            let _ = tx.send(line.to_owned());
        });
        for i in 0..5 {
            queue.push(format!("line {i}"));
        }
        queue.flush(Duration::from_secs(10));
        let lines: Vec<String> = written.try_iter().collect();
        assert_eq!(lines, ["line 0", "line 1", "line 2", "line 3", "line 4"]);
        queue.dropped.store(3, Ordering::Relaxed);
        queue.push("after".into());
        queue.flush(Duration::from_secs(10));
        let lines: Vec<String> = written.try_iter().collect();
        assert_eq!(lines, ["termloom: 3 lines dropped (stderr was not read)", "after"]);
    }
}
