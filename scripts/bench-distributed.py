#!/usr/bin/env python3
"""Measures a run spread over processes on a local S3 server (SeaweedFS, scripts/s3-server.sh):

  actors   positions per second reaching the store from 1, 2 and 4 actor processes, each
           playing with the run's first network on one libtorch thread, counted from the
           batches stored in a fixed window after a warm-up;
  ingest   the batches per second one learner reads from the server: synthetic batches (copies
           of a real one under new names) uploaded ahead, then one learner generation that
           reads them all, timed by the learner itself.

    scripts/bench-distributed.py [--game connect4] [--seconds 60] [--actors 1,2,4] [--batches 2000]

Nothing else should run on the machine meanwhile. Prints a Markdown table for docs/results.md.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZEROSUM = os.path.join(ROOT, "target", "release", "zerosum")
sys.path.insert(0, ROOT)

import boto3  # noqa: E402  (from the project's .venv)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, folder):
        self.folder, self.port = folder, free_port()
        out = subprocess.run([f"{ROOT}/scripts/s3-server.sh", "start", folder, str(self.port)],
                             check=True, capture_output=True, text=True).stdout
        self.env = dict(os.environ)
        for pair in out.strip().splitlines()[-1].removeprefix("export ").split():
            key, value = pair.split("=", 1)
            self.env[key] = value
        self.s3 = boto3.client("s3", endpoint_url=self.env["AWS_ENDPOINT_URL"],
                               aws_access_key_id="zerosum", aws_secret_access_key="zerosum-secret",
                               region_name="us-east-1")

    def stop(self):
        subprocess.run([f"{ROOT}/scripts/s3-server.sh", "kill", self.folder], capture_output=True)

    def objects(self, prefix):
        paginator = self.s3.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket="zerosum", Prefix=prefix):
            yield from page.get("Contents", [])


def start_run(server, run, game, folder, extra=()):
    """Creates the run (its learner publishes generation 0), then stops the learner."""
    log = open(os.path.join(folder, "learner-init.log"), "w")
    learner = subprocess.Popen([ZEROSUM, "train", "--game", game, "--run", run, "--actors", "0",
                                "--no-evaluate", *extra], env=server.env, stdout=log, stderr=log)
    prefix = run.split("/", 3)[3]
    while not any(True for _ in server.objects(f"{prefix}/checkpoints/latest")):
        time.sleep(0.5)
    learner.send_signal(signal.SIGKILL)
    learner.wait()


def positions(server, key):
    body = server.s3.get_object(Bucket="zerosum", Key=key)["Body"].read().decode()
    return sum(sum(1 for s in json.loads(line).get("stats", []) if s) for line in body.splitlines() if line)


def actor_throughput(server, game, count, seconds, warmup, folder):
    run = f"s3://zerosum/actors-{game}-{count}-{os.getpid()}"
    start_run(server, run, game, folder)
    actors = []
    for k in range(count):
        log = open(os.path.join(folder, f"actor-{count}-{k}.log"), "w")
        actors.append(subprocess.Popen(
            [ZEROSUM, "actor", "--run", run, "--id", f"bench-{k}", "--set", "torch_threads=1",
             "--outbox", os.path.join(folder, "outbox")],
            env=server.env, stdout=log, stderr=log))
    begin = time.time()
    time.sleep(warmup + seconds)
    for actor in actors:
        actor.send_signal(signal.SIGTERM)
    for actor in actors:
        actor.wait()
    window = (begin + warmup, begin + warmup + seconds)
    prefix = run.split("/", 3)[3] + "/games/actors/"
    stored = [o for o in server.objects(prefix)
              if window[0] <= o["LastModified"].timestamp() < window[1]]
    total = sum(positions(server, o["Key"]) for o in stored)
    return total / seconds, len(stored) / seconds, stored[:1]


def ingest_rate(server, game, batches, sample_key, folder):
    run = f"s3://zerosum/ingest-{game}-{os.getpid()}"
    prefix = run.split("/", 3)[3]
    # Few learning steps: the phase timed is the reading of the batches.
    start_run(server, run, game, folder, ["--set", "learner.epochs=0.001"])
    body = server.s3.get_object(Bucket="zerosum", Key=sample_key)["Body"].read()
    games = body.decode().count("\n")
    for k in range(batches):
        server.s3.put_object(Bucket="zerosum", Key=f"{prefix}/games/actors/synthetic/{k:06d}-g0000.jsonl",
                             Body=body)
    log_path = os.path.join(folder, "learner-ingest.log")
    with open(log_path, "w") as log:
        subprocess.run([ZEROSUM, "train", "--run", run, "--resume", "--actors", "0", "--no-evaluate",
                        "--set", f"self_play.games_per_generation={batches * games}",
                        "--set", "generations=1", "--set", "learner.epochs=0.001"],
                       env=server.env, stdout=log, stderr=log, check=True)
    text = open(log_path).read()
    seconds = float(re.search(r"gen +1 games +([\d.]+)s", text).group(1))
    return batches / seconds, games


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=15)
    parser.add_argument("--actors", default="1,2,4")
    parser.add_argument("--batches", type=int, default=2000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="zerosum-bench-")
    server = Server(os.path.join(folder, "s3"))
    try:
        rows, sample = [], None
        for count in [int(n) for n in args.actors.split(",")]:
            per_second, batches, first = actor_throughput(
                server, args.game, count, args.seconds, args.warmup, folder)
            sample = sample or (first[0]["Key"] if first else None)
            rows.append((count, per_second, batches))
            print(f"{count} actor processes: {per_second:.0f} positions/s, {batches:.2f} batches/s",
                  flush=True)
        one = rows[0][1]
        print("\n| actor processes | positions/s reaching the store | batches/s | vs one |")
        print("|---|---|---|---|")
        for count, per_second, batches in rows:
            print(f"| {count} | {per_second:.0f} | {batches:.2f} | {per_second / one:.2f}x |")
        if sample:
            rate, games = ingest_rate(server, args.game, args.batches, sample, folder)
            print(f"\nlearner ingest: {rate:.0f} batches/s ({games} games each) over {args.batches} "
                  f"batches read from the server")
    finally:
        server.stop()
    print(f"(logs in {folder})")


if __name__ == "__main__":
    main()
