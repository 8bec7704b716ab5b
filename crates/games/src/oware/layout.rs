//! The Oware grid: the second player's houses `f`..`a` on top, facing the first player's
//! `A`..`F` below, so that sowing runs counter-clockwise as on a real board.

use super::{Oware, HOUSES};
use crate::game::Game;
use crate::layout::{BoardLayout, MoveCells, Piece, Style};
use crate::outcome::{Action, Player};

pub(super) fn board(g: &Oware) -> BoardLayout {
    let house = |player: usize, house: usize| {
        let seeds = g.seeds(player, house);
        (seeds > 0).then(|| Piece {
            player,
            label: seeds.to_string(),
            kind: String::new(),
        })
    };
    let cells = (0..HOUSES)
        .map(|col| house(1, HOUSES - 1 - col))
        .chain((0..HOUSES).map(|col| house(0, col)))
        .collect();
    BoardLayout {
        row_labels: vec![format!("{} won", g.score(1)), format!("{} won", g.score(0))],
        col_labels: ('A'..).take(HOUSES).map(String::from).collect(),
        top_labels: ('a'..)
            .take(HOUSES)
            .map(String::from)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect(),
        player_names: ["first (A-F)".to_string(), "second (a-f)".to_string()],
        ..BoardLayout::grid(2, HOUSES, Style::Houses, cells)
    }
}

/// The grid cell of the mover's house `action` (`0..6` from the mover's left).
pub(super) fn move_cells(g: &Oware, action: Action) -> MoveCells {
    MoveCells::one(if g.to_move() == Player::FIRST {
        HOUSES + action
    } else {
        HOUSES - 1 - action
    })
}
