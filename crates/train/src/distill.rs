//! AlphaPush's curriculum: a fresh network, of the run's shape or another, trained through a
//! finished run's stored games from the oldest generation to the newest, as the run's own
//! learner saw them, then measured against the run's last checkpoint and against the same
//! fresh network trained as long on the newest window alone.
//!
//! AlphaPush found that such a network reached a lower loss and overfitted less than one
//! trained on the latest data only; the two matches tell whether that holds for a run.

use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::Game;
use zerosum_nn::{Device, Losses, Model};

use crate::error::TrainError;
use crate::learner::{generation_records, Trainer};
use crate::sink::{Handler, Phase, Silent};
use zerosum_config::{derive_seed, stream, ResolvedConfig};
use zerosum_players::arena::{play_match_with_openings, MatchReport};
use zerosum_players::players::MctsAgent;
use zerosum_store::checkpoints;
use zerosum_store::names;
use zerosum_store::store::RunStore;
use zerosum_store::StoreError;

/// How to distill and measure.
#[derive(Clone, Debug)]
pub struct DistillSettings {
    /// Where the two networks go: `DIR/curriculum` and `DIR/window` (safetensors and sidecar).
    pub out: PathBuf,
    /// Games of each match.
    pub games: usize,
    /// Simulations per move of every player in the matches.
    pub sims: usize,
    /// Random opening plies of each pair of games.
    pub opening_plies: usize,
}

/// What one network's training came to.
#[derive(Clone, Debug)]
pub struct Trained {
    /// Its checkpoint (`DIR/NAME`, loadable as `checkpoint:DIR/NAME`).
    pub path: PathBuf,
    /// Gradient steps taken.
    pub steps: u64,
    /// Mean losses over the last tenth of its last phase of steps.
    pub final_losses: Losses,
}

/// The two networks and their matches.
#[derive(Clone, Debug)]
pub struct DistillReport {
    /// The run's last generation, the one the matches face.
    pub generation: u64,
    /// The network trained through every generation, oldest first.
    pub curriculum: Trained,
    /// The same fresh network trained as many steps on the run's last window only.
    pub window: Trained,
    /// The curriculum network against the run's last checkpoint.
    pub against_run: MatchReport,
    /// The curriculum network against the window network.
    pub against_window: MatchReport,
}

/// Trains both networks from `run`'s games with `config` (the run's own, its `[model]`
/// possibly changed), writes them to `settings.out`, and plays the two matches. `progress`
/// sees four phases: the curriculum's generations (a learning phase with one unit per
/// generation), the window network's steps, and each match's games; `log` gets a line per
/// finished stage.
pub fn distill<G: Game>(
    initial: &G,
    run: &RunStore,
    config: &ResolvedConfig,
    settings: &DistillSettings,
    progress: &mut dyn Handler,
    mut log: impl FnMut(&str),
) -> Result<DistillReport, TrainError> {
    let last = checkpoints::generations(run)?
        .last()
        .copied()
        .filter(|&g| g > 0)
        .ok_or_else(|| StoreError::Location {
            location: run.location().to_string(),
            reason: "the run has no trained generation to distill".into(),
        })?;
    // Both networks start from the same weights: only their data differs.
    let fresh = || -> Result<zerosum_nn::TrainState, TrainError> {
        zerosum_nn::init_torch(config.seed, config.torch_threads);
        let model = Model::for_game(initial, &config.model, Device::Cpu)?;
        let precision = config.training_precision(Device::Cpu);
        Ok(zerosum_nn::TrainState::new(model, &config.learner, 0)?.with_precision(precision)?)
    };
    let mut rng = SmallRng::seed_from_u64(derive_seed(config.seed, stream::DISTILL, 0));
    let curriculum = Trainer::new(initial, config, fresh()?);
    let (curriculum, curriculum_model) =
        train_curriculum(curriculum, run, last, &settings.out, &mut rng, progress)?;
    log(&format!(
        "curriculum: generations 1 to {last}, {}",
        curriculum.summary()
    ));
    let window = Trainer::new(initial, config, fresh()?);
    let steps = curriculum.steps;
    let (window, window_model) =
        train_window(window, run, last, steps, &settings.out, &mut rng, progress)?;
    log(&format!(
        "window: generation {last}'s window only, {}",
        window.summary()
    ));
    let opponents = [
        (
            format!("run {}", names::generation_name(last)),
            checkpoints::load(run, last, initial, Device::Cpu)?,
        ),
        ("window".to_string(), window_model),
    ];
    let mut matches = Vec::new();
    for (name, model) in opponents {
        let agent = |name: &str, model: Model| {
            MctsAgent::with_network(
                name.to_string(),
                model,
                initial,
                config.search.clone(),
                settings.sims,
            )
        };
        let mut me = agent("curriculum", curriculum_model.try_clone()?);
        let mut opponent = agent(&name, model);
        progress.phase_started(last, Phase::Evaluate, settings.games as u64);
        let report = play_match_with_openings(
            initial,
            &mut me,
            &mut opponent,
            settings.games,
            settings.opening_plies,
            &mut rng,
            |_, _| progress.phase_advanced(1),
        )?;
        log(&report.to_string());
        matches.push(report);
    }
    let against_window = matches.pop().expect("two matches");
    let against_run = matches.pop().expect("two matches");
    Ok(DistillReport {
        generation: last,
        curriculum,
        window,
        against_run,
        against_window,
    })
}

/// Trains `trainer` through the run's generations 1 to `last`, oldest first, and writes it
/// as `DIR/curriculum`.
fn train_curriculum<G: Game>(
    mut trainer: Trainer<'_, G>,
    run: &RunStore,
    last: u64,
    dir: &Path,
    rng: &mut SmallRng,
    progress: &mut dyn Handler,
) -> Result<(Trained, Model), TrainError> {
    let mut last_report = None;
    progress.phase_started(last, Phase::Learn, last);
    for generation in 1..=last {
        let records = generation_records(run, generation)?;
        // The curriculum's budget is the run's generations: its schedule runs over them.
        let used = (generation - 1) as f64 / last as f64;
        let report = trainer.learn(generation, &records, used, rng, &mut Silent);
        finite(&report.final_losses, "curriculum", generation)?;
        last_report = Some(report);
        progress.phase_advanced(1);
    }
    let losses = last_report.map(|r| r.final_losses);
    finish(trainer, last, dir, "curriculum", losses)
}

/// Trains `trainer` for `steps` on generation `last`'s replay window alone, and writes it
/// as `DIR/window`.
fn train_window<G: Game>(
    mut trainer: Trainer<'_, G>,
    run: &RunStore,
    last: u64,
    steps: u64,
    dir: &Path,
    rng: &mut SmallRng,
    progress: &mut dyn Handler,
) -> Result<(Trained, Model), TrainError> {
    trainer.fill_window(run, last)?;
    let report = trainer.train(last, steps, 0, rng, progress);
    finite(&report.final_losses, "window", last)?;
    finish(trainer, last, dir, "window", Some(report.final_losses))
}

impl Trained {
    /// Its steps and final losses, for a line of the log.
    fn summary(&self) -> String {
        let losses = &self.final_losses;
        format!(
            "{} steps, final loss {:.3} (policy {:.3}, value {:.3})",
            self.steps, losses.total, losses.policy, losses.value
        )
    }
}

/// Refuses losses that are NaN or infinite: the network diverged and its weights are
/// worthless, so it is neither written nor played.
fn finite(losses: &Losses, network: &'static str, generation: u64) -> Result<(), TrainError> {
    if losses.total.is_finite() {
        Ok(())
    } else {
        Err(TrainError::DistillDiverged {
            network,
            generation,
        })
    }
}

/// Writes the trainer's network as `DIR/NAME`; returns what it came to and the network.
fn finish<G: Game>(
    mut trainer: Trainer<'_, G>,
    generation: u64,
    dir: &Path,
    name: &str,
    final_losses: Option<Losses>,
) -> Result<(Trained, Model), TrainError> {
    let steps = trainer.step();
    let model = trainer.model_mut();
    model.set_progress(steps, generation);
    let bytes = model.to_bytes()?;
    let path = checkpoints::write_files(dir, name, &bytes.weights, &bytes.meta)?;
    let trained = Trained {
        path,
        steps,
        final_losses: final_losses.unwrap_or_default(),
    };
    Ok((trained, trainer.model().try_clone()?))
}

/// The report as a Markdown table.
pub fn markdown(report: &DistillReport) -> String {
    let row = |name: &str, trained: &Trained, data: &str, opponent: &MatchReport| {
        format!(
            "| {name} | {data} | {} | {:.3} | {:.3} | {:.3} | {} | +{} ={} -{} | {} |\n",
            trained.steps,
            trained.final_losses.total,
            trained.final_losses.policy,
            trained.final_losses.value,
            opponent.opponent,
            opponent.wins,
            opponent.draws,
            opponent.losses,
            opponent.score_text()
        )
    };
    let mut table = String::from(
        "| network | trained on | steps | final loss | policy | value | curriculum against | +W =D -L | curriculum's score [95%] |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    let generations = format!("generations 1 to {}, oldest first", report.generation);
    table += &row(
        "curriculum",
        &report.curriculum,
        &generations,
        &report.against_run,
    );
    table += &row(
        "window",
        &report.window,
        &format!("generation {}'s window", report.generation),
        &report.against_window,
    );
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::{scratch, tiny};
    use crate::run::train;

    /// Both networks take the same steps from the same start, in the shape asked for, are
    /// written where `checkpoint:` finds them, and play their matches.
    #[test]
    fn distill_trains_a_new_shape_through_the_run_and_measures_it() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let (dir, run) = scratch("distill");
        train(&game, &tiny("generations = 3"), &run, &mut Silent).unwrap();
        let wider = tiny("generations = 3\n[replay]\nwindow_positions = 20");
        let mut config = (*wider).clone();
        config.model.hidden = 24;
        let config = config.resolve().unwrap();
        let settings = DistillSettings {
            out: dir.join("distilled"),
            games: 4,
            sims: 4,
            opening_plies: 1,
        };
        let mut lines = Vec::new();
        let report = distill(&game, &run, &config, &settings, &mut Silent, |line| {
            lines.push(line.to_string())
        })
        .unwrap();
        assert_eq!(report.generation, 3);
        assert!(report.curriculum.steps > 0);
        assert_eq!(report.curriculum.steps, report.window.steps);
        for trained in [&report.curriculum, &report.window] {
            let model =
                checkpoints::load_location(&trained.path.to_string_lossy(), &game, Device::Cpu)
                    .unwrap();
            assert_eq!(model.meta().model.hidden, 24);
            assert_eq!(model.meta().step, trained.steps);
            assert!(trained.final_losses.total > 0.0);
        }
        assert_eq!(report.against_run.games(), 4);
        assert_eq!(report.against_run.opponent, "run gen-0003");
        assert_eq!(report.against_window.games(), 4);
        assert_eq!(lines.len(), 4, "{lines:?}");
        let table = markdown(&report);
        assert_eq!(table.lines().count(), 4, "{table}");
        // A learning rate far too high: refused at the first generation that learns, with
        // nothing written.
        let mut wild = (*wider).clone();
        wild.learner.optimizer = zerosum_nn::OptimizerKind::Sgd;
        wild.learner.learning_rate = 1e30;
        let wild = wild.resolve().unwrap();
        let diverged = DistillSettings {
            out: dir.join("diverged"),
            ..settings.clone()
        };
        let error = distill(&game, &run, &wild, &diverged, &mut Silent, |_| {}).unwrap_err();
        assert!(
            matches!(
                error,
                TrainError::DistillDiverged {
                    network: "curriculum",
                    ..
                }
            ),
            "{error}"
        );
        assert!(!dir.join("diverged").join("curriculum.safetensors").exists());
        // A run with nothing trained is refused in one line.
        let (empty_dir, empty) = scratch("distill-empty");
        let error = distill(&game, &empty, &config, &settings, &mut Silent, |_| {}).unwrap_err();
        assert!(
            error.to_string().contains("no trained generation"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&empty_dir).unwrap();
    }
}
