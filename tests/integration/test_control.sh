#!/usr/bin/env bash
# Cancel and pause/resume of a running sweep.
source "$(dirname "$0")/lib.sh"
it_init control
start_gateway
# 1 s jobs: 12 jobs on 2 workers take 6 s, so the sweep is still running when
# the (polling, possibly slow) test sees its first job done
start_worker c1 --job-delay-ms 1000 --slots 1; C1=$WK_PID
start_worker c2 --job-delay-ms 1000 --slots 1; C2=$WK_PID
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"

# ---- pause: nothing new starts; resume: it finishes ----------------------------------
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{"L":{"min":0.9,"max":1.1,"levels":12}}}')
wait_until 10 count_ge "$SID" done 1 || fail "no progress"
api POST "/api/v1/sweeps/$SID/pause"; [ "$STATUS" = 200 ] || fail "pause: $STATUS $BODY"
wait_until 5 count_eq "$SID" running 0 || fail "running jobs after pause"
d1=$(count "$SID" done); sleep 1.5; d2=$(count "$SID" done)
[ "$d1" = "$d2" ] && [ "$(count "$SID" queued)" -gt 0 ] || fail "jobs ran while paused ($d1 -> $d2)"
[ "$(get "/api/v1/sweeps/$SID" | jget 'd["status"]')" = paused ] || fail "status paused"
api POST "/api/v1/sweeps/$SID/pause"; [ "$STATUS" = 409 ] || fail "second pause: $STATUS"
api POST "/api/v1/sweeps/$SID/resume"; [ "$STATUS" = 200 ] || fail "resume: $STATUS $BODY"
wait_until 30 sweep_is "$SID" done || fail "sweep after resume: $(sweep_state "$SID")"
ok "pause held $d1 done jobs still for 1.5 s; resume ran the rest"

# ---- cancel: queued jobs never run, running ones are told to stop --------------------
# (slow jobs: the running ones are certainly still running when cancelled)
kill -TERM "$C1" "$C2"; wait "$C1" "$C2" 2>/dev/null
start_worker c3 --job-delay-ms 3000 --slots 1; start_worker c4 --job-delay-ms 3000 --slots 1
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{"L":{"min":0.9,"max":1.1,"levels":20}}}')
wait_until 10 count_ge "$SID" running 1 || fail "nothing running"
api POST "/api/v1/sweeps/$SID/cancel"; [ "$STATUS" = 200 ] || fail "cancel: $STATUS $BODY"
n=$(echo "$BODY" | jget 'd["jobs_cancelled"]')
[ "$(count "$SID" queued)" = 0 ] && [ "$(count "$SID" running)" = 0 ] || fail "jobs left after cancel"
wait_until 5 grep -q "CANCEL to" "$IT_TMP/gateway.log" || fail "no CANCEL sent to the worker"
wait_until 5 grep -q "cancel requested" "$IT_TMP/worker-c3.log" "$IT_TMP/worker-c4.log" || fail "worker did not get CANCEL"
done1=$(count "$SID" done); sleep 1.5
[ "$(count "$SID" done)" = "$done1" ] || fail "jobs finished after cancel"
[ "$(count "$SID" cancelled)" = "$n" ] || fail "cancelled count"
[ "$(get "/api/v1/sweeps/$SID" | jget 'd["status"]')" = cancelled ] || fail "status cancelled"
api POST "/api/v1/sweeps/$SID/resume"; [ "$STATUS" = 409 ] || fail "resume a cancelled sweep: $STATUS"
ok "cancel: $n jobs cancelled, running ones told to stop, nothing finished afterwards"
