//! Reading game record files back and stepping through a game, position by position.
//!
//! A record file is JSON Lines, one [`GameRecord`] per line: a batch of self-play's games
//! and `zerosum arena --save`'s output alike. [`parse_records`]
//! names the file and line of anything it cannot read, and skips an incomplete last line
//! (a game file that self-play is still appending to). [`frames`] replays a record,
//! checking every move, into one [`Frame`] per position for a viewer to show.

use std::path::Path;

use zerosum_games::{Game, GameError, Player};

use crate::error::StoreError;
use crate::record::GameRecord;

/// The records of a JSON Lines text, each with its 1-based line number; `path` names the
/// file in errors.
pub fn parse_records(text: &str, path: &Path) -> Result<Vec<(usize, GameRecord)>, StoreError> {
    let mut records = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    for (index, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<GameRecord>(line) {
            Ok(record) => records.push((index + 1, record)),
            // The last line without its newline is still being written: skip it.
            Err(_) if index + 1 == lines.len() => {}
            Err(e) => {
                return Err(StoreError::BadRecord {
                    path: path.to_path_buf(),
                    line: index + 1,
                    reason: e.to_string(),
                })
            }
        }
    }
    Ok(records)
}

/// The records of the file at `path`.
pub fn read_records(path: &Path) -> Result<Vec<(usize, GameRecord)>, StoreError> {
    let text = std::fs::read_to_string(path).map_err(|source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_records(&text, path)
}

/// One position of a recorded game, and the move played from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Plies played before this position.
    pub ply: usize,
    /// The board as the game draws it.
    pub board: String,
    /// The player to move; `None` once the game is over.
    pub to_move: Option<Player>,
    /// The move played from here, in notation; `None` at the end.
    pub action: Option<String>,
    /// The search's value of the position from the mover's view, where recorded.
    pub value: Option<f32>,
    /// The search's policy target, largest first: `(move, probability)`.
    pub policy: Vec<(String, f32)>,
}

/// Replays `record` from `initial` into one frame per position (the final one included),
/// keeping at most `top` policy entries per move. Fails on an illegal move.
pub fn frames<G: Game>(
    initial: &G,
    record: &GameRecord,
    top: usize,
) -> Result<Vec<Frame>, GameError> {
    let mut position = initial.clone();
    let mut frames = Vec::with_capacity(record.actions.len() + 1);
    for (ply, &action) in record.actions.iter().enumerate() {
        let stats = record.stats.get(ply).and_then(|s| s.as_ref());
        let mut policy: Vec<(String, f32)> = stats
            .map(|s| {
                s.policy
                    .iter()
                    .filter(|&&(a, _)| a < position.num_actions())
                    .map(|&(a, p)| (position.format_action(a), p))
                    .collect()
            })
            .unwrap_or_default();
        policy.sort_by(|a, b| b.1.total_cmp(&a.1));
        policy.truncate(top);
        let notation = if position.is_legal(action) {
            position.format_action(action)
        } else {
            format!("#{action}")
        };
        frames.push(Frame {
            ply,
            board: position.to_string(),
            to_move: Some(position.to_move()),
            action: Some(notation),
            value: stats.map(|s| s.value),
            policy,
        });
        position.try_apply(action)?;
    }
    frames.push(Frame {
        ply: record.actions.len(),
        board: position.to_string(),
        to_move: (!position.is_terminal()).then(|| position.to_move()),
        action: None,
        value: None,
        policy: Vec::new(),
    });
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::MoveStats;
    use zerosum_games::tic_tac_toe::TicTacToe;

    fn record() -> GameRecord {
        let game = TicTacToe::new();
        let actions = vec![4, 0, 1, 2, 7];
        let mut record = GameRecord::new(&game, ["a".into(), "b".into()], actions, Vec::new());
        record.stats = vec![
            Some(MoveStats {
                policy: vec![(0, 0.1), (4, 0.7), (8, 0.2)],
                value: 0.25,
                surprise: 0.0,
            }),
            None,
        ];
        record
    }

    #[test]
    fn frames_show_each_position_move_value_and_policy() {
        let frames = frames(&TicTacToe::new(), &record(), 2).unwrap();
        assert_eq!(frames.len(), 6);
        assert_eq!(frames[0].action.as_deref(), Some("b2"));
        assert_eq!(frames[0].value, Some(0.25));
        assert_eq!(
            frames[0].policy,
            vec![("b2".to_string(), 0.7), ("c1".to_string(), 0.2)]
        );
        assert_eq!(frames[1].value, None);
        assert!(frames[1].policy.is_empty());
        assert_eq!(frames[5].action, None);
        assert_eq!(frames[5].to_move, None, "b2 b1 b3 wins the middle column");
    }

    #[test]
    fn bad_lines_name_file_and_line_and_a_torn_tail_is_skipped() {
        let line = serde_json::to_string(&record()).unwrap();
        let text = format!("{line}\n\n{line}\n{{\"game\":\"tictac");
        let records = parse_records(&text, Path::new("g.jsonl")).unwrap();
        assert_eq!(records.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3]);
        let err = parse_records(&format!("{line}\n{{}}\n{line}\n"), Path::new("g.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("bad record in g.jsonl line 2: missing field"),
            "{err}"
        );
        assert!(!err.contains('\n'));
        let mut bad = record();
        bad.actions = vec![4, 4];
        assert!(frames(&TicTacToe::new(), &bad, 3).is_err());
    }
}
