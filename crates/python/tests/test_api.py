"""The Python API: built-in games with OpenSpiel's methods, the conformance checker, games
written in Python, their refusals, and training."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import zerosum  # noqa: E402
from games import TicTacToe, TicTacToeState  # noqa: E402


def test_a_built_in_game_has_openspiels_methods():
    game = zerosum.load_game("connect4")
    assert game.name == "connect4:rows=6,cols=7,k=4"
    assert game.num_distinct_actions() == 7
    shape = game.observation_tensor_shape()
    state = game.new_initial_state()
    assert state.current_player() == 0
    assert state.legal_actions() == list(range(7))
    assert len(state.observation_tensor(0)) == shape[0] * shape[1] * shape[2]
    child = state.clone()
    child.apply_action(3)
    assert child.current_player() == 1
    assert state.current_player() == 0, "a clone is a position of its own"
    assert child.action_to_string(1, 3) == "d"
    assert child.string_to_action("d") == 3
    for _ in range(5):
        child.apply_action(3)
    with pytest.raises(zerosum.GameError, match="illegal"):
        child.apply_action(3)
    with pytest.raises(zerosum.GameError, match="outside"):
        child.action_to_string(0, 70)


def test_a_finished_game_reports_returns_that_sum_to_zero():
    state = zerosum.load_game("tictactoe").new_initial_state()
    for action in [0, 3, 1, 4, 2]:
        state.apply_action(action)
    assert state.is_terminal()
    assert state.current_player() == -4
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []


def test_an_unknown_game_is_refused_in_one_line():
    with pytest.raises(zerosum.GameError, match="unknown game 'nosuchgame'"):
        zerosum.load_game("nosuchgame")


def test_check_game_plays_random_games_of_a_built_in_and_a_python_game():
    report = zerosum.check_game("tictactoe", games=20, seed=3)
    assert report["games"] == 20
    report = zerosum.check_game(TicTacToe(), games=50, seed=3)
    assert report["games"] == 50
    assert report["first_wins"] + report["second_wins"] + report["draws"] == 50
    assert report["max_game_length"] <= 9


class NoLegalActions(TicTacToe):
    name = "nolegalactions"

    def new_initial_state(self):
        class State:
            def current_player(self):
                return 0

        return State()


class Chance(TicTacToe):
    name = "chance"

    def new_initial_state(self):
        class State(TicTacToeState):
            def current_player(self):
                return -1

        return State()


class NotZeroSum(TicTacToe):
    name = "notzerosum"

    def new_initial_state(self):
        class State(TicTacToeState):
            def returns(self):
                return [1.0, 1.0] if self.winner() is not None else [0.0, 0.0]

        return State()


class OutOfRange(TicTacToe):
    name = "outofrange"

    def new_initial_state(self):
        class State(TicTacToeState):
            def legal_actions(self):
                return super().legal_actions() + ([9] if not self.is_terminal() else [])

        return State()


class Raises(TicTacToe):
    name = "raises"

    def new_initial_state(self):
        class State(TicTacToeState):
            def apply_action(self, action):
                if sum(cell is not None for cell in self.board) >= 3:
                    raise ValueError("the board is on fire")
                super().apply_action(action)

        return State()


class ShallowClone(TicTacToe):
    name = "shallowclone"

    def new_initial_state(self):
        class State(TicTacToeState):
            def clone(self):
                other = type(self)()
                other.board = self.board  # shared: a move on the clone changes the original
                other.player = self.player
                return other

        return State()


class NotDeterministic(TicTacToe):
    name = "notdeterministic"

    def new_initial_state(self):
        import random

        class State(TicTacToeState):
            def apply_action(self, action):
                free = [i for i, cell in enumerate(self.board) if cell is None]
                super().apply_action(random.choice(free))

        return State()


class NanReturns(TicTacToe):
    name = "nanreturns"

    def new_initial_state(self):
        class State(TicTacToeState):
            def returns(self):
                return [float("nan"), float("nan")]

        return State()


@pytest.mark.parametrize(
    "game, message",
    [
        (ShallowClone(), "clone\\(\\) is not independent"),
        (NotDeterministic(), "is not deterministic"),
        (NanReturns(), "not finite numbers"),
        (NoLegalActions(), "no method legal_actions"),
        (Chance(), "chance nodes are not supported"),
        (NotZeroSum(), "do not sum to zero"),
        (OutOfRange(), "outside num_distinct_actions"),
        (Raises(), "the board is on fire"),
    ],
)
def test_a_game_zerosum_cannot_play_is_refused_naming_the_rule(game, message):
    with pytest.raises(zerosum.GameError, match=message):
        zerosum.check_game(game, games=20)


def test_an_exception_mid_game_names_the_moves_that_led_there():
    with pytest.raises(zerosum.GameError, match=r"apply_action\(\) raised .* after the moves \[\d+, \d+, \d+\]"):
        zerosum.check_game(Raises(), games=5)


def test_ctrl_c_inside_a_game_method_stops_with_keyboard_interrupt():
    class Interrupted(TicTacToe):
        name = "interrupted"

        def new_initial_state(self):
            class State(TicTacToeState):
                def apply_action(self, action):
                    if sum(cell is not None for cell in self.board) >= 2:
                        raise KeyboardInterrupt
                    super().apply_action(action)

            return State()

    with pytest.raises(KeyboardInterrupt):
        zerosum.check_game(Interrupted(), games=5)


def test_a_game_that_says_it_has_three_players_is_refused():
    class Kind:
        pass

    class Three(TicTacToe):
        name = "three"

        def num_players(self):
            return 3

        def get_type(self):
            return Kind()

    with pytest.raises(zerosum.GameError, match="3 players"):
        zerosum.check_game(Three())


def test_training_a_python_game_writes_a_run_and_returns_a_summary(tmp_path):
    run = str(tmp_path / "run")
    summary = zerosum.train(
        TicTacToe(),
        run=run,
        overrides={"generations": 2, "self_play.games_per_generation": 32, "arena.every": 2, "arena.games": 4},
    )
    assert summary["generation"] == 2
    assert summary["steps"] > 0
    assert [opponent for opponent, _, _ in summary["last_evaluation"]] == ["mcts:50", "gen-0000"]
    assert os.path.exists(os.path.join(run, "checkpoints", "gen-0002.safetensors"))
    with pytest.raises(zerosum.GameError, match="already holds a run"):
        zerosum.train(TicTacToe(), run=run)
    summary = zerosum.train(TicTacToe(), run=run, resume=True, overrides={"generations": 3})
    assert summary["generation"] == 3
    with pytest.raises(zerosum.GameError, match="trains pytictactoe, not tictactoe"):
        zerosum.train("tictactoe", run=run, resume=True)


def test_numpy_observations_of_any_shape_are_read_flat():
    numpy = pytest.importorskip("numpy")

    class Planes(TicTacToe):
        name = "planes"

        def observation_tensor_shape(self):
            return [3, 3, 3]

        def new_initial_state(self):
            class State(TicTacToeState):
                def observation_tensor(self, player):
                    return numpy.array(super().observation_tensor(player)).reshape(3, 3, 3)

            return State()

    assert zerosum.check_game(Planes(), games=10)["games"] == 10


def test_a_python_games_registry_name_finds_the_game_again():
    zerosum.check_game(TicTacToe(), games=2)
    game = zerosum.load_game("pytictactoe")
    assert isinstance(game, TicTacToe), "load_game gives back the game object itself"
    assert zerosum.check_game("pytictactoe", games=2)["games"] == 2

    class NoNotation(TicTacToe):
        name = "nonotation"

        def new_initial_state(self):
            class State(TicTacToeState):
                def action_to_string(self, player, action):
                    raise ValueError("no notation here")

            return State()

    for game in [NoNotation(), "nonotation"]:
        with pytest.raises(zerosum.GameError, match="no notation here"):
            zerosum.check_game(game, games=2)
