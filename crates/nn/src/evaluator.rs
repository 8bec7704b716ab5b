//! The network as a search [`Evaluator`].

use std::marker::PhantomData;

use zerosum_games::Game;
use zerosum_search::Evaluator;

use crate::model::Model;

/// Runs a [`Model`] on batches of positions: observes each into one flat buffer, one
/// forward pass under `no_grad`, logits and values copied out.
pub struct NetEvaluator<G> {
    model: Model,
    obs: Vec<f32>,
    obs_len: usize,
    /// Forward passes made.
    pub calls: u64,
    /// Positions evaluated.
    pub positions: u64,
    _game: PhantomData<fn(&G)>,
}

impl<G: Game> NetEvaluator<G> {
    /// Wraps a model whose shape fits `game`.
    pub fn new(model: Model, game: &G) -> NetEvaluator<G> {
        NetEvaluator {
            model,
            obs: Vec::new(),
            obs_len: game.obs_len(),
            calls: 0,
            positions: 0,
            _game: PhantomData,
        }
    }

    /// The model inside.
    pub fn model(&self) -> &Model {
        &self.model
    }
}

impl<G: Game> Evaluator<G> for NetEvaluator<G> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        let batch = positions.len();
        self.obs.resize(batch * self.obs_len, 0.0);
        for (position, obs) in positions
            .iter()
            .zip(self.obs.chunks_exact_mut(self.obs_len))
        {
            position.observe(obs);
        }
        self.model.predict(&self.obs, batch, logits, values);
        self.calls += 1;
        self.positions += batch as u64;
    }
}
