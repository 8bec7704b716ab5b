//! Another program as a player: started with piped standard input and output, spoken to a
//! line at a time (GTP in [`crate::gtp_client`], UCI in [`crate::uci_client`]), and told
//! to quit when the player is dropped.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::error::TrainError;

/// A running engine.
pub struct EngineProcess {
    /// The player's name (its spec), for messages.
    pub name: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl EngineProcess {
    /// Starts `command` (a program and its arguments) for the player named `name`.
    pub fn start(name: String, command: &[String]) -> Result<EngineProcess, TrainError> {
        let Some((program, args)) = command.split_first() else {
            return Err(stopped(&name, "no command to run".to_string()));
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| stopped(&name, format!("cannot start '{program}': {e}")))?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout was piped"));
        Ok(EngineProcess {
            name,
            child,
            stdin,
            stdout,
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), TrainError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| self.stopped(format!("'{line}' could not be sent: {e}")))
    }

    /// Reads one line without its line ending; `awaited` names what for, in messages.
    pub fn read_line(&mut self, awaited: &str) -> Result<String, TrainError> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err(self.stopped(format!("the engine exited before {awaited}"))),
            Ok(_) => Ok(line.trim_end_matches(['\r', '\n']).to_string()),
            Err(e) => Err(self.stopped(format!("no {awaited}: {e}"))),
        }
    }

    /// The error of this player stopping for `reason`.
    pub fn stopped(&self, reason: String) -> TrainError {
        stopped(&self.name, reason)
    }
}

/// The error of the player named `player` stopping for `reason`.
pub fn stopped(player: &str, reason: String) -> TrainError {
    TrainError::PlayerStopped {
        player: player.to_string(),
        reason,
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        // An engine that ignores `quit` must not hang the arena at its end.
        for _ in 0..50 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
