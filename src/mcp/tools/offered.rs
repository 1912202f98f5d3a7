//! Which tools a caller offers its model, and the one place that decides whether a result's
//! advice may name a tool: a [`Toolbox`](super::toolbox::Toolbox) host that offers some of
//! them ([`Toolbox::only`](super::toolbox::Toolbox::only)) gets results whose advice names
//! only those, phrased without the others or left out (advice to call a tool the model does
//! not have costs it a failed call).

use std::cell::Cell;

use super::catalog::TOOLS;

thread_local! {
    /// The tools the call running on this thread offers ([`offering`]).
    static CURRENT: Cell<Offered> = const { Cell::new(Offered::ALL) };
}

/// Whether advice in a result may name tool `name`: whether the call running on this thread
/// (a tool runs on its caller's thread, [`super::run`]) offers it. The one function that
/// decides; a name that is no tool's is a bug in the advice (and is not offered).
pub(crate) fn has(name: &str) -> bool {
    CURRENT.with(|current| current.get().has(name))
}

/// Makes `offered` the tools advice on this thread may name until the guard is dropped (the
/// previous set then again, on an unwind too).
pub(crate) fn offering(offered: Offered) -> Offering {
    Offering(CURRENT.with(|current| current.replace(offered)))
}

/// What [`offering`] returns: restores the tools offered before when dropped.
pub(crate) struct Offering(Offered);

impl Drop for Offering {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.0));
    }
}

/// The tools a caller offers: all of them (the MCP server, a toolbox by default), or a
/// toolbox's subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offered(u32);

impl Offered {
    /// Every tool.
    pub(crate) const ALL: Offered = Offered(u32::MAX);

    /// The tools named `names` (names that are no tool's are left out).
    pub(crate) fn of(names: &[&str]) -> Offered {
        let bits = names.iter().filter_map(|name| index(name)).fold(0, |bits, i| bits | 1 << i);
        Offered(bits)
    }

    /// Whether this set holds tool `name` (see [`has`]).
    pub(crate) fn has(self, name: &str) -> bool {
        debug_assert!(index(name).is_some(), "advice names no tool: {name}");
        index(name).is_some_and(|i| self.0 & 1 << i != 0)
    }
}

impl Default for Offered {
    fn default() -> Self {
        Offered::ALL
    }
}

/// Tool `name`'s place in the catalog.
fn index(name: &str) -> Option<usize> {
    TOOLS.iter().position(|tool| tool.name == name)
}

/// The tools `text` names (a tool's name not followed by a letter, digit or `_`).
#[cfg(test)]
pub(crate) fn named(text: &str) -> Vec<&'static str> {
    let whole = |at: usize, name: &str| {
        !text[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    };
    let tools = TOOLS.iter().map(|tool| tool.name);
    tools.filter(|name| text.match_indices(name).any(|(at, _)| whole(at, name))).collect()
}

/// Every subset of the tools that holds `tool` (the one called), as names.
#[cfg(test)]
pub(crate) fn subsets_with(tool: &str) -> Vec<Vec<&'static str>> {
    let names: Vec<&'static str> = TOOLS.iter().map(|tool| tool.name).collect();
    let subset = |bits: u32| -> Vec<&'static str> {
        let chosen = names.iter().enumerate().filter(|(i, _)| bits & 1 << i != 0);
        chosen.map(|(_, name)| *name).collect()
    };
    (0..1u32 << names.len()).map(subset).filter(|subset| subset.contains(&tool)).collect()
}

/// Panics unless each of `texts`, made under `subset`, names only tools in it.
#[cfg(test)]
pub(crate) fn assert_names_only(subset: &[&str], texts: &[String]) {
    for text in texts {
        let outside: Vec<_> = named(text).into_iter().filter(|t| !subset.contains(t)).collect();
        assert!(outside.is_empty(), "{subset:?} offered, {outside:?} advised: {text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_offers_its_tools_alone() {
        assert!(TOOLS.len() <= 32);
        let some = Offered::of(&["terminal_run", "terminal_list"]);
        assert!(some.has("terminal_run") && some.has("terminal_list"));
        assert!(!some.has("terminal_read") && !some.has("terminal_send"));
        assert!(TOOLS.iter().all(|tool| Offered::ALL.has(tool.name)));
        assert!(has("terminal_read"));
        {
            let _only = offering(some);
            assert!(has("terminal_run") && !has("terminal_read"));
        }
        assert!(has("terminal_read"));
        assert_eq!(named("use terminal_read, not terminal_reads"), ["terminal_read"]);
        assert_eq!(subsets_with("terminal_run").len(), 1 << (TOOLS.len() - 1));
    }
}
