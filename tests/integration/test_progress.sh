#!/usr/bin/env bash
# Progress polling (issue 10): a finished sweep's counts, jobs with warnings,
# verified jobs and best values are read from its stored summary
# (sql/012_sweep_summary.sql, made by the gateway's summary thread when
# the dispatcher has finished the sweep, gateway/summary.c) instead of
# being counted at each poll of GET /api/v1/sweeps.
# Checked: the values listed equal a fresh count made here by SQL, for a
# sweep with done, failed and verification jobs, one cancelled mid-way, one
# whose job was retried after its worker was killed, one re-run after it
# had finished, and one set done by hand (as a bulk load does); a summary
# that waits (for a row lock) does not hold up dispatching; the stored
# path gives the same bytes as the live one (list and GET /sweeps/{id}); the
# ETag stays while nothing changes and changes with the counts.
source "$(dirname "$0")/lib.sh"
it_init progress
start_gateway --lease 2
start_worker w1
# a pendulum and a free body whose inertia is a parameter: I = 0 makes a
# singular mass matrix, so that job fails (at once: no retry)
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["parameters"]["I"]=1; m["bodies"].append({"name":"free","mass":1,"inertia":"$I","com":[3,0]}); print(json.dumps(m))' \
  "$PENDULUM" > "$IT_TMP/free.json"
MID=$(post_model "$IT_TMP/free.json"); [ -n "$MID" ] || fail "no model id"
RESP='"responses":[{"name":"xmax","channel":"x","reduce":"max"}]'

# fresh ID: the list's fields of sweep ID counted here, from the tables
fresh() {
  sql "SELECT json_build_object(
         'counts', (SELECT json_object_agg(s, (SELECT count(*) FROM jobs WHERE sweep_id = '$1' AND kind = 'design' AND status = s))
                    FROM unnest(ARRAY['queued','running','done','failed','cancelled']) s),
         'jobs_with_warnings', (SELECT count(*) FROM jobs j JOIN metrics m ON m.job_id = j.id WHERE j.sweep_id = '$1'
                                AND j.kind = 'design' AND (NOT m.tolerance_met OR m.warning_count > 0)),
         'jobs_verified', (SELECT count(*) FROM verifications WHERE sweep_id = '$1'),
         'best', (SELECT json_build_object('min', min((r.responses->>'xmax')::float8), 'max', max((r.responses->>'xmax')::float8),
                                           'jobs', count(*))
                  FROM jobs j JOIN results r ON r.job_id = j.id WHERE j.sweep_id = '$1' AND j.kind = 'design'))"
}
# listed ID [BASE]: the same fields as GET /api/v1/sweeps?best=xmax shows them
listed() {
  curl -s "${2:-$BASE}/api/v1/sweeps?best=xmax&limit=1000" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["items"]:
    if s["id"] == sys.argv[1]:
        b = s["best"]
        print(json.dumps({"counts": s["counts"], "jobs_with_warnings": s["jobs_with_warnings"],
                          "jobs_verified": s["jobs_verified"], "best": {k: b[k] for k in ("min", "max", "jobs")}}))' "$1"
}
# same A B: the two JSON texts hold equal values (floats exactly)
same() { python3 -c 'import json,sys; a,b=(json.loads(x) for x in sys.argv[1:3]); sys.exit(a != b)' "$1" "$2"; }
stored() { [ "$(sql "SELECT summary_at = finished_at FROM sweeps WHERE id = '$1'")" = t ]; }
check() {   # check ID WHAT: the summary is stored and the list shows a fresh count
  wait_until 20 stored "$1" || fail "$2: no summary stored"
  local a b; a=$(listed "$1"); b=$(fresh "$1")
  same "$a" "$b" || fail "$2: listed $a, counted $b"
}

# ---- a sweep with done, failed and verification jobs ------------------------------
A=$(post_sweep '{"model":"'$MID'","name":"mixed","design":{"kind":"list","rows":[{"I":0},{"I":1},{"I":0.5},{"I":0},{"I":2},{"I":1.5}]},
  "solver":{"t_end":[0.3]},"verify":0.5,'"$RESP"'}')
wait_until 60 sweep_is "$A" done || fail "mixed sweep: $(sweep_state "$A")"
check "$A" "mixed sweep"
c=$(listed "$A" | jget '[d["counts"]["done"], d["counts"]["failed"]]')
[ "$c" = "[4, 2]" ] || fail "mixed sweep: done, failed = $c, expected 4 and 2"
[ "$(listed "$A" | jget 'd["jobs_verified"]')" -ge 1 ] || fail "mixed sweep: nothing verified"
ok "done sweep: the stored counts equal a fresh count ($(listed "$A"))"

# the ETag: unchanged while nothing changes (304), another once something shows
etag() { curl -s -D - -o /dev/null "$BASE/api/v1/sweeps$1" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p'; }
E1=$(etag ""); [ -n "$E1" ] || fail "no ETag on the list"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $E1" "$BASE/api/v1/sweeps")" = 304 ] || fail "unchanged list not 304"

# ---- re-run: the failed jobs given a valid inertia and queued again, the sweep
# paused (what an operator does by SQL; there is no endpoint for it), then
# resumed: counted live meanwhile, a new summary once done again ------------
sql "UPDATE jobs SET status = 'queued', parameters = '{\"I\":3}', attempt = 0, error = NULL, finished_at = NULL
     WHERE sweep_id = '$A' AND kind = 'design' AND status = 'failed';
     UPDATE sweeps SET status = 'paused' WHERE id = '$A'" >/dev/null || fail "re-run"
c=$(listed "$A" | jget '[d["counts"]["done"], d["counts"]["queued"], d["counts"]["failed"]]')
[ "$c" = "[4, 2, 0]" ] || fail "paused re-run: done, queued, failed = $c, expected 4, 2, 0"
same "$(listed "$A")" "$(fresh "$A")" || fail "paused re-run: $(listed "$A") vs $(fresh "$A")"
[ "$(etag "")" != "$E1" ] || fail "ETag unchanged with jobs queued again"
api POST "/api/v1/sweeps/$A/resume"; [ "$STATUS" = 200 ] || fail "resume: $STATUS $BODY"
wait_until 60 sweep_is "$A" done || fail "re-run sweep: $(sweep_state "$A")"
check "$A" "re-run sweep"
[ "$(listed "$A" | jget 'd["counts"]["done"]')" = 6 ] || fail "re-run sweep: $(listed "$A")"
E2=$(etag ""); [ -n "$E2" ] && [ "$E2" != "$E1" ] || fail "ETag unchanged after the re-run ($E1)"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $E1" "$BASE/api/v1/sweeps")" = 200 ] || fail "old ETag still 304"
ok "re-run sweep: counted live while paused with 2 jobs queued again, then 6 done, a fresh count; the list's ETag changed ($E1 -> $E2)"

# ---- a retried job: its worker killed mid-job, the job run again (attempt 2) ------
kill -TERM "$WK_PID"; wait "$WK_PID" 2>/dev/null
start_worker victim --slots 1 --job-delay-ms 1500; VICTIM=$WK_PID
R=$(post_sweep '{"model":"'$MID'","name":"retried","design":{"kind":"list","rows":[{"I":1},{"I":2}]},"solver":{"t_end":[0.3]},'"$RESP"'}')
held() { JOB=$(sql "SELECT id FROM jobs WHERE sweep_id = '$R' AND status = 'running' AND lease_owner = 'victim' LIMIT 1"); [ -n "$JOB" ]; }
wait_until 20 held || fail "victim never got a job"
kill -KILL "$VICTIM"
[ "$(listed "$R" | jget 'd["counts"]["running"] + d["counts"]["queued"]')" -ge 1 ] || fail "retried sweep: nothing live $(listed "$R")"
# (the job's state may change between the two reads: equal in one of a few tries)
live_same() { same "$(listed "$R")" "$(fresh "$R")"; }
wait_until 10 live_same || fail "live counts of a running sweep: $(listed "$R") vs $(fresh "$R")"
start_worker w2
wait_until 60 sweep_is "$R" done || fail "retried sweep: $(sweep_state "$R")"
[ "$(sql "SELECT attempt FROM jobs WHERE id = $JOB")" = 2 ] || fail "job $JOB not retried"
check "$R" "retried sweep"
[ "$(listed "$R" | jget 'd["counts"]["done"]')" = 2 ] || fail "retried sweep: $(listed "$R")"
ok "retried job (attempt 2): running sweep counted live, then 2 done, a fresh count"

# ---- cancelled mid-way ------------------------------------------------------------
kill -TERM "$WK_PID"; wait "$WK_PID" 2>/dev/null
start_worker slow --slots 1 --job-delay-ms 800
C=$(post_sweep '{"model":"'$MID'","name":"cancelled","design":{"kind":"list","rows":[{"I":1},{"I":2},{"I":3},{"I":4},{"I":5},{"I":6}]},"solver":{"t_end":[0.3]},'"$RESP"'}')
wait_until 30 count_ge "$C" done 1 || fail "cancelled sweep: no job done"
api POST "/api/v1/sweeps/$C/cancel"; [ "$STATUS" = 200 ] || fail "cancel: $STATUS $BODY"
check "$C" "cancelled sweep"
[ "$(listed "$C" | jget 'd["counts"]["cancelled"] > 0 and d["counts"]["done"] > 0')" = True ] || fail "cancelled sweep: $(listed "$C")"
ok "cancelled sweep: $(listed "$C" | jget 'd["counts"]'), a fresh count"

# ---- set done by hand (a bulk load): the gateway makes its summary --------------
B=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs, started_at, finished_at)
         VALUES ('$MID', 'bulk', '{\"responses\":[{\"name\":\"xmax\",\"channel\":\"x\",\"reduce\":\"max\"}]}', 'random',
                 'paused', 300, now(), NULL) RETURNING id" | head -1)
sql "INSERT INTO jobs (sweep_id, idx, parameters, status, attempt, error, started_at, finished_at)
     SELECT '$B', i, jsonb_build_object('I', i), CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'done' END, 1,
            CASE WHEN i % 7 = 0 THEN 'failed here' END, now(), now() FROM generate_series(0, 299) i" || fail "bulk jobs"
sql "INSERT INTO results (job_id, channels, nsample, samples, responses)
     SELECT id, '{x}', 0, '', jsonb_build_object('xmax', idx * 0.1 - 7) FROM jobs WHERE sweep_id = '$B' AND status = 'done'" || fail "bulk results"
sql "INSERT INTO metrics (job_id, integrator, wall_seconds, cpu_seconds, steps, newton_iterations, max_system_dimension,
                          tolerance_met, warning_count, warnings)
     SELECT id, 'bdf', 0.01, 0.01, 10, 10, 4, idx % 5 <> 0, 0, '[]' FROM jobs WHERE sweep_id = '$B' AND status = 'done'" || fail "bulk metrics"
sql "UPDATE sweeps SET status = 'done', finished_at = now() WHERE id = '$B'" >/dev/null
check "$B" "sweep set done by hand"
[ "$(listed "$B" | jget '[d["jobs_with_warnings"], d["counts"]["failed"]]')" = "[51, 43]" ] || fail "bulk: $(listed "$B")"
[ "$(sql "SELECT summary->'best' ? 'xmax' FROM sweeps WHERE id = '$B'")" = t ] || fail "bulk: xmax's best values not stored"
ok "sweep set done by hand: summary made by the gateway (with xmax's best values), a fresh count"

# ---- the stored path and the live one give the same bytes --------------------------
# (a gateway without a dispatcher, the other stopped: nothing makes a summary
# while they are hidden)
kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
start_gateway --no-dispatch
for q in "?best=xmax&limit=1000" "?limit=1000" "?best=nothing"; do get "/api/v1/sweeps$q" > "$IT_TMP/stored$q"; done
for s in "$A" "$C" "$B"; do get "/api/v1/sweeps/$s" > "$IT_TMP/stored-$s"; done
[ "$(sql "SELECT count(*) FROM sweeps WHERE status IN ('done','cancelled') AND summary_at = finished_at")" = 4 ] || fail "not every summary stored"
sql "UPDATE sweeps SET summary_at = NULL" >/dev/null
for q in "?best=xmax&limit=1000" "?limit=1000" "?best=nothing"; do
  get "/api/v1/sweeps$q" > "$IT_TMP/live$q"
  cmp -s "$IT_TMP/stored$q" "$IT_TMP/live$q" || { diff <(python3 -m json.tool "$IT_TMP/stored$q") <(python3 -m json.tool "$IT_TMP/live$q") >&2; fail "list$q: stored and live differ"; }
done
for s in "$A" "$C" "$B"; do
  get "/api/v1/sweeps/$s" > "$IT_TMP/live-$s"
  cmp -s "$IT_TMP/stored-$s" "$IT_TMP/live-$s" || fail "GET /sweeps/$s: stored and live differ"
done
[ "$(jget 'd["verification"]["verified"]' < "$IT_TMP/stored-$A")" -ge 1 ] || fail "GET of the mixed sweep: nothing verified"
ok "stored and live summaries give the same bytes (list with and without ?best, GET of 3 sweeps)"

# ---- a summary that waits does not hold up dispatching -----------------------------
# A finished sweep whose row another session holds locked (FOR UPDATE) stands
# for a summary that takes long (0.5 s for 10^5 jobs, more for larger ones):
# the summary thread's UPDATE waits for the lock, and meanwhile a new sweep
# must be dispatched and finished.  Before summary.c the dispatcher made the
# summary in its own pass: it waited there until its statement timeout
# (10 s), nothing was dispatched meanwhile, and the UPDATE was then given up.
kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
L=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs, counts, started_at, finished_at)
         VALUES ('$MID', 'locked', '{$(echo "$RESP" | sed "s/'/''/g")}', 'random', 'done', 0, '{}', now(), now()) RETURNING id" | head -1)
psql "$DB" -X -q -c "BEGIN; SELECT 1 FROM sweeps WHERE id = '$L' FOR UPDATE; SELECT pg_sleep(300); COMMIT" \
  >/dev/null 2>&1 &
IT_PIDS+=("$!")
locker() { sql "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(300)%' AND state = 'active' AND pid <> pg_backend_pid()"; }
has_locker() { [ -n "$(locker)" ]; }
wait_until 20 has_locker || fail "the locking session did not start"
start_gateway
S=$(post_sweep '{"model":"'$MID'","name":"beside","design":{"kind":"list","rows":[{"I":1},{"I":2},{"I":3}]},"solver":{"t_end":[0.2]},'"$RESP"'}')
wait_until 25 sweep_is "$S" done || fail "a summary waiting for a lock held up dispatching: $(sweep_state "$S")"
# the summary was still waiting for the lock when the other sweep was done
waiting=$(sql "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'UPDATE sweeps s SET summary%' AND wait_event_type = 'Lock'")
[ "$waiting" = 1 ] || fail "the summary of the locked sweep was not waiting when the other sweep was done ($waiting)"
sql "SELECT pg_terminate_backend($(locker))" >/dev/null
wait_until 20 stored "$L" || fail "locked sweep: no summary stored once the lock was released"
check "$S" "sweep done beside a waiting summary"
ok "a summary waiting for a lock: another sweep dispatched and done meanwhile, both summaries stored after"

# ---- the counts the triggers keep (sql/015_sweep_counts.sql) ------------------------
# A running sweep is counted from sweep_counts, rows of differences that
# triggers on jobs and metrics append in the same transaction.  After all of
# the above (claims, results, a killed worker's retry, a cancel, a re-run by
# SQL, a bulk load), every sweep's sums equal a count of its jobs, in one
# snapshot; then after a job deleted, a warning changed by hand, a sweep
# deleted, and the summary thread's fold of a sweep's many rows.
counts_diff() {
  sql "WITH k AS (SELECT sweep_id, kind, status, sum(n)::bigint n FROM sweep_counts GROUP BY 1, 2, 3 HAVING sum(n) <> 0),
            f AS (SELECT sweep_id, kind, status, count(*) n FROM jobs GROUP BY 1, 2, 3
                  UNION ALL SELECT j.sweep_id, j.kind, 'warned', count(*) FROM metrics m JOIN jobs j ON j.id = m.job_id
                            WHERE m.tolerance_met = false OR m.warning_count > 0 GROUP BY 1, 2)
       SELECT coalesce(string_agg(format('%s %s %s %s', w, sweep_id, kind, status || '=' || n), '; '), '')
       FROM ((SELECT 'kept', * FROM k EXCEPT SELECT 'kept', * FROM f)
             UNION ALL (SELECT 'counted', * FROM f EXCEPT SELECT 'counted', * FROM k)) x(w, sweep_id, kind, status, n)"
}
nk=$(sql "SELECT count(DISTINCT sweep_id) FROM sweep_counts")
d=$(counts_diff); [ -z "$d" ] || fail "sweep_counts differ from a count of the jobs: $d"
[ "$(sql "SELECT sum(n) FROM sweep_counts WHERE sweep_id = '$B' AND status = 'warned'")" = 51 ] || fail "bulk sweep: warned jobs kept"
J=$(sql "SELECT id FROM jobs WHERE sweep_id = '$B' AND status = 'done' ORDER BY id LIMIT 1")
sql "DELETE FROM jobs WHERE id = (SELECT id FROM jobs WHERE sweep_id = '$B' AND status = 'failed' ORDER BY id LIMIT 1);
     UPDATE metrics SET tolerance_met = NOT tolerance_met WHERE job_id = $J" >/dev/null || fail "job deleted, warning changed"
d=$(counts_diff); [ -z "$d" ] || fail "after a job deleted and a warning changed: $d"
sql "DELETE FROM sweeps WHERE id = '$S'" >/dev/null || fail "delete sweep"
[ "$(sql "SELECT count(*) FROM sweep_counts WHERE sweep_id = '$S'")" = 0 ] || fail "a deleted sweep's counts stay"
d=$(counts_diff); [ -z "$d" ] || fail "after a sweep deleted: $d"
# a paused sweep (nothing dispatches it) changed by 60 statements of one job
# each, in one transaction (so that no fold sees only some of them): 60 rows
# appended, folded by the summary thread into one per state
P=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs) VALUES ('$MID', 'folded', '{}', 'list', 'paused', 100)
         RETURNING id" | head -1)
sql "INSERT INTO jobs (sweep_id, idx, parameters) SELECT '$P', i, '{}' FROM generate_series(0, 99) i" || fail "folded jobs"
{ echo "BEGIN;"; for i in $(seq 0 59); do echo "UPDATE jobs SET status = 'cancelled' WHERE sweep_id = '$P' AND idx = $i;"; done
  echo "COMMIT;"; } | psql "$DB" -Xq -v ON_ERROR_STOP=1 >/dev/null || fail "60 updates"
rows() { sql "SELECT count(*) FROM sweep_counts WHERE sweep_id = '$P'"; }
folded() { [ "$(rows)" -le 2 ]; }
wait_until 10 folded || fail "the summary thread did not fold the paused sweep's $(rows) rows"
[ "$(get "/api/v1/sweeps/$P" | jget '[d["counts"]["queued"], d["counts"]["cancelled"]]')" = "[40, 60]" ] \
  || fail "folded sweep: $(get "/api/v1/sweeps/$P" | jget 'd["counts"]')"
d=$(counts_diff); [ -z "$d" ] || fail "after the fold: $d"
ok "sweep_counts equal a count of the jobs for all $nk sweeps (and after a job deleted, a warning changed, a sweep deleted, 61 rows folded into $(rows))"

# ---- polling a large running sweep reads none of its jobs ------------------------------
# 20,000 jobs in every state (every 13th done job with a warning), the sweep
# running, a gateway that does not dispatch (nothing else reads jobs) and
# autovacuum off for jobs: the rows of jobs read (PostgreSQL's statistics,
# sequential and by index) over 10 GET /sweeps/{id} and 10 GET /sweeps.
# Counting them by state and warning, as before sql/015, read the 20,000
# jobs at each poll (3 x 20,000 with the two warning counts).
kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
start_gateway --no-dispatch
sql "ALTER TABLE jobs SET (autovacuum_enabled = off)" >/dev/null
L=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs, started_at)
         VALUES ('$MID', 'large', '{}', 'random', 'running', 20000, now() - interval '10 seconds') RETURNING id" | head -1)
sql "INSERT INTO jobs (sweep_id, idx, parameters, status, attempt, lease_owner, lease_expires)
     SELECT '$L', i, '{}', CASE WHEN i < 5000 THEN 'queued' WHEN i < 6000 THEN 'running' WHEN i % 50 = 0 THEN 'failed' ELSE 'done' END,
            CASE WHEN i < 5000 THEN 0 ELSE 1 END, CASE WHEN i BETWEEN 5000 AND 5999 THEN 'nobody' END,
            CASE WHEN i BETWEEN 5000 AND 5999 THEN now() + interval '1 hour' END
     FROM generate_series(0, 19999) i" || fail "large jobs"
sql "INSERT INTO metrics (job_id, integrator, tolerance_met, warning_count, warnings)
     SELECT id, 'bdf', idx % 13 <> 0, 0, '[]' FROM jobs WHERE sweep_id = '$L' AND status = 'done'" || fail "large metrics"
sql "ANALYZE jobs" >/dev/null
read_rows() { sql "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE relname = 'jobs'"; }
get "/api/v1/sweeps/$L" >/dev/null; sleep 2.5   # statements prepared, statistics flushed
r0=$(read_rows)
for i in $(seq 10); do get "/api/v1/sweeps/$L" > "$IT_TMP/large.json"; get "/api/v1/sweeps?limit=5" >/dev/null; done
sleep 2.5   # each backend flushes its statistics within a second of going idle
r1=$(read_rows)
sql "ALTER TABLE jobs RESET (autovacuum_enabled)" >/dev/null
a=$(jget '{"counts": d["counts"], "w": d["jobs_with_warnings"]}' < "$IT_TMP/large.json")
b=$(sql "SELECT json_build_object('counts', (SELECT json_object_agg(s, (SELECT count(*) FROM jobs WHERE sweep_id = '$L' AND status = s))
                                            FROM unnest(ARRAY['queued','running','done','failed','cancelled']) s),
                                  'w', (SELECT count(*) FROM jobs j JOIN metrics m ON m.job_id = j.id
                                        WHERE j.sweep_id = '$L' AND NOT m.tolerance_met))")
same "$a" "$b" || fail "large running sweep: shown $a, counted $b"
[ "$(jget 'd["eta"] is not None' < "$IT_TMP/large.json")" = True ] || fail "large running sweep: no eta"
[ $((r1 - r0)) -lt 2000 ] || fail "20 polls of a running 20,000-job sweep read $((r1 - r0)) rows of jobs"
ok "20 polls of a running 20,000-job sweep read $((r1 - r0)) rows of jobs (counts and warnings equal a fresh count: $a)"
# /metrics reads the same counts: jobs by state over the database, and the
# queued jobs of queued or running sweeps (the large one's 5000, the paused
# sweep's 40 not among them)
get /metrics > "$IT_TMP/metrics.txt"
for st in queued running done failed cancelled; do
  want=$(sql "SELECT count(*) FROM jobs WHERE status = '$st'")
  grep -qx "mbsweep_jobs{state=\"$st\"} $want" "$IT_TMP/metrics.txt" || fail "/metrics $st: $(grep "state=\"$st\"" "$IT_TMP/metrics.txt"), counted $want"
done
want=$(sql "SELECT count(*) FROM jobs j JOIN sweeps w ON w.id = j.sweep_id WHERE j.status = 'queued' AND w.status IN ('queued','running')")
grep -qx "mbsweep_queue_depth $want" "$IT_TMP/metrics.txt" || fail "/metrics queue depth: $(grep '^mbsweep_queue_depth' "$IT_TMP/metrics.txt"), counted $want"
ok "/metrics: jobs by state and the queue depth ($want) equal a count of the jobs"
