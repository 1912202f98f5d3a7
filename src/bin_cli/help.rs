//! The help pages. The option and step lists are generated from their tables, so they are
//! always complete; the prose around them is here.

use super::options::OPTIONS;
use super::steps::STEPS;
use super::table::{Def, sections};

/// Column where item descriptions start.
const HELP_COLUMN: usize = 26;

/// The usage lines shown when no command is given.
pub(super) fn short_usage() -> String {
    format!(
        "termloom {}\n\n{USAGE}\nRun `termloom help` for an overview of the commands.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `termloom --version`.
pub(super) fn version() -> String {
    format!("termloom {}\n", env!("CARGO_PKG_VERSION"))
}

/// Column where the overview's descriptions start.
const OVERVIEW_COLUMN: usize = 15;

/// `termloom --help` and `termloom help`: an overview, one line a command under the help
/// that gives its details (`termloom help run`, `termloom help sessions`, `termloom help CMD`).
pub(super) fn top_help() -> String {
    let mut text = format!(
        "termloom {}: run terminal programs headlessly under a real pseudo-terminal\n\
         and a full terminal emulator; type into them, wait for what they show, and read\n\
         their screen and transcript.\n",
        env!("CARGO_PKG_VERSION")
    );
    let run = [("run", "Run a program through steps; print its transcript and screen.")];
    push_group(
        &mut text,
        "One program, start to end (`termloom help run`: its steps and examples):",
        &run,
    );
    let mut sessions = super::agent::overview();
    sessions.extend([
        ("attach", "Watch a session live in this terminal, or take it over."),
        ("server", "Run the server in the foreground (for a service manager)."),
    ]);
    push_group(
        &mut text,
        "Sessions that outlive each command (a server starts on first use), for an agent\n\
         with only a shell (`termloom help sessions`: all; `termloom help CMD`: one):",
        &sessions,
    );
    let mcp = [("mcp", "Serve sessions over the Model Context Protocol on stdio.")];
    push_group(&mut text, "An agent host with MCP (`termloom help mcp`):", &mcp);
    let rest = [
        ("help [TOPIC]", "This overview, or TOPIC's: run, sessions, mcp, or a command."),
        ("-h, --help", "This overview."),
        ("--version", "The version (also -V)."),
    ];
    push_group(&mut text, "", &rest);
    text
}

/// Appends a group of the overview: its title (none when empty), then a line a command.
fn push_group(text: &mut String, title: &str, rows: &[(&str, &str)]) {
    text.push('\n');
    if !title.is_empty() {
        text.push_str(title);
        text.push('\n');
    }
    for (name, what) in rows {
        text.push_str(&format!("  {name:<width$}{what}\n", width = OVERVIEW_COLUMN - 2));
    }
}

const USAGE: &str = "Usage:
  termloom run [OPTIONS] STEPS... -- PROGRAM [ARGS...]
  termloom run [OPTIONS] STEPS... --shell LINE
  termloom mcp [--config FILE] [--policy FILE]
  termloom mcp --server [-L NAME | --socket PATH]
  termloom start [--name N] [-- PROGRAM [ARGS...]]; termloom send ID --keys K ...
  termloom attach ID [--takeover]
  termloom server [-L NAME | --socket PATH]
  termloom help [run|mcp|sessions|send|...|attach|server]  (also: termloom run --help)
  termloom --version
";

/// `termloom run --help`.
pub(super) fn run_help() -> String {
    let mut text = String::from(RUN_INTRO);
    push_table(&mut text, OPTIONS);
    push_table(&mut text, STEPS);
    text.push_str("\nKeys:\n");
    text.push_str(&wrapped(termloom::ACCEPTED_KEY_FORMS, 2, HELP_WIDTH));
    text.push_str(RUN_DETAILS);
    text
}

/// `text` in lines of at most `width` columns, each indented by `indent`, broken at spaces
/// (not inside `quotes like these`, which hold a command line).
pub(super) fn wrapped(text: &str, indent: usize, width: usize) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut quoted = false;
    for word in text.split(' ') {
        match words.last_mut() {
            Some(last) if quoted => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_owned()),
        }
        quoted ^= word.matches('`').count() % 2 == 1;
    }
    let mut out = String::new();
    let mut line = String::new();
    for word in &words {
        if !line.is_empty() && indent + line.len() + 1 + word.len() > width {
            out.push_str(&format!("{:indent$}{line}\n", ""));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{:indent$}{line}\n", ""));
    }
    out
}

/// Appends a table's items, section by section.
fn push_table<A>(text: &mut String, table: &[Def<A>]) {
    for section in sections(table) {
        text.push('\n');
        text.push_str(section);
        text.push_str(":\n");
        for def in table.iter().filter(|d| d.section == section) {
            push_item(text, def);
        }
    }
}

/// Appends one item: its signature, then its help in the description column.
fn push_item<A>(text: &mut String, def: &Def<A>) {
    text.push_str(&item(&def.signature(), def.help, HELP_COLUMN));
}

/// The widest a help page's line is, in columns: a terminal's usual width.
pub(super) const HELP_WIDTH: usize = 80;

/// One item of a help page: `signature` indented by two, then `help` (its line breaks are
/// reflowed) in lines of at most [`HELP_WIDTH`] columns from `column` on; beside the
/// signature when it leaves room, else from the next line.
pub(super) fn item(signature: &str, help: &str, column: usize) -> String {
    let signature = format!("  {signature}");
    let help = help.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>();
    let lines = wrapped(&help.join(" "), column, HELP_WIDTH);
    if signature.len() >= column {
        return format!("{signature}\n{lines}");
    }
    match lines.get(column..) {
        Some(rest) => format!("{signature:<column$}{rest}"),
        None => format!("{signature}\n"),
    }
}

const RUN_INTRO: &str = "\
termloom run: start one program under a pseudo-terminal, perform the steps in
the order given, then print the transcript and the final screen.

Usage:
  termloom run [OPTIONS] STEPS... -- PROGRAM [ARGS...]
  termloom run [OPTIONS] STEPS... --shell LINE

After `--`, PROGRAM runs directly (looked up in PATH; no shell) with ARGS, which
are passed as they are. Options may appear anywhere before `--`; steps run in
the order given. Each wait blocks until its condition holds, so there is nothing
to sleep for. Without any step, termloom waits for the program to exit. After
the last step, a program that still runs is closed: SIGHUP and SIGTERM to all
its processes, SIGKILL after 3 seconds. A value may also be given as
--name=VALUE; a value taken from the next argument is used as it is, even when
it starts with a dash.
";

const RUN_DETAILS: &str = r#"
Escapes:
  --send and --submit decode backslash escapes: \r (Enter), \n (a line break),
  \t (Tab), \e (Escape), \xHH (one byte), \uHHHH (a character), \\ (a
  backslash). Any other backslash is sent as it is. A line break (\n or \r\n,
  escaped or not) is typed as Enter, as a person types it; --keys '<C-j>' sends
  a line feed. Wait texts and regular expressions are not decoded.

Transcript and screen:
  The transcript is the output as a person would have read it, line by line:
  what scrolled by plus the lines on the screen down to the cursor, with lines
  redrawn in place (progress bars) in their final state. Full-screen programs
  (vim, less, htop) draw on the alternate screen, which is not part of the
  transcript. The screen is the visible grid: a header line (size, cursor,
  primary or alternate screen, title), a line of input modes, then the rows
  between two rules; empty rows at the bottom are counted, not printed.

Output:
  By default, the output of --screen and --read steps is printed as they run,
  each under a line `--- step N: --screen ---`; at the end come
      --- transcript ---
      (the whole transcript, or its last --max-bytes)
      --- screen ---
      (the final screen)
      --- exit: STATUS ---
  The final screen is the one the program left, or, when termloom closed the
  program, the screen just before closing it. A --record file that could not be
  written to the end (a full disk), or a recording that could not be put at its
  path once the program ran (it is whole under its temporary name), is said
  before the exit line:
      --- recording failed, the file lacks the rest: ERROR ---
      --- recording not at its path: WHY, and where it is ---
  With --json, stdout gets one JSON object instead:
      exit                  how the program ended: {"code": N} or {"signal": N}
      closed_by_termloom    true when termloom had to close the program
      screen                the final screen: cols, height, rows (strings, from
                            the top down to the last row that is not blank:
                            blank rows at the bottom are left out, height counts
                            them), cursor {row, col, visible}, alternate, title,
                            modes
      transcript            the whole transcript as one string
      transcript_truncated  true when its start was left out (--max-bytes) or
                            its oldest lines were no longer kept
      captures              the --screen and --read outputs, in order:
                            {"step": N, "screen": {...}} or {"step": N, "read":
                            "..."}
      error                 null, or {"step": N, "kind": "timeout" | "exited" |
                            "closed" | "error" | "command", "message": "...",
                            "screen": {...} or null} when a step failed; its
                            screen is the one at that moment, null when it is
                            the final one
      recording_error       null, or why the --record file lacks the rest of
                            the session: the error of the write that failed (a
                            full disk; a warning on stderr says it too), or why
                            the recording is not at its path, and where it is
  A failure before the program runs (a malformed command line, a program that
  cannot start) prints only {"error": {"kind": "usage" | "error", "code": "...",
  "message": "..."}} (code: usage, program_not_found...), the shape every
  command's failure has with --json.
  When a step fails, the program is closed, the report is printed as usual, and
  stderr says which step failed and why, followed by the screen at that moment
  when it differs from the report's final screen (the screen is printed once).

Exit status:
  N      the program's own exit code (128+N when signal N ended it), when it
         exited by itself
  0      the program still ran after the last step and termloom closed it
  1      a step failed with an error (such as typing after the program exited),
         the program could not be started, or it exited while a step waited for
         something other than its exit
  2      bad arguments
  124    a wait timed out
  128+N  termloom received signal N (SIGHUP, SIGINT or SIGTERM): it closed the
         program first

Examples:
  Edit a file in vim and show the screen:
    termloom run --wait-input --send 'ggdGihello from termloom\e' \
      --send ':w\r' --wait-screen 'written' --screen --send ':q\r' --wait-exit \
      -- vim -u NONE -N /tmp/termloom-demo.txt

  Compute in a Python REPL:
    termloom run --wait-text '>>> ' --submit '6 * 7' --wait-regex '^42$' \
      --wait-screen-regex '^>>>$' --submit 'exit()' --wait-exit -- python3 -q

  A shell command line, its exit code and output as JSON:
    termloom run --json --shell 'echo hi; exit 3'

  Resize the terminal under a running shell:
    termloom run --size 80x24 --env 'PS1=$ ' --wait-screen '$' --resize 100x40 \
      --submit 'stty size; exit' --wait-exit -- bash --norc --noprofile

  Drive vim with keys (application cursor mode is handled) and save:
    termloom run --wait-input \
      --keys 'ifirst<Enter>second<Esc><Up>Atop<Esc>:wq<Enter>' \
      --wait-exit -- vim -u NONE -N /tmp/termloom-keys.txt

  A shell with prompt marks: run commands, get their output and exit codes:
    termloom run --shell-integration --wait-prompt --run-command 'ls /' \
      --run-command 'test -d /tmp' -- bash

  Start a server, wait at most five seconds until it listens, then close it:
    termloom run --timeout 5000 --wait-regex 'Serving HTTP on .* port [0-9]+' \
      -- python3 -m http.server 0
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_help_lists_every_option_and_step() {
        let help = run_help();
        let options = OPTIONS.iter().map(Def::signature);
        for signature in options.chain(STEPS.iter().map(Def::signature)) {
            assert!(help.contains(&format!("\n  {signature} ")), "{signature} missing");
        }
        assert!(!top_help().contains(&help));
    }

    #[test]
    fn descriptions_start_in_one_column() {
        let help = run_help();
        let line = help.lines().find(|l| l.starts_with("  --screen ")).expect("--screen listed");
        assert_eq!(line.find("Print the screen"), Some(HELP_COLUMN), "{line}");
    }
}
