use super::*;
use crate::testing::{check_game, perft};

/// A position from the first player's row, the second player's row and the scores.
fn board(first: [u8; 6], second: [u8; 6], scores: [u8; 2], to_move: Player) -> Oware {
    let mut seeds = [0; 12];
    seeds[..6].copy_from_slice(&first);
    seeds[6..].copy_from_slice(&second);
    Oware::from_board(seeds, scores, to_move, false, 0).unwrap()
}

fn rows(game: &Oware) -> ([u8; 6], [u8; 6]) {
    let row = |p| std::array::from_fn(|h| game.seeds(p, h));
    (row(0), row(1))
}

fn play(mut game: Oware, moves: &str) -> Oware {
    for mv in moves.split_whitespace() {
        game.play_notation(mv)
            .unwrap_or_else(|e| panic!("{mv}: {e}\n{game}"));
    }
    game
}

#[test]
fn sowing_skips_the_origin_house() {
    // 12 seeds: one in each other house, and the twelfth in B, past the emptied A.
    let game = board([12, 0, 0, 0, 0, 0], [6; 6], [0, 0], Player::FIRST);
    let game = play(game, "A");
    assert_eq!(rows(&game), ([0, 2, 1, 1, 1, 1], [7; 6]));
    // 23 seeds: two laps of the eleven other houses, then one more in B. The last seed
    // lands in the mover's own row, so the 2 in f is not captured.
    let game = board(
        [23, 0, 0, 0, 0, 0],
        [5, 5, 5, 5, 5, 0],
        [0, 0],
        Player::FIRST,
    );
    let game = play(game, "A");
    assert_eq!(rows(&game), ([0, 3, 2, 2, 2, 2], [7, 7, 7, 7, 7, 2]));
    assert_eq!((game.score(0), game.score(1)), (0, 0));
    // The second player sows from f round into the first player's row.
    let game = play(Oware::new(), "A f");
    assert_eq!(rows(&game), ([1, 6, 6, 6, 5, 4], [4, 4, 4, 4, 4, 0]));
}

#[test]
fn captures_of_two_and_three_chain_backwards() {
    // E sows F, a, b, c: c becomes 3, b 2, a 2, all captured; d (4) stays.
    let game = board(
        [0, 0, 0, 0, 4, 0],
        [1, 1, 2, 4, 0, 0],
        [12, 24],
        Player::FIRST,
    );
    let game = play(game, "E");
    assert_eq!(rows(&game), ([0, 0, 0, 0, 0, 1], [0, 0, 0, 4, 0, 0]));
    assert_eq!((game.score(0), game.score(1)), (19, 24));
    assert_eq!(game.outcome(), None);
    // The chain stops at a house that does not hold 2 or 3 (a becomes 4).
    let game = board(
        [0, 0, 0, 0, 4, 0],
        [3, 1, 2, 4, 0, 0],
        [10, 24],
        Player::FIRST,
    );
    let game = play(game, "E");
    assert_eq!(rows(&game), ([0, 0, 0, 0, 0, 1], [4, 0, 0, 4, 0, 0]));
    assert_eq!(game.score(0), 15);
    // The second player captures in the first player's row the same way.
    let game = board(
        [1, 2, 0, 0, 5, 0],
        [0, 0, 0, 0, 3, 0],
        [24, 13],
        Player::SECOND,
    );
    let game = play(game, "e");
    assert_eq!(rows(&game), ([0, 0, 0, 0, 5, 0], [0, 0, 0, 0, 0, 1]));
    assert_eq!(game.score(1), 18);
}

#[test]
fn a_grand_slam_is_legal_and_captures_nothing() {
    // F makes a 2 and b 3: that would take every seed of the second player.
    let game = board(
        [3, 0, 0, 0, 0, 2],
        [1, 2, 0, 0, 0, 0],
        [20, 20],
        Player::FIRST,
    );
    assert_eq!(game.legal_action_vec(), [0, 5]);
    let game = play(game, "F");
    assert_eq!(rows(&game), ([3, 0, 0, 0, 0, 0], [2, 3, 0, 0, 0, 0]));
    assert_eq!((game.score(0), game.score(1)), (20, 20));
    assert_eq!(game.outcome(), None);
    // With one more seed left in c the same move captures.
    let game = board(
        [3, 0, 0, 0, 0, 2],
        [1, 2, 1, 0, 0, 0],
        [20, 19],
        Player::FIRST,
    );
    let game = play(game, "F");
    // 20 + 5 captured reaches 25 and ends the game; each side then takes its own row.
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
    assert_eq!((game.score(0), game.score(1)), (25 + 3, 19 + 1));
}

#[test]
fn an_empty_opponent_must_be_fed() {
    // A (1 seed) cannot reach the second player's row; F can, and E (2 seeds) too.
    let game = board([1, 0, 0, 0, 2, 1], [0; 6], [22, 22], Player::FIRST);
    assert_eq!(game.legal_action_vec(), [4, 5]);
    let mut copy = game.clone();
    let err = copy.play_notation("A").unwrap_err();
    assert!(matches!(err, GameError::IllegalAction { ref action, .. } if action == "A"));
    assert_eq!(copy, game);
    assert_eq!(
        rows(&play(game, "E")),
        ([1, 0, 0, 0, 0, 2], [1, 0, 0, 0, 0, 0])
    );
}

#[test]
fn when_no_move_can_feed_the_mover_takes_the_rest() {
    // The second player's last seed goes to A; the first player cannot feed it back, so
    // the game ends and the first player takes the 2 seeds on its row.
    let game = board(
        [0, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1],
        [23, 23],
        Player::SECOND,
    );
    let game = play(game, "f");
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
    assert_eq!((game.score(0), game.score(1)), (25, 23));
    assert!(game.legal_action_vec().is_empty());
    // The same with 22-24 before: 24 each is a draw.
    let game = board(
        [0, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1],
        [22, 24],
        Player::SECOND,
    );
    let game = play(game, "f");
    assert_eq!(game.outcome(), Some(Outcome::Draw));
    assert_eq!((game.score(0), game.score(1)), (24, 24));
    // A position built with no legal move is over at once.
    let stuck = board([1, 1, 0, 0, 0, 0], [0; 6], [23, 23], Player::FIRST);
    assert_eq!(stuck.outcome(), Some(Outcome::Win(Player::FIRST)));
}

#[test]
fn twenty_five_seeds_end_the_game() {
    let game = board(
        [0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 1],
        [23, 22],
        Player::FIRST,
    );
    let mut game = play(game, "F");
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
    // The seed left on the second player's row goes to its owner.
    assert_eq!((game.score(0), game.score(1)), (25, 23));
    assert!(game.legal_action_vec().is_empty());
    assert_eq!(game.try_apply(0), Err(GameError::GameOver));
    // 25 for the second player, reached by capture.
    let game = board(
        [1, 0, 0, 0, 1, 0],
        [0, 0, 0, 0, 0, 1],
        [21, 24],
        Player::SECOND,
    );
    let game = play(game, "f");
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert_eq!((game.score(0), game.score(1)), (22, 26));
}

#[test]
fn the_turn_limit_ends_the_game_and_each_side_keeps_its_row() {
    let game = play(Oware::with_rules(false, 2), "F");
    assert_eq!(game.outcome(), None);
    let game = play(game, "a");
    // 20 seeds on the first player's row, 28 on the second's.
    assert_eq!(game.num_turns(), 2);
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert_eq!((game.score(0), game.score(1)), (20, 28));
    // CodinGame's limit is the default: no random game runs past move 200.
    let game = Oware::new();
    assert_eq!(game.max_turns(), 200);
    let report = check_game(&game, 5, 100).unwrap();
    assert!(report.max_game_length <= 200, "{report}");
}

#[test]
fn a_repeated_board_ends_the_game_with_the_repetition_rule() {
    // One seed each, walking round the board; none can capture (it would take every seed
    // of the opponent). After twelve forced moves the starting board is back.
    let start = |repetition| {
        let mut seeds = [0; 12];
        seeds[0] = 1;
        seeds[6] = 1;
        Oware::from_board(seeds, [23, 23], Player::FIRST, repetition, 0).unwrap()
    };
    let moves = "A a B b C c D d E e F f";
    let game = play(start(true), &moves[..moves.len() - 2]);
    assert_eq!(game.outcome(), None);
    let game = play(game, "f");
    assert_eq!(game.outcome(), Some(Outcome::Draw), "\n{game}");
    assert_eq!((game.score(0), game.score(1)), (24, 24));
    // Without the rule the game goes round again.
    let game = play(start(false), moves);
    assert_eq!(game.outcome(), None);
    assert_eq!(rows(&game), rows(&start(false)));
    assert_eq!(game.num_turns(), 12);
    // The history holds the boards since the last capture, the current one included.
    let game = play(Oware::with_rules(true, 0), "A");
    assert_eq!(game.seen.len(), 2);
    let mut seeds = [0; 12];
    seeds[..6].copy_from_slice(&[0, 0, 0, 0, 4, 0]);
    seeds[6..].copy_from_slice(&[1, 1, 2, 4, 0, 0]);
    let game = Oware::from_board(seeds, [12, 24], Player::FIRST, true, 0).unwrap();
    let game = play(game, "E");
    assert_eq!(game.score(0), 19);
    assert_eq!(game.seen.len(), 1, "a capture forgets the boards before it");
}

#[test]
fn notation_uses_the_movers_case() {
    let game = Oware::new();
    assert_eq!(game.parse_action("A"), Ok(0));
    assert_eq!(game.parse_action(" F "), Ok(5));
    assert_eq!(game.format_action(3), "D");
    let err = game.parse_action("a").unwrap_err();
    assert!(matches!(err, GameError::BadNotation { .. }));
    assert!(err.to_string().contains("second player's houses"), "{err}");
    for bad in ["", "G", "g", "AB", "1", "zz9"] {
        let err = game.parse_action(bad).unwrap_err();
        assert!(err.to_string().contains("A..F"), "{bad}: {err}");
    }
    let game = play(game, "C");
    assert_eq!(game.parse_action("c"), Ok(2));
    assert_eq!(game.format_action(2), "c");
    let err = game.parse_action("C").unwrap_err();
    assert!(err.to_string().contains("first player's houses"), "{err}");
}

#[test]
fn observation_is_from_the_movers_side() {
    let game = Oware::new();
    let mut obs = vec![f32::NAN; game.obs_len()];
    game.observe(&mut obs);
    assert_eq!(obs.len(), 30 * 12);
    assert!(obs[..12].iter().all(|&v| v == 4.0 / 12.0));
    assert!(
        obs[5 * 12..6 * 12].iter().all(|&v| v == 1.0),
        "every house holds 4"
    );
    assert_eq!(obs.iter().sum::<f32>(), 4.0 + 12.0);
    // After C the second player moves: its row a..f first, then the first player's row
    // facing it (F under a ... A under f).
    let game = play(game, "C");
    game.observe(&mut obs);
    let seeds: Vec<f32> = obs[..12].iter().map(|v| v * 12.0).collect();
    assert_eq!(seeds, [5., 4., 4., 4., 4., 4., 5., 5., 5., 0., 4., 4.]);
    assert_eq!(obs[12 + 6 + 3], 1.0, "C is empty");
    assert_eq!(obs[6 * 12], 1.0, "a holds 5");
    assert_eq!(obs[6 * 12 + 1], 0.0, "b holds 4, not 5");
    for cell in 0..12 {
        let planes: Vec<usize> = (1..27).filter(|p| obs[p * 12 + cell] == 1.0).collect();
        assert_eq!(
            planes,
            [1 + seeds[cell] as usize],
            "one count plane per cell"
        );
    }
    assert!(obs[29 * 12..].iter().all(|&v| v == 1.0 / 200.0));
    let game = board(
        [0, 0, 0, 0, 4, 0],
        [1, 1, 2, 4, 0, 0],
        [12, 24],
        Player::FIRST,
    );
    game.observe(&mut obs);
    assert_eq!(obs[2 * 12 + 6 + 5], 1.0, "a holds 1");
    assert_eq!(obs[3 * 12 + 6 + 3], 1.0, "c holds 2");
    assert_eq!(obs[27 * 12], 12.0 / 25.0);
    assert_eq!(obs[28 * 12], 24.0 / 25.0);
    assert!(obs[29 * 12..].iter().all(|&v| v == 0.0), "no move limit");
    let game = board(
        [30, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 1],
        [8, 8],
        Player::FIRST,
    );
    game.observe(&mut obs);
    assert_eq!(obs[26 * 12], 1.0, "A's 30 seeds share the 25-or-more plane");
    assert_eq!(obs[12 * 12..26 * 12].iter().sum::<f32>(), 0.0);
}

#[test]
fn display_and_names() {
    let game = play(Oware::new(), "C");
    assert_eq!(
        game.to_string(),
        "second 0 (to move)\n  f  e  d  c  b  a\n  4  4  4  4  4  5\n  4  4  0  5  5  5\n  \
         A  B  C  D  E  F\nfirst 0; move 2 of 200"
    );
    assert_eq!(game.name(), "oware:repetition=false,max_turns=200");
    assert_eq!(
        Oware::with_rules(true, 0).name(),
        "oware:repetition=true,max_turns=0"
    );
    let bad = Oware::from_board([4; 12], [1, 0], Player::FIRST, false, 0);
    assert!(matches!(bad, Err(GameError::BadPosition { .. })));
}

#[test]
fn random_games_keep_the_contract() {
    for (game, num_games) in [
        (Oware::new(), 300),
        (Oware::with_rules(true, 0), 300),
        (Oware::with_rules(true, 200), 100),
    ] {
        let report = check_game(&game, 17, num_games).unwrap_or_else(|e| panic!("{e}"));
        println!("{}: {report}", game.name());
    }
}

#[test]
fn perft_from_the_initial_position() {
    // Leaves by depth (games that ended sooner not extended). No published table exists;
    // these agree with a separate transcription of OpenSpiel's oware.cc (no repetition
    // can occur this early, and the move limit is far away).
    let counts: Vec<u64> = (0..=7).map(|d| perft(&Oware::new(), d)).collect();
    assert_eq!(counts, [1, 6, 36, 190, 1014, 5219, 27332, 139157]);
}
