#!/usr/bin/env bash
# bench/contact_mujoco.sh - a rigid-contact example side by side with MuJoCo
# 2.2 (Debian libmujoco-dev) in one run (issue 14): our solver as users run
# it (build/mbs run, contact deactivation on and off), then MuJoCo on the same
# scene read from the same document (bench/mujoco/balls_box.c: its three
# solvers, two contact settings).  Wall and CPU time: best of 3 runs.
# Markdown on stdout.  Needs libmujoco-dev (bash scripts/deps.sh --bench).
#   bash bench/contact_mujoco.sh [examples/balls_in_box_100.json]
# Knobs: MBS_OLD=path adds the rows of another build of the CLI (a copy of
# build/mbs from before a change: old and new in the same run);
# MJ_TOLS="1e-5 1e-4" adds rows with deactivation on at those
# solver.lcp_tolerance values (the example's own is in the first rows).
set -u
cd "$(dirname "$0")/.."
ex=${1:-examples/balls_in_box_100.json}
if ! dpkg -s libmujoco-dev >/dev/null 2>&1; then
  echo "MuJoCo side-by-side skipped: libmujoco-dev not installed (bash scripts/deps.sh --bench)"; exit 0
fi
make -s build/mbs build/bench/mujoco_balls_box || exit 1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo "### $(basename "$ex" .json): ours and MuJoCo in one run (bench/contact_mujoco.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| ours: Moreau-Jean, rigid contacts | wall (s) | CPU (s) | pairs in system / step | max penetration (m) | complementarity error | energy at end (J) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
rows="new:true: new:false:"
for tol in ${MJ_TOLS:-}; do rows="$rows new:true:$tol"; done
[ -n "${MBS_OLD:-}" ] && rows="old:true: old:false: $rows"
for row in $rows; do
  IFS=: read -r which deact tol <<< "$row"
  bin=build/mbs; [ "$which" = old ] && bin=$MBS_OLD
  extra=(); [ -n "$tol" ] && extra=(--set solver.lcp_tolerance="$tol")
  for rep in 1 2 3; do
    "$bin" run "$ex" --set solver.contact_deactivation=$deact "${extra[@]}" --quiet --out "$T/o$rep.csv" \
        --metrics "$T/m$rep.json" > /dev/null 2> "$T/err" || { echo "| deactivation $deact | run failed: $(head -1 "$T/err") |"; continue 2; }
  done
  label="contact deactivation $([ "$deact" = true ] && echo on || echo off)"
  [ -n "$tol" ] && label="$label, lcp_tolerance $tol"
  [ -n "${MBS_OLD:-}" ] && label="$which build: $label"
  python3 - "$T" "$label" <<'PY'
import csv, json, sys
T, label = sys.argv[1], sys.argv[2]
ms = [json.load(open("%s/m%d.json" % (T, r))) for r in (1, 2, 3)]
best = min(ms, key=lambda m: m["wall_seconds"])
rows = list(csv.DictReader(open("%s/o1.csv" % T)))
e = rows[-1].get("E", "")
print("| %s | %.3f | %.3f | %.0f | %.2e | %.2e | %s |" % (
    label, best["wall_seconds"], min(m["cpu_seconds"] for m in ms),
    best["mean_active_contacts"], best["max_penetration"], best["max_complementarity_error"],
    "%.4f" % float(e) if e else "-"))
PY
done
echo
build/bench/mujoco_balls_box "$ex"
