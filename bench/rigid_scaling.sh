#!/usr/bin/env bash
# bench/rigid_scaling.sh - rigid contacts by Moreau-Jean time stepping: N
# balls in a box (bench/contacts/box_balls.py, 1 s of motion, h = 2 ms),
# with and without contact deactivation: wall time per simulated second,
# mean LCP dimension (impulse unknowns per step) both ways, mean pairs in
# the system, PGS steps that hit the sweep limit, and the cost per step per
# ball (linear growth check).  Runs without deactivation are cut at
# RIGID_SCALING_LIMIT seconds (solver.time_limit, default 120) and reported
# as such.  RIGID_SCALING_EPS sets solver.lcp_regularization (default 1e-2;
# 0 = the unregularised PGS).  MBS=path runs another build of the CLI (a
# copy of build/mbs from before a change, for before/after in one session);
# RIGID_SCALING_N sets the ball counts (default 25 50 100 200);
# RIGID_SCALING_OFF=0 skips the runs without deactivation;
# RIGID_SCALING_TOL sets solver.lcp_tolerance (default: the generator's 1e-6).  The costs per
# step are CPU time (cpu_seconds: on a shared machine wall time also
# counts the waits for a core).
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
LIMIT=${RIGID_SCALING_LIMIT:-120}
MBS=${MBS:-build/mbs}
EPS=${RIGID_SCALING_EPS:-1e-2}
TOL=${RIGID_SCALING_TOL:-1e-6}
echo
echo "## Rigid contacts (Moreau-Jean): N balls in a box (bench/rigid_scaling.sh, $MBS, lcp_regularization $EPS, lcp_tolerance $TOL, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| N | declared pairs | wall/sim s on | CPU/sim s on | wall/sim s off | LCP dim on | LCP dim off | pairs on (mean) | PGS limit hits on | complementarity on | CPU us per step per ball (on) | CPU us per step per point (on) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in ${RIGID_SCALING_N:-25 50 100 200}; do
  python3 bench/contacts/box_balls.py "$n" 1.0 > "$T/m.json"
  "$MBS" run "$T/m.json" --set solver.contact_deactivation=true --set solver.lcp_regularization="$EPS" \
      --set solver.lcp_tolerance="$TOL" --quiet \
      --metrics "$T/on.json" > /dev/null 2>&1
  rm -f "$T/off.json"
  [ "${RIGID_SCALING_OFF:-1}" != 0 ] && "$MBS" run "$T/m.json" --set solver.contact_deactivation=false \
      --set solver.lcp_regularization="$EPS" --set solver.lcp_tolerance="$TOL" --set solver.time_limit="$LIMIT" --quiet \
      --metrics "$T/off.json" > /dev/null 2>&1
  python3 - "$n" "$T/on.json" "$T/off.json" "$LIMIT" <<'PY'
import json, sys
import os
n = int(sys.argv[1]); on = json.load(open(sys.argv[2])); lim = float(sys.argv[4])
off = json.load(open(sys.argv[3])) if os.path.exists(sys.argv[3]) else None
pairs = n * (n - 1) // 2 + 5 * n
t_sim = on["steps"] * 0.002
done = off is not None and off["steps"] >= on["steps"] and off["wall_seconds"] < lim * 0.99
if off is None:
    woff, doff = "not run", "-"
elif done:
    woff, doff = "%.2f" % (off["wall_seconds"] / t_sim), "%.0f" % off["mean_lcp_dimension"]
else:
    frac = off["steps"] / float(on["steps"])
    woff = "> %.0f (cut at %.0f s, %.0f %% done)" % (lim / t_sim, lim, 100 * frac)
    doff = "%.0f (partial)" % off["mean_lcp_dimension"]
# points per step: LCP unknowns / 3 (every pair of the box has friction)
print("| %d | %d | %.2f | %.2f | %s | %.0f | %s | %.0f | %d of %d | %.2g | %.1f | %.2f |" % (
    n, pairs, on["wall_seconds"] / t_sim, on["cpu_seconds"] / t_sim, woff, on["mean_lcp_dimension"], doff,
    on["mean_active_contacts"], on["lcp_failures"], on["lcp_solves"], on["max_complementarity_error"],
    1e6 * on["cpu_seconds"] / on["steps"] / n, 1e6 * on["cpu_seconds"] / on["steps"] / (on["mean_lcp_dimension"] / 3)))
PY
done
