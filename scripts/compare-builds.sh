#!/usr/bin/env bash
# Side by side, two builds of gdlc (e.g. the previous commit's and this
# one's) on corpus games: each game is compiled with each binary, the
# crates are built (one target directory per binary), then the two
# reasoners run alternately, ROUNDS times (default 2): `mc --seconds S`
# (states/s), or with PLAYOUTS=N a fixed run `mc --playouts N --seed 1`
# timed in CPU seconds (user + system; steadier than a rate when the
# machine is noisy), followed by the speed ratio b/a of the fastest runs
# and of the medians (GNU time, /usr/bin/time). Needs ../shared beside
# the checkout.
# Each crate carries the runtime of the gdlc that wrote it (built once per
# game). RUNTIME_A / RUNTIME_B build a side's crates against another copy
# of the runtime crate (to compare runtime changes with one gdlc); RUSTFLAGS_A /
# RUSTFLAGS_B build a side with those flags (e.g. `-C target-cpu=native`,
# to measure what native code buys with one gdlc). STRATEGY_A /
# STRATEGY_B pass `--strategy` to a side's gdlc (e.g. `relational`
# against `demand` with one gdlc).
# Usage: [SECONDS_EACH=2] [ROUNDS=2] [PLAYOUTS=N] [RUNTIME_A=DIR] [RUNTIME_B=DIR] [RUSTFLAGS_A=..] [RUSTFLAGS_B=..] [STRATEGY_A=..] [STRATEGY_B=..] scripts/compare-builds.sh GDLC_A GDLC_B ticTacToe connectFour ...
set -u
cd "$(dirname "$0")/.."
A=$1
B=$2
shift 2
OUT=$PWD/target/compare-builds
S=${SECONDS_EACH:-2}
ROUNDS=${ROUNDS:-2}
PLAYOUTS=${PLAYOUTS:-}
for g in "$@"; do
  for side in a b; do
    gdlc=$([ "$side" = a ] && echo "$A" || echo "$B")
    runtime=$([ "$side" = a ] && echo "${RUNTIME_A:-}" || echo "${RUNTIME_B:-}")
    flags=$([ "$side" = a ] && echo "${RUSTFLAGS_A:-}" || echo "${RUSTFLAGS_B:-}")
    strategy=$([ "$side" = a ] && echo "${STRATEGY_A:-}" || echo "${STRATEGY_B:-}")
    rm -rf "$OUT/$side/$g"
    "$gdlc" "../shared/games/$g.kif" -o "$OUT/$side/$g" ${runtime:+--runtime-path "$runtime"} \
      ${strategy:+--strategy "$strategy"} > /dev/null \
      || { echo "$g $side: gdlc failed"; continue 2; }
    (cd "$OUT/$side/$g" && CARGO_TARGET_DIR="$OUT/target-$side" RUSTFLAGS="$flags" cargo build --release > /dev/null 2>&1) \
      || { echo "$g $side: build failed"; continue 2; }
  done
  bin=$(grep '^name' "$OUT/a/$g/Cargo.toml" | cut -d'"' -f2)
  # One thread on both sides (a runtime before `mc --threads` has one only).
  threads_a=$("$OUT/target-a/release/$bin" mc --playouts 1 --threads 1 > /dev/null 2>&1 && echo "--threads 1")
  threads_b=$("$OUT/target-b/release/$bin" mc --playouts 1 --threads 1 > /dev/null 2>&1 && echo "--threads 1")
  times_a=""
  times_b=""
  for ((round = 1; round <= ROUNDS; round++)); do
    for side in a b; do
      threads=$([ "$side" = a ] && echo "$threads_a" || echo "$threads_b")
      if [ -n "$PLAYOUTS" ]; then
        t=$( { /usr/bin/time -f "%U %S" "$OUT/target-$side/release/$bin" mc $threads --playouts "$PLAYOUTS" --seed 1 > /dev/null; } 2>&1 | awk '{print $1 + $2}')
        [ "$side" = a ] && times_a="$times_a $t" || times_b="$times_b $t"
        echo "$g $side round $round: $t CPU s (load $(cut -d' ' -f1 /proc/loadavg))"
      else
        r=$("$OUT/target-$side/release/$bin" mc $threads --seconds "$S" | head -1 | sed 's/.*playouts\/s, //')
        echo "$g $side round $round: $r (load $(cut -d' ' -f1 /proc/loadavg))"
      fi
    done
  done
  if [ -n "$PLAYOUTS" ]; then
    python3 -c "
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
print('$g: speed b/a %.3f by the fastest runs, %.3f by the medians' % (min(a) / min(b), statistics.median(a) / statistics.median(b)))
" "$times_a" "$times_b"
  fi
done
