//! Whether a regular expression can only match across a line break, which no line of the
//! transcript or the screen holds (they are searched a line at a time).

use regex_syntax::hir::{Class, Hir, HirKind};

/// Whether every match of `pattern` holds a line break (`foo\nbar`, `a\r?\n+b`), read from
/// its syntax tree as the `regex` crate parses it. `false` when a match may hold none
/// (`foo(\n|$)`, `[\s\S]`, `(?s).`), and for a pattern that does not parse (the caller
/// compiled it already; an error here leaves the wait as it was).
pub(super) fn needs_line_break(pattern: &str) -> bool {
    regex_syntax::Parser::new().parse(pattern).is_ok_and(|hir| needs(&hir))
}

/// Whether every string `hir` matches holds `\n`. Conservative: a class that matches nothing
/// (so the pattern never matches at all) is not counted.
fn needs(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(literal) => literal.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(class)) => {
            !class.ranges().is_empty()
                && class.ranges().iter().all(|r| r.start() == '\n' && r.end() == '\n')
        }
        HirKind::Class(Class::Bytes(class)) => {
            !class.ranges().is_empty()
                && class.ranges().iter().all(|r| r.start() == b'\n' && r.end() == b'\n')
        }
        HirKind::Repetition(repetition) => repetition.min > 0 && needs(&repetition.sub),
        HirKind::Capture(capture) => needs(&capture.sub),
        HirKind::Concat(all) => all.iter().any(needs),
        HirKind::Alternation(all) => all.iter().all(needs),
    }
}

#[cfg(test)]
mod tests {
    use super::needs_line_break;

    #[test]
    fn a_pattern_whose_every_match_holds_a_line_break_is_told() {
        for pattern in [
            "foo\nbar",
            r"foo\nbar",
            r"\n",
            r"a\r?\n+b",
            r"(x|y)[\n]z",
            r"(?m)^a$\n^b$",
            r"(a\n|b\n)",
            r"(?:\n){2,}",
            r"(?-u)a\nb",
        ] {
            assert!(needs_line_break(pattern), "{pattern:?}");
        }
        for pattern in [
            "foo",
            r"foo(\n|$)",
            r"foo\n?",
            r"(\n)*x",
            r"[\s\S]",
            r"(?s)a.b",
            r"\s+",
            r"[^a]",
            r"a|\n",
            r"(",
        ] {
            assert!(!needs_line_break(pattern), "{pattern:?}");
        }
    }
}
