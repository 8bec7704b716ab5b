//! An exact connect-four solver: the game-theoretic value (win, draw or loss for the mover)
//! of any position, for measuring how often a player's move is optimal.
//!
//! The method is Pascal Pons's ("Solving Connect 4", 2017), here as a weak solver (it
//! tells win from draw from loss, not how fast): negamax with alpha-beta on the window
//! `[-1, 1]` over bitboards, a transposition table of bounds, moves that hand the opponent
//! an immediate win never tried, and the remaining moves ordered by how many winning cells
//! they create, centre columns first on ties.
//!
//! Bitboard layout: column `c` takes bits `c * (rows + 1) ..`, row 0 at the bottom, plus one
//! empty sentinel bit on top of each column, so that no line wraps from one column into the
//! next. A position is `(current, mask)`: the mover's stones and all stones. Boards up to
//! `(rows + 1) * cols <= 55` bits are supported (6 x 7 takes 49; 7 x 7 is too large).
//!
//! ```
//! use zerosum_games::connect_four::{solver::Solver, ConnectFour};
//! use zerosum_games::Game;
//! let mut game = ConnectFour::new();
//! // Three in the bottom row with both ends open: the first player wins.
//! for mv in ["d", "d", "c", "c", "e"] {
//!     game.play_notation(mv).unwrap();
//! }
//! let mut solver = Solver::new(&game, 1 << 16).unwrap();
//! assert_eq!(solver.value(&game), -1); // the second player, to move, is lost
//! ```

use super::ConnectFour;
use crate::game::Game;
use crate::outcome::Action;

/// Bits a board may take (see the module docs): keys `current + mask` must fit in 56 bits
/// beside the table entry's bound and value.
const MAX_BITS: usize = 55;

/// A transposition table entry's kind of bound.
const EXACT: u64 = 1;
const LOWER: u64 = 2;
const UPPER: u64 = 3;

/// Solves positions of one board size; keeps its table between calls.
pub struct Solver {
    rows: usize,
    cols: usize,
    k: usize,
    /// Rows plus the sentinel.
    column_bits: usize,
    /// The bottom cell of every column.
    bottom: u64,
    /// Every playable cell (no sentinels).
    board: u64,
    /// Columns, centre first.
    order: Vec<usize>,
    /// `key << 8 | bound << 2 | (value + 1)`; 0 is empty.
    table: Vec<u64>,
    /// `64 - log2(table.len())`: a key's slot is the top bits of its Fibonacci hash.
    slot_shift: u32,
    nodes: u64,
    /// The search gives up when `nodes` reaches this.
    budget: u64,
    /// Set when the budget ran out: values since are meaningless and not stored.
    exhausted: bool,
}

impl Solver {
    /// A solver for `game`'s board, with a table of `table_entries` (rounded up to a power
    /// of two; 8 bytes each). `None` when the board is too large for the bitboard.
    pub fn new(game: &ConnectFour, table_entries: usize) -> Option<Solver> {
        let (rows, cols, k) = (game.rows(), game.cols(), game.k());
        let column_bits = rows + 1;
        if column_bits * cols > MAX_BITS {
            return None;
        }
        let bottom = (0..cols).fold(0u64, |b, c| b | 1 << (c * column_bits));
        let column_mask = (1u64 << rows) - 1;
        let board = (0..cols).fold(0u64, |b, c| b | column_mask << (c * column_bits));
        let mut order: Vec<usize> = (0..cols).collect();
        // Centre first: |2c - (cols - 1)| grows outwards.
        order.sort_by_key(|&c| (2 * c as i64 - (cols as i64 - 1)).abs());
        Some(Solver {
            rows,
            cols,
            k,
            column_bits,
            bottom,
            board,
            order,
            table: vec![0; table_entries.max(2).next_power_of_two()],
            slot_shift: 64 - table_entries.max(2).next_power_of_two().trailing_zeros(),
            nodes: 0,
            budget: u64::MAX,
            exhausted: false,
        })
    }

    /// Positions searched since the solver was made.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The value of `position` for its mover: 1 won, 0 drawn, -1 lost with best play. A
    /// finished position is valued by its outcome.
    pub fn value(&mut self, position: &ConnectFour) -> i8 {
        assert!(
            (position.rows(), position.cols(), position.k()) == (self.rows, self.cols, self.k),
            "the solver was made for another board"
        );
        if let Some(outcome) = position.outcome() {
            return outcome.value_for(position.to_move()) as i8;
        }
        let (current, mask) = self.bitboards(position);
        if self.winning_cells(current, mask) & self.playable(mask) != 0 {
            return 1;
        }
        self.negamax(current, mask, position.num_moves(), -1, 1)
    }

    /// The value for the mover of each legal action of `position` (not finished), in
    /// action order.
    pub fn action_values(&mut self, position: &ConnectFour) -> Vec<(Action, i8)> {
        self.budget = u64::MAX;
        self.exhausted = false;
        self.values_of_actions(position)
    }

    /// [`Solver::action_values`], or `None` if solving takes more than `max_nodes`
    /// positions (some early positions take billions).
    pub fn action_values_within(
        &mut self,
        position: &ConnectFour,
        max_nodes: u64,
    ) -> Option<Vec<(Action, i8)>> {
        self.budget = self.nodes.saturating_add(max_nodes);
        self.exhausted = false;
        let values = self.values_of_actions(position);
        let exhausted = self.exhausted;
        self.budget = u64::MAX;
        self.exhausted = false;
        (!exhausted).then_some(values)
    }

    fn values_of_actions(&mut self, position: &ConnectFour) -> Vec<(Action, i8)> {
        let mover = position.to_move();
        position
            .legal_action_vec()
            .into_iter()
            .map(|action| {
                let mut child = *position;
                child.apply(action);
                let value = match child.outcome() {
                    Some(outcome) => outcome.value_for(mover) as i8,
                    None => -self.value(&child),
                };
                (action, value)
            })
            .collect()
    }

    fn bitboards(&self, position: &ConnectFour) -> (u64, u64) {
        let mover = position.to_move();
        let (mut current, mut mask) = (0u64, 0u64);
        for col in 0..self.cols {
            for row in 0..self.rows {
                if let Some(owner) = position.cell(row, col) {
                    let bit = 1u64 << (col * self.column_bits + row);
                    mask |= bit;
                    if owner == mover {
                        current |= bit;
                    }
                }
            }
        }
        (current, mask)
    }

    /// The lowest empty cell of every column that is not full.
    fn playable(&self, mask: u64) -> u64 {
        (mask + self.bottom) & self.board
    }

    /// The empty cells where `stones` would complete a line of `k`. For each direction and
    /// each place the cell may take in a window of `k`, the other `k - 1` cells of the
    /// window must hold stones; a window that would wrap past an edge meets the always
    /// empty sentinel row, or falls off the board mask.
    fn winning_cells(&self, stones: u64, mask: u64) -> u64 {
        if self.k == 4 {
            return self.winning_cells_of_four(stones, mask);
        }
        let h = self.column_bits as i64;
        let mut cells = 0u64;
        for step in [1, h, h - 1, h + 1] {
            for place in 0..self.k as i64 {
                let mut window = !0u64;
                for i in 0..self.k as i64 {
                    if i != place {
                        let shift = (place - i) * step;
                        window &= if shift > 0 {
                            stones << shift
                        } else {
                            stones >> -shift
                        };
                    }
                }
                cells |= window;
            }
        }
        cells & self.board & !mask
    }

    /// [`Solver::winning_cells`] for lines of four, as Pons writes it: the solver spends
    /// most of its time here, and the loops above cost it a factor of several.
    fn winning_cells_of_four(&self, stones: u64, mask: u64) -> u64 {
        // Vertically only the cell above three stones can be empty.
        let mut cells = (stones << 1) & (stones << 2) & (stones << 3);
        let h = self.column_bits as u32;
        for step in [h, h - 1, h + 1] {
            let pair = (stones << step) & (stones << (2 * step));
            cells |= pair & (stones << (3 * step));
            cells |= pair & (stones >> step);
            let pair = (stones >> step) & (stones >> (2 * step));
            cells |= pair & (stones << step);
            cells |= pair & (stones >> (3 * step));
        }
        cells & self.board & !mask
    }

    /// Moves that do not let the opponent win at once: a forced block if there is one
    /// threat, none if there are two, and never the cell under an opponent's winning cell.
    /// Assumes the mover cannot win at once.
    fn non_losing_moves(&self, current: u64, mask: u64) -> u64 {
        let mut possible = self.playable(mask);
        let threats = self.winning_cells(current ^ mask, mask);
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    /// Negamax on `[alpha, beta]` within `[-1, 1]`; the mover cannot win at once.
    fn negamax(
        &mut self,
        current: u64,
        mask: u64,
        moves: usize,
        mut alpha: i8,
        mut beta: i8,
    ) -> i8 {
        self.nodes += 1;
        if self.nodes >= self.budget {
            self.exhausted = true;
        }
        if self.exhausted {
            return 0;
        }
        let next = self.non_losing_moves(current, mask);
        if next == 0 {
            return -1;
        }
        // Two cells left, the mover cannot win and the move it makes leaves the opponent
        // no winning cell: nobody can win any more.
        if moves + 2 >= self.rows * self.cols {
            return 0;
        }
        let key = current + mask;
        // The key's low bits are the first columns alone: hashing spreads positions that
        // differ only in the last columns over the table, instead of onto one slot.
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.slot_shift) as usize;
        let entry = self.table[slot];
        if entry != 0 && entry >> 8 == key {
            let value = (entry & 3) as i8 - 1;
            match entry >> 2 & 3 {
                EXACT => return value,
                LOWER => alpha = alpha.max(value),
                _ => beta = beta.min(value),
            }
            if alpha >= beta {
                return value;
            }
        }
        let alpha_in = alpha;
        let mut best = -1i8;
        for cell in self.ordered_moves(current, mask, next).cells() {
            // After the move the opponent is to move: its stones are `current ^ mask`.
            let value = -self.negamax(current ^ mask, mask | cell, moves + 1, -beta, -alpha);
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        if !self.exhausted {
            self.store(slot, key, best, alpha_in, beta);
        }
        best
    }

    /// Keeps `best`, searched on the window `[alpha_in, beta]`, in the table at `slot`: as
    /// an upper bound if it failed low, a lower bound if it failed high, else as exact.
    fn store(&mut self, slot: usize, key: u64, best: i8, alpha_in: i8, beta: i8) {
        let bound = if best <= alpha_in {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.table[slot] = key << 8 | bound << 2 | (best + 1) as u64;
    }

    /// `(winning cells made, cell)` of each move in `next`, most winning cells made first,
    /// centre first among equals (a stable sort).
    fn ordered_moves(&self, current: u64, mask: u64, next: u64) -> MoveList {
        let mut moves = MoveList::default();
        for &col in &self.order {
            let column = ((1u64 << self.rows) - 1) << (col * self.column_bits);
            let cell = next & column;
            if cell != 0 {
                let mine = current | cell;
                moves.insert(self.winning_cells(mine, mask | cell).count_ones(), cell);
            }
        }
        moves
    }
}

/// Moves with their scores, highest first, equal scores in the order they came: a
/// fixed array rather than a sorted `Vec`, because every node of the search builds one.
#[derive(Default)]
struct MoveList {
    moves: [(u32, u64); MAX_BITS / 2],
    len: usize,
}

impl MoveList {
    fn insert(&mut self, score: u32, cell: u64) {
        let mut at = self.len;
        while at > 0 && self.moves[at - 1].0 < score {
            self.moves[at] = self.moves[at - 1];
            at -= 1;
        }
        self.moves[at] = (score, cell);
        self.len += 1;
    }

    fn cells(&self) -> impl Iterator<Item = u64> + '_ {
        self.moves[..self.len].iter().map(|m| m.1)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::outcome::Outcome;

    /// Plain memoised negamax over the game's own rules: slow, obviously right.
    fn reference(position: &ConnectFour, memo: &mut HashMap<ConnectFour, i8>) -> i8 {
        if let Some(outcome) = position.outcome() {
            return outcome.value_for(position.to_move()) as i8;
        }
        if let Some(&v) = memo.get(position) {
            return v;
        }
        let mover = position.to_move();
        let mut best = -1;
        for action in position.legal_action_vec() {
            let mut child = *position;
            child.apply(action);
            let v = match child.outcome() {
                Some(outcome) => outcome.value_for(mover) as i8,
                None => -reference(&child, memo),
            };
            best = best.max(v);
        }
        memo.insert(*position, best);
        best
    }

    /// Every position of random games on small boards, solved both ways.
    #[test]
    fn agrees_with_plain_negamax_on_small_boards() {
        let mut rng = SmallRng::seed_from_u64(3);
        for (rows, cols, k) in [(4, 4, 3), (4, 5, 4), (5, 4, 3), (3, 5, 3)] {
            let initial = ConnectFour::try_new(rows, cols, k).unwrap();
            let mut solver = Solver::new(&initial, 1 << 12).unwrap();
            let mut memo = HashMap::new();
            let mut checked = 0;
            for _ in 0..30 {
                let mut position = initial;
                while !position.is_terminal() {
                    assert_eq!(
                        solver.value(&position),
                        reference(&position, &mut memo),
                        "{rows}x{cols} k={k}:\n{position}"
                    );
                    checked += 1;
                    let legal = position.legal_action_vec();
                    position.apply(legal[rng.random_range(0..legal.len())]);
                }
            }
            assert!(checked > 100, "{checked}");
        }
    }

    #[test]
    fn late_positions_of_the_standard_board_agree_with_plain_negamax() {
        let mut rng = SmallRng::seed_from_u64(5);
        let initial = ConnectFour::new();
        let mut solver = Solver::new(&initial, 1 << 16).unwrap();
        let mut memo = HashMap::new();
        let mut checked = 0;
        while checked < 40 {
            let mut position = initial;
            // Random play to 12 empty cells, then compare if the game is still going.
            while !position.is_terminal() && position.num_moves() < 30 {
                let legal = position.legal_action_vec();
                position.apply(legal[rng.random_range(0..legal.len())]);
            }
            if position.is_terminal() {
                continue;
            }
            let values = solver.action_values(&position);
            for (action, value) in values {
                let mut child = position;
                child.apply(action);
                let expected = match child.outcome() {
                    Some(outcome) => outcome.value_for(position.to_move()) as i8,
                    None => -reference(&child, &mut memo),
                };
                assert_eq!(value, expected, "{position}\naction {action}");
            }
            checked += 1;
        }
    }

    #[test]
    fn known_values() {
        let solve = |moves: &str| {
            let mut game = ConnectFour::new();
            for mv in moves.split_whitespace() {
                game.play_notation(mv).unwrap();
            }
            let mut solver = Solver::new(&game, 1 << 20).unwrap();
            (solver.value(&game), game)
        };
        // An open three on the bottom row: the mover (second) cannot stop both ends.
        assert_eq!(solve("d d c c e").0, -1);
        // A finished game is valued by its result: the second player to move has lost.
        let (value, game) = solve("d e d e d e d");
        assert_eq!(
            game.outcome(),
            Some(Outcome::Win(crate::outcome::Player::FIRST))
        );
        assert_eq!(value, -1);
        // The first player to move wins in one.
        assert_eq!(solve("d e d e d e").0, 1);
    }

    #[test]
    fn a_search_over_budget_gives_up_and_leaves_the_table_sound() {
        let mut game = ConnectFour::new();
        for mv in ["d", "d", "c", "e", "d", "c", "e", "b", "f", "f"] {
            game.play_notation(mv).unwrap();
        }
        let mut solver = Solver::new(&game, 1 << 20).unwrap();
        assert_eq!(solver.action_values_within(&game, 10), None);
        let values = solver.action_values(&game);
        let mut fresh = Solver::new(&game, 1 << 20).unwrap();
        assert_eq!(values, fresh.action_values(&game));
        assert!(solver.action_values_within(&game, u64::MAX).is_some());
    }

    #[test]
    fn boards_past_the_bitboard_are_refused() {
        assert!(Solver::new(&ConnectFour::try_new(7, 7, 4).unwrap(), 16).is_none());
        assert!(Solver::new(&ConnectFour::try_new(6, 7, 4).unwrap(), 16).is_some());
    }
}
