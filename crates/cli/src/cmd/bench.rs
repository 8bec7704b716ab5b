//! `zerosum bench`: a network measured against its own ceiling on one device. The bare
//! batched forward rate in each precision, self-play's evaluations/s with the mean batch
//! the network saw, the learner's samples/s beside the bare forward and backward, and one
//! search's simulations/s at several leaves per call.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use zerosum_config::{ResolvedConfig, RunConfig};
use zerosum_games::{with_game, Game};
use zerosum_nn::{
    parse_device, Batch, Device, DeviceBatch, Model, NetEvaluator, OptimizerKind, PendingLosses,
    Precision, TrainState,
};
use zerosum_search::{
    search_one, EvalCache, Evaluator, RolloutEvaluator, SearchConfig, Tree, UniformEvaluator,
};
use zerosum_train::self_play::SelfPlayCounters;
use zerosum_train::{run_self_play, Lineup};

use super::common::{resolve_with_checkpoint, GameArgs};

/// What `bench` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    /// The bare batched forward rate at each batch size and precision.
    Forward,
    /// Self-play as training runs it (threads, inference server, precision).
    SelfPlay,
    /// The learner's gradient steps.
    Learner,
    /// One search, as `play`, `gtp`, `uci` and `serve` run it.
    Interactive,
    /// The search's own speed, no network: rollout MCTS (`mcts:N`) and the tree alone.
    Search,
}

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
    /// Precisions of the bare forward rate and of the learner, side by side
    #[arg(long, value_delimiter = ',', default_value = "fp32,bf16")]
    pub precisions: Vec<String>,
    /// Seconds per measurement
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Self-play games (default: two rounds of every thread's self_play.batch_games)
    #[arg(long)]
    pub games: Option<usize>,
    /// Stop self-play after this many seconds, the games in progress abandoned (default:
    /// play the games out)
    #[arg(long)]
    pub self_play_seconds: Option<f64>,
    /// Leaves per network call of the interactive search, each measured
    #[arg(long, value_delimiter = ',', default_value = "1,8")]
    pub leaves: Vec<usize>,
    /// Simulations of each interactive search
    #[arg(long, default_value_t = 800)]
    pub sims: usize,
    /// Simulations of each search without a network (the `search` section)
    #[arg(long, default_value_t = 10_000)]
    pub search_sims: usize,
    /// What to measure (default: all of it)
    #[arg(long, value_delimiter = ',', value_enum)]
    pub sections: Vec<Section>,
}

pub fn run(args: Args) -> Result<()> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!("--seconds must be a positive number, got {}", args.seconds);
    }
    if let Some(bad) = args.batch_sizes.iter().find(|&&b| b == 0) {
        bail!("--batch-sizes must all be at least 1, got {bad}");
    }
    if args
        .self_play_seconds
        .is_some_and(|s| !(s.is_finite() && s > 0.0))
    {
        bail!("--self-play-seconds must be a positive number");
    }
    if args.leaves.contains(&0) || args.sims == 0 || args.search_sims == 0 {
        bail!("--leaves, --sims and --search-sims must be at least 1");
    }
    let precisions = args
        .precisions
        .iter()
        .map(|p| Precision::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    let (game, config) = resolve_with_checkpoint(&args.game, args.checkpoint.as_deref())?;
    with_game!(&game, g => bench(g, &config, &args, &precisions))
}

/// The figures the closing `summary` line gathers for scripts.
#[derive(Default)]
struct Summary {
    fields: Vec<(String, String)>,
}

impl Summary {
    fn add(&mut self, key: &str, value: impl std::fmt::Display) {
        self.fields.push((key.to_string(), value.to_string()));
    }

    /// Adds each column's bare forward rate at the last batch size of `forward`.
    fn add_forward(&mut self, forward: &[(usize, Vec<f64>)], columns: &[Column]) {
        if let Some(&(batch, ref rates)) = forward.last() {
            for (column, rate) in columns.iter().zip(rates) {
                self.add(&format!("forward_{}_{batch}", column.key()), rate.round());
            }
        }
    }

    /// `summary: key=value ...`.
    fn line(&self) -> String {
        let line: Vec<String> = self
            .fields
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        format!("summary: {}", line.join(" "))
    }
}

/// One way of running the network measured side by side: a precision, and on CUDA
/// whether its forward passes replay recorded CUDA graphs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Column {
    precision: Precision,
    graphs: bool,
}

impl Column {
    /// The columns for `precisions` on `device`: each as it runs, then on CUDA where graphs
    /// can be recorded each replayed.
    fn all(precisions: &[Precision], device: Device) -> Vec<Column> {
        let graphs = zerosum_nn::cuda_graphs_auto(device);
        let plain = precisions.iter().map(|&precision| Column {
            precision,
            graphs: false,
        });
        let graphed = precisions
            .iter()
            .filter(|_| graphs)
            .map(|&precision| Column {
                precision,
                graphs: true,
            });
        plain.chain(graphed).collect()
    }

    /// `fp32`, `bf16_graph`: its summary key and heading.
    fn key(self) -> String {
        match self.graphs {
            false => self.precision.name().to_string(),
            true => format!("{}_graph", self.precision.name()),
        }
    }
}

fn bench<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
    precisions: &[Precision],
) -> Result<()> {
    let device = parse_device(&config.device)?;
    zerosum_nn::init_torch(config.seed, config.torch_threads);
    let model = match &args.checkpoint {
        Some(path) => {
            zerosum_store::checkpoints::load_location(&path.to_string_lossy(), initial, device)?
        }
        None => Model::for_game(initial, &config.model, device)?,
    };
    println!(
        "{} on {:?} with {} torch threads, model {:?}",
        initial.name(),
        device,
        zerosum_nn::torch_threads(),
        config.model
    );
    let wants = |section| args.sections.is_empty() || args.sections.contains(&section);
    let budget = Duration::from_secs_f64(args.seconds);
    let mut rng = SmallRng::seed_from_u64(config.seed);
    let mut summary = Summary::default();
    summary.add("device", format!("{device:?}").to_lowercase());
    let mut forward = Vec::new();
    let columns = Column::all(precisions, device);
    if wants(Section::Forward) || wants(Section::SelfPlay) {
        forward = forward_rates(
            initial,
            &model,
            args,
            &columns,
            budget,
            &mut rng,
            &mut summary,
        )?;
        summary.add_forward(&forward, &columns);
    }
    if wants(Section::SelfPlay) {
        self_play_rate(
            initial,
            config,
            &model,
            args,
            &forward,
            &columns,
            &mut rng,
            &mut summary,
        )?;
    }
    if wants(Section::Learner) {
        learner_rate(
            initial,
            config,
            &model,
            precisions,
            budget,
            &mut rng,
            &mut summary,
        )?;
    }
    if wants(Section::Interactive) {
        interactive_rate(initial, config, &model, args, &mut rng, &mut summary)?;
    }
    if wants(Section::Search) {
        search_rate(initial, args.search_sims, &mut rng, &mut summary);
    }
    println!("{}", summary.line());
    Ok(())
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

/// Runs `work` until `budget` has passed (and at least three times); calls a second.
fn calls_per_second(budget: Duration, mut work: impl FnMut()) -> f64 {
    work();
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < budget || calls < 3 {
        work();
        calls += 1;
    }
    calls as f64 / start.elapsed().as_secs_f64()
}

/// The bare forward rate (observe, forward, copy out) at each batch size, one per column:
/// `(batch, rates)` rows.
fn forward_rates<G: Game>(
    initial: &G,
    model: &Model,
    args: &Args,
    columns: &[Column],
    budget: Duration,
    rng: &mut SmallRng,
    summary: &mut Summary,
) -> Result<Vec<(usize, Vec<f64>)>> {
    let models = columns
        .iter()
        .map(|c| {
            let copy = model.try_clone()?.for_inference(c.precision);
            copy.with_cuda_graphs(c.graphs)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = columns.iter().map(|c| format!("{:>12}", c.key())).collect();
    // Per column: the largest difference its outputs showed from the plain column's.
    let mut apart = vec![0.0f32; columns.len()];
    println!("bare forward, positions/s (observe + forward + copy out):");
    println!("  batch {}", names.join(""));
    let obs_len = initial.obs_len();
    let mut rows = Vec::new();
    for &batch in &args.batch_sizes {
        let positions = random_positions(initial, batch, rng);
        let mut obs = vec![0.0; batch * obs_len];
        let mut logits = vec![0.0; batch * initial.num_actions()];
        let mut values = vec![0.0; batch];
        let rates: Vec<f64> = models
            .iter()
            .map(|model| {
                batch as f64
                    * calls_per_second(budget, || {
                        for (p, o) in positions.iter().zip(obs.chunks_exact_mut(obs_len)) {
                            p.observe(o);
                        }
                        model.predict(&obs, batch, &mut logits, &mut values);
                    })
            })
            .collect();
        let cells: Vec<String> = rates.iter().map(|r| format!("{r:>12.0}")).collect();
        println!("  {batch:>5} {}", cells.join(""));
        rows.push((batch, rates));
        for (at, column) in columns.iter().enumerate().filter(|(_, c)| c.graphs) {
            let plain = columns
                .iter()
                .position(|c| c.precision == column.precision && !c.graphs);
            if let Some(plain) = plain {
                let now = outputs_apart(&models[plain], &models[at], &obs, batch);
                apart[at] = apart[at].max(now);
            }
        }
    }
    for (column, &apart) in columns.iter().zip(&apart).filter(|(c, _)| c.graphs) {
        println!(
            "  {}: outputs at most {apart:.1e} from the passes run as they are, over these batches",
            column.key()
        );
        summary.add(
            &format!("graph_apart_{}", column.precision.name()),
            format!("{apart:.1e}"),
        );
    }
    Ok(rows)
}

/// The largest difference between `a`'s and `b`'s logits and values on `batch` rows of
/// `obs`: the same network run two ways.
fn outputs_apart(a: &Model, b: &Model, obs: &[f32], batch: usize) -> f32 {
    let actions = a.meta().num_actions;
    let run = |model: &Model| {
        let (mut logits, mut values) = (vec![f32::NAN; batch * actions], vec![f32::NAN; batch]);
        model.predict(obs, batch, &mut logits, &mut values);
        logits.extend(values);
        logits
    };
    let (x, y) = (run(a), run(b));
    x.iter()
        .zip(&y)
        .map(|(p, q)| {
            if p.is_nan() || q.is_nan() {
                f32::INFINITY
            } else {
                (p - q).abs()
            }
        })
        .fold(0.0, f32::max)
}

/// Self-play as a synchronous generation plays it, cache off: evaluations/s, the mean
/// batch the network saw, and the ratio to the bare rate at the largest batch it could see.
#[allow(clippy::too_many_arguments)]
fn self_play_rate<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    model: &Model,
    args: &Args,
    forward: &[(usize, Vec<f64>)],
    columns: &[Column],
    rng: &mut SmallRng,
    summary: &mut Summary,
) -> Result<()> {
    let mut run: RunConfig = (**config).clone();
    // The cache would hide network calls; the comparison is with the bare forward rate.
    run.search.cache_capacity = 0;
    let device = model.device();
    let threads = run.self_play.threads.max(1);
    let per_round = run.self_play.batch_games * threads;
    let games = args.games.unwrap_or(2 * per_round);
    let server = run.self_play.uses_server(device);
    let column = Column {
        precision: run.inference_precision(device),
        graphs: run.uses_cuda_graphs(device),
    };
    let ceiling_batch = if server {
        run.self_play.server_batch(device, threads)
    } else {
        run.self_play.batch_games
    };
    let counters = timed_self_play(initial, &run, model, games, args.self_play_seconds, rng)?;
    let seconds = counters.seconds.max(1e-9);
    let eval_rate = counters.evaluations as f64 / seconds;
    let mean_batch = counters.mean_batch();
    println!(
        "self-play ({games} games, {threads} threads x {} in lockstep, {}, {} simulations a move, {}, cache off):",
        run.self_play.batch_games,
        if server {
            format!("one inference server, batches up to {ceiling_batch}")
        } else {
            "a network per thread".to_string()
        },
        run.search.num_simulations,
        column.key(),
    );
    println!(
        "  {:>10.0} simulations/s, {} games finished in {seconds:.1} s",
        counters.simulations as f64 / seconds,
        counters.games
    );
    println!(
        "  {:>10.0} positions/s recorded (every move, unless playout cap randomization is on)",
        counters.positions as f64 / seconds
    );
    println!("  {eval_rate:>10.0} network evaluations/s at a mean batch of {mean_batch:.1}");
    summary.add("selfplay_evals", eval_rate.round());
    summary.add("selfplay_mean_batch", format!("{mean_batch:.1}"));
    summary.add("selfplay_graphs", column.graphs);
    let ceiling = bare_ceiling(forward, columns, column, ceiling_batch);
    report_ceiling(eval_rate, ceiling, column, summary);
    Ok(())
}

/// Says what share of the bare forward rate `ceiling`, `(batch, rate)`, of `column`
/// self-play's `eval_rate` reached, or that there is none to compare with.
fn report_ceiling(
    eval_rate: f64,
    ceiling: Option<(usize, f64)>,
    column: Column,
    summary: &mut Summary,
) {
    match ceiling {
        Some((batch, rate)) => {
            println!(
                "  = {:.0}% of the bare {} forward rate at batch {batch}",
                100.0 * eval_rate / rate,
                column.key()
            );
            summary.add("selfplay_ceiling_batch", batch);
            summary.add("selfplay_ratio", format!("{:.2}", eval_rate / rate));
        }
        None => println!(
            "  (no bare {} forward rate measured to compare with: add it to --precisions)",
            column.key()
        ),
    }
}

/// Self-play of `games` games of `model` as `run` plays them, stopped after `seconds`
/// (the games in progress abandoned) when given.
fn timed_self_play<G: Game>(
    initial: &G,
    run: &RunConfig,
    model: &Model,
    games: usize,
    seconds: Option<f64>,
    rng: &mut SmallRng,
) -> Result<SelfPlayCounters> {
    let stop = AtomicBool::new(false);
    let counters = std::thread::scope(|scope| {
        if let Some(seconds) = seconds {
            let stop = &stop;
            scope.spawn(move || {
                let end = Instant::now() + Duration::from_secs_f64(seconds);
                while !stop.load(Ordering::Relaxed) && Instant::now() < end {
                    std::thread::sleep(Duration::from_millis(20));
                }
                stop.store(true, Ordering::Relaxed);
            });
        }
        let counters = run_self_play(
            initial,
            run,
            Lineup::alone(model, games)?,
            rng,
            &stop,
            |_| Ok(()),
        );
        stop.store(true, Ordering::Relaxed);
        counters
    })?;
    Ok(counters)
}

/// `(batch, rate)`: the bare forward rate of `column` at the largest batch the network
/// could see, `ceiling_batch`: at the smallest measured batch that large, or the largest
/// measured; `None` when `column` was not measured.
fn bare_ceiling(
    forward: &[(usize, Vec<f64>)],
    columns: &[Column],
    column: Column,
    ceiling_batch: usize,
) -> Option<(usize, f64)> {
    let column = columns.iter().position(|&c| c == column);
    column.and_then(|c| {
        let row = forward
            .iter()
            .filter(|(b, _)| *b >= ceiling_batch)
            .min_by_key(|(b, _)| *b)
            .or_else(|| forward.iter().max_by_key(|(b, _)| *b));
        row.map(|(b, rates)| (*b, rates[c]))
    })
}

/// A training batch of `size` random positions with uniform policy targets.
fn random_batch<G: Game>(initial: &G, size: usize, rng: &mut SmallRng) -> Batch {
    let (obs_len, actions) = (initial.obs_len(), initial.num_actions());
    let mut batch = Batch {
        obs: vec![0.0; size * obs_len],
        policy: vec![0.0; size * actions],
        value: Vec::with_capacity(size),
        mask: vec![0.0; size * actions],
        reply: Vec::new(),
        has_reply: Vec::new(),
        size,
    };
    for (i, position) in random_positions(initial, size, rng).iter().enumerate() {
        position.observe(&mut batch.obs[i * obs_len..(i + 1) * obs_len]);
        let legal = position.legal_action_vec();
        for &a in &legal {
            batch.policy[i * actions + a] = 1.0 / legal.len() as f32;
            batch.mask[i * actions + a] = 1.0;
        }
        batch.value.push(if rng.random() { 1.0 } else { -1.0 });
    }
    batch
}

/// The learner's samples/s against the bare forward and backward of the same batch, in
/// each of `precisions` that training takes (fp32 and bf16; fp16 is not one), the config's
/// own marked, and on CUDA where graphs can be recorded, each with its step replayed as a
/// graph too (after a check that the graph's steps give the unrecorded steps' weights). The
/// summary's `learner_samples` and `learner_bare` are fp32's, the others carry their
/// precision's name and `_graph`.
fn learner_rate<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    model: &Model,
    precisions: &[Precision],
    budget: Duration,
    rng: &mut SmallRng,
    summary: &mut Summary,
) -> Result<()> {
    let size = config.learner.batch_size;
    let batches: Vec<Batch> = (0..8).map(|_| random_batch(initial, size, rng)).collect();
    // As a generation's learning runs: batches already on the device (a loader thread
    // uploads them on CUDA while the steps run), the losses read once at the end.
    let on_device: Vec<DeviceBatch> = batches
        .iter()
        .map(|b| DeviceBatch::upload(b, model.device()))
        .collect();
    let configured = config.training_precision(model.device());
    let graphs = zerosum_nn::cuda_graphs_auto(model.device());
    println!("learner (batch {size}):");
    if graphs {
        graph_drift(config, model, &on_device, summary)?;
    }
    for &precision in precisions.iter().filter(|&&p| p != Precision::Fp16) {
        let bare =
            size as f64 * zerosum_nn::forward_backward_rate(model, &batches[0], precision, budget)?;
        // On CUDA: as a step runs unrecorded (its default layout), then recorded with the
        // observations as they come (NCHW) and channels-last.
        let variants = [(false, false), (true, false), (true, true)];
        for (graphed, nhwc) in variants.into_iter().filter(|&(g, _)| !g || graphs) {
            let mut learner = TrainState::new(model.try_clone()?, &config.learner, 0)?
                .with_precision(precision)?
                .with_cuda_graphs(graphed)?;
            if graphed {
                learner = learner.with_channels_last(nhwc);
            }
            let steps = steps_per_second(&mut learner, &on_device, budget);
            let rate = size as f64 * steps;
            let mark = if precision == configured {
                " (the config's)"
            } else {
                ""
            };
            let how = match (graphed, nhwc) {
                (false, _) => "",
                (true, false) => ", CUDA graph, NCHW",
                (true, true) => ", CUDA graph, channels-last",
            };
            println!(
                "  {:>4}{how}{mark}: {rate:>10.0} samples/s in gradient steps ({:.1} ms a step), {:.0}% of the bare forward and backward ({bare:.0}/s)",
                precision.name(),
                1000.0 / steps,
                100.0 * rate / bare
            );
            let mut suffix = match precision {
                Precision::Fp32 => String::new(),
                other => format!("_{}", other.name()),
            };
            if graphed {
                suffix.push_str("_graph");
                if nhwc {
                    suffix.push_str("_nhwc");
                }
            } else {
                summary.add(&format!("learner_bare{suffix}"), bare.round());
            }
            summary.add(&format!("learner_samples{suffix}"), rate.round());
        }
    }
    Ok(())
}

/// Takes the same 16 fp32 steps from the same weights three times, twice as they run and
/// once replayed from a recorded graph, with Adam and with SGD, and reports how far apart
/// the weights end (relative to the largest weight): the graph against the steps as they
/// run, beside two runs of the steps as they run, whose distance is the device's own
/// nondeterminism (atomic additions in the backward pass). Adam's normalised steps make a
/// tiny difference in a gradient a whole step for weights whose gradient is nearly zero,
/// so its distances are far larger than SGD's. Summary: `learner_graph_drift_KIND` and
/// `learner_drift_floor_KIND`.
fn graph_drift(
    config: &ResolvedConfig,
    model: &Model,
    batches: &[DeviceBatch],
    summary: &mut Summary,
) -> Result<()> {
    for kind in [OptimizerKind::Adam, OptimizerKind::Sgd] {
        let mut learner_config = config.learner.clone();
        learner_config.optimizer = kind;
        let mut trained = Vec::new();
        for graphed in [false, false, true] {
            let mut learner = TrainState::new(model.try_clone()?, &learner_config, 0)?
                .with_precision(Precision::Fp32)?
                .with_cuda_graphs(graphed)?;
            let pending: Vec<PendingLosses> = (0..16)
                .map(|i| learner.step_on(&batches[i % batches.len()]))
                .collect();
            let losses = PendingLosses::read_all(pending);
            trained.push((learner, losses.last().map_or(f64::NAN, |l| l.total)));
        }
        let floor = trained[0].0.model().weight_drift(trained[1].0.model());
        let drift = trained[0].0.model().weight_drift(trained[2].0.model());
        let name = format!("{kind:?}").to_lowercase();
        println!(
            "  16 fp32 steps of {name}, recorded against as they run: weights {drift:.1e} apart (of the largest); as they run, twice: {floor:.1e}; last losses {:.6}, {:.6}, {:.6}",
            trained[0].1, trained[1].1, trained[2].1
        );
        summary.add(
            &format!("learner_graph_drift_{name}"),
            format!("{drift:.1e}"),
        );
        summary.add(
            &format!("learner_drift_floor_{name}"),
            format!("{floor:.1e}"),
        );
    }
    Ok(())
}

/// Gradient steps a second over `batches` in turn, for at least `budget`.
fn steps_per_second(learner: &mut TrainState, batches: &[DeviceBatch], budget: Duration) -> f64 {
    PendingLosses::read_all(vec![learner.step_on(&batches[0])]);
    let start = Instant::now();
    let (mut count, mut pending) = (0, Vec::new());
    while start.elapsed() < budget || count < 3 {
        pending.push(learner.step_on(&batches[count % batches.len()]));
        count += 1;
        if pending.len() == 64 {
            // Waiting now and then keeps the host from queueing far ahead of the device.
            PendingLosses::read_all(std::mem::take(&mut pending));
        }
    }
    PendingLosses::read_all(pending);
    count as f64 / start.elapsed().as_secs_f64()
}

/// One search from the start position, as the front ends run it, at each leaf count.
fn interactive_rate<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    model: &Model,
    args: &Args,
    rng: &mut SmallRng,
    summary: &mut Summary,
) -> Result<()> {
    println!(
        "interactive search ({} simulations from the start):",
        args.sims
    );
    let device = model.device();
    let graphs = config.uses_cuda_graphs(device);
    // With graphs on, the same search without them too: what the graphs bought.
    let variants = if graphs {
        vec![true, false]
    } else {
        vec![false]
    };
    for graphs in variants {
        let network = model.try_clone()?.with_cuda_graphs(graphs)?;
        let mut evaluator = NetEvaluator::new(network, initial);
        let suffix = if graphs || !device.is_cuda() {
            ""
        } else {
            "_eager"
        };
        let heading = match (device.is_cuda(), graphs) {
            (false, _) => "",
            (true, true) => ", CUDA graphs",
            (true, false) => ", no CUDA graphs",
        };
        interactive_leaves(
            initial,
            config,
            args,
            &mut evaluator,
            rng,
            summary,
            suffix,
            heading,
        );
    }
    Ok(())
}

/// The interactive search at each of `args.leaves`, through `evaluator`.
#[allow(clippy::too_many_arguments)]
fn interactive_leaves<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
    evaluator: &mut NetEvaluator<G>,
    rng: &mut SmallRng,
    summary: &mut Summary,
    suffix: &str,
    heading: &str,
) {
    for &leaves in &args.leaves {
        let mut search = config.search.clone();
        search.leaves = leaves;
        // Warm up once, so that the device's first call does not count.
        let mut tree = Tree::new(initial.clone());
        search_one(
            &mut tree,
            evaluator,
            &search,
            8,
            &mut EvalCache::new(0),
            rng,
        );
        let calls = evaluator.calls;
        let start = Instant::now();
        let mut tree = Tree::new(initial.clone());
        search_one(
            &mut tree,
            evaluator,
            &search,
            args.sims,
            &mut EvalCache::new(0),
            rng,
        );
        let rate = args.sims as f64 / start.elapsed().as_secs_f64();
        println!(
            "  leaves {leaves:>3}{heading}: {rate:>10.0} simulations/s, {} network calls",
            evaluator.calls - calls
        );
        summary.add(&format!("interactive_{leaves}{suffix}"), rate.round());
    }
}

/// The search without a network, from the start: rollout MCTS as `mcts:N` plays it (one
/// random playout a leaf, the solver), and the tree alone (uniform priors, values of 0),
/// where selection, expansion and backup are all there is. Regressions in the search's
/// own speed show here.
fn search_rate<G: Game>(initial: &G, sims: usize, rng: &mut SmallRng, summary: &mut Summary) {
    println!("search without a network ({sims} simulations from the start, one thread):");
    let seed = rng.random();
    let mut measure =
        |label: &str, key: &str, config: &SearchConfig, evaluator: &mut dyn Evaluator<G>| {
            let mut tree = Tree::new(initial.clone());
            let start = Instant::now();
            search_one(
                &mut tree,
                evaluator,
                config,
                sims,
                &mut EvalCache::new(0),
                rng,
            );
            let rate = sims as f64 / start.elapsed().as_secs_f64();
            println!("  {rate:>10.0} simulations/s: {label}");
            summary.add(&format!("search_{key}"), rate.round());
        };
    measure(
        "rollout MCTS (mcts:N)",
        "rollout",
        &zerosum_players::players::rollout_search(),
        &mut RolloutEvaluator::new(seed, 1),
    );
    measure(
        "the tree alone (uniform priors, value 0)",
        "tree",
        &SearchConfig::default(),
        &mut UniformEvaluator,
    );
}
