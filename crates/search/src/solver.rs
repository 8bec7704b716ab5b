//! MCTS-solver: proven values of finished games travel up the tree.
//!
//! A node is a proven win for its mover when some child is a proven win for that player,
//! a proven loss when every child is a proven loss for it, and a proven draw when every
//! child is proven and the best of them is a draw.

use zerosum_games::Game;

use crate::tree::{Bound, NodeId, Tree};

/// Recomputes `id`'s bound from its children; true if it changed.
pub(crate) fn update_bound<G: Game>(tree: &mut Tree<G>, id: NodeId) -> bool {
    let node = tree.node(id);
    if node.bound != Bound::Unknown || node.num_children == 0 {
        return false;
    }
    let player = node.player;
    let mut all_known = true;
    let mut any_draw = false;
    for child in node.children() {
        let c = tree.node(child);
        match c.bound.seen_by(c.player, player) {
            Bound::Win => {
                tree.node_mut(id).bound = Bound::Win;
                return true;
            }
            Bound::Draw => any_draw = true,
            Bound::Loss => {}
            Bound::Unknown => all_known = false,
        }
    }
    if !all_known {
        return false;
    }
    tree.node_mut(id).bound = if any_draw { Bound::Draw } else { Bound::Loss };
    true
}
