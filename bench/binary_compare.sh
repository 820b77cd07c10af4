#!/usr/bin/env bash
# bench/binary_compare.sh - one example run by two builds of mbs (before and
# after a change) in the same minutes: N runs of each, alternated so that
# both meet the same machine load; prints the load before and after, the
# median wall and CPU seconds of each (per simulated second too), the steps,
# Newton iterations and factorisations of the last run, and the largest
# output difference between the two builds' results (bench/output_diff.py:
# absolute, and relative to the channel's largest magnitude).
# Usage: bench/binary_compare.sh OLD_MBS NEW_MBS EXAMPLE.json [N=3] [--set NAME=VALUE ...]
# Issue 14's figures for the roller chain drive (bench/README.md) come from it.
set -u
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 OLD_MBS NEW_MBS EXAMPLE.json [N] [--set NAME=VALUE ...]" >&2; exit 2; }
old=$1 new=$2 ex=$3
shift 3
n=3
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then n=$1; shift; fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo "load before: $(uptime)"
for i in $(seq "$n"); do
  for which in old new; do
    bin=$old; [ $which = new ] && bin=$new
    "$bin" run "$ex" "$@" --quiet --out "$T/$which.csv" --metrics "$T/$which.json" > /dev/null || {
      echo "$which: run failed" >&2; exit 1; }
    python3 -c "import json,sys; m=json.load(open(sys.argv[1]));
print(m['wall_seconds'], m['cpu_seconds'], m['steps'], m['rejected_steps'], m['newton_iterations'], m['factorizations'])" \
      "$T/$which.json" >> "$T/$which.txt"
  done
done
echo "load after:  $(uptime)"
t_end=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['solver']['t_end'])" "$ex")
for a in "$@"; do case $a in solver.t_end=*) t_end=${a#solver.t_end=};; esac; done
echo
echo "| build | median wall (s) | median CPU (s) | CPU per simulated s (s) | steps | rejected | Newton it. | factorisations |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for which in old new; do
  python3 - "$T/$which.txt" "$which" "$t_end" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
wall = statistics.median(float(r[0]) for r in rows)
cpu = statistics.median(float(r[1]) for r in rows)
last = rows[-1]
print("| %s | %.3f | %.3f | %.1f | %s | %s | %s | %s |" % (sys.argv[2], wall, cpu, cpu / float(sys.argv[3]), *last[2:6]))
EOF
done
echo
echo "largest output difference (abs rel): $(python3 bench/output_diff.py "$T/old.csv" "$T/new.csv")"
