#!/usr/bin/env python3
"""Which solved connect-four positions several checkpoints get wrong alike: each
checkpoint's outcome errors per set, how many checkpoints err on each position erred on,
and the positions at least half of them (or --at-least) err on, with every move's solved value. Errors
shared by every run point at what the recipe cannot learn; errors of one run, at its
noise. Run from the repository root after ./scripts/setup.sh:

    .venv/bin/python scripts/strength/shared-errors.py runs/a runs/b --sims 400 \\
        --sets begin-easy,begin-medium,begin-hard
"""

import argparse
import collections
import json
import sys

import zerosum


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", help="runs or checkpoints, as `zerosum play --checkpoint` takes")
    parser.add_argument("--sims", type=int, default=400, help="simulations a move (default 400)")
    parser.add_argument("--positions", default="models/benchmarks/connect4-sets.jsonl",
                        help="solved positions, as `zerosum accuracy --save` writes them")
    parser.add_argument("--sets", default="", help="the sets to score, comma-separated (default: all)")
    parser.add_argument("--at-least", type=int, help="a position is shared when this many checkpoints "
                        "err on it (default: half of them)")
    parser.add_argument("--save", help="write the shared positions here, to score others on them with --positions")
    args = parser.parse_args()
    wanted = set(filter(None, args.sets.split(",")))
    try:
        with open(args.positions) as lines:
            positions = [json.loads(line) for line in lines]
    except (OSError, json.JSONDecodeError) as error:
        sys.exit(f"error: {args.positions}: {error}")
    positions = [p for p in positions if not wanted or p["stage"] in wanted]
    if not positions:
        sys.exit(f"error: {args.positions} holds no position of the sets {args.sets}")
    game = zerosum.load_game("connect4")
    erred_by = collections.defaultdict(list)
    for checkpoint in args.checkpoints:
        try:
            agent = zerosum.Agent("connect4", checkpoint=checkpoint, simulations=args.sims)
        except (zerosum.GameError, OSError, ValueError) as error:
            sys.exit(f"error: {checkpoint}: {error}")
        per_set = collections.Counter()
        for index, position in enumerate(positions):
            if erred(agent, game, position):
                erred_by[index].append(checkpoint)
                per_set[position["stage"]] += 1
        print(f"{checkpoint}: " + ", ".join(f"{s} {n}" for s, n in sorted(per_set.items())), flush=True)
    at_least = args.at_least or (len(args.checkpoints) + 1) // 2
    shared = report(positions, erred_by, len(args.checkpoints), at_least)
    if args.save:
        try:
            with open(args.save, "w") as out:
                out.writelines(json.dumps(position) + "\n" for position in shared)
        except OSError as error:
            sys.exit(f"error: {args.save}: {error}")
        print(f"{len(shared)} positions written to {args.save}")


def erred(agent, game, position) -> bool:
    """Whether the agent's move changes the position's solved outcome."""
    state = game.new_initial_state()
    for move in position["moves"]:
        state.apply_action(state.string_to_action(move))
    values = dict(position["values"])
    chosen = state.action_to_string(state.current_player(), agent.analyse(state)["action"])
    return values[chosen] != max(values.values())


def report(positions, erred_by, checkpoints: int, at_least: int) -> list:
    """Prints how widely the errors are shared; returns the positions `at_least` checkpoints err on."""
    by_count = collections.Counter(len(names) for names in erred_by.values())
    print(f"{len(erred_by)} positions erred on; by how many of the {checkpoints} checkpoints: "
          + ", ".join(f"{k}: {by_count[k]}" for k in sorted(by_count)))
    shared = []
    for index, names in sorted(erred_by.items(), key=lambda item: -len(item[1])):
        if len(names) < at_least:
            break
        position = positions[index]
        shared.append(position)
        values = " ".join(f"{move}{value:+d}" for move, value in position["values"])
        print(f"  {len(names)}/{checkpoints}  {position['stage']:<13} {''.join(position['moves']):<14} {values}")
    return shared


if __name__ == "__main__":
    main()
