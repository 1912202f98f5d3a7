//! A started test session: [`TestSession`], its waits that panic readably, and
//! [`WithStyles`].

use super::*;
use crate::reactor::{Noted, Typing};

/// A session started for a test: deterministic environment, a temporary `HOME`, and methods
/// that panic with a readable message instead of returning errors.
///
/// It dereferences to [`Session`] for everything else (mouse, signals, resize...). Dropping it
/// closes the session (a hangup, then `SIGTERM`, then `SIGKILL` to what still runs after the
/// [`close_grace`](TestSessionBuilder::close_grace), 1 s by default) and removes the temporary
/// `HOME`.
pub struct TestSession {
    pub(super) session: Session,
    /// The session as the kit's own waits read it: their transcript conditions look at output
    /// after the last input the kit typed (typing moves this reader to the end) and skip the
    /// echo of a typed line (`typed`); the handle's own reads are untouched.
    pub(super) waits: Session,
    /// The line the last submitted input was typed on, whose echo is no answer to it.
    pub(super) typed: std::sync::Mutex<Option<crate::term::transcript::TypedLine>>,
    pub(super) engine: Engine,
    pub(super) command: String,
    pub(super) timeout: Duration,
    pub(super) settle: Duration,
    pub(super) stuck_after: Option<Duration>,
    pub(super) redactions: Redactions,
    pub(super) snapshot_folder: SnapshotFolder,
    pub(super) home: TempHome,
}

impl std::fmt::Debug for TestSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestSession")
            .field("command", &self.command)
            .field("session", &self.session)
            .field("home", &self.home.path)
            .finish()
    }
}

impl Deref for TestSession {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

impl Drop for TestSession {
    fn drop(&mut self) {
        let _ = self.session.close();
        self.engine.shutdown();
    }
}

impl TestSession {
    /// A builder for a session running `program`.
    #[track_caller]
    pub fn builder(program: impl AsRef<OsStr>) -> TestSessionBuilder {
        TestSessionBuilder::new(program)
    }

    /// A builder for bash with no startup files (`--norc --noprofile`), the prompt `$ `
    /// (`PS2` is `> `), and its history in `$HOME/.bash_history`; starting it waits until the
    /// prompt is drawn and bash waits for input. A prompt of the test's own
    /// (`.env("PS1", r"\u@\h:\w\$ ")`) is waited for the same way, whatever it shows.
    #[track_caller]
    pub fn bash() -> TestSessionBuilder {
        let mut builder = TestSessionBuilder::new("bash")
            .args(["--norc", "--noprofile"])
            .env("PS1", "$ ")
            .env("PS2", "> ")
            .ready_when(Until::input_wait());
        builder.bash_prompt = true;
        builder
    }

    /// The underlying session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session's temporary `HOME`.
    pub fn home(&self) -> &Path {
        &self.home.path
    }

    /// The engine the session runs on, to start a program beside it (a client of the server
    /// under test): `engine().spawn(SpawnSpec::new("client").env("HOME", home()))`. Such a
    /// session is the engine's, not the kit's: it inherits the test process's environment (as
    /// [`Engine::spawn`] passes it, credentials left out) with its spec's variables over it,
    /// not the kit's fixed environment, and the engine's default size; the engine closes it
    /// when the test session is dropped (with the kit's
    /// [`close_grace`](TestSessionBuilder::close_grace)). For a client in the kit's environment, start a
    /// [`TestSession`] of its own with `.env("HOME", server.home())`.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The command line that was started (`HOME` redacted).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The redactions applied to this session's snapshots.
    pub fn redactions(&self) -> &Redactions {
        &self.redactions
    }

    #[track_caller]
    fn check<T>(&self, what: &str, result: crate::Result<T>) -> T {
        or_panic(result, |e| {
            // (An error may name a path in the temporary `HOME`.)
            let e = Redactions::new().home(&self.home.path).apply(&e.to_string());
            format!("termloom: {what} failed for `{}`: {e}\n\n{}", self.command, self.context(None))
        })
    }

    /// Types a key script such as `ihello<Esc>:wq<Enter>` (see [`Session::send_keys`]), in one
    /// write: an `<Esc>` followed by more keys reaches the program in the same read as them,
    /// which crossterm (ratatui), termion and other key readers take as Alt with the next key
    /// (`<Esc>q` as Alt-q). [`press`](Self::press) lets the program read the Escape first.
    #[track_caller]
    pub fn send_keys(&self, script: &str) -> &Self {
        let what = format!("send_keys({script:?})");
        match crate::input::keys::parse_key_script(script) {
            Ok(items) => self.type_noting_line(&what, Noted::Typing(Typing::Keys(items))),
            Err(err) => self.check(&what, Err(err.into())),
        }
    }

    /// Types text as it is (no key notation, no escapes).
    #[track_caller]
    pub fn type_text(&self, text: &str) -> &Self {
        self.type_bytes("type_text", text.as_bytes())
    }

    /// Types text as it is, then Enter.
    #[track_caller]
    pub fn type_line(&self, text: &str) -> &Self {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(b'\r');
        self.type_bytes("type_line", &bytes)
    }

    /// Types text with its backslash escapes decoded, as [`Session::send_text`] does. As
    /// after every way of typing the kit has (the session's own, reached through `Deref`,
    /// bypass it), the kit's waits look past what was printed before, and past the echo of a
    /// line the text submits (`\r` last): through the session's `send_text`, a wait after
    /// `send_text("echo one\\r")` matched `one` in its echo. Text ending in Escapes
    /// (`hello\\e`, `x\\e\\e`) is typed as MCP `terminal_send` types it
    /// ([`text_typing_steps`](crate::text_typing_steps)): the bytes before the Escapes, then
    /// each Escape, once the program answered what came before (half a second at most before
    /// the first Escape, 150 ms before another; at once while the terminal reads whole lines,
    /// [`line_holds_text`](crate::line_holds_text)), as [`press`](Self::press) types
    /// `hello<Esc>`.
    #[track_caller]
    pub fn send_text(&self, text: &str) -> &Self {
        let bytes = crate::decode_escapes(text);
        let steps = crate::input::keys::text_typing_steps(&bytes);
        // (The first piece, or empty text, notes the line typed on; an Escape after it
        // submits none.)
        let (first, rest) =
            steps.split_first().map_or((&[][..], &[][..]), |(first, rest)| (first.0, rest));
        self.type_bytes("send_text", first);
        let mut bound = steps.first().and_then(|(_, bound)| *bound);
        for (piece, next) in rest {
            // (None while the terminal reads whole lines: the text goes on with its line.)
            let line = || self.session.info().ok().and_then(|info| info.line_modes);
            if let Some(bound) = bound
                && !crate::input::keys::line_holds_text(line(), piece)
                && self.read_within("send_text", bound)
            {
                break;
            }
            self.check("send_text", self.session.send_bytes(piece));
            bound = *next;
        }
        self
    }

    /// Types `line` with its escapes decoded, then Enter, as [`Session::submit`] does; the
    /// kit's waits look past the line's echo (see [`TestSession::send_text`]).
    #[track_caller]
    pub fn submit(&self, line: &str) -> &Self {
        self.type_bytes("submit", &crate::session::submitted(line))
    }

    /// Presses one key, as [`Session::send_key`] does (see [`TestSession::send_text`]).
    #[track_caller]
    pub fn send_key(&self, key: crate::Key) -> &Self {
        let items = vec![crate::input::keys::ScriptItem::Key(key)];
        self.type_noting_line("send_key", Noted::Typing(Typing::Keys(items)))
    }

    /// Types a secret at a password prompt, then Enter, as [`Session::send_secret`] does (see
    /// [`TestSession::send_text`]); the secret appears in no failure message.
    #[track_caller]
    pub fn send_secret(&self, secret: &str) -> &Self {
        // (Checked as the session checks it, its messages naming no secret.)
        if let Err(err) = crate::session::check_secret(secret) {
            return self.check("send_secret", Err(err));
        }
        self.type_noting_line("send_secret", Noted::Secret(secret.as_bytes().to_vec()))
    }

    /// Types bytes as they are, as [`Session::send_bytes`] does; the kit's waits look past
    /// what was printed before, and past the echo of a line they submit (see
    /// [`TestSession::send_text`]).
    #[track_caller]
    pub fn send_bytes(&self, bytes: &[u8]) -> &Self {
        self.type_bytes("send_bytes", bytes)
    }

    /// Types `bytes` for the method `what` (named if it fails), the kit's waits following.
    #[track_caller]
    fn type_bytes(&self, what: &str, bytes: &[u8]) -> &Self {
        self.type_noting_line(what, Noted::Typing(Typing::Bytes(bytes.to_vec())))
    }

    /// Types `input` for the method `what` (named if it fails), in one request that moves
    /// the kit's waits past what was printed before it and answers the line a submitted line
    /// was typed on, whose echo they look past: whether
    /// it submits is the send's own verdict, from its one reading of the terminal's modes (a
    /// question asked before it, in a request of its own, read them apart: a program that
    /// turned canonical input off between the two had the echo of a line it never got
    /// skipped).
    #[track_caller]
    fn type_noting_line(&self, what: &str, input: Noted) -> &Self {
        let typed = self.check(what, self.session.send_noting_line(input, &self.waits));
        *self.typed.lock().unwrap_or_else(|e| e.into_inner()) = typed;
        self
    }

    /// Pastes text (bracketed when the program asked for it; see [`Session::paste`]). A paste
    /// that ends with a line end, to a program that did not ask for bracketed pastes, submits
    /// a line: what it adds to the line the cursor was on is its echo, which the kit's waits
    /// look past (see [`TestSession::send_text`]). A bracketed paste submits nothing (the
    /// program's line editor holds the text, line ends and all, until Enter).
    #[track_caller]
    pub fn paste(&self, text: &str) -> &Self {
        // One request reads the output waiting unread, moves the waits past all of it, and
        // takes the line the cursor is on before writing, kept if the paste submits a line
        // by that request's reading of the modes. All the line gets is its echo: a bracketed
        // paste's newline left the cursor on a row of its own, where bash then printed the
        // answer (taken all for echo, it was never matched).
        let started = self.session.start_paste_submitting(text, None, Some(&self.waits));
        let (pending, verdict) = self.check("paste", started);
        self.check("paste", pending.finish());
        *self.typed.lock().unwrap_or_else(|e| e.into_inner()) =
            verdict.and_then(|verdict| verdict.line.filter(|_| verdict.submits));
        self
    }

    /// One wait of the kit's (see [`TestSession::waits`]). Where it found the echo of the
    /// line last submitted is kept for the next ones, which look nowhere else: a line holding
    /// the typed text, once the echo is found or has scrolled away, is an answer (`finished
    /// job`), as is the line typed on once the program rewrote it (`* Name: done`).
    fn wait_once(&self, until: Until, timeout: Duration) -> crate::Result<WaitOutcome> {
        let typed = self.typed.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let outcome = self.waits.start_wait_past(until, timeout, typed.clone())?.finish()?;
        let mut kept = self.typed.lock().unwrap_or_else(|e| e.into_inner());
        // (Unless typing since took another line.)
        if *kept == typed && outcome.typed_line.as_ref().is_some_and(|line| line.anchored) {
            kept.clone_from(&outcome.typed_line);
        }
        Ok(outcome)
    }

    /// The screen now, never half drawn: while the program draws a frame in a synchronized
    /// update (mode 2026), it waits for the frame's end (at most the engine's 150 ms bound).
    #[track_caller]
    pub fn screen(&self) -> Screen {
        self.whole_frame();
        self.check("screen", self.session.screen())
    }

    /// Waits until no synchronized update is open: screen conditions are checked only
    /// between frames, so one that always holds returns at the frame's end.
    #[track_caller]
    fn whole_frame(&self) {
        let frame = Until::screen_matches("a whole frame", |_| true);
        self.check("waiting for a whole frame", self.session.wait(frame, self.timeout));
    }

    /// The screen now in the snapshot format ([`format_screen`]), redacted as
    /// [`assert_screen_snapshot!`] stores it (the session's
    /// [`redactions`](Self::redactions): its `HOME`, its pid with
    /// [`redact_pid`](TestSessionBuilder::redact_pid), those of
    /// [`redact`](TestSessionBuilder::redact)), for `insta::assert_snapshot!(app.snapshot())`
    /// and assertions of your own. `format_screen(&app.screen())` is the screen as it is.
    #[track_caller]
    pub fn snapshot(&self) -> String {
        format_screen(&self.redactions.apply_to_screen(&self.screen()))
    }

    /// The screen now with the colours and attributes of its cells, never half drawn (see
    /// [`screen`](Self::screen)).
    #[track_caller]
    pub fn styled_screen(&self) -> StyledScreen {
        self.whole_frame();
        self.check("styled_screen", self.session.styled_screen())
    }

    /// The screen now in the snapshot format with its `styles:` section
    /// ([`format_styled_screen`]), redacted as [`snapshot`](Self::snapshot) is (the runs move
    /// with the text, see [`Redactions::apply_to_styled_screen`]).
    /// `format_styled_screen(&app.styled_screen())` is the screen as it is.
    #[track_caller]
    pub fn styled_snapshot(&self) -> String {
        format_styled_screen(&self.redactions.apply_to_styled_screen(&self.styled_screen()))
    }

    /// This session as a snapshot source that includes the colours and attributes:
    /// `assert_screen_snapshot!("menu", app.with_styles())`.
    pub fn with_styles(&self) -> WithStyles<'_> {
        WithStyles(self)
    }

    /// The last `n` lines of the transcript (what scrolled by and the primary screen down to
    /// the cursor), without moving the read cursor.
    #[track_caller]
    pub fn last_lines(&self, n: usize) -> Vec<String> {
        let text = self.check("scrollback", self.session.scrollback(64 << 10)).text;
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].iter().map(|l| l.to_string()).collect()
    }

    /// Waits until `until` holds and returns the outcome.
    ///
    /// # Panics
    ///
    /// When the wait times out, or the program exits or the session is closed first (unless
    /// `until` waits for the exit), with the screen and the last transcript lines in the
    /// message.
    ///
    /// When the program has been waiting for input with an unchanged screen for the
    /// [`stuck_after`](TestSessionBuilder::stuck_after) grace (2 s by default), the wait fails
    /// then: nothing would change before the timeout (unless another process of the session
    /// runs, such as a shell's background job: the wait goes on while it does, and is stuck
    /// once it has ended, stopped or waits for a child). Not a
    /// wait that an idle program satisfies, however long: a still screen ([`Until::stable`],
    /// as [`wait_stable`](Self::wait_stable) waits for with a settle time longer than the
    /// grace), quiet output ([`Until::quiet`]) or an input wait, alone or among the conditions
    /// of an [`Until::any`].
    #[track_caller]
    pub fn wait_until(&self, until: Until) -> WaitOutcome {
        let description = until.to_string();
        // "waiting for input", not "waiting for waiting for input".
        let what = match description.starts_with("waiting for ") {
            true => description,
            false => format!("waiting for {description}"),
        };
        self.wait_described(until, what)
    }

    /// [`wait_until`](Self::wait_until), whose failure says it was `what`.
    #[track_caller]
    fn wait_described(&self, until: Until, what: String) -> WaitOutcome {
        let wants_exit = until.includes_exit();
        let styled = until.needs_styles();
        let outcome = self.check(&what, self.wait_or_stuck(until));
        let failure = match &outcome.fired {
            Fired::Matched(found) if found.condition == STUCK => Some(format!(
                "the program has waited for input with an unchanged screen for {:?} (nothing will change until the test types; a program that reads with a timer longer than that, such as `read -t 5`, looks the same: give it more with stuck_after, or None)",
                self.stuck_after.unwrap_or_default()
            )),
            Fired::Matched(_) => None,
            Fired::Exited { .. } if wants_exit => None,
            Fired::Exited { status } => Some(format!("the program exited ({status})")),
            Fired::Closed => Some("the session was closed".to_owned()),
            Fired::Timeout => Some(format!("timed out after {:?}", self.timeout)),
            Fired::Cancelled => Some("the wait was cancelled".to_owned()),
        };
        if let Some(failure) = failure {
            panic!(
                "termloom: {failure} {what} in `{}`\n\n{}",
                self.command,
                self.context_with(Some(&outcome), styled)
            );
        }
        outcome
    }

    /// Waits for `until` until the timeout, or until the program is stuck: waiting for input
    /// with the screen unchanged (and no input sent) for the grace; a stuck outcome is a match
    /// of the condition named [`STUCK`].
    fn wait_or_stuck(&self, until: Until) -> crate::Result<WaitOutcome> {
        let Some(grace) = self.stuck_after else {
            return self.wait_once(until, self.timeout);
        };
        // An idle program is what such a wait waits for: it is never stuck.
        if until.holds_when_idle() {
            return self.wait_once(until, self.timeout);
        }
        // A timeout of `Duration::MAX` is "until it holds", as the engine takes it.
        let deadline = crate::reactor::after(Instant::now(), self.timeout);
        let (input, still) = (Until::input_wait().to_string(), Until::stable(grace).to_string());
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let outcome =
                self.wait_once(Until::any(vec![until.clone(), Until::input_wait()]), left)?;
            if outcome.matched().is_none_or(|found| found.condition != input) {
                return Ok(outcome);
            }
            // Waiting for input: the condition, or the screen still for the grace.
            let left = deadline.saturating_duration_since(Instant::now());
            let mut outcome =
                self.wait_once(Until::any(vec![until.clone(), Until::stable(grace)]), left)?;
            let Fired::Matched(found) = &mut outcome.fired else {
                return Ok(outcome);
            };
            if found.condition != still {
                return Ok(outcome);
            }
            let status = self.session.status()?;
            if status.activity != crate::Activity::WaitingForInput {
                continue;
            }
            // A background job (`cmd &` at a shell's prompt) may still print: the condition
            // is waited for another grace, and then the session looked at again (a job that
            // ended leaves the wait stuck, as it was with none).
            if self.others_may_print(&status) {
                // (Not more often than every 100 ms, whatever the grace: a grace of zero
                // looked at /proc without a pause.)
                let again = grace.max(Duration::from_millis(100));
                let left = deadline.saturating_duration_since(Instant::now());
                let outcome = self.wait_once(until.clone(), left.min(again))?;
                if !outcome.is_timeout() || left <= again {
                    return Ok(outcome);
                }
                continue;
            }
            found.condition = STUCK.to_owned();
            return Ok(outcome);
        }
    }

    /// Whether a process of the session outside the group that waits for input (`status`'s
    /// foreground) may print on its own: neither stopped nor waiting for a child.
    fn others_may_print(&self, status: &crate::Status) -> bool {
        let Some(reader) = &status.foreground else {
            return false;
        };
        crate::os::procfs::read_stat(reader.pid)
            .is_ok_and(|stat| crate::os::procfs::others_may_print(stat.pgrp, self.session.pid()))
    }

    /// What a failure message shows: the status, the screen and the last transcript lines.
    fn context(&self, outcome: Option<&WaitOutcome>) -> String {
        self.context_with(outcome, false)
    }

    /// [`context`](Self::context), with the screen's `styles:` runs when `styled` (the failed
    /// wait looked at colours, so a plain screen would not show what it saw).
    fn context_with(&self, outcome: Option<&WaitOutcome>, styled: bool) -> String {
        let mut out = String::new();
        let status = match outcome {
            Some(outcome) => Some(outcome.status.clone()),
            None => self.session.status().ok(),
        };
        if let Some(status) = status {
            let _ = writeln!(out, "status: {status}");
        }
        // The styled screen is read now (a wait outcome carries the plain one only).
        let current = self.session.styled_screen().ok();
        match (styled, current.as_ref()) {
            (true, Some(current)) => {
                let _ = writeln!(out, "screen:\n{}", format_styled_screen(current));
            }
            _ => {
                match outcome.and_then(|o| o.screen.clone()).or_else(|| self.session.screen().ok())
                {
                    Some(screen) => {
                        let _ = writeln!(out, "screen:\n{}", format_screen(&screen));
                    }
                    None => out.push_str("screen: unavailable\n"),
                }
            }
        }
        if let Some(path) = current.as_ref().and_then(save_picture) {
            let _ = writeln!(out, "picture of the screen: {}", path.display());
        }
        match self.session.scrollback(64 << 10) {
            Ok(scrollback) => {
                let lines: Vec<&str> = scrollback.text.lines().collect();
                let shown = &lines[lines.len().saturating_sub(TRANSCRIPT_LINES)..];
                if shown.is_empty() {
                    return out;
                }
                let _ = match shown.len() {
                    1 => writeln!(out, "last transcript line:"),
                    n => writeln!(out, "last {n} transcript lines:"),
                };
                for line in shown {
                    let _ = writeln!(out, "  | {line}");
                }
            }
            Err(e) => {
                let _ = writeln!(out, "transcript: unavailable ({e})");
            }
        }
        out
    }

    /// Waits until `text` appears on the screen, within one row (text wrapped over two rows
    /// does not match; the transcript is [`wait_for_output`](Self::wait_for_output)'s).
    #[track_caller]
    pub fn wait_for_screen_text(&self, text: &str) -> &Self {
        self.wait_until(Until::screen_contains(text));
        self
    }

    /// The former name of [`wait_for_screen_text`](Self::wait_for_screen_text).
    #[deprecated(
        since = "0.1.0",
        note = "renamed `wait_for_screen_text`: it matches the screen, one row at a time (`wait_for_output` matches the transcript)"
    )]
    #[track_caller]
    pub fn wait_for_text(&self, text: &str) -> &Self {
        self.wait_for_screen_text(text)
    }

    /// Waits until `text` appears on screen row `row` (from 0).
    ///
    /// # Panics
    ///
    /// Also at once when `row` is outside the screen: the wait could never hold.
    #[track_caller]
    pub fn wait_for_row(&self, row: u16, text: &str) -> &Self {
        self.wait_until(Until::screen_row_contains(row, text));
        self
    }

    /// Waits until a regular expression matches a screen row.
    ///
    /// # Panics
    ///
    /// Also when `pattern` is not a valid regular expression.
    #[track_caller]
    pub fn wait_for_regex(&self, pattern: &str) -> &Self {
        let until = or_panic(Until::screen_regex(pattern), |e| {
            format!("termloom: bad pattern {pattern:?}: {e}")
        });
        self.wait_until(until);
        self
    }

    /// Waits until `text` is shown highlighted (in inverse video or on a background colour,
    /// see [`StyledScreen::find_highlighted`]): for a change shown only by colour, such as a
    /// selection moved in a list.
    #[track_caller]
    pub fn wait_for_highlight(&self, text: &str) -> &Self {
        let needle = text.to_owned();
        self.wait_until(Until::styled_screen_matches(format!("{text:?} highlighted"), move |s| {
            s.find_highlighted(&needle).is_some()
        }));
        self
    }

    /// Waits until `test` holds for the screen with its styles (see
    /// [`Until::styled_screen_matches`]); `description` names it in a failure.
    #[track_caller]
    pub fn wait_for_styled(
        &self,
        description: &str,
        test: impl Fn(&StyledScreen) -> bool + Send + Sync + 'static,
    ) -> &Self {
        self.wait_until(Until::styled_screen_matches(description, test));
        self
    }

    /// Waits until `text` appears in output printed since the kit last typed (`type_line`,
    /// `type_text`, `send_keys`, `press`, `paste`), not in the echo of a typed line, including
    /// text that scrolled off the screen. The handle's own [`Session::read`] is another reader:
    /// neither moves the other.
    #[track_caller]
    pub fn wait_for_output(&self, text: &str) -> &Self {
        self.wait_until(Until::text(text));
        self
    }

    /// Waits until the screen has not changed for the settle time (200 ms by default), or the
    /// program has exited (its screen then final): call it after the expected text appeared,
    /// before a snapshot.
    #[track_caller]
    pub fn wait_stable(&self) -> &Self {
        let stable = Until::stable(self.settle);
        let what = format!("waiting for {stable}");
        self.wait_described(Until::any(vec![stable, Until::exit()]), what);
        self
    }

    /// Waits until the program is blocked reading the terminal and its output is quiet
    /// (Linux; see [`Until::input_wait`]).
    #[track_caller]
    pub fn wait_for_input(&self) -> &Self {
        self.wait_until(Until::input_wait());
        self
    }

    /// Types a key script (see [`Session::send_keys`]), then waits until the program has
    /// answered: it waits for input again and its screen has not changed for the settle time.
    /// The call for full-screen programs, whose answer to a key may be a colour or nothing.
    ///
    /// Keys that end the program (`q` in `less`, `:wq<Enter>` in vim) are an answer too: the
    /// press returns once the program has exited, its screen then final; check how it ended
    /// with [`wait_for_exit`](Self::wait_for_exit) or [`wait_for_success`](Self::wait_for_success).
    ///
    /// An `<Esc>` (or a plain Tab) followed by more keys is pressed on its own first, the rest
    /// once the program has answered it (an `<Esc>` also once the program read it and went
    /// on, [`escape_read`](crate::escape_read): one that never waits for input), and an `<Esc>` after keys once the program has
    /// answered them, or half a second has passed, and an `<Esc>` after an `<Esc>` 150 ms
    /// after it at most ([`typing_steps`](crate::typing_steps); nano holds the keys read with
    /// an Escape, undrawn, as a Meta key's start; mc takes `Esc Esc` for one cancel, and answers
    /// a lone Escape only after its 1 s timer; not an Escape the kitty keyboard protocol
    /// sends as a sequence): sent
    /// together, the Escape and the next key reach the program in one read, which crossterm
    /// (ratatui), termion and other key readers take as Alt with that key (`<Esc>q` as
    /// Alt-q), where a person's Escape comes alone. A program that waits for the rest of a key
    /// code after an Escape with a timer of a second or less (vim for `ttimeoutlen`, 1 s with
    /// `-u NONE`) is waited for; one with a longer timer (`ttimeoutlen=1800`) is taken for
    /// waiting for input, and gets the next keys within it.
    ///
    /// # Panics
    ///
    /// When the program neither answers nor exits before the timeout, or the session is
    /// closed.
    #[track_caller]
    pub fn press(&self, keys: &str) -> &Self {
        let call = format!("press({keys:?})");
        let Ok(items) = crate::input::keys::parse_key_script(keys) else {
            // The kit's send_keys fails with the parse error.
            return self.send_keys(keys);
        };
        let modes = self.check(&call, self.session.screen()).modes;
        for (part, bound) in crate::input::keys::typing_steps(&items, &modes) {
            self.send_keys(&part);
            // Keys after those that ended the program have no one to read them. (An Escape
            // read by a program that never waits for input: `escape_read`.)
            let ended = match (bound, crate::input::keys::escape_read(&part, &modes)) {
                (Some(bound), _) => self.read_within(&call, bound),
                (None, Some(read)) => self.answered_or(&call, read),
                (None, None) => self.answered(&call),
            };
            if ended {
                break;
            }
        }
        self
    }

    /// Waits at most `bound` for the program to answer what [`press`](Self::press) typed so
    /// far, as [`settled`](Self::settled) does, and types on when it has not (an Escape after
    /// an Escape comes within the program's wait for a key code's rest, as a person's second
    /// press). Whether the program has exited; a failure names `call`.
    #[track_caller]
    fn read_within(&self, call: &str, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        for until in [Until::input_wait(), Until::stable(self.settle), Until::input_wait()] {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            let until = Until::any(vec![until, Until::exit()]);
            match self.check(call, self.wait_once(until, left)).fired {
                Fired::Exited { .. } | Fired::Closed => return true,
                Fired::Timeout => return false,
                _ => {}
            }
        }
        false
    }

    /// Resizes the terminal, then waits for the program's redraw at the new size: the screen
    /// unchanged for the settle time after the resize, and the program waiting for input (or
    /// its exit, as [`press`](Self::press)).
    #[track_caller]
    pub fn resize_and_wait(&self, cols: u16, rows: u16) -> &Self {
        let resize = format!("resize_and_wait({cols}, {rows})");
        self.check(&resize, self.session.resize(cols, rows));
        self.settle_for_input(&resize)
    }

    /// Waits until the program waits for input with a stable screen, or has exited (its
    /// screen then final); a failure names `call`, what the program was to answer.
    #[track_caller]
    fn settle_for_input(&self, call: &str) -> &Self {
        self.answered(call);
        self
    }

    /// [`settle_for_input`](Self::settle_for_input), saying whether the program has exited.
    #[track_caller]
    fn answered(&self, call: &str) -> bool {
        self.settled(format!(
            "waiting for the program to answer {call} (to wait for input again with a still screen, or to exit)"
        ))
    }

    /// [`answered`](Self::answered), or until `read` holds (an Escape read by a program that
    /// never waits for input, [`escape_read`](crate::escape_read)). Whether the program has
    /// exited.
    #[track_caller]
    fn answered_or(&self, call: &str, read: Until) -> bool {
        let what = format!(
            "waiting for the program to answer {call} (to wait for input again with a still screen, to read the Escape and go on, or to exit)"
        );
        self.settled_or(what, Some(read))
    }

    /// Waits until the program waits for input with a stable screen, or has exited; a failure
    /// says it was `what`. Whether the program has exited.
    #[track_caller]
    pub(super) fn settled(&self, what: String) -> bool {
        self.settled_or(what, None)
    }

    /// [`settled`](Self::settled), or until `read` holds, when given. Whether the program has
    /// exited.
    #[track_caller]
    fn settled_or(&self, what: String, read: Option<Until>) -> bool {
        let condition = read.as_ref().map(Until::to_string);
        for until in [Until::input_wait(), Until::stable(self.settle), Until::input_wait()] {
            let until =
                Until::any([until, Until::exit()].into_iter().chain(read.clone()).collect());
            match self.wait_described(until, what.clone()).fired {
                Fired::Exited { .. } => return true,
                Fired::Matched(m) if Some(&m.condition) == condition.as_ref() => return false,
                _ => {}
            }
        }
        false
    }

    /// Checks that the program left the terminal as it found it: the primary screen, a
    /// visible cursor, the input modes off (mouse reporting, bracketed paste, application
    /// cursor keys and keypad, focus events, the kitty keyboard protocol), and the line
    /// discipline's echo and canonical input back on (see [`crate::LineModes`]). Call it after
    /// the program exits.
    ///
    /// # Panics
    ///
    /// Naming every mode left on, with the screen.
    #[track_caller]
    pub fn assert_terminal_restored(&self) {
        let screen = self.screen();
        let modes = screen.modes;
        let line = self.session.info().ok().and_then(|info| info.line_modes);
        let left_on: Vec<&str> = [
            (line.is_some_and(|l| !l.echo), "echo is off (stty -echo)"),
            (line.is_some_and(|l| !l.canonical), "canonical input is off (raw mode)"),
            (screen.alternate, "the alternate screen is still shown"),
            (!screen.cursor.visible, "the cursor is hidden"),
            (modes.mouse != crate::MouseReporting::Off, "mouse reporting is on"),
            (modes.bracketed_paste, "bracketed paste is on"),
            (modes.app_cursor, "application cursor keys are on"),
            (modes.app_keypad, "the application keypad is on"),
            (modes.focus_events, "focus events are on"),
            (modes.kitty_keyboard != 0, "the kitty keyboard protocol is on"),
            (modes.modify_other_keys != 0, "modifyOtherKeys is on"),
        ]
        .into_iter()
        .filter_map(|(on, what)| on.then_some(what))
        .collect();
        if !left_on.is_empty() {
            panic!(
                "termloom: `{}` did not restore the terminal: {}\n\n{}",
                self.command,
                left_on.join(", "),
                self.context(None)
            );
        }
    }

    /// Waits until the cursor is at `row` and `col` (both from 0), visible or not: for a
    /// program whose reaction to a key only moves the cursor, such as a menu that marks its
    /// selection with colours and the cursor.
    ///
    /// # Panics
    ///
    /// Also at once when the position is outside the screen: the wait could never hold.
    #[track_caller]
    pub fn wait_for_cursor(&self, row: u16, col: u16) -> &Self {
        self.wait_until(Until::cursor_at(row, col));
        self
    }

    /// Waits until `test` holds for the screen and returns that screen, the one `test` held
    /// for (the program may have drawn more since); `what` describes the condition for the
    /// failure message. The engine checks `test` each time output has been processed (no
    /// polling), so it must be quick.
    #[track_caller]
    pub fn wait_for_screen(
        &self,
        what: &str,
        test: impl Fn(&Screen) -> bool + Send + Sync + 'static,
    ) -> Screen {
        // The wait's outcome carries no screen when it holds: the check keeps the one it
        // held for.
        let held = std::sync::Arc::new(std::sync::Mutex::new(None::<Screen>));
        let keep = held.clone();
        self.wait_until(Until::screen_matches(what, move |screen| {
            let holds = test(screen);
            if holds {
                *keep.lock().unwrap_or_else(|e| e.into_inner()) = Some(screen.clone());
            }
            holds
        }));
        let held = held.lock().unwrap_or_else(|e| e.into_inner()).take();
        held.unwrap_or_else(|| self.screen())
    }

    /// What is new in the transcript since the previous read (see [`Session::read`]).
    #[track_caller]
    pub fn read_output(&self) -> String {
        self.check("read", self.session.read()).text
    }

    /// Waits until the program exits and returns how it ended.
    #[track_caller]
    pub fn wait_for_exit(&self) -> ExitStatus {
        let outcome = self.wait_until(Until::exit());
        match outcome.fired {
            Fired::Exited { status } => status,
            other => {
                panic!("termloom: waiting for exit of `{}` ended with {other:?}", self.command)
            }
        }
    }

    /// Waits until the program exits and checks that it exited with code 0.
    #[track_caller]
    pub fn wait_for_success(&self) {
        let status = self.wait_for_exit();
        if !status.success() {
            panic!(
                "termloom: `{}` ended with {status}, not exit code 0\n\n{}",
                self.command,
                self.context(None)
            );
        }
    }

    /// Closes the session now and returns how the program ended.
    #[track_caller]
    pub fn close(&self) -> ExitStatus {
        self.check("close", self.session.close())
    }
}

/// A [`TestSession`] snapshotted with the colours and attributes of its cells (see
/// [`TestSession::with_styles`] and [`format_styled_screen`]).
#[derive(Debug, Clone, Copy)]
pub struct WithStyles<'a>(pub(super) &'a TestSession);
