#!/usr/bin/env bash
# One run spread over processes that share nothing but an S3 bucket, on this machine: a local
# SeaweedFS server, a learner, an evaluator and N actors, then the trained network playing a
# move over GTP from the checkpoint in the bucket. docs/distributed.md runs the same roles on
# a cluster.
#
#   scripts/cluster-demo.sh [GAME] [ACTORS] [--set KEY=VALUE ...]
#       GAME    a registry name (default tictactoe: a perfect player in about a minute)
#       ACTORS  actor processes (default 2)
#
# Everything lives under $DEMO_DIR (default a new temporary folder): the server's data, one
# log per process, the actors' outboxes. The server and every process stop on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
game="${1:-tictactoe}"
actors="${2:-2}"
shift $(( $# < 2 ? $# : 2 ))
zerosum="$root/target/release/zerosum"
[[ -x "$zerosum" ]] || { echo "cluster-demo: build first (scripts/setup.sh)" >&2; exit 1; }
dir="${DEMO_DIR:-$(mktemp -d -t zerosum-cluster-XXXX)}"
mkdir -p "$dir"
port=$("$root/.venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run="s3://zerosum/demo-$game-$$"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    "$root/scripts/s3-server.sh" kill "$dir/s3" >/dev/null 2>&1 || true
}
trap cleanup EXIT

echo "cluster-demo: S3 server on 127.0.0.1:$port, logs in $dir"
eval "$("$root/scripts/s3-server.sh" start "$dir/s3" "$port" | tail -n 1)"
export AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION AWS_ALLOW_HTTP
export XDG_CACHE_HOME="$dir/cache"

"$zerosum" train --game "$game" --run "$run" --resume --actors 0 --no-evaluate "$@" \
    >"$dir/learner.log" 2>&1 &
learner=$!
pids+=("$learner")
# The actors and the evaluator join once the learner has made the run.
until "$root/.venv/bin/python" - "$run" <<'EOF'
import sys, boto3, os
bucket, _, prefix = sys.argv[1][len("s3://"):].partition("/")
s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
sys.exit(0 if s3.list_objects_v2(Bucket=bucket, Prefix=prefix + "/checkpoints/latest").get("KeyCount") else 1)
EOF
do
    kill -0 "$learner" 2>/dev/null || { cat "$dir/learner.log" >&2; exit 1; }
    sleep 1
done
for k in $(seq "$actors"); do
    "$zerosum" actor --run "$run" --id "actor-$k" >"$dir/actor-$k.log" 2>&1 &
    pids+=("$!")
done
"$zerosum" evaluate --run "$run" --follow >"$dir/evaluator.log" 2>&1 &
pids+=("$!")
echo "cluster-demo: a learner, an evaluator and $actors actors are training $game in $run"

tail -f "$dir/learner.log" &
tailer=$!
wait "$learner"
kill "$tailer" 2>/dev/null || true
for pid in "${pids[@]:1}"; do wait "$pid" || true; done
echo "cluster-demo: evaluations:"
grep -h "evaluate" "$dir/evaluator.log" || true

echo "cluster-demo: the trained network answers over GTP from $run/checkpoints/latest:"
printf '1 showboard\n2 genmove b\n3 showboard\nquit\n' |
    "$zerosum" gtp --checkpoint "$run/checkpoints/latest"
"$zerosum" report "$run" --out "$dir/report" | tail -n 1
