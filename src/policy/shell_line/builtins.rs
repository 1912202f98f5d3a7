//! What builtins and debuggers do that a line does not show: the variables builtins set, and
//! the effects (`declare -n`, `hash -p`, gdb's command options...) that make a line doubtful.

use super::*;

/// The variables a builtin sets for the rest of the line: the `NAME=value` words of `export`,
/// `declare`, `typeset`, `local`, `readonly` and `let`; the names among the words of `read`,
/// `mapfile`, `readarray`, `getopts` and `printf` (`-v NAME`).
/// `unset` removes the names among its words. An option word's tails that are names count
/// too (`printf -vPATH`).
pub(super) fn variables_set(builtin: &str, args: &[Word]) -> Vec<String> {
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
pub(super) fn hidden_effect(builtin: &str, args: &[Word]) -> Option<&'static str> {
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
pub(super) fn runs_in_subscript(text: &str) -> bool {
    text.split_once('[').is_some_and(|(_, inside)| inside.contains("$(") || inside.contains('`'))
}
