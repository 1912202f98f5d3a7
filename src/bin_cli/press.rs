//! `termloom run --keys` typed as a person presses them: a key script cut after each Escape
//! and each plain Tab, each part sent once the program has read the one before.
//! Read in one write with the keys after it, an Escape is a key code's start or an Alt chord
//! (vim `--clean` took `<Esc>Otwo` for the keypad's 4, `ESC O t`), and node's REPL takes a
//! Tab read with more keys for pasted text (MCP `terminal_send keys` cuts them alike).

use std::time::Duration;

use termloom::{Fired, Key, KeyCode, Modifiers, ScriptItem, Session, Until};

/// Longest wait for the program to read one part before the next is typed ahead anyway.
const PART_TIMEOUT: Duration = Duration::from_secs(10);
/// Silence that ends the wait for a program whose waits for input cannot be seen (one run
/// as another user): longer than vim's 1 s wait for the rest of a key code after an Escape.
const QUIET: Duration = Duration::from_millis(1250);

/// `script` cut after each Escape (with modifiers or not) and each plain Tab, as scripts (a
/// literal `<` as `<lt>`), each with whether it ends so (the last part may not); a script
/// that does not parse is one part, for the send to report its error.
fn cut(script: &str) -> Vec<(String, bool)> {
    let Ok(items) = termloom::parse_key_script(script) else {
        return vec![(script.to_owned(), false)];
    };
    let alone = |key: &Key| {
        key.code == KeyCode::Escape || key.code == KeyCode::Tab && key.mods == Modifiers::NONE
    };
    let mut parts = vec![(String::new(), false)];
    for item in &items {
        if parts.last().is_some_and(|(_, ends_cut)| *ends_cut) {
            parts.push((String::new(), false));
        }
        let (part, ends_cut) = parts.last_mut().expect("a part");
        match item {
            ScriptItem::Text(text) => part.push_str(&text.replace('<', "<lt>")),
            ScriptItem::Key(key) => part.push_str(&format!("<{key}>")),
        }
        *ends_cut = matches!(item, ScriptItem::Key(key) if alone(key));
    }
    parts
}

/// Waits for the program to read what was typed: until it waits for input again, exits or
/// stays quiet 1.25 s (one still busy after `timeout`, at most 10 s, gets the next keys
/// typed ahead). Whether it ended.
fn read(session: &Session, timeout: Duration) -> termloom::Result<bool> {
    let read = Until::any(vec![Until::input_wait(), Until::exit(), Until::quiet(QUIET)]);
    let outcome = session.wait(read, timeout.min(PART_TIMEOUT))?;
    Ok(matches!(outcome.fired, Fired::Exited { .. } | Fired::Closed))
}

/// Types `script`, each part once the program has read the one before, and waits for it to
/// read a last Escape or Tab too, which the next step's input would otherwise join.
pub(super) fn all(session: &Session, script: &str, timeout: Duration) -> termloom::Result<()> {
    for (part, ends_cut) in cut(script) {
        session.send_keys(&part)?;
        if ends_cut && read(session, timeout)? {
            break;
        }
    }
    Ok(())
}

/// Types every part of `script` but the last, each once the program has read the one
/// before, and returns the last part, for the step to send with its wait; `None` when the
/// program exited before it, with no one left to read it.
pub(super) fn all_but_last(
    session: &Session,
    script: &str,
    timeout: Duration,
) -> termloom::Result<Option<String>> {
    let mut parts = cut(script);
    let (last, _) = parts.pop().unwrap_or_default();
    for (part, _) in parts {
        session.send_keys(&part)?;
        if read(session, timeout)? {
            return Ok(None);
        }
    }
    Ok(Some(last))
}

#[cfg(test)]
mod tests {
    use super::cut;

    /// A script is cut after each Escape and plain Tab; the parts read back as the script's
    /// keys.
    #[test]
    fn a_script_is_cut_after_its_escapes_and_tabs() {
        let parts =
            |script: &str| cut(script).into_iter().map(|(part, _)| part).collect::<Vec<_>>();
        assert_eq!(
            cut("ione<Esc>Otwo<Esc>"),
            [("ione<Escape>".into(), true), ("Otwo<Escape>".into(), true)]
        );
        assert_eq!(cut("a<Tab>b"), [("a<Tab>".into(), true), ("b".into(), false)]);
        assert_eq!(parts("a<lt>b<Tab>c<S-Tab>d"), ["a<lt>b<Tab>", "c<S-Tab>d"]);
        assert_eq!(parts("<M-Esc>x<C-Tab>y"), ["<M-Escape>", "x<C-Tab>y"]);
        assert_eq!(parts("<Up><Up><Enter>"), ["<Up><Up><Enter>"]);
        assert_eq!(parts("<Nope>x"), ["<Nope>x"]);
        for script in ["ione<Esc>Otwo<Esc>", "a<lt>b<Tab>c", "<Esc><Esc><Down>"] {
            let again = parts(script).concat();
            assert_eq!(
                termloom::parse_key_script(&again).unwrap(),
                termloom::parse_key_script(script).unwrap(),
                "{script}"
            );
        }
    }
}
