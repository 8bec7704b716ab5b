//! Errors of the train crate.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong in a run.
#[derive(Debug, Error)]
pub enum TrainError {
    /// The caller asked the run to stop (Ctrl-C in Python); everything finished is kept.
    #[error("interrupted")]
    Interrupted,
    /// A run directory that cannot be used as asked (exists without --resume, say).
    #[error("run directory {path}: {reason}")]
    RunDir {
        /// The directory.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A learner that would start a run where one exists, without resuming it.
    #[error(
        "{location} already holds a run: pass --resume to continue it, or --run for a new one"
    )]
    RunExists {
        /// The run.
        location: String,
    },
    /// A run asked to train another game than its own.
    #[error("{location} trains {run_game}, not {asked}: a run's game is fixed")]
    OtherGame {
        /// The run.
        location: String,
        /// The game it trains.
        run_game: String,
        /// The game asked for.
        asked: String,
    },
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
    /// A config that does not parse or does not make sense.
    #[error(transparent)]
    Config(#[from] zerosum_config::ConfigError),
    /// A player that cannot be built or a match that cannot be played.
    #[error(transparent)]
    Play(#[from] zerosum_players::PlayError),
    /// The run's store, or an object or record in it.
    #[error(transparent)]
    Store(#[from] zerosum_store::StoreError),
    /// A game name the registry refused.
    #[error(transparent)]
    Game(#[from] zerosum_games::GameError),
    /// A network that could not be built, saved or loaded.
    #[error(transparent)]
    Nn(#[from] zerosum_nn::NnError),
}
