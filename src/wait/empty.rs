//! Whether a regular expression matches every line whatever it holds: it can match the empty
//! string with nothing to hold but the line's start, or nothing but its end (`a*`, `x?`,
//! `(foo)*`, `^`, `$`, the empty pattern), and every line has a start and an end. A wait for
//! it tells nothing of what the program prints. One whose empty match needs more (`^$`, a
//! blank line whole; `\b`, a word's edge) depends on the line, and is taken.

use regex_syntax::hir::{Hir, HirKind, Look};

/// Where every line offers an empty match.
#[derive(Clone, Copy)]
enum Edge {
    /// Its start, before its first character.
    Start,
    /// Its end, after its last character.
    End,
}

/// Whether a pattern matches every line (see the module), read from its syntax tree `hir` as
/// the `regex` crate parses it.
pub(super) fn matches_every_line(hir: &Hir) -> bool {
    [Edge::Start, Edge::End].into_iter().any(|edge| empty_at(hir, edge))
}

/// Whether `hir` matches the empty string at `edge` of any line (a line holds no line break).
fn empty_at(hir: &Hir, edge: Edge) -> bool {
    match hir.kind() {
        HirKind::Empty => true,
        HirKind::Literal(literal) => literal.0.is_empty(),
        HirKind::Class(_) => false,
        HirKind::Look(look) => holds_at(*look, edge),
        HirKind::Repetition(repetition) => repetition.min == 0 || empty_at(&repetition.sub, edge),
        HirKind::Capture(capture) => empty_at(&capture.sub, edge),
        HirKind::Concat(all) => all.iter().all(|hir| empty_at(hir, edge)),
        HirKind::Alternation(all) => all.iter().any(|hir| empty_at(hir, edge)),
    }
}

/// Whether the assertion `look` holds at `edge` of every line: the start or end of the text
/// or of a line, and the half word boundaries there (nothing is before the start, nor after
/// the end).
fn holds_at(look: Look, edge: Edge) -> bool {
    match edge {
        Edge::Start => matches!(
            look,
            Look::Start
                | Look::StartLF
                | Look::StartCRLF
                | Look::WordStartHalfAscii
                | Look::WordStartHalfUnicode
        ),
        Edge::End => matches!(
            look,
            Look::End
                | Look::EndLF
                | Look::EndCRLF
                | Look::WordEndHalfAscii
                | Look::WordEndHalfUnicode
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::matches_every_line as of_tree;

    fn matches_every_line(pattern: &str) -> bool {
        of_tree(&regex_syntax::Parser::new().parse(pattern).unwrap())
    }

    #[test]
    fn a_pattern_with_an_empty_match_at_every_lines_edge_is_told() {
        for pattern in [
            "",
            "a*",
            "x?",
            "(foo)*",
            "(?:ab){0,3}",
            "^",
            "$",
            "(?m)^",
            r"\A",
            r"\z",
            "^a*",
            r"\s*$",
            "|foo",
            "foo|",
            "(a|)",
            r"\b{start-half}",
            "()",
        ] {
            assert!(matches_every_line(pattern), "{pattern:?}");
        }
        for pattern in
            ["a", "a+", "^$", r"^\s*$", r"\b", r"\B", "^a*$", "a*b", r"(?m)^$", "[^a]*x", r"\$ $"]
        {
            assert!(!matches_every_line(pattern), "{pattern:?}");
        }
    }
}
