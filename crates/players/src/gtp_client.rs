//! Another program as a player, spoken to over the Go Text Protocol: `gtp:COMMAND`, such
//! as `gtp:/usr/games/gnugo --mode gtp --chinese-rules --capture-all-dead`.
//!
//! The engine hears every move with `play` and is asked for its own with `genmove`;
//! colour `b` is the first player and `w` the second, as in `zerosum gtp`, and moves are in
//! the game's notation. A game named with `size=` or `komi=` sends `boardsize` and `komi`
//! first, so a Go engine plays the board and rules that the arena scores.

use rand::rngs::SmallRng;
use zerosum_games::registry::param_pairs;
use zerosum_games::{Action, Game, Player};

use crate::agent::{Agent, Choice};
use crate::engine_process::{quoted, stopped, EngineProcess};
use crate::error::PlayError;

/// A running GTP engine.
pub struct GtpClient {
    engine: EngineProcess,
    /// The move the engine chose last, which it has already played on its own board.
    generated: Option<Action>,
    /// A `play` or `clear_board` the engine refused: its board is no longer the arena's,
    /// so its next turn reports this instead of moving.
    out_of_step: Option<PlayError>,
}

impl GtpClient {
    /// Starts `command` (a program and its arguments) and sets up `game`'s board size and
    /// komi where its name has them.
    pub fn start<G: Game>(command: &[String], game: &G) -> Result<GtpClient, PlayError> {
        let mut client = GtpClient {
            engine: EngineProcess::start(format!("gtp:{}", command.join(" ")), command)?,
            generated: None,
            out_of_step: None,
        };
        let game_name = game.name();
        let params = game_name.split_once(':').map_or("", |(_, p)| p);
        for (key, value) in param_pairs(params).filter_map(|(k, v)| Some((k, v?))) {
            let setup = match key {
                "size" => format!("boardsize {value}"),
                "komi" => format!("komi {value}"),
                _ => continue,
            };
            client.send(&setup)?;
        }
        client.send("clear_board")?;
        Ok(client)
    }

    /// Sends one command and returns the text of its success reply.
    fn send(&mut self, command: &str) -> Result<String, PlayError> {
        self.engine.send(command)?;
        // A reply is one or more lines after `=` or `?`, ended by an empty line.
        let mut reply = String::new();
        loop {
            let line = self.engine.read_line(&format!("a reply to '{command}'"))?;
            if line.is_empty() {
                if reply.is_empty() {
                    continue; // blank lines before a reply carry nothing
                }
                break;
            }
            reply.push_str(&line);
            reply.push('\n');
        }
        let reply = reply.trim_end();
        if let Some(text) = reply.strip_prefix('=') {
            Ok(text.trim().to_string())
        } else {
            let text = reply.strip_prefix('?').unwrap_or(reply).trim();
            Err(self
                .engine
                .stopped(format!("answered '{command}' with: {}", quoted(text))))
        }
    }
}

fn colour(player: Player) -> &'static str {
    if player == Player::FIRST {
        "b"
    } else {
        "w"
    }
}

impl<G: Game> Agent<G> for GtpClient {
    fn name(&self) -> String {
        self.engine.name.clone()
    }

    fn choose(&mut self, position: &G, _rng: &mut SmallRng) -> Result<Choice, PlayError> {
        if let Some(error) = self.out_of_step.take() {
            return Err(error);
        }
        let reply = self.send(&format!("genmove {}", colour(position.to_move())))?;
        if reply.eq_ignore_ascii_case("resign") {
            // The arena scores finished games by the rules only: a resignation has no place.
            return Err(stopped(
                &self.engine.name,
                "resigned; run it with resignation off (GNU Go: --never-resign)".to_string(),
            ));
        }
        let action = position.parse_action(&reply).map_err(|e| {
            self.engine
                .stopped(format!("chose '{}': {e}", quoted(&reply)))
        })?;
        self.generated = Some(action);
        Ok(Choice {
            action,
            value: None,
            search: None,
        })
    }

    fn observe(&mut self, position: &G, action: Action) {
        if self.generated.take() == Some(action) {
            return;
        }
        let command = format!(
            "play {} {}",
            colour(position.to_move()),
            position.format_action(action)
        );
        if let Err(error) = self.send(&command) {
            self.out_of_step.get_or_insert(error);
        }
    }

    fn reset(&mut self) {
        self.generated = None;
        self.out_of_step = None;
        if let Err(error) = self.send("clear_board") {
            self.out_of_step = Some(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_games::tic_tac_toe::TicTacToe;

    /// An engine that refuses every command at length, over many lines.
    #[test]
    fn a_refusal_is_reported_on_one_short_line() {
        let script = "while read -r line; do printf '? no\\n'; \
                      for i in $(seq 500); do printf 'more words %s\\n' $i; done; printf '\\n'; done";
        let command = ["sh", "-c", script].map(String::from);
        let Err(error) = GtpClient::start(&command, &TicTacToe::default()) else {
            panic!("an engine that refuses clear_board cannot start");
        };
        let error = error.to_string();
        assert!(
            error.contains("answered 'clear_board' with: no / more words 1 / more words 2"),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
        assert!(error.len() < 500, "{error}");
    }
}
