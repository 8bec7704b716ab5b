//! The search's only view of a network: a batch of positions in, priors and values out.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use zerosum_games::{Action, Game};

/// Turns positions into policy logits and values, a batch at a time.
///
/// `positions` is `[B]`; `logits` is `[B, num_actions]` over the whole action space (the
/// search masks illegal actions itself); `values` is `[B]`, each in `[-1, 1]` from the view
/// of that position's player to move. Positions handed over are never terminal.
pub trait Evaluator<G: Game> {
    /// Evaluates a batch.
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]);

    /// Whether the same position always gets the same answer, so that answers may be
    /// cached by position. Random rollouts are not: caching one playout's result would
    /// freeze its noise into every later visit.
    fn is_deterministic(&self) -> bool {
        true
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        (**self).evaluate(positions, logits, values)
    }

    fn is_deterministic(&self) -> bool {
        (**self).is_deterministic()
    }
}

/// Uniform priors and a value of 0: search with no knowledge at all.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, _positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        logits.fill(0.0);
        values.fill(0.0);
    }
}

/// Uniform priors and the result of random playouts: plain MCTS, the `mcts:N` baseline.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rng: SmallRng,
    rollouts: usize,
    actions: Vec<Action>,
}

impl RolloutEvaluator {
    /// `rollouts` random games per evaluated position, averaged; draws come from `seed`.
    pub fn new(seed: u64, rollouts: usize) -> RolloutEvaluator {
        RolloutEvaluator {
            rng: SmallRng::seed_from_u64(seed),
            rollouts: rollouts.max(1),
            actions: Vec::new(),
        }
    }

    /// The result of one uniformly random playout from `position`, from its mover's view.
    pub fn rollout<G: Game>(&mut self, position: &G) -> f32 {
        let player = position.to_move();
        let mut game = position.clone();
        loop {
            if let Some(outcome) = game.outcome() {
                return outcome.value_for(player);
            }
            game.legal_actions(&mut self.actions);
            let action = self.actions[self.rng.random_range(0..self.actions.len())];
            game.apply(action);
        }
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn is_deterministic(&self) -> bool {
        false
    }

    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        logits.fill(0.0);
        for (position, value) in positions.iter().zip(values.iter_mut()) {
            let total: f32 = (0..self.rollouts).map(|_| self.rollout(position)).sum();
            *value = total / self.rollouts as f32;
        }
    }
}
