//! Reading the rule-oracle files in `shared/oracles` (see its README for the format).

use std::path::PathBuf;

use serde_json::Value;
use zerosum_games::{Action, Game, Player};

/// Finds `shared/oracles/<file>` in the crate's directory or any ancestor of it: the
/// checkout may sit beside `shared/` (`/work/main` and `/work/shared`) or hold it.
pub fn oracle_path(file: &str) -> PathBuf {
    let start = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    start
        .ancestors()
        .map(|dir| dir.join("shared").join("oracles").join(file))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "oracle file shared/oracles/{file} not found in {} or any parent",
                start.display()
            )
        })
}

/// The games recorded in oracle file `file`, one JSON object each.
pub fn oracle_games(file: &str) -> Vec<Value> {
    let path = oracle_path(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: bad JSON: {e}", path.display(), i + 1))
        })
        .collect()
}

/// `value[key]` as a list of action ids.
pub fn actions(value: &Value, key: &str) -> Vec<Action> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("'{key}' is not a list in {value}"))
        .iter()
        .map(|a| a.as_u64().expect("action ids are non-negative integers") as Action)
        .collect()
}

/// `value[key]` as a list of strings.
pub fn strings(value: &Value, key: &str) -> Vec<String> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("'{key}' is not a list in {value}"))
        .iter()
        .map(|s| s.as_str().expect("strings").to_string())
        .collect()
}

/// How many games and positions a replay compared.
#[derive(Default)]
pub struct Counts {
    pub games: usize,
    pub positions: usize,
}

/// Replays every game of `file` from `initial` and compares each position with the
/// oracle's: the legal set, the terminal flag, the returns, the player to move, and (through
/// `legal_string`) our notation of each legal action against the oracle's string for it.
///
/// `legal_string(game, oracle_string)` gives the notation we expect for the oracle's string,
/// and checks whatever else the string says (the mover's mark).
pub fn replay<G: Game>(
    initial: &G,
    file: &str,
    legal_string: impl Fn(&G, &str) -> String,
) -> Counts {
    let mut counts = Counts::default();
    for record in oracle_games(file) {
        let (seed, index) = (&record["seed"], &record["index"]);
        let played = actions(&record, "actions");
        let positions = record["positions"].as_array().expect("positions is a list");
        assert_eq!(
            positions.len(),
            played.len() + 1,
            "seed {seed} game {index}"
        );
        let mut game = initial.clone();
        for (ply, position) in positions.iter().enumerate() {
            let at = format!("{file} seed {seed} game {index} ply {ply}\n{game}");
            let legal = actions(position, "legal");
            assert_eq!(game.legal_action_vec(), legal, "legal actions at {at}");
            let terminal = position["is_terminal"]
                .as_bool()
                .expect("is_terminal is a bool");
            assert_eq!(game.is_terminal(), terminal, "terminal flag at {at}");
            let returns: Vec<f64> = position["returns"]
                .as_array()
                .expect("returns is a list")
                .iter()
                .map(|r| r.as_f64().expect("returns are numbers"))
                .collect();
            let ours: Vec<f64> = Player::ALL
                .iter()
                .map(|&p| game.outcome().map_or(0.0, |o| f64::from(o.value_for(p))))
                .collect();
            assert_eq!(ours, returns, "returns at {at}");
            if !terminal {
                let mover = position["current_player"].as_u64().expect("a player index");
                assert_eq!(
                    game.to_move().index() as u64,
                    mover,
                    "player to move at {at}"
                );
            }
            for (action, text) in legal.iter().zip(strings(position, "legal_strings")) {
                let expected = legal_string(&game, &text);
                assert_eq!(
                    game.format_action(*action),
                    expected,
                    "notation of {text} at {at}"
                );
                assert_eq!(
                    game.parse_action(&expected),
                    Ok(*action),
                    "parse {expected} at {at}"
                );
            }
            counts.positions += 1;
            if let Some(&action) = played.get(ply) {
                game.try_apply(action)
                    .unwrap_or_else(|e| panic!("{e} at {at}"));
            }
        }
        assert_eq!(
            game.outcome()
                .map(|o| [o.value_for(Player::FIRST), o.value_for(Player::SECOND)]),
            Some(
                [0, 1].map(|p| record["returns"][p].as_f64().expect("returns are numbers") as f32)
            ),
            "final result of {file} seed {seed} game {index}"
        );
        counts.games += 1;
    }
    assert!(counts.games > 0, "{file} holds no games");
    counts
}

/// The mark of the player to move in the oracle's strings: `x` first, `o` second.
pub fn mark(player: Player) -> char {
    if player == Player::FIRST {
        'x'
    } else {
        'o'
    }
}
