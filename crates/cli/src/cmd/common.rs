//! Flags and helpers that several subcommands share.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use zerosum_config::toml_string;
use zerosum_config::{ResolvedConfig, RunConfig};
use zerosum_games::registry::{parse_game, AnyGame};
use zerosum_train::{open_run, NewRun, OpenRequest, OpenRun, Opening};

/// The game, config and seed flags.
#[derive(clap::Args, Clone, Debug)]
pub struct GameArgs {
    /// The game: tictactoe, connect4, gomoku, oware, go, pushfight, chess; parameters after a
    /// colon (connect4:rows=6,cols=7, go:size=9,komi=7.5)
    #[arg(long, short)]
    pub game: Option<String>,
    #[command(flatten)]
    pub settings: ConfigArgs,
}

/// The config, seed and device flags, for commands whose game is fixed (`uci`) as for
/// those that name one ([`GameArgs`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ConfigArgs {
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
    /// The config a new run of these flags starts from: the game's default config (or
    /// --config), with --game, --seed and --device set in it (the --set overrides are
    /// applied on top by whoever resolves it).
    pub fn new_run(&self) -> Result<NewRun> {
        let ConfigArgs {
            config,
            seed,
            device,
            ..
        } = &self.settings;
        let text = match config {
            Some(path) => std::fs::read_to_string(path)
                .with_context(|| format!("cannot read config {}", path.display()))?,
            None => {
                let Some(game) = &self.game else {
                    bail!(
                        "name a game with --game ({}) or a config with --config",
                        zerosum_games::registry::game_names().join(", ")
                    )
                };
                zerosum_config::default_config(game)?
            }
        };
        let mut settings = Vec::new();
        if let Some(game) = &self.game {
            settings.push(format!("game={}", toml_string(game)));
        }
        if let Some(seed) = seed {
            settings.push(format!("seed={seed}"));
        }
        if let Some(device) = device {
            settings.push(format!("device={}", toml_string(device)));
        }
        Ok(NewRun { text, settings })
    }

    /// Whether the flags name a game or a config, from which a new run can start.
    pub fn names_a_config(&self) -> bool {
        self.game.is_some() || self.settings.config.is_some()
    }

    /// Resolves the config of a command that runs no run: the new run's config with the
    /// --set overrides.
    pub fn resolve(&self) -> Result<(AnyGame, ResolvedConfig)> {
        let new = self.new_run()?;
        let settings: Vec<String> = new
            .settings
            .into_iter()
            .chain(self.settings.overrides.clone())
            .collect();
        resolve_config(RunConfig::from_toml(&new.text, &settings)?)
    }
}

/// The one place a command's config is checked: the config resolved, its game built, and
/// each of its warnings printed on a line of its own.
pub fn resolve_config(config: RunConfig) -> Result<(AnyGame, ResolvedConfig)> {
    let game = parse_game(&config.game)?;
    let config = config.resolve()?;
    print_warnings(config.warnings());
    Ok((game, config))
}

/// Resolves the game and config for commands that may name a checkpoint: without
/// --game, the checkpoint's own game is used.
pub fn resolve_with_checkpoint(
    args: &GameArgs,
    checkpoint: Option<&std::path::Path>,
) -> Result<(AnyGame, ResolvedConfig)> {
    if args.names_a_config() {
        return args.resolve();
    }
    let Some(path) = checkpoint else {
        return args.resolve();
    };
    let meta = zerosum_store::checkpoints::meta_at(&path.to_string_lossy())?;
    let mut args = args.clone();
    args.game = Some(meta.game);
    args.resolve()
}

/// The agent a front end (play, gtp, serve) puts up: a checkpoint with search, any other
/// player, or by default the model shipped for the game (rollout MCTS where none is), so
/// that every front end plays well before any training.
#[derive(clap::Args)]
pub struct AgentArgs {
    /// A trained checkpoint (runs/NAME/checkpoints/latest, a run, or an s3:// gs:// az://
    /// URL of either); without it, the game's shipped model plays (`zerosum models`), or
    /// rollout MCTS where no model fits the game
    #[arg(long, conflicts_with = "agent")]
    pub checkpoint: Option<PathBuf>,
    /// Any player in place of the shipped model: mcts:1000, uct:5000, random, shipped,
    /// checkpoint:PATH, gtp:PROGRAM ARGS
    #[arg(long)]
    pub agent: Option<zerosum_players::PlayerSpec>,
    /// Simulations per agent move
    #[arg(long, value_parser = positive)]
    pub sims: Option<usize>,
}

/// Resignation in the front ends that play a whole game against someone (`gtp`, `play`,
/// `serve`).
#[derive(clap::Args)]
pub struct ResignArgs {
    /// Resign once the agent's own value of the game has been at or below this for 3 of its
    /// moves in a row: from -1 (only lost games the search has proven) up to 0; by default
    /// the agent plays every game to its end
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true, value_parser = zerosum_players::resign::parse_threshold)]
    pub resign_below: Option<f32>,
}

impl ResignArgs {
    /// The rule the user asked for, if any.
    pub fn resignation(&self) -> Option<zerosum_players::resign::Resignation> {
        self.resign_below
            .map(zerosum_players::resign::Resignation::new)
    }
}

/// The player a front end puts up, and the simulations it searches a move.
pub struct Chosen {
    /// The player.
    pub spec: zerosum_players::PlayerSpec,
    /// Simulations (or playouts) per move.
    pub sims: usize,
    /// What plays, in words (`the shipped model go-5x5`).
    pub label: String,
    /// Which player was picked for the user who named none, said once it is ready.
    note: Option<String>,
}

impl Chosen {
    /// Whether the player is the one picked for the user who named none, which a front end
    /// picks again for another game ([`default_player`]).
    pub fn is_default(&self) -> bool {
        self.note.is_some()
    }

    /// Says on stderr which player was picked, where the user named none: call it once
    /// the player is built, so that a failure is the only line.
    pub fn announce(&self) {
        if let Some(note) = &self.note {
            eprintln!("note: {note}");
        }
    }
}

impl AgentArgs {
    /// The checkpoint the agent reads, where one was named: its game is the default.
    pub fn named_checkpoint(&self) -> Option<&std::path::Path> {
        match (&self.checkpoint, &self.agent) {
            (Some(path), _) => Some(path),
            (None, Some(zerosum_players::PlayerSpec::Checkpoint { path, .. })) => Some(path),
            _ => None,
        }
    }

    /// The agent for the game named `game`: `--checkpoint`, else `--agent`, else the model
    /// shipped for the game at its own simulations, else rollout MCTS. Without a player
    /// named, [`Chosen::announce`] says which plays.
    pub fn choose(&self, game: &str, config: &ResolvedConfig) -> Result<Chosen> {
        use zerosum_players::PlayerSpec;
        let play_sims = self.sims.unwrap_or(config.play_simulations());
        if let Some(path) = &self.checkpoint {
            return Ok(Chosen {
                spec: PlayerSpec::Checkpoint {
                    path: path.clone(),
                    sims: Some(play_sims),
                    tuning: Default::default(),
                },
                sims: play_sims,
                label: format!("checkpoint {}", path.display()),
                note: None,
            });
        }
        if let Some(spec) = &self.agent {
            let sims = match (spec, self.sims) {
                (_, Some(sims)) => sims,
                (PlayerSpec::Mcts { sims }, None) => *sims,
                (PlayerSpec::Mc { playouts } | PlayerSpec::Uct { playouts, .. }, None) => *playouts,
                (PlayerSpec::Shipped { sims: None, .. }, None) => shipped_sims(game)?,
                (
                    PlayerSpec::Shipped {
                        sims: Some(sims), ..
                    },
                    None,
                ) => *sims,
                (_, None) => play_sims,
            };
            let spec = match self.sims {
                Some(sims) => spec.with_sims(sims),
                None => spec.clone(),
            };
            return Ok(Chosen {
                label: spec.to_string(),
                spec,
                sims,
                note: None,
            });
        }
        default_player(game, self.sims)
    }
}

/// The player a front end puts up where the user named none: the model shipped for `game`
/// (at its own simulations, or `sims`), else rollout MCTS; [`Chosen::announce`] says which.
pub fn default_player(game: &str, sims: Option<usize>) -> Result<Chosen> {
    use zerosum_players::PlayerSpec;
    Ok(match zerosum_players::shipped::for_game(game)? {
        Some(model) => {
            let sims = sims.unwrap_or(model.sims);
            Chosen {
                spec: PlayerSpec::Shipped {
                    sims: Some(sims),
                    tuning: Default::default(),
                },
                sims,
                note: Some(format!(
                    "{}, {sims} simulations a move (--agent mcts:{DEFAULT_ROLLOUT_SIMS} for plain MCTS)",
                    model.plays(game)
                )),
                label: format!("the shipped model {}", model.name),
            }
        }
        None => {
            let sims = sims.unwrap_or(DEFAULT_ROLLOUT_SIMS);
            Chosen {
                spec: PlayerSpec::Mcts { sims },
                sims,
                label: "rollout MCTS".to_string(),
                note: Some(format!(
                    "{}: rollout MCTS plays, mcts:{sims}",
                    zerosum_players::shipped::none_for(game)
                )),
            }
        }
    })
}

/// The simulations of the model shipped for `game`.
fn shipped_sims(game: &str) -> Result<usize> {
    match zerosum_players::shipped::for_game(game)? {
        Some(model) => Ok(model.sims),
        None => bail!(zerosum_players::shipped::none_for(game)),
    }
}

/// Gives libtorch the threads of a command that searches one position per network call
/// (arena, accuracy, play, gtp, serve, uci): [`zerosum_players::match_torch_threads`].
pub fn use_match_threads(config: &ResolvedConfig) {
    zerosum_nn::set_torch_threads(zerosum_players::match_torch_threads(config.torch_threads));
}

pub use zerosum_players::players::DEFAULT_ROLLOUT_SIMS;

/// Parses a count that must be at least 1 (simulations, say).
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "expected a whole number of at least 1, got '{text}'"
        )),
    }
}

/// A number of minutes: positive and finite.
pub fn positive_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(minutes) if minutes > 0.0 && minutes.is_finite() => Ok(minutes),
        _ => Err(format!(
            "expected a positive number of minutes, got '{text}'"
        )),
    }
}

/// The longest a search may be asked to think: a year, far inside what a clock can add.
const MAX_SEARCH_SECONDS: usize = 365 * 24 * 3600;

/// A search's time limit in whole seconds: at least 1, at most a year.
pub fn search_seconds(text: &str) -> Result<usize, String> {
    match positive(text)? {
        n if n <= MAX_SEARCH_SECONDS => Ok(n),
        _ => Err(format!(
            "expected at most {MAX_SEARCH_SECONDS} seconds (a year), got '{text}'"
        )),
    }
}

/// Opens the run at `location` for a role that joins it (actor, evaluator, ladder,
/// distill), with `overrides` on top of its config; prints the config's warnings.
pub fn join_run(location: &str, overrides: &[String]) -> Result<OpenRun> {
    let run = open_run(&OpenRequest {
        location: location.to_string(),
        opening: Opening::Join,
        overrides: overrides.to_vec(),
        game: None,
    })?;
    print_warnings(&run.warnings);
    Ok(run)
}

/// Prints each of a config's warnings on a line of its own.
pub fn print_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
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
            settings: ConfigArgs::default(),
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
    fn gomoku_9x9_and_go_9x9_have_defaults_of_their_own() {
        assert_eq!(resolve("gomoku:size=9").game, "gomoku:size=9");
        assert_eq!(resolve("gomoku:size=11").game, "gomoku:size=11");
        let go = resolve("go:size=9,komi=7.5");
        let full_name = parse_game(&go.game).unwrap().name();
        assert_eq!(full_name, "go:size=9,komi=7.5,max_moves=162");
        assert_eq!(
            go.search.algorithm,
            zerosum_search::Algorithm::Gumbel,
            "configs/go-9x9.toml"
        );
        assert_eq!(
            resolve("go:size=7").search.num_simulations,
            96,
            "configs/go.toml"
        );
        // The recipe continues the shipped model: its tower has that model's shape.
        let shipped = zerosum_players::shipped::for_game(&full_name)
            .unwrap()
            .unwrap();
        assert_eq!(shipped.meta.model, go.model);
    }
}
