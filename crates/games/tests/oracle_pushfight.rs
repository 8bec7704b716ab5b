//! Replays the Push Fight games in `shared/oracles/pushfight.jsonl` (random games recorded by
//! the reference implementation of `shared/pushfight-rules.md`, cross-checked there against
//! alphapush). The action ids are the same 806 as ours; the reference writes `place c3`,
//! `move c3-e2` and `push d3 right` where we write `c3`, `c3-e2` and `d3>e3`. None of its
//! games is longer than our default cap of 300 plies.

// Push Fight's oracle strings carry no mover's mark, so `common::mark` goes unused here.
#[allow(dead_code)]
mod common;

use zerosum_games::pushfight::{geometry, PushFight};
use zerosum_games::{registry, Game};

/// The oracle's string in our notation, worked out from the square names alone (not from
/// our geometry tables): the push's target is the next square in the named direction.
fn oracle_to_ours(_game: &PushFight, text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["place", square] => square.to_string(),
        ["move", squares] => squares.to_string(),
        ["push", from, direction] => {
            let (file, rank) = (from.as_bytes()[0], from.as_bytes()[1]);
            let (file, rank) = match *direction {
                "up" => (file, rank + 1),
                "down" => (file, rank - 1),
                "left" => (file - 1, rank),
                "right" => (file + 1, rank),
                other => panic!("no direction '{other}' in '{text}'"),
            };
            format!("{from}>{}{}", file as char, rank as char)
        }
        _ => panic!("'{text}' is none of place, move, push"),
    }
}

fn oracle_rules() -> PushFight {
    match registry::parse_game("pushfight").unwrap() {
        registry::AnyGame::PushFight(game) => game,
        other => panic!("parse_game gave {}", other.name()),
    }
}

#[test]
fn oracle_games_replay_exactly() {
    let game = oracle_rules();
    assert_eq!(game, PushFight::new());
    let counts = common::replay(&game, "pushfight.jsonl", oracle_to_ours);
    println!(
        "pushfight oracle: {} games, {} positions agree",
        counts.games, counts.positions
    );
    assert_eq!((counts.games, counts.positions), (120, 3730));
}

#[test]
fn oracle_boards_anchors_and_moves_left_match() {
    let (mut positions, mut no_push_losses) = (0, 0);
    for record in common::oracle_games("pushfight.jsonl") {
        let played = common::actions(&record, "actions");
        let strings = common::strings(&record, "action_strings");
        let mut game = oracle_rules();
        for (ply, position) in record["positions"].as_array().unwrap().iter().enumerate() {
            let at = format!(
                "seed {} game {} ply {ply}\n{game}",
                record["seed"], record["index"]
            );
            // The reference writes W/w and B/b for the first and second player's
            // square/round pieces; we write O/o and X/x.
            let board: String = position["board"]
                .as_str()
                .expect("a board string")
                .chars()
                .map(|c| match c {
                    'W' => 'O',
                    'w' => 'o',
                    'B' => 'X',
                    'b' => 'x',
                    other => other,
                })
                .collect();
            assert_eq!(game.board_string(), board, "board at {at}");
            let anchor = position["anchor"].as_i64().expect("an anchor index");
            let ours = game.anchor().map_or(-1, |c| geometry::square(c) as i64);
            assert_eq!(ours, anchor, "anchor (square index) at {at}");
            let moves_left = position["moves_left"].as_u64().expect("moves left");
            assert_eq!(game.moves_left() as u64, moves_left, "moves left at {at}");
            positions += 1;
            if let Some(&action) = played.get(ply) {
                assert_eq!(
                    game.format_action(action),
                    oracle_to_ours(&game, &strings[ply])
                );
                let mover = game.to_move();
                game.apply(action);
                if game.is_terminal()
                    && game.to_move() == mover
                    && !strings[ply].starts_with("push")
                {
                    no_push_losses += 1;
                    assert_eq!(game.outcome().unwrap().value_for(mover), -1.0);
                }
            }
        }
    }
    println!("pushfight oracle: {positions} boards agree; {no_push_losses} games lost for want of a push");
    assert!(
        no_push_losses >= 1,
        "the file holds a game lost for want of a push"
    );
}
