//! A network with its weights, its shape and its checkpoint files.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use serde::{Deserialize, Serialize};
use tch::{nn, Device, Kind, Tensor};
use zerosum_games::Game;

use crate::config::{Family, ModelConfig};
use crate::error::NnError;
use crate::families::{self, Outputs, PolicyValueNet};
use crate::graphs::GraphedForward;

/// What a checkpoint's JSON sidecar records beside the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMeta {
    /// The game's full registry name (`connect4:rows=6,cols=7,k=4`).
    pub game: String,
    /// The network's shape.
    pub model: ModelConfig,
    /// Observation shape `[planes, height, width]`.
    pub obs_shape: [usize; 3],
    /// Size of the policy head.
    pub num_actions: usize,
    /// Optimizer steps taken when it was written.
    pub step: u64,
    /// Training generation when it was written.
    pub generation: u64,
    /// The zerosum version that wrote it.
    pub zerosum_version: String,
    /// The checkpoints it was started from (`train --init`), oldest first: each run's
    /// last word before the next began, so a network improved run after run keeps its
    /// whole history.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lineage: Vec<Ancestor>,
    /// Its own run's training time up to it, in seconds, where recorded (shipped models
    /// record it, so that their lineage's hours add up when a run starts from one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_seconds: Option<f64>,
}

/// A checkpoint a network was started from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ancestor {
    /// Where it was read (a path or a URL).
    pub checkpoint: String,
    /// Its training generation.
    pub generation: u64,
    /// Its optimizer steps.
    pub step: u64,
    /// Its run's training time up to it, in seconds, where the run recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_seconds: Option<f64>,
}

/// Picks a device from `auto`, `cpu`, `cuda` or `cuda:N`.
pub fn parse_device(text: &str) -> Result<Device, NnError> {
    let index = match text {
        "cpu" => return Ok(Device::Cpu),
        "auto" => {
            crate::cuda::load_backend();
            return Ok(Device::cuda_if_available());
        }
        "cuda" => 0,
        _ => text
            .strip_prefix("cuda:")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| NnError::UnknownDevice(text.to_string()))?,
    };
    let not_loaded = crate::cuda::load_backend();
    let found = if tch::Cuda::is_available() {
        tch::Cuda::device_count()
    } else {
        0
    };
    if i64::try_from(index).is_ok_and(|n| n < found) {
        return Ok(Device::Cuda(index));
    }
    Err(match not_loaded {
        Some(reason) => NnError::CudaNotLoaded {
            device: text.to_string(),
            reason: reason.to_string(),
        },
        None => NnError::NoGpu {
            device: text.to_string(),
            found,
        },
    })
}

/// The number format of inference, or of training's forward and backward passes
/// ([`crate::TrainState::with_precision`]): `fp32`, or half precision as `bf16` (8 exponent bits,
/// as fp32: nothing overflows) or `fp16` (more mantissa, less range).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit floats.
    #[default]
    Fp32,
    /// bfloat16.
    Bf16,
    /// IEEE half.
    Fp16,
}

impl Precision {
    fn kind(self) -> Kind {
        match self {
            Precision::Fp32 => Kind::Float,
            Precision::Bf16 => Kind::BFloat16,
            Precision::Fp16 => Kind::Half,
        }
    }

    fn of_kind(kind: Kind) -> Precision {
        match kind {
            Kind::BFloat16 => Precision::Bf16,
            Kind::Half => Precision::Fp16,
            _ => Precision::Fp32,
        }
    }

    /// Its name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
            Precision::Fp16 => "fp16",
        }
    }

    /// Whether this CPU has bf16 dot-product instructions (AVX512_BF16), with which oneDNN
    /// runs bf16 convolutions faster than fp32 (connect four's tower 1.8 to 2.3 times at
    /// batches of 32 and more on the project's EPYC). Without them bf16 is emulated, and
    /// slower.
    pub fn cpu_computes_bf16() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512bf16")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Reads `fp32`, `bf16` or `fp16`.
    pub fn parse(text: &str) -> Result<Precision, NnError> {
        match text {
            "fp32" => Ok(Precision::Fp32),
            "bf16" => Ok(Precision::Bf16),
            "fp16" => Ok(Precision::Fp16),
            other => Err(NnError::BadConfig(format!(
                "unknown precision '{other}': use fp32, bf16 or fp16"
            ))),
        }
    }
}

/// A policy/value network for one game.
pub struct Model {
    vs: nn::VarStore,
    net: Box<dyn PolicyValueNet>,
    meta: CheckpointMeta,
    /// The kind of the weights and of what `predict` feeds them: `Float` unless converted
    /// for inference by [`Model::for_inference`].
    kind: Kind,
    /// Forward passes recorded as CUDA graphs, where [`Model::with_cuda_graphs`] asked.
    graphs: Option<Mutex<GraphedForward>>,
}

impl Model {
    /// A freshly initialised network for `game` with observation shape `obs_shape` and
    /// `num_actions` actions.
    pub fn new(
        game: &str,
        config: &ModelConfig,
        obs_shape: [usize; 3],
        num_actions: usize,
        device: Device,
    ) -> Result<Model, NnError> {
        let problems = config.validate();
        if let Some(first) = problems.first() {
            return Err(NnError::BadConfig(first.clone()));
        }
        let vs = nn::VarStore::new(device);
        let net = families::build(&vs.root(), config, obs_shape, num_actions);
        let meta = CheckpointMeta {
            game: game.to_string(),
            model: config.clone(),
            obs_shape,
            num_actions,
            step: 0,
            generation: 0,
            zerosum_version: env!("CARGO_PKG_VERSION").to_string(),
            lineage: Vec::new(),
            train_seconds: None,
        };
        Ok(Model {
            vs,
            net,
            meta,
            kind: Kind::Float,
            graphs: None,
        })
    }

    /// A freshly initialised network of shape `config` for `game`'s observations and
    /// actions.
    pub fn for_game<G: Game>(
        game: &G,
        config: &ModelConfig,
        device: Device,
    ) -> Result<Model, NnError> {
        Model::new(
            &game.name(),
            config,
            game.obs_shape(),
            game.num_actions(),
            device,
        )
    }

    /// The checkpoint metadata (step and generation as last set).
    pub fn meta(&self) -> &CheckpointMeta {
        &self.meta
    }

    /// Records the training progress written into the next checkpoint.
    pub fn set_progress(&mut self, step: u64, generation: u64) {
        self.meta.step = step;
        self.meta.generation = generation;
    }

    /// Makes the network, read from `origin`, the start of a new run: its progress goes
    /// back to zero and `origin` (trained for `train_seconds`) joins its lineage.
    pub fn start_from(&mut self, origin: String, train_seconds: Option<f64>) {
        self.meta.lineage.push(Ancestor {
            checkpoint: origin,
            generation: self.meta.generation,
            step: self.meta.step,
            train_seconds,
        });
        self.meta.train_seconds = None;
        self.set_progress(0, 0);
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The variable store (for optimizers).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// The forward pass: observations `[B, obs_len]` (flat) to logits `[B, A]`, values
    /// `[B]` and, with the reply head, reply logits `[B, A]`.
    pub fn forward_t(&self, obs: &Tensor, train: bool) -> Outputs {
        let [c, h, w] = self.meta.obs_shape;
        let obs = obs.view([-1, c as i64, h as i64, w as i64]);
        self.net.forward_t(&obs, train)
    }

    /// The forward pass as [`Model::forward_t`], a convolutional family's observations laid
    /// out channels-last first where `channels_last` (the same shape, NHWC strides), which
    /// oneDNN's convolutions and their gradients run faster on: connect four's tower trained
    /// 1.5 to 2 times as fast in fp32 and 1.2 times in bf16 on one core of the project's EPYC
    /// (docs/results.md, "Training in mixed precision"). MLPs keep their layout.
    pub(crate) fn forward_in_layout(
        &self,
        obs: &Tensor,
        train: bool,
        channels_last: bool,
    ) -> Outputs {
        if self.meta.model.family == Family::Mlp || !channels_last {
            return self.forward_t(obs, train);
        }
        let [c, h, w] = self.meta.obs_shape;
        let nhwc = obs
            .view([-1, c as i64, h as i64, w as i64])
            .permute([0, 2, 3, 1])
            .contiguous()
            .permute([0, 3, 1, 2]);
        self.net.forward_t(&nhwc, train)
    }

    /// Inference on a flat batch `[B * obs_len]`, writing logits `[B * A]` and values `[B]`.
    pub fn predict(&self, obs: &[f32], batch: usize, logits: &mut [f32], values: &mut [f32]) {
        let _guard = tch::no_grad_guard();
        if let Some(graphs) = &self.graphs {
            let mut graphs = graphs.lock().unwrap_or_else(|e| e.into_inner());
            let [c, h, w] = self.meta.obs_shape;
            let input = (self.device(), self.kind, c * h * w);
            let forward = |obs: &Tensor| self.forward_t(obs, false);
            let actions = self.meta.num_actions;
            if graphs.predict(forward, input, actions, obs, batch, logits, values) {
                return;
            }
        }
        let input = Tensor::from_slice(obs)
            .to_device(self.device())
            .to_kind(self.kind);
        let Outputs { policy, value, .. } = self.forward_t(&input.view([batch as i64, -1]), false);
        let policy = policy.to_device(Device::Cpu).to_kind(Kind::Float);
        let value = value.to_device(Device::Cpu).to_kind(Kind::Float);
        policy.copy_data(logits, batch * self.meta.num_actions);
        value.copy_data(values, batch);
    }

    /// The largest difference between a weight of this model and the same weight of
    /// `other` (of the same shape), over the largest weight: how far two runs of the same
    /// steps drifted apart. Infinite where the two have other variables.
    pub fn weight_drift(&self, other: &Model) -> f64 {
        let _guard = tch::no_grad_guard();
        let theirs = other.vs.variables();
        let (mut largest, mut difference) = (0.0f64, 0.0f64);
        for (name, mine) in self.vs.variables() {
            let Some(their) = theirs.get(&name).filter(|t| t.size() == mine.size()) else {
                return f64::INFINITY;
            };
            let mine = mine.to_kind(Kind::Double);
            let their = their.to_kind(Kind::Double);
            largest = largest.max(mine.abs().max().double_value(&[]));
            difference = difference.max((&mine - &their).abs().max().double_value(&[]));
        }
        difference / largest.max(f64::MIN_POSITIVE)
    }

    /// A second model with the same weights (for another thread).
    pub fn try_clone(&self) -> Result<Model, NnError> {
        let mut copy = Model::new(
            &self.meta.game,
            &self.meta.model,
            self.meta.obs_shape,
            self.meta.num_actions,
            self.device(),
        )?;
        copy.vs.copy(&self.vs)?;
        copy.meta = self.meta.clone();
        if self.kind != Kind::Float {
            copy.vs.set_kind(self.kind);
            copy.kind = self.kind;
        }
        copy.graphs = self.graphs.as_ref().map(|_| Mutex::default());
        Ok(copy)
    }

    /// The model with its forward passes recorded as CUDA graphs (`on`, on a CUDA device),
    /// one per power-of-two batch size as batches first need them, or run as they are
    /// (`!on`). Fails where graphs are asked for and this process cannot record them (no
    /// shim: [`cuda_graphs_available`](crate::cuda_graphs_available) says why); a recording
    /// that fails later prints one warning and the network runs without.
    pub fn with_cuda_graphs(mut self, on: bool) -> Result<Model, NnError> {
        self.graphs = None;
        if on && self.device().is_cuda() {
            crate::graphs::require_cuda_graphs("cuda_graphs")?;
            self.graphs = Some(Mutex::default());
        }
        Ok(self)
    }

    /// Whether forward passes run as recorded CUDA graphs ([`Model::with_cuda_graphs`]).
    pub fn uses_cuda_graphs(&self) -> bool {
        self.graphs.is_some()
    }

    /// The model for inference in `precision`: weights, batch-norm statistics and inputs in
    /// that kind, outputs read back as f32; unchanged where it is in that precision already.
    /// Training keeps a model of its own in f32.
    pub fn for_inference(mut self, precision: Precision) -> Model {
        let kind = precision.kind();
        if kind != self.kind {
            self.vs.set_kind(kind);
            self.kind = kind;
            // The recorded passes read the weights they were recorded with.
            if self.graphs.is_some() {
                self.graphs = Some(Mutex::default());
            }
        }
        self
    }

    /// The precision `predict` runs in.
    pub fn precision(&self) -> Precision {
        Precision::of_kind(self.kind)
    }

    /// The checkpoint as bytes: the weights in safetensors format (dotted names, f32 on
    /// the CPU, loadable from PyTorch) and the metadata as JSON. A run store writes these
    /// two objects wherever it keeps them.
    pub fn to_bytes(&self) -> Result<CheckpointBytes, NnError> {
        let mut variables: Vec<(String, Tensor)> = self.vs.variables().into_iter().collect();
        variables.sort_by(|a, b| a.0.cmp(&b.0));
        let weights = safetensors_bytes(&variables, None)?;
        let meta = serde_json::to_vec_pretty(&self.meta).expect("metadata serialises");
        Ok(CheckpointBytes { weights, meta })
    }

    /// Builds the model a checkpoint's bytes hold for `game`; `origin` (a file or a URL)
    /// names them in errors. Fails with a clear error if they are corrupt, for another
    /// game, or for another observation or action shape.
    pub fn from_bytes<G: Game>(
        bytes: &CheckpointBytes,
        game: &G,
        device: Device,
        origin: &Path,
    ) -> Result<Model, NnError> {
        let meta = parse_meta(&bytes.meta, origin)?;
        check_fits(&meta, game, origin)?;
        Model::from_meta_and_bytes(meta, bytes, device, origin)
    }

    /// The model a checkpoint's bytes hold, as its metadata describes it, whatever game it
    /// is for: to write it out in another format, where no game needs to be at hand.
    pub fn from_bytes_as_written(
        bytes: &CheckpointBytes,
        device: Device,
        origin: &Path,
    ) -> Result<Model, NnError> {
        let meta = parse_meta(&bytes.meta, origin)?;
        Model::from_meta_and_bytes(meta, bytes, device, origin)
    }

    /// The model `meta` describes, its weights from `bytes`, once the sidecar is read.
    fn from_meta_and_bytes(
        meta: CheckpointMeta,
        bytes: &CheckpointBytes,
        device: Device,
        origin: &Path,
    ) -> Result<Model, NnError> {
        let corrupt = |reason: String| NnError::CorruptCheckpoint {
            path: origin.to_path_buf(),
            reason,
        };
        if let Some(problem) = meta.model.validate().into_iter().next() {
            return Err(corrupt(problem));
        }
        // A network the file cannot hold is refused before it is allocated: a corrupt or
        // hostile sidecar must not make the process ask for terabytes.
        let least = meta.model.min_weights(meta.obs_shape, meta.num_actions);
        if least.saturating_mul(4) > bytes.weights.len() as u128 {
            return Err(corrupt(format!(
                "its metadata declares at least {least} weights, more than the {} bytes of weights hold",
                bytes.weights.len()
            )));
        }
        let mut model = Model::new(
            &meta.game,
            &meta.model,
            meta.obs_shape,
            meta.num_actions,
            device,
        )?;
        let tensors = SafeTensors::deserialize(&bytes.weights).map_err(|e| {
            corrupt(format!(
                "its weights are not a readable safetensors file ({e})"
            ))
        })?;
        for (name, mut variable) in model.vs.variables() {
            let view = tensors
                .tensor(&name)
                .map_err(|_| corrupt(format!("no weight named {name}")))?;
            let source = tensor_from_view(&view, &variable.size(), device).ok_or_else(|| {
                corrupt(format!(
                    "weight {name} is {:?} {:?}, expected F32 {:?}",
                    view.dtype(),
                    view.shape(),
                    variable.size()
                ))
            })?;
            // A diverged network (NaN) would play at random and train on as NaN.
            if source.isfinite().all().int64_value(&[]) == 0 {
                return Err(corrupt(format!(
                    "weight {name} holds NaN or infinite values"
                )));
            }
            tch::no_grad(|| variable.f_copy_(&source))?;
        }
        model.meta = meta;
        Ok(model)
    }

    /// Writes the network as an ONNX file at `path` ([`crate::onnx_bytes`]).
    pub fn write_onnx(&self, path: &Path) -> Result<(), NnError> {
        let bytes = crate::onnx_bytes(self)?;
        std::fs::write(path, bytes)
            .map_err(|e| NnError::Export(format!("cannot write {}: {e}", path.display())))
    }

    /// Writes `<base>.safetensors` and `<base>.json`, each to a temporary name first and
    /// then renamed, so a crash never leaves a half-written checkpoint under the real name.
    pub fn save(&self, base: &Path) -> Result<(), NnError> {
        let bytes = self.to_bytes()?;
        for (extension, data) in [("safetensors", &bytes.weights), ("json", &bytes.meta)] {
            let path = with_extension(base, extension);
            let tmp = with_extension(base, &format!("tmp.{extension}"));
            let io = |source| NnError::Io {
                path: tmp.clone(),
                source,
            };
            fs::write(&tmp, data).map_err(io)?;
            fs::rename(&tmp, &path).map_err(io)?;
        }
        Ok(())
    }

    /// Reads the metadata of the checkpoint at `path` (with or without extension, or a
    /// directory holding `latest`).
    pub fn read_meta(path: &Path) -> Result<(PathBuf, CheckpointMeta), NnError> {
        let base = checkpoint_base(path)?;
        let sidecar = with_extension(&base, "json");
        let text = fs::read_to_string(&sidecar).map_err(|source| NnError::Io {
            path: sidecar.clone(),
            source,
        })?;
        let meta = parse_meta(text.as_bytes(), &sidecar)?;
        Ok((base, meta))
    }

    /// Loads a checkpoint for `game`; fails with a clear error if it is missing, corrupt,
    /// for another game, or built for another observation or action shape.
    pub fn load<G: Game>(path: &Path, game: &G, device: Device) -> Result<Model, NnError> {
        let base = checkpoint_base(path)?;
        let read = |extension: &str| {
            let path = with_extension(&base, extension);
            fs::read(&path).map_err(|source| NnError::Io { path, source })
        };
        let bytes = CheckpointBytes {
            meta: read("json")?,
            weights: read("safetensors")?,
        };
        Model::from_bytes(&bytes, game, device, &base)
    }
}

/// `tensors` in safetensors format: f32, on the CPU, under their names, with `metadata`.
pub(crate) fn safetensors_bytes(
    tensors: &[(String, Tensor)],
    metadata: Option<std::collections::HashMap<String, String>>,
) -> Result<Vec<u8>, NnError> {
    let data: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(name, tensor)| {
            let flat = tensor
                .to_device(Device::Cpu)
                .to_kind(Kind::Float)
                .view([-1]);
            let values = Vec::<f32>::try_from(&flat)?;
            let shape = tensor.size().iter().map(|&d| d as usize).collect();
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            Ok((name.clone(), shape, bytes))
        })
        .collect::<Result<_, tch::TchError>>()?;
    let views = data
        .iter()
        .map(|(name, shape, bytes)| {
            TensorView::new(Dtype::F32, shape.clone(), bytes).map(|view| (name.as_str(), view))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| NnError::Serialize(e.to_string()))?;
    safetensors::tensor::serialize(views, &metadata).map_err(|e| NnError::Serialize(e.to_string()))
}

/// An f32 tensor of safetensors `view`, shaped `expected` and on `device`; `None` if its
/// type or shape differ.
pub(crate) fn tensor_from_view(
    view: &safetensors::tensor::TensorView<'_>,
    expected: &[i64],
    device: Device,
) -> Option<Tensor> {
    let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
    if view.dtype() != Dtype::F32 || shape != expected {
        return None;
    }
    let values: Vec<f32> = view
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(
        Tensor::from_slice(&values)
            .view(shape.as_slice())
            .to_device(device),
    )
}

/// A checkpoint in memory: the two objects a run store keeps for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointBytes {
    /// The weights, in safetensors format.
    pub weights: Vec<u8>,
    /// The [`CheckpointMeta`] as JSON.
    pub meta: Vec<u8>,
}

/// Fails unless a checkpoint described by `meta` plays `game`'s positions.
fn check_fits<G: Game>(meta: &CheckpointMeta, game: &G, origin: &Path) -> Result<(), NnError> {
    let name = game.name();
    if meta.game != name {
        return Err(NnError::GameMismatch {
            path: origin.to_path_buf(),
            expected: name,
            found: meta.game.clone(),
        });
    }
    let shape = |obs: [usize; 3], actions: usize| {
        format!(
            "{}x{}x{} observations and {actions} actions",
            obs[0], obs[1], obs[2]
        )
    };
    if (meta.obs_shape, meta.num_actions) != (game.obs_shape(), game.num_actions()) {
        return Err(NnError::ShapeMismatch {
            path: origin.to_path_buf(),
            game: name,
            expected: shape(game.obs_shape(), game.num_actions()),
            found: shape(meta.obs_shape, meta.num_actions),
        });
    }
    Ok(())
}

/// A checkpoint's sidecar JSON, parsed; `origin` names it in the error.
fn parse_meta(json: &[u8], origin: &Path) -> Result<CheckpointMeta, NnError> {
    serde_json::from_slice(json).map_err(|e| NnError::CorruptCheckpoint {
        path: origin.to_path_buf(),
        reason: e.to_string(),
    })
}

/// `base` with `.ext` appended (not replacing: `gen-0003` becomes `gen-0003.json`).
pub fn with_extension(base: &Path, ext: &str) -> PathBuf {
    let mut name = base.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

/// Resolves what a user names as a checkpoint: `X` (with `X.safetensors` and `X.json`
/// beside it), `X.safetensors`, `X.json`, or a directory holding `latest`.
pub fn checkpoint_base(path: &Path) -> Result<PathBuf, NnError> {
    let text = path.to_string_lossy();
    let base = if let Some(stripped) = text
        .strip_suffix(".safetensors")
        .or_else(|| text.strip_suffix(".json"))
    {
        PathBuf::from(stripped)
    } else if path.is_dir() {
        let inner = path.join("latest");
        if with_extension(&inner, "json").exists() {
            inner
        } else {
            path.join("checkpoints").join("latest")
        }
    } else {
        path.to_path_buf()
    };
    if with_extension(&base, "json").is_file() && with_extension(&base, "safetensors").is_file() {
        Ok(base)
    } else {
        Err(NnError::MissingCheckpoint {
            path: path.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_cpu_auto_cuda_or_cuda_n_and_nothing_else() {
        assert_eq!(parse_device("cpu").unwrap(), Device::Cpu);
        assert!(parse_device("auto").is_ok());
        for bad in ["", "gpu", "CPU", "cuda:", "cuda:x", "cuda:-1"] {
            assert!(
                matches!(parse_device(bad), Err(NnError::UnknownDevice(ref d)) if d == bad),
                "{bad:?} is refused as a device"
            );
        }
        let unknown = parse_device("gpu").unwrap_err().to_string();
        assert_eq!(
            unknown,
            "unknown device 'gpu' (use auto, cpu, cuda or cuda:N)"
        );
        // An index past i64 once wrapped to -1, below any device count.
        assert!(parse_device(&format!("cuda:{}", usize::MAX)).is_err());
        let beyond = format!("cuda:{}", tch::Cuda::device_count());
        assert!(parse_device(&beyond).is_err(), "{beyond} is not there");
    }

    #[test]
    fn a_missing_gpu_is_named_as_such() {
        let message = |found| {
            NnError::NoGpu {
                device: "cuda:2".into(),
                found,
            }
            .to_string()
        };
        assert_eq!(message(0), "device 'cuda:2': no GPU was found");
        assert_eq!(message(1), "device 'cuda:2': only 1 GPU was found (cuda:0)");
        assert_eq!(
            message(2),
            "device 'cuda:2': only 2 GPUs were found (cuda:0 to cuda:1)"
        );
        if !tch::Cuda::is_available() {
            let error = parse_device("cuda").unwrap_err();
            assert!(
                matches!(error, NnError::NoGpu { .. } | NnError::CudaNotLoaded { .. }),
                "{error}"
            );
        }
    }
}
