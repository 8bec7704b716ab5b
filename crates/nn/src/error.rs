//! Errors of the nn crate.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong building, running, saving or loading a network.
#[derive(Debug, Error)]
pub enum NnError {
    /// No checkpoint at this path.
    #[error("no checkpoint at {path} (expected {path}.safetensors and {path}.json)")]
    MissingCheckpoint {
        /// The path as given, without extension.
        path: PathBuf,
    },
    /// The weights could not be written as safetensors.
    #[error("cannot write the checkpoint's weights: {0}")]
    Serialize(String),
    /// The network could not be written in another format (ONNX).
    #[error("{0}")]
    Export(String),
    /// An optimizer's saved state that cannot be taken up.
    #[error("cannot take up the optimizer's saved state: {0}")]
    OptimizerState(String),
    /// The checkpoint's files exist but could not be read.
    #[error("corrupt checkpoint {path}: {reason}")]
    CorruptCheckpoint {
        /// The file that failed.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// The checkpoint was trained for another game or board shape.
    #[error("checkpoint {path} is for game '{found}', not '{expected}'")]
    GameMismatch {
        /// The checkpoint.
        path: PathBuf,
        /// The game asked for.
        expected: String,
        /// The game it was trained on.
        found: String,
    },
    /// The checkpoint's input or output shape is not what its game gives today (the game's
    /// encoding changed since it was trained).
    #[error(
        "checkpoint {path} reads {found} but {game} gives {expected}: its encoding changed since \
         this checkpoint was trained, so train it again"
    )]
    ShapeMismatch {
        /// The checkpoint.
        path: PathBuf,
        /// The game's full name.
        game: String,
        /// Observation shape and action count the game has.
        expected: String,
        /// Observation shape and action count the checkpoint was built for.
        found: String,
    },
    /// A model configuration that cannot be built.
    #[error("bad model config: {0}")]
    BadConfig(String),
    /// A CUDA device was asked for and libtorch's CUDA half would not load.
    #[error("device '{device}' is not available: {reason}")]
    CudaNotLoaded {
        /// The device as given.
        device: String,
        /// The loader's complaint.
        reason: String,
    },
    /// A device name that is none of `auto`, `cpu`, `cuda` and `cuda:N`.
    #[error("unknown device '{0}' (use auto, cpu, cuda or cuda:N)")]
    UnknownDevice(String),
    /// A CUDA device that is not there: no GPU at all, or fewer than its index needs.
    #[error("device '{device}': {}", gpus_found(*.found))]
    NoGpu {
        /// The device as given.
        device: String,
        /// GPUs libtorch sees.
        found: i64,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// libtorch reported an error.
    #[error("libtorch: {0}")]
    Torch(String),
}

impl From<tch::TchError> for NnError {
    fn from(e: tch::TchError) -> Self {
        NnError::Torch(e.to_string().lines().next().unwrap_or("").to_string())
    }
}

/// The first line of a panic's message (libtorch's errors reach Rust as panics).
pub(crate) fn panic_line(panic: &(dyn std::any::Any + Send)) -> &str {
    let text = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("unknown failure");
    text.lines().next().unwrap_or(text)
}

/// What [`NnError::NoGpu`] found: none, or too few for the index asked for.
fn gpus_found(found: i64) -> String {
    match found {
        ..=0 => "no GPU was found".to_string(),
        1 => "only 1 GPU was found (cuda:0)".to_string(),
        n => format!("only {n} GPUs were found (cuda:0 to cuda:{})", n - 1),
    }
}
