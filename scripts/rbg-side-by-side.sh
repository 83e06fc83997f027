#!/usr/bin/env bash
# Side by side, RBG's flat Monte-Carlo benchmark and gdlc's compiled
# `mc --threads 1` on the same games, alternately, ROUNDS times (default
# 3) of SECONDS_EACH seconds (default 5) each: states per CPU-second
# (user + system, GNU time) on both sides, then the medians and their
# ratio gdlc / RBG.
#
# RBG's binaries are not built here: build rbg2cpp and its benchmark
# (`make benchmark_<game>`, the driver test/benchmark.cpp, which takes
# milliseconds) from their public repositories and pass the folder
# holding one binary per game as RBG_BIN. RBG counts a state each time a
# playout applies a move; gdlc counts every visited state, the terminal
# one too, so RBG's count is given its playouts (one terminal state each)
# to count the same states.
# Each argument is RBG-BINARY:GDL-GAME, the game a description in
# ../shared/games (compiled with target/release/gdlc into
# target/rbg-side-by-side).
# Usage: RBG_BIN=DIR [SECONDS_EACH=5] [ROUNDS=3] scripts/rbg-side-by-side.sh chess:chess amazons:amazons ...
set -u
cd "$(dirname "$0")/.."
: "${RBG_BIN:?the folder of the RBG benchmark binaries}"
S=${SECONDS_EACH:-5}
ROUNDS=${ROUNDS:-3}
OUT=$PWD/target/rbg-side-by-side
GDLC=$PWD/target/release/gdlc
mkdir -p "$OUT"

# CPU seconds of the command's run ($@), its output in $OUT/out.
cpu_seconds() {
  { /usr/bin/time -f "%U %S" "$@" > "$OUT/out"; } 2>&1 | tail -1 | awk '{print $1 + $2}'
}

median() {
  python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"
}

printf '| game | RBG states/s | gdlc states/s | gdlc / RBG |\n| --- | --- | --- | --- |\n'
for pair in "$@"; do
  rbg=${pair%%:*}
  game=${pair#*:}
  "$GDLC" "../shared/games/$game.kif" -o "$OUT/$game" --runtime-path "$PWD/runtime" > /dev/null || { echo "$game: gdlc failed" >&2; continue; }
  (cd "$OUT/$game" && CARGO_TARGET_DIR="$OUT/target" cargo build --release -q) || { echo "$game: build failed" >&2; continue; }
  bin=$OUT/target/release/$(grep '^name' "$OUT/$game/Cargo.toml" | cut -d'"' -f2)
  rates_rbg=()
  rates_gdlc=()
  for ((round = 1; round <= ROUNDS; round++)); do
    t=$(cpu_seconds "$RBG_BIN/$rbg" $((S * 1000)))
    states=$(sed -n 's/^number of states: \([0-9]*\).*/\1/p' "$OUT/out")
    playouts=$(sed -n 's/^number of playouts: \([0-9]*\).*/\1/p' "$OUT/out")
    rates_rbg+=("$(echo "($states + $playouts) / $t" | bc -l)")
    t=$(cpu_seconds "$bin" mc --threads 1 --seconds "$S" --seed "$round")
    states=$(sed -n 's/^[0-9]* playouts, \([0-9]*\) states.*/\1/p' "$OUT/out")
    rates_gdlc+=("$(echo "$states / $t" | bc -l)")
    load=$(cut -d' ' -f1 /proc/loadavg)
    printf '%s round %d: RBG %.0f, gdlc %.0f states/s (load %s)\n' \
      "$game" "$round" "${rates_rbg[-1]}" "${rates_gdlc[-1]}" "$load" >&2
  done
  r=$(median "${rates_rbg[@]}")
  g=$(median "${rates_gdlc[@]}")
  printf '| %s | %.0f | %.0f | %.3f |\n' "$game" "$r" "$g" "$(echo "$g / $r" | bc -l)"
done
