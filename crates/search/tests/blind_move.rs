//! A search at play time leaves no legal root move unseen, and a proven draw does not soak
//! up the budget that the open moves need: a win whose first move the network's prior
//! overlooks is found, in a game whose turns do not alternate.

mod common;

use common::{FnEvaluator, Script};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::{Outcome, Player};
use zerosum_search::{search_one, Bound, EvalCache, NodeId, SearchConfig, SearchMode, Tree};

const F: Player = Player::FIRST;
const S: Player = Player::SECOND;
const WF: Outcome = Outcome::Win(F);
const D: Outcome = Outcome::Draw;

/// Dots and boxes in miniature: the first player moves, and after a 1 (a completed box)
/// moves again. A first 0 draws whatever follows; 1 then 0 wins whatever the second player
/// does; 1 then 1 draws.
const CAPTURE: Script = Script {
    movers: &[F, F, S],
    outcomes: &[D, D, D, D, WF, WF, D, D],
    choices: Vec::new(),
};

/// The network of the report: it all but rules out the capture (a logit 20 below the other
/// move, a prior of 2e-9), and values the position after it as `after_capture` (the
/// report's network: 1, a win for the capturer, who moves again) and every other as even.
fn blind(after_capture: f32) -> impl zerosum_search::Evaluator<Script> {
    FnEvaluator(move |position: &Script, logits: &mut [f32]| {
        logits[0] = 0.0;
        logits[1] = if position.choices.is_empty() {
            -20.0
        } else {
            0.0
        };
        if position.choices == [1] {
            after_capture
        } else {
            0.0
        }
    })
}

fn search_with(config: &SearchConfig, sims: usize, after_capture: f32) -> Tree<Script> {
    let mut tree = Tree::new(CAPTURE.clone());
    let mut rng = SmallRng::seed_from_u64(1);
    let mut evaluator = blind(after_capture);
    search_one(
        &mut tree,
        &mut evaluator,
        config,
        sims,
        &mut EvalCache::new(0),
        &mut rng,
    );
    tree
}

fn search(config: &SearchConfig, sims: usize) -> Tree<Script> {
    search_with(config, sims, 1.0)
}

/// The search with the root rule on.
fn every_root_move() -> SearchConfig {
    SearchConfig {
        visit_every_root_move: true,
        ..SearchConfig::default()
    }
}

fn chosen(tree: &Tree<Script>) -> Option<usize> {
    tree.choose_action(0.0, &mut SmallRng::seed_from_u64(0))
}

#[test]
fn the_overlooked_capture_is_found_and_played() {
    // One visit is all the capture needs once the network can value what follows it.
    for sims in [8, 100, 2000] {
        let tree = search(&every_root_move(), sims);
        assert_eq!(tree.root().bound, Bound::Win, "{sims} simulations");
        assert_eq!(chosen(&tree), Some(1), "{sims} simulations");
    }
}

#[test]
fn setting_proven_draws_aside_finds_a_capture_the_network_cannot_value() {
    // A network that values everything as even: the capture's one visit looks no better
    // than the draw, and only the budget the proven draw gives up proves it.
    let skipping = SearchConfig {
        skip_proven: true,
        ..every_root_move()
    };
    for sims in [100, 2000] {
        let tree = search_with(&skipping, sims, 0.0);
        assert_eq!(tree.root().bound, Bound::Win, "{sims} simulations");
        assert_eq!(chosen(&tree), Some(1), "{sims} simulations");
        let plain = search_with(&every_root_move(), sims, 0.0);
        assert_eq!(chosen(&plain), Some(0), "{sims} simulations");
    }
}

#[test]
fn without_the_rules_the_search_stays_blind() {
    // What the report saw: every simulation goes to the drawn move, however many.
    let tree = search(&SearchConfig::default(), 2000);
    let capture = tree.child(NodeId::ROOT, 1).expect("the root is expanded");
    assert_eq!(tree.node(capture).visits, 0);
    assert_eq!(chosen(&tree), Some(0));
}

#[test]
fn a_move_of_zero_prior_is_visited_once_the_budget_covers_the_root() {
    // Column a all but ruled out by the network.
    let evaluator = || {
        FnEvaluator(|_: &ConnectFour, logits: &mut [f32]| {
            logits.fill(0.0);
            logits[0] = -30.0;
            0.1
        })
    };
    let visits_of_a = |sims: usize, mode: SearchMode| {
        let mut tree = Tree::new(ConnectFour::new());
        let mut rng = SmallRng::seed_from_u64(2);
        // No root noise, which would give column a a prior of its own in self-play.
        let config = SearchConfig {
            dirichlet_epsilon: 0.0,
            ..every_root_move()
        };
        tree.begin_search(mode, &config, &mut rng);
        search_one(
            &mut tree,
            &mut evaluator(),
            &config,
            sims,
            &mut EvalCache::new(0),
            &mut rng,
        );
        tree.child(NodeId::ROOT, 0)
            .map_or(0, |a| tree.node(a).visits)
    };
    // The root's expansion takes the first simulation; seven more cover its seven moves.
    assert!(visits_of_a(8, SearchMode::Play) >= 1);
    assert!(visits_of_a(400, SearchMode::Play) >= 1);
    // A budget below the number of moves is left to PUCT, and so is self-play.
    assert_eq!(visits_of_a(5, SearchMode::Play), 0);
    assert_eq!(visits_of_a(400, SearchMode::SelfPlay), 0);
}
