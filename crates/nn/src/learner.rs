//! One training step: policy cross-entropy against the search's targets, value MSE, L2.

use serde::{Deserialize, Serialize};
use tch::{Kind, Tensor};

use crate::config::{LearnerConfig, PolicyLoss};
use crate::error::NnError;
use crate::model::Model;
use crate::optimizer::Optimizer;

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
}

/// A model and its optimizer.
pub struct Learner {
    model: Model,
    optimizer: Optimizer,
    config: LearnerConfig,
    step: u64,
}

impl Learner {
    /// Builds the optimizer for `model`, which has already taken `step` steps.
    pub fn new(model: Model, config: &LearnerConfig, step: u64) -> Result<Learner, NnError> {
        let optimizer = Optimizer::new(config.optimizer, config.momentum, model.var_store());
        Ok(Learner {
            model,
            optimizer,
            config: config.clone(),
            step,
        })
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

    /// Takes up optimizer state saved by [`Learner::optimizer_state`] for this network.
    pub fn restore_optimizer(&mut self, bytes: &[u8]) -> Result<(), NnError> {
        self.optimizer.restore(bytes)
    }

    /// Optimizer steps taken so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// One gradient step on `batch`.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let device = self.model.device();
        let b = batch.size as i64;
        let obs = Tensor::from_slice(&batch.obs)
            .view([b, -1])
            .to_device(device);
        let target_policy = Tensor::from_slice(&batch.policy)
            .view([b, -1])
            .to_device(device);
        let target_value = Tensor::from_slice(&batch.value).to_device(device);
        let mask = Tensor::from_slice(&batch.mask)
            .view([b, -1])
            .to_device(device);

        let lr = self.config.learning_rate_at(self.step);
        let outputs = self.model.forward_t(&obs, true);
        let (logits, value) = (outputs.policy, outputs.value);
        // Illegal actions get a logit of -1e9 so neither the loss nor the entropy sees them.
        let masked = logits + (&mask - 1.0) * 1e9;
        let log_probs = masked.log_softmax(-1, Kind::Float);
        let target_entropy = -(&target_policy * (&target_policy + 1e-12).log())
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float);
        let cross_entropy = -(&target_policy * &log_probs)
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float);
        let policy_loss = match self.config.policy_loss {
            PolicyLoss::CrossEntropy => cross_entropy,
            // The target's entropy is a constant: KL reads 0 at a perfect fit, same gradients.
            PolicyLoss::Kl => cross_entropy - target_entropy.detach(),
        };
        let reply_loss = match (&outputs.reply, batch.reply.is_empty()) {
            (Some(reply_logits), false) => {
                let target = Tensor::from_slice(&batch.reply)
                    .view([b, -1])
                    .to_device(device);
                let has = Tensor::from_slice(&batch.has_reply).to_device(device);
                let log_reply = reply_logits.log_softmax(-1, Kind::Float);
                let per_sample =
                    -(&target * log_reply).sum_dim_intlist(-1, false, Kind::Float) * &has;
                per_sample.sum(Kind::Float) / has.sum(Kind::Float).clamp_min(1.0)
            }
            _ => Tensor::from(0.0f32).to_device(device),
        };
        let value_loss = (&value - &target_value).square().mean(Kind::Float);
        let l2 = self
            .model
            .var_store()
            .trainable_variables()
            .iter()
            .map(|w| w.square().sum(Kind::Float))
            .fold(Tensor::from(0.0f32).to_device(device), |acc, x| acc + x)
            * self.config.l2;
        let total = &policy_loss
            + &value_loss * self.config.value_weight
            + &l2
            + &reply_loss * self.config.reply_weight;
        self.optimizer.step(&total, lr, self.config.grad_clip);
        self.step += 1;

        let _guard = tch::no_grad_guard();
        let probs = log_probs.exp();
        let entropy = -(&probs * &log_probs * &mask)
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float);
        Losses {
            policy: policy_loss.double_value(&[]),
            value: value_loss.double_value(&[]),
            l2: l2.double_value(&[]),
            total: total.double_value(&[]),
            policy_entropy: entropy.double_value(&[]),
            target_entropy: target_entropy.double_value(&[]),
            reply: reply_loss.double_value(&[]),
        }
    }
}
