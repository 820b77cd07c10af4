#!/usr/bin/env bash
# bench/summary_stall.sh - how long the dispatcher stops while a large sweep's
# stored summary is made (issue 11; sql/012_sweep_summary.sql, gateway/summary.c).
#
# Starts a private PostgreSQL cluster (scripts/pg.sh, fsync on), one gateway
# (GATEWAY, default build/gateway) with CurveZMQ keys and 2 echo workers
# (`build/worker --echo --slots 64`, the BENCHMARK TOOL of bench/dispatch_bench.sh:
# empty results at once, nothing solved), and a done sweep of SUMMARY_BIG jobs
# (100000) loaded by SQL (tests/integration/bulk.sh).  Each of SUMMARY_REPEAT (3)
# runs: a sweep of SUMMARY_JOBS (20000) short jobs is posted and, 1.5 s later,
# the large sweep is made to finish again (its counts and summary dropped, as
# a bulk load leaves it): the dispatcher counts it and its summary is made
# again while the short sweep is dispatched.  Printed per run: the short
# sweep's rate and the longest pause between two of its jobs' finished_at (the
# result writes; normally tens of ms between two batches), and whether the
# large sweep's summary was made.  Everything started is stopped on exit.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BIG=${SUMMARY_BIG:-100000}
JOBS=${SUMMARY_JOBS:-20000}
REPEAT=${SUMMARY_REPEAT:-3}
GATEWAY=${GATEWAY:-$ROOT/build/gateway}
WORKER=${WORKER:-$ROOT/build/worker}
CLIENT="python3 $ROOT/bench/service/client.py"
CPU="python3 $ROOT/bench/service/cpu.py"
LABEL=${SUMMARY_LABEL:-$GATEWAY}

log() { echo "[summary_stall $(date +%H:%M:%S)] $*" >&2; }
die() { log "FAILED: $*"; exit 1; }
fail() { die "$@"; }
. "$ROOT/bench/service/lib.sh"
. "$ROOT/tests/integration/bulk.sh"

make -s -C "$ROOT" build/gateway build/worker >&2 || die "cannot build"
TMP=$(mktemp -d /tmp/mbsweep-stall.XXXXXX) || die "mktemp"
chmod 755 "$TMP"
PGDIR=$TMP/pg
bash "$ROOT/scripts/pg.sh" start "$PGDIR" >"$TMP/pg-start.log" 2>&1 || die "PostgreSQL did not start"
DB=$(bash "$ROOT/scripts/pg.sh" conninfo "$PGDIR")
sql() { psql "$DB" -XAtq -c "$1"; }
bench_curve_keys
TOKEN=bench-$$
port=$(free_port); zport=$(free_port)
BASE="http://127.0.0.1:$port"; ZMQ="tcp://127.0.0.1:$zport"
"$GATEWAY" --db "$DB" --port "$port" --zmq "$ZMQ" --token "$TOKEN" >"$TMP/gateway.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 1 200); do curl -sf -o /dev/null "$BASE/healthz" && break; sleep 0.1; done
MID=$($CLIENT "$BASE" "$TOKEN" model "$ROOT/tests/integration/data/pendulum.json") || die "cannot store the model"
log "loading a done sweep of $BIG jobs"
BIGID=$(bulk_sweep "$BIG")
summarised() { [ "$(sql "SELECT summary_at = finished_at FROM sweeps WHERE id = '$BIGID'")" = t ]; }
for _ in $(seq 1 600); do summarised && break; sleep 0.1; done
summarised || die "the large sweep got no summary"
for i in 1 2; do "$WORKER" --connect "$ZMQ" --id "w$i" --echo --slots 64 >"$TMP/worker-$i.log" 2>&1 & PIDS+=("$!"); done
$CLIENT "$BASE" "$TOKEN" workers 2 20 || die "the workers did not register"

echo "| gateway | run | jobs/s | longest pause between result writes (ms) | large sweep summarised | load (1 min) |"
echo "|---|---:|---:|---:|---|---:|"
for run in $(seq 1 "$REPEAT"); do
  spec='{"model":"'$MID'","name":"stall-'$run'","design":{"kind":"grid"},
         "parameters":{"L":{"min":0.5,"max":2,"levels":'$JOBS'}},"solver":{"t_end":0.01}}'
  $CLIENT "$BASE" "$TOKEN" sweep "$spec" --wait 300 --poll 0.1 >"$TMP/out-$run.json" &
  cpid=$!
  sleep 1.5
  sql "UPDATE sweeps SET counts = NULL, summary_at = NULL, finished_at = now() WHERE id = '$BIGID'" >/dev/null
  wait "$cpid" || die "the short sweep did not finish"
  for _ in $(seq 1 300); do summarised && break; sleep 0.1; done
  sid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/out-$run.json")
  rate=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.0f" % (int(sys.argv[2]) / d["done_s"]))' "$TMP/out-$run.json" "$JOBS")
  gap=$(sql "SELECT round(max(g) * 1000) FROM (SELECT extract(epoch FROM finished_at - lag(finished_at) OVER (ORDER BY finished_at)) g
             FROM jobs WHERE sweep_id = '$sid') t")
  echo "| $LABEL | $run | $rate | $gap | $(summarised && echo yes || echo no) | $(cut -d' ' -f1 /proc/loadavg) |"
done
