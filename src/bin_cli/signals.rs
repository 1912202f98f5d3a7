//! Closing the session when termloom itself is told to stop, so no program is left behind.
//!
//! A handler for SIGHUP, SIGINT and SIGTERM writes the signal's number to a pipe (the only
//! thing it does: `write` is async-signal-safe). A thread reads the pipe, shuts the engine
//! down (which closes every session and waits until their processes are gone) and exits with
//! 128 + the signal. Handlers, unlike ignored or blocked signals, are reset to the default
//! action by `exec`, so the programs termloom starts receive these signals normally. (Blocking
//! the signals and taking them with `sigwait` would not do: the blocked mask is inherited by
//! the programs, which then could not be interrupted or terminated.)
//!
//! Neither `std` nor rustix's stable API installs signal handlers and termloom takes no `libc`
//! dependency, so ISO C's `signal` is declared here; its BSD semantics (glibc, musl, the BSDs)
//! keep the handler installed and restart interrupted system calls.

use std::ffi::c_int;
use std::io::{PipeReader, PipeWriter, Read, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

use termloom::Engine;

/// The signals that stop termloom, with their names (the same numbers on every Unix).
const STOP_SIGNALS: [(c_int, &str); 3] = [(1, "SIGHUP"), (2, "SIGINT"), (15, "SIGTERM")];

/// What `signal` returns on failure.
const SIG_ERR: usize = usize::MAX;

unsafe extern "C" {
    fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
}

/// The pipe's write end, for the handler.
static WRITER: OnceLock<PipeWriter> = OnceLock::new();
/// The signal being handled, or 0.
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// The read end of the signal pipe: where stop signals arrive once handlers are installed.
pub struct StopSignals(PipeReader);

/// Installs the handlers. Returns `None` (the signals keep their default action) if that
/// fails.
pub fn install() -> Option<StopSignals> {
    let (reader, writer) = std::io::pipe().ok()?;
    // A full pipe must never block the handler; the reader already has a byte to wake on.
    rustix::io::ioctl_fionbio(&writer, true).ok()?;
    WRITER.set(writer).ok()?;
    for (number, _) in STOP_SIGNALS {
        // SAFETY: `on_stop_signal` only does async-signal-safe work.
        if unsafe { signal(number, on_stop_signal) } == SIG_ERR {
            return None;
        }
    }
    Some(StopSignals(reader))
}

/// The handler: passes the signal's number to the pipe.
extern "C" fn on_stop_signal(number: c_int) {
    if let Some(mut writer) = WRITER.get() {
        let _ = writer.write(&[number as u8]);
    }
}

impl StopSignals {
    /// Starts the thread that shuts `engine` down and exits when a stop signal arrives.
    pub fn close_on_signal(self, engine: Engine) {
        let spawned = std::thread::Builder::new()
            .name("termloom-signals".into())
            .spawn(move || self.stop_on_signal(&engine));
        if let Err(err) = spawned {
            eprintln!("termloom: cannot watch for signals: {err}");
        }
    }

    /// Waits for a stop signal, then closes everything and exits.
    fn stop_on_signal(mut self, engine: &Engine) {
        let mut byte = [0u8];
        if self.0.read_exact(&mut byte).is_err() {
            return;
        }
        let number = c_int::from(byte[0]);
        INTERRUPTED.store(number, Ordering::SeqCst);
        eprintln!(
            "termloom: received {}; closing the program",
            signal_name(number)
        );
        engine.shutdown();
        std::process::exit(128 + number);
    }
}

/// `SIGINT` for 2.
fn signal_name(number: c_int) -> &'static str {
    STOP_SIGNALS
        .iter()
        .find(|(n, _)| *n == number)
        .map_or("a signal", |(_, name)| *name)
}

/// If a stop signal is being handled, leaves the exit to the signal thread: the run's own
/// errors are then only consequences of the shutdown. Returns otherwise.
pub fn defer_to_interrupt() {
    if INTERRUPTED.load(Ordering::SeqCst) != 0 {
        loop {
            std::thread::park();
        }
    }
}
