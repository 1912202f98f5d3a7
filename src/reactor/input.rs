//! Keys, pastes, mouse reports and signals: input encoded for the modes the program has set
//! at the moment it is sent.

use super::*;
use crate::input::keys::{KeyModes, ScriptItem, encode_script};
use crate::input::mouse::{
    MouseAction, MouseButton, MouseModes, MouseModifiers, encode_mouse, encode_mouse_hover,
};
use crate::input::paste::encode_paste;
use crate::input::signal::{SignalReport, SignalTarget};

impl Reactor {
    /// Encodes a parsed key script with the current key modes and queues it.
    pub(crate) fn send_keys(&mut self, id: SessionId, items: &[ScriptItem]) -> Result<()> {
        let modes = KeyModes::from(&self.slot(id)?.terminal.modes());
        self.send(id, &encode_script(items, &modes))
    }

    /// Encodes a paste (bracketed when the program asked for it).
    pub(crate) fn encode_paste(&mut self, id: SessionId, text: &str) -> Result<Vec<u8>> {
        let bracketed = self.slot(id)?.terminal.modes().bracketed_paste;
        Ok(encode_paste(text, bracketed))
    }

    /// Sends one mouse event at a cell, in the tracking mode and encoding the program chose
    /// (`button` `None`: motion with no button held).
    pub(crate) fn send_mouse(
        &mut self,
        id: SessionId,
        button: Option<MouseButton>,
        action: MouseAction,
        row: u16,
        col: u16,
    ) -> Result<()> {
        let modes = MouseModes::from(&self.slot(id)?.terminal.modes());
        let (cols, rows) = self.slot(id)?.terminal.size();
        if row >= rows || col >= cols {
            return Err(Error::InvalidInput(format!(
                "mouse position row {row} col {col} is outside the {cols}x{rows} screen (rows and columns count from 0)"
            )));
        }
        let encoded = match (button, action) {
            (None, _) => encode_mouse_hover(row, col, MouseModifiers::NONE, &modes),
            (Some(button), action) => {
                encode_mouse(button, action, row, col, MouseModifiers::NONE, &modes)
            }
        };
        let bytes = encoded.map_err(Error::Mouse)?;
        match bytes {
            Some(bytes) => self.send(id, &bytes),
            None => Ok(()),
        }
    }

    /// Sends a signal to the foreground process group or to the whole session.
    pub(crate) fn signal(
        &mut self,
        id: SessionId,
        signal: crate::input::signal::Signal,
        target: SignalTarget,
    ) -> Result<SignalReport> {
        let slot = self.slot(id)?;
        if slot.exit.is_some() {
            return Err(Error::SessionExited(id));
        }
        if slot.closed || slot.closing.is_some() {
            return Err(Error::SessionClosed(id));
        }
        let groups = match target {
            SignalTarget::Foreground => {
                let group = slot
                    .master
                    .as_ref()
                    .and_then(|m| crate::os::pty::foreground_group(m.as_fd()))
                    .unwrap_or(slot.pid);
                if signal == crate::input::signal::Signal::Kill && group == slot.pid {
                    return Err(Error::InvalidInput(format!(
                        "refusing to send SIGKILL to the foreground process group {group}: it is the session's own program ({}); close the session instead, or signal the whole session",
                        procfs::process_name(group).unwrap_or_else(|| slot.program.clone())
                    )));
                }
                vec![group]
            }
            SignalTarget::Session => {
                let mut groups = procfs::process_groups(&procfs::live_session_processes(slot.pid));
                if groups.is_empty() {
                    groups.push(slot.pid);
                }
                groups
            }
        };
        let names = groups
            .iter()
            .map(|g| procfs::process_name(*g).unwrap_or_else(|| "?".to_owned()))
            .collect();
        for group in &groups {
            if let Some(pid) = Pid::from_raw(*group) {
                rustix::process::kill_process_group(pid, signal.to_rustix()).map_err(|e| {
                    Error::io(format!("sending {signal} to process group {group}"), e.into())
                })?;
            }
        }
        Ok(SignalReport { signal, groups, names })
    }
}
