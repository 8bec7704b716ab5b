//! `zerosum bench`: the network's bare batched forward rate and the self-play rate.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use zerosum_games::{with_game, Game};
use zerosum_nn::{parse_device, Model, NetEvaluator};
use zerosum_train::{self_play, ResolvedConfig};

use super::common::{resolve_with_checkpoint, GameArgs};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    /// Measure this checkpoint's network instead of a fresh one of the config's shape
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Batch sizes for the bare forward rate
    #[arg(long, value_delimiter = ',', default_value = "1,8,32,64,128,256")]
    pub batch_sizes: Vec<usize>,
    /// Seconds per measurement
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Self-play games (default: two batches of self_play.batch_games)
    #[arg(long)]
    pub games: Option<usize>,
}

pub fn run(args: Args) -> Result<()> {
    let (game, config) = resolve_with_checkpoint(&args.game, args.checkpoint.as_deref())?;
    with_game!(&game, g => bench(g, &config, &args))
}

/// Positions from random games, as varied as self-play's.
fn random_positions<G: Game>(initial: &G, count: usize, rng: &mut SmallRng) -> Vec<G> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut position = initial.clone();
        while !position.is_terminal() && out.len() < count {
            out.push(position.clone());
            let legal = position.legal_action_vec();
            position.apply(legal[rng.random_range(0..legal.len())]);
        }
    }
    out
}

fn bench<G: Game>(initial: &G, config: &ResolvedConfig, args: &Args) -> Result<()> {
    let device = parse_device(&config.device)?;
    zerosum_nn::init_torch(config.seed, config.torch_threads);
    let model = match &args.checkpoint {
        Some(path) => {
            zerosum_train::checkpoints::load_location(&path.to_string_lossy(), initial, device)?
        }
        None => Model::for_game(initial, &config.model, device)?,
    };
    let mut rng = SmallRng::seed_from_u64(config.seed);
    println!(
        "{} on {:?} with {} torch threads, model {:?}",
        initial.name(),
        device,
        zerosum_nn::torch_threads(),
        config.model
    );
    println!("bare forward (observe + forward + copy out):");
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        anyhow::bail!("--seconds must be a positive number, got {}", args.seconds);
    }
    if let Some(bad) = args.batch_sizes.iter().find(|&&b| b == 0) {
        anyhow::bail!("--batch-sizes must all be at least 1, got {bad}");
    }
    let budget = Duration::from_secs_f64(args.seconds);
    let obs_len = initial.obs_len();
    let mut forward_rate = Vec::new();
    for &batch in &args.batch_sizes {
        let positions = random_positions(initial, batch, &mut rng);
        let mut obs = vec![0.0; batch * obs_len];
        let mut logits = vec![0.0; batch * initial.num_actions()];
        let mut values = vec![0.0; batch];
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed() < budget || calls < 3 {
            for (p, o) in positions.iter().zip(obs.chunks_exact_mut(obs_len)) {
                p.observe(o);
            }
            model.predict(&obs, batch, &mut logits, &mut values);
            calls += 1;
        }
        let rate = (calls * batch as u64) as f64 / start.elapsed().as_secs_f64();
        println!("  batch {batch:>4}: {rate:>10.0} positions/s");
        forward_rate.push((batch, rate));
    }
    let batch = config.self_play.batch_games;
    let games = args.games.unwrap_or(2 * batch);
    let mut evaluator = NetEvaluator::new(model.try_clone()?, initial);
    let mut search = config.search.clone();
    // The cache would hide network calls; the comparison is with the bare forward rate.
    search.cache_capacity = 0;
    let counters = self_play(
        initial,
        &mut evaluator,
        &search,
        &config.self_play,
        games,
        &mut rng,
        |_| {},
    );
    let seconds = counters.seconds.max(1e-9);
    let eval_rate = counters.evaluations as f64 / seconds;
    let mean_batch = counters.evaluations as f64 / counters.calls.max(1) as f64;
    println!(
        "self-play ({games} games, {batch} in lockstep, {} simulations per move, cache off):",
        search.num_simulations
    );
    println!(
        "  {:>10.0} simulations/s",
        counters.simulations as f64 / seconds
    );
    println!(
        "  {:>10.0} positions/s recorded (every move, unless playout cap randomization is on)",
        counters.positions as f64 / seconds
    );
    println!(
        "  {:>10.0} network evaluations/s at a mean batch of {mean_batch:.1}",
        eval_rate
    );
    if let Some(&(b, rate)) = forward_rate.iter().min_by_key(|(b, _)| b.abs_diff(batch)) {
        println!(
            "  = {:.0}% of the bare forward rate at batch {b}",
            100.0 * eval_rate / rate
        );
    }
    Ok(())
}
