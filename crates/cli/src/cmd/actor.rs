//! `zerosum actor --run URL`: self-play for a run on any machine, joining or leaving at any
//! time. SIGTERM or Ctrl-C ends it after one last upload of its outbox, with exit code 0.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Result};
use zerosum_games::with_game;
use zerosum_train::actor::{default_actor_id, outbox_for};
use zerosum_train::{Actor, ActorOptions};

use crate::progress::Console;

use super::common::{join_run, outbox_dir};

#[derive(clap::Args)]
pub struct Args {
    /// The run to play for (a directory or s3://, gs://, az://, file:// URL)
    #[arg(long)]
    pub run: String,
    /// This actor's name in the run's batch names (default: host, process and a random tag)
    #[arg(long)]
    pub id: Option<String>,
    /// Stop once this many batches are written, after the round of games in progress
    /// (default: until stopped)
    #[arg(long)]
    pub batches: Option<u64>,
    /// Where batches wait while the store cannot be reached, in a folder per run (default:
    /// ~/.cache/zerosum/outbox)
    #[arg(long)]
    pub outbox: Option<std::path::PathBuf>,
    /// Override a setting of the run's config for this actor (key=value), e.g. device=cpu
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
    if config.mode == zerosum_config::Mode::Sync {
        bail!(
            "{}: the run is synchronous and its learner plays its own games; start it with --actors N (asynchronous) for actors to join",
            args.run
        );
    }
    if let Some(id) = &args.id {
        check_id(id)?;
    }
    zerosum_nn::init_torch(config.seed, config.torch_threads);
    let stop = Arc::new(AtomicBool::new(false));
    super::common::stop_on_signals(&stop)?;
    let options = ActorOptions {
        id: args.id.clone().unwrap_or_else(default_actor_id),
        outbox: outbox_for(&args.outbox.clone().unwrap_or_else(outbox_dir), &args.run),
        // 0: no limit.
        max_batches: args.batches.unwrap_or(0),
    };
    println!(
        "actor {} playing {} for {}",
        options.id, config.game, args.run
    );
    let summary = with_game!(&game, g => {
        let mut actor = Actor::new(g, store.clone(), &config, options.clone())?;
        actor.run(&stop, &mut Console::new())
    })?;
    let requests = summary.requests;
    println!(
        "actor {} stopped: {} batches, {} games, {requests}{}",
        options.id,
        summary.batches,
        summary.games,
        if summary.waiting > 0 {
            format!(
                "; {} batches wait in {} for the next actor on this machine",
                summary.waiting,
                options.outbox.display()
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Refuses an `--id` that could not be part of a batch name.
fn check_id(id: &str) -> Result<()> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        bail!("--id {id:?}: use letters, digits, '-', '_' and '.' only");
    }
    Ok(())
}
