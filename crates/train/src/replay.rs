//! The replay window: training samples from the most recent self-play generations.

use std::collections::VecDeque;

use rand::Rng;
use zerosum_games::{Action, Game, Symmetry};
use zerosum_nn::Batch;

use crate::record::GameRecord;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The observation `[obs_len]`.
    pub obs: Vec<f32>,
    /// The legal actions.
    pub legal: Vec<Action>,
    /// The search's policy target over the legal actions.
    pub policy: Vec<(Action, f32)>,
    /// The game's result from the mover's view.
    pub value: f32,
}

/// Turns a self-play record into samples by replaying it.
pub fn samples_from_record<G: Game>(initial: &G, record: &GameRecord) -> Vec<Sample> {
    let mut position = initial.clone();
    let mut samples = Vec::with_capacity(record.stats.len());
    for (&action, stats) in record.actions.iter().zip(&record.stats) {
        let mut obs = vec![0.0; position.obs_len()];
        position.observe(&mut obs);
        let mover = position.to_move();
        let value =
            zerosum_games::value_for(record.value_first, zerosum_games::Player::FIRST, mover);
        samples.push(Sample {
            obs,
            legal: position.legal_action_vec(),
            policy: stats.policy.clone(),
            value,
        });
        position.apply(action);
    }
    samples
}

/// Samples grouped by generation, oldest first, trimmed to a window.
pub struct ReplayBuffer {
    generations: VecDeque<(u64, Vec<Sample>)>,
    window: usize,
    min_generations: usize,
}

impl ReplayBuffer {
    /// An empty buffer keeping about `window` positions but never fewer than
    /// `min_generations` generations.
    pub fn new(window: usize, min_generations: usize) -> ReplayBuffer {
        ReplayBuffer {
            generations: VecDeque::new(),
            window,
            min_generations: min_generations.max(1),
        }
    }

    /// Adds a generation's samples and drops the oldest generations that no longer fit.
    pub fn add_generation(&mut self, generation: u64, samples: Vec<Sample>) {
        self.generations.push_back((generation, samples));
        while self.generations.len() > self.min_generations
            && self.len() - self.generations[0].1.len() >= self.window
        {
            self.generations.pop_front();
        }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.generations.iter().map(|g| g.1.len()).sum()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The generations held, oldest first.
    pub fn generations(&self) -> Vec<u64> {
        self.generations.iter().map(|g| g.0).collect()
    }

    fn get(&self, mut index: usize) -> &Sample {
        for (_, samples) in &self.generations {
            if index < samples.len() {
                return &samples[index];
            }
            index -= samples.len();
        }
        panic!("sample index within len() by construction")
    }

    /// A minibatch of `size` samples drawn uniformly, each seen through a random symmetry
    /// from `symmetries` (identity only when it holds one).
    pub fn sample_batch(
        &self,
        size: usize,
        num_actions: usize,
        symmetries: &[Symmetry],
        rng: &mut impl Rng,
    ) -> Batch {
        let total = self.len();
        let obs_len = self.get(0).obs.len();
        let mut batch = Batch {
            obs: vec![0.0; size * obs_len],
            policy: vec![0.0; size * num_actions],
            value: vec![0.0; size],
            mask: vec![0.0; size * num_actions],
            size,
        };
        let mut policy = vec![0.0f32; num_actions];
        let mut mask = vec![0.0f32; num_actions];
        for b in 0..size {
            let sample = self.get(rng.random_range(0..total));
            policy.fill(0.0);
            mask.fill(0.0);
            for &(a, p) in &sample.policy {
                policy[a] = p;
            }
            for &a in &sample.legal {
                mask[a] = 1.0;
            }
            let obs_out = &mut batch.obs[b * obs_len..(b + 1) * obs_len];
            let policy_out = &mut batch.policy[b * num_actions..(b + 1) * num_actions];
            let mask_out = &mut batch.mask[b * num_actions..(b + 1) * num_actions];
            let symmetry = &symmetries[rng.random_range(0..symmetries.len().max(1))];
            symmetry.map_obs(&sample.obs, obs_out);
            symmetry.map_policy(&policy, policy_out);
            symmetry.map_policy(&mask, mask_out);
            batch.value[b] = sample.value;
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::SmallRng, SeedableRng};
    use zerosum_games::connect_four::ConnectFour;

    fn sample(value: f32) -> Sample {
        Sample {
            obs: vec![value; 84],
            legal: vec![0, 1],
            policy: vec![(0, 0.25), (1, 0.75)],
            value,
        }
    }

    #[test]
    fn window_drops_old_generations_but_keeps_the_minimum() {
        let mut buffer = ReplayBuffer::new(10, 2);
        buffer.add_generation(1, (0..8).map(|_| sample(1.0)).collect());
        buffer.add_generation(2, (0..8).map(|_| sample(2.0)).collect());
        assert_eq!(buffer.generations(), vec![1, 2]);
        buffer.add_generation(3, (0..8).map(|_| sample(3.0)).collect());
        assert_eq!(buffer.generations(), vec![2, 3]);
        assert_eq!(buffer.len(), 16);
    }

    #[test]
    fn batches_keep_policy_and_mask_together_under_symmetry() {
        let game = ConnectFour::new();
        let symmetries = game.symmetries();
        let mut buffer = ReplayBuffer::new(100, 1);
        buffer.add_generation(1, vec![sample(0.5)]);
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..20 {
            let batch = buffer.sample_batch(4, 7, &symmetries, &mut rng);
            for b in 0..4 {
                let policy = &batch.policy[b * 7..(b + 1) * 7];
                let mask = &batch.mask[b * 7..(b + 1) * 7];
                assert!((policy.iter().sum::<f32>() - 1.0).abs() < 1e-6);
                for a in 0..7 {
                    assert!(
                        policy[a] == 0.0 || mask[a] == 1.0,
                        "target outside the legal set"
                    );
                }
                assert_eq!(batch.value[b], 0.5);
            }
        }
    }
}
