//! Real full-screen and interactive programs driven through the testing kit, their screens
//! snapshotted at meaningful moments (`snapshots/programs__*.snap`), with assertions beyond
//! the snapshots. These snapshots are the engine's regression net: a change that alters one
//! of them must be reviewed (`cargo insta review`).
//!
//! Needs the `testing` feature and the programs `.ci/run` installs: vim, less, htop, python3,
//! bash, gdb, gcc, whiptail and ptpython. A test whose program is missing is skipped, except
//! in CI (see `common::require`).
#![cfg(feature = "testing")]

mod common;

use common::require;
use termloom::assert_screen_snapshot;
use termloom::testing::{Redactions, TestSession};

/// vim with no vimrc, no viminfo and no swap file: only its built-in defaults.
fn vim(file: &str, contents: &str) -> TestSession {
    TestSession::builder("vim")
        .args(["-u", "NONE", "-N", "-i", "NONE", "-n", file])
        .file(file, contents)
        .start()
}

#[test]
fn vim_insert_visual_split_and_write() {
    if !require("vim") {
        return;
    }
    let vim = vim("notes.txt", "alpha\nbeta\ngamma\n");
    vim.wait_for_row(23, "\"notes.txt\" 3L, 17B").wait_stable();
    let screen = vim.screen();
    assert!(screen.alternate, "vim draws on the alternate screen");
    assert_eq!(screen.lines[..4], ["alpha", "beta", "gamma", "~"]);
    assert_screen_snapshot!("vim_opened", vim);

    // Insert a line at the end.
    vim.send_keys("Godelta");
    vim.wait_for_row(23, "-- INSERT --").wait_for_row(3, "delta").wait_for_cursor(3, 5);
    vim.wait_stable();
    assert_screen_snapshot!("vim_insert", vim);

    // Leave insert mode (the cursor steps back onto the last character), then select the
    // first two lines linewise.
    vim.send_keys("<Esc>").wait_for_cursor(3, 4);
    vim.send_keys("ggVj").wait_for_row(23, "-- VISUAL LINE --").wait_for_cursor(1, 0);
    vim.wait_stable();
    // The selection is drawn in a background colour: rows 0 and 1 (the cursor's cell aside).
    let selected: Vec<u16> = vim
        .styled_screen()
        .runs
        .iter()
        .filter(|run| run.bg != "default" && run.row < 23)
        .map(|run| run.row)
        .collect();
    assert_eq!(selected, [0, 1]);
    assert_screen_snapshot!("vim_visual_line", vim.with_styles());

    // Uppercase the selection.
    vim.send_keys("U").wait_for_row(1, "BETA").wait_stable();
    assert_eq!(vim.screen().lines[..4], ["ALPHA", "BETA", "gamma", "delta"]);

    // Split the window: two views of the buffer, each with a status line.
    vim.send_keys(":split<Enter>");
    vim.wait_for_row(11, "notes.txt [+]").wait_for_row(22, "notes.txt [+]").wait_stable();
    let screen = vim.screen();
    assert_eq!(screen.lines[12..16], ["ALPHA", "BETA", "gamma", "delta"]);
    assert_screen_snapshot!("vim_split", vim);

    // Close the split, then write and quit.
    vim.send_keys(":q<Enter>").wait_for_row(11, "~").wait_stable();
    vim.send_keys(":wq<Enter>");
    vim.wait_for_success();
    let written = std::fs::read_to_string(vim.home().join("notes.txt")).unwrap();
    assert_eq!(written, "ALPHA\nBETA\ngamma\ndelta\n");
    assert!(!vim.screen().alternate, "vim left the alternate screen");
}

#[test]
fn less_pages_and_searches_a_fixed_file() {
    if !require("less") {
        return;
    }
    let text: String = (1..=200)
        .map(|i| format!("line {i:03}: {}\n", if i % 37 == 0 { "needle" } else { "hay" }))
        .collect();
    let less = TestSession::builder("less").arg("haystack.txt").file("haystack.txt", text).start();
    less.wait_for_row(23, "haystack.txt").wait_for_input().wait_stable();
    let screen = less.screen();
    assert!(screen.alternate);
    assert_eq!((screen.lines[0].as_str(), screen.lines[22].as_str()), {
        ("line 001: hay", "line 023: hay")
    });
    assert_screen_snapshot!("less_first_page", less);

    // Space pages forward by one screen (23 lines).
    less.send_keys(" ").wait_for_row(0, "line 024: hay").wait_for_row(23, ":").wait_stable();
    assert_eq!(less.screen().lines[22], "line 046: hay");
    assert_screen_snapshot!("less_second_page", less);

    // Search: the first match goes to the top; `n` goes to the next one.
    less.send_keys("/needle<Enter>").wait_for_row(0, "line 037: needle").wait_stable();
    // The match is highlighted in reverse video.
    let inverse: Vec<(u16, u16, u16)> = less
        .styled_screen()
        .runs
        .iter()
        .filter(|run| run.attrs.contains(&"inverse"))
        .map(|run| (run.row, run.col, run.width))
        .collect();
    assert_eq!(inverse, [(0, 10, 6)], "\"needle\" on row 0");
    assert_screen_snapshot!("less_search", less.with_styles());
    less.send_keys("n").wait_for_row(0, "line 074: needle").wait_stable();

    // A search with no match says so and stays.
    less.send_keys("/nowhere<Enter>").wait_for_screen_text("Pattern not found").wait_stable();
    assert_eq!(less.screen().lines[0], "line 074: needle");
    assert_screen_snapshot!("less_pattern_not_found", less);

    // RETURN dismisses the message; G goes to the end.
    less.send_keys("<Enter>").wait_for_row(23, ":").wait_stable();
    assert_eq!(less.screen().lines[0], "line 074: needle");
    less.send_keys("G").wait_for_row(23, "(END)").wait_stable();
    assert_eq!(less.screen().lines[22], "line 200: hay");

    less.send_keys("q");
    less.wait_for_success();
    assert!(!less.screen().alternate, "less left the alternate screen");
}

/// htop's configuration: one average CPU meter (the number of CPUs does not change the
/// layout), text meters on the right, and columns whose widths do not depend on the user.
const HTOPRC: &str = "\
htop_version=3.2.2
config_reader_min_version=3
fields=0 46 47 49 1
hide_kernel_threads=1
hide_userland_threads=1
show_program_path=0
highlight_changes=0
header_margin=1
screen_tabs=1
color_scheme=0
enable_mouse=0
delay=15
hide_function_bar=0
header_layout=two_50_50
column_meters_0=CPU Memory Swap
column_meter_modes_0=1 1 1
column_meters_1=Tasks LoadAverage Uptime
column_meter_modes_1=2 2 2
tree_view=0
sort_key=46
sort_direction=-1
screen:Main=PID PERCENT_CPU PERCENT_MEM TIME Command
.sort_key=PERCENT_CPU
.tree_sort_key=PID
.tree_view=0
.sort_direction=-1
";

/// What changes in htop from one refresh to the next.
fn htop_redactions() -> Redactions {
    Redactions::new()
        .regex(r"(Avg|Mem|Swp)\[[^\]\n]*\]", "$1[meter]")
        .regex(r"Tasks: \d+", "Tasks: [N]")
        .regex(r"\d+ (thr|kthr|running)\b", "[N] $1")
        .regex(r"Load average:( \d+\.\d+)+", "Load average: [N] [N] [N]")
        .regex(r"Uptime: [^\n]*", "Uptime: [UPTIME]")
        // The PID column is as wide as the largest pid can be (`pid_max`, which a PID
        // namespace may set apart from the machine's).
        .regex(r" {2,}PID +CPU%", "  PID  CPU%")
        // The process row: its columns are right-aligned, so their widths vary with the pid
        // and the percentages; one space between redacted columns keeps it stable.
        .regex(r" *\[PID\] +[\d.]+ +[\d.]+ +\d+:\d\d\.\d\d ", " [PID] [CPU] [MEM] [TIME] ")
}

#[test]
fn htop_layout_sort_menu_and_quit() {
    if !require("htop") {
        return;
    }
    // htop shows only itself (`-p` with its own pid), so the process list is one known row.
    let htop = TestSession::builder("sh")
        .args(["-c", "exec htop -p $$"])
        .file(".config/htop/htoprc", HTOPRC)
        .redact_pid()
        .redact(htop_redactions())
        .start();
    let pid = htop.pid().to_string();
    htop.wait_for_row(23, "F10Quit").wait_for_screen_text(&format!("htop -p {pid}")).wait_stable();
    let screen = htop.screen();
    assert!(screen.alternate);
    assert!(!screen.cursor.visible, "htop hides the cursor");
    for label in ["Avg[", "Mem[", "Swp[", "Tasks:", "Load average:", "Uptime:"] {
        assert!(screen.contains(label), "{label} is missing:\n{screen}");
    }
    let row = screen.find(&format!("htop -p {pid}")).unwrap().row;
    assert!(screen.lines[usize::from(row)].trim_start().starts_with(&pid));
    assert_screen_snapshot!("htop_main", htop);

    // F6 opens the "Sort by" menu listing the configured columns.
    htop.send_keys("<F6>")
        .wait_for_screen_text("Sort by")
        .wait_for_row(23, "EscCancel")
        .wait_stable();
    let screen = htop.screen();
    let menu: Vec<&str> =
        screen.lines[7..12].iter().map(|r| r.split_whitespace().next().unwrap_or("")).collect();
    assert_eq!(menu, ["PID", "PERCENT_CPU", "PERCENT_MEM", "TIME", "Command"]);
    assert_screen_snapshot!("htop_sort_menu", htop);

    // Esc closes the menu; F10 quits.
    htop.send_keys("<Esc>").wait_for_row(23, "F10Quit").wait_stable();
    assert!(!htop.screen().contains("Sort by"));
    htop.send_keys("<F10>");
    htop.wait_for_success();
    assert!(!htop.screen().alternate, "htop left the alternate screen");
}

#[test]
fn python_repl_definitions_history_and_tracebacks() {
    if !require("python3") {
        return;
    }
    // PYTHON_BASIC_REPL: Python 3.13 and later otherwise draw their new, coloured REPL.
    let py = TestSession::builder("python3")
        .arg("-q")
        .env_remove("PYTHONSTARTUP")
        .env("PYTHON_BASIC_REPL", "1")
        .ready_when(termloom::Until::input_wait())
        .start();
    // Each line is typed once the prompt for it is drawn: typed earlier, before readline has
    // the terminal, the kernel would echo it a second time.
    py.wait_for_row(0, ">>>");
    py.type_line("def double(x):").wait_for_row(1, "...");
    py.type_line("    return x * 2").wait_for_row(2, "...");
    py.type_line("").wait_for_row(3, ">>>");
    py.type_line("double(21)").wait_for_row(4, "42").wait_for_row(5, ">>>");
    // Up recalls the previous line; edit it in place.
    py.send_keys("<Up>").wait_for_row(5, ">>> double(21)");
    py.send_keys("<Left><BS><BS>50<Enter>").wait_for_row(6, "100").wait_for_row(7, ">>>");
    py.type_line("1/0").wait_for_screen_text("ZeroDivisionError: division by zero");
    py.wait_for_row(11, ">>>").wait_stable();
    assert_eq!(py.screen().lines[5], ">>> double(50)");
    assert_screen_snapshot!("python_repl", py);

    py.type_line("import sys; sys.exit(3)");
    assert_eq!(py.wait_for_exit(), termloom::ExitStatus::Code(3));
    let history = std::fs::read_to_string(py.home().join(".python_history")).unwrap();
    assert!(history.contains("double(50)"), "the history went to the temporary HOME: {history}");
}

/// ptpython (prompt_toolkit) draws its prompt with blank rows and a toolbar below it down to
/// the last row, and on Enter redraws the prompt from where it starts, the cursor hidden, after
/// an erase down: at the first row that erase once settled the whole screen, so the line's
/// transcript began with every row below the prompt (30 blank lines and the toolbar at
/// 120x32) and the prompt twice. The transcript is the lines a person read, once.
#[test]
fn ptpython_prompt_redraws_leave_its_toolbar_out_of_the_transcript() {
    if !require("/usr/bin/ptpython") {
        return;
    }
    let pt =
        TestSession::builder("/usr/bin/ptpython").ready_when(termloom::Until::input_wait()).start();
    pt.wait_for_screen_text("[F2] Menu");
    let session = pt.session();
    let mut text = session.read().unwrap().text;
    let wait = std::time::Duration::from_secs(30);
    for (line, answer) in [("6*7", "42"), ("7*8", "56")] {
        let until = termloom::Until::text(answer);
        session.submit_and_wait(line, until, wait).unwrap().held().unwrap();
        session.wait(termloom::Until::input_wait(), wait).unwrap().held().unwrap();
        text.push_str(&session.read().unwrap().text);
    }
    assert_eq!(text, ">>> 6*7\n42\n\n>>> 7*8\n56\n\n>>> ");
    pt.send_keys("<C-d>").wait_for_screen_text("Do you really want to exit?");
    pt.send_keys("y");
    pt.wait_for_exit();
    let all = session.scrollback(1 << 20).unwrap().text;
    assert!(all.starts_with(">>> 6*7\n42\n"), "{all:?}");
    assert!(!all.contains("[F4]"), "the toolbar settled: {all:?}");
}

#[test]
fn bash_line_editing_and_history() {
    if !require("bash") {
        return;
    }
    let sh = TestSession::bash().start();
    // Type with mistakes and fix them with readline's keys.
    sh.type_text("ech hello wrld");
    sh.send_keys("<Left><Left><Left>o").wait_for_row(0, "$ ech hello world");
    sh.send_keys("<C-a><Right><Right><Right>o").wait_for_row(0, "$ echo hello world");
    sh.wait_for_cursor(0, 6).wait_stable();
    assert_screen_snapshot!("bash_line_edited", sh);
    sh.send_keys("<Enter>").wait_for_row(1, "hello world").wait_for_row(2, "$");

    // Up recalls it; C-w deletes the last word.
    sh.send_keys("<Up>").wait_for_row(2, "$ echo hello world");
    sh.send_keys("<C-w>").wait_for_cursor(2, 13);
    sh.type_line("bash").wait_for_row(3, "hello bash").wait_for_row(4, "$");
    sh.type_line("true one && true two").wait_for_row(5, "$");

    // Reverse search finds the older command.
    sh.send_keys("<C-r>hello w")
        .wait_for_screen_text("(reverse-i-search)`hello w': echo hello world");
    sh.wait_stable();
    assert_screen_snapshot!("bash_reverse_search", sh);
    sh.send_keys("<Enter>").wait_for_row(6, "hello world").wait_for_row(7, "$");

    sh.type_line("history").wait_for_row(13, "$").wait_stable();
    let screen = sh.screen();
    let history: Vec<&str> = screen.lines[8..13].iter().map(|r| r.trim_start()).collect();
    assert_eq!(
        history,
        [
            "1  echo hello world",
            "2  echo hello bash",
            "3  true one && true two",
            "4  echo hello world",
            "5  history"
        ]
    );
    assert_screen_snapshot!("bash_history", sh);

    // bash writes its history to HISTFILE, in the temporary HOME, when it exits.
    sh.type_line("exit");
    sh.wait_for_success();
    let file = std::fs::read_to_string(sh.home().join(".bash_history")).unwrap();
    assert_eq!(
        file,
        "echo hello world\necho hello bash\ntrue one && true two\necho hello world\nhistory\nexit\n"
    );
}

const ADD_C: &str = r#"#include <stdio.h>

static int add(int a, int b) {
    return a + b;
}

int main(void) {
    int sum = add(2, 3);
    printf("sum=%d\n", sum);
    return 0;
}
"#;

#[test]
fn gdb_breakpoint_run_and_backtrace() {
    if !require("gcc") || !require("gdb") {
        return;
    }
    let gdb = TestSession::builder("sh")
        .args(["-c", "gcc -g -O0 -o add add.c && exec gdb -nx -q ./add"])
        .file("add.c", ADD_C)
        .redact(Redactions::new().hex_addresses().pids())
        .start();
    gdb.wait_for_row(1, "(gdb)").wait_for_input();
    gdb.type_line("break add").wait_for_screen_text("Breakpoint 1 at").wait_for_input();
    assert!(gdb.screen().contains("file add.c, line 4."));

    gdb.type_line("run").wait_for_screen_text("Breakpoint 1, add (a=2, b=3) at add.c:4");
    gdb.wait_for_regex(r"^4\s+return a \+ b;$").wait_for_input();
    gdb.type_line("bt").wait_for_screen_text("in main () at add.c:8").wait_for_input();
    let screen = gdb.screen();
    let bt = screen.find("#0  add (a=2, b=3) at add.c:4").expect("frame 0");
    assert!(screen.lines[usize::from(bt.row) + 1].starts_with("#1  0x"));
    gdb.wait_stable();
    assert_screen_snapshot!("gdb_backtrace", gdb);

    gdb.type_line("continue").wait_for_screen_text("exited normally]").wait_for_input();
    assert!(gdb.screen().contains("sum=5"));
    gdb.type_line("quit");
    gdb.wait_for_success();
}

#[test]
fn whiptail_menu_selection_is_read_back() {
    if !require("whiptail") {
        return;
    }
    let dialog = "whiptail --title Fruit --menu 'Pick a fruit' 14 40 4 \\
                    apple 'red, crisp' banana yellow cherry small 2>choice
                  status=$?
                  echo \"whiptail exited with $status\"
                  exit $status
                 ";
    let w = TestSession::builder("sh").arg("pick.sh").file("pick.sh", dialog).start();
    w.wait_for_screen_text("<Cancel>").wait_stable();
    let screen = w.screen();
    assert!(screen.alternate);
    let apple = screen.find("apple").unwrap();
    assert_eq!(screen.cursor.row, apple.row, "the first item is selected");
    assert_screen_snapshot!("whiptail_menu", w);

    // The selection is drawn in colours (white on red), which the styles section shows, and
    // with the hidden cursor, whose position the header shows.
    let selection = |w: &TestSession| -> Vec<u16> {
        w.styled_screen().runs.iter().filter(|run| run.bg == "red").map(|run| run.row).collect()
    };
    assert_eq!(selection(&w), [apple.row]);
    let cherry = screen.find("cherry").unwrap();
    w.send_keys("<Down><Down>").wait_for_cursor(cherry.row, screen.cursor.col).wait_stable();
    assert_eq!(selection(&w), [cherry.row]);
    assert_screen_snapshot!("whiptail_cherry_selected", w.with_styles());

    w.send_keys("<Enter>").wait_for_output("whiptail exited with 0");
    assert!(w.wait_for_exit().success());
    assert_eq!(std::fs::read_to_string(w.home().join("choice")).unwrap(), "cherry");
}
