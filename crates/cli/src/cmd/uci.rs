//! `zerosum uci`: the Universal Chess Interface on stdin and stdout, for chess.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::chess::Chess;
use zerosum_games::registry::AnyGame;
use zerosum_games::Game;
use zerosum_nn::{parse_device, Device, NetEvaluator};
use zerosum_search::{Algorithm, EvalCache, Evaluator, RolloutEvaluator};

use super::common::{resolve_with_checkpoint, ConfigArgs, GameArgs};
use zerosum_protocols::uci::{run_loop, Output, Searcher, UciEngine, UciSettings};

/// UCI speaks chess only, so it takes the shared flags of [`GameArgs`] less `--game`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub settings: ConfigArgs,
    /// A trained chess checkpoint; without it, the shipped chess model plays (`zerosum
    /// models`), or rollout MCTS where none fits the game
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Simulations per move of a `go` that names no limit (the Nodes option's default):
    /// the shipped model's own, else 400
    #[arg(long, value_parser = super::common::positive)]
    pub sims: Option<usize>,
    /// The longest any search thinks, in seconds, whatever `go` asks for
    #[arg(long, value_parser = super::common::search_seconds, default_value_t = 600)]
    pub max_search_seconds: usize,
}

/// Simulations a move when neither `--sims` nor a shipped model gives them.
const DEFAULT_UCI_SIMS: usize = 400;

pub fn run(args: Args) -> Result<()> {
    // Chess, unless a config or a checkpoint names the game (and is refused if not chess).
    let game_args = GameArgs {
        game: (args.settings.config.is_none() && args.checkpoint.is_none())
            .then(|| Chess::new().name()),
        settings: args.settings.clone(),
    };
    if let Some(sims) = args.sims.filter(|sims| !(1..=1_000_000).contains(sims)) {
        bail!("--sims must be from 1 to 1000000, got {sims}");
    }
    let (game, config) = resolve_with_checkpoint(&game_args, args.checkpoint.as_deref())?;
    super::common::use_match_threads(&config);
    let AnyGame::Chess(initial) = game else {
        bail!("uci plays chess only, not {}", game.name());
    };
    let device = parse_device(&config.device)?;
    let (evaluator, shipped_sims) = evaluator(&args, &initial, &config, device)?;
    let sims = args.sims.or(shipped_sims).unwrap_or(DEFAULT_UCI_SIMS);
    // Without a network the engine is the fixed `mcts:N` player, whatever the config says.
    let rollouts = args.checkpoint.is_none() && shipped_sims.is_none();
    let mut search = if rollouts {
        zerosum_players::players::rollout_search()
    } else {
        config.search.clone()
    };
    // The Gumbel root plans a fixed budget up front; a UCI search stops when told.
    search.algorithm = Algorithm::Puct;
    let searcher = Searcher {
        evaluator,
        cache: EvalCache::new(search.cache_capacity),
        config: search,
        rng: SmallRng::seed_from_u64(config.seed),
    };
    let out: Output = Arc::new(Mutex::new(Box::new(std::io::stdout())));
    let settings = UciSettings {
        nodes: sims,
        max_search: std::time::Duration::from_secs(args.max_search_seconds as u64),
        ..UciSettings::default()
    };
    let mut engine = UciEngine::new(initial, searcher, out, settings);
    run_loop(&mut engine, std::io::BufReader::new(std::io::stdin()))?;
    Ok(())
}

/// Which network plays (`--checkpoint`, else the shipped model, else rollouts), and the
/// shipped model's budget, which counts unless `--sims` says otherwise; says which plays
/// once it has loaded, unless the checkpoint does.
fn evaluator(
    args: &Args,
    initial: &Chess,
    config: &ResolvedConfig,
    device: Device,
) -> Result<(Box<dyn Evaluator<Chess> + Send>, Option<usize>)> {
    let shipped = match &args.checkpoint {
        Some(_) => None,
        None => zerosum_players::shipped::load_for(initial, device)?,
    };
    let (evaluator, shipped_sims, note): (Box<dyn Evaluator<_> + Send>, _, _) =
        match (&args.checkpoint, shipped) {
            (Some(path), _) => {
                let model = zerosum_store::checkpoints::load_location(
                    &path.to_string_lossy(),
                    initial,
                    device,
                )?;
                (Box::new(NetEvaluator::new(model, initial)), None, None)
            }
            (None, Some((model, network))) => (
                Box::new(NetEvaluator::new(network, initial)),
                Some(model.sims),
                Some(model.plays(&initial.name())),
            ),
            (None, None) => (
                Box::new(RolloutEvaluator::new(config.seed, 1)),
                None,
                Some(format!(
                    "{}: rollout MCTS plays",
                    zerosum_players::shipped::none_for(&initial.name())
                )),
            ),
        };
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    Ok((evaluator, shipped_sims))
}
