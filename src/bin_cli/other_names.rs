//! termloom's command for a command named as tmux names it (`send-keys`, `kill-session`,
//! `capture-pane`), or by a verb an agent guesses (`kill`, `new`, `press`): told before a
//! misspelling is guessed, which would take `kill` for an abbreviation of `kill-server` and
//! end every session where one was meant.

/// Other tools' names (tmux's first, then common verbs) and termloom's command for each, as
/// a message gives it.
const OTHER_NAMES: &[(&[&str], &str)] = &[
    (KILL_NAMES, KILL),
    (&["new", "new-session", "new-window", "spawn", "launch"], "`termloom start` starts a session"),
    (
        &["send-keys", "press", "type", "keys"],
        "`termloom send ID --keys KEYS` types keys (`--keys '<C-c>'`; text: `--text`)",
    ),
    (
        &["capture-pane", "capture", "show", "snapshot"],
        "`termloom screen ID` shows the screen (`termloom read ID` what is new in the \
         transcript)",
    ),
    (&["ls", "list-sessions", "has-session", "ps"], "`termloom list` lists the sessions"),
    (&["attach-session", "watch"], "`termloom attach ID` shows a session live"),
    (&["resize-window", "resize-pane"], "`termloom resize ID COLSxROWS` resizes its terminal"),
    (&["send-signal"], "`termloom signal ID SIGNAL` sends a signal"),
    (&["wait-for"], "`termloom wait ID --wait-...` waits for a condition"),
];

/// The names for ending something (`kill`, tmux's `kill-session`), told [`KILL`].
const KILL_NAMES: &[&str] =
    &["kill", "kill-session", "kill-pane", "kill-window", "stop", "terminate", "rm"];

/// termloom's commands for what a `kill` may mean: ending one session, or signalling its
/// program (`kill -INT`); never `kill-server` alone, which ends every session.
const KILL: &str = "`termloom close ID` ends one session (`termloom kill-server` ends every \
                    session and the server); `termloom signal ID SIGNAL` sends its program a \
                    signal (INT, TERM, HUP...)";

/// [`KILL`] for a `kill` given a signal (`kill -INT py`, `kill -9 py`): the signal first.
const KILL_SIGNAL: &str = "`termloom signal ID SIGNAL` sends its program a signal (INT, TERM, \
                           HUP...); `termloom close ID` ends one session (`termloom \
                           kill-server` ends every session and the server)";

/// termloom's command for `command`, a name tmux or another tool gives it, if it is one;
/// `given`, the words after it, tell a `kill` of a signal (`-INT`, `-9`, `-s TERM`) from one
/// of a session.
pub(super) fn instead(command: &str, given: &[String]) -> Option<&'static str> {
    let (_, instead) = OTHER_NAMES.iter().find(|(names, _)| names.contains(&command))?;
    match *instead == KILL && given.iter().any(|word| names_a_signal(word)) {
        true => Some(KILL_SIGNAL),
        false => Some(instead),
    }
}

/// termloom's command for `command` when it is near a name another tool gives it (`kil`,
/// `kills`, `kill-se`: [`instead`] for the name it is nearest, as `closest` finds it among
/// these and termloom's own `commands`), or near `kill-server` only as a `kill` would be
/// (`kill-s` abbreviates `kill-server` and `kill-session` alike): [`KILL`], never
/// `kill-server` alone.
pub(super) fn near<'c>(
    command: &str,
    given: &[String],
    commands: impl IntoIterator<Item = &'c str>,
) -> Option<&'static str> {
    let commands: Vec<&str> = commands.into_iter().collect();
    let other = OTHER_NAMES.iter().flat_map(|(names, _)| names.iter().copied());
    let all: Vec<&str> = commands.iter().copied().chain(other).collect();
    let kill = |name: &str| name == "kill-server" || KILL_NAMES.contains(&name);
    match super::values::closest(command, all.iter().copied()) {
        Some(name) if kill(name) => instead("kill", given),
        Some(name) if !commands.contains(&name) => instead(name, given),
        Some(_) => None,
        // Abbreviating several names, all of them ends (`kill-se`: `kill-server`,
        // `kill-session`).
        None => {
            let mut shortened = all.iter().filter(|name| super::values::shortens(command, name));
            let first = shortened.next()?;
            (kill(first) && shortened.all(|name| kill(name))).then(|| instead("kill", given))?
        }
    }
}

/// Whether `word`, given after `kill`, names a signal as kill's options do: `-INT`, `-SIGINT`,
/// `-9`, `-s`, `-n`, or a signal's name alone (`INT`).
fn names_a_signal(word: &str) -> bool {
    let bare = word.strip_prefix('-').unwrap_or(word);
    let numbered =
        word.starts_with('-') && !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit());
    numbered || matches!(word, "-s" | "-n" | "-l") || bare.parse::<termloom::Signal>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name is told one command, and none is one of termloom's own.
    #[test]
    fn each_name_is_told_one_command_and_none_is_termlooms() {
        let mut seen = Vec::new();
        for (names, instead) in OTHER_NAMES {
            assert!(instead.starts_with("`termloom "), "{instead}");
            for name in *names {
                assert!(!seen.contains(name), "{name} twice");
                assert!(!super::super::COMMANDS.split([',', ' ']).any(|c| c == *name), "{name}");
                seen.push(name);
            }
        }
        assert_eq!(instead("kill", &[]).map(|s| s.starts_with("`termloom close ID`")), Some(true));
        assert_eq!(instead("kill-server", &[]), None);
    }
}
