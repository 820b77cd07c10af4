#!/usr/bin/env bash
# The worker port under attack (issue 11, security and worker lifecycle):
# build/tests/zmq_peer plays a hostile worker against a real gateway with
# CurveZMQ keys (lib.sh makes them).  A peer without a key, or with a key
# not in the allow-list, gets nothing and is not a worker; an allowed key
# without the lease cannot write; a second key cannot take a worker's id;
# oversized messages are dropped and counted; heartbeats cannot keep a job
# past its time limit; deterministic failures and unsendable jobs fail at
# once with their reason; a dead worker's job is re-queued when it is
# declared dead; the workers list keeps host, pid, version over a restart.
source "$(dirname "$0")/lib.sh"
it_init zmqsec
PEER=$ROOT/build/tests/zmq_peer
[ -x "$PEER" ] || fail "build/tests/zmq_peer not built"
WKEY=(--server-key "$KEYS/server.pub" --key-file "$KEYS/worker.key")

# ---- 0. no keys: neither program starts unless told to run open ---------------------
env -u MBSWEEP_CURVE_SECRET_FILE -u MBSWEEP_CURVE_ALLOW "$DEVBUILD/gateway" --db "$DB" --port "$(free_port)" \
    --zmq "$ZMQ" --token "$TOKEN" >"$IT_TMP/nokeys.log" 2>&1 &
pid=$!; IT_PIDS+=("$pid")
wait_until 20 bash -c "! kill -0 $pid" || fail "gateway without keys kept running"
wait "$pid"; rc=$?
[ "$rc" = 2 ] && grep -q -- '--zmq-open-insecure' "$IT_TMP/nokeys.log" || fail "gateway without keys: exit $rc"
env -u MBSWEEP_SERVER_KEY -u MBSWEEP_CURVE_KEY_FILE timeout 10 "$DEVBUILD/worker" --connect "$ZMQ" \
    >"$IT_TMP/nokeys-worker.log" 2>&1; rc=$?
[ "$rc" = 2 ] || fail "worker without keys: exit $rc"
ok "without keys the gateway and the worker refuse to start (exit 2, --zmq-open-insecure named)"
# `make keys` (what `make up` uses: scripts/up.sh runs the same --curve-keygen-dir on run/keys):
# four files, the secret ones 0600, the worker's key allow-listed, kept on a second run
KD=$IT_TMP/make-keys
(cd "$ROOT" && KEYS=$KD make -s keys >/dev/null) || fail "make keys"
for f in server.key server.pub worker.key workers.allow; do [ -s "$KD/$f" ] || fail "make keys: no $f"; done
[ "$(stat -c %a "$KD/server.key") $(stat -c %a "$KD/worker.key")" = "600 600" ] || fail "key files readable by others: $(stat -c '%n %a' "$KD"/*.key)"
grep -qF "$(sed -n 's/^public //p' "$KD/worker.key")" "$KD/workers.allow" || fail "worker.key not in workers.allow"
[ "$(sed -n 's/^public //p' "$KD/server.key")" = "$(sed -n 's/^public //p' "$KD/server.pub")" ] || fail "server.pub is not server.key's public key"
sum1=$(cat "$KD"/* | md5sum)
(cd "$ROOT" && KEYS=$KD make -s keys >/dev/null) || fail "make keys again"
[ "$(cat "$KD"/* | md5sum)" = "$sum1" ] || fail "make keys replaced existing keys"
grep -q -- '--curve-keygen-dir "$KEYS"' "$ROOT/scripts/up.sh" && grep -q -- '--curve-secret-file "$KEYS/server.key"' "$ROOT/scripts/up.sh" \
  || fail "scripts/up.sh does not make and use the keys"
ok "make keys: server and worker key pairs (0600), server.pub, the worker allow-listed; kept on a second run"

start_gateway --zmq-max-message 200000 --lease 4
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
zmq_count() { get /healthz | jget "d['zmq']$1"; }
held_by() { sql "SELECT id FROM jobs WHERE status = 'running' AND lease_owner = '$1' LIMIT 1"; }
has_job() { [ -n "$(held_by "$1")" ]; }

# ---- 1. no key, unknown key: no job, not a worker --------------------------------------
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":0.9},{"L":1.0},{"L":1.1}]}}')
"$PEER" "$ZMQ" --id plain grab 3 >"$IT_TMP/plain.out" 2>&1 &
p1=$!; IT_PIDS+=("$p1")
"$PEER" "$ZMQ" --server-key "$KEYS/server.pub" --fresh-key --id stranger grab 3 >"$IT_TMP/stranger.out" 2>&1 &
p2=$!; IT_PIDS+=("$p2")
sleep 1.5
[ "$(get /healthz | jget 'd["workers"]')" = 0 ] || fail "an unauthenticated peer counts as a worker"
wait "$p1" "$p2"
grep -qx 'jobs 0' "$IT_TMP/plain.out" || fail "peer without CurveZMQ: $(cat "$IT_TMP/plain.out")"
grep -qx 'jobs 0' "$IT_TMP/stranger.out" || fail "peer with an unknown key: $(cat "$IT_TMP/stranger.out")"
[ "$(count "$SID" queued)" = 3 ] || fail "jobs left the queue: $(sweep_state "$SID")"
[ "$(zmq_count "['refused_connections']")" -ge 1 ] || fail "refused connection not counted"
ok "peer without a key and peer with an unknown key: 0 jobs, 0 workers, $(zmq_count "['refused_connections']") refused"
# a real worker whose key is not in the allow-list, and one with a wrong
# gateway key: each says why in its log (the refusal would otherwise be
# silence), takes nothing, keeps retrying
"$DEVBUILD/gateway" --curve-keygen "$IT_TMP/unlisted.key" >/dev/null
"$DEVBUILD/gateway" --curve-keygen "$IT_TMP/notserver.key" >/dev/null
grep '^public ' "$IT_TMP/notserver.key" | sed 's/^public //' > "$IT_TMP/notserver.pub"
MBSWEEP_CURVE_KEY_FILE=$IT_TMP/unlisted.key start_worker unlisted; UNL=$WK_PID
MBSWEEP_SERVER_KEY=$IT_TMP/notserver.pub start_worker wrongserver; WRS=$WK_PID
wait_until 15 grep -q "refused this worker" "$IT_TMP/worker-unlisted.log" \
  || fail "unlisted worker: no refusal in its log: $(tail -3 "$IT_TMP/worker-unlisted.log")"
grep -qF -- "$(grep '^public ' "$IT_TMP/unlisted.key" | sed 's/^public //')" "$IT_TMP/worker-unlisted.log" \
  || fail "the refusal does not name the worker's key"
sleep 1
kill -0 "$UNL" && kill -0 "$WRS" || fail "a refused worker stopped"
[ "$(count "$SID" queued)" = 3 ] || fail "a refused worker got jobs: $(sweep_state "$SID")"
wrs=$(grep -c "handshake with the gateway failed\|refused this worker" "$IT_TMP/worker-wrongserver.log")
kill "$UNL" "$WRS"; wait "$UNL" "$WRS" 2>/dev/null
ok "a worker with an unlisted key logs the refusal with its key and retries; wrong gateway key: $wrs handshake message(s)"

# ---- 2. an allowed key without the lease cannot write; nor take a worker's id -----------
start_worker real --slots 1 --job-delay-ms 6000; REAL=$WK_PID
wait_until 15 has_job real || fail "the real worker got no job"
JOB=$(held_by real); ATT=$(sql "SELECT attempt FROM jobs WHERE id = $JOB")
"$PEER" "$ZMQ" "${WKEY[@]}" --id forger forge "$JOB" "$ATT" >/dev/null || fail "forger"
# (the real worker may have finished it meanwhile: then the result is its own)
st=$(sql "SELECT status || ' ' || coalesce(lease_owner, '') || ' ' || attempt FROM jobs WHERE id = $JOB")
[ "$st" = "running real $ATT" ] || [ "$st" = "done  $ATT" ] || fail "forged FAILED/RESULT changed job $JOB: $st"
[ "$(sql "SELECT count(*) FROM results WHERE job_id = $JOB AND worker_id IS DISTINCT FROM 'real'")" = 0 ] \
  || fail "forged result stored"
[ "$(zmq_count "['dropped']['not_leaseholder']")" -ge 2 ] || fail "forged messages not counted"
# a second allowed key using the real worker's routing id
"$DEVBUILD/gateway" --curve-keygen "$IT_TMP/other.key" >/dev/null
grep '^public ' "$IT_TMP/other.key" >>"$KEYS/workers.allow"
"$PEER" "$ZMQ" --server-key "$KEYS/server.pub" --key-file "$IT_TMP/other.key" --id real grab 2 >"$IT_TMP/thief.out"
grep -qx 'jobs 0' "$IT_TMP/thief.out" || fail "a peer took the real worker's id: $(cat "$IT_TMP/thief.out")"
wait_until 40 sweep_is "$SID" done || fail "sweep: $(sweep_state "$SID")"
[ "$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.worker_id = 'real'")" = 3 ] \
  || fail "results not all from the real worker"
ok "forged FAILED and RESULT for job $JOB refused ($(zmq_count "['dropped']['not_leaseholder']") dropped); another key cannot take the id 'real'; 3 results, all from 'real'"

# ---- 3. oversized messages ------------------------------------------------------------------
"$PEER" "$ZMQ" "${WKEY[@]}" --id big big 300000 >/dev/null || fail "big peer"
wait_until 5 bash -c "[ \"\$(curl -s $BASE/healthz | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"zmq\"][\"dropped\"][\"oversized\"])')\" -ge 1 ]" \
  || fail "oversized message not counted"
get /metrics | grep -q '^mbsweep_zmq_dropped_total{reason="oversized"} [1-9]' || fail "oversized not in /metrics"
"$PEER" "$ZMQ" "${WKEY[@]}" --id huge big 20000000 >/dev/null || fail "huge peer"
kill -0 "$GW_PID" && get /healthz | grep -q '"status":"ok"' || fail "gateway after a 20 MB message"
ok "300 kB frame (limit 200 kB) dropped and counted; 20 MB cut off by libzmq; gateway fine"

# ---- 3b. malformed and invalid messages: each dropped and counted, nothing else -------------
m0=$(zmq_count "['dropped']['malformed']"); i0=$(zmq_count "['dropped']['invalid']")
"$PEER" "$ZMQ" "${WKEY[@]}" --id junk junk >"$IT_TMP/junk.out" || fail "junk peer"
want_m=$(sed -n 's/^malformed //p' "$IT_TMP/junk.out"); want_i=$(sed -n 's/^invalid //p' "$IT_TMP/junk.out")
junk_counted() {
  [ "$(zmq_count "['dropped']['malformed']")" = $((m0 + want_m)) ] && [ "$(zmq_count "['dropped']['invalid']")" = $((i0 + want_i)) ]
}
wait_until 5 junk_counted || fail "junk: malformed $m0 -> $(zmq_count "['dropped']['malformed']") (want +$want_m), invalid $i0 -> $(zmq_count "['dropped']['invalid']") (want +$want_i)"
kill -0 "$GW_PID" && get /healthz | grep -q '"status":"ok"' || fail "gateway after the junk messages"
[ "$(sql "SELECT count(*) FROM jobs WHERE status = 'running' AND lease_owner = 'junk'")" = 0 ] || fail "the junk peer holds jobs"
ok "$want_m malformed and $want_i invalid messages (65 jobs in hand, 0 slots, payload not nsample x channels, ...) each dropped and counted; gateway fine"

# ---- 4. a job that cannot be sent fails with its reason --------------------------------------
kill -TERM "$REAL"; wait "$REAL" 2>/dev/null
wait_until 10 bash -c "[ \"\$(curl -s $BASE/healthz | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"workers\"])')\" = 0 ]" || fail "worker still counted"
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":1.0}]}}')
sql "UPDATE jobs SET parameters = '{\"L\": 1e19}' WHERE sweep_id = '$SID'" >/dev/null
# (and a job whose mass is 0, which submission refuses: it fails on the worker)
MASSLESS=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"m":1}]}}')
sql "UPDATE jobs SET parameters = '{\"m\": 0}' WHERE sweep_id = '$MASSLESS'" >/dev/null
start_worker w2; W2=$WK_PID
wait_until 20 sweep_is "$SID" done || fail "unsendable job: $(sweep_state "$SID")"
r=$(sql "SELECT status || ' ' || error FROM jobs WHERE sweep_id = '$SID'")
case "$r" in "failed cannot send the job"*) ;; *) fail "unsendable: $r" ;; esac
n=$(grep -c "cannot send" "$IT_TMP/gateway.log")
[ "$n" -le 2 ] || fail "$n log lines about the unsendable job"
ok "unsendable job failed once with its reason ($r), $n log line(s)"

# ---- 5. deterministic failures fail at once ------------------------------------------------
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":1.0}]},"solver":{"t_end":[5000]},"time_limit":0.2}')
wait_until 30 sweep_is "$SID" done || fail "time-limit sweep: $(sweep_state "$SID")"
r=$(sql "SELECT status || ' ' || attempt || ' ' || error FROM jobs WHERE sweep_id = '$SID'")
case "$r" in "failed 1 time limit of"*) ;; *) fail "time limit: $r" ;; esac
wait_until 30 sweep_is "$MASSLESS" done || fail "massless sweep: $(sweep_state "$MASSLESS")"
r2=$(sql "SELECT status || ' ' || attempt || ' ' || error FROM jobs WHERE sweep_id = '$MASSLESS'")
case "$r2" in "failed 1 "*) ;; *) fail "massless body: $r2" ;; esac
# a singular mass matrix: a free body whose inertia is a parameter, 0 in the job
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["parameters"]["I"]=1; m["bodies"].append({"name":"free","mass":1,"inertia":"$I","com":[3,0]}); print(json.dumps(m))' \
  "$PENDULUM" > "$IT_TMP/free.json"
FREE=$(post_model "$IT_TMP/free.json"); [ -n "$FREE" ] || fail "no model id (free body)"
SING=$(post_sweep '{"model":"'$FREE'","design":{"kind":"list","rows":[{"I":0}]}}')
wait_until 30 sweep_is "$SING" done || fail "singular sweep: $(sweep_state "$SING")"
r3=$(sql "SELECT status || ' ' || attempt || ' ' || error FROM jobs WHERE sweep_id = '$SING'")
case "$r3" in "failed 1 "*singular*) ;; *) fail "singular mass matrix: $r3" ;; esac
ok "time limit reached: failed at attempt 1 ($r); massless body: failed at attempt 1 ($r2); singular mass matrix: failed at attempt 1 ($r3)"

# ---- 6. heartbeats cannot keep a job past its time limit ---------------------------------------
kill -TERM "$W2"; wait "$W2" 2>/dev/null
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":1.0}]},"time_limit":1}')
"$PEER" "$ZMQ" "${WKEY[@]}" --id holder hold 25 >"$IT_TMP/holder.out" 2>&1 &
HOLDER=$!; IT_PIDS+=("$HOLDER")
wait_until 30 sweep_is "$SID" done || fail "held job: $(sweep_state "$SID")"
r=$(sql "SELECT status || ' ' || error FROM jobs WHERE sweep_id = '$SID'")
case "$r" in "failed time limit exceeded"*) ;; *) fail "held job: $r" ;; esac
wait_until 10 grep -q '^cancel' "$IT_TMP/holder.out" || fail "holder not told to drop the job"
ok "a worker heartbeating a job past its time limit: $r; CANCEL sent"
kill "$HOLDER" 2>/dev/null

# ---- 7. a dead worker's job is re-queued when it is declared dead ------------------------------
start_worker victim --slots 1 --job-delay-ms 5000; VICTIM=$WK_PID
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":1.0}]}}')
wait_until 15 has_job victim || fail "victim got no job"
JOB=$(held_by victim)
kill -KILL "$VICTIM"
wait_until 15 bash -c "[ \"\$(psql '$DB' -X -tAq -c \"SELECT status FROM jobs WHERE id = $JOB\")\" = queued ]" \
  || fail "job $JOB not re-queued: $(sql "SELECT status, error FROM jobs WHERE id = $JOB")"
r=$(sql "SELECT error FROM jobs WHERE id = $JOB")
case "$r" in *"declared dead"*) ;; *) fail "job $JOB re-queued by: $r" ;; esac
ok "SIGKILLed worker declared dead, job $JOB re-queued then ($r)"

# ---- 8. the workers list keeps host, pid and version over a gateway restart ----------------------
start_worker keeper; KEEPER=$WK_PID
wait_until 20 sweep_is "$SID" done || fail "sweep after the victim: $(sweep_state "$SID")"
kill -KILL "$GW_PID"; wait "$GW_PID" 2>/dev/null
start_gateway --zmq-max-message 200000 --lease 4
row_ok() { [ "$(sql "SELECT host <> '' AND pid = $KEEPER AND version = 'mbsweep-worker/1' AND gateway LIKE '%:$GW_PID' FROM workers WHERE id = 'keeper'")" = t ]; }
wait_until 20 row_ok || fail "workers row after restart: $(sql "SELECT host, pid, version, gateway FROM workers WHERE id = 'keeper'")"
ok "after a gateway restart /api/v1/workers still has keeper's host, pid and version"

# ---- 9. a result the database refuses spoils only itself (batched writes) ------------------------
# the peer answers 8 jobs back to back (one write batch), the first with a metric
# that cannot be stored: the batch is rolled back and written row by row, the
# bad row dropped (its job re-run later), the 7 others stored once
kill -TERM "$KEEPER"; wait "$KEEPER" 2>/dev/null
wait_until 10 bash -c "[ \"\$(curl -s $BASE/healthz | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"workers\"])')\" = 0 ]" || fail "keeper still counted"
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{"L":{"min":0.5,"max":2,"levels":8}}}')
"$PEER" "$ZMQ" "${WKEY[@]}" --id poisoner poison 10 >"$IT_TMP/poison.out" || fail "poison peer: $(cat "$IT_TMP/poison.out")"
PJ=$(sed -n 's/^poisoned //p' "$IT_TMP/poison.out"); NA=$(sed -n 's/^answered //p' "$IT_TMP/poison.out")
[ -n "$PJ" ] && [ "$NA" -ge 2 ] || fail "poison peer: $(cat "$IT_TMP/poison.out")"
good() { sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.worker_id = 'poisoner'"; }
wait_until 10 bash -c "[ \"\$(psql '$DB' -X -tAq -c \"SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.worker_id = 'poisoner'\")\" = $((NA - 1)) ]" \
  || fail "the good results of the batch: $(good) stored, expected $((NA - 1))"
[ "$(sql "SELECT count(*) FROM results WHERE job_id = $PJ")" = 0 ] || fail "the refused result was stored"
grep -q "dropping a message of job $PJ" "$IT_TMP/gateway.log" || fail "no log line for the dropped result of job $PJ"
start_worker keeper2; KEEPER2=$WK_PID
wait_until 30 sweep_is "$SID" done || fail "sweep after the poison: $(sweep_state "$SID")"
r=$(sql "SELECT count(*) || ' ' || count(DISTINCT r.job_id) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID'")
[ "$r" = "8 8" ] || fail "results of the poisoned sweep: $r (count, distinct jobs), expected 8 8"
ok "a result the database refuses ($PJ) is dropped alone: $((NA - 1)) others of its batch stored, the job re-run, 8 results for 8 jobs"

# ---- 10. an answer sent before READY to a restarted gateway is kept until the READY ----------
# the peer takes the only job, the gateway is SIGKILLed and started again, the
# peer's RESULT (queued in its socket meanwhile) reaches the new gateway before
# its READY: kept, then taken because the database says the peer holds that
# attempt; before, it was dropped and the job waited for its lease (30 s here)
# (no other worker: the peer must get the job)
kill -TERM "$KEEPER2"; wait "$KEEPER2" 2>/dev/null
kill -TERM "$GW_PID"; wait "$GW_PID" 2>/dev/null
start_gateway --zmq-max-message 200000 --lease 30
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":1.03}]}}')
"$PEER" "$ZMQ" "${WKEY[@]}" --id late late 20 >"$IT_TMP/late.out" 2>&1 &
LATE=$!; IT_PIDS+=("$LATE")
wait_until 15 grep -q '^job ' "$IT_TMP/late.out" || fail "late peer got no job: $(cat "$IT_TMP/late.out")"
kill -KILL "$GW_PID"; wait "$GW_PID" 2>/dev/null
JOB=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$IT_TMP/late.out")
start_gateway --zmq-max-message 200000 --lease 30
late_done() { [ "$(sql "SELECT j.status || ' ' || j.attempt || ' ' || coalesce(r.worker_id, '') FROM jobs j LEFT JOIN results r ON r.job_id = j.id WHERE j.id = $JOB")" = "done 1 late" ]; }
wait_until 15 late_done || fail "job $JOB after the restart: $(sql "SELECT status, attempt, lease_owner FROM jobs WHERE id = $JOB"), peer: $(cat "$IT_TMP/late.out")"
grep -q "RESULT of job $JOB attempt 1 from late, sent before its READY: taken" "$IT_TMP/gateway.log" || fail "no log line for the held RESULT"
kill "$LATE" 2>/dev/null
ok "a RESULT that reached a restarted gateway before its worker's READY was kept and taken: job $JOB done at attempt 1 by 'late'"
