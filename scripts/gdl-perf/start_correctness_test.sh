#!/usr/bin/env bash
# gdl-perf's correctness test for gdlc:
#
#   start_correctness_test.sh GAME_FILE OUTPUT_FILE STATE_CHANGES
#
# writes to OUTPUT_FILE the record of random games (`!R!`, then per state
# `!T!false`, one `!L!` line per role and `!C!`, per game `!T!true` and
# `!G!`, then `!F!`; `!E!` on error) until a game ends after more than
# STATE_CHANGES joint moves. See start_perf_test.sh.
GDLC_PERF_MODE=correctness
# Sourced rather than run, so that $0, the name its messages give, stays
# this script's.
. "$(dirname "$0")/start_perf_test.sh"
