#!/usr/bin/env python3
"""The BDF on a digitally controlled mechanism (issue 13, docs/actuators.md
"Sampled controllers"): steps, rejected steps, CPU and accuracy of one or
more mbs binaries on examples/dc_motor_arm_pd.json (digital PD at 1 kHz),
with dopri5 beside them.

Usage: python3 bench/sampled_bdf.py [--dopri5] BIN [BIN ...]

Error: the largest |q - q_ref| of the joint angles q1, q2 over the output
samples, q_ref a dopri5 run at tolerance 1e-10 (the CSV's 10 digits limit
it to about 1e-10 rad); CPU: cpu_seconds, median of 3.
"""
import sys

from mbsrun import mbs_run, solver_sets

EX = "examples/dc_motor_arm_pd.json"
COLS = ("q1", "q2")
TOLS = ("1e-4", "1e-5", "1e-6", "1e-7", "1e-8")


def main():
    args = [a for a in sys.argv[1:] if a != "--dopri5"]
    bins = [(b, "bdf") for b in args] + ([(args[-1], "dopri5")] if "--dopri5" in sys.argv else [])
    R = mbs_run(args[-1], EX, solver_sets(integrator="dopri5", tolerance="1e-10"), check=True).dicts()
    print("| binary | integrator | tolerance | steps | rejected | CPU (s) | error (rad) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for b, integ in bins:
        for tol in TOLS:
            r = mbs_run(b, EX, solver_sets(integrator=integ, tolerance=tol), 3, check=True)
            e = max(abs(a[c] - ref[c]) for c in COLS for a, ref in zip(r.dicts(), R))
            m = r.metrics
            print("| %s | %s | %s | %d | %d | %.4f | %.1e |" % (b, integ, tol, m["steps"], m["rejected_steps"],
                                                              r.cpu, e))


if __name__ == "__main__":
    main()
