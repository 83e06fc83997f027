#!/usr/bin/env bash
# Scaling of generated chess-like games (gdlc boardgame): for each board
# N x N of $SIZES and each number of piece types of $PIECES, the game of
# seed $SEED is written, compiled (`gdlc GAME -o DIR`, the default
# strategy) and built (`cargo build --release`, the runtime built once
# beforehand in the shared target folder), then flat Monte-Carlo runs
# $MC_SECONDS seconds with the compiled binary (what `gdlc mc --backend
# compiled` runs) and with the interpreter (`gdlc mc`), one after the
# other. Prints one line per game: generation seconds, src/lib.rs bytes,
# build seconds, the mean playout length (plies), states/s of each backend
# and their ratio, with the load.
# ENCODING=pieces writes the games with one position predicate per piece.
# Usage: [SIZES="6 8 10 12"] [PIECES="3 5 8"] [SEED=1] [MC_SECONDS=5] [GDLC=path] [ENCODING=board]
#        scripts/boardgame-scaling.sh
# (GDLC: a gdlc binary to use instead of building target/release/gdlc).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-6 8 10 12}
PIECES=${PIECES:-3 5 8}
SEED=${SEED:-1}
MC_SECONDS=${MC_SECONDS:-5}
ENCODING=${ENCODING:-board}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
if [ -z "${GDLC:-}" ]; then
  cargo build --release -p gdlc -q
  GDLC=$CARGO_TARGET_DIR/release/gdlc
fi
WORK=$CARGO_TARGET_DIR/boardgame-scaling
TARGET=$WORK/target
RUNTIME=$PWD/runtime
mkdir -p "$WORK"
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
field() { sed -n "s/.*\"$1\":\([0-9.e+]*\).*/\1/p"; }
printf '%-9s %6s %8s %12s %8s %7s %14s %14s %7s %5s\n' board pieces "gen s" "lib.rs B" "build s" length \
  "compiled st/s" "interp st/s" ratio load
first=1
for n in $SIZES; do
  for k in $PIECES; do
    name=bg${n}x${n}p$k$([ "$ENCODING" = board ] || echo "-$ENCODING")
    kif=$WORK/$name.kif
    dir=$WORK/$name
    "$GDLC" boardgame --seed "$SEED" --size "${n}x$n" --pieces "$k" --encoding "$ENCODING" -o "$kif"
    t=$(now)
    "$GDLC" "$kif" -o "$dir" --runtime-path "$RUNTIME" > /dev/null
    gen=$(since "$t")
    bytes=$(stat -c %s "$dir/src/lib.rs")
    if [ $first = 1 ]; then
      (cd "$dir" && CARGO_TARGET_DIR=$TARGET cargo build --release -q)
      first=0
    fi
    touch "$dir/src/lib.rs"
    t=$(now)
    (cd "$dir" && CARGO_TARGET_DIR=$TARGET cargo build --release -q)
    build=$(since "$t")
    package=$(sed -n 's/^name = "\(.*\)"/\1/p' "$dir/Cargo.toml" | head -1)
    report=$("$TARGET/release/$package" mc --seconds "$MC_SECONDS" --json)
    compiled=$(echo "$report" | field states_per_sec)
    length=$(echo "$(echo "$report" | field states) / $(echo "$report" | field playouts) - 1" | bc -l)
    interpreted=$("$GDLC" mc "$kif" --seconds "$MC_SECONDS" --json | field states_per_sec)
    ratio=$(echo "$compiled / $interpreted" | bc -l)
    printf '%-9s %6s %8.2f %12s %8.1f %7.1f %14.0f %14.0f %7.1f %5s\n' "${n}x$n" "$k" "$gen" "$bytes" "$build" \
      "$length" "$compiled" "$interpreted" "$ratio" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done
