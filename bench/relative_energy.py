#!/usr/bin/env python3
"""Relative-coordinate runs of conservative examples against a natural bdf
reference at tolerance 1e-11, for two builds of the CLI side by side (e.g.
before and after a change of the relative integrator), with natural dopri5
of the second build beside them.  Per example and tolerance: the worst
position or velocity channel over the run (energies left out: their range
is no scale), divided by max(range, max |y|) of the reference, and the CPU
milliseconds.  Markdown on stdout.
Usage: python3 bench/relative_energy.py OLD_MBS NEW_MBS"""
import csv
import json
import os
import subprocess
import sys
import tempfile

OLD, NEW = sys.argv[1], sys.argv[2]
T = tempfile.mkdtemp()
ex = ["double_pendulum", "four_bar", "iftomm_a01_pendulum", "iftomm_spatial_slider_crank"]


def run(b, e, sets, out):
    cmd = [b, "run", "examples/%s.json" % e, "--quiet", "--out", out, "--metrics", out + ".json"]
    for s in sets: cmd += ["--set", s]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if rc: return None, None
    r = list(csv.reader(open(out))); return (r[0], [list(map(float, x)) for x in r[1:]]), json.load(open(out + ".json"))


print("| example | tol | relative, OLD: err / scale (worst channel), CPU ms | relative, NEW | natural dopri5, NEW |")
print("|---|---|---|---|---|")
for e in ex:
    (h, ref), _ = run(NEW, e, ["solver.tolerance=1e-11"], os.path.join(T, "ref.csv"))
    rng = [max(max(r[j] for r in ref) - min(r[j] for r in ref), max(abs(r[j]) for r in ref)) or 1 for j in range(len(h))]
    for tol in ["1e-6", "1e-9"]:
        cells = []
        for b, sets in [(OLD, ["solver.formulation=relative"]), (NEW, ["solver.formulation=relative"]), (NEW, ["solver.integrator=dopri5"])]:
            (hh, rows), met = run(b, e, sets + ["solver.tolerance=" + tol], os.path.join(T, "o.csv"))
            if rows is None: cells.append("failed"); continue
            worst, wc = 0, ""
            for j in range(1, len(h)):
                if h[j] in ("cv", "E", "T", "V"): continue
                d = max(abs(a[j] - c[j]) for a, c in zip(rows, ref)) / rng[j]
                if d > worst: worst, wc = d, h[j]
            cells.append("%.2g (%s), %.1f" % (worst, wc, 1000 * met["cpu_seconds"]))
        print("| %s | %s | %s |" % (e, tol, " | ".join(cells)))
