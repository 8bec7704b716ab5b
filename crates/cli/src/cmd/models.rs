//! `zerosum models`: the trained models that ship with zerosum, and adding one.

use anyhow::{bail, Result};
use zerosum_train::shipped::{self, ShippedModel};

#[derive(clap::Args)]
pub struct Args {
    /// Show each model's network, lineage and training commands
    #[arg(long, short)]
    pub verbose: bool,
    #[command(subcommand)]
    pub action: Option<Action>,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Copy a checkpoint into the models folder as NAME (then list it in models.toml)
    Add {
        /// The checkpoint: a run, RUN/checkpoints/latest, or a checkpoint's path
        checkpoint: String,
        /// The model's file name (go-5x5)
        name: String,
    },
}

pub fn run(args: Args) -> Result<()> {
    let dir = shipped::models_dir();
    match args.action {
        Some(Action::Add { checkpoint, name }) => {
            let meta = shipped::add(&checkpoint, &dir, &name)?;
            let listed = shipped::list_in(&dir)
                .map(|models| models.iter().any(|m| m.name == name))
                .unwrap_or(false);
            println!(
                "wrote {} (.safetensors and .json): {}, generation {}",
                dir.join(&name).display(),
                meta.game,
                meta.generation
            );
            if !listed {
                println!(
                    "list it in {}:\n\n[[model]]\nname = \"{name}\"\ngame = \"{}\"\nsims = 400\nstrength = \"not measured yet\"\nruns = [{}\"zerosum train ...\"]",
                    dir.join(shipped::INDEX).display(),
                    meta.game,
                    "\"...\", ".repeat(meta.lineage.len())
                );
            }
            Ok(())
        }
        None => list(&dir, args.verbose),
    }
}

fn list(dir: &std::path::Path, verbose: bool) -> Result<()> {
    let models = shipped::list_in(dir)?;
    if models.is_empty() {
        bail!("no models in {} (no {})", dir.display(), shipped::INDEX);
    }
    println!(
        "{:<14} {:<34} {:>7} {:>6} {:>6} {:>5}  strength",
        "model", "game", "size", "hours", "gens", "sims"
    );
    for model in &models {
        println!(
            "{:<14} {:<34} {:>7} {:>6} {:>6} {:>5}  {}",
            model.name,
            model.game,
            size(model.bytes),
            model
                .hours()
                .map_or("?".to_string(), |hours| format!("{hours:.2}")),
            model.generations(),
            model.sims,
            model.strength
        );
        if verbose {
            details(model);
        }
    }
    println!(
        "\n{} models in {}; `zerosum play --game GAME` plays the one for GAME, `zerosum train --init {}/NAME` improves one",
        models.len(),
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// The network, then each run of the lineage with its generations, hours and command.
fn details(model: &ShippedModel) {
    println!("    network: {}", model.meta.model.describe());
    let hours =
        |seconds: Option<f64>| seconds.map_or("?".to_string(), |s| format!("{:.2}", s / 3600.0));
    let runs = model
        .meta
        .lineage
        .iter()
        .map(|a| (a.generation, a.train_seconds))
        .chain([(model.meta.generation, model.meta.train_seconds)]);
    for (i, ((generations, seconds), command)) in runs.zip(&model.runs).enumerate() {
        println!(
            "    run {}: {generations} generations, {} hours: {command}",
            i + 1,
            hours(seconds)
        );
    }
}

/// Bytes in kB or MB.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} kB", bytes.div_ceil(1 << 10))
    }
}
