//! Every shipped config parses, validates, and names a game the registry knows.

use zerosum_games::registry::{parse_game, GAME_NAMES};
use zerosum_train::RunConfig;

#[test]
fn every_game_has_a_config_that_parses_and_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    for name in GAME_NAMES {
        let path = dir.join(format!("{name}.toml"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let config =
            RunConfig::from_toml(&text, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (errors, _) = config.validate();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        let game = parse_game(&config.game).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            game.short_name(),
            *name,
            "{} trains another game",
            path.display()
        );
    }
}

#[test]
fn every_config_file_and_recipe_parses_and_validates() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut checked = 0;
    for dir in [root.clone(), root.join("recipes")] {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let config = RunConfig::from_toml(&text, &[])
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (errors, _) = config.validate();
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
            parse_game(&config.game).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked += 1;
        }
    }
    assert!(
        checked > GAME_NAMES.len(),
        "only {checked} config files found"
    );
}
