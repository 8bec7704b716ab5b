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
    /// SGD's momentum buffers, or Adam's first moments.
    first: Vec<Tensor>,
    /// Adam's second moments (unused by SGD).
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
        let zeros = || params.iter().map(|(_, p)| p.zeros_like()).collect();
        Optimizer {
            kind,
            momentum,
            first: zeros(),
            second: zeros(),
            params,
            steps: 0,
        }
    }

    /// Minimises `loss` by one step of size `lr`, the gradients' global norm first clipped
    /// to `clip` when it is positive.
    pub fn step(&mut self, loss: &Tensor, lr: f64, clip: f64) {
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
                let total = Tensor::stack(&norms, 0).norm().double_value(&[]);
                let coefficient = clip / (total + 1e-6);
                if coefficient < 1.0 {
                    for grad in &grads {
                        if grad.defined() {
                            let _ = grad.shallow_clone().g_mul_scalar_(coefficient);
                        }
                    }
                }
            }
        }
        self.steps += 1;
        for (index, grad) in grads.iter().enumerate() {
            if !grad.defined() {
                continue;
            }
            let mut param = self.params[index].1.shallow_clone();
            match self.kind {
                OptimizerKind::Sgd => self.sgd(index, grad, &mut param, lr),
                OptimizerKind::Adam => self.adam(index, grad, &mut param, lr),
            }
        }
    }

    /// PyTorch's SGD with Nesterov momentum (dampening 0); plain SGD at momentum 0.
    fn sgd(&mut self, index: usize, grad: &Tensor, param: &mut Tensor, lr: f64) {
        if self.momentum == 0.0 {
            let _ = param.g_add_(&(grad * -lr));
            return;
        }
        let buffer = &mut self.first[index];
        let _ = buffer.g_mul_scalar_(self.momentum).g_add_(grad);
        let update = grad + &*buffer * self.momentum;
        let _ = param.g_add_(&(update * -lr));
    }

    /// PyTorch's Adam (no weight decay, no AMSGrad).
    fn adam(&mut self, index: usize, grad: &Tensor, param: &mut Tensor, lr: f64) {
        let m = &mut self.first[index];
        let _ = m.g_mul_scalar_(BETA1).g_add_(&(grad * (1.0 - BETA1)));
        let v = &mut self.second[index];
        let _ = v
            .g_mul_scalar_(BETA2)
            .g_add_(&(grad * grad * (1.0 - BETA2)));
        let correction1 = 1.0 - BETA1.powi(self.steps as i32);
        let correction2 = 1.0 - BETA2.powi(self.steps as i32);
        let denominator = v.sqrt() / correction2.sqrt() + EPSILON;
        let _ = param.g_add_(&(&*m / denominator * (-lr / correction1)));
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
        self.first = first;
        self.second = second;
        self.steps = steps;
        Ok(())
    }
}
