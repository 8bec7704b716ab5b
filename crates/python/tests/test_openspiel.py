"""OpenSpiel's games through pyspiel: the ones zerosum can play pass the conformance checker
and train; the others are refused naming why."""

import os

import pytest

import zerosum

pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "hex(board_size=5)", "breakthrough(rows=6,columns=6)"])
def test_a_qualifying_openspiel_game_passes_the_checker(name):
    report = zerosum.check_game(pyspiel.load_game(name), games=10, seed=2)
    assert report["games"] == 10
    assert report["positions"] > 10


@pytest.mark.parametrize(
    "name, reason",
    [("kuhn_poker", "chance nodes"), ("backgammon", "chance nodes"), ("phantom_ttt", "imperfect information"), ("goofspiel(num_cards=4)", "chance nodes|simultaneous"), ("tiny_hanabi", "players|chance nodes")],
)
def test_a_game_zerosum_cannot_play_is_refused(name, reason):
    with pytest.raises(zerosum.GameError, match=reason):
        zerosum.check_game(pyspiel.load_game(name))


def test_an_openspiel_game_trains_under_its_registry_name(tmp_path):
    run = str(tmp_path / "ttt")
    summary = zerosum.train(
        pyspiel.load_game("tic_tac_toe"),
        run=run,
        overrides={"generations": 2, "self_play.games_per_generation": 32, "arena.every": 0},
    )
    assert summary["generation"] == 2
    with open(os.path.join(run, "config.toml")) as config:
        text = config.read()
    assert 'game = "tic_tac_toe"' in text
    assert 'family = "resnet"' in text, "a [C, H, W] observation gets a resnet"
