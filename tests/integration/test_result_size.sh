#!/usr/bin/env bash
# A result larger than the gateway accepts (--zmq-max-message) fails its job
# at once with the reason, on the worker, instead of being sent, dropped by
# the gateway and run again until its attempts are spent.  The gateway tells
# each JOB its limit (max_frame, common/svc/msg.h); a job whose result fits
# is done as usual, and the gateway dropped no oversized message.
source "$(dirname "$0")/lib.sh"
it_init result_size
start_gateway --zmq-max-message 262144
start_worker w1
# the pendulum sampled every 0.1 ms for 2 s: 20,001 samples of its channels,
# above 256 KiB; the same model sampled every 10 ms: 201 samples
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["solver"]["t_end"]=2; m.setdefault("outputs", {})["interval"]=float(sys.argv[2]); print(json.dumps(m))' \
  "$PENDULUM" 1e-4 > "$IT_TMP/fine.json"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["solver"]["t_end"]=2; m.setdefault("outputs", {})["interval"]=float(sys.argv[2]); print(json.dumps(m))' \
  "$PENDULUM" 1e-2 > "$IT_TMP/coarse.json"
FINE=$(post_model "$IT_TMP/fine.json"); [ -n "$FINE" ] || fail "no model id (fine)"
COARSE=$(post_model "$IT_TMP/coarse.json"); [ -n "$COARSE" ] || fail "no model id (coarse)"
S1=$(post_sweep '{"model":"'$FINE'","design":{"kind":"list","rows":[{}]},"max_attempts":3}')
S2=$(post_sweep '{"model":"'$COARSE'","design":{"kind":"list","rows":[{}]}}')
wait_until 60 sweep_is "$S1" done || fail "fine sweep: $(sweep_state "$S1")"
wait_until 60 sweep_is "$S2" done || fail "coarse sweep: $(sweep_state "$S2")"
r=$(sql "SELECT status || ' ' || attempt || ' ' || error FROM jobs WHERE sweep_id = '$S1'")
case "$r" in "failed 1 result of "*"exceeds the gateway's message limit of 0.262 MB"*) ;; *) fail "oversized result: $r" ;; esac
r2=$(sql "SELECT status || ' ' || attempt FROM jobs WHERE sweep_id = '$S2'")
[ "$r2" = "done 1" ] || fail "the result that fits: $r2"
drops=$(curl -s "$BASE/metrics" | awk '/^mbsweep_zmq_dropped_total\{reason="oversized"\}/ {print $2}')
[ "${drops:-0}" = 0 ] || fail "$drops oversized messages dropped by the gateway"
ok "oversized result failed at attempt 1 with its reason ($r); the 201-sample result done; nothing dropped"
