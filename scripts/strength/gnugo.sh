#!/usr/bin/env bash
# A zerosum Go checkpoint against GNU Go 3.8 (Debian's `gnugo`) over GTP, half the games
# with each colour; installs GNU Go if it is missing. Prints the match and a row for
# docs/strength.md. Run from the repository root after ./scripts/setup.sh and a release
# build:
#
#   scripts/strength/gnugo.sh CHECKPOINT [--size 5] [--komi 0.5] [--level 10] [--games 100]
#                             [--sims N] [--seed 1] [--opening-plies 2]
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 && $1 != -* ]] || usage
checkpoint=$1; shift
size=5 komi=0.5 level=10 games=100 sims="" seed=1 opening=2
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --size) size=$2 ;; --komi) komi=$2 ;; --level) level=$2 ;; --games) games=$2 ;;
    --sims) sims=$2 ;; --seed) seed=$2 ;; --opening-plies) opening=$2 ;;
    *) echo "error: unknown option $1" >&2; usage ;;
  esac
  shift 2
done

gnugo=/usr/games/gnugo
if [[ ! -x $gnugo ]]; then
  echo "installing GNU Go (Debian's gnugo)" >&2
  if [[ $(id -u) -eq 0 ]]; then apt-get install -y -q gnugo >&2; else sudo apt-get install -y -q gnugo >&2; fi
fi
zerosum=target/release/zerosum
[[ -x $zerosum ]] || { echo "error: build zerosum first: cargo build --release" >&2; exit 1; }

player="checkpoint:$checkpoint${sims:+,sims=$sims}"
engine="gtp:$gnugo --mode gtp --chinese-rules --positional-superko --capture-all-dead --never-resign --level $level"
game="go:size=$size,komi=$komi"
result=$("$zerosum" arena "$player" "$engine" --game "$game" --games "$games" --seed "$seed" \
  --opening-plies "$opening" | tee /dev/stderr | tail -n 1)
hash=$(.venv/bin/python -c 'import sys, zerosum; print(zerosum.load_checkpoint(sys.argv[1]).sha256[:12])' "$checkpoint")
version=$("$gnugo" --version | head -n 1)
# "... +W =D -L (...), score S% [L%, H%], Elo ..., A ms a move against B"
wdl=$(grep -o '+[0-9]* =[0-9]* -[0-9]*' <<<"$result")
score=$(grep -o 'score [^]]*]' <<<"$result" | sed 's/^score //')
times=$(grep -o '[0-9.]* ms a move against [0-9.]*' <<<"$result" | sed 's/ ms a move against / \/ /')
echo "| $game | $checkpoint${sims:+, $sims sims} | $version, level $level | $games | $wdl | $score | $times ms | $(date +%F) | $hash |"
