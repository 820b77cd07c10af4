#!/usr/bin/env bash
# Several gateways against one database: the claim is in the database
# (FOR UPDATE SKIP LOCKED + lease), so two gateways dispatching the same
# sweep to their own workers never run a job twice: every job ends done at
# attempt 1 with one result, and both gateways' workers take part.
source "$(dirname "$0")/lib.sh"
it_init multigw
start_gateway; GW_A=$GW_PID
# a second gateway on the same database, its own HTTP and ZeroMQ ports
HTTP_B=$(free_port); ZMQ_B="tcp://127.0.0.1:$(free_port)"
"$DEVBUILD/gateway" --db "$DB" --port "$HTTP_B" --zmq "$ZMQ_B" --token "$TOKEN" \
    --heartbeat-ms 200 --lease 3 --backoff 0.2 >>"$IT_TMP/gateway-b.log" 2>&1 &
GW_B=$!; IT_PIDS+=("$GW_B")
wait_until 20 curl -sf -o /dev/null "http://127.0.0.1:$HTTP_B/healthz" || fail "gateway B did not come up"
# two workers on each gateway, slowed down so that both gateways claim
# while the other still holds jobs
start_worker a1 --job-delay-ms 60
start_worker a2 --job-delay-ms 60
for w in b1 b2; do
  "$DEVBUILD/worker" --connect "$ZMQ_B" --id "$w" --heartbeat-ms 200 --job-delay-ms 60 >>"$IT_TMP/worker-$w.log" 2>&1 &
  IT_PIDS+=("$!")
done
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"lhs","samples":60,"seed":3},"parameters":{"L":{"min":0.8,"max":1.2}}}')
wait_until 90 sweep_is "$SID" done || fail "sweep with two gateways: $(sweep_state "$SID")"
n_done=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND status = 'done'")
n_res=$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID'")
n_rerun=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND attempt <> 1")
[ "$n_done" = 60 ] || fail "done jobs: $n_done of 60"
[ "$n_res" = 60 ] || fail "results: $n_res for 60 jobs"
[ "$n_rerun" = 0 ] || fail "$n_rerun job(s) ran more than once"
by_a=$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.worker_id IN ('a1','a2')")
by_b=$(sql "SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.worker_id IN ('b1','b2')")
[ "$by_a" -gt 0 ] && [ "$by_b" -gt 0 ] || fail "one gateway did all the work (A: $by_a, B: $by_b)"
ok "two gateways on one database: 60 jobs, each run once (A's workers $by_a, B's workers $by_b), one result each"
# the counts kept by triggers (sql/015), appended by both gateways' writes and
# folded by both gateways' summary threads, still sum to the jobs' states
kept=$(sql "SELECT string_agg(status || '=' || s, ',' ORDER BY status) FROM
            (SELECT status, sum(n) s FROM sweep_counts WHERE sweep_id = '$SID' GROUP BY status HAVING sum(n) <> 0) c")
[ "$kept" = "done=60" ] || fail "kept counts of the sweep: $kept (expected done=60)"
ok "the sweep's kept counts, written and folded by two gateways: $kept"
# folds while rows are appended: a paused sweep of 400 jobs (nothing claims
# it) changed by 400 one-job statements, each its own transaction, over a few
# seconds, while both gateways' summary threads fold every second; then the
# sums equal a count of the jobs and the rows were folded
P=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs) VALUES ('$MID', 'folded', '{}', 'list', 'paused', 400)
         RETURNING id" | head -1)
sql "INSERT INTO jobs (sweep_id, idx, parameters) SELECT '$P', i, '{}' FROM generate_series(0, 399) i" || fail "folded jobs"
for i in $(seq 0 399); do
  echo "UPDATE jobs SET status = CASE WHEN $i % 3 = 0 THEN 'failed' ELSE 'cancelled' END WHERE sweep_id = '$P' AND idx = $i;"
  [ $((i % 40)) = 39 ] && echo "SELECT pg_sleep(0.3);"
done | psql "$DB" -Xq -v ON_ERROR_STOP=1 >/dev/null || fail "400 updates"
fold_rows() { sql "SELECT count(*) FROM sweep_counts WHERE sweep_id = '$P'"; }
few() { [ "$(fold_rows)" -le 32 ]; }
wait_until 10 few || fail "rows of the folded sweep: $(fold_rows)"
kept=$(sql "SELECT string_agg(status || '=' || s, ',' ORDER BY status) FROM
            (SELECT status, sum(n) s FROM sweep_counts WHERE sweep_id = '$P' GROUP BY status HAVING sum(n) <> 0) c")
fresh=$(sql "SELECT string_agg(status || '=' || s, ',' ORDER BY status) FROM
             (SELECT status, count(*) s FROM jobs WHERE sweep_id = '$P' GROUP BY status) c")
[ "$kept" = "$fresh" ] && [ "$fresh" = "cancelled=266,failed=134" ] || fail "kept $kept, counted $fresh"
ok "400 one-job statements over 3 s while two gateways fold: kept $kept in $(fold_rows) rows, equal to a count"
