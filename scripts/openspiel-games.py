#!/usr/bin/env python3
"""Which of OpenSpiel's registered games zerosum can train: every game of pyspiel's
registry that is two-player, zero-sum, deterministic, sequential and of perfect
information, with its default parameters, through `zerosum.check_game` and one short
generation of self-play, each in a process of its own with a time limit. Prints the
Markdown table of docs/python.md.

    .venv/bin/python scripts/openspiel-games.py [--games N] [--seconds S]
"""
import argparse
import contextlib
import io
import subprocess
import sys
import tempfile
import time

import pyspiel

import zerosum


def qualifies(kind, game):
    return (
        game.num_players() == 2
        and kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
        and kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        and kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        and kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    )


def self_play(game):
    """One generation of 8 games with 16 simulations a move, or why not."""
    with tempfile.TemporaryDirectory() as run, contextlib.redirect_stdout(io.StringIO()):
        overrides = {
            "generations": 1,
            "self_play.games_per_generation": 8,
            "self_play.batch_games": 8,
            "search.num_simulations": 16,
            "arena.every": 0,
        }
        zerosum.train(game, run=run, overrides=overrides)


def trial(name, what, games):
    """Runs `what` ("check" or "play") for game `name` here; prints the outcome."""
    game = pyspiel.load_game(name)
    if what == "check":
        report = zerosum.check_game(game, games=games)
        print(f"passes ({report['positions']} positions)")
    else:
        self_play(game)
        print("runs")


def outcome(name, what, games, seconds):
    """`trial` in a process of its own: its line, the first line of its error, or a timeout."""
    command = [sys.executable, __file__, "--trial", name, what, "--games", str(games)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return f"not done in {seconds} s"
    if done.returncode == 0:
        return done.stdout.strip().splitlines()[-1]
    errors = [line for line in done.stderr.splitlines() if "Error" in line] or ["failed"]
    return "fails: " + errors[-1].split(": ", 1)[-1][:90]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="random games for check_game")
    parser.add_argument("--seconds", type=int, default=120, help="time limit of each trial")
    parser.add_argument("--trial", nargs=2, metavar=("GAME", "WHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.trial:
        trial(*args.trial, args.games)
        return
    print("| game | check_game | self-play | seconds |")
    print("|---|---|---|---|")
    for kind in sorted(pyspiel.registered_games(), key=lambda k: k.short_name):
        try:
            game = pyspiel.load_game(kind.short_name)
        except Exception:  # a game that needs parameters, or one not built into this wheel
            continue
        if not qualifies(kind, game):
            continue
        start = time.time()
        check = outcome(kind.short_name, "check", args.games, args.seconds)
        play = outcome(kind.short_name, "play", args.games, args.seconds)
        print(f"| `{kind.short_name}` | {check} | {play} | {time.time() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
