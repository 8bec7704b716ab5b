//! `zerosum ladder RUN`: rates a run's checkpoints against each other and fixed anchors.

use anyhow::Result;
use zerosum_games::with_game;
use zerosum_players::arena::{count, signed_elo};
use zerosum_players::PlayerSpec;
use zerosum_store::names;
use zerosum_train::{run_ladder, LadderOptions};

use crate::progress::Console;

#[derive(clap::Args)]
pub struct Args {
    /// The run (runs/NAME, or an s3:// gs:// az:// URL)
    pub run: String,
    /// Games per match; colours alternate, so an even number is fairest
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Fixed players, comma-separated: random (always included, rated 0), mcts:N, perfect
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,mcts:100,mcts:1000"
    )]
    pub anchors: Vec<String>,
    /// Seed of every game (default: the run's seed); the same seed gives the same ratings
    #[arg(long)]
    pub seed: Option<u64>,
    /// Simulations per move of the checkpoints' search (default: the run's arena.num_simulations)
    #[arg(long, value_parser = super::common::positive)]
    pub sims: Option<usize>,
    /// Random opening moves of each pair of games, played once with each colour (default:
    /// the run's arena.opening_plies); without them two checkpoints replay the same games
    #[arg(long)]
    pub opening_plies: Option<usize>,
}

pub fn run(args: Args) -> Result<()> {
    // The ladder writes its ratings into the run: it joins it as its other roles do.
    let zerosum_train::OpenRun {
        store,
        game,
        config,
        ..
    } = super::common::join_run(&args.run, &[])?;
    let anchors = args
        .anchors
        .iter()
        .filter(|a| !a.trim().is_empty())
        .map(|a| a.trim().parse::<PlayerSpec>())
        .collect::<Result<Vec<_>, _>>()?;
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    let options = LadderOptions {
        games: args.games,
        anchors,
        seed: args.seed.unwrap_or(config.seed),
        num_simulations: args.sims.unwrap_or(config.arena.num_simulations),
        opening_plies: args.opening_plies.unwrap_or(config.arena.opening_plies),
    };
    let report =
        with_game!(&game, g => run_ladder(g, &config, &store, &options, &mut Console::new()))?;
    for m in &report.matches {
        println!("  {m}");
    }
    println!(
        "ladder {} (seed {}), random = 0:",
        report.ladder, options.seed
    );
    for entry in &report.entries {
        println!(
            "  {:<12} {:>6}  [{}, {}]  {}",
            entry.player.name,
            signed_elo(entry.rating.elo),
            signed_elo(entry.rating.low),
            signed_elo(entry.rating.high),
            count(entry.games as usize, "game")
        );
    }
    if let Some(line) = report.headline() {
        println!("{line}");
    }
    println!(
        "ratings recorded in {} as ladder events; `zerosum report {}` plots them",
        store.display(names::METRICS),
        args.run
    );
    Ok(())
}
