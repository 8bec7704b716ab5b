//! The loop: actors -> game batches -> learner -> checkpoint -> evaluation, generation
//! after generation, resumable at any point, each step's report handed to one sink (the
//! run's event log, the log, and whatever handler the caller adds: progress bars).
//!
//! A synchronous run ([`Mode::Sync`]) takes turns: the generation's games, then learning,
//! then evaluation, reproducible from the seed. An asynchronous one ([`Mode::Async`]) lets
//! actors (threads here, or `zerosum actor` processes anywhere) play on while the learner
//! trains on whatever batches arrived.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tracing::info_span;
use zerosum_games::Game;
use zerosum_nn::parse_device;

use crate::actor::{batch_text, run_self_play, Actor, ActorOptions};
use crate::error::TrainError;
use crate::evaluation::{is_due, EvaluationRole};
use crate::inbox::Inbox;
use crate::learner::{generation_records, LearnerRole, Manifest};
use crate::reports::GenerationReport;
use crate::reports::{EvalReport, LearnerReport, SelfPlayReport};
use crate::self_play::SelfPlayCounters;
use crate::sink::EventLog;
use crate::sink::{Handler, Log, Moment, Phase, Report, Sink};
use zerosum_config::{derive_seed, stream, Mode, ResolvedConfig, RunConfig};
use zerosum_store::events;
use zerosum_store::names;
use zerosum_store::record::GameRecord;
use zerosum_store::store::RunStore;
use zerosum_store::EventKind;

/// What a finished (or stopped) run reached.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The last generation completed.
    pub generation: u64,
    /// Gradient steps taken in all.
    pub steps: u64,
    /// Training wall time in seconds, all sessions of the run together.
    pub seconds: f64,
    /// The last evaluation, if any.
    pub last_eval: Option<EvalReport>,
}

/// How `train` runs beyond the config: which roles this process takes.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Asynchronous runs: actor threads in this process (0: all actors are elsewhere).
    /// `None` takes `self_play.threads`.
    pub actors: Option<usize>,
    /// Evaluate here; off when `zerosum evaluate --follow` does it on its own.
    pub evaluate: bool,
    /// Where this process's actor threads keep batches until the store has them (a folder
    /// per run is made inside).
    pub outbox: std::path::PathBuf,
    /// Set by the caller (Ctrl-C, SIGTERM) to end the run once the generation under way is
    /// saved: [`train_with`] then returns [`TrainError::Interrupted`].
    pub stop: Arc<AtomicBool>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            actors: None,
            evaluate: true,
            outbox: std::env::temp_dir().join("zerosum-outbox"),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// Trains `initial`'s game with `config` in `store`, continuing from the newest checkpoint
/// there if one exists; this process takes every role. `handler` hears every report after
/// the run's event log has it.
pub fn train<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    store: &RunStore,
    handler: &mut dyn Handler,
) -> Result<RunSummary, TrainError> {
    train_with(initial, config, store, &TrainOptions::default(), handler)
}

/// [`train`] with the roles chosen by `options`.
pub fn train_with<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    store: &RunStore,
    options: &TrainOptions,
    handler: &mut dyn Handler,
) -> Result<RunSummary, TrainError> {
    let device = parse_device(&config.device)?;
    zerosum_nn::init_torch(config.seed, config.torch_threads);
    let mut learner = LearnerRole::open(initial, config, store, device)?;
    let evaluation = match options.evaluate {
        true => {
            Some(EvaluationRole::new(initial, config, device).after(learner.model().try_clone()?))
        }
        false => None,
    };
    let (mut log, mut trace) = (EventLog::new(store), Log);
    let mut run = Loop {
        initial,
        config,
        store,
        evaluation,
        sink: Sink::new().with(&mut log).with(&mut trace).with(handler),
        clock: Clock::resume(store, learner.generation())?,
        last_eval: None,
        requests_before: store.requests(),
        stop: &options.stop,
    };
    run.finish_cut_generation(&mut learner)?;
    match config.mode {
        Mode::Sync => run.sync(&mut learner)?,
        Mode::Async => {
            let actors = options.actors.unwrap_or(config.self_play.threads);
            run.asynchronous(&mut learner, actors, &options.outbox)?
        }
    }
    Ok(RunSummary {
        generation: learner.generation(),
        steps: learner.step(),
        seconds: run.clock.seconds(),
        last_eval: run.last_eval,
    })
}

/// Training time across sessions of a run.
struct Clock {
    earlier: f64,
    start: Instant,
}

impl Clock {
    /// Takes up the time the `generation` event of the resume point recorded.
    fn resume(store: &RunStore, generation: u64) -> Result<Clock, TrainError> {
        Ok(Clock {
            earlier: events::train_seconds_at(store, generation)?.unwrap_or(0.0),
            start: Instant::now(),
        })
    }

    fn seconds(&self) -> f64 {
        self.earlier + self.start.elapsed().as_secs_f64()
    }
}

/// The state the learner's loop carries from one generation to the next.
struct Loop<'a, G: Game> {
    initial: &'a G,
    config: &'a ResolvedConfig,
    store: &'a RunStore,
    /// The evaluation role, where this process evaluates.
    evaluation: Option<EvaluationRole<'a, G>>,
    sink: Sink<'a>,
    clock: Clock,
    last_eval: Option<EvalReport>,
    /// The store's request count when the generation began.
    requests_before: zerosum_store::store::Requests,
    /// Ends the run after the generation under way.
    stop: &'a AtomicBool,
}

impl<G: Game> Loop<'_, G> {
    /// The share of the run's budget used now, `generations` whole generations in.
    fn budget_used(&self, generations: u64) -> f64 {
        self.config.budget_used(self.clock.seconds(), generations)
    }

    /// Whether another generation is to be trained.
    fn more(&self, generation: u64) -> bool {
        self.budget_used(generation) < 1.0
    }

    /// The synchronous loop: each generation plays its games, then learns from them.
    fn sync(&mut self, learner: &mut LearnerRole<G>) -> Result<(), TrainError> {
        while self.more(learner.generation()) {
            let generation = learner.generation() + 1;
            let held = generation_records(self.store, generation)?;
            // The games already kept are part of the seed: a resumed generation must not
            // replay the very games it already has.
            let mut rng = SmallRng::seed_from_u64(derive_seed(
                self.config.seed,
                stream::GENERATION,
                generation | ((held.len() as u64) << 32),
            ));
            let span = info_span!("self_play", generation).entered();
            let scheduled = self.config.at(self.budget_used(generation - 1));
            let (records, report) = play_generation(
                self.initial,
                &scheduled,
                self.store,
                learner,
                generation,
                held,
                &mut rng,
                &mut self.sink,
            )?;
            drop(span);
            self.finish_generation(learner, generation, &records, report, &mut rng)?;
        }
        Ok(())
    }

    /// Reports `generation`'s games (`records`, whose play `self_play` describes), then
    /// learns from them, checkpoints, gates, publishes and evaluates.
    fn finish_generation(
        &mut self,
        learner: &mut LearnerRole<G>,
        generation: u64,
        records: &[GameRecord],
        self_play: SelfPlayReport,
        rng: &mut SmallRng,
    ) -> Result<(), TrainError> {
        let at = |learner: &LearnerRole<G>| Moment {
            generation,
            step: learner.step(),
        };
        self.sink
            .reported(at(learner), Report::SelfPlay(&self_play))?;
        let span = info_span!("learn", generation).entered();
        let used = self.budget_used(generation - 1);
        let learned = learner.learn(generation, records, used, rng, &mut self.sink)?;
        drop(span);
        self.sink.reported(at(learner), Report::Learn(&learned))?;
        learner.checkpoint(generation)?;
        self.gate(learner, generation)?;
        learner.publish(self.budget_used(generation))?;
        let evaluation = self.evaluate(learner, generation)?;
        self.close(learner, generation, &self_play, &learned, evaluation)
    }

    /// Finishes the generation a session was cut off in after its checkpoint, before its
    /// `generation` event: gates it (a decision the run kept stands), publishes it,
    /// evaluates it where due and not yet evaluated, and closes it from its recorded games and
    /// learning. Left alone, it would be published only by the next generation, or never
    /// if it is the last, and the last one's event is what tells actors that the run is
    /// complete.
    fn finish_cut_generation(&mut self, learner: &mut LearnerRole<G>) -> Result<(), TrainError> {
        let generation = learner.generation();
        if generation == 0 || events::recorded(self.store, EventKind::Generation, generation)? {
            return Ok(());
        }
        let (Some(self_play), Some(learned)) = (
            events::read_report::<SelfPlayReport>(self.store, EventKind::SelfPlay, generation)?,
            events::read_report::<LearnerReport>(self.store, EventKind::Learn, generation)?,
        ) else {
            // Without the events of its steps there is nothing to close.
            return Ok(());
        };
        self.gate(learner, generation)?;
        learner.publish(self.budget_used(generation))?;
        let evaluation = match events::read_report(self.store, EventKind::Evaluate, generation)? {
            Some(recorded) => Some(recorded),
            None => {
                if let Some(evaluation) = self.evaluation.as_mut() {
                    evaluation.resume_before(self.store, generation)?;
                }
                self.evaluate(learner, generation)?
            }
        };
        self.close(learner, generation, &self_play, &learned, evaluation)
    }

    /// Under gating, decides whether checkpoint `generation` becomes the best.
    fn gate(&mut self, learner: &mut LearnerRole<G>, generation: u64) -> Result<(), TrainError> {
        if let Some(gate) = learner.gate(generation)? {
            let at = Moment {
                generation,
                step: learner.step(),
            };
            self.sink.reported(at, Report::Gate(&gate))?;
        }
        Ok(())
    }

    /// Reports the end of `generation`, whose games `self_play` and learning `learned`
    /// describe.
    fn close(
        &mut self,
        learner: &LearnerRole<G>,
        generation: u64,
        self_play: &SelfPlayReport,
        learned: &LearnerReport,
        evaluation: Option<EvalReport>,
    ) -> Result<(), TrainError> {
        let report = self.generation_report(self_play, learned, evaluation);
        let at = Moment {
            generation,
            step: learner.step(),
        };
        self.sink.reported(at, Report::Generation(&report))?;
        self.requests_before = self.store.requests();
        // The generation's event and checkpoint are saved: a stop loses nothing.
        match self.stop.load(Ordering::Relaxed) {
            true => Err(TrainError::Interrupted),
            false => Ok(()),
        }
    }

    /// Evaluates the learner's network if this process evaluates and `generation` is due.
    fn evaluate(
        &mut self,
        learner: &LearnerRole<G>,
        generation: u64,
    ) -> Result<Option<EvalReport>, TrainError> {
        let Some(evaluation) = self.evaluation.as_mut() else {
            return Ok(None);
        };
        if !is_due(self.config, generation) {
            return Ok(None);
        }
        let _span = info_span!("evaluate", generation).entered();
        let report = evaluation.evaluate(learner.model(), generation, &mut self.sink)?;
        let at = Moment {
            generation,
            step: learner.step(),
        };
        self.sink.reported(at, Report::Evaluate(&report))?;
        self.last_eval = Some(report.clone());
        Ok(Some(report))
    }

    fn generation_report(
        &self,
        self_play: &SelfPlayReport,
        learned: &LearnerReport,
        evaluation: Option<EvalReport>,
    ) -> GenerationReport {
        GenerationReport {
            train_seconds: self.clock.seconds(),
            games: self_play.games,
            positions_per_second: self_play.positions_per_second,
            mean_length: self_play.mean_length,
            loss: learned.final_losses,
            window_positions: learned.window_positions,
            evaluation,
            store_requests: self.store.requests() - self.requests_before,
            memory_mib: crate::reports::resident_memory_mib(),
        }
    }

    /// The asynchronous loop: `actors` actor threads play on while each generation waits
    /// for `games_per_generation` new games, learns from them and publishes.
    fn asynchronous(
        &mut self,
        learner: &mut LearnerRole<G>,
        actors: usize,
        outbox: &std::path::Path,
    ) -> Result<(), TrainError> {
        let stop = AtomicBool::new(false);
        let base_id = crate::actor::default_actor_id();
        // libtorch's intra-op threads are one pool for the whole process: with actor threads
        // beside the learner, each runs on one, as synchronous self-play's workers do.
        if actors > 0 {
            zerosum_nn::set_torch_threads(1);
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..actors)
                .map(|k| {
                    let options = ActorOptions {
                        id: format!("{base_id}-{k}"),
                        outbox: crate::actor::outbox_for(outbox, self.store.location()),
                        max_batches: 0,
                    };
                    let (initial, config, store, stop) =
                        (self.initial, self.config, self.store.clone(), &stop);
                    scope.spawn(move || {
                        let mut actor = Actor::new(initial, store, config, options)?;
                        actor.run(stop, &mut Log)
                    })
                })
                .collect();
            let stopped = || handles.iter().any(|actor| actor.is_finished());
            let result = self.learn_from_actors(learner, &stopped);
            stop.store(true, Ordering::Relaxed);
            for handle in handles {
                let joined = handle.join().expect("actor threads do not panic");
                if result.is_ok() {
                    joined?;
                }
            }
            result
        })
    }

    /// Each generation: the actors' unread batches, once they hold enough games, then
    /// learning from them; stops with an error once `actor_stopped` says an actor thread
    /// ended.
    fn learn_from_actors(
        &mut self,
        learner: &mut LearnerRole<G>,
        actor_stopped: &dyn Fn() -> bool,
    ) -> Result<(), TrainError> {
        let mut inbox = Inbox::open(self.store)?;
        // Positions reach the learner while it trains too: their rate is taken over the
        // whole of a generation, not its wait for games alone.
        let mut since = Instant::now();
        while self.more(learner.generation()) {
            let generation = learner.generation() + 1;
            let (manifest, records) = match crate::learner::manifest(self.store, generation)? {
                // A learner restarted after choosing this generation's batches keeps them.
                Some(manifest) => (manifest, generation_records(self.store, generation)?),
                None => inbox.collect(
                    self.config,
                    generation,
                    learner.published(),
                    actor_stopped,
                    &|record: &GameRecord| record.check(self.initial),
                    &mut self.sink,
                )?,
            };
            inbox.mark(&manifest);
            self.store.put_once(
                &names::ingested(generation),
                &serde_json::to_vec(&manifest).expect("manifests serialise"),
            )?;
            let seconds = since.elapsed().as_secs_f64();
            let report = actors_report(&records, &manifest, learner.published(), seconds);
            since = Instant::now();
            let mut rng = SmallRng::seed_from_u64(derive_seed(
                self.config.seed,
                stream::GENERATION,
                generation,
            ));
            self.finish_generation(learner, generation, &records, report, &mut rng)?;
        }
        Ok(())
    }
}

/// The report of an asynchronous generation's games: `records`, read from the batches
/// `manifest` names over `seconds`, while `published` was the checkpoint actors were to play.
fn actors_report(
    records: &[GameRecord],
    manifest: &Manifest,
    published: u64,
    seconds: f64,
) -> SelfPlayReport {
    let mut report = self_play_report(records, &SelfPlayCounters::default());
    let positions: usize = records.iter().map(GameRecord::samples).sum();
    report.positions_per_second = positions as f64 / seconds.max(1e-9);
    report.actors = manifest
        .batches
        .iter()
        .filter_map(|name| names::batch_actor(name))
        .collect::<HashSet<_>>()
        .len();
    report.stale_batches = manifest.stale.len();
    let ages: Vec<u64> = (manifest.batches.iter())
        .map(|name| published.saturating_sub(names::batch_checkpoint(name).unwrap_or(published)))
        .collect();
    report.checkpoint_age = ages.iter().sum::<u64>() as f64 / ages.len().max(1) as f64;
    report
}

/// Plays what generation `generation` still lacks beside the `records` it holds, written in
/// batches as games finish; returns all of its games and the report of this session's play.
#[allow(clippy::too_many_arguments)]
fn play_generation<G: Game>(
    initial: &G,
    config: &RunConfig,
    store: &RunStore,
    learner: &LearnerRole<G>,
    generation: u64,
    mut records: Vec<GameRecord>,
    rng: &mut SmallRng,
    progress: &mut dyn Handler,
) -> Result<(Vec<GameRecord>, SelfPlayReport), TrainError> {
    let wanted = config.self_play.games_per_generation;
    let needed = wanted.saturating_sub(records.len());
    progress.phase_started(generation, Phase::SelfPlay, wanted as u64);
    progress.phase_advanced(records.len() as u64);
    let mut next_batch = store.list(&names::generation_games(generation))?.len();
    let mut pending: Vec<GameRecord> = Vec::new();
    let mut write = |batch: &mut Vec<GameRecord>| -> Result<(), TrainError> {
        if !batch.is_empty() {
            let name = names::generation_batch(generation, next_batch);
            store.put_once(&name, batch_text(batch).as_bytes())?;
            next_batch += 1;
            batch.clear();
        }
        Ok(())
    };
    let mut played = Vec::with_capacity(needed);
    let lineup = learner.lineup(needed, rng)?;
    // A generation under way finishes: Ctrl-C saves it first.
    let finish = AtomicBool::new(false);
    let counters = run_self_play(initial, config, lineup, rng, &finish, |record| {
        pending.push(record.clone());
        played.push(record);
        progress.phase_advanced(1);
        if pending.len() >= config.self_play.games_per_batch {
            write(&mut pending)?;
        }
        Ok(())
    })?;
    write(&mut pending)?;
    records.extend(played);
    let report = self_play_report(&records, &counters);
    Ok((records, report))
}

fn self_play_report(records: &[GameRecord], counters: &SelfPlayCounters) -> SelfPlayReport {
    let lengths: Vec<usize> = records.iter().map(|r| r.actions.len()).collect();
    let games = records.len().max(1) as f64;
    let seconds = counters.seconds.max(1e-9);
    SelfPlayReport {
        games: records.len(),
        moves: lengths.iter().sum(),
        mean_length: lengths.iter().sum::<usize>() as f64 / games,
        min_length: lengths.iter().copied().min().unwrap_or(0),
        max_length: lengths.iter().copied().max().unwrap_or(0),
        first_wins: records.iter().filter(|r| r.value_first > 0.0).count() as f64 / games,
        draws: records.iter().filter(|r| r.value_first == 0.0).count() as f64 / games,
        second_wins: records.iter().filter(|r| r.value_first < 0.0).count() as f64 / games,
        positions_per_second: counters.positions as f64 / seconds,
        simulations_per_second: counters.simulations as f64 / seconds,
        evaluations_per_second: counters.evaluations as f64 / seconds,
        mean_batch: counters.mean_batch(),
        cache_hit_rate: counters.cache_hits as f64
            / (counters.cache_hits + counters.evaluations).max(1) as f64,
        seconds: counters.seconds,
        actors: 0,
        stale_batches: 0,
        distinct_games: records
            .iter()
            .map(|r| &r.actions)
            .collect::<HashSet<_>>()
            .len(),
        checkpoint_age: 0.0,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sink::Silent;
    use zerosum_nn::Model;

    /// A fresh run store in the temporary folder, for a test named `name`.
    pub(crate) fn scratch(name: &str) -> (std::path::PathBuf, RunStore) {
        let dir = std::env::temp_dir().join(format!("zerosum-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::create(dir.to_str().unwrap()).unwrap();
        (dir, store)
    }

    /// A tic-tac-toe run small enough for a test, with `extra` at the top of its config.
    pub(crate) fn tiny(extra: &str) -> ResolvedConfig {
        tiny_set(extra, &[])
    }

    /// [`tiny`] with `sets` applied as `--set KEY=VALUE` would.
    pub(crate) fn tiny_set(extra: &str, sets: &[&str]) -> ResolvedConfig {
        let sets: Vec<String> = sets.iter().map(|set| set.to_string()).collect();
        RunConfig::from_toml(
            &format!(
                r#"
            game = "tictactoe"
            {extra}
            [model]
            family = "mlp"
            hidden = 16
            layers = 1
            [search]
            num_simulations = 4
            [self_play]
            games_per_generation = 4
            batch_games = 4
            games_per_batch = 3
            [arena]
            every = 0
            "#
            ),
            &sets,
        )
        .and_then(RunConfig::resolve)
        .unwrap()
    }

    /// The schedule shapes each generation's learning rate, window and opening plies by
    /// the share of the run's generations done (no time limit here), and the published
    /// pointer tells actors where the run stands.
    #[test]
    fn a_schedule_shapes_each_generation_over_the_run() {
        let (dir, store) = scratch("schedule");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = tiny_set(
            "generations = 4",
            &[
                "learner.learning_rate=0.01",
                "schedule.learning_rate=[[0, 1], [1, 0.1]]",
                "replay.window_positions=1000",
                "schedule.window_positions=[[0, 0.01], [0.5, 1]]",
                "self_play.random_opening_plies=3",
                "schedule.random_opening_plies=[[0, 0], [0.5, 0], [0.75, 1]]",
            ],
        );
        train(&game, &config, &store, &mut Silent).unwrap();
        let learned: Vec<(f64, u64)> = events::read(&store)
            .unwrap()
            .iter()
            .filter(|e| e["event"] == "learn")
            .map(|e| {
                let rate = e["learning_rate"].as_f64().unwrap();
                (
                    (rate * 1e6).round() / 1e6,
                    e["window_positions"].as_u64().unwrap(),
                )
            })
            .collect();
        // Generation g learns at (g - 1) / 4 of the run: rates fall along the line, and the
        // window holds 10 positions (generation 1's newest) until it grows.
        let rates: Vec<f64> = learned.iter().map(|l| l.0).collect();
        assert_eq!(rates, [0.01, 0.00775, 0.0055, 0.00325]);
        assert!(learned[1].1 < learned[3].1, "{learned:?}");
        let opening = |generation| {
            generation_records(&store, generation)
                .unwrap()
                .iter()
                .map(|r| r.stats.iter().take_while(|s| s.is_none()).count())
                .max()
                .unwrap()
        };
        assert_eq!([1, 2, 3, 4].map(opening), [0, 0, 0, 3]);
        let pointer = zerosum_store::checkpoints::published(&store)
            .unwrap()
            .unwrap();
        assert_eq!(pointer.budget_used, 1.0);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A session stopped between a generation's self-play and its checkpoint replays no
    /// game on resume and records the generation's self-play once.
    #[test]
    fn a_resumed_generation_with_all_its_games_logs_its_self_play_once() {
        let (dir, store) = scratch("relog");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = tiny("generations = 1");
        train(&game, &config, &store, &mut Silent).unwrap();
        // Four games in batches of three: two batch objects.
        assert_eq!(
            store.list("games/gen-0001").unwrap(),
            vec!["0000.jsonl", "0001.jsonl"]
        );
        // As if the process had died after self-play and learning but before the checkpoint.
        zerosum_store::checkpoints::remove(&store, 1).unwrap();
        store.delete(&EventKind::Generation.object(1)).unwrap();
        let before = generation_records(&store, 1).unwrap();
        assert_eq!(before.len(), 4);
        let summary = train(&game, &config, &store, &mut Silent).unwrap();
        assert_eq!(summary.generation, 1);
        assert_eq!(generation_records(&store, 1).unwrap(), before);
        let kinds: Vec<String> = events::read(&store)
            .unwrap()
            .iter()
            .map(|e| e["event"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(kinds, ["self_play", "learn", "generation"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A batch cut short on disk (its last game half written) or holding bytes that are not
    /// UTF-8 is set aside on resume, and the generation's self-play plays its games again
    /// instead of the run stopping.
    #[test]
    fn a_damaged_batch_is_set_aside_and_its_games_played_again() {
        let (dir, store) = scratch("damaged-batch");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = tiny("generations = 1");
        train(&game, &config, &store, &mut Silent).unwrap();
        zerosum_store::checkpoints::remove(&store, 1).unwrap();
        store.delete(&names::event(1, 5, "generation")).unwrap();
        let batch = dir.join("games/gen-0001/0001.jsonl");
        let text = std::fs::read_to_string(&batch).unwrap();
        std::fs::write(&batch, &text[..text.len() / 2]).unwrap();
        assert_eq!(generation_records(&store, 1).unwrap().len(), 3);
        let other = dir.join("games/gen-0001/0000.jsonl");
        let mut garbled = std::fs::read(&other).unwrap();
        let its_games = garbled.iter().filter(|&&b| b == b'\n').count();
        garbled.extend_from_slice(b"\xff\xfe\n");
        std::fs::write(&other, garbled).unwrap();
        assert_eq!(
            generation_records(&store, 1).unwrap().len(),
            3 - its_games,
            "bytes not UTF-8 too"
        );
        let summary = train(&game, &config, &store, &mut Silent).unwrap();
        assert_eq!(summary.generation, 1);
        assert_eq!(generation_records(&store, 1).unwrap().len(), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Remembers the phases and the kinds of report it hears.
    #[derive(Default)]
    struct Listener {
        phases: Vec<String>,
        reports: Vec<String>,
    }

    impl Handler for Listener {
        fn phase_started(&mut self, generation: u64, phase: Phase, _: u64) {
            self.phases.push(format!("{generation} {}", phase.name()));
        }
        fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
            let (kind, _) = report.event().expect("the loop reports generations' steps");
            self.reports.push(format!("{} {kind}", at.generation));
            Ok(())
        }
    }

    /// A generation cut off after its checkpoint, before its `generation` event, still
    /// counts: the time up to the generation before plus its own steps' seconds; so does
    /// one whose event was cut short.
    #[test]
    fn a_generation_cut_off_before_its_event_keeps_its_training_time() {
        let (dir, store) = scratch("cut-off");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        train(&game, &tiny("generations = 2"), &store, &mut Silent).unwrap();
        let first = events::train_seconds_at(&store, 1).unwrap().unwrap();
        let whole = events::train_seconds_at(&store, 2).unwrap().unwrap();
        let event = names::event(2, 5, "generation");
        std::fs::remove_file(dir.join(&event)).unwrap();
        let steps: f64 = ["1-self_play", "2-learn"]
            .iter()
            .map(|step| {
                let text =
                    std::fs::read_to_string(dir.join(format!("metrics/gen-0002-{step}.json")))
                        .unwrap();
                serde_json::from_str::<serde_json::Value>(&text).unwrap()["seconds"]
                    .as_f64()
                    .unwrap()
            })
            .sum();
        let counted = events::train_seconds_at(&store, 2).unwrap().unwrap();
        assert!(
            (counted - (first + steps)).abs() < 1e-9,
            "{counted} {first} {steps}"
        );
        assert!(counted <= whole + 1e-9 && counted > first);
        std::fs::write(dir.join(&event), "{\"event\":\"generation\",\"genera").unwrap();
        assert_eq!(events::train_seconds_at(&store, 2).unwrap(), Some(counted));
        assert_eq!(events::train_seconds_at(&store, 0).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A session cut off right after a checkpoint, before the generation was published,
    /// evaluated and closed: the resumed run finishes that generation before anything else,
    /// the run's last one included, which a resume would otherwise never touch again; an
    /// evaluation already recorded is kept, not played again.
    #[test]
    fn a_generation_cut_off_after_its_checkpoint_is_finished_on_resume() {
        let (dir, store) = scratch("finish-cut");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let sets = [
            "arena.every=1",
            "arena.games=2",
            "arena.baselines=[\"random\"]",
        ];
        let config = tiny_set("generations = 2", &sets);
        train(&game, &config, &store, &mut Silent).unwrap();
        let event = |kind: &str, order: u8| -> serde_json::Value {
            let bytes = store.get(&names::event(2, order, kind)).unwrap();
            serde_json::from_slice(&bytes.expect(kind)).unwrap()
        };
        let (learned, evaluated) = (event("learn", 2), event("evaluate", 4));
        store.delete(&names::event(2, 4, "evaluate")).unwrap();
        store.delete(&names::event(2, 5, "generation")).unwrap();
        zerosum_store::checkpoints::publish(&store, 1, 0.0).unwrap();

        let mut resumed = Listener::default();
        assert_eq!(
            train(&game, &config, &store, &mut resumed)
                .unwrap()
                .generation,
            2
        );
        assert_eq!(resumed.phases, ["2 evaluate"]);
        assert_eq!(resumed.reports, ["2 evaluate", "2 generation"]);
        let published = zerosum_store::checkpoints::published(&store)
            .unwrap()
            .unwrap();
        assert_eq!(published.generation, 2);
        let closed = event("generation", 5);
        assert_eq!(closed["games"], 4);
        assert_eq!(closed["loss"], learned["final_losses"]);
        assert_eq!(closed["window_positions"], learned["window_positions"]);
        let opponents: Vec<&str> = closed["evaluation"]["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["opponent"].as_str().unwrap())
            .collect();
        assert_eq!(opponents, ["random", "gen-0001"]);
        assert_eq!(events::read(&store).unwrap().len(), 8);

        // Cut off after the evaluation: its event closes the generation as it is.
        let evaluated_again = event("evaluate", 4);
        store.delete(&names::event(2, 5, "generation")).unwrap();
        let mut resumed = Listener::default();
        train(&game, &config, &store, &mut resumed).unwrap();
        assert_eq!(resumed.reports, ["2 generation"]);
        assert_eq!(
            event("generation", 5)["evaluation"]["matches"],
            evaluated_again["matches"]
        );
        assert_ne!(evaluated["time"], evaluated_again["time"]);

        // Finished: a resume adds nothing.
        let mut resumed = Listener::default();
        train(&game, &config, &store, &mut resumed).unwrap();
        assert!(resumed.reports.is_empty(), "{:?}", resumed.reports);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The caller's handler hears each step as the run's event log keeps it, in order.
    #[test]
    fn a_callers_handler_hears_what_the_event_log_keeps() {
        let (dir, store) = scratch("handler");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let mut listener = Listener::default();
        train(&game, &tiny("generations = 2"), &store, &mut listener).unwrap();
        let logged: Vec<String> = events::read(&store)
            .unwrap()
            .iter()
            .map(|e| format!("{} {}", e["generation"], e["event"].as_str().unwrap()))
            .collect();
        assert_eq!(listener.reports, logged);
        assert_eq!(logged.len(), 6, "{logged:?}");
        assert_eq!(
            listener.phases,
            ["1 self-play", "1 learn", "2 self-play", "2 learn"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// CGZero's self-play opponents under gating: once there is a second best and an
    /// older promoted network, a generation's games pit the best against each, colours
    /// alternating, the older one a tenth of them; a reopened run reads the last
    /// candidate's scores back from its gate events.
    #[test]
    fn gating_with_opponents_plays_the_best_against_the_second_and_an_older_network() {
        let (dir, store) = scratch("opponents");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let mut config = (*tiny(
            "generations = 3\n[gating]\nenabled = true\nbest_two = true\nopponents = true\nthreshold = 0.0\ngames = 2",
        ))
        .clone();
        config.self_play.games_per_generation = 20;
        let config = config.resolve().unwrap();
        train(&game, &config, &store, &mut Silent).unwrap();
        // Every candidate is promoted (threshold 0): at generation 3 the best is gen 2, the
        // second gen 1, and the only older one gen 0.
        let records = generation_records(&store, 3).unwrap();
        assert_eq!(records.len(), 20);
        let games = |a: &str, b: &str| {
            records
                .iter()
                .filter(|r| r.players == [a, b] || r.players == [b, a])
                .count()
        };
        assert_eq!(games("gen-0002", "gen-0000"), 2);
        assert!(records
            .iter()
            .any(|r| r.players == ["gen-0000", "gen-0002"]));
        let against_second = games("gen-0002", "gen-0001");
        assert!(against_second > 0);
        assert_eq!(games("gen-0002", "gen-0002") + against_second + 2, 20);
        // Generation 1 had no second best: all its games are the best against itself.
        let first = generation_records(&store, 1).unwrap();
        assert!(first.iter().all(|r| r.players == ["gen-0000", "gen-0000"]));
        let reopened = LearnerRole::open(&game, &config, &store, zerosum_nn::Device::Cpu).unwrap();
        let lineup = reopened
            .lineup(20, &mut SmallRng::seed_from_u64(1))
            .unwrap();
        let names: Vec<&str> = lineup.networks.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[..2], ["gen-0003", "gen-0002"]);
        assert!(
            names[2] == "gen-0001" || names[2] == "gen-0000",
            "{names:?}"
        );
        let events = zerosum_store::events::read(&store).unwrap();
        let gate = events.iter().rev().find(|e| e["event"] == "gate").unwrap();
        // Each decision is kept, and one kept before a restart is returned, not retaken.
        let kept = store.list(zerosum_store::names::GATING).unwrap();
        assert_eq!(kept, ["gen-0001.json", "gen-0002.json", "gen-0003.json"]);
        let mut again = LearnerRole::open(&game, &config, &store, zerosum_nn::Device::Cpu).unwrap();
        let decided = again.gate(3).unwrap().unwrap();
        assert!(decided.promoted);
        assert_eq!(
            serde_json::to_value(&decided.matches).unwrap(),
            gate["matches"]
        );
        let score = |m: &serde_json::Value| {
            let n = |k: &str| m[k].as_f64().unwrap();
            (n("wins") + n("draws") / 2.0) / (n("wins") + n("draws") + n("losses"))
        };
        let scores = (score(&gate["matches"][0]), score(&gate["matches"][1]));
        let split = crate::gating::split(20, 0.1, Some(scores), true, true);
        let seated = |seat: usize| {
            lineup
                .seats
                .iter()
                .filter(|s| s.contains(&seat) && s != &&[0, 0])
                .count()
        };
        assert_eq!(
            [
                lineup.seats.iter().filter(|s| **s == [0, 0]).count(),
                seated(1),
                seated(2)
            ],
            split
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An asynchronous run on one machine: one actor thread feeds the learner; every
    /// generation reads batches no other generation read.
    #[test]
    fn an_asynchronous_run_learns_from_each_batch_once() {
        let (dir, store) = scratch("async");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = tiny("mode = \"async\"\ngenerations = 3");
        let options = TrainOptions {
            actors: Some(1),
            outbox: dir.join("outbox"),
            ..TrainOptions::default()
        };
        let summary = train_with(&game, &config, &store, &options, &mut Silent).unwrap();
        assert_eq!(summary.generation, 3);
        let mut seen = HashSet::new();
        for generation in 1..=3 {
            let manifest: Manifest =
                serde_json::from_slice(&store.get(&names::ingested(generation)).unwrap().unwrap())
                    .unwrap();
            assert!(!manifest.batches.is_empty());
            for batch in manifest.batches {
                assert!(seen.insert(batch.clone()), "{batch} read twice");
            }
            assert!(generation_records(&store, generation).unwrap().len() >= 4);
        }
        assert_eq!(
            zerosum_store::checkpoints::published(&store)
                .unwrap()
                .unwrap()
                .generation,
            3
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Tic-tac-toe counts no score: a run asking to learn from one is refused before it
    /// writes anything.
    #[test]
    fn a_score_target_for_a_game_without_a_score_is_refused() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = tiny("[replay]\nvalue_score_weight = 0.3");
        let (dir, store) = scratch("score-without-score");
        let error = train(&game, &config, &store, &mut Silent)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("value_score_weight") && error.contains("tictactoe"),
            "{error}"
        );
        assert!(zerosum_store::checkpoints::generations(&store)
            .unwrap()
            .is_empty());
        assert_eq!(store.get_text(zerosum_store::names::CONFIG).unwrap(), None);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A learning rate far too high makes the loss NaN at the first generation that learns
    /// (the second: the window waits for two): the run stops there, its checkpoint not
    /// written, instead of training NaN for ever.
    #[test]
    fn a_diverged_network_stops_the_run_before_its_checkpoint() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = tiny_set(
            "generations = 3",
            &["learner.optimizer=\"sgd\"", "learner.learning_rate=1e30"],
        );
        let (dir, store) = scratch("diverged");
        let error = train(&game, &config, &store, &mut Silent).unwrap_err();
        assert!(matches!(error, TrainError::Diverged(2)), "{error}");
        let saved = zerosum_store::checkpoints::generations(&store).unwrap();
        assert_eq!(saved.last(), Some(&1), "{saved:?}");
        let _ = std::fs::remove_dir_all(dir);
    }

    /// `init`: a new run starts from another run's weights and keeps where they came from,
    /// and a network of another shape is refused in one line.
    #[test]
    fn a_run_started_from_a_checkpoint_begins_with_its_weights_and_lineage() {
        use zerosum_store::checkpoints;
        let cpu = zerosum_nn::Device::Cpu;
        let weights = |model: &Model| model.to_bytes().unwrap().weights;
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let (parent_dir, parent) = scratch("init-parent");
        train(&game, &tiny("generations = 2"), &parent, &mut Silent).unwrap();
        let init = format!("generations = 1\ninit = {:?}", parent_dir.to_str().unwrap());
        let (dir, store) = scratch("init-child");
        train(&game, &tiny(&init), &store, &mut Silent).unwrap();
        let from = checkpoints::load(&parent, 2, &game, cpu).unwrap();
        let start = checkpoints::load(&store, 0, &game, cpu).unwrap();
        assert_eq!(weights(&from), weights(&start));
        assert_eq!(start.meta().generation, 0);
        let lineage = &start.meta().lineage;
        assert_eq!(lineage.len(), 1);
        assert_eq!(lineage[0].generation, 2);
        assert!(lineage[0].checkpoint.ends_with("gen-0002"), "{lineage:?}");
        assert!(
            lineage[0].train_seconds.is_some_and(|s| s > 0.0),
            "{lineage:?}"
        );
        let trained = checkpoints::load(&store, 1, &game, cpu).unwrap();
        assert_eq!(
            &trained.meta().lineage,
            lineage,
            "the lineage stays with the run"
        );
        assert_ne!(weights(&trained), weights(&start));

        // Shipped, the child keeps its run's training time; a run started from the shipped
        // copy has both runs in its lineage, with their hours.
        let (models, _) = scratch("init-models");
        let shipped = zerosum_players::shipped::add(dir.to_str().unwrap(), &models, "ttt").unwrap();
        let child_seconds = shipped.train_seconds.expect("the run's time is recorded");
        assert!(child_seconds > 0.0);
        assert_eq!(shipped.lineage, *lineage);
        let init = format!("generations = 1\ninit = {:?}", models.join("ttt"));
        let (grandchild_dir, grandchild) = scratch("init-grandchild");
        train(&game, &tiny(&init), &grandchild, &mut Silent).unwrap();
        let grand = checkpoints::load(&grandchild, 1, &game, cpu).unwrap();
        let ancestors = &grand.meta().lineage;
        assert_eq!(ancestors.len(), 2, "{ancestors:?}");
        assert_eq!(ancestors[0], lineage[0]);
        assert_eq!(ancestors[1].generation, 1);
        assert_eq!(ancestors[1].train_seconds, Some(child_seconds));
        assert_eq!(
            grand.meta().train_seconds,
            None,
            "a run's own time is not its parent's"
        );

        let (wider_dir, wider) = scratch("init-wider");
        let mut config = (*tiny(&init)).clone();
        config.model.hidden = 32;
        let error = train(&game, &config.resolve().unwrap(), &wider, &mut Silent)
            .unwrap_err()
            .to_string();
        assert!(error.contains("is not the config's"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        assert!(
            wider.list("").unwrap().is_empty(),
            "a refused init leaves no run behind"
        );
        for dir in [parent_dir, dir, wider_dir, models, grandchild_dir] {
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    fn tiny_shape() -> zerosum_nn::ModelConfig {
        zerosum_nn::ModelConfig {
            family: zerosum_nn::Family::Mlp,
            hidden: 8,
            layers: 1,
            ..Default::default()
        }
    }

    /// Tic-tac-toe self-play of `games` games with `self_play` settings, on the CPU.
    fn tiny_self_play(
        self_play: &str,
        games: usize,
        model: Option<&Model>,
    ) -> (Vec<GameRecord>, SelfPlayCounters) {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let text = format!(
            r#"
            game = "tictactoe"
            [model]
            family = "mlp"
            hidden = 8
            layers = 1
            [search]
            num_simulations = 4
            [self_play]
            random_opening_plies = 2
            {self_play}
            "#
        );
        let config = RunConfig::from_toml(&text, &[]).unwrap();
        let fresh = Model::for_game(&game, &config.model, zerosum_nn::Device::Cpu).unwrap();
        let mut records = Vec::new();
        let lineup = crate::actor::Lineup::alone(model.unwrap_or(&fresh), games).unwrap();
        let counters = run_self_play(
            &game,
            &config,
            lineup,
            &mut SmallRng::seed_from_u64(3),
            &std::sync::atomic::AtomicBool::new(false),
            |record| {
                records.push(record);
                Ok(())
            },
        )
        .unwrap();
        (records, counters)
    }

    /// Self-play on two threads: each of the games asked for is handed on once, none lost
    /// and none twice, whatever order the workers finish in, with a network per thread or
    /// one behind an inference server.
    #[test]
    fn self_play_on_two_threads_records_every_game_once() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        for inference in ["threads", "server"] {
            let (records, counters) = tiny_self_play(
                &format!("threads = 2\nbatch_games = 2\ninference = \"{inference}\""),
                7,
                None,
            );
            assert_eq!(records.len(), 7);
            assert_eq!(counters.games, 7);
            let recorded: usize = records.iter().map(GameRecord::samples).sum();
            assert_eq!(recorded as u64, counters.positions);
            for record in &records {
                record.replay(&game).unwrap();
            }
            assert!(counters.network_calls <= counters.calls, "{inference}");
        }
    }

    /// One thread behind a server sees exactly the batches it would evaluate itself: the
    /// same seed plays the same games either way.
    #[test]
    fn one_thread_plays_the_same_games_behind_a_server() {
        let (game, shape) = (zerosum_games::tic_tac_toe::TicTacToe::new(), tiny_shape());
        let model = Model::for_game(&game, &shape, zerosum_nn::Device::Cpu).unwrap();
        let settings =
            |inference| format!("threads = 1\nbatch_games = 3\ninference = \"{inference}\"");
        let (own, _) = tiny_self_play(&settings("threads"), 6, Some(&model));
        let (served, counters) = tiny_self_play(&settings("server"), 6, Some(&model));
        assert_eq!(counters.network_calls, counters.calls);
        let moves = |records: &[GameRecord]| -> Vec<_> {
            records
                .iter()
                .map(|r| (r.actions.clone(), r.result.clone()))
                .collect()
        };
        assert_eq!(moves(&own), moves(&served));
    }

    /// Many threads behind one server: their batches meet, so the network runs fewer,
    /// larger passes than the threads ask for, none above the maximum.
    #[test]
    fn threads_behind_a_server_share_its_batches() {
        let (records, counters) = tiny_self_play(
            "threads = 4\nbatch_games = 4\ninference = \"server\"\nmax_batch = 12",
            24,
            None,
        );
        assert_eq!(records.len(), 24);
        assert!(counters.network_calls < counters.calls, "{counters:?}");
        assert!(counters.evaluations <= 12 * counters.network_calls);
    }
}
