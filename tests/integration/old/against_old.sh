#!/usr/bin/env bash
# tests/integration/old/against_old.sh CASE OLD_BUILD - a part of a service
# test run against the programs built from the commit before its behaviour
# existed (issue 11, "a test that failed before and passes now"; not in the
# suite: it shows the old code failing, once, by hand).  OLD_BUILD holds that
# commit's gateway and worker (docs/service.md, "Status against issue 11",
# says which commit and how it was built).  Each case is the named test's part
# as written, with the least change the old programs need to run it at all
# (said at the case); run against ROOT/build instead it passes.
#   msgval    test_zmq_security.sh part 3b   malformed and invalid worker messages dropped and counted
#   singular  test_zmq_security.sh part 5    a singular mass matrix fails at attempt 1
#   csv       test_bounds.sh part 8          results.csv streamed (the peak check on, as without ASan)
#   reads     test_token_reads.sh            API reads need the token
# (make keys and the 10,000-body check need no gateway: docs/service.md has
# their commands.)
set -u
CASE=${1:?case}; OLD=$(cd "${2:?old build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd); NEW=$(cd "$HERE/../../.." && pwd)/build
# the old programs under the test's build directory; key generation (it_init
# makes the CurveZMQ keys with --curve-keygen-dir, which the old gateways do
# not have) by the new gateway; old programs ignore the keys they do not know
W=$(mktemp -d /tmp/mbsweep-old.XXXXXX); chmod 755 "$W"
printf '#!/bin/sh\ncase "$1" in --curve-keygen*) exec "%s/gateway" "$@";; esac\nexec "%s/gateway" "$@"\n' "$NEW" "$OLD" > "$W/gateway"
printf '#!/bin/sh\nexec "%s/worker" "$@"\n' "$OLD" > "$W/worker"
chmod +x "$W/gateway" "$W/worker"
export MBSWEEP_TEST_BUILD=$W
source "$HERE/../lib.sh"
ROOT=$(cd "$HERE/../../.." && pwd)
PEER=$ROOT/build/tests/zmq_peer
it_init "old$CASE"
trap 'it_cleanup; rm -rf "$W"' EXIT
# the gateways before the allow-list (no --curve-allow) run CurveZMQ only
# when given a secret key, and then admit any client key, and their workers
# take no key file: with those, everything open
"$OLD/gateway" --help 2>&1 | grep -q -- --curve-allow ||
  unset MBSWEEP_CURVE_SECRET_FILE MBSWEEP_CURVE_ALLOW MBSWEEP_SERVER_KEY MBSWEEP_CURVE_KEY_FILE
zmq_count() { get /healthz | jget "d['zmq']$1"; }

case "$CASE" in
msgval)
  # part 3b as written; change: the peer connects without a key when the old gateway is open
  start_gateway
  WKEY=(); [ -n "${MBSWEEP_SERVER_KEY:-}" ] && WKEY=(--server-key "$KEYS/server.pub" --key-file "$KEYS/worker.key")
  m0=$(zmq_count "['dropped']['malformed']"); i0=$(zmq_count "['dropped']['invalid']")
  timeout 30 "$PEER" "$ZMQ" "${WKEY[@]}" --id junk junk >"$IT_TMP/junk.out" || fail "junk peer"
  want_m=$(sed -n 's/^malformed //p' "$IT_TMP/junk.out"); want_i=$(sed -n 's/^invalid //p' "$IT_TMP/junk.out")
  junk_counted() {
    [ "$(zmq_count "['dropped']['malformed']")" = $((m0 + want_m)) ] && [ "$(zmq_count "['dropped']['invalid']")" = $((i0 + want_i)) ]
  }
  kill -0 "$GW_PID" && get /healthz | grep -q '"status":"ok"' || fail "gateway after the junk messages"
  [ "$(sql "SELECT count(*) FROM jobs WHERE status = 'running' AND lease_owner = 'junk'")" = 0 ] || fail "the junk peer holds jobs"
  wait_until 5 junk_counted || fail "junk: malformed $m0 -> $(zmq_count "['dropped']['malformed']") (want +$want_m), invalid $i0 -> $(zmq_count "['dropped']['invalid']") (want +$want_i); /healthz: $(get /healthz)"
  ok "$want_m malformed and $want_i invalid messages each dropped and counted; gateway fine" ;;
singular)
  # part 5's singular mass matrix as written (the worker without keys)
  start_gateway
  start_worker w2
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["parameters"]["I"]=1; m["bodies"].append({"name":"free","mass":1,"inertia":"$I","com":[3,0]}); print(json.dumps(m))' \
    "$PENDULUM" > "$IT_TMP/free.json"
  FREE=$(post_model "$IT_TMP/free.json"); [ -n "$FREE" ] || fail "no model id (free body)"
  SING=$(post_sweep '{"model":"'$FREE'","design":{"kind":"list","rows":[{"I":0}]}}')
  wait_until 30 sweep_is "$SING" done || fail "singular sweep: $(sweep_state "$SING"); job: $(sql "SELECT status || ' ' || attempt || ' ' || coalesce(error, '') FROM jobs WHERE sweep_id = '$SING'")"
  r3=$(sql "SELECT status || ' ' || attempt || ' ' || error FROM jobs WHERE sweep_id = '$SING'")
  case "$r3" in "failed 1 "*singular*) ;; *) fail "singular mass matrix: $r3" ;; esac
  ok "singular mass matrix: failed at attempt 1 ($r3)" ;;
csv)
  # part 8 as written, the peak checked (the test skips it only under ASan,
  # which it recognises by MBSWEEP_TEST_BUILD, set here for the old programs);
  # change: no --no-warm (the old gateway has no warm-up thread)
  start_gateway
  MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
  S=/api/v1/sweeps
  BIG=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs, started_at, finished_at)
             VALUES ('$MID', 'csv-stream', '{}', 'list', 'done', 20000, now(), now()) RETURNING id" | head -1)
  sql "INSERT INTO jobs (sweep_id, idx, parameters, status, attempt, started_at, finished_at)
       SELECT '$BIG', i, jsonb_build_object('L', 1 + i * 1e-5), 'done', 1, now(), now() FROM generate_series(0, 19999) i" || fail "csv jobs"
  sql "INSERT INTO results (job_id, channels, nsample, samples, responses)
       SELECT id, '{x}', 0, '', (SELECT jsonb_object_agg('r' || k, idx * 0.001 + k * 1.000001) FROM generate_series(1, 50) k)
       FROM jobs WHERE sweep_id = '$BIG'" || fail "csv results"
  rss_before=$(awk '/VmRSS/ {print $2}' /proc/$GW_PID/status)
  echo 5 > /proc/$GW_PID/clear_refs 2>/dev/null; reset=$?
  curl -s --max-time 120 -o "$IT_TMP/big.csv" "$BASE$S/$BIG/results.csv" || fail "big csv"
  hwm=$(awk '/VmHWM/ {print $2}' /proc/$GW_PID/status)
  csv_kb=$(( $(stat -c %s "$IT_TMP/big.csv") / 1024 ))
  python3 - "$IT_TMP/big.csv" <<'PY' || fail "big CSV"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
assert len(rows) == 20001 and sum(c.startswith("response.r") for c in h) == 50, (len(rows), len(h))
assert all(len(r) == len(h) for r in rows)
assert abs(float(rows[-1][h.index("response.r50")]) - (19999 * 0.001 + 50 * 1.000001)) < 1e-9
PY
  log "results.csv of 20,000 jobs: $csv_kb kB; gateway RSS before $rss_before kB, peak during the export $hwm kB"
  [ $reset = 0 ] || fail "cannot reset the peak (clear_refs)"
  [ $((hwm - rss_before)) -lt $((csv_kb / 2)) ] || fail "results.csv not streamed: peak $hwm kB, before $rss_before kB, CSV $csv_kb kB"
  ok "results.csv of 20,000 jobs x 50 responses ($csv_kb kB) complete; gateway peak $((hwm - rss_before)) kB above its size before" ;;
reads)
  # test_token_reads.sh's first part as written; the old gateway has no
  # --token-reads: then the same reads against it started without the flag
  code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
  "$DEVBUILD/gateway" --db "$DB" --port "$HTTP_PORT" --zmq "$ZMQ" --token "$TOKEN" --token-reads on \
      >"$IT_TMP/flag.log" 2>&1 &
  pid=$!; IT_PIDS+=("$pid")
  up() { curl -sf -o /dev/null "$BASE/healthz" || ! kill -0 "$pid"; }
  wait_until 20 up
  if ! curl -sf -o /dev/null "$BASE/healthz"; then
    log "as written: the gateway did not start with --token-reads on: $(grep -v '^ ' "$IT_TMP/flag.log" | head -2 | tr '\n' ' ')"
    start_gateway
  else GW_PID=$pid; fi
  MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
  for path in /api/v1/models /api/v1/models/$MID /api/v1/sweeps /api/v1/workers; do
    [ "$(code "$BASE$path")" = 401 ] || fail "GET $path without the token: $(code "$BASE$path"), not 401"
  done
  ok "--token-reads on: API reads 401 without the token" ;;
*) fail "unknown case $CASE" ;;
esac
