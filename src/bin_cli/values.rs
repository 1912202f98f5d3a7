//! Parsers for option and step values. Each returns a message saying what was expected; the
//! caller adds the argument's name.

use std::time::Duration;

use termloom::{MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS};

/// A terminal size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Size {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// Parses `COLSxROWS`, such as `120x32`, within the sizes the engine accepts.
pub(super) fn size(value: &str) -> Result<Size, String> {
    let expected = || format!("{value:?} is not COLSxROWS, such as 120x32");
    let (cols, rows) = value.split_once(['x', 'X']).ok_or_else(expected)?;
    let cols: u16 = cols.parse().map_err(|_| expected())?;
    let rows: u16 = rows.parse().map_err(|_| expected())?;
    if !(MIN_COLS..=MAX_COLS).contains(&cols) || !(MIN_ROWS..=MAX_ROWS).contains(&rows) {
        return Err(format!(
            "{value:?} is out of range: columns must be {MIN_COLS}..={MAX_COLS} and rows {MIN_ROWS}..={MAX_ROWS}"
        ));
    }
    Ok(Size { cols, rows })
}

/// Longest accepted wait timeout: one day.
const MAX_TIMEOUT_MS: u64 = 86_400_000;

/// Parses a timeout in milliseconds, 1 ms to one day.
pub(super) fn millis(value: &str) -> Result<Duration, String> {
    match value.parse::<u64>() {
        Ok(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Ok(Duration::from_millis(ms)),
        _ => Err(format!("{value:?} is not a number of milliseconds from 1 to {MAX_TIMEOUT_MS}")),
    }
}

/// Parses `KEY=VALUE` (the value may be empty and may contain `=`).
pub(super) fn env_pair(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((key, val)) if !key.is_empty() => Ok((key.to_owned(), val.to_owned())),
        _ => Err(format!("{value:?} is not KEY=VALUE")),
    }
}

/// Checks that a wait text is one line: conditions match within one line or screen row.
pub(super) fn one_line(value: &str) -> Result<String, String> {
    if value.contains('\n') {
        return Err(format!("{value:?} contains a line break; waits match within one line"));
    }
    Ok(value.to_owned())
}

/// A multi-line error message (such as a regex error with its caret diagram) as one line:
/// the first line and the last, which says what is wrong.
pub(super) fn single_line(message: &str) -> String {
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    match lines.next_back() {
        Some(last) => format!("{first} {}", last.trim_start_matches("error: ")),
        None => first.to_owned(),
    }
}

/// Quotes `value` for a POSIX shell when it needs it, so messages can be pasted back.
pub(super) fn shell_quote(value: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    if !value.is_empty() && value.chars().all(plain) {
        return value.to_owned();
    }
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size("100x40"), Ok(Size { cols: 100, rows: 40 }));
        assert!(size("100").is_err());
        assert!(size("1x40").unwrap_err().contains("out of range"));
        assert!(size("x40").is_err());
    }

    #[test]
    fn timeouts() {
        assert_eq!(millis("250"), Ok(Duration::from_millis(250)));
        assert!(millis("0").is_err());
        assert!(millis("1s").is_err());
    }

    #[test]
    fn env_pairs() {
        assert_eq!(env_pair("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert_eq!(env_pair("A="), Ok(("A".into(), String::new())));
        assert!(env_pair("=x").is_err());
        assert!(env_pair("A").is_err());
    }

    #[test]
    fn messages_become_one_line() {
        let message =
            "bad regular expression \"(\": regex parse error:\n    (\n    ^\nerror: unclosed group";
        assert_eq!(
            single_line(message),
            "bad regular expression \"(\": regex parse error: unclosed group"
        );
        assert_eq!(single_line("plain"), "plain");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("written"), "written");
        assert_eq!(shell_quote("[New]"), "'[New]'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
