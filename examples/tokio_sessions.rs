//! A tokio host driving 100 sessions at once with termloom's futures: each waits for its
//! program to read its terminal, types a line, and waits for the answer, all on one thread
//! of a current-thread runtime. termloom's futures are woken by its reactor through the
//! standard `Waker`, so they work under tokio without `spawn_blocking` and without a
//! dependency on any runtime (tokio is a dev-dependency of this example only).
//!
//! Run it with:
//!
//! ```sh
//! cargo run --example tokio_sessions
//! ```

use std::time::{Duration, Instant};

use termloom::{Config, Engine, Session, SpawnSpec, Until};

const SESSIONS: usize = 100;
const TIMEOUT: Duration = Duration::from_secs(30);

async fn drive(session: Session, n: usize) -> termloom::Result<()> {
    session.wait_async(Until::input_wait(), TIMEOUT).await?;
    // The futures own what they need (`Send + 'static`), so one can be spawned as a task of
    // its own: the read's wait is in place before the line is typed, and nothing is missed.
    let answer = tokio::spawn(session.read_async(Until::regex(&format!("^got {n}$"))?, TIMEOUT));
    session.send_text(&format!("{n}\n"))?;
    let (outcome, output) = answer.await.expect("the task ran")?;
    assert!(outcome.matched().is_some(), "session {n}: {outcome}");
    assert!(output.text.contains(&format!("got {n}")), "session {n}: {output:?}");
    session.close_async().await?;
    Ok(())
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> termloom::Result<()> {
    let engine = Engine::new(Config::default())?;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for n in 0..SESSIONS {
        let session =
            engine.spawn(SpawnSpec::new("sh").args(["-c", "read line; echo got $line; read x"]))?;
        tasks.push(tokio::spawn(drive(session, n)));
    }
    let threads_while_waiting = threads();
    for task in tasks {
        task.await.expect("the task ran")?;
    }
    println!(
        "{SESSIONS} sessions driven in {:.2} s; threads while they waited: {threads_while_waiting} (main, termloom's reactor and its helpers: none per session)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
