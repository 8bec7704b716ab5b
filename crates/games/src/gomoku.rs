//! Freestyle Gomoku on a `size` x `size` board (9 to 19, 15 by default).
//!
//! Players place a stone on any empty point in turn; the first player to have five or more
//! of their stones in an unbroken line (row, column or diagonal) wins, so an overline of
//! six or more also wins. A full board without such a line is a draw.
//!
//! Actions are points `row * size + col` with row 0 at the top, the oracle's ids. Notation
//! is GTP's: the column letter from the left, skipping `I` (`A`..`T` on 19x19), then the
//! row counted from the bottom; the top-left point, action 0, is `A15` on the standard
//! board. Lower case is accepted.
//!
//! The observation is `[3, size, size]`, row 0 at the top: the mover's stones, the
//! opponent's stones, and a plane of ones when the first player (black) is to move, as
//! AlphaZero marks the colour: the first move is a large advantage in freestyle Gomoku.
//! The 8 symmetries of the square act on it and on the actions.
//!
//! A position is a small `Copy` value: a 384-bit board per player, the move count and an
//! incrementally updated Zobrist hash. `apply` checks for a line only through the stone
//! just placed and allocates nothing.
//!
//! ```
//! use zerosum_games::{gomoku::Gomoku, Game, Outcome, Player};
//! let mut game = Gomoku::try_new(9).unwrap();
//! for mv in ["a1", "a9", "b1", "b9", "c1", "c9", "d1", "d9", "e1"] {
//!     game.play_notation(mv).unwrap();
//! }
//! assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
//! ```

use std::fmt;

use crate::error::GameError;
use crate::game::{square_cell_symmetries, Game, Symmetry};
use crate::layout::{BoardLayout, MoveCells};
use crate::outcome::{Action, Outcome, Player};
use crate::zobrist::{cell_key, extra_key};

/// The smallest board side.
pub const MIN_SIZE: usize = 9;
/// The largest board side.
pub const MAX_SIZE: usize = 19;
/// The standard board side.
pub const DEFAULT_SIZE: usize = 15;
/// Stones in a line that win.
pub const LINE: usize = 5;
/// Column letters of GTP, without `I`.
const COLUMNS: &[u8; MAX_SIZE] = b"ABCDEFGHJKLMNOPQRST";
/// 64-bit words in a board of up to 361 points.
const WORDS: usize = (MAX_SIZE * MAX_SIZE).div_ceil(64);
/// Observation planes.
const PLANES: usize = 3;

/// A Gomoku position with its board size; see the [module docs](self).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Gomoku {
    /// `stones[player]`: bit `row * size + col` set where that player has a stone.
    stones: [[u64; WORDS]; 2],
    size: u8,
    to_move: Player,
    /// Stones on the board.
    num_stones: u16,
    /// Set by `apply` when the game ends.
    outcome: Option<Outcome>,
    /// Zobrist hash of the stones and the side to move, kept up to date by `apply`.
    hash: u64,
}

impl Gomoku {
    /// The empty standard 15x15 board.
    pub fn new() -> Gomoku {
        Gomoku::try_new(DEFAULT_SIZE).expect("15 is within the limits")
    }

    /// The empty `size` x `size` board; `size` must be in `9..=19`.
    pub fn try_new(size: usize) -> Result<Gomoku, String> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(format!(
                "size must be in {MIN_SIZE}..={MAX_SIZE}, not {size}"
            ));
        }
        Ok(Gomoku {
            stones: [[0; WORDS]; 2],
            size: size as u8,
            to_move: Player::FIRST,
            num_stones: 0,
            outcome: None,
            hash: 0,
        })
    }

    /// The board side.
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// Who has a stone at `row` (0 = top), `col` (0 = left), if anyone.
    pub fn stone(&self, row: usize, col: usize) -> Option<Player> {
        if row >= self.size() || col >= self.size() {
            return None;
        }
        let point = row * self.size() + col;
        Player::ALL.into_iter().find(|p| self.has(p.index(), point))
    }

    #[inline]
    fn has(&self, player: usize, point: usize) -> bool {
        self.stones[player][point / 64] >> (point % 64) & 1 == 1
    }

    #[inline]
    fn place(&mut self, player: usize, point: usize) {
        self.stones[player][point / 64] |= 1 << (point % 64);
    }

    /// The hash computed from scratch.
    fn full_hash(&self) -> u64 {
        let mut hash = if self.to_move == Player::SECOND {
            extra_key(0)
        } else {
            0
        };
        for player in 0..2 {
            for point in 0..self.size() * self.size() {
                if self.has(player, point) {
                    hash ^= cell_key(player, point);
                }
            }
        }
        hash
    }

    /// Whether `player`, who just placed a stone at `row`, `col`, has five or more in a
    /// line through it.
    #[inline]
    fn wins_through(&self, player: usize, row: usize, col: usize) -> bool {
        let size = self.size() as isize;
        let holds = |r: isize, c: isize| {
            r >= 0 && r < size && c >= 0 && c < size && self.has(player, (r * size + c) as usize)
        };
        let (row, col) = (row as isize, col as isize);
        [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| {
            let mut count = 1;
            for sign in [1, -1] {
                let (mut r, mut c) = (row + sign * dr, col + sign * dc);
                while count < LINE && holds(r, c) {
                    count += 1;
                    r += sign * dr;
                    c += sign * dc;
                }
            }
            count >= LINE
        })
    }
}

impl Default for Gomoku {
    fn default() -> Gomoku {
        Gomoku::new()
    }
}

impl Game for Gomoku {
    fn name(&self) -> String {
        format!("gomoku:size={}", self.size)
    }

    fn num_actions(&self) -> usize {
        self.size() * self.size()
    }

    fn obs_shape(&self) -> [usize; 3] {
        [PLANES, self.size(), self.size()]
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let points = self.num_actions();
        for word in 0..points.div_ceil(64) {
            let valid = if (word + 1) * 64 <= points {
                u64::MAX
            } else {
                (1u64 << (points - word * 64)) - 1
            };
            let mut empty = !(self.stones[0][word] | self.stones[1][word]) & valid;
            while empty != 0 {
                out.push(word * 64 + empty.trailing_zeros() as usize);
                empty &= empty - 1;
            }
        }
    }

    #[inline]
    fn apply(&mut self, action: Action) {
        debug_assert!(
            self.outcome.is_none()
                && action < self.num_actions()
                && !self.has(0, action)
                && !self.has(1, action),
            "illegal action {action} in\n{self}"
        );
        let player = self.to_move.index();
        self.place(player, action);
        self.num_stones += 1;
        self.hash ^= cell_key(player, action) ^ extra_key(0);
        let size = self.size();
        if self.wins_through(player, action / size, action % size) {
            self.outcome = Some(Outcome::Win(self.to_move));
        } else if usize::from(self.num_stones) == self.num_actions() {
            self.outcome = Some(Outcome::Draw);
        }
        self.to_move = self.to_move.opponent();
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, out: &mut [f32]) {
        let points = self.num_actions();
        out[..PLANES * points].fill(0.0);
        let own = self.to_move.index();
        for (offset, player) in [(0, own), (points, 1 - own)] {
            for (word, &bits) in self.stones[player].iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    out[offset + word * 64 + bits.trailing_zeros() as usize] = 1.0;
                    bits &= bits - 1;
                }
            }
        }
        if self.to_move == Player::FIRST {
            out[2 * points..3 * points].fill(1.0);
        }
    }

    fn symmetries(&self) -> Vec<Symmetry> {
        square_cell_symmetries(self.size())
            .iter()
            .map(|cells| Symmetry::from_cells(cells, PLANES, 0))
            .collect()
    }

    fn transformed(&self, index: usize) -> Option<Gomoku> {
        let cells = square_cell_symmetries(self.size()).into_iter().nth(index)?;
        let mut image = *self;
        image.stones = [[0; WORDS]; 2];
        for (point, &source) in cells.iter().enumerate() {
            for player in 0..2 {
                if self.has(player, source) {
                    image.place(player, point);
                }
            }
        }
        image.hash = image.full_hash();
        Some(image)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn format_action(&self, action: Action) -> String {
        let size = self.size();
        let (row, col) = (action / size, action % size);
        format!("{}{}", char::from(COLUMNS[col]), size - row)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        let size = self.size();
        let bad = || GameError::BadNotation {
            text: text.to_string(),
            expected: format!(
                "a point A1..{}{size}: column letter (no I), then row from the bottom",
                char::from(COLUMNS[size - 1])
            ),
        };
        let upper = text.trim().to_ascii_uppercase();
        let mut chars = upper.chars();
        let letter = chars.next().ok_or_else(bad)?;
        let col = COLUMNS[..size]
            .iter()
            .position(|&c| char::from(c) == letter)
            .ok_or_else(bad)?;
        let number = chars.as_str();
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        match number.parse::<usize>() {
            Ok(row) if (1..=size).contains(&row) => Ok((size - row) * size + col),
            _ => Err(bad()),
        }
    }

    fn layout(&self) -> Option<BoardLayout> {
        Some(BoardLayout::stones(self.size(), |row, col| {
            self.stone(row, col)
        }))
    }

    /// Actions are cells, row 0 at the top, as in the grid.
    fn move_cells(&self, action: Action) -> MoveCells {
        MoveCells::one(action)
    }
}

impl fmt::Display for Gomoku {
    /// The board, top row first, `x` (first player), `o` and `.`, with GTP coordinates.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.size();
        for row in 0..size {
            write!(f, "{:2}", size - row)?;
            for col in 0..size {
                let mark = match self.stone(row, col) {
                    Some(Player::FIRST) => 'x',
                    Some(_) => 'o',
                    None => '.',
                };
                write!(f, " {mark}")?;
            }
            writeln!(f)?;
        }
        f.write_str("  ")?;
        for &letter in &COLUMNS[..size] {
            write!(f, " {}", char::from(letter))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::check_game;

    fn play(game: Gomoku, moves: &str) -> Gomoku {
        let mut game = game;
        for mv in moves.split_whitespace() {
            game.play_notation(mv)
                .unwrap_or_else(|e| panic!("{mv}: {e}\n{game}"));
        }
        game
    }

    /// Plays `moves`, checks the game goes on until the last one, and returns the outcome.
    fn outcome_of(game: Gomoku, moves: &str) -> Option<Outcome> {
        let all: Vec<&str> = moves.split_whitespace().collect();
        let before = play(game, &all[..all.len() - 1].join(" "));
        assert_eq!(before.outcome(), None, "ended early: {moves}\n{before}");
        play(before, all[all.len() - 1]).outcome()
    }

    /// The first player's moves with the second's in between, ending with the first
    /// player's last move (the second player's extra moves are not played).
    fn alternate(first: &str, second: &str) -> String {
        let first: Vec<&str> = first.split_whitespace().collect();
        let mut second = second.split_whitespace();
        let mut out = Vec::new();
        for (i, mv) in first.iter().enumerate() {
            out.push(*mv);
            if i + 1 < first.len() {
                out.push(second.next().expect("enough moves for the second player"));
            }
        }
        out.join(" ")
    }

    #[test]
    fn five_in_every_direction_wins() {
        let first = Some(Outcome::Win(Player::FIRST));
        let second = Some(Outcome::Win(Player::SECOND));
        let g = Gomoku::new();
        let far = "A15 C15 E15 G15 J15";
        for (name, line) in [
            ("row", "F8 G8 H8 J8 K8"),
            ("row, filled from the right", "K8 J8 H8 G8 F8"),
            ("column", "H4 H5 H6 H7 H8"),
            ("diagonal", "D4 E5 F6 G7 H8"),
            ("anti-diagonal", "A5 B4 C3 D2 E1"),
            ("completed in the middle", "F8 G8 J8 K8 H8"),
            ("along the edge", "P1 P2 P3 P4 P5"),
        ] {
            assert_eq!(outcome_of(g, &alternate(line, far)), first, "{name}");
        }
        // The second player wins the same way.
        let moves = "A1 H4 C1 H5 E1 H6 G1 H7 J1 H8";
        assert_eq!(outcome_of(g, moves), second);
        // Any size: the corner of 19x19.
        let g19 = Gomoku::try_new(19).unwrap();
        assert_eq!(
            outcome_of(g19, &alternate("T19 S18 R17 Q16 P15", far)),
            first
        );
    }

    #[test]
    fn an_overline_wins() {
        // Two threes with a gap, then the stone that joins them into six.
        let moves = alternate("C8 D8 E8 G8 H8 F8", "A1 C1 E1 G1 J1");
        assert_eq!(
            outcome_of(Gomoku::new(), &moves),
            Some(Outcome::Win(Player::FIRST))
        );
    }

    #[test]
    fn four_does_not_win_and_lines_do_not_wrap() {
        let g = Gomoku::try_new(9).unwrap();
        let game = play(g, &alternate("A5 B5 C5 D5", "A1 C1 E1 G1"));
        assert_eq!(game.outcome(), None);
        // J9 and A8 are neighbours in the action order, not on the board.
        let wrap = alternate("G9 H9 J9 A8 B8", "A1 C1 E1 G1");
        assert_eq!(play(g, &wrap).outcome(), None);
        // Five stones of both colours mixed are no line.
        let mixed = alternate("A5 C5 E5", "B5 D5 F5");
        assert_eq!(play(g, &mixed).outcome(), None);
    }

    #[test]
    fn a_full_board_without_five_is_a_draw() {
        // Rows of the pattern x x o o x x o o x, shifted by two every row, repeat with
        // period four in every direction and never hold five alike. Fill the board so that
        // colours alternate: place the first player's and the second's stones in turn.
        let g = Gomoku::try_new(9).unwrap();
        let is_first = |r: usize, c: usize| (c + 2 * (r % 2) + r / 2) % 4 < 2;
        let mut xs = Vec::new();
        let mut os = Vec::new();
        for r in 0..9 {
            for c in 0..9 {
                if is_first(r, c) {
                    xs.push(r * 9 + c);
                } else {
                    os.push(r * 9 + c);
                }
            }
        }
        assert_eq!(
            (xs.len(), os.len()),
            (41, 40),
            "the first player places one more"
        );
        let mut game = g;
        for i in 0..81 {
            let action = if i % 2 == 0 { xs[i / 2] } else { os[i / 2] };
            assert_eq!(game.outcome(), None, "ended at move {i}\n{game}");
            game.try_apply(action).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw), "\n{game}");
        assert!(game.legal_action_vec().is_empty());
        assert_eq!(game.try_apply(0), Err(GameError::GameOver));
    }

    #[test]
    fn notation_is_gtp_without_i() {
        let game = Gomoku::new();
        assert_eq!(game.format_action(0), "A15");
        assert_eq!(game.format_action(14 * 15), "A1");
        assert_eq!(game.format_action(8), "J15", "the ninth column is J");
        assert_eq!(game.format_action(7 * 15 + 7), "H8");
        assert_eq!(game.parse_action("h8"), Ok(112));
        assert_eq!(game.parse_action(" J15 "), Ok(8));
        assert_eq!(game.parse_action("p1"), Ok(14 * 15 + 14));
        for bad in [
            "", "I5", "Q1", "A0", "A16", "A", "5", "AA1", "A1x", "A+1", "zz9",
        ] {
            let err = game.parse_action(bad).unwrap_err();
            assert!(matches!(err, GameError::BadNotation { .. }), "{bad}: {err}");
            assert!(err.to_string().contains("P15"), "{err}");
        }
        let big = Gomoku::try_new(19).unwrap();
        assert_eq!(big.format_action(18), "T19");
        assert_eq!(big.parse_action("t1"), Ok(18 * 19 + 18));
        let small = Gomoku::try_new(9).unwrap();
        assert_eq!(small.format_action(80), "J1");
        assert!(small.parse_action("K1").is_err());
    }

    #[test]
    fn sizes_are_checked() {
        assert!(Gomoku::try_new(8).unwrap_err().contains("size"));
        assert!(Gomoku::try_new(20).is_err());
        assert_eq!(Gomoku::new().name(), "gomoku:size=15");
        assert_eq!(Gomoku::new().num_actions(), 225);
        assert_eq!(Gomoku::try_new(19).unwrap().obs_shape(), [3, 19, 19]);
    }

    #[test]
    fn observation_symmetries_and_display() {
        let game = play(Gomoku::try_new(9).unwrap(), "A9 J1");
        let mut obs = vec![f32::NAN; game.obs_len()];
        game.observe(&mut obs);
        // The first player moves: its stone at the top-left is plane 0, point 0.
        assert_eq!(obs[0], 1.0);
        assert_eq!(obs[81 + 80], 1.0);
        assert!(obs[162..].iter().all(|&v| v == 1.0));
        assert_eq!(obs.iter().sum::<f32>(), 2.0 + 81.0);
        let game = play(game, "E5");
        game.observe(&mut obs);
        assert_eq!(obs[80], 1.0, "the second player's own stone comes first");
        assert!(obs[162..].iter().all(|&v| v == 0.0));
        assert_eq!(game.symmetries().len(), 8);
        // Symmetry 1 (a quarter turn) takes A9 to A1 and J1 to J9.
        let image = game.transformed(1).unwrap();
        let expected = play(Gomoku::try_new(9).unwrap(), "A1 J9 E5");
        assert_eq!(image, expected);
        assert_eq!(image.hash(), expected.hash());
        assert_eq!(game.symmetries()[1].map_action(0), 72);
        assert_eq!(
            play(Gomoku::try_new(9).unwrap(), "A9").to_string(),
            " 9 x . . . . . . . .\n 8 . . . . . . . . .\n 7 . . . . . . . . .\n \
             6 . . . . . . . . .\n 5 . . . . . . . . .\n 4 . . . . . . . . .\n \
             3 . . . . . . . . .\n 2 . . . . . . . . .\n 1 . . . . . . . . .\n   \
             A B C D E F G H J"
        );
    }

    #[test]
    fn random_games_keep_the_contract() {
        for (size, num_games) in [(9, 200), (15, 60), (19, 20)] {
            let game = Gomoku::try_new(size).unwrap();
            let report = check_game(&game, 23, num_games).unwrap_or_else(|e| panic!("{e}"));
            println!("{}: {report}", game.name());
        }
    }
}
