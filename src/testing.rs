//! A testing kit for TUI authors: deterministic sessions, waits that fail readably, and a
//! screen format for `insta` snapshots.
