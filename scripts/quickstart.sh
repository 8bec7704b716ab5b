#!/usr/bin/env bash
# From a fresh clone: install what is missing, build, and train connect four with the
# default config (configs/connect4.toml: one hour on two CPU cores). Extra arguments go to
# `zerosum train` (for example --run runs/mine, or --set max_minutes=10).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec target/release/zerosum train --game connect4 "$@"
