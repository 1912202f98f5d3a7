//! The terminal's answers to the queries programs send, read back through a real PTY by a
//! program in raw mode: those alacritty leaves unanswered (the `queries` module) too.

mod common;

use common::*;
use termloom::{SpawnSpec, Until};

/// Python that puts its terminal in raw mode, sends each query (its argument, the bytes the
/// answer ends with), reads the answer (`<TIMEOUT>` after 10 seconds without a byte) and
/// prints every answer's `repr` on a line of its own, in order.
const ASK: &str = r#"
import os, sys, tty, termios, select
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
def ask(q, end):
    os.write(1, q)
    r = b""
    while not r.endswith(end):
        if not select.select([fd], [], [], 10)[0]:
            return r + b"<TIMEOUT>"
        r += os.read(fd, 1)
    return r
answers = []
for line in sys.argv[1:]:
    setup, query, end = (eval(part) for part in line.split("|"))
    os.write(1, setup)
    answers.append(ask(query, end))
termios.tcsetattr(fd, termios.TCSADRAIN, old)
print("\r\n" + "\n".join("A=" + repr(a) for a in answers) + "\nDONE")
"#;

/// The answers, in order, to `queries`: each `setup|query|end` as Python bytes literals.
fn answers(queries: &[&str]) -> Vec<String> {
    let engine = engine();
    let s = engine.spawn(SpawnSpec::new("python3").args(["-c", ASK]).args(queries)).unwrap();
    expect(&s, Until::exit());
    let text = s.read().unwrap().text;
    assert!(text.contains("DONE"), "{text}");
    text.lines().filter_map(|line| line.strip_prefix("A=")).map(str::to_owned).collect()
}

#[test]
fn queries_are_answered() {
    if !require("python3") {
        return;
    }
    // alacritty's own answers: DA1, the cursor position, the background colour.
    let got = answers(&[
        r#"b""|b"\x1b[c"|b"c""#,
        r#"b""|b"\x1b[6n"|b"R""#,
        r#"b""|b"\x1b]11;?\x07"|b"\x07""#,
    ]);
    let want = [r"b'\x1b[?6c'", r"b'\x1b[1;1R'", r"b'\x1b]11;rgb:0000/0000/0000\x07'"];
    assert_eq!(got, want);
}

#[test]
fn queries_alacritty_leaves_unanswered_are_answered() {
    if !require("python3") {
        return;
    }
    let got = answers(&[
        // XTVERSION (tmux asks), the cell size in pixels.
        r#"b""|b"\x1b[>q"|b"\x1b\\""#,
        r#"b""|b"\x1b[16t"|b"t""#,
        // DECRQSS of SGR, the scrolling region and the cursor style (vim's t_RS), as set.
        r#"b"\x1b[1;31m\x1b[2;10r\x1b[5 q"|b"\x1bP$qm\x1b\\"|b"\x1b\\""#,
        r#"b""|b"\x1bP$qr\x1b\\"|b"\x1b\\""#,
        r#"b""|b"\x1bP$q q\x1b\\"|b"\x1b\\""#,
        // And of a setting not answered: the invalid reply.
        r#"b"\x1b[m\x1b[r"|b"\x1bP$q\"p\x1b\\"|b"\x1b\\""#,
        // XTGETTCAP: TN, Co and RGB in one query; a key vim asks for, unknown here.
        r#"b""|b"\x1bP+q544e;436f;524742\x1b\\"|b"524742\x1b\\""#,
        r#"b""|b"\x1bP+q6b75\x1b\\"|b"\x1b\\""#,
    ]);
    let version = env!("CARGO_PKG_VERSION");
    let want = [
        format!(r"b'\x1bP>|termloom({version})\x1b\\'"),
        r"b'\x1b[6;16;8t'".to_owned(),
        r"b'\x1bP1$r0;1;31m\x1b\\'".to_owned(),
        r"b'\x1bP1$r2;10r\x1b\\'".to_owned(),
        r"b'\x1bP1$r5 q\x1b\\'".to_owned(),
        r"b'\x1bP0$r\x1b\\'".to_owned(),
        concat!(
            r"b'\x1bP1+r544e=787465726D2D323536636F6C6F72\x1b\\",
            r"\x1bP1+r436f=323536\x1b\\\x1bP1+r524742\x1b\\'"
        )
        .to_owned(),
        r"b'\x1bP0+r6b75\x1b\\'".to_owned(),
    ];
    assert_eq!(got, want);
}

#[test]
fn a_dcs_string_is_answered_only_if_a_query_and_a_huge_one_as_invalid() {
    if !require("python3") {
        return;
    }
    // vim's `DCS zz ST` (sent to see whether the terminal shows it) gets no answer: the next
    // answer is DA1's. A megabyte XTGETTCAP gets the one 'unknown' reply (the scanner keeps
    // a bounded part of it), then DA1's, in order.
    let got = answers(&[
        r#"b""|b"\x1bPzz\x1b\\\x1b[c"|b"c""#,
        r#"b""|b"\x1bP+q" + b"41" * (1 << 19) + b"\x1b\\\x1b[c"|b"c""#,
    ]);
    assert_eq!(got, [r"b'\x1b[?6c'", r"b'\x1bP0+r\x1b\\\x1b[?6c'"]);
}
