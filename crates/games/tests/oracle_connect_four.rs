//! Replays the OpenSpiel connect-four games (6x7, four in a row) in
//! `shared/oracles/connect_four.jsonl`.

mod common;

use zerosum_games::{connect_four::ConnectFour, Game};

/// `x3` (the mover's mark and the column from 0) in our notation: the column letter.
fn oracle_to_ours(game: &ConnectFour, text: &str) -> String {
    let mark = common::mark(game.to_move());
    let col: u8 = text
        .strip_prefix(mark)
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("'{text}' is not {mark}<column>"));
    ((b'a' + col) as char).to_string()
}

#[test]
fn oracle_games_replay_exactly() {
    let game = ConnectFour::new();
    assert_eq!(game.name(), "connect4:rows=6,cols=7,k=4");
    let counts = common::replay(&game, "connect_four.jsonl", oracle_to_ours);
    println!(
        "connect-four oracle: {} games, {} positions agree",
        counts.games, counts.positions
    );
}
