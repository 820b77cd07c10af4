#!/usr/bin/env python3
"""bench/service/cpu.py - CPU accounting for bench/service_bench.sh (Linux /proc, standard library).

The benchmark machine may be shared: this tells how much of its CPU went to
our processes, by program, and how much to everything else during a measured
interval.

  cpu.py snap FILE ROOTPID...       record the time, the machine's busy/total ticks (/proc/stat) and
                                     the user+system ticks of every live process under the ROOTPIDs
                                     (inclusive), with its program name
  cpu.py diff A B [REAPED_TICKS]    compare two snapshots; REAPED_TICKS: CPU ticks of our children
                                     that exited in between (bash `times`).  Prints one JSON line:
        {"wall": s, "ncpu": n, "busy_pct": machine busy in % of all cores,
         "other_pct": busy not used by our processes (same unit), "by_prog": {name: cpu seconds}}
  cpu.py idle SECONDS                print the machine's busy % (of all cores) over SECONDS
"""
import json
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def machine():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    busy = v[0] + v[1] + v[2] + v[5] + v[6]
    return busy, busy + v[3] + v[4]


def procs():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        rest = s[s.rindex(")") + 2:].split()
        # rest[0] = state, rest[1] = ppid, rest[11] = utime, rest[12] = stime
        out[int(d)] = (int(rest[1]), int(rest[11]) + int(rest[12]), comm)
    return out


def prog(comm):
    for p in ("gateway", "worker", "postgres", "wrk"):
        if comm.startswith(p):
            return p
    return "other"


def snap(path, roots):
    ps = procs()
    keep = set(r for r in roots if r in ps)
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _, _) in ps.items():
            if ppid in keep and pid not in keep:
                keep.add(pid)
                grew = True
    busy, total = machine()
    with open(path, "w") as f:
        json.dump({"t": time.monotonic(), "busy": busy, "total": total,
                   "pids": {str(p): [ps[p][1], ps[p][2]] for p in keep}}, f)


def diff(a, b, reaped):
    with open(a) as f:
        A = json.load(f)
    with open(b) as f:
        B = json.load(f)
    ncpu = os.cpu_count()
    wall = B["t"] - A["t"]
    by = {}
    ours = reaped
    for pid, (ticks, comm) in B["pids"].items():
        d = ticks - A["pids"].get(pid, [0])[0]
        ours += d
        by[prog(comm)] = by.get(prog(comm), 0) + d / HZ
    busy = B["busy"] - A["busy"]
    total = max(B["total"] - A["total"], 1)
    by["reaped children"] = reaped / HZ
    print(json.dumps({"wall": wall, "ncpu": ncpu, "busy_pct": 100.0 * busy / total,
                      "other_pct": max(0.0, 100.0 * (busy - ours) / total),
                      "by_prog": {k: round(v, 3) for k, v in by.items()}}))


def idle(seconds):
    b0, t0 = machine()
    time.sleep(seconds)
    b1, t1 = machine()
    print("%.0f" % (100.0 * (b1 - b0) / max(t1 - t0, 1)))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "snap":
        snap(sys.argv[2], [int(x) for x in sys.argv[3:]])
    elif cmd == "diff":
        diff(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    elif cmd == "idle":
        idle(float(sys.argv[2]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
