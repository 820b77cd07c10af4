#!/usr/bin/env python3
"""Cost of the dc_motor element against its purely mechanical counterpart
(issue 13: "the mechatronic examples cost at most 1.5 times their purely
mechanical counterparts at equal accuracy").

Usage: python3 bench/actuator_cost.py [build/mbs] > table.md

examples/dc_motor_flywheel.json (inductance 0, no Coulomb friction, gear 1,
efficiency 1) has an exact mechanical twin: the motor's torque on the shaft
is kt (V - ke w) / R - b w, i.e. a constant torque kt V / R on the flywheel
and a rotational damper of kt ke / R + b on its joint.  Both documents are
integrated with bdf and dopri5 at solver.tolerance 1e-4 ... 1e-9; the error
is the largest |omega - exact| over the samples (omega_ss (1 - exp(-t /
tau))), the cost the run's cpu_seconds (median of 5).  The table gives both
and their ratio at the same tolerance (same error: the equations are the
same, so the steps are too).
"""
import json
import math
import os
import sys
import tempfile

from mbsrun import mbs_run, solver_sets

MBS = sys.argv[1] if len(sys.argv) > 1 else "build/mbs"
SRC = "examples/dc_motor_flywheel.json"
REPEAT = 5


def twin(doc):
    """The mechanical counterpart of the flywheel document."""
    p = doc["parameters"]
    V, R, kt, b = p["V"], p["R"], p["kt"], p["b"]
    d = json.loads(json.dumps(doc))
    d["name"] = "dc_motor_flywheel_mechanical_twin"
    d["forces"] = [
        {"name": "drive", "type": "torque", "body": "flywheel", "value": kt * V / R},
        {"name": "loss", "type": "rotational_spring_damper", "joint": "shaft", "stiffness": 0,
         "damping": kt * kt / R + b}]
    d["outputs"]["channels"] = [c for c in d["outputs"]["channels"] if c["quantity"] != "motor"]
    return d


def main():
    doc = json.load(open(SRC))
    p = doc["parameters"]
    V, R, kt, J, b = p["V"], p["R"], p["kt"], p["J"], p["b"]
    c = kt * kt / R + b
    wss, tau = kt * V / R / c, J / c
    with tempfile.TemporaryDirectory() as tmp:
        tw = os.path.join(tmp, "twin.json")
        json.dump(twin(doc), open(tw, "w"))
        print("### dc_motor element against its mechanical twin (bench/actuator_cost.py)\n")
        print("examples/dc_motor_flywheel.json and the same flywheel driven by a constant torque kt V / R with a "
              "rotational damper kt ke / R + b (the same equations); error = largest |omega - exact| over the "
              "samples (rad/s), CPU = median of %d runs.\n" % REPEAT)
        print("| integrator | tolerance | motor: error | motor: steps | motor: CPU (ms) | twin: error | twin: steps "
              "| twin: CPU (ms) | CPU motor / twin |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for integ in ("bdf", "dopri5"):
            for tol in (1e-4, 1e-6, 1e-8, 1e-9):
                res = []
                for path in (SRC, tw):
                    r = mbs_run(MBS, path, solver_sets(integrator=integ, tolerance=tol), REPEAT, check=True)
                    rows, m, cpu = r.dicts(), r.metrics, r.cpu
                    err = max(abs(float(r["omega"]) - wss * (1 - math.exp(-float(r["time"]) / tau))) for r in rows)
                    res.append((err, m["steps"], cpu))
                (em, sm, cm), (et, st, ct) = res
                print("| %s | %g | %.2e | %d | %.2f | %.2e | %d | %.2f | %.2f |"
                      % (integ, tol, em, sm, 1e3 * cm, et, st, 1e3 * ct, cm / ct if ct > 0 else float("nan")))


if __name__ == "__main__":
    main()
