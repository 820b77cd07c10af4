#!/usr/bin/env bash
# bench/service_bench.sh - benchmark of the sweep service with real processes
# (called by bench/run.sh, i.e. `make bench`; runs alone too).
#
# Starts a private PostgreSQL cluster (scripts/pg.sh, default settings as for
# `make up`) in a temporary directory, build/gateway (default options) and
# build/worker processes on 127.0.0.1 with free ports, and prints four
# markdown tables:
#   1. end-to-end throughput of short jobs with two workers (POST of one sweep
#      of N short pendulum jobs -> every job done with its result stored), with
#      the solver's own time per job from the stored metrics;
#   2. latency of POST /api/v1/sweeps for a 10,000-job sweep (grid and Sobol'),
#      i.e. validation + expansion + one transaction storing every job;
#   3. requests per second of the gateway under wrk on loopback, for
#      GET /healthz and two database-backed GETs, at a few connection counts;
#   4. scaling of a compute-bound sweep from one worker to two.
# The machine may be shared: before starting, the script waits (bounded) for
# it to be quiet, and every row reports the CPU share that processes other
# than the benchmark's used meanwhile (bench/service/cpu.py).
# Everything it starts is stopped on exit (trap), every wait is bounded.
# Progress goes to standard error, the tables to standard output.
#
# Knobs (environment): BENCH_JOBS (2000), BENCH_REPEAT (3), BENCH_BIG (10000,
# a square), BENCH_WRK_SECONDS (10), BENCH_WRK_CONNS ("4 32 128"),
# BENCH_SCALE_JOBS (40), BENCH_SCALE_TEND (40), BENCH_WAIT_QUIET (30 s),
# BENCH_PG_FAST (0; 1 = fsync off), KEEP_TMP (1 = keep the temporary
# directory and its logs).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
JOBS=${BENCH_JOBS:-2000}
REPEAT=${BENCH_REPEAT:-3}
BIG=${BENCH_BIG:-10000}
WRK_SECONDS=${BENCH_WRK_SECONDS:-10}
WRK_CONNS=${BENCH_WRK_CONNS:-"4 32 128"}
SCALE_JOBS=${BENCH_SCALE_JOBS:-40}
SCALE_TEND=${BENCH_SCALE_TEND:-40}
WAIT_QUIET=${BENCH_WAIT_QUIET:-30}
CLIENT="python3 $ROOT/bench/service/client.py"
CPU="python3 $ROOT/bench/service/cpu.py"
T_START=$SECONDS

log() { echo "[service_bench $(date +%H:%M:%S)] $*" >&2; }

dump_logs() {
  [ -n "$TMP" ] || return 0
  local f
  for f in "$TMP"/*.log "$TMP"/pg/postgres.log; do
    [ -s "$f" ] && { echo "----- $f (last 20 lines)" >&2; tail -n 20 "$f" >&2; }
  done
}

die() { log "FAILED: $*"; dump_logs; exit 1; }
. "$ROOT/bench/service/lib.sh"

# kill_pid PID: stop one process we started (TERM, then KILL after 5 s)
kill_pid() {
  local p=$1
  kill -TERM "$p" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null
  wait "$p" 2>/dev/null
  return 0
}

# ---- prerequisites ------------------------------------------------------------------
missing=""
for c in curl psql python3 wrk timeout getconf; do command -v "$c" >/dev/null 2>&1 || missing="$missing $c"; done
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || [ -n "${PGBIN:-}" ] || missing="$missing postgresql"
[ -z "$missing" ] || die "missing:$missing (install with: make deps, i.e. scripts/deps.sh)"
log "building build/gateway and build/worker (if out of date)"
# (a make of its own: under `make bench` the parent's jobserver is not passed down)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" build/gateway build/worker >&2 \
  || die "cannot build build/gateway and build/worker"
PEND=$ROOT/tests/integration/data/pendulum.json
FOURBAR=$ROOT/examples/four_bar.json
[ -f "$PEND" ] && [ -f "$FOURBAR" ] || die "missing $PEND or $FOURBAR"
side=$(python3 -c "import math; print(math.isqrt($BIG))")
[ $((side * side)) = "$BIG" ] || die "BENCH_BIG must be a square for the grid design (got $BIG)"

TMP=$(mktemp -d /tmp/mbsweep-bench.XXXXXX) || die "mktemp"
chmod 755 "$TMP"
TOKEN=bench-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')

# ---- a quiet machine (bounded wait) ---------------------------------------------------
BUSY_BEFORE=$($CPU idle 1)
if [ "$BUSY_BEFORE" -gt 10 ]; then
  log "the machine is busy ($BUSY_BEFORE% of its CPU used by other processes); waiting up to $WAIT_QUIET s"
  end=$((SECONDS + WAIT_QUIET))
  while [ "$BUSY_BEFORE" -gt 10 ] && [ $SECONDS -lt $end ]; do BUSY_BEFORE=$($CPU idle 1); done
  [ "$BUSY_BEFORE" -gt 10 ] && log "still busy ($BUSY_BEFORE%): going on, the figures will suffer (see the last column)"
fi

# ---- PostgreSQL ---------------------------------------------------------------------
PGDIR=$TMP/pg
log "starting PostgreSQL in $PGDIR"
PG_FAST=${BENCH_PG_FAST:-0} bash "$ROOT/scripts/pg.sh" start "$PGDIR" >"$TMP/pg-start.log" 2>&1 \
  || { cat "$TMP/pg-start.log" >&2; die "PostgreSQL did not start"; }
DB_MAIN=$(bash "$ROOT/scripts/pg.sh" conninfo "$PGDIR")
DB_ACCEPT=${DB_MAIN/dbname=mbsweep/dbname=mbsweep_accept}
psql "$DB_MAIN" -Xqc "CREATE DATABASE mbsweep_accept" >/dev/null || die "cannot create database mbsweep_accept"
PG_VERSION=$(psql "$DB_MAIN" -XAtc "SHOW server_version" | cut -d' ' -f1)
PG_FSYNC=$(psql "$DB_MAIN" -XAtc "SHOW fsync")
DB=$DB_MAIN
sql() { psql "$DB" -XAtq -c "$1"; }
# statements slower than 0.1 s go to the server log (counted for table 3)
psql "$DB_MAIN" -Xq -c "ALTER SYSTEM SET log_min_duration_statement = 100" -c "SELECT pg_reload_conf()" >/dev/null \
  || die "cannot set log_min_duration_statement"
pg_slow() { grep -c 'LOG:  duration:' "$PGDIR/postgres.log" 2>/dev/null || true; }

# mark / cpu_json around a measurement: bench/service/lib.sh

# ---- gateway and workers ------------------------------------------------------------
bench_curve_keys
GW_PID=""; BASE=""; ZMQ=""
# start_gateway CONNINFO NAME: default options but port, ZeroMQ endpoint, token
start_gateway() {
  local db=$1 name=$2 port zport
  port=$(free_port); zport=$(free_port)
  BASE="http://127.0.0.1:$port"; ZMQ="tcp://127.0.0.1:$zport"
  "$ROOT/build/gateway" --db "$db" --port "$port" --zmq "$ZMQ" --token "$TOKEN" >"$TMP/$name.log" 2>&1 &
  GW_PID=$!; PIDS+=("$GW_PID")
  local end=$((SECONDS + 20))
  until curl -sf --max-time 2 -o /dev/null "$BASE/healthz"; do
    kill -0 "$GW_PID" 2>/dev/null || die "the gateway ($name) exited at start-up, see $name.log"
    [ $SECONDS -lt $end ] || die "the gateway ($name) did not answer /healthz within 20 s"
    sleep 0.1
  done
}
WK_PIDS=()
start_worker() {
  local name=$1
  "$ROOT/build/worker" --connect "$ZMQ" --id "$name" >"$TMP/worker-$name.log" 2>&1 &
  WK_PIDS+=($!); PIDS+=($!)
  $CLIENT "$BASE" "$TOKEN" workers "${#WK_PIDS[@]}" 15 || die "worker $name did not register with the gateway"
}
# gw_hist ROUTE: the gateway's own request-time histogram (/metrics) for a route:
# "requests <= 0.1 s, requests <= 1 s, all requests" (time from the request's headers to the reply)
gw_hist() {
  curl -s --max-time 5 "$BASE/metrics" | awk -v r="$1" '
    index($0, "mbsweep_http_request_seconds_bucket{route=\"" r "\",le=\"0.1\"}") == 1 { a = $2 }
    index($0, "mbsweep_http_request_seconds_bucket{route=\"" r "\",le=\"1\"}") == 1 { b = $2 }
    index($0, "mbsweep_http_request_seconds_bucket{route=\"" r "\",le=\"+Inf\"}") == 1 { c = $2 }
    END { print a + 0, b + 0, c + 0 }'
}

# ======================================================================================
# 2. POST /sweeps of a 10,000-job sweep.  On its own database (mbsweep_accept) with a
#    gateway and no worker, so that these jobs never run and do not load the others.
# ======================================================================================
log "table 2: POST /api/v1/sweeps with $BIG jobs (grid and sobol, $REPEAT times each)"
DB=$DB_ACCEPT
start_gateway "$DB_ACCEPT" gateway-accept
MID=$($CLIENT "$BASE" "$TOKEN" model "$PEND") || die "cannot store the pendulum model"
T2=$TMP/table2.md
{
  echo "| design | jobs | POST /sweeps latency (s), $REPEAT runs | median (s) | target < 1 s | CPU used by other processes |"
  echo "|---|---:|---|---:|---|---:|"
} >"$T2"
for kind in grid sobol; do
  lat=()
  mark a
  for i in $(seq 1 "$REPEAT"); do
    if [ "$kind" = grid ]; then
      design='{"kind":"grid","seed":'$i'}'
      params='{"L":{"min":0.5,"max":2,"levels":'$side'},"m":{"min":0.5,"max":2,"levels":'$side'}}'
    else
      design='{"kind":"sobol","samples":'$BIG',"seed":'$i'}'
      params='{"L":{"min":0.5,"max":2},"m":{"min":0.5,"max":2}}'
    fi
    spec='{"model":"'$MID'","name":"bench-accept-'$kind'-'$i'","design":'$design',"parameters":'$params',
           "solver":{"t_end":0.01},"responses":[{"name":"ymin","channel":"y","reduce":"min"}]}'
    out=$($CLIENT "$BASE" "$TOKEN" sweep "$spec") || die "POST of the $kind sweep failed"
    sid=$(jget "$out" id)
    [ "$(jget "$out" jobs)" = "$BIG" ] || die "the $kind sweep has $(jget "$out" jobs) jobs, expected $BIG"
    stored=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$sid'")
    [ "$stored" = "$BIG" ] || die "the $kind sweep stored $stored jobs, expected $BIG"
    lat+=("$(jget "$out" post_s)")
  done
  mark b
  python3 - "$kind" "$BIG" "$(cpu_json a b)" "${lat[@]}" >>"$T2" <<'PY'
import json, statistics, sys
kind, n, cpu, lat = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), [float(x) for x in sys.argv[4:]]
med = statistics.median(lat)
print("| %s | %d | %s | %.3f | %s | %.0f %% |" % (kind, n, ", ".join("%.3f" % x for x in lat), med,
      "met" if max(lat) < 1 else ("met by the median" if med < 1 else "**not met**"), cpu["other_pct"]))
PY
done
kill_pid "$GW_PID"

# ======================================================================================
# The service for tables 4, 1 and 3: a gateway on the main database.
# ======================================================================================
DB=$DB_MAIN
start_gateway "$DB_MAIN" gateway
MID=$($CLIENT "$BASE" "$TOKEN" model "$PEND") || die "cannot store the pendulum model"
FMID=$($CLIENT "$BASE" "$TOKEN" model "$FOURBAR") || die "cannot store the four-bar model"
# the examples too, so that GET /api/v1/models lists a realistic page
for f in "$ROOT"/examples/*.json; do $CLIENT "$BASE" "$TOKEN" model "$f" >/dev/null 2>&1; done
nmodels=$(sql "SELECT count(*) FROM models")

# ======================================================================================
# 4. Compute-bound sweep: one worker, then two.
# ======================================================================================
log "table 4: $SCALE_JOBS four-bar jobs (t_end $SCALE_TEND s) on 1 then 2 workers"
T4=$TMP/table4.md
{
  echo "| workers | jobs | wall time, POST -> all done (s) | jobs/s | speed-up | solver time per job, mean (s) | solver time, sum (s) | CPU s: gateway / workers / PostgreSQL | CPU used by other processes |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---|---:|"
} >"$T4"
scale_spec='{"model":"'$FMID'","name":"bench-scale","design":{"kind":"grid","seed":1},
  "parameters":{"w0":{"min":3,"max":7,"levels":'$SCALE_JOBS'}},"solver":{"t_end":'$SCALE_TEND'},
  "responses":[{"name":"rocker_max","channel":"rocker_angle","reduce":"max"}]}'
T_ONE=""
for nw in 1 2; do
  start_worker "w$nw"
  mark a
  out=$($CLIENT "$BASE" "$TOKEN" sweep "$scale_spec" --wait 150) || die "the scaling sweep ($nw workers) did not finish"
  mark b
  sid=$(jget "$out" id); wall=$(jget "$out" done_s)
  [ "$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$sid'")" = "$SCALE_JOBS" ] \
    || die "scaling sweep: not every result stored"
  read -r mean sum <<<"$(sql "SELECT avg(m.wall_seconds), sum(m.wall_seconds) FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$sid'" | tr '|' ' ')"
  [ -n "$T_ONE" ] || T_ONE=$wall
  python3 - "$nw" "$SCALE_JOBS" "$(cpu_json a b)" "$wall" "$T_ONE" "$mean" "$sum" >>"$T4" <<'PY'
import json, sys
nw, n, cpu = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
wall, one, mean, tot = map(float, sys.argv[4:8])
by = cpu["by_prog"]
print("| %d | %d | %.2f | %.1f | %.2f | %.3f | %.2f | %.2f / %.2f / %.2f | %.0f %% |" % (nw, n, wall, n / wall, one / wall,
      mean, tot, by.get("gateway", 0), by.get("worker", 0), by.get("postgres", 0), cpu["other_pct"]))
PY
done

# ======================================================================================
# 1. Throughput of short jobs, two workers.
# ======================================================================================
log "table 1: $REPEAT sweeps of $JOBS short pendulum jobs (t_end 0.01 s) on 2 workers"
T1=$TMP/table1.md
{
  echo "| run | jobs | POST /sweeps (s) | POST -> all done (s) | jobs/s | target >= 500 jobs/s | solver time per job: mean / median / p95 (µs) | jobs per worker | CPU s: gateway / workers / PostgreSQL | CPU used by other processes |"
  echo "|---:|---:|---:|---:|---:|---|---|---|---|---:|"
} >"$T1"
SID_DONE=""
for i in $(seq 1 "$REPEAT"); do
  spec='{"model":"'$MID'","name":"bench-throughput-'$i'","design":{"kind":"grid","seed":'$i'},
         "parameters":{"L":{"min":0.5,"max":2,"levels":'$JOBS'}},"solver":{"t_end":0.01},
         "responses":[{"name":"ymin","channel":"y","reduce":"min"}]}'
  mark a
  out=$($CLIENT "$BASE" "$TOKEN" sweep "$spec" --wait 60) || die "the throughput sweep did not finish"
  mark b
  sid=$(jget "$out" id); [ -n "$SID_DONE" ] || SID_DONE=$sid
  nres=$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$sid'")
  nmet=$(sql "SELECT count(*) FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$sid'")
  [ "$nres" = "$JOBS" ] && [ "$nmet" = "$JOBS" ] || die "throughput sweep: $nres results and $nmet metrics stored, expected $JOBS"
  stats=$(sql "SELECT avg(m.wall_seconds) * 1e6, percentile_cont(0.5) WITHIN GROUP (ORDER BY m.wall_seconds) * 1e6,
                      percentile_cont(0.95) WITHIN GROUP (ORDER BY m.wall_seconds) * 1e6
               FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$sid'" | tr '|' ' ')
  split=$(sql "SELECT string_agg(n::text, ' / ' ORDER BY w) FROM (SELECT r.worker_id w, count(*) n FROM results r
               JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$sid' GROUP BY 1) t")
  # shellcheck disable=SC2086
  python3 - "$i" "$JOBS" "$(jget "$out" post_s)" "$(jget "$out" done_s)" "$split" "$(cpu_json a b)" $stats >>"$T1" <<'PY'
import json, sys
run, n, post, done, split = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
cpu = json.loads(sys.argv[6]); mean, med, p95 = map(float, sys.argv[7:10])
rate = n / done
by = cpu["by_prog"]
print("| %s | %d | %.3f | %.2f | %.0f | %s | %.0f / %.0f / %.0f | %s | %.2f / %.2f / %.2f | %.0f %% |" % (
      run, n, post, done, rate, "met" if rate >= 500 else "**not met**", mean, med, p95, split,
      by.get("gateway", 0), by.get("worker", 0), by.get("postgres", 0), cpu["other_pct"]))
PY
done

# ======================================================================================
# 3. wrk against the gateway (both workers connected and idle).
# ======================================================================================
log "table 3: wrk, $WRK_SECONDS s per run, 2 threads, connections: $WRK_CONNS"
T3=$TMP/table3.md
{
  echo "| request | connections | requests/s | latency p50 (ms) | p90 (ms) | p99 (ms) | max (ms) | socket errors / non-2xx | gateway: requests over 0.1 s / over 1 s | PostgreSQL: statements over 0.1 s | CPU used by other processes |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|"
} >"$T3"
for path in /healthz "/api/v1/sweeps/$SID_DONE" /api/v1/models; do
  code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$BASE$path")
  [ "$code" = 200 ] || die "GET $path answers $code before the load test"
  label="GET $path"; route=healthz
  [ "$path" = "/api/v1/sweeps/$SID_DONE" ] && { label="GET /api/v1/sweeps/{id} ($JOBS jobs, done)"; route=sweeps_get; }
  [ "$path" = /api/v1/models ] && { label="GET /api/v1/models ($nmodels models)"; route=models_list; }
  for c in $WRK_CONNS; do
    read -r h0a h0b h0c <<<"$(gw_hist "$route")"
    s0=$(pg_slow)
    mark a
    timeout $((WRK_SECONDS + 30)) wrk -t2 -c"$c" -d"${WRK_SECONDS}s" --timeout 5s \
        -s "$ROOT/bench/service/wrk_report.lua" "$BASE$path" >"$TMP/wrk.out" 2>&1 \
      || { cat "$TMP/wrk.out" >&2; die "wrk failed on $path with $c connections"; }
    mark b
    line=$(grep '^BENCH ' "$TMP/wrk.out") || { cat "$TMP/wrk.out" >&2; die "no wrk report"; }
    kill -0 "$GW_PID" 2>/dev/null || die "the gateway died under load ($path, $c connections)"
    other=$(python3 -c 'import json,sys; print("%.0f" % json.loads(sys.argv[1])["other_pct"])' "$(cpu_json a b)")
    read -r h1a h1b h1c <<<"$(gw_hist "$route")"
    slow="$(( (h1c - h1a) - (h0c - h0a) )) / $(( (h1c - h1b) - (h0c - h0b) )) of $((h1c - h0c))"
    pgslow=$(( $(pg_slow) - s0 ))
    # BENCH requests duration rps p50 p90 p99 max errors non2xx
    set -- $line
    printf '| %s | %s | %.0f | %.2f | %.2f | %.2f | %.1f | %s / %s | %s | %s | %s %% |\n' \
      "$label" "$c" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "$slow" "$pgslow" "$other" >>"$T3"
  done
done

# ======================================================================================
CPUNAME=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo
echo "### Service (bench/service_bench.sh)"
echo
echo "machine: $(nproc) cores, $CPUNAME, $(date -u +%Y-%m-%d); PostgreSQL $PG_VERSION (fsync $PG_FSYNC);"
echo "gateway with default options (4 HTTP threads, heartbeat 1 s), workers with 2 slots, all on 127.0.0.1;"
echo "CPU used by other processes just before the start: $BUSY_BEFORE %; last columns: CPU used by processes"
echo "other than the benchmark's during the row, in % of the whole machine"
echo
echo "1. Throughput of short jobs: one sweep of $JOBS pendulum jobs (solver.t_end = 0.01 s, 10 steps each), 2 workers"
echo
cat "$T1"
echo
echo "2. Acceptance of a $BIG-job sweep: latency of POST /api/v1/sweeps (validation, expansion, one transaction with COPY)"
echo
cat "$T2"
echo
echo "3. Gateway under wrk (2 threads, ${WRK_SECONDS} s per row, keep-alive, loopback; wrk shares the 2 cores)."
echo "   Percentiles are wrk's, which corrects for coordinated omission: a few stalled requests raise them a lot;"
echo "   the gateway's own histogram (/metrics, headers received -> reply queued) counts the slow requests, and"
echo "   PostgreSQL's log (log_min_duration_statement = 100 ms) the slow statements of the same interval."
echo
cat "$T3"
echo
echo "4. Compute-bound sweep: $SCALE_JOBS four-bar jobs (examples/four_bar.json, t_end = $SCALE_TEND s), 1 vs 2 workers"
echo
cat "$T4"
echo
log "done in $((SECONDS - T_START)) s"
