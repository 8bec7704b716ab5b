//! Replays the OpenSpiel Go games in `shared/oracles/go5.jsonl` (5x5, komi 0.5, cut off
//! after 100 moves) and `go7.jsonl` (7x7, komi 9.5, cut off after 98).
//!
//! Action ids are the same on both sides (`row * size + col` from a1, pass = `size *
//! size`). The rules differ in one place: OpenSpiel forbids suicide and the simple-ko point
//! but lets a move repeat an earlier whole-board position, and then ends the game as a
//! draw; under our positional superko such a move is illegal. So at every position our
//! legal set must be theirs minus exactly the moves that would repeat a board, worked out
//! here independently from the oracle's own boards with a plain capture rule, and a game is
//! compared only up to the first position whose recorded move repeats a board.

// Some helpers of `common` serve other games' replays only.
#[allow(dead_code)]
mod common;

use zerosum_games::registry::{parse_game, AnyGame};
use zerosum_games::{go::Go, Action, Game, Player};

/// The initial position named by `spec`.
fn go(spec: &str) -> Go {
    match parse_game(spec) {
        Ok(AnyGame::Go(game)) => game,
        other => panic!("{spec} is not a go game: {other:?}"),
    }
}

/// The board in the oracle's text (`" 5 XO+++"` lines, top row first): `size * size`
/// points, row 0 at the bottom; 0 empty, 1 black, 2 white.
fn oracle_board(state: &str, size: usize) -> Vec<u8> {
    let mut board = vec![0; size * size];
    let mut rows = 0;
    for line in state.lines().skip(1) {
        let mut parts = line.split_whitespace();
        let (Some(label), Some(cells), None) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Ok(row) = label.parse::<usize>() else {
            continue;
        };
        assert_eq!(cells.len(), size, "row {row} in\n{state}");
        for (col, mark) in cells.chars().enumerate() {
            board[(row - 1) * size + col] = match mark {
                'X' => 1,
                'O' => 2,
                '+' => 0,
                _ => panic!("unknown mark {mark} in\n{state}"),
            };
        }
        rows += 1;
    }
    assert_eq!(rows, size, "rows in\n{state}");
    board
}

/// The board after `colour` plays `point`, by the plain capture rule (a flood fill per
/// neighbouring group), or `None` if the point is taken or the move is suicide.
fn board_after(board: &[u8], size: usize, point: usize, colour: u8) -> Option<Vec<u8>> {
    let neighbours = |p: usize| {
        let (row, col) = (p / size, p % size);
        [
            (row > 0).then(|| p - size),
            (row + 1 < size).then(|| p + size),
            (col > 0).then(|| p - 1),
            (col + 1 < size).then(|| p + 1),
        ]
        .into_iter()
        .flatten()
    };
    let group = |board: &[u8], start: usize| {
        let (mut stones, mut stack, mut free) = (vec![start], vec![start], false);
        while let Some(p) = stack.pop() {
            for q in neighbours(p) {
                if board[q] == 0 {
                    free = true;
                } else if board[q] == board[start] && !stones.contains(&q) {
                    stones.push(q);
                    stack.push(q);
                }
            }
        }
        (stones, free)
    };
    if board[point] != 0 {
        return None;
    }
    let mut after = board.to_vec();
    after[point] = colour;
    for q in neighbours(point) {
        if after[q] == 3 - colour {
            let (stones, free) = group(&after, q);
            if !free {
                stones.into_iter().for_each(|p| after[p] = 0);
            }
        }
    }
    group(&after, point).1.then_some(after)
}

/// What one file's replay compared.
#[derive(Default, Debug)]
struct Tally {
    games: usize,
    positions: usize,
    /// Games cut short at a move that repeats a board.
    stopped_at_repetition: usize,
    /// Oracle-legal moves that superko removed, and the positions that had any.
    superko_moves: usize,
    superko_positions: usize,
}

fn replay(spec: &str, file: &str) -> Tally {
    let initial = go(spec);
    let size = initial.size();
    let pass = initial.pass_action();
    let mut tally = Tally::default();
    for record in common::oracle_games(file) {
        let (seed, index) = (&record["seed"], &record["index"]);
        let played = common::actions(&record, "actions");
        let positions = record["positions"].as_array().expect("positions is a list");
        let mut game = initial.clone();
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut finished = true;
        for (ply, position) in positions.iter().enumerate() {
            let at = format!("{file} seed {seed} game {index} ply {ply}\n{game}");
            let state = position["state"].as_str().expect("state is a string");
            let board = oracle_board(state, size);
            for (point, &mark) in board.iter().enumerate() {
                let ours = game.point(point / size, point % size);
                let expected = [None, Some(Player::FIRST), Some(Player::SECOND)][mark as usize];
                assert_eq!(ours, expected, "point {point} at {at}");
            }
            seen.push(board.clone());

            let terminal = position["is_terminal"].as_bool().expect("a bool");
            assert_eq!(game.is_terminal(), terminal, "terminal flag at {at}");
            let returns: Vec<f32> = position["returns"]
                .as_array()
                .expect("returns is a list")
                .iter()
                .map(|r| r.as_f64().expect("a number") as f32)
                .collect();
            let ours: Vec<f32> = Player::ALL
                .iter()
                .map(|&p| game.outcome().map_or(0.0, |o| o.value_for(p)))
                .collect();
            assert_eq!(ours, returns, "returns at {at}");
            if !terminal {
                let mover = position["current_player"].as_u64().expect("a player");
                assert_eq!(
                    game.to_move().index() as u64,
                    mover,
                    "player to move at {at}"
                );
            }

            // Our legal set is theirs minus exactly the moves that repeat a board.
            let theirs = common::actions(position, "legal");
            let colour = game.to_move().index() as u8 + 1;
            let repeats = |action: Action| {
                action != pass
                    && board_after(&board, size, action, colour)
                        .is_some_and(|after| seen.contains(&after))
            };
            let expected: Vec<Action> = theirs.iter().copied().filter(|&a| !repeats(a)).collect();
            assert_eq!(game.legal_action_vec(), expected, "legal actions at {at}");
            let banned = theirs.len() - expected.len();
            tally.superko_moves += banned;
            tally.superko_positions += usize::from(banned > 0);

            // Notation: "B c3" / "W PASS" against ours ("C3", "pass").
            let letter = if game.to_move() == Player::FIRST {
                "B "
            } else {
                "W "
            };
            for (&action, text) in theirs
                .iter()
                .zip(common::strings(position, "legal_strings"))
            {
                let point = text
                    .strip_prefix(letter)
                    .unwrap_or_else(|| panic!("'{text}' is not the mover's at {at}"));
                let ours = if point == "PASS" {
                    "pass".to_string()
                } else {
                    point.to_uppercase()
                };
                assert_eq!(game.format_action(action), ours, "notation at {at}");
                assert_eq!(
                    game.parse_action(point),
                    Ok(action),
                    "parse {point} at {at}"
                );
            }
            tally.positions += 1;

            if let Some(&action) = played.get(ply) {
                if repeats(action) {
                    // OpenSpiel plays it and calls the game a draw; for us it is illegal.
                    assert!(!game.is_legal(action), "superko move allowed at {at}");
                    tally.stopped_at_repetition += 1;
                    finished = false;
                    break;
                }
                game.try_apply(action)
                    .unwrap_or_else(|e| panic!("{e} at {at}"));
            }
        }
        if finished {
            let returns = [0, 1].map(|p| record["returns"][p].as_f64().expect("a number") as f32);
            let ours = game.outcome().map(|o| Player::ALL.map(|p| o.value_for(p)));
            assert_eq!(
                ours,
                Some(returns),
                "final result of {file} seed {seed} game {index}"
            );
        }
        tally.games += 1;
    }
    assert!(tally.games > 0, "{file} holds no games");
    tally
}

#[test]
fn go5_oracle_games_replay() {
    let tally = replay("go:size=5,komi=0.5,max_moves=100", "go5.jsonl");
    println!("go5 oracle: {tally:?}");
    assert_eq!(tally.games, 200);
    assert!(
        tally.stopped_at_repetition >= 1,
        "the file has one repetition"
    );
}

#[test]
fn go7_oracle_games_replay() {
    let tally = replay("go:size=7,komi=9.5,max_moves=98", "go7.jsonl");
    println!("go7 oracle: {tally:?}");
    assert_eq!(tally.games, 50);
}
