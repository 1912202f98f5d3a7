//! Notes for values in milliseconds that read like seconds: `--timeout 8`, `--wait-quiet 2`
//! meant as seconds end a wait at once, and the result says so, with the value to give.

use serde_json::{Map, Value};

/// A flag in milliseconds, what it does, and below which value it reads like seconds.
struct InMilliseconds {
    /// The flag as given (`--wait-quiet`).
    flag: &'static str,
    /// Its tool argument (`quiet_ms`).
    arg: &'static str,
    /// Values below this read like seconds.
    under: u64,
    /// What it did with N: `waited N ms`.
    did: fn(u64) -> String,
    /// Whether it ended the wait of `result`, given the call's `arguments`.
    ended: fn(&Map<String, Value>, &Value) -> bool,
}

/// The flags in milliseconds whose small values end a wait at once.
const FLAGS: [InMilliseconds; 3] = [
    InMilliseconds {
        flag: "--timeout",
        arg: "timeout_ms",
        under: 1000,
        did: |ms| format!("waited {ms} ms"),
        ended: |_, result| result["wait"]["outcome"] == "timeout" || result["timed_out"] == true,
    },
    InMilliseconds {
        flag: "--wait-quiet",
        arg: "quiet_ms",
        under: 100,
        did: |ms| format!("held after {ms} ms without output"),
        ended: held_with_no_text,
    },
    InMilliseconds {
        flag: "--wait-stable",
        arg: "stable_ms",
        under: 100,
        did: |ms| format!("held after {ms} ms of an unchanged screen"),
        ended: held_with_no_text,
    },
];

/// Whether `flag` takes milliseconds (`--timeout`, `--wait-quiet`, `--wait-stable`), so that
/// a value given with a unit (`5s`) is told the number to give.
pub(super) fn in_milliseconds(flag: &str) -> bool {
    FLAGS.iter().any(|known| known.flag == flag)
}

/// The wait conditions that hold with no text matched besides quiet and stable: when one of
/// them was given too, it may be what ended the wait.
const OTHER_TEXTLESS: [&str; 3] = ["prompt", "input_wait", "for_cursor"];

/// Whether the wait held on a condition that matches no text, and the only such conditions
/// asked for are `--wait-quiet` and `--wait-stable`: one of them ended it.
fn held_with_no_text(arguments: &Map<String, Value>, result: &Value) -> bool {
    let wait = &result["wait"];
    wait["outcome"] == "matched"
        && wait["default"] != true
        && wait["matched_text"].as_str().is_none_or(str::is_empty)
        && !OTHER_TEXTLESS.iter().any(|arg| arguments.contains_key(*arg))
}

/// A note for each flag in milliseconds given a value that reads like seconds and that ended
/// the wait (a `--timeout` from 1 to 999 that timed out, a `--wait-quiet` or `--wait-stable`
/// from 1 to 99 that held): what it did, and what to give for that many seconds.
pub(super) fn seconds_for_milliseconds(
    arguments: &Map<String, Value>,
    result: &Value,
) -> Vec<String> {
    let mut notes = Vec::new();
    for flag in &FLAGS {
        let Some(ms) = arguments.get(flag.arg).and_then(Value::as_u64) else { continue };
        // (0 is 0 s too: nothing to tell.)
        if ms > 0 && ms < flag.under && (flag.ended)(arguments, result) {
            let name = flag.flag;
            notes.push(format!(
                "{name} is in milliseconds: {name} {ms} {}; for {ms} s, give {name} {}",
                (flag.did)(ms),
                ms * 1000
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn notes(arguments: Value, result: Value) -> String {
        seconds_for_milliseconds(arguments.as_object().unwrap(), &result).concat()
    }

    #[test]
    fn a_value_that_reads_like_seconds_is_told_only_when_it_ended_the_wait() {
        let held = json!({"wait": {"outcome": "matched", "matched_text": ""}});
        assert_eq!(
            notes(json!({"quiet_ms": 2}), held.clone()),
            "--wait-quiet is in milliseconds: --wait-quiet 2 held after 2 ms without output; for 2 s, give --wait-quiet 2000"
        );
        assert!(notes(json!({"stable_ms": 5}), held.clone()).starts_with("--wait-stable is"));
        assert_eq!(notes(json!({"quiet_ms": 100}), held.clone()), "");
        // 0 ms is 0 s: "for 0 s, give --wait-quiet 0" told nothing.
        assert_eq!(notes(json!({"quiet_ms": 0}), held.clone()), "");
        assert_eq!(notes(json!({"stable_ms": 0}), held.clone()), "");
        // A prompt may have ended it as well.
        assert_eq!(notes(json!({"quiet_ms": 2, "prompt": true}), held), "");
        let text = json!({"wait": {"outcome": "matched", "matched_text": "done"}});
        assert_eq!(notes(json!({"quiet_ms": 2, "for_text": "done"}), text), "");
        let timeout = json!({"wait": {"outcome": "timeout"}});
        assert_eq!(
            notes(json!({"timeout_ms": 8}), timeout),
            "--timeout is in milliseconds: --timeout 8 waited 8 ms; for 8 s, give --timeout 8000"
        );
    }
}
