//! A secret held until a program reads it: programs print their password prompt and turn
//! echo off a few milliseconds before they block reading the terminal (`getpass`, `su`), so
//! a secret sent as soon as the prompt shows finds the modes of a password prompt but no
//! reader yet. The reactor holds it and looks again on a timer, every [`LOOK_EVERY`], for up
//! to `Config::reader_settle` (2 s past `input_settle`); it types the secret in the turn it
//! sees some thread of the foreground group blocked reading the terminal (whichever program
//! that is: see `input_wait::no_terminal_reader`), under the modes read in that turn, and
//! refuses it with [`Error::NoSecretReader`] once the time is out (a program that turned echo
//! off and went on working: `stty -echo; sleep 9`). Once a look saw the password prompt, one
//! that sees the terminal echo again holds it too (a prompt reading with a timeout in a loop,
//! `read -s -t 0.5`, turns echo on between its reads), refused with
//! [`Error::NotAtPasswordPrompt`] if that is what the last look saw. A terminal that still
//! echoes while no thread of the foreground group reads it, its cursor right after the text
//! of its row (a prompt shown), holds it too, on the same timer and bound: its program is on
//! its way to read at its prompt, which some print before they turn
//! echo off (`printf 'Password: '; stty -echo; read p`, or Python printing its own prompt
//! then calling `getpass.getpass('')`: refused at once 3 and 4 times in 6), and it is refused
//! with [`Error::NotAtPasswordPrompt`] once the time is out (a program working on with echo
//! on). One that echoes while something reads it (a shell at its prompt, a program reading
//! a line with echo on, where typing would show the secret) is refused at once, as where
//! `/proc` cannot tell. Any other refusal is answered at once. A password prompt on a terminal a program of the session relays to (GNU
//! screen's window, `sudo` with `use_pty`: the session's own terminal is kept raw) is held for
//! the same way, on the same timer and bound, while the readiness probe sees no reader of it
//! yet, and refused once the time is out as on the session's own terminal: with
//! [`Error::NoSecretReader`], or [`Error::NotAtPasswordPrompt`] when the last look found the
//! prompt gone (see `Reactor::send_secret_under`). A relay that hosts more than one terminal
//! (GNU screen's windows, tmux's panes, one whose foreground group ended counting) is refused
//! at once, in any look, with [`Error::SecretThroughMultiplexer`]: it sends the keys to the
//! terminal it shows, which `/proc` cannot tell, whichever one asks. One secret a session is
//! asked for at a time: held for its reader, or claimed (`Reactor::claim_secret`) by MCP's
//! `terminal_send secret=true` from its look whether one would be typed until the person's
//! secret is typed or the call ends. Another meanwhile, other than the claim's own, is
//! refused at once with [`Error::SecretPending`], which says what holds it
//! ([`PendingSecret`]): a secret held for its reader, a claim whose call asks (or looks to
//! ask, `Reactor::ask_secret`), or one whose call still waits for its turn on the session
//! behind its client's earlier call there, when no one is asked yet.

use super::*;
use crate::PendingSecret;
use crate::term::transcript::TypedLine;
use requests::typed_line_of;

/// How often a held secret looks again for a program reading the terminal.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// A secret waiting for its program to read the terminal (see the module's documentation).
pub(super) struct HeldSecret {
    /// The secret, zeroed once it is typed or refused.
    secret: Vec<u8>,
    /// The reader moved past the output before the secret, in each look (the testing kit).
    skip: Option<u64>,
    /// Nothing is typed: the answer says whether it would be (MCP's look before it asks).
    dry: bool,
    /// When it was first asked for.
    started: Instant,
    /// Whether a look saw the password prompt, with no reader, and held it.
    saw_prompt: bool,
    /// When it is refused if no program reads by then.
    deadline: Instant,
    /// The caller, answered with the line the secret was typed on (for `skip`).
    reply: Reply<Result<Option<TypedLine>>>,
}

impl Drop for HeldSecret {
    fn drop(&mut self) {
        self.secret.fill(0);
    }
}

impl Reactor {
    /// Types a secret and Enter into session `id` (see [`Reactor::send_secret_under`]),
    /// answering `reply`; held while the terminal is at a password prompt that no program
    /// reads yet (see the module's documentation). With `skip`, each look first moves that
    /// reader past everything printed before it, and the answer is the line the secret was
    /// typed on (the testing kit's waits). With `dry`, nothing is typed: the answer is the one
    /// a secret would get, `Ok(None)` once it would be typed. `claim`, the number
    /// [`Reactor::claim_secret`] gave, lets it through the session's claim.
    pub(crate) fn send_secret(
        &mut self,
        id: SessionId,
        secret: Vec<u8>,
        (skip, dry, claim): (Option<u64>, bool, Option<u64>),
        reply: Reply<Result<Option<TypedLine>>>,
    ) {
        let started = Instant::now();
        let deadline = after(started, self.config.reader_settle());
        let mut held =
            HeldSecret { secret, skip, dry, started, saw_prompt: false, deadline, reply };
        // One at a time, a dry look (MCP's, before it asks a person) and a person being asked
        // included: a password prompt reads one secret, and a second would go to whatever
        // reads the terminal next. A session that takes no input says so first, as
        // `claim_secret` does: no one is asked for a secret an exited program cannot read.
        if let Err(err) = self.accepting(id) {
            held.reply.take().send(Err(err));
            return;
        }
        let by = match self.secret_claims.get(&id.0) {
            Some(&(taken, _)) if Some(taken) == claim => {
                self.held_secrets.contains_key(&id.0).then_some(PendingSecret::Reader)
            }
            _ => self.pending_secret(id),
        };
        if let Some(by) = by {
            held.reply.take().send(Err(Error::SecretPending { session: id, by }));
            return;
        }
        self.look_for_secret_reader(id, held);
    }

    /// Claims session `id`'s secret for one caller (MCP's `terminal_send secret=true`, while it
    /// asks a person): the claim's number, which lets that caller's secrets through
    /// ([`Reactor::send_secret`]); any other is refused with [`Error::SecretPending`] until
    /// [`Reactor::release_secret`]. Refused so itself while a secret is claimed or held.
    /// The claim is taken queued: its call has not had its turn yet ([`PendingSecret::Queued`]
    /// until [`Reactor::ask_secret`]).
    pub(crate) fn claim_secret(&mut self, id: SessionId) -> Result<u64> {
        self.accepting(id)?;
        if let Some(by) = self.pending_secret(id) {
            return Err(Error::SecretPending { session: id, by });
        }
        self.last_secret_claim += 1;
        self.secret_claims.insert(id.0, (self.last_secret_claim, false));
        Ok(self.last_secret_claim)
    }

    /// Session `id`'s claim numbered `claim` has its call's turn: from now on it looks whether
    /// the program reads and asks a person ([`PendingSecret::Person`]).
    pub(crate) fn ask_secret(&mut self, id: SessionId, claim: u64) {
        if let Some((number, asking)) = self.secret_claims.get_mut(&id.0)
            && *number == claim
        {
            *asking = true;
        }
    }

    /// Lets go of session `id`'s claim numbered `claim` (another claim, or none, is left).
    pub(crate) fn release_secret(&mut self, id: SessionId, claim: u64) {
        if self.secret_claims.get(&id.0).is_some_and(|&(number, _)| number == claim) {
            self.secret_claims.remove(&id.0);
        }
    }

    /// What holds session `id`'s secret, if anything: a claim (its call asking, or queued),
    /// else a secret held for its reader.
    fn pending_secret(&self, id: SessionId) -> Option<PendingSecret> {
        match self.secret_claims.get(&id.0) {
            Some((_, true)) => Some(PendingSecret::Person),
            Some((_, false)) => Some(PendingSecret::Queued),
            None => self.held_secrets.contains_key(&id.0).then_some(PendingSecret::Reader),
        }
    }

    /// A held secret's timer: looks again.
    pub(super) fn secret_look(&mut self, session: u64) {
        if let Some(held) = self.held_secrets.remove(&session) {
            self.look_for_secret_reader(SessionId(session), held);
        }
    }

    /// Answers the secret held for session `session`, which ended or was closed, with the
    /// error input to it gets, and lets go of its claim.
    pub(super) fn drop_held_secret(&mut self, session: u64) {
        self.secret_claims.remove(&session);
        if let Some(mut held) = self.held_secrets.remove(&session) {
            let err = self.accepting(SessionId(session)).err();
            let err = err.unwrap_or_else(|| self.missing(SessionId(session)));
            held.reply.take().send(Err(err));
        }
    }

    /// Whether session `id` shows a prompt its program may not have begun to read yet: the
    /// cursor stands right after the text of its row (a line printed without its end, such as
    /// `Password: `), and no thread of the foreground group is seen reading the terminal (see
    /// `input_wait::no_reader_seen`: where `/proc` cannot tell, on a loaded machine, as
    /// well; holding only delays a refusal, since nothing is typed while the terminal
    /// echoes). Not a program working on with the cursor at a line's start (a build's output,
    /// `sleep 0.3; stty -echo; read`), whose next reader with echo off would take a secret no
    /// prompt asked for.
    fn prompt_not_read_yet(&self, id: SessionId) -> bool {
        let slot = self.sessions.get(&id.0);
        slot.is_some_and(|slot| {
            slot.terminal.cursor_after_text() && input_wait::no_reader_seen(slot)
        })
    }

    /// Whether session `id`'s terminal does not echo now (read again, after a check that saw
    /// it echo).
    fn echo_turned_off(&self, id: SessionId) -> bool {
        let modes = self.terminal_modes(id);
        modes.is_some_and(|modes| !crate::os::pty::line_modes_in(&modes).echo)
    }

    /// One look: types the secret if a program reads the terminal (or refuses it for another
    /// reason); else holds it until the next look, or refuses it once its time is out.
    fn look_for_secret_reader(&mut self, id: SessionId, mut held: HeldSecret) {
        // Output waiting unread is read before the modes: reading it may let the program
        // turn echo back on, which the check must see.
        let modes = self.modes_after_output(id, None);
        let answer = match held.skip.map(|reader| self.skip_output(id, reader)) {
            Some(Err(err)) => Err(err),
            _ => self.send_secret_under(id, &held.secret, modes.clone(), held.dry),
        };
        // Once a look saw a password prompt, a later one that sees none holds the secret
        // too: a prompt that reads with a timeout in a loop (`read -s -t 0.5`) turns echo
        // back on between its reads. A terminal that still echoes while nothing reads it,
        // its cursor right after a prompt, holds it as well: its program printed the prompt
        // and has not turned echo off yet (`printf 'Password: '; stty -echo; read`, or
        // Python printing its prompt before `getpass.getpass('')`). One that echoes while
        // something reads it (a program reading a line, `read p`) would show the secret, and
        // one whose cursor is at a line's start shows no prompt (a build's output): refused
        // at once.
        // (The modes were read before `/proc` is: a program that turned echo off and began
        // to read in between, as `getpass` does, is seen reading while its echo was seen on;
        // its terminal no longer echoing when read again, it holds too: the next look types.)
        let holds = |err: &Error, saw_prompt: bool, reactor: &Reactor| match err {
            Error::NoSecretReader { .. } => true,
            Error::NotAtPasswordPrompt { echo, .. } => {
                saw_prompt
                    || (*echo && (reactor.prompt_not_read_yet(id) || reactor.echo_turned_off(id)))
            }
            _ => false,
        };
        let answer = match answer {
            Err(err) if Instant::now() < held.deadline && holds(&err, held.saw_prompt, self) => {
                held.saw_prompt |= matches!(err, Error::NoSecretReader { .. });
                let at = after(Instant::now(), LOOK_EVERY).min(held.deadline);
                self.held_secrets.insert(id.0, held);
                self.schedule(at, Timer::Secret(id.0));
                return;
            }
            Err(Error::NoSecretReader { session, doing, .. }) => {
                Err(Error::NoSecretReader { session, doing, waited: held.started.elapsed() })
            }
            Err(err) => Err(err),
            // Taken once it is written: nothing was fed since the modes were read.
            Ok(true) if held.skip.is_some() => {
                Ok(self.slot(id).ok().and_then(|slot| typed_line_of(slot, None, modes.as_ref())))
            }
            Ok(_) => Ok(None),
        };
        held.reply.take().send(answer);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{Engine, Error, SpawnSpec, Until};

    /// A secret sent to a session whose program exited is refused for that, not as pending,
    /// while another caller's claim (MCP's, asking a person) is still held on it.
    #[test]
    fn a_secret_to_an_exited_program_is_refused_for_that_while_a_claim_is_held() {
        let engine = Engine::new(crate::Config::default()).unwrap();
        let session = engine.spawn(SpawnSpec::shell("read x; exit 0")).unwrap();
        let claim = session.claim_secret().unwrap();
        session.send_keys("<Enter>").unwrap();
        assert!(session.wait(Until::exit(), Duration::from_secs(30)).unwrap().is_held());
        let refused = session.send_secret("hunter2").unwrap_err();
        assert!(matches!(refused, Error::SessionExited(_)), "{refused:?}");
        drop(claim);
    }
}
