#!/usr/bin/env bash
# Many clients at once: 8 writers submitting sweeps and 8 readers listing and
# polling, concurrently with two workers running the jobs.
source "$(dirname "$0")/lib.sh"
it_init concurrency
start_gateway --threads 4
start_worker k1; start_worker k2
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
writer() {
  local i
  for i in 1 2 3 4 5; do
    curl -s -o /dev/null -w '%{http_code}\n' -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
      --data '{"model":"'$MID'","name":"w'$1'-'$i'","design":{"kind":"random","samples":4,"seed":'$i'},"parameters":{"L":{"min":0.9,"max":1.1}}}' \
      "$BASE/api/v1/sweeps"
  done
}
reader() {
  local i
  for i in $(seq 1 25); do
    curl -s -o /dev/null -w '%{http_code}\n' "$BASE/api/v1/sweeps?limit=20"
    curl -s -o /dev/null -w '%{http_code}\n' "$BASE/api/v1/models/$MID"
  done
}
for i in $(seq 1 8); do writer "$i" > "$IT_TMP/w$i.out" & reader > "$IT_TMP/r$i.out" & done
wait_until 60 bash -c "[ \$(cat $IT_TMP/w*.out $IT_TMP/r*.out 2>/dev/null | wc -l) -ge 440 ]" || fail "clients did not finish"
sleep 0.5
bad=$(cat "$IT_TMP"/w*.out | grep -vc '^202$' || true)
[ "$bad" = 0 ] || fail "$bad writes not accepted"
bad=$(cat "$IT_TMP"/r*.out | grep -vc '^200$' || true)
[ "$bad" = 0 ] || fail "$bad reads failed"
ok "40 concurrent sweep submissions (202) and 400 reads (200)"
[ "$(sql "SELECT count(*) FROM sweeps")" = 40 ] && [ "$(sql "SELECT count(*) FROM jobs")" = 160 ] || fail "sweeps/jobs stored"
alldone() { [ "$(sql "SELECT count(*) FROM jobs WHERE status = 'done'")" = 160 ]; }
wait_until 60 alldone || fail "jobs not all done: $(sql "SELECT status, count(*) FROM jobs GROUP BY 1")"
[ "$(sql "SELECT count(*) FROM results")" = 160 ] || fail "results"
ok "all 160 jobs of the 40 sweeps done, one result each"
