//! Helpers shared by the benchmarks (each bench includes this module with `mod support;`):
//! payload generators, the raw PTY baselines, statistics and `/proc` readers.
//!
//! Every benchmark measures termloom against a baseline taken in the same run, because
//! absolute times on a shared machine are noise.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{Config as TermConfig, Term};
use alacritty_terminal::vte::ansi::Processor;
use rustix::io::Errno;
use rustix::pty::OpenptFlags;
use rustix::termios::{self, InputModes, OptionalActions, Winsize};

/// Read size of the raw baselines: the same as the reactor's shared read buffer.
pub(crate) const READ_BUFFER: usize = 64 << 10;

// ----- arguments and environment ---------------------------------------------------------

/// The first command-line argument that is not a flag (`cargo bench` passes `--bench`): a
/// substring that selects which cases run.
pub(crate) fn filter() -> Option<String> {
    std::env::args().skip(1).find(|a| !a.starts_with('-'))
}

/// Whether a case named `name` is selected by the filter.
pub(crate) fn selected(name: &str) -> bool {
    filter().is_none_or(|f| name.contains(&f))
}

/// A number from the environment, or `default`.
pub(crate) fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

// ----- the machine -----------------------------------------------------------------------

/// One line describing the machine: cores, kernel, CPU model, load average.
pub(crate) fn machine() -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_default();
    format!("machine: {cores} cores ({cpu}), kernel {}, {}", kernel.trim(), load())
}

/// The load average and the CPU pressure (the share of time some task waited for a CPU), to
/// show how busy the shared machine was.
pub(crate) fn load() -> String {
    let load = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let parts: Vec<&str> = load.split_whitespace().take(3).collect();
    let pressure = fs::read_to_string("/proc/pressure/cpu").unwrap_or_default();
    let some = pressure
        .lines()
        .find(|l| l.starts_with("some"))
        .map(|l| {
            let fields: Vec<&str> = l
                .split_whitespace()
                .filter(|f| f.starts_with("avg10") || f.starts_with("avg60"))
                .collect();
            format!(", CPU pressure {}", fields.join(" "))
        })
        .unwrap_or_default();
    format!("load average {}{some}", parts.join(" "))
}

/// Prints the header every benchmark starts with.
pub(crate) fn header(name: &str) {
    println!("== termloom benchmark: {name}");
    println!("{}", machine());
    if let Some(f) = filter() {
        println!("filter: {f:?}");
    }
}

// ----- temporary files -------------------------------------------------------------------

/// A directory removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("termloom-bench-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("creating the benchmark's temporary directory");
        TempDir(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

// ----- statistics --------------------------------------------------------------------------

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// The median (mean of the two middle values for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let v = sorted(values);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The nearest-rank percentile `p` (0..=100).
pub(crate) fn percentile(values: &[f64], p: f64) -> f64 {
    let v = sorted(values);
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

pub(crate) fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

pub(crate) fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Microseconds of a duration.
pub(crate) fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The values as a short list, for the per-round figures.
pub(crate) fn list(values: &[f64], decimals: usize) -> String {
    let parts: Vec<String> = values.iter().map(|v| format!("{v:.decimals$}")).collect();
    parts.join(" ")
}

// ----- payloads ----------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "the",
    "session",
    "engine",
    "reactor",
    "terminal",
    "grid",
    "line",
    "scroll",
    "output",
    "cursor",
    "request",
    "wait",
    "prompt",
    "shell",
    "read",
    "write",
    "buffer",
    "kernel",
    "byte",
    "a",
    "of",
    "to",
    "in",
    "is",
    "for",
    "error:",
    "warning:",
    "compiling",
    "src/main.rs:42:7",
    "0x7f3a9c",
    "12345",
    "OK",
    "FAILED",
    "test",
    "result",
    "=>",
    "{",
    "}",
    "();",
    "let",
    "fn",
];

/// The payloads of the throughput benchmark, in the style of vtebench.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Payload {
    /// Plain text lines of 0 to ~110 columns, like a build log.
    Plain,
    /// The same lines with every word in an SGR colour (and bold/underline on some).
    Sgr,
    /// vtebench `dense_cells`: the whole screen rewritten, every cell with its own 256-colour
    /// foreground and background, bold, italic and underline.
    DenseCells,
    /// vtebench `scrolling_bottom_region`: the alternate screen with a scroll region of all rows
    /// but the last, full-width lines scrolling inside it.
    ScrollRegion,
    /// vtebench `scrolling_fullscreen`: full-width lines of one letter scrolling the whole
    /// primary screen (every line reaches the transcript).
    ScrollFull,
    /// Lines of wide CJK characters, emoji, box drawing and combining marks.
    Unicode,
    /// vtebench `cursor_motion`: a spiral of `CSI row;col H` + one letter.
    CursorMotion,
}

impl Payload {
    pub(crate) const ALL: [Payload; 7] = [
        Payload::Plain,
        Payload::Sgr,
        Payload::DenseCells,
        Payload::ScrollRegion,
        Payload::ScrollFull,
        Payload::Unicode,
        Payload::CursorMotion,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Payload::Plain => "plain",
            Payload::Sgr => "sgr",
            Payload::DenseCells => "dense_cells",
            Payload::ScrollRegion => "scroll_region",
            Payload::ScrollFull => "scroll_full",
            Payload::Unicode => "unicode",
            Payload::CursorMotion => "cursor_motion",
        }
    }

    /// At least `size` bytes of this payload for a `cols`×`rows` terminal.
    pub(crate) fn generate(self, size: usize, cols: usize, rows: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(size + (1 << 16));
        let mut rng = Rng::new(0x5eed_0000 + self as u64);
        match self {
            Payload::Plain | Payload::Sgr => {
                let colour = self == Payload::Sgr;
                while out.len() < size {
                    text_line(&mut rng, cols - 10, colour, &mut out);
                }
            }
            Payload::DenseCells => {
                let mut offset = 0usize;
                'frames: loop {
                    for ch in b'A'..=b'Z' {
                        out.extend_from_slice(b"\x1b[H");
                        for line in 1..=rows {
                            for column in 1..=cols {
                                let index = line + column + offset;
                                let fg = index % 156 + 100;
                                let bg = 255 - index % 156 + 100;
                                let _ = write!(Sink(&mut out), "\x1b[38;5;{fg};48;5;{bg};1;3;4m");
                                out.push(ch);
                            }
                        }
                        offset += 1;
                        if out.len() >= size {
                            break 'frames;
                        }
                    }
                }
            }
            Payload::ScrollRegion | Payload::ScrollFull => {
                if self == Payload::ScrollRegion {
                    let _ = write!(Sink(&mut out), "\x1b[?1049h\x1b[1;{}r", rows - 1);
                }
                'lines: loop {
                    for ch in b'A'..=b'Z' {
                        out.extend(std::iter::repeat_n(ch, cols));
                        out.push(b'\n');
                        if out.len() >= size {
                            break 'lines;
                        }
                    }
                }
            }
            Payload::Unicode => {
                while out.len() < size {
                    unicode_line(&mut rng, cols, &mut out);
                }
            }
            Payload::CursorMotion => 'spirals: loop {
                for ch in b'A'..=b'Z' {
                    spiral(ch, cols, rows, &mut out);
                    if out.len() >= size {
                        break 'spirals;
                    }
                }
            },
        }
        out
    }
}

/// `fmt::Write` into a byte vector.
struct Sink<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// One line of words, at most `width` columns; coloured words when `colour`.
fn text_line(rng: &mut Rng, width: usize, colour: bool, out: &mut Vec<u8>) {
    let target = rng.below(width as u64 + 1) as usize;
    let mut used = 0;
    while used < target {
        let word = WORDS[rng.below(WORDS.len() as u64) as usize];
        let style = rng.below(16);
        if used + word.len() + 1 > width {
            break;
        }
        if used > 0 {
            out.push(b' ');
            used += 1;
        }
        if colour {
            match style {
                0..=9 => {
                    let _ = write!(Sink(out), "\x1b[{}m", 31 + style % 7);
                }
                10..=12 => {
                    let _ = write!(Sink(out), "\x1b[1;{}m", 31 + style % 7);
                }
                13 | 14 => {
                    let _ = write!(Sink(out), "\x1b[4;38;5;{}m", 16 + rng.below(216));
                }
                _ => {
                    let _ = write!(Sink(out), "\x1b[38;2;{};{};{}m", style * 9, 200, 77);
                }
            }
        }
        out.extend_from_slice(word.as_bytes());
        if colour {
            out.extend_from_slice(b"\x1b[0m");
        }
        used += word.len();
    }
    out.push(b'\n');
}

/// One line of wide and combining characters, at most `cols` cells.
fn unicode_line(rng: &mut Rng, cols: usize, out: &mut Vec<u8>) {
    let mut cells = 0;
    let target = cols - 4 - rng.below(20) as usize;
    while cells + 2 <= target {
        let (c, width, combining) = match rng.below(10) {
            // CJK ideographs (2 cells).
            0..=3 => (char::from_u32(0x4e00 + rng.below(0x5000) as u32), 2, false),
            // Hangul syllables (2 cells).
            4 => (char::from_u32(0xac00 + rng.below(0x2b00) as u32), 2, false),
            // Emoji (2 cells).
            5 | 6 => (char::from_u32(0x1f600 + rng.below(0x40) as u32), 2, false),
            // Box drawing and arrows (1 cell).
            7 => (char::from_u32(0x2500 + rng.below(0x80) as u32), 1, false),
            // Latin letter with a combining accent (1 cell).
            8 => (char::from_u32(u32::from(b'a') + rng.below(26) as u32), 1, true),
            // Greek and Cyrillic (1 cell).
            _ => (char::from_u32(0x3b1 + rng.below(0x18) as u32), 1, false),
        };
        let c = c.unwrap_or('?');
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        if combining {
            out.extend_from_slice("\u{301}".as_bytes());
        }
        cells += width;
    }
    out.push(b'\n');
}

/// vtebench's cursor-motion spiral for one letter.
fn spiral(ch: u8, cols: usize, rows: usize, out: &mut Vec<u8>) {
    let (mut col_start, mut col_end, mut line_start, mut line_end) = (1, cols, 1, rows);
    loop {
        let (mut col, mut line) = (col_start, line_start);
        let put = |line: usize, col: usize, out: &mut Vec<u8>| {
            let _ = write!(Sink(out), "\x1b[{line};{col}H");
            out.push(ch);
        };
        while col < col_end {
            put(line, col, out);
            col += 1;
        }
        while line < line_end {
            put(line, col, out);
            line += 1;
        }
        while col > col_start {
            put(line, col, out);
            col -= 1;
        }
        while line > line_start {
            put(line, col, out);
            line -= 1;
        }
        col_start += 1;
        line_start += 1;
        col_end -= 1;
        line_end -= 1;
        if col_start > col_end || line_start > line_end {
            break;
        }
    }
}

/// Writes a payload file of at least `size` bytes and returns its path and exact size.
pub(crate) fn write_payload(
    dir: &Path,
    payload: Payload,
    size: usize,
    cols: usize,
    rows: usize,
) -> (PathBuf, u64) {
    let path = dir.join(format!("{}-{cols}x{rows}.bin", payload.name()));
    let bytes = payload.generate(size, cols, rows);
    fs::write(&path, &bytes).expect("writing a payload file");
    (path, bytes.len() as u64)
}

/// Writes `count` numbered plain lines (for transcript history) and returns the path.
pub(crate) fn write_lines(dir: &Path, name: &str, count: usize, last: &str) -> PathBuf {
    let path = dir.join(name);
    let mut rng = Rng::new(7);
    let mut out = Vec::with_capacity(count * 64);
    for i in 0..count {
        let _ = write!(Sink(&mut out), "{i:08} ");
        text_line(&mut rng, 100, false, &mut out);
    }
    out.extend_from_slice(last.as_bytes());
    out.push(b'\n');
    fs::write(&path, &out).expect("writing a lines file");
    path
}

// ----- the raw PTY baselines ---------------------------------------------------------------

/// A pseudo-terminal opened with rustix, the way termloom opens one (IUTF8, window size), but
/// with a blocking master.
pub(crate) struct RawPty {
    pub master: OwnedFd,
    slave: Option<OwnedFd>,
}

impl RawPty {
    pub(crate) fn open(cols: u16, rows: u16) -> io::Result<RawPty> {
        let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
        let master = rustix::pty::openpt(flags)?;
        rustix::pty::grantpt(&master)?;
        rustix::pty::unlockpt(&master)?;
        let slave = rustix::pty::ioctl_tiocgptpeer(&master, flags)?;
        let mut attrs = termios::tcgetattr(&slave)?;
        attrs.input_modes |= InputModes::IUTF8;
        termios::tcsetattr(&slave, OptionalActions::Now, &attrs)?;
        let size = Winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
        termios::tcsetwinsize(&slave, size)?;
        Ok(RawPty { master, slave: Some(slave) })
    }

    /// Starts `program args` on the slave as a session leader with the slave as its
    /// controlling terminal; the slave is closed here afterwards.
    pub(crate) fn spawn(&mut self, program: &str, args: &[&str]) -> io::Result<Child> {
        let slave = self.slave.take().expect("spawn once");
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave));
        // SAFETY: setsid and the TIOCSCTTY ioctl are async-signal-safe and allocate nothing.
        unsafe {
            command.pre_exec(|| {
                rustix::process::setsid()?;
                rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(0))?;
                Ok(())
            });
        }
        command.spawn()
    }

    /// Reads once (blocking); `None` once every slave is closed (EIO).
    pub(crate) fn read(&self, buf: &mut [u8]) -> Option<usize> {
        loop {
            match rustix::io::read(self.master.as_fd(), &mut *buf) {
                Ok(0) => return None,
                Ok(n) => return Some(n),
                Err(Errno::INTR) => continue,
                Err(_) => return None,
            }
        }
    }

    pub(crate) fn write_all(&self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match rustix::io::write(self.master.as_fd(), bytes) {
                Ok(n) => bytes = &bytes[n..],
                Err(Errno::INTR) => continue,
                Err(e) => panic!("writing to the raw terminal: {e}"),
            }
        }
    }
}

/// Runs `cat FILE` on a fresh `cols`×`rows` PTY and reads the master until EIO, handing every
/// chunk to `sink`. Returns the time from before the spawn to the child reaped, and the bytes
/// read.
pub(crate) fn raw_cat(
    file: &Path,
    cols: u16,
    rows: u16,
    mut sink: impl FnMut(&[u8]),
) -> (Duration, u64) {
    let started = Instant::now();
    let mut pty = RawPty::open(cols, rows).expect("opening a raw PTY");
    let mut child = pty.spawn("cat", &[file.to_str().expect("utf-8 path")]).expect("spawning cat");
    let mut buf = vec![0u8; READ_BUFFER];
    let mut total = 0u64;
    while let Some(n) = pty.read(&mut buf) {
        sink(&buf[..n]);
        total += n as u64;
    }
    child.wait().expect("reaping cat");
    (started.elapsed(), total)
}

/// A fresh alacritty `Term` with no scrollback history, and its parser.
pub(crate) fn bare_term(cols: u16, rows: u16) -> (Term<VoidListener>, Processor) {
    let config = TermConfig { scrolling_history: 0, ..TermConfig::default() };
    let size = TermSize::new(usize::from(cols), usize::from(rows));
    (Term::new(config, &size, VoidListener), Processor::new())
}

/// The emulator baseline: [`raw_cat`] feeding every chunk to a bare alacritty `Term`.
pub(crate) fn emulator_cat(file: &Path, cols: u16, rows: u16) -> (Duration, u64) {
    let (mut term, mut parser) = bare_term(cols, rows);
    raw_cat(file, cols, rows, |bytes| parser.advance(&mut term, bytes))
}

// ----- /proc -------------------------------------------------------------------------------

/// The id of this process's thread named `name` (the reactor is `termloom-reactor`; with
/// several engines alive, the newest one). The kernel keeps 15 bytes of a thread's name.
pub(crate) fn find_thread(name: &str) -> Option<i32> {
    let name = &name[..name.len().min(15)];
    let mut found = None;
    for entry in fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if comm.trim() == name {
            let tid: i32 = entry.file_name().to_str()?.parse().ok()?;
            found = Some(found.map_or(tid, |f: i32| f.max(tid)));
        }
    }
    found
}

/// CPU time and context switches of one thread of this process.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ThreadStat {
    /// Time on the CPU (from `schedstat`, nanosecond precision; `stat` ticks otherwise).
    pub cpu: Duration,
    /// utime + stime from `stat`, in clock ticks.
    pub ticks: u64,
    pub voluntary: u64,
    pub nonvoluntary: u64,
}

impl ThreadStat {
    pub(crate) fn of(tid: i32) -> ThreadStat {
        let dir = PathBuf::from(format!("/proc/self/task/{tid}"));
        let stat = fs::read_to_string(dir.join("stat")).unwrap_or_default();
        // Fields after the command name (which is in parentheses).
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of stat; fields[0] is field 3.
        let tick = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        let ticks = tick(11) + tick(12);
        let schedstat = fs::read_to_string(dir.join("schedstat")).ok();
        let cpu = schedstat
            .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
            .map(Duration::from_nanos)
            .unwrap_or(Duration::from_millis(ticks * 10));
        let status = fs::read_to_string(dir.join("status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        };
        ThreadStat {
            cpu,
            ticks,
            voluntary: field("voluntary_ctxt_switches:"),
            nonvoluntary: field("nonvoluntary_ctxt_switches:"),
        }
    }

    /// The difference `self - earlier`.
    pub(crate) fn since(self, earlier: ThreadStat) -> ThreadStat {
        ThreadStat {
            cpu: self.cpu.saturating_sub(earlier.cpu),
            ticks: self.ticks - earlier.ticks,
            voluntary: self.voluntary - earlier.voluntary,
            nonvoluntary: self.nonvoluntary - earlier.nonvoluntary,
        }
    }

    /// Context switches: every wake-up of a thread that had gone to sleep is one voluntary
    /// switch; preemptions are non-voluntary.
    pub(crate) fn switches(self) -> u64 {
        self.voluntary + self.nonvoluntary
    }
}

/// CPU time of the calling thread.
pub(crate) fn own_thread_cpu() -> Duration {
    ThreadStat::of(rustix::thread::gettid().as_raw_nonzero().get()).cpu
}

/// This process's resident set size in KiB.
pub(crate) fn vm_rss_kib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
