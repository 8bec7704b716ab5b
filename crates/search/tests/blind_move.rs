//! A search at play time leaves no legal root move unseen, and a proven draw does not soak
//! up the budget that the open moves need: a win whose first move the network's prior
//! overlooks is found, in a game whose turns do not alternate.

mod common;

use common::{FnEvaluator, Script};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::pushfight::PushFight;
use zerosum_games::{Action, Game, Outcome, Player};
use zerosum_search::{
    search_one, Bound, EvalCache, Evaluator, NodeId, SearchConfig, SearchMode, Tree,
};

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

/// One search of `sims` simulations from `root`, at play time.
fn searched<G: Game>(
    root: G,
    mut evaluator: impl Evaluator<G>,
    config: &SearchConfig,
    sims: usize,
) -> Tree<G> {
    let mut tree = Tree::new(root);
    let mut rng = SmallRng::seed_from_u64(1);
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

fn search_with(config: &SearchConfig, sims: usize, after_capture: f32) -> Tree<Script> {
    searched(CAPTURE.clone(), blind(after_capture), config, sims)
}

fn search(config: &SearchConfig, sims: usize) -> Tree<Script> {
    search_with(config, sims, 1.0)
}

/// The search with the root rule on and proven draws searched as any other move.
fn every_root_move() -> SearchConfig {
    SearchConfig {
        visit_every_root_move: true,
        skip_proven: false,
        ..SearchConfig::default()
    }
}

/// The search without either play-time rule.
fn blind_search() -> SearchConfig {
    SearchConfig {
        visit_every_root_move: false,
        skip_proven: false,
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
    let tree = search(&blind_search(), 2000);
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

/// Push Fight, the first player to act with one move left before its push (the second
/// player's anchor on e1): of its 75 actions, only the move c2-c1 sets up a push that shoves
/// a piece of the second player off the board, and no push does so at once.
fn one_move_from_a_push_off() -> (PushFight, Action) {
    let board = "....o....x...OoO.OX..X.xX.";
    let root = PushFight::try_from_board(board, S.opponent(), 1, Some("e1")).expect("a position");
    let overlooked = root.parse_action("c2-c1").expect("a legal move");
    (root, overlooked)
}

/// Whether the mover of `position` can push a piece of the opponent off at once.
fn can_push_off(position: &PushFight) -> bool {
    position.legal_action_vec().into_iter().any(|action| {
        let mut next = *position;
        next.apply(action);
        next.outcome() == Some(Outcome::Win(position.to_move()))
    })
}

/// A network that sees a win one push ahead (a position whose mover can push a piece of
/// the opponent off is worth 1 to it, any other 0) but whose policy all but rules out
/// `overlooked` at `root`.
fn push_sighted(root: PushFight, overlooked: Action) -> impl Evaluator<PushFight> {
    FnEvaluator(move |position: &PushFight, logits: &mut [f32]| {
        logits.fill(0.0);
        if *position == root {
            logits[overlooked] = -30.0;
        }
        if can_push_off(position) {
            1.0
        } else {
            0.0
        }
    })
}

#[test]
fn a_push_fight_turn_whose_first_move_the_prior_rules_out_is_found() {
    // Turns do not alternate: the move and the push that wins are both the first player's.
    let (root, overlooked) = one_move_from_a_push_off();
    let search =
        |config: &SearchConfig, sims| searched(root, push_sighted(root, overlooked), config, sims);
    for sims in [100, 800] {
        let tree = search(&SearchConfig::default(), sims);
        assert_eq!(tree.root().bound, Bound::Win, "{sims} simulations");
        let chosen = tree.choose_action(0.0, &mut SmallRng::seed_from_u64(0));
        assert_eq!(chosen, Some(overlooked), "{sims} simulations");
    }
    let tree = search(&blind_search(), 800);
    let first = tree
        .child(NodeId::ROOT, overlooked)
        .expect("the root is expanded");
    assert_eq!(tree.node(first).visits, 0);
}
