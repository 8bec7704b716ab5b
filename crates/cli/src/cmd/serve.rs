//! `zerosum serve`: play the agent in a web browser, on a page served on localhost.

use std::io::Write;
use std::net::TcpListener;

use anyhow::{bail, Context, Result};
use zerosum_games::{with_game, Game};
use zerosum_nn::parse_device;
use zerosum_train::ResolvedConfig;

use super::common::{resolve_with_checkpoint, AgentArgs, GameArgs};
use crate::web::api::{Engine, Info};
use crate::web::pool::{AgentFactory, SearchPool};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    /// The port on 127.0.0.1 (the server listens on the loopback only); 0 picks a free one
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The largest simulation count the page may ask for
    #[arg(long, default_value_t = 20_000)]
    pub max_sims: usize,
    /// Threads that search, each with its own agent: games searched at once
    #[arg(long, default_value_t = 2)]
    pub search_threads: usize,
    /// Games kept at once; the least recently used makes room for a new one
    #[arg(long, default_value_t = 256)]
    pub max_games: usize,
}

pub fn run(args: Args) -> Result<()> {
    let (game, config) = resolve_with_checkpoint(&args.game, args.agent.checkpoint.as_deref())?;
    let short_name = game.short_name();
    with_game!(&game, g => serve(g, &short_name, &config, &args))
}

fn serve<G: Game>(
    initial: &G,
    short_name: &str,
    config: &ResolvedConfig,
    args: &Args,
) -> Result<()> {
    let sims = args.agent.sims(config);
    super::common::use_match_threads(config);
    if sims == 0 || sims > args.max_sims {
        bail!(
            "--sims must be in 1..={} (--max-sims), not {sims}",
            args.max_sims
        );
    }
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    let factory = AgentFactory {
        initial: initial.clone(),
        checkpoint: args.agent.checkpoint.clone(),
        search: config.search.clone(),
        device: parse_device(&config.device)?,
        seed: config.seed,
    };
    let pool = SearchPool::start(args.search_threads, factory, sims)?;
    let agent = match &args.agent.checkpoint {
        Some(path) => format!("checkpoint {}", path.display()),
        None => "rollout MCTS".to_string(),
    };
    let info = Info {
        game: initial.name(),
        short_name: short_name.to_string(),
        agent: agent.clone(),
        default_sims: sims,
        max_sims: args.max_sims,
    };
    let engine = Engine::new(initial.clone(), info, pool, args.max_games);
    println!(
        "zerosum serve: {} against {agent} ({sims} simulations a move) at http://127.0.0.1:{port}/",
        initial.name()
    );
    std::io::stdout().flush()?;
    crate::web::serve(listener, engine).context("the server stopped")?;
    Ok(())
}
