#!/usr/bin/env python3
"""Drives `zerosum uci` with python-chess's engine module: two engine instances play a full
game at `go nodes 200` (by default), python-chess checks every move and every `info` line,
and the game is played to its end by the rules (checkmate, stalemate, insufficient
material, or a claimable draw: threefold repetition, the 50-move rule; with --no-claim
only the automatic draws end it, fivefold repetition and the 75-move rule, so the engines
play on past positions that zerosum's own rules call drawn).

    scripts/uci-selfplay.py [--binary target/release/zerosum] [--nodes 200] [--no-claim]
                            [-- ENGINE ARGS]

Arguments after `--` go to both engines (`-- --checkpoint runs/chess/checkpoints/latest`).
python-chess (pip package `chess`) is installed into the project's .venv if it is missing,
and the script reruns itself there. It prints the game as PGN and ends with
`1 passed, 0 failed` (exit 0), or `0 passed, 1 failed` and the reason (exit 1).
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")


def ensure_python_chess():
    """Imports python-chess, installing it into .venv and rerunning there if needed."""
    try:
        import chess.engine  # noqa: F401
        return
    except ImportError:
        pass
    if os.path.realpath(sys.executable) != os.path.realpath(VENV_PYTHON):
        if not os.path.exists(VENV_PYTHON):
            subprocess.run([sys.executable, "-m", "venv", os.path.join(ROOT, ".venv")], check=True)
        if subprocess.run([VENV_PYTHON, "-c", "import chess.engine"],
                          capture_output=True).returncode == 0:
            os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "pip"), "install", "--quiet", "chess"],
                   check=True)
    os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])


def check_info(board, move, info):
    """The last `info` of a search: depth, nodes, score and a legal pv starting with `move`."""
    for key in ("depth", "nodes", "score", "pv"):
        if key not in info:
            raise AssertionError(f"info without {key}: {info}")
    pv = info["pv"]
    if not pv or pv[0] != move:
        raise AssertionError(f"pv {pv} does not start with the best move {move}")
    if info["depth"] != len(pv):
        raise AssertionError(f"depth {info['depth']} is not the pv's length {len(pv)}")
    line = board.copy()
    for step in pv:
        if step not in line.legal_moves:
            raise AssertionError(f"illegal pv move {step} in {line.fen()}")
        line.push(step)


def play(binary, nodes, engine_args, max_plies, claim):
    import chess
    import chess.engine
    import chess.pgn

    engines = [
        chess.engine.SimpleEngine.popen_uci([binary, "uci", "--seed", str(seed)] + engine_args)
        for seed in (1, 2)
    ]
    try:
        for engine in engines:
            if engine.id.get("name", "").split(" ")[0] != "zerosum":
                raise AssertionError(f"unexpected engine name {engine.id}")
            if "Nodes" not in engine.options:
                raise AssertionError(f"no Nodes option in {list(engine.options)}")
        board = chess.Board()
        started = time.time()
        while not board.is_game_over(claim_draw=claim):
            if board.ply() >= max_plies:
                raise AssertionError(f"no end after {max_plies} plies")
            engine = engines[0 if board.turn == chess.WHITE else 1]
            result = engine.play(board, chess.engine.Limit(nodes=nodes),
                                 info=chess.engine.INFO_ALL)
            if result.move is None or result.move not in board.legal_moves:
                raise AssertionError(f"illegal move {result.move} in {board.fen()}")
            check_info(board, result.move, result.info)
            board.push(result.move)
        seconds = time.time() - started
    finally:
        for engine in engines:
            engine.quit()

    outcome = board.outcome(claim_draw=claim)
    result = board.result(claim_draw=claim)
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = f"zerosum uci self-play, go nodes {nodes}"
    game.headers["White"] = "zerosum uci --seed 1"
    game.headers["Black"] = "zerosum uci --seed 2"
    game.headers["Result"] = result
    game.headers["Termination"] = outcome.termination.name.lower().replace("_", " ")
    print(game)
    print()
    print(f"{board.ply()} plies in {seconds:.0f} s; result {result} "
          f"({outcome.termination.name.lower().replace('_', ' ')})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "zerosum"))
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--max-plies", type=int, default=2000,
                        help="fail if the game has not ended after this many plies")
    parser.add_argument("--no-claim", action="store_true",
                        help="end only by automatic draws (fivefold, 75 moves), not claims")
    parser.add_argument("engine_args", nargs="*", help="passed to `zerosum uci` (after --)")
    args = parser.parse_args()
    ensure_python_chess()
    if not os.access(args.binary, os.X_OK):
        print(f"{args.binary} is missing: build it with `cargo build --release -p zerosum`")
        print("0 passed, 1 failed")
        return 1
    try:
        play(args.binary, args.nodes, args.engine_args, args.max_plies, not args.no_claim)
    except Exception as error:  # a failed check or an engine that broke the protocol
        print(f"FAILED: {type(error).__name__}: {error}")
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
