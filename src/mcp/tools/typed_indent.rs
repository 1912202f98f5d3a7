//! The note on lines of code typed, each line break as Enter, into a REPL that indents a new
//! line itself: IPython, Python 3.13's REPL and ptpython indent the line after `for i in x:`
//! and keep the indent of the line before, so the text's own indent is added to theirs (an
//! `IndentationError`), and a line typed at column 0 after an indented one joins its block
//! (`for i in range(2):` / `    print(i)` / `print("end")` printed `end` twice), silently. A
//! paste keeps the text as it is.

/// What the result says when `typed` (the call's text, its escapes decoded), of more than one
/// line, came back in `output` (the new transcript, which holds its echo) with a line after
/// the first indented more than it was typed, while the program reads as a line editor
/// (`line_editor`: bracketed pastes on, the primary screen). A line's echo is a transcript
/// line ending with its text after a prompt (`...:`, `...`) and more blanks than its own
/// indent and the prompt's one space: those the program added. Lines indented with tabs, and
/// lines of one character (`}`, `)`), which program output ends with too, are not looked for.
pub(crate) fn auto_indent_note(typed: &str, output: &str, line_editor: bool) -> Option<String> {
    if !line_editor {
        return None;
    }
    let mut lines = typed.split(['\n', '\r']).filter(|line| !line.trim().is_empty());
    lines.next()?;
    let indented_more = |line: &str| {
        let text = line.trim_start_matches(' ');
        let (typed_indent, text) = (line.len() - text.len(), text.trim_end());
        if text.starts_with('\t') || text.chars().count() < 2 {
            return false;
        }
        output.lines().any(|shown| {
            let Some(before) = shown.trim_end().strip_suffix(text) else { return false };
            let prompt = before.trim_end();
            !prompt.is_empty() && before.len() - prompt.len() > typed_indent + 1
        })
    };
    lines.any(indented_more).then(|| {
        "[the program indented the lines typed after Enter itself, on top of the text's own indent (a REPL such as IPython or Python 3.13's): what it holds or ran is not the text (`keys` <C-c> drops a block still open); send code of several lines as `paste`]".to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::auto_indent_note;

    const LOOP: &str = "for i in range(2):\n    print(i)\nprint(\"end\")";

    #[test]
    fn an_indent_added_to_the_typed_one_is_told() {
        let ipython = "for i in range(2):\n   ...:         print(i)\n   ...:         print(\"end\")\n   ...:         ";
        assert!(auto_indent_note(LOOP, ipython, true).is_some());
        let pyrepl = "for i in range(2):\n...         print(i)\n...         print(\"end\")\n";
        assert!(auto_indent_note(LOOP, pyrepl, true).is_some());
    }

    #[test]
    fn an_echo_as_typed_is_not() {
        let basic = "for i in range(2):\n...     print(i)\n... print(\"end\")\n";
        assert_eq!(auto_indent_note(LOOP, basic, true), None);
        let bash = "for i in 1 2\n> do\n>   echo $i\n> done\n1\n2\n";
        assert_eq!(auto_indent_note("for i in 1 2\ndo\n  echo $i\ndone", bash, true), None);
        // Not a line editor (node's REPL), one line, or lines of one character.
        let ipython = "for i in range(2):\n   ...:         print(i)\n";
        assert_eq!(auto_indent_note(LOOP, ipython, false), None);
        assert_eq!(auto_indent_note("    print(i)", ipython, true), None);
        assert_eq!(auto_indent_note("f(\n)", "f(\n...         )\n", true), None);
    }
}
