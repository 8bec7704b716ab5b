//! The search tree: an arena of nodes, children stored contiguously.

use zerosum_games::{value_for, Action, Game, Player};

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

/// A search tree over positions of `G`, rooted at a position it owns.
#[derive(Clone, Debug)]
pub struct Tree<G: Game> {
    nodes: Vec<Node>,
    root_position: G,
    /// Whether Dirichlet noise goes onto the root's priors when it is expanded.
    pub root_noise: bool,
}

impl<G: Game> Tree<G> {
    /// A tree with only the root, not yet expanded.
    pub fn new(root_position: G) -> Tree<G> {
        let root = Node::new(0, 1.0, root_position.to_move());
        Tree {
            nodes: vec![root],
            root_position,
            root_noise: false,
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
