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
