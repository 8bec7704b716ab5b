//! The game-agnostic picture of a position that the page draws.
//!
//! The page knows no game. The server sends a [`BoardView`] (a grid of `rows` x `cols`
//! cells, row 0 at the top, each empty or holding a [`Piece`]) and one [`MoveView`] per
//! legal move: its notation and the cells it involves. A move with one cell is played by a
//! click on any cell of its `hit` list (a tic-tac-toe square; for connect four, any cell of
//! the column, while `cells` names the cell where the disc lands); a move with several
//! cells (from, to) by a click on the first and then on the last; a move with none (Go's
//! pass, or every move of a game without a grid layout yet) is a button. The heat map puts
//! each move's share of the search on the last of its cells.
//!
//! What is per game is here, in one match: [`known`] recognises the concrete game type
//! behind the generic `G` (a downcast through `Any`, so the `Game` trait needs no drawing
//! methods), and each layout maps the position's pieces and each action onto cells.
//! A game without a layout gets [`Style::Text`]: its text board and its moves as buttons,
//! which plays every game of the registry, if less prettily. A new grid game needs a layout
//! function of a few lines and no JavaScript.

use std::any::Any;

use serde::Serialize;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::go::Go;
use zerosum_games::gomoku::Gomoku;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::{Action, Game, Player};

/// How the page draws the board and its pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// Squares with the piece's label drawn as a mark (tic-tac-toe's X and O).
    Marks,
    /// A frame with round holes and coloured discs (connect four).
    Holes,
    /// Black and white stones on a wooden board (Go, Gomoku).
    Stones,
    /// No grid: the text board, and every move as a button.
    Text,
}

/// A piece on a cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Piece {
    /// The owner's [`Player::index`]: 0 for the first player, 1 for the second.
    pub player: usize,
    /// Text drawn on the piece (`X`, a seed count, a chess glyph); may be empty.
    pub label: String,
}

/// A position as the page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    /// Rows of the grid; 0 for [`Style::Text`].
    pub rows: usize,
    /// Columns of the grid; 0 for [`Style::Text`].
    pub cols: usize,
    /// How to draw it.
    pub style: Style,
    /// `[rows * cols]`, row-major, row 0 at the top: the piece on each cell.
    pub cells: Vec<Option<Piece>>,
    /// Labels beside the rows, top to bottom (`3`, `2`, `1`); empty for none.
    pub row_labels: Vec<String>,
    /// Labels under the columns, left to right (`a`, `b`, `c`); empty for none.
    pub col_labels: Vec<String>,
    /// What the players are called on this board (`X`/`O`, `red`/`yellow`).
    pub player_names: [String; 2],
    /// The game's own text board (its `Display`).
    pub text: String,
}

/// A move as the page offers it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveView {
    /// The action's index in the game's action space.
    pub action: Action,
    /// The move in the game's notation (design.md), which `POST .../move` accepts.
    pub notation: String,
    /// The cells the move involves, in order (where a piece lands; from, then to). Empty
    /// for a move that has no cell (a pass) or a game without a grid.
    pub cells: Vec<usize>,
    /// The cells a click on which plays a one-cell move; `cells` unless wider (a whole
    /// connect-four column).
    pub hit: Vec<usize>,
}

/// The concrete game behind a generic position, for the games that have a grid layout.
enum Known<'a> {
    TicTacToe(&'a TicTacToe),
    ConnectFour(&'a ConnectFour),
    Gomoku(&'a Gomoku),
    Go(&'a Go),
    Other,
}

/// Recognises the games that have a grid layout.
fn known<G: Game>(position: &G) -> Known<'_> {
    let any = position as &dyn Any;
    if let Some(g) = any.downcast_ref::<TicTacToe>() {
        Known::TicTacToe(g)
    } else if let Some(g) = any.downcast_ref::<ConnectFour>() {
        Known::ConnectFour(g)
    } else if let Some(g) = any.downcast_ref::<Gomoku>() {
        Known::Gomoku(g)
    } else if let Some(g) = any.downcast_ref::<Go>() {
        Known::Go(g)
    } else {
        Known::Other
    }
}

/// The picture of `position`.
pub fn describe_board<G: Game>(position: &G) -> BoardView {
    let text = position.to_string();
    let names = |a: &str, b: &str| [a.to_string(), b.to_string()];
    match known(position) {
        Known::TicTacToe(g) => {
            let marks = ["X", "O"];
            BoardView {
                rows: 3,
                cols: 3,
                style: Style::Marks,
                cells: (0..9)
                    .map(|cell| g.cell(cell).map(|p| piece(p, marks[p.index()])))
                    .collect(),
                row_labels: numbers_from_bottom(3),
                col_labels: letters(3, false),
                player_names: names("X", "O"),
                text,
            }
        }
        Known::ConnectFour(g) => {
            let (rows, cols) = (g.rows(), g.cols());
            BoardView {
                rows,
                cols,
                style: Style::Holes,
                // The game counts rows from the bottom; the grid from the top.
                cells: (0..rows * cols)
                    .map(|cell| {
                        g.cell(rows - 1 - cell / cols, cell % cols)
                            .map(|p| piece(p, ""))
                    })
                    .collect(),
                row_labels: Vec::new(),
                col_labels: letters(cols, false),
                player_names: names("red", "yellow"),
                text,
            }
        }
        Known::Gomoku(g) => {
            let size = g.size();
            stones_view(size, |row, col| g.stone(row, col), text)
        }
        Known::Go(g) => {
            let size = g.size();
            // Go counts rows from the bottom.
            stones_view(size, |row, col| g.point(size - 1 - row, col), text)
        }
        Known::Other => BoardView {
            rows: 0,
            cols: 0,
            style: Style::Text,
            cells: Vec::new(),
            row_labels: Vec::new(),
            col_labels: Vec::new(),
            player_names: names("first", "second"),
            text,
        },
    }
}

/// The view of `action`, legal in `position`.
pub fn describe_move<G: Game>(position: &G, action: Action) -> MoveView {
    let notation = position.format_action(action);
    let (cells, hit) = match known(position) {
        // Actions are cells, row 0 at the top, as in the grid.
        Known::TicTacToe(_) | Known::Gomoku(_) => (vec![action], vec![action]),
        Known::ConnectFour(g) => {
            let (rows, cols) = (g.rows(), g.cols());
            let column: Vec<usize> = (0..rows).map(|row| row * cols + action).collect();
            // The disc lands in the lowest empty cell of the column.
            let landing = (0..rows)
                .find(|&row| g.cell(row, action).is_none())
                .map(|row| (rows - 1 - row) * cols + action);
            (landing.into_iter().collect(), column)
        }
        Known::Go(g) => {
            let size = g.size();
            if action == g.pass_action() {
                (Vec::new(), Vec::new())
            } else {
                // Actions count rows from the bottom; the grid from the top.
                let cell = (size - 1 - action / size) * size + action % size;
                (vec![cell], vec![cell])
            }
        }
        Known::Other => (Vec::new(), Vec::new()),
    };
    MoveView {
        action,
        notation,
        cells,
        hit,
    }
}

/// Every legal move of `position`, in action order.
pub fn describe_moves<G: Game>(position: &G) -> Vec<MoveView> {
    position
        .legal_action_vec()
        .into_iter()
        .map(|action| describe_move(position, action))
        .collect()
}

fn piece(player: Player, label: &str) -> Piece {
    Piece {
        player: player.index(),
        label: label.to_string(),
    }
}

/// A square board of stones, `stone(row, col)` with row 0 at the top, GTP labels.
fn stones_view(
    size: usize,
    stone: impl Fn(usize, usize) -> Option<Player>,
    text: String,
) -> BoardView {
    BoardView {
        rows: size,
        cols: size,
        style: Style::Stones,
        cells: (0..size * size)
            .map(|cell| stone(cell / size, cell % size).map(|p| piece(p, "")))
            .collect(),
        row_labels: numbers_from_bottom(size),
        col_labels: letters(size, true),
        player_names: ["black".to_string(), "white".to_string()],
        text,
    }
}

/// `n`, ..., `1`: row labels top to bottom for boards that count rows from the bottom.
fn numbers_from_bottom(n: usize) -> Vec<String> {
    (1..=n).rev().map(|r| r.to_string()).collect()
}

/// Column letters `a`, `b`, ... (upper case and without `I` in GTP's style).
fn letters(n: usize, gtp: bool) -> Vec<String> {
    let alphabet: Vec<char> = if gtp {
        ('A'..='Z').filter(|&c| c != 'I').collect()
    } else {
        ('a'..='z').collect()
    };
    alphabet.into_iter().take(n).map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use zerosum_games::registry::{parse_game, GAME_NAMES};
    use zerosum_games::with_game;

    use super::*;

    #[test]
    fn tictactoe_cells_are_actions() {
        let mut game = TicTacToe::new();
        game.play_notation("a1").unwrap();
        let board = describe_board(&game);
        assert_eq!((board.rows, board.cols, board.style), (3, 3, Style::Marks));
        // a1 is the bottom-left cell, row 2 of the grid.
        assert_eq!(board.cells[6], Some(piece(Player::FIRST, "X")));
        assert_eq!(board.cells.iter().flatten().count(), 1);
        let moves = describe_moves(&game);
        assert_eq!(moves.len(), 8);
        assert_eq!(moves[0].notation, "a3");
        assert_eq!(moves[0].cells, vec![0]);
    }

    #[test]
    fn connect4_moves_land_in_the_lowest_empty_cell_and_hit_the_column() {
        let mut game = ConnectFour::new();
        game.play_notation("d").unwrap();
        let d = describe_move(&game, 3);
        assert_eq!(d.notation, "d");
        // Row 5 of the grid (the bottom) holds the first disc; the next lands above it.
        assert_eq!(d.cells, vec![4 * 7 + 3]);
        assert_eq!(d.hit, (0..6).map(|r| r * 7 + 3).collect::<Vec<_>>());
        let board = describe_board(&game);
        assert_eq!(board.cells[5 * 7 + 3], Some(piece(Player::FIRST, "")));
        assert_eq!(board.col_labels.join(""), "abcdefg");
    }

    #[test]
    fn go_pass_has_no_cell() {
        let game = Go::new();
        let pass = describe_move(&game, game.pass_action());
        assert_eq!(pass.notation, "pass");
        assert!(pass.cells.is_empty());
    }

    /// For every game with a grid: a move's last cell holds the mover's piece after it, and
    /// for every game all cells are on the board and the text is the game's own.
    #[test]
    fn moves_put_pieces_where_they_say_in_every_game() {
        let mut rng = SmallRng::seed_from_u64(7);
        for name in GAME_NAMES {
            let game = parse_game(name).unwrap();
            with_game!(&game, g => random_game_keeps_the_picture(name, g, &mut rng));
        }
    }

    fn random_game_keeps_the_picture<G: Game>(name: &str, initial: &G, rng: &mut SmallRng) {
        let mut position = initial.clone();
        for _ in 0..40 {
            if position.is_terminal() {
                break;
            }
            let board = describe_board(&position);
            assert_eq!(board.cells.len(), board.rows * board.cols, "{name}");
            assert_eq!(board.text, position.to_string());
            let moves = describe_moves(&position);
            assert!(!moves.is_empty(), "{name}");
            for m in &moves {
                assert!(m.cells.iter().chain(&m.hit).all(|&c| c < board.cells.len()));
                assert_eq!(position.parse_action(&m.notation).unwrap(), m.action);
            }
            let m = &moves[rng.random_range(0..moves.len())];
            let mover = position.to_move();
            position.apply(m.action);
            if let Some(&last) = m.cells.last() {
                let after = describe_board(&position);
                assert_eq!(
                    after.cells[last].as_ref().map(|p| p.player),
                    Some(mover.index()),
                    "{name}: {} should put a piece on cell {last}",
                    m.notation
                );
            }
        }
    }
}
