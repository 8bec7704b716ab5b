//! Games where turns do not alternate: values and proofs must follow the mover, not the ply.

mod common;

use std::collections::HashMap;

use common::{check_proofs, check_value_sums, child_bound_for_root, exact_value, Script};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::{Game, Outcome, Player};
use zerosum_search::{
    search_one, Bound, EvalCache, RolloutEvaluator, SearchConfig, Tree, UniformEvaluator,
};

const F: Player = Player::FIRST;
const S: Player = Player::SECOND;
const WF: Outcome = Outcome::Win(F);
const WS: Outcome = Outcome::Win(S);
const D: Outcome = Outcome::Draw;

/// The first player moves twice, then the second once. After a first choice of 0 the first
/// player wins by choosing 0 again; after 1 the best it gets is a draw.
const TWICE: Script = Script {
    movers: &[F, F, S],
    outcomes: &[WF, WF, D, WS, WS, D, D, WF],
    choices: Vec::new(),
};

/// Every double move of the first player loses but one that draws.
const TWICE_LOST: Script = Script {
    movers: &[F, F],
    outcomes: &[WS, WS, D, WS],
    choices: Vec::new(),
};

/// The second player replies twice in a row after the first player's move.
const REPLY_TWICE: Script = Script {
    movers: &[F, S, S],
    outcomes: &[WF, WS, WF, WF, D, WF, WF, WF],
    choices: Vec::new(),
};

/// The second player starts, then the first moves twice, then the second again.
const SECOND_STARTS: Script = Script {
    movers: &[S, F, F, S],
    outcomes: &[WS, WF, D, D, WF, WS, WS, WS, D, WS, WF, WF, WF, WS, WS, D],
    choices: Vec::new(),
};

fn search(position: Script, solver: bool, num_simulations: usize) -> Tree<Script> {
    let config = SearchConfig {
        solver,
        ..SearchConfig::default()
    };
    let mut tree = Tree::new(position);
    let mut rng = SmallRng::seed_from_u64(8);
    let mut evaluator = RolloutEvaluator::new(8, 1);
    search_one(
        &mut tree,
        &mut evaluator,
        &config,
        num_simulations,
        &mut EvalCache::new(0),
        &mut rng,
    );
    tree
}

#[test]
fn solver_proves_a_win_by_a_double_move() {
    let mut tree = Tree::new(TWICE);
    let mut rng = SmallRng::seed_from_u64(8);
    let config = SearchConfig::default();
    search_one(
        &mut tree,
        &mut UniformEvaluator,
        &config,
        200,
        &mut EvalCache::new(0),
        &mut rng,
    );
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Win);
    assert_eq!(tree.result(&SearchConfig::default()).root_value, 1.0);
    // After choice 0 the first player is still to move, and it is a win for it.
    let after_0 = tree.node(tree.child(zerosum_search::NodeId::ROOT, 0).unwrap());
    assert_eq!(after_0.player, F);
    assert_eq!(after_0.bound, Bound::Win);
    assert_eq!(child_bound_for_root(&tree, 0), Bound::Win);
    assert_eq!(tree.choose_action(0.0, &mut rng), Some(0));
    assert!(check_proofs(&tree) >= 3);
}

#[test]
fn solver_proofs_match_mover_aware_minimax() {
    for script in [TWICE, TWICE_LOST, REPLY_TWICE, SECOND_STARTS] {
        let exact = exact_value(&script, script.to_move(), &mut HashMap::new());
        let tree = search(script.clone(), true, 400);
        assert_eq!(tree.root().player, script.to_move());
        assert_eq!(
            tree.result(&SearchConfig::default()).bound,
            Bound::of_value(exact),
            "{:?}",
            script.movers
        );
        assert_eq!(tree.result(&SearchConfig::default()).root_value, exact);
        assert!(check_proofs(&tree) > 3);
    }
}

#[test]
fn values_are_stored_from_each_movers_view() {
    for script in [TWICE, TWICE_LOST, REPLY_TWICE, SECOND_STARTS] {
        let tree = search(script.clone(), false, 300);
        check_value_sums(&tree);
        // Without proofs the search still settles on the minimax move.
        let exact = exact_value(&script, script.to_move(), &mut HashMap::new());
        let q = tree.root_q_values();
        let best = q.iter().map(|v| v.1).fold(f32::NEG_INFINITY, f32::max);
        assert!(
            (best - exact).abs() < 0.35,
            "{:?}: {q:?}, exact {exact}",
            script.movers
        );
    }
}
