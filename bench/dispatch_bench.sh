#!/usr/bin/env bash
# bench/dispatch_bench.sh - dispatch capacity of one gateway (issue 11, Scale)
# (called by bench/run.sh, i.e. `make bench`; runs alone too).
#
# Starts a private PostgreSQL cluster (scripts/pg.sh, default settings with
# fsync on, as for `make up` and bench/service_bench.sh), one build/gateway
# with its default options and CurveZMQ keys, and measures with real
# processes on 127.0.0.1 (free ports):
#   1. dispatch capacity: N echo workers (`build/worker --echo`, a BENCHMARK
#      TOOL that answers every job at once with an empty result, without
#      solving) and one sweep of DISPATCH_JOBS short pendulum jobs; jobs/s from
#      the POST until the gateway reports every job done (each result stored);
#   2. end to end: the same sweep on two real workers (the solver runs).
# Prints one markdown table.  Everything it starts is stopped on exit (trap,
# by PID), every wait is bounded.  Progress goes to standard error.
#
# Knobs (environment): DISPATCH_JOBS (20000), DISPATCH_ECHO ("1 2 4": echo
# workers, added one group after the other), DISPATCH_SLOTS (slots of each echo
# worker, 64), DISPATCH_REAL_SLOTS ("2 32 auto": slots of each of the two real
# workers, one configuration after the other), DISPATCH_REPEAT (2),
# DISPATCH_REAL (1; 0 = no end-to-end row),
# GATEWAY and WORKER (binaries to measure, default build/gateway and
# build/worker: GATEWAY=/path/to/old/gateway measures another commit's
# dispatcher with the same echo workers), DISPATCH_LABEL (first column),
# DISPATCH_POLL (0.1: seconds between two GET /api/v1/sweeps/{id} of the
# client; each cost PostgreSQL 30 to 65 ms on a 20,000-job sweep before
# sql/015 kept the counts, 0.2 ms since), KEEP_TMP (1 = keep the temporary
# directory and its logs).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
JOBS=${DISPATCH_JOBS:-20000}
ECHO_STEPS=${DISPATCH_ECHO-"1 2 4"}
SLOTS=${DISPATCH_SLOTS:-64}
REAL_SLOTS=${DISPATCH_REAL_SLOTS:-"2 32 auto"}
REPEAT=${DISPATCH_REPEAT:-2}
REAL=${DISPATCH_REAL:-1}
POLL=${DISPATCH_POLL:-0.1}
GATEWAY=${GATEWAY:-$ROOT/build/gateway}
WORKER=${WORKER:-$ROOT/build/worker}
LABEL=${DISPATCH_LABEL:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo this)}
CLIENT="python3 $ROOT/bench/service/client.py"
CPU="python3 $ROOT/bench/service/cpu.py"
T_START=$SECONDS

log() { echo "[dispatch_bench $(date +%H:%M:%S)] $*" >&2; }
die() {
  log "FAILED: $*"
  local f
  for f in "$TMP"/*.log; do [ -s "$f" ] && { echo "----- $f (last 10 lines)" >&2; tail -n 10 "$f" >&2; }; done
  exit 1
}
. "$ROOT/bench/service/lib.sh"

# ---- build, PostgreSQL, keys, gateway ---------------------------------------------------
log "building build/gateway and build/worker (if out of date)"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" build/gateway build/worker >&2 \
  || die "cannot build build/gateway and build/worker"
[ -x "$GATEWAY" ] && [ -x "$WORKER" ] || die "no $GATEWAY or $WORKER"
PEND=$ROOT/tests/integration/data/pendulum.json
TMP=$(mktemp -d /tmp/mbsweep-dispatch.XXXXXX) || die "mktemp"
chmod 755 "$TMP"
TOKEN=bench-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
PGDIR=$TMP/pg
log "starting PostgreSQL in $PGDIR"
bash "$ROOT/scripts/pg.sh" start "$PGDIR" >"$TMP/pg-start.log" 2>&1 || die "PostgreSQL did not start"
DB=$(bash "$ROOT/scripts/pg.sh" conninfo "$PGDIR")
PG_VERSION=$(psql "$DB" -XAtc "SHOW server_version" | cut -d' ' -f1)
if [ "${DISPATCH_PG_STATS:-0}" = 1 ]; then
  # where PostgreSQL's time goes (one restart to load the library)
  psql "$DB" -Xqc "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" >/dev/null
  bash "$ROOT/scripts/pg.sh" restart "$PGDIR" >>"$TMP/pg-start.log" 2>&1 || die "PostgreSQL did not restart"
  psql "$DB" -Xqc "CREATE EXTENSION pg_stat_statements" >/dev/null || die "no pg_stat_statements"
  # slow statements' plans in the server log (for a closer look with KEEP_TMP=1)
  if [ -n "${DISPATCH_EXPLAIN_MS:-}" ]; then
    psql "$DB" -Xq -c "LOAD 'auto_explain'" -c "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'" \
      -c "ALTER SYSTEM SET auto_explain.log_min_duration = '${DISPATCH_EXPLAIN_MS}ms'" \
      -c "ALTER SYSTEM SET auto_explain.log_analyze = on" -c "SELECT pg_reload_conf()" >/dev/null
  fi
fi
sql() { psql "$DB" -XAtq -c "$1"; }

bench_curve_keys
port=$(free_port); zport=$(free_port)
BASE="http://127.0.0.1:$port"; ZMQ="tcp://127.0.0.1:$zport"
"$GATEWAY" --db "$DB" --port "$port" --zmq "$ZMQ" --token "$TOKEN" >"$TMP/gateway.log" 2>&1 &
GW_PID=$!; PIDS+=("$GW_PID")
end=$((SECONDS + 20))
until curl -sf --max-time 2 -o /dev/null "$BASE/healthz"; do
  kill -0 "$GW_PID" 2>/dev/null || die "the gateway exited at start-up"
  [ $SECONDS -lt $end ] || die "the gateway did not answer /healthz within 20 s"
  sleep 0.1
done
MID=$($CLIENT "$BASE" "$TOKEN" model "$PEND") || die "cannot store the pendulum model"

# ---- CPU accounting (bench/service/cpu.py; as in bench/service_bench.sh) -----------------
# mark / cpu_json: bench/service/lib.sh

# ---- workers ----------------------------------------------------------------------------
WK_PIDS=()
NW=0
# start_workers N ARGS...: N more workers, then wait until the gateway sees them all
start_workers() {
  local n=$1 i; shift
  for i in $(seq 1 "$n"); do
    NW=$((NW + 1))
    "$WORKER" --connect "$ZMQ" --id "w$NW" "$@" >"$TMP/worker-$NW.log" 2>&1 &
    WK_PIDS+=($!); PIDS+=($!)
  done
  $CLIENT "$BASE" "$TOKEN" workers "${#WK_PIDS[@]}" 20 || die "the workers did not register with the gateway"
}
stop_workers() {
  local p
  for p in "${WK_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${WK_PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  WK_PIDS=()
  $CLIENT "$BASE" "$TOKEN" workers 0 20 || die "the gateway still lists workers"
}

# sweep KIND: one sweep of $JOBS jobs, timed; appends a table row
T=$TMP/table.md
RUN=0
sweep() {
  local kind=$1 spec out sid nres split
  RUN=$((RUN + 1))
  spec='{"model":"'$MID'","name":"dispatch-'$RUN'","design":{"kind":"grid","seed":'$RUN'},
         "parameters":{"L":{"min":0.5,"max":2,"levels":'$JOBS'}},"solver":{"t_end":0.01},
         "responses":[{"name":"ymin","channel":"y","reduce":"min"}]}'
  mark a
  out=$($CLIENT "$BASE" "$TOKEN" sweep "$spec" --wait 300 --poll "$POLL") || die "the sweep ($kind) did not finish"
  mark b
  sid=$(jget "$out" id)
  nres=$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$sid'")
  [ "$nres" = "$JOBS" ] || die "sweep ($kind): $nres results stored, expected $JOBS"
  # exactly once: one result per job and a first attempt for each (no job ran twice)
  split=$(sql "SELECT string_agg(n::text, ' / ' ORDER BY w) FROM (SELECT r.worker_id w, count(*) n FROM results r
               JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$sid' GROUP BY 1) t")
  retried=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$sid' AND attempt <> 1")
  python3 - "$LABEL" "$kind" "$JOBS" "$(jget "$out" done_s)" "$split" "$retried" "$(cpu_json a b)" >>"$T" <<'PY'
import json, sys
label, kind, n, done, split, retried = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
cpu = json.loads(sys.argv[7]); by = cpu["by_prog"]
print("| %s | %s | %d | %.2f | %.0f | %s | %s | %.2f / %.2f / %.2f | %.0f %% |" % (label, kind, n, done, n / done,
      split, retried, by.get("gateway", 0), by.get("worker", 0), by.get("postgres", 0), cpu["other_pct"]))
PY
  log "$(tail -1 "$T")"
}

{
  echo "| gateway | workers | jobs | POST -> all done (s) | jobs/s | jobs per worker | jobs run more than once | CPU s: gateway / workers / PostgreSQL | CPU used by other processes |"
  echo "|---|---|---:|---:|---:|---|---:|---|---:|"
} >"$T"

# ---- 1. dispatch capacity with echo workers -----------------------------------------------
for n in $ECHO_STEPS; do
  start_workers $((n - ${#WK_PIDS[@]})) --echo --slots "$SLOTS"
  for _ in $(seq 1 "$REPEAT"); do sweep "$n echo (--echo --slots $SLOTS)"; done
done
stop_workers

# ---- 2. end to end with two real workers ---------------------------------------------------
if [ "$REAL" = 1 ]; then
  for sl in $REAL_SLOTS; do
    start_workers 2 --slots "$sl"
    for _ in $(seq 1 "$REPEAT"); do sweep "2 real (--slots $sl)"; done
    stop_workers
  done
fi

CPUNAME=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo
echo "### Dispatch capacity (bench/dispatch_bench.sh)"
echo
echo "machine: $(nproc) cores, $CPUNAME, $(date -u '+%Y-%m-%d %H:%M') UTC; PostgreSQL $PG_VERSION (fsync on);"
echo "one gateway ($GATEWAY, default options), sweeps of $JOBS pendulum jobs (t_end 0.01 s), POST -> every job done;"
echo "echo workers: build/worker --echo (benchmark tool: empty result at once, nothing solved); status polled every $POLL s"
echo
cat "$T"
echo
if [ "${DISPATCH_PG_STATS:-0}" = 1 ]; then
  echo "PostgreSQL's time by statement over the whole run (pg_stat_statements, top 12):"
  echo
  echo "| total (s) | calls | rows | ms per call | statement |"
  echo "|---:|---:|---:|---:|---|"
  sql "SELECT '| ' || round((total_exec_time + total_plan_time)::numeric / 1000, 2) || ' | ' || calls || ' | ' || rows
              || ' | ' || round(((total_exec_time + total_plan_time) / calls)::numeric, 3) || ' | '
              || left(regexp_replace(query, '\s+', ' ', 'g'), 90) || ' |'
       FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 12"
  echo
fi
log "done in $((SECONDS - T_START)) s"
