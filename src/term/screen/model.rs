//! The screen as a model reads it (the MCP tools' `screen` block and JSON): a one-line header
//! with the screen, size, cursor and title, the text the byte budget left, and a note of what
//! was left out.

use serde_json::{Value, json};

use super::Screen;

/// The screen with its `title` and `text` as the budget left them (`omitted` bytes of the
/// text cut from its end): JSON, and the text block for a model.
pub(crate) fn model_view(
    screen: &Screen,
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
        "omitted_bytes": omitted,
    });
    let mut block = format!(
        "--- screen ({}, {}x{}, cursor at row {} col {}{}) ---\n",
        if screen.alternate { "alternate" } else { "primary" },
        screen.cols,
        screen.rows,
        screen.cursor.row,
        screen.cursor.col,
        if title.is_empty() { String::new() } else { format!(", title \"{title}\"") },
    );
    block.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        block.push('\n');
    }
    if omitted > 0 {
        block.push_str(&format!(
            "[... {omitted} more bytes of the screen left out; call terminal_read with view=\"screen\" and a larger max_bytes]\n"
        ));
    }
    block.push_str("--- end of screen ---");
    (json, block)
}
