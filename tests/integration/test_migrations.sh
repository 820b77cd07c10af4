#!/usr/bin/env bash
# Migrations: a fresh database and one left at version 1 (an "old" database)
# both end at the same, current schema; running them again changes nothing.
source "$(dirname "$0")/lib.sh"
it_init migrations
"$DEVBUILD/gateway" --db "$DB" --migrate-only >"$IT_TMP/m1.log" 2>&1 || fail "fresh migrate"
OLD=${DB/dbname=$DBNAME/dbname=${DBNAME}_old}
psql_admin -qc "CREATE DATABASE ${DBNAME}_old" >/dev/null
"$DEVBUILD/gateway" --db "$OLD" --migrate-only --migrate-to 1 >"$IT_TMP/m2.log" 2>&1 || fail "migrate to 1"
[ "$(psql "$OLD" -XtAc 'SELECT max(version) FROM schema_migrations')" = 1 ] || fail "old db at version 1"
"$DEVBUILD/gateway" --db "$OLD" --migrate-only >"$IT_TMP/m3.log" 2>&1 || fail "upgrade old"
"$DEVBUILD/gateway" --db "$OLD" --migrate-only >"$IT_TMP/m4.log" 2>&1 || fail "re-run"
grep -q 'applied' "$IT_TMP/m4.log" && fail "second run applied something"
n=$(ls "$ROOT"/sql/[0-9][0-9][0-9]_*.sql | wc -l)
for d in "$DB" "$OLD"; do
  [ "$(psql "$d" -XtAc 'SELECT count(*) FROM schema_migrations')" = "$n" ] || fail "migrations recorded in $d"
done
dump() { pg_dump --schema-only --no-owner "$1" | grep -v '^--' | grep -v '^$' | grep -v 'SELECT pg_catalog.set_config' | grep -v '^.\(un\)\?restrict'; }
dump "$DB" > "$IT_TMP/fresh.sql"; dump "$OLD" > "$IT_TMP/old.sql"
diff "$IT_TMP/fresh.sql" "$IT_TMP/old.sql" >&2 || fail "schemas differ"
grep -q 'CREATE TABLE public.metrics' "$IT_TMP/fresh.sql" || fail "schema dump"
ok "fresh and upgraded databases have identical schemas at version $n; re-run is a no-op"
# the queue of queued jobs has one index, per sweep (sql/008): with the global
# one (sql/001, dropped by sql/013) beside it the planner walked the global
# one's dead entries in the dispatcher's claim (bench/README.md, "The slow claim")
for d in "$DB" "$OLD"; do
  q=$(psql "$d" -XtAc "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes
                       WHERE tablename = 'jobs' AND indexdef LIKE '%WHERE (status = ''queued''::text)%'")
  [ "$q" = jobs_sweep_queue_idx ] || fail "indexes of the queued jobs in $d: $q (expected jobs_sweep_queue_idx only)"
done
ok "the queued jobs have one index, per sweep (the global queue index dropped)"
# sql/015 counts the jobs of the sweeps already there: a database at version
# 14 with a sweep of jobs in several states (some with warnings), upgraded
OLD14=${DB/dbname=$DBNAME/dbname=${DBNAME}_14}
psql_admin -qc "CREATE DATABASE ${DBNAME}_14" >/dev/null
"$DEVBUILD/gateway" --db "$OLD14" --migrate-only --migrate-to 14 >"$IT_TMP/m5.log" 2>&1 || fail "migrate to 14"
psql "$OLD14" -Xq -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || fail "a sweep at version 14"
INSERT INTO models (id, name, definition, content_hash, check_report) VALUES ('m14', 'm', '{}', 'h14', '{}');
INSERT INTO sweeps (id, model_id, spec, design, status, njobs)
  VALUES ('00000000-0000-0000-0000-000000000014', 'm14', '{}', 'list', 'running', 30);
INSERT INTO jobs (sweep_id, idx, status) SELECT '00000000-0000-0000-0000-000000000014', i,
  (ARRAY['queued','running','done'])[i % 3 + 1] FROM generate_series(0, 29) i;
INSERT INTO metrics (job_id, tolerance_met, warning_count) SELECT id, idx % 2 = 0, 0 FROM jobs WHERE status = 'done';
SQL
"$DEVBUILD/gateway" --db "$OLD14" --migrate-only >"$IT_TMP/m6.log" 2>&1 || fail "upgrade 14"
got=$(psql "$OLD14" -XtAc "SELECT string_agg(status || '=' || s, ',' ORDER BY status)
                           FROM (SELECT status, sum(n) s FROM sweep_counts GROUP BY status) c")
[ "$got" = "done=10,queued=10,running=10,warned=5" ] || fail "sql/015 on a database with jobs: $got"
ok "sql/015 counts the jobs already there ($got)"
