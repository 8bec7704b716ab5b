//! `zerosum train`: generations of self-play, learning and evaluation in a run directory.

use std::path::PathBuf;

use anyhow::{bail, Result};
use zerosum_games::registry::parse_game;
use zerosum_games::with_game;
use zerosum_train::{train, LocalStore, RunConfig, RunStore};

use super::common::GameArgs;
use crate::progress::Bars;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    /// The run directory (default runs/<game>)
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Continue the run in --run from its latest checkpoint
    #[arg(long)]
    pub resume: bool,
}

pub fn run(args: Args) -> Result<()> {
    let (game, mut config) = match (&args.run, args.resume) {
        (Some(dir), true) if dir.join("config.toml").exists() => {
            // The run's own config, with any --set overrides on top.
            let text = std::fs::read_to_string(dir.join("config.toml"))?;
            let config = RunConfig::from_toml(&text, &args.game.overrides)?;
            (parse_game(&config.game)?, config)
        }
        _ => args.game.resolve()?,
    };
    if let Some(seed) = args.game.seed {
        config.seed = seed;
    }
    let dir = args
        .run
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(game.short_name()));
    if dir.join("config.toml").exists() && !args.resume {
        bail!("run directory {} already holds a run: pass --resume to continue it, or --run DIR for a new one", dir.display());
    }
    let (errors, warnings) = config.validate();
    if let Some(first) = errors.first() {
        bail!("bad config: {first}");
    }
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let store = LocalStore::open(&dir)?;
    println!(
        "training {} in {} ({} generations{})",
        config.game,
        dir.display(),
        config.generations,
        if config.max_minutes > 0.0 {
            format!(", at most {} minutes", config.max_minutes)
        } else {
            String::new()
        }
    );
    let summary = with_game!(&game, g => train(g, &config, &store, &mut Bars::new()))?;
    println!(
        "done: generation {}, {} steps, {:.0}s of training; latest checkpoint {}",
        summary.generation,
        summary.steps,
        summary.seconds,
        store.local_path("checkpoints/latest").display()
    );
    Ok(())
}
