//! The replay window: training samples from the most recent self-play generations.
//!
//! Options from the seeds' recipes live here: the value target mixed from the game result
//! and the search's value, identical positions merged with their targets averaged
//! (CGZero), older generations weighted down, the opponent's reply as an auxiliary
//! target (KataGo), positions drawn more often the more often they occurred (CGZero's
//! count-weighted subset) or the more they surprised the network (KataGo's policy surprise
//! weighting).

use std::collections::{HashMap, VecDeque};

use rand::seq::SliceRandom;
use rand::Rng;
use zerosum_games::{value_for, Action, Game, Player, Symmetry};
use zerosum_nn::Batch;

use zerosum_config::{ReplayConfig, Subset};
use zerosum_store::record::GameRecord;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position's hash (merging identical positions keys on it).
    pub key: u64,
    /// The observation `[obs_len]`.
    pub obs: Vec<f32>,
    /// The legal actions.
    pub legal: Vec<Action>,
    /// The search's policy target over the legal actions.
    pub policy: Vec<(Action, f32)>,
    /// The value target from the mover's view.
    pub value: f32,
    /// The opponent's reply target (the next recorded move's policy when the opponent made
    /// it), for the auxiliary head.
    pub reply: Option<Vec<(Action, f32)>>,
    /// How many identical positions were merged into this sample (1 when not merged).
    pub count: u32,
    /// How often it is drawn relative to a plain sample (policy surprise weighting; merged
    /// samples add their weights).
    pub weight: f32,
    /// The generation it came from (the newest one, when merged).
    pub generation: u64,
}

/// How a recorded game's positions get their value targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueTarget {
    /// The search's share k of `k * q + (1 - k) * z` at the last ply
    /// ([`ReplayConfig::value_q_mix`]).
    pub q_mix: f64,
    /// The search's discount per ply: the result z of a position n plies before the end is
    /// `discount^n` times the game's (`search.discount`, so that the network learns the
    /// values its search backs up).
    pub discount: f64,
    /// The share w of the result z given to the game's final score instead (KataGo's score
    /// utility): z becomes `(1 - w) * result + w * tanh(score / score_scale)`, the score
    /// from the mover's view ([`ReplayConfig::value_score_weight`]). 0 = the result alone.
    pub score_weight: f64,
    /// The score margin, in the game's points, at which the score's part reaches
    /// tanh(1) = 0.76 of its share ([`ReplayConfig::value_score_scale`]).
    pub score_scale: f64,
}

impl ValueTarget {
    /// The plain AlphaZero target: the game's result.
    pub const RESULT: ValueTarget = ValueTarget {
        q_mix: 0.0,
        discount: 1.0,
        score_weight: 0.0,
        score_scale: 1.0,
    };

    /// The target a run's config asks for.
    pub fn of(config: &zerosum_config::RunConfig) -> ValueTarget {
        ValueTarget {
            q_mix: config.replay.value_q_mix,
            discount: config.search.discount as f64,
            score_weight: config.replay.value_score_weight,
            score_scale: config.replay.value_score_scale,
        }
    }

    /// The outcome part z of the target from the first player's view, for a game that
    /// ended with `result_first` and, where the game counts one, `score_first`.
    fn outcome_first(&self, result_first: f32, score_first: Option<f32>) -> f64 {
        match score_first {
            Some(score) if self.score_weight > 0.0 => {
                let margin = (score as f64 / self.score_scale).tanh();
                (1.0 - self.score_weight) * result_first as f64 + self.score_weight * margin
            }
            _ => result_first as f64,
        }
    }
}

/// Turns a self-play record into samples by replaying it. The value target is
/// `k * q + (1 - k) * z`, with z the outcome (the result, blended with the final score by
/// `score_weight`) discounted by the plies left, q the search's root value, and k rising
/// linearly over the game from 0 at the first ply to `q_mix` at the last.
pub fn samples_from_record<G: Game>(
    initial: &G,
    record: &GameRecord,
    target: ValueTarget,
    generation: u64,
) -> Vec<Sample> {
    let mut position = initial.clone();
    let mut samples: Vec<Sample> = Vec::with_capacity(record.stats.len());
    let mut movers: Vec<(usize, Player)> = Vec::with_capacity(record.stats.len());
    let length = record.actions.len().max(1) as f64;
    let score_first = (target.score_weight > 0.0)
        .then(|| final_score(initial, record))
        .flatten();
    let outcome_first = target.outcome_first(record.value_first, score_first);
    for (ply, (&action, stats)) in record.actions.iter().zip(&record.stats).enumerate() {
        let Some(stats) = stats else {
            position.apply(action);
            continue;
        };
        let mut obs = vec![0.0; position.obs_len()];
        position.observe(&mut obs);
        let mover = position.to_move();
        let plies_left = (record.actions.len() - ply) as i32;
        let z = value_for(outcome_first as f32, Player::FIRST, mover) as f64
            * target.discount.powi(plies_left);
        let k = target.q_mix * ply as f64 / length;
        let value = (k * stats.value as f64 + (1.0 - k) * z) as f32;
        // The reply target is the very next move's, when the opponent made it and it was
        // recorded (moves in between, fast or random, break the link).
        if let (Some(previous), Some(&(previous_ply, previous_mover))) =
            (samples.last_mut(), movers.last())
        {
            if previous_ply + 1 == ply && previous_mover != mover {
                previous.reply = Some(stats.policy.clone());
            }
        }
        samples.push(Sample {
            key: Game::hash(&position),
            obs,
            legal: position.legal_action_vec(),
            policy: stats.policy.clone(),
            value,
            reply: None,
            count: 1,
            weight: 1.0,
            generation,
        });
        movers.push((ply, mover));
        position.apply(action);
    }
    samples
}

/// The score the rules count at the end of `record`, from the first player's view; `None`
/// for games without one.
fn final_score<G: Game>(initial: &G, record: &GameRecord) -> Option<f32> {
    let mut position = initial.clone();
    for &action in &record.actions {
        position.apply(action);
    }
    position.final_score()
}

/// Weighs `samples`, the training positions of `record` in order, by policy surprise
/// (KataGo): a `share` of the game's total weight goes to its positions in proportion to
/// their surprise, the rest evenly, so the game keeps a total weight of one per position
/// and the positions where the search overturned the network are drawn more often.
pub fn weigh_by_surprise(samples: &mut [Sample], record: &GameRecord, share: f64) {
    let surprises: Vec<f64> = record
        .stats
        .iter()
        .flatten()
        .map(|s| s.surprise as f64)
        .collect();
    debug_assert_eq!(
        surprises.len(),
        samples.len(),
        "one sample per recorded move"
    );
    let mean = surprises.iter().sum::<f64>() / surprises.len().max(1) as f64;
    if share <= 0.0 || mean <= 0.0 {
        return;
    }
    for (sample, surprise) in samples.iter_mut().zip(surprises) {
        sample.weight = ((1.0 - share) + share * surprise / mean) as f32;
    }
}

/// Merges identical positions (same hash): targets averaged, counts and weights added.
pub fn merge_duplicates(samples: impl IntoIterator<Item = Sample>) -> Vec<Sample> {
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut merged: Vec<(Sample, HashMap<Action, f32>)> = Vec::new();
    for sample in samples {
        match index.get(&sample.key) {
            Some(&i) => {
                let (into, policy) = &mut merged[i];
                let n = into.count as f32;
                let m = sample.count as f32;
                into.value = (into.value * n + sample.value * m) / (n + m);
                for (a, p) in &sample.policy {
                    *policy.entry(*a).or_insert(0.0) += p * m;
                }
                if into.reply.is_none() {
                    into.reply = sample.reply;
                }
                into.count += sample.count;
                into.weight += sample.weight;
                into.generation = into.generation.max(sample.generation);
            }
            None => {
                index.insert(sample.key, merged.len());
                let m = sample.count as f32;
                let policy = sample.policy.iter().map(|&(a, p)| (a, p * m)).collect();
                merged.push((sample, policy));
            }
        }
    }
    merged
        .into_iter()
        .map(|(mut sample, sums)| {
            let total = sample.count as f32;
            for (a, p) in &mut sample.policy {
                *p = sums.get(a).copied().unwrap_or(0.0) / total;
            }
            sample
        })
        .collect()
}

/// Samples grouped by generation, oldest first, trimmed to a window; the training view
/// (merged or not, weighted by age) is rebuilt when a generation arrives.
pub struct ReplayBuffer {
    generations: VecDeque<(u64, Vec<Sample>)>,
    config: ReplayConfig,
    view: Vec<Sample>,
    /// Cumulative sampling weights over `view`.
    cumulative: Vec<f64>,
}

impl ReplayBuffer {
    /// An empty buffer.
    pub fn new(config: &ReplayConfig) -> ReplayBuffer {
        ReplayBuffer {
            generations: VecDeque::new(),
            config: config.clone(),
            view: Vec::new(),
            cumulative: Vec::new(),
        }
    }

    /// The most positions the window holds (beyond `min_generations`), from the next
    /// generation added on.
    pub fn set_window(&mut self, positions: usize) {
        self.config.window_positions = positions;
    }

    /// The most positions the window holds.
    pub fn window(&self) -> usize {
        self.config.window_positions
    }

    /// Adds a generation's samples and drops the oldest generations that no longer fit.
    pub fn add_generation(&mut self, generation: u64, samples: Vec<Sample>) {
        self.generations.push_back((generation, samples));
        let min_generations = self.config.min_generations.max(1);
        while self.generations.len() > min_generations
            && self.positions() - self.generations[0].1.len() >= self.config.window_positions
        {
            self.generations.pop_front();
        }
        self.rebuild_view();
    }

    fn rebuild_view(&mut self) {
        let all = self.generations.iter().flat_map(|(_, s)| s.iter().cloned());
        self.view = if self.config.merge_duplicates {
            merge_duplicates(all)
        } else {
            all.collect()
        };
        if self.config.subset == Subset::CountWeighted {
            // Most frequent first: each tier of the draw is a prefix of the view.
            self.view.sort_by_key(|s| std::cmp::Reverse(s.count));
        }
        let newest = self.generations.back().map_or(0, |g| g.0);
        let mut total = 0.0;
        self.cumulative = self
            .view
            .iter()
            .map(|s| {
                total += s.weight as f64
                    * self
                        .config
                        .generation_decay
                        .powi((newest - s.generation) as i32);
                total
            })
            .collect();
    }

    /// Positions recorded in the window (before merging).
    pub fn positions(&self) -> usize {
        self.generations.iter().map(|g| g.1.len()).sum()
    }

    /// Samples in the training view (after merging).
    pub fn len(&self) -> usize {
        self.view.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.view.is_empty()
    }

    /// The generations held, oldest first.
    pub fn generations(&self) -> Vec<u64> {
        self.generations.iter().map(|g| g.0).collect()
    }

    /// The training view.
    pub fn samples(&self) -> &[Sample] {
        &self.view
    }

    /// `count` sample indices drawn by weight (uniform unless older generations are
    /// weighted down or samples weighted by surprise), in random order; with `curriculum`,
    /// ordered oldest first so that a learning phase goes through the older data before the
    /// newer.
    ///
    /// With the count-weighted subset (CGZero) the draw comes in [`COUNT_TIERS`] equal
    /// parts: the first from the most frequent fifth of the view, the next from the most
    /// frequent two fifths, and so on to the whole view.
    pub fn draw_indices(&self, count: usize, curriculum: bool, rng: &mut impl Rng) -> Vec<usize> {
        if count == 0 {
            return Vec::new();
        }
        assert!(!self.view.is_empty(), "draw from a non-empty buffer");
        let len = self.view.len();
        let tier_end = |i: usize| match self.config.subset {
            Subset::Uniform => len,
            Subset::CountWeighted => {
                let tier = i * COUNT_TIERS / count;
                ((tier + 1) * len).div_ceil(COUNT_TIERS).max(1)
            }
        };
        let mut indices: Vec<usize> = (0..count)
            .map(|i| {
                let end = tier_end(i);
                let x = rng.random::<f64>() * self.cumulative[end - 1];
                self.cumulative.partition_point(|&c| c <= x).min(end - 1)
            })
            .collect();
        if curriculum {
            indices.sort_by_key(|&i| self.view[i].generation);
        } else if self.config.subset == Subset::CountWeighted {
            indices.shuffle(rng);
        }
        indices
    }

    /// A minibatch of the samples at `indices`, each seen through a random symmetry from
    /// `symmetries` (identity only when it holds one).
    pub fn batch(
        &self,
        indices: &[usize],
        num_actions: usize,
        symmetries: &[Symmetry],
        rng: &mut impl Rng,
    ) -> Batch {
        let size = indices.len();
        let obs_len = self.view[0].obs.len();
        let mut batch = Batch {
            obs: vec![0.0; size * obs_len],
            policy: vec![0.0; size * num_actions],
            value: vec![0.0; size],
            mask: vec![0.0; size * num_actions],
            reply: vec![0.0; size * num_actions],
            has_reply: vec![0.0; size],
            size,
        };
        let mut dense = vec![0.0f32; num_actions];
        for (b, &index) in indices.iter().enumerate() {
            let sample = &self.view[index];
            let symmetry = &symmetries[rng.random_range(0..symmetries.len().max(1))];
            let row = b * num_actions..(b + 1) * num_actions;
            symmetry.map_obs(&sample.obs, &mut batch.obs[b * obs_len..(b + 1) * obs_len]);
            scatter(&mut dense, sample.policy.iter().copied());
            symmetry.map_policy(&dense, &mut batch.policy[row.clone()]);
            scatter(&mut dense, sample.legal.iter().map(|&a| (a, 1.0)));
            symmetry.map_policy(&dense, &mut batch.mask[row.clone()]);
            if let Some(reply) = &sample.reply {
                scatter(&mut dense, reply.iter().copied());
                symmetry.map_policy(&dense, &mut batch.reply[row]);
                batch.has_reply[b] = 1.0;
            }
            batch.value[b] = sample.value;
        }
        batch
    }

    /// A minibatch of `size` samples drawn by weight.
    pub fn sample_batch(
        &self,
        size: usize,
        num_actions: usize,
        symmetries: &[Symmetry],
        rng: &mut impl Rng,
    ) -> Batch {
        let indices = self.draw_indices(size, false, rng);
        self.batch(&indices, num_actions, symmetries, rng)
    }
}

/// The parts of a count-weighted draw (CGZero: fifths).
pub const COUNT_TIERS: usize = 5;

fn scatter(dense: &mut [f32], entries: impl Iterator<Item = (Action, f32)>) {
    dense.fill(0.0);
    for (a, p) in entries {
        dense[a] = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::SmallRng, SeedableRng};
    use zerosum_games::connect_four::ConnectFour;

    fn sample(key: u64, value: f32, generation: u64) -> Sample {
        Sample {
            key,
            obs: vec![value; 84],
            legal: vec![0, 1],
            policy: vec![(0, 0.25), (1, 0.75)],
            value,
            reply: None,
            count: 1,
            weight: 1.0,
            generation,
        }
    }

    fn config(window: usize, min_generations: usize) -> ReplayConfig {
        ReplayConfig {
            window_positions: window,
            min_generations,
            ..Default::default()
        }
    }

    #[test]
    fn window_drops_old_generations_but_keeps_the_minimum() {
        let mut buffer = ReplayBuffer::new(&config(10, 2));
        buffer.add_generation(1, (0..8).map(|i| sample(i, 1.0, 1)).collect());
        buffer.add_generation(2, (0..8).map(|i| sample(i, 2.0, 2)).collect());
        assert_eq!(buffer.generations(), vec![1, 2]);
        buffer.add_generation(3, (0..8).map(|i| sample(i, 3.0, 3)).collect());
        assert_eq!(buffer.generations(), vec![2, 3]);
        assert_eq!(buffer.len(), 16);
    }

    #[test]
    fn batches_keep_policy_and_mask_together_under_symmetry() {
        let game = ConnectFour::new();
        let symmetries = game.symmetries();
        let mut buffer = ReplayBuffer::new(&config(100, 1));
        buffer.add_generation(1, vec![sample(1, 0.5, 1)]);
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

    #[test]
    fn merged_samples_average_their_targets_and_carry_their_count() {
        let mut a = sample(7, 1.0, 1);
        a.policy = vec![(0, 1.0), (1, 0.0)];
        let mut b = sample(7, -1.0, 2);
        b.policy = vec![(0, 0.0), (1, 1.0)];
        let mut c = sample(7, 1.0, 3);
        c.policy = vec![(0, 1.0), (1, 0.0)];
        let other = sample(8, 0.5, 1);
        let merged = merge_duplicates(vec![a, b, c, other]);
        assert_eq!(merged.len(), 2);
        let m = merged.iter().find(|s| s.key == 7).unwrap();
        assert_eq!(m.count, 3);
        assert!((m.value - 1.0 / 3.0).abs() < 1e-6);
        assert!(
            (m.policy[0].1 - 2.0 / 3.0).abs() < 1e-6 && (m.policy[1].1 - 1.0 / 3.0).abs() < 1e-6
        );
        assert_eq!(m.generation, 3);
        // Merging merged samples weighs them by their counts.
        let again = merge_duplicates(vec![m.clone(), sample(7, -1.0, 4)]);
        assert_eq!(again[0].count, 4);
        assert!((again[0].value - 0.0).abs() < 1e-6);
    }

    #[test]
    fn older_generations_are_drawn_less_when_decayed_and_first_under_curriculum() {
        let mut buffer = ReplayBuffer::new(&ReplayConfig {
            generation_decay: 0.25,
            ..config(1000, 1)
        });
        buffer.add_generation(1, (0..100).map(|i| sample(i, 0.0, 1)).collect());
        buffer.add_generation(2, (100..200).map(|i| sample(i, 0.0, 2)).collect());
        let mut rng = SmallRng::seed_from_u64(1);
        let indices = buffer.draw_indices(10_000, false, &mut rng);
        let old = indices
            .iter()
            .filter(|&&i| buffer.samples()[i].generation == 1)
            .count() as f64;
        assert!(
            (old / 10_000.0 - 0.2).abs() < 0.03,
            "share of the old generation {}",
            old / 10_000.0
        );
        let ordered = buffer.draw_indices(500, true, &mut rng);
        let generations: Vec<u64> = ordered
            .iter()
            .map(|&i| buffer.samples()[i].generation)
            .collect();
        assert!(generations.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn value_target_mixes_q_in_as_the_game_goes_on() {
        use zerosum_store::record::MoveStats;
        let game = ConnectFour::new();
        let actions = vec![0, 1, 0, 1, 0, 1, 0];
        let stats = actions
            .iter()
            .map(|_| {
                Some(MoveStats {
                    policy: vec![(0, 1.0)],
                    value: 0.0,
                    surprise: 0.0,
                })
            })
            .collect();
        let record = GameRecord::new(&game, ["a".into(), "b".into()], actions, stats);
        assert_eq!(record.value_first, 1.0);
        let pure = samples_from_record(&game, &record, ValueTarget::RESULT, 1);
        assert_eq!(
            pure.iter().map(|s| s.value).collect::<Vec<_>>(),
            vec![1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0]
        );
        let mixed = samples_from_record(
            &game,
            &record,
            ValueTarget {
                q_mix: 1.0,
                ..ValueTarget::RESULT
            },
            1,
        );
        // k = ply / 7 with q = 0: the target shrinks towards 0 as the game goes on.
        for (ply, s) in mixed.iter().enumerate() {
            let z = pure[ply].value;
            assert!((s.value - (1.0 - ply as f32 / 7.0) * z).abs() < 1e-6);
        }
        // Each sample's reply target is the next move's policy (the opponent moves next).
        assert!(mixed[..6].iter().all(|s| s.reply.is_some()));
        assert!(mixed[6].reply.is_none());
        // Discounted by the plies left: 0.5^1 at the winning move (ply 6), 0.5^7 at the first.
        let discounted = samples_from_record(
            &game,
            &record,
            ValueTarget {
                discount: 0.5,
                ..ValueTarget::RESULT
            },
            1,
        );
        for (ply, s) in discounted.iter().enumerate() {
            let want = pure[ply].value * 0.5f32.powi(7 - ply as i32);
            assert!(
                (s.value - want).abs() < 1e-6,
                "ply {ply}: {} {want}",
                s.value
            );
        }
    }

    /// Go 5x5 at komi 0.5, black fills the board's centre and both pass: black wins by
    /// 25 - 0.5 = 24.5 (one stone owns the whole board by area), and the score's share of
    /// the target says by how much.
    #[test]
    fn value_target_blends_the_final_score_in_by_its_weight() {
        use zerosum_games::go::Go;
        use zerosum_store::record::MoveStats;
        let game = Go::new();
        let pass = game.num_actions() - 1;
        let actions = vec![12, pass, pass];
        let stats = vec![
            Some(MoveStats {
                policy: vec![(12, 1.0)],
                value: 0.0,
                surprise: 0.0,
            }),
            Some(MoveStats {
                policy: vec![(pass, 1.0)],
                value: 0.0,
                surprise: 0.0,
            }),
            None,
        ];
        let record = GameRecord::new(&game, ["a".into(), "b".into()], actions, stats);
        assert_eq!(record.value_first, 1.0);
        let target = |score_weight| ValueTarget {
            score_weight,
            score_scale: 10.0,
            ..ValueTarget::RESULT
        };
        let values = |score_weight| -> Vec<f32> {
            samples_from_record(&game, &record, target(score_weight), 1)
                .iter()
                .map(|s| s.value)
                .collect()
        };
        assert_eq!(values(0.0), vec![1.0, -1.0]);
        let blended = 0.5 + 0.5 * (2.45f32).tanh();
        let got = values(0.5);
        assert!((got[0] - blended).abs() < 1e-6, "{got:?}");
        assert!((got[1] + blended).abs() < 1e-6, "{got:?}");
        // Games without a score keep the result whatever the weight.
        let c4 = ConnectFour::new();
        let c4_record = GameRecord::new(
            &c4,
            ["a".into(), "b".into()],
            vec![0, 1, 0, 1, 0, 1, 0],
            vec![None; 6]
                .into_iter()
                .chain([Some(MoveStats {
                    policy: vec![(0, 1.0)],
                    value: 0.0,
                    surprise: 0.0,
                })])
                .collect(),
        );
        let won = samples_from_record(&c4, &c4_record, target(0.5), 1);
        assert_eq!(won[0].value, 1.0);
    }

    /// Both pass at once: white wins by the komi, 0.5. The blended outcome is discounted by
    /// the plies left and mixed with the search's value like the result alone.
    #[test]
    fn the_score_blend_is_seen_by_each_mover_discounted_and_mixed_with_q() {
        use zerosum_games::go::Go;
        use zerosum_store::record::MoveStats;
        let game = Go::new();
        let pass = game.num_actions() - 1;
        let stats = Some(MoveStats {
            policy: vec![(pass, 1.0)],
            value: 0.2,
            surprise: 0.0,
        });
        let record = GameRecord::new(
            &game,
            ["a".into(), "b".into()],
            vec![pass, pass],
            vec![stats.clone(), stats],
        );
        assert_eq!(record.value_first, -1.0);
        let target = ValueTarget {
            q_mix: 1.0,
            discount: 0.5,
            score_weight: 0.25,
            score_scale: 10.0,
        };
        let got: Vec<f32> = samples_from_record(&game, &record, target, 1)
            .iter()
            .map(|s| s.value)
            .collect();
        let black = -0.75 + 0.25 * (-0.05f32).tanh();
        // Black moved with two plies left and k = 0; white with one left and k = 1/2.
        let want = [black * 0.25, 0.5 * 0.2 + 0.5 * (-black * 0.5)];
        for (got, want) in got.iter().zip(want) {
            assert!((got - want).abs() < 1e-6, "{got} {want}");
        }
        assert_eq!(got.len(), 2);
    }

    /// CGZero's scheme: of 100 samples with counts 100 down to 1, the most frequent fifth
    /// is in every tier of the draw, the least frequent only in the last, so the fifths are
    /// drawn (1/5)(1 + 1/2 + 1/3 + 1/4 + 1/5), (1/5)(1/2 + ... + 1/5), ..., (1/5)(1/5).
    #[test]
    fn the_count_weighted_subset_draws_frequent_positions_more_by_tiers() {
        let mut buffer = ReplayBuffer::new(&ReplayConfig {
            merge_duplicates: true,
            subset: Subset::CountWeighted,
            ..config(1000, 1)
        });
        let samples = (0..100u32).map(|i| Sample {
            count: 100 - i,
            ..sample(i as u64, 0.0, 1)
        });
        buffer.add_generation(1, samples.collect());
        let mut rng = SmallRng::seed_from_u64(2);
        let draws = 100_000;
        let indices = buffer.draw_indices(draws, false, &mut rng);
        let mut fifths = [0.0; 5];
        for &i in &indices {
            let rank = 100 - buffer.samples()[i].count as usize;
            fifths[rank / 20] += 1.0 / draws as f64;
        }
        for (fifth, share) in fifths.iter().enumerate() {
            let want: f64 = (fifth + 1..=5).map(|t| 0.2 / t as f64).sum();
            assert!(
                (share - want).abs() < 0.01,
                "fifth {fifth}: {share} against {want}"
            );
        }
        // The tiers are mixed through the draw, not handed to the learner in order.
        let first: f64 = indices[..draws / 5]
            .iter()
            .filter(|&&i| buffer.samples()[i].count > 80)
            .count() as f64
            / (draws / 5) as f64;
        assert!((first - fifths[0]).abs() < 0.02, "{first}");
    }

    /// KataGo's weighting: a game's weights keep its total, half spread evenly and half by
    /// surprise, and the draw follows them.
    #[test]
    fn surprising_positions_are_weighted_up_and_drawn_more() {
        use zerosum_store::record::MoveStats;
        let game = ConnectFour::new();
        let actions = vec![0, 1, 0, 1];
        let surprises = [0.0f32, 1.0, 3.0, 0.0];
        let stats = surprises
            .iter()
            .map(|&surprise| {
                Some(MoveStats {
                    policy: vec![(0, 1.0)],
                    value: 0.0,
                    surprise,
                })
            })
            .collect();
        let record = GameRecord::new(&game, ["a".into(), "b".into()], actions, stats);
        let mut samples = samples_from_record(&game, &record, ValueTarget::RESULT, 1);
        weigh_by_surprise(&mut samples, &record, 0.5);
        let weights: Vec<f32> = samples.iter().map(|s| s.weight).collect();
        // Mean surprise 1: 0.5 + 0.5 * surprise.
        assert_eq!(weights, vec![0.5, 1.0, 2.0, 0.5]);
        let mut buffer = ReplayBuffer::new(&config(1000, 1));
        buffer.add_generation(1, samples);
        let mut rng = SmallRng::seed_from_u64(4);
        let mut drawn = [0.0; 4];
        for i in buffer.draw_indices(40_000, false, &mut rng) {
            drawn[i] += 1.0 / 40_000.0;
        }
        for (share, weight) in drawn.iter().zip(&weights) {
            assert!((share - *weight as f64 / 4.0).abs() < 0.01, "{drawn:?}");
        }
        // A game without surprises, or a share of 0, keeps plain weights.
        let mut plain = samples_from_record(&game, &record, ValueTarget::RESULT, 1);
        weigh_by_surprise(&mut plain, &record, 0.0);
        assert!(plain.iter().all(|s| s.weight == 1.0));
    }
}
