//! Replays the OpenSpiel tic-tac-toe games in `shared/oracles/tic_tac_toe.jsonl`.

mod common;

use zerosum_games::{tic_tac_toe::TicTacToe, Game};

/// `x(r,c)` (row 0 at the top) in our notation: column letter, row counted from the bottom.
fn oracle_to_ours(game: &TicTacToe, text: &str) -> String {
    let mark = common::mark(game.to_move());
    let inner = text
        .strip_prefix(mark)
        .and_then(|t| t.strip_prefix('('))
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or_else(|| panic!("'{text}' is not {mark}(row,col)"));
    let (row, col) = inner.split_once(',').expect("row,col");
    let (row, col): (usize, usize) = (row.parse().expect("row"), col.parse().expect("col"));
    format!("{}{}", (b'a' + col as u8) as char, 3 - row)
}

#[test]
fn oracle_games_replay_exactly() {
    let counts = common::replay(&TicTacToe::new(), "tic_tac_toe.jsonl", oracle_to_ours);
    println!(
        "tic-tac-toe oracle: {} games, {} positions agree",
        counts.games, counts.positions
    );
}
