//! `zerosum evaluate --run URL --follow`: the evaluator of a run on its own machine.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Result};
use zerosum_games::with_game;
use zerosum_train::evaluation;

use super::common::join_run;
use crate::progress::Console;

#[derive(clap::Args)]
pub struct Args {
    /// The run (a directory or s3://, gs://, az://, file:// URL)
    #[arg(long)]
    pub run: String,
    /// Keep following the run as the learner publishes (default: evaluate what is there,
    /// then stop)
    #[arg(long)]
    pub follow: bool,
    /// Override a setting of the run's config (key=value), e.g. arena.games=50
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    let zerosum_train::OpenRun {
        store,
        game,
        config,
        ..
    } = join_run(&args.run, &args.overrides)?;
    if config.arena.every == 0 {
        bail!(
            "{}: the run evaluates nothing (arena.every = 0); pass --set arena.every=N",
            args.run
        );
    }
    zerosum_nn::init_torch(config.seed, config.torch_threads);
    let stop = Arc::new(AtomicBool::new(false));
    super::common::stop_on_signals(&stop)?;
    let done = with_game!(&game, g => evaluation::follow(g, &config, &store, &stop, args.follow, &mut Console::new()))?;
    println!(
        "evaluated {} checkpoints: {:?}; {}",
        done.len(),
        done,
        store.requests()
    );
    Ok(())
}
