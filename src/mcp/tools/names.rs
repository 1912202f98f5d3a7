//! Session names: `terminal_start name="editor"`, then `session_id="editor"` wherever a tool
//! takes a session. Names are shared by every caller of one server (`termloom server` gives all
//! its clients one table), so a shell-only agent, an MCP host and a person use the same names.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::{Engine, SessionId, SessionState};

use super::ToolError;

/// Longest name.
pub(crate) const MAX_NAME: usize = 64;

/// A session named by its id or by a name, as a tool's `session_id` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionRef<'a> {
    /// By id.
    Id(SessionId),
    /// By name.
    Name(&'a str),
}

/// The names given to sessions, and names being given (a start in progress).
#[derive(Debug, Default)]
pub(crate) struct Names {
    /// Name to session.
    map: Mutex<HashMap<String, Named>>,
}

/// A name's entry: the session it names, or the closed session it named until a start
/// takes it (a second close by name says "already closed", a read shows its last output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// Given to a session starting now.
    Starting,
    /// The name of this session.
    Live(SessionId),
    /// The name this closed session had: free, but naming it until taken.
    Closed(SessionId),
}

/// A name claimed for a session being started; dropping it unclaimed frees the name.
#[derive(Debug)]
pub(crate) struct Claim<'a> {
    names: &'a Names,
    name: String,
    bound: bool,
}

impl Claim<'_> {
    /// Gives the name to session `id`.
    pub(crate) fn bind(mut self, id: SessionId) {
        self.names.lock().insert(self.name.clone(), Named::Live(id));
        self.bound = true;
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if !self.bound {
            self.names.lock().remove(&self.name);
        }
    }
}

/// What a name may be, for messages (see [`check_name`]).
pub(crate) const NAME_RULE: &str =
    "letters, digits, - _ or ., not starting with a digit (an id) or - (a flag)";

/// Whether `name` may name a session: 1 to [`MAX_NAME`] letters, digits, `-`, `_` or `.`,
/// not starting with a digit (so it never reads as an id) or a `-` (so the command line never
/// reads it as a flag).
pub(crate) fn check_name(name: &str) -> Result<(), ToolError> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if valid {
        Ok(())
    } else {
        Err(ToolError::invalid_input(format!(
            "invalid session name {}: use 1 to {MAX_NAME} {NAME_RULE}",
            super::args::quoted(name)
        )))
    }
}

impl Names {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Named>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims `name` for a session about to start. A name is free when no session has it, or
    /// when its session was closed.
    pub(crate) fn claim(&self, name: &str, engine: &Engine) -> Result<Claim<'_>, ToolError> {
        check_name(name)?;
        let known: Option<Vec<SessionId>> =
            engine.list().ok().map(|sessions| sessions.iter().map(|info| info.id).collect());
        let mut map = self.lock();
        // Names of sessions the engine has forgotten (ended ones beyond its tombstones) name
        // nothing any more: without this, every uniquely named session that ended other than
        // by its caller's terminal_close would stay in the table for the server's life.
        if let Some(known) = known {
            map.retain(|_, named| match named {
                Named::Starting => true,
                Named::Live(id) | Named::Closed(id) => known.contains(id),
            });
        }
        match map.get(name) {
            None | Some(Named::Closed(_)) => {}
            Some(Named::Live(id)) if is_closed(engine, *id) => {}
            Some(Named::Live(id)) => {
                return Err(ToolError::invalid_input(format!(
                    "the name {name:?} is taken by session {id}; choose another name, or close session {id} first"
                ))
                .code("name_taken"));
            }
            Some(Named::Starting) => {
                return Err(ToolError::invalid_input(format!(
                    "the name {name:?} is being given to a session starting now; choose another name"
                ))
                .code("name_taken"));
            }
        }
        map.insert(name.to_owned(), Named::Starting);
        Ok(Claim { names: self, name: name.to_owned(), bound: false })
    }

    /// The session named `name`: the one it names, else the closed one that had it until no
    /// start has taken it since.
    pub(crate) fn lookup(&self, name: &str) -> Option<SessionId> {
        match self.lock().get(name)? {
            Named::Starting => None,
            Named::Live(id) | Named::Closed(id) => Some(*id),
        }
    }

    /// The name that names session `id`, if one does: a closed session's too, until a start
    /// takes it (as [`lookup`](Self::lookup) finds it by that name).
    pub(crate) fn name_of(&self, id: SessionId) -> Option<String> {
        let map = self.lock();
        let names_it =
            |named: &Named| matches!(named, Named::Live(of) | Named::Closed(of) if *of == id);
        map.iter().find(|(_, named)| names_it(named)).map(|(name, _)| name.clone())
    }

    /// Removes the name of session `id` (closed as nobody learned of it: the name names
    /// nothing).
    pub(crate) fn remove(&self, id: SessionId) {
        self.lock()
            .retain(|_, named| !matches!(named, Named::Live(of) | Named::Closed(of) if *of == id));
    }

    /// Frees the name of a closed session, which goes on naming it until a start takes it.
    pub(crate) fn forget(&self, id: SessionId) {
        for named in self.lock().values_mut() {
            if *named == Named::Live(id) {
                *named = Named::Closed(id);
            }
        }
    }
}

/// Whether session `id` was closed (or is gone).
fn is_closed(engine: &Engine, id: SessionId) -> bool {
    engine
        .session(id)
        .and_then(|session| session.info())
        .map_or(true, |info| matches!(info.state, SessionState::Closed(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        for good in ["editor", "a", "vim-1", "x.y_z", "_build", ".hidden"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "1abc", "-x", "--text", "has space", "é", &"n".repeat(MAX_NAME + 1)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        // The message states the rule that was applied (`_build` is a name: no "letter first").
        let message = check_name("1abc").unwrap_err().message;
        assert!(message.contains("not starting with a digit (an id) or - (a flag)"), "{message}");
    }

    #[test]
    fn an_unbound_claim_frees_its_name() {
        let engine = Engine::new(crate::Config::default()).unwrap();
        let names = Names::default();
        let claim = names.claim("ed", &engine).unwrap();
        assert!(names.claim("ed", &engine).is_err(), "a name being given is taken");
        drop(claim);
        names.claim("ed", &engine).unwrap().bind(SessionId(7));
        assert_eq!(names.lookup("ed"), Some(SessionId(7)));
        assert_eq!(names.name_of(SessionId(7)).as_deref(), Some("ed"));
        // Session 7 does not exist in this engine: its name counts as free.
        names.claim("ed", &engine).unwrap().bind(SessionId(8));
        names.forget(SessionId(8));
        // Free, but naming the closed session until a start takes it.
        assert_eq!(names.lookup("ed"), Some(SessionId(8)));
        assert_eq!(names.name_of(SessionId(8)).as_deref(), Some("ed"));
        names.claim("ed", &engine).unwrap().bind(SessionId(11));
        assert_eq!(names.name_of(SessionId(8)), None);
        assert_eq!(names.name_of(SessionId(11)).as_deref(), Some("ed"));
        // A claim drops the names of sessions the engine does not know (any more).
        names.claim("gone", &engine).unwrap().bind(SessionId(9));
        names.claim("other", &engine).unwrap().bind(SessionId(10));
        assert_eq!(names.lookup("gone"), None);
        assert_eq!(names.map.lock().unwrap().len(), 1);
        engine.shutdown();
    }
}
