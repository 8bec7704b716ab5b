//! Self-play: B games per thread searched in lockstep, one batched network call per step.

use std::time::Instant;

use rand::rngs::SmallRng;
use zerosum_games::{Action, Game};
use zerosum_search::{run_simulations, EvalCache, Evaluator, Scratch, SearchConfig, Tree};

use crate::config::SelfPlayConfig;
use crate::record::{GameRecord, MoveStats};

/// Counters of one self-play session.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayCounters {
    /// Games finished.
    pub games: u64,
    /// Positions recorded (moves played).
    pub positions: u64,
    /// Simulations run, all trees together.
    pub simulations: u64,
    /// Positions sent to the evaluator.
    pub evaluations: u64,
    /// Evaluator calls.
    pub calls: u64,
    /// Leaf lookups answered by the cache.
    pub cache_hits: u64,
    /// Seconds of wall time.
    pub seconds: f64,
}

impl SelfPlayCounters {
    /// Adds another worker's counters (wall time is the longest of the two).
    pub fn merge(&mut self, other: &SelfPlayCounters) {
        self.games += other.games;
        self.positions += other.positions;
        self.simulations += other.simulations;
        self.evaluations += other.evaluations;
        self.calls += other.calls;
        self.cache_hits += other.cache_hits;
        self.seconds = self.seconds.max(other.seconds);
    }
}

/// Counts what passes through an evaluator.
struct Counting<'a, E: ?Sized> {
    inner: &'a mut E,
    calls: u64,
    positions: u64,
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Counting<'_, E> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        self.calls += 1;
        self.positions += positions.len() as u64;
        self.inner.evaluate(positions, logits, values)
    }
}

struct Slot {
    actions: Vec<Action>,
    stats: Vec<MoveStats>,
}

/// Plays `num_games` self-play games from `initial`, `config.batch_games` at a time in
/// lockstep, and hands each finished game to `on_game` as soon as it ends.
pub fn self_play<G: Game, E: Evaluator<G> + ?Sized>(
    initial: &G,
    evaluator: &mut E,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    num_games: usize,
    rng: &mut SmallRng,
    mut on_game: impl FnMut(GameRecord),
) -> SelfPlayCounters {
    let start = Instant::now();
    let mut counters = SelfPlayCounters::default();
    let mut cache = EvalCache::new(search.cache_capacity);
    let mut scratch = Scratch::new();
    let mut counting = Counting {
        inner: evaluator,
        calls: 0,
        positions: 0,
    };
    let new_tree = || {
        let mut tree = Tree::new(initial.clone());
        tree.root_noise = config.root_noise;
        tree
    };
    let active = config.batch_games.min(num_games);
    let mut trees: Vec<Tree<G>> = (0..active).map(|_| new_tree()).collect();
    let mut slots: Vec<Slot> = (0..active)
        .map(|_| Slot {
            actions: Vec::new(),
            stats: Vec::new(),
        })
        .collect();
    let mut started = active;
    while !trees.is_empty() {
        // With tree reuse a root may already hold visits; each move gets the same number of
        // new simulations, so all trees stay in step.
        run_simulations(
            &mut trees,
            &mut counting,
            search,
            search.num_simulations,
            &mut cache,
            &mut scratch,
            rng,
        );
        counters.simulations += (search.num_simulations * trees.len()) as u64;
        let mut index = 0;
        while index < trees.len() {
            let tree = &mut trees[index];
            let slot = &mut slots[index];
            let ply = slot.actions.len();
            let temperature = if ply < config.temperature_plies {
                config.temperature
            } else {
                0.0
            };
            let result = tree.result();
            let action = tree
                .choose_action(temperature, rng)
                .expect("trees of unfinished games have children");
            slot.stats.push(MoveStats {
                policy: result.policy_target,
                value: result.root_value,
            });
            slot.actions.push(action);
            tree.advance(action, search.keeps_subtree());
            if config.root_noise && tree.root().expanded {
                tree.add_root_noise(search.dirichlet_alpha, search.dirichlet_epsilon, rng);
            }
            if !tree.root_position().is_terminal() {
                index += 1;
                continue;
            }
            let finished = std::mem::replace(
                slot,
                Slot {
                    actions: Vec::new(),
                    stats: Vec::new(),
                },
            );
            counters.games += 1;
            counters.positions += finished.actions.len() as u64;
            on_game(GameRecord::new(
                initial,
                ["self-play".to_string(), "self-play".to_string()],
                finished.actions,
                finished.stats,
            ));
            if started < num_games {
                started += 1;
                trees[index] = new_tree();
                index += 1;
            } else {
                trees.swap_remove(index);
                slots.swap_remove(index);
            }
        }
    }
    counters.evaluations = counting.positions;
    counters.calls = counting.calls;
    counters.cache_hits = cache.hits;
    counters.seconds = start.elapsed().as_secs_f64();
    counters
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use zerosum_games::tic_tac_toe::TicTacToe;
    use zerosum_search::UniformEvaluator;

    #[test]
    fn plays_exactly_the_games_asked_with_targets_for_every_move() {
        let search = SearchConfig {
            num_simulations: 16,
            ..Default::default()
        };
        let config = SelfPlayConfig {
            batch_games: 4,
            ..Default::default()
        };
        let mut records = Vec::new();
        let counters = self_play(
            &TicTacToe::new(),
            &mut UniformEvaluator,
            &search,
            &config,
            10,
            &mut SmallRng::seed_from_u64(5),
            |r| records.push(r),
        );
        assert_eq!(records.len(), 10);
        assert_eq!(counters.games, 10);
        for record in &records {
            assert_eq!(record.actions.len(), record.stats.len());
            let positions = record.replay(&TicTacToe::new()).unwrap();
            assert_eq!(positions.len(), record.actions.len());
            for (position, stats) in positions.iter().zip(&record.stats) {
                let total: f32 = stats.policy.iter().map(|p| p.1).sum();
                assert!((total - 1.0).abs() < 1e-5);
                assert!(stats.policy.iter().all(|&(a, _)| position.is_legal(a)));
            }
        }
        assert!(counters.evaluations <= counters.simulations);
    }
}
