//! What a search says about its root: visit counts, the training target, the value and
//! the move to play.

use rand::Rng;
use zerosum_games::{value_for, Action, Game};

use crate::tree::{Bound, NodeId, Tree};

/// The summary of a search at its root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// `(action, visits)` for every legal action, in action order.
    pub visits: Vec<(Action, u32)>,
    /// The training target: visit counts normalised to sum 1, `(action, probability)`.
    pub policy_target: Vec<(Action, f32)>,
    /// The root's mean value from its mover's view; exact where proven.
    pub root_value: f32,
    /// What is proven about the root.
    pub bound: Bound,
    /// The network's own value of the root position, from its mover's view.
    pub raw_value: f32,
}

impl<G: Game> Tree<G> {
    /// Summarises the root. Empty if the root was never expanded.
    pub fn result(&self) -> SearchResult {
        let root = self.root();
        let visits: Vec<(Action, u32)> = root
            .children()
            .map(|c| (self.node(c).action, self.node(c).visits))
            .collect();
        let total: u32 = visits.iter().map(|v| v.1).sum();
        let policy_target = visits
            .iter()
            .map(|&(a, n)| {
                (
                    a,
                    if total > 0 {
                        n as f32 / total as f32
                    } else {
                        1.0 / visits.len() as f32
                    },
                )
            })
            .collect();
        let root_value = root.bound.value().unwrap_or_else(|| root.mean_value());
        SearchResult {
            visits,
            policy_target,
            root_value,
            bound: root.bound,
            raw_value: root.raw_value,
        }
    }

    /// The move to play: a proven win if there is one; otherwise, among moves not proven
    /// lost (unless all are), the most visited when `temperature` is 0, else one drawn with
    /// probability proportional to `visits^(1/temperature)`.
    pub fn choose_action(&self, temperature: f32, rng: &mut impl Rng) -> Option<Action> {
        let root = self.root();
        let children: Vec<NodeId> = root.children().collect();
        if children.is_empty() {
            return None;
        }
        let bound_for_root = |c: NodeId| {
            let n = self.node(c);
            n.bound.seen_by(n.player, root.player)
        };
        let winning: Vec<NodeId> = children
            .iter()
            .copied()
            .filter(|&c| bound_for_root(c) == Bound::Win)
            .collect();
        let mut candidates: Vec<NodeId> = if !winning.is_empty() {
            winning
        } else {
            children
                .iter()
                .copied()
                .filter(|&c| bound_for_root(c) != Bound::Loss)
                .collect()
        };
        if candidates.is_empty() {
            candidates = children;
        }
        let key = |c: NodeId| {
            let n = self.node(c);
            let q = self.child_value_for_parent(NodeId::ROOT, c).unwrap_or(-2.0);
            (n.visits, q, n.prior)
        };
        if temperature <= 0.0 || candidates.len() == 1 {
            let best = candidates.iter().copied().max_by(|&a, &b| {
                key(a)
                    .partial_cmp(&key(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })?;
            return Some(self.node(best).action);
        }
        let weights: Vec<f64> = candidates
            .iter()
            .map(|&c| (self.node(c).visits as f64).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return Some(
                self.node(candidates[rng.random_range(0..candidates.len())])
                    .action,
            );
        }
        let mut draw = rng.random::<f64>() * total;
        for (c, w) in candidates.iter().zip(&weights) {
            if draw < *w {
                return Some(self.node(*c).action);
            }
            draw -= w;
        }
        Some(self.node(*candidates.last().expect("non-empty")).action)
    }

    /// Q of each root child from the root mover's view, `(action, q)`, for visited or
    /// proven children.
    pub fn root_q_values(&self) -> Vec<(Action, f32)> {
        self.root()
            .children()
            .filter_map(|c| {
                self.child_value_for_parent(NodeId::ROOT, c)
                    .map(|q| (self.node(c).action, q))
            })
            .collect()
    }

    /// Mixes fresh Dirichlet noise into the root's priors (after tree reuse, when the root
    /// was expanded before it became the root).
    pub fn add_root_noise(&mut self, alpha: f32, epsilon: f32, rng: &mut impl Rng) {
        let root = self.root();
        let ids: Vec<NodeId> = root.children().collect();
        let mut priors: Vec<(Action, f32)> = ids
            .iter()
            .map(|&c| (self.node(c).action, self.node(c).prior))
            .collect();
        crate::simulate::add_dirichlet_noise(&mut priors, alpha, epsilon, rng);
        for (id, (_, p)) in ids.into_iter().zip(priors) {
            self.node_mut(id).prior = p;
        }
    }
}

/// Converts a value seen by the root's mover to the first player's view (for records).
pub fn value_for_first<G: Game>(position: &G, value: f32) -> f32 {
    value_for(value, position.to_move(), zerosum_games::Player::FIRST)
}
