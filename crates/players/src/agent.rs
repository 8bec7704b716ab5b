//! The one interface every player implements: a move for a position, and what the player
//! thought of it.

use rand::rngs::SmallRng;
use zerosum_games::{Action, Game};
use zerosum_search::SearchResult;

use crate::error::PlayError;

/// A move and what the player thought of it.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The move.
    pub action: Action,
    /// The player's value of the position before the move, from the mover's view.
    pub value: Option<f32>,
    /// The search behind the move, if any.
    pub search: Option<SearchResult>,
}

/// Something that plays moves.
pub trait Agent<G: Game> {
    /// A short name for reports (`mcts:400`, `checkpoint:runs/a/checkpoints/latest`).
    fn name(&self) -> String;
    /// Picks a move in `position`, which is not finished.
    fn choose(&mut self, position: &G, rng: &mut SmallRng) -> Result<Choice, PlayError>;
    /// Hears about every move played, its own and the opponent's (to keep a tree).
    fn observe(&mut self, _position: &G, _action: Action) {}
    /// A new game starts.
    fn reset(&mut self) {}
}
