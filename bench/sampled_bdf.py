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
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

EX = "examples/dc_motor_arm_pd.json"
COLS = ("q1", "q2")
TOLS = ("1e-4", "1e-5", "1e-6", "1e-7", "1e-8")


def run(binary, integ, tol, out):
    met = out + ".json"
    subprocess.run([binary, "run", EX, "--set", "solver.integrator=" + integ, "--set", "solver.tolerance=" + tol,
                    "--out", out, "--metrics", met, "--quiet"], check=True)
    return json.load(open(met))


def main():
    args = [a for a in sys.argv[1:] if a != "--dopri5"]
    bins = [(b, "bdf") for b in args] + ([(args[-1], "dopri5")] if "--dopri5" in sys.argv else [])
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref.csv")
        run(args[-1], "dopri5", "1e-10", ref)
        R = list(csv.DictReader(open(ref)))
        print("| binary | integrator | tolerance | steps | rejected | CPU (s) | error (rad) |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for b, integ in bins:
            for tol in TOLS:
                out = os.path.join(tmp, "o.csv")
                cpus = []
                for _ in range(3):
                    m = run(b, integ, tol, out)
                    cpus.append(m["cpu_seconds"])
                A = list(csv.DictReader(open(out)))
                e = max(abs(float(a[c]) - float(r[c])) for c in COLS for a, r in zip(A, R))
                print("| %s | %s | %s | %d | %d | %.4f | %.1e |" % (b, integ, tol, m["steps"], m["rejected_steps"],
                                                                  statistics.median(cpus), e))


if __name__ == "__main__":
    main()
