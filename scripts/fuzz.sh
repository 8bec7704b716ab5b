#!/usr/bin/env bash
# Runs every fuzz target of `zerosum-fuzz` (crates/fuzz, a binary of its own) for SECONDS each (default 60), from SEED (default
# a new one each run), and prints a table row per target: inputs tried, the slowest input,
# the process's peak memory, and "no panic, no hang" or the failing input.
#
#   scripts/fuzz.sh [SECONDS] [SEED] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
seed="${2:-$(date +%s)}"
shift $(( $# < 2 ? $# : 2 ))
if [ -z "${ZEROSUM_SKIP_BUILD:-}" ]; then
  cargo build --release --locked -p zerosum-fuzz >&2
fi
echo "fuzz: ${seconds} s a target, seed ${seed}" >&2
exec ./target/release/zerosum-fuzz --seconds "$seconds" --seed "$seed" "$@"
