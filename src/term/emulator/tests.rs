use super::*;
use alacritty_terminal::index::Column;

fn emulator(cols: u16, rows: u16) -> Emulator {
    Emulator::new(cols, rows, OutputBounds::of(&Config::default()))
}

fn feed(emu: &mut Emulator, t: &mut Transcript, bytes: &[u8]) -> Vec<u8> {
    let mut turn = Turn { budget: usize::MAX, ..Turn::default() };
    emu.feed(bytes, t, &mut turn);
    assert!(!emu.has_pending());
    turn.replies
}

/// Every line the transcript holds.
fn settled(t: &Transcript) -> Vec<&str> {
    (0..t.end()).filter_map(|n| t.line(n)).collect()
}

/// The reflow in steps keeps the text as one step does: the same transcript (settled
/// lines and the screen's down to the cursor), for long wrapped lines, words and blanks,
/// wide characters and a prompt with the cursor after it, and random mixes of them, at
/// every narrower width tried; for the plain cases, the same screen and cursor too. (Where
/// blanks end the text at the cursor, alacritty's one-step reflow and the steps can place
/// the cursor a row apart: the steps put it after the blanks, as they were typed.)
#[test]
fn a_large_narrowing_in_steps_keeps_the_text_of_one_step() {
    let plain: [&[u8]; 4] = [
            b"start\r\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nend\r\n$ ",
            b"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen\r\nab   cd    ef     \r\n> ",
            "日本語の文字を並べた行がここにあります日本語の文字を並べた行がここにあります日本語の文字を並べた行\r\nx ".as_bytes(),
            b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n9\r\n10\r\n11\r\n12\r\nlast line of several words at the bottom",
        ];
    let mut seed = 0x2545_f491_u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let pieces = ["word ", "x", "     ", "日本", "\r\n", "longerword", "é", "  "];
    let random: Vec<Vec<u8>> = (0..30)
        .map(|_| {
            (0..120).map(|_| pieces[next() as usize % pieces.len()]).collect::<String>().into()
        })
        .collect();
    let cases = plain.iter().map(|c| (*c, true)).chain(random.iter().map(|c| (&c[..], false)));
    for (content, whole_screen) in cases {
        for width in [2, 3, 7, 20, 33] {
            let (mut stepped, mut one) = (emulator(100, 10), emulator(100, 10));
            let mut ts = Transcript::new(100_000, 1 << 30, 1 << 20);
            let mut to = Transcript::new(100_000, 1 << 30, 1 << 20);
            feed(&mut stepped, &mut ts, content);
            feed(&mut one, &mut to, content);
            stepped.resize(width, 10, false, &mut ts);
            one.term.resize(GridSize { cols: usize::from(width), rows: 10 });
            let _ = one.drain_history(&mut to);
            let what = format!("{:?} at {width}", String::from_utf8_lossy(content));
            let text = |e: &Emulator, t: &Transcript| {
                let (text, _) = t.retained(e.tail(t).as_deref(), 1 << 20);
                text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
            };
            assert_eq!(text(&stepped, &ts), text(&one, &to), "{what}");
            let (a, b) = (stepped.screen(), one.screen());
            assert!(a.cursor.row < 10 && a.cursor.col < width, "{what}: {:?}", a.cursor);
            if whole_screen {
                assert_eq!((a.lines, a.cursor), (b.lines, b.cursor), "{what}");
            }
        }
    }
    assert_eq!(reflow_widths(1000, 2), [256, 128, 64, 32, 16, 8, 4, 2]);
    assert_eq!(reflow_widths(80, 30), [30]);
}

#[test]
fn scrolled_lines_settle_in_order() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(100_000, 1 << 30, 1 << 20);
    let text: String = (0..5000).map(|i| format!("{i}\r\n")).collect();
    feed(&mut emu, &mut t, text.as_bytes());
    assert_eq!(t.end(), 4996);
    assert_eq!(t.line(0), Some("0"));
    assert_eq!(t.line(4995), Some("4995"));
    assert_eq!(emu.tail(&t).unwrap(), vec!["4996", "4997", "4998", "4999", ""]);
}

#[test]
fn clear_settles_screen_before_history_is_wiped() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"a\r\nb\r\n\x1b[H\x1b[2J\x1b[3Jc");
    assert_eq!((t.line(0), t.line(1), t.line(2)), (Some("a"), Some("b"), None));
    assert_eq!(emu.screen().lines[0], "c");
}

/// An erase down from the top left corner (`CSI H CSI J`: `clear` where the terminal's
/// description has no `ED 2`) erases the whole screen: its lines are settled as `ED 2`
/// settles them, each once and in order, whether a read took them from the screen before
/// or not (they were lost, and a reader was told the screen had been rewritten). From
/// anywhere else, and on the alternate screen, the erase settles nothing.
#[test]
fn an_erase_down_from_the_top_left_corner_settles_the_screen() {
    for erase in ["\x1b[J", "\x1b[0J", "\x1b[?J", "\x1b[?0J"] {
        for read_before in [false, true] {
            let mut emu = emulator(20, 5);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            let mut text = String::new();
            feed(&mut emu, &mut t, b"a\r\nb\r\n");
            if read_before {
                text.push_str(&t.read(emu.tail(&t).as_deref(), 1000).text);
            }
            feed(&mut emu, &mut t, format!("\x1b[H{erase}c\r\nd").as_bytes());
            let out = t.read(emu.tail(&t).as_deref(), 1000);
            assert!(!out.rewritten, "{erase:?}");
            text.push_str(&out.text);
            assert_eq!(text, "a\nb\nc\nd", "{erase:?}, read before: {read_before}");
            assert_eq!(settled(&t), ["a", "b"], "{erase:?}");
            assert_eq!(rows(&emu)[..3], ["c", "d", ""], "{erase:?}");
        }
    }
    // A blank screen settles nothing; a line soft-wrapped into the screen's first row
    // is settled whole.
    let mut emu = emulator(4, 2);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[H\x1b[J\x1b[H\x1b[Jabcdefgh\x1b[H\x1b[Jx");
    assert_eq!(settled(&t), ["abcdefgh"]);
    // Elsewhere than the corner, and on the alternate screen, nothing is settled.
    for input in
        [&b"a\r\nb\x1b[1;2H\x1b[J"[..], b"a\r\nb\x1b[2;1H\x1b[J", b"\x1b[?1049ha\x1b[H\x1b[J"]
    {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, input);
        assert!(settled(&t).is_empty(), "{:?}", String::from_utf8_lossy(input));
    }
}

/// An erase down right after a move home settles the screen with the cursor hidden too
/// (`tput civis; clear` for tmux or screen, a program killed while it hid the cursor): the
/// lines were lost. The corner reached by relative moves erases only, the cursor shown or
/// not (a line editor redrawing its prompt); a clear after frames drawn from home (`top`'s)
/// too, see `clears_are_counted_again_after_frames_end_and_not_across_frames_drawn_from_home`.
#[test]
fn an_erase_down_right_after_a_move_home_settles_with_the_cursor_hidden() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[?25lone\r\ntwo\r\n\x1b[H\x1b[Jthree\r\n");
    assert_eq!(settled(&t), ["one", "two"]);
    assert_eq!(t.read(emu.tail(&t).as_deref(), 1000).text, "one\ntwo\nthree\n");
    // SGR between the move and the erase moves nothing.
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"one\r\n\x1b[1;1H\x1b[0m\x1b[J");
    assert_eq!(settled(&t), ["one"]);
    // Relative moves to the corner, the cursor shown: the prompt is drawn again.
    for input in [&b"> ab\r\x1b[J"[..], b"> ab\r\n  menu\x1b[A\r\x1b[J", b"\x1b[H> ab\x1b[4D\x1b[J"]
    {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, input);
        assert!(settled(&t).is_empty(), "{:?}", String::from_utf8_lossy(input));
    }
    // Frames each drawn from a clear, the cursor hidden (a `clear` loop under TERM=screen):
    // each clear settles what the screen showed (a person read it: `echo one; clear; echo
    // two; clear` keeps `two`), as xterm's `CSI 2 J` does.
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"before\r\n\x1b[?25l\x1b[H\x1b[Jframe 1");
    for frame in 2..5 {
        feed(&mut emu, &mut t, format!("\x1b[H\x1b[Jframe {frame}").as_bytes());
    }
    assert_eq!(settled(&t), ["before", "frame 1", "frame 2", "frame 3"]);
}

/// A charset designation between the move home and the erase down (`CSI H ESC ( B CSI J`,
/// as some programs write `clear` with their attributes reset) moves nothing: the erase
/// settles the screen as a plain `CSI H CSI J` does, the cursor shown or hidden. The
/// designation ended the move's run, and the lines were lost.
#[test]
fn a_charset_designation_between_home_and_an_erase_down_still_settles() {
    for clear in [
        "\x1b[H\x1b(0\x1b(B\x1b[J",
        "\x1b[H\x1b(B\x1b[J",
        "\x1b[H\x1b)0\x1b[J",
        "\x1b[H\x1b(B\x1b[2J",
    ] {
        for hide in ["", "\x1b[?25l"] {
            let mut emu = emulator(20, 5);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            feed(&mut emu, &mut t, format!("{hide}one\r\ntwo\r\n{clear}three").as_bytes());
            assert_eq!(settled(&t), ["one", "two"], "{clear:?} {hide:?}");
            assert_eq!(rows(&emu)[..2], ["three", ""], "{clear:?} {hide:?}");
        }
    }
    // Fed a byte at a time (the scanner's per-byte path).
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    for byte in b"one\r\n\x1b[H\x1b(0\x1b(B\x1b[Jtwo" {
        feed(&mut emu, &mut t, &[*byte]);
    }
    assert_eq!(settled(&t), ["one"]);
    // A designation after text still ends the move's run: the corner reached so is no clear.
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"> ab\x1b[H\x1b(Bx\x1b[H\x1b[4D\x1b(B\x1b[J");
    assert!(settled(&t).is_empty());
}

/// `tput civis; echo one; clear; echo two; clear` under `TERM=screen` (`CSI H CSI J`, the
/// cursor hidden throughout): `two` was lost, the second clear taken for a monitor's next
/// frame. That clear settles the frame it erases at once, as a clear with the cursor shown
/// does: its lines are then the readable tail's end, so a read before it and one after see
/// each line once, none renumbered (a frame held aside and settled later, once the frames
/// ended, was read again after the lines below it, as `rewritten`). So do the clears after
/// those two: a third frame between clears was lost, and a monitor kept its first frame
/// alone; reads between them still see each line once.
#[test]
fn the_frame_a_second_clear_with_the_cursor_hidden_erases_settles_at_once() {
    let cleared = b"\x1b[?25lone\r\n\x1b[H\x1b[Jtwo\r\n\x1b[H\x1b[J";
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, cleared);
    assert_eq!(settled(&t), ["one", "two"]);
    // Read before the frames end and after: nothing read again, nothing rewritten.
    feed(&mut emu, &mut t, b"three\r\n$ ");
    let out = t.read(emu.tail(&t).as_deref(), 1000);
    assert_eq!((out.text.as_str(), out.rewritten), ("one\ntwo\nthree\n$ ", false));
    emu.group_reads(7, true);
    feed(&mut emu, &mut t, b"ls\r\nfour\r\n$ ");
    let out = t.read(emu.tail(&t).as_deref(), 1000);
    assert_eq!((out.text.as_str(), out.rewritten), ("ls\nfour\n$ ", false));
    // Rows a scrolling region scrolls off after it settle after it.
    let mut emu = emulator(20, 6);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, cleared);
    feed(&mut emu, &mut t, b"status\x1b[2;4r\x1b[2;1Hx\r\ny\r\nz\r\nw\r\n");
    assert_eq!(settled(&t), ["one", "two", "x", "y"]);
    // A line the grid's resize left pending settles once, before the frame's other rows.
    let mut emu = emulator(10, 4);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[?25l\x1b[H\x1b[J0123456789abcdefghij\r\nq\r\nr");
    emu.resize(5, 4, false, &mut t);
    feed(&mut emu, &mut t, b"\x1b[H\x1b[Jnew");
    emu.end();
    let joined = settled(&t).join("\n");
    assert_eq!(joined.matches("01234").count(), 1, "{joined:?}");
    assert!(joined.ends_with("q\nr"), "{joined:?}");
    // A monitor (`while :; do clear; date; sleep 1; done`, the cursor hidden): every frame
    // settles, as under xterm, whose `clear` is `CSI 2 J`; read between frames, each once.
    for frames in [3, 6] {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"before\r\n\x1b[?25l");
        let mut read = String::new();
        for frame in 0..frames {
            feed(&mut emu, &mut t, format!("\x1b[H\x1b[Jframe {frame}\r\n").as_bytes());
            let out = t.read(emu.tail(&t).as_deref(), 1000);
            assert!(!out.rewritten, "frame {frame}");
            read.push_str(&out.text);
        }
        emu.group_reads(7, true);
        let frame_lines = (0..frames - 1).map(|n| format!("frame {n}"));
        let wanted: Vec<String> = ["before".into()].into_iter().chain(frame_lines).collect();
        assert_eq!(settled(&t), wanted, "{frames} frames");
        assert_eq!(rows(&emu)[0], format!("frame {}", frames - 1));
        let all: String = wanted.iter().map(|line| format!("{line}\n")).collect();
        assert_eq!(read, format!("{all}frame {}\n", frames - 1));
    }
    // Clears typed ahead: the third and fourth settle the frames they erase, `c` and its
    // command line were lost.
    let mut emu = emulator(30, 8);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(
        &mut emu,
        &mut t,
        b"\x1b[?25l$ echo a; clear\r\na\r\n\x1b[H\x1b[J$ echo b; clear\r\nb\r\n",
    );
    feed(&mut emu, &mut t, b"\x1b[H\x1b[J$ echo c; clear\r\nc\r\n\x1b[H\x1b[J$ echo d\r\nd\r\n$ ");
    assert_eq!(
        settled(&t),
        ["$ echo a; clear", "a", "$ echo b; clear", "b", "$ echo c; clear", "c"]
    );
}

/// Frames drawn from the top-left between two clears (`top`'s, two moves there or more) make
/// the second erase only, and every clear after it until the frames end (the shell found back
/// at its prompt); one move there does not. Clears with no frames between settle what they
/// erase, before and after the frames end.
#[test]
fn clears_are_counted_again_after_frames_end_and_not_across_frames_drawn_from_home() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[?25lone\r\n\x1b[H\x1b[Jtwo\r\n\x1b[H\x1b[Jthree\r\n");
    emu.group_reads(7, true);
    feed(&mut emu, &mut t, b"\x1b[H\x1b[Jfour\r\n\x1b[H\x1b[Jfive\r\n\x1b[H\x1b[Jsix\r\n");
    assert_eq!(settled(&t), ["one", "two", "three", "four", "five"]);
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let top = b"\x1b[?25lbefore\r\n\x1b[H\x1b[Jframe 1\x1b[Hframe 2\x1b[Hframe 3\x1b[H\x1b[Jhelp";
    feed(&mut emu, &mut t, top);
    assert_eq!(settled(&t), ["before"]);
    // Its help closed by a clear and its frames drawn again, then another clear: a monitor's.
    feed(&mut emu, &mut t, b"\x1b[H\x1b[Jframe 4\x1b[H\x1b[Jframe 5");
    assert_eq!(settled(&t), ["before"]);
    emu.group_reads(7, true);
    feed(&mut emu, &mut t, b"\r\n$ \x1b[H\x1b[Jsix\r\n\x1b[H\x1b[J");
    assert_eq!(settled(&t), ["before", "frame 5", "$", "six"]);
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[?25lone\r\n\x1b[H\x1b[J\x1b[1;1Htwo\r\n\x1b[H\x1b[J");
    assert_eq!(settled(&t), ["one", "two"], "one move home between (tput cup 0 0)");
}

/// A status line redrawn from the top-left with the cursor hidden (a save, `DECSC` or `CSI s`,
/// home, its text, a restore, `DECRC` or `CSI u`) is no frame drawn there, however often
/// between two clears: a loop under `TERM=screen` that redrew one each iteration and cleared
/// every third took its clears after the first for a monitor's and lost every line after the
/// first clear (with `CSI s` and `CSI u`, every line). Frames drawn from home and left there,
/// or with a save after the move home, still make the clears a monitor's.
#[test]
fn status_lines_restored_after_a_move_home_are_no_frames_between_clears() {
    for (save, restore) in [("\x1b7", "\x1b8"), ("\x1b[s", "\x1b[u")] {
        let mut emu = emulator(20, 8);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[?25l\x1b[H\x1b[J\r\n");
        for i in 1..=9 {
            let status = format!("{save}\x1b[Hstatus {i}{restore}line{i}\r\n");
            feed(&mut emu, &mut t, status.as_bytes());
            if i % 3 == 0 {
                feed(&mut emu, &mut t, b"\x1b[H\x1b[J\r\n");
            }
        }
        let kept = settled(&t);
        for i in 1..=9 {
            let line = format!("line{i}");
            let times = kept.iter().filter(|kept| **kept == line).count();
            assert_eq!(times, 1, "{save:?} {restore:?} {line}: {kept:?}");
        }
    }
    // A save after the move home (a restore goes back there), and three moves home before
    // one restore (it undoes the last): frames drawn from home, the next clears erase only.
    let betweens: [&[u8]; 2] =
        [b"\x1b[Hone\x1b7\x1b[Htwo\x1b7\x1b8", b"\x1b7\x1b[Hone\x1b[Htwo\x1b[Hthree\x1b8"];
    for between in betweens {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"\x1b[?25lbefore\r\n\x1b[H\x1b[Jframe\r\n");
        feed(&mut emu, &mut t, between);
        feed(&mut emu, &mut t, b"\x1b[H\x1b[Jnext\r\n\x1b[H\x1b[J");
        assert_eq!(settled(&t), ["before"], "{:?}", String::from_utf8_lossy(between));
    }
}

/// A restore (`ESC 8`, `CSI u`) undoes the last move to the top-left after a save (`ESC 7`,
/// `CSI s`) when the cursor it restores, alacritty's own, is not the top-left, in any split:
/// not one with a save, an erase or another move there after it, nor one before any save,
/// after a reset, or after the alternate screen was entered (which saves the primary screen's
/// cursor where it is: a restore then goes back home). A save with `CSI s` after the move
/// home was not seen, nor a status line drawn with `CSI s` and `CSI u`; a restore after the
/// alternate screen counted as undoing its move home.
#[test]
fn moves_to_the_top_left_a_restore_undoes_are_counted_in_any_split() {
    let cases: [(&[u8], u64, u64); 10] = [
        (b"\x1b7\x1b[Hstatus\x1b8\x1b7\x1b[1;1Hstatus\x1b8", 2, 2),
        (b"\x1b7\x1b[Hone\x1b[Htwo\x1b8", 2, 1),
        (b"\x1b[H\x1b7one\x1b8", 1, 0),
        (b"\x1b7\x1b[H\x1b[Jone\x1b8", 1, 0),
        (b"\x1b[Hone\x1b8", 1, 0),
        (b"\x1b7\x1bc\x1b[Hone\x1b8", 1, 0),
        (b"\x1b7\x1b[H\x1b[2;5Hone\x1b8\x1b8", 1, 1),
        (b"\x1b[s\x1b[Hstatus\x1b[u", 1, 1),
        (b"\x1b7\x1b[H\x1b[2Kstatus\x1b[stext\x1b8", 1, 0),
        (b"\x1b7\x1b[H\x1b[?1049h\x1b[?1049l\x1b8", 1, 0),
    ];
    for (input, homes, undone) in cases {
        // The cursor starts on the third row.
        let input = [b"\x1b[3;5H", input].concat();
        for chunk in 1..=input.len() {
            let mut emu = emulator(10, 10);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            for piece in input.chunks(chunk) {
                feed(&mut emu, &mut t, piece);
            }
            let what = String::from_utf8_lossy(&input);
            assert_eq!(emu.scanner.homes(), homes, "{what:?} chunk {chunk}");
            assert_eq!(emu.scanner.undone_homes(), undone, "{what:?} chunk {chunk}");
        }
    }
}

/// A cursor position to the top-left (`CSI H`, `CSI 1;1H`) under origin mode (DECOM, `CSI ?
/// 6 h`) with a scrolling region below the screen's top goes to the region's top, and is no
/// move to the screen's top-left, in any split; it is again once the region starts at the
/// top, origin mode is reset (or restored reset by DECRC), or after a reset (RIS). Each
/// counted as a frame's start before: a log redrawn in a region under a status line, the
/// cursor hidden, was taken for frames drawn from the top-left.
#[test]
fn moves_to_the_top_left_under_origin_mode_follow_the_region_in_any_split() {
    let cases: [(&[u8], u64, (usize, usize)); 9] = [
        (b"\x1b[3;8r\x1b[?6h\x1b[Hone\x1b[1;1Htwo", 0, (2, 3)),
        (b"\x1b[?6h\x1b[3;8r\x1b[Hone", 0, (2, 3)),
        (b"\x1b[1;8r\x1b[?6h\x1b[Hone", 1, (0, 3)),
        (b"\x1b[3;8r\x1b[Hone", 1, (0, 3)),
        (b"\x1b[3;8r\x1b[?6h\x1b[?6l\x1b[Hone", 1, (0, 3)),
        (b"\x1b[3;8r\x1b[?6h\x1b[r\x1b[Hone", 1, (0, 3)),
        (b"\x1b[3;8r\x1b[?6h\x1b7\x1b[?6l\x1b[H\x1b8\x1b[Hone", 1, (2, 3)),
        (b"\x1b[3;8r\x1b[?6h\x1bc\x1b[Hone", 1, (0, 3)),
        (b"\x1b[3;8r\x1b[?6h\x1b[2;5H\x1b[Hone", 0, (2, 3)),
    ];
    for (input, homes, cursor) in cases {
        for chunk in 1..=input.len() {
            let mut emu = emulator(10, 10);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            for piece in input.chunks(chunk) {
                feed(&mut emu, &mut t, piece);
            }
            let what = String::from_utf8_lossy(input);
            let point = emu.term.grid().cursor.point;
            assert_eq!((point.line.0 as usize, point.column.0), cursor, "{what:?} chunk {chunk}");
            assert_eq!(emu.scanner.homes(), homes, "{what:?} chunk {chunk}");
        }
    }
}

/// A clear with the cursor shown (`CSI H CSI J`) settles the screen whatever frames the
/// cursor hidden started before: `tput civis; clear; tput cnorm` then lines and a `clear`
/// under `TERM=screen` lost those lines (only `zero` settled), and so did a status line
/// redrawn with the cursor hidden (`DECSC`, home, `DECRC`) before them (nothing settled:
/// `zero`, `one` and `two` lost). Clears after it, the cursor hidden, each settle the frame
/// they erase.
#[test]
fn a_clear_with_the_cursor_shown_settles_the_screen_after_frames() {
    let feeds: [&[u8]; 2] = [
        b"zero\r\n\x1b[?25l\x1b[H\x1b[J\x1b[?25hone\r\ntwo\r\n\x1b[H\x1b[Jthree",
        b"zero\r\n\x1b[?25l\x1b7\x1b[HHEADER\x1b8\x1b[?25hone\r\ntwo\r\n\x1b[H\x1b[Jthree",
    ];
    let wanted: [&[&str]; 2] = [&["zero", "one", "two"], &["HEADER", "one", "two"]];
    for (input, wanted) in feeds.into_iter().zip(wanted) {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, input);
        assert_eq!(settled(&t), wanted, "{:?}", String::from_utf8_lossy(input));
        assert!(!emu.frames.drawing(), "{:?}", String::from_utf8_lossy(input));
    }
    // A monitor's status line drawn from home with the cursor hidden, then its frames, each
    // from a clear: the first clear settles what was there, the next ones the frames.
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\r\nbefore\r\n\x1b[?25l\x1b7\x1b[Hhdr\x1b8");
    for frame in 1..4 {
        feed(&mut emu, &mut t, format!("\x1b[H\x1b[Jframe {frame}").as_bytes());
    }
    // (See `the_frame_a_second_clear_with_the_cursor_hidden_erases_settles_at_once`.)
    assert_eq!(settled(&t), ["hdr", "before", "frame 1", "frame 2"]);
    assert_eq!(rows(&emu)[0], "frame 3");
}

/// A line editor that redraws its prompt from the first row (prompt_toolkit: the cursor
/// hidden, moved back to where its prompt starts, an erase down, the prompt drawn again)
/// erases only its own drawing: its prompt and the rows below it, a completion menu and a
/// toolbar on the last row. Nothing settles: the transcript is the prompt with the line
/// typed, then the answer, once, whether a read took the prompt from the screen before or
/// not; no toolbar, no menu, no blank rows between.
#[test]
fn a_line_editor_redrawing_its_prompt_from_the_top_left_corner_settles_nothing() {
    // The prompt, a menu row under it and a toolbar on the last row; the cursor back after
    // the prompt, shown.
    let drawn = |prompt: &str| {
        format!(
            "\x1b[?25l\x1b[J{prompt}\r\r\n  apple\r\r\n\r\r\n\r\r\ntoolbar\r\x1b[4A\x1b[{}C\x1b[?25h",
            prompt.len()
        )
    };
    for read_before in [false, true] {
        let mut emu = emulator(20, 10);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let mut text = String::new();
        feed(&mut emu, &mut t, drawn(">>> ").as_bytes());
        feed(&mut emu, &mut t, b"6*7");
        if read_before {
            text.push_str(&t.read(emu.tail(&t).as_deref(), 1000).text);
        }
        // Accepted: the prompt redrawn without the menu and the toolbar, the answer below.
        feed(&mut emu, &mut t, b"\x1b[?25l\x1b[7D\x1b[J>>> 6*7\r\r\n\x1b[J\x1b[?25h42\r\n");
        feed(&mut emu, &mut t, drawn(">>> ").as_bytes());
        text.push_str(&t.read(emu.tail(&t).as_deref(), 1000).text);
        assert_eq!(text, ">>> 6*7\n42\n>>> ", "read before: {read_before}");
        assert!(settled(&t).is_empty(), "{:?}", settled(&t));
        assert_eq!(rows(&emu)[..3], [">>> 6*7", "42", ">>>"]);
    }
}

/// Clearing a blank primary screen settles no empty line (alacritty scrolls one blank
/// row into the history); a screen with text settles its rows down to the last one
/// with text, blank rows between included.
#[test]
fn clearing_a_blank_screen_settles_nothing() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[2J\x1b[H\x1b[2J\x1b[?2J\x1bc\x1b[2Jx\r\n\r\ny\x1b[2J");
    let lines = settled(&t);
    assert_eq!(lines, ["x", "", "y"]);
}

/// A line soft-wrapped into a row erased since (a progress bar wider than the terminal,
/// removed with `CR EL`) ends where the screen is cleared (`clear`, `ED 2` alone, RIS):
/// what is written on the cleared screen is a line of its own, whether the line's first
/// rows are still on the screen or scrolled off before.
#[test]
fn a_clear_ends_a_line_wrapped_into_an_erased_row() {
    for clear in ["\x1b[H\x1b[2J\x1b[3J", "\x1b[2J\x1b[H", "\x1bc"] {
        for (rows, before) in [(2, ""), (4, "a\r\n"), (4, "")] {
            let mut emu = emulator(10, rows);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            let input = format!("{before}0123456789abc\r\x1b[K\n{clear}$ ls\r\nx\r\n$ ");
            feed(&mut emu, &mut t, input.as_bytes());
            let (text, _) = t.retained(emu.tail(&t).as_deref(), 1 << 20);
            assert_eq!(text, format!("{before}0123456789\n$ ls\nx\n$ ").replace('\r', ""));
        }
    }
}

/// RIS wipes both screens and the history: what the primary screen showed is settled
/// first, from the primary screen and from the alternate one (the primary's text
/// only), in any split of the stream.
#[test]
fn reset_settles_the_primary_screen_first() {
    for input in [&b"a\r\nb\r\n\x1bcc"[..], b"a\r\nb\r\n\x1b[?1049hfull\x1bcc"] {
        for chunk in 1..input.len() {
            let mut emu = emulator(20, 5);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            for piece in input.chunks(chunk) {
                feed(&mut emu, &mut t, piece);
            }
            let lines = settled(&t);
            assert_eq!(lines, ["a", "b"], "{input:?} in chunks of {chunk}");
            assert_eq!(emu.screen().lines[0], "c");
            assert!(!emu.alternate());
        }
    }
}

/// Lines the same slice scrolled off the primary screen before switching to the
/// alternate one are settled then, not when the alternate screen is left.
#[test]
fn lines_scrolled_off_before_the_alternate_screen_settle_before_it() {
    let mut emu = emulator(20, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"l1\r\nl2\r\nl3\r\nl4\r\nl5\x1b[?1049h\x1b[Hfull");
    let lines = settled(&t);
    assert_eq!(lines, ["l1", "l2"]);
    // Back on the primary screen, the next line scrolls `l3` off after them.
    feed(&mut emu, &mut t, b"\x1b[?1049l\r\n");
    let lines = settled(&t);
    assert_eq!(lines, ["l1", "l2", "l3"]);
    assert_eq!(emu.tail(&t).unwrap(), ["l4", "l5", ""]);
}

/// A line with nothing but blanks before the cursor reads as empty: fish's continuation row
/// (`begin` submitted: the cursor moved right to the indentation, nothing written) was read
/// as a line of blanks, and when fish drew the row again less indented (`end`) that read was
/// rewritten. The text typed there is read with its indentation, as a continuation; the
/// cursor's offset still counts the blanks, and a prompt's own trailing blank is kept.
#[test]
fn a_line_of_nothing_but_blanks_before_the_cursor_reads_as_empty() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"> begin\r\n\x1b[6C");
    assert_eq!(emu.tail(&t).unwrap(), ["> begin", ""]);
    assert_eq!(emu.cursor_position(&t), (1, 6));
    assert_eq!(t.read(emu.tail(&t).as_deref(), 1000).text, "> begin\n");
    feed(&mut emu, &mut t, b"echo hi\r\n\x1b[6C");
    let out = t.read(emu.tail(&t).as_deref(), 1000);
    assert_eq!((out.text.as_str(), out.rewritten), ("      echo hi\n", false));
    feed(&mut emu, &mut t, b"\r\x1b[4Cend");
    let out = t.read(emu.tail(&t).as_deref(), 1000);
    assert_eq!((out.text.as_str(), out.rewritten), ("    end", false));
    feed(&mut emu, &mut t, b"\r\n$ ");
    assert_eq!(t.read(emu.tail(&t).as_deref(), 1000).text, "\n$ ");
}

/// Mode 1049 reset on the primary screen right after it came back from the alternate one,
/// the cursor moved down over blank rows only: the cursor goes back to where the primary
/// screen came back, as xterm's restore puts it. ncurses' `endwin` run twice (aspell's
/// `check` leaving) moves to the last row and resets 1049 again, and the shell's prompt came
/// at the bottom after the rows between, read as blank lines (16 of them on 20 rows). A
/// program that drew on the primary screen since (dialog) keeps the cursor where it is.
#[test]
fn a_second_reset_of_the_alternate_screen_over_blank_rows_goes_back_where_it_left() {
    let endwin = "\x1b[20;1H\x1b[?1049l\x1b[23;0;0t\r\x1b[?1l\x1b>";
    let aspell = format!("\x1b[?1049h\x1b[22;0;0t\x1b[H\x1b[2Jhelo\x1b[20;1H? {endwin}{endwin}");
    let mut emu = emulator(20, 20);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, format!("$ echo a\r\na\r\n$ aspell\r\n{aspell}$ ").as_bytes());
    assert_eq!(emu.tail(&t).unwrap(), ["$ echo a", "a", "$ aspell", "$ "]);
    assert_eq!(emu.screen().cursor.row, 3);
    // Another reset goes nowhere: the cursor left the alternate screen once.
    feed(&mut emu, &mut t, b"\r\n\x1b[9;1H\x1b[?1049l");
    assert_eq!(emu.screen().cursor.row, 8);
    // Text drawn on the primary screen since (dialog's box): the cursor stays.
    let mut emu = emulator(20, 20);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let dialog = "\x1b[?1049h\x1b[?1049l\x1b[5;3H+--box--+\x1b[20;1H\x1b[?1049l";
    feed(&mut emu, &mut t, format!("$ dialog\r\n{dialog}").as_bytes());
    assert_eq!(emu.screen().cursor.row, 19);
}

#[test]
fn a_blank_in_the_last_column_of_a_wrapped_row_is_kept() {
    let mut emu = emulator(10, 6);
    let mut t = Transcript::new(100, 1 << 20, 1 << 20);
    // A space at the wrap separates two words; a wide character that did not fit in the
    // last column leaves a spacer that is no text.
    feed(&mut emu, &mut t, "012345678 abc\r\n12345678 中x\r\n123456789中\r\n".as_bytes());
    let tail = emu.tail(&t).unwrap();
    let lines: Vec<&str> =
        (0..t.end()).filter_map(|n| t.line(n)).chain(tail.iter().map(String::as_str)).collect();
    assert_eq!(lines, ["012345678 abc", "12345678 中x", "123456789中", ""]);
    // The screen's rows stay trimmed.
    assert_eq!(emu.screen().lines[0..2], ["abc", "12345678"]);
}

#[test]
fn soft_wraps_join_and_wide_chars_appear_once() {
    let mut emu = emulator(4, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, "abcdefgh\r\n中文e\u{301}\r\n\r\n\r\n".as_bytes());
    assert_eq!(t.line(0), Some("abcdefgh"));
    assert_eq!(t.line(1), Some("中文e\u{301}"));
}

/// Rows that begin in plain ASCII (shorter and longer than a block of eight cells) and go
/// on with what is not: tabs, wide characters,
/// combining marks, a hyperlink (an extra part without marks), trailing blanks and a
/// coloured blank that is not text.
#[test]
fn rows_mixing_plain_ascii_and_the_rest_keep_their_text() {
    let mut emu = emulator(30, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let rows = [
        "plain ascii only   \r\n",
        "ab\tc\r\n",
        "abc中文de\u{301}f\r\n",
        "0123456789abcdefg中x\r\n",
        "x\x1b]8;;http://e\x07link\x1b]8;;\x07 y\r\n",
        "end\x1b[44m   \x1b[0m\r\n",
        "\r\n\r\n\r\n",
    ];
    feed(&mut emu, &mut t, rows.concat().as_bytes());
    let lines: Vec<_> = (0..6).map(|n| t.line(n).unwrap_or("?").to_owned()).collect();
    let expected = [
        "plain ascii only",
        "ab      c",
        "abc中文de\u{301}f",
        "0123456789abcdefg中x",
        "xlink y",
        "end",
    ];
    assert_eq!(lines, expected);
}

/// Rows are taken a byte a cell only while no wide character or combining mark can be on
/// the grid: after one, until a screenful of rows has scrolled by and a look at the screen
/// finds none; a wide character outside the scrolling region keeps the general path.
#[test]
fn rows_are_taken_a_byte_a_cell_only_while_the_grid_holds_no_wide_or_marked_cell() {
    let mut emu = emulator(10, 4);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    assert!(!emu.wide_or_marked);
    feed(&mut emu, &mut t, "中e\u{301}\tx\r\n".as_bytes());
    assert!(emu.wide_or_marked);
    feed(&mut emu, &mut t, b"a\r\nb\r\nc\r\nd\r\ne\r\nf\r\n");
    assert!(!emu.wide_or_marked, "a screenful later the screen holds none");
    let lines = settled(&t);
    assert_eq!(lines, ["中e\u{301}     x", "a", "b", "c"]);
    // A wide character below a scrolling region stays while the region scrolls.
    feed(&mut emu, &mut t, "\x1b[4;1H中\x1b[1;3r\x1b[H".as_bytes());
    let lines: String = (0..12).map(|n| format!("r{n}\r\n")).collect();
    feed(&mut emu, &mut t, lines.as_bytes());
    assert!(emu.wide_or_marked, "the look found it");
    assert_eq!(emu.screen().lines[3], "中");
    // DEC line drawing and repetitions print ASCII bytes as other characters.
    feed(&mut emu, &mut t, b"\x1b[r\x1b[2J\x1b[Hf\r\ng\r\nh\r\ni\r\nj\r\n");
    assert!(!emu.wide_or_marked);
    feed(&mut emu, &mut t, b"\x1b(0lqk\x1b(B\r\nx\x1b[3b\r\n\r\n\r\n\r\n");
    let end = t.end();
    let lines: Vec<_> = (end - 3..end).filter_map(|n| t.line(n)).collect();
    assert_eq!(lines, ["j", "┌─┐", "xxxx"]);
    // Blanks with an underline colour or a hyperlink are blanks: trimmed at a row's end.
    feed(
        &mut emu,
        &mut t,
        b"ab\x1b[58;5;1m   \x1b[0m\r\ncd\x1b]8;;http://x\x1b\\  \x1b]8;;\x1b\\\r\n",
    );
    feed(&mut emu, &mut t, b"\r\n\r\n\r\n\r\n");
    let end = t.end();
    let lines: Vec<_> = (end - 8..end).filter_map(|n| t.line(n)).collect();
    assert!(lines.windows(2).any(|pair| pair == ["ab", "cd"]), "{lines:?}");
    // A repetition of a wide character printed before a look cleared the flag (line
    // feeds print nothing), short, or long enough to run in pieces.
    for count in [3, 20_000] {
        feed(&mut emu, &mut t, "中\r\n\r\n\r\n\r\n\r\n".as_bytes());
        assert!(!emu.wide_or_marked);
        feed(&mut emu, &mut t, format!("\x1b[{count}b\r\n\r\n\r\n\r\n").as_bytes());
        let end = t.end();
        assert!(t.line(end - 1).is_some_and(|line| line.starts_with("中中")), "{count}");
    }
}

/// Random mixes of plain text, wide characters, combining marks, tabs, line drawing,
/// repetitions, scrolling regions, the alternate screen and resizes: every row the drain
/// takes a byte a cell is checked against the general path (an assertion in
/// `drain_history` in builds with debug assertions, as tests are).
#[test]
fn the_byte_a_cell_path_agrees_with_the_general_one() {
    // Bytes that are ASCII (line drawing prints them as other characters, tabs are
    // kept as tabs), and the rarer ones that can put wide or marked cells on the grid.
    const ASCII: [&str; 17] = [
        // Blanks with an extra part but no marks: an underline colour, a hyperlink.
        "\x1b[58;5;1m  \x1b[0m",
        "\x1b]8;;http://x\x1b\\  \x1b]8;;\x1b\\",
        "word ",
        "x",
        "\r\n",
        "\r\n",
        "\n",
        "\t",
        "\x1b(0lqk\x1b(B",
        "\x1b[2b",
        "\x1b[H",
        "\x1b[5;3H",
        "\x1b[2J",
        "\x1b[K",
        "\x1b[2@",
        "\x1b[3P",
        "0123456789abc",
    ];
    const OTHER: [&str; 3] = ["中", "e\u{301}", "ab中"];
    // Scrolling regions and the alternate screen, which stop or hold the drain.
    const MODES: [&str; 5] = ["\x1b[2;4r", "\x1b[1;3r", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l"];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % below as u64) as usize
    };
    for _ in 0..150 {
        let mut emu = emulator(12, 5);
        let mut t = Transcript::new(100_000, 1 << 30, 1 << 20);
        for _ in 0..600 {
            match next(100) {
                0 => emu.resize(8 + next(10) as u16, 3 + next(5) as u16, next(2) == 0, &mut t),
                1..=3 => _ = feed(&mut emu, &mut t, OTHER[next(OTHER.len())].as_bytes()),
                4..=6 => _ = feed(&mut emu, &mut t, MODES[next(MODES.len())].as_bytes()),
                _ => _ = feed(&mut emu, &mut t, ASCII[next(ASCII.len())].as_bytes()),
            }
        }
    }
}

#[test]
fn answers_queries() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    assert_eq!(feed(&mut emu, &mut t, b"ab\x1b[6n"), b"\x1b[1;3R");
    assert_eq!(feed(&mut emu, &mut t, b"\x1b[c"), b"\x1b[?6c");
    assert_eq!(feed(&mut emu, &mut t, b"\x1b]11;?\x07"), b"\x1b]11;rgb:0000/0000/0000\x07");
    assert_eq!(feed(&mut emu, &mut t, b"\x1b[18t"), b"\x1b[8;24;80t");
    emu.set_clipboard("hi".into()).unwrap();
    assert_eq!(feed(&mut emu, &mut t, b"\x1b]52;c;?\x07"), b"\x1b]52;c;aGk=\x07");
}

#[test]
fn replies_past_the_room_are_dropped_before_they_are_made() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    emu.set_clipboard("x".repeat(3000)).unwrap();
    let mut turn = Turn { budget: usize::MAX, reply_room: 1000, ..Turn::default() };
    emu.feed(b"\x1b]52;c;?\x07\x1b[6n\x1b]52;c;?\x07", &mut t, &mut turn);
    // The clipboard's answers (4,008 bytes each) do not fit; the cursor report does.
    assert_eq!(turn.replies, b"\x1b[1;1R");
    assert_eq!(turn.replies_dropped, 2);
    // An answer that fits is made whole.
    emu.set_clipboard("hi".into()).unwrap();
    emu.feed(b"\x1b]52;c;?\x07", &mut t, &mut turn);
    assert_eq!(turn.replies, b"\x1b[1;1R\x1b]52;c;aGk=\x07");
    assert_eq!(turn.clipboard_answered, 12);
    // Sized exactly (7 bytes, the base64 and the query's terminator): one that fills the
    // room whole goes, for either terminator.
    for (query, answer) in [
        (&b"\x1b]52;c;?\x07"[..], &b"\x1b]52;c;aGk=\x07"[..]),
        (b"\x1b]52;c;?\x1b\\", b"\x1b]52;c;aGk=\x1b\\"),
    ] {
        let mut full = Turn { budget: usize::MAX, reply_room: answer.len(), ..Turn::default() };
        emu.feed(query, &mut t, &mut full);
        assert_eq!((full.replies.as_slice(), full.replies_dropped), (answer, 0));
    }
}

/// A turn's clipboard answers are held to the room the reactor gives it (their rate): a
/// flood of 9-byte queries for a megabyte is not answered in megabytes, while small
/// answers all go.
#[test]
fn clipboard_answers_are_held_to_their_room() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    emu.set_clipboard("hi".into()).unwrap();
    let mut turn = Turn { budget: usize::MAX, clipboard_room: 20, ..Turn::default() };
    emu.feed(b"\x1b]52;c;?\x07\x1b]52;c;?\x07", &mut t, &mut turn);
    assert_eq!(turn.replies, b"\x1b]52;c;aGk=\x07", "12 bytes fit in 20, 24 do not");
    assert_eq!((turn.replies_dropped, turn.clipboard_answered), (1, 12));
    let mut held = Turn { budget: usize::MAX, clipboard_room: 0, ..Turn::default() };
    emu.feed(b"\x1b]52;c;?\x07\x1b[6n", &mut t, &mut held);
    assert_eq!(held.replies, b"\x1b[1;1R", "other answers still go");
    assert_eq!((held.replies_dropped, held.clipboard_answered), (1, 0));
    let mut open = Turn { budget: usize::MAX, ..Turn::default() };
    emu.feed(b"\x1b]52;c;?\x07\x1b]52;c;?\x07", &mut t, &mut open);
    assert_eq!(open.clipboard_answered, 24, "small answers all go");
    // The first answer of a turn with room goes whatever its size (the pause after it
    // grows with it): a large clipboard can always be read back.
    let mut small = Turn { budget: usize::MAX, clipboard_room: 5, ..Turn::default() };
    emu.feed(b"\x1b]52;c;?\x07\x1b]52;c;?\x07", &mut t, &mut small);
    assert_eq!((small.clipboard_answered, small.replies_dropped), (12, 1));
}

#[test]
fn backward_tabs_are_clamped_to_the_cursor_column_and_counted() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[21G\x1b[2Z");
    assert_eq!(cursor(&emu), (0, 8));
    feed(&mut emu, &mut t, b"\x1b[41G\x1b[65535Z");
    assert_eq!(cursor(&emu), (0, 0));
    // No tab stop left: the cursor stays, whatever the count.
    feed(&mut emu, &mut t, b"\x1b[3g\x1b[41G\x1b[65535Z");
    assert_eq!(cursor(&emu), (0, 40));
    // Counted in work: a whole row per count up to the width, not 8 bytes.
    let mut turn = Turn { budget: 10_000, ..Turn::default() };
    emu.feed(&b"\x1b[80G\x1b[65535Z".repeat(10), &mut t, &mut turn);
    assert!(emu.has_pending(), "ten of them cost 10 × 80 × 80 cells");
}

/// A shell-integration mark (OSC 133, 9 bytes) finds its place in the transcript from the
/// screen's text down to the cursor, so it counts a screen of work: a flood of them on a
/// full 1000x500 screen built the screen's text for every 9 bytes, 1,800 times a turn
/// (a neighbour's keystroke waited for minutes beside it).
#[test]
fn shell_integration_marks_count_a_screen_of_work() {
    let mut emu = emulator(1000, 500);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"$ ");
    let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
    emu.feed(&b"\x1b]133;A\x07".repeat(1000), &mut t, &mut turn);
    assert!(emu.has_pending(), "a thousand marks cost a thousand screens");
    assert_eq!(turn.marks.len(), 1);
    while emu.has_pending() {
        turn.budget = 16 << 10;
        emu.resume(&mut t, &mut turn);
    }
    assert_eq!(turn.marks.len(), 1000, "every mark is still taken");
    // A mark a session's key does not carry is not placed: it costs its bytes.
    let mut keyed = emulator(1000, 500);
    keyed.require_mark_key(MarkKey::from_digits(*b"0123456789abcdef"));
    let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
    keyed.feed(&b"\x1b]133;A\x07".repeat(1000), &mut t, &mut turn);
    assert!(!keyed.has_pending());
}

/// A line feed at the bottom of a scrolling region other than the whole screen (DECSTBM)
/// moves every row (alacritty swaps the region's rows one by one, or the rows below it),
/// so it counts the screen's height: at 1000x500, a flood of `y\n` in such a region made
/// a neighbour's keystroke wait ten to fifteen times longer than beside a plain flood.
#[test]
fn line_feeds_in_a_scrolling_region_count_the_screens_height() {
    let mut emu = emulator(1000, 500);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let flood = b"y\r\n".repeat(400);
    for (setup, counted) in [
        ("\x1b[2;499r", true),
        ("\x1b[r", false),
        ("\x1b[1;499r", true),
        ("\x1b[2;499r\x1bc", false),
    ] {
        feed(&mut emu, &mut t, format!("{setup}\x1b[2J\x1b[2H").as_bytes());
        let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
        emu.feed(&flood, &mut t, &mut turn);
        assert_eq!(emu.has_pending(), counted, "{setup:?}");
        while emu.has_pending() {
            turn.budget = 16 << 10;
            emu.resume(&mut t, &mut turn);
        }
        assert_eq!(emu.screen().lines[400], "y", "{setup:?}");
    }
}

/// A line feed inside an escape or control sequence (vte carries it out, and the sequence
/// goes on) counts a line, as one outside does: 5,000 of them between two drains scrolled
/// past alacritty's history, and the lines before them were lost.
#[test]
fn line_feeds_inside_sequences_lose_no_line() {
    for inside in ["\x1b[", "\x1b", "\x1b[1;", "\x1b#", "\x1b[?"] {
        let mut emu = emulator(10, 5);
        let mut t = Transcript::new(100_000, 64 << 20, 1 << 20);
        let flood = format!("{inside}\n").repeat(5000);
        feed(&mut emu, &mut t, format!("A\r\n{flood}\x18B\r\n").as_bytes());
        let lines = settled(&t);
        assert_eq!(lines[0], "A", "{inside:?}");
        assert_eq!(lines.len(), 5002 - 4, "{inside:?}: every line kept but the screen's");
    }
}

#[test]
fn text_in_insert_mode_is_counted_a_row_a_character() {
    let mut emu = emulator(1000, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
    // 100 characters shift 100 rows' worth of cells: more than one turn's work.
    emu.feed(&[&b"\x1b[4h"[..], &[b'x'; 100]].concat(), &mut t, &mut turn);
    assert!(emu.has_pending());
    while emu.has_pending() {
        turn.budget = 16 << 10;
        emu.resume(&mut t, &mut turn);
    }
    assert_eq!(emu.screen().lines[0], "x".repeat(100));
    // Inserted, not overwritten; and after RIS, text costs a byte again.
    feed(&mut emu, &mut t, b"\rab\x1bcxyz");
    let mut turn = Turn { budget: 100, ..Turn::default() };
    emu.feed(&[b'y'; 50], &mut t, &mut turn);
    assert!(!emu.has_pending());
}

#[test]
fn style_runs() {
    let mut emu = emulator(20, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, "a\x1b[1;31mbold\x1b[0m \x1b[44;38;5;200m中x\x1b[0m".as_bytes());
    let styled = emu.styled_screen();
    let lines: Vec<String> = styled.to_string().lines().map(str::to_owned).collect();
    let styles = &lines[lines.iter().position(|l| l == "styles:").unwrap() + 1..];
    assert_eq!(
        styles,
        ["  row 0 cols 1-4: fg=red bold", "  row 0 cols 6-8: fg=color(200) bg=blue"]
    );
}

/// A logical line longer than a read (`max_read_bytes`) is split the same way on the screen
/// as when it settles: read while on the screen, in any split of the reads, it is not
/// returned again as rewritten once it scrolls off; the cursor's position is on the line
/// where it settles.
#[test]
fn a_line_longer_than_a_read_keeps_its_split_from_the_screen_to_the_transcript() {
    let long: String = (0..100).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    for max in [16, 64, 99, 100] {
        for read_size in [7, 50, 1000] {
            let mut emu = emulator(10, 3);
            let mut t = Transcript::new(1000, 1 << 20, max);
            let mut text = String::new();
            let mut read = |emu: &Emulator, t: &mut Transcript| loop {
                let out = t.read(emu.tail(t).as_deref(), read_size);
                assert!(!out.rewritten, "{max}/{read_size}: {out:?}");
                text.push_str(&out.text);
                if !out.truncated {
                    break;
                }
            };
            feed(&mut emu, &mut t, &long.as_bytes()[..95]);
            read(&emu, &mut t);
            feed(&mut emu, &mut t, &long.as_bytes()[95..]);
            let at = emu.cursor_position(&t);
            read(&emu, &mut t);
            feed(&mut emu, &mut t, b"\r\nx\r\ny\r\nz");
            read(&emu, &mut t);
            let pieces: Vec<&str> =
                long.as_bytes().chunks(max).map(|c| std::str::from_utf8(c).unwrap()).collect();
            let expected = format!("{}\nx\ny\nz", pieces.join("\n"));
            assert_eq!(text, expected, "{max}/{read_size}");
            let last = pieces.len() - 1;
            assert_eq!(at, (last as u64, pieces[last].len()), "{max}/{read_size}");
            assert_eq!(t.line(last as u64), Some(pieces[last]));
        }
    }
}

/// An erase above the cursor (`CSI 1 J`, and the selective `CSI ? 1 J`) clears every row
/// above the cursor's, the first one too when the cursor is on the second (alacritty kept
/// it), so it never reaches the transcript.
#[test]
fn an_erase_above_the_cursor_clears_the_first_row_from_the_second() {
    for (erase, row) in [("\x1b[1J", 1), ("\x1b[?1J", 1), ("\x1b[1J", 2), ("\x1b[1J", 0)] {
        let mut emu = emulator(10, 4);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let rows = ["aaaa", "bbbb", "cccc"];
        let before = rows[..=row].join("\r\n");
        // The cursor on the row's last character: all but it is erased.
        feed(&mut emu, &mut t, format!("{before}\x1b[2D{erase}").as_bytes());
        let left = format!("   {}", &rows[row][..1]);
        let mut expected = vec![""; row];
        expected.push(&left);
        let mut screen = expected.clone();
        screen.resize(4, "");
        assert_eq!(emu.screen().lines, screen, "{erase:?} on row {row}");
        feed(&mut emu, &mut t, b"\r\n\r\n\r\n\r\n\r\n");
        assert_eq!(settled(&t)[..=row], expected, "{erase:?} on row {row}");
    }
}

/// zsh's prompt after output that did not end its line (as zsh 5.9 writes it: the
/// end-of-line mark, spaces up to one column short of a row, which wrap onto the next
/// row, then `CR SP CR` and `ED 0` before the prompt): the output's line and the prompt
/// are two lines, on the screen's rows and with the output's rows already settled alike.
#[test]
fn an_erase_down_from_a_rows_start_ends_the_soft_wrap_into_it() {
    let sp = |cols: usize| {
        format!(
            "\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m{}\r \r\r\x1b[0m\x1b[27m\x1b[24m\x1b[J$ \x1b[K",
            " ".repeat(cols - 1)
        )
    };
    for (rows, output) in
        [(5, "foo"), (5, "0123456789012345foo"), (2, "0123456789012345foo"), (1, "foo")]
    {
        let mut emu = emulator(10, rows);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let first = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(first.text, "");
        feed(&mut emu, &mut t, format!("$ printf x\r\n{output}{}", sp(10)).as_bytes());
        feed(&mut emu, &mut t, b"echo bar\r\nbar\r\n$ ");
        let out = t.read(emu.tail(&t).as_deref(), 1000);
        let expected = format!("$ printf x\n{output}%\n$ echo bar\nbar\n$ ");
        assert_eq!(out.text, expected, "{output} on {rows} rows");
    }
    // An erase from a row's start keeps the wrap (a line editor's shortened line, typed
    // on); so does an erase down from elsewhere in the row.
    for (erase, line) in
        [("\x1b[K", "$ echo 01289"), ("\x1b[2K", "$ echo 01289"), ("\x1b[C\x1b[J", "$ echo 012389")]
    {
        let mut emu = emulator(10, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, format!("$ echo 01234567\r{erase}89").as_bytes());
        let out = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(out.text, line, "{erase:?}");
    }
}

/// fish's prompt after output that did not end its line (as fish 3.6 writes it: its dim
/// end-of-line mark `⏎`, spaces up to one column short of a row, which wrap onto the next
/// row, then `CR`, the mark and a space, `CR` and `EL` before the prompt): the output's line
/// and the prompt are two lines, on the screen's rows and with the output's rows already
/// settled alike, whether the mark ends the row or blanks follow it. The wrap joined them
/// (`foo⏎`, the row's blanks and `> echo bar`).
#[test]
fn an_erase_of_a_row_after_a_wrapped_blank_ends_the_soft_wrap_into_it() {
    let sp = |cols: usize, erase: &str| {
        format!("\x1b[2m\u{23ce}\x1b(B\x1b[m{}\r\u{23ce} \r{erase}> ", " ".repeat(cols - 1))
    };
    let outputs = ["foo", "012345678", "01234567", "0123456789012345foo"];
    for (rows, output, erase) in outputs
        .iter()
        .flat_map(|output| [(5, *output), (2, *output), (1, *output)])
        .flat_map(|(rows, output)| [(rows, output, "\x1b[K"), (rows, output, "\x1b[2K")])
    {
        let mut emu = emulator(10, rows);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let first = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(first.text, "");
        feed(&mut emu, &mut t, format!("> printf x\r\n{output}{}", sp(10, erase)).as_bytes());
        feed(&mut emu, &mut t, b"echo bar\r\nbar\r\n> ");
        let out = t.read(emu.tail(&t).as_deref(), 1000);
        let expected = format!("> printf x\n{output}\u{23ce}\n> echo bar\nbar\n> ");
        assert_eq!(out.text, expected, "{output} on {rows} rows, {erase:?}");
    }
}

/// fish's prompt after output exactly as wide as the terminal, or as a whole number of its
/// rows (the cursor waits to wrap on the last column): fish's mark wraps onto the next row,
/// its spaces fill that row, and `CR`, the mark and a space, `CR` and `EL` erase it before the
/// prompt. The output and the prompt are two lines, the output's rows one line as they were
/// wrapped, on the screen's rows and with the output's rows already settled alike; a line
/// ended before fish's mark (`cat` of a line filling two rows) stays one line. The wrap
/// joined the zeros and the prompt (the row above ends in text, not in a blank).
#[test]
fn an_erase_of_a_row_holding_only_fishs_mark_ends_the_soft_wrap_into_it() {
    // (Each of fish's marks: `⏎`, `¶` on WSL, `~` where the locale cannot show them.)
    let sp = |cols: usize, erase: &str, mark: char| {
        format!("\x1b[2m{mark}\x1b(B\x1b[m{}\r{mark} \r{erase}> ", " ".repeat(cols - 1))
    };
    let outputs = ["0123456789", "01234567890123456789", "0123456789\r\n0123456789\r\n"];
    for ((rows, output, erase), mark) in outputs
        .iter()
        .flat_map(|output| [(5, *output), (2, *output), (1, *output)])
        .flat_map(|(rows, output)| [(rows, output, "\x1b[K"), (rows, output, "\x1b[2K")])
        .flat_map(|case| ['\u{23ce}', '\u{b6}', '~'].map(|mark| (case, mark)))
    {
        let mut emu = emulator(10, rows);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let first = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(first.text, "");
        feed(&mut emu, &mut t, format!("> printf x\r\n{output}{}", sp(10, erase, mark)).as_bytes());
        feed(&mut emu, &mut t, b"echo bar\r\nbar\r\n> ");
        let out = t.read(emu.tail(&t).as_deref(), 1000);
        let lines = output.trim_end().replace("\r\n", "\n");
        let expected = format!("> printf x\n{lines}\n> echo bar\nbar\n> ");
        assert_eq!(out.text, expected, "{output:?} on {rows} rows, {erase:?}, {mark}");
    }
}

/// zsh's line editor forces a wrap at the last column (a space past it, then `CR EL` on the
/// next row) and goes on writing the command there: the command stays one line when the
/// character in the last column is a blank (a space typed there), on the screen's rows and
/// with its first row settled. The rule for fish's end-of-line mark took any blank there for
/// fish's and split the command (`$ echo abcdefghijkl` and `more`).
#[test]
fn a_forced_wrap_after_a_blank_in_the_last_column_keeps_the_line_whole() {
    for rows in [5, 2, 1] {
        let mut emu = emulator(20, rows);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"$ echo abcdefghijkl  \r\x1b[Kmore\r\n");
        feed(&mut emu, &mut t, b"abcdefghijkl more\r\n$ ");
        let out = t.read(emu.tail(&t).as_deref(), 1000);
        assert_eq!(out.text, "$ echo abcdefghijkl more\nabcdefghijkl more\n$ ", "{rows} rows");
    }
}

/// The screen's logical lines cost what the screen holds: a line soft-wrapped over every
/// row was checked as text again for each row added to it (500 rows of a character and
/// four marks: 1.1 GB checked for a 4.5 MB screen; with sixteen, two seconds a read).
#[test]
fn the_tail_of_a_line_wrapped_over_the_whole_screen_costs_the_screen() {
    let mut emu = emulator(1000, 500);
    let mut t = Transcript::new(1000, 1 << 20, 64 << 20);
    let cell = "a\u{301}\u{301}\u{301}\u{301}";
    feed(&mut emu, &mut t, cell.repeat(1000 * 499 + 10).as_bytes());
    let time = |f: &dyn Fn() -> usize| {
        let started = std::time::Instant::now();
        let bytes = (0..3).map(|_| f()).sum::<usize>();
        (started.elapsed(), bytes)
    };
    let (screen, on_screen) = time(&|| emu.screen().lines.iter().map(String::len).sum());
    let (tail, in_tail) = time(&|| emu.tail(&t).unwrap().iter().map(String::len).sum());
    assert_eq!(in_tail, on_screen);
    // 15 times the screen's time before (debug build), about as much after.
    let bound = screen * 5 + std::time::Duration::from_millis(50);
    assert!(tail < bound, "the tail took {tail:?}, the screen {screen:?}");
}

#[test]
fn tail_pads_prompt_to_cursor() {
    let mut emu = emulator(20, 5);
    let t = Transcript::new(1000, 1 << 20, 1 << 20);
    let mut t2 = t;
    feed(&mut emu, &mut t2, b"out\r\n$ ");
    assert_eq!(emu.tail(&t2).unwrap(), vec!["out", "$ "]);
}

/// The retained transcript: settled lines and the tail.
fn retained(emu: &Emulator, t: &Transcript) -> String {
    t.retained(emu.tail(t).as_deref(), 1 << 20).0
}

/// Lines scrolled off the top of a scrolling region below the screen's top (a status line
/// above a scrolling log) are settled in order, as lines scrolled off the screen are: by
/// line feeds (LF, VT, FF, IND, NEL), automatic wraps on the region's last row, `CSI S`
/// and `CSI M` on its first row; a line soft-wrapped over rows of the region is one line,
/// on the screen too while part of it is scrolled off; in any split of the stream. They
/// were lost (alacritty moves only rows scrolled off the screen's top into its history).
#[test]
fn lines_scrolled_off_a_region_below_the_top_are_settled() {
    let status = "\x1b[3;6r\x1b[1;1Hstatus\x1b[3;1H";
    let cases: [(String, &[&str], &str); 6] = [
            (
                format!("{status}l0\r\nl1\r\nl2\r\x0bl3\r\x0cl4\r\x1bDl5\x1bEl6\r\nl7"),
                &["l0", "l1", "l2", "l3"],
                "l4\nl5\nl6\nl7",
            ),
            (
                format!("{status}first\r\n0123456789abcdefghij0123\r\nshort\r\n\r\n\r\nend"),
                &["first", "0123456789abcdefghij0123"],
                "short\n\n\nend",
            ),
            (
                // The line's first row scrolled off; its second is the region's first row.
                format!("{status}a\r\nb\r\nc\r\nd\r\n0123456789abcdefghij0123\r\n\r\n\r\n"),
                &["a", "b", "c", "d"],
                "0123456789abcdefghij0123\n\n\n",
            ),
            (format!("{status}a\r\nb\r\nc\x1b[2S"), &["a", "b"], "c\n\n"),
            (
                format!("{status}a\r\nb\r\nc\x1b[3;1H\x1b[2M\x1b[5;1Hd\x1b[4;1H\x1b[M"),
                &["a", "b"],
                "c\nd",
            ),
            // A region from the top, and one on the alternate screen: as before.
            (
                "\x1b[1;4r\x1b[4;1Ha\r\nb\r\nc\r\nd\r\ne\x1b[?1049h\x1b[3;6r\x1b[6;1Hx\r\ny\r\nz\r\nw\r\n"
                    .to_owned(),
                &["", "", "", "a"],
                "",
            ),
        ];
    for (input, settled_lines, tail) in &cases {
        for chunk in [input.len(), 1, 3, 7] {
            let mut emu = emulator(20, 6);
            let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
            for piece in input.as_bytes().chunks(chunk) {
                feed(&mut emu, &mut t, piece);
            }
            assert_eq!(settled(&t), *settled_lines, "{input:?} in pieces of {chunk}");
            let tail_text = emu.tail(&t).map(|lines| lines.join("\n")).unwrap_or_default();
            assert_eq!(tail_text, *tail, "{input:?} in pieces of {chunk}");
        }
    }
    // A logical line the region's scrolling cut reads whole from the screen, and settles
    // whole.
    let mut emu = emulator(10, 6);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[3;6r\x1b[1;1Htop\x1b[3;1Ha\r\nb\r\nc\r\nd\r\n0123456789");
    feed(&mut emu, &mut t, b"abcdefghij01\r\n");
    assert_eq!(settled(&t), ["a", "b", "c", "d"]);
    assert_eq!(emu.tail(&t).unwrap(), ["0123456789abcdefghij01", ""]);
    feed(&mut emu, &mut t, b"\r\n");
    assert_eq!(settled(&t), ["a", "b", "c", "d"]);
    assert_eq!(emu.tail(&t).unwrap(), ["0123456789abcdefghij01", "", ""]);
    feed(&mut emu, &mut t, b"\r\n\r\n");
    assert_eq!(settled(&t), ["a", "b", "c", "d", "0123456789abcdefghij01"]);
    // The status line above the region joins the transcript at the end.
    assert_eq!(retained(&emu, &t), "a\nb\nc\nd\n0123456789abcdefghij01\n\n\n\n");
    emu.end();
    assert_eq!(retained(&emu, &t), "a\nb\nc\nd\n0123456789abcdefghij01\ntop\n\n\n\n\n");
    // The region reset, the whole screen scrolls: a line whose first row scrolled off the
    // region settles whole after the status line above it, as the tail shows it (it was
    // cut in two around the status line). So it does when the screen scrolls a row at a
    // time, and when it is cleared (`ED 2` scrolls it into the history whole).
    for (end, chunk) in [("\r\n\r\n\r\n\r\n", 100), ("\r\n\r\n\r\n\r\n", 1), ("\x1b[2J", 100)] {
        let mut emu = emulator(10, 4);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        let start = b"\x1b[2;4r\x1b[1;1Htop\x1b[2;1Ha\r\nb\r\n0123456789abc\r\n\r\n";
        feed(&mut emu, &mut t, start);
        assert_eq!(settled(&t), ["a", "b"]);
        assert_eq!(emu.tail(&t).unwrap(), ["0123456789abc", "", ""]);
        feed(&mut emu, &mut t, b"\x1b[r\x1b[4;1H");
        let tail = emu.tail(&t).unwrap();
        assert_eq!(tail, ["top", "0123456789abc", "", ""]);
        let _ = t.read(Some(&tail), 1000);
        for piece in end.as_bytes().chunks(chunk) {
            feed(&mut emu, &mut t, piece);
        }
        let out = t.read(emu.tail(&t).as_deref(), 1000);
        assert!(!out.rewritten, "{end:?} by {chunk}: {:?}", out.text);
        assert_eq!(settled(&t)[..4], ["a", "b", "top", "0123456789abc"], "{end:?} by {chunk}");
    }
    // Another region set over the row a line goes on on (its top above that row): the
    // rows above that row settle as lines of their own first, as the tail shows them (they
    // were joined to the line, `0123456789two` then `abc`).
    let mut emu = emulator(10, 6);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let input = b"\x1b[3;6r\x1b[3;1Ha\r\nb\r\nc\r\n0123456789abc\r\n\r\n\r\n";
    feed(&mut emu, &mut t, input);
    feed(&mut emu, &mut t, b"\x1b[2;6r\x1b[2;1Htwo\x1b[6;1H\r\n\r\n");
    assert_eq!(settled(&t), ["a", "b", "c", "two", "0123456789abc"]);
    // The status line above it wrapped too, and only its first row scrolls off: that row
    // ends its line there (cut, not lost: its rest is on the screen, a line of its own in
    // the tail too), and the line held aside goes on with its row.
    let mut emu = emulator(10, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let input = b"\x1b[3;5r\x1b[1;1Hstatus line\x1b[3;1Ha\r\nb\r\n0123456789abc\r\n\r\n";
    feed(&mut emu, &mut t, input);
    feed(&mut emu, &mut t, b"\x1b[r\x1b[5;1H\r\n");
    assert_eq!(settled(&t), ["a", "b", "status lin"]);
    assert_eq!(emu.tail(&t).unwrap(), ["e", "0123456789abc", "", "", ""]);
    feed(&mut emu, &mut t, b"\r\n\r\n");
    assert_eq!(settled(&t), ["a", "b", "status lin", "e", "0123456789abc"]);
}

/// A resize to the size the terminal already has changes nothing in alacritty (it keeps
/// its scrolling region): the lines scrolled off a region below the screen's top after
/// it are settled as before it (the region was forgotten, and every such line was lost).
#[test]
fn a_resize_to_the_same_size_keeps_settling_a_region() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[2;5r\x1b[1;1Hstatus\x1b[2;1Ha\r\nb\r\nc\r\nd\r\ne");
    emu.resize(20, 5, true, &mut t);
    emu.resize(20, 5, false, &mut t);
    feed(&mut emu, &mut t, b"\r\nf\r\ng\r\nh");
    assert_eq!(settled(&t), ["a", "b", "c", "d"]);
    assert_eq!(emu.tail(&t).unwrap(), ["e", "f", "g", "h"]);
    assert_eq!(rows(&emu), ["status", "e", "f", "g", "h"]);
}

/// Rows moved under the pending text of a line whose first row scrolled off a region (a
/// reverse index or `CSI T` scrolling down, lines inserted above it, after the region was
/// reset too): the text is no longer joined to whatever row comes to take its row's
/// place (`0123456789` was settled joined to `mid`, and `abc` alone).
#[test]
fn rows_moved_under_a_line_cut_by_a_region_join_no_other_line() {
    let start =
        b"\x1b[3;6r\x1b[1;1Htop\x1b[2;1Hmid\x1b[3;1Ha\r\nb\r\nc\r\n0123456789abc\r\n\r\n\r\n";
    for moves in [
        "\x1b[r\x1b[1;1H\x1bM",
        "\x1b[3;1H\x1b[L",
        "\x1b[T",
        "\x1b[3;1H\x1bM",
        "\x1b[2;6r\x1b[2;1H\x1b[L",
    ] {
        let mut emu = emulator(10, 6);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, start);
        assert_eq!(emu.tail(&t).unwrap(), ["0123456789abc", "", "", ""]);
        feed(&mut emu, &mut t, moves.as_bytes());
        feed(&mut emu, &mut t, "\x1b[r\x1b[6;1H".as_bytes());
        feed(&mut emu, &mut t, "\r\n".repeat(6).as_bytes());
        let lines = settled(&t);
        for line in &lines {
            let joined = line.starts_with("0123456789") || line.ends_with("abc");
            assert!(
                !joined || ["0123456789", "0123456789abc", "abc"].contains(line),
                "{moves:?}: {lines:?}"
            );
        }
        assert!(lines.iter().any(|line| line.ends_with("abc")), "{moves:?}: {lines:?}");
    }
}

/// A reader who reads after each scroll of a region under a status line gets only what is
/// new (the lines settled beneath the status line, the cursor's line), never a rewrite: the
/// tail began with the status line and was numbered anew each time a row settled beneath
/// it, so every read after a scroll returned the whole screen again with `rewritten`. The
/// status line (redrawn meanwhile: nothing new to read) joins the tail once the session
/// ended (that read returns the screen from its top, once); the cursor's place is on its
/// line throughout, and the transcript as a whole has each line once, in order. The
/// primary screen an alternate one hides is kept the same way.
#[test]
fn reads_under_a_status_line_return_only_what_is_new() {
    fn read(emu: &Emulator, t: &mut Transcript) -> (String, bool) {
        let out = t.read(emu.tail(t).as_deref(), 1000);
        (out.text, out.rewritten)
    }
    let mut emu = emulator(10, 6);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[3;6r\x1b[1;1Htop\x1b[3;1Ha\r\nb\r\nc\r\nd\r\n");
    assert_eq!(read(&emu, &mut t), ("a\nb\nc\nd\n".to_owned(), false));
    let steps: [(&str, &str); 7] = [
        ("x\r\n", "x\n"),
        ("y\r\nz", "y\nz"),
        ("\r\n", "\n"),
        // The status line redrawn, the cursor back in the region.
        ("\x1b7\x1b[1;1Htop 2\x1b8", ""),
        // A line wrapped over the region's rows, its first row scrolled off.
        ("0123456789abc\r\n", "0123456789abc\n"),
        ("\r\n", "\n"),
        ("\r\n", "\n"),
    ];
    for (input, new) in steps {
        feed(&mut emu, &mut t, input.as_bytes());
        assert_eq!(read(&emu, &mut t), (new.to_owned(), false), "after {input:?}");
        let tail = emu.tail(&t).unwrap();
        let cursor = (t.end() + tail.len() as u64 - 1, tail.last().unwrap().len());
        assert_eq!(emu.cursor_position(&t), cursor, "after {input:?}");
    }
    assert_eq!(settled(&t), ["a", "b", "c", "d", "x", "y", "z"]);
    assert_eq!(emu.tail(&t).unwrap(), ["0123456789abc", "", "", ""]);
    let mut hidden = emulator(10, 6);
    let mut t2 = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut hidden, &mut t2, b"\x1b[3;6r\x1b[1;1Htop\x1b[3;1Ha\r\nb\x1b[?1049hfull");
    assert_eq!(hidden.hidden_tail().unwrap(), ["a", "b"]);
    emu.end();
    hidden.end();
    assert_eq!(hidden.hidden_tail().unwrap(), ["top", "", "a", "b"]);
    // The session ended: the status line joins, once.
    let all = "top 2\n\n0123456789abc\n\n\n";
    assert_eq!(read(&emu, &mut t), (all.to_owned(), true));
    assert_eq!(read(&emu, &mut t), (String::new(), false));
    assert_eq!(retained(&emu, &t), format!("a\nb\nc\nd\nx\ny\nz\n{all}"));
}

/// Watching a region's scrolling changes nothing on the screen: random mixes of text,
/// wraps, wide characters, marks and tabs with every sequence that moves rows or the
/// cursor, inside regions below the top, leave the same screen and cursor as the parser
/// given the `Term` itself.
#[test]
fn watching_a_region_leaves_the_screen_as_it_was() {
    let pieces = [
        "word ",
        "0123456789abcdefghijklmnopq",
        "\r\n",
        "\n",
        "\x0b",
        "\r",
        "\t",
        "中文",
        "e\u{301}",
        "\x1b[3;7r",
        "\x1b[2;5r",
        "\x1b[r",
        "\x1b[2S",
        "\x1b[S",
        "\x1b[2M",
        "\x1b[M",
        "\x1b[L",
        "\x1b[T",
        "\x1bD",
        "\x1bE",
        "\x1bM",
        "\x1b[7;1H",
        "\x1b[3;10H",
        "\x1b[5;30H",
        "\x1b[?7l",
        "\x1b[?7h",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[K",
        "\x1b[J",
        "\x1b[2J",
        "\x1b7",
        "\x1b8",
        "\x1b[?6h",
        "\x1b[?6l",
        "\x1b[9b",
        "\x1b[3g",
        "\x1b[31;1m",
        "\x1b[0m",
        "\x1b[3A",
        "\x1b[4B",
        "\x1b[20C",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[20;1H",
    ];
    let mut seed = 0x9e37_79b9_u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for _ in 0..200 {
        let input: String = (0..80).map(|_| pieces[next() as usize % pieces.len()]).collect();
        let (mut watched, mut plain) = (emulator(30, 8), emulator(30, 8));
        plain.watch_regions = false;
        let mut t1 = Transcript::new(100_000, 1 << 30, 1 << 20);
        let mut t2 = Transcript::new(100_000, 1 << 30, 1 << 20);
        feed(&mut watched, &mut t1, input.as_bytes());
        feed(&mut plain, &mut t2, input.as_bytes());
        let (a, b) = (watched.screen(), plain.screen());
        assert_eq!((a.lines, a.cursor, a.alternate), (b.lines, b.cursor, b.alternate), "{input:?}");
        assert!(t1.end() >= t2.end(), "{input:?}");
    }
}

/// bash's readline redraws a soft-wrapped command line after a resize from as many rows
/// above the cursor as the line took before, erasing each on its way up (as bash 5 writes
/// it). Widening rejoined the line's rows, and the redraw erased the output line above it
/// (`two`), unread; narrowing split them, and the redraw left the line's first row
/// soft-wrapped into it, read as one line with it. Now the line, when a line editor has
/// the terminal, is moved down into the rows the rejoining freed, so the redraw starts on
/// blank rows, and a narrowing's leftover row is a line of its own, as the screen shows
/// it; with a full screen too, and in canonical mode (where nothing redraws) the screen
/// is reflowed as before.
#[test]
fn a_line_editor_redrawing_after_a_resize_erases_no_line_above() {
    let line = "$ echo abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    let before = format!("$ echo one; echo two\r\none\r\ntwo\r\n{line}");
    let up = |rows: usize| "\r\x1b[K".to_owned() + &"\r\x1b[A\x1b[K".repeat(rows) + "\r" + line;
    for (height, from, to, redraw) in
        [(8, 20, 40, up(2)), (8, 20, 60, up(2)), (5, 20, 40, up(2)), (8, 40, 20, up(1))]
    {
        let mut emu = emulator(from, height);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, before.as_bytes());
        emu.resize(to, height, true, &mut t);
        feed(&mut emu, &mut t, redraw.as_bytes());
        let expected = if to > from {
            format!("$ echo one; echo two\none\ntwo\n{line}")
        } else {
            format!("$ echo one; echo two\none\ntwo\n{}\n{line}", &line[..20])
        };
        let what = format!("{from} to {to} columns, {height} rows");
        assert_eq!(retained(&emu, &t), expected, "{what}");
        let screen = rows(&emu);
        assert!(screen.iter().any(|row| row == "two"), "{what}: {screen:?}");
    }
    // In canonical mode, and on the alternate screen, the line's rows are reflowed alone.
    let mut emu = emulator(20, 8);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, before.as_bytes());
    emu.resize(40, 8, false, &mut t);
    assert_eq!(rows(&emu)[3..5], [&line[..40], &line[40..]]);
    assert_eq!(cursor(&emu), (4, 13));
    let mut emu = emulator(20, 8);
    feed(&mut emu, &mut t, format!("\x1b[?1049h{before}").as_bytes());
    emu.resize(40, 8, true, &mut t);
    assert_eq!(cursor(&emu), (5, 13));
}

/// Rows below the cursor (a program moved it up, then ended) are read once the session
/// ended, down to the last row with text: the final transcript lost them. Before the
/// end the tail stops at the cursor's line, and the cursor's place in the transcript
/// stays on its line either way; the same holds for the primary screen an alternate one
/// hides.
#[test]
fn rows_below_the_cursor_are_read_once_the_session_ended() {
    let mut emu = emulator(20, 6);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"a\r\nb\r\nwrapped past the twentieth column\r\nd\x1b[4A\rX\r\n");
    assert_eq!(emu.tail(&t).unwrap(), ["X", "b"]);
    let cursor = emu.cursor_position(&t);
    let first = t.read(emu.tail(&t).as_deref(), 1000);
    assert_eq!(first.text, "X\nb");
    emu.end();
    assert_eq!(emu.tail(&t).unwrap(), ["X", "b", "wrapped past the twentieth column", "d"]);
    assert_eq!(emu.cursor_position(&t), cursor);
    let rest = t.read(emu.tail(&t).as_deref(), 1000);
    assert_eq!(rest.text, "\nwrapped past the twentieth column\nd");
    assert!(!rest.rewritten);
    let (text, _) = t.retained(emu.tail(&t).as_deref(), 1000);
    assert_eq!(text, "X\nb\nwrapped past the twentieth column\nd");
    // The cursor below the last row with text: blank rows down to it, as before (the
    // cursor's row empty: nothing but blanks before it).
    let mut emu = emulator(20, 6);
    feed(&mut emu, &mut t, b"a\x1b[3B");
    emu.end();
    assert_eq!(emu.tail(&t).unwrap(), ["a", "", "", ""]);
    // Under the alternate screen.
    let mut emu = emulator(20, 6);
    feed(&mut emu, &mut t, b"a\r\nb\r\nc\x1b[2A\x1b[?1049hfull");
    assert_eq!(emu.hidden_tail().unwrap(), ["a"]);
    emu.end();
    assert_eq!(emu.hidden_tail().unwrap(), ["a", "b", "c"]);
}

/// A full-screen program that left its screen by a reset (RIS, `ESC c`) and printed hides
/// what it printed when it is back, as one that left it with `CSI ? 1049 l`: the hidden tail
/// holds it (the reset leaves the alternate screen before the screen is looked at).
#[test]
fn what_is_printed_after_a_reset_of_the_alternate_screen_is_news_once_it_is_back() {
    for leave in ["\x1b[?1049l", "\x1bc"] {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"$ app\r\n\x1b[?1049hscreen A");
        assert_eq!(emu.hidden_tail().unwrap_or_default(), ["$ app", ""], "{leave:?}");
        feed(&mut emu, &mut t, format!("{leave}printed\r\n\x1b[?1049hscreen B").as_bytes());
        let tail = emu.hidden_tail().unwrap_or_default();
        assert!(tail.iter().any(|line| line == "printed"), "{leave:?}: {tail:?}");
    }
}

/// While the alternate screen is up (modes 47, 1047 and 1049), the primary screen's
/// lines down to its cursor are kept as they were, through a resize; gone once it is left.
#[test]
fn the_primary_screen_hidden_by_the_alternate_one_is_kept() {
    for mode in ["47", "1047", "1049"] {
        let mut emu = emulator(20, 5);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        assert_eq!(emu.hidden_tail(), None);
        let input = format!("out\r\nlonger than twenty columns\r\n$ vim\r\n\x1b[?{mode}hfull");
        feed(&mut emu, &mut t, input.as_bytes());
        let hidden = ["out", "longer than twenty columns", "$ vim", ""];
        assert_eq!(emu.tail(&t), None);
        assert_eq!(emu.hidden_tail().unwrap_or_default(), hidden, "{mode}");
        feed(&mut emu, &mut t, b"\x1b[?1049hmore\r\n");
        emu.resize(8, 5, false, &mut t);
        assert_eq!(emu.hidden_tail().unwrap_or_default(), hidden, "{mode}");
        feed(&mut emu, &mut t, format!("\x1b[?{mode}l").as_bytes());
        assert_eq!(emu.hidden_tail(), None, "{mode}");
    }
}

/// The primary screen taken again by the alternate one with nothing drawn on it since it came
/// back hides the same lines (kept, not rendered again); anything drawn there meanwhile (text,
/// a cursor move) is in what the next hiding keeps.
#[test]
fn the_primary_screen_hidden_again_hides_what_it_shows() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"a\r\nb\x1b[?1049hfull");
    for _ in 0..3 {
        feed(&mut emu, &mut t, b"\x1b[?1049l\x1b[?1049h");
        assert_eq!(emu.hidden_tail().unwrap_or_default(), ["a", "b"]);
    }
    feed(&mut emu, &mut t, b"\x1b[?1049lc\x1b[?1049h");
    assert_eq!(emu.hidden_tail().unwrap_or_default(), ["a", "bc"]);
    feed(&mut emu, &mut t, b"\x1b[?1049l\r\n\x1b[?1049h");
    assert_eq!(emu.hidden_tail().unwrap_or_default(), ["a", "bc", ""]);
    feed(&mut emu, &mut t, b"\x1b[?1049l\x1b[A\x1b[?1049h");
    assert_eq!(emu.hidden_tail().unwrap_or_default(), ["a", "bc"]);
    feed(&mut emu, &mut t, b"\x1b[?1049l\x1b[?1049h\x1b[?1049;3l\x1b[?1049h");
    assert_eq!(emu.hidden_tail().unwrap_or_default(), [""]);
}

/// A resize while the alternate screen is up changes the primary screen it hides (a narrowing
/// scrolls its rows into the history): its capture from before is not taken again by the
/// next hiding, which read the lines already settled a second time (`l1` twice, rewritten).
#[test]
fn the_primary_screen_hidden_again_after_a_resize_is_rendered_again() {
    let mut emu = emulator(10, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"l1\r\nl2\r\nl3abcdefg\r\nx\r\n");
    assert_eq!(t.read(emu.tail(&t).as_deref(), 1000).text, "l1\nl2\nl3abcdefg\nx\n");
    feed(&mut emu, &mut t, b"\x1b[?1049h");
    emu.resize(5, 5, false, &mut t);
    feed(&mut emu, &mut t, b"\x1b[?1049l\x1b[?1049h");
    // (Reads take the hidden tail while the alternate screen is up: `Terminal::readable_tail`.)
    let hidden = emu.readable_hidden_tail().map(std::borrow::Cow::into_owned);
    let out = t.read(hidden.as_deref(), 1000);
    assert_eq!((out.text.as_str(), out.rewritten), ("", false), "{hidden:?}");
}

fn rows(emu: &Emulator) -> Vec<String> {
    emu.screen().lines
}

fn cursor(emu: &Emulator) -> (u16, u16) {
    let c = emu.screen().cursor;
    (c.row, c.col)
}

/// xterm's modifyOtherKeys level, which alacritty does not keep, is kept beside its modes:
/// set by `CSI > 4 ; level m` (whole or cut anywhere), reset by `CSI > 4 m`, `CSI > 4 n` and
/// RIS; other levels and options leave it, and SGR is no such sequence.
#[test]
fn modify_other_keys_is_set_and_reset() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let level = |emu: &Emulator| emu.modes().modify_other_keys;
    for (input, want) in [
        ("\x1b[>4;2m", 2),
        ("\x1b[1m\x1b[>4;7m\x1b[>1;1m", 2),
        ("\x1b[>4m", 0),
        ("\x1b[>4;1m", 1),
        ("\x1b[>4n", 0),
        ("\x1b[>4;2mx\x1bc", 0),
    ] {
        for cut in 0..=input.len() {
            feed(&mut emu, &mut t, &input.as_bytes()[..cut]);
            feed(&mut emu, &mut t, &input.as_bytes()[cut..]);
            assert_eq!(level(&emu), want, "{input:?} cut at {cut}");
        }
    }
    assert!(!emu.screen().to_string().contains("4;2"));
}

/// Each setting of the modifyOtherKeys level is counted, one to the same level too (a second
/// emacs after one killed), and a reset (RIS) keeps the count: the reactor reads the
/// foreground group, the level's owner, when the count moves.
#[test]
fn modify_other_keys_settings_are_counted() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    for (input, want) in [
        ("\x1b[>4;1m", 1),
        ("\x1b[>4;1m", 2),
        ("\x1b[1m\x1b[>4;7m", 2),
        ("\x1bc", 2),
        ("\x1b[>4n", 3),
    ] {
        feed(&mut emu, &mut t, input.as_bytes());
        assert_eq!(emu.modify_other_keys_sets(), want, "{input:?}");
    }
}

#[test]
fn keyboard_mode_pushes_past_the_bound_are_dropped_not_a_panic() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, "\x1b[>1u".repeat(4097).as_bytes());
    assert_eq!(emu.dropped_sequences(), 4097 - crate::term::rewrite::KEYBOARD_STACK as u64);
    assert_eq!(emu.modes().kitty_keyboard, 1);
    // Pops still unwind the stack that was kept.
    feed(&mut emu, &mut t, "\x1b[<1000u".as_bytes());
    assert_eq!(emu.modes().kitty_keyboard, 0);
}

#[test]
fn osc_strings_past_their_bound_are_dropped() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let title = "t".repeat(4000);
    feed(&mut emu, &mut t, format!("\x1b]2;{title}\x07").as_bytes());
    assert_eq!(emu.screen().title, title);
    feed(&mut emu, &mut t, format!("\x1b]2;{}\x1b\\after", "x".repeat(5000)).as_bytes());
    assert_eq!((emu.screen().title.len(), emu.dropped_sequences()), (4000, 1));
    assert_eq!(rows(&emu)[0], "after");
    // An unterminated OSC is never held past its bound, in any split.
    let mut emu = emulator(80, 24);
    feed(&mut emu, &mut t, b"\x1b]52;c;");
    for _ in 0..300 {
        feed(&mut emu, &mut t, &[b'A'; 10_000]);
        assert!(emu.held.capacity() <= 2 << 20, "{}", emu.held.capacity());
    }
    feed(&mut emu, &mut t, b"\x07ok");
    assert_eq!((rows(&emu)[0].as_str(), emu.dropped_sequences()), ("ok", 1));
    assert_eq!(emu.clipboard(), "");
}

#[test]
fn hyperlinks_past_their_bound_are_dropped() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    let link = |uri: &str| format!("\x1b]8;;{uri}\x1b\\x\x1b]8;;\x1b\\");
    feed(&mut emu, &mut t, link(&"u".repeat(2000)).as_bytes());
    assert!(emu.term.grid()[Line(0)][Column(0)].hyperlink().is_some());
    assert_eq!(emu.dropped_sequences(), 0);
    feed(&mut emu, &mut t, link(&"u".repeat(3000)).as_bytes());
    assert!(emu.term.grid()[Line(0)][Column(1)].hyperlink().is_none());
    assert_eq!((rows(&emu)[0].as_str(), emu.dropped_sequences()), ("xx", 1));
}

#[test]
fn title_stack_is_bounded() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, "\x1b]2;a\x07\x1b[22t".repeat(100).as_bytes());
    assert_eq!(emu.dropped_sequences(), 100 - 16);
    feed(&mut emu, &mut t, b"\x1b]2;b\x07\x1b[23t");
    assert_eq!(emu.screen().title, "a");
}

#[test]
fn titles_hold_no_control_characters() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    // A C1 CSI (as UTF-8) inside the title: shown as a replacement character.
    feed(&mut emu, &mut t, "\x1b]2;T\u{9b}31mX\x07".as_bytes());
    assert_eq!(emu.screen().title, "T\u{fffd}31mX");
}

#[test]
fn combining_marks_per_cell_are_bounded() {
    let mut emu = emulator(20, 5);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"a");
    for _ in 0..20 {
        feed(&mut emu, &mut t, "\u{301}".repeat(5000).as_bytes());
        // The marks since the last trim: at most TRIM_EVERY bytes and one slice (bounded
        // by the line budget).
        let marks = emu.term.grid()[Line(0)][Column(0)].zerowidth().map_or(0, <[char]>::len);
        assert!(marks <= 16 + TRIM_EVERY / 2 + GRID_HISTORY, "{marks} marks kept");
    }
    // A repetition of a mark is all ASCII, and adds one mark per repeat.
    for _ in 0..20 {
        feed(&mut emu, &mut t, b"\x1b[H\xcc\x81\x1b[60000b");
        let marks = emu.term.grid()[Line(0)][Column(0)].zerowidth().map_or(0, <[char]>::len);
        assert!(marks <= 16 + TRIM_EVERY + GRID_HISTORY, "{marks} marks kept after repeats");
    }
}

#[test]
fn long_repetitions_lose_no_line_and_split_across_turns() {
    let mut emu = emulator(80, 24);
    let mut t = Transcript::new(1_000_000, 1 << 30, 1 << 20);
    let text: String = (0..20).map(|i| format!("ID{i:04}\x1b[65535b\r\n")).collect();
    let mut turn = Turn { budget: 16 << 10, ..Turn::default() };
    emu.feed(text.as_bytes(), &mut t, &mut turn);
    assert!(emu.has_pending(), "one turn does not run 20 × 65535 cells");
    let mut turns = 1;
    while emu.has_pending() {
        turn.budget = 16 << 10;
        emu.resume(&mut t, &mut turn);
        turns += 1;
    }
    assert!(turns >= 20 * 65535 / (16 << 10), "{turns} turns");
    let mut lines: Vec<String> = (t.first()..t.end()).map(|n| t.line(n).unwrap().into()).collect();
    lines.extend(emu.tail(&t).unwrap());
    let starts: Vec<&String> = lines.iter().filter(|l| l.starts_with("ID")).collect();
    assert_eq!(starts.len(), 20);
    for (i, line) in starts.iter().enumerate() {
        let digit = char::from(b'0' + (i % 10) as u8);
        assert_eq!(line.len(), 6 + 65535, "line {i}");
        assert!(line[6..].chars().all(|c| c == digit), "line {i}");
    }
}

#[test]
fn dch_larger_than_the_rest_of_the_row_keeps_the_left_part() {
    let mut emu = emulator(10, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"abcdefghij\x1b[1;4H\x1b[100P");
    assert_eq!(rows(&emu)[0], "abc");
}

#[test]
fn erasing_half_a_wide_character_erases_it_all() {
    let mut emu = emulator(10, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, "\x1bcデ\x08\x1b[K".as_bytes());
    assert_eq!(rows(&emu)[0], "");
    feed(&mut emu, &mut t, "\x1bcaデb\x1b[1;3H\x1b[@".as_bytes());
    assert_eq!(rows(&emu)[0], "a   b");
    feed(&mut emu, &mut t, "\x1bcデx\x1b[1;1H\x1b[X".as_bytes());
    assert_eq!(rows(&emu)[0], "  x");
}

#[test]
fn selective_erase_is_a_plain_erase() {
    let mut emu = emulator(10, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"abc\r\ndef\x1b[1;2H\x1b[?K");
    assert_eq!(rows(&emu)[..2], ["a", "def"]);
    feed(&mut emu, &mut t, b"\x1b[?J");
    assert_eq!(rows(&emu)[..2], ["a", ""]);
}

#[test]
fn modes_47_and_1047_use_the_alternate_screen() {
    for mode in ["47", "1047"] {
        let mut emu = emulator(10, 3);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, format!("a\x1b[?{mode}hb").as_bytes());
        assert!(emu.alternate(), "mode {mode}");
        assert_eq!(rows(&emu)[0], " b");
        feed(&mut emu, &mut t, format!("\x1b[?{mode}l").as_bytes());
        assert!(!emu.alternate());
        assert_eq!(rows(&emu)[0], "a");
    }
}

#[test]
fn cursor_up_and_down_stop_at_the_scroll_region() {
    let mut emu = emulator(10, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[10;20r\x1b[15;1H\x1b[20A");
    assert_eq!(cursor(&emu), (9, 0));
    feed(&mut emu, &mut t, b"\x1b[15;3H\x1b[20B");
    assert_eq!(cursor(&emu), (19, 2));
    // Outside the region, the screen's edges.
    feed(&mut emu, &mut t, b"\x1b[5;1H\x1b[20A");
    assert_eq!(cursor(&emu), (0, 0));
    feed(&mut emu, &mut t, b"\x1b[22;1H\x1b[20B");
    assert_eq!(cursor(&emu), (23, 0));
    // In origin mode too.
    feed(&mut emu, &mut t, b"\x1b[?6h\x1b[3;1H\x1b[2A");
    assert_eq!(cursor(&emu), (9, 0));
}

#[test]
fn column_mode_resets_the_scroll_region_the_rules_track() {
    let mut emu = emulator(10, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[10;20r\x1b[?3h\x1b[15;1H\x1b[20A");
    assert_eq!(cursor(&emu), (0, 0));
}

#[test]
fn origin_mode_reset_homes_and_decrc_restores_it() {
    let mut emu = emulator(10, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[5;10r\x1b[?6h\x1b[3;3H\x1b[?6l");
    assert_eq!(cursor(&emu), (0, 0));
    feed(&mut emu, &mut t, b"\x1b[?6h\x1b[2;2H\x1b7\x1b[?6l\x1b[20;5H\x1b8");
    assert!(emu.mode().contains(TermMode::ORIGIN));
    assert_eq!(cursor(&emu), (5, 1));
    feed(&mut emu, &mut t, b"\x1b[1;1H");
    assert_eq!(cursor(&emu), (4, 0));
}

/// Mode 1049 saves and restores origin mode with the cursor, as DECSC and DECRC do: origin
/// mode set on the alternate screen stayed set on the primary one, and `CSI H` went to the
/// scroll region's top. Its reset neither homes the cursor nor moves it from where 1049 put
/// it back, and origin mode set on the primary screen comes back set.
#[test]
fn mode_1049_restores_origin_mode_with_the_cursor() {
    let mut emu = emulator(10, 24);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"a\r\nbc\x1b[?1049h\x1b[5;10r\x1b[?6h\x1b[2;1Hx\x1b[?1049l");
    assert!(!emu.mode().contains(TermMode::ORIGIN));
    assert_eq!(cursor(&emu), (1, 2));
    feed(&mut emu, &mut t, b"\x1b[H");
    assert_eq!(cursor(&emu), (0, 0));
    feed(&mut emu, &mut t, b"\x1b[?6h\x1b[2;3H\x1b[?1047h\x1b[?6l\x1b[?1047l");
    assert!(emu.mode().contains(TermMode::ORIGIN));
    assert_eq!(cursor(&emu), (5, 2));
}

/// Mode 1049's parameters apply left to right, as in xterm: `CSI ? 6 ; 1049 h` saves origin
/// mode set (it was saved as before the sequence, reset, and leaving reset it), `CSI ? 6 ;
/// 1049 l` leaves it as saved, and a 6 after a 1049 leaves what it says.
#[test]
fn mode_1049_saves_and_restores_origin_mode_in_its_parameters_order() {
    let origin_after = |bytes: &[u8]| {
        let mut emu = emulator(10, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, bytes);
        assert!(!emu.alternate());
        emu.mode().contains(TermMode::ORIGIN)
    };
    assert!(origin_after(b"\x1b[?6;1049h\x1b[?6l\x1b[?1049l"));
    assert!(!origin_after(b"\x1b[?1049;6h\x1b[?1049l"));
    assert!(origin_after(b"\x1b[?6h\x1b[?1049h\x1b[?6;1049l"));
    assert!(!origin_after(b"\x1b[?6h\x1b[?1049h\x1b[?1049;6l"));
}

/// Resetting origin mode homes the cursor at its place in the parameters: in `CSI ? 6 ; 1049
/// l` the home is the alternate screen's, and leaving restores the primary screen's cursor
/// after it (the home, added after the whole list, sent the next text to 0,0: `X` over `a`).
/// A 6 after the 1049 homes the primary screen's cursor, as a `CSI ? 6 l` of its own does.
#[test]
fn origin_mode_reset_before_leaving_the_alternate_screen_homes_that_screen() {
    let cursor_after = |leave: &[u8]| {
        let mut emu = emulator(10, 24);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"abc\r\ndef\x1b[?1049h\x1b[2;5r\x1b[?6h");
        feed(&mut emu, &mut t, leave);
        assert!(!emu.alternate());
        cursor(&emu)
    };
    assert_eq!(cursor_after(b"\x1b[?6;1049l"), (1, 3));
    assert_eq!(cursor_after(b"\x1b[?6l\x1b[?1049l"), (1, 3));
    assert_eq!(cursor_after(b"\x1b[?1049;6l"), (0, 0));
}

/// Mode 1049's origin mode restored after a resize on the alternate screen: alacritty
/// reflows the primary screen's cursor with its text but only clamps the cursor it saved, so
/// restoring that one (`ESC 8` after setting origin mode) put the cursor at column 9, the
/// old column clamped, not after the rewrapped line's 5 cells on its second row. The cursor
/// stays where leaving put it, as without the restore.
#[test]
fn mode_1049_restores_origin_mode_where_a_resize_put_the_cursor() {
    let left = |reset_on_alternate: &[u8]| {
        let mut emu = emulator(20, 10);
        let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
        feed(&mut emu, &mut t, b"x\r\ny\r\nz\r\naaaaaaaaaaaaaaa");
        feed(&mut emu, &mut t, b"\x1b[?6h\x1b[4;16H\x1b[?1049h");
        feed(&mut emu, &mut t, reset_on_alternate);
        emu.resize(10, 10, false, &mut t);
        feed(&mut emu, &mut t, b"\x1b[?1049l");
        assert!(emu.mode().contains(TermMode::ORIGIN));
        cursor(&emu)
    };
    let kept = left(b"");
    assert_eq!(kept, (3, 5));
    assert_eq!(left(b"\x1b[?6l"), kept);
}

#[test]
fn synchronized_updates_are_applied_at_once_and_tracked() {
    let mut emu = emulator(10, 3);
    let mut t = Transcript::new(1000, 1 << 20, 1 << 20);
    feed(&mut emu, &mut t, b"\x1b[?2026hframe");
    assert!(emu.sync_deadline().is_some());
    assert_eq!(rows(&emu)[0], "frame");
    feed(&mut emu, &mut t, b"\x1b[?2026l");
    assert!(emu.sync_deadline().is_none());
}

/// A screen built with only the rows a row condition reads answers it as the whole screen
/// does (the match, its column, the cursor's row padded to the cursor), and builds no other
/// row's text: a look after each keystroke turned every row into a `String` for one row.
#[test]
fn a_screen_of_some_rows_answers_their_conditions_as_the_whole_screen() {
    use crate::wait::Until;
    let mut emu = emulator(40, 6);
    let mut t = Transcript::new(100_000, 1 << 30, 1 << 20);
    feed(&mut emu, &mut t, "top row\r\n日本 wide text\r\n$ ".as_bytes());
    let whole = emu.screen();
    let conditions = [
        Until::screen_row_contains(1, "wide"),
        Until::screen_row_regex(2, r"^\$ $").unwrap(),
        Until::screen_row_contains(0, "absent"),
        Until::any(vec![Until::screen_row_contains(0, "top"), Until::cursor_at(2, 2)]),
        Until::cursor_at(2, 2),
    ];
    for until in conditions {
        let mut rows = Vec::new();
        assert!(until.screen_rows(&mut rows), "{until} reads only its rows");
        let some = emu.screen_of_rows(|row| rows.iter().any(|&r| usize::from(r) == row));
        for (row, line) in some.lines.iter().enumerate() {
            let read = rows.iter().any(|&r| usize::from(r) == row);
            assert_eq!(line, if read { &whole.lines[row] } else { "" }, "row {row} for {until}");
        }
        let found = |screen| until.match_screen(screen, None).unwrap().map(|m| format!("{m:?}"));
        assert_eq!(found(&some), found(&whole), "{until}");
    }
    for whole_screen in [
        Until::screen_contains("x"),
        Until::screen_regex("x").unwrap(),
        Until::screen_matches("x", |_| true),
    ] {
        assert!(!whole_screen.screen_rows(&mut Vec::new()), "{whole_screen} reads every row");
    }
}

/// Text cut anywhere between reads, even inside a character, reads as the text fed whole:
/// vte lost the byte after a character completed by the next read when text followed it
/// (`a\xc3` then `\xa9:\xc3\xa9` read `aéé`; review wf, see `cut_character`).
#[test]
fn a_character_cut_between_reads_loses_nothing_after_it() {
    let text = "aé:é 一x😀y ü\u{301}z\r\nnext 二:三\r\n".as_bytes();
    let whole = {
        let (mut emu, mut t) = (emulator(40, 5), Transcript::new(1000, 1 << 20, 1 << 20));
        feed(&mut emu, &mut t, text);
        (settled(&t).join("\n"), emu.tail(&t))
    };
    let lines = whole.1.clone().unwrap_or_default();
    assert_eq!(lines[..2], ["aé:é 一x😀y ü\u{301}z", "next 二:三"], "{whole:?}");
    for first in 1..text.len() {
        for second in first..text.len() {
            let (mut emu, mut t) = (emulator(40, 5), Transcript::new(1000, 1 << 20, 1 << 20));
            for part in [&text[..first], &text[first..second], &text[second..]] {
                feed(&mut emu, &mut t, part);
            }
            let cut = (settled(&t).join("\n"), emu.tail(&t));
            assert_eq!(cut, whole, "cut at {first} and {second}");
        }
    }
}
