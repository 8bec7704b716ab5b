//! The three steps of a simulation (select, expand, backup) and the lockstep driver that
//! runs one simulation in each of B trees around a single batched evaluator call.

use std::collections::HashMap;

use rand::Rng;
use zerosum_games::{value_for, Action, Game, Player};

use crate::config::{Algorithm, SearchConfig};
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
/// `budget` is the move's whole budget: a root every move of which it covers is searched
/// move by move first ([`SearchConfig::visit_every_root_move`]).
pub(crate) fn select<G: Game>(tree: &mut Tree<G>, config: &SearchConfig, budget: usize) -> Leaf<G> {
    let mut position = tree.root_position().clone();
    let mut path = vec![NodeId::ROOT];
    let mut node = NodeId::ROOT;
    loop {
        let n = tree.node(node);
        let stop_at_proof = config.solver && node != NodeId::ROOT && n.bound != Bound::Unknown;
        if !n.expanded || n.num_children == 0 || stop_at_proof {
            return Leaf { path, position };
        }
        let child = match config.algorithm {
            Algorithm::Puct if node == NodeId::ROOT => {
                crate::puct::unvisited_root_child(tree, config, budget)
                    .unwrap_or_else(|| crate::puct::select_child(tree, node, config))
            }
            Algorithm::Puct => crate::puct::select_child(tree, node, config),
            Algorithm::Gumbel if node == NodeId::ROOT => crate::gumbel::select_root(tree, config)
                .unwrap_or_else(|| crate::puct::select_child(tree, node, config)),
            Algorithm::Gumbel => crate::gumbel::select_interior(tree, node, config),
        };
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

/// Adds `value` (seen by `seen_by`) to every node on `path`, multiplied by the discount
/// once for each ply above the leaf, then updates proofs upward.
pub(crate) fn backup<G: Game>(
    tree: &mut Tree<G>,
    path: &[NodeId],
    value: f32,
    seen_by: Player,
    config: &SearchConfig,
) {
    let mut value = value;
    for &id in path.iter().rev() {
        let node = tree.node_mut(id);
        node.visits += 1;
        node.value_sum += value_for(value, seen_by, node.player);
        value *= config.discount;
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

/// Expands the leaf at the end of `path` with `priors` and backs up `value` (from the
/// leaf's mover's view).
pub(crate) fn expand<G: Game>(
    tree: &mut Tree<G>,
    path: &[NodeId],
    position: &G,
    mut priors: Vec<(Action, f32)>,
    value: f32,
    config: &SearchConfig,
    rng: &mut impl Rng,
) {
    let leaf = *path.last().expect("a path holds at least the root");
    crate::noise::noise_new_root(tree, leaf, &mut priors, config, rng);
    tree.add_children(leaf, &priors);
    tree.node_mut(leaf).raw_value = value;
    if config.solver && config.terminal_check {
        prove_finished_children(tree, leaf, position);
    }
    // A leaf proven by its children backs up its exact value rather than the network's.
    let value = tree.node(leaf).bound.value().unwrap_or(value);
    let player = tree.node(leaf).player;
    backup(tree, path, value, player, config);
}

/// Marks the children of the just-expanded `id` whose action ends the game as proven, so
/// that the solver sees a win in one (or a move that loses at once) before any simulation
/// has to stumble on it under a prior that overlooks it.
fn prove_finished_children<G: Game>(tree: &mut Tree<G>, id: NodeId, position: &G) {
    let mover = tree.node(id).player;
    for child in tree.node(id).children() {
        let mut next = position.clone();
        next.apply(tree.node(child).action);
        if let Some(outcome) = next.outcome() {
            let node = tree.node_mut(child);
            node.player = mover;
            node.expanded = true;
            node.bound = Bound::of_value(outcome.value_for(mover));
        }
    }
    solver::update_bound(tree, id);
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
    let budgets = vec![num_simulations; trees.len()];
    for _ in 0..num_simulations {
        simulate_step(trees, &budgets, evaluator, config, cache, scratch, rng);
    }
}

/// One lockstep step: one simulation in every tree whose `budgets[i]` is non-zero (the
/// tree's budget for its current move, which the Gumbel root plans with), with one
/// evaluator call for all leaves that need it. Trees with budget 0 sit the step out, so
/// games searching with different budgets (playout cap randomization) share batches.
pub fn simulate_step<G: Game, E: Evaluator<G> + ?Sized>(
    trees: &mut [Tree<G>],
    budgets: &[usize],
    evaluator: &mut E,
    config: &SearchConfig,
    cache: &mut EvalCache,
    scratch: &mut Scratch<G>,
    rng: &mut impl Rng,
) {
    let Some(first) = trees.first() else { return };
    let num_actions = first.root_position().num_actions();
    let use_cache = evaluator.is_deterministic();
    scratch.positions.clear();
    scratch.pending.clear();
    for (index, tree) in trees.iter_mut().enumerate() {
        if budgets[index] == 0 || tree.root_position().is_terminal() {
            continue;
        }
        if let Some(leaf) = select_and_settle(tree, budgets[index], config, cache, use_cache, rng) {
            scratch.positions.push(leaf.position);
            scratch.pending.push((index, leaf.path));
        }
    }
    evaluate_pending(
        scratch,
        evaluator,
        num_actions,
        use_cache.then_some(cache),
        |index, path, position, priors, value| {
            expand(
                &mut trees[index],
                path,
                position,
                priors,
                value,
                config,
                rng,
            )
        },
    );
}

/// Selects a leaf of `tree` and settles it at once where no network is needed (a finished
/// game, a proven node, a repetition scored as a draw, a cached position); returns it when
/// it needs the network. `budget` is the move's whole budget, which the Gumbel root plans
/// with.
fn select_and_settle<G: Game>(
    tree: &mut Tree<G>,
    budget: usize,
    config: &SearchConfig,
    cache: &mut EvalCache,
    use_cache: bool,
    rng: &mut impl Rng,
) -> Option<Leaf<G>> {
    if config.algorithm == Algorithm::Gumbel
        && tree.gumbel.is_none()
        && tree.root().num_children > 0
    {
        crate::gumbel::init_root(tree, config, budget, rng);
    }
    tree.skips_proven =
        config.solver && config.skip_proven && tree.mode != crate::tree::SearchMode::SelfPlay;
    let leaf = select(tree, config, budget);
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
    } else if config.repetition_draws && id != NodeId::ROOT && leaf.position.is_repetition() {
        // Not a proof: the game goes on, so the node stays a leaf that scores a draw.
        let player = tree.node(id).player;
        backup(tree, &leaf.path, 0.0, player, config);
    } else if let Some((priors, value)) = use_cache
        .then(|| cache.get(Game::hash(&leaf.position)))
        .flatten()
    {
        expand(tree, &leaf.path, &leaf.position, priors, value, config, rng);
    } else {
        return Some(leaf);
    }
    None
}

/// Evaluates the positions queued in `scratch` in one call and hands each, with its tree's
/// index, path, legal priors and value, to `expand`; answers go into `cache` when given.
fn evaluate_pending<G: Game, E: Evaluator<G> + ?Sized>(
    scratch: &mut Scratch<G>,
    evaluator: &mut E,
    num_actions: usize,
    mut cache: Option<&mut EvalCache>,
    mut expand: impl FnMut(usize, &[NodeId], &G, Vec<(Action, f32)>, f32),
) {
    let batch = scratch.positions.len();
    if batch == 0 {
        return;
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
        if let Some(cache) = cache.as_deref_mut() {
            cache.insert(Game::hash(position), &priors, value);
        }
        expand(index, &path, position, priors, value);
    }
}

/// Runs `num_simulations` simulations in one tree, up to `config.leaves` leaves per
/// evaluator call. Each leaf waiting for the network carries a virtual loss along its path
/// (a visit lost for the mover who chose each step), which turns the next selections
/// elsewhere; the loss comes off before the real value is backed up. A selection that
/// comes back to a waiting leaf ends the batch early: the tree has nowhere else to go yet.
fn search_leaves<G: Game, E: Evaluator<G> + ?Sized>(
    tree: &mut Tree<G>,
    evaluator: &mut E,
    config: &SearchConfig,
    num_simulations: usize,
    cache: &mut EvalCache,
    scratch: &mut Scratch<G>,
    rng: &mut impl Rng,
) {
    let num_actions = tree.root_position().num_actions();
    let use_cache = evaluator.is_deterministic();
    let mut done = 0;
    while done < num_simulations && !tree.root_position().is_terminal() {
        scratch.positions.clear();
        scratch.pending.clear();
        let want = (num_simulations - done).min(config.leaves);
        let mut taken = 0;
        while taken < want {
            let Some(leaf) =
                select_and_settle(tree, num_simulations, config, cache, use_cache, rng)
            else {
                taken += 1;
                continue;
            };
            let id = *leaf.path.last().expect("non-empty path");
            if scratch
                .pending
                .iter()
                .any(|(_, path)| path.last() == Some(&id))
            {
                break;
            }
            virtual_loss(tree, &leaf.path, 1.0);
            scratch.positions.push(leaf.position);
            scratch.pending.push((0, leaf.path));
            taken += 1;
        }
        for (_, path) in &scratch.pending {
            virtual_loss(tree, path, -1.0);
        }
        evaluate_pending(
            scratch,
            evaluator,
            num_actions,
            use_cache.then_some(&mut *cache),
            |_, path, position, priors, value| {
                expand(tree, path, position, priors, value, config, rng)
            },
        );
        done += taken;
    }
}

/// Adds (`sign` 1) or takes back (`sign` -1) one visit below the root of `path` valued as a
/// loss for the mover who chose each node.
fn virtual_loss<G: Game>(tree: &mut Tree<G>, path: &[NodeId], sign: f32) {
    for pair in path.windows(2) {
        let chooser = tree.node(pair[0]).player;
        let node = tree.node_mut(pair[1]);
        if sign > 0.0 {
            node.visits += 1;
        } else {
            node.visits -= 1;
        }
        node.value_sum += sign * value_for(-1.0, chooser, node.player);
    }
}

/// Searches one position: [`run_simulations`] for a single tree, or with `config.leaves`
/// above 1 several leaves of it per evaluator call.
pub fn search_one<G: Game, E: Evaluator<G> + ?Sized>(
    tree: &mut Tree<G>,
    evaluator: &mut E,
    config: &SearchConfig,
    num_simulations: usize,
    cache: &mut EvalCache,
    rng: &mut impl Rng,
) {
    let mut scratch = Scratch::new();
    if config.leaves > 1 {
        return search_leaves(
            tree,
            evaluator,
            config,
            num_simulations,
            cache,
            &mut scratch,
            rng,
        );
    }
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

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use zerosum_games::tic_tac_toe::TicTacToe;

    use super::*;
    use crate::evaluator::UniformEvaluator;
    use crate::testutil::{position, Skewed};

    fn root_priors<G: Game>(tree: &Tree<G>) -> Vec<(Action, f32)> {
        tree.root()
            .children()
            .map(|c| (tree.node(c).action, tree.node(c).prior))
            .collect()
    }

    /// Expanded nodes that are not finished games: each took one network output.
    fn num_evaluated<G: Game>(tree: &Tree<G>) -> usize {
        (0..tree.len() as u32)
            .map(NodeId)
            .filter(|&id| tree.node(id).num_children > 0)
            .count()
    }

    /// `(value_sum, visits)` of root -> a -> b, where `movers` move at a and b, after one
    /// backup of `value` (seen by `seen_by`) from b.
    fn back_up_a_chain(
        movers: [Player; 2],
        value: f32,
        seen_by: Player,
        config: &SearchConfig,
    ) -> Vec<(f32, u32)> {
        let mut tree = Tree::new(TicTacToe::new());
        tree.add_children(NodeId::ROOT, &[(0, 1.0)]);
        let a = NodeId(1);
        tree.add_children(a, &[(1, 1.0)]);
        let b = NodeId(2);
        tree.node_mut(a).player = movers[0];
        tree.node_mut(b).player = movers[1];
        backup(&mut tree, &[NodeId::ROOT, a, b], value, seen_by, config);
        [NodeId::ROOT, a, b]
            .iter()
            .map(|&id| (tree.node(id).value_sum, tree.node(id).visits))
            .collect()
    }

    #[test]
    fn backup_converts_by_mover_not_by_ply() {
        // Root (first player) -> a node where the first player moves again -> a node where
        // the second player moves.
        let chain = back_up_a_chain(
            [Player::FIRST, Player::SECOND],
            0.75,
            Player::SECOND,
            &SearchConfig::default(),
        );
        let sums: Vec<f32> = chain.iter().map(|c| c.0).collect();
        assert_eq!(sums, vec![-0.75, -0.75, 0.75]);
        assert!(chain.iter().all(|c| c.1 == 1));
    }

    #[test]
    fn backup_discounts_once_a_ply_above_the_leaf() {
        let config = SearchConfig {
            discount: 0.5,
            ..SearchConfig::default()
        };
        let chain = back_up_a_chain([Player::SECOND, Player::FIRST], 1.0, Player::FIRST, &config);
        let sums: Vec<f32> = chain.iter().map(|c| c.0).collect();
        assert_eq!(sums, vec![0.25, -0.5, 1.0]);
    }

    #[test]
    fn legal_priors_are_a_softmax_over_legal_actions() {
        let logits = [0.0, 2f32.ln(), 100.0, 0.0];
        let priors = legal_priors(&logits, &[0, 1, 3]);
        let want = [(0, 0.25), (1, 0.5), (3, 0.25)];
        for ((a, p), (wa, wp)) in priors.iter().zip(want) {
            assert_eq!(*a, wa);
            assert!((p - wp).abs() < 1e-6, "{priors:?}");
        }
    }

    #[test]
    fn root_noise_touches_only_the_root_and_the_cache_keeps_clean_priors() {
        let mut tree = Tree::new(TicTacToe::new());
        let mut cache = EvalCache::new(1000);
        let mut rng = SmallRng::seed_from_u64(9);
        let config = SearchConfig::default();
        tree.begin_search(crate::SearchMode::SelfPlay, &config, &mut rng);
        search_one(
            &mut tree,
            &mut UniformEvaluator,
            &config,
            30,
            &mut cache,
            &mut rng,
        );
        let priors = root_priors(&tree);
        let total: f32 = priors.iter().map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-5);
        assert!(
            priors.iter().any(|p| (p.1 - 1.0 / 9.0).abs() > 1e-3),
            "{priors:?}"
        );
        for child in tree.root().children().filter(|&c| tree.node(c).expanded) {
            for grandchild in tree.node(child).children() {
                assert_eq!(tree.node(grandchild).prior, 1.0 / 8.0);
            }
        }
        let (cached, _) = cache.entries[&Game::hash(tree.root_position())].clone();
        assert!(cached.iter().all(|p| p.1 == 1.0 / 9.0), "{cached:?}");
    }

    #[test]
    fn terminal_children_belong_to_the_parents_mover() {
        // x to move wins at a3; the finished game's node keeps x as its player and the win
        // is recorded from x's view.
        let game = position(&["a1", "b1", "a2", "b2"]);
        let mut tree = Tree::new(game);
        let mut rng = SmallRng::seed_from_u64(1);
        let config = SearchConfig::default();
        search_one(
            &mut tree,
            &mut UniformEvaluator,
            &config,
            40,
            &mut EvalCache::new(0),
            &mut rng,
        );
        let win = tree.node(tree.child(NodeId::ROOT, 0).unwrap());
        assert_eq!(win.player, Player::FIRST);
        assert_eq!(win.bound, Bound::Win);
        assert!(win.visits > 0);
        assert_eq!(win.mean_value(), 1.0);
        assert_eq!(tree.root().bound, Bound::Win);
    }

    /// The tree after `sims` simulations from `moves` with uniform priors.
    fn searched(moves: &[&str], sims: usize, terminal_check: bool) -> Tree<TicTacToe> {
        let mut tree = Tree::new(position(moves));
        let config = SearchConfig {
            terminal_check,
            ..SearchConfig::default()
        };
        let mut rng = SmallRng::seed_from_u64(4);
        let mut cache = EvalCache::new(0);
        search_one(
            &mut tree,
            &mut UniformEvaluator,
            &config,
            sims,
            &mut cache,
            &mut rng,
        );
        tree
    }

    #[test]
    fn the_terminal_check_proves_a_win_in_one_at_expansion() {
        // x to move wins at a3. Expanding the root is enough to prove it with the check;
        // without it, one simulation has not visited a3.
        let moves = ["a1", "b1", "a2", "b2"];
        assert_eq!(searched(&moves, 1, true).root().bound, Bound::Win);
        assert_eq!(searched(&moves, 1, false).root().bound, Bound::Unknown);
    }

    #[test]
    fn the_terminal_check_proves_moves_that_allow_a_win_in_one_lost() {
        // o threatens b3; every x move but b3 is lost the moment its node is expanded.
        let tree = searched(&["a1", "b1", "c3", "b2"], 6, true);
        let block = position(&[]).parse_action("b3").unwrap();
        let mut proven_lost = 0;
        for child in tree.root().children() {
            let node = tree.node(child);
            if node.action != block && node.num_children > 0 {
                assert_eq!(node.bound.seen_by(node.player, Player::FIRST), Bound::Loss);
                proven_lost += 1;
            }
        }
        assert!(proven_lost >= 2, "only {proven_lost} replies were expanded");
    }

    #[test]
    fn a_second_search_of_the_same_position_comes_from_the_cache() {
        let game = position(&["b2"]);
        let config = SearchConfig::default();
        let mut cache = EvalCache::new(10_000);
        let mut evaluator = Skewed::default();
        let mut rng = SmallRng::seed_from_u64(2);
        let mut first = Tree::new(game);
        search_one(
            &mut first,
            &mut evaluator,
            &config,
            150,
            &mut cache,
            &mut rng,
        );
        // Transpositions (the same board by another move order) already hit the cache here.
        assert_eq!(
            evaluator.positions + cache.hits as usize,
            num_evaluated(&first)
        );
        assert!(cache.hits > 0);
        assert_eq!(cache.entries.len(), evaluator.positions);
        let evaluated = evaluator.positions;
        let hits = cache.hits;

        let mut second = Tree::new(game);
        search_one(
            &mut second,
            &mut evaluator,
            &config,
            150,
            &mut cache,
            &mut rng,
        );
        assert_eq!(evaluator.positions, evaluated, "nothing new to evaluate");
        assert_eq!(cache.hits - hits, num_evaluated(&second) as u64);
        assert_eq!(root_priors(&second), root_priors(&first));
        assert!(root_priors(&first)
            .iter()
            .any(|p| (p.1 - 1.0 / 8.0).abs() > 1e-3));
        assert_eq!(
            second.result(&SearchConfig::default()),
            first.result(&SearchConfig::default())
        );
    }

    #[test]
    fn cache_of_capacity_zero_never_stores() {
        let config = SearchConfig::default();
        let mut cache = EvalCache::new(0);
        let mut evaluator = Skewed::default();
        let mut rng = SmallRng::seed_from_u64(2);
        let mut expanded = 0;
        for _ in 0..2 {
            let mut tree = Tree::new(position(&["b2"]));
            search_one(
                &mut tree,
                &mut evaluator,
                &config,
                100,
                &mut cache,
                &mut rng,
            );
            expanded += num_evaluated(&tree);
        }
        assert!(cache.entries.is_empty());
        assert_eq!((cache.hits, cache.misses), (0, 0));
        assert_eq!(evaluator.positions, expanded);
    }

    #[test]
    fn a_full_cache_starts_over() {
        let mut cache = EvalCache::new(2);
        for hash in 0..3 {
            cache.insert(hash, &[(0, 1.0)], hash as f32);
        }
        assert_eq!(cache.entries.len(), 1);
        assert_eq!(cache.get(0), None);
        assert_eq!(cache.get(2), Some((vec![(0, 1.0)], 2.0)));
        assert_eq!((cache.hits, cache.misses), (1, 1));
        cache.clear();
        assert_eq!(cache.get(2), None);
    }
}
