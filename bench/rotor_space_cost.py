#!/usr/bin/env python3
"""What a rotor on a spatial joint between two moving bodies costs
(docs/actuators.md, "Rotors between moving bodies", "In space").

Usage: python3 bench/rotor_space_cost.py [build/mbs] [--repeat=N] > table.md

The yaw-pitch-roll chain of tests/unit/rotor_space_test.c (a yaw base C, a
pitching body A, a link B rolling about an axis of A tilted 0.6 rad from z,
all joints at the origin, released at rest under gravity; the roll motor at
6 V, R = 1 ohm, kt = ke = 0.05, N = 20, carried by A; 1.5 s) run two ways:
 - rotor: rotor_inertia J = 1e-4 kg m^2 (exact: the rotor's joint angle and
   unit vectors, 7 more coordinates and 7 more constraints);
 - none: J = 0, no rotor (a different motion; J N^2 about the roll axis
   lumped into B's inertia is no physical inertia here, 0.044 against
   B's 0.004 + 0.001 about the other axes, and the parser refuses it).
Each with bdf and dopri5 at tolerances 1e-6 and 1e-8: steps, Newton
iterations per step (bdf), coordinates and constraints, CPU (cpu_seconds,
median of --repeat); then the same in the relative formulation (the rotor
a term of the articulated-body recursion at the roll joint's node: no
coordinate of its own, tree_dynamics.c).  The exact model's accuracy
against its hand-written reference is rotor_space_test's.
"""
import json
import math
import os
import sys
import tempfile

from mbsrun import mbs_run, solver_sets

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MBS = ARGS[0] if ARGS else "build/mbs"
OPTS = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
REPEAT = int(OPTS.get("repeat", 5))
AL, JR, N = 0.6, 1e-4, 20.0


def doc(rotor):
    """The chain with the rotor on the roll motor, or without."""
    a = [math.sin(AL), 0.0, math.cos(AL)]
    ib = [0.004, 0.001, 0.004]
    return {"name": "chain_rotor" if rotor else "chain_none", "dimension": 3, "gravity": [0, 0, -9.81],
            "bodies": [{"name": "C", "mass": 1, "inertia": [0.01, 0.01, 0.02], "com": [0, 0, 0]},
                       {"name": "A", "mass": 2, "inertia": [0.02, 0.03, 0.01], "com": [0.1, 0, 0.1]},
                       {"name": "B", "mass": 1, "inertia": ib, "com": [0, 0.3, 0.05]}],
            "joints": [{"name": "yaw", "type": "revolute", "bodies": ["ground", "C"], "at": [0, 0, 0],
                        "axis": [0, 0, 1]},
                       {"name": "pitch", "type": "revolute", "bodies": ["C", "A"], "at": [0, 0, 0],
                        "axis": [1, 0, 0]},
                       {"name": "roll", "type": "revolute", "bodies": ["A", "B"], "at": [0, 0, 0], "axis": a}],
            "forces": [{"name": "m", "type": "dc_motor", "joint": "roll", "voltage": 6, "resistance": 1,
                        "torque_constant": 0.05, "back_emf_constant": 0.05, "gear_ratio": N,
                        "rotor_inertia": JR if rotor else 0}],
            "solver": {"t_end": 1.5},
            "outputs": {"interval": 0.01, "channels": [
                {"name": "q3", "quantity": "joint_coordinate", "joint": "roll"}]}}


def main():
    print("| formulation | model | integrator | tolerance | coordinates / constraints | steps | Newton / step "
          "| CPU (ms) |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for form in ("natural", "relative"):
            for rotor in (True, False):
                path = os.path.join(tmp, "chain.json")
                json.dump(doc(rotor), open(path, "w"))
                for integ in ("bdf", "dopri5"):
                    for tol in (1e-6, 1e-8):
                        sets = solver_sets(integrator=integ, tolerance=tol, formulation=form)
                        r = mbs_run(MBS, path, sets, REPEAT, check=True)
                        m = r.metrics
                        nps = "%.2f" % (m["newton_iterations"] / m["steps"]) if integ == "bdf" else "-"
                        cc = "%d / %d" % (m["coords_after"], m["constraints_after"]) if form == "natural" else "3 / 0"
                        print("| %s | %s | %s | %g | %s | %d | %s | %.2f |" % (
                            form, "rotor" if rotor else "none", integ, tol, cc, m["steps"], nps, 1e3 * r.cpu))
                        sys.stdout.flush()


if __name__ == "__main__":
    main()
