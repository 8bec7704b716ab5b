//! Unit tests for the rules of Push Fight, one per rule of `shared/pushfight-rules.md`.

use std::collections::HashSet;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::geometry::{cell_name, parse_cell};
use super::*;
use crate::testing::check_game;

/// The placements that give the rules document's test-vector start.
const STANDARD_SETUP: &str = "d4 c2 d1 d3 d2 e4 f3 e1 e3 e2";
/// The rules document's test vector: that start as a permutation string.
const STANDARD_BOARD: &str = ".OX.....oxX....Oox.....OX.";

fn play(game: PushFight, moves: &str) -> PushFight {
    let mut game = game;
    for mv in moves.split_whitespace() {
        game.play_notation(mv)
            .unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    game
}

/// A board string from pieces written as a letter and a square: `Od4 xe3 ...`.
fn board(pieces: &str) -> String {
    let mut letters = ['.'; NUM_SQUARES];
    for token in pieces.split_whitespace() {
        let (letter, name) = token.split_at(1);
        let c = parse_cell(name).unwrap_or_else(|| panic!("no square {name}"));
        letters[square(c)] = letter.chars().next().expect("a letter");
    }
    letters.iter().collect()
}

/// The first player to act with `moves_left` moves on the board `pieces`.
fn position(pieces: &str, moves_left: usize, anchor: Option<&str>) -> PushFight {
    PushFight::try_from_board(&board(pieces), Player::FIRST, moves_left, anchor)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn legal(game: &PushFight) -> Vec<String> {
    game.legal_action_vec()
        .into_iter()
        .map(|a| game.format_action(a))
        .collect()
}

fn pushes(game: &PushFight) -> Vec<String> {
    legal(game)
        .into_iter()
        .filter(|s| s.contains('>'))
        .collect()
}

/// The distinct boards (with the anchor) after every way of playing out the current turn,
/// and the outcomes some of them reach.
fn turn_results(game: &PushFight) -> (HashSet<(String, Option<usize>)>, HashSet<Outcome>) {
    fn go(
        game: &PushFight,
        out: &mut HashSet<(String, Option<usize>)>,
        ends: &mut HashSet<Outcome>,
    ) {
        for action in game.legal_action_vec() {
            let mut child = *game;
            child.apply(action);
            if child.to_move() != game.to_move() || child.is_terminal() {
                ends.extend(child.outcome());
                out.insert((child.board_string(), child.anchor()));
            } else {
                go(&child, out, ends);
            }
        }
    }
    let (mut out, mut ends) = (HashSet::new(), HashSet::new());
    go(game, &mut out, &mut ends);
    (out, ends)
}

#[test]
fn setup_places_three_squares_then_two_rounds_on_each_half() {
    let mut game = PushFight::new();
    assert_eq!(
        game.legal_action_vec(),
        [0, 1, 5, 6, 7, 8, 13, 14, 15, 16, 21, 22, 23],
        "files a-d"
    );
    for (i, mv) in STANDARD_SETUP.split_whitespace().enumerate() {
        let mover = if i < 5 { Player::FIRST } else { Player::SECOND };
        assert_eq!(game.to_move(), mover, "placement {i}");
        assert!(game.in_setup());
        let half = if i < 5 { LEFT_HALF } else { RIGHT_HALF };
        let empty = half & !(game.occupied[0] | game.occupied[1]);
        assert_eq!(game.legal_action_vec().len(), empty.count_ones() as usize);
        assert_eq!(game.legal_action_vec().len(), 13 - i % 5);
        game.play_notation(mv).unwrap();
        let at = parse_cell(mv).unwrap();
        let piece = game.piece(at).unwrap();
        assert_eq!((piece.owner, piece.pusher), (mover, i % 5 < 3), "{mv}");
        // An occupied square, or one of the other half, cannot be placed on.
        assert!(game.clone().play_notation(mv).is_err());
    }
    assert!(!game.in_setup());
    assert_eq!(game.to_move(), Player::FIRST);
    assert_eq!((game.moves_left(), game.anchor()), (2, None));
    assert_eq!(game.board_string(), STANDARD_BOARD);
    let vector = PushFight::try_from_board(STANDARD_BOARD, Player::FIRST, 2, None).unwrap();
    assert_eq!(game, vector);
    // The second player cannot place on the first player's half.
    let game = play(PushFight::new(), "a2 a3 b1 b2 b3");
    assert!(game.clone().play_notation("c3").is_err());
    assert!(game
        .legal_action_vec()
        .iter()
        .all(|&a| RIGHT_HALF >> cell(a) & 1 == 1));
}

#[test]
fn the_standard_start_has_35_actions_and_1633_turns_none_winning() {
    let game = PushFight::try_from_board(STANDARD_BOARD, Player::FIRST, 2, None).unwrap();
    assert_eq!(game.legal_action_vec().len(), 35);
    let (results, ends) = turn_results(&game);
    assert_eq!(results.len(), 1633);
    // Some turns push one's own piece off; none wins.
    assert!(!ends.contains(&Outcome::Win(Player::FIRST)), "{ends:?}");
}

#[test]
fn a_turn_is_up_to_two_moves_then_a_push_by_the_same_player() {
    let game = play(PushFight::new(), STANDARD_SETUP);
    let after_one = play(game, "d3-c3");
    assert_eq!(
        (after_one.to_move(), after_one.moves_left()),
        (Player::FIRST, 1)
    );
    let after_two = play(after_one, "c3-b3");
    assert_eq!(
        (after_two.to_move(), after_two.moves_left()),
        (Player::FIRST, 0)
    );
    assert!(
        legal(&after_two).iter().all(|s| s.contains('>')),
        "only pushes"
    );
    let pushed = play(after_two, "c2>d2");
    assert_eq!((pushed.to_move(), pushed.moves_left()), (Player::SECOND, 2));
    assert_eq!(pushed.anchor(), parse_cell("d2"));
    assert_eq!(
        pushed.board_string(),
        board("Od4 Od2 Od1 ob3 oe2 Xe4 Xf3 Xe1 xe3 xf2")
    );
    // A push may also come first; the turn then ends at once.
    let early = play(game, "c2>d2");
    assert_eq!((early.to_move(), early.moves_left()), (Player::SECOND, 2));
}

#[test]
fn moves_go_through_connected_empty_squares_only() {
    let game = position("Oa2 Oc4 Oh3 oa3 of1 Xb2 Xc3 Xe4 xd3 xg3", 2, None);
    let moves_from = |game: &PushFight, from: &str| -> Vec<String> {
        legal(game)
            .into_iter()
            .filter_map(|s| s.strip_prefix(&format!("{from}-")).map(str::to_string))
            .collect()
    };
    assert!(moves_from(&game, "a2").is_empty(), "boxed in by a3 and b2");
    assert_eq!(moves_from(&game, "a3"), ["b3"]);
    assert_eq!(moves_from(&game, "c4"), ["d4"]);
    let from_h3 = moves_from(&game, "h3");
    assert!(
        from_h3.contains(&"e3".to_string()),
        "round corners: h3 h2 g2 f2 e2 e3"
    );
    assert!(!from_h3.contains(&"g3".to_string()) && !from_h3.contains(&"b3".to_string()));
    assert!(
        !from_h3.contains(&"h3".to_string()),
        "a move ends elsewhere"
    );
    // Only the mover's pieces move.
    assert!(moves_from(&game, "b2").is_empty() && moves_from(&game, "d3").is_empty());
    // The square left behind is free for the second move, and the same piece may move twice.
    let game = play(game, "a3-b3");
    assert_eq!(moves_from(&game, "b3"), ["a3"]);
    let game = play(game, "b3-a3");
    assert_eq!(game.moves_left(), 0);
}

#[test]
fn a_push_into_a_rail_is_blocked() {
    let game = position("Od2 Of1 Oc2 od3 oa3 Xd4 Xe1 Xg3 xc1 xh2", 0, None);
    // d2 up: d3, d4 and the rail; c2 down: c1 and the rail.
    assert_eq!(pushes(&game), ["c2>d2", "d2>c2", "f1>e1"]);
    assert!(play(game, "f1>e1")
        .piece(parse_cell("d1").unwrap())
        .is_some());
    let mut blocked = game;
    assert!(blocked.play_notation("d2>d3").is_err());
    assert!(blocked.play_notation("c2>c1").is_err());
    assert_eq!(blocked, game);
}

#[test]
fn the_anchor_blocks_every_line_through_it() {
    let pieces = "Oc3 Oe2 Ob1 oa2 oa3 Xe3 Xg4 Xf1 xd3 xh2";
    let free = position(pieces, 2, None);
    assert!(pushes(&free).contains(&"c3>d3".to_string()));
    assert!(pushes(&free).contains(&"e2>e3".to_string()));
    // Anchored e3: next to e2, and the second piece of the line c3 d3 e3.
    let anchored = position(pieces, 2, Some("e3"));
    assert!(pushes(&anchored).is_empty(), "{:?}", pushes(&anchored));
    // After the next push the anchor moves on to the new pusher.
    let game = play(free, "c3>d3");
    assert_eq!(game.anchor(), parse_cell("d3"));
    let f3_left = "f3>e3".to_string();
    assert!(
        !pushes(&game).contains(&f3_left),
        "anchored d3 is second in the line"
    );
    let game = play(game, "g4-e4 e4>e3");
    assert_eq!(game.anchor(), parse_cell("e3"));
    let anchored = game.piece(parse_cell("e3").unwrap()).unwrap();
    assert_eq!((anchored.owner, anchored.pusher), (Player::SECOND, true));
}

#[test]
fn no_legal_push_loses() {
    let pieces = "Oc3 Oe2 Ob1 oa2 oa3 Xe3 Xg4 Xf1 xd3 xh2";
    // With no move left and every push blocked the first player has lost already.
    let stuck = position(pieces, 0, Some("e3"));
    assert_eq!(stuck.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert!(stuck.legal_action_vec().is_empty());
    // With a move left the game goes on, until the last move leaves no push.
    let game = position(pieces, 1, Some("e3"));
    assert_eq!(game.outcome(), None);
    let lost = play(game, "b1-c1");
    assert_eq!(lost.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert!(lost.legal_action_vec().is_empty());
    // A move that opens a push keeps the game going.
    let saved = play(game, "b1-e1");
    assert_eq!(saved.outcome(), None);
    assert_eq!(pushes(&saved), ["e1>f1"]);
}

#[test]
fn pushing_an_opponent_piece_off_wins() {
    let game = position("Of2 Od3 Od2 oa2 oc3 Xg2 Xe3 Xe1 xh2 xf3", 2, None);
    let won = play(game, "f2>g2");
    assert_eq!(won.outcome(), Some(Outcome::Win(Player::FIRST)));
    assert!(won.legal_action_vec().is_empty());
    // The whole line moved one step and the last piece is gone.
    assert_eq!(
        won.board_string(),
        board("Og2 Od3 Od2 oa2 oc3 Xh2 Xe3 Xe1 xf3")
    );
    assert_eq!(won.anchor(), parse_cell("g2"));
}

#[test]
fn pushing_ones_own_piece_off_loses() {
    // c3 pushes b3 (an opponent square) into a3, whose own round falls off the left edge.
    let game = position("Oc3 Od2 Od1 oa3 oc2 Xb3 Xe3 Xe1 xf3 xf2", 2, None);
    assert!(
        pushes(&game).contains(&"c3>b3".to_string()),
        "suicide is legal"
    );
    let lost = play(game, "c3>b3");
    assert_eq!(lost.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert_eq!(
        lost.board_string(),
        board("Ob3 Od2 Od1 oc2 Xa3 Xe3 Xe1 xf3 xf2")
    );
    // Pushing one's own round straight off is no better.
    let game = position("Ob2 Od3 Od2 oa2 oc3 Xe3 Xe2 Xf1 xf3 xg3", 0, None);
    let lost = play(game, "b2>a2");
    assert_eq!(lost.outcome(), Some(Outcome::Win(Player::SECOND)));
}

#[test]
fn a_game_that_reaches_the_ply_cap_is_drawn() {
    let setup = "d2 c2 b2 a2 a3 e2 f2 g2 h2 h3";
    let capped = PushFight::try_new(12).unwrap();
    let game = play(capped, setup);
    assert_eq!(game.plies(), 10);
    let one = play(game, "a3-b3");
    assert_eq!(one.outcome(), None);
    let drawn = play(one, "b3-a3");
    assert_eq!(drawn.outcome(), Some(Outcome::Draw));
    assert!(drawn.legal_action_vec().is_empty());
    assert!(drawn.to_string().contains("draw"));
    // A push-off on the last ply still wins.
    let won = play(PushFight::try_new(11).unwrap(), &format!("{setup} d2>e2"));
    assert_eq!(won.outcome(), Some(Outcome::Win(Player::FIRST)));
    // And the cap counts setup placements too.
    assert_eq!(
        play(PushFight::try_new(3).unwrap(), "d2 c2 b2").outcome(),
        Some(Outcome::Draw)
    );
}

#[test]
fn parameters_and_names() {
    assert_eq!(PushFight::new().name(), "pushfight:max_plies=300");
    assert_eq!(
        PushFight::try_new(40).unwrap().name(),
        "pushfight:max_plies=40"
    );
    assert_eq!(
        PushFight::try_new(0).unwrap().name(),
        "pushfight:max_plies=0"
    );
    assert!(PushFight::try_new(1 << 40)
        .unwrap_err()
        .contains("max_plies"));
    let game = PushFight::new();
    assert_eq!(game.num_actions(), 806);
    assert_eq!(game.obs_shape(), [12, 4, 8]);
}

#[test]
fn actions_use_the_oracle_ids() {
    let game = PushFight::new();
    assert_eq!(game.parse_action("place d3"), Ok(8));
    assert_eq!(game.parse_action("b3-b2"), Ok(196));
    assert_eq!(game.parse_action("d2>e2"), Ok(768));
    assert_eq!(game.parse_action("f2>f3"), Ok(774));
    assert_eq!(game.parse_action("c2>b2"), Ok(763));
    assert_eq!(game.parse_action("f1>f2"), Ok(805 - 3));
    for action in 0..NUM_ACTIONS {
        assert_eq!(Act::of_action(action).action(), action);
    }
}

#[test]
fn observation_planes_from_the_movers_side() {
    let game = play(PushFight::new(), STANDARD_SETUP);
    let obs = |game: &PushFight| {
        let mut obs = vec![f32::NAN; game.obs_len()];
        game.observe(&mut obs);
        obs
    };
    let plane = |obs: &[f32], p: usize| -> Vec<String> {
        (0..NUM_CELLS)
            .filter(|&c| obs[p * NUM_CELLS + c] == 1.0)
            .map(cell_name)
            .collect()
    };
    let sums =
        |obs: &[f32]| -> Vec<f32> { obs.chunks(NUM_CELLS).map(|p| p.iter().sum()).collect() };
    let first = obs(&game);
    assert_eq!(plane(&first, 0), ["d4", "c2", "d1"]);
    assert_eq!(plane(&first, 1), ["d3", "d2"]);
    assert_eq!(plane(&first, 2), ["e4", "f3", "e1"]);
    assert_eq!(plane(&first, 3), ["e3", "e2"]);
    assert_eq!(
        sums(&first),
        [3., 2., 3., 2., 0., 26., 10., 0., 0., 0., 32., 0.]
    );
    // After the push the second player sees its own pieces first, and the anchor.
    let second = obs(&play(game, "c2>d2"));
    assert_eq!(plane(&second, 0), ["e4", "f3", "e1"]);
    assert_eq!(plane(&second, 1), ["e3", "f2"]);
    assert_eq!(plane(&second, 2), ["d4", "d2", "d1"]);
    assert_eq!(plane(&second, 3), ["d3", "e2"]);
    assert_eq!(plane(&second, 4), ["d2"]);
    // During setup: the mover's half and the kind of piece it places.
    let setup = obs(&play(PushFight::new(), "d4 c2 d1 d3"));
    assert_eq!(plane(&setup, 7).len(), 13);
    assert_eq!(sums(&setup)[8..10], [0., 32.]);
}

#[test]
fn the_rotation_maps_positions_and_swaps_the_setup_halves() {
    let game = play(PushFight::new(), STANDARD_SETUP);
    let image = game.transformed(1).unwrap();
    let reversed: String = STANDARD_BOARD.chars().rev().collect();
    assert_eq!(image.board_string(), reversed);
    assert_eq!(image.transformed(1).unwrap(), game);
    let pushed = play(game, "c2>d2").transformed(1).unwrap();
    assert_eq!(pushed.anchor(), parse_cell("e3"), "d2 rotates onto e3");
    // A rotated setup position sets the first player up on the right half.
    let setup = PushFight::new().transformed(1).unwrap();
    assert!(setup
        .legal_action_vec()
        .iter()
        .all(|&a| RIGHT_HALF >> cell(a) & 1 == 1));
    assert_ne!(Game::hash(&setup), Game::hash(&PushFight::new()));
    let symmetries = game.symmetries();
    assert_eq!(symmetries.len(), 2);
    let push = game.parse_action("c2>d2").unwrap();
    assert_eq!(game.format_action(symmetries[1].map_action(push)), "f3>e3");
}

/// Random games that, like the oracle's, mostly avoid actions that end the game, so that
/// they run long (up to the cap): every position reached, in order.
fn cautious_games(seed: u64, num_games: usize, max_plies: usize) -> Vec<Vec<PushFight>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..num_games)
        .map(|_| {
            let mut game = PushFight::try_new(max_plies).unwrap();
            let mut line = vec![game];
            while !game.is_terminal() {
                let legal = game.legal_action_vec();
                let child = |a: Action| {
                    let mut child = game;
                    child.apply(a);
                    child
                };
                let quiet: Vec<Action> = legal
                    .iter()
                    .copied()
                    .filter(|&a| !child(a).is_terminal())
                    .collect();
                let pool = if quiet.is_empty() || rng.random_bool(0.01) {
                    &legal
                } else {
                    &quiet
                };
                game = child(pool[rng.random_range(0..pool.len())]);
                line.push(game);
            }
            line
        })
        .collect()
}

#[test]
fn long_games_keep_the_hash_and_the_rotation_right() {
    let rotation = &PushFight::new().symmetries()[1];
    let (mut positions, mut draws, mut longest) = (0, 0, 0);
    for line in cautious_games(5, 300, 120) {
        longest = longest.max(line.len() - 1);
        draws += usize::from(line.last().unwrap().outcome() == Some(Outcome::Draw));
        for game in &line {
            positions += 1;
            assert_eq!(game.hash, game.full_hash(), "\n{game}");
            assert_eq!(game.legal_action_vec().is_empty(), game.is_terminal());
            let image = game.transformed(1).unwrap();
            assert_eq!(image.transformed(1).as_ref(), Some(game));
            let mut mask = vec![false; NUM_ACTIONS];
            rotation.map_policy(&game.legal_mask(), &mut mask);
            assert_eq!(image.legal_mask(), mask, "\n{game}");
            let (mut obs, mut mapped) = (vec![0.0; game.obs_len()], vec![0.0; game.obs_len()]);
            game.observe(&mut obs);
            rotation.map_obs(&obs, &mut mapped);
            image.observe(&mut obs);
            assert_eq!(obs, mapped);
        }
    }
    println!("{positions} positions, longest game {longest} plies, {draws} drawn at the cap");
    assert!(draws > 0 && longest == 120);
}

#[test]
fn random_games_keep_the_contract() {
    for (game, num_games) in [
        (PushFight::new(), 1000),
        (PushFight::try_new(30).unwrap(), 100),
        (PushFight::try_new(0).unwrap(), 50),
    ] {
        let report = check_game(&game, 17, num_games).unwrap_or_else(|e| panic!("{e}"));
        println!("{}: {report}", game.name());
        assert_eq!(report.games, num_games);
    }
}
