#!/usr/bin/env python3
"""Self-play speed of games whose rules live in Python against zerosum's own: tic-tac-toe
built in, written in Python (crates/python/tests/games.py) and OpenSpiel's through pyspiel;
connect four built in and OpenSpiel's. Each plays one generation of synchronous self-play
on one thread with the same network, simulations and batch; prints a Markdown table of
positions per second. Run on a quiet machine, from the repository root:

    .venv/bin/python scripts/python-speed.py [--repeats 3]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "crates", "python", "tests"))

try:
    import pyspiel
    import zerosum
    from games import TicTacToe
except ImportError as missing:
    sys.exit(f"error: {missing.name} is not installed: run ./scripts/setup.sh and use .venv/bin/python")

# Everything explicit, so that the games differ only in their rules (and observations).
CONFIG = """
game = "{game}"
seed = 1
generations = 1
mode = "sync"
device = "cpu"
torch_threads = 1

[model]
{model}

[search]
num_simulations = {simulations}
cache_capacity = 100000

[self_play]
games_per_generation = {games}
batch_games = 64
threads = 1
temperature_plies = 4

[arena]
every = 0
"""

MLP = 'family = "mlp"\nhidden = 64\nlayers = 2\nvalue_hidden = 32'
RESNET = 'family = "resnet"\nchannels = 32\nblocks = 3\nvalue_hidden = 32'

CASES = [
    ("tic-tac-toe", "built in", lambda: "tictactoe", MLP, 64, 512),
    ("tic-tac-toe", "written in Python", TicTacToe, MLP, 64, 512),
    ("tic-tac-toe", "OpenSpiel (pyspiel)", lambda: pyspiel.load_game("tic_tac_toe"), MLP, 64, 512),
    ("connect four", "built in", lambda: "connect4", RESNET, 96, 128),
    ("connect four", "OpenSpiel (pyspiel)", lambda: pyspiel.load_game("connect_four"), RESNET, 96, 128),
]


def self_play_rate(game, model, simulations, games, folder):
    """Positions per second of one generation's self-play, read from the run's metrics."""
    config = os.path.join(folder, "config.toml")
    with open(config, "w") as out:
        out.write(CONFIG.format(game="unused", model=model, simulations=simulations, games=games))
    run = os.path.join(folder, "run")
    zerosum.train(game, run=run, config=config)
    with open(os.path.join(run, "metrics", "gen-0001-1-self_play.json")) as event:
        return json.load(event)["positions_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for name, rules, make, model, simulations, games in CASES:
        rates = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as folder:
                rates.append(self_play_rate(make(), model, simulations, games, folder))
        rows.append((name, rules, simulations, statistics.median(rates), min(rates), max(rates)))
    print("| game | rules | simulations | positions/s (median) | range |")
    print("|---|---|---|---|---|")
    for name, rules, simulations, median, low, high in rows:
        print(f"| {name} | {rules} | {simulations} | {median:.0f} | {low:.0f}-{high:.0f} |")


if __name__ == "__main__":
    main()
