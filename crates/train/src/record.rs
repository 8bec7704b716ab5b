//! Game records: one JSON object per game, moves in design.md notation.

use serde::{Deserialize, Serialize};
use zerosum_games::{Action, Game, GameError, Outcome, Player};

/// What the search said at one move of a recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveStats {
    /// The training target: `[action, probability]` over the legal actions.
    pub policy: Vec<(Action, f32)>,
    /// The root's searched value, from the mover's view.
    pub value: f32,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's full registry name.
    pub game: String,
    /// Who played first and second.
    pub players: [String; 2],
    /// Action indices, in order.
    pub actions: Vec<Action>,
    /// The same moves in notation.
    pub moves: Vec<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// The result from the first player's view: 1, 0 or -1.
    pub value_first: f32,
    /// Search statistics per move in self-play: `null` for moves that are not training
    /// samples (random opening plies, fast searches under playout cap randomization).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stats: Vec<Option<MoveStats>>,
}

impl GameRecord {
    /// Builds a record of a finished game from its initial position and its actions.
    pub fn new<G: Game>(
        initial: &G,
        players: [String; 2],
        actions: Vec<Action>,
        stats: Vec<Option<MoveStats>>,
    ) -> GameRecord {
        let mut position = initial.clone();
        let mut moves = Vec::with_capacity(actions.len());
        for &action in &actions {
            moves.push(position.format_action(action));
            position.apply(action);
        }
        let outcome = position.outcome().unwrap_or(Outcome::Draw);
        GameRecord {
            game: initial.name(),
            players,
            actions,
            moves,
            result: outcome.score_string().to_string(),
            value_first: outcome.value_for(Player::FIRST),
            stats,
        }
    }

    /// Replays the record from `initial`, checking every move; returns the positions before
    /// each move.
    pub fn replay<G: Game>(&self, initial: &G) -> Result<Vec<G>, GameError> {
        let mut position = initial.clone();
        let mut positions = Vec::with_capacity(self.actions.len());
        for &action in &self.actions {
            positions.push(position.clone());
            position.try_apply(action)?;
        }
        Ok(positions)
    }
}
