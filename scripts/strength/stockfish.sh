#!/usr/bin/env bash
# A zerosum chess checkpoint against Stockfish (Debian's `stockfish`) over UCI, half the
# games with each colour; installs Stockfish if it is missing. Stockfish plays at a Skill
# Level (0 weakest, 20 full strength) or, with --elo, at UCI_LimitStrength and UCI_Elo
# (1350 at least), one thread, a fixed time a move. Prints the match and a row for
# docs/strength.md. Run from the repository root after ./scripts/setup.sh and a release
# build:
#
#   scripts/strength/stockfish.sh CHECKPOINT [--skill 0 | --elo 1350] [--movetime 100]
#                                 [--games 100] [--sims N] [--seed 1] [--opening-plies 2]
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 && $1 != -* ]] || usage
checkpoint=$1; shift
skill=0 elo="" movetime=100 games=100 sims="" seed=1 opening=2
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --skill) skill=$2 ;; --elo) elo=$2 ;; --movetime) movetime=$2 ;; --games) games=$2 ;;
    --sims) sims=$2 ;; --seed) seed=$2 ;; --opening-plies) opening=$2 ;;
    *) echo "error: unknown option $1" >&2; usage ;;
  esac
  shift 2
done

stockfish=/usr/games/stockfish
if [[ ! -x $stockfish ]]; then
  echo "installing Stockfish (Debian's stockfish)" >&2
  if [[ $(id -u) -eq 0 ]]; then apt-get install -y -q stockfish >&2; else sudo apt-get install -y -q stockfish >&2; fi
fi
zerosum=target/release/zerosum
[[ -x $zerosum ]] || { echo "error: build zerosum first: cargo build --release" >&2; exit 1; }

if [[ -n $elo ]]; then
  strength="UCI_LimitStrength=true;UCI_Elo=$elo" setting="UCI_Elo $elo"
else
  strength="Skill Level=$skill" setting="Skill Level $skill"
fi
player="checkpoint:$checkpoint${sims:+,sims=$sims}"
engine="uci:$stockfish;Threads=1;Hash=16;$strength;go=movetime $movetime"
result=$("$zerosum" arena "$player" "$engine" --game chess --games "$games" --seed "$seed" \
  --opening-plies "$opening" | tee /dev/stderr | tail -n 1)
hash=$(.venv/bin/python -c 'import sys, zerosum; print(zerosum.load_checkpoint(sys.argv[1]).sha256[:12])' "$checkpoint")
version=$(echo quit | "$stockfish" | head -n 1 | cut -d' ' -f1-2)
# "... +W =D -L (...), score S% [L%, H%], Elo ..., A ms a move against B"
wdl=$(grep -o '+[0-9]* =[0-9]* -[0-9]*' <<<"$result")
score=$(grep -o 'score [^]]*]' <<<"$result" | sed 's/^score //')
times=$(grep -o '[0-9.]* ms a move against [0-9.]*' <<<"$result" | sed 's/ ms a move against / \/ /')
echo "| chess | $checkpoint${sims:+, $sims sims} | $version, $setting, ${movetime} ms | $games | $wdl | $score | $times ms | $(date +%F) | $hash |"
