//! MCTS-solver: proven values of finished games travel up the tree.
//!
//! A node is a proven win for its mover when some child is a proven win for that player,
//! a proven loss when every child is a proven loss for it, and a proven draw when every
//! child is proven and the best of them is a draw. A proof's length in plies is the
//! quickest winning child's plus one for a win, the longest child's plus one otherwise.

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
    let mut quickest_win: Option<u16> = None;
    let mut longest = 0;
    for child in node.children() {
        let c = tree.node(child);
        match c.bound.seen_by(c.player, player) {
            Bound::Win => {
                quickest_win = Some(quickest_win.map_or(c.proof_plies, |q| q.min(c.proof_plies)))
            }
            Bound::Draw => any_draw = true,
            Bound::Loss => {}
            Bound::Unknown => all_known = false,
        }
        longest = longest.max(c.proof_plies);
    }
    let (bound, plies) = match quickest_win {
        Some(plies) => (Bound::Win, plies),
        None if !all_known => return false,
        None if any_draw => (Bound::Draw, longest),
        None => (Bound::Loss, longest),
    };
    let node = tree.node_mut(id);
    node.bound = bound;
    node.proof_plies = plies.saturating_add(1);
    true
}

#[cfg(test)]
mod tests {
    use zerosum_games::Player;

    use super::*;
    use crate::testutil::{star, Child};

    const FIRST: Player = Player::FIRST;
    const SECOND: Player = Player::SECOND;

    /// The root's bound after one update from children `(player, bound)`, and whether the
    /// update reported a change. The root's mover is the first player.
    fn root_bound(children: &[(Player, Bound)]) -> (Bound, bool) {
        let children: Vec<Child> = children
            .iter()
            .map(|&(player, bound)| Child::visited(player, 1, 0.0).proven(bound))
            .collect();
        let mut tree = star(&children);
        let changed = update_bound(&mut tree, NodeId::ROOT);
        (tree.root().bound, changed)
    }

    #[test]
    fn a_child_lost_by_the_opponent_proves_a_win() {
        let unknown = (SECOND, Bound::Unknown);
        assert_eq!(
            root_bound(&[unknown, (SECOND, Bound::Loss)]),
            (Bound::Win, true)
        );
    }

    #[test]
    fn a_child_won_by_the_same_mover_proves_a_win() {
        // Turns need not alternate: the root's mover moves again at the child, so the child's
        // Win is the root's Win, not its Loss.
        let unknown = (SECOND, Bound::Unknown);
        assert_eq!(
            root_bound(&[unknown, (FIRST, Bound::Win)]),
            (Bound::Win, true)
        );
        assert_eq!(
            root_bound(&[unknown, (SECOND, Bound::Win)]),
            (Bound::Unknown, false)
        );
    }

    #[test]
    fn every_child_lost_proves_a_loss() {
        let children = [
            (SECOND, Bound::Win),
            (FIRST, Bound::Loss),
            (SECOND, Bound::Win),
        ];
        assert_eq!(root_bound(&children), (Bound::Loss, true));
    }

    #[test]
    fn best_proven_child_a_draw_proves_a_draw() {
        let children = [
            (SECOND, Bound::Win),
            (FIRST, Bound::Draw),
            (FIRST, Bound::Loss),
        ];
        assert_eq!(root_bound(&children), (Bound::Draw, true));
    }

    #[test]
    fn an_unknown_child_leaves_losses_and_draws_unproven() {
        for proven in [Bound::Win, Bound::Draw] {
            let children = [(SECOND, proven), (SECOND, Bound::Unknown)];
            assert_eq!(root_bound(&children), (Bound::Unknown, false));
        }
    }

    #[test]
    fn a_proof_takes_the_quickest_win_and_the_longest_loss() {
        let proof = |children: &[Child]| {
            let mut tree = star(children);
            assert!(update_bound(&mut tree, NodeId::ROOT));
            (tree.root().bound, tree.root().proof_plies)
        };
        let won_in = |plies| Child::visited(SECOND, 1, -1.0).proven_in(Bound::Loss, plies);
        let lost_in = |plies| Child::visited(SECOND, 1, 1.0).proven_in(Bound::Win, plies);
        let unknown = Child::visited(SECOND, 1, 0.0);
        assert_eq!(
            proof(&[won_in(6), unknown, won_in(2), lost_in(0)]),
            (Bound::Win, 3)
        );
        assert_eq!(
            proof(&[lost_in(2), lost_in(8), lost_in(0)]),
            (Bound::Loss, 9)
        );
    }

    #[test]
    fn a_proven_node_is_left_alone() {
        let mut tree = star(&[Child::visited(SECOND, 1, 0.0).proven(Bound::Loss)]);
        tree.node_mut(NodeId::ROOT).bound = Bound::Draw;
        assert!(!update_bound(&mut tree, NodeId::ROOT));
        assert_eq!(tree.root().bound, Bound::Draw);
    }

    #[test]
    fn an_unexpanded_node_is_not_proven() {
        let mut tree = star(&[]);
        assert!(!update_bound(&mut tree, NodeId::ROOT));
        assert_eq!(tree.root().bound, Bound::Unknown);
    }

    #[test]
    fn seen_by_swaps_only_wins_and_losses_between_players() {
        for bound in [Bound::Win, Bound::Loss, Bound::Draw, Bound::Unknown] {
            assert_eq!(bound.seen_by(FIRST, FIRST), bound);
            assert_eq!(bound.seen_by(SECOND, FIRST).seen_by(FIRST, SECOND), bound);
        }
        assert_eq!(Bound::Win.seen_by(FIRST, SECOND), Bound::Loss);
        assert_eq!(Bound::Loss.seen_by(SECOND, FIRST), Bound::Win);
        assert_eq!(Bound::Draw.seen_by(FIRST, SECOND), Bound::Draw);
    }
}
