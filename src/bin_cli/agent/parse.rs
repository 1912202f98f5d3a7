//! A command's arguments turned into a tool call, each value checked as the command line
//! names it.

use super::*;

/// Parses a command's arguments into the tool's. The options every command takes (`-L`,
/// `--socket`, `--client`, `--json`, `-h`) are read where a flag may stand: a flag's value is
/// its value even when it looks like a flag, and after the program's first word (`start vim
/// -L`) or `--` everything is the program's.
pub(super) fn parse(command: &CommandDef, args: Vec<String>) -> Result<Parsed, String> {
    let mut target = Target::from_environment();
    // `$TERMLOOM_CLIENT`, unless empty; checked as `--client` is, and named when it is bad.
    let mut client = match std::env::var("TERMLOOM_CLIENT") {
        Ok(name) if !name.is_empty() => {
            termloom::server::check_client_name(&name)
                .map_err(|message| format!("$TERMLOOM_CLIENT: {message}"))?;
            name
        }
        _ => "cli".to_owned(),
    };
    let mut reach = Vec::new();
    let mut json = false;
    let mut help = false;
    let mut arguments = Map::new();
    let mut positional = Vec::new();
    let mut env = Map::new();
    let mut argv: Option<Vec<String>> = None;
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            if command.name != "start" {
                return Err(format!("`termloom {}` takes no program after --", command.name));
            }
            argv = Some(rest.by_ref().collect());
            break;
        }
        // `--flag=VALUE` as well as `--flag VALUE`.
        let (arg, mut inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg, None),
        };
        let given_inline = inline.is_some();
        let mut value =
            || inline.take().map_or_else(|| rest.next().ok_or(format!("{arg} needs a value")), Ok);
        match arg.as_str() {
            "-L" | "--socket" => {
                let given = value()?;
                reach.retain(|option: &String| {
                    !option.starts_with("-L ") && !option.starts_with("--socket ")
                });
                reach.push(format!("{arg} {}", shell_quoted(&given)));
                target.option(&arg, || Some(given))?;
                continue;
            }
            "--client" => {
                client = value()?;
                termloom::server::check_client_name(&client)
                    .map_err(|message| format!("--client: {message}"))?;
                reach.retain(|option: &String| !option.starts_with("--client "));
                reach.push(format!("--client {}", shell_quoted(&client)));
                continue;
            }
            "--json" | "-h" | "--help" if given_inline => {
                return Err(format!("{arg} takes no value"));
            }
            "--json" => {
                json = true;
                continue;
            }
            "-h" | "--help" => {
                help = true;
                continue;
            }
            "--size" if command.name == "start" => {
                let (cols, rows) = size("--size", &value()?)?;
                arguments.insert("cols".into(), cols.into());
                arguments.insert("rows".into(), rows.into());
                continue;
            }
            "--env" if command.name == "start" => {
                let pair = value()?;
                let (key, val) = pair
                    .split_once('=')
                    .filter(|(key, _)| !key.is_empty())
                    .ok_or(format!("--env {pair:?}: give KEY=VALUE, KEY not empty"))?;
                env.insert(key.to_owned(), json!(val));
                continue;
            }
            _ => {}
        }
        let found = command.flags.iter().flat_map(|group| group.iter()).find(|f| f.name == arg);
        match found {
            Some(flag) => {
                // A flag is given once (a second value would silently replace the first);
                // `--paste` and `--paste-file` give one argument: one of them, once.
                let flags = command.flags.iter().flat_map(|group| group.iter());
                let same: Vec<&str> = flags.filter(|f| f.arg == flag.arg).map(|f| f.name).collect();
                if arguments.contains_key(flag.arg) {
                    return Err(match same.len() {
                        1 => format!("{arg} is given twice; give it once"),
                        _ => format!("give one of {}, once", same.join(" and ")),
                    });
                }
                let value = match flag.kind {
                    Kind::Switch if given_inline => return Err(format!("{arg} takes no value")),
                    Kind::Switch => json!(true),
                    // Empty text sends, matches or names nothing: the command line refuses
                    // it as the malformed value it is (most often an unset variable).
                    kind => match value()? {
                        empty if empty.is_empty() => {
                            return Err(format!(
                                "bad value for {arg}: it is empty; give it a value, or leave it out"
                            ));
                        }
                        value => match kind {
                            Kind::Text => json!(value),
                            Kind::Literal => json!(value.replace('\\', "\\\\")),
                            Kind::File => match read_file(&arg, &value)? {
                                empty if empty.is_empty() => {
                                    return Err(format!(
                                        "bad value for {arg}: {value:?} is empty; there is nothing to paste"
                                    ));
                                }
                                text => json!(text),
                            },
                            kind => checked(&arg, kind, value)?,
                        },
                    },
                };
                if arg == "--name" {
                    let name = value.as_str().unwrap_or_default();
                    termloom::server::check_session_name(name)
                        .map_err(|why| format!("bad value for --name: {why}"))?;
                }
                arguments.insert(flag.arg.into(), value);
            }
            None if arg.starts_with('-') && arg.len() > 1 => {
                if command.name == "screen" && arg == "--view" {
                    return Err("`termloom screen` shows the screen and takes no --view; for \
                        another view, use `termloom read ID --view new|screen|scrollback`"
                        .into());
                }
                let after: Vec<String> = rest.collect();
                return Err(unknown_flag(command, &arg, &positional, &after));
            }
            None if command.name == "start" => {
                // `termloom start vim notes.txt`: the program and its arguments, all of them
                // (`termloom start python3 x --json` passes `--json` to python3).
                let mut program = vec![arg];
                program.extend(rest.by_ref());
                argv = Some(program);
                break;
            }
            None => positional.push(arg),
        }
    }
    if help {
        return Ok(Parsed::Help);
    }
    target.checked()?;
    if positional.len() != command.positional.len() {
        return Err(wrong_positionals(command, &positional));
    }
    let lookups: Vec<&str> =
        LOOKUP.iter().filter(|f| arguments.contains_key(f.arg)).map(|f| f.name).collect();
    if lookups.len() > 1 {
        let all: Vec<&str> = LOOKUP.iter().map(|f| f.name).collect();
        return Err(format!(
            "give one of {} at a time, not {}",
            all.join(", "),
            lookups.join(" and ")
        ));
    }
    if let ([lookup], true) = (lookups.as_slice(), arguments.contains_key("view")) {
        return Err(format!(
            "{lookup} is a look-up of its own and shows no view; leave out --view"
        ));
    }
    // What the tool would refuse whatever the session: a malformed command line (exit 2).
    if command.name == "send"
        && !["text", "keys", "paste", "submit"].iter().any(|arg| arguments.contains_key(*arg))
    {
        return Err("`termloom send` needs something to send: --text, --keys, --paste, \
            --paste-file or --submit (to wait or read without typing, use `termloom wait` or \
            `termloom read`)"
            .into());
    }
    if arguments.contains_key("screen_row")
        && !arguments.contains_key("for_screen_text")
        && !arguments.contains_key("for_screen_regex")
    {
        return Err("--wait-row limits --wait-screen or --wait-screen-regex to one row: give \
            one of them too"
            .into());
    }
    for (name, value) in command.positional.iter().zip(positional) {
        match *name {
            "ID" => arguments.insert("session_id".into(), session_ref(&value)?),
            "CMD" if value.trim().is_empty() => {
                return Err("CMD is empty; give the command line to run".into());
            }
            // Its line break would be Enter: what comes after it a second command, typed
            // while the first runs.
            "CMD" if value.contains(['\n', '\r']) => {
                return Err("CMD must be one line; join commands with ; or &&, or write a \
                    script and run it"
                    .into());
            }
            // The line is typed into the shell, whose line editor would take a tab (its
            // completion), an Escape or a Ctrl-C as a key: refused before anything is sent,
            // as any malformed value is (the server refused it only once connected, exit 1).
            "CMD" if value.contains(char::is_control) => {
                return Err(control_in_command(&value));
            }
            "CMD" => arguments.insert("command".into(), json!(value)),
            "SIGNAL" => {
                value.parse::<termloom::Signal>().map_err(|err| {
                    format!(
                        "bad value for SIGNAL: {}",
                        super::super::values::single_line(&err.to_string())
                    )
                })?;
                arguments.insert("signal".into(), json!(value))
            }
            _ => {
                let (cols, rows) = size("COLSxROWS", &value)?;
                arguments.insert("cols".into(), cols.into());
                arguments.insert("rows".into(), rows.into())
            }
        };
    }
    if let Some(argv) = argv.filter(|argv| !argv.is_empty()) {
        arguments.insert("argv".into(), json!(argv));
    }
    // What `terminal_start` refuses whatever the server: a malformed command line (exit 2).
    if arguments.contains_key("command") && arguments.contains_key("argv") {
        return Err("give --command LINE or PROGRAM ARGS, not both".into());
    }
    if arguments.contains_key("command") && arguments.contains_key("shell_integration") {
        return Err("--shell-integration needs an interactive shell, not a command line run by \
            one: leave out --command (a shell starts), or give the shell as PROGRAM \
            (`-- bash` or `-- zsh`)"
            .into());
    }
    if !env.is_empty() {
        arguments.insert("env".into(), Value::Object(env));
    }
    if command.name == "start" {
        // The session starts where the command was given, as `termloom run`'s does, not in
        // the server's directory (a server outlives the command that started it).
        let cwd = arguments.get("cwd").and_then(Value::as_str).map(std::path::PathBuf::from);
        let absolute = match cwd {
            Some(cwd) if cwd.is_absolute() => None,
            Some(cwd) => Some(
                std::path::absolute(&cwd).map_err(|e| format!("--cwd {:?}: {e}", cwd.display()))?,
            ),
            None => std::env::current_dir().ok(),
        };
        // A directory whose path is no UTF-8 cannot be sent: the server's is used then.
        if let Some(dir) = absolute.as_deref().and_then(std::path::Path::to_str) {
            arguments.insert("cwd".into(), json!(dir));
        }
    }
    if command.name == "screen" {
        arguments.insert("view".into(), json!("screen"));
    }
    // `read` waits only for a condition given: a --timeout alone would bound nothing.
    if command.name == "read" && arguments.contains_key("timeout_ms") && !asks_to_wait(&arguments) {
        return Err("--timeout bounds a wait: give a condition such as --wait-text or \
            --wait-exit too (`termloom read` without one reads at once)"
            .into());
    }
    // `wait` without a condition would only read: say so (`read` does that).
    if command.name == "wait" && !asks_to_wait(&arguments) {
        return Err(
            "`termloom wait` needs a condition such as --wait-text or --wait-exit; to read without waiting, use `termloom read`".into(),
        );
    }
    Ok(Parsed::Run(Request { target, client, reach, json, arguments }))
}

/// Why CMD, which holds a control character, is refused: which one, and how to write it
/// for the session's shell to expand (a `$'\t'` in the caller's shell gave it the character).
fn control_in_command(command: &str) -> String {
    let control = command.chars().find(|c| c.is_control()).unwrap_or_default();
    let named = match control {
        '\t' => " (a tab)".to_owned(),
        '\x1b' => " (an Escape)".to_owned(),
        c if u32::from(c) < 0x20 => format!(" (Ctrl-{})", char::from(b'@' + c as u8)),
        _ => String::new(),
    };
    format!(
        "bad value for CMD: it holds the control character U+{:04X}{named}, which the session's \
        shell would take as a key, since the line is typed into it; write it for that shell to \
        expand, as text (termloom exec ID \"echo a\\$'\\\\t'b\" gives it the characters $'\\t'), or \
        type it with termloom send ID --keys; nothing was sent",
        u32::from(control)
    )
}

/// Whether the command line asks for `--json`, read as [`parse`] reads it (a flag's value, a
/// word after `--` or after the program's first word is no option), but without checking
/// anything: a command line [`parse`] refuses reports that with `--json` too.
pub(super) fn asks_for_json(command: &CommandDef, args: &[String]) -> bool {
    scan_options(command, args).1
}

/// Where the options of `args` end, read as [`parse`] reads them: at `--`, at `start`'s
/// program's first word (the rest is the program's), or at the end.
pub(super) fn options_end(command: &CommandDef, args: &[String]) -> usize {
    scan_options(command, args).0
}

/// Where the options of `args` end ([`options_end`]) and whether they hold `--json`, a
/// flag's value skipped.
fn scan_options(command: &CommandDef, args: &[String]) -> (usize, bool) {
    let mut json = false;
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        match arg.as_str() {
            "--" => return (at, json),
            "--json" => json = true,
            "-L" | "--socket" | "--client" => at += 1,
            "--size" | "--env" if command.name == "start" => at += 1,
            flag if flag.starts_with('-') => {
                let mut flags = command.flags.iter().flat_map(|group| group.iter());
                if flags.any(|f| f.name == flag && !matches!(f.kind, Kind::Switch)) {
                    at += 1;
                }
            }
            // The program's first word: the rest is the program's.
            _ if command.name == "start" => return (at, json),
            _ => {}
        }
        at += 1;
    }
    (args.len(), json)
}

/// `word` as a shell reads it back: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
pub(in crate::bin_cli) fn shell_quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `text` with the options naming the server and client the command was given (`reach`)
/// added to every `termloom COMMAND` it advises (not to `termloom read:` where a message
/// names its command), so that the advice reaches the same server as the client it was given
/// to.
pub(in crate::bin_cli) fn with_reach(text: &str, reach: &[String]) -> String {
    use std::sync::LazyLock;
    static ADVICE: LazyLock<regex::Regex> = LazyLock::new(|| {
        let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
        regex::Regex::new(&format!(r"\btermloom ({}|kill-server|attach)([ `]|$)", names.join("|")))
            .expect("a valid regex")
    });
    if reach.is_empty() {
        return text.to_owned();
    }
    let options = reach.join(" ");
    // `attach` has no read positions, so no `--client`.
    let servers: Vec<&str> =
        reach.iter().map(String::as_str).filter(|o| !o.starts_with("--client ")).collect();
    let advice = |found: &regex::Captures| match &found[1] {
        "attach" if servers.is_empty() => found[0].to_owned(),
        "attach" => format!("termloom attach {}{}", servers.join(" "), &found[2]),
        command => format!("termloom {command} {options}{}", &found[2]),
    };
    ADVICE.replace_all(text, advice).into_owned()
}

/// Whether the arguments name a wait condition (not only its `--timeout`).
fn asks_to_wait(arguments: &Map<String, Value>) -> bool {
    WAIT.iter().any(|flag| flag.name != "--timeout" && arguments.contains_key(flag.arg))
}

/// Most bytes `--paste-file` reads: what a server takes in one message, whose other fields
/// and escapes leave it a little less (the server says so past that).
const MAX_FILE_BYTES: u64 = termloom::mcp::DEFAULT_MAX_MESSAGE_BYTES as u64;

/// The contents of file `path` (stdin for `-`) for flag `flag`, as text.
fn read_file(flag: &str, path: &str) -> Result<String, String> {
    use std::io::Read;
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("{flag} {path:?}: {e}"))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{flag} {path:?}: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{flag} {path:?}: more than {MAX_FILE_BYTES} bytes, which no request to the server can hold; send it in parts"
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{flag} {path:?}: not UTF-8 text"))
}

/// Flag `flag`'s `value` of kind `kind` as the tool's argument, checked as the tool would
/// check it, so that a malformed value or one out of its range is a usage error (exit 2) with
/// the range it must be in, whichever the value: `bad value for --timeout: "0" is not a whole
/// number from 1 to 3600000`. Only what depends on a session (a row off its screen) is left
/// to the server.
pub(super) fn checked(flag: &str, kind: Kind, value: String) -> Result<Value, String> {
    let bad = |why: String| format!("bad value for {flag}: {why}");
    match kind {
        Kind::Number(min, max) if super::milliseconds::in_milliseconds(flag) => {
            super::super::values::milliseconds(&value, min, max).map(|n| json!(n)).map_err(bad)
        }
        Kind::Number(min, max) => {
            super::super::values::whole_number(&value, min, max).map(|n| json!(n)).map_err(bad)
        }
        Kind::Choice(words) if words.contains(&value.as_str()) => Ok(json!(value)),
        Kind::Choice(words) => Err(bad(format!("{value:?} is not one of {}", words.join(", ")))),
        Kind::Regex => match termloom::Until::regex(&value) {
            Ok(_) => Ok(json!(value)),
            Err(err) => Err(bad(super::super::values::single_line(&err.to_string()))),
        },
        Kind::Search => match termloom::tools::check_search(&value) {
            Ok(()) => Ok(json!(value)),
            Err(why) => Err(bad(super::super::values::single_line(&why))),
        },
        Kind::Keys => match termloom::parse_key_script(&value) {
            Ok(_) => super::super::values::bare_key_names(&value, "--text")
                .map(|()| json!(value))
                .map_err(bad),
            Err(err) => Err(bad(super::super::values::single_line(&err.to_string()))),
        },
        Kind::Cursor => {
            let below =
                |text: &str, bound: u16| text.trim().parse::<u16>().is_ok_and(|n| n < bound);
            let numbers = value.split_once(',').filter(|(row, col)| {
                below(row, termloom::MAX_ROWS) && below(col, termloom::MAX_COLS)
            });
            match numbers {
                Some(_) => Ok(json!(value)),
                None => Err(bad(format!(
                    "{value:?} is not ROW,COL, a row from 0 to {} and a column from 0 to {}, such as 0,5",
                    termloom::MAX_ROWS - 1,
                    termloom::MAX_COLS - 1
                ))),
            }
        }
        // One line by its number (`--lines 7`), which the tool takes as that line alone.
        Kind::Lines if value.parse::<u64>().is_ok() => Ok(json!(value)),
        Kind::Lines => {
            let numbers = value.split_once('-').filter(|(first, last)| {
                first.parse::<u64>().is_ok_and(|first| {
                    last.is_empty() || last.parse::<u64>().is_ok_and(|last| last >= first)
                })
            });
            match numbers {
                Some(_) => Ok(json!(value)),
                None => Err(bad(format!(
                    "{value:?} is not FIRST-LAST with FIRST <= LAST, FIRST- or one line's N (transcript line numbers), such as 120-160"
                ))),
            }
        }
        Kind::Text | Kind::Literal | Kind::Switch | Kind::File => Ok(json!(value)),
    }
}

/// An id as a number, a name as a string; a word that is neither (`a b`, `é`) is a malformed
/// command line, refused as `--name` refuses it, before anything is sent.
fn session_ref(value: &str) -> Result<Value, String> {
    match value.parse::<u64>() {
        Ok(0) => return Err("bad value for ID: session ids start at 1, not 0".into()),
        Ok(id) => return Ok(json!(id)),
        Err(_) => {}
    }
    termloom::server::check_session_name(value)
        .map_err(|why| format!("bad value for ID: {why}"))?;
    Ok(json!(value))
}

/// `COLSxROWS`, within the sizes a terminal may have.
pub(super) fn size(flag: &str, value: &str) -> Result<(u16, u16), String> {
    super::super::values::size(value)
        .map(|size| (size.cols, size.rows))
        .map_err(|why| format!("bad value for {flag}: {why}"))
}
