//! Every bound and default of an [`Engine`](crate::Engine), validated in one place.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::types::{MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS};

/// The engine's configuration: every bound and default, each with a documented range.
///
/// [`Config::default()`] is a good start; [`Config::validate`] (called by
/// [`Engine::new`](crate::Engine::new)) refuses values out of range with an error naming the
/// field and the allowed range.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Default terminal width in columns. Default 120, range `MIN_COLS..=MAX_COLS` (2..=1000).
    pub cols: u16,
    /// Default terminal height in rows. Default 32, range `MIN_ROWS..=MAX_ROWS` (1..=500).
    pub rows: u16,
    /// Settled transcript lines kept per session; the oldest go first. Default 10,000,
    /// range 1..=10,000,000.
    pub scrollback_lines: usize,
    /// Settled transcript bytes kept per session; the oldest lines go first. Default 4 MiB,
    /// range 1 KiB..=1 GiB. Lines are kept in buffers of a quarter of this (at most 32 KiB),
    /// which can hold up to four such buffers' worth of bytes besides the lines.
    pub scrollback_bytes: usize,
    /// Most bytes one [`Session::read`](crate::Session::read) returns. Default 256 KiB, range
    /// 4..=`scrollback_bytes`. Logical lines longer than this are split.
    pub max_read_bytes: usize,
    /// Readers whose read positions each session keeps besides the default one (see
    /// [`Session::as_reader`](crate::Session::as_reader)); the least recently used is forgotten
    /// first, starts over from the oldest retained line and is told so
    /// ([`Output::position_forgotten`](crate::Output::position_forgotten)). Default 64, range
    /// 1..=100,000.
    pub max_readers: usize,
    /// Bytes each session keeps of the screen text its readers (those of `max_readers`) last
    /// read, to tell what was rewritten since: past it, the least recently used readers'
    /// copies are dropped first, and such a reader's next read returns the screen's text
    /// again from the first line it had read there, marked
    /// [`rewritten`](crate::Output::rewritten) (no settled line is lost or silently
    /// repeated). The most recent reader's copy and the default reader's are kept besides it,
    /// so a session keeps at most this plus two screens' text. Default 512 KiB (about a
    /// hundred full screens of 120×32), range 0..=1 GiB.
    pub readers_tail_bytes: usize,
    /// Bytes of each session's raw output kept, as the program wrote them (escape sequences
    /// included), for [`Session::raw_output`](crate::Session::raw_output): a ring, the oldest
    /// bytes dropped first. Default 64 KiB, range 0 (none kept)..=64 MiB.
    pub raw_output_bytes: usize,
    /// Where recordings go (asciicast v2) when a [`SpawnSpec`](crate::SpawnSpec) names no file
    /// of its own: `DIR/termloom-PID-ID.cast` (`-2`, `-3`... added rather than replace a file),
    /// for every session with
    /// [`Config::record_every_session`], and for sessions an MCP tool call starts with
    /// `record` (a model never chooses the path). An absolute path. Default `None`: MCP calls
    /// cannot record.
    pub record_dir: Option<std::path::PathBuf>,
    /// Record every session in `record_dir`, which must then be set. Default `false`.
    pub record_every_session: bool,
    /// Bytes a recording to a file may take (its header and events): past them the recording
    /// stops, with a last marker that says so, and the session goes on. Default 1 GiB, range
    /// 4 KiB..=1 TiB.
    pub recording_file_bytes: u64,
    /// Bound of each session's input queue (bytes waiting to be written to the program).
    /// Default 1 MiB, range 1 KiB..=1 GiB.
    pub write_queue_bytes: usize,
    /// Bound of the pastes waiting for room in a session's input queue (their bytes as
    /// encoded, bracketed or not): a paste that would take more is refused with
    /// [`Error::PasteTooLarge`] before any of it is queued. Default
    /// 16 MiB, range 1 KiB..=1 GiB.
    pub paste_bytes: usize,
    /// Most waits pending on one session at once, whoever waits: [`Session::wait`](crate::Session::wait) and
    /// its kin, their futures, [`PendingWait`](crate::PendingWait)s and the MCP tool calls
    /// that wait. One more is refused with
    /// [`Error::TooManyWaits`] before anything it would type is
    /// typed; each pending wait keeps a copy of what its reader had read of the screen, and
    /// output is checked against every one, so this is the bound that holds the memory and
    /// the work. Each reader but the default one (a [`ReaderId`](crate::ReaderId) a handle reads as
    /// through [`Session::as_reader`](crate::Session::as_reader): a `termloom server` client,
    /// an MCP connection, a [`Toolbox`](crate::tools::Toolbox)) is held to
    /// [`max_waits_per_reader`](Config::max_waits_per_reader) of them besides, so that one
    /// caller cannot take them all from the others that share the session; the handles that
    /// read as the default reader are the host's own and are held by this bound alone.
    /// Default 256, range 1..=100,000.
    pub max_waits: usize,
    /// Most waits one reader but the default (see [`max_waits`](Config::max_waits)) may have pending on one
    /// session at once: one more is refused with
    /// [`Error::TooManyReaderWaits`] before anything it would
    /// type is typed, while the session's other readers can still wait (up to `max_waits`
    /// in all). Set below `max_waits`, it leaves the others at least `max_waits` minus it;
    /// at or above `max_waits`, only `max_waits` holds. A `termloom server` also holds each
    /// client process to it across all its connections (its tool calls in progress on one
    /// session, `terminal_close` aside), since every connection that names no client is a
    /// reader of its own. Default 64 (a quarter of the default `max_waits`; a `termloom
    /// server` connection has at most 32 calls in progress), range 1..=100,000.
    pub max_waits_per_reader: usize,
    /// Bound of the queue of requests from callers to the reactor. Callers block when it is
    /// full. Default 1024, range 1..=1,000,000.
    pub request_queue: usize,
    /// How long a session must be silent to count as quiet. Default 500 ms, range
    /// 1 ms..=1 h.
    pub quiet: Duration,
    /// How long output must be quiet before a blocked read of the foreground program counts
    /// as waiting for input. Default 50 ms, range 0..=10 s.
    pub input_settle: Duration,
    /// Timeout used by waits that do not give one. Default 30 s, range 1 ms..=24 h.
    pub default_wait_timeout: Duration,
    /// How long `close` waits after SIGHUP/SIGTERM before SIGKILL. Default 3 s, range
    /// 0..=10 min.
    pub close_grace: Duration,
    /// After the session's program exits, how long to keep reading output from other processes
    /// still holding the terminal before reporting the exit. Default 100 ms, range 0..=10 s.
    pub exit_drain: Duration,
    /// Most live sessions. Default 256, range 1..=65,536.
    pub max_sessions: usize,
    /// Most ended sessions kept as readable tombstones: closed ones and those whose program
    /// exited (the engine closes those itself), whether or not anyone read them; the oldest
    /// go first, and a forgotten one's calls fail with [`Error::SessionForgotten`].
    /// Default 64, range 0..=100,000.
    pub max_closed_sessions: usize,
    /// Sessions with no input and no output for this long are closed. `None` (the default)
    /// disables it; otherwise 1 s..=30 days.
    pub idle_timeout: Option<Duration>,
    /// Sessions older than this are closed. `None` (the default) disables it; otherwise
    /// 1 s..=365 days.
    pub max_lifetime: Option<Duration>,
    /// Granularity of the reaper: idle and lifetime deadlines are rounded up to a multiple of
    /// it, so a session outlives its limit by at most this much. Default 1 s, range
    /// 10 ms..=1 h, and shorter than `idle_timeout` and `max_lifetime`.
    pub reaper_interval: Duration,
    /// Put each session in a cgroup of its own (where a writable cgroup v2 hierarchy is
    /// mounted) so that `close` ends even processes that left the POSIX session. Default true.
    pub cgroups: bool,
    /// Base directory for relative working directories, an absolute path. `None` (the
    /// default) means the process's current directory.
    pub base_dir: Option<PathBuf>,
    /// Environment names always passed to children from the host's environment, even when
    /// their name or their value looks like a credential
    /// ([`is_credential_name`](crate::is_credential_name),
    /// [`is_credential_value`](crate::is_credential_value)): the way to let a variable through
    /// on purpose. A name also in `env_deny` is left out.
    pub env_allow: Vec<String>,
    /// Environment names never passed to children from the host's environment (in addition to
    /// the credential filter).
    pub env_deny: Vec<String>,
    /// Longest OSC string a program may send (clipboard writes, colours, notifications…),
    /// counted from `]` to its terminator; a longer one is dropped and counted in
    /// [`SessionInfo::dropped_sequences`](crate::SessionInfo::dropped_sequences). It bounds
    /// the session's clipboard too: what an OSC 52 copy carries, in base64 (three quarters of
    /// this, less its framing: 786,426 bytes by default).
    /// [`Session::set_clipboard`](crate::Session::set_clipboard) takes that much, and no more
    /// than an answer to a query carries within `write_queue_bytes` (786,423 bytes by
    /// default). Default 1 MiB, range 64..=64 MiB.
    pub max_osc_bytes: usize,
    /// Longest window title (OSC 0, 1 and 2); a longer one is dropped and counted. Titles are
    /// kept on the title stack too, so this also bounds each of its entries. Default 4 KiB,
    /// range 16..=1 MiB.
    pub max_title_bytes: usize,
    /// Longest hyperlink (OSC 8); a longer one is dropped and counted. Each cell may hold its
    /// own link, so the grid's memory is bounded by its cells times this. Default 2 KiB,
    /// range 16..=64 KiB.
    pub max_hyperlink_bytes: usize,
    /// Deepest title stack (`CSI 22 t` pushes); deeper pushes are dropped and counted.
    /// Default 16, range 0..=4096.
    pub max_title_stack: usize,
    /// Most combining marks kept on one cell; more are trimmed (a screen is checked after
    /// every 16 KiB of output, or after as many bytes as it has cells if that is more).
    /// Default 16, range 1..=1024.
    pub max_combining_marks: usize,
    /// The spawn policy: who may run what (see [`Policy`](crate::Policy)). `None` (the
    /// default) allows every start.
    pub policy: Option<crate::Policy>,
    /// Landlock confinement of every session (see [`Confinement`](crate::Confinement)); a
    /// session's own [`SpawnSpec::confine`](crate::SpawnSpec::confine) cannot loosen it, and
    /// MCP tool calls cannot change it. A session under it starts only in
    /// [`base_dir`](Self::base_dir), a writable path, or below them (its working directory is
    /// writable, so a `cwd` elsewhere would loosen it): others are refused. Default `None`.
    pub confinement: Option<crate::Confinement>,
    /// A host's own permission check, called with every start before anything is forked
    /// (see [`SpawnHook`](crate::SpawnHook)). Default `None`.
    pub spawn_hook: Option<crate::SpawnHook>,
    /// Test-only fault injection: a session whose output contains this text panics in its
    /// feed, as a bug would. Present only with the `fault-injection` feature, which exists for
    /// termloom's own tests.
    #[cfg(feature = "fault-injection")]
    pub inject_panic_on_output: Option<String>,
    /// Test-only fault injection: a request that types input containing this text into a
    /// session panics on the engine's thread, as a bug would. Present only with the
    /// `fault-injection` feature.
    #[cfg(feature = "fault-injection")]
    pub inject_panic_on_input: Option<String>,
    /// Test-only fault injection: an MCP tool call to the tool of this name (such as
    /// `terminal_start`) is cancelled as its tool returns, before its answer is decided, as a
    /// client's `notifications/cancelled` arriving just then would be. Present only with the
    /// `fault-injection` feature.
    #[cfg(feature = "fault-injection")]
    pub inject_cancel_after_tool: Option<String>,
    /// Test-only fault injection: a call to the tool of this name (such as `terminal_list`),
    /// from a [`Toolbox`](crate::tools::Toolbox) or the MCP server, panics in the tool's code
    /// on the caller's thread, as a bug would. Present only with the `fault-injection`
    /// feature.
    #[cfg(feature = "fault-injection")]
    pub inject_panic_in_tool: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            cols: 120,
            rows: 32,
            scrollback_lines: 10_000,
            scrollback_bytes: 4 << 20,
            max_read_bytes: 256 << 10,
            max_readers: 64,
            readers_tail_bytes: 512 << 10,
            raw_output_bytes: 64 << 10,
            recording_file_bytes: 1 << 30,
            record_dir: None,
            record_every_session: false,
            write_queue_bytes: 1 << 20,
            paste_bytes: 16 << 20,
            max_waits: 256,
            max_waits_per_reader: 64,
            request_queue: 1024,
            quiet: Duration::from_millis(500),
            input_settle: Duration::from_millis(50),
            default_wait_timeout: Duration::from_secs(30),
            close_grace: Duration::from_secs(3),
            exit_drain: Duration::from_millis(100),
            max_sessions: 256,
            max_closed_sessions: 64,
            idle_timeout: None,
            max_lifetime: None,
            reaper_interval: Duration::from_secs(1),
            cgroups: true,
            base_dir: None,
            env_allow: Vec::new(),
            env_deny: Vec::new(),
            max_osc_bytes: 1 << 20,
            max_title_bytes: 4 << 10,
            max_hyperlink_bytes: 2 << 10,
            max_title_stack: 16,
            max_combining_marks: 16,
            policy: None,
            confinement: None,
            spawn_hook: None,
            #[cfg(feature = "fault-injection")]
            inject_panic_on_output: None,
            #[cfg(feature = "fault-injection")]
            inject_panic_on_input: None,
            #[cfg(feature = "fault-injection")]
            inject_cancel_after_tool: None,
            #[cfg(feature = "fault-injection")]
            inject_panic_in_tool: None,
        }
    }
}

fn check<T: PartialOrd + std::fmt::Debug>(
    field: &'static str,
    value: T,
    min: T,
    max: T,
) -> Result<()> {
    if value < min || value > max {
        return Err(Error::InvalidConfig {
            field,
            message: format!("is {value:?}; allowed range is {min:?}..={max:?}"),
        });
    }
    Ok(())
}

/// Checks a terminal size against the accepted range.
pub(crate) fn check_size(cols: u16, rows: u16) -> Result<()> {
    if !(MIN_COLS..=MAX_COLS).contains(&cols) || !(MIN_ROWS..=MAX_ROWS).contains(&rows) {
        return Err(Error::InvalidSize { cols, rows });
    }
    Ok(())
}

/// The longest a look for a program waiting for input waits past `input_settle` (who asks
/// for a secret in the MCP server, a secret held until its program reads the terminal).
pub(crate) const READER_SETTLE: Duration = Duration::from_secs(2);

impl Config {
    /// The longest a look for a program waiting for input waits: [`READER_SETTLE`] past
    /// `input_settle` (which may be up to 10 s), which a session must be quiet for before it
    /// is seen waiting.
    pub(crate) fn reader_settle(&self) -> Duration {
        READER_SETTLE + self.input_settle
    }

    /// Checks every field against its range and the rules between fields.
    pub fn validate(&self) -> Result<()> {
        check("cols", self.cols, MIN_COLS, MAX_COLS)?;
        check("rows", self.rows, MIN_ROWS, MAX_ROWS)?;
        check("scrollback_lines", self.scrollback_lines, 1, 10_000_000)?;
        check("scrollback_bytes", self.scrollback_bytes, 1 << 10, 1 << 30)?;
        check("max_read_bytes", self.max_read_bytes, 4, self.scrollback_bytes)?;
        check("max_readers", self.max_readers, 1, 100_000)?;
        check("readers_tail_bytes", self.readers_tail_bytes, 0, 1 << 30)?;
        check("raw_output_bytes", self.raw_output_bytes, 0, 64 << 20)?;
        check("recording_file_bytes", self.recording_file_bytes, 4 << 10, 1 << 40)?;
        check("write_queue_bytes", self.write_queue_bytes, 1 << 10, 1 << 30)?;
        check("paste_bytes", self.paste_bytes, 1 << 10, 1 << 30)?;
        check("max_waits", self.max_waits, 1, 100_000)?;
        check("max_waits_per_reader", self.max_waits_per_reader, 1, 100_000)?;
        check("request_queue", self.request_queue, 1, 1_000_000)?;
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        check("quiet", self.quiet, ms(1), s(3600))?;
        check("input_settle", self.input_settle, Duration::ZERO, s(10))?;
        check("default_wait_timeout", self.default_wait_timeout, ms(1), s(86_400))?;
        check("close_grace", self.close_grace, Duration::ZERO, s(600))?;
        check("exit_drain", self.exit_drain, Duration::ZERO, s(10))?;
        check("max_sessions", self.max_sessions, 1, 65_536)?;
        check("max_closed_sessions", self.max_closed_sessions, 0, 100_000)?;
        check("reaper_interval", self.reaper_interval, ms(10), s(3600))?;
        check("max_osc_bytes", self.max_osc_bytes, 64, 64 << 20)?;
        check("max_title_bytes", self.max_title_bytes, 16, 1 << 20)?;
        check("max_hyperlink_bytes", self.max_hyperlink_bytes, 16, 64 << 10)?;
        check("max_title_stack", self.max_title_stack, 0, 4096)?;
        check("max_combining_marks", self.max_combining_marks, 1, 1024)?;
        for (field, limit, max) in [
            ("idle_timeout", self.idle_timeout, s(30 * 86_400)),
            ("max_lifetime", self.max_lifetime, s(365 * 86_400)),
        ] {
            if let Some(limit) = limit {
                check(field, limit, s(1), max)?;
                if self.reaper_interval >= limit {
                    return Err(Error::InvalidConfig {
                        field: "reaper_interval",
                        message: format!(
                            "is {:?}; it must be shorter than {field} ({limit:?}) so a session cannot outlive its limit by more than one sweep",
                            self.reaper_interval
                        ),
                    });
                }
            }
        }
        if let Some(policy) = &self.policy {
            policy.validate()?;
        }
        if let Some(confinement) = &self.confinement {
            confinement
                .validate()
                .map_err(|message| Error::InvalidConfig { field: "confinement", message })?;
        }
        if self.record_every_session && self.record_dir.is_none() {
            return Err(Error::InvalidConfig {
                field: "record_every_session",
                message: "is set, but record_dir is not; say where the recordings go".into(),
            });
        }
        for (field, dir) in [("base_dir", &self.base_dir), ("record_dir", &self.record_dir)] {
            if let Some(dir) = dir
                && !dir.is_absolute()
            {
                return Err(Error::InvalidConfig {
                    field,
                    message: format!(
                        "is {}; it must be an absolute path",
                        crate::error::quoted_os(dir.as_os_str())
                    ),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        Config::default().validate().unwrap();
    }

    #[test]
    fn out_of_range_names_the_field() {
        let config = Config { max_read_bytes: 2, ..Config::default() };
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains("max_read_bytes"), "{err}");
        let config = Config { max_read_bytes: 8 << 20, ..Config::default() };
        assert!(config.validate().unwrap_err().to_string().contains("max_read_bytes"));
        let config = Config { cols: 0, ..Config::default() };
        assert!(config.validate().unwrap_err().to_string().contains("cols"));
    }

    #[test]
    fn reaper_must_be_shorter_than_idle_timeout() {
        let config = Config {
            idle_timeout: Some(Duration::from_secs(5)),
            reaper_interval: Duration::from_secs(5),
            ..Config::default()
        };
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains("reaper_interval") && err.contains("idle_timeout"), "{err}");
    }
}
