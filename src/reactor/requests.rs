//! The reactor's protocol: every request a handle ([`Engine`](crate::Engine),
//! [`Session`](crate::Session)) can make, in this one `impl` block. A handle sends a closure
//! that calls one of these on the reactor thread ([`Client::call`](super::Client::call)) and
//! replies on a channel of its own; the internals they use live in the sibling modules
//! (terminal I/O, input, waiters, lifecycle).

use super::*;
use crate::input::keys::{
    KeyModes, ScriptItem, bytes_echo, bytes_signal, bytes_submit, encode_script, script_echo,
    script_signals, script_submits,
};
use crate::input::mouse::{
    MouseAction, MouseButton, MouseModes, MouseModifiers, encode_mouse, encode_mouse_hover,
};
use crate::input::signal::{SignalReport, SignalTarget};
use crate::term::transcript::TypedLine;
use crate::types::Status;
use rustix::termios::Termios;
use waiters::{CommandWaiter, screen_hash};

/// Input typed before a wait in the same request ([`Reactor::type_then_wait`]).
#[derive(Debug)]
pub(crate) enum Typing {
    /// A parsed key script, encoded for the modes in effect.
    Keys(Vec<ScriptItem>),
    /// Bytes as they are.
    Bytes(Vec<u8>),
}

impl Typing {
    /// Whether it is a key that signals the foreground group (Ctrl-C, Ctrl-\\ or Ctrl-Z
    /// alone, see [`script_signals`] and [`bytes_signal`]): typed to a shell at its prompt,
    /// it waits for the shell to read first.
    pub(crate) fn signals(&self) -> bool {
        match self {
            Typing::Keys(items) => script_signals(items),
            Typing::Bytes(bytes) => bytes_signal(bytes),
        }
    }

    /// The echo of the line it submits, when it is plain text (see [`script_echo`]).
    fn echo(&self) -> Option<String> {
        match self {
            Typing::Keys(items) => script_echo(items),
            Typing::Bytes(bytes) => bytes_echo(bytes),
        }
    }
}

/// Input typed by [`Reactor::send_noting_line`], which answers the line it was typed on.
#[cfg(feature = "testing")]
pub(crate) enum Noted {
    /// Keys or bytes, as a send types them.
    Typing(Typing),
    /// A secret and its Enter, as [`Reactor::send_secret`] types them.
    Secret(Vec<u8>),
}

/// Written by hand so a secret appears in no log or error: its bytes print as a count.
#[cfg(feature = "testing")]
impl std::fmt::Debug for Noted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Noted::Typing(typing) => f.debug_tuple("Typing").field(typing).finish(),
            Noted::Secret(secret) => write!(f, "Secret(<{} bytes redacted>)", secret.len()),
        }
    }
}

/// What a paste request ([`Reactor::paste`]) found by its one reading of the terminal's
/// modes, before the paste is queued.
#[derive(Debug, Clone)]
pub(crate) struct PasteVerdict {
    /// Whether the paste submits a line (one that ends with a line end, not bracketed).
    pub(crate) submits: bool,
    /// Whether it went out wrapped in bracketed-paste markers: a program's line editor then
    /// holds it, line ends and all, until an Enter.
    pub(crate) bracketed: bool,
    /// The line the cursor was on as the paste was written, taken in the request before its
    /// write (see [`typed_line_of`]), whether the paste submits a line or not: keys typed
    /// after it may (MCP `terminal_send`'s `paste` then `keys`).
    pub(crate) line: Option<TypedLine>,
}

/// Whether `bytes`, one input, submit a line to the program that reads them: the one rule for
/// the line the input-wait probe takes as submitted (`Slot::submitted`) and for the echo a
/// wait typed with its input skips. While the terminal reads whole lines (canonical mode),
/// its line discipline decides, whatever keys made the bytes: a line ends at the input's last
/// byte when it is a line feed, a carriage return it turns into one (`ICRNL`, without
/// `IGNCR`), or an end-of-line character (`VEOL`, or `VEOL2` with `IEXTEN`), unless a
/// literal-next (`VLNEXT`, with `IEXTEN`) before it makes it text: `<M-Enter>`, `ESC \r`,
/// ends the line `ESC` began, the kitty protocol's `CSI 13 u` ends none. (End-of-file,
/// `VEOF`, hands the line over unended: no line break, the cursor left on it, and no echo.)
/// Otherwise the program decides, and `keys` says whether it takes the input's last key for
/// Enter ([`script_submits`]: an Enter sent as Enter is, `CSI 13 u` under the kitty
/// protocol's flag 8 too, and the keypad's Enter, `ESC O M` in application keypad mode; not
/// `<M-Enter>`, which zsh's line editor takes for a new line in the command), or bytes end
/// in `\r` or `\n`. `terminal` is `None` once the terminal hung up, or when its modes could
/// not be read: the program's rule then.
fn submits_line(bytes: &[u8], keys: impl FnOnce() -> bool, terminal: Option<&Termios>) -> bool {
    use rustix::termios::{InputModes, LocalModes, SpecialCodeIndex};
    let Some(modes) = terminal.filter(|t| t.local_modes.contains(LocalModes::ICANON)) else {
        return keys();
    };
    let (input, extended) = (modes.input_modes, modes.local_modes.contains(LocalModes::IEXTEN));
    let code = |index: SpecialCodeIndex, on: bool| {
        Some(modes.special_codes[index]).filter(|&c| c != 0 && on)
    };
    let strip = |byte: u8| if input.contains(InputModes::ISTRIP) { byte & 0x7f } else { byte };
    // (A carriage return the discipline drops, `IGNCR`, leaves the line as the byte before
    // it did.)
    let ignored = |byte: &&u8| strip(**byte) == b'\r' && input.contains(InputModes::IGNCR);
    let mut kept = bytes.iter().rev().skip_while(ignored);
    let Some(&last) = kept.next() else { return false };
    let last = match strip(last) {
        b'\r' if input.contains(InputModes::ICRNL) => b'\n',
        b'\n' if input.contains(InputModes::INLCR) => b'\r',
        c => c,
    };
    let ends =
        [Some(b'\n'), code(SpecialCodeIndex::VEOL, true), code(SpecialCodeIndex::VEOL2, extended)];
    let lnext = code(SpecialCodeIndex::VLNEXT, extended);
    let literal = kept.take_while(|&&byte| Some(strip(byte)) == lnext).count() % 2 == 1;
    ends.contains(&Some(last)) && !literal
}

/// Whether `bytes`, typed into `slot`'s terminal now (in `own`, its modes), submit a line:
/// [`submits_line`] under the modes of the line discipline that reads them. That is the
/// terminal's own, or, while it takes keys (the raw mode a relay keeps it in), that of a
/// terminal a program of the session made and relays them to (`sudo` with `use_pty`,
/// `script`), where the program last seen waiting for input reads ([`relayed_modes`]): a
/// shell's `read` there ends its line on `ESC \r`, Alt-Enter. It is looked at only for an
/// input that could end a line there, Enter as the program takes it (`keys`) or `\r` or `\n`
/// last, so typing text costs no system call (an end-of-line character, `VEOL` or `VEOL2`, set
/// on a hosted terminal is not looked for). A terminal that cannot be read from here (the
/// remote end of `ssh`, another user's) leaves the program's rule.
fn submits_into(
    slot: &Slot,
    bytes: &[u8],
    keys: impl FnOnce() -> bool,
    own: Option<&Termios>,
) -> bool {
    use rustix::termios::LocalModes;
    if own.is_none_or(|own| own.local_modes.contains(LocalModes::ICANON)) {
        return submits_line(bytes, keys, own);
    }
    let program = keys();
    let could_end = program || matches!(bytes.last(), Some(b'\r' | b'\n'));
    let relayed = could_end.then(|| relayed_modes(slot)).flatten();
    submits_line(bytes, || program, relayed.as_ref().or(own))
}

/// The modes of the terminal a program of `slot`'s session made and relays what is typed to
/// (`sudo` with `use_pty`, `script`), when the program last seen waiting for input
/// (`Slot::seen_waiting`'s reader, whose modes a status reads) reads there, in the group that
/// is still the foreground group of the session's terminal; `None` when it reads the
/// session's terminal itself, or the hosted terminal cannot be opened.
fn relayed_modes(slot: &Slot) -> Option<Termios> {
    let master = slot.master.as_ref()?.as_fd();
    let seen = slot.seen_waiting.get()?;
    let reader = seen.reader?;
    if crate::os::pty::foreground_group(master) != Some(seen.group) {
        return None;
    }
    rustix::termios::tcgetattr(crate::os::pty::hosted_terminal(slot.slave_device?, reader)?).ok()
}

/// The line the cursor of `slot`'s terminal is on, where typed text is echoed, whether it
/// is echoed (not while the line discipline reads a password, canonical, echo off) and
/// whether the terminal echoes it itself (`ECHO`), under `terminal`, its modes as the
/// request read them (once, after the output waiting unread: read again, they cost a second
/// `TCGETS2` a submitting key).
pub(super) fn typed_line_of(
    slot: &Slot,
    echo: Option<String>,
    terminal: Option<&Termios>,
) -> Option<TypedLine> {
    let mut typed = slot.terminal.typed_line()?;
    typed.echo = echo;
    let modes = terminal.map(crate::os::pty::line_modes_in);
    typed.echoed = modes.is_none_or(|modes| modes.input_kind() != crate::InputKind::Password);
    typed.terminal_echoes = modes.is_some_and(|modes| modes.echo);
    Some(typed)
}

/// The modes keys typed into `slot` are encoded for: its terminal's, with xterm's
/// modifyOtherKeys at the level the terminal (`terminal`, its termios; none when they cannot
/// be read) lets through (see
/// [`modify_other_keys_under`](crate::os::pty::modify_other_keys_under)), and only while the
/// foreground group that set the level is still in front (`Slot::modify_other_keys_group`):
/// a level left by a program that died is not the shell's after it (bash's readline, like
/// emacs, reads with `ICANON` off and `ISIG` on). The foreground group is read only when a
/// level above 0 would be used.
fn key_modes_of(slot: &Slot, terminal: Option<&rustix::termios::Termios>) -> KeyModes {
    let mut modes = KeyModes::from(&slot.terminal.modes());
    modes.modify_other_keys = terminal.map_or(0, |terminal| {
        crate::os::pty::modify_other_keys_under(terminal, modes.modify_other_keys)
    });
    if modes.modify_other_keys > 0 {
        let in_front =
            slot.master.as_ref().and_then(|m| crate::os::pty::foreground_group(m.as_fd()));
        if in_front.is_none() || in_front != slot.modify_other_keys_group {
            modes.modify_other_keys = 0;
        }
    }
    modes
}

impl Reactor {
    // ----- sessions ----------------------------------------------------------

    /// Reserves a session id, refusing beyond `max_sessions`.
    pub(crate) fn reserve(&mut self) -> Result<SessionId> {
        if self.shutdown.is_some() {
            return Err(Error::EngineStopped);
        }
        if self.live() + self.reserved >= self.config.max_sessions {
            return Err(Error::TooManySessions { limit: self.config.max_sessions });
        }
        self.reserved += 1;
        let id = self.next_id;
        self.next_id += 1;
        Ok(SessionId(id))
    }

    /// Numbers the sessions from `first` on, as a server restarted on its socket does, so
    /// that an id an earlier engine gave out never names another session; only before the
    /// first session (later, it changes nothing).
    pub(crate) fn number_from(&mut self, first: u64) {
        if self.next_id == self.first_id && self.reserved == 0 && self.sessions.is_empty() {
            let first = first.clamp(1, super::MAX_FIRST_ID);
            self.first_id = first;
            self.next_id = first;
        }
    }

    /// Gives back the reservation of `id`, whose start failed, and the id with it: the next
    /// start gets it, so that a failed start uses up no id. An id with later ones reserved
    /// since (starts at the same time) cannot be given back yet: it is remembered as never
    /// started (asking for it says there is no such session, not that it ended), and given
    /// back with the last of them.
    pub(crate) fn release(&mut self, id: SessionId) {
        self.reserved -= 1;
        self.unstarted.insert(id.0);
        while self.next_id > self.first_id && self.unstarted.remove(&(self.next_id - 1)) {
            self.next_id -= 1;
        }
        if self.unstarted.len() > MAX_UNSTARTED {
            self.unstarted.pop_first();
        }
    }

    /// Takes a started program into the reactor.
    pub(crate) fn attach(
        &mut self,
        id: SessionId,
        spawned: Spawned,
        recorder: Option<crate::os::recording::Recorder>,
    ) -> Result<()> {
        self.reserved -= 1;
        let Spawned {
            pid,
            started_ticks,
            master,
            pidfd,
            supervisor,
            program,
            cols,
            rows,
            cgroup,
            confinement,
            mark_key,
        } = spawned;
        let containment = match &cgroup {
            Some(cgroup) => format!("cgroup {}", cgroup.path().display()),
            None => "POSIX session only (no writable cgroup v2 hierarchy, or cgroups disabled)"
                .to_owned(),
        };
        let registry = self.poll.registry();
        registry
            .register(&mut SourceFd(&master.as_raw_fd()), master_token(id.0), Interest::READABLE)
            .map_err(|e| Error::io("registering the terminal with the poll", e))?;
        if let Some(pidfd) = &pidfd {
            registry
                .register(&mut SourceFd(&pidfd.as_raw_fd()), child_token(id.0), Interest::READABLE)
                .map_err(|e| Error::io("registering the child with the poll", e))?;
        }
        let now = Instant::now();
        let config = &self.config;
        self.sessions.insert(
            id.0,
            Box::new(Slot {
                final_line_modes: None,
                raw: VecDeque::new(),
                recording: recorder.as_ref().and_then(|r| r.path()).map(ToOwned::to_owned),
                recording_failure: recorder.as_ref().and_then(|r| r.failure()),
                recorder,
                id,
                pid,
                started_ticks,
                program,
                slave_device: crate::os::pty::slave_device(master.as_fd()),
                master: Some(master),
                hung_up_master: None,
                pidfd,
                terminal: Terminal::new(cols, rows, config, mark_key),
                queue: VecDeque::new(),
                parked: VecDeque::new(),
                want_write: false,
                waiters: Vec::new(),
                commands: Vec::new(),
                screen_hash: 0,
                screen_changed: now,
                screen_tracked: true,
                seen_waiting: std::cell::Cell::new(None),
                outside_relay: std::cell::Cell::new(None),
                first_seen_waiting: input_wait::FirstSighting::new(),
                first_seen_asking: input_wait::FirstSighting::new(),
                first_seen_undecided: input_wait::FirstSighting::new(),
                busy_seen: None,
                timers: Default::default(),
                unread_input: std::cell::Cell::new(None),
                threads_at_input: std::cell::Cell::new(None),
                held_by_person: false,
                modify_other_keys_group: None,
                modify_other_keys_sets: 0,
                last_resize: now,
                mouse_held: None,
                child: None,
                supervisor,
                exit: None,
                exit_deferred: false,
                backlogged: false,
                closing: None,
                closed: false,
                closed_by_caller: false,
                ended_by_close: false,
                clipboard_next: None,
                closed_reason: None,
                failure: None,
                cgroup,
                containment,
                confinement,
                replies_dropped: 0,
                started_at: SystemTime::now(),
                started: now,
                ended_at: None,
                last_output: now,
                cadence: super::cadence::Cadence::default(),
                last_input: now,
                last_reply: None,
                input_ends_unfinished: false,
                homes_at_input: 0,
                frame_start: (0, 0, false),
                frame_group: None,
                full_screen_at_input: false,
                input_unechoed: false,
                input_ends_in_line_kill: false,
                last_typed_byte: None,
                typed_text: String::new(),
                escape_typed: None,
                input_drained: None,
                drained_by_reader: None,
                submitted: None,
                bytes_in: 0,
                bytes_out: 0,
                sync_timer: None,
                quiet_armed: false,
                next_look: None,
                look_deferred: None,
            }),
        );
        if self.config.idle_timeout.is_some() || self.config.max_lifetime.is_some() {
            self.reap_check(id.0);
        }
        // Output may already be waiting.
        self.read_output(id.0);
        // The supervisor may have reported its exit already.
        if let Some(status) = self.early_exits.remove(&pid)
            && let Some(slot) = self.sessions.get_mut(&id.0)
        {
            slot.child = Some(status);
            self.after_exit(id.0);
        }
        // Or be gone already (killed by this very program before the session was attached:
        // `supervisor_lost` did not see it).
        self.supervisor_lost();
        Ok(())
    }

    /// Every session, live ones and tombstones.
    pub(crate) fn list(&self) -> Vec<SessionInfo> {
        let mut ids: Vec<u64> = self.sessions.keys().copied().collect();
        ids.sort_unstable();
        ids.into_iter().filter_map(|id| self.info_of(id)).collect()
    }

    /// One session's information.
    pub(crate) fn info(&mut self, id: SessionId) -> Result<SessionInfo> {
        self.info_of(id.0).ok_or_else(|| self.missing(id))
    }

    // ----- input -------------------------------------------------------------

    /// Queues bytes for the program and writes what the terminal takes now; fails with
    /// `QueueFull` rather than wait.
    ///
    /// A signal character (interrupt, quit, suspend, while the terminal generates signals)
    /// never waits behind queued input: the input is dropped and the foreground process group
    /// gets the signal, as the line discipline would do. Whether the bytes submit a line, by
    /// the request's one reading of the modes (see [`submits_into`]).
    pub(crate) fn send(&mut self, id: SessionId, bytes: &[u8]) -> Result<bool> {
        let modes = self.modes_after_output(id, None);
        self.send_under(id, bytes, modes)
    }

    /// [`send`](Self::send) under `modes`, the terminal's, read once for the request; whether
    /// the bytes submit a line (see [`submits_into`]).
    fn send_under(&mut self, id: SessionId, bytes: &[u8], modes: Option<Termios>) -> Result<bool> {
        let submits = self
            .sessions
            .get(&id.0)
            .is_some_and(|slot| submits_into(slot, bytes, || bytes_submit(bytes), modes.as_ref()));
        self.queue_input(id, bytes, (true, submits), modes.as_ref())?;
        Ok(submits)
    }

    /// The modes of session `id`'s terminal for an input request, read once, after the
    /// output waiting unread: a turn of it (`read_unread`) and, when there was some, a turn
    /// more at once (more may be left past a turn); a look that found none is not asked
    /// again. `read`: the caller's own look just before, with nothing in between that waits
    /// (`None`: looked for here). Reading the output first gives the program the chance to
    /// have changed its modes (turned signals off, echo on) before they are read; a change
    /// it makes after is not seen (the one reading decides the whole request).
    pub(super) fn modes_after_output(
        &mut self,
        id: SessionId,
        read: Option<bool>,
    ) -> Option<Termios> {
        if read.unwrap_or_else(|| self.read_unread(id.0)) {
            self.read_unread(id.0);
        }
        self.terminal_modes(id)
    }

    /// The modes of session `id`'s terminal, read once for an input: `None` once it hung
    /// up, or when they cannot be read.
    pub(super) fn terminal_modes(&self, id: SessionId) -> Option<rustix::termios::Termios> {
        let master = self.sessions.get(&id.0)?.master.as_ref()?;
        rustix::termios::tcgetattr(master).ok()
    }

    /// Types a secret and Enter, only if the terminal is at a password prompt (canonical
    /// input, echo off) at this moment, a program reads it, and no earlier input waits to be
    /// written or read: checked just before the bytes are written, in the same turn. A
    /// program on a terminal a program of the session hosts (`sudo` with `use_pty`) may be the
    /// one asking, but only while the session's own terminal does not echo either (the secret
    /// passes through it). The secret is never recorded, logged or put in an error. Fails
    /// with [`Error::NoSecretReader`] when no thread of the foreground group is blocked
    /// reading the session's own terminal (where `/proc` tells), or when a terminal the
    /// session relays to reads a password but the readiness probe, which finds a hosted
    /// terminal's reader, sees none yet (`Slot::relays_to_password`): the caller
    /// ([`Reactor::send_secret`]) looks again until its time is out. Fails with
    /// [`Error::SecretThroughMultiplexer`] when a relay of the session's terminal hosts more
    /// than one terminal (`Slot::multiplexer`): it sends the keys to the one it shows. With
    /// `dry`, every check is made and nothing typed (`Ok(false)`).
    pub(super) fn send_secret_under(
        &mut self,
        id: SessionId,
        secret: &[u8],
        terminal: Option<Termios>,
        dry: bool,
    ) -> Result<bool> {
        let slot = self.accepting(id)?;
        // Behind earlier input the secret would be written later, when the terminal's modes
        // may have changed: it goes only into an empty queue, written in this same turn.
        if !slot.queue.is_empty() || !slot.parked.is_empty() {
            return Err(Error::InvalidInput(format!(
                "session {id} has {} bytes of earlier input its program has not read yet; the secret was not typed (send it once the program waits for the password)",
                slot.queue.len()
            )));
        }
        let password = |modes: Option<crate::types::LineModes>| {
            modes.is_some_and(|modes| modes.input_kind() == crate::InputKind::Password)
        };
        let own = terminal.as_ref().map(crate::os::pty::line_modes_in);
        let mut modes = own;
        let mut hosted = None;
        // A program on a terminal a program of the session made and relays to (`sudo` with
        // `use_pty`) may ask, while the relay keeps the session's terminal raw. The secret
        // is written to the session's terminal first: one that echoes would show it, whoever
        // reads it then.
        if !password(own) && own.is_some_and(|m| !m.echo) {
            let quiet = slot.last_output.max(slot.last_input).elapsed();
            let first = input_wait::Sighting::First;
            let (wait, group) = input_wait::input_wait_of(slot, first, quiet, Default::default());
            // A relay hosting several terminals (GNU screen's windows, tmux's panes) sends the
            // keys to the one it shows, which `/proc` cannot tell: whichever asks, the secret
            // could reach another, which may show it.
            if let Some(relay) = group.and_then(|group| slot.multiplexer(group)) {
                return Err(Error::SecretThroughMultiplexer {
                    session: id,
                    relay: format!("{} (pid {})", relay.name, relay.pid),
                    terminals: relay.terminals,
                });
            }
            match (wait, group) {
                (procfs::InputWait::Waiting { reader: Some(reader) }, _) => {
                    if let Some(terminal) = slot
                        .slave_device
                        .and_then(|own| crate::os::pty::hosted_terminal(own, reader))
                    {
                        modes = crate::os::pty::line_modes(terminal.as_fd());
                        hosted = Some(terminal);
                    }
                }
                (procfs::InputWait::Waiting { reader: None }, _) => {}
                // No reader seen yet (its program still works after drawing its prompt, or
                // its output has not settled for the probe): a password prompt on a terminal
                // the session relays to is held for as one on its own (the caller looks
                // again until its time is out).
                (other, Some(group)) if slot.relays_to_password(group) => {
                    let doing = other.reason().unwrap_or_default().to_owned();
                    return Err(Error::NoSecretReader {
                        session: id,
                        doing,
                        waited: Duration::ZERO,
                    });
                }
                _ => {}
            }
        }
        match modes {
            Some(modes) if password(Some(modes)) => {}
            other => {
                return Err(Error::NotAtPasswordPrompt {
                    session: id,
                    echo: other.is_none_or(|m| m.echo),
                    canonical: other.is_some_and(|m| m.canonical),
                });
            }
        }
        // Lines typed earlier that the program has not read yet (it is busy, or not reading
        // the terminal yet): the secret would be read after them, as the next line, perhaps by
        // another program (a shell, once a password prompt took an earlier line for the
        // password), which might show it or run it.
        let unread = slot.master.as_ref().and_then(|m| crate::os::pty::unread_input(m.as_fd()));
        let unread = unread.unwrap_or(0)
            + hosted.as_ref().and_then(|t| crate::os::pty::unread_input_of(t.as_fd())).unwrap_or(0);
        if unread > 0 {
            return Err(Error::InvalidInput(format!(
                "session {id}'s program has not read {unread} bytes of earlier input yet, and would read the secret after them, perhaps as something else than the password; the secret was not typed (send it once the program waits for the password with nothing typed before it)"
            )));
        }
        // A terminal that reads a line without echo, but that no program reads now (it
        // turned echo off, then went on working: `stty -echo; sleep 9`): the secret would
        // wait there for whatever reads the terminal next, a shell that shows it or runs it
        // and prints it in its error. Where `/proc` cannot tell (`Unknown`), the modes decide.
        // (A hosted terminal's reader was seen waiting above.)
        // Some thread of the foreground group blocked reading the terminal is enough: others
        // may run (a busy worker) and its wait may have a timer (a prompt redrawing a
        // countdown between its polls), which the readiness rule does not allow.
        if hosted.is_none()
            && let Some(doing) = input_wait::no_terminal_reader(slot)
        {
            return Err(Error::NoSecretReader { session: id, doing, waited: Duration::ZERO });
        }
        // Text typed earlier without Enter (an unfinished line, which the terminal holds
        // until its line ends and `unread_input` does not count) would be read with the
        // secret, as the start of the password. The line-kill character of the terminal that
        // reads the secret erases it first, silently with echo off; with no unfinished line,
        // it does nothing.
        let kill = match &hosted {
            Some(terminal) => crate::os::pty::kill_character(terminal.as_fd()),
            None => terminal.as_ref().and_then(crate::os::pty::kill_character_in),
        };
        // The secret must reach the program whole, as one line, through every terminal it
        // passes: none of its characters one the terminal acts on, its Enter ending the line.
        if let Some(own) = &terminal {
            super::open_line::check_secret(own, id, secret, hosted.is_none())?;
        }
        if let Some(hosted) = hosted.as_ref().and_then(|t| rustix::termios::tcgetattr(t).ok()) {
            super::open_line::check_secret(&hosted, id, secret, true)?;
        }
        drop(hosted);
        if dry {
            return Ok(false);
        }
        let before = slot.bytes_in;
        let mut line = Vec::with_capacity(secret.len() + 2);
        line.extend(kill);
        line.extend_from_slice(secret);
        line.push(b'\r');
        let submits = self
            .sessions
            .get(&id.0)
            .is_some_and(|slot| submits_into(slot, &line, || true, terminal.as_ref()));
        let sent = self.queue_input(id, &line, (false, submits), terminal.as_ref());
        line.fill(0);
        let sent = sent.map(|()| submits);
        // The secret's length shows nowhere: among the bytes typed into the session
        // (`SessionInfo::bytes_in`, which a model reads in `terminal_list`), it counts as its
        // Enter alone.
        if let Ok(slot) = self.slot(id) {
            slot.bytes_in = slot.bytes_in.min(before + 1);
        }
        sent
    }

    /// Queues input, recording it (when the session records input) if `record` (else it is a
    /// secret: no error gives its length); `modes` are the terminal's, read once for it (its
    /// signal, the open-line check, whether a recording leaves it out as typed at a password
    /// prompt) and for its first write, after the request read the output waiting unread (reading output
    /// may let the program change them: a program that prints more than the terminal holds,
    /// then turns signals off or echo on); `submits`: it submits a line (see [`submits_into`]).
    fn queue_input(
        &mut self,
        id: SessionId,
        bytes: &[u8],
        (record, submits): (bool, bool),
        modes: Option<&rustix::termios::Termios>,
    ) -> Result<()> {
        #[cfg(feature = "fault-injection")]
        if let Some(marker) = &self.config.inject_panic_on_input
            && memchr::memmem::find(bytes, marker.as_bytes()).is_some()
        {
            panic!("fault injection: the input contained {marker:?}");
        }
        let capacity = self.config.write_queue_bytes;
        let signal = match (bytes, modes) {
            ([byte], Some(modes)) => super::terminal_io::signal_for(modes, *byte),
            _ => None,
        };
        let slot = self.accepting(id)?;
        let waiting = !slot.queue.is_empty() || !slot.parked.is_empty();
        if let Some(signal) = signal
            && waiting
        {
            return self.interrupt(id, signal);
        }
        if !record && slot.queue.len() + bytes.len() > capacity {
            // (A secret goes only into an empty queue: it is longer than the queue takes.)
            return Err(Error::InvalidInput(format!(
                "session {id}'s input queue (`Config::write_queue_bytes`) is shorter than the secret with its line kill and Enter; nothing was typed"
            )));
        }
        if slot.queue.len() + bytes.len() > capacity || !slot.parked.is_empty() {
            // A paste waiting for room is waiting input too: nothing goes in before it.
            let parked: usize = slot.parked.iter().map(|piece| piece.bytes.len()).sum();
            return Err(Error::QueueFull {
                session: id,
                queued: slot.queue.len() + parked,
                attempted: bytes.len(),
                capacity,
            });
        }
        super::open_line::check(modes, id, bytes, !record)?;
        slot.queue.extend(bytes);
        // (Under the request's modes: read again, they cost a second `TCGETS2` a key while
        // the session records input.)
        let own = modes.map(crate::os::pty::line_modes_in);
        let at_password_prompt = record
            && slot.recorder.as_ref().is_some_and(|r| r.records_input())
            && slot.master.as_ref().is_some_and(|m| slot.at_password_prompt(m.as_fd(), own));
        if record
            && let Some(recorder) = &mut slot.recorder
            && recorder.records_input()
        {
            // What is typed at a password prompt (a password typed as text or keys, or by a
            // person through `attach`) is left out, as the terminal's modes are now: the
            // program does not show it either.
            if at_password_prompt {
                recorder.input_withheld();
            } else {
                recorder.input(bytes);
            }
        }
        slot.note_input(Some(bytes), modes);
        if submits {
            let before = slot.submitted.map(|(_, line, _)| line);
            slot.submitted = Some((slot.last_input, slot.terminal.cursor_position().0, before));
        }
        // The request's modes serve the first write: no output was read since they were read.
        self.flush_under(id.0, modes);
        // The terminal's input buffer may be full (the program stopped reading): a signal
        // character that could not be written is not left waiting.
        if let Some(signal) = signal
            && !self.slot(id)?.queue.is_empty()
        {
            return self.interrupt(id, signal);
        }
        Ok(())
    }

    /// Drops the session's queued input and signals its foreground process group.
    fn interrupt(&mut self, id: SessionId, signal: rustix::process::Signal) -> Result<()> {
        self.drop_queued_input(id.0);
        let slot = self.slot(id)?;
        slot.note_input(None, None);
        let group = slot.master.as_ref().and_then(|m| crate::os::pty::foreground_group(m.as_fd()));
        if let Some(group) = group.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(group, signal);
        }
        Ok(())
    }

    /// Encodes a parsed key script with the current key modes and queues it: xterm's
    /// modifyOtherKeys forms at the level the terminal's modes let through (see
    /// [`modify_other_keys_under`](crate::os::pty::modify_other_keys_under)). Whether the keys submit a
    /// line, by the request's one reading of the modes (see [`submits_into`]).
    pub(crate) fn send_keys(&mut self, id: SessionId, items: &[ScriptItem]) -> Result<bool> {
        let terminal = self.modes_after_output(id, None);
        self.send_keys_under(id, items, terminal)
    }

    /// [`send_keys`](Self::send_keys) under `terminal`, the terminal's modes, read once for
    /// the request; whether the keys submit a line (see [`submits_into`]).
    fn send_keys_under(
        &mut self,
        id: SessionId,
        items: &[ScriptItem],
        terminal: Option<Termios>,
    ) -> Result<bool> {
        let slot = self.slot(id)?;
        let modes = key_modes_of(slot, terminal.as_ref());
        let bytes = encode_script(items, &modes);
        let submits =
            submits_into(slot, &bytes, || script_submits(items, &modes), terminal.as_ref());
        self.queue_input(id, &bytes, (true, submits), terminal.as_ref())?;
        Ok(submits)
    }

    /// Types `typing` into session `id` now, as a send does, and answers whether it submits a
    /// line and the line the cursor is on as it is written (see [`typed_line_of`]), both from
    /// the request's one reading of the modes, taken after the output waiting unread (a turn
    /// or two of it, [`Reactor::modes_after_output`]): for a caller that types in several
    /// requests and keeps the line its first one was typed on for its waits (MCP
    /// `terminal_send`), with no request of its own before the typing. Output still unread
    /// then puts the echo further on: a wait looks for it at or after that line
    /// ([`TypedLine::anchor`]).
    pub(crate) fn send_taking_line(
        &mut self,
        id: SessionId,
        typing: Typing,
    ) -> Result<(bool, Option<TypedLine>)> {
        let modes = self.modes_after_output(id, None);
        self.type_taking_line(id, typing, modes)
    }

    /// Types `typing` under `modes`, the request's one reading of them, answering whether it
    /// submits a line and the line it was typed on, taken once it is written: nothing was
    /// fed since the modes were read.
    fn type_taking_line(
        &mut self,
        id: SessionId,
        typing: Typing,
        modes: Option<Termios>,
    ) -> Result<(bool, Option<TypedLine>)> {
        let echo = typing.echo();
        let submits = match typing {
            Typing::Keys(items) => self.send_keys_under(id, &items, modes.clone())?,
            Typing::Bytes(bytes) => self.send_under(id, &bytes, modes.clone())?,
        };
        Ok((submits, typed_line_of(self.slot(id)?, echo, modes.as_ref())))
    }

    /// Types `input` into session `id` now, as a send does, and answers the line it was
    /// typed on when it submits one (see [`typed_line_of`]), all from the request's one
    /// reading of the modes (whether it submits, its encoding, whether its echo shows); first
    /// moves `skip`'s reader past everything printed before it, the output waiting unread
    /// included (the testing kit's waits look at what answers the input). For a caller that
    /// keeps that line for its waits and types in one request what a question before it
    /// would have judged under modes read apart.
    #[cfg(feature = "testing")]
    pub(crate) fn send_noting_line(
        &mut self,
        id: SessionId,
        typing: Typing,
        skip: u64,
    ) -> Result<Option<TypedLine>> {
        let modes = self.modes_after_output(id, None);
        self.skip_output(id, skip)?;
        let (submits, line) = self.type_taking_line(id, typing, modes)?;
        Ok(line.filter(|_| submits))
    }

    /// Pastes text (bracketed when the program asked for it): the encoded paste is parked in
    /// pieces of at most half the input queue's bound and admitted into the queue as the
    /// program reads; `reply` is answered when the last piece is queued, or with
    /// [`Error::PasteIncomplete`] when `timeout` (default: `default_wait_timeout`) passes first,
    /// when [`cancel_wait`](Self::cancel_wait) is called with `paste`, or when an interrupt
    /// drops it. The caller waits, the reactor does not. Answers, by the request's one
    /// reading of the modes, whether the paste submits a line (see [`submits_into`]: one that
    /// ends with a line end, not bracketed) and whether it went out bracketed; `None` when it
    /// is refused or types nothing (an empty paste), which a caller's verdict so far outlives.
    /// With `skip`, first moves that reader past everything printed before the paste, after
    /// the request's turn of output (the testing kit's waits).
    pub(crate) fn paste(
        &mut self,
        id: SessionId,
        paste: u64,
        (text, skip): (&str, Option<u64>),
        timeout: Option<Duration>,
        reply: Reply<Result<()>>,
    ) -> Option<PasteVerdict> {
        #[cfg(feature = "fault-injection")]
        if let Some(marker) = &self.config.inject_panic_on_input
            && text.contains(marker.as_str())
        {
            panic!("fault injection: the paste contained {marker:?}");
        }
        let modes = self.modes_after_output(id, None);
        if let Some(reader) = skip
            && let Err(err) = self.skip_output(id, reader)
        {
            let _ = reply.send(Err(err));
            return None;
        }
        let piece = (self.config.write_queue_bytes / 2).clamp(1, 64 << 10);
        let capacity = self.config.paste_bytes;
        let deadline = after(Instant::now(), timeout.unwrap_or(self.config.default_wait_timeout));
        let slot = match self.accepting(id) {
            Ok(slot) => slot,
            Err(err) => {
                let _ = reply.send(Err(err));
                return None;
            }
        };
        let bracketed = slot.terminal.modes().bracketed_paste;
        let bytes = crate::input::paste::encode_paste(text, bracketed);
        if bytes.is_empty() {
            let _ = reply.send(Ok(()));
            return None;
        }
        let total = bytes.len();
        let parked: usize = slot.parked.iter().map(|piece| piece.bytes.len()).sum();
        if parked + total > capacity {
            let _ = reply.send(Err(Error::PasteTooLarge {
                session: id,
                waiting: parked,
                attempted: total,
                capacity,
            }));
            return None;
        }
        if let Err(err) = super::open_line::check(modes.as_ref(), id, &bytes, false) {
            let _ = reply.send(Err(err));
            return None;
        }
        let submits = submits_into(slot, &bytes, || bytes_submit(&bytes), modes.as_ref());
        // Taken before the write: nothing was fed since the modes were read.
        let line = typed_line_of(slot, None, modes.as_ref());
        let mut pieces = bytes.chunks(piece).peekable();
        let mut reply = Some(reply);
        while let Some(chunk) = pieces.next() {
            let last = pieces.peek().is_none();
            slot.parked.push_back(Parked {
                bytes: chunk.to_vec(),
                paste,
                total,
                deadline,
                reply: if last { reply.take() } else { None },
            });
        }
        slot.note_input(Some(&bytes), modes.as_ref());
        self.schedule(deadline, Timer::Paste { session: id.0, paste });
        // The request's modes serve the pieces admitted now and the first write (no output
        // was read since they were read), as a send's do.
        self.flush_under(id.0, modes.as_ref());
        Some(PasteVerdict { submits, bracketed, line })
    }

    /// Fails as input to session `id` would (it ended, or was closed), else does nothing.
    pub(crate) fn takes_input(&mut self, id: SessionId) -> Result<()> {
        self.accepting(id).map(|_| ())
    }

    /// Sends one mouse event at a cell, in the tracking mode and encoding the program chose
    /// (`button` `None`: motion with no button held). A session that ended takes none, as it
    /// takes no keys: that, not its modes, is the error.
    pub(crate) fn send_mouse(
        &mut self,
        id: SessionId,
        button: Option<MouseButton>,
        action: MouseAction,
        row: u16,
        col: u16,
    ) -> Result<()> {
        self.accepting(id)?;
        let modes = MouseModes::from(&self.slot(id)?.terminal.modes());
        let (cols, rows) = self.slot(id)?.terminal.size();
        if row >= rows || col >= cols {
            return Err(Error::InvalidInput(format!(
                "mouse position row {row} col {col} is outside the {cols}x{rows} screen (rows and columns count from 0)"
            )));
        }
        // Motion while a button is held is a drag with that button, as a terminal tracks it.
        let held = self.slot(id)?.mouse_held;
        let encoded = match (button.or(held), action) {
            (None, _) => encode_mouse_hover(row, col, MouseModifiers::NONE, &modes),
            (Some(button), action) => {
                encode_mouse(button, action, row, col, MouseModifiers::NONE, &modes)
            }
        };
        let bytes = encoded.map_err(Error::Mouse)?;
        if let Some(button) = button
            && !matches!(button, MouseButton::WheelUp | MouseButton::WheelDown)
        {
            match action {
                MouseAction::Press => self.slot(id)?.mouse_held = Some(button),
                MouseAction::Release => self.slot(id)?.mouse_held = None,
                MouseAction::Motion => {}
            }
        }
        match bytes {
            Some(bytes) => self.send(id, &bytes).map(drop),
            None => Ok(()),
        }
    }

    /// Sends a signal to the foreground process group or to the whole session.
    pub(crate) fn signal(
        &mut self,
        id: SessionId,
        signal: crate::input::signal::Signal,
        target: SignalTarget,
    ) -> Result<SignalReport> {
        self.read_unread(id.0);
        let slot = self.slot(id)?;
        if let Some(ended) = slot.ended() {
            return Err(ended);
        }
        if slot.closed || slot.closing.is_some() {
            return Err(Error::SessionClosed(id));
        }
        let groups = match target {
            SignalTarget::Foreground => {
                let group = slot
                    .master
                    .as_ref()
                    .and_then(|m| crate::os::pty::foreground_group(m.as_fd()))
                    .unwrap_or(slot.pid);
                if signal == crate::input::signal::Signal::Kill && group == slot.pid {
                    return Err(Error::InvalidInput(format!(
                        "refusing to send SIGKILL to the foreground process group {group}: it is the session's own program ({}); close the session instead, or signal the whole session (`target=\"session\"` in MCP, `--target session` on the command line, `SignalTarget::Session` in the library)",
                        procfs::program_name(group).unwrap_or_else(|| slot.program.clone())
                    )));
                }
                vec![group]
            }
            SignalTarget::Session => {
                let mut groups = procfs::process_groups(&procfs::live_session_processes(slot.pid));
                if groups.is_empty() {
                    groups.push(slot.pid);
                }
                groups
            }
        };
        let names = groups
            .iter()
            .map(|g| procfs::group_name(*g).unwrap_or_else(|| "?".to_owned()))
            .collect();
        for group in &groups {
            if let Some(pid) = Pid::from_raw(*group) {
                rustix::process::kill_process_group(pid, signal.to_rustix()).map_err(|e| {
                    Error::io(format!("sending {signal} to process group {group}"), e.into())
                })?;
            }
        }
        // A signal stirs the program as input does: what it showed before (a prompt, a wait
        // for input) no longer tells what it does, until it has answered.
        if let Some(slot) = self.sessions.get_mut(&id.0) {
            slot.note_input(None, None);
        }
        Ok(SignalReport { signal, groups, names })
    }

    // ----- views -------------------------------------------------------------

    /// The transcript `reader` has not read.
    pub(crate) fn read(
        &mut self,
        id: SessionId,
        reader: u64,
        max_bytes: Option<usize>,
    ) -> Result<Output> {
        let limit = self.config.max_read_bytes;
        let slot = self.slot(id)?;
        let max = max_bytes.unwrap_or(limit).clamp(4, limit);
        let mut output = slot.terminal.read(reader, max);
        output.status = self.status_of(id.0);
        Ok(output)
    }

    /// The retained transcript, up to `max_bytes` of its end.
    pub(crate) fn scrollback(&mut self, id: SessionId, max_bytes: usize) -> Result<Scrollback> {
        let slot = self.slot(id)?;
        let (text, truncated) = slot.terminal.retained(max_bytes);
        Ok(Scrollback { text, truncated })
    }

    /// The newest raw output.
    pub(crate) fn raw_output(&mut self, id: SessionId) -> Result<crate::types::RawOutput> {
        let slot = self.slot(id)?;
        Ok(crate::types::RawOutput {
            bytes: slot.raw.iter().copied().collect(),
            total: slot.bytes_out,
        })
    }

    /// The session's recording so far, when it is recorded in memory: its events shared, for
    /// the caller to join off the reactor.
    pub(crate) fn recording(
        &mut self,
        id: SessionId,
    ) -> Result<Option<crate::os::recording::Snapshot>> {
        Ok(self.slot(id)?.recorder.as_ref().and_then(|r| r.snapshot()))
    }

    /// The retained transcript's lines numbered `range`, at most `max_bytes` of them.
    pub(crate) fn transcript_lines(
        &mut self,
        id: SessionId,
        range: std::ops::Range<u64>,
        max_bytes: usize,
    ) -> Result<crate::TranscriptLines> {
        let slot = self.slot(id)?;
        if range.start > range.end {
            return Err(Error::InvalidInput(format!(
                "the line range {}..{} ends before it starts: give FIRST..END with FIRST <= END",
                range.start, range.end
            )));
        }
        Ok(slot.terminal.lines(range, max_bytes))
    }

    /// The screen.
    pub(crate) fn screen(&mut self, id: SessionId) -> Result<Screen> {
        Ok(self.slot(id)?.terminal.screen())
    }

    /// The screen with colours and attributes.
    pub(crate) fn styled_screen(
        &mut self,
        id: SessionId,
    ) -> Result<crate::term::screen::style::StyledScreen> {
        Ok(self.slot(id)?.terminal.styled_screen())
    }

    /// Reads the session's clipboard.
    pub(crate) fn clipboard(&mut self, id: SessionId) -> Result<String> {
        Ok(self.slot(id)?.terminal.clipboard())
    }

    /// Replaces the session's clipboard with `text` (refused past its bound).
    pub(crate) fn set_clipboard(&mut self, id: SessionId, text: String) -> Result<()> {
        self.slot(id)?.terminal.set_clipboard(text)
    }

    /// Resizes the grid and the kernel's terminal.
    pub(crate) fn resize(&mut self, id: SessionId, cols: u16, rows: u16) -> Result<()> {
        crate::config::check_size(cols, rows)?;
        let slot = self.slot(id)?;
        if let Some(ended) = slot.ended() {
            return Err(ended);
        }
        if slot.closed {
            return Err(Error::SessionClosed(id));
        }
        // Before the kernel's size changes, which signals the program: a line editor's
        // input is not canonical.
        let line_editor = slot.line_modes().is_some_and(|modes| !modes.canonical);
        slot.terminal.resize(cols, rows, line_editor);
        slot.last_resize = Instant::now();
        if let Some(recorder) = &mut slot.recorder {
            recorder.resize(cols, rows);
        }
        if let Some(master) = &slot.master {
            crate::os::pty::set_size(master.as_fd(), cols, rows)
                .map_err(|e| Error::io("setting the terminal size", e))?;
        }
        // Waits on a row or a cursor position now off the screen could never hold.
        let mut impossible = Vec::new();
        slot.waiters.retain_mut(|waiter| match waiter.until.still_possible(cols, rows) {
            Ok(()) => true,
            Err(err) => {
                impossible.push((
                    waiter.reply.take(),
                    waiter.id,
                    waiter.deadline,
                    waiter.recheck,
                    err,
                ));
                false
            }
        });
        for (reply, waiter, deadline, recheck, err) in impossible {
            self.unschedule(deadline, Timer::Wait { session: id.0, waiter });
            if let Some(at) = recheck {
                self.unschedule(at, Timer::Recheck { session: id.0, waiter });
            }
            reply.send(Err(match err {
                Error::InvalidInput(why) => Error::InvalidInput(format!("after a resize, {why}")),
                err => err,
            }));
        }
        // The grid changed size (and reflowed) whether or not the program redraws.
        self.track_screen(id.0);
        self.check_waiters(id.0);
        Ok(())
    }

    // ----- waits -------------------------------------------------------------

    /// Registers a waiter; it is answered when its condition holds, the session ends or the
    /// timeout passes. Transcript conditions search what `reader` has not read.
    pub(crate) fn wait(
        &mut self,
        id: SessionId,
        reader: u64,
        until: Until,
        timeout: Duration,
        waiter: u64,
        reply: Reply<Result<WaitOutcome>>,
    ) {
        self.wait_past(id, reader, (until, timeout), None, waiter, reply);
    }

    /// [`wait`](Self::wait), its transcript conditions not searching what is added to
    /// `typed_line` while it begins as it did (the line a submitted input was typed on: its
    /// echo, `echo done`, is no answer to it).
    pub(crate) fn wait_past(
        &mut self,
        id: SessionId,
        reader: u64,
        (until, timeout): (Until, Duration),
        typed_line: Option<TypedLine>,
        waiter: u64,
        reply: Reply<Result<WaitOutcome>>,
    ) {
        self.add_waiter(id, reader, (until, timeout), typed_line, waiter, reply, None);
    }

    /// [`Reactor::wait_past`], with the typing the wait holds back, if it holds any (see
    /// [`Reactor::hold_typing`]).
    #[allow(clippy::too_many_arguments)]
    fn add_waiter(
        &mut self,
        id: SessionId,
        reader: u64,
        (until, timeout): (Until, Duration),
        typed_line: Option<TypedLine>,
        waiter: u64,
        reply: Reply<Result<WaitOutcome>>,
        then: Option<Box<Held>>,
    ) {
        if let Err(err) = self.refuse_wait(id, reader, &until) {
            reply.send(Err(err));
            return;
        }
        let now = Instant::now();
        let slot = self.sessions.get_mut(&id.0).expect("checked above");
        if until.tracks_screen() && !slot.waiters.iter().any(|w| w.until.tracks_screen()) {
            // Not tracked while nobody needed it: the screen can only have changed with output.
            slot.screen_hash = screen_hash(&slot.terminal);
            slot.screen_changed = slot.last_output.max(slot.last_resize);
            slot.screen_tracked = true;
        }
        let mut read = slot.terminal.read_mark(reader);
        let asked_from = (slot.held_by_person && typed_line.is_none()).then_some(now);
        if let Some(typed) = typed_line {
            read.past_typed(typed);
        }
        slot.waiters.push(Waiter {
            id: waiter,
            reader,
            until,
            searched: read.first_line(),
            echo_trail: None,
            read,
            started: now,
            asked_from,
            deadline: after(now, timeout),
            recheck: None,
            reply,
            then,
        });
        self.schedule(after(now, timeout), Timer::Wait { session: id.0, waiter });
        self.check_waiters(id.0);
    }

    /// Types `typing`, then waits as [`wait`](Self::wait) does, in one request: no output is
    /// processed between the two, so the answer to the input cannot be missed, and a wait
    /// that would be refused is refused before anything is typed. `hold`: the typing is a key
    /// that signals (Ctrl-C typed alone); to a shell at its prompt it is typed once the shell
    /// is seen reading the terminal, at most `hold` later (bash, signalled between drawing
    /// its prompt and reading, draws no new prompt until the next key). Meanwhile the wait
    /// is one for input (it counts as a pending wait, and cancelling it types nothing); the
    /// caller waits, the reactor does not.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn type_then_wait(
        &mut self,
        id: SessionId,
        typing: Typing,
        reader: u64,
        (until, timeout): (Until, Duration),
        hold: Option<Duration>,
        waiter: u64,
        reply: Reply<Result<WaitOutcome>>,
    ) {
        // (A prompt drawn but not read yet is the prompt the key would be typed at. Keys
        // not held back take this look's answer in `type_now_then_wait`, which looks itself
        // only when none was taken here.)
        let read = hold.map(|_| self.read_unread(id.0));
        if let Some(hold) = hold
            && let Ok(slot) = self.slot(id)
            && slot.exit.is_none()
            && !slot.closed
            && slot.terminal.shell().at_prompt
            && slot.terminal.shell().prompt_at.is_some_and(|at| at >= slot.last_input)
        {
            if let Err(err) = self.refuse_wait(id, reader, &until) {
                reply.send(Err(err));
                return;
            }
            let held = Held { typing, reader, until, timeout, reply };
            self.hold_typing(id, waiter, hold, held);
            return;
        }
        self.type_now_then_wait(id, typing, reader, (until, timeout), (waiter, read), reply);
    }

    /// Holds `held` back until the shell of session `id`, at its prompt, reads the terminal
    /// (at most `hold`): a wait for input, with the id of the wait that follows, whose end
    /// types it ([`Reactor::release_typing`]).
    fn hold_typing(&mut self, id: SessionId, waiter: u64, hold: Duration, held: Held) {
        let reader = held.reader;
        let then = Some(Box::new(held));
        self.add_waiter(id, reader, (Until::input_wait(), hold), None, waiter, Reply::Gone, then);
    }

    /// What ends a wait that held typing back (see [`Reactor::hold_typing`]): cancelled, the
    /// typing is dropped and its caller told so; otherwise (the shell reads, the wait timed
    /// out, the session ended) it is typed now and its wait starts.
    pub(super) fn release_typing(&mut self, id: u64, waiter: u64, held: Held, fired: &Fired) {
        if matches!(fired, Fired::Cancelled) {
            held.reply.send(Ok(WaitOutcome {
                fired: Fired::Cancelled,
                elapsed: Duration::ZERO,
                screen: None,
                status: self.status_of(id),
                exit_holds: held.until.includes_exit(),
                typed_line: None,
            }));
            return;
        }
        // Typed outside the guard of the request that held it back: a panic typing it is
        // that request's, answered to its caller as it would have been then.
        let Held { typing, reader, until, timeout, reply } = held;
        let (until, waiter) = ((until, timeout), (waiter, None));
        self.guarded_request(SessionId(id), reply, |reactor, reply| {
            reactor.type_now_then_wait(SessionId(id), typing, reader, until, waiter, reply);
        });
    }

    /// Types `typing`, then waits (see [`Reactor::type_then_wait`]): the output the program
    /// wrote before is read first, then the terminal's modes for the request
    /// ([`Reactor::modes_after_output`]: one `FIONREAD` per keystroke when none waits, not two
    /// in a row with nothing in between that waits).
    /// `read`: whether the caller found output to read just before, with nothing in between
    /// that waits (`read_unread`'s answer), when it looked (`None`: it is looked for here).
    fn type_now_then_wait(
        &mut self,
        id: SessionId,
        typing: Typing,
        reader: u64,
        (until, timeout): (Until, Duration),
        (waiter, read): (u64, Option<bool>),
        reply: Reply<Result<WaitOutcome>>,
    ) {
        // (Output written before the input is taken in first: the line it is typed on is
        // where the program's cursor is now.)
        // The output waiting unread is read before the modes are: reading it may let the
        // program change them (turn signals off, echo on), and the one reading serves the
        // whole request (whether it submits a line, its encoding, its signal character, its
        // first write, whether the typed line's echo shows). Input that submits a line: its
        // echo is not what the wait looks for.
        let modes = self.modes_after_output(id, read);
        let echo = typing.echo();
        let typed = self.refuse_wait(id, reader, &until).and_then(|()| match typing {
            Typing::Keys(items) => self.send_keys_under(id, &items, modes.clone()),
            Typing::Bytes(bytes) => self.send_under(id, &bytes, modes.clone()),
        });
        let submits = match typed {
            Ok(submits) => submits,
            Err(err) => {
                reply.send(Err(err));
                return;
            }
        };
        // The line the input was typed on, taken once it is written: the send took in the
        // output still unread before it wrote (one turn of it), and nothing is fed since.
        let typed_line = match self.slot(id) {
            Ok(slot) if submits => typed_line_of(slot, echo, modes.as_ref()),
            _ => None,
        };
        self.wait_past(id, reader, (until, timeout), typed_line, waiter, reply);
    }

    /// Why a wait on session `id` could never end otherwise than by its timeout, if it could
    /// not: an unknown session, a condition that cannot match on its screen, a prompt that is
    /// never marked; or why it may not be added: `Config::max_waits` are pending, or
    /// `Config::max_waits_per_reader` of `reader`'s.
    fn refuse_wait(&mut self, id: SessionId, reader: u64, until: &Until) -> Result<()> {
        let (limit, own_limit) = (self.config.max_waits, self.config.max_waits_per_reader);
        let slot = self.slot(id)?;
        if slot.waiters.len() >= limit {
            return Err(Error::TooManyWaits { session: id, limit });
        }
        // The default reader (0) is the host that owns the engine, held by `max_waits` alone:
        // the share keeps the callers a host lets in (server clients, MCP connections,
        // toolboxes, readers it made) from taking every wait from one another.
        if reader != 0 && slot.waiters.iter().filter(|w| w.reader == reader).count() >= own_limit {
            return Err(Error::TooManyReaderWaits { session: id, limit: own_limit });
        }
        let (cols, rows) = slot.terminal.size();
        until.validate(cols, rows)?;
        let integration =
            slot.terminal.started_with_integration() || slot.terminal.shell().integrated;
        if until.is_prompt_only() && !integration {
            return Err(Error::NoShellIntegration(id));
        }
        Ok(())
    }

    /// Notes whether a person holds session `id`'s keyboard (see `Slot::held_by_person`).
    pub(crate) fn set_held_by_person(&mut self, id: SessionId, held: bool) -> Result<()> {
        self.slot(id)?.held_by_person = held;
        Ok(())
    }

    /// Moves `reader` past everything session `id` printed so far.
    pub(crate) fn skip_output(&mut self, id: SessionId, reader: u64) -> Result<()> {
        self.slot(id)?.terminal.skip_to_end(reader);
        Ok(())
    }

    /// Who reads the terminal of session `id` when its shell has begun a prompt without
    /// drawing its mark (see `ShellTracker::prompt_unmarked`), with its output read first;
    /// `None` at any other time.
    pub(crate) fn unmarked_reader(&mut self, id: SessionId) -> Result<Option<UnmarkedReader>> {
        self.read_unread(id.0);
        let slot = self.slot(id)?;
        Ok(slot.terminal.shell().prompt_unmarked.then(|| super::waiters::unmarked_reader(slot)))
    }

    /// Ends a wait early: the caller gets `Fired::Cancelled`.
    pub(crate) fn cancel_wait(&mut self, id: SessionId, waiter: u64) {
        self.end_wait(id.0, waiter, Fired::Cancelled);
        // Pastes share the id space of waits.
        self.abort_paste(id.0, waiter, "was cancelled");
    }

    /// Types `line` into a shell with integration and answers `reply` when its prompt comes
    /// back, with the command's output and exit code; `reader`'s cursor then moves past it.
    pub(crate) fn run_command(
        &mut self,
        id: SessionId,
        reader: u64,
        line: &str,
        timeout: Duration,
        reply: Reply<Result<CommandResult>>,
    ) {
        // (A prompt drawn but not read yet is the prompt the line is typed at.) The output
        // waiting unread is read here, then the terminal's modes, before the checks, for the
        // whole request, as a send-and-wait reads them (`modes_after_output`); the line is
        // sent under those modes (`send_under`), not through `send`, which would ask again.
        let modes = self.modes_after_output(id, None);
        let checked = self.accepting(id).and_then(|slot| {
            crate::Session::check_command_line(line)?;
            // A shell started with integration that has not drawn its first prompt yet is
            // one not at its prompt yet.
            if !slot.terminal.shell().integrated {
                return Err(match slot.terminal.started_with_integration() {
                    true => Error::NotAtPrompt { session: id, command_running: false },
                    false => Error::NoShellIntegration(id),
                });
            }
            // A command typed in this same turn has not moved the shell from its prompt yet.
            let shell = slot.terminal.shell();
            if shell.running || !slot.commands.is_empty() {
                return Err(Error::NotAtPrompt { session: id, command_running: true });
            }
            // The prompt must be newer than the last input or signal: a shell still handling
            // a SIGINT (about to redraw) would take the line's first key for the old one; keys
            // typed since may have left text on its line. Unless the shell read them, answered
            // and waits with its line empty (`<C-u>`).
            let typed_since = shell.prompt_at.is_none_or(|at| at < slot.last_input);
            if !shell.at_prompt || typed_since && !slot.typed_line_cleared() {
                return Err(Error::NotAtPrompt { session: id, command_running: false });
            }
            // Nothing was typed since the prompt, yet its line may hold text or have some on
            // its way: the terminal's answers to queries in the last command's output (binary
            // data), which the shell reads as typed keys. Its line is cleared first. (Answers
            // made since the last input count whether or not the shell has read or echoed
            // them yet: read but not echoed, they are on neither the screen nor the terminal.)
            let moved = shell.input_cell != Some(slot.terminal.cursor_cell());
            let master = slot.master.as_ref().map(|m| m.as_fd());
            let pending = master.and_then(crate::os::pty::unread_input).is_some_and(|n| n > 0);
            let answered = slot.last_reply.is_some_and(|at| at >= slot.last_input);
            let stray = moved || pending || answered || typed_since;
            // What the reader had not read above the prompt, which the command's result
            // moves it past: said, with how the command before ended.
            let unread = slot.terminal.unread_before_prompt(reader);
            Ok((shell.prompts, shell.prompt_starts, shell.commands, stray, unread))
        });
        let (prompts, prompt_starts, commands, stray, unread_before) = match checked {
            Ok(counts) => counts,
            Err(err) => {
                reply.send(Err(err));
                return;
            }
        };
        // (Ctrl-U: the line editors' of bash and zsh, in emacs and vi insert mode alike.)
        let mut bytes = if stray { vec![0x15] } else { Vec::new() };
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\r');
        // (Taken before the line is written: the command's time is all of it, a reactor
        // descheduled after the write counted 599.6 ms for a prompt that slept 0.6 s.)
        let now = Instant::now();
        if let Err(err) = self.send_under(id, &bytes, modes) {
            reply.send(Err(err));
            return;
        }
        let waiter = self.next_waiter;
        self.next_waiter += 1;
        let slot = self.sessions.get_mut(&id.0).expect("checked above");
        slot.commands.push(CommandWaiter {
            id: waiter,
            prompts,
            prompt_starts,
            commands,
            reader,
            started: now,
            deadline: after(now, timeout),
            unmarked_prompt: None,
            abandoned: false,
            unread_before,
            reply,
        });
        self.schedule(after(now, timeout), Timer::Command { session: id.0, waiter });
        // (Soon, for a command that asks for input at once: a question, an editor. One not
        // started yet is looked at after COMMAND_START_CHECK, as before.)
        self.schedule(now + COMMAND_INPUT_CHECK, Timer::CommandCheck { session: id.0, waiter });
    }

    /// The session's status.
    pub(crate) fn status(&mut self, id: SessionId) -> Result<Status> {
        self.slot(id)?;
        Ok(self.status_of(id.0))
    }

    // ----- ending ------------------------------------------------------------

    /// Closes a session for a caller: SIGHUP and SIGCONT, then SIGTERM to what still runs, to
    /// all its process groups (and to processes in its cgroup that left it), then SIGKILL
    /// after the grace period.
    /// `reply` gets the exit status when nothing is left.
    pub(crate) fn close(&mut self, id: SessionId, reply: Reply<Result<ExitStatus>>) {
        if let Err(err) = self.slot(id) {
            reply.send(Err(err));
            return;
        }
        self.begin_close(id.0, CloseReason::Caller, Some(reply));
    }

    /// Closes every session, then stops the loop and answers `reply`.
    pub(crate) fn begin_shutdown(&mut self, reply: Option<Sender<()>>) {
        let ids: Vec<u64> =
            self.sessions.iter().filter(|(_, s)| !s.closed).map(|(id, _)| *id).collect();
        for id in ids {
            self.begin_close(id, CloseReason::Shutdown, None);
        }
        let (tx, _) = crossbeam_channel::bounded(1);
        self.shutdown = Some(reply.unwrap_or(tx));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reactor() -> Reactor {
        let (_, requests) = crossbeam_channel::unbounded();
        Reactor::new(Poll::new().unwrap(), requests, Arc::new(Config::default()), None)
    }

    /// A secret's Debug shows its length, never its bytes (a secret appears in no log or
    /// error); typed keys and bytes show as they are.
    #[cfg(feature = "testing")]
    #[test]
    fn a_noted_secret_debugs_redacted() {
        let secret = format!("{:?}", Noted::Secret(b"hunter2\r".to_vec()));
        assert_eq!(secret, "Secret(<8 bytes redacted>)");
        let typed = format!("{:?}", Noted::Typing(Typing::Bytes(b"ls".to_vec())));
        assert!(typed.contains("[108, 115]"), "{typed}");
    }

    /// A failed start gives its id back; one with a later id reserved since is no session
    /// until the later one fails too, and then both are given back.
    #[test]
    fn a_failed_start_gives_its_id_back() {
        let mut reactor = reactor();
        let first = reactor.reserve().unwrap();
        reactor.release(first);
        assert_eq!(reactor.reserve().unwrap(), first);
        let second = reactor.reserve().unwrap();
        reactor.release(first);
        assert!(matches!(reactor.missing(first), Error::UnknownSession(id) if id == first));
        reactor.release(second);
        assert!(reactor.unstarted.is_empty());
        assert_eq!(reactor.reserve().unwrap(), first);
        assert_eq!(reactor.reserved, 1);
    }

    /// In canonical mode the line discipline's modes say whether an input submits a line,
    /// whatever keys made it; otherwise the program's rule (`keys`) does.
    #[test]
    fn a_line_is_submitted_where_the_line_discipline_or_the_program_ends_it() {
        use rustix::termios::{InputModes, LocalModes, SpecialCodeIndex};
        let pty = crate::os::pty::open(80, 24).unwrap();
        let cooked = rustix::termios::tcgetattr(&pty.slave).unwrap();
        let with = |setup: &dyn Fn(&mut Termios)| {
            let mut modes = cooked.clone();
            setup(&mut modes);
            modes
        };
        let canonical = |bytes: &[u8], modes: &Termios| submits_line(bytes, || true, Some(modes));
        assert!(canonical(b"go\r", &cooked) && canonical(b"go\n", &cooked));
        assert!(canonical(b"go\x1b\r", &cooked), "<M-Enter> ends the line ESC began");
        assert!(!canonical(b"go\x1b[13u", &cooked), "the kitty protocol's Enter ends none");
        assert!(!canonical(b"go\x1bOM", &cooked), "nor the keypad's in application mode");
        assert!(!canonical(b"go", &cooked) && !canonical(b"", &cooked));
        assert!(!canonical(b"go\x04", &cooked), "end-of-file hands the line over unended");
        assert!(!canonical(b"go\x16\r", &cooked), "a literal-next makes it text");
        assert!(canonical(b"go\x16\x16\r", &cooked), "unless it is made text itself");
        assert!(!canonical(b"go\r", &with(&|m| m.input_modes -= InputModes::ICRNL)));
        assert!(canonical(b"go\n\r", &with(&|m| m.input_modes |= InputModes::IGNCR)));
        assert!(!canonical(b"go\n", &with(&|m| m.input_modes |= InputModes::INLCR)));
        let eol = with(&|m| m.special_codes[SpecialCodeIndex::VEOL2] = b'\t');
        assert!(canonical(b"go\t", &eol));
        let eol = with(&|m| {
            m.special_codes[SpecialCodeIndex::VEOL2] = b'\t';
            m.local_modes -= LocalModes::IEXTEN;
        });
        assert!(!canonical(b"go\t", &eol), "VEOL2 only with IEXTEN");
        // Raw: the program's rule, whatever the bytes.
        let raw = with(&|m| m.local_modes -= LocalModes::ICANON);
        assert!(submits_line(b"go\x1b[13u", || true, Some(&raw)));
        assert!(!submits_line(b"go\x1b\r", || false, Some(&raw)));
        assert!(submits_line(b"go\x1bOM", || true, None));
    }
}
