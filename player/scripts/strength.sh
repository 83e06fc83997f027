#!/usr/bin/env bash
# The player's strength, play clock 1 s (issue 21): the release gdlc-player
# (interpreter only, --no-compile, so that it and flat Monte-Carlo use the
# same reasoner) against uniformly random movers in tic-tac-toe and connect
# four as each role, and against flat Monte-Carlo (in the referee, one
# thread, same interpreter and clock) in connect four as each role.
# N matches per role against random movers (default 20, as the issue
# asks), N in all against flat Monte-Carlo (N/2 as each role).
# Usage: player/scripts/strength.sh [N] > results.txt
set -u
cd "$(dirname "$0")/../.."
cargo build --release -p gdlc-player --bin gdlc-player --example referee >&2 || exit 1
N=${1:-20}
OUT=$PWD/target/strength
mkdir -p "$OUT"
port=$((20000 + RANDOM % 20000))
target/release/gdlc-player --host 127.0.0.1 --port "$port" --no-compile 2> "$OUT/player.log" &
pid=$!
trap 'kill $pid' EXIT
sleep 0.5
P=127.0.0.1:$port
run() {
  local matches=$1
  shift
  echo "== $matches matches: $*"
  target/release/examples/referee "$@" --matches "$matches" --play-clock 1 | grep '^seat'
}
run "$N" games/tictactoe.kif --seat "$P" --seat random
run "$N" games/tictactoe.kif --seat random --seat "$P"
run "$N" games/connectfour.kif --seat "$P" --seat random
run "$N" games/connectfour.kif --seat random --seat "$P"
run $((N / 2)) games/connectfour.kif --seat "$P" --seat flat
run $((N / 2)) games/connectfour.kif --seat flat --seat "$P"
