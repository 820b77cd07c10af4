#!/usr/bin/env python3
"""How far a rigid-contact example's outputs move with solver.lcp_tolerance:
each tolerance's run against the tightest one's (largest difference of each
output channel over all samples), with the CPU time of each run.  A pile of
balls is chaotic, so a difference is only meaningful next to the one between
two tight tolerances (the first rows): a tolerance whose difference is of
that size loses nothing measurable.
Usage: python3 bench/lcp_tolerance.py [example] [tolerances...]
(default examples/balls_in_box_100.json 1e-7 1e-6 1e-5 1e-4 1e-3; the
first tolerance is the reference, run with lcp_max_iterations 5000 so
that no step stops at the iteration limit).  Markdown on stdout."""
import os
import sys

from mbsrun import mbs_run

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ex = sys.argv[1] if len(sys.argv) > 1 else "examples/balls_in_box_100.json"
tols = sys.argv[2:] or ["1e-7", "1e-6", "1e-5", "1e-4", "1e-3"]


def run(tol):
    """(header, rows, metrics) at one lcp_tolerance; the first one is the reference."""
    more = ["solver.lcp_max_iterations=5000"] if tol == tols[0] else []
    r = mbs_run(os.path.join(root, "build/mbs"), os.path.join(root, ex), ["solver.lcp_tolerance=" + tol] + more,
                check=True)
    return r.header, r.rows, r.metrics


runs = {t: run(t) for t in tols}
head, ref, _ = runs[tols[0]]
chans = head[1:]
print("| lcp_tolerance | CPU (s) | LCP failures | " + " | ".join("max diff %s" % c for c in chans) + " |")
print("|---|---:|---:|" + "---:|" * len(chans))
for t in tols:
    _, rows, met = runs[t]
    diffs = [max(abs(a[j] - b[j]) for a, b in zip(ref, rows)) for j in range(1, len(head))]
    print("| %s%s | %.3f | %s | %s |" % (t, " (reference)" if t == tols[0] else "", met["cpu_seconds"],
                                       met.get("lcp_failures", "-"),
                                       " | ".join("%.2g" % d for d in diffs)))
