#!/usr/bin/env python3
"""A zerosum checkpoint in one of zerosum's own games against OpenSpiel's MCTSBot (C++ under
pyspiel, random rollouts, the solver) playing OpenSpiel's version of the same game. Each
game is played on both boards in step, moves translated through their notation; zerosum's
rules score it. Pairs of games share a random opening (--opening-plies), once with each
colour. Prints the result and a row for docs/strength.md. Run from the repository root
after ./scripts/setup.sh (which installs open-spiel):

    .venv/bin/python scripts/strength/mcts-bot.py oware models/oware \\
        --bot-simulations 10000 --games 100

Games: oware (OpenSpiel's `oware`; it also ends a game on a repeated board, which zerosum's
default Oware does not, and the script counts the games where the two part ways), gomoku
and gomoku:size=9 (`gomoku(size=N)`).
"""

import argparse
import random
import sys
import time

import openspiel_bot
import pyspiel
import zerosum


def openspiel_game(name: str):
    """zerosum's game `name`, OpenSpiel's version of it, and a function that writes a zerosum
    move in OpenSpiel's notation."""
    try:
        game = zerosum.load_game(name)
    except zerosum.GameError as error:
        sys.exit(f"error: {error}")
    full = game.name
    if full.startswith("oware"):
        return game, pyspiel.load_game("oware"), lambda text: text  # A-F, a-f in both
    if full.startswith("gomoku"):
        size = int(dict(p.split("=") for p in full.split(":")[1].split(","))["size"])

        def gomoku(text: str) -> str:
            # zerosum's C7 (GTP letters, no I; row 1 at the bottom) is OpenSpiel's "row,col".
            col = "ABCDEFGHJKLMNOPQRST".index(text[0].upper())
            return f"{size - int(text[1:])},{col}"

        return game, pyspiel.load_game(f"gomoku(size={size})"), gomoku
    sys.exit(f"error: {name}: no OpenSpiel counterpart here (oware, gomoku, gomoku:size=9)")


def translated(source, target, action, translate, forward: bool):
    """The legal action of `target` that is `source`'s `action`, through the notation."""
    text = source.action_to_string(source.current_player(), action)
    wanted = translate(text) if forward else text
    for candidate in target.legal_actions():
        seen = target.action_to_string(target.current_player(), candidate)
        if (seen if forward else translate(seen)) == wanted:
            return candidate
    raise RuntimeError(f"no legal move {text!r} on the other board:\n{target}")


def play(boards, agent, bot, opening, zerosum_seat, rng, times):
    """One game on both boards in step from `opening`, zerosum in `zerosum_seat`: zerosum's
    score, and whether OpenSpiel's rules ended it first. Adds each side's thinking time to
    `times`."""
    zgame, ogame, translate = boards
    zstate, ostate = zgame.new_initial_state(), ogame.new_initial_state()
    bot.restart()
    apart = False
    for action in opening + [None] * 10_000:
        if zstate.is_terminal():
            break
        if action is None:
            side = "zerosum" if zstate.current_player() == zerosum_seat else "bot"
            clock = time.perf_counter()
            if side == "zerosum":
                action = agent.choose(zstate)
            elif ostate.is_terminal():
                apart = True  # OpenSpiel's rules ended the game: the bot moves at random
                action = rng.choice(zstate.legal_actions())
            else:
                action = translated(ostate, zstate, bot.step(ostate), translate, False)
            times[side][0] += time.perf_counter() - clock
            times[side][1] += 1
        if not ostate.is_terminal():
            ostate.apply_action(translated(zstate, ostate, action, translate, True))
        zstate.apply_action(action)
    return (zstate.returns()[zerosum_seat] + 1) / 2, apart


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a zerosum game: oware, gomoku, gomoku:size=9")
    openspiel_bot.add_arguments(parser, bot_simulations=10000)
    parser.add_argument("--opening-plies", type=int, default=2)
    args = parser.parse_args()
    openspiel_bot.check_counts(args, even_games=True)
    boards = openspiel_game(args.game)
    zgame, ogame, _ = boards
    agent = openspiel_bot.agent(zgame.name, args)
    bot = openspiel_bot.mcts_bot(ogame, args)
    rng = random.Random(args.seed)
    scores, parted, times = [], 0, {"zerosum": [0.0, 0], "bot": [0.0, 0]}
    started = time.time()
    for _ in range(args.games // 2):
        opening = []
        state = zgame.new_initial_state()
        for _ in range(args.opening_plies):
            if state.is_terminal():
                break
            opening.append(rng.choice(state.legal_actions()))
            state.apply_action(opening[-1])
        for zerosum_seat in (0, 1):
            score, apart = play(boards, agent, bot, opening, zerosum_seat, rng, times)
            scores.append(score)
            parted += apart
        done = len(scores)
        print(f"\r{done}/{args.games} games, score {100 * sum(scores) / done:.1f}%", end="", file=sys.stderr)
    print(file=sys.stderr)
    n = len(scores)
    wins, draws = sum(s == 1 for s in scores), sum(s == 0.5 for s in scores)
    ms = {side: 1000 * t / max(k, 1) for side, (t, k) in times.items()}
    result = {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": n - wins - draws,
        "score": sum(scores) / n,
        "score_interval": zerosum.wilson_interval(sum(scores) / n, n),
        "ms_per_move": ms["zerosum"],
        "opponent_ms_per_move": ms["bot"],
    }
    extra = f", {parted} games where OpenSpiel's rules ended first"
    openspiel_bot.report(zgame.name, agent, args, result, (time.time() - started) / 60, extra)


if __name__ == "__main__":
    main()
