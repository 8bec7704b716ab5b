//! `zerosum distill RUN`: a fresh network, of the run's shape or another, trained through the
//! run's games oldest first (AlphaPush's curriculum), then measured against the run's last
//! checkpoint and against the same network trained as long on the last window only.

use std::path::PathBuf;

use anyhow::Result;
use zerosum_games::with_game;
use zerosum_train::distill::{distill, markdown, DistillSettings};

use crate::progress::Phases;

#[derive(clap::Args)]
pub struct Args {
    /// The finished run whose games the networks learn from (runs/NAME or a URL)
    pub run: String,
    /// Where the two networks (DIR/curriculum, DIR/window) and the table (DIR/distill.md) go
    #[arg(long)]
    pub out: PathBuf,
    /// Change the run's config for the new networks, `[model]` above all:
    /// `--set model.channels=64 --set model.blocks=6` (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
    /// Games of each match
    #[arg(long, value_parser = super::common::positive, default_value_t = 100)]
    pub games: usize,
    /// Simulations per move of every player in the matches (default: the run's arena.num_simulations)
    #[arg(long, value_parser = super::common::positive)]
    pub sims: Option<usize>,
    /// Random opening moves of each pair of games, one game with each colour
    #[arg(long, default_value_t = 2)]
    pub opening_plies: usize,
}

pub fn run(args: Args) -> Result<()> {
    let zerosum_train::OpenRun {
        store,
        game,
        config,
        ..
    } = super::common::join_run(&args.run, &args.overrides)?;
    let settings = DistillSettings {
        out: args.out.clone(),
        games: args.games,
        sims: args.sims.unwrap_or(config.arena.num_simulations),
        opening_plies: args.opening_plies,
    };
    println!(
        "distilling {} into a {} network: {} games a match at {} simulations",
        args.run,
        config.model.describe(),
        settings.games,
        settings.sims
    );
    let report = with_game!(&game, g => distill(g, &store, &config, &settings, &mut Phases::default(), |line| println!("{line}")))?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let table = markdown(&report);
    std::fs::write(
        args.out.join("distill.md"),
        format!(
            "# {}: curriculum against the run\n\nCommand: `{command}`\n\n{table}",
            args.run
        ),
    )?;
    println!("\n{table}");
    println!("written to {}", args.out.join("distill.md").display());
    Ok(())
}
