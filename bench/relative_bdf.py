#!/usr/bin/env python3
"""The relative formulation's BDF beside its dopri5 and the natural BDF (issue 12, helper rel12d).

Usage:
    python3 bench/relative_bdf.py [--repeat R] [GROUP ...]   (groups: stiff, chains, nonstiff; default all)

For each case three runs at the same tolerance: relative bdf, relative dopri5,
natural bdf (the natural coordinates' default).  Per run: steps, Newton
iterations, Jacobian evaluations, CPU (the metrics' cpu_seconds, median of R
runs, default 3) and the error against a reference run:
  - examples: the largest difference over the samples of any output channel
    (but the constraint violation) over that channel's scale (max |y| of the
    reference), and the channel; reference relative dopri5 at tolerance 1e-12
    (natural bdf at 1e-8 for the roller chain, whose relative dopri5
    reference would take an hour, and at 1e-11 for the N = 40 four-bar,
    where relative dopri5 at 1e-12 stops at a singular position);
  - spatial chains (bench/relative_chain.py's N thin rods on ball joints, 1 s):
    the tip's distance (m) to relative dopri5 at 1e-11 (relative_chain.py's
    1e-12 took minutes on the loaded machine; 1e-11 is 100 x below the runs).
A run still going after TIMEOUT = 600 s is stopped and reported.
A run that stops prints its message.  Prints a markdown table.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbsrun import mbs_run  # noqa: E402
from relative_chain import chain_doc  # noqa: E402

MBS = "build/mbs"

RUNS = [("relative bdf", ["solver.formulation=relative", "solver.integrator=bdf"]),
        ("relative dopri5", ["solver.formulation=relative", "solver.integrator=dopri5"]),
        ("natural bdf", ["solver.integrator=bdf"])]

# (group, label, example or chain size, extra sets, tolerance (None: as written), reference sets)
REF_REL = ["solver.formulation=relative", "solver.integrator=dopri5", "solver.tolerance=1e-12"]
REF_CHAIN = ["solver.formulation=relative", "solver.integrator=dopri5", "solver.tolerance=1e-11"]
TIMEOUT = 600  # seconds: a run still going then is reported as such
CASES = [
    ("stiff", "flyball (A05), 10 s", "examples/iftomm_a05_flyball.json", [], None, REF_REL),
    ("stiff", "flyball (A05), 10 s", "examples/iftomm_a05_flyball.json", [], 1e-8, REF_REL),
    ("stiff", "roller chain, 0.025 s", "examples/roller_chain_drive.json", [], None,
     ["solver.integrator=bdf", "solver.tolerance=1e-8"]),
    ("stiff", "N = 40 four-bar, 2 s", "examples/iftomm_a02_four_bar_n40.json", ["solver.t_end=2"], None,
     ["solver.integrator=bdf", "solver.tolerance=1e-11"]),
    ("chains", 10, None, [], 1e-6, REF_CHAIN),
    ("chains", 10, None, [], 1e-8, REF_CHAIN),
    ("chains", 50, None, [], 1e-8, REF_CHAIN),
    ("chains", 200, None, [], 1e-8, REF_CHAIN),
]
for ex, tend in [("pendulum", None), ("iftomm_a01_pendulum", "20"), ("double_pendulum", "2"), ("four_bar", None),
                 ("slider_crank", None), ("iftomm_a03_andrews", None), ("iftomm_a04_bricard", None),
                 ("iftomm_spatial_slider_crank", None), ("spring_mass_damper", None)]:
    CASES.append(("nonstiff", ex + (f", {tend} s" if tend else ""), f"examples/{ex}.json",
                  [f"solver.t_end={tend}"] if tend else [], None, REF_REL))


ENERGIES = ("E", "T", "V")


def err_channels(a, ref):
    (h, A), (_, R) = a, ref
    n = min(len(A), len(R))
    worst, name = 0.0, "-"
    # energies on the largest energy (a total energy near 0 has no scale of its own)
    escale = max([abs(r[j]) for r in R for j in range(1, len(h)) if h[j] in ENERGIES] or [1.0])
    for j in range(1, len(h)):
        if h[j] == "cv":
            continue
        sc = escale if h[j] in ENERGIES else (max(abs(r[j]) for r in R) or 1.0)
        d = max(abs(A[i][j] - R[i][j]) for i in range(n)) / sc
        if d > worst:
            worst, name = d, h[j]
    return worst, name


def err_tip(a, ref):
    (h, A), (_, R) = a, ref
    return math.sqrt(sum((A[-1][h.index(c)] - R[-1][h.index(c)]) ** 2 for c in ("tip_x", "tip_y", "tip_z")))


def main():
    argv = sys.argv[1:]
    repeat = 3
    if argv[:1] == ["--repeat"]:
        repeat, argv = int(argv[1]), argv[2:]
    groups = set(argv) or {"stiff", "chains", "nonstiff"}
    print(f"load: {os.getloadavg()}", flush=True)
    print("| case | tolerance | run | steps | Newton | Jacobians | CPU (s) | error |\n|---|---|---|---:|---:|---:|---:|---|")
    for k, (group, label, path, extra, tol, refsets) in enumerate(CASES):
        if group not in groups:
            continue
        chain = path is None
        if chain:
            path = chain_doc(label)
            label = f"spatial chain N = {label}, 1 s"
        tset = [f"solver.tolerance={tol:g}"] if tol else []
        ref = mbs_run(MBS, path, refsets + extra, timeout=TIMEOUT)
        if not ref.ok:
            print(f"| {label} | reference failed: {ref.message} |")
            continue
        for name, sets in RUNS:
            r = mbs_run(MBS, path, sets + extra + tset, repeat, timeout=TIMEOUT)
            m = r.metrics
            if not r.ok:
                print(f"| {label} | {tol or 'as written'} | {name} | {m.get('steps', '-')} | | | | stops: "
                      f"{r.message[:150]} |", flush=True)
                continue
            a, b = (r.header, r.rows), (ref.header, ref.rows)
            e = f"{err_tip(a, b):.1e} m (tip)" if chain else "%.1e (%s)" % err_channels(a, b)
            print(f"| {label} | {tol or 'as written'} | {name} | {m['steps']} | {m['newton_iterations']} | "
                  f"{m['jacobian_evaluations']} | {r.cpu:.4g} | {e} |", flush=True)
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
