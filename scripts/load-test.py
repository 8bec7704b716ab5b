#!/usr/bin/env python3
"""A bounded load test of `zerosum serve` on loopback: CLIENTS concurrent clients, each on
one keep-alive connection, play whole games against the agent (connect four, a few
simulations a move), making REQUESTS requests each (new game, the person's move, the
agent's move, repeated). Reports requests per second, latency percentiles, errors (any
answer but 200/201, or a broken connection: there must be none) and the server's resident
memory before and after. A second round follows the first, so that a server whose memory
grows with use shows it.

    scripts/load-test.py [--clients 64] [--requests 200] [--sims 8] [--rounds 2]

Nothing else should run on the machine meanwhile. Exit 0 when there were no errors.
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZEROSUM = os.path.join(ROOT, "target", "release", "zerosum")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Client(threading.Thread):
    """Plays games on one connection until it has made `requests` requests."""

    def __init__(self, port, requests, start_gate):
        super().__init__(daemon=True)
        self.port, self.requests, self.start_gate = port, requests, start_gate
        self.latencies, self.errors, self.games = [], [], 0

    def call(self, connection, method, path, body=None):
        payload = json.dumps(body) if body is not None else ""
        began = time.perf_counter()
        connection.request(method, path, body=payload,
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
        self.latencies.append(time.perf_counter() - began)
        if response.status not in (200, 201):
            raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
        return json.loads(data)

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        self.start_gate.wait()
        state = None
        while len(self.latencies) < self.requests:
            try:
                if state is None or state["status"] == "over":
                    if state is not None:
                        self.games += 1
                    state = self.call(connection, "POST", "/api/games", {"human": "first"})
                elif state["status"] == "human_to_move":
                    move = state["legal"][0]["notation"]
                    state = self.call(connection, "POST", f"/api/games/{state['id']}/move",
                                      {"move": move})
                else:
                    state = self.call(connection, "POST", f"/api/games/{state['id']}/agent")
            except Exception as error:  # noqa: BLE001 (every failure is counted)
                self.errors.append(str(error))
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                state = None
                self.latencies.append(float("nan"))
        connection.close()


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def round_of(port, clients, requests):
    gate = threading.Event()
    threads = [Client(port, requests, gate) for _ in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    gate.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    latencies = [l for t in threads for l in t.latencies if l == l]
    errors = [e for t in threads for e in t.errors]
    games = sum(t.games for t in threads)
    return elapsed, latencies, errors, games


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--requests", type=int, default=200, help="requests per client")
    parser.add_argument("--sims", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--search-threads", type=int, default=2)
    args = parser.parse_args()
    server = subprocess.Popen(
        [ZEROSUM, "serve", "--game", "connect4", "--port", "0", "--sims", str(args.sims),
         "--search-threads", str(args.search_threads), "--max-games", str(4 * args.clients)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    failed = False
    try:
        line = server.stdout.readline()
        port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        before = rss_mib(server.pid)
        print(f"load test: {args.clients} clients x {args.requests} requests, connect four, "
              f"{args.sims} simulations a move, {args.search_threads} search threads")
        print(f"server memory at the start: {before:.1f} MiB")
        print("| round | requests | seconds | requests/s | p50 ms | p99 ms | errors | games | memory after (MiB) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for number in range(1, args.rounds + 1):
            elapsed, latencies, errors, games = round_of(port, args.clients, args.requests)
            memory = rss_mib(server.pid)
            print(f"| {number} | {len(latencies)} | {elapsed:.1f} | {len(latencies) / elapsed:.0f} "
                  f"| {1000 * percentile(latencies, 0.5):.1f} | {1000 * percentile(latencies, 0.99):.1f} "
                  f"| {len(errors)} | {games} | {memory:.1f} |")
            for error in errors[:5]:
                print(f"  error: {error}")
            failed = failed or bool(errors)
        if server.poll() is not None:
            print("the server died")
            failed = True
    finally:
        server.terminate()
        server.wait()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
