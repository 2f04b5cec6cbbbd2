#!/usr/bin/env python3
# sum.py (perf/results/s7l): per build, collective, MPI and size, the in-process ratio (through the
# layer / PMPI_ in the same launch) of each round's launch and the A/A: median [min-max] over rounds.
# Run in the folder of the ab-BUILD-ROUND.txt files.  Optional arguments: the base and new builds'
# file tags and the new build's column name (default: integ s7l s7l; s8l's runs: base new s8l).
import sys
A, B, NAME = (sys.argv[1:4] if len(sys.argv) >= 4 else ('integ', 's7l', 's7l'))
import re, glob, statistics as st
d = {}
for f in sorted(glob.glob('ab-*-*.txt')):
    b = f.split('-')[1]
    coll = None
    for line in open(f):
        m = re.match(r'## (\w+), (\d) ranks', line)
        if m: coll = m.group(1); continue
        m = re.match(r'\s+(\d+) \|\s+([\d.]+) \[[^]]*\] ([\d.]+)\[[^]]*\]\s+([\d.]+)\s+[\d.]+ \|\s+([\d.]+) \[[^]]*\] ([\d.]+)\[', line)
        if m and coll:
            n, ro, ao, us, rm, am = m.groups()
            for mpi, r, a in (('openmpi', ro, ao), ('mpich', rm, am)):
                d.setdefault((coll, mpi, int(n), b), []).append((float(r), float(a)))
f = lambda v: f"{st.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]"
print(f"| collective | MPI | bytes | main: layer/plain | main: A/A | {NAME}: layer/plain | {NAME}: A/A |")
print("| --- | --- | ---: | --- | --- | --- | --- |")
for k in sorted({k[:3] for k in d}, key=lambda k: (k[1], k[0], k[2])):
    a, b = d.get(k + (A,), []), d.get(k + (B,), [])
    if not a or not b: continue
    print(f"| {k[0]} | {k[1]} | {k[2]} | {f([x[0] for x in a])} | {f([x[1] for x in a])} | {f([x[0] for x in b])} | {f([x[1] for x in b])} |")
