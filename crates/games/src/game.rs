//! The game contract: everything search, training and the front ends know about a game.

use std::fmt;
use std::hash::Hash;

use crate::error::GameError;
use crate::layout::{BoardLayout, MoveCells};
use crate::outcome::{Action, Outcome, Player};
use crate::records::RecordTags;

/// A board symmetry acting on observations and actions together.
///
/// Both maps are permutations written as gathers: `image_obs[i] = obs[obs_source[i]]` and
/// `image_policy[a] = policy[action_source[a]]`. Index 0 of [`Game::symmetries`] is always
/// the identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// For each observation index of the image, the index it is read from. `[obs_len]`.
    pub obs_source: Vec<u32>,
    /// For each action of the image, the action it is read from. `[num_actions]`.
    pub action_source: Vec<u32>,
}

impl Symmetry {
    /// The symmetry that changes nothing.
    pub fn identity(obs_len: usize, num_actions: usize) -> Symmetry {
        Symmetry {
            obs_source: (0..obs_len as u32).collect(),
            action_source: (0..num_actions as u32).collect(),
        }
    }

    /// Builds a symmetry from a permutation of board cells, for games whose observation is
    /// `planes` planes of `cells` cells and whose actions are cells plus `extra_actions`
    /// actions that map to themselves (a pass). `cell_source[c]` is the cell that lands on
    /// `c`.
    pub fn from_cells(cell_source: &[usize], planes: usize, extra_actions: usize) -> Symmetry {
        let cells = cell_source.len();
        let obs_source = (0..planes)
            .flat_map(|p| cell_source.iter().map(move |&c| (p * cells + c) as u32))
            .collect();
        let action_source = cell_source
            .iter()
            .map(|&c| c as u32)
            .chain((cells..cells + extra_actions).map(|a| a as u32))
            .collect();
        Symmetry {
            obs_source,
            action_source,
        }
    }

    /// Writes the image of `obs` into `out`; both are `[obs_len]`.
    pub fn map_obs(&self, obs: &[f32], out: &mut [f32]) {
        for (o, &s) in out.iter_mut().zip(&self.obs_source) {
            *o = obs[s as usize];
        }
    }

    /// Writes the image of a per-action vector (policy, mask) into `out`; both are
    /// `[num_actions]`.
    pub fn map_policy<T: Copy>(&self, policy: &[T], out: &mut [T]) {
        for (o, &s) in out.iter_mut().zip(&self.action_source) {
            *o = policy[s as usize];
        }
    }

    /// The image of one action: the `b` with `action_source[b] == action`.
    pub fn map_action(&self, action: Action) -> Action {
        self.action_source
            .iter()
            .position(|&s| s as usize == action)
            .expect("action_source is a permutation, so every action has an image")
    }
}

/// The dihedral group of a square `size` x `size` board (8 symmetries, identity first),
/// as cell permutations for [`Symmetry::from_cells`]; cells are `row * size + col`.
pub fn square_cell_symmetries(size: usize) -> Vec<Vec<usize>> {
    let n = size - 1;
    /// `(row, col, size - 1)` to the image's `(row, col)`.
    type CellMap = fn(usize, usize, usize) -> (usize, usize);
    let maps: [CellMap; 8] = [
        |r, c, _| (r, c),
        |r, c, n| (c, n - r),
        |r, c, n| (n - r, n - c),
        |r, c, n| (n - c, r),
        |r, c, n| (r, n - c),
        |r, c, n| (n - r, c),
        |r, c, _| (c, r),
        |r, c, n| (n - c, n - r),
    ];
    maps.iter()
        .map(|map| {
            (0..size * size)
                .map(|cell| {
                    let (r, c) = map(cell / size, cell % size, n);
                    r * size + c
                })
                .collect()
        })
        .collect()
}

/// A position of a two-player, zero-sum, perfect-information game, with its rules.
///
/// A value of the type is one position, including the game's parameters (board size,
/// komi): the fixed facts are read from any position of the game. Positions are small
/// values that search clones freely.
///
/// Invariants, checked for every game by [`crate::testing::check_game`]:
/// - `outcome().is_none()` exactly when `legal_actions` is non-empty.
/// - every legal action is `< num_actions()`, and `parse_action(format_action(a)) == a`.
/// - `apply` on a clone leaves the original unchanged (positions are values).
/// - `observe` fills exactly `obs_len()` values, from the point of view of `to_move()`.
/// - for each symmetry `s` with a transformed position `t = transformed(s)`:
///   `legal_mask(t) == s.map_policy(legal_mask(self))` and
///   `observe(t) == s.map_obs(observe(self))`.
/// - equal positions have equal hashes.
pub trait Game: Clone + Eq + Hash + fmt::Display + fmt::Debug + Send + Sync + 'static {
    /// The registry name with every parameter, such as `connect4:rows=6,cols=7,k=4`;
    /// `registry::parse_game(name())` gives back the initial position of this game.
    fn name(&self) -> String;

    /// The size of the action space, and of the policy head.
    fn num_actions(&self) -> usize;

    /// The observation's shape `[planes, height, width]`.
    fn obs_shape(&self) -> [usize; 3];

    /// The player to move. Meaningless once the game is over.
    fn to_move(&self) -> Player;

    /// Appends the legal actions, in increasing order, to `out` (which is cleared first).
    /// Empty exactly when the game is over.
    fn legal_actions(&self, out: &mut Vec<Action>);

    /// Plays `action`, which must be legal (checked by `debug_assert!` only): this is the
    /// search's fast path. Input from people and protocols goes through [`Game::try_apply`].
    fn apply(&mut self, action: Action);

    /// How the game ended, or `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;

    /// Writes the observation from the mover's point of view into `out`, `[obs_len]`,
    /// laid out as `obs_shape()` planes.
    fn observe(&self, out: &mut [f32]);

    /// The board symmetries of this game, identity first; each maps observations and
    /// policies together. The set is fixed for a game (callers may cache it).
    fn symmetries(&self) -> Vec<Symmetry> {
        vec![Symmetry::identity(self.obs_len(), self.num_actions())]
    }

    /// This position seen through symmetry `index` of [`Game::symmetries`]. Used to test
    /// that the symmetries are right; `None` where a game cannot build the image.
    fn transformed(&self, index: usize) -> Option<Self> {
        (index == 0).then(|| self.clone())
    }

    /// A 64-bit hash of everything that decides the future of the game (Zobrist keys from
    /// a fixed seed, so it is stable across runs and machines).
    fn hash(&self) -> u64;

    /// The action in the notation of design.md (`a1`, `d`, `C3`, `e2e4`).
    fn format_action(&self, action: Action) -> String;

    /// Parses the notation of [`Game::format_action`]. It need not check legality.
    fn parse_action(&self, text: &str) -> Result<Action, GameError>;

    // ---- provided ----

    /// `planes * height * width`.
    fn obs_len(&self) -> usize {
        self.obs_shape().iter().product()
    }

    /// Whether this position occurred earlier in the game, where a repeated position
    /// matters to the rules (chess: a third occurrence draws). Search values a repetition
    /// below its root as a draw with `search.repetition_draws`, as chess engines do.
    fn is_repetition(&self) -> bool {
        false
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.outcome().is_some()
    }

    /// The legal actions as a new vector.
    fn legal_action_vec(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.legal_actions(&mut out);
        out
    }

    /// `[num_actions]`, true at legal actions.
    fn legal_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.num_actions()];
        for a in self.legal_action_vec() {
            mask[a] = true;
        }
        mask
    }

    /// Whether `action` is legal here.
    fn is_legal(&self, action: Action) -> bool {
        action < self.num_actions() && self.legal_action_vec().contains(&action)
    }

    /// Plays `action` if it is legal, else says why not.
    fn try_apply(&mut self, action: Action) -> Result<(), GameError> {
        if self.is_terminal() {
            return Err(GameError::GameOver);
        }
        if !self.is_legal(action) {
            return Err(GameError::IllegalAction {
                action: if action < self.num_actions() {
                    self.format_action(action)
                } else {
                    action.to_string()
                },
                position: self.to_string().replace('\n', "/"),
            });
        }
        self.apply(action);
        Ok(())
    }

    /// Parses a move in notation and plays it if it is legal.
    fn play_notation(&mut self, text: &str) -> Result<Action, GameError> {
        let action = self.parse_action(text)?;
        self.try_apply(action)?;
        Ok(action)
    }

    /// The score of this position as the rules count it, from the first player's view:
    /// first minus second, komi included (GTP's `final_score`: `B+3.5` is `3.5`). `None` for
    /// games whose result is only a win, a loss or a draw. A game that counts a score counts
    /// it at every position, as if the game ended there: training asks the initial position
    /// whether a game has a score (`replay.value_score_weight`). Where it is `Some` at a
    /// finished position, its sign agrees with [`Game::outcome`] (positive: the first player
    /// won, zero: a draw).
    fn final_score(&self) -> Option<f32> {
        None
    }

    /// The game played from this position (its initial position) by `actions`, in the
    /// game's standard record format: `(file extension, text)`, such as `("sgf", "(;FF[4]...)\n")`
    /// for Go and `("pgn", "[Event ...")` for chess; `None` for games with no such format.
    ///
    /// `actions` must be legal in turn (replay them with [`Game::try_apply`] first when they
    /// come from a file); the record stops before the first that is not. The text ends with
    /// a line break, so records of one format can be concatenated into one file (a PGN
    /// database or an SGF collection), a blank line between them.
    fn standard_record(
        &self,
        _actions: &[Action],
        _tags: &RecordTags,
    ) -> Option<(&'static str, String)> {
        None
    }

    /// This position as a grid of pieces, for a board drawer such as the web page
    /// ([`crate::layout`]); `None` for a game without a grid, which is drawn as its text
    /// board with its moves as buttons.
    fn layout(&self) -> Option<BoardLayout> {
        None
    }

    /// The cells of [`Game::layout`]'s grid that `action` (legal here) involves; none for
    /// a move without a cell (a pass) and for a game without a grid.
    fn move_cells(&self, _action: Action) -> MoveCells {
        MoveCells::default()
    }
}
