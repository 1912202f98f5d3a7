//! Reading a tool's arguments: typed getters whose errors name the argument and what it should
//! be, so that a model can correct its call. `null` counts as absent.

use serde_json::{Map, Value};

use crate::SessionId;

use super::ToolError;

/// A tool's arguments.
pub(crate) struct Args<'a> {
    map: &'a Map<String, Value>,
    tool: &'static str,
}

impl<'a> Args<'a> {
    /// Checks that every argument is one `tool` accepts.
    pub(crate) fn new(
        tool: &'static str,
        map: &'a Map<String, Value>,
        accepted: &[&str],
    ) -> Result<Self, ToolError> {
        let mut unknown: Vec<&str> =
            map.keys().map(String::as_str).filter(|k| !accepted.contains(k)).collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            return Err(ToolError::new(format!(
                "{tool} does not take {}; its arguments are: {}",
                unknown.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                accepted.join(", ")
            )));
        }
        Ok(Args { map, tool })
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    fn wrong(&self, name: &str, expected: &str, got: &Value) -> ToolError {
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
        ToolError::new(format!("{}: `{name}` must be {expected}, not {shown}", self.tool))
    }

    /// An optional string.
    pub(crate) fn str(&self, name: &str) -> Result<Option<&'a str>, ToolError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(name, "a string", other)),
        }
    }

    /// A required string.
    pub(crate) fn required_str(&self, name: &str) -> Result<&'a str, ToolError> {
        self.str(name)?.ok_or_else(|| self.missing(name))
    }

    fn missing(&self, name: &str) -> ToolError {
        ToolError::new(format!("{}: the `{name}` argument is required", self.tool))
    }

    /// An optional boolean (`"true"`/`"false"` strings are accepted too).
    pub(crate) fn bool(&self, name: &str) -> Result<Option<bool>, ToolError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(other) => Err(self.wrong(name, "true or false", other)),
        }
    }

    /// An optional whole number within `min..=max` (numeric strings are accepted too).
    pub(crate) fn uint(&self, name: &str, min: u64, max: u64) -> Result<Option<u64>, ToolError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        let number = match value {
            Value::Number(n) => n
                .as_u64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as u64)),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        match number {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(self.wrong(name, &format!("a whole number from {min} to {max}"), value)),
        }
    }

    /// The required `session_id`.
    pub(crate) fn session_id(&self) -> Result<SessionId, ToolError> {
        self.optional_session_id()?.ok_or_else(|| {
            ToolError::new(format!(
                "{}: the `session_id` argument is required (terminal_list shows the sessions)",
                self.tool
            ))
        })
    }

    /// An optional `session_id`.
    pub(crate) fn optional_session_id(&self) -> Result<Option<SessionId>, ToolError> {
        Ok(self.uint("session_id", 1, u64::MAX)?.map(SessionId))
    }

    /// An optional list of strings.
    pub(crate) fn strings(&self, name: &str) -> Result<Option<Vec<String>>, ToolError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(self.wrong(name, "a list of strings", &Value::Array(items.clone()))),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(self.wrong(name, "a list of strings", other)),
        }
    }

    /// An optional environment: names to values (`null` removes a variable).
    pub(crate) fn env(&self) -> Result<Vec<(String, Option<String>)>, ToolError> {
        match self.get("env") {
            None => Ok(Vec::new()),
            Some(Value::Object(vars)) => vars
                .iter()
                .map(|(name, value)| match value {
                    Value::String(s) => Ok((name.clone(), Some(s.clone()))),
                    Value::Null => Ok((name.clone(), None)),
                    Value::Number(_) | Value::Bool(_) => {
                        Ok((name.clone(), Some(value.to_string())))
                    }
                    other => Err(self.wrong(&format!("env.{name}"), "a string or null", other)),
                })
                .collect(),
            Some(other) => {
                Err(self.wrong("env", "an object of variable names to string values", other))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn unknown_arguments_are_named_with_the_accepted_ones() {
        let m = map(json!({"session": 1, "text": "x"}));
        let err = Args::new("terminal_send", &m, &["session_id", "text"]).err().unwrap();
        assert!(err.message.contains("`session`") && err.message.contains("session_id"), "{err:?}");
    }

    #[test]
    fn typed_getters_are_lenient_with_numbers_and_strict_with_types() {
        let m = map(json!({"a": "3", "b": 4.0, "c": -1, "d": "x", "e": null, "f": "true"}));
        let args = Args::new("t", &m, &["a", "b", "c", "d", "e", "f"]).unwrap();
        assert_eq!(args.uint("a", 0, 10).unwrap(), Some(3));
        assert_eq!(args.uint("b", 0, 10).unwrap(), Some(4));
        assert!(args.uint("c", 0, 10).is_err());
        assert!(args.uint("d", 0, 10).unwrap_err().message.contains("whole number"));
        assert_eq!(args.str("e").unwrap(), None);
        assert_eq!(args.bool("f").unwrap(), Some(true));
        assert!(args.bool("d").is_err());
    }
}
