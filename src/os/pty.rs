//! Pseudo-terminals and starting a program under one (rustix; Linux and macOS).
//!
//! The master side stays with the engine (non-blocking, close-on-exec); the child gets the
//! slave as stdin, stdout, stderr and controlling terminal, in a new POSIX session of which it
//! is the leader. No other descriptor of the engine's process reaches the child: every
//! descriptor above 2 is marked close-on-exec between `fork` and `exec`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;

use rustix::pty::OpenptFlags;

use crate::os::isolation::Isolation;
use rustix::termios::{self, InputModes, OptionalActions, Winsize};

/// A pseudo-terminal pair.
pub(crate) struct Pty {
    /// The engine's side.
    pub master: OwnedFd,
    /// The program's side; dropped by the engine as soon as the child is started.
    pub slave: OwnedFd,
}

fn winsize(cols: u16, rows: u16) -> Winsize {
    Winsize { ws_row: rows, ws_col: cols, ws_xpixel: cols * 8, ws_ypixel: rows * 16 }
}

/// Opens a new pseudo-terminal of the given size with IUTF8 set, master non-blocking.
pub(crate) fn open(cols: u16, rows: u16) -> io::Result<Pty> {
    let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
    let master = rustix::pty::openpt(flags)?;
    rustix::pty::grantpt(&master)?;
    rustix::pty::unlockpt(&master)?;
    let slave = open_slave(&master, flags)?;
    let mut attrs = termios::tcgetattr(&slave)?;
    attrs.input_modes |= InputModes::IUTF8;
    termios::tcsetattr(&slave, OptionalActions::Now, &attrs)?;
    termios::tcsetwinsize(&slave, winsize(cols, rows))?;
    let fl = rustix::fs::fcntl_getfl(&master)?;
    rustix::fs::fcntl_setfl(&master, fl | rustix::fs::OFlags::NONBLOCK)?;
    Ok(Pty { master, slave })
}

#[cfg(target_os = "linux")]
fn open_slave(master: &OwnedFd, flags: OpenptFlags) -> io::Result<OwnedFd> {
    Ok(rustix::pty::ioctl_tiocgptpeer(master, flags)?)
}

#[cfg(not(target_os = "linux"))]
fn open_slave(master: &OwnedFd, _flags: OpenptFlags) -> io::Result<OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let name = rustix::pty::ptsname(master, Vec::new())?;
    Ok(rustix::fs::open(
        name.as_c_str(),
        OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Sets the kernel's window size; the foreground process group gets SIGWINCH.
pub(crate) fn set_size(master: BorrowedFd<'_>, cols: u16, rows: u16) -> io::Result<()> {
    Ok(termios::tcsetwinsize(master, winsize(cols, rows))?)
}

/// The terminal's foreground process group.
pub(crate) fn foreground_group(master: BorrowedFd<'_>) -> Option<i32> {
    termios::tcgetpgrp(master).ok().map(|pid| pid.as_raw_nonzero().get())
}

/// The terminal's echo and canonical flags, read through its master (which reads the
/// slave's settings).
pub(crate) fn line_modes(master: BorrowedFd<'_>) -> Option<crate::types::LineModes> {
    Some(line_modes_in(&termios::tcgetattr(master).ok()?))
}

/// The echo and canonical flags of terminal modes `modes`.
pub(crate) fn line_modes_in(modes: &termios::Termios) -> crate::types::LineModes {
    use rustix::termios::LocalModes;
    crate::types::LineModes {
        echo: modes.local_modes.contains(LocalModes::ECHO),
        canonical: modes.local_modes.contains(LocalModes::ICANON),
    }
}

/// Whether the terminal is set as a shell's line editor sets it: canonical input and echo off
/// (`ICANON`, `ECHO`: it reads keys and draws the line itself), and the literal-next
/// character (`VLNEXT`, Ctrl-V) off or not acted on (`IEXTEN` off): the editor quotes the
/// next key itself (readline's and zle's `quoted-insert`), so it takes the character from the
/// kernel, as a raw mode (`cfmakeraw`) does too. A read of single keys by a shell's `read`
/// (bash's `read -n1`, `-N1`, `-d`; zsh's `read -k`, `read -q`) turns canonical input off
/// and leaves the rest as it was: echo on (off with `-s`), literal-next on (measured with
/// bash 5.2 and zsh 5.9). `false` when the modes cannot be read. A key read with echo off
/// on a terminal whose literal-next character was disabled beforehand (`stty lnext undef`
/// then bash's `read -s -n1`; `stty -iexten` then zsh's `read -sk`) looks like the editor,
/// as do bash's `read -e` and zsh's `vared`, which read a line with readline and zle
/// themselves (`vared` measured: `-icanon -echo lnext undef`): known limits.
pub(crate) fn line_editor_reads(master: BorrowedFd<'_>) -> bool {
    use rustix::termios::{LocalModes, SpecialCodeIndex};
    termios::tcgetattr(master).is_ok_and(|t| {
        let literal_next = t.local_modes.contains(LocalModes::IEXTEN)
            // 0 is `_POSIX_VDISABLE` on Linux: no character is the literal-next.
            && t.special_codes[SpecialCodeIndex::VLNEXT] != 0;
        !t.local_modes.intersects(LocalModes::ICANON | LocalModes::ECHO) && !literal_next
    })
}

/// The xterm modifyOtherKeys level keys are sent under, given `level`, the one a program set,
/// and the terminal's modes `modes`. `level` while the terminal hands every key to its
/// program as it comes, signal characters included (`ICANON` and `ISIG` off: vim's raw mode).
/// At most 1 while it hands keys over one by one but acts on signal characters (`ICANON` off,
/// `ISIG` on: emacs's mode, which asks for level 1 and makes `C-g` its interrupt character):
/// at level 1 no signal character changes form (`C-c`, `C-\`, `C-z`, and whatever the
/// terminal's `VINTR`, `VQUIT` and `VSUSP` are: Ctrl on a letter or another key with a
/// control byte keeps its byte; Enter, Tab and Escape with modifiers do change, `C-Enter`
/// being `CSI 27;5;13~`), while keys the legacy forms cannot tell apart keep their modifiers
/// (`C-Enter`, `C-Tab`, `C-,` came to emacs as `\r`, `\t` and `,`); level 2 would send `C-c`
/// as `CSI 27;5;99~`. 0 in canonical input, where the line discipline reads the keys: a level
/// a dying program left set sent a shell's Ctrl-C so, and it interrupted nothing. (Whose
/// level it is, the reactor checks apart: see `Slot::modify_other_keys_group`.)
pub(crate) fn modify_other_keys_under(modes: &termios::Termios, level: u8) -> u8 {
    use rustix::termios::LocalModes;
    if modes.local_modes.contains(LocalModes::ICANON) {
        0
    } else if modes.local_modes.contains(LocalModes::ISIG) {
        level.min(1)
    } else {
        level
    }
}

/// Whether a read of the terminal, taking keys, returns after a time with no key: `VMIN` 0
/// and `VTIME` above 0 (a program polling the keyboard between its own steps, with no other
/// clock). `false` in canonical mode, or when its modes cannot be read.
pub(crate) fn reads_time_out(terminal: BorrowedFd<'_>) -> bool {
    use rustix::termios::{LocalModes, SpecialCodeIndex};
    termios::tcgetattr(terminal).is_ok_and(|t| {
        !t.local_modes.contains(LocalModes::ICANON)
            && t.special_codes[SpecialCodeIndex::VMIN] == 0
            && t.special_codes[SpecialCodeIndex::VTIME] > 0
    })
}

/// The terminal's line-kill character (`VKILL`, Ctrl-U by default), which in canonical mode
/// erases the line being typed, not yet ended (silently while echo is off); `None` when it is
/// disabled or the terminal's modes cannot be read.
pub(crate) fn kill_character(terminal: BorrowedFd<'_>) -> Option<u8> {
    kill_character_in(&termios::tcgetattr(terminal).ok()?)
}

/// The line-kill character of terminal modes `modes` ([`kill_character`]).
pub(crate) fn kill_character_in(modes: &termios::Termios) -> Option<u8> {
    let code = modes.special_codes[termios::SpecialCodeIndex::VKILL];
    // 0 is `_POSIX_VDISABLE` on Linux: no character kills the line.
    (code != 0).then_some(code)
}

/// The echo and canonical flags of the pseudo-terminal that is process `pid`'s controlling
/// terminal, when that is not the session's own (whose slave is device `own`) but one a
/// program of the session made and relays to (`sudo` with `use_pty`, `script`): the program in it reads its keys
/// there, under its own modes, while the relay keeps the session's terminal raw. `None` when
/// it is the session's own terminal, no pseudo-terminal, or cannot be opened (another
/// user's). Opened without becoming anyone's controlling terminal, and closed at once.
pub(crate) fn hosted_line_modes(own: u64, pid: i32) -> Option<crate::types::LineModes> {
    let hosted = hosted_terminal(own, pid)?;
    line_modes(std::os::fd::AsFd::as_fd(&hosted))
}

/// The pseudo-terminal that is process `pid`'s controlling terminal, opened read-only without
/// becoming anyone's controlling terminal, when it is not the session's own terminal, whose
/// slave is device `own` ([`slave_device`], read once per session: it cannot change) (see
/// [`hosted_line_modes`]).
#[cfg(target_os = "linux")]
pub(crate) fn hosted_terminal(own: u64, pid: i32) -> Option<OwnedFd> {
    let (minor, device) = controlling_pts(pid)?;
    if own == device {
        return None;
    }
    open_pts(minor, device)
}

/// The echo and canonical flags of the pseudo-terminal that is process `pid`'s controlling
/// terminal, whichever it is; `None` when it has none, or it cannot be opened (another
/// user's). Opened without becoming anyone's controlling terminal, and closed at once.
#[cfg(target_os = "linux")]
pub(crate) fn controlling_line_modes(pid: i32) -> Option<crate::types::LineModes> {
    let (minor, device) = controlling_pts(pid)?;
    line_modes(std::os::fd::AsFd::as_fd(&open_pts(minor, device)?))
}

/// How many bytes of input the pseudo-terminal that is process (or thread) `pid`'s controlling
/// terminal holds unread (see [`unread_input_of`]); `None` when it has none, or it cannot be
/// opened (another user's). Opened without becoming anyone's controlling terminal, and closed
/// at once.
#[cfg(target_os = "linux")]
pub(crate) fn controlling_unread_input(pid: i32) -> Option<u64> {
    let (minor, device) = controlling_pts(pid)?;
    unread_input_of(std::os::fd::AsFd::as_fd(&open_pts(minor, device)?))
}

/// The minor number and the device of process `pid`'s controlling terminal, when that is a
/// Unix 98 pseudo-terminal's slave.
#[cfg(target_os = "linux")]
fn controlling_pts(pid: i32) -> Option<(u32, rustix::fs::Dev)> {
    /// The major device number of every Unix 98 pseudo-terminal's slave (`/dev/pts/N` is
    /// minor `N`: the kernel gives them 20 bits of minor under this one major).
    const PTS_MAJOR: u32 = 136;
    // `tty_nr` as the kernel encodes it: minor bits 0-7 and 20-31, major bits 8-19.
    let tty = crate::os::procfs::read_stat(pid).ok()?.tty_nr as u32;
    let (major, minor) = ((tty >> 8) & 0xfff, (tty & 0xff) | ((tty >> 12) & 0xfff00));
    (major == PTS_MAJOR).then(|| (minor, rustix::fs::makedev(major, minor)))
}

/// `/dev/pts/MINOR`, opened read-only without becoming anyone's controlling terminal, when it
/// is `device`.
#[cfg(target_os = "linux")]
fn open_pts(minor: u32, device: rustix::fs::Dev) -> Option<OwnedFd> {
    use rustix::fs::{Mode, OFlags, fstat};
    let flags = OFlags::RDONLY | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let pts = rustix::fs::open(format!("/dev/pts/{minor}"), flags, Mode::empty()).ok()?;
    (fstat(&pts).ok()?.st_rdev == device).then_some(pts)
}

/// Elsewhere, the session's own terminal is all termloom reads.
#[cfg(not(target_os = "linux"))]
pub(crate) fn hosted_terminal(_own: u64, _pid: i32) -> Option<OwnedFd> {
    None
}

/// Elsewhere, no other terminal's modes are read.
#[cfg(not(target_os = "linux"))]
pub(crate) fn controlling_line_modes(_pid: i32) -> Option<crate::types::LineModes> {
    None
}

/// Elsewhere, no other terminal's input is counted.
#[cfg(not(target_os = "linux"))]
pub(crate) fn controlling_unread_input(_pid: i32) -> Option<u64> {
    None
}

/// The device number (`st_rdev`) of the slave of the terminal behind `master`; `None` when it
/// cannot be told.
pub(crate) fn slave_device(master: BorrowedFd<'_>) -> Option<u64> {
    let name = rustix::pty::ptsname(master, Vec::new()).ok()?;
    Some(rustix::fs::stat(name.as_c_str()).ok()?.st_rdev as u64)
}

/// How many bytes of input the terminal behind `master` holds that its program has not read:
/// in canonical mode, those of complete lines only (an unfinished line is not counted). Read
/// on the terminal's slave side, opened for the question without becoming anyone's
/// controlling terminal. `None` when it cannot be told.
#[cfg(target_os = "linux")]
pub(crate) fn unread_input(master: BorrowedFd<'_>) -> Option<u64> {
    let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
    let slave = rustix::pty::ioctl_tiocgptpeer(master, flags).ok()?;
    unread_input_of(std::os::fd::AsFd::as_fd(&slave))
}

/// Elsewhere, it cannot be told.
#[cfg(not(target_os = "linux"))]
pub(crate) fn unread_input(_master: BorrowedFd<'_>) -> Option<u64> {
    None
}

/// How many bytes of input a terminal's slave side (`slave`) holds unread (see
/// [`unread_input`]), the bytes written to its master just before included.
///
/// A write to the master only puts the bytes in the slave's flip buffer: the kernel moves
/// them into the line discipline's input queue, which `FIONREAD` counts, later, on a worker
/// thread of its own (`flush_to_ldisc`). Right after a write the count was 0 about half the
/// time, and a secret was typed behind a line still on its way. A poll of the slave with no
/// timeout runs that work first (`n_tty_poll` flushes the buffer when it finds no input), as a
/// blocked reader would.
pub(crate) fn unread_input_of(slave: BorrowedFd<'_>) -> Option<u64> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(&slave, PollFlags::IN)];
    let now = Timespec { tv_sec: 0, tv_nsec: 0 };
    while let Err(rustix::io::Errno::INTR) = poll(&mut fds, Some(&now)) {}
    rustix::io::ioctl_fionread(slave).ok()
}

/// Starts `argv` on the slave of `pty` as a session leader with the terminal as its
/// controlling terminal. Returns the child's pid.
pub(crate) fn spawn(
    slave: BorrowedFd<'_>,
    argv: &[OsString],
    env: &BTreeMap<OsString, OsString>,
    cwd: &Path,
    cgroup_procs: Option<&std::ffi::CStr>,
    isolation: &Isolation,
) -> io::Result<i32> {
    let mut command = std::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .env_clear()
        .envs(env)
        .current_dir(cwd)
        .stdin(Stdio::from(slave.try_clone_to_owned()?))
        .stdout(Stdio::from(slave.try_clone_to_owned()?))
        .stderr(Stdio::from(slave.try_clone_to_owned()?));
    let cgroup_procs = cgroup_procs.map(std::ffi::CStr::to_owned);
    let isolation = isolation.clone();
    let mut ruleset = isolation.confinement.as_ref().map(|c| c.ruleset()).transpose()?;
    // SAFETY: the closure runs between fork and exec and only makes system calls that are
    // async-signal-safe (sigaction, setsid, ioctl, open, write, getdents, fcntl, setrlimit, setgroups,
    // setgid, setuid, prctl, landlock_restrict_self); everything it needs was prepared before the fork, so it
    // allocates nothing. Descriptor 0 is the terminal's slave, set up by `Command` before
    // the closure runs, so borrowing it is sound.
    unsafe {
        command.pre_exec(move || {
            default_signal_actions();
            rustix::process::setsid()?;
            rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(0))?;
            if let Some(procs) = &cgroup_procs {
                crate::os::cgroup::join_in_child(procs)?;
            }
            isolation.apply_in_child()?;
            crate::os::confine::restrict_in_child(&mut ruleset)?;
            super::descriptors::mark_above_2_cloexec();
            Ok(())
        });
    }
    let child = command.spawn()?;
    Ok(child.id() as i32)
}

/// Gives back their default action to the signals this process ignores: an ignored signal
/// stays ignored across exec, and a host that started the engine with SIGINT ignored (a
/// script's background job, `nohup`) would pass that on to every session's programs, where
/// Ctrl-C, a cancelled call's interrupt and `terminal_signal` would then do nothing. (Caught
/// signals get their default action at exec anyway; `Command` empties the signal mask.)
/// Runs between fork and exec: `sigaction` only.
fn default_signal_actions() {
    for signal in 1..32 {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        // SAFETY: sigaction with valid pointers to zeroed (valid) structures; a signal
        // number the system does not know fails harmlessly.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    /// Bytes just written to the master count as unread input at once, though the kernel
    /// moves them to the slave's input queue on a worker thread of its own: counted right
    /// after the write, without the poll that runs that work first, they were missing about
    /// one time in two.
    #[test]
    fn input_just_written_counts_as_unread() {
        let pty = open(80, 24).unwrap();
        let mut attrs = termios::tcgetattr(&pty.slave).unwrap();
        attrs.local_modes.remove(termios::LocalModes::ECHO);
        termios::tcsetattr(&pty.slave, OptionalActions::Now, &attrs).unwrap();
        for round in 0..200 {
            assert_eq!(rustix::io::write(&pty.master, b"line\n").unwrap(), 5);
            assert_eq!(unread_input(pty.master.as_fd()), Some(5), "round {round}");
            let mut buf = [0; 16];
            assert_eq!(rustix::io::read(&pty.slave, &mut buf).unwrap(), 5);
        }
    }
}
