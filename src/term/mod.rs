//! The terminal model of one session, platform-neutral: the scanner and the rules that run
//! ahead of alacritty's parser, the emulator around alacritty's `Term`, the settled
//! transcript, the screen and its styles, and what shell-integration marks reveal.

pub(crate) mod echo_layout;
pub(crate) mod emulator;
pub(crate) mod grid_repair;
pub(crate) mod line_store;
pub(crate) mod queries;
pub(crate) mod region;
pub(crate) mod rewrite;
pub(crate) mod row_text;
pub(crate) mod scan;
pub(crate) mod screen;
pub(crate) mod shell;
pub(crate) mod suggestion;
pub(crate) mod terminal;
pub(crate) mod transcript;

pub(crate) use terminal::Terminal;
