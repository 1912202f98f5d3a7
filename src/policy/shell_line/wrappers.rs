//! Wrappers (`sudo`, `env`, `exec`, `xargs`, `nice`...): their options, the program and the
//! lines they run, as [`super::Reader`] unwraps them.

use super::*;

/// A program that runs another named among its arguments, and its options that take a value.
pub(super) struct Wrapper {
    pub(super) name: &'static str,
    /// Short options that take a value, attached (`-uroot`) or as the next word (`-u root`).
    pub(super) short: &'static str,
    /// Short options whose value is optional: only an attached one (`xargs -i{}`).
    pub(super) optional: &'static str,
    /// Long options that take a value (`--user root`, `--user=root`, or a prefix: `--us`).
    pub(super) long: &'static [&'static str],
    /// Words before the program that are not options (`timeout 5`, `su USER`).
    pub(super) positionals: usize,
}

pub(super) const fn wrapper(
    name: &'static str,
    short: &'static str,
    optional: &'static str,
    long: &'static [&'static str],
    positionals: usize,
) -> Wrapper {
    Wrapper { name, short, optional, long, positionals }
}

pub(super) const WRAPPERS: &[Wrapper] = &[
    wrapper(
        "sudo",
        "aCcDgpRrTtUu",
        "h",
        &[
            "auth-type",
            "close-from",
            "chdir",
            "group",
            "prompt",
            "chroot",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "user",
            "login-class",
            "host",
        ],
        0,
    ),
    wrapper("doas", "aCu", "", &[], 0),
    wrapper("env", "aCSu", "", &["argv0", "unset", "chdir", "split-string"], 0),
    wrapper("exec", "a", "", &[], 0),
    wrapper("command", "", "", &[], 0),
    wrapper("builtin", "", "", &[], 0),
    wrapper("nohup", "", "", &[], 0),
    wrapper("nice", "n", "", &["adjustment"], 0),
    wrapper("setsid", "", "", &[], 0),
    wrapper("stdbuf", "ioe", "", &["input", "output", "error"], 0),
    wrapper("timeout", "sk", "", &["signal", "kill-after"], 1),
    wrapper("time", "fo", "", &["format", "output"], 0),
    wrapper(
        "xargs",
        "adEILnPs",
        "eil",
        &["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
        0,
    ),
    SU,
    wrapper("chroot", "", "", &["userspec", "groups"], 1),
    wrapper("ionice", "cnpPu", "", &["class", "classdata", "pid", "pgid", "uid"], 0),
    wrapper("taskset", "", "", &[], 1),
    wrapper(
        "strace",
        "abeEIoOpPsSuUX",
        "",
        &[
            "output",
            "trace",
            "signal",
            "status",
            "trace-path",
            "string-limit",
            "user",
            "env",
            "attach",
            "columns",
            "detach-on",
            "fault",
            "inject",
            "kvm",
            "read",
            "write",
            "summary-sort-by",
            "summary-columns",
        ],
        0,
    ),
    wrapper(
        "ltrace",
        "aADeFlnopsuwxX",
        "",
        &["align", "config", "indent", "library", "output", "where"],
        0,
    ),
    wrapper("unbuffer", "", "", &[], 0),
    wrapper("gdb", "", "", &[], 0),
    wrapper("busybox", "", "", &[], 0),
];

/// The long options of wrappers that take no value (or only an attached `=value`): with
/// [`Wrapper::long`], all the options a prefix (`--log`) may abbreviate. `--help` and
/// `--version` are everyone's.
const FLAGS: &[(&str, &[&str])] = &[
    (
        "sudo",
        &[
            "askpass",
            "background",
            "bell",
            "edit",
            "help",
            "list",
            "login",
            "non-interactive",
            "preserve-env",
            "preserve-groups",
            "remove-timestamp",
            "reset-timestamp",
            "set-home",
            "shell",
            "stdin",
            "validate",
        ],
    ),
    (
        "env",
        &[
            "block-signal",
            "debug",
            "default-signal",
            "ignore-environment",
            "ignore-signal",
            "list-signal-handling",
            "null",
        ],
    ),
    (
        "xargs",
        &[
            "eof",
            "exit",
            "interactive",
            "max-lines",
            "no-run-if-empty",
            "null",
            "open-tty",
            "replace",
            "show-limits",
            "verbose",
        ],
    ),
    ("su", &["fast", "login", "preserve-environment", "pty"]),
    ("timeout", &["foreground", "preserve-status", "verbose"]),
    ("time", &["append", "portability", "quiet", "verbose"]),
    ("chroot", &["skip-chdir"]),
    ("ionice", &["ignore"]),
    ("taskset", &["all-tasks", "cpu-list", "pid"]),
    ("setsid", &["ctty", "fork", "wait"]),
    (
        "strace",
        &[
            "abbrev",
            "absolute-timestamps",
            "const-print-style",
            "daemonize",
            "debug",
            "decode-fds",
            "decode-pids",
            "failed-only",
            "follow-forks",
            "instruction-pointer",
            "interruptible",
            "no-abbrev",
            "output-append-mode",
            "output-separately",
            "quiet",
            "raw",
            "relative-timestamps",
            "seccomp-bpf",
            "stack-traces",
            "strings-in-hex",
            "successful-only",
            "summary",
            "summary-only",
            "summary-syscall-overhead",
            "summary-wall-clock",
            "syscall-number",
            "syscall-times",
            "tips",
            "verbose",
        ],
    ),
];

/// `su`: its `-c`/`--command` is a line to run; words after the user go to its shell.
pub(super) const SU: Wrapper = wrapper(
    "su",
    "cCsgGw",
    "",
    &["command", "session-command", "shell", "group", "supp-group", "whitelist-environment"],
    1,
);

/// Shells whose `-c` (alone or in a cluster: `-ec`) makes their first operand a line to run.
pub(super) const SHELLS: &[&str] =
    &["sh", "bash", "rbash", "zsh", "dash", "ash", "ksh", "mksh", "yash"];

/// `fish`'s options that take a value; `-c`/`--command` and `-C`/`--init-command` are lines.
const FISH: Wrapper = wrapper(
    "fish",
    "cCdof",
    "",
    &["command", "init-command", "debug", "debug-output", "features"],
    0,
);

/// The options of `su` and `fish` whose value is a line to run.
const LINE_OPTIONS: &[&str] = &["c", "C", "command", "session-command", "init-command"];

/// What a wrapper runs.
pub(super) struct Unwrapped {
    /// The program and its arguments.
    pub(super) words: Vec<Word>,
    /// The names the wrapper sets or removes for it (`env A=1`, `env -u A`, `sudo A=1`).
    pub(super) assigns: Vec<String>,
    /// The directory the wrapper changes to first (`env -C DIR`, `sudo -D DIR`).
    pub(super) chdir: Option<Word>,
}

/// The options of wrappers that change directory before running their program.
const CHDIR_OPTIONS: &[(&str, &[&str])] = &[("env", &["C", "chdir"]), ("sudo", &["D", "chdir"])];

/// The program a wrapper runs with its words, and the variables the wrapper sets for it
/// (`env A=1 prog`, `sudo A=1 prog`): `None` when it names none. `env -S LINE` splits `LINE`
/// into words in place, as `env` does; `su -s SHELL` runs `SHELL` with the words after the
/// user. An error says why the program cannot be told: an ambiguous long option, or a
/// program looked up in another root (`chroot DIR`, `sudo -R DIR`).
pub(super) fn unwrap(table: &Wrapper, args: Vec<Word>) -> Result<Option<Unwrapped>, String> {
    if let Some(shell) = (table.name == SU.name).then(|| su_shell(&args)).flatten() {
        return Ok(Some(shell));
    }
    let mut rest: VecDeque<Word> = args.into();
    let mut assigns = Vec::new();
    let mut chdir = None;
    let mut positionals = table.positionals;
    let mut options = true;
    let chdir_options =
        CHDIR_OPTIONS.iter().find(|(n, _)| *n == table.name).map_or(&[][..], |o| o.1);
    while let Some(word) = rest.pop_front() {
        let text = word.text.as_str();
        if options && text == "--" {
            options = false;
        } else if options && text.starts_with('-') {
            let option = option_word(table, text);
            if option.ambiguous {
                return Err(format!("`{text}` is ambiguous among the options of {}", table.name));
            }
            let value = match option.value {
                Some(value) => Some(Word { text: value, ..word.clone() }),
                None if option.takes_next => rest.pop_front(),
                None => None,
            };
            let last = option.names.last().map_or("", String::as_str);
            if chdir_options.contains(&last) {
                chdir = Some(value.clone().unwrap_or_default());
            }
            let value = value.map(|w| w.text);
            if matches!((table.name, last), ("sudo", "R" | "chroot")) {
                return Err(format!("`{text}` makes sudo look its program up in another root"));
            }
            if table.name == "env" && matches!(last, "u" | "unset") {
                assigns.extend(value.clone());
            }
            if table.name == "env" && matches!(last, "S" | "split-string") {
                for word in env_split(&value.unwrap_or_default()).into_iter().rev() {
                    rest.push_front(word);
                }
            }
        } else if let Some(name) = wrapper_assignment(table.name, text) {
            assigns.push(name.to_owned());
        } else if positionals > 0 {
            if table.name == "chroot" && another_root(text) {
                return Err(format!("`chroot {text}` looks its program up in another root"));
            }
            positionals -= 1;
        } else {
            rest.push_front(word);
            return Ok(Some(Unwrapped { words: rest.into(), assigns, chdir }));
        }
    }
    Ok(None)
}

/// The name a `NAME=value` word before the program sets, for the wrappers that take them:
/// `env` sets every word with a `=` (`env X.Y=1 prog`, even `=x`), `sudo` every one that does
/// not start with it; neither asks for a shell variable's name.
fn wrapper_assignment<'a>(wrapper: &str, text: &'a str) -> Option<&'a str> {
    let (name, _) = text.split_once('=')?;
    match wrapper {
        "env" => Some(name),
        "sudo" if !name.is_empty() => Some(name),
        _ => None,
    }
}

/// Whether `dir`, a new root, may be another directory than `/`.
fn another_root(dir: &str) -> bool {
    !dir.is_empty() && dir.trim_start_matches('/').split('/').any(|c| !c.is_empty() && c != ".")
}

/// The string `xargs` replaces with its input (`-I R`, `-i`, `--replace`: `{}`), or empty
/// when it appends its input as arguments.
pub(super) fn xargs_replace(table: &Wrapper, args: &[Word]) -> String {
    let mut replace = String::new();
    for (option, value) in leading_options(table, args) {
        match option.names.last().map(String::as_str) {
            Some("I") => replace = value.unwrap_or_default(),
            Some("i" | "replace") => replace = value.unwrap_or_else(|| "{}".to_owned()),
            _ => {}
        }
    }
    replace
}

/// Why what `xargs` runs (`program` with `args`) depends on its input, when it does: its
/// `-I` string (`replace`) in the program's name or in a shell's `-c` line, or a shell's
/// `-c` without a line (xargs appends one).
pub(super) fn fed_from_input(replace: &str, program: &Word, args: &[Word]) -> Option<&'static str> {
    let has = |text: &str| !replace.is_empty() && text.contains(replace);
    if has(&program.text) {
        return Some("xargs puts its input in the name of the program it runs");
    }
    if !SHELLS.contains(&basename(&program.text)) {
        return None;
    }
    let options = args.iter().take_while(|w| w.text.starts_with(['-', '+']) && w.text != "--");
    let reads_line = options.clone().any(|w| w.text.starts_with('-') && w.text.contains('c'));
    match dash_c_line(args) {
        Some(line) if has(&line) => Some("xargs puts its input in the line a shell runs"),
        None if reads_line => Some("xargs gives a shell's `-c` its line from its input"),
        _ => None,
    }
}

/// The words after a program that are its arguments: redirections and their targets left
/// out.
pub(super) fn without_redirections(words: &[Word]) -> Vec<Word> {
    let mut operands = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        if !word.quoted && is_redirection(&word.text) {
            words.next();
        } else {
            operands.push(word.clone());
        }
    }
    operands
}

/// What one option word (`-abc`, `-uroot`, `--name`, `--name=value`, `-` alone) says, read
/// against a program's options.
pub(super) struct OptionWord {
    /// The options it names, in order: letters, or a long option's full name.
    pub(super) names: Vec<String>,
    /// A long option's prefix that more than one of the program's options start with
    /// (the program refuses it; what it would have meant cannot be told).
    pub(super) ambiguous: bool,
    /// The value given in the word itself.
    pub(super) value: Option<String>,
    /// Whether the last option takes the next word as its value.
    pub(super) takes_next: bool,
}

/// The options at the start of a wrapper's arguments (up to the first word that is not one,
/// or `--`), each with its value: given in the word, or the next word when it takes one.
pub(super) fn leading_options<'a>(
    table: &'a Wrapper,
    args: &'a [Word],
) -> impl Iterator<Item = (OptionWord, Option<String>)> + 'a {
    let mut words = args.iter().map(|w| w.text.as_str());
    std::iter::from_fn(move || {
        let text = words.next().filter(|t| t.starts_with('-') && *t != "--")?;
        let option = option_word(table, text);
        let value = match &option.value {
            Some(value) => Some(value.clone()),
            None if option.takes_next => words.next().map(str::to_owned),
            None => None,
        };
        Some((option, value))
    })
}

fn option_word(table: &Wrapper, text: &str) -> OptionWord {
    if let Some(long) = text.strip_prefix("--") {
        let (name, value) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (long, None),
        };
        let flags = FLAGS.iter().find(|(n, _)| *n == table.name).map_or(&[][..], |(_, f)| f);
        let all = || table.long.iter().chain(flags).chain(&["help", "version"]).copied();
        let exact = all().find(|l| *l == name);
        let mut prefixed = all().filter(|l| l.starts_with(name));
        let (first, second) = (prefixed.next(), prefixed.next());
        let known = exact.or(first.filter(|_| second.is_none()));
        let ambiguous = exact.is_none() && second.is_some();
        let takes_next =
            value.is_none() && known.is_some_and(|k| table.long.contains(&k)) && !name.is_empty();
        let names = vec![known.unwrap_or(name).to_owned()];
        return OptionWord { names, ambiguous, value, takes_next };
    }
    let mut names = Vec::new();
    for (i, c) in text.char_indices().skip(1) {
        names.push(c.to_string());
        if table.short.contains(c) || table.optional.contains(c) {
            let rest = &text[i + c.len_utf8()..];
            let value = (!rest.is_empty()).then(|| rest.to_owned());
            let takes_next = value.is_none() && table.short.contains(c);
            return OptionWord { names, ambiguous: false, value, takes_next };
        }
    }
    OptionWord { names, ambiguous: false, value: None, takes_next: false }
}

/// The lines a shell runs given `args`: the operand after a `-c` (`sh -c LINE`, `bash -ec --
/// LINE`), or for `su` and `fish` the values of their `-c`/`--command`-like options; the
/// line `trap LINE SIGNAL…` sets (read here as if run).
pub(super) fn shell_lines(program: &str, args: &[Word]) -> Vec<String> {
    match program {
        "trap" => {
            let operands = args.iter().skip_while(|w| w.text.starts_with('-'));
            let operands: Vec<&Word> = operands.collect();
            match operands.as_slice() {
                [line, _, ..] if line.text != "-" => vec![line.text.clone()],
                _ => Vec::new(),
            }
        }
        "su" => option_lines(&SU, args),
        "fish" => option_lines(&FISH, args),
        _ if SHELLS.contains(&program) => dash_c_line(args).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The operand a shell's `-c` makes a line: its options come first (clusters such as `-ec`,
/// `-o NAME`, `-O NAME`, `--rcfile FILE`), ended by `--`, `-` or the first operand.
fn dash_c_line(args: &[Word]) -> Option<String> {
    let mut reads_line = false;
    let mut at = 0;
    while let Some(text) = args.get(at).map(|w| w.text.as_str()) {
        if text == "--" || text == "-" {
            at += 1;
            break;
        }
        if text == "--rcfile" || text == "--init-file" {
            at += 1;
        } else if text.starts_with("--") {
        } else if text.len() > 1 && (text.starts_with('-') || text.starts_with('+')) {
            reads_line |= text.starts_with('-') && text.contains('c');
            at += text.matches(['o', 'O']).count();
        } else {
            break;
        }
        at += 1;
    }
    args.get(at).filter(|_| reads_line).map(|w| w.text.clone())
}

/// The values of `su`'s or `fish`'s line options, wherever they are among `args`; for `su`,
/// also the `-c LINE` of the words it gives the user's shell (`su root -- -c LINE`).
fn option_lines(table: &Wrapper, args: &[Word]) -> Vec<String> {
    let read = read_options(table, args);
    let values = read.values.into_iter();
    let mut lines: Vec<String> = values
        .filter(|(name, _)| LINE_OPTIONS.contains(&name.as_str()))
        .map(|(_, value)| value.text)
        .collect();
    if table.name == SU.name {
        lines.extend(read.operands.get(1..).and_then(dash_c_line));
    }
    lines
}

/// What `su -s SHELL` (or `--shell`) runs: that shell, with the words after the user (`su -s
/// /bin/prog root ARG` runs `/bin/prog ARG`); `None` when no shell is named.
fn su_shell(args: &[Word]) -> Option<Unwrapped> {
    let read = read_options(&SU, args);
    let shell =
        read.values.into_iter().rev().find(|(name, _)| matches!(name.as_str(), "s" | "shell"));
    let mut words = vec![shell?.1];
    words.extend(read.operands.into_iter().skip(1));
    Some(Unwrapped { words, assigns: Vec::new(), chdir: None })
}

/// The options of a program that takes them anywhere among its words (as `getopt` permutes
/// them), read against `table`: each option that has a value, by its last name, and the
/// operands.
struct Options {
    pub(super) values: Vec<(String, Word)>,
    pub(super) operands: Vec<Word>,
}

fn read_options(table: &Wrapper, args: &[Word]) -> Options {
    let mut values = Vec::new();
    let mut operands = Vec::new();
    let mut options = true;
    let mut at = 0;
    while let Some(word) = args.get(at) {
        let text = word.text.as_str();
        at += 1;
        if options && text == "--" {
            options = false;
            continue;
        }
        if text == "-" && options {
            continue;
        }
        if !options || !text.starts_with('-') {
            operands.push(word.clone());
            continue;
        }
        let option = option_word(table, text);
        let value = match option.value {
            Some(value) => Some(Word { text: value, ..word.clone() }),
            None if option.takes_next => {
                at += 1;
                args.get(at - 1).cloned()
            }
            None => None,
        };
        if let (Some(name), Some(value)) = (option.names.last(), value) {
            values.push((name.clone(), value));
        }
    }
    Options { values, operands }
}
