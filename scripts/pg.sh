#!/usr/bin/env bash
# scripts/pg.sh - a private PostgreSQL cluster for the service and its tests.
#
#   scripts/pg.sh start DIR [PORT]   create (first time) and start; prints the conninfo
#   scripts/pg.sh stop DIR           stop (fast)
#   scripts/pg.sh restart DIR        stop and start again (same port)
#   scripts/pg.sh status DIR         exit 0 if running
#   scripts/pg.sh conninfo DIR       print the libpq conninfo
#
# The cluster lives in DIR/data, owned by the `postgres` user (initdb refuses
# root), listens on 127.0.0.1 only (password auth with no password set: no
# TCP logins) and on a Unix socket in DIR/sock (mode 0700: only root and
# postgres can connect, with trust).  PG_FAST=1 turns fsync off (tests).
# Database: mbsweep.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { sed -n '2,14p' "$0"; exit 2; }
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$PGBIN/pg_ctl" ] || { echo "pg.sh: PostgreSQL binaries not found (install postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

free_port() {
  python3 - <<'PY'
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
}

conninfo() { echo "host=$dir/sock port=$(cat "$dir/port") dbname=mbsweep user=$(cat "$dir/user")"; }

running() { [ -f "$dir/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; }

start() {
  mkdir -p "$dir"; chmod 755 "$dir"
  as_pg test -x "$dir" || { echo "pg.sh: user postgres cannot reach $dir (make its parents world-executable)" >&2; exit 1; }
  local user=postgres; [ "$(id -u)" -ne 0 ] && user=$(id -un)
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    # first start: the cluster, owned by postgres
    mkdir -p "$dir/data" "$dir/sock"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir/data" "$dir/sock"
    chmod 700 "$dir/data" "$dir/sock"
    as_pg "$PGBIN/initdb" -D "$dir/data" -U "$user" --auth-local=trust --auth-host=scram-sha-256 \
      -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    echo "$user" > "$dir/user"
  fi
  [ -f "$dir/port" ] || echo "${port:-$(free_port)}" > "$dir/port"
  if running; then echo "pg.sh: already running" >&2; conninfo; return 0; fi
  local p; p=$(cat "$dir/port")
  local fast=""; [ "${PG_FAST:-0}" = 1 ] && fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  touch "$dir/postgres.log"; [ "$(id -u)" -eq 0 ] && chown postgres: "$dir/postgres.log"
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
    -o "-p $p -k $dir/sock -c listen_addresses=127.0.0.1 -c max_connections=200 $fast" start >/dev/null
  # the database, once
  if ! as_pg "$PGBIN/psql" -h "$dir/sock" -p "$p" -U "$(cat "$dir/user")" -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'mbsweep'" | grep -q 1; then
    as_pg "$PGBIN/psql" -h "$dir/sock" -p "$p" -U "$(cat "$dir/user")" -d postgres -qc "CREATE DATABASE mbsweep" >/dev/null
  fi
  conninfo
}

stop() { if running; then as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null; fi; }

port=${3:-}
case "$cmd" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) running ;;
  conninfo) conninfo ;;
  *) echo "pg.sh: unknown command $cmd" >&2; exit 2 ;;
esac
