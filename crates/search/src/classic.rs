//! The classic players a learned agent is measured against, below PUCT with a network:
//! flat Monte Carlo (random playouts spread over the legal moves, the best mean wins) and
//! UCT (Kocsis and Szepesvari: a tree grown one node a playout, children chosen by UCB1,
//! random playouts, no priors). Values are from the mover's view and convert between
//! players by comparing them, so games whose turns do not alternate are searched right.

use rand::Rng;
use zerosum_games::{Action, Game, Player};

/// The UCB1 exploration constant of textbook UCT, `sqrt(2)`.
pub const UCT_C: f32 = std::f32::consts::SQRT_2;

/// A move picked by a classic search and its mean playout value for the mover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassicChoice {
    /// The move.
    pub action: Action,
    /// The mean playout value of the move, from the mover's view, in `[-1, 1]`.
    pub value: f32,
}

/// Plays uniformly random moves from `position` to the end; the result for `player`.
pub fn random_playout<G: Game>(position: &G, player: Player, rng: &mut impl Rng) -> f32 {
    let mut position = position.clone();
    let mut legal = Vec::new();
    loop {
        if let Some(outcome) = position.outcome() {
            return outcome.value_for(player);
        }
        position.legal_actions(&mut legal);
        position.apply(legal[rng.random_range(0..legal.len())]);
    }
}

/// Flat Monte Carlo: `playouts` random playouts spread evenly over the legal moves of
/// `position` (not finished); the move with the best mean.
pub fn flat_monte_carlo<G: Game>(
    position: &G,
    playouts: usize,
    rng: &mut impl Rng,
) -> ClassicChoice {
    let legal = position.legal_action_vec();
    let mover = position.to_move();
    let mut totals = vec![0.0f32; legal.len()];
    let mut counts = vec![0u32; legal.len()];
    for i in 0..playouts.max(legal.len()) {
        let index = i % legal.len();
        let mut next = position.clone();
        next.apply(legal[index]);
        totals[index] += random_playout(&next, mover, rng);
        counts[index] += 1;
    }
    let mean = |i: usize| totals[i] / counts[i] as f32;
    let best = (0..legal.len())
        .max_by(|&a, &b| mean(a).total_cmp(&mean(b)))
        .expect("a position that is not finished has moves");
    ClassicChoice {
        action: legal[best],
        value: mean(best),
    }
}

/// A node of the UCT tree: the move into it and what playouts through it gave its mover.
struct UctNode {
    action: Action,
    /// Who made the move into this node: the values below are theirs.
    mover: Player,
    visits: u32,
    total: f32,
    children: Vec<usize>,
    /// Legal moves not yet given a child, in random order of trial.
    untried: Vec<Action>,
}

impl UctNode {
    fn new<G: Game>(action: Action, mover: Player, position: &G) -> UctNode {
        UctNode {
            action,
            mover,
            visits: 0,
            total: 0.0,
            children: Vec::new(),
            untried: position.legal_action_vec(),
        }
    }

    fn mean(&self) -> f32 {
        self.total / self.visits.max(1) as f32
    }
}

/// UCT: `playouts` iterations of select (UCB1, `mean + c * sqrt(ln N / n)`), expand one
/// untried move, play out at random, back up; the most visited move of `position` (not
/// finished).
pub fn uct<G: Game>(position: &G, playouts: usize, c: f32, rng: &mut impl Rng) -> ClassicChoice {
    let mut nodes = vec![UctNode::new(0, position.to_move(), position)];
    for _ in 0..playouts.max(1) {
        let mut current = position.clone();
        let mut path = vec![0];
        let mut node = 0;
        // Select through fully expanded nodes.
        while nodes[node].untried.is_empty() && !nodes[node].children.is_empty() {
            let log_n = (nodes[node].visits.max(1) as f32).ln();
            let ucb =
                |child: &UctNode| child.mean() + c * (log_n / child.visits.max(1) as f32).sqrt();
            node = *nodes[node]
                .children
                .iter()
                .max_by(|&&a, &&b| ucb(&nodes[a]).total_cmp(&ucb(&nodes[b])))
                .expect("checked non-empty");
            current.apply(nodes[node].action);
            path.push(node);
        }
        // Expand one untried move.
        if !nodes[node].untried.is_empty() {
            let untried = &mut nodes[node].untried;
            let action = untried.swap_remove(rng.random_range(0..untried.len()));
            let mover = current.to_move();
            current.apply(action);
            nodes.push(UctNode::new(action, mover, &current));
            let child = nodes.len() - 1;
            nodes[node].children.push(child);
            path.push(child);
        }
        // Play out and back up, each node scoring the result for its own mover.
        let first = Player::FIRST;
        let result = random_playout(&current, first, rng);
        for &id in &path {
            let n = &mut nodes[id];
            n.visits += 1;
            n.total += if n.mover == first { result } else { -result };
        }
    }
    let best = *nodes[0]
        .children
        .iter()
        .max_by_key(|&&child| nodes[child].visits)
        .expect("a position that is not finished has moves");
    ClassicChoice {
        action: nodes[best].action,
        value: nodes[best].mean(),
    }
}

#[cfg(test)]
mod tests {
    use rand::{rngs::SmallRng, SeedableRng};
    use zerosum_games::tic_tac_toe::TicTacToe;

    use super::*;
    use crate::testutil::position;

    #[test]
    fn a_playout_ends_the_game_and_scores_it_for_the_player_asked() {
        let mut rng = SmallRng::seed_from_u64(1);
        // From an unfinished board every playout ends in a win, a draw or a loss; from a
        // finished board it is that board's result, seen from the player asked.
        let won = position(&["a1", "b1", "a2", "b2"]);
        for _ in 0..50 {
            let x = random_playout(&won, Player::FIRST, &mut rng);
            let o = random_playout(&won, Player::SECOND, &mut rng);
            assert!([-1.0, 0.0, 1.0].contains(&x));
            assert!([-1.0, 0.0, 1.0].contains(&o));
        }
        let finished = position(&["a1", "b1", "a2", "b2", "a3"]);
        assert_eq!(random_playout(&finished, Player::FIRST, &mut rng), 1.0);
        assert_eq!(random_playout(&finished, Player::SECOND, &mut rng), -1.0);
    }

    #[test]
    fn both_take_a_win_in_one_and_block_a_loss_in_one() {
        let mut rng = SmallRng::seed_from_u64(2);
        // X: a1 a2, O: b1 b2; X to move wins with a3.
        let win = position(&["a1", "b1", "a2", "b2"]);
        let a3 = win.parse_action("a3").unwrap();
        assert_eq!(flat_monte_carlo(&win, 400, &mut rng).action, a3);
        assert_eq!(uct(&win, 400, UCT_C, &mut rng).action, a3);
        // X: a1 a2, O: b2; O to move must block at a3.
        let block = position(&["a1", "b2", "a2"]);
        assert_eq!(uct(&block, 2000, UCT_C, &mut rng).action, a3);
        let choice = uct(&win, 400, UCT_C, &mut rng);
        assert!(choice.value > 0.9, "{choice:?}");
    }

    #[test]
    fn flat_monte_carlo_spreads_playouts_over_every_move() {
        let mut rng = SmallRng::seed_from_u64(3);
        // Fewer playouts than moves still tries each move once.
        let choice = flat_monte_carlo(&TicTacToe::new(), 1, &mut rng);
        assert!(choice.action < 9);
    }
}
