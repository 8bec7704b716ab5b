//! The picture of a position that a board drawer (the web page of `zerosum serve`) shows.
//!
//! A game with a grid describes each position as a [`BoardLayout`] (a grid of `rows` x
//! `cols` cells, row 0 at the top, each empty or holding a [`Piece`]) and each action as
//! the [`MoveCells`] it involves, through [`Game::layout`](crate::Game::layout) and
//! [`Game::move_cells`](crate::Game::move_cells). Both are optional parts of the game
//! contract: a game without them is drawn as its text board with its moves as buttons.
//! The drawer knows no game: a new grid game needs a layout of a few lines and no
//! JavaScript.
//!
//! A move with one cell is played by a click on any cell of its `hit` list (a tic-tac-toe
//! square; for connect four, any cell of the column, while `cells` names the cell where
//! the disc lands); a move with several cells (from, to; a chess move, a Push Fight move or
//! push) by a click on the first and then on the last; a move with none (Go's pass) is a
//! button.

use serde::Serialize;

use crate::outcome::Player;

/// How the drawer draws the board and its pieces.
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
    /// Words the drawer turns into CSS classes `kind-<word>` (Push Fight's `square
    /// anchor`); empty for most pieces.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
}

impl Piece {
    /// A plain piece of `player` with `label` on it.
    pub fn new(player: Player, label: &str) -> Piece {
        Piece {
            player: player.index(),
            label: label.to_string(),
            kind: String::new(),
        }
    }
}

/// A position as a grid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardLayout {
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
}

impl BoardLayout {
    /// A `rows` x `cols` grid of `style` with the given pieces, no labels and no decor,
    /// players named `first` and `second`: the fields a layout does not set.
    pub fn grid(rows: usize, cols: usize, style: Style, cells: Vec<Option<Piece>>) -> Self {
        BoardLayout {
            rows,
            cols,
            style,
            cells,
            row_labels: Vec::new(),
            col_labels: Vec::new(),
            top_labels: Vec::new(),
            decor: Vec::new(),
            player_names: player_names("first", "second"),
        }
    }

    /// The layout of a game without a grid: its text board and its moves as buttons.
    pub fn text() -> Self {
        BoardLayout::grid(0, 0, Style::Text, Vec::new())
    }

    /// A square board of stones, `stone(row, col)` with row 0 at the top, GTP labels.
    pub fn stones(size: usize, stone: impl Fn(usize, usize) -> Option<Player>) -> Self {
        BoardLayout {
            row_labels: numbers_from_bottom(size),
            col_labels: letters(size, true),
            player_names: player_names("black", "white"),
            ..BoardLayout::grid(
                size,
                size,
                Style::Stones,
                (0..size * size)
                    .map(|cell| stone(cell / size, cell % size).map(|p| Piece::new(p, "")))
                    .collect(),
            )
        }
    }
}

/// The cells of a [`BoardLayout`] that one action involves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveCells {
    /// The cells the move involves, in order (where a piece lands; from, then to). Empty
    /// for a move that has no cell (a pass) or a game without a grid.
    pub cells: Vec<usize>,
    /// The cells a click on which plays a one-cell move; `cells` unless wider (a whole
    /// connect-four column).
    pub hit: Vec<usize>,
}

impl MoveCells {
    /// A move on one cell, played by a click on it.
    pub fn one(cell: usize) -> Self {
        MoveCells {
            cells: vec![cell],
            hit: vec![cell],
        }
    }

    /// A move from one cell to another (or a one-cell move when `cells` has one).
    pub fn path(cells: Vec<usize>) -> Self {
        let hit = if cells.len() == 1 {
            cells.clone()
        } else {
            Vec::new()
        };
        MoveCells { cells, hit }
    }
}

/// The two players' names on a board.
pub fn player_names(first: &str, second: &str) -> [String; 2] {
    [first.to_string(), second.to_string()]
}

/// `n`, ..., `1`: row labels top to bottom for boards that count rows from the bottom.
pub fn numbers_from_bottom(n: usize) -> Vec<String> {
    (1..=n).rev().map(|r| r.to_string()).collect()
}

/// Column letters `a`, `b`, ... (upper case and without `I` in GTP's style).
pub fn letters(n: usize, gtp: bool) -> Vec<String> {
    let alphabet: Vec<char> = if gtp {
        ('A'..='Z').filter(|&c| c != 'I').collect()
    } else {
        ('a'..='z').collect()
    };
    alphabet.into_iter().take(n).map(String::from).collect()
}
