#!/usr/bin/env bash
# Reads with the API token (issue 11): with --token-reads on, every API read
# needs the token (models and results can be confidential), /healthz and
# /metrics excepted; the default on loopback keeps reads open ("auto": on
# when HTTP listens beyond loopback, checked on an address the bind refuses).
source "$(dirname "$0")/lib.sh"
it_init tokreads
start_gateway --token-reads on
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
for path in /api/v1/models /api/v1/models/$MID /api/v1/sweeps /api/v1/workers "/api/v1/compare/deactivation?model=$MID"; do
  [ "$(code "$BASE$path")" = 401 ] || fail "GET $path without the token: not 401"
  [ "$(code -H "Authorization: Bearer $TOKEN" "$BASE$path")" = 200 ] || fail "GET $path with the token: not 200"
done
[ "$(code -H 'Authorization: Bearer wrong-token-000' "$BASE/api/v1/sweeps")" = 401 ] || fail "wrong token read"
[ "$(code "$BASE/healthz")" = 200 ] && [ "$(code "$BASE/metrics")" = 200 ] || fail "health and metrics need no token"
grep -q 'reads need the token' "$IT_TMP/gateway.log" || fail "start-up line does not say reads need the token"
ok "--token-reads on: API reads 401 without the token, 200 with it; /healthz and /metrics open"
kill -TERM "$GW_PID"; wait "$GW_PID" 2>/dev/null
start_gateway
[ "$(code "$BASE/api/v1/sweeps")" = 200 ] || fail "default on loopback: reads should be open"
grep -q 'reads open' "$IT_TMP/gateway.log" || fail "start-up line does not say reads are open"
ok "default (auto) on 127.0.0.1: reads open"
# auto beyond loopback: the choice is logged before the bind, so a gateway
# told to listen on an address of TEST-NET-1 (RFC 5737, on no interface here:
# the bind fails and nothing listens beyond loopback) shows it
"$DEVBUILD/gateway" --db "$DB" --bind 192.0.2.1 --port "$(free_port)" --token "$TOKEN" --no-dispatch \
    >"$IT_TMP/beyond.log" 2>&1 &
pid=$!; IT_PIDS+=("$pid")
wait_until 20 grep -q 'http: reads' "$IT_TMP/beyond.log" || fail "no token-reads line: $(tail -3 "$IT_TMP/beyond.log")"
grep -q 'http: reads need the token (--token-reads auto, bind 192.0.2.1)' "$IT_TMP/beyond.log" \
  || fail "auto with a bind beyond loopback: $(grep 'http: reads' "$IT_TMP/beyond.log")"
wait_until 20 bash -c "! kill -0 $pid" || fail "gateway bound to 192.0.2.1 kept running"
ok "default (auto) with --bind 192.0.2.1 (beyond loopback): reads need the token"
