//! Bandits, as in mctx's policy tests: one choice whose best answer is obvious, told by an
//! evaluator or by finished games.

mod common;

use std::fmt;

use common::{check_value_sums, visits_of, Counting, FnEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::{value_for, Action, Game, GameError, Outcome, Player};
use zerosum_search::{search_one, Bound, EvalCache, SearchConfig, Tree, UniformEvaluator};

const NUM_ARMS: usize = 4;

/// One player picks one of four arms; then the players pass in turn `chain` times and the
/// game ends with the sign of the arm's worth (hundredths, from the first player's view).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Arms {
    worth: [i8; NUM_ARMS],
    chain: u16,
    arm: Option<u8>,
    /// Plies played; the first player moves at even plies.
    ply: u16,
    /// Passes played after the pick.
    passes: u16,
}

impl Arms {
    /// `picker` picks the arm.
    fn new(worth: [i8; NUM_ARMS], chain: u16, picker: Player) -> Arms {
        Arms {
            worth,
            chain,
            arm: None,
            ply: picker.index() as u16,
            passes: 0,
        }
    }

    /// The worth of the chosen arm (0 before the pick) to the player to move.
    fn worth_to_mover(&self) -> f32 {
        self.arm.map_or(0.0, |arm| {
            let worth = self.worth[arm as usize] as f32 / 100.0;
            value_for(worth, Player::FIRST, self.to_move())
        })
    }
}

impl fmt::Display for Arms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "arm {:?}, {} passes", self.arm, self.passes)
    }
}

impl Game for Arms {
    fn name(&self) -> String {
        "arms".to_string()
    }

    fn num_actions(&self) -> usize {
        NUM_ARMS
    }

    fn obs_shape(&self) -> [usize; 3] {
        [1, 1, 1]
    }

    fn to_move(&self) -> Player {
        Player::ALL[self.ply as usize % 2]
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.arm.is_none() {
            out.extend(0..NUM_ARMS);
        } else if self.passes < self.chain {
            out.push(0);
        }
    }

    fn apply(&mut self, action: Action) {
        if self.arm.is_none() {
            self.arm = Some(action as u8);
        } else {
            self.passes += 1;
        }
        self.ply += 1;
    }

    fn outcome(&self) -> Option<Outcome> {
        let arm = self.arm?;
        (self.passes == self.chain).then(|| match self.worth[arm as usize].signum() {
            1 => Outcome::Win(Player::FIRST),
            -1 => Outcome::Win(Player::SECOND),
            _ => Outcome::Draw,
        })
    }

    fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
    }

    fn hash(&self) -> u64 {
        (self.ply as u64) << 8 | self.arm.map_or(255, |a| a as u64)
    }

    fn format_action(&self, action: Action) -> String {
        action.to_string()
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        text.parse().map_err(|_| GameError::BadNotation {
            text: text.to_string(),
            expected: "an arm 0..4".to_string(),
        })
    }
}

/// Values every position by its arm's worth, with these logits at the root.
fn oracle(root_logits: [f32; NUM_ARMS]) -> FnEvaluator<impl FnMut(&Arms, &mut [f32]) -> f32> {
    FnEvaluator(move |position: &Arms, logits: &mut [f32]| {
        if position.arm.is_none() {
            logits.copy_from_slice(&root_logits);
        } else {
            logits.fill(0.0);
        }
        position.worth_to_mover()
    })
}

/// Searches `position` and returns the tree.
fn search<E: zerosum_search::Evaluator<Arms>>(
    position: Arms,
    evaluator: &mut E,
    config: &SearchConfig,
    num_simulations: usize,
) -> Tree<Arms> {
    let mut tree = Tree::new(position);
    let mut rng = SmallRng::seed_from_u64(17);
    search_one(
        &mut tree,
        evaluator,
        config,
        num_simulations,
        &mut EvalCache::new(0),
        &mut rng,
    );
    tree
}

/// Asserts that `best` was chosen and took most of the visits.
fn assert_concentrated(tree: &Tree<Arms>, best: Action) {
    let mut rng = SmallRng::seed_from_u64(1);
    let result = tree.result(&SearchConfig::default());
    assert_eq!(tree.choose_action(0.0, &mut rng), Some(best), "{result:?}");
    let total: u32 = result.visits.iter().map(|v| v.1).sum();
    let top = visits_of(tree, best);
    assert!(2 * top > total, "{result:?}");
    for &(action, visits) in &result.visits {
        if action != best {
            assert!(top > 3 * visits, "{result:?}");
        }
    }
}

#[test]
fn bandit_with_uniform_priors_finds_the_best_arm() {
    let worth = [-20, 60, 10, -90];
    let config = SearchConfig::default();
    let tree = search(
        Arms::new(worth, 1000, Player::FIRST),
        &mut oracle([0.0; 4]),
        &config,
        300,
    );
    assert_concentrated(&tree, 1);
    // The root's value approaches the best arm's worth from below.
    let value = tree.result(&SearchConfig::default()).root_value;
    assert!(value > 0.3 && value <= 0.6, "{value}");
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Unknown);
}

#[test]
fn bandit_overcomes_a_misleading_prior() {
    let worth = [-20, 60, 10, -90];
    let config = SearchConfig::default();
    let logits = [0.0, 0.0, 0.0, 3.0];
    let tree = search(
        Arms::new(worth, 1000, Player::FIRST),
        &mut oracle(logits),
        &config,
        800,
    );
    assert!(tree.result(&SearchConfig::default()).policy_target[3].1 < 0.1);
    assert_concentrated(&tree, 1);
}

#[test]
fn bandit_for_the_second_player_wants_the_first_players_worst_arm() {
    // Worths are from the first player's view: the second player's best arm is the lowest.
    let worth = [-20, 60, 10, -90];
    let config = SearchConfig::default();
    let tree = search(
        Arms::new(worth, 1000, Player::SECOND),
        &mut oracle([0.0; 4]),
        &config,
        300,
    );
    assert_eq!(tree.root().player, Player::SECOND);
    check_value_sums(&tree);
    assert_concentrated(&tree, 3);
    let value = tree.result(&SearchConfig::default()).root_value;
    assert!(value > 0.5 && value <= 0.9, "{value}");
    let q = tree.root_q_values();
    assert!(q.iter().all(|&(a, v)| a == 3 || v < 0.3), "{q:?}");
}

#[test]
fn bandit_of_finished_games_is_proven_by_the_solver() {
    // Each arm ends the game at once: a loss, a draw, a win, a loss for the picker.
    let worth = [-100, 0, 100, -100];
    let mut evaluator = Counting::new(UniformEvaluator);
    let config = SearchConfig::default();
    let tree = search(
        Arms::new(worth, 0, Player::FIRST),
        &mut evaluator,
        &config,
        20,
    );
    assert_eq!(
        evaluator.positions(),
        1,
        "only the root needs the evaluator"
    );
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Win);
    assert_eq!(tree.result(&SearchConfig::default()).root_value, 1.0);
    let mut rng = SmallRng::seed_from_u64(1);
    for temperature in [0.0, 1.0] {
        assert_eq!(tree.choose_action(temperature, &mut rng), Some(2));
    }
}

#[test]
fn bandit_of_finished_games_concentrates_without_the_solver() {
    let worth = [-100, 0, 100, -100];
    let config = SearchConfig {
        solver: false,
        ..SearchConfig::default()
    };
    let tree = search(
        Arms::new(worth, 0, Player::FIRST),
        &mut UniformEvaluator,
        &config,
        200,
    );
    assert_eq!(tree.result(&SearchConfig::default()).bound, Bound::Unknown);
    assert_concentrated(&tree, 2);
    check_value_sums(&tree);
    // Every visit of the winning arm was a win, from the picker's view.
    assert_eq!(tree.root_q_values()[2], (2, 1.0));
}
