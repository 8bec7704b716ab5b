#!/usr/bin/env python3
"""A zerosum checkpoint against OpenSpiel's MCTSBot (C++ under pyspiel, random rollouts) in
one of OpenSpiel's games, both colours; prints the result and a row for the strength
tables. Run from the repository root after ./scripts/setup.sh:

    .venv/bin/python scripts/strength/openspiel-mcts.py "hex(board_size=5)" runs/hex5 \\
        --simulations 400 --bot-simulations 1000 --games 100
"""

import argparse
import datetime
import sys
import time

try:
    import pyspiel
    import zerosum
except ImportError as missing:
    sys.exit(f"error: {missing.name} is not installed: run ./scripts/setup.sh and use .venv/bin/python")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help='an OpenSpiel game string, like "hex(board_size=5)"')
    parser.add_argument("checkpoint", help="a run, checkpoints/latest, or NAME(.safetensors)")
    parser.add_argument("--simulations", type=int, default=None, help="zerosum's per move")
    parser.add_argument("--bot-simulations", type=int, default=1000, help="MCTSBot's per move")
    parser.add_argument("--uct-c", type=float, default=2.0, help="MCTSBot's exploration constant")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1 or args.bot_simulations < 1 or (args.simulations or 1) < 1:
        sys.exit("error: games and simulations must be at least 1")
    try:
        game = pyspiel.load_game(args.game)
    except pyspiel.SpielError as error:
        sys.exit(f"error: {args.game}: {error}")
    try:
        agent = zerosum.Agent(game, checkpoint=args.checkpoint, simulations=args.simulations)
    except zerosum.GameError as error:
        sys.exit(f"error: {error}")
    bot = pyspiel.MCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(1, args.seed),
        args.uct_c,
        args.bot_simulations,
        1000,  # max_memory_mb
        True,  # solve: MCTS-Solver, as OpenSpiel's examples play it
        args.seed,
        False,
    )

    def mcts_bot(state):
        return bot.step(state)

    mcts_bot.__name__ = f"MCTSBot({args.bot_simulations})"
    started = time.time()
    result = zerosum.arena(agent, mcts_bot, game, games=args.games, seed=args.seed, progress=True)
    minutes = (time.time() - started) / 60
    low, high = result["score_interval"]
    net = zerosum.load_checkpoint(args.checkpoint)
    digest = net.sha256[:12]
    print(
        f"{agent.name} ({net.meta['game']}, generation {net.meta['generation']}) vs "
        f"{mcts_bot.__name__}: {result['wins']}-{result['draws']}-{result['losses']} in "
        f"{result['games']} games, score {100 * result['score']:.1f}% "
        f"[{100 * low:.1f}, {100 * high:.1f}], {result['ms_per_move']:.0f} ms against "
        f"{result['opponent_ms_per_move']:.0f} ms a move, {minutes:.1f} minutes"
    )
    print(
        f"| {args.game} | {agent.name}, {args.simulations or 'default'} sims | "
        f"MCTSBot, {args.bot_simulations} sims, uct_c {args.uct_c} | {result['games']} | "
        f"{result['wins']}-{result['draws']}-{result['losses']} | {100 * result['score']:.1f}% "
        f"[{100 * low:.1f}, {100 * high:.1f}] | {result['ms_per_move']:.0f} / "
        f"{result['opponent_ms_per_move']:.0f} ms | {datetime.date.today()} | {digest} |"
    )


if __name__ == "__main__":
    main()
