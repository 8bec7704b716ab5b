//! zerosum's own games seen from Python, with OpenSpiel's methods: `zerosum.load_game(name)`
//! returns a [`PyGame`], whose states are [`PyState`]s, so Python code treats built-in,
//! OpenSpiel and its own games alike.

use pyo3::prelude::*;
use zerosum_games::registry::{parse_game, AnyGame, DynGame};
use zerosum_games::{with_game, Action, Game, Outcome, Player};

use crate::{game_error, GameError};

/// A game of zerosum's table, by registry name (`connect4`, `go:size=9`).
#[pyclass(name = "Game", module = "zerosum", frozen)]
pub struct PyGame {
    pub(crate) game: AnyGame,
}

#[pymethods]
impl PyGame {
    /// The full registry name, parameters included.
    #[getter]
    fn name(&self) -> String {
        self.game.name()
    }

    /// The position before the first move.
    fn new_initial_state(&self) -> PyState {
        PyState {
            position: with_game!(&self.game, g => boxed(g)),
        }
    }

    /// The size of the action space: actions are `0..num_distinct_actions()`.
    fn num_distinct_actions(&self) -> usize {
        with_game!(&self.game, g => g.num_actions())
    }

    /// `[planes, height, width]` of `State.observation_tensor()`.
    fn observation_tensor_shape(&self) -> Vec<usize> {
        with_game!(&self.game, g => g.obs_shape().to_vec())
    }

    /// Always 2.
    fn num_players(&self) -> usize {
        2
    }

    fn __str__(&self) -> String {
        self.game.name()
    }

    fn __repr__(&self) -> String {
        format!("zerosum.load_game({:?})", self.game.name())
    }
}

/// A position of a zerosum game, with OpenSpiel's state methods.
#[pyclass(name = "State", module = "zerosum")]
pub struct PyState {
    pub(crate) position: DynGame,
}

#[pymethods]
impl PyState {
    /// 0 or 1, the player to move; -4 (OpenSpiel's terminal player) once the game is over.
    fn current_player(&self) -> i64 {
        if self.position.is_terminal() {
            -4
        } else {
            self.position.to_move().index() as i64
        }
    }

    /// The legal actions, ascending; none once the game is over.
    fn legal_actions(&self) -> Vec<Action> {
        self.position.legal_action_vec()
    }

    /// Plays `action`; raises `zerosum.GameError` if it is not legal here.
    fn apply_action(&mut self, action: Action) -> PyResult<()> {
        self.position.try_apply(action).map_err(game_error)
    }

    fn is_terminal(&self) -> bool {
        self.position.is_terminal()
    }

    /// Each player's result: `[1, -1]`, `[-1, 1]`, `[0, 0]`; `[0, 0]` while the game goes on.
    fn returns(&self) -> Vec<f64> {
        match self.position.outcome() {
            Some(Outcome::Win(Player::FIRST)) => vec![1.0, -1.0],
            Some(Outcome::Win(_)) => vec![-1.0, 1.0],
            _ => vec![0.0, 0.0],
        }
    }

    /// The network's input, flat, as seen by the player to move (zerosum's games observe
    /// from the mover's side; `player` is accepted for OpenSpiel's signature).
    #[pyo3(signature = (player = None))]
    fn observation_tensor(&self, player: Option<i64>) -> Vec<f32> {
        let _ = player;
        let mut out = vec![0.0; self.position.obs_len()];
        self.position.observe(&mut out);
        out
    }

    fn clone(&self) -> PyState {
        PyState {
            position: self.position.clone(),
        }
    }

    /// `action` in the game's notation (`d`, `e2e4`, `C3`); raises `zerosum.GameError`
    /// for a number outside the action space.
    #[pyo3(signature = (player, action))]
    fn action_to_string(&self, player: i64, action: Action) -> PyResult<String> {
        let _ = player;
        if action >= self.position.num_actions() {
            return Err(GameError::new_err(format!(
                "action {action} is outside 0..{}",
                self.position.num_actions()
            )));
        }
        Ok(self.position.format_action(action))
    }

    /// The action the notation `text` names; raises `zerosum.GameError` if none.
    fn string_to_action(&self, text: &str) -> PyResult<Action> {
        self.position.parse_action(text).map_err(game_error)
    }

    fn __str__(&self) -> String {
        self.position.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<zerosum.State of {}>", self.position.name())
    }
}

/// A compiled game's position behind the run-time interface the Python classes hold.
fn boxed<G: Game>(position: &G) -> DynGame {
    DynGame::from_game(position.clone())
}

/// The game of zerosum's table named `name` (`connect4`, `go:size=9`); for the name of a
/// game written in Python that zerosum has played, that game's own object.
#[pyfunction]
pub fn load_game(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    let game = parse_game(name).map_err(game_error)?;
    if let Some(rules) = crate::foreign::registered(&game.name()) {
        return Ok(rules.game(py).unbind());
    }
    Ok(Py::new(py, PyGame { game })?.into_any())
}
