//! SGD with Nesterov momentum and Adam, written out here (as PyTorch defines them) so that
//! their state travels with a checkpoint: a resumed learner goes on with the momentum and
//! moment estimates it had, where libtorch's optimizers behind tch keep theirs out of reach.

use std::collections::HashMap;

use safetensors::SafeTensors;
use tch::{nn::VarStore, Kind, Tensor};

use crate::config::OptimizerKind;
use crate::error::NnError;
use crate::model::{safetensors_bytes, tensor_from_view};

/// Adam's constants (PyTorch's defaults, as tch's `nn::Adam::default()`).
const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

/// An optimizer over a var store's trainable variables.
pub struct Optimizer {
    kind: OptimizerKind,
    momentum: f64,
    /// The trainable variables by name, sorted; each shares storage with the var store.
    params: Vec<(String, Tensor)>,
    /// Each variable's place in the flat buffers: offset and element count.
    spans: Vec<(i64, i64)>,
    /// SGD's momentum buffers, or Adam's first moments: one flat buffer, and a view of it
    /// shaped as each variable.
    first_flat: Tensor,
    first: Vec<Tensor>,
    /// Adam's second moments (unused by SGD), likewise.
    second_flat: Tensor,
    second: Vec<Tensor>,
    /// Steps taken (Adam's bias correction).
    steps: i64,
}

impl Optimizer {
    /// An optimizer of `kind` for `vs`'s trainable variables, with zeroed state.
    pub fn new(kind: OptimizerKind, momentum: f64, vs: &VarStore) -> Optimizer {
        let mut params: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let mut spans = Vec::with_capacity(params.len());
        let mut total = 0;
        for (_, param) in &params {
            let count = param.numel() as i64;
            spans.push((total, count));
            total += count;
        }
        let zeros = || Tensor::zeros([total], (Kind::Float, vs.device()));
        let (first_flat, second_flat) = (zeros(), zeros());
        let views = |flat: &Tensor| shaped_views(flat, &params, &spans);
        Optimizer {
            kind,
            momentum,
            first: views(&first_flat),
            second: views(&second_flat),
            first_flat,
            second_flat,
            params,
            spans,
            steps: 0,
        }
    }

    /// Minimises `loss` by one step of size `lr`, the gradients' global norm first clipped
    /// to `clip` when it is positive.
    pub fn step(&mut self, loss: &Tensor, lr: f64, clip: f64) {
        self.steps += 1;
        let rate = Rate::Host {
            lr,
            steps: self.steps,
        };
        self.step_at(loss, rate, clip);
    }

    /// One step as [`Optimizer::step`], its size and Adam's bias corrections read from
    /// `scalars` on the device when it runs, so that a recorded step replays with each
    /// step's own (filled in by [`DeviceScalars::fill`] before each replay).
    pub(crate) fn step_on_device(&mut self, loss: &Tensor, scalars: &DeviceScalars, clip: f64) {
        self.step_at(loss, Rate::Device(scalars), clip);
    }

    /// Steps taken so far.
    pub(crate) fn steps(&self) -> i64 {
        self.steps
    }

    /// Counts a step taken by replaying a recorded [`Optimizer::step_on_device`].
    pub(crate) fn count_step(&mut self) {
        self.steps += 1;
    }

    fn step_at(&mut self, loss: &Tensor, rate: Rate, clip: f64) {
        for (_, param) in &mut self.params {
            param.zero_grad();
        }
        loss.backward();
        let _guard = tch::no_grad_guard();
        let grads: Vec<Tensor> = self.params.iter().map(|(_, p)| p.grad()).collect();
        if clip > 0.0 {
            let norms: Vec<Tensor> = grads
                .iter()
                .filter(|g| g.defined())
                .map(|g| g.norm())
                .collect();
            if !norms.is_empty() {
                let total = Tensor::stack(&norms, 0).norm();
                if total.device().is_cuda() {
                    // Reading the norm back would make every step wait for the device:
                    // the coefficient stays there (a factor of exactly 1 changes nothing).
                    let coefficient = ((total + 1e-6).reciprocal() * clip).clamp_max(1.0);
                    for grad in grads.iter().filter(|g| g.defined()) {
                        let _ = grad.shallow_clone().g_mul_(&coefficient);
                    }
                } else {
                    let coefficient = clip / (total.double_value(&[]) + 1e-6);
                    if coefficient < 1.0 {
                        for grad in grads.iter().filter(|g| g.defined()) {
                            let _ = grad.shallow_clone().g_mul_scalar_(coefficient);
                        }
                    }
                }
            }
        }
        if grads.iter().all(Tensor::defined) {
            // One pass over all the variables at once: a step costs a few kernels instead
            // of a dozen per variable, and every element sees the same arithmetic.
            let flat: Vec<Tensor> = grads.iter().map(|g| g.view([-1])).collect();
            let grad = Tensor::cat(&flat, 0);
            let (first, second) = (&mut self.first_flat, &mut self.second_flat);
            let update = update(self.kind, self.momentum, rate, first, second, &grad);
            for ((_, param), &(offset, count)) in self.params.iter().zip(&self.spans) {
                let part = update.narrow(0, offset, count).view_as(param);
                let _ = param.shallow_clone().g_add_(&part);
            }
            return;
        }
        for (index, grad) in grads.iter().enumerate() {
            if !grad.defined() {
                continue;
            }
            let (first, second) = (&mut self.first[index], &mut self.second[index]);
            let update = update(self.kind, self.momentum, rate, first, second, grad);
            let _ = self.params[index].1.shallow_clone().g_add_(&update);
        }
    }

    /// The state as safetensors bytes: `first.NAME` and `second.NAME` per variable, the
    /// kind and step count in the metadata (`optimizer`: `Adam 120`).
    pub fn state_bytes(&self) -> Result<Vec<u8>, NnError> {
        let mut tensors = Vec::with_capacity(2 * self.params.len());
        for (index, (name, _)) in self.params.iter().enumerate() {
            tensors.push((format!("first.{name}"), self.first[index].shallow_clone()));
            tensors.push((format!("second.{name}"), self.second[index].shallow_clone()));
        }
        // One metadata key, so that the same state always gives the same bytes.
        let metadata = HashMap::from([(
            "optimizer".to_string(),
            format!("{:?} {}", self.kind, self.steps),
        )]);
        safetensors_bytes(&tensors, Some(metadata))
    }

    /// Takes up the state [`Optimizer::state_bytes`] wrote; fails, changing nothing, if it
    /// is for another optimizer or another network.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), NnError> {
        let corrupt = NnError::OptimizerState;
        let unreadable = |e: safetensors::SafeTensorError| {
            corrupt(format!("not a readable safetensors file ({e})"))
        };
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(unreadable)?;
        let metadata = header.metadata().clone().unwrap_or_default();
        let (kind, steps) = metadata
            .get("optimizer")
            .and_then(|v| v.split_once(' '))
            .ok_or_else(|| corrupt("no optimizer kind and step count".into()))?;
        let mine = format!("{:?}", self.kind);
        if kind != mine {
            return Err(corrupt(format!(
                "written by {kind}, this learner uses {mine}"
            )));
        }
        let steps: i64 = steps
            .parse()
            .map_err(|_| corrupt(format!("bad step count {steps}")))?;
        let tensors = SafeTensors::deserialize(bytes).map_err(unreadable)?;
        let mut first = Vec::with_capacity(self.params.len());
        let mut second = Vec::with_capacity(self.params.len());
        for (name, param) in &self.params {
            for (prefix, into) in [("first", &mut first), ("second", &mut second)] {
                let view = tensors
                    .tensor(&format!("{prefix}.{name}"))
                    .map_err(|_| corrupt(format!("no {prefix}.{name}")))?;
                let tensor = tensor_from_view(&view, &param.size(), param.device())
                    .ok_or_else(|| corrupt(format!("{prefix}.{name} has another shape")))?;
                into.push(tensor.to_kind(Kind::Float));
            }
        }
        tch::no_grad(|| {
            for (into, from) in self.first.iter_mut().zip(&first) {
                into.copy_(from);
            }
            for (into, from) in self.second.iter_mut().zip(&second) {
                into.copy_(from);
            }
        });
        self.steps = steps;
        Ok(())
    }
}

/// Views of `flat` shaped as each of `params`, at its span.
fn shaped_views(flat: &Tensor, params: &[(String, Tensor)], spans: &[(i64, i64)]) -> Vec<Tensor> {
    params
        .iter()
        .zip(spans)
        .map(|((_, param), &(offset, count))| flat.narrow(0, offset, count).view_as(param))
        .collect()
}

/// A step's size and Adam's bias corrections: numbers on the host, or tensors on the
/// device that a recorded step reads as it replays.
#[derive(Clone, Copy)]
enum Rate<'a> {
    Host { lr: f64, steps: i64 },
    Device(&'a DeviceScalars),
}

/// The per-step numbers of a recorded step, as one-element f32 tensors on the device.
pub(crate) struct DeviceScalars {
    /// `-lr`: SGD's factor.
    neg_lr: Tensor,
    /// `-lr / (1 - beta1^t)`: Adam's factor.
    adam_factor: Tensor,
    /// `1 / sqrt(1 - beta2^t)` in f32: Adam's second correction, as a multiplier.
    adam_root_inverse: Tensor,
}

impl DeviceScalars {
    pub(crate) fn new(device: tch::Device) -> DeviceScalars {
        let one = || Tensor::ones([], (Kind::Float, device));
        DeviceScalars {
            neg_lr: one(),
            adam_factor: one(),
            adam_root_inverse: one(),
        }
    }

    /// Sets the numbers of step `steps` (counted from 1) at learning rate `lr`, computed on
    /// the host in f64 as [`Optimizer::step`] computes them.
    pub(crate) fn fill(&mut self, lr: f64, steps: i64) {
        let (correction1, correction2) = corrections(steps);
        let _ = self.neg_lr.fill_(-lr);
        let _ = self.adam_factor.fill_(-lr / correction1);
        // libtorch divides an f32 tensor by a host number as a product with its f32
        // reciprocal: the same product here keeps the recorded step's rounding the same.
        let inverse = 1.0f32 / correction2.sqrt() as f32;
        let _ = self.adam_root_inverse.fill_(f64::from(inverse));
    }
}

/// Adam's bias corrections at step `steps`: `1 - beta1^t` and `1 - beta2^t`.
fn corrections(steps: i64) -> (f64, f64) {
    (
        1.0 - BETA1.powi(steps as i32),
        1.0 - BETA2.powi(steps as i32),
    )
}

/// The change `kind` makes at `rate` to the variables of `grad`, `first` and `second`
/// their state (SGD's momentum; Adam's moment estimates).
fn update(
    kind: OptimizerKind,
    momentum: f64,
    rate: Rate,
    first: &mut Tensor,
    second: &mut Tensor,
    grad: &Tensor,
) -> Tensor {
    match kind {
        OptimizerKind::Sgd => sgd_update(first, grad, momentum, rate),
        OptimizerKind::Adam => adam_update(first, second, grad, rate),
    }
}

/// PyTorch's SGD with Nesterov momentum (dampening 0), plain SGD at momentum 0: the change
/// to add to the variables of `grad`, `buffer` their momentum.
fn sgd_update(buffer: &mut Tensor, grad: &Tensor, momentum: f64, rate: Rate) -> Tensor {
    let scale = |t: Tensor| match rate {
        Rate::Host { lr, .. } => t * -lr,
        Rate::Device(scalars) => t * &scalars.neg_lr,
    };
    if momentum == 0.0 {
        return scale(grad.shallow_clone());
    }
    let _ = buffer.g_mul_scalar_(momentum).g_add_(grad);
    let update = grad + &*buffer * momentum;
    scale(update)
}

/// PyTorch's Adam (no weight decay, no AMSGrad) at `rate`: the change to add to the
/// variables of `grad`, `m` and `v` their moment estimates.
fn adam_update(m: &mut Tensor, v: &mut Tensor, grad: &Tensor, rate: Rate) -> Tensor {
    let _ = m.g_mul_scalar_(BETA1).g_add_(&(grad * (1.0 - BETA1)));
    let _ = v
        .g_mul_scalar_(BETA2)
        .g_add_(&(grad * grad * (1.0 - BETA2)));
    match rate {
        Rate::Host { lr, steps } => {
            let (correction1, correction2) = corrections(steps);
            let denominator = v.sqrt() / correction2.sqrt() + EPSILON;
            &*m / denominator * (-lr / correction1)
        }
        Rate::Device(scalars) => {
            let denominator = v.sqrt() * &scalars.adam_root_inverse + EPSILON;
            &*m / denominator * &scalars.adam_factor
        }
    }
}
