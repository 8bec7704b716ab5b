//! PUCT selection: `argmax Q(s,a) + c_puct * P(s,a) * sqrt(N(s)) / (1 + N(s,a))`.

use zerosum_games::value_for;

use crate::config::SearchConfig;
use crate::simulate::fpu_value;
use crate::tree::{Bound, NodeId, Tree};
use zerosum_games::Game;

/// KataGo's forced playouts: among root children already visited, the one furthest below
/// `sqrt(k * P * N)` visits, if any (never a proven loss).
fn forced_child<G: Game>(tree: &Tree<G>, config: &SearchConfig) -> Option<NodeId> {
    let root = tree.root();
    let total: u32 = root.children().map(|c| tree.node(c).visits).sum();
    root.children()
        .filter(|&c| {
            let n = tree.node(c);
            !(config.solver && n.bound.seen_by(n.player, root.player) == Bound::Loss)
        })
        .map(|c| {
            let n = tree.node(c);
            let forced = (config.forced_playouts_k * n.prior * total as f32).sqrt();
            (c, forced - n.visits as f32)
        })
        .filter(|&(c, deficit)| deficit > 0.0 && tree.node(c).visits > 0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

/// The child of `parent` that PUCT picks. With the solver on, a proven win for the
/// parent's mover is taken at once and proven losses are avoided while anything else is
/// left.
pub(crate) fn select_child<G: Game>(
    tree: &Tree<G>,
    parent: NodeId,
    config: &SearchConfig,
) -> NodeId {
    let p = tree.node(parent);
    if parent == NodeId::ROOT && tree.root_noise && config.forced_playouts_k > 0.0 {
        if let Some(forced) = forced_child(tree, config) {
            return forced;
        }
    }
    let sqrt_n = (p.visits.max(1) as f32).sqrt();
    let parent_value = p.mean_value();
    let fpu = fpu_value(config.fpu, parent_value);
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    for child in p.children() {
        let c = tree.node(child);
        let q = if config.solver && c.bound != Bound::Unknown {
            match c.bound.seen_by(c.player, p.player) {
                Bound::Win => return tree.quickest_win(parent).unwrap_or(child),
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

#[cfg(test)]
mod tests {
    use zerosum_games::Player;

    use super::*;
    use crate::config::Fpu;
    use crate::testutil::{star, Child};

    const FIRST: Player = Player::FIRST;
    const SECOND: Player = Player::SECOND;

    fn config(solver: bool) -> SearchConfig {
        SearchConfig {
            solver,
            ..SearchConfig::default()
        }
    }

    /// The action (child index) PUCT picks at the root.
    fn pick(children: &[Child], config: &SearchConfig) -> usize {
        let tree = star(children);
        tree.node(select_child(&tree, NodeId::ROOT, config)).action
    }

    #[test]
    fn unvisited_children_go_by_prior() {
        let children = [0.2, 0.5, 0.3].map(Child::unvisited);
        assert_eq!(pick(&children, &config(true)), 1);
    }

    #[test]
    fn child_values_are_converted_by_mover_not_by_ply() {
        // Both children are worth +0.5 to their own mover. Child 0 is the root's mover moving
        // again (good for the root); child 1 is the opponent (bad for the root).
        let good_again = Child::visited(FIRST, 10, 0.5);
        let bad = Child::visited(SECOND, 10, 0.5);
        assert_eq!(pick(&[bad, good_again], &config(false)), 1);
        assert_eq!(pick(&[good_again, bad], &config(false)), 0);
        // And a child where the opponent is losing is good for the root.
        let opponent_losing = Child::visited(SECOND, 10, -0.5);
        assert_eq!(pick(&[bad, opponent_losing], &config(false)), 1);
    }

    #[test]
    fn exploration_grows_for_rarely_visited_children() {
        // Equal values and priors: the less visited child gets the bonus.
        let many = Child::visited(SECOND, 40, 0.0);
        let few = Child::visited(SECOND, 2, 0.0);
        assert_eq!(pick(&[many, few], &config(false)), 1);
        assert_eq!(pick(&[few, many], &config(false)), 0);
    }

    #[test]
    fn solver_takes_a_proven_win_at_once() {
        let strong = Child::visited(SECOND, 50, -0.9).with_prior(0.9);
        let won = Child::visited(FIRST, 1, 0.0)
            .proven(Bound::Win)
            .with_prior(0.01);
        assert_eq!(pick(&[strong, won], &config(true)), 1);
        // Without the solver only the mean value counts.
        assert_eq!(pick(&[strong, won], &config(false)), 0);
    }

    #[test]
    fn solver_avoids_a_proven_loss() {
        let lost = Child::visited(SECOND, 1, 1.0)
            .proven(Bound::Win)
            .with_prior(0.9);
        let unclear = Child::visited(SECOND, 30, 0.3).with_prior(0.1);
        assert_eq!(pick(&[lost, unclear], &config(true)), 1);
    }

    #[test]
    fn first_play_urgency_values_unvisited_children() {
        let visited = Child::visited(SECOND, 10, -0.5).with_prior(0.99);
        let fresh = Child::unvisited(0.01);
        let with = |fpu| SearchConfig {
            fpu,
            ..config(false)
        };
        // The visited child is worth +0.5 to the root; an optimistic FPU beats it, a
        // pessimistic one does not.
        assert_eq!(pick(&[visited, fresh], &with(Fpu::Absolute(1.0))), 1);
        assert_eq!(pick(&[visited, fresh], &with(Fpu::Absolute(-1.0))), 0);
    }
}
