//! `zerosum serve`: play the agent in a web browser, on a page served on localhost.

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use zerosum_config::ResolvedConfig;
use zerosum_games::{with_game, Game};
use zerosum_nn::parse_device;

use super::common::{resolve_with_checkpoint, AgentArgs, GameArgs, ResignArgs};
use zerosum_web::api::{Engine, Info};
use zerosum_web::http::{Hosts, Limits};
use zerosum_web::pool::{AgentFactory, SearchPool};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub resign: ResignArgs,
    /// The port (0 picks a free one)
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on: the loopback unless named (0.0.0.0 for every interface;
    /// anyone who can reach it can play, so a warning is printed)
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The largest simulation count the page may ask for
    #[arg(long, value_parser = super::common::positive, default_value_t = 20_000)]
    pub max_sims: usize,
    /// Threads that search, each with its own agent: games searched at once
    #[arg(long, value_parser = super::common::positive, default_value_t = 2)]
    pub search_threads: usize,
    /// Games kept at once; the least recently used makes room for a new one
    #[arg(long, value_parser = super::common::positive, default_value_t = 256)]
    pub max_games: usize,
    /// Minutes a game may sit untouched before it is forgotten
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_minutes: u64,
}

pub fn run(args: Args) -> Result<()> {
    let (game, config) = resolve_with_checkpoint(&args.game, args.agent.named_checkpoint())?;
    let short_name = game.short_name();
    with_game!(&game, g => serve(g, &short_name, &config, &args))
}

fn serve<G: Game>(
    initial: &G,
    short_name: &str,
    config: &ResolvedConfig,
    args: &Args,
) -> Result<()> {
    let chosen = args.agent.choose(&initial.name(), config)?;
    let sims = chosen.sims;
    super::common::use_match_threads(config);
    if sims == 0 || sims > args.max_sims {
        bail!(
            "--sims must be in 1..={} (--max-sims), not {sims}",
            args.max_sims
        );
    }
    let listener = TcpListener::bind((args.host.as_str(), args.port))
        .with_context(|| format!("cannot listen on {}:{}", args.host, args.port))?;
    let address = listener.local_addr()?;
    let hosts = allowed_hosts(address, &args.host);
    let factory = AgentFactory {
        initial: initial.clone(),
        spec: chosen.spec.clone(),
        search: config.search.clone(),
        device: parse_device(&config.device)?,
        seed: config.seed,
    };
    let pool = SearchPool::start(args.search_threads, factory, sims)?;
    chosen.announce();
    let agent = chosen.label;
    let info = Info {
        game: initial.name(),
        short_name: short_name.to_string(),
        agent: agent.clone(),
        default_sims: sims,
        max_sims: args.max_sims,
        resign_below: args.resign.resign_below,
    };
    let engine = Engine::new(initial.clone(), info, pool, args.max_games)
        .forget_after(Duration::from_secs(args.idle_minutes.saturating_mul(60)));
    let shown = if address.ip().is_unspecified() {
        format!("127.0.0.1:{}", address.port())
    } else {
        address.to_string()
    };
    println!(
        "zerosum serve: {} against {agent} ({sims} simulations a move) at http://{shown}/",
        initial.name()
    );
    std::io::stdout().flush()?;
    let limits = Limits {
        hosts,
        ..Limits::default()
    };
    zerosum_web::serve(listener, engine, limits).context("the server stopped")?;
    Ok(())
}

/// The Host headers a server listening on `address` (named `host` on the command line)
/// accepts; warns that anyone who can reach it can play unless it is the loopback.
fn allowed_hosts(address: SocketAddr, host: &str) -> Hosts {
    if address.ip().is_loopback() {
        return Hosts::Loopback;
    }
    eprintln!(
        "warning: listening on {address}, not the loopback: anyone who can reach it can play and use its CPU"
    );
    if address.ip().is_unspecified() {
        Hosts::Any
    } else {
        // A bare IPv6 address is written in brackets in a Host header.
        Hosts::Also(if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.to_string()
        })
    }
}
