#!/usr/bin/env bash
# Side by side, two builds of gdlc (e.g. the previous commit's and this
# one's) on corpus games: each game is compiled with each binary, the
# crates are built (one target directory per binary), then the two
# reasoners run `mc --seconds S` alternately, twice. Needs ../shared
# beside the checkout.
# Usage: [SECONDS_EACH=2] scripts/compare-builds.sh GDLC_A GDLC_B ticTacToe connectFour ...
set -u
cd "$(dirname "$0")/.."
A=$1
B=$2
shift 2
OUT=$PWD/target/compare-builds
S=${SECONDS_EACH:-2}
for g in "$@"; do
  for side in a b; do
    gdlc=$([ "$side" = a ] && echo "$A" || echo "$B")
    rm -rf "$OUT/$side/$g"
    "$gdlc" "../shared/games/$g.kif" -o "$OUT/$side/$g" > /dev/null || { echo "$g $side: gdlc failed"; continue 2; }
    (cd "$OUT/$side/$g" && CARGO_TARGET_DIR="$OUT/target-$side" cargo build --release > /dev/null 2>&1) \
      || { echo "$g $side: build failed"; continue 2; }
  done
  bin=$(grep '^name' "$OUT/a/$g/Cargo.toml" | cut -d'"' -f2)
  for round in 1 2; do
    for side in a b; do
      r=$("$OUT/target-$side/release/$bin" mc --seconds "$S" | head -1 | sed 's/.*playouts\/s, //')
      echo "$g $side round $round: $r (load $(cut -d' ' -f1 /proc/loadavg))"
    done
  done
done
