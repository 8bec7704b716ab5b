//! Errors of the run store.

use std::path::PathBuf;
use thiserror::Error;

/// A run's object, file or record that could not be read or written.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A run store that cannot be reached or used, or an object in it that is not what it
    /// should be: one line naming the location and why.
    #[error("{location}: {reason}")]
    Location {
        /// The run, or the object in it.
        location: String,
        /// What went wrong.
        reason: String,
    },
    /// A local file that could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A game record that could not be read.
    #[error("bad record in {path} line {line}: {reason}")]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A game name the registry refused.
    #[error(transparent)]
    Game(#[from] zerosum_games::GameError),
    /// A network that could not be built, saved or loaded.
    #[error(transparent)]
    Nn(#[from] zerosum_nn::NnError),
}
