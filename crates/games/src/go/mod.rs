//! Go on square boards from 5x5 to 19x19, with area scoring (Tromp-Taylor) and positional
//! superko.
//!
//! # Rules
//!
//! - Black ([`Player::FIRST`]) moves first. A move places a stone on an empty point or
//!   passes. Opponent groups left without a liberty are removed; suicide (a move that leaves
//!   its own group without a liberty and captures nothing) is illegal.
//! - Positional superko: a stone move that recreates any earlier whole-board position (the
//!   stones only, whoever is to move) is illegal. Passing is always legal.
//! - The game ends after two passes in a row, or when `max_moves` actions (passes
//!   included) have been played; either way the position is scored.
//! - Tromp-Taylor area scoring: each side counts its stones plus the empty points from which
//!   only its own stones can be reached; empty regions touching both colours (or none)
//!   count for nobody. [`Go::score`] is black's area minus white's minus komi; the higher
//!   side wins, and an exact tie (possible only with a whole-number komi) is a draw.
//!
//! # Actions and notation
//!
//! Action `row * size + col` places a stone at that point, with row 0 the bottom row (`A1`
//! is action 0); action `size * size` is the pass. These are OpenSpiel's ids. Moves are
//! written in GTP coordinates: a column letter `A`..`T` with no `I`, then the row from 1
//! at the bottom (`C3`, `J9`), or `pass`; parsing ignores case.
//!
//! # Records
//!
//! [`Game::standard_record`] writes SGF (FF[4]): points as SGF's two lowercase letters
//! from the top-left corner (row 0 of the actions is SGF's last row), a pass as `[]`,
//! `RU[Tromp-Taylor]`, `KM` the komi and `RE` the counted result (`B+3.5`, `W+0.5`, `0`).
//! [`Game::final_score`] is [`Go::score`].
//!
//! # Observation
//!
//! Seven planes of `size` x `size`, laid out like the actions (index `row * size + col`,
//! row 0 at the bottom), from the point of view of the player to move:
//!
//! | plane | meaning |
//! |---|---|
//! | 0 | the mover's stones |
//! | 1 | the opponent's stones |
//! | 2 | ones (marks the board against the zero padding of convolutions) |
//! | 3 | ones when black is to move: komi makes the colours unequal |
//! | 4 | ones when the last move was a pass (passing now ends the game) |
//! | 5 | empty points where the mover may not play because of superko (ko) |
//! | 6 | the fraction of `max_moves` already played, on every point |
//!
//! No history planes: the superko ban, the only rule that depends on the past, is plane 5.
//!
//! # Position, hash and speed
//!
//! A position is two bitboards, a few counters and an `Arc` to the superko record (the
//! board hashes seen so far and the moves played), shared between clones and copied only
//! when a shared record grows. `legal_actions` and `observe` allocate nothing; `apply`
//! allocates only when the record is shared or full. Groups and liberties come from
//! bitboard flood fills.
//!
//! [`Game::hash`] is a Zobrist hash of the stones, the side to move, whether the last move
//! was a pass and the move count. It leaves out the set of earlier boards: two positions
//! that differ only in their history (and so, rarely, in which move superko forbids) hash
//! alike, and a cache keyed by the hash treats them as one. Equality (`==`) does compare
//! the histories. Superko compares 64-bit board hashes, so a collision could (with odds
//! near 2^-64 per comparison) forbid a legal move.
//!
//! ```
//! use zerosum_games::{go::Go, Game, Outcome, Player};
//! let mut game = Go::try_new(5, 0.5, 50).unwrap();
//! assert_eq!(game.name(), "go:size=5,komi=0.5,max_moves=50");
//! game.play_notation("C3").unwrap();
//! assert_eq!(game.parse_action("c3").unwrap(), 12);
//! game.play_notation("pass").unwrap();
//! game.play_notation("pass").unwrap();
//! // Black's one stone reaches every empty point: 25 - 0.5.
//! assert_eq!(game.score(), 24.5);
//! assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
//! ```

mod bits;
mod history;
mod movegen;
mod notation;
mod sgf;
#[cfg(test)]
mod tests;

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use bits::{Bits, Geometry};
use history::History;
use movegen::stones_hash;

use crate::error::GameError;
use crate::game::{square_cell_symmetries, Game, Symmetry};
use crate::layout::{BoardLayout, MoveCells};
use crate::outcome::{Action, Outcome, Player};
use crate::records::RecordTags;
use crate::zobrist::extra_key;

/// The smallest board side.
pub const MIN_SIZE: usize = 5;
/// The largest board side.
pub const MAX_SIZE: usize = 19;
/// The most actions a game may be allowed (`max_moves`).
pub const MAX_MOVES_LIMIT: usize = 10_000;
/// The planes of the observation.
pub const NUM_PLANES: usize = 7;

/// A Go position, with the board size, komi and move cap.
#[derive(Clone, Debug)]
pub struct Go {
    /// The stones of each player, indexed by [`Player::index`] (black first).
    stones: [Bits; 2],
    size: u8,
    /// Twice the komi (komi is a multiple of 0.5).
    komi2: i16,
    max_moves: u16,
    to_move: Player,
    /// Actions played since the start, passes included.
    num_moves: u16,
    /// Whether the last action was a pass.
    passed: bool,
    /// Set by `apply` when the game ends.
    outcome: Option<Outcome>,
    /// Zobrist hash of the stones alone, kept up to date by `apply`.
    board_hash: u64,
    /// A hash of the set of boards seen so far (the sum of their mixed hashes), so that
    /// `Game::hash` tells apart positions whose superko bans differ.
    seen_hash: u64,
    /// The boards seen so far (positional superko) and the moves since the start.
    history: Arc<History>,
}

impl Go {
    /// 5x5 with komi 0.5 and the default move cap (50).
    pub fn new() -> Go {
        Go::try_new(5, 0.5, Go::default_max_moves(5)).expect("5x5 is within the limits")
    }

    /// The move cap used when none is given: `2 * size * size`, as in OpenSpiel.
    pub fn default_max_moves(size: usize) -> usize {
        size.saturating_mul(size).saturating_mul(2)
    }

    /// An empty `size` x `size` board, black to move. The size must be in `5..=19`, komi a
    /// multiple of 0.5 no larger than the board's area, and `max_moves` in `1..=10000`; the
    /// error says which was not.
    pub fn try_new(size: usize, komi: f32, max_moves: usize) -> Result<Go, String> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(format!(
                "size must be in {MIN_SIZE}..={MAX_SIZE}, not {size}"
            ));
        }
        let area = (size * size) as f32;
        if !komi.is_finite() || (komi * 2.0).fract() != 0.0 || komi.abs() > area {
            return Err(format!(
                "komi must be a multiple of 0.5 between -{area} and {area}, not {komi}"
            ));
        }
        if !(1..=MAX_MOVES_LIMIT).contains(&max_moves) {
            return Err(format!(
                "max_moves must be in 1..={MAX_MOVES_LIMIT}, not {max_moves}"
            ));
        }
        let start = [Bits::EMPTY; 2];
        Ok(Go {
            stones: start,
            size: size as u8,
            komi2: (komi * 2.0) as i16,
            max_moves: max_moves as u16,
            to_move: Player::FIRST,
            num_moves: 0,
            passed: false,
            outcome: None,
            board_hash: 0,
            seen_hash: mix(0),
            history: Arc::new(History::new(start, Player::FIRST, 0)),
        })
    }

    /// A new game of the same size, komi and cap that starts from the given stones (points
    /// as action ids) with `to_move` to play, for handicap stones and set-up positions.
    /// Fails on a point off the board, a point given twice, or a group without liberties.
    pub fn try_from_stones(
        &self,
        black: &[Action],
        white: &[Action],
        to_move: Player,
    ) -> Result<Go, GameError> {
        let bad = |reason: String| GameError::BadPosition {
            text: format!("black {black:?} white {white:?}"),
            reason,
        };
        let cells = self.cells();
        let mut stones = [Bits::EMPTY; 2];
        for (player, points) in [black, white].into_iter().enumerate() {
            for &point in points {
                if point >= cells {
                    return Err(bad(format!("point {point} is off the board")));
                }
                if (stones[0] | stones[1]).contains(point) {
                    return Err(bad(format!("{} is given twice", self.format_action(point))));
                }
                stones[player].insert(point);
            }
        }
        let geometry = self.geometry();
        let empty = geometry.board & !(stones[0] | stones[1]);
        for own in stones {
            let mut rest = own;
            while let Some(point) = rest.first() {
                let group = geometry.flood(Bits::single(point), own);
                if (geometry.neighbours(group) & empty).is_empty() {
                    return Err(bad(format!(
                        "the group at {} has no liberty",
                        self.format_action(point)
                    )));
                }
                rest &= !group;
            }
        }
        let board_hash = stones_hash(stones);
        Ok(Go {
            stones,
            to_move,
            num_moves: 0,
            passed: false,
            outcome: None,
            board_hash,
            seen_hash: mix(board_hash),
            history: Arc::new(History::new(stones, to_move, board_hash)),
            ..*self
        })
    }

    /// The side of the board.
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// The komi: points added to white's area.
    pub fn komi(&self) -> f32 {
        f32::from(self.komi2) / 2.0
    }

    /// The number of actions (passes included) after which the game is scored.
    pub fn max_moves(&self) -> usize {
        self.max_moves as usize
    }

    /// Actions played since the start, passes included.
    pub fn num_moves(&self) -> usize {
        self.num_moves as usize
    }

    /// Whether the last action was a pass.
    pub fn last_move_was_pass(&self) -> bool {
        self.passed
    }

    /// The pass action, `size * size`.
    pub fn pass_action(&self) -> Action {
        self.cells()
    }

    /// Who has a stone at `row` (0 = bottom) and `col` (0 = left), if anyone.
    pub fn point(&self, row: usize, col: usize) -> Option<Player> {
        if row >= self.size() || col >= self.size() {
            return None;
        }
        let point = row * self.size() + col;
        Player::ALL
            .into_iter()
            .find(|p| self.stones[p.index()].contains(point))
    }

    /// Each player's Tromp-Taylor area, indexed by [`Player::index`]: stones plus the empty
    /// points that reach only that player's stones.
    pub fn area(&self) -> [u32; 2] {
        self.tromp_taylor_area()
    }

    /// Black's area minus white's area minus komi (positive: black is ahead), as GTP's
    /// `final_score` reports it. Defined at every position, not only at the end.
    pub fn score(&self) -> f32 {
        let [black, white] = self.area();
        black as f32 - white as f32 - self.komi()
    }

    /// The result if the game were scored now.
    fn scored_outcome(&self) -> Outcome {
        let [black, white] = self.area();
        let twice = 2 * (i64::from(black) - i64::from(white)) - i64::from(self.komi2);
        match twice.signum() {
            1 => Outcome::Win(Player::FIRST),
            -1 => Outcome::Win(Player::SECOND),
            _ => Outcome::Draw,
        }
    }

    fn cells(&self) -> usize {
        self.size() * self.size()
    }

    /// The fewest 64-bit words that hold the board.
    fn words(&self) -> usize {
        self.cells().div_ceil(64)
    }

    fn geometry(&self) -> &'static Geometry {
        Geometry::of(self.size())
    }
}

/// Spreads a board hash before it is summed into `seen_hash`.
fn mix(hash: u64) -> u64 {
    let z = (hash ^ (hash >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 29)
}

impl Default for Go {
    fn default() -> Go {
        Go::new()
    }
}

impl PartialEq for Go {
    fn eq(&self, other: &Go) -> bool {
        self.stones == other.stones
            && self.size == other.size
            && self.komi2 == other.komi2
            && self.max_moves == other.max_moves
            && self.to_move == other.to_move
            && self.num_moves == other.num_moves
            && self.passed == other.passed
            && (Arc::ptr_eq(&self.history, &other.history) || self.history == other.history)
    }
}

impl Eq for Go {}

impl Hash for Go {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(Game::hash(self));
    }
}

impl Game for Go {
    fn name(&self) -> String {
        format!(
            "go:size={},komi={},max_moves={}",
            self.size,
            self.komi(),
            self.max_moves
        )
    }

    fn num_actions(&self) -> usize {
        self.cells() + 1
    }

    fn obs_shape(&self) -> [usize; 3] {
        [NUM_PLANES, self.size(), self.size()]
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        self.scan_moves(|point, banned| {
            if !banned {
                out.push(point);
            }
        });
        out.push(self.pass_action());
    }

    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none()
            && (action == self.pass_action()
                || action < self.cells()
                    && self
                        .board_hash_after(action)
                        .is_some_and(|hash| !self.history.contains(hash)))
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal action {action} in\n{self}");
        let mut over = false;
        if action == self.pass_action() {
            over = self.passed;
            self.passed = true;
        } else {
            self.place(action);
            self.passed = false;
            // Superko makes every new board one never seen before: the sum stays a set hash.
            self.seen_hash = self.seen_hash.wrapping_add(mix(self.board_hash));
        }
        self.num_moves += 1;
        History::push(&mut self.history, action, self.board_hash);
        self.to_move = self.to_move.opponent();
        if over || self.num_moves >= self.max_moves {
            self.outcome = Some(self.scored_outcome());
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, out: &mut [f32]) {
        let cells = self.cells();
        let out = &mut out[..NUM_PLANES * cells];
        out.fill(0.0);
        let me = self.to_move.index();
        for (plane, player) in [(0, me), (1, 1 - me)] {
            for point in self.stones[player].iter() {
                out[plane * cells + point] = 1.0;
            }
        }
        let mut fill = |plane: usize, value: f32| {
            out[plane * cells..(plane + 1) * cells].fill(value);
        };
        fill(2, 1.0);
        if self.to_move == Player::FIRST {
            fill(3, 1.0);
        }
        if self.passed {
            fill(4, 1.0);
        }
        fill(6, f32::from(self.num_moves) / f32::from(self.max_moves));
        if self.outcome.is_none() {
            self.scan_moves(|point, banned| {
                if banned {
                    out[5 * cells + point] = 1.0;
                }
            });
        }
    }

    fn symmetries(&self) -> Vec<Symmetry> {
        square_cell_symmetries(self.size())
            .iter()
            .map(|cells| Symmetry::from_cells(cells, NUM_PLANES, 1))
            .collect()
    }

    fn transformed(&self, index: usize) -> Option<Go> {
        let maps = square_cell_symmetries(self.size());
        let source = maps.get(index)?;
        // The image's point `c` holds what `source[c]` holds here; `image_of` inverts that.
        let mut image_of = vec![0; self.cells() + 1];
        for (cell, &from) in source.iter().enumerate() {
            image_of[from] = cell;
        }
        image_of[self.cells()] = self.cells();
        let start = &self.history.start;
        let lists = start.map(|stones| {
            stones
                .iter()
                .map(|point| image_of[point])
                .collect::<Vec<_>>()
        });
        let mut image = self
            .try_from_stones(&lists[0], &lists[1], self.history.start_to_move)
            .expect("the image of a valid start is valid");
        for action in self.history.actions() {
            image.apply(image_of[action]);
        }
        Some(image)
    }

    fn hash(&self) -> u64 {
        let mut hash =
            self.board_hash ^ u64::from(self.num_moves).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if self.to_move == Player::SECOND {
            hash ^= extra_key(0);
        }
        if self.passed {
            hash ^= extra_key(1);
        }
        hash ^ self.seen_hash.rotate_left(23)
    }

    fn format_action(&self, action: Action) -> String {
        notation::format_point(self.size(), action)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_point(self.size(), text)
    }

    /// [`Go::score`], at every position.
    fn final_score(&self) -> Option<f32> {
        Some(self.score())
    }

    /// SGF, as the module docs describe under Records.
    fn standard_record(
        &self,
        actions: &[Action],
        tags: &RecordTags,
    ) -> Option<(&'static str, String)> {
        Some(("sgf", sgf::write(self, actions, tags)))
    }

    fn layout(&self) -> Option<BoardLayout> {
        let size = self.size();
        // Go counts rows from the bottom; the grid from the top.
        Some(BoardLayout::stones(size, |row, col| {
            self.point(size - 1 - row, col)
        }))
    }

    fn move_cells(&self, action: Action) -> MoveCells {
        let size = self.size();
        if action == self.pass_action() {
            return MoveCells::default();
        }
        // Actions count rows from the bottom; the grid from the top.
        MoveCells::one((size - 1 - action / size) * size + action % size)
    }
}
