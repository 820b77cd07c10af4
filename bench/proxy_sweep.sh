#!/usr/bin/env bash
# bench/proxy_sweep.sh - the timed sweep of scripts/compose_check.sh on local
# processes instead of containers, to set its figure beside (bench/README.md
# §8): PostgreSQL (scripts/pg.sh, fsync on as in the compose stand-in), two
# build/gateway behind deploy/haproxy.cfg (the local form of
# tests/integration/test_proxy.sh), three build/worker --slots auto through
# the proxy; the pendulum model and an LHS sweep of 2,000 jobs posted through
# the proxy, time from the POST to status done (polled every 50 ms), every
# job checked done once.  Prints one line.  Needs haproxy and `make
# build/gateway build/worker`.
#   bash bench/proxy_sweep.sh
source "$(dirname "$0")/../tests/integration/lib.sh"
N=${PROXY_SWEEP_JOBS:-2000}
OWN_PG=$(mktemp -d); chmod 755 "$OWN_PG"
bash "$ROOT/scripts/pg.sh" start "$OWN_PG/pg" >/dev/null || { echo "postgres" >&2; exit 1; }
stop_pg() { bash "$ROOT/scripts/pg.sh" stop "$OWN_PG/pg" >/dev/null 2>&1; rm -rf "$OWN_PG"; }
IT_PG_DIR=$OWN_PG/pg it_init proxy_sweep
trap 'it_cleanup; stop_pg' EXIT
start_gateway; HTTP_A=$HTTP_PORT; ZMQ_PORT_A=$ZMQ_PORT
start_gateway_b
local_haproxy_cfg "$IT_TMP/haproxy.cfg" "$HTTP_A" "$ZMQ_PORT_A" "$HTTP_B" "$ZMQ_PORT_B"
haproxy -db -f "$IT_TMP/haproxy.cfg" >>"$IT_TMP/haproxy.log" 2>&1 &
IT_PIDS+=("$!")
BASE="http://127.0.0.1:$P_HTTP"
wait_until 20 curl -sf -o /dev/null "$BASE/healthz" || fail "proxy did not come up"
for w in 1 2 3; do ZMQ=tcp://127.0.0.1:$P_ZMQ start_worker "w$w" --slots auto; done
three() { [ $(( $(curl -s "http://127.0.0.1:$HTTP_A/healthz" | jget 'd["workers"]') + $(curl -s "http://127.0.0.1:$HTTP_B/healthz" | jget 'd["workers"]') )) = 3 ]; }
wait_until 30 three || fail "3 workers did not connect"
MID=$(post_model "$PENDULUM")
t0=$(date +%s.%N)
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"lhs","samples":'$N',"seed":1},"parameters":{"L":{"min":0.8,"max":1.2}}}')
end=$((SECONDS + 300))
until sweep_is "$SID" done; do [ $SECONDS -lt $end ] || fail "sweep: $(sweep_state "$SID")"; sleep 0.05; done
t1=$(date +%s.%N)
[ "$(count "$SID" done)" = "$N" ] || fail "done: $(count "$SID" done) of $N"
[ "$(sql "SELECT count(DISTINCT r.job_id) || ' ' || count(*) || ' ' || max(j.attempt) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID'")" = "$N $N 1" ] \
  || fail "results not one per job"
python3 -c "import sys; d = float(sys.argv[2]) - float(sys.argv[1]); print('local processes, 2 gateways + proxy + 3 workers: %d jobs post to done %.2f s, %.0f jobs/s (load: %s)' % (int(sys.argv[3]), d, int(sys.argv[3]) / d, sys.argv[4]))" \
  "$t0" "$t1" "$N" "$(cut -d' ' -f1-3 /proc/loadavg)"
