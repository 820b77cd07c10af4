#!/usr/bin/env python3
"""What a motor's energy channels cost (docs/actuators.md, "Energies as
channels").

Usage: python3 bench/energy_channels_cost.py [build/mbs] [--repeat=N] > table.md

Every mechatronic example (examples/dc_motor_*.json) as written and with
the five energy channels of each of its motors added (energy_in,
copper_energy, friction_energy, gear_energy, energy_out: quadratures over
each accepted step, three motor evaluations per step and motor, outside
the error control), at the default tolerance and at 1e-8: steps (equal:
the channels change no step) and CPU (the run's cpu_seconds, median of
--repeat, the two variants alternated in the same minute).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MBS = ARGS[0] if ARGS else "build/mbs"
REPEAT = next((int(a.split("=")[1]) for a in sys.argv[1:] if a.startswith("--repeat=")), 5)
COMPONENTS = ["energy_in", "copper_energy", "friction_energy", "gear_energy", "energy_out"]


def run(path, sets, tmp):
    """cpu_seconds and steps of one run."""
    met = os.path.join(tmp, "m.json")
    cmd = [MBS, "run", path, "--out", os.devnull, "--metrics", met, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True)
    m = json.load(open(met))
    return m["cpu_seconds"], m["steps"]


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    examples = sorted(f for f in os.listdir(os.path.join(root, "examples")) if f.startswith("dc_motor_"))
    print("| example | tolerance | steps | CPU without (s) | CPU with (s) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for f in examples:
            path = os.path.join(root, "examples", f)
            doc = json.load(open(path))
            motors = [e["name"] for e in doc.get("forces", []) if e.get("type") == "dc_motor"]
            doc["outputs"]["channels"] += [
                {"name": "%s_%s" % (m, c), "quantity": "motor", "element": m, "component": c}
                for m in motors for c in COMPONENTS]
            with_e = os.path.join(tmp, f)
            json.dump(doc, open(with_e, "w"))
            for sets in ([], ["solver.tolerance=1e-8"]):
                a, b = [], []
                for _ in range(REPEAT):
                    ca, sa = run(path, sets, tmp)
                    cb, sb = run(with_e, sets, tmp)
                    assert sa == sb, (f, sets, sa, sb)
                    a.append(ca)
                    b.append(cb)
                ma, mb = statistics.median(a), statistics.median(b)
                print("| %s | %s | %d | %.4f | %.4f | %.2f |" % (f[:-5], sets[0].split("=")[1] if sets else "default",
                                                              sa, ma, mb, mb / ma))


if __name__ == "__main__":
    main()
