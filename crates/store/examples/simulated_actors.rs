//! Many actors' traffic against a run's store, without their games: each simulated actor
//! uploads a stored batch under names of its own at a real actor's rate, reads the
//! checkpoint pointer as a real actor does between rounds, and retries a failed upload with
//! the actor's backoff (exponential, full jitter) while it "plays on". What a learner
//! meets when a thousand actors feed it; `scripts/actors-load.py` runs it.
//!
//! ```text
//! simulated_actors RUN_URL BATCH_FILE REPORT_JSON [--actors 1000] [--rate 0.7]
//!                  [--seconds 600] [--seed 1]
//! ```
//!
//! The report holds the requests made, every upload attempt's second and outcome, each
//! actor's first failure, and the pairs of first failure and next attempt.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use zerosum_store::checkpoints;
use zerosum_store::names;
use zerosum_store::store::RunStore;

/// Batches an actor uploads per read of the checkpoint pointer (a real actor reads it, and
/// the run's last event, once a round of several batches).
const BATCHES_PER_READ: u64 = 3;

struct Settings {
    run: String,
    batch: Vec<u8>,
    report: String,
    actors: usize,
    rate: f64,
    seconds: f64,
    seed: u64,
}

/// What one simulated actor did.
#[derive(Default)]
struct Log {
    /// Each upload attempt: seconds from the start, and whether it was stored.
    attempts: Vec<(f64, bool)>,
    /// Seconds from the start of its first failed request and of its next attempt.
    first_failure: Option<f64>,
    first_retry: Option<f64>,
    batches: u64,
    waiting: usize,
}

fn main() {
    let settings = match parse(std::env::args().skip(1).collect()) {
        Ok(settings) => settings,
        Err(why) => {
            eprintln!("simulated_actors: {why}");
            std::process::exit(2);
        }
    };
    let store = match RunStore::open(&settings.run) {
        Ok(store) => store.with_patience(Duration::ZERO).with_own_counters(),
        Err(e) => {
            eprintln!("simulated_actors: {e}");
            std::process::exit(1);
        }
    };
    let settings = Arc::new(settings);
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..settings.actors)
        .map(|k| {
            let (settings, store, stop) = (settings.clone(), store.clone(), stop.clone());
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || simulate(k, &settings, &store, start, &stop))
                .expect("a thread per simulated actor")
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(settings.seconds));
    stop.store(true, Ordering::Relaxed);
    let logs: Vec<Log> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let report = summarise(&settings, &store, &logs, start.elapsed().as_secs_f64());
    std::fs::write(&settings.report, report.to_string()).expect("the report can be written");
}

/// One actor: a batch every `1 / rate` seconds (±20%), from a start of its own within the
/// first interval; uploads while its backoff allows, oldest first.
fn simulate(
    k: usize,
    settings: &Settings,
    store: &RunStore,
    start: Instant,
    stop: &AtomicBool,
) -> Log {
    let mut rng = SmallRng::seed_from_u64(settings.seed.wrapping_mul(0x9e37_79b9) ^ k as u64);
    let id = format!("sim-{k:04}");
    let session: u32 = rng.random();
    let interval = 1.0 / settings.rate;
    let mut next_batch = rng.random::<f64>() * interval;
    // Each waiting batch: its index and the checkpoint that "played" it.
    let mut pending: Vec<(u64, u64)> = Vec::new();
    let mut played = 0;
    let mut checkpoint = 0;
    let mut failures = 0u32;
    let mut next_try = 0.0;
    let mut log = Log::default();
    let now = || start.elapsed().as_secs_f64();
    while !stop.load(Ordering::Relaxed) {
        let wake = if pending.is_empty() {
            next_batch
        } else {
            next_batch.min(next_try)
        };
        let at = now();
        if wake > at {
            std::thread::sleep(Duration::from_secs_f64((wake - at).min(0.2)));
            continue;
        }
        if now() >= next_batch {
            played += 1;
            next_batch += interval * (0.8 + 0.4 * rng.random::<f64>());
            if played % BATCHES_PER_READ == 1 {
                if let Ok(Some(newest)) = checkpoints::published(store) {
                    checkpoint = newest.generation;
                }
            }
            pending.push((played - 1, checkpoint));
        }
        while !pending.is_empty() && now() >= next_try {
            let (index, played_by) = pending[0];
            let file = names::actor_batch_file(&id, session, index, played_by);
            let stored = store.put_once(
                &names::actor_batch(names::stamp_now(), &file),
                &settings.batch,
            );
            let at = now();
            log.attempts.push((at, stored.is_ok()));
            if log.first_failure.is_some() && log.first_retry.is_none() {
                log.first_retry = Some(at);
            }
            if stored.is_ok() {
                pending.remove(0);
                log.batches += 1;
                failures = 0;
                continue;
            }
            log.first_failure.get_or_insert(at);
            // The actor's own backoff: a ceiling of 2, 4, ... 64 s, the wait drawn below it.
            failures += 1;
            let ceiling = f64::from(2u32.pow(failures.min(6)));
            next_try = at + ceiling * rng.random::<f64>();
        }
    }
    log.waiting = pending.len();
    log
}

fn summarise(
    settings: &Settings,
    store: &RunStore,
    logs: &[Log],
    seconds: f64,
) -> serde_json::Value {
    let mut timeline = vec![[0u64; 2]; seconds.ceil() as usize + 1];
    for (at, ok) in logs.iter().flat_map(|log| &log.attempts) {
        timeline[*at as usize][usize::from(!ok)] += 1;
    }
    let requests = store.requests();
    serde_json::json!({
        "actors": settings.actors,
        "rate": settings.rate,
        "seconds": seconds,
        "batches": logs.iter().map(|log| log.batches).sum::<u64>(),
        "waiting": logs.iter().map(|log| log.waiting).sum::<usize>(),
        "requests": {"get": requests.get, "put": requests.put, "list": requests.list},
        "timeline": timeline,
        "first_failures": logs.iter().filter_map(|log| log.first_failure).collect::<Vec<_>>(),
        // Each actor's first failure and its next attempt, for those that made one.
        "first_retries": logs
            .iter()
            .filter_map(|log| Some([log.first_failure?, log.first_retry?]))
            .collect::<Vec<_>>(),
    })
}

fn parse(args: Vec<String>) -> Result<Settings, String> {
    let usage = "usage: simulated_actors RUN_URL BATCH_FILE REPORT_JSON [--actors N] [--rate R] [--seconds S] [--seed N]";
    let [run, batch, report, options @ ..] = args.as_slice() else {
        return Err(usage.to_string());
    };
    let batch = std::fs::read(batch).map_err(|e| format!("{batch}: {e}"))?;
    let mut settings = Settings {
        run: run.clone(),
        batch,
        report: report.clone(),
        actors: 1000,
        rate: 0.7,
        seconds: 600.0,
        seed: 1,
    };
    for pair in options.chunks(2) {
        let [key, value] = pair else {
            return Err(usage.to_string());
        };
        let bad = |e: std::num::ParseFloatError| format!("{key} {value}: {e}");
        match key.as_str() {
            "--actors" => {
                settings.actors = value
                    .parse()
                    .map_err(|_| format!("{key} {value}: not a count"))?
            }
            "--rate" => settings.rate = value.parse().map_err(bad)?,
            "--seconds" => settings.seconds = value.parse().map_err(bad)?,
            "--seed" => {
                settings.seed = value
                    .parse()
                    .map_err(|_| format!("{key} {value}: not a number"))?
            }
            _ => return Err(usage.to_string()),
        }
    }
    let positive = |x: f64| x.is_finite() && x > 0.0;
    if !positive(settings.rate) || !positive(settings.seconds) || settings.actors == 0 {
        return Err("--actors, --rate and --seconds must be positive".to_string());
    }
    Ok(settings)
}
