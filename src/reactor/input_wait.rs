//! Whether a session's foreground program waits for input: the `/proc` probe behind
//! `Until::input_wait`, a status's `WaitingForInput` and `run_command`'s stop for input
//! (`input_wait_of`), whether it asks for a whole line with nothing else left to print
//! (`asks_for_line`), and what they keep between looks: a sighting confirmed
//! (`SeenWaiting`, `FirstSighting`), input written but not read yet (`UnreadInput`) and the
//! reader's threads at the last input (`ThreadsAtInput`).

use super::*;

/// A probe that found a session's foreground group waiting for input (kept in
/// `Slot::seen_waiting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SeenWaiting {
    /// The session's activity time it was made at (`Slot::activity`): it holds until input,
    /// output or a resize comes.
    pub at: Instant,
    /// The group.
    pub group: i32,
    /// Its member reading the terminal, when told (else the group's leader).
    pub reader: Option<i32>,
    /// The reader's threads then.
    pub threads: Option<u32>,
    /// When the probe made it.
    pub made: Instant,
}

/// The process seen reading a session's terminal, and its threads, by a sighting made since
/// the input before (the count is of the program waiting for the input written next): one
/// that ends a thread in answer to a key and draws nothing before it does
/// (btop's `q` stops its runner thread, then it restores the terminal and exits 100 ms later,
/// its input thread back in `read` meanwhile, its main thread in short sleeps, as when idle)
/// is still answering it (see [`ThreadsAtInput::ended_one`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ThreadsAtInput {
    /// The process seen reading (`Slot::seen_waiting`'s reader, or its group's leader).
    pid: i32,
    /// Its threads then.
    threads: u32,
}

impl ThreadsAtInput {
    /// What `slot`'s sighting says as input is queued, if it was made since the input before
    /// (output since, a monitor's redraw, starts or ends no thread of a program waiting for
    /// keys): no `/proc` read on the way to the terminal (the threads were counted when the
    /// sighting was confirmed). One made before the input before says nothing of the program
    /// this input reaches. Called before `Slot::last_input` is set for this input.
    pub(super) fn before_input(slot: &Slot) -> Option<ThreadsAtInput> {
        let seen = slot.seen_waiting.get().filter(|seen| seen.at >= slot.last_input)?;
        Some(ThreadsAtInput { pid: seen.reader.unwrap_or(seen.group), threads: seen.threads? })
    }

    /// Why `reader` (a group's member `pid`, when `None`), found waiting, is still answering
    /// the last input: it is the process seen reading before it, and has fewer threads now
    /// (it ended one since: quitting, as btop does on `q`). Only asked when nothing was drawn
    /// since the input, and for [`STILL_ANSWERING`] after it: an answer drawn is the
    /// program's, whatever its threads do; and what a wait then sees is the program drawing
    /// its answer, or exiting (or, past that time, a program that ended a thread for a key
    /// without a word, waiting again).
    fn ended_one(&self, reader: i32) -> Option<String> {
        let threads = procfs::thread_count(reader)?;
        (reader == self.pid && threads < self.threads).then(|| {
            let name = procfs::program_name(reader).unwrap_or_else(|| "?".to_owned());
            format!(
                "pid {reader} ({name}) ended {} of its threads since the last input and has \
                 drawn nothing since: still answering it",
                self.threads - threads
            )
        })
    }
}

/// How long after a key a program that ended a thread for it, with nothing drawn, is taken
/// for still answering it ([`ThreadsAtInput::ended_one`]): btop exits about 100 ms after its
/// `q` ends its runner thread; a program whose key ended a worker and that answers nothing
/// else costs a wait this long at most, not the default wait's cap.
const STILL_ANSWERING: Duration = Duration::from_secs(1);

/// Input written to a session's terminal that its foreground group may not have read yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct UnreadInput {
    /// The foreground group it was written to.
    group: i32,
    /// The read system calls the group had completed before it (see
    /// [`procfs::group_reads`]).
    reads: u64,
    /// It ends a line (Enter, a line feed, Ctrl-D), which a read in canonical mode waits for.
    ends_line: bool,
    /// The processes whose reads were counted, for the count before the next write.
    readers: Readers,
}

/// The processes whose reads a foreground group's count sums ([`procfs::group_readers`]), as
/// a look at the session's processes found them, and the session's cgroup's members then: as
/// long as the same processes are in the cgroup, each in the process group it was in, and the
/// same group and relay in the foreground, the count before the next write sums the same
/// processes' reads without looking for them again (a look at every process of the session,
/// and at the terminal's relays, before each key typed: about 18 µs of a keystroke's 100).
/// Without a cgroup, or with more readers than it holds, the processes are looked for before
/// every write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Readers {
    pids: [i32; READERS_KEPT],
    /// The process group of each then: a process that left its group since (a job bash put
    /// in a group of its own just after it forked) is no longer read for.
    groups: [i32; READERS_KEPT],
    len: u8,
    /// A hash of the cgroup's members when the readers were found; `None` without a cgroup.
    members: Option<u64>,
    /// The relay outside the session known then ([`known_relay`]).
    relay: Option<i32>,
}

/// The readers [`Readers`] keeps (a group of more is looked for before every write).
const READERS_KEPT: usize = 8;

impl Readers {
    /// The readers of `group` in `slot`'s session, and the cgroup's members `members`.
    fn find(slot: &Slot, group: i32, members: Option<&[i32]>) -> Option<(Vec<i32>, Readers)> {
        let relay = known_relay(slot, group);
        let pids = procfs::group_readers(group, Some(slot.pid), members, relay)?;
        let mut kept = Readers {
            pids: [0; READERS_KEPT],
            groups: [0; READERS_KEPT],
            len: 0,
            members: None,
            relay,
        };
        let groups: Option<Vec<i32>> = pids.iter().map(|&pid| group_of(pid)).collect();
        if let Some(groups) = groups.filter(|_| pids.len() <= READERS_KEPT) {
            kept.pids[..pids.len()].copy_from_slice(&pids);
            kept.groups[..pids.len()].copy_from_slice(&groups);
            kept.len = pids.len() as u8;
            kept.members = members.map(members_hash);
        }
        Some((pids, kept))
    }

    /// The readers kept, while the cgroup's members are still `members`, each reader is in
    /// the process group it was in, and the relay known for `group` is the same.
    fn still(&self, slot: &Slot, group: i32, members: Option<&[i32]>) -> Option<&[i32]> {
        let len = usize::from(self.len);
        let same = self.members.is_some()
            && self.members == members.map(members_hash)
            && self.relay == known_relay(slot, group)
            && (0..len).all(|i| self.in_its_group(i));
        same.then(|| &self.pids[..len])
    }

    /// Whether a reader kept has ended, or left the process group it was in, since it was
    /// found: it may have read the input before it went (a dialog a daemon runs, which reads
    /// its answer and ends, the next dialog drawn by a new process), and the count now sums
    /// other processes than the count then (the next dialog's reads, up to its wait for keys,
    /// may add up to as many as the first's did: `gpg -c`'s second `pinentry-curses`).
    /// An ended reader its parent has not reaped yet is still in its group, but counts no
    /// more reads (review vu: a daemon that reaped its dialog late hung as before).
    fn one_went(&self) -> bool {
        (0..usize::from(self.len)).any(|i| {
            !self.in_its_group(i)
                || procfs::read_stat(self.pids[i]).is_ok_and(|stat| stat.state == 'Z')
        })
    }

    /// Whether reader `i` is still in the process group it was in when found.
    fn in_its_group(&self, i: usize) -> bool {
        group_of(self.pids[i]) == Some(self.groups[i])
    }
}

/// The process group of process `pid`, where it still lives.
fn group_of(pid: i32) -> Option<i32> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::getpgid(Some(pid))
        .ok()
        .map(rustix::process::Pid::as_raw_nonzero)
        .map(|g| g.get())
}

/// A hash of a cgroup's members, in the order `cgroup.procs` lists them.
fn members_hash(members: &[i32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    members.hash(&mut hasher);
    hasher.finish()
}

impl UnreadInput {
    /// What to remember before `bytes` are written: the earlier unread input, when the same
    /// group is in the foreground and has read nothing since (its count has not moved), else
    /// the group's reads now. An earlier count the group has read past (the earlier input
    /// read, with no look at the program since to forget it) would take these bytes for read
    /// at the next look, while the program, not woken yet or waiting for more (VMIN), is
    /// still blocked in its read. The count sums the readers the earlier count found while
    /// they can stand ([`Readers`]). `None` when the group's reads cannot be counted (another
    /// user's process, no `/proc`), or when nothing is left a read could return. The line
    /// discipline takes the signal
    /// characters (Ctrl-C, Ctrl-\, Ctrl-Z with ISIG: a program that catches the signal never
    /// reads them) and, unless NOFLSH, discards the input queued before them; with IXON it
    /// takes the flow-control characters (Ctrl-S, Ctrl-Q). Those are control characters (as
    /// terminals are set up), so the modes are read only for bytes that hold one: text typed
    /// or pasted costs no system call here; nor does a write whose caller read the modes just
    /// before, with no output read since (`modes`: a request's reading, which decided its
    /// keys' encoding and signal character, serves the queue's first write, whatever request
    /// queued the bytes at its front: they are the terminal's modes now).
    pub(super) fn before_writing(
        slot: &Slot,
        master: std::os::fd::BorrowedFd<'_>,
        bytes: &[u8],
        modes: Option<&rustix::termios::Termios>,
    ) -> Option<UnreadInput> {
        procfs::examine(|| Self::examined_before_writing(slot, master, bytes, modes))
    }

    /// [`UnreadInput::before_writing`], within its examination of `/proc`.
    fn examined_before_writing(
        slot: &Slot,
        master: std::os::fd::BorrowedFd<'_>,
        bytes: &[u8],
        modes: Option<&rustix::termios::Termios>,
    ) -> Option<UnreadInput> {
        use rustix::termios::{InputModes, LocalModes, SpecialCodeIndex};
        let mut earlier = slot.unread_input.get();
        let mut bytes = bytes;
        let controls = bytes.iter().any(|b| *b < 0x20 || *b == 0x7f);
        let read = || modes.cloned().or_else(|| rustix::termios::tcgetattr(master).ok());
        let termios = controls.then(read).flatten();
        if let Some(termios) = &termios {
            let signal = |b: &u8| super::terminal_io::signal_for(termios, *b).is_some();
            if let Some(last) = bytes.iter().rposition(signal) {
                bytes = &bytes[last + 1..];
                if !termios.local_modes.contains(LocalModes::NOFLSH) {
                    earlier = None;
                }
            }
        }
        let flow = termios.filter(|t| t.input_modes.contains(InputModes::IXON)).map(|t| {
            [SpecialCodeIndex::VSTART, SpecialCodeIndex::VSTOP].map(|i| t.special_codes[i])
        });
        let taken = |b: &u8| *b != 0 && flow.is_some_and(|codes| codes.contains(b));
        if bytes.iter().all(taken) {
            return earlier;
        }
        let ends_line = bytes.iter().any(|b| matches!(b, b'\r' | b'\n' | 4));
        let group = crate::os::pty::foreground_group(master)?;
        let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
        let members = members.as_deref();
        let kept = earlier.filter(|e| e.group == group).and_then(|e| {
            let reads = procfs::reads_of(e.readers.still(slot, group, members)?)?;
            Some((reads, e.readers))
        });
        let (reads, readers) = match kept {
            Some(kept) => kept,
            None => {
                let (pids, readers) = Readers::find(slot, group, members)?;
                (procfs::reads_of(&pids)?, readers)
            }
        };
        let ends_line = ends_line
            || earlier.is_some_and(|e| (e.group, e.reads) == (group, reads) && e.ends_line);
        Some(UnreadInput { group, reads, ends_line, readers })
    }

    /// Whether the input is still unread: the same group is in the foreground and has
    /// completed no read since, and a read could return it (in canonical mode, only a whole
    /// line is returned: a part of a line leaves the program waiting for the rest). A reader
    /// counted before it that has ended since may have read it ([`Readers::one_went`]): the
    /// input is then taken as read, and the probe looks at who waits now.
    fn still_unread(&self, slot: &Slot, master: std::os::fd::BorrowedFd<'_>, group: i32) -> bool {
        use rustix::termios::LocalModes;
        let canonical = rustix::termios::tcgetattr(master)
            .is_ok_and(|t| t.local_modes.contains(LocalModes::ICANON));
        group == self.group
            && (self.ends_line || !canonical)
            && !self.readers.one_went()
            && !read_since(slot, group, self.reads)
    }
}

/// Whether the terminal's foreground group, found waiting for input, asks for a whole line (or
/// a password: canonical input; or a command line: the shell is `at_prompt`, its line editor
/// reading keys; or a REPL's next line, see below) and nothing else can print: it is one
/// process, and every other process of the session waits for a child (a shell for its job). A
/// group of several (a shell without job control and its background job, `(sleep 9; echo
/// late) & read x`) or a background job of a shell with job control may print while it reads;
/// and nothing they printed before they ended is still unread. The modes are those of the
/// terminal `reader` reads (see `Slot::reader_line_modes`).
///
/// A program reading keys (a REPL's line editor: Python's `>>>`, pdb's `(Pdb)`, `sqlite3`'s,
/// `bc`'s, gdb's `(gdb)`) asks for input too when `reader` is the group's process and every
/// thread of it is blocked reading its terminal, or polling it with no timeout, alone or
/// beside pipes and eventfds no other process of the session holds (its cgroup's members, or
/// without one its POSIX session's), or idle on a lock of its own
/// (`procfs::awaits_input_alone`), with no POSIX timer nor child that may signal it, and a
/// read of it does not time out (`VTIME`): only a key, or a timer `/proc` does not show
/// (`alarm`, `setitimer`), can wake it. Reading keys is no proof by itself: an event loop at its prompt (node's REPL)
/// prints when a timer of its own goes off, and a thread beside the one that reads when it
/// wakes. Such a program may have stopped other processes of the session tracing them (gdb
/// its program at a breakpoint): they run again only when it sets them running.
pub(super) fn asks_for_line(slot: &Slot, at_prompt: bool, reader: Option<i32>) -> bool {
    procfs::examine(|| examined_asks_for_line(slot, at_prompt, reader))
}

/// [`asks_for_line`], within its examination of `/proc`.
fn examined_asks_for_line(slot: &Slot, at_prompt: bool, reader: Option<i32>) -> bool {
    let Some(master) = &slot.master else {
        return false;
    };
    let kind = slot.reader_line_modes(reader).map(crate::LineModes::input_kind);
    let line =
        at_prompt || matches!(kind, Some(crate::InputKind::Line | crate::InputKind::Password));
    let keys = !line && kind == Some(crate::InputKind::Keys);
    let group = crate::os::pty::foreground_group(master.as_fd()).filter(|_| line || keys);
    // (The session's processes, when its cgroup has them: where holders of a reader's pipes
    // are looked for too.)
    let members = group.and(slot.cgroup.as_ref()).map(|cgroup| cgroup.pids());
    let alone = group.is_some_and(|group| {
        // (A program it stopped tracing, at a breakpoint, counts only for a program reading
        // keys, which is found below blocked until a key: nothing else sets it running.)
        procfs::alone_in_session(group, slot.pid, members.as_deref(), keys)
    });
    // Looked at after the other processes were found gone: what one of them printed before it
    // ended (a background job's last line) may not have been read yet, or not fed yet.
    if !alone || output_unread(slot) {
        return false;
    }
    // (The reader named may be a program a relay hosts, in a session of its own, under modes
    // of its own: only the group's own process, on the session's terminal, was found alone.)
    let awaits_keys_alone = || {
        reader.zip(group).is_some_and(|(reader, group)| {
            procfs::read_stat(reader).is_ok_and(|stat| stat.pgrp == group)
                && !crate::os::pty::reads_time_out(master.as_fd())
                && procfs::awaits_input_alone(reader, members.as_deref())
        })
    };
    if keys && !awaits_keys_alone() {
        return false;
    }
    // Nor may it have reached the master yet: the kernel hands a write over to it
    // asynchronously, after the writer may have ended (a loaded machine's `(sleep 1.5; echo
    // late) & read x` was found asking with `late` on its way). A first sighting is taken only
    // when a later look, with no output or input in between, sees the same.
    let activity = slot.last_output.max(slot.last_input);
    slot.first_seen_asking.confirm(activity, CONFIRM_ASKING) == Confirmation::Confirmed
}

/// A first sighting of a state of the program, taken only when a later look sees it again,
/// with nothing in between (`K`: what keys it, the time of the last output or input among
/// it), at least a given time later: output the program wrote just before may still be on its
/// way to the terminal's master (the kernel hands it over asynchronously).
pub(super) struct FirstSighting<K>(std::cell::Cell<Option<(K, Instant)>>);

/// What [`FirstSighting::confirm`] says of a sighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Confirmation {
    /// Seen for the first time (with this key): recorded.
    New,
    /// Seen before, too recently to be confirmed.
    Confirming,
    /// Seen before, long enough ago: taken.
    Confirmed,
}

impl<K: Copy + PartialEq> FirstSighting<K> {
    pub(super) fn new() -> Self {
        FirstSighting(std::cell::Cell::new(None))
    }

    /// As [`FirstSighting::confirm`], but a sighting recorded `expire` or longer ago is
    /// recorded again as new: one left from a look long before (an earlier wait's, with
    /// looks of other kinds since) confirms nothing.
    pub(super) fn confirm_within(&self, key: K, after: Duration, expire: Duration) -> Confirmation {
        if self.0.get().is_some_and(|(_, seen)| seen.elapsed() >= expire) {
            self.forget();
        }
        self.confirm(key, after)
    }

    /// Forgets the sighting recorded: the state was seen to end.
    pub(super) fn forget(&self) {
        self.0.set(None);
    }

    /// Records a sighting keyed `key`, and says whether one with the same key was recorded at
    /// least `after` ago.
    fn confirm(&self, key: K, after: Duration) -> Confirmation {
        let now = Instant::now();
        match self.0.get() {
            Some((seen_key, seen)) if seen_key == key => {
                match now.saturating_duration_since(seen) >= after {
                    true => Confirmation::Confirmed,
                    false => Confirmation::Confirming,
                }
            }
            _ => {
                self.0.set(Some((key, now)));
                Confirmation::New
            }
        }
    }
}

/// How long after a first sighting of a program asking for a line, with nothing else left to
/// print, a second one confirms it (see [`asks_for_line`]): longer than the kernel takes to
/// hand a write over to the terminal's master on a loaded machine.
const CONFIRM_ASKING: Duration = Duration::from_millis(50);

/// How long ago a look found `slot`'s terminal holding no input unread after the last input,
/// whether the program printed after that look, and, once it has printed nothing for
/// `wait::UNANSWERED_READ` since, whether a thread of the foreground group is blocked on the
/// terminal (reading it, or polling it, whatever the timer; or that cannot be told): a relay
/// (`script`, `sudo` with `use_pty`, `ssh`, `docker exec`) that read the input at once for a
/// program that may still be busy (`Until::input_read`). That look ([`terminal_reader`], the
/// group's threads) is made once per input, and only for a program silent that long: a
/// program polling the terminal between naps, never waiting on it, is seen napping. `None`
/// while input waits unread, in canonical mode (an unfinished line, a lone Escape, is not counted there:
/// it may be waiting for its line's end) or where the queue cannot be read. Looks at the
/// queue (a poll of the terminal's slave, which moves bytes written to the master into it,
/// then `FIONREAD`) only until it is found empty. Each look opens the slave anew
/// (`TIOCGPTPEER`, about 8 µs more than a look through a descriptor kept: some 370 looks, 3 ms,
/// over 10 s of a program busy in raw mode): a slave descriptor kept for the wait's life
/// would hold the terminal open past the program's exit, and the master would read no hang-up
/// until it was closed.
pub(super) fn input_read_for(slot: &mut Slot, now: Instant) -> Option<crate::wait::InputRead> {
    if slot.input_drained.is_none_or(|at| at < slot.last_input) {
        let master = slot.master.as_ref()?;
        let raw = crate::os::pty::line_modes(master.as_fd()).is_some_and(|m| !m.canonical);
        let empty = raw && crate::os::pty::unread_input(master.as_fd()) == Some(0);
        slot.input_drained = empty.then_some(now);
        slot.drained_by_reader = None;
    }
    let drained = slot.input_drained?;
    let printed = slot.last_output > drained;
    let ago = now.saturating_duration_since(drained);
    if !printed && slot.drained_by_reader.is_none() && ago >= crate::wait::UNANSWERED_READ {
        slot.drained_by_reader = Some(no_terminal_reader(slot).is_none());
    }
    Some(crate::wait::InputRead { ago, printed, reader_seen: slot.drained_by_reader })
}

/// Whether the program wrote output that the reactor has not read, or not fed, yet.
pub(super) fn output_unread(slot: &Slot) -> bool {
    slot.terminal.has_pending() || master_unread(slot)
}

/// Whether output waits unread in the terminal's master (`FIONREAD`).
pub(super) fn master_unread(slot: &Slot) -> bool {
    let master = slot.master.as_ref();
    master.is_some_and(|master| rustix::io::ioctl_fionread(master).is_ok_and(|unread| unread > 0))
}

/// What the caller of [`input_wait_of`] read of the session's terminal in the same look,
/// with nothing in between that waits, which the probe does not ask again (a status read
/// the foreground group and the master's unread output, then the probe read both again).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Looked {
    /// The foreground group (`Some(None)`: it has none), when read.
    pub group: Option<Option<i32>>,
    /// Whether output waited unread in the master ([`master_unread`]), when asked; a status
    /// passes whether output is pending in the terminal alone, and asks the master after the
    /// probe (see `Reactor::status_of`).
    pub unread: Option<bool>,
}

/// The read system calls the members of `group` in `slot`'s session have completed, with
/// those of its relays (tmux's server for its client): in the session, and outside it once
/// found ([`read_since`]).
fn group_reads(slot: &Slot, group: i32) -> Option<u64> {
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    procfs::group_reads(group, Some(slot.pid), members.as_deref(), known_relay(slot, group))
}

/// The relay outside `slot`'s session found for `group`, where one was looked for and found.
fn known_relay(slot: &Slot, group: i32) -> Option<i32> {
    match slot.outside_relay.get() {
        Some((looked_for, relay)) if looked_for == group => relay,
        _ => None,
    }
}

/// Whether `group` has read since it had completed `reads` read calls ([`group_reads`]). When
/// its count has not moved, its terminal may be read by a relay outside the session (the
/// tmux server its client attached to, started before the session), which is looked for once
/// per group: found, its reads count from then on, and the input is taken as read by it.
fn read_since(slot: &Slot, group: i32, reads: u64) -> bool {
    if group_reads(slot, group) != Some(reads) {
        return true;
    }
    if slot.outside_relay.get().is_some_and(|(looked_for, _)| looked_for == group) {
        return false;
    }
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    procfs::outside_relay(group, slot.pid, members.as_deref(), &slot.outside_relay).is_some()
}

/// Whether the terminal's foreground process group waits for input, and which group it is.
/// `quiet` is how long the terminal has been quiet, which tells an idle tick of a short timer
/// from an answer (see [`procfs::group_input_wait`]): since the last output for a status,
/// since the last change of the screen for a wait. `looked`: what the caller read of the
/// terminal just before, in the same look.
pub(super) fn input_wait_of(
    slot: &Slot,
    sighting: Sighting,
    quiet: Duration,
    looked: Looked,
) -> (procfs::InputWait, Option<i32>) {
    // (One examination: each `/proc` file read once, as one moment's view.)
    procfs::examine(|| examined_input_wait(slot, sighting, quiet, looked))
}

/// [`input_wait_of`], within its examination of `/proc`.
fn examined_input_wait(
    slot: &Slot,
    sighting: Sighting,
    quiet: Duration,
    looked: Looked,
) -> (procfs::InputWait, Option<i32>) {
    let Some(master) = &slot.master else {
        return (procfs::InputWait::Unknown { reason: "the terminal is closed".into() }, None);
    };
    let group = looked.group.unwrap_or_else(|| crate::os::pty::foreground_group(master.as_fd()));
    let Some(group) = group else {
        return (
            procfs::InputWait::Unknown {
                reason: "the terminal has no foreground process group".into(),
            },
            None,
        );
    };
    // Output the program already wrote but the reactor has not read yet means it is not
    // waiting (yet): the screen is about to change.
    if looked.unread.unwrap_or_else(|| master_unread(slot)) {
        return (
            procfs::InputWait::NotWaiting {
                reason: "output not yet read from the terminal".into(),
            },
            Some(group),
        );
    }
    // Input written to the terminal that the group has not read yet (its reader may not even
    // have been woken): it is not waiting, whatever /proc says now.
    if let Some(unread) = slot.unread_input.get() {
        if unread.still_unread(slot, master.as_fd(), group) {
            return (
                procfs::InputWait::NotWaiting { reason: "input not read yet".into() },
                Some(group),
            );
        }
        slot.unread_input.set(None);
    }
    // A group seen blocked reading the terminal stays so until it gets input or writes output
    // (or another group takes the terminal): the probe's answer is reused until then. A
    // resize, like input, is for the program to answer (SIGWINCH wakes it; it may work a
    // while before it redraws): a sighting made before one is not reused after it.
    let activity = slot.activity();
    if let Some(seen) = slot.seen_waiting.get()
        && (seen.at, seen.group) == (activity, group)
    {
        // Another process of the group may begin to read with nothing written either way
        // (a shell's `read` times out, and the `head` it starts reads): a status, which names
        // the reader (who asks for a secret), reuses a sighting older than `RECHECK_READER`
        // only while its reader is still blocked reading the terminal (one look at that one
        // process; not on every keystroke's answer, made just after its sighting).
        let fresh = seen.made.elapsed() < RECHECK_READER;
        if sighting == Sighting::Confirmed || fresh || still_reads(slot, seen.reader) {
            return (procfs::InputWait::Waiting { reader: seen.reader }, Some(group));
        }
        slot.seen_waiting.set(None);
    }
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    slot.timers.since_input(slot.last_input);
    slot.timers.drawn_at(slot.last_output);
    let shown = shown(slot, master.as_fd());
    let unanswered = unanswered(slot);
    let terminal = procfs::TerminalSeen {
        quiet,
        timers: Some(&slot.timers),
        outside: Some(&slot.outside_relay),
        shown,
        unanswered_input: slot.bytes_in > 0 && unanswered,
        unanswered_start: slot.bytes_in == 0 && unanswered,
        unanswered_secret: slot.bytes_in > 0 && slot.input_unechoed && unanswered,
        hidden_below_line: hidden_below_submitted(slot),
        // (What it drew for the keys before an Escape is no answer to the Escape; what it
        // drew after a pause, waiting for the rest of a key code, is.)
        drawn_since_input: slot.last_output > slot.last_input
            && (!slot.input_ends_unfinished || slot.cadence.drew_after_a_pause()),
        full_screen: slot.draws_full_screens(),
        frame_group: slot.frame_group,
        full_screen_since_input: !slot.full_screen_at_input && slot.draws_full_screens(),
        since_input: (slot.bytes_in > 0).then(|| slot.last_input.elapsed()),
    };
    let answer = match procfs::group_input_wait(group, Some(slot.pid), members.as_deref(), terminal)
    {
        // Where /proc cannot tell (a program running as another user, such as sudo), the
        // line discipline still tells a password prompt: whole lines, echo off.
        procfs::InputWait::Unknown { reason }
            if procfs::denied(&reason)
                && crate::os::pty::line_modes(master.as_fd()).map(crate::LineModes::input_kind)
                    == Some(crate::InputKind::Password) =>
        {
            procfs::InputWait::Waiting { reader: None }
        }
        answer => answer,
    };
    // A program that ended a thread since the key it read, and drew nothing since, is still
    // answering the key (btop quitting on `q`), though it waits for keys as when idle.
    let answer = match (answer, slot.threads_at_input.get()) {
        (procfs::InputWait::Waiting { reader }, Some(before))
            if !terminal.drawn_since_input && slot.last_input.elapsed() < STILL_ANSWERING =>
        {
            match before.ended_one(reader.unwrap_or(group)) {
                Some(reason) => procfs::InputWait::NotWaiting { reason },
                None => procfs::InputWait::Waiting { reader },
            }
        }
        (answer, _) => answer,
    };
    if let procfs::InputWait::Waiting { reader } = answer {
        if sighting == Sighting::First {
            return (answer, Some(group));
        }
        // Output a program wrote just before it blocked may not have reached the terminal's
        // master yet (the kernel hands it over asynchronously, so the unread-output check above
        // does not see it): a first sighting is taken only when a later probe, with no output
        // in between, sees the same.
        let reason = match slot.first_seen_waiting.confirm((activity, group), CONFIRM_WAITING) {
            Confirmation::Confirmed => None,
            Confirmation::Confirming => Some("confirming the wait"),
            Confirmation::New => Some("just began to wait for input (confirming)"),
        };
        if let Some(reason) = reason {
            return (procfs::InputWait::NotWaiting { reason: reason.into() }, Some(group));
        }
        let threads = procfs::thread_count(reader.unwrap_or(group));
        let made = Instant::now();
        slot.seen_waiting.set(Some(SeenWaiting { at: activity, group, reader, threads, made }));
    }
    (answer, Some(group))
}

/// What the terminal shows at its cursor, for a probe (see [`procfs::Shown`]): no prompt, the
/// cursor at the start of a blank row below text, on the line right after the one the last
/// submitted line was typed on (what follows a prompt the program printed, such as `echo
/// 'Press a key'; read -n1 -t 8`, is no answer to a line), with no input since or none that
/// drew anything (node's REPL reads no key while it awaits); or still on that line, nothing
/// drawn since it was submitted, when it was typed right below a line submitted before it
/// (typed while node's REPL awaits that one); or a prompt drawn since the last input, the
/// cursor right after its row's text or before a suggestion drawn after it (grey or faint,
/// the text before the cursor ending with what the last input typed:
/// `Emulator::cursor_in_line`); only while the program takes keys (the modes are read only
/// when the screen shows one of the two).
fn shown(slot: &Slot, master: std::os::fd::BorrowedFd<'_>) -> procfs::Shown {
    let terminal = &slot.terminal;
    let below_submitted = || {
        slot.submitted.is_some_and(|(at, line, before)| {
            let drew_nothing_since = |since| slot.last_output <= since;
            let cursor = terminal.cursor_position().0;
            let typed_below_another = before.is_some_and(|before| before.saturating_add(1) == line);
            (at == slot.last_input || drew_nothing_since(slot.last_input))
                && (cursor == line.saturating_add(1)
                    || cursor == line && typed_below_another && drew_nothing_since(at))
        })
    };
    let shown = if terminal.cursor_below_text() && below_submitted() {
        procfs::Shown::Unanswered
    } else if slot.last_output > slot.last_input && terminal.cursor_in_line(&slot.typed_text) {
        procfs::Shown::Prompt
    } else {
        return procfs::Shown::Other;
    };
    let keys = crate::os::pty::line_modes(master).map(crate::LineModes::input_kind)
        == Some(crate::InputKind::Keys);
    if keys { shown } else { procfs::Shown::Other }
}

/// Whether the last input, or the start when none was sent, has nothing drawn since that
/// answers it, for a probe (see [`procfs::TerminalSeen::unanswered_input`] and
/// [`procfs::TerminalSeen::unanswered_start`]): no output since it; a line submitted last
/// whose line break has not come back (the cursor still on the line it was typed on, on the
/// primary screen: its echo arrives in pieces from a far end); or the visible cursor at the
/// start of a blank row below a row of text (not a hidden one, as a TUI drawing on the primary
/// screen leaves it, nor one in a line being edited): a far end's greeting before its prompt
/// (`Last login: ...`); or, before any input, no text on the screen within a while of the last
/// output ([`BLANK_START`]; [`BLANK_ALTERNATE_START`] on the alternate screen): output that
/// left no text (bash turns bracketed paste on in a write of its own, which may reach the
/// terminal a packet before its prompt; a full-screen program switches screens before it
/// reads what its first frame shows). Not for longer: a far end may clear the screen and wait
/// for keys with nothing shown (`clear; exec cat`).
fn unanswered(slot: &Slot) -> bool {
    let terminal = &slot.terminal;
    let line_not_ended = || {
        !terminal.alternate()
            && slot.submitted.is_some_and(|(at, line, _)| {
                at == slot.last_input && terminal.cursor_position().0 <= line
            })
    };
    // (The line the cursor is on, which renders the rows down to it, is asked last.)
    slot.last_output <= slot.last_input
        || slot.bytes_in == 0 && terminal.shows_no_text() && {
            let bound = if terminal.alternate() { BLANK_ALTERNATE_START } else { BLANK_START };
            slot.last_output.elapsed() < bound
        }
        || terminal.cursor_visible() && terminal.cursor_below_text()
        || line_not_ended()
}

/// How long after its last output a session's blank screen, before any input, is no answer to
/// its start (see [`unanswered`]).
const BLANK_START: Duration = Duration::from_secs(3);

/// [`BLANK_START`] on the alternate screen, which a full-screen program switches to before it
/// draws its first frame, late on a loaded far end (htop reading `/proc`).
const BLANK_ALTERNATE_START: Duration = Duration::from_secs(8);

/// Whether the cursor is hidden at the start of a blank row of the primary screen right below
/// the line submitted last, the last input (see
/// [`procfs::TerminalSeen::hidden_below_line`]).
fn hidden_below_submitted(slot: &Slot) -> bool {
    let terminal = &slot.terminal;
    !terminal.cursor_visible()
        && terminal.cursor_below_text()
        && slot.submitted.is_some_and(|(at, line, _)| {
            at == slot.last_input && terminal.cursor_position().0 == line.saturating_add(1)
        })
}

/// How old a sighting a status reuses without looking whether its reader still reads (see
/// [`input_wait_of`]).
const RECHECK_READER: Duration = Duration::from_millis(100);

/// Whether `reader`, a cached sighting's reader, still blocks reading the session's terminal:
/// `true` where none was named (the group's leader stands for it) or the terminal's device is
/// not known, as nothing more can be told then.
fn still_reads(slot: &Slot, reader: Option<i32>) -> bool {
    match (reader, slot.slave_device) {
        (Some(pid), Some(device)) => procfs::blocked_on_terminal(pid, device),
        _ => true,
    }
}

/// Why no program of the foreground group of the session's terminal reads it now (see
/// [`procfs::terminal_reader`]: some thread of the group blocked reading it, or polling it
/// whatever the timer, other threads running or not), naming a process of the group; `None`
/// when one reads it, or when that cannot be told.
pub(super) fn no_terminal_reader(slot: &Slot) -> Option<String> {
    match terminal_reader(slot)? {
        procfs::TerminalReader::NotReading { reason } => Some(reason),
        procfs::TerminalReader::Reading { .. } | procfs::TerminalReader::Unknown { .. } => None,
    }
}

/// What `/proc` tells of a reader of the session's terminal in its foreground group; `None`
/// when the session has no terminal (any more) or no foreground group.
fn terminal_reader(slot: &Slot) -> Option<procfs::TerminalReader> {
    let master = slot.master.as_ref()?;
    let group = crate::os::pty::foreground_group(master.as_fd())?;
    let members = slot.cgroup.as_ref().map(|cgroup| cgroup.pids());
    let device = slot.slave_device?;
    Some(procfs::terminal_reader(group, Some(slot.pid), members.as_deref(), device))
}

/// Whether no thread of the foreground group of the session's terminal is seen reading it:
/// none reads it, or that cannot be told (a `/proc` read past its bound on a loaded machine,
/// a program of another user). See [`no_terminal_reader`], which tells the first alone.
pub(super) fn no_reader_seen(slot: &Slot) -> bool {
    !matches!(terminal_reader(slot), Some(procfs::TerminalReader::Reading { .. }))
}

/// Whether a probe's sighting of a program waiting for input is taken as it is (a status) or
/// only once confirmed (what ends a wait, or abandons a command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sighting {
    First,
    Confirmed,
}

/// How long after a first sighting of a program waiting for input a second one confirms it.
const CONFIRM_WAITING: Duration = Duration::from_millis(5);

#[cfg(test)]
mod tests {
    use super::*;

    /// A sighting is taken once seen again with the same key, long enough after the first;
    /// another key, or the state seen to end in between (`forget`), starts over.
    #[test]
    fn a_first_sighting_is_confirmed_by_a_second_with_nothing_in_between() {
        let sighting = FirstSighting::new();
        let long = Duration::from_secs(3600);
        assert_eq!(sighting.confirm(1, long), Confirmation::New);
        assert_eq!(sighting.confirm(1, long), Confirmation::Confirming);
        assert_eq!(sighting.confirm(1, Duration::ZERO), Confirmation::Confirmed);
        assert_eq!(sighting.confirm(2, Duration::ZERO), Confirmation::New);
        assert_eq!(sighting.confirm(2, Duration::ZERO), Confirmation::Confirmed);
        sighting.forget();
        assert_eq!(sighting.confirm(2, Duration::ZERO), Confirmation::New);
        // One recorded longer ago than `expire` is taken as new.
        assert_eq!(sighting.confirm_within(2, Duration::ZERO, long), Confirmation::Confirmed);
        assert_eq!(sighting.confirm_within(2, Duration::ZERO, Duration::ZERO), Confirmation::New);
    }
}
