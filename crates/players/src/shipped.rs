//! The trained models that ship with zerosum (`models/` in the repository): one network
//! per game, listed in `models/models.toml`, which front ends play when no checkpoint is
//! named and new runs may start from (`train --init models/NAME`).
//!
//! Each entry's files are `models/NAME.safetensors` and `models/NAME.json`, a checkpoint
//! like any run's whose sidecar also records its run's training time, so that the hours of
//! a model improved run after run add up along its lineage.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use zerosum_games::registry::parse_game;
use zerosum_games::{with_game, Game};
use zerosum_nn::{CheckpointMeta, Device, Model};

use crate::error::PlayError;
use zerosum_config::ConfigError;
use zerosum_store::StoreError;

/// The folder of shipped models: `$ZEROSUM_MODELS`, else (unset or empty) the `models/`
/// beside the folder of the running program where it has an index (the wheel's
/// `zerosum/bin/zerosum` beside `zerosum/models/`), else the repository's `models/`.
pub fn models_dir() -> PathBuf {
    let beside_program = || {
        let exe = std::env::current_exe().ok()?;
        let dir = exe.parent()?.parent()?.join("models");
        dir.join(INDEX).is_file().then_some(dir)
    };
    let dir = std::env::var_os("ZEROSUM_MODELS")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(beside_program)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models"));
    dir.canonicalize().unwrap_or(dir)
}

/// Where the checkpoint `named` is: a shipped model's files when it names one (and no file or
/// folder of that name is here), else `named` itself, for
/// [`zerosum_store::checkpoints::locate`].
pub fn location_of(named: &str) -> Result<String, PlayError> {
    if Path::new(named).exists() {
        return Ok(named.to_string());
    }
    Ok(
        match list()?.into_iter().find(|model| model.name == named) {
            Some(model) => model.base.to_string_lossy().into_owned(),
            None => named.to_string(),
        },
    )
}

/// The index file in [`models_dir`].
pub const INDEX: &str = "models.toml";

/// One entry of the index, as written there.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    game: String,
    sims: usize,
    strength: String,
    #[serde(default)]
    headline: Option<String>,
    runs: Vec<String>,
}

/// A shipped model: its index entry, checked against its files.
#[derive(Clone, Debug)]
pub struct ShippedModel {
    /// The file name without extension (`go-5x5`).
    pub name: String,
    /// The game's full registry name, as its sidecar says.
    pub game: String,
    /// Simulations per move it plays with, as measured for its strength.
    pub sims: usize,
    /// Its measured strength in one line (docs/strength.md holds the table).
    pub strength: String,
    /// Its strength in a few words, for a listing one line a model: the index's
    /// `headline`, else the first clause of `strength`.
    pub headline: String,
    /// The command of each run that trained it, oldest first.
    pub runs: Vec<String>,
    /// `models/NAME`: the checkpoint location for [`zerosum_store::checkpoints::locate`].
    pub base: PathBuf,
    /// The sidecar.
    pub meta: CheckpointMeta,
    /// Bytes of the weights file.
    pub bytes: u64,
}

impl ShippedModel {
    /// Hours of training across its lineage, where every run recorded its time.
    pub fn hours(&self) -> Option<f64> {
        let earlier: Option<f64> = self.meta.lineage.iter().map(|a| a.train_seconds).sum();
        Some((earlier? + self.meta.train_seconds?) / 3600.0)
    }

    /// Generations of training across its lineage.
    pub fn generations(&self) -> u64 {
        self.meta.lineage.iter().map(|a| a.generation).sum::<u64>() + self.meta.generation
    }

    /// Says that it plays the game named `game`, and what it was trained on where that is
    /// another game: `the shipped model go-9x9 (trained on go:size=9,komi=7.5,...) plays ...`.
    pub fn plays(&self, game: &str) -> String {
        let trained_on = if self.game == game {
            String::new()
        } else {
            format!(" (trained on {})", self.game)
        };
        format!("the shipped model {}{trained_on} plays {game}", self.name)
    }

    /// Its name as a player: `shipped:NAME`.
    pub fn player_name(&self) -> String {
        format!("shipped:{}", self.name)
    }

    /// Its network, to play `game`: its own game, or one [`for_game`] found on the same
    /// board under other scoring or length parameters, which the network is read as.
    pub fn load<G: Game>(&self, game: &G, device: Device) -> Result<Model, PlayError> {
        let mut found = zerosum_store::checkpoints::locate(&self.base.to_string_lossy())?;
        if self.game != game.name() {
            let mut meta = self.meta.clone();
            meta.game = game.name();
            found.bytes.meta = serde_json::to_vec(&meta).expect("metadata serialises");
        }
        Ok(Model::from_bytes(
            &found.bytes,
            game,
            device,
            Path::new(&found.origin),
        )?)
    }
}

/// The shipped models in `dir`, in index order; none where there is no index. An entry
/// whose files are missing, or whose sidecar names another game, is an error: the index
/// and the files are committed together.
pub fn list_in(dir: &Path) -> Result<Vec<ShippedModel>, PlayError> {
    let index = dir.join(INDEX);
    let bad = |reason: String| -> PlayError {
        StoreError::Location {
            location: index.display().to_string(),
            reason,
        }
        .into()
    };
    let text = match std::fs::read_to_string(&index) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(bad(e.to_string())),
    };
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Index {
        #[serde(default)]
        model: Vec<Entry>,
    }
    let index_entries: Index = toml::from_str(&text).map_err(|e| bad(e.message().to_string()))?;
    index_entries
        .model
        .into_iter()
        .map(|entry| {
            let base = dir.join(&entry.name);
            let sidecar = base.with_extension("json");
            let weights = base.with_extension("safetensors");
            let meta: CheckpointMeta = std::fs::read(&sidecar)
                .map_err(|e| e.to_string())
                .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
                .map_err(|e| bad(format!("model {}: {}: {e}", entry.name, sidecar.display())))?;
            let bytes = std::fs::metadata(&weights)
                .map_err(|e| bad(format!("model {}: {}: {e}", entry.name, weights.display())))?
                .len();
            if meta.game != entry.game {
                return Err(bad(format!(
                    "model {} is listed for {} but its sidecar says {}",
                    entry.name, entry.game, meta.game
                )));
            }
            if entry.runs.len() != meta.lineage.len() + 1 {
                return Err(bad(format!(
                    "model {} lists {} runs but its lineage has {}",
                    entry.name,
                    entry.runs.len(),
                    meta.lineage.len() + 1
                )));
            }
            Ok(ShippedModel {
                name: entry.name,
                game: entry.game,
                sims: entry.sims,
                headline: entry
                    .headline
                    .unwrap_or_else(|| first_clause(&entry.strength).to_string()),
                strength: entry.strength,
                runs: entry.runs,
                base,
                meta,
                bytes,
            })
        })
        .collect()
}

/// A strength's first clause: up to its first parenthesis, semicolon or colon-and-space
/// (`98% against mcts:10000 (100 games; ...)` is `98% against mcts:10000`).
fn first_clause(strength: &str) -> &str {
    let end = [" (", ";", ": "]
        .iter()
        .filter_map(|mark| strength.find(mark))
        .min()
        .unwrap_or(strength.len());
    strength[..end].trim_end_matches([',', ' '])
}

/// The shipped models in [`models_dir`].
pub fn list() -> Result<Vec<ShippedModel>, PlayError> {
    list_in(&models_dir())
}

/// Parameters that change how a game is scored or how long it may last, not how it is
/// played on its board: a model trained under other values of these plays it too.
const SCORING_PARAMETERS: &[&str] = &["komi", "max_moves", "max_plies", "max_turns"];

/// The shipped model that plays the game named `game` (its full registry name): the one
/// for its exact parameters, else one of the same game and board that differs only in
/// [`SCORING_PARAMETERS`] (Go's komi, say), so that a front end asked for another komi
/// keeps a network ([`ShippedModel::load`] reads it as the game asked for).
pub fn for_game(game: &str) -> Result<Option<ShippedModel>, PlayError> {
    let models = list()?;
    if let Some(model) = models.iter().find(|model| model.game == game) {
        return Ok(Some(model.clone()));
    }
    // The short name, the shapes, and the parameters but the scoring ones.
    let board = |spec: &str| {
        parse_game(spec).ok().map(|any| {
            let shapes = with_game!(&any, g => (g.num_actions(), g.obs_shape()));
            let name = any.name();
            let scoring = |param: &&str| {
                SCORING_PARAMETERS.contains(&param.split('=').next().unwrap_or_default())
            };
            let rules: Vec<String> = name
                .split_once(':')
                .map_or("", |(_, params)| params)
                .split(',')
                .filter(|param| !param.is_empty() && !scoring(param))
                .map(str::to_string)
                .collect();
            (any.short_name(), shapes, rules)
        })
    };
    let Some(wanted) = board(game) else {
        return Ok(None);
    };
    Ok(models
        .into_iter()
        .find(|model| board(&model.game).as_ref() == Some(&wanted)))
}

/// The model shipped for `game` ([`for_game`]) with its network read as that game; none
/// where no model fits it.
pub fn load_for<G: Game>(
    game: &G,
    device: Device,
) -> Result<Option<(ShippedModel, Model)>, PlayError> {
    let Some(model) = for_game(&game.name())? else {
        return Ok(None);
    };
    let network = model.load(game, device)?;
    Ok(Some((model, network)))
}

/// The words for a game that no model is shipped for.
pub fn none_for(game: &str) -> String {
    format!("no model is shipped for {game} (`zerosum models` lists them)")
}

/// Copies the checkpoint `location` names into `dir` as model `name`, its sidecar
/// recording the training time its run logged up to it (for [`ShippedModel::hours`]).
/// Returns the model's game.
pub fn add(location: &str, dir: &Path, name: &str) -> Result<CheckpointMeta, PlayError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
    {
        return Err(
            ConfigError(format!("model name '{name}': use letters, digits, - and _")).into(),
        );
    }
    let found = zerosum_store::checkpoints::locate(location)?;
    let mut meta: CheckpointMeta =
        serde_json::from_slice(&found.bytes.meta).map_err(|e| StoreError::Location {
            location: found.origin.clone(),
            reason: format!("not a checkpoint's metadata: {e}"),
        })?;
    // A model that does not load would break every front end that plays its game.
    let bad = |reason: String| StoreError::Location {
        location: found.origin.clone(),
        reason,
    };
    let game = parse_game(&meta.game).map_err(|e| bad(e.to_string()))?;
    with_game!(&game, g => Model::from_bytes(&found.bytes, g, Device::Cpu, Path::new(&found.origin)))
        .map_err(|e| bad(format!("does not load as a network: {e}")))?;
    if meta.train_seconds.is_none() {
        meta.train_seconds =
            zerosum_store::checkpoints::run_train_seconds(&found.origin, meta.generation);
    }
    let mut sidecar = serde_json::to_vec_pretty(&meta).expect("metadata serialises");
    sidecar.push(b'\n');
    zerosum_store::checkpoints::write_files(dir, name, &found.bytes.weights, &sidecar)?;
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_games::registry::FromAnyGame;

    /// Every shipped model is listed with its files, for a game the registry knows, and
    /// loads as a network for that game.
    #[test]
    fn the_shipped_models_load_for_their_games() {
        let models = list().expect("the index and its files agree");
        for model in &models {
            let game = zerosum_games::registry::parse_game(&model.game).expect("a known game");
            assert_eq!(
                game.name(),
                model.game,
                "{} names its game in full",
                model.name
            );
            zerosum_games::with_game!(&game, g => {
                zerosum_store::checkpoints::load_location(
                    &model.base.to_string_lossy(),
                    g,
                    zerosum_nn::Device::Cpu,
                )
                .expect("the model loads");
            });
            assert!(model.bytes <= 5 << 20, "{} is over 5 MB", model.name);
            assert!(model.sims > 0);
        }
    }

    #[test]
    fn a_board_without_a_model_of_its_own_parameters_gets_one_of_its_shape() {
        let model_for = |spec: &str| {
            let game = parse_game(spec).unwrap().name();
            for_game(&game).unwrap().map(|model| model.name)
        };
        assert_eq!(model_for("go:size=5").as_deref(), Some("go-5x5"));
        assert_eq!(model_for("go:size=5,komi=7.5").as_deref(), Some("go-5x5"));
        assert_eq!(model_for("go:size=9,komi=0.5").as_deref(), Some("go-9x9"));
        assert_eq!(model_for("go:size=7"), None);
        // Other rules on the same board are another game.
        assert_eq!(model_for("connect4:k=5"), None);
        assert_eq!(model_for("oware:repetition=true"), None);
        assert_eq!(model_for("chess:max_plies=300").as_deref(), Some("chess"));
        // The model found is read as the game asked for.
        let game = zerosum_games::go::Go::from_any(parse_game("go:size=9").unwrap()).unwrap();
        let model = for_game(&game.name()).unwrap().unwrap();
        model
            .load(&game, Device::Cpu)
            .expect("go-9x9 plays 9x9 at komi 0.5");
    }

    #[test]
    fn a_headline_defaults_to_the_strength_s_first_clause() {
        assert_eq!(
            first_clause("98% against mcts:10000 (100 games; target 95%)"),
            "98% against mcts:10000"
        );
        assert_eq!(
            first_clause("85% against mcts:1000: a start"),
            "85% against mcts:1000"
        );
        assert_eq!(first_clause("100 draws; 184-16-0"), "100 draws");
        assert_eq!(first_clause("not measured yet"), "not measured yet");
    }

    #[test]
    fn an_index_entry_without_its_files_is_refused() {
        let dir = std::env::temp_dir().join(format!("zerosum-models-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(INDEX),
            "[[model]]\nname = \"x\"\ngame = \"tictactoe\"\nsims = 10\nstrength = \"\"\nruns = [\"\"]\n",
        )
        .unwrap();
        let error = list_in(&dir).unwrap_err().to_string();
        assert!(error.contains("model x"), "{error}");
        assert!(list_in(&dir.join("absent")).unwrap().is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// `models add` writes nothing for a checkpoint whose weights do not load, and adds one
    /// that does.
    #[test]
    fn a_checkpoint_that_does_not_load_is_not_added() {
        let dir = std::env::temp_dir().join(format!("zerosum-add-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let shipped = models_dir().join("tictactoe");
        let broken = dir.join("broken");
        std::fs::copy(
            shipped.with_extension("json"),
            broken.with_extension("json"),
        )
        .unwrap();
        let weights = std::fs::read(shipped.with_extension("safetensors")).unwrap();
        std::fs::write(
            broken.with_extension("safetensors"),
            &weights[..weights.len() / 2],
        )
        .unwrap();
        let out = dir.join("models");
        let error = add(&broken.to_string_lossy(), &out, "t")
            .unwrap_err()
            .to_string();
        assert!(error.contains("does not load"), "{error}");
        assert!(!out.join("t.safetensors").exists());
        add(&shipped.to_string_lossy(), &out, "t").unwrap();
        assert!(out.join("t.safetensors").exists());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
