#!/usr/bin/env python3
"""Work at equal accuracy before and after issue 9 (trustworthy defaults).

Usage:
    python3 bench/before_after.py OLD_MBS NEW_MBS OLD_EXAMPLES_DIR [--quick] > bench/before_after.md

OLD_MBS is `build/mbs` built from the commit before issue 9's first commit
(e8a1b2f~1), OLD_EXAMPLES_DIR that commit's examples/ (what a user ran then:
most examples named the trapezoidal AL with a fixed step); NEW_MBS is
`build/mbs` of today.  The mechanisms, characteristic lengths, reference
values and position channels are those of the tolerance-proportionality test
(tests/unit/tolerance_test.c, TP_MECH; N = 40 up to 5 s, A01 up to 10 s).

Points measured (error = largest |position - reference| over the reference
values, CPU = the run's cpu_seconds, median of 3 runs, OLD and NEW runs
interleaved so that both see the same machine load):
  * OLD "as shipped": the old example with its own solver settings;
  * OLD and NEW ladders: the example with integrator, step, max_step,
    tolerance and abs_tolerance removed ("only t_end"), integrator bdf and
    dopri5 (and NEW's default) at solver.tolerance 1e-3 ... 1e-9.
The criterion of issue 9 ("no example slower by more than 10 % at equal
accuracy"): for every OLD point, the CPU NEW needs for the same or a smaller
error, read off NEW's work-precision front (the least CPU at each accuracy
over NEW's points of the same integrator, or over all of NEW's points for the
"as shipped" row), interpolated linearly in log CPU against log error
between the two front points around the OLD error; the ratio NEW / OLD.
Where NEW never reaches the OLD error the row says so.
"""
import json
import math
import os
import statistics
import sys

from mbsrun import mbs_run

# (name, example, L, reference file, kind, channels, tmax) as in TP_MECH
MECH = [
    ("andrews", "iftomm_a03_andrews", 0.04, "tests/reference/iftomm_a03_andrews.json", "published", ["xF", "yF"], 0),
    ("slider_crank_3d", "iftomm_spatial_slider_crank", 0.3,
     "tests/reference/high_accuracy/iftomm_spatial_slider_crank.json", "computed", ["x_slider"], 0),
    ("four_bar_n2", "iftomm_a02_four_bar_n2", 1.0, "tests/reference/iftomm_a02_four_bar_n2.json", "analytic",
     ["xB0", "yB0"], 0),
    ("four_bar_n40", "iftomm_a02_four_bar_n40", 1.0, "tests/reference/iftomm_a02_four_bar_n40.json", "analytic",
     ["xB0", "yB0"], 5),
    ("bricard", "iftomm_a04_bricard", 1.0, "tests/reference/high_accuracy/iftomm_a04_bricard.json", "computed",
     ["xP3", "yP3", "zP3"], 0),
    ("flyball", "iftomm_a05_flyball", 1.0, "tests/reference/high_accuracy/iftomm_a05_flyball.json", "computed",
     ["s", "ballR_x", "ballR_z"], 0),
    ("double_pendulum", "double_pendulum", 1.0, "tests/reference/high_accuracy/double_pendulum.json", "computed",
     ["x_tip", "y_tip"], 0),
    ("pendulum", "pendulum", 1.0, "tests/reference/pendulum.json", "analytic", ["x", "y"], 0),
    ("a01_pendulum", "iftomm_a01_pendulum", 1.0, "tests/reference/iftomm_a01_pendulum.json", "analytic",
     ["xP1", "yP1"], 10),
]
STRIP = ["integrator", "step", "max_step", "tolerance", "abs_tolerance"]


def load_refs(path, kind, chans, tmax):
    out = []
    for e in json.load(open(path)):
        if e.get("kind") != kind or "quantity" in e or e.get("channel") not in chans:
            continue
        t = e.get("t")
        if not isinstance(t, (int, float)) or t <= 0 or (tmax > 0 and t > tmax + 1e-12):
            continue
        out.append((e["channel"], float(t), float(e["value"])))
    return out


def value_at(rows, hdr, ch, t):
    """Channel ch at time t from the CSV rows, linear between samples."""
    ic = hdr.index(ch)
    prev = None
    for r in rows:
        tr = float(r[0])
        if abs(tr - t) <= 1e-9 * max(1.0, abs(t)):
            return float(r[ic])
        if tr > t and prev is not None:
            t0, y0, y1 = float(prev[0]), float(prev[ic]), float(r[ic])
            return y0 + (y1 - y0) * (t - t0) / (tr - t0)
        prev = r
    return float("nan")


def run(binary, doc, sets, refs):
    """(largest error at the reference times, CPU s, None) or (nan, nan, [message])."""
    r = mbs_run(binary, doc, sets, timeout=300)
    if not r.ok:
        return float("nan"), float("nan"), [r.message or "failed"]
    err = max(abs(value_at(r.rows, r.header, ch, t) - v) for ch, t, v in refs)
    return err, r.cpu, None


def front(points):
    """The work-precision front: (error, cpu) pairs, each cheaper than every
    more accurate one; sorted by error ascending."""
    pts = sorted(p for p in points if math.isfinite(p[0]) and math.isfinite(p[1]))
    out = []
    best = float("inf")
    for e, c in pts:  # ascending error: keep points cheaper than every more accurate one
        if c < best:
            out.append((e, c))
            best = c
    return out


def cpu_at(fr, err):
    """NEW's CPU for error <= err on the front fr, log-log interpolated."""
    ok = [p for p in fr if p[0] <= err]
    if not ok:
        return None
    lo = ok[-1]  # the cheapest point at least as accurate
    hi = [p for p in fr if p[0] > err]
    if not hi or lo[0] <= 0 or err <= 0:
        return lo[1]
    hi = hi[0]
    f = (math.log(err) - math.log(lo[0])) / (math.log(hi[0]) - math.log(lo[0]))
    return math.exp(math.log(lo[1]) + f * (math.log(hi[1]) - math.log(lo[1])))


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    old_bin, new_bin, old_ex = sys.argv[1:4]
    quick = "--quick" in sys.argv
    tols = [1e-3, 1e-5, 1e-7, 1e-9] if quick else [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9]
    reps = 1 if quick else 3
    load = os.getloadavg()
    print("## Work at equal accuracy, before and after issue 9\n")
    print("`python3 bench/before_after.py OLD_MBS NEW_MBS OLD_EXAMPLES` (see its docstring); OLD = e8a1b2f~1, NEW = "
          "today's build. Load average at the start %.1f / %.1f / %.1f.\n" % load)
    summary = []
    for name, ex, L, reff, kind, chans, tmax in MECH:
        refs = load_refs(reff, kind, chans, tmax)
        tend = max(t for _, t, _ in refs)
        old_doc = json.load(open(os.path.join(old_ex, ex + ".json")))
        new_doc = json.load(open(os.path.join("examples", ex + ".json")))
        plain_old = json.loads(json.dumps(old_doc))
        plain_new = json.loads(json.dumps(new_doc))
        for d in (plain_old, plain_new):
            for k in STRIP:
                d.get("solver", {}).pop(k, None)
        base = ["solver.t_end=%.17g" % tend, "solver.time_limit=20"]
        # configurations: (label, side, doc, sets)
        confs = [("as shipped (%s)" % old_doc["solver"].get("integrator", "default"), "old", old_doc, [])]
        for integ in ["bdf", "dopri5"]:
            for tol in tols:
                s = ["solver.integrator=" + integ, "solver.tolerance=%g" % tol]
                confs.append(("%s %g" % (integ, tol), "old", plain_old, s))
                confs.append(("%s %g" % (integ, tol), "new", plain_new, s))
        for tol in tols:
            confs.append(("default %g" % tol, "new", plain_new, ["solver.tolerance=%g" % tol]))
        res = {}
        for rep in range(reps):
            for label, side, doc, sets in confs:
                key = (label, side)
                if key in res and res[key]["fail"]:
                    continue
                if key in res and rep > 0 and res[key]["cpu"] and res[key]["cpu"][0] > 5:
                    continue  # one run of the slow ones is enough
                err, cpu, fail = run(old_bin if side == "old" else new_bin, doc, base + sets, refs)
                r = res.setdefault(key, {"err": err, "cpu": [], "fail": fail})
                r["cpu"].append(cpu)
        for r in res.values():
            r["cpu"] = statistics.median(r["cpu"]) if r["cpu"] else float("nan")
        new_pts = {k[0]: (v["err"], v["cpu"]) for k, v in res.items() if k[1] == "new" and not v["fail"]}
        fr_all = front(new_pts.values())
        print("### %s (L = %g m, t up to %g s)\n" % (name, L, tend))
        print("| OLD run | OLD error (m) | OLD CPU (ms) | NEW CPU at that error (ms) | ratio NEW / OLD | NEW front used |")
        print("|---|---:|---:|---:|---:|---|")
        for (label, side), v in sorted(res.items(), key=lambda kv: (kv[0][0].split()[0], kv[0][0])):
            if side != "old":
                continue
            if v["fail"]:
                print("| %s | failed: %s | | | | |" % (label, v["fail"][0][:80]))
                continue
            integ = label.split()[0]
            fr = fr_all if label.startswith("as shipped") else front(
                [p for k, p in new_pts.items() if k.split()[0] == integ])
            c = cpu_at(fr, v["err"])
            ratio = c / v["cpu"] if c is not None and v["cpu"] > 0 else None
            cell = "%.3g" % (1e3 * c) if c is not None else "not reached"
            rcell = ("**%.2f**" % ratio if ratio > 1.10 else "%.2f" % ratio) if ratio is not None else "-"
            print("| %s | %.2e | %.3g | %s | %s | %s |" % (label, v["err"], 1e3 * v["cpu"], cell, rcell,
                                                           "all integrators" if label.startswith("as shipped") else integ))
            summary.append((name, label, v["err"], ratio))
        nf = [(k, v) for k, v in res.items() if k[1] == "new" and v["fail"]]
        for (label, _), v in nf:
            print("\nNEW %s failed: %s" % (label, v["fail"][0][:120]))
        print()
    over = [s for s in summary if s[3] is not None and s[3] > 1.10]
    unreached = [s for s in summary if s[3] is None]
    print("### Summary\n")
    print("%d OLD points compared; %d need more than 1.10 x the CPU in NEW at equal accuracy; %d OLD errors that NEW's "
          "points do not reach (at the tolerances run).\n" % (len(summary), len(over), len(unreached)))
    for s in sorted(over, key=lambda s: -s[3]):
        print("* %s, %s: error %.2e m, ratio %.2f" % (s[0], s[1], s[2], s[3]))
    for s in unreached:
        print("* %s, %s: error %.2e m not reached by NEW" % (s[0], s[1], s[2]))
    print("\nLoad average at the end %.1f / %.1f / %.1f." % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
