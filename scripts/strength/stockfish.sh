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

source scripts/strength/common.sh
stockfish=/usr/games/stockfish
install_engine "$stockfish" stockfish "Stockfish"
require_zerosum

if [[ -n $elo ]]; then
  strength="UCI_LimitStrength=true;UCI_Elo=$elo" setting="UCI_Elo $elo"
else
  strength="Skill Level=$skill" setting="Skill Level $skill"
fi
player="checkpoint:$checkpoint${sims:+,sims=$sims}"
engine="uci:$stockfish;Threads=1;Hash=16;$strength;go=movetime $movetime"
result=$("$zerosum" arena "$player" "$engine" --game chess --games "$games" --seed "$seed" \
  --opening-plies "$opening" | tee /dev/stderr | tail -n 1)
version=$(echo quit | "$stockfish" | head -n 1 | cut -d' ' -f1-2)
table_row chess "$checkpoint" "$sims" "$version, $setting, ${movetime} ms" "$games" "$result"
