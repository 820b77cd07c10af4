#!/usr/bin/env bash
# bench/contact_scaling.sh - contact deactivation on N balls on a floor:
# wall time with and without deactivation, the speed-up, pairs in the system
# and the cost per step per ball (linear growth check).  Runs without
# deactivation are cut at 120 s (solver.time_limit) and reported as such.
# CONTACT_SCALING_N sets the ball counts (default 16 36 64);
# CONTACT_SCALING_OFF=0 skips the runs without deactivation.
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo
echo "## Contact deactivation: N balls on a floor (bench/contact_scaling.sh)"
echo
echo "| N | declared pairs | wall on (s) | wall off (s) | speed-up | pairs in the system on (mean / max) | steps | us per step per ball (on) | CPU us per step per ball (on) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in ${CONTACT_SCALING_N:-16 36 64}; do
  python3 bench/contacts/floor_balls.py "$n" > "$T/m.json"
  build/mbs run "$T/m.json" --set solver.contact_deactivation=true --quiet --metrics "$T/on.json" > /dev/null 2>&1
  echo '{"steps": 0}' > "$T/off.json"
  [ "${CONTACT_SCALING_OFF:-1}" != 0 ] && build/mbs run "$T/m.json" --set solver.contact_deactivation=false \
      --set solver.time_limit=120 --quiet --metrics "$T/off.json" > /dev/null 2>&1
  python3 - "$n" "$T/on.json" "$T/off.json" <<'PY'
import json, sys
n = int(sys.argv[1]); on = json.load(open(sys.argv[2])); off = json.load(open(sys.argv[3]))
pairs = n * (n - 1) // 2 + n
done = off["steps"] > 0 and abs(off.get("wall_seconds", 0)) < 119
woff = "%.2f" % off["wall_seconds"] if done else "> 120 (cut)"
sp = "%.1f" % (off["wall_seconds"] / on["wall_seconds"]) if done else "> %.1f" % (120 / on["wall_seconds"])
if off["steps"] == 0 and "wall_seconds" not in off:
    woff, sp = "not run", "-"

print("| %d | %d | %.2f | %s | %s | %.1f / %d | %d | %.1f | %.1f |" % (
    n, pairs, on["wall_seconds"], woff, sp, on["mean_active_contacts"], on["max_active_contacts"],
    on["steps"], 1e6 * on["wall_seconds"] / on["steps"] / n, 1e6 * on["cpu_seconds"] / on["steps"] / n))
PY
done
