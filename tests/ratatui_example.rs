//! `examples/ratatui_list.rs` tested as a TUI author would with `termloom::testing`: the
//! program runs in a real terminal, each step waits until it has answered, and the screens are
//! snapshotted (`snapshots/ratatui_example__*.snap`).
#![cfg(feature = "testing")]

use std::path::PathBuf;

use termloom::assert_screen_snapshot;
use termloom::testing::TestSession;

/// The example's binary, which `cargo test` builds beside the tests (built here if a filtered
/// run did not).
fn example() -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let binary = test.parent().unwrap().parent().unwrap().join("examples/ratatui_list");
    if !binary.exists() {
        let built = std::process::Command::new(env!("CARGO"))
            .args(["build", "--example", "ratatui_list", "--manifest-path"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .status()
            .unwrap();
        assert!(built.success(), "cannot build the example");
    }
    binary
}

#[track_caller]
fn app() -> TestSession {
    let app = TestSession::builder(example()).size(60, 12).start();
    app.wait_for_highlight("apples").wait_for_input();
    app
}

#[test]
fn the_list_opens_with_the_first_fruit_selected() {
    let app = app();
    assert_screen_snapshot!("list", app.with_styles());
}

#[test]
fn arrows_move_the_selection() {
    let app = app();
    app.press("<Down><Down>").wait_for_highlight("cherries");
    app.press("<Up>").wait_for_highlight("bananas");
    assert!(app.styled_screen().find_highlighted("cherries").is_none());
}

#[test]
fn enter_opens_a_popup_and_closes_it() {
    let app = app();
    app.press("<Down><Enter>");
    assert_screen_snapshot!("popup", app, after = "You picked bananas.");
    app.press("<Esc>");
    assert!(!app.screen().contains("You picked"));
}

/// An Escape then a key in one press reach the program one after the other, as a person types
/// them: crossterm reads them as Alt-q when they come in one read (the popup would stay open).
#[test]
fn escape_then_a_key_in_one_press_are_two_keys() {
    let app = app();
    app.press("<Enter>").wait_for_screen_text("You picked apples.");
    app.press("<Esc>q");
    app.wait_for_success();
}

#[test]
fn a_resize_redraws_the_status_bar() {
    let app = app();
    app.resize_and_wait(50, 10).wait_for_screen_text("50x10");
    assert_screen_snapshot!("resized", app);
}

#[test]
fn q_quits_and_restores_the_terminal() {
    let app = app();
    app.send_keys("q");
    assert!(app.wait_for_exit().success());
    app.assert_terminal_restored();
}
