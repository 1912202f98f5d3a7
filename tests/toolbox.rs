//! The model-facing tools as a library call: the toolbox defines and answers what `termloom
//! mcp` does, for the same calls; a host can choose a subset, set its byte budget and cancel
//! a call.

mod common;

use std::time::Instant;

use common::*;
use serde_json::{Value, json};
use termloom::mcp::MAX_BYTES_OVERHEAD;
use termloom::tools::{ToolCancel, Toolbox};

#[test]
fn the_toolbox_defines_and_answers_what_the_mcp_server_does() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let mut server = McpChild::start("2025-11-25");
    let toolbox = Toolbox::new(engine());
    let listed = server.request("tools/list", json!({}));
    let served: Vec<Value> = listed["tools"].as_array().unwrap().clone();
    let defined = toolbox.definitions();
    assert_eq!(served.len(), defined.len());
    for (tool, definition) in served.iter().zip(&defined) {
        assert_eq!(tool["name"], definition.name.as_str());
        assert_eq!(tool["description"], definition.description.as_str());
        assert_eq!(tool["inputSchema"], definition.input_schema);
    }
    // The same call: the same output and exit code.
    let arguments = json!({"command": "printf 'one\\ntwo\\n'; false"});
    let over_mcp = server.call("terminal_run", arguments.clone());
    let in_process = toolbox.call("terminal_run", &arguments);
    assert!(!in_process.is_error, "{}", in_process.text);
    let structured = in_process.structured.unwrap();
    for field in ["output", "exit_code", "timed_out", "new_session"] {
        assert_eq!(structured[field], over_mcp["structuredContent"][field], "{field}");
    }
    assert_eq!(
        (structured["output"].as_str(), structured["exit_code"].as_i64()),
        (Some("one\ntwo\n"), Some(1))
    );
    // The same mistake: the same words.
    let arguments = json!({"session_id": 999});
    let over_mcp = server.call("terminal_read", arguments.clone());
    let in_process = toolbox.call("terminal_read", &arguments);
    assert!(in_process.is_error);
    assert_eq!(over_mcp["isError"], true);
    assert_eq!(over_mcp["content"][0]["text"], in_process.text.as_str());
    // The same code, for a program to tell the mistakes apart without reading the words.
    assert_eq!(in_process.error_code.as_deref(), Some("unknown_session"));
    assert_eq!(over_mcp["_meta"]["termloom/error_code"], "unknown_session");
    let bad = toolbox.call("terminal_start", &json!({"cols": "wide"}));
    assert!(bad.is_error && bad.text.contains("cols"), "{}", bad.text);
    assert_eq!(bad.error_code.as_deref(), Some("invalid_input"));
    let missing = toolbox.call("terminal_start", &json!({"argv": ["/nonexistent/program"]}));
    assert_eq!(missing.error_code.as_deref(), Some("program_not_found"), "{}", missing.text);
}

#[test]
fn a_host_chooses_the_tools_and_the_budget() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let toolbox = Toolbox::new(engine()).only(&["terminal_run", "terminal_close"]).unwrap();
    let names: Vec<String> = toolbox.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["terminal_run", "terminal_close"]);
    let refused = toolbox.call("terminal_start", &json!({"argv": ["true"]}));
    assert!(refused.is_error && refused.text.contains("terminal_run"), "{}", refused.text);
    assert!(Toolbox::new(engine()).only(&["terminal_rm_rf"]).is_err());

    let budget = 2048;
    let toolbox = Toolbox::new(engine()).max_bytes(budget).unwrap();
    let result =
        toolbox.call("terminal_run", &json!({"command": "seq 1 20000", "max_bytes": 1 << 20}));
    assert!(!result.is_error, "{}", result.text);
    let size = result.text.len() + result.structured.unwrap().to_string().len();
    assert!(size <= budget + MAX_BYTES_OVERHEAD, "{size} bytes");
    // The advice to read what was left out stays within the budget: by line number, from
    // the first the transcript still holds (its start was dropped too), once.
    let advice = result.text.matches("terminal_read session_id=1 lines=\"").count();
    assert!(advice == 1 && !result.text.contains("scrollback"), "{}", result.text);
    // A budget above the tools' range is held to it, not an error on every call.
    let toolbox = Toolbox::new(engine()).max_bytes(usize::MAX).unwrap();
    let result = toolbox.call("terminal_run", &json!({"command": "echo hello"}));
    assert!(!result.is_error && result.text.contains("hello"), "{}", result.text);
}

/// A host that offers some of the tools gets results whose advice names only those (review
/// ig: a toolbox offering `terminal_run` alone was told to answer with `terminal_send`, follow
/// with `terminal_read` and close with `terminal_close`); one that offers all of them gets that
/// advice as before.
#[test]
fn a_subset_of_the_tools_is_advised_alone() {
    if !require(&termloom::shell_program()) || !require("head") {
        return;
    }
    let others =
        ["terminal_start", "terminal_send", "terminal_read", "terminal_close", "terminal_list"];
    let calls = [
        // No such session, and none at all (the first call): starting one is `terminal_start`'s.
        json!({"command": "true", "session_id": 999}),
        // Waits for a line: answering it is `terminal_send`'s.
        json!({"command": "head -n 1", "timeout_ms": 30_000}),
        // Outlasts its wait: following it is `terminal_read`'s, closing its shell `terminal_close`'s.
        json!({"command": "sleep 30", "timeout_ms": 300}),
        // More output than the result holds: reading the rest is `terminal_read`'s.
        json!({"command": "seq 1 3000", "max_bytes": 1024}),
    ];
    let all = Toolbox::new(engine());
    let only = Toolbox::new(engine()).only(&["terminal_run"]).unwrap();
    for arguments in calls {
        let full = all.call("terminal_run", &arguments).text;
        assert!(others.iter().any(|tool| full.contains(tool)), "{arguments}: {full}");
        let text = only.call("terminal_run", &arguments).text;
        for tool in others {
            assert!(!text.contains(tool), "{arguments}: {tool} advised: {text}");
        }
    }
}

/// A budget below the least `max_bytes` is refused when it is set, saying why: no result fits
/// it (a start's under 256 was 467 bytes of text, its header and notes besides the 256 its
/// strings shared; one of 10 was taken as 256 without a word). At the least, a result stays
/// within the budget and the framing the docs name.
#[test]
fn a_budget_too_small_for_any_result_is_refused() {
    let Err(err) = Toolbox::new(engine()).max_bytes(255) else {
        panic!("a budget of 255 bytes was taken");
    };
    assert_eq!(err.code(), "invalid_input");
    let message = err.to_string();
    assert!(message.contains("at least 256") && message.contains("4096"), "{message}");
    let toolbox = Toolbox::new(engine()).max_bytes(256).unwrap();
    for arguments in [
        json!({"argv": ["seq", "1", "100000"]}),
        json!({"argv": ["sh", "-c", "printf 'a%.0s' $(seq 1 3000); exec sleep 60"], "cols": 200, "rows": 60}),
    ] {
        let result = toolbox.call("terminal_start", &arguments);
        assert!(!result.is_error, "{}", result.text);
        let structured = result.structured.unwrap();
        let size = result.text.len() + structured.to_string().len();
        assert!(size <= 256 + MAX_BYTES_OVERHEAD, "{size} bytes: {}", result.text);
        toolbox.call("terminal_close", &json!({"session_id": structured["session_id"]}));
    }
}

/// A screen larger than the host's budget is read a part at a time: the advice of a cut
/// screen names the rows to read on from (`screen_rows`), which a call can show within the
/// budget. It said to look again with a larger `max_bytes`, which the budget held: htop at
/// 200x60 under 1,000 bytes gave the same 653 bytes and the same advice whatever `max_bytes`
/// was asked for. Without a host's budget a larger `max_bytes` shows it, and is still advised.
#[test]
fn a_screen_larger_than_the_budget_is_read_by_its_rows() {
    // 59 rows of 157 characters and a last one, on the alternate screen.
    let rows = "printf '\\033[?1049h\\033[H'; i=10; while [ $i -lt 69 ]; do printf 'row %d %0150d\\r\\n' $i 0; i=$((i+1)); done; printf 'last row'; exec sleep 60";
    let start = json!({"argv": ["sh", "-c", rows], "cols": 200, "rows": 60, "for_screen_text": "last row", "timeout_ms": 60000});
    let toolbox = Toolbox::new(engine()).max_bytes(1000).unwrap();
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    for max_bytes in [json!(null), json!(5000)] {
        let look = json!({"session_id": id, "view": "screen", "max_bytes": max_bytes});
        let result = toolbox.call("terminal_read", &look);
        assert!(!result.is_error, "{}", result.text);
        let advice = result.text.lines().last().unwrap();
        assert!(!advice.contains("larger max_bytes"), "{advice}");
        // Row 0 is `row 10`: the advice reads on from the first row not shown whole.
        let whole = |line: &&str| line.starts_with("row ") && line.ends_with(&"0".repeat(150));
        let shown = result.text.lines().filter(whole).count();
        let from = format!("screen_rows=\"{shown}-\"");
        assert!(advice.contains(&format!("terminal_read {from}")), "{shown}: {advice}");
        let rest = toolbox
            .call("terminal_read", &json!({"session_id": id, "screen_rows": format!("{shown}-")}));
        assert!(!rest.is_error, "{}", rest.text);
        let first = format!("{shown}│row {} 000", shown + 10);
        assert!(
            rest.text.lines().nth(2).is_some_and(|row| row.starts_with(&first)),
            "{first}: {}",
            rest.text
        );
        let size = rest.text.len() + rest.structured.unwrap().to_string().len();
        assert!(size <= 1000 + MAX_BYTES_OVERHEAD, "{size}: {}", rest.text);
        // Read on, the last row is reached within the budget.
        let last = toolbox.call("terminal_read", &json!({"session_id": id, "screen_rows": "59"}));
        assert!(last.text.ends_with("59│last row▌"), "{}", last.text);
    }
    let past = toolbox.call("terminal_read", &json!({"session_id": id, "screen_rows": "60-"}));
    assert!(past.is_error && past.text.contains("rows 0-59"), "{}", past.text);
    // Without a host's budget, a larger max_bytes is the way.
    let unbounded = Toolbox::new(toolbox.engine().clone());
    let look = json!({"session_id": id, "view": "screen", "max_bytes": 1000});
    let result = unbounded.call("terminal_read", &look);
    assert!(result.text.ends_with("and a larger max_bytes]"), "{}", result.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// The advice to read on from a cut screen keeps the look's `styles`: the rows read on are
/// marked as the rows shown were. It named `screen_rows` alone, so a look with
/// `styles=false` read on with highlights marked `⟦…⟧`, and one with `styles=true` without
/// their colours.
#[test]
fn the_advice_to_read_on_keeps_the_looks_styles() {
    // 59 rows, the first word of the first ten in inverse video (few enough highlights to be
    // marked by default), and a last one, on the alternate screen.
    let rows = "printf '\\033[?1049h\\033[H'; i=10; while [ $i -lt 69 ]; do a=; b=; if [ $i -lt 20 ]; then a='\\033[7m'; b='\\033[0m'; fi; printf \"${a}row${b} %d %0150d\\r\\n\" $i 0; i=$((i+1)); done; printf 'last row'; exec sleep 60";
    let start = json!({"argv": ["sh", "-c", rows], "cols": 200, "rows": 60, "for_screen_text": "last row", "timeout_ms": 60000});
    let toolbox = Toolbox::new(engine()).max_bytes(1000).unwrap();
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.as_ref().unwrap()["session_id"].clone();
    for (styles, argument) in
        [(json!(null), ""), (json!(false), " styles=false"), (json!(true), " styles=true")]
    {
        let look = json!({"session_id": id, "view": "screen", "styles": styles});
        let result = toolbox.call("terminal_read", &look);
        assert!(!result.is_error, "{}", result.text);
        let advice = result.text.lines().last().unwrap();
        let Some((_, rows)) = advice.split_once("screen_rows=\"") else {
            panic!("no screen_rows in {advice:?}")
        };
        let (from, rest) = rows.split_once('"').unwrap();
        assert!(rest.strip_suffix(']') == Some(argument), "{styles}: {advice}");
        // Read on as advised: the rows are marked as the look's were.
        let mut on = json!({"session_id": id, "screen_rows": from});
        if !styles.is_null() {
            on["styles"] = styles.clone();
        }
        let read_on = toolbox.call("terminal_read", &on);
        assert!(!read_on.is_error, "{}", read_on.text);
        // Cut in turn by the budget, its own advice to read on keeps them too.
        let note = read_on.text.lines().last().unwrap();
        assert!(note.contains("read them with screen_rows="), "{note}");
        assert!(note.ends_with(&format!("\"{argument}]")), "{styles}: {note}");
        let marked =
            |text: &str| text.lines().any(|row| row.contains("⟦row⟧") || row.contains("|row⟧"));
        assert_eq!(
            marked(&result.text),
            marked(&read_on.text),
            "{styles}: {}\n{}",
            result.text,
            read_on.text
        );
        assert_eq!(marked(&read_on.text), styles != json!(false), "{}", read_on.text);
    }
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A host's budget holds a call's `max_bytes` to it, but does not take the place of one the
/// tools would refuse: that is refused, naming the argument, as without a budget.
#[test]
fn a_malformed_max_bytes_is_refused_with_a_budget_too() {
    let toolbox = Toolbox::new(engine()).max_bytes(4096).unwrap();
    for bad in [json!("wide"), json!(-1), json!(1.5), json!([4096])] {
        let result = toolbox.call("terminal_read", &json!({"session_id": 999, "max_bytes": bad}));
        assert!(result.is_error && result.text.contains("max_bytes"), "{bad}: {}", result.text);
    }
    // A well-formed one gets as far as the session.
    let held = toolbox.call("terminal_read", &json!({"session_id": 999, "max_bytes": 1 << 20}));
    assert!(held.is_error && held.text.contains("999"), "{}", held.text);
}

#[test]
fn a_call_can_be_cancelled_from_another_thread() {
    let toolbox = Toolbox::new(engine());
    let cancel = ToolCancel::new();
    let canceller = cancel.clone();
    let started = Instant::now();
    let waiting = std::thread::spawn(move || {
        toolbox.call_cancellable(
            "terminal_start",
            &json!({"argv": ["sh", "-c", "echo ready; exec sleep 1000"], "for_text": "never printed", "timeout_ms": 600000}),
            &cancel,
        )
    });
    // Cancelling before the wait starts ends it as soon as it starts.
    canceller.cancel();
    assert!(waiting.join().unwrap().is_none(), "a cancelled call returns nothing");
    assert!(started.elapsed() < LONG);
}

/// The id of a session of `cat` started by `toolbox`, once it runs.
fn started_cat(toolbox: &Toolbox) -> Value {
    let started = toolbox.call(
        "terminal_start",
        &json!({"argv": ["sh", "-c", "echo ready; exec cat"], "for_text": "ready"}),
    );
    assert!(!started.is_error, "{}", started.text);
    started.structured.unwrap()["session_id"].clone()
}

/// `keys` ending in a key name written out after text (`ab Enter`, tmux's notation) types
/// its letters as before, and the result says so in one line, with the key bracketed; words
/// that read as text (`Foo Bar`) are told nothing, nor `Enter` in keys a call submits; any
/// other key a call submits after is still told (`Tab`), and a chord whatever the order of
/// its modifiers (`M-C-x`).
#[test]
fn a_key_name_written_out_at_the_end_of_keys_is_told() {
    let toolbox = Toolbox::new(engine());
    let id = started_cat(&toolbox);
    let send = json!({"session_id": id, "keys": "ab Enter", "for_text": "ab Enter"});
    let typed = toolbox.call("terminal_send", &send);
    assert!(!typed.is_error, "{}", typed.text);
    let note = "[keys typed its last word, Enter, as text; <Enter> presses the key]";
    assert_eq!(typed.text.matches(note).count(), 1, "{}", typed.text);
    assert!(typed.text.contains("ab Enter"), "the letters are typed: {}", typed.text);
    let send = json!({"session_id": id, "keys": " Foo Bar", "for_text": "Foo Bar"});
    let text = toolbox.call("terminal_send", &send);
    assert!(!text.is_error && !text.text.contains("last word"), "{}", text.text);
    // With submit, Enter was pressed after it: no key to tell (review vm).
    let send =
        json!({"session_id": id, "keys": "cd Enter", "submit": true, "for_text": "cd Enter"});
    let text = toolbox.call("terminal_send", &send);
    assert!(!text.is_error && !text.text.contains("last word"), "{}", text.text);
    // Submit presses Enter, not Tab: `<Tab>` before it was still meant (it hid every key).
    let send = json!({"session_id": id, "keys": "ef Tab", "submit": true, "for_text": "ef Tab"});
    let text = toolbox.call("terminal_send", &send);
    let note = "[keys typed its last word, Tab, as text; <Tab> presses the key]";
    assert!(!text.is_error && text.text.contains(note), "{}", text.text);
    // Modifiers in any order, as the keys' parser takes them (only C-, M-, S- were told).
    let send = json!({"session_id": id, "keys": "gh M-C-x", "for_text": "gh M-C-x"});
    let text = toolbox.call("terminal_send", &send);
    let note = "[keys typed its last word, M-C-x, as text; <M-C-x> presses the key]";
    assert!(!text.is_error && text.text.contains(note), "{}", text.text);
    let closed = toolbox.call("terminal_close", &json!({"session_id": id}));
    assert!(!closed.is_error, "{}", closed.text);
}

/// A cancelled call returns nothing, whichever tool's wait the cancellation ended (not a
/// result saying the wait was cancelled).
#[test]
fn a_cancelled_wait_of_any_tool_returns_nothing() {
    let toolbox = Toolbox::new(engine());
    let id = started_cat(&toolbox);
    for (tool, arguments) in [
        ("terminal_read", json!({"session_id": id, "for_text": "never", "timeout_ms": 600000})),
        (
            "terminal_send",
            json!({"session_id": id, "text": "x", "for_text": "never", "timeout_ms": 600000}),
        ),
    ] {
        let cancel = ToolCancel::new();
        let canceller = cancel.clone();
        let begun = Instant::now();
        let waiting = std::thread::spawn({
            let toolbox = toolbox.clone();
            move || toolbox.call_cancellable(tool, &arguments, &cancel)
        });
        canceller.cancel();
        let result = waiting.join().unwrap();
        assert!(result.is_none(), "{tool}: {:?}", result.map(|r| r.text));
        assert!(begun.elapsed() < LONG);
    }
    let closed = toolbox.call("terminal_close", &json!({"session_id": id}));
    assert!(!closed.is_error, "{}", closed.text);
}

/// A secret asked of a Toolbox whose host gave no way to answer is refused saying so once
/// ("…; nothing was typed; nothing was typed: …" before), and saying only what the model can
/// do: it pointed the model to `termloom attach 1 --takeover` and `termloom mcp --server`,
/// neither of which exists in-process. `terminal_run`'s header at the prompt says the host,
/// not "this client", cannot ask.
#[test]
fn a_toolbox_refuses_a_secret_saying_why_once() {
    if !require("bash") || !require("python3") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let script = "read -r -s -p 'Password: ' p; echo; read -r q";
    let started = toolbox
        .call("terminal_start", &json!({"argv": ["bash", "-c", script], "input_wait": true}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let refused = toolbox.call("terminal_send", &json!({"session_id": id, "secret": true}));
    assert!(refused.is_error, "{}", refused.text);
    assert_eq!(refused.error_code.as_deref(), Some("no_answer"), "{}", refused.text);
    let said = "the host running these tools gave them no way to ask for one";
    assert!(refused.text.contains(said), "{}", refused.text);
    assert!(refused.text.contains("keys=\"<C-c>\""), "{}", refused.text);
    for missing in ["termloom", "attach", "--server", "client"] {
        assert!(!refused.text.contains(missing), "{missing}: {}", refused.text);
    }
    assert_eq!(refused.text.matches("nothing was typed").count(), 1, "{}", refused.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
    let command = "python3 -c 'import getpass; print(len(getpass.getpass()))'";
    let ran = toolbox.call("terminal_run", &json!({"command": command}));
    assert!(!ran.is_error, "{}", ran.text);
    let header = "gave them no way to ask its person for it: interrupt it";
    assert!(ran.text.contains(header), "{}", ran.text);
    assert!(!ran.text.contains("client"), "{}", ran.text);
    let id = ran.structured.unwrap()["session_id"].clone();
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A host answers a model's `terminal_send secret=true` through
/// `Toolbox::answer_secrets`: told the session, the program and its prompt, it gives the
/// secret (here after refusing once, which fails the call with `declined` and types
/// nothing), which is typed into the program's password prompt and is in no result.
#[test]
fn a_toolbox_host_answers_a_secret_the_model_asks_for() {
    if !require("python3") {
        return;
    }
    let secret = "s3cr3t-value";
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let toolbox = Toolbox::new(engine()).answer_secrets({
        let asked = asked.clone();
        move |ask| {
            // (Poisoned by the first answer's panic.)
            let mut asked = asked.lock().unwrap_or_else(|e| e.into_inner());
            asked.push(ask.clone());
            // (The first answer fails: a host's panic refuses, its message in no result.)
            assert!(asked.len() > 1, "boom-in-the-host");
            Some(secret.to_owned())
        }
    });
    // The prompt holds a right-to-left override, which the host must not be handed raw.
    let command = "python3 -c 'import getpass; print(len(getpass.getpass(\"Pass\\u202eword: \")))'";
    let ran = toolbox.call("terminal_run", &json!({"command": command}));
    assert!(!ran.is_error, "{}", ran.text);
    assert!(ran.text.contains("secret=true"), "{}", ran.text);
    let structured = ran.structured.unwrap();
    let id = structured["session_id"].clone();
    let session = termloom::SessionId::from(id.as_u64().unwrap());
    let send = json!({"session_id": id, "secret": true, "for_text": "12"});
    let declined = toolbox.call("terminal_send", &send);
    assert_eq!(declined.error_code.as_deref(), Some("declined"), "{}", declined.text);
    assert!(declined.text.contains("nothing was typed"), "{}", declined.text);
    assert!(!declined.text.contains("boom-in-the-host"), "{}", declined.text);
    let typed = toolbox.call("terminal_send", &send);
    assert!(!typed.is_error, "{}", typed.text);
    assert!(typed.text.contains("the person typed the secret"), "{}", typed.text);
    let structured = typed.structured.clone().unwrap();
    assert_eq!(structured["secret_entered"], true, "{structured}");
    let read = toolbox.call("terminal_read", &json!({"session_id": id}));
    assert!(!read.is_error, "{}", read.text);
    let output = toolbox.engine().session(session).unwrap().scrollback(1 << 20).unwrap().text;
    assert!(output.lines().any(|line| line.trim() == "12"), "{output}");
    for result in
        [&ran.text, &declined.text, &typed.text, &read.text, &structured.to_string(), &output]
    {
        assert!(!result.contains(secret), "{result}");
    }
    let asked = asked.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0].session, session);
    assert!(asked[0].program.starts_with("python3"), "{:?}", asked[0]);
    assert_eq!(asked[0].prompt, "Pass⟨U+202E⟩word:", "{:?}", asked[0]);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Two toolboxes over one engine are two callers: what one has read is still new to the
/// other, and each is shown screens as changes to what it saw itself.
#[test]
fn each_toolbox_reads_from_its_own_position() {
    if !require(&termloom::shell_program()) {
        return;
    }
    let engine = engine();
    let first = Toolbox::new(engine.clone());
    let second = Toolbox::new(engine);
    let started = first.call(
        "terminal_start",
        &json!({"command": "echo shared-line; sleep 60", "for_text": "shared-line"}),
    );
    assert!(started.text.contains("shared-line"), "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let again = first.call("terminal_read", &json!({"session_id": id}));
    assert!(!again.text.contains("shared-line"), "{}", again.text);
    let other = second.call("terminal_read", &json!({"session_id": id}));
    assert!(other.text.contains("shared-line"), "{}", other.text);
    first.call("terminal_close", &json!({"session_id": id}));
}

/// Two calls of one caller typing into one session at once (a host running a model's tool
/// calls side by side) run one after the other, each result holding its own output: they
/// shared the caller's read position, and one result took both outputs while the other said
/// there was none.
#[test]
fn calls_into_one_session_at_once_each_get_their_own_output() {
    if !require("bash") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let started =
        toolbox.call("terminal_start", &json!({"argv": ["bash", "--norc", "--noprofile"]}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    for round in 0..4 {
        let calls: Vec<_> = ["first", "second"]
            .into_iter()
            .map(|word| {
                let toolbox = toolbox.clone();
                let arguments = json!({
                    "session_id": id, "text": format!("sleep 0.2; echo {word}{round}"),
                    "submit": true,
                });
                std::thread::spawn(move || (word, toolbox.call("terminal_send", &arguments)))
            })
            .collect();
        for call in calls {
            let (word, result) = call.join().unwrap();
            assert!(!result.is_error, "{}", result.text);
            let own = format!("{word}{round}");
            assert!(result.text.lines().any(|line| line == own), "{own}: {}", result.text);
            let other = if word == "first" { "second" } else { "first" };
            let theirs = format!("{other}{round}");
            assert!(!result.text.lines().any(|line| line == theirs), "{own}: {}", result.text);
        }
    }
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A line typed over several calls: a result shows what the call typed as it typed it, and a
/// line that changed otherwise whole, as it now reads (`<C-u>echo typed` after `echo ty`
/// read `ped`); the result after its Enter starts with the command's output, not with a blank
/// line (the line break ending the typed line, the only thing new on that line).
#[test]
fn a_line_edited_over_several_calls_is_shown_whole_and_then_its_output() {
    if !require("bash") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let started =
        toolbox.call("terminal_start", &json!({"argv": ["bash", "--norc", "--noprofile"]}));
    let id = started.structured.unwrap()["session_id"].clone();
    let body = |text: &str| text.lines().skip(1).map(str::to_owned).collect::<Vec<_>>();
    let typed = toolbox.call("terminal_send", &json!({"session_id": id, "text": "echo ty"}));
    assert_eq!(body(&typed.text), ["echo ty"], "{}", typed.text);
    let edited =
        toolbox.call("terminal_send", &json!({"session_id": id, "keys": "<C-u>echo typed"}));
    let line = body(&edited.text).pop().unwrap_or_default();
    assert!(line.ends_with("echo typed") && line.len() > "echo typed".len(), "{}", edited.text);
    let keys = json!({"session_id": id, "keys": "<Enter>", "for_text": "typed"});
    let submitted = toolbox.call("terminal_send", &keys);
    let first = body(&submitted.text).into_iter().next();
    assert_eq!(first.as_deref(), Some("typed"), "{}", submitted.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A line read before in part that the program (not the call's typing) adds to is continued,
/// not repeated: a step's ` ok` after its `step one...`.
#[test]
fn a_line_the_program_adds_to_is_continued_not_repeated() {
    let toolbox = Toolbox::new(engine());
    let script = "stty -echo; printf 'step one...'; read x; printf ' ok'; read y";
    let started =
        toolbox.call("terminal_start", &json!({"argv": ["sh", "-c", script], "input_wait": true}));
    assert!(started.text.ends_with("\nstep one..."), "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let keys = json!({"session_id": id, "keys": "<Enter>", "input_wait": true});
    let added = toolbox.call("terminal_send", &keys);
    assert!(added.text.ends_with("]\n ok"), "{}", added.text);
    assert!(!added.text.contains("step one") && !added.text.contains("redrawn"), "{}", added.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A program stopped (SIGSTOP from outside: a Ctrl-Z to a group with no shell's job control,
/// an orphaned one, is discarded by the kernel) is said to be stopped, and the default wait
/// after a key ends once it is quiet: it read `running, quiet`, and every call ran to the
/// default wait's 10 s cap. Continued, it runs again.
#[test]
fn a_stopped_program_is_said_to_be_stopped() {
    let toolbox = Toolbox::new(engine());
    let started = toolbox.call("terminal_start", &json!({"argv": ["cat"]}));
    let structured = started.structured.unwrap();
    let id = structured["session_id"].clone();
    let pid = structured["status"]["foreground"]["pid"].as_i64().unwrap();
    let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
    let begun = Instant::now();
    let stopped = toolbox.call("terminal_send", &json!({"session_id": id, "keys": "x"}));
    assert!(begun.elapsed() < LONG / 2, "{:?}: {}", begun.elapsed(), stopped.text);
    assert!(stopped.text.starts_with("[cat stopped (continue it"), "{}", stopped.text);
    assert_eq!(stopped.structured.unwrap()["status"]["activity"], "stopped");
    let go_on = json!({"session_id": id, "signal": "CONT"});
    let continued = toolbox.call("terminal_signal", &go_on);
    assert!(!continued.is_error, "{}", continued.text);
    let activity = &continued.structured.unwrap()["status"]["activity"];
    assert_ne!(activity, "stopped", "{}", continued.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// `record` on terminal_start writes under the operator's `record_dir`, at a path the server
/// picks and returns; without a `record_dir` the call fails and says what is missing.
#[test]
fn a_model_asks_for_a_recording_and_the_server_picks_the_file() {
    let dir = std::env::temp_dir().join(format!("termloom-tool-casts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = termloom::Config { record_dir: Some(dir.clone()), ..termloom::Config::default() };
    let toolbox = Toolbox::new(termloom::Engine::new(config).unwrap());
    let result = toolbox.call(
        "terminal_start",
        &json!({"argv": ["sh", "-c", "echo recorded-line"], "record": true, "exit": true}),
    );
    assert!(!result.is_error, "{}", result.text);
    let path = result.structured.as_ref().unwrap()["recording"].as_str().unwrap().to_owned();
    assert!(path.starts_with(dir.to_str().unwrap()), "{path}");
    assert!(result.text.contains(&format!("[recording to {path}]")), "{}", result.text);
    // An unrecorded session says nothing about recordings.
    let plain = toolbox.call("terminal_start", &json!({"argv": ["true"], "exit": true}));
    assert!(!plain.text.contains("recording"), "{}", plain.text);
    let _ = std::fs::remove_dir_all(&dir);

    let unconfigured = Toolbox::new(engine());
    let refused = unconfigured.call("terminal_start", &json!({"argv": ["true"], "record": true}));
    assert!(refused.is_error && refused.text.contains("record_dir"), "{}", refused.text);
}

/// `svg=true` returns the screen as an SVG image in the text, whole or not at all.
#[test]
fn the_screen_comes_as_svg_on_request() {
    let toolbox = Toolbox::new(engine());
    let started = toolbox.call(
        "terminal_start",
        &json!({"argv": ["sh", "-c", "printf '\\033[35mmagenta\\033[0m'; read x"], "name": "pic"}),
    );
    assert!(!started.is_error, "{}", started.text);
    let result = toolbox.call("terminal_read", &json!({"session_id": "pic", "svg": true}));
    assert!(!result.is_error, "{}", result.text);
    assert!(result.text.contains("<svg xmlns="), "{}", result.text);
    assert!(result.text.contains("fill=\"#cd00cd\"") && result.text.contains(">magenta</tspan>"));
    let bytes = result.structured.unwrap()["svg_bytes"].as_u64().unwrap();
    assert!(bytes > 300, "{bytes}");
    let small =
        toolbox.call("terminal_read", &json!({"session_id": "pic", "svg": true, "max_bytes": 256}));
    assert!(small.is_error && small.text.contains("over max_bytes 256"), "{}", small.text);
}

/// Threads of this process running `Toolbox::call_async` calls (their names are cut to 15
/// bytes by the kernel).
fn tool_call_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.trim_end() == "termloom-tool-c")
        })
        .count()
}

/// `call_async` never blocks the executor: a wait for text and the call that types it run
/// side by side on one thread's executor; dropping a future cancels its call, whose thread
/// then ends.
#[test]
fn calls_as_futures_share_one_executor_thread_and_end_when_dropped() {
    let toolbox = Toolbox::new(engine());
    let started = toolbox.call("terminal_start", &json!({"argv": ["cat"], "input_wait": true}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    // Made before the text is typed: were it to block, it would wait out its whole timeout.
    let reading = toolbox.call_async(
        "terminal_read",
        &json!({"session_id": id, "for_text": "hello-async", "timeout_ms": 60000}),
    );
    // The arguments are taken by reference, as `call` takes them, and the future borrows
    // nothing of them: it outlives them.
    let typing = {
        let arguments = json!({"session_id": id, "text": "hello-async\r"});
        toolbox.call_async("terminal_send", &arguments)
    };
    let (read, typed) = futures::executor::block_on(futures::future::join(reading, typing));
    let (read, typed) = (read.unwrap(), typed.unwrap());
    assert!(!typed.is_error, "{}", typed.text);
    assert!(read.text.contains("matched"), "{}", read.text);
    assert_eq!(read.structured.unwrap()["wait"]["outcome"], "matched");

    let waiting = toolbox.call_async(
        "terminal_read",
        &json!({"session_id": id, "for_text": "never", "timeout_ms": 600000}),
    );
    // A thread of this process: no engine wait sees it, so it is polled with a deadline.
    let until = |what: &str, condition: &dyn Fn() -> bool| {
        let begun = Instant::now();
        while !condition() {
            assert!(begun.elapsed() < LONG, "timed out waiting until {what}");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    };
    until("the call's thread runs", &|| tool_call_threads() == 1);
    drop(waiting);
    until("the dropped call's thread ends", &|| tool_call_threads() == 0);
    let closed = toolbox.call("terminal_close", &json!({"session_id": id}));
    assert!(!closed.is_error, "{}", closed.text);
}

/// `terminal_run` on a shell started with shell integration that has not drawn its first
/// prompt yet (its startup file takes a second) waits for that prompt, then runs the command.
/// It was refused, as if the shell had no integration. One that never marks a prompt is
/// refused so.
#[test]
fn a_command_run_before_the_first_prompt_waits_for_it() {
    if !require("bash") {
        return;
    }
    let home = TestDir::new("slow-startup");
    std::fs::write(home.join(".bashrc"), "sleep 1\n").unwrap();
    let toolbox = Toolbox::new(engine());
    let started = toolbox.call(
        "terminal_start",
        &json!({
            "argv": ["bash"], "shell_integration": true, "env": {"HOME": &*home},
            "for_text": "never", "timeout_ms": 1,
        }),
    );
    let id = started.structured.unwrap()["session_id"].clone();
    let run =
        toolbox.call("terminal_run", &json!({"session_id": id, "command": "echo $((6 * 7))"}));
    assert!(!run.is_error, "{}", run.text);
    assert!(run.text.lines().any(|line| line == "42"), "{}", run.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
    // One whose startup file runs another shell never marks a prompt: that is what it says
    // (it said keys had been typed at its prompt, and to clear the line).
    std::fs::write(home.join(".bashrc"), "exec sh -i\n").unwrap();
    let started = toolbox.call(
        "terminal_start",
        &json!({"argv": ["bash"], "shell_integration": true, "env": {"HOME": &*home}}),
    );
    let id = started.structured.unwrap()["session_id"].clone();
    let run = toolbox.call("terminal_run", &json!({"session_id": id, "command": "true"}));
    assert!(run.is_error && run.text.contains("no shell integration"), "{}", run.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A command that prints, then starts a full-screen program: its run's result holds what it
/// printed before (it was left out, the primary screen being hidden), and what the caller
/// reads once the program has ended does not repeat it, nor the command line.
#[test]
fn output_before_a_full_screen_program_is_in_the_run_and_not_repeated() {
    if !require("bash") || !require("less") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let started =
        toolbox.call("terminal_start", &json!({"argv": ["bash"], "shell_integration": true}));
    let id = started.structured.unwrap()["session_id"].clone();
    let command = "echo before-pager && seq 1 100 | LESS= less";
    let run = toolbox.call("terminal_run", &json!({"session_id": id, "command": command}));
    let structured = run.structured.unwrap();
    assert_eq!(structured["output"], "before-pager\n", "{}", run.text);
    let quit =
        toolbox.call("terminal_send", &json!({"session_id": id, "keys": "q", "prompt": true}));
    assert!(
        !quit.text.contains("before-pager") && !quit.text.contains("seq 1 100"),
        "{}",
        quit.text
    );
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Text a program only echoed, waiting again (a line editor's `(y or n)` wants Enter after
/// the `y`), is said to be typed but not submitted; a key a program took at once is not.
#[test]
fn text_typed_but_not_submitted_is_said_so() {
    if !require("bash") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let script = "read -e -p 'Quit anyway? (y or n) ' a; echo got $a; \
                  read -n1 -p 'Press a key: ' k; echo; echo pressed $k; read z";
    let started = toolbox.call(
        "terminal_start",
        &json!({"argv": ["bash", "--norc", "--noprofile", "-c", script], "input_wait": true}),
    );
    let id = started.structured.unwrap()["session_id"].clone();
    let typed = toolbox.call("terminal_send", &json!({"session_id": id, "text": "y"}));
    assert!(typed.text.contains("typed, not submitted"), "{}", typed.text);
    let keys = json!({"session_id": id, "keys": "<Enter>", "for_text": "Press a key"});
    let submitted = toolbox.call("terminal_send", &keys);
    assert!(submitted.text.contains("got y"), "{}", submitted.text);
    let pressed = toolbox.call("terminal_send", &json!({"session_id": id, "text": "k"}));
    assert!(pressed.text.contains("pressed k"), "{}", pressed.text);
    assert!(!pressed.text.contains("not submitted"), "{}", pressed.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// A search typed into a pager on the primary screen (`less` as git runs it, `LESS=FRX`),
/// without Enter, replaces its `:` prompt with what was typed: said to be typed but not
/// submitted, as at a line editor; once Enter submits it, the result says no such thing,
/// nor does a count (`5`) or an option prefix (`-`) typed there, which wait for another
/// key, not for Enter.
#[test]
fn a_search_typed_into_a_pager_is_said_not_submitted() {
    if !require("bash") || !require("less") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let started = toolbox.call(
        "terminal_start",
        &json!({"command": "seq 1 100 | LESS=FRX less", "rows": 10, "input_wait": true}),
    );
    let id = started.structured.unwrap()["session_id"].clone();
    assert!(started.text.contains("\n9\n:"), "{}", started.text);
    let typed = toolbox.call("terminal_send", &json!({"session_id": id, "text": "/50"}));
    assert!(typed.text.contains("typed, not submitted"), "{}", typed.text);
    assert!(typed.text.ends_with("\n/50"), "{}", typed.text);
    let searched = toolbox.call("terminal_send", &json!({"session_id": id, "keys": "<Enter>"}));
    assert!(searched.text.contains("\n50\n"), "{}", searched.text);
    assert!(!searched.text.contains("not submitted"), "{}", searched.text);
    // A count typed in place of the prompt waits for a command key, not for Enter.
    let count = toolbox.call("terminal_send", &json!({"session_id": id, "text": "5"}));
    assert!(count.text.ends_with("\n5"), "{}", count.text);
    assert!(!count.text.contains("not submitted"), "{}", count.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
    // Nor does an option prefix (`-`), which replaces the prompt as a search does.
    let started = toolbox.call(
        "terminal_start",
        &json!({"command": "seq 1 100 | LESS=FRX less", "rows": 10, "input_wait": true}),
    );
    let id = started.structured.unwrap()["session_id"].clone();
    let option = toolbox.call("terminal_send", &json!({"session_id": id, "text": "-"}));
    assert!(option.text.ends_with("\n-"), "{}", option.text);
    assert!(!option.text.contains("not submitted"), "{}", option.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Dropping a `call_async` future of a `terminal_send` that submitted a line interrupts the
/// command it typed, as its docs say (and as a cancelled MCP call does): a host's own
/// timeout around the future stops the program, not only the wait.
#[test]
fn a_dropped_call_that_submitted_a_line_interrupts_its_command() {
    let engine = engine();
    let toolbox = Toolbox::new(engine.clone());
    let started = toolbox.call(
        "terminal_start",
        &json!({"argv": ["sh", "-c", "read line; echo got-$line; exec sleep 1000"], "input_wait": true}),
    );
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].as_u64().unwrap();
    let session = engine.session(termloom::SessionId(id)).unwrap();
    let sending = toolbox.call_async(
        "terminal_send",
        &json!({"session_id": id, "text": "it", "submit": true, "for_text": "never", "timeout_ms": 600000}),
    );
    expect(&session, termloom::Until::text("got-it"));
    drop(sending);
    let outcome = expect(&session, termloom::Until::exit());
    assert_eq!(
        outcome.fired,
        termloom::Fired::Exited { status: termloom::ExitStatus::Signal(2) },
        "{outcome:?}"
    );
}

/// A call that typed (or signalled, or resized) and then found the session's waits at their
/// bound says that it typed, not that nothing was typed: told "nothing was typed", a model
/// sends its line again, and the program runs it twice. Measured before the fix: with 64
/// `call_async` reads pending, a `terminal_send` of `go` was refused with "nothing was
/// typed" while `cat` had printed `go` twice (its echo and its copy).
#[test]
fn a_send_whose_wait_is_refused_says_it_typed() {
    let config = termloom::Config { max_waits: 1, ..termloom::Config::default() };
    let engine = termloom::Engine::new(config).unwrap();
    let toolbox = Toolbox::new(engine.clone());
    let started = toolbox.call("terminal_start", &json!({"argv": ["cat"], "input_wait": true}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].as_u64().unwrap();
    let session = engine.session(termloom::SessionId(id)).unwrap();
    // The session's one wait, in place before the call (requests are taken in order).
    let pending = session.wait_async(termloom::Until::text("never printed"), LONG);
    let sent = toolbox.call("terminal_send", &json!({"session_id": id, "text": "typed-once\r"}));
    assert!(sent.is_error, "{}", sent.text);
    assert_eq!(sent.error_code.as_deref(), Some("too_many_waits"));
    assert!(!sent.text.contains("nothing was typed"), "{}", sent.text);
    assert!(sent.text.contains("the input was typed"), "{}", sent.text);
    let resized =
        toolbox.call("terminal_resize", &json!({"session_id": id, "cols": 90, "rows": 20}));
    assert_eq!(resized.error_code.as_deref(), Some("too_many_waits"), "{}", resized.text);
    assert!(resized.text.contains("the session was resized"), "{}", resized.text);
    // Refused between the parts of its keys, a call names the text it typed before them.
    let keyed =
        toolbox.call("terminal_send", &json!({"session_id": id, "text": "x", "keys": "<Tab>y"}));
    assert_eq!(keyed.error_code.as_deref(), Some("too_many_waits"), "{}", keyed.text);
    assert!(keyed.text.starts_with("the text and the keys up to a Tab"), "{}", keyed.text);
    drop(pending);
    // It was typed.
    expect(&session, termloom::Until::regex("^typed-once$").unwrap());
    assert_eq!(session.screen().unwrap().cols, 90);
}

/// With the `fault-injection` feature, a tool's code panics, as a bug would: the call fails
/// with error code `internal`, as over MCP, and the toolbox, the engine and its sessions go
/// on. Before, the panic unwound through the host's thread from `Toolbox::call`, and a
/// `call_async` future ended with `EngineStopped`, though the engine ran on.
#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_in_a_tool_fails_its_call_alone() {
    let config = termloom::Config {
        inject_panic_in_tool: Some("terminal_list".into()),
        ..termloom::Config::default()
    };
    let toolbox = Toolbox::new(termloom::Engine::new(config).unwrap());
    let started = toolbox.call("terminal_start", &json!({"argv": ["cat"], "input_wait": true}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let called = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        toolbox.call("terminal_list", &json!({}))
    }));
    let listed = called.expect("the panic stays in the call");
    let asynchronous = futures::executor::block_on(toolbox.call_async("terminal_list", &json!({})));
    let listed_async = asynchronous.expect("the engine did not stop");
    for listed in [listed, listed_async] {
        assert!(listed.is_error, "{}", listed.text);
        assert_eq!(listed.error_code.as_deref(), Some("internal"), "{}", listed.text);
        assert!(listed.text.contains("terminal_list tool failed unexpectedly"), "{}", listed.text);
    }
    let sent =
        toolbox.call("terminal_send", &json!({"session_id": id, "text": "on\r", "for_text": "on"}));
    assert!(!sent.is_error, "{}", sent.text);
}

/// `call_async` calls past `Toolbox::max_concurrent_calls` get no thread of their own: up to
/// `Toolbox::max_queued_calls` more (32 by default) wait for a running one to end, the rest
/// are refused at once with code `busy`. Measured before the bound: 2,000 dropped calls
/// peaked at 1,901 threads.
#[test]
fn calls_as_futures_are_bounded_in_threads() {
    taken_and_refused(Toolbox::new(engine()).max_concurrent_calls(4), 4, 32, 200);
}

/// The calls waiting for a thread are a bound of their own, set apart from the threads': with
/// 2 threads and a queue of 5, 7 calls are taken and the next is refused `busy`; with a queue
/// of 0, every call past those running is. The queue was as long as the threads' limit,
/// whatever the host needed.
#[test]
fn calls_waiting_for_a_thread_have_a_bound_of_their_own() {
    let engine = engine();
    for (limit, queue) in [(2, 5), (3, 0)] {
        let toolbox =
            Toolbox::new(engine.clone()).max_queued_calls(queue).max_concurrent_calls(limit);
        taken_and_refused(toolbox, limit, queue, limit + queue + 1);
    }
}

/// Makes `calls` `call_async` calls on `toolbox`, whose limits are `limit` threads and `queue`
/// calls waiting, each waiting long for text that never comes: the first `limit + queue` are
/// taken (pending), the rest refused `busy` at once, and no more than `limit` threads run.
fn taken_and_refused(toolbox: Toolbox, limit: usize, queue: usize, calls: usize) {
    let started = toolbox.call("terminal_start", &json!({"argv": ["cat"], "input_wait": true}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let before = tool_call_threads();
    let arguments = json!({"session_id": id, "for_text": "never", "timeout_ms": 600000});
    let made: Vec<_> =
        (0..calls).map(|_| toolbox.call_async("terminal_read", &arguments)).collect();
    // (Another test of this file may run a call of its own meanwhile: a few threads more.)
    let threads = tool_call_threads();
    assert!(threads <= before + limit + 3, "{threads} threads for {limit} calls");
    let mut pending = 0;
    let mut busy = 0;
    for call in made {
        // A call that runs or waits is not ready (and is dropped, so cancelled, here).
        match futures::FutureExt::now_or_never(call) {
            None => pending += 1,
            Some(result) => {
                let result = result.unwrap();
                assert_eq!(result.error_code.as_deref(), Some("busy"), "{}", result.text);
                let said = format!("running {limit} tool calls, and {queue} more wait");
                assert!(result.text.contains(&said), "{}", result.text);
                busy += 1;
            }
        }
    }
    assert_eq!((pending, busy), (limit + queue, calls - limit - queue), "{limit} and {queue}");
    let closed = toolbox.call("terminal_close", &json!({"session_id": id}));
    assert!(!closed.is_error, "{}", closed.text);
}

/// A `call_async` call dropped while it waited for a thread is not run: the resize it asked
/// for is never done. (It was run when a thread took it: a `terminal_send` checks for its
/// cancellation before it types, but a resize, a signal, a close or a start did not.)
#[test]
fn a_call_dropped_before_its_thread_took_it_does_not_run() {
    let engine = engine();
    let toolbox = Toolbox::new(engine.clone()).max_concurrent_calls(1);
    let started = toolbox.call("terminal_start", &json!({"argv": ["cat"], "input_wait": true}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let blocking = toolbox.call_async(
        "terminal_read",
        &json!({"session_id": id, "for_text": "never", "timeout_ms": 600000}),
    );
    let session = engine.session(termloom::SessionId(id.as_u64().unwrap())).unwrap();
    let cols = session.screen().unwrap().cols;
    let resize = json!({"session_id": id, "cols": cols + 10, "rows": 20});
    let dropped = toolbox.call_async("terminal_resize", &resize);
    drop(dropped);
    drop(blocking);
    // Taken in order: once there is room for this call, the dropped one has been taken; the
    // thread that took it runs this one after it (or had ended).
    let arguments = json!({"session_id": id, "text": "after-text\r", "for_text": "after-text"});
    let begun = Instant::now();
    let after = loop {
        let result = futures::executor::block_on(toolbox.call_async("terminal_send", &arguments));
        let result = result.unwrap();
        if result.error_code.as_deref() != Some("busy") {
            break result;
        }
        assert!(begun.elapsed() < LONG, "the toolbox stayed busy");
        std::thread::yield_now();
    };
    assert!(!after.is_error, "{}", after.text);
    assert_eq!(session.screen().unwrap().cols, cols);
}

/// A wait refused after typing says what was typed, not that nothing was sent: here the line
/// typed starts a full-screen program, which the wait's check then finds on the alternate
/// screen (the keys are typed in two parts around the Tab, and the first part's settle ends
/// once the program reads again, after it took the alternate screen). Before, the call said
/// "...on the alternate screen...; nothing was sent" though `go` was typed and read, and a
/// model would type it again.
#[test]
fn a_wait_refused_after_typing_says_what_was_typed() {
    if !require("sh") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let program = "read x; printf '\\033[?1049hALT'; read y; sleep 100";
    let start = json!({"argv": ["sh", "-c", program], "input_wait": true});
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].as_u64().unwrap();
    let arguments = json!({"session_id": id, "keys": "go<Enter><Tab>x", "for_text": "never"});
    let sent = toolbox.call("terminal_send", &arguments);
    assert!(sent.is_error, "{}", sent.text);
    assert_eq!(sent.error_code.as_deref(), Some("invalid_input"), "{}", sent.text);
    assert!(sent.text.contains("alternate screen"), "{}", sent.text);
    assert!(sent.text.starts_with("the input was typed"), "{}", sent.text);
    assert!(!sent.text.contains("nothing was sent"), "{}", sent.text);
}

/// A full-screen program that draws a screen named by each key it reads (`w` `x` `a` `b`),
/// its cursor hidden at the first column of the last row; `c` draws `a`'s screen with the
/// hidden cursor five columns on, and `q` quits. Each screen is ten rows of its letter.
const SCREENS: &str = r#"
import os, sys, tty
tty.setraw(0)
def draw(name, col, row=13):
    rows = "".join((name * 60) + "\r\n" for _ in range(10))
    sys.stdout.write("\x1b[H\x1b[2J" + rows + "screen " + name + "\x1b[%d;%dH" % (row, col + 1))
    sys.stdout.flush()
sys.stdout.write("\x1b[?1049h\x1b[?25l")
draw("W", 0)
while True:
    key = os.read(0, 1).decode()
    if key == "q":
        break
    if key == "c":
        draw("A", 5)
    elif key == "d":
        draw("A", 0, 18)
    else:
        draw(key.upper(), 0)
"#;

/// Starts [`SCREENS`]; returns its session id.
fn started_screens(toolbox: &Toolbox) -> Value {
    let start = json!({"argv": ["python3", "-c", SCREENS], "for_screen_text": "screen W"});
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    started.structured.unwrap()["session_id"].clone()
}

/// A whole read of a screen that differs from one the caller saw only in a hidden cursor's
/// place (which no result marks) is that screen: its look moves to the newest place. Kept as
/// a new look, it pushed the oldest out and the count of every older screen one too far:
/// after W, X, A, B and A again (`view="screen"`, the hidden cursor moved), X, three different
/// screens back, was told as four back. So too when the hidden cursor moved below the text,
/// where a whole read shows blank rows down to it (`d`, review wt).
#[test]
fn a_whole_read_of_a_screen_seen_with_its_hidden_cursor_moved_is_that_look() {
    if !require("python3") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    for moved in ["c", "d"] {
        let id = started_screens(&toolbox);
        let send = |keys: &str, view: &str| {
            let arguments = json!({"session_id": id, "keys": keys, "view": view});
            let sent = toolbox.call("terminal_send", &arguments);
            assert!(!sent.is_error, "{}", sent.text);
            sent.text
        };
        for (key, name) in [("x", "X"), ("a", "A"), ("b", "B")] {
            let shown = send(key, "new");
            assert!(shown.contains(&format!("screen {name}")), "{shown}");
        }
        let again = send(moved, "screen");
        assert!(again.contains("screen A") && again.contains("cursor hidden"), "{again}");
        let back = send("x", "new");
        let told = "the same as the screen you saw 3 different screens ago";
        assert!(back.contains(told), "{moved}: {back}");
        toolbox.call("terminal_close", &json!({"session_id": id}));
    }
}

/// Reads of one session by one caller running at once shape and remember its screen one
/// after the other. Each was told the same as look 2 (B, drawn by another caller after this
/// one saw B, then A); the first moved that look to the newest place, and the second then
/// forgot the look in its place, A, keeping B twice: A drawn again was not told as the
/// previous different screen, but sent whole.
#[test]
fn reads_of_one_session_at_once_keep_the_looks_they_tell() {
    if !require("python3") {
        return;
    }
    let engine = engine();
    let (toolbox, other) = (Toolbox::new(engine.clone()), Toolbox::new(engine));
    let id = started_screens(&toolbox);
    let send = |toolbox: &Toolbox, keys: &str| {
        let arguments = json!({"session_id": id, "keys": keys});
        let sent = toolbox.call("terminal_send", &arguments);
        assert!(!sent.is_error, "{}", sent.text);
        sent.text
    };
    send(&toolbox, "b");
    send(&toolbox, "a");
    for round in 0..40 {
        send(&other, "b");
        let reads: Vec<_> = (0..4)
            .map(|_| {
                let toolbox = toolbox.clone();
                let arguments = json!({"session_id": id});
                std::thread::spawn(move || toolbox.call("terminal_read", &arguments))
            })
            .collect();
        for read in reads {
            let read = read.join().unwrap();
            assert!(!read.is_error, "{}", read.text);
        }
        send(&other, "a");
        let shown = toolbox.call("terminal_read", &json!({"session_id": id})).text;
        assert!(
            shown.contains("the same as the previous different screen you saw"),
            "round {round}: {shown}"
        );
    }
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// The header names a line wrapped before a wide character as the transcript holds it: a
/// blank printed in the last column before a wide character at the next row's start is
/// kept (`a…a 漢 name:`), and the cell the terminal left empty where a wide character did
/// not fit is not (`a…a漢 name:`). The blank was dropped, guessed from the widths as that
/// empty cell.
#[test]
fn the_header_keeps_a_blank_printed_before_a_wide_character_on_the_next_row() {
    if !require("sh") {
        return;
    }
    let toolbox = Toolbox::new(engine());
    let line = "a".repeat(39);
    for named in [format!("{line} 漢 name:"), format!("{line}漢 name:")] {
        let prompt = format!("printf '%s ' '{named}'; read x");
        let start =
            json!({"argv": ["sh", "-c", prompt], "cols": 40, "rows": 12, "input_wait": true});
        let started = toolbox.call("terminal_start", &start);
        assert!(!started.is_error, "{}", started.text);
        let id = started.structured.unwrap()["session_id"].clone();
        let read = toolbox.call("terminal_read", &json!({"session_id": id}));
        assert_eq!(read.text, format!("[sh waiting for a line at \"{named}\" · no new output]"));
        toolbox.call("terminal_close", &json!({"session_id": id}));
    }
}

/// tmux with two panes is named as the program the session runs, `tmux`: `/proc` cannot tell
/// which pane is shown and gets the keys, so the reader is its server, which a header named
/// by its process title, `tmux: server`, a name the session never ran. With one pane the
/// pane's program is named, in tmux.
#[test]
fn tmux_with_two_panes_is_named_tmux_not_its_server() {
    if !require("tmux") || !require("bash") {
        return;
    }
    let dir = TestDir::new("tmux-split");
    let socket = dir.join("s");
    let socket = socket.to_str().unwrap();
    let _server = TmuxServer(socket);
    let toolbox = Toolbox::new(engine());
    let pane = "bash --norc --noprofile -i";
    let argv = ["tmux", "-S", socket, "-f", "/dev/null", "new-session", pane];
    let started = toolbox.call("terminal_start", &json!({"argv": argv, "rows": 24}));
    assert!(started.text.contains("bash in tmux waiting for keys"), "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let split = json!({"session_id": id, "keys": "<C-b>%", "input_wait": true});
    let split = toolbox.call("terminal_send", &split);
    assert!(split.text.starts_with("[tmux waiting for keys"), "{}", split.text);
    assert!(!split.text.contains("tmux: server"), "{}", split.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// mc's Mkdir dialog is marked as what stands out, with its focused field, and so are the
/// panel's selection and title under it: a rule that took the dialog's shadow row out of the
/// styled runs before they were counted left the dialog unmarked and marked the F-key bar.
#[test]
fn mcs_dialog_stays_marked_over_its_panels() {
    if !require("mc") {
        return;
    }
    let home = TestDir::new("mc-dialog-home");
    let dir = TestDir::new("mc-dialog");
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    let toolbox = Toolbox::new(engine());
    let path = dir.to_str().unwrap();
    let start = json!({
        "argv": ["mc", "-u", path, path], "env": {"HOME": home.to_str().unwrap()},
        "cols": 80, "rows": 24,
    });
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let panels = json!({"session_id": id, "view": "screen", "input_wait": true});
    let panels = toolbox.call("terminal_read", &panels);
    assert!(panels.text.contains("a.txt"), "{}", panels.text);
    let opened = toolbox.call("terminal_send", &json!({"session_id": id, "keys": "<F7>"}));
    assert!(opened.text.contains("⟦ ┌────── Create a new Directory"), "{}", opened.text);
    // The whole screen, as a caller that saw none of it reads it.
    let whole = json!({"session_id": id, "view": "screen"});
    let whole = Toolbox::new(toolbox.engine().clone()).call("terminal_read", &whole).text;
    assert!(whole.contains("⟦ ┌────── Create a new Directory"), "{whole}");
    assert!(whole.contains("│⟦/.."), "the panel's selection: {whole}");
    assert!(!whole.contains("⟦ 1⟧Help"), "the F-key bar: {whole}");
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Text ending in an Escape, then keys, typed to vim busy in `system()` (canonical mode while
/// it runs the command): the keys wait for the Escape to be read, however the terminal reads,
/// unless they end the line. Typed at once (canonical mode was taken for a line holding them
/// all), vim read `<Esc>Ot` as the keypad's 4: `one4wo` (review xa).
#[test]
fn keys_after_texts_escape_wait_for_vim_busy_in_a_command() {
    if !require("vim") {
        return;
    }
    let dir = TestDir::new("vim-busy-escape");
    let file = dir.join("v.txt");
    let toolbox = Toolbox::new(engine());
    let argv = json!(["vim", "--clean", "-n", file.to_str().unwrap()]);
    let start = json!({"argv": argv, "for_screen_text": "v.txt"});
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let send = |arguments: Value| {
        let sent = toolbox.call("terminal_send", &arguments);
        assert!(!sent.is_error, "{}", sent.text);
    };
    send(json!({"session_id": id, "text": ":call system(\"sleep 1\")\r", "timeout_ms": 200}));
    send(json!({"session_id": id, "text": "ione\u{1b}", "keys": "Otwo<Esc>"}));
    send(json!({"session_id": id, "keys": ":wq<Enter>", "exit": true}));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "two\none\n");
}

/// A `search` result repeats the model's regex by its start only: a `(?x)` comment makes a
/// regex of any length that adds nothing to search, and the header repeated it whole (a
/// 100,000-byte pattern under `max_bytes=256` returned 200,107 bytes, review wy).
#[test]
fn a_long_search_pattern_is_shown_by_its_start() {
    let toolbox = Toolbox::new(engine());
    let started = toolbox.call(
        "terminal_start",
        &json!({"argv": ["sh", "-c", "echo hello; read z"], "input_wait": true}),
    );
    let id = started.structured.unwrap()["session_id"].clone();
    let pattern = format!("(?x)hello #{}", "\"".repeat(100_000));
    let read = json!({"session_id": id, "search": pattern, "max_bytes": 256});
    let found = toolbox.call("terminal_read", &read);
    assert!(!found.is_error, "{}", &found.text[..found.text.len().min(300)]);
    let size = serde_json::to_string(&found.text).unwrap().len()
        + found.structured.as_ref().map_or(0, |s| serde_json::to_string(s).unwrap().len());
    assert!(size <= 256 + MAX_BYTES_OVERHEAD, "{size}");
    assert!(
        found.text.contains("… (100011 bytes)/"),
        "{}",
        &found.text[..found.text.len().min(400)]
    );
    assert!(found.text.contains("hello"), "{}", found.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Output that fits whole around what a wait matched is kept whole: no room is held for a
/// note on later bytes it does not need (review xd: 13 lines under `max_bytes` 1024 were cut
/// to the 9 from the match on, the note never said).
#[test]
fn output_that_fits_around_a_match_is_kept_whole() {
    let toolbox = Toolbox::new(engine());
    let script = "read a; seq -f 'line %g of output xxxxxxxxxxxx' 1 13; read z";
    let start = json!({"argv": ["sh", "-c", script], "input_wait": true});
    let started = toolbox.call("terminal_start", &start);
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let send = json!({"session_id": id, "text": "\r", "for_text": "line 13 of", "max_bytes": 1024});
    let sent = toolbox.call("terminal_send", &send);
    assert!(sent.text.contains("line 1 of output"), "{}", sent.text);
    assert!(!sent.text.contains("left out"), "{}", sent.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Keys after an Escape typed to a program reading a line in canonical mode (python's
/// `input()`, blocked reading the terminal) go at once: the line discipline holds the Escape
/// until the line ends, so the input queue never empties before the Enter (`input_read`
/// never holds there), and the wait for input ends the wait after the Escape. (A wait after
/// the Escape ended by `input_read` alone, with the exit, took the whole 8 s.)
#[test]
fn keys_after_an_escape_to_a_line_reader_go_at_once() {
    let toolbox = Toolbox::new(engine());
    let argv = json!(["python3", "-c", "print('ready'); print(repr(input()))"]);
    let started =
        toolbox.call("terminal_start", &json!({"argv": argv, "for_screen_text": "ready"}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let sent = Instant::now();
    let send =
        json!({"session_id": id, "keys": "x<Esc>y<Enter>", "timeout_ms": 8000, "exit": true});
    let answer = toolbox.call("terminal_send", &send);
    let took = sent.elapsed();
    assert!(answer.text.contains(r"'x\x1by'"), "{}", answer.text);
    assert!(took < std::time::Duration::from_millis(2500), "took {took:?}: {}", answer.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}

/// Keys after an Escape typed to a program that never waits for input (raw mode, polling the
/// terminal between naps) and prints nothing once it read the Escape go about two seconds
/// after it was read (`AFTER_AN_ESCAPE_READ`, and a second more as it printed nothing):
/// `Until::input_read` needed output after the input queue was found empty, and they waited
/// the call's whole timeout (here 8 s). The program prints each read, with its time, once it
/// reads `q`.
#[test]
fn keys_after_an_escape_read_by_a_quiet_poller_go_soon() {
    let quiet = include_str!("common/quiet_poller.py");
    let toolbox = Toolbox::new(engine());
    for (keys, wanted) in [("<Esc>q", &["1b", "71"][..]), ("a<Esc>q", &["61", "1b", "71"][..])] {
        let argv = json!(["python3", "-c", quiet]);
        let started =
            toolbox.call("terminal_start", &json!({"argv": argv, "for_screen_text": "ready"}));
        assert!(!started.is_error, "{}", started.text);
        let id = started.structured.unwrap()["session_id"].clone();
        let send = json!({"session_id": id, "keys": keys, "timeout_ms": 8000});
        let sent = Instant::now();
        let answer = toolbox.call("terminal_send", &send);
        let took = sent.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "{keys}: took {took:?}: {}", answer.text);
        let screen = toolbox.call("terminal_read", &json!({"session_id": id, "view": "screen"}));
        let reads: Vec<(f64, &str)> = screen
            .text
            .lines()
            .filter_map(|line| line.trim_end().split_once(' '))
            .filter_map(|(time, hex)| Some((time.parse().ok()?, hex.trim_end_matches('▌'))))
            .collect();
        let hexes: Vec<&str> = reads.iter().map(|(_, hex)| *hex).collect();
        assert_eq!(hexes, wanted, "{keys}: {}", screen.text);
        let gap = reads[reads.len() - 1].0 - reads[reads.len() - 2].0;
        assert!(gap < 4.0, "{keys}: q came {gap:.2} s after the Escape: {}", screen.text);
        toolbox.call("terminal_close", &json!({"session_id": id}));
    }
}

/// Keys after an Escape typed through a relay (`script`, as `sudo` with `use_pty`, `ssh` or
/// `docker exec` relay) to a program busy in raw mode wait until it read the Escape (review
/// xe): the relay reads the Escape at once and waits on the terminal again, printing
/// nothing, while the program behind it computes for 4 s before it reads; silence alone (a
/// second after `AFTER_AN_ESCAPE_READ`) typed the `q`, which it read with the Escape as
/// Alt-q (`1b71`). The program prints each read, with its time, once it reads `q`.
#[test]
fn keys_after_an_escape_through_a_relay_wait_for_the_busy_program() {
    if !require("script") || !require("python3") {
        return;
    }
    let program = std::env::temp_dir().join(format!("termloom-busy-{}.py", std::process::id()));
    std::fs::write(&program, include_str!("common/busy_after_x.py")).unwrap();
    let inner = format!("python3 {}", program.display());
    let argv = json!(["script", "-qfc", inner, "/dev/null"]);
    let toolbox = Toolbox::new(engine());
    let started =
        toolbox.call("terminal_start", &json!({"argv": argv, "for_screen_text": "ready"}));
    assert!(!started.is_error, "{}", started.text);
    let id = started.structured.unwrap()["session_id"].clone();
    let send = json!({"session_id": id, "keys": "x<Esc>q", "timeout_ms": 15000});
    let answer = toolbox.call("terminal_send", &send);
    let read =
        json!({"session_id": id, "view": "screen", "for_screen_text": "71", "timeout_ms": 15000});
    let screen = toolbox.call("terminal_read", &read);
    let _ = std::fs::remove_file(&program);
    let hexes: Vec<&str> = screen
        .text
        .lines()
        .filter_map(|line| line.trim_end().split_once(' '))
        .filter(|(time, _)| time.parse::<f64>().is_ok())
        .map(|(_, hex)| hex.trim_end_matches('▌'))
        .collect();
    assert_eq!(hexes, ["78", "1b", "71"], "{}\n{}", answer.text, screen.text);
    toolbox.call("terminal_close", &json!({"session_id": id}));
}
