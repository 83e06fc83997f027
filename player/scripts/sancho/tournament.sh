#!/usr/bin/env bash
# gdlc-player against Sancho 1.61c (the 2014 GGP champion), refereed by
# ggp-base's own GameServer (MatchRunner.java, beside this script).
#
# Usage: player/scripts/sancho/tournament.sh GAME... > results.txt
#   GAME is a name from ../shared/games (relative to the checkout), e.g.
#   ticTacToe connectFour (for ../shared/games/ticTacToe.kif ...). Only
#   two-player games. For each game, gdlc-player plays role 0, then role 1;
#   each match gets a fresh Sancho and a fresh gdlc-player.
#
# Environment:
#   GGP_BASE     ggp-base checkout with its sources compiled into classes/
#                (default /tmp/anchors/ggp-base)
#   SANCHO_LIB   folder holding sancho.jar, log4j-api-2.0-rc1.jar and
#                lucene-core-4.8.1.jar (default /tmp/anchors/gdl-perf/lib/sancho)
#   START_CLOCK  seconds (default 30)      PLAY_CLOCK  seconds (default 3)
#   ROLES        gdlc's roles to play (default "0 1")
#   REPEAT       matches per game and role (default 1)
#   GAMES_DIR    default <checkout>/../shared/games
#   GDLC_ARGS    extra gdlc-player arguments (e.g. "--threads 1")
#   SANCHO_THREADS  CPU_INTENSIVE_THREADS for Sancho (default: Sancho's own)
#   SANCHO_JAVA_OPTS  JVM options for Sancho (default -Xmx4g)
#   GDLC_CACHE_DIR  default <checkout>/target/match-compile/cache
#
# Needs (this script neither fetches nor builds them): ggp-base compiled
# (javac over src/main/java into $GGP_BASE/classes, against $GGP_BASE/lib
# jars), Sancho's jars, Debian's libcommons-configuration-java
# libcommons-lang-java libcommons-logging-java libjna-java
# libjna-platform-java libtrove3-java libdisruptor-java junit4
# libhamcrest-java, and target/release/gdlc-player. Logs, match JSON and
# Sancho's working folders go to target/sancho/.
#
# Output: one row per match, then totals (gdlc's share of all points).
set -u
cd "$(dirname "$0")/../../.."
ROOT=$PWD
HERE=$ROOT/player/scripts/sancho
GGP_BASE=${GGP_BASE:-/tmp/anchors/ggp-base}
SANCHO_LIB=${SANCHO_LIB:-/tmp/anchors/gdl-perf/lib/sancho}
START_CLOCK=${START_CLOCK:-30}
PLAY_CLOCK=${PLAY_CLOCK:-3}
ROLES=${ROLES:-0 1}
REPEAT=${REPEAT:-1}
GAMES_DIR=${GAMES_DIR:-$ROOT/../shared/games}
GDLC_ARGS=${GDLC_ARGS:-}
SANCHO_JAVA_OPTS=${SANCHO_JAVA_OPTS:--Xmx4g}
export GDLC_CACHE_DIR=${GDLC_CACHE_DIR:-$ROOT/target/match-compile/cache}
J=/usr/share/java
OUT=$ROOT/target/sancho
GDLC=$ROOT/target/release/gdlc-player

if [ $# -eq 0 ]; then
  sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi

# Everything needed, each missing piece said plainly.
missing=0
need() { # need FILE WHAT
  if [ ! -e "$1" ]; then
    echo "missing: $1 ($2)" >&2
    missing=1
  fi
}
need "$GGP_BASE/classes/org/ggp/base/server/GameServer.class" "ggp-base compiled: javac -d \$GGP_BASE/classes over \$GGP_BASE/src/main/java; set GGP_BASE"
need "$GGP_BASE/classes/external/JSON/JSONObject.class" "ggp-base's external.JSON classes, compiled with the rest"
need "$GGP_BASE/lib/Guava/guava-14.0.1.jar" "ggp-base's lib/ jars"
need "$SANCHO_LIB/sancho.jar" "Sancho 1.61c, from AlexLandau/gdl-perf lib/sancho; set SANCHO_LIB"
need "$SANCHO_LIB/log4j-api-2.0-rc1.jar" "beside sancho.jar in gdl-perf lib/sancho"
need "$SANCHO_LIB/lucene-core-4.8.1.jar" "beside sancho.jar in gdl-perf lib/sancho"
for jar in commons-configuration commons-lang commons-logging jna jna-platform trove4j disruptor junit4 hamcrest; do
  need "$J/$jar.jar" "Debian package (apt-get install libcommons-configuration-java libcommons-lang-java libcommons-logging-java libjna-java libjna-platform-java libtrove3-java libdisruptor-java junit4 libhamcrest-java)"
done
need "$GDLC" "cargo build --release -p gdlc-player --bin gdlc-player"
command -v javac > /dev/null || { echo "missing: javac (JDK 11 or later)" >&2; missing=1; }
[ $missing = 0 ] || exit 1

GGP_CP=$GGP_BASE/classes:$(find "$GGP_BASE/lib" -name '*.jar' ! -name '*sources*' ! -path '*Jython*' | sort | tr '\n' ':')
SANCHO_CP=$SANCHO_LIB/sancho.jar:$SANCHO_LIB/log4j-api-2.0-rc1.jar:$SANCHO_LIB/lucene-core-4.8.1.jar
SANCHO_CP=$SANCHO_CP:$GGP_BASE/classes:$GGP_BASE/lib/Guava/guava-14.0.1.jar:$J/junit4.jar:$J/hamcrest.jar
SANCHO_CP=$SANCHO_CP:$J/commons-configuration.jar:$J/commons-lang.jar:$J/commons-logging.jar
SANCHO_CP=$SANCHO_CP:$J/jna.jar:$J/jna-platform.jar:$J/trove4j.jar:$J/disruptor.jar

# Our two Java programs, compiled into target/sancho/classes when changed.
CLASSES=$OUT/classes
mkdir -p "$CLASSES"
if [ ! -e "$CLASSES/SanchoLauncher.class" ] || [ "$HERE/SanchoLauncher.java" -nt "$CLASSES/SanchoLauncher.class" ]; then
  javac -nowarn -d "$CLASSES" -cp "$SANCHO_CP" "$HERE/SanchoLauncher.java" || exit 1
fi
if [ ! -e "$CLASSES/MatchRunner.class" ] || [ "$HERE/MatchRunner.java" -nt "$CLASSES/MatchRunner.class" ]; then
  javac -nowarn -d "$CLASSES" -cp "$GGP_CP" "$HERE/MatchRunner.java" || exit 1
fi

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -- "-$p" 2> /dev/null; done
  pids=()
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

wait_port() { # wait_port PORT PID SECONDS
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    ss -ltn "sport = :$1" | grep -q LISTEN && return 0
    kill -0 "$2" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}

free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 30000))
    ss -ltn "sport = :$p" | grep -q LISTEN || { echo "$p"; return; }
  done
}

printf '%-22s %-9s %-9s %5s %8s %8s %7s %-15s %s\n' game gdlc_role goals steps gdlc_err sancho_err clocks load seconds
total_g=0 total_s=0 n=0 wins=0 draws=0 losses=0
for game in "$@"; do
  kif=$GAMES_DIR/$game.kif
  if [ ! -f "$kif" ]; then
    echo "missing game: $kif" >&2
    continue
  fi
  for role in $ROLES; do
    for ((rep = 1; rep <= REPEAT; rep++)); do
      stamp=$(date +%Y%m%d-%H%M%S)
      dir=$OUT/runs/$game-r$role-$stamp-$rep
      mkdir -p "$dir/sancho/data/games" "$dir/sancho/data/cfg"
      name=gdlcbench
      echo "USE_AFFINITY=false" > "$dir/sancho/data/cfg/$name.properties"
      [ -n "${SANCHO_THREADS:-}" ] && echo "CPU_INTENSIVE_THREADS=$SANCHO_THREADS" >> "$dir/sancho/data/cfg/$name.properties"

      sport=$(free_port)
      (cd "$dir/sancho" && COMPUTERNAME=$name exec setsid java $SANCHO_JAVA_OPTS -cp "$CLASSES:$SANCHO_CP" SanchoLauncher "$sport") > "$dir/sancho.log" 2>&1 &
      spid=$!
      pids+=("$spid")
      gport=$(free_port)
      [ "$gport" = "$sport" ] && gport=$((sport + 1))
      setsid "$GDLC" --host 127.0.0.1 --port "$gport" $GDLC_ARGS > "$dir/gdlc.out" 2> "$dir/gdlc.log" &
      gpid=$!
      pids+=("$gpid")
      if ! wait_port "$sport" "$spid" 30; then
        echo "Sancho did not start; see $dir/sancho.log" >&2
        cleanup
        continue
      fi
      if ! wait_port "$gport" "$gpid" 30; then
        echo "gdlc-player did not start; see $dir/gdlc.log" >&2
        cleanup
        continue
      fi

      if [ "$role" = 0 ]; then seats="127.0.0.1:$gport 127.0.0.1:$sport"; else seats="127.0.0.1:$sport 127.0.0.1:$gport"; fi
      (cd "$dir" && java -cp "$CLASSES:$GGP_CP" MatchRunner "$kif" "$START_CLOCK" "$PLAY_CLOCK" $seats --save "$dir/match.json") > "$dir/result.txt" 2> "$dir/runner.log"
      load=$(uptime | sed 's/.*load average: //; s/ //g')
      for who in "gdlc-player:$gpid:$dir/gdlc.log" "Sancho:$spid:$dir/sancho.log"; do
        IFS=: read -r label p log <<< "$who"
        if ! kill -0 "$p" 2> /dev/null; then
          wait "$p"
          echo "$game role $role: $label exited during the match (status $?); see $log" >&2
        fi
      done
      cleanup
      line=$(grep '^RESULT' "$dir/result.txt")
      if [ -z "$line" ]; then
        echo "no result for $game role $role; see $dir/runner.log" >&2
        continue
      fi
      echo "$line" >> "$OUT/results.log"
      field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$line"; }
      goals=$(field goals) errs=$(field errors) steps=$(field steps) secs=$(field seconds)
      other=$((1 - role))
      IFS=, read -r -a g <<< "$goals"
      IFS=, read -r -a e <<< "$errs"
      gg=${g[$role]} sg=${g[$other]}
      printf '%-22s %-9s %-9s %5s %8s %8s %7s %-15s %s\n' "$game" "$role" "$gg-$sg" "$steps" "${e[$role]}" "${e[$other]}" "$START_CLOCK/$PLAY_CLOCK" "$load" "$secs"
      if [ "$gg" != - ] && [ "$sg" != - ]; then
        total_g=$((total_g + gg)) total_s=$((total_s + sg)) n=$((n + 1))
        if ((gg > sg)); then wins=$((wins + 1)); elif ((gg == sg)); then draws=$((draws + 1)); else losses=$((losses + 1)); fi
      fi
    done
  done
done
if ((total_g + total_s > 0)); then
  share=$(awk -v a="$total_g" -v b="$total_s" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
else
  share=-
fi
echo "total: $n matches, gdlc $wins won $draws drawn $losses lost; points gdlc $total_g sancho $total_s; gdlc's share $share%"
