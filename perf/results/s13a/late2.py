#!/usr/bin/env python3
"""late2.py FILE...: graph_bench --trace runs (all arms), per rank: run / c (its ideal pass's compute
half), chain end / c, the sum of its compute sleeps' lateness ("late"), run - chain end, and the main
thread's runnable-waiting ms; medians and means over the runs -- where the 2-rank excess goes."""
import re, sys, statistics as st
R = []
for fn in sys.argv[1:]:
    for line in open(fn):
        m = re.search(r'trace it \d+ \S+\s+rank (\d+): run ([\d.]+) ms .*?chain ends ([\d.]+) \(late ([\d.]+) ms, max (\d+) us.*?allreduces end ([\d.]+); ideal pass a ([\d.]+) c ([\d.]+) \| main cpu \S+ on ([\d.]+) wait ([\d.]+).*\| worker cpu \S+ on ([\d.]+) wait ([\d.]+)', line)
        if m: R.append([float(x) for x in m.groups()])
def row(name, f):
    x = [f(r) for r in R]
    print(f"{name:34s} median {st.median(x):7.3f} mean {st.mean(x):7.3f} min {min(x):7.3f} max {max(x):7.3f}")
print(f"{len(R)} rank-runs")
row("run / c", lambda r: r[1] / r[7])
row("chain end / c", lambda r: r[2] / r[7])
row("late (sum of sleeps' lateness) ms", lambda r: r[3])
row("late / c", lambda r: r[3] / r[7])
row("max late of one sleep us", lambda r: r[4])
row("run - chain end ms", lambda r: r[1] - r[2])
row("allreduces end - chain end ms", lambda r: r[5] - r[2])
row("chain end - c - late ms", lambda r: r[2] - r[7] - r[3])
row("main thread waiting ms", lambda r: r[9])
row("worker waiting ms", lambda r: r[11])
# per run (all ranks of one timed iteration, consecutive lines): against the largest c of the ranks
runs, cur = [], []
for fn in sys.argv[1:]:
    for line in open(fn):
        m = re.search(r'trace it (\d+) (\S+)\s+rank (\d+): run ([\d.]+) ms .*?chain ends ([\d.]+) \(late ([\d.]+) ms.*?allreduces end ([\d.]+); ideal pass a ([\d.]+) c ([\d.]+)', line)
        if not m: continue
        if int(m.group(3)) == 0 and cur: runs.append(cur); cur = []
        cur.append([float(x) for x in m.groups()[3:]])
if cur: runs.append(cur)
def rrow(name, f):
    x = [f(r) for r in runs]
    print(f"run: {name:36s} median {st.median(x):7.3f} mean {st.mean(x):7.3f} min {min(x):7.3f} max {max(x):7.3f}")
print(f"{len(runs)} runs (max over the ranks)")
C = lambda r: max(x[5] for x in r); A = lambda r: max(x[4] for x in r)
rrow("run / max c", lambda r: max(x[0] for x in r) / C(r))
rrow("max chain end / max c", lambda r: max(x[1] for x in r) / C(r))
rrow("run - max chain end ms", lambda r: max(x[0] for x in r) - max(x[1] for x in r))
rrow("max c - min c ms (ranks' compute halves)", lambda r: C(r) - min(x[5] for x in r))
rrow("max a / max c", lambda r: A(r) / C(r))
