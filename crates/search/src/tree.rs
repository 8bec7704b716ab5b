//! The search tree: an arena of nodes, children stored contiguously.

use zerosum_games::{value_for, Action, Game, Player};

use crate::config::SearchConfig;

/// Index of a node in its tree's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub const ROOT: NodeId = NodeId(0);

    fn index(self) -> usize {
        self.0 as usize
    }
}

/// What is proven about a node's value, from the view of the player to move there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Nothing proven yet.
    Unknown,
    /// The player to move wins with best play.
    Win,
    /// The player to move loses with best play.
    Loss,
    /// Best play draws.
    Draw,
}

impl Bound {
    /// The exact value of a proven node from its mover's view; `None` while unknown.
    pub fn value(self) -> Option<f32> {
        match self {
            Bound::Unknown => None,
            Bound::Win => Some(1.0),
            Bound::Loss => Some(-1.0),
            Bound::Draw => Some(0.0),
        }
    }

    /// The same bound seen by another player.
    pub fn seen_by(self, from: Player, to: Player) -> Bound {
        match self {
            Bound::Win | Bound::Loss if from != to => {
                if self == Bound::Win {
                    Bound::Loss
                } else {
                    Bound::Win
                }
            }
            other => other,
        }
    }

    /// The bound of a finished game for `player`.
    pub fn of_value(value: f32) -> Bound {
        if value > 0.0 {
            Bound::Win
        } else if value < 0.0 {
            Bound::Loss
        } else {
            Bound::Draw
        }
    }
}

/// One node: the position reached by `action` from its parent.
#[derive(Clone, Debug)]
pub struct Node {
    /// The action that leads here from the parent.
    pub action: Action,
    /// The prior probability of that action, as the parent's policy gave it.
    pub prior: f32,
    /// Completed simulations through this node.
    pub visits: u32,
    /// Sum of the backed-up values, from `player`'s view.
    pub value_sum: f32,
    /// The player to move here (for a finished game: the parent's mover). Set on the first
    /// visit.
    pub player: Player,
    /// First child in the arena; meaningful when `num_children > 0`.
    pub first_child: u32,
    /// Number of children; 0 until expanded (and for finished games).
    pub num_children: u32,
    /// Whether the node was expanded or found terminal.
    pub expanded: bool,
    /// What is proven about this node.
    pub bound: Bound,
    /// With a proven bound: the plies its proof takes to end the game, the winner hurrying
    /// and the loser holding out (0 for a finished game).
    pub proof_plies: u16,
    /// The network's value of this node, from `player`'s view (for reports).
    pub raw_value: f32,
}

impl Node {
    fn new(action: Action, prior: f32, player: Player) -> Node {
        Node {
            action,
            prior,
            visits: 0,
            value_sum: 0.0,
            player,
            first_child: 0,
            num_children: 0,
            expanded: false,
            bound: Bound::Unknown,
            proof_plies: 0,
            raw_value: 0.0,
        }
    }

    /// Mean value from `player`'s view; 0 when unvisited.
    pub fn mean_value(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }

    /// The ids of the children.
    pub fn children(&self) -> impl Iterator<Item = NodeId> + use<> {
        (self.first_child..self.first_child + self.num_children).map(NodeId)
    }
}

/// What a search is for, which decides the rules that only self-play uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// A search for the move to play (arena, play, the protocols, evaluation, and
    /// self-play's fast searches under playout cap randomization): the network's priors as
    /// they are, visit shares as the target.
    #[default]
    Play,
    /// A full self-play search whose result trains the network: Dirichlet noise on the
    /// root's priors (PUCT), KataGo's forced playouts at the root, and their pruning from
    /// the training target.
    SelfPlay,
}

/// A search tree over positions of `G`, rooted at a position it owns.
#[derive(Clone, Debug)]
pub struct Tree<G: Game> {
    nodes: Vec<Node>,
    root_position: G,
    /// What the search now running is for; set by [`Tree::begin_search`].
    pub(crate) mode: SearchMode,
    /// Whether the search sets proven draws aside ([`SearchConfig::skip_proven`]), which
    /// the final choice then weighs by value rather than by visits.
    pub(crate) skips_proven: bool,
    /// The Gumbel root's draws and schedule, once set up.
    pub(crate) gumbel: Option<GumbelRoot>,
    /// The root children's priors as the network gave them, kept when root noise changed
    /// them (`None`: the children's priors are the network's).
    pub(crate) network_root_priors: Option<Vec<f32>>,
}

impl<G: Game> Tree<G> {
    /// A tree with only the root, not yet expanded.
    pub fn new(root_position: G) -> Tree<G> {
        let root = Node::new(0, 1.0, root_position.to_move());
        Tree {
            nodes: vec![root],
            root_position,
            mode: SearchMode::Play,
            skips_proven: false,
            gumbel: None,
            network_root_priors: None,
        }
    }

    /// The position at the root.
    pub fn root_position(&self) -> &G {
        &self.root_position
    }

    /// A node by id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub(crate) fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    /// The root node.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// `(action, prior)` for each root move as the network gave it, before any root noise:
    /// what the search's target is compared with to tell how much the search learned.
    pub fn network_root_policy(&self) -> Vec<(Action, f32)> {
        let children = self.root().children();
        match &self.network_root_priors {
            Some(priors) => children
                .zip(priors)
                .map(|(c, &p)| (self.node(c).action, p))
                .collect(),
            None => children
                .map(|c| (self.node(c).action, self.node(c).prior))
                .collect(),
        }
    }

    /// How many nodes the arena holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree holds only an unexpanded root.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1 && !self.nodes[0].expanded
    }

    /// Adds children for `(action, prior)` pairs under `parent`, whose mover is `player`.
    pub(crate) fn add_children(&mut self, parent: NodeId, children: &[(Action, f32)]) {
        let first = self.nodes.len() as u32;
        let player = self.node(parent).player;
        self.nodes
            .extend(children.iter().map(|&(a, p)| Node::new(a, p, player)));
        let node = self.node_mut(parent);
        node.first_child = first;
        node.num_children = children.len() as u32;
        node.expanded = true;
    }

    /// The child of `parent` reached by `action`.
    pub fn child(&self, parent: NodeId, action: Action) -> Option<NodeId> {
        self.node(parent)
            .children()
            .find(|&c| self.node(c).action == action)
    }

    /// Among `parent`'s children proven won for its mover, the one whose proof ends the game
    /// soonest (the first of equals): playing the quickest proof makes progress, where the
    /// first proof found may be a longer one every move.
    pub fn quickest_win(&self, parent: NodeId) -> Option<NodeId> {
        let mover = self.node(parent).player;
        self.node(parent)
            .children()
            .filter(|&c| {
                let n = self.node(c);
                n.bound.seen_by(n.player, mover) == Bound::Win
            })
            .min_by_key(|&c| self.node(c).proof_plies)
    }

    /// The value of `child` as its parent's mover sees it, or `None` if unvisited and
    /// unproven.
    pub fn child_value_for_parent(&self, parent: NodeId, child: NodeId) -> Option<f32> {
        let (p, c) = (self.node(parent), self.node(child));
        if let Some(v) = c.bound.value() {
            return Some(value_for(v, c.player, p.player));
        }
        (c.visits > 0).then(|| value_for(c.mean_value(), c.player, p.player))
    }

    /// Plays `action` at the root. With `reuse`, the subtree under it becomes the new tree;
    /// otherwise the tree starts afresh.
    pub fn advance(&mut self, action: Action, reuse: bool) {
        self.gumbel = None;
        self.network_root_priors = None;
        let mut position = self.root_position.clone();
        position.apply(action);
        let child = if reuse {
            self.child(NodeId::ROOT, action)
        } else {
            None
        };
        match child {
            Some(child) if self.node(child).visits > 0 => {
                let mut nodes = Vec::with_capacity(self.nodes.len());
                let mut root = self.node(child).clone();
                root.prior = 1.0;
                nodes.push(root);
                // Breadth first, copying each child block whole so blocks stay contiguous.
                let mut next = 0;
                while next < nodes.len() {
                    let old = &nodes[next];
                    if old.num_children > 0 {
                        let start = old.first_child as usize;
                        let end = start + old.num_children as usize;
                        let new_first = nodes.len() as u32;
                        nodes[next].first_child = new_first;
                        nodes.extend_from_slice(&self.nodes[start..end]);
                    }
                    next += 1;
                }
                self.nodes = nodes;
            }
            _ => {
                self.nodes.clear();
                self.nodes.push(Node::new(0, 1.0, position.to_move()));
            }
        }
        self.root_position = position;
    }
}

/// The root's Gumbel state: one Gumbel draw per root child and the visit schedule.
#[derive(Clone, Debug)]
pub struct GumbelRoot {
    /// `g(a)` per root child, in child order.
    pub gumbels: Vec<f32>,
    /// For each simulation index, the visit count an action must have to be chosen.
    pub schedule: Vec<u32>,
    /// The settings the root was set up with (sigma's constants, the solver).
    pub config: SearchConfig,
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use zerosum_games::tic_tac_toe::TicTacToe;

    use super::*;
    use crate::config::SearchConfig;
    use crate::evaluator::RolloutEvaluator;
    use crate::simulate::{search_one, EvalCache};

    /// What a node holds apart from where it sits in the arena.
    type Summary = (Action, u32, u32, Player, Bound, bool, u32);

    fn summary(node: &Node) -> Summary {
        (
            node.action,
            node.visits,
            node.value_sum.to_bits(),
            node.player,
            node.bound,
            node.expanded,
            node.num_children,
        )
    }

    /// The subtree under `id`, depth first, children in order.
    fn subtree<G: Game>(tree: &Tree<G>, id: NodeId) -> Vec<Summary> {
        let mut out = vec![summary(tree.node(id))];
        for child in tree.node(id).children() {
            out.extend(subtree(tree, child));
        }
        out
    }

    /// Checks the arena's shape: child blocks lie inside the arena, every node but the root
    /// is in exactly one block, and each child's action is legal where it is played (and
    /// each visited node's player is the mover there).
    fn check_shape<G: Game>(tree: &Tree<G>) {
        let mut parents = vec![0usize; tree.len()];
        let mut stack = vec![(NodeId::ROOT, tree.root_position().clone())];
        while let Some((id, position)) = stack.pop() {
            let node = tree.node(id);
            if node.visits > 0 && !position.is_terminal() {
                assert_eq!(node.player, position.to_move());
            }
            assert!((node.first_child + node.num_children) as usize <= tree.len());
            for child in node.children() {
                parents[child.index()] += 1;
                let action = tree.node(child).action;
                assert!(position.is_legal(action), "{action} illegal in\n{position}");
                let mut next = position.clone();
                next.apply(action);
                stack.push((child, next));
            }
        }
        assert_eq!(parents[0], 0);
        assert!(parents[1..].iter().all(|&p| p == 1), "{parents:?}");
    }

    fn searched(num_simulations: usize) -> Tree<TicTacToe> {
        let mut tree = Tree::new(TicTacToe::new());
        let mut rng = SmallRng::seed_from_u64(4);
        let mut evaluator = RolloutEvaluator::new(4, 1);
        let config = SearchConfig::default();
        search_one(
            &mut tree,
            &mut evaluator,
            &config,
            num_simulations,
            &mut EvalCache::new(0),
            &mut rng,
        );
        tree
    }

    #[test]
    fn advance_with_reuse_keeps_the_subtree_whole() {
        let mut tree = searched(400);
        check_shape(&tree);
        let mut rng = SmallRng::seed_from_u64(4);
        let action = tree.choose_action(0.0, &mut rng).unwrap();
        let child = tree.child(NodeId::ROOT, action).unwrap();
        let kept = subtree(&tree, child);
        let visits = tree.node(child).visits;
        assert!(kept.len() > 10 && kept.len() < tree.len());

        tree.advance(action, true);
        let mut position = TicTacToe::new();
        position.apply(action);
        assert_eq!(tree.root_position(), &position);
        assert_eq!(tree.root().visits, visits);
        assert_eq!(tree.root().prior, 1.0);
        assert_eq!(tree.len(), kept.len());
        assert_eq!(subtree(&tree, NodeId::ROOT), kept);
        check_shape(&tree);

        // Searching on adds exactly the new simulations and keeps the tree well formed.
        let mut evaluator = RolloutEvaluator::new(5, 1);
        let config = SearchConfig::default();
        search_one(
            &mut tree,
            &mut evaluator,
            &config,
            100,
            &mut EvalCache::new(0),
            &mut rng,
        );
        assert_eq!(tree.root().visits, visits + 100);
        check_shape(&tree);

        // And again, one level further down.
        let action = tree.choose_action(0.0, &mut rng).unwrap();
        let kept = subtree(&tree, tree.child(NodeId::ROOT, action).unwrap());
        tree.advance(action, true);
        assert_eq!(subtree(&tree, NodeId::ROOT), kept);
        check_shape(&tree);
    }

    #[test]
    fn advance_without_reuse_starts_afresh() {
        let mut tree = searched(100);
        tree.advance(4, false);
        assert_eq!(tree.len(), 1);
        assert!(tree.is_empty());
        assert_eq!(tree.root().visits, 0);
        assert_eq!(tree.root().player, Player::SECOND);
        assert_eq!(tree.root().bound, Bound::Unknown);
        let mut position = TicTacToe::new();
        position.apply(4);
        assert_eq!(tree.root_position(), &position);
    }

    #[test]
    fn advance_to_an_unvisited_or_unknown_child_starts_afresh() {
        // Three simulations: the root and two of its nine children.
        let mut tree = searched(3);
        let unvisited = tree
            .root()
            .children()
            .find(|&c| tree.node(c).visits == 0)
            .map(|c| tree.node(c).action)
            .unwrap();
        tree.advance(unvisited, true);
        assert!(tree.is_empty());
        assert_eq!(tree.root().player, Player::SECOND);
        // An unexpanded root has no children to keep either.
        tree.advance(0, true);
        assert!(tree.is_empty());
        assert_eq!(tree.root().player, Player::FIRST);
    }
}
