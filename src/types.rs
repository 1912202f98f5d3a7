//! The value types of termloom's API: what sessions are, how they end, what they are doing,
//! and what reads and commands return.
//!
//! A leaf module: it imports nothing of the crate, so every other module may use it.
//!
//! Serde: the id and the enums that name a state or a choice serialise and deserialise (a
//! host may store them); the reports (structs such as [`SessionInfo`] or [`Output`])
//! serialise only, since they gain fields in minor releases.

use std::fmt;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// Smallest accepted number of columns.
pub const MIN_COLS: u16 = 2;
/// Largest accepted number of columns.
pub const MAX_COLS: u16 = 1000;
/// Smallest accepted number of rows.
pub const MIN_ROWS: u16 = 1;
/// Largest accepted number of rows.
pub const MAX_ROWS: u16 = 500;

/// A session's id: unique for the engine's life, never reused. It serialises as its number
/// and is read back from it (serde, or `FromStr` from its `Display`), so a host may store
/// ids; an id means a session only to the engine that gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(pub u64);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for SessionId {
    type Err = std::num::ParseIntError;

    /// Reads an id as its `Display` writes it (`"7"`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        text.parse().map(SessionId)
    }
}

impl From<u64> for SessionId {
    /// The id numbered `number`, as a tool result's `session_id` holds it.
    fn from(number: u64) -> SessionId {
        SessionId(number)
    }
}

/// How a program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

impl ExitStatus {
    /// Whether it exited with code 0.
    pub fn success(self) -> bool {
        self == ExitStatus::Code(0)
    }

    /// The code it exited with; `None` when a signal ended it (as
    /// `std::process::ExitStatus::code`).
    pub fn code(self) -> Option<i32> {
        match self {
            ExitStatus::Code(code) => Some(code),
            ExitStatus::Signal(_) => None,
        }
    }

    /// The signal that ended it; `None` when it exited with a code.
    pub fn signal(self) -> Option<i32> {
        match self {
            ExitStatus::Signal(signal) => Some(signal),
            ExitStatus::Code(_) => None,
        }
    }

    /// How a closed session's program ended, in words: one that the close's own signals
    /// ended (`by_close`, see [`Status::ended_by_close`]) did not crash and is not said to be
    /// killed: `ended by the close (SIGHUP)`.
    pub(crate) fn ending(self, by_close: bool) -> String {
        match self {
            ExitStatus::Signal(signal @ (1 | 15)) if by_close => {
                format!("ended by the close ({})", signal_name(signal).unwrap_or("SIGTERM"))
            }
            ExitStatus::Signal(9) if by_close => {
                "ended by the close (SIGKILL, after the grace period)".to_owned()
            }
            ended => ended.to_string(),
        }
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Code(code) => write!(f, "exit code {code}"),
            ExitStatus::Signal(signal) => match signal_name(*signal) {
                Some(name) => write!(f, "killed by {name} (signal {signal})"),
                None => write!(f, "killed by signal {signal}"),
            },
        }
    }
}

/// The name of signal `number` on this system (`SIGSEGV`), for the standard signals, those
/// that end programs (`SIGSYS`, a seccomp filter's) and those that stop or wake them (`None`
/// for another number, a real-time signal's): the one naming of signals by number, for a
/// program's exit and the command line's messages alike.
pub fn signal_name(number: i32) -> Option<&'static str> {
    use rustix::process::Signal as S;
    let names = [
        (S::HUP, "SIGHUP"),
        (S::INT, "SIGINT"),
        (S::QUIT, "SIGQUIT"),
        (S::ILL, "SIGILL"),
        (S::TRAP, "SIGTRAP"),
        (S::ABORT, "SIGABRT"),
        (S::BUS, "SIGBUS"),
        (S::FPE, "SIGFPE"),
        (S::KILL, "SIGKILL"),
        (S::USR1, "SIGUSR1"),
        (S::SEGV, "SIGSEGV"),
        (S::USR2, "SIGUSR2"),
        (S::PIPE, "SIGPIPE"),
        (S::ALARM, "SIGALRM"),
        (S::TERM, "SIGTERM"),
        (S::XCPU, "SIGXCPU"),
        (S::XFSZ, "SIGXFSZ"),
        (S::VTALARM, "SIGVTALRM"),
        (S::PROF, "SIGPROF"),
        (S::SYS, "SIGSYS"),
        (S::CHILD, "SIGCHLD"),
        (S::CONT, "SIGCONT"),
        (S::STOP, "SIGSTOP"),
        (S::TSTP, "SIGTSTP"),
        (S::TTIN, "SIGTTIN"),
        (S::TTOU, "SIGTTOU"),
        (S::URG, "SIGURG"),
        (S::WINCH, "SIGWINCH"),
        (S::IO, "SIGIO"),
    ];
    names.iter().find(|(signal, _)| signal.as_raw() == number).map(|(_, name)| *name)
}

/// Where a session is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "state", content = "status", rename_all = "snake_case")]
pub enum SessionState {
    /// The program runs.
    Running,
    /// The program exited by itself and all its output was read; the session can still be
    /// read (a tombstone once what it left behind was ended).
    Exited(ExitStatus),
    /// The session was closed before its program exited, or by a caller after it had (a
    /// tombstone: readable, accepts nothing), with how the program ended.
    Closed(ExitStatus),
}

/// A line of [`Engine::list`](crate::Engine::list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session's id.
    pub id: SessionId,
    /// The program's process id.
    pub pid: i32,
    /// The program (or shell command line).
    pub program: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Where it is in its life.
    pub state: SessionState,
    /// What it is doing (running, quiet, waiting for input, at its prompt...).
    pub status: Status,
    /// When it started.
    pub started_at: SystemTime,
    /// When it ended (its program exited, or the session was closed, whichever came first),
    /// once it has.
    pub ended_at: Option<SystemTime>,
    /// Bytes written to the program; a secret ([`Session::send_secret`](crate::Session::send_secret))
    /// counts as one byte, its Enter, whatever its length.
    pub bytes_in: u64,
    /// Bytes the program wrote.
    pub bytes_out: u64,
    /// Time since the last input or output.
    pub idle: Duration,
    /// How many times the program rang the bell.
    pub bells: u64,
    /// How the session's processes are contained: its own cgroup, or its POSIX session only.
    pub containment: String,
    /// What the kernel enforces of the session's Landlock confinement (where it may write,
    /// whether TCP is blocked), or `None` when it is not confined.
    pub confinement: Option<String>,
    /// Started with shell integration ([`SpawnSpec::shell_integration`](crate::SpawnSpec::shell_integration)):
    /// its shell marks its prompts, so [`Until::prompt`](crate::Until::prompt) can hold. (A
    /// shell that marks its prompts by itself shows it in [`Status::shell_integration`].)
    pub shell_integration: bool,
    /// Why the session was closed, once it was.
    pub closed_reason: Option<String>,
    /// OSC strings and control sequences the program sent past a bound (title and OSC
    /// lengths, title and keyboard-mode stack depths) and termloom dropped; see
    /// [`Config`](crate::Config)'s `max_*` fields.
    pub dropped_sequences: u64,
    /// The terminal's answers to the program's queries (an OSC 52 clipboard read, a cursor
    /// position report) that termloom dropped: past the room left in the session's input
    /// queue (`Config::write_queue_bytes`), or clipboard answers past their pace (about a
    /// megabyte a second). A program that asked waits for an answer that never comes.
    pub replies_dropped: u64,
    /// Waits and `run_command` calls waiting on the session now.
    pub pending_waits: usize,
    /// The terminal's echo and canonical flags: now while the terminal is open, as the
    /// program left them once it closed (`None` if they could not be read).
    pub line_modes: Option<LineModes>,
    /// The file the session is recorded to (asciicast v2), if it is.
    pub recording: Option<std::path::PathBuf>,
    /// What went wrong with the recording's file, if anything ([`SessionInfo::recording_heading`]
    /// says which in a few words): why it lacks the rest of the session, if a write to it failed
    /// (a full disk, a pipe whose reader went away: the error, after which nothing more was
    /// written); or why it is not at `recording` but at `recording_kept_at` (the rename after
    /// the start failed), and where that is. (Events dropped by a writer that fell behind,
    /// and the end of a recording at `Config::recording_file_bytes`, are said by markers in
    /// the file itself.)
    pub recording_error: Option<String>,
    /// Where the recording is when it could not be put at `recording` once the program had
    /// started (the file made beside that path, under its temporary name, could not be renamed
    /// over it): `recording_error` says why.
    pub recording_kept_at: Option<std::path::PathBuf>,
    /// A write to the recording's file failed, after which nothing more was written: it
    /// lacks the rest of the session, wherever it is (`recording_error` says why).
    pub recording_write_failed: bool,
}

impl SessionInfo {
    /// What a report says of the session's recording before [`SessionInfo::recording_error`],
    /// when that has something to say: `recording not at its path` when the recording is
    /// whole at [`SessionInfo::recording_kept_at`], `recording not at its path, and it lacks
    /// the rest` when a write to it failed there too, else `recording failed, the file lacks
    /// the rest`. The one wording of the three, for every report.
    pub fn recording_heading(&self) -> Option<&'static str> {
        self.recording_error.as_ref()?;
        Some(match (&self.recording_kept_at, self.recording_write_failed) {
            (Some(_), false) => "recording not at its path",
            (Some(_), true) => "recording not at its path, and it lacks the rest",
            (None, _) => "recording failed, the file lacks the rest",
        })
    }
}

/// The line discipline's flags of a session's terminal (`termios`'s `ECHO` and `ICANON`, what
/// `stty` shows as `echo` and `icanon`). A terminal starts with both on; a full-screen program
/// turns them off and should turn them back on before it exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LineModes {
    /// Typed characters are echoed.
    pub echo: bool,
    /// Input is read a line at a time.
    pub canonical: bool,
}

impl LineModes {
    /// The kind of input a program reading with these modes waits for.
    pub fn input_kind(self) -> InputKind {
        if !self.canonical {
            InputKind::Keys
        } else if self.echo {
            InputKind::Line
        } else {
            InputKind::Password
        }
    }
}

/// What the session's program is doing, as far as termloom can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "activity", content = "exit", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Activity {
    /// It runs and has written output within the quiet window, or prints at a steady pace
    /// and is between two prints (a progress bar redrawn once a second).
    Running,
    /// It runs and has been silent for the quiet window (`Config::quiet`), and for longer than
    /// its pace between prints when it has one.
    Quiet,
    /// Its foreground process group is blocked reading the terminal (Linux `/proc`).
    WaitingForInput,
    /// The shell is at its prompt (shell integration).
    AtPrompt,
    /// Its foreground process group is stopped (SIGSTOP, from the program itself, another
    /// process or [`Signal::Stop`](crate::Signal::Stop)): nothing happens until it is
    /// continued (`Signal::Cont`). Linux `/proc`. Ctrl-Z
    /// and [`Signal::Tstp`](crate::Signal::Tstp) do not stop a session's own program, nor
    /// anything in its process group: that group has no parent in the session, and the kernel
    /// discards SIGTSTP sent to such an (orphaned) group; a job of a shell with job control
    /// does stop, and its shell, back in the foreground, is what the status then shows.
    Stopped,
    /// The program exited by itself (see [`SessionState::Exited`]).
    Exited(ExitStatus),
    /// The session was closed before its program exited, or by a caller after it had (see
    /// [`SessionState::Closed`]); how the program ended.
    Closed(ExitStatus),
}

/// What a program waiting for input reads, told by the terminal's line discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InputKind {
    /// Lines with echo off: a password or passphrase prompt (`sudo`, `ssh`, `getpass`).
    Password,
    /// Whole lines, edited by the terminal (canonical mode): `read`, `cat`, plain `input()`.
    Line,
    /// Keys as they are pressed (non-canonical mode): full-screen programs, pagers, y/N
    /// prompts, and line editors such as readline, whose line ends at Enter.
    Keys,
}

impl InputKind {
    /// What the program waits for, in a few words: "a password (echo off)", "a line",
    /// "keys".
    pub fn describe(self) -> &'static str {
        match self {
            InputKind::Password => "a password (echo off)",
            InputKind::Line => "a line",
            InputKind::Keys => "keys",
        }
    }
}

/// A process, by pid and command name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Process {
    /// Process id (for a foreground group: the group's id).
    pub pid: i32,
    /// Command name (`/proc/PID/comm`).
    pub name: String,
    /// The terminal multiplexer whose pane or window it is on, by the name of its server's
    /// program up to any colon (`tmux`, `screen`), when it reads the session's keys through
    /// one: a program in tmux's one pane, which a tmux client in the session shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
}

/// A session's status, carried by every read and wait outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Status {
    /// What it is doing.
    pub activity: Activity,
    /// The terminal's foreground process group, while the program runs: its leader, or,
    /// while it waits for input, the member that reads the terminal (`less` in
    /// `seq 1 500 | less`, whose leader is the shell); while it runs, the program whose
    /// output the session's shell reads in the group it leads (`fzf` for `x=$(fzf)`), its
    /// newest child there, when the leader is that shell.
    pub foreground: Option<Process>,
    /// Time since the program last wrote output.
    pub since_output: Duration,
    /// Exit code of the shell's last command (shell integration).
    pub last_exit_code: Option<i32>,
    /// Whether OSC 133 prompt marks have been seen.
    pub shell_integration: bool,
    /// Why input-wait detection could not decide, when it could not.
    pub input_wait_unknown: Option<String>,
    /// While the program waits for input: what kind of input it reads.
    pub input_kind: Option<InputKind>,
    /// When closed ([`Activity::Closed`]): the session was closed while its program still
    /// ran, so the close's own signals (SIGHUP and SIGTERM, SIGKILL after the grace period)
    /// ended it; a status of `killed by SIGHUP` is then the close, not a crash.
    pub ended_by_close: bool,
    /// While it waits for input: the process `/proc` named as reading the terminal, or
    /// `None` when none was named (`foreground` is then the group's leader, which may not be
    /// the reader). Who asks for a secret is taken only from a named reader. Not reported.
    #[serde(skip)]
    pub(crate) reader: Option<i32>,
}

impl Default for Status {
    fn default() -> Self {
        Status {
            activity: Activity::Running,
            foreground: None,
            since_output: Duration::ZERO,
            last_exit_code: None,
            shell_integration: false,
            input_wait_unknown: None,
            input_kind: None,
            ended_by_close: false,
            reader: None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.activity {
            Activity::Running => f.write_str("running")?,
            Activity::Quiet => f.write_str("quiet")?,
            Activity::WaitingForInput => match self.input_kind {
                Some(kind) => write!(f, "waiting for input ({})", kind.describe())?,
                None => f.write_str("waiting for input")?,
            },
            Activity::AtPrompt => f.write_str("at prompt")?,
            Activity::Stopped => f.write_str("stopped")?,
            Activity::Exited(status) => write!(f, "exited ({status})")?,
            Activity::Closed(status) => {
                write!(f, "closed ({})", status.ending(self.ended_by_close))?
            }
        }
        if let Some(process) = &self.foreground {
            write!(f, ", foreground {} (pid {})", process.name, process.pid)?;
        }
        if let Some(code) = self.last_exit_code {
            write!(f, ", last exit code {code}")?;
        }
        write!(f, ", last output {:.1} s ago", self.since_output.as_secs_f64())
    }
}
/// What one [`Session::read`](crate::Session::read) returns: the new part of the transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Output {
    /// The new text: complete lines end with `\n`; the last, unfinished line (usually a prompt)
    /// has none and is continued, not repeated, by the next read. When lines were dropped
    /// before this read ([`Output::missed_lines`]), it starts with a line of termloom's own
    /// saying so (`[termloom: N earlier lines were dropped from the transcript before this
    /// read]`), which is not a line of the transcript.
    pub text: String,
    /// Number of the line `text` starts in (lines are numbered from 0 at the session's start;
    /// after the note on dropped lines, if there is one).
    pub first_line: u64,
    /// A line that an earlier read returned (in part) has since been rewritten on the screen
    /// (a progress bar, a redrawn prompt); `text` starts with that line again, in full.
    pub rewritten: bool,
    /// The bytes of line [`Output::first_line`] that earlier reads returned (a prompt, a line
    /// being typed), which `text` continues; 0 when it starts at the line's start. When
    /// nothing was added to that line, `text` starts with the `\n` that ends it.
    pub line_offset: usize,
    /// More new output is waiting: the read stopped at `max_read_bytes`.
    pub truncated: bool,
    /// Lines the reader never saw because they were dropped from the bounded store first.
    pub missed_lines: u64,
    /// This reader's position had been forgotten: more than `Config::max_readers` other
    /// readers read the session since it last did. `text` starts over from the oldest retained
    /// line, and may hold what it read before. (A reader forgotten longer ago than the last
    /// `max_readers` forgotten is taken for a new one, which also starts there.)
    pub position_forgotten: bool,
    /// The session's status at the time of the read.
    pub status: Status,
}

/// What [`Session::scrollback`](crate::Session::scrollback) returns: the retained transcript,
/// up to a number of bytes of its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Scrollback {
    /// The text: settled lines, then the screen's lines down to the cursor.
    pub text: String,
    /// Older text was left out: by the bound asked for, or because the transcript had
    /// already dropped it.
    pub truncated: bool,
}

/// What [`Session::raw_output`](crate::Session::raw_output) returns: the last bytes the
/// program wrote, as it wrote them (escape sequences included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RawOutput {
    /// The newest bytes, at most `Config::raw_output_bytes` of them.
    pub bytes: Vec<u8>,
    /// Bytes the program wrote in all; those before `bytes` are gone.
    pub total: u64,
}

/// What [`Session::transcript_lines`](crate::Session::transcript_lines) returns: numbered
/// lines of the retained transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TranscriptLines {
    /// Number of the oldest retained line (older ones were dropped by the transcript's bound).
    pub first: u64,
    /// One past the number of the newest line (the line at the cursor, on the primary screen).
    pub end: u64,
    /// The lines asked for that are retained, with their numbers.
    pub lines: Vec<(u64, String)>,
}

/// What [`Session::run_command`](crate::Session::run_command) returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CommandResult {
    /// The command's own output (its transcript lines, without the command line and the next
    /// prompt).
    pub output: String,
    /// Its exit code, from the shell; `None` when it timed out or waits for input, or when the
    /// shell ended (the command was `exit`, or the session was closed) before reporting one.
    pub exit_code: Option<i32>,
    /// How long it ran, from sending the line to the prompt coming back.
    pub duration: Duration,
    /// Part of the output had already been dropped from the bounded transcript.
    pub output_truncated: bool,
    /// The command did not finish within the timeout (`exit_code` is then `None`).
    pub timed_out: bool,
    /// The command has not finished but waits for input at the terminal (a question, a
    /// password prompt, an editor, a pager: `status.input_kind` says which kind), so the call
    /// returned then rather than at its timeout; the command goes on. Answer it (the session's
    /// `send_*` methods), then wait for the shell's prompt ([`Until::prompt`]).
    ///
    /// [`Until::prompt`]: crate::Until::prompt
    pub waiting_for_input: bool,
    /// The command ended (`exit_code` says how), but its shell's next prompt, begun and not
    /// drawn, waits for input at the terminal: a question its `PS1`, `PROMPT_COMMAND` or a
    /// zsh `precmd` hook asks (`git fetch` at `Username for …:`, a `read`; `status.reader`
    /// names the reader). Answer it (the session's `send_*` methods) and wait for the prompt
    /// ([`Until::prompt`]) before the next command, which would otherwise be the answer.
    ///
    /// [`Until::prompt`]: crate::Until::prompt
    pub prompt_waiting_for_input: bool,
    /// The first and last transcript lines before the command's prompt holding text the
    /// caller was not given in its present form (the end of a command whose wait timed out,
    /// printed after that result: lines never read, a line read in part and continued, a
    /// progress line read and rewritten since, the text before the prompt on its own row),
    /// the prompt's own lines left out when its start is marked (OSC 133 `A`): the read
    /// cursor moved past them with the command's output.
    /// [`Session::transcript_lines`](crate::Session::transcript_lines) reads them.
    pub unread_before: Option<(u64, u64)>,
    /// How many lines after the caller's read position were dropped from the transcript
    /// (its bounds) before the command, unread: they came before
    /// [`CommandResult::unread_before`].
    pub unread_before_dropped: u64,
    /// The exit code of the command that ended before this one, as its shell reported it,
    /// when it ended after the caller's last read (no read or result told it: a command
    /// whose wait timed out), whether or not it left lines unread. When more than one did
    /// (another handle, or a client of the same server, ran commands since), the first
    /// one's: the caller's own whose wait timed out, not the shell's last.
    pub previous_exit_code: Option<i32>,
    /// The session's status when the command ended (or timed out).
    pub status: Status,
}

/// Which mouse events the program asked to receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MouseReporting {
    /// No mouse reporting: mouse events would reach the program as text.
    Off,
    /// Button presses only, without modifiers (mode 9, X10 compatibility).
    Press,
    /// Presses and releases (mode 1000).
    Click,
    /// Also motion while a button is held (mode 1002).
    Drag,
    /// All motion (mode 1003).
    Motion,
}

/// The input modes a driver needs to send the right bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Modes {
    /// Application cursor keys (DECCKM): arrows send `ESC O A` instead of `ESC [ A`.
    pub app_cursor: bool,
    /// Application keypad (DECKPAM).
    pub app_keypad: bool,
    /// Bracketed paste (mode 2004).
    pub bracketed_paste: bool,
    /// Mouse reporting requested by the program.
    pub mouse: MouseReporting,
    /// SGR mouse encoding (mode 1006).
    pub mouse_sgr: bool,
    /// UTF-8 mouse encoding (mode 1005).
    pub mouse_utf8: bool,
    /// urxvt mouse encoding (mode 1015), used when SGR is off.
    pub mouse_urxvt: bool,
    /// Focus in/out reports (mode 1004).
    pub focus_events: bool,
    /// Kitty keyboard protocol flags the program enabled (0: legacy keys).
    pub kitty_keyboard: u8,
    /// xterm's modifyOtherKeys level the program set (`CSI > 4 ; 2 m`): 0 off; at 1 and 2
    /// modified keys the legacy encoding cannot tell apart (`C-Enter`, `C-Tab`, `C-,`) are
    /// sent as `CSI 27 ; m ; code ~`, at 2 every modified character key too (`M-x`, `C-a`,
    /// `S-Space`). Keys go under it only while the process group in front when termloom
    /// read the output that set it is in front (a program that set it and exited before that
    /// read may leave it to its shell), and as the terminal's modes let them (none in canonical input, at most level 1 while
    /// the terminal takes signal characters).
    pub modify_other_keys: u8,
}

impl Modes {
    /// Every mode off, as a reset terminal has them.
    pub(crate) const OFF: Modes = Modes {
        app_cursor: false,
        app_keypad: false,
        bracketed_paste: false,
        mouse: MouseReporting::Off,
        mouse_sgr: false,
        mouse_utf8: false,
        mouse_urxvt: false,
        focus_events: false,
        kitty_keyboard: 0,
        modify_other_keys: 0,
    };
}

/// Every mode off, as a terminal has them when it starts or after a reset.
impl Default for Modes {
    fn default() -> Self {
        Self::OFF
    }
}

impl fmt::Display for Modes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Vec::new();
        if self.app_cursor {
            names.push("app-cursor".to_owned());
        }
        if self.app_keypad {
            names.push("app-keypad".to_owned());
        }
        if self.bracketed_paste {
            names.push("bracketed-paste".to_owned());
        }
        if self.mouse != MouseReporting::Off {
            let encoding = if self.mouse_sgr {
                "sgr"
            } else if self.mouse_urxvt {
                "urxvt"
            } else if self.mouse_utf8 {
                "utf8"
            } else {
                "x10"
            };
            let kind = match self.mouse {
                MouseReporting::Press => "press",
                MouseReporting::Click => "click",
                MouseReporting::Drag => "drag",
                _ => "motion",
            };
            names.push(format!("mouse={kind}/{encoding}"));
        }
        if self.focus_events {
            names.push("focus".to_owned());
        }
        if self.kitty_keyboard != 0 {
            names.push(format!("kitty-keys={}", self.kitty_keyboard));
        }
        if self.modify_other_keys != 0 {
            names.push(format!("modify-other-keys={}", self.modify_other_keys));
        }
        if names.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&names.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::ExitStatus;

    #[test]
    fn a_signal_that_ended_a_program_is_named() {
        let segv = rustix::process::Signal::SEGV.as_raw();
        assert_eq!(
            ExitStatus::Signal(segv).to_string(),
            format!("killed by SIGSEGV (signal {segv})")
        );
        assert_eq!(ExitStatus::Signal(64).to_string(), "killed by signal 64");
        // A seccomp filter's kill (review wo: `killed by signal 31`).
        let sys = rustix::process::Signal::SYS.as_raw();
        assert_eq!(ExitStatus::Signal(sys).to_string(), format!("killed by SIGSYS (signal {sys})"));
        assert_eq!(ExitStatus::Code(3).to_string(), "exit code 3");
    }

    #[test]
    fn a_status_gives_its_code_or_its_signal() {
        assert_eq!((ExitStatus::Code(3).code(), ExitStatus::Code(3).signal()), (Some(3), None));
        assert_eq!((ExitStatus::Signal(9).code(), ExitStatus::Signal(9).signal()), (None, Some(9)));
    }
}
