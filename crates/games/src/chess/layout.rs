//! The chess board from White's side, read from the FEN so that the layout stays apart
//! from the move generator.

use super::Chess;
use crate::game::Game;
use crate::layout::Style;
use crate::layout::{letters, numbers_from_bottom, player_names, BoardLayout, MoveCells, Piece};
use crate::outcome::Action;

pub(super) fn board(g: &Chess) -> BoardLayout {
    let fen = g.to_fen();
    let placement = fen.split(' ').next().unwrap_or_default();
    let mut cells = Vec::with_capacity(64);
    for rank in placement.split('/') {
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(empty) => cells.extend((0..empty).map(|_| None)),
                None => cells.push(Some(Piece {
                    player: usize::from(c.is_ascii_lowercase()),
                    label: glyph(c).to_string(),
                    kind: String::new(),
                })),
            }
        }
    }
    debug_assert_eq!(cells.len(), 64, "{fen}");
    cells.resize(64, None);
    let shade = |cell: usize| {
        if (cell / 8 + cell % 8) % 2 == 1 {
            "dark"
        } else {
            "light"
        }
    };
    BoardLayout {
        row_labels: numbers_from_bottom(8),
        col_labels: letters(8, false),
        decor: (0..64).map(|cell| shade(cell).to_string()).collect(),
        player_names: player_names("white", "black"),
        ..BoardLayout::grid(8, 8, Style::Checkers, cells)
    }
}

/// UCI names the squares (`e2e4`, `e7e8q`, castling as the king's move `e1g1`), so a
/// promotion's four moves share their two cells.
pub(super) fn move_cells(g: &Chess, action: Action) -> MoveCells {
    let notation = g.format_action(action);
    let squares = notation.as_bytes();
    let cells = [squares.get(0..2), squares.get(2..4)]
        .into_iter()
        .flatten()
        .filter_map(cell)
        .collect();
    MoveCells {
        cells,
        hit: Vec::new(),
    }
}

/// The filled glyph of a FEN piece letter; the drawer colours it by owner.
fn glyph(letter: char) -> char {
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
fn cell(name: &[u8]) -> Option<usize> {
    match name {
        &[file @ b'a'..=b'h', rank @ b'1'..=b'8'] => {
            Some(usize::from(b'8' - rank) * 8 + usize::from(file - b'a'))
        }
        _ => None,
    }
}
