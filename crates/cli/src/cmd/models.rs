//! `zerosum models`: the trained models that ship with zerosum, and adding one.

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::{bail, Result};
use zerosum_players::shipped::{self, ShippedModel};

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
    let text = match args.action {
        Some(Action::Add { checkpoint, name }) => add(&dir, &checkpoint, &name)?,
        None => list(&dir, args.verbose)?,
    };
    // A reader that stops early (`zerosum models | head`) has what it wanted.
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn add(dir: &std::path::Path, checkpoint: &str, name: &str) -> Result<String> {
    let meta = shipped::add(checkpoint, dir, name)?;
    let mut out = format!(
        "wrote {} (.safetensors and .json): {}, generation {}\n",
        dir.join(name).display(),
        meta.game,
        meta.generation
    );
    let listed = shipped::list_in(dir)
        .map(|models| models.iter().any(|m| m.name == name))
        .unwrap_or(false);
    if !listed {
        write!(
            out,
            "list it in {}:\n\n[[model]]\nname = \"{name}\"\ngame = \"{}\"\nsims = 400\nstrength = \"not measured yet\"\nruns = [{}\"zerosum train ...\"]\n",
            dir.join(shipped::INDEX).display(),
            meta.game,
            "\"...\", ".repeat(meta.lineage.len())
        )?;
    }
    Ok(out)
}

fn list(dir: &std::path::Path, verbose: bool) -> Result<String> {
    let models = shipped::list_in(dir)?;
    if models.is_empty() {
        bail!("no models in {} (no {})", dir.display(), shipped::INDEX);
    }
    let name_width = models.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let game_width = models.iter().map(|m| m.game.len()).max().unwrap_or(0);
    let mut out = String::new();
    writeln!(
        out,
        "{:<name_width$}  {:<game_width$} {:>7} {:>6} {:>6} {:>5}  strength",
        "model", "game", "size", "hours", "gens", "sims"
    )?;
    for model in &models {
        let hours = model
            .hours()
            .map_or("?".to_string(), |hours| format!("{hours:.2}"));
        writeln!(
            out,
            "{:<name_width$}  {:<game_width$} {:>7} {:>6} {:>6} {:>5}  {}",
            model.name,
            model.game,
            size(model.bytes),
            hours,
            model.generations(),
            model.sims,
            model.strength
        )?;
        if verbose {
            details(&mut out, model)?;
        }
    }
    writeln!(
        out,
        "\n{} models in {}; `zerosum play --game GAME` plays the one for GAME, `zerosum train --init {}/NAME` improves one",
        models.len(),
        dir.display(),
        dir.display()
    )?;
    Ok(out)
}

/// The network, then each run of the lineage with its generations, hours and command.
fn details(out: &mut String, model: &ShippedModel) -> std::fmt::Result {
    writeln!(out, "    network: {}", model.meta.model.describe())?;
    let hours =
        |seconds: Option<f64>| seconds.map_or("?".to_string(), |s| format!("{:.2}", s / 3600.0));
    let runs = model
        .meta
        .lineage
        .iter()
        .map(|a| (a.generation, a.train_seconds))
        .chain([(model.meta.generation, model.meta.train_seconds)]);
    for (i, ((generations, seconds), command)) in runs.zip(&model.runs).enumerate() {
        writeln!(
            out,
            "    run {}: {generations} generations, {} hours: {command}",
            i + 1,
            hours(seconds)
        )?;
    }
    Ok(())
}

/// Bytes in kB or MB.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} kB", bytes.div_ceil(1 << 10))
    }
}
