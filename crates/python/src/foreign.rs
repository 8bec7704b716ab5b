//! A game written in Python, or one of OpenSpiel's through pyspiel, as a zerosum game. Any
//! object with OpenSpiel's game and state methods qualifies (see docs/python.md); it is
//! played through [`DynPosition`], so search, training and every front end run it as they
//! run a built-in game.
//!
//! Each position is a shared node holding its Python state, never mutated, and what the
//! search asks most often (the mover, the legal actions, the outcome), read under one hold
//! of the GIL when the move is made. A memo keyed by parent node and move keeps the nodes
//! searches reach, so walking down a known path of the tree calls no Python at all; only a
//! new leaf does (clone, apply, read, observe). Positions are equal when their move
//! histories are: the position cache keys a foreign game by its history, so transpositions
//! are not shared, and such a game has no symmetries beyond the identity.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyList;
use zerosum_games::layout::{BoardLayout, MoveCells};
use zerosum_games::registry::{self, AnyGame, DynGame, DynPosition, GameEntry};
use zerosum_games::{Action, GameError, Outcome, Player, RecordTags, Symmetry};

use crate::game_error;

/// The methods a game object must have.
const GAME_METHODS: [&str; 3] = [
    "new_initial_state",
    "num_distinct_actions",
    "observation_tensor_shape",
];

/// The methods its states must have.
const STATE_METHODS: [&str; 9] = [
    "current_player",
    "legal_actions",
    "apply_action",
    "is_terminal",
    "returns",
    "observation_tensor",
    "clone",
    "action_to_string",
    "__str__",
];

/// What every position of one foreign game shares.
pub struct Rules {
    /// The registry name it is trained under.
    name: String,
    game: Py<PyAny>,
    num_actions: usize,
    obs_shape: [usize; 3],
    /// The first exception a method raised, with the moves that led there: the run stops
    /// on it, and `zerosum.train` raises it.
    failure: Mutex<Option<String>>,
    /// Whether Ctrl-C arrived while a method ran (Python raises it there).
    interrupted: AtomicBool,
    /// The positions searches reached, by parent and move: a search walks the same paths
    /// again and again, and the memo answers them without Python.
    memo: Mutex<Memo>,
    /// The next node's number.
    nodes: AtomicU64,
}

impl Rules {
    /// Reads `game`'s shape after checking that it has every method and, where it says
    /// what kind of game it is (pyspiel's `get_type()`), that it is one zerosum plays.
    pub fn inspect(game: &Bound<'_, PyAny>, name: String) -> PyResult<Rules> {
        for method in GAME_METHODS {
            if !game.hasattr(method)? {
                return Err(game_error(format!("the game has no method {method}()")));
            }
        }
        check_type(game)?;
        let num_actions: usize = game.call_method0("num_distinct_actions")?.extract()?;
        let shape: Vec<usize> = game.call_method0("observation_tensor_shape")?.extract()?;
        let obs_shape = match shape[..] {
            [n] => [n, 1, 1],
            [h, w] => [1, h, w],
            [c, h, w] => [c, h, w],
            _ => {
                return Err(game_error(format!(
                    "observation_tensor_shape() is {shape:?}: one, two or three dimensions are supported"
                )))
            }
        };
        if num_actions == 0 || obs_shape.contains(&0) {
            return Err(game_error(format!(
                "{num_actions} actions and observations of shape {shape:?}: both must be non-empty"
            )));
        }
        let state = game.call_method0("new_initial_state")?;
        for method in STATE_METHODS {
            if !state.hasattr(method)? {
                return Err(game_error(format!("its states have no method {method}()")));
            }
        }
        let rules = Rules {
            name,
            game: game.clone().unbind(),
            num_actions,
            obs_shape,
            failure: Mutex::new(None),
            interrupted: AtomicBool::new(false),
            memo: Mutex::new(Memo::default()),
            nodes: AtomicU64::new(0),
        };
        if let Err(reason) = read_state(&rules, &state)? {
            return Err(game_error(format!(
                "{}: {reason} in the initial state",
                rules.name
            )));
        }
        Ok(rules)
    }

    /// The registry name the game is played under.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// Whether Ctrl-C stopped the work under way inside one of the game's methods; asking
    /// clears it, so that later work starts afresh.
    pub fn take_interrupted(&self) -> bool {
        self.interrupted.swap(false, Ordering::Relaxed)
    }

    /// The first failure a game method raised in the work under way, if any; asking clears
    /// it.
    pub fn take_failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The game's initial position.
    pub fn initial(self: &Arc<Self>) -> Foreign {
        let node = self.call(&[], "new_initial_state()", |py| {
            let state = self.game.bind(py).call_method0("new_initial_state")?;
            self.node(&state, Some(0), Vec::new())
        });
        Foreign {
            rules: self.clone(),
            node: Arc::new(node),
        }
    }

    /// The position of `state`, a state of this game from outside (a caller's): a copy of
    /// it, with an origin of its own, for its history is not known.
    pub fn position(self: &Arc<Self>, state: &Bound<'_, PyAny>) -> PyResult<Foreign> {
        let copy = state.call_method0("clone")?;
        let node = self
            .read_node(&copy, None, Vec::new())?
            .map_err(|reason| game_error(format!("{}: {reason}", self.name)))?;
        Ok(Foreign {
            rules: self.clone(),
            node: Arc::new(node),
        })
    }

    /// Runs `body` under the GIL. A Python exception stops the run: its message, naming
    /// `what` and the moves `history` that led there, is kept for `zerosum.train` to raise,
    /// and the search unwinds.
    fn call<T>(
        &self,
        history: &[Action],
        what: &str,
        body: impl FnOnce(Python<'_>) -> PyResult<T>,
    ) -> T {
        match attach(body) {
            Ok(value) => value,
            Err(error) if Python::attach(|py| error.is_instance_of::<PyKeyboardInterrupt>(py)) => {
                self.interrupted.store(true, Ordering::Relaxed);
                std::panic::panic_any(GameFailure("interrupted".into()))
            }
            Err(error) => self.fail(self.raised(what, history, &error)),
        }
    }

    /// The message for a method's exception: the game, the method, the exception on one
    /// line, and the moves that led there.
    fn raised(&self, what: &str, history: &[Action], error: &PyErr) -> String {
        let error = error.to_string();
        let error = error.split_whitespace().collect::<Vec<_>>().join(" ");
        format!(
            "{}: {what} raised {error} after the moves {history:?}",
            self.name
        )
    }

    /// Keeps the first failure and unwinds the search with it.
    fn fail(&self, message: String) -> ! {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert_with(|| message.clone());
        drop(failure);
        std::panic::panic_any(GameFailure(message))
    }
}

/// `Python::attach` for the search's threads. A thread of zerosum's has no Python thread
/// state of its own, and CPython makes and frees one for every call into Python from such
/// a thread; the first call makes one that lives as long as the thread, so that later ones
/// only take the GIL.
fn attach<T>(body: impl FnOnce(Python<'_>) -> T) -> T {
    THREAD_STATE.with(|_| ());
    Python::attach(body)
}

thread_local! {
    static THREAD_STATE: KeptThreadState = KeptThreadState::new();
}

/// A Python thread state held for a thread that had none, released when the thread ends.
struct KeptThreadState(Option<(pyo3::ffi::PyGILState_STATE, *mut pyo3::ffi::PyThreadState)>);

impl KeptThreadState {
    fn new() -> KeptThreadState {
        // SAFETY: the interpreter is running (the extension module is loaded); a thread
        // with a thread state (Python's own) is left alone, and for one without, Ensure
        // makes a state and takes the GIL, which SaveThread gives back at once, so that the
        // state's count stays above zero and CPython keeps it between calls.
        unsafe {
            if !pyo3::ffi::PyGILState_GetThisThreadState().is_null() {
                return KeptThreadState(None);
            }
            let held = pyo3::ffi::PyGILState_Ensure();
            KeptThreadState(Some((held, pyo3::ffi::PyEval_SaveThread())))
        }
    }
}

impl Drop for KeptThreadState {
    fn drop(&mut self) {
        if let Some((held, state)) = self.0.take() {
            // SAFETY: the pair made in `new`, on this thread: retake the GIL with the kept
            // state, then Release frees the state and gives the GIL back.
            unsafe {
                if pyo3::ffi::Py_IsInitialized() != 0 {
                    pyo3::ffi::PyEval_RestoreThread(state);
                    pyo3::ffi::PyGILState_Release(held);
                }
            }
        }
    }
}

/// The payload a foreign game's failure unwinds with.
pub struct GameFailure(pub String);

/// Keeps the panic hook quiet about a foreign game's failure, which `zerosum.train` raises
/// as an exception of its own; other panics are reported as before.
pub fn quiet_game_failures() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<GameFailure>().is_none() {
            report(info);
        }
    }));
}

/// Refuses a game that is not two-player, zero-sum, deterministic, sequential and of
/// perfect information, where the game says what it is (OpenSpiel's `get_type()`).
fn check_type(game: &Bound<'_, PyAny>) -> PyResult<()> {
    if !game.hasattr("get_type")? {
        return Ok(());
    }
    let kind = game.call_method0("get_type")?;
    let named =
        |attribute: &str| -> PyResult<String> { Ok(kind.getattr(attribute)?.str()?.to_string()) };
    let players: usize = game.call_method0("num_players")?.extract()?;
    if players != 2 {
        return Err(game_error(format!("the game has {players} players, not 2")));
    }
    let checks = [
        (
            "chance_mode",
            "DETERMINISTIC",
            "chance nodes are not supported",
        ),
        (
            "dynamics",
            "SEQUENTIAL",
            "simultaneous moves are not supported",
        ),
        (
            "information",
            "PERFECT_INFORMATION",
            "imperfect information is not supported",
        ),
        ("utility", "ZERO_SUM", "the game is not zero-sum"),
    ];
    for (attribute, wanted, refusal) in checks {
        let value = named(attribute)?;
        // `Information.IMPERFECT_INFORMATION` ends as `PERFECT_INFORMATION` does: compare
        // the name after the enum's.
        if value.rsplit('.').next() != Some(wanted) {
            return Err(game_error(format!("{refusal} ({attribute} is {value})")));
        }
    }
    Ok(())
}

/// One position of a foreign game: a shared, never-mutated node of the game's memo.
pub struct Foreign {
    rules: Arc<Rules>,
    node: Arc<Node>,
}

/// A Python state, which nothing mutates once it is read, and what the search asks of it.
struct Node {
    /// The node's number, unique in its game: the memo's key for its children.
    id: u64,
    state: Py<PyAny>,
    /// 0 for positions reached from the initial state, else the number of the state
    /// handed in from outside that `history` starts from.
    origin: u64,
    history: Vec<Action>,
    to_move: Player,
    legal: Vec<Action>,
    outcome: Option<Outcome>,
}

/// The positions searches reached, by the parent's node number and the move.
type Memo = HashMap<(u64, Action), Arc<Node>, BuildHasherDefault<WordHasher>>;

/// A multiply-rotate hash a word at a time (rustc's FxHash): the memo is asked on every
/// step down a tree, where the standard SipHash showed in profiles.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}

/// How many positions the memo of moves keeps before it starts over.
const MEMO_CAPACITY: usize = 100_000;

impl Rules {
    /// The node of `state`, reached by `history` from `origin` (`None`: a state from
    /// outside, the origin of a history of its own), read now; or the rule of the game
    /// contract it breaks.
    fn read_node(
        &self,
        state: &Bound<'_, PyAny>,
        origin: Option<u64>,
        history: Vec<Action>,
    ) -> PyResult<Result<Node, String>> {
        let (to_move, legal, outcome) = match read_state(self, state)? {
            Ok(view) => view,
            Err(reason) => return Ok(Err(reason)),
        };
        let id = self.nodes.fetch_add(1, Ordering::Relaxed);
        Ok(Ok(Node {
            id,
            state: state.clone().unbind(),
            // Node numbers are unique, so each state from outside has an origin of its
            // own; 0 is the initial state's.
            origin: origin.unwrap_or(id + 1),
            history,
            to_move,
            legal,
            outcome,
        }))
    }

    /// [`Rules::read_node`] inside a search, which a broken rule stops.
    fn node(
        &self,
        state: &Bound<'_, PyAny>,
        origin: Option<u64>,
        history: Vec<Action>,
    ) -> PyResult<Node> {
        let moves = format!("{history:?}");
        self.read_node(state, origin, history)?
            .or_else(|reason| self.fail(format!("{}: {reason} after the moves {moves}", self.name)))
    }

    /// The position after `action` in `parent`: from the memo where a search walked this
    /// way before, so selection down a known path calls no Python; else a clone of the
    /// parent's state with `action` applied, and every read, under one hold of the GIL.
    fn child(&self, parent: &Node, action: Action) -> Arc<Node> {
        let key = (parent.id, action);
        if let Some(node) = self.memo().get(&key) {
            return node.clone();
        }
        let mut history = Vec::with_capacity(parent.history.len() + 1);
        history.extend_from_slice(&parent.history);
        history.push(action);
        let node = self.call(&parent.history, "clone() and apply_action()", |py| {
            let state = moved(parent.state.bind(py), action)?;
            self.node(&state, Some(parent.origin), history)
        });
        let node = Arc::new(node);
        let mut memo = self.memo();
        if memo.len() >= MEMO_CAPACITY {
            memo.clear();
        }
        memo.insert(key, node.clone());
        node
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, Memo> {
        self.memo.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `state.observation_tensor(player)` as floats: a list, or a numpy array (`ravel`) or
/// torch tensor (`flatten`) of any shape, read flat.
fn observation(state: &Bound<'_, PyAny>, player: usize) -> PyResult<Vec<f32>> {
    let tensor = state.call_method1("observation_tensor", (player,))?;
    if let Ok(list) = tensor.cast::<PyList>() {
        return list.extract();
    }
    let flat = if tensor.hasattr("ravel")? {
        tensor.call_method0("ravel")?.call_method0("tolist")?
    } else if tensor.hasattr("flatten")? {
        tensor.call_method0("flatten")?.call_method0("tolist")?
    } else {
        tensor
    };
    flat.try_iter()?.map(|v| v?.extract::<f32>()).collect()
}

/// What a state shows: its text, whether it is over, and if not its mover, legal actions
/// and observation.
type Snapshot = (String, bool, i64, Vec<Action>, Vec<u32>);

/// The most plies a random game of [`Rules::check_clones`] plays: a game with no end in
/// sight is checked that far.
const CHECK_PLIES: usize = 2_000;

/// A clone of `state` with `action` applied.
fn moved<'py>(state: &Bound<'py, PyAny>, action: Action) -> PyResult<Bound<'py, PyAny>> {
    let copy = state.call_method0("clone")?;
    copy.call_method1("apply_action", (action,))?;
    Ok(copy)
}

fn snapshot(state: &Bound<'_, PyAny>) -> PyResult<Snapshot> {
    let text = state.str()?.to_string();
    if state.call_method0("is_terminal")?.extract::<bool>()? {
        return Ok((text, true, -4, Vec::new(), Vec::new()));
    }
    let player: i64 = state.call_method0("current_player")?.extract()?;
    let legal: Vec<Action> = state.call_method0("legal_actions")?.extract()?;
    // Bits, so that an observation holding NaN equals itself.
    let observed = observation(state, player.clamp(0, 1) as usize)?
        .iter()
        .map(|v| v.to_bits())
        .collect();
    Ok((text, false, player, legal, observed))
}

impl Rules {
    /// Plays `games` random games in Python, checking what zerosum relies on and cannot see
    /// through move histories: a clone is independent of its original (a move applied to
    /// the clone leaves the original as it was), and a move applied to two copies of a
    /// state gives the same state.
    pub fn check_clones(&self, py: Python<'_>, games: usize, seed: u64) -> PyResult<()> {
        let mut random = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for _ in 0..games {
            let mut history: Vec<Action> = Vec::new();
            let failed = |what: &str, history: &[Action], error: PyErr| {
                if error.is_instance_of::<PyKeyboardInterrupt>(py) {
                    return error;
                }
                game_error(self.raised(what, history, &error))
            };
            let mut state = self
                .game
                .bind(py)
                .call_method0("new_initial_state")
                .map_err(|e| failed("new_initial_state()", &history, e))?;
            let mut shown =
                snapshot(&state).map_err(|e| failed("reading the state", &history, e))?;
            while !shown.1 && !shown.3.is_empty() && history.len() < CHECK_PLIES {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                let action = shown.3[(random % shown.3.len() as u64) as usize];
                let child =
                    moved(&state, action).map_err(|e| failed("apply_action()", &history, e))?;
                let twin =
                    moved(&state, action).map_err(|e| failed("apply_action()", &history, e))?;
                let read = |s: &Bound<'_, PyAny>| {
                    snapshot(s).map_err(|e| failed("reading the state", &history, e))
                };
                if read(&state)? != shown {
                    return Err(game_error(format!(
                        "{}: clone() is not independent: applying {action} to a clone changed the original after the moves {history:?}",
                        self.name
                    )));
                }
                let after = read(&child)?;
                if after != read(&twin)? {
                    return Err(game_error(format!(
                        "{}: apply_action({action}) is not deterministic: two copies differ after it, after the moves {history:?}",
                        self.name
                    )));
                }
                history.push(action);
                (state, shown) = (child, after);
            }
        }
        Ok(())
    }

    /// The generic default config for this game's shapes.
    pub fn default_config(&self) -> String {
        zerosum_config::generic_config(&self.name, self.obs_shape, self.num_actions)
    }

    /// The game object itself.
    pub fn game<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.game.bind(py).clone()
    }
}

/// The foreign game registered as `name`, if any.
pub fn registered(name: &str) -> Option<Arc<Rules>> {
    GAMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .cloned()
}

type StateView = (Player, Vec<Action>, Option<Outcome>);

/// The mover, the sorted legal actions and the outcome of `state`, or the rule of the
/// contract it breaks.
fn read_state(rules: &Rules, state: &Bound<'_, PyAny>) -> PyResult<Result<StateView, String>> {
    if state.call_method0("is_terminal")?.extract::<bool>()? {
        let returns: Vec<f64> = state.call_method0("returns")?.extract()?;
        let outcome = match returns[..] {
            [a, b] if !a.is_finite() || !b.is_finite() => {
                return Ok(Err(format!(
                    "returns() are {returns:?}, not finite numbers"
                )))
            }
            [a, b] if (a + b).abs() > 1e-6 => {
                return Ok(Err(format!(
                    "returns() are {returns:?}, which do not sum to zero"
                )))
            }
            [a, _] if a > 0.0 => Outcome::Win(Player::FIRST),
            [a, _] if a < 0.0 => Outcome::Win(Player::SECOND),
            [_, _] => Outcome::Draw,
            _ => return Ok(Err(format!("returns() are {returns:?}, not two numbers"))),
        };
        return Ok(Ok((Player::FIRST, Vec::new(), Some(outcome))));
    }
    let player: i64 = state.call_method0("current_player")?.extract()?;
    let to_move = match player {
        0 => Player::FIRST,
        1 => Player::SECOND,
        -1 => {
            return Ok(Err(
                "a chance node (current_player() is -1): chance nodes are not supported".into(),
            ))
        }
        -2 => {
            return Ok(Err(
                "simultaneous moves (current_player() is -2) are not supported".into(),
            ))
        }
        other => return Ok(Err(format!("current_player() is {other}, not 0 or 1"))),
    };
    let mut legal: Vec<Action> = state.call_method0("legal_actions")?.extract()?;
    legal.sort_unstable();
    legal.dedup();
    if legal.is_empty() {
        return Ok(Err(
            "legal_actions() is empty in a state that is not terminal".into(),
        ));
    }
    if let Some(&action) = legal.iter().find(|&&a| a >= rules.num_actions) {
        return Ok(Err(format!(
            "legal action {action} is outside num_distinct_actions() = {}",
            rules.num_actions
        )));
    }
    Ok(Ok((to_move, legal, None)))
}

impl Foreign {
    /// A copy of the position's Python state, for a caller to keep or change.
    pub fn python_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.node.state.bind(py).call_method0("clone")
    }
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text =
            attach(|py| -> PyResult<String> { Ok(self.node.state.bind(py).str()?.to_string()) });
        match text {
            Ok(text) => f.write_str(&text),
            Err(error) => write!(f, "(str() raised {error})"),
        }
    }
}

impl fmt::Debug for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} after {:?}", self.rules.name, self.node.history)
    }
}

impl DynPosition for Foreign {
    fn clone_box(&self) -> Box<dyn DynPosition> {
        // Nodes are never mutated: a copy shares its node.
        Box::new(Foreign {
            rules: self.rules.clone(),
            node: self.node.clone(),
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn eq_dyn(&self, other: &dyn DynPosition) -> bool {
        other
            .as_any()
            .downcast_ref::<Foreign>()
            .is_some_and(|other| {
                Arc::ptr_eq(&self.rules, &other.rules)
                    && self.node.origin == other.node.origin
                    && self.node.history == other.node.history
            })
    }
    fn name(&self) -> String {
        self.rules.name.clone()
    }
    fn num_actions(&self) -> usize {
        self.rules.num_actions
    }
    fn obs_shape(&self) -> [usize; 3] {
        self.rules.obs_shape
    }
    fn to_move(&self) -> Player {
        self.node.to_move
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        out.extend_from_slice(&self.node.legal);
    }
    fn apply(&mut self, action: Action) {
        if !self.node.legal.contains(&action) {
            self.rules.fail(format!(
                "{}: action {action} is not legal after the moves {:?}",
                self.rules.name, self.node.history
            ));
        }
        self.node = self.rules.child(&self.node, action);
    }
    fn outcome(&self) -> Option<Outcome> {
        self.node.outcome
    }
    fn observe(&self, out: &mut [f32]) {
        let player = self.node.to_move.index();
        let values: Vec<f32> = self
            .rules
            .call(&self.node.history, "observation_tensor()", |py| {
                observation(self.node.state.bind(py), player)
            });
        if values.len() != out.len() {
            self.rules.fail(format!(
                "{}: observation_tensor() has {} values, observation_tensor_shape() says {} (after the moves {:?})",
                self.rules.name,
                values.len(),
                out.len(),
                self.node.history
            ));
        }
        out.copy_from_slice(&values);
    }
    fn symmetries(&self) -> Vec<Symmetry> {
        vec![Symmetry::identity(
            self.rules.obs_shape.iter().product(),
            self.rules.num_actions,
        )]
    }
    fn transformed(&self, index: usize) -> Option<Box<dyn DynPosition>> {
        (index == 0).then(|| self.clone_box())
    }
    fn hash(&self) -> u64 {
        // FNV-1a over the origin and the moves: positions are equal when those are.
        let start = (0xcbf2_9ce4_8422_2325 ^ self.node.origin).wrapping_mul(0x0100_0000_01b3);
        self.node.history.iter().fold(start, |hash, &a| {
            (hash ^ a as u64).wrapping_mul(0x0100_0000_01b3)
        })
    }
    fn format_action(&self, action: Action) -> String {
        // Only a legal action is the game's to name: any other is shown as its number.
        if !self.node.legal.contains(&action) {
            return action.to_string();
        }
        let player = self.node.to_move.index();
        self.rules
            .call(&self.node.history, "action_to_string()", |py| {
                self.node
                    .state
                    .bind(py)
                    .call_method1("action_to_string", (player, action))?
                    .extract()
            })
    }
    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        let text = text.trim();
        let legal = &self.node.legal;
        if let Some(&action) = legal.iter().find(|&&a| self.format_action(a) == text) {
            return Ok(action);
        }
        // A bare action number, unless the game writes its moves as numbers: there "5"
        // means the move written 5, not action 5.
        let numeric = legal
            .iter()
            .any(|&a| self.format_action(a).parse::<i64>().is_ok());
        text.parse()
            .ok()
            .filter(|_| !numeric)
            .ok_or_else(|| GameError::BadNotation {
                text: text.to_string(),
                expected: "a legal move as action_to_string() writes it, or an action number"
                    .into(),
            })
    }

    fn is_repetition(&self) -> bool {
        false
    }
    fn final_score(&self) -> Option<f32> {
        None
    }
    fn standard_record(&self, _: &[Action], _: &RecordTags) -> Option<(&'static str, String)> {
        None
    }
    fn layout(&self) -> Option<BoardLayout> {
        None
    }
    fn move_cells(&self, _: Action) -> MoveCells {
        MoveCells::default()
    }
}

/// The foreign games of this process by registry name: a name trained again with another
/// object plays the new one.
static GAMES: LazyLock<Mutex<HashMap<String, Arc<Rules>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Makes `rules` the game named `rules.name` in the game table (registering the name the
/// first time), so that every part of zerosum that looks a game up by name finds it.
pub fn register(rules: Rules) -> PyResult<Arc<Rules>> {
    let rules = Arc::new(rules);
    let name = rules.name.clone();
    let mut games = GAMES.lock().unwrap_or_else(|e| e.into_inner());
    let first = games.insert(name.clone(), rules.clone()).is_none();
    drop(games);
    if first {
        let lookup = name.clone();
        registry::register(GameEntry {
            name: name.clone().into(),
            params: "".into(),
            build: Arc::new(move |_| {
                let rules = GAMES.lock().unwrap_or_else(|e| e.into_inner())[&lookup].clone();
                Ok(AnyGame::Dynamic(DynGame::new(rules.initial())))
            }),
        })
        .map_err(|e| game_error(e.to_string()))?;
    }
    Ok(rules)
}

/// Whether `name` is one of zerosum's own games (a foreign game of that name is renamed).
pub fn is_built_in(name: &str) -> bool {
    let foreign = GAMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(name);
    !foreign && registry::entry(name).is_some()
}

/// A registry name for a game object: its `name` attribute or, for a pyspiel game, its
/// string (`hex(board_size=5)` becomes `hex_board_size_5`), else its class's name.
pub fn game_name(game: &Bound<'_, PyAny>) -> PyResult<String> {
    let raw = if let Ok(name) = game.getattr("name") {
        // A `name()` method (OpenSpiel-like classes have one) names the game by its result.
        let name = if name.is_callable() {
            name.call0()?
        } else {
            name
        };
        name.str()?.to_string()
    } else if game.hasattr("get_type")? {
        game.str()?.to_string()
    } else {
        game.get_type().name()?.to_string()
    };
    let mut name: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while name.contains("__") {
        name = name.replace("__", "_");
    }
    let name = name.trim_matches('_').to_string();
    if name.is_empty() {
        return Err(game_error(format!("{raw:?} cannot name a game")));
    }
    Ok(name)
}
