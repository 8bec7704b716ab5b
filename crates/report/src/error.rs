//! Errors of the report crate.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong while reading a run or writing a report.
#[derive(Debug, Error)]
pub enum ReportError {
    /// A file or folder that could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A plot that plotters could not draw.
    #[error("cannot draw the {chart} plot: {reason}")]
    Draw {
        /// The chart's name.
        chart: String,
        /// What plotters said.
        reason: String,
    },
    /// A folder or URL without a run's config.
    #[error("{location}: not a run (no config.toml)")]
    NotARun {
        /// Where the run was looked for.
        location: String,
    },
    /// A run whose config.toml this build does not read.
    #[error("{location}: config.toml: {reason}")]
    BadConfig {
        /// The run.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The run's store.
    #[error(transparent)]
    Store(#[from] zerosum_store::StoreError),
    /// The run's records, as the train crate reads them.
    #[error(transparent)]
    Train(#[from] zerosum_train::error::TrainError),
}
