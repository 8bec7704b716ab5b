#!/usr/bin/env python3
"""Runs the job files of deploy/slurm/ on a real one-node Slurm cluster (scripts/slurm-local.sh)
against a local S3 server (scripts/s3-server.sh), as a user would submit them: a tic-tac-toe
run whose learner has no actors of its own, an actor array of two tasks and the evaluator as
a job of its own. Mid-run, actor task 0 is requeued (`scontrol requeue`) and task 1 cancelled
and submitted again. The run must finish with every batch it names stored and none ingested
twice, one event of each kind per generation, each start of the requeued task numbering its
batches from 0 with none missing, and a network that never loses to perfect play.

Usage: scripts/slurm-test.py [--binary target/fast/zerosum]
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import boto3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUCKET = "zerosum"
RUN = "slurm-ttt"
GENERATIONS = 20  # configs/tictactoe.toml
DEADLINE = int(os.environ.get("ZEROSUM_SLURM_DEADLINE", 170))  # seconds: under 3 minutes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """The S3 server and Slurm in `folder`: `start` starts them, `stop` stops whatever of
    them runs."""

    def __init__(self, folder, binary):
        self.folder = folder
        self.port = free_port()
        bin_dir = os.path.join(folder, "bin")
        os.makedirs(bin_dir)
        os.symlink(os.path.abspath(binary), os.path.join(bin_dir, "zerosum"))
        self.env = dict(os.environ)
        self.env.update(
            PATH=f"{bin_dir}:{os.environ['PATH']}",
            AWS_ACCESS_KEY_ID="zerosum",
            AWS_SECRET_ACCESS_KEY="zerosum-secret",
            AWS_REGION="us-east-1",
            AWS_ALLOW_HTTP="true",
            AWS_ENDPOINT_URL=f"http://127.0.0.1:{self.port}",
            SLURM_CONF=os.path.join(folder, "slurm", "slurm.conf"),
            ZEROSUM_RUN=f"s3://{BUCKET}/{RUN}",
            ZEROSUM_GAME="tictactoe",
            ZEROSUM_OUTBOX=os.path.join(folder, "outbox"),
        )
        self.s3 = boto3.client(
            "s3",
            endpoint_url=self.env["AWS_ENDPOINT_URL"],
            aws_access_key_id="zerosum",
            aws_secret_access_key="zerosum-secret",
            region_name="us-east-1",
        )

    def start(self):
        self.script("s3-server.sh", "start", os.path.join(self.folder, "s3"), str(self.port))
        self.script("slurm-local.sh", "start", os.path.join(self.folder, "slurm"))

    def script(self, name, *args):
        subprocess.run([os.path.join(ROOT, "scripts", name), *args], env=self.env,
                       check=True, capture_output=True, text=True)

    def stop(self):
        for name, args in [("slurm-local.sh", ["stop", "slurm"]), ("s3-server.sh", ["kill", "s3"])]:
            path = os.path.join(self.folder, args[1])
            subprocess.run([os.path.join(ROOT, "scripts", name), args[0], path],
                           env=self.env, capture_output=True, check=False)

    def slurm(self, *args):
        done = subprocess.run(list(args), env=self.env, cwd=self.folder,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"slurm-test: {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def submit(self, job, *options):
        out = self.slurm("sbatch", "--parsable", *options,
                         os.path.join(ROOT, "deploy", "slurm", job))
        return out.strip().split(";")[0]

    def objects(self, prefix):
        names, token = [], None
        while True:
            kwargs = dict(Bucket=BUCKET, Prefix=f"{RUN}/{prefix}")
            if token:
                kwargs["ContinuationToken"] = token
            page = self.s3.list_objects_v2(**kwargs)
            names += [o["Key"][len(RUN) + 1:] for o in page.get("Contents", [])]
            if not page.get("IsTruncated"):
                return names
            token = page["NextContinuationToken"]

    def read(self, name):
        return self.s3.get_object(Bucket=BUCKET, Key=f"{RUN}/{name}")["Body"].read()

    def queue(self):
        return self.slurm("squeue", "-h", "-o", "%i %T").split()

    def start_now(self, task):
        """Makes a requeued task eligible now, once Slurm has put it back in the queue;
        whether it runs again."""
        state = re.search(r"JobState=(\S+)", self.slurm("scontrol", "show", "job", task)).group(1)
        if state == "PENDING":
            self.slurm("scontrol", "update", f"JobId={task}", "StartTime=now")
        return state == "RUNNING"

    def job_state(self, job):
        text = self.slurm("scontrol", "show", "job", job)
        return re.search(r"JobState=(\S+)", text).group(1), re.search(r"ExitCode=(\S+)", text).group(1)


def wait_until(what, test, start):
    while not test():
        if time.time() - start > DEADLINE:
            raise TimeoutError(f"slurm-test: {what} after {DEADLINE} s")
        time.sleep(0.5)


def generations_published(cluster):
    return len([n for n in cluster.objects("checkpoints/") if n.endswith(".json")])


def check(cluster, actors, evaluator, learner):
    problems = []
    for job in [learner, evaluator]:
        state = cluster.job_state(job)
        if state != ("COMPLETED", "0:0"):
            problems.append(f"job {job} ended {state}")
    seen, named = set(), set()
    for generation in range(1, GENERATIONS + 1):
        manifest = json.loads(cluster.read(f"ingested/gen-{generation:04}.json"))
        for batch in manifest["batches"] + manifest["stale"]:
            # games/actors/STAMP-ACTOR.SESSION.INDEX-gCKPT.jsonl; a batch uploaded again
            # under a later stamp keeps ACTOR.SESSION.INDEX.
            identity = batch.rsplit("/", 1)[1].split("-", 1)[1].rsplit("-g", 1)[0]
            if identity in seen:
                problems.append(f"{batch} ingested twice")
            seen.add(identity)
            named.add(batch)
    stored = set(cluster.objects("games/actors/"))
    problems += [f"{b} is named but not stored" for b in sorted(named - stored)]
    # Each start of the requeued task (a session) numbers its batches from 0, none missing.
    task = f"slurm-{actors}-0."
    sessions = {}
    for name in stored:
        identity = name.rsplit("/", 1)[1].split("-", 1)[1].rsplit("-g", 1)[0]
        if identity.startswith(task):
            session, index = identity[len(task):].split(".")
            sessions.setdefault(session, []).append(int(index))
    requeued = sum(len(indices) for indices in sessions.values())
    # A batch uploaded again after a kill repeats its index under a later stamp.
    numbered = [sorted(set(indices)) for indices in sessions.values()]
    if requeued < 2 or any(i != list(range(len(i))) for i in numbered):
        problems.append(f"the requeued task's batches are not numbered on: {sessions}")
    events = cluster.objects("metrics/")
    for kind in ["self_play", "learn", "generation"]:
        recorded = sorted(n for n in events if n.endswith(f"-{kind}.json"))
        if len(recorded) != GENERATIONS:
            problems.append(f"{len(recorded)} {kind} events for {GENERATIONS} generations")
    arena = subprocess.run(
        ["zerosum", "arena", f"checkpoint:s3://{BUCKET}/{RUN}/checkpoints/latest", "perfect",
         "--game", "tictactoe", "--games", "20"],
        env=cluster.env, capture_output=True, text=True, check=False)
    if arena.returncode != 0 or not re.search(r"\+\d+ =\d+ -0\b", arena.stdout):
        problems.append(f"the network lost to perfect play: {arena.stdout}{arena.stderr}")
    return problems, len(seen), requeued


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "fast", "zerosum"))
    args = parser.parse_args()
    for tool in ["slurmctld", "slurmd", "sbatch", "munged"]:
        if shutil.which(tool) is None:
            sys.exit(f"slurm-test: {tool} is not installed (scripts/test.sh installs Slurm)")
    folder = tempfile.mkdtemp(prefix="zerosum-slurm-")
    cluster = Cluster(folder, args.binary)
    start = time.time()
    try:
        cluster.start()
        learner = cluster.submit("learner.sbatch")
        # Actors join a run that exists: the learner creates it as it starts.
        wait_until("the learner made no run", lambda: cluster.objects("config.toml"), start)
        actors = cluster.submit("actors.sbatch", "--array=0-1")
        evaluator = cluster.submit("evaluator.sbatch")
        wait_until("generation 3 never came", lambda: generations_published(cluster) >= 3, start)
        cluster.slurm("scontrol", "requeue", f"{actors}_0")
        # Slurm holds a requeued job back for a while (BeginTime); the test has no time to
        # wait, so it makes the task eligible at once, as a preempted job's would be later.
        wait_until("the requeued task did not start again",
                   lambda: cluster.start_now(f"{actors}_0"), start)
        wait_until("generation 6 never came", lambda: generations_published(cluster) >= 6, start)
        cluster.slurm("scancel", f"{actors}_1")
        again = cluster.submit("actors.sbatch", "--array=1")
        wait_until("the jobs did not finish", lambda: not cluster.queue(), start)
        seconds = time.time() - start
        problems, batches, requeued = check(cluster, actors, evaluator, learner)
        for problem in problems:
            print(f"FAILED {problem}")
        print(f"slurm-test: {GENERATIONS} generations, {batches} batches from actor jobs "
              f"{actors} (task 0 requeued: {requeued} batches) and {again}, in {seconds:.0f} s: "
              f"{len(problems)} problems")
        sys.exit(1 if problems else 0)
    except TimeoutError as error:
        print(cluster.slurm("squeue", "-o", "%i %T %r %S"))
        for name in sorted(os.listdir(folder)):
            if name.endswith(".out"):
                with open(os.path.join(folder, name), encoding="utf-8") as out:
                    print(f"--- {name}\n{out.read()[-2000:]}")
        sys.exit(str(error))
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
