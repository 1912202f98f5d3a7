//! `termloom run --keys` typed as a person presses them: a key script cut after each key the
//! program must read alone ([`termloom::typing_parts`], under the terminal's modes: an Escape
//! sent as the Escape byte, a plain Tab), and before an Escape that keys come before (nano
//! holds the keys read with one, undrawn), each part sent once the program has read the one
//! before (the keys before an Escape given half a second, an Escape before another 150 ms:
//! [`termloom::typing_steps`]), as MCP `terminal_send keys` sends them.
//! Read in one write with the keys after it, an Escape is a key code's start or an Alt chord
//! (vim `--clean` took `<Esc>Otwo` for the keypad's 4, `ESC O t`), and node's REPL takes a
//! Tab read with more keys for pasted text. `--send` text ending in an Escape (`hello\e`) is
//! typed as `hello<Esc>` is: the text first, then the Escape once it is read.

use std::time::{Duration, Instant};

use termloom::{Fired, ScriptItem, Session, Until};

/// Longest wait for the program to read one part before the next is typed ahead anyway.
const PART_TIMEOUT: Duration = Duration::from_secs(10);
/// Silence that ends the wait for a program whose waits for input cannot be seen (one run
/// as another user): longer than vim's 1 s wait for the rest of a key code after an Escape.
const QUIET: Duration = Duration::from_millis(1250);

/// `script`'s parts under the terminal's `modes`, each with the longest wait for it to be
/// read before the next is typed ([`termloom::typing_steps`]: half a second before an
/// Escape, 150 ms for an Escape before another, 10 s otherwise), and whether its last key
/// must be read alone too (before the next step's input); a script that does not parse is
/// one part, for the send to report its error.
fn parts(script: &str, modes: &termloom::Modes) -> (Vec<(String, Duration)>, bool) {
    match termloom::parse_key_script(script) {
        Ok(items) => {
            let last_alone =
                matches!(items.last(), Some(ScriptItem::Key(key)) if key.read_alone(modes));
            let steps = termloom::typing_steps(&items, modes).into_iter();
            (steps.map(|(part, bound)| (part, bound.unwrap_or(PART_TIMEOUT))).collect(), last_alone)
        }
        Err(_) => (vec![(script.to_owned(), PART_TIMEOUT)], false),
    }
}

/// Waits, until `deadline` (`bound` at most), for the program to read what was typed: until it
/// waits for input again, exits or stays quiet 1.25 s (one still busy then gets the next keys
/// typed ahead). Whether it ended.
fn read(session: &Session, deadline: Instant, bound: Duration) -> termloom::Result<bool> {
    let left = deadline.saturating_duration_since(Instant::now()).min(bound);
    if left.is_zero() {
        return Ok(false);
    }
    let read = Until::any(vec![Until::input_wait(), Until::exit(), Until::quiet(QUIET)]);
    let outcome = session.wait(read, left)?;
    Ok(matches!(outcome.fired, Fired::Exited { .. } | Fired::Closed))
}

/// Types `script`, each part once the program has read the one before, and waits for it to
/// read a last Escape or Tab too, which the next step's input would otherwise join; the waits
/// take at most `timeout` in all.
pub(super) fn all(session: &Session, script: &str, timeout: Duration) -> termloom::Result<()> {
    let deadline = Instant::now() + timeout;
    let modes = session.screen()?.modes;
    let (parts, last_alone) = parts(script, &modes);
    let count = parts.len();
    for (at, (part, bound)) in parts.iter().enumerate() {
        session.send_keys(part)?;
        if (at + 1 < count || last_alone) && read(session, deadline, *bound)? {
            break;
        }
    }
    Ok(())
}

/// Types every part of `script` but the last, each once the program has read the one
/// before (the waits taking at most `timeout` in all), and returns the last part, for the
/// step to send with its wait; `None` when the program exited before it, with no one left to
/// read it.
pub(super) fn all_but_last(
    session: &Session,
    script: &str,
    timeout: Duration,
) -> termloom::Result<Option<String>> {
    let deadline = Instant::now() + timeout;
    let modes = session.screen()?.modes;
    let (parts, _) = parts(script, &modes);
    let Some(((last, _), before)) = parts.split_last() else { return Ok(Some(String::new())) };
    for (part, bound) in before {
        session.send_keys(part)?;
        if read(session, deadline, *bound)? {
            return Ok(None);
        }
    }
    Ok(Some(last.clone()))
}

/// Types `bytes` (a `--send` step's text) but for the Escapes it ends with, when other bytes
/// come before them ([`termloom::text_before_a_last_escape`]: nano holds the keys read with a
/// last Escape, undrawn), waits for the program to read them (half a second at most,
/// [`termloom::READ_BEFORE_AN_ESCAPE`], and within `timeout`), and returns what is left to
/// type: the Escapes, or all of `bytes` when they do not end in one; `None` when the program
/// exited before it, with no one left to read it.
pub(super) fn text_but_a_last_escape(
    session: &Session,
    bytes: &[u8],
    timeout: Duration,
) -> termloom::Result<Option<Vec<u8>>> {
    let Some((before, escape)) = termloom::text_before_a_last_escape(bytes) else {
        return Ok(Some(bytes.to_vec()));
    };
    let deadline = Instant::now() + timeout;
    session.send_bytes(before)?;
    match read(session, deadline, termloom::READ_BEFORE_AN_ESCAPE)? {
        true => Ok(None),
        false => Ok(Some(escape.to_vec())),
    }
}
