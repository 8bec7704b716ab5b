"""The strength scripts, end to end at tiny budgets: those against OpenSpiel's MCTSBot play
their games, score them with zerosum's interval and print the table row; shared-errors.py
counts the checkpoints that err on each solved position."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pyspiel")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def script(name, *args, env=None):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "strength", name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_mcts_bot_plays_a_shipped_model_on_both_boards_and_prints_its_row():
    done = script(
        "mcts-bot.py", "gomoku:size=9", "shipped", "--simulations", "16",
        "--bot-simulations", "20", "--games", "2",
    )
    assert done.returncode == 0, done.stderr
    match, row = done.stdout.strip().splitlines()
    wdl = re.search(r": (\d+)-(\d+)-(\d+) in 2 games, score ([\d.]+)% \[([\d.]+), ([\d.]+)\]", match)
    assert wdl, match
    wins, draws, losses = map(int, wdl.group(1, 2, 3))
    assert wins + draws + losses == 2
    assert float(wdl.group(5)) <= float(wdl.group(4)) <= float(wdl.group(6))
    assert row.startswith("| gomoku:size=9 | models/gomoku-9x9, 16 sims | MCTSBot, 20 sims")
    assert match.startswith("shipped:gomoku-9x9 (gomoku:size=9")


def test_a_shipped_model_from_zerosum_models_is_the_one_the_row_names(tmp_path):
    models = tmp_path / "models"
    shutil.copytree(os.path.join(ROOT, "models"), models)
    done = script(
        "mcts-bot.py", "gomoku:size=9", "shipped", "--simulations", "4",
        "--bot-simulations", "4", "--games", "2",
        env={**os.environ, "ZEROSUM_MODELS": str(models)},
    )
    assert done.returncode == 0, done.stderr
    row = done.stdout.strip().splitlines()[-1]
    assert row.startswith(f"| gomoku:size=9 | {models / 'gomoku-9x9'}, 4 sims |"), row


@pytest.mark.parametrize(
    "name, args, message",
    [
        ("mcts-bot.py", ["gomoku:size=9", "shipped", "--games", "3"], "games must be even"),
        ("mcts-bot.py", ["connect4", "shipped", "--games", "2"], "no OpenSpiel counterpart"),
        ("mcts-bot.py", ["gomoku:size=7", "shipped", "--games", "2"], "size must be in 9..=19"),
        ("mcts-bot.py", ["gomoku:size=13", "shipped", "--games", "2"], "no model is shipped"),
        ("openspiel-mcts.py", ["no_such_game", "runs/x"], "OpenSpiel has no such game"),
        ("openspiel-mcts.py", ["hex(board_size=5)", "/no/such/run"], "no checkpoint there"),
        ("openspiel-mcts.py", ["tic_tac_toe", "runs/x", "--games", "0"], "at least 1"),
        ("shared-errors.py", ["shipped", "--positions", "/no/such/file"], "No such file"),
        ("shared-errors.py", ["/no/such/run", "--sets", "end-easy"], "no checkpoint there"),
        ("shared-errors.py", ["shipped", "--sets", "no-such-set"], "no position of the sets"),
    ],
)
def test_the_strength_scripts_refuse_bad_arguments_in_one_line(name, args, message):
    done = script(name, *args)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_a_go_row_carries_the_arena_s_margin():
    zerosum = os.path.join(ROOT, "target", "release", "zerosum")
    match = subprocess.run(
        [zerosum, "arena", "shipped:sims=8", "random", "--game", "go:size=5",
         "--games", "2", "--opening-plies", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    ).stdout.strip().splitlines()[-1]
    margin = re.search(r", margin ([-+][\d.]+) points a game$", match)
    assert margin, match
    row = subprocess.run(
        ["bash", "-c", 'source scripts/strength/common.sh; table_row "$@"', "row",
         "go:size=5", "models/go-5x5", "8", "random", "2", match],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    ).stdout
    assert f"| +2 =0 -0 | 100.0% [34.2%, 100.0%], margin {margin.group(1)} points a game |" in row, row


def test_shared_errors_counts_each_checkpoint_s_errors_and_saves_the_shared_positions(tmp_path):
    # Four solved positions whose every move is relabelled so that only the worst one keeps
    # the outcome: a player that avoids losing moves errs on each.
    with open(os.path.join(ROOT, "models", "benchmarks", "connect4-sets.jsonl")) as lines:
        solved = [json.loads(line) for line in lines][:4]
    for position in solved:
        worst = min(position["values"], key=lambda mv: mv[1])[0]
        position["values"] = [[move, 1 if move == worst else 0] for move, _ in position["values"]]
    positions, shared = tmp_path / "positions.jsonl", tmp_path / "shared.jsonl"
    positions.write_text("".join(json.dumps(p) + "\n" for p in solved))
    done = script("shared-errors.py", "shipped", "shipped", "--positions", str(positions),
                  "--sims", "8", "--save", str(shared))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["shipped: end-easy 4"] * 2, done.stdout
    assert "4 positions erred on; by how many of the 2 checkpoints: 2: 4" in lines, done.stdout
    assert [json.loads(line) for line in shared.read_text().splitlines()] == solved
    again = script("shared-errors.py", "shipped", "--positions", str(shared), "--sims", "8")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == "shipped: end-easy 4", again.stdout
