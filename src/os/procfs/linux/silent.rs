//! Members whose output goes nowhere: busy or asleep, they cannot answer what was typed.
//!
//! A shell that starts a job in the background without job control leaves it in its own
//! process group, the terminal's foreground one: fish's first start generates completions
//! from the manual pages (`create_manpage_completions.py`, 15 s of work, its output to
//! `/dev/null`) while fish waits at its prompt; `sh -c '(work) >/dev/null 2>&1 & read x'`
//! asks its question while the work goes on. Such a member, busy, made the whole group
//! busy: no wait saw the prompt until it ended. It prints nothing on the terminal, so the
//! group waits for input when another member does.

use super::*;

/// The most descriptors of a process looked at for a terminal; a process with more is not
/// taken as silent.
const DESCRIPTORS_LOOKED_AT: usize = 256;

/// Whether process `pid` can print nothing on a terminal: its standard output and error are
/// `/dev/null` (or closed), and no descriptor of it but its standard input is a terminal
/// (one opened as `/dev/tty` is). `false` when that cannot be read (another user's process,
/// one gone meanwhile, too many descriptors).
pub(super) fn prints_nowhere(pid: i32) -> bool {
    let dir = format!("/proc/{pid}/fd");
    for fd in ["1", "2"] {
        match fs::read_link(format!("{dir}/{fd}")) {
            Ok(target) if target.as_os_str() == "/dev/null" => {}
            // Closed (the process itself is there: its descriptors are listed below).
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            _ => return false,
        }
    }
    let Ok(entries) = fs::read_dir(&dir) else { return false };
    let mut looked = 0;
    for entry in entries {
        let Ok(entry) = entry else { return false };
        looked += 1;
        if looked > DESCRIPTORS_LOOKED_AT {
            return false;
        }
        if entry.file_name() == "0" {
            continue;
        }
        match fs::read_link(entry.path()) {
            Ok(target) if is_terminal(&target.to_string_lossy()) => return false,
            Ok(_) => {}
            // Closed meanwhile.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return false,
        }
    }
    true
}
