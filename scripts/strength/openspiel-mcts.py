#!/usr/bin/env python3
"""A zerosum checkpoint against OpenSpiel's MCTSBot (C++ under pyspiel, random rollouts) in
one of OpenSpiel's games, both colours; prints the result and a row for the strength
tables. Run from the repository root after ./scripts/setup.sh:

    .venv/bin/python scripts/strength/openspiel-mcts.py "hex(board_size=5)" runs/hex5 \\
        --simulations 400 --bot-simulations 1000 --games 100
"""

import argparse
import sys
import time

import openspiel_bot
import pyspiel
import zerosum


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help='an OpenSpiel game string, like "hex(board_size=5)"')
    openspiel_bot.add_arguments(parser, bot_simulations=1000)
    args = parser.parse_args()
    openspiel_bot.check_counts(args, even_games=False)
    # OpenSpiel prints its list of games on standard error for an unknown one: ask first.
    if args.game.split("(")[0] not in pyspiel.registered_names():
        sys.exit(f"error: {args.game}: OpenSpiel has no such game (pyspiel.registered_names() lists them)")
    try:
        game = pyspiel.load_game(args.game)
    except pyspiel.SpielError as error:
        sys.exit(f"error: {args.game}: {error}")
    agent = openspiel_bot.agent(game, args)
    bot = openspiel_bot.mcts_bot(game, args)

    def mcts_bot(state):
        return bot.step(state)

    mcts_bot.__name__ = f"MCTSBot({args.bot_simulations})"
    started = time.time()
    result = zerosum.arena(agent, mcts_bot, game, games=args.games, seed=args.seed, progress=True)
    openspiel_bot.report(args.game, agent, args, result, (time.time() - started) / 60)


if __name__ == "__main__":
    main()
