//! PUCT selection: `argmax Q(s,a) + c_puct * P(s,a) * sqrt(N(s)) / (1 + N(s,a))`.

use zerosum_games::value_for;

use crate::config::SearchConfig;
use crate::simulate::fpu_value;
use crate::tree::{Bound, NodeId, Tree};
use zerosum_games::Game;

/// The child of `parent` that PUCT picks. With the solver on, a proven win for the
/// parent's mover is taken at once and proven losses are avoided while anything else is
/// left.
pub(crate) fn select_child<G: Game>(
    tree: &Tree<G>,
    parent: NodeId,
    config: &SearchConfig,
) -> NodeId {
    let p = tree.node(parent);
    let sqrt_n = (p.visits.max(1) as f32).sqrt();
    let parent_value = p.mean_value();
    let fpu = fpu_value(config.fpu, parent_value);
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    for child in p.children() {
        let c = tree.node(child);
        let q = if config.solver && c.bound != Bound::Unknown {
            match c.bound.seen_by(c.player, p.player) {
                Bound::Win => return child,
                Bound::Loss => -1e6,
                _ => 0.0,
            }
        } else if c.visits == 0 {
            fpu
        } else {
            value_for(c.mean_value(), c.player, p.player)
        };
        let u = config.c_puct * c.prior * sqrt_n / (1.0 + c.visits as f32);
        let score = q + u;
        if score > best_score || best.is_none() {
            best_score = score;
            best = Some(child);
        }
    }
    best.expect("select_child is called on expanded nodes with children")
}
