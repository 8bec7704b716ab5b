//! One search, several leaves per evaluator call: virtual loss spreads them, takes itself
//! back, and the search finds what one leaf at a time finds.

mod common;

use common::{play, Counting, FnEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_search::{search_one, EvalCache, Evaluator, NodeId, SearchConfig, Tree};

/// Priors far from uniform and values that vary, both from the position's hash.
fn hashed<G: Game>() -> impl Evaluator<G> {
    FnEvaluator(|position: &G, logits: &mut [f32]| {
        let hash = Game::hash(position);
        for (a, logit) in logits.iter_mut().enumerate() {
            *logit = ((hash >> (a % 60)) & 15) as f32 * 0.2;
        }
        ((hash >> 7) % 201) as f32 / 100.0 - 1.0
    })
}

fn searched<G: Game>(
    root: G,
    config: &SearchConfig,
    sims: usize,
    seed: u64,
) -> (Tree<G>, Counting<impl Evaluator<G>>) {
    let mut tree = Tree::new(root);
    let mut evaluator = Counting::new(hashed());
    let mut rng = SmallRng::seed_from_u64(seed);
    search_one(
        &mut tree,
        &mut evaluator,
        config,
        sims,
        &mut EvalCache::new(0),
        &mut rng,
    );
    (tree, evaluator)
}

fn with_leaves(leaves: usize, solver: bool) -> SearchConfig {
    SearchConfig {
        leaves,
        solver,
        ..SearchConfig::default()
    }
}

#[test]
fn the_root_gets_exactly_the_asked_simulations_and_no_virtual_visit_stays() {
    for leaves in [2, 8, 64] {
        for sims in [1, 7, 200] {
            let (tree, _) = searched(ConnectFour::new(), &with_leaves(leaves, false), sims, 5);
            assert_eq!(tree.root().visits as usize, sims, "leaves {leaves}");
            // Without the solver every expanded node that is not a finished game took one
            // visit of its own and passed the rest to its children: a virtual loss left
            // behind would show as visits its children do not account for.
            for id in (0..tree.len() as u32).map(NodeId) {
                let node = tree.node(id);
                if node.num_children > 0 {
                    let below: u32 = node.children().map(|c| tree.node(c).visits).sum();
                    assert_eq!(node.visits, below + 1, "leaves {leaves}, sims {sims}");
                }
                assert!(node.value_sum.abs() <= node.visits as f32 + 1e-3);
            }
        }
    }
}

#[test]
fn leaves_share_calls_and_spread_over_the_tree() {
    let (_, one) = searched(ConnectFour::new(), &with_leaves(1, true), 400, 6);
    let (tree, eight) = searched(ConnectFour::new(), &with_leaves(8, true), 400, 6);
    assert!(one.batches.iter().all(|&b| b == 1));
    let mean = eight.positions() as f64 / eight.batches.len() as f64;
    assert!(mean > 4.0, "mean batch {mean}: {:?}", eight.batches);
    assert!(eight.batches.iter().all(|&b| b <= 8));
    // Each leaf of a batch is a different position.
    assert!(eight.positions() <= tree.len());
}

#[test]
fn several_leaves_find_what_one_leaf_finds() {
    // Connect four: a win in one at column a, and a threat to block at column a.
    let win = play(ConnectFour::new(), &["a", "b", "a", "b", "a", "c"]);
    let block = play(ConnectFour::new(), &["a", "b", "a", "b", "a"]);
    // Tic-tac-toe: x blocks at b3 or loses.
    let fork = play(TicTacToe::new(), &["a1", "b1", "c3", "b2"]);
    for leaves in [1, 4, 16] {
        for (position, best) in [(win, "a"), (block, "a")] {
            let (tree, _) = searched(position, &with_leaves(leaves, true), 300, 7);
            let action = tree.choose_action(0.0, &mut SmallRng::seed_from_u64(0));
            assert_eq!(
                action.map(|a| position.format_action(a)).as_deref(),
                Some(best)
            );
        }
        let (tree, _) = searched(fork, &with_leaves(leaves, true), 300, 7);
        let action = tree.choose_action(0.0, &mut SmallRng::seed_from_u64(0));
        assert_eq!(action.map(|a| fork.format_action(a)).as_deref(), Some("b3"));
    }
}

#[test]
fn one_leaf_is_the_lockstep_search_unchanged() {
    let position = play(ConnectFour::new(), &["d", "d", "c"]);
    let (a, ea) = searched(position, &SearchConfig::default(), 300, 9);
    let (b, eb) = searched(position, &with_leaves(1, true), 300, 9);
    assert_eq!(ea.batches, eb.batches);
    assert_eq!(
        a.result(&SearchConfig::default()),
        b.result(&SearchConfig::default())
    );
}
