#!/usr/bin/env bash
# End-to-end test of `zerosum serve` in a real headless browser: Debian's Chromium, driven
# by playwright-core (pinned in tests/browser/package-lock.json), plays a whole game of
# connect four against the agent by clicking, checks the result the page shows, and saves
# the screenshot docs/web.md uses (docs/images/web-connect4.png); then plays Oware, chess
# and Push Fight moves by click and drag on their drawn boards (docs/images/web-<game>.png).
#
# Installs what is missing: the chromium package (apt-get), Node.js (apt-get), and
# playwright-core into tests/browser/node_modules (npm ci). Builds the release binary
# unless ZEROSUM_SKIP_BUILD=1. Prints `N passed, N failed` last; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

if [ ! -x /usr/bin/chromium ]; then
    echo "browser-test: installing chromium (Debian package)"
    apt_install chromium
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "browser-test: installing nodejs and npm (Debian packages)"
    apt_install nodejs npm
fi
if [ ! -f tests/browser/node_modules/playwright-core/package.json ]; then
    echo "browser-test: installing playwright-core into tests/browser/node_modules"
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ "${ZEROSUM_SKIP_BUILD:-0}" != 1 ]; then
    cargo build --release -p zerosum
fi

log=$(mktemp)
server=""
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -f "$log"
}
trap cleanup EXIT

# Starts `zerosum serve --game $1` (its shipped model, or rollout MCTS where none is; 50
# simulations a move) and sets $url.
start_server() {
    cleanup
    target/release/zerosum serve --game "$1" --port 0 --sims 50 --search-threads 1 >"$log" 2>&1 &
    server=$!
    url=""
    for _ in $(seq 1 300); do
        url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$log" || true)
        [ -n "$url" ] && break
        if ! kill -0 "$server" 2>/dev/null; then
            echo "browser-test: the server did not start:"
            cat "$log"
            echo "0 passed, 1 failed"
            exit 1
        fi
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "browser-test: the server printed no URL within 30 s"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "browser-test: $1 server at $url"
}

start_server connect4
timeout 300 node tests/browser/connect4.mjs "$url" docs/images/web-connect4.png

# The other drawn boards: a click on an Oware house, a chess move by two clicks, Push Fight
# placements by click and a push by drag.
for game in oware chess pushfight; do
    start_server "$game"
    timeout 120 node tests/browser/boards.mjs "$game" "$url" "docs/images/web-$game.png"
done
cleanup
server=""

# The training report of a short tic-tac-toe run opens cleanly in the browser too.
run=$(mktemp -d)
target/release/zerosum train --game tictactoe --run "$run/run" --set generations=4 \
    --set arena.every=2 --set arena.games=4 >/dev/null
target/release/zerosum report "$run/run" >/dev/null
timeout 120 node tests/browser/report.mjs "$run/run/report/index.html"
rm -rf "$run"
