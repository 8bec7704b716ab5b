//! The three steps of a simulation (select, expand, backup) and the lockstep driver that
//! runs one simulation in each of B trees around a single batched evaluator call.

use std::collections::HashMap;

use rand::Rng;
use rand_distr::{Distribution, Gamma};
use zerosum_games::{value_for, Action, Game, Player};

use crate::config::{Fpu, SearchConfig};
use crate::evaluator::Evaluator;
use crate::solver;
use crate::tree::{Bound, NodeId, Tree};

/// A leaf reached by selection.
pub(crate) struct Leaf<G> {
    pub path: Vec<NodeId>,
    pub position: G,
}

/// Walks from the root to a leaf by PUCT, applying actions to a copy of the root position.
/// Sets each node's player on its first visit.
pub(crate) fn select<G: Game>(tree: &mut Tree<G>, config: &SearchConfig) -> Leaf<G> {
    let mut position = tree.root_position().clone();
    let mut path = vec![NodeId::ROOT];
    let mut node = NodeId::ROOT;
    loop {
        let n = tree.node(node);
        let stop_at_proof = config.solver && node != NodeId::ROOT && n.bound != Bound::Unknown;
        if !n.expanded || n.num_children == 0 || stop_at_proof {
            return Leaf { path, position };
        }
        let child = crate::puct::select_child(tree, node, config);
        position.apply(tree.node(child).action);
        if tree.node(child).visits == 0 && !tree.node(child).expanded {
            let parent_player = tree.node(node).player;
            let c = tree.node_mut(child);
            c.player = if position.is_terminal() {
                parent_player
            } else {
                position.to_move()
            };
        }
        path.push(child);
        node = child;
    }
}

/// Adds `value` (seen by `seen_by`) to every node on `path`, then updates proofs upward.
pub(crate) fn backup<G: Game>(
    tree: &mut Tree<G>,
    path: &[NodeId],
    value: f32,
    seen_by: Player,
    config: &SearchConfig,
) {
    for &id in path.iter().rev() {
        let node = tree.node_mut(id);
        node.visits += 1;
        node.value_sum += value_for(value, seen_by, node.player);
    }
    if config.solver {
        for &id in path.iter().rev().skip(1) {
            if !solver::update_bound(tree, id) {
                break;
            }
        }
    }
}

/// Softmax of `logits` over `legal`, as `(action, prior)` pairs.
pub(crate) fn legal_priors(logits: &[f32], legal: &[Action]) -> Vec<(Action, f32)> {
    let max = legal
        .iter()
        .map(|&a| logits[a])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut priors: Vec<(Action, f32)> = legal
        .iter()
        .map(|&a| (a, (logits[a] - max).exp()))
        .collect();
    let total: f32 = priors.iter().map(|p| p.1).sum();
    for p in &mut priors {
        p.1 /= total;
    }
    priors
}

/// Mixes Dirichlet(alpha) noise into priors with weight `epsilon`.
pub fn add_dirichlet_noise(
    priors: &mut [(Action, f32)],
    alpha: f32,
    epsilon: f32,
    rng: &mut impl Rng,
) {
    if priors.len() < 2 || epsilon <= 0.0 {
        return;
    }
    let gamma = Gamma::new(alpha, 1.0).expect("alpha was validated positive");
    let noise: Vec<f32> = priors.iter().map(|_| gamma.sample(rng)).collect();
    let total: f32 = noise.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return;
    }
    for (p, n) in priors.iter_mut().zip(noise) {
        p.1 = (1.0 - epsilon) * p.1 + epsilon * n / total;
    }
}

/// Expands the leaf at the end of `path` with `priors` and backs up `value` (from the
/// leaf's mover's view).
pub(crate) fn expand<G: Game>(
    tree: &mut Tree<G>,
    path: &[NodeId],
    mut priors: Vec<(Action, f32)>,
    value: f32,
    config: &SearchConfig,
    rng: &mut impl Rng,
) {
    let leaf = *path.last().expect("a path holds at least the root");
    if leaf == NodeId::ROOT && tree.root_noise {
        add_dirichlet_noise(
            &mut priors,
            config.dirichlet_alpha,
            config.dirichlet_epsilon,
            rng,
        );
    }
    tree.add_children(leaf, &priors);
    tree.node_mut(leaf).raw_value = value;
    let player = tree.node(leaf).player;
    backup(tree, path, value, player, config);
}

/// Network outputs by position hash: legal-action priors and the value.
#[derive(Debug, Default)]
pub struct EvalCache {
    entries: HashMap<u64, (Vec<(Action, f32)>, f32)>,
    capacity: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that went to the evaluator.
    pub misses: u64,
}

impl EvalCache {
    /// A cache of at most `capacity` positions (0 keeps nothing). When full it starts over,
    /// which costs little: positions near the current games come back quickly.
    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            entries: HashMap::new(),
            capacity,
            hits: 0,
            misses: 0,
        }
    }

    /// Forgets every entry (call when the network changes).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn get(&mut self, hash: u64) -> Option<(Vec<(Action, f32)>, f32)> {
        if self.capacity == 0 {
            return None;
        }
        let found = self.entries.get(&hash).cloned();
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    fn insert(&mut self, hash: u64, priors: &[(Action, f32)], value: f32) {
        if self.capacity == 0 {
            return;
        }
        if self.entries.len() >= self.capacity {
            self.entries.clear();
        }
        self.entries.insert(hash, (priors.to_vec(), value));
    }
}

/// Reusable buffers for the lockstep driver.
#[derive(Default)]
pub struct Scratch<G> {
    positions: Vec<G>,
    pending: Vec<(usize, Vec<NodeId>)>,
    logits: Vec<f32>,
    values: Vec<f32>,
    legal: Vec<Action>,
}

impl<G> Scratch<G> {
    /// Empty buffers.
    pub fn new() -> Scratch<G> {
        Scratch {
            positions: Vec::new(),
            pending: Vec::new(),
            logits: Vec::new(),
            values: Vec::new(),
            legal: Vec::new(),
        }
    }
}

/// Runs `num_simulations` simulations in every tree, in lockstep: each step selects one
/// leaf per tree and evaluates all leaves that need the network in one `evaluate` call.
/// Leaves that are finished games, proven, or in `cache` are backed up at once.
pub fn run_simulations<G: Game, E: Evaluator<G> + ?Sized>(
    trees: &mut [Tree<G>],
    evaluator: &mut E,
    config: &SearchConfig,
    num_simulations: usize,
    cache: &mut EvalCache,
    scratch: &mut Scratch<G>,
    rng: &mut impl Rng,
) {
    let Some(first) = trees.first() else { return };
    let num_actions = first.root_position().num_actions();
    for _ in 0..num_simulations {
        scratch.positions.clear();
        scratch.pending.clear();
        for (index, tree) in trees.iter_mut().enumerate() {
            if tree.root_position().is_terminal() {
                continue;
            }
            let leaf = select(tree, config);
            let id = *leaf.path.last().expect("non-empty path");
            if let Some(outcome) = leaf.position.outcome() {
                let player = tree.node(id).player;
                let value = outcome.value_for(player);
                let node = tree.node_mut(id);
                node.expanded = true;
                node.bound = Bound::of_value(value);
                backup(tree, &leaf.path, value, player, config);
            } else if let Some(value) = tree.node(id).bound.value().filter(|_| config.solver) {
                let player = tree.node(id).player;
                backup(tree, &leaf.path, value, player, config);
            } else if let Some((priors, value)) = cache.get(Game::hash(&leaf.position)) {
                expand(tree, &leaf.path, priors, value, config, rng);
            } else {
                scratch.positions.push(leaf.position);
                scratch.pending.push((index, leaf.path));
            }
        }
        let batch = scratch.positions.len();
        if batch == 0 {
            continue;
        }
        scratch.logits.resize(batch * num_actions, 0.0);
        scratch.values.resize(batch, 0.0);
        evaluator.evaluate(&scratch.positions, &mut scratch.logits, &mut scratch.values);
        for (b, (index, path)) in scratch.pending.drain(..).enumerate() {
            let position = &scratch.positions[b];
            position.legal_actions(&mut scratch.legal);
            let logits = &scratch.logits[b * num_actions..(b + 1) * num_actions];
            let priors = legal_priors(logits, &scratch.legal);
            let value = scratch.values[b].clamp(-1.0, 1.0);
            cache.insert(Game::hash(position), &priors, value);
            expand(&mut trees[index], &path, priors, value, config, rng);
        }
    }
}

/// Searches one position: the convenience form of [`run_simulations`] for a single tree.
pub fn search_one<G: Game, E: Evaluator<G> + ?Sized>(
    tree: &mut Tree<G>,
    evaluator: &mut E,
    config: &SearchConfig,
    num_simulations: usize,
    cache: &mut EvalCache,
    rng: &mut impl Rng,
) {
    let mut scratch = Scratch::new();
    run_simulations(
        std::slice::from_mut(tree),
        evaluator,
        config,
        num_simulations,
        cache,
        &mut scratch,
        rng,
    );
}

/// The first-play-urgency value of an unvisited child, from the parent's view.
pub(crate) fn fpu_value(fpu: Fpu, parent_value: f32) -> f32 {
    match fpu {
        Fpu::Reduction(r) => parent_value - r,
        Fpu::Absolute(v) => v,
    }
}
