//! Closing the session when termloom itself is told to stop, so no program is left behind.
//!
//! `signal-hook` (already in the dependency tree through alacritty_terminal) installs handlers
//! for SIGHUP, SIGINT and SIGTERM that only write to a pipe; a thread reads it and closes every
//! session (waiting until their processes are gone). `termloom run` then reports as usual (its
//! wait ends with the session) and exits with 128 + the signal; `termloom mcp` shuts the engine
//! down and exits. Handlers, unlike ignored or blocked signals, are reset to the
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

/// How long `termloom run` may take to report once a stop signal closed its session.
const REPORT_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

impl StopSignals {
    /// Starts the thread that, when a stop signal arrives, closes every session of `engine`
    /// and leaves the main thread to report and exit with 128 + the signal's number (see
    /// [`interrupted`]); if it has not within [`REPORT_GRACE`], shuts the engine down and
    /// exits itself.
    pub(super) fn close_sessions_on_signal(self, engine: Engine) {
        self.spawn_watcher(move |number| {
            for info in engine.list().unwrap_or_default() {
                if let Ok(session) = engine.session(info.id) {
                    let _ = session.close();
                }
            }
            std::thread::sleep(REPORT_GRACE);
            engine.shutdown();
            log::logger().flush();
            std::process::exit(128 + number);
        });
    }

    /// Starts the thread that shuts `engine` down and exits with `code` when a stop signal
    /// arrives.
    pub(super) fn close_on_signal_with_exit(self, engine: Engine, code: i32) {
        self.spawn_watcher(move |_| {
            engine.shutdown();
            log::logger().flush();
            std::process::exit(code);
        });
    }

    /// Waits for a stop signal on a thread of its own, notes it, then runs `stop`.
    fn spawn_watcher(mut self, stop: impl FnOnce(i32) + Send + 'static) {
        let spawned =
            std::thread::Builder::new().name("termloom-signals".into()).spawn(move || {
                let Some(number) = self.0.forever().next() else { return };
                INTERRUPTED.store(number, Ordering::SeqCst);
                say!("termloom: received {}; closing every session", signal_name(number));
                stop(number);
            });
        if let Err(err) = spawned {
            say!("termloom: cannot watch for signals: {err}");
        }
    }
}

/// The stop signal that closed the sessions, if one did.
pub(super) fn interrupted() -> Option<i32> {
    Some(INTERRUPTED.load(Ordering::SeqCst)).filter(|&number| number != 0)
}

/// `SIGINT` for 2 ([`termloom::signal_name`]).
fn signal_name(number: i32) -> &'static str {
    termloom::signal_name(number).unwrap_or("a signal")
}
