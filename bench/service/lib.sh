# bench/service/lib.sh - shell pieces shared by the service benchmarks
# (bench/service_bench.sh, bench/dispatch_bench.sh), sourced after the
# script has set ROOT, CPU (python3 bench/service/cpu.py) and log().
#
# State the caller fills: PIDS (processes to stop on exit), TMP (temporary
# directory, removed on exit unless KEEP_TMP=1), PGDIR (PostgreSQL cluster
# started by scripts/pg.sh, stopped on exit).  Sourcing installs the exit
# trap.

PIDS=()
TMP=""
PGDIR=""

# Stop what the script started (TERM, KILL after 5 s), the cluster, the
# temporary directory.
bench_cleanup() {
  local p alive
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 1 50); do
    alive=0
    for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "$PGDIR" ] && bash "$ROOT/scripts/pg.sh" stop "$PGDIR" >/dev/null 2>&1
  if [ -n "$TMP" ]; then
    if [ "${KEEP_TMP:-0}" = 1 ]; then log "logs kept in $TMP"; else rm -rf "$TMP"; fi
  fi
  return 0
}
trap bench_cleanup EXIT
trap 'exit 1' INT TERM HUP

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# jget JSON KEY: one field of a JSON object
jget() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# CurveZMQ on, as deployed (the gateway refuses workers without keys): keys
# made once in $TMP/keys, passed to every gateway and worker through the
# environment.
bench_curve_keys() {
  "$ROOT/build/gateway" --curve-keygen-dir "$TMP/keys" >/dev/null || die "cannot make the CurveZMQ keys"
  export MBSWEEP_CURVE_SECRET_FILE=$TMP/keys/server.key MBSWEEP_CURVE_ALLOW=$TMP/keys/workers.allow
  export MBSWEEP_SERVER_KEY=$TMP/keys/server.pub MBSWEEP_CURVE_KEY_FILE=$TMP/keys/worker.key
}

# ---- CPU accounting around a measurement ------------------------------------------------
# mark NAME: snapshot; cpu_json A B: {"busy_pct", "other_pct", "by_prog"} between two
# snapshots.  Ours = this script's process tree + the PostgreSQL cluster; children
# that exited in between are counted through bash's `times`.
HZ=$(getconf CLK_TCK)
mark() {
  times >"$TMP/times.$1"
  $CPU snap "$TMP/snap.$1" $$ "$(head -1 "$PGDIR/data/postmaster.pid" 2>/dev/null || echo 0)"
}
reaped_ticks() {
  tail -1 "$1" | awk -v hz="$HZ" '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
                                   printf "%d\n", t * hz }'
}
cpu_json() {
  $CPU diff "$TMP/snap.$1" "$TMP/snap.$2" $(( $(reaped_ticks "$TMP/times.$2") - $(reaped_ticks "$TMP/times.$1") ))
}
