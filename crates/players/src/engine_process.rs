//! Another program as a player: started with piped standard input and output, spoken to a
//! line at a time (GTP in [`crate::gtp_client`], UCI in [`crate::uci_client`]), and told
//! to quit when the player is dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use crate::error::PlayError;

/// How long an engine may take over any one line of its replies, its moves included: far
/// past any setting the strength scripts use, and an end to waiting on an engine that
/// will never answer (a program started without its protocol's flag, say).
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(300);

/// The most an engine may say in answer to one command (GNU Go's longest replies and
/// Stockfish's `info` lines over minutes of thought are a few hundred kilobytes): past it,
/// the engine is taken to be something else speaking, and stopped.
pub const MAX_REPLY_BYTES: usize = 16 << 20;

/// The most lines an engine may write in answer to one command (Stockfish thinking for
/// minutes writes a few thousand `info` lines).
pub const MAX_REPLY_LINES: usize = 100_000;

/// The longest line an engine may write: with the queue of 16 lines, what is read ahead of
/// the player stays within 16 MiB.
const MAX_LINE_BYTES: usize = 1 << 20;

/// A running engine.
pub struct EngineProcess {
    /// The player's name (its spec), for messages.
    pub name: String,
    child: Child,
    stdin: ChildStdin,
    /// The engine's lines, read on a thread of their own so that a wait can end.
    lines: Receiver<std::io::Result<String>>,
    timeout: Duration,
    /// Bytes of reply read since the last command was sent.
    replied_bytes: usize,
    /// Lines of reply read since the last command was sent.
    replied_lines: usize,
}

impl EngineProcess {
    /// Starts `command` (a program and its arguments) for the player named `name`.
    pub fn start(name: String, command: &[String]) -> Result<EngineProcess, PlayError> {
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
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout was piped"));
        // Bounded, so that an engine talking faster than it is heard waits for the reader.
        let (sender, lines) = mpsc::sync_channel(16);
        // Ends at the engine's end of output, at a line too long to be a reply, or once the
        // player is dropped.
        std::thread::spawn(move || loop {
            let mut line = String::new();
            let read = (&mut stdout)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_line(&mut line)
                .and_then(|n| {
                    if n > MAX_LINE_BYTES {
                        let limit = MAX_LINE_BYTES >> 20;
                        Err(std::io::Error::other(format!(
                            "a line of more than {limit} MiB"
                        )))
                    } else {
                        Ok(n)
                    }
                });
            let end = !matches!(read, Ok(n) if n > 0);
            if sender.send(read.map(|_| line)).is_err() || end {
                return;
            }
        });
        Ok(EngineProcess {
            name,
            child,
            stdin,
            lines,
            timeout: REPLY_TIMEOUT,
            replied_bytes: 0,
            replied_lines: 0,
        })
    }

    /// The engine with another limit on the wait for each line ([`REPLY_TIMEOUT`]).
    #[cfg(test)]
    fn with_timeout(mut self, timeout: Duration) -> EngineProcess {
        self.timeout = timeout;
        self
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), PlayError> {
        self.replied_bytes = 0;
        self.replied_lines = 0;
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| self.stopped(format!("'{line}' could not be sent: {e}")))
    }

    /// Reads one line without its line ending; `awaited` names what for, in messages.
    pub fn read_line(&mut self, awaited: &str) -> Result<String, PlayError> {
        match self.lines.recv_timeout(self.timeout) {
            Ok(Ok(line)) if !line.is_empty() => {
                self.replied_bytes += line.len();
                self.replied_lines += 1;
                if self.replied_bytes > MAX_REPLY_BYTES || self.replied_lines > MAX_REPLY_LINES {
                    return Err(self.stopped(format!(
                        "said more than {} MiB or {MAX_REPLY_LINES} lines awaiting {awaited}",
                        MAX_REPLY_BYTES >> 20
                    )));
                }
                Ok(line.trim_end_matches(['\r', '\n']).to_string())
            }
            Ok(Ok(_)) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.stopped(format!("the engine exited before {awaited}")))
            }
            Ok(Err(e)) => Err(self.stopped(format!("awaiting {awaited}: {e}"))),
            Err(RecvTimeoutError::Timeout) => Err(self.stopped(format!(
                "no {awaited} within {} s",
                self.timeout.as_secs_f64()
            ))),
        }
    }

    /// The error of this player stopping for `reason`.
    pub fn stopped(&self, reason: String) -> PlayError {
        stopped(&self.name, reason)
    }
}

/// The longest excerpt of an engine's words that a message quotes.
const QUOTED_CHARS: usize = 200;

/// What an engine said, for a one-line message: its lines joined by " / ", escaped and cut
/// to [`QUOTED_CHARS`] characters, so that an engine's long, many-line or control-coded
/// answer cannot flood the message or the terminal.
pub fn quoted(said: &str) -> String {
    let joined = said
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    zerosum_games::error::shown_up_to(&joined, QUOTED_CHARS)
}

/// The error of the player named `player` stopping for `reason`.
pub fn stopped(player: &str, reason: String) -> PlayError {
    PlayError::PlayerStopped {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A line comes back as the engine wrote it; an engine that stays silent ends the wait
    /// with one line naming what was awaited, and so does one that exits.
    #[test]
    fn a_silent_engine_ends_the_wait_with_an_error() {
        let command = ["cat".to_string()];
        let mut echo = EngineProcess::start("echo".into(), &command).unwrap();
        echo.send("= hello").unwrap();
        assert_eq!(echo.read_line("a greeting").unwrap(), "= hello");

        let command = ["sleep".to_string(), "30".to_string()];
        let mut silent = EngineProcess::start("silent".into(), &command)
            .unwrap()
            .with_timeout(Duration::from_millis(200));
        let error = silent.read_line("a move").unwrap_err().to_string();
        assert!(error.contains("no a move within 0.2 s"), "{error}");

        let command = ["true".to_string()];
        let mut gone = EngineProcess::start("gone".into(), &command).unwrap();
        let error = gone.read_line("a move").unwrap_err().to_string();
        assert!(error.contains("exited before a move"), "{error}");
    }

    /// An engine that never stops talking (`yes`) or never ends a line (`cat /dev/zero`)
    /// is stopped once it has said more than any reply holds, in bounded memory.
    #[test]
    fn an_endless_reply_is_cut_off() {
        for (command, said) in [
            (
                "yes",
                "said more than 16 MiB or 100000 lines awaiting a move",
            ),
            (
                "cat /dev/zero",
                "awaiting a move: a line of more than 1 MiB",
            ),
        ] {
            let command: Vec<String> = command.split(' ').map(String::from).collect();
            let mut talker = EngineProcess::start("talker".into(), &command).unwrap();
            talker.send("genmove b").unwrap();
            let error = loop {
                if let Err(error) = talker.read_line("a move") {
                    break error.to_string();
                }
            };
            assert!(error.contains(said), "{error}");
        }
    }

    #[test]
    fn an_engine_is_quoted_on_one_line_and_in_a_few_hundred_characters() {
        assert_eq!(quoted("illegal move"), "illegal move");
        assert_eq!(quoted(" first\r\n\n  second \n"), "first / second");
        assert_eq!(quoted("red \u{1b}[31m"), "red \\u{1b}[31m");
        let flood = "é".repeat(10_000);
        let cut = quoted(&flood);
        assert_eq!(cut.chars().count(), QUOTED_CHARS + 3);
        assert!(cut.ends_with("..."));
    }
}
