//! Forced wins, blocks and proofs at tic-tac-toe and connect four, whose answers are known.

mod common;

use std::collections::HashMap;

use common::{check_proofs, check_value_sums, child_bound_for_root, exact_value, play};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_search::{
    search_one, Bound, EvalCache, Evaluator, RolloutEvaluator, SearchConfig, Tree, UniformEvaluator,
};

/// Searches `position` with `num_simulations` and returns the tree.
fn search<G: Game>(
    position: G,
    evaluator: &mut impl Evaluator<G>,
    solver: bool,
    num_simulations: usize,
) -> Tree<G> {
    let config = SearchConfig {
        solver,
        ..SearchConfig::default()
    };
    let mut tree = Tree::new(position);
    let mut rng = SmallRng::seed_from_u64(21);
    search_one(
        &mut tree,
        evaluator,
        &config,
        num_simulations,
        &mut EvalCache::new(0),
        &mut rng,
    );
    tree
}

/// The move the search plays, in notation.
fn best_move<G: Game>(tree: &Tree<G>) -> String {
    let mut rng = SmallRng::seed_from_u64(1);
    let action = tree.choose_action(0.0, &mut rng).expect("the game goes on");
    tree.root_position().format_action(action)
}

/// x: a1 a2, o: b1 b2, x to move: a3 wins (and o threatens b3).
const WIN_IN_ONE: [&str; 4] = ["a1", "b1", "a2", "b2"];
/// x: a1 a2, o: b2, o to move: o must block at a3.
const MUST_BLOCK: [&str; 3] = ["a1", "b2", "a2"];
/// x: b2 b3 a2, o: a3 c1, o to move: x threatens b1 and c2 at once, so o is lost.
const LOST: [&str; 5] = ["b2", "a3", "b3", "c1", "a2"];

#[test]
fn rollouts_find_a_win_in_one() {
    for solver in [false, true] {
        let position = play(TicTacToe::new(), &WIN_IN_ONE);
        let tree = search(position, &mut RolloutEvaluator::new(1, 1), solver, 200);
        assert_eq!(best_move(&tree), "a3", "solver {solver}");
        assert!(
            tree.result(&SearchConfig::default()).root_value > 0.5,
            "{:?}",
            tree.result(&SearchConfig::default())
        );
    }
}

#[test]
fn rollouts_block_a_threat() {
    for solver in [false, true] {
        let position = play(TicTacToe::new(), &MUST_BLOCK);
        let tree = search(position, &mut RolloutEvaluator::new(2, 1), solver, 400);
        assert_eq!(best_move(&tree), "a3", "solver {solver}");
    }
}

#[test]
fn values_are_stored_from_each_movers_view() {
    for moves in [&[][..], &WIN_IN_ONE[..], &MUST_BLOCK[..], &LOST[..]] {
        let position = play(TicTacToe::new(), moves);
        let tree = search(position, &mut RolloutEvaluator::new(9, 1), false, 500);
        check_value_sums(&tree);
    }
}

#[test]
fn solver_proves_a_win_in_one() {
    let position = play(TicTacToe::new(), &WIN_IN_ONE);
    let tree = search(position, &mut UniformEvaluator, true, 50);
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Win);
    assert_eq!(tree.result(&SearchConfig::default()).root_value, 1.0);
    assert_eq!(best_move(&tree), "a3");
    let a3 = position.parse_action("a3").unwrap();
    assert_eq!(child_bound_for_root(&tree, a3), Bound::Win);
    assert!(check_proofs(&tree) >= 2);
}

#[test]
fn solver_proves_a_position_where_every_move_loses() {
    let position = play(TicTacToe::new(), &LOST);
    assert_eq!(
        exact_value(&position, position.to_move(), &mut HashMap::new()),
        -1.0
    );
    let tree = search(position, &mut UniformEvaluator, true, 500);
    let result = tree.result(&SearchConfig::default());
    assert_eq!(result.bound, Bound::Loss, "{result:?}");
    assert_eq!(result.root_value, -1.0);
    for action in position.legal_action_vec() {
        assert_eq!(child_bound_for_root(&tree, action), Bound::Loss);
    }
    // Lost or not, it still names a legal move.
    let mut rng = SmallRng::seed_from_u64(1);
    let action = tree.choose_action(1.0, &mut rng).unwrap();
    assert!(position.is_legal(action));
    check_proofs(&tree);
}

#[test]
fn solver_proves_center_then_corner_a_draw() {
    let position = play(TicTacToe::new(), &["b2", "a1"]);
    let tree = search(position, &mut UniformEvaluator, true, 5000);
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Draw);
    assert_eq!(tree.result(&SearchConfig::default()).root_value, 0.0);
    assert!(check_proofs(&tree) > 100);
}

#[test]
fn solver_proofs_from_the_empty_board_agree_with_minimax() {
    // The empty board is a draw; the solver proves thousands of nodes below it on the way,
    // each of which must match exact minimax from its own mover's view.
    let tree = search(TicTacToe::new(), &mut UniformEvaluator, true, 20_000);
    assert!(check_proofs(&tree) > 1000);
    assert!(matches!(
        tree.result(&SearchConfig::default()).bound,
        Bound::Unknown | Bound::Draw
    ));
}

#[test]
fn rollout_proofs_agree_with_minimax() {
    for (seed, moves) in [(5, &[][..]), (3, &["b2"][..]), (4, &["a1", "b1"][..])] {
        let position = play(TicTacToe::new(), moves);
        let tree = search(position, &mut RolloutEvaluator::new(seed, 1), true, 3000);
        assert!(check_proofs(&tree) > 20);
    }
}

#[test]
fn connect_four_win_in_one_and_block() {
    // x has three in column a and wins there.
    let win = play(ConnectFour::new(), &["a", "b", "a", "b", "a", "c"]);
    let tree = search(win, &mut UniformEvaluator, true, 100);
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Win);
    assert_eq!(best_move(&tree), "a");
    let tree = search(win, &mut RolloutEvaluator::new(6, 1), false, 300);
    assert_eq!(best_move(&tree), "a");
    // o must block column a.
    let block = play(ConnectFour::new(), &["a", "b", "a", "b", "a"]);
    let tree = search(block, &mut RolloutEvaluator::new(7, 1), true, 1000);
    assert_eq!(best_move(&tree), "a");
}
