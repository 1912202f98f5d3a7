//! The simple commands of a shell command line, as far as a policy can see them without
//! running anything: the words of each command in a list, pipeline, subshell, group, command
//! or process substitution and here-document, the variables set for them (by assignments
//! before them, which are the words bash takes for assignments as written, quotes and all,
//! and by assignments or `export` earlier in the line), the programs wrappers
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
//! here-document with a substituted delimiter or begun inside `$(…)`, a subscript `NAME[`
//! where an assignment may stand that no `]` closes, an ambiguous wrapper
//! option, a line another shell than bash runs that is not plain, substitutions nested
//! deeper than [`MAX_DEPTH`], more than [`MAX_COMMANDS`] commands or [`MAX_NAMES`]
//! variables. Arithmetic, `${…}`, `case` patterns and array elements are looked into only
//! for the substitutions they hold.
//!
//! What this cannot see, and a policy therefore cannot rule on: what `eval`, `source` or `.`
//! run, the contents of scripts, aliases and shell functions, what a shell reads from its
//! input, and whatever a program starts in turn.

mod builtins;
mod lexer;
mod wrappers;

use std::collections::{HashSet, VecDeque};

use builtins::*;
use lexer::{Lexer, Token, Word};
use wrappers::*;

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

/// Reserved words after which a command may start, and so an assignment stand (bash's
/// `reserved_word_acceptable`, less `time` and its options, which the lexer follows itself).
const COMMAND_RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac",
    "coproc",
];

/// Words that start a compound command (after `coproc NAME`).
const COMPOUND: &[&str] = &["{", "if", "while", "until", "for", "case", "select"];

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

/// What `line` shows when it is typed into the interactive `shell` (`terminal_run`'s new
/// shell): as [`commands_run_by`] reads it, doubted where the shell's history expansion
/// may replace part of it before it is read (`!#:1-2`, `!!`, `!touch`, `^a^b`).
pub(crate) fn typed_into(shell: &str, line: &str) -> Reading {
    let mut reading = commands_run_by(shell, line);
    if expands_history(line) {
        reading.doubt.get_or_insert_with(|| {
            "an interactive shell's history expansion (`!…`, `^…^`) would change the line"
                .to_owned()
        });
    }
    reading
}

/// Whether bash's history expansion (on in an interactive shell) finds something to expand
/// in `line`: a `!` not followed by a blank, `=` or the end (nor, in double quotes, by `"`),
/// outside single quotes and not after a backslash, or a `^` first (a quick substitution).
/// This follows readline's `history_expand`, which leaves a line it finds nothing in alone;
/// where it would expand, what runs is not what was read. Bash expands a `!` only where
/// readline's scan (whose `'…'` ends at the first quote, even in `$'…'`) and its own parser
/// both find it unquoted: a line is doubted where either finds one, a `!` that bash never
/// expands (`$!`, `${!x}`, `[!x]`) excepted.
fn expands_history(line: &str) -> bool {
    let chars: Vec<char> = line.chars().collect();
    chars.first() == Some(&'^') || [false, true].iter().any(|&ansi| history_mark(&chars, ansi))
}

/// Whether readline's scan finds a `!` to expand in `chars`, its `\` escaping in `$'…'`
/// (`ansi`) or not.
fn history_mark(chars: &[char], ansi: bool) -> bool {
    let mut double = false;
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        let next = chars.get(at + 1).copied();
        match c {
            '!' => {
                let before = at.checked_sub(1).map(|b| chars[b]);
                let closed = |close: char| chars[at + 1..].contains(&close);
                let inert = matches!(next, None | Some(' ' | '\t' | '\n' | '\r' | '='))
                    || (double && next == Some('"'))
                    || before == Some('$')
                    || (before == Some('{') && at > 1 && chars[at - 2] == '$' && closed('}'))
                    || (before == Some('[') && closed(']'));
                if !inert {
                    return true;
                }
            }
            '\\' if double && next == Some('"') => at += 1,
            '"' => double = !double,
            // A single-quoted string is skipped.
            '\'' if !double => {
                let escapes = ansi && at > 0 && chars[at - 1] == '$';
                at += 1;
                while let Some(&q) = chars.get(at) {
                    if q == '\'' {
                        break;
                    }
                    at += usize::from(escapes && q == '\\');
                    at += 1;
                }
            }
            '\\' if matches!(next, Some('\'' | '!')) => at += 1,
            _ => {}
        }
        at += 1;
    }
    false
}

/// Why `shell` may not run `line` as bash reads it, when it may not.
fn unlike_bash(shell: &str, line: &str) -> Option<String> {
    let name = basename(shell);
    match name {
        "bash" | "rbash" => None,
        "sh" | "dash" | "ash" => posix_differs(line)
            .map(|what| format!("{name} runs it, which may read {what} otherwise than bash")),
        _ => (!is_plain(line))
            .then(|| format!("{name} runs it, which does not read lines as bash does")),
    }
}

/// What of bash's own syntax `line` holds that a POSIX shell (`sh` is dash on Debian and
/// Ubuntu; busybox's ash) reads otherwise, so that a command bash would not run may be
/// hidden in it: `$'…'` (dash reads a `$`, then a single-quoted string that ends at the first
/// quote, even an escaped one), `((…))` (two subshells), `$[…]` (a `$` and a glob) and `[[`
/// (a command, its line going on at the next `;`).
fn posix_differs(line: &str) -> Option<&'static str> {
    let chars: Vec<char> = line.chars().collect();
    let before = |at: usize| at.checked_sub(1).map(|b| chars[b]);
    // Where a command may start: after an operator, or a keyword (`then [[`).
    let command_position = |at: usize| {
        let mut end = at;
        while end > 0 && matches!(chars[end - 1], ' ' | '\t') {
            end -= 1;
        }
        if end == 0 || ";&|(){}!\n".contains(chars[end - 1]) {
            return true;
        }
        let mut start = end;
        while start > 0 && !" \t\n;&|()".contains(chars[start - 1]) && end - start < 8 {
            start -= 1;
        }
        let word: String = chars[start..end].iter().collect();
        KEYWORDS.contains(&word.as_str()) || word == "time"
    };
    for (at, pair) in chars.windows(2).enumerate() {
        match (pair[0], pair[1]) {
            ('$', '\'') => return Some("`$'…'`"),
            ('$', '[') => return Some("`$[…]`"),
            ('(', '(') if before(at) != Some('$') => return Some("`((`"),
            ('[', '[') if command_position(at) => return Some("`[[`"),
            _ => {}
        }
    }
    None
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
            // A `case` subject or pattern, or a condition, is no place for an assignment.
            let part = cases.last().copied();
            lexer.patterns = condition
                || matches!(part, Some(CasePart::Subject | CasePart::In | CasePart::Patterns));
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
    /// read by [`Reader::line`].) A reserved word after an assignment or a redirection is
    /// none (`A=1 ! prog` runs `!`), and a word is an assignment as bash reads it before
    /// quote removal (`"A"=1 prog` runs `A=1`).
    fn command(&mut self, words: Vec<Word>, lines: &mut Vec<String>) {
        let mut assigns = Vec::new();
        // Whether a reserved word may still stand here.
        let mut reserved = true;
        let mut at = 0;
        while let Some(word) = words.get(at) {
            let unquoted = (!word.quoted).then_some(word.text.as_str());
            let keyword = unquoted.filter(|k| reserved || is_redirection(k));
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
                Some(op) if is_redirection(op) => {
                    at += 1;
                    reserved = false;
                }
                _ => match assigned_name(word) {
                    Some(name) => {
                        reserved = false;
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
            // `shopt -s autocd` (an interactive shell's): a later command naming a directory
            // changes to it, which the reading does not follow.
            let names_autocd = |w: &Word| w.expands || w.text.contains("autocd");
            if name == "shopt" && operands.iter().any(names_autocd) {
                self.moved_to(None);
            }
            if matches!(name.as_str(), "cd" | "pushd" | "popd") {
                // `cd` alone, `cd -`, `pushd +1` and `popd` go where the line does not say.
                let dir = operands.iter().find(|w| !(w.text.len() > 1 && w.text.starts_with('-')));
                self.moved_to(dir.filter(|w| name != "popd" && !w.text.starts_with(['-', '+'])));
            }
            for line in shell_lines(&name, &operands) {
                // su's line runs in the account's shell (or `-s SHELL`), often dash: the
                // default of `useradd` on Debian.
                let why = match name == SU.name {
                    true => posix_differs(&line).map(|what| {
                        format!("su runs it with the account's shell, which may read {what} otherwise than bash")
                    }),
                    false => unlike_bash(&name, &line),
                };
                if let Some(why) = why {
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

/// `NAME` of a word bash reads as an assignment before a command (`NAME=value`,
/// `NAME+=value`, `NAME[i]=value`; [`Word::assignment`]).
fn assigned_name(word: &Word) -> Option<&str> {
    let end = word.text.find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()));
    word.assignment.then(|| &word.text[..end.unwrap_or(word.text.len())])
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
    fn an_assignment_is_what_bash_reads_as_one_before_removing_quotes() {
        // bash's `assignment()` reads the word as written: with a quote, an escape or an
        // expansion in its name it is none, and the word (quotes removed) is the command.
        assert_reads(&[
            ("\"A\"=1 touch F; A\"B\"=1 touch F; 'A'=1 touch F", &["A=1", "AB=1", "A=1"]),
            ("A\\=1 touch F; \\A=1 touch F; $'A'=1 touch F", &["A=1"; 3]),
            ("A\"=\"1 touch F; A=1 B\"=1\" touch F; 1A=1 touch F", &["A=1", "B=1", "1A=1"]),
            ("A=\"1 2\" B+=3 _=4 C[1]+=5 touch F; A\\\nB=1 touch F", &["touch", "touch"]),
            // After an assignment or a redirection, a reserved word is a command's name.
            ("A=1 ! touch F; A=1 if x; >/dev/null { touch F", &["!", "if", "{"]),
        ]);
    }

    #[test]
    fn a_subscript_where_an_assignment_may_stand_is_read_to_its_bracket() {
        // There bash reads `NAME[` to its `]` as one word, blanks, operators, `#` and
        // newlines included: `prog` runs, after an assignment bash refuses.
        assert_reads(&[
            ("A[ x ]=1 touch F; A[ ; ls ; ]=1 touch F; A[ # ]=1 touch F", &["touch"; 3]),
            ("A[ \"]\" ]=1 touch F; A[ ']' ]=1 touch F; A[ \\] ]=1 touch F", &["touch"; 3]),
            ("A[ [ ] ]+=1 touch F; A[ x\n]=1 touch F; A[ x ]=(1 2) touch F", &["touch"; 3]),
            (">/dev/null A[ x ]=1 touch F; x=1 A[ x ]=1 touch F", &["touch"; 2]),
            ("true && A[ x ]=1 touch F | { B[ y ]=2 touch F; }", &["true", "touch", "touch"]),
            ("if A[ x ]=1 touch F; then :; fi; ! A[ x ]=1 touch F", &["touch", ":", "touch"]),
            ("time -p -- A[ x ]=1 touch F; coproc A[ x ]=1 touch F", &["touch"; 2]),
            ("case a in a) A[ x ]=1 touch F;; esac", &["touch"]),
            ("echo $(A[ ) ]=1 touch F)", &["echo", "touch"]),
            ("echo `A[ x ]=1 touch F`", &["echo", "touch"]),
            ("A[ $(echo ]) ]=1 touch F", &["touch", "echo"]),
            ("A=([ ) x ]=1 y); echo", &["echo"]),
            // Elsewhere, `[` is text.
            ("echo A[ x ]=1 touch F", &["echo"]),
            ("A=1 >/dev/null B[ x ]=1 touch F", &["B["]),
            ("case 'A[' in A[ ) touch F;; ]=1) ;; esac", &["touch"]),
            ("[[ a && A[ ]] ; touch F ; ]]=1 ]]", &["[[", "touch", "]]=1"]),
            ("A=(x y[ z ]); echo", &["echo"]),
        ]);
        // A subscript never closed: bash reads no further, and runs nothing of the line.
        assert!(simple_commands("echo x; A[ x=1 touch F").doubt.is_some());
    }

    #[test]
    fn a_control_escape_does_not_carry_an_ansi_c_string_past_its_quote() {
        // Bash pairs `\c` and ends the string at the quote after it; `\c\X` pairs `\X`.
        assert_reads(&[
            ("echo $'\\c'; touch F #'", &["echo", "touch"]),
            ("echo $'\\c\\\\'; touch F #'", &["echo", "touch"]),
            ("echo $'\\c\\' ';touch F #'", &["echo", "touch"]),
            ("echo $'\\cA'; touch F", &["echo", "touch"]),
        ]);
    }

    #[test]
    fn a_typed_line_history_expansion_would_change_is_doubted() {
        for line in [
            "echo touch F; !#:1-2",
            "!!",
            "!touch",
            "echo \"!#\"",
            "^ls^touch F",
            "echo $'\\'' !#",
            "echo $'\\' !#:0-1 '",
            "echo \\\"!#",
        ] {
            assert!(typed_into("/bin/bash", line).doubt.is_some(), "{line:?}");
            assert_eq!(simple_commands(line).doubt, None, "{line:?}");
        }
        for line in [
            "[ ! -f x ] && echo \"Done!\"",
            "if ! true; then echo; fi; [ a != b ]",
            "echo 'wow!x' \\!x $'it!x'",
            "sleep 1 & kill $!; echo ${!x} [!a]*; echo hi!",
        ] {
            assert_eq!(typed_into("/bin/bash", line).doubt, None, "{line:?}");
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
