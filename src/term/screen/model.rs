//! The screen as a model reads it (the MCP tools' `screen` block and JSON): a one-line header
//! with the size, a hidden cursor and the title, the text the byte budget left (the whole screen or
//! the rows that changed, numbered), and a note of what was left out.

use serde_json::{Value, json};

use super::Screen;

/// The glyph that marks the visible cursor in a screen's text (and its header).
pub(crate) const CURSOR_MARK: char = '▌';

/// The screen with its `title` and `text` as the budget left them (`omitted` bytes of the
/// text cut from its end): JSON, and the text block for a model. `cursor_marked`: the text
/// marks the cursor (with [`CURSOR_MARK`]), so the header need not say where it is. `changed` is the number of
/// rows `text` holds when it holds only the rows changed since the caller last saw the screen
/// (`Some(0)`: nothing changed).
pub(crate) fn model_view(
    screen: &Screen,
    cursor_marked: bool,
    changed: Option<usize>,
    title: &str,
    text: &str,
    omitted: usize,
) -> (Value, String) {
    let json = json!({
        "cols": screen.cols,
        "rows": screen.rows,
        "alternate": screen.alternate,
        "cursor_row": screen.cursor.row,
        "cursor_col": screen.cursor.col,
        "cursor_visible": screen.cursor.visible,
        "title": title,
        "text": text,
        "changed_rows": changed,
        "omitted_bytes": omitted,
    });
    // A cursor marked in the text goes without saying.
    let cursor = match (screen.cursor.visible, cursor_marked) {
        (_, true) => String::new(),
        (true, false) => format!(", cursor row {} col {}", screen.cursor.row, screen.cursor.col),
        (false, _) => ", cursor hidden".to_owned(),
    };
    let about = format!(
        "{}x{}{cursor}{}",
        screen.cols,
        screen.rows,
        if title.is_empty() { String::new() } else { format!(", title \"{title}\"") },
    );
    let mut block = match changed {
        None => format!("--- screen {about} ---\n"),
        Some(0) => {
            return (json, format!("--- screen {about}: unchanged since your last look ---"));
        }
        Some(_) => format!("--- screen {about}: rows changed since your last look ---\n"),
    };
    block.push_str(text);
    if omitted > 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            block.push('\n');
        }
        block.push_str(&format!(
            "[... {omitted} more bytes of the screen left out; call terminal_read with view=\"screen\" and a larger max_bytes]"
        ));
    }
    (json, block)
}
