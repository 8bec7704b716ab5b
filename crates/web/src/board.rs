//! The game-agnostic picture of a position that the page draws.
//!
//! The page knows no game. The server sends a [`BoardView`] (the game's
//! [`BoardLayout`]: a grid of `rows` x `cols` cells, row 0 at the top, each empty or
//! holding a piece, plus the text board) and one [`MoveView`] per legal move: its notation
//! and the cells it involves ([`Game::move_cells`]). Each game draws itself through the
//! optional layout part of the game contract ([`zerosum_games::layout`]); a game without
//! one gets [`Style::Text`](zerosum_games::layout::Style::Text): its text board and its
//! moves as buttons, which plays every game, if less prettily.

use serde::Serialize;
use zerosum_games::layout::BoardLayout;
use zerosum_games::{Action, Game};

/// A position as the page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    /// The grid, or an empty [`Style::Text`](zerosum_games::layout::Style::Text) one.
    #[serde(flatten)]
    pub layout: BoardLayout,
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

/// The picture of `position`.
pub fn describe_board<G: Game>(position: &G) -> BoardView {
    BoardView {
        layout: position.layout().unwrap_or_else(BoardLayout::text),
        text: position.to_string(),
    }
}

/// The view of `action`, legal in `position`.
pub fn describe_move<G: Game>(position: &G, action: Action) -> MoveView {
    let cells = position.move_cells(action);
    MoveView {
        action,
        notation: position.format_action(action),
        cells: cells.cells,
        hit: cells.hit,
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

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use zerosum_games::chess::Chess;
    use zerosum_games::connect_four::ConnectFour;
    use zerosum_games::go::Go;
    use zerosum_games::layout::{Piece, Style};
    use zerosum_games::oware::Oware;
    use zerosum_games::pushfight::PushFight;
    use zerosum_games::registry::{game_names, parse_game};
    use zerosum_games::tic_tac_toe::TicTacToe;
    use zerosum_games::{with_game, Player};

    use super::*;

    #[test]
    fn tictactoe_cells_are_actions() {
        let mut game = TicTacToe::new();
        game.play_notation("a1").unwrap();
        let board = describe_board(&game);
        assert_eq!(
            (board.layout.rows, board.layout.cols, board.layout.style),
            (3, 3, Style::Marks)
        );
        // a1 is the bottom-left cell, row 2 of the grid.
        assert_eq!(board.layout.cells[6], Some(Piece::new(Player::FIRST, "X")));
        assert_eq!(board.layout.cells.iter().flatten().count(), 1);
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
        assert_eq!(
            board.layout.cells[5 * 7 + 3],
            Some(Piece::new(Player::FIRST, ""))
        );
        assert_eq!(board.layout.col_labels.join(""), "abcdefg");
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
        assert_eq!(
            (board.layout.rows, board.layout.cols, board.layout.style),
            (2, 6, Style::Houses)
        );
        assert!(board
            .layout
            .cells
            .iter()
            .all(|c| c.as_ref().is_some_and(|p| p.label == "4")));
        assert_eq!(board.layout.top_labels.join(""), "fedcba");
        // The first player's house C is the bottom row's third cell.
        let c = describe_move(&game, 2);
        assert_eq!((c.notation.as_str(), c.cells.clone()), ("C", vec![8]));
        game.apply(2);
        let after = describe_board(&game);
        assert_eq!(after.layout.cells[8], None);
        // D, E, F got a seed; then the second player's a, the top row's last cell.
        assert_eq!(after.layout.cells[9].as_ref().unwrap().label, "5");
        assert_eq!(after.layout.cells[5].as_ref().unwrap().label, "5");
        assert_eq!(after.layout.cells[4].as_ref().unwrap().label, "4");
        // The second player's house a is above F (cell 5): its action 0.
        assert_eq!(describe_move(&game, 0).cells, vec![5]);
    }

    #[test]
    fn chess_moves_go_from_square_to_square_with_promotions_sharing_them() {
        let game = Chess::new();
        let board = describe_board(&game);
        assert_eq!(
            (board.layout.rows, board.layout.cols, board.layout.style),
            (8, 8, Style::Checkers)
        );
        // Black's rook on a8 top left, White's king on e1.
        assert_eq!(board.layout.cells[0].as_ref().unwrap().player, 1);
        assert_eq!(
            board.layout.cells[7 * 8 + 4].as_ref().unwrap().label,
            "\u{265A}"
        );
        assert_eq!(board.layout.cells[7 * 8 + 4].as_ref().unwrap().player, 0);
        assert_eq!(
            (
                board.layout.decor[0].as_str(),
                board.layout.decor[1].as_str()
            ),
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
        assert_eq!(
            (board.layout.rows, board.layout.cols, board.layout.style),
            (4, 8, Style::Tiles)
        );
        assert_eq!(board.layout.decor[0], "off");
        assert_eq!(board.layout.decor[2], "rail-top");
        assert_eq!(board.layout.decor[3 * 8 + 1], "rail-bottom");
        for square in ["d3", "d2", "c3", "b3", "c2", "e3", "e2", "f3", "f2", "e4"] {
            game.play_notation(square).unwrap();
        }
        let push = game.parse_action("d3>e3").unwrap();
        let view = describe_move(&game, push);
        let (d3, e3) = (8 + 3, 8 + 4);
        assert_eq!(view.cells, vec![d3, e3]);
        assert!(view.hit.is_empty());
        let board = describe_board(&game);
        assert_eq!(board.layout.cells[d3].as_ref().unwrap().kind, "square");
        assert_eq!(board.layout.cells[8 + 1].as_ref().unwrap().kind, "round");
        game.apply(push);
        let after = describe_board(&game);
        assert_eq!(
            after.layout.cells[e3].as_ref().unwrap().kind,
            "square anchor"
        );
        assert_eq!(after.layout.cells[e3].as_ref().unwrap().player, 0);
    }

    /// For every game with a grid: a move's last cell holds the mover's piece after it, and
    /// for every game all cells are on the board and the text is the game's own.
    #[test]
    fn moves_put_pieces_where_they_say_in_every_game() {
        let mut rng = SmallRng::seed_from_u64(7);
        for name in game_names() {
            let game = parse_game(&name).unwrap();
            with_game!(&game, g => random_game_keeps_the_picture(&name, g, &mut rng));
        }
    }

    fn random_game_keeps_the_picture<G: Game>(name: &str, initial: &G, rng: &mut SmallRng) {
        let mut position = initial.clone();
        for _ in 0..40 {
            if position.is_terminal() {
                break;
            }
            let board = describe_board(&position);
            assert_eq!(
                board.layout.cells.len(),
                board.layout.rows * board.layout.cols,
                "{name}"
            );
            assert_eq!(board.text, position.to_string());
            assert!(
                board.layout.decor.is_empty()
                    || board.layout.decor.len() == board.layout.cells.len()
            );
            assert_ne!(board.layout.style, Style::Text, "{name} has no grid layout");
            let moves = describe_moves(&position);
            assert!(!moves.is_empty(), "{name}");
            for m in &moves {
                assert!(m
                    .cells
                    .iter()
                    .chain(&m.hit)
                    .all(|&c| c < board.layout.cells.len()));
                assert_eq!(position.parse_action(&m.notation).unwrap(), m.action);
            }
            let m = &moves[rng.random_range(0..moves.len())];
            let mover = position.to_move();
            position.apply(m.action);
            // Oware's click empties the house (the seeds go round the board).
            let places_a_piece = board.layout.style != Style::Houses;
            if let (Some(&last), true) = (m.cells.last(), places_a_piece) {
                let after = describe_board(&position);
                assert_eq!(
                    after.layout.cells[last].as_ref().map(|p| p.player),
                    Some(mover.index()),
                    "{name}: {} should put a piece on cell {last}",
                    m.notation
                );
            }
        }
    }
}
