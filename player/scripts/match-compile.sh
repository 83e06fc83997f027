#!/usr/bin/env bash
# Match-time compilation, measured: for each corpus game named on the
# command line (default: the 14 benchmark games of docs/PERFORMANCE.md),
# one match of the release gdlc-player (every core, compiling at START)
# against random movers, START clock 10 s, play clock 5 s, ended after 12
# steps; prints, from the player's log, the time from START to the compiled
# reasoner in use and the search iterations/s of the first step
# (interpreter) and of the last (compiled). The cache is
# target/match-compile/cache unless GDLC_CACHE_DIR is set, so a second run
# shows a game seen before. Needs ../shared beside the checkout.
# Usage: player/scripts/match-compile.sh [GAME...] > results.txt
set -u
cd "$(dirname "$0")/../.."
cargo build --release -p gdlc-player --bin gdlc-player --example referee >&2 || exit 1
OUT=$PWD/target/match-compile
mkdir -p "$OUT"
export GDLC_CACHE_DIR=${GDLC_CACHE_DIR:-$OUT/cache}
GAMES=$PWD/../shared/games
LIST=${*:-ticTacToe connectFour breakthrough checkers skirmish blocker amazons chess englishDraughts hex reversi pentago 3pConnectFour knightThrough}
for g in $LIST; do
  port=$((20000 + RANDOM % 20000))
  target/release/gdlc-player --host 127.0.0.1 --port "$port" 2> "$OUT/$g.log" &
  pid=$!
  sleep 0.5
  target/release/examples/referee "$GAMES/$g.kif" --seat "127.0.0.1:$port" \
    --start-clock 10 --play-clock 5 --steps 12 > "$OUT/$g.referee" 2>&1
  kill "$pid"; wait "$pid" 2> /dev/null
  switch=$(grep -o 'compiled reasoner in use [0-9.]* s' "$OUT/$g.log" | grep -o '[0-9.]*' || true)
  failed=$(grep -c 'compiling failed' "$OUT/$g.log")
  first=$(grep -o 'interpreter [0-9]* it/s' "$OUT/$g.log" | head -1)
  last=$(grep -o 'compiled [0-9]* it/s' "$OUT/$g.log" | tail -1)
  echo "$g: compiled in use after ${switch:-never} s (failed builds: $failed); first step ${first:-none}; last step ${last:-none}; $(grep '^seat 0' "$OUT/$g.referee")"
done
