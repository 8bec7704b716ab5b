//! `zerosum gtp`: the Go Text Protocol on stdin and stdout.

use anyhow::Result;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::registry::FromAnyGame;
use zerosum_games::{with_game, Game};
use zerosum_nn::parse_device;
use zerosum_players::{build_agent, PlayerSpec};

use super::common::{
    default_player, resolve_with_checkpoint, AgentArgs, Chosen, GameArgs, ResignArgs,
};
use zerosum_protocols::gtp::{registry_rebuild, run_loop, GtpEngine, Repick};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub resign: ResignArgs,
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
    // `boardsize` and `komi` rebuild the game through the registry. A network named by the
    // user plays only the board it was trained on; the player picked for the user who named
    // none (or `--agent shipped`) is picked again for the new game.
    let rebuild = registry_rebuild::<G>();
    let shape = (initial.num_actions(), initial.obs_shape());
    let named_network = matches!(chosen.spec, PlayerSpec::Checkpoint { .. });
    let label = chosen.label.clone();
    let mut engine = GtpEngine::new(initial.clone(), agent, SmallRng::seed_from_u64(config.seed))
        .with_rebuild(Box::new(move |game: &G, key: &str, value: &str| {
            let rebuilt = rebuild(game, key, value)?;
            if named_network && (rebuilt.num_actions(), rebuilt.obs_shape()) != shape {
                return Err(format!("{label} plays {} only", game.name()));
            }
            Ok(rebuilt)
        }));
    if chosen.is_default() || matches!(chosen.spec, PlayerSpec::Shipped { .. }) {
        engine = engine.with_repick(repick(initial, chosen, args.agent.sims, config)?);
    }
    if let Some(resignation) = args.resign.resignation() {
        engine = engine.with_resignation(resignation);
    }
    run_loop(
        &mut engine,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
    )?;
    Ok(())
}

/// Picks the player again for each game `boardsize` or `komi` makes: the board's shipped
/// model ([`default_player`]), said on stderr when it changes. Where no model fits, rollout
/// MCTS plays for the user who named no player, and `--agent shipped` refuses the game.
fn repick<G: Game>(
    initial: &G,
    chosen: Chosen,
    sims: Option<usize>,
    config: &ResolvedConfig,
) -> Result<Repick<G>> {
    let search = config.search.clone();
    let device = parse_device(&config.device)?;
    let seed = config.seed;
    let rollout_allowed = chosen.is_default();
    // `--agent shipped:sims=N` keeps its N on every board.
    let sims = match chosen.spec {
        PlayerSpec::Shipped { sims: Some(n), .. } if !rollout_allowed => sims.or(Some(n)),
        _ => sims,
    };
    let mut playing = default_player(&initial.name(), sims)?.label;
    Ok(Box::new(move |game: &G| {
        let name = game.name();
        let picked = default_player(&name, sims).map_err(|e| e.to_string())?;
        if picked.label == playing {
            return Ok(None);
        }
        if !rollout_allowed && !matches!(picked.spec, PlayerSpec::Shipped { .. }) {
            return Err(zerosum_players::shipped::none_for(&name));
        }
        let agent = build_agent(&picked.spec, game, &search, picked.sims, device, seed)
            .map_err(|e| e.to_string())?;
        picked.announce();
        playing = picked.label;
        Ok(Some(agent))
    }))
}
