//! A tool's arguments, checked against its [`ToolDef`] before the tool runs: unknown
//! arguments, missing required ones, types, ranges and choices, each error naming the argument
//! and what it should be, so that a model can correct its call. `null` counts as absent, and
//! an absent argument with a default reads as its default.

use serde_json::{Map, Value};

use crate::{SessionId, Signal};

use super::ToolError;
use super::catalog::{ArgDef, Kind, ToolDef};
use super::names::{SessionRef, check_name};
use super::offered::has as offers;

/// One argument's value, read as its [`Kind`] says.
enum Parsed<'a> {
    /// A string ([`Kind::Str`], [`Kind::OneOf`]).
    Str(&'a str),
    /// A signal.
    Signal(Signal),
    /// A boolean.
    Bool(bool),
    /// A whole number ([`Kind::UInt`], [`Kind::SessionId`]).
    UInt(u64),
    /// A list of strings.
    Strings(Vec<String>),
    /// Environment variables: `None` removes one.
    Env(Vec<(String, Option<String>)>),
}

/// A tool's checked arguments.
pub(crate) struct Args<'a> {
    tool: &'static ToolDef,
    values: Vec<(&'static str, Parsed<'a>)>,
    /// The arguments the call gave (not `null`), defaults aside.
    given: Vec<&'static str>,
}

impl<'a> Args<'a> {
    /// Checks `map` against `tool`'s arguments: every argument is one it takes, every required
    /// one is given, and each has the type, range or value its definition says.
    pub(crate) fn new(
        tool: &'static ToolDef,
        map: &'a Map<String, Value>,
    ) -> Result<Self, ToolError> {
        let mut unknown: Vec<&str> =
            map.keys().map(String::as_str).filter(|k| tool.arg(k).is_none()).collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            let accepted: Vec<&str> = tool.args().map(|arg| arg.name).collect();
            let these = unknown
                .iter()
                .map(|k| match k.len() <= crate::error::SHOWN_BYTES {
                    true => format!("`{k}`"),
                    false => quoted(k),
                })
                .collect::<Vec<_>>()
                .join(", ");
            return Err(ToolError::invalid_input(if accepted.is_empty() {
                format!("{} takes no arguments; leave out {these}", tool.name)
            } else {
                format!(
                    "{} does not take {these}; its arguments are: {}",
                    tool.name,
                    accepted.join(", ")
                )
            }));
        }
        let mut values = Vec::new();
        let mut given = Vec::new();
        for arg in tool.args() {
            let parsed = match map.get(arg.name).filter(|v| !v.is_null() && !empty_input(arg, v)) {
                Some(value) => {
                    given.push(arg.name);
                    Some(parse(tool, arg, value)?)
                }
                None if arg.required => return Err(missing(tool, arg)),
                None => default(arg),
            };
            values.extend(parsed.map(|parsed| (arg.name, parsed)));
        }
        Ok(Args { tool, values, given })
    }

    /// The name of the tool called.
    pub(crate) fn tool_name(&self) -> &'static str {
        self.tool.name
    }

    /// Whether the call gave `name` itself (a default does not count).
    pub(crate) fn given(&self, name: &str) -> bool {
        self.given.contains(&name)
    }

    /// Whether the tool takes an argument named `name`.
    pub(crate) fn takes(&self, name: &str) -> bool {
        self.tool.accepts(name)
    }

    /// The value of `name`, given or by default.
    fn value(&self, name: &str) -> Option<&Parsed<'a>> {
        debug_assert!(self.tool.arg(name).is_some(), "{} has no `{name}`", self.tool.name);
        self.values.iter().find(|(n, _)| *n == name).map(|(_, value)| value)
    }

    /// A required (or defaulted) argument, which [`Args::new`] made sure is there.
    fn present<T>(&self, name: &str, value: Option<T>) -> Result<T, ToolError> {
        match (value, self.tool.arg(name)) {
            (Some(value), _) => Ok(value),
            (None, Some(arg)) => Err(missing(self.tool, arg)),
            (None, None) => {
                Err(ToolError::invalid_input(format!("{} has no `{name}`", self.tool.name)))
            }
        }
    }

    /// A string argument.
    pub(crate) fn str(&self, name: &str) -> Option<&'a str> {
        match self.value(name) {
            Some(Parsed::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// A required string argument.
    pub(crate) fn required_str(&self, name: &str) -> Result<&'a str, ToolError> {
        self.present(name, self.str(name))
    }

    /// A boolean argument.
    pub(crate) fn bool(&self, name: &str) -> Option<bool> {
        match self.value(name) {
            Some(Parsed::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// A whole-number argument (within its range).
    pub(crate) fn uint(&self, name: &str) -> Option<u64> {
        match self.value(name) {
            Some(Parsed::UInt(n)) => Some(*n),
            _ => None,
        }
    }

    /// A whole-number argument that is required or has a default.
    pub(crate) fn required_uint(&self, name: &str) -> Result<u64, ToolError> {
        self.present(name, self.uint(name))
    }

    /// The session `session_id` names (by id or by name), if given.
    pub(crate) fn session_ref(&self) -> Option<SessionRef<'a>> {
        match self.value("session_id") {
            Some(Parsed::UInt(id)) => Some(SessionRef::Id(SessionId(*id))),
            Some(Parsed::Str(name)) => Some(SessionRef::Name(name)),
            _ => None,
        }
    }

    /// The required `signal`.
    pub(crate) fn signal(&self) -> Result<Signal, ToolError> {
        let signal = match self.value("signal") {
            Some(Parsed::Signal(signal)) => Some(*signal),
            _ => None,
        };
        self.present("signal", signal)
    }

    /// A list-of-strings argument.
    pub(crate) fn strings(&self, name: &str) -> Option<&[String]> {
        match self.value(name) {
            Some(Parsed::Strings(items)) => Some(items),
            _ => None,
        }
    }

    /// The `env` argument: names to values (`None` removes a variable); empty when not given.
    pub(crate) fn env(&self) -> &[(String, Option<String>)] {
        match self.value("env") {
            Some(Parsed::Env(vars)) => vars,
            _ => &[],
        }
    }
}

/// Whether `value` is empty text to send, which reads as not given (see [`Kind::Input`]).
fn empty_input(arg: &ArgDef, value: &Value) -> bool {
    matches!(arg.kind, Kind::Input) && value.as_str() == Some("")
}

/// The error for a required argument that was not given.
fn missing(tool: &ToolDef, arg: &ArgDef) -> ToolError {
    let hint = match arg.kind {
        Kind::SessionId if offers("terminal_list") => " (terminal_list shows the sessions)",
        _ => "",
    };
    ToolError::invalid_input(format!(
        "{}: the `{}` argument is required{hint}",
        tool.name, arg.name
    ))
}

/// The value of an argument that was not given: its default, if it has one.
fn default(arg: &ArgDef) -> Option<Parsed<'static>> {
    match arg.kind {
        Kind::OneOf { default, .. } => default.map(Parsed::Str),
        Kind::UInt { default, .. } => default.map(Parsed::UInt),
        _ => None,
    }
}

/// Reads a given (non-null) `value` of `arg` as its kind says.
fn parse<'a>(tool: &ToolDef, arg: &ArgDef, value: &'a Value) -> Result<Parsed<'a>, ToolError> {
    let wrong = |expected: &str, got: &Value| wrong(tool, arg.name, expected, got);
    match arg.kind {
        Kind::Input => match value {
            Value::String(s) => Ok(Parsed::Str(s)),
            other => Err(wrong("a string", other)),
        },
        Kind::Str => match value {
            // Empty text sends, matches or names nothing (a wait for "" would hold at once).
            Value::String(s) if s.is_empty() => Err(ToolError::invalid_input(format!(
                "{}: `{}` is empty; give it a value, or leave it out",
                tool.name, arg.name
            ))),
            Value::String(s) => Ok(Parsed::Str(s)),
            other => Err(wrong("a string", other)),
        },
        Kind::OneOf { values, .. } => match value {
            Value::String(s) if values.contains(&s.as_str()) => Ok(Parsed::Str(s)),
            other => Err(wrong(&one_of(values), other)),
        },
        Kind::Signal => match value {
            Value::String(s) => Ok(Parsed::Signal(s.parse().map_err(ToolError::from)?)),
            other => Err(wrong("a string", other)),
        },
        Kind::Bool => match value {
            Value::Bool(b) => Ok(Parsed::Bool(*b)),
            Value::String(s) if s == "true" || s == "false" => Ok(Parsed::Bool(s == "true")),
            other => Err(wrong("true or false", other)),
        },
        Kind::SessionId => match value {
            Value::String(s) if s.trim().parse::<u64>().is_err() => {
                check_name(s).map(|()| Parsed::Str(s)).map_err(|err| {
                    ToolError::invalid_input(format!("{}: `{}`: {}", tool.name, arg.name, err.message))
                })
            }
            _ => match whole_number(value) {
                Some(id) if id >= 1 => Ok(Parsed::UInt(id)),
                _ => {
                    let from = match offers("terminal_start") {
                        true => "a whole number from 1, as terminal_start returned it",
                        false => "a whole number from 1",
                    };
                    let list = if offers("terminal_list") { " (terminal_list shows them)" } else { "" };
                    let expected = format!("a session id ({from}) or a session's name{list}");
                    Err(wrong(&expected, value))
                }
            },
        },
        Kind::UInt { .. } => parse_number(tool, arg, value),
        Kind::Strings => match value {
            Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(wrong("a list of strings", value)),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Parsed::Strings),
            other => Err(wrong("a list of strings", other)),
        },
        Kind::Env => match value {
            Value::Object(vars) => vars
                .iter()
                .map(|(name, value)| {
                    check_env_name(tool, name)?;
                    match value {
                        Value::String(s) if s.contains('\0') => Err(ToolError::invalid_input(format!(
                            "{}: the value of `env.{name}` contains a NUL character, which an environment variable cannot hold",
                            tool.name
                        ))),
                        Value::String(s) => Ok((name.clone(), Some(s.clone()))),
                        Value::Null => Ok((name.clone(), None)),
                        Value::Number(_) | Value::Bool(_) => {
                            Ok((name.clone(), Some(value.to_string())))
                        }
                        other => Err(self::wrong(
                            tool,
                            &format!("env.{name}"),
                            "a string or null",
                            other,
                        )),
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Parsed::Env),
            other => Err(wrong("an object of variable names to string values", other)),
        },
    }
}

/// Reads a whole number within `arg`'s range (numeric strings are accepted too).
fn parse_number<'a>(
    tool: &ToolDef,
    arg: &ArgDef,
    value: &'a Value,
) -> Result<Parsed<'a>, ToolError> {
    let (min, max) = arg.kind.range().unwrap_or_default();
    let max = max.unwrap_or(u64::MAX);
    match whole_number(value) {
        Some(n) if (min..=max).contains(&n) => Ok(Parsed::UInt(n)),
        _ => Err(wrong(tool, arg.name, &format!("a whole number from {min} to {max}"), value)),
    }
}

/// The whole number `value` gives, as the tools read one: a JSON integer, a float with no
/// fraction (`1.0`) that is exact (at most 2^53: `1e30` is no particular whole number), or
/// a numeric string, blanks around it ignored (`" 1"`). The server's
/// check of who holds a session reads a `session_id` with this too, so that it names the
/// session the tool acts on.
pub(crate) fn whole_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64().filter(|f| f.fract() == 0.0 && (0.0..=EXACT).contains(f)).map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
}

pub(crate) use crate::error::quoted;

/// The largest whole number a float holds exactly, with every whole number below it: 2^53.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Refuses an environment variable name that no environment can hold: empty, or containing
/// `=` (the environment entry `A=B=c` would set `A` to `B=c`) or NUL.
fn check_env_name(tool: &ToolDef, name: &str) -> Result<(), ToolError> {
    let problem = if name.is_empty() {
        "an empty variable name".to_owned()
    } else if name.contains('=') {
        format!("the variable name {}, which contains `=`", quoted(name))
    } else if name.contains('\0') {
        format!("the variable name {}, which contains a NUL character", quoted(name))
    } else {
        return Ok(());
    };
    Err(ToolError::invalid_input(format!(
        "{}: `env` has {problem}; a variable name must be non-empty and contain no `=` or NUL",
        tool.name
    )))
}

/// `"a", "b" or "c"`.
fn one_of(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The error for an argument of the wrong type or out of range, showing (the start of) what
/// was given.
fn wrong(tool: &ToolDef, name: &str, expected: &str, got: &Value) -> ToolError {
    let shown = match got {
        Value::String(s) if s.len() > 40 => format!("a string ({} bytes)", s.len()),
        other => {
            let text = other.to_string();
            if text.len() > 60 {
                format!("{}…", &text[..text.floor_char_boundary(60)])
            } else {
                text
            }
        }
    };
    ToolError::invalid_input(format!("{}: `{name}` must be {expected}, not {shown}", tool.name))
}

#[cfg(test)]
mod tests {
    use super::super::catalog::{Text, find};
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn tool(name: &str) -> &'static ToolDef {
        find(name).unwrap()
    }

    #[test]
    fn unknown_arguments_are_named_with_the_accepted_ones() {
        let m = map(json!({"session": 1, "text": "x"}));
        let err = Args::new(tool("terminal_send"), &m).err().unwrap();
        assert!(err.message.contains("`session`") && err.message.contains("session_id"), "{err:?}");
        let err = Args::new(tool("terminal_list"), &map(json!({"x": 1}))).err().unwrap();
        assert_eq!(err.message, "terminal_list takes no arguments; leave out `x`");
    }

    #[test]
    fn missing_required_arguments_are_named() {
        let m = map(json!({"session_id": 1, "cols": 80, "rows": null}));
        let err = Args::new(tool("terminal_resize"), &m).err().unwrap();
        assert_eq!(err.message, "terminal_resize: the `rows` argument is required");
        let err = Args::new(tool("terminal_read"), &Map::new()).err().unwrap();
        assert!(err.message.contains("terminal_list shows the sessions"), "{err:?}");
    }

    #[test]
    fn env_names_an_environment_cannot_hold_are_refused() {
        let start = tool("terminal_start");
        for (env, expected) in [
            (json!({"": "x"}), "an empty variable name"),
            (json!({"A=B": "x"}), "\"A=B\", which contains `=`"),
            (json!({"A\0": "x"}), "contains a NUL character"),
            (json!({"A": "x\0y"}), "`env.A` contains a NUL character"),
        ] {
            let err = Args::new(start, &map(json!({"env": env}))).err().unwrap();
            assert!(err.message.starts_with("terminal_start: "), "{err:?}");
            assert!(err.message.contains(expected), "{env}: {err:?}");
        }
        let fine = map(json!({"env": {"A": "=x", "B": null, "C": 1}}));
        let args = Args::new(start, &fine).unwrap();
        let expected = [("A", Some("=x")), ("B", None), ("C", Some("1"))];
        let got: Vec<_> = args.env().iter().map(|(n, v)| (n.as_str(), v.as_deref())).collect();
        assert_eq!(got, expected);
    }

    /// A tool with one argument of each kind, for the checks below.
    static KINDS: ToolDef = ToolDef {
        name: "t",
        title: "",
        hints: super::super::catalog::Hints {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        },
        description: Text::Fixed(""),
        args: &[&[
            ArgDef {
                name: "a",
                kind: Kind::UInt { min: 0, max: Some(10), default: None },
                required: false,
                description: Text::Fixed(""),
            },
            ArgDef {
                name: "c",
                kind: Kind::UInt { min: 0, max: Some(10), default: Some(7) },
                required: false,
                description: Text::Fixed(""),
            },
            ArgDef { name: "e", kind: Kind::Str, required: false, description: Text::Fixed("") },
            ArgDef { name: "f", kind: Kind::Bool, required: false, description: Text::Fixed("") },
            ArgDef { name: "i", kind: Kind::Input, required: false, description: Text::Fixed("") },
            ArgDef {
                name: "g",
                kind: Kind::OneOf { values: &["x", "y", "z"], default: Some("x") },
                required: false,
                description: Text::Fixed(""),
            },
        ]],
        described: 1,
        run: |_, _| Err(ToolError::invalid_input("not run")),
    };

    #[test]
    fn values_are_lenient_with_numbers_and_strict_with_types() {
        let m = map(json!({"a": "3", "e": null, "f": "true"}));
        let args = Args::new(&KINDS, &m).unwrap();
        assert_eq!(args.uint("a"), Some(3));
        assert_eq!(args.uint("c"), Some(7), "the default");
        assert_eq!(args.str("e"), None);
        assert_eq!(args.bool("f"), Some(true));
        assert_eq!(args.str("g"), Some("x"), "the default");
        let empty = map(json!({"i": ""}));
        let args = Args::new(&KINDS, &empty).unwrap();
        assert_eq!((args.str("i"), args.given("i")), (None, false), "empty text to send");
        assert_eq!(Args::new(&KINDS, &map(json!({"i": "x"}))).unwrap().str("i"), Some("x"));
        assert_eq!(Args::new(&KINDS, &map(json!({"a": 4.0}))).unwrap().uint("a"), Some(4));
        for (bad, expected) in [
            (json!({"a": -1}), "`a` must be a whole number from 0 to 10, not -1"),
            (json!({"a": "x"}), "whole number"),
            (json!({"a": 11}), "whole number"),
            (json!({"e": 5}), "`e` must be a string, not 5"),
            (json!({"e": ""}), "`e` is empty; give it a value, or leave it out"),
            (json!({"f": "x"}), "`f` must be true or false"),
            (json!({"i": 5}), "`i` must be a string, not 5"),
            (json!({"g": "w"}), "`g` must be \"x\", \"y\" or \"z\", not \"w\""),
        ] {
            let err = Args::new(&KINDS, &map(bad.clone())).err().unwrap();
            assert!(err.message.contains(expected), "{bad}: {err:?}");
        }
    }
}
