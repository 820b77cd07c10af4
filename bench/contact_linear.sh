#!/usr/bin/env bash
# bench/contact_linear.sh - does the cost per step grow linearly with the
# number of balls (issue 14)?  Both scenes of the issue, with contact
# deactivation: N balls on a floor (compliant, Hunt-Crossley, BDF,
# bench/contacts/floor_balls.py, 0.5 s) and N balls in a box (rigid,
# Moreau-Jean, bench/contacts/box_balls.py, 1 s, lcp_tolerance
# CONTACT_LINEAR_TOL, default 1e-6).  Same ball size, spacing and time for
# every N.  Each run's CPU time (cpu_seconds: on this shared machine wall
# time also counts the waits for a core) per step and ball; the median of
# CONTACT_LINEAR_REPEAT runs (default 3), the builds taking turns run by
# run so that both see the same load.
#
#   MBS_OLD=/path/to/old/mbs bash bench/contact_linear.sh [floor|box ...]
#
# CONTACT_LINEAR_N sets the ball counts (default 25 50 100 200 400); MBS
# the new build (default build/mbs); without MBS_OLD only it runs.  Prints
# one markdown table per scene: per N the steps, mean pairs in the system,
# the median CPU us per step and ball of each build, and the growth against
# the smallest N (that cost over the first N's).  CONTACT_LINEAR_CSV=dir
# keeps each build's outputs (dir/SCENE_N_old.csv, _new.csv; the last
# repeat) for a comparison of the two builds' results.
#
# CONTACT_LINEAR_MUJOCO=PGS,CG (box only; needs libmujoco-dev, bash
# scripts/deps.sh --bench) runs MuJoCo 2.2 on each box scene too
# (build/bench/mujoco_balls_box, the document's balls, walls, step and
# friction, the restitution setting of bench/contact_mujoco.sh; with
# CONTACT_LINEAR_MJ_SETTINGS=rn also its no-bounce setting), one run per
# repeat taking its turn after ours (MuJoCo's CPU time of the stepping, the
# model's compilation left out), and prints a second table: per N the new
# build's and each MuJoCo solver's CPU us per step and ball (median), its
# growth from the smallest N, largest penetration and complementarity error
# (the same definition: bench/mujoco/balls_box.c), contacts per step and
# MuJoCo's solver iterations per step (its default limit is 100).
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
MBS=${MBS:-build/mbs}
OLD=${MBS_OLD:-}
REP=${CONTACT_LINEAR_REPEAT:-3}
TOL=${CONTACT_LINEAR_TOL:-1e-6}
NS=${CONTACT_LINEAR_N:-25 50 100 200 400}
scenes=("$@"); [ ${#scenes[@]} -gt 0 ] || scenes=(floor box)
MJ=${CONTACT_LINEAR_MUJOCO:-}
MJSET=${CONTACT_LINEAR_MJ_SETTINGS:-r}
if [ -n "$MJ" ]; then
  dpkg -s libmujoco-dev >/dev/null 2>&1 || { echo "CONTACT_LINEAR_MUJOCO: libmujoco-dev not installed (bash scripts/deps.sh --bench)" >&2; exit 1; }
  make -s build/bench/mujoco_balls_box || exit 1
fi
for scene in "${scenes[@]}"; do
  echo
  echo "#### $scene: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg) (new: $MBS${OLD:+, old: $OLD})"
  echo
  echo "| N | steps | pairs in the system (mean) | CPU us per step and ball, old | new | old / new | growth from N = ${NS%% *}, old | new |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
  : > "$T/rows"
  for n in $NS; do
    if [ "$scene" = floor ]; then
      python3 bench/contacts/floor_balls.py "$n" > "$T/m.json"; extra=()
    else
      python3 bench/contacts/box_balls.py "$n" 1.0 > "$T/m.json"; extra=(--set solver.lcp_tolerance="$TOL")
    fi
    for r in $(seq "$REP"); do
      for which in old new; do
        bin=$MBS; [ $which = old ] && bin=$OLD
        [ -n "$bin" ] || continue
        out=(); [ -n "${CONTACT_LINEAR_CSV:-}" ] && out=(--out "$CONTACT_LINEAR_CSV/${scene}_${n}_$which.csv")
        "$bin" run "$T/m.json" --set solver.contact_deactivation=true "${extra[@]}" "${out[@]}" --quiet \
            --metrics "$T/$which.json" > /dev/null 2>&1 || { echo "run failed: $scene $n $which" >&2; continue; }
        python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], m["steps"], m["mean_active_contacts"], 1e6*m["cpu_seconds"]/m["steps"]/int(sys.argv[2]), m.get("max_penetration", "nan"), m.get("max_complementarity_error", "nan"), "nan")' \
            "$T/$which.json" "$n" "$which" >> "$T/rows"
      done
      # MuJoCo's turn: fields setting solver steps wall cpu contacts pen ce energy diverged iterations
      if [ -n "$MJ" ] && [ "$scene" = box ]; then
        if build/bench/mujoco_balls_box "$T/m.json" --solvers "$MJ" --settings "$MJSET" --repeat 1 --tsv \
             > "$T/mjrows" 2> "$T/mjerr"; then
          awk -v n="$n" '{ d = $10 ? "diverged" : ""; print n, "mj_" $1 "_" $2, $3, $6, 1e6 * $5 / $3 / n, $7, $8, $11, d }' \
              "$T/mjrows" >> "$T/rows"
        else
          echo "MuJoCo failed: box $n: $(head -1 "$T/mjerr")" >&2; exit 1
        fi
      fi
    done
  done
  python3 - "$T/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ns = sorted({int(r[0]) for r in rows})
def med(n, which):
    v = [float(r[4]) for r in rows if int(r[0]) == n and r[1] == which]
    return statistics.median(v) if v else None
def info(n):
    r = [x for x in rows if int(x[0]) == n and x[1] == "new"][0]
    return int(r[2]), float(r[3])
base = {w: med(ns[0], w) for w in ("old", "new")}
for n in ns:
    o, nw = med(n, "old"), med(n, "new")
    steps, pairs = info(n)
    f = lambda x: "%.2f" % x if x is not None else "-"
    g = lambda x, w: "%.2f" % (x / base[w]) if x is not None and base[w] else "-"
    print("| %d | %d | %.0f | %s | %s | %s | %s | %s |" % (n, steps, pairs, f(o), f(nw),
          "%.2f" % (o / nw) if o and nw else "-", g(o, "old"), g(nw, "new")))
# beside MuJoCo: the new build and each MuJoCo row (mj_SETTING_SOLVER)
order = ["PGS", "CG", "Newton"]
mjw = sorted({r[1] for r in rows if r[1].startswith("mj_")}, key=lambda w: ("rn".index(w.split("_")[1]), order.index(w.split("_")[2])))
if mjw:
    names = {"r": "restitution", "n": "no bounce"}
    cols = ["new"] + mjw
    base.update({w: med(ns[0], w) for w in mjw})
    label = lambda w: "ours (new)" if w == "new" else "MuJoCo %s, %s" % (w.split("_")[2], names[w.split("_")[1]])
    print()
    print("| N | " + " | ".join("%s: CPU us per step and ball | growth | max penetration (m) | complementarity "
                                 "error | %s" % (label(w), "pairs in the system" if w == "new" else
                                                 "contacts / step | iterations / step") for w in cols) + " |")
    print("|---:|" + "---:|---:|---:|---:|---:|" + "---:|---:|---:|---:|---:|---:|" * len(mjw))
    for n in ns:
        cells = []
        for w in cols:
            rr = [r for r in rows if int(r[0]) == n and r[1] == w]
            c = med(n, w)
            if not rr or c is None:
                cells.append("- | - | - | - | -" + (" | -" if w != "new" else ""))
                continue
            pen = max(float(r[5]) for r in rr)
            ce = max(float(r[6]) for r in rr)
            bad = " (diverged)" if any(len(r) > 8 for r in rr) else ""
            cells.append("%.2f%s | %s | %.2e | %.2e | %.0f" % (c, bad, g(c, w), pen, ce, float(rr[0][3])))
            if w != "new":
                cells[-1] += " | %.1f" % statistics.median(float(r[7]) for r in rr)
        print("| %d | %s |" % (n, " | ".join(cells)))
PY
done
