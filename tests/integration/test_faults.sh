#!/usr/bin/env bash
# Faults: a worker killed mid-job (SIGKILL), a hanging worker (SIGSTOP), the
# gateway killed and restarted mid-sweep, PostgreSQL restarted mid-sweep.
# Every job must end done with exactly one result.  Jobs are slowed down with
# the worker's --job-delay-ms test aid so that "mid-job" is certain.
source "$(dirname "$0")/lib.sh"
it_init faults
start_gateway --lease 2
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"

all_one_result() {
  local sid=$1 n=$2
  [ "$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$sid' AND status = 'done'")" = "$n" ] || return 1
  [ "$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$sid'")" = "$n" ] || return 1
}
held_by() { sql "SELECT id FROM jobs WHERE status = 'running' AND lease_owner = '$1' LIMIT 1"; }
# take_job NAME: JOB = a job NAME holds, read once (a second query could
# come after a slow job already finished on a loaded machine)
take_job() { JOB=$(held_by "$1"); [ -n "$JOB" ]; }

# ---- 1. worker SIGKILL in the middle of a job -------------------------------------
start_worker victim --slots 1 --job-delay-ms 1500; VICTIM=$WK_PID
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{"L":{"values":[0.9,1.0,1.1]}}}')
wait_until 10 take_job victim || fail "victim never got a job"
kill -KILL "$VICTIM"
start_worker rescuer
wait_until 30 sweep_is "$SID" done || fail "sweep after SIGKILL: $(sweep_state "$SID")"
all_one_result "$SID" 3 || fail "results after SIGKILL"
[ "$(sql "SELECT attempt FROM jobs WHERE id = $JOB")" = 2 ] || fail "killed job $JOB not re-run once"
[ "$(sql "SELECT worker_id FROM results WHERE job_id = $JOB")" = rescuer ] || fail "job $JOB result not from the rescuer"
ok "SIGKILLed worker: job $JOB re-run (attempt 2) elsewhere, one result per job"
kill -TERM "$WK_PID"; wait "$WK_PID" 2>/dev/null

# ---- 2. hanging worker (SIGSTOP): lease expires, job re-run elsewhere ----------------
start_worker sleeper --slots 1 --job-delay-ms 1500; SLEEPER=$WK_PID
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"list","rows":[{"L":0.95},{"L":1.05}]}}')
wait_until 10 take_job sleeper || fail "sleeper never got a job"
kill -STOP "$SLEEPER"
start_worker awake
wait_until 30 sweep_is "$SID" done || fail "sweep after SIGSTOP: $(sweep_state "$SID")"
all_one_result "$SID" 2 || fail "results after SIGSTOP"
[ "$(sql "SELECT worker_id FROM results WHERE job_id = $JOB")" = awake ] || fail "hung job $JOB not re-run elsewhere"
# declared dead after --liveness silent heartbeats: re-queued then (else at lease expiry)
grep -q "job $JOB \(lease expired\|re-queued\)" "$IT_TMP/gateway.log" || fail "no re-queue logged"
# the sleeper wakes up late: its stale answer must change nothing
kill -CONT "$SLEEPER"; sleep 2.5
all_one_result "$SID" 2 || fail "a late answer changed the results"
[ "$(sql "SELECT worker_id FROM results WHERE job_id = $JOB")" = awake ] || fail "late answer overwrote"
ok "hung worker: declared dead, job $JOB re-run elsewhere; its late answer was fenced off"
kill -TERM "$SLEEPER" "$WK_PID"; wait "$SLEEPER" "$WK_PID" 2>/dev/null

# ---- 3. gateway killed and restarted mid-sweep ---------------------------------------
start_worker g1 --job-delay-ms 150; W1=$WK_PID
start_worker g2 --job-delay-ms 150; W2=$WK_PID
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"lhs","samples":30,"seed":5},"parameters":{"L":{"min":0.9,"max":1.1}}}')
wait_until 20 count_ge "$SID" done 5 || fail "no progress before the gateway kill"
kill -KILL "$GW_PID"; wait "$GW_PID" 2>/dev/null
sleep 1
start_gateway --lease 2
wait_until 60 sweep_is "$SID" done || fail "sweep after gateway restart: $(sweep_state "$SID")"
all_one_result "$SID" 30 || fail "results after gateway restart"
ok "gateway SIGKILLed and restarted: all 30 jobs done, one result each ($(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND attempt > 1") re-run after the lease), workers reconnected"

# ---- 4. PostgreSQL restarted mid-sweep ---------------------------------------------------
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"random","samples":30,"seed":9},"parameters":{"L":{"min":0.9,"max":1.1}}}')
wait_until 20 count_ge "$SID" done 5 || fail "no progress before the database restart"
bash "$ROOT/scripts/pg.sh" restart "$IT_PG" >/dev/null || fail "pg restart"
wait_until 60 sweep_is "$SID" done || fail "sweep after PostgreSQL restart: $(sweep_state "$SID")"
all_one_result "$SID" 30 || fail "results after PostgreSQL restart"
get /healthz | grep -q '"database":"ok"' || fail "healthz after restart"
ok "PostgreSQL restarted mid-sweep: service recovered, 30 jobs done once"
