//! Game records in SGF (FF[4]), the Smart Game Format every Go program reads.
//!
//! SGF points are two lowercase letters, column then row, counted from the top-left corner
//! (`aa`); our action ids count rows from the bottom, so row `r` is the letter
//! `size - 1 - r`. A pass is the empty value `[]`. The rules are written `RU[Tromp-Taylor]`
//! (area scoring, with our positional superko and no suicide, see the module docs) and the
//! result as SGF writes it: `B+3.5`, `W+0.5`, `0` for a draw.

use super::Go;
use crate::game::Game;
use crate::outcome::{Action, Outcome, Player};
use crate::records::{sgf_escape, RecordTags};

/// Moves per line after the root node.
const MOVES_PER_LINE: usize = 12;

/// The SGF point of `action` on a `size` board; the empty string for the pass.
fn point(size: usize, action: Action) -> String {
    if action >= size * size {
        return String::new();
    }
    let (row, col) = (action / size, action % size);
    let letter = |i: usize| char::from(b'a' + i as u8);
    format!("{}{}", letter(col), letter(size - 1 - row))
}

/// `B` for the first player, `W` for the second.
fn colour(player: Player) -> char {
    if player == Player::FIRST {
        'B'
    } else {
        'W'
    }
}

/// The SGF text of the game played from `initial` by `actions` (see the module docs).
pub(super) fn write(initial: &Go, actions: &[Action], tags: &RecordTags) -> String {
    let (moves, position) = move_nodes(initial, actions);
    let result = tags.result.clone().or_else(|| {
        position.outcome().map(|outcome| match outcome {
            Outcome::Draw => "0".to_string(),
            Outcome::Win(winner) => format!("{}+{}", colour(winner), position.score().abs()),
        })
    });
    let mut text = root_node(initial, tags, result.as_deref().unwrap_or(""));
    for line in moves.chunks(MOVES_PER_LINE) {
        text.push('\n');
        text.push_str(&line.concat());
    }
    text.push_str(")\n");
    text
}

/// One node per legal action played from `initial` (up to the first illegal one), and the
/// position they reach.
fn move_nodes(initial: &Go, actions: &[Action]) -> (Vec<String>, Go) {
    let size = initial.size();
    let mut position = initial.clone();
    let mut moves = Vec::with_capacity(actions.len());
    for &action in actions {
        if !position.is_legal(action) {
            debug_assert!(false, "illegal action {action} in a record");
            break;
        }
        moves.push(format!(
            ";{}[{}]",
            colour(position.to_move()),
            point(size, action)
        ));
        position.apply(action);
    }
    (moves, position)
}

/// The root node, unclosed: the format, the board and rules, the tags, `result` (SGF's
/// `RE`, left out when empty) and the setup of `initial`.
fn root_node(initial: &Go, tags: &RecordTags, result: &str) -> String {
    let size = initial.size();
    let mut root = format!(
        "(;FF[4]GM[1]CA[UTF-8]AP[zerosum]SZ[{size}]KM[{}]RU[Tromp-Taylor]",
        initial.komi()
    );
    let mut property = |key: &str, value: &str| {
        if !value.is_empty() {
            root.push_str(&format!("{key}[{}]", sgf_escape(value)));
        }
    };
    property("EV", &tags.event);
    property("RO", &tags.round.map(|r| r.to_string()).unwrap_or_default());
    property("DT", tags.date.as_deref().unwrap_or(""));
    property("PB", &tags.players[0]);
    property("PW", &tags.players[1]);
    property("RE", result);
    root.push_str(&setup(initial));
    root
}

/// The stones on `initial`'s board (`AB`, `AW`) and, when white moves first, `PL[W]`.
fn setup(initial: &Go) -> String {
    let size = initial.size();
    let mut text = String::new();
    let mut stones = [String::new(), String::new()];
    for row in (0..size).rev() {
        for col in 0..size {
            if let Some(player) = initial.point(row, col) {
                stones[player.index()].push_str(&format!("[{}]", point(size, row * size + col)));
            }
        }
    }
    for (key, stones) in ["AB", "AW"].into_iter().zip(&stones) {
        if !stones.is_empty() {
            text.push_str(key);
            text.push_str(stones);
        }
    }
    if initial.to_move() != Player::FIRST {
        text.push_str("PL[W]");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(game: &mut Go, moves: &[&str]) -> Vec<Action> {
        moves
            .iter()
            .map(|m| game.play_notation(m).unwrap())
            .collect()
    }

    #[test]
    fn a_short_game_in_sgf() {
        let initial = Go::try_new(5, 0.5, 50).unwrap();
        let mut game = initial.clone();
        // Black walls off column A, white columns D and E; C is nobody's. Both pass.
        let actions = play(
            &mut game,
            &[
                "B1", "D1", "B2", "D2", "B3", "D3", "B4", "D4", "B5", "D5", "pass", "pass",
            ],
        );
        assert_eq!(game.score(), -0.5);
        let tags = RecordTags {
            event: "test [1]".to_string(),
            players: ["mcts:100".to_string(), "random".to_string()],
            result: None,
            date: Some("2025-01-02".to_string()),
            round: Some(3),
        };
        let (extension, text) = initial.standard_record(&actions, &tags).unwrap();
        assert_eq!(extension, "sgf");
        assert_eq!(
            text,
            "(;FF[4]GM[1]CA[UTF-8]AP[zerosum]SZ[5]KM[0.5]RU[Tromp-Taylor]EV[test [1\\]]RO[3]\
             DT[2025-01-02]PB[mcts:100]PW[random]RE[W+0.5]\n\
             ;B[be];W[de];B[bd];W[dd];B[bc];W[dc];B[bb];W[db];B[ba];W[da];B[];W[])\n"
        );
    }

    #[test]
    fn unfinished_games_and_set_up_stones() {
        let empty = Go::try_new(5, 0.0, 50).unwrap();
        // A1 is the bottom-left point: SGF's "ae"; E5 the top-right: "ea".
        let initial = empty.try_from_stones(&[0], &[24], Player::SECOND).unwrap();
        let mut game = initial.clone();
        let actions = play(&mut game, &["C3"]);
        let (_, text) = initial
            .standard_record(&actions, &RecordTags::default())
            .unwrap();
        assert_eq!(
            text,
            "(;FF[4]GM[1]CA[UTF-8]AP[zerosum]SZ[5]KM[0]RU[Tromp-Taylor]AB[ae]AW[ea]PL[W]\n\
             ;W[cc])\n"
        );
        let resigned = RecordTags {
            result: Some("B+R".to_string()),
            ..RecordTags::default()
        };
        let (_, text) = initial.standard_record(&actions, &resigned).unwrap();
        assert!(text.contains("RE[B+R]"), "{text}");
    }
}
