# Shared by the strength scripts that play an engine through `zerosum arena`; sourced, not
# run. Run from the repository root.

zerosum=target/release/zerosum

# install_engine BINARY PACKAGE NAME: installs Debian's PACKAGE when BINARY is missing.
install_engine() {
  [[ -x $1 ]] && return
  echo "installing $3 (Debian's $2)" >&2
  if [[ $(id -u) -eq 0 ]]; then apt-get install -y -q "$2" >&2; else sudo apt-get install -y -q "$2" >&2; fi
}

# require_zerosum: the release binary must be built.
require_zerosum() {
  [[ -x $zerosum ]] || { echo "error: build zerosum first: cargo build --release" >&2; exit 1; }
}

# table_row GAME CHECKPOINT SIMS OPPONENT GAMES RESULT: a row for docs/strength.md from the
# arena's last line, "... +W =D -L (...), score S% [L%, H%], Elo ..., A ms a move against
# B ms" (or both in s, or in µs) and, in Go, ", margin M points a game".
table_row() {
  local hash wdl score margin times
  hash=$(.venv/bin/python -c 'import sys, zerosum; print(zerosum.load_checkpoint(sys.argv[1]).sha256[:12])' "$2")
  wdl=$(grep -o '+[0-9]* =[0-9]* -[0-9]*' <<<"$6")
  score=$(grep -o 'score [^]]*]' <<<"$6" | sed 's/^score //')
  margin=$(grep -o 'margin [-+0-9.]* points a game' <<<"$6" || true)
  score+=${margin:+, $margin}
  times=$(grep -o '[0-9.]* [^ ]*s a move against [0-9.]* [^ ,]*s' <<<"$6" | sed 's/ [^ ]*s a move against / \/ /')
  echo "| $1 | $2${3:+, $3 sims} | $4 | $5 | $wdl | $score | $times | $(date +%F) | $hash |"
}
