#!/usr/bin/env python3
"""Measures what one asynchronous learner's wait for games costs with many batches already
stored, on a local S3 server (SeaweedFS, scripts/s3-server.sh): for each count of stored
batches (--stored), a connect-four run is given that many batches of real games (copies of one
actor batch under new names, stamped over the hour before, as a run's history would be), which
a first learner generation reads; then

  read     1,000 new batches uploaded at once, read by the next generation: batches/s, timed
           by the learner itself;
  steady   three generations of 1,000 batches each, uploaded at --rate batches/s while the
           learner waits: listing requests (one per page of 1,000 names) and reads per
           generation, from the requests each generation event records.

    scripts/bench-ingest.py [--stored 1000,100000] [--zerosum target/release/zerosum]
                            [--layout stamped|per-actor] [--rate 100]

--layout per-actor names batches as builds before run format 4 did
(games/actors/ACTOR/NNNNNN-gNNNN.jsonl), to measure such a build (--zerosum pointing at it).
Such builds counted a listing as one request however many pages it took, so the table also
gives the pages a listing of the stored batches takes here. Nothing else should run on the
machine meanwhile. Prints a Markdown table for docs/results.md.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import random
import re
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("bench_distributed",
                                               os.path.join(ROOT, "scripts", "bench-distributed.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

NEW = 1000
BUCKET = "zerosum"


class Layout:
    """Names of synthetic actor batches: 100 actors, each numbering its batches."""

    def __init__(self, kind):
        self.kind, self.counts, self.lock = kind, {}, threading.Lock()
        self.sessions = {a: f"{random.getrandbits(32):08x}" for a in range(100)}

    def name(self, prefix, actor, checkpoint, stamp_ms):
        with self.lock:
            index = self.counts.get(actor, 0)
            self.counts[actor] = index + 1
        if self.kind == "per-actor":
            return f"{prefix}/games/actors/sim-{actor:03}/{index:06}-g{checkpoint:04}.jsonl"
        return (f"{prefix}/games/actors/{stamp_ms:013}-sim-{actor:03}.{self.sessions[actor]}."
                f"{index:06}-g{checkpoint:04}.jsonl")


def upload(server, names, body):
    """Puts `body` under each of `names`."""
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda name: server.s3.put_object(Bucket=BUCKET, Key=name, Body=body), names))


def sample_batch(server, zerosum, folder):
    """One batch of connect-four games, as an actor of a fresh run writes it."""
    run = f"s3://{BUCKET}/sample-{os.getpid()}"
    bench.start_run(server, run, "connect4", folder)
    with open(os.path.join(folder, "actor-sample.log"), "w") as log:
        subprocess.run([zerosum, "actor", "--run", run, "--batches", "1",
                        "--outbox", os.path.join(folder, "outbox")],
                       env=server.env, stdout=log, stderr=log, check=True)
    key = next(bench_objects(server, run.split("/", 3)[3] + "/games/actors/"))
    return server.s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def bench_objects(server, prefix):
    return (o["Key"] for o in server.objects(prefix))


def learner(server, zerosum, run, folder, tag, generations, games):
    log_path = os.path.join(folder, f"learner-{tag}.log")
    with open(log_path, "w") as log:
        subprocess.run([zerosum, "train", "--run", run, "--resume", "--actors", "0", "--no-evaluate",
                        "--set", f"self_play.games_per_generation={games}",
                        "--set", f"generations={generations}", "--set", "learner.epochs=0.001"],
                       env=server.env, stdout=log, stderr=log, check=True)
    return open(log_path).read()


def collect_seconds(log, generation):
    return float(re.search(rf"gen +{generation} games +([\d.]+)s", log).group(1))


def event(server, prefix, generation):
    key = f"{prefix}/metrics/gen-{generation:04}-5-generation.json"
    body = server.s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    return json.loads(body)["store_requests"]


def pages(server, prefix):
    """The pages, and the names, of one listing of every batch stored."""
    paginator = server.s3.get_paginator("list_objects_v2")
    counts = [page.get("KeyCount", 0)
              for page in paginator.paginate(Bucket=BUCKET, Prefix=f"{prefix}/games/actors/")]
    return len(counts), sum(counts)


def measure(server, args, stored, sample, folder):
    run = f"s3://{BUCKET}/ingest-{args.layout}-{stored}-{os.getpid()}"
    prefix = run.split("/", 3)[3]
    bench.start_run(server, run, "connect4", folder, ["--set", "learner.epochs=0.001"])
    games = sample.decode().count("\n")
    layout = Layout(args.layout)
    hour_ago = int(time.time() * 1000) - 3_600_000
    history = [layout.name(prefix, k % 100, 0, hour_ago + k * 3_600_000 // stored)
               for k in range(stored)]
    began = time.time()
    upload(server, history, sample)
    print(f"  {stored} batches stored in {time.time() - began:.0f} s", flush=True)
    log = learner(server, args.zerosum, run, folder, f"{stored}-history", 1, stored * games)
    history_rate = stored / collect_seconds(log, 1)
    now = lambda: int(time.time() * 1000)  # noqa: E731
    upload(server, [layout.name(prefix, k % 100, 1, now()) for k in range(NEW)], sample)
    log = learner(server, args.zerosum, run, folder, f"{stored}-read", 2, NEW * games)
    read_rate = NEW / collect_seconds(log, 2)
    # Three generations' batches arrive at a steady rate while the learner waits for them.
    stop = threading.Event()
    feeder = threading.Thread(target=steady, args=(server, layout, prefix, sample, args.rate, stop))
    feeder.start()
    try:
        log = learner(server, args.zerosum, run, folder, f"{stored}-steady", 5, NEW * games)
    finally:
        stop.set()
        feeder.join()
    steady_requests = [event(server, prefix, g) for g in (3, 4, 5)]
    waits = [collect_seconds(log, g) for g in (3, 4, 5)]
    return {
        "stored": stored,
        "history_rate": history_rate,
        "read_rate": read_rate,
        "list": sum(r["list"] for r in steady_requests) / 3,
        "get": sum(r["get"] for r in steady_requests) / 3,
        "wait": sum(waits) / 3,
        "pages": pages(server, prefix),
    }


def steady(server, layout, prefix, sample, rate, stop):
    """Uploads batches at `rate` a second, each stamped as it goes, until `stop` is set."""
    start = time.time()

    def put(k):
        delay = start + k / rate - time.time()
        if delay > 0:
            time.sleep(delay)
        if not stop.is_set():
            name = layout.name(prefix, k % 100, 2, int(time.time() * 1000))
            server.s3.put_object(Bucket=BUCKET, Key=name, Body=sample)

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        k = 0
        while not stop.is_set():
            list(pool.map(put, range(k, k + 100)))
            k += 100


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stored", default="1000,100000")
    parser.add_argument("--zerosum", default=bench.ZEROSUM)
    parser.add_argument("--layout", choices=["stamped", "per-actor"], default="stamped")
    parser.add_argument("--rate", type=float, default=100)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="zerosum-ingest-")
    server = bench.Server(os.path.join(folder, "s3"))
    bench.ZEROSUM = args.zerosum
    try:
        sample = sample_batch(server, args.zerosum, folder)
        rows = []
        for stored in [int(n) for n in args.stored.split(",")]:
            rows.append(measure(server, args, stored, sample, folder))
            print(f"  {rows[-1]}", flush=True)
        print(f"\n{args.zerosum} ({args.layout} names), 1,000 new batches a generation, "
              f"{args.rate:.0f} batches/s arriving in the steady phase\n")
        print("| batches stored | first read of them, batches/s | 1,000 new read, batches/s "
              "| steady: LIST per generation | GET per generation | wait per generation, s "
              "| pages to list all stored |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['stored']:,} | {r['history_rate']:.0f} | {r['read_rate']:.0f} | "
                  f"{r['list']:.0f} | {r['get']:.0f} | {r['wait']:.1f} | {r['pages'][0]} "
                  f"({r['pages'][1]:,} names) |")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
