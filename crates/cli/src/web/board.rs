//! The game-agnostic picture of a position that the page draws.
//!
//! The page knows no game. The server sends a [`BoardView`] (a grid of `rows` x `cols`
//! cells, row 0 at the top, each empty or holding a [`Piece`]) and one [`MoveView`] per
//! legal move: its notation and the cells it involves. A move with one cell is played by a
//! click on any cell of its `hit` list (a tic-tac-toe square; for connect four, any cell of
//! the column, while `cells` names the cell where the disc lands); a move with several
//! cells (from, to; a chess move, a Push Fight move or push) by a click on the first and
//! then on the last; a move with none (Go's pass, or every move of a game without a grid
//! layout) is a button. The heat map puts each move's share of the search on the last of
//! its cells.
//!
//! What is per game is here, in one match: [`known`] recognises the concrete game type
//! behind the generic `G` (a downcast through `Any`, so the `Game` trait needs no drawing
//! methods), and each layout maps the position's pieces and each action onto cells.
//! A game without a layout gets [`Style::Text`]: its text board and its moves as buttons,
//! which plays every game of the registry, if less prettily. A new grid game needs a layout
//! function of a few lines and no JavaScript.

use std::any::Any;

use serde::Serialize;
use zerosum_games::chess::Chess;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::go::Go;
use zerosum_games::gomoku::Gomoku;
use zerosum_games::oware::Oware;
use zerosum_games::pushfight::geometry::{
    self as pushfight_geometry, NEIGHBOR as PUSHFIGHT_NEIGHBOR,
};
use zerosum_games::pushfight::{Act as PushFightAct, PushFight};
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
    /// Two rows of pits with seed counts (Oware).
    Houses,
    /// Light and dark squares with piece glyphs (chess).
    Checkers,
    /// Push Fight's tiles: square and round pieces, the anchor, rails and the missing
    /// corners (cells with decor `off`).
    Tiles,
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
    /// Words the page turns into CSS classes `kind-<word>` (Push Fight's `square anchor`);
    /// empty for most pieces.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
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
    /// Labels above the columns (Oware's upper row of houses); empty for none.
    pub top_labels: Vec<String>,
    /// `[rows * cols]` or empty: space-separated CSS classes for each cell (`dark` chess
    /// squares, Push Fight's `off` cells and `rail-top`/`rail-bottom` edges).
    pub decor: Vec<String>,
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
    Oware(&'a Oware),
    Chess(&'a Chess),
    PushFight(&'a PushFight),
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
    } else if let Some(g) = any.downcast_ref::<Oware>() {
        Known::Oware(g)
    } else if let Some(g) = any.downcast_ref::<Chess>() {
        Known::Chess(g)
    } else if let Some(g) = any.downcast_ref::<PushFight>() {
        Known::PushFight(g)
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
                top_labels: Vec::new(),
                decor: Vec::new(),
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
                top_labels: Vec::new(),
                decor: Vec::new(),
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
        Known::Oware(g) => oware_view(g, text),
        Known::Chess(g) => chess_view(g, text),
        Known::PushFight(g) => pushfight_view(g, text),
        Known::Other => BoardView {
            rows: 0,
            cols: 0,
            style: Style::Text,
            cells: Vec::new(),
            row_labels: Vec::new(),
            col_labels: Vec::new(),
            top_labels: Vec::new(),
            decor: Vec::new(),
            player_names: names("first", "second"),
            text,
        },
    }
}

/// The Oware grid: the second player's houses `f`..`a` on top, facing the first player's
/// `A`..`F` below, so that sowing runs counter-clockwise as on a real board.
fn oware_view(g: &Oware, text: String) -> BoardView {
    let houses = OWARE_HOUSES;
    let house = |player: usize, house: usize| {
        let seeds = g.seeds(player, house);
        (seeds > 0).then(|| Piece {
            player,
            label: seeds.to_string(),
            kind: String::new(),
        })
    };
    BoardView {
        rows: 2,
        cols: houses,
        style: Style::Houses,
        cells: (0..houses)
            .map(|col| house(1, houses - 1 - col))
            .chain((0..houses).map(|col| house(0, col)))
            .collect(),
        row_labels: vec![format!("{} won", g.score(1)), format!("{} won", g.score(0))],
        col_labels: ('A'..).take(houses).map(String::from).collect(),
        top_labels: ('a'..)
            .take(houses)
            .map(String::from)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect(),
        decor: Vec::new(),
        player_names: ["first (A-F)".to_string(), "second (a-f)".to_string()],
        text,
    }
}

/// Houses per row in Oware.
const OWARE_HOUSES: usize = 6;

/// The grid cell of the mover's house `action` (`0..6` from the mover's left).
fn oware_cell(g: &Oware, action: Action) -> usize {
    if g.to_move() == Player::FIRST {
        OWARE_HOUSES + action
    } else {
        OWARE_HOUSES - 1 - action
    }
}

/// The chess board from White's side, read from the FEN so that the games crate keeps its
/// move generator to itself.
fn chess_view(g: &Chess, text: String) -> BoardView {
    let fen = g.to_fen();
    let placement = fen.split(' ').next().unwrap_or_default();
    let mut cells = Vec::with_capacity(64);
    for rank in placement.split('/') {
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(empty) => cells.extend((0..empty).map(|_| None)),
                None => cells.push(Some(Piece {
                    player: usize::from(c.is_ascii_lowercase()),
                    label: chess_glyph(c).to_string(),
                    kind: String::new(),
                })),
            }
        }
    }
    debug_assert_eq!(cells.len(), 64, "{fen}");
    cells.resize(64, None);
    BoardView {
        rows: 8,
        cols: 8,
        style: Style::Checkers,
        cells,
        row_labels: numbers_from_bottom(8),
        col_labels: letters(8, false),
        top_labels: Vec::new(),
        decor: (0..64)
            .map(|cell| {
                if (cell / 8 + cell % 8) % 2 == 1 {
                    "dark"
                } else {
                    "light"
                }
                .to_string()
            })
            .collect(),
        player_names: ["white".to_string(), "black".to_string()],
        text,
    }
}

/// The filled glyph of a FEN piece letter; the page colours it by owner.
fn chess_glyph(letter: char) -> char {
    match letter.to_ascii_lowercase() {
        'k' => '\u{265A}',
        'q' => '\u{265B}',
        'r' => '\u{265C}',
        'b' => '\u{265D}',
        'n' => '\u{265E}',
        _ => '\u{265F}',
    }
}

/// The cell of a square named in UCI (`e4`), row 0 being rank 8.
fn chess_cell(name: &[u8]) -> Option<usize> {
    match name {
        &[file @ b'a'..=b'h', rank @ b'1'..=b'8'] => {
            Some(usize::from(b'8' - rank) * 8 + usize::from(file - b'a'))
        }
        _ => None,
    }
}

/// Push Fight's 4 x 8 grid, which is the games crate's own cell numbering.
fn pushfight_view(g: &PushFight, text: String) -> BoardView {
    let cells = pushfight_geometry::NUM_CELLS;
    let on_board = |cell: usize| pushfight_geometry::SQUARES >> cell & 1 == 1;
    let rail = |cell: usize| pushfight_geometry::RAIL_SQUARES >> cell & 1 == 1;
    BoardView {
        rows: pushfight_geometry::HEIGHT,
        cols: pushfight_geometry::WIDTH,
        style: Style::Tiles,
        cells: (0..cells)
            .map(|cell| {
                if !on_board(cell) {
                    return None;
                }
                let p = g.piece(cell)?;
                let shape = if p.pusher { "square" } else { "round" };
                let anchored = g.anchor() == Some(cell);
                Some(Piece {
                    player: p.owner.index(),
                    label: String::new(),
                    kind: if anchored {
                        format!("{shape} anchor")
                    } else {
                        shape.to_string()
                    },
                })
            })
            .collect(),
        row_labels: numbers_from_bottom(pushfight_geometry::HEIGHT),
        col_labels: letters(pushfight_geometry::WIDTH, false),
        top_labels: Vec::new(),
        decor: (0..cells)
            .map(|cell| {
                if !on_board(cell) {
                    "off"
                } else if rail(cell) && cell < pushfight_geometry::WIDTH {
                    "rail-top"
                } else if rail(cell) {
                    "rail-bottom"
                } else {
                    ""
                }
                .to_string()
            })
            .collect(),
        player_names: ["white".to_string(), "black".to_string()],
        text,
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
        Known::Oware(g) => {
            let cell = oware_cell(g, action);
            (vec![cell], vec![cell])
        }
        Known::Chess(_) => {
            // UCI names the squares (`e2e4`, `e7e8q`, castling as the king's move `e1g1`).
            let squares = notation.as_bytes();
            let cells: Vec<usize> = [squares.get(0..2), squares.get(2..4)]
                .into_iter()
                .flatten()
                .filter_map(chess_cell)
                .collect();
            (cells, Vec::new())
        }
        Known::PushFight(_) => {
            let cells = match PushFightAct::of_action(action) {
                PushFightAct::Place(to) => vec![to],
                PushFightAct::Move(from, to) => vec![from, to],
                // A legal push has a piece beside the pusher, so the step stays on the grid.
                PushFightAct::Push(from, direction) => {
                    let to = usize::from(PUSHFIGHT_NEIGHBOR[from][direction.index()]);
                    if to < pushfight_geometry::NUM_CELLS {
                        vec![from, to]
                    } else {
                        vec![from]
                    }
                }
            };
            let hit = if cells.len() == 1 {
                cells.clone()
            } else {
                Vec::new()
            };
            (cells, hit)
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
        kind: String::new(),
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
        top_labels: Vec::new(),
        decor: Vec::new(),
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

    #[test]
    fn oware_houses_face_each_other_and_a_click_empties_the_mover_s_house() {
        let mut game = Oware::new();
        let board = describe_board(&game);
        assert_eq!((board.rows, board.cols, board.style), (2, 6, Style::Houses));
        assert!(board
            .cells
            .iter()
            .all(|c| c.as_ref().is_some_and(|p| p.label == "4")));
        assert_eq!(board.top_labels.join(""), "fedcba");
        // The first player's house C is the bottom row's third cell.
        let c = describe_move(&game, 2);
        assert_eq!((c.notation.as_str(), c.cells.clone()), ("C", vec![8]));
        game.apply(2);
        let after = describe_board(&game);
        assert_eq!(after.cells[8], None);
        // D, E, F got a seed; then the second player's a, the top row's last cell.
        assert_eq!(after.cells[9].as_ref().unwrap().label, "5");
        assert_eq!(after.cells[5].as_ref().unwrap().label, "5");
        assert_eq!(after.cells[4].as_ref().unwrap().label, "4");
        // The second player's house a is above F (cell 5): its action 0.
        assert_eq!(describe_move(&game, 0).cells, vec![5]);
    }

    #[test]
    fn chess_moves_go_from_square_to_square_with_promotions_sharing_them() {
        let game = Chess::new();
        let board = describe_board(&game);
        assert_eq!(
            (board.rows, board.cols, board.style),
            (8, 8, Style::Checkers)
        );
        // Black's rook on a8 top left, White's king on e1.
        assert_eq!(board.cells[0].as_ref().unwrap().player, 1);
        assert_eq!(board.cells[7 * 8 + 4].as_ref().unwrap().label, "\u{265A}");
        assert_eq!(board.cells[7 * 8 + 4].as_ref().unwrap().player, 0);
        assert_eq!(
            (board.decor[0].as_str(), board.decor[1].as_str()),
            ("light", "dark")
        );
        let e4 = game.parse_action("e2e4").unwrap();
        assert_eq!(describe_move(&game, e4).cells, vec![6 * 8 + 4, 4 * 8 + 4]);
        let promotion = Chess::from_fen("8/4P3/8/8/8/k7/8/K7 w - - 0 1").unwrap();
        let moves = describe_moves(&promotion);
        let to_e8: Vec<_> = moves.iter().filter(|m| m.cells == vec![8 + 4, 4]).collect();
        assert_eq!(to_e8.len(), 4, "queen, rook, bishop and knight");
    }

    #[test]
    fn pushfight_pushes_go_from_the_pusher_to_the_piece_it_pushes() {
        let mut game = PushFight::new();
        let board = describe_board(&game);
        assert_eq!((board.rows, board.cols, board.style), (4, 8, Style::Tiles));
        assert_eq!(board.decor[0], "off");
        assert_eq!(board.decor[2], "rail-top");
        assert_eq!(board.decor[3 * 8 + 1], "rail-bottom");
        for square in ["d3", "d2", "c3", "b3", "c2", "e3", "e2", "f3", "f2", "e4"] {
            game.play_notation(square).unwrap();
        }
        let push = game.parse_action("d3>e3").unwrap();
        let view = describe_move(&game, push);
        let (d3, e3) = (8 + 3, 8 + 4);
        assert_eq!(view.cells, vec![d3, e3]);
        assert!(view.hit.is_empty());
        let board = describe_board(&game);
        assert_eq!(board.cells[d3].as_ref().unwrap().kind, "square");
        assert_eq!(board.cells[8 + 1].as_ref().unwrap().kind, "round");
        game.apply(push);
        let after = describe_board(&game);
        assert_eq!(after.cells[e3].as_ref().unwrap().kind, "square anchor");
        assert_eq!(after.cells[e3].as_ref().unwrap().player, 0);
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
            assert!(board.decor.is_empty() || board.decor.len() == board.cells.len());
            assert_ne!(board.style, Style::Text, "{name} has no grid layout");
            let moves = describe_moves(&position);
            assert!(!moves.is_empty(), "{name}");
            for m in &moves {
                assert!(m.cells.iter().chain(&m.hit).all(|&c| c < board.cells.len()));
                assert_eq!(position.parse_action(&m.notation).unwrap(), m.action);
            }
            let m = &moves[rng.random_range(0..moves.len())];
            let mover = position.to_move();
            position.apply(m.action);
            // Oware's click empties the house (the seeds go round the board).
            let places_a_piece = board.style != Style::Houses;
            if let (Some(&last), true) = (m.cells.last(), places_a_piece) {
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
