#!/usr/bin/env python3
"""Measures how fast `zerosum uci` answers while it searches: for each of N rounds, a search
that would think for ages (`go movetime 1000000000000`, or `go infinite`), then a
`position` line (which must wait for the search, not block the loop), then `isready`
(timed to its `readyok`), then `stop` (timed to its `bestmove`).

    scripts/uci-latency.py [--rounds 20] [--think-ms 500] [-- ENGINE ARGS]

Prints the percentiles of both latencies in milliseconds. Exit 1 if any answer took longer
than 100 ms, or never came.
"""
import argparse
import os
import queue
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZEROSUM = os.path.join(ROOT, "target", "release", "zerosum")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--think-ms", type=int, default=500,
                        help="how long each search runs before isready and stop")
    parser.add_argument("engine_args", nargs="*")
    args = parser.parse_args()
    engine = subprocess.Popen([ZEROSUM, "uci", *args.engine_args], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              bufsize=1)
    lines = queue.Queue()

    def read():
        for line in engine.stdout:
            lines.put((time.perf_counter(), line.strip()))

    threading.Thread(target=read, daemon=True).start()

    def send(text):
        engine.stdin.write(text + "\n")
        engine.stdin.flush()
        return time.perf_counter()

    def wait_for(prefix, timeout=30.0):
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                when, line = lines.get(timeout=left)
            except queue.Empty:
                return None
            if line.startswith(prefix):
                return when

    send("uci")
    wait_for("uciok")
    ready, stopped = [], []
    searches = ["go movetime 1000000000000", "go infinite"]
    for round_number in range(args.rounds):
        send("position startpos moves e2e4")
        send(searches[round_number % 2])
        time.sleep(args.think_ms / 1000)
        send("position startpos moves e2e4 e7e5")
        sent = send("isready")
        answered = wait_for("readyok")
        ready.append(None if answered is None else 1000 * (answered - sent))
        sent = send("stop")
        answered = wait_for("bestmove")
        stopped.append(None if answered is None else 1000 * (answered - sent))
    send("quit")
    engine.wait(timeout=30)

    def summary(name, values):
        missing = sum(v is None for v in values)
        got = sorted(v for v in values if v is not None)
        if not got:
            return f"{name}: no answer at all", True
        pick = lambda share: got[min(len(got) - 1, int(share * len(got)))]  # noqa: E731
        slow = missing > 0 or got[-1] > 100
        return (f"{name}: {len(got)} answers, median {pick(0.5):.1f} ms, p90 {pick(0.9):.1f} ms, "
                f"max {got[-1]:.1f} ms, missing {missing}"), slow

    failed = False
    for name, values in [("isready -> readyok while searching", ready),
                         ("stop -> bestmove", stopped)]:
        text, slow = summary(name, values)
        print(text)
        failed = failed or slow
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
