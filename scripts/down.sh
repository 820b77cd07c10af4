#!/usr/bin/env bash
# scripts/down.sh - `make down`: stop the workers, the gateway and the
# PostgreSQL cluster that scripts/up.sh started (by their recorded pids).
# MBSWEEP_RUN: the run directory up.sh was given (default run/).
set -uo pipefail
cd "$(dirname "$0")/.."
RUN=${MBSWEEP_RUN:-$PWD/run}
case "$RUN" in /*) ;; *) RUN=$PWD/$RUN ;; esac
# a recorded pid is signalled only while it is still one of this run's
# processes (its command line names the run directory): a process that died
# on its own leaves its pid to whatever the system starts next
ours() { kill -0 "$1" 2>/dev/null && grep -qsaF -- "$RUN/" "/proc/$1/cmdline"; }
pids=()
for p in $(cat "$RUN/workers.pid" "$RUN/gateway.pid" 2>/dev/null); do ours "$p" && pids+=("$p"); done
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
for _ in $(seq 1 100); do
  any=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && any=1; done
  [ $any = 0 ] && break; sleep 0.1
done
for p in "${pids[@]}"; do ours "$p" && kill -KILL "$p" 2>/dev/null; done
rm -f "$RUN/workers.pid" "$RUN/gateway.pid"
[ -d "$RUN/pg" ] && bash scripts/pg.sh stop "$RUN/pg"
echo "mbsweep is down"
