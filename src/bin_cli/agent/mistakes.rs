//! What a malformed command line is told: for the mistakes a caller plausibly makes (an
//! unknown flag close to one the command takes, the text to type given as an argument, an
//! argument missing), the command line to give instead.

use super::*;

/// The options every command takes.
pub(crate) const COMMON_OPTIONS: [&str; 4] = ["-L", "--socket", "--client", "--json"];

/// The words for pressing Enter that are no flag: `--submit` presses it.
const ENTER: &[&str] = &["--enter", "--return", "--newline", "--cr", "--execute", "--run"];

/// Flags for the session, which is the first argument.
const SESSION: &[&str] =
    &["--id", "--session", "--session-id", "--session_id", "--name", "--target"];

/// The message for flag `arg`, which `command` does not take, given after the positional
/// arguments `positional`: what to give instead when a flag it takes is plausibly meant,
/// else every flag it takes.
pub(super) fn unknown_flag(
    command: &CommandDef,
    arg: &str,
    positional: &[String],
    after: &[String],
) -> String {
    let flags = || command.flags.iter().flat_map(|group| group.iter());
    let taken = |name: &str| flags().find(|f| f.name == name);
    let not = format!("`termloom {}` does not take {arg}", command.name);
    if ENTER.contains(&arg) && command.name == "exec" {
        return format!("{not}; exec types CMD and presses Enter itself");
    }
    // `termloom exec g ls -la`, `termloom send g ls -l`: a word of the command line or text
    // after it, not termloom's (no command of termloom takes it).
    // The words after it are the line's too, up to an option of termloom's.
    let termlooms = || COMMANDS.iter().flat_map(|c| c.flags.iter().copied().flatten());
    let termlooms_own =
        |word: &str| termlooms().any(|f| f.name == word) || COMMON_OPTIONS.contains(&word);
    if matches!(command.name, "exec" | "send") && positional.len() >= 2 && !termlooms_own(arg) {
        let mut words = positional.to_vec();
        words.push(arg.to_owned());
        words.extend(after.iter().take_while(|word| !termlooms_own(word)).cloned());
        return wrong_positionals(command, &words);
    }
    if ENTER.contains(&arg) && taken("--submit").is_some() {
        return format!(
            "{not}; to press Enter, give --submit (Enter after the text) or <Enter> in --keys"
        );
    }
    if ENTER.contains(&arg) || (command.name != "send" && ["--text", "--keys"].contains(&arg)) {
        // `termloom wait g --text x` is `--wait-text`, below; a wait that would type is
        // told to send.
        if taken(&format!("--wait-{}", &arg[2..])).is_none() || command.name == "start" {
            return format!(
                "{not}; `termloom {}` types nothing: type with termloom send ID --text TEXT \
                 --submit (or --keys KEYS)",
                command.name
            );
        }
    }
    if SESSION.contains(&arg) && command.positional.first() == Some(&"ID") {
        return format!(
            "{not}; the session is the first argument: termloom {} ID{}",
            command.name,
            if command.positional.len() > 1 { " ..." } else { "" }
        );
    }
    if arg == "--command" && command.name == "exec" {
        return format!("{not}; the command line is the argument after ID: termloom exec ID 'CMD'");
    }
    // A name close to a flag's: a condition without its `--wait-`, `_` for `-`, a plural or
    // singular, a unit after it (`--timeout-ms`), a misspelling.
    let bare = arg.replace('_', "-");
    let bare = ["-ms", "-s", "-secs", "-seconds"]
        .iter()
        .find_map(|unit| bare.strip_suffix(unit))
        .filter(|bare| taken(bare).is_some())
        .unwrap_or(&bare)
        .to_owned();
    let name = bare.trim_start_matches('-');
    let candidates = [
        format!("--wait-{name}"),
        bare.clone(),
        format!("{bare}s"),
        bare.strip_suffix('s').unwrap_or(&bare).to_owned(),
    ];
    let mut takes: Vec<&str> = flags().map(|f| f.name).collect();
    if command.name == "start" {
        takes.extend(["--size", "--env"]);
    }
    takes.extend(COMMON_OPTIONS);
    // Else a misspelling of one (`--nmae`, `--wait-promt`).
    let misspelt = || super::super::values::closest(arg, takes.iter().copied());
    let flag = candidates.iter().find_map(|candidate| taken(candidate));
    match flag.map(|flag| flag.name).or_else(misspelt) {
        Some(name) => match flag.or_else(|| taken(name)).map(what_it_does) {
            Some(does) if !does.is_empty() => format!("{not}; give {name}: {does}"),
            _ => format!("{not}; give {name}"),
        },
        None => format!("{not}; its flags are: {}", takes.join(", ")),
    }
}

/// The note for a `--text` that ends in an escape written out (`echo hi\n`): `--text` types
/// it as it is, its backslash and letter, not as Enter (`termloom run --send`, the MCP tools'
/// `text`, decode it), so the line was not submitted, or holds a stray `\n` before the
/// Enter of `--submit`. `None` for any other call.
pub(super) fn escaped_line_break(arguments: &Map<String, Value>) -> Option<String> {
    // As typed: the tool's escape decoding undoes the backslashes the parse doubled.
    let text = arguments.get("text").and_then(Value::as_str).map(termloom::decode_escapes);
    let text = text.unwrap_or_default();
    // A backslash escaped before it (`printf a\\n`) is the shell's, meant as typed: the
    // escape is written out when an even number of backslashes come before its own.
    let written_out = |escape: &&str| {
        text.strip_suffix(escape.as_bytes())
            .is_some_and(|before| before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0)
    };
    let escape = [r"\r\n", r"\n", r"\r"].into_iter().find(written_out)?;
    Some(format!(
        "--text is typed as it is: the {escape} it ends with was typed as those characters, \
         not as Enter; --submit presses Enter (a real line break, $'...\\n', is typed as Enter \
         too)"
    ))
}

/// What `flag` does, to follow a colon: its help's first clause.
fn what_it_does(flag: &Flag) -> String {
    let help = flag.help.trim_end_matches('.');
    lowercase_first(help.split_once(" (").map_or(help, |(first, _)| first))
}

/// `text` with its first letter in lower case, to follow a colon.
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_lowercase().chain(chars).collect())
}

/// The message for `positional`, which are more or fewer arguments than `command` takes:
/// the one missing by its name, the ones too many, and for text to type or a command line
/// in words of its own, where it goes.
pub(super) fn wrong_positionals(command: &CommandDef, positional: &[String]) -> String {
    let name = command.name;
    let wants = command.positional;
    if positional.len() < wants.len() {
        let missing = wants[positional.len()..].join(" ");
        let what = match wants[positional.len()] {
            "ID" => ": the session's id or name (termloom list lists them)",
            "CMD" => ": the command line to run, quoted as one argument",
            "SIGNAL" => ": INT, TERM, KILL, HUP...",
            _ => "",
        };
        // `termloom signal INT`: the one word is the session, however like a signal it reads.
        let taken = match (name, positional) {
            ("signal", [word]) if word.parse::<termloom::Signal>().is_ok() => format!(
                " ({word} was taken as the session: give the session first, termloom signal ID \
                {word})"
            ),
            _ => String::new(),
        };
        return format!(
            "`termloom {name}` takes {}; {missing} is missing{what}{taken}",
            wants.join(" ")
        );
    }
    let extra = &positional[wants.len()..];
    let quoted = shell_quoted(&extra.join(" "));
    match name {
        "send" => format!(
            "`termloom send` takes the session's ID alone: to type {quoted}, give --text \
             {quoted} (and --submit to press Enter)"
        ),
        "exec" => format!(
            "`termloom exec` takes ID CMD, CMD one argument: quote the whole command line, \
             termloom exec {} {}",
            positional[0],
            shell_quoted(&positional[1..].join(" "))
        ),
        _ if wants.is_empty() => {
            format!("`termloom {name}` takes no argument, and was given {quoted}")
        }
        _ => format!(
            "`termloom {name}` takes {} alone; {quoted} is {} too many",
            wants.join(" "),
            if extra.len() == 1 { "one argument" } else { "arguments" }
        ),
    }
}
