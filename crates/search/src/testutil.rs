//! Helpers for the unit tests: hand-built trees and a deterministic evaluator that counts.

use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::{Game, Player};

use crate::evaluator::Evaluator;
use crate::tree::{Bound, NodeId, Tree};

/// Tic-tac-toe after `moves` in notation (`a1`, `b2`, ...).
pub fn position(moves: &[&str]) -> TicTacToe {
    let mut game = TicTacToe::new();
    for mv in moves {
        game.play_notation(mv).unwrap();
    }
    game
}

/// One root child of a hand-built tree.
#[derive(Clone, Copy)]
pub struct Child {
    pub player: Player,
    pub bound: Bound,
    pub visits: u32,
    /// Mean value from `player`'s view.
    pub mean: f32,
    pub prior: f32,
    /// The length of its proof in plies, when proven.
    pub proof_plies: u16,
}

impl Child {
    /// An unvisited child with this prior; its player is the root's, as `add_children` sets.
    pub fn unvisited(prior: f32) -> Child {
        Child {
            player: Player::FIRST,
            bound: Bound::Unknown,
            visits: 0,
            mean: 0.0,
            prior,
            proof_plies: 0,
        }
    }

    /// A visited child.
    pub fn visited(player: Player, visits: u32, mean: f32) -> Child {
        Child {
            player,
            bound: Bound::Unknown,
            visits,
            mean,
            prior: 0.1,
            proof_plies: 0,
        }
    }

    /// This child with a proven bound (from its own player's view).
    pub fn proven(self, bound: Bound) -> Child {
        Child { bound, ..self }
    }

    /// This child proven by a proof of `plies` plies.
    pub fn proven_in(self, bound: Bound, plies: u16) -> Child {
        Child {
            bound,
            proof_plies: plies,
            ..self
        }
    }

    /// This child with another prior.
    pub fn with_prior(self, prior: f32) -> Child {
        Child { prior, ..self }
    }
}

/// A tree whose root (the empty tic-tac-toe board, first player to move) has `children` as
/// actions `0, 1, ...`; the root's visits are one more than its children's, its mean 0.
pub fn star(children: &[Child]) -> Tree<TicTacToe> {
    let mut tree = Tree::new(TicTacToe::new());
    let pairs: Vec<(usize, f32)> = children
        .iter()
        .enumerate()
        .map(|(a, c)| (a, c.prior))
        .collect();
    tree.add_children(NodeId::ROOT, &pairs);
    let ids: Vec<NodeId> = tree.root().children().collect();
    let mut total = 1;
    for (id, c) in ids.into_iter().zip(children) {
        let node = tree.node_mut(id);
        node.player = c.player;
        node.bound = c.bound;
        node.proof_plies = c.proof_plies;
        node.visits = c.visits;
        node.value_sum = c.mean * c.visits as f32;
        node.expanded = c.visits > 0;
        total += c.visits;
    }
    tree.node_mut(NodeId::ROOT).visits = total;
    tree
}

/// Logits that depend on the action and on the position's hash, values from the hash: a
/// deterministic evaluator whose priors are far from uniform. Counts what it evaluates.
#[derive(Default)]
pub struct Skewed {
    pub positions: usize,
    pub calls: usize,
}

impl<G: Game> Evaluator<G> for Skewed {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        self.calls += 1;
        self.positions += positions.len();
        let n = logits.len() / positions.len();
        for (b, position) in positions.iter().enumerate() {
            let hash = Game::hash(position);
            for (a, logit) in logits[b * n..(b + 1) * n].iter_mut().enumerate() {
                *logit = ((hash >> (a % 60)) & 15) as f32 * 0.2;
            }
            values[b] = ((hash >> 7) % 201) as f32 / 100.0 - 1.0;
        }
    }
}
