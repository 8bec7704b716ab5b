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

/// One line a model within 80 columns (name, game, size, training time, simulations and
/// its strength in a few words); with `verbose`, its full game name, generations, whole
/// strength line, network and training runs below it.
fn list(dir: &std::path::Path, verbose: bool) -> Result<String> {
    let models = shipped::list_in(dir)?;
    if models.is_empty() {
        bail!("no models in {} (no {})", dir.display(), shipped::INDEX);
    }
    let short_game = |model: &ShippedModel| -> String {
        let game = model.game.split(':').next().unwrap_or(&model.game);
        game.to_string()
    };
    let name_width = models.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let game_width = models
        .iter()
        .map(|m| short_game(m).len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let header = format!(
        "{:<name_width$}  {:<game_width$}  {:>6}  {:>6}  {:>5}  ",
        "model", "game", "size", "time", "sims"
    );
    // What is left of 80 columns for the strength.
    let room = 80usize.saturating_sub(header.len()).max(20);
    writeln!(out, "{header}strength")?;
    for model in &models {
        writeln!(
            out,
            "{:<name_width$}  {:<game_width$}  {:>6}  {:>6}  {:>5}  {}",
            model.name,
            short_game(model),
            size(model.bytes),
            model.hours().map_or("?".to_string(), training_time),
            model.sims,
            clip(&model.headline, room)
        )?;
        if verbose {
            details(&mut out, model)?;
        }
    }
    writeln!(
        out,
        "\n{} models in {}{}",
        models.len(),
        dir.display(),
        if verbose {
            ""
        } else {
            " (--verbose: each in full)"
        }
    )?;
    writeln!(
        out,
        "`zerosum play --game GAME` plays the one for GAME;\n\
         `zerosum train --init {}/NAME` improves one",
        dir.display()
    )?;
    Ok(out)
}

/// The full game, generations and strength, the network, then each run of the lineage
/// with its generations, hours and command.
fn details(out: &mut String, model: &ShippedModel) -> std::fmt::Result {
    writeln!(
        out,
        "    game: {}, {} generations",
        model.game,
        model.generations()
    )?;
    writeln!(out, "    strength: {}", model.strength)?;
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

/// Hours of training as minutes below an hour (`40 min`), else hours (`10.8 h`).
fn training_time(hours: f64) -> String {
    if hours < 1.0 {
        format!("{:.0} min", (hours * 60.0).max(1.0))
    } else {
        format!("{hours:.1} h")
    }
}

/// `text` cut to `width` characters, with an ellipsis where it was cut.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{}\u{2026}", kept.trim_end())
}

/// Bytes in kB or MB.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} kB", bytes.div_ceil(1 << 10))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_clipped_strengths_are_short() {
        assert_eq!(training_time(0.01), "1 min");
        assert_eq!(training_time(0.69), "41 min");
        assert_eq!(training_time(10.84), "10.8 h");
        assert_eq!(clip("98% against mcts:10000", 30), "98% against mcts:10000");
        assert_eq!(clip("abcdef ghi", 8), "abcdef\u{2026}");
    }
}
