//! The lockstep driver: one simulation per tree per step around one batched evaluator call.

mod common;

use common::{play, Counting, FnEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_search::{
    run_simulations, search_one, EvalCache, Evaluator, RolloutEvaluator, Scratch, SearchConfig,
    Tree, UniformEvaluator,
};

/// Positions of every kind: fresh, mid-game, a win in one, a lost one and a finished game.
fn positions() -> Vec<TicTacToe> {
    [
        &[][..],
        &["b2"][..],
        &["a1", "b2", "a2"][..],
        &["a1", "b1", "a2", "b2"][..],
        &["b2", "a3", "b3", "c1", "a2"][..],
        &["a1", "b1", "a2", "b2", "a3"][..],
    ]
    .iter()
    .map(|moves| play(TicTacToe::new(), moves))
    .collect()
}

/// A deterministic evaluator with priors far from uniform and values that vary.
fn hashed() -> impl Evaluator<TicTacToe> {
    FnEvaluator(|position: &TicTacToe, logits: &mut [f32]| {
        let hash = Game::hash(position);
        for (a, logit) in logits.iter_mut().enumerate() {
            *logit = ((hash >> (3 * a)) & 7) as f32 * 0.3;
        }
        ((hash >> 40) % 101) as f32 / 50.0 - 1.0
    })
}

#[test]
fn every_root_gets_exactly_the_asked_simulations() {
    let mut trees: Vec<Tree<TicTacToe>> = positions().into_iter().map(Tree::new).collect();
    let live = trees
        .iter()
        .filter(|t| !t.root_position().is_terminal())
        .count();
    let mut evaluator = Counting::new(RolloutEvaluator::new(3, 2));
    let mut cache = EvalCache::new(1000);
    let mut scratch = Scratch::new();
    let mut rng = SmallRng::seed_from_u64(3);
    let config = SearchConfig::default();
    for (call, num_simulations) in [(1, 1), (2, 60), (3, 25)] {
        let before: Vec<u32> = trees.iter().map(|t| t.root().visits).collect();
        let batches = evaluator.batches.len();
        run_simulations(
            &mut trees,
            &mut evaluator,
            &config,
            num_simulations,
            &mut cache,
            &mut scratch,
            &mut rng,
        );
        for (tree, before) in trees.iter().zip(before) {
            let added = tree.root().visits - before;
            if tree.root_position().is_terminal() {
                assert_eq!(added, 0);
                assert!(tree.is_empty());
            } else {
                assert_eq!(added as usize, num_simulations, "call {call}");
            }
        }
        // At most one evaluator call per step, each with at most one position per live tree.
        let new_batches = &evaluator.batches[batches..];
        assert!(new_batches.len() <= num_simulations);
        assert!(
            new_batches.iter().all(|&b| (1..=live).contains(&b)),
            "{new_batches:?}"
        );
    }
    // The first step needs every live root evaluated, together.
    assert_eq!(evaluator.batches[0], live);
}

#[test]
fn lockstep_matches_searching_each_tree_alone() {
    let config = SearchConfig::default();
    for capacity in [0, 100_000] {
        let mut together: Vec<Tree<TicTacToe>> = positions().into_iter().map(Tree::new).collect();
        let mut rng = SmallRng::seed_from_u64(5);
        let mut cache = EvalCache::new(capacity);
        run_simulations(
            &mut together,
            &mut hashed(),
            &config,
            300,
            &mut cache,
            &mut Scratch::new(),
            &mut rng,
        );
        for (position, tree) in positions().into_iter().zip(&together) {
            let mut alone = Tree::new(position);
            let mut cache = EvalCache::new(capacity);
            search_one(
                &mut alone,
                &mut hashed(),
                &config,
                300,
                &mut cache,
                &mut rng,
            );
            assert_eq!(
                alone.result(&SearchConfig::default()),
                tree.result(&SearchConfig::default()),
                "{position}"
            );
            assert_eq!(alone.len(), tree.len());
        }
    }
}

#[test]
fn repeated_calls_add_up_to_one_long_call() {
    // With a deterministic evaluator, 3 x 100 simulations are 300 simulations.
    let config = SearchConfig::default();
    let mut rng = SmallRng::seed_from_u64(5);
    let mut cache = EvalCache::new(0);
    let mut once = Tree::new(TicTacToe::new());
    search_one(
        &mut once,
        &mut UniformEvaluator,
        &config,
        300,
        &mut cache,
        &mut rng,
    );
    let mut thrice = Tree::new(TicTacToe::new());
    for _ in 0..3 {
        search_one(
            &mut thrice,
            &mut UniformEvaluator,
            &config,
            100,
            &mut cache,
            &mut rng,
        );
    }
    assert_eq!(
        once.result(&SearchConfig::default()),
        thrice.result(&SearchConfig::default())
    );
    assert_eq!(once.root().visits, 300);
}

#[test]
fn tree_reuse_in_lockstep_keeps_counting_right() {
    // Self-play's loop: search, play the chosen move keeping the subtree, search again.
    let config = SearchConfig::default();
    let mut trees: Vec<Tree<TicTacToe>> = (0..4).map(|_| Tree::new(TicTacToe::new())).collect();
    let mut evaluator = Counting::new(RolloutEvaluator::new(1, 1));
    let mut cache = EvalCache::new(10_000);
    let mut scratch = Scratch::new();
    let mut rng = SmallRng::seed_from_u64(12);
    for tree in &mut trees {
        tree.begin_search(zerosum_search::SearchMode::SelfPlay, &config, &mut rng);
    }
    for _ in 0..4 {
        let before: Vec<u32> = trees.iter().map(|t| t.root().visits).collect();
        run_simulations(
            &mut trees,
            &mut evaluator,
            &config,
            50,
            &mut cache,
            &mut scratch,
            &mut rng,
        );
        for (tree, before) in trees.iter_mut().zip(before) {
            assert_eq!(tree.root().visits, before + 50);
            let action = tree.choose_action(1.0, &mut rng).unwrap();
            let kept = tree
                .node(tree.child(zerosum_search::NodeId::ROOT, action).unwrap())
                .visits;
            tree.advance(action, true);
            assert_eq!(tree.root().visits, kept);
            for child in tree.root().children() {
                assert!(tree.root_position().is_legal(tree.node(child).action));
            }
        }
        assert!(evaluator.batches.iter().all(|&b| b <= 4));
    }
}

/// Regression: caching a random playout's result froze its noise into every later visit of
/// the position, and made rollout MCTS with 1000 simulations lose to 200.
#[test]
fn rollout_results_are_never_cached() {
    use rand::{rngs::SmallRng, SeedableRng};
    use zerosum_games::connect_four::ConnectFour;
    use zerosum_search::{search_one, EvalCache, RolloutEvaluator, SearchConfig, Tree};
    let mut cache = EvalCache::new(1000);
    let mut tree = Tree::new(ConnectFour::new());
    let mut rng = SmallRng::seed_from_u64(1);
    search_one(
        &mut tree,
        &mut RolloutEvaluator::new(1, 1),
        &SearchConfig::default(),
        300,
        &mut cache,
        &mut rng,
    );
    assert_eq!(
        cache.hits + cache.misses,
        0,
        "the cache was consulted for rollouts"
    );
}

/// Forced playouts: at a noised root every visited child reaches sqrt(k * P * N) visits.
#[test]
fn forced_playouts_give_every_visited_root_child_its_share() {
    use rand::{rngs::SmallRng, SeedableRng};
    use zerosum_games::tic_tac_toe::TicTacToe;
    use zerosum_search::{search_one, EvalCache, SearchConfig, Tree, UniformEvaluator};
    let config = SearchConfig {
        forced_playouts_k: 2.0,
        solver: false,
        ..SearchConfig::default()
    };
    let mut tree = Tree::new(TicTacToe::new());
    let mut rng = SmallRng::seed_from_u64(4);
    tree.begin_search(zerosum_search::SearchMode::SelfPlay, &config, &mut rng);
    search_one(
        &mut tree,
        &mut UniformEvaluator,
        &config,
        400,
        &mut EvalCache::new(0),
        &mut rng,
    );
    let total: u32 = tree
        .result(&SearchConfig::default())
        .visits
        .iter()
        .map(|v| v.1)
        .sum();
    for id in tree.root().children() {
        let child = tree.node(id);
        let forced = (2.0 * child.prior * total as f32).sqrt();
        if child.visits > 0 {
            assert!(
                child.visits as f32 + 1.0 >= forced,
                "{} visits, forced {forced}",
                child.visits
            );
        }
    }
}
