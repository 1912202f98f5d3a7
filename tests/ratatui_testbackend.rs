//! The same tests as `tests/ratatui_example.rs`, written with ratatui's `TestBackend`, for
//! comparison (BENCHMARKS.md §13): the program's code is included as a module and driven
//! without a terminal. What `TestBackend` cannot check is left out: the terminal restored at
//! exit, and the program's own reading of keys.

#[path = "../examples/ratatui_list.rs"]
#[allow(dead_code)]
mod app;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Modifier;

fn draw(app: &mut app::App, cols: u16, rows: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(cols, rows)).unwrap();
    terminal.draw(|frame| app::draw(frame, app)).unwrap();
    terminal
}

fn highlighted(terminal: &Terminal<TestBackend>, row: u16) -> bool {
    terminal.backend().buffer()[(1, row)].modifier.contains(Modifier::REVERSED)
}

#[test]
fn the_list_opens_with_the_first_fruit_selected() {
    let terminal = draw(&mut app::App::new(), 60, 12);
    assert!(highlighted(&terminal, 1) && !highlighted(&terminal, 2));
}

#[test]
fn arrows_move_the_selection() {
    let mut app = app::App::new();
    for code in [KeyCode::Down, KeyCode::Down, KeyCode::Up] {
        app.handle(code);
    }
    assert!(highlighted(&draw(&mut app, 60, 12), 2));
}

#[test]
fn enter_opens_a_popup_and_closes_it() {
    let mut app = app::App::new();
    app.handle(KeyCode::Down);
    app.handle(KeyCode::Enter);
    let shown = format!("{:?}", draw(&mut app, 60, 12).backend().buffer());
    assert!(shown.contains("You picked bananas."), "{shown}");
    app.handle(KeyCode::Esc);
    assert!(!format!("{:?}", draw(&mut app, 60, 12).backend().buffer()).contains("You picked"));
}

#[test]
fn a_resize_redraws_the_status_bar() {
    let shown = format!("{:?}", draw(&mut app::App::new(), 50, 10).backend().buffer());
    assert!(shown.contains("50x10"), "{shown}");
}

#[test]
fn q_quits() {
    assert!(app::App::new().handle(KeyCode::Char('q')));
}
