//! Closing the session when termloom itself is told to stop, so no program is left behind.
//!
//! `signal-hook` (already in the dependency tree through alacritty_terminal) installs handlers
//! for SIGHUP, SIGINT and SIGTERM that only write to a pipe; a thread reads it, shuts the
//! engine down (which closes every session and waits until their processes are gone) and
//! exits with 128 + the signal. Handlers, unlike ignored or blocked signals, are reset to the
//! default action by `exec`, so the programs termloom starts receive these signals normally.
//! (Blocking the signals and taking them with `sigwait` would not do: the blocked mask is
//! inherited by the programs, which then could not be interrupted or terminated.)

use std::sync::atomic::{AtomicI32, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use termloom::Engine;

/// The signal being handled, or 0.
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// Stop signals, caught once [`install`] has run.
pub(super) struct StopSignals(Signals);

/// Installs the handlers. Returns `None` (the signals keep their default action) if that
/// fails.
pub(super) fn install() -> Option<StopSignals> {
    Signals::new([SIGHUP, SIGINT, SIGTERM]).ok().map(StopSignals)
}

impl StopSignals {
    /// Starts the thread that shuts `engine` down and exits with 128 + the signal's number
    /// when a stop signal arrives.
    pub(super) fn close_on_signal(self, engine: Engine) {
        self.spawn_watcher(engine, None);
    }

    /// Like [`StopSignals::close_on_signal`], exiting with `code` instead.
    pub(super) fn close_on_signal_with_exit(self, engine: Engine, code: i32) {
        self.spawn_watcher(engine, Some(code));
    }

    fn spawn_watcher(self, engine: Engine, code: Option<i32>) {
        let spawned = std::thread::Builder::new()
            .name("termloom-signals".into())
            .spawn(move || self.stop_on_signal(&engine, code));
        if let Err(err) = spawned {
            eprintln!("termloom: cannot watch for signals: {err}");
        }
    }

    /// Waits for a stop signal, then closes everything and exits.
    fn stop_on_signal(mut self, engine: &Engine, code: Option<i32>) {
        let Some(number) = self.0.forever().next() else { return };
        INTERRUPTED.store(number, Ordering::SeqCst);
        eprintln!("termloom: received {}; closing every session", signal_name(number));
        engine.shutdown();
        std::process::exit(code.unwrap_or(128 + number));
    }
}

/// `SIGINT` for 2.
fn signal_name(number: i32) -> &'static str {
    match number {
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// If a stop signal is being handled, leaves the exit to the signal thread: the run's own
/// errors are then only consequences of the shutdown. Returns otherwise.
pub(super) fn defer_to_interrupt() {
    if INTERRUPTED.load(Ordering::SeqCst) != 0 {
        loop {
            std::thread::park();
        }
    }
}
