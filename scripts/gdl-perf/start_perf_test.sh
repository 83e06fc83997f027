#!/usr/bin/env bash
# gdlc as an engine of gdl-perf (github.com/AlexLandau/gdl-perf), the
# cross-engine benchmark of GDL reasoners:
#
#   start_perf_test.sh GAME_FILE OUTPUT_FILE SECONDS
#
# plays uniformly random playouts for SECONDS on one thread with the game's
# compiled reasoner (generated and built with cargo on first use, then
# cached: see `gdlc gdl-perf --help`) and writes `version`,
# `millisecondsTaken`, `numStateChanges` and `numRollouts` to OUTPUT_FILE,
# or `version` and `errorMessage`.
#
# With GDLC_PERF_MODE=correctness (what start_correctness_test.sh sets), the
# third argument is a number of state changes and OUTPUT_FILE gets the
# record of random games that gdl-perf's correctness test replays.
#
# gdlc is $GDLC, else target/release/gdlc of this checkout, else `gdlc` on
# the PATH. GDLC_PERF_BACKEND=interpreted runs the reference interpreter
# instead of the compiled reasoner. The random moves are drawn from the seed
# $GDLC_PERF_SEED, else a new one each run (as gdl-perf's own engines draw
# afresh, so repeated correctness tests play other games), shown on stderr
# so that a record can be made again.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 GAME_FILE OUTPUT_FILE SECONDS_OR_STATE_CHANGES" >&2
  exit 2
fi
mode=${GDLC_PERF_MODE:-performance}
case $mode in
  performance) flags=() ;;
  correctness) flags=(--correctness) ;;
  *) echo "$0: GDLC_PERF_MODE must be performance or correctness, not '$mode'" >&2; exit 2 ;;
esac
seed=${GDLC_PERF_SEED:-$(( (RANDOM << 15) | RANDOM ))}
echo "$0: seed $seed" >&2
flags+=(--backend "${GDLC_PERF_BACKEND:-compiled}" --seed "$seed")
here=$(cd "$(dirname "$0")" && pwd)
gdlc=${GDLC:-}
if [ -z "$gdlc" ]; then
  gdlc=gdlc
  [ -x "$here/../../target/release/gdlc" ] && gdlc=$here/../../target/release/gdlc
fi
if ! command -v "$gdlc" > /dev/null; then
  why="gdlc not found: build it with 'cargo build --release -p gdlc' in the gdlc checkout or set GDLC"
  if [ "$mode" = correctness ]; then
    printf '!E!%s\n!F!\n' "$why" > "$2"
  else
    printf 'version = unknown\nerrorMessage = %s\n' "$why" > "$2"
  fi
  echo "$0: $why" >&2
  exit 1
fi
exec "$gdlc" gdl-perf "$1" "$2" "$3" "${flags[@]}"
