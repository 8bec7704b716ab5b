#!/usr/bin/env bash
# Builds `zerosum` against a PyTorch that is already installed and cannot change (a
# cluster's module, a GPU machine's image, another minor version than the 2.13.0 that
# scripts/setup.sh installs).
#
#   scripts/build-for-torch.sh TORCH_DIR [--rpath DIR] [--cuda DIR]
#
# TORCH_DIR is that PyTorch's `torch` package folder (the one holding include/ and lib/:
# `python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))'`) or a libtorch
# folder. The binary lands in target/torch-VERSION/release/zerosum (the release profile:
# thin LTO, one codegen unit, no debug info) and finds libtorch in
# TORCH_DIR/lib, or in DIR where the binary will run on another machine (--rpath).
#
# tch 0.26 wraps the operators of PyTorch 2.13. Against another version the few wrapper
# functions that name an operator that version lacks would not compile: this script
# compiles tch's wrapper against TORCH_DIR's headers first, and every function that fails
# is replaced by one that raises "not in this PyTorch" when called (zerosum calls none of
# them; a program that did would get that error, not a crash). The patched copy of tch's
# torch-sys lives under target/, the repository's Cargo.lock is left as it was, and the
# list of what was left out is printed and kept beside the binary (stubbed.txt). Training in
# mixed precision (learner.precision = bf16) needs PyTorch 2.4 or later; against an older one
# crates/nn/build.rs warns and builds it refused, and `auto` stays fp32. Where TORCH_DIR has
# CUDA, the CUDA graphs shim is built beside the binary too (scripts/build-cuda-graphs.sh;
# --cuda names the CUDA headers' folder where they are not beside TORCH_DIR); without it
# the binary runs its networks without graphs.
set -euo pipefail
cd "$(dirname "$0")/.."

torch_dir=""
rpath=""
cuda=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rpath) rpath="${2:?--rpath takes a folder}"; shift 2 ;;
    --cuda) cuda=(--cuda "${2:?--cuda takes a folder}"); shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) [ -z "$torch_dir" ] || { echo "build-for-torch: one TORCH_DIR only" >&2; exit 2; }
       torch_dir="$1"; shift ;;
  esac
done
[ -n "$torch_dir" ] || { echo "usage: scripts/build-for-torch.sh TORCH_DIR [--rpath DIR] [--cuda DIR]" >&2; exit 2; }
torch_dir=$(cd "$torch_dir" && pwd)
[ -d "$torch_dir/include/torch" ] && [ -d "$torch_dir/lib" ] || {
  echo "build-for-torch: $torch_dir holds no include/torch and lib/: name a torch package or libtorch folder" >&2
  exit 2
}
version=$(sed -n "s/^__version__ = '\([0-9.]*\).*/\1/p" "$torch_dir/version.py" 2>/dev/null || true)
[ -n "$version" ] || version=$(cat "$torch_dir/build-version" 2>/dev/null | cut -d+ -f1 || true)
[ -n "$version" ] || { echo "build-for-torch: cannot read the PyTorch version in $torch_dir" >&2; exit 2; }
rpath=${rpath:-$torch_dir/lib}
out=target/torch-$version
echo "build-for-torch: PyTorch $version from $torch_dir into $out (libtorch at run time: $rpath)"

cargo fetch --locked >/dev/null
registry_copy=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/torch-sys-0.26.0 | head -1)
patched=$out/torch-sys
mkdir -p "$out"
# A copy patched for this very PyTorch is kept: touching it again would rebuild tch's C++.
if [ "$(cat "$patched/.patched-for" 2>/dev/null)" = "$torch_dir" ]; then
  echo "build-for-torch: tch's wrapper was patched for $torch_dir already ($(wc -l < "$out/stubbed.txt") stubbed)"
else
rm -rf "$patched"
cp -r "$registry_copy" "$patched"

# Compile the generated wrapper against these headers; stub each function that fails, and
# go again until it compiles (a stub can uncover nothing new, so two rounds are usual).
generated=$patched/libtch/torch_api_generated.cpp
: > "$out/stubbed.txt"
for round in 1 2 3 4; do
  if g++ -std=c++17 -fsyntax-only -w -D_GLIBCXX_USE_CXX11_ABI=1 \
      -I "$torch_dir/include" -I "$torch_dir/include/torch/csrc/api/include" \
      -I "$patched/libtch" "$generated" 2> "$out/wrapper-errors.txt"; then
    break
  fi
  [ "$round" -lt 4 ] || { echo "build-for-torch: tch's wrapper still fails to compile; see $out/wrapper-errors.txt" >&2; exit 1; }
  python3 - "$generated" "$out/wrapper-errors.txt" "$out/stubbed.txt" <<'EOF'
import re, sys
source, errors, listing = sys.argv[1:4]
lines = open(source).read().split("\n")
bad_lines = {int(m.group(1)) for m in re.finditer(r"torch_api_generated\.cpp:(\d+):\d+: error", open(errors).read())}
starts = [i for i, line in enumerate(lines) if re.match(r"^\w[\w\s\*]*\batg_\w+\(", line)]
stubbed = []
for line_no in sorted(bad_lines):
    index = line_no - 1
    start = max((s for s in starts if s <= index), default=None)
    if start is None:
        sys.exit(f"an error outside any wrapper function, line {line_no}")
    name = re.search(r"\b(atg_\w+)\(", lines[start]).group(1)
    if name in stubbed:
        continue
    open_at = next(i for i in range(start, len(lines)) if lines[i].strip() == "PROTECT(")
    close_at = next(i for i in range(open_at, len(lines)) if lines[i].strip() == ")")
    lines[open_at + 1:close_at] = [f'    throw std::runtime_error("{name}: not in this PyTorch");']
    starts = [s if s <= open_at else s - (close_at - open_at - 2) for s in starts]
    stubbed.append(name)
open(source, "w").write("\n".join(lines))
with open(listing, "a") as out:
    out.writelines(name + "\n" for name in stubbed)
print(f"build-for-torch: stubbed {len(stubbed)} wrapper functions this PyTorch lacks")
EOF
done
echo "build-for-torch: $(wc -l < "$out/stubbed.txt") of tch's operator wrappers are not in PyTorch $version (listed in $out/stubbed.txt)"
echo "$torch_dir" > "$patched/.patched-for"
fi

# The patch rewrites Cargo.lock's torch-sys entry: keep the repository's and put it back.
cp Cargo.lock "$out/Cargo.lock.kept"
trap 'cp "$out/Cargo.lock.kept" Cargo.lock' EXIT
LIBTORCH="$torch_dir" LIBTORCH_BYPASS_VERSION_CHECK=1 LIBTORCH_CXX11_ABI=1 \
  RUSTFLAGS="-C link-arg=-Wl,-rpath,$rpath -C link-arg=-Wl,--allow-shlib-undefined" \
  cargo build --release -p zerosum --target-dir "$out" \
  --config "patch.crates-io.torch-sys.path=\"$patched\""
if [ -e "$torch_dir/lib/libtorch_cuda.so" ]; then
  scripts/build-cuda-graphs.sh "$torch_dir" "$out/release" "${cuda[@]}" ||
    echo "build-for-torch: no CUDA graphs shim (above): the binary runs its networks without graphs"
fi
echo "build-for-torch: done: $out/release/zerosum (PyTorch $version)"
