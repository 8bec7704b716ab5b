//! Unit tests of the chess rules, the action encoding and the notation.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::testing::{check_game, perft};

/// The standard "kiwipete" (the oracle README drops its h3 pawn: `2N2Q2` for `2N2Q1p`).
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn fen(text: &str) -> Chess {
    Chess::from_fen(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Plays UCI moves (each must be legal) and returns the position.
fn play(game: &Chess, moves: &str) -> Chess {
    let mut game = game.clone();
    for mv in moves.split_whitespace() {
        game.play_notation(mv)
            .unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    game
}

fn legal_uci(game: &Chess) -> HashSet<String> {
    game.legal_action_vec()
        .into_iter()
        .map(|a| game.format_action(a))
        .collect()
}

#[test]
fn perft_start_position() {
    let game = Chess::new();
    let counts: Vec<u64> = (1..=4).map(|d| perft(&game, d)).collect();
    assert_eq!(counts, [20, 400, 8902, 197_281]);
    // Depth 5 takes about a second in release builds; skip it in debug ones.
    if !cfg!(debug_assertions) {
        assert_eq!(perft(&game, 5), 4_865_609);
    }
}

#[test]
fn perft_kiwipete_and_friends() {
    let kiwipete = fen(KIWIPETE);
    let counts: Vec<u64> = (1..=3).map(|d| perft(&kiwipete, d)).collect();
    assert_eq!(counts, [48, 2039, 97_862]);
    // Chess Programming Wiki positions 3, 4 and 5: en passant with pins, promotions and
    // castling rights lost to captures.
    assert_eq!(
        perft(&fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"), 4),
        43_238
    );
    let position4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
    assert_eq!(perft(&fen(position4), 3), 9_467);
    let position5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
    assert_eq!(perft(&fen(position5), 3), 62_379);
}

#[test]
fn every_legal_move_has_one_action_that_decodes_back() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut positions = 0;
    for start in [START_FEN, KIWIPETE] {
        for _ in 0..20 {
            let mut game = fen(start);
            while !game.is_terminal() {
                let mut seen = HashSet::new();
                let board = &game.board;
                board.generate_moves(|moves| {
                    for mv in moves {
                        let action = actions::move_to_action(board, mv);
                        assert!(seen.insert(action), "two moves share action {action}");
                        assert_eq!(actions::action_to_move(board, action), Some(mv));
                    }
                    false
                });
                assert_eq!(seen.len(), game.legal_action_vec().len());
                positions += 1;
                let legal = game.legal_action_vec();
                game.apply(legal[rng.random_range(0..legal.len())]);
            }
        }
    }
    assert!(positions > 1000);
}

#[test]
fn the_same_action_is_the_same_relative_move_for_both_colours() {
    let white = Chess::new();
    let black = play(&white, "g1f3");
    let e2e4 = white.parse_action("e2e4").unwrap();
    assert_eq!(black.parse_action("e7e5"), Ok(e2e4));
    assert_eq!(black.format_action(e2e4), "e7e5");
    let castle = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let short = castle.parse_action("e1g1").unwrap();
    let long = castle.parse_action("e1c1").unwrap();
    let black = play(&castle, "a1b1");
    assert_eq!(black.parse_action("e8g8"), Ok(short));
    assert_eq!(black.parse_action("e8c8"), Ok(long));
    // King-takes-rook castling reads as the same action.
    assert_eq!(castle.parse_action("e1h1"), Ok(short));
    assert_eq!(black.parse_action("e8a8"), Ok(long));
}

#[test]
fn castling_rules() {
    let both = legal_uci(&fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"));
    assert!(both.contains("e1g1") && both.contains("e1c1"));
    // Through an attacked square (f1, d1), out of check, or into check: illegal.
    let through = legal_uci(&fen("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1"));
    assert!(!through.contains("e1g1"));
    let through = legal_uci(&fen("4k3/8/8/8/8/8/3r4/R3K2R w KQ - 0 1"));
    assert!(!through.contains("e1c1") && through.contains("e1g1"));
    let in_check = legal_uci(&fen("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1"));
    assert!(!in_check.contains("e1g1") && !in_check.contains("e1c1"));
    let into_check = legal_uci(&fen("4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1"));
    assert!(!into_check.contains("e1g1") && into_check.contains("e1c1"));
    // b1 attacked does not stop O-O-O: only the king's path counts.
    let b_file = legal_uci(&fen("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"));
    assert!(b_file.contains("e1c1"));
    // A blocked path, then rights lost by moving the rook or losing it.
    let blocked = legal_uci(&fen("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1"));
    assert!(!blocked.contains("e1g1") && !blocked.contains("e1c1"));
    let game = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let moved = play(&game, "h1h2 a8a7 h2h1 a7a8");
    assert_eq!(moved.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 4 3");
    let captured = play(&game, "a1a8");
    assert_eq!(captured.to_fen(), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    // Castling moves the rook too.
    let castled = play(&game, "e1g1 e8c8");
    assert_eq!(castled.to_fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
}

#[test]
fn en_passant() {
    let game = fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1");
    let after = play(&game, "d7d5");
    assert_eq!(after.to_fen(), "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    assert!(legal_uci(&after).contains("e5d6"));
    let taken = play(&after, "e5d6");
    assert_eq!(taken.to_fen(), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
    assert_eq!(taken.san(0).ok(), None);
    // Only right away.
    let later = play(&after, "e1e2 e8e7");
    assert!(!legal_uci(&later).contains("e5d6"));
    // Not when it would expose the king along the rank; then the FEN shows no ep square.
    let pinned = play(&fen("8/3p4/8/K3P2r/8/8/8/7k b - - 0 1"), "d7d5");
    assert!(!legal_uci(&pinned).contains("e5d6"));
    assert_eq!(pinned.to_fen(), "8/8/8/K2pP2r/8/8/8/7k w - - 0 2");
}

#[test]
fn promotion_and_underpromotion() {
    let game = fen("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let legal = legal_uci(&game);
    for mv in [
        "a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8r", "a7b8b", "a7b8n",
    ] {
        assert!(legal.contains(mv), "{mv}");
    }
    assert_eq!(game.parse_action("a7a8"), game.parse_action("a7a8q"));
    assert_eq!(
        play(&game, "a7b8n").to_fen(),
        "1N2k3/8/8/8/8/8/8/4K3 b - - 0 1"
    );
    assert_eq!(
        play(&game, "a7a8r").to_fen(),
        "Rn2k3/8/8/8/8/8/8/4K3 b - - 0 1"
    );
    let queen = play(&game, "a7a8q");
    assert_eq!(queen.to_fen(), "Qn2k3/8/8/8/8/8/8/4K3 b - - 0 1");
    // Black promotes towards rank 1, with the same actions as white's.
    let black = fen("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
    assert_eq!(
        black.parse_action("a2a1n"),
        fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1").parse_action("a7a8n")
    );
    assert_eq!(
        play(&black, "a2a1b").to_fen(),
        "4k3/8/8/8/8/8/8/b3K3 w - - 0 2"
    );
    assert!(game.parse_action("e1e2q").is_err());
}

#[test]
fn checkmate_and_stalemate() {
    let mated = play(&Chess::new(), "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(mated.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert!(mated.in_check() && mated.legal_action_vec().is_empty());
    let back_rank = play(&fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), "a1a8");
    assert_eq!(back_rank.outcome(), Some(Outcome::Win(Player::FIRST)));
    let stalemate = play(&fen("7k/5K2/8/6Q1/8/8/8/8 w - - 0 1"), "g5g6");
    assert_eq!(stalemate.outcome(), Some(Outcome::Draw));
    assert!(!stalemate.in_check());
    assert_eq!(
        fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").outcome(),
        Some(Outcome::Draw)
    );
}

#[test]
fn fifty_move_rule() {
    let game = fen("4k3/8/8/8/8/8/4P3/R3K3 w - - 98 80");
    let one_short = play(&game, "a1a2");
    assert_eq!(one_short.outcome(), None);
    assert_eq!(play(&one_short, "e8d8").outcome(), Some(Outcome::Draw));
    // A pawn move or capture resets the count.
    let pawn = play(&one_short, "e8d8");
    assert_eq!(pawn.halfmove_clock(), 100);
    assert_eq!(play(&game, "e2e3 e8d8").outcome(), None);
    // Checkmate on the hundredth ply still wins.
    let mate = play(&fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"), "a1a8");
    assert_eq!(mate.outcome(), Some(Outcome::Win(Player::FIRST)));
}

#[test]
fn threefold_repetition() {
    let shuffle = "g1f3 g8f6 f3g1 f6g8";
    assert!(!play(&Chess::new(), "g1f3 g8f6 f3g1").is_repetition());
    let twice = play(&Chess::new(), shuffle);
    assert_eq!((twice.repetitions(), twice.outcome()), (1, None));
    assert!(twice.is_repetition());
    let thrice = play(&twice, shuffle);
    assert_eq!(
        (thrice.repetitions(), thrice.outcome()),
        (2, Some(Outcome::Draw))
    );
    // The position after 1. e4 has no legal en-passant capture, so it repeats later.
    let after_e4 = play(&Chess::new(), "e2e4 g8f6 g1f3 f6g8 f3g1");
    assert_eq!(after_e4.repetitions(), 1);
    // Lost castling rights make a different position.
    let rights = play(&Chess::new(), "e2e4 e7e5 e1e2 e8e7 e2e1 e7e8");
    assert_eq!(rights.repetitions(), 0);
    // Kings on e2 and e7 (plies 4, 8 and 12) make the third occurrence.
    let rights = play(&rights, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7");
    assert_eq!(rights.outcome(), Some(Outcome::Draw));
}

#[test]
fn insufficient_material() {
    let draw = Some(Outcome::Draw);
    for dead in [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/1N2K3 b - - 0 1",
        "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/B1B1K3 w - - 0 1",
    ] {
        assert_eq!(fen(dead).outcome(), draw, "{dead}");
    }
    for alive in [
        "1n2k3/8/8/8/8/8/8/1N2K3 w - - 0 1",
        "2b1k3/8/8/8/8/8/8/1N2K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/NN2K3 w - - 0 1",
        "2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/7p/4K3 w - - 0 1",
    ] {
        assert_eq!(fen(alive).outcome(), None, "{alive}");
    }
    // Taking the last pawn ends the game.
    let game = play(&fen("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"), "e1d2");
    assert_eq!(game.outcome(), draw);
}

#[test]
fn ply_cap() {
    let game = Chess::new().with_max_plies(4);
    assert_eq!(game.name(), "chess:max_plies=4");
    let three = play(&game, "e2e4 e7e5 g1f3");
    assert_eq!(three.outcome(), None);
    assert_eq!(play(&three, "b8c6").outcome(), Some(Outcome::Draw));
    assert_eq!(Chess::new().with_max_plies(0).max_plies(), 0);
}

#[test]
fn fen_round_trips_and_errors() {
    for text in [
        START_FEN,
        KIWIPETE,
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "8/8/8/8/8/8/8/K1k5 b - - 37 120",
    ] {
        assert_eq!(fen(text).to_fen(), text);
    }
    assert_eq!(
        fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").to_fen(),
        START_FEN
    );
    assert_eq!(Chess::new().to_fen(), START_FEN);
    for bad in [
        "",
        "rnbqkbnr",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 300 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
        "4k3/8/8/8/8/8/8/R2K3R w KQ - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
        "ééé/8/8/8/8/8/8/8 w - - 0 1",
    ] {
        let err = Chess::from_fen(bad).unwrap_err();
        assert!(matches!(err, GameError::BadPosition { .. }), "{bad}: {err}");
        assert!(!err.to_string().contains('\n'));
    }
}

#[test]
fn notation() {
    let game = Chess::new();
    let e4 = game.parse_action("e2e4").unwrap();
    assert_eq!(game.format_action(e4), "e2e4");
    assert_eq!(game.parse_action(" E2E4 "), Ok(e4));
    for bad in [
        "", "zz9", "e2", "e2e9", "e2e4k", "a1b4", "e2e2", "e2e4qq", "ж2e4",
    ] {
        let err = game.parse_action(bad).unwrap_err();
        assert!(matches!(err, GameError::BadNotation { .. }), "{bad}: {err}");
    }
    assert_eq!(game.san(e4).unwrap(), "e4");
    assert_eq!(game.parse_san("Nf3"), game.parse_action("g1f3"));
    assert!(game.san(game.parse_action("e2e5").unwrap()).is_err());
    // Disambiguation by file, by rank, and by both; captures, checks and mates.
    let knights = fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    let san = |g: &Chess, uci: &str| g.san(g.parse_action(uci).unwrap()).unwrap();
    assert_eq!(san(&knights, "b1d2"), "Nbd2");
    let rooks = fen("7k/8/8/R7/8/8/8/R3K3 w - - 0 1");
    assert_eq!(san(&rooks, "a1a3"), "R1a3");
    assert_eq!(
        san(&fen("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "a1a8"),
        "Rxa8+"
    );
    let queens = fen("6k1/8/8/8/Q2Q4/8/8/Q6K w - - 0 1");
    assert_eq!(san(&queens, "a4d1"), "Qa4d1");
    assert_eq!(
        san(&fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), "a1a8"),
        "Ra8#"
    );
    let castle = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(san(&castle, "e1g1"), "O-O");
    assert_eq!(san(&castle, "e1c1"), "O-O-O");
    assert_eq!(castle.parse_san("0-0-0"), castle.parse_action("e1c1"));
    let promote = fen("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(san(&promote, "a7b8n"), "axb8=N");
    assert_eq!(san(&promote, "a7a8q"), "a8=Q");
    let ep = play(&fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1"), "d7d5");
    assert_eq!(san(&ep, "e5d6"), "exd6");
    // Every action of the space formats without panicking, even off the board.
    for action in 0..NUM_ACTIONS {
        assert!(!game.format_action(action).is_empty());
    }
}

#[test]
fn display_and_observation() {
    let game = play(&Chess::new(), "e2e4");
    let text = game.to_string();
    assert!(text.starts_with("8 r n b q k b n r\n"), "{text}");
    assert!(text.contains("4 . . . . P . . .\n"), "{text}");
    assert!(text.ends_with(&game.to_fen()));
    let mut obs = vec![f32::NAN; game.obs_len()];
    game.observe(&mut obs);
    let plane = |p: usize, square: usize| obs[p * 64 + square];
    // Black to move: its pawns (plane 0) on its second rank, mirrored to index 8..16.
    assert!((8..16).all(|s| plane(0, s) == 1.0));
    // White's e-pawn on e4 is on black's fifth rank: index 4 * 8 + 4.
    assert_eq!(plane(6, 4 * 8 + 4), 1.0);
    // One ply earlier it stood on e2, which black sees on rank 7.
    assert_eq!(plane(13 + 6, 6 * 8 + 4), 1.0);
    assert_eq!(plane(26, 0), 1.0, "black to move");
    assert_eq!(plane(27, 0), 1.0, "castling right");
    assert_eq!(plane(31, 0), 0.0, "no-progress count");
    assert_eq!(plane(32, 0), 1.0 / 512.0, "ply count");
}

#[test]
fn random_games_keep_the_contract() {
    let report = check_game(&Chess::new(), 11, 200).unwrap();
    assert_eq!(report.games, 200);
    println!("chess check_game: {report}");
    let capped = check_game(&Chess::new().with_max_plies(60), 12, 100).unwrap();
    assert_eq!(capped.games, 100);
    let kiwipete = check_game(&fen(KIWIPETE).with_max_plies(120), 13, 40).unwrap();
    assert_eq!(kiwipete.games, 40);
}

/// Found by `zerosum-fuzz fen`: cozy-chess reads a board with missing ranks, and its move
/// generation then panics for want of a king.
#[test]
fn fens_with_missing_ranks_or_kings_are_refused() {
    for (fen, why) in [
        ("4k3/4K2R w K - 0 1", "8 ranks"),
        ("4k3/8/8/8/8/8/8/4K2R1 w K - 0 1", "rank 1 has 9 squares"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "bad position"),
        ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "bad position"),
    ] {
        let error = Chess::from_fen(fen).unwrap_err().to_string();
        assert!(error.contains(why), "{fen}: {error}");
    }
}
