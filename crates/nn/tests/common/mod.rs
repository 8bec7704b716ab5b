//! Helpers shared by the nn integration tests: tiny models, batches from real positions, and
//! tensors read back as flat vectors.
#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard, PoisonError};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tch::{Kind, Tensor};
use zerosum_games::Game;
use zerosum_nn::{Batch, Device, Family, Model, ModelConfig};

/// Every family, each test runs on all of them.
pub const FAMILIES: [Family; 3] = [Family::Mlp, Family::Conv, Family::Resnet];

static TORCH: Mutex<()> = Mutex::new(());

/// Seeds libtorch's generator and holds it for the whole test. The generator is global and
/// tests run on parallel threads, so without the lock one test's weight draws or dropout
/// masks would depend on what the others drew meanwhile.
pub fn seeded_torch(seed: u64) -> MutexGuard<'static, ()> {
    // A test that failed while holding the lock leaves nothing broken behind it.
    let guard = TORCH.lock().unwrap_or_else(PoisonError::into_inner);
    zerosum_nn::init_torch(seed, 0);
    guard
}

/// A few channels and one block: big enough to show each family's shape, fast to run.
pub fn tiny_config(family: Family) -> ModelConfig {
    ModelConfig {
        family,
        hidden: 16,
        layers: 1,
        channels: 4,
        blocks: 1,
        value_hidden: 8,
        ..ModelConfig::default()
    }
}

/// A freshly initialised model for `game` on the CPU.
pub fn new_model<G: Game>(game: &G, config: &ModelConfig) -> Model {
    Model::for_game(game, config, Device::Cpu).expect("a valid test config")
}

/// The bias of the layer that writes the policy logits.
pub fn policy_bias_name(family: Family) -> &'static str {
    match family {
        Family::Mlp => "heads.policy.bias",
        Family::Conv | Family::Resnet => "heads.policy_fc.bias",
    }
}

/// `count` positions reached from `start` by 0 to 3 random moves (the `i`-th by `i % 4`),
/// so none is over in tic-tac-toe or connect four.
pub fn positions<G: Game>(start: &G, count: usize, seed: u64) -> Vec<G> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|i| {
            let mut position = start.clone();
            for _ in 0..i % 4 {
                let legal = position.legal_action_vec();
                position.apply(legal[rng.random_range(0..legal.len())]);
            }
            position
        })
        .collect()
}

/// A training batch of `positions`: each policy target spreads over the legal actions in
/// proportion to `action + 1` (uneven, so its entropy is neither 0 nor the maximum), and
/// the value targets cycle through -1, 0, 1.
pub fn batch<G: Game>(positions: &[G]) -> Batch {
    let mut batch = Batch {
        size: positions.len(),
        ..Batch::default()
    };
    for (i, position) in positions.iter().enumerate() {
        let mut obs = vec![0.0; position.obs_len()];
        position.observe(&mut obs);
        batch.obs.extend(obs);
        let mask: Vec<f32> = position
            .legal_mask()
            .iter()
            .map(|&legal| if legal { 1.0 } else { 0.0 })
            .collect();
        let weights: Vec<f32> = mask
            .iter()
            .enumerate()
            .map(|(action, legal)| legal * (action + 1) as f32)
            .collect();
        let total: f32 = weights.iter().sum();
        batch.policy.extend(weights.iter().map(|w| w / total));
        batch.mask.extend(mask);
        batch.value.push((i % 3) as f32 - 1.0);
    }
    batch
}

/// The batch's observations as the `[B, obs_len]` tensor [`Model::forward_t`] takes.
pub fn observations(batch: &Batch) -> Tensor {
    Tensor::from_slice(&batch.obs).view([batch.size as i64, -1])
}

/// Policy logits `[B * A]` and values `[B]` of one forward pass, read back.
pub fn outputs(model: &Model, batch: &Batch, train: bool) -> (Vec<f32>, Vec<f32>) {
    let _guard = tch::no_grad_guard();
    let out = model.forward_t(&observations(batch), train);
    (flat(&[out.policy]), flat(&[out.value]))
}

/// All values of `tensors`, flattened and concatenated.
pub fn flat(tensors: &[Tensor]) -> Vec<f32> {
    let _guard = tch::no_grad_guard();
    let parts: Vec<Tensor> = tensors
        .iter()
        .map(|t| t.detach().to_kind(Kind::Float).flatten(0, -1))
        .collect();
    Vec::<f32>::try_from(&Tensor::cat(&parts, 0)).expect("a flat float tensor")
}

/// Every trainable weight of `model`, in the order the optimizer holds them.
pub fn parameters(model: &Model) -> Vec<f32> {
    flat(&model.var_store().trainable_variables())
}

/// The gradient the last backward pass left on each trainable weight, in the order of
/// [`parameters`]; zeros where a weight got none.
pub fn gradients(model: &Model) -> Vec<f32> {
    let grads: Vec<Tensor> = model
        .var_store()
        .trainable_variables()
        .iter()
        .map(|weight| {
            let grad = weight.grad();
            if grad.defined() {
                grad
            } else {
                weight.zeros_like()
            }
        })
        .collect();
    flat(&grads)
}

/// `sum(coefficient * vector)` over `terms`, in f64.
pub fn combination(terms: &[(f64, &[f32])]) -> Vec<f64> {
    let len = terms.first().map_or(0, |(_, v)| v.len());
    (0..len)
        .map(|i| terms.iter().map(|(c, v)| c * v[i] as f64).sum())
        .collect()
}

/// `|actual - expected| / |expected|` in the Euclidean norm.
pub fn relative_distance(actual: &[f32], expected: &[f64]) -> f64 {
    assert_eq!(actual.len(), expected.len());
    let difference: f64 = actual
        .iter()
        .zip(expected)
        .map(|(&a, &e)| (a as f64 - e).powi(2))
        .sum();
    let size: f64 = expected.iter().map(|e| e * e).sum();
    (difference / size).sqrt()
}
