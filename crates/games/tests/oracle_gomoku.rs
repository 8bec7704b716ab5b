//! Replays the OpenSpiel freestyle Gomoku games in `shared/oracles/gomoku9.jsonl` (9x9)
//! and `shared/oracles/gomoku15.jsonl` (15x15).

#[allow(dead_code)] // each test uses part of the shared helpers
mod common;

use zerosum_games::{gomoku::Gomoku, registry, Game, Player};

/// `r,c` (row 0 at the top) in our notation: GTP's column letter (no `I`) and the row
/// counted from the bottom.
fn oracle_to_ours(game: &Gomoku, text: &str) -> String {
    let (row, col) = text
        .split_once(',')
        .unwrap_or_else(|| panic!("'{text}' is not row,col"));
    let (row, col): (usize, usize) = (row.parse().expect("row"), col.parse().expect("col"));
    let letter = b"ABCDEFGHJKLMNOPQRST"[col] as char;
    format!("{letter}{}", game.size() - row)
}

fn replay(spec: &str, file: &str) {
    let game = match registry::parse_game(spec).unwrap() {
        registry::AnyGame::Gomoku(game) => game,
        other => panic!("parse_game gave {}", other.name()),
    };
    assert_eq!(game.name(), spec);
    let counts = common::replay(&game, file, oracle_to_ours);
    let boards = compare_boards(&game, file);
    assert_eq!(boards, counts.positions);
    println!(
        "{file}: {} games, {} positions agree (legal moves, result, mover, notation, stones)",
        counts.games, counts.positions
    );
}

/// Replays `file` again and compares every stone with the oracle's text board (a first
/// line naming the mover, then rows top first: `b` first player, `w` second, `.` empty).
fn compare_boards(initial: &Gomoku, file: &str) -> usize {
    let mut positions = 0;
    for record in common::oracle_games(file) {
        let played = common::actions(&record, "actions");
        let mut game = *initial;
        for (ply, position) in record["positions"].as_array().unwrap().iter().enumerate() {
            let state = position["state"].as_str().expect("a text board");
            let rows: Vec<&str> = state.lines().skip(1).collect();
            assert_eq!(rows.len(), game.size(), "{state}");
            for (row, line) in rows.iter().enumerate() {
                for (col, mark) in line.chars().enumerate() {
                    let expected = match mark {
                        'b' => Some(Player::FIRST),
                        'w' => Some(Player::SECOND),
                        _ => None,
                    };
                    assert_eq!(
                        game.stone(row, col),
                        expected,
                        "{file} seed {} ply {ply} at {row},{col}\n{game}",
                        record["seed"]
                    );
                }
            }
            positions += 1;
            if let Some(&action) = played.get(ply) {
                game.apply(action);
            }
        }
    }
    positions
}

#[test]
fn oracle_games_on_9x9_replay_exactly() {
    replay("gomoku:size=9", "gomoku9.jsonl");
}

#[test]
fn oracle_games_on_15x15_replay_exactly() {
    replay("gomoku:size=15", "gomoku15.jsonl");
}
