//! Drives vim like a person would: waits until it reads the keyboard, types text in insert
//! mode, prints the rendered screen, then quits and prints the transcript and the exit status.
//!
//! It shows the core of the library: [`Engine`], [`SpawnSpec`], key scripts, event-driven
//! waits ([`Until`]) instead of sleeps, the screen snapshot (vim draws on the alternate
//! screen, which the snapshot shows) and the settled transcript (which the alternate screen
//! never feeds, so it holds little here).
//!
//! Run it with:
//!
//! ```sh
//! cargo run --example drive_vim
//! ```
//!
//! It needs `vim` on `PATH`; without it, it says so and exits successfully.

use std::time::Duration;

use termloom::{Config, Engine, Error, SpawnSpec, Until};

const TIMEOUT: Duration = Duration::from_secs(10);

fn main() -> Result<(), Error> {
    let engine = Engine::new(Config::default())?;

    // No vimrc, no plugins, not vi-compatible: the same screen on every machine.
    let spec = SpawnSpec::new("vim").args(["-u", "NONE", "-N"]).size(80, 12);
    let vim = match engine.spawn(spec) {
        Ok(session) => session,
        Err(err @ Error::Spawn { .. }) => {
            println!("drive_vim: could not start vim ({err}); skipping");
            return Ok(());
        }
        Err(err) => return Err(err),
    };

    // Ready when vim is blocked reading the terminal (from /proc on Linux).
    vim.wait(Until::input_wait(), TIMEOUT)?;

    // Key scripts mix text with named keys; keys follow the modes vim enabled.
    vim.send_keys("ihello from termloom<Enter>a second line")?;
    vim.wait(Until::screen_contains("a second line"), TIMEOUT)?;
    // Leaving insert mode puts the cursor back on the last character typed: row 1, column 12
    // (both from 0). Without a vimrc, vim takes up to a second to tell a lone Esc from the
    // start of a longer key sequence.
    vim.send_keys("<Esc>")?;
    let outcome = vim.wait(Until::cursor_at(1, 12), TIMEOUT)?;
    if outcome.is_timeout() {
        eprintln!("drive_vim: vim did not leave insert mode in time: {outcome}");
    }
    // Let vim finish drawing before the snapshot.
    vim.wait(Until::stable(Duration::from_millis(100)), TIMEOUT)?;

    println!("--- screen (vim is on the alternate screen) ---");
    println!("{}", vim.screen()?);

    // Quit without saving and wait for the exit.
    vim.send_keys(":q!<Enter>")?;
    vim.wait(Until::exit(), TIMEOUT)?;

    // The alternate screen never feeds the transcript, so it holds only what vim printed on
    // the normal screen (nothing, here).
    let transcript = vim.read()?.text;
    println!("--- transcript ({} bytes) ---", transcript.len());
    print!("{transcript}");
    println!("--- end of transcript ---");
    // `close` is idempotent: after an exit it returns how the program ended and makes sure
    // nothing it started is left behind.
    println!("vim ended with {}", vim.close()?);
    Ok(())
}
