#!/usr/bin/env bash
# The player's strength, play clock 1 s (issue 21): the release gdlc-player
# as it plays by default (compiling each game at START, into
# target/match-compile/cache unless GDLC_CACHE_DIR is set) against
# uniformly random movers in tic-tac-toe and connect four as each role; and
# a second one with --no-compile against flat Monte-Carlo (in the referee,
# one thread, the same interpreter and clock) in connect four as each role.
# N matches per role against random movers (default 20, as the issue
# asks), N in all against flat Monte-Carlo (N/2 as each role).
# Usage: player/scripts/strength.sh [N] > results.txt
set -u
cd "$(dirname "$0")/../.."
cargo build --release -p gdlc-player --bin gdlc-player --example referee >&2 || exit 1
N=${1:-20}
OUT=$PWD/target/strength
mkdir -p "$OUT"
export GDLC_CACHE_DIR=${GDLC_CACHE_DIR:-$PWD/target/match-compile/cache}
port=$((20000 + RANDOM % 20000))
target/release/gdlc-player --host 127.0.0.1 --port "$port" 2> "$OUT/player.log" &
pid=$!
target/release/gdlc-player --host 127.0.0.1 --port $((port + 1)) --no-compile 2> "$OUT/interpreter.log" &
pid2=$!
trap 'kill $pid $pid2' EXIT
sleep 0.5
P=127.0.0.1:$port
Q=127.0.0.1:$((port + 1))
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
run $((N / 2)) games/connectfour.kif --seat "$Q" --seat flat
run $((N / 2)) games/connectfour.kif --seat flat --seat "$Q"
