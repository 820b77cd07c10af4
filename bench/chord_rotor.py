#!/usr/bin/env python3
"""The cost of spatial rotors on a loop whose every joint carries one
(helper relrot13g, issue 12 and 13): the four-bar of rotor_space_test's
test_relative_chord_four_bar (hanging in space, axes along x, four dc_motors
at 6, -4, 3, 2 V with gear ratios 20, 15, 25, 10 and rotors of 1e-4 to 3e-4
kg m^2; the tree cuts the loop at BD, whose rotor is then a row of its own
beside the circuit equations), with its rotors and without them (J = 0),
in both formulations with dopri5 and bdf at one tolerance: steps and CPU
time (median of `--repeat` runs).

    python3 bench/chord_rotor.py [--mbs build/mbs] [--tol 1e-8] [--repeat 3]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbsrun import mbs_run  # noqa: E402


def four_bar(with_rotors):
    """The mechanism document (as the test writes it)."""
    O1, P1, P2, O2 = [0, 0, 0.3], [0, 0.1, 0.5], [0, 0.5, 0.6], [0, 0.4, 0.3]
    ends = {"A": (O1, P1), "B": (P1, P2), "D": (P2, O2)}
    mass = {"A": 1, "B": 1.5, "D": 1.2}
    inertia = {"A": [0.004, 0.003, 0.002], "B": [0.02, 0.01, 0.015], "D": [0.01, 0.008, 0.006]}
    bodies = [{"name": "C", "mass": 2, "inertia": [0.05, 0.04, 0.06], "com": [0.05, 0.2, 0.3]}]
    for n, (a, b) in ends.items():
        bodies.append({"name": n, "mass": mass[n], "inertia": inertia[n],
                       "com": [0, 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])]})

    def rev(name, b0, b1, at):
        return {"name": name, "type": "revolute", "bodies": [b0, b1], "at": at, "axis": [1, 0, 0]}

    joints = [{"name": "base", "type": "fixed", "bodies": ["ground", "C"], "at": [0, 0, 0]},
              rev("cA", "C", "A", O1), rev("AB", "A", "B", P1), rev("BD", "B", "D", P2), rev("DC", "D", "C", O2)]
    forces = []
    for k, (j, V, N, J) in enumerate([("cA", 6, 20, 1e-4), ("AB", -4, 15, 2e-4), ("BD", 3, 25, 1e-4),
                                      ("DC", 2, 10, 3e-4)]):
        forces.append({"name": "m%d" % (k + 1), "type": "dc_motor", "joint": j, "voltage": V, "resistance": 1,
                       "torque_constant": 0.05, "back_emf_constant": 0.05, "gear_ratio": N,
                       "rotor_inertia": J if with_rotors else 0})
    channels = [{"name": "q%d" % (k + 1), "quantity": "joint_coordinate", "joint": j}
                for k, j in enumerate(["cA", "AB", "BD", "DC"])]
    return {"dimension": 3, "gravity": [0, 0, -9.81], "bodies": bodies, "joints": joints, "forces": forces,
            "solver": {"t_end": 1.5}, "outputs": {"interval": 0.01, "channels": channels}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mbs", default="build/mbs")
    ap.add_argument("--tol", default="1e-8")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print("| rotors | formulation | integrator | steps | CPU s (median of %d) |" % a.repeat)
    print("|---|---|---|---|---|")
    for rot in (True, False):
        for form in ("natural", "relative"):
            for integ in ("dopri5", "bdf"):
                sets = ["solver.formulation=" + form, "solver.integrator=" + integ, "solver.tolerance=" + a.tol]
                r = mbs_run(a.mbs, four_bar(rot), sets, repeat=a.repeat)
                steps = r.metrics.get("steps", "?") if r.ok else "failed: " + r.message
                print("| %s | %s | %s | %s | %.3f |" % ("J > 0" if rot else "J = 0", form, integ, steps, r.cpu))


if __name__ == "__main__":
    main()
