//! The network families: `mlp` (fully connected), `conv` (OpenSpiel's plain conv2d tower) and
//! `resnet` (AlphaZero's residual tower); the two towers share their stem and heads. Each is
//! a struct of layers built from an `nn::Path`, so weights carry stable dotted names
//! (`trunk.blocks.0.conv1.weight`) that a matching PyTorch module loads unchanged.

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
        Family::Conv => Box::new(ConvNet::new(path, config, obs_shape, num_actions)),
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

/// A bias-free convolution (square `kernel`, padded to keep the board size) then batch norm:
/// the unit the convolutional families are built from. The ReLU is left to the caller
/// because the residual block adds its skip connection before it.
#[derive(Debug)]
struct ConvBn {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
}

impl ConvBn {
    /// The convolution's weights go under `conv_path`, the batch norm's under `bn_path`.
    fn new(
        conv_path: nn::Path,
        bn_path: nn::Path,
        c_in: usize,
        c_out: usize,
        kernel: i64,
    ) -> ConvBn {
        let config = nn::ConvConfig {
            padding: kernel / 2,
            bias: false,
            ..Default::default()
        };
        ConvBn {
            conv: nn::conv2d(conv_path, c_in as i64, c_out as i64, kernel, config),
            bn: nn::batch_norm2d(bn_path, c_out as i64, Default::default()),
        }
    }
}

impl ModuleT for ConvBn {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply(&self.conv).apply_t(&self.bn, train)
    }
}

/// A block of a convolutional tower: `channels` planes in and out, the board size kept.
trait TowerBlock: ModuleT + Sized {
    /// The block's layers, named under `p`.
    fn new(p: &nn::Path, channels: usize) -> Self;
}

/// Two 3x3 convolutions with batch norm and a skip connection (AlphaZero): weights `conv1`,
/// `bn1`, `conv2`, `bn2`.
#[derive(Debug)]
struct ResidualBlock {
    first: ConvBn,
    second: ConvBn,
}

impl TowerBlock for ResidualBlock {
    fn new(p: &nn::Path, channels: usize) -> ResidualBlock {
        ResidualBlock {
            first: ConvBn::new(p / "conv1", p / "bn1", channels, channels, 3),
            second: ConvBn::new(p / "conv2", p / "bn2", channels, channels, 3),
        }
    }
}

impl ModuleT for ResidualBlock {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let y = xs.apply_t(&self.first, train).relu();
        (y.apply_t(&self.second, train) + xs).relu()
    }
}

/// One 3x3 convolution with batch norm and ReLU and no skip connection (a layer of OpenSpiel's
/// conv2d torso): weights `conv` and `bn`.
#[derive(Debug)]
struct ConvBlock(ConvBn);

impl TowerBlock for ConvBlock {
    fn new(p: &nn::Path, channels: usize) -> ConvBlock {
        ConvBlock(ConvBn::new(p / "conv", p / "bn", channels, channels, 3))
    }
}

impl ModuleT for ConvBlock {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply_t(&self.0, train).relu()
    }
}

/// Logits over the action space from the tower's features: a 1x1 convolution to 2 planes,
/// batch norm, ReLU, then a linear layer (AlphaZero's policy head; the reply head is its
/// twin).
#[derive(Debug)]
struct LogitsHead {
    planes: ConvBn,
    fc: nn::Linear,
}

impl LogitsHead {
    /// Weights `<name>_conv`, `<name>_bn` and `<name>_fc` under `heads`.
    fn new(
        heads: &nn::Path,
        name: &str,
        channels: usize,
        cells: i64,
        num_actions: usize,
    ) -> LogitsHead {
        LogitsHead {
            planes: ConvBn::new(
                heads / format!("{name}_conv"),
                heads / format!("{name}_bn"),
                channels,
                2,
                1,
            ),
            fc: nn::linear(
                heads / format!("{name}_fc"),
                2 * cells,
                num_actions as i64,
                Default::default(),
            ),
        }
    }
}

impl ModuleT for LogitsHead {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply_t(&self.planes, train)
            .relu()
            .flatten(1, -1)
            .apply(&self.fc)
    }
}

/// AlphaZero's value head: a 1x1 convolution to 1 plane, batch norm, ReLU, a hidden linear
/// layer with ReLU, and a linear layer to one value squashed by tanh.
#[derive(Debug)]
struct ValueHead {
    plane: ConvBn,
    hidden: nn::Linear,
    out: nn::Linear,
}

impl ValueHead {
    /// Weights `value_conv`, `value_bn`, `value_fc1` and `value_fc2` under `heads`.
    fn new(heads: &nn::Path, channels: usize, cells: i64, hidden: usize) -> ValueHead {
        ValueHead {
            plane: ConvBn::new(heads / "value_conv", heads / "value_bn", channels, 1, 1),
            hidden: nn::linear(
                heads / "value_fc1",
                cells,
                hidden as i64,
                Default::default(),
            ),
            out: nn::linear(heads / "value_fc2", hidden as i64, 1, Default::default()),
        }
    }
}

impl ModuleT for ValueHead {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply_t(&self.plane, train)
            .relu()
            .flatten(1, -1)
            .apply(&self.hidden)
            .relu()
            .apply(&self.out)
            .tanh()
            .squeeze_dim(-1)
    }
}

/// The heads every convolutional family shares, over the tower's `[B, C, H, W]` features.
#[derive(Debug)]
struct ConvHeads {
    policy: LogitsHead,
    value: ValueHead,
    reply: Option<LogitsHead>,
}

impl ConvHeads {
    /// The layers are made in the order policy, value, reply: that order decides which
    /// random draws initialise which weights, so it stays fixed for a given seed.
    fn new(heads: &nn::Path, config: &ModelConfig, cells: i64, num_actions: usize) -> ConvHeads {
        let c = config.channels;
        ConvHeads {
            policy: LogitsHead::new(heads, "policy", c, cells, num_actions),
            value: ValueHead::new(heads, c, cells, config.value_hidden),
            reply: config
                .reply_head
                .then(|| LogitsHead::new(heads, "reply", c, cells, num_actions)),
        }
    }

    fn forward_t(&self, features: &Tensor, train: bool) -> Outputs {
        Outputs {
            policy: features.apply_t(&self.policy, train),
            value: features.apply_t(&self.value, train),
            reply: self
                .reply
                .as_ref()
                .map(|head| features.apply_t(head, train)),
        }
    }
}

/// A convolutional tower: a 3x3 stem with batch norm and ReLU, `model.blocks` blocks of
/// `model.channels` planes, dropout while training if asked, then [`ConvHeads`].
#[derive(Debug)]
struct Tower<B> {
    stem: ConvBn,
    blocks: Vec<B>,
    heads: ConvHeads,
    dropout: f64,
}

/// AlphaZero's residual tower.
type ResNet = Tower<ResidualBlock>;

/// OpenSpiel's conv2d: the same tower and heads without skip connections.
type ConvNet = Tower<ConvBlock>;

impl<B: TowerBlock> Tower<B> {
    fn new(
        p: &nn::Path,
        config: &ModelConfig,
        obs_shape: [usize; 3],
        num_actions: usize,
    ) -> Tower<B> {
        let [planes, height, width] = obs_shape;
        let c = config.channels;
        let trunk = p / "trunk";
        Tower {
            stem: ConvBn::new(&trunk / "stem", &trunk / "stem_bn", planes, c, 3),
            blocks: (0..config.blocks)
                .map(|i| B::new(&(&trunk / "blocks" / i), c))
                .collect(),
            heads: ConvHeads::new(&(p / "heads"), config, (height * width) as i64, num_actions),
            dropout: config.dropout,
        }
    }
}

impl<B: TowerBlock> PolicyValueNet for Tower<B> {
    fn forward_t(&self, obs: &Tensor, train: bool) -> Outputs {
        let mut x = obs.apply_t(&self.stem, train).relu();
        for block in &self.blocks {
            x = x.apply_t(block, train);
        }
        if self.dropout > 0.0 {
            x = x.dropout(self.dropout, train);
        }
        self.heads.forward_t(&x, train)
    }
}
