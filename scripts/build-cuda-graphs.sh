#!/usr/bin/env bash
# Builds libzerosum_cuda_graph.so, the shim (crates/nn/cpp/cuda_graph.cpp) through which
# zerosum records CUDA graphs, against a CUDA build of PyTorch, into OUT_DIR (put it beside
# the zerosum binary: that is where a run looks for it, or name it in ZEROSUM_CUDA_GRAPHS).
#
#   scripts/build-cuda-graphs.sh TORCH_DIR OUT_DIR [--cuda DIR]
#
# TORCH_DIR is the `torch` package folder (include/ and lib/). The CUDA runtime's headers
# come from DIR (a folder holding include/cuda_runtime_api.h and lib/libcudart.so.*), else
# from the NVIDIA wheel beside TORCH_DIR (site-packages/nvidia/cu13 or cuda_runtime), else
# CUDA_HOME or /usr/local/cuda (a pip-installed PyTorch brings the runtime's headers but not
# crt/: `pip install nvidia-cuda-crt` of the same CUDA version adds them). A PyTorch without CUDA needs no shim: the script says so
# and exits 0, and runs go on without graphs.
set -euo pipefail
cd "$(dirname "$0")/.."

torch_dir="" out_dir="" cuda=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda) cuda="${2:?--cuda takes a folder}"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) if [ -z "$torch_dir" ]; then torch_dir="$1"
       elif [ -z "$out_dir" ]; then out_dir="$1"
       else echo "build-cuda-graphs: unexpected argument $1" >&2; exit 2; fi
       shift ;;
  esac
done
[ -n "$torch_dir" ] && [ -n "$out_dir" ] || {
  echo "usage: scripts/build-cuda-graphs.sh TORCH_DIR OUT_DIR [--cuda DIR]" >&2; exit 2; }
[ -d "$torch_dir/include/ATen" ] || {
  echo "build-cuda-graphs: $torch_dir holds no include/ATen: name a torch package folder" >&2; exit 2; }
if [ ! -e "$torch_dir/lib/libtorch_cuda.so" ]; then
  echo "build-cuda-graphs: $torch_dir is a PyTorch without CUDA: no shim to build"
  exit 0
fi
if [ -z "$cuda" ]; then
  for candidate in "$torch_dir/../nvidia/cu13" "$torch_dir/../nvidia/cuda_runtime" \
      "${CUDA_HOME:-/nonexistent}" /usr/local/cuda; do
    if [ -e "$candidate/include/cuda_runtime_api.h" ]; then cuda=$candidate; break; fi
  done
fi
[ -n "$cuda" ] && [ -e "$cuda/include/cuda_runtime_api.h" ] || {
  echo "build-cuda-graphs: no CUDA runtime headers found (cuda_runtime_api.h): name a folder with --cuda" >&2
  exit 1
}
[ -e "$cuda/include/crt/host_config.h" ] || {
  echo "build-cuda-graphs: $cuda/include has no crt/host_config.h: add CUDA's crt headers (for a pip-installed PyTorch on CUDA 13: pip install nvidia-cuda-crt)" >&2
  exit 1
}
cudart=()
runtime=$(ls "$cuda"/lib/libcudart.so.* "$cuda"/lib64/libcudart.so.* 2>/dev/null | head -1 || true)
if [ -n "$runtime" ]; then
  cudart=(-L "$(dirname "$runtime")" "-l:$(basename "$runtime")")
fi
mkdir -p "$out_dir"
g++ -std=c++17 -O2 -shared -fPIC -w -D_GLIBCXX_USE_CXX11_ABI=1 -DGLOG_USE_GLOG_EXPORT \
  -I "$torch_dir/include" -I "$torch_dir/include/torch/csrc/api/include" -I "$cuda/include" \
  crates/nn/cpp/cuda_graph.cpp -o "$out_dir/libzerosum_cuda_graph.so" \
  -L "$torch_dir/lib" -ltorch_cuda -lc10_cuda -ltorch_cpu -lc10 "${cudart[@]}" \
  -Wl,-rpath,"$torch_dir/lib"
echo "build-cuda-graphs: $out_dir/libzerosum_cuda_graph.so (CUDA headers from $cuda)"
