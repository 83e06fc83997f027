#!/usr/bin/env bash
# The measurements of docs/PERFORMANCE.md: for each corpus game named on the
# command line, the time of `gdlc GAME.kif -o DIR`, the time of
# `cargo build --release` of that crate (one shared target directory), the
# size of the generated source, then one `gdlc bench --seconds 40 --json`
# run (compiled and interpreted side by side). Needs ../shared beside the
# checkout. With COMPILE_ONLY=1 the bench is skipped (compile cost only),
# and with no game named every corpus game is taken. The runtime is built
# into the shared target directory first, so no game's build counts it.
# Usage: [COMPILE_ONLY=1] scripts/bench-corpus.sh [ticTacToe connectFour ...] > results.txt
set -u
cd "$(dirname "$0")/.."
cargo build --release -p gdlc >&2
GDLC=$PWD/target/release/gdlc
GAMES=$PWD/../shared/games
OUT=$PWD/target/bench-corpus
mkdir -p "$OUT"
export CARGO_TARGET_DIR=$OUT/target
export GDLC_CACHE_DIR=$OUT/cache
games=("$@")
if [ ${#games[@]} -eq 0 ]; then
  mapfile -t games < <(ls "$GAMES" | sed -n 's/\.kif$//p')
fi
"$GDLC" "$GAMES/ticTacToe.kif" -o "$OUT/.runtime-warmup" --runtime-path "$PWD/runtime" > /dev/null
(cd "$OUT/.runtime-warmup" && cargo build --release -q) >&2
for g in "${games[@]}"; do
  s=$(date +%s.%N); "$GDLC" "$GAMES/$g.kif" -o "$OUT/$g" --runtime-path "$PWD/runtime" > "$OUT/$g.gen.log" 2>&1; rc=$?; e=$(date +%s.%N)
  gen=$(echo "$e - $s" | bc)
  s=$(date +%s.%N); (cd "$OUT/$g" && cargo build --release > "$OUT/$g.build.log" 2>&1); brc=$?; e=$(date +%s.%N)
  build=$(echo "$e - $s" | bc)
  size=$(wc -c < "$OUT/$g/src/lib.rs" 2>/dev/null)
  echo "$g gen_rc=$rc gen_s=$gen build_rc=$brc build_s=$build bytes=$size load=$(cut -d' ' -f1-3 /proc/loadavg)"
  [ "${COMPILE_ONLY:-}" = 1 ] && continue
  "$GDLC" bench "$GAMES/$g.kif" --seconds 40 --json > "$OUT/$g.bench.json" 2> "$OUT/$g.bench.err"
  echo "  bench_rc=$? $(cat "$OUT/$g.bench.json")"
done
