//! `import zerosum`: the extension module behind the Python package (crates/python/python/
//! zerosum wraps it). Games come as registry names, as [`native::PyGame`]s, or as any object
//! with OpenSpiel's methods ([`foreign`]); search, training and the run store are zerosum's.

mod foreign;
mod native;
mod players;

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};
use zerosum_config::toml_string;
use zerosum_games::registry::{parse_game, AnyGame};
use zerosum_games::{testing, with_game};
use zerosum_train::{
    open_run, NewRun, OpenRequest, OpenRun, Opening, Phase, TrainError, TrainOptions,
};
use zerosum_train::{step_line, train_with, Handler, Moment, Report};

create_exception!(
    zerosum,
    GameError,
    PyException,
    "A game zerosum cannot play, or one that broke a rule of the game contract."
);

/// `zerosum.GameError` with `error`'s message.
pub(crate) fn game_error(error: impl std::fmt::Display) -> PyErr {
    GameError::new_err(error.to_string())
}

/// A game argument made playable: its registry name, and the foreign game behind it where
/// it is written in Python.
struct Playable {
    game: AnyGame,
    foreign: Option<Arc<foreign::Rules>>,
}

impl Playable {
    /// The config the game trains and plays with by default: its shipped one, or for a
    /// game written in Python the generic default for its shapes.
    fn default_config(&self) -> PyResult<String> {
        match &self.foreign {
            Some(rules) => Ok(rules.default_config()),
            None => zerosum_config::default_config(&self.game.name()).map_err(game_error),
        }
    }
}

/// Resolves `game`: a registry name, a `zerosum.Game`, or an object with OpenSpiel's
/// methods (registered in the game table under its name, see [`foreign::game_name`]).
fn playable(game: &Bound<'_, PyAny>) -> PyResult<Playable> {
    let native = |game: AnyGame| Playable {
        game,
        foreign: None,
    };
    if let Ok(name) = game.cast::<PyString>() {
        let game = parse_game(&name.to_cow()?).map_err(game_error)?;
        let foreign = foreign::registered(&game.name());
        return Ok(Playable { game, foreign });
    }
    if let Ok(game) = game.cast::<native::PyGame>() {
        return Ok(native(game.get().game.clone()));
    }
    let mut name = foreign::game_name(game)?;
    if foreign::is_built_in(&name) {
        name.push_str("-py");
    }
    let rules = foreign::Rules::inspect(game, name)?;
    rules.check_clones(game.py(), 2, 1)?;
    let rules = foreign::register(rules)?;
    let game = parse_game(&rules.name()).map_err(game_error)?;
    Ok(Playable {
        game,
        foreign: Some(rules),
    })
}

/// Runs `work` without the GIL (a foreign game's methods take it back call by call). A
/// foreign game's exception, which unwinds the search, becomes `zerosum.GameError` with its
/// message; any other panic a `RuntimeError`.
fn without_gil<T: Send>(
    py: Python<'_>,
    playable: &Playable,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let result = py.detach(|| std::panic::catch_unwind(AssertUnwindSafe(work)));
    result.map_err(|payload| unwound(playable.foreign.as_ref(), payload))
}

/// Runs `work` holding the GIL (it calls Python, a player written in Python say), with the
/// unwinding of [`without_gil`].
fn caught<T>(foreign: Option<&Arc<foreign::Rules>>, work: impl FnOnce() -> T) -> PyResult<T> {
    std::panic::catch_unwind(AssertUnwindSafe(work)).map_err(|payload| unwound(foreign, payload))
}

/// The Python exception for a search that unwound: Ctrl-C inside a game's method, the
/// game's own exception, or an internal error.
fn unwound(foreign: Option<&Arc<foreign::Rules>>, payload: Box<dyn std::any::Any + Send>) -> PyErr {
    if foreign.is_some_and(|rules| rules.take_interrupted()) {
        return PyKeyboardInterrupt::new_err("interrupted; everything finished is kept");
    }
    let stored = foreign.and_then(|rules| rules.take_failure());
    if let Some(failure) = payload.downcast_ref::<foreign::GameFailure>() {
        return GameError::new_err(failure.0.clone());
    }
    if let Some(failure) = stored {
        return GameError::new_err(failure);
    }
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "zerosum stopped on an internal error".into());
    PyRuntimeError::new_err(message)
}

/// Checks `game` against zerosum's game contract over `games` random games: the legal
/// actions, the outcome, cloning, notation both ways, the observation; returns counts
/// (`positions`, `games`, `first_wins`, `second_wins`, `draws`, `max_game_length`). Raises
/// `zerosum.GameError` naming the first rule broken.
#[pyfunction]
#[pyo3(signature = (game, games = 200, seed = 1))]
fn check_game<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    games: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let playable = playable(game)?;
    if let Some(rules) = &playable.foreign {
        rules.check_clones(py, games.min(20), seed)?;
    }
    let report = without_gil(
        py,
        &playable,
        || with_game!(&playable.game, g => testing::check_game(g, seed, games)),
    )?
    .map_err(GameError::new_err)?;
    let summary = PyDict::new(py);
    summary.set_item("positions", report.positions)?;
    summary.set_item("games", report.games)?;
    summary.set_item("first_wins", report.wins[0])?;
    summary.set_item("second_wins", report.wins[1])?;
    summary.set_item("draws", report.draws)?;
    summary.set_item("max_game_length", report.max_game_length)?;
    Ok(summary)
}

/// A TOML value for an override given as a Python value.
fn override_value(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(flag.is_true().to_string());
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(toml_string(&text.to_cow()?));
    }
    Ok(value.str()?.to_string())
}

/// `{key: value}` overrides as the config's `KEY=VALUE` settings.
fn settings_of(overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    let mut settings = Vec::new();
    for (key, value) in overrides.into_iter().flat_map(|d| d.iter()) {
        settings.push(format!("{}={}", key.str()?, override_value(&value)?));
    }
    Ok(settings)
}

/// Opens the run at `run` for training `playable`'s game: the run's own config when
/// resuming one, else `config` (a TOML file) or the game's default, with `overrides` on top.
fn open_for(
    playable: &Playable,
    run: &str,
    config: Option<&str>,
    overrides: Vec<String>,
    resume: bool,
) -> PyResult<OpenRun> {
    let game = playable.game.name();
    let text = match config {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| GameError::new_err(format!("cannot read config {path}: {e}")))?,
        None => playable.default_config()?,
    };
    let new = NewRun {
        text,
        settings: vec![format!("game={}", toml_string(&game))],
    };
    let opened = open_run(&OpenRequest {
        location: run.to_string(),
        opening: Opening::Learner {
            new: Some(new),
            resume,
        },
        overrides,
        game: Some(game),
    });
    let opened = match opened {
        Err(TrainError::RunExists { .. }) => {
            return Err(GameError::new_err(format!(
                "{run} already holds a run: pass resume=True to continue it, or another run"
            )))
        }
        opened => opened.map_err(game_error)?,
    };
    for warning in &opened.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(opened)
}

/// Prints a line per finished step to Python's `sys.stdout`, and turns Ctrl-C into a stop
/// at the end of the generation under way.
struct Printer {
    phase: &'static str,
    started: Instant,
    advances: u64,
    stop: Arc<AtomicBool>,
}

impl Printer {
    /// Sets the stop once Python has seen a Ctrl-C.
    fn hear_signals(&self) {
        if !self.stop.load(Ordering::Relaxed) && Python::attach(|py| py.check_signals().is_err()) {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

impl Handler for Printer {
    fn phase_started(&mut self, _: u64, phase: Phase, _: u64) {
        self.phase = phase.name();
        self.started = Instant::now();
    }

    fn phase_advanced(&mut self, _: u64) {
        self.advances += 1;
        if self.advances % 16 == 0 {
            self.hear_signals();
        }
    }

    fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
        self.hear_signals();
        let Some(summary) = report.summary() else {
            return Ok(());
        };
        let phase = report.step().unwrap_or(self.phase);
        let seconds = self.started.elapsed().as_secs_f64();
        let line = step_line(at.generation, phase, seconds, &summary) + "\n";
        Python::attach(|py| -> PyResult<()> {
            py.import("sys")?
                .getattr("stdout")?
                .call_method1("write", (line,))?;
            Ok(())
        })
        .ok();
        self.started = Instant::now();
        Ok(())
    }
}

/// Trains `game` in `run` (a directory or an s3://, gs://, az://, file:// URL) with
/// zerosum's loop, printing a line per step; returns `generation`, `steps`, `seconds` and
/// `last_evaluation` (each match's opponent, score and Elo). Ctrl-C stops it at the end of
/// the generation under way (inside a Python game's method, at once); `resume=True`
/// continues it.
#[pyfunction]
#[pyo3(signature = (game, run, config = None, overrides = None, resume = false))]
fn train<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    run: &str,
    config: Option<&str>,
    overrides: Option<&Bound<'py, PyDict>>,
    resume: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let playable = playable(game)?;
    let settings = settings_of(overrides)?;
    let OpenRun { store, config, .. } = open_for(&playable, run, config, settings, resume)?;
    let options = TrainOptions::default();
    let summary = without_gil(py, &playable, || {
        let mut printer = Printer {
            phase: "",
            started: Instant::now(),
            advances: 0,
            stop: Arc::clone(&options.stop),
        };
        with_game!(&playable.game, g => train_with(g, &config, &store, &options, &mut printer))
    })?;
    let summary = match summary {
        Ok(summary) => summary,
        Err(TrainError::Interrupted) => {
            return Err(PyKeyboardInterrupt::new_err(format!(
                "training stopped; resume=True continues {run}"
            )))
        }
        Err(error) => return Err(game_error(error)),
    };
    let result = PyDict::new(py);
    result.set_item("generation", summary.generation)?;
    result.set_item("steps", summary.steps)?;
    result.set_item("seconds", summary.seconds)?;
    let evaluation: Option<Vec<(String, f64, f64)>> = summary.last_eval.map(|eval| {
        eval.matches
            .iter()
            .map(|m| (m.opponent.clone(), m.score(), m.elo()))
            .collect()
    });
    result.set_item("last_evaluation", evaluation)?;
    Ok(result)
}

#[pymodule]
fn _zerosum(m: &Bound<'_, PyModule>) -> PyResult<()> {
    foreign::quiet_game_failures();
    m.add("GameError", m.py().get_type::<GameError>())?;
    m.add_class::<native::PyGame>()?;
    m.add_class::<native::PyState>()?;
    m.add_function(wrap_pyfunction!(native::load_game, m)?)?;
    m.add_function(wrap_pyfunction!(check_game, m)?)?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_class::<players::PyAgent>()?;
    m.add_function(wrap_pyfunction!(players::arena, m)?)?;
    m.add_function(wrap_pyfunction!(players::wilson_interval, m)?)?;
    m.add_function(wrap_pyfunction!(players::read_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(players::export_onnx, m)?)?;
    Ok(())
}
