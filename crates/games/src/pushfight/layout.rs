//! Push Fight's 4 x 8 grid, which is the game's own cell numbering.

use super::geometry::{HEIGHT, NEIGHBOR, NUM_CELLS, RAIL_SQUARES, SQUARES, WIDTH};
use super::{Act, PushFight};
use crate::layout::Style;
use crate::layout::{letters, numbers_from_bottom, player_names, BoardLayout, MoveCells, Piece};
use crate::outcome::Action;

fn on_board(cell: usize) -> bool {
    SQUARES >> cell & 1 == 1
}

fn rail(cell: usize) -> bool {
    RAIL_SQUARES >> cell & 1 == 1
}

pub(super) fn board(g: &PushFight) -> BoardLayout {
    let piece = |cell: usize| {
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
    };
    let decor = |cell: usize| {
        if !on_board(cell) {
            "off"
        } else if rail(cell) && cell < WIDTH {
            "rail-top"
        } else if rail(cell) {
            "rail-bottom"
        } else {
            ""
        }
        .to_string()
    };
    BoardLayout {
        row_labels: numbers_from_bottom(HEIGHT),
        col_labels: letters(WIDTH, false),
        decor: (0..NUM_CELLS).map(decor).collect(),
        player_names: player_names("white", "black"),
        ..BoardLayout::grid(
            HEIGHT,
            WIDTH,
            Style::Tiles,
            (0..NUM_CELLS).map(piece).collect(),
        )
    }
}

pub(super) fn move_cells(action: Action) -> MoveCells {
    MoveCells::path(match Act::of_action(action) {
        Act::Place(to) => vec![to],
        Act::Move(from, to) => vec![from, to],
        // A legal push has a piece beside the pusher, so the step stays on the grid.
        Act::Push(from, direction) => {
            let to = usize::from(NEIGHBOR[from][direction.index()]);
            if to < NUM_CELLS {
                vec![from, to]
            } else {
                vec![from]
            }
        }
    })
}
