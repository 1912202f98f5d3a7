//! Asking the person behind the MCP client for a secret (`terminal_send secret=true`), through
//! URL-mode elicitation alone: the MCP specification forbids asking for a password by a form
//! (2025-11-25 and 2026-07-28: servers MUST NOT use form mode for sensitive information and
//! MUST use URL mode; 2025-06-18, which has no URL mode, forbids elicitation for it outright).
//!
//! The secret goes from the person's browser to a [`SecretPage`] of this server, never through
//! the client: the client is sent only the page's address and consents (or not) to open it.
//!
//! - **Handshake revisions** (2025-11-25, `elicitation.url` declared): an `elicitation/create`
//!   request with `mode: "url"`; the call waits for the secret posted through the page, and
//!   the client then hears `notifications/elicitation/complete`.
//! - **2026-07-28**: the call's first round opens the page and returns an `input_required`
//!   result carrying that request, without `elicitationId` (that revision removed it and the
//!   completion from URL mode); the page waits, within the question's time, for the
//!   call's retry, whose accepted answer makes it wait for the secret. A secret posted before
//!   the retry (a client that retries once the person is done) is held for it: the retry
//!   types it at once, when it comes within [`HOLD`] and the same process shows the same
//!   prompt as when the page was opened ([`PromptOwner`]); otherwise the page and the
//!   secret are dropped, nothing is typed, and the model is told to call again. The
//!   session's secret claim is each call's own: none spans a round and its retry, between
//!   which no call runs (a lease could outlive an abandoned call for the question's whole
//!   time); the retry claims it again (see SECURITY.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, bounded, never};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::elicit::{Answer, Answers, Asker, Reply, answer_of};
use super::inflight::CancelToken;
use super::prompt_owner::PromptOwner;
use super::secret_page::{HOLD, SecretPage, random_hex, zero};
use super::tools::ToolError;
use super::tools::toolbox::{SecretAnswer, SecretAsk};
use crate::{Engine, SessionId};

/// How often a wait for a secret looks whether its session still runs.
const SESSION_CHECK: Duration = Duration::from_millis(100);

/// The most pages stateless rounds keep open for their retries at once (the oldest closes).
const MAX_WAITING: usize = 16;

/// Why a client without URL-mode elicitation cannot ask its person for a secret, for
/// `terminal_run`'s header at a password prompt.
pub(crate) const CLIENT_CANNOT_ASK: &str =
    "this client cannot ask its person for it (no URL-mode elicitation)";

/// How a tool call can ask its client's person for a secret.
#[derive(Clone, Copy)]
pub(crate) enum Secrets<'a> {
    /// It cannot: the reason, for the model (a server's, whose person may type into the
    /// session through `termloom attach`).
    Unavailable(&'static str),
    /// A [`Toolbox`](crate::tools::Toolbox) whose host gave it no way to ask
    /// ([`Toolbox::answer_secrets`](crate::tools::Toolbox::answer_secrets)): the model can only
    /// interrupt the program and say what needs the secret.
    NoHost,
    /// By a [`Toolbox`](crate::tools::Toolbox) host's answer, called on the call's thread.
    Host(&'a SecretAnswer),
    /// By a request on the connection (handshake revisions).
    Live(&'a Asker),
    /// By an `input_required` round (2026-07-28); the answers the client sent with this one.
    Rounds(&'a Waiting, Option<&'a Answers>),
}

/// What a secret is asked for, and how it is typed.
pub(crate) struct Asking<'a> {
    /// The question, for the person.
    pub message: &'a str,
    /// The process that asks and its prompt; its name is on the page.
    pub owner: &'a PromptOwner,
    /// The session it runs in.
    pub session: SessionId,
    /// The call's cancellation.
    pub cancel: &'a Arc<CancelToken>,
    /// Whether the session still runs.
    pub alive: &'a dyn Fn() -> bool,
    /// Types the secret; its `Err` is what the page and the call say instead.
    pub type_it: &'a mut dyn FnMut(&str) -> Result<(), ToolError>,
}

impl Secrets<'_> {
    /// Asks the person for the secret and types it. The client's accept is only the person's
    /// consent to open the page; its decline or cancel, the call's cancellation, the session's
    /// end or the question's timeout close the page, typing nothing. When no one can be asked,
    /// says why and what can be done instead.
    pub(crate) fn ask(&self, asking: Asking<'_>) -> Result<(), ToolError> {
        match *self {
            Secrets::Unavailable(why) => Err(ToolError::no_answer(format!(
                "the secret must come from the person, and {why}; nothing was typed: ask the person to type it into the program themselves, never to tell it to you (`termloom attach {} --takeover`, with the server's `-L` or `--socket` if it was given one, lets them type into this session when this server is `termloom mcp --server`, Ctrl-] hands it back; a plain `termloom mcp`'s sessions are reachable by no one else, so they run the program in a terminal of their own)",
                asking.session
            ))),
            // (`terminal_send` is offered: a secret is asked for by it.)
            Secrets::NoHost => Err(ToolError::no_answer(format!(
                "the secret must come from the person, and the host running these tools gave them no way to ask for one; nothing was typed: interrupt the program with terminal_send keys=\"<C-c>\" (session {}) and say what needs the password, never asking to be told it",
                asking.session
            ))),
            Secrets::Host(answer) => host(answer, asking),
            Secrets::Live(asker) => live(asker, asking),
            Secrets::Rounds(waiting, answers) => rounds(waiting, answers, asking),
        }
    }

    /// Why no one can be asked (for `terminal_run`'s header at a password prompt), or `None`
    /// when someone can.
    pub(crate) fn cannot_ask(&self) -> Option<&'static str> {
        match self {
            Secrets::Unavailable(_) => Some(CLIENT_CANNOT_ASK),
            Secrets::NoHost => {
                Some("the host running these tools gave them no way to ask its person for it")
            }
            Secrets::Host(_) | Secrets::Live(_) | Secrets::Rounds(..) => None,
        }
    }
}

/// For a [`Toolbox`](crate::tools::Toolbox) host: asks it for the secret, and types its
/// answer (through the call's claim, once the same process still asks at the same prompt).
/// `None` is a refusal; the call's cancellation while the host was asked types nothing.
fn host(answer: &SecretAnswer, asking: Asking<'_>) -> Result<(), ToolError> {
    // Both strings are the program's to choose (its name by `prctl`, its prompt by what it
    // prints): shown as a person must see them, with no escape sequence or reordering left.
    let ask = SecretAsk {
        session: asking.session,
        program: super::tools::shown_to_person(&asking.owner.program),
        pid: asking.owner.pid,
        prompt: super::tools::shown_to_person(&asking.owner.prompt),
    };
    // A panic of the host's is no bug of termloom's, and its message, which may hold the
    // secret, goes to no result: the call is refused.
    let asked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (answer.0)(&ask)));
    let Ok(secret) = asked else {
        return Err(ToolError::declined("the host failed to answer; nothing was typed"));
    };
    if asking.cancel.is_cancelled() {
        if let Some(secret) = secret {
            zero(secret);
        }
        return Err(ToolError::cancelled());
    }
    let Some(secret) = secret else {
        return Err(ToolError::declined("the host gave no secret; nothing was typed"));
    };
    let typed = (asking.type_it)(&secret);
    zero(secret);
    typed
}

/// Whether `session` still runs: a secret is waited for, and a page kept, only while it does.
pub(crate) fn runs(session: &crate::Session) -> bool {
    session.info().is_ok_and(|info| info.state == crate::SessionState::Running)
}

fn no_page(err: std::io::Error) -> ToolError {
    ToolError::no_answer(format!("cannot open the page for the secret ({err}); nothing was typed"))
}

/// The `elicitation/create` parameters naming `page`; `elicitation`, the id its completion
/// names, on handshake revisions alone (2026-07-28 removed `elicitationId` and the completion
/// from URL mode).
fn url_request(url: &str, elicitation: Option<&str>, message: &str) -> Value {
    let mut request = json!({ "mode": "url", "url": url, "message": message });
    if let Some(elicitation) = elicitation {
        request["elicitationId"] = json!(elicitation);
    }
    request
}

/// On a handshake revision: asks by a request on the connection.
fn live(asker: &Asker, mut asking: Asking<'_>) -> Result<(), ToolError> {
    let deadline = Instant::now() + asker.timeout();
    let page = SecretPage::open(&asking.owner.program, deadline).map_err(no_page)?;
    let elicitation = format!("termloom-secret-{}", random_hex(8).map_err(no_page)?);
    let (key, replies) =
        asker.post(url_request(&page.url(), Some(&elicitation), asking.message), asking.cancel);
    let mut consented = false;
    let waited = wait(&page, &replies, deadline, asker.timeout(), &mut asking, &mut consented);
    let posted = matches!(waited, Waited::Posted(_));
    drop(page);
    if posted {
        asker.notify(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/elicitation/complete",
            "params": { "elicitationId": elicitation },
        }));
    }
    // A question the client answered (accepted) is not cancelled with it.
    let given_up = match &waited {
        Waited::GivenUp(reason, _) if !consented => Some(*reason),
        _ => None,
    };
    asker.forget(&key, given_up);
    waited.into_result()
}

/// On the stateless revision: the first round opens the page and asks for the retry; the
/// retry with the person's consent waits for the secret.
fn rounds(
    waiting: &Waiting,
    answers: Option<&Answers>,
    mut asking: Asking<'_>,
) -> Result<(), ToolError> {
    // Parsed once; only the pages waiting (at most 16) are looked up in it, under one lock.
    let answered = answers.map(Answers::parsed).unwrap_or_default();
    if let Some((page, answer)) = waiting.take_answered(&answered, asking.session) {
        let answer: Value = serde_json::from_str(answer.get()).map_err(|err| {
            ToolError::no_answer(format!("unreadable answer ({err}); nothing was typed"))
        })?;
        return match answer_of(&answer)? {
            Answer::Refused(action) => Err(declined(&action)),
            Answer::Accept(_) => {
                // A secret held for the retry is for the process and prompt the page was
                // opened for (sudo's may not go to the getpass or ssh that asks now).
                if let Some(why) = page.owner.changed(asking.owner) {
                    drop(page);
                    return Err(ToolError::no_answer(format!(
                        "{why}: the page was closed, and a secret posted through it dropped; nothing was typed: call again if it still asks"
                    )));
                }
                let replies = never::<Reply>();
                let timeout = page.deadline.saturating_duration_since(Instant::now());
                let consented = &mut true;
                wait(&page.page, &replies, page.deadline, timeout, &mut asking, consented)
                    .into_result()
            }
        };
    }
    // One page a session: a round for a session whose page still waits asks again for that
    // page (the person could type into an older one, told to call again), when the same
    // process asks at the same prompt, half its time is left and it took no secret.
    let (key, url) = waiting.page_for(asking.session, asking.owner, || {
        let deadline = Instant::now() + waiting.timeout;
        let page = SecretPage::open(&asking.owner.program, deadline).map_err(no_page)?;
        let key = format!("secret-{}", random_hex(16).map_err(no_page)?);
        let owner = asking.owner.clone();
        Ok((key, Opened { page, session: asking.session, owner, deadline }))
    })?;
    let request = json!({
        "method": "elicitation/create",
        "params": url_request(&url, None, asking.message),
    });
    Err(ToolError::input_required(&key, request))
}

fn declined(action: &str) -> ToolError {
    ToolError::declined(format!("{}; nothing was typed", super::tools::refused(action)))
}

/// How a wait for a secret ended.
enum Waited {
    /// Posted through the page, and typed or not.
    Posted(Result<(), ToolError>),
    /// The client answered the question without a secret (declined, or an error).
    Answered(ToolError),
    /// Given up (the reason the client is told, then the call's error).
    GivenUp(&'static str, ToolError),
}

impl Waited {
    fn into_result(self) -> Result<(), ToolError> {
        match self {
            Waited::Posted(typed) => typed,
            Waited::Answered(err) | Waited::GivenUp(_, err) => Err(err),
        }
    }
}

/// Waits for the secret posted through `page`, `replies` (the client's answer, or the call's
/// stop), the call's cancellation, the session's end or `deadline`; `consented` is set when
/// the client accepted.
fn wait(
    page: &SecretPage,
    replies: &Receiver<Reply>,
    deadline: Instant,
    timeout: Duration,
    asking: &mut Asking<'_>,
    consented: &mut bool,
) -> Waited {
    let _waited = page.waited_for();
    let (stopped, stop) = bounded::<()>(1);
    asking.cancel.on_stop(move || {
        let _ = stopped.try_send(());
    });
    let mut replies = Some(replies);
    let none = never();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let message =
                format!("the person did not type the secret within {timeout:?}; nothing was typed");
            return Waited::GivenUp("no answer in time", ToolError::no_answer(message));
        }
        if page.exhausted() {
            return Waited::GivenUp(
                "the page closed",
                ToolError::no_answer(
                    "the page closed without a secret for this call (one posted more than a minute before, or the page's time ran out); nothing was typed: call again",
                ),
            );
        }
        let answers = replies.unwrap_or(&none);
        crossbeam_channel::select! {
            recv(answers) -> reply => match reply {
                Ok(Reply::Answered(Ok(result))) => match answer_of(&result) {
                    // Consent to open the page: the secret comes through it.
                    Ok(Answer::Accept(_)) => {
                        replies = None;
                        *consented = true;
                    }
                    Ok(Answer::Refused(action)) => return Waited::Answered(declined(&action)),
                    Err(err) => return Waited::Answered(err),
                },
                Ok(Reply::Answered(Err(message))) => {
                    return Waited::Answered(ToolError::no_answer(format!(
                        "the client could not ask the person ({message}); nothing was typed"
                    )));
                }
                Ok(Reply::Stopped) | Err(_) => return stopped_call(asking.cancel),
            },
            recv(stop) -> _ => return stopped_call(asking.cancel),
            recv(page.posts()) -> posted => {
                let Ok(posted) = posted else { continue };
                // Zeroed when `posted` is dropped.
                if posted.at.elapsed() > HOLD {
                    return Waited::GivenUp("the secret was held too long", ToolError::no_answer(format!(
                        "the secret was posted more than {HOLD:?} before a call came for it, and is not typed so long after; nothing was typed: call again",
                    )));
                }
                if !posted.claim() {
                    return Waited::GivenUp("the page gave the secret up", ToolError::no_answer(
                        "the secret posted to the page came when no call waited for it, and the page told the person it was not typed; nothing was typed: call again",
                    ));
                }
                let typed = (asking.type_it)(&posted.secret);
                let _ = posted.outcome.send(typed.as_ref().map(|_| ()).map_err(|e| e.message.clone()));
                return Waited::Posted(typed);
            },
            default(SESSION_CHECK.min(left)) => {
                if !(asking.alive)() {
                    return Waited::GivenUp("the session ended", ToolError::no_answer(
                        "the session ended before the person typed the secret; nothing was typed",
                    ));
                }
            }
        }
    }
}

/// The wait's end when the call was stopped: cancelled, or the input ended.
fn stopped_call(cancel: &CancelToken) -> Waited {
    match cancel.is_cancelled() {
        true => Waited::GivenUp("the tool call was cancelled", ToolError::cancelled()),
        false => Waited::GivenUp(
            "the server is closing",
            ToolError::no_answer(
                "the question to the person was abandoned: the connection is closing; nothing was typed",
            ),
        ),
    }
}

/// A page a stateless round opened, waiting for the call's retry.
struct Opened {
    page: SecretPage,
    session: SessionId,
    /// The process that asked and its prompt; its name is on the page.
    owner: PromptOwner,
    deadline: Instant,
}

/// The pages stateless rounds opened for their retries, by question key. A page closes at its
/// deadline by itself; its entry goes at the next look, as does a page whose session no
/// longer runs (closing it).
pub(crate) struct Waiting {
    pages: Mutex<HashMap<String, Opened>>,
    timeout: Duration,
    engine: Engine,
}

impl Waiting {
    /// No pages; a page stays open for its retry for `timeout`, while its session of `engine`
    /// runs.
    pub(crate) fn new(engine: Engine, timeout: Duration) -> Waiting {
        Waiting { pages: Mutex::default(), timeout, engine }
    }

    /// The pages, those past their deadline or whose session no longer runs taken out into
    /// `closed`, which the caller drops once the lock is released (a page's close joins its
    /// thread).
    fn lock(&self, closed: &mut Vec<Opened>) -> std::sync::MutexGuard<'_, HashMap<String, Opened>> {
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let runs = |id: SessionId| self.engine.session(id).is_ok_and(|session| runs(&session));
        let gone: Vec<String> = pages
            .iter()
            .filter(|(_, opened)| opened.deadline <= now || !runs(opened.session))
            .map(|(key, _)| key.clone())
            .collect();
        closed.extend(gone.iter().filter_map(|key| pages.remove(key)));
        pages
    }

    /// The key and address of the page waiting for `session`'s retry, when `owner` asks on
    /// it (the same process at the same prompt), half its time is left and it took no secret
    /// (one held for another round, which nobody posted for this one); otherwise one `open`
    /// opens (a page of the session that waits closing, zeroing a secret it holds, and the
    /// oldest page when [`MAX_WAITING`] do).
    fn page_for(
        &self,
        session: SessionId,
        owner: &PromptOwner,
        open: impl FnOnce() -> Result<(String, Opened), ToolError>,
    ) -> Result<(String, String), ToolError> {
        let mut closed = Vec::new();
        let mut pages = self.lock(&mut closed);
        let waits = pages.iter().find(|(_, opened)| opened.session == session);
        let fresh = |opened: &Opened| {
            opened.owner == *owner
                && !opened.page.spent()
                && opened.deadline.saturating_duration_since(Instant::now()) >= self.timeout / 2
        };
        let reused = match waits {
            Some((key, opened)) if fresh(opened) => Some((key.clone(), opened.page.url())),
            Some((key, _)) => {
                let key = key.clone();
                closed.extend(pages.remove(&key));
                None
            }
            None => None,
        };
        let found = match reused {
            Some(found) => Ok(found),
            None => open().map(|(key, opened)| {
                if pages.len() >= MAX_WAITING
                    && let Some(oldest) = pages
                        .iter()
                        .min_by_key(|(_, opened)| opened.deadline)
                        .map(|(key, _)| key.clone())
                {
                    closed.extend(pages.remove(&oldest));
                }
                let url = opened.page.url();
                pages.insert(key.clone(), opened);
                (key, url)
            }),
        };
        drop(pages);
        drop(closed);
        found
    }

    /// The page opened for `session`'s secret that `answers` answer, with that answer.
    fn take_answered<'a>(
        &self,
        answers: &HashMap<String, &'a RawValue>,
        session: SessionId,
    ) -> Option<(Opened, &'a RawValue)> {
        let mut closed = Vec::new();
        let mut pages = self.lock(&mut closed);
        let key = pages
            .iter()
            .find(|(key, opened)| opened.session == session && answers.contains_key(*key))
            .map(|(key, _)| key.clone());
        let taken = key.and_then(|key| Some((pages.remove(&key)?, *answers.get(&key)?)));
        drop(pages);
        drop(closed);
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::super::secret_page::post_secret;
    use super::*;
    use crate::{Config, SpawnSpec};

    /// `program` (pid 7) at a password prompt.
    fn owner(program: &str) -> PromptOwner {
        let prompt = "Password:".to_owned();
        PromptOwner { pid: Some(7), started: Some(1), program: program.to_owned(), prompt }
    }

    /// What a round does to open a page for `owner` in `session`, closing in `left`.
    fn opens(
        session: SessionId,
        owner: PromptOwner,
        left: Duration,
    ) -> impl FnOnce() -> Result<(String, Opened), ToolError> {
        move || {
            let deadline = Instant::now() + left;
            let page = SecretPage::open(&owner.program, deadline).map_err(no_page)?;
            let key = format!("secret-{}", random_hex(16).map_err(no_page)?);
            Ok((key, Opened { page, session, owner, deadline }))
        }
    }

    /// A round reuses its session's page only when the same program asks and at least half
    /// the page's time is left; otherwise it opens another, and the session's old page
    /// closes.
    #[test]
    fn a_round_reuses_its_sessions_page_only_for_the_same_program_with_time_left() {
        let engine = Engine::new(Config::default()).unwrap();
        let session = engine.spawn(SpawnSpec::new("cat")).unwrap();
        let id = session.id();
        let timeout = Duration::from_secs(600);
        let waiting = Waiting::new(engine.clone(), timeout);
        let opens = |program: &'static str, left: Duration| opens(id, owner(program), left);
        let reused = || -> Result<(String, Opened), ToolError> { panic!("a page was opened") };
        let closed = |url: &str| {
            let address = url.strip_prefix("http://").unwrap().split('/').next().unwrap();
            std::net::TcpStream::connect(address).is_err()
        };
        let (key, url) = waiting.page_for(id, &owner("sudo"), opens("sudo", timeout)).unwrap();
        assert_eq!(
            waiting.page_for(id, &owner("sudo"), reused).unwrap(),
            (key.clone(), url.clone())
        );
        // Another program: another page.
        let (other, other_url) =
            waiting.page_for(id, &owner("ssh"), opens("ssh", timeout)).unwrap();
        assert!(other != key && other_url != url && closed(&url), "{url} {other_url}");
        // Half its time left, and a little more: kept.
        let margin = Duration::from_secs(60);
        let (key, url) =
            waiting.page_for(id, &owner("sudo"), opens("sudo", timeout / 2 + margin)).unwrap();
        assert!(key != other && closed(&other_url), "{other_url}");
        assert_eq!(
            waiting.page_for(id, &owner("sudo"), reused).unwrap(),
            (key.clone(), url.clone())
        );
        // A little less: another page.
        let (late, late_url) =
            waiting.page_for(id, &owner("ssh"), opens("ssh", timeout / 2 - margin)).unwrap();
        assert!(late != key && closed(&url), "{url}");
        let (again, again_url) =
            waiting.page_for(id, &owner("ssh"), opens("ssh", timeout)).unwrap();
        assert!(again != late && closed(&late_url), "{late_url}");
        assert_eq!(waiting.page_for(id, &owner("ssh"), reused).unwrap(), (again, again_url));
        session.close().unwrap();
    }

    /// A round reuses its session's page only for the same process (pid and start time) at
    /// the same prompt, and never a page that took a secret: that one is held for another
    /// round's retry, and nobody posted anything for the new question (it was reused, and
    /// its retry would have typed the old secret).
    #[test]
    fn a_round_reuses_no_page_of_another_process_or_prompt_nor_one_that_took_a_secret() {
        let engine = Engine::new(Config::default()).unwrap();
        let session = engine.spawn(SpawnSpec::new("cat")).unwrap();
        let id = session.id();
        let timeout = Duration::from_secs(600);
        let waiting = Waiting::new(engine.clone(), timeout);
        let opens = |owner: &PromptOwner| opens(id, owner.clone(), timeout);
        let first = owner("sudo");
        let (key, _) = waiting.page_for(id, &first, opens(&first)).unwrap();
        let others = [
            PromptOwner { pid: Some(8), ..first.clone() },
            PromptOwner { started: Some(2), ..first.clone() },
            PromptOwner { prompt: "Passphrase:".to_owned(), ..first.clone() },
        ];
        let mut last = key;
        for other in &others {
            let (key, _) = waiting.page_for(id, other, opens(other)).unwrap();
            assert_ne!(key, last, "{other:?} reused {first:?}'s page");
            last = key;
        }
        let asking = &others[2];
        let (key, url) = waiting.page_for(id, asking, opens(asking)).unwrap();
        assert_eq!(key, last);
        // Posted while no call waits: held, the page closed.
        let said = post_secret(&url, "old");
        assert!(said.contains("Received"), "{said}");
        let (again, _) = waiting.page_for(id, asking, opens(asking)).unwrap();
        assert_ne!(again, key, "a page that took a secret was reused");
        session.close().unwrap();
    }
}
