//! `zerosum.Agent`, `zerosum.arena` and the checkpoint reader behind
//! `zerosum.load_checkpoint`: a trained network (or rollout MCTS) that plays the states of
//! any game zerosum plays, and matches between such agents, the command line's players and
//! Python callables.

use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::{ResolvedConfig, RunConfig};
use zerosum_games::registry::DynGame;
use zerosum_games::{with_game, Action, Game};
use zerosum_nn::{parse_device, NetEvaluator};
use zerosum_players::players::{rollout_agent, MctsAgent, DEFAULT_ROLLOUT_SIMS};
use zerosum_players::{
    build_agent, match_torch_threads, play_match_with_openings, Agent, Choice, MatchReport,
    PlayError, PlayerSpec,
};
use zerosum_search::Evaluator;
use zerosum_store::checkpoints;

use crate::foreign::{Foreign, Rules};
use crate::native::PyState;
use crate::{caught, game_error, playable, GameError, Playable};

/// The config players of `playable` search with: the game's default (its shipped config,
/// or the generic one of a game written in Python) with `settings` (`KEY=VALUE`) on top.
fn play_config(playable: &Playable, settings: &[String]) -> PyResult<ResolvedConfig> {
    let game_key = format!(
        "game={}",
        zerosum_config::toml_string(&playable.game.name())
    );
    let settings: Vec<String> = std::iter::once(game_key)
        .chain(settings.iter().cloned())
        .collect();
    RunConfig::from_toml(&playable.default_config()?, &settings)
        .and_then(|config| config.resolve())
        .map_err(game_error)
}

/// The position `state` stands for in the game of `initial`: a `zerosum.State` of that
/// game, or, for a game written in Python, one of its states (copied).
fn position_of<G: Game>(
    initial: &G,
    foreign: Option<&Arc<Rules>>,
    state: &Bound<'_, PyAny>,
) -> PyResult<G> {
    let wrong = |what: String| {
        GameError::new_err(format!(
            "{what} where a state of {} was expected",
            initial.name()
        ))
    };
    if let Ok(native) = state.cast::<PyState>() {
        let position = native.borrow().position.clone();
        if position.name() != initial.name() {
            return Err(wrong(format!("a state of {}", position.name())));
        }
        let as_any: &dyn Any = &position;
        return position
            .downcast_ref::<G>()
            .or_else(|| as_any.downcast_ref::<G>())
            .cloned()
            .ok_or_else(|| wrong("a zerosum.State of another kind".into()));
    }
    let Some(rules) = foreign else {
        return Err(wrong(format!("{}", state.get_type().name()?)));
    };
    let boxed: Box<dyn Any> = Box::new(DynGame::new(rules.position(state)?));
    boxed
        .downcast::<G>()
        .map(|position| *position)
        .map_err(|_| wrong("a Python state".into()))
}

/// A copy of `position` for Python: the Python game's own state for a game written in
/// Python, else a `zerosum.State`.
fn python_state<'py, G: Game>(py: Python<'py>, position: &G) -> PyResult<Bound<'py, PyAny>> {
    let as_any: &dyn Any = position;
    let dynamic = match as_any.downcast_ref::<DynGame>() {
        Some(dynamic) => dynamic.clone(),
        None => DynGame::from_game(position.clone()),
    };
    if let Some(foreign) = dynamic.downcast_ref::<Foreign>() {
        return foreign.python_state(py);
    }
    Ok(Bound::new(py, PyState { position: dynamic })?.into_any())
}

/// What a `zerosum.Agent` does, whatever its game's type.
trait Searcher {
    fn choose(&mut self, state: &Bound<'_, PyAny>) -> PyResult<Choice>;
    fn analyse<'py>(&mut self, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>>;
    fn evaluate(&mut self, state: &Bound<'_, PyAny>) -> PyResult<(Vec<f32>, f32)>;
    fn as_any(&mut self) -> &mut dyn Any;
}

/// An agent of one game: the search, and the network alone for `evaluate`.
struct Seat<G: Game> {
    agent: MctsAgent<G>,
    network: Option<NetEvaluator<G>>,
    initial: G,
    foreign: Option<Arc<Rules>>,
    rng: SmallRng,
}

impl<G: Game> Seat<G> {
    fn position(&self, state: &Bound<'_, PyAny>) -> PyResult<G> {
        let position = position_of(&self.initial, self.foreign.as_ref(), state)?;
        if position.is_terminal() {
            return Err(GameError::new_err(
                "the game is over: there is no move to choose",
            ));
        }
        Ok(position)
    }
}

impl<G: Game> Searcher for Seat<G> {
    fn choose(&mut self, state: &Bound<'_, PyAny>) -> PyResult<Choice> {
        let position = self.position(state)?;
        caught(self.foreign.as_ref(), || {
            self.agent.choose(&position, &mut self.rng)
        })?
        .map_err(game_error)
    }

    fn analyse<'py>(&mut self, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let choice = self.choose(state)?;
        let tree = self.agent.tree().expect("a search leaves its tree");
        let root = tree.root_position();
        let search = choice.search.as_ref().expect("a search reports its result");
        let pv = tree.principal_variation(Some(choice.action));
        let analysis = PyDict::new(state.py());
        analysis.set_item("action", choice.action)?;
        analysis.set_item("value", search.root_value)?;
        analysis.set_item("network_value", search.raw_value)?;
        let priors = tree
            .root()
            .children()
            .map(|c| (tree.node(c).action, tree.node(c).prior));
        analysis.set_item(
            "visits",
            by_action(state.py(), search.visits.iter().copied())?,
        )?;
        analysis.set_item("prior", by_action(state.py(), priors)?)?;
        analysis.set_item("q", by_action(state.py(), tree.root_q_values())?)?;
        let mut notation = Vec::with_capacity(pv.len());
        let mut position = root.clone();
        caught(self.foreign.as_ref(), || {
            for &action in &pv {
                notation.push(position.format_action(action));
                position.apply(action);
            }
        })?;
        analysis.set_item("pv", pv)?;
        analysis.set_item("pv_notation", notation)?;
        Ok(analysis)
    }

    fn evaluate(&mut self, state: &Bound<'_, PyAny>) -> PyResult<(Vec<f32>, f32)> {
        let position = position_of(&self.initial, self.foreign.as_ref(), state)?;
        let Some(network) = self.network.as_mut() else {
            return Err(GameError::new_err(
                "this Agent has no network: it plays rollout MCTS (name a checkpoint)",
            ));
        };
        let mut logits = vec![0.0; position.num_actions()];
        let mut value = [0.0];
        caught(self.foreign.as_ref(), || {
            network.evaluate(std::slice::from_ref(&position), &mut logits, &mut value)
        })?;
        Ok((logits, value[0]))
    }

    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
}

/// `{action: number}` of `pairs`.
fn by_action<'py, T: for<'a> IntoPyObject<'a>>(
    py: Python<'py>,
    pairs: impl IntoIterator<Item = (Action, T)>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (action, number) in pairs {
        dict.set_item(action, number)?;
    }
    Ok(dict)
}

/// A player for any game zerosum plays: a trained checkpoint or the game's shipped model
/// searched with MCTS, or rollout MCTS (`mcts:N`) for a game no model is shipped for.
#[pyclass(name = "Agent", module = "zerosum", unsendable)]
pub struct PyAgent {
    seat: Box<dyn Searcher>,
    name: String,
    game: String,
}

#[pymethods]
impl PyAgent {
    /// `game` as `zerosum.train` takes it; `checkpoint` a checkpoint, a run or a URL of
    /// either (as `zerosum play --checkpoint`), or `"shipped"` for the game's model in
    /// models/; without one, the shipped model of a built-in game where one fits it (as
    /// `zerosum play`), else rollout MCTS; `simulations` per move, by default the game
    /// config's `play.num_simulations` with a checkpoint, the shipped model's own count,
    /// and 1,000 for rollout MCTS; `overrides` settings of the game's config as `zerosum.train`
    /// takes them (`{"search.c_puct": 2.0}`), for the search of a network.
    #[new]
    #[pyo3(signature = (game, checkpoint = None, simulations = None, seed = 1, overrides = None))]
    fn new(
        game: &Bound<'_, PyAny>,
        checkpoint: Option<&str>,
        simulations: Option<usize>,
        seed: u64,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyAgent> {
        if simulations == Some(0) {
            return Err(GameError::new_err("simulations must be at least 1"));
        }
        let playable = playable(game)?;
        let config = play_config(&playable, &crate::settings_of(overrides)?)?;
        zerosum_nn::set_torch_threads(match_torch_threads(config.torch_threads));
        let foreign = playable.foreign.clone();
        let (seat, name) = with_game!(&playable.game, g => {
            seat(g, foreign, &config, checkpoint, simulations, seed)?
        });
        Ok(PyAgent {
            seat,
            name,
            game: playable.game.name(),
        })
    }

    /// The action the agent plays in `state` (a state of its game, not finished).
    fn choose(&mut self, state: &Bound<'_, PyAny>) -> PyResult<Action> {
        Ok(self.seat.choose(state)?.action)
    }

    /// The search behind the move in `state`: `action`, `value` (the search's, from the
    /// mover's view, in [-1, 1]), `network_value`, `visits`, `prior` and `q` by action,
    /// and the principal variation `pv` with its `pv_notation`.
    fn analyse<'py>(&mut self, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        self.seat.analyse(state)
    }

    /// The network alone on `state`: its policy logits over every action and its value,
    /// from the mover's view.
    fn evaluate(&mut self, state: &Bound<'_, PyAny>) -> PyResult<(Vec<f32>, f32)> {
        self.seat.evaluate(state)
    }

    /// `checkpoint:PATH` or `mcts:N`, as reports name it.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The registry name of its game.
    #[getter]
    fn game(&self) -> String {
        self.game.clone()
    }

    fn __repr__(&self) -> String {
        format!("<zerosum.Agent {} playing {}>", self.name, self.game)
    }
}

/// The `checkpoint` that names the game's shipped model (models/, `zerosum models`).
const SHIPPED: &str = "shipped";

/// The seat of an agent of `game` and its name.
fn seat<G: Game>(
    game: &G,
    foreign: Option<Arc<Rules>>,
    config: &ResolvedConfig,
    checkpoint: Option<&str>,
    simulations: Option<usize>,
    seed: u64,
) -> PyResult<(Box<dyn Searcher>, String)> {
    let device = || parse_device(&config.device).map_err(game_error);
    let shipped = || zerosum_players::shipped::load_for(game, device()?).map_err(game_error);
    let (name, model, sims) = match checkpoint {
        Some(SHIPPED) => {
            let Some((shipped, model)) = shipped()? else {
                let none = zerosum_players::shipped::none_for(&game.name());
                return Err(GameError::new_err(none));
            };
            (shipped.player_name(), model, shipped.sims)
        }
        Some(location) => {
            let model =
                checkpoints::load_location(location, game, device()?).map_err(game_error)?;
            let name = format!("checkpoint:{location}");
            (name, model, config.play_simulations())
        }
        // Models are shipped for built-in games only.
        None => match foreign.is_none().then(shipped).transpose()?.flatten() {
            Some((shipped, model)) => (shipped.player_name(), model, shipped.sims),
            None => {
                let sims = simulations.unwrap_or(DEFAULT_ROLLOUT_SIMS);
                return Ok(seated(rollout_agent(sims, seed), None, game, foreign, seed));
            }
        },
    };
    let copy = model.try_clone().map_err(game_error)?;
    let sims = simulations.unwrap_or(sims);
    let agent = MctsAgent::with_network(name, model, game, config.search.clone(), sims);
    Ok(seated(
        agent,
        Some(NetEvaluator::new(copy, game)),
        game,
        foreign,
        seed,
    ))
}

/// The seat of `agent` and its name.
fn seated<G: Game>(
    agent: MctsAgent<G>,
    network: Option<NetEvaluator<G>>,
    game: &G,
    foreign: Option<Arc<Rules>>,
    seed: u64,
) -> (Box<dyn Searcher>, String) {
    let name = agent.name();
    let seat = Seat {
        agent,
        network,
        initial: game.clone(),
        foreign,
        rng: SmallRng::seed_from_u64(seed),
    };
    (Box::new(seat), name)
}

/// A Python callable `state -> action` as a player.
struct Callable<'py, G> {
    function: Bound<'py, PyAny>,
    name: String,
    /// The exception it raised, to raise again once the match stops.
    raised: Option<PyErr>,
    game: PhantomData<fn(&G)>,
}

impl<G: Game> Agent<G> for Callable<'_, G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, position: &G, _: &mut SmallRng) -> Result<Choice, PlayError> {
        let py = self.function.py();
        let action = python_state(py, position)
            .and_then(|state| self.function.call1((state,)))
            .and_then(|action| action.extract::<Action>());
        match action {
            Ok(action) if !position.is_legal(action) => Err(PlayError::PlayerStopped {
                player: self.name.clone(),
                reason: format!("returned {action}, which is not a legal move here"),
            }),
            Ok(action) => Ok(Choice {
                action,
                value: None,
                search: None,
            }),
            Err(error) => {
                let reason = format!("raised {error}");
                self.raised = Some(error);
                Err(PlayError::PlayerStopped {
                    player: self.name.clone(),
                    reason,
                })
            }
        }
    }
}

/// One side of an arena match.
enum Side<'py, G: Game> {
    Built(Box<dyn Agent<G>>),
    Agent(PyRefMut<'py, PyAgent>),
    Callable(Callable<'py, G>),
}

impl<'py, G: Game> Side<'py, G> {
    /// `player`: a spec string as on the command line, a `zerosum.Agent` of this game, or a
    /// callable `state -> action`.
    fn of(
        player: &Bound<'py, PyAny>,
        game: &G,
        config: &ResolvedConfig,
        seed: u64,
    ) -> PyResult<Side<'py, G>> {
        if let Ok(spec) = player.cast::<PyString>() {
            let spec: PlayerSpec = spec.to_cow()?.parse().map_err(game_error)?;
            let device = parse_device(&config.device).map_err(game_error)?;
            let sims = config.play_simulations();
            let agent =
                build_agent(&spec, game, &config.search, sims, device, seed).map_err(game_error)?;
            return Ok(Side::Built(agent));
        }
        if let Ok(agent) = player.cast::<PyAgent>() {
            let mut agent = agent.try_borrow_mut().map_err(|_| {
                GameError::new_err("the same Agent cannot play both sides: make a second one")
            })?;
            if agent.game != game.name() || agent.seat.as_any().downcast_mut::<Seat<G>>().is_none()
            {
                return Err(GameError::new_err(format!(
                    "the Agent plays {}, not {}",
                    agent.game,
                    game.name()
                )));
            }
            return Ok(Side::Agent(agent));
        }
        if player.is_callable() {
            let name = match player.getattr("__name__") {
                Ok(name) => name.str()?.to_string(),
                Err(_) => player.repr()?.to_string(),
            };
            return Ok(Side::Callable(Callable {
                function: player.clone(),
                name,
                raised: None,
                game: PhantomData,
            }));
        }
        Err(GameError::new_err(format!(
            "{} is not a player: give a spec like \"mcts:1000\", a zerosum.Agent or a callable state -> action",
            player.repr()?
        )))
    }

    fn agent(&mut self) -> &mut dyn Agent<G> {
        match self {
            Side::Built(agent) => agent.as_mut(),
            Side::Agent(agent) => {
                let seat = agent.seat.as_any().downcast_mut::<Seat<G>>();
                &mut seat.expect("checked in Side::of").agent
            }
            Side::Callable(callable) => callable,
        }
    }

    /// The exception a callable raised, if it stopped the match.
    fn raised(&mut self) -> Option<PyErr> {
        match self {
            Side::Callable(callable) => callable.raised.take(),
            _ => None,
        }
    }
}

/// Plays `games` games of `game` between `a` and `b` (each a spec string as on the
/// command line, like "mcts:1000" or "checkpoint:runs/c4", a `zerosum.Agent`, or a
/// callable `state -> action`), alternating who moves first; with `opening_plies`, each
/// pair of games starts from its own random opening; with `progress`, the running score
/// is shown on standard error. Returns A's wins, draws and losses,
/// its score with a 95% interval, the Elo difference with its interval, and each side's
/// thinking time per move.
#[pyfunction]
#[pyo3(signature = (a, b, game, games = 100, seed = 1, opening_plies = 0, progress = false))]
pub fn arena<'py>(
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    game: &Bound<'py, PyAny>,
    games: usize,
    seed: u64,
    opening_plies: usize,
    progress: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let playable = playable(game)?;
    let config = play_config(&playable, &[])?;
    zerosum_nn::set_torch_threads(match_torch_threads(config.torch_threads));
    let foreign = playable.foreign.as_ref();
    let report = with_game!(&playable.game, g => {
        let mut sides = [
            Side::of(a, g, &config, seed)?,
            Side::of(b, g, &config, seed.wrapping_add(1))?,
        ];
        let schedule = Schedule { games, seed, opening_plies, progress };
        play(g, &mut sides, &schedule, foreign)?
    });
    report_dict(a.py(), &report)
}

/// The 95% Wilson score interval of a share observed over `n` trials, as `arena`'s
/// `score_interval`.
#[pyfunction]
pub fn wilson_interval(share: f64, n: usize) -> (f64, f64) {
    zerosum_players::arena::wilson_interval(share, n)
}

/// How an arena match is played.
struct Schedule {
    games: usize,
    seed: u64,
    opening_plies: usize,
    progress: bool,
}

/// The match, a pair of games at a time so that Ctrl-C stops it between pairs.
fn play<G: Game>(
    game: &G,
    sides: &mut [Side<'_, G>; 2],
    schedule: &Schedule,
    foreign: Option<&Arc<Rules>>,
) -> PyResult<MatchReport> {
    let Schedule {
        games,
        seed,
        opening_plies,
        progress,
    } = *schedule;
    let mut rng = SmallRng::seed_from_u64(seed);
    let [a, b] = sides;
    let mut report = MatchReport {
        player: a.agent().name(),
        opponent: b.agent().name(),
        ..Default::default()
    };
    let mut played = 0;
    while played < games {
        let pair = (games - played).min(2);
        let result = caught(foreign, || {
            play_match_with_openings(
                game,
                a.agent(),
                b.agent(),
                pair,
                opening_plies,
                &mut rng,
                |_, _| {},
            )
        })?;
        match result {
            Ok(pair_report) => report.merge(&pair_report),
            Err(error) => {
                return Err(a
                    .raised()
                    .or_else(|| b.raised())
                    .unwrap_or_else(|| game_error(error)))
            }
        }
        played += pair;
        Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            if progress {
                let line = format!(
                    "\r{played}/{games} games, {} wins {} draws {} losses ({:.1}%){}",
                    report.wins,
                    report.draws,
                    report.losses,
                    100.0 * report.score(),
                    if played == games { "\n" } else { "" }
                );
                py.import("sys")?
                    .getattr("stderr")?
                    .call_method1("write", (line,))?;
            }
            Ok(())
        })?;
    }
    Ok(report)
}

fn report_dict<'py>(py: Python<'py>, report: &MatchReport) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("a", &report.player)?;
    out.set_item("b", &report.opponent)?;
    out.set_item("games", report.games())?;
    out.set_item("wins", report.wins)?;
    out.set_item("draws", report.draws)?;
    out.set_item("losses", report.losses)?;
    out.set_item("wins_as_first", report.wins_as_first)?;
    out.set_item("wins_as_second", report.wins_as_second)?;
    out.set_item("score", report.score())?;
    out.set_item("score_interval", report.score_interval())?;
    out.set_item("elo", report.elo())?;
    out.set_item("elo_interval", report.elo_interval())?;
    out.set_item("ms_per_move", report.thinking.millis_per_move())?;
    out.set_item(
        "opponent_ms_per_move",
        report.opponent_thinking.millis_per_move(),
    )?;
    out.set_item("margin", report.margin.mean())?;
    Ok(out)
}

/// Writes the network of the checkpoint `checkpoint` names (a location as `Agent` takes it,
/// or a shipped model's name) as an ONNX file at `path`.
#[pyfunction]
pub fn export_onnx(checkpoint: &str, path: &str) -> PyResult<()> {
    let location = zerosum_players::shipped::location_of(checkpoint).map_err(game_error)?;
    let model = checkpoints::load_as_written(&location).map_err(game_error)?;
    model
        .write_onnx(std::path::Path::new(path))
        .map_err(game_error)
}

/// The checkpoint `location` names (as `Agent` takes it): its sidecar's JSON and its
/// weights in safetensors format, for `zerosum.load_checkpoint` to build a torch module.
#[pyfunction]
pub fn read_checkpoint<'py>(
    py: Python<'py>,
    location: &str,
) -> PyResult<(String, Bound<'py, PyBytes>)> {
    let found = checkpoints::locate(location).map_err(game_error)?;
    let meta = String::from_utf8(found.bytes.meta)
        .map_err(|_| GameError::new_err(format!("{}: the sidecar is not UTF-8", found.origin)))?;
    Ok((meta, PyBytes::new(py, &found.bytes.weights)))
}
