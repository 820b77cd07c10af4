#!/usr/bin/env python3
"""Do two builds of the CLI give the same answers?  For a change meant to
leave every result alone (a refactoring, a speed-up): every example, run by
both builds as written and with each variant below, compared bit for bit
(the CSV as written, the exit code and first line of the message, every
metric but the timings and peak memory).

Usage: python3 bench/same_outputs.py OLD_MBS NEW_MBS [--variants as_written,bdf,dopri5,relative,al,mj,ed]
                                     [--only NAME,NAME] [--full]
Without --full the slow examples are shortened (SHORT below).  Prints one
line per run that differs and a summary; exits 1 if any differs."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbsrun import mbs_run  # noqa: E402

VARIANTS = {
    "as_written": [],
    "bdf": ["solver.integrator=bdf"],
    "dopri5": ["solver.integrator=dopri5"],
    "al": ["solver.integrator=trapezoidal_al"],
    "relative": ["solver.formulation=relative", "solver.integrator=dopri5"],
    "mj": ["solver.integrator=moreau_jean"],
    "ed": ["solver.integrator=event_driven"],
}
SHORT = {"roller_chain_drive": "0.004", "balls_in_box_100": "0.1", "balls_in_box": "0.1",
         "iftomm_a01_pendulum": "100", "iftomm_a02_four_bar_n40": "2"}
TIMING = {"wall_seconds", "cpu_seconds", "peak_memory_bytes", "contact_detection_seconds", "linear_algebra_seconds"}


def main(argv):
    old, new = argv[0], argv[1]
    # --full takes no value; the other options take one each
    full = "--full" in argv[2:]
    rest = [a for a in argv[2:] if a != "--full"]
    opts = dict(zip(rest[0::2], rest[1::2]))
    variants = opts.get("--variants", "as_written,bdf,dopri5,relative").split(",")
    only = set(opts["--only"].split(",")) if "--only" in opts else None
    runs = differ = 0
    for path in sorted(glob.glob("examples/*.json")):
        name = os.path.basename(path)[:-5]
        if only and name not in only:
            continue
        base = [] if full or name not in SHORT else ["solver.t_end=" + SHORT[name]]
        for v in variants:
            sets = base + VARIANTS[v]
            a, b = mbs_run(old, path, sets, timeout=600), mbs_run(new, path, sets, timeout=600)
            ma = {k: x for k, x in a.metrics.items() if k not in TIMING}
            mb = {k: x for k, x in b.metrics.items() if k not in TIMING}
            what = [w for w, same in (("exit code", a.rc == b.rc), ("message", a.message == b.message),
                                      ("outputs", a.csv_text == b.csv_text), ("metrics", ma == mb)) if not same]
            runs += 1
            if what:
                differ += 1
                keys = sorted(k for k in set(ma) | set(mb) if ma.get(k) != mb.get(k))
                print("DIFFERS %s %s: %s%s" % (name, v, ", ".join(what),
                                               " (%s)" % ", ".join(keys[:6]) if keys else ""), flush=True)
    print("%d runs, %d identical, %d differ (variants %s%s)" % (runs, runs - differ, differ, ",".join(variants),
                                                               "" if full else "; slow examples shortened"))
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
