#!/usr/bin/env python3
"""Everything fails at once: a connect-four run over a local S3 server (SeaweedFS,
scripts/s3-server.sh) with a learner (zerosum train --actors 0), --actors actor processes and
an evaluator, each SIGKILLed at seeded random moments, the server too, and restarted a few
seconds later by this script, as a supervisor would (a role that exits by itself is restarted
the same way). After --minutes of faults the roles run on undisturbed for --settle seconds and
are stopped as a user stops them (Ctrl-C, SIGTERM). Then it checks:

  - every generation's manifest names batches that are stored and hold whole games;
  - no batch ingested twice (an identity, actor.session.index, in one manifest only), and
    none missed (every batch stored 5 minutes before the newest one taken was taken);
  - every batch an actor finished (the line it printed once its outbox held it) reached the
    store, and every outbox is empty;
  - every checkpoint left loads and plays;
  - the run's clock and step counts are continuous: one generation event per generation,
    1..N, training time and steps rising from each to the next;
  - the final network beats mcts:1000 (--games games, both colours).

    scripts/chaos.py [--minutes 20] [--faults 36] [--seed 1] [--actors 2] [--games 40]
                     [--zerosum target/release/zerosum]

Exit 0 when every check holds. Prints the tally of faults and a Markdown summary.
"""
import argparse
import importlib.util
import json
import math
import os
import random
import re
import signal
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("bench_distributed",
                                               os.path.join(ROOT, "scripts", "bench-distributed.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
BUCKET = "zerosum"


class Role:
    """A process of the run, started again after each kill or exit."""

    def __init__(self, name, argv, env, folder):
        self.name, self.argv, self.env, self.folder = name, argv, env, folder
        self.process, self.starts, self.kills, self.exits = None, 0, 0, []
        self.restart_at = 0.0

    def log_path(self, start):
        return os.path.join(self.folder, f"{self.name}-{start}.log")

    def start(self):
        self.starts += 1
        log = open(self.log_path(self.starts), "w")
        self.process = subprocess.Popen(self.argv, env=self.env, stdout=log, stderr=log)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.kills += 1

    def tend(self, now, rng):
        """Starts the role again when its restart is due, or notes that it exited."""
        if self.process is None:
            if now >= self.restart_at:
                self.start()
        elif self.process.poll() is not None:
            self.exits.append(self.process.returncode)
            self.process = None
            self.restart_at = now + rng.uniform(1, 10)

    def down_for(self, seconds):
        self.process = None
        self.restart_at = time.time() + seconds

    def logs(self):
        return "".join(open(self.log_path(k)).read() for k in range(1, self.starts + 1))


def faults_plan(rng, roles, count, seconds):
    """`count` (moment, target) pairs: every target at least once, the rest at random."""
    targets = roles + ["server"]
    chosen = targets + [rng.choice(targets) for _ in range(count - len(targets))]
    rng.shuffle(chosen)
    moments = sorted(rng.uniform(30, seconds) for _ in chosen)
    return list(zip(moments, chosen))


def objects(server, prefix):
    return [o["Key"] for o in server.objects(prefix)]


def read(server, key):
    return server.s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def identity(name):
    """ACTOR.SESSION.INDEX of games/actors/STAMP-ACTOR.SESSION.INDEX-gCKPT.jsonl (or of the
    outbox file ACTOR.SESSION.INDEX-gCKPT.jsonl)."""
    file = name.rsplit("/", 1)[-1]
    if "/games/actors/" in name or name.startswith("games/actors/"):
        file = file.split("-", 1)[1]
    return file.rsplit("-g", 1)[0]


def stamp(name):
    """Upload time (Unix s) of games/actors/STAMP-ACTOR.SESSION.INDEX-gCKPT.jsonl."""
    return int(name.rsplit("/", 1)[1].split("-", 1)[0]) / 1000


def check(server, prefix, run, roles, zerosum, games, folder):
    problems = []
    generations = sorted(int(m) for m in re.findall(r"ingested/gen-(\d{4})\.json",
                                                    " ".join(objects(server, f"{prefix}/ingested/"))))
    stored = objects(server, f"{prefix}/games/actors/")
    stored_ids = {identity(k) for k in stored}
    seen, newest = {}, 0
    for generation in generations:
        manifest = json.loads(read(server, f"{prefix}/ingested/gen-{generation:04}.json"))
        for batch in manifest["batches"]:
            lines = [line for line in read(server, f"{prefix}/{batch}").decode().splitlines() if line]
            if not lines or any("result" not in json.loads(line) for line in lines):
                problems.append(f"generation {generation}: {batch} does not hold whole games")
        for batch in manifest["batches"] + manifest["stale"]:
            if identity(batch) in seen:
                problems.append(f"{batch} ingested by generations {seen[identity(batch)]} "
                                f"and {generation}")
            seen[identity(batch)] = generation
            newest = max(newest, stamp(batch))
    # Nothing missed: every batch stored well before the newest one taken (more than the
    # learner's 5-minute look back) was read or passed over.
    missed = [k for k in stored if stamp(k) < newest - 300 and identity(k) not in seen]
    problems += [f"{k} was stored but never taken by the learner" for k in missed]
    finished = set()
    for role in roles:
        if role.name.startswith("actor"):
            finished |= set(re.findall(r"^(\S+\.jsonl): \d+ games", role.logs(), re.M))
    lost = sorted(f for f in finished if identity(f) not in stored_ids)
    problems += [f"{f} was finished by its actor but never stored" for f in lost]
    left = [f for d, _, files in os.walk(os.path.join(folder, "outboxes")) for f in files]
    problems += [f"{f} is still in an outbox" for f in left]
    # One generation event per generation, the clock and the steps rising.
    events = {}
    for key in objects(server, f"{prefix}/metrics/"):
        found = re.search(r"gen-(\d{4})-\d-(\w+)\.json$", key)
        if found:
            events[(int(found.group(1)), found.group(2))] = json.loads(read(server, key))
    closed = sorted(g for g, kind in events if kind == "generation")
    if closed != list(range(1, len(closed) + 1)):
        problems.append(f"generation events are not 1..N: {closed}")
    clock = [events[(g, "generation")]["train_seconds"] for g in closed]
    steps = [events[(g, "learn")]["step"] for g in closed if (g, "learn") in events]
    if any(b <= a for a, b in zip(clock, clock[1:])):
        problems.append(f"the run's clock goes back: {clock}")
    if any(b <= a for a, b in zip(steps, steps[1:])) or len(steps) != len(closed):
        problems.append(f"the steps do not rise once a generation: {steps}")
    checkpoints = sorted(k for k in objects(server, f"{prefix}/checkpoints/")
                         if re.search(r"gen-\d{4}\.json$", k))
    for key in checkpoints:
        base = key.rsplit("/", 1)[1].removesuffix(".json")
        spec = f"checkpoint:{run}/checkpoints/{base}.safetensors"
        played = subprocess.run([zerosum, "arena", spec, "random", "--game", "connect4",
                                 "--games", "2"], env=server.env, capture_output=True, text=True)
        if played.returncode != 0:
            problems.append(f"{base} does not load: {played.stderr.strip()}")
    match = subprocess.run([zerosum, "arena", f"checkpoint:{run}/checkpoints/latest", "mcts:1000",
                            "--game", "connect4", "--games", str(games)],
                           env=server.env, capture_output=True, text=True)
    score = re.search(r"\+(\d+) =(\d+) -(\d+)", match.stdout)
    if not score:
        problems.append(f"the match against mcts:1000 did not finish: {match.stderr.strip()}")
        return problems, len(generations), len(checkpoints), steps, clock, None
    wins, draws, losses = (int(x) for x in score.groups())
    points = (wins + 0.5 * draws) / (wins + draws + losses)
    if points <= 0.5:
        problems.append(f"the final network does not beat mcts:1000: {match.stdout.strip()}")
    return problems, len(generations), len(checkpoints), steps, clock, (wins, draws, losses, points)


def wilson(p, n, z=1.96):
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--faults", type=int, default=36)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--settle", type=float, default=60)
    parser.add_argument("--zerosum", default=bench.ZEROSUM)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = tempfile.mkdtemp(prefix="zerosum-chaos-")
    server_dir = os.path.join(folder, "s3")
    server = bench.Server(server_dir)
    run = f"s3://{BUCKET}/chaos-{args.seed}-{os.getpid()}"
    prefix = run.split("/", 3)[3]
    z = args.zerosum
    # One libtorch thread each: five processes share the 2 cores, and libtorch's threads
    # spin while they wait for each other.
    one = ["--set", "torch_threads=1"]
    roles = [Role("learner", [z, "train", "--game", "connect4", "--run", run, "--resume",
                              "--actors", "0", "--no-evaluate", *one], server.env, folder)]
    roles += [Role(f"actor-{k}", [z, "actor", "--run", run, "--id", f"chaos-{k}", "--outbox",
                                  os.path.join(folder, "outboxes", str(k)), *one],
                   server.env, folder)
              for k in range(args.actors)]
    roles.append(Role("evaluator", [z, "evaluate", "--run", run, "--follow",
                                    "--set", "arena.games=10", *one], server.env, folder))
    seconds = args.minutes * 60
    plan = faults_plan(rng, [r.name for r in roles], args.faults, seconds)
    tally = {name: 0 for name in [r.name for r in roles] + ["server"]}
    began = time.time()
    server_back = None
    try:
        for role in roles:
            role.start()
        while time.time() - began < seconds + args.settle:
            now = time.time() - began
            while plan and plan[0][0] <= now:
                _, target = plan.pop(0)
                tally[target] += 1
                if target == "server":
                    subprocess.run([f"{ROOT}/scripts/s3-server.sh", "kill", server_dir],
                                   check=True, capture_output=True)
                    server_back = time.time() + rng.uniform(2, 10)
                else:
                    role = next(r for r in roles if r.name == target)
                    role.kill()
                    role.down_for(rng.uniform(1, 10))
                print(f"{now:6.0f} s: killed {target}", flush=True)
            if server_back and time.time() >= server_back:
                subprocess.run([f"{ROOT}/scripts/s3-server.sh", "start", server_dir,
                                str(server.port)], check=True, capture_output=True)
                server_back = None
            for role in roles:
                role.tend(time.time(), rng)
            time.sleep(0.2)
        # Stopped as a user stops them: the learner saves its generation on Ctrl-C (a second
        # one ends it at once), then the actors make their last upload on SIGTERM.
        learners = [r for r in roles if not r.name.startswith("actor")]
        for group, stop in [(learners, signal.SIGINT), (roles, signal.SIGTERM)]:
            for role in group:
                if role.process and role.process.poll() is None:
                    role.process.send_signal(stop)
            for role in group:
                if role.process:
                    try:
                        role.process.wait(timeout=120)
                    except subprocess.TimeoutExpired:
                        role.process.send_signal(stop)
                        role.process.wait(timeout=60)
        problems, generations, checkpoints, steps, clock, score = check(
            server, prefix, run, roles, z, args.games, folder)
        restarts = sum(r.starts - 1 for r in roles)
        exits = {r.name: r.exits for r in roles if r.exits}
        print(f"\nchaos: {args.minutes:.0f} min of faults (seed {args.seed}), {sum(tally.values())} "
              f"SIGKILLs: {', '.join(f'{k} {v}' for k, v in tally.items())}; {restarts} restarts; "
              f"exits on their own: {exits or 'none'}; details in {folder}")
        print(f"- {generations} generations, {steps[-1] if steps else 0} steps, training clock "
              f"{clock[-1] if clock else 0:.0f} s; {checkpoints} checkpoints left, each loaded")
        if score:
            wins, draws, losses, points = score
            low, high = wilson(points, wins + draws + losses)
            print(f"- final network against mcts:1000: +{wins} ={draws} -{losses}, "
                  f"{100 * points:.1f}% [{100 * low:.1f}, {100 * high:.1f}]")
        for problem in problems:
            print(f"FAILED {problem}")
        print(f"{len(problems)} problems")
        raise SystemExit(1 if problems else 0)
    finally:
        for role in roles:
            if role.process and role.process.poll() is None:
                role.process.kill()
        server.stop()


if __name__ == "__main__":
    main()
