//! Gumbel AlphaZero's root: Sequential Halving spends exactly the budget, and the action
//! it returns is the one that survived the halving.

mod common;

use common::{play, FnEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::{Action, Game};
use zerosum_search::{search_one, Algorithm, EvalCache, SearchConfig, Tree, UniformEvaluator};

fn gumbel(num_considered: usize, solver: bool) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Gumbel,
        gumbel_considered: num_considered,
        solver,
        ..SearchConfig::default()
    }
}

fn root_visits(tree: &Tree<TicTacToe>) -> Vec<(Action, u32)> {
    tree.result(&SearchConfig::default()).visits
}

#[test]
fn sequential_halving_spends_exactly_the_budget() {
    for (budget, considered) in [(16, 4), (50, 16), (9, 2), (200, 8)] {
        let mut tree = Tree::new(TicTacToe::new());
        let mut rng = SmallRng::seed_from_u64(budget as u64);
        search_one(
            &mut tree,
            &mut UniformEvaluator,
            &gumbel(considered, false),
            budget,
            &mut EvalCache::new(0),
            &mut rng,
        );
        assert_eq!(tree.root().visits as usize, budget);
        let visits = root_visits(&tree);
        let spent: u32 = visits.iter().map(|v| v.1).sum();
        assert_eq!(
            spent as usize,
            budget - 1,
            "the root's expansion is the first simulation"
        );
        let visited = visits.iter().filter(|v| v.1 > 0).count();
        assert_eq!(visited, considered.min(9), "exactly m actions are sampled");
    }
}

#[test]
fn the_survivor_is_the_most_visited_and_is_played() {
    let mut tree = Tree::new(TicTacToe::new());
    let mut rng = SmallRng::seed_from_u64(3);
    search_one(
        &mut tree,
        &mut UniformEvaluator,
        &gumbel(8, false),
        64,
        &mut EvalCache::new(0),
        &mut rng,
    );
    let visits = root_visits(&tree);
    let max = visits.iter().map(|v| v.1).max().unwrap();
    let chosen = tree.choose_action(1.0, &mut rng).unwrap();
    let chosen_visits = visits.iter().find(|v| v.0 == chosen).unwrap().1;
    assert_eq!(chosen_visits, max, "{visits:?}, chose {chosen}");
    // Halving: after the last phase at most two actions hold the top visit counts.
    let at_top = visits.iter().filter(|v| v.1 + 2 >= max).count();
    assert!(at_top <= 2, "{visits:?}");
}

#[test]
fn improved_policy_is_a_distribution_that_favours_the_better_move() {
    // x: a1 a2, o: b1 b2; x to move wins at a3. A value-aware evaluator: the network's
    // value is the truth only at the winning move's position, which the search must find.
    let position = play(TicTacToe::new(), &["a1", "b1", "a2", "b2"]);
    let mut evaluator = FnEvaluator(|_: &TicTacToe, logits: &mut [f32]| {
        logits.fill(0.0);
        0.0f32
    });
    let mut tree = Tree::new(position);
    let mut rng = SmallRng::seed_from_u64(5);
    search_one(
        &mut tree,
        &mut evaluator,
        &gumbel(16, false),
        32,
        &mut EvalCache::new(0),
        &mut rng,
    );
    let result = tree.result(&SearchConfig::default());
    let total: f32 = result.policy_target.iter().map(|p| p.1).sum();
    assert!((total - 1.0).abs() < 1e-5);
    let win = position.parse_action("a3").unwrap();
    let best = result
        .policy_target
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
        .0;
    assert_eq!(best, win, "{:?}", result.policy_target);
    assert_eq!(tree.choose_action(0.0, &mut rng), Some(win));
}

#[test]
fn gumbel_trees_start_afresh_after_a_move() {
    let config = gumbel(4, true);
    assert!(!config.keeps_subtree());
    let mut tree = Tree::new(TicTacToe::new());
    let mut rng = SmallRng::seed_from_u64(9);
    search_one(
        &mut tree,
        &mut UniformEvaluator,
        &config,
        20,
        &mut EvalCache::new(0),
        &mut rng,
    );
    let action = tree.choose_action(0.0, &mut rng).unwrap();
    tree.advance(action, config.keeps_subtree());
    assert_eq!(tree.root().visits, 0);
    search_one(
        &mut tree,
        &mut UniformEvaluator,
        &config,
        20,
        &mut EvalCache::new(0),
        &mut rng,
    );
    assert_eq!(tree.root().visits, 20);
}
