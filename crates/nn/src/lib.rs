//! Policy/value networks on libtorch, through `tch`; the only crate that names tch.
//!
//! - [`ModelConfig`] picks a family ([`Family::Mlp`], [`Family::Conv`] or [`Family::Resnet`])
//!   and its size.
//! - [`Model`] holds the weights; [`Model::save`] and [`Model::load`] write and read
//!   `<name>.safetensors` with a `<name>.json` sidecar ([`CheckpointMeta`]).
//! - [`NetEvaluator`] is the search's [`zerosum_search::Evaluator`] for a model on one
//!   thread; [`InferenceServer`] shares one model among many search threads in batches.
//! - [`TrainState`] (a model with its optimizer and step count) takes gradient steps on a
//!   [`Batch`] and reports [`Losses`].
//!
//! ```
//! use zerosum_nn::{Model, ModelConfig, Family};
//! let config = ModelConfig { family: Family::Mlp, hidden: 16, layers: 1, ..Default::default() };
//! let model = Model::new("tictactoe", &config, [2, 3, 3], 9, tch::Device::Cpu).unwrap();
//! let (mut logits, mut values) = (vec![0.0; 9], vec![0.0; 1]);
//! model.predict(&[0.0; 18], 1, &mut logits, &mut values);
//! assert!(values[0].abs() <= 1.0);
//! ```
#![warn(missing_docs)]

mod autocast;
mod config;
mod cuda;
mod error;
mod evaluator;
mod families;
mod graphs;
mod model;
mod onnx;
mod optimizer;
mod server;
mod training;

pub use autocast::mixed_precision_available;
pub use config::{
    is_graphs_setting, Family, LearnerConfig, ModelConfig, OptimizerKind, PolicyLoss,
};
pub use error::NnError;
pub use evaluator::NetEvaluator;
pub use families::{Outputs, PolicyValueNet};
pub use graphs::{
    cuda_graphs_auto, cuda_graphs_available, cuda_graphs_setting, GRAPH_LIBRARY, GRAPH_LIBRARY_VAR,
};
pub use model::{
    checkpoint_base, parse_device, with_extension, Ancestor, CheckpointBytes, CheckpointMeta,
    Model, Precision,
};
pub use onnx::onnx_bytes;
pub use server::{InferenceServer, ServerCounters, ServerEvaluator};
/// Where tensors live (re-exported so other crates need not name tch).
pub use tch::Device;
pub use training::{forward_backward_rate, Batch, DeviceBatch, Losses, PendingLosses, TrainState};

/// Seeds libtorch's generator (weight initialisation) and sets its thread count. Seeding
/// settles whether libtorch has CUDA, so libtorch's CUDA half is loaded first.
pub fn init_torch(seed: u64, threads: usize) {
    cuda::load_backend();
    tch::manual_seed(seed as i64);
    if threads > 0 {
        tch::set_num_threads(threads as i32);
    }
}

/// Whether a CUDA device is available.
pub fn cuda_available() -> bool {
    cuda::load_backend();
    tch::Cuda::is_available()
}

/// Sets libtorch's intra-op thread count. Threads started afterwards take it up on their
/// first tensor operation, which is how self-play workers each get their share of the cores.
pub fn set_torch_threads(threads: usize) {
    tch::set_num_threads(threads.max(1) as i32);
}

/// libtorch's intra-op thread count.
pub fn torch_threads() -> usize {
    tch::get_num_threads().max(1) as usize
}
