//! Connect four, and its generalisation to `rows` x `cols` boards with lines of `k`.
//!
//! Pieces drop to the lowest empty cell of a column; the first player to line up `k` in a
//! row, a column or a diagonal wins, and a full board without a line is a draw. Actions are
//! columns `0..cols`, written as letters `a`, `b`, ... from the left.
//!
//! A position is a small `Copy` value: one 16-bit mask per column and player, the column
//! heights and an incrementally updated Zobrist hash. `apply` checks for a line only through
//! the piece just dropped and allocates nothing.
//!
//! ```
//! use zerosum_games::{connect_four::ConnectFour, Game, Outcome, Player};
//! let mut game = ConnectFour::new();
//! for mv in ["d", "e", "d", "e", "d", "e", "d"] {
//!     game.play_notation(mv).unwrap();
//! }
//! assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
//! ```

pub mod solver;

use std::fmt;

use crate::error::GameError;
use crate::game::{Game, Symmetry};
use crate::layout::{letters, player_names, BoardLayout, MoveCells, Piece, Style};
use crate::outcome::{Action, Outcome, Player};
use crate::zobrist::{cell_key, extra_key};

/// The largest number of rows or columns.
pub const MAX_SIZE: usize = 16;
/// The smallest number of rows or columns.
pub const MIN_SIZE: usize = 3;
/// The shortest line that can be asked for.
pub const MIN_K: usize = 3;

/// A connect-four position, with the board's size and the line length.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ConnectFour {
    /// `stones[player][col]`: bit `r` set when that player holds row `r` (0 = bottom).
    stones: [[u16; MAX_SIZE]; 2],
    /// The number of pieces in each column.
    heights: [u8; MAX_SIZE],
    rows: u8,
    cols: u8,
    k: u8,
    to_move: Player,
    /// Pieces on the board.
    num_moves: u16,
    /// Set by `apply` when the game ends.
    outcome: Option<Outcome>,
    /// Zobrist hash of the pieces and the side to move, kept up to date by `apply`.
    hash: u64,
}

impl ConnectFour {
    /// The standard game: 6 rows, 7 columns, four in a row.
    pub fn new() -> ConnectFour {
        ConnectFour::try_new(6, 7, 4).expect("6x7 with k=4 is within the limits")
    }

    /// An empty board of `rows` x `cols` where `k` in a line wins. Rows and columns must be
    /// in `3..=16`, and `k` in `3..=max(rows, cols)`; the error says which was not.
    pub fn try_new(rows: usize, cols: usize, k: usize) -> Result<ConnectFour, String> {
        let range = MIN_SIZE..=MAX_SIZE;
        if !range.contains(&rows) {
            return Err(format!(
                "rows must be in {MIN_SIZE}..={MAX_SIZE}, not {rows}"
            ));
        }
        if !range.contains(&cols) {
            return Err(format!(
                "cols must be in {MIN_SIZE}..={MAX_SIZE}, not {cols}"
            ));
        }
        let longest = rows.max(cols);
        if !(MIN_K..=longest).contains(&k) {
            return Err(format!(
                "k must be in {MIN_K}..={longest} (the longer side of the board), not {k}"
            ));
        }
        Ok(ConnectFour {
            stones: [[0; MAX_SIZE]; 2],
            heights: [0; MAX_SIZE],
            rows: rows as u8,
            cols: cols as u8,
            k: k as u8,
            to_move: Player::FIRST,
            num_moves: 0,
            outcome: None,
            hash: 0,
        })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    /// The number of columns, and of actions.
    pub fn cols(&self) -> usize {
        self.cols as usize
    }

    /// How many in a line win.
    pub fn k(&self) -> usize {
        self.k as usize
    }

    /// Pieces on the board (moves played).
    pub fn num_moves(&self) -> usize {
        usize::from(self.num_moves)
    }

    /// Who holds the cell at `row` (0 = bottom) and `col` (0 = left), if anyone.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        if row >= self.rows() || col >= self.cols() {
            return None;
        }
        Player::ALL
            .into_iter()
            .find(|p| self.stones[p.index()][col] >> row & 1 == 1)
    }

    /// The Zobrist key of `player`'s piece at `row`, `col`.
    #[inline]
    fn key(player: usize, row: usize, col: usize) -> u64 {
        cell_key(player, col * MAX_SIZE + row)
    }

    /// The hash computed from scratch.
    fn full_hash(&self) -> u64 {
        let mut hash = if self.to_move == Player::SECOND {
            extra_key(0)
        } else {
            0
        };
        for (player, columns) in self.stones.iter().enumerate() {
            for (col, &column) in columns.iter().enumerate().take(self.cols()) {
                let mut bits = column;
                while bits != 0 {
                    hash ^= Self::key(player, bits.trailing_zeros() as usize, col);
                    bits &= bits - 1;
                }
            }
        }
        hash
    }

    /// Whether `player`, who just dropped a piece at `row`, `col`, now has a line of `k`
    /// through it.
    #[inline]
    fn wins_through(&self, player: usize, row: usize, col: usize) -> bool {
        let k = self.k();
        let own = &self.stones[player];
        // Vertical: the new piece is the top of its column, so look only down.
        if row + 1 >= k {
            let need = ((1u32 << k) - 1) << (row + 1 - k);
            if u32::from(own[col]) & need == need {
                return true;
            }
        }
        let (rows, cols) = (self.rows() as isize, self.cols() as isize);
        let holds = |r: isize, c: isize| {
            r >= 0 && r < rows && c >= 0 && c < cols && own[c as usize] >> r & 1 == 1
        };
        let (row, col) = (row as isize, col as isize);
        for (dr, dc) in [(0, 1), (1, 1), (-1, 1)] {
            let mut count = 1;
            let (mut r, mut c) = (row + dr, col + dc);
            while count < k && holds(r, c) {
                count += 1;
                r += dr;
                c += dc;
            }
            let (mut r, mut c) = (row - dr, col - dc);
            while count < k && holds(r, c) {
                count += 1;
                r -= dr;
                c -= dc;
            }
            if count >= k {
                return true;
            }
        }
        false
    }
}

impl Default for ConnectFour {
    fn default() -> ConnectFour {
        ConnectFour::new()
    }
}

impl Game for ConnectFour {
    fn name(&self) -> String {
        format!(
            "connect4:rows={},cols={},k={}",
            self.rows, self.cols, self.k
        )
    }

    fn num_actions(&self) -> usize {
        self.cols()
    }

    fn obs_shape(&self) -> [usize; 3] {
        [2, self.rows(), self.cols()]
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let rows = self.rows;
        out.extend((0..self.cols()).filter(|&col| self.heights[col] < rows));
    }

    #[inline]
    fn apply(&mut self, action: Action) {
        debug_assert!(
            self.outcome.is_none() && action < self.cols() && self.heights[action] < self.rows,
            "illegal action {action} in\n{self}"
        );
        let player = self.to_move.index();
        let row = self.heights[action] as usize;
        self.stones[player][action] |= 1 << row;
        self.heights[action] += 1;
        self.num_moves += 1;
        self.hash ^= Self::key(player, row, action) ^ extra_key(0);
        if self.wins_through(player, row, action) {
            self.outcome = Some(Outcome::Win(self.to_move));
        } else if usize::from(self.num_moves) == self.rows() * self.cols() {
            self.outcome = Some(Outcome::Draw);
        }
        self.to_move = self.to_move.opponent();
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, out: &mut [f32]) {
        let (rows, cols) = (self.rows(), self.cols());
        let plane = rows * cols;
        out[..2 * plane].fill(0.0);
        let own = self.to_move.index();
        for (offset, player) in [(0, own), (plane, 1 - own)] {
            for (col, &column) in self.stones[player].iter().enumerate().take(cols) {
                let mut bits = column;
                while bits != 0 {
                    let row = bits.trailing_zeros() as usize;
                    // Observation row 0 is the top of the board.
                    out[offset + (rows - 1 - row) * cols + col] = 1.0;
                    bits &= bits - 1;
                }
            }
        }
    }

    fn symmetries(&self) -> Vec<Symmetry> {
        let (rows, cols) = (self.rows(), self.cols());
        let mirror = Symmetry {
            obs_source: (0..2 * rows * cols)
                .map(|i| {
                    let (line, col) = (i / cols, i % cols);
                    (line * cols + cols - 1 - col) as u32
                })
                .collect(),
            action_source: (0..cols).rev().map(|c| c as u32).collect(),
        };
        vec![Symmetry::identity(2 * rows * cols, cols), mirror]
    }

    fn transformed(&self, index: usize) -> Option<ConnectFour> {
        match index {
            0 => Some(*self),
            1 => {
                let mut image = *self;
                let cols = self.cols();
                for col in 0..cols {
                    image.heights[col] = self.heights[cols - 1 - col];
                    for player in 0..2 {
                        image.stones[player][col] = self.stones[player][cols - 1 - col];
                    }
                }
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
        ((b'a' + action as u8) as char).to_string()
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        let last = (b'a' + self.cols - 1) as char;
        let bad = || GameError::BadNotation {
            text: text.to_string(),
            expected: format!("a column letter a..{last}"),
        };
        match text.trim().to_ascii_lowercase().as_bytes() {
            &[letter @ b'a'..=b'z'] if usize::from(letter - b'a') < self.cols() => {
                Ok(usize::from(letter - b'a'))
            }
            _ => Err(bad()),
        }
    }

    fn layout(&self) -> Option<BoardLayout> {
        let (rows, cols) = (self.rows(), self.cols());
        // The game counts rows from the bottom; the grid from the top.
        let cells = (0..rows * cols)
            .map(|cell| {
                self.cell(rows - 1 - cell / cols, cell % cols)
                    .map(|p| Piece::new(p, ""))
            })
            .collect();
        Some(BoardLayout {
            col_labels: letters(cols, false),
            player_names: player_names("red", "yellow"),
            ..BoardLayout::grid(rows, cols, Style::Holes, cells)
        })
    }

    /// The disc lands in the lowest empty cell of the column; a click anywhere in the
    /// column plays it.
    fn move_cells(&self, action: Action) -> MoveCells {
        let (rows, cols) = (self.rows(), self.cols());
        let landing = (0..rows)
            .find(|&row| self.cell(row, action).is_none())
            .map(|row| (rows - 1 - row) * cols + action);
        MoveCells {
            cells: landing.into_iter().collect(),
            hit: (0..rows).map(|row| row * cols + action).collect(),
        }
    }
}

impl fmt::Display for ConnectFour {
    /// The board, top row first, `x`, `o` and `.`, with the column letters below.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..self.rows()).rev() {
            for col in 0..self.cols() {
                let mark = match self.cell(row, col) {
                    Some(Player::FIRST) => 'x',
                    Some(_) => 'o',
                    None => '.',
                };
                if col > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{mark}")?;
            }
            writeln!(f)?;
        }
        for col in 0..self.cols() {
            if col > 0 {
                f.write_str(" ")?;
            }
            f.write_str(&self.format_action(col))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_game, perft};

    fn play(game: ConnectFour, moves: &str) -> ConnectFour {
        let mut game = game;
        for mv in moves.split_whitespace() {
            game.play_notation(mv)
                .unwrap_or_else(|e| panic!("{mv}: {e}"));
        }
        game
    }

    /// Plays `moves`, checks the game goes on until the last one, and returns the outcome.
    fn outcome_of(game: ConnectFour, moves: &str) -> Option<Outcome> {
        let all: Vec<&str> = moves.split_whitespace().collect();
        let before = play(game, &all[..all.len() - 1].join(" "));
        assert_eq!(before.outcome(), None, "ended early: {moves}\n{before}");
        play(before, all[all.len() - 1]).outcome()
    }

    #[test]
    fn wins_in_every_direction() {
        let first = Some(Outcome::Win(Player::FIRST));
        let second = Some(Outcome::Win(Player::SECOND));
        let g = ConnectFour::new();
        assert_eq!(outcome_of(g, "a a b b c c d"), first, "horizontal");
        assert_eq!(
            outcome_of(g, "g a f a e a d"),
            first,
            "horizontal, right to left"
        );
        assert_eq!(outcome_of(g, "a b c b c b c b"), second, "vertical");
        assert_eq!(
            outcome_of(g, "a b b c c d c d d g d"),
            first,
            "diagonal up-right"
        );
        assert_eq!(
            outcome_of(g, "g f f e e d e d d a d"),
            first,
            "diagonal up-left"
        );
        // Completing a diagonal in its middle counts too.
        assert_eq!(
            outcome_of(g, "a b c c c d d d d g b"),
            first,
            "diagonal, middle piece"
        );
        // Three of a kind is not enough; lines do not wrap around the board's edge.
        assert_eq!(outcome_of(g, "e a f a g a b"), None);
        let k5 = ConnectFour::try_new(6, 7, 5).unwrap();
        assert_eq!(outcome_of(k5, "a a b b c c d"), None);
        assert_eq!(outcome_of(k5, "a a b b c c d d e"), first);
    }

    #[test]
    fn full_board_without_a_line_is_a_draw() {
        // Column pairs filled as x o / o x alternately, then the last column alone: every
        // column alternates, rows run in pairs, and no diagonal has four.
        let pair = |a: &str, c: &str| format!("{a} {c} {c} {a} ").repeat(3);
        let moves = pair("a", "c") + &pair("b", "d") + &pair("e", "g") + "f f f f f f";
        let game = play(ConnectFour::new(), &moves);
        assert_eq!(game.outcome(), Some(Outcome::Draw), "\n{game}");
        assert!(game.legal_action_vec().is_empty());
        let mut game = game;
        assert_eq!(game.try_apply(0), Err(GameError::GameOver));
    }

    #[test]
    fn notation() {
        let game = ConnectFour::new();
        assert_eq!(game.parse_action("a"), Ok(0));
        assert_eq!(game.parse_action("G"), Ok(6));
        assert_eq!(game.format_action(3), "d");
        for bad in ["", "h", "zz9", "1", "ab", "-"] {
            let err = game.parse_action(bad).unwrap_err();
            assert!(matches!(err, GameError::BadNotation { .. }), "{bad}: {err}");
            assert!(err.to_string().contains("a..g"), "{err}");
        }
        let wide = ConnectFour::try_new(4, 16, 4).unwrap();
        assert_eq!(wide.parse_action("p"), Ok(15));
    }

    #[test]
    fn full_columns_are_illegal() {
        let mut game = play(ConnectFour::new(), "a a a a a a");
        assert_eq!(game.legal_action_vec(), [1, 2, 3, 4, 5, 6]);
        let before = game;
        let err = game.play_notation("a").unwrap_err();
        assert!(matches!(err, GameError::IllegalAction { ref action, .. } if action == "a"));
        assert!(game.try_apply(7).is_err());
        assert_eq!(game, before);
    }

    #[test]
    fn parameters_are_checked() {
        assert!(ConnectFour::try_new(2, 7, 4).unwrap_err().contains("rows"));
        assert!(ConnectFour::try_new(6, 17, 4).unwrap_err().contains("cols"));
        assert!(ConnectFour::try_new(6, 7, 8).unwrap_err().contains('k'));
        assert!(ConnectFour::try_new(6, 7, 2).is_err());
        assert!(ConnectFour::try_new(16, 16, 16).is_ok());
        assert_eq!(ConnectFour::new().name(), "connect4:rows=6,cols=7,k=4");
    }

    #[test]
    fn observation_and_display() {
        let game = play(ConnectFour::try_new(4, 5, 4).unwrap(), "a e");
        let mut obs = vec![f32::NAN; game.obs_len()];
        game.observe(&mut obs);
        // x to move: its piece at the bottom-left is plane 0, last row (row 0 = top).
        assert_eq!(obs[3 * 5], 1.0);
        assert_eq!(obs[20 + 3 * 5 + 4], 1.0);
        assert_eq!(obs.iter().sum::<f32>(), 2.0);
        assert_eq!(
            game.to_string(),
            ". . . . .\n. . . . .\n. . . . .\nx . . . o\na b c d e"
        );
    }

    #[test]
    fn mirror_symmetry() {
        let game = play(ConnectFour::new(), "a b b");
        let mirror = game.transformed(1).unwrap();
        assert_eq!(mirror, play(ConnectFour::new(), "g f f"));
        assert_eq!(mirror.hash(), play(ConnectFour::new(), "g f f").hash());
        assert_eq!(game.symmetries()[1].map_action(0), 6);
    }

    #[test]
    fn random_games_keep_the_contract() {
        for (game, num_games) in [
            (ConnectFour::new(), 200),
            (ConnectFour::try_new(5, 6, 4).unwrap(), 200),
            (ConnectFour::try_new(3, 16, 5).unwrap(), 50),
            (ConnectFour::try_new(4, 4, 4).unwrap(), 200),
        ] {
            let report = check_game(&game, 11, num_games).unwrap_or_else(|e| panic!("{e}"));
            println!("{}: {report}", game.name());
        }
    }

    #[test]
    fn perft_from_the_initial_position() {
        let expected = [1, 7, 49, 343, 2401, 16807, 117649, 823536, 5673234];
        let game = ConnectFour::new();
        for (depth, &count) in expected.iter().enumerate() {
            assert_eq!(perft(&game, depth), count, "depth {depth}");
        }
    }
}
