#![cfg(feature = "testing")]
use termloom::testing::TestSession;

const HTOPRC: &str = "htop_version=3.2.2
config_reader_min_version=3
fields=0 46 47 49 1
hide_kernel_threads=1
hide_userland_threads=1
show_program_path=0
highlight_changes=0
header_margin=1
screen_tabs=1
show_cpu_usage=1
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

#[test]
fn explore_htop() {
    let htop = TestSession::builder("sh").args(["-c", "exec htop -p $$"]).file(".config/htop/htoprc", HTOPRC).start();
    htop.wait_for_text("F10Quit").wait_for_text("htop -p").wait_stable();
    println!("{}", htop.snapshot());
    htop.send_keys("<F6>").wait_for_text("Sort by").wait_stable();
    println!("{}", htop.snapshot());
    htop.send_keys("<Esc>").wait_for_text("F10Quit").wait_stable();
    htop.send_keys("<F10>");
    println!("{:?}", htop.wait_for_exit());
    println!("{}", std::fs::read_to_string(htop.home().join(".config/htop/htoprc")).unwrap());
}

#[test]
fn explore_less() {
    let lines: String = (1..=200).map(|i| format!("line {i:03}: {}\n", if i % 37 == 0 { "needle here" } else { "hay" })).collect();
    let less = TestSession::builder("less").arg("hay.txt").file("hay.txt", lines).start();
    less.wait_for_text("hay.txt").wait_stable();
    println!("{}", less.snapshot());
    less.send_keys(" ").wait_for_row(0, "line 024").wait_stable();
    println!("{}", less.snapshot());
    less.send_keys("/needle<Enter>").wait_for_row(0, "line 037").wait_stable();
    println!("{}", less.snapshot());
    less.send_keys("n").wait_for_row(0, "line 074").wait_stable();
    println!("{}", less.snapshot());
}

#[test]
fn explore_gdb() {
    let src = "#include <stdio.h>\n\nstatic int add(int a, int b) {\n    return a + b;\n}\n\nint main(void) {\n    int sum = add(2, 3);\n    printf(\"sum=%d\\n\", sum);\n    return 0;\n}\n";
    let gdb = TestSession::builder("sh").args(["-c", "gcc -g -O0 -o add add.c && exec gdb -nx -q ./add"]).file("add.c", src).start();
    gdb.wait_for_text("(gdb)").wait_for_input();
    gdb.type_line("break add").wait_for_text("Breakpoint 1 at");
    gdb.type_line("run").wait_for_text("Breakpoint 1, add").wait_for_input();
    gdb.type_line("bt").wait_for_text("#1").wait_for_input();
    println!("{}", gdb.snapshot());
    gdb.type_line("continue").wait_for_text("exited normally").wait_for_input();
    println!("{}", gdb.snapshot());
    println!("{}", gdb.last_lines(40).join("\n"));
}

#[test]
fn explore_whiptail() {
    let w = TestSession::builder("sh").args(["-c", "whiptail --title Fruit --menu 'Pick a fruit' 14 40 4 apple 'red, crisp' banana 'yellow' cherry 'small' 2>choice; echo \"exit=$?\"; read x"]).start();
    w.wait_for_text("Pick a fruit").wait_stable();
    println!("{}", w.snapshot());
    w.send_keys("<Down><Down>").wait_stable();
    println!("{}", w.snapshot());
    w.send_keys("<Enter>").wait_for_output("exit=0");
    println!("{}", w.snapshot());
    println!("{:?}", std::fs::read_to_string(w.home().join("choice")));
}
