//! What OSC 133 shell-integration marks reveal about a shell: at the prompt, running a
//! command, the last exit code, where each command's output starts and ends. (The startup
//! files that add the marks to bash and zsh are in `os::shell_files`.)

use std::time::Instant;

use crate::term::emulator::MarkAt;
use crate::term::scan::PromptMark;

/// A position in the transcript: line number and byte offset.
pub(crate) type Position = (u64, usize);

/// What the OSC 133 marks say about a shell.
#[derive(Debug, Default)]
pub(crate) struct ShellTracker {
    /// At least one prompt was marked: integration works.
    pub integrated: bool,
    /// The last mark was `B`: the prompt is drawn and the shell waits for a command line.
    pub at_prompt: bool,
    /// A command's output started (`C`) and it has not ended (`D`) yet.
    pub running: bool,
    /// The exit code of the last command, from `D`.
    pub last_exit: Option<i32>,
    /// Prompts drawn (`B` marks).
    pub prompts: u64,
    /// Prompts begun (`A` marks): a prompt whose `B` was lost (`PS1` replaced) still begins.
    pub prompt_starts: u64,
    /// Where the last prompt began (its `A` mark): what stands before it is output.
    pub prompt_start: Option<Position>,
    /// The last mark was `A`: a prompt begun and not drawn, one that lost its `B` (`PS1`
    /// replaced) or one still being drawn.
    pub prompt_unmarked: bool,
    /// When the last prompt was drawn.
    pub prompt_at: Option<Instant>,
    /// Where on the grid the last prompt's command line starts (its `B` mark; see
    /// `MarkAt::cell`).
    pub input_cell: Option<(u64, usize, usize)>,
    /// Commands ended (`D` marks).
    pub commands: u64,
    /// Where the last command's output started, and the `commands` count then.
    pub output_start: Option<(Position, u64)>,
    /// Where the last command's output ended.
    pub output_end: Option<Position>,
    /// The text after the cursor on the line where the last command's output started, left
    /// there by an earlier program that moved the cursor up (as a rule none): while it is
    /// still there unchanged, the command did not print it.
    pub output_start_after: String,
}

impl ShellTracker {
    /// Applies one mark; when it ends a command that had output (not an empty command line),
    /// that command's number (the count of commands ended before it) and exit code.
    pub(crate) fn apply(&mut self, mark: &MarkAt, now: Instant) -> Option<(u64, Option<i32>)> {
        let mut ended = None;
        let position = (mark.line, mark.offset);
        self.prompt_unmarked = false;
        match mark.mark {
            PromptMark::PromptStart => {
                self.running = false;
                self.at_prompt = false;
                self.prompt_starts += 1;
                self.prompt_unmarked = true;
                self.prompt_start = Some(position);
            }
            PromptMark::InputStart => {
                self.integrated = true;
                self.at_prompt = true;
                self.prompts += 1;
                self.prompt_at = Some(now);
                self.input_cell = Some(mark.cell);
            }
            PromptMark::OutputStart => {
                self.at_prompt = false;
                self.running = true;
                self.output_start = Some((position, self.commands));
                self.output_start_after = mark.after_cursor.clone().unwrap_or_default();
                // The previous command's end is not this one's.
                self.output_end = None;
            }
            PromptMark::CommandEnd(code) => {
                self.running = false;
                // A D with no C since the last one closes an empty command line.
                if let Some((start, _)) = self.output_start.filter(|&(_, c)| c == self.commands) {
                    self.last_exit = code;
                    ended = Some((self.commands, code));
                    // A command that left the cursor above its output's start (`printf
                    // 'out\n\e[H'`) printed down to the screen's last text.
                    let moved_up = mark.text_end.filter(|&end| position < start && end > start);
                    self.output_end = Some(moved_up.unwrap_or(position));
                }
                self.commands += 1;
            }
        }
        ended
    }

    /// The output span of the command that ended as the `commands`-th, if it had one.
    pub(crate) fn output_of(&self, command: u64) -> Option<(Position, Position)> {
        let (start, count) = self.output_start?;
        (count == command).then_some((start, self.output_end?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(mark: PromptMark, line: u64) -> MarkAt {
        MarkAt { mark, line, offset: 0, text_end: None, after_cursor: None, cell: (0, 0, 0) }
    }

    /// A prompt begun and not drawn is unmarked until its `B`, or another mark, comes.
    #[test]
    fn a_prompt_begun_without_its_mark_is_unmarked() {
        let mut t = ShellTracker::default();
        let now = Instant::now();
        t.apply(&mark(PromptMark::PromptStart, 0), now);
        assert!(t.prompt_unmarked && !t.at_prompt);
        t.apply(&mark(PromptMark::InputStart, 0), now);
        assert!(!t.prompt_unmarked && t.at_prompt);
        t.apply(&mark(PromptMark::OutputStart, 1), now);
        t.apply(&mark(PromptMark::CommandEnd(Some(0)), 2), now);
        t.apply(&mark(PromptMark::PromptStart, 2), now);
        assert!(t.prompt_unmarked);
        t.apply(&mark(PromptMark::OutputStart, 3), now);
        assert!(!t.prompt_unmarked);
    }

    #[test]
    fn tracks_a_command() {
        let mut t = ShellTracker::default();
        let now = Instant::now();
        t.apply(&mark(PromptMark::CommandEnd(Some(0)), 0), now);
        t.apply(&mark(PromptMark::PromptStart, 0), now);
        t.apply(&mark(PromptMark::InputStart, 0), now);
        assert!(t.at_prompt && t.integrated && t.last_exit.is_none());
        t.apply(&mark(PromptMark::OutputStart, 1), now);
        assert!(t.running && !t.at_prompt);
        t.apply(&mark(PromptMark::CommandEnd(Some(3)), 4), now);
        assert_eq!(t.output_of(1), Some(((1, 0), (4, 0))));
        assert_eq!(t.last_exit, Some(3));
        // An empty command line: D without C keeps the last exit code.
        t.apply(&mark(PromptMark::PromptStart, 4), now);
        t.apply(&mark(PromptMark::InputStart, 4), now);
        t.apply(&mark(PromptMark::CommandEnd(Some(0)), 5), now);
        assert_eq!(t.last_exit, Some(3));
        assert_eq!(t.output_of(2), None);
        // A command that has started and not ended (the shell exited during it) has no span
        // yet: not the last command's end.
        t.apply(&mark(PromptMark::PromptStart, 5), now);
        t.apply(&mark(PromptMark::InputStart, 5), now);
        t.apply(&mark(PromptMark::OutputStart, 6), now);
        assert_eq!(t.output_of(3), None);
    }
}
