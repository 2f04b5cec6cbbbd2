#!/usr/bin/env python3
"""perf/results/s7m/verdict.py CSV... -- per (MPI, ranks, collective, bytes)
the layer/PMPI ratio over the launches (raw-ab.csv rows of perf/compare
--mpi-layer: column 13 = first-quartile ratio of one launch), its A/A, and
the routing verdict of issue 15's rule: "plexus" only where every launch's
ratio is below 1 (and below the A/A's lowest launch minus nothing: the
range is what decides; "marginal" where the
slowest launch is 0.95-1.00, inside the A/A noise), else "mpi"."""
import csv, sys, statistics
from collections import defaultdict

ab = defaultdict(list)
aa = defaultdict(list)
for f in sys.argv[1:]:
    for row in csv.reader(open(f)):
        if len(row) < 17:
            continue
        var, mpi, coll, n, size, ratio = row[0], row[0].rsplit("-", 1)[0], row[3], int(row[4]), int(row[5]), float(row[12])
        key = (mpi, n, coll, size)
        (ab if var.endswith("-ab") else aa)[key].append(ratio)

def rng(v):
    return "%.2f [%.2f-%.2f] x%d" % (statistics.median(v), min(v), max(v), len(v)) if v else "-"

print("%-8s %2s %-15s %9s | %-24s | %-24s | %s" % ("mpi", "n", "coll", "bytes", "layer/PMPI med [range]", "A/A med [range]", "verdict"))
for key in sorted(ab):
    v = ab[key]
    verdict = ("plexus" if max(v) < 0.95 else "plexus (marginal: max >= 0.95)") if max(v) < 1.0 else ("mpi (mixed)" if min(v) < 1.0 else "mpi")
    print("%-8s %2d %-15s %9d | %-24s | %-24s | %s" % (key + (rng(v), rng(aa.get(key, [])), verdict)))
