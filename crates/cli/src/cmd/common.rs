//! Flags and helpers that several subcommands share.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use zerosum_games::registry::{parse_game, AnyGame};
use zerosum_train::config::toml_string;
use zerosum_train::{ResolvedConfig, RunConfig};

/// The game, config and seed flags.
#[derive(clap::Args, Clone, Debug)]
pub struct GameArgs {
    /// The game: tictactoe, connect4, gomoku, oware, go, pushfight, chess; parameters after a
    /// colon (connect4:rows=6,cols=7, go:size=9,komi=7.5)
    #[arg(long, short)]
    pub game: Option<String>,
    /// A config file (TOML) in place of the game's default in configs/
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a config key: --set search.num_simulations=100 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
    /// Seed for every random choice
    #[arg(long)]
    pub seed: Option<u64>,
    /// Device for the network: auto, cpu, cuda, cuda:N
    #[arg(long)]
    pub device: Option<String>,
}

impl GameArgs {
    /// Resolves the run config: the game's default config (or --config), then --game,
    /// --seed, --device and the --set overrides.
    pub fn resolve(&self) -> Result<(AnyGame, ResolvedConfig)> {
        let mut overrides = Vec::new();
        let text = match &self.config {
            Some(path) => std::fs::read_to_string(path)
                .with_context(|| format!("cannot read config {}", path.display()))?,
            None => {
                let Some(game) = &self.game else {
                    bail!(
                        "name a game with --game ({}) or a config with --config",
                        zerosum_games::registry::game_names().join(", ")
                    )
                };
                zerosum_games::registry::default_config(game)?.into_owned()
            }
        };
        if let Some(game) = &self.game {
            overrides.push(format!("game={}", toml_string(game)));
        }
        if let Some(seed) = self.seed {
            overrides.push(format!("seed={seed}"));
        }
        if let Some(device) = &self.device {
            overrides.push(format!("device={}", toml_string(device)));
        }
        overrides.extend(self.overrides.iter().cloned());
        resolve_config(RunConfig::from_toml(&text, &overrides)?)
    }
}

/// The one place a command's config is checked: the config resolved, its game built, and
/// each of its warnings printed on a line of its own.
pub fn resolve_config(config: RunConfig) -> Result<(AnyGame, ResolvedConfig)> {
    let game = parse_game(&config.game)?;
    let config = config.resolve()?;
    for warning in config.warnings() {
        eprintln!("warning: {warning}");
    }
    Ok((game, config))
}

/// Resolves the game and config for commands that may name a checkpoint: without
/// --game, the checkpoint's own game is used.
pub fn resolve_with_checkpoint(
    args: &GameArgs,
    checkpoint: Option<&std::path::Path>,
) -> Result<(AnyGame, ResolvedConfig)> {
    if args.game.is_some() || args.config.is_some() {
        return args.resolve();
    }
    let Some(path) = checkpoint else {
        return args.resolve();
    };
    let meta = zerosum_train::checkpoints::meta_at(&path.to_string_lossy())?;
    let mut args = args.clone();
    args.game = Some(meta.game);
    args.resolve()
}

/// The agent a front end (play, gtp, serve) puts up: a checkpoint with search, or rollout
/// MCTS without one, so that every front end works before any training.
#[derive(clap::Args)]
pub struct AgentArgs {
    /// A trained checkpoint (runs/NAME/checkpoints/latest, a run, or an s3:// gs:// az://
    /// URL of either); without it, rollout MCTS plays
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Simulations per agent move
    #[arg(long, value_parser = positive)]
    pub sims: Option<usize>,
}

impl AgentArgs {
    /// The player spec of the agent.
    pub fn spec(&self) -> zerosum_train::PlayerSpec {
        match &self.checkpoint {
            Some(path) => zerosum_train::PlayerSpec::Checkpoint {
                path: path.clone(),
                sims: self.sims,
            },
            None => zerosum_train::PlayerSpec::Mcts {
                sims: self.sims.unwrap_or(DEFAULT_ROLLOUT_SIMS),
            },
        }
    }

    /// Simulations per move: `--sims`, else for a checkpoint the config's `play` budget
    /// ([`RunConfig::play_simulations`]), and for rollout MCTS [`DEFAULT_ROLLOUT_SIMS`].
    pub fn sims(&self, config: &ResolvedConfig) -> usize {
        match (self.sims, &self.checkpoint) {
            (Some(sims), _) => sims,
            (None, Some(_)) => config.play_simulations(),
            (None, None) => DEFAULT_ROLLOUT_SIMS,
        }
    }
}

/// Gives libtorch the threads of a command that searches one position per network call
/// (arena, accuracy, play, gtp, serve, uci): [`zerosum_train::match_torch_threads`].
pub fn use_match_threads(config: &ResolvedConfig) {
    zerosum_nn::set_torch_threads(zerosum_train::match_torch_threads(config.torch_threads));
}

pub use zerosum_train::players::DEFAULT_ROLLOUT_SIMS;

/// Parses a count that must be at least 1 (simulations, say).
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "expected a whole number of at least 1, got '{text}'"
        )),
    }
}

/// Joins the run at `location` as a role other than its learner (an actor, an evaluator):
/// the run must exist and be one this build can play; its config, with `overrides`.
pub fn join_run(
    location: &str,
    overrides: &[String],
) -> Result<(zerosum_train::RunStore, AnyGame, ResolvedConfig)> {
    use zerosum_train::{layout, RunIdentity, RunStore};
    let store = RunStore::open(location)?;
    let Some(identity) = RunIdentity::check(&store)? else {
        bail!(
            "{location}: not a run yet (no {}); start its learner first",
            layout::RUN
        );
    };
    let Some(text) = store.get_text(layout::CONFIG)? else {
        bail!("{location}: the run has no {}", layout::CONFIG);
    };
    let (game, config) = resolve_config(RunConfig::from_toml(&text, overrides)?)?;
    if game.name() != identity.game {
        bail!(
            "{location}: the run trains {}, its config names {}",
            identity.game,
            game.name()
        );
    }
    Ok((store, game, config))
}

/// Sets `stop` on the first SIGTERM or Ctrl-C, so that a role ends its work cleanly; a
/// second one ends the process at once.
pub fn stop_on_signals(stop: &std::sync::Arc<std::sync::atomic::AtomicBool>) -> Result<()> {
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, std::sync::Arc::clone(stop))?;
        signal_hook::flag::register(signal, std::sync::Arc::clone(stop))?;
    }
    Ok(())
}

/// Where actors keep batches that the store has not taken yet: `$XDG_CACHE_HOME` or
/// `~/.cache`, under `zerosum/outbox`, so that an actor restarted on the same machine finds
/// them.
pub fn outbox_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("zerosum").join("outbox")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(game: &str) -> ResolvedConfig {
        let args = GameArgs {
            game: Some(game.to_string()),
            config: None,
            overrides: Vec::new(),
            seed: None,
            device: None,
        };
        args.resolve().expect("the default config resolves").1
    }

    #[test]
    fn every_game_has_a_default_config_that_validates() {
        for name in zerosum_games::registry::game_names() {
            let config = resolve(&name);
            assert_eq!(parse_game(&config.game).unwrap().short_name(), name);
        }
    }

    #[test]
    fn gomoku_9x9_has_a_default_of_its_own() {
        assert_eq!(resolve("gomoku:size=9").game, "gomoku:size=9");
        assert_eq!(resolve("gomoku:size=11").game, "gomoku:size=11");
    }
}
