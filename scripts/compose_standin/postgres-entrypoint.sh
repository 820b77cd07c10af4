#!/bin/sh
# The stand-in postgres:15's start (postgres.Containerfile): on an empty
# $PGDATA, initdb with POSTGRES_USER as superuser and POSTGRES_PASSWORD
# (local socket trusted, as in the official image),
# listen on every address with scram passwords, create POSTGRES_DB; then run
# the server in the foreground as the postgres user.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp); chown postgres "$pw"; printf '%s\n' "$POSTGRES_PASSWORD" > "$pw"
  as_pg initdb -D "$PGDATA" -U "$user" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  rm -f "$pw"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  # the database, created over the local socket with the server up briefly
  as_pg pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  [ "$db" = postgres ] || PGPASSWORD=$POSTGRES_PASSWORD as_pg createdb -h /run/postgresql -U "$user" "$db"
  as_pg pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA"
