#!/usr/bin/env bash
# A zerosum Go checkpoint against GNU Go 3.8 (Debian's `gnugo`) over GTP, half the games
# with each colour; installs GNU Go if it is missing. Prints the match and a row for
# docs/strength.md. Run from the repository root after ./scripts/setup.sh and a release
# build:
#
#   scripts/strength/gnugo.sh CHECKPOINT [--size 5] [--komi 0.5] [--level 10] [--games 100]
#                             [--sims N] [--seed 1] [--opening-plies 2] [--save FILE]
#
# --save FILE keeps the games as JSON Lines, and as SGF beside it (FILE.sgf, each game's
# RE the counted result: by how much it was won or lost).
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 && $1 != -* ]] || usage
checkpoint=$1; shift
size=5 komi=0.5 level=10 games=100 sims="" seed=1 opening=2 save=()
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --size) size=$2 ;; --komi) komi=$2 ;; --level) level=$2 ;; --games) games=$2 ;;
    --sims) sims=$2 ;; --seed) seed=$2 ;; --opening-plies) opening=$2 ;;
    --save) save=(--save "$2") ;;
    *) echo "error: unknown option $1" >&2; usage ;;
  esac
  shift 2
done

source scripts/strength/common.sh
gnugo=/usr/games/gnugo
install_engine "$gnugo" gnugo "GNU Go"
require_zerosum

player="checkpoint:$checkpoint${sims:+,sims=$sims}"
engine="gtp:$gnugo --mode gtp --chinese-rules --positional-superko --capture-all-dead --never-resign --level $level"
game="go:size=$size,komi=$komi"
result=$("$zerosum" arena "$player" "$engine" --game "$game" --games "$games" --seed "$seed" \
  --opening-plies "$opening" "${save[@]}" | tee /dev/stderr | tail -n 1)
version=$("$gnugo" --version | head -n 1)
table_row "$game" "$checkpoint" "$sims" "$version, level $level" "$games" "$result"
