//! Helpers shared by the search integration tests: tiny games whose answers are known, an
//! exact minimax to check proofs against, and evaluators that count or script their output.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt;

use zerosum_games::{value_for, Action, Game, GameError, Outcome, Player};
use zerosum_search::{Bound, Evaluator, NodeId, SearchConfig, Tree};

/// Parses `moves` (notation) from `initial`, panicking on a bad move.
pub fn play<G: Game>(initial: G, moves: &[&str]) -> G {
    let mut game = initial;
    for mv in moves {
        game.play_notation(mv).expect("test moves are legal");
    }
    game
}

/// The exact value of `position` for `player` with best play by both sides, mover-aware (turns
/// need not alternate). Memoised by position.
pub fn exact_value<G: Game>(position: &G, player: Player, memo: &mut HashMap<G, f32>) -> f32 {
    if let Some(outcome) = position.outcome() {
        return outcome.value_for(player);
    }
    let mover = position.to_move();
    let value = match memo.get(position) {
        Some(&v) => v,
        None => {
            let mut best = f32::NEG_INFINITY;
            for action in position.legal_action_vec() {
                let mut child = position.clone();
                child.apply(action);
                best = best.max(exact_value(&child, mover, memo));
            }
            memo.insert(position.clone(), best);
            best
        }
    };
    value_for(value, mover, player)
}

/// Every node reached by at least one simulation, with its position, depth first.
pub fn visited_nodes<G: Game>(tree: &Tree<G>) -> Vec<(NodeId, G)> {
    nodes_where(tree, |id| tree.node(id).visits > 0)
}

/// The nodes under which `keep` holds all the way down from the root, with positions.
fn nodes_where<G: Game>(tree: &Tree<G>, keep: impl Fn(NodeId) -> bool) -> Vec<(NodeId, G)> {
    let mut out = Vec::new();
    let mut stack = vec![(NodeId::ROOT, tree.root_position().clone())];
    while let Some((id, position)) = stack.pop() {
        for child in tree.node(id).children().filter(|&child| keep(child)) {
            let mut next = position.clone();
            next.apply(tree.node(child).action);
            stack.push((child, next));
        }
        out.push((id, position));
    }
    out
}

/// Checks every proven node against exact minimax, from the view of the node's `player`;
/// returns how many nodes were proven.
pub fn check_proofs<G: Game>(tree: &Tree<G>) -> usize {
    let mut memo = HashMap::new();
    let mut proven = 0;
    // Visited nodes, and the finished games the terminal check proved without a visit.
    let reached = |id| tree.node(id).visits > 0 || tree.node(id).bound != Bound::Unknown;
    for (id, position) in nodes_where(tree, reached) {
        let node = tree.node(id);
        if let Some(value) = node.bound.value() {
            let exact = exact_value(&position, node.player, &mut memo);
            assert_eq!(
                value, exact,
                "node {id:?} proven {:?} for {}, but minimax says {exact}, in\n{position}",
                node.bound, node.player
            );
            proven += 1;
        }
    }
    proven
}

/// The root child's bound as the root's mover sees it.
pub fn child_bound_for_root<G: Game>(tree: &Tree<G>, action: Action) -> Bound {
    let child = tree.node(tree.child(NodeId::ROOT, action).expect("a root child"));
    child.bound.seen_by(child.player, tree.root().player)
}

/// Visits of the root child for `action` (0 if there is none).
pub fn visits_of<G: Game>(tree: &Tree<G>, action: Action) -> u32 {
    tree.result(&SearchConfig::default())
        .visits
        .iter()
        .find(|v| v.0 == action)
        .map_or(0, |v| v.1)
}

/// Wraps an evaluator and records every batch size it is asked for.
pub struct Counting<E> {
    pub inner: E,
    pub batches: Vec<usize>,
}

impl<E> Counting<E> {
    pub fn new(inner: E) -> Counting<E> {
        Counting {
            inner,
            batches: Vec::new(),
        }
    }

    /// Positions evaluated so far.
    pub fn positions(&self) -> usize {
        self.batches.iter().sum()
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counting<E> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        assert!(
            !positions.is_empty(),
            "the driver never sends an empty batch"
        );
        assert_eq!(logits.len(), positions.len() * positions[0].num_actions());
        assert_eq!(values.len(), positions.len());
        for position in positions {
            assert!(
                !position.is_terminal(),
                "finished games are never evaluated"
            );
        }
        self.batches.push(positions.len());
        self.inner.evaluate(positions, logits, values);
    }
}

/// An evaluator from a function of one position: it writes the logits `[num_actions]` and
/// returns the value from the mover's view.
pub struct FnEvaluator<F>(pub F);

impl<G: Game, F: FnMut(&G, &mut [f32]) -> f32> Evaluator<G> for FnEvaluator<F> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        let n = logits.len() / positions.len();
        for (b, position) in positions.iter().enumerate() {
            values[b] = (self.0)(position, &mut logits[b * n..(b + 1) * n]);
        }
    }
}

/// A game over a fixed tree of binary choices: `movers[ply]` moves at each ply (turns need
/// not alternate), and after `movers.len()` plies `outcomes` (indexed by the choices read as a
/// binary number, first choice highest) decides the result.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Script {
    pub movers: &'static [Player],
    pub outcomes: &'static [Outcome],
    pub choices: Vec<u8>,
}

impl Script {
    pub fn new(movers: &'static [Player], outcomes: &'static [Outcome]) -> Script {
        assert_eq!(outcomes.len(), 1 << movers.len());
        Script {
            movers,
            outcomes,
            choices: Vec::new(),
        }
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "script {:?}", self.choices)
    }
}

impl Game for Script {
    fn name(&self) -> String {
        "script".to_string()
    }

    fn num_actions(&self) -> usize {
        2
    }

    fn obs_shape(&self) -> [usize; 3] {
        [1, 1, 1]
    }

    fn to_move(&self) -> Player {
        self.movers[self.choices.len().min(self.movers.len() - 1)]
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.choices.len() < self.movers.len() {
            out.extend([0, 1]);
        }
    }

    fn apply(&mut self, action: Action) {
        self.choices.push(action as u8);
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.choices.len() == self.movers.len()).then(|| {
            let index = self.choices.iter().fold(0, |i, &c| i * 2 + c as usize);
            self.outcomes[index]
        })
    }

    fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
    }

    fn hash(&self) -> u64 {
        self.choices
            .iter()
            .fold(1u64, |h, &c| h.wrapping_mul(31).wrapping_add(c as u64 + 1))
    }

    fn format_action(&self, action: Action) -> String {
        action.to_string()
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        text.parse().map_err(|_| GameError::BadNotation {
            text: text.to_string(),
            expected: "0 or 1".to_string(),
        })
    }
}

/// Checks, for a search run without the solver, that every value was stored from the view
/// of the right player: a finished game's node holds its outcome for the parent's mover,
/// and every other visited node holds its own evaluation plus its children's sums, each
/// converted from the child's mover to its own (so `visits` is one more than the children's).
pub fn check_value_sums<G: Game>(tree: &Tree<G>) {
    for (id, position) in visited_nodes(tree) {
        let node = tree.node(id);
        if let Some(outcome) = position.outcome() {
            let expected = node.visits as f32 * outcome.value_for(node.player);
            assert_eq!(
                node.value_sum, expected,
                "finished game {id:?} in\n{position}"
            );
            continue;
        }
        assert_eq!(node.player, position.to_move(), "{id:?} in\n{position}");
        let mut visits = 1;
        let mut sum = node.raw_value;
        for child in node.children() {
            let c = tree.node(child);
            visits += c.visits;
            sum += value_for(c.value_sum, c.player, node.player);
            let mut next = position.clone();
            next.apply(c.action);
            if c.visits > 0 && next.is_terminal() {
                assert_eq!(c.player, node.player, "a finished game keeps the mover");
            }
        }
        assert_eq!(node.visits, visits, "{id:?} in\n{position}");
        let tolerance = 1e-3 * (1.0 + node.visits as f32);
        assert!(
            (node.value_sum - sum).abs() <= tolerance,
            "{id:?}: value_sum {} but evaluation plus children give {sum}, in\n{position}",
            node.value_sum
        );
    }
}
