#!/usr/bin/env bash
# bench/check_scaling.sh - cost of `build/mbs check` on long chains (issue 11:
# a 10,000-body chain checked in under 1 s and 200 MB), planar revolute,
# spatial revolute (axes alternating z, y) and spherical, at several sizes.
#
#   bash bench/check_scaling.sh [N ...]     (default 1000 3000 10000 30000;
#                                            MBS=path measures another build)
#
# Each check runs 3 times under /usr/bin/time; printed: the median CPU time
# (user + sys), the median wall time and the largest maximum RSS, as one
# markdown table.  The chains are the ones of tests/cli/test_cli.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
MBS=${MBS:-build/mbs}
[ -x "$MBS" ] || { echo "check_scaling: $MBS not built (make build/mbs)" >&2; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 3000 10000 30000)
echo "| chain | bodies | CPU s (median of 3) | wall s (median) | max RSS (MB) | KB per body |"
echo "|---|---:|---:|---:|---:|---:|"
for kind in planar revolute spherical; do
  for n in "${sizes[@]}"; do
    python3 - "$kind" "$n" > "$T/c.json" <<'PY'
import json, sys
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "planar":
    b = [{"name": "b%d" % i, "mass": 1, "inertia": 0.01, "com": [i + 0.5, 0], "angle": 0} for i in range(n)]
    j = [{"name": "j%d" % i, "type": "revolute", "bodies": ["ground" if i == 0 else "b%d" % (i - 1), "b%d" % i],
          "at": [i, 0]} for i in range(n)]
    dim = 2
else:
    b = [{"name": "b%d" % i, "mass": 1, "inertia": [0.01, 0.01, 0.01], "com": [i + 0.5, 0, 0]} for i in range(n)]
    j = [{"name": "j%d" % i, "type": kind, "bodies": ["ground" if i == 0 else "b%d" % (i - 1), "b%d" % i],
          "at": [i, 0, 0]} for i in range(n)]
    if kind == "revolute":
        for i, jj in enumerate(j): jj["axis"] = [0, 0, 1] if i % 2 == 0 else [0, 1, 0]
    dim = 3
print(json.dumps({"name": "chain", "dimension": dim, "bodies": b, "joints": j, "solver": {"t_end": 0.01}}))
PY
    : > "$T/times"
    for _ in 1 2 3; do
      /usr/bin/time -f '%U %S %e %M' -o "$T/t" "$MBS" check "$T/c.json" > /dev/null || { echo "check failed: $kind $n" >&2; exit 1; }
      cat "$T/t" >> "$T/times"
    done
    python3 - "$kind" "$n" "$T/times" <<'PY'
import statistics, sys
kind, n = sys.argv[1], int(sys.argv[2])
rows = [list(map(float, l.split())) for l in open(sys.argv[3]) if l.strip()]
cpu = statistics.median(r[0] + r[1] for r in rows)
wall = statistics.median(r[2] for r in rows)
kb = max(r[3] for r in rows)
print("| %s | %d | %.2f | %.2f | %.0f | %.1f |" % (kind, n, cpu, wall, kb / 1024, kb / n))
PY
  done
done
