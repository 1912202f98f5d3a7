//! The echo of a line a caller submitted at a prompt that the call's result did not read: the
//! call returned before the echo came back (a send with no wait), or it showed the alternate
//! screen alone (`view="screen"` on a program the line started: vim, less, htop, a man page;
//! with the default view, the call that typed the line reads it with what the alternate screen
//! hides). The caller typed it, so a read that then continues the prompt with exactly that
//! echo leaves it out (see [`read_new`](super::view::read_new)).

use crate::SessionId;

use super::per_session::PerSession;

/// Where the echo of a submitted line starts in a session's transcript, and what it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnreadEcho {
    /// The line it was typed on: the line the cursor was on, on the primary screen.
    pub line: u64,
    /// The bytes of that line before the cursor when it was typed (a prompt).
    pub offset: usize,
    /// The echo: the line's characters, as typed.
    pub echo: String,
}

/// What a call's look did to a caller's read position in a session (see
/// [`UnreadEchoes::looked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Look {
    /// It read nothing: the position stays where it was.
    ReadNothing,
    /// It read something (or left out the echo remembered): the position moved on.
    Read,
    /// It submitted a line, whose echo it did not read.
    LeftUnread(UnreadEcho),
}

/// One caller's unread echoes, one per session at most (see [`PerSession`]).
#[derive(Debug, Default)]
pub(crate) struct UnreadEchoes(PerSession<UnreadEcho>);

impl UnreadEchoes {
    /// The echo this caller left unread in session `id`, if any.
    pub(crate) fn of(&self, id: SessionId) -> Option<UnreadEcho> {
        self.0.look(id, UnreadEcho::clone)
    }

    /// Notes what a look at session `id` did: a line submitted and not read is remembered;
    /// a read that moved the position on forgets the echo (read, left out, or passed over).
    pub(crate) fn looked(&self, id: SessionId, look: Look) {
        match look {
            Look::ReadNothing => {}
            Look::Read => self.0.forget(id),
            Look::LeftUnread(echo) => self.0.set(id, echo),
        }
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.0.forget(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(line: u64) -> UnreadEcho {
        UnreadEcho { line, offset: 2, echo: "vim".to_owned() }
    }

    #[test]
    fn an_echo_is_kept_until_a_read_moves_on() {
        let echoes = UnreadEchoes::default();
        let id = SessionId(1);
        echoes.looked(id, Look::LeftUnread(echo(3)));
        echoes.looked(id, Look::ReadNothing);
        assert_eq!(echoes.of(id), Some(echo(3)));
        echoes.looked(id, Look::Read);
        assert_eq!(echoes.of(id), None);
    }
}
