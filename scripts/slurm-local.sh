#!/usr/bin/env bash
# Starts and stops a one-node Slurm cluster on this machine, without systemd, for the tests
# of deploy/slurm/ and for trying the job files: munged with a key and socket of its own,
# slurmctld and slurmd (Debian's packages, which scripts/test.sh installs) on 127.0.0.1,
# SlurmUser root, no accounting. Everything lives under DIR: the config, the munge key,
# state, logs and pid files; stop kills exactly the daemons start started.
#
#   scripts/slurm-local.sh start DIR   # prints the SLURM_CONF line to export
#   scripts/slurm-local.sh stop DIR
#
# The node offers 8 CPUs whatever the machine has (config_overrides), so that a learner,
# an evaluator and several actors, one CPU each, run at once on a small machine.
set -euo pipefail

usage() { echo "usage: $0 start DIR | stop DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
verb="$1"
mkdir -p "$2"
dir="$(cd "$2" && pwd)"
# Ports of its own, so that it does not meet another Slurm on the machine.
ctld_port="${ZEROSUM_SLURMCTLD_PORT:-16817}"
slurmd_port="${ZEROSUM_SLURMD_PORT:-16818}"

stop() {
    local pids=()
    for daemon in slurmd slurmctld munged; do
        if [[ -f "$dir/$daemon.pid" ]]; then
            pids+=("$(cat "$dir/$daemon.pid")")
            rm -f "$dir/$daemon.pid"
        fi
    done
    [[ ${#pids[@]} -gt 0 ]] || return 0
    kill "${pids[@]}" 2>/dev/null || true
    # Gone before a restart takes their ports and state again.
    local pid
    for _ in $(seq 50); do
        for pid in "${pids[@]}"; do
            if kill -0 "$pid" 2>/dev/null; then
                sleep 0.1
                continue 2
            fi
        done
        return 0
    done
}

write_config() {
    local node
    node="$(hostname -s)"
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    cat >"$dir/slurm.conf" <<EOF
ClusterName=zerosum
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 RealMemory=4000 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
    stop
    write_config
    if [[ ! -f "$dir/munge/munge.key" ]]; then
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
        chmod 400 "$dir/munge/munge.key"
    fi
    chmod 700 "$dir/munge"
    # --force: the folders on the way to DIR may be writable by others (/tmp).
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed"
    export SLURM_CONF="$dir/slurm.conf"
    # A daemon that fails to start leaves none of the others running.
    trap stop ERR
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    local waited=0
    until sinfo -h -o %T 2>/dev/null | grep -q idle; do
        sleep 0.2
        waited=$((waited + 1))
        if [[ $waited -gt 150 ]]; then
            echo "slurm-local: the node did not come up in 30 s; see $dir/*.log" >&2
            stop
            exit 1
        fi
    done
    echo "export SLURM_CONF=$SLURM_CONF"
}

case "$verb" in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
