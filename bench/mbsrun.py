"""One run of the solver's command line for the bench scripts.

Every bench script that times or compares runs of `build/mbs run` goes
through `mbs_run`: it writes the outputs and metrics into a temporary
directory, repeats the run when asked (the metrics and outputs of the last
run are kept, the CPU time is the median over the repeats), and never raises
on a failed run: the caller reads `rc` and `message` and decides.

    from mbsrun import mbs_run
    r = mbs_run("build/mbs", "examples/pendulum.json", ["solver.tolerance=1e-8"])
    if r.ok:
        print(r.cpu, r.metrics["steps"], r.column("theta")[-1])
"""
import csv
import json
import os
import statistics
import subprocess
import tempfile


class MbsRun:
    """What one (repeated) run left: exit code, first line of its message,
    CSV header and rows (floats), metrics (dict) and the median CPU time."""

    def __init__(self, rc, message, header, rows, metrics, cpus, timed_out=False, csv_text=""):
        self.rc = rc
        self.csv_text = csv_text  # the output file as written, for bit-for-bit comparisons
        self.message = message
        self.header = header
        self.rows = rows
        self.metrics = metrics
        self.cpu = statistics.median(cpus) if cpus else float("nan")
        self.timed_out = timed_out

    @property
    def ok(self):
        return self.rc == 0

    def column(self, name):
        """The samples of one output channel."""
        i = self.header.index(name)
        return [r[i] for r in self.rows]

    def dicts(self):
        """The rows as {channel: value} (as csv.DictReader, with floats)."""
        return [dict(zip(self.header, r)) for r in self.rows]


def mbs_run(binary, path, sets=(), repeat=1, timeout=None, check=False):
    """Run `binary run path --set S ...` `repeat` times.

    path may be a file or a mechanism document (a dict, written to a
    temporary file).  timeout (s) stops a run that takes longer: rc is then
    -1 and timed_out True.  check=True raises RuntimeError on a failed run
    (for benches whose inputs are known to run)."""
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(path, dict):
            doc = os.path.join(tmp, "doc.json")
            with open(doc, "w") as f:
                json.dump(path, f)
            path = doc
        out, met = os.path.join(tmp, "out.csv"), os.path.join(tmp, "metrics.json")
        cmd = [binary, "run", path, "--quiet", "--out", out, "--metrics", met]
        for s in sets:
            cmd += ["--set", s]
        cpus, metrics, rc, message = [], {}, 0, ""
        for _ in range(repeat):
            for f in (out, met):
                if os.path.exists(f):
                    os.remove(f)
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return MbsRun(-1, "still running after %g s (stopped)" % timeout, [], [], {}, [], True)
            rc = p.returncode
            lines = (p.stderr.strip() or p.stdout.strip()).splitlines()
            message = lines[0] if lines else ""
            if rc != 0:
                if check:
                    raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), rc, message))
                break
            with open(met) as f:
                metrics = json.load(f)
            cpus.append(metrics["cpu_seconds"])
        if rc != 0 and os.path.exists(met):
            with open(met) as f:
                metrics = json.load(f)
        header, rows, text = [], [], ""
        if os.path.exists(out):
            with open(out) as f:
                text = f.read()
            table = list(csv.reader(text.splitlines()))
            if table:
                header, rows = table[0], [[float(x) for x in r] for r in table[1:]]
        return MbsRun(rc, message, header, rows, metrics, cpus, csv_text=text)


def solver_sets(**options):
    """--set arguments for solver options: solver_sets(integrator="bdf",
    tolerance=1e-8) -> ["solver.integrator=bdf", "solver.tolerance=1e-08"]."""
    return ["solver.%s=%s" % (k, v if isinstance(v, str) else "%g" % v) for k, v in options.items()]
