//! Repetition draws: a position below the root that repeats an earlier one of the game is
//! valued as a draw and left unexpanded, whatever the network says of it.

mod common;

use common::{play, FnEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::chess::Chess;
use zerosum_games::Game;
use zerosum_search::{search_one, EvalCache, NodeId, SearchConfig, Tree};

/// Black to move after 1. Nf3 Nf6 2. Ng1: 2... Ng8 brings back the initial position.
fn root() -> Chess {
    play(Chess::new(), &["g1f3", "g8f6", "f3g1"])
}

/// The tree of `simulations` from `position`, with an evaluator that calls every position
/// +0.6 for its mover and gives uniform priors.
fn search(position: Chess, repetition_draws: bool, simulations: usize) -> Tree<Chess> {
    let config = SearchConfig {
        repetition_draws,
        ..SearchConfig::default()
    };
    let mut tree = Tree::new(position);
    let mut evaluator = FnEvaluator(|_: &Chess, logits: &mut [f32]| {
        logits.fill(0.0);
        0.6
    });
    let mut rng = SmallRng::seed_from_u64(1);
    let mut cache = EvalCache::new(0);
    search_one(
        &mut tree,
        &mut evaluator,
        &config,
        simulations,
        &mut cache,
        &mut rng,
    );
    tree
}

/// The root's Q of 2... Ng8 and whether that child was expanded.
fn knight_back(tree: &Tree<Chess>) -> (f32, bool) {
    let back = root().parse_action("f6g8").expect("f6g8 parses");
    let child = tree
        .child(NodeId::ROOT, back)
        .expect("f6g8 is a root child");
    let q = tree
        .root_q_values()
        .into_iter()
        .find(|&(a, _)| a == back)
        .map(|(_, q)| q)
        .expect("f6g8 was visited");
    (q, tree.node(child).expanded)
}

#[test]
fn a_repetition_below_the_root_scores_a_draw_and_stays_a_leaf() {
    let mut repeated = root();
    repeated.apply(root().parse_action("f6g8").unwrap());
    assert!(repeated.is_repetition() && !repeated.is_terminal());
    let (q, expanded) = knight_back(&search(root(), true, 400));
    assert_eq!(q, 0.0);
    assert!(!expanded);
    // Without the rule the network's value stands: the mover after Ng8 likes it (+0.6).
    let (q, expanded) = knight_back(&search(root(), false, 400));
    assert!(q < -0.3, "{q}");
    assert!(expanded);
}

#[test]
fn the_root_itself_may_be_a_repetition() {
    // The game is already back at the initial position; searching from it still works.
    let repeated = play(Chess::new(), &["g1f3", "g8f6", "f3g1", "f6g8"]);
    let tree = search(repeated, true, 100);
    assert_eq!(tree.root().visits, 100);
    assert!(tree.root().expanded);
}
