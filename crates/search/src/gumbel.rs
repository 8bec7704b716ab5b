//! Gumbel AlphaZero (Danihelka et al., "Policy improvement by planning with Gumbel",
//! ICLR 2022), as DeepMind's mctx implements it.
//!
//! At the root, Gumbel-top-k sampling picks `m` actions and Sequential Halving spends the
//! simulation budget on them, halving the field each phase by `g(a) + logit(a) +
//! sigma(q(a))`. Interior nodes choose deterministically by the improved policy
//! `softmax(logit + sigma(completed q))` minus visit shares. The training target is that
//! improved policy at the root, which keeps learning at a handful of simulations where
//! visit counts say little.

use rand::Rng;
use zerosum_games::{Action, Game};

use crate::config::SearchConfig;
use crate::tree::{Bound, GumbelRoot, NodeId, Tree};

/// mctx's `get_sequence_of_considered_visits`: for `num_considered` actions and a budget
/// of `num_simulations`, the visit count of the actions still considered at each
/// simulation. Phases give each remaining action `max(1, n / (ceil(log2 m) * remaining))`
/// visits, then halve the field (never below 2).
pub fn considered_visit_sequence(num_considered: usize, num_simulations: usize) -> Vec<u32> {
    if num_considered <= 1 {
        return (0..num_simulations as u32).collect();
    }
    let log2max = (num_considered as f64).log2().ceil() as usize;
    let mut sequence = Vec::with_capacity(num_simulations);
    let mut visits = vec![0u32; num_considered];
    let mut considered = num_considered;
    while sequence.len() < num_simulations {
        let extra = (num_simulations / (log2max * considered)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..considered]);
            for v in &mut visits[..considered] {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    sequence.truncate(num_simulations);
    sequence
}

/// A standard Gumbel draw, `-ln(-ln(u))`.
fn sample_gumbel(rng: &mut impl Rng) -> f32 {
    let u: f64 = rng.random::<f64>().clamp(1e-12, 1.0 - 1e-12);
    (-(-u.ln()).ln()) as f32
}

/// Sets up the root's Gumbel draws and schedule for a budget of `num_simulations`.
pub(crate) fn init_root<G: Game>(
    tree: &mut Tree<G>,
    config: &SearchConfig,
    num_simulations: usize,
    rng: &mut impl Rng,
) {
    let num_children = tree.root().num_children as usize;
    let gumbels = (0..num_children)
        .map(|_| config.gumbel_scale * sample_gumbel(rng))
        .collect();
    let considered = config.gumbel_considered.min(num_children).max(1);
    // The root's own expansion was the first simulation of the budget.
    let schedule = considered_visit_sequence(considered, num_simulations.saturating_sub(1).max(1));
    tree.gumbel = Some(GumbelRoot {
        gumbels,
        schedule,
        config: config.clone(),
    });
}

/// Per child of `node`: the log prior, the visits, and the completed Q value scaled by
/// `sigma` (mctx's `qtransform_completed_by_mix_value`), all from `node`'s mover's view.
struct Completed {
    children: Vec<NodeId>,
    logits: Vec<f32>,
    visits: Vec<u32>,
    sigma_q: Vec<f32>,
}

fn completed_q<G: Game>(tree: &Tree<G>, node: NodeId, config: &SearchConfig) -> Completed {
    let n = tree.node(node);
    let children: Vec<NodeId> = n.children().collect();
    let priors: Vec<f32> = children
        .iter()
        .map(|&c| tree.node(c).prior.max(1e-12))
        .collect();
    let visits: Vec<u32> = children.iter().map(|&c| tree.node(c).visits).collect();
    let q: Vec<Option<f32>> = children
        .iter()
        .map(|&c| tree.child_value_for_parent(node, c))
        .collect();
    let total_visits: u32 = visits.iter().sum();
    // The mixed value: the network's value of the node blended with the prior-weighted Q of
    // the visited children; it stands in for the children not visited yet.
    let (mut weighted, mut mass) = (0.0f32, 0.0f32);
    for ((p, v), q) in priors.iter().zip(&visits).zip(&q) {
        if let (true, Some(q)) = (*v > 0, q) {
            weighted += p * q;
            mass += p;
        }
    }
    let mixed = if mass > 0.0 {
        (n.raw_value + total_visits as f32 * weighted / mass) / (total_visits as f32 + 1.0)
    } else {
        n.raw_value
    };
    let completed: Vec<f32> = q.iter().map(|q| q.unwrap_or(mixed)).collect();
    let min = completed.iter().copied().fold(f32::INFINITY, f32::min);
    let max = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let max_visits = visits.iter().copied().max().unwrap_or(0) as f32;
    let scale = (config.gumbel_c_visit + max_visits) * config.gumbel_c_scale;
    let sigma_q = completed
        .iter()
        .map(|&c| scale * (c - min) / (max - min).max(1e-8))
        .collect();
    Completed {
        children,
        logits: priors.iter().map(|p| p.ln()).collect(),
        visits,
        sigma_q,
    }
}

fn proven_for_parent<G: Game>(tree: &Tree<G>, parent: NodeId, child: NodeId) -> Bound {
    let (p, c) = (tree.node(parent), tree.node(child));
    c.bound.seen_by(c.player, p.player)
}

/// Root selection by Sequential Halving: among actions whose visits equal the schedule's
/// count for this simulation, the highest `g + logit + sigma(q)`.
pub(crate) fn select_root<G: Game>(tree: &Tree<G>, config: &SearchConfig) -> Option<NodeId> {
    let gumbel = tree.gumbel.as_ref()?;
    if config.solver {
        if let Some(win) = tree.quickest_win(NodeId::ROOT) {
            return Some(win);
        }
    }
    let c = completed_q(tree, NodeId::ROOT, config);
    let index = (c.visits.iter().sum::<u32>() as usize).min(gumbel.schedule.len() - 1);
    let wanted = gumbel.schedule[index];
    let max_logit = c.logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    for i in 0..c.children.len() {
        if c.visits[i] != wanted {
            continue;
        }
        if config.solver && proven_for_parent(tree, NodeId::ROOT, c.children[i]) == Bound::Loss {
            continue;
        }
        let score = (gumbel.gumbels[i] + c.logits[i] - max_logit + c.sigma_q[i]).max(-1e9);
        if score > best_score {
            best_score = score;
            best = Some(c.children[i]);
        }
    }
    best
}

/// Interior selection: argmax of `pi'(a) - N(a) / (1 + sum N)` with
/// `pi' = softmax(logit + sigma(completed q))`.
pub(crate) fn select_interior<G: Game>(
    tree: &Tree<G>,
    node: NodeId,
    config: &SearchConfig,
) -> NodeId {
    let c = completed_q(tree, node, config);
    let improved = softmax(
        &c.logits
            .iter()
            .zip(&c.sigma_q)
            .map(|(l, s)| l + s)
            .collect::<Vec<_>>(),
    );
    let total = c.visits.iter().sum::<u32>() as f32;
    let mut best = c.children[0];
    let mut best_score = f32::NEG_INFINITY;
    for ((&child, &visits), share) in c.children.iter().zip(&c.visits).zip(improved) {
        let mut score = share - visits as f32 / (1.0 + total);
        if config.solver {
            match proven_for_parent(tree, node, child) {
                Bound::Win => return tree.quickest_win(node).unwrap_or(child),
                Bound::Loss => score -= 2.0,
                _ => {}
            }
        }
        if score > best_score {
            best_score = score;
            best = child;
        }
    }
    best
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let total: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / total).collect()
}

/// The improved policy `softmax(logit + sigma(completed q))` at the root: the training
/// target, `(action, probability)` in child order.
pub(crate) fn improved_policy<G: Game>(tree: &Tree<G>) -> Option<Vec<(Action, f32)>> {
    let config = &tree.gumbel.as_ref()?.config;
    let c = completed_q(tree, NodeId::ROOT, config);
    let improved = softmax(
        &c.logits
            .iter()
            .zip(&c.sigma_q)
            .map(|(l, s)| l + s)
            .collect::<Vec<_>>(),
    );
    Some(
        c.children
            .iter()
            .zip(improved)
            .map(|(&ch, p)| (tree.node(ch).action, p))
            .collect(),
    )
}

/// The action Sequential Halving leaves standing: among the most visited root children,
/// the highest `g + logit + sigma(q)`; a proven win first.
pub(crate) fn final_action<G: Game>(tree: &Tree<G>) -> Option<Action> {
    let gumbel = tree.gumbel.as_ref()?;
    if let Some(win) = tree.quickest_win(NodeId::ROOT) {
        return Some(tree.node(win).action);
    }
    let config = &gumbel.config;
    let c = completed_q(tree, NodeId::ROOT, config);
    let not_lost = |i: usize| proven_for_parent(tree, NodeId::ROOT, c.children[i]) != Bound::Loss;
    let max_visits = (0..c.children.len())
        .filter(|&i| not_lost(i))
        .map(|i| c.visits[i])
        .max()?;
    (0..c.children.len())
        .filter(|&i| c.visits[i] == max_visits && not_lost(i))
        .max_by(|&a, &b| {
            let score = |i: usize| gumbel.gumbels[i] + c.logits[i] + c.sigma_q[i];
            score(a).total_cmp(&score(b))
        })
        .map(|i| tree.node(c.children[i]).action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_spends_exactly_the_budget_and_halves() {
        for (m, n) in [
            (16, 200),
            (4, 32),
            (7, 50),
            (2, 10),
            (16, 16),
            (16, 8),
            (1, 5),
        ] {
            let seq = considered_visit_sequence(m, n);
            assert_eq!(seq.len(), n, "m={m} n={n}");
            // Each phase starts with every surviving action at the same count: the counts
            // never skip ahead.
            for w in seq.windows(2) {
                assert!(w[1] <= w[0] + 1);
            }
        }
        // m=4, n=32: log2(4)=2 phases; phase 1 gives 4 actions 4 visits each (16 sims),
        // phase 2 gives 2 actions 8 more each (16 sims).
        let seq = considered_visit_sequence(4, 32);
        assert_eq!(&seq[..4], &[0, 0, 0, 0]);
        assert_eq!(&seq[12..16], &[3, 3, 3, 3]);
        assert_eq!(&seq[16..18], &[4, 4]);
        assert_eq!(seq[31], 11);
    }
}
