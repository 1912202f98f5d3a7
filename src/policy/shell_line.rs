//! The simple commands of a shell command line, as far as a policy can see them without
//! running anything: the words of each command in a list, pipeline, subshell, group, command
//! or process substitution and here-document, the variables set for them (by assignments
//! before them, and by assignments or `export` earlier in the line), the programs wrappers
//! such as `sudo`, `env` or `exec` run, and the lines shells run (`sh -c LINE`, `su -c LINE`,
//! `env -S LINE`).
//!
//! Where the line holds something this reading cannot follow for certain it says why
//! ([`Reading::doubt`]), and the policy gives such a line its strictest decision: a program
//! named by an expansion (`$CMD`, `$(…)`, `` `…` ``, a glob or brace expansion), a `case`
//! inside a substitution, a relative program path after `cd` (or `env -C`, `sudo -D`), a
//! program looked up in another root (`chroot DIR`, `sudo -R`), gdb's options that run
//! commands, a `$(…)` in an array subscript a builtin evaluates, `declare -n`, `hash -p`,
//! `enable -f`, `mapfile -C`, `BASH_CMDS[…]=`, a variable named by an expansion, a
//! here-document with a substituted delimiter or begun inside `$(…)`, an ambiguous wrapper
//! option, a line another shell than bash runs that is not plain, substitutions nested
//! deeper than [`MAX_DEPTH`], more than [`MAX_COMMANDS`] commands or [`MAX_NAMES`]
//! variables. Arithmetic, `${…}`, `case` patterns and array elements are looked into only
//! for the substitutions they hold.
//!
//! What this cannot see, and a policy therefore cannot rule on: what `eval`, `source` or `.`
//! run, the contents of scripts, aliases and shell functions, what a shell reads from its
//! input, and whatever a program starts in turn.

use std::collections::{HashSet, VecDeque};

/// One simple command of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The program word, as written (quotes removed).
    pub program: String,
    /// The words after it.
    pub args: Vec<String>,
    /// The names set for it alone: by its leading assignments (`LD_PRELOAD=x ls` sets
    /// `LD_PRELOAD`), a wrapper's (`env PATH=x ls`), or itself (`export PATH=x`).
    pub assigns: Vec<String>,
    /// How many of the line's [`Reading::line_assigns`] are set before it runs.
    pub set_before: usize,
}

/// What a line shows.
#[derive(Debug)]
pub(crate) struct Reading {
    /// Its simple commands, in order (at most [`MAX_COMMANDS`]).
    pub commands: Vec<SimpleCommand>,
    /// The variables the line sets for the commands after the one that sets them (`PATH=x;`,
    /// `export PATH=x`, `read PATH`), each once, in the order first set (at most
    /// [`MAX_NAMES`]). One list for the whole line: a command holds only its length then.
    pub line_assigns: Vec<String>,
    /// The directories the line changes to (`cd DIR`, `env -C DIR`), as written, in order;
    /// `None` when it changes to one it cannot tell (`cd "$X"`, `cd -`, `popd`).
    pub dirs: Option<Vec<String>>,
    /// Why part of the line cannot be read with certainty, when it cannot.
    pub doubt: Option<String>,
}

impl Reading {
    /// This reading followed by `other` (a line typed into the shell this one starts).
    pub(crate) fn and(mut self, other: Reading) -> Reading {
        let before = self.line_assigns.len();
        let later = other
            .commands
            .into_iter()
            .map(|c| SimpleCommand { set_before: c.set_before + before, ..c });
        self.commands.extend(later);
        self.line_assigns.extend(other.line_assigns);
        self.dirs = self.dirs.zip(other.dirs).map(|(mut dirs, more)| {
            dirs.extend(more);
            dirs
        });
        Reading { doubt: self.doubt.or(other.doubt), ..self }
    }
}

/// Words that only introduce or end a compound command: the command is the next word.
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "in", "esac",
];

/// Words that start a compound command (after `coproc NAME`).
const COMPOUND: &[&str] = &["{", "if", "while", "until", "for", "case", "select"];

/// A program that runs another named among its arguments, and its options that take a value.
struct Wrapper {
    name: &'static str,
    /// Short options that take a value, attached (`-uroot`) or as the next word (`-u root`).
    short: &'static str,
    /// Short options whose value is optional: only an attached one (`xargs -i{}`).
    optional: &'static str,
    /// Long options that take a value (`--user root`, `--user=root`, or a prefix: `--us`).
    long: &'static [&'static str],
    /// Words before the program that are not options (`timeout 5`, `su USER`).
    positionals: usize,
}

const fn wrapper(
    name: &'static str,
    short: &'static str,
    optional: &'static str,
    long: &'static [&'static str],
    positionals: usize,
) -> Wrapper {
    Wrapper { name, short, optional, long, positionals }
}

const WRAPPERS: &[Wrapper] = &[
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
const SU: Wrapper = wrapper(
    "su",
    "cCsgGw",
    "",
    &["command", "session-command", "shell", "group", "supp-group", "whitelist-environment"],
    1,
);

/// Shells whose `-c` (alone or in a cluster: `-ec`) makes their first operand a line to run.
const SHELLS: &[&str] = &["sh", "bash", "rbash", "zsh", "dash", "ash", "ksh", "mksh", "yash"];

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

/// Deepest nesting of substitutions, `sh -c` lines and wrappers looked into.
const MAX_DEPTH: usize = 16;

/// Most commands reported, so that a hostile line costs work in proportion to its bytes and a
/// bounded result.
const MAX_COMMANDS: usize = 4096;

/// Most variables a line may set for its later commands.
const MAX_NAMES: usize = 1024;

/// What `line` shows.
pub(crate) fn simple_commands(line: &str) -> Reading {
    let mut reader = Reader::default();
    reader.line(line, 0);
    reader.finish()
}

/// What `line` shows when `shell` runs it: as [`simple_commands`] reads it, doubted when the
/// shell reads lines otherwise than bash (zsh's `=prog`, glob qualifiers, `noglob`, fish…)
/// and the line is not [plain](is_plain).
pub(crate) fn commands_run_by(shell: &str, line: &str) -> Reading {
    let mut reading = simple_commands(line);
    if let Some(why) = unlike_bash(shell, line) {
        reading.doubt.get_or_insert(why);
    }
    reading
}

/// Why `shell` may not run `line` as bash reads it, when it may not.
fn unlike_bash(shell: &str, line: &str) -> Option<String> {
    let name = basename(shell);
    let bash_like = matches!(name, "sh" | "bash" | "rbash" | "dash" | "ash");
    (!bash_like && !is_plain(line))
        .then(|| format!("{name} runs it, which does not read lines as bash does"))
}

/// Whether every shell reads `line` alike: one simple command of plain words (letters,
/// digits, `_./:,+@%=-`), none starting with `=`, its program not a word another shell gives
/// a meaning (`-`, `noglob`, `repeat`, `not`, …).
fn is_plain(line: &str) -> bool {
    const OTHERS: &[&str] = &[
        "-",
        "noglob",
        "nocorrect",
        "repeat",
        "foreach",
        "select",
        "coproc",
        "time",
        "function",
        "always",
        "end",
        "not",
        "and",
        "or",
        "begin",
        "switch",
        "if",
        "while",
        "until",
        "for",
        "case",
    ];
    let plain = |c: char| c.is_ascii_alphanumeric() || " \t_./:,+@%=-".contains(c);
    let words: Vec<&str> = line.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let program = words.iter().find(|w| assignment_name(w).is_none());
    line.chars().all(plain)
        && !words.iter().any(|w| w.starts_with('='))
        && !program.is_some_and(|p| OTHERS.contains(p))
}

/// The commands an argv runs: the program, the programs of wrappers (`sudo rm`), and the
/// commands of a `-c LINE` given to a shell.
pub(crate) fn argv_commands(words: Vec<String>) -> Reading {
    let mut reader = Reader::default();
    let words: Vec<Word> = words.into_iter().map(Word::literal).collect();
    let mut lines = Vec::new();
    if let Some((program, args)) = words.split_first() {
        reader.run(program.clone(), args.to_vec(), Vec::new(), &mut lines);
    }
    for line in lines {
        reader.line(&line, 1);
    }
    reader.finish()
}

/// What has been read so far of a line, and what its earlier commands changed.
struct Reader {
    commands: Vec<SimpleCommand>,
    /// Variables set for the rest of the line (`PATH=x;`, `export PATH=x`, `read PATH`), each
    /// once, in the order first set.
    line_assigns: Vec<String>,
    /// The names in `line_assigns`.
    known: HashSet<String>,
    /// Whether an earlier command changes directory (`cd`, `pushd`, `popd`, `env -C`).
    moved: bool,
    /// The directories the line changes to, in order; `None` once one cannot be told.
    dirs: Option<Vec<String>>,
    /// Whether bash's `cdable_vars` may be on (`shopt -s cdable_vars`, `bash -O
    /// cdable_vars`): `cd NAME` then goes to the directory in the variable `NAME` when there
    /// is no directory `NAME`.
    cdable: bool,
    doubt: Option<String>,
}

impl Default for Reader {
    fn default() -> Self {
        Reader {
            commands: Vec::new(),
            line_assigns: Vec::new(),
            known: HashSet::new(),
            moved: false,
            dirs: Some(Vec::new()),
            cdable: false,
            doubt: None,
        }
    }
}

impl Reader {
    fn finish(self) -> Reading {
        let Reader { commands, line_assigns, dirs, doubt, .. } = self;
        Reading { commands, line_assigns, dirs, doubt }
    }

    /// Notes that the line changes directory, to `dir` (`None`: where it cannot tell).
    fn moved_to(&mut self, dir: Option<&Word>) {
        self.moved = true;
        let cdable = self.cdable;
        // Under `cdable_vars`, `cd NAME` may go where the variable NAME says.
        let dir = dir.filter(|d| !d.expands && !d.text.is_empty());
        let dir = dir.filter(|d| !cdable || !is_name(&d.text));
        match (dir, &mut self.dirs) {
            // Past as many as commands are kept, the line is doubted anyway.
            (Some(dir), Some(dirs)) if dirs.len() < MAX_COMMANDS => dirs.push(dir.text.clone()),
            _ => self.dirs = None,
        }
    }

    /// Notes variables set for the rest of the line; past [`MAX_NAMES`] of them the line is
    /// doubted.
    fn set_for_rest(&mut self, names: impl IntoIterator<Item = String>) {
        for name in names {
            self.check_name(&name);
            if self.known.contains(&name) {
                continue;
            }
            if self.known.len() >= MAX_NAMES {
                return self.doubt(format!("it sets more than {MAX_NAMES} variables"));
            }
            self.known.insert(name.clone());
            self.line_assigns.push(name);
        }
    }

    /// Notes why the line cannot be read with certainty (the first reason is kept).
    fn doubt(&mut self, why: String) {
        self.doubt.get_or_insert(why);
    }

    /// Reads a line `depth` substitutions or shell lines deep.
    fn line(&mut self, line: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return self.doubt(format!("substitutions nest more than {MAX_DEPTH} deep"));
        }
        let chars: Vec<char> = line.chars().collect();
        let mut lexer = Lexer::new(&chars, depth);
        let mut words = Vec::new();
        let mut lines = Vec::new();
        // The `case` commands open here, innermost last, and where in each the reading is.
        let mut cases: Vec<CasePart> = Vec::new();
        // Inside `[[ … ]]`: `(`, `)`, `&&`, `||` and newlines are part of the condition.
        let mut condition = false;
        loop {
            let token = lexer.next_token();
            let keyword = match &token {
                Token::Word(w) if !w.quoted && starts_command(&words) => Some(w.text.clone()),
                _ => None,
            };
            if condition {
                match token {
                    Token::Word(word) => {
                        condition = word.quoted || word.text != "]]";
                        words.push(word);
                    }
                    Token::End => {
                        self.doubt("a `[[` is not closed".to_owned());
                        break;
                    }
                    _ => {}
                }
                continue;
            }
            let part = cases.last().copied();
            let mut next = |part: CasePart| cases.last_mut().map(|last| *last = part);
            match (part, token) {
                (_, Token::End) => break,
                // `case WORD in`: the word is matched, not run.
                (Some(CasePart::Subject), Token::Word(_)) => _ = next(CasePart::In),
                (Some(CasePart::In), Token::Word(_)) => _ = next(CasePart::Patterns),
                (Some(CasePart::Subject | CasePart::In), _) => {}
                // `esac` ends the `case` where a pattern or a command may start.
                (Some(CasePart::Patterns), Token::Word(w))
                | (Some(CasePart::Body), Token::Word(w))
                    if !w.quoted
                        && w.text == "esac"
                        && (part == Some(CasePart::Patterns) || keyword.is_some()) =>
                {
                    self.command(std::mem::take(&mut words), &mut lines);
                    cases.pop();
                }
                // `(a|b)`: patterns, not commands.
                (Some(CasePart::Patterns), Token::Close) => _ = next(CasePart::Body),
                (Some(CasePart::Patterns), _) => {}
                (Some(CasePart::Body), Token::CaseEnd) => {
                    self.command(std::mem::take(&mut words), &mut lines);
                    _ = next(CasePart::Patterns);
                }
                (_, Token::Word(word)) => {
                    match keyword.as_deref() {
                        Some("case") => cases.push(CasePart::Subject),
                        Some("[[") => condition = true,
                        _ => {}
                    }
                    if keyword.as_deref() == Some("case") {
                        self.command(std::mem::take(&mut words), &mut lines);
                    } else {
                        words.push(word);
                    }
                }
                (_, Token::Separator(_) | Token::CaseEnd | Token::Open | Token::Close) => {
                    self.command(std::mem::take(&mut words), &mut lines)
                }
            }
        }
        self.command(words, &mut lines);
        if let Some(why) = lexer.doubt.take() {
            self.doubt(why);
        }
        for inner in lexer.nested.into_iter().chain(lines) {
            self.line(&inner, depth + 1);
        }
    }

    /// Reads the command `words` make: skips keywords and redirections, notes assignments,
    /// and adds its program; `lines` gets the lines it gives a shell. (`case` and `[[` are
    /// read by [`Reader::line`].)
    fn command(&mut self, words: Vec<Word>, lines: &mut Vec<String>) {
        let mut assigns = Vec::new();
        let mut at = 0;
        while let Some(word) = words.get(at) {
            let keyword = (!word.quoted).then_some(word.text.as_str());
            at += 1;
            match keyword {
                // `for NAME in WORDS`, `select NAME in`: set NAME, run nothing; `for NAME do
                // LIST`: the list runs.
                Some("for" | "select") => {
                    self.set_for_rest(words.get(at).map(|w| w.text.clone()));
                    at += 1;
                    if !words.get(at).is_some_and(|w| !w.quoted && w.text == "do") {
                        return;
                    }
                }
                Some("case") => return,
                Some("function") => at += 1,
                Some("coproc") => {
                    let named = words.get(at + 1).is_some_and(|w| COMPOUND.contains(&&*w.text));
                    at += usize::from(named);
                }
                Some("time") => {
                    while words.get(at).is_some_and(|w| w.text == "-p" || w.text == "--") {
                        at += 1;
                    }
                }
                Some(k) if KEYWORDS.contains(&k) => {}
                // A redirection operator: its target is the next word.
                Some(op) if is_redirection(op) => at += 1,
                _ => match assignment_name(&word.text) {
                    Some(name) => {
                        // A variable declared `-i` (here, or in a profile) evaluates its value.
                        let value = word.text.split_once('=').map_or("", |(_, value)| value);
                        if runs_in_subscript(value) {
                            self.doubt(format!("the value assigned to {name} may be evaluated, running the substitution in its subscript"));
                        }
                        assigns.push(name.to_owned());
                    }
                    None => {
                        let args = words[at..].to_vec();
                        return self.run(word.clone(), args, assigns, lines);
                    }
                },
            }
        }
        // Assignments alone set their variables for the rest of the line.
        self.set_for_rest(assigns);
    }

    /// Adds `program` run with `args` and `assigns`, then the program a wrapper among them
    /// runs, and so on (at most [`MAX_DEPTH`] wrappers deep); `lines` gets the lines they give
    /// a shell.
    fn run(
        &mut self,
        mut program: Word,
        mut args: Vec<Word>,
        mut assigns: Vec<String>,
        lines: &mut Vec<String>,
    ) {
        // Under `xargs`, what it puts from its input into the words after it: its `-I`
        // string, or empty (its input is appended as arguments).
        let mut fed: Option<String> = None;
        for _ in 0..MAX_DEPTH {
            let name = basename(&program.text).to_owned();
            self.check_program(&program);
            let operands = without_redirections(&args);
            if let Some(why) = fed.as_deref().and_then(|r| fed_from_input(r, &program, &operands)) {
                self.doubt(why.to_owned());
            }
            if let Some(why) = hidden_effect(&name, &operands) {
                self.doubt(why.to_owned());
            }
            let sets = variables_set(&name, &operands);
            assigns.extend(sets.iter().cloned());
            for assigned in &assigns {
                self.check_name(assigned);
            }
            let set_before = self.line_assigns.len();
            self.set_for_rest(sets);
            // `shopt -s cdable_vars` (or an option named by an expansion), `bash -O
            // cdable_vars`: a later `cd NAME` may go where the variable NAME says.
            let names_cdable = |w: &Word| w.text.contains("cdable_vars");
            if (name == "shopt" && operands.iter().any(|w| w.expands || names_cdable(w)))
                || (SHELLS.contains(&name.as_str()) && operands.iter().any(names_cdable))
            {
                self.cdable = true;
            }
            if matches!(name.as_str(), "cd" | "pushd" | "popd") {
                // `cd` alone, `cd -`, `pushd +1` and `popd` go where the line does not say.
                let dir = operands.iter().find(|w| !(w.text.len() > 1 && w.text.starts_with('-')));
                self.moved_to(dir.filter(|w| name != "popd" && !w.text.starts_with(['-', '+'])));
            }
            for line in shell_lines(&name, &operands) {
                if let Some(why) = unlike_bash(&name, &line).filter(|_| name != SU.name) {
                    self.doubt(why);
                }
                lines.push(line);
            }
            if self.commands.len() >= MAX_COMMANDS {
                return self.doubt(format!("it runs more than {MAX_COMMANDS} commands"));
            }
            self.commands.push(SimpleCommand {
                program: program.text,
                args: args.iter().map(|a| a.text.clone()).collect(),
                assigns: assigns.clone(),
                set_before,
            });
            let Some(table) = WRAPPERS.iter().find(|w| w.name == name) else { return };
            if name == "xargs" {
                fed = Some(xargs_replace(table, &operands));
            }
            let unwrapped = match unwrap(table, operands) {
                Ok(Some(unwrapped)) => unwrapped,
                // `xargs env`: the program is the first word of xargs' input.
                Ok(None) if fed.is_some() && name != "xargs" => {
                    return self.doubt(format!("xargs gives `{name}` its program from its input"));
                }
                Ok(None) => return,
                Err(why) => return self.doubt(why),
            };
            assigns.extend(unwrapped.assigns);
            // `env -C DIR ./prog` looks `./prog` up in `DIR`, as after `cd`.
            if let Some(dir) = unwrapped.chdir {
                self.moved_to(Some(&dir));
            }
            let mut words = unwrapped.words;
            program = words.remove(0);
            args = words;
        }
        self.doubt(format!("wrappers nest more than {MAX_DEPTH} deep"));
    }

    /// Doubts setting `BASH_CMDS` or `BASH_ALIASES`: an entry makes a name run another
    /// program.
    fn check_name(&mut self, name: &str) {
        if matches!(name, "BASH_CMDS" | "BASH_ALIASES") {
            self.doubt(format!("setting {name} makes a name run another program"));
        }
    }

    /// Doubts a program word the reading cannot resolve: an expansion, or a relative path
    /// after the line changed directory.
    fn check_program(&mut self, program: &Word) {
        let text = &program.text;
        if program.expands {
            self.doubt(format!("the program `{text}` is named by an expansion"));
        } else if self.moved && text.contains('/') && !text.starts_with('/') {
            self.doubt(format!("`{text}` runs after the line changes directory"));
        }
    }
}

/// What a wrapper runs.
struct Unwrapped {
    /// The program and its arguments.
    words: Vec<Word>,
    /// The names the wrapper sets or removes for it (`env A=1`, `env -u A`, `sudo A=1`).
    assigns: Vec<String>,
    /// The directory the wrapper changes to first (`env -C DIR`, `sudo -D DIR`).
    chdir: Option<Word>,
}

/// The options of wrappers that change directory before running their program.
const CHDIR_OPTIONS: &[(&str, &[&str])] = &[("env", &["C", "chdir"]), ("sudo", &["D", "chdir"])];

/// The program a wrapper runs with its words, and the variables the wrapper sets for it
/// (`env A=1 prog`, `sudo A=1 prog`): `None` when it names none. `env -S LINE` splits `LINE`
/// into words in place, as `env` does; `su -s SHELL` runs `SHELL` with the words after the
/// user. An error says why the program cannot be told: an ambiguous long option, or a
/// program looked up in another root (`chroot DIR`, `sudo -R DIR`).
fn unwrap(table: &Wrapper, args: Vec<Word>) -> Result<Option<Unwrapped>, String> {
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
        } else if matches!(table.name, "env" | "sudo") && assignment_name(text).is_some() {
            assigns.extend(assignment_name(text).map(str::to_owned));
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

/// Whether `dir`, a new root, may be another directory than `/`.
fn another_root(dir: &str) -> bool {
    !dir.is_empty() && dir.trim_start_matches('/').split('/').any(|c| !c.is_empty() && c != ".")
}

/// The string `xargs` replaces with its input (`-I R`, `-i`, `--replace`: `{}`), or empty
/// when it appends its input as arguments.
fn xargs_replace(table: &Wrapper, args: &[Word]) -> String {
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
fn fed_from_input(replace: &str, program: &Word, args: &[Word]) -> Option<&'static str> {
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
fn without_redirections(words: &[Word]) -> Vec<Word> {
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
struct OptionWord {
    /// The options it names, in order: letters, or a long option's full name.
    names: Vec<String>,
    /// A long option's prefix that more than one of the program's options start with
    /// (the program refuses it; what it would have meant cannot be told).
    ambiguous: bool,
    /// The value given in the word itself.
    value: Option<String>,
    /// Whether the last option takes the next word as its value.
    takes_next: bool,
}

/// The options at the start of a wrapper's arguments (up to the first word that is not one,
/// or `--`), each with its value: given in the word, or the next word when it takes one.
fn leading_options<'a>(
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
fn shell_lines(program: &str, args: &[Word]) -> Vec<String> {
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
    values: Vec<(String, Word)>,
    operands: Vec<Word>,
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

/// The variables a builtin sets for the rest of the line: the `NAME=value` words of `export`,
/// `declare`, `typeset`, `local`, `readonly` and `let`; the names among the words of `read`,
/// `mapfile`, `readarray`, `getopts` and `printf` (`-v NAME`).
/// `unset` removes the names among its words. An option word's tails that are names count
/// too (`printf -vPATH`).
fn variables_set(builtin: &str, args: &[Word]) -> Vec<String> {
    let words = args.iter().map(|a| a.text.as_str());
    let names: Vec<&str> = match builtin {
        "export" | "declare" | "typeset" | "local" | "readonly" | "let" => {
            words.filter_map(assignment_name).collect()
        }
        "read" | "mapfile" | "readarray" | "getopts" | "printf" | "unset" => words
            .flat_map(|w| match w.strip_prefix('-') {
                // The tails after an option's first letters (`-vNAME`, `-rvNAME`), at
                // character boundaries; a cluster is short, so only its first letters count.
                Some(option) => option
                    .char_indices()
                    .skip(1)
                    .take(OPTION_LETTERS)
                    .map(|(at, _)| &option[at..])
                    .collect(),
                None => vec![w],
            })
            .filter(|w| is_name(w))
            .collect(),
        _ => Vec::new(),
    };
    names.into_iter().map(str::to_owned).collect()
}

/// How many letters of an option cluster may come before a variable's name (`-rsvNAME`).
const OPTION_LETTERS: usize = 8;

/// The builtins whose every operand may name a variable to set (`read -p "$prompt"` is left
/// out: an option's value may well expand).
const SETTERS: &[&str] = &["export", "declare", "typeset", "local", "readonly", "unset"];

/// Why what a builtin does cannot be followed, when it cannot.
fn hidden_effect(builtin: &str, args: &[Word]) -> Option<&'static str> {
    let has = |letter: char| {
        args.iter().any(|a| {
            a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains(letter)
        })
    };
    // `export $n=x`, `declare "$n"`: the name is an expansion's (its text up to `=`).
    let named_by_expansion = args.iter().any(|a| {
        let name = a.text.split_once('=').map_or(a.text.as_str(), |(name, _)| name);
        a.expands && !a.text.starts_with('-') && name.contains(['$', '`'])
    });
    if SETTERS.contains(&builtin) && named_by_expansion {
        return Some("a variable is named by an expansion");
    }
    match builtin {
        "mapfile" | "readarray" if has('C') => {
            Some("`mapfile -C` runs a callback the line cannot show")
        }
        "declare" | "typeset" | "local" if has('n') => {
            Some("`declare -n` makes a name set another variable")
        }
        "hash" if has('p') => Some("`hash -p` makes a name run another program"),
        "enable" if has('f') => Some("`enable -f` loads a builtin from a library"),
        "strace" if strace_pipes(args) => {
            Some("strace's `-o |COMMAND` runs a command the line cannot show")
        }
        "gdb" if gdb_options_hide(args) => Some(
            "gdb's options may run commands (`-ex`, `-x`) or take a value the line cannot tell",
        ),
        _ if SUBSCRIPTED.contains(&builtin) && args.iter().any(|a| runs_in_subscript(&a.text)) => {
            Some("the builtin evaluates an array subscript that holds a command substitution")
        }
        _ => None,
    }
}

/// Whether strace's options (before its program) send its output to a command: `-o |CMD`,
/// `-o !CMD`, `--output=|CMD`.
fn strace_pipes(args: &[Word]) -> bool {
    let Some(table) = WRAPPERS.iter().find(|w| w.name == "strace") else { return false };
    for (option, value) in leading_options(table, args) {
        let output = option.names.last().is_some_and(|n| n == "o" || n == "output");
        if output && value.is_some_and(|v| v.starts_with(['|', '!'])) {
            return true;
        }
    }
    false
}

/// gdb's options that neither take a value nor run commands; any other option before
/// `--args` (gdb takes options anywhere until then) makes what gdb runs unknown.
const GDB_FLAGS: &[&str] = &[
    "q",
    "quiet",
    "silent",
    "n",
    "nx",
    "nh",
    "batch",
    "batch-silent",
    "tui",
    "readnow",
    "readnever",
    "write",
    "return-child-result",
    "nw",
    "nowindows",
    "w",
    "windows",
];

/// Whether gdb's words hold an option other than [`GDB_FLAGS`] before `--args`.
fn gdb_options_hide(args: &[Word]) -> bool {
    args.iter()
        .map(|a| a.text.as_str())
        .take_while(|t| !matches!(*t, "--args" | "-args"))
        .filter_map(|t| t.strip_prefix('-'))
        .any(|option| !GDB_FLAGS.contains(&option.strip_prefix('-').unwrap_or(option)))
}

/// Builtins that evaluate an array subscript in a variable name they are given (`test -v
/// 'a[$(x)]'`, `printf -v 'a[$(x)]'`, `unset 'a[$(x)]'`), running its substitutions.
const SUBSCRIPTED: &[&str] = &[
    "test",
    "[",
    "let",
    "printf",
    "read",
    "unset",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "mapfile",
    "readarray",
    "getopts",
    "wait",
];

/// Whether text holds a subscript with a command substitution (`a[$(x)]`, `` a[`x`] ``).
fn runs_in_subscript(text: &str) -> bool {
    text.split_once('[').is_some_and(|(_, inside)| inside.contains("$(") || inside.contains('`'))
}

/// The last path component of a program word.
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `NAME` of a `NAME=value`, `NAME+=value` or `NAME[i]=value` word.
fn assignment_name(word: &str) -> Option<&str> {
    let (left, _) = word.split_once('=')?;
    let left = left.strip_suffix('+').unwrap_or(left);
    let name = left.split_once('[').map_or(left, |(name, _)| name);
    is_name(name).then_some(name)
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A redirection operator (`>`, `2>>`, `<`, `>&`, `<<-`, `{fd}>`): its target is the next
/// word.
fn is_redirection(word: &str) -> bool {
    let op = operator(word);
    op.starts_with(['<', '>']) && op.chars().all(|c| matches!(c, '<' | '>' | '&' | '|' | '-'))
}

/// A redirection word without the file descriptor before it (`2`, `{fd}`).
fn operator(word: &str) -> &str {
    let named = word.strip_prefix('{').and_then(|rest| rest.split_once('}'));
    match named {
        Some((name, op)) if is_name(name) => op,
        _ => word.trim_start_matches(|c: char| c.is_ascii_digit()),
    }
}

/// Whether unquoted text is `NAME=` or `NAME+=`: a `(` after it opens an array.
fn is_array_start(bare: &str) -> bool {
    bare.strip_suffix('=').is_some_and(|left| is_name(left.strip_suffix('+').unwrap_or(left)))
}

/// Whether the text before a `<` or `>` names its file descriptor: digits, or `{NAME}`.
fn is_descriptor(bare: &str) -> bool {
    let named = bare.strip_prefix('{').and_then(|rest| rest.strip_suffix('}'));
    bare.chars().all(|c| c.is_ascii_digit()) || named.is_some_and(is_name)
}

/// Where the reading of a `case` command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CasePart {
    /// After `case`: the word matched.
    Subject,
    /// After that word: `in`.
    In,
    /// Patterns up to the `)` that ends them (after `in`, `;;`, `;&` or `;;&`).
    Patterns,
    /// The commands of a clause.
    Body,
}

/// Whether `words` (of a command read so far) are keywords only: the next word starts a
/// command.
fn starts_command(words: &[Word]) -> bool {
    words.iter().all(|w| !w.quoted && KEYWORDS.contains(&w.text.as_str()))
}

/// The words `env -S` splits `text` into, as GNU env does: blanks and `\_` separate, `'…'`
/// and `"…"` quote (in `'…'` only `\\` and `\'` are escapes), `\c` ends the text, a `#`
/// starting a word comments out the rest; `${NAME}` expands.
fn env_split(text: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut word: Option<Word> = None;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c') => words.extend(word.take()),
            (None, '#') if word.is_none() => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(Word::default).quoted = true;
            }
            (Some(q), _) if c == q => quote = None,
            (_, '\\') => {
                let Some(escaped) = chars.next() else { break };
                let text = &mut word.get_or_insert_with(Word::default).text;
                match (quote, escaped) {
                    (Some('\''), '\\' | '\'') => text.push(escaped),
                    (Some('\''), _) => text.extend(['\\', escaped]),
                    (None, '_') => words.extend(word.take()),
                    (None, 'c') => break,
                    (_, '_') => text.push(' '),
                    (_, 'n') => text.push('\n'),
                    (_, 't') => text.push('\t'),
                    (_, 'r') => text.push('\r'),
                    (_, 'f') => text.push('\x0c'),
                    (_, 'v') => text.push('\x0b'),
                    _ => text.push(escaped),
                }
            }
            (q, '$') if q != Some('\'') => {
                let word = word.get_or_insert_with(Word::default);
                word.text.push('$');
                word.expands = true;
            }
            _ => word.get_or_insert_with(Word::default).text.push(c),
        }
    }
    words.extend(word);
    words
}

/// One word of a line, quotes removed.
#[derive(Debug, Clone, Default)]
struct Word {
    text: String,
    /// Whether the shell expands it into something else: a parameter, a command or process
    /// substitution, a glob, a brace expansion.
    expands: bool,
    /// Whether any of it was quoted (a quoted `if` is no keyword, a quoted `=` no assignment).
    quoted: bool,
}

impl Word {
    /// A word of an argv: nothing expands.
    fn literal(text: String) -> Word {
        Word { text, expands: false, quoted: true }
    }
}

enum Token {
    Word(Word),
    /// `;`, `&`, `|`, `&&`, `||`, a newline (its first character), or an arithmetic command
    /// `((…))` (`(`).
    Separator(char),
    /// `;;`, `;&`, `;;&`: the end of a `case` clause.
    CaseEnd,
    /// `(`.
    Open,
    /// `)`.
    Close,
    End,
}

/// A here-document waiting for its body (the lines after the next newline).
struct Heredoc {
    delimiter: String,
    /// A quoted delimiter (`<<'EOF'`): nothing in the body expands.
    quoted: bool,
    /// `<<-`: leading tabs are stripped from the body's lines.
    strip_tabs: bool,
}

struct Lexer<'a> {
    chars: &'a [char],
    at: usize,
    /// How many substitutions deep this text is.
    depth: usize,
    /// The text of command and process substitutions met, to be read as lines of their own.
    nested: Vec<String>,
    /// Why the text cannot be read with certainty, when it cannot.
    doubt: Option<String>,
    heredocs: Vec<Heredoc>,
    /// After a `<<` (false) or `<<-` (true): the next word is a here-document's delimiter.
    delimiter_next: Option<bool>,
}

impl<'a> Lexer<'a> {
    fn new(chars: &'a [char], depth: usize) -> Lexer<'a> {
        Lexer {
            chars,
            at: 0,
            depth,
            nested: Vec::new(),
            doubt: None,
            heredocs: Vec::new(),
            delimiter_next: None,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn doubt(&mut self, why: String) {
        self.doubt.get_or_insert(why);
    }

    fn next_token(&mut self) -> Token {
        self.skip_blanks();
        let Some(c) = self.peek() else { return Token::End };
        self.at += 1;
        match c {
            '\n' => {
                self.heredoc_bodies();
                Token::Separator('\n')
            }
            // `((…))`: an arithmetic command, where `<<` is a shift; what it substitutes is
            // looked into. Without the `))` that ends it, bash reads `( (…) …)`.
            '(' if self.peek() == Some('(') => match self.arithmetic() {
                true => Token::Separator('('),
                false => Token::Open,
            },
            '(' => Token::Open,
            ')' => Token::Close,
            ';' if matches!(self.peek(), Some(';' | '&')) => {
                let semi = self.peek() == Some(';');
                self.at += 1;
                if semi && self.peek() == Some('&') {
                    self.at += 1;
                }
                Token::CaseEnd
            }
            ';' | '&' | '|' => {
                while self.peek() == Some(c) {
                    self.at += 1;
                }
                Token::Separator(c)
            }
            _ => {
                self.at -= 1;
                let word = self.word();
                self.note_heredoc(&word);
                Token::Word(word)
            }
        }
    }

    /// Skips blanks, line continuations and comments.
    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' {
                self.at += 1;
            } else if c == '\\' && self.chars.get(self.at + 1) == Some(&'\n') {
                self.at += 2;
            } else if c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.at += 1;
                }
            } else {
                break;
            }
        }
    }

    /// One word, quotes removed and escapes decoded; substitutions in it are remembered.
    fn word(&mut self) -> Word {
        let mut word = Word::default();
        // Its unquoted characters, where globs and brace expansions are looked for.
        let mut bare = String::new();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | ')' => break,
                // `NAME=(…)`: an array's elements.
                '(' if !word.quoted && bare == word.text && is_array_start(&bare) => {
                    self.at += 1;
                    self.array();
                    word.text.push_str("(…)");
                }
                // `@(…)`, `!(…)`, `+(…)`: an extended glob; otherwise `(` ends the word.
                '(' => {
                    word.expands |= bare.ends_with(['@', '!', '+', '*', '?']);
                    break;
                }
                // Process substitution: a word naming a pipe.
                '<' | '>' if self.chars.get(self.at + 1) == Some(&'(') => {
                    self.at += 2;
                    self.substitution(&mut word);
                }
                // A redirection operator (after its file descriptor's digits) is a word of its
                // own, and ends the word before it.
                '<' | '>' if word.quoted || bare != word.text || !is_descriptor(&bare) => break,
                '<' | '>' => return self.redirection(word),
                '\\' => {
                    self.at += 1;
                    match self.peek() {
                        Some('\n') => self.at += 1,
                        Some(next) => {
                            word.text.push(next);
                            word.quoted = true;
                            self.at += 1;
                        }
                        None => {}
                    }
                }
                '\'' => {
                    self.at += 1;
                    self.single_quoted(&mut word.text);
                    word.quoted = true;
                }
                '"' => {
                    self.at += 1;
                    self.double_quoted(&mut word);
                    word.quoted = true;
                }
                '$' => {
                    self.at += 1;
                    self.dollar(&mut word, false);
                }
                '`' => {
                    self.at += 1;
                    self.backtick(&mut word, false);
                }
                // A tilde prefix: `~` (`$HOME`), `~user`, `~+`, `~-` at the start of a word
                // (or after an assignment's `=` or `:`) is replaced by a directory.
                '~' if (word.text.is_empty() && !word.quoted)
                    || word.text.ends_with(['=', ':']) =>
                {
                    word.text.push(c);
                    bare.push(c);
                    word.expands = true;
                    self.at += 1;
                }
                _ => {
                    word.text.push(c);
                    bare.push(c);
                    self.at += 1;
                }
            }
        }
        word.expands |= is_pattern(&bare);
        word
    }

    /// A redirection operator after its file descriptor digits (`2>&`, `>>`, `<<-`, `>|`).
    fn redirection(&mut self, mut word: Word) -> Word {
        while let Some(op) = self.peek().filter(|c| matches!(c, '<' | '>' | '&')) {
            word.text.push(op);
            self.at += 1;
        }
        let after = self.peek();
        let op = word.text.trim_start_matches(|c: char| c.is_ascii_digit());
        if (op == "<<" && after == Some('-')) || (op.ends_with('>') && after == Some('|')) {
            word.text.extend(after);
            self.at += 1;
        }
        word
    }

    /// Just after an opening `'`: the text up to the closing one.
    fn single_quoted(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.at += 1;
            if c == '\'' {
                return;
            }
            text.push(c);
        }
    }

    /// Just after an opening `"`: the text up to the closing one, escapes and substitutions
    /// as bash reads them there.
    fn double_quoted(&mut self, word: &mut Word) {
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '"' => return,
                '\\' => match self.peek() {
                    Some('\n') => self.at += 1,
                    Some(next @ ('$' | '`' | '"' | '\\')) => {
                        word.text.push(next);
                        self.at += 1;
                    }
                    _ => word.text.push('\\'),
                },
                '$' => self.dollar(word, true),
                '`' => self.backtick(word, true),
                _ => word.text.push(c),
            }
        }
    }

    /// Just after a `$`: `$'…'` (ANSI-C quoting) and `$"…"` (read as `"…"`: a translation
    /// from a message catalog is not seen) outside double quotes, a substitution `$(…)`, a
    /// parameter (`$NAME`, `${…}`, `$1`, `$@`), or a `$` of its own.
    fn dollar(&mut self, word: &mut Word, in_quotes: bool) {
        self.skip_continuations();
        match self.peek() {
            Some('\'') if !in_quotes => {
                self.at += 1;
                self.ansi_c(&mut word.text);
                word.quoted = true;
            }
            Some('"') if !in_quotes => {
                self.at += 1;
                self.double_quoted(word);
                word.quoted = true;
            }
            Some('(') => {
                self.at += 1;
                self.dollar_paren(word);
            }
            Some('{') => {
                self.at += 1;
                self.matched('{', '}', true);
                word.text.push_str("${…}");
                word.expands = true;
            }
            Some('[') => {
                self.at += 1;
                self.matched('[', ']', false);
                word.text.push_str("$[…]");
                word.expands = true;
            }
            Some(c) if c == '_' || c.is_ascii_alphanumeric() || "@*#?$!-".contains(c) => {
                word.text.push('$');
                word.expands = true;
            }
            _ => word.text.push('$'),
        }
    }

    /// Just after the `'` of `$'`: the text up to the closing `'`, escapes decoded as bash
    /// decodes them.
    fn ansi_c(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '\'' => return,
                '\\' => self.ansi_c_escape(text),
                _ => text.push(c),
            }
        }
    }

    /// Just after a `\` in `$'…'`: `\n`, `\t`, `\e`, `\'`, octal `\NNN`, `\xHH`, `\uHHHH`,
    /// `\UHHHHHHHH`, `\cX`…; an unknown escape stays as written.
    fn ansi_c_escape(&mut self, text: &mut String) {
        let Some(c) = self.peek() else { return text.push('\\') };
        self.at += 1;
        let decoded = match c {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(c),
            // Bash keeps the low eight bits: `\564` is `t`.
            '0'..='7' => {
                self.at -= 1;
                self.number(8, 3).and_then(|n| char::from_u32(n as u32 & 0xff))
            }
            'x' => self.number(16, 2),
            'u' => self.number(16, 4),
            'U' => self.number(16, 8),
            'c' => self.peek().and_then(|n| {
                self.at += 1;
                char::from_u32(n as u32 & 0x1f)
            }),
            _ => None,
        };
        match decoded {
            Some(d) => text.push(d),
            None => {
                text.push('\\');
                text.push(c);
            }
        }
    }

    /// The character numbered by up to `most` digits in `radix`; `None` without a digit.
    fn number(&mut self, radix: u32, most: usize) -> Option<char> {
        let start = self.at;
        let mut value = 0u32;
        while self.at - start < most {
            let Some(digit) = self.peek().and_then(|d| d.to_digit(radix)) else { break };
            value = value.saturating_mul(radix).saturating_add(digit);
            self.at += 1;
        }
        (self.at > start).then(|| char::from_u32(value).unwrap_or('\u{fffd}'))
    }

    /// Just after an opening backtick: remembers the command up to the closing one (its
    /// `` \` ``, `\\` and `\$` unescaped, and `\"` within double quotes) and leaves a
    /// placeholder in the word.
    fn backtick(&mut self, word: &mut Word, in_quotes: bool) {
        let mut inner = String::new();
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '`' => break,
                '\\' => match self.peek() {
                    Some(next @ ('`' | '\\' | '$')) => {
                        inner.push(next);
                        self.at += 1;
                    }
                    Some('"') if in_quotes => {
                        inner.push('"');
                        self.at += 1;
                    }
                    _ => inner.push('\\'),
                },
                _ => inner.push(c),
            }
        }
        self.nested.push(inner);
        word.text.push_str("`…`");
        word.expands = true;
    }

    /// Just after the `(` of `$(`, `<(` or `>(`: remembers the text up to the `)` that closes
    /// it, found by reading the text as a line (quotes, nested substitutions, here-documents),
    /// and leaves a placeholder in the word.
    fn substitution(&mut self, word: &mut Word) {
        word.text.push_str("$(…)");
        word.expands = true;
        if self.depth >= MAX_DEPTH {
            self.doubt(format!("substitutions nest more than {MAX_DEPTH} deep"));
            self.at = self.chars.len();
            return;
        }
        let mut inner = Lexer::new(self.chars, self.depth + 1);
        inner.at = self.at;
        let end = inner.until_close();
        if let Some(why) = inner.doubt {
            self.doubt(why);
        }
        if !inner.heredocs.is_empty() || inner.delimiter_next.is_some() {
            self.doubt("a here-document begun inside a substitution has its body after it".into());
        }
        self.nested.push(self.chars[self.at..end].iter().collect());
        self.at = inner.at;
    }

    /// Just after `$(`: an arithmetic expansion `$((…))`, or a command substitution.
    fn dollar_paren(&mut self, word: &mut Word) {
        word.expands = true;
        if self.peek() == Some('(') {
            self.arithmetic();
            word.text.push_str("$((…))");
        } else {
            self.substitution(word);
        }
    }

    /// Just after the first `(` of `((` or `$((`: reads arithmetic up to the `))` that ends it,
    /// looking into it only for substitutions (its words are not commands); says whether a
    /// `))` ended it. When none does, bash reads `( (…) …)` instead: that is doubted, and
    /// the rest of the text is not read.
    fn arithmetic(&mut self) -> bool {
        self.at += 1;
        if self.matched('(', ')', false) && self.peek() == Some(')') {
            self.at += 1;
            return true;
        }
        self.doubt("`((` is not arithmetic ended by `))`".into());
        self.at = self.chars.len();
        false
    }

    /// Just after the opening of `${…}` (`{`, ended by the first `}`), `$[…]` (`[`) or
    /// arithmetic (`(`, nested pairs counted): reads up to its close as bash does (escapes,
    /// quotes, nested `${…}`, `$[…]`, arithmetic; substitutions remembered); says whether
    /// the close was found.
    fn matched(&mut self, open: char, close: char, first_close: bool) -> bool {
        if self.depth >= MAX_DEPTH {
            self.doubt(format!("expansions nest more than {MAX_DEPTH} deep"));
            self.at = self.chars.len();
            return false;
        }
        self.depth += 1;
        let mut pairs = 1usize;
        let mut sink = Word::default();
        let found = loop {
            let Some(c) = self.peek() else { break false };
            self.at += 1;
            match c {
                '\\' => self.at = (self.at + 1).min(self.chars.len()),
                '\'' => self.single_quoted(&mut sink.text),
                '"' => self.double_quoted(&mut sink),
                '`' => self.backtick(&mut sink, false),
                '$' => self.dollar(&mut sink, false),
                c if c == close => {
                    pairs -= 1;
                    if pairs == 0 {
                        break true;
                    }
                }
                c if c == open && !first_close => pairs += 1,
                _ => {}
            }
        };
        self.depth -= 1;
        found
    }

    /// Just after the `(` of `NAME=(`: reads an array's elements up to the `)` (their
    /// substitutions remembered); anything but words and newlines there is doubted.
    fn array(&mut self) {
        if self.depth >= MAX_DEPTH {
            self.doubt(format!("arrays nest more than {MAX_DEPTH} deep"));
            self.at = self.chars.len();
            return;
        }
        self.depth += 1;
        loop {
            match self.next_token() {
                Token::Close | Token::End => break,
                Token::Word(_) | Token::Separator('\n') => {}
                _ => self.doubt("an array assignment holds more than words".into()),
            }
        }
        self.depth -= 1;
    }

    /// Skips line continuations (a backslash before a newline), which bash removes first.
    fn skip_continuations(&mut self) {
        while self.peek() == Some('\\') && self.chars.get(self.at + 1) == Some(&'\n') {
            self.at += 2;
        }
    }

    /// Reads tokens up to the `)` that closes an opened `(`; returns where that `)` is (the
    /// end of the text if none does). A `case` met there is doubted: its patterns end in `)`.
    fn until_close(&mut self) -> usize {
        let mut open = 0usize;
        let mut command_start = true;
        loop {
            match self.next_token() {
                Token::End => return self.chars.len(),
                Token::Close if open == 0 => return self.at - 1,
                Token::Close => {
                    open -= 1;
                    command_start = true;
                }
                Token::Open => {
                    open += 1;
                    command_start = true;
                }
                Token::Separator(_) | Token::CaseEnd => command_start = true,
                Token::Word(word) => {
                    let keyword = (!word.quoted).then_some(word.text.as_str());
                    if command_start && keyword == Some("case") {
                        self.doubt("a `case` inside a substitution".to_owned());
                    }
                    command_start = keyword.is_some_and(|k| KEYWORDS.contains(&k));
                }
            }
        }
    }

    /// After a word: the word after `<<` is a here-document's delimiter (one with a
    /// substitution or parameter in it is doubted: bash does not expand it).
    fn note_heredoc(&mut self, word: &Word) {
        if let Some(strip_tabs) = self.delimiter_next.take() {
            if word.expands || word.text.contains(['$', '`']) {
                self.doubt(format!("the here-document delimiter `{}` is not plain", word.text));
            }
            let delimiter = word.text.clone();
            self.heredocs.push(Heredoc { delimiter, quoted: word.quoted, strip_tabs });
        } else if !word.quoted && is_redirection(&word.text) {
            let op = operator(&word.text);
            if op == "<<" || op == "<<-" {
                self.delimiter_next = Some(op == "<<-");
            }
        }
    }

    /// Just after a newline: skips the bodies of the here-documents started on the line (up
    /// to their delimiter lines), remembering the substitutions of those whose delimiter is
    /// unquoted.
    fn heredoc_bodies(&mut self) {
        for doc in std::mem::take(&mut self.heredocs) {
            let start = self.at;
            let mut end = start;
            while end < self.chars.len() {
                let line_end = self.chars[end..].iter().position(|&c| c == '\n');
                let line_end = line_end.map_or(self.chars.len(), |n| end + n);
                let line: String = self.chars[end..line_end].iter().collect();
                let shown = if doc.strip_tabs { line.trim_start_matches('\t') } else { &line };
                if shown == doc.delimiter {
                    break;
                }
                end = (line_end + 1).min(self.chars.len());
            }
            if !doc.quoted {
                self.substitutions_in_body(start, end);
            }
            let after = self.chars[end..].iter().position(|&c| c == '\n');
            self.at = after.map_or(self.chars.len(), |n| end + n + 1);
        }
    }

    /// The body `start..end` of an unquoted here-document: remembers its substitutions, read
    /// within the body alone.
    fn substitutions_in_body(&mut self, start: usize, end: usize) {
        let mut body = Lexer::new(&self.chars[start..end], self.depth);
        let mut sink = Word::default();
        while let Some(c) = body.peek() {
            body.at += 1;
            match c {
                '\\' => body.at = (body.at + 1).min(body.chars.len()),
                '$' => body.dollar(&mut sink, true),
                '`' => body.backtick(&mut sink, false),
                _ => {}
            }
        }
        self.nested.extend(body.nested);
        if let Some(why) = body.doubt {
            self.doubt(why);
        }
    }
}

/// Whether unquoted text is a pattern the shell expands: a glob (`*`, `?`, `[…]`) or a brace
/// expansion (`{a,b}`, `{1..3}`).
fn is_pattern(bare: &str) -> bool {
    let after = |open: char| bare.split_once(open).map(|(_, rest)| rest);
    let bracket = after('[').is_some_and(|rest| rest.contains(']'));
    let brace = after('{')
        .and_then(|rest| rest.split_once('}'))
        .is_some_and(|(inside, _)| inside.contains(',') || inside.contains(".."));
    bare.contains(['*', '?']) || bracket || brace
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(line: &str) -> Vec<String> {
        simple_commands(line).commands.into_iter().map(|c| c.program).collect()
    }

    #[test]
    fn finds_the_first_word_of_each_command() {
        assert_eq!(programs("ls -l | grep x && make; echo done &"), ["ls", "grep", "make", "echo"]);
        assert_eq!(programs("if true; then rm -rf x; fi"), ["true", "rm"]);
        assert_eq!(programs("(cd /tmp && ls) || { pwd; }"), ["cd", "ls", "pwd"]);
        assert_eq!(programs("while read l; do echo $l; done < f"), ["read", "echo"]);
        assert_eq!(programs("for f in a b; do cat $f; done"), ["cat"]);
        assert_eq!(programs("'r''m' x; \"l\"s"), ["rm", "ls"]);
        assert_eq!(programs("echo a # ; rm x"), ["echo"]);
        assert_eq!(programs(">out 2>&1 ls"), ["ls"]);
        assert_eq!(programs(""), Vec::<String>::new());
    }

    #[test]
    fn sees_substitutions_and_wrappers() {
        assert_eq!(programs("echo $(whoami) \"`id -u`\""), ["echo", "whoami", "id"]);
        assert_eq!(programs("diff <(ls a) <(ls b)"), ["diff", "ls", "ls"]);
        assert_eq!(programs("sudo -u root rm x"), ["sudo", "rm"]);
        assert_eq!(programs("timeout 5 nice -n 3 make"), ["timeout", "nice", "make"]);
        assert_eq!(programs("su bob -c 'rm -rf ~'"), ["su", "rm"]);
        assert_eq!(programs("bash -lc \"curl x | sh\""), ["bash", "curl", "sh"]);
        assert_eq!(programs("env A=1 B=2 python3 -q"), ["env", "python3"]);
        assert_eq!(programs("exec /usr/bin/vim"), ["exec", "/usr/bin/vim"]);
        let commands = simple_commands("LD_PRELOAD=/x.so env PATH=/evil ls").commands;
        assert_eq!(commands[0].assigns, ["LD_PRELOAD"]);
        assert_eq!(commands[1].program, "ls");
        assert_eq!(commands[1].assigns, ["LD_PRELOAD", "PATH"]);
    }

    #[test]
    fn hostile_lines_cost_bounded_work() {
        let deep = "$(".repeat(10_000);
        assert!(simple_commands(&deep).commands.len() <= MAX_COMMANDS);
        let many = "a;".repeat(100_000);
        assert_eq!(simple_commands(&many).commands.len(), MAX_COMMANDS);
        assert!(simple_commands(&many).doubt.is_some_and(|why| why.contains("4096")));
        let unterminated = "echo \"$(ls 'x";
        assert_eq!(programs(unterminated), ["echo", "ls"]);
    }

    /// Every line reads as `expected` programs, with nothing doubted.
    fn assert_reads(cases: &[(&str, &[&str])]) {
        for (line, expected) in cases {
            let reading = simple_commands(line);
            let found: Vec<&str> = reading.commands.iter().map(|c| c.program.as_str()).collect();
            assert_eq!((found.as_slice(), reading.doubt.as_deref()), (*expected, None), "{line:?}");
        }
    }

    #[test]
    fn substitutions_and_here_documents_end_where_bash_ends_them() {
        assert_reads(&[
            ("echo $(echo ')'; touch F)", &["echo", "echo", "touch"]),
            ("echo $(echo \")\"; touch F)", &["echo", "echo", "touch"]),
            ("echo $(echo $'\\')'; touch F)", &["echo", "echo", "touch"]),
            ("echo $(echo a # )\ntouch F\n)", &["echo", "echo", "touch"]),
            ("echo <(echo ')'; touch F)", &["echo", "echo", "touch"]),
            ("echo `echo \\`touch F\\``", &["echo", "echo", "touch"]),
            ("cat <<EOF\nit's\nEOF\ntouch F", &["cat", "touch"]),
            ("cat <<-EOF >x\n\tit's $(touch F)\n\tEOF\nls", &["cat", "ls", "touch"]),
            ("cat <<'EOF'\n$(touch F)\nEOF\nls", &["cat", "ls"]),
            ("touch>F; sudo >/dev/null touch F", &["touch", "sudo", "touch"]),
            ("((x = 1 << 2))\ntouch F", &["touch"]),
        ]);
    }

    #[test]
    fn quoting_keywords_and_wrapper_options_are_read_as_bash_does() {
        assert_reads(&[
            ("$'touch' F; $'\\x74ouch'; $'\\164ouch'; $\"touch\"", &["touch"; 4]),
            (
                "tou\\\nch F; \"tou\\\nch\" F; \\time -f %e touch",
                &["touch", "touch", "time", "touch"],
            ),
            ("coproc touch F; coproc NAME { touch F; }", &["touch", "touch"]),
            ("time -p touch F; ! touch F; function f { touch F; }", &["touch", "touch", "touch"]),
            ("env - touch F; env -iS'A=1 touch F'", &["env", "touch", "env", "touch"]),
            ("env --split-string 'touch F'", &["env", "touch"]),
            ("xargs --max-args 1 touch; xargs -in touch F", &["xargs", "touch", "xargs", "touch"]),
            (
                "sudo --user root touch F; stdbuf --output=L touch",
                &["sudo", "touch", "stdbuf", "touch"],
            ),
            ("su --command='touch F' root; su root -c 'touch F'", &["su", "su", "touch", "touch"]),
            (
                "bash -ce 'touch F'; sh -o pipefail -c -- 'touch F'",
                &["bash", "sh", "touch", "touch"],
            ),
            ("busybox sh -c 'touch F'", &["busybox", "sh", "touch"]),
        ]);
        let reading = simple_commands("PATH=/x; export A=1; ls; B=2 sudo C=3 ls");
        assert_eq!(reading.line_assigns, ["PATH", "A"]);
        let commands = reading.commands;
        assert_eq!(
            (commands[0].assigns.as_slice(), commands[0].set_before),
            (&["A".to_owned()][..], 1)
        );
        assert_eq!((commands[1].assigns.as_slice(), commands[1].set_before), (&[][..], 2));
        assert_eq!(commands[3].assigns, ["B", "C"]);
        assert_eq!(commands[3].set_before, 2);
    }

    #[test]
    fn arithmetic_case_patterns_arrays_and_conditions_are_not_commands() {
        assert_reads(&[
            ("echo $((1+2))", &["echo"]),
            ("x=$((1+2)); echo $[1+2] $((a[1])) \"$(( (1) ))\"", &["echo"]),
            ("for ((i=0;i<3;i++)); do echo $i; done", &["echo"]),
            ("for ((i=0;i<3;i++)) do echo; done; (( i++ ))", &["echo"]),
            ("echo $(( $(whoami) + `id -u` )); (( $(date) ))", &["echo", "whoami", "id", "date"]),
            ("case x in a) echo a;; *) ls;; esac", &["echo", "ls"]),
            ("case x in (a|b) echo a;& c) ls;;& esac; pwd", &["echo", "ls", "pwd"]),
            (
                "case $(id) in\n a)\n echo\n esac; case x in a) case y in b) ls;; esac;; esac",
                &["echo", "ls", "id"],
            ),
            ("arr=(a b); files=(*.txt); arr+=($(ls) c)\nx=(\n a # )\n)", &["ls"]),
            ("[[ ( -n x ) && x ]] && echo; [[ a ||\n b ]]", &["[[", "echo", "[["]),
        ]);
    }

    #[test]
    fn expansions_here_documents_and_escapes_are_read_as_bash_reads_them() {
        assert_reads(&[
            ("echo ${x:- #}; touch F", &["echo", "touch"]),
            ("echo ${x:-<<EOF}\ntouch F", &["echo", "touch"]),
            ("echo ${a[1<<2]}\ntouch F", &["echo", "touch"]),
            ("echo \"$(echo ${x:-)}; touch F)\"", &["echo", "echo", "touch"]),
            ("echo \"${x:-\"'\"}\"; touch F", &["echo", "touch"]),
            ("echo ${x:-{}}; touch F", &["echo", "touch"]),
            ("echo ${x:-$(touch F)}", &["echo", "touch"]),
            ("echo $[1<<2]\ntouch F", &["echo", "touch"]),
            ("echo \"`echo \\\"'\\\"; touch F`\"", &["echo", "echo", "touch"]),
            ("$'\\564ouch' F", &["touch"]),
            ("{fd}>/dev/null touch F", &["touch"]),
            ("for x do touch F; done", &["touch"]),
            ("cat <<EOF\n${x:-\nEOF\ntouch F", &["cat", "touch"]),
        ]);
        for line in [
            "cat <<$(x)\nhi\n$(x)\ntouch F",
            "cat <<`x`\nhi\n`x`\ntouch F",
            "echo $(cat <<EOF)\nit's\nEOF\ntouch F",
            "$\\\n(echo touch) F",
            "X=touch; $\\\nX F",
            "((echo a) ; touch F)",
            "[[ x ; touch F",
        ] {
            assert!(simple_commands(line).doubt.is_some(), "{line:?}");
        }
    }

    #[test]
    fn wrapper_options_split_strings_and_other_shells() {
        assert_reads(&[
            ("sudo --login touch F; sudo --login-c x touch F", &["sudo", "touch", "sudo", "touch"]),
            ("sudo --preserve-env=A --use root touch F", &["sudo", "touch"]),
            ("su root -- -c 'touch F'", &["su", "-c", "touch"]),
            ("env -S 'touch\\_F'; env -S'\"x\\_y\" z'", &["env", "touch", "env", "x y"]),
            ("env -S 'touch F #x' ; env -S 'ls\\cx'", &["env", "touch", "env", "ls"]),
            ("zsh -c 'ls -l /tmp'", &["zsh", "ls"]),
            ("read -r -p \"$prompt\" answer", &["read"]),
        ]);
        for line in [
            "sudo --l touch F",
            "sudo --pr root touch F",
            "zsh -c '=touch F'",
            "zsh -c 'echo /(e:touch:)'",
            "zsh -c 'noglob touch F'",
            "fish -c 'not touch F'",
        ] {
            assert!(simple_commands(line).doubt.is_some(), "{line:?}");
        }
        for line in ["=touch F", "echo /(e:'touch F':)", "- touch F", "ls; ls"] {
            assert!(commands_run_by("/usr/bin/zsh", line).doubt.is_some(), "{line:?}");
            assert!(commands_run_by("/bin/bash", line).commands.len() < 3, "{line:?}");
        }
        assert_eq!(commands_run_by("zsh", "LANG=C ls -l --color=auto /tmp").doubt, None);
    }

    #[test]
    fn what_cannot_be_read_for_certain_is_doubted() {
        for line in [
            "$(echo touch) F",
            "`echo touch` F",
            "$CMD F",
            "/usr/bin/tou?h F",
            "/usr/bin/tou[c]h F",
            "{touch,F}",
            "echo $(case a in a) touch F;; esac)",
            "cd /usr/bin && ./touch F",
            "declare -n p=PATH",
            "hash -p /usr/bin/touch ls",
        ] {
            assert!(simple_commands(line).doubt.is_some(), "{line:?}");
        }
        let deep = format!("echo {}touch F{}", "$(".repeat(17), ")".repeat(17));
        assert!(simple_commands(&deep).doubt.unwrap().contains("nest"));
        // `sh -c LINE` 17 deep, each line one word by backslashes.
        let escape = |line: String| line.replace('\\', "\\\\").replace(' ', "\\ ");
        let shells =
            (0..16).fold("touch F".to_owned(), |line, _| format!("sh -c {}", escape(line)));
        assert!(argv_commands(vec!["sh".into(), "-c".into(), shells]).doubt.is_some());
        let wrapped = format!("{}touch", "sudo ".repeat(10_000));
        assert!(simple_commands(&wrapped).doubt.unwrap().contains("wrappers"));
        assert_eq!(simple_commands("echo $(date) [x] {a} ~/f; [ -f x ]").doubt, None);
    }
}
