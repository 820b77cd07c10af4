#!/usr/bin/env python3
"""Cost of a continuous controller measuring a joint reaction (issue 13,
docs/actuators.md "Cascades and other measured signals") beside the same run
measuring the motor's current.

Usage: python3 bench/reaction_ctrl_cost.py [build/mbs] [--repeat=N] > table.md

The lift of tests/unit/reaction_ctrl_test.c: a car (2 kg) on a vertical
prismatic rail driven through a rack (lead 0.01 m/rad) by an inductive
dc_motor (R 1 ohm, L 0.01 H, kt = ke = 0.05), carrying a 1 kg load on a fixed
joint whose reaction along the rail is c i exactly (c = m2 kt / (lead (m1 +
m2))).  A PI on that reaction (gains 2 / c, 40 / c, setpoint m2 g) and a PI on
the current (gains 2, 40, setpoint m2 g / c) are the same equations in other
variables: the steps are the same, the difference in CPU is the measurement
(one acceleration solve and one reaction recovery per evaluated state, and
in the BDF's Newton matrix the measure's full columns by differences).
Both formulations, bdf and dopri5, tolerances 1e-6 and 1e-8, t_end 3 s; CPU
the median of N alternated runs (default 5).
"""
import sys

from mbsrun import mbs_run

MBS = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/mbs")
REPEAT = next((int(a.split("=")[1]) for a in sys.argv[1:] if a.startswith("--repeat=")), 5)
G, M1, M2, LEAD, KT = 9.81, 2.0, 1.0, 0.01, 0.05
C = M2 * KT / (LEAD * (M1 + M2))


def lift(on_reaction):
    """The lift document, its PI on the reaction or on the current."""
    measure = ({"quantity": "reaction_force", "joint": "mount", "component": "y"} if on_reaction
               else {"quantity": "motor", "element": "motor", "component": "current"})
    s = 1 / C if on_reaction else 1.0
    return {
        "name": "lift_" + ("reaction" if on_reaction else "current"), "dimension": 2, "gravity": [0, -G],
        "bodies": [{"name": "car", "mass": M1, "inertia": 0.1, "com": [0, 0]},
                   {"name": "load", "mass": M2, "inertia": 0.05, "com": [0.1, 0.2]}],
        "joints": [{"name": "rail", "type": "prismatic", "bodies": ["ground", "car"], "at": [0, 0], "axis": [0, 1]},
                   {"name": "mount", "type": "fixed", "bodies": ["car", "load"], "at": [0, 0.1]}],
        "controllers": [{"name": "ctl", "type": "pid", "kp": 2 * s, "ki": 40 * s,
                         "setpoint": M2 * G if on_reaction else M2 * G / C, "measure": measure}],
        "forces": [{"name": "motor", "type": "dc_motor", "joint": "rail", "voltage": {"controller": "ctl"},
                    "resistance": 1, "inductance": 0.01, "torque_constant": KT, "back_emf_constant": KT,
                    "lead": LEAD}],
        "solver": {"t_end": 3},
        "outputs": {"interval": 0.01, "channels": [
            {"name": "y", "quantity": "position", "body": "car", "component": "y"},
            {"name": "i", "quantity": "motor", "element": "motor", "component": "current"}]}}


def main():
    print("| formulation | integrator | tolerance | steps (current / reaction) | Newton iterations | "
          "CPU on the current (s) | CPU on the reaction (s) | ratio | max |y| difference (m) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for form in ("natural", "relative"):
        for integ in ("bdf", "dopri5"):
            for tol in ("1e-6", "1e-8"):
                sets = [f"solver.formulation={form}", f"solver.integrator={integ}", f"solver.tolerance={tol}"]
                cur, rea = [], []
                # alternated, so that both see the same load
                for _ in range(REPEAT):
                    cur.append(mbs_run(MBS, lift(False), sets, check=True))
                    rea.append(mbs_run(MBS, lift(True), sets, check=True))
                cc = sorted(r.cpu for r in cur)[REPEAT // 2]
                cr = sorted(r.cpu for r in rea)[REPEAT // 2]
                a, b = cur[-1], rea[-1]
                dy = max(abs(p - q) for p, q in zip(a.column("y"), b.column("y")))
                print(f"| {form} | {integ} | {tol} | {a.metrics['steps']} / {b.metrics['steps']} | "
                      f"{a.metrics['newton_iterations']} / {b.metrics['newton_iterations']} | {cc:.4f} | {cr:.4f} | "
                      f"{cr / cc:.2f} | {dy:.1e} |")


if __name__ == "__main__":
    main()
