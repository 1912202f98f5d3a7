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
    let expected = || {
        format!(
            "{value:?} is not COLSxROWS with COLS from {MIN_COLS} to {MAX_COLS} and ROWS from {MIN_ROWS} to {MAX_ROWS}, such as 120x32"
        )
    };
    let (cols, rows) = value.split_once(['x', 'X']).ok_or_else(expected)?;
    let cols: u16 = cols.parse().map_err(|_| expected())?;
    let rows: u16 = rows.parse().map_err(|_| expected())?;
    if !(MIN_COLS..=MAX_COLS).contains(&cols) || !(MIN_ROWS..=MAX_ROWS).contains(&rows) {
        return Err(expected());
    }
    Ok(Size { cols, rows })
}

/// Parses a whole number from `min` to `max`; the message names the range whether the value
/// is no number, too large for any, or out of the range.
pub(super) fn whole_number(value: &str, min: u64, max: u64) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{value:?} is not a whole number from {min} to {max}")),
    }
}

/// Parses a whole number of milliseconds from `min` to `max`. A value given with a unit
/// (`5s`, `1.5s`, `500ms`, `2m`) is refused with the number to give instead: `"5s" is not a
/// whole number from 1 to 3600000: it is in milliseconds; for 5 s, give 5000`; so is a
/// fraction without one (`1.5`), which no number of milliseconds is, as seconds.
pub(super) fn milliseconds(value: &str, min: u64, max: u64) -> Result<u64, String> {
    let fraction = || {
        let value = value.trim();
        value.contains('.').then(|| with_unit(&format!("{value}s"))).flatten()
    };
    whole_number(value, min, max).map_err(|message| match with_unit(value).or_else(fraction) {
        Some((ms, said)) if (min..=max).contains(&ms) => {
            format!("{message}: it is in milliseconds; for {said}, give {ms}")
        }
        _ => message,
    })
}

/// `value` read as a duration with a unit (`ms`, `s`, `sec`, `m`, `min`, `h`; a blank before
/// it or not, a fraction allowed): its milliseconds, when whole, and how it reads (`5 s`).
fn with_unit(value: &str) -> Option<(u64, String)> {
    let value = value.trim();
    let at = value.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = value.split_at(at);
    let number: f64 = number.parse().ok()?;
    let (per_unit, unit) = match unit.trim_start() {
        "ms" => (1.0, "ms"),
        "s" | "sec" | "secs" | "seconds" => (1_000.0, "s"),
        "m" | "min" | "mins" | "minutes" => (60_000.0, "min"),
        "h" | "hour" | "hours" => (3_600_000.0, "h"),
        _ => return None,
    };
    // Whole to within the rounding a decimal fraction carries (`2.01` s is 2009.999… ms).
    let ms = number * per_unit;
    let whole = ms.round();
    ((ms - whole).abs() < 1e-6 && whole <= u64::MAX as f64)
        .then(|| (whole as u64, format!("{number} {unit}")))
}

/// Longest accepted wait timeout of `termloom run`: one day. A run is the caller's own
/// process; the server's commands (`termloom wait`...) wait at most an hour, the MCP tools'
/// bound, since each wait holds a connection and a thread of a server others share.
pub(super) const MAX_TIMEOUT_MS: u64 = 86_400_000;

/// Parses a timeout in milliseconds, 1 ms to one day.
pub(super) fn millis(value: &str) -> Result<Duration, String> {
    milliseconds(value, 1, MAX_TIMEOUT_MS).map(Duration::from_millis)
}

/// Parses `KEY=VALUE` (the value may be empty and may contain `=`).
pub(super) fn env_pair(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((key, val)) if !key.is_empty() => Ok((key.to_owned(), val.to_owned())),
        _ => Err(format!("{value:?} is not KEY=VALUE")),
    }
}

/// A multi-line error message (such as a regex error with its caret diagram) as one line:
/// the first line and the last, which says what is wrong.
pub(super) fn single_line(message: &str) -> String {
    // The library's kind of error says nothing a command line's message does not.
    let message = message.strip_prefix("invalid input: ").unwrap_or(message);
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    match lines.next_back() {
        Some(last) => format!("{first} {}", last.trim_start_matches("error: ")),
        None => first.to_owned(),
    }
}

/// The one of `names` that `word` plausibly misspells or shortens (`--nmae` for `--name`,
/// `sned` for `send`, `--cmd` for `--command`), leading dashes aside: the one name `word`
/// abbreviates (its first letter and the rest in order, `cmd` in `command`), when exactly one
/// longer name does (one letter off a short other name, `cwd`, is a worse guess than the name
/// it shortens); else (none, or several: `--shel` shortens `--shell-integration` too) the
/// nearest by edit distance (a transposed pair counting one edit), within one edit for a
/// name of 3 or 4 characters and two for a longer one, and nearer than every other name.
/// None when no name is that near, or two are equally near, or `word` has fewer than 3
/// characters.
pub(super) fn closest<'n>(word: &str, names: impl IntoIterator<Item = &'n str>) -> Option<&'n str> {
    let bare: Vec<char> = word.trim_start_matches('-').chars().collect();
    // Two letters or one are too few to tell a misspelling from another word (`-x`, `-L`).
    if bare.len() < 3 {
        return None;
    }
    let names: Vec<&str> = names.into_iter().collect();
    let mut shortened = names.iter().filter(|name| shortens(word, name));
    if let (Some(name), None) = (shortened.next(), shortened.next()) {
        return Some(name);
    }
    let most = if bare.len() <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for name in names {
        let other: Vec<char> = name.trim_start_matches('-').chars().collect();
        if other.len().abs_diff(bare.len()) > most {
            continue;
        }
        let distance = edit_distance(&bare, &other);
        match best {
            _ if distance > most || name == word => {}
            Some((nearest, _)) if distance > nearest => {}
            Some((nearest, _)) if distance == nearest => tied = true,
            _ => {
                best = Some((distance, name));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, name)| name)
}

/// Whether `word` shortens `name` as [`closest`] takes it, leading dashes aside: `name` is
/// longer, begins with `word`'s first letter and has the rest of its letters in order (`cmd`
/// in `command`), `word` having 3 characters or more.
pub(super) fn shortens(word: &str, name: &str) -> bool {
    let bare: Vec<char> = word.trim_start_matches('-').chars().collect();
    let other: Vec<char> = name.trim_start_matches('-').chars().collect();
    bare.len() >= 3
        && other.len() > bare.len()
        && other.first() == bare.first()
        && abbreviates(&bare, &other)
}

/// Whether `short`'s characters are in `long`, in order (not necessarily together).
fn abbreviates(short: &[char], long: &[char]) -> bool {
    let mut rest = long.iter();
    short.iter().all(|c| rest.any(|other| other == c))
}

/// The optimal string alignment distance between `a` and `b`: the insertions, deletions,
/// substitutions and transpositions of two neighbours that make one the other. Names are
/// short (a flag, a command), so the full table is small.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in table[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d =
                (table[i - 1][j] + 1).min(table[i][j - 1] + 1).min(table[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = d;
        }
    }
    table[a.len()][b.len()]
}

/// Refuses a key script that is only key names without their angle brackets (`C-c`,
/// `Enter`: see [`termloom::bracketed_key_names`]), which would type their letters, with the
/// script to give instead, and `text_flag` (`--text`, `run`'s `--send`) for the letters.
pub(super) fn bare_key_names(script: &str, text_flag: &str) -> Result<(), String> {
    let Some(bracketed) = termloom::bracketed_key_names(script) else { return Ok(()) };
    let keys = if script.split_whitespace().count() == 1 { "the key" } else { "the keys" };
    Err(format!(
        "{script:?} would type its letters, not press {keys}: key names go in angle brackets, {} \
         (to type the letters, give {text_flag} {})",
        shell_quote(&bracketed),
        shell_quote(script)
    ))
}

/// The tool's note on a key script ending in a key name written out after text (`make
/// Enter`: the line of [`termloom::tools::typed_key_name_note`], `[keys typed its last word,
/// Enter, as text; <Enter> presses the key]`) in the command line's terms: out of its
/// brackets, naming `--keys`.
pub(super) fn key_name_note_in_cli_terms(note: &str) -> String {
    let note = note.strip_prefix('[').and_then(|note| note.strip_suffix(']')).unwrap_or(note);
    format!("--{note}")
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
        assert!(size("1x40").unwrap_err().contains("COLS from 2 to 1000 and ROWS from 1 to 500"));
        assert!(size("x40").is_err());
    }

    #[test]
    fn timeouts() {
        assert_eq!(millis("250"), Ok(Duration::from_millis(250)));
        assert!(millis("0").is_err());
        assert!(millis("1s").is_err());
        let message = millis("5s").unwrap_err();
        assert!(message.ends_with(": it is in milliseconds; for 5 s, give 5000"), "{message}");
        let message = millis("1.5 min").unwrap_err();
        assert!(message.ends_with("for 1.5 min, give 90000"), "{message}");
        assert!(millis("500ms").unwrap_err().ends_with("for 500 ms, give 500"));
        // Decimal fractions a binary one cannot hold exactly (2009.999… ms).
        assert!(millis("2.01s").unwrap_err().ends_with("for 2.01 s, give 2010"));
        assert!(millis("1.005s").unwrap_err().ends_with("for 1.005 s, give 1005"));
        assert!(!millis("1.0005s").unwrap_err().contains("milliseconds"), "half a millisecond");
        // No unit, an unknown one, or past the bound: the range alone.
        assert!(!millis("5x").unwrap_err().contains("milliseconds"));
        assert!(!millis("2d").unwrap_err().contains("milliseconds"));
        assert!(!millis("25h").unwrap_err().contains("milliseconds"));
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
    fn misspellings() {
        let flags = ["--name", "--cwd", "--text", "--wait-prompt", "--wait-text", "--timeout"];
        assert_eq!(closest("--nmae", flags), Some("--name"));
        assert_eq!(closest("--tetx", flags), Some("--text"));
        assert_eq!(closest("--wait-promt", flags), Some("--wait-prompt"));
        assert_eq!(closest("--timout", flags), Some("--timeout"));
        assert_eq!(closest("sned", ["start", "send", "read"]), Some("send"));
        assert_eq!(closest("strat", ["start", "send", "read"]), Some("start"));
        // A name shortened is that name, not a short one a letter away (`--cwd`).
        assert_eq!(closest("--cmd", ["--cwd", "--command", "--name"]), Some("--command"));
        assert_eq!(closest("--nam", flags), Some("--name"));
        assert_eq!(closest("--wait", flags), None, "shortens two, near none");
        // Shortening two, the nearer by edits (review ve: `--shel` was told nothing).
        let shell = ["--shell", "--shell-integration", "--screen", "--screenshot"];
        assert_eq!(closest("--shel", shell), Some("--shell"));
        assert_eq!(closest("--scren", shell), Some("--screen"));
        // Too far, or as near to two names.
        assert_eq!(closest("--bogus", flags), None);
        assert_eq!(closest("--cw", ["--cwd", "--cx"]), None);
        assert_eq!(closest("--name", flags), None);
        assert_eq!(closest("-x", ["-L", "--cwd"]), None);
    }

    #[test]
    fn key_names_without_brackets() {
        let message = bare_key_names("C-c", "--text").unwrap_err();
        assert_eq!(
            message,
            "\"C-c\" would type its letters, not press the key: key names go in angle \
             brackets, '<C-c>' (to type the letters, give --text C-c)"
        );
        assert!(bare_key_names("Up Up Enter", "--send").unwrap_err().contains("'<Up><Up><Enter>'"));
        for script in ["q", "x", "dd", "end", "up", ":wq<Enter>", "<C-c>", "Escape :wq", "Hello"] {
            assert_eq!(bare_key_names(script, "--text"), Ok(()), "{script}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("written"), "written");
        assert_eq!(shell_quote("[New]"), "'[New]'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
