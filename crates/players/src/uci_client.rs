//! A chess engine as a player, spoken to over the Universal Chess Interface:
//! `uci:COMMAND[;OPTION=VALUE...][;go=LIMITS]`, such as
//! `uci:/usr/games/stockfish;Skill Level=0;go=movetime 100`.
//!
//! The engine hears the whole game since the start with `position startpos moves ...` and
//! answers `go LIMITS` (`movetime 100` unless the spec says otherwise) with `bestmove`.
//! Each `OPTION=VALUE` is sent once with `setoption`, before the first game.

use rand::rngs::SmallRng;
use zerosum_games::{Action, Game};

use crate::agent::{Agent, Choice};
use crate::engine_process::{quoted, EngineProcess};
use crate::error::PlayError;

/// The search limits of a `go` when the spec names none.
pub const DEFAULT_GO: &str = "movetime 100";

/// How a UCI engine is started and asked to move.
#[derive(Clone, Debug, PartialEq)]
pub struct UciSpec {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// `setoption` name and value pairs, in order.
    pub options: Vec<(String, String)>,
    /// What follows `go` (`movetime 100`, `depth 8`, `nodes 10000`).
    pub go: String,
}

impl UciSpec {
    /// Reads the part after `uci:`; the error says what is wrong in a few words.
    pub fn parse(text: &str) -> Result<UciSpec, String> {
        let mut parts = text.split(';');
        let command: Vec<String> = parts
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect();
        if command.is_empty() {
            return Err("uci needs a command, like 'uci:stockfish;Skill Level=0'".into());
        }
        let mut spec = UciSpec {
            command,
            options: Vec::new(),
            go: DEFAULT_GO.to_string(),
        };
        for part in parts.map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!("'{part}' is not NAME=VALUE"));
            };
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || value.is_empty() || value.contains(['\n', '\r']) {
                return Err(format!("'{part}' is not NAME=VALUE"));
            }
            if key == "go" {
                spec.go = value.to_string();
            } else {
                spec.options.push((key.to_string(), value.to_string()));
            }
        }
        Ok(spec)
    }
}

impl std::fmt::Display for UciSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "uci:{}", self.command.join(" "))?;
        for (name, value) in &self.options {
            write!(f, ";{name}={value}")?;
        }
        if self.go != DEFAULT_GO {
            write!(f, ";go={}", self.go)?;
        }
        Ok(())
    }
}

/// A running UCI engine.
pub struct UciClient {
    engine: EngineProcess,
    go: String,
    /// The game's moves so far, in UCI notation.
    moves: Vec<String>,
}

impl UciClient {
    /// Starts the engine for `game`, which must be chess from the standard position.
    pub fn start<G: Game>(spec: &UciSpec, game: &G) -> Result<UciClient, PlayError> {
        let name = spec.to_string();
        if game.name().split(':').next() != Some("chess") {
            return Err(PlayError::BadPlayer {
                spec: name,
                reason: format!("a UCI engine plays chess, not {}", game.name()),
            });
        }
        let mut client = UciClient {
            engine: EngineProcess::start(name, &spec.command)?,
            go: spec.go.clone(),
            moves: Vec::new(),
        };
        client.send("uci")?;
        client.read_until("uciok")?;
        for (option, value) in &spec.options {
            client.send(&format!("setoption name {option} value {value}"))?;
        }
        client.new_game()?;
        Ok(client)
    }

    fn new_game(&mut self) -> Result<(), PlayError> {
        self.moves.clear();
        self.send("ucinewgame")?;
        self.send("isready")?;
        // An option the engine does not know is reported before `readyok` (Stockfish: "No
        // such option", zerosum: "unknown option").
        let said = self.read_until("readyok")?;
        let refused = |line: &&String| {
            let line = line.to_lowercase();
            line.contains("no such option") || line.contains("unknown option")
        };
        match said.iter().find(refused) {
            Some(line) => Err(self.engine.stopped(quoted(line))),
            None => Ok(()),
        }
    }

    fn send(&mut self, line: &str) -> Result<(), PlayError> {
        self.engine.send(line)
    }

    /// Reads lines until one starts with `word`; returns the lines, that one last.
    fn read_until(&mut self, word: &str) -> Result<Vec<String>, PlayError> {
        let mut lines = Vec::new();
        loop {
            let line = self
                .engine
                .read_line(&format!("'{word}'"))?
                .trim()
                .to_string();
            let done = line.split_whitespace().next() == Some(word);
            lines.push(line);
            if done {
                return Ok(lines);
            }
        }
    }
}

impl<G: Game> Agent<G> for UciClient {
    fn name(&self) -> String {
        self.engine.name.clone()
    }

    fn choose(&mut self, position: &G, _rng: &mut SmallRng) -> Result<Choice, PlayError> {
        let mut command = "position startpos".to_string();
        if !self.moves.is_empty() {
            command = format!("{command} moves {}", self.moves.join(" "));
        }
        self.send(&command)?;
        self.send(&format!("go {}", self.go))?;
        let lines = self.read_until("bestmove")?;
        let last = lines.last().expect("read_until returns its line");
        let text = last.split_whitespace().nth(1).unwrap_or_default();
        let action = position.parse_action(text).map_err(|e| {
            self.engine
                .stopped(format!("chose '{}': {e}", quoted(text)))
        })?;
        Ok(Choice {
            action,
            value: None,
            search: None,
        })
    }

    fn observe(&mut self, position: &G, action: Action) {
        self.moves.push(position.format_action(action));
    }

    fn reset(&mut self) {
        // A failure shows at the next move, which sends to the same engine.
        let _ = self.new_game();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_options_and_limits() {
        let spec = UciSpec::parse("/usr/games/stockfish;Skill Level=0; go=depth 3").unwrap();
        assert_eq!(spec.command, vec!["/usr/games/stockfish"]);
        assert_eq!(spec.options, vec![("Skill Level".into(), "0".into())]);
        assert_eq!(spec.go, "depth 3");
        assert_eq!(
            spec.to_string(),
            "uci:/usr/games/stockfish;Skill Level=0;go=depth 3"
        );
        assert_eq!(UciSpec::parse("sf").unwrap().go, DEFAULT_GO);
        assert!(UciSpec::parse("").is_err());
        assert!(UciSpec::parse("sf;Skill Level").is_err());
        assert!(UciSpec::parse("sf;=3").is_err());
    }
}
