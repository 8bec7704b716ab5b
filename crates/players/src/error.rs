//! Errors of players and matches.

use thiserror::Error;

/// A player that cannot be built or stopped playing, or a match or benchmark that cannot be
/// played.
#[derive(Debug, Error)]
pub enum PlayError {
    /// A player spec that names no player.
    #[error("bad player '{spec}': {reason} (expected checkpoint:PATH[,sims=N][,search.KEY=VALUE][,precision=P], mcts:N, uct:N[,c=C], mc:N, shipped[:sims=N][,search.KEY=VALUE][,precision=P], random, perfect, human, gtp:COMMAND or uci:COMMAND[;OPTION=VALUE][;go=LIMITS])")]
    BadPlayer {
        /// The spec as given.
        spec: String,
        /// What was wrong.
        reason: String,
    },
    /// A player failed to produce a move (a human closed the input, say).
    #[error("player {player} stopped: {reason}")]
    PlayerStopped {
        /// The player's name.
        player: String,
        /// Why.
        reason: String,
    },
    /// A ladder player that no chain of games links to the anchor.
    #[error("player {player} cannot be rated: no chain of games links it to {anchor}")]
    Unrated {
        /// The player's name.
        player: String,
        /// The anchor's name.
        anchor: String,
    },
    /// A benchmark that cannot be built or read (a game too large to solve, a position
    /// file that does not replay).
    #[error("{0}")]
    Benchmark(String),
    /// A player's settings that do not make sense.
    #[error(transparent)]
    Config(#[from] zerosum_config::ConfigError),
    /// A checkpoint or record that could not be read.
    #[error(transparent)]
    Store(#[from] zerosum_store::StoreError),
    /// A game name the registry refused.
    #[error(transparent)]
    Game(#[from] zerosum_games::GameError),
    /// A network that could not be built, saved or loaded.
    #[error(transparent)]
    Nn(#[from] zerosum_nn::NnError),
}
