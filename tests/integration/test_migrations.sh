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
