//! Replays the OpenSpiel Oware games in `shared/oracles/oware.jsonl` under OpenSpiel's
//! rules: the repetition rule on, no move limit (`oware:repetition=true,max_turns=0`).

#[allow(dead_code)] // each test uses part of the shared helpers
mod common;

use zerosum_games::{oware::Oware, registry, Game, Player};

/// The oracle's strings are ours: `A`..`F` for the first player, `a`..`f` for the second.
fn oracle_to_ours(game: &Oware, text: &str) -> String {
    let expected_case = game.to_move() == Player::FIRST;
    assert_eq!(
        text.chars().all(|c| c.is_ascii_uppercase()),
        expected_case,
        "'{text}' is not in the mover's case"
    );
    text.to_string()
}

/// The houses (`A`..`F`, then `a`..`f`) and the two scores in OpenSpiel's text board.
fn oracle_board(state: &str) -> ([u8; 12], [u8; 2]) {
    let score = |player: &str| -> u8 {
        let line = state
            .lines()
            .find(|l| l.starts_with(&format!("Player {player} score = ")))
            .unwrap_or_else(|| panic!("no score of player {player} in\n{state}"));
        line.split_whitespace()
            .nth(4)
            .expect("a score")
            .parse()
            .expect("a number")
    };
    let rows: Vec<Vec<u8>> = state
        .lines()
        .filter(|l| !l.trim().is_empty() && l.split_whitespace().all(|w| w.parse::<u8>().is_ok()))
        .map(|l| l.split_whitespace().map(|w| w.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 2, "two rows of houses in\n{state}");
    let mut seeds = [0; 12];
    // The top row lists the second player's houses from f down to a.
    for (i, &s) in rows[0].iter().enumerate() {
        seeds[11 - i] = s;
    }
    seeds[..6].copy_from_slice(&rows[1]);
    (seeds, [score("0"), score("1")])
}

fn openspiel_rules() -> Oware {
    let game = registry::parse_game("oware:repetition=true,max_turns=0").unwrap();
    match game {
        registry::AnyGame::Oware(game) => game,
        other => panic!("parse_game gave {}", other.name()),
    }
}

#[test]
fn oracle_games_replay_exactly() {
    let game = openspiel_rules();
    assert_eq!(game, Oware::with_rules(true, 0));
    let counts = common::replay(&game, "oware.jsonl", oracle_to_ours);
    println!(
        "oware oracle: {} games, {} positions agree",
        counts.games, counts.positions
    );
}

#[test]
fn oracle_boards_and_scores_match() {
    let mut positions = 0;
    let mut repetitions = 0;
    for record in common::oracle_games("oware.jsonl") {
        let played = common::actions(&record, "actions");
        let mut game = openspiel_rules();
        // The same moves without the repetition rule tell which games ended by it.
        let mut plain = Oware::with_rules(false, 0);
        for (ply, position) in record["positions"].as_array().unwrap().iter().enumerate() {
            let (seeds, scores) = oracle_board(position["state"].as_str().unwrap());
            let ours: [u8; 12] = std::array::from_fn(|h| game.seeds(h / 6, h % 6));
            let at = format!("seed {} ply {ply}\n{game}", record["seed"]);
            assert_eq!(ours, seeds, "houses at {at}");
            assert_eq!([game.score(0), game.score(1)], scores, "scores at {at}");
            positions += 1;
            if let Some(&action) = played.get(ply) {
                game.apply(action);
                plain.apply(action);
            }
        }
        if !plain.is_terminal() {
            repetitions += 1;
        }
    }
    assert!(repetitions > 0, "no oracle game ended by repetition");
    println!("oware oracle: {positions} boards and scores agree; {repetitions} games ended by repetition");
}
