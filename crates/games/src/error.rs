//! Errors of the games crate.

use thiserror::Error;

/// What went wrong with a game name, a move or a position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    /// The registry knows no game of this name.
    #[error("unknown game '{name}' (known: {known})")]
    UnknownGame {
        /// The name as given.
        name: String,
        /// The registry names, comma separated.
        known: String,
    },
    /// A game parameter was unknown or had a bad value.
    #[error("bad parameter '{param}' for game {game}: {reason}")]
    BadParameter {
        /// The game's registry name.
        game: String,
        /// The parameter as given.
        param: String,
        /// Why it was refused.
        reason: String,
    },
    /// Text that is not a move in this game's notation.
    #[error("'{text}' is not a move here: {expected}")]
    BadNotation {
        /// The text as given.
        text: String,
        /// The form a move takes in this game.
        expected: String,
    },
    /// A move in the right notation that the position does not allow.
    #[error("illegal move {action} in position {position}")]
    IllegalAction {
        /// The move, in notation where it has one.
        action: String,
        /// The position, on one line.
        position: String,
    },
    /// A move was given after the game ended.
    #[error("the game is over")]
    GameOver,
    /// A position description (FEN, say) that could not be read.
    #[error("bad position '{text}': {reason}")]
    BadPosition {
        /// The text as given.
        text: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A game registered under a name that could not be typed on a command line.
    #[error("'{name}' cannot name a game: use letters, digits, '_' and '-'")]
    BadName {
        /// The name as given.
        name: String,
    },
    /// A game registered under a name the table already has.
    #[error("a game named '{name}' is already registered")]
    NameTaken {
        /// The name as given.
        name: String,
    },
}
