#!/usr/bin/env bash
# Two gateways on one PostgreSQL behind one address (issue 11, Scale): the
# proxy of docker-compose.yml (deploy/haproxy.cfg, run here with the two local
# gateways in place of Docker's DNS names) in front of both gateways' HTTP and
# ZeroMQ ports.  Models and sweeps go through the proxy; reads are answered by
# both gateways; workers connect directly to each gateway and through the
# proxy, with the CurveZMQ keys.  One gateway is SIGKILLed mid-sweep: reads
# through the proxy keep answering 200, the workers that reached it through
# the proxy reconnect to the other gateway, and the sweep finishes with every
# job done once (one result per job, at most one re-run after a lease).
source "$(dirname "$0")/lib.sh"
it_init proxy
command -v haproxy >/dev/null || fail "haproxy not installed (scripts/deps.sh installs it)"
N=120

# ---- the two gateways (same database, same server key: lib.sh's it_keys) ----------
start_gateway; GW_A=$GW_PID; HTTP_A=$HTTP_PORT; ZMQ_PORT_A=$ZMQ_PORT
start_gateway_b --heartbeat-ms 200 --lease 3 --backoff 0.2

# ---- the proxy: deploy/haproxy.cfg with local addresses ------------------------------
local_haproxy_cfg "$IT_TMP/haproxy.cfg" "$HTTP_A" "$ZMQ_PORT_A" "$HTTP_B" "$ZMQ_PORT_B"
[ "$(grep -c '^ *server gw' "$IT_TMP/haproxy.cfg")" = 4 ] && [ "$(grep -c "^ *bind 127.0.0.1:" "$IT_TMP/haproxy.cfg")" = 2 ] \
  || fail "deploy/haproxy.cfg: server-template or bind lines not in the expected form"
haproxy -c -q -f "$IT_TMP/haproxy.cfg" >"$IT_TMP/haproxy-check.log" 2>&1 || fail "haproxy -c: $(cat "$IT_TMP/haproxy-check.log")"
haproxy -db -f "$IT_TMP/haproxy.cfg" >>"$IT_TMP/haproxy.log" 2>&1 &
HAP=$!; IT_PIDS+=("$HAP")
BASE="http://127.0.0.1:$P_HTTP"          # every api/get of lib.sh goes through the proxy from here
wait_until 20 curl -sf -o /dev/null "$BASE/healthz" || fail "proxy did not come up"

# ---- workers: one on each gateway's port, two through the proxy ---------------------
ZMQ=tcp://127.0.0.1:$ZMQ_PORT_A start_worker a1 --slots 2 --job-delay-ms 80
ZMQ=tcp://127.0.0.1:$ZMQ_PORT_B start_worker b1 --slots 2 --job-delay-ms 80
ZMQ=tcp://127.0.0.1:$P_ZMQ start_worker p1 --slots 2 --job-delay-ms 80
ZMQ=tcp://127.0.0.1:$P_ZMQ start_worker p2 --slots 2 --job-delay-ms 80
workers_of() { curl -s "http://127.0.0.1:$1/healthz" | jget 'd["workers"]'; }
two_each() { [ "$(workers_of "$HTTP_A")" = 2 ] && [ "$(workers_of "$HTTP_B")" = 2 ]; }
wait_until 20 two_each || fail "workers per gateway: A $(workers_of "$HTTP_A"), B $(workers_of "$HTTP_B") (want 2 and 2)"
ok "proxy up (deploy/haproxy.cfg); 4 workers with keys: 2 on each gateway, one of each through the proxy"

# ---- submit and read through the proxy -------------------------------------------------
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"lhs","samples":'$N',"seed":11},"parameters":{"L":{"min":0.8,"max":1.2}}}')
served=""
for _ in 1 2 3 4 5 6; do
  h=$(curl -s -D - -o /dev/null "$BASE/api/v1/sweeps/$SID" | tr -d '\r' | sed -n 's/^[Xx]-[Mm]bsweep-[Gg]ateway: //p')
  served="$served $h"
done
case "$served" in *gw1*gw2*|*gw2*gw1*) ;; *) fail "reads through the proxy not spread over both gateways:$served" ;; esac
ok "model and sweep of $N jobs posted through the proxy; reads answered by both gateways:$served"

# ---- one gateway killed mid-sweep --------------------------------------------------------
wait_until 30 count_ge "$SID" done 20 || fail "no progress before the kill: $(sweep_state "$SID")"
kill -KILL "$GW_A"; wait "$GW_A" 2>/dev/null
killed_at=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND status = 'done'")
bad=0
for _ in $(seq 1 30); do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$BASE/api/v1/sweeps/$SID")
  [ "$code" = 200 ] || bad=$((bad + 1))
  sleep 0.1
done
[ $bad = 0 ] || fail "$bad of 30 reads through the proxy failed after gateway A was killed"
ok "gateway A SIGKILLed at $killed_at of $N jobs done: 30 reads through the proxy right after, all 200"
# the proxy's worker that was on A reconnects through the proxy to B
wait_until 30 bash -c "[ \"\$(curl -s http://127.0.0.1:$HTTP_B/healthz | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"workers\"])')\" = 3 ]" \
  || fail "workers on B after the kill: $(workers_of "$HTTP_B") (want 3: b1, p1, p2)"
wait_until 90 sweep_is "$SID" done || fail "sweep after the kill: $(sweep_state "$SID")"
n_done=$(count "$SID" done)
n_res=$(sql "SELECT count(*) || ' ' || count(DISTINCT r.job_id) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID'")
n_rerun=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND attempt > 1")
n_over=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND attempt > 2")
[ "$n_done" = $N ] || fail "done jobs: $n_done of $N"
[ "$n_res" = "$N $N" ] || fail "results (count, distinct jobs): $n_res, want $N $N"
[ "$n_over" = 0 ] || fail "$n_over job(s) ran more than twice"
after=$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.worker_id IN ('p1','p2')")
[ "$(get "/api/v1/sweeps/$SID/results.csv" | wc -l)" = $((N + 1)) ] || fail "results.csv through the proxy"
taken=$(grep -c 'sent before its READY: taken' "$IT_TMP/gateway-b.log")
ok "sweep finished through gateway B: $N jobs done, one result each ($n_rerun re-run after A's leases expired, none twice; $taken answer(s) sent before a moved worker's READY taken by B), $after by the proxy's workers; results.csv through the proxy"
