//! Drives an interactive interpreter: waits for its prompt, types a few lines, waits for each
//! answer and prints what the program showed for it.
//!
//! It shows the readiness waits: [`Until::input_wait`] (the program is blocked reading the
//! terminal: its prompt is up) and [`Until::regex`] (a line of new output matches), and the
//! transcript read ([`Session::read`]), which returns only what is new since the last read.
//! It uses `python3 -q`, or `bash` where Python is missing.
//!
//! Run it with:
//!
//! ```sh
//! cargo run --example repl
//! ```

use std::time::Duration;

use termloom::{Config, Engine, Error, Session, SpawnSpec, Until};

const TIMEOUT: Duration = Duration::from_secs(10);

/// A program, lines to type into it with a pattern that its answer matches, and the line
/// that ends it.
struct Repl {
    spec: SpawnSpec,
    lines: &'static [(&'static str, &'static str)],
    quit: &'static str,
}

fn main() -> Result<(), Error> {
    let engine = Engine::new(Config::default())?;
    // The first of the candidates that starts (a program that is not installed fails to
    // spawn with `Error::Spawn`).
    let mut started = None;
    for repl in candidates() {
        match engine.spawn(repl.spec.clone()) {
            Ok(session) => {
                started = Some((repl, session));
                break;
            }
            Err(Error::Spawn { .. }) => continue,
            Err(err) => return Err(err),
        }
    }
    let Some((repl, session)) = started else {
        println!("repl: neither python3 nor bash is installed; skipping");
        return Ok(());
    };
    println!("repl: driving {}", repl.spec.program_name());

    for (line, answer) in repl.lines {
        // The prompt is up once the program waits for input; typing earlier would work too,
        // but the echo could then be interleaved with the previous answer.
        session.wait(Until::input_wait(), TIMEOUT)?;
        session.submit(line)?;
        expect(&session, Until::regex(answer)?, line)?;
        // Let it print the next prompt, then take everything new: the rest of the line typed
        // (a read continues where the previous one stopped, and that one ended with the
        // prompt), the answer and the next prompt.
        session.wait(Until::input_wait(), TIMEOUT)?;
        println!("--- {line}");
        print!("{}", session.read()?.text);
        println!();
    }

    session.submit(repl.quit)?;
    session.wait(Until::exit(), TIMEOUT)?;
    // After an exit, `close` returns how the program ended and makes sure that nothing it
    // started is left running.
    println!("--- {}: {}", repl.quit, session.close()?);
    Ok(())
}

/// Waits for `until`, and says so if it did not happen in time.
fn expect(session: &Session, until: Until, line: &str) -> Result<(), Error> {
    let outcome = session.wait(until, TIMEOUT)?;
    if outcome.is_timeout() {
        eprintln!("repl: no answer to {line:?} in time; the screen was:");
        if let Some(screen) = &outcome.screen {
            eprintln!("{screen}");
        }
    }
    Ok(())
}

/// `python3 -q`, then `bash` without startup files.
fn candidates() -> [Repl; 2] {
    [
        Repl {
            // The basic REPL: the one of Python 3.13 and later redraws the line as you type.
            spec: SpawnSpec::new("python3").arg("-q").env("PYTHON_BASIC_REPL", "1"),
            lines: &[
                ("6 * 7", r"^42$"),
                ("sum(range(101))", r"^5050$"),
                ("print(*'loom'.upper(), sep='-')", r"^L-O-O-M$"),
            ],
            quit: "exit()",
        },
        Repl {
            spec: SpawnSpec::new("bash").args(["--norc", "--noprofile"]).env("PS1", "$ "),
            lines: &[
                ("echo $((6 * 7))", r"^42$"),
                ("echo $(( $(seq -s + 100) ))", r"^5050$"),
                ("echo loom | tr a-z A-Z | sed 's/./&-/g; s/-$//'", r"^L-O-O-M$"),
            ],
            quit: "exit",
        },
    ]
}
