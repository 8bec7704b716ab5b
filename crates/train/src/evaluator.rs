//! The evaluator role: published checkpoints against the run's baselines and the previous
//! evaluated checkpoint, each result recorded once as an `evaluate` event. It runs inside
//! the learner's loop, or on its own (`zerosum evaluate --follow`), following the run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde_json::json;
use zerosum_games::Game;
use zerosum_nn::{Device, Model};

use crate::arena::{play_match_with_openings, MatchReport};
use crate::checkpoints;
use crate::config::{derive_seed, stream, RunConfig};
use crate::error::TrainError;
use crate::events;
use crate::metrics::EvalReport;
use crate::players::{build_agent, Agent, MctsAgent, PlayerSpec};
use crate::run::Progress;
use crate::store::RunStore;

/// Plays `model` (checkpoint `generation`) against each baseline and `previous`.
pub fn evaluate<G: Game>(
    initial: &G,
    config: &RunConfig,
    model: &Model,
    previous: Option<&Model>,
    generation: u64,
    device: Device,
    progress: &mut dyn Progress,
) -> Result<EvalReport, TrainError> {
    let start = Instant::now();
    let mut rng = SmallRng::seed_from_u64(derive_seed(config.seed, stream::EVALUATE, generation));
    let sims = config.arena.num_simulations;
    let agent = |model: &Model, name: String| -> Result<MctsAgent<G>, TrainError> {
        Ok(MctsAgent::with_network(
            name,
            model.try_clone()?,
            initial,
            config.search.clone(),
            sims,
        ))
    };
    let mut opponents: Vec<Box<dyn Agent<G>>> = Vec::new();
    for spec in &config.arena.baselines {
        let spec: PlayerSpec = spec.parse()?;
        opponents.push(build_agent(
            &spec,
            initial,
            &config.search,
            sims,
            device,
            derive_seed(config.seed, stream::BASELINE, generation),
        )?);
    }
    if config.arena.previous {
        if let Some(previous) = previous {
            opponents.push(Box::new(agent(
                previous,
                format!("gen-{:04}", previous.meta().generation),
            )?));
        }
    }
    let mut me = agent(model, format!("gen-{generation:04}"))?;
    let mut matches = Vec::new();
    progress.start(
        generation,
        "evaluate",
        (opponents.len() * config.arena.games) as u64,
    );
    for opponent in &mut opponents {
        let report: MatchReport = play_match_with_openings(
            initial,
            &mut me,
            opponent.as_mut(),
            config.arena.games,
            config.arena.opening_plies,
            &mut rng,
            |_, _| progress.advance(1),
        )?;
        matches.push(report);
    }
    let summary: Vec<String> = matches
        .iter()
        .map(|m| {
            format!(
                "vs {}: {:.0}% (Elo {:+.0})",
                m.opponent,
                100.0 * m.score(),
                m.elo()
            )
        })
        .collect();
    progress.finish(&summary.join(", "));
    Ok(EvalReport {
        matches,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Whether checkpoint `generation` is one the run evaluates (`arena.every`).
pub fn is_due(config: &RunConfig, generation: u64) -> bool {
    config.arena.every > 0
        && generation > 0
        && (generation as usize).is_multiple_of(config.arena.every)
}

/// Evaluates every due checkpoint of the run in `store` that has no `evaluate` event yet,
/// oldest first; with `keep_following`, then waits for the learner to publish more, until
/// `stop` is set or the run's last generation is evaluated. A restarted evaluator thus
/// replays no finished match. Returns the generations it evaluated.
pub fn follow<G: Game>(
    initial: &G,
    config: &RunConfig,
    store: &RunStore,
    stop: &AtomicBool,
    keep_following: bool,
    progress: &mut dyn Progress,
) -> Result<Vec<u64>, TrainError> {
    let device = zerosum_nn::parse_device(&config.device)?;
    let mut done = Vec::new();
    let mut previous: Option<Model> = None;
    while !stop.load(Ordering::Relaxed) {
        let mut waiting = true;
        for generation in checkpoints::generations(store)? {
            if !is_due(config, generation) || events::recorded(store, "evaluate", generation)? {
                continue;
            }
            waiting = false;
            let model = checkpoints::load(store, generation, initial, device)?;
            let report = evaluate(
                initial,
                config,
                &model,
                previous.as_ref(),
                generation,
                device,
                progress,
            )?;
            events::record(
                store,
                "evaluate",
                generation,
                model.meta().step,
                json!(report),
            )?;
            previous = Some(model);
            done.push(generation);
        }
        let last = config.generations as u64;
        let finished = checkpoints::generations(store)?.last() >= Some(&last);
        if !keep_following || (waiting && finished) {
            break;
        }
        if waiting {
            std::thread::sleep(Duration::from_secs(2));
        }
    }
    Ok(done)
}
