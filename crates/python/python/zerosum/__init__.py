"""zerosum: AlphaZero for two-player, zero-sum, perfect-information games.

Train a built-in game, one of OpenSpiel's, or one written in Python::

    import zerosum
    zerosum.train("connect4", run="runs/c4")
    zerosum.train(MyGame(), run="runs/mine", overrides={"generations": 30})
    agent = zerosum.Agent(MyGame(), checkpoint="runs/mine", simulations=200)
    zerosum.arena(agent, "mcts:1000", MyGame(), games=100)

A game written in Python is any object with OpenSpiel's game and state methods
(docs/python.md lists them).
"""

import os as _os
from pathlib import Path as _Path

# The extension links the libtorch of the torch package: importing torch first loads it.
import torch  # noqa: F401

# A wheel carries the shipped models inside the package; the extension, loaded by Python, cannot
# find them beside its program as the binary does (a clone's build finds the clone's models/).
if (_Path(__file__).parent / "models").is_dir() and not _os.environ.get("ZEROSUM_MODELS"):
    _os.environ["ZEROSUM_MODELS"] = str(_Path(__file__).parent / "models")

from ._zerosum import (
    Agent,
    Game,
    GameError,
    State,
    arena,
    check_game,
    export_onnx,
    load_game,
    train,
    wilson_interval,
)
from .checkpoint import ZerosumNet, load_checkpoint

__all__ = [
    "Agent",
    "Game",
    "GameError",
    "State",
    "ZerosumNet",
    "arena",
    "check_game",
    "export_onnx",
    "load_checkpoint",
    "load_game",
    "train",
    "wilson_interval",
]
