//! Reading output from the terminal and writing input to it.

use super::*;

/// The most queued input bytes given to one `write` (about what a terminal takes at once).
const WRITE_CHUNK: usize = 16 << 10;
/// The most queued input bytes written in one turn of a session (a terminal echoing what it
/// takes costs the kernel a character at a time, on the reactor's thread).
const WRITE_TURN: usize = 64 << 10;

impl Reactor {
    // ----- input -------------------------------------------------------------------------

    /// Reads a turn of what the program wrote that is not read yet (the reactor was busy: a
    /// costly look), before a decision that must not be made on the state before it: before
    /// input is written or a signal sent, so that what it shows is taken as earlier than the
    /// input (a prompt drawn before a line was typed is no answer to that line: `at_prompt`
    /// compares when it was read with `last_input`); before a wait or a command times out.
    /// Whether there was output to read (then more may be left past the turn).
    pub(super) fn read_unread(&mut self, id: u64) -> bool {
        let unread = self.sessions.get(&id).is_some_and(|slot| input_wait::output_unread(slot));
        if unread {
            self.read_output(id);
        }
        unread
    }

    /// Checks that a session takes input.
    pub(super) fn accepting(&mut self, id: SessionId) -> Result<&mut Slot> {
        let slot = self.slot(id)?;
        if let Some(ended) = slot.ended() {
            return Err(ended);
        }
        if slot.closed || slot.closing.is_some() || slot.master.is_none() {
            return Err(Error::SessionClosed(id));
        }
        Ok(slot)
    }

    /// Moves parked input into the queue while it fits (recording it, unless at a password
    /// prompt of the session's terminal, `master`); returns the timers of the pastes it
    /// completed. `modes`: the terminal's, when the request that parked the input read them
    /// just before (once for the request, see `Reactor::queue_input`); otherwise they are read
    /// here, once for every piece admitted, and only for a recording of input.
    fn admit_parked(
        slot: &mut Slot,
        master: std::os::fd::BorrowedFd<'_>,
        capacity: usize,
        modes: Option<&rustix::termios::Termios>,
    ) -> Vec<(Instant, Timer)> {
        let mut completed = Vec::new();
        let mut own = modes.map(|modes| Some(crate::os::pty::line_modes_in(modes)));
        while let Some(piece) = slot.parked.front() {
            if slot.queue.len() + piece.bytes.len() > capacity {
                break;
            }
            let piece = slot.parked.pop_front().expect("front exists");
            // A paste at a password prompt is left out, as typed input is (see
            // `Reactor::queue_input`).
            let at_password_prompt = slot.recorder.as_ref().is_some_and(|r| r.records_input())
                && slot.at_password_prompt(
                    master,
                    *own.get_or_insert_with(|| crate::os::pty::line_modes(master)),
                );
            if let Some(recorder) = &mut slot.recorder {
                match at_password_prompt {
                    true => recorder.input_withheld(),
                    false => recorder.input(&piece.bytes),
                }
            }
            slot.queue.extend(piece.bytes);
            if let Some(reply) = piece.reply {
                let _ = reply.send(Ok(()));
                let timer = Timer::Paste { session: slot.id.0, paste: piece.paste };
                completed.push((piece.deadline, timer));
            }
        }
        completed
    }

    /// Ends a paste that is still parked: its pieces not yet queued are dropped and its caller
    /// told how far it got.
    pub(super) fn abort_paste(&mut self, id: u64, paste: u64, reason: &'static str) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let mut dropped = 0;
        let mut ending = None;
        slot.parked.retain_mut(|piece| {
            if piece.paste != paste {
                return true;
            }
            dropped += piece.bytes.len();
            if let Some(reply) = piece.reply.take() {
                ending = Some((reply, piece.total, piece.deadline));
            }
            false
        });
        let Some((reply, total, deadline)) = ending else { return };
        let session = slot.id;
        let _ = reply.send(Err(Error::PasteIncomplete {
            session,
            sent: total - dropped,
            total,
            reason,
        }));
        self.unschedule(deadline, Timer::Paste { session: id, paste });
    }

    /// Drops every paste still parked and the input queued (an interrupt ends them).
    pub(super) fn drop_queued_input(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.queue.clear();
        let pastes: Vec<u64> = slot.parked.iter().map(|piece| piece.paste).collect();
        for paste in pastes {
            self.abort_paste(id, paste, "was dropped by an interrupt");
        }
    }

    /// The terminal's own replies to queries; dropped (and counted) if the queue is full.
    pub(super) fn queue_replies(&mut self, id: u64, replies: &[u8]) {
        if replies.is_empty() {
            return;
        }
        let capacity = self.config.write_queue_bytes;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.queue.len() + replies.len() > capacity {
            slot.replies_dropped += 1;
            return;
        }
        slot.queue.extend(replies);
        slot.last_reply = Some(Instant::now());
        self.flush(id);
    }

    /// Writes queued input until the terminal would block, or one turn's worth
    /// ([`WRITE_TURN`]: the rest is written on the session's next turn, from the backlog, so
    /// a terminal that takes input without end, echoing every byte in the kernel, does not
    /// hold the reactor); WRITABLE interest only while something is left.
    pub(super) fn flush(&mut self, id: u64) {
        self.flush_under(id, None);
    }

    /// [`flush`](Self::flush), the parked pieces it admits before its first write and that
    /// write looked at under `modes`, the terminal's, when the request that queued or parked
    /// input read them just before, with no output read since (once for the request, see
    /// `Reactor::queue_input`, `Reactor::paste`): they are not asked again for it, though
    /// the queue's front may hold an earlier request's bytes (the modes are the terminal's
    /// now, whoever queued them). Later writes read them anew.
    pub(super) fn flush_under(&mut self, id: u64, modes: Option<&rustix::termios::Termios>) {
        let mut modes = modes;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let mut written = 0;
        // Taken out while writing so the slot can be changed meanwhile; put back below.
        let Some(master) = slot.master.take() else {
            slot.drop_input();
            return;
        };
        let capacity = self.config.write_queue_bytes;
        let mut completed = Self::admit_parked(slot, master.as_fd(), capacity, modes);
        while !slot.queue.is_empty() {
            if written >= WRITE_TURN {
                if !slot.backlogged {
                    slot.backlogged = true;
                    self.backlog.push_back(id);
                }
                break;
            }
            // A chunk the terminal can take in about one write: what is looked at before each
            // write is that chunk, not the whole queue (1 MiB of queued answers to clipboard
            // queries was scanned again for every 10 KB written).
            let (front, _) = slot.queue.as_slices();
            let front = &front[..front.len().min(WRITE_CHUNK)];
            let unread =
                input_wait::UnreadInput::before_writing(slot, master.as_fd(), front, modes.take());
            match rustix::io::write(&master, front) {
                Ok(n) => {
                    written += n;
                    slot.unread_input.set(unread);
                    slot.queue.drain(..n);
                    slot.bytes_in += n as u64;
                    completed.extend(Self::admit_parked(slot, master.as_fd(), capacity, None));
                }
                Err(Errno::INTR) => continue,
                Err(Errno::AGAIN) => break,
                Err(_) => {
                    // The terminal is gone; the exit will be reported through the child.
                    slot.drop_input();
                    break;
                }
            }
        }
        let want = !slot.queue.is_empty();
        let fd = master.as_raw_fd();
        slot.master = Some(master);
        if want != slot.want_write {
            let interest =
                if want { Interest::READABLE | Interest::WRITABLE } else { Interest::READABLE };
            if self
                .poll
                .registry()
                .reregister(&mut SourceFd(&fd), master_token(id), interest)
                .is_ok()
            {
                slot.want_write = want;
            }
        }
        for (at, timer) in completed {
            self.unschedule(at, timer);
        }
    }

    // ----- output ------------------------------------------------------------------------

    /// Reads what the program wrote and feeds it to the emulator, up to one turn's worth of
    /// work (output left over waits in the emulator for the next turn), then checks the
    /// waiters.
    pub(super) fn read_output(&mut self, id: u64) {
        let Reactor { sessions, buffer, backlog, .. } = self;
        let Some(slot) = sessions.get_mut(&id) else {
            return;
        };
        if slot.master.is_none() {
            return;
        }
        // Replies beyond the room left in the input queue would be dropped there: they are
        // dropped before they are made.
        let reply_room = self.config.write_queue_bytes.saturating_sub(slot.queue.len());
        let clipboard_room = match slot.clipboard_next.is_none_or(|at| at <= Instant::now()) {
            true => crate::term::emulator::CLIPBOARD_ANSWER_RATE,
            false => 0,
        };
        let mut turn = Turn { budget: TURN_WORK, reply_room, clipboard_room, ..Turn::default() };
        // Lines a transcript waiter has not searched yet (or a waiter that follows a submitted
        // line's echo through them) stay in the store past its bounds until the waiters have
        // been checked; the turn ends before the store holds twice its bounds.
        let searching = |w: &&Waiter| w.until.needs_transcript() || w.read.seeks_echo();
        let pinned = slot.waiters.iter().filter(searching).map(|w| w.searched).min();
        slot.terminal.transcript_mut().pin(pinned);
        let fed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut fed = false;
            let mut hung_up = false;
            let more = loop {
                if slot.terminal.has_pending() {
                    slot.terminal.resume(&mut turn);
                    fed = true;
                } else {
                    let Some(master) = &slot.master else { break false };
                    let want = read_size(turn.budget);
                    match rustix::io::read(master, &mut buffer[..want]) {
                        Ok(0) => {
                            hung_up = true;
                            break false;
                        }
                        Ok(n) => {
                            slot.terminal.feed(&buffer[..n], &mut turn);
                            slot.took_output(&buffer[..n], self.config.raw_output_bytes);
                            slot.bytes_out += n as u64;
                            fed = true;
                        }
                        Err(Errno::INTR) => continue,
                        Err(Errno::AGAIN) => break false,
                        // EIO: every process closed the terminal.
                        Err(_) => {
                            hung_up = true;
                            break false;
                        }
                    }
                }
                if slot.terminal.has_pending()
                    || turn.budget == 0
                    || (pinned.is_some() && slot.terminal.transcript().pinned_too_long())
                {
                    break true;
                }
            };
            (fed, hung_up, more)
        }));
        let (fed, hung_up, more) = match fed {
            Ok(done) => done,
            Err(payload) => {
                let message = super::panic_message(&*payload);
                self.session_failed(id, CloseReason::EmulationFailed, message);
                return;
            }
        };
        if more && !slot.backlogged {
            slot.backlogged = true;
            backlog.push_back(id);
        }
        if fed {
            let now = Instant::now();
            let slot = self.sessions.get_mut(&id).expect("slot exists");
            super::frames_group::note_groups(slot);
            slot.note_modify_other_keys_group();
            slot.last_output = now;
            slot.cadence.output(now);
            if let Some(at) = slot.terminal.sync_deadline()
                && slot.sync_timer != Some(at)
            {
                slot.sync_timer = Some(at);
                self.schedule(at, Timer::Sync(id));
            }
            let slot = self.sessions.get_mut(&id).expect("slot exists");
            if !slot.quiet_armed {
                slot.quiet_armed = true;
                let at = now + self.config.quiet;
                self.schedule(at, Timer::Quiet(id));
            }
            let slot = self.sessions.get_mut(&id).expect("slot exists");
            slot.replies_dropped += turn.replies_dropped;
            if turn.clipboard_answered > 0 {
                let rate = crate::term::emulator::CLIPBOARD_ANSWER_RATE as f64;
                let pause = Duration::from_secs_f64(turn.clipboard_answered as f64 / rate);
                slot.clipboard_next = Some(now + pause);
            }
            self.queue_replies(id, &turn.replies);
            self.look_after_output(id);
        }
        // A look put off (a costly one went just before) has not searched the lines the pin
        // kept: when ending the pin would drop some of them, the waiters look now (at most
        // once a store's bound of output, however costly a look is).
        if let Some(slot) = self.sessions.get_mut(&id)
            && slot.look_deferred.is_some()
            && slot.terminal.transcript().over_bounds()
        {
            self.look_now(id);
        }
        if let Some(slot) = self.sessions.get_mut(&id) {
            slot.terminal.transcript_mut().unpin();
        }
        if hung_up {
            self.hang_up(id);
        } else if let Some(slot) = self.sessions.get_mut(&id)
            && slot.exit_deferred
            && !slot.terminal.has_pending()
        {
            slot.exit_deferred = false;
            self.report_exit(id);
        }
    }

    /// Every process closed the terminal: stop watching it.
    pub(super) fn hang_up(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.hang_up_master(self.poll.registry());
        slot.drop_input();
        // Without a pidfd (not Linux) the hang-up is the sign to look for the exit.
        if slot.child.is_some() || slot.pidfd.is_none() {
            self.report_exit(id);
        }
    }

    pub(super) fn sync_expired(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        slot.sync_timer = None;
        match slot.terminal.sync_deadline() {
            Some(at) if at <= Instant::now() => {}
            Some(at) => {
                slot.sync_timer = Some(at);
                self.schedule(at, Timer::Sync(id));
                return;
            }
            None => return,
        }
        slot.terminal.stop_sync();
        super::frames_group::note_groups(slot);
        self.track_screen(id);
        self.check_waiters(id);
    }

    pub(super) fn quiet_check(&mut self, id: u64) {
        let quiet = self.config.quiet;
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let due = slot.last_output + quiet;
        if due > Instant::now() {
            self.schedule(due, Timer::Quiet(id));
            return;
        }
        slot.quiet_armed = false;
        slot.terminal.trim_memory();
    }
}

/// The signal `byte` stands for on a terminal with `termios`: one of its signal characters
/// (interrupt, quit, suspend) while its line discipline generates signals (ISIG).
pub(super) fn signal_for(
    termios: &rustix::termios::Termios,
    byte: u8,
) -> Option<rustix::process::Signal> {
    use rustix::termios::{LocalModes, SpecialCodeIndex};
    if byte == 0 || !termios.local_modes.contains(LocalModes::ISIG) {
        return None;
    }
    let codes = &termios.special_codes;
    [
        (SpecialCodeIndex::VINTR, rustix::process::Signal::INT),
        (SpecialCodeIndex::VQUIT, rustix::process::Signal::QUIT),
        (SpecialCodeIndex::VSUSP, rustix::process::Signal::TSTP),
    ]
    .into_iter()
    .find(|(index, _)| codes[*index] == byte)
    .map(|(_, signal)| signal)
}
