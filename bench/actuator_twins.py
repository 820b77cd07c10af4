#!/usr/bin/env python3
"""Every mechatronic example (examples/dc_motor_*.json) against its mechanical
twin at equal accuracy (issue 13: "the mechatronic examples cost at most 1.5
times their purely mechanical counterparts (same mechanism, prescribed motion
or torque) at equal accuracy").

Usage: python3 bench/actuator_twins.py [build/mbs] [--repeat=N] [--tols=1e-4,1e-6,1e-8]
       [--twins=torque,motion] [--keep=DIR] [--examples=a,b] [--integrators=bdf,dopri5]
       [--ref-tol=1e-10] [--extra-tols=1e-9] > table.md

Two twins of an example, each with the same bodies, joints and passive
forces and without the controllers:
 - torque: each dc_motor replaced by a joint_actuator on its joint whose
   torque (force) is a natural cubic spline through the motor's
   element_force of a reference run of the example (dopri5, tolerance --ref-tol,
   every REF_DT s), its rotor inertia J N^2 added to the driven body (what
   the model does for a rotor on a joint to ground);
 - motion: each motor's joint driven (a driver) along a spline through its
   joint coordinate of the same reference run.
Their motion is the example's within the spline's error, with no
electrical or control dynamics.  The motion twin (--twins=torque,motion)
is no fair counterpart: the driver's acceleration is the spline's second
derivative, whose kinks at every knot (REF_DT) cost the integrators 5 to 100
times the steps; only the torque twin is in the default table.  Open loop, the torque twin of a closed-loop
example is a harder problem than the example (the arm under a prescribed
torque is a double pendulum: its errors grow, the controller's feedback
damped them); its motion twin is the counterpart there.

Both are run with bdf (the examples' default) and dopri5 at each tolerance.
Error: over the output channels both have (joint coordinates and rates,
positions, energies; not the motor and controller channels), the largest
|y - y_ref| / max |y_ref|, y_ref each document's own dopri5 run at --ref-tol (1e-10).
CPU: the run's cpu_seconds, median of --repeat.  "at equal error": the
twin's CPU interpolated (log-log, over its tolerances and --extra-tols)
at the example's error; '>' or '<' when the example's error is outside the
twin's range (the nearest end taken: the ratio is at most, or at least,
the figure).
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
REPEAT = int(OPTS.get("repeat", 3))
TOLS = [float(t) for t in OPTS.get("tols", "1e-4,1e-6,1e-8").split(",")]
TWINS = OPTS.get("twins", "torque").split(",")
# the reference runs' tolerance (--ref-tol) and the twins' further tolerances (--extra-tols), below the
# tolerances compared, so that a twin's curve reaches the example's error (not the reference's own tolerance)
REF_TOL = float(OPTS.get("ref-tol", 1e-10))
EXTRA_TOLS = [float(t) for t in OPTS.get("extra-tols", "1e-9").split(",") if float(t) < min(TOLS) and
              float(t) > REF_TOL]
KEEP = OPTS.get("keep")  # a directory to keep the twin documents in
REF_DT = 2.5e-4
EXAMPLES = OPTS.get("examples", "dc_motor_flywheel,dc_motor_flywheel_inductive,dc_motor_flywheel_pi,"
                    "dc_motor_four_bar,dc_motor_press_pi,dc_motor_arm_pd").split(",")
INTEGS = OPTS.get("integrators", "bdf,dopri5").split(",")


def run(path, integ, tol, repeat=1):
    """(rows, metrics, median cpu) of one document."""
    r = mbs_run(MBS, path, solver_sets(integrator=integ, tolerance=tol), repeat, check=True)
    return r.dicts(), r.metrics, r.cpu


def mechanical(ch):
    """An output channel the twin has as well."""
    return ch["quantity"] not in ("motor", "controller") and ch["quantity"] != "element_force"


def twin(doc, ref_rows, kind):
    """The mechanical twin of doc, kind "torque" or "motion" (see the header)."""
    d = json.loads(json.dumps(doc))
    d["name"] = doc["name"] + "_" + kind + "_twin"
    d.pop("controllers", None)
    joints = {j["name"]: j for j in d["joints"]}
    forces, drivers = [], d.get("drivers", [])
    ex = lambda v: str(v)[1:] if str(v).startswith("=") else str(v)
    for f in d["forces"]:
        if f["type"] != "dc_motor":
            forces.append(f)
            continue
        col = ("F_" if kind == "torque" else "q_") + f["name"]
        table = {"kind": "table", "points": [[float(r["time"]), float(r[col])] for r in ref_rows],
                 "interpolation": "spline"}
        if kind == "motion":
            # a point before t = 0 and after t_end (quadratic extrapolation): at a table's first and last
            # times its rate is the held value's, 0 (model/spec.c), which the driver would give the joint
            # there against the spline's slope next to it (the BDF fails at t = 0 and t_end)
            p = table["points"]
            table["points"] = ([[2 * p[0][0] - p[1][0], 3 * p[0][1] - 3 * p[1][1] + p[2][1]]] + p +
                               [[2 * p[-1][0] - p[-2][0], 3 * p[-1][1] - 3 * p[-2][1] + p[-3][1]]])
            drivers.append({"joint": f["joint"], "motion": table})
            continue
        forces.append({"name": f["name"], "type": "joint_actuator", "joint": f["joint"], "value": table})
        if "rotor_inertia" in f:
            # the reflected rotor inertia J N^2 on the driven body (2D: a scalar inertia)
            body = [b for b in joints[f["joint"]]["bodies"] if b != "ground"][0]
            for b in d["bodies"]:
                if b["name"] == body:
                    b["inertia"] = "=(%s)+(%s)*(%s)^2" % (ex(b["inertia"]), ex(f["rotor_inertia"]),
                                                          ex(f.get("gear_ratio", 1)))
    d["forces"] = forces
    if drivers:
        d["drivers"] = drivers
    d["outputs"]["channels"] = [c for c in d["outputs"]["channels"] if mechanical(c)]
    return d


def err(rows, ref, names):
    """Largest |y - y_ref| / max |y_ref| over the channels names."""
    e = 0
    for n in names:
        scale = max(abs(float(r[n])) for r in ref) or 1.0
        e = max(e, max(abs(float(a[n]) - float(r[n])) for a, r in zip(rows, ref)) / scale)
    return e


def at_error(curve, e):
    """CPU of a (error, cpu) curve at error e, log-log interpolation; a mark when outside."""
    pts = sorted((max(x, 1e-300), c) for x, c in curve)
    if e <= pts[0][0]:
        return pts[0][1], "<"
    if e >= pts[-1][0]:
        return pts[-1][1], ">"
    for (e0, c0), (e1, c1) in zip(pts, pts[1:]):
        if e0 <= e <= e1:
            w = (math.log(e) - math.log(e0)) / (math.log(e1) - math.log(e0)) if e1 > e0 else 0
            return math.exp(math.log(c0) + w * (math.log(c1) - math.log(c0))), ""
    return pts[-1][1], ">"


def main():
    head = "| example | integrator | tolerance | example: error | steps | CPU (ms) "
    for k in TWINS:
        head += "| %s twin: error | steps | CPU (ms) | CPU ratio: same tol. | at equal error " % k
    print(head + "|")
    print("|---|---|" + "---:|" * (4 + 5 * len(TWINS)))
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXAMPLES:
            doc = json.load(open("examples/%s.json" % name))
            motors = [f for f in doc["forces"] if f["type"] == "dc_motor"]
            names = [c["name"] for c in doc["outputs"]["channels"] if mechanical(c)]
            # the motors' torques and joints of a reference run, finely sampled
            rd = json.loads(json.dumps(doc))
            rd["outputs"]["interval"] = REF_DT
            rd["outputs"]["channels"] = (
                [{"name": "F_" + f["name"], "quantity": "element_force", "element": f["name"]} for f in motors] +
                [{"name": "q_" + f["name"], "quantity": "joint_coordinate", "joint": f["joint"]} for f in motors])
            rp = os.path.join(tmp, "ref_forces.json")
            json.dump(rd, open(rp, "w"))
            frows, _, _ = run(rp, "dopri5", REF_TOL)
            dirn = KEEP or tmp
            paths = [os.path.join(tmp, "example.json")] + [os.path.join(dirn, "%s_%s_twin.json" % (name, k))
                                                            for k in TWINS]
            json.dump(doc, open(paths[0], "w"))
            for k, p in zip(TWINS, paths[1:]):
                json.dump(twin(doc, frows, k), open(p, "w"))
            refs = {p: run(p, "dopri5", REF_TOL)[0] for p in paths}
            for integ in INTEGS:
                res = {p: [] for p in paths}
                for p in paths:
                    # the twins also at tighter tolerances (their curves reach the example's errors)
                    for tol in TOLS + (EXTRA_TOLS if p != paths[0] else []):
                        rows, m, cpu = run(p, integ, tol, REPEAT)
                        res[p].append((err(rows, refs[p], names), m["steps"], cpu))
                for i, tol in enumerate(TOLS):
                    em, sm, cm = res[paths[0]][i]
                    line = "| %s | %s | %g | %.1e | %d | %.2f " % (name, integ, tol, em, sm, 1e3 * cm)
                    for p in paths[1:]:
                        et, st, ct = res[p][i]
                        ceq, mark = at_error([(e, c) for e, s, c in res[p]], em)
                        line += "| %.1e | %d | %.2f | %.2f | %s%.2f " % (et, st, 1e3 * ct, cm / ct, mark, cm / ceq)
                    print(line + "|")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
