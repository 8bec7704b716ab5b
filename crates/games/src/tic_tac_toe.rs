//! Tic-tac-toe on a 3x3 board: the smallest game, used to test search and training end to
//! end.
//!
//! Actions are cells `row * 3 + col` with row 0 at the top (the oracle's ids). Notation is
//! `a1`..`c3`: the letter is the column from the left, the digit the row counted from the
//! bottom, so `a1` is the bottom-left cell (action 6) and `a3` the top-left one (action 0).
//!
//! ```
//! use zerosum_games::{tic_tac_toe::TicTacToe, Game};
//! let game = TicTacToe::new();
//! assert_eq!(game.parse_action("a1").unwrap(), 6);
//! assert_eq!(game.format_action(0), "a3");
//! ```

use std::fmt;

use crate::error::GameError;
use crate::game::{square_cell_symmetries, Game, Symmetry};
use crate::layout::{
    letters, numbers_from_bottom, player_names, BoardLayout, MoveCells, Piece, Style,
};
use crate::outcome::{Action, Outcome, Player};
use crate::zobrist::{cell_key, extra_key};

/// The board side.
const SIZE: usize = 3;
/// The number of cells, and of actions.
const CELLS: usize = SIZE * SIZE;
/// All nine cells set.
const FULL: u16 = (1 << CELLS) - 1;
/// The eight lines of three, as cell bitmasks.
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// A tic-tac-toe position. `x` ([`Player::FIRST`]) moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TicTacToe {
    /// The cells each player holds, indexed by [`Player::index`]; bit `row * 3 + col`.
    stones: [u16; 2],
    /// The player to move.
    to_move: Player,
}

impl TicTacToe {
    /// The empty board, `x` to move.
    pub fn new() -> TicTacToe {
        TicTacToe {
            stones: [0, 0],
            to_move: Player::FIRST,
        }
    }

    /// Who holds `cell` (`row * 3 + col`, row 0 at the top), if anyone.
    pub fn cell(&self, cell: usize) -> Option<Player> {
        Player::ALL
            .into_iter()
            .find(|p| self.stones[p.index()] >> cell & 1 == 1)
    }

    /// Whether `player` holds a line of three.
    fn has_line(&self, player: Player) -> bool {
        let own = self.stones[player.index()];
        LINES.iter().any(|&line| line & !own == 0)
    }

    /// The empty cells.
    fn empty(&self) -> u16 {
        !(self.stones[0] | self.stones[1]) & FULL
    }
}

impl Default for TicTacToe {
    fn default() -> TicTacToe {
        TicTacToe::new()
    }
}

impl Game for TicTacToe {
    fn name(&self) -> String {
        "tictactoe".to_string()
    }

    fn num_actions(&self) -> usize {
        CELLS
    }

    fn obs_shape(&self) -> [usize; 3] {
        [2, SIZE, SIZE]
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome().is_some() {
            return;
        }
        let mut empty = self.empty();
        while empty != 0 {
            out.push(empty.trailing_zeros() as Action);
            empty &= empty - 1;
        }
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal action {action} in\n{self}");
        self.stones[self.to_move.index()] |= 1 << action;
        self.to_move = self.to_move.opponent();
    }

    fn outcome(&self) -> Option<Outcome> {
        for player in Player::ALL {
            if self.has_line(player) {
                return Some(Outcome::Win(player));
            }
        }
        (self.empty() == 0).then_some(Outcome::Draw)
    }

    fn observe(&self, out: &mut [f32]) {
        let (own, other) = (
            self.stones[self.to_move.index()],
            self.stones[self.to_move.opponent().index()],
        );
        for cell in 0..CELLS {
            out[cell] = (own >> cell & 1) as f32;
            out[CELLS + cell] = (other >> cell & 1) as f32;
        }
    }

    fn symmetries(&self) -> Vec<Symmetry> {
        square_cell_symmetries(SIZE)
            .iter()
            .map(|cells| Symmetry::from_cells(cells, 2, 0))
            .collect()
    }

    fn transformed(&self, index: usize) -> Option<TicTacToe> {
        // Gather, as `Symmetry` does: cell `c` of the image holds what cell `source[c]` holds.
        let source = square_cell_symmetries(SIZE).into_iter().nth(index)?;
        let mut image = TicTacToe {
            stones: [0, 0],
            to_move: self.to_move,
        };
        for (cell, &from) in source.iter().enumerate() {
            for player in 0..2 {
                image.stones[player] |= (self.stones[player] >> from & 1) << cell;
            }
        }
        Some(image)
    }

    fn hash(&self) -> u64 {
        let mut hash = if self.to_move == Player::SECOND {
            extra_key(0)
        } else {
            0
        };
        for (player, &stones) in self.stones.iter().enumerate() {
            let mut bits = stones;
            while bits != 0 {
                hash ^= cell_key(player, bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        hash
    }

    fn format_action(&self, action: Action) -> String {
        let (row, col) = (action / SIZE, action % SIZE);
        format!("{}{}", (b'a' + col as u8) as char, SIZE - row)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        let bad = || GameError::BadNotation {
            text: text.to_string(),
            expected: "a cell a1..c3 (column a-c from the left, row 1-3 from the bottom)"
                .to_string(),
        };
        match text.trim().to_ascii_lowercase().as_bytes() {
            &[letter @ b'a'..=b'c', digit @ b'1'..=b'3'] => {
                let col = (letter - b'a') as usize;
                let row = SIZE - (digit - b'0') as usize;
                Ok(row * SIZE + col)
            }
            _ => Err(bad()),
        }
    }

    fn layout(&self) -> Option<BoardLayout> {
        let marks = ["X", "O"];
        let cells = (0..CELLS)
            .map(|cell| self.cell(cell).map(|p| Piece::new(p, marks[p.index()])))
            .collect();
        Some(BoardLayout {
            row_labels: numbers_from_bottom(3),
            col_labels: letters(3, false),
            player_names: player_names("X", "O"),
            ..BoardLayout::grid(3, 3, Style::Marks, cells)
        })
    }

    /// Actions are cells, row 0 at the top, as in the grid.
    fn move_cells(&self, action: Action) -> MoveCells {
        MoveCells::one(action)
    }
}

impl fmt::Display for TicTacToe {
    /// The board with row numbers on the left and column letters below, `x`, `o` and `.`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIZE {
            write!(f, "{}", SIZE - row)?;
            for col in 0..SIZE {
                let mark = match self.cell(row * SIZE + col) {
                    Some(Player::FIRST) => 'x',
                    Some(_) => 'o',
                    None => '.',
                };
                write!(f, " {mark}")?;
            }
            writeln!(f)?;
        }
        write!(f, "  a b c")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::check_game;

    fn play(moves: &[&str]) -> TicTacToe {
        let mut game = TicTacToe::new();
        for mv in moves {
            game.play_notation(mv)
                .unwrap_or_else(|e| panic!("{mv}: {e}"));
        }
        game
    }

    #[test]
    fn wins_in_every_direction() {
        let cases: [(&[&str], Player); 6] = [
            (&["a1", "a2", "b1", "b2", "c1"], Player::FIRST), // bottom row
            (&["a3", "a1", "b3", "b1", "c2", "c1"], Player::SECOND), // bottom row for o
            (&["b1", "a1", "b2", "a2", "b3"], Player::FIRST), // middle column
            (&["a1", "a2", "b2", "b1", "c3"], Player::FIRST), // diagonal
            (&["a3", "a1", "b2", "b1", "c1"], Player::FIRST), // anti-diagonal
            (&["a2", "c3", "b3", "c2", "a1", "c1"], Player::SECOND), // right column for o
        ];
        for (moves, winner) in cases {
            let game = play(moves);
            assert_eq!(
                game.outcome(),
                Some(Outcome::Win(winner)),
                "{moves:?}\n{game}"
            );
            assert!(game.legal_action_vec().is_empty());
            assert_eq!(game.clone().try_apply(4), Err(GameError::GameOver));
        }
    }

    #[test]
    fn full_board_without_a_line_is_a_draw() {
        let mut game = TicTacToe::new();
        for (ply, action) in [0, 1, 2, 4, 3, 5, 7, 6, 8].into_iter().enumerate() {
            assert_eq!(game.outcome(), None, "ply {ply}");
            game.try_apply(action).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw));
        assert_eq!(game.to_string(), "3 x o x\n2 x o o\n1 o x x\n  a b c");
    }

    #[test]
    fn notation() {
        let game = TicTacToe::new();
        for (text, action) in [
            ("a3", 0),
            ("b3", 1),
            ("c3", 2),
            ("a1", 6),
            ("c1", 8),
            ("B2", 4),
        ] {
            assert_eq!(game.parse_action(text), Ok(action), "{text}");
        }
        let names: Vec<String> = (0..9).map(|a| game.format_action(a)).collect();
        assert_eq!(
            names,
            ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
        );
        for bad in ["", "a", "d1", "a4", "a0", "a10", "1a", "pass", "zz9"] {
            let err = game.parse_action(bad).unwrap_err();
            assert!(matches!(err, GameError::BadNotation { .. }), "{bad}: {err}");
        }
    }

    #[test]
    fn illegal_moves_are_errors() {
        let mut game = play(&["b2"]);
        let before = game;
        let err = game.play_notation("b2").unwrap_err();
        assert!(matches!(err, GameError::IllegalAction { ref action, .. } if action == "b2"));
        assert!(matches!(
            game.try_apply(9),
            Err(GameError::IllegalAction { .. })
        ));
        assert_eq!(game, before);
    }

    #[test]
    fn observation_is_from_the_movers_view() {
        let game = play(&["a3", "c1"]);
        let mut obs = [0.0; 18];
        game.observe(&mut obs);
        assert_eq!(obs[0], 1.0, "x to move holds a3 on plane 0");
        assert_eq!(obs[9 + 8], 1.0, "o holds c1 on plane 1");
        assert_eq!(obs.iter().sum::<f32>(), 2.0);
    }

    #[test]
    fn symmetries_map_cells_as_documented() {
        let game = play(&["a3"]); // top-left
        let images: Vec<TicTacToe> = (0..8).map(|i| game.transformed(i).unwrap()).collect();
        assert_eq!(images[0], game);
        assert!(game.transformed(8).is_none());
        let corners: Vec<usize> = images
            .iter()
            .map(|g| g.stones[0].trailing_zeros() as usize)
            .collect();
        for corner in corners {
            assert!([0, 2, 6, 8].contains(&corner));
        }
        let symmetries = game.symmetries();
        for (i, image) in images.iter().enumerate() {
            let a = symmetries[i].map_action(0);
            assert_eq!(image.cell(a), Some(Player::FIRST), "symmetry {i}");
        }
    }

    #[test]
    fn hash_depends_on_position_and_mover() {
        let a = play(&["a1", "b2"]);
        let b = play(&["a1", "c3"]);
        assert_ne!(a.hash(), b.hash());
        assert_ne!(TicTacToe::new().hash(), play(&["a1"]).hash());
        assert_eq!(a.hash(), play(&["a1", "b2"]).hash());
    }

    #[test]
    fn random_games_keep_the_contract() {
        let report = check_game(&TicTacToe::new(), 7, 300).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.games, 300);
        assert!(report.max_game_length <= 9);
        println!("{report}");
    }
}
