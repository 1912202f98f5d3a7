//! termloom's command for a command named as tmux names it (`send-keys`, `kill-session`,
//! `capture-pane`), or by a verb an agent guesses (`kill`, `new`, `press`): told before a
//! misspelling is guessed, which would take `kill` for an abbreviation of `kill-server` and
//! end every session where one was meant.

/// Other tools' names (tmux's first, then common verbs) and termloom's command for each, as
/// a message gives it.
const OTHER_NAMES: &[(&[&str], &str)] = &[
    (
        &["kill", "kill-session", "kill-pane", "kill-window", "stop", "terminate", "rm"],
        "`termloom close ID` ends one session (`termloom kill-server` ends every session and \
         the server)",
    ),
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

/// termloom's command for `command`, a name tmux or another tool gives it, if it is one.
pub(super) fn instead(command: &str) -> Option<&'static str> {
    OTHER_NAMES.iter().find(|(names, _)| names.contains(&command)).map(|(_, instead)| *instead)
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
        assert_eq!(instead("kill").map(|s| s.starts_with("`termloom close ID`")), Some(true));
        assert_eq!(instead("kill-server"), None);
    }
}
