//! Callers blocked in `wait`, answered when their condition holds.

use super::*;

impl Reactor {
    // ----- waiting ----------------------------------------------------------------------

    /// Registers a waiter; it is answered when its condition holds, the session ends or the
    /// timeout passes.
    pub(crate) fn wait(
        &mut self,
        id: SessionId,
        until: Until,
        timeout: Duration,
        reply: Sender<Result<WaitOutcome>>,
    ) {
        if let Err(err) = until.validate().and_then(|_| self.slot(id).map(|_| ())) {
            let _ = reply.send(Err(err));
            return;
        }
        let waiter = self.next_waiter;
        self.next_waiter += 1;
        let now = Instant::now();
        let slot = self.sessions.get_mut(&id.0).expect("checked above");
        slot.waiters.push(Waiter {
            id: waiter,
            until,
            searched: slot.transcript.read_line(),
            started: now,
            reply,
        });
        self.schedule(
            now + timeout,
            Timer::Wait {
                session: id.0,
                waiter,
            },
        );
        self.check_waiters(id.0);
    }

    /// Answers every waiter whose condition holds (or whose session ended).
    pub(super) fn check_waiters(&mut self, id: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        if slot.waiters.is_empty() {
            return;
        }
        let tail = if slot.waiters.iter().any(|w| w.until.needs_transcript()) {
            slot.emulator.tail(&slot.transcript)
        } else {
            None
        };
        let screen = if slot.waiters.iter().any(|w| w.until.needs_screen()) {
            Some(slot.emulator.screen())
        } else {
            None
        };
        let transcript = &slot.transcript;
        let end = transcript.end();
        let ended = if slot.closed {
            Some(Fired::Closed)
        } else {
            slot.exit.map(|status| Fired::Exited { status })
        };
        slot.waiters.retain_mut(|waiter| {
            let mut fired = None;
            if waiter.until.needs_transcript() {
                let from = waiter.searched.max(transcript.first());
                fired = (from..end)
                    .find_map(|n| waiter.until.match_line(n, transcript.line(n).unwrap_or("")));
                waiter.searched = end;
                if fired.is_none()
                    && let Some(tail) = &tail
                {
                    fired = tail
                        .iter()
                        .enumerate()
                        .find_map(|(i, line)| waiter.until.match_line(end + i as u64, line));
                }
            }
            if fired.is_none()
                && let Some(screen) = &screen
            {
                fired = waiter.until.match_screen(screen);
            }
            let fired = match (fired, &ended) {
                (Some(m), _) => Fired::Matched(m),
                (None, Some(end)) => end.clone(),
                (None, None) => return true,
            };
            let _ = waiter.reply.send(Ok(WaitOutcome {
                fired,
                elapsed: waiter.started.elapsed(),
                screen: None,
            }));
            false
        });
    }

    pub(super) fn wait_timed_out(&mut self, id: u64, waiter: u64) {
        let Some(slot) = self.sessions.get_mut(&id) else {
            return;
        };
        let Some(index) = slot.waiters.iter().position(|w| w.id == waiter) else {
            return;
        };
        let waiter = slot.waiters.swap_remove(index);
        let _ = waiter.reply.send(Ok(WaitOutcome {
            fired: Fired::Timeout,
            elapsed: waiter.started.elapsed(),
            screen: Some(slot.emulator.screen()),
        }));
    }
}
