//! Errors of the train crate.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong in a run, a player spec or a record.
#[derive(Debug, Error)]
pub enum TrainError {
    /// The caller asked the run to stop (Ctrl-C in Python); everything finished is kept.
    #[error("interrupted")]
    Interrupted,
    /// A config that does not parse or does not make sense.
    #[error("bad config: {0}")]
    BadConfig(String),
    /// A player spec that names no player.
    #[error("bad player '{spec}': {reason} (expected checkpoint:PATH[,sims=N][,search.KEY=VALUE][,precision=P], mcts:N, uct:N[,c=C], mc:N, shipped[:sims=N][,search.KEY=VALUE][,precision=P], random, perfect, human, gtp:COMMAND or uci:COMMAND[;OPTION=VALUE][;go=LIMITS])")]
    BadPlayer {
        /// The spec as given.
        spec: String,
        /// What was wrong.
        reason: String,
    },
    /// A game name the registry refused.
    #[error(transparent)]
    Game(#[from] zerosum_games::GameError),
    /// A network that could not be built, saved or loaded.
    #[error(transparent)]
    Nn(#[from] zerosum_nn::NnError),
    /// A file of the run directory that could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A run store that cannot be reached or used: one line naming the location and why.
    #[error("{location}: {reason}")]
    Store {
        /// The run, or the object in it.
        location: String,
        /// What went wrong.
        reason: String,
    },
    /// A record that could not be read.
    #[error("bad record in {path} line {line}: {reason}")]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A run directory that cannot be used as asked (exists without --resume, say).
    #[error("run directory {path}: {reason}")]
    RunDir {
        /// The directory.
        path: PathBuf,
        /// What was wrong.
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
    /// Learning made the network's loss NaN or infinite; its checkpoint is not written.
    #[error("generation {0}'s learning ended with a loss that is NaN or infinite: the network diverged (lower learner.learning_rate, or start from another checkpoint); the generation before it is the last saved")]
    Diverged(u64),
    /// `distill`'s network `network` diverged while learning generation `generation`.
    #[error("the {network} network's loss became NaN or infinite at generation {generation}: it diverged, and it is not written (lower learner.learning_rate with --set)")]
    DistillDiverged {
        /// `curriculum` or `window`.
        network: &'static str,
        /// The generation it was learning.
        generation: u64,
    },
    /// A player failed to produce a move (a human closed the input, say).
    #[error("player {player} stopped: {reason}")]
    PlayerStopped {
        /// The player's name.
        player: String,
        /// Why.
        reason: String,
    },
}
