#!/usr/bin/env python3
"""Spatial open chains in both formulations beside MuJoCo (issue 12, Speed).

Usage:
    python3 bench/relative_chain.py [N ...]      (default: 10 50 200)

Needs build/mbs and build/bench/mujoco_chain (make build/bench/mujoco_chain;
Debian libmujoco-dev, installed by scripts/deps.sh --bench).

The chain is the one of bench/mujoco/chain.c (read its header): N thin rods
of 0.1 m and 0.1 kg on ball (spherical) joints, hung from the origin, lying
at rest at t = 0 in a horizontal coil (rod i along angle 0.25 i), falling
under gravity for 1 s.  This script writes the same chain in our format.

Criterion (issue 12): the tip within 1e-6 m of a converged reference at t =
1 s.  The reference is our relative formulation at tolerance 1e-12; it is
checked against MuJoCo's RK4 at its smallest step (the two codes' models
must agree before their speeds are compared).  For each code, the cheapest
run that meets the criterion: ours over tolerances 1e-4 ... 1e-10 (relative,
dopri5; natural, the default bdf, for N <= 50), MuJoCo's RK4 over steps
1e-2 ... 1e-5 s, except runs predicted to take more than BUDGET = 150 s (the table
says so).  Times: our run's cpu_seconds (metrics; best of 3),
MuJoCo's wall time of the stepping (best of 3, single-threaded).  Per step:
time / steps (our DOPRI5 step has 6 function evaluations, RK4's 4).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

LINK, MASS, AXIAL, TURN = 0.1, 0.1, 1.25e-6, 0.25
MBS = "build/mbs"
MUJOCO = "build/bench/mujoco_chain"
CRIT = 1e-6
BUDGET = 150.0  # seconds: a MuJoCo run predicted to take longer is not run


def chain_doc(n):
    """Our mechanism document of the n-rod chain."""
    it = MASS * LINK * LINK / 12
    bodies, joints = [], []
    start = [0.0, 0.0, 0.0]
    for i in range(n):
        a = TURN * i
        d = [math.cos(a), math.sin(a), 0.0]
        bodies.append({"name": f"r{i}", "mass": MASS, "inertia": [AXIAL, it, it],
                       "com": [start[k] + 0.5 * LINK * d[k] for k in range(3)],
                       "orientation": [math.cos(a / 2), 0, 0, math.sin(a / 2)]})
        joints.append({"name": f"j{i}", "type": "spherical", "bodies": ["ground" if i == 0 else f"r{i - 1}", f"r{i}"],
                       "at": list(start)})
        start = [start[k] + LINK * d[k] for k in range(3)]
    tip = [{"name": f"tip_{c}", "quantity": "position", "body": f"r{n - 1}", "point": start, "component": c}
           for c in "xyz"]
    return {"name": f"chain_{n}", "dimension": 3, "gravity": [0, 0, -9.81], "bodies": bodies, "joints": joints,
            "forces": [], "solver": {"t_end": 1}, "outputs": {"interval": 1, "channels": tip}}


def ours(path, sets, tmp, repeat=3):
    """(tip, cpu, steps) of the best of `repeat` runs, or None when it fails."""
    best = None
    for _ in range(repeat):
        out, met = os.path.join(tmp, "o.csv"), os.path.join(tmp, "m.json")
        cmd = [MBS, "run", path, "--out", out, "--metrics", met, "--quiet"]
        for s in sets:
            cmd += ["--set", s]
        p = subprocess.run(cmd, capture_output=True, timeout=1800)
        if p.returncode != 0:
            return None
        m = json.load(open(met))
        last = open(out).read().strip().splitlines()[-1].split(",")
        tip = [float(x) for x in last[1:4]]
        if best is None or m["cpu_seconds"] < best[1]:
            best = (tip, m["cpu_seconds"], m["steps"])
    return best


MJ_ERROR = [""]


def mujoco(n, h, repeat=3):
    p = subprocess.run([MUJOCO, str(n), repr(h), "1", str(repeat)], capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        MJ_ERROR[0] = " ".join(p.stderr.split())[:160]
        return None
    # the result is the last line (MuJoCo may print warnings before it)
    lines = p.stdout.strip().splitlines()
    f = lines[-1].split() if lines else []
    try:
        tip = [float(x) for x in f[4:7]]
        return (tip, float(f[3]), int(f[2])) if len(tip) == 3 and all(map(math.isfinite, tip)) else None
    except (ValueError, IndexError):
        return None


def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def main():
    ns = [int(x) for x in sys.argv[1:]] or [10, 50, 200]
    tmp = tempfile.mkdtemp()
    print("| N | reference tip at 1 s (m) | MuJoCo RK4 h = 1e-5 vs reference (m) | code | setting | tip error (m) | "
          "steps | time (s) | time per step (us) |")
    print("|---|---|---:|---|---|---:|---:|---:|---:|")
    for n in ns:
        path = os.path.join(tmp, f"chain_{n}.json")
        json.dump(chain_doc(n), open(path, "w"))
        ref = ours(path, ["solver.formulation=relative", "solver.tolerance=1e-12"], tmp, repeat=1)
        if ref is None:
            print(f"| {n} | reference run failed | | | | | | | |")
            continue
        # MuJoCo's cost per step from a short run: its runs are skipped where
        # they would exceed BUDGET seconds (its mass matrix of a chain is
        # dense: cubic in N)
        probe = mujoco(n, 1e-3, repeat=1)
        per_step = probe[1] / probe[2] if probe else float("inf")
        fine_h = next((h for h in [1e-5, 2e-5, 5e-5, 1e-4] if per_step / h <= BUDGET), None)
        mj_fine = mujoco(n, fine_h, repeat=1) if fine_h else None
        check = (f"{dist(mj_fine[0], ref[0]):.2e} (h = {fine_h:g})" if mj_fine else
                 f"MuJoCo failed: {MJ_ERROR[0]}" if not probe else
                 f"not run (h = 1e-4 s would take {per_step / 1e-4:.0f} s)")
        head = f"| {n} | ({ref[0][0]:.6f}, {ref[0][1]:.6f}, {ref[0][2]:.6f}) | {check} |"
        rows = []
        runs = [("ours, relative (dopri5)", ["solver.formulation=relative"], [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9,
                                                                              1e-10])]
        if n <= 50:
            runs.append(("ours, natural (bdf)", [], [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10]))
        for label, sets, tols in runs:
            hit = None
            for tol in tols:
                r = ours(path, sets + [f"solver.tolerance={tol}"], tmp)
                if r and dist(r[0], ref[0]) <= CRIT:
                    hit = (f"tolerance {tol:g}", r)
                    break
            rows.append((label, hit))
        hit, skipped = None, None
        for h in [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5]:
            if per_step / h > BUDGET:
                skipped = h
                break
            r = mujoco(n, h, repeat=3 if per_step / h < 10 else 1)
            if r and dist(r[0], ref[0]) <= CRIT:
                hit = (f"RK4 h = {h:g} s", r)
                break
        if not probe:
            rows.append((f"MuJoCo 2.2: {MJ_ERROR[0]}", None))
        else:
            rows.append(("MuJoCo 2.2" if hit or not skipped else
                         f"MuJoCo 2.2 (not met up to h = {2 * skipped:g} s; h = {skipped:g} s would take "
                         f"{per_step / skipped:.0f} s, {1e6 * per_step:.0f} us per step)", hit))
        for label, hit in rows:
            if hit is None:
                print(f"{head} {label} | criterion not met | | | | |")
            else:
                s, (tip, t, st) = hit
                print(f"{head} {label} | {s} | {dist(tip, ref[0]):.1e} | {st} | {t:.4g} | {1e6 * t / st:.1f} |")
            head = "| | | |"
        sys.stdout.flush()


if __name__ == "__main__":
    main()
