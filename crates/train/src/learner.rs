//! The learner role: the replay window, gradient steps, checkpoints and their publication,
//! gating where configured. It owns the run: it writes the run's identity and config,
//! resumes from its newest whole checkpoint (optimizer state included) and rebuilds its
//! window from the games it had read.

use std::time::Instant;

use rand::rngs::SmallRng;
use rand::Rng;
use serde::{Deserialize, Serialize};
use zerosum_games::Game;
use zerosum_nn::{Device, DeviceBatch, Losses, Model, PendingLosses};

use crate::actor::{read_batch, Lineup};
use crate::error::TrainError;
use crate::gating::Gate;
use crate::replay::{samples_from_record, weigh_by_surprise, ReplayBuffer, ValueTarget};
use crate::reports::GateReport;
use crate::reports::LearnerReport;
use crate::sink::{Handler, Phase};
use zerosum_config::ConfigError;
use zerosum_config::{ResolvedConfig, RunConfig};
use zerosum_store::checkpoints;
use zerosum_store::names;
use zerosum_store::record::GameRecord;
use zerosum_store::store::RunStore;
use zerosum_store::StoreError;

/// What [`names::RUN`] holds: a role joins a run only if it can play it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// The layout's version ([`names::FORMAT`]).
    pub format: u32,
    /// The game's full registry name.
    pub game: String,
    /// The zerosum version that created the run.
    pub zerosum: String,
}

impl RunIdentity {
    /// The identity of a run of `game` made by this build.
    pub fn new(game: String) -> RunIdentity {
        RunIdentity {
            format: names::FORMAT,
            game,
            zerosum: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// Joins the run in `store` as its learner for `game`, writing the identity of a new
    /// run; fails in one line if the run trains another game or this build cannot join it.
    fn claim(store: &RunStore, game: String) -> Result<(), TrainError> {
        let identity = RunIdentity::new(game);
        match RunIdentity::check(store)? {
            Some(existing) if existing.game != identity.game => Err(StoreError::Location {
                location: store.location().to_string(),
                reason: format!("the run trains {}, not {}", existing.game, identity.game),
            }
            .into()),
            Some(_) => Ok(()),
            None => store
                .put_once(
                    names::RUN,
                    &serde_json::to_vec_pretty(&identity).expect("identities serialise"),
                )
                .map(|_| ())
                .map_err(Into::into),
        }
    }

    /// Reads the run's identity and fails, in one line, unless this build can join it.
    pub fn check(store: &RunStore) -> Result<Option<RunIdentity>, TrainError> {
        let Some(bytes) = store.get(names::RUN)? else {
            return Ok(None);
        };
        let refuse = |reason: String| -> TrainError {
            StoreError::Location {
                location: store.location().to_string(),
                reason,
            }
            .into()
        };
        let identity: RunIdentity = serde_json::from_slice(&bytes)
            .map_err(|e| refuse(format!("{} is not a run identity: {e}", names::RUN)))?;
        let mine = RunIdentity::new(identity.game.clone());
        if identity.format != mine.format {
            return Err(refuse(format!(
                "a run of format {}, written by zerosum {}: this build reads format {} only",
                identity.format, identity.zerosum, mine.format
            )));
        }
        if identity.zerosum != mine.zerosum {
            return Err(refuse(format!(
                "run made by zerosum {}, this is zerosum {}: use the same build",
                identity.zerosum, mine.zerosum
            )));
        }
        Ok(Some(identity))
    }
}

/// Batches a CUDA learner's loader thread keeps ready ahead of the steps.
const PREFETCH_BATCHES: usize = 4;

/// A network learning from a replay window, generation by generation: the run's learner,
/// and `distill`'s networks trained through a finished run's games.
pub struct Trainer<'a, G: Game> {
    initial: &'a G,
    config: &'a RunConfig,
    training: zerosum_nn::TrainState,
    buffer: ReplayBuffer,
    symmetries: Vec<zerosum_games::Symmetry>,
}

impl<'a, G: Game> Trainer<'a, G> {
    /// A trainer of `optimizer`'s network with `config`'s window, empty.
    pub fn new(initial: &'a G, config: &'a RunConfig, training: zerosum_nn::TrainState) -> Self {
        let symmetries = if config.replay.symmetries {
            initial.symmetries()
        } else {
            initial.symmetries()[..1].to_vec()
        };
        Trainer {
            initial,
            config,
            training,
            buffer: ReplayBuffer::new(&config.replay),
            symmetries,
        }
    }

    /// The network being trained.
    pub fn model(&self) -> &Model {
        self.training.model()
    }

    /// The network, to record its progress before it is saved.
    pub fn model_mut(&mut self) -> &mut Model {
        self.training.model_mut()
    }

    /// Gradient steps taken in all.
    pub fn step(&self) -> u64 {
        self.training.step()
    }

    /// The training samples of a generation's games, weighted as the config says.
    pub fn samples(&self, generation: u64, records: &[GameRecord]) -> Vec<crate::replay::Sample> {
        let surprise_share = self.config.replay.policy_surprise_weight;
        records
            .iter()
            .flat_map(|r| {
                let mut samples =
                    samples_from_record(self.initial, r, ValueTarget::of(self.config), generation);
                weigh_by_surprise(&mut samples, r, surprise_share);
                samples
            })
            .collect()
    }

    /// Adds a generation's samples to the window without training on them. A generation
    /// larger than the whole window (fast actors of an asynchronous run) keeps its newest
    /// positions: a generation's training stays bounded by the window, however much
    /// arrived, so the learner never falls further and further behind. Returns how many
    /// it dropped.
    pub fn add(&mut self, generation: u64, mut samples: Vec<crate::replay::Sample>) -> usize {
        let dropped = samples.len().saturating_sub(self.buffer.window());
        samples.drain(..dropped);
        self.buffer.add_generation(generation, samples);
        dropped
    }

    /// Adds generation `generation`'s games to the window and trains on it: as many steps
    /// as `learner.epochs` passes over the window, or fewer where `replay.reuse` caps the
    /// samples drawn per new position. The window's size and the learning rate are the
    /// schedule's at `budget_used` of the run's budget.
    pub fn learn(
        &mut self,
        generation: u64,
        records: &[GameRecord],
        budget_used: f64,
        rng: &mut SmallRng,
        progress: &mut dyn Handler,
    ) -> LearnerReport {
        let scheduled = self.config.at(budget_used);
        self.buffer.set_window(scheduled.replay.window_positions);
        self.training.set_learning_rate(&scheduled.learner);
        let samples = self.samples(generation, records);
        let new_positions = samples.len();
        let discarded = self.add(generation, samples);
        let steps = self.steps(new_positions);
        let mut report = self.train(generation, steps, new_positions, rng, progress);
        report.discarded_positions = discarded;
        report
    }

    /// Takes `steps` gradient steps on the window as it stands, reported as generation
    /// `generation`'s learning from `new_positions` new positions.
    pub fn train(
        &mut self,
        generation: u64,
        steps: u64,
        new_positions: usize,
        rng: &mut SmallRng,
        progress: &mut dyn Handler,
    ) -> LearnerReport {
        let start = Instant::now();
        let batch_size = self.config.learner.batch_size;
        let steps = if self.buffer.is_empty() { 0 } else { steps };
        progress.phase_started(generation, Phase::Learn, steps);
        // All of the phase's samples are drawn up front, so that the curriculum can order
        // them oldest first.
        let indices = self.buffer.draw_indices(
            steps as usize * batch_size,
            self.config.learner.curriculum,
            rng,
        );
        let all = self.steps_on(&indices, rng, progress);
        let tail = (all.len() / 10).max(1).min(all.len());
        LearnerReport {
            steps,
            total_steps: self.training.step(),
            window_positions: self.buffer.len(),
            new_positions,
            samples_per_new_position: (steps as usize * batch_size) as f64
                / new_positions.max(1) as f64,
            discarded_positions: 0,
            losses: mean_losses(&all),
            final_losses: mean_losses(&all[all.len() - tail..]),
            learning_rate: self.training.learning_rate(),
            seconds: start.elapsed().as_secs_f64(),
        }
    }

    /// One gradient step per `learner.batch_size` of `indices`, their losses read at the
    /// end. On CUDA a loader thread builds and uploads each batch while the step before
    /// runs (the same batches, drawn with `rng` in the same order).
    fn steps_on(
        &mut self,
        indices: &[usize],
        rng: &mut SmallRng,
        progress: &mut dyn Handler,
    ) -> Vec<zerosum_nn::Losses> {
        let batch_size = self.config.learner.batch_size;
        let num_actions = self.initial.num_actions();
        let device = self.training.model().device();
        let (buffer, symmetries, training) = (&self.buffer, &self.symmetries, &mut self.training);
        let mut load = |chunk: &[usize]| {
            DeviceBatch::upload(&buffer.batch(chunk, num_actions, symmetries, rng), device)
        };
        let mut pending = Vec::with_capacity(indices.len().div_ceil(batch_size));
        if !device.is_cuda() {
            for chunk in indices.chunks(batch_size) {
                pending.push(training.step_on(&load(chunk)));
                progress.phase_advanced(1);
            }
            return PendingLosses::read_all(pending);
        }
        let (sender, batches) = std::sync::mpsc::sync_channel::<DeviceBatch>(PREFETCH_BATCHES);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for chunk in indices.chunks(batch_size) {
                    if sender.send(load(chunk)).is_err() {
                        return;
                    }
                }
            });
            for batch in batches {
                pending.push(training.step_on(&batch));
                progress.phase_advanced(1);
            }
        });
        PendingLosses::read_all(pending)
    }

    /// The gradient steps of a generation that added `new_positions`: `learner.epochs`
    /// passes over the window, or fewer where `replay.reuse` caps the samples drawn per new
    /// position; none when nothing was recorded (every move fast, say).
    fn steps(&self, new_positions: usize) -> u64 {
        if self.buffer.is_empty() {
            return 0;
        }
        let batch_size = self.config.learner.batch_size as f64;
        let epochs = (self.config.learner.epochs * self.buffer.len() as f64 / batch_size)
            .ceil()
            .max(1.0) as u64;
        if self.config.replay.reuse > 0.0 {
            let cap = (self.config.replay.reuse * new_positions as f64 / batch_size).floor();
            epochs.min(cap as u64)
        } else {
            epochs
        }
    }

    /// Fills the window from `store`'s games of generations `generation` and older, newest
    /// first until the window is full, without training: the window a learner holds after
    /// training `generation`.
    /// Under a schedule it holds the largest window the schedule asks for; the next
    /// generation's learning trims it to the window of its point of the run.
    pub fn fill_window(&mut self, store: &RunStore, generation: u64) -> Result<(), TrainError> {
        let largest = self.config.schedule.window_positions.largest().max(1.0);
        let window = (self.config.replay.window_positions as f64 * largest).round() as usize;
        self.buffer.set_window(window);
        let mut reload = Vec::new();
        let mut held = 0;
        for generation in (1..=generation).rev() {
            if held >= window && reload.len() >= self.config.replay.min_generations {
                break;
            }
            let samples = self.samples(generation, &generation_records(store, generation)?);
            held += samples.len();
            reload.push((generation, samples));
        }
        for (generation, samples) in reload.into_iter().rev() {
            self.buffer.add_generation(generation, samples);
        }
        Ok(())
    }
}

/// Where the learner stands after opening a run.
pub struct LearnerRole<'a, G: Game> {
    initial: &'a G,
    config: &'a RunConfig,
    store: &'a RunStore,
    trainer: Trainer<'a, G>,
    /// With gating: the networks that must be beaten, and the promoted generations.
    gate: Option<(Gate, Vec<u64>)>,
    /// The decision on the newest checkpoint, where the run kept one before a restart: the
    /// gate returns it rather than deciding again.
    kept_decision: Option<(u64, GateReport)>,
}

impl<'a, G: Game> LearnerRole<'a, G> {
    /// Opens the run in `store` for training `initial`'s game: writes its identity and
    /// config, and resumes from the newest whole checkpoint or starts generation 0.
    pub fn open(
        initial: &'a G,
        config: &'a ResolvedConfig,
        store: &'a RunStore,
        device: Device,
    ) -> Result<Self, TrainError> {
        if config.replay.value_score_weight > 0.0 && initial.final_score().is_none() {
            return Err(ConfigError(format!(
                "replay.value_score_weight needs a game that counts a score (go); {} has none",
                initial.name()
            ))
            .into());
        }
        // A new run's starting weights are read first: a bad `init` leaves no run behind.
        let saved = checkpoints::generations(store)?;
        let init = if saved.is_empty() && !config.init.is_empty() {
            Some(warm_start(initial, config, device)?)
        } else {
            None
        };
        if let Some(&latest) = saved.last() {
            check_same_network(store, latest, config)?;
        }
        RunIdentity::claim(store, initial.name())?;
        store.replace(names::CONFIG, config.to_toml().as_bytes())?;
        let training = resume_training(initial, config, store, device, init)?;
        let mut role = LearnerRole {
            initial,
            config,
            store,
            trainer: Trainer::new(initial, config, training),
            gate: None,
            kept_decision: None,
        };
        let generation = role.generation();
        role.trainer.fill_window(store, generation)?;
        role.open_gate(device)?;
        Ok(role)
    }

    /// The generation of the newest checkpoint.
    pub fn generation(&self) -> u64 {
        self.model().meta().generation
    }

    /// Gradient steps taken in all.
    pub fn step(&self) -> u64 {
        self.trainer.step()
    }

    /// The network being trained.
    pub fn model(&self) -> &Model {
        self.trainer.model()
    }

    /// The network that plays self-play: the best under gating, else the newest.
    pub fn generator(&self) -> &Model {
        self.gate
            .as_ref()
            .map_or(self.model(), |(gate, _)| &gate.best)
    }

    /// Gating's networks, from the newest decision the run holds up to the newest
    /// checkpoint: the best is the newest promoted checkpoint (generation 0 before any),
    /// the second the one before it. A decision on the newest checkpoint itself is kept
    /// for [`LearnerRole::gate`].
    fn open_gate(&mut self, device: Device) -> Result<(), TrainError> {
        if !self.config.gating.enabled {
            return Ok(());
        }
        let newest = self
            .store
            .list(names::GATING)?
            .iter()
            .filter_map(|name| names::json_generation(name))
            .filter(|&generation| generation <= self.generation())
            .max();
        let state = match newest {
            Some(generation) => read_gate_state(self.store, generation)?,
            None => None,
        };
        if let (Some(generation), Some(state)) = (newest, &state) {
            if generation == self.generation() {
                self.kept_decision = Some((generation, state.report.clone()));
            }
        }
        let (promoted, scores) = state.map_or((vec![0], None), |s| (s.promoted, s.scores));
        let load = |g: u64| checkpoints::load(self.store, g, self.initial, device);
        let best = load(*promoted.last().expect("generation 0 is there"))?;
        let second = match promoted.len() {
            0 | 1 => None,
            n => Some(load(promoted[n - 2])?),
        };
        let gate = Gate {
            best,
            second,
            scores,
        };
        self.gate = Some((gate, promoted));
        Ok(())
    }

    /// The networks of the next generation's `games` self-play games and who plays whom:
    /// the generator against itself, or with `gating.opponents` CGZero's lineup of the
    /// best against itself, the second best and an older promoted generation drawn from
    /// the most recent ones ([`crate::gating::split`]).
    pub fn lineup(&self, games: usize, rng: &mut SmallRng) -> Result<Lineup, TrainError> {
        let cgzero = self.config.gating.opponents;
        let Some((gate, promoted)) = self.gate.as_ref().filter(|_| cgzero) else {
            return Lineup::alone(self.generator(), games);
        };
        let name = names::generation_name;
        let before_second = &promoted[..promoted.len().saturating_sub(2)];
        let recent = &before_second[before_second
            .len()
            .saturating_sub(self.config.gating.older_recent)..];
        let older = (!recent.is_empty()).then(|| recent[rng.random_range(0..recent.len())]);
        let [_, against_second, against_older] = crate::gating::split(
            games,
            self.config.gating.older_share,
            gate.scores,
            gate.second.is_some(),
            older.is_some(),
        );
        let best = *promoted.last().expect("generation 0 is there");
        let mut lineup = Lineup {
            networks: vec![(name(best), gate.best.try_clone()?)],
            seats: vec![[0, 0]; games - against_second - against_older],
        };
        let mut against = |model: Model, generation: u64, games: usize| {
            let seat = lineup.networks.len();
            lineup.networks.push((name(generation), model));
            // Colours alternate.
            lineup
                .seats
                .extend((0..games).map(|game| if game % 2 == 0 { [0, seat] } else { [seat, 0] }));
        };
        if let (Some(second), true) = (&gate.second, against_second > 0) {
            against(
                second.try_clone()?,
                promoted[promoted.len() - 2],
                against_second,
            );
        }
        if let (Some(older), true) = (older, against_older > 0) {
            let model = checkpoints::load(self.store, older, self.initial, gate.best.device())?;
            against(model, older, against_older);
        }
        Ok(lineup)
    }

    /// Adds generation `generation`'s games to the window and trains on it
    /// ([`Trainer::learn`]); fails if the network diverged, before anything is saved.
    pub fn learn(
        &mut self,
        generation: u64,
        records: &[GameRecord],
        budget_used: f64,
        rng: &mut SmallRng,
        progress: &mut dyn Handler,
    ) -> Result<LearnerReport, TrainError> {
        let report = self
            .trainer
            .learn(generation, records, budget_used, rng, progress);
        if !report.final_losses.total.is_finite() {
            return Err(TrainError::Diverged(generation));
        }
        Ok(report)
    }

    /// Writes the network as checkpoint `generation`, with the optimizer's state: the
    /// resume point.
    pub fn checkpoint(&mut self, generation: u64) -> Result<(), TrainError> {
        let training = &mut self.trainer.training;
        let step = training.step();
        training.model_mut().set_progress(step, generation);
        let state = training.optimizer_state()?;
        Ok(checkpoints::save(
            self.store,
            generation,
            training.model(),
            Some(&state),
        )?)
    }

    /// Under gating, plays checkpoint `generation` against the best (and second best) and
    /// promotes it if it wins; `None` without gating. The decision is kept in the run
    /// ([`GateState`]) before it is returned, and a decision kept before a restart is
    /// returned as it was, not taken again.
    pub fn gate(&mut self, generation: u64) -> Result<Option<GateReport>, TrainError> {
        if let Some((_, report)) = self.kept_decision.take_if(|(g, _)| *g == generation) {
            return Ok(Some(report));
        }
        let Some((gate, promoted)) = &mut self.gate else {
            return Ok(None);
        };
        let report = gate.decide(self.initial, self.config, self.trainer.model(), generation)?;
        if report.promoted {
            promoted.push(generation);
        }
        let state = GateState {
            promoted: promoted.clone(),
            scores: gate.scores,
            report: report.clone(),
        };
        let bytes = serde_json::to_vec(&state).expect("gate states serialise");
        self.store.put_once(&names::gate(generation), &bytes)?;
        Ok(Some(report))
    }

    /// The generation self-play should use now: the newest, or under gating the best.
    pub fn published(&self) -> u64 {
        match &self.gate {
            Some((_, promoted)) => *promoted.last().expect("generation 0 is there"),
            None => self.generation(),
        }
    }

    /// Points the run's `latest` at [`LearnerRole::published`], then removes the checkpoint
    /// before the newest unless it is kept (every k-th, generation 0, a promoted best, one
    /// due for evaluation): the pointer never names a removed checkpoint.
    /// Self-play takes the schedule at `budget_used`, recorded in the pointer.
    pub fn publish(&self, budget_used: f64) -> Result<(), TrainError> {
        checkpoints::publish(self.store, self.published(), budget_used)?;
        let previous = self.generation().saturating_sub(1);
        let every = self.config.keep_checkpoint_every;
        let promoted = self
            .gate
            .as_ref()
            .is_some_and(|(_, promoted)| promoted.contains(&previous));
        // A checkpoint due for evaluation stays for an evaluator that follows the run.
        let keep = previous == 0
            || promoted
            || (every > 0 && (previous as usize).is_multiple_of(every))
            || crate::evaluation::is_due(self.config, previous);
        if !keep {
            checkpoints::remove(self.store, previous)?;
        }
        Ok(())
    }
}

/// The network and optimizer of the run's newest checkpoint, as they stopped; for a new run,
/// `init` (the weights it starts from) or a fresh network, written and published as
/// checkpoint 0.
fn resume_training<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    store: &RunStore,
    device: Device,
    init: Option<Model>,
) -> Result<zerosum_nn::TrainState, TrainError> {
    let model = match checkpoints::generations(store)?.last() {
        Some(&generation) => checkpoints::load(store, generation, initial, device)?,
        None => {
            let mut model = match init {
                Some(model) => model,
                None => Model::for_game(initial, &config.model, device)?,
            };
            model.set_progress(0, 0);
            checkpoints::save(store, 0, &model, None)?;
            checkpoints::publish(store, 0, 0.0)?;
            model
        }
    };
    let step = model.meta().step;
    let base = names::checkpoint(model.meta().generation);
    let mut training = zerosum_nn::TrainState::new(model, &config.learner, step)?
        .with_precision(config.training_precision(device))?
        .with_cuda_graphs(config.learner_uses_cuda_graphs(device))?;
    // The optimizer's state goes on where it stopped; a state for another optimizer (the
    // config changed on resume) starts afresh, as a new run would.
    if let Some(state) = store.get(&names::optimizer(&base))? {
        if let Err(error) = training.restore_optimizer(&state) {
            tracing::warn!(
                "{}: {error}; the optimizer starts afresh",
                store.display(&base)
            );
        }
    }
    Ok(training)
}

/// Refuses to go on with a config whose `[model]` is not the network the run's checkpoint
/// `generation` holds (a config.toml edited or emptied by hand): the checkpoint would be
/// trained on, and the config would say otherwise.
fn check_same_network(
    store: &RunStore,
    generation: u64,
    config: &ResolvedConfig,
) -> Result<(), TrainError> {
    let sidecar = names::sidecar(&names::checkpoint(generation));
    let Some(bytes) = store.get(&sidecar)? else {
        return Ok(());
    };
    let meta: zerosum_nn::CheckpointMeta =
        serde_json::from_slice(&bytes).map_err(|e| StoreError::Location {
            location: store.display(&sidecar),
            reason: format!("not a checkpoint's metadata: {e}"),
        })?;
    if same_network(&meta.model, &config.model) {
        return Ok(());
    }
    Err(ConfigError(format!(
        "{} holds a {}, the config's [model] declares a {}: a run's network cannot change (--init starts a new run from its weights)",
        store.display(&sidecar),
        meta.model.describe(),
        config.model.describe()
    )).into())
}

/// The network of `config.init`, the start of a new run: refused in one line when it is
/// for another game, other observations or actions, or a network of another shape than
/// the config's.
fn warm_start<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    device: Device,
) -> Result<Model, TrainError> {
    let found = checkpoints::locate(&config.init)?;
    let refused = |reason: String| -> TrainError {
        ConfigError(format!("init {}: {reason}", config.init)).into()
    };
    let mut model = Model::from_bytes(
        &found.bytes,
        initial,
        device,
        std::path::Path::new(&found.origin),
    )
    .map_err(|e| refused(e.to_string()))?;
    if !same_network(&model.meta().model, &config.model) {
        return Err(refused(format!(
            "its network ({}) is not the config's ([model] {})",
            model.meta().model.describe(),
            config.model.describe()
        )));
    }
    let seconds = model
        .meta()
        .train_seconds
        .or_else(|| checkpoints::run_train_seconds(&found.origin, model.meta().generation));
    model.start_from(found.origin, seconds);
    Ok(model)
}

/// Whether two model configs build the same network: the settings its family reads (an
/// mlp has no channels, a tower no hidden width) and dropout, which the network applies.
fn same_network(a: &zerosum_nn::ModelConfig, b: &zerosum_nn::ModelConfig) -> bool {
    let shared = a.family == b.family
        && a.value_hidden == b.value_hidden
        && a.reply_head == b.reply_head
        && a.dropout == b.dropout;
    shared
        && match a.family {
            zerosum_nn::Family::Mlp => (a.hidden, a.layers) == (b.hidden, b.layers),
            _ => (a.channels, a.blocks) == (b.channels, b.blocks),
        }
}

/// The games of a generation: the actor batches its learner read (asynchronous runs), or
/// the generation's own batches (synchronous).
pub fn generation_records(
    store: &RunStore,
    generation: u64,
) -> Result<Vec<GameRecord>, TrainError> {
    let mut records = Vec::new();
    let names: Vec<String> = match manifest(store, generation)? {
        Some(manifest) => manifest.batches,
        None => {
            let folder = names::generation_games(generation);
            store
                .list(&folder)?
                .into_iter()
                .map(|name| format!("{folder}/{name}"))
                .collect()
        }
    };
    for name in names {
        match read_batch(store, &name) {
            Ok(batch) => records.extend(batch.unwrap_or_default()),
            // A batch cut or edited since it was written is set aside, as the inbox does:
            // the generation's self-play plays its games again where it is unfinished.
            Err(e @ StoreError::BadRecord { .. }) => {
                tracing::warn!("{e}; the batch is set aside")
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(records)
}

/// The manifest of an asynchronous learner's generation, if it chose its batches.
pub fn manifest(store: &RunStore, generation: u64) -> Result<Option<Manifest>, TrainError> {
    let name = names::ingested(generation);
    let Some(bytes) = store.get(&name)? else {
        return Ok(None);
    };
    let manifest = serde_json::from_slice(&bytes).map_err(|e| StoreError::Location {
        location: store.display(&name),
        reason: format!("not a manifest: {e}"),
    })?;
    Ok(Some(manifest))
}

/// What an asynchronous learner's generation read ([`names::ingested`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// Batches learned from.
    pub batches: Vec<String>,
    /// Batches passed over: too stale, or not what an actor of this build writes (cut,
    /// edited, another game's).
    pub stale: Vec<String>,
}

/// What gating keeps of each decision: enough for a learner that resumes after it to go on
/// with the same best, second best and scores.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateState {
    /// Every promoted checkpoint so far, oldest first (generation 0 first).
    pub promoted: Vec<u64>,
    /// The candidate's scores against the best and the second best, once one played both.
    pub scores: Option<(f64, f64)>,
    /// The decision as it was reported.
    pub report: GateReport,
}

/// Gating's decision on checkpoint `generation`, if the run keeps one.
fn read_gate_state(store: &RunStore, generation: u64) -> Result<Option<GateState>, TrainError> {
    let name = names::gate(generation);
    let Some(bytes) = store.get(&name)? else {
        return Ok(None);
    };
    let state = serde_json::from_slice(&bytes).map_err(|e| StoreError::Location {
        location: store.display(&name),
        reason: format!("not a gating decision: {e}"),
    })?;
    Ok(Some(state))
}

/// The mean of each loss term.
pub fn mean_losses(losses: &[Losses]) -> Losses {
    let n = losses.len().max(1) as f64;
    let mut mean = Losses::default();
    for l in losses {
        mean.policy += l.policy / n;
        mean.value += l.value / n;
        mean.l2 += l.l2 / n;
        mean.total += l.total / n;
        mean.policy_entropy += l.policy_entropy / n;
        mean.target_entropy += l.target_entropy / n;
        mean.reply += l.reply / n;
        mean.value_target += l.value_target / n;
    }
    mean
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::Silent;
    use rand::SeedableRng;

    /// A learner reopened on its run takes up the optimizer state of its newest checkpoint.
    #[test]
    fn a_reopened_learner_resumes_its_optimizer_state() {
        let dir = std::env::temp_dir().join(format!("zerosum-learner-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::create(dir.to_str().unwrap()).unwrap();
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = RunConfig::from_toml(
            "game = \"tictactoe\"\n[model]\nfamily = \"mlp\"\nhidden = 8\nlayers = 1\n",
            &[],
        )
        .and_then(RunConfig::resolve)
        .unwrap();
        let records: Vec<GameRecord> = {
            let mut evaluator = zerosum_search::UniformEvaluator;
            let mut records = Vec::new();
            crate::self_play::self_play(
                &game,
                &mut evaluator,
                &config.search,
                &config.self_play,
                4,
                &mut SmallRng::seed_from_u64(1),
                |r| records.push(r),
            );
            records
        };
        let mut role = LearnerRole::open(&game, &config, &store, Device::Cpu).unwrap();
        role.learn(
            1,
            &records,
            0.0,
            &mut SmallRng::seed_from_u64(2),
            &mut Silent,
        )
        .unwrap();
        role.checkpoint(1).unwrap();
        let state = role.trainer.training.optimizer_state().unwrap();
        let reopened = LearnerRole::open(&game, &config, &store, Device::Cpu).unwrap();
        assert_eq!(reopened.generation(), 1);
        assert!(reopened.trainer.training.optimizer_state().unwrap() == state);
        let fresh =
            zerosum_nn::TrainState::new(role.model().try_clone().unwrap(), &config.learner, 0)
                .unwrap();
        assert!(fresh.optimizer_state().unwrap() != state);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
