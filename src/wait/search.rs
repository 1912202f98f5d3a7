//! A caller's regular expression as waits search it: with work bounded per search. The
//! `regex` crate's lazy DFA gives up on a pattern whose states it cannot keep
//! (`[ab]*a[ab]{990}c` over random `a`s and `b`s) and falls back to tracking every position
//! at each byte: 1.5 to 2.3 s for one search of a line of 256 KiB (release build), on the
//! reactor, every session stalled, at each check of the wait. Here the lazy DFA has a cache
//! of its own ([`LAZY_CACHE`]) and gives up early (40 to 80 ms for that line). A pattern
//! whose matches are at most so long (`error.{0,100}refused`: 412 bytes) is then searched
//! again in windows of twice that length, the lazy DFA's bound its own in each, while the
//! work of one check of the line or row lasts ([`WORK`], counted, not timed: a result never
//! depends on the machine's load); any other is searched tracking every position at each
//! byte only while the positions times the bytes left fit [`FALLBACK_WORK`], and the search
//! says it could not decide ([`Undecided`]) past either, never that nothing matched. A
//! pattern with a Unicode word boundary (`\b`, `\B`) over a line holding a non-ASCII byte,
//! where the lazy DFA stops, is searched by the `regex` crate, whose search there tracks
//! every position at each byte too: only while the positions times the bytes left fit what
//! is left of [`WORK`] (a pattern of 10 positions over 1.2 MiB, one of 1,000 over 12 KiB).

use std::sync::{Arc, Mutex};

use regex::Regex;
use regex_automata::{
    Input, MatchErrorKind, MatchKind, Span,
    hybrid::{self, dfa},
    nfa::thompson::{
        self,
        pikevm::{Cache as PikeCache, PikeVM},
    },
    util::prefilter::Prefilter,
};

/// The most work a search falls back to when its lazy DFA gives up, in positions
/// ([`super::positions`]) times bytes searched: about 7 to 9 ns each in a release build
/// (a pattern whose every position stays alive), so about 30 to 40 ms per line or screen row
/// searched. A pattern of 1,000 positions is searched this way over 4 KiB, one of 10 over
/// 400 KiB.
pub(crate) const FALLBACK_WORK: usize = 4 << 20;

/// The work the searches of one check of one line or screen row may spend once their lazy
/// DFA gave up ([`Work`], shared by the searches of the line), in units of about the cost of
/// one position ([`super::positions`]) tracked over one byte: a give-up of the lazy DFA
/// counts the bytes of the states it built (its cache's growth, a clear counted as a whole
/// cache: building a state costs about its size), each window of a search in windows
/// ([`CallerRegex::find_at`]) its bytes and the bytes of the states its lazy DFA built, and
/// its bytes times the positions again when that gives up and the window is searched
/// tracking every position, and a Unicode word boundary's search by the `regex` crate the
/// bytes left times the positions. A count, not a time: the same pattern over the same line
/// decides alike on a quiet machine and a loaded one (the wall-clock bound this replaced,
/// 400 ms, did not). `error.{0,100}refused` over 64 KiB of log words spends 7.3 Mi and
/// decides; over 1 MiB it is undecided. A hostile pattern stops at 12 Mi: `a[ab]{990}c`
/// over 256 KiB of random `a`s and `b`s after 235 to 274 ms at load 10 (release build;
/// BENCHMARKS.md §21).
pub(crate) const WORK: usize = 12 << 20;

#[cfg(test)]
thread_local! {
    /// The work spent on this thread ([`Work`]), for measurements.
    pub(crate) static SPENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What the searches of one check of one line or screen row may still spend once their lazy
/// DFA gave up ([`WORK`]): [`Work::new`] for each line or row, shared by its searches.
#[derive(Debug)]
pub(crate) struct Work {
    left: usize,
}

impl Work {
    /// The whole of [`WORK`].
    pub(crate) fn new() -> Work {
        Work { left: WORK }
    }

    /// Counts `units` spent (at most what is left).
    fn spend(&mut self, units: usize) {
        #[cfg(test)]
        SPENT.with(|spent| spent.set(spent.get() + units.min(self.left)));
        self.left = self.left.saturating_sub(units);
    }

    /// Whether `units` more fit.
    fn fits(&self, units: usize) -> bool {
        units <= self.left
    }
}

/// The lazy DFA's cache, in bytes (more when the pattern's states need it): a pattern whose
/// states fill it without a search going on at least [`BYTES_PER_STATE`] bytes per state
/// after it was cleared once gives up. A smaller cache gives up sooner on a hostile pattern
/// (256 KiB: 1 to 3 ms over random `a`s and `b`s for `[ab]*a[ab]{990}c`, release build) but
/// also on one that settles into few states after a start (`a{1000}` over a line of `a`s:
/// its first thousand states grow by a position each); 1 MiB takes that one (3 to 10 ms over
/// 256 KiB) and gives up on the hostile one after about 4,000 bytes (20 to 55 ms).
const LAZY_CACHE: usize = 1 << 20;

/// See [`LAZY_CACHE`].
const BYTES_PER_STATE: usize = 10;

/// A search could not tell whether or where the pattern matches within its bound of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Undecided {
    /// The bytes it had left to search.
    pub bytes: usize,
}

/// A caller's regular expression, with its lazy DFA and fallback and their caches.
#[derive(Clone)]
pub(crate) struct CallerRegex(Arc<Inner>);

struct Inner {
    pattern: String,
    positions: usize,
    /// The longest match's length in bytes, when there is one (no unbounded repetition).
    longest: Option<usize>,
    /// Literals one of which ends every match (` passed` for `\d+ passed`), for a pattern
    /// whose matches start with none: a line holding none of them is not searched.
    required: Option<Prefilter>,
    lazy: hybrid::regex::Regex,
    fallback: PikeVM,
    /// The `regex` crate's search of the pattern, kept only for a pattern with a Unicode word
    /// boundary, which the lazy DFA does not search past a non-ASCII byte.
    unicode_words: Option<Regex>,
    caches: Mutex<(hybrid::regex::Cache, Option<PikeCache>)>,
}

impl std::fmt::Debug for CallerRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallerRegex({:?})", self.0.pattern)
    }
}

impl CallerRegex {
    /// `re` (its syntax tree `hir`, parsed as the `regex` crate parsed it, and of `positions`
    /// positions) for waits, or why its automata do not build (they should: `re` compiled
    /// within the same limits), the pattern named.
    pub(crate) fn new(
        re: Regex,
        hir: &regex_syntax::hir::Hir,
        positions: usize,
        size: usize,
    ) -> Result<CallerRegex, String> {
        let pattern = re.as_str();
        let refused = |why: String| {
            format!(
                "regular expression {} cannot be searched by a wait: {why}",
                crate::error::quoted(pattern)
            )
        };
        let nfa = |reverse: bool| {
            thompson::Compiler::new()
                .configure(
                    thompson::Config::new()
                        .nfa_size_limit(Some(size))
                        .reverse(reverse)
                        // Matches' bounds alone: no group is asked for.
                        .which_captures(match reverse {
                            true => thompson::WhichCaptures::None,
                            false => thompson::WhichCaptures::Implicit,
                        }),
                )
                .build_from_hir(hir)
                .map_err(|e| refused(e.to_string()))
        };
        // One forward automaton for the lazy DFA and the fallback: each is compiled on the
        // caller's thread, and a Unicode class repeated takes tens of milliseconds.
        let forward = nfa(false)?;
        // Skips to where a match can start (its first literals), as the `regex` crate does;
        // with none, a line without any of its last literals is not searched.
        let prefilter = Prefilter::from_hir_prefix(MatchKind::LeftmostFirst, hir);
        let required = prefilter.is_none().then(|| required_suffix(hir)).flatten();
        let config = dfa::Config::new()
            .cache_capacity(LAZY_CACHE)
            // The least the pattern's states need, when more than that.
            .skip_cache_capacity_check(true)
            .minimum_cache_clear_count(Some(1))
            .minimum_bytes_per_state(Some(BYTES_PER_STATE))
            // `\b` over ASCII; the search stops at a non-ASCII byte (see `unicode_words`).
            .unicode_word_boundary(true)
            .prefilter(prefilter.clone());
        // The reverse DFA finds a match's start: as `hybrid::regex::Builder` builds it.
        let reverse = config
            .clone()
            .prefilter(None)
            .specialize_start_states(false)
            .match_kind(MatchKind::All);
        let lazy_of = |config: dfa::Config, nfa| {
            dfa::Builder::new()
                .configure(config)
                .build_from_nfa(nfa)
                .map_err(|e| refused(e.to_string()))
        };
        let lazy = hybrid::regex::Builder::new()
            .build_from_dfas(lazy_of(config, forward.clone())?, lazy_of(reverse, nfa(true)?)?);
        let fallback = PikeVM::builder()
            .configure(PikeVM::config().prefilter(prefilter))
            .build_from_nfa(forward)
            .map_err(|e| refused(e.to_string()))?;
        // The fallback's cache (as large as its automaton) is made when it is first needed.
        let caches = Mutex::new((lazy.create_cache(), None));
        let properties = hir.properties();
        let longest = properties.maximum_len();
        let unicode_words = properties.look_set().contains_word_unicode().then_some(re.clone());
        let pattern = pattern.to_owned();
        let inner =
            Inner { pattern, positions, longest, required, lazy, fallback, unicode_words, caches };
        Ok(CallerRegex(Arc::new(inner)))
    }

    /// The pattern.
    pub(crate) fn as_str(&self) -> &str {
        &self.0.pattern
    }

    /// Its positions ([`super::positions`]).
    pub(crate) fn positions(&self) -> usize {
        self.0.positions
    }

    /// The leftmost-first match of the pattern in `hay` starting at `from` or later (`^` and
    /// `\b` see the text before `from`), as `Regex::find_at` finds it: its start and end. Its
    /// lazy DFA's search; when that gives up, the same in windows for a pattern whose matches
    /// are at most so long, while `work` lasts ([`WORK`]); else one tracking every position at
    /// each byte when the positions times the bytes from `from` fit [`FALLBACK_WORK`]. Once
    /// `work` is spent (by this search or another of the same line), it says it could not
    /// decide without searching.
    pub(crate) fn find_at(
        &self,
        hay: &str,
        from: usize,
        work: &mut Work,
    ) -> Result<Option<(usize, usize)>, Undecided> {
        if let Some(required) = &self.0.required
            && required.find(hay.as_bytes(), Span::from(from..hay.len())).is_none()
        {
            return Ok(None);
        }
        let undecided = Err(Undecided { bytes: hay.len() - from });
        if !work.fits(1) {
            return undecided;
        }
        let mut guard = self.0.caches.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (lazy, fallback) = &mut *guard;
        match self.lazy_search(lazy, hay, from..hay.len()) {
            (Ok(found), _) => return Ok(found),
            // A Unicode word boundary next to a non-ASCII byte: the `regex` crate's search.
            (Err(Stopped::Quit), _) => return self.unicode_words_find_at(hay, from, work),
            (Err(Stopped::GaveUp), built) => work.spend(built),
        }
        match self.0.longest {
            Some(longest) => self.find_in_windows(lazy, fallback, hay, from, longest, work),
            None => self.fall_back(fallback, hay, from..hay.len()),
        }
    }

    /// The first match in `hay`, as [`CallerRegex::find_at`] from its start, with the whole
    /// of [`WORK`] (a screen row's searches).
    pub(crate) fn find(&self, hay: &str) -> Result<Option<(usize, usize)>, Undecided> {
        self.find_at(hay, 0, &mut Work::new())
    }

    /// `bytes` times the pattern's positions.
    fn times_positions(&self, bytes: usize) -> usize {
        bytes.saturating_mul(self.0.positions.max(1))
    }

    /// The lazy DFA's search of `span` of `hay` (the text around it seen by `^`, `$`, `\b`).
    fn lazy_search(
        &self,
        lazy: &mut hybrid::regex::Cache,
        hay: &str,
        span: std::ops::Range<usize>,
    ) -> (Result<Option<(usize, usize)>, Stopped>, usize) {
        // The clears a search counts to give up are the cache's since it was made: each
        // search starts with none, so that its bound is its own.
        let (forward, reverse) = lazy.as_parts();
        if forward.clear_count() > 0 || reverse.clear_count() > 0 {
            lazy.reset(&self.0.lazy);
        }
        let before = lazy.memory_usage();
        let found = match self.0.lazy.try_search(lazy, &Input::new(hay).span(span)) {
            Ok(found) => Ok(found.map(|m| (m.start(), m.end()))),
            Err(e) if matches!(e.kind(), MatchErrorKind::Quit { .. }) => Err(Stopped::Quit),
            Err(_) => Err(Stopped::GaveUp),
        };
        // The bytes of the states it built: what its cache grew by, a clear counted as a
        // cache full.
        let (forward, reverse) = lazy.as_parts();
        let clears = forward.clear_count() + reverse.clear_count();
        let after = lazy.memory_usage();
        let built = match clears {
            0 => after.saturating_sub(before),
            _ => clears.saturating_mul(LAZY_CACHE).saturating_add(after),
        };
        (found, built)
    }

    /// The `regex` crate's search from `from`: only a pattern with a Unicode word boundary
    /// stops its lazy DFA (its only cause to quit), and such a pattern keeps that search.
    /// Next to a non-ASCII byte the crate's own lazy DFA stops too, and it tracks every
    /// position at each byte: it searches only while the positions times the bytes from
    /// `from` fit what is left of `work`, and spends that.
    fn unicode_words_find_at(
        &self,
        hay: &str,
        from: usize,
        work: &mut Work,
    ) -> Result<Option<(usize, usize)>, Undecided> {
        let Some(re) = self.0.unicode_words.as_ref() else { return Ok(None) };
        let units = self.times_positions(hay.len() - from);
        if !work.fits(units) {
            return Err(Undecided { bytes: hay.len() - from });
        }
        work.spend(units);
        Ok(re.find_at(hay, from).map(|m| (m.start(), m.end())))
    }

    /// The search tracking every position at each byte of `span`, when the positions times
    /// its bytes fit [`FALLBACK_WORK`].
    fn fall_back(
        &self,
        fallback: &mut Option<PikeCache>,
        hay: &str,
        span: std::ops::Range<usize>,
    ) -> Result<Option<(usize, usize)>, Undecided> {
        let bytes = span.len();
        if bytes.saturating_mul(self.0.positions.max(1)) > FALLBACK_WORK {
            return Err(Undecided { bytes: hay.len() - span.start });
        }
        let input = Input::new(hay).span(span);
        let fallback = fallback.get_or_insert_with(|| self.0.fallback.create_cache());
        Ok(self.0.fallback.find(fallback, input).map(|m| (m.start(), m.end())))
    }

    /// The leftmost-first match from `from` of a pattern whose matches are at most `longest`
    /// bytes long, searched in windows of about twice that: a match starting in a window's
    /// first half ends within it, so the first one found there is the one a search of the
    /// whole text finds; none there, the next window starts past that half. Each window is a
    /// search of its own, with the lazy DFA's bound its own; each spends `work` ([`WORK`]),
    /// and once it is spent, or a window's search tracking every position would not fit what
    /// is left, the search says it could not decide.
    fn find_in_windows(
        &self,
        lazy: &mut hybrid::regex::Cache,
        fallback: &mut Option<PikeCache>,
        hay: &str,
        from: usize,
        longest: usize,
        work: &mut Work,
    ) -> Result<Option<(usize, usize)>, Undecided> {
        let half = longest.saturating_add(1);
        let mut start = from;
        loop {
            let undecided = Err(Undecided { bytes: hay.len() - start });
            if !work.fits(1) {
                return undecided;
            }
            let end = start.saturating_add(half).saturating_add(longest).min(hay.len());
            let bytes = end - start;
            // Its lazy DFA's search (its bytes and the states it built), then perhaps one
            // tracking every position (its bytes times the positions).
            let (found, built) = self.lazy_search(lazy, hay, start..end);
            work.spend(built.saturating_add(bytes));
            let found = match found {
                Ok(found) => found,
                Err(Stopped::Quit) => return self.unicode_words_find_at(hay, start, work),
                Err(Stopped::GaveUp) if !work.fits(self.times_positions(bytes)) => {
                    return undecided;
                }
                Err(Stopped::GaveUp) => {
                    work.spend(self.times_positions(bytes));
                    self.fall_back(fallback, hay, start..end)?
                }
            };
            match found {
                Some((at, _)) if at < start + half || end == hay.len() => return Ok(found),
                _ if end == hay.len() => return Ok(None),
                _ => start += half,
            }
        }
    }
}

/// A search for the literals one of which ends every match of `hir`, when it has such (none
/// empty, and not too many to extract).
fn required_suffix(hir: &regex_syntax::hir::Hir) -> Option<Prefilter> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let suffixes = Extractor::new().kind(ExtractKind::Suffix).extract(hir);
    let literals = suffixes.literals()?;
    if literals.is_empty() || literals.iter().any(|literal| literal.is_empty()) {
        return None;
    }
    Prefilter::new(MatchKind::LeftmostFirst, literals)
}

/// Why the lazy DFA stopped short of an answer.
enum Stopped {
    /// Its cache was cleared too often for the bytes it went on: too many states to keep.
    GaveUp,
    /// A Unicode word boundary next to a non-ASCII byte, which it does not search.
    Quit,
}
