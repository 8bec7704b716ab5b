#!/usr/bin/env bash
# Builds the wheel users install: dist/zerosum-VERSION-cp39-abi3-linux_x86_64.whl, holding the
# Python package (the extension module, abi3: any CPython from 3.9 on), the `zerosum` command
# (the release binary, run by the wheel's console script) and the shipped models. It depends on
# exactly the PyTorch it was built against, the one in .venv (run scripts/setup.sh first).
#
#   scripts/wheel.sh            # then: pip install dist/zerosum-*.whl
#
# The platform tag is plain `linux`: the binary and the module link the torch package's libtorch,
# which no manylinux policy lists, so the wheel is for machines like the one that built it.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x .venv/bin/maturin ]] || { echo "wheel: no .venv/bin/maturin: run scripts/setup.sh first" >&2; exit 1; }
torch=$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("torch"))')
pinned=$(sed -n 's/.*"torch==\([^"]*\)".*/\1/p' crates/python/pyproject.toml)
if [[ "${torch%%+*}" != "$pinned" ]]; then
  echo "wheel: .venv has torch $torch but crates/python/pyproject.toml pins torch==$pinned" >&2
  exit 1
fi

start=$SECONDS
echo "wheel: building the binary (release)"
cargo build --release --locked -p zerosum
# Staged inside the package only while maturin packs it (both are ignored by git).
package=crates/python/python/zerosum
trap 'rm -rf "$package/bin" "$package/models"' EXIT
rm -rf "$package/bin" "$package/models"
mkdir -p "$package/bin"
cp target/release/zerosum "$package/bin/zerosum"
cp -r models "$package/models"
echo "wheel: building the package (release)"
rm -f dist/zerosum-*.whl
.venv/bin/maturin build --release --locked --quiet -m crates/python/Cargo.toml \
  --out dist --compatibility linux
wheel=$(ls dist/zerosum-*.whl)
echo "wheel: done in $((SECONDS - start)) s: $wheel ($(du -h "$wheel" | cut -f1))"
