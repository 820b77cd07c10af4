#!/usr/bin/env python3
"""Relative-coordinate runs of conservative examples against a natural bdf
reference at tolerance 1e-11, for two builds of the CLI side by side (e.g.
before and after a change of the relative integrator), with natural dopri5
of the second build beside them.  Per example and tolerance: the worst
position or velocity channel over the run (energies left out: their range
is no scale), divided by max(range, max |y|) of the reference, and the CPU
milliseconds.  Markdown on stdout.
Usage: python3 bench/relative_energy.py OLD_MBS NEW_MBS"""
import sys

from mbsrun import mbs_run

OLD, NEW = sys.argv[1], sys.argv[2]
ex = ["double_pendulum", "four_bar", "iftomm_a01_pendulum", "iftomm_spatial_slider_crank"]

print("| example | tol | relative, OLD: err / scale (worst channel), CPU ms | relative, NEW | natural dopri5, NEW |")
print("|---|---|---|---|---|")
for e in ex:
    path = "examples/%s.json" % e
    r = mbs_run(NEW, path, ["solver.tolerance=1e-11"], check=True)
    h, ref = r.header, r.rows
    rng = [max(max(r[j] for r in ref) - min(r[j] for r in ref), max(abs(r[j]) for r in ref)) or 1 for j in range(len(h))]
    for tol in ["1e-6", "1e-9"]:
        cells = []
        for b, sets in [(OLD, ["solver.formulation=relative"]), (NEW, ["solver.formulation=relative"]),
                        (NEW, ["solver.integrator=dopri5"])]:
            r = mbs_run(b, path, sets + ["solver.tolerance=" + tol])
            if not r.ok:
                cells.append("failed")
                continue
            worst, wc = 0, ""
            for j in range(1, len(h)):
                if h[j] in ("cv", "E", "T", "V"):
                    continue
                d = max(abs(a[j] - c[j]) for a, c in zip(r.rows, ref)) / rng[j]
                if d > worst:
                    worst, wc = d, h[j]
            cells.append("%.2g (%s), %.1f" % (worst, wc, 1000 * r.cpu))
        print("| %s | %s | %s |" % (e, tol, " | ".join(cells)))
