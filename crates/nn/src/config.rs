//! Model and learner settings.

use serde::{Deserialize, Serialize};

/// Which network family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Fully connected layers with batch norm over the flattened observation.
    Mlp,
    /// A plain convolutional tower: blocks of one 3x3 convolution, batch norm and ReLU,
    /// without skip connections (OpenSpiel's conv2d), under resnet's stem and heads.
    Conv,
    /// A convolutional residual tower as in AlphaZero.
    Resnet,
}

impl Family {
    /// The name configs write: `mlp`, `conv` or `resnet`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Mlp => "mlp",
            Family::Conv => "conv",
            Family::Resnet => "resnet",
        }
    }
}

/// The network's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// `mlp`, `conv` or `resnet`.
    pub family: Family,
    /// mlp: width of each hidden layer.
    pub hidden: usize,
    /// mlp: number of hidden layers.
    pub layers: usize,
    /// conv and resnet: channels of the tower (AlphaZero: 256).
    pub channels: usize,
    /// conv: convolution blocks after the stem; resnet: residual blocks (AlphaZero: 19 or
    /// 39).
    pub blocks: usize,
    /// Width of the value head's hidden layer (AlphaZero: 256).
    pub value_hidden: usize,
    /// Dropout before the heads while training (AlphaPush); 0 = none.
    pub dropout: f64,
    /// An auxiliary head that predicts the opponent's reply policy (KataGo).
    pub reply_head: bool,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            family: Family::Resnet,
            hidden: 128,
            layers: 3,
            channels: 64,
            blocks: 4,
            value_hidden: 64,
            dropout: 0.0,
            reply_head: false,
        }
    }
}

impl ModelConfig {
    /// The network in a few words (`resnet, 32 channels, 3 blocks, value head 32, dropout
    /// 0`): the settings its family reads.
    pub fn describe(&self) -> String {
        let body = match self.family {
            Family::Mlp => format!("mlp, {} hidden, {} layers", self.hidden, self.layers),
            family => format!(
                "{}, {} channels, {} blocks",
                format!("{family:?}").to_lowercase(),
                self.channels,
                self.blocks
            ),
        };
        let reply = if self.reply_head { ", reply head" } else { "" };
        format!(
            "{body}, value head {}{reply}, dropout {}",
            self.value_hidden, self.dropout
        )
    }

    /// A lower bound on the network's weights for observations `obs_shape` and
    /// `num_actions` actions, counting only the largest layers (never more than the
    /// network has): what a checkpoint must hold at least, checked before anything is
    /// allocated for it.
    pub fn min_weights(&self, obs_shape: [usize; 3], num_actions: usize) -> u128 {
        // Saturating: a hostile sidecar may declare sizes whose products overflow.
        let n = |x: usize| x as u128;
        let product = |factors: &[u128]| factors.iter().fold(1u128, |p, &f| p.saturating_mul(f));
        let cells = n(obs_shape[1]).saturating_mul(n(obs_shape[2]));
        match self.family {
            Family::Mlp => {
                let input = product(&obs_shape.map(n));
                let hidden = n(self.hidden);
                let deeper = n(self.layers.saturating_sub(1));
                product(&[input, hidden])
                    .saturating_add(product(&[deeper, hidden, hidden]))
                    .saturating_add(product(&[
                        hidden,
                        n(num_actions).saturating_add(n(self.value_hidden)),
                    ]))
            }
            Family::Conv | Family::Resnet => {
                let channels = n(self.channels);
                product(&[9, n(obs_shape[0]), channels])
                    .saturating_add(product(&[n(self.blocks), 9, channels, channels]))
                    .saturating_add(product(&[n(self.value_hidden), cells]))
            }
        }
    }

    /// Problems with these settings, one line each.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        match self.family {
            Family::Mlp if self.hidden == 0 || self.layers == 0 => {
                errors.push("model.hidden and model.layers must be at least 1 for mlp".to_string())
            }
            Family::Conv | Family::Resnet if self.channels == 0 => errors.push(format!(
                "model.channels must be at least 1 for {}",
                self.family.name()
            )),
            _ => {}
        }
        if !(0.0..1.0).contains(&self.dropout) {
            errors.push(format!(
                "model.dropout must be within [0, 1), got {}",
                self.dropout
            ));
        }
        if self.value_hidden == 0 {
            errors.push("model.value_hidden must be at least 1".to_string());
        }
        // Far past any network a board game needs; beyond them libtorch fails to allocate.
        let widths = [
            ("hidden", self.hidden),
            ("channels", self.channels),
            ("value_hidden", self.value_hidden),
        ];
        for (key, width) in widths {
            if width > MAX_WIDTH {
                errors.push(format!(
                    "model.{key} must be at most {MAX_WIDTH}, got {width}"
                ));
            }
        }
        for (key, depth) in [("layers", self.layers), ("blocks", self.blocks)] {
            if depth > MAX_DEPTH {
                errors.push(format!(
                    "model.{key} must be at most {MAX_DEPTH}, got {depth}"
                ));
            }
        }
        errors
    }
}

/// The widest layer (`hidden`, `channels`, `value_hidden`) a config may ask for.
pub const MAX_WIDTH: usize = 4096;
/// The deepest network (`layers`, `blocks`) a config may ask for.
pub const MAX_DEPTH: usize = 128;
/// The most passes over the replay window a generation may take.
pub const MAX_EPOCHS: f64 = 1000.0;

/// The policy loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyLoss {
    /// Cross-entropy against the target (AlphaZero).
    CrossEntropy,
    /// KL divergence from the target: the cross-entropy minus the target's entropy, so a
    /// perfect fit reads 0 (same gradients).
    Kl,
}

/// The optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// SGD with Nesterov momentum, as AlphaZero; plain SGD with `momentum = 0`.
    Sgd,
    /// Adam.
    Adam,
}

/// Why `learner.precision = "fp16"` is refused: fp16 gradients underflow without a loss
/// scaler, which zerosum does not have.
pub(crate) const FP16_TRAINING: &str =
    "learner.precision fp16 would need a loss scaler: use bf16, fp32 or auto";

/// How the network learns from a batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearnerConfig {
    /// `sgd` or `adam`.
    pub optimizer: OptimizerKind,
    /// Learning rate at step 0 (AlphaZero: 0.2, for batch 4096).
    pub learning_rate: f64,
    /// Piecewise-constant schedule: `[[step, rate], ...]`; from each step on, that rate.
    pub lr_schedule: Vec<(u64, f64)>,
    /// SGD momentum (AlphaZero: 0.9).
    pub momentum: f64,
    /// Coefficient of the L2 penalty on the weights in the loss (AlphaZero: 1e-4).
    pub l2: f64,
    /// Weight of the value loss against the policy loss.
    pub value_weight: f64,
    /// Positions per minibatch (AlphaZero: 4096).
    pub batch_size: usize,
    /// Passes over the replay window per generation, as a fraction (1.0 = every position
    /// once on average).
    pub epochs: f64,
    /// Gradient-norm clip; 0 turns it off.
    pub grad_clip: f64,
    /// `cross_entropy` or `kl`.
    pub policy_loss: PolicyLoss,
    /// Weight of the auxiliary opponent-reply loss (KataGo: 0.15); needs model.reply_head.
    pub reply_weight: f64,
    /// Go through the older samples first within each generation's steps (AlphaPush's
    /// curriculum).
    pub curriculum: bool,
    /// The number format of the forward and backward passes: `fp32`, `bf16` (mixed
    /// precision: products in bf16, weights, gradients and optimizer in f32) or `auto` (bf16
    /// where it measured faster: `RunConfig::training_precision` in zerosum-config).
    pub precision: String,
    /// Whether each step on CUDA replays a recorded CUDA graph: `on`, `off`, or `auto` (on
    /// where the binary has the shim that records them). Ignored on the CPU.
    pub cuda_graphs: String,
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            optimizer: OptimizerKind::Adam,
            learning_rate: 2e-3,
            lr_schedule: Vec::new(),
            momentum: 0.9,
            l2: 1e-4,
            value_weight: 1.0,
            batch_size: 256,
            epochs: 2.0,
            grad_clip: 0.0,
            policy_loss: PolicyLoss::CrossEntropy,
            reply_weight: 0.15,
            curriculum: false,
            precision: "auto".to_string(),
            cuda_graphs: "auto".to_string(),
        }
    }
}

impl LearnerConfig {
    /// The learning rate in force at `step`.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        self.lr_schedule
            .iter()
            .filter(|(from, _)| *from <= step)
            .max_by_key(|(from, _)| *from)
            .map(|&(_, rate)| rate)
            .unwrap_or(self.learning_rate)
    }

    /// Problems with these settings, one line each.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if self.learning_rate.is_nan() || self.learning_rate <= 0.0 {
            errors.push(format!(
                "learner.learning_rate must be positive, got {}",
                self.learning_rate
            ));
        }
        if self.batch_size == 0 {
            errors.push("learner.batch_size must be at least 1".to_string());
        }
        if !(self.epochs > 0.0 && self.epochs <= MAX_EPOCHS) {
            errors.push(format!(
                "learner.epochs must be positive and at most {MAX_EPOCHS}, got {}",
                self.epochs
            ));
        }
        if self.l2 < 0.0 || self.value_weight < 0.0 {
            errors.push("learner.l2 and learner.value_weight must not be negative".to_string());
        }
        match self.precision.as_str() {
            "auto" | "fp32" | "bf16" => {}
            "fp16" => errors.push(FP16_TRAINING.to_string()),
            other => errors.push(format!(
                "learner.precision must be auto, fp32 or bf16, got '{other}'"
            )),
        }
        if !is_graphs_setting(&self.cuda_graphs) {
            errors.push(format!(
                "learner.cuda_graphs must be auto, on or off, got '{}'",
                self.cuda_graphs
            ));
        }
        errors
    }
}

/// Whether `setting` is one of `auto`, `on` and `off`, the values of `cuda_graphs` and
/// `learner.cuda_graphs`.
pub fn is_graphs_setting(setting: &str) -> bool {
    ["auto", "on", "off"].contains(&setting)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conv_parses_and_validates_like_resnet() {
        let config: ModelConfig =
            serde_json::from_str(r#"{"family": "conv", "channels": 8, "blocks": 2}"#).unwrap();
        assert_eq!(config.family, Family::Conv);
        assert!(config.validate().is_empty(), "{:?}", config.validate());
        for family in [Family::Conv, Family::Resnet] {
            let empty = ModelConfig {
                family,
                channels: 0,
                ..config.clone()
            };
            let expected = format!("model.channels must be at least 1 for {}", family.name());
            assert_eq!(empty.validate(), vec![expected]);
        }
    }

    #[test]
    fn family_names_are_what_serde_reads_and_writes() {
        for family in [Family::Mlp, Family::Conv, Family::Resnet] {
            let json = serde_json::to_string(&family).unwrap();
            assert_eq!(json, format!("\"{}\"", family.name()));
            assert_eq!(serde_json::from_str::<Family>(&json).unwrap(), family);
        }
        let unknown = serde_json::from_str::<Family>(r#""dense""#).unwrap_err();
        assert!(unknown.to_string().contains("conv"), "{unknown}");
    }

    #[test]
    fn learning_rate_follows_the_schedule_from_each_named_step_on() {
        let config = LearnerConfig {
            learning_rate: 0.1,
            // Out of order on purpose: the schedule is read by step, not by position.
            lr_schedule: vec![(400, 0.001), (100, 0.01)],
            ..LearnerConfig::default()
        };
        let rates: Vec<f64> = [0, 99, 100, 399, 400, 10_000]
            .iter()
            .map(|&step| config.learning_rate_at(step))
            .collect();
        assert_eq!(rates, [0.1, 0.1, 0.01, 0.01, 0.001, 0.001]);
    }
}
