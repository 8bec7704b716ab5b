//! One training step: policy cross-entropy against the search's targets, value MSE, L2.

use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use crate::autocast::Autocast;
use crate::config::{LearnerConfig, PolicyLoss, FP16_TRAINING};
use crate::error::NnError;
use crate::families::Outputs;
use crate::graphs::CudaGraph;
use crate::model::{Model, Precision};
use crate::optimizer::{DeviceScalars, Optimizer};

/// A minibatch in flat arrays; `B` positions.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Observations `[B, obs_len]`.
    pub obs: Vec<f32>,
    /// Policy targets `[B, num_actions]`, each row summing to 1 over legal actions.
    pub policy: Vec<f32>,
    /// Value targets `[B]`, from each position's mover's view.
    pub value: Vec<f32>,
    /// Legal-action masks `[B, num_actions]`, 1 legal and 0 not.
    pub mask: Vec<f32>,
    /// Opponent-reply targets `[B, num_actions]` for the auxiliary head (zero rows where
    /// there is none).
    pub reply: Vec<f32>,
    /// `[B]`: 1 where the sample has a reply target.
    pub has_reply: Vec<f32>,
    /// How many positions.
    pub size: usize,
}

/// The loss terms of one step, each named (averages over the batch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Losses {
    /// Cross-entropy of the network's policy against the target.
    pub policy: f64,
    /// Mean squared error of the value.
    pub value: f64,
    /// The L2 penalty, coefficient included.
    pub l2: f64,
    /// The sum that was minimised.
    pub total: f64,
    /// Entropy of the network's (masked) policy: how sure it is.
    pub policy_entropy: f64,
    /// Entropy of the targets: the floor of the cross-entropy.
    pub target_entropy: f64,
    /// Cross-entropy of the auxiliary opponent-reply head (0 without it).
    pub reply: f64,
    /// Mean square of the value targets: the value loss of a network that says 0
    /// everywhere, against which the value loss reads.
    pub value_target: f64,
}

/// A model and its optimizer.
pub struct TrainState {
    model: Model,
    optimizer: Optimizer,
    config: LearnerConfig,
    step: u64,
    /// What the forward and backward passes compute in (the weights stay f32).
    precision: Precision,
    /// Steps recorded as one CUDA graph, where [`TrainState::with_cuda_graphs`] asked.
    graphs: Option<StepGraph>,
    /// Whether a convolutional tower's forward pass takes its observations channels-last;
    /// `None` for [`default_channels_last`].
    channels_last: Option<bool>,
}

/// A learner's step recorded as a CUDA graph: the batch it reads, the per-step numbers, the
/// losses it writes. Recorded on the first batch; a batch of another shape steps unrecorded.
enum StepGraph {
    /// Asked for, not recorded yet.
    Wanted,
    Recorded {
        batch: DeviceBatch,
        scalars: DeviceScalars,
        terms: Tensor,
        graph: CudaGraph,
    },
    /// Recording failed (a warning said why): every step runs unrecorded.
    Failed,
}

impl TrainState {
    /// Builds the optimizer for `model`, which has already taken `step` steps.
    pub fn new(model: Model, config: &LearnerConfig, step: u64) -> Result<TrainState, NnError> {
        let optimizer = Optimizer::new(config.optimizer, config.momentum, model.var_store());
        Ok(TrainState {
            model,
            optimizer,
            config: config.clone(),
            step,
            precision: Precision::Fp32,
            graphs: None,
            channels_last: None,
        })
    }

    /// Lays a convolutional tower's observations out channels-last (`on`) or as they are,
    /// from the next step on, instead of where it measured faster
    /// ([`default_channels_last`]).
    pub fn with_channels_last(mut self, on: bool) -> TrainState {
        self.channels_last = Some(on);
        self
    }

    /// Records the step as a CUDA graph on its first batch and replays it from then on
    /// (`on`, on a CUDA device): a step's several hundred kernel launches become one, which
    /// is most of a small network's step on a GPU. The same arithmetic as an unrecorded
    /// step. Fails where graphs are asked for and this process cannot record them; a
    /// recording that fails later prints one warning and the steps run unrecorded.
    pub fn with_cuda_graphs(mut self, on: bool) -> Result<TrainState, NnError> {
        self.graphs = None;
        if on && self.model.device().is_cuda() {
            crate::graphs::require_cuda_graphs("learner.cuda_graphs")?;
            self.graphs = Some(StepGraph::Wanted);
        }
        Ok(self)
    }

    /// Trains in `precision` from the next step on: bf16 runs the products of the forward
    /// and backward passes in bf16 under autocast, the weights, their gradients and the
    /// optimizer staying f32. fp16 is refused ([`LearnerConfig::validate`] says why).
    pub fn with_precision(mut self, precision: Precision) -> Result<TrainState, NnError> {
        check_training_precision(self.model.device(), precision)?;
        self.precision = precision;
        Ok(self)
    }

    /// What the forward and backward passes compute in.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Takes up `config`'s learning rate and its schedule by steps, from the next step on:
    /// a run's schedule over its budget changes them as the run goes.
    pub fn set_learning_rate(&mut self, config: &LearnerConfig) {
        self.config.learning_rate = config.learning_rate;
        self.config.lr_schedule = config.lr_schedule.clone();
    }

    /// The learning rate of the next step.
    pub fn learning_rate(&self) -> f64 {
        self.config.learning_rate_at(self.step)
    }

    /// The model being trained.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Mutable access to the model (to record progress before saving).
    pub fn model_mut(&mut self) -> &mut Model {
        &mut self.model
    }

    /// The optimizer's state (momentum, moment estimates) as bytes, to keep beside a
    /// checkpoint.
    pub fn optimizer_state(&self) -> Result<Vec<u8>, NnError> {
        self.optimizer.state_bytes()
    }

    /// Takes up optimizer state saved by [`TrainState::optimizer_state`] for this network.
    pub fn restore_optimizer(&mut self, bytes: &[u8]) -> Result<(), NnError> {
        self.optimizer.restore(bytes)
    }

    /// Optimizer steps taken so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// One gradient step on `batch`, its losses read back at once.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let on_device = DeviceBatch::upload(batch, self.model.device());
        self.step_on(&on_device).read()
    }

    /// One gradient step on a batch already on the device, its losses left there: nothing
    /// waits for the device, so the next step's work queues up behind this one's.
    pub fn step_on(&mut self, batch: &DeviceBatch) -> PendingLosses {
        if self.graphs.is_some() {
            if let Some(pending) = self.replayed_step(batch) {
                return pending;
            }
        }
        let lr = self.config.learning_rate_at(self.step);
        self.step += 1;
        let terms = self.step_terms(batch, |optimizer, total, clip| {
            optimizer.step(total, lr, clip)
        });
        PendingLosses(terms)
    }

    /// The step through its recorded graph, recording it first where it is wanted; `None`
    /// where this batch cannot be replayed (another shape, or recording failed).
    fn replayed_step(&mut self, batch: &DeviceBatch) -> Option<PendingLosses> {
        if matches!(self.graphs, Some(StepGraph::Wanted)) {
            self.graphs = Some(match self.record_step(batch) {
                Ok(recorded) => recorded,
                Err(error) => {
                    eprintln!("warning: {error}; the learner steps without CUDA graphs");
                    StepGraph::Failed
                }
            });
        }
        let lr = self.config.learning_rate_at(self.step);
        let Some(StepGraph::Recorded {
            batch: input,
            scalars,
            terms,
            graph,
        }) = &mut self.graphs
        else {
            return None;
        };
        if !input.same_shape(batch) {
            return None;
        }
        input.copy_from(batch);
        scalars.fill(lr, self.optimizer.steps() + 1);
        if let Err(error) = graph.replay() {
            // Nothing of this step ran: it is taken again, unrecorded.
            eprintln!("warning: {error}; the learner steps without CUDA graphs");
            self.graphs = Some(StepGraph::Failed);
            return None;
        }
        self.optimizer.count_step();
        self.step += 1;
        Some(PendingLosses(terms.copy()))
    }

    /// Records one step on a copy of `batch`: a forward and backward pass first, unrecorded
    /// and with no update, so that libtorch's handles, workspaces and the gradients exist
    /// before the recording. Nothing changes while recording: the batch-norm statistics
    /// those passes moved are put back.
    fn record_step(&mut self, batch: &DeviceBatch) -> Result<StepGraph, NnError> {
        let device = self.model.device();
        let input = batch.copy();
        let statistics: Vec<(Tensor, Tensor)> = self
            .model
            .var_store()
            .variables()
            .into_values()
            .filter(|t| !t.requires_grad())
            .map(|t| {
                let kept = t.copy();
                (t, kept)
            })
            .collect();
        let mut scalars = DeviceScalars::new(device);
        scalars.fill(self.config.learning_rate_at(self.step), 1);
        let mut variables = self.model.var_store().trainable_variables();
        let warm = |state: &mut TrainState| {
            let _ = state.step_terms(&input, |_, total, _| total.backward());
            for variable in &mut variables {
                variable.zero_grad();
            }
        };
        let clip = self.config.grad_clip;
        let recorded = CudaGraph::record(device, self, warm, |state| {
            state.step_terms(&input, |optimizer, total, _| {
                optimizer.step_on_device(total, &scalars, clip)
            })
        });
        tch::no_grad(|| {
            for (mut statistic, kept) in statistics {
                statistic.copy_(&kept);
            }
        });
        let (graph, terms) = recorded?;
        Ok(StepGraph::Recorded {
            batch: input,
            scalars,
            terms,
            graph,
        })
    }

    /// The losses of one step on `batch`, `minimise` given the total to take the step with
    /// (an optimizer's step, or only the backward pass): the terms stacked on the device.
    fn step_terms(
        &mut self,
        batch: &DeviceBatch,
        minimise: impl FnOnce(&mut Optimizer, &Tensor, f64),
    ) -> Tensor {
        let device = self.model.device();
        let channels_last = self
            .channels_last
            .unwrap_or_else(|| default_channels_last(&self.model, self.precision));
        let outputs = training_forward(&self.model, &batch.obs, self.precision, channels_last);
        let logits = outputs.policy.to_kind(Kind::Float);
        let value = outputs.value.to_kind(Kind::Float);
        // Illegal actions get a logit of -1e9 so neither the loss nor the entropy sees them.
        let masked = logits + (&batch.mask - 1.0) * 1e9;
        let log_probs = masked.log_softmax(-1, Kind::Float);
        let target_policy = &batch.policy;
        let target_entropy = -(target_policy * (target_policy + 1e-12).log())
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float);
        let cross_entropy = -(target_policy * &log_probs)
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float);
        let policy_loss = match self.config.policy_loss {
            PolicyLoss::CrossEntropy => cross_entropy,
            // The target's entropy is a constant: KL reads 0 at a perfect fit, same gradients.
            PolicyLoss::Kl => cross_entropy - target_entropy.detach(),
        };
        let reply_loss = match (&outputs.reply, &batch.reply) {
            (Some(reply_logits), Some((target, has))) => {
                let log_reply = reply_logits.log_softmax(-1, Kind::Float);
                let per_sample =
                    -(target * log_reply).sum_dim_intlist(-1, false, Kind::Float) * has;
                per_sample.sum(Kind::Float) / has.sum(Kind::Float).clamp_min(1.0)
            }
            // Made on the device: a copy from the host could not be recorded in a graph.
            _ => Tensor::zeros([], (Kind::Float, device)),
        };
        let value_loss = (&value - &batch.value).square().mean(Kind::Float);
        let l2 = l2_norm(&self.model) * self.config.l2;
        let total = &policy_loss
            + &value_loss * self.config.value_weight
            + &l2
            + &reply_loss * self.config.reply_weight;
        minimise(&mut self.optimizer, &total, self.config.grad_clip);

        let _guard = tch::no_grad_guard();
        let probs = log_probs.exp();
        let entropy = -(&probs * &log_probs * &batch.mask)
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float);
        let value_target = batch.value.square().mean(Kind::Float);
        let terms = [
            policy_loss,
            value_loss,
            l2,
            total,
            entropy,
            target_entropy,
            reply_loss,
            value_target,
        ]
        .map(|t| t.detach().to_kind(Kind::Double));
        Tensor::stack(&terms, 0)
    }
}

/// Refuses fp16, and a precision this libtorch cannot switch to, before any step.
fn check_training_precision(device: Device, precision: Precision) -> Result<(), NnError> {
    if precision == Precision::Fp16 {
        return Err(NnError::BadConfig(FP16_TRAINING.to_string()));
    }
    drop(Autocast::begin(device, precision)?);
    Ok(())
}

/// The training forward pass in `precision`, which [`check_training_precision`] accepted.
/// Autocast ends with it, so the casts it cached are gone before the optimizer changes the
/// weights; the losses are taken in f32, and the backward pass follows the kinds the forward
/// chose.
fn training_forward(
    model: &Model,
    obs: &Tensor,
    precision: Precision,
    channels_last: bool,
) -> Outputs {
    let _autocast = Autocast::begin(model.device(), precision)
        .expect("check_training_precision found that libtorch switches to this precision");
    model.forward_in_layout(obs, true, channels_last)
}

/// The narrowest tower whose learner steps ran faster channels-last on CUDA in fp32.
const CUDA_CHANNELS_LAST_FP32_MIN_CHANNELS: usize = 64;

/// Whether `model`'s learner takes its observations channels-last by default, computing in
/// `precision`: on the CPU always (oneDNN, measured faster), on CUDA in bf16 and for towers
/// of 64 channels or more. On an H200 (docs/results.md, "On a GPU"), recorded steps ran
/// 1.22 and 1.53 times as fast channels-last in bf16 (32 and 128 channels), 1.21 times in
/// fp32 at 128 channels, and 0.91 to 0.98 times in fp32 at 32.
fn default_channels_last(model: &Model, precision: Precision) -> bool {
    !model.device().is_cuda()
        || precision == Precision::Bf16
        || model.meta().model.channels >= CUDA_CHANNELS_LAST_FP32_MIN_CHANNELS
}

/// The sum of the squares of the trainable weights. On CUDA in one pass over them all, a
/// few kernels instead of three per variable; on the CPU variable by variable, in the order
/// its sums have always been taken.
fn l2_norm(model: &Model) -> Tensor {
    let variables = model.var_store().trainable_variables();
    if model.device().is_cuda() {
        let flat: Vec<Tensor> = variables.iter().map(|w| w.view([-1])).collect();
        return Tensor::cat(&flat, 0).square().sum(Kind::Float);
    }
    variables
        .iter()
        .map(|w| w.square().sum(Kind::Float))
        .fold(Tensor::from(0.0f32), |acc, x| acc + x)
}

/// A minibatch on the device a learner trains on, uploaded ahead of its step (on another
/// thread on CUDA) so that the copy overlaps the steps before.
pub struct DeviceBatch {
    obs: Tensor,
    policy: Tensor,
    value: Tensor,
    mask: Tensor,
    /// Reply targets and the rows that have one, where the batch carries them.
    reply: Option<(Tensor, Tensor)>,
}

impl DeviceBatch {
    /// A copy of this batch in new tensors on the same device.
    fn copy(&self) -> DeviceBatch {
        DeviceBatch {
            obs: self.obs.copy(),
            policy: self.policy.copy(),
            value: self.value.copy(),
            mask: self.mask.copy(),
            reply: self.reply.as_ref().map(|(r, h)| (r.copy(), h.copy())),
        }
    }

    /// The batch's tensors, the reply targets last where there are any.
    fn tensors(&self) -> Vec<&Tensor> {
        let mut all = vec![&self.obs, &self.policy, &self.value, &self.mask];
        if let Some((reply, has_reply)) = &self.reply {
            all.extend([reply, has_reply]);
        }
        all
    }

    /// Whether `other` has this batch's tensors in the same shapes.
    fn same_shape(&self, other: &DeviceBatch) -> bool {
        let (mine, theirs) = (self.tensors(), other.tensors());
        mine.len() == theirs.len() && mine.iter().zip(&theirs).all(|(a, b)| a.size() == b.size())
    }

    /// Copies `other`, of the same shape, into this batch's tensors.
    fn copy_from(&mut self, other: &DeviceBatch) {
        let _guard = tch::no_grad_guard();
        for (mine, theirs) in self.tensors().into_iter().zip(other.tensors()) {
            mine.shallow_clone().copy_(theirs);
        }
    }

    /// Copies `batch` to `device`.
    pub fn upload(batch: &Batch, device: Device) -> DeviceBatch {
        let b = batch.size as i64;
        let put = |values: &[f32], rows: bool| {
            let host = Tensor::from_slice(values);
            let host = if rows { host.view([b, -1]) } else { host };
            // A plain copy: it runs on the loader thread, beside the steps, so pinned
            // memory would save that thread's time only.
            host.to_device(device)
        };
        DeviceBatch {
            obs: put(&batch.obs, true),
            policy: put(&batch.policy, true),
            value: put(&batch.value, false),
            mask: put(&batch.mask, true),
            reply: (!batch.reply.is_empty())
                .then(|| (put(&batch.reply, true), put(&batch.has_reply, false))),
        }
    }
}

/// A step's losses, still on the device: [`PendingLosses::read`] waits for them.
pub struct PendingLosses(Tensor);

impl PendingLosses {
    /// The losses, once the device has them.
    pub fn read(self) -> Losses {
        let mut one = PendingLosses::read_all(vec![self]);
        one.pop().unwrap_or_else(|| Losses::from_terms(&[]))
    }

    /// Many steps' losses in one copy from the device.
    pub fn read_all(pending: Vec<PendingLosses>) -> Vec<Losses> {
        if pending.is_empty() {
            return Vec::new();
        }
        let rows: Vec<Tensor> = pending.into_iter().map(|p| p.0).collect();
        let all = Tensor::stack(&rows, 0).to_device(Device::Cpu);
        let flat = Vec::<f64>::try_from(all.view([-1])).unwrap_or_default();
        flat.chunks_exact(LOSS_TERMS)
            .map(Losses::from_terms)
            .collect()
    }
}

/// The number of terms a step reports, in [`Losses::from_terms`]'s order.
const LOSS_TERMS: usize = 8;

impl Losses {
    fn from_terms(terms: &[f64]) -> Losses {
        let term = |i: usize| terms.get(i).copied().unwrap_or(f64::NAN);
        Losses {
            policy: term(0),
            value: term(1),
            l2: term(2),
            total: term(3),
            policy_entropy: term(4),
            target_entropy: term(5),
            reply: term(6),
            value_target: term(7),
        }
    }
}

/// Forward and backward passes a second of `model` on `batch` held on the model's device,
/// computing in `precision` (as [`TrainState::with_precision`]), with a plain loss and no
/// optimizer: the ceiling that the learner's steps are measured against (`zerosum bench`).
/// The model's gradients are left zeroed.
pub fn forward_backward_rate(
    model: &Model,
    batch: &Batch,
    precision: Precision,
    budget: std::time::Duration,
) -> Result<f64, NnError> {
    let device = model.device();
    let DeviceBatch {
        obs, value: target, ..
    } = DeviceBatch::upload(batch, device);
    let mut variables = model.var_store().trainable_variables();
    check_training_precision(device, precision)?;
    let mut pass = || {
        let channels_last = default_channels_last(model, precision);
        let outputs = training_forward(model, &obs, precision, channels_last);
        let loss = outputs
            .policy
            .log_softmax(-1, Kind::Float)
            .mean(Kind::Float)
            + (outputs.value.to_kind(Kind::Float) - &target)
                .square()
                .mean(Kind::Float);
        loss.backward();
        for variable in &mut variables {
            variable.zero_grad();
        }
    };
    pass();
    if device.is_cuda() {
        tch::Cuda::synchronize(device_index(device));
    }
    let start = std::time::Instant::now();
    let mut passes = 0u64;
    while start.elapsed() < budget || passes < 3 {
        pass();
        passes += 1;
        if device.is_cuda() && passes.is_multiple_of(8) {
            tch::Cuda::synchronize(device_index(device));
        }
    }
    if device.is_cuda() {
        tch::Cuda::synchronize(device_index(device));
    }
    Ok(passes as f64 / start.elapsed().as_secs_f64())
}

fn device_index(device: Device) -> i64 {
    match device {
        Device::Cuda(index) => index as i64,
        _ => 0,
    }
}
