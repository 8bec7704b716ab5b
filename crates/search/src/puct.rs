//! Selection, the one place for its rules: the PUCT score
//! `Q(s,a) + c_puct * P(s,a) * sqrt(N(s)) / (1 + N(s,a))`, first-play urgency for children
//! not yet visited, and KataGo's forced playouts at the root of a self-play search (with
//! the pruning that takes them back out of the training target).

use zerosum_games::{value_for, Action, Game};

use crate::config::{Fpu, SearchConfig};
use crate::tree::{Bound, NodeId, SearchMode, Tree};

/// The PUCT score of a child worth `q` to the parent's mover, with prior `prior` and
/// `visits` visits, under a parent with `sqrt_parent_visits = sqrt(N)`.
fn score(q: f32, prior: f32, visits: f32, sqrt_parent_visits: f32, c_puct: f32) -> f32 {
    q + c_puct * prior * sqrt_parent_visits / (1.0 + visits)
}

/// The first-play-urgency value of an unvisited child, from the parent's view.
fn fpu_value(fpu: Fpu, parent_value: f32) -> f32 {
    match fpu {
        Fpu::Reduction(r) => parent_value - r,
        Fpu::Absolute(v) => v,
    }
}

/// KataGo's forced playouts: the visits `sqrt(k * P * N)` a root child of prior `prior` is
/// owed out of `total` root visits.
fn forced_playouts(config: &SearchConfig, prior: f32, total: u32) -> f32 {
    (config.forced_playouts_k * prior * total as f32).sqrt()
}

/// Whether forced playouts apply at the root of `tree`: a self-play search with `k > 0`.
pub(crate) fn forces_playouts<G: Game>(tree: &Tree<G>, config: &SearchConfig) -> bool {
    tree.mode == SearchMode::SelfPlay && config.forced_playouts_k > 0.0
}

/// Among root children already visited, the one furthest below its forced playouts, if
/// any (never a proven loss).
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
            (c, forced_playouts(config, n.prior, total) - n.visits as f32)
        })
        .filter(|&(c, deficit)| deficit > 0.0 && tree.node(c).visits > 0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

/// Outside self-play, with a `budget` that covers every root move: the unvisited root child
/// of highest prior that is not a proven loss, if any is left.
pub(crate) fn unvisited_root_child<G: Game>(
    tree: &Tree<G>,
    config: &SearchConfig,
    budget: usize,
) -> Option<NodeId> {
    let root = tree.root();
    if !config.visit_every_root_move
        || tree.mode == SearchMode::SelfPlay
        || budget < root.num_children as usize
    {
        return None;
    }
    root.children()
        .filter(|&c| {
            let n = tree.node(c);
            n.visits == 0 && n.bound.seen_by(n.player, root.player) != Bound::Loss
        })
        .max_by(|&a, &b| tree.node(a).prior.total_cmp(&tree.node(b).prior))
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
    if parent == NodeId::ROOT && forces_playouts(tree, config) {
        if let Some(forced) = forced_child(tree, config) {
            return forced;
        }
    }
    let sqrt_n = (p.visits.max(1) as f32).sqrt();
    let parent_value = p.mean_value();
    let fpu = fpu_value(config.fpu, parent_value);
    // A proven draw is set aside while anything is still open ([`SearchConfig::skip_proven`]).
    let skip_draws =
        tree.skips_proven && p.children().any(|c| tree.node(c).bound == Bound::Unknown);
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    for child in p.children() {
        let c = tree.node(child);
        if skip_draws && c.bound == Bound::Draw {
            continue;
        }
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
        let score = score(q, c.prior, c.visits as f32, sqrt_n, config.c_puct);
        if score > best_score || best.is_none() {
            best_score = score;
            best = Some(child);
        }
    }
    best.expect("select_child is called on expanded nodes with children")
}

/// KataGo's policy target pruning: the visits that forced playouts gave to moves PUCT
/// would not have chosen are taken back before the visits become the training target.
/// Each child but the most visited loses up to its forced playouts, as long as its PUCT
/// score stays below the best child's; a child left with one visit or none drops out.
/// `(action, probability)` over the legal actions.
pub(crate) fn pruned_target<G: Game>(tree: &Tree<G>, config: &SearchConfig) -> Vec<(Action, f32)> {
    let root = tree.root();
    let children: Vec<NodeId> = root.children().collect();
    let total: u32 = children.iter().map(|&c| tree.node(c).visits).sum();
    let Some(&best) = children.iter().max_by_key(|&&c| tree.node(c).visits) else {
        return Vec::new();
    };
    let sqrt_total = (total.max(1) as f32).sqrt();
    let puct = |c: NodeId, visits: f32| {
        let q = tree.child_value_for_parent(NodeId::ROOT, c).unwrap_or(-1.0);
        score(q, tree.node(c).prior, visits, sqrt_total, config.c_puct)
    };
    let best_score = puct(best, tree.node(best).visits as f32);
    let pruned: Vec<(Action, f32)> = children
        .iter()
        .map(|&c| {
            let n = tree.node(c);
            if c == best || n.visits == 0 {
                return (n.action, n.visits as f32);
            }
            let forced = forced_playouts(config, n.prior, total);
            let floor = (n.visits as f32 - forced).max(0.0).ceil() as u32;
            let mut visits = n.visits;
            while visits > floor && puct(c, (visits - 1) as f32) < best_score {
                visits -= 1;
            }
            (n.action, if visits <= 1 { 0.0 } else { visits as f32 })
        })
        .collect();
    let sum: f32 = pruned.iter().map(|p| p.1).sum();
    pruned
        .into_iter()
        .map(|(a, v)| (a, v / sum.max(1e-9)))
        .collect()
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
