#!/usr/bin/env python3
"""rowsum.py FILE...: per size and arm of ab_after_mpi.sh output (plx_perf rows), min / q1 /
median / max of the time (us) and the launches over 60 us (the slow mode, sizes <= 512 KiB)."""
import sys, re, statistics as st
v = {}
for f in sys.argv[1:]:
    lab = None
    for line in open(f):
        m = re.match(r'# (?:round|launch) \d+ (\S+)', line)
        if m: lab = m.group(1); continue
        m = re.match(r'\s+(\d+)\s+\d+\s+\S+\s+\S+\s+\S+\s+([\d.]+)', line)
        if m and lab: v.setdefault((int(m.group(1)), lab), []).append(float(m.group(2)))
for (b, lab), x in sorted(v.items()):
    x.sort(); n = len(x)
    q1 = st.quantiles(x, n=4)[0] if n >= 4 else x[0]
    print(f"{b:>8} {lab:6} n={n:2} min {x[0]:7.1f} q1 {q1:7.1f} med {st.median(x):7.1f} max {x[-1]:7.1f} over60 {sum(t > 60 for t in x) if b <= 524288 else '-'}")
