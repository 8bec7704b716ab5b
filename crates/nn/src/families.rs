//! The network families. Each is a struct of layers built from an `nn::Path`, so weights
//! carry stable dotted names (`trunk.blocks.0.conv1.weight`) that a matching PyTorch module
//! loads unchanged.

use tch::nn::{self, ModuleT};
use tch::Tensor;

use crate::config::{Family, ModelConfig};

/// What a network computes for a batch.
#[derive(Debug)]
pub struct Outputs {
    /// Policy logits `[B, A]` over the whole action space.
    pub policy: Tensor,
    /// Values `[B]` in `[-1, 1]`, from the mover's view.
    pub value: Tensor,
    /// The opponent's reply logits `[B, A]`, when the model has that head.
    pub reply: Option<Tensor>,
}

/// A policy/value network: observations `[B, C, H, W]` to [`Outputs`].
pub trait PolicyValueNet: Send {
    /// The forward pass; `train` switches batch norm to batch statistics and turns dropout
    /// on.
    fn forward_t(&self, obs: &Tensor, train: bool) -> Outputs;
}

/// Builds the family named in `config` under `path`.
pub fn build(
    path: &nn::Path,
    config: &ModelConfig,
    obs_shape: [usize; 3],
    num_actions: usize,
) -> Box<dyn PolicyValueNet> {
    match config.family {
        Family::Mlp => Box::new(Mlp::new(path, config, obs_shape, num_actions)),
        Family::Resnet => Box::new(ResNet::new(path, config, obs_shape, num_actions)),
    }
}

/// Linear + batch norm + ReLU, repeated, then the two heads.
#[derive(Debug)]
pub struct Mlp {
    layers: Vec<(nn::Linear, nn::BatchNorm)>,
    policy: nn::Linear,
    value_hidden: nn::Linear,
    value: nn::Linear,
    reply: Option<nn::Linear>,
    dropout: f64,
}

impl Mlp {
    fn new(p: &nn::Path, config: &ModelConfig, obs_shape: [usize; 3], num_actions: usize) -> Mlp {
        let input: usize = obs_shape.iter().product();
        let trunk = p / "trunk";
        let layers = (0..config.layers)
            .map(|i| {
                let width_in = if i == 0 { input } else { config.hidden };
                let layer = &trunk / "layers" / i;
                (
                    nn::linear(
                        &layer / "fc",
                        width_in as i64,
                        config.hidden as i64,
                        Default::default(),
                    ),
                    nn::batch_norm1d(&layer / "bn", config.hidden as i64, Default::default()),
                )
            })
            .collect();
        let heads = p / "heads";
        Mlp {
            layers,
            policy: nn::linear(
                &heads / "policy",
                config.hidden as i64,
                num_actions as i64,
                Default::default(),
            ),
            value_hidden: nn::linear(
                &heads / "value_hidden",
                config.hidden as i64,
                config.value_hidden as i64,
                Default::default(),
            ),
            value: nn::linear(
                &heads / "value",
                config.value_hidden as i64,
                1,
                Default::default(),
            ),
            reply: config.reply_head.then(|| {
                nn::linear(
                    &heads / "reply",
                    config.hidden as i64,
                    num_actions as i64,
                    Default::default(),
                )
            }),
            dropout: config.dropout,
        }
    }
}

impl PolicyValueNet for Mlp {
    fn forward_t(&self, obs: &Tensor, train: bool) -> Outputs {
        let mut x = obs.flatten(1, -1);
        for (fc, bn) in &self.layers {
            x = x.apply(fc).apply_t(bn, train).relu();
        }
        if self.dropout > 0.0 {
            x = x.dropout(self.dropout, train);
        }
        let reply = self.reply.as_ref().map(|head| x.apply(head));
        let policy = x.apply(&self.policy);
        let value = x
            .apply(&self.value_hidden)
            .relu()
            .apply(&self.value)
            .tanh()
            .squeeze_dim(-1);
        Outputs {
            policy,
            value,
            reply,
        }
    }
}

fn conv(p: nn::Path, c_in: usize, c_out: usize, kernel: i64) -> nn::Conv2D {
    let config = nn::ConvConfig {
        padding: kernel / 2,
        bias: false,
        ..Default::default()
    };
    nn::conv2d(p, c_in as i64, c_out as i64, kernel, config)
}

/// Two 3x3 convolutions with batch norm and a skip connection.
#[derive(Debug)]
struct ResidualBlock {
    conv1: nn::Conv2D,
    bn1: nn::BatchNorm,
    conv2: nn::Conv2D,
    bn2: nn::BatchNorm,
}

impl ResidualBlock {
    fn new(p: &nn::Path, channels: usize) -> ResidualBlock {
        ResidualBlock {
            conv1: conv(p / "conv1", channels, channels, 3),
            bn1: nn::batch_norm2d(p / "bn1", channels as i64, Default::default()),
            conv2: conv(p / "conv2", channels, channels, 3),
            bn2: nn::batch_norm2d(p / "bn2", channels as i64, Default::default()),
        }
    }
}

impl ModuleT for ResidualBlock {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let y = xs.apply(&self.conv1).apply_t(&self.bn1, train).relu();
        let y = y.apply(&self.conv2).apply_t(&self.bn2, train);
        (y + xs).relu()
    }
}

/// AlphaZero's tower: a 3x3 stem, residual blocks, a policy head (1x1 conv to 2 planes, then
/// a linear layer) and a value head (1x1 conv to 1 plane, linear, ReLU, linear, tanh).
#[derive(Debug)]
pub struct ResNet {
    stem: nn::Conv2D,
    stem_bn: nn::BatchNorm,
    blocks: Vec<ResidualBlock>,
    policy_conv: nn::Conv2D,
    policy_bn: nn::BatchNorm,
    policy_fc: nn::Linear,
    value_conv: nn::Conv2D,
    value_bn: nn::BatchNorm,
    value_fc1: nn::Linear,
    value_fc2: nn::Linear,
    reply: Option<(nn::Conv2D, nn::BatchNorm, nn::Linear)>,
    dropout: f64,
}

impl ResNet {
    fn new(
        p: &nn::Path,
        config: &ModelConfig,
        obs_shape: [usize; 3],
        num_actions: usize,
    ) -> ResNet {
        let [planes, height, width] = obs_shape;
        let cells = (height * width) as i64;
        let c = config.channels;
        let trunk = p / "trunk";
        let heads = p / "heads";
        ResNet {
            stem: conv(&trunk / "stem", planes, c, 3),
            stem_bn: nn::batch_norm2d(&trunk / "stem_bn", c as i64, Default::default()),
            blocks: (0..config.blocks)
                .map(|i| ResidualBlock::new(&(&trunk / "blocks" / i), c))
                .collect(),
            policy_conv: conv(&heads / "policy_conv", c, 2, 1),
            policy_bn: nn::batch_norm2d(&heads / "policy_bn", 2, Default::default()),
            policy_fc: nn::linear(
                &heads / "policy_fc",
                2 * cells,
                num_actions as i64,
                Default::default(),
            ),
            value_conv: conv(&heads / "value_conv", c, 1, 1),
            value_bn: nn::batch_norm2d(&heads / "value_bn", 1, Default::default()),
            value_fc1: nn::linear(
                &heads / "value_fc1",
                cells,
                config.value_hidden as i64,
                Default::default(),
            ),
            value_fc2: nn::linear(
                &heads / "value_fc2",
                config.value_hidden as i64,
                1,
                Default::default(),
            ),
            reply: config.reply_head.then(|| {
                (
                    conv(&heads / "reply_conv", c, 2, 1),
                    nn::batch_norm2d(&heads / "reply_bn", 2, Default::default()),
                    nn::linear(
                        &heads / "reply_fc",
                        2 * cells,
                        num_actions as i64,
                        Default::default(),
                    ),
                )
            }),
            dropout: config.dropout,
        }
    }
}

impl PolicyValueNet for ResNet {
    fn forward_t(&self, obs: &Tensor, train: bool) -> Outputs {
        let mut x = obs.apply(&self.stem).apply_t(&self.stem_bn, train).relu();
        for block in &self.blocks {
            x = x.apply_t(block, train);
        }
        if self.dropout > 0.0 {
            x = x.dropout(self.dropout, train);
        }
        let reply = self.reply.as_ref().map(|(conv, bn, fc)| {
            x.apply(conv)
                .apply_t(bn, train)
                .relu()
                .flatten(1, -1)
                .apply(fc)
        });
        let policy = x
            .apply(&self.policy_conv)
            .apply_t(&self.policy_bn, train)
            .relu()
            .flatten(1, -1)
            .apply(&self.policy_fc);
        let value = x
            .apply(&self.value_conv)
            .apply_t(&self.value_bn, train)
            .relu()
            .flatten(1, -1)
            .apply(&self.value_fc1)
            .relu()
            .apply(&self.value_fc2)
            .tanh()
            .squeeze_dim(-1);
        Outputs {
            policy,
            value,
            reply,
        }
    }
}
