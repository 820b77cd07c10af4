#!/usr/bin/env bash
# bench/proxy_bench.sh - two gateways on one PostgreSQL behind the proxy of
# docker-compose.yml (deploy/haproxy.cfg, run locally as tests/integration/
# test_proxy.sh does): requests per second of one gateway directly and of the
# two through the proxy (wrk on loopback), then errors seen by wrk through the
# proxy while one gateway is SIGKILLed under load.  About a minute.
#
# Uses tests/integration/lib.sh for PostgreSQL (a private cluster, PG_FAST:
# fsync off), the CurveZMQ keys and the gateways; no worker (HTTP only).
# Knobs: PROXY_WRK_SECONDS (5), PROXY_WRK_CONNS (32), KEEP_TMP=1.
# Each row reports the machine's busy share taken by processes other than
# ours (bench/service/cpu.py): the machine may be shared.
source "$(dirname "$0")/../tests/integration/lib.sh"
SECS=${PROXY_WRK_SECONDS:-5}; CONNS=${PROXY_WRK_CONNS:-32}
for c in haproxy wrk; do command -v $c >/dev/null || fail "$c not installed (scripts/deps.sh)"; done
it_init proxybench
CPU=$ROOT/bench/service/cpu.py

start_gateway; GW_A=$GW_PID; HTTP_A=$HTTP_PORT; ZMQ_PORT_A=$ZMQ_PORT
start_gateway_b
local_haproxy_cfg "$IT_TMP/haproxy.cfg" "$HTTP_A" "$ZMQ_PORT_A" "$HTTP_B" "$ZMQ_PORT_B"
haproxy -db -f "$IT_TMP/haproxy.cfg" >>"$IT_TMP/haproxy.log" 2>&1 &
HAP=$!; IT_PIDS+=("$HAP")
PROXY="http://127.0.0.1:$P_HTTP"
wait_until 20 curl -sf -o /dev/null "$PROXY/healthz" || fail "proxy did not come up"
post_model "$PENDULUM" >/dev/null
PGPID=$(head -1 "$IT_PG/data/postmaster.pid")   # PostgreSQL is ours too (not a child of this shell)

# row TARGET_LABEL URL PATH: one wrk run, one table row
row() {
  local label=$1 url=$2 path=$3
  python3 "$CPU" snap "$IT_TMP/a" $$ "$PGPID" >/dev/null
  wrk -t2 -c"$CONNS" -d"${SECS}s" --timeout 5s --latency "$url$path" > "$IT_TMP/wrk.out" 2>&1 || fail "wrk: $(cat "$IT_TMP/wrk.out")"
  python3 "$CPU" snap "$IT_TMP/b" $$ "$PGPID" >/dev/null
  local other rps p50 p99 errs
  other=$(python3 "$CPU" diff "$IT_TMP/a" "$IT_TMP/b" | jget 'round(d["other_pct"])')
  rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' "$IT_TMP/wrk.out")
  p50=$(awk '$1 == "50%" {print $2}' "$IT_TMP/wrk.out"); p99=$(awk '$1 == "99%" {print $2}' "$IT_TMP/wrk.out")
  errs=$(grep -E 'Socket errors|Non-2xx' "$IT_TMP/wrk.out" | tr -s ' ' | tr '\n' ';' | sed 's/;$//')
  echo "| $label | GET $path | $CONNS | $rps | $p50 | $p99 | ${errs:-none} | $other % |"
}
echo "proxy_bench: $(date -u '+%Y-%m-%d %H:%M UTC'), nproc $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg), wrk ${SECS} s"
echo "| target | request | connections | requests/s | p50 | p99 | wrk errors | CPU used by other processes |"
echo "|---|---|---:|---:|---:|---:|---|---:|"
for path in /healthz /api/v1/models; do
  row "gateway A directly" "http://127.0.0.1:$HTTP_A" "$path"
  row "proxy, 2 gateways" "$PROXY" "$path"
done
# gateway A SIGKILLed 1/3 into a run through the proxy
( sleep "$(python3 -c "print($SECS / 3)")"; kill -KILL "$GW_A" ) 2>/dev/null &
killer=$!
row "proxy, A SIGKILLed after $(python3 -c "print(round($SECS / 3, 1))") s" "$PROXY" /api/v1/models
wait "$killer" 2>/dev/null
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
