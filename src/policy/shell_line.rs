//! The simple commands of a shell command line, as far as a policy can see them without
//! running anything: the words of each command in a list, pipeline, subshell, group or
//! command substitution, with the assignments before them and the programs that wrappers
//! such as `sudo`, `env` or `exec` run.
//!
//! What this cannot see, and a policy therefore cannot rule on: what `eval`, `source` or `.`
//! run, the contents of scripts, aliases and shell functions, a program named by an expansion
//! (`$CMD args`: its program is the word as written), and whatever a program starts in turn.

/// One simple command of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The program word, as written (quotes removed).
    pub program: String,
    /// The words after it.
    pub args: Vec<String>,
    /// The names the command's leading assignments set (`LD_PRELOAD=x ls` sets `LD_PRELOAD`).
    pub assigns: Vec<String>,
}

/// Words that only introduce or end a compound command: the command is the next word.
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "(", ")", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
    "time", "in", "esac",
];

/// Programs that run another program named among their arguments, with the options of theirs
/// that take a value (the next word) and how many words come before the program.
const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"], 0),
    ("doas", &["-u", "-C"], 0),
    ("env", &["-u", "-C", "-S", "--unset", "--chdir"], 0),
    ("exec", &["-a"], 0),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("nohup", &[], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("setsid", &[], 0),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    ("time", &["-f", "-o"], 0),
    ("xargs", &["-I", "-n", "-P", "-d", "-E", "-L", "-s", "-a"], 0),
    ("su", &["-s", "-g", "-G", "--shell", "--group"], 1),
    ("chroot", &["--userspec", "--groups"], 1),
    ("ionice", &["-c", "-n", "-p"], 0),
    ("taskset", &[], 1),
    ("strace", &["-o", "-e", "-p", "-s", "-u", "-E"], 0),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u"], 0),
    ("unbuffer", &[], 0),
    ("gdb", &[], 0),
];

/// Programs whose `-c LINE` runs a command line.
const LINE_RUNNERS: &[&str] =
    &["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "su", "busybox"];

/// Longest line looked into, and most commands reported, so that a hostile line costs work
/// in proportion to its bytes and a bounded result.
const MAX_COMMANDS: usize = 4096;

/// The simple commands of `line`, in order.
pub(crate) fn simple_commands(line: &str) -> Vec<SimpleCommand> {
    let mut out = Vec::new();
    collect(line, &mut out, 0);
    out
}

/// The commands an argv runs: the program, the programs of wrappers (`sudo rm`), and the
/// commands of a `-c LINE` given to a shell.
pub(crate) fn argv_commands(words: Vec<String>) -> Vec<SimpleCommand> {
    let mut out = Vec::new();
    let mut nested = Vec::new();
    push_command(words, &mut out, &mut nested);
    for line in nested {
        collect(&line, &mut out, 1);
    }
    out.truncate(MAX_COMMANDS);
    out
}

fn collect(line: &str, out: &mut Vec<SimpleCommand>, depth: usize) {
    let mut words: Vec<String> = Vec::new();
    let mut lexer = Lexer { chars: line.chars().collect(), at: 0, nested: Vec::new() };
    loop {
        match lexer.next_token() {
            Token::Word(word) => words.push(word),
            Token::Separator => push_command(std::mem::take(&mut words), out, &mut lexer.nested),
            Token::End => break,
        }
    }
    push_command(words, out, &mut lexer.nested);
    // Command substitutions and process substitutions run commands of their own.
    if depth < 16 {
        for inner in lexer.nested {
            collect(&inner, out, depth + 1);
        }
    }
    out.truncate(MAX_COMMANDS);
}

/// Adds the command `words` make (skipping keywords, redirections and assignments), and the
/// program a wrapper among them runs.
fn push_command(words: Vec<String>, out: &mut Vec<SimpleCommand>, nested: &mut Vec<String>) {
    if out.len() >= MAX_COMMANDS {
        return;
    }
    let mut words = words.into_iter().peekable();
    let mut assigns = Vec::new();
    // `for NAME in WORDS` and `case WORD in`: nothing there is run.
    let mut program = None;
    while let Some(word) = words.next() {
        if word == "for" || word == "case" || word == "select" {
            return;
        }
        if KEYWORDS.contains(&word.as_str()) || is_redirection(&word) {
            if is_bare_redirection(&word) {
                words.next();
            }
            continue;
        }
        if let Some(name) = assignment_name(&word) {
            assigns.push(name.to_owned());
            continue;
        }
        program = Some(word);
        break;
    }
    let Some(program) = program else { return };
    let args: Vec<String> = words.collect();
    let name = basename(&program).to_owned();
    let wrapped = wrapped_program(&name, &args);
    if LINE_RUNNERS.contains(&name.as_str()) {
        nested.extend(line_argument(&args).map(str::to_owned));
    }
    out.push(SimpleCommand { program, args: args.clone(), assigns: assigns.clone() });
    if let Some(at) = wrapped {
        // The wrapper's own assignments (`env A=b prog`) apply to the program it runs.
        let more = args[..at].iter().filter_map(|a| assignment_name(a)).map(str::to_owned);
        assigns.extend(more);
        let before = out.len();
        push_command(args[at..].to_vec(), out, nested);
        if let Some(inner) = out.get_mut(before) {
            for name in assigns {
                if !inner.assigns.contains(&name) {
                    inner.assigns.push(name);
                }
            }
        }
    }
}

/// Where the program a wrapper runs starts among its arguments.
fn wrapped_program(wrapper: &str, args: &[String]) -> Option<usize> {
    let &(_, valued, mut positionals) = WRAPPERS.iter().find(|(name, _, _)| *name == wrapper)?;
    let mut at = 0;
    while at < args.len() {
        let arg = &args[at];
        if arg == "--" {
            at += 1;
        } else if arg.starts_with('-') && arg.len() > 1 {
            if valued.contains(&arg.as_str()) {
                at += 1;
            }
            if arg == "-c" && wrapper == "su" {
                // `su -c LINE`: the line is looked into on its own.
                return None;
            }
        } else if assignment_name(arg).is_some() && wrapper == "env" {
        } else if positionals > 0 {
            positionals -= 1;
        } else {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// The `LINE` of `-c LINE` (also `-lc LINE`, `-ic LINE`).
fn line_argument(args: &[String]) -> Option<&str> {
    let at = args.iter().position(|a| {
        a.starts_with('-') && !a.starts_with("--") && a.ends_with('c') && a.len() > 1
    })?;
    args.get(at + 1).map(String::as_str)
}

/// The last path component of a program word.
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `NAME` of a `NAME=value` word.
fn assignment_name(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

/// `>file`, `2>&1`, `<in`, `>>log`, `&>out`.
fn is_redirection(word: &str) -> bool {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.starts_with('>') || rest.starts_with('<') || rest.starts_with("&>")
}

/// A redirection operator whose target is the next word (`>`, `2>>`, `<`).
fn is_bare_redirection(word: &str) -> bool {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    is_redirection(word) && rest.chars().all(|c| matches!(c, '>' | '<' | '&' | '|'))
}

enum Token {
    Word(String),
    Separator,
    End,
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    /// The text of command substitutions met, to be looked into as lines of their own.
    nested: Vec<String>,
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next_token(&mut self) -> Token {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\\' && self.chars.get(self.at + 1) == Some(&'\n') {
                self.at += if c == '\\' { 2 } else { 1 };
            } else if c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.at += 1;
                }
            } else {
                break;
            }
        }
        let Some(c) = self.peek() else { return Token::End };
        if matches!(c, ';' | '&' | '|' | '\n' | '(' | ')' | '`') {
            if c == '`' {
                self.at += 1;
                let inner = self.until_backtick();
                self.nested.push(inner);
                return Token::Separator;
            }
            self.at += 1;
            while self.peek().is_some_and(|n| matches!(n, ';' | '&' | '|') && n == c) {
                self.at += 1;
            }
            return Token::Separator;
        }
        Token::Word(self.word())
    }

    /// One word, quotes removed; a command substitution in it is remembered.
    fn word(&mut self) -> String {
        let mut word = String::new();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | ')' | '`' => break,
                '(' if word.is_empty() => break,
                '<' | '>' if word.is_empty() || word.chars().all(|c| c.is_ascii_digit()) => {
                    // A redirection operator is a word of its own; its target follows.
                    while let Some(op) = self.peek().filter(|c| matches!(c, '<' | '>' | '&')) {
                        word.push(op);
                        self.at += 1;
                    }
                    if self.peek() == Some('(') {
                        // Process substitution: `<(cmd)`.
                        self.at += 1;
                        let inner = self.until_close();
                        self.nested.push(inner);
                    }
                    return word;
                }
                '\\' => {
                    self.at += 1;
                    if let Some(next) = self.peek() {
                        word.push(next);
                        self.at += 1;
                    }
                }
                '\'' => {
                    self.at += 1;
                    while let Some(q) = self.peek() {
                        self.at += 1;
                        if q == '\'' {
                            break;
                        }
                        word.push(q);
                    }
                }
                '"' => {
                    self.at += 1;
                    while let Some(q) = self.peek() {
                        self.at += 1;
                        match q {
                            '"' => break,
                            '\\' => {
                                if let Some(next) = self.peek() {
                                    word.push(next);
                                    self.at += 1;
                                }
                            }
                            '$' if self.peek() == Some('(') => self.substitution(&mut word),
                            '`' => {
                                let inner = self.until_backtick();
                                self.nested.push(inner);
                            }
                            _ => word.push(q),
                        }
                    }
                }
                '$' if self.chars.get(self.at + 1) == Some(&'(') => {
                    self.at += 1;
                    self.substitution(&mut word);
                }
                _ => {
                    word.push(c);
                    self.at += 1;
                }
            }
        }
        word
    }

    /// At the `(` of `$(`: remembers the substitution's text and leaves `$(…)` in the word.
    fn substitution(&mut self, word: &mut String) {
        self.at += 1;
        let inner = self.until_close();
        word.push_str("$(…)");
        self.nested.push(inner);
    }

    /// The text up to the `)` closing an opened `(`, nesting counted; consumes the `)`.
    fn until_close(&mut self) -> String {
        let start = self.at;
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return self.chars[start..self.at - 1].iter().collect();
                    }
                }
                '\\' => self.at += 1,
                _ => {}
            }
        }
        self.chars[start..self.at.min(self.chars.len())].iter().collect()
    }

    /// The text up to the next unescaped backtick; consumes it.
    fn until_backtick(&mut self) -> String {
        let start = self.at;
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '`' => return self.chars[start..self.at - 1].iter().collect(),
                '\\' => self.at += 1,
                _ => {}
            }
        }
        self.chars[start..self.at.min(self.chars.len())].iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(line: &str) -> Vec<String> {
        simple_commands(line).into_iter().map(|c| c.program).collect()
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
        let commands = simple_commands("LD_PRELOAD=/x.so env PATH=/evil ls");
        assert_eq!(commands[0].assigns, ["LD_PRELOAD"]);
        assert_eq!(commands[1].program, "ls");
        assert_eq!(commands[1].assigns, ["LD_PRELOAD", "PATH"]);
    }

    #[test]
    fn hostile_lines_cost_bounded_work() {
        let deep = "$(".repeat(10_000);
        assert!(simple_commands(&deep).len() <= MAX_COMMANDS);
        let many = "a;".repeat(100_000);
        assert_eq!(simple_commands(&many).len(), MAX_COMMANDS);
        let unterminated = "echo \"$(ls 'x";
        assert_eq!(programs(unterminated), ["echo", "ls"]);
    }
}
