//! Every shipped config parses, validates, and names a game the registry knows.

use std::path::{Path, PathBuf};

use zerosum_config::RunConfig;
use zerosum_games::registry::{game_names, parse_game, AnyGame};

fn configs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs")
}

/// The game of the config at `path`, after checking that the file parses, validates, and
/// names a game the registry knows.
fn valid_config_game(path: &Path) -> AnyGame {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let config = RunConfig::from_toml(&text, &[])
        .and_then(RunConfig::resolve)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_game(&config.game).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_game_has_a_config_that_parses_and_validates() {
    for name in game_names() {
        let path = configs_dir().join(format!("{name}.toml"));
        let game = valid_config_game(&path);
        assert_eq!(
            game.short_name(),
            name,
            "{} trains another game",
            path.display()
        );
    }
}

#[test]
fn every_config_file_and_recipe_parses_and_validates() {
    let mut checked = 0;
    for dir in [configs_dir(), configs_dir().join("recipes")] {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "toml") {
                continue;
            }
            valid_config_game(&path);
            checked += 1;
        }
    }
    assert!(
        checked > game_names().len(),
        "only {checked} config files found"
    );
}
