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
import datetime
import math
import random
import sys
import time

try:
    import pyspiel
    import zerosum
except ImportError as missing:
    sys.exit(f"error: {missing.name} is not installed: run ./scripts/setup.sh and use .venv/bin/python")


def openspiel_game(name: str):
    """zerosum's game `name`, OpenSpiel's version of it, and a function that writes a zerosum
    move in OpenSpiel's notation."""
    game = zerosum.load_game(name)
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


def wilson_interval(share: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval, as zerosum's own matches report it (arena.rs)."""
    z2 = 1.96**2
    center = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = math.sqrt(z2 * (share * (1 - share) / n + z2 / (4 * n * n))) / (1 + z2 / n)
    low = 0.0 if share <= 0 else max(0.0, center - half)
    high = 1.0 if share >= 1 else min(1.0, center + half)
    return low, high


def translated(source, target, action, translate, forward: bool):
    """The legal action of `target` that is `source`'s `action`, through the notation."""
    text = source.action_to_string(source.current_player(), action)
    wanted = translate(text) if forward else text
    for candidate in target.legal_actions():
        seen = target.action_to_string(target.current_player(), candidate)
        if (seen if forward else translate(seen)) == wanted:
            return candidate
    raise RuntimeError(f"no legal move {text!r} on the other board:\n{target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a zerosum game: oware, gomoku, gomoku:size=9")
    parser.add_argument("checkpoint", help="a run, checkpoints/latest, models/NAME")
    parser.add_argument("--simulations", type=int, default=None, help="zerosum's per move")
    parser.add_argument("--bot-simulations", type=int, default=10000, help="MCTSBot's per move")
    parser.add_argument("--uct-c", type=float, default=2.0, help="MCTSBot's exploration constant")
    parser.add_argument("--games", type=int, default=100, help="an even number")
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 2 or args.games % 2 or args.bot_simulations < 1 or (args.simulations or 1) < 1:
        sys.exit("error: games must be even and at least 2, simulations at least 1")
    zgame, ogame, translate = openspiel_game(args.game)
    try:
        agent = zerosum.Agent(zgame.name, checkpoint=args.checkpoint, simulations=args.simulations)
    except zerosum.GameError as error:
        sys.exit(f"error: {error}")
    bot = pyspiel.MCTSBot(
        ogame,
        pyspiel.RandomRolloutEvaluator(1, args.seed),
        args.uct_c,
        args.bot_simulations,
        1000,  # max_memory_mb
        True,  # solve
        args.seed,
        False,
    )
    rng = random.Random(args.seed)
    scores, parted, times = [], 0, {"zerosum": [0.0, 0], "bot": [0.0, 0]}
    started = time.time()
    for pair in range(args.games // 2):
        opening = []
        state = zgame.new_initial_state()
        for _ in range(args.opening_plies):
            if state.is_terminal():
                break
            opening.append(rng.choice(state.legal_actions()))
            state.apply_action(opening[-1])
        for zerosum_seat in (0, 1):
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
            parted += apart
            scores.append((zstate.returns()[zerosum_seat] + 1) / 2)
        done = len(scores)
        print(f"\r{done}/{args.games} games, score {100 * sum(scores) / done:.1f}%", end="", file=sys.stderr)
    print(file=sys.stderr)
    n = len(scores)
    mean = sum(scores) / n
    low, high = wilson_interval(mean, n)
    wins, draws = sum(s == 1 for s in scores), sum(s == 0.5 for s in scores)
    losses = n - wins - draws
    ms = {side: 1000 * t / max(k, 1) for side, (t, k) in times.items()}
    net = zerosum.load_checkpoint(args.checkpoint)
    minutes = (time.time() - started) / 60
    print(
        f"{agent.name} ({net.meta['game']}, generation {net.meta['generation']}) vs MCTSBot"
        f"({args.bot_simulations}): {wins}-{draws}-{losses} in {n} games, score {100 * mean:.1f}% "
        f"[{100 * low:.1f}, {100 * high:.1f}], {ms['zerosum']:.0f} ms against {ms['bot']:.0f} ms a move, "
        f"{parted} games where OpenSpiel's rules ended first, {minutes:.1f} minutes"
    )
    print(
        f"| {zgame.name} | {args.checkpoint}, {args.simulations or 'its'} sims | MCTSBot, "
        f"{args.bot_simulations} sims, uct_c {args.uct_c} | {n} | {wins}-{draws}-{losses} | "
        f"{100 * mean:.1f}% [{100 * low:.1f}, {100 * high:.1f}] | {ms['zerosum']:.0f} / "
        f"{ms['bot']:.0f} ms | {datetime.date.today()} | {net.sha256[:12]} |"
    )


if __name__ == "__main__":
    main()
