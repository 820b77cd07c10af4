# tests/integration/lib.sh - helpers for the service's integration tests.
#
# Source it, then call it_init.  Every process started through these helpers
# is recorded and killed on exit (trap), whatever happened; the private
# PostgreSQL cluster and the temporary directory go too.  Loops are bounded
# (wait_until TIMEOUT ...), ports are free ones chosen at run time.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IT_PIDS=()
IT_TMP=""
IT_PG=""
IT_OWN_PG=0
TOKEN=test-token-0123456789
DEVBUILD=${MBSWEEP_TEST_BUILD:-$ROOT/build}   # programs under test

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
fail() { log "FAIL: $*"; it_dump_logs; exit 1; }
ok() { log "ok: $*"; }

it_dump_logs() {
  [ -n "$IT_TMP" ] || return 0
  for f in "$IT_TMP"/*.log; do [ -f "$f" ] && { echo "----- $(basename "$f") (last 30 lines)" >&2; tail -n 30 "$f" >&2; }; done
}

# it_mkdir: the test's temporary directory IT_TMP.  Its name also goes into
# the environment (MBSWEEP_IT_RUN) of every process started from here on, by
# which it_ours tells this test's processes from others.
it_mkdir() {
  IT_TMP=$(mktemp -d /tmp/mbsweep-it.XXXXXX); chmod 755 "$IT_TMP"
  export MBSWEEP_IT_RUN=$IT_TMP
}

# it_ours PID: PID is a process started from this test, not one that took
# the pid of a recorded process that has ended: pids wrap around within
# minutes on a busy machine (pid_max 32768: about 10 minutes while 7 agents
# build and test here), and a recorded pid signalled blindly at the end of a
# test stops whatever process took it, another suite's gateway included.
# Ours: a child of this shell (only this shell makes those; one just forked
# has not yet the environment it will run with), or a process whose
# environment says MBSWEEP_IT_RUN=$IT_TMP (those started through make up,
# no longer children).
it_ours() {
  [ -n "$IT_TMP" ] || return 1
  local pp; pp=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
  [ -n "$pp" ] && { [ "$pp" = "$$" ] || [ "$pp" = "${BASHPID:-$$}" ] ||
    grep -qszxF "MBSWEEP_IT_RUN=$IT_TMP" "/proc/$1/environ"; }
}

it_cleanup() {
  local p mine=()
  # only the recorded processes that are still this test's own
  for p in "${IT_PIDS[@]}"; do it_ours "$p" && mine+=("$p"); done
  for p in "${mine[@]}"; do kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 1 30); do
    local alive=0
    for p in "${mine[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break; sleep 0.1
  done
  for p in "${mine[@]}"; do it_ours "$p" && kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ "$IT_OWN_PG" = 1 ] && [ -n "$IT_PG" ] && bash "$ROOT/scripts/pg.sh" stop "$IT_PG" >/dev/null 2>&1
  [ -n "$IT_TMP" ] && [ "${KEEP_TMP:-0}" != 1 ] && rm -rf "$IT_TMP"
  return 0
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# it_init NAME: temp dir, PostgreSQL (shared by the suite through IT_PG_DIR,
# else private), a fresh database for this test.
it_init() {
  trap it_cleanup EXIT
  trap 'exit 1' INT TERM
  it_mkdir
  if [ -n "${IT_PG_DIR:-}" ]; then IT_PG=$IT_PG_DIR
  else IT_PG=$IT_TMP/pg; IT_OWN_PG=1; PG_FAST=1 bash "$ROOT/scripts/pg.sh" start "$IT_PG" >/dev/null || fail "postgres"; fi
  local base; base=$(bash "$ROOT/scripts/pg.sh" conninfo "$IT_PG")
  DBNAME="it_${1}_$$"
  psql_admin -qc "CREATE DATABASE $DBNAME" >/dev/null || fail "create database"
  DB=${base/dbname=mbsweep/dbname=$DBNAME}
  it_keys
  HTTP_PORT=$(free_port); ZMQ_PORT=$(free_port)
  BASE="http://127.0.0.1:$HTTP_PORT"
  ZMQ="tcp://127.0.0.1:$ZMQ_PORT"
}

# it_keys: CurveZMQ keys for this test (gateway --curve-keygen-dir), passed
# to every gateway and worker started from here, and to those the tests
# start themselves, through the environment.
it_keys() {
  KEYS=$IT_TMP/keys
  "$DEVBUILD/gateway" --curve-keygen-dir "$KEYS" >/dev/null || fail "key generation"
  export MBSWEEP_CURVE_SECRET_FILE=$KEYS/server.key MBSWEEP_CURVE_ALLOW=$KEYS/workers.allow
  export MBSWEEP_SERVER_KEY=$KEYS/server.pub MBSWEEP_CURVE_KEY_FILE=$KEYS/worker.key
}

psql_admin() { psql "$(bash "$ROOT/scripts/pg.sh" conninfo "$IT_PG" | sed 's/dbname=mbsweep/dbname=postgres/')" -X "$@"; }
sql() { psql "$DB" -X -tAq -c "$1"; }

# start_gateway [ARGS...]: background gateway; sets GW_PID; waits for /healthz.
start_gateway() {
  "$DEVBUILD/gateway" --db "$DB" --port "$HTTP_PORT" --zmq "$ZMQ" --token "$TOKEN" \
      --heartbeat-ms 200 --lease 3 --backoff 0.2 "$@" >>"$IT_TMP/gateway.log" 2>&1 &
  GW_PID=$!; IT_PIDS+=("$GW_PID")
  wait_until 20 curl -sf -o /dev/null "$BASE/healthz" || fail "gateway did not come up"
}

# start_gateway_b [ARGS...]: a second gateway on the same database and new
# free ports (log gateway-b.log); sets GW_B, HTTP_B, ZMQ_PORT_B.
start_gateway_b() {
  HTTP_B=$(free_port); ZMQ_PORT_B=$(free_port)
  "$DEVBUILD/gateway" --db "$DB" --port "$HTTP_B" --zmq "tcp://127.0.0.1:$ZMQ_PORT_B" --token "$TOKEN" "$@" \
      >>"$IT_TMP/gateway-b.log" 2>&1 &
  GW_B=$!; IT_PIDS+=("$GW_B")
  wait_until 20 curl -sf -o /dev/null "http://127.0.0.1:$HTTP_B/healthz" || fail "gateway B did not come up"
}

# local_haproxy_cfg OUT HTTP_A ZMQ_A HTTP_B ZMQ_B: deploy/haproxy.cfg with
# local addresses into OUT: the proxy binds new free ports P_HTTP and P_ZMQ
# (set), its servers are the two gateways' HTTP and ZeroMQ ports.
local_haproxy_cfg() {
  P_HTTP=$(free_port); P_ZMQ=$(free_port)
  sed -e "s|^\( *\)bind :8080$|\1bind 127.0.0.1:$P_HTTP|" \
      -e "s|^\( *\)bind :5555$|\1bind 127.0.0.1:$P_ZMQ|" \
      -e "s|^\( *\)server-template gw 8 gateway:8080 .*|\1server gw1 127.0.0.1:$2 check\n\1server gw2 127.0.0.1:$4 check|" \
      -e "s|^\( *\)server-template gwz 8 gateway:5555 .*|\1server gwz1 127.0.0.1:$3 check port $2\n\1server gwz2 127.0.0.1:$5 check port $4|" \
      "$ROOT/deploy/haproxy.cfg" > "$1"
}

# start_worker NAME [ARGS...]: sets WK_PID.
start_worker() {
  local name=$1; shift
  "$DEVBUILD/worker" --connect "$ZMQ" --id "$name" --heartbeat-ms 200 "$@" >>"$IT_TMP/worker-$name.log" 2>&1 &
  WK_PID=$!; IT_PIDS+=("$WK_PID")
}

# wait_until SECONDS CMD...: retry every 0.1 s; 1 on timeout.
wait_until() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  while [ $SECONDS -lt $end ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

# api METHOD PATH [BODY]: sets BODY and STATUS (token and JSON type set).
api() {
  local method=$1 path=$2 out; shift 2
  if [ $# -gt 0 ]; then
    out=$(curl -s -w '\n%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" \
          -H 'Content-Type: application/json' --data-binary "$1" "$BASE$path")
  else
    out=$(curl -s -w '\n%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" "$BASE$path")
  fi
  STATUS=${out##*$'\n'}
  BODY=${out%$'\n'*}
}
# get PATH: the body on stdout (for pipes)
get() { curl -s "$BASE$1"; }

# jq-like extraction with python: echo JSON | jget 'd["id"]'
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); v=eval(sys.argv[1]); print(json.dumps(v) if isinstance(v,(dict,list)) else v)' "$1"; }

# sweep_state ID: "status done running queued failed cancelled"
sweep_state() {
  get "/api/v1/sweeps/$1" | jget 'd["status"]+" "+" ".join(str(d["counts"][k]) for k in ["done","running","queued","failed","cancelled"])'
}
sweep_is() { [ "$(get "/api/v1/sweeps/$1" | jget 'd["status"]')" = "$2" ]; }

# post_model FILE: prints the model id
post_model() {
  api POST /api/v1/models "$(cat "$1")"
  [ "$STATUS" = 201 ] || [ "$STATUS" = 200 ] || fail "post model $1: $STATUS $BODY"
  echo "$BODY" | jget 'd["id"]'
}

# post_sweep JSON: prints the sweep id
post_sweep() {
  api POST /api/v1/sweeps "$1"
  [ "$STATUS" = 202 ] || fail "post sweep: $STATUS $BODY"
  echo "$BODY" | jget 'd["id"]'
}

PENDULUM=$ROOT/tests/integration/data/pendulum.json

# job counts of a sweep by state (for wait_until, which needs a command)
count() { sql "SELECT count(*) FROM jobs WHERE sweep_id = '$1' AND status = '$2'"; }
count_ge() { [ "$(count "$1" "$2")" -ge "$3" ]; }
count_eq() { [ "$(count "$1" "$2")" -eq "$3" ]; }
