//! `zerosum train`: the learner of a run (and, on one machine, its actors and evaluator).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Result};
use zerosum_games::with_game;
use zerosum_train::{layout, train_with, Mode, RunConfig, RunStore, TrainError, TrainOptions};

use super::common::{outbox_dir, resolve_config, stop_on_signals, GameArgs};
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

/// Refuses a resume that would train another game than the run's (the learner refuses
/// another network, against its checkpoints).
fn check_same_game(
    stored: &RunConfig,
    config: &RunConfig,
    game: Option<&str>,
    location: &str,
) -> Result<()> {
    let full = |spec: &str| zerosum_games::registry::parse_game(spec).map(|g| g.name());
    let run_game = full(&stored.game)?;
    for asked in game.into_iter().chain([config.game.as_str()]) {
        if full(asked)? != run_game {
            bail!("{location} trains {run_game}, not {asked}: a run's game is fixed");
        }
    }
    Ok(())
}

pub fn run(mut args: Args) -> Result<()> {
    if let Some(init) = &args.init {
        if args.resume {
            bail!("--init starts a new run; a run that exists resumes from its own checkpoints");
        }
        let init = format!("init={}", zerosum_train::config::toml_string(init));
        args.game.overrides.push(init);
    }
    // The run first: a run that exists continues with its own config (and any --set on
    // top), however it was named.
    let (location, resolved) = match &args.run {
        Some(location) => (location.clone(), None),
        None => {
            let (game, config) = args.game.resolve()?;
            (format!("runs/{}", game.short_name()), Some((game, config)))
        }
    };
    let store = RunStore::create(&location)?;
    let (game, config) = match store.get_text(layout::CONFIG)? {
        Some(text) => {
            if !args.resume {
                bail!(
                    "{location} already holds a run: pass --resume to continue it, or --run for a new one"
                );
            }
            let stored = RunConfig::from_toml(&text, &[])?;
            let config = RunConfig::from_toml(&text, &args.game.overrides)?;
            check_same_game(&stored, &config, args.game.game.as_deref(), &location)?;
            resolve_config(config)?
        }
        None => match resolved {
            Some(resolved) => resolved,
            None => args.game.resolve()?,
        },
    };
    // Actor threads are an asynchronous run's: naming them makes the run asynchronous.
    let config = match args.actors {
        Some(_) if config.mode == Mode::Sync => RunConfig {
            mode: Mode::Async,
            ..(*config).clone()
        }
        .resolve()?,
        _ => config,
    };
    println!(
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
                args.actors.unwrap_or(config.self_play.threads)
            ),
        }
    );
    let options = TrainOptions {
        actors: args.actors,
        evaluate: !args.no_evaluate,
        outbox: outbox_dir(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(&stop)?;
    let mut console = Console::new().stopping_on(stop);
    let result = with_game!(&game, g => train_with(g, &config, &store, &options, &mut console));
    let summary = match result {
        Err(TrainError::Interrupted) => {
            let saved = console.generation();
            println!("stopped with generation {saved} saved: `zerosum train --run {location} --resume` goes on");
            return Ok(());
        }
        result => result?,
    };
    println!(
        "done: generation {}, {} steps, {:.0}s of training; latest checkpoint {}",
        summary.generation,
        summary.steps,
        summary.seconds,
        store.display(layout::LATEST)
    );
    Ok(())
}
