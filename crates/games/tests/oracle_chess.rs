//! Replays the OpenSpiel chess games in `shared/oracles/chess.jsonl`.
//!
//! OpenSpiel numbers its actions its own way (4674 ids) and writes moves in SAN, so moves are
//! matched through SAN: at every position the SAN strings of our legal actions must be the
//! oracle's `legal_strings`, and the recorded move is the action whose SAN is the recorded
//! string. The oracle's ids are still checked: each id must stand for one and the same action
//! of ours wherever it appears (both encodings are functions of the move seen from the
//! mover's side, so they differ by a fixed relabelling).
//!
//! OpenSpiel's players are colours: player 0 is black and player 1 white, so its player `p`
//! is our `Player` with index `1 - p`, and its `returns` are `[black, white]`.

#[allow(dead_code)] // this replay matches moves by SAN, not through common::replay
mod common;

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use zerosum_games::{chess::Chess, Game, Player};

/// Our player for OpenSpiel's player index.
fn our_player(oracle_player: u64) -> Player {
    Player::try_from_index(1 - oracle_player as usize).expect("OpenSpiel chess has players 0, 1")
}

/// `position["returns"]` as (white, black).
fn returns(value: &Value) -> [f32; 2] {
    let r = |i: usize| value[i].as_f64().expect("returns are numbers") as f32;
    // [black, white] in OpenSpiel's player order.
    [r(1), r(0)]
}

#[test]
fn oracle_games_replay_exactly() {
    let mut id_to_action: HashMap<u64, usize> = HashMap::new();
    let (mut games, mut positions, mut fens_equal) = (0, 0, 0);
    for record in common::oracle_games("chess.jsonl") {
        let (seed, index) = (&record["seed"], &record["index"]);
        assert_eq!(record["game"], "chess");
        let played = common::strings(&record, "action_strings");
        let oracle_positions = record["positions"].as_array().expect("positions");
        assert_eq!(oracle_positions.len(), played.len() + 1);
        let mut game = Chess::new().with_max_plies(0);
        for (ply, position) in oracle_positions.iter().enumerate() {
            let at = format!("chess.jsonl seed {seed} game {index} ply {ply}\n{game}");
            let terminal = position["is_terminal"].as_bool().expect("is_terminal");
            assert_eq!(game.is_terminal(), terminal, "terminal flag at {at}");
            let ours = [Player::FIRST, Player::SECOND]
                .map(|p| game.outcome().map_or(0.0, |o| o.value_for(p)));
            assert_eq!(ours, returns(&position["returns"]), "returns at {at}");
            if !terminal {
                let mover = position["current_player"].as_u64().expect("a player");
                assert_eq!(game.to_move(), our_player(mover), "player to move at {at}");
            }
            // The position itself: the reference's state is a FEN with the same
            // conventions (en-passant square only when a capture is possible).
            let state = position["state"].as_str().expect("state is a FEN");
            assert_eq!(game.to_fen(), state, "FEN at {at}");
            fens_equal += 1;

            let legal = game.legal_action_vec();
            let sans: Vec<String> = legal.iter().map(|&a| game.san(a).unwrap()).collect();
            let ours: BTreeSet<&str> = sans.iter().map(String::as_str).collect();
            let strings = common::strings(position, "legal_strings");
            let theirs: BTreeSet<&str> = strings.iter().map(String::as_str).collect();
            assert_eq!(
                ours.len(),
                legal.len(),
                "two legal actions share a SAN at {at}"
            );
            assert_eq!(ours, theirs, "legal moves at {at}");
            for (id, text) in common::actions(position, "legal").iter().zip(&strings) {
                let action = legal[sans.iter().position(|s| s == text).expect("same set")];
                let known = *id_to_action.entry(*id as u64).or_insert(action);
                assert_eq!(
                    known, action,
                    "oracle id {id} ({text}) maps to two actions at {at}"
                );
                assert_eq!(
                    game.parse_san(text),
                    Ok(action),
                    "parse_san({text}) at {at}"
                );
            }
            positions += 1;
            if let Some(text) = played.get(ply) {
                let action = game
                    .parse_san(text)
                    .unwrap_or_else(|e| panic!("{e} at {at}"));
                game.try_apply(action)
                    .unwrap_or_else(|e| panic!("{e} at {at}"));
            }
        }
        let final_returns = game
            .outcome()
            .map(|o| [Player::FIRST, Player::SECOND].map(|p| o.value_for(p)));
        assert_eq!(
            final_returns,
            Some(returns(&record["returns"])),
            "seed {seed} game {index}"
        );
        games += 1;
    }
    assert!(games > 0);
    println!(
        "chess oracle: {games} games, {positions} positions agree (legal SAN sets, terminal, \
         returns, mover, FEN at {fens_equal}); {} oracle ids mapped consistently",
        id_to_action.len()
    );
}
