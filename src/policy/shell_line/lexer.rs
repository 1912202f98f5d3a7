//! The shell line's words and operators ([`Token`]), quotes removed, with the text of the
//! substitutions and here-documents they hold, for [`super::Reader`] to read.

use super::*;

/// One word of a line, quotes removed.
#[derive(Debug, Clone, Default)]
pub(super) struct Word {
    pub(super) text: String,
    /// Whether the shell expands it into something else: a parameter, a command or process
    /// substitution, a glob, a brace expansion.
    pub(super) expands: bool,
    /// Whether any of it was quoted (a quoted `if` is no keyword).
    pub(super) quoted: bool,
    /// Whether bash takes it for an assignment where one may stand: as written, a name, then
    /// `=`, `+=`, or a subscript `[…]` and one of them (bash's `assignment()`, which reads
    /// the word before its quotes are removed: `"A"=1`, `A\=1`, `$'A'=1` and `A"B"=1` are
    /// no assignments but the command `A=1`).
    pub(super) assignment: bool,
}

impl Word {
    /// A word of an argv: nothing expands.
    pub(super) fn literal(text: String) -> Word {
        Word { text, expands: false, quoted: true, assignment: false }
    }
}

pub(super) enum Token {
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

/// How far the start of a word, as written, reads as an assignment's, as bash's
/// `assignment()` reads it: a name, then `=`, `+=`, or a subscript and one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Head {
    /// A name so far (or nothing yet).
    Name,
    /// Within a subscript after the name, its `[` nested this deep: what is quoted or
    /// expanded in it does not matter.
    Subscript(usize),
    /// After the subscript's `]`.
    Subscripted,
    /// After the `+` of a `+=`.
    Plus,
    /// An assignment: its `=` came where one may.
    Assignment,
    /// No assignment.
    No,
}

impl Head {
    /// After an unquoted character `c` of the word as written; `first` when it is the word's
    /// first.
    fn plain(self, c: char, first: bool) -> Head {
        match self {
            Head::Name if first && !(c == '_' || c.is_ascii_alphabetic()) => Head::No,
            Head::Name if c == '=' => Head::Assignment,
            Head::Name if c == '+' => Head::Plus,
            Head::Name if c == '[' => Head::Subscript(1),
            Head::Name if c == '_' || c.is_ascii_alphanumeric() => Head::Name,
            Head::Subscript(1) if c == ']' => Head::Subscripted,
            Head::Subscript(n) if c == ']' => Head::Subscript(n - 1),
            Head::Subscript(n) if c == '[' => Head::Subscript(n + 1),
            Head::Subscript(n) => Head::Subscript(n),
            Head::Subscripted if c == '+' => Head::Plus,
            Head::Subscripted | Head::Plus if c == '=' => Head::Assignment,
            Head::Assignment => Head::Assignment,
            _ => Head::No,
        }
    }

    /// After something quoted, escaped or expanded: no name holds it.
    fn other(self) -> Head {
        match self {
            Head::Subscript(_) | Head::Assignment => self,
            _ => Head::No,
        }
    }
}

/// A here-document waiting for its body (the lines after the next newline).
struct Heredoc {
    delimiter: String,
    /// A quoted delimiter (`<<'EOF'`): nothing in the body expands.
    quoted: bool,
    /// `<<-`: leading tabs are stripped from the body's lines.
    strip_tabs: bool,
}

pub(super) struct Lexer<'a> {
    chars: &'a [char],
    at: usize,
    /// How many substitutions deep this text is.
    depth: usize,
    /// The text of command and process substitutions met, to be read as lines of their own.
    pub(super) nested: Vec<String>,
    /// Why the text cannot be read with certainty, when it cannot.
    pub(super) doubt: Option<String>,
    heredocs: Vec<Heredoc>,
    /// After a `<<` (false) or `<<-` (true): the next word is a here-document's delimiter.
    delimiter_next: Option<bool>,
    /// Whether an assignment may stand where the next word starts (bash's
    /// `assignment_acceptable`): there, bash reads a `[` after a name to its `]` as part of
    /// the word, blanks, operators and newlines included (`A[ ; x ]=1 prog` runs `prog`).
    assign_ok: bool,
    /// Whether a reserved word may stand there (bash's `reserved_word_acceptable`).
    reserved_ok: bool,
    /// Whether the simple command has had no word yet, only redirections: after their
    /// targets, an assignment may still stand (bash's `PST_REDIRLIST`).
    redirections_only: bool,
    /// Whether the last word was a redirection operator, so the next is its target.
    target_next: bool,
    /// After `time` (1) or `time -p` (2), where `-p` and `--` keep a command's place.
    after_time: u8,
    /// Set by the reader: the next word is a `case` subject or pattern, or in `[[ … ]]`, where
    /// no assignment stands.
    pub(super) patterns: bool,
    /// Within `NAME=(…)`: a `[` that starts a word opens a subscript (`[k]=v`).
    in_array: bool,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(chars: &'a [char], depth: usize) -> Lexer<'a> {
        Lexer {
            chars,
            at: 0,
            depth,
            nested: Vec::new(),
            doubt: None,
            heredocs: Vec::new(),
            delimiter_next: None,
            assign_ok: true,
            reserved_ok: true,
            redirections_only: true,
            target_next: false,
            after_time: 0,
            patterns: false,
            in_array: false,
        }
    }

    /// A command may start at the next word (after an operator, a `(` or a `)`).
    fn command_starts(&mut self) {
        self.assign_ok = true;
        self.reserved_ok = true;
        self.redirections_only = true;
        self.target_next = false;
        self.after_time = 0;
    }

    /// Where the word after `word` stands, as bash's parser tells it from the last token.
    fn after_word(&mut self, word: &Word) {
        let time = std::mem::take(&mut self.after_time);
        if std::mem::take(&mut self.target_next) {
            self.assign_ok = self.redirections_only;
            self.reserved_ok = false;
            return;
        }
        let text = (!word.quoted).then_some(word.text.as_str());
        match text {
            Some(op) if is_redirection(op) => {
                self.target_next = true;
                self.assign_ok = false;
                self.reserved_ok = false;
            }
            Some(reserved) if self.reserved_ok && !self.patterns => {
                let time = match reserved {
                    "time" => Some(1),
                    "-p" if time == 1 => Some(2),
                    "--" if time > 0 => Some(3),
                    _ => None,
                };
                if time.is_some() || COMMAND_RESERVED.contains(&reserved) {
                    self.command_starts();
                    self.after_time = time.unwrap_or(0);
                } else {
                    self.not_a_command_place(word);
                }
            }
            _ => self.not_a_command_place(word),
        }
    }

    /// After a word that is no reserved word opening a command: an assignment keeps the place
    /// for another (but for no reserved word); anything else ends it.
    fn not_a_command_place(&mut self, word: &Word) {
        self.assign_ok &= word.assignment && !self.patterns;
        self.reserved_ok = false;
        self.redirections_only = false;
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn doubt(&mut self, why: String) {
        self.doubt.get_or_insert(why);
    }

    pub(super) fn next_token(&mut self) -> Token {
        let token = self.token();
        match &token {
            Token::Word(word) => self.after_word(word),
            _ => self.command_starts(),
        }
        token
    }

    fn token(&mut self) -> Token {
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
        let mut head = Head::Name;
        // Where the text was when the `=` made it an assignment.
        let mut assigned_at = None;
        while let Some(c) = self.peek() {
            // Nothing of the word read yet (but line continuations, which bash removes first).
            let first = head == Head::Name && word.text.is_empty();
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | ')' => break,
                // `NAME=(…)`: an array's elements.
                '(' if assigned_at == Some(word.text.len()) => {
                    self.at += 1;
                    self.array();
                    word.text.push_str("(…)");
                    head = Head::Assignment;
                }
                // `NAME[` where an assignment may stand, or `[` first in an array's element:
                // bash reads the subscript to its `]` as part of the word.
                '[' if (head == Head::Name && !first && self.assign_ok && !self.patterns)
                    || (first && self.in_array) =>
                {
                    self.at += 1;
                    word.text.push('[');
                    bare.push('[');
                    head = match self.subscript(&mut word) {
                        true => Head::Subscripted,
                        false => Head::No,
                    };
                    bare.push(']');
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
                    head = head.other();
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
                            head = head.other();
                            self.at += 1;
                        }
                        None => {}
                    }
                }
                '\'' => {
                    self.at += 1;
                    self.single_quoted(&mut word.text);
                    word.quoted = true;
                    head = head.other();
                }
                '"' => {
                    self.at += 1;
                    self.double_quoted(&mut word);
                    word.quoted = true;
                    head = head.other();
                }
                '$' => {
                    self.at += 1;
                    self.dollar(&mut word, false);
                    head = head.other();
                }
                '`' => {
                    self.at += 1;
                    self.backtick(&mut word, false);
                    head = head.other();
                }
                // A tilde prefix: `~` (`$HOME`), `~user`, `~+`, `~-` at the start of a word
                // (or after an assignment's `=` or `:`) is replaced by a directory.
                '~' if (word.text.is_empty() && !word.quoted)
                    || word.text.ends_with(['=', ':']) =>
                {
                    word.text.push(c);
                    bare.push(c);
                    word.expands = true;
                    head = head.plain(c, first);
                    self.at += 1;
                }
                _ => {
                    word.text.push(c);
                    bare.push(c);
                    let before = head;
                    head = head.plain(c, first);
                    if before != Head::Assignment && head == Head::Assignment {
                        assigned_at = Some(word.text.len());
                    }
                    self.at += 1;
                }
            }
        }
        word.expands |= is_pattern(&bare);
        word.assignment = head == Head::Assignment;
        word
    }

    /// Just after the `[` of a subscript bash reads as part of its word (`NAME[` where an
    /// assignment may stand): the text up to the `]` that closes it, `[` and `]` counted in
    /// pairs, its quotes, escapes and substitutions read as in a word; blanks, operators, `#`
    /// and newlines are text. Says whether the `]` was found: without it bash reads no
    /// further, and that is doubted.
    fn subscript(&mut self, word: &mut Word) -> bool {
        if self.depth >= MAX_DEPTH {
            self.doubt(format!("subscripts nest more than {MAX_DEPTH} deep"));
            self.at = self.chars.len();
            return false;
        }
        self.depth += 1;
        let mut pairs = 1usize;
        let found = loop {
            let Some(c) = self.peek() else { break false };
            self.at += 1;
            match c {
                '\\' => match self.peek() {
                    Some('\n') => self.at += 1,
                    Some(next) => {
                        word.text.push(next);
                        self.at += 1;
                    }
                    None => {}
                },
                '\'' => self.single_quoted(&mut word.text),
                '"' => self.double_quoted(word),
                '`' => self.backtick(word, false),
                '$' => self.dollar(word, false),
                _ => {
                    word.text.push(c);
                    match c {
                        '[' => pairs += 1,
                        ']' if pairs == 1 => break true,
                        ']' => pairs -= 1,
                        _ => {}
                    }
                }
            }
        };
        self.depth -= 1;
        if !found {
            self.doubt("an array subscript is not closed by `]`".to_owned());
        }
        found
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
            // Bash finds the end of `$'…'` pairing each backslash with the one character
            // after it, before it decodes: `\c'` is `\c` and the closing quote, and `\c\X`
            // the control character of a backslash, then `X` (`\c\\`: of a backslash alone).
            'c' => match self.peek() {
                None | Some('\'') => None,
                Some('\\') => {
                    self.at += 1;
                    let paired = self.peek();
                    self.at = (self.at + 1).min(self.chars.len());
                    text.push('\x1c');
                    text.extend(paired.filter(|&p| p != '\\'));
                    return;
                }
                Some(n) => {
                    self.at += 1;
                    char::from_u32(n as u32 & 0x1f)
                }
            },
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
        // The elements are words, not commands: no `NAME[` in them opens a subscript, but a
        // `[` that starts one does. Read as tokens, they do not move the place of the word
        // that holds them.
        let (assign_ok, in_array) = (self.assign_ok, self.in_array);
        (self.assign_ok, self.in_array) = (false, true);
        loop {
            match self.token() {
                Token::Close | Token::End => break,
                Token::Word(_) | Token::Separator('\n') => {}
                _ => self.doubt("an array assignment holds more than words".into()),
            }
        }
        (self.assign_ok, self.in_array) = (assign_ok, in_array);
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
