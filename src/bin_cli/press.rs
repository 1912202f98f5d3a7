//! `termloom run --keys` typed as a person presses them: a key script cut after each key the
//! program must read alone ([`termloom::typing_parts`], under the terminal's modes: an Escape
//! sent as the Escape byte, a plain Tab), and before an Escape that keys come before (nano
//! holds the keys read with one, undrawn), each part sent once the program has read the one
//! before (the keys before an Escape given half a second, an Escape before another 150 ms:
//! [`termloom::typing_steps`]), as MCP `terminal_send keys` sends them.
//! Read in one write with the keys after it, an Escape is a key code's start or an Alt chord
//! (vim `--clean` took `<Esc>Otwo` for the keypad's 4, `ESC O t`), and node's REPL takes a
//! Tab read with more keys for pasted text. `--send` text ending in Escapes (`hello\e`,
//! `x\e\e`) is typed as `hello<Esc>` is ([`termloom::text_typing_steps`]): the text first,
//! then each Escape once the one before is read, and the next step's input once the last is
//! (half a second at most; at once while the terminal reads whole lines, where the Escape goes
//! with its line). An Escape in keys counts as read once the program waits for input again,
//! or read it and went on ([`termloom::escape_read`]: a program that never waits for input, a
//! game on a clock), or once quiet 1.25 s while not known to be busy: silence alone, which
//! ends the wait after other keys, typed `q` after `x<Esc>` to a program computing for 4 s
//! after `x`, read with the Escape as Alt-q ([`termloom::part_read`], as MCP `terminal_send`
//! waits).

use std::time::{Duration, Instant};

use termloom::{Fired, ScriptItem, Session, Until};

/// Longest wait for the program to read one part before the next is typed ahead anyway.
const PART_TIMEOUT: Duration = Duration::from_secs(10);
/// Silence that ends the wait for a program whose waits for input cannot be seen (one run
/// as another user): longer than vim's 1 s wait for the rest of a key code after an Escape.
/// After an Escape, only while the program is not known to be busy
/// ([`termloom::part_read`]).
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

/// Waits, until `deadline` (`bound` at most), for the program to read what was typed, until
/// `read` holds ([`termloom::part_read`]: it waits for input again, exits, or stays quiet
/// 1.25 s, one still busy then getting the next keys typed ahead; after an Escape, quiet only
/// while not known to be busy, or it read the Escape and went on). Whether it ended.
fn read(
    session: &Session,
    deadline: Instant,
    bound: Duration,
    read: Until,
) -> termloom::Result<bool> {
    let left = deadline.saturating_duration_since(Instant::now()).min(bound);
    if left.is_zero() {
        return Ok(false);
    }
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
        let until = termloom::part_read(part, &modes, QUIET);
        if (at + 1 < count || last_alone) && read(session, deadline, *bound, until)? {
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
        if read(session, deadline, *bound, termloom::part_read(part, &modes, QUIET))? {
            return Ok(None);
        }
    }
    Ok(Some(last.clone()))
}

/// Types every piece of `bytes` (a `--send` step's text) but the last, each once the program
/// has read the one before ([`termloom::text_typing_steps`]: the text before the Escapes it
/// ends with given half a second, an Escape before another 150 ms; none while the terminal
/// reads whole lines, [`termloom::line_holds_text`]; the waits within `timeout`), and returns
/// the last, for the step to send with its wait; `None` when the program exited before it,
/// with no one left to read it.
pub(super) fn text_all_but_last(
    session: &Session,
    bytes: &[u8],
    timeout: Duration,
) -> termloom::Result<Option<Vec<u8>>> {
    let deadline = Instant::now() + timeout;
    let steps = termloom::text_typing_steps(bytes);
    let Some(((last, _), before)) = steps.split_last() else { return Ok(Some(Vec::new())) };
    for (at, (piece, bound)) in before.iter().enumerate() {
        session.send_bytes(piece)?;
        let next = steps.get(at + 1).map_or(&[][..], |(next, _)| *next);
        if text_read(session, deadline, *bound, next)? {
            return Ok(None);
        }
    }
    Ok(Some(last.to_vec()))
}

/// Types `bytes` (a `--send` step's text) as [`text_all_but_last`] does, then waits for the
/// program to read a last Escape (half a second at most, none while the terminal reads whole
/// lines), which the next step's input would otherwise join (fish takes `\e\r` for
/// Alt-Enter), as MCP `terminal_send` does; the waits take at most `timeout` in all.
pub(super) fn text_all(session: &Session, bytes: &[u8], timeout: Duration) -> termloom::Result<()> {
    let deadline = Instant::now() + timeout;
    let Some(last) = text_all_but_last(session, bytes, timeout)? else { return Ok(()) };
    session.send_bytes(&last)?;
    if last.last() == Some(&0x1b) {
        let bound = termloom::text_typing_steps(&last).pop().and_then(|(_, bound)| bound);
        // (What the next step types is not known here: it waits.)
        text_read(session, deadline, bound, b"")?;
    }
    Ok(())
}

/// [`read`] after a piece of text typed (within `bound`, its
/// [`termloom::text_typing_steps`]'s), unless the terminal reads whole lines and `next` ends
/// the line ([`termloom::line_holds_text`]): nothing of the text is read before then, and
/// `next` is typed at once. Whether the program ended.
fn text_read(
    session: &Session,
    deadline: Instant,
    bound: Option<Duration>,
    next: &[u8],
) -> termloom::Result<bool> {
    if termloom::line_holds_text(session.info()?.line_modes, next) {
        return Ok(false);
    }
    // (Half a second at most after an Escape in text: silence of 1.25 s never ends it.)
    let until = Until::any(vec![Until::input_wait(), Until::exit(), Until::quiet(QUIET)]);
    read(session, deadline, bound.unwrap_or(PART_TIMEOUT), until)
}
