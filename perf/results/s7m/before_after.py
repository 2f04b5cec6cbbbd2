#!/usr/bin/env python3
"""perf/results/s7m/before_after.py BEFORE.csv ALL.csv AFTER.csv ... (groups
separated by '--'): per (MPI, ranks, collective, bytes) the layer/PMPI ratio
median [range over launches] of each group (raw-ab.csv rows of perf/compare
--mpi-layer), and the A/A of the last group that has it.  Groups: the old
default table (lead-default-n*.csv: the lead's run of 2026-12-02 06:12-06:32),
every collective routed (all-*.csv), the new default table (new-*.csv)."""
import csv, sys, statistics
from collections import defaultdict

groups, cur = [], []
for a in sys.argv[1:]:
    if a == "--":
        groups.append(cur); cur = []
    else:
        cur.append(a)
groups.append(cur)
ab = [defaultdict(list) for _ in groups]
aa = defaultdict(list)
for g, files in enumerate(groups):
    for f in files:
        for row in csv.reader(open(f)):
            if len(row) < 17:
                continue
            mpi = row[0].rsplit("-", 1)[0]
            key = (mpi, int(row[4]), row[3], int(row[5]))
            if row[0].endswith("-ab"):
                ab[g][key].append(float(row[12]))
            else:
                aa[key].append(float(row[12]))
filt = [x for x in sys.argv if x.startswith("coll=")]
def rng(v):
    return "%.2f [%.2f-%.2f]" % (statistics.median(v), min(v), max(v)) if v else "-"
keys = sorted(set().union(*[set(d) for d in ab]))
for k in keys:
    print("%-6s %d %-15s %9d | " % k + " | ".join("%-18s" % rng(d.get(k, [])) for d in ab) + " | A/A " + rng(aa.get(k, [])))
