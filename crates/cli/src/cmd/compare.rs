//! `zerosum compare CONFIG...`: recipes trained for the same budget, then measured.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use zerosum_config::RunConfig;
use zerosum_games::registry::parse_game;
use zerosum_games::with_game;
use zerosum_train::compare::{compare, contender_name, markdown_table, CompareSettings, Contender};

#[derive(clap::Args)]
pub struct Args {
    /// Config files of the recipes (TOML), all for the same game
    #[arg(required = true, num_args = 1..)]
    pub configs: Vec<PathBuf>,
    /// A recipe made of the first config with some keys changed, named NAME:
    /// `NAME:KEY=VALUE;KEY=VALUE` (repeatable), e.g. `surprise:replay.policy_surprise_weight=0.5`
    #[arg(long = "variant", value_name = "NAME:KEY=VALUE;...")]
    pub variants: Vec<String>,
    /// Training minutes of each recipe
    #[arg(long, value_parser = super::common::positive_minutes, default_value_t = 10.0)]
    pub minutes: f64,
    /// Where the runs go (DIR/<config name>) and the table (DIR/comparison.md)
    #[arg(long, default_value = "runs/compare")]
    pub out: PathBuf,
    /// The seed every recipe trains with
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Reference players each recipe plays
    #[arg(long, value_delimiter = ',', default_value = "mcts:1000")]
    pub references: Vec<String>,
    /// Games against each reference
    #[arg(long, default_value_t = 40)]
    pub games: usize,
    /// Games between each pair of recipes
    #[arg(long, default_value_t = 20)]
    pub pair_games: usize,
    /// Simulations per move of every recipe in the measuring games
    #[arg(long, value_parser = super::common::positive, default_value_t = 96)]
    pub sims: usize,
    /// Recipes trained at once, sharing the cores (1: one after another)
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Play only the first recipe against each other one (not every pair): the default
    /// recipe against each option
    #[arg(long)]
    pub against_first: bool,
    /// Random opening moves of each pair of measuring games, one game with each colour
    #[arg(long, default_value_t = 2)]
    pub opening_plies: usize,
    /// Measure the runs already in --out instead of training them
    #[arg(long)]
    pub reuse: bool,
    /// Also count each recipe's outcome errors on these solved positions, set by set
    /// (`zerosum accuracy --save`; models/benchmarks/connect4-sets.jsonl has Pons's six
    /// sets for connect four)
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let contenders = contenders(&args)?;
    if let Some(name) = duplicate_name(&contenders) {
        bail!("two recipes are named {name}: their runs would share a folder");
    }
    let game_name = contenders[0].config.game.clone();
    if let Some(other) = contenders.iter().find(|c| {
        parse_game(&c.config.game).map(|g| g.name()).ok()
            != parse_game(&game_name).map(|g| g.name()).ok()
    }) {
        bail!(
            "{} trains {}, not {game_name}: compare recipes of one game",
            other.name,
            other.config.game
        );
    }
    // The references play only after every recipe has trained: a bad one must stop us now.
    for reference in &args.references {
        reference.parse::<zerosum_players::PlayerSpec>()?;
    }
    let settings = CompareSettings {
        minutes: args.minutes,
        seed: args.seed,
        out: args.out.clone(),
        reference_games: args.games,
        references: args.references.clone(),
        pair_games: args.pair_games,
        against_first: args.against_first,
        sims: args.sims,
        jobs: args.jobs.max(1),
        opening_plies: args.opening_plies,
        reuse: args.reuse,
        positions: args.positions.clone(),
    };
    let game = parse_game(&game_name)?;
    println!(
        "comparing {} recipes of {game_name}: {} minutes each, seed {}, {} at a time",
        contenders.len(),
        args.minutes,
        args.seed,
        settings.jobs
    );
    let rows =
        with_game!(&game, g => compare(g, &contenders, &settings, |line| println!("{line}")))?;
    let table = markdown_table(&rows, &settings);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let report = format!(
        "# {game_name}: {} minutes of training each\n\nCommand: `{command}`\n\n{table}",
        args.minutes
    );
    std::fs::create_dir_all(&args.out)?;
    std::fs::write(args.out.join("comparison.md"), &report)?;
    println!("\n{table}");
    println!("written to {}", args.out.join("comparison.md").display());
    Ok(())
}

/// The recipes: one per config file, then the `--variant`s of the first.
fn contenders(args: &Args) -> Result<Vec<Contender>> {
    let mut contenders = Vec::new();
    let mut texts = Vec::new();
    for path in &args.configs {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        let config = RunConfig::from_toml(&text, &[])
            .with_context(|| format!("config {}", path.display()))?;
        contenders.push(Contender {
            name: contender_name(path),
            config,
        });
        texts.push(text);
    }
    for variant in &args.variants {
        contenders.push(variant_of(&texts[0], variant)?);
    }
    Ok(contenders)
}

/// The recipe `--variant NAME:KEY=VALUE;...` makes of the config text `base`, changed as
/// `--set` changes it.
fn variant_of(base: &str, variant: &str) -> Result<Contender> {
    let Some((name, sets)) = variant.split_once(':') else {
        bail!("--variant {variant}: expected NAME:KEY=VALUE;KEY=VALUE");
    };
    // The name is a folder inside --out: nothing that could lead out of it.
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        || name.starts_with('.')
    {
        bail!("--variant {variant}: name the recipe with letters, digits, -, _ and .");
    }
    let overrides: Vec<String> = sets.split(';').map(str::to_string).collect();
    let config =
        RunConfig::from_toml(base, &overrides).with_context(|| format!("--variant {name}"))?;
    Ok(Contender {
        name: name.to_string(),
        config,
    })
}

/// A name two contenders share, if any.
fn duplicate_name(contenders: &[Contender]) -> Option<&str> {
    let mut seen = std::collections::HashSet::new();
    contenders
        .iter()
        .map(|c| c.name.as_str())
        .find(|name| !seen.insert(*name))
}
