//! What a run prints on stdout: step outputs as they happen and the final report, for people
//! (sections under `--- name ---` lines) or as one JSON object.

use std::io::{self, Write};

use serde_json::{Value, json};
use termloom::{ExitStatus, Screen};

use super::failure::Failure;
use super::parse::Planned;

/// How the session ended, as the final report shows it.
#[derive(Debug)]
pub(super) struct Ending {
    /// How the program ended.
    pub status: ExitStatus,
    /// Whether termloom had to close it.
    pub closed_by_termloom: bool,
    /// The final screen.
    pub screen: Screen,
    /// The whole retained transcript.
    pub transcript: String,
    /// Whether older transcript text was left out: past `--max-bytes`, or no longer retained.
    pub transcript_truncated: bool,
    /// Whether `--max-bytes` bounded the transcript.
    pub max_bytes_asked: bool,
    /// What went wrong with the recording (`--record`), if anything: the error that stopped
    /// writing it, or why it is not at its path and where it is (the engine's warning on
    /// stderr said it when it happened; the report says it again, before the exit line).
    pub recording_error: Option<String>,
    /// What the report says before `recording_error`
    /// ([`SessionInfo::recording_heading`](termloom::SessionInfo::recording_heading)).
    pub recording_heading: Option<&'static str>,
}

/// Prints step outputs and the final report in the chosen format.
pub(super) struct Reporter {
    json: bool,
    captures: Vec<Value>,
}

impl Reporter {
    /// A reporter for people, or for programs when `json` is set.
    pub(super) fn new(json: bool) -> Reporter {
        Reporter { json, captures: Vec::new() }
    }

    /// The output of a `--screen` step.
    pub(super) fn screen(&mut self, step: &Planned, screen: &Screen) -> io::Result<()> {
        if self.json {
            self.captures.push(json!({ "step": step.number, "screen": screen_json(screen) }));
            return Ok(());
        }
        section(&step_header(step), &screen.to_string())
    }

    /// The output of a `--read` step.
    pub(super) fn read(&mut self, step: &Planned, text: &str) -> io::Result<()> {
        if self.json {
            self.captures.push(json!({ "step": step.number, "read": text }));
            return Ok(());
        }
        section(&step_header(step), text)
    }

    /// The final report.
    pub(super) fn finish(self, ending: &Ending, failure: Option<&Failure>) -> io::Result<()> {
        if self.json {
            return print_json(&self.final_json(ending, failure));
        }
        let mut transcript = ending.transcript.clone();
        if ending.transcript_truncated {
            let note = match ending.max_bytes_asked {
                true => "(earlier output left out: past --max-bytes, or no longer kept)\n",
                false => "(older lines were no longer kept)\n",
            };
            transcript.insert_str(0, note);
        }
        section("transcript", &transcript)?;
        section("screen", &ending.screen.to_string())?;
        let mut out = io::stdout().lock();
        // (The warning on stderr said it when it happened; the report is what is read after.)
        if let (Some(heading), Some(error)) = (ending.recording_heading, &ending.recording_error) {
            writeln!(out, "--- {heading}: {error} ---")?;
        }
        writeln!(out, "--- exit: {} ---", exit_text(ending))?;
        out.flush()
    }

    /// The JSON object of the final report.
    fn final_json(self, ending: &Ending, failure: Option<&Failure>) -> Value {
        json!({
            "exit": ending.status,
            "closed_by_termloom": ending.closed_by_termloom,
            "screen": screen_json(&ending.screen),
            "transcript": ending.transcript,
            "transcript_truncated": ending.transcript_truncated,
            "captures": self.captures,
            "error": failure.map(|failure| failure.to_json(&ending.screen)),
            "recording_error": ending.recording_error,
        })
    }
}

/// A screen as JSON, without the blank rows at its bottom (`height` says how many rows it
/// has; the human report counts them instead of printing them).
pub(super) fn screen_json(screen: &Screen) -> Value {
    let mut value = json!(screen);
    if let Some(rows) = value["rows"].as_array_mut() {
        while rows.last().is_some_and(|row| row.as_str().is_some_and(|r| r.trim().is_empty())) {
            rows.pop();
        }
    }
    value
}

/// `step 3: --screen`.
fn step_header(step: &Planned) -> String {
    format!("step {}: {}", step.number, step.label)
}

/// The exit line's status: `exit code 0`, `killed by SIGHUP (signal 1) (closed by termloom)`.
fn exit_text(ending: &Ending) -> String {
    if ending.closed_by_termloom {
        format!("{} (closed by termloom)", ending.status)
    } else {
        ending.status.to_string()
    }
}

/// Prints `--- header ---` and `body`, ending with a line break.
fn section(header: &str, body: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "--- {header} ---")?;
    out.write_all(body.as_bytes())?;
    if !body.is_empty() && !body.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Prints one JSON object on its own line.
fn print_json(value: &Value) -> io::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    out.flush()
}
