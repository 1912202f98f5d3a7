//! A small ratatui program, tested with `termloom::testing` in `tests/ratatui_example.rs`: a
//! list moved with the arrow keys (the selection shown only by colour), a popup on Enter, a
//! coloured status bar that shows the terminal's size, and `q` to quit, restoring the
//! terminal.
//!
//! ```text
//! cargo run --example ratatui_list
//! ```

use std::io;

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Clear, List, ListState, Paragraph};
use ratatui::{DefaultTerminal, Frame};

const FRUITS: [&str; 6] = ["apples", "bananas", "cherries", "dates", "elderberries", "figs"];

pub(crate) struct App {
    list: ListState,
    /// The fruit shown in the popup, while it is open.
    popup: Option<&'static str>,
}

impl App {
    pub(crate) fn new() -> App {
        App { list: ListState::default().with_selected(Some(0)), popup: None }
    }

    /// Acts on a key; true when the program should quit.
    pub(crate) fn handle(&mut self, code: KeyCode) -> bool {
        match (self.popup, code) {
            (Some(_), KeyCode::Enter | KeyCode::Esc) => self.popup = None,
            (Some(_), _) => {}
            (None, KeyCode::Char('q')) => return true,
            (None, KeyCode::Down) => self.list.select_next(),
            (None, KeyCode::Up) => self.list.select_previous(),
            (None, KeyCode::Enter) => {
                self.popup = self.list.selected().map(|i| FRUITS[i.min(FRUITS.len() - 1)]);
            }
            _ => {}
        }
        false
    }
}

fn main() -> io::Result<()> {
    let mut terminal = ratatui::init();
    let result = run(&mut terminal);
    ratatui::restore();
    result
}

fn run(terminal: &mut DefaultTerminal) -> io::Result<()> {
    let mut app = App::new();
    loop {
        terminal.draw(|frame| draw(frame, &mut app))?;
        let Event::Key(key) = event::read()? else { continue };
        if key.kind == KeyEventKind::Press && app.handle(key.code) {
            return Ok(());
        }
    }
}

pub(crate) fn draw(frame: &mut Frame, app: &mut App) {
    let [main, status] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(frame.area());
    let list = List::new(FRUITS)
        .block(Block::bordered().title(" Fruit "))
        .highlight_style(Style::new().add_modifier(Modifier::REVERSED));
    frame.render_stateful_widget(list, main, &mut app.list);
    let size = frame.area();
    let help = format!(" ↑↓ move · Enter open · q quit · {}x{}", size.width, size.height);
    frame.render_widget(
        Paragraph::new(help).style(Style::new().fg(Color::White).bg(Color::Blue)),
        status,
    );
    if let Some(fruit) = app.popup {
        let area = centered(main, 30, 3);
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(format!("You picked {fruit}.")).block(Block::bordered().title(" Pick ")),
            area,
        );
    }
}

/// A `width` x `height` rectangle in the middle of `area` (clipped to it).
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}
