"""OpenSpiel's MCTSBot as the strength scripts set it up and report it: imported by
openspiel-mcts.py and mcts-bot.py, not run."""

import argparse
import datetime
import os
import pathlib
import sys

try:
    import pyspiel
    import zerosum
except ImportError as missing:
    sys.exit(f"error: {missing.name} is not installed: run ./scripts/setup.sh and use .venv/bin/python")


def add_arguments(parser: argparse.ArgumentParser, bot_simulations: int) -> None:
    """The options both scripts share: the checkpoint, both searches, games and seed."""
    parser.add_argument("checkpoint", help="a run, checkpoints/latest, models/NAME or shipped")
    parser.add_argument("--simulations", type=int, default=None, help="zerosum's per move")
    parser.add_argument("--bot-simulations", type=int, default=bot_simulations, help="MCTSBot's per move")
    parser.add_argument("--uct-c", type=float, default=2.0, help="MCTSBot's exploration constant")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)


def check_counts(args: argparse.Namespace, even_games: bool) -> None:
    """Exits with one line where the counts cannot make a match."""
    if args.games < 1 or args.bot_simulations < 1 or (args.simulations or 1) < 1:
        sys.exit("error: games and simulations must be at least 1")
    if even_games and args.games % 2:
        sys.exit("error: games must be even: each opening is played once with each colour")


def mcts_bot(game, args: argparse.Namespace):
    """OpenSpiel's C++ MCTSBot on `game` (a pyspiel game): random rollouts and the solver,
    as OpenSpiel's examples play it."""
    return pyspiel.MCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(1, args.seed),
        args.uct_c,
        args.bot_simulations,
        1000,  # max_memory_mb
        True,  # solve
        args.seed,
        False,  # verbose
    )


def agent(game, args: argparse.Namespace):
    """The zerosum agent of `game` that the checkpoint argument names."""
    try:
        return zerosum.Agent(game, checkpoint=args.checkpoint, simulations=args.simulations)
    except zerosum.GameError as error:
        sys.exit(f"error: {error}")


def report(game: str, player, args: argparse.Namespace, result: dict, minutes: float, extra: str = "") -> None:
    """Prints the match (`result` as zerosum.arena returns it) and a row for the strength
    table: game, player, opponent, games, W-D-L, score and interval, times, date, hash."""
    low, high = result["score_interval"]
    wdl = f"{result['wins']}-{result['draws']}-{result['losses']}"
    score = f"{100 * result['score']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
    times = f"{result['ms_per_move']:.0f} / {result['opponent_ms_per_move']:.0f} ms"
    location = zerosum_checkpoint(player, args)
    net = zerosum.load_checkpoint(location)
    print(
        f"{player.name} ({net.meta['game']}, generation {net.meta['generation']}) vs "
        f"MCTSBot({args.bot_simulations}): {wdl} in {result['games']} games, score {score}, "
        f"{times} a move{extra}, {minutes:.1f} minutes"
    )
    print(
        f"| {game} | {location}, {args.simulations or 'its'} sims | MCTSBot, "
        f"{args.bot_simulations} sims, uct_c {args.uct_c} | {result['games']} | {wdl} | "
        f"{score} | {times} | {datetime.date.today()} | {net.sha256[:12]} |"
    )


def zerosum_checkpoint(player, args: argparse.Namespace) -> str:
    """The checkpoint location the player's network was read from: a shipped model is read
    from $ZEROSUM_MODELS, else the repository's models/, as zerosum itself does."""
    if player.name.startswith("shipped:"):
        repository_models = pathlib.Path(__file__).resolve().parents[2] / "models"
        models = os.environ.get("ZEROSUM_MODELS") or os.path.relpath(repository_models)
        return os.path.join(models, player.name.removeprefix("shipped:"))
    return args.checkpoint
