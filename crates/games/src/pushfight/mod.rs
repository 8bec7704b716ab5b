//! Push Fight (Brett Picotte): shove an opponent's piece off the board, as
//! `shared/pushfight-rules.md` describes it.
//!
//! Each player has three *squares* (which push) and two *rounds* (which only move) on a
//! board of 26 squares with rails along two sides (see [`geometry`]).
//! - **Setup**: the first player places its five pieces, one action each, on files `a`-`d`,
//!   then the second player its five on `e`-`h`; the first three placements of a player are
//!   its squares, the last two its rounds.
//! - **A turn** is 0-2 moves, then one compulsory push; each is one action, so the same
//!   player acts up to three times in a row and [`Game::to_move`] changes only after the push.
//!   A move takes one of the mover's pieces to any empty square reachable through empty
//!   squares. A push moves one of the mover's squares one step into a line of pieces, which
//!   all move one step; it is illegal into a rail or when the anchor is in the line. The
//!   anchor then sits on the pusher.
//! - **The end**: a piece pushed off the board loses for its owner; a player with no legal
//!   action loses (in practice: no legal push once the moves are used up). The rules have no
//!   move limit; parameter `max_plies` (default 300, counting every action, setup included;
//!   0 for none) ends a game that reaches it without a result as a draw.
//!
//! Actions are the 806 ids of the rules document and the oracle, over square indices
//! `0..26` in reading order from rank 4 down (`c4` = 0, `a3` = 5, `f1` = 25):
//! `square` to place (0-25), `26 + from * 26 + to` to move (26-701), and
//! `702 + from * 4 + direction` to push (702-805; up, left, right, down). Notation: the square
//! to place (`c3`), `c3-e2` to move, `d3>e3` to push from `d3` towards `e3`; the oracle's
//! `place c3`, `move c3-e2` and `push d3 right` are read too.
//!
//! The observation is 12 planes over the 4 x 8 grid (row 0 = rank 4, column 0 = file `a`),
//! from the mover's point of view: the mover's squares, its rounds, the opponent's squares,
//! its rounds, the anchor, the 26 board squares, the ten squares beside a rail, the squares
//! where the mover sets up (during setup only), then constant planes: placing a square,
//! placing a round, two moves left, one move left (all zero in the push-only step).
//!
//! Symmetries: the identity and the 180° rotation, the board's only one. The rotation also
//! swaps the setup halves, so a position remembers which half the first player sets up on
//! (always the left one in a game from [`PushFight::new`]); once setup is over that stops
//! mattering and is forgotten.
//!
//! [`Game::hash`] covers the pieces, the anchor, the mover, the moves left and the setup
//! orientation but not the ply count, as chess engines leave the fifty-move counter out:
//! the observation does not show it either, so positions that differ only in it share
//! network evaluations (`==` still compares it).
//!
//! ```
//! use zerosum_games::{pushfight::PushFight, Game, Player};
//! let mut game = PushFight::new();
//! for square in ["d3", "d2", "c3", "b3", "c2", "e3", "e2", "f3", "f2", "e4"] {
//!     game.play_notation(square).unwrap();
//! }
//! assert_eq!(game.to_move(), Player::FIRST);
//! game.play_notation("c3-c4").unwrap(); // a move: still the first player's turn
//! assert_eq!(game.to_move(), Player::FIRST);
//! game.play_notation("d3>e3").unwrap(); // the push ends the turn
//! assert_eq!(game.to_move(), Player::SECOND);
//! ```

pub mod geometry;
mod layout;
mod notation;

use crate::error::GameError;
use crate::game::{Game, Symmetry};
use crate::outcome::{Action, Outcome, Player};
use crate::zobrist::{cell_key, extra_key};
use geometry::{
    bits, cell, reachable, spread, square, Direction, LEFT_HALF, NEIGHBOR, NUM_CELLS, NUM_SQUARES,
    OFF, RAIL, RAIL_SQUARES, RIGHT_HALF, SQUARES,
};

/// The default ply cap: the length at which the rules document's trajectories stop.
pub const DEFAULT_MAX_PLIES: usize = 300;
/// The largest ply cap.
pub const MAX_MAX_PLIES: usize = u32::MAX as usize;
/// Pieces per player: three squares, then two rounds.
pub const PIECES_PER_PLAYER: usize = 5;
/// Square pieces (pushers) per player.
pub const SQUARES_PER_PLAYER: usize = 3;
/// The size of the action space.
pub const NUM_ACTIONS: usize = FIRST_PUSH + NUM_SQUARES * 4;
/// Observation planes.
pub const NUM_PLANES: usize = 12;

/// The first move action id.
const FIRST_MOVE: usize = NUM_SQUARES;
/// The first push action id.
const FIRST_PUSH: usize = FIRST_MOVE + NUM_SQUARES * NUM_SQUARES;
/// Placements in the whole setup.
const SETUP_PLIES: u8 = 2 * PIECES_PER_PLAYER as u8;
/// `anchor` when there is none.
const NO_ANCHOR: u8 = NUM_CELLS as u8;

/// A piece: its owner and whether it is a square (pusher) or a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub owner: Player,
    /// A square piece, which can push; otherwise a round one.
    pub pusher: bool,
}

impl Piece {
    /// The piece's code in `PushFight::cells`: 1 + 2 * owner + (0 square, 1 round).
    fn code(self) -> u8 {
        1 + 2 * self.owner.index() as u8 + u8::from(!self.pusher)
    }

    /// The piece with this code; `code` in `1..=4`.
    fn from_code(code: u8) -> Piece {
        Piece {
            owner: Player::try_from_index(usize::from((code - 1) / 2)).expect("codes are 1..=4"),
            pusher: (code - 1) & 1 == 0,
        }
    }
}

/// What one action does, decoded from its id; cells are grid cells (see [`geometry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Put the next piece on this cell.
    Place(usize),
    /// Move a piece from the first cell to the second.
    Move(usize, usize),
    /// Push with the square piece on this cell in this direction.
    Push(usize, Direction),
}

impl Act {
    /// Decodes an action id, `< NUM_ACTIONS`.
    pub fn of_action(action: Action) -> Act {
        if action < FIRST_MOVE {
            Act::Place(cell(action))
        } else if action < FIRST_PUSH {
            let a = action - FIRST_MOVE;
            Act::Move(cell(a / NUM_SQUARES), cell(a % NUM_SQUARES))
        } else {
            let a = action - FIRST_PUSH;
            Act::Push(cell(a / 4), Direction::from_index(a % 4))
        }
    }

    /// The action id.
    pub fn action(self) -> Action {
        match self {
            Act::Place(to) => square(to),
            Act::Move(from, to) => FIRST_MOVE + square(from) * NUM_SQUARES + square(to),
            Act::Push(from, direction) => FIRST_PUSH + square(from) * 4 + direction.index(),
        }
    }
}

/// A Push Fight position, with the ply cap.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PushFight {
    /// Piece codes by cell (see `Piece::code`), 0 where empty.
    cells: [u8; NUM_CELLS],
    /// The cells each player's pieces stand on.
    occupied: [u32; 2],
    /// The cells each player's square pieces stand on.
    pushers: [u32; 2],
    /// The anchored cell, `NO_ANCHOR` before the first push.
    anchor: u8,
    to_move: Player,
    /// Moves the mover may still make before pushing; 0 during setup.
    moves_left: u8,
    /// Placements made so far, `0..=10`.
    placed: u8,
    /// During setup: the first player sets up on the right half (a rotated position).
    flipped: bool,
    /// Actions played since the initial position (saturating).
    plies: u32,
    /// The ply cap, 0 for none.
    max_plies: u32,
    /// Set by `apply` when the game ends.
    outcome: Option<Outcome>,
    /// Zobrist hash of all of the above but the plies and the cap, kept up to date.
    hash: u64,
}

impl PushFight {
    /// An empty board before setup, with the default ply cap of 300.
    pub fn new() -> PushFight {
        PushFight::try_new(DEFAULT_MAX_PLIES).expect("the default cap is within the limits")
    }

    /// An empty board before setup; a game that reaches `max_plies` actions (setup
    /// included) without a result is a draw, and `max_plies = 0` means no cap. The cap must
    /// fit 32 bits.
    pub fn try_new(max_plies: usize) -> Result<PushFight, String> {
        if max_plies > MAX_MAX_PLIES {
            return Err(format!(
                "max_plies must be at most {MAX_MAX_PLIES} (0 for no cap), not {max_plies}"
            ));
        }
        Ok(PushFight {
            cells: [0; NUM_CELLS],
            occupied: [0; 2],
            pushers: [0; 2],
            anchor: NO_ANCHOR,
            to_move: Player::FIRST,
            moves_left: 0,
            placed: 0,
            flipped: false,
            plies: 0,
            max_plies: max_plies as u32,
            outcome: None,
            hash: 0,
        })
    }

    /// The ply cap, 0 for none.
    pub fn max_plies(&self) -> usize {
        self.max_plies as usize
    }

    /// Actions played since the initial position.
    pub fn plies(&self) -> usize {
        self.plies as usize
    }

    /// The piece on a grid cell (`row * 8 + file`, row 0 = rank 4), if any.
    pub fn piece(&self, cell: usize) -> Option<Piece> {
        (cell < NUM_CELLS && self.cells[cell] != 0).then(|| Piece::from_code(self.cells[cell]))
    }

    /// The anchored cell, if a push has been made.
    pub fn anchor(&self) -> Option<usize> {
        (self.anchor != NO_ANCHOR).then_some(usize::from(self.anchor))
    }

    /// Moves the player to move may still make before pushing (0 during setup).
    pub fn moves_left(&self) -> usize {
        usize::from(self.moves_left)
    }

    /// Whether the players are still placing their pieces.
    pub fn in_setup(&self) -> bool {
        self.placed < SETUP_PLIES
    }

    /// The squares where `player` sets up.
    fn setup_half(&self, player: Player) -> u32 {
        if (player == Player::FIRST) != self.flipped {
            LEFT_HALF
        } else {
            RIGHT_HALF
        }
    }

    /// The Zobrist key of a piece code on a cell.
    #[inline]
    fn piece_key(code: u8, cell: usize) -> u64 {
        cell_key(usize::from(code - 1), cell)
    }

    /// The Zobrist key of the anchor on a cell.
    #[inline]
    fn anchor_key(cell: usize) -> u64 {
        cell_key(0, 256 + cell)
    }

    /// The Zobrist key of the side to move, the moves left and the setup orientation.
    fn state_key(&self) -> u64 {
        let mut key = 0;
        if self.to_move == Player::SECOND {
            key ^= extra_key(0);
        }
        if self.moves_left > 0 {
            key ^= extra_key(usize::from(self.moves_left));
        }
        if self.flipped {
            key ^= extra_key(3);
        }
        key
    }

    /// The hash computed from scratch.
    fn full_hash(&self) -> u64 {
        let mut hash = self.state_key();
        for c in bits(self.occupied[0] | self.occupied[1]) {
            hash ^= Self::piece_key(self.cells[c], c);
        }
        if let Some(anchor) = self.anchor() {
            hash ^= Self::anchor_key(anchor);
        }
        hash
    }

    /// Puts piece `code` (0: none) on `cell`, keeping the masks and the hash.
    #[inline]
    fn set_cell(&mut self, cell: usize, code: u8) {
        let bit = 1u32 << cell;
        let old = self.cells[cell];
        if old != 0 {
            let owner = usize::from((old - 1) / 2);
            self.occupied[owner] &= !bit;
            self.pushers[owner] &= !bit;
            self.hash ^= Self::piece_key(old, cell);
        }
        if code != 0 {
            let owner = usize::from((code - 1) / 2);
            self.occupied[owner] |= bit;
            if (code - 1) & 1 == 0 {
                self.pushers[owner] |= bit;
            }
            self.hash ^= Self::piece_key(code, cell);
        }
        self.cells[cell] = code;
    }

    /// Where the line pushed from `from` towards `direction` ends: the empty cell its last
    /// piece moves to, or [`OFF`] when it falls off; `None` when the push is illegal (no piece
    /// to push, a rail, or the anchor in the line).
    #[inline]
    fn push_end(&self, from: usize, direction: Direction) -> Option<u8> {
        let d = direction.index();
        let mut cur = NEIGHBOR[from][d];
        if cur >= OFF || self.cells[usize::from(cur)] == 0 {
            return None;
        }
        loop {
            if cur == self.anchor {
                return None;
            }
            let next = NEIGHBOR[usize::from(cur)][d];
            match next {
                RAIL => return None,
                OFF => return Some(OFF),
                _ if self.cells[usize::from(next)] == 0 => return Some(next),
                _ => cur = next,
            }
        }
    }

    /// Whether the player to move has some legal push.
    fn can_push(&self) -> bool {
        bits(self.pushers[self.to_move.index()]).any(|c| {
            Direction::ALL
                .iter()
                .any(|&d| self.push_end(c, d).is_some())
        })
    }

    /// Whether the player to move has some legal action (in play: a push, or a move while
    /// moves are left).
    fn has_legal_action(&self) -> bool {
        if self.in_setup() {
            return true;
        }
        let empty = SQUARES & !(self.occupied[0] | self.occupied[1]);
        (self.moves_left > 0 && spread(self.occupied[self.to_move.index()]) & empty != 0)
            || self.can_push()
    }

    /// Hands the turn to `player` with `moves_left` moves.
    fn set_turn(&mut self, player: Player, moves_left: u8) {
        self.hash ^= self.state_key();
        self.to_move = player;
        self.moves_left = moves_left;
        self.hash ^= self.state_key();
    }

    /// Places the next piece of the setup on `to`.
    fn place(&mut self, to: usize) {
        let kind_index = self.placed as usize % PIECES_PER_PLAYER;
        let piece = Piece {
            owner: self.to_move,
            pusher: kind_index < SQUARES_PER_PLAYER,
        };
        self.set_cell(to, piece.code());
        self.placed += 1;
        if self.placed == SETUP_PLIES {
            // Setup is over: the first player starts, and the orientation stops mattering.
            self.hash ^= self.state_key();
            self.flipped = false;
            self.hash ^= self.state_key();
            self.set_turn(Player::FIRST, 2);
        } else if usize::from(self.placed) == PIECES_PER_PLAYER {
            self.set_turn(Player::SECOND, 0);
        }
    }

    /// Pushes from `from` towards `direction`; the push must be legal.
    fn push(&mut self, from: usize, direction: Direction) {
        debug_assert!(self.push_end(from, direction).is_some(), "illegal push");
        let d = direction.index();
        // The line, nearest first.
        let mut line = [0u8; 8];
        let mut len = 0;
        let mut cur = NEIGHBOR[from][d];
        while cur < OFF && self.cells[usize::from(cur)] != 0 {
            line[len] = cur;
            len += 1;
            cur = NEIGHBOR[usize::from(cur)][d];
        }
        let last = usize::from(line[len - 1]);
        if cur == OFF {
            let fallen = Piece::from_code(self.cells[last]);
            self.outcome = Some(Outcome::Win(fallen.owner.opponent()));
        } else {
            self.set_cell(usize::from(cur), self.cells[last]);
        }
        for i in (1..len).rev() {
            self.set_cell(usize::from(line[i]), self.cells[usize::from(line[i - 1])]);
        }
        self.set_cell(usize::from(line[0]), self.cells[from]);
        self.set_cell(from, 0);
        if let Some(old) = self.anchor() {
            self.hash ^= Self::anchor_key(old);
        }
        self.anchor = line[0];
        self.hash ^= Self::anchor_key(usize::from(line[0]));
        self.set_turn(self.to_move.opponent(), 2);
    }
}

impl Default for PushFight {
    fn default() -> PushFight {
        PushFight::new()
    }
}

impl Game for PushFight {
    fn name(&self) -> String {
        format!("pushfight:max_plies={}", self.max_plies)
    }

    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn obs_shape(&self) -> [usize; 3] {
        [NUM_PLANES, geometry::HEIGHT, geometry::WIDTH]
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let me = self.to_move.index();
        let empty = SQUARES & !(self.occupied[0] | self.occupied[1]);
        if self.in_setup() {
            out.extend(bits(self.setup_half(self.to_move) & empty).map(square));
            return;
        }
        if self.moves_left > 0 {
            for from in bits(self.occupied[me]) {
                let base = FIRST_MOVE + square(from) * NUM_SQUARES;
                out.extend(bits(reachable(from, empty)).map(|to| base + square(to)));
            }
        }
        for from in bits(self.pushers[me]) {
            for direction in Direction::ALL {
                if self.push_end(from, direction).is_some() {
                    out.push(FIRST_PUSH + square(from) * 4 + direction.index());
                }
            }
        }
    }

    #[inline]
    fn apply(&mut self, action: Action) {
        debug_assert!(
            self.outcome.is_none() && self.legal_action_vec().contains(&action),
            "illegal action {action} in\n{self}"
        );
        match Act::of_action(action) {
            Act::Place(to) => self.place(to),
            Act::Move(from, to) => {
                self.set_cell(to, self.cells[from]);
                self.set_cell(from, 0);
                self.set_turn(self.to_move, self.moves_left - 1);
            }
            Act::Push(from, direction) => self.push(from, direction),
        }
        self.plies = self.plies.saturating_add(1);
        if self.outcome.is_none() && !self.has_legal_action() {
            self.outcome = Some(Outcome::Win(self.to_move.opponent()));
        }
        if self.outcome.is_none() && self.max_plies != 0 && self.plies >= self.max_plies {
            self.outcome = Some(Outcome::Draw);
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, out: &mut [f32]) {
        let out = &mut out[..NUM_PLANES * NUM_CELLS];
        out.fill(0.0);
        let (me, them) = (self.to_move.index(), 1 - self.to_move.index());
        let mut mark = |plane: usize, mask: u32| {
            for c in bits(mask) {
                out[plane * NUM_CELLS + c] = 1.0;
            }
        };
        mark(0, self.pushers[me]);
        mark(1, self.occupied[me] & !self.pushers[me]);
        mark(2, self.pushers[them]);
        mark(3, self.occupied[them] & !self.pushers[them]);
        if let Some(anchor) = self.anchor() {
            mark(4, 1 << anchor);
        }
        mark(5, SQUARES);
        mark(6, RAIL_SQUARES);
        if self.in_setup() {
            mark(7, self.setup_half(self.to_move));
            let placing_square = usize::from(self.placed) % PIECES_PER_PLAYER < SQUARES_PER_PLAYER;
            mark(if placing_square { 8 } else { 9 }, u32::MAX);
        }
        match self.moves_left {
            2 => mark(10, u32::MAX),
            1 => mark(11, u32::MAX),
            _ => {}
        }
    }

    fn symmetries(&self) -> Vec<Symmetry> {
        let rotation = Symmetry {
            obs_source: (0..NUM_PLANES * NUM_CELLS)
                .map(|i| (i / NUM_CELLS * NUM_CELLS + NUM_CELLS - 1 - i % NUM_CELLS) as u32)
                .collect(),
            action_source: (0..NUM_ACTIONS)
                .map(|a| {
                    let image = match Act::of_action(a) {
                        Act::Place(to) => Act::Place(31 - to),
                        Act::Move(from, to) => Act::Move(31 - from, 31 - to),
                        Act::Push(from, d) => Act::Push(31 - from, d.reverse()),
                    };
                    image.action() as u32
                })
                .collect(),
        };
        vec![
            Symmetry::identity(NUM_PLANES * NUM_CELLS, NUM_ACTIONS),
            rotation,
        ]
    }

    fn transformed(&self, index: usize) -> Option<PushFight> {
        match index {
            0 => Some(*self),
            1 => {
                let mut image = *self;
                image.cells.reverse();
                image.occupied = self.occupied.map(u32::reverse_bits);
                image.pushers = self.pushers.map(u32::reverse_bits);
                if let Some(anchor) = self.anchor() {
                    image.anchor = (NUM_CELLS - 1 - anchor) as u8;
                }
                image.flipped = self.flipped != self.in_setup();
                image.hash = image.full_hash();
                Some(image)
            }
            _ => None,
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn format_action(&self, action: Action) -> String {
        notation::format_action(action)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_action(text)
    }

    fn layout(&self) -> Option<crate::layout::BoardLayout> {
        Some(layout::board(self))
    }

    fn move_cells(&self, action: Action) -> crate::layout::MoveCells {
        layout::move_cells(action)
    }
}

#[cfg(test)]
mod tests;
