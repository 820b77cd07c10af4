#!/usr/bin/env bash
# bench/web_poll.sh - issue 10's cheap progress polling: the time of the
# sweeps list's poll (GET /api/v1/sweeps as web/src/Sweeps.jsx sends it,
# every 2 s while a sweep is queued or running) with a done sweep of 10^5
# jobs and one of 10^4 inserted in bulk (tests/integration/bulk.sh) and a queued
# sweep of 64 jobs (no worker: it stays queued, so its counts are live).
# Each gateway of GATEWAYS ("name:path ...", default "new:build/gateway";
# e.g. "old:/tmp/old/gateway new:build/gateway old:/tmp/old/gateway" to
# compare two binaries in the same minute) is started in turn on the same
# database, given 3 s for its dispatcher's passes (a newer gateway stores
# the finished sweeps' counts then), and polled ROUNDS times (default 15)
# with curl: the median and the quartiles of time_total, without and with
# ?best=r1 (the best value of a response is counted at every poll).
# DB_JIT=off: JIT compilation turned off for the whole database (ALTER
# DATABASE), so that an older gateway's poll can be timed without it too.
source "$(dirname "$0")/../tests/integration/lib.sh"
ROUNDS=${ROUNDS:-15}
GATEWAYS=${GATEWAYS:-new:$ROOT/build/gateway}
it_init webpoll
DEVBUILD_SAVED=$DEVBUILD
DEVBUILD=${GATEWAYS%% *}; DEVBUILD=$(dirname "${DEVBUILD#*:}")   # the first gateway stores the model
start_gateway --no-warm
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
source "$ROOT/tests/integration/bulk.sh"
S4=$(bulk_sweep 10000); S5=$(bulk_sweep 100000)
Q=$(post_sweep "{\"model\":\"$MID\",\"parameters\":{\"L\":{\"values\":[$(seq -s, 1 64)]}}}")
sql "ANALYZE jobs; ANALYZE results; ANALYZE metrics" >/dev/null || fail "analyze"
[ "${DB_JIT:-}" = off ] && { sql "ALTER DATABASE $DBNAME SET jit = off" >/dev/null || fail "jit off"; echo "jit off for the database"; }
kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
# stats N...: median and quartiles (ms) of the times in seconds
stats() { python3 -c 'import sys,statistics as s; v=sorted(float(x)*1e3 for x in sys.argv[1:]); q=s.quantiles(v,n=4); print("%.1f | %.1f / %.1f" % (s.median(v), q[0], q[2]))' "$@"; }
poll() {   # poll QUERY: ROUNDS times, prints the times
  local i
  for i in $(seq 1 "$ROUNDS"); do curl -s -o /dev/null -w '%{time_total}\n' "$BASE/api/v1/sweeps$1"; done
}
echo "sweeps: $S5 (10^5 jobs, done), $S4 (10^4, done), $Q (64, queued)"
echo "| gateway | load | poll, median ms | quartiles ms | with ?best=r1, median ms | quartiles ms | finished sweeps with stored counts |"
echo "|---|---|---|---|---|---|---|"
for g in $GATEWAYS; do
  name=${g%%:*}; bin=${g#*:}
  DEVBUILD=$(dirname "$bin")
  start_gateway --no-warm
  sleep 3
  stored=$(sql "SELECT count(*) FILTER (WHERE summary_at = finished_at) || ' of ' || count(*) FROM sweeps
                WHERE status IN ('done','cancelled')" 2>/dev/null || echo "n/a")
  poll "" >/dev/null   # one poll first: the statement's plan and the pages warm
  a=$(stats $(poll ""))
  b=$(stats $(poll "?best=r1"))
  echo "| $name | $(cut -d' ' -f1 /proc/loadavg) | ${a% |*} | ${a#*| } | ${b% |*} | ${b#*| } | ${stored:-n/a} |"
  kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
done
DEVBUILD=$DEVBUILD_SAVED
