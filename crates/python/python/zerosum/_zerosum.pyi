"""Type stubs of zerosum's extension module (re-exported by the `zerosum` package)."""

from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple, Union

class GameError(Exception):
    """A game zerosum cannot play, or one that broke a rule of the game contract."""

class StateLike(Protocol):
    """What zerosum reads of a state of a game written in Python (OpenSpiel's methods)."""

    def current_player(self) -> int: ...
    def legal_actions(self) -> Sequence[int]: ...
    def apply_action(self, action: int) -> None: ...
    def is_terminal(self) -> bool: ...
    def returns(self) -> Sequence[float]: ...
    def observation_tensor(self, player: int) -> Sequence[float]: ...
    def clone(self) -> "StateLike": ...
    def action_to_string(self, player: int, action: int) -> str: ...

class GameLike(Protocol):
    """What zerosum reads of a game written in Python (OpenSpiel's methods)."""

    def new_initial_state(self) -> StateLike: ...
    def num_distinct_actions(self) -> int: ...
    def observation_tensor_shape(self) -> Sequence[int]: ...

class State:
    """A position of one of zerosum's games, with OpenSpiel's state methods."""

    def current_player(self) -> int:
        """0 or 1, the player to move; -4 once the game is over."""
    def legal_actions(self) -> List[int]:
        """The legal actions, ascending; none once the game is over."""
    def apply_action(self, action: int) -> None:
        """Plays `action`; raises GameError if it is not legal here."""
    def is_terminal(self) -> bool: ...
    def returns(self) -> List[float]:
        """Each player's result: [1, -1], [-1, 1] or [0, 0]."""
    def observation_tensor(self, player: Optional[int] = None) -> List[float]:
        """The network's input, flat, as seen by the player to move."""
    def clone(self) -> "State": ...
    def action_to_string(self, player: int, action: int) -> str:
        """`action` in the game's notation (`d`, `e2e4`, `C3`)."""
    def string_to_action(self, text: str) -> int:
        """The action the notation `text` names; raises GameError if none."""

class Game:
    """One of zerosum's games, with OpenSpiel's game methods."""

    @property
    def name(self) -> str:
        """The full registry name, parameters included (`connect4:rows=6,cols=7,k=4`)."""
    def new_initial_state(self) -> State: ...
    def num_distinct_actions(self) -> int: ...
    def observation_tensor_shape(self) -> List[int]:
        """[planes, height, width]."""
    def num_players(self) -> int: ...

AnyGame = Union[str, Game, GameLike, Any]

def load_game(name: str) -> Union[Game, Any]:
    """The game of zerosum's table named `name` (`connect4`, `go:size=9`); for the name of
    a game written in Python that zerosum has played in this process, that game's object."""

def check_game(game: AnyGame, games: int = 200, seed: int = 1) -> Dict[str, int]:
    """Plays `games` random games checking every rule of the game contract; returns counts
    (positions, games, first_wins, second_wins, draws, max_game_length). Raises GameError
    naming the first rule broken."""

def train(
    game: AnyGame,
    run: str,
    config: Optional[str] = None,
    overrides: Optional[Dict[str, Any]] = None,
    resume: bool = False,
) -> Dict[str, Any]:
    """Trains `game` in `run` (a directory or an s3://, gs://, az://, file:// URL); returns
    generation, steps, seconds and last_evaluation, a list of (opponent, score, Elo).
    Ctrl-C stops it at the end of the generation under way (KeyboardInterrupt); resume=True
    continues it."""


class Agent:
    """A player for any game zerosum plays: a trained checkpoint or the game's shipped model
    searched with MCTS, or rollout MCTS (`mcts:N`) for a game no model is shipped for."""

    def __init__(
        self,
        game: AnyGame,
        checkpoint: Optional[str] = None,
        simulations: Optional[int] = None,
        seed: int = 1,
        overrides: Optional[Dict[str, Any]] = None,
    ) -> None:
        """`checkpoint`: a run, `checkpoints/latest`, NAME(.safetensors) or a URL of any of
        them, or "shipped" for the game's model in models/ (`zerosum models` lists them).
        Without one: the shipped model of a built-in game where one fits it, as `zerosum
        play`, else rollout MCTS. `simulations` per move: by default the game config's
        `play.num_simulations` with a checkpoint, the shipped model's own count, and 1,000
        for rollout MCTS. `overrides`: keys of
        the game's config as `train` takes them (`{"search.c_puct": 2.0}`)."""
    @property
    def name(self) -> str:
        """`checkpoint:PATH`, `shipped:NAME` or `mcts:N`."""
    @property
    def game(self) -> str:
        """The registry name of its game."""
    def choose(self, state: Any) -> int:
        """The action it plays in `state`, a state of its game that is not finished (a
        `zerosum.State`, or the Python game's own state, which is left unchanged)."""
    def analyse(self, state: Any) -> Dict[str, Any]:
        """The search behind the move: `action`, `value` (from the mover's view, in
        [-1, 1]), `network_value`, `visits`, `prior` and `q` as {action: number}, and the
        principal variation `pv` with its `pv_notation`."""
    def evaluate(self, state: Any) -> Tuple[List[float], float]:
        """The network alone: policy logits over every action, and the value."""

Player = Union[str, Agent, Callable[[Any], int]]

def arena(
    a: Player,
    b: Player,
    game: AnyGame,
    games: int = 100,
    seed: int = 1,
    opening_plies: int = 0,
    progress: bool = False,
) -> Dict[str, Any]:
    """Plays `games` games between `a` and `b` (spec strings as on the command line, like
    "mcts:1000", "shipped" or "checkpoint:runs/c4", Agents, or callables state -> action), each
    moving first in half of them. Returns a, b, games, wins, draws, losses (A's),
    wins_as_first, wins_as_second, score, score_interval (95%), elo, elo_interval,
    ms_per_move, opponent_ms_per_move, and margin: A's mean final score in points where the
    game counts one (Go), else None."""

def wilson_interval(share: float, n: int) -> Tuple[float, float]:
    """The 95% Wilson score interval of a share observed over `n` trials, as arena's
    score_interval: it stays inside [0, 1] and keeps a width at 0% and 100%."""

def export_onnx(checkpoint: str, path: str) -> None:
    """Writes the network of a checkpoint (a location as Agent takes it, or a shipped model's
    name such as "connect4") as an ONNX file: input `observation` [batch, planes, height,
    width], outputs `policy` (logits over every action) and `value` (for the mover, -1 to 1);
    the game and each tensor's meaning are in its metadata (docs/onnx.md)."""

def read_checkpoint(location: str) -> Tuple[str, bytes]:
    """The sidecar JSON and the safetensors bytes of a checkpoint (see load_checkpoint)."""
