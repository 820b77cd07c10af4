#!/usr/bin/env python3
"""What a rotor between two moving bodies costs (docs/actuators.md, "Rotors
between moving bodies").

Usage: python3 bench/rotor_cost.py [build/mbs] [--repeat=N] > table.md

The two-link arm of tests/unit/rotor_test.c (links of 0.5 m, 2 kg and 0.4 m,
1 kg along x, released at rest under gravity; the elbow motor at 6 V, R = 1
ohm, kt = ke = 0.05, gear N = 20, carried by link 1) run two ways:
 - rotor: rotor_inertia J = 1e-4 kg m^2 on the elbow motor (exact: the
   bodies' angle variables, 2 more coordinates and 2 more constraints);
 - lumped: J = 0 and J N^2 added to link 2's inertia by hand (what the
   format asked before; not the same motion: it drops the rotor's
   J (1 - N)^2 on link 1 and the cross term J N (1 - N) w1 w2).
Each with bdf and dopri5 at tolerances 1e-6 and 1e-8: steps, Newton
iterations per step (bdf), system dimension, CPU (cpu_seconds, median of
--repeat), and the error of the angles against each model's own
hand-written reference (the Lagrangian in absolute angles, RK4 at 2e-5 s):
the exact one for the rotor, the lumped one for the lumped model.
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
L1, L2, M1, M2, JR, N, V, R, K, G = 0.5, 0.4, 2.0, 1.0, 1e-4, 20.0, 6.0, 1.0, 0.05, 9.81


def doc(rotor):
    """The arm: with the rotor on the elbow motor, or lumped onto link 2."""
    i2 = M2 * L2 ** 2 / 12 + (0 if rotor else JR * N * N)
    return {"name": "arm_rotor" if rotor else "arm_lumped", "dimension": 2, "gravity": [0, -G],
            "bodies": [{"name": "link1", "mass": M1, "inertia": M1 * L1 ** 2 / 12, "com": [L1 / 2, 0]},
                       {"name": "link2", "mass": M2, "inertia": i2, "com": [L1 + L2 / 2, 0]}],
            "joints": [{"name": "shoulder", "type": "revolute", "bodies": ["ground", "link1"], "at": [0, 0]},
                       {"name": "elbow", "type": "revolute", "bodies": ["link1", "link2"], "at": [L1, 0]}],
            "forces": [{"name": "m", "type": "dc_motor", "joint": "elbow", "voltage": V, "resistance": R,
                        "torque_constant": K, "back_emf_constant": K, "gear_ratio": N,
                        "rotor_inertia": JR if rotor else 0}],
            "solver": {"t_end": 2},
            "outputs": {"interval": 0.01, "channels": [
                {"name": "q1", "quantity": "joint_coordinate", "joint": "shoulder"},
                {"name": "q2", "quantity": "joint_coordinate", "joint": "elbow"}]}}


def reference(rotor):
    """The hand-written arm in absolute angles at 0, 0.01, ..., 2 s: (q1, q2)."""
    a1, a2, I1, I2 = L1 / 2, L2 / 2, M1 * L1 ** 2 / 12, M2 * L2 ** 2 / 12
    ja, jb, jab = (JR * (1 - N) ** 2, JR * N * N, JR * N * (1 - N)) if rotor else (0, JR * N * N, 0)

    def rate(s):
        p1, p2, w1, w2 = s
        d, c = p2 - p1, M2 * L1 * a2
        m11, m22, m12 = M1 * a1 ** 2 + I1 + M2 * L1 ** 2 + ja, M2 * a2 ** 2 + I2 + jb, c * math.cos(d) + jab
        tau = N * K * (V - K * N * (w2 - w1)) / R
        q1 = -(M1 * a1 + M2 * L1) * G * math.cos(p1) + c * math.sin(d) * w2 * w2 - tau
        q2 = -M2 * a2 * G * math.cos(p2) - c * math.sin(d) * w1 * w1 + tau
        det = m11 * m22 - m12 * m12
        return [w1, w2, (m22 * q1 - m12 * q2) / det, (m11 * q2 - m12 * q1) / det]

    s, h, out = [0.0] * 4, 2e-5, []
    for i in range(200 * 500 + 1):
        if i % 500 == 0:
            out.append((s[0], s[1] - s[0]))
        k1 = rate(s)
        k2 = rate([x + h / 2 * k for x, k in zip(s, k1)])
        k3 = rate([x + h / 2 * k for x, k in zip(s, k2)])
        k4 = rate([x + h * k for x, k in zip(s, k3)])
        s = [x + h / 6 * (p + 2 * q + 2 * r + u) for x, p, q, r, u in zip(s, k1, k2, k3, k4)]
    return out


def main():
    print("| model | integrator | tolerance | coordinates / constraints | steps | Newton / step | CPU (ms) | "
          "angle error (rad) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for rotor in (True, False):
            path = os.path.join(tmp, "arm.json")
            json.dump(doc(rotor), open(path, "w"))
            ref = reference(rotor)
            for integ in ("bdf", "dopri5"):
                for tol in (1e-6, 1e-8):
                    r = mbs_run(MBS, path, solver_sets(integrator=integ, tolerance=tol), REPEAT, check=True)
                    rows, m, cpu = r.dicts(), r.metrics, r.cpu
                    err = max(max(abs(float(r["q1"]) - e[0]), abs(float(r["q2"]) - e[1])) for r, e in zip(rows, ref))
                    nps = "%.2f" % (m["newton_iterations"] / m["steps"]) if integ == "bdf" else "-"
                    print("| %s | %s | %g | %d / %d | %d | %s | %.2f | %.1e |" % (
                        "rotor" if rotor else "lumped", integ, tol, m["coords_after"], m["constraints_after"],
                        m["steps"], nps, 1e3 * cpu, err))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
