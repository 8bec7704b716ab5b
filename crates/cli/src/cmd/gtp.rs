//! `zerosum gtp`: the Go Text Protocol on stdin and stdout.

use anyhow::Result;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::registry::FromAnyGame;
use zerosum_games::{with_game, Game};
use zerosum_nn::parse_device;
use zerosum_train::{build_agent, PlayerSpec, ResolvedConfig};

use super::common::{resolve_with_checkpoint, AgentArgs, GameArgs};
use crate::protocol::gtp::{registry_rebuild, run_loop, GtpEngine};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
}

pub fn run(args: Args) -> Result<()> {
    let (game, config) = resolve_with_checkpoint(&args.game, args.agent.named_checkpoint())?;
    with_game!(&game, g => serve(g, &config, &args))
}

fn serve<G: Game + FromAnyGame>(initial: &G, config: &ResolvedConfig, args: &Args) -> Result<()> {
    let chosen = args.agent.choose(&initial.name(), config)?;
    super::common::use_match_threads(config);
    let agent = build_agent(
        &chosen.spec,
        initial,
        &config.search,
        chosen.sims,
        parse_device(&config.device)?,
        config.seed,
    )?;
    chosen.announce();
    // `boardsize` and `komi` rebuild the game through the registry; a network plays only
    // the board it was trained on, so with a network the shape must stay.
    let rebuild = registry_rebuild::<G>();
    let shape = (initial.num_actions(), initial.obs_shape());
    let fixed_shape = matches!(
        chosen.spec,
        PlayerSpec::Checkpoint { .. } | PlayerSpec::Shipped { .. }
    );
    let label = chosen.label;
    let mut engine = GtpEngine::new(initial.clone(), agent, SmallRng::seed_from_u64(config.seed))
        .with_rebuild(Box::new(move |game: &G, key: &str, value: &str| {
            let rebuilt = rebuild(game, key, value)?;
            if fixed_shape && (rebuilt.num_actions(), rebuilt.obs_shape()) != shape {
                return Err(format!("{label} plays {} only", game.name()));
            }
            Ok(rebuilt)
        }));
    run_loop(
        &mut engine,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
    )?;
    Ok(())
}
