//! Whether a regular expression can only match text no line of the transcript or the screen
//! holds: they are searched a line at a time, and a line holds no line break and no other
//! control character (a tab is shown as spaces, an Escape or a carriage return is acted on).

use regex_syntax::hir::{Class, Hir, HirKind};

/// What every match of a pattern holds that no shown line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unshown {
    /// A line break (`foo\nbar`, `a\r?\n+b`).
    LineBreak,
    /// Another control character (`a\tb`, `\x1b\[31m`, `done\r`).
    Control,
}

/// What every match of a pattern holds that no shown line does, read from its syntax tree
/// `hir` as the `regex` crate parses it; `None` when a match may hold neither (`foo(\n|$)`,
/// `[\s\S]`, `(?s).`, `\s+`).
pub(super) fn needs_unshown(hir: &Hir) -> Option<Unshown> {
    if needs(hir, &|start, end| start == 0x0a && end == 0x0a) {
        Some(Unshown::LineBreak)
    } else if needs(hir, &|start, end| end <= 0x1f || (start >= 0x7f && end <= 0x9f)) {
        Some(Unshown::Control)
    } else {
        None
    }
}

/// Whether every string `hir` matches holds a character in a range `within` takes whole
/// (`within(start, end)`: every code point from `start` to `end` is such a character; bytes
/// are taken as code points when they are ASCII, and never otherwise). Conservative: a class
/// that matches nothing (so the pattern never matches at all) is not counted.
fn needs(hir: &Hir, within: &dyn Fn(u32, u32) -> bool) -> bool {
    let byte = |b: u8| b.is_ascii() && within(u32::from(b), u32::from(b));
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => text.chars().any(|c| within(u32::from(c), u32::from(c))),
            Err(_) => literal.0.iter().any(|&b| byte(b)),
        },
        HirKind::Class(Class::Unicode(class)) => {
            !class.ranges().is_empty()
                && class.ranges().iter().all(|r| within(u32::from(r.start()), u32::from(r.end())))
        }
        HirKind::Class(Class::Bytes(class)) => {
            !class.ranges().is_empty()
                && class
                    .ranges()
                    .iter()
                    .all(|r| r.end().is_ascii() && within(u32::from(r.start()), u32::from(r.end())))
        }
        HirKind::Repetition(repetition) => repetition.min > 0 && needs(&repetition.sub, within),
        HirKind::Capture(capture) => needs(&capture.sub, within),
        HirKind::Concat(all) => all.iter().any(|hir| needs(hir, within)),
        HirKind::Alternation(all) => all.iter().all(|hir| needs(hir, within)),
    }
}

#[cfg(test)]
mod tests {
    use super::Unshown;

    fn needs_unshown(pattern: &str) -> Option<Unshown> {
        super::needs_unshown(&regex_syntax::Parser::new().parse(pattern).expect(pattern))
    }

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
            assert_eq!(needs_unshown(pattern), Some(Unshown::LineBreak), "{pattern:?}");
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
            r"a\s*b",
            r"[\x00-\x20]",
        ] {
            assert_eq!(needs_unshown(pattern), None, "{pattern:?}");
        }
    }

    #[test]
    fn a_pattern_whose_every_match_holds_another_control_character_is_told() {
        for pattern in
            [r"a\tb", r"\x1b\[31m", r"done\r", r"[\t\r]", r"(a\x07|b\x7f)", "\u{85}", r"(?-u)\x1b"]
        {
            assert_eq!(needs_unshown(pattern), Some(Unshown::Control), "{pattern:?}");
        }
    }
}
