//! The loop: self-play -> replay window -> learner -> checkpoint -> evaluation -> metrics,
//! generation after generation, resumable at any point.

use std::sync::mpsc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tracing::info_span;
use zerosum_games::Game;
use zerosum_nn::{parse_device, Learner, Losses, Model, NetEvaluator};

use crate::arena::{play_match_with_openings, MatchReport};
use crate::config::{derive_seed, stream, ResolvedConfig, RunConfig};
use crate::error::TrainError;
use crate::gating::Gate;
use crate::metrics::{event_line, EvalReport, LearnerReport, SelfPlayReport};
use crate::players::{build_agent, Agent, MctsAgent, PlayerSpec};
use crate::record::GameRecord;
use crate::replay::{samples_from_record, ReplayBuffer, ValueTarget};
use crate::self_play::{self_play, SelfPlayCounters};
use crate::store::RunStore;

/// Listens to the loop's progress; the binary draws progress bars from it.
pub trait Progress {
    /// A phase begins (`self-play`, `learn`, `evaluate`) with `total` units of work.
    fn start(&mut self, generation: u64, phase: &str, total: u64);
    /// `done` more units finished.
    fn advance(&mut self, done: u64);
    /// The phase ended; `summary` is one line.
    fn finish(&mut self, summary: &str);
}

/// A [`Progress`] that shows nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&mut self, _: u64, _: &str, _: u64) {}
    fn advance(&mut self, _: u64) {}
    fn finish(&mut self, _: &str) {}
}

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

fn checkpoint_name(generation: u64) -> String {
    format!("checkpoints/gen-{generation:04}")
}

/// The newest generation with a complete numbered checkpoint (weights and sidecar).
fn newest_checkpoint(store: &dyn RunStore) -> Result<Option<u64>, TrainError> {
    let mut newest = None;
    for name in store.list("checkpoints")? {
        let Some(generation) = name
            .strip_prefix("gen-")
            .and_then(|rest| rest.strip_suffix(".json"))
            .and_then(|number| number.parse::<u64>().ok())
        else {
            continue;
        };
        if zerosum_nn::checkpoint_base(&store.local_path(&checkpoint_name(generation))).is_ok() {
            newest = newest.max(Some(generation));
        }
    }
    Ok(newest)
}

fn games_file(generation: u64) -> String {
    format!("games/gen-{generation:04}.jsonl")
}

fn read_records(store: &dyn RunStore, generation: u64) -> Result<Vec<GameRecord>, TrainError> {
    let name = games_file(generation);
    store
        .read_lines(&name)?
        .iter()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| TrainError::BadRecord {
                path: store.local_path(&name),
                line: i + 1,
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Seconds of training recorded by earlier sessions of this run.
fn previous_sessions(store: &dyn RunStore) -> Result<PreviousSessions, TrainError> {
    let mut previous = PreviousSessions::default();
    for line in store.read_lines("metrics.jsonl")? {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) {
            if value["event"] == "generation" {
                previous.seconds = value["train_seconds"].as_f64().unwrap_or(previous.seconds);
            }
            if value["event"] == "self_play" {
                let generation = value["generation"].as_u64().unwrap_or(0);
                previous.self_play_logged = previous.self_play_logged.max(generation);
            }
        }
    }
    Ok(previous)
}

/// What metrics.jsonl says about the sessions before a resume.
#[derive(Default)]
struct PreviousSessions {
    /// Training seconds so far.
    seconds: f64,
    /// The last generation whose self-play is logged (0 for none).
    self_play_logged: u64,
}

/// Trains `initial`'s game with `config` in `store`, continuing from the latest checkpoint
/// there if one exists.
pub fn train<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    store: &dyn RunStore,
    progress: &mut dyn Progress,
) -> Result<RunSummary, TrainError> {
    let device = parse_device(&config.device)?;
    zerosum_nn::init_torch(config.seed, config.torch_threads);
    store.write_atomic("config.toml", &config.to_toml())?;
    let latest = store.local_path("checkpoints/latest");
    // Resume from the newest complete numbered checkpoint: each is written under a fresh
    // name, weights then sidecar, so a crash mid-write leaves an incomplete pair that is
    // skipped (`latest` is a copy for people and tools).
    let model = if let Some(generation) = newest_checkpoint(store)? {
        Model::load(
            &store.local_path(&checkpoint_name(generation)),
            initial,
            device,
        )?
    } else {
        let mut model = Model::for_game(initial, &config.model, device)?;
        model.set_progress(0, 0);
        model.save(&store.local_path("checkpoints/gen-0000"))?;
        model.save(&latest)?;
        model
    };
    let start_generation = model.meta().generation;
    let step = model.meta().step;
    let mut learner = Learner::new(model, &config.learner, step)?;
    let symmetries = if config.replay.symmetries {
        initial.symmetries()
    } else {
        initial.symmetries()[..1].to_vec()
    };

    // Rebuild the replay window from the records of the generations already trained.
    let mut buffer = ReplayBuffer::new(&config.replay);
    let mut reload = Vec::new();
    let mut held = 0;
    for generation in (1..=start_generation).rev() {
        if held >= config.replay.window_positions && reload.len() >= config.replay.min_generations {
            break;
        }
        let samples: Vec<_> = read_records(store, generation)?
            .iter()
            .flat_map(|r| samples_from_record(initial, r, ValueTarget::of(config), generation))
            .collect();
        held += samples.len();
        reload.push((generation, samples));
    }
    for (generation, samples) in reload.into_iter().rev() {
        buffer.add_generation(generation, samples);
    }

    let session_start = Instant::now();
    let previous_sessions = previous_sessions(store)?;
    let earlier_seconds = previous_sessions.seconds;
    let mut previous: Option<Model> = Some(learner.model().try_clone()?);
    // With gating, self-play uses the best network so far, kept in checkpoints/best.
    let best_path = store.local_path("checkpoints/best");
    let second_path = store.local_path("checkpoints/second");
    let mut gate = if config.gating.enabled {
        let best = match zerosum_nn::checkpoint_base(&best_path) {
            Ok(_) => Model::load(&best_path, initial, device)?,
            // A new run (or gating switched on now): the current network is the best so far,
            // kept on disk at once so that a resume never mistakes a rejected one for it.
            Err(_) => {
                let best = learner.model().try_clone()?;
                best.save(&best_path)?;
                best
            }
        };
        let second = match zerosum_nn::checkpoint_base(&second_path) {
            Ok(_) => Some(Model::load(&second_path, initial, device)?),
            Err(_) => None,
        };
        Some(Gate { best, second })
    } else {
        None
    };
    let mut last_eval = None;
    let mut generation = start_generation;
    while (generation as usize) < config.generations {
        let elapsed = earlier_seconds + session_start.elapsed().as_secs_f64();
        if config.max_minutes > 0.0 && elapsed >= config.max_minutes * 60.0 {
            break;
        }
        generation += 1;

        // Self-play, keeping the games of this generation that an interrupted session finished.
        let span = info_span!("self_play", generation).entered();
        let mut records = read_records(store, generation)?;
        // The games already kept are part of the seed: a resumed generation must not replay
        // the very games it already has.
        let mut rng = SmallRng::seed_from_u64(derive_seed(
            config.seed,
            stream::GENERATION,
            generation | ((records.len() as u64) << 32),
        ));
        let needed = config
            .self_play
            .games_per_generation
            .saturating_sub(records.len());
        progress.start(
            generation,
            "self-play",
            config.self_play.games_per_generation as u64,
        );
        progress.advance(records.len() as u64);
        let generator = gate.as_ref().map_or(learner.model(), |g| &g.best);
        let counters = run_self_play(initial, config, generator, needed, &mut rng, |record| {
            store.append_line(
                &games_file(generation),
                &serde_json::to_string(&record).expect("records serialise"),
            )?;
            records.push(record);
            progress.advance(1);
            Ok(())
        })?;
        let report = self_play_report(&records, &counters);
        progress.finish(&format!(
            "{} games, {:.1} plies/game, {:.0} positions/s, {:.0} evals/s",
            report.games,
            report.mean_length,
            report.positions_per_second,
            report.evaluations_per_second
        ));
        // A session stopped after this self-play already logged it; playing nothing more
        // now adds no event (a second one would count the generation twice in reports).
        let logged_before = needed == 0 && generation <= previous_sessions.self_play_logged;
        if !logged_before {
            store.append_line(
                "metrics.jsonl",
                &event_line("self_play", generation, learner.step(), json!(report)),
            )?;
        }
        drop(span);

        // Learn.
        let span = info_span!("learn", generation).entered();
        let samples = records
            .iter()
            .flat_map(|r| samples_from_record(initial, r, ValueTarget::of(config), generation))
            .collect();
        buffer.add_generation(generation, samples);
        let learn_start = Instant::now();
        // Nothing to learn from when no position was recorded (every move fast, say).
        let steps = if buffer.is_empty() {
            0
        } else {
            ((config.learner.epochs * buffer.len() as f64) / config.learner.batch_size as f64)
                .ceil()
                .max(1.0) as u64
        };
        progress.start(generation, "learn", steps);
        let mut all = Vec::with_capacity(steps as usize);
        // All of the phase's samples are drawn up front, so that the curriculum can order
        // them oldest first.
        let batch_size = config.learner.batch_size;
        let indices = buffer.draw_indices(
            steps as usize * batch_size,
            config.learner.curriculum,
            &mut rng,
        );
        for chunk in indices.chunks(batch_size) {
            let batch = buffer.batch(chunk, initial.num_actions(), &symmetries, &mut rng);
            all.push(learner.train_step(&batch));
            progress.advance(1);
        }
        let tail = (all.len() / 10).max(1).min(all.len());
        let learn_report = LearnerReport {
            steps,
            total_steps: learner.step(),
            window_positions: buffer.len(),
            losses: mean_losses(&all),
            final_losses: mean_losses(&all[all.len() - tail..]),
            learning_rate: config.learner.learning_rate_at(learner.step()),
            seconds: learn_start.elapsed().as_secs_f64(),
        };
        progress.finish(&format!(
            "{} steps, loss {:.3} (policy {:.3}, value {:.3}), policy entropy {:.3}",
            steps,
            learn_report.final_losses.total,
            learn_report.final_losses.policy,
            learn_report.final_losses.value,
            learn_report.final_losses.policy_entropy
        ));
        store.append_line(
            "metrics.jsonl",
            &event_line("learn", generation, learner.step(), json!(learn_report)),
        )?;
        drop(span);

        // Checkpoint: numbered first, latest last, so latest never points past what exists.
        let step_now = learner.step();
        learner.model_mut().set_progress(step_now, generation);
        // Every generation is written under its own name first (the resume point), then as
        // latest; the previous one goes unless it is one of the kept every-k-th.
        learner
            .model()
            .save(&store.local_path(&checkpoint_name(generation)))?;
        learner.model().save(&latest)?;
        let previous_generation = generation - 1;
        let keep_previous = previous_generation == 0
            || (config.keep_checkpoint_every > 0
                && (previous_generation as usize).is_multiple_of(config.keep_checkpoint_every));
        if !keep_previous {
            store.remove_checkpoint(&checkpoint_name(previous_generation))?;
        }

        if let Some(gate) = &mut gate {
            let games = config.gating.games * if config.gating.best_two { 2 } else { 1 };
            progress.start(generation, "gate", games as u64);
            let report = gate.decide(initial, config, learner.model(), generation)?;
            if report.promoted {
                // Second first: after a crash between the two, best is still the old best.
                if let Some(second) = &gate.second {
                    second.save(&second_path)?;
                }
                gate.best.save(&best_path)?;
            }
            progress.finish(&format!(
                "gate: {} ({})",
                if report.promoted {
                    "promoted"
                } else {
                    "kept the best"
                },
                report
                    .matches
                    .iter()
                    .map(|m| format!("{:.0}% vs {}", 100.0 * m.score(), m.opponent))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            store.append_line(
                "metrics.jsonl",
                &event_line("gate", generation, learner.step(), json!(report)),
            )?;
        }

        // Evaluate.
        let mut eval = None;
        if config.arena.every > 0 && (generation as usize).is_multiple_of(config.arena.every) {
            let span = info_span!("evaluate", generation).entered();
            let report = evaluate(
                initial,
                config,
                learner.model(),
                previous.as_ref(),
                generation,
                device,
                progress,
            )?;
            store.append_line(
                "metrics.jsonl",
                &event_line("evaluate", generation, learner.step(), json!(report)),
            )?;
            previous = Some(learner.model().try_clone()?);
            eval = Some(report);
            drop(span);
        }

        let train_seconds = earlier_seconds + session_start.elapsed().as_secs_f64();
        store.append_line(
            "metrics.jsonl",
            &event_line(
                "generation",
                generation,
                learner.step(),
                json!({
                    "train_seconds": train_seconds,
                    "games": report.games,
                    "positions_per_second": report.positions_per_second,
                    "mean_length": report.mean_length,
                    "loss": learn_report.final_losses,
                    "window_positions": buffer.len(),
                    "evaluation": eval,
                }),
            ),
        )?;
        if eval.is_some() {
            last_eval = eval;
        }
    }
    Ok(RunSummary {
        generation,
        steps: learner.step(),
        seconds: earlier_seconds + session_start.elapsed().as_secs_f64(),
        last_eval,
    })
}

fn mean_losses(losses: &[Losses]) -> Losses {
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
    }
    mean
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
        mean_batch: counters.evaluations as f64 / counters.calls.max(1) as f64,
        cache_hit_rate: counters.cache_hits as f64
            / (counters.cache_hits + counters.evaluations).max(1) as f64,
        seconds: counters.seconds,
    }
}

/// Plays `games` self-play games with `model`, on `config.self_play.threads` threads each
/// with its own copy of the network; `on_game` runs on this thread for each finished game.
fn run_self_play<G: Game>(
    initial: &G,
    config: &RunConfig,
    model: &Model,
    games: usize,
    rng: &mut SmallRng,
    mut on_game: impl FnMut(GameRecord) -> Result<(), TrainError>,
) -> Result<SelfPlayCounters, TrainError> {
    if games == 0 {
        return Ok(SelfPlayCounters::default());
    }
    let threads = config.self_play.threads.min(games).max(1);
    let base_seed: u64 = rng.random();
    if threads == 1 {
        let mut evaluator = NetEvaluator::new(model.try_clone()?, initial);
        let mut failure = None;
        let counters = self_play(
            initial,
            &mut evaluator,
            &config.search,
            &config.self_play,
            games,
            rng,
            |record| {
                if failure.is_none() {
                    failure = on_game(record).err();
                }
            },
        );
        return failure.map_or(Ok(counters), Err);
    }
    let models = (0..threads)
        .map(|_| model.try_clone())
        .collect::<Result<Vec<_>, _>>()?;
    // The learner's intra-op threads would oversubscribe the cores once per worker: each
    // worker gets its share for this phase (measured on 2 cores: 2 workers x 1 thread play
    // 1.5x the positions per second of 1 worker x 2 threads), and the learner gets them back.
    let learner_threads = zerosum_nn::torch_threads();
    zerosum_nn::set_torch_threads(learner_threads / threads);
    let (sender, receiver) = mpsc::channel::<GameRecord>();
    let result = std::thread::scope(|scope| {
        let handles: Vec<_> = models
            .into_iter()
            .enumerate()
            .map(|(worker, model)| {
                let sender = sender.clone();
                let share = games / threads + usize::from(worker < games % threads);
                let seed = derive_seed(base_seed, stream::GENERATION, worker as u64 + 1);
                scope.spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(seed);
                    let mut evaluator = NetEvaluator::new(model, initial);
                    self_play(
                        initial,
                        &mut evaluator,
                        &config.search,
                        &config.self_play,
                        share,
                        &mut rng,
                        |record| {
                            // The receiver outlives the workers; a send fails only if it gave up.
                            let _ = sender.send(record);
                        },
                    )
                })
            })
            .collect();
        drop(sender);
        let mut failure = None;
        for record in receiver {
            if failure.is_none() {
                failure = on_game(record).err();
            }
        }
        let mut counters = SelfPlayCounters::default();
        for handle in handles {
            counters.merge(&handle.join().expect("self-play workers do not panic"));
        }
        failure.map_or(Ok(counters), Err)
    });
    zerosum_nn::set_torch_threads(learner_threads);
    result
}

/// Plays the newest model against each baseline and the previous checkpoint.
fn evaluate<G: Game>(
    initial: &G,
    config: &RunConfig,
    model: &Model,
    previous: Option<&Model>,
    generation: u64,
    device: zerosum_nn::Device,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::LocalStore;

    /// Regression: `latest` is two files renamed one after the other; a crash between the
    /// renames left weights and sidecar of different generations. Resuming now starts from
    /// the newest numbered checkpoint whose pair is complete.
    #[test]
    fn resume_skips_a_checkpoint_whose_sidecar_never_landed() {
        let dir = std::env::temp_dir().join(format!("zerosum-newest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = LocalStore::open(&dir).unwrap();
        for (name, contents) in [
            ("checkpoints/gen-0000.json", "{}"),
            ("checkpoints/gen-0000.safetensors", "w"),
            ("checkpoints/gen-0004.json", "{}"),
            ("checkpoints/gen-0004.safetensors", "w"),
            ("checkpoints/gen-0005.safetensors", "w"),
            ("checkpoints/latest.json", "{}"),
        ] {
            std::fs::write(store.local_path(name), contents).unwrap();
        }
        assert_eq!(newest_checkpoint(&store).unwrap(), Some(4));
        store.remove_checkpoint("checkpoints/gen-0004").unwrap();
        assert_eq!(newest_checkpoint(&store).unwrap(), Some(0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Regression: a session stopped between a generation's self-play and its checkpoint
    /// replayed no game on resume but logged the generation's self-play a second time.
    #[test]
    fn a_resumed_generation_with_all_its_games_logs_its_self_play_once() {
        let dir = std::env::temp_dir().join(format!("zerosum-relog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = LocalStore::open(&dir).unwrap();
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = RunConfig::from_toml(
            r#"
            game = "tictactoe"
            generations = 1
            [model]
            family = "mlp"
            hidden = 16
            layers = 1
            [search]
            num_simulations = 4
            [self_play]
            games_per_generation = 4
            batch_games = 4
            [arena]
            every = 0
            "#,
            &[],
        )
        .and_then(RunConfig::resolve)
        .unwrap();
        train(&game, &config, &store, &mut Silent).unwrap();
        // As if the process had died after self-play and learning but before the checkpoint.
        store.remove_checkpoint("checkpoints/gen-0001").unwrap();
        let before = store.read_lines("games/gen-0001.jsonl").unwrap();
        assert_eq!(before.len(), 4);
        let summary = train(&game, &config, &store, &mut Silent).unwrap();
        assert_eq!(summary.generation, 1);
        assert_eq!(store.read_lines("games/gen-0001.jsonl").unwrap(), before);
        let events = |name: &str| {
            store
                .read_lines("metrics.jsonl")
                .unwrap()
                .iter()
                .filter(|l| l.contains(&format!("\"event\":\"{name}\"")))
                .count()
        };
        assert_eq!(events("self_play"), 1);
        // Learning did run again: the lost checkpoint's steps are retrained.
        assert_eq!(events("learn"), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Self-play on two threads: each of the games asked for is handed on once, none lost
    /// and none twice, whatever order the workers finish in.
    #[test]
    fn self_play_on_two_threads_records_every_game_once() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let config = RunConfig::from_toml(
            r#"
            game = "tictactoe"
            [model]
            family = "mlp"
            hidden = 8
            layers = 1
            [search]
            num_simulations = 4
            [self_play]
            threads = 2
            batch_games = 2
            random_opening_plies = 2
            "#,
            &[],
        )
        .unwrap();
        let model = Model::for_game(&game, &config.model, zerosum_nn::Device::Cpu).unwrap();
        let mut records = Vec::new();
        let counters = run_self_play(
            &game,
            &config,
            &model,
            7,
            &mut SmallRng::seed_from_u64(3),
            |record| {
                records.push(record);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(records.len(), 7);
        assert_eq!(counters.games, 7);
        let recorded: usize = records
            .iter()
            .map(|r| r.stats.iter().filter(|s| s.is_some()).count())
            .sum();
        assert_eq!(recorded as u64, counters.positions);
        for record in &records {
            record.replay(&game).unwrap();
        }
    }
}
