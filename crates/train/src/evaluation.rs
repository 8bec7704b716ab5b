//! The evaluation role: published checkpoints against the run's baselines and the previous
//! evaluated checkpoint, each result reported once (the run's event log keeps it as an
//! `evaluate` event). It runs inside the learner's loop, or on its own
//! (`zerosum evaluate --follow`), following the run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::Game;
use zerosum_nn::{Device, Model};

use crate::error::TrainError;
use crate::reports::EvalReport;
use crate::sink::{Handler, Moment, Phase, Report, Sink};
use zerosum_config::{derive_seed, stream, RunConfig};
use zerosum_players::arena::play_match_with_openings;
use zerosum_players::players::{build_agent, MctsAgent, PlayerSpec};
use zerosum_players::Agent;
use zerosum_store::checkpoints;
use zerosum_store::events;
use zerosum_store::names;
use zerosum_store::store::RunStore;
use zerosum_store::EventKind;

/// The evaluator of a run: each checkpoint it is given plays the run's baselines and the
/// checkpoint evaluated before it.
pub struct EvaluationRole<'a, G: Game> {
    initial: &'a G,
    config: &'a RunConfig,
    device: Device,
    /// The last network evaluated, the next one's `previous` opponent.
    previous: Option<Model>,
}

impl<'a, G: Game> EvaluationRole<'a, G> {
    /// An evaluator that has evaluated nothing yet.
    pub fn new(initial: &'a G, config: &'a RunConfig, device: Device) -> Self {
        EvaluationRole {
            initial,
            config,
            device,
            previous: None,
        }
    }

    /// An evaluator whose next `previous` opponent is `model`.
    pub fn after(mut self, model: Model) -> Self {
        self.previous = Some(model);
        self
    }

    /// Makes the newest checkpoint in `store` before `generation` that was due for
    /// evaluation the next `previous` opponent (none where none is kept): the one the loop
    /// played `generation` against before a session was cut off ahead of that evaluation.
    pub fn resume_before(&mut self, store: &RunStore, generation: u64) -> Result<(), TrainError> {
        let earlier = checkpoints::generations(store)?
            .into_iter()
            .rfind(|&g| g < generation && is_due(self.config, g));
        self.previous = earlier
            .map(|g| checkpoints::load(store, g, self.initial, self.device))
            .transpose()?;
        Ok(())
    }

    /// Plays `model` (checkpoint `generation`) against each baseline and the network
    /// evaluated before it, which it then replaces.
    pub fn evaluate(
        &mut self,
        model: &Model,
        generation: u64,
        progress: &mut dyn Handler,
    ) -> Result<EvalReport, TrainError> {
        let start = Instant::now();
        let arena = &self.config.arena;
        let mut rng =
            SmallRng::seed_from_u64(derive_seed(self.config.seed, stream::EVALUATE, generation));
        let mut opponents = self.opponents(generation)?;
        let mut me = self.agent(model, names::generation_name(generation))?;
        let total = opponents.len() * arena.games;
        progress.phase_started(generation, Phase::Evaluate, total as u64);
        let mut matches = Vec::with_capacity(opponents.len());
        for opponent in &mut opponents {
            matches.push(play_match_with_openings(
                self.initial,
                &mut me,
                opponent.as_mut(),
                arena.games,
                arena.opening_plies,
                &mut rng,
                |_, _| progress.phase_advanced(1),
            )?);
        }
        self.previous = Some(model.try_clone()?);
        Ok(EvalReport {
            matches,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// The run's baselines, then the network evaluated before (`arena.previous`).
    fn opponents(&self, generation: u64) -> Result<Vec<Box<dyn Agent<G>>>, TrainError> {
        let mut opponents: Vec<Box<dyn Agent<G>>> = Vec::new();
        for spec in &self.config.arena.baselines {
            let spec: PlayerSpec = spec.parse()?;
            opponents.push(build_agent(
                &spec,
                self.initial,
                &self.config.search,
                self.config.arena.num_simulations,
                self.device,
                derive_seed(self.config.seed, stream::BASELINE, generation),
            )?);
        }
        if let (true, Some(previous)) = (self.config.arena.previous, &self.previous) {
            let name = names::generation_name(previous.meta().generation);
            opponents.push(Box::new(self.agent(previous, name)?));
        }
        Ok(opponents)
    }

    /// `model` searching as evaluation games do.
    fn agent(&self, model: &Model, name: String) -> Result<MctsAgent<G>, TrainError> {
        Ok(MctsAgent::with_network(
            name,
            model.try_clone()?,
            self.initial,
            self.config.search.clone(),
            self.config.arena.num_simulations,
        ))
    }
}

/// Whether checkpoint `generation` is one the run evaluates (`arena.every`).
pub fn is_due(config: &RunConfig, generation: u64) -> bool {
    config.arena.every > 0
        && generation > 0
        && (generation as usize).is_multiple_of(config.arena.every)
}

/// Evaluates every due checkpoint of the run in `store` that has no `evaluate` event yet,
/// oldest first, reporting each to the run's event log and then to `handler`; with
/// `keep_following`, then waits for the learner to publish more, until `stop` is set or the
/// run's last generation is evaluated. A restarted evaluator thus replays no finished
/// match. Returns the generations it evaluated.
pub fn follow<G: Game>(
    initial: &G,
    config: &RunConfig,
    store: &RunStore,
    stop: &AtomicBool,
    keep_following: bool,
    handler: &mut dyn Handler,
) -> Result<Vec<u64>, TrainError> {
    let device = zerosum_nn::parse_device(&config.device)?;
    let mut log = crate::sink::EventLog::new(store);
    let mut sink = Sink::new().with(&mut log).with(handler);
    let mut role = EvaluationRole::new(initial, config, device);
    let mut done = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let mut waiting = true;
        for generation in checkpoints::generations(store)? {
            if !is_due(config, generation)
                || events::recorded(store, EventKind::Evaluate, generation)?
            {
                continue;
            }
            waiting = false;
            let model = checkpoints::load(store, generation, initial, device)?;
            let report = role.evaluate(&model, generation, &mut sink)?;
            let at = Moment {
                generation,
                step: model.meta().step,
            };
            sink.reported(at, Report::Evaluate(&report))?;
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
