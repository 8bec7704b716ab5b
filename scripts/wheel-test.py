#!/usr/bin/env python3
"""Installs the wheel that scripts/wheel.sh builds as a user would, and uses it.

A fresh virtual environment gets the project's PyTorch (linked from .venv, with the packages it
requires, so nothing is downloaded), then `pip install dist/zerosum-*.whl`. From a folder outside
the repository: `zerosum models`, `zerosum play --game connect4` against the shipped model,
`zerosum train --game tictactoe`, and in Python `zerosum.Agent("connect4")` playing the shipped
model. Prints the seconds each took.

    scripts/wheel-test.py [--wheel dist/zerosum-....whl]   (default: builds it with wheel.sh)
"""

import argparse
import glob
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from pip._vendor.packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def requirement_closure(name: str) -> set:
    """The installed distributions `name` needs, itself included, markers and extras applied."""
    seen, todo = set(), [(name, frozenset())]
    while todo:
        dist_name, extras = todo.pop()
        dist = importlib.metadata.distribution(dist_name)
        key = dist.metadata["Name"].lower().replace("_", "-")
        if (key, extras) in seen:
            continue
        seen.add((key, extras))
        for line in dist.requires or []:
            req = Requirement(line)
            wanted = not req.marker or any(
                req.marker.evaluate({"extra": extra}) for extra in (extras or {""})
            )
            if wanted:
                todo.append((req.name, frozenset(req.extras)))
    return {key for key, _ in seen}


def link_distributions(names: set, site_packages: Path) -> None:
    """Links each distribution's top-level files into `site_packages`, as if installed there."""
    for name in names:
        dist = importlib.metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            source = Path(dist.locate_file(top))
            target = site_packages / top
            if source.exists() and not target.exists():
                target.symlink_to(source)


def run(args, cwd, env, stdin=None, timeout=600):
    """Runs a command as the user would: its output (stdout and stderr) and seconds."""
    start = time.monotonic()
    done = subprocess.run(args, cwd=cwd, env=env, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"wheel-test: {' '.join(map(str, args))} failed ({done.returncode}):\n"
                 f"{done.stdout[-3000:]}")
    return done.stdout, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", help="a wheel already built (default: scripts/wheel.sh builds one)")
    wheel = parser.parse_args().wheel
    if wheel is None:
        subprocess.run([ROOT / "scripts" / "wheel.sh"], check=True)
        wheel = glob.glob(str(ROOT / "dist" / "zerosum-*.whl"))[0]
    wheel = os.path.abspath(wheel)
    with zipfile.ZipFile(wheel) as packed:
        inside = set(packed.namelist())
    for needed in ("zerosum/bin/zerosum", "zerosum/models/models.toml", "zerosum/models/connect4.safetensors"):
        assert needed in inside, f"{needed} is not in {wheel}"

    with tempfile.TemporaryDirectory(prefix="zerosum-wheel-") as tmp:
        tmp = Path(tmp)
        venv, home = tmp / "venv", tmp / "home"
        home.mkdir()
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = venv / "bin" / "python"
        site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
        link_distributions(requirement_closure("torch"), site)
        # What a user's shell has after `source venv/bin/activate`: nothing of the clone.
        env = {key: value for key, value in os.environ.items()
               if key not in ("LIBTORCH", "LD_LIBRARY_PATH", "ZEROSUM_MODELS", "VIRTUAL_ENV", "PYTHONPATH")}
        env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
        env["VIRTUAL_ENV"] = str(venv)
        env.update(PIP_CONFIG_FILE=os.devnull, PYTHONNOUSERSITE="1")

        _, install = run([python, "-m", "pip", "install", "--no-index", "--quiet", wheel], home, env)
        listed, models = run(["zerosum", "models"], home, env)
        # The wheel's own models, not the clone's (whose path the binary also knows).
        assert f"models in {(site / 'zerosum' / 'models').resolve()}" in listed, listed
        # Two moves in the middle column, then quit: the shipped model answers each.
        played, play = run(["zerosum", "play", "--game", "connect4", "--sims", "50"], home, env,
                           stdin="d\nd\nquit\n")
        assert "the shipped model connect4 plays" in played, played[-2000:]
        assert played.count("agent plays") == 2, played[-2000:]
        _, train = run(["zerosum", "train", "--game", "tictactoe", "--run", "runs/ttt",
                        "--set", "generations=2", "--set", "self_play.games_per_generation=16",
                        "--set", "arena.every=0"], home, env)
        assert (home / "runs" / "ttt" / "checkpoints" / "latest").exists()
        agent = ("import zerosum; agent = zerosum.Agent('connect4', simulations=50); "
                 "state = zerosum.load_game('connect4').new_initial_state(); "
                 "action = agent.choose(state); assert 0 <= action < 7, action; "
                 "import os; print(agent.name, os.environ['ZEROSUM_MODELS'])")
        printed, python_agent = run([python, "-c", agent], home, env)
        last = printed.strip().splitlines()[-1]  # after torch's warning that NumPy is absent
        assert last == f"shipped:connect4 {site / 'zerosum' / 'models'}", printed

    size = os.path.getsize(wheel) / 2**20
    print(f"wheel-test: {os.path.basename(wheel)} ({size:.0f} MiB): pip install {install:.1f} s, "
          f"zerosum models {models:.1f} s, first play {play:.1f} s, train (2 generations) "
          f"{train:.1f} s, Agent('connect4') {python_agent:.1f} s")


if __name__ == "__main__":
    main()
