//! Game records in PGN, the Portable Game Notation of chess databases and GUIs.
//!
//! The export format: the seven-tag roster (Event, Site, Date, Round, White, Black,
//! Result, with `?` for the unknown), `SetUp` and `FEN` when the game did not start from
//! the initial position, then the moves in SAN with move numbers (`1. e4 e5`, `1... e5`
//! when black moves first) and the result (`1-0`, `0-1`, `1/2-1/2`, `*` while the game
//! goes on), in lines of at most 79 characters. Draws by our ply cap read `1/2-1/2`.

use super::{Chess, START_FEN};
use crate::game::Game;
use crate::outcome::{Action, Player};
use crate::records::{pgn_escape, wrap, RecordTags};

/// The longest line of movetext the export format allows.
const LINE_WIDTH: usize = 79;

/// The PGN text of the game played from `initial` by `actions` (see the module docs).
pub(super) fn write(initial: &Chess, actions: &[Action], tags: &RecordTags) -> String {
    let fen = initial.to_fen();
    let (mut tokens, position) = movetext(initial, &fen, actions);
    let result = tags.result.clone().unwrap_or_else(|| {
        position
            .outcome()
            .map_or("*", |outcome| outcome.score_string())
            .to_string()
    });
    tokens.push(result.clone());
    let mut text = tag_pairs(tags, &result, &fen);
    text.push('\n');
    text.push_str(&wrap(&tokens, LINE_WIDTH));
    text.push('\n');
    text
}

/// The move numbers and SAN of the legal actions played from `initial` (whose FEN is
/// `fen`), up to the first illegal one, and the position they reach.
fn movetext(initial: &Chess, fen: &str, actions: &[Action]) -> (Vec<String>, Chess) {
    let mut position = initial.clone();
    let mut number: u32 = fen
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut tokens = Vec::with_capacity(actions.len() * 3 / 2 + 1);
    for (ply, &action) in actions.iter().enumerate() {
        let Ok(san) = position.san(action) else {
            debug_assert!(false, "illegal action {action} in a record");
            break;
        };
        if position.to_move() == Player::FIRST {
            tokens.push(format!("{number}."));
        } else if ply == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san);
        if position.to_move() == Player::SECOND {
            number += 1;
        }
        position.apply(action);
    }
    (tokens, position)
}

/// The seven-tag roster, one line each, then `SetUp` and `FEN` unless `fen` is the
/// initial position.
fn tag_pairs(tags: &RecordTags, result: &str, fen: &str) -> String {
    let or_unknown = |text: &str| {
        if text.is_empty() {
            "?".to_string()
        } else {
            pgn_escape(text)
        }
    };
    let date = tags
        .date
        .as_deref()
        .map_or("????.??.??".to_string(), |d| d.replace('-', "."));
    let round = tags.round.map_or("?".to_string(), |r| r.to_string());
    let mut text = String::new();
    for (key, value) in [
        ("Event", or_unknown(&tags.event)),
        ("Site", "?".to_string()),
        ("Date", pgn_escape(&date)),
        ("Round", round),
        ("White", or_unknown(&tags.players[0])),
        ("Black", or_unknown(&tags.players[1])),
        ("Result", pgn_escape(result)),
    ] {
        text.push_str(&format!("[{key} \"{value}\"]\n"));
    }
    if fen != START_FEN {
        text.push_str(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Plays SAN from a PGN's movetext, skipping move numbers and the result.
    fn replay_movetext(initial: &Chess, pgn: &str) -> Chess {
        let movetext = pgn.split("\n\n").nth(1).unwrap();
        let mut game = initial.clone();
        for token in movetext.split_whitespace() {
            if token.ends_with('.') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
                continue;
            }
            let action = game.parse_san(token).unwrap();
            game.try_apply(action).unwrap();
        }
        game
    }

    #[test]
    fn scholars_mate_in_pgn() {
        let initial = Chess::new();
        let mut game = initial.clone();
        let actions: Vec<Action> = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
            .iter()
            .map(|m| game.play_notation(m).unwrap())
            .collect();
        let tags = RecordTags {
            event: "zerosum arena".to_string(),
            players: ["checkpoint:runs/a \"b\"".to_string(), "random".to_string()],
            result: None,
            date: Some("2025-03-04".to_string()),
            round: Some(1),
        };
        let (extension, text) = initial.standard_record(&actions, &tags).unwrap();
        assert_eq!(extension, "pgn");
        assert_eq!(
            text,
            "[Event \"zerosum arena\"]\n\
             [Site \"?\"]\n\
             [Date \"2025.03.04\"]\n\
             [Round \"1\"]\n\
             [White \"checkpoint:runs/a \\\"b\\\"\"]\n\
             [Black \"random\"]\n\
             [Result \"1-0\"]\n\
             \n\
             1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n"
        );
        assert_eq!(replay_movetext(&initial, &text), game);
    }

    #[test]
    fn games_from_a_fen_start_with_black_and_long_games_wrap() {
        // Black to move, move 10: the record sets the position up and numbers from 10...
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 10";
        let initial = Chess::from_fen(fen).unwrap();
        let mut game = initial.clone();
        let actions: Vec<Action> = ["g8f6", "b1c3", "f8c5"]
            .iter()
            .map(|m| game.play_notation(m).unwrap())
            .collect();
        let (_, text) = initial
            .standard_record(&actions, &RecordTags::default())
            .unwrap();
        assert_eq!(
            text,
            format!(
                "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
                 [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\
                 \n10... Nf6 11. Nc3 Bc5 *\n"
            )
        );
        assert_eq!(replay_movetext(&initial, &text), game);

        // A long random game: wrapped at 79 columns, and it still replays.
        let initial = Chess::new();
        let mut game = initial.clone();
        let mut rng = SmallRng::seed_from_u64(3);
        let mut actions = Vec::new();
        while actions.len() < 80 && !game.is_terminal() {
            let legal = game.legal_action_vec();
            let action = legal[rng.random_range(0..legal.len())];
            game.apply(action);
            actions.push(action);
        }
        let (_, text) = initial
            .standard_record(&actions, &RecordTags::default())
            .unwrap();
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert!(movetext.lines().count() > 3, "{movetext}");
        assert!(
            movetext.lines().all(|l| l.len() <= LINE_WIDTH),
            "{movetext}"
        );
        assert_eq!(replay_movetext(&initial, &text), game);
    }
}
