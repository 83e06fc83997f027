#!/usr/bin/env bash
# Match-time compilation, measured: for each corpus game named on the
# command line (default: the 14 benchmark games of docs/PERFORMANCE.md),
# one match of the release gdlc-player (every core, compiling at START)
# against random movers; prints, from the player's log, the time from START
# to the compiled reasoner in use and the search iterations/s of the first
# step (the interpreter, while the build runs beside it) and of the last
# (the compiled worker alone).
#
# The match lasts until the switch has happened: the referee is given no
# step limit (STEPS, default 100000) and the script ends the match itself
# once AFTER (default 2) steps have been answered after the switch: the
# first of them is partly searched by the worker as it catches up, the
# second is the compiled worker's alone. It is also ended after LIMIT
# seconds (default 1800) without a switch. Big games build for minutes, and
# a short game (ticTacToe ends after 5 to 9 steps) must not end before its
# build does: the play clock of the measurement is PLAY_CLOCK seconds
# (default 10; START_CLOCK, default 10, is the start clock). A match that
# ends (terminal) before the switch is reported as such: run that game
# again with a longer PLAY_CLOCK. The play clock changes neither the build
# nor the time of the switch, which is measured from START.
#
# With AFTER=all the match is played to its end or to STEPS, and the
# referee's summary (moves replaced: late, illegal or unreadable answers;
# the slowest answer) is printed: with PLAY_CLOCK=1 and a fresh cache this
# checks that the player answers within the clock while it builds.
#
# The cache is target/match-compile/cache unless GDLC_CACHE_DIR is set: a
# fresh folder is a cold cache (the first game built into it also builds
# the libraries every worker shares), and a second run over the same folder
# shows games seen before. The load (uptime) is printed with each game.
# Needs ../shared beside the checkout.
# Usage: [PLAY_CLOCK=S] [AFTER=N|all] player/scripts/match-compile.sh [GAME...] > results.txt
set -u
cd "$(dirname "$0")/../.."
cargo build --release -p gdlc-player --bin gdlc-player --example referee >&2 || exit 1
OUT=$PWD/target/match-compile
mkdir -p "$OUT"
export GDLC_CACHE_DIR=${GDLC_CACHE_DIR:-$OUT/cache}
GAMES=$PWD/../shared/games
PLAY_CLOCK=${PLAY_CLOCK:-10}
START_CLOCK=${START_CLOCK:-10}
STEPS=${STEPS:-100000}
AFTER=${AFTER:-2}
LIMIT=${LIMIT:-1800}
LIST=${*:-ticTacToe connectFour breakthrough checkers skirmish blocker amazons chess englishDraughts hex reversi pentago 3pConnectFour knightThrough}
case $AFTER in
  all) how="played to its end or $STEPS steps" ;;
  *) how="ended $AFTER steps after the switch" ;;
esac
echo "# cache $GDLC_CACHE_DIR; start clock $START_CLOCK s, play clock $PLAY_CLOCK s; each match $how"
# Step lines answered after the switch.
after_switch() {
  awk '/compiled reasoner in use/ { on = 1; next } on && /: step [0-9]+:/ { n++ } END { print n + 0 }' "$1"
}
for g in $LIST; do
  port=$((20000 + RANDOM % 20000))
  # Its own process group: the compiled worker and a build still running
  # are ended with it.
  setsid target/release/gdlc-player --host 127.0.0.1 --port "$port" 2> "$OUT/$g.log" &
  pid=$!
  sleep 0.5
  target/release/examples/referee "$GAMES/$g.kif" --seat "127.0.0.1:$port" \
    --start-clock "$START_CLOCK" --play-clock "$PLAY_CLOCK" --steps "$STEPS" > "$OUT/$g.referee" 2>&1 &
  rpid=$!
  began=$SECONDS
  ended="by the referee"
  while kill -0 "$rpid" 2> /dev/null; do
    if [ "$AFTER" != all ] && [ "$(after_switch "$OUT/$g.log")" -ge "$AFTER" ]; then
      ended="by the script, $AFTER steps after the switch"
      kill "$rpid"
      break
    fi
    if [ $((SECONDS - began)) -gt "$LIMIT" ]; then
      ended="by the script after $LIMIT s"
      kill "$rpid"
      break
    fi
    sleep 0.5
  done
  wait "$rpid" 2> /dev/null
  kill -- -"$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  switch=$(grep -o 'compiled reasoner in use [0-9.]* s' "$OUT/$g.log" | grep -o '[0-9.]* s' || true)
  failed=$(grep -c 'compiling failed' "$OUT/$g.log")
  steps=$(grep -c ': step [0-9]*:' "$OUT/$g.log")
  first=$(grep -o 'interpreter [0-9]* it/s' "$OUT/$g.log" | head -1)
  last=$(grep ': step [0-9]*:' "$OUT/$g.log" | tail -1 | grep 'it/s)$' | sed 's/.*; //; s/)$//')
  summary=$(grep '^seat 0' "$OUT/$g.referee" || echo "no referee summary")
  echo "$g: compiled in use after ${switch:-never} (failed builds: $failed); first step ${first:-none}; last step ${last:-none}; $steps steps, match ended $ended; $summary; load$(uptime | sed 's/.*load average//')"
done
