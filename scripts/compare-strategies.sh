#!/usr/bin/env bash
# Side by side, strategies of gdlc on corpus games: each game is compiled
# with each --strategy of $STRATEGIES (default: "auto relational"), the
# crates are built (one target directory per strategy), then the binaries
# run `mc --seconds 5` alternately, twice. Needs ../shared beside the
# checkout.
# Usage: [STRATEGIES="auto ground"] scripts/compare-strategies.sh ticTacToe connectFour ...
set -u
cd "$(dirname "$0")/.."
cargo build --release -p gdlc >&2
GDLC=$PWD/target/release/gdlc
OUT=$PWD/target/compare-strategies
STRATEGIES=${STRATEGIES:-auto relational}
for g in "$@"; do
  for s in $STRATEGIES; do
    "$GDLC" "../shared/games/$g.kif" -o "$OUT/$s/$g" --runtime-path "$PWD/runtime" --strategy "$s" > /dev/null
    (cd "$OUT/$s/$g" && CARGO_TARGET_DIR="$OUT/target-$s" cargo build --release > /dev/null 2>&1)
  done
  bin=$(grep '^name' "$OUT/auto/$g/Cargo.toml" | cut -d'"' -f2)
  for round in 1 2; do
    for s in $STRATEGIES; do
      r=$("$OUT/target-$s/release/$bin" mc --threads 1 --seconds 5 | head -1 | sed 's/.*playouts\/s, //')
      echo "$g $s round $round: $r (load $(cut -d' ' -f1 /proc/loadavg))"
    done
  done
done
