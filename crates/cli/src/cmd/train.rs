//! `zerosum train`: the learner of a run (and, on one machine, its actors and evaluator).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Result};
use zerosum_config::{Mode, RunConfig};
use zerosum_games::registry::parse_game;
use zerosum_games::with_game;
use zerosum_store::names;
use zerosum_train::{
    open_run, train_with, NewRun, OpenRequest, OpenRun, Opening, TrainError, TrainOptions,
};

use super::common::{outbox_dir, print_warnings, stop_on_signals, GameArgs};
use crate::progress::Console;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    /// The run: a directory, or object storage (s3://BUCKET/PATH, gs://, az://, file://);
    /// default runs/<game>
    #[arg(long)]
    pub run: Option<String>,
    /// Continue the run in --run from its latest checkpoint
    #[arg(long)]
    pub resume: bool,
    /// Actor threads in this process; makes the run asynchronous (mode = "async"), and 0
    /// leaves all self-play to `zerosum actor` processes
    #[arg(long)]
    pub actors: Option<usize>,
    /// Leave evaluation to a `zerosum evaluate --follow` process
    #[arg(long)]
    pub no_evaluate: bool,
    /// Start a new run from this checkpoint's weights (a run, checkpoints/latest, NAME, or
    /// a URL of any) instead of a random network; its game and network shape must be the
    /// run's
    #[arg(long, value_name = "PATH")]
    pub init: Option<String>,
}

pub fn run(mut args: Args) -> Result<()> {
    if let Some(init) = &args.init {
        if args.resume {
            bail!("--init starts a new run; a run that exists resumes from its own checkpoints");
        }
        let init = format!("init={}", zerosum_config::toml_string(init));
        args.game.settings.overrides.push(init);
    }
    // Actor threads are an asynchronous run's: naming them makes the run asynchronous.
    if args.actors.is_some() {
        let mode = format!("mode={}", zerosum_config::toml_string("async"));
        args.game.settings.overrides.push(mode);
    }
    let (location, new) = location(&args)?;
    let OpenRun {
        store,
        game,
        config,
        warnings,
    } = open_run(&OpenRequest {
        location: location.clone(),
        opening: Opening::Learner {
            new,
            resume: args.resume,
        },
        overrides: args.game.settings.overrides.clone(),
        game: args.game.game.clone(),
    })?;
    print_warnings(&warnings);
    println!("{}", training_line(&config, &location, args.actors));
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(&stop)?;
    let options = TrainOptions {
        actors: args.actors,
        evaluate: !args.no_evaluate,
        outbox: outbox_dir(),
        stop: Arc::clone(&stop),
    };
    let mut console = Console::new().noting_stop(stop);
    let result = with_game!(&game, g => train_with(g, &config, &store, &options, &mut console));
    let summary = match result {
        Err(TrainError::Interrupted) => {
            let saved = console.generation();
            println!("stopped with generation {saved} saved: `zerosum train --run {location} --resume` goes on");
            return Ok(());
        }
        // A run refused before it wrote anything (a device that is not there, say) leaves
        // no empty folder behind.
        result => result.inspect_err(|_| store.remove_if_unused())?,
    };
    println!(
        "done: generation {}, {} steps, {:.0}s of training; latest checkpoint {}",
        summary.generation,
        summary.steps,
        summary.seconds,
        store.display(names::LATEST)
    );
    Ok(())
}

/// The run's location and, for a new run or one given a config, the run to create: a run
/// that exists continues with its own config (and any --set on top), however it was named;
/// without --run, the new run's game names it.
fn location(args: &Args) -> Result<(String, Option<NewRun>)> {
    Ok(match &args.run {
        Some(location) => {
            let named = args.game.names_a_config();
            (
                location.clone(),
                named.then(|| args.game.new_run()).transpose()?,
            )
        }
        None => {
            let new = args.game.new_run()?;
            let game = parse_game(&new.config()?.game)?;
            (format!("runs/{}", game.short_name()), Some(new))
        }
    })
}

/// `training GAME in LOCATION (...)`: the run's length and mode, with `actors` threads
/// here (default: the config's) when it is asynchronous.
fn training_line(config: &RunConfig, location: &str, actors: Option<usize>) -> String {
    format!(
        "training {} in {} ({} generations{}, {})",
        config.game,
        location,
        config.generations,
        if config.max_minutes > 0.0 {
            format!(", at most {} minutes", config.max_minutes)
        } else {
            String::new()
        },
        match config.mode {
            Mode::Sync => "synchronous".to_string(),
            Mode::Async => format!(
                "asynchronous, {} actor threads here",
                actors.unwrap_or(config.self_play.threads)
            ),
        }
    )
}
