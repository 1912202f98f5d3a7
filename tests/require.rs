//! The rule for tests that drive a program which may not be installed (`common::require`):
//! outside CI they skip, saying so; in CI they fail. `tests/without_programs.sh` checks the
//! whole suite against it, with a `PATH` that hides programs.

mod common;

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::panic::catch_unwind;
use std::path::{Path, PathBuf};

use common::{installed, require, require_in};

/// A folder holding an executable `tool`, a non-executable `notes` and a folder `sub`.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("termloom-require-{}-{name}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("tool"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(dir.join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(dir.join("notes"), "text\n").unwrap();
    std::fs::set_permissions(dir.join("notes"), std::fs::Permissions::from_mode(0o644)).unwrap();
    dir
}

/// A `PATH` of a folder that does not exist, then `dir`.
fn path_with(dir: &Path) -> OsString {
    std::env::join_paths([Path::new("/no/such/folder"), dir]).unwrap()
}

const MISSING: &str = "termloom-no-such-program-7f3a";

fn skipped(program: &str) -> Result<(), String> {
    Err(format!("skipped: some_test needs {program}, which is not installed"))
}

#[test]
fn a_missing_program_skips_the_test_outside_ci() {
    let dir = folder("skip");
    let path = path_with(&dir);
    assert_eq!(require_in(MISSING, false, Some(&path), "some_test"), skipped(MISSING));
    assert_eq!(require_in(MISSING, false, None, "some_test"), skipped(MISSING));
    // Only executable files count.
    assert_eq!(require_in("notes", false, Some(&path), "some_test"), skipped("notes"));
    assert_eq!(require_in("sub", false, Some(&path), "some_test"), skipped("sub"));
    assert_eq!(require_in("", false, Some(&path), "some_test"), skipped(""));
    let notes = dir.join("notes").display().to_string();
    assert_eq!(require_in(&notes, false, Some(&path), "some_test"), skipped(&notes));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_program_fails_the_test_in_ci() {
    let dir = folder("ci");
    let path = path_with(&dir);
    let panic = catch_unwind(|| require_in(MISSING, true, Some(&path), "some_test"))
        .expect_err("a missing program fails in CI");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(
        message,
        format!("some_test needs {MISSING}, which is not installed: CI must install it (.ci/run)")
    );
    let notes = dir.join("notes").display().to_string();
    assert!(catch_unwind(|| require_in(&notes, true, Some(&path), "some_test")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_installed_program_runs_the_test_with_or_without_ci() {
    let dir = folder("found");
    let path = path_with(&dir);
    for ci in [false, true] {
        assert_eq!(require_in("tool", ci, Some(&path), "some_test"), Ok(()));
        // A name with a slash is the program's path; PATH does not matter.
        let tool = dir.join("tool").display().to_string();
        assert_eq!(require_in(&tool, ci, Some(OsStr::new("")), "some_test"), Ok(()));
    }
    assert!(!installed("tool", Some(OsStr::new("/no/such/folder"))));
    // Without PATH, the folders execvp searches.
    assert!(installed("sh", None));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn require_reads_this_process_path_and_ci() {
    // `sh` is on every machine the tests run on.
    assert!(require("sh"));
    let ci = std::env::var_os("CI").is_some();
    match catch_unwind(|| require(MISSING)) {
        Ok(run) => assert!(!ci && !run, "CI set: {ci}"),
        Err(_) => assert!(ci, "it fails only in CI"),
    }
}
