#!/usr/bin/env python3
"""Largest difference between two result CSVs of the same run (`mbs run
--out`), over every output channel and sample: absolute, and relative to
that channel's largest magnitude in the first file.  Infinite when the
files have different sample counts.  Used by the deactivation on/off
benchmarks (contact_examples.sh, contact_unknowns.sh).
Usage: output_diff.py a.csv b.csv   (prints "abs rel")"""
import csv
import sys


def largest_difference(path_a, path_b):
    a = list(csv.reader(open(path_a)))
    b = list(csv.reader(open(path_b)))
    if len(a) != len(b):
        return float("inf"), float("inf")
    dabs, drel = 0.0, 0.0
    for c in range(1, len(a[0])):
        xs = [float(r[c]) for r in a[1:]]
        ys = [float(r[c]) for r in b[1:]]
        d = max(abs(x - y) for x, y in zip(xs, ys))
        s = max(abs(x) for x in xs)
        dabs = max(dabs, d)
        drel = max(drel, d / s if s > 0 else (0.0 if d == 0 else float("inf")))
    return dabs, drel


if __name__ == "__main__":
    print("%.17g %.17g" % largest_difference(sys.argv[1], sys.argv[2]))
