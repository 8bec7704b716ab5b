#!/usr/bin/env bash
# Measures the candidate build profiles of the binary users run, one after the other on a
# quiet machine (docs/results.md, "The build users run"): for each, the build from scratch
# and after a one-line change, the binary's size, the search without a network on three
# games, self-play on two networks and one interactive search. Each profile builds into a
# target folder of its own under target/profiles/, from nothing.
#
#   scripts/build-profiles.sh [--keep] [PROFILE...]    (default: fast release fat thin16)
#
# --keep measures a profile already built under target/profiles/ without building it anew.
set -euo pipefail
cd "$(dirname "$0")/.."
# The binaries' relative rpath reaches .venv from target/<profile>/ only.
export LD_LIBRARY_PATH="$PWD/.venv/torch/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
keep=false
if [ "${1:-}" = --keep ]; then keep=true; shift; fi

# name: the settings each candidate gives the release profile (every one is set, so a
# candidate measures the same whatever Cargo.toml's [profile.release] says): `release` is
# Cargo.toml's, `fast` the tests' [profile.fast].
declare -A settings=(
  [fast]="LTO=false CODEGEN_UNITS=16 INCREMENTAL=true DEBUG=line-tables-only"
  [release]="LTO=thin CODEGEN_UNITS=1 INCREMENTAL=false DEBUG=false"
  [fat]="LTO=fat CODEGEN_UNITS=1 INCREMENTAL=false DEBUG=false"
  [thin16]="LTO=thin CODEGEN_UNITS=16 INCREMENTAL=false DEBUG=false"
)
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(fast release fat thin16)

seconds() { # COMMAND...: its wall time in whole seconds
  local start=$SECONDS
  "$@" > /dev/null 2>&1
  echo $((SECONDS - start))
}
field() { sed -n 's/^summary: //p' | tr ' ' '\n' | sed -n "s/^$1=//p"; }

echo "| profile | build from scratch (s) | after a one-line change (s) | binary (MB) | rollout MCTS sims/s: connect four / Oware / Go 9x9 | tree alone: connect four | self-play evals/s: connect four / Go 9x9 | one search, connect four, sims/s |"
echo "|---|---|---|---|---|---|---|---|"
for name in "${profiles[@]}"; do
  env_settings=()
  for pair in ${settings[$name]}; do env_settings+=("CARGO_PROFILE_RELEASE_$pair"); done
  dir=target/profiles/$name
  build() { env "${env_settings[@]}" cargo build --release --locked -p zerosum --target-dir "$dir"; }
  if $keep && [ -x "$dir/release/zerosum" ]; then
    scratch="(kept)"
  else
    rm -rf "$dir"
    scratch=$(seconds build)
  fi
  # A one-line change in the search crate, which every other crate but games depends on.
  echo "// $(date +%s%N)" >> crates/search/src/puct.rs
  change=$(seconds build)
  git checkout -- crates/search/src/puct.rs
  build > /dev/null 2>&1
  bin=$dir/release/zerosum
  size=$(du -m "$bin" | cut -f1)
  rollout=()
  for game in connect4 oware go:size=9; do
    rollout+=("$("$bin" bench --game "$game" --sections search 2>/dev/null | field search_rollout)")
  done
  tree=$("$bin" bench --game connect4 --sections search 2>/dev/null | field search_tree)
  c4=$("$bin" bench --game connect4 --sections self-play --games 100000 --self-play-seconds 10 --precisions fp32 --batch-sizes 64 --seconds 1 2>/dev/null | field selfplay_evals)
  go9=$("$bin" bench --checkpoint models/go-9x9 --sections self-play --games 100000 --self-play-seconds 10 --precisions fp32 --batch-sizes 64 --seconds 1 2>/dev/null | field selfplay_evals)
  one=$("$bin" bench --game connect4 --sections interactive --leaves 1 --sims 800 2>/dev/null | field interactive_1)
  echo "| $name | $scratch | $change | $size | ${rollout[0]} / ${rollout[1]} / ${rollout[2]} | $tree | $c4 / $go9 | $one |"
done
