//! The steps of `termloom run`: what each does ([`Step`]) and the table that names, parses and
//! documents them ([`STEPS`]). Adding a step is one [`Step`] variant (if no existing one fits),
//! one table entry, and one arm in `run::perform_step`.

use termloom::Until;

use super::table::Def;
use super::values::{self, Size};

/// One action of a run, performed in the order given.
#[derive(Debug)]
pub(super) enum Step {
    /// Type text, backslash escapes decoded.
    Send(String),
    /// Type text, backslash escapes decoded, then Enter.
    Submit(String),
    /// Block until a condition holds.
    Wait(WaitFor),
    /// Resize the terminal.
    Resize(Size),
    /// Print the screen now.
    Screen,
    /// Print the transcript output that is new since the previous read.
    Read,
    /// Write the screen as an image (SVG or PNG, by the extension) to this file.
    Screenshot(std::path::PathBuf),
    /// Type a key script (text and `<Key>` names).
    Keys(String),
    /// Paste text (escapes decoded), bracketed when the program asked for it.
    Paste(String),
    /// Send a signal to the foreground process group.
    Signal(termloom::Signal),
    /// Run a command line in a shell with integration and print its output.
    RunCommand(String),
}

/// A wait step's condition, and whether the program's exit satisfies it.
#[derive(Debug)]
pub(super) struct WaitFor {
    /// The condition.
    pub until: Until,
    /// True for waits on the exit itself; for the others the exit is a failure.
    pub exit_satisfies: bool,
}

impl WaitFor {
    /// A wait that fails if the program exits before `until` holds.
    fn on(until: Until) -> Step {
        Step::Wait(WaitFor { until, exit_satisfies: false })
    }

    /// The wait for the program's exit.
    pub(super) fn exit() -> Step {
        Step::Wait(WaitFor { until: Until::exit(), exit_satisfies: true })
    }
}

/// Parses a step's value (the empty string for steps that take none).
pub(super) type StepParser = fn(&str) -> Result<Step, String>;

/// A step's table entry.
pub(super) type StepDef = Def<StepParser>;

const TYPING: &str = "Typing steps";
const WAITING: &str = "Waiting steps (each waits at most --timeout; see Exit status)";
const TERMINAL: &str = "Terminal steps";
const OUTPUT: &str = "Output steps";

/// A wait for a text (`Until::text`, `Until::screen_contains`), checked as the library checks
/// it ([`Until::check`]) before the run starts anything.
fn text_wait(until: fn(String) -> Until, text: &str) -> Result<Step, String> {
    let until = until(text.to_owned());
    until.check().map_err(|err| values::single_line(&err.to_string()))?;
    Ok(WaitFor::on(until))
}

/// A command line for `--run-command`, checked as the library checks it
/// ([`termloom::Session::check_command_line`]) before the run starts anything.
fn command_line(line: &str) -> Result<Step, String> {
    termloom::Session::check_command_line(line)
        .map_err(|err| values::single_line(&err.to_string()))?;
    Ok(Step::RunCommand(line.to_owned()))
}

/// A regular expression wait.
fn regex_wait(compile: fn(&str) -> termloom::Result<Until>, pattern: &str) -> Result<Step, String> {
    compile(pattern).map(WaitFor::on).map_err(|err| values::single_line(&err.to_string()))
}

/// Every step, in the order the help lists them.
pub(super) const STEPS: &[StepDef] = &[
    Def {
        name: "--send",
        alias: None,
        value: Some("TEXT"),
        section: TYPING,
        help: "Type TEXT. Backslash escapes are decoded (see Escapes): \\r is\n\
               Enter, as is a line break (\\n), \\e is Escape.",
        action: |v| Ok(Step::Send(v.to_owned())),
    },
    Def {
        name: "--submit",
        alias: None,
        value: Some("TEXT"),
        section: TYPING,
        help: "Type TEXT (escapes decoded), then Enter (\\r).",
        action: |v| Ok(Step::Submit(v.to_owned())),
    },
    Def {
        name: "--keys",
        alias: None,
        value: Some("SCRIPT"),
        section: TYPING,
        help: "Press keys: text mixed with <Key> names, as in vim mappings:\n\
               'ihello<Esc>:wq<Enter>', '<C-c>', '<Up><Up><Enter>', '<lt>' for\n\
               a literal <. Keys follow the program's modes (application\n\
               cursor keys, kitty keyboard protocol). See Keys.",
        action: |v| {
            termloom::parse_key_script(v).map_err(|e| values::single_line(&e.to_string()))?;
            values::bare_key_names(v, "--send").map(|()| Step::Keys(v.to_owned()))
        },
    },
    Def {
        name: "--paste",
        alias: None,
        value: Some("TEXT"),
        section: TYPING,
        help: "Paste TEXT (escapes decoded): wrapped in bracketed-paste\n\
               markers when the program enabled them, so a multi-line paste\n\
               into bash does not run until Enter.",
        action: |v| Ok(Step::Paste(v.to_owned())),
    },
    Def {
        name: "--signal",
        alias: None,
        value: Some("NAME"),
        section: TYPING,
        help: "Send a signal (INT, TERM, KILL, QUIT, HUP, TSTP, STOP, CONT,\n\
               WINCH, USR1, USR2; SIG prefix optional) to the terminal's\n\
               foreground process group.",
        action: |v| {
            v.parse::<termloom::Signal>()
                .map(Step::Signal)
                .map_err(|e| values::single_line(&e.to_string()))
        },
    },
    Def {
        name: "--run-command",
        alias: None,
        value: Some("LINE"),
        section: TYPING,
        help: "Type LINE into the shell, wait for its prompt to return and\n\
               print the command's own output; the run fails, naming the exit\n\
               code, when the command fails. Needs --shell-integration and an\n\
               interactive bash or zsh (`-- bash`).",
        action: command_line,
    },
    Def {
        name: "--wait-screen",
        alias: None,
        value: Some("TEXT"),
        section: WAITING,
        help: "Wait until TEXT appears on the screen, within one row.",
        action: |v| text_wait(Until::screen_contains, v),
    },
    Def {
        name: "--wait-screen-regex",
        alias: None,
        value: Some("RE"),
        section: WAITING,
        help: "Wait until the regular expression RE matches a row of the\n\
               screen (Rust regex syntax; ^ and $ are the row's ends).",
        action: |v| regex_wait(Until::screen_regex, v),
    },
    Def {
        name: "--wait-text",
        alias: None,
        value: Some("TEXT"),
        section: WAITING,
        help: "Wait until TEXT appears in the transcript output not yet\n\
               printed by --read (the line being typed at the cursor\n\
               included), within one line.",
        action: |v| text_wait(Until::text, v),
    },
    Def {
        name: "--wait-regex",
        alias: None,
        value: Some("RE"),
        section: WAITING,
        help: "Wait until RE matches a line of the transcript output not yet\n\
               printed by --read (^ and $ are the line's ends).",
        action: |v| regex_wait(Until::regex, v),
    },
    Def {
        name: "--wait-stable",
        alias: None,
        value: Some("MS"),
        section: WAITING,
        help: "Wait until the screen has not changed for MS milliseconds.",
        action: |v| values::millis(v).map(|d| WaitFor::on(Until::stable(d))),
    },
    Def {
        name: "--wait-quiet",
        alias: None,
        value: Some("MS"),
        section: WAITING,
        help: "Wait until the program has printed nothing for MS milliseconds.",
        action: |v| values::millis(v).map(|d| WaitFor::on(Until::quiet(d))),
    },
    Def {
        name: "--wait-prompt",
        alias: None,
        value: None,
        section: WAITING,
        help: "Wait until the shell is back at its prompt (needs\n\
               --shell-integration).",
        action: |_| Ok(WaitFor::on(Until::prompt())),
    },
    Def {
        name: "--wait-input",
        alias: None,
        value: None,
        section: WAITING,
        help: "Wait until the foreground program is blocked reading the\n\
               terminal (a REPL or shell prompt, a password prompt, vim,\n\
               less...), as /proc shows on Linux.",
        action: |_| Ok(WaitFor::on(Until::input_wait())),
    },
    Def {
        name: "--wait-exit",
        alias: None,
        value: None,
        section: WAITING,
        help: "Wait until the program exits. (The other waits fail when the\n\
               program exits first.)",
        action: |_| Ok(WaitFor::exit()),
    },
    Def {
        name: "--resize",
        alias: None,
        value: Some("COLSxROWS"),
        section: TERMINAL,
        help: "Resize the terminal; the program gets SIGWINCH.",
        action: |v| values::size(v).map(Step::Resize),
    },
    Def {
        name: "--screen",
        alias: None,
        value: None,
        section: OUTPUT,
        help: "Print the screen as it is now.",
        action: |_| Ok(Step::Screen),
    },
    Def {
        name: "--screenshot",
        alias: None,
        value: Some("FILE"),
        section: OUTPUT,
        help: "Write the screen, with its colours and cursor, as an image:\n\
               SVG for FILE.svg, PNG for FILE.png.",
        action: |v| {
            let lower = v.to_ascii_lowercase();
            if lower.ends_with(".svg") || lower.ends_with(".png") {
                Ok(Step::Screenshot(v.into()))
            } else {
                Err(format!("--screenshot {v:?}: give a file ending in .svg or .png"))
            }
        },
    },
    Def {
        name: "--read",
        alias: None,
        value: None,
        section: OUTPUT,
        help: "Print the transcript output that is new since the previous\n\
               --read (all of it at the first --read).",
        action: |_| Ok(Step::Read),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_steps_parse() {
        let parse = |name: &str, value: &str| {
            (super::super::table::find(STEPS, name).unwrap().action)(value)
        };
        assert!(matches!(parse("--keys", "<Up>x"), Ok(Step::Keys(_))));
        assert!(parse("--keys", "<Nope>").unwrap_err().contains("Nope"));
        assert!(matches!(parse("--signal", "sigint"), Ok(Step::Signal(termloom::Signal::Int))));
        assert!(parse("--signal", "FOO").is_err());
        assert!(matches!(parse("--wait-stable", "200"), Ok(Step::Wait(_))));
    }

    #[test]
    fn names_are_unique_and_dashed() {
        for (i, def) in STEPS.iter().enumerate() {
            assert!(def.name.starts_with("--"), "{}", def.name);
            assert!(
                STEPS[i + 1..].iter().all(|other| other.name != def.name),
                "{} twice",
                def.name
            );
        }
    }

    #[test]
    fn parsers_check_their_values() {
        let parse = |name: &str, value: &str| {
            (super::super::table::find(STEPS, name).unwrap().action)(value)
        };
        assert!(parse("--wait-regex", "(").is_err());
        assert!(parse("--wait-screen", "a\nb").is_err());
        assert!(parse("--resize", "80").is_err());
        assert!(matches!(parse("--resize", "80x24"), Ok(Step::Resize(_))));
        assert!(matches!(
            parse("--wait-exit", ""),
            Ok(Step::Wait(WaitFor { exit_satisfies: true, .. }))
        ));
    }
}
