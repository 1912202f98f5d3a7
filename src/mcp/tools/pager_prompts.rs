//! The prompt line of a pager that a caller's last read ended on: a program reading keys
//! with its cursor on the primary screen right after the text of a row with none below it
//! (`less -X`'s `:`, `(END)` or status line, `more`'s `--More--`, a man page's). The pager erases that line
//! before it goes on (the next page's first line, or, once it quits, the shell's prompt, is
//! written over it), and the engine reads it as a line read before and redrawn since; nothing
//! the caller read is lost there, so a result whose redrawn line is such a prompt, erased to
//! its start, is not said to repeat a line (see [`show`](super::view::show)).

use crate::SessionId;

use super::per_session::PerSession;

/// A pager's prompt line a read ended on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PagerPrompt {
    /// Its number in the session's transcript.
    pub line: u64,
    /// Its text up to the cursor, trailing blanks trimmed.
    pub text: String,
    /// The text of the rows above it that the terminal wrapped into its row, with which its
    /// line starts: `less` writes its prompt after a row filled to its last column with a
    /// space and a backspace, which wrap that row (empty when the prompt's row is a line of
    /// its own). Each row's blanks up to its last column are kept, as its line keeps them.
    pub above: String,
}

impl PagerPrompt {
    /// Whether `now`, what line [`PagerPrompt::line`] reads since it was redrawn, holds
    /// nothing of the prompt: the prompt was erased to its start and other text written over
    /// it (the prompt and `now` begin with no text in common, blanks aside). The rows
    /// [`PagerPrompt::above`] it must still start with, unchanged.
    pub(crate) fn erased_by(&self, now: &str) -> bool {
        let Some(rows) = self.above_in(now) else {
            return false;
        };
        let now = &now[rows..];
        let common = self.text.chars().zip(now.chars()).take_while(|(a, b)| a == b);
        common.map(|(a, _)| a).all(char::is_whitespace)
    }

    /// How many bytes of `now`, what line [`PagerPrompt::line`] reads since, are
    /// [`PagerPrompt::above`], unchanged: all of it, or, when `now` ends within its trailing
    /// blanks (a settled line keeps none; the prompt after them erased), all of `now`.
    /// `None` when `now` does not start with those rows.
    pub(crate) fn above_in(&self, now: &str) -> Option<usize> {
        if now.starts_with(self.above.as_str()) {
            return Some(self.above.len());
        }
        let cut = self.above.strip_prefix(now)?;
        cut.trim().is_empty().then_some(now.len())
    }
}

/// One caller's pager prompts, one per session at most (see [`PerSession`]).
#[derive(Debug, Default)]
pub(crate) struct PagerPrompts(PerSession<PagerPrompt>);

impl PagerPrompts {
    /// The pager's prompt line this caller's last read of session `id` ended on, if it did.
    pub(crate) fn of(&self, id: SessionId) -> Option<PagerPrompt> {
        self.0.look(id, PagerPrompt::clone)
    }

    /// Notes where a read of session `id` that moved the caller's position on ended: on a
    /// pager's prompt line (`Some`), or elsewhere.
    pub(crate) fn read_to(&self, id: SessionId, prompt: Option<PagerPrompt>) {
        match prompt {
            Some(prompt) => self.0.set(id, prompt),
            None => self.0.forget(id),
        }
    }

    /// Forgets a closed session.
    pub(crate) fn forget(&self, id: SessionId) {
        self.0.forget(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(text: &str) -> PagerPrompt {
        PagerPrompt { line: 3, text: text.to_owned(), above: String::new() }
    }

    #[test]
    fn a_prompt_is_erased_only_when_nothing_of_its_start_is_left() {
        assert!(prompt(":").erased_by("$ "));
        assert!(prompt(":").erased_by("32"));
        assert!(prompt("--More--(15%)").erased_by("user@host:~$ "));
        assert!(prompt(" Manual page ls(1) line 1").erased_by(" $ "));
        assert!(prompt(":").erased_by(""));
        // A line edited in part keeps its start: it was changed, not erased.
        assert!(!prompt("$ ec").erased_by("$ ls"));
        assert!(!prompt("progress 50%").erased_by("progress 100%"));
        // After rows wrapped into its row: they are left as they were.
        let wrapped = PagerPrompt { above: "line05 lin".to_owned(), ..prompt("wide.txt") };
        assert!(wrapped.erased_by("line05 lin"));
        assert!(wrapped.erased_by("line05 line05 xx"));
        assert!(!wrapped.erased_by("line05 linwide.txt"));
        assert!(!wrapped.erased_by("$ "));
        // Rows ending in a blank at their last column: a settled line keeps none at its end.
        let blank = PagerPrompt { above: "line05 line05 ".to_owned(), ..prompt(":") };
        assert!(blank.erased_by("line05 line05") && blank.erased_by("line05 line05 line05"));
        assert_eq!(blank.above_in("line05 line05"), Some(13));
        assert_eq!(blank.above_in("line05 line05 xx"), Some(14));
        assert!(!blank.erased_by("line05 line05 :") && !blank.erased_by("line05 line0"));
        assert_eq!(blank.above_in("line05 line04"), None);
    }

    #[test]
    fn a_read_elsewhere_forgets_the_prompt() {
        let prompts = PagerPrompts::default();
        let id = SessionId(1);
        prompts.read_to(id, Some(prompt(":")));
        assert_eq!(prompts.of(id), Some(prompt(":")));
        prompts.read_to(id, None);
        assert_eq!(prompts.of(id), None);
    }
}
