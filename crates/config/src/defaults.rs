//! Every game's default config: the tuned file in `configs/` for the built-in games (and
//! the variants measured on a board of their own), else one sized from the game
//! ([`generic_config`]), as for a game written in Python.

use zerosum_games::registry::parse_game;
use zerosum_games::{with_game, Game, GameError};

use crate::generic_config;

/// The built-in games' configs, by registry name.
const BY_GAME: &[(&str, &str)] = &[
    ("tictactoe", include_str!("../../../configs/tictactoe.toml")),
    ("connect4", include_str!("../../../configs/connect4.toml")),
    ("gomoku", include_str!("../../../configs/gomoku.toml")),
    ("oware", include_str!("../../../configs/oware.toml")),
    ("go", include_str!("../../../configs/go.toml")),
    ("pushfight", include_str!("../../../configs/pushfight.toml")),
    ("chess", include_str!("../../../configs/chess.toml")),
];

/// Variants with a config of their own, by full name (parameters as the registry writes
/// them).
const BY_VARIANT: &[(&str, &str)] = &[
    (
        "gomoku:size=9",
        include_str!("../../../configs/gomoku-9x9.toml"),
    ),
    (
        "go:size=9,komi=7.5,max_moves=162",
        include_str!("../../../configs/go-9x9.toml"),
    ),
];

/// The default config (TOML text) of the game named by `spec`: a variant's own (the board
/// Gomoku is measured on) first, else the game's, else one sized from the game.
pub fn default_config(spec: &str) -> Result<String, GameError> {
    let game = parse_game(spec)?;
    let full_name = game.name();
    let base = full_name.split(':').next().unwrap_or_default();
    let tuned = BY_VARIANT
        .iter()
        .find(|(name, _)| *name == full_name)
        .or_else(|| BY_GAME.iter().find(|(name, _)| *name == base));
    Ok(match tuned {
        Some((_, text)) => text.to_string(),
        None => with_game!(&game, g => generic_config(&full_name, g.obs_shape(), g.num_actions())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_games::registry::entries;

    /// Every game of the table has a default config that names it.
    #[test]
    fn every_game_has_a_default_config_that_names_it() {
        for entry in entries() {
            let config = default_config(&entry.name).unwrap();
            let game_line = config
                .lines()
                .find(|line| line.trim_start().starts_with("game"))
                .unwrap_or_else(|| panic!("{}: the default config names no game", entry.name));
            assert!(
                game_line.contains(&format!("\"{}", entry.name)),
                "{}: {game_line}",
                entry.name
            );
        }
    }

    #[test]
    fn a_variant_may_have_a_default_config_of_its_own() {
        let nine = default_config("gomoku: size = 9").unwrap();
        assert_ne!(nine, default_config("gomoku").unwrap());
        assert_eq!(
            default_config("gomoku:size=11").unwrap(),
            default_config("gomoku").unwrap()
        );
        let go_nine = default_config("go:size=9,komi=7.5").unwrap();
        assert!(go_nine.contains("game = \"go:size=9,komi=7.5\""));
        assert_eq!(
            default_config("go:size=9").unwrap(),
            default_config("go").unwrap(),
            "the 9x9 recipe is for komi 7.5"
        );
        assert!(default_config("chezz").is_err());
    }
}
