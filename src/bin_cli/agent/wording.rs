//! The tools' text put in the command line's terms: flags for arguments, commands for tools.

use super::*;

/// A tool's words in the command line's: tool names become commands (`terminal_read` →
/// `termloom read`), arguments their flags (`max_bytes=` → `--max-bytes=`, `` `for_text` `` →
/// `` `--wait-text` ``), so that advice in a message can be followed from a shell. Advice to
/// call a tool on a session names it as the command takes it (`termloom read 5 --view=...`):
/// the session the message names, else `session`, the one the command was given.
pub(super) fn in_cli_terms(message: &str, session: Option<&str>) -> String {
    use std::sync::LazyLock;
    // A tool that takes a session, and the session if the advice names it (or `it`, as in
    // "terminal_close it").
    static SESSION_TOOL: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"\b(terminal_(?:read|send|run|signal|resize|close))\b(?: (?:with )?session_id=([^\s,;)\]]+)(?: and\b)?| it\b)?",
        )
        .expect("a valid regex")
    });
    let mut text = SESSION_TOOL
        .replace_all(message, |found: &regex::Captures| {
            match found.get(2).map(|id| id.as_str()).or(session) {
                Some(id) => format!("{} session_id={id}", &found[1]),
                None => found[0].to_owned(),
            }
        })
        .into_owned();
    for command in COMMANDS {
        // `terminal_read` is `read` (not `wait` or `screen`, which also call it).
        let preferred = COMMANDS
            .iter()
            .find(|c| c.tool == command.tool && command.tool.ends_with(c.name))
            .unwrap_or(command);
        text = text.replace(command.tool, &format!("termloom {}", preferred.name));
        text = text.replace(
            &format!("termloom {} session_id=", preferred.name),
            &format!("termloom {} ", preferred.name),
        );
    }
    // A command line to run, not a tool to call.
    text = replace_word(&text, "call termloom ", "run termloom ");
    text = replace_word(&text, "session_id=", "ID ");
    for flag in COMMANDS.iter().flat_map(|c| c.flags.iter().copied().flatten()) {
        text = replace_word(&text, &format!("`{}`", flag.arg), &format!("`{}`", flag.name));
        if matches!(flag.kind, Kind::Switch) {
            text = replace_word(&text, &format!("{}=true", flag.arg), flag.name);
        }
        text = replace_word(&text, &format!("{}=", flag.arg), &format!("{}=", flag.name));
        // Bare names that are no English word (`for_cursor "99,99" is off the screen`).
        if flag.arg.contains('_') {
            text = replace_word(&text, flag.arg, flag.name);
        }
    }
    replace_word(&text, "session_id", "ID")
}

/// `text` with `from` replaced by `to` where `from` is not part of a longer word (`text=` in
/// `for_text=` or `--wait-text=`, `for_text` in `for_texts`, is left alone).
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let open_end = from.chars().next_back().is_some_and(word);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back().or_else(|| out.chars().next_back());
        let after = rest[at + from.len()..].chars().next();
        let inside = before.is_some_and(word) || (open_end && after.is_some_and(word));
        out.push_str(&rest[..at]);
        out.push_str(if inside { from } else { to });
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// A result's text with termloom's own notes (whole lines in brackets) in the command line's
/// terms (see [`in_cli_terms`]); the program's output is left as it is.
pub(super) fn notes_in_cli_terms(text: &str, session: Option<&str>) -> String {
    let lines = text.split_inclusive('\n').map(|line| {
        let bare = line.trim_end();
        if bare.starts_with('[') && bare.ends_with(']') {
            in_cli_terms(line, session)
        } else {
            line.to_owned()
        }
    });
    lines.collect()
}

/// A result's text cut into termloom's own parts (`false`) and the program's (`true`): its
/// output and its screen (`structured`'s `output` and `screen.text`), found where a line
/// starts (the output first, the screen last), so that only termloom's words are put in the
/// command line's terms, never a program's line that looks like them.
pub(super) fn own_and_programs<'t>(text: &'t str, structured: &Value) -> Vec<(&'t str, bool)> {
    let at_line_start = |at: &usize| *at == 0 || text.as_bytes()[at - 1] == b'\n';
    let found = |part: &Value, last: bool| {
        let part = part.as_str().filter(|part| !part.is_empty())?;
        let mut starts = text.match_indices(part).map(|(at, _)| at).filter(at_line_start);
        let at = if last { starts.last() } else { starts.next() }?;
        Some(at..at + part.len())
    };
    let mut ranges: Vec<_> =
        [found(&structured["output"], false), found(&structured["screen"]["text"], true)]
            .into_iter()
            .flatten()
            .collect();
    ranges.sort_by_key(|range| range.start);
    let mut pieces = Vec::new();
    let mut at = 0;
    for range in ranges {
        if range.start < at {
            continue;
        }
        pieces.push((&text[at..range.start], false));
        pieces.push((&text[range.clone()], true));
        at = range.end;
    }
    pieces.push((&text[at..], false));
    pieces
}

/// A session as the command line names it: its name, or its id.
pub(super) fn given(id: Option<&Value>) -> Option<String> {
    id.map(|id| match id {
        Value::String(name) => name.clone(),
        other => other.to_string(),
    })
}

/// `text` with the session's `id` in advice (`session_id=2`) and in words (`in session 2:`,
/// `session 2's shell`) as the command was given it, `named` (`session_id=ed`, `session ed`):
/// the agent that named the session runs the advice as it is, and reads of the session it
/// named.
pub(super) fn as_named(text: &str, id: Option<&Value>, named: Option<&Value>) -> String {
    match (given(id), given(named)) {
        (Some(id), Some(named)) if id != named => replace_word(
            &replace_word(text, &format!("session_id={id}"), &format!("session_id={named}")),
            &format!("session {id}"),
            &format!("session {named}"),
        ),
        _ => text.to_owned(),
    }
}

/// A failure's `text` with the session the command was given by name, `named`, in place of
/// its id (`session_id=2`, `session 2's shell`), as [`as_named`] puts it in a result's: a
/// failure carries no id, so the one it names is taken for the session's when it names no
/// other.
pub(super) fn failure_as_named(text: &str, named: Option<&Value>) -> String {
    use std::sync::LazyLock;
    static ID: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"\bsession(?:_id=| )([0-9]+)\b").expect("a valid regex")
    });
    let Some(Value::String(_)) = named else {
        return text.to_owned();
    };
    let ids: std::collections::BTreeSet<&str> =
        ID.captures_iter(text).filter_map(|found| found.get(1)).map(|id| id.as_str()).collect();
    match ids.into_iter().collect::<Vec<_>>()[..] {
        [id] => as_named(text, Some(&Value::from(id)), named),
        _ => text.to_owned(),
    }
}

/// The parts of a result's text that only this command can put in its terms: its own name
/// where the tool's stands (`termloom wait: ...`, not `termloom read: ...`), the session in
/// advice that leaves it out, and the advice of the MCP tools that has no flag to map to.
pub(super) fn in_command_terms(command: &CommandDef, text: &str, id: Option<&Value>) -> String {
    let mut text =
        text.replace(&format!("{}:", command.tool), &format!("termloom {}:", command.name));
    if let Some(id) = given(id) {
        text = text
            .replace("terminal_read with view=", &format!("terminal_read session_id={id} view="));
    }
    for (from, to) in PHRASES {
        text = text.replace(from, to);
    }
    // A password no one can be asked for through the command line: the person can type it
    // into the session, held with `termloom attach`.
    if let Some(id) = given(id) {
        text = text.replace(
            "this client cannot ask its person for it (no URL-mode elicitation): interrupt it",
            &format!(
                "no one can be asked for it on the command line: ask the person to type it \
                 themselves in `termloom attach {id} --takeover` (Ctrl-] hands it back), or \
                 interrupt it"
            ),
        );
    }
    // The tool's arguments that are this command's positional ones, or parts of a flag's value.
    let positional: &[(&str, &str)] = match command.name {
        "exec" => &[
            ("`command` is empty; give it a value, or leave it out", "CMD is empty"),
            ("`command`", "CMD"),
        ],
        "start" => &[
            ("`argv` (a program and its arguments)", "PROGRAM ARGS"),
            ("`cols`", "--size's COLS"),
            ("`rows`", "--size's ROWS"),
        ],
        "resize" => &[("`cols`", "COLS"), ("`rows`", "ROWS")],
        _ => &[],
    };
    for (from, to) in positional {
        text = text.replace(from, to);
    }
    // A wait that would be refused before typing says nothing was typed: these commands type
    // nothing.
    if !matches!(command.name, "send" | "start") {
        text = text.replace("; nothing was sent", "");
    }
    // A look-up's errors begin with its argument (`lines must be ...`): the flag's name.
    for name in ["lines", "search"] {
        if text.strip_prefix(name).is_some_and(|rest| rest.starts_with([' ', ':'])) {
            text.insert_str(0, "--");
        }
    }
    text
}

/// Whether an error `message` begins with the command it is about (`termloom read: ...`),
/// so that it needs no `termloom: ` before it.
pub(super) fn names_its_command(message: &str) -> bool {
    let command = message.strip_prefix("termloom ").and_then(|rest| rest.split_once(": "));
    command.is_some_and(|(name, _)| is_command(name))
}

/// The MCP tools' advice that is said otherwise on the command line.
const PHRASES: &[(&str, &str)] = &[
    (
        "omit session_id to start one, or use terminal_start without command/argv (or with argv=[\"bash\"] or [\"zsh\"] and shell_integration=true)",
        "start one with `termloom start` without PROGRAM (or `termloom start --shell-integration -- bash`)",
    ),
    ("close some with terminal_close (termloom close ID)", "close some with termloom close ID"),
    // `terminal_list`'s, whose advice names no session (the command's `ID` must stand there).
    ("each is readable by its id with terminal_read", "each is readable with termloom read ID"),
    ("no sessions; start one with terminal_start", "no sessions; start one with termloom start"),
    ("so prompt can never hold", "so --wait-prompt can never hold"),
    ("terminal_start without command or argv", "terminal_start without --command or PROGRAM"),
    (
        "this MCP client did not declare elicitation by a form (or its protocol revision has none), so no one can be asked",
        "the policy says to ask a person, and no one can be asked on the command line",
    ),
];
