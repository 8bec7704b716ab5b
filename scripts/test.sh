#!/usr/bin/env bash
# Runs the whole test suite: formatting, lints, every crate's tests in the `fast` profile
# (optimised, as the end-to-end tic-tac-toe training test needs, but without the release
# profile's link-time optimisation, so a change rebuilds in seconds), the Python package's tests
# (pytest; the package itself, a cdylib, is built by setup.sh through maturin, so cargo test
# leaves it out), the wheel installed into a fresh environment (scripts/wheel-test.py), every
# example of README.md and docs/ (scripts/docs-test.py), the deployment files checked offline
# (scripts/check-deploy.py), the Slurm job files run on a local Slurm (scripts/slurm-test.py),
# then the end-to-end scripts that drive the binary from outside (a real browser, a UCI
# client). Sets up first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# The Slurm test runs Debian's Slurm daemons (scripts/slurm-local.sh starts them, without
# systemd, as root): installed here rather than by setup.sh, which a user runs.
slurm_packages=(slurmctld slurmd slurm-client munge)
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "test: installing ${slurm_packages[*]} from Debian for scripts/slurm-test.py"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${slurm_packages[@]}" >/dev/null ||
    { apt-get update -q >/dev/null &&
      apt-get install -y -q --no-install-recommends "${slurm_packages[@]}" >/dev/null; }
fi
cargo fmt --all --check
cargo clippy --profile fast --workspace --all-targets --locked -- -D warnings
cargo test --profile fast --workspace --exclude zerosum-python --locked
.venv/bin/python -m pytest -q crates/python/tests
.venv/bin/python scripts/wheel-test.py
.venv/bin/python scripts/docs-test.py
.venv/bin/python scripts/check-deploy.py
.venv/bin/python scripts/slurm-test.py
ZEROSUM_SKIP_BUILD=1 ./scripts/browser-test.sh
./scripts/uci-selfplay.py
