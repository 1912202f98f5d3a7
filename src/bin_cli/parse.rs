//! Turns `termloom run`'s arguments into a [`Plan`]: options, the ordered steps and the
//! program. Arguments are walked in order because steps are ordered; each name is looked up
//! in the option table, then in the step table.

use std::ffi::OsString;
use std::vec::IntoIter;

use super::options::{OPTIONS, RunOptions};
use super::steps::{STEPS, Step, StepDef, WaitFor};
use super::table::{Def, find};
use super::values::{self, shell_quote};

/// What the run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Program {
    /// A program and its arguments, run directly.
    Argv(OsString, Vec<OsString>),
    /// A shell command line.
    Shell(String),
}

/// A step with its place in the run and the arguments that asked for it, for messages.
#[derive(Debug)]
pub(super) struct Planned {
    /// Its number, from 1.
    pub number: usize,
    /// The arguments as the user could type them again: `--wait-screen '[New]'`.
    pub label: String,
    /// What to do.
    pub step: Step,
}

impl Planned {
    /// `step 3 (--wait-screen '[New]')`, for messages.
    pub(super) fn describe(&self) -> String {
        format!("step {} ({})", self.number, self.label)
    }
}

/// A parsed command line: everything a run needs.
#[derive(Debug)]
pub(super) struct Plan {
    /// The options.
    pub options: RunOptions,
    /// The steps, in order.
    pub steps: Vec<Planned>,
    /// The program.
    pub program: Program,
}

/// What the command line asks for.
#[derive(Debug)]
pub(super) enum Parsed {
    /// Show the help.
    Help,
    /// Run this plan.
    Run(Box<Plan>),
}

/// Parses `termloom run`'s arguments (after `run`). The error is a one-line message naming
/// the bad argument.
pub(super) fn parse(args: Vec<OsString>) -> Result<Parsed, String> {
    let mut options = RunOptions::default();
    let mut steps = Vec::new();
    let mut args = args.into_iter();
    let mut argv = None;
    while let Some(arg) = args.next() {
        if arg == "--" {
            argv = Some(args.by_ref().collect::<Vec<_>>());
            break;
        }
        let arg = utf8(arg, "argument")?;
        let (name, inline) = split_inline(&arg);
        if let Some(def) = find(OPTIONS, name) {
            let value = take_value(def, inline, &mut args)?;
            (def.action)(&mut options, &value).map_err(|m| bad_value(def, &m))?;
        } else if let Some(def) = find(STEPS, name) {
            let value = take_value(def, inline, &mut args)?;
            let step = (def.action)(&value).map_err(|m| bad_value(def, &m))?;
            steps.push(planned(steps.len() + 1, def, &value, step));
        } else {
            return Err(unknown(&arg));
        }
    }
    if options.help {
        return Ok(Parsed::Help);
    }
    let program = program(options.shell.clone(), argv)?;
    if options.shell_integration && matches!(program, Program::Shell(_)) {
        return Err("--shell-integration needs an interactive shell, not a command line run by \
            one: give the shell as the program (`-- bash` or `-- zsh`) and its commands as \
            --run-command or --submit steps"
            .to_owned());
    }
    if !options.shell_integration && steps.iter().any(|s| matches!(s.step, Step::RunCommand(_))) {
        return Err(
            "--run-command needs --shell-integration (and bash or zsh as the program): it knows a command's end and exit code from the shell's prompt marks".to_owned(),
        );
    }
    if steps.is_empty() {
        steps.push(Planned {
            number: 1,
            label: "--wait-exit, implied when no step is given".to_owned(),
            step: WaitFor::exit(),
        });
    }
    Ok(Parsed::Run(Box::new(Plan { options, steps, program })))
}

/// Whether `termloom run`'s arguments ask for `--json`, read as [`parse`] reads them (a
/// value is no option, nor is anything after `--`) but without checking them, so that a
/// command line [`parse`] refuses is reported as JSON too.
pub(super) fn asks_for_json(args: &[OsString]) -> bool {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str() else { continue };
        if arg == "--" {
            return false;
        }
        if arg == "--json" {
            return true;
        }
        let (name, inline) = split_inline(arg);
        let takes_value = match (find(OPTIONS, name), find(STEPS, name)) {
            (Some(def), _) => def.value.is_some(),
            (_, Some(def)) => def.value.is_some(),
            _ => false,
        };
        if takes_value && inline.is_none() {
            args.next();
        }
    }
    false
}

/// Whether `termloom run` takes `name`, as an option or a step.
pub(super) fn takes(name: &str) -> bool {
    find(OPTIONS, name).is_some() || find(STEPS, name).is_some()
}

/// Splits `--name=value` into the name and the inline value.
fn split_inline(arg: &str) -> (&str, Option<&str>) {
    match arg.split_once('=') {
        Some((name, value)) if name.starts_with("--") => (name, Some(value)),
        _ => (arg, None),
    }
}

/// The value of an item: inline (`--name=value`) or the next argument, taken as it is even
/// when it starts with a dash. Flags take none. An empty wait or key script is refused (a wait
/// for "" would hold at once, keys "" send nothing); `--submit ''` presses Enter alone.
fn take_value<A>(
    def: &Def<A>,
    inline: Option<&str>,
    rest: &mut IntoIter<OsString>,
) -> Result<String, String> {
    let value = match (def.value, inline) {
        (None, None) => return Ok(String::new()),
        (None, Some(_)) => return Err(format!("{} takes no value", def.name)),
        (Some(_), Some(value)) => value.to_owned(),
        (Some(_), None) => match rest.next() {
            Some(value) => utf8(value, def.name)?,
            None => return Err(format!("{} needs a value: {}", def.name, def.signature())),
        },
    };
    if value.is_empty() && (def.name.starts_with("--wait-") || def.name == "--keys") {
        return Err(format!("{} needs a value that is not empty: {}", def.name, def.signature()));
    }
    Ok(value)
}

/// A planned step with its label.
fn planned(number: usize, def: &StepDef, value: &str, step: Step) -> Planned {
    let label = match def.value {
        Some(_) => format!("{} {}", def.name, shell_quote(value)),
        None => def.name.to_owned(),
    };
    Planned { number, label, step }
}

/// The program to run: exactly one of `--shell LINE` (not blank) and `-- PROGRAM [ARGS...]`.
fn program(shell: Option<String>, argv: Option<Vec<OsString>>) -> Result<Program, String> {
    match (shell, argv) {
        (Some(_), Some(_)) => {
            Err("both --shell and `-- PROGRAM` are given; use one of them".to_owned())
        }
        // (`$SHELL -lc ''` runs nothing, and the library refuses it in its own words.)
        (Some(line), None) if line.trim().is_empty() => Err(
            "--shell is blank; give a command line, as in `--shell 'make test'`, or `-- bash` for an interactive shell"
                .to_owned(),
        ),
        (Some(line), None) => Ok(Program::Shell(line)),
        (None, Some(argv)) => {
            let mut argv = argv.into_iter();
            let program =
                argv.next().ok_or("no PROGRAM after `--`; give one, as in `-- vim notes.txt`")?;
            Ok(Program::Argv(program, argv.collect()))
        }
        (None, None) => {
            Err("no program to run; end with `-- PROGRAM [ARGS...]` or give --shell LINE"
                .to_owned())
        }
    }
}

/// `value` as UTF-8, or an error naming `what`.
fn utf8(value: OsString, what: &str) -> Result<String, String> {
    value.into_string().map_err(|v| format!("{what}: {v:?} is not valid UTF-8"))
}

/// The message for a value its parser refused.
fn bad_value<A>(def: &Def<A>, message: &str) -> String {
    format!("bad value for {}: {message}", def.name)
}

/// The message for an argument that is neither an option nor a step.
fn unknown(arg: &str) -> String {
    if arg.starts_with('-') {
        let defs = OPTIONS.iter().map(|def| (def.name, def.alias));
        let defs = defs.chain(STEPS.iter().map(|def| (def.name, def.alias)));
        let names = defs.flat_map(|(name, alias)| std::iter::once(name).chain(alias));
        match values::closest(arg, names) {
            Some(name) => format!("unknown option or step {arg:?}; did you mean {name}?"),
            None => format!("unknown option or step {arg:?}"),
        }
    } else {
        format!(
            "unexpected argument {arg:?}; the program goes after `--`, as in `-- vim notes.txt`"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn plan(list: &[&str]) -> Plan {
        match parse(args(list)) {
            Ok(Parsed::Run(plan)) => *plan,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn steps_keep_their_order_and_options_go_anywhere() {
        let plan = plan(&[
            "--send",
            "--",
            "--timeout=500",
            "--screen",
            "--size",
            "80x24",
            "--wait-text",
            "x",
            "--",
            "cat",
            "--screen",
        ]);
        let labels: Vec<&str> = plan.steps.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["--send --", "--screen", "--wait-text x"]);
        assert_eq!(plan.options.timeout.as_millis(), 500);
        assert_eq!(plan.options.size.map(|s| (s.cols, s.rows)), Some((80, 24)));
        assert_eq!(plan.program, Program::Argv("cat".into(), vec!["--screen".into()]));
    }

    #[test]
    fn no_steps_means_wait_for_exit() {
        // `--command`, `termloom start`'s name for `--shell`, is the same.
        assert_eq!(plan(&["--command", "true"]).program, Program::Shell("true".into()));
        let plan = plan(&["--shell", "true"]);
        assert_eq!(plan.program, Program::Shell("true".into()));
        assert!(matches!(plan.steps[0].step, Step::Wait(WaitFor { exit_satisfies: true, .. })));
    }

    #[test]
    fn errors_name_the_argument() {
        let err = |list: &[&str]| parse(args(list)).unwrap_err();
        assert!(err(&["--frobnicate", "--", "true"]).contains("--frobnicate"));
        // A name shortened is told the name (`--command`, --shell's alias), not `--cwd`.
        assert!(err(&["--cmd", "x", "--", "true"]).contains("did you mean --command?"));
        assert!(err(&["--size", "big", "--", "true"]).contains("--size"));
        assert!(err(&["--screen=1", "--", "true"]).contains("--screen"));
        assert!(err(&["--send"]).contains("--send"));
        let plain = err(&["--run-command", "true", "--", "bash"]);
        assert!(plain.contains("needs --shell-integration"), "{plain}");
        for empty in [&["--wait-text", ""][..], &["--wait-regex="], &["--keys", ""]] {
            let message = err(&[empty, &["--", "true"]].concat());
            assert!(message.contains("needs a value that is not empty"), "{message}");
        }
        assert!(err(&["vim"]).contains("\"vim\""));
        assert!(err(&["--screen"]).contains("no program"));
        assert!(err(&["--shell", "x", "--", "y"]).contains("both"));
        assert!(err(&["--"]).contains("no PROGRAM"));
        assert!(err(&["--shell", " "]).contains("--shell is blank"));
    }

    #[test]
    fn help_wins() {
        assert!(matches!(parse(args(&["--screen", "-h"])), Ok(Parsed::Help)));
        // An unknown argument is reported even next to --help.
        assert!(parse(args(&["--help", "--bogus-value=1"])).is_err());
    }
}
