//! How large a caller's regular expression is to search: the characters and classes its
//! matches go through, with counted repetitions expanded (`a{100}{100}` is 10,000), as the
//! `regex` crate's automaton holds them. A search can track all of them at each byte of the
//! text (a literal of 3,000 `a`s over a line of `a`s: 1.5 s for a line of 448 KiB in a debug
//! build, minutes at 100,000), and waits are searched on the reactor, so a caller's regex is
//! refused past [`MAX_POSITIONS`]. A class counts one here however large it compiles (`\w`,
//! about 50 KB): the compiled size is bounded apart (`wait::caller_regex`).

use regex_syntax::hir::{Hir, HirKind};

/// The most positions ([`positions`]) a caller's regular expression may have: a wait's or a
/// search's regex with more is refused. What it takes is not cheap at its worst: a literal
/// of 1,000 characters searches a line of 256 KiB (the longest a transcript line is by
/// default) of its character in 9 ms, but a pattern whose lazy DFA gives up tracks each
/// position at every byte: over 256 KiB of random `a`s and `b`s, one search took 1.9 s for
/// `[ab]*a[ab]{990}c`, 1.6 to 2.35 s for `a[ab]{900}c`, 0.6 to 0.7 s for `a.{300}c` (release
/// build), with the `regex` crate's search; a wait's is bounded apart ([`super::search`]).
pub(crate) const MAX_POSITIONS: usize = 1_000;

/// The positions of a pattern's syntax tree `hir` (see the module's documentation): a
/// character or a class is one, a repetition its part times its most (its least and one more,
/// unbounded), an alternation or a sequence the sum of its parts'. Saturating.
pub(super) fn positions(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(literal) => {
            std::str::from_utf8(&literal.0).map_or(literal.0.len(), |text| text.chars().count())
        }
        HirKind::Class(_) => 1,
        HirKind::Repetition(repetition) => {
            let times = repetition.max.unwrap_or(repetition.min.saturating_add(1));
            positions(&repetition.sub).saturating_mul(times as usize)
        }
        HirKind::Capture(capture) => positions(&capture.sub),
        HirKind::Concat(all) | HirKind::Alternation(all) => {
            all.iter().map(positions).fold(0, usize::saturating_add)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::positions;

    #[test]
    fn counted_repetitions_are_expanded_and_classes_count_one() {
        let of = |pattern| regex_syntax::Parser::new().parse(pattern).ok().map(|h| positions(&h));
        assert_eq!(of("abc"), Some(3));
        assert_eq!(of("é€"), Some(2));
        assert_eq!(of(r"\w{25}"), Some(25));
        assert_eq!(of("a{100}{100}"), Some(10_000));
        assert_eq!(of("a+b*"), Some(3));
        assert_eq!(of("(foo|barbaz)$"), Some(9));
        assert_eq!(of(r"^\d{4}-\d{2}-\d{2}"), Some(10));
        assert_eq!(of("("), None);
    }
}
