#!/usr/bin/env bash
# The clean-ups signal only their own processes.  Pids wrap around within
# minutes on this machine (pid_max 32768), so a recorded pid whose process
# ended may name another program by the time a test ends or `make down`
# runs: another suite's gateway, say.  Here a process stands for one that
# took a recorded pid (started with another test's mark, or without the run
# directory in its command line), and:
#   1. lib.sh's it_cleanup stops the test's own process and leaves it alone;
#   2. scripts/down.sh stops the run's recorded process and leaves alone the
#      one recorded in gateway.pid that is not the run's.
source "$(dirname "$0")/lib.sh"
FOREIGN=()
trap 'for p in "${FOREIGN[@]}"; do kill -KILL "$p" 2>/dev/null; done; it_cleanup' EXIT
trap 'exit 1' INT TERM
it_mkdir

# ---- 1. it_cleanup ------------------------------------------------------------------
# orphan [ENV...]: `sleep 300` started from a subshell that exits at once
# (no longer a child of this shell, as make up's processes), running once it
# has exec'd; its pid
orphan() {
  ( env "$@" sleep 300 >/dev/null 2>&1 & echo $! > "$IT_TMP/orphan.pid" )
  local p; p=$(cat "$IT_TMP/orphan.pid")
  wait_until 5 grep -qsa '^sleep' "/proc/$p/cmdline" || fail "sleep did not start"
  echo "$p"
}
sleep 300 & CHILD=$!
MINE=$(orphan)                                  # this test's mark, inherited
OTHER=$(orphan MBSWEEP_IT_RUN=/tmp/another-test)
FOREIGN+=("$MINE" "$OTHER")
IT_PIDS+=("$CHILD" "$MINE" "$OTHER")
it_ours "$CHILD" && it_ours "$MINE" || fail "it_ours does not know the test's own processes"
! it_ours "$OTHER" || fail "it_ours takes another test's process for its own"
( it_cleanup )
for p in "$CHILD" "$MINE"; do
  wait_until 5 bash -c "! kill -0 $p 2>/dev/null" || fail "it_cleanup left the test's own process $p running"
done
kill -0 "$OTHER" 2>/dev/null || fail "it_cleanup stopped a process that is not the test's (it took a recorded pid)"
ok "it_cleanup stops the test's process, not another's that holds a recorded pid"

# ---- 2. make down (scripts/down.sh) -----------------------------------------------------
RUN=$IT_TMP/run; mkdir -p "$RUN"
python3 -c 'import time; time.sleep(300)' "$RUN/worker-stand-in" & RUNS=$!
sleep 300 & STRANGER=$!
FOREIGN+=("$RUNS" "$STRANGER")
echo "$RUNS" > "$RUN/workers.pid"; echo "$STRANGER" > "$RUN/gateway.pid"
MBSWEEP_RUN=$RUN bash "$ROOT/scripts/down.sh" > "$IT_TMP/down.out" 2>&1 || fail "make down: $(cat "$IT_TMP/down.out")"
grep -qx "mbsweep is down" "$IT_TMP/down.out" || fail "make down: $(cat "$IT_TMP/down.out")"
wait_until 5 bash -c "! kill -0 $RUNS 2>/dev/null" || fail "make down left the run's process running"
kill -0 "$STRANGER" 2>/dev/null || fail "make down stopped a process that is not the run's (a stale gateway.pid)"
[ ! -e "$RUN/gateway.pid" ] && [ ! -e "$RUN/workers.pid" ] || fail "make down kept the pid files"
ok "make down stops the run's processes, not another's named by a stale pid file"
