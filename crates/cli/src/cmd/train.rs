//! `zerosum train`: generations of self-play, learning and evaluation in a run directory.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use zerosum_games::with_game;
use zerosum_train::{train, LocalStore, RunConfig, RunStore};

use super::common::{resolve_config, GameArgs};
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
    // The run directory first: a run that exists continues with its own config (and any
    // --set on top), however the directory was named.
    let (dir, resolved) = match &args.run {
        Some(dir) => (dir.clone(), None),
        None => {
            let (game, config) = args.game.resolve()?;
            (
                PathBuf::from("runs").join(game.short_name()),
                Some((game, config)),
            )
        }
    };
    let existing = dir.join("config.toml");
    let (game, config) = if existing.exists() {
        if !args.resume {
            bail!(
                "run directory {} already holds a run: pass --resume to continue it, or --run DIR for a new one",
                dir.display()
            );
        }
        let text = std::fs::read_to_string(&existing)
            .with_context(|| format!("cannot read {}", existing.display()))?;
        resolve_config(RunConfig::from_toml(&text, &args.game.overrides)?)?
    } else {
        match resolved {
            Some(resolved) => resolved,
            None => args.game.resolve()?,
        }
    };
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
