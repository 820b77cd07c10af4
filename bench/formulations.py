#!/usr/bin/env python3
"""Both formulations on every example, side by side (issue 12).

Usage:
    python3 bench/formulations.py [--repeat K] [--quick] [EXAMPLE ...]

Needs build/mbs.  For every examples/*.json (the mechanisms, not sweeps/):
natural coordinates as written (its own integrator; bdf when it names none)
and relative coordinates with dopri5 (its default there; set when the example
names another: relative bdf is measured by bench/relative_bdf.py; an example
naming moreau_jean runs it in relative coordinates too: RHS evals "moreau_jean"), both at the
example's own tolerance (1e-6 when it names none).  An example the relative formulation refuses is listed with the
parser's reason.

Columns, per formulation: coordinates and constraints (natural: after the
elimination of constant and shared coordinates, `mbs check`; relative: the
tree's joint coordinates and the chords' circuit equations plus drivers),
steps (accepted + rejected), the work per step's method (natural bdf: Newton
iterations, Jacobians; relative dopri5: right-hand-side evaluations, 6 per
attempted step, stages 2..7, the first shared with the last step's: FSAL),
CPU seconds per simulated second (the run's cpu_seconds / t_end, best of
--repeat runs, initialisation and output sampling included), and the largest
difference of the outputs: over every channel and sample, |rel - nat| in
units of the channel's scale (max |y| of the natural run; energies on the
largest energy, forces on the largest force; constraint violations not
compared), as tests/unit/formulations_test.c measures it.  At the examples'
own tolerances these differences are the two integrators' errors, not a
test: formulations_test compares at tight tolerances.

Long or costly examples run to a shorter t_end, the same in both (SHORT
below, stated in the table); --quick shortens every run to 1 s at most.
"""
import glob
import json
import os
import subprocess
import sys

from mbsrun import mbs_run

MBS = "build/mbs"
ENERGY = {"energy", "kinetic_energy", "potential_energy"}
FORCE = {"reaction_force", "element_force", "contact_force"}
# example -> (t_end, why)
SHORT = {
    "balls_in_box": ("0.15", "0.6 s: natural bdf alone 16 s CPU"),
    "roller_chain_drive": ("0.005", "0.025 s: relative dopri5 15 s CPU"),
    "iftomm_a02_four_bar_n40": ("5", "20 s: relative dopri5 at the example's 1e-9 stops at t = 9.63 s "
                                     "(a singular position)"),
    "iftomm_a01_pendulum": ("200", "2000 s"),
}


def best_run(path, sets, repeat):
    """The fastest of `repeat` runs: (metrics, (header, rows)) or (None, message)."""
    best = None
    for _ in range(repeat):
        r = mbs_run(MBS, path, sets)
        if not r.ok:
            return None, r.message
        if best is None or r.cpu < best.cpu:
            best = r
    return best.metrics, (best.header, best.rows)


def check(path, sets):
    cmd = [MBS, "check", path, "--json"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else None


def refusal(path):
    """The relative formulation's reasons (its messages), or None when it runs the example."""
    p = subprocess.run([MBS, "check", path, "--set", "solver.formulation=relative"], capture_output=True, text=True)
    if p.returncode == 0:
        return None
    key = 'solver.formulation "relative" '
    reasons = []
    for line in p.stderr.splitlines():
        if key in line:
            r = line.split(key, 1)[1].split(";")[0].split(":")[0].strip()
            if r.startswith("integrates with dopri5"):
                continue  # the integrator named; relative runs dopri5 (not a reason about the model)
            if r not in reasons:
                reasons.append(r)
    if not reasons:  # only the integrator named: relative runs the model with dopri5
        p = subprocess.run([MBS, "check", path, "--set", "solver.formulation=relative", "--set",
                            "solver.integrator=dopri5"], capture_output=True, text=True)
        return None if p.returncode == 0 else p.stderr.strip().splitlines()[0]
    return "; ".join(reasons)


def largest_difference(doc, nat, rel):
    """max over channels of max |rel - nat| / scale, and the channel."""
    qty = {c["name"]: c.get("quantity") for c in doc.get("outputs", {}).get("channels", [])}
    (hn, dn), (hr, dr) = nat, rel
    if hn != hr or len(dn) != len(dr):
        return float("nan"), "grids differ"
    esc = fsc = 0.0
    for j, h in enumerate(hn[1:], 1):
        for r in dn:
            if qty.get(h) in ENERGY:
                esc = max(esc, abs(r[j]))
            if qty.get(h) in FORCE:
                fsc = max(fsc, abs(r[j]))
    worst, wch = 0.0, "-"
    for j, h in enumerate(hn[1:], 1):
        q = qty.get(h)
        if q == "constraint_violation":
            continue
        sc = esc if q in ENERGY else fsc if q in FORCE else max(abs(r[j]) for r in dn)
        e = max(abs(a[j] - b[j]) for a, b in zip(dn, dr)) / max(sc, 1e-12)
        if e > worst:
            worst, wch = e, h
    return worst, wch


def main(argv):
    repeat, quick, names = 3, False, []
    i = 0
    while i < len(argv):
        if argv[i] == "--repeat":
            repeat = int(argv[i + 1])
            i += 1
        elif argv[i] == "--quick":
            quick, repeat = True, 1
        else:
            names.append(argv[i])
        i += 1
    paths = sorted(glob.glob("examples/*.json"))
    if names:
        paths = [p for p in paths if os.path.basename(p)[:-5] in names]
    print("## Both formulations on every example (bench/formulations.py%s)\n" % (" --quick" if quick else ""))
    print("| example | t_end | natural: integrator, coords / constraints | steps | Newton it. (Jacobians) | CPU s per "
          "sim. s | relative: coords / constraints (chords) | steps | RHS evals | CPU s per sim. s | relative / "
          "natural CPU | largest output difference |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for path in paths:
        name = os.path.basename(path)[:-5]
        with open(path) as f:
            doc = json.load(f)
        solver = doc.get("solver", {})
        tend = str(solver.get("t_end"))
        if name in SHORT:
            tend = SHORT[name][0]
            notes.append("%s: to %s s (as written %s)" % (name, tend, SHORT[name][1]))
        if quick and float(tend) > 1:
            tend = "1"
        sets = ["solver.t_end=" + tend]
        nat = best_run(path, sets, repeat)
        if nat[0] is None:
            print("| %s | %s | natural failed: %s | | | | | | | | | |" % (name, tend, nat[1][:80]))
            continue
        mn, rn = nat
        integ = mn["integrator"]
        nat_cols = "%s, %d / %d | %d+%d | %s | %.3g" % (
            integ, mn["coords_after"], mn["constraints_after"], mn["steps"], mn["rejected_steps"],
            "%d (%d)" % (mn["newton_iterations"], mn["jacobian_evaluations"]) if integ == "bdf"
            else "%d" % mn["newton_iterations"], mn["cpu_seconds"] / float(tend))
        why = refusal(path)
        if why is not None:
            print("| %s | %s | %s | refused: %s | | | | | |" % (name, tend, nat_cols, why))
            continue
        # rigid contacts: relative moreau_jean (run/contact_relative.c), else dopri5
        rinteg = "moreau_jean" if integ == "moreau_jean" else "dopri5"
        rsets = sets + ["solver.formulation=relative", "solver.integrator=" + rinteg]
        rel = best_run(path, rsets, repeat)
        if rel[0] is None:
            print("| %s | %s | %s | relative failed: %s | | | | | |" % (name, tend, nat_cols, rel[1][:100]))
            continue
        mr, rr = rel
        ck = check(path, [])
        nch = ck.get("relative_chords", 0) if ck else 0
        attempts = mr["steps"] + mr["rejected_steps"] + mr.get("events", 0)
        worst, wch = largest_difference(doc, rn, rr)
        rc, nc = mr["cpu_seconds"], mn["cpu_seconds"]
        evals = "%d" % (6 * attempts + 1) if rinteg == "dopri5" else "moreau_jean"
        print("| %s | %s | %s | %d / %d (%d) | %d+%d | %s | %.3g | %.2f | %.1e (%s) |" % (
            name, tend, nat_cols, mr.get("relative_coordinates", 0), mr.get("relative_constraints", 0), nch,
            mr["steps"], mr["rejected_steps"], evals, rc / float(tend), rc / max(nc, 1e-9), worst, wch))
        sys.stdout.flush()
    print()
    for n in notes:
        print("- " + n)


if __name__ == "__main__":
    main(sys.argv[1:])
