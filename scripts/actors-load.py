#!/usr/bin/env python3
"""A thousand actors against one learner, simulated, on a local S3 server (SeaweedFS,
scripts/s3-server.sh): a real connect-four learner and evaluator (zerosum train --actors 0,
zerosum evaluate --follow) run while crates/store/examples/simulated_actors.rs plays --actors
actors that upload a real actor batch under names of their own at a real actor's rate, each
with its own id, start time and backoff. Midway the server is SIGKILLed and restarted
--outage seconds later. Reports:

  - whether the learner keeps up: the actor batches stored but not yet taken when each
    generation's manifest is written (its backlog), early and late in the run;
  - the requests per hour of each role (the actors from their own counts, the learner and
    the evaluator from the request counts their events record);
  - the outage: how the actors' first retries spread, and the most upload attempts in any
    second after the server came back, against the steady rate.

    scripts/actors-load.py [--actors 1000] [--rate 0.7] [--minutes 10] [--outage 10]
                         [--outage-at 0.5] [--zerosum target/release/zerosum]

The rate, batches a second per actor, defaults to one `zerosum actor` process's on the 2-core
machine (docs/results.md: 0.64 to 0.78 with connect four's default config). Nothing else should
run on the machine meanwhile. Prints a Markdown summary for docs/results.md.
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import tempfile
import time
import importlib.util

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load("bench_distributed", "bench-distributed.py")
ingest = load("bench_ingest", "bench-ingest.py")
BUCKET = "zerosum"
GENERATOR = os.path.join(ROOT, "target", "fast", "examples", "simulated_actors")


def read_json(server, key):
    return json.loads(server.s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())


def stamp_of(key):
    """Upload time (Unix s) of games/actors/STAMP-ACTOR.SESSION.INDEX-gCKPT.jsonl."""
    return int(key.rsplit("/", 1)[1].split("-", 1)[0]) / 1000


def backlog(server, prefix):
    """(generation, batches stored and not yet taken, read, passed over) as each manifest
    was written: a batch counts as stored from its stamp (S3's times are whole seconds,
    so a manifest's counts from the end of its second)."""
    stored = sorted((stamp_of(o["Key"]), identity(o["Key"]))
                    for o in server.objects(f"{prefix}/games/actors/"))
    manifests = sorted((o["LastModified"].timestamp() + 1, o["Key"])
                       for o in server.objects(f"{prefix}/ingested/"))
    taken, waiting, next_stored, rows = set(), set(), 0, []
    for written, key in manifests:
        while next_stored < len(stored) and stored[next_stored][0] <= written:
            waiting.add(stored[next_stored][1])
            next_stored += 1
        manifest = read_json(server, key)
        for name in manifest["batches"] + manifest["stale"]:
            taken.add(identity(name))
        waiting -= taken
        rows.append((int(key.rsplit("gen-", 1)[1][:4]), len(waiting),
                     len(manifest["batches"]), len(manifest["stale"])))
    return rows


def identity(key):
    """ACTOR.SESSION.INDEX: a batch uploaded twice is one batch."""
    return key.rsplit("/", 1)[1].split("-", 1)[1].rsplit("-g", 1)[0]


def learner_requests(server, prefix):
    """Requests the learner recorded, summed over its generation events."""
    total = {"get": 0, "put": 0, "list": 0, "delete": 0}
    for o in server.objects(f"{prefix}/metrics/"):
        if o["Key"].endswith("-generation.json"):
            for key, count in read_json(server, o["Key"]).get("store_requests", {}).items():
                total[key] = total.get(key, 0) + count
    return total


def evaluator_requests(log_path):
    """Requests the evaluator counted, from its last line."""
    found = re.findall(r"(\d+) storage requests \((\d+) GET, (\d+) PUT, (\d+) LIST\)",
                       open(log_path).read())
    if not found:
        return {}
    _, get, put, listed = (int(n) for n in found[-1])
    return {"get": get, "put": put, "list": listed}


def outage(report, began, down, up):
    """The first retries' spread and the busiest second after the server came back."""
    first_failures = [t for t in report["first_failures"] if t >= down - began - 1]
    retries = [retry - failure for failure, retry in report["first_retries"]]
    timeline = report["timeline"]
    after = [ok + failed for ok, failed in timeline[int(up - began):int(up - began) + 60]]
    steady = [ok for ok, failed in timeline[5:int(down - began)]]
    return {
        "actors_failed": len(first_failures),
        "first_retry_spread": [round(q, 2) for q in statistics.quantiles(retries, n=10)]
        if len(retries) > 10 else retries,
        "busiest_second_after": max(after) if after else 0,
        "steady_per_second": statistics.mean(steady) if steady else 0,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actors", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=0.7)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--outage", type=float, default=10)
    parser.add_argument("--outage-at", type=float, default=0.5, help="share of the run")
    parser.add_argument("--zerosum", default=bench.ZEROSUM)
    args = parser.parse_args()
    if not os.path.exists(GENERATOR):
        subprocess.run(["cargo", "build", "--profile", "fast", "--locked", "-p", "zerosum-store",
                        "--example", "simulated_actors"], cwd=ROOT, check=True)
    folder = tempfile.mkdtemp(prefix="zerosum-load-")
    server_dir = os.path.join(folder, "s3")
    server = bench.Server(server_dir)
    bench.ZEROSUM = ingest.bench.ZEROSUM = args.zerosum
    roles = []
    try:
        sample_path = os.path.join(folder, "batch.jsonl")
        with open(sample_path, "wb") as out:
            out.write(ingest.sample_batch(server, args.zerosum, folder))
        run = f"s3://{BUCKET}/load-{os.getpid()}"
        prefix = run.split("/", 3)[3]
        logs = {name: open(os.path.join(folder, f"{name}.log"), "w")
                for name in ["learner", "evaluator", "generator"]}
        roles_began = time.time()
        roles.append(subprocess.Popen(
            [args.zerosum, "train", "--game", "connect4", "--run", run, "--actors", "0",
             "--no-evaluate"], env=server.env, stdout=logs["learner"], stderr=logs["learner"]))
        while not any(True for _ in server.objects(f"{prefix}/checkpoints/latest")):
            time.sleep(0.5)
        roles.append(subprocess.Popen(
            [args.zerosum, "evaluate", "--run", run, "--follow", "--set", "arena.games=2"],
            env=server.env, stdout=logs["evaluator"], stderr=logs["evaluator"]))
        seconds = args.minutes * 60
        report_path = os.path.join(folder, "generator.json")
        began = time.time()
        generator = subprocess.Popen(
            [GENERATOR, run, sample_path, report_path, "--actors", str(args.actors),
             "--rate", str(args.rate), "--seconds", str(seconds)],
            env=server.env, stdout=logs["generator"], stderr=logs["generator"])
        time.sleep(max(0.0, began + seconds * args.outage_at - time.time()))
        down = time.time()
        subprocess.run([f"{ROOT}/scripts/s3-server.sh", "kill", server_dir], check=True,
                       capture_output=True)
        time.sleep(args.outage)
        subprocess.run([f"{ROOT}/scripts/s3-server.sh", "start", server_dir, str(server.port)],
                       check=True, capture_output=True)
        up = time.time()
        print(f"server down at {down - began:.0f} s for {up - down:.1f} s", flush=True)
        generator.wait()
        ended = time.time()
        # The learner takes what arrived, then stops as Ctrl-C stops it.
        time.sleep(20)
        for role in roles:
            role.send_signal(signal.SIGINT)
        for role in roles:
            try:
                role.wait(timeout=120)
            except subprocess.TimeoutExpired:
                # A learner waiting for games that no longer come: a second Ctrl-C.
                role.send_signal(signal.SIGINT)
                role.wait(timeout=60)
        role_hours = (time.time() - roles_began) / 3600
        report = json.load(open(report_path))
        hours = (ended - began) / 3600
        rows = backlog(server, prefix)
        learner = learner_requests(server, prefix)
        evaluator = evaluator_requests(os.path.join(folder, "evaluator.log"))
        shock = outage(report, began, down, up)
        summary = {"report": {k: v for k, v in report.items() if k not in ("timeline",)},
                   "backlog": rows, "learner": learner, "evaluator": evaluator, "outage": shock}
        with open(os.path.join(folder, "summary.json"), "w") as out:
            json.dump(summary, out)
        print(f"\n{args.actors} simulated actors at {args.rate} batches/s each for "
              f"{(ended - began) / 60:.1f} min; the server down {args.outage:.0f} s at "
              f"{down - began:.0f} s; details in {folder}\n")
        print(f"- uploaded: {report['batches']:,} batches ({report['batches'] / (ended - began):.0f}/s), "
              f"{report['waiting']} waiting at the end")
        third = max(1, len(rows) // 3)
        for label, part in [("first third", rows[:third]), ("last third", rows[-third:])]:
            if part:
                print(f"- backlog, {label} of {len(rows)} generations: "
                      f"{statistics.mean(r[1] for r in part):.0f} batches "
                      f"(max {max(r[1] for r in part)}), read {statistics.mean(r[2] for r in part):.0f} "
                      f"and passed over {statistics.mean(r[3] for r in part):.0f} a generation")
        per_hour = lambda counts, h: ", ".join(  # noqa: E731
            f"{counts.get(k, 0) / h:,.0f} {k.upper()}" for k in ("put", "get", "list", "delete"))
        print(f"- requests per hour: actors {per_hour(report['requests'], hours)} "
              f"({sum(report['requests'].values()) / hours / args.actors:,.0f} per actor); "
              f"learner {per_hour(learner, role_hours)}; evaluator {per_hour(evaluator, role_hours)}")
        print(f"- outage: {shock['actors_failed']} actors met it; their first retries came "
              f"{shock['first_retry_spread']} s after their first failure (deciles); the busiest "
              f"second after the server returned had {shock['busiest_second_after']} upload "
              f"attempts, against {shock['steady_per_second']:.0f}/s before it")
    finally:
        for role in roles:
            if role.poll() is None:
                role.kill()
        server.stop()


if __name__ == "__main__":
    main()
